"""The run record: one evaluation run as stored, and the one place that reads it.

A run is a row of ``eval_runs`` (its ``spec`` JSON freezes everything that decides a
result), the frozen item records in ``eval_items``, and, while a process works on it,
a lease (``owner`` + ``heartbeat_at``). This module creates runs, reads them back
(:func:`get_run`, :func:`list_runs`, :func:`run_row`, :class:`RunContext`), resolves what
a user types to name a run (:func:`resolve_run`: an id, or a name exactly one run has)
or the release to run on (:func:`resolve_release`: NAME[@VERSION], default the latest
approved), and says whether a run's lease is held (:func:`lease_free`,
:func:`effective_status`). It asks no model and scores nothing: :mod:`~qcstation.eval.runner`
executes runs, :mod:`~qcstation.eval.scorers` scores them, and both build on this.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import random
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from db.store import Store, current_actor, now
from qcstation.common.errors import QCStationError
from qcstation.common import leases
from qcstation.common.leases import Owner
from qcstation.common.safe import display_text
from qcstation.eval import tasks as T
from qcstation.eval.backends import REFERENCE, backend_kind
from qcstation.eval.protocols import protocol_label as protocol_label
from qcstation.eval.types import TASK_METRICS, TASKS, EvalRequest

SPEC_FORMAT = 1
#: seconds without a heartbeat after which a run's lease may be taken over
LEASE_S = 60.0
#: a run's statuses: ``created`` (nothing asked yet), ``running`` (a process holds its lease:
#: asking, or scoring), ``interrupted`` / ``stopped`` (requests left to ask; stopped: its
#: process died or failed), ``unscored`` (every request has an output, not all scored: ``eval
#: score`` or ``eval resume`` scores it), ``done`` (every request has an output and a scoring
#: pass ended well)
UNSCORED = "unscored"
#: statuses whose runs count as finished (the leaderboard's default): scored runs only
FINISHED_STATUSES = ("done",)
#: a spec larger than this is not read (specs are a few kB: templates are capped at 64 kB)
MAX_SPEC_CHARS = 5_000_000


class EvalError(QCStationError):
    pass


# -- the spec ------------------------------------------------------------------------------

def load_spec(raw: Any) -> dict[str, Any]:
    """A run's ``spec`` column as a dict ({} when missing, malformed or oversized)."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_SPEC_CHARS:
        return {}
    try:
        spec = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return spec if isinstance(spec, dict) else {}


def spec_tasks(spec: Mapping[str, Any]) -> set[str] | None:
    """The tasks a run asked for, from its spec (None when the spec does not say)."""
    tasks = spec.get("tasks")
    if not isinstance(tasks, list):
        return None
    return {t for t in tasks if isinstance(t, str) and t in TASK_METRICS}


def source_label(spec: Mapping[str, Any]) -> str:
    """``release smart@1.0.0`` / ``working set (2025-01-02T03:04:05)``: what ``eval list``
    and ``eval show`` print (a release named as everywhere: NAME@VERSION)."""
    src = spec.get("source") or {}
    if src.get("release"):
        return f"release {src['release']}@{src['version']}"
    return f"working set ({str(src.get('at', ''))[:19]})"


def release_label(spec: dict[str, Any]) -> str:
    """``smart@1.0.0`` / ``working set`` from a run's spec, whatever shape it has."""
    source = spec.get("source")
    if isinstance(source, dict):
        if source.get("release"):
            return "@".join(str(p) for p in (source.get("release"), source.get("version")) if p)
        if source.get("working_set"):
            return "working set"
    rel = spec.get("release")
    if isinstance(rel, dict):
        name, version = rel.get("name"), rel.get("version")
        if name or version:
            return "@".join(str(p) for p in (name, version) if p)
    if isinstance(rel, (list, tuple)) and rel:
        return "@".join(str(p) for p in rel)
    if isinstance(rel, str) and rel:
        return rel
    if spec.get("release_name"):
        return " ".join(str(p) for p in (spec.get("release_name"), spec.get("release_version"))
                        if p)
    return "working set"


