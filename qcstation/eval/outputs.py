"""A run's stored outputs (``eval_outputs``): one row per (seed, task, sample), the raw
response or the failed request's error.

What is still to ask (:func:`pending_requests`), the exact messages of one request
(:func:`prompt_messages`), the row format and its upsert (:func:`output_row`,
:data:`INSERT_OUTPUT`: an ok reply replaces a stored error, nothing else is overwritten),
the items that cannot be asked a task, stored as errors at once (:func:`store_unready`),
and replies stored by ``custom_id`` from batch files (:func:`store_replies`). The runner
writes through these; the batch actions and the results browser read through them.
"""

from __future__ import annotations

import collections
import math
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from db.store import Store, now
from qcstation.common.http_retry import (
    clean_text,
    clean_token,
    completion_token_limit,
    prompt_token_limit,
    token_count,
)
from qcstation.eval import tasks as T
from qcstation.eval.backends.batch import parse_custom_id
from qcstation.eval.runs import EvalError, RunContext
from qcstation.eval.types import EvalReply, EvalRequest

#: the longest response stored (a longer one is cut, with a note saying so)
MAX_STORED_CHARS = 1_000_000

_OUTPUT_HEAD = (
    "INSERT INTO eval_outputs (run_id, seed_id, task, sample_idx, status, prompt_hash, response, "
    "finish_reason, error, endpoint, cached, prompt_tokens, completion_tokens, cost, latency_ms, "
    "created_at) VALUES ")
_OUTPUT_MARK = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_OUTPUT_UPSERT = (
    " ON CONFLICT (run_id, seed_id, task, sample_idx) DO UPDATE SET "
    "status = excluded.status, prompt_hash = excluded.prompt_hash, response = excluded.response, "
    "finish_reason = excluded.finish_reason, error = excluded.error, endpoint = excluded.endpoint, "
    "cached = excluded.cached, prompt_tokens = excluded.prompt_tokens, "
    "completion_tokens = excluded.completion_tokens, cost = excluded.cost, "
    "latency_ms = excluded.latency_ms, created_at = excluded.created_at "
    "WHERE eval_outputs.status = 'error'"
)
INSERT_OUTPUT = _OUTPUT_HEAD + _OUTPUT_MARK + _OUTPUT_UPSERT
#: places in an :func:`output_row` (the columns of ``_OUTPUT_HEAD``)
ROW_FINISH, ROW_PROMPT_TOKENS, ROW_COMPLETION_TOKENS, ROW_COST = 7, 11, 12, 13
#: rows per multi-row INSERT (one statement per chunk: the full-text index's trigger takes
#: a chunk at once, ~4 µs a row instead of ~20 one statement a row)
ROWS_PER_INSERT = 128


def bounded(text: str | None) -> str | None:
    """A response as stored: at most :data:`MAX_STORED_CHARS`, marked when cut, lone
    surrogates (valid JSON, not storable) as U+FFFD."""
    if text is None:
        return None
    if len(text) > MAX_STORED_CHARS:
        text = text[:MAX_STORED_CHARS] + f"\n[qcstation: response cut at {MAX_STORED_CHARS:,} characters]"
    return clean_text(text)


def _number(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) \
        and abs(v) < 1e15 else None


def output_row(run_id: int, req_key: tuple[int, str, int], prompt_hash: str,
               reply: EvalReply, request: EvalRequest | None = None) -> tuple[Any, ...]:
    """The :data:`INSERT_OUTPUT` parameters of one reply. Every field a server sent is made
    storable here, whichever backend or file it came from: text bounded and without lone
    surrogates, finish reason printable and short, token counts that are not counts — or
    more than the ``request`` can hold (its completion budget, its prompt's size) — dropped
    (noted in ``error``, which an ok row otherwise leaves empty) and the cost then unknown,
    cost and latency finite."""
    sid, task, k = req_key
    ok = reply.status == "ok"
    notes = [str(n) for n in (reply.extra or {}).get("notes", ())] if ok else []
    limits = ((prompt_token_limit(request.messages, request.messages_json), completion_token_limit(request.max_tokens))
              if request is not None else (None, None))
    pt = token_count(reply.prompt_tokens, "prompt_tokens", notes, limits[0])
    ct = token_count(reply.completion_tokens, "completion_tokens", notes, limits[1])
    cost = reply.cost
    if (pt is None and reply.prompt_tokens is not None) or (ct is None and reply.completion_tokens is not None):
        cost = None          # a count dropped: what the reply cost is not known
    if ok:
        error = clean_text("; ".join(notes)[:2000]) if notes else None
    else:
        error = clean_text(str(reply.error or "request failed")[:2000])
    return (run_id, sid, task, k, "ok" if ok else "error", prompt_hash,
            # a failed reply keeps its text only when it has one (a two-step reply whose
            # correction failed keeps its reflection)
            bounded(reply.text if isinstance(reply.text, str) else None),
            clean_token(reply.finish_reason, 40), error,
            reply.endpoint, int(bool(reply.cached)), pt, ct,
            _number(cost), _number(reply.latency_ms), now())


