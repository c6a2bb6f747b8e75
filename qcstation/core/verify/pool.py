"""Untrusted scripts verified in persistent, isolated Z3 worker processes (the contract:
:mod:`.verifier`).

:class:`VerifierPool` starts its workers once (limits applied once per worker), keeps each
one's queue filled, replaces a worker that is killed or dies and classifies the job it was
on; :func:`verify_smtlib` checks one script in a fresh worker. The workers run
:func:`.solve.verify_core`.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import threading
import time
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from qcstation.common.errors import VerificationError
from qcstation.core.reading.answers import ExactAnswer
from qcstation.core.verify.isolation import ClosingPool, MPContext, WorkerProcess, mp_context
from qcstation.core.verify.isolation import current_vm_mb as _current_vm_mb
from qcstation.core.verify.isolation import set_cpu_budget as _set_cpu_budget
from qcstation.core.verify.isolation import signal_name as _signal_name
from qcstation.core.verify.isolation import worker_jobs, worker_setup
from qcstation.core.verify.outcome import (
    DEFAULT_LIMITS,
    VerifyLimits,
    VerifyOutcome,
    coerce_expected,
    precheck,
    timed_outcome,
)
from qcstation.core.verify.solve import verify_core

__all__ = ["VerifierPool", "verify_smtlib"]


_RECYCLE_CONTEXT_EVERY = 2000


def _worker_main(conn: multiprocessing.connection.Connection, memory_mb: int) -> None:
    """Worker loop: receive (job_id, text, gold, expected_text, timeout_s, cpu_s, rlimit), reply."""
    worker_setup(memory_mb)   # z3 warnings must not scribble over the parent's terminal (the TUI)
    import z3

    headroom = memory_mb - _current_vm_mb()
    z3.set_param("memory_max_size", max(16, int(headroom * 0.8)))
    ctx = z3.Context()
    done = 0
    for job_id, text, gold, expected_text, timeout_s, cpu_s, rlimit in worker_jobs(conn):
        _set_cpu_budget(cpu_s)
        t0 = time.perf_counter()
        try:
            out = verify_core(text, gold, expected_text, timeout_s, ctx, rlimit)
        except MemoryError:
            out = timed_outcome("resource_limit", f"the verifier ran out of memory (limit {memory_mb} MB)",
                           t0, expected_text)
        except RecursionError:
            out = timed_outcome("resource_limit", "the script is nested too deeply", t0, expected_text)
        except Exception as exc:  # noqa: BLE001 - report, never die silently
            out = timed_outcome("crash", f"the verifier failed: {type(exc).__name__}: {exc}",
                           t0, expected_text)
        try:
            conn.send(("result", job_id, out.to_dict()))
        except (OSError, ValueError):
            return
        if out.status in ("resource_limit", "crash"):
            return  # z3 state may be damaged: let the parent start a fresh worker
        done += 1
        if done % _RECYCLE_CONTEXT_EVERY == 0:
            del ctx
            ctx = z3.Context()


def _mp_context() -> MPContext:
    # z3 and the verifier are preloaded in the (shared) fork server
    return mp_context(["z3", "qcstation.core.reading.answers", "qcstation.core.verify.smtlib",
                       "qcstation.core.verify.solve", "qcstation.core.verify.pool"])


class _Worker(WorkerProcess):
    """One Z3 worker process, the parent's end of its pipe and the jobs sent to it."""

    def __init__(self, mpctx: MPContext, memory_mb: int) -> None:
        super().__init__(mpctx, _worker_main, (memory_mb,), "qcstation-z3-worker")
        self.inflight: deque[_Job] = deque()
        self.head_since = 0.0  # when the job at the head of ``inflight`` started (parent clock)

    def death_outcome(self, expected_text: str | None, elapsed_ms: float,
                      rlimit: int | None = None) -> VerifyOutcome:
        self.proc.join(timeout=5)
        code = self.proc.exitcode

        def out(status: str, message: str) -> VerifyOutcome:
            return VerifyOutcome(status, None, None, expected_text, message, elapsed_ms)

        if code is not None and code < 0:
            sig = -code
            name = _signal_name(sig)
            if sig == getattr(signal, "SIGXCPU", -1):
                return out("timeout", "the verifier exceeded its CPU time limit and was stopped; "
                           + ("the formalization is too hard" if rlimit is None else
                              "its resource limit should have stopped it first; run it again"))
            if sig == signal.SIGKILL:
                return out("crash", "the verifier process was killed (SIGKILL), e.g. by the "
                           "system's out-of-memory killer")
            if sig in (signal.SIGABRT, signal.SIGSEGV, getattr(signal, "SIGBUS", -1)):
                return out("crash", f"z3 crashed ({name}); the script may exhaust memory or hit "
                           "a solver bug; simplify the formalization")
            return out("crash", f"the verifier process died ({name})")
        return out("crash", f"the verifier process exited unexpectedly (exit code {code})")