def run_label(row: Mapping[str, Any]) -> str:
    """``#3 gpt-4o-mini``; a named run keeps its model in view (``#3 baseline (gpt-4o-mini)``).
    With the run's ``spec`` in ``row`` (JSON or a dict), what it measured follows: the
    release and the protocol (``#3 gpt-4o-mini · smart@1.0.0 · 3-shot, 2 samples, t=0.7``),
    for pickers and chart legends where runs are told apart."""
    model = str(row.get("model") or "")
    name = str(row.get("name") or "")
    who = name or model or "?"
    if name and model and model not in name:
        who = f"{name} ({model})"
    label = f"#{row['id']} {who}"
    raw = row.get("spec")
    if raw is None:
        return label
    spec = load_spec(raw) if isinstance(raw, str) else raw
    if not isinstance(spec, Mapping) or not spec:
        return label
    return f"{label} · {release_label(dict(spec))} · {protocol_label(spec)}"


def run_short_label(row: Mapping[str, Any]) -> str:
    """``#3 baseline`` / ``#3 gpt-4o-mini``: a run in a table's narrow column (its model,
    release and protocol are beside it, or in :func:`run_label`)."""
    return f"#{row['id']} {row.get('name') or row.get('model') or '?'}"


def item_key(record: Mapping[str, Any]) -> str:
    """The id people use for an item of a run (``gsm8k-17``), as in releases."""
    return str(record.get("id") or f"{record.get('source')}-{record.get('orig_id')}")


# -- naming runs and releases --------------------------------------------------------------

def run_row(store: Store, run_id: int) -> dict[str, Any]:
    """The ``eval_runs`` columns people read (id, model, name, status, spec, times, items)."""
    row = store.one("SELECT id, model, name, status, spec, started_at, finished_at, n_items "
                    "FROM eval_runs WHERE id = ?", (int(run_id),))
    if row is None:
        raise EvalError(f"no evaluation run {run_id}; `qcstation eval list` lists them",
                        title="No such run")
    return row


def resolve_run(store: Store, ref: str | int) -> int:
    """A run by id, or by name when exactly one run has it: the one rule for every RUN
    argument (CLI actions, reports, batch files)."""
    text = str(ref).strip()
    if re.fullmatch(r"\d{1,18}", text):
        return int(run_row(store, int(text))["id"])
    rows = store.query("SELECT id FROM eval_runs WHERE name = ? ORDER BY id", (text,))
    if len(rows) == 1:
        return int(rows[0]["id"])
    shown = display_text(text, 60)
    if not rows:
        raise EvalError(f"no evaluation run with id or name '{shown}'", title="No such run")
    ids = ", ".join(str(r["id"]) for r in rows[:10])
    raise EvalError(f"{len(rows)} runs are named '{shown}' ({ids}); give the run id",
                    title="Ambiguous run")


def finished_runs(store: Store) -> list[int]:
    marks = ",".join("?" for _ in FINISHED_STATUSES)
    return [int(r["id"]) for r in store.query(
        f"SELECT id FROM eval_runs WHERE status IN ({marks}) ORDER BY id", FINISHED_STATUSES)]


def latest_release(store: Store) -> tuple[str, str] | None:
    row = store.one("SELECT name, version FROM releases ORDER BY approved_at DESC, id DESC LIMIT 1")
    return (row["name"], row["version"]) if row else None


def resolve_release(store: Store, text: str | None) -> tuple[str, str]:
    """``NAME@VERSION``, ``NAME`` (its latest version) or None (the latest approved release)."""
    if text is None:
        rel = latest_release(store)
        if rel is None:
            raise EvalError("no approved release yet: approve one (`qcstation release approve`) or "
                            "evaluate the working set with --working-set")
        return rel
    name, _, version = text.partition("@")
    if not version:
        row = store.one("SELECT version FROM releases WHERE name = ? ORDER BY approved_at DESC, id DESC "
                        "LIMIT 1", (name,))
        if row is None:
            raise EvalError(f"no approved release named {name!r} (see `qcstation release list`)")
        version = row["version"]
    return name, version


# -- reading runs --------------------------------------------------------------------------

@dataclass
class RunInfo:
    id: int
    name: str | None
    model: str
    backend: str
    status: str
    source: str                  # "release NAME VERSION" or "working set"
    n_items: int
    n_requests: int
    n_outputs: int
    n_errors: int
    started_at: str
    finished_at: str | None
    spec: dict[str, Any] = field(default_factory=dict)
    prompt_tokens: int = 0       # spent by the run's requests, over all its sessions (cache hits: 0)
    completion_tokens: int = 0
    cost: float | None = None    # USD over all sessions; None when the model has no prices

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("spec", None)
        return d


