"""Executing runs: ask a backend for what a run lacks and store the raw outputs.

The run record (creating runs, their spec, the lease) is :mod:`~qcstation.eval.runs`;
the stored outputs, :mod:`~qcstation.eval.outputs`. :func:`execute_run` takes the run's
lease, asks for every (item, task, sample) without a stored output, with bounded
concurrency, and stores each reply as it comes (one writer thread, small batches), so a
run killed at any moment resumes where it stopped: a stored output is never asked again,
and only the requests in flight at the kill are asked once more. A failed request is
stored as an error (it stays in the metric's denominator); ``retry_errors=True`` asks
those again. Replies are also kept in the response cache (``llm_cache``, keyed by model,
endpoints, messages, sampling parameters and sample index), so a new run of the same model
on the same prompts costs nothing. With ``live_score`` the answer tasks are scored as they
are stored, by a worker process that reads them from the database once committed
(:class:`~qcstation.eval.scorers.LiveScorer` there, so that neither checking nor handing
replies over takes the event loop's interpreter lock); the scoring pass after a
run is :func:`~qcstation.eval.scorers.score_run` (both in sequence:
:func:`~qcstation.eval.evaluate.run_and_score`).
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from db.store import Store, now
from qcstation.common import redact
from qcstation.eval.backends import REFERENCE, make_backend
from qcstation.eval.outputs import (
    ROW_COMPLETION_TOKENS,
    ROW_COST,
    ROW_FINISH,
    ROW_PROMPT_TOKENS,
    bounded,
    done_keys,
    output_row,
    pending_requests,
    store_unready,
    write_outputs,
)
from qcstation.eval import twostep
from qcstation.eval.runs import (UNSCORED, EvalError, RunContext, executing, owner_id, run_totals,
                                take_lease)
from qcstation.eval.live import LiveScoring
from qcstation.eval.scorers import ANSWER_TASKS, scorer_versions
from qcstation.eval.types import Backend, EvalReply, EvalRequest

#: replies stored per transaction at most, and how long a reply may wait for its transaction:
#: a commit costs about as much as 40 replies' rows (a reply's rows: 78 us at 10 a commit, 46 at
#: 50, 34 at 256); a run killed loses the replies of the last WRITE_EVERY_S (asked again on resume)
WRITE_BATCH = 256
WRITE_EVERY_S = 0.5
PROGRESS_EVERY_S = 0.25
#: seconds between two beats of a run's lease (a run is taken over after LEASE_S of silence)
HEARTBEAT_S = 5.0
#: how often a running run looks at its cancel flag (Esc in the workstation)
CANCEL_POLL_S = 0.05
#: after a cancel, how long requests already in flight may finish (their replies are kept and
#: not asked again on resume); what is still out then is cancelled
CANCEL_GRACE_S = 0.5
#: at the end of a run, how long the live scoring may finish what is stored (the scoring
#: pass after the run scores the rest)
LIVE_DRAIN_S = 30.0


# -- progress ------------------------------------------------------------------------------

@dataclass
class RunProgress:
    run_id: int
    done: int = 0               # requests with a stored output (this session and before)
    total: int = 0
    errors: int = 0             # stored outputs that are failed requests
    cached: int = 0             # answered from the response cache (this session)
    asked: int = 0              # requests answered this session (cache or backend)
    rate_per_s: float = 0.0     # this session's throughput over the last seconds
    eta_s: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    uncounted: int = 0          # replies this session whose token counts are not known (cost unknown)
    status: str = "running"     # running | done | interrupted | failed
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        pct = 100.0 * self.done / self.total if self.total else 100.0
        eta = "" if self.eta_s is None else f", ETA {_fmt_s(self.eta_s)}"
        cost = f", ${self.cost:.4f}" if self.cost else ""
        unknown = f" ({self.uncounted} replies with no token count: cost not known)" if self.uncounted else ""
        return (f"run {self.run_id}: {self.done}/{self.total} ({pct:.1f}%), {self.rate_per_s:.1f}/s"
                f"{eta}, {self.errors} errors, {self.cached} cached, "
                f"{self.prompt_tokens + self.completion_tokens} tokens{cost}{unknown}")


def _fmt_s(s: float) -> str:
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


# -- response cache ------------------------------------------------------------------------

def cache_key_for(backend_desc: Mapping[str, Any], req: EvalRequest) -> str:
    """Response-cache key: model, endpoints, messages (by hash), sampling parameters, sample."""
    blob = "\x1f".join(("eval-v1", str(backend_desc.get("model")),
                        "\x1e".join(sorted(backend_desc.get("endpoints") or [])), req.prompt_hash,
                        repr(float(req.temperature)), str(req.max_tokens), str(req.sample_idx)))
    return "eval:" + hashlib.sha256(blob.encode()).hexdigest()


# -- executing runs ------------------------------------------------------------------------

class _Writer(threading.Thread):
    """Stores outputs (and cache entries) in small batches from its own connection. Storing
    never waits on scoring: the live scoring (:class:`LiveScoring`, a worker process) reads
    committed answer-task outputs from the database. A row SQLite refuses becomes that request's error
    (:func:`~qcstation.eval.outputs.write_outputs`); only a fault of the database itself
    (locked, full, read-only) stops the writer."""

    def __init__(self, db_path: Path, run_id: int, model: str, live: LiveScoring | None = None) -> None:
        super().__init__(name=f"eval-writer-{run_id}", daemon=True)
        self.db_path, self.run_id, self.model = db_path, run_id, model
        self._cache_request = json.dumps({"eval": True, "model": model})
        self.live = live
        # a deque, not a queue.Queue: appending wakes no thread (a Condition notify per
        # reply cost ~7% of a run's CPU); the writer looks every WRITE_EVERY_S
        self.q: collections.deque[Any] = collections.deque()
        self.wake = threading.Event()
        self.closing = False
        self.error: BaseException | None = None
        self.written = 0              # outputs committed by this writer
        self.unstorable = 0           # replies stored as errors because SQLite refused them
        self.lost = 0                 # replies received but not committed (after a fault)

    def put(self, row: tuple[Any, ...], cache: tuple[str, str] | None) -> None:
        self.q.append((row, cache))
        if len(self.q) >= WRITE_BATCH:
            self.wake.set()

    def close(self) -> None:
        self.closing = True
        self.wake.set()
        self.join()
        if self.error is not None:
            raise EvalError(f"could not store outputs: {self.error}") from self.error

    def _take(self) -> list[Any]:
        batch: list[Any] = []
        q = self.q
        while q and len(batch) < WRITE_BATCH:
            batch.append(q.popleft())
        return batch

    def run(self) -> None:
        try:
            store = Store(self.db_path, migrate=False, create=False)
        except BaseException as exc:  # pragma: no cover - reported by close()
            self.error = exc
            self._drain()
            return
        batch: list[Any] = []
        try:
            while True:
                closing = self.closing
                if not self.q:
                    if closing:
                        break
                    self.wake.wait(WRITE_EVERY_S)
                    self.wake.clear()
                    continue
                batch = self._take()
                self._flush(store, batch)
                batch = []
                if not closing and len(self.q) < WRITE_BATCH:
                    self.wake.wait(WRITE_EVERY_S)
                    self.wake.clear()
        except BaseException as exc:
            self.error = exc
            self.lost += len(batch)
            self._drain()
        finally:
            store.close()

    def _drain(self) -> None:
        """After a fault: nothing more can be stored; counts what is dropped (and keeps
        counting what the producer still hands over until it sees the fault)."""
        n = len(self.q)
        self.q.clear()
        self.lost += n

    def _flush(self, store: Store, batch: list[Any]) -> None:
        rows = [r for r, _ in batch]
        at = now()
        cache = [(k, self.model, self._cache_request, resp, at)
                 for _, c in batch if c is not None for k, resp in [c]]
        with store.transaction():
            self.unstorable += write_outputs(store.conn, rows)
            if cache:
                store.conn.executemany(
                    "INSERT OR IGNORE INTO llm_cache (key, model, request, response, created_at) "
                    "VALUES (?, ?, ?, ?, ?)", cache)
        self.written += len(rows)
        if self.live is not None and not self.live._answered:   # it reads them from the database
            self.live.put([(r[1], r[2], r[3], r[6]) for r in rows if r[4] == "ok" and r[2] in ANSWER_TASKS])


class _Heartbeat(threading.Thread):
    """Beats the run's lease from a timer of its own (not from the writer, which may wait on
    the database): a run whose process lives keeps its lease whatever it is doing."""

    def __init__(self, db_path: Path, run_id: int, every_s: float | None = None) -> None:
        super().__init__(name=f"eval-heartbeat-{run_id}", daemon=True)
        self.db_path, self.run_id = db_path, run_id
        self.every_s = HEARTBEAT_S if every_s is None else every_s
        self.stopping = threading.Event()
        self.beats = 0

    def run(self) -> None:
        me = owner_id()
        # one connection for the run's beats (opening one reads the whole schema, its
        # triggers included: a few ms each time); after a fault the next beat opens another
        store: Store | None = None
        try:
            while not self.stopping.wait(self.every_s):
                try:
                    if store is None:
                        store = Store(self.db_path, migrate=False, create=False)
                    with store.transaction():
                        store.execute("UPDATE eval_runs SET heartbeat_at = ? WHERE id = ? AND owner = ?",
                                      (now(), self.run_id, me))
                    self.beats += 1
                except Exception:   # locked for now: the next beat tries again
                    if store is not None:
                        store.close()
                        store = None
                    continue
        finally:
            if store is not None:
                store.close()

    def close(self) -> None:
        self.stopping.set()
        self.join(timeout=5)


def _cached_reply(custom_id: str, response: str) -> EvalReply | None:
    try:
        data = json.loads(response)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return None
    if redact.secrets() and redact.may_hold(response.encode("utf-8", "surrogatepass")):
        data = redact.scrub_json(data)      # an entry stored before the key was scrubbed
    if not isinstance(data.get("text"), str):
        return None
    return EvalReply(custom_id, "ok", text=data["text"], finish_reason=data.get("finish_reason"),
                     prompt_tokens=data.get("prompt_tokens"),
                     completion_tokens=data.get("completion_tokens"), cost=0.0 if data.get("cost") else None,
                     latency_ms=0.0, cached=True, endpoint=data.get("endpoint"))


class _Meter:
    def __init__(self, progress: RunProgress, callback: Callable[[RunProgress], None] | None) -> None:
        self.p = progress
        self.callback = callback
        self.window: collections.deque[tuple[float, int]] = collections.deque()
        self.t0 = time.monotonic()
        self.last_emit = 0.0

    def add(self, reply: EvalReply, row: tuple[Any, ...]) -> None:
        """Count a reply by its stored ``row`` (:func:`~qcstation.eval.outputs.output_row`):
        token counts and cost as bounded there, never as the server claimed them (a claim of
        2^53 tokens a reply showed '72057611217797120 tokens, $108086416826.6957')."""
        p = self.p
        p.done += 1
        p.asked += 1
        if reply.status != "ok":
            p.errors += 1
        if reply.cached:
            p.cached += 1
        else:
            pt, ct, cost = row[ROW_PROMPT_TOKENS], row[ROW_COMPLETION_TOKENS], row[ROW_COST]
            p.prompt_tokens += pt or 0
            p.completion_tokens += ct or 0
            p.cost += cost or 0.0
            if reply.status == "ok" and (pt is None or ct is None):
                p.uncounted += 1
        self.tick()

    def tick(self, force: bool = False) -> None:
        t = time.monotonic()
        if not force and t - self.last_emit < PROGRESS_EVERY_S:
            return
        self.last_emit = t
        p = self.p
        self.window.append((t, p.asked))
        while len(self.window) > 2 and t - self.window[0][0] > 10.0:
            self.window.popleft()
        t_first, n_first = self.window[0]
        span = t - t_first
        if span >= 0.5:
            p.rate_per_s = (p.asked - n_first) / span
        elif t - self.t0 > 0:
            p.rate_per_s = p.asked / max(t - self.t0, 1e-6)
        remaining = max(0, p.total - p.done)
        p.eta_s = remaining / p.rate_per_s if p.rate_per_s > 0 else None
        if self.callback is not None:
            self.callback(p)


def execute_run(db_path: str | Path, run_id: int, cfg: Any, *,
                progress: Callable[[RunProgress], None] | None = None,
                cancel: threading.Event | None = None, retry_errors: bool = False,
                backend: Backend | None = None, live_score: bool = False,
                preflight: bool = True, keep_lease: bool = False) -> RunProgress:
    """Ask for everything the run lacks and store it; returns the final progress.
    Safe to call again after a kill or a cancel: it resumes. With ``live_score`` the answer
    tasks (arithmetic, final, refinement) are scored after their outputs are stored (on a
    thread of their own), so the scoring pass after the run (``score_run(only_missing=True)``)
    has little left. A model that cannot be used (key variable unset, server unreachable) is
    refused before anything is asked (``preflight``). A fault while running (the database
    locked or full) raises :class:`EvalError` saying exactly what was stored and which
    command continues; the run is left ``stopped``."""
    db_path = Path(db_path)
    with executing(db_path, run_id):     # a second execution or scoring pass here is refused
        return _execute_run(db_path, run_id, cfg, progress, cancel, retry_errors, backend,
                            live_score, preflight, keep_lease)


def _execute_run(db_path: Path, run_id: int, cfg: Any, progress: Callable[[RunProgress], None] | None,
                 cancel: threading.Event | None, retry_errors: bool, backend: Backend | None,
                 live_score: bool, preflight: bool, keep_lease: bool) -> RunProgress:
    store = Store(db_path, migrate=False, create=False)
    try:
        ctx = RunContext(store, run_id)
        if backend is None:
            backend = _backend_for(ctx.spec, cfg)
        backend = twostep.wrap(backend, ctx)       # the refinement protocol the run recorded
        if preflight:
            why = backend_preflight(backend)
            if why is not None:
                raise EvalError(f"run {run_id} not started: {why}", title="Model not usable")
        before = store.scalar("SELECT status FROM eval_runs WHERE id = ?", (run_id,))
        take_lease(store, run_id)
        store_unready(store, ctx)
        prog = _progress_so_far(store, run_id, int(ctx.row["n_requests"] or 0), retry_errors)
        meter = _Meter(prog, progress)
        meter.tick(force=True)
        pending = pending_requests(store, run_id, retry_errors=retry_errors)
        # the live scoring worker reads what this session stores: outputs after the last one now
        live = (LiveScoring(db_path, run_id, scorer_versions(cfg),
                             after_id=int(store.scalar("SELECT MAX(id) FROM eval_outputs") or 0))
                if live_score else None)
        writer = _Writer(db_path, run_id, str(ctx.spec.get("model", {}).get("model")), live)
        beat = _Heartbeat(db_path, run_id)
        if live is not None:
            live.start()
        writer.start()
        beat.start()
        status = "done"
        fault: BaseException | None = None
        try:
            _drive(backend, pending, writer, meter, cancel, store)
            if cancel is not None and cancel.is_set():
                status = "interrupted"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        except BaseException as exc:
            status, fault = "stopped", exc
            raise
        finally:
            try:
                writer.close()
            except EvalError as exc:
                status, fault = "stopped", fault or exc
            finally:
                beat.close()
                if live is not None:
                    live.close(LIVE_DRAIN_S if status == "done" else 0.0)
                # a scored run this session added nothing to stays scored
                recorded = _finish(store, prog, status, fault, keep_lease=keep_lease,
                                   scored=before == "done" and writer.written == 0 and not retry_errors)
                if not recorded:
                    _finish_later(db_path, prog, fault)
                meter.tick(force=True)
            if fault is not None:
                raise EvalError(_fault_message(store, run_id, prog, writer, fault, recorded),
                                title="Run stopped") from fault
        return prog
    finally:
        store.close()


def _finish_later(db_path: Path, prog: RunProgress, fault: BaseException | None) -> None:
    """The database would not take the run's end now: keep trying from a thread (every
    second, for up to 10 minutes), so that a long-lived process (the workstation) does not
    leave its run reading ``running``. A process that exits sooner leaves a dead lease,
    which reads ``stopped`` all the same."""
    def retry() -> None:
        for _ in range(600):
            time.sleep(1.0)
            try:
                with Store(db_path, migrate=False, create=False) as store:
                    if _finish(store, RunProgress(prog.run_id, total=prog.total, message=prog.message),
                               "stopped", fault):
                        return
            except Exception:
                continue

    threading.Thread(target=retry, name=f"eval-finish-{prog.run_id}", daemon=True).start()


def backend_preflight(backend: Backend) -> str | None:
    """Why the backend cannot be used at all (key variable unset, no server answers), or None."""
    check = getattr(backend, "preflight", None)
    return check() if callable(check) else None


def _fault_message(store: Store, run_id: int, prog: RunProgress, writer: _Writer,
                   fault: BaseException, recorded: bool) -> str:
    try:
        stored = int(store.scalar("SELECT COUNT(*) FROM eval_outputs WHERE run_id = ?", (run_id,)) or 0)
        in_all = f"{stored:,} of {prog.total:,} requests of the run have a stored output"
    except Exception:
        in_all = "the run's stored outputs could not be counted now"
    lost = writer.lost + max(0, prog.asked - writer.written - writer.lost)
    why = fault.__cause__ if isinstance(fault, EvalError) and fault.__cause__ else fault
    why_text = str(why).split("; nothing was changed")[0]   # the store's words for a lone write
    return (f"run {run_id} stopped: {why_text}. Stored this session: {writer.written:,} outputs"
            f"{f' ({writer.unstorable} of them as errors: their replies could not be stored)' if writer.unstorable else ''}"
            f"; {in_all}. Not stored: {lost:,} replies received after the fault, and the requests "
            f"in flight; they will be asked again. "
            + ("The run is marked stopped. " if recorded else
               "The run's status could not be written now; it reads `stopped` once this process ends. ")
            + f"Continue with `qcstation eval resume {run_id}`")


def _progress_so_far(store: Store, run_id: int, total: int, retry_errors: bool) -> RunProgress:
    """The progress a (resumed) run starts from: what is stored already counts as done."""
    done = len(done_keys(store, run_id, ok_only=False))
    spent = run_totals(store, run_id)   # kept by migration 14
    errors_before = int(spent["e"])
    prog = RunProgress(run_id=run_id, total=total, done=done, errors=errors_before,
                       prompt_tokens=int(spent["pt"]), completion_tokens=int(spent["ct"]),
                       cost=float(spent["cost"] or 0.0))
    if retry_errors:   # failed requests are asked again; items that cannot be asked stay errors
        not_asked = int(store.scalar(
            "SELECT COUNT(*) FROM eval_outputs WHERE run_id = ? AND status = 'error' "
            "AND prompt_hash = ''", (run_id,)) or 0)
        prog.done -= errors_before - not_asked
        prog.errors = not_asked
    return prog


def _drive(backend: Backend, pending: Iterator[EvalRequest], writer: _Writer, meter: _Meter,
           cancel: threading.Event | None, store: Store) -> None:
    desc = backend.describe()
    use_cache = backend.kind != REFERENCE
    if backend.batched:
        _drive_batched(backend, pending, writer, meter, cancel, store, desc, use_cache,
                       size=int(getattr(backend, "batch_size", 0) or 256))
    else:
        asyncio.run(_drive_async(backend, pending, writer, meter, cancel, store, desc, use_cache))


def _finish(store: Store, prog: RunProgress, status: str, fault: BaseException | None = None,
            *, keep_lease: bool = False, scored: bool = False) -> bool:
    """Record how the run ended and give up its lease: a run with nothing missing is
    ``unscored`` (answered; ``done`` only once a scoring pass has scored it, or when it was
    ``done`` and this session added nothing: ``scored``), one with requests left
    ``interrupted``. With ``keep_lease`` a run with nothing missing stays ``running`` under
    this process's lease: the scoring pass that follows marks it ``done``
    (runs.scoring_lease). False when the database would not take it (locked): the lease
    then lapses with this process, and the run reads ``stopped``."""
    if fault is not None:
        cause = fault.__cause__ if isinstance(fault, EvalError) and fault.__cause__ else fault
        prog.message = f"{cause.__class__.__name__}: {cause}"[:500]
    try:
        remaining = prog.total - store.scalar(
            "SELECT COUNT(*) FROM eval_outputs WHERE run_id = ?", (prog.run_id,))
        if status == "done" and remaining > 0:
            status = "interrupted"
        elif remaining <= 0 and status in ("done", "interrupted") and not (status == "done" and keep_lease):
            status = "done" if scored else UNSCORED
        prog.status = status
        if status == "done" and keep_lease:
            with store.transaction():
                store.execute("UPDATE eval_runs SET heartbeat_at = ?, error = NULL WHERE id = ? AND owner = ?",
                              (now(), prog.run_id, owner_id()))
            return True
        with store.transaction():
            store.execute(
                "UPDATE eval_runs SET status = ?, finished_at = ?, owner = NULL, error = ? "
                "WHERE id = ? AND (owner IS NULL OR owner = ?)",
                (status, now() if status in ("done", UNSCORED) else None, prog.message or None, prog.run_id,
                 owner_id()))
        return True
    except Exception:
        prog.status = "stopped" if status not in ("done", UNSCORED) else "interrupted"
        return False


def _backend_for(spec: Mapping[str, Any], cfg: Any) -> Backend:
    kind = str(spec.get("backend") or "openai")
    if kind == REFERENCE:
        return make_backend(REFERENCE)
    name = spec["model"]["name"]
    model_cfg = cfg.model(name)
    if model_cfg.model != spec["model"]["model"]:
        raise EvalError(f"[models.{name}] now names model {model_cfg.model!r}, but the run was "
                        f"started with {spec['model']['model']!r}; start a new run instead")
    return make_backend(kind, model_cfg)


def _cache_lookup(store: Store, keys: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for i in range(0, len(keys), 500):
        chunk = keys[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for k, resp in store.conn.execute(f"SELECT key, response FROM llm_cache WHERE key IN ({marks})", chunk):
            out[k] = resp
    return out


def _cache_entry(key: str, reply: EvalReply, row: tuple[Any, ...] | None = None) -> tuple[str, str] | None:
    """The response-cache entry of a reply: its text cut as the stored output is (``row``:
    the reply's :func:`~qcstation.eval.outputs.output_row`, whose text is that already)."""
    if reply.status != "ok" or reply.cached:
        return None
    if row is not None:     # the stored row's fields: token counts and cost bounded, finish reason cleaned
        text, finish, n_in, n_out, price = (row[6], row[ROW_FINISH], row[ROW_PROMPT_TOKENS],
                                            row[ROW_COMPLETION_TOKENS], row[ROW_COST])
    else:
        text, finish, n_in, n_out, price = (bounded(reply.text), reply.finish_reason, reply.prompt_tokens,
                                            reply.completion_tokens, reply.cost)
    parts = [_plain_json(v) for v in (text, finish, n_in, n_out, price, reply.endpoint)]
    if None not in parts:
        # what _CACHE_JSON writes (the common case), without making an encoder per call
        t, finish_j, pt, ct, cost, endpoint = parts
        return key, (f'{{"text": {t}, "finish_reason": {finish_j}, "prompt_tokens": {pt}, '
                     f'"completion_tokens": {ct}, "cost": {cost}, "endpoint": {endpoint}}}')
    return key, _CACHE_JSON({"text": text, "finish_reason": finish, "prompt_tokens": n_in,
                             "completion_tokens": n_out, "cost": price, "endpoint": reply.endpoint})


#: json.dumps(..., ensure_ascii=False), its encoder made once (json.dumps makes one per call
#: when given an argument): the same bytes
_CACHE_JSON = json.JSONEncoder(ensure_ascii=False).encode
#: how that encoder writes a string
_STR_JSON = json.encoder.encode_basestring


def _plain_json(v: object) -> str | None:
    """``v`` as :data:`_CACHE_JSON` writes it, for None, a string, an int and a finite
    float (None for any other value: the encoder writes it)."""
    if v is None:
        return "null"
    if type(v) is str:
        return _STR_JSON(v)
    if type(v) is int:
        return int.__repr__(v)
    if type(v) is float and math.isfinite(v):
        return float.__repr__(v)
    return None


def _chunks(it: Iterator[EvalRequest], size: int) -> Iterator[list[EvalRequest]]:
    while True:
        chunk = []
        for req in it:
            chunk.append(req)
            if len(chunk) >= size:
                break
        if not chunk:
            return
        yield chunk


def _resolve_cache(chunk: list[EvalRequest], store: Store, desc: Mapping[str, Any],
                   use_cache: bool) -> list[tuple[EvalRequest, str, EvalReply | None]]:
    keys = [cache_key_for(desc, r) if use_cache else "" for r in chunk]
    hits = _cache_lookup(store, keys) if use_cache else {}
    out = []
    for req, key in zip(chunk, keys):
        cached = _cached_reply(req.custom_id, hits[key]) if key in hits else None
        out.append((req, key, cached))
    return out


async def _drive_async(backend: Backend, pending: Iterator[EvalRequest], writer: _Writer,
                       meter: _Meter, cancel: threading.Event | None, store: Store,
                       desc: Mapping[str, Any], use_cache: bool) -> None:
    work: collections.deque[tuple[EvalRequest, str, EvalReply | None]] = collections.deque()
    chunks = _chunks(pending, 512)
    exhausted = False

    def next_job() -> tuple[EvalRequest, str, EvalReply | None] | None:
        nonlocal exhausted
        if not work and not exhausted:
            chunk = next(chunks, None)
            if chunk is None:
                exhausted = True
            else:
                work.extend(_resolve_cache(chunk, store, desc, use_cache))
        return work.popleft() if work else None

    async def worker() -> None:
        while cancel is None or not cancel.is_set():
            if writer.error is not None:
                return
            job = next_job()
            if job is None:
                return
            req, key, reply = job
            if reply is None:
                reply = await backend.complete(req)
            row = output_row(req.run_id, req.key, req.prompt_hash, reply, req)
            writer.put(row, _cache_entry(key, reply, row) if use_cache else None)
            meter.add(reply, row)

    async def watch(tasks: list[asyncio.Task[None]]) -> None:
        """Cancel: no new request starts; those in flight get CANCEL_GRACE_S to come back (a
        reply already paid for is kept), then what is still out is cancelled and every backoff
        sleep woken."""
        assert cancel is not None
        while not cancel.is_set():
            if all(t.done() for t in tasks):
                return
            await asyncio.sleep(CANCEL_POLL_S)
        await asyncio.wait(tasks, timeout=CANCEL_GRACE_S)
        for t in tasks:
            t.cancel()

    n = max(1, int(backend.concurrency))
    tasks = [asyncio.ensure_future(worker()) for _ in range(n)]
    try:
        if cancel is not None:
            watcher = asyncio.ensure_future(watch(tasks))
            await asyncio.gather(*tasks, return_exceptions=True)
            watcher.cancel()
            for t in tasks:   # a worker's own failure (not a cancel) is the run's
                if not t.cancelled() and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
        else:
            await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await backend.aclose()


def _drive_batched(backend: Backend, pending: Iterator[EvalRequest], writer: _Writer, meter: _Meter,
                   cancel: threading.Event | None, store: Store, desc: Mapping[str, Any],
                   use_cache: bool, size: int = 256) -> None:
    for chunk in _chunks(pending, size):
        if cancel is not None and cancel.is_set():
            return
        jobs = _resolve_cache(chunk, store, desc, use_cache)
        ask = [req for req, _, cached in jobs if cached is None]
        answers = {r.custom_id: r for r in backend.complete_batch(ask)} if ask else {}
        for req, key, cached in jobs:
            reply = cached or answers.get(req.custom_id) or EvalReply(
                req.custom_id, "error", error="the backend returned no output for this request")
            row = output_row(req.run_id, req.key, req.prompt_hash, reply, req)
            writer.put(row, _cache_entry(key, reply, row) if use_cache else None)
            meter.add(reply, row)
