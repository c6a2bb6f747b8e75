"""What a generation run writes to the store, one item at a time (see :mod:`.pipeline`):
an attempt row before the generator runs (:func:`start_attempt`, with the lease that keeps
two processes off one item), the artifact written in one transaction with the attempt's
result (:func:`save_artifact`), the verdict (:func:`set_verified`), and the reason an item
needs a model (:func:`record_needs_model`). :class:`ItemTaken` says another process took the
item since it was selected. The rules' result of a seed is kept with it (:func:`keep_rule`), for
a derived set to read instead of running them again.

Z3's verdicts do not depend on the machine's load (:func:`verify_limits`): each check may spend
:data:`~qcstation.core.verify.outcome.STEADY_RLIMIT` of Z3's resource units, and a check that
spends them is ``unknown`` (refused, the same on every machine); the wall clock (``[verify]
timeout_s``, at least :data:`~qcstation.core.verify.outcome.STEADY_WALL_S`), the per-job CPU
limit and the pool's kill are only safety nets. A check they stop (``timeout``) says the machine
was too busy, never what the formalization is (:func:`clock_stopped`): a rule-made artifact
(the rules' own arithmetic, no hostile text to loop on) is left ``generated``, checked again by
the next run; a model's (its SMT-LIB is untrusted and could burn the clock without spending
Z3's units) is stored ``failed`` with a reason naming the clock and ``decided_by: clock``, so
one hostile script costs one safety limit per run, and the next run checks it again
(:func:`awaits_check`) without asking the model; a verdict already stored is never replaced by
one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from db import Store, now
from db.artifacts import current_artifact, save_rule_result
from qcstation.common import leases
from qcstation.core.construct.check.selfcheck import stored_flags


def keep_rule(store: Store, seed: dict[str, Any], rule: Any) -> None:
    """Keep what the rules made of ``seed`` (a seed row; ``rule`` its ``RuleResult``) with it,
    valid for today's rules and its fields (:mod:`~.make.rules.stored`); a result that cannot be
    written exactly is not kept."""
    from qcstation.core.construct.make.rules.stored import dump_rule, rule_key

    text = dump_rule(rule)
    if text is not None and seed.get("id") is not None:
        save_rule_result(store, int(seed["id"]), rule_key(seed), text)


@dataclass
class Job:
    seed: dict[str, Any]
    dimension: str
    feedback: str | None = None
    previous_output: str | None = None
    replaces_id: int | None = None
    source_artifact: dict[str, Any] | None = None
    #: what was tried and what the checks said, oldest first (each retry's prompt carries it)
    history: list[tuple[str | None, str]] = field(default_factory=list)

    def release(self) -> None:
        """Drop the replies a finished job holds (its attempts are stored): a run keeps no
        model text past the window that asked it."""
        self.feedback = self.previous_output = None
        self.source_artifact = None
        self.history = []


# ---------------------------------------------------------------- store helpers

class ItemTaken(Exception):
    """Another process is generating (or has generated) this item since it was selected."""


LEASE_SECONDS = 30 * 60


def owner_alive(owner: dict[str, Any], started_at: str) -> bool:
    """Another process holds this item: one of this machine that still runs, or one of
    another machine sharing the file that started less than LEASE_SECONDS ago."""
    return leases.held_by_another(leases.Owner.from_record(owner), started_at,
                                  stale_after_s=LEASE_SECONDS, local_pid_decides=True)


def checked_elsewhere(store: Store, art: dict[str, Any]) -> bool:
    """Is this ``generated`` artifact still being checked by another live run?"""
    if art["status"] != "generated" or not art.get("attempt_id"):
        return False
    row = store.one("SELECT inputs, started_at FROM attempts WHERE id = ?", (art["attempt_id"],))
    if row is None:
        return False
    try:
        owner = json.loads(row["inputs"] or "{}").get("owner") or {}
    except ValueError:
        return False
    return bool(owner) and owner_alive(owner, row["started_at"])


def start_attempt(store: Store, job: Job, generator: str, model: str | None,
                   prompt_version: str | None, inputs: Any) -> int:
    """Record an attempt; the unfinished attempt is this process's lease on the item.

    Inside the write transaction the item's state is checked again, so two ``generate``
    processes on one database never work on the same item: :class:`ItemTaken` is raised
    when another live process holds it or has already produced what this job would.
    """
    with store.transaction():
        seed_id, dim = job.seed["id"], job.dimension
        cur = current_artifact(store, seed_id, dim)
        if cur is not None and cur["id"] != job.replaces_id:
            # made (or being checked) by another run since this job was selected
            raise ItemTaken(f"seed {seed_id} {dim}: already {cur['status']}")
        for row in store.query(
            "SELECT inputs, started_at FROM attempts WHERE seed_id = ? AND dimension = ? "
            "AND finished_at IS NULL", (seed_id, dim)):
            try:
                owner = json.loads(row["inputs"] or "{}").get("owner") or {}
            except ValueError:
                owner = {}
            if owner and owner_alive(owner, row["started_at"]):
                raise ItemTaken(f"seed {seed_id} {dim}: in progress in process {owner.get('pid')}")
        n = store.scalar("SELECT COUNT(*) FROM attempts WHERE seed_id = ? AND dimension = ?",
                         (seed_id, dim))
        record = {"owner": leases.Owner.me().record(), "input": inputs}
        return store.insert("attempts", {
            "seed_id": seed_id, "dimension": dim, "attempt_no": int(n) + 1,
            "generator": generator, "model": model, "prompt_version": prompt_version,
            "inputs": json.dumps(record, sort_keys=True, default=str, ensure_ascii=False),
            "feedback": job.feedback, "started_at": now(),
        })


def record_needs_model(store: Store, job: Job, message: str) -> None:
    """Leave the reason on the item (as a finished attempt with status ``needs_model``), once."""
    with store.transaction():
        last = store.one("SELECT verify_status, parse_error FROM attempts WHERE seed_id = ? AND "
                         "dimension = ? ORDER BY id DESC LIMIT 1", (job.seed["id"], job.dimension))
        if last and last["verify_status"] == "needs_model" and last["parse_error"] == message:
            return
        n = store.scalar("SELECT COUNT(*) FROM attempts WHERE seed_id = ? AND dimension = ?",
                         (job.seed["id"], job.dimension))
        ts = now()
        store.insert("attempts", {
            "seed_id": job.seed["id"], "dimension": job.dimension, "attempt_no": int(n) + 1,
            "generator": "none", "feedback": job.feedback, "parse_ok": 0, "parse_error": message,
            "verify_status": "needs_model", "started_at": ts, "finished_at": ts,
        })


def finish_attempt(store: Store, attempt_id: int, *, raw_output: str | None,
                    parse_error: str | None = None, verify_status: str | None = None,
                    verify_detail: Any = None) -> None:
    with store.transaction():
        store.execute(
            "UPDATE attempts SET raw_output = ?, parse_ok = ?, parse_error = ?, verify_status = ?, "
            "verify_detail = ?, finished_at = ? WHERE id = ?",
            (raw_output, 0 if parse_error else 1, parse_error, verify_status,
             None if verify_detail is None else json.dumps(verify_detail, sort_keys=True, default=str),
             now(), attempt_id))


def save_artifact(store: Store, job: Job, attempt_id: int, content: dict[str, Any], *,
                   generator: str, model: str | None, prompt_version: str | None,
                   raw_output: str | None) -> int:
    """Insert the next version (status ``generated``) and close the attempt, atomically.

    Raises :class:`ItemTaken` (after recording the attempt as ``abandoned``) when the version
    this job replaces is no longer rejected or failed, e.g. the reviewer undid the reject
    while the model was answering: the output stays in the attempt's history only."""
    seed_id, dim = job.seed["id"], job.dimension
    art_id = 0
    with store.transaction():
        prev = current_artifact(store, seed_id, dim)
        abandoned = job.replaces_id is not None and (
            prev is None or prev["id"] != job.replaces_id or prev["status"] not in ("failed", "rejected"))
        ts = now()
        if abandoned:
            store.execute("UPDATE attempts SET raw_output = ?, verify_status = 'abandoned', "
                          "parse_error = ?, finished_at = ? WHERE id = ?",
                          (raw_output, "the version it replaces is no longer rejected or failed",
                           ts, attempt_id))
        else:
            version = int(store.scalar(
                "SELECT COALESCE(MAX(version), 0) FROM artifacts WHERE seed_id = ? AND dimension = ?",
                (seed_id, dim))) + 1
            replaces = job.replaces_id or (
                prev["id"] if prev and prev["status"] in ("failed", "rejected") else None)
            art_id = store.insert("artifacts", {
                "seed_id": seed_id, "dimension": dim, "version": version, "status": "generated",
                "content": json.dumps(content, sort_keys=True, ensure_ascii=False),
                "generator": generator, "model": model, "prompt_version": prompt_version,
                "attempt_id": attempt_id, "replaces_id": replaces, "created_at": ts, "updated_at": ts,
                **stored_flags(dim, content, job.seed),
            })
            if prev is not None and prev["status"] in ("failed", "rejected", "generated"):
                store.execute("UPDATE artifacts SET status = 'superseded', updated_at = ? WHERE id = ?",
                              (ts, prev["id"]))
            store.execute("UPDATE attempts SET raw_output = ?, parse_ok = 1, artifact_id = ?, "
                          "finished_at = ? WHERE id = ?", (raw_output, art_id, ts, attempt_id))
    if abandoned:
        raise ItemTaken(f"seed {seed_id} {dim}: the replaced version changed")
    return art_id


