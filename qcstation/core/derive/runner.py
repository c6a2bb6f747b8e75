"""A derive run: lease parents, build their items, check them with Z3, store them.

:func:`run_derive` opens (or resumes) a set, queues every parent, and then, batch by batch,
leases jobs (:func:`.store.claim`), builds each parent's items (:func:`build_job`, pure: no
database, so it can run in worker processes), runs every item's Z3 checks in the isolated
verifier pool (the same pool and limits as ``generate``), turns a failed check into a
refusal with the verifier's reason (an inverse problem whose X is not unique is refused
here), and stores the batch in one transaction (:func:`.store.write_batch`).

Processes (:func:`plan_processes`): the rules (and each item's make-time audit, the flags
stored with its artifacts) run in ``workers`` processes (0: in the calling process), Z3 in
the run's own verifier pool of ``z3_workers``; by default one of each per core this process
may run on (:func:`usable_cpus`: ``sched_getaffinity``, at most :data:`MAX_AUTO`), so each
stage can use every core while the other waits: the rules and Z3 take about the same CPU per
item, and with one process per stage on two cores the run could use at most one core per
stage, never both when one stage is ahead (under load it also gets fewer of the cores than a
pool with a worker on each). The main process leases, feeds the pool from a thread and
stores. Batches in flight (:func:`_loop`): :data:`AHEAD` being built (the rules workers go
from one to the next without waiting for the main process), one being checked by Z3 (the
next ones queued behind it), one being stored. The first batches are small and grow to the
run's batch size (:func:`batch_sizes`: 4, 8, 16, ...), so Z3 and storing start as soon as a few
parents are built instead of after a whole batch's rules (under load a first batch of 64 took
146 s of wall clock for 20 s of CPU, both Z3 workers idle meanwhile). The output depends
neither on the number of processes nor on the batch sizes (every draw is seeded by the item's
key; jobs are leased and stored in their order).
"""

from __future__ import annotations

import functools
import importlib
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from db import Store, current_actor
from qcstation.common.identity import require_curator
from qcstation.core.construct.check.selfcheck import HARD_FLAGS, parse_flag_codes, stored_flags
from qcstation.core.derive.bindings import Refusal
from qcstation.core.derive.model import KINDS, TRANSFORMS, DerivedItem, Refused, Transform, fmt
from qcstation.core.derive.parent import load_parent
from qcstation.core.derive.recheck import recheck
from qcstation.core.derive.solution import format_value
from qcstation.core.derive.stale import rules_fingerprint, stale_on_resume
from qcstation.core.derive.store import (
    DeriveError,
    JobOutcome,
    SetInfo,
    claim,
    encode_contents,
    enqueue,
    open_set,
    parent_rows,
    release_leases,
    write_batch,
)
from qcstation.core.derive.story import NoisePool, sentences
from qcstation.core.derive.transforms import Options, disputed

__all__ = ["DeriveSummary", "build_job", "noise_rows", "plan_processes", "recipe_for", "run_derive",
           "usable_cpus", "verify_limits"]

ProgressFn = Callable[[int, int, str], None]
BATCH = 64
#: the first batch of a run (:func:`batch_sizes`); each next one twice the one before, up to BATCH
RAMP_FIRST = 4
#: batches leased and given to the rules workers before the one being waited for is stored
AHEAD = 2
#: the most processes per stage the default plan starts (one per usable core up to this)
MAX_AUTO = 16


@dataclass
class DeriveSummary:
    """What a run did: jobs finished, items made and refused per transform, the leading
    refusal reasons, and the Z3 checks run."""

    set_name: str
    jobs: int = 0
    made: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    reasons: Counter[tuple[str, str]] = field(default_factory=Counter)
    parents_refused: Counter[str] = field(default_factory=Counter)
    checks: int = 0
    seconds: float = 0.0
    stale_parents: int | None = None   # a resumed set: parents whose earlier items are stale
    stopped: bool = False              # stopped before its end (``cancel``): resumable

    def to_dict(self) -> dict[str, Any]:
        return {"set": self.set_name, "jobs": self.jobs, "made": dict(self.made),
                "refused": dict(self.refused), "checks": self.checks,
                "parents_refused": dict(self.parents_refused),
                "reasons": [{"transform": t, "code": c, "n": n}
                            for (t, c), n in self.reasons.most_common(20)],
                "stale_parents": self.stale_parents, "seconds": round(self.seconds, 3),
                "stopped": self.stopped}