def get_run(store: Store, run_id: int) -> RunInfo:
    row = store.one("SELECT * FROM eval_runs WHERE id = ?", (run_id,))
    if row is None:
        raise EvalError(f"no evaluation run {run_id}")
    counts = run_totals(store, run_id)
    spec = load_spec(row["spec"])
    return RunInfo(id=int(row["id"]), name=row["name"], model=row["model"], backend=row["backend"] or "",
                   status=effective_status(row), source=source_label(spec),
                   n_items=int(row["n_items"] or 0),
                   n_requests=int(row["n_requests"] or 0), n_outputs=int(counts["n"]),
                   n_errors=int(counts["e"]), started_at=row["started_at"],
                   finished_at=row["finished_at"], spec=spec, prompt_tokens=int(counts["pt"]),
                   completion_tokens=int(counts["ct"]),
                   cost=None if counts["cost"] is None else float(counts["cost"]))


TOTALS_FROM_SCRATCH_SQL = (
    "SELECT COUNT(*) AS n, COALESCE(SUM(status = 'error'), 0) AS e, "
    "COALESCE(SUM(CASE WHEN cached = 0 THEN prompt_tokens END), 0) AS pt, "
    "COALESCE(SUM(CASE WHEN cached = 0 THEN completion_tokens END), 0) AS ct, "
    "SUM(CASE WHEN cached = 0 THEN cost END) AS cost FROM eval_outputs WHERE run_id = ?")


def run_totals(store: Store, run_id: int, *, from_scratch: bool = False) -> dict[str, Any]:
    """The run's outputs ``n``, failed requests ``e``, and the prompt ``pt`` and completion
    ``ct`` tokens and ``cost`` (None: no known price) of the outputs not served from the cache,
    as kept by migration 14 (db/kept_eval.py); ``from_scratch`` sums every output again."""
    if from_scratch:
        row = store.one(TOTALS_FROM_SCRATCH_SQL, (run_id,))
    else:
        row = store.one("SELECT outputs AS n, errors AS e, prompt_tokens AS pt, "
                        "completion_tokens AS ct, CASE WHEN costed > 0 THEN cost END AS cost "
                        "FROM eval_run_totals WHERE run_id = ?", (run_id,))
    return dict(row) if row is not None else {"n": 0, "e": 0, "pt": 0, "ct": 0, "cost": None}


def list_runs(store: Store) -> list[RunInfo]:
    return [get_run(store, int(r["id"])) for r in store.query("SELECT id FROM eval_runs ORDER BY id")]


# -- the lease -----------------------------------------------------------------------------

def owner_id() -> str:
    """This process as a run's lease owner: ``host:pid``."""
    return str(Owner.me())


def lease_free(row: Mapping[str, Any]) -> bool:
    """Whether a run (its ``status``, ``owner``, ``heartbeat_at``) may be taken: it is not
    running, or its owner is gone. An owner on this machine holds it exactly while its
    process lives (a live run is never taken over, however long its heartbeat was held up);
    one on another machine, until it is silent for :data:`LEASE_S` seconds."""
    if row.get("status") != "running":
        return True
    return not leases.held(Owner.parse(row.get("owner")), row.get("heartbeat_at"),
                           stale_after_s=LEASE_S, local_pid_decides=True)


def held_elsewhere(row: Mapping[str, Any]) -> bool:
    """Another live process holds this run's lease now."""
    owner = Owner.parse(row.get("owner"))
    return not lease_free(row) and owner is not None and not owner.is_me


#: this process's scoring claims: a scoring pass writes its own owner, ``host:pid#N``, so a
#: second pass of the same process (another thread of the workstation) is refused as one of
#: another process is, and the claim still reads as this process's to every other process
_CLAIMS = itertools.count(1)
#: (database, run) pairs this process is executing now (:func:`executing`)
_EXECUTING: set[tuple[str, int]] = set()
_EXECUTING_LOCK = threading.Lock()


def claimed_here(row: Mapping[str, Any]) -> bool:
    """A scoring pass of this process holds the run (its owner is a claim of this process)."""
    text = str(row.get("owner") or "")
    owner = Owner.parse(text)
    return row.get("status") == "running" and "#" in text and owner is not None and owner.is_me


def _run_key(db_path: Any, run_id: int) -> tuple[str, int]:
    from pathlib import Path

    return str(Path(db_path).resolve()), int(run_id)


