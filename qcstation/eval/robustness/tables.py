"""A diagnosis as titled tables of plain cells: what ``qcstation eval robustness`` prints,
the results screen shows and the report writes (one layout for all three)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qcstation.eval.robustness.diagnose import LADDER_DIM, LADDER_TITLES, PERTURBATIONS, Diagnosis
from qcstation.eval.robustness.load import DIMS
from qcstation.eval.types import LABELS

__all__ = ["LADDER_TITLES", "Table", "pct", "tables"]


@dataclass
class Table:
    key: str
    title: str
    headers: list[str]
    rows: list[list[Any]]
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _ratio(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _label(d: str) -> str:
    return LABELS.get(d, d)


def tables(dg: Diagnosis) -> list[Table]:
    """Every table the diagnosis has data for, in reading order."""
    out: list[Table] = []
    for build in (_variants, _ladders, _drops, _counterfactual, _backward, _fidelity,
                  _round_trip, _refine):
        out.extend(build(dg))
    return out


def _variants(dg: Diagnosis) -> list[Table]:
    """DynaMath's figures per dimension; without variants, RC alone when samples repeat."""
    if dg.variants:
        return [Table("variants", "Variants (DynaMath): average and worst case over each seed's "
                                  "variants",
                      ["dimension", "seeds", "variants", "A_avg %", "A_wst %", "RR", "RC",
                       "consistent failures", "memorisation (seeds)", "parent's answer %"],
                      [[_label(d), v.robust.n, v.robust.n_items, pct(v.robust.a_avg),
                        pct(v.robust.a_wst), _ratio(v.robust.rr), _ratio(dg.rc.get(d, (None, 0))[0]),
                        "-" if v.consistent_failures is None else v.consistent_failures,
                        v.memorised, pct(v.repeat_parent)] for d, v in dg.variants.items()],
                      note="RR = A_wst / A_avg; RC = share of repeated samples agreeing with the "
                           "first; memorisation = seeds where two variants with different golds "
                           "got the same answer")]
    if any(n for _, n in dg.rc.values()):
        return [Table("rc", "Repetition consistency (RC)", ["dimension", "items", "RC"],
                      [[_label(d), n, _ratio(v)] for d, (v, n) in dg.rc.items() if n])]
    return []


def _ladders(dg: Diagnosis) -> list[Table]:
    """One table per ladder: accuracy (items) per level and dimension."""
    out = []
    for ladder, by in dg.ladders.items():
        levels = sorted({lv for pts in by.values() for lv, _, _ in pts})
        rows = []
        for d in DIMS:
            if d not in by:
                continue
            at = {lv: (a, n) for lv, a, n in by[d]}
            mark = " *" if LADDER_DIM[ladder] == d else ""
            rows.append([_label(d) + mark] + [f"{pct(at[lv][0])} ({at[lv][1]})" if lv in at else "-"
                                              for lv in levels])
        out.append(Table(f"ladder-{ladder}", LADDER_TITLES[ladder], ["dimension"] +
                         [str(lv) for lv in levels], rows,
                         note="accuracy % (items) per level; * the dimension this ladder raises",
                         extra={"ladder": ladder}))
    return out


def _drops(dg: Diagnosis) -> list[Table]:
    """SMART Table 3: per perturbation, the drop against the parents, the worst marked."""
    out = []
    for t in PERTURBATIONS:
        drops = dg.drops.get(t)
        if not drops:
            continue
        worst = dg.most_dropped(t)
        out.append(Table(f"drop-{t}", f"Perturbation '{t}': drop against the parents (base run "
                                      f"#{dg.base_run})",
                         ["dimension", "pairs", "parents %", "perturbed %", "drop (points)"],
                         [[_label(d) + (" <- most" if d == worst else ""), v.n, pct(v.base),
                           pct(v.perturbed), pct(v.drop)] for d, v in drops.items()]))
    return out


def _counterfactual(dg: Diagnosis) -> list[Table]:
    if not dg.counterfactual:
        return []
    shifts = sorted({s for by in dg.counterfactual_by_shift.values() for s in by})
    rows: list[list[Any]] = []
    for d, cf in dg.counterfactual.items():
        per = dg.counterfactual_by_shift.get(d, {})
        rows.append([_label(d), cf.n, pct(cf.follow), pct(cf.repeat)] +
                    [pct(per[s].follow) if s in per else "-" for s in shifts])
    return [Table("counterfactual", "Counterfactual sensitivity: one given shifted, answer "
                                    "re-solved by Z3",
                  ["dimension", "item-samples", "follows %", "repeats original %"] +
                  [f"follows @{s:+d}%" for s in shifts], rows)]


def _backward(dg: Diagnosis) -> list[Table]:
    if not dg.backward:
        return []
    return [Table("backward", "Backward problems: the answer given, one given hidden (X)",
                  ["dimension", "items", "backward right %", "forward right",
                   "both right", "consistency %"],
                  [[_label(d), b.n, pct(b.accuracy), "-" if b.forward_right is None
                    else b.forward_right, "-" if b.both_right is None else b.both_right,
                    pct(b.consistency)] for d, b in dg.backward.items()],
                  note="consistency = share of the parents answered right forward whose "
                       "backward problem is answered right")]


def _fidelity(dg: Diagnosis) -> list[Table]:
    if not dg.fidelity:
        return []
    steps = sorted({s for pts in dg.fidelity.values() for s, _, _ in pts})
    rows = []
    for k in ("right", "wrong"):
        at = {s: (f, n) for s, f, n in dg.fidelity.get(k, [])}
        rows.append([f"final answer {k}"] + [f"{pct(at[s][0])} ({at[s][1]})" if s in at else "-"
                                             for s in steps])
    return [Table("fidelity", "Step fidelity: the reference's intermediate values found in "
                              "the chain of thought",
                  ["", *[f"{s} steps" for s in steps]], rows,
                  note="share % (item-samples) by the number of intermediate values")]


def _round_trip(dg: Diagnosis) -> list[Table]:
    if not dg.round_trip:
        return []
    return [Table("round-trip", "Round trip: the model's forward answer stated in the backward "
                                "question; X by Z3",
                  ["dimension", "all %", "forward right %", "forward wrong %"],
                  [[_label(d), *(f"{pct(by[k][0])} ({by[k][1]})" for k in
                                 ("all", "forward right", "forward wrong"))]
                   for d, by in dg.round_trip.items()],
                  note="share % (items) recovering the given that produces the model's own "
                       "forward answer")]


def _refine(dg: Diagnosis) -> list[Table]:
    if dg.refine is None:
        return []
    return [Table("refine", f"Self-refine on {dg.refine.get('dimension')}: gain against run "
                            f"#{dg.refine.get('from')}",
                  ["dimension", "items", "before %", "after %", "gain (points)", "gained",
                   "lost", "McNemar p"],
                  [[_label(d), m.n, pct(m.before), pct(m.after), pct(m.gain), m.gained,
                    m.lost, f"{m.p:.4f}"] for d, m in dg.refine_gain.items()],
                  note="paired over the items both runs scored (first samples); exact "
                       "McNemar test")]