def recipe_for(kind: str, opts: Options, sources: list[str] | None, limit: int | None) -> dict[str, Any]:
    return {"kind": kind, "options": opts.to_dict(), "sources": sorted(sources or []),
            "limit": limit}


def options_from(spec: dict[str, Any]) -> Options:
    o = dict(spec.get("options") or {})
    for k in ("noise_levels", "digit_levels", "error_levels", "shifts"):
        if k in o:
            o[k] = tuple(o[k])
    known = set(Options.__dataclass_fields__)
    return Options(**{k: v for k, v in o.items() if k in known})


def noise_rows(store: Store, max_seed_id: int) -> list[tuple[str, str]]:
    """(item key, first sentence) of every active seed made before the set: the noise pool's
    source (a first sentence introduces what it talks about; later ones refer back)."""
    rows = store.query("SELECT source, orig_id, question FROM seeds WHERE status = 'active' "
                       "AND id <= ? ORDER BY id", (max_seed_id,))
    out = []
    for r in rows:
        sents = sentences(str(r["question"]))
        if len(sents) > 1:
            out.append((f"{r['source']}-{r['orig_id']}", sents[0][2]))
    return out


def build_job(kind: str, opts: Options, set_name: str, seed: dict[str, Any],
              artifacts: dict[str, dict[str, Any]], pool: NoisePool | None) -> tuple[list[DerivedItem], list[Refused], str | None]:
    """Every item of ``kind`` for one parent (no database): (items, refusals, the reason the
    parent cannot be transformed at all, or None)."""
    try:
        parent = load_parent(seed, artifacts)
    except Refusal as exc:
        return [], [], f"{exc.code}: {exc}"
    flagged = hard_flags(artifacts)
    if flagged:
        return [], [], f"flagged: {flagged}"
    key = f"{set_name}:{seed['source']}-{seed['orig_id']}"
    out: list[DerivedItem | Refused] = []
    for transform in KINDS[kind]:
        try:
            out.extend(_one(transform, parent, opts, key, pool))
        except Refusal as exc:
            out.append(Refused(transform, exc.code, str(exc)))
        except (ArithmeticError, ValueError, LookupError, TypeError, RecursionError) as exc:
            # a seed the transformation cannot handle costs its items, never the run
            out.append(Refused(transform, "internal-error", f"{type(exc).__name__}: "
                                                            f"{str(exc)[:300]}"))
    out = second_opinion(seed, out)
    items = [o for o in out if isinstance(o, DerivedItem)]
    for item in items:       # the make-time audit, here in the worker (stored with the item)
        seed_like = {"question": item.question, "solution": item.solution or "",
                     "answer_value": fmt(item.answer)}
        item.flags = {dim: stored_flags(dim, content, seed_like)
                      for dim, content in item.contents.items()}
    return items, [o for o in out if isinstance(o, Refused)], None


#: flags of a parent's artifacts that keep it out of every derived set: each says a given may
#: be bound to the wrong words or value, which every derived item would inherit
BLOCKING_FLAGS: frozenset[str] = frozenset({"equal-value-link", "unused-given", "uncertain",
                                            "given-words", "step-literal"})


def hard_flags(artifacts: dict[str, dict[str, Any]]) -> str:
    """Why a parent's current artifacts keep it out of derived sets ("" when nothing does):
    a blocking flag (:data:`BLOCKING_FLAGS`, and every hard flag the self-check declares)
    on any of them."""
    blocking = BLOCKING_FLAGS | HARD_FLAGS
    found = []
    for dim, art in sorted(artifacts.items()):
        codes = [c for c in parse_flag_codes(art.get("flag_codes")) if c in blocking]
        if codes:
            found.append(f"its {dim} artifact is flagged {', '.join(sorted(codes))}")
    return "; ".join(found)


