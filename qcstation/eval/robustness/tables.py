"""A diagnosis as titled tables of plain cells: what ``qcstation eval robustness`` prints,
the results screen shows and the report writes (one layout for all three)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qcstation.eval.robustness.diagnose import LADDER_DIM, LADDER_TITLES, PERTURBATIONS, Diagnosis
from qcstation.eval.robustness.load import DIMS
from qcstation.eval.robustness.measures import SMALL_N, wilson
from qcstation.eval.types import LABELS

__all__ = ["LADDER_TITLES", "Table", "pct", "tables"]

#: the note every table with intervals carries
CI_NOTE = (f"[lo-hi]: 95% interval (Wilson over the units; drops and RR: bootstrap); "
           f"† n < {SMALL_N}: few units, read the interval")


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


def _ci(v: float | None, ci: tuple[float | None, float | None] | None, *, ratio: bool = False) -> str:
    """A figure with its 95% interval: ``66.7 [41.2-84.6]`` (ratios: ``0.750 [0.50-1.00]``)."""
    if v is None:
        return "-"
    lo, hi = ci if ci is not None else (None, None)
    if ratio:
        return _ratio(v) + (f" [{lo:.2f}-{hi:.2f}]" if lo is not None and hi is not None else "")
    return pct(v) + (f" [{100 * lo:.1f}-{100 * hi:.1f}]" if lo is not None and hi is not None else "")


def _share(v: float | None, n: int) -> str:
    """A share of ``n`` units with its Wilson interval."""
    return _ci(v, wilson(v, n) if v is not None and n else None)


def _n(n: int) -> str:
    return f"{n}†" if 0 < n < SMALL_N else str(n)


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
        rows = []
        for d, v in dg.variants.items():
            rc, rc_n = dg.rc.get(d, (None, 0))
            c = v.consistent_failures
            rows.append([_label(d), _n(v.robust.n), v.robust.n_items,
                         _ci(v.robust.a_avg, v.robust.a_avg_ci), _ci(v.robust.a_wst, v.robust.a_wst_ci),
                         _ci(v.robust.rr, v.robust.rr_ci, ratio=True),
                         _ci(rc, wilson(rc, rc_n) if rc is not None else None, ratio=True),
                         "-" if c is None else f"{_ci(c.share, c.ci)} ({c.seeds}/{c.n})",
                         "-" if c is None else c.unanswered,
                         v.memorised, _share(v.repeat_parent, v.n_repeat)])
        return [Table("variants", "Variants (DynaMath): average and worst case over each seed's "
                                  "variants and samples",
                      ["dimension", "seeds", "variants", "A_avg %", "A_wst %", "RR", "RC",
                       "consistent failures % (seeds)", "unanswered variants",
                       "memorisation (seeds)", "parent's gold %"], rows,
                      note="A_wst: a seed counts only when every sample of every variant is "
                           "right; RR = A_wst / A_avg; RC = share of a variant's K samples "
                           "agreeing with the first; consistent failures = seeds with a variant "
                           "solved and another wrong with the same answer every time (RC = 1), "
                           "unanswered variants apart; memorisation = seeds where two variants "
                           "with different golds got the same answer (any samples); R-m gated "
                           "by R-t as on the leaderboard. " + CI_NOTE)]
    if any(n for _, n in dg.rc.values()):
        return [Table("rc", "Repetition consistency (RC)", ["dimension", "items", "RC"],
                      [[_label(d), _n(n), _ci(v, wilson(v, n) if v is not None else None, ratio=True)]
                       for d, (v, n) in dg.rc.items() if n], note=CI_NOTE)]
    return []


def _ladders(dg: Diagnosis) -> list[Table]:
    """One table per ladder: accuracy (items) per level and dimension."""
    out = []
    for ladder, by in dg.ladders.items():
        fixed = dg.ladders_fixed.get(ladder, {})
        levels = sorted({lv for pts in by.values() for lv, _, _ in pts})
        rows = []
        for d in DIMS:
            if d not in by:
                continue
            at = {lv: (a, n) for lv, a, n in by[d]}
            mark = " *" if LADDER_DIM[ladder] == d else ""
            if d in fixed:
                rows.append([_label(d) + mark + " §"] + [f"fixed ({_n(at[lv][1])})" if lv in at
                                                         else "-" for lv in levels])
                continue
            rows.append([_label(d) + mark] + [f"{_share(*at[lv])} ({_n(at[lv][1])})" if lv in at
                                              else "-" for lv in levels])
        out.append(Table(f"ladder-{ladder}", LADDER_TITLES[ladder], ["dimension"] +
                         [str(lv) for lv in levels], rows,
                         note="accuracy % (items) per level; * the dimension this ladder raises. "
                              + "".join(f"§ {_label(d)}: {why}. " for d, why in fixed.items())
                              + CI_NOTE,
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
                         [[_label(d) + ((" <- most (tie)" if len(worst) > 1 else " <- most")
                                        if d in worst else ""), _n(v.n),
                           _share(v.base, v.n), _share(v.perturbed, v.n),
                           ("fixed by construction" if v.fixed else _ci(v.drop, v.ci))]
                          for d, v in drops.items()],
                         note="; ".join([f"{_label(d)}: {v.fixed}" for d, v in drops.items()
                                         if v.fixed] + [CI_NOTE])))
    return out


def _counterfactual(dg: Diagnosis) -> list[Table]:
    if not dg.counterfactual:
        return []
    shifts = sorted({s for by in dg.counterfactual_by_shift.values() for s in by})
    rows: list[list[Any]] = []
    for d, cf in dg.counterfactual.items():
        per = dg.counterfactual_by_shift.get(d, {})
        rows.append([_label(d), _n(cf.n), _ci(cf.follow, cf.follow_ci), _ci(cf.repeat, cf.repeat_ci),
                     _ci(cf.adjust, cf.adjust_ci) + (f" ({cf.n_adjust})" if cf.n_adjust else "")] +
                    [_ci(per[s].follow, per[s].follow_ci) if s in per else "-" for s in shifts])
    return [Table("counterfactual", "Counterfactual sensitivity: one given shifted, answer "
                                    "re-solved by Z3",
                  ["dimension", "item-samples", "new gold %", "parent's gold %",
                   "Answer Adjustment %"] + [f"new gold @{s:+d}%" for s in shifts], rows,
                  note="new gold = answered with the shifted problem's gold (accuracy on the "
                       "counterfactuals); Answer Adjustment (Catch Me If You Can, eq. 38c) = "
                       "right and different from the model's own answer to the parent (base "
                       "run; - without one). " + CI_NOTE)]


def _backward(dg: Diagnosis) -> list[Table]:
    if not dg.backward:
        return []
    return [Table("backward", "Backward problems: the answer given, one given hidden (X)",
                  ["dimension", "items", "backward right %", "forward right",
                   "both right", "backward right | forward right %"],
                  [[_label(d), _n(b.n), _share(b.accuracy, b.n), "-" if b.forward_right is None
                    else b.forward_right, "-" if b.both_right is None else b.both_right,
                    _share(b.right_given_forward, b.forward_right or 0)]
                   for d, b in dg.backward.items()],
                  note="backward right | forward right = share of the parents answered right "
                       "forward whose backward problem is answered right (a conditional "
                       "accuracy; not the paper's forward/backward consistency, a token overlap "
                       "of the two reasoning chains). " + CI_NOTE)]


def _fidelity(dg: Diagnosis) -> list[Table]:
    if not dg.fidelity:
        return []
    steps = sorted({s for pts in dg.fidelity.values() for s, _, _ in pts})
    rows = []
    for k in ("right", "wrong"):
        at = {s: (f, n) for s, f, n in dg.fidelity.get(k, [])}
        rows.append([f"final answer {k}"] + [f"{_share(*at[s])} ({_n(at[s][1])})" if s in at
                                             else "-" for s in steps])
    return [Table("fidelity", "Step fidelity: the reference's intermediate values found in "
                              "the chain of thought",
                  ["", *[f"{s} step" + ("" if s == 1 else "s") for s in steps]], rows,
                  note="share % (item-samples) by the number of intermediate values (the "
                       "answer is not one). " + CI_NOTE)]


def _round_trip(dg: Diagnosis) -> list[Table]:
    if not dg.round_trip:
        return []
    return [Table("round-trip", "Round trip: the model's forward answer stated in the backward "
                                "question; X by Z3",
                  ["dimension", "all %", "forward right %", "forward wrong %"],
                  [[_label(d), *(f"{_share(*by[k])} ({_n(by[k][1])})" for k in
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
                   "lost", "sign-test p"],
                  [[_label(d), m.n, pct(m.before), pct(m.after), pct(m.gain), m.gained,
                    m.lost, f"{m.p:.4f}"] for d, m in dg.refine_gain.items()],
                  note="paired over the items both runs scored, every sample counted: before "
                       "/ after average each item's share of right samples (R-m: samples whose "
                       "reflection is right, as on the leaderboard); gained / lost = items whose "
                       "share rose / fell; p = exact sign test on those (McNemar's with one "
                       "sample per item)")]