@contextmanager
def executing(db_path: Any, run_id: int) -> Iterator[None]:
    """Mark the run as executed by this process for the block (the runner's
    ``execute_run``): a second execution or a scoring pass of this process is refused
    meanwhile, as one of another process is by the lease."""
    key = _run_key(db_path, run_id)
    with _EXECUTING_LOCK:
        if key in _EXECUTING:
            raise EvalError(f"run {run_id} is being run by this process already; wait for it")
        _EXECUTING.add(key)
    try:
        yield
    finally:
        with _EXECUTING_LOCK:
            _EXECUTING.discard(key)


def _refuse_if_busy_here(row: Mapping[str, Any], run_id: int) -> None:
    if claimed_here(row):
        raise EvalError(f"run {run_id} is being scored by this process (another scoring pass); "
                        f"wait for it to end")


def take_lease(store: Store, run_id: int) -> None:
    """Mark the run ``running`` by this process, unless another live process holds it, or a
    scoring pass of this process does."""
    with store.transaction():
        row = store.one("SELECT status, owner, heartbeat_at FROM eval_runs WHERE id = ?", (run_id,))
        if row is None:
            raise EvalError(f"no evaluation run {run_id}")
        if held_elsewhere(row):
            raise EvalError(f"run {run_id} is being run by {row['owner']} (last sign of life "
                            f"{row['heartbeat_at']}); wait for it, or stop that process first")
        _refuse_if_busy_here(row, run_id)
        store.execute("UPDATE eval_runs SET status = 'running', owner = ?, heartbeat_at = ?, "
                      "error = NULL WHERE id = ?", (owner_id(), now(), run_id))


#: how often a scoring pass beats the run's lease
SCORING_BEAT_S = 5.0


@contextmanager
def scoring_lease(db_path: Any, run_id: int) -> Iterator[None]:
    """Hold the run's lease while its outputs are scored: the run reads ``running`` (by this
    process, under a claim of this pass: ``host:pid#N``) until its scores are written, and
    a second scoring pass — of another process (``eval resume``, ``eval score``) or of this
    one (another thread) — is refused instead of scoring the same outputs beside it, as is
    a pass while this process executes the run. The lease this process's own run kept
    (``execute_run(keep_lease=True)``, ended) is taken over. At the end the run is ``done``
    when every request has an output and the scoring pass ended well; otherwise a run with
    every output reads ``unscored`` (unless it read ``done`` before), and one with requests
    left keeps the status it had (``interrupted`` when this process was running it)."""
    with _EXECUTING_LOCK:
        running_here = _run_key(db_path, run_id) in _EXECUTING
    if running_here:
        raise EvalError(f"run {run_id} is being run by this process; its outputs are scored when "
                        f"the run ends")
    me = f"{owner_id()}#{next(_CLAIMS)}"
    with Store(db_path, migrate=False, create=False) as store, store.transaction():
        row = store.one("SELECT status, owner, heartbeat_at FROM eval_runs WHERE id = ?", (int(run_id),))
        if row is None:
            raise EvalError(f"no evaluation run {run_id}")
        if held_elsewhere(row):
            raise EvalError(f"run {run_id} is being run or scored by {row['owner']} (last sign of life "
                            f"{row['heartbeat_at']}); wait for it, or stop that process first")
        _refuse_if_busy_here(row, run_id)
        before = str(row["status"])
        store.execute("UPDATE eval_runs SET status = 'running', owner = ?, heartbeat_at = ? WHERE id = ?",
                      (me, now(), int(run_id)))
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(SCORING_BEAT_S):
            try:
                with Store(db_path, migrate=False, create=False) as st, st.transaction():
                    st.execute("UPDATE eval_runs SET heartbeat_at = ? WHERE id = ? AND owner = ?",
                               (now(), int(run_id), me))
            except Exception:   # locked for now: the next beat tries again
                continue

    beater = threading.Thread(target=beat, name=f"eval-scoring-lease-{run_id}", daemon=True)
    beater.start()
    scored = False
    try:
        yield
        scored = True
    finally:
        stop.set()
        beater.join(timeout=5)
        with Store(db_path, migrate=False, create=False) as store, store.transaction():
            complete = bool(store.scalar(
                "SELECT (SELECT COUNT(*) FROM eval_outputs WHERE run_id = r.id) >= r.n_requests "
                "FROM eval_runs r WHERE r.id = ?", (int(run_id),)))
            if scored and complete and before in ("running", "done", UNSCORED, "created", "interrupted",
                                                  "stopped"):
                after = "done"
            elif complete and before != "done":
                after = UNSCORED
            else:
                after = "interrupted" if before == "running" else before
            store.execute("UPDATE eval_runs SET status = ?, owner = NULL, finished_at = CASE WHEN ? = 'done' "
                          "THEN COALESCE(finished_at, ?) ELSE finished_at END WHERE id = ? AND owner = ?",
                          (after, after, now(), int(run_id), me))


