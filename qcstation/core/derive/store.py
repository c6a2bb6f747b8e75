"""Derived sets in the database: sets, jobs (one per parent, the lease and the outcome) and
the derived items themselves (schema: ``db/migrations.py``, version 8).

* :func:`open_set` creates a set or reopens one with the same specification (a different
  one is refused: the set would mix two recipes).
* :func:`enqueue` adds a ``pending`` job for every active seed of the set's sources.
* :func:`claim` leases up to ``n`` pending jobs to this process (a lease held by a process
  that is gone, or older than :data:`LEASE_SECONDS`, is taken over), inside one
  ``BEGIN IMMEDIATE`` transaction, so two processes never build the same parent.
* :func:`write_batch` stores the outcome of a batch of jobs in one transaction: each made
  item becomes a seed of status ``derived`` (source and level of its parent, ``orig_id``
  ``<parent orig_id>~<set>.<tag>``), a ``derived_items`` row and one verified artifact per
  dimension it carries; the job becomes ``done`` (at least one item) or ``refused``, with
  the item-level refusals in ``detail`` (an item whose question another parent's item of
  the set already asks is one: ``repeated``). A process killed before the commit leaves its
  jobs pending under a dead lease; the next run builds them again, from the same seeded
  draws, so nothing is lost or duplicated.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

from db.artifacts import rule_results
from db.store import MAX_VARIABLES, ROWS_PER_INSERT, Store, from_json, now, storable_text
from qcstation.common.errors import QCStationError
from qcstation.common.leases import Owner, held_by_another
from qcstation.common.safe import printable
from qcstation.common.vocab import DIMENSIONS, USABLE_STATUSES
from qcstation.core.construct.check.selfcheck import stored_flags
from qcstation.core.derive.model import DerivedItem, Refused, fmt

__all__ = [
    "LEASE_SECONDS",
    "DeriveError",
    "JobOutcome",
    "SetInfo",
    "check_set_name",
    "claim",
    "encode_contents",
    "enqueue",
    "get_set",
    "list_sets",
    "open_set",
    "owner_tag",
    "parent_rows",
    "release_leases",
    "write_batch",
]

LEASE_SECONDS = 30 * 60


class DeriveError(QCStationError):
    """A derive request that cannot be carried out (unknown set, another recipe...)."""


#: a derived set's name, as the app's form takes it: it becomes part of each item's id
#: (``1~NAME.v3``), exported in releases and shown on every screen
SET_NAME_CHARS = 40
_SET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,%d}" % (SET_NAME_CHARS - 1))


def check_set_name(name: str) -> str:
    """``name`` when it can name a set, else DeriveError saying what a name is (a name with
    control characters or 5,000 characters was taken from the shell, into every item's id)."""
    if not _SET_NAME.fullmatch(name):
        raise DeriveError(f"a set name is 1-{SET_NAME_CHARS} letters, digits, '.', '_' or '-', starting with "
                          f"a letter or digit; got {printable(name[:60])!r}{'…' if len(name) > 60 else ''}",
                          title="Set name")
    return name


@dataclass
class SetInfo:
    id: int
    name: str
    kind: str
    spec: dict[str, Any]
    created_by: str | None
    created_at: str


@dataclass
class JobOutcome:
    """What building one parent gave: items (Z3-checked) and refusals."""

    job_id: int
    parent: dict[str, Any]
    items: list[DerivedItem]
    refused: list[Refused]
    reason: str | None = None      # the parent itself cannot be transformed


def owner_tag() -> str:
    """This process as a job's lease holder (``{"host", "pid"}``, as the generate leases)."""
    return json.dumps(Owner.me().record(), sort_keys=True)


def _row_to_set(row: dict[str, Any]) -> SetInfo:
    return SetInfo(int(row["id"]), row["name"], row["kind"], from_json(row["spec"]) or {},
                   row.get("created_by"), row["created_at"])


def get_set(store: Store, name: str) -> SetInfo:
    row = store.one("SELECT * FROM derive_sets WHERE name = ?", (name,))
    if row is None:
        names = [r["name"] for r in store.query("SELECT name FROM derive_sets ORDER BY id")]
        raise DeriveError(f"no derived set named {name!r}; sets here: {', '.join(names) or '(none)'}",
                          title="No such set")
    return _row_to_set(row)


def list_sets(store: Store) -> list[SetInfo]:
    return [_row_to_set(r) for r in store.query("SELECT * FROM derive_sets ORDER BY id")]


#: what a set's spec records besides its recipe (not compared when it is reopened)
STAMPS = ("max_seed_id", "rules")


def open_set(store: Store, name: str, kind: str, recipe: dict[str, Any], actor: str,
             rules: str | None = None) -> SetInfo:
    """The set ``name``: created with ``recipe`` (what to build, from which seeds; the newest
    seed id is added, so seeds imported later do not join it, and ``rules``, the fingerprint
    of the rules it is built with), or reopened when its recipe is the same."""
    check_set_name(name)
    with store.transaction():
        row = store.one("SELECT * FROM derive_sets WHERE name = ?", (name,))
        if row is not None:
            info = _row_to_set(row)
            old = {k: v for k, v in info.spec.items() if k not in STAMPS}
            if info.kind != kind or old != recipe:
                diff = sorted(k for k in set(recipe) | set(old) if recipe.get(k) != old.get(k))
                raise DeriveError(
                    f"the set {name!r} was made as {info.kind} with other settings "
                    f"({', '.join(diff) or 'kind'}); resume it with the same settings or choose "
                    f"another --name", title="Another recipe")
            return info
        spec = {**recipe, "max_seed_id": int(store.scalar("SELECT COALESCE(MAX(id), 0) FROM seeds"))}
        if rules is not None:
            spec["rules"] = rules
        set_id = store.insert("derive_sets", {"name": name, "kind": kind, "spec": spec,
                                              "created_by": actor, "created_at": now()})
        store.event(actor, "derive.set.created", "derive_set", set_id, {"name": name, "kind": kind,
                                                                      "spec": spec})
    return get_set(store, name)


def enqueue(store: Store, info: SetInfo) -> int:
    """A pending job for every active seed of the set's sources (up to its limit, and only
    seeds imported when the set was made); returns how many were added."""
    spec = info.spec
    sql = "SELECT id FROM seeds WHERE status = 'active' AND id <= ?"
    params: list[Any] = [int(spec.get("max_seed_id") or 0)]
    if spec.get("sources"):
        sql += f" AND source IN ({','.join('?' * len(spec['sources']))})"
        params.extend(spec["sources"])
    sql += " ORDER BY id"
    if spec.get("limit"):
        sql += " LIMIT ?"
        params.append(int(spec["limit"]))
    with store.transaction():
        before = int(store.scalar("SELECT COUNT(*) FROM derive_jobs WHERE set_id = ?", (info.id,)))
        store.execute(f"INSERT OR IGNORE INTO derive_jobs (set_id, parent_id, status) "
                      f"SELECT ?, id, 'pending' FROM ({sql})", [info.id, *params])
        after = int(store.scalar("SELECT COUNT(*) FROM derive_jobs WHERE set_id = ?", (info.id,)))
    return after - before


def _lease_free(owner: str | None, leased_at: str | None) -> bool:
    """No other process holds this job: a local holder while it runs, a holder on another
    machine for :data:`LEASE_SECONDS` (:mod:`qcstation.common.leases`)."""
    try:
        holder = Owner.from_record(json.loads(owner)) if owner else None
    except (ValueError, AttributeError):
        holder = None
    return not held_by_another(holder, leased_at, stale_after_s=LEASE_SECONDS,
                               local_pid_decides=True)


def claim(store: Store, set_id: int, n: int) -> list[dict[str, Any]]:
    """Lease up to ``n`` pending jobs of the set to this process: rows with ``id``,
    ``parent_id``."""
    me = owner_tag()
    with store.transaction():
        cur = store.conn.execute("SELECT id, parent_id, owner, leased_at FROM derive_jobs "
                                 "WHERE set_id = ? AND status = 'pending' ORDER BY id", (set_id,))
        # this process's own leases are batches it is building now: not free. The rows are
        # read as a stream, up to the n-th free one: the pending jobs of a large set are
        # many (a million seeds), and a claim holds only what it skips and takes
        try:
            free = [dict(r) for r in itertools.islice(
                (r for r in cur if r["owner"] != me and _lease_free(r["owner"], r["leased_at"])),
                max(0, n))]
        finally:
            cur.close()
        if free:
            stamp = now()
            ids = [int(r["id"]) for r in free]
            store.execute(f"UPDATE derive_jobs SET owner = ?, leased_at = ? "
                          f"WHERE id IN ({','.join('?' * len(ids))})", [me, stamp, *ids])
    return free


def release_leases(store: Store, set_id: int) -> None:
    """Give back this process's leases on jobs it did not finish (a clean stop)."""
    with store.transaction():
        store.execute("UPDATE derive_jobs SET owner = NULL, leased_at = NULL WHERE set_id = ? "
                      "AND status = 'pending' AND owner = ?", (set_id, owner_tag()))


def parent_rows(store: Store, jobs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, dict[str, Any]]]]:
    """(seed row, dimension -> current usable artifact row: ``id``, ``status``, ``generator``,
    ``content``, ``flag_codes``; the Reasoning row also ``kept_rule``, the rules' result kept with
    the seed, (key, text) or None: :func:`~.rebuild.rule_of`) of each job's parent, read in three
    queries for all of them."""
    ids = [int(job["parent_id"]) for job in jobs]
    seeds: dict[int, dict[str, Any]] = {}
    latest: dict[tuple[int, str], tuple[int, dict[str, Any]]] = {}   # (seed, dim) -> (version, row)
    wanted = sorted(set(ids))
    for i in range(0, len(wanted), 500):
        part = wanted[i:i + 500]
        marks = ",".join("?" * len(part))
        for row in store.query(f"SELECT * FROM seeds WHERE id IN ({marks})", part):
            seeds[int(row["id"])] = row
        for seed_id, dim, version, aid, status, generator, content, codes in store.conn.execute(
                f"SELECT seed_id, dimension, version, id, status, generator, content, flag_codes FROM artifacts "
                f"WHERE seed_id IN ({marks}) AND status != 'superseded'", part):
            known = latest.get((seed_id, dim))
            if known is None or version > known[0]:
                latest[(seed_id, dim)] = (version, {"id": aid, "status": status, "generator": generator,
                                                    "content": content, "flag_codes": codes})
    kept = rule_results(store, wanted)
    out = []
    for seed_id in ids:
        arts: dict[str, dict[str, Any]] = {}
        for dim in DIMENSIONS:
            found = latest.get((seed_id, dim))
            if found is not None and found[1]["status"] in USABLE_STATUSES:
                arts[dim] = dict(found[1])
        if "reasoning" in arts:
            arts["reasoning"]["kept_rule"] = kept.get(seed_id)
        out.append((dict(seeds.get(seed_id) or {}), arts))
    return out


