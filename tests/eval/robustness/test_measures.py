"""Every robustness measure against a computation done by hand (written out in comments)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.eval.robustness import measures as M
from qcstation.eval.robustness.fidelity import intermediates, solve_hidden
from tests.must import must


def test_a_avg_a_wst_rr() -> None:
    # DynaMath eq. 1-2 on 0/1 verdicts, per variant its samples:
    # seed a: variants [1, 1], [1, 1], [0, 0] -> mean 2/3, worst 0
    # seed b: variants [1, 0], [1, 1]        -> mean (1/2 + 1)/2 = 3/4, worst 0 (a wrong sample)
    # seed c: variants [1, 1], [1, 1]        -> mean 1, worst 1
    r = M.robustness({"a": [[1, 1], [1, 1], [0, 0]], "b": [[1, 0], [1, 1]], "c": [[1, 1], [1, 1]]})
    assert r.a_avg == pytest.approx((2 / 3 + 3 / 4 + 1) / 3)   # 29/36
    assert r.a_wst == pytest.approx(1 / 3)                     # only c
    assert r.rr == pytest.approx((1 / 3) / (29 / 36))          # 12/29
    assert (r.n, r.n_items) == (3, 7)
    # the case: 2 variants x 3 samples, [1,1,0] and [1,0,0] on one seed: the minimum
    # of sample means would be 1/3; the paper's 0/1 worst case is 0
    one = M.robustness({"s": [[1, 1, 0], [1, 0, 0]]})
    assert one.a_avg == pytest.approx(1 / 2) and (one.a_wst, one.rr) == (0.0, 0.0)
    # intervals: Wilson over the 3 seeds
    lo, hi = M.wilson(1 / 3, 3)
    assert r.a_wst_ci[0] == pytest.approx(lo) and r.a_wst_ci[1] == pytest.approx(hi) and lo < 1 / 3 < hi
    assert M.robustness({"a": [[0, 0]]}).rr is None               # A_avg 0: no ratio
    assert M.robustness({}).a_avg is None


def test_repetition_consistency() -> None:
    # DynaMath eq. 3 over the K samples: item 1: 5, 5, 6 -> 2 of K = 3 agree with the first;
    # item 2: x, x -> 2/2; item 3 has one sample: left out
    rc, n = M.repetition_consistency([["5", "5", "6"], ["x", "x"], ["7"]])
    assert rc == pytest.approx((2 / 3 + 1) / 2) and n == 2
    assert M.repetition_consistency([["1"]]) == (None, 0)


def test_consistent_failures() -> None:
    fams: dict[str, list[tuple[list[bool], list[str | None]]]] = {
        # one variant right on both samples; one wrong twice with the same answer (counted);
        # one wrong twice with two answers (RC < 1: not counted)
        "a": [([True, True], ["3", "3"]), ([False, False], ["9", "9"]), ([False, False], ["1", "2"])],
        # no variant right on every sample: nothing counts
        "b": [([True, False], ["4", "5"]), ([False, False], ["9", "9"])],
    }
    fams["c"] = [([True, True], ["3", "3"]), ([False, False], [None, None])]   # unanswered
    fams["d"] = [([True, True], ["4", "4"]), ([False, False], ["8", "8"]), ([False, False], ["8", "8"])]
    c = must(M.consistent_failures(fams))
    # seeds a and d of 4: a share of seeds, not of variants; c's unanswered variant is apart
    assert (c.seeds, c.n, c.share, c.unanswered) == (2, 4, 0.5, 1)
    assert M.consistent_failures({"a": [([True], ["1"]), ([False], ["2"])]}) is None  # K = 1


def test_memorisation_signal() -> None:
    fams: dict[str, list[tuple[str | None, str | None]]] = {
        "a": [("10", "7"), ("12", "7")],       # same answer, golds differ: flagged
        "b": [("10", "7"), ("10", "7")],       # same gold: not a signal
        "c": [("10", "10"), ("12", "12")],     # different answers
        "d": [("10", None), ("12", None)]}     # no answer: nothing to compare
    assert M.memorised(fams) == ["a"]


def test_curve_and_drop() -> None:
    assert M.curve([(2, 1.0), (1, 0.0), (2, 0.5), (1, 1.0)]) == [(1, 0.5, 2), (2, 0.75, 2)]
    d = M.drop([(1.0, 0.0), (1.0, 1.0), (0.5, 0.0)])
    # parents (1 + 1 + .5)/3 = 5/6; perturbed 1/3; drop 1/2
    assert d.base == pytest.approx(5 / 6) and d.perturbed == pytest.approx(1 / 3)
    assert d.drop == pytest.approx(0.5) and d.n == 3


def test_counterfactual_follow_and_repeat() -> None:
    # (answer, new gold, parent's gold): new gold, parent's gold, neither, no answer
    c = M.counterfactual([("12", "12", "10"), ("10", "13", "10"), ("5", "14", "10"), (None, "1", "2")])
    assert (c.follow, c.repeat, c.n) == (0.25, 0.25, 4)
    assert c.adjust is None                                      # no base run: not computed
    # Answer Adjustment (Catch Me eq. 38c): right AND different from the model's own answer
    # to the parent: (12 right, own 10) yes; (13 right, own 13) no: it did not adjust;
    # (10 wrong) no; (9 right, own unknown) left out -> 1 of 3
    own = [("12", "12", "10"), ("13", "13", "13"), ("10", "14", "10"), ("9", "9", None)]
    c = M.counterfactual([(a, g, "10") for a, g, _ in own], own)
    assert (c.follow, c.n_adjust) == (0.75, 3) and c.adjust == pytest.approx(1 / 3)


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
    # the steps 9 and 540; 540 is the answer itself: not an intermediate step
    assert intermediates(smt) == [Fraction(9)]
    two = ("(declare-const g1 Real)\n(declare-const s1 Real)\n(declare-const answer Real)\n"
           "(assert (= g1 4))\n(assert (= s1 (* g1 5)))\n(assert (= answer s1))\n")
    assert intermediates(two) == []        # "The answer is 20." alone finds no step
    from qcstation.core.derive.transforms import inverse_smtlib

    # forward answer 720 with g2 hidden: 9 * X = 720 -> X = 80, and only 80
    assert solve_hidden(inverse_smtlib(smt, "g2", 1, Fraction(720))) == (Fraction(80), "unique")
    # a negative forward answer needs a negative given: refused (givens are positive)
    x, why = solve_hidden(inverse_smtlib(smt, "g2", 1, Fraction(-9)))
    assert x is None and why == "no given produces this answer"


def test_rm_is_gated_by_the_same_samples_reflection() -> None:
    # ACC@R-m as the leaderboard reads it, in both protocols: a corrected chain counts only
    # where the same sample's reflection is right (single-prompt runs store every chain)
    from qcstation.eval.robustness.load import Obs, gate_refinement

    obs = {"rt": [Obs(True, None, 0), Obs(False, None, 1), Obs(True, None, 2)],
           "rm": [Obs(True, "5", 0), Obs(True, "5", 1), Obs(False, "4", 2)]}
    gate_refinement(obs)
    assert [(o.k, o.ok) for o in obs["rm"]] == [(0, True), (2, False)]
    wrong_reflections = {"rt": [Obs(False, None, 0)], "rm": [Obs(True, "5", 0)]}
    gate_refinement(wrong_reflections)
    assert "rm" not in wrong_reflections            # no sample counts: no R-m for the item
    no_rm = {"rt": [Obs(True, None, 0)]}
    gate_refinement(no_rm)
    assert no_rm == {"rt": [Obs(True, None, 0)]}
