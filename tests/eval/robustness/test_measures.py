"""Every robustness measure against a computation done by hand (written out in comments)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.eval.robustness import measures as M
from qcstation.eval.robustness.fidelity import intermediates, solve_hidden


def test_a_avg_a_wst_rr() -> None:
    # seed a: variants 1, 1, 0 -> mean 2/3, min 0; seed b: 1/2, 1 -> mean 3/4, min 1/2
    r = M.robustness({"a": [1, 1, 0], "b": [0.5, 1]})
    assert r.a_avg == pytest.approx((2 / 3 + 3 / 4) / 2)       # 17/24
    assert r.a_wst == pytest.approx((0 + 0.5) / 2)             # 1/4
    assert r.rr == pytest.approx(0.25 / (17 / 24))             # 6/17
    assert (r.n, r.n_items) == (2, 5)
    assert M.robustness({"a": [0, 0]}).rr is None               # A_avg 0: no ratio
    assert M.robustness({}).a_avg is None


def test_repetition_consistency() -> None:
    # item 1: 5, 5, 6 -> 1 of 2 repeats agree; item 2: x, x -> 1; item 3 has one sample: left out
    rc, n = M.repetition_consistency([["5", "5", "6"], ["x", "x"], ["7"]])
    assert rc == pytest.approx((0.5 + 1) / 2) and n == 2
    assert M.repetition_consistency([["1"]]) == (None, 0)


def test_consistent_failures() -> None:
    fams = {
        # one variant right on both samples; one wrong twice with the same answer (counted);
        # one wrong twice with two answers (RC < 1: not counted)
        "a": [([True, True], ["3", "3"]), ([False, False], ["9", "9"]), ([False, False], ["1", "2"])],
        # no variant right on every sample: nothing counts
        "b": [([True, False], ["4", "5"]), ([False, False], ["9", "9"])],
    }
    assert M.consistent_failures(fams) == 1
    assert M.consistent_failures({"a": [([True], ["1"]), ([False], ["2"])]}) is None  # K = 1


def test_memorisation_signal() -> None:
    fams = {"a": [("10", "7"), ("12", "7")],       # same answer, golds differ: flagged
            "b": [("10", "7"), ("10", "7")],       # same gold: not a signal
            "c": [("10", "10"), ("12", "12")],     # different answers
            "d": [("10", None), ("12", None)]}     # no answer: nothing to compare
    assert M.memorised(fams) == ["a"]


def test_curve_and_drop() -> None:
    assert M.curve([(2, 1.0), (1, 0.0), (2, 0.5), (1, 1.0)]) == [(1, 0.5, 2), (2, 0.75, 2)]
    d = M.drop([(1.0, 0.0), (1.0, 1.0), (0.5, 0.0)])
    # parents (1 + 1 + .5)/3 = 5/6; perturbed 1/3; drop 1/2
    assert (d.base, d.perturbed, d.drop, d.n) == (pytest.approx(5 / 6), pytest.approx(1 / 3),
                                                  pytest.approx(0.5), 3)


def test_counterfactual_follow_and_repeat() -> None:
    # (answer, new gold, parent's answer): follows, repeats, neither, no answer
    c = M.counterfactual([("12", "12", "10"), ("10", "13", "10"), ("5", "14", "10"), (None, "1", "2")])
    assert (c.follow, c.repeat, c.n) == (0.25, 0.25, 4)


def test_mcnemar_exact() -> None:
    before = [True, False, False, False, True, False]
    after = [True, True, True, True, False, False]
    m = M.mcnemar(before, after)
    # discordant: 3 gained, 1 lost; two-sided binomial P(X<=1 or X>=3 | n=4, 1/2) = 10/16
    assert (m.gained, m.lost, m.n) == (3, 1, 6)
    assert m.p == pytest.approx(10 / 16)
    assert m.gain == pytest.approx(4 / 6 - 2 / 6)
    assert M.mcnemar([True], [True]).p == 1.0


def test_numbers_and_step_fidelity() -> None:
    text = "He sprints 3*3 = 9 times, so 9 * 60 = 540 meters. Cost $1,500.50 and 2/3 of it."
    assert {Fraction(9), Fraction(540), Fraction(3001, 2), Fraction(2, 3)} <= M.numbers_in(text)
    # intermediates 9 and 540: both written
    assert M.step_fidelity([Fraction(9), Fraction(540)], text) == 1.0
    # 1/3 written as 0.33 counts; 7 is missing: 1 of 2
    assert M.step_fidelity([Fraction(1, 3), Fraction(7)], "a third is 0.33") == 0.5
    assert M.step_fidelity([], text) is None
    assert M.norm("2.50") == "5/2" and M.norm("1,500") == "1500" and M.norm(" ") is None


def test_z3_intermediates_and_the_given_an_answer_implies() -> None:
    smt = ("(set-logic QF_NRA)\n(declare-const g1 Real)\n(declare-const g2 Real)\n"
           "(declare-const s1 Real)\n(declare-const s2 Real)\n(declare-const answer Real)\n"
           "(assert (= g1 3))\n(assert (= g2 60))\n(assert (= s1 (* g1 3)))\n"
           "(assert (= s2 (* s1 g2)))\n(assert (= answer s2))\n(check-sat)\n(get-value (answer))\n")
    assert intermediates(smt) == [Fraction(9), Fraction(540)]
    from qcstation.core.derive.transforms import inverse_smtlib

    # forward answer 720 with g2 hidden: 9 * X = 720 -> X = 80, and only 80
    assert solve_hidden(inverse_smtlib(smt, "g2", 1, Fraction(720))) == (Fraction(80), "unique")
    # a negative forward answer needs a negative given: refused (givens are positive)
    x, why = solve_hidden(inverse_smtlib(smt, "g2", 1, Fraction(-9)))
    assert x is None and why == "no given produces this answer"
