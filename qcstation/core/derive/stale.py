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
  formalization: they refuse it, write another SMT-LIB, or compute another answer;
* its worked solution, key information or chain of thought still writes the old value of a
  number its question changed (:func:`~.recheck.recheck`: "1/5 * 900 = 90" where the
  question now says 1/10).

A parent whose formalization the rules today write with other names only (the constants
renamed, nothing else: a change to how givens are named) is not stale: its items still
follow from it. It is counted as ``renamed``; a new derive run reads it with today's names
(:func:`~.parent.load_parent`), and its items are checked against it up to names.

The check builds nothing and changes nothing; ``qcstation derive check`` prints it. A derive
run that resumes a set says how many of its parents' items are stale, by the parent-level
checks (:func:`stale_on_resume`): of every parent when the rules changed since the set was
made (the set records :func:`rules_fingerprint`), else only of the parents whose Reasoning
artifact changed since, so that resuming a large set costs no re-reading.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from db import Store
from qcstation.core.derive.bindings import Refusal
from qcstation.core.derive.model import transforms_where
from qcstation.core.derive.parent import load_parent
from qcstation.core.derive.rebuild import canonical, declared, rule_of, skeleton
from qcstation.core.derive.recheck import recheck
from qcstation.core.derive.store import SetInfo, get_set, parent_rows

__all__ = ["StaleItem", "StaleReport", "canonical", "changed_parents", "check_set", "rule_sources", "rules_fingerprint",
           "stale_on_resume", "stale_parents"]

#: transforms whose story is rewritten and formalized again by the rules (the check re-runs them)
REREAD: tuple[str, ...] = transforms_where("reread")
#: transforms whose formalization is the parent's with new given values
SAME_SKELETON: tuple[str, ...] = transforms_where("same_skeleton")


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
    renamed: list[str] = field(default_factory=list)   # parents the rules now name differently

    @property
    def stale_parents(self) -> int:
        return len({s.parent for s in self.stale})

    def to_dict(self) -> dict[str, Any]:
        return {"set": self.name, "parents": self.parents, "items": self.items,
                "stale_items": len(self.stale), "stale_parents": self.stale_parents,
                "renamed_parents": list(self.renamed),
                "stale": [s.to_dict() for s in self.stale]}


def _parent_rows(store: Store, set_id: int, only: Collection[int] | None = None
                 ) -> list[tuple[dict[str, Any], dict[str, dict[str, Any]]]]:
    jobs = store.query("SELECT parent_id FROM derive_jobs WHERE set_id = ? AND status = 'done' "
                       "ORDER BY id", (set_id,))
    if only is not None:
        wanted = set(only)
        jobs = [j for j in jobs if int(j["parent_id"]) in wanted]
    return parent_rows(store, jobs)


@functools.lru_cache(maxsize=1)
def rule_sources() -> list[Path]:
    """The source files a set's items are built by: the construction rules, the readings and
    common helpers they import (a change in ``core/reading`` changes what the rules make:
    it was left out, so such a change did not mark sets as made by other rules), and the
    derive stage."""
    pkg = Path(__file__).resolve().parents[2]
    return sorted([*pkg.glob("core/construct/**/*.py"), *pkg.glob("core/reading/**/*.py"),
                   *pkg.glob("common/**/*.py"), *pkg.glob("core/derive/*.py")])