@dataclass
class _Job:
    index: int
    msg: tuple[Any, ...]  # (index, text, gold, expected_text, timeout_s, cpu_s, rlimit) for the worker
    expected_text: str | None


class _Jobs:
    """One ``verify_many`` call's work: the input turned into worker jobs as workers ask for
    them, jobs to send again (their worker died before reaching them), and the outcomes
    waiting to be yielded in input order."""

    def __init__(self, items: Iterable[tuple[str, str | ExactAnswer | None]],
                 limits: VerifyLimits) -> None:
        self.source = enumerate(items)
        self.timeout_s = limits.timeout_s
        self.cpu_s = 1.5 * limits.timeout_s + 2.0
        self.rlimit = limits.rlimit
        self.exhausted = False
        self.retry: deque[_Job] = deque()
        self.results: dict[int, VerifyOutcome] = {}
        self.next_out = 0

    def more(self) -> bool:
        """Is there work not yet sent?"""
        return not self.exhausted or bool(self.retry)

    def next(self) -> _Job | None:
        """The next job to send (a retry first); a script refused before Z3 is answered here."""
        if self.retry:
            return self.retry.popleft()
        while not self.exhausted:
            try:
                idx, (text, expected) = next(self.source)
            except StopIteration:
                self.exhausted = True
                return None
            if isinstance(expected, tuple):  # (ExactAnswer, text), from verify_smtlib
                gold, expected_text = expected
            else:
                gold, expected_text = coerce_expected(expected)
            early = precheck(text, expected_text)
            if early is not None:
                self.results[idx] = early
                continue
            return _Job(idx, (idx, text, gold, expected_text, self.timeout_s, self.cpu_s, self.rlimit),
                        expected_text)
        return None

    def ready(self) -> bool:
        return self.next_out in self.results

    def pop_ready(self) -> Iterator[VerifyOutcome]:
        while self.next_out in self.results:
            yield self.results.pop(self.next_out)
            self.next_out += 1

    def requeue(self, w: _Worker) -> None:
        """The jobs still queued at ``w`` go to another worker."""
        self.retry.extendleft(reversed(w.inflight))
        w.inflight.clear()


