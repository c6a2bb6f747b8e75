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
from collections.abc import Iterable, Iterator
from typing import Any

from db.store import Store, now
from qcstation.eval import tasks as T
from qcstation.eval.backends.batch import parse_custom_id
from qcstation.eval.runs import EvalError, RunContext
from qcstation.eval.types import EvalReply, EvalRequest

#: the longest response stored (a longer one is cut, with a note saying so)
MAX_STORED_CHARS = 1_000_000

INSERT_OUTPUT = (
    "INSERT INTO eval_outputs (run_id, seed_id, task, sample_idx, status, prompt_hash, response, "
    "finish_reason, error, endpoint, cached, prompt_tokens, completion_tokens, cost, latency_ms, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (run_id, seed_id, task, sample_idx) DO UPDATE SET "
    "status = excluded.status, prompt_hash = excluded.prompt_hash, response = excluded.response, "
    "finish_reason = excluded.finish_reason, error = excluded.error, endpoint = excluded.endpoint, "
    "cached = excluded.cached, prompt_tokens = excluded.prompt_tokens, "
    "completion_tokens = excluded.completion_tokens, cost = excluded.cost, "
    "latency_ms = excluded.latency_ms, created_at = excluded.created_at "
    "WHERE eval_outputs.status = 'error'"
)


def bounded(text: str | None) -> str | None:
    """A response as stored: at most :data:`MAX_STORED_CHARS`, marked when cut."""
    if text is None or len(text) <= MAX_STORED_CHARS:
        return text
    return text[:MAX_STORED_CHARS] + f"\n[qcstation: response cut at {MAX_STORED_CHARS:,} characters]"


def output_row(run_id: int, req_key: tuple[int, str, int], prompt_hash: str,
               reply: EvalReply) -> tuple[Any, ...]:
    """The :data:`INSERT_OUTPUT` parameters of one reply."""
    sid, task, k = req_key
    return (run_id, sid, task, k, reply.status if reply.status in ("ok", "error") else "error",
            prompt_hash, bounded(reply.text) if reply.status == "ok" else None, reply.finish_reason,
            (reply.error or "request failed")[:2000] if reply.status != "ok" else None, reply.endpoint, int(bool(reply.cached)),
            reply.prompt_tokens, reply.completion_tokens, reply.cost, reply.latency_ms, now())


def done_keys(store: Store, run_id: int, *, ok_only: bool) -> set[tuple[int, str, int]]:
    """(seed, task, sample) of every stored output (``ok_only``: of every ok one)."""
    sql = "SELECT seed_id, task, sample_idx FROM eval_outputs WHERE run_id = ?"
    if ok_only:
        sql += " AND status = 'ok'"
    return {(int(a), str(b), int(c)) for a, b, c in store.conn.execute(sql, (run_id,))}


def unready_outputs(ctx: RunContext, done: set[tuple[int, str, int]]) -> list[tuple[Any, ...]]:
    """Items that cannot be asked a task (e.g. no wrong chain of thought): stored as errors."""
    rows = []
    for record in ctx.items():
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
            store.conn.executemany(INSERT_OUTPUT, rows)
    return len(rows)


def pending_requests(store: Store, run_id: int, *, retry_errors: bool = False) -> Iterator[EvalRequest]:
    """The run's requests that have no stored output yet (with ``retry_errors``: or whose
    stored output is a failed request), in item order."""
    ctx = RunContext(store, run_id)
    done = done_keys(store, run_id, ok_only=retry_errors)
    for record in ctx.items():
        sid = int(record["seed_id"])
        for task in ctx.tasks:
            for k in range(ctx.samples):
                if (sid, task, k) in done or not T.task_applies(task, record):
                    continue
                if T.task_ready(task, record) is not None:
                    continue   # stored as an error by store_unready
                yield ctx.request(record, task, k)


def prompt_messages(store: Store, run_id: int, seed_id: int, task: str,
                    sample_idx: int = 0) -> list[dict[str, str]]:
    """The exact messages of one request of a run (rebuilt from the spec and frozen records)."""
    ctx = RunContext(store, run_id)
    if task not in ctx.templates:
        raise EvalError(f"run {run_id} has no task {task!r}")
    record = ctx.record(seed_id)
    if record is None:
        raise EvalError(f"run {run_id} has no item with seed id {seed_id}")
    return list(ctx.request(record, task, sample_idx).messages)


def store_replies(store: Store, run_id: int, replies: Iterable[EvalReply]) -> dict[str, int]:
    """Store replies by ``custom_id`` (batch import). Idempotent: an output already stored is
    kept (counted ``already``), except that an ok reply replaces a stored error."""
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
        rows.append(output_row(run_id, (sid, task, k), req.prompt_hash, reply))
        have[(sid, task, k)] = reply.status
        counts["stored_error" if reply.status != "ok" else "stored"] += 1
    with store.transaction():
        store.conn.executemany(INSERT_OUTPUT, rows)
    return dict(counts)
