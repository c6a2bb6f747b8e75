"""Evaluation runs: create a run on a release, ask a backend what is missing, store raw outputs.

:func:`create_run` freezes everything that decides a result into ``eval_runs.spec`` (the
release or working set, the model configuration without secrets, backend kind, tasks,
shots and the exemplar ids, temperature, max tokens, samples, the item limit, every
template's version and text) and the item records into ``eval_items``.

:func:`execute_run` asks for every (item, task, sample) without a stored output, with
bounded concurrency, and stores each reply as it comes (one writer thread, small batches),
so a run killed at any moment resumes where it stopped: a stored output is never asked
again, and only the requests in flight at the kill are asked once more. A failed request
is stored as an error (it stays in the metric's denominator); ``retry_errors=True`` asks
those again. Replies are also kept in the response cache (``llm_cache``, keyed by model,
endpoints, messages, sampling parameters and sample index), so a new run of the same model
on the same prompts costs nothing.

A run is leased to one process at a time (``owner`` + ``heartbeat_at``); a lease whose
process is gone (same host) or silent for :data:`LEASE_S` seconds can be taken over.
Scoring is a separate pass (:mod:`qcstation.eval.scorers`).
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import os
import queue
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from db.store import Store, current_actor, now
from qcstation.common.runtime import pid_alive
from qcstation.common.errors import QCStationError
from qcstation.eval import tasks as T
from qcstation.eval.backends import REFERENCE, backend_kind, make_backend
from qcstation.eval.types import TASKS, Backend, EvalReply, EvalRequest

SPEC_FORMAT = 1
LEASE_S = 60.0
WRITE_BATCH = 256
WRITE_EVERY_S = 0.2
PROGRESS_EVERY_S = 0.25
_CUSTOM_ID_RE = re.compile(r"^run(\d+)-seed(\d+)-([a-z]+)-s(\d+)$")


class EvalError(QCStationError):
    pass


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
    status: str = "running"     # running | done | interrupted | failed
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        pct = 100.0 * self.done / self.total if self.total else 100.0
        eta = "" if self.eta_s is None else f", ETA {_fmt_s(self.eta_s)}"
        cost = f", ${self.cost:.4f}" if self.cost else ""
        return (f"run {self.run_id}: {self.done}/{self.total} ({pct:.1f}%), {self.rate_per_s:.1f}/s"
                f"{eta}, {self.errors} errors, {self.cached} cached, "
                f"{self.prompt_tokens + self.completion_tokens} tokens{cost}")


def _fmt_s(s: float) -> str:
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


# -- creating runs -------------------------------------------------------------------------

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

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("spec", None)
        return d


def _loads(text: Any) -> Any:
    if text in (None, ""):
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _item_key(record: Mapping[str, Any]) -> str:
    return str(record.get("id") or f"{record.get('source')}-{record.get('orig_id')}")


def _records_for(store: Store, release: tuple[str, str] | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from qcstation.core.release import releases as rel

    if release is None:
        records, _ = rel.release_candidates(store)
        return records, {"working_set": True, "at": now(), "n": len(records)}
    name, version = release
    info = rel.get_release(store, name, version)
    return rel.release_records(store, name, version), {
        "release": name, "version": version, "release_id": info.id}


def latest_release(store: Store) -> tuple[str, str] | None:
    row = store.one("SELECT name, version FROM releases ORDER BY approved_at DESC, id DESC LIMIT 1")
    return (row["name"], row["version"]) if row else None


def create_run(store: Store, cfg: Any, *, model: str, release: tuple[str, str] | None = None,
               tasks: Sequence[str] = TASKS, shots: int = 3, temperature: float = 0.0,
               samples: int = 1, limit: int | None = None, max_tokens: int | None = None,
               backend: str | None = None, name: str | None = None, actor: str | None = None,
               rng_seed: int = 0) -> int:
    """Create a run (nothing is asked yet) and return its id. ``release=None`` evaluates the
    current working set (active seeds whose four artifacts are verified or accepted)."""
    tasks = list(dict.fromkeys(tasks))
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

    if backend == REFERENCE or model == REFERENCE:
        kind, model_cfg, label = REFERENCE, None, REFERENCE
        model_spec: dict[str, Any] = {"name": REFERENCE, "model": REFERENCE}
    else:
        model_cfg = cfg.model(model)
        kind = backend or backend_kind(model_cfg)
        label = model_cfg.name
        model_spec = _model_spec(model_cfg)
    mtok = int(max_tokens if max_tokens is not None else (model_cfg.max_tokens if model_cfg else 1024))

    records, source = _records_for(store, release)
    if not records:
        where = (f"release {release[0]} {release[1]}" if release else
                 "the working set (no seed has all four dimensions verified or accepted yet)")
        raise EvalError(f"nothing to evaluate in {where}")
    records.sort(key=lambda r: int(r["seed_id"]))
    rng = random.Random(rng_seed)
    exemplars: list[dict[str, Any]] = []
    if shots:
        ready = [r for r in records if all(T.task_ready(t, r) is None for t in tasks)]
        if len(ready) <= shots:
            raise EvalError(f"{shots} exemplars need more than {shots} complete items; "
                            f"{len(ready)} available (use --shots 0)")
        exemplars = sorted(rng.sample(ready, shots), key=lambda r: int(r["seed_id"]))
    ex_ids = {int(r["seed_id"]) for r in exemplars}
    pool = [r for r in records if int(r["seed_id"]) not in ex_ids]
    if limit is not None and limit < len(pool):
        pool = sorted(rng.sample(pool, limit), key=lambda r: int(r["seed_id"]))

    templates = {t: T.load_template(t, cfg) for t in tasks}
    judge = T.load_template("judge_understanding", cfg) if "understanding" in tasks else None
    spec = {
        "format": SPEC_FORMAT,
        "source": source,
        "model": model_spec,
        "backend": kind,
        "tasks": tasks,
        "shots": shots,
        "exemplars": [{"seed_id": int(r["seed_id"]), "id": _item_key(r)} for r in exemplars],
        "temperature": float(temperature),
        "max_tokens": mtok,
        "samples": int(samples),
        "limit": limit,
        "rng_seed": rng_seed,
        "templates": {t: tpl.to_spec() for t, tpl in templates.items()},
        "judge_template": judge.to_spec() if judge else None,
        "n_items": len(pool),
    }
    actor = actor or current_actor()
    with store.transaction():
        run_id = store.insert("eval_runs", {
            "release_id": source.get("release_id"), "model": label,
            "config": json.dumps(model_spec, sort_keys=True), "status": "created",
            "started_at": now(), "finished_at": None, "name": name,
            "spec": json.dumps(spec, sort_keys=True, ensure_ascii=False), "backend": kind,
            "created_by": actor, "n_items": len(pool),
            "n_requests": len(pool) * len(tasks) * samples,
        })
        rows = [(run_id, int(r["seed_id"]), _item_key(r), str(r.get("source") or ""),
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


# -- reading runs --------------------------------------------------------------------------

def _source_label(spec: Mapping[str, Any]) -> str:
    src = spec.get("source") or {}
    if src.get("release"):
        return f"release {src['release']} {src['version']}"
    return f"working set ({str(src.get('at', ''))[:19]})"


def resolve_run(store: Store, ref: str | int) -> int:
    """A run id from an id or a unique name."""
    text = str(ref).strip()
    if text.isdigit():
        if store.one("SELECT id FROM eval_runs WHERE id = ?", (int(text),)):
            return int(text)
        raise EvalError(f"no evaluation run {text} (see `qcstation eval list`)")
    rows = store.query("SELECT id FROM eval_runs WHERE name = ?", (text,))
    if len(rows) == 1:
        return int(rows[0]["id"])
    if not rows:
        raise EvalError(f"no evaluation run named {text!r} (see `qcstation eval list`)")
    raise EvalError(f"{len(rows)} runs are named {text!r}; use the id")


def get_run(store: Store, run_id: int) -> RunInfo:
    row = store.one("SELECT * FROM eval_runs WHERE id = ?", (run_id,))
    if row is None:
        raise EvalError(f"no evaluation run {run_id}")
    counts = store.one(
        "SELECT COUNT(*) AS n, COALESCE(SUM(status = 'error'), 0) AS e FROM eval_outputs WHERE run_id = ?",
        (run_id,)) or {"n": 0, "e": 0}
    spec = _loads(row["spec"]) or {}
    return RunInfo(id=int(row["id"]), name=row["name"], model=row["model"], backend=row["backend"] or "",
                   status=row["status"], source=_source_label(spec), n_items=int(row["n_items"] or 0),
                   n_requests=int(row["n_requests"] or 0), n_outputs=int(counts["n"]),
                   n_errors=int(counts["e"]), started_at=row["started_at"],
                   finished_at=row["finished_at"], spec=spec)


def list_runs(store: Store) -> list[RunInfo]:
    return [get_run(store, int(r["id"])) for r in store.query("SELECT id FROM eval_runs ORDER BY id")]


# -- requests ------------------------------------------------------------------------------

class RunContext:
    """Everything needed to rebuild a run's requests: spec, templates, exemplars, items."""

    def __init__(self, store: Store, run_id: int) -> None:
        row = store.one("SELECT * FROM eval_runs WHERE id = ?", (run_id,))
        if row is None:
            raise EvalError(f"no evaluation run {run_id}")
        self.run_id = run_id
        self.row = row
        self.spec: dict[str, Any] = _loads(row["spec"]) or {}
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
        self._values: tuple[int, dict[str, str]] | None = None

    def items(self, page: int = 500) -> Iterator[dict[str, Any]]:
        """The evaluated items in order, read a page at a time (no cursor left open)."""
        after = -1
        while True:
            rows = self._store.conn.execute(
                "SELECT position, record FROM eval_items WHERE run_id = ? AND role = 'eval' "
                "AND position > ? ORDER BY position LIMIT ?", (self.run_id, after, page)).fetchall()
            if not rows:
                return
            for pos, text in rows:
                yield json.loads(text)
            after = int(rows[-1][0])

    def record(self, seed_id: int) -> dict[str, Any] | None:
        row = self._store.one("SELECT record FROM eval_items WHERE run_id = ? AND seed_id = ?",
                              (self.run_id, seed_id))
        return json.loads(row["record"]) if row else None

    def request(self, record: Mapping[str, Any], task: str, sample_idx: int) -> EvalRequest:
        tpl = self.templates[task]
        sid = int(record["seed_id"])
        if self._values is None or self._values[0] != sid:
            self._values = (sid, T.record_values(record))
        messages = T.build_messages(tpl, record, prefix=self._prefix[task], values=self._values[1])
        return EvalRequest(
            run_id=self.run_id, seed_id=int(record["seed_id"]), task=task, sample_idx=sample_idx,
            messages=tuple(messages), temperature=self.temperature, max_tokens=self.max_tokens,
            prompt_hash=T.prompt_hash(messages),
            reference=T.reference_answer(tpl, record) if self.reference else None)


