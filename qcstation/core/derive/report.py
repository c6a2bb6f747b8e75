"""What a derived set holds, per source and transformation, and why the rest is missing.

:func:`set_report` answers "for what share of the seeds could each transformation be made,
and why not for the others": per source and transform, the parents with at least one item,
the items made and refused, and for the parents with none the leading reasons (the
parent's own refusal, e.g. ``not-bound``, else the most frequent refusal of that
transform's items). :func:`list_items` lists a set's items for people to read.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from db.store import Store, from_json
from qcstation.core.derive.model import KINDS
from qcstation.core.derive.store import get_set

__all__ = ["SetReport", "TransformShare", "list_items", "set_report"]


@dataclass
class TransformShare:
    """One (source, transform) line of a report."""

    source: str
    transform: str
    parents: int                   # parents (seeds of the source) queued for the set
    made_for: int                  # of which got at least one item
    items: int
    refused_items: int
    reasons: list[tuple[str, int]] = field(default_factory=list)   # for parents with none

    @property
    def share(self) -> float:
        return self.made_for / self.parents if self.parents else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "transform": self.transform, "parents": self.parents,
                "made_for": self.made_for, "share": round(self.share, 4), "items": self.items,
                "refused_items": self.refused_items,
                "reasons": [{"code": c, "parents": n} for c, n in self.reasons]}


@dataclass
class SetReport:
    name: str
    kind: str
    spec: dict[str, Any]
    jobs: dict[str, int]           # by status
    lines: list[TransformShare]

    def to_dict(self) -> dict[str, Any]:
        return {"set": self.name, "kind": self.kind, "spec": self.spec, "jobs": self.jobs,
                "shares": [x.to_dict() for x in self.lines]}


def set_report(store: Store, name: str, *, top: int = 3) -> SetReport:
    """The shares and reasons of the set ``name`` (see the module docstring)."""
    info = get_set(store, name)
    transforms = KINDS[info.kind]
    jobs = store.query("SELECT j.parent_id, j.status, j.reason, j.detail, s.source FROM derive_jobs j "
                       "JOIN seeds s ON s.id = j.parent_id WHERE j.set_id = ?", (info.id,))
    made = defaultdict(set)            # (source, transform) -> parents with an item
    items: Counter[tuple[str, str]] = Counter()
    for r in store.query("SELECT p.source, di.transform, di.parent_id, COUNT(*) AS n "
                         "FROM derived_items di JOIN seeds p ON p.id = di.parent_id "
                         "WHERE di.set_id = ? GROUP BY p.source, di.transform, di.parent_id",
                         (info.id,)):
        made[(r["source"], r["transform"])].add(int(r["parent_id"]))
        items[(r["source"], r["transform"])] += int(r["n"])
    parents: Counter[str] = Counter()
    refused: Counter[tuple[str, str]] = Counter()
    reasons: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    status: Counter[str] = Counter()
    for j in jobs:
        src, pid = j["source"], int(j["parent_id"])
        parents[src] += 1
        status[j["status"]] += 1
        if j["status"] == "pending":
            continue
        detail = from_json(j["detail"]) or []
        for t in transforms:
            codes = Counter(d.get("code") for d in detail if d.get("transform") == t)
            refused[(src, t)] += sum(codes.values())
            if pid in made[(src, t)]:
                continue
            code = (j["reason"] or "").split(":", 1)[0] if j["reason"] else None
            if code is None:
                code = codes.most_common(1)[0][0] if codes else "no-item"
            reasons[(src, t)][str(code)] += 1
    lines = [TransformShare(src, t, parents[src], len(made[(src, t)]), items[(src, t)],
                            refused[(src, t)], reasons[(src, t)].most_common(top))
             for src in sorted(parents) for t in transforms]
    return SetReport(info.name, info.kind, info.spec, dict(sorted(status.items())), lines)


def list_items(store: Store, name: str, *, transform: str | None = None,
               limit: int = 50) -> list[dict[str, Any]]:
    """The first ``limit`` items of the set (of ``transform``): key, parent, transform,
    level, answer, question, params."""
    info = get_set(store, name)
    sql = ("SELECT s.source, s.orig_id, s.question, s.answer_text, di.seed_id, di.transform, "
           "di.level, di.idx, di.params, di.dimensions, p.source AS psource, p.orig_id AS porig "
           "FROM derived_items di JOIN seeds s ON s.id = di.seed_id "
           "JOIN seeds p ON p.id = di.parent_id WHERE di.set_id = ?")
    params: list[Any] = [info.id]
    if transform:
        sql += " AND di.transform = ?"
        params.append(transform)
    sql += " ORDER BY di.seed_id LIMIT ?"
    params.append(int(limit))
    return [{"id": f"{r['source']}-{r['orig_id']}", "seed_id": int(r["seed_id"]),
             "parent": f"{r['psource']}-{r['porig']}", "transform": r["transform"],
             "level": r["level"], "idx": r["idx"], "answer": r["answer_text"],
             "question": r["question"], "params": from_json(r["params"]) or {},
             "dimensions": json.loads(r["dimensions"])} for r in store.query(sql, params)]