def second_opinion(seed: dict[str, Any], out: list[DerivedItem | Refused]) -> list[DerivedItem | Refused]:
    """Every item re-derived independently (:func:`.recheck.recheck`, from its question and
    its parent's gold solution, not from the formalization that made it): an item that
    route finds wrong, cannot confirm, or whose texts still write an old value is refused
    with the reason; so is an item whose question another item of the parent already asks
    (a rounded counterfactual shift that lands on the same number)."""
    parent = {"question": seed.get("question"), "solution": seed.get("solution"),
              "answer_value": seed.get("answer_value")}
    asked: dict[str, str] = {}
    kept: list[DerivedItem | Refused] = []
    for item in out:
        if not isinstance(item, DerivedItem):
            kept.append(item)
            continue
        verdict = recheck(parent, {"transform": item.transform, "question": item.question,
                                   "solution": item.solution, "answer_value": fmt(item.answer),
                                   "params": item.params, "contents": item.contents})
        refused = disputed(verdict, item.transform, item.idx)
        if refused is not None:
            kept.append(refused)
            continue
        if verdict.stale:
            kept.append(Refused(item.transform, "stale-value", "an old value is still written: "
                                + "; ".join(verdict.stale), item.idx))
            continue
        text = " ".join(item.question.split())
        if item.transform == "errors":
            text += "\n" + str(item.contents.get("refinement", {}).get("w_cot"))
        same = asked.get(f"{item.transform}\n{text}")
        if same is not None:
            kept.append(Refused(item.transform, "repeated", f"the same question as item {same}",
                                item.idx))
            continue
        asked[f"{item.transform}\n{text}"] = item.tag
        kept.append(item)
    return kept


def _one(transform: str, parent: Any, opts: Options, key: str, pool: NoisePool | None
         ) -> list[DerivedItem | Refused]:
    record = TRANSFORMS.get(transform)
    if record is None:
        raise ValueError(f"unknown transform {transform!r}")
    build = builder(record)
    if record.needs_pool:
        assert pool is not None
        return build(parent, opts, key, pool)
    return build(parent, opts, key)


@functools.lru_cache(maxsize=None)
def builder(record: Transform) -> Callable[..., list[DerivedItem | Refused]]:
    """The builder a transformation's record names (``module:function``)."""
    module, _, name = record.builder.partition(":")
    return getattr(importlib.import_module(module), name)


# -- worker processes -----------------------------------------------------------------------

_W: dict[str, Any] = {}


def _init_worker(kind: str, opts: Options, set_name: str, pool_rows: list[tuple[str, str]]) -> None:
    _W.update(kind=kind, opts=opts, set_name=set_name,
              pool=NoisePool.from_sentences(pool_rows) if pool_rows else None)


def _init_pool_worker(kind: str, opts: Options, set_name: str, pool_rows: list[tuple[str, str]],
                      main_pid: int | None = None) -> None:
    """A worker process's setup: it ends when the run's main process ``main_pid`` does
    (:func:`_end_with`: a killed run leaves no worker behind); what it has loaded lives as
    long as it, so the cyclic garbage collector stops scanning it (``gc.freeze``) and runs
    less often (the rules allocate many short-lived numbers and strings, few cycles); then
    :func:`_init_worker`."""
    import gc

    if main_pid is not None:
        _end_with(main_pid)
    _init_worker(kind, opts, set_name, pool_rows)
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def _end_with(pid: int) -> None:
    """End this process as soon as process ``pid`` has ended (a thread waits on its pidfd,
    else looks every second). A rules worker waits for work on a queue its own end keeps
    open: when the main process is killed nothing else would end it."""
    import threading

    try:
        fd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None

    def watch() -> None:
        if fd is not None:
            import select

            select.select([fd], [], [])
        else:
            while True:
                time.sleep(1.0)
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                except OSError:
                    continue
        os._exit(0)

    threading.Thread(target=watch, name="derive-end-with-main", daemon=True).start()


def _work(args: tuple[dict[str, Any], dict[str, dict[str, Any]]]) -> tuple[list[DerivedItem], list[Refused], str | None]:
    """:func:`build_job` in a worker, its items' contents encoded as stored (what the main
    process receives is then mostly text: cheaper to unpickle than the contents' dicts)."""
    seed, arts = args
    items, refused, reason = build_job(_W["kind"], _W["opts"], _W["set_name"], seed, arts, _W["pool"])
    for item in items:
        encode_contents(item)
    return items, refused, reason


# -- the run --------------------------------------------------------------------------------

