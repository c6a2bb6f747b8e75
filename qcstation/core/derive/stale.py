"""Stale derived items: what was right when it was built and may not be now.

A derived item is made from its parent's verified formalization by the construction rules of
the day. Both can change afterwards: the parent's Reasoning artifact is regenerated or its
seed edited, or a rule is fixed so that it reads the parent, or the item, differently (the
binding fix that refused gsm8k-111 found its variants dividing by the wrong number). The items
stay in the database, and in any release made from them, so they must be found, never kept
silently.

:func:`check_set` re-reads every item of a set with today's rules and the parents' current
artifacts. An item is **stale** when

* its parent can no longer be transformed (:func:`~.parent.load_parent` refuses it today:
  the rules no longer make the parent's stored formalization, the references work no
  longer vouches for its bindings, its Reasoning artifact is not verified any more...);
* its parent was built from another formalization than the parent's current one: the item's
  structure (its formalization with the givens' values blanked, :func:`~.rebuild.skeleton`)
  is not the parent's any more (an inverse problem: its forward formalization is not the
  parent's; a refinement-ladder item: its question or worked solution is not the parent's);
* the rules, given the item's own question and worked solution (a variant, changed numbers,
  a counterfactual, a noise or added-operation item), no longer make its stored
  formalization: they refuse it, write another SMT-LIB, or compute another answer.

The check builds nothing and changes nothing; ``qcstation derive check`` prints it, and a
derive run that resumes a set says how many of its parents' items are stale.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from db import Store
from qcstation.core.derive.bindings import Refusal
from qcstation.core.derive.parent import Parent, load_parent
from qcstation.core.derive.rebuild import rule_of, skeleton
from qcstation.core.derive.store import get_set, parent_rows

__all__ = ["StaleItem", "StaleReport", "check_set", "stale_parents"]

#: transforms whose story is rewritten and formalized again by the rules (the check re-runs them)
REREAD = ("variant", "changed-numbers", "counterfactual", "noise", "add-operation")
#: transforms whose formalization is the parent's with new given values
SAME_SKELETON = ("variant", "changed-numbers", "counterfactual", "digits")


@dataclass(frozen=True)
class StaleItem:
    item: str            # the item's key (``gsm8k-17~dyn.v3``)
    parent: str          # the parent's key
    transform: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return dict(self.__dict__)


@dataclass
class StaleReport:
    name: str
    parents: int = 0
    items: int = 0
    stale: list[StaleItem] = field(default_factory=list)

    @property
    def stale_parents(self) -> int:
        return len({s.parent for s in self.stale})

    def to_dict(self) -> dict[str, Any]:
        return {"set": self.name, "parents": self.parents, "items": self.items,
                "stale_items": len(self.stale), "stale_parents": self.stale_parents,
                "stale": [s.to_dict() for s in self.stale]}


def _parent_rows(store: Store, set_id: int) -> list[tuple[dict[str, Any], dict[str, dict[str, Any]]]]:
    jobs = store.query("SELECT parent_id FROM derive_jobs WHERE set_id = ? AND status = 'done' "
                       "ORDER BY id", (set_id,))
    return parent_rows(store, jobs)


def _items(store: Store, set_id: int, parent_id: int) -> list[dict[str, Any]]:
    rows = store.query(
        "SELECT di.seed_id, di.transform, s.orig_id, s.source, s.question, s.solution, "
        "s.answer_text, s.answer_value FROM derived_items di JOIN seeds s ON s.id = di.seed_id "
        "WHERE di.set_id = ? AND di.parent_id = ? ORDER BY di.seed_id", (set_id, parent_id))
    for r in rows:
        r["contents"] = {a["dimension"]: json.loads(a["content"]) for a in store.query(
            "SELECT dimension, content FROM artifacts WHERE seed_id = ? AND status != 'superseded' "
            "ORDER BY version", (int(r["seed_id"]),))}
    return rows


def _item_problem(parent: Parent, item: dict[str, Any], reread: bool = True) -> str | None:
    """Why ``item`` is stale against today's ``parent`` and rules, or None (``reread``: also
    give the item's own text to today's rules)."""
    t, contents = item["transform"], item["contents"]
    names = [g.name for g in parent.givens]
    if t in SAME_SKELETON:
        smt = (contents.get("reasoning") or contents.get("arithmetic") or {}).get("smtlib")
        if not isinstance(smt, str) or skeleton(smt, names) != parent.skeleton:
            return "built from another formalization of the parent than its current one"
    if t == "inverse":
        if (contents.get("reasoning") or {}).get("forward_smtlib") != parent.rule.smtlib:
            return "built from another formalization of the parent than its current one"
    if t == "errors":
        if item["question"] != parent.seed.get("question") or \
                (item["solution"] or "") != (parent.seed.get("solution") or ""):
            return "the parent's question or worked solution changed since it was built"
    if t not in REREAD or not reread:
        return None
    stored = contents.get("reasoning") or {}
    seed = {**parent.seed, "question": item["question"], "solution": item["solution"] or "",
            "answer_text": item["answer_text"], "answer_value": item["answer_value"]}
    try:
        rule = rule_of(seed)
    except Refusal as exc:
        return f"today's rules do not formalize it: {exc}"
    if rule.smtlib != stored.get("smtlib"):
        return "today's rules formalize it differently from its stored formalization"
    try:
        answer = Fraction(str(item["answer_value"]))
    except (ValueError, ZeroDivisionError):
        return f"its stored answer {item['answer_value']!r} is not a number"
    if rule.value != answer:
        return f"today's rules compute {rule.value}, not its stored answer {answer}"
    return None


def check_set(store: Store, name: str, *, parents_only: bool = False) -> StaleReport:
    """Every item of the set ``name`` checked against today's rules and its parent's current
    artifacts (see the module docstring). ``parents_only``: only whether each parent can
    still be transformed from the same formalization (cheap; no item is re-read)."""
    info = get_set(store, name)
    report = StaleReport(info.name)
    for seed, arts in _parent_rows(store, info.id):
        report.parents += 1
        key = f"{seed.get('source')}-{seed.get('orig_id')}"
        items = _items(store, info.id, int(seed["id"]))
        report.items += len(items)
        try:
            parent = load_parent(seed, arts)
        except Refusal as exc:
            gone = f"its parent can no longer be transformed: {exc.code}: {exc}"
            report.stale += [StaleItem(f"{i['source']}-{i['orig_id']}", key, i["transform"], gone)
                             for i in items]
            continue
        for i in items:
            why = _item_problem(parent, i, reread=not parents_only)
            if why is not None:
                report.stale.append(StaleItem(f"{i['source']}-{i['orig_id']}", key,
                                              i["transform"], why))
    return report


def stale_parents(store: Store, name: str) -> int:
    """How many parents of the set have stale items, by the cheap parent-level checks."""
    return check_set(store, name, parents_only=True).stale_parents