def rules_fingerprint() -> str:
    """A hash of :func:`rule_sources`: the rules a set is built with (any change counts)."""
    pkg = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for p in rule_sources():
        h.update(p.relative_to(pkg).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def changed_parents(store: Store, info: SetInfo) -> list[int]:
    """Parents of the set's finished jobs whose Reasoning artifact was made or changed after
    the set was created."""
    rows = store.query(
        "SELECT DISTINCT j.parent_id FROM derive_jobs j JOIN artifacts a ON a.seed_id = j.parent_id "
        "WHERE j.set_id = ? AND j.status = 'done' AND a.dimension = 'reasoning' "
        "AND (a.created_at > ? OR a.updated_at > ?)", (info.id, info.created_at, info.created_at))
    return [int(r["parent_id"]) for r in rows]


def stale_on_resume(store: Store, info: SetInfo) -> int:
    """Parents with stale items, by the parent-level checks: all parents when the set was made
    by other rules (or before sets recorded them), else those changed since (see the module
    docstring)."""
    if info.spec.get("rules") != rules_fingerprint():
        return stale_parents(store, info.name)
    changed = changed_parents(store, info)
    return stale_parents(store, info.name, only=changed) if changed else 0


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


@dataclass
class _View:
    """A parent as its items were built from it: its row and stored formalization."""

    seed: dict[str, Any]
    smtlib: str
    names: list[str]

    @property
    def skeleton(self) -> str:
        return skeleton(self.smtlib, self.names)


def _view(seed: dict[str, Any], arts: dict[str, dict[str, Any]]) -> tuple[_View | None, str | None]:
    """(the parent's view, None) when its items can be checked, (None, why) when they are all
    stale, or (view, "renamed") when the rules today differ from its formalization in names
    (the view then holds today's names; items are compared with it up to names)."""
    try:
        parent = load_parent(seed, arts)
    except Refusal as exc:
        return None, f"its parent can no longer be transformed: {exc.code}: {exc}"
    view = _View(parent.seed, parent.rule.smtlib, [g.name for g in parent.givens])
    return view, "renamed" if parent.renamed else None


def _same_skeleton(smt: str, parent: _View) -> bool:
    """Is ``smt`` the parent's formalization with other values for its givens, up to the
    names of its constants (an item built before the parent's givens were renamed)?"""
    if skeleton(smt, parent.names) == parent.skeleton:
        return True
    mine, theirs = declared(parent.smtlib), declared(smt)
    at = {n: i for i, n in enumerate(mine)}
    if len(mine) != len(theirs) or any(n not in at for n in parent.names):
        return False
    names = [theirs[at[n]] for n in parent.names]
    return canonical(skeleton(smt, names)) == canonical(parent.skeleton)


def _item_problem(parent: _View, item: dict[str, Any], reread: bool = True) -> str | None:
    """Why ``item`` is stale against its parent's stored formalization and today's rules, or
    None (``reread``: also give the item's own text to today's rules)."""
    t, contents = item["transform"], item["contents"]
    if t in SAME_SKELETON:
        smt = (contents.get("reasoning") or contents.get("arithmetic") or {}).get("smtlib")
        if not isinstance(smt, str) or not _same_skeleton(smt, parent):
            return "built from another formalization of the parent than its current one"
    if t == "inverse":
        forward = (contents.get("reasoning") or {}).get("forward_smtlib")
        if not isinstance(forward, str) or canonical(forward) != canonical(parent.smtlib):
            return "built from another formalization of the parent than its current one"
    if t == "errors":
        if item["question"] != parent.seed.get("question") or \
                (item["solution"] or "") != (parent.seed.get("solution") or ""):
            return "the parent's question or worked solution changed since it was built"
    if t not in REREAD or not reread:
        return None
    verdict = recheck(parent.seed, item)
    if verdict.stale:          # the rebuilt texts still write an old value
        return "an old value is still written: " + "; ".join(verdict.stale)
    stored = str((contents.get("reasoning") or {}).get("smtlib") or "")
    seed = {**parent.seed, "question": item["question"], "solution": item["solution"] or "",
            "answer_text": item["answer_text"], "answer_value": item["answer_value"]}
    try:
        rule = rule_of(seed)
    except Refusal as exc:
        return f"today's rules do not formalize it: {exc}"
    if canonical(rule.smtlib) != canonical(stored):
        return "today's rules formalize it differently from its stored formalization"
    try:
        answer = Fraction(str(item["answer_value"]))
    except (ValueError, ZeroDivisionError):
        return f"its stored answer {item['answer_value']!r} is not a number"
    if rule.value != answer:
        return f"today's rules compute {rule.value}, not its stored answer {answer}"
    return None


def check_set(store: Store, name: str, *, parents_only: bool = False,
              only: Collection[int] | None = None) -> StaleReport:
    """Every item of the set ``name`` checked against today's rules and its parent's current
    artifacts (see the module docstring). ``parents_only``: only whether each parent can
    still be transformed from the same formalization (cheap; no item is re-read); ``only``:
    only these parents (seed ids)."""
    info = get_set(store, name)
    report = StaleReport(info.name)
    for seed, arts in _parent_rows(store, info.id, only):
        report.parents += 1
        key = f"{seed.get('source')}-{seed.get('orig_id')}"
        items = _items(store, info.id, int(seed["id"]))
        report.items += len(items)
        parent, why = _view(seed, arts)
        if parent is None:
            report.stale += [StaleItem(f"{i['source']}-{i['orig_id']}", key, i["transform"],
                                       str(why)) for i in items]
            continue
        if why == "renamed":
            report.renamed.append(key)
        for i in items:
            problem = _item_problem(parent, i, reread=not parents_only)
            if problem is not None:
                report.stale.append(StaleItem(f"{i['source']}-{i['orig_id']}", key,
                                              i["transform"], problem))
    return report


def stale_parents(store: Store, name: str, only: Collection[int] | None = None) -> int:
    """How many parents of the set (or of ``only``) have stale items, by the cheap
    parent-level checks."""
    return check_set(store, name, parents_only=True, only=only).stale_parents
