"""Self-check flags as release blockers, and a curator's override of them.

A flag (:mod:`qcstation.core.construct.check.selfcheck`, stored with each artifact when it is made,
or by ``qcstation audit``) says the checks found something Z3 cannot: a formula that states
the answer, a number the question does not state, a fix whose meaning differs. Any flag on the
current, verified or accepted artifact of a seed that a release would take blocks that release
(:func:`flag_blockers`) until a curator overrides it with a reason (:func:`override_flags`),
or the item is fixed, regenerated or excluded. Flag codes are treated alike: a code another
part of the project adds blocks as every other does.

An override names the artifact and the flag codes it saw (``flag_overrides``, migration 16):
when the artifact is re-audited and its flags change, the override no longer applies. The
release records each overridden flag with who overrode it, when and why
(:func:`record_flags`), and its export carries them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from db.artifacts import flag_overrides, override_in_force
from db.store import Store, from_json, now
from qcstation.common.errors import ReviewError
from qcstation.common.identity import require_curator
from qcstation.common.safe import one_line, printable
from qcstation.common.vocab import DIMENSIONS, USABLE_STATUSES
from qcstation.core.review.items import find_seed, item_key, made_by_text
from qcstation.core.review.queries import _SCOPE_SEEDS

__all__ = ["FlaggedItem", "flagged_items", "flag_blockers", "override_flags", "undo_override",
           "record_flags", "MAX_REASON_CHARS"]

MAX_REASON_CHARS = 1000
_SHOWN = 8   # flagged items named in one blocker line


@dataclass
class FlaggedItem:
    """A flagged current artifact of a seed a release would take."""

    seed_id: int
    key: str
    dimension: str
    artifact_id: int
    status: str
    flag_codes: str
    flags: list[dict[str, Any]] = field(default_factory=list)
    made_by: str = ""
    override: dict[str, Any] | None = None   # the curator's override in force, if any

    @property
    def codes(self) -> list[str]:
        return sorted({str(f.get("code")) for f in self.flags if isinstance(f, dict)}
                      or {c.split(":")[0] for c in self.flag_codes.split() if c})

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["codes"] = self.codes
        return d


def _flag_list(raw: Any) -> list[dict[str, Any]]:
    flags = from_json(raw) if isinstance(raw, str) else raw
    if not isinstance(flags, list):
        return []
    return [{"code": str(f.get("code")), "message": str(f.get("message") or "")}
            for f in flags if isinstance(f, dict)]


def _flagged_dimensions(store: Store) -> list[str]:
    """The dimensions of the working set with any flagged, usable current artifact (the counts
    the database keeps; no artifact read)."""
    marks = ",".join("?" * len(USABLE_STATUSES))
    return [r["dimension"] for r in store.query(
        f"SELECT dimension FROM artifact_counts WHERE seed_status = 'active' "
        f"AND status IN ({marks}) AND flag_codes NOT IN ('', '~') GROUP BY dimension "
        f"HAVING SUM(n) > 0", tuple(USABLE_STATUSES))]


# flagged usable artifacts of one dimension that are current (no higher version that is not
# superseded), read from the covering index of (dimension, seed_id, version, status, ...,
# flag_codes) without grouping every seed of the dimension
_FLAGGED_SQL = """
    SELECT a.seed_id, a.id, a.status, a.flag_codes FROM artifacts a
    WHERE a.dimension = :dim AND a.status IN ({usable}) AND a.flag_codes IS NOT NULL
      AND a.flag_codes != '' {scope}
      AND NOT EXISTS (SELECT 1 FROM artifacts b WHERE b.dimension = a.dimension
                      AND b.seed_id = a.seed_id AND b.version > a.version
                      AND b.status != 'superseded')
