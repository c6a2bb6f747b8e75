from __future__ import annotations

import math
import os
from pathlib import Path
from fractions import Fraction

import pytest

from qcstation.common.stats import (
    binom_cdf,
    clopper_pearson_interval,
    clopper_pearson_lower,
    clopper_pearson_upper,
    cohen_kappa,
    observed_agreement,
    reviews_needed,
)
from tests.conftest import ROOT


def _exact_cdf(k: int, n: int, p: Fraction) -> Fraction:
    return sum((Fraction(math.comb(n, i)) * p**i * (1 - p) ** (n - i) for i in range(k + 1)),
               Fraction(0))


@pytest.mark.parametrize("k,n,p", [(0, 5, "1/3"), (2, 7, "1/2"), (3, 10, "1/10"), (9, 20, "3/7")])
def test_binom_cdf_matches_exact_fractions(k: int, n: int, p: str) -> None:
    exact = _exact_cdf(k, n, Fraction(p))
    assert binom_cdf(k, n, float(Fraction(p))) == pytest.approx(float(exact), rel=1e-12)


def test_binom_cdf_is_stable_for_large_n() -> None:
    # P(X <= 500 | 1000, 0.5) = 1/2 + P(X = 500)/2
    half = 0.5 + math.comb(1000, 500) / 2**1000 / 2
    assert binom_cdf(500, 1000, 0.5) == pytest.approx(half, rel=1e-10)


def test_zero_defects_in_59_reviews_bound_is_about_4_95_percent() -> None:
    ub = clopper_pearson_upper(0, 59, 0.95)
    assert ub == pytest.approx(0.0495, abs=5e-5)
    assert ub < 0.05 < clopper_pearson_upper(0, 58, 0.95)
    assert ub == pytest.approx(1 - 0.05 ** (1 / 59), rel=1e-12)


@pytest.mark.parametrize("k,n,conf,expected", [
    (1, 10, 0.95, 0.3942),    # one-sided, standard table value
    (2, 50, 0.95, 0.1206),
    (0, 30, 0.99, 0.1423),
])
def test_one_sided_upper_bounds_match_known_values(k: int, n: int, conf: float,
                                                    expected: float) -> None:
    assert clopper_pearson_upper(k, n, conf) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("k,n,lo,hi", [
    (1, 10, 0.0025, 0.4450),
    (5, 20, 0.0866, 0.4910),
    (0, 10, 0.0, 0.3085),
    (10, 10, 0.6915, 1.0),
])
def test_two_sided_intervals_match_published_values(k: int, n: int, lo: float, hi: float) -> None:
    got_lo, got_hi = clopper_pearson_interval(k, n, 0.95)
    assert got_lo == pytest.approx(lo, abs=1e-4)
    assert got_hi == pytest.approx(hi, abs=1e-4)


def test_upper_bound_solves_the_binomial_tail_equation() -> None:
    for k, n in [(1, 12), (3, 40), (7, 200)]:
        ub = clopper_pearson_upper(k, n, 0.95)
        assert binom_cdf(k, n, ub) == pytest.approx(0.05, abs=1e-9)
        lb = clopper_pearson_lower(k, n, 0.95)
        assert 1 - binom_cdf(k - 1, n, lb) == pytest.approx(0.05, abs=1e-9)


def test_bound_falls_with_more_reviews_and_rises_with_more_defects() -> None:
    ups = [clopper_pearson_upper(2, n) for n in (10, 20, 50, 100)]
    assert ups == sorted(ups, reverse=True)
    ks = [clopper_pearson_upper(k, 50) for k in range(5)]
    assert ks == sorted(ks)


def test_edge_cases_and_bad_input() -> None:
    assert clopper_pearson_upper(0, 0) == 1.0
    assert clopper_pearson_upper(5, 5) == 1.0
    with pytest.raises(ValueError):
        clopper_pearson_upper(6, 5)
    with pytest.raises(ValueError):
        clopper_pearson_upper(1, 5, confidence=1.0)


def test_reviews_needed() -> None:
    assert reviews_needed(0, 0.05) == 59
    assert reviews_needed(1, 0.05) == 93      # the classic "success run" numbers
    assert reviews_needed(0, 0.10) == 29
    n = reviews_needed(3, 0.08)
    assert n is not None
    assert clopper_pearson_upper(3, n) < 0.08 <= clopper_pearson_upper(3, n - 1)
    assert reviews_needed(0, 0.0) is None