def _checks(outcomes: list[JobOutcome]) -> tuple[list[tuple[str, str]], list[tuple[DerivedItem, str]]]:
    """Every item's Z3 checks: (SMT-LIB, expected) and (item, dimension) in the same order."""
    texts, owners = [], []
    for out in outcomes:
        for item in out.items:
            for chk in item.checks:
                texts.append((chk.smtlib, str(chk.expected.numerator) if chk.expected.denominator == 1
                              else f"{chk.expected.numerator}/{chk.expected.denominator}"))
                owners.append((item, chk.dimension))
    return texts, owners


def _verify_all(pool: Any, texts: list[tuple[str, str]]) -> list[Any]:
    """The verifier pool's outcomes for ``texts`` (run in the loop's Z3 thread)."""
    return list(pool.verify_many(texts)) if texts else []


def verify_limits(cfg: Any) -> Any:
    """The limits of a derive run's Z3 checks: decided by Z3's resource count
    (:data:`~qcstation.core.verify.outcome.STEADY_RLIMIT` units: the same items on a quiet and on
    a loaded machine, since a derived set is part of a benchmark), with ``[verify] timeout_s``
    (at least :data:`~qcstation.core.verify.outcome.STEADY_WALL_S`) of wall clock as a safety
    net whose expiry stops the run (:func:`_apply`)."""
    from qcstation.core.verify.outcome import STEADY_RLIMIT, STEADY_WALL_S, VerifyLimits

    v = cfg.verify
    return VerifyLimits(timeout_s=max(float(v.timeout_s), STEADY_WALL_S), memory_mb=v.memory_mb,
                        rlimit=STEADY_RLIMIT)


def _apply(outcomes: list[JobOutcome], owners: list[tuple[DerivedItem, str]], results: list[Any]
           ) -> dict[int, dict[str, dict[str, Any]]]:
    """The Z3 results of :func:`_checks`: a failed check turns the item into a refusal. A
    check stopped by the clock (``timeout``: the wall-clock or CPU safety net ran out before
    Z3's resource limit, :func:`verify_limits`) says how busy the machine was, not what the
    item is: the run stops with :class:`DeriveError` before the batch is stored (its parents
    stay pending; running the same command again resumes them), so no item is refused or
    left out because the machine was loaded."""
    for (item, dim), res in zip(owners, results):
        if res.status == "timeout":
            raise DeriveError(
                f"Z3 could not check the {dim} of {item.transform} item {item.tag} in time: "
                f"{res.message}. The machine is too busy for the wall-clock safety limit; the "
                "parents of this batch were not stored: run the same derive command again to "
                "resume (the items do not depend on the machine's load)",
                title="Z3 timed out under load")
    verified: dict[int, dict[str, dict[str, Any]]] = {}
    failed: dict[int, tuple[DerivedItem, str, Any]] = {}
    for (item, dim), res in zip(owners, results):
        if res.ok:
            verified.setdefault(id(item), {})[dim] = res.to_dict()
        elif id(item) not in failed:
            failed[id(item)] = (item, dim, res)
    for out in outcomes:
        keep = []
        for item in out.items:
            if id(item) in failed:
                _, dim, res = failed[id(item)]
                out.refused.append(_z3_refusal(item, dim, res))
            else:
                keep.append(item)
        out.items = keep
    return verified


def _z3_refusal(item: DerivedItem, dim: str, res: Any) -> Refused:
    """The refusal for a failed Z3 check. A formalization with more than one solution is
    ``not-unique``; the verifier's message names the second value Z3 happened to find, which
    may differ from run to run, so the refusal names only the value the item expects: the
    stored reasons of a set do not depend on the run."""
    if res.status != "ambiguous":
        return Refused(item.transform, f"z3-{res.status}", f"{dim}: {res.message}", item.idx)
    expected = next((c.expected for c in item.checks if c.dimension == dim), item.answer)
    return Refused(item.transform, "not-unique",
                   f"{dim}: the constraints do not determine the answer: a value other than "
                   f"{format_value(expected)} satisfies them too", item.idx)


