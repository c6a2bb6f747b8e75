"""Run untrusted work in worker processes with memory, CPU and wall-clock limits.

Shared by the Z3 verifier (:mod:`qcstation.core.verify.verifier`, which has its own
pipelined pool) and the answer checker (:mod:`qcstation.eval.checker`, which uses
:class:`IsolatedPool` below). The helpers set the limits inside a worker; the pool
runs one job at a time per worker, kills a worker that passes the wall-clock limit
or dies, reports that job as failed and starts a replacement. A job never hangs
its caller.
"""

from __future__ import annotations

import abc
import contextlib
import importlib
import math
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "apply_worker_limits",
    "worker_setup",
    "worker_jobs",
    "current_vm_mb",
    "set_cpu_budget",
    "silence_output",
    "signal_name",
    "mp_context",
    "JobResult",
    "ClosingPool",
    "IsolatedPool",
]


# --------------------------------------------------------------------------- in the worker


def apply_worker_limits(memory_mb: int) -> None:
    """RLIMIT_AS = ``memory_mb`` (never above the hard limit) and no core files."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):  # pragma: no cover
        pass
    limit = int(memory_mb) * 1024 * 1024
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):  # pragma: no cover
        pass


def current_vm_mb() -> float:
    """Virtual memory of this process in MB (Linux; 200 elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return 200.0


def set_cpu_budget(seconds: float) -> None:
    """Soft RLIMIT_CPU = CPU used so far + this job's budget (SIGXCPU ends a runaway job)."""
    try:
        import resource
    except ImportError:  # pragma: no cover
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    soft = int(math.ceil(spent + seconds))
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ValueError, OSError):  # pragma: no cover
        pass