def _done_keys(store: Store, run_id: int, *, ok_only: bool) -> set[tuple[int, str, int]]:
    sql = "SELECT seed_id, task, sample_idx FROM eval_outputs WHERE run_id = ?"
    if ok_only:
        sql += " AND status = 'ok'"
    return {(int(a), str(b), int(c)) for a, b, c in store.conn.execute(sql, (run_id,))}


def pending_requests(store: Store, run_id: int, *, retry_errors: bool = False) -> Iterator[EvalRequest]:
    """The run's requests that have no stored output yet (with ``retry_errors``: or whose
    stored output is a failed request), in item order."""
    ctx = RunContext(store, run_id)
    done = _done_keys(store, run_id, ok_only=retry_errors)
    for record in ctx.items():
        sid = int(record["seed_id"])
        for task in ctx.tasks:
            for k in range(ctx.samples):
                if (sid, task, k) in done:
                    continue
                if T.task_ready(task, record) is not None:
                    continue   # stored as an error by _unready_outputs
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


def parse_custom_id(custom_id: str) -> tuple[int, int, str, int] | None:
    m = _CUSTOM_ID_RE.fullmatch(str(custom_id))
    if not m or m.group(3) not in TASKS:
        return None
    return int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4))


MAX_STORED_CHARS = 1_000_000