def run_derive(db_path: str | Path, cfg: Any, *, kind: str, name: str | None = None,
               opts: Options | None = None, sources: list[str] | None = None,
               limit: int | None = None, workers: int | None = 0, z3_workers: int | None = None,
               actor: str | None = None, progress: ProgressFn | None = None, pool: Any = None,
               batch: int = BATCH, cancel: Callable[[], bool] | None = None) -> DeriveSummary:
    """Build (or resume) the derived set ``name`` (default: ``kind``); see the module docstring.
    With ``[qc] curators`` configured only a curator (``actor``, default the OS account) may
    build or resume a set: :class:`ReviewError` otherwise, before anything is stored (the
    app's derive and ``qcstation derive`` both come here).
    ``workers``: processes running the rules (0: this one; None: one per usable core);
    ``z3_workers``: the size of the run's verifier pool when ``pool`` is None (None: one per
    usable core), :func:`plan_processes`.
    ``cancel``: asked between batches; once true no batch is started or stored, the jobs
    left stay pending (a later run resumes them) and the summary says ``stopped``. The app
    passes its worker's cancel: quitting it with a derive going waited for the whole set,
    a blank terminal for minutes (walk28a), though the dialog said it stops."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    opts = opts or Options(errors_per_cot=int(cfg.generation.errors_per_cot),
                           rng_seed=int(cfg.generation.rng_seed))
    opts.check()
    if kind == "perturb":
        opts = Options(**{**opts.__dict__, "extra": {**opts.extra, "ladder": False}})
    name = name or kind
    actor = actor or current_actor()
    curators = list(getattr(getattr(cfg, "qc", None), "curators", None) or ())
    if curators:   # configured: building a set (a new scope for QC and releases) is theirs
        actor = require_curator(actor, curators, "build a derived set")
    progress = progress or (lambda done, total, msg: None)
    summary = DeriveSummary(name)
    t0 = time.perf_counter()
    with Store(db_path, create=False) as store:
        info = open_set(store, name, kind, recipe_for(kind, opts, sources, limit), actor,
                        rules=rules_fingerprint())
        enqueue(store, info)
        total = int(store.scalar("SELECT COUNT(*) FROM derive_jobs WHERE set_id = ?", (info.id,)))
        resumed = bool(store.scalar("SELECT COUNT(*) FROM derive_jobs WHERE set_id = ? AND "
                                    "status = 'done'", (info.id,)))
        rows = noise_rows(store, int(info.spec.get("max_seed_id") or 0)) if "noise" in KINDS[kind] else []
        own_pool = pool is None
        if own_pool:
            from qcstation.core.verify.verifier import VerifierPool

            workers, z3 = plan_processes(workers, z3_workers, usable_cpus())
            pool = VerifierPool(workers=z3, limits=verify_limits(cfg))
        else:
            workers = plan_processes(workers, 1, usable_cpus())[0]
        executor: Executor | None = None
        try:
            if workers > 0:
                from qcstation.core.verify.isolation import mp_context

                executor = ProcessPoolExecutor(workers, mp_context=mp_context(),
                                               initializer=_init_pool_worker,
                                               initargs=(kind, opts, info.name, rows, os.getpid()))
            else:
                _init_worker(kind, opts, info.name, rows)
            _loop(store, info, pool, executor, summary, total, progress, max(1, batch),
                  max(1, workers), cancel)
        finally:
            release_leases(store, info.id)
            if executor is not None:
                executor.shutdown(cancel_futures=True)
            if own_pool:
                pool.close()
        if resumed:     # items built earlier, maybe by other rules or from another parent
            summary.stale_parents = stale_on_resume(store, info)
        summary.seconds = time.perf_counter() - t0
        store.event(actor, "derive.run", "derive_set", info.id, summary.to_dict())
    return summary


def usable_cpus() -> int:
    """The cores this process may run on (``sched_getaffinity``; ``os.cpu_count`` where that
    is missing), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def plan_processes(workers: int | None, z3_workers: int | None, cpus: int) -> tuple[int, int]:
    """(rules processes, Z3 workers) of a run: as asked, and each one not asked for (None)
    one per core of ``cpus`` (:func:`usable_cpus`), at most :data:`MAX_AUTO`; ``workers`` 0
    runs the rules in the calling process. Z3 gets one worker at least."""
    auto = max(1, min(int(cpus), MAX_AUTO))
    rules = auto if workers is None else max(0, int(workers))
    z3 = auto if z3_workers is None else int(z3_workers)
    return rules, max(1, z3)


