"""A sampled item as people review it: :class:`ReviewItem`, read by :func:`get_item` and
:func:`list_items` with its seed, artifact, active decisions and a curator's resolution.

Items are named as in releases and evaluation runs (:func:`item_key`: ``gsm8k-17``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from db.artifacts import flag_overrides, override_in_force, reject_feedback
from db.store import Store, from_json
from qcstation.common.errors import ReviewError
from qcstation.common.vocab import FINAL_VERDICTS
from qcstation.core.review.queries import active_resolutions, active_reviews, rejected_sql

__all__ = ["ReviewItem", "row_number", "item_key", "made_by_text", "flag_lines", "ITEM_SQL", "build_items", "get_item", "list_items",
           "find_seed", "find_item"]


@dataclass
class ReviewItem:
    """One sampled item with everything the review screen shows and the rooms decide on."""

    item_id: int
    sample_id: int
    seed_id: int
    artifact_id: int
    dimension: str
    source: str
    position: int
    overlap: bool
    question: str
    gold_answer: str
    content: dict[str, Any]
    verify_result: dict[str, Any] | None
    artifact_version: int
    replaces_id: int | None
    smtlib: str | None  # the verified SMT-LIB behind a notation question, if any
    # additions (not in the original contract) -------------------------------------------
    orig_id: str = ""
    level: str = ""
    artifact_status: str = ""
    claimed_by: str | None = None
    claimed_at: str | None = None
    requeued: bool = False  # a regenerated replacement of a rejected item
    decisions: list[dict[str, Any]] = field(default_factory=list)  # active reviews, oldest first
    seed_status: str = ""   # active, or excluded (see exclude_seed) / filtered / duplicate
    replaces_reason: str | None = None  # why the version this one replaces was rejected
    resolution: dict[str, Any] | None = None  # a curator's active override or settlement
    solution: str = ""      # the seed's gold solution (key information is judged against it)
    author: str | None = None  # the account that fixed this version in place (human-made)
    flags: list[dict[str, Any]] | None = None  # self-check flags stored with it (None: not audited)
    scope: str = ""         # the set sampled: '' the working set, else a derived set's name
    generator: str = ""     # who or what made this version: 'rule:...', 'model', 'human'
    model: str | None = None          # the generator model's name, for a model-made version
    prompt_version: str | None = None
    attempt_no: int | None = None     # the generation attempt that made this version
    attempts: int = 0                 # generation attempts recorded for this seed and dimension
    flag_override: dict[str, Any] | None = None  # a curator's override of these flags, in force

    @property
    def key(self) -> str:
        """The id people use: the source and its original id (``gsm8k-17``), as in releases."""
        return item_key(self.source, self.orig_id)

    @property
    def made_by(self) -> str:
        """Who or what made this version, in words: the rules (and which), a model (its name,
        prompt version and attempt), or a reviewer's fix in place."""
        return made_by_text(self.generator, self.model, self.author, self.prompt_version,
                            self.attempt_no, self.attempts)

    @property
    def decided(self) -> bool:
        return self.resolution is not None or any(
            d["verdict"] in FINAL_VERDICTS for d in self.decisions)

    @property
    def disagreed(self) -> bool:
        """Two reviewers gave different verdicts and no curator settled it yet."""
        verdicts = {d["verdict"] for d in self.decisions if d["verdict"] in FINAL_VERDICTS}
        return self.resolution is None and verdicts == {"accept", "reject"}

    @property
    def outcome(self) -> str | None:
        """A curator's resolution if any; else ``reject`` if any active decision rejects,
        ``accept`` if any accepts, else None."""
        if self.resolution is not None:
            return str(self.resolution["verdict"])
        verdicts = {d["verdict"] for d in self.decisions}
        if "reject" in verdicts:
            return "reject"
        if "accept" in verdicts:
            return "accept"
        return None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["decided"] = self.decided
        d["made_by"] = self.made_by
        d["outcome"] = self.outcome
        return d


