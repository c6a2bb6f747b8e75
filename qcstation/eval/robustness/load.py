"""A run as the robustness measures read it: its items (with what each was derived from,
joined through ``derived_items``), and per item, dimension and sample the verdict and the
model's answer.

Dimensions are the metric codes (``un``, ``re``, ``ar``, ``rt``, ``rm``, ``fi``). A sample
counts when it has a verdict on the model (not ``not_scored``, nor a judge's, the item's or
the checker's failure: ``NOT_MODEL_VERDICTS``, left out as in the leaderboard); it is *right* when its verdict is
``correct`` (for ``un``: a judges' score >= 90, the All-Pass bar). Wrong, unparseable and
failed requests count as not right, as in the leaderboard; but an Understanding reply that
failed or was unreadable has no judged score and is left out, as LLM@Un leaves it out.
``rm`` is gated as ACC@R-m is (:func:`gate_refinement`): a sample counts only where its
reflection is right, in single-prompt and two-step runs alike.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from db.store import Store
from qcstation.eval.robustness.measures import norm
from qcstation.eval.runs import (
    EvalError,
    load_spec,
    protocol_label,
    release_label,
    run_label,
    run_row,
)
from qcstation.eval.types import ALL_PASS_UNDERSTANDING, METRICS, NOT_MODEL_VERDICTS

__all__ = ["DIMS", "VALUE_DIMS", "Item", "Obs", "RunData", "find_base", "gate_refinement",
           "load_run_data", "seed_text"]

DIMS: tuple[str, ...] = METRICS
#: dimensions whose answer is a number (an answer can agree with a gold or a parent's)
VALUE_DIMS: tuple[str, ...] = ("re", "ar", "rm", "fi")
_MAX_DETAIL = 200_000


@dataclass
class Obs:
    ok: bool
    answer: str | None
    k: int = 0          # the sample's index (dimensions of one sample line up by it)


@dataclass
class Item:
    seed_id: int
    key: str
    question: str
    gold: str | None
    steps: int | None
    smtlib: str | None
    notation: str | None = None          # the Arithmetic question as asked
    parent_notation: str | None = None   # the parent's Arithmetic question (derived items)
    parent: str | None = None            # the parent's item key
    parent_seed_id: int | None = None
    parent_answer: str | None = None
    set: str | None = None
    transform: str | None = None
    level: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    obs: dict[str, list[Obs]] = field(default_factory=dict)   # dim -> counted samples
    round_trip: dict[str, Any] | None = None   # a round-trip run's record: forward answer, X

    def acc(self, dim: str) -> float | None:
        """The share of the counted samples that are right (None: not scored)."""
        o = self.obs.get(dim)
        return sum(x.ok for x in o) / len(o) if o else None

    def first(self, dim: str) -> Obs | None:
        o = self.obs.get(dim)
        return o[0] if o else None


@dataclass
class RunData:
    run_id: int
    label: str
    name: str | None
    release: str
    model: str
    samples: int
    items: dict[int, Item]
    spec: dict[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """``#3 gpt-4o-mini``, a named run with its model (``#3 baseline (gpt-4o-mini)``): a
        named run's head hid the model it measured (issue 28.5)."""
        return run_label({"id": self.run_id, "name": self.name, "model": self.label})

    @property
    def protocol(self) -> str:
        """How the run asked (``3-shot, t=0``; '' for a run without a spec)."""
        return protocol_label(self.spec) if self.spec else ""


def _answer(metric: str, extracted: Any, detail_text: Any) -> str | None:
    detail: dict[str, Any] = {}
    if isinstance(detail_text, str) and len(detail_text) <= _MAX_DETAIL:
        try:
            d = json.loads(detail_text)
            detail = d if isinstance(d, dict) else {}
        except ValueError:
            detail = {}
    value = detail.get("value")
    if value is None and isinstance(detail.get("verifier"), dict):
        value = detail["verifier"].get("value")
    if metric in ("rt", "un"):
        value = None
    return norm(value if value is not None else extracted)