def error_row(row: tuple[Any, ...], why: str) -> tuple[Any, ...]:
    """An :func:`output_row` that could not be stored, as that request's error (the reason
    said): one bad reply is one bad row, never the end of the run."""
    return (*row[:4], "error", row[5], None, None,
            clean_text(f"the reply could not be stored: {why}")[:2000], None, 0, None, None, None, None, now())


def write_outputs(conn: Any, rows: list[tuple[Any, ...]]) -> int:
    """Insert :func:`output_row` rows (inside the caller's transaction); a row SQLite refuses
    is stored as that request's error instead (:func:`error_row`). Returns how many rows
    were replaced so."""
    if not rows:
        return 0
    try:
        with _savepoint(conn):
            for i in range(0, len(rows), ROWS_PER_INSERT):
                chunk = rows[i:i + ROWS_PER_INSERT]
                conn.execute(_OUTPUT_HEAD + ",".join([_OUTPUT_MARK] * len(chunk)) + _OUTPUT_UPSERT,
                             [v for row in chunk for v in row])
        return 0
    except (sqlite3.Error, OverflowError, ValueError, UnicodeError) as exc:
        if isinstance(exc, sqlite3.OperationalError) and _lock_error(exc):
            raise   # the database, not the row: the caller says so
    bad = 0
    for row in rows:
        try:
            with _savepoint(conn):
                conn.execute(INSERT_OUTPUT, row)
        except (sqlite3.Error, OverflowError, ValueError, UnicodeError) as exc:
            if isinstance(exc, sqlite3.OperationalError) and _lock_error(exc):
                raise
            bad += 1
            conn.execute(INSERT_OUTPUT, error_row(row, f"{exc.__class__.__name__}: {exc}"))
    return bad


def _lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text or "disk" in text or "readonly" in text


class _savepoint:
    """A SAVEPOINT: a failed statement undoes only its own rows."""

    _n = 0

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        _savepoint._n += 1
        self.name = f"qc_out_{_savepoint._n}"

    def __enter__(self) -> None:
        self.conn.execute(f"SAVEPOINT {self.name}")

    def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
        if et is not None:
            self.conn.execute(f"ROLLBACK TO {self.name}")
        self.conn.execute(f"RELEASE {self.name}")


def done_keys(store: Store, run_id: int, *, ok_only: bool) -> set[tuple[int, str, int]]:
    """(seed, task, sample) of every stored output (``ok_only``: of every ok one)."""
    sql = "SELECT seed_id, task, sample_idx FROM eval_outputs WHERE run_id = ?"
    if ok_only:
        sql += " AND status = 'ok'"
    return {(int(a), str(b), int(c)) for a, b, c in store.conn.execute(sql, (run_id,))}


def unready_outputs(ctx: RunContext, done: set[tuple[int, str, int]]) -> list[tuple[Any, ...]]:
    """Items that cannot be asked a task (e.g. no wrong chain of thought): stored as errors."""
    rows = []
    # only what task_applies and task_ready read of each record
    fields = ("seed_id", "dimensions", *{f: 0 for t in ctx.tasks for f in T.READY_FIELDS.get(t, ())})
    for record in ctx.items(fields=fields):
        sid = int(record["seed_id"])
        for task in ctx.tasks:
            if not T.task_applies(task, record):
                continue
            why = T.task_ready(task, record)
            if why is None:
                continue
            for k in range(ctx.samples):
                if (sid, task, k) not in done:
                    rows.append(output_row(ctx.run_id, (sid, task, k), "",
                                           EvalReply("", "error", error=f"not asked: {why}")))
    return rows