"""


def flagged_items(store: Store, scope: str = "", *, only_blocking: bool = False
                  ) -> list[FlaggedItem]:
    """Every flagged current artifact (verified or accepted) of a seed that a release of
    ``scope`` would take now (all its required dimensions verified or accepted), in seed
    order, with the override in force (``only_blocking``: those without one)."""
    dims = _flagged_dimensions(store) if not scope else list(DIMENSIONS)
    if not dims:
        return []
    sql = _FLAGGED_SQL.format(usable=",".join(f"'{s}'" for s in USABLE_STATUSES),
                              scope=f"AND a.seed_id IN ({_SCOPE_SEEDS})" if scope else "")
    flagged: list[tuple[int, str, int, str, str]] = []
    for dim in dims:
        for r in store.query(sql, {"dim": dim, "scope": scope}):
            flagged.append((int(r["seed_id"]), dim, int(r["id"]), r["status"], r["flag_codes"]))
    if not flagged:
        return []
    seeds = _candidate_seeds(store, sorted({f[0] for f in flagged}), scope)
    overrides = flag_overrides(store, [f[2] for f in flagged])
    out: list[FlaggedItem] = []
    arts = _artifact_rows(store, [f[2] for f in flagged if f[0] in seeds])
    for seed_id, dim, art_id, status, codes in sorted(flagged):
        seed = seeds.get(seed_id)
        if seed is None:
            continue
        a = arts.get(art_id, {})
        ov = override_in_force(overrides.get(art_id), codes)
        if only_blocking and ov is not None:
            continue
        out.append(FlaggedItem(
            seed_id=seed_id, key=item_key(seed["source"], seed["orig_id"]), dimension=dim,
            artifact_id=art_id, status=status, flag_codes=codes, flags=_flag_list(a.get("flags")),
            made_by=made_by_text(a.get("generator"), a.get("model"), a.get("author"),
                                 a.get("prompt_version")),
            override=ov))
    return out


def _artifact_rows(store: Store, ids: list[int]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        for r in store.query(f"SELECT id, flags, generator, model, author, prompt_version "
                             f"FROM artifacts WHERE id IN ({','.join('?' * len(chunk))})", chunk):
            out[int(r["id"])] = dict(r)
    return out


def _candidate_seeds(store: Store, seed_ids: list[int], scope: str) -> dict[int, dict[str, Any]]:
    """Those of ``seed_ids`` a release of ``scope`` would take now: live in the scope, every
    required dimension's current artifact verified or accepted."""
    from qcstation.core.release.derived import required_dimensions

    out: dict[int, dict[str, Any]] = {}
    for i in range(0, len(seed_ids), 500):
        chunk = seed_ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        if scope:
            rows = store.query(
                f"SELECT s.id, s.source, s.orig_id, di.dimensions AS derive_dimensions "
                f"FROM derived_items di JOIN derive_sets ds ON ds.id = di.set_id "
                f"JOIN seeds s ON s.id = di.seed_id WHERE ds.name = ? AND s.status = 'derived' "
                f"AND s.id IN ({marks})", [scope, *chunk])
        else:
            rows = store.query(f"SELECT id, source, orig_id FROM seeds WHERE status = 'active' "
                               f"AND id IN ({marks})", chunk)
        status: dict[tuple[int, str], str] = {}
        for r in store.query(
                f"SELECT seed_id, dimension, status, MAX(version) AS v FROM artifacts "
                f"WHERE seed_id IN ({marks}) AND status != 'superseded' "
                f"GROUP BY seed_id, dimension", chunk):
            status[(int(r["seed_id"]), r["dimension"])] = r["status"]
        for r in rows:
            seed = dict(r)
            sid = int(seed["id"])
            if all(status.get((sid, d)) in USABLE_STATUSES for d in required_dimensions(seed)):
                out[sid] = seed
    return out


def flag_blockers(store: Store, scope: str = "") -> list[str]:
    """The release blocker lines for flagged items without an override ([] when none)."""
    items = flagged_items(store, scope, only_blocking=True)
    if not items:
        return []
    shown = ", ".join(f"{i.key} {i.dimension} ({', '.join(i.codes)})" for i in items[:_SHOWN])
    more = f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    opt = f" --set {scope}" if scope else ""
    return [f"{len(items)} flagged item{'s' if len(items) != 1 else ''} would be released: "
            f"{shown}{more}. Look at each (qcstation qc show ITEM, or qcstation release flags"
            f"{opt}), then fix, regenerate or exclude it, or override its flags with a reason: "
            f"qcstation release override ITEM --dimension DIM --reason TEXT (in the app: o on "
            f"the releases screen)"]


