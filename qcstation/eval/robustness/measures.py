"""The robustness measures as plain functions of plain data (no database, no run): each is
small enough to check by hand, and :mod:`.diagnose` feeds them what a run stored.

An *answer* is the model's answer as compared: the exact value ``p`` / ``p/q`` when the
checker or Z3 read one, else the extracted text, else ``None`` (nothing usable). Two
answers agree when they are equal strings (values are normalised by :func:`norm`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, TypeVar

from qcstation.common.stats import wilson
from qcstation.core.reading.answers import written_numbers

__all__ = [
    "CF",
    "Consistent",
    "SMALL_N",
    "interval",
    "wilson",
    "Drop",
    "McNemar",
    "Robust",
    "consistent_failures",
    "counterfactual",
    "curve",
    "drop",
    "mcnemar",
    "memorised",
    "norm",
    "numbers_in",
    "repetition_consistency",
    "robustness",
    "step_fidelity",
]


def norm(value: Any) -> str | None:
    """An answer as compared: ``"p"`` / ``"p/q"`` for a number (``"2.50"`` -> ``"5/2"``), the
    stripped text otherwise, ``None`` for nothing."""
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        return None
    try:
        f = Fraction(text.replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return text
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


#: below this many units (seeds, items, pairs) a figure is flagged as resting on few
SMALL_N = 30




def interval(values: Sequence[float], *, stat: str = "mean", weights: Sequence[float] = (),
             n_boot: int = 2000) -> tuple[float | None, float | None]:
    """A 95% interval of a figure over its units: Wilson for a mean of values in [0, 1],
    else a percentile bootstrap over the units (seeded by the values: the same units give
    the same interval), for a mean of differences (``stat="mean"``) or a ratio of sums
    (``stat="ratio"``: sum(values) / sum(weights))."""
    import numpy as np

    n = len(values)
    if n == 0:
        return None, None
    v = np.asarray(values, dtype=float)
    if stat == "mean" and v.min() >= 0.0 and v.max() <= 1.0:
        return wilson(float(v.mean()), n)
    w = np.asarray(weights, dtype=float) if stat == "ratio" else None
    key = hash((tuple(np.round(v, 12)), tuple(np.round(w, 12)) if w is not None else ())) & 0xFFFFFFFF
    rng = np.random.default_rng([key, n])
    idx = rng.integers(0, n, size=(n_boot, n))
    if w is None:
        stats = v[idx].mean(axis=1)
    else:
        den = w[idx].sum(axis=1)
        ok = den > 0
        if not ok.any():
            return None, None
        stats = v[idx].sum(axis=1)[ok] / den[ok]
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return float(lo), float(hi)


@dataclass
class Robust:
    """DynaMath's robustness over variant families (its eq. 1 and 2, on 0/1 verdicts):
    ``a_avg`` the mean over seeds of the share of its variants' samples answered right,
    ``a_wst`` the mean over seeds of the *minimum* verdict over all its variants and
    samples (1 only when every sample of every variant is right), ``rr`` = a_wst / a_avg
    (None when a_avg is 0), ``n`` the seeds, ``n_items`` the variants; ``*_ci`` 95%
    intervals over the seeds (Wilson; RR: bootstrap of the ratio)."""

    a_avg: float | None
    a_wst: float | None
    rr: float | None
    n: int
    n_items: int
    a_avg_ci: tuple[float | None, float | None] = (None, None)
    a_wst_ci: tuple[float | None, float | None] = (None, None)
    rr_ci: tuple[float | None, float | None] = (None, None)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def robustness(families: Mapping[Any, Sequence[Sequence[float]]]) -> Robust:
    """``families``: seed -> per variant, its verdicts (1 right, 0 not) on each counted
    sample."""
    fams = [[[float(x) for x in v] for v in f if len(v)] for f in families.values()]
    fams = [f for f in fams if f]
    if not fams:
        return Robust(None, None, None, 0, 0)
    avg = [sum(sum(v) / len(v) for v in f) / len(f) for f in fams]
    wst = [min(min(v) for v in f) for f in fams]
    a_avg, a_wst = sum(avg) / len(fams), sum(wst) / len(fams)
    return Robust(a_avg, a_wst, a_wst / a_avg if a_avg else None, len(fams),
                  sum(len(f) for f in fams), interval(avg), interval(wst),
                  interval(wst, stat="ratio", weights=avg) if a_avg else (None, None))


def repetition_consistency(samples: Iterable[Sequence[str | None]]) -> tuple[float | None, int]:
    """RC (DynaMath eq. 3): per item, the share of its K samples whose answer equals the
    first's, RC = (1/K) sum_k 1[Ans_k = Ans_1], averaged over the items with at least two
    samples; (RC, items)."""
    per_item = []
    for answers in samples:
        if len(answers) < 2:
            continue
        first = answers[0]
        per_item.append(sum(a == first for a in answers) / len(answers))
    return _mean(per_item), len(per_item)


@dataclass
class Consistent:
    """DynaMath's consistent failures: ``seeds`` with a variant solved (right on every
    sample) and another failed consistently (wrong on every sample, the same answer every
    time: RC = 1), as a ``share`` of the ``n`` seeds with a repeated variant;
    ``unanswered`` variants (no answer on any sample: failed requests, nothing readable)
    are counted apart and never as consistent failures."""

    share: float | None
    seeds: int
    n: int
    unanswered: int
    ci: tuple[float | None, float | None] = (None, None)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def consistent_failures(families: Mapping[Any, Sequence[tuple[Sequence[bool], Sequence[str | None]]]]
                        ) -> Consistent | None:
    """``families``: seed -> per variant (verdicts per sample, answers per sample). None
    when no variant has two samples (RC is not known)."""
    fams = {k: [(ok, ans) for ok, ans in fam if len(ok) >= 2] for k, fam in families.items()}
    fams = {k: fam for k, fam in fams.items() if fam}
    if not fams:
        return None
    hit = unanswered = 0
    for fam in fams.values():
        unanswered += sum(1 for _, answers in fam if all(a is None for a in answers))
        solved = any(all(ok) for ok, _ in fam)
        failed = any(not any(ok) and None not in answers and len(set(answers)) == 1
                     for ok, answers in fam)
        hit += solved and failed
    share = hit / len(fams)
    return Consistent(share, hit, len(fams), unanswered, wilson(share, len(fams)))


_Seed = TypeVar("_Seed", bound=Hashable)


def memorised(families: Mapping[_Seed, Sequence[tuple[str | None, str | None]]]) -> list[_Seed]:
    """The seeds whose variants show memorisation: the model gives the same answer to two
    variants whose golds differ. ``families``: seed -> per variant (gold, answer)."""
    out: list[_Seed] = []
    for key, fam in families.items():
        golds_by_answer: dict[str, set[str | None]] = defaultdict(set)
        for gold, answer in fam:
            if answer is not None:
                golds_by_answer[answer].add(gold)
        if any(len(g) >= 2 for g in golds_by_answer.values()):
            out.append(key)
    return out


def curve(points: Iterable[tuple[int, float]]) -> list[tuple[int, float, int]]:
    """A ladder curve: (level, mean accuracy, items) per level, levels ascending."""
    by: dict[int, list[float]] = defaultdict(list)
    for level, acc in points:
        by[int(level)].append(acc)
    return [(lvl, sum(v) / len(v), len(v)) for lvl, v in sorted(by.items())]


@dataclass
class Drop:
    """Performance drop under a perturbation over paired (parent, perturbed item): ``base``
    the parents' accuracy, ``perturbed`` the items', ``drop`` = base - perturbed (points
    of accuracy, 0..1), ``n`` pairs, ``ci`` its 95% interval (bootstrap over the pairs);
    ``fixed``: why the drop cannot move by construction (the perturbed item asks this
    dimension exactly what the parent asked), else None; a fixed drop is not measured
    (``drop`` and ``ci`` None), whatever the two accuracies say."""

    base: float | None
    perturbed: float | None
    drop: float | None
    n: int
    ci: tuple[float | None, float | None] = (None, None)
    fixed: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def drop(pairs: Iterable[tuple[float, float]], *, fixed: str | None = None) -> Drop:
    """``pairs``: (the parent's accuracy in the base run, the perturbed item's)."""
    ps = list(pairs)
    if not ps:
        return Drop(None, None, None, 0, fixed=fixed)
    base = sum(b for b, _ in ps) / len(ps)
    pert = sum(p for _, p in ps) / len(ps)
    if fixed:
        return Drop(base, pert, None, len(ps), fixed=fixed)
    return Drop(base, pert, base - pert, len(ps), interval([b - p for b, p in ps]), fixed)


@dataclass
class CF:
    """Counterfactual sensitivity over item-samples: ``follow`` the share answered with the
    new (shifted) gold (accuracy on the counterfactuals; not the paper's Answer Adjustment),
    ``repeat`` the share answered with the parent's original gold (a memorisation signal),
    ``n`` the item-samples. ``adjust``: Catch Me If You Can's Answer Adjustment rate (its
    eq. 38c-41): the share whose answer is right *and* differs from the model's own answer
    to the parent (base run), over the ``n_adjust`` item-samples whose parent it answered;
    None without a base run. ``*_ci``: 95% Wilson intervals."""

    follow: float | None
    repeat: float | None
    n: int
    adjust: float | None = None
    n_adjust: int = 0
    follow_ci: tuple[float | None, float | None] = (None, None)
    repeat_ci: tuple[float | None, float | None] = (None, None)
    adjust_ci: tuple[float | None, float | None] = (None, None)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def counterfactual(rows: Iterable[tuple[str | None, str | None, str | None]],
                   own: Iterable[tuple[str | None, str | None, str | None]] | None = None) -> CF:
    """``rows``: (the model's answer, the counterfactual's gold, the parent's gold);
    ``own``: (the model's answer, the counterfactual's gold, the model's own answer to the
    parent) for the Answer Adjustment, where a base run answered the parent."""
    rs = list(rows)
    if not rs:
        return CF(None, None, 0)
    follow = sum(1 for a, g, _ in rs if a is not None and a == g) / len(rs)
    repeat = sum(1 for a, g, p in rs if a is not None and a == p and p != g) / len(rs)
    cf = CF(follow, repeat, len(rs), follow_ci=wilson(follow, len(rs)),
            repeat_ci=wilson(repeat, len(rs)))
    ow = [r for r in (own or []) if r[2] is not None]
    if ow:
        cf.adjust = sum(1 for a, g, p in ow if a is not None and a == g and a != p) / len(ow)
        cf.n_adjust = len(ow)
        cf.adjust_ci = wilson(cf.adjust, len(ow))
    return cf


@dataclass
class McNemar:
    """Paired comparison of two verdict lists over the same items: ``gained`` wrong before
    and right now, ``lost`` right before and wrong now, ``p`` the exact McNemar test (a
    two-sided binomial test of ``gained`` among the discordant pairs; 1.0 when none)."""

    n: int
    before: float | None
    after: float | None
    gained: int
    lost: int
    p: float

    @property
    def gain(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "gain": self.gain}


def mcnemar(before: Sequence[bool], after: Sequence[bool]) -> McNemar:
    from scipy.stats import binomtest

    if len(before) != len(after):
        raise ValueError("paired lists of different lengths")
    n = len(before)
    gained = sum(1 for b, a in zip(before, after) if a and not b)
    lost = sum(1 for b, a in zip(before, after) if b and not a)
    p = float(binomtest(gained, gained + lost, 0.5).pvalue) if gained + lost else 1.0
    return McNemar(n, sum(before) / n if n else None, sum(after) / n if n else None,
                   gained, lost, min(1.0, p))


def numbers_in(text: str | None) -> set[Fraction]:
    """Every number written in a text (``1,500``, ``2.5``, ``3/4``, ``-7``), exact."""
    return written_numbers(text, signed=True)


def _appears(value: Fraction, found: set[Fraction]) -> bool:
    if value in found:
        return True
    if value.denominator == 1:
        return False
    # a value a chain of thought can only round (1/3): written to 2 decimals or more
    return any(f.denominator != 1 and math.isclose(float(f), float(value), abs_tol=0.005)
               for f in found)


def step_fidelity(intermediates: Sequence[Fraction], text: str | None) -> float | None:
    """The share of the reference's intermediate values written in a chain of thought
    (exactly, or a non-terminating value rounded to 2 decimals or more); None when the
    reference has no intermediate value."""
    if not intermediates:
        return None
    found = numbers_in(text)
    return sum(1 for v in intermediates if _appears(v, found)) / len(intermediates)