def set_verified(store: Store, artifact_id: int, attempt_id: int | None, ok: bool,
                  result: dict[str, Any]) -> None:
    with store.transaction():
        status = "verified" if ok else "failed"
        store.execute("UPDATE artifacts SET status = ?, verify_result = ?, updated_at = ? WHERE id = ? "
                      "AND status IN ('generated', 'verified', 'failed')",
                      (status, json.dumps(result, sort_keys=True, default=str), now(), artifact_id))
        if attempt_id is not None:
            store.execute("UPDATE attempts SET verify_status = ?, verify_detail = ? WHERE id = ?",
                          (result.get("status"), json.dumps(result, sort_keys=True, default=str),
                           attempt_id))


#: the summary's count of checks the clock stopped, left for the next run
PENDING_UNDER_LOAD = "timed out under load (left pending; run again)"


def verify_limits(cfg: Any) -> Any:
    """The limits of generate's Z3 checks: decided by Z3's resource count
    (:data:`~qcstation.core.verify.outcome.STEADY_RLIMIT` units, so the references of a
    benchmark do not depend on the machine's load), with ``[verify] timeout_s`` (at least
    :data:`~qcstation.core.verify.outcome.STEADY_WALL_S`) of wall clock, and the CPU limit and
    kill derived from it, only as the safety net against a script that burns the clock."""
    from qcstation.core.verify.outcome import STEADY_RLIMIT, STEADY_WALL_S, VerifyLimits

    v = cfg.verify
    return VerifyLimits(timeout_s=max(float(v.timeout_s), STEADY_WALL_S), memory_mb=v.memory_mb,
                        rlimit=STEADY_RLIMIT)


