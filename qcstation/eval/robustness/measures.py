"""The robustness measures as plain functions of plain data (no database, no run): each is
small enough to check by hand, and :mod:`.diagnose` feeds them what a run stored.

An *answer* is the model's answer as compared: the exact value ``p`` / ``p/q`` when the
checker or Z3 read one, else the extracted text, else ``None`` (nothing usable). Two
answers agree when they are equal strings (values are normalised by :func:`norm`).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

__all__ = [
    "CF",
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


@dataclass
class Robust:
    """DynaMath's robustness over variant families: ``a_avg`` the mean over seeds of the
    mean over its variants, ``a_wst`` the mean over seeds of the minimum, ``rr`` =
    a_wst / a_avg (None when a_avg is 0), ``n`` the seeds."""

    a_avg: float | None
    a_wst: float | None
    rr: float | None
    n: int
    n_items: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def robustness(families: Mapping[Any, Sequence[float]]) -> Robust:
    """``families``: seed -> the accuracy (0..1) of each of its variants."""
    fams = [list(v) for v in families.values() if len(v)]
    if not fams:
        return Robust(None, None, None, 0, 0)
    a_avg = sum(sum(f) / len(f) for f in fams) / len(fams)
    a_wst = sum(min(f) for f in fams) / len(fams)
    return Robust(a_avg, a_wst, a_wst / a_avg if a_avg else None, len(fams),
                  sum(len(f) for f in fams))


def repetition_consistency(samples: Iterable[Sequence[str | None]]) -> tuple[float | None, int]:
    """RC: per item the share of its repeated samples (2nd..Kth) whose answer equals the
    first's, averaged over the items with at least two samples; (RC, items)."""
    per_item = []
    for answers in samples:
        if len(answers) < 2:
            continue
        first = answers[0]
        per_item.append(sum(a == first for a in answers[1:]) / (len(answers) - 1))
    return _mean(per_item), len(per_item)


def consistent_failures(families: Mapping[Hashable, Sequence[tuple[Sequence[bool], Sequence[str | None]]]]
                        ) -> int | None:
    """Variants a model fails *consistently* while it solves others of the same seed: in a
    family with at least one variant right on every sample, each variant wrong on every
    sample with the same answer every time (RC = 1). ``families``: seed -> per variant
    (verdicts per sample, answers per sample). None when no variant has two samples (RC
    is not known)."""
    if not any(len(ok) >= 2 for fam in families.values() for ok, _ in fam):
        return None
    count = 0
    for fam in families.values():
        if not any(ok and all(ok) for ok, _ in fam):
            continue
        for ok, answers in fam:
            if len(ok) >= 2 and not any(ok) and len(set(answers)) == 1:
                count += 1
    return count


def memorised(families: Mapping[Hashable, Sequence[tuple[str | None, str | None]]]) -> list[Hashable]:
    """The seeds whose variants show memorisation: the model gives the same answer to two
    variants whose golds differ. ``families``: seed -> per variant (gold, answer)."""
    out = []
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
    of accuracy, 0..1), ``n`` pairs."""

    base: float | None
    perturbed: float | None
    drop: float | None
    n: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def drop(pairs: Iterable[tuple[float, float]]) -> Drop:
    """``pairs``: (the parent's accuracy in the base run, the perturbed item's)."""
    ps = list(pairs)
    if not ps:
        return Drop(None, None, None, 0)
    base = sum(b for b, _ in ps) / len(ps)
    pert = sum(p for _, p in ps) / len(ps)
    return Drop(base, pert, base - pert, len(ps))


@dataclass
class CF:
    """Counterfactual sensitivity: ``follow`` the share of items answered with the new
    (shifted) answer, ``repeat`` the share answered with the parent's original answer (a
    memorisation signal), ``n`` the items."""

    follow: float | None
    repeat: float | None
    n: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def counterfactual(rows: Iterable[tuple[str | None, str | None, str | None]]) -> CF:
    """``rows``: (the model's answer, the counterfactual's gold, the parent's answer)."""
    rs = list(rows)
    if not rs:
        return CF(None, None, 0)
    follow = sum(1 for a, g, _ in rs if a is not None and a == g)
    repeat = sum(1 for a, g, p in rs if a is not None and a == p and p != g)
    return CF(follow / len(rs), repeat / len(rs), len(rs))


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


_NUMBER_RE = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?")
MAX_TEXT = 100_000


def numbers_in(text: str | None) -> set[Fraction]:
    """Every number written in a text (``1,500``, ``2.5``, ``3/4``, ``-7``), exact."""
    out: set[Fraction] = set()
    for m in _NUMBER_RE.finditer((text or "")[:MAX_TEXT]):
        raw = m.group(0).replace(",", "").replace(" ", "")
        try:
            out.add(Fraction(raw))
        except (ValueError, ZeroDivisionError):
            continue
    return out


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