def _bounded(text: str | None) -> str | None:
    """A response as stored: at most :data:`MAX_STORED_CHARS`, marked when cut."""
    if text is None or len(text) <= MAX_STORED_CHARS:
        return text
    return text[:MAX_STORED_CHARS] + f"\n[qcstation: response cut at {MAX_STORED_CHARS:,} characters]"


def _output_row(run_id: int, req_key: tuple[int, str, int], prompt_hash: str,
                reply: EvalReply) -> tuple[Any, ...]:
    sid, task, k = req_key
    return (run_id, sid, task, k, reply.status if reply.status in ("ok", "error") else "error",
            prompt_hash, _bounded(reply.text) if reply.status == "ok" else None, reply.finish_reason,
            (reply.error or "request failed")[:2000] if reply.status != "ok" else None, reply.endpoint, int(bool(reply.cached)),
            reply.prompt_tokens, reply.completion_tokens, reply.cost, reply.latency_ms, now())


_INSERT_OUTPUT = (
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
        parsed = parse_custom_id(reply.custom_id)
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
        rows.append(_output_row(run_id, (sid, task, k), req.prompt_hash, reply))
        have[(sid, task, k)] = reply.status
        counts["stored_error" if reply.status != "ok" else "stored"] += 1
    with store.transaction():
        store.conn.executemany(_INSERT_OUTPUT, rows)
    return dict(counts)


# -- response cache ------------------------------------------------------------------------

def cache_key_for(backend_desc: Mapping[str, Any], req: EvalRequest) -> str:
    """Response-cache key: model, endpoints, messages (by hash), sampling parameters, sample."""
    blob = "\x1f".join(("eval-v1", str(backend_desc.get("model")),
                        "\x1e".join(sorted(backend_desc.get("endpoints") or [])), req.prompt_hash,
                        repr(float(req.temperature)), str(req.max_tokens), str(req.sample_idx)))
    return "eval:" + hashlib.sha256(blob.encode()).hexdigest()


# -- executing runs ------------------------------------------------------------------------

def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _lease_free(row: Mapping[str, Any]) -> bool:
    owner, beat = row.get("owner"), row.get("heartbeat_at")
    if row.get("status") != "running" or not owner or not beat:
        return True
    host, _, pid = str(owner).rpartition(":")
    if host == socket.gethostname() and pid.isdigit() and not pid_alive(int(pid)):
        return True
    import datetime as _dt

    try:
        t = _dt.datetime.strptime(str(beat), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=_dt.timezone.utc)
    except ValueError:
        return True
    return (_dt.datetime.now(_dt.timezone.utc) - t).total_seconds() > LEASE_S


def _take_lease(store: Store, run_id: int) -> None:
    with store.transaction():
        row = store.one("SELECT status, owner, heartbeat_at FROM eval_runs WHERE id = ?", (run_id,))
        if row is None:
            raise EvalError(f"no evaluation run {run_id}")
        if row["owner"] != _owner() and not _lease_free(row):
            raise EvalError(f"run {run_id} is being run by {row['owner']} (last sign of life "
                            f"{row['heartbeat_at']}); wait for it, or stop that process first")
        store.execute("UPDATE eval_runs SET status = 'running', owner = ?, heartbeat_at = ?, "
                      "error = NULL WHERE id = ?", (_owner(), now(), run_id))


class _Writer(threading.Thread):
    """Stores outputs (and cache entries) in small batches from its own connection."""

    def __init__(self, db_path: Path, run_id: int, model: str, live: Any = None) -> None:
        super().__init__(name=f"eval-writer-{run_id}", daemon=True)
        self.db_path, self.run_id, self.model = db_path, run_id, model
        self.live = live                   # scorers.LiveScorer: answer tasks scored as stored
        self.live_failed: str | None = None
        self.q: queue.Queue[Any] = queue.Queue()
        self.error: BaseException | None = None
        self.written = 0

    def put(self, row: tuple[Any, ...], cache: tuple[str, str] | None) -> None:
        self.q.put((row, cache))

    def close(self) -> None:
        self.q.put(None)
        self.join()
        if self.error is not None:
            raise EvalError(f"could not store outputs: {self.error}") from self.error

    def run(self) -> None:
        try:
            store = Store(self.db_path, migrate=False, create=False)
        except BaseException as exc:  # pragma: no cover - reported by close()
            self.error = exc
            return
        try:
            stop = False
            last_beat = 0.0
            while not stop:
                batch: list[Any] = []
                try:
                    item = self.q.get(timeout=1.0)
                except queue.Empty:
                    item = ()
                if item is None:
                    stop = True
                elif item:
                    batch.append(item)
                deadline = time.monotonic() + WRITE_EVERY_S
                while not stop and len(batch) < WRITE_BATCH:
                    try:
                        item = self.q.get(timeout=max(0.0, deadline - time.monotonic()))
                    except queue.Empty:
                        break
                    if item is None:
                        stop = True
                    else:
                        batch.append(item)
                beat = time.monotonic() - last_beat > 5.0
                if batch or beat:
                    self._flush(store, batch, beat)
                    if beat:
                        last_beat = time.monotonic()
        except BaseException as exc:
            self.error = exc
            while True:   # unblock the producer side; nothing more can be stored
                try:
                    if self.q.get_nowait() is None:
                        break
                except queue.Empty:
                    break
        finally:
            store.close()

    def _flush(self, store: Store, batch: list[Any], beat: bool) -> None:
        rows = [r for r, _ in batch]
        cache = [(k, self.model, json.dumps({"eval": True, "model": self.model}), resp, now())
                 for _, c in batch if c is not None for k, resp in [c]]
        score_rows: list[tuple[Any, ...]] = []
        if self.live is not None and rows and self.live_failed is None:
            from qcstation.eval.scorers import ANSWER_TASKS, INSERT_SCORE

            try:
                score_rows = self.live.rows(store, [(r[1], r[2], r[3], r[6]) for r in rows
                                                    if r[4] == "ok" and r[2] in ANSWER_TASKS])
            except Exception as exc:   # the scoring pass after the run scores these instead
                self.live_failed = f"{exc.__class__.__name__}: {exc}"
                score_rows = []
        with store.transaction():
            if rows:
                store.conn.executemany(_INSERT_OUTPUT, rows)
            if score_rows:
                store.conn.executemany(INSERT_SCORE, score_rows)
            if cache:
                store.conn.executemany(
                    "INSERT OR IGNORE INTO llm_cache (key, model, request, response, created_at) "
                    "VALUES (?, ?, ?, ?, ?)", cache)
            store.execute("UPDATE eval_runs SET heartbeat_at = ? WHERE id = ? AND owner = ?",
                          (now(), self.run_id, _owner()))
        self.written += len(rows)


def _cached_reply(custom_id: str, response: str) -> EvalReply | None:
    try:
        data = json.loads(response)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
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

    def add(self, reply: EvalReply) -> None:
        p = self.p
        p.done += 1
        p.asked += 1
        if reply.status != "ok":
            p.errors += 1
        if reply.cached:
            p.cached += 1
        else:
            p.prompt_tokens += reply.prompt_tokens or 0
            p.completion_tokens += reply.completion_tokens or 0
            p.cost += reply.cost or 0.0
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


def _unready_outputs(ctx: RunContext, done: set[tuple[int, str, int]]) -> list[tuple[Any, ...]]:
    """Items that cannot be asked a task (e.g. no wrong chain of thought): stored as errors."""
    rows = []
    for record in ctx.items():
        sid = int(record["seed_id"])
        for task in ctx.tasks:
            why = T.task_ready(task, record)
            if why is None:
                continue
            for k in range(ctx.samples):
                if (sid, task, k) not in done:
                    rows.append(_output_row(ctx.run_id, (sid, task, k), "",
                                            EvalReply("", "error", error=f"not asked: {why}")))
    return rows


def execute_run(db_path: str | Path, run_id: int, cfg: Any, *,
                progress: Callable[[RunProgress], None] | None = None,
                cancel: threading.Event | None = None, retry_errors: bool = False,
                backend: Backend | None = None, live_score: bool = False) -> RunProgress:
    """Ask for everything the run lacks and store it; returns the final progress.
    Safe to call again after a kill or a cancel: it resumes. With ``live_score`` the answer
    tasks (arithmetic, final, refinement) are scored as their outputs are stored, so the
    scoring pass after the run (``score_run(only_missing=True)``) has only Reasoning and
    Understanding left."""
    db_path = Path(db_path)
    store = Store(db_path, migrate=False, create=False)
    try:
        ctx = RunContext(store, run_id)
        if backend is None:
            backend = _backend_for(ctx.spec, cfg)
        _take_lease(store, run_id)
        total = int(ctx.row["n_requests"] or 0)
        done_keys = _done_keys(store, run_id, ok_only=False)
        unready = _unready_outputs(ctx, done_keys)
        if unready:
            with store.transaction():
                store.conn.executemany(_INSERT_OUTPUT, unready)
            done_keys = _done_keys(store, run_id, ok_only=False)
        errors_before = int(store.scalar(
            "SELECT COUNT(*) FROM eval_outputs WHERE run_id = ? AND status = 'error'", (run_id,)) or 0)
        prog = RunProgress(run_id=run_id, total=total, done=len(done_keys), errors=errors_before)
        if retry_errors:   # failed requests are asked again; items that cannot be asked stay errors
            not_asked = int(store.scalar(
                "SELECT COUNT(*) FROM eval_outputs WHERE run_id = ? AND status = 'error' "
                "AND prompt_hash = ''", (run_id,)) or 0)
            prog.done -= errors_before - not_asked
            prog.errors = not_asked
        meter = _Meter(prog, progress)
        meter.tick(force=True)
        pending = pending_requests(store, run_id, retry_errors=retry_errors)
        live = None
        if live_score:
            from qcstation.eval.scorers import LiveScorer, scorer_versions

            live = LiveScorer(run_id, scorer_versions(cfg))
        writer = _Writer(db_path, run_id, str(ctx.spec.get("model", {}).get("model")), live)
        writer.start()
        status = "done"
        try:
            desc = backend.describe()
            use_cache = backend.kind != REFERENCE
            if backend.batched:
                _drive_batched(backend, pending, writer, meter, cancel, store, desc, use_cache,
                               size=int(getattr(backend, "batch_size", 0) or 256))
            else:
                asyncio.run(_drive_async(backend, pending, writer, meter, cancel, store, desc, use_cache))
            if cancel is not None and cancel.is_set():
                status = "interrupted"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        except BaseException as exc:
            status = "failed"
            prog.message = str(exc)
            raise
        finally:
            try:
                writer.close()
            finally:
                if live is not None:
                    live.close()
                remaining = total - store.scalar(
                    "SELECT COUNT(*) FROM eval_outputs WHERE run_id = ?", (run_id,))
                if status == "done" and remaining > 0:
                    status = "interrupted"
                prog.status = status
                with store.transaction():
                    store.execute(
                        "UPDATE eval_runs SET status = ?, finished_at = ?, owner = NULL, error = ? "
                        "WHERE id = ?",
                        (status, now() if status == "done" else None, prog.message or None, run_id))
                meter.tick(force=True)
        return prog
    finally:
        store.close()


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


def _cache_entry(key: str, reply: EvalReply) -> tuple[str, str] | None:
    if reply.status != "ok" or reply.cached:
        return None
    return key, json.dumps({"text": reply.text, "finish_reason": reply.finish_reason,
                            "prompt_tokens": reply.prompt_tokens,
                            "completion_tokens": reply.completion_tokens,
                            "cost": reply.cost, "endpoint": reply.endpoint}, ensure_ascii=False)


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
            writer.put(_output_row(req.run_id, req.key, req.prompt_hash, reply),
                       _cache_entry(key, reply) if use_cache else None)
            meter.add(reply)

    try:
        n = max(1, int(backend.concurrency))
        await asyncio.gather(*(worker() for _ in range(n)))
    finally:
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
            writer.put(_output_row(req.run_id, req.key, req.prompt_hash, reply),
                       _cache_entry(key, reply) if use_cache else None)
            meter.add(reply)