def clock_stopped(result: dict[str, Any]) -> bool:
    """Did the wall clock (or the CPU limit, or the pool's kill), not Z3's resource count, end
    this check? Under :func:`verify_limits` every ``timeout`` is the clock's: it says how busy
    the machine was, never what the formalization is."""
    return result.get("status") == "timeout"


def awaits_check(art: dict[str, Any]) -> bool:
    """An artifact the next run checks: left ``generated``, or a model's stored ``failed``
    because the clock stopped its check (``decided_by: clock``)."""
    if art["status"] == "generated":
        return True
    if art["status"] != "failed":
        return False
    try:
        res = json.loads(art.get("verify_result") or "null")
    except ValueError:
        return False
    return isinstance(res, dict) and res.get("decided_by") == "clock"


async def until_stopped(calls: Any, stop: Any, every_s: float = 0.1) -> Any:
    """Await ``calls`` (a coroutine), asking ``stop()`` every ``every_s``; once it is true the
    calls are cancelled and None is returned (a regeneration in the app is stopped by quitting:
    it waited for the requests in flight, minutes against a server that never replies)."""
    import asyncio
    import contextlib

    task = asyncio.ensure_future(calls)
    while not task.done():
        if stop():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return None
        await asyncio.wait({task}, timeout=every_s)
    return task.result()