def release_lease(db_path: Any, run_id: int, status: str = "interrupted") -> None:
    """Give up this process's lease on a run it still holds (``status`` then, or
    ``unscored`` when every request has an output); nothing when it holds none."""
    with Store(db_path, migrate=False, create=False) as store, store.transaction():
        store.execute(f"UPDATE eval_runs SET status = CASE WHEN (SELECT COUNT(*) FROM eval_outputs "
                      f"WHERE run_id = eval_runs.id) >= n_requests THEN '{UNSCORED}' ELSE ? END, "
                      "owner = NULL WHERE id = ? AND owner = ? AND status = 'running'",
                      (status, int(run_id), owner_id()))


def stored_status(db_path: Any, run_id: int) -> str | None:
    """The run's status as stored now (a killed owner's ``running`` reads ``stopped``);
    None when it cannot be read."""
    try:
        with Store(db_path, migrate=False, create=False) as store:
            row = store.one("SELECT status, owner, heartbeat_at FROM eval_runs WHERE id = ?",
                            (int(run_id),))
    except Exception:
        return None
    return effective_status(row) if row is not None else None


def effective_status(run: Mapping[str, Any]) -> str:
    """``running`` only while its owner holds the lease (alive, heartbeat fresh); a run
    whose process was killed reads ``stopped``."""
    status = str(run["status"])
    if status != "running":
        return status
    return "stopped" if lease_free(run) else status


# -- creating runs -------------------------------------------------------------------------