def silence_output() -> None:
    """Send the worker's stdout/stderr to /dev/null (it must not scribble over a TUI)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.close(devnull)
    except OSError:  # pragma: no cover
        pass


def signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


# --------------------------------------------------------------------------- start method

_preload: set[str] = set()
_preload_lock = threading.Lock()


#: the start methods the workers use (``mp_context``): forkserver where it works, else spawn
MPContext = multiprocessing.context.ForkServerContext | multiprocessing.context.SpawnContext


def mp_context(preload: Iterable[str] = ()) -> MPContext:
    """The ``forkserver`` context (safe from threads), else ``spawn``.

    ``preload`` modules are imported once in the fork server, so a (re)started worker
    costs a fork, not an import. The fork server is shared by every pool of the
    process: the modules asked for by all callers are preloaded together, as long as
    the server has not started yet (after that a worker imports what it needs).

    The server's socket lives in qcstation's runtime folder, not the system temp folder,
    so a killed run leaves nothing in /tmp (:mod:`qcstation.common.runtime`)."""
    from qcstation.common.runtime import use_private_temp_dir_for_multiprocessing

    use_private_temp_dir_for_multiprocessing()
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        with _preload_lock:
            _preload.update(preload)
            ctx.set_forkserver_preload(sorted(_preload))
        return ctx
    return multiprocessing.get_context("spawn")


# --------------------------------------------------------------------------- generic pool


@dataclass(frozen=True)
class JobResult:
    """How one job ended: ``status`` ``ok`` (``value`` is the job function's return
    value) or ``timeout`` | ``memory`` | ``crash`` | ``error`` (``message`` says why)."""

    status: str
    value: Any = None
    message: str = ""
    elapsed_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _resolve(target: str) -> Callable[[Any], Any]:
    module, _, name = target.partition(":")
    fn = getattr(importlib.import_module(module), name)
    if not callable(fn):  # pragma: no cover - programming error
        raise TypeError(f"{target} is not callable")
    return fn


def worker_setup(memory_mb: int) -> None:
    """The start of every worker process: Ctrl-C is the parent's (which kills us), output
    goes nowhere (it must not scribble over the parent's terminal, the TUI), limits set."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    silence_output()
    apply_worker_limits(memory_mb)


def worker_jobs(conn: multiprocessing.connection.Connection) -> Iterator[Any]:
    """In a worker: tell the parent it is ready, then each job it sends, until it sends
    ``None`` or goes away."""
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if msg is None:
            return
        yield msg


def _pool_worker_main(conn: multiprocessing.connection.Connection, target: str,
                      memory_mb: int, imports: tuple[str, ...] = ()) -> None:
    """Worker loop: receive (job_id, payload, cpu_s), reply (job_id, status, value, message)."""
    worker_setup(memory_mb)
    for module in imports:
        importlib.import_module(module)
    fn = _resolve(target)
    for job_id, payload, cpu_s in worker_jobs(conn):
        set_cpu_budget(cpu_s)
        try:
            reply = (job_id, "ok", fn(payload), "")
        except MemoryError:
            reply = (job_id, "memory", None, f"out of memory (limit {memory_mb} MB)")
        except RecursionError:
            reply = (job_id, "memory", None, "the input is nested too deeply")
        except Exception as exc:  # noqa: BLE001 - report, never die silently
            text = f"{type(exc).__name__}: {exc}"
            reply = (job_id, "error", None, text[:300])
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return
        if reply[1] != "ok":
            return  # state may be damaged: the parent starts a fresh worker


@contextlib.contextmanager
def stderr_with_a_descriptor() -> Iterator[None]:
    """Starting a worker passes ``sys.stderr.fileno()`` to the fork server / resource tracker;
    inside the Textual app stderr is a capture object whose fileno is -1 ("bad value(s) in
    fds_to_keep"). For the start only, use the process's real stderr (or /dev/null)."""
    try:
        ok = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        ok = False
    if ok:
        yield
        return
    saved = sys.stderr
    real = sys.__stderr__
    devnull = None
    try:
        if real is None or real.fileno() < 0:
            raise ValueError
    except (AttributeError, OSError, ValueError):
        devnull = open(os.devnull, "w")  # noqa: SIM115 - closed below
        real = devnull
    sys.stderr = real
    try:
        yield
    finally:
        sys.stderr = saved
        if devnull is not None:
            devnull.close()


class WorkerProcess:
    """One worker process and the parent's end of its pipe: start, stop, kill. The Z3
    verifier's workers and :class:`IsolatedPool`'s share it."""

    def __init__(self, mpctx: MPContext, target: Any,
                 args: tuple[Any, ...], name: str) -> None:
        parent, child = mpctx.Pipe(duplex=True)
        self.conn = parent
        self.proc = mpctx.Process(target=target, args=(child, *args), name=name, daemon=True)
        with stderr_with_a_descriptor():
            self.proc.start()
        child.close()
        self.ready = False

    @property
    def pid(self) -> int | None:
        pid: int | None = self.proc.pid
        return pid

    def alive(self) -> bool:
        return self.proc.is_alive()

    def kill(self) -> None:
        try:
            self.proc.kill()
        except (OSError, ValueError, AttributeError):
            pass
        self.proc.join(timeout=5)
        self.close_conn()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass
        self.proc.join(timeout=1.0)
        if self.proc.is_alive():
            self.kill()
        self.close_conn()

    def close_conn(self) -> None:
        try:
            self.conn.close()
        except OSError:  # pragma: no cover
            pass



class _PoolWorker(WorkerProcess):
    def __init__(self, mpctx: MPContext, target: str,
                 memory_mb: int, name: str, imports: tuple[str, ...] = ()) -> None:
        super().__init__(mpctx, _pool_worker_main, (target, memory_mb, imports), name)
        self.job: int | None = None      # index of the job in flight
        self.since = time.perf_counter()  # when it was sent (or when the worker started)

    def death(self, elapsed_ms: float) -> JobResult:
        self.proc.join(timeout=5)
        code = self.proc.exitcode
        if code is not None and code < 0:
            sig = -code
            if sig == getattr(signal, "SIGXCPU", -1):
                return JobResult("timeout", None, "the worker exceeded its CPU time limit "
                                 "and was stopped", elapsed_ms)
            if sig == signal.SIGKILL:
                return JobResult("crash", None, "the worker process was killed (SIGKILL), "
                                 "e.g. by the system's out-of-memory killer", elapsed_ms)
            return JobResult("crash", None, f"the worker process died ({signal_name(sig)})",
                             elapsed_ms)
        return JobResult("crash", None, f"the worker process exited unexpectedly "
                         f"(exit code {code})", elapsed_ms)


class ClosingPool(abc.ABC):
    """A pool of worker processes as a context manager: leaving the ``with`` block, or the
    pool being collected, calls its ``close()`` (best effort at collection)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Stop the pool's workers; calling it again does nothing."""

    def __enter__(self: _P) -> _P:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass


_P = TypeVar("_P", bound=ClosingPool)


class IsolatedPool(ClosingPool):
    """Worker processes that run ``target`` (``"module:function"``, a function of one
    picklable payload returning a picklable value) with limits; a context manager.

    Workers start lazily on the first job and are replaced when killed or dead. A
    job that passes ``wall_s`` seconds is reported as ``timeout`` and its worker
    killed. ``run_many`` is safe to call from several threads (calls are serialized).

    ``worker_imports`` are imported by each worker before it takes jobs (outside the
    jobs' time limit; a worker gets ``startup_s`` to start). ``preload`` modules go into
    the fork server shared by every pool of the process, so every other pool's workers
    carry them too: keep it for light modules.
    """

    def __init__(self, target: str, *, workers: int = 2, wall_s: float = 10.0,
                 cpu_s: float | None = None, memory_mb: int = 1024,
                 preload: Sequence[str] = (), worker_imports: Sequence[str] = (),
                 name: str = "qcstation-worker", startup_s: float = 60.0) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.target = target
        self.size = int(workers)
        self.wall_s = float(wall_s)
        self.cpu_s = float(cpu_s) if cpu_s is not None else self.wall_s + 1.0
        self.memory_mb = int(memory_mb)
        self.name = name
        self.startup_s = float(startup_s)
        self._preload = tuple(preload)
        self._imports = tuple(worker_imports)
        self._mp: MPContext | None = None
        self._workers: list[_PoolWorker] = []
        self._lock = threading.Lock()
        self._closed = False

    # -- workers -----------------------------------------------------------
    def _spawn(self) -> _PoolWorker:
        if self._mp is None:
            self._mp = mp_context(self._preload)
        return _PoolWorker(self._mp, self.target, self.memory_mb, self.name, self._imports)

    def _replace(self, w: _PoolWorker) -> _PoolWorker:
        if w.proc.is_alive():
            w.kill()
        else:
            w.proc.join(timeout=1)
            w.close_conn()
        nw = self._spawn()
        self._workers[self._workers.index(w)] = nw
        return nw

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers (for monitoring and tests)."""
        return sorted(w.pid for w in self._workers if w.pid is not None)

    @property
    def started(self) -> bool:
        return bool(self._workers)

    # -- jobs --------------------------------------------------------------
    def run_many(self, payloads: Sequence[Any]) -> list[JobResult]:
        """Run every payload; results in input order. Never raises for a bad job."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool is closed")
            if not payloads:
                return []
            while len(self._workers) < min(self.size, len(payloads)):
                self._workers.append(self._spawn())
            return self._run(list(payloads))

    def _run(self, payloads: list[Any]) -> list[JobResult]:
        results: list[JobResult | None] = [None] * len(payloads)
        queue: deque[int] = deque(range(len(payloads)))
        workers = self._workers
        remaining = len(payloads)
        try:
            while remaining:
                for k in range(len(workers)):
                    while workers[k].job is None and queue:
                        idx = queue.popleft()
                        workers[k] = self._send(workers[k], idx, payloads[idx], results)
                        if results[idx] is not None:
                            remaining -= 1
                busy = [w for w in workers if w.job is not None]
                if not busy:
                    continue
                timeout = max(0.0, min(self._deadline(w) for w in busy) - time.perf_counter())
                ready = set(multiprocessing.connection.wait([w.conn for w in busy],
                                                            timeout=timeout))
                now = time.perf_counter()
                for k, w in enumerate(list(workers)):
                    if w.job is not None and (w.conn in ready or now >= self._deadline(w)):
                        workers[k], done = self._collect(w, w.conn in ready, now, results)
                        remaining -= done
        finally:
            for k, w in enumerate(workers):
                if w.job is not None:  # abandoned (exception): its worker is replaced
                    w.job = None
                    workers[k] = self._replace(w)
        return [r if r is not None else JobResult("crash", None, "lost") for r in results]

    def _deadline(self, w: _PoolWorker) -> float:
        return w.since + (self.wall_s if w.ready else self.startup_s + self.wall_s)

    def _send(self, w: _PoolWorker, idx: int, payload: Any,
              results: list[JobResult | None]) -> _PoolWorker:
        """Send job ``idx`` to ``w`` (or to its replacement); after three failed starts the
        job ends as a crash. Returns the worker to use from now on."""
        for _ in range(3):
            if w.ready and not w.proc.is_alive():
                w = self._replace(w)
            try:
                w.conn.send((idx, payload, self.cpu_s))
            except (OSError, ValueError):
                w = self._replace(w)
                continue
            w.job = idx
            if w.ready:
                w.since = time.perf_counter()
            return w
        results[idx] = JobResult("crash", None, "could not start a worker process")
        return w

    def _collect(self, w: _PoolWorker, readable: bool, now: float,
                 results: list[JobResult | None]) -> tuple[_PoolWorker, int]:
        """Read ``w``'s reply (or its death), or stop it past its deadline. Returns the
        worker to use from now on and how many jobs ended (0 or 1)."""
        idx = w.job
        assert idx is not None
        if not readable:  # past the deadline
            what = (f"did not answer within the {self.wall_s:g} s wall-clock limit"
                    if w.ready else "did not start")
            results[idx] = JobResult("timeout", None, f"the worker {what} and was stopped",
                                     (now - w.since) * 1000.0)
            w.job = None
            return self._replace(w), 1
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):
            results[idx] = w.death((now - w.since) * 1000.0)
            w.job = None
            return self._replace(w), 1
        if msg[0] == "ready":
            w.ready = True
            w.since = now
            return w, 0
        job_id, status, value, message = msg
        results[job_id] = JobResult(status, value, message, (now - w.since) * 1000.0)
        w.job = None
        return (self._replace(w) if status != "ok" else w), 1

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            workers, self._workers = self._workers, []
        for w in workers:
            w.stop()
