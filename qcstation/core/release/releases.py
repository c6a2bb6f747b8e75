"""Curator-approved, immutable, reproducible releases.

* :func:`release_blockers` lists in plain words why a release cannot be approved now.
* :func:`approve_release` (curators only, every QC gate passing) freezes one JSON record per
  releasable seed into ``release_items`` (the table refuses UPDATE and DELETE) together
  with a manifest (counts, exclusions, QC statistics, generator configuration).
* :func:`export_release` writes ``<out_root>/<name>/<version>/`` with ``data.jsonl`` (or one
  file per split, as the curator chose at approval: :mod:`.splits`), ``README.md``
  (datasheet, opening with the metadata block ``datasets.load_dataset`` reads) and
  ``manifest.json`` (sha256 of the other files). Everything is derived from the frozen rows,
  so exporting twice gives identical bytes. The export is recorded in the event log (what
  ``release list`` shows as "exported to"), except from a database opened read-only
  (:attr:`db.store.Store.read_only`: its folder is on a read-only mount), which exports all
  the same.
* :func:`diff_releases` compares two versions of a release record by record.

Which seeds go in: active seeds whose four dimensions (understanding, reasoning,
arithmetic, refinement) all have a current artifact in status ``verified`` or
``accepted``. Every other active seed is left out and listed in the manifest with the
reason per dimension (no artifact yet, not yet verified, failed verification, rejected in
QC and awaiting regeneration); filtered and duplicate seeds are never candidates and are
only counted. Seeds a curator excluded in QC (:func:`qcstation.core.review.curation.exclude_seed`,
status ``excluded``) are not candidates either; the manifest lists each of them under
``excluded.excluded_in_qc`` with the reason and who excluded it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from db.artifacts import flag_overrides
from db.store import Store, current_actor, from_json, now
from qcstation.common.identity import is_curator, norm
from exports.writers import (
    datasheet_markdown,
    dumps_canonical,
    jsonl_bytes,
    manifest_bytes,
    render_key_information,
    sha256_bytes,
    write_release_dir,
)
from qcstation.common.vocab import DIMENSIONS, KEYINFO_FIELDS, QC_DIMENSIONS, USABLE_STATUSES
from qcstation.core.release.latest import latest_release
from qcstation.core.release.derived import (
    check_scope,
    derived_fields,
    required_dimensions,
    scope_dimensions,
    scope_seeds,
    set_summary,
)
from qcstation.core.ingest.formats import licence_of
from qcstation.core.review.curation import excluded_seeds
from qcstation.core.release.flag_gate import flag_blockers, record_flags
from qcstation.core.release.splits import plan_splits, split_files
from qcstation.core.review.gate import DEFAULT_CONFIDENCE, DEFAULT_THRESHOLD, gate, progress
from qcstation.core.review.queries import (
    LIVE_SEED_STATUSES,
    counting_since,
    cur_sql,
    current_artifacts,
    qc_dimensions,
    rejected_sql,
)
from qcstation.core.review.sampling import DEFAULT_RATE, list_samples
from qcstation.core.review.team import agreement
from qcstation.core.construct.make.inject import ERROR_NAMES
from qcstation.common.safe import printable, spaced
from qcstation.common.errors import ReleaseError, os_reason

__all__ = [
    "FORMAT_VERSION",
    "RELEASE_DIMENSIONS",
    "QCPolicy",
    "qc_policy",
    "ReleaseInfo",
    "release_candidates",
    "candidate_counts",
    "candidate_counts_from_scratch",
    "release_blockers",
    "approve_release",
    "export_release",
    "release_records",
    "diff_releases",
    "previous_version",
    "latest_release",
    "list_releases",
    "get_release",
]

FORMAT_VERSION = 3
# 3: ``flags``: per dimension, the self-check flags of the released artifact and the
#    curator's override that let them through (who, when, why); the manifest counts them.
# 2: ``notation_smtlib`` is the SMT-LIB of the notation question itself (it held the
#    Reasoning SMT-LIB it was rendered from, the same as ``smt-lib``); ``wrong_names``
#    (the paper's names of the error types), ``wrong_answer`` (the final answer the
#    erroneous chain of thought states) are new; the datasheet names each source's licence.
RELEASE_DIMENSIONS: tuple[str, ...] = DIMENSIONS
RELEASABLE = USABLE_STATUSES
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
#: the most characters a release's notes may hold (the manifest and the datasheet carry them;
#: the approve dialog's field and ``release approve --notes`` alike)
NOTES_CHARS = 500
_EXCLUDE_REASONS = {
    None: "no artifact yet",
    "generated": "not yet verified",
    "failed": "failed verification",
    "rejected": "rejected in QC, awaiting regeneration",
}


@dataclass(frozen=True)
class QCPolicy:
    """The QC/release settings, from ``Config.qc`` or given directly (tests, scripts)."""

    curators: tuple[str, ...] = ()
    threshold: float = DEFAULT_THRESHOLD
    confidence: float = DEFAULT_CONFIDENCE
    dimensions: tuple[str, ...] = QC_DIMENSIONS
    sample_rate: float = DEFAULT_RATE
    rng_seed: int = 12345
    overlap_rate: float = 0.0
    min_sample: int = 5
    generator: dict[str, Any] | None = None   # config fingerprint of the generator model
    sample_model_reasoning: bool = True       # model-made Reasoning joins QC (queries.qc_dimensions)

    @classmethod
    def from_config(cls, cfg: Any) -> "QCPolicy":
        q = cfg.qc
        gen = None
        if getattr(cfg, "generator", None) is not None:
            from qcstation.common.config import config_fingerprint

            gen = config_fingerprint(cfg.generator)
        return cls(curators=tuple(q.curators), threshold=float(q.defect_threshold),
                   confidence=float(q.confidence), dimensions=tuple(q.dimensions),
                   sample_rate=float(q.sample_rate), rng_seed=int(q.rng_seed),
                   overlap_rate=float(q.overlap_rate), min_sample=int(q.min_sample),
                   generator=gen, sample_model_reasoning=bool(q.sample_model_reasoning))


def qc_policy(cfg: Any) -> QCPolicy:
    """A :class:`QCPolicy` from a ``Config`` (or a policy, returned as is)."""
    if isinstance(cfg, QCPolicy):
        return cfg
    if cfg is None or not hasattr(cfg, "qc"):
        raise ReleaseError("a configuration with a [qc] section is required")
    return QCPolicy.from_config(cfg)


@dataclass
class ReleaseInfo:
    id: int
    name: str
    version: str
    approved_by: str
    approved_at: str
    counts: dict[str, Any]
    export_dir: Path | None
    notes: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["export_dir"] = str(self.export_dir) if self.export_dir else None
        d.pop("manifest", None)
        return d


# -- candidates ---------------------------------------------------------------------------

def _exact_value(result: dict[str, Any] | None) -> str | None:
    if not result:
        return None
    v = result.get("value")
    if isinstance(v, bool):
        v = None
    if isinstance(v, (int, str)) and str(v).strip():
        return str(v).strip()
    t = result.get("value_text")
    return str(t).strip() if t not in (None, "") else None


def source_licence(source: str) -> str:
    """The licence of a seed source, from its format's record (:attr:`Format.licence`)."""
    return licence_of(source)