def store_unready(store: Store, ctx: RunContext) -> int:
    """Store the error output of every request that cannot be asked (not stored yet), as
    ``eval run`` and ``eval export-batch`` do first; returns how many were stored."""
    rows = unready_outputs(ctx, done_keys(store, ctx.run_id, ok_only=False))
    if rows:
        with store.transaction():
            write_outputs(store.conn, rows)
    return len(rows)


def pending_requests(store: Store, run_id: int, *, retry_errors: bool = False) -> Iterator[EvalRequest]:
    """The run's requests that have no stored output yet (with ``retry_errors``: or whose
    stored output is a failed request), in item order."""
    ctx = RunContext(store, run_id)
    done = done_keys(store, run_id, ok_only=retry_errors)
    for record in ctx.items(fields=ctx.request_fields()):   # only what the requests read
        sid = int(record["seed_id"])
        for task in ctx.tasks:
            for k in range(ctx.samples):
                if (sid, task, k) in done or not T.task_applies(task, record):
                    continue
                if T.task_ready(task, record) is not None:
                    continue   # stored as an error by store_unready
                yield ctx.request(record, task, k)


def prompt_messages(store: Store, run_id: int, seed_id: int, task: str,
                    sample_idx: int = 0, ctx: RunContext | None = None) -> list[dict[str, str]]:
    """The exact messages of one request of a run (rebuilt from the spec and frozen records).
    ``ctx``: the run's :class:`RunContext` when the caller has it (building one renders every
    task's exemplars: a few milliseconds each)."""
    ctx = ctx if ctx is not None and ctx.run_id == run_id else RunContext(store, run_id)
    if task not in ctx.templates:
        raise EvalError(f"run {run_id} has no task {task!r}")
    record = ctx.record(seed_id)
    if record is None:
        raise EvalError(f"run {run_id} has no item with seed id {seed_id}")
    return list(ctx.request(record, task, sample_idx).messages)


def store_replies(store: Store, run_id: int, replies: Iterable[EvalReply],
                  spent: list[tuple[Any, Any, Any]] | None = None) -> dict[str, int]:
    """Store replies by ``custom_id`` (batch import). Idempotent: an output already stored is
    kept (counted ``already``), except that an ok reply replaces a stored error. ``spent``
    gets the (prompt tokens, completion tokens, cost) of every row written, as stored."""
    ctx = RunContext(store, run_id)
    counts = collections.Counter[str]()
    have = {k: s for k, s in (((int(a), str(b), int(c)), s) for a, b, c, s in store.conn.execute(
        "SELECT seed_id, task, sample_idx, status FROM eval_outputs WHERE run_id = ?", (run_id,)))}
    records: dict[int, dict[str, Any] | None] = {}
    rows: list[tuple[Any, ...]] = []
    for reply in replies:
        parsed = parse_custom_id(str(reply.custom_id))
        if parsed is None:
            counts["unknown_id"] += 1
            continue
        rid, sid, task, k = parsed
        if rid != run_id:
            counts["other_run"] += 1
            continue
        if task not in ctx.tasks or not 0 <= k < ctx.samples:
            counts["unknown_id"] += 1
            continue
        if sid not in records:
            records[sid] = ctx.record(sid)
        record = records[sid]
        if record is None:
            counts["unknown_id"] += 1
            continue
        prev = have.get((sid, task, k))
        if prev == "ok" or (prev == "error" and reply.status != "ok"):
            counts["already"] += 1
            continue
        req = ctx.request(record, task, k)
        rows.append(output_row(run_id, (sid, task, k), req.prompt_hash, reply, req))
        have[(sid, task, k)] = reply.status
        counts["stored_error" if reply.status != "ok" else "stored"] += 1
    with store.transaction():
        bad = write_outputs(store.conn, rows)
    if spent is not None:
        spent.extend((r[ROW_PROMPT_TOKENS], r[ROW_COMPLETION_TOKENS], r[ROW_COST]) for r in rows)
    if bad:
        counts["stored_error"] += bad
        counts["stored"] -= bad
    return dict(counts)