def _orig_id(parent: dict[str, Any], set_name: str, tag: str) -> str:
    return f"{parent['orig_id']}~{set_name}.{tag}"


#: the columns written for a derived item (``derived_items`` as :func:`write_batch` fills it)
_ITEM_COLUMNS = ("seed_id", "set_id", "parent_id", "transform", "family", "level", "idx", "tag",
                 "params", "answer_value", "dimensions", "ops", "created_at")
_SEED_COLUMNS = ("source", "orig_id", "question", "answer_text", "answer_value", "solution",
                 "equation", "level", "status", "content_hash", "meta", "import_file",
                 "import_line", "imported_at", "steps")
_ART_COLUMNS = ("seed_id", "dimension", "version", "status", "content", "generator", "model",
                "prompt_version", "verify_result", "created_at", "updated_at")
#: SQLite gives a new row the largest rowid + 1 until this one is taken (then a random one)
_MAX_ROWID = 2 ** 63 - 1
_JSON = json.JSONEncoder(sort_keys=True, default=str)   # as Store.insert writes a dict or list


def _db(value: Any) -> Any:
    """``value`` as :meth:`Store.insert` stores it (``db.store._to_db``)."""
    if isinstance(value, (dict, list)):
        return _JSON.encode(value)
    if isinstance(value, str):
        return storable_text(value)
    return value