def _notation_own_smtlib(content: dict[str, Any]) -> str | None:
    """The SMT-LIB of the notation question itself, by the one rule verification uses
    (what Z3 checked for Arithmetic); None when it cannot be built."""
    from qcstation.core.construct.check.checks import notation_smtlib

    try:
        smt, problem = notation_smtlib(content)
    except (ValueError, RecursionError):
        return None
    return None if problem or not smt else smt


def _build_record(seed: dict[str, Any], arts: dict[str, dict[str, Any]],
                  overrides: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
    # a derived item may carry fewer than four dimensions: the others' fields are empty
    def content(dim: str) -> dict[str, Any]:
        return (from_json(arts[dim]["content"]) or {}) if dim in arts else {}

    und, rea, ari, ref = (content(d) for d in RELEASE_DIMENSIONS)
    errors = ref.get("errors")
    if not isinstance(errors, list):
        errors = []
    answer = None
    for dim in ("reasoning", "arithmetic"):
        if answer is None and dim in arts:
            answer = _exact_value(from_json(arts[dim]["verify_result"]))
    if answer is None and seed.get("derive_set"):
        answer = seed.get("answer_value")
    return {
        "id": f"{seed['source']}-{seed['orig_id']}",
        "seed_id": int(seed["id"]),
        "source": seed["source"],
        "orig_id": str(seed["orig_id"]),
        "difficulty": seed["level"],
        "question": seed["question"],
        "background": render_key_information(und) if und else None,
        "key_information": {k: und.get(k) for k in KEYINFO_FIELDS} if und else None,
        "smt-lib": rea.get("smtlib"),
        "answer": answer,
        "notation": ari.get("notation"),
        "notation_smtlib": _notation_own_smtlib(ari),
        "gt_answer": seed["answer_text"],
        "gt_cot": ref.get("gt_cot") or seed.get("solution"),
        "w_cot": ref.get("w_cot"),
        "wrong": [str(e.get("type")) for e in errors if isinstance(e, dict)],
        "wrong_names": [ERROR_NAMES.get(str(e.get("type")), str(e.get("type")))
                        for e in errors if isinstance(e, dict)],
        "wrong_answer": ref.get("wrong_answer"),
        "errors": errors,
        "provenance": {
            dim: {"artifact_id": int(a["id"]), "version": int(a["version"]), "status": a["status"],
                  "generator": a["generator"], "model": a["model"],
                  "prompt_version": a["prompt_version"],
                  # fixed in place by a reviewer: the account that wrote this version
                  **({"author": a["author"]} if a.get("author") else {})}
            for dim, a in sorted(arts.items())
        },
        "flags": record_flags(arts, overrides or {}),
        **derived_fields(seed),
    }


def release_candidates(store: Store, scope: str = "") -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(records that would be released now, seeds left out with reasons per dimension):
    active seeds, or the items of the derived set ``scope`` (:mod:`.derived`)."""
    current: dict[str, dict[int, dict[str, Any]]] = {
        dim: {int(a["seed_id"]): a for a in current_artifacts(store, dim, scope)}
        for dim in RELEASE_DIMENSIONS
    }
    records: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    overrides = flag_overrides(store, [int(a["id"]) for per in current.values()
                                         for a in per.values() if a.get("flag_codes")])
    for seed in scope_seeds(store, scope):
        sid = int(seed["id"])
        arts: dict[str, dict[str, Any]] = {}
        missing: dict[str, str] = {}
        for dim in required_dimensions(seed):
            a = current[dim].get(sid)
            if a is not None and a["status"] in RELEASABLE:
                arts[dim] = a
            else:
                status = None if a is None else a["status"]
                missing[dim] = _EXCLUDE_REASONS.get(status, f"status {status}")
        record = None if missing else _build_record(seed, arts, overrides)
        if record is not None and "arithmetic" in arts and not record["notation_smtlib"]:
            # every Arithmetic item ships with the SMT-LIB of its own question (what Z3 checked)
            missing["arithmetic"] = "the notation question has no SMT-LIB of its own"
        if missing or record is None:
            excluded.append({"seed_id": sid, "source": seed["source"],
                             "orig_id": str(seed["orig_id"]), "missing": missing})
        else:
            records.append(record)
    return records, excluded


# The working-set seeds a release takes, counted without building a record: active seeds
# whose current artifact (highest version not superseded) of every release dimension is
# releasable. One ordered pass over the covering index artifacts_dim_seed_flags picks the
# current artifact per (dimension, seed) (SQLite's min/max rule, as CUR_SQL), then the
# seeds with all of them releasable are counted.
_RELEASABLE_SEEDS_SQL = f"""
    SELECT COUNT(*) FROM (
        SELECT seed_id FROM (
            SELECT seed_id, status, MAX(version) FROM artifacts
            WHERE dimension IN ({", ".join(f"'{d}'" for d in RELEASE_DIMENSIONS)})
              AND status != 'superseded'
            GROUP BY dimension, seed_id)
        WHERE status IN ({", ".join(f"'{s}'" for s in RELEASABLE)})
        GROUP BY seed_id HAVING COUNT(*) = {len(RELEASE_DIMENSIONS)}) ok
    JOIN seeds s ON s.id = ok.seed_id WHERE s.status = 'active'
"""


def candidate_counts_from_scratch(store: Store) -> tuple[int, int]:
    """The working set's :func:`candidate_counts` by a scan of every artifact."""
    total = int(store.scalar("SELECT COUNT(*) FROM seeds WHERE status = 'active'") or 0)
    records = int(store.scalar(_RELEASABLE_SEEDS_SQL) or 0)
    return records, total - records


def candidate_counts(store: Store, scope: str = "") -> tuple[int, int]:
    """(records, seeds left out) as :func:`release_candidates` would return them, counted
    without building a record (which renders every notation question's SMT-LIB): SQL for
    the working set; a derived set, whose items carry their own dimensions, is read by
    status only."""
    if not scope:   # the counts the database keeps as artifacts and seeds change
        total = int(store.scalar("SELECT COALESCE(SUM(n), 0) FROM seed_counts "
                                 "WHERE status = 'active'") or 0)
        records = int(store.scalar("SELECT COALESCE(SUM(n), 0) FROM counters "
                                   "WHERE name = 'releasable_seeds'") or 0)
        return records, total - records
    current = {dim: {int(r["seed_id"]): r["status"] for r in store.query(
        f"SELECT seed_id, status FROM ({cur_sql(scope)})", {"dim": dim, "scope": scope})}
        for dim in RELEASE_DIMENSIONS}
    records = excluded = 0
    for seed in scope_seeds(store, scope):
        sid = int(seed["id"])
        if all(current[dim].get(sid) in RELEASABLE for dim in required_dimensions(seed)):
            records += 1
        else:
            excluded += 1
    return records, excluded


# -- blockers and approval ----------------------------------------------------------------

def _check_name(kind: str, value: str) -> str:
    if not isinstance(value, str) or not _NAME_RE.fullmatch(value) or value in (".", ".."):
        raise ReleaseError(f"release {kind} {printable(repr(value))[:80]} is not allowed: use letters, digits, '.', "
                           f"'_', '+' or '-' (it becomes a directory name)", title="Bad name")
    return value


class IdenticalReleaseError(ReleaseError):
    """The release would be byte-identical to the latest one of its name (ask to confirm)."""


def _gate_dimensions(store: Store, policy: QCPolicy, scope: str) -> tuple[str, ...]:
    """The dimensions whose QC gate a release needs: a derived set's (:mod:`.derived`), or the
    configured ones and Reasoning once a model made any (Z3 checks its value, not its
    meaning; :func:`qcstation.core.review.queries.qc_dimensions`)."""
    if scope:
        return scope_dimensions(store, scope, policy.dimensions)
    return qc_dimensions(store, policy.dimensions, policy.sample_model_reasoning)


def release_blockers(store: Store, cfg: Any, *, actor: str | None = None,
                     scope: str = "", counts: tuple[int, int] | None = None) -> list[str]:
    """Why a release cannot be approved now, in plain words ([] means it can).

    With ``actor``, also says so when that person is not a curator. ``scope`` names a
    derived set (a derived release; default: the working set): its items are made from the
    working set's seeds (their readings and formalizations), so a failing gate of the working
    set, their parent set, blocks it too (walk8: a derived release was approved while the
    working set's gate failed). ``counts`` is :func:`candidate_counts` when the caller has it
    already."""
    policy = qc_policy(cfg)
    blockers: list[str] = []
    if not policy.curators:
        blockers.append("no curators are configured: add curators = [\"account\"] under [qc]")
    elif actor is not None and not is_curator(actor, policy.curators):
        blockers.append(f"the account {actor} is not a curator (curators: "
                        f"{', '.join(policy.curators)})")
    where = f" of the derived set {scope}" if scope else ""
    for dim in _gate_dimensions(store, policy, scope):
        g = gate(store, dim, threshold=policy.threshold, confidence=policy.confidence, scope=scope)
        for b in g.blockers:
            blockers.append(f"{dim} QC gate{where}: {b}")
    if scope:
        for dim in _gate_dimensions(store, policy, ""):
            g = gate(store, dim, threshold=policy.threshold, confidence=policy.confidence)
            for b in g.blockers:
                blockers.append(f"{dim} QC gate of the parent set (the working set): {b}")
    blockers += flag_blockers(store, scope)
    records, _ = counts if counts is not None else candidate_counts(store, scope)
    if not records:
        blockers.append(f"no item of the derived set {scope} is verified or accepted" if scope
                        else "no seed has all four dimensions verified or accepted yet")
    return blockers


def _qc_section(store: Store, policy: QCPolicy, scope: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for dim in _gate_dimensions(store, policy, scope):
        g = gate(store, dim, threshold=policy.threshold, confidence=policy.confidence, scope=scope)
        ag = agreement(store, dim)
        samples = []
        for s in list_samples(store, dim, scope):
            p = s.params
            samples.append({
                "id": s.id, "round": s.round, "rng_seed": s.rng_seed, "rate": s.rate,
                "status": s.status, "size": s.size, "created_at": s.created_at,
                "created_by": s.created_by, "population": p.get("population"),
                "allocation": p.get("allocation"),
                "extensions": [{k: e.get(k) for k in ("asked", "added", "allocation")}
                               for e in p.get("extensions") or []],
                "progress": progress(store, s.id).to_dict(),
            })
        people = store.query(
            "SELECT DISTINCT r.annotator FROM reviews r JOIN sample_items si ON si.id = r.sample_item_id "
            "JOIN samples s ON s.id = si.sample_id WHERE s.dimension = ? AND s.scope = ? "
            "AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject') ORDER BY r.annotator",
            (dim, scope))
        decisions = store.scalar(
            "SELECT COUNT(*) FROM reviews r JOIN sample_items si ON si.id = r.sample_item_id "
            "JOIN samples s ON s.id = si.sample_id WHERE s.dimension = ? AND s.scope = ? "
            "AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')", (dim, scope))
        since = counting_since(store, dim, scope)
        fresh = next((x for x in samples if x["id"] == since), None) if since else None
        out[dim] = {"gate": g.to_dict(), "agreement": ag.to_dict(), "samples": samples,
                    # a fresh round after corrections: the gate counted that round on
                    "gate_counts_from_round": fresh["round"] if fresh else None,
                    "annotators": [r["annotator"] for r in people], "decisions": int(decisions),
                    "outcomes": _qc_outcomes(store, dim, scope)}
    return out


def _qc_outcomes(store: Store, dim: str, scope: str = "") -> dict[str, int]:
    """What became of the seeds with a rejected item of one dimension, each seed counted
    once by its fate (so the datasheet says only what happened, and the parts add up to the
    whole): excluded by a curator, fixed in place by a reviewer (the current version is
    human-made), regenerated (by a rule or a model) and accepted, or still open; plus the
    disagreements settled and the outcomes overridden by a curator."""
    rejected_seeds = sorted({int(r["seed_id"]) for r in store.query(
        "SELECT DISTINCT si.seed_id FROM sample_items si JOIN samples s ON s.id = si.sample_id "
        "WHERE s.dimension = ? AND s.scope = ? AND " + rejected_sql("si.id"), (dim, scope))})
    fate: Counter[str] = Counter()
    for start in range(0, len(rejected_seeds), 900):
        chunk = rejected_seeds[start:start + 900]
        marks = ",".join("?" * len(chunk))
        rows = store.query(
            f"SELECT sd.id AS seed_id, sd.status AS seed_status, a.generator, a.status, "
            f"a.replaces_id FROM seeds sd LEFT JOIN artifacts a ON a.id = ("
            f"SELECT x.id FROM artifacts x WHERE x.seed_id = sd.id AND x.dimension = ? "
            f"AND x.status != 'superseded' ORDER BY x.version DESC LIMIT 1) "
            f"WHERE sd.id IN ({marks})", [dim, *chunk])
        for r in rows:
            if r["seed_status"] not in LIVE_SEED_STATUSES:
                fate["excluded_in_qc"] += 1
            elif r["status"] in USABLE_STATUSES and r["generator"] == "human":
                fate["fixed_in_place"] += 1
            elif r["status"] in USABLE_STATUSES and r["replaces_id"] is not None:
                fate["regenerated"] += 1
            else:
                fate["open"] += 1
    resolutions = {r["kind"]: int(r["n"]) for r in store.query(
        "SELECT q.kind, COUNT(*) AS n FROM qc_resolutions q JOIN sample_items si "
        "ON si.id = q.sample_item_id JOIN samples s ON s.id = si.sample_id "
        "WHERE s.dimension = ? AND s.scope = ? AND q.undone_at IS NULL GROUP BY q.kind",
        (dim, scope))}
    return {"rejected_seeds": len(rejected_seeds), "regenerated": fate["regenerated"],
            "fixed_in_place": fate["fixed_in_place"], "excluded_in_qc": fate["excluded_in_qc"],
            "open": fate["open"],
            "settled": resolutions.get("settle", 0), "overridden": resolutions.get("override", 0)}


def _flag_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The released records' self-check flags: counts per dimension and code, and every
    curator override (item, dimension, who, when, why) that let flagged items through."""
    by_code: dict[str, Counter[str]] = {}
    overridden: list[dict[str, Any]] = []
    for r in records:
        for dim, entry in sorted((r.get("flags") or {}).items()):
            for f in entry.get("flags") or []:
                by_code.setdefault(dim, Counter())[str(f.get("code"))] += 1
            if entry.get("override"):
                overridden.append({"id": r["id"], "dimension": dim,
                                   "codes": sorted({str(f.get("code")) for f in entry["flags"]}),
                                   **entry["override"]})
    return {"records_flagged": sum(1 for r in records if r.get("flags")),
            "by_dimension": {d: dict(sorted(c.items())) for d, c in sorted(by_code.items())},
            "overridden": overridden}


def _generators(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    c: Counter[tuple[str, str, str, str]] = Counter()
    for r in records:
        for dim, p in r["provenance"].items():
            c[(dim, p["generator"] or "", p["model"] or "", p["prompt_version"] or "")] += 1
    return [{"dimension": d, "generator": g, "model": m or None, "prompt_version": pv or None,
             "records": n} for (d, g, m, pv), n in sorted(c.items())]


def approve_release(store: Store, name: str, version: str, *, actor: str, cfg: Any,
                    notes: str = "", allow_identical: bool = False,
                    scope: str = "", splits: str = "set") -> ReleaseInfo:
    """Approve and freeze a release. Only a curator may (the account, matched
    case-insensitively to ``[qc] curators``); every QC gate must pass. A release whose data
    is identical to the latest release of the same name is refused unless
    ``allow_identical`` (the curator confirmed it). ``scope`` names a derived set: a
    *derived release* of its items (:mod:`.derived`). ``splits`` is how the exported folder
    splits the records for ``datasets.load_dataset`` (:mod:`.splits`: ``set`` or, for a
    derived release, ``family``)."""
    _check_name("name", name)
    plan_splits([], splits, scope)   # a choice that cannot fit is refused before anything
    _check_name("version", version)
    if len(notes) > NOTES_CHARS:
        raise ReleaseError(f"the notes are {len(notes)} characters long; at most {NOTES_CHARS}",
                           title="Notes too long")
    policy = qc_policy(cfg)
    actor = _approver(policy, actor)
    with store.transaction():
        check_scope(store, name, scope)
        if store.one("SELECT id FROM releases WHERE name = ? AND version = ?", (name, version)):
            raise ReleaseError(f"release {name}@{version} already exists and releases are "
                               f"immutable; choose a new version", title="Release exists")
        blockers = release_blockers(store, policy, actor=actor, scope=scope)
        if blockers:
            raise ReleaseError("cannot approve the release yet:\n- " + "\n- ".join(blockers),
                               title="Release blocked")
        records, excluded = release_candidates(store, scope)
        if not allow_identical:
            _refuse_identical(store, name, records, splits)
        manifest = _manifest(store, policy, records, excluded, name=name, version=version,
                             actor=actor, notes=notes, scope=scope, splits=splits)
        rid = store.insert("releases", {
            "name": name, "version": version, "status": "approved", "approved_by": actor,
            "approved_at": manifest["approved_at"], "manifest": dumps_canonical(manifest),
            "notes": notes or "", "scope": scope,
        })
        store.insert_many("release_items", ({"release_id": rid, "seed_id": r["seed_id"],
                                             "record": dumps_canonical(r)} for r in records))
        store.event(actor, "release.approved", "release", rid, {
            "name": name, "version": version, "records": len(records), "excluded": len(excluded),
            "data_sha256": manifest["data_sha256"],
        })
    return get_release(store, name, version)


def _approver(policy: QCPolicy, actor: str) -> str:
    """The curator approving (normalised), or :class:`ReleaseError`."""
    if not policy.curators:
        raise ReleaseError("no curators are configured; add curators = [\"name\"] under [qc]",
                           title="Not allowed")
    if not is_curator(actor, policy.curators):
        raise ReleaseError(f"only a curator can approve a release; the account {actor} is not "
                           f"one (curators: {', '.join(policy.curators)}; --annotator only "
                           f"changes the name shown)", title="Not allowed")
    return norm(actor)


def _refuse_identical(store: Store, name: str, records: list[dict[str, Any]],
                      splits: str = "set") -> None:
    """The same data in the same split layout as the latest release of ``name`` is refused;
    a new layout of the same data is a new version (the layout is part of the release)."""
    last = store.one("SELECT id, version, manifest FROM releases WHERE name = ? "
                     "ORDER BY approved_at DESC, id DESC LIMIT 1", (name,))
    if last is None:
        return
    manifest = json.loads(last["manifest"]) or {}
    if (manifest.get("split_by") or "set") != splits:
        return
    if manifest.get("data_sha256") == sha256_bytes(jsonl_bytes(records)):
        raise IdenticalReleaseError(
            f"the data is identical to {name}@{last['version']}: nothing changed since. "
            f"Approve anyway only if you mean to (confirm in the app, or "
            f"--allow-identical)", title="Identical release")


def _manifest(store: Store, policy: QCPolicy, records: list[dict[str, Any]],
              excluded: list[dict[str, Any]], *, name: str, version: str, actor: str,
              notes: str, scope: str = "", splits: str = "set") -> dict[str, Any]:
    """The manifest frozen with a release: counts, exclusions, QC statistics, policy,
    generators, licences and the data's sha256."""
    by_reason: Counter[str] = Counter()
    for e in excluded:
        for dim, why in e["missing"].items():
            by_reason[f"{dim}: {why}"] += 1
    inactive = {r["status"]: int(r["n"]) for r in store.query(
        "SELECT status, COUNT(*) AS n FROM seeds WHERE status != 'active' AND status != 'derived' "
        "AND id NOT IN (SELECT seed_id FROM derived_items) GROUP BY status")} if not scope else {}
    in_qc = excluded_seeds(store, scope)
    derived = {"derived": set_summary(store, scope)} if scope else {}
    planned = plan_splits(records, splits, scope)
    by_family = ({"by_family": dict(sorted(Counter(str(r.get("family")) for r in records).items()))}
                 if scope else {})
    return {
        **derived,
        "name": name, "version": version, "approved_by": actor, "approved_at": now(),
        "notes": notes or "", "format_version": FORMAT_VERSION,
        "schema_version": store.schema_version,
        "files_order": [s["path"] for s in planned] + ["README.md", "manifest.json"],
        "split_by": splits, "splits": planned,
        "counts": {
            "records": len(records),
            "by_source": dict(sorted(Counter(r["source"] for r in records).items())),
            "by_difficulty": dict(sorted(Counter(r["difficulty"] for r in records).items())),
            "excluded": len(excluded),
            "excluded_in_qc": len(in_qc),
            "inactive_seeds": dict(sorted(inactive.items())),
            **by_family,
        },
        "excluded": {"count": len(excluded), "by_reason": dict(sorted(by_reason.items())),
                     "seeds": excluded,
                     "excluded_in_qc": {"count": len(in_qc), "seeds": in_qc}},
        "qc": _qc_section(store, policy, scope),
        "qc_policy": {"threshold": policy.threshold, "confidence": policy.confidence,
                      "dimensions": list(policy.dimensions), "curators": list(policy.curators),
                      "sample_rate": policy.sample_rate},
        "generators": _generators(records),
        "flags": _flag_summary(records),
        "licences": {src: source_licence(src) for src in sorted({r["source"] for r in records})},
        "generator_config": policy.generator,
        "data_sha256": sha256_bytes(jsonl_bytes(records)),
    }


# -- reading, export, diff ----------------------------------------------------------------

def _release_row(store: Store, name: str, version: str) -> dict[str, Any]:
    row = store.one("SELECT * FROM releases WHERE name = ? AND version = ?", (name, version))
    if row is None:
        known = [r["version"] for r in store.query(
            "SELECT version FROM releases WHERE name = ? ORDER BY approved_at, id", (name,))]
        hint = f"; versions of {name}: {', '.join(known)}" if known else ""
        raise ReleaseError(f"no release {name}@{version}{hint}", title="No such release")
    return row


def _export_dir(store: Store, release_id: int) -> Path | None:
    ev = store.one("SELECT detail FROM events WHERE action = 'release.exported' AND entity = 'release' "
                   "AND entity_id = ? ORDER BY id DESC LIMIT 1", (release_id,))
    if ev is None:
        return None
    d = (from_json(ev["detail"]) or {}).get("dir")
    return Path(d) if d and Path(d).is_dir() else None


def _info(store: Store, row: dict[str, Any]) -> ReleaseInfo:
    manifest = from_json(row["manifest"]) or {}
    return ReleaseInfo(id=int(row["id"]), name=row["name"], version=row["version"],
                       approved_by=row["approved_by"], approved_at=row["approved_at"],
                       counts=manifest.get("counts", {}), export_dir=_export_dir(store, int(row["id"])),
                       notes=row["notes"] or "", manifest=manifest)


def get_release(store: Store, name: str, version: str) -> ReleaseInfo:
    return _info(store, _release_row(store, name, version))


def list_releases(store: Store) -> list[ReleaseInfo]:
    return [_info(store, r) for r in store.query("SELECT * FROM releases ORDER BY name, approved_at, id")]


def release_records(store: Store, name: str, version: str) -> list[dict[str, Any]]:
    """The frozen records of a release, in seed order."""
    row = _release_row(store, name, version)
    return [json.loads(r["record"]) for r in store.query(
        "SELECT record FROM release_items WHERE release_id = ? ORDER BY seed_id", (int(row["id"]),))]


def export_release(store: Store, name: str, version: str, out_root: Path = Path("exports")) -> Path:
    """Write ``<out_root>/<name>/<version>/{data.jsonl, README.md, manifest.json}`` (one
    ``<split>.jsonl`` per derived family instead of ``data.jsonl`` when the curator split the
    release by family, :mod:`.splits`).

    Built only from the frozen release rows: identical bytes on every export."""
    row = _release_row(store, name, version)
    _check_name("name", name)
    _check_name("version", version)
    manifest = from_json(row["manifest"]) or {}
    records = release_records(store, name, version)
    data = jsonl_bytes(records)
    if manifest.get("data_sha256") and manifest["data_sha256"] != sha256_bytes(data):
        raise ReleaseError(f"release {name}@{version}: the stored records do not match the "
                           f"checksum recorded at approval", title="Release corrupted")
    readme = datasheet_markdown(manifest).encode("utf-8")
    out = Path(out_root) / name / version
    parts = split_files(manifest, records)
    datas = {path: jsonl_bytes(part) for path, part in parts.items()}
    files: dict[str, dict[str, Any]] = {
        path: {"sha256": sha256_bytes(b), "bytes": len(b), "records": len(parts[path])}
        for path, b in datas.items()}
    files["README.md"] = {"sha256": sha256_bytes(readme), "bytes": len(readme)}
    full = dict(manifest)
    full["files"] = files
    man = manifest_bytes(full)
    try:
        out = write_release_dir(Path(out_root), name, version,
                                {**datas, "README.md": readme, "manifest.json": man})
    except OSError as exc:
        raise ReleaseError(f"cannot write the export to {out}: {os_reason(exc)}; nothing "
                           "was left half-written", title="Export failed") from exc
    if not store.read_only:   # a database on a read-only mount exports without recording it
        store.event(current_actor(), "release.exported", "release", int(row["id"]), {
            "name": name, "version": version, "dir": str(out.resolve()),
            "files": {**files, "manifest.json": {"sha256": sha256_bytes(man), "bytes": len(man)}},
        })
    return out


def previous_version(store: Store, name: str, version: str) -> str | None:
    """The version of ``name`` approved just before ``version`` (None for the first)."""
    row = _release_row(store, name, version)
    prev = store.one("SELECT version FROM releases WHERE name = ? AND (approved_at < ? OR "
                     "(approved_at = ? AND id < ?)) ORDER BY approved_at DESC, id DESC LIMIT 1",
                     (name, row["approved_at"], row["approved_at"], int(row["id"])))
    return None if prev is None else prev["version"]


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           sort_keys=True, default=str)
    text = spaced(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def what_changed(path: str, old: Any, new: Any, depth: int = 0) -> list[str]:
    """Plain lines saying what changed in one field of a record: nested objects by key
    (``provenance.generator: rule:notation → human``), texts around their first difference."""
    if isinstance(old, dict) and isinstance(new, dict) and depth < 3:
        out: list[str] = []
        for k in sorted(old.keys() | new.keys(), key=str):
            if old.get(k) != new.get(k):
                out.extend(what_changed(f"{path}.{k}", old.get(k), new.get(k), depth + 1))
        return out
    if old is None:
        return [f"{path}: added {_short(new)}"]
    if new is None:
        return [f"{path}: removed (was {_short(old)})"]
    if isinstance(old, str) and isinstance(new, str) and (len(old) > 60 or len(new) > 60):
        start = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y),
                     min(len(old), len(new)))
        lo = max(0, start - 20)
        cut_old, cut_new = old[lo:lo + 50], new[lo:lo + 50]
        pre = "…" if lo else ""
        return [f"{path}: {pre}{_short(cut_old)}… → {pre}{_short(cut_new)}…"]
    return [f"{path}: {_short(old)} → {_short(new)}"]