def _records_for(store: Store, release: tuple[str, str] | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from qcstation.core.release import releases as rel

    if release is None:
        records, _ = rel.release_candidates(store)
        return records, {"working_set": True, "at": now(), "n": len(records)}
    name, version = release
    info = rel.get_release(store, name, version)
    return rel.release_records(store, name, version), {
        "release": name, "version": version, "release_id": info.id}


def _check_settings(tasks: list[str], shots: int, temperature: float, samples: int,
                    limit: int | None, name: str | None) -> None:
    unknown = [t for t in tasks if t not in TASKS]
    if unknown or not tasks:
        raise EvalError(f"unknown task(s) {', '.join(unknown) or '(none)'}; known: {', '.join(TASKS)}")
    if not 0 <= shots <= 16:
        raise EvalError(f"shots must be between 0 and 16, got {shots}")
    if not 1 <= samples <= 64:
        raise EvalError(f"samples must be between 1 and 64, got {samples}")
    if not 0.0 <= temperature <= 2.0:
        raise EvalError(f"temperature must be between 0 and 2, got {temperature}")
    if limit is not None and limit < 1:
        raise EvalError(f"limit must be at least 1, got {limit}")
    if name is not None and (not name.strip() or len(name) > 80 or not name.isprintable()):
        raise EvalError("a run name must be 1-80 printable characters")


#: the completion budget of an evaluation request when neither --max-tokens nor the model's
#: own max_tokens says otherwise: room for a reasoning model's thinking (1024, the
#: generator's default, cut them off)
EVAL_MAX_TOKENS = 16_384


def eval_max_tokens(model_cfg: Any) -> int:
    """The model's ``max_tokens`` when its configuration sets one (anything but the 1024
    default), else :data:`EVAL_MAX_TOKENS`."""
    from qcstation.common.config import ModelConfig

    if model_cfg is None:
        return EVAL_MAX_TOKENS
    default = ModelConfig.__dataclass_fields__["max_tokens"].default
    return int(model_cfg.max_tokens) if model_cfg.max_tokens != default else EVAL_MAX_TOKENS


def _model_spec(m: Any) -> dict[str, Any]:
    """What about the model decides a result (no key, no key variable, no server list)."""
    from qcstation.common.config import config_fingerprint

    fp = config_fingerprint(m)
    fp.pop("base_url", None)
    fp["servers"] = len(m.endpoints)
    extra = getattr(m, "vllm_args", None)
    if extra:
        fp["vllm_args"] = extra
    return fp


def _draw_items(records: list[dict[str, Any]], tasks: list[str], shots: int, limit: int | None,
                rng_seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(exemplars, evaluated items): exemplars are complete items left out of the evaluation;
    ``limit`` draws a seeded subset of the rest. Both in seed order."""
    records.sort(key=lambda r: int(r["seed_id"]))
    rng = random.Random(rng_seed)
    exemplars: list[dict[str, Any]] = []
    if shots:
        ready = [r for r in records if all(T.task_applies(t, r) and T.task_ready(t, r) is None
                                           for t in tasks)]
        if len(ready) <= shots:
            raise EvalError(f"{shots} exemplars need more than {shots} complete items; "
                            f"{len(ready)} available (use --shots 0)")
        exemplars = sorted(rng.sample(ready, shots), key=lambda r: int(r["seed_id"]))
    ex_ids = {int(r["seed_id"]) for r in exemplars}
    pool = [r for r in records if int(r["seed_id"]) not in ex_ids]
    if limit is not None and limit < len(pool):
        pool = sorted(rng.sample(pool, limit), key=lambda r: int(r["seed_id"]))
    return exemplars, pool


def refuse_unusable_model(cfg: Any, model: str, backend: str | None = None) -> None:
    """Refuse a model that cannot be used before its run is created (nothing is left
    behind): vLLM not installed for a vLLM model; the key variable unset or no server
    answering for an OpenAI-compatible one. The offline reference model is always usable.
    The CLI's ``eval run`` and the workstation's start-run form both ask this first."""
    if model == REFERENCE or backend == REFERENCE:
        return
    model_cfg = cfg.model(model)
    if (backend or backend_kind(model_cfg)) == "vllm":
        from qcstation.eval.backends.vllm import require_vllm

        require_vllm()
        return
    from qcstation.common.preflight import model_preflight

    why = model_preflight(model_cfg)   # key variable unset, no server answers
    if why is not None:
        raise EvalError(f"not started: {why}", title="Model not usable")


def create_run(store: Store, cfg: Any, *, model: str, release: tuple[str, str] | None = None,
               tasks: Sequence[str] = TASKS, shots: int = 3, temperature: float = 0.0,
               samples: int = 1, limit: int | None = None, max_tokens: int | None = None,
               backend: str | None = None, name: str | None = None, actor: str | None = None,
               rng_seed: int = 0, protocol: str = "two-step",
               adjust: Mapping[str, Any] | None = None, rewrite: Any = None,
               spec_extra: Mapping[str, Any] | None = None) -> int:
    """Create a run (nothing is asked yet) and return its id. ``release=None`` evaluates the
    current working set (active seeds whose four artifacts are verified or accepted).
    ``protocol``: the refinement protocol, ``two-step`` (the SMART paper's: reflect, then
    refine only after a correct reflection; :mod:`~qcstation.eval.twostep`) or
    ``single-prompt`` (error types and the corrected solution in one reply).
    ``adjust[task](template) -> template`` changes a task's template, ``rewrite(records) ->
    records`` the release's records, ``spec_extra`` adds keys to the spec (self-refine and
    round-trip runs, :mod:`qcstation.eval.robustness.refine`)."""
    if protocol not in ("two-step", "single-prompt"):
        raise EvalError(f"unknown refinement protocol {protocol!r}; use two-step or single-prompt")
    tasks = list(dict.fromkeys(tasks))
    _check_settings(tasks, shots, temperature, samples, limit, name)
    kind, model_cfg, label, model_spec = _run_model(cfg, model, backend)
    mtok = int(max_tokens if max_tokens is not None else eval_max_tokens(model_cfg))

    records, source = _records_for(store, release)
    if rewrite is not None:
        records = rewrite(records)
    if not records:
        where = (f"release {release[0]} {release[1]}" if release else
                 "the working set (no seed has all four dimensions verified or accepted yet)")
        raise EvalError(f"nothing to evaluate in {where}")
    exemplars, pool = _draw_items(records, tasks, shots, limit, rng_seed)
    templates, judge = _run_templates(cfg, tasks, protocol, adjust)
    spec = {
        "format": SPEC_FORMAT,
        "source": source,
        "model": model_spec,
        "backend": kind,
        "tasks": tasks,
        "shots": shots,
        "exemplars": [{"seed_id": int(r["seed_id"]), "id": item_key(r)} for r in exemplars],
        "temperature": float(temperature),
        "max_tokens": mtok,
        "samples": int(samples),
        "limit": limit,
        "rng_seed": rng_seed,
        "templates": {t: tpl.to_spec() for t, tpl in templates.items()},
        "protocol": {"refinement": protocol if "refinement" in tasks else None},
        "judge_template": judge.to_spec() if judge else None,
        "n_items": len(pool),
        **dict(spec_extra or {}),
    }
    return _insert_run(store, spec, source, tasks, label, model_spec, kind, name,
                       actor or current_actor(), exemplars, pool, samples)


def _run_model(cfg: Any, model: str, backend: str | None
               ) -> tuple[str, Any, str, dict[str, Any]]:
    """(backend kind, model config or None, label, the spec's model) of a new run."""
    if backend == REFERENCE or model == REFERENCE:
        return REFERENCE, None, REFERENCE, {"name": REFERENCE, "model": REFERENCE}
    model_cfg = cfg.model(model)
    return backend or backend_kind(model_cfg), model_cfg, model_cfg.name, _model_spec(model_cfg)


def _run_templates(cfg: Any, tasks: Sequence[str], protocol: str,
                   adjust: Mapping[str, Any] | None) -> tuple[dict[str, Any], Any]:
    """(each task's template, as the protocol asks and ``adjust`` changes it; the
    Understanding judge's template or None)."""
    templates = {t: T.load_template("reflection" if t == "refinement" and protocol == "two-step"
                                    else t, cfg) for t in tasks}
    if "refinement" in tasks and protocol == "two-step":
        templates["refine"] = T.load_template("refine", cfg)
    for t, change in (adjust or {}).items():
        if t in templates:
            templates[t] = change(templates[t])
    judge = T.load_template("judge_understanding", cfg) if "understanding" in tasks else None
    return templates, judge


def _insert_run(store: Store, spec: dict[str, Any], source: dict[str, Any], tasks: list[str],
                label: str, model_spec: dict[str, Any], kind: str, name: str | None, actor: str,
                exemplars: list[dict[str, Any]], pool: list[dict[str, Any]], samples: int) -> int:
    """Store the run, its frozen items and the event saying so, in one transaction."""
    with store.transaction():
        run_id = store.insert("eval_runs", {
            "release_id": source.get("release_id"), "model": label,
            "config": json.dumps(model_spec, sort_keys=True), "status": "created",
            "started_at": now(), "finished_at": None, "name": name,
            "spec": json.dumps(spec, sort_keys=True, ensure_ascii=False), "backend": kind,
            "created_by": actor, "n_items": len(pool),
            "n_requests": samples * sum(T.task_applies(t, r) for r in pool for t in tasks),
        })
        rows = [(run_id, int(r["seed_id"]), item_key(r), str(r.get("source") or ""),
                 r.get("difficulty"), role, pos, json.dumps(r, sort_keys=True, ensure_ascii=False))
                for role, group in (("exemplar", exemplars), ("eval", pool))
                for pos, r in enumerate(group)]
        store.conn.executemany(
            "INSERT INTO eval_items (run_id, seed_id, item_key, source, difficulty, role, position, record) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        store._event_raw(actor, "eval.run_created", "eval_run", run_id,
                         {"model": label, "backend": kind, "tasks": tasks, "items": len(pool),
                          "source": source})
    return run_id


# -- a run's requests ----------------------------------------------------------------------

class RunContext:
    """Everything needed to rebuild a run's requests: spec, templates, exemplars, items."""

    def __init__(self, store: Store, run_id: int) -> None:
        row = store.one("SELECT * FROM eval_runs WHERE id = ?", (run_id,))
        if row is None:
            raise EvalError(f"no evaluation run {run_id}")
        self.run_id = run_id
        self.row = row
        self.spec: dict[str, Any] = load_spec(row["spec"])
        if self.spec.get("format") != SPEC_FORMAT:
            raise EvalError(f"run {run_id} was made by another version of qcstation (spec format "
                            f"{self.spec.get('format')!r})")
        self.tasks: list[str] = list(self.spec["tasks"])
        self.templates = {t: T.template_from_spec(s) for t, s in self.spec["templates"].items()}
        self.samples = int(self.spec["samples"])
        self.temperature = float(self.spec["temperature"])
        self.max_tokens = int(self.spec["max_tokens"])
        self.reference = self.spec.get("backend") == REFERENCE
        ex = store.query("SELECT record FROM eval_items WHERE run_id = ? AND role = 'exemplar' "
                         "ORDER BY position", (run_id,))
        self.exemplars = [json.loads(r["record"]) for r in ex]
        self._store = store
        self._prefix = {t: T.prefix_messages(tpl, self.exemplars) for t, tpl in self.templates.items()}
        # the prefix as it appears in the prompt's JSON (serialised once per task, not per request)
        self._prefix_json = {t: ",".join(_compact(m) for m in msgs) for t, msgs in self._prefix.items()}
        # the prompt's JSON up to the item's message, hashed once per task (each request's hash
        # goes on from a copy)
        self._prefix_hash = {t: hashlib.sha256(("[" + head + ("," if head else "")).encode("utf-8"))
                             for t, head in self._prefix_json.items()}
        self._values: tuple[int, Mapping[str, str]] | None = None

    def bound(self, store: Store) -> RunContext:
        """This context reading through ``store`` (another thread's connection): a copy that
        shares the run's templates and rendered exemplars, which never change for a run, so a
        reader of one item's prompts need not render them again (a few ms a context)."""
        other = copy.copy(self)
        other._store = store
        other._values = None
        return other

    def request_fields(self) -> tuple[str, ...]:
        """The fields of an item's record its requests read (:func:`~qcstation.eval.tasks.request_fields`)."""
        return T.request_fields(self.templates, reference=self.reference)

    def items(self, page: int = 500, fields: Sequence[str] | None = None) -> Iterator[dict[str, Any]]:
        """The evaluated items in order, read a page at a time (no cursor left open).
        ``fields``: each record cut to these (absent ones None), read by SQLite's JSON
        functions instead of parsing the whole record in Python (a record also carries its
        provenance, key information and formalizations: ~3 KB a quickstart item, half the
        cost of a request); a record SQLite cannot read (NaN, which Python's JSON writes) is
        read whole."""
        # Paged by seed id, on the primary key (run_id, seed_id): create_run numbers the
        # positions in seed order, so this is position order, without a scan and a sort of
        # the run's items per page (quadratic at a million items).
        names = list(fields or ())
        if any('"' in f for f in names):     # a path names its key in quotes: read whole
            names = []
        column = "record"
        if names:
            column = ("CASE WHEN json_valid(record) THEN json_extract(record, "
                      + ", ".join("?" * len(names)) + ") END")
        paths = [f'$."{f}"' for f in names]
        after = -(2**63)
        while True:
            rows = self._store.conn.execute(
                f"SELECT seed_id, {column} FROM eval_items WHERE run_id = ? AND seed_id > ? "
                "AND role = 'eval' ORDER BY seed_id LIMIT ?", (*paths, self.run_id, after, page)).fetchall()
            if not rows:
                return
            for sid, text in rows:
                if not names:
                    yield json.loads(text)
                elif text is None or len(names) == 1:   # one path gives a value, not a list
                    yield self.record(int(sid)) or {}
                else:
                    yield dict(zip(names, json.loads(text)))
            after = int(rows[-1][0])

    def record(self, seed_id: int) -> dict[str, Any] | None:
        row = self._store.one("SELECT record FROM eval_items WHERE run_id = ? AND seed_id = ?",
                              (self.run_id, seed_id))
        return json.loads(row["record"]) if row else None

    def request(self, record: Mapping[str, Any], task: str, sample_idx: int) -> EvalRequest:
        tpl = self.templates[task]
        sid = int(record["seed_id"])
        if self._values is None or self._values[0] != sid:
            self._values = (sid, T.LazyValues(record))
        messages = T.build_messages(tpl, record, prefix=self._prefix[task], values=self._values[1])
        head = self._prefix_json[task]
        last = _compact(messages[-1]) + "]"
        blob = "[" + head + ("," if head else "") + last
        digest = self._prefix_hash[task].copy()
        digest.update(last.encode("utf-8"))
        return EvalRequest(
            run_id=self.run_id, seed_id=int(record["seed_id"]), task=task, sample_idx=sample_idx,
            messages=tuple(messages), temperature=self.temperature, max_tokens=self.max_tokens,
            prompt_hash=digest.hexdigest(),   # = T.prompt_hash(messages): sha256 of blob
            reference=T.reference_answer(tpl, record) if self.reference else None).with_json(blob)


_STR_JSON = json.encoder.encode_basestring     # what json.dumps(..., ensure_ascii=False) writes a string as


def _compact(message: Mapping[str, Any]) -> str:
    """One message as :func:`~qcstation.eval.tasks.prompt_hash` serialises it. A message of
    a role and a text (every message a run builds) is written directly, its two strings as
    json.dumps writes them, in sorted key order: the same text, at half the cost per request."""
    if len(message) == 2 and type(message.get("content")) is str and type(message.get("role")) is str:
        return '{"content":' + _STR_JSON(message["content"]) + ',"role":' + _STR_JSON(message["role"]) + "}"
    return json.dumps(message, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