def encode_contents(item: DerivedItem) -> None:
    """Move ``item``'s contents to ``item.stored`` as the JSON text they are stored as, where
    that text is final: not Arithmetic next to a Reasoning artifact (its stored content adds
    that artifact's id), not a content without its flags (the audit reads the dict). Run by
    the worker that built the item: the main process then neither unpickles nor encodes them."""
    keep = "arithmetic" if "reasoning" in item.contents else None
    for dim in [d for d in item.contents if d != keep and d in item.flags]:
        item.stored[dim] = _JSON.encode(item.contents.pop(dim))


def _seed_meta(parent: dict[str, Any]) -> dict[str, Any]:
    """What a derived seed's ``meta`` keeps of its parent's (its solution format)."""
    meta = from_json(parent.get("meta")) or {}
    return {k: v for k, v in meta.items() if k == "solution_format"}


def _content_hash(item: DerivedItem) -> str:
    return hashlib.sha256(f"{item.question}\x00{item.answer_text}".encode()).hexdigest()


def _not_repeated(store: Store, info: SetInfo, out: JobOutcome,
                  asked: dict[tuple[str, str], str]) -> list[DerivedItem]:
    """The items of ``out`` whose question no other parent's item of the set asks (stored
    before, or earlier in this batch); each other one joins ``out.refused`` as ``repeated``.
    The runner refuses a parent's own repeats (:func:`.runner.build_job`); two parents can
    give one question too: GSM8K 1105 and 1164 are both "a x b x c" in notation, and their
    digits ladders drew 2, 9 and 8 at one significant digit, so a per-level curve counted one
    question twice. An errors-ladder item asks its parent's question by design (its chain
    differs), so it is not compared."""
    kept = []
    for item in out.items:
        if item.transform == "errors":
            kept.append(item)
            continue
        key = (item.transform, _content_hash(item))
        same = asked.get(key)
        if same is None:
            # the seeds with this question first (seeds_source_hash), then whether one is an
            # item of the set: SQLite's own choice walked every item of the set (its unique
            # key's set_id) and looked each one's seed up, at every item stored (a set's
            # storing quadratic in its size: ~3 ms an item at 2,700 items, against 0.02)
            row = store.conn.execute(
                "SELECT s.orig_id FROM seeds s CROSS JOIN derived_items d ON d.seed_id = s.id "
                "WHERE s.source = ? AND s.content_hash = ? AND d.set_id = ? AND d.transform = ? "
                "LIMIT 1", (out.parent["source"], key[1], info.id, item.transform)).fetchone()
            same = None if row is None else str(row[0])
        if same is not None:
            out.refused.append(Refused(item.transform, "repeated",
                                       f"the same question as item {same} of this set", item.idx))
            continue
        asked[key] = _orig_id(out.parent, info.name, item.tag)
        kept.append(item)
    return kept