def load_run_data(store: Store, run_id: int) -> RunData:
    """Everything :mod:`.diagnose` needs of one run, read once."""
    row = run_row(store, run_id)
    spec = load_spec(row.get("spec"))
    items: dict[int, Item] = {}
    for r in store.query("SELECT ei.seed_id, ei.item_key, ei.record, s.steps, s.answer_value, "
                         "di.parent_id, di.transform, di.level, di.params, ds.name AS set_name, "
                         "p.source || '-' || p.orig_id AS parent_key, p.answer_value AS parent_answer, "
                         "(SELECT CASE WHEN json_valid(pa.content) THEN json_extract(pa.content, "
                         "'$.notation') END FROM artifacts pa WHERE pa.seed_id = di.parent_id AND "
                         "pa.dimension = 'arithmetic' ORDER BY pa.version DESC LIMIT 1) AS parent_notation "
                         "FROM eval_items ei LEFT JOIN seeds s ON s.id = ei.seed_id "
                         "LEFT JOIN derived_items di ON di.seed_id = ei.seed_id "
                         "LEFT JOIN derive_sets ds ON ds.id = di.set_id "
                         "LEFT JOIN seeds p ON p.id = di.parent_id "
                         "WHERE ei.run_id = ? AND ei.role = 'eval' ORDER BY ei.position", (run_id,)):
        rec = json.loads(r["record"])
        # derived_items says what an item is (a record frozen before schema fixes may not)
        params = json.loads(r["params"]) if r["params"] else rec.get("params")
        sid = int(r["seed_id"])
        items[sid] = Item(
            seed_id=sid, key=str(r["item_key"]), question=str(rec.get("question") or ""),
            gold=norm(rec.get("answer") or r["answer_value"]), steps=r["steps"],
            smtlib=rec.get("smt-lib"), notation=rec.get("notation") or None,
            parent=rec.get("parent") or r["parent_key"],
            parent_seed_id=rec.get("parent_seed_id") or r["parent_id"],
            parent_answer=norm(r["parent_answer"]), set=rec.get("set") or r["set_name"],
            parent_notation=(r["parent_notation"] if isinstance(r["parent_notation"], str)
                             else None) or None,
            transform=r["transform"] or rec.get("transform"),
            level=r["level"] if r["transform"] else None,
            params=params if isinstance(params, dict) else {},
            round_trip=rec.get("round_trip") if isinstance(rec.get("round_trip"), dict) else None)
    by: dict[tuple[int, str], list[tuple[int, Obs]]] = defaultdict(list)
    left_out = ("not_scored", *NOT_MODEL_VERDICTS)   # no verdict on the model: not counted
    marks = ",".join("?" * len(left_out))
    # Understanding's failed or unreadable replies have no score: apart, as the leaderboard
    for s in store.query("SELECT seed_id, sample_idx, metric, verdict, score, extracted, detail "
                         f"FROM eval_scores WHERE run_id = ? AND verdict NOT IN ({marks}) AND NOT "
                         "(metric = 'un' AND verdict IN ('error', 'unparseable'))",
                         (run_id, *left_out)):
        metric = str(s["metric"])
        if metric == "un":
            ok = s["score"] is not None and float(s["score"]) >= ALL_PASS_UNDERSTANDING
        else:
            ok = s["verdict"] == "correct"
        by[(int(s["seed_id"]), metric)].append(
            (int(s["sample_idx"]), Obs(ok, _answer(metric, s["extracted"], s["detail"]),
                                         int(s["sample_idx"]))))
    for (sid, metric), obs in by.items():
        if sid in items:
            items[sid].obs[metric] = [o for _, o in sorted(obs, key=lambda t: t[0])]
    for it in items.values():
        gate_refinement(it.obs)
    spec_model = spec.get("model")
    model: dict = spec_model if isinstance(spec_model, dict) else {}
    return RunData(run_id=int(row["id"]), label=str(row["model"]), name=row.get("name"),
                   release=release_label(spec), model=str(model.get("model") or row["model"]),
                   samples=int(spec.get("samples") or 1), items=items, spec=spec)


def gate_refinement(obs: dict[str, list[Obs]]) -> None:
    """Keep an item's ``rm`` samples only where the same sample's reflection (``rt``) is
    right: ACC@R-m as SMART and the leaderboard read it, whatever the protocol. (Stored,
    a single-prompt run scores every corrected chain; a two-step run asks for a correction
    only after a right reflection. Read ungated, R-m meant one thing in one protocol and
    another in the other.)"""
    if "rm" not in obs:
        return
    right = {o.k for o in obs.get("rt") or [] if o.ok}
    kept = [o for o in obs["rm"] if o.k in right]
    if kept:
        obs["rm"] = kept
    else:
        del obs["rm"]


def find_base(store: Store, data: RunData, base: int | None = None) -> int | None:
    """The run that answered the parents of ``data``'s derived items (perturbation drops,
    backward consistency): ``base`` when given (it must hold some parent), else the
    finished run of the same model that holds the most of them (the latest on a tie)."""
    parents = {i.parent_seed_id for i in data.items.values() if i.parent_seed_id}
    if not parents:
        return None
    marks = ",".join("?" * len(parents))
    rows = store.query(
        f"SELECT r.id, COUNT(*) AS n FROM eval_items ei JOIN eval_runs r ON r.id = ei.run_id "
        f"WHERE ei.role = 'eval' AND ei.seed_id IN ({marks}) AND r.id != ? "
        f"{'AND r.id = ?' if base is not None else 'AND r.model = ? AND r.status = ?'} "
        f"GROUP BY r.id ORDER BY n DESC, r.id DESC LIMIT 1",
        [*parents, data.run_id, *((base,) if base is not None else (data.label, "done"))])
    if base is not None and not rows:
        raise EvalError(f"run {base} holds none of the parents of run {data.run_id}'s items",
                        title="Not a base run")
    return int(rows[0]["id"]) if rows else None


def seed_text(store: Store, seed_id: int) -> tuple[str, str] | None:
    """A seed's question and answer (an item's parent, as the robustness item pane shows
    it), or None when there is no such seed."""
    row = store.one("SELECT question, answer_value FROM seeds WHERE id = ?", (int(seed_id),))
    if row is None:
        return None
    return str(row["question"] or ""), str(row["answer_value"] if row["answer_value"] is not None
                                           else "")
