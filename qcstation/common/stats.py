"""Small exact statistics for the QC gate.

* :func:`clopper_pearson_upper` — one-sided Clopper-Pearson upper confidence bound on a
  binomial proportion (the defect rate of a sampled dimension): the ``p`` that solves
  ``P(X <= k | n, p) = 1 - confidence``, which is the ``confidence`` quantile of
  Beta(k + 1, n - k) (scipy's ``betaincinv``, imported when a bound needs it: a constant
  time per bound, where bisecting the CDF cost O(k) per step — 25 s for the gates of a
  sample with 2,000 defects).
* :func:`binom_cdf` — the binomial CDF, summed in log space.
* :func:`clopper_pearson_interval` — the two-sided interval (each tail ``alpha / 2``).
* :func:`reviews_needed` — the smallest sample size whose bound falls below a threshold
  for a given number of defects (how far a sample must be extended).
* :func:`cohen_kappa` — chance-corrected agreement between two annotators.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence

__all__ = [
    "binom_cdf",
    "clopper_pearson_upper",
    "clopper_pearson_lower",
    "clopper_pearson_interval",
    "reviews_needed",
    "gwet_ac1",
    "cohen_kappa",
    "observed_agreement",
    "wilson",
]

def _check(k: int, n: int) -> None:
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space (stable for large n)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    lp, lq = math.log(p), math.log1p(-p)
    lgn = math.lgamma(n + 1)
    terms = [lgn - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
             for i in range(k + 1)]
    top = max(terms)
    total = math.exp(top) * math.fsum(math.exp(t - top) for t in terms)
    return min(1.0, max(0.0, total))


def _beta_quantile(q: float, a: int, b: int) -> float:
    """The ``q`` quantile of Beta(a, b): ``P(X <= k | n, p)`` falls to ``q`` at
    ``p = _beta_quantile(1 - q, k + 1, n - k)``."""
    from scipy.special import betaincinv

    return float(betaincinv(a, b, q))


def clopper_pearson_upper(k: int, n: int, confidence: float = 0.95) -> float:
    """One-sided upper bound at ``confidence`` on the rate behind ``k`` events in ``n`` trials.

    ``n == 0`` gives 1.0 (nothing is known). ``k == 0`` has the closed form
    ``1 - (1 - confidence) ** (1 / n)``; e.g. 0 defects in 59 reviews → 0.0495.
    """
    _check(k, n)
    _check_confidence(confidence)
    if n == 0 or k == n:
        return 1.0
    alpha = 1.0 - confidence
    if k == 0:
        return 1.0 - alpha ** (1.0 / n)
    return _beta_quantile(confidence, k + 1, n - k)


def clopper_pearson_lower(k: int, n: int, confidence: float = 0.95) -> float:
    """One-sided lower bound: the p with P(X >= k | n, p) = 1 - confidence."""
    _check(k, n)
    _check_confidence(confidence)
    if n == 0 or k == 0:
        return 0.0
    alpha = 1.0 - confidence
    if k == n:
        return alpha ** (1.0 / n)
    # P(X >= k) = 1 - P(X <= k-1) = alpha  <=>  P(X <= k-1) = 1 - alpha
    return _beta_quantile(alpha, k, n - k + 1)


def clopper_pearson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided exact interval, ``(1 - confidence) / 2`` in each tail."""
    _check_confidence(confidence)
    one_sided = 1.0 - (1.0 - confidence) / 2
    return clopper_pearson_lower(k, n, one_sided), clopper_pearson_upper(k, n, one_sided)


def reviews_needed(defects: int, threshold: float, confidence: float = 0.95,
                   limit: int = 1_000_000) -> int | None:
    """Smallest n with ``clopper_pearson_upper(defects, n) < threshold``.

    None when no n up to ``limit`` is enough (threshold 0, or far too many defects).
    """
    if defects < 0:
        raise ValueError("defects must be >= 0")
    if threshold <= 0.0:
        return None
    if threshold >= 1.0:
        return defects + 1  # any k < n has a bound below 1
    lo = max(defects, 1)
    if clopper_pearson_upper(defects, lo, confidence) < threshold:
        return lo
    hi = lo
    while clopper_pearson_upper(defects, hi, confidence) >= threshold:
        if hi >= limit:
            return None
        hi = min(limit, hi * 2)
    while hi - lo > 1:  # bound falls monotonically with n for fixed defects
        mid = (lo + hi) // 2
        if clopper_pearson_upper(defects, mid, confidence) < threshold:
            hi = mid
        else:
            lo = mid
    return hi


def observed_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    if len(a) != len(b):
        raise ValueError("both annotators must label the same items")
    if not a:
        return None
    return sum(1 for x, y in zip(a, b) if x == y) / len(a)


def gwet_ac1(a: Sequence[Hashable], b: Sequence[Hashable],
             categories: Sequence[Hashable] | None = None) -> float | None:
    """Gwet's AC1 for two raters (Gwet 2008, "Computing inter-rater reliability and its
    variance in the presence of high agreement"): ``(p_o - p_e) / (1 - p_e)`` with chance
    agreement ``p_e = sum_k pi_k (1 - pi_k) / (K - 1)``, ``pi_k`` the mean share of label k
    over both raters and K the number of labels (``categories``, default those seen, at
    least 2). Unlike kappa it stays near the observed agreement when one label dominates
    (the "kappa paradox"). None when there are no items."""
    po = observed_agreement(a, b)
    if po is None:
        return None
    n = len(a)
    labels = list(dict.fromkeys([*(categories or ()), *a, *b]))
    k = max(len(labels), 2)
    ca, cb = Counter(a), Counter(b)
    pe = sum(((ca[x] + cb[x]) / (2 * n)) * (1 - (ca[x] + cb[x]) / (2 * n)) for x in labels) / (k - 1)
    if math.isclose(pe, 1.0):  # pragma: no cover - pe <= 1/2 for two labels
        return None
    return (po - pe) / (1.0 - pe)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa ``(p_o - p_e) / (1 - p_e)`` for two label sequences over the same items.

    None when there are no items, or when chance agreement is already 1 (both annotators
    used one and the same label throughout: kappa is undefined there).
    """
    po = observed_agreement(a, b)
    if po is None:
        return None
    n = len(a)
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[label] * cb[label] for label in set(ca) | set(cb)) / (n * n)
    if math.isclose(pe, 1.0):
        return None
    return (po - pe) / (1.0 - pe)


def wilson(p: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score 95% interval of a proportion ``p`` over ``n`` items (``p`` may be a mean
    of per-item means with several samples). Never zero width on a non-empty sample: at 0%
    and 100% it still reaches into (0, 1)."""
    if n <= 0:
        return 0.0, 1.0
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n)))
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if p <= 0.0 else min(lo, p)), (1.0 if p >= 1.0 else max(hi, p))