class VerifierPool(ClosingPool):
    """Persistent, isolated Z3 worker processes; a context manager.

    Workers are started once (limits applied once per worker) and replaced when
    killed or dead. ``verify_many`` keeps every worker busy, with up to
    :attr:`depth` jobs queued per worker so a worker never waits for the parent,
    and yields outcomes in input order. Safe to share between threads: each call
    checks workers out of the pool and returns them when idle.

    Like any ``multiprocessing`` code, a script that uses the pool at import time
    needs the ``if __name__ == "__main__":`` guard.
    """

    depth = 2

    def __init__(self, workers: int = 2, limits: VerifyLimits = DEFAULT_LIMITS) -> None:
        if workers < 1:
            raise VerificationError("a verifier pool needs at least one worker")
        self.limits = limits
        self.size = int(workers)
        self._mp = _mp_context()
        self._cond = threading.Condition()
        self._closed = False
        self._idle: list[_Worker] = [self._spawn() for _ in range(self.size)]
        self._all: set[_Worker] = set(self._idle)

    # -- worker management -------------------------------------------------
    def _spawn(self) -> _Worker:
        return _Worker(self._mp, self.limits.memory_mb)

    def _replace(self, w: _Worker) -> _Worker:
        if w.alive():
            w.kill()
        else:
            w.proc.join(timeout=1)
            w.close_conn()
        nw = self._spawn()
        with self._cond:
            self._all.discard(w)
            self._all.add(nw)
        return nw

    def _take(self, block: bool) -> _Worker | None:
        with self._cond:
            while True:
                if self._closed:
                    raise VerificationError("the verifier pool is closed")
                if self._idle:
                    return self._idle.pop()
                if not block:
                    return None
                self._cond.wait()

    def _give_back(self, workers: list[_Worker]) -> None:
        if not workers:
            return
        with self._cond:
            if not self._closed:
                self._idle.extend(workers)
                self._cond.notify_all()
                return
        for w in workers:
            w.stop()

    def worker_pids(self) -> list[int]:
        """Process ids of the current workers (for monitoring and tests)."""
        with self._cond:
            return sorted(w.pid for w in self._all if w.pid is not None)

    # -- public API --------------------------------------------------------
    def verify(self, text: str, expected: str | ExactAnswer | None = None) -> VerifyOutcome:
        """Verify one script in a worker (blocks until a worker is free).

        Raises :class:`VerificationError` when ``expected`` is not a number."""
        return next(iter(self.verify_many([(text, expected)])))

    def verify_many(self, items: Iterable[tuple[str, str | ExactAnswer | None]]
                    ) -> Generator[VerifyOutcome, None, None]:
        """Verify many scripts, yielding outcomes in input order while all workers stay busy.

        Raises :class:`VerificationError` (when the item is reached) if an expected
        answer is not a number."""
        jobs = _Jobs(items, self.limits)
        mine: list[_Worker] = []
        try:
            while True:
                if jobs.more():  # 1. check out workers while there is work
                    self._check_out(mine, need_one=not mine and not jobs.ready())
                for k in range(len(mine)):  # 2. keep each worker's queue filled
                    while len(mine[k].inflight) < self.depth:
                        job = jobs.next()
                        if job is None:
                            break
                        mine[k] = self._send(mine[k], job)
                if jobs.ready():  # 3. yield what is ready, in order (idle workers go back)
                    self._give_back([w for w in mine if not w.inflight])
                    mine = [w for w in mine if w.inflight]
                    yield from jobs.pop_ready()
                    continue
                if not any(w.inflight for w in mine):
                    if not jobs.more():
                        break
                    continue
                self._wait(mine, jobs)  # 4. wait for replies, deaths or a deadline
        finally:
            # jobs abandoned (generator closed early, error): their workers are replaced
            back = [self._replace(w) if w.inflight else w for w in mine]
            self._give_back(back)

    def _check_out(self, mine: list[_Worker], need_one: bool) -> None:
        """Add idle workers of the pool to ``mine``; wait for one when ``need_one``."""
        if need_one:
            w = self._take(block=True)
            assert w is not None  # a blocking take returns a worker or raises
            mine.append(w)
        while len(mine) < self.size:
            w = self._take(block=False)
            if w is None:
                break
            mine.append(w)

    def _wait(self, mine: list[_Worker], jobs: _Jobs) -> None:
        """Wait for a reply or a death from a busy worker, or for the first wall-clock
        deadline; a worker past its deadline is stopped and its job times out."""
        wall = self.limits.wall_clock_s()

        def deadline(w: _Worker) -> float:
            return w.head_since + wall + (0.0 if w.ready else 30.0)

        busy = [w for w in mine if w.inflight]
        timeout = max(0.0, min(deadline(w) for w in busy) - time.perf_counter())
        ready = set(multiprocessing.connection.wait([w.conn for w in busy], timeout=timeout))
        now = time.perf_counter()
        for k, w in enumerate(mine):
            if w.conn in ready:
                mine[k] = w = self._drain(w, jobs)
            if w.inflight and now >= deadline(w):
                job = w.inflight.popleft()
                jobs.results[job.index] = VerifyOutcome(
                    "timeout", None, None, job.expected_text,
                    f"the verifier did not answer within the {wall:g} s wall-clock limit "
                    "and was stopped; " + ("the formalization is too hard" if self.limits.rlimit is None
                                           else "the machine was too busy to decide it before "
                                                "its resource limit; run it again"),
                    (now - w.head_since) * 1000.0)
                jobs.requeue(w)
                mine[k] = self._replace(w)

    def _send(self, w: _Worker, job: _Job) -> _Worker:
        for _ in range(3):
            if not w.inflight and w.ready and not w.alive():
                w = self._replace(w)
            try:
                w.conn.send(job.msg)
            except (OSError, ValueError):
                w = self._replace(w)
                continue
            if not w.inflight:
                w.head_since = time.perf_counter()
            w.inflight.append(job)
            return w
        raise VerificationError("could not start a verifier worker process")

    def _drain(self, w: _Worker, jobs: _Jobs) -> _Worker:
        """Read every message waiting from ``w``; returns the worker to use from now on."""
        while True:
            try:
                msg = w.conn.recv()
            except (EOFError, OSError):
                now = time.perf_counter()
                if w.inflight:
                    job = w.inflight.popleft()
                    jobs.results[job.index] = w.death_outcome(job.expected_text,
                                                              (now - w.head_since) * 1000.0,
                                                              self.limits.rlimit)
                jobs.requeue(w)
                return self._replace(w)
            now = time.perf_counter()
            if msg[0] == "ready":
                w.ready = True
                w.head_since = now
            else:
                _, job_id, data = msg
                job = w.inflight.popleft()
                if job.index != job_id:  # pragma: no cover - protocol invariant
                    raise VerificationError("verifier worker answered out of order")
                outcome = VerifyOutcome.from_dict(data)
                jobs.results[job.index] = outcome
                w.head_since = now
                if outcome.status in ("resource_limit", "crash"):
                    # the worker exits after such a job; queued jobs go to its replacement
                    jobs.requeue(w)
                    return self._replace(w)
            if not w.conn.poll(0):
                return w

    def close(self) -> None:
        """Stop all workers (idle ones now; busy ones when their caller gives them back)."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for w in idle:
            w.stop()


def verify_smtlib(text: str, expected: str | ExactAnswer | None = None,
                  limits: VerifyLimits = DEFAULT_LIMITS) -> VerifyOutcome:
    """Verify one untrusted script in a fresh isolated worker process."""
    gold, expected_text = coerce_expected(expected)
    early = precheck(text, expected_text)
    if early is not None:
        return early
    with VerifierPool(workers=1, limits=limits) as pool:
        return pool.verify(text, gold if gold is None else (gold, expected_text))  # type: ignore[arg-type]