def batch_sizes(batch: int, first: int = RAMP_FIRST) -> Iterator[int]:
    """The sizes of a run's batches, in order: ``first``, then each twice the one before, up to
    ``batch``, then ``batch`` for ever (a run starts working on a few parents at once, and a
    long run is stored ``batch`` parents a transaction)."""
    size = max(1, min(int(first), int(batch)))
    while True:
        yield size
        size = min(int(batch), 2 * size)


def _chunk(n: int, workers: int) -> int:
    """Parents handed to a rules worker at a time: up to 4 (fewer round trips), but every
    worker gets a share of a small batch (a first batch of 4 on 2 workers: 1 each at a time)."""
    return max(1, min(4, n // max(1, 2 * workers)))


def _start(store: Store, info: SetInfo, executor: Executor | None, batch: int,
           workers: int = 1) -> Any:
    """Lease the next batch and start building it: (jobs, rows, results iterable), or None
    when no job is left. In worker processes the build runs while the caller goes on."""
    jobs = claim(store, info.id, batch)
    if not jobs:
        return None
    rows = parent_rows(store, jobs)
    if executor is None:
        return jobs, rows, [_work(r) for r in rows]
    return jobs, rows, executor.map(_work, rows, chunksize=_chunk(len(rows), workers))   # submitted now


def _loop(store: Store, info: SetInfo, pool: Any, executor: Executor | None,
          summary: DeriveSummary, total: int, progress: ProgressFn, batch: int,
          workers: int = 1, cancel: Callable[[], bool] | None = None) -> None:
    """Batch by batch, three stages at once: while Z3 checks batch i (in the verifier pool,
    fed from a thread), the rules build batches i + 1 .. i + :data:`AHEAD` (in the worker
    processes, which take the next batch's parents as soon as they finish one; or here, one
    batch) and batch i - 1 is stored. The batches are stored in order, each in one
    transaction; their sizes grow to ``batch`` (:func:`batch_sizes`)."""
    from concurrent.futures import ThreadPoolExecutor

    done = int(store.scalar("SELECT COUNT(*) FROM derive_jobs WHERE set_id = ? AND status != 'pending'",
                            (info.id,)))
    z3 = ThreadPoolExecutor(1, thread_name_prefix="derive-z3")
    waiting: Any = None                      # (outcomes, owners, n checks, future) of batch i - 1

    def store_batch(outcomes: list[JobOutcome], owners: list[Any], n: int, fut: Any) -> None:
        nonlocal done
        verified = _apply(outcomes, owners, fut.result())
        summary.checks += n
        write_batch(store, info, outcomes, verified)
        for out in outcomes:
            summary.jobs += 1
            if out.reason:
                summary.parents_refused[out.reason.split(":", 1)[0]] += 1
            for item in out.items:
                summary.made[item.transform] += 1
            for r in out.refused:
                summary.refused[r.transform] += 1
                summary.reasons[(r.transform, r.code)] += 1
        done += len(outcomes)
        progress(done, total, f"{info.name}: {done}/{total} parents")

    sizes = batch_sizes(batch)
    try:
        ahead: deque[Any] = deque()
        more = True
        while True:
            if cancel is not None and cancel():
                summary.stopped = True
                break
            while more and len(ahead) < (AHEAD if executor is not None else 1):
                started = _start(store, info, executor, next(sizes), workers)    # its rules start now
                more = started is not None
                if more:
                    ahead.append(started)
            if not ahead and waiting is None:
                break
            current = None
            if ahead:
                jobs, rows, building = ahead.popleft()
                built = list(building)
                if more and executor is not None:                 # the rules never wait
                    started = _start(store, info, executor, next(sizes), workers)
                    more = started is not None
                    if more:
                        ahead.append(started)
                outcomes = [JobOutcome(int(j["id"]), seed, items, refused, reason)
                            for j, (seed, _), (items, refused, reason) in zip(jobs, rows, built)]
                texts, owners = _checks(outcomes)
                fut = z3.submit(_verify_all, pool, texts)
                current = (outcomes, owners, len(texts), fut)
            if waiting is not None:
                store_batch(*waiting)                               # while Z3 checks this one
            waiting = current
    finally:
        z3.shutdown(wait=True, cancel_futures=True)