def diff_releases(store: Store, name: str, old: str, new: str) -> dict[str, Any]:
    """Seeds added, removed and changed (with the changed fields) from ``old`` to ``new``."""
    a = {int(r["seed_id"]): r for r in release_records(store, name, old)}
    b = {int(r["seed_id"]): r for r in release_records(store, name, new)}
    changed = []
    by_field: Counter[str] = Counter()
    for sid in sorted(a.keys() & b.keys()):
        fields = sorted(k for k in a[sid].keys() | b[sid].keys() if a[sid].get(k) != b[sid].get(k))
        if fields:
            by_field.update(fields)
            changes: list[str] = []
            for k in fields:
                changes.extend(what_changed(k, a[sid].get(k), b[sid].get(k)))
            changed.append({"seed_id": sid, "id": b[sid]["id"], "fields": fields,
                            "changes": changes[:20]})
    added = sorted(b.keys() - a.keys())
    removed = sorted(a.keys() - b.keys())
    return {
        "name": name, "old": old, "new": new,
        "added": added, "removed": removed, "changed": changed,
        "changed_by_field": dict(sorted(by_field.items())),
        "added_ids": [b[s]["id"] for s in added], "removed_ids": [a[s]["id"] for s in removed],
        "unchanged": len(a.keys() & b.keys()) - len(changed),
        "counts": {"old": len(a), "new": len(b), "added": len(added), "removed": len(removed),
                   "changed": len(changed)},
    }