def _current(store: Store, seed_id: int, dimension: str) -> dict[str, Any]:
    row = store.one("SELECT id, status, flag_codes, flags FROM artifacts WHERE seed_id = ? AND "
                    "dimension = ? AND status != 'superseded' ORDER BY version DESC LIMIT 1",
                    (seed_id, dimension))
    if row is None:
        raise ReviewError(f"seed #{seed_id} has no current {dimension} artifact", title="Nothing to override")
    return dict(row)


def override_flags(store: Store, ref: Any, dimension: str, reason: str | None, *, actor: str,
                   curators: list[str] | tuple[str, ...] | None,
                   display: str | None = None) -> dict[str, Any]:
    """A curator lets the flags of the current ``dimension`` artifact of the seed ``ref``
    (``gsm8k-17``) through the release gate, with ``reason`` (required; recorded with who and
    when, and shown in the release). Returns what was recorded."""
    who = require_curator(actor, curators, "override self-check flags")
    why = " ".join(printable(str(reason or "")).split())[:MAX_REASON_CHARS]
    if not why:
        raise ReviewError("say why the flags do not stop this item (the reason is recorded and "
                          "shown in the release)", title="Reason required")
    if dimension not in DIMENSIONS:
        raise ReviewError(f"unknown dimension {dimension!r}; expected one of {', '.join(DIMENSIONS)}",
                          title="Unknown dimension")
    seed_id = find_seed(store, ref)
    with store.transaction():
        cur = _current(store, seed_id, dimension)
        codes = cur["flag_codes"] or ""
        if not codes:
            raise ReviewError(f"the current {dimension} artifact of {one_line(str(ref), 60)} has no "
                              f"flags; nothing to override", title="No flags")
        if cur["status"] not in USABLE_STATUSES:
            raise ReviewError(f"the current {dimension} artifact is {cur['status']}, not verified or "
                              f"accepted; it is not released anyway", title="Not releasable")
        oid = store.insert("flag_overrides", {
            "artifact_id": int(cur["id"]), "flag_codes": codes, "reason": why, "curator": who,
            "display_name": display if display is not None else store.display_name,
            "created_at": now()})
        detail = {"seed_id": seed_id, "dimension": dimension, "artifact_id": int(cur["id"]),
                  "flag_codes": codes, "reason": why, "override_id": oid}
        store.event(who, "release.flags_overridden", "artifact", int(cur["id"]), detail,
                    display=display)
    return detail


def undo_override(store: Store, ref: Any, dimension: str, *, actor: str,
                  curators: list[str] | tuple[str, ...] | None) -> dict[str, Any]:
    """Withdraw the active override of the current ``dimension`` artifact of ``ref``."""
    who = require_curator(actor, curators, "withdraw a flag override")
    seed_id = find_seed(store, ref)
    with store.transaction():
        cur = _current(store, seed_id, dimension)
        ov = flag_overrides(store, [int(cur["id"])]).get(int(cur["id"]))
        if ov is None:
            raise ReviewError(f"no override of the {dimension} flags of {one_line(str(ref), 60)} "
                              f"is in force", title="Nothing to undo")
        store.execute("UPDATE flag_overrides SET undone_at = ? WHERE artifact_id = ? AND "
                      "undone_at IS NULL", (now(), int(cur["id"])))
        detail = {"seed_id": seed_id, "dimension": dimension, "artifact_id": int(cur["id"]),
                  "override_id": int(ov["id"])}
        store.event(who, "release.flag_override_undone", "artifact", int(cur["id"]), detail)
    return detail


def record_flags(arts: dict[str, dict[str, Any]],
                 overrides: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """A release record's ``flags``: per dimension with flags, each flag (code, message) and
    the curator's override that let it through (who, when, why)."""
    out: dict[str, Any] = {}
    for dim, a in sorted(arts.items()):
        flags = _flag_list(a.get("flags"))
        if not flags:
            continue
        entry: dict[str, Any] = {"flags": flags}
        ov = override_in_force(overrides.get(int(a["id"])), a.get("flag_codes"))
        if ov is not None:
            entry["override"] = {"by": ov["curator"], "at": ov["created_at"],
                                 "reason": ov["reason"]}
        out[dim] = entry
    return out
