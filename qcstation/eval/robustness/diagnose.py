"""One run's robustness diagnosis: what :mod:`.measures` computes on what :mod:`.load`
reads, per dimension, in one object the CLI, the report and the results screen show.

Which items feed which table (by ``transform``, see :mod:`qcstation.core.derive`):

* ``variant`` families (parent -> its variants): A_avg, A_wst, RR (DynaMath's eq. 1-2 on
  0/1 verdicts: the worst case over every variant and sample of a seed), consistent
  failures (a share of seeds; unanswered variants apart), memorisation (same answer, in
  any samples, to variants whose golds differ), and how often a variant is answered with the parent's gold.
* every item with two samples or more: RC (DynaMath's eq. 3, over the K samples).
* ladders: ``noise`` by k sentences, ``digits`` by d digits, ``errors`` by n error types,
  and ``steps``: every item of the run by the operations of its formalization (SMART's
  Reasoning ladder).
* ``noise``, ``add-operation``, ``changed-numbers``: the drop against the parent in the
  *base run* (:func:`~.load.find_base`), over the pairs both scored; a dimension whose
  question the perturbation leaves as it was (noise: the notation question) is marked as
  fixed by construction (no drop is measured), and so is its curve on a ladder
  (``ladders_fixed``).
* ``counterfactual``: the share answered with the new gold and with the parent's gold
  (item-samples), also per shift; with a base run, Catch Me If You Can's Answer Adjustment
  (right and different from the model's own answer to the parent).
* ``inverse``: backward accuracy; with a base run, backward right given forward right (the
  share of the parents answered right forward whose backward problem is answered right
  too: a conditional accuracy, not the paper's forward/backward step overlap).
* step fidelity: every item with a reference formalization and a final-answer response,
  over the intermediate steps (not the answer).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

from db.store import Store
from qcstation.core.derive.model import TRANSFORM_LIST, transforms_where
from qcstation.eval.robustness.fidelity import intermediates
from qcstation.eval.robustness.load import DIMS, VALUE_DIMS, RunData, find_base, load_run_data
from qcstation.eval.robustness.measures import (
    CF,
    Consistent,
    Drop,
    McNemar,
    Robust,
    consistent_failures,
    counterfactual,
    curve,
    drop,
    memorised,
    repetition_consistency,
    robustness,
    step_fidelity,
)

__all__ = ["LADDERS", "LADDER_DIM", "LADDER_TITLES", "PERTURBATIONS", "Backward", "Diagnosis", "VariantRow",
           "diagnose"]

#: the perturbations compared with their parents (the derive records' ``perturbation``)
PERTURBATIONS: tuple[str, ...] = transforms_where("perturbation")
#: the Reasoning ladder: every item by the operations of its formalization (not a transform)
STEPS_LADDER: tuple[str, str, str] = ("steps", "re", "Reasoning ladder: operations of the formalization")
_LADDERS = sorted([(t.name, *t.ladder) for t in TRANSFORM_LIST if t.ladder] + [STEPS_LADDER],
                  key=lambda lad: DIMS.index(lad[1]))
#: ladder -> the dimension whose difficulty it raises (SMART A.10), in the dimensions' order
LADDER_DIM: dict[str, str] = {name: dim for name, dim, _ in _LADDERS}
#: ladder -> its title
LADDER_TITLES: dict[str, str] = {name: title for name, _, title in _LADDERS}
LADDERS: tuple[str, ...] = tuple(LADDER_DIM)


@dataclass
class VariantRow:
    robust: Robust
    consistent_failures: Consistent | None
    memorised: int                    # seeds with the same answer to variants of other golds
    memorised_keys: list[str]
    repeat_parent: float | None       # share of variant item-samples answered with the parent's answer
    n_repeat: int

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "robust": self.robust.to_dict()}  # consistent_failures: asdict


@dataclass
class Backward:
    accuracy: float | None
    n: int
    forward_right: int | None = None  # parents answered right forward (base run)
    both_right: int | None = None

    @property
    def right_given_forward(self) -> float | None:
        """The share of the parents answered right forward whose backward problem is
        answered right too: a conditional accuracy (not Catch Me If You Can's forward /
        backward consistency, a token overlap of the two reasoning chains)."""
        if not self.forward_right or self.both_right is None:
            return None
        return self.both_right / self.forward_right

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "right_given_forward": self.right_given_forward}


@dataclass
class Diagnosis:
    run_id: int
    title: str
    release: str
    base_run: int | None
    samples: int
    n_items: int
    transforms: dict[str, int]
    rc: dict[str, tuple[float | None, int]] = field(default_factory=dict)
    variants: dict[str, VariantRow] = field(default_factory=dict)
    ladders: dict[str, dict[str, list[tuple[int, float, int]]]] = field(default_factory=dict)
    #: ladder -> dimension -> why its curve cannot move by construction (not measured)
    ladders_fixed: dict[str, dict[str, str]] = field(default_factory=dict)
    drops: dict[str, dict[str, Drop]] = field(default_factory=dict)
    counterfactual: dict[str, CF] = field(default_factory=dict)
    counterfactual_by_shift: dict[str, dict[int, CF]] = field(default_factory=dict)
    backward: dict[str, Backward] = field(default_factory=dict)
    fidelity: dict[str, list[tuple[int, float, int]]] = field(default_factory=dict)
    refine: dict[str, Any] | None = None          # the self-refine spec (from, dimension, ...)
    refine_gain: dict[str, McNemar] = field(default_factory=dict)
    round_trip: dict[str, dict[str, tuple[float | None, int]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    protocol: str = ""          # how the run asked ('3-shot, t=0'), beside its release

    def most_dropped(self, transform: str) -> list[str]:
        """The dimensions that drop most under a perturbation: one, or every dimension tied
        at the largest drop (a tie is reported, never broken); empty when none drops (a
        drop fixed by construction is no measured drop)."""
        rows = {d: v.drop for d, v in self.drops.get(transform, {}).items()
                if v.drop is not None and v.drop > 0 and not v.fixed}
        if not rows:
            return []
        top = max(rows.values())
        return [d for d, v in rows.items() if abs(v - top) <= 1e-12]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "title": self.title, "release": self.release,
            "protocol": self.protocol,
            "base_run": self.base_run, "samples": self.samples, "n_items": self.n_items,
            "transforms": self.transforms,
            "rc": {d: {"rc": v, "n": n} for d, (v, n) in self.rc.items()},
            "variants": {d: v.to_dict() for d, v in self.variants.items()},
            "ladders": {k: {d: [{"level": lv, "accuracy": a, "n": n} for lv, a, n in pts]
                            for d, pts in by.items()} for k, by in self.ladders.items()},
            "ladders_fixed": self.ladders_fixed,
            "drops": {t: {d: v.to_dict() for d, v in by.items()} for t, by in self.drops.items()},
            "most_dropped": {t: self.most_dropped(t) for t in self.drops},
            "counterfactual": {d: v.to_dict() for d, v in self.counterfactual.items()},
            "counterfactual_by_shift": {d: {str(s): v.to_dict() for s, v in by.items()}
                                        for d, by in self.counterfactual_by_shift.items()},
            "backward": {d: v.to_dict() for d, v in self.backward.items()},
            "fidelity": {k: [{"steps": s, "fidelity": f, "n": n} for s, f, n in pts]
                         for k, pts in self.fidelity.items()},
            "refine": self.refine,
            "refine_gain": {d: m.to_dict() for d, m in self.refine_gain.items()},
            "round_trip": {d: {k: {"accuracy": a, "n": n} for k, (a, n) in by.items()}
                           for d, by in self.round_trip.items()},
            "notes": self.notes,
        }


def _variants(data: RunData) -> dict[str, VariantRow]:
    fams: dict[str, list[Any]] = defaultdict(list)
    for it in data.items.values():
        if it.transform == "variant" and it.parent:
            fams[it.parent].append(it)
    out: dict[str, VariantRow] = {}
    if not fams:
        return out
    for d in DIMS:
        verdicts = {p: [[float(o.ok) for o in it.obs[d]] for it in its if it.obs.get(d)]
                    for p, its in fams.items()}
        verdicts = {p: v for p, v in verdicts.items() if v}
        if not verdicts:
            continue
        # a consistent failure is the same wrong *answer* every time: dimensions with answers
        cf = consistent_failures({p: [([o.ok for o in it.obs[d]], [o.answer for o in it.obs[d]])
                                      for it in its if it.obs.get(d)] for p, its in fams.items()}
                                 ) if d in VALUE_DIMS else None
        mem: list[str] = []
        rep: tuple[float | None, int] = (None, 0)
        if d in VALUE_DIMS:
            # every sample of every variant: two answers alike to variants of other golds
            mem = [str(k) for k in memorised({p: [(it.gold, o.answer) for it in its
                                                  for o in it.obs.get(d, [])]
                                              for p, its in fams.items()})]
            rows = [(o.answer, it.gold, it.parent_answer) for its in fams.values() for it in its
                    for o in it.obs.get(d, [])]
            c = counterfactual(rows)
            rep = (c.repeat, c.n)
        out[d] = VariantRow(robustness(verdicts), cf, len(mem), sorted(mem), rep[0], rep[1])
    return out


def _ladders(data: RunData, dg: Diagnosis | None = None
             ) -> dict[str, dict[str, list[tuple[int, float, int]]]]:
    out: dict[str, dict[str, list[tuple[int, float, int]]]] = {}
    for ladder in LADDERS:
        if ladder == "steps":
            its = [it for it in data.items.values() if it.steps is not None]
            level = {it.seed_id: int(it.steps or 0) for it in its}
        else:
            its = [it for it in data.items.values() if it.transform == ladder and it.level is not None]
            level = {it.seed_id: int(it.level or 0) for it in its}
        by: dict[str, list[tuple[int, float, int]]] = {}
        # the Reasoning ladder groups by the formalization's operations: Re and the final answer
        for d in (("re", "fi") if ladder == "steps" else DIMS):
            pts = [(int(level[it.seed_id]), a) for it in its if (a := it.acc(d)) is not None]
            if pts:
                by[d] = curve(pts)
                why = None if ladder == "steps" else _unchanged(
                    d, [(it, None) for it in its if it.acc(d) is not None], every="level")
                if why and dg is not None:
                    dg.ladders_fixed.setdefault(ladder, {})[d] = why
        if by:
            out[ladder] = by
    return out


def _drops(data: RunData, base: RunData) -> dict[str, dict[str, Drop]]:
    out: dict[str, dict[str, Drop]] = {}
    for t in PERTURBATIONS:
        its = [it for it in data.items.values() if it.transform == t and it.parent_seed_id in base.items]
        by = {}
        for d in DIMS:
            paired = [(it, b, a) for it in its if (a := it.acc(d)) is not None
                      and (b := base.items[it.parent_seed_id].acc(d)) is not None]  # type: ignore[index]
            if paired:
                by[d] = drop([(b, a) for _, b, a in paired], fixed=_unchanged(d, [
                    (it, base.items[it.parent_seed_id]) for it, _, _ in paired]))  # type: ignore[index]
        if by:
            out[t] = by
    return out


def _unchanged(d: str, pairs: list[tuple[Any, Any]], *, every: str = "pair") -> str | None:
    """Why dimension ``d`` cannot move by construction on these (item, parent) pairs (the
    parent None: the parent's notation as the item's record names it): the derived items
    ask it exactly what their parents asked (so a run, and its reply cache, answer them
    alike). None when it can move."""
    def parent_notation(it: Any, parent: Any) -> str | None:
        return parent.notation if parent is not None else it.parent_notation

    if d == "ar" and pairs and all(it.notation and it.notation == parent_notation(it, parent)
                                   for it, parent in pairs):
        if every == "level":
            return ("the transformation leaves the notation question as it was: every level "
                    "asks the parent's own question, so this curve is fixed by construction "
                    "(not measured)")
        return ("the perturbation leaves the notation question as it was (the same prompt as "
                "the parent's): fixed by construction, not measured")
    return None


def _own(base: RunData | None, it: Any, d: str, k: int) -> str | None:
    """The model's own answer to ``it``'s parent in the base run (the same sample when it
    has one, else the first)."""
    if base is None or it.parent_seed_id not in base.items:
        return None
    obs = base.items[it.parent_seed_id].obs.get(d) or []
    return (obs[k] if k < len(obs) else obs[0]).answer if obs else None


def _counterfactual(data: RunData, dg: Diagnosis, base: RunData | None = None) -> None:
    its = [it for it in data.items.values() if it.transform == "counterfactual"]
    for d in VALUE_DIMS:
        rows = [(o.answer, it.gold, _parent_answer(it), it.level, _own(base, it, d, k))
                for it in its for k, o in enumerate(it.obs.get(d, []))]
        if not rows:
            continue
        own = [(a, g, o) for a, g, _, _, o in rows] if base is not None else None
        dg.counterfactual[d] = counterfactual([(a, g, p) for a, g, p, _, _ in rows], own)
        shifts = sorted({r[3] for r in rows if r[3] is not None})
        dg.counterfactual_by_shift[d] = {
            s: counterfactual([(a, g, p) for a, g, p, lv, _ in rows if lv == s],
                              [(a, g, o) for a, g, _, lv, o in rows if lv == s]
                              if base is not None else None) for s in shifts}


def _parent_answer(it: Any) -> str | None:
    from qcstation.eval.robustness.measures import norm

    return norm(it.params.get("parent_answer")) or it.parent_answer


def _backward(data: RunData, base: RunData | None) -> dict[str, Backward]:
    its = [it for it in data.items.values() if it.transform == "inverse"]
    out: dict[str, Backward] = {}
    for d in ("re", "fi"):
        accs = [(it, a) for it in its if (a := it.acc(d)) is not None]
        if not accs:
            continue
        bw = Backward(sum(a for _, a in accs) / len(accs), len(accs))
        if base is not None:
            paired = [(base.items[it.parent_seed_id].acc(d), a) for it, a in accs
                      if it.parent_seed_id in base.items]
            paired = [(f, a) for f, a in paired if f is not None]
            if paired:
                bw.forward_right = sum(1 for f, _ in paired if f == 1.0)
                bw.both_right = sum(1 for f, a in paired if f == 1.0 and a == 1.0)
        out[d] = bw
    return out


def _fidelity(store: Store, data: RunData) -> dict[str, list[tuple[int, float, int]]]:
    texts: dict[tuple[int, int], str] = {
        (int(r["seed_id"]), int(r["sample_idx"])): r["response"] or "" for r in store.query(
            "SELECT seed_id, sample_idx, response FROM eval_outputs WHERE run_id = ? "
            "AND task = 'final' AND status = 'ok'", (data.run_id,))}
    if not texts:
        return {}
    pts: dict[str, list[tuple[int, float]]] = {"right": [], "wrong": []}
    cache: dict[str, list[Fraction]] = {}
    for it in data.items.values():
        obs = it.obs.get("fi") or []
        if not obs or not it.smtlib or it.transform == "inverse":
            continue
        steps = cache.get(it.smtlib)
        if steps is None:
            steps = cache[it.smtlib] = intermediates(it.smtlib)
        for k, o in enumerate(obs):
            f = step_fidelity(steps, texts.get((it.seed_id, k)))
            if f is not None:
                pts["right" if o.ok else "wrong"].append((len(steps), f))
    return {k: curve(v) for k, v in pts.items() if v}


def diagnose(store: Store, run_id: int, *, base: int | None = None,
             fidelity: bool = True) -> Diagnosis:
    """The diagnosis of one run (see the module docstring); ``base`` names the run of the
    parents (default: found, :func:`~.load.find_base`)."""
    data = load_run_data(store, run_id)
    transforms: dict[str, int] = defaultdict(int)
    for it in data.items.values():
        transforms[it.transform or "seed"] += 1
    dg = Diagnosis(run_id=data.run_id, title=data.title, release=data.release, base_run=None,
                   samples=data.samples, n_items=len(data.items), transforms=dict(transforms),
                   protocol=data.protocol)
    for d in DIMS:
        rows = [[o.answer if o.answer is not None else ("right" if o.ok else "not right")
                 for o in it.obs[d]] for it in data.items.values() if it.obs.get(d)]
        if rows:
            dg.rc[d] = repetition_consistency(rows)
    if data.samples < 2:
        dg.notes.append("RC and consistent failures need --samples 2 or more")
    dg.variants = _variants(data)
    dg.ladders = _ladders(data, dg)
    base_id = find_base(store, data, base)
    base_data = load_run_data(store, base_id) if base_id is not None else None
    dg.base_run = base_id
    if base_data is not None:
        dg.drops = _drops(data, base_data)
    elif any(t in transforms for t in (*PERTURBATIONS, "inverse")):
        dg.notes.append("no run of the same model on the parents: drops, Answer Adjustment and "
                        "backward right given forward need one (evaluate the parents' release, "
                        "or name it with --base)")
    _counterfactual(data, dg, base_data)
    dg.backward = _backward(data, base_data)
    if fidelity:
        dg.fidelity = _fidelity(store, data)
    refine = data.spec.get("refine")
    if isinstance(refine, dict) and refine.get("from"):
        from qcstation.eval.robustness.refine import refine_gain

        dg.refine = {k: v for k, v in refine.items() if k != "note"}
        dg.refine_gain = refine_gain(store, data.run_id, int(refine["from"]))
    dg.round_trip = _round_trip(data)
    return dg


def _round_trip(data: RunData) -> dict[str, dict[str, tuple[float | None, int]]]:
    """A round-trip run: the share of backward questions (stating the model's own forward
    answer) answered with the given Z3 says produces it; all, and by the forward answer."""
    its = [it for it in data.items.values() if it.round_trip is not None]
    out: dict[str, dict[str, tuple[float | None, int]]] = {}
    for d in ("re", "fi"):
        groups: dict[str, list[float]] = {"all": [], "forward right": [], "forward wrong": []}
        for it in its:
            a = it.acc(d)
            if a is None:
                continue
            groups["all"].append(a)
            groups["forward right" if it.round_trip.get("forward_right") else "forward wrong"].append(a)  # type: ignore[union-attr]
        if groups["all"]:
            out[d] = {k: ((sum(v) / len(v)) if v else None, len(v)) for k, v in groups.items()}
    return out