def made_by_text(generator: str | None, model: str | None = None, author: str | None = None,
                 prompt_version: str | None = None, attempt_no: int | None = None,
                 attempts: int = 0) -> str:
    """Who or what made an artifact version, as a reviewer reads it: ``rules
    (gsm8k-calculator)``, ``model gpt-4o-mini (prompt reasoning-v3), attempt 2 of 3``,
    ``annotator fix by alice``."""
    from qcstation.common.safe import one_line

    gen = str(generator or "")
    if gen == "human" or author:
        return f"annotator fix by {one_line(author or '?', 60)}"
    if gen.startswith("rule:"):
        text = f"rules ({one_line(gen[5:], 40)})"
    elif model or gen in ("model", "llm"):
        text = f"model {one_line(model or '?', 60)}"
        if prompt_version:
            text += f" (prompt {one_line(prompt_version, 40)})"
    else:
        text = one_line(gen or "unknown", 60)
    if attempt_no:
        text += f", attempt {attempt_no}" + (f" of {attempts}" if attempts >= attempt_no else "")
    elif attempts:
        text += f", {attempts} attempt{'s' if attempts != 1 else ''}"
    return text


def flag_lines(flags: list[dict[str, Any]] | None,
               override: dict[str, Any] | None = None) -> list[str]:
    """An artifact's self-check flags as plain lines, every one of them (``qc show``)."""
    if flags is None:
        return ["Flags: not audited yet (qcstation audit stores them)"]
    if not flags:
        return ["Flags: none"]
    out = [f"Flags ({len(flags)}; each blocks the release until fixed or a curator overrides "
           f"it):"]
    out += [f"  ! {f.get('code')}: {f.get('message')}" for f in flags]
    if override:
        out.append(f"  overridden by {override.get('curator')} at {override.get('created_at')}: "
                   f"{override.get('reason')}")
    return out