@pytest.mark.parametrize("defects,threshold,confidence", [
    (0, 0.5, 0.95), (1, 0.5, 0.95), (2, 0.01, 0.95), (7, 0.2, 0.9), (40, 0.1, 0.99),
    (250, 0.05, 0.95), (1_900, 0.3, 0.95), (19_000, 0.5, 0.95), (34_153, 0.5, 0.95)])
def test_reviews_needed_is_the_smallest_n_whose_bound_is_below(
        defects: int, threshold: float, confidence: float) -> None:
    """The search reads binomial tails, not the bound: its answer must still be exactly the
    first n at which the bound the gate shows falls below the threshold."""
    n = reviews_needed(defects, threshold, confidence)
    assert n is not None and n > defects
    assert clopper_pearson_upper(defects, n, confidence) < threshold
    assert n - 1 <= defects or clopper_pearson_upper(defects, n - 1, confidence) >= threshold


def test_reviews_needed_says_none_when_the_limit_is_not_enough() -> None:
    assert reviews_needed(500, 0.05, limit=5_000) is None     # needs about 11,000
    n = reviews_needed(500, 0.05)
    assert n is not None and 10_000 < n < 12_000
    assert reviews_needed(500, 0.05, limit=n) == n
    assert reviews_needed(500, 0.05, limit=n - 1) is None


def test_cohen_kappa_hand_computed() -> None:
    # 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = 0.2/0.5 = 0.4
    a = ["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert observed_agreement(a, b) == pytest.approx(0.7)
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_edge_cases() -> None:
    assert cohen_kappa(["a", "r", "a"], ["a", "r", "a"]) == pytest.approx(1.0)
    assert cohen_kappa(["a", "r"], ["r", "a"]) == pytest.approx(-1.0)
    assert cohen_kappa(["a", "a"], ["a", "a"]) is None      # chance agreement is 1: undefined
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        cohen_kappa(["a"], ["a", "r"])


def test_gwet_ac1_hand_computed_where_kappa_collapses() -> None:
    from qcstation.common.stats import gwet_ac1

    # 48 pairs: 47 both accept, 1 accept/reject; A never rejects. p_o = 47/48 = 0.97917;
    # pi_accept = 95/96, p_e = 2 * pi * (1 - pi) = 0.020616; AC1 = (p_o - p_e) / (1 - p_e)
    a = ["accept"] * 48
    b = ["accept"] * 47 + ["reject"]
    pi = 95 / 96
    pe = 2 * pi * (1 - pi)
    assert cohen_kappa(a, b) == pytest.approx(0.0)
    assert gwet_ac1(a, b) == pytest.approx((47 / 48 - pe) / (1 - pe))
    assert gwet_ac1(a, b) == pytest.approx(0.9787, abs=1e-4)
    # the hand-computed kappa example above: pi_y = 0.55, p_e = 2 * 0.55 * 0.45 = 0.495
    a2 = ["y"] * 25 + ["n"] * 25
    b2 = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert gwet_ac1(a2, b2) == pytest.approx((0.7 - 0.495) / (1 - 0.495))
    assert gwet_ac1(["a"], ["a"], ("a", "r")) == pytest.approx(1.0)
    assert gwet_ac1([], []) is None


@pytest.mark.parametrize("conf", [0.9, 0.95, 0.99, 0.025])
def test_bounds_agree_with_scipys_beta_quantile(conf: float) -> None:
    """The bound is the Beta quantile computed here (no scipy at run time); scipy's
    ``betaincinv`` is the reference, from one review to millions, few defects to half."""
    from scipy.special import betaincinv

    from qcstation.common.stats import _beta_quantile

    for n in (1, 2, 5, 59, 93, 1_000, 100_000, 2_000_000):
        for k in sorted({0, 1, 2, 3, n // 100, n // 10, n // 2, n - 1}):
            if k >= n:
                continue
            want = float(betaincinv(k + 1, n - k, conf))
            assert _beta_quantile(conf, k + 1, n - k) == pytest.approx(want, rel=2e-9), (k, n)


def test_a_gate_bound_imports_no_scipy(tmp_path: Path) -> None:
    """The workstation shows gates on every screen: computing one must not import scipy
    (0.5 s of CPU with the interpreter lock held, the UI waiting)."""
    import subprocess
    import sys

    code = ("import sys\nfrom qcstation.common.stats import clopper_pearson_upper, reviews_needed\n"
            "assert 0.0 < clopper_pearson_upper(3, 1000) < 1.0\n"
            "assert reviews_needed(2, 0.05) > 59\n"
            "print('scipy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