def _seed_values(info: SetInfo, parent: dict[str, Any], kept: dict[str, Any], item: DerivedItem,
                 stamp: str) -> tuple[Any, ...]:
    """The ``seeds`` row of ``item`` (:data:`_SEED_COLUMNS`), as stored."""
    meta = {**kept, "derived": {"set": info.name, "parent": f"{parent['source']}-{parent['orig_id']}",
                                "transform": item.transform}}
    return (_db(parent["source"]), _db(_orig_id(parent, info.name, item.tag)), _db(item.question),
            _db(item.answer_text), _db(fmt(item.answer)), _db(item.solution), None,
            _db(parent["level"]), "derived", _content_hash(item),
            _JSON.encode(meta), None, None, stamp, _db(item.ops))


def _insert(store: Store, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> int:
    """Insert ``rows`` (values as stored, in the order of ``columns``) as multi-row statements,
    in order; the rowid of the last one (0: none)."""
    per = max(1, min(ROWS_PER_INSERT, MAX_VARIABLES // len(columns)))
    head = f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
    mark = "(" + ", ".join("?" * len(columns)) + ")"
    last = 0
    for i in range(0, len(rows), per):
        chunk = rows[i:i + per]
        cur = store.conn.execute(head + ", ".join([mark] * len(chunk)),
                                 [v for row in chunk for v in row])
        last = int(cur.lastrowid or 0)
    return last


def _insert_runs(store: Store, table: str, rows: list[tuple[tuple[str, ...], tuple[Any, ...]]]) -> int:
    """Insert ``rows`` ((columns, values) each), in order, a run of rows with the same
    columns at a time; the rowid of the last one (0: none)."""
    last = start = 0
    for end in range(1, len(rows) + 1):
        if end == len(rows) or rows[end][0] != rows[start][0]:
            last = _insert(store, table, rows[start][0], [v for _, v in rows[start:end]])
            start = end
    return last


def _next_id(store: Store, table: str) -> int:
    """The rowid SQLite gives the next row of ``table`` (its largest + 1; none: 1)."""
    return int(store.scalar(f"SELECT COALESCE(MAX(rowid), 0) FROM {table}")) + 1


def write_batch(store: Store, info: SetInfo, outcomes: list[JobOutcome],
                verified: dict[int, dict[str, dict[str, Any]]]) -> tuple[int, int]:
    """Store the outcomes of leased jobs (see the module docstring); ``verified`` maps
    ``id(item)`` to the Z3 results per dimension. Jobs another process finished meanwhile
    are skipped. Returns (items stored, jobs finished).

    The batch's rows go in as one multi-row INSERT per table (seeds, then derived items,
    then artifacts, each in item order) instead of six statements per item: every row gets
    the id it would get one at a time (the largest + 1, under this transaction's write lock;
    checked after the insert), and the counting triggers see the same rows before each one."""
    me = owner_tag()
    stored = finished = 0
    with store.transaction():
        stamp = now()
        wanted = sorted({out.job_id for out in outcomes})
        jobs: dict[int, tuple[str, str | None]] = {}
        for i in range(0, len(wanted), 500):
            part = wanted[i:i + 500]
            for jid, status, owner in store.conn.execute(
                    f"SELECT id, status, owner FROM derive_jobs WHERE id IN ({','.join('?' * len(part))})",
                    part):
                jobs[int(jid)] = (status, owner)
        seed_id = _next_id(store, "seeds")
        art_id = _next_id(store, "artifacts")
        first_seed, first_art = seed_id, art_id
        seeds: list[tuple[Any, ...]] = []
        items: list[tuple[Any, ...]] = []
        arts: list[tuple[tuple[str, ...], tuple[Any, ...]]] = []
        updates: list[Any] = []
        flag_cols: tuple[str, ...] = ()
        art_cols: tuple[str, ...] = _ART_COLUMNS
        asked: dict[tuple[str, str], str] = {}     # (transform, content hash) -> orig_id, this batch
        for out in outcomes:
            job = jobs.pop(out.job_id, None)      # popped: a job twice in the batch is done once
            if job is None or job[0] != "pending" or (job[1] and job[1] != me):
                continue
            parent = out.parent
            out.items[:] = _not_repeated(store, info, out, asked)
            kept = _seed_meta(parent) if out.items else {}
            parent_id = int(parent["id"]) if out.items else 0
            for item in out.items:
                answer = fmt(item.answer)
                seeds.append(_seed_values(info, parent, kept, item, stamp))
                items.append((seed_id, info.id, parent_id, _db(item.transform), _db(item.family),
                              _db(item.level), _db(item.idx), _db(item.tag), _db(item.params),
                              _db(answer), _db(item.dimensions), _db(item.ops), stamp))
                results = verified.get(id(item), {})
                reasoning_id = None
                for dim in ("reasoning", "understanding", "refinement", "arithmetic"):
                    text = item.stored.get(dim)       # encoded by the worker, with its flags
                    if text is None:
                        content = item.contents.get(dim)
                        if content is None:
                            continue
                        if dim == "arithmetic" and reasoning_id is not None:
                            content = {**content, "source_artifact_id": reasoning_id}
                        text = _db(content)
                        flags = item.flags.get(dim) or stored_flags(dim, content, {
                            "question": item.question, "solution": item.solution or "",
                            "answer_value": answer})
                    elif dim == "arithmetic" and reasoning_id is not None:
                        raise ValueError("an Arithmetic content beside a Reasoning artifact is "
                                         "stored with that artifact's id: it cannot come encoded")
                    else:
                        flags = item.flags[dim]
                    if dim == "reasoning":
                        reasoning_id = art_id
                    result = results.get(dim) or item.results.get(dim) or {"status": "verified"}
                    if tuple(flags) != flag_cols:      # the same columns each time (one run)
                        flag_cols = tuple(flags)
                        art_cols = _ART_COLUMNS + flag_cols
                    arts.append((art_cols, (seed_id, dim, 1, "verified", text,
                                            _db(item.generators.get(dim, "rule:derive")), None,
                                            None, _db(result), stamp, stamp,
                                            *[_db(v) for v in flags.values()])))
                    art_id += 1
                seed_id += 1
                stored += 1
            detail = [{"transform": r.transform, "code": r.code, "reason": r.reason, "idx": r.idx}
                      for r in out.refused]
            updates.append(("done" if out.items else "refused", len(out.items), len(out.refused),
                            out.reason, json.dumps(detail, sort_keys=True), stamp, out.job_id))
            finished += 1
        if max(seed_id, art_id) - 1 > _MAX_ROWID:
            raise DeriveError("the database has no row ids left for this batch", title="Database full")
        last_seed = _insert(store, "seeds", _SEED_COLUMNS, seeds)
        _insert(store, "derived_items", _ITEM_COLUMNS, items)
        last_art = _insert_runs(store, "artifacts", arts)
        if (seeds and last_seed != seed_id - 1) or (arts and last_art != art_id - 1):
            raise DeriveError(f"rows got other ids than expected (seeds {first_seed}..{last_seed}, "
                              f"artifacts {first_art}..{last_art}); nothing was stored",
                              title="Unexpected row ids")
        store.conn.executemany(
            "UPDATE derive_jobs SET status = ?, owner = NULL, leased_at = NULL, made = ?, "
            "refused = ?, reason = ?, detail = ?, finished_at = ? WHERE id = ?",
            [[_db(v) for v in u] for u in updates])
    return stored, finished