def _overrides(store: Store, rows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The curator's override in force for each flagged artifact of ``rows`` (its codes the
    artifact's current ones), as the pane shows it."""
    codes = {int(r["artifact_id"]): r["flag_codes"] for r in rows if r.get("flag_codes")}
    out: dict[int, dict[str, Any]] = {}
    for art_id, o in flag_overrides(store, sorted(codes)).items():
        if override_in_force(o, codes[art_id]) is not None:
            out[art_id] = {k: o[k] for k in ("artifact_id", "flag_codes", "reason", "curator",
                                             "created_at")}
    return out


def item_key(source: str, orig_id: Any) -> str:
    """One id scheme for people, the same as a release record's ``id`` and an evaluation
    item's key: the source and the seed's original id (``gsm8k-test-17``)."""
    return f"{source}-{orig_id}"


# One row per sample item with its sample, seed and artifact; callers add WHERE / ORDER BY
# and pass the rows to build_items.
ITEM_SQL = """
    SELECT si.id AS item_id, si.sample_id, si.seed_id, si.artifact_id, si.position, si.overlap,
           si.claimed_by, si.claimed_at, si.stratum,
           s.dimension, s.status AS sample_status, s.scope,
           sd.source, sd.orig_id, sd.level, sd.question, sd.answer_text, sd.status AS seed_status,
           sd.solution, a.author, a.flags, a.flag_codes, a.generator, a.model, a.prompt_version,
           (SELECT at.attempt_no FROM attempts at WHERE at.id = a.attempt_id) AS attempt_no,
           (SELECT COUNT(*) FROM attempts at WHERE at.seed_id = si.seed_id
                AND at.dimension = s.dimension) AS attempts,
           a.content, a.verify_result, a.version, a.replaces_id, a.status AS artifact_status
    FROM sample_items si
    JOIN samples s ON s.id = si.sample_id
    JOIN seeds sd ON sd.id = si.seed_id
    JOIN artifacts a ON a.id = si.artifact_id
"""


def _flags(raw: Any) -> list[dict[str, Any]] | None:
    """The stored self-check flags of an artifact (JSON list), None if it has none stored."""
    if raw is None:
        return None
    flags = from_json(raw)
    return [f for f in flags if isinstance(f, dict)] if isinstance(flags, list) else None


def _requeued_ids(store: Store, dimension: str, item_ids: list[int]) -> set[int]:
    """Those of ``item_ids`` (items of ``dimension``) that are regenerated replacements: their
    seed has an earlier item of this dimension with an active reject. Only the items asked
    about are looked at (at 1M seeds every item of a dimension took 0.5 s)."""
    found: set[int] = set()
    for start in range(0, len(item_ids), 500):
        chunk = item_ids[start:start + 500]
        rows = store.query(
            f"""
            SELECT si.id FROM sample_items si JOIN samples s ON s.id = si.sample_id
            WHERE si.id IN ({",".join("?" * len(chunk))}) AND s.dimension = ? AND EXISTS (
                SELECT 1 FROM sample_items e JOIN samples es ON es.id = e.sample_id
                WHERE es.dimension = s.dimension AND e.seed_id = si.seed_id AND e.id < si.id
                  AND """ + rejected_sql("e.id") + """)
            """, (*chunk, dimension))
        found |= {int(r["id"]) for r in rows}
    return found


def _smtlib_for(store: Store, dimension: str, content: dict[str, Any]) -> str | None:
    if dimension not in ("arithmetic", "reasoning"):
        return None
    code = content.get("smtlib")
    if isinstance(code, str) and code.strip():
        return code
    src = content.get("source_artifact_id")
    if isinstance(src, int):
        row = store.one("SELECT content FROM artifacts WHERE id = ?", (src,))
        if row:
            c = from_json(row["content"]) or {}
            if isinstance(c.get("smtlib"), str):
                return c["smtlib"]
    return None


def build_items(store: Store, rows: list[dict[str, Any]]) -> list[ReviewItem]:
    """:class:`ReviewItem` objects from :data:`ITEM_SQL` rows, with their active decisions,
    resolutions and whether they are regenerated replacements (read in a few queries)."""
    if not rows:
        return []
    reviews = active_reviews(store, [int(r["item_id"]) for r in rows])
    resolutions = active_resolutions(store, [int(r["item_id"]) for r in rows])
    requeued: set[int] = set()
    for dim in {r["dimension"] for r in rows}:
        requeued |= _requeued_ids(store, dim, [int(r["item_id"]) for r in rows
                                               if r["dimension"] == dim])
    overrides = _overrides(store, rows)
    out = []
    for r in rows:
        content = from_json(r["content"]) or {}
        iid = int(r["item_id"])
        out.append(ReviewItem(
            item_id=iid, sample_id=int(r["sample_id"]), seed_id=int(r["seed_id"]),
            artifact_id=int(r["artifact_id"]), dimension=r["dimension"], source=r["source"],
            position=int(r["position"]), overlap=bool(r["overlap"]), question=r["question"],
            gold_answer=r["answer_text"], content=content,
            verify_result=from_json(r["verify_result"]), artifact_version=int(r["version"]),
            replaces_id=r["replaces_id"], smtlib=_smtlib_for(store, r["dimension"], content),
            orig_id=str(r["orig_id"]), level=r["level"], artifact_status=r["artifact_status"],
            claimed_by=r["claimed_by"], claimed_at=r["claimed_at"], requeued=iid in requeued,
            seed_status=r["seed_status"],
            replaces_reason=reject_feedback(store, int(r["replaces_id"])) if r["replaces_id"] else None,
            decisions=[{"review_id": int(v["id"]), "annotator": v["annotator"],
                        "display_name": v.get("display_name") or v["annotator"],
                        "verdict": v["verdict"], "reason": v["reason"],
                        "comment": v.get("comment"), "unsure": bool(v.get("unsure")),
                        "created_at": v["created_at"]} for v in reviews.get(iid, [])],
            resolution=resolutions.get(iid), solution=r.get("solution") or "",
            author=r.get("author"), flags=_flags(r.get("flags")),
            scope=r.get("scope") or "",
            generator=str(r.get("generator") or ""), model=r.get("model"),
            prompt_version=r.get("prompt_version"),
            attempt_no=int(r["attempt_no"]) if r.get("attempt_no") is not None else None,
            attempts=int(r.get("attempts") or 0),
            flag_override=overrides.get(int(r["artifact_id"])),
        ))
    return out


def get_item(store: Store, item_id: int) -> ReviewItem:
    """One sample item, or :class:`ReviewError` when there is none."""
    rows = store.query(ITEM_SQL + " WHERE si.id = ?", (item_id,))
    if not rows:
        raise ReviewError(f"no review item #{item_id}", title="No such item")
    return build_items(store, rows)[0]


def get_items(store: Store, item_ids: list[int]) -> dict[int, ReviewItem]:
    """The sample items ``item_ids`` (at most a few hundred) by id, read together (one query
    each part, where :func:`get_item` a time reads them once an item); ids of no item are left
    out."""
    if not item_ids:
        return {}
    marks = ",".join("?" * len(item_ids))
    rows = store.query(ITEM_SQL + f" WHERE si.id IN ({marks})", list(item_ids))
    return {it.item_id: it for it in build_items(store, rows)}


def list_items(store: Store, sample_id: int) -> list[ReviewItem]:
    """Every item of a sample in review order (position)."""
    rows = store.query(ITEM_SQL + " WHERE si.sample_id = ? ORDER BY si.position, si.id",
                       (sample_id,))
    return build_items(store, rows)


def row_number(text: str) -> int | None:
    """``text`` as a row's number: ASCII digits that fit SQLite's integer; None for anything
    else ('99999999999999999999999999' and '²' name no row: they were an OverflowError and a
    ValueError traceback)."""
    if text.isascii() and text.isdigit() and len(text) < 19:
        return int(text)
    return None


def find_seed(store: Store, ref: Any) -> int:
    """The seed named by ``ref``: its item name ``source-orig_id`` (``gsm8k-83``, as releases,
    runs and every screen name it) or its internal number; :class:`ReviewError` otherwise."""
    text = str(ref).strip()
    number = row_number(text)
    if number is not None and store.scalar("SELECT 1 FROM seeds WHERE id = ?", (number,)):
        return number
    # the source has no '-' of its own in most sets, but may: try every split, shortest first
    for i, ch in enumerate(text):
        if ch == "-" and 0 < i < len(text) - 1:
            sid = store.scalar("SELECT id FROM seeds WHERE source = ? AND orig_id = ?",
                               (text[:i], text[i + 1:]))
            if sid is not None:
                return int(sid)
    if text.isdigit():
        raise ReviewError(f"no seed #{text}; name items as source-id, e.g. gsm8k-83",
                          title="No such item")
    raise ReviewError(f"no item named {text!r}; items are named source-id as in releases and "
                      f"runs, e.g. gsm8k-83 (qcstation qc queue lists them)", title="No such item")


def find_item(store: Store, ref: Any, dimension: str | None = None) -> int:
    """The sample item named by ``ref``: a number is the item's own id (``qc queue`` shows
    both); ``source-orig_id`` is that seed's latest sample item (of ``dimension`` when
    given; when the seed is sampled in several dimensions, the caller must say which)."""
    text = str(ref).strip()
    number = row_number(text)
    if number is not None and store.scalar("SELECT 1 FROM sample_items WHERE id = ?", (number,)):
        return number
    if text.isdigit():
        raise ReviewError(f"no review item #{text}", title="No such item")
    seed_id = find_seed(store, text)
    rows = store.query(
        "SELECT si.id, s.dimension FROM sample_items si JOIN samples s ON s.id = si.sample_id "
        "WHERE si.seed_id = ? " + ("AND s.dimension = ? " if dimension else "")
        + "ORDER BY si.id DESC", (seed_id, dimension) if dimension else (seed_id,))
    if not rows:
        where = f" for {dimension}" if dimension else ""
        raise ReviewError(f"{text} has not been sampled{where}", title="Not sampled")
    dims = list(dict.fromkeys(r["dimension"] for r in rows))
    if len(dims) > 1:
        raise ReviewError(f"{text} is sampled in {' and '.join(dims)}; say which with "
                          f"--dimension", title="Which dimension?")
    return int(rows[0]["id"])
