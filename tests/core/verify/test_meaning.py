"""The check of a formalization's meaning (qcstation.core.verify.meaning): the answer is
reached through relations from constants equal to numbers the question states."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.verify.meaning import (
    check_meaning,
    implied_numbers,
    perturbations,
    redact_number,
    stated_numbers,
)
from qcstation.core.verify.solve import verify_in_process

MUFFINS = ("A baker makes 24 muffins and sells them in boxes of 4. Each box costs $3. "
           "How much money does the baker make by selling all the boxes?")
GOOD = """(set-logic QF_LRA)
(declare-const muffins Real)
(assert (= muffins 24))
(declare-const per_box Real)
(assert (= per_box 4))
(declare-const price Real)
(assert (= price 3))
(declare-const answer Real)
(assert (= answer (* (/ muffins per_box) price)))
(check-sat)
(get-value (answer))"""


def test_a_formalization_of_the_question_passes() -> None:
    c = check_meaning(GOOD, MUFFINS)
    assert c.ok and c.kinds == () and c.problems == ()
    assert c.givens == {"muffins": 24, "per_box": 4, "price": 3}
    assert verify_in_process(GOOD, "18").status == "verified"


@pytest.mark.parametrize(("script", "kinds"), [
    ("(declare-const answer Real)(assert (= answer 18))", {"states-answer"}),
    ("(declare-const answer Real)(assert (= 18 answer))", {"states-answer"}),
    ("(define-fun answer () Real 18.0)", {"states-answer"}),
    ("(declare-const answer Real)(assert (and (= answer 18) (> answer 0)))", {"states-answer"}),
    ("(declare-const answer Real)(assert (= answer (- 20 2)))", {"unstated-number"}),
    ("(declare-const answer Real)(assert (= answer (+ 14 4)))", {"unstated-number"}),
    ("(declare-const answer Real)(assert (= answer (* 6 3)))", {"unstated-number"}),  # half-solved
    ("(declare-const a Real)(assert (= a 7))(declare-const b Real)(assert (= b 5))"
     "(declare-const answer Real)(assert (= answer (+ (* a b) 1)))", {"unstated-number"}),
    # computes it and states it as well: still states it
    (GOOD.replace("(check-sat)", "(assert (= answer 18))\n(check-sat)"), {"states-answer"}),
    # the givens declared, the answer computed apart from them from the problem's own numbers
    ("(declare-const m Real)(assert (= m 24))(declare-const answer Real)(assert (= answer (* 4 3)))",
     {"not-connected"}),
    ("(declare-const answer Real)(assert (= answer (* (/ 24 4) 3)))", {"not-connected"}),
])
def test_answer_stating_and_unstated_numbers_are_refused(script: str, kinds: set[str]) -> None:
    c = check_meaning(script, MUFFINS)
    assert kinds <= set(c.kinds), c.kinds
    assert c.ok == (not kinds)
    if kinds:
        assert c.problems and "18" not in " ".join(c.problems)


def test_the_feedback_names_the_formula_not_an_expected_value() -> None:
    c = check_meaning("(declare-const a Real)\n(assert (= a 7))\n(declare-const answer Real)\n"
                      "(assert (= answer (* a 5)))", MUFFINS)
    assert c.kinds == ("unstated-number",)
    assert "7 (line 2), 5 (line 4)" in c.message and "expected" not in c.message


def test_not_connected_answer_is_refused() -> None:
    script = ("(declare-const m Real)(assert (= m 24))(declare-const x Real)(declare-const answer Real)"
              "(assert (= answer (* x x)))(assert (= x (+ answer 0)))")
    assert "not-connected" in check_meaning(script, MUFFINS).kinds


def test_implied_constants_need_their_words() -> None:
    q = "Sam reads 3 pages a day. How many pages does he read in 2 weeks?"
    s = ("(declare-const p Real)(assert (= p 3))(declare-const w Real)(assert (= w 2))"
         "(declare-const answer Real)(assert (= answer (* p 7 w)))")
    assert check_meaning(s, q).ok
    assert "unstated-number" in check_meaning(s, "Sam reads 3 pages a day for 2 days.").kinds
    assert Fraction(7) in implied_numbers(q) and Fraction(100) in implied_numbers("a 20% tip")
    # the rules name GSM8K's four-week month as a constant of its own (k_weeks_per_month)
    assert Fraction(4) in implied_numbers("He gets a bonus each week. What did he make in April?")


def test_stated_numbers_of_latex_and_words() -> None:
    got = stated_numbers(r"Compute $\frac{1}{2} + 3^2$, \dfrac34 of 45% of 2,500, twenty-one, "
                         r"three hundred, 1.5 million, a third, -7 and .5")
    for v in ("1/2", "1", "2", "3", "3/4", "4", "45", "9/20", "2500", "21", "300", "1500000",
              "1/3", "7", "0.5"):
        assert Fraction(v) in got, v
    assert Fraction(9) not in got          # 3^2 worked out is not stated
    assert Fraction(360) in stated_numbers("A trader sold an article for Rs.360.")


def test_math500_style_fraction_formula() -> None:
    q = r"If $f(x) = \frac{3x-2}{x-2}$, what is the value of $f(-2) +f(-1)+f(0)$?"
    inline = """(define-fun f ((x Real)) Real (/ (- (* 3 x) 2) (- x 2)))
(declare-const answer Real)
(assert (= answer (+ (f (- 2)) (f (- 1)) (f 0))))
(check-sat)
(get-value (answer))"""
    assert check_meaning(inline, q).kinds == ("not-connected",)
    good = """(declare-const a Real)
(assert (= a 3))
(declare-const b Real)
(assert (= b 2))
(declare-const c Real)
(assert (= c 1))
(define-fun f ((x Real)) Real (/ (- (* a x) b) (- x b)))
(declare-const answer Real)
(assert (= answer (+ (f (- b)) (f (- c)) (f 0))))
(check-sat)
(get-value (answer))"""
    assert check_meaning(good, q).ok, check_meaning(good, q).message
    assert verify_in_process(good, "14/3").status == "verified"
    stated = "(declare-const answer Real)\n(assert (= answer (/ 14 3)))\n(check-sat)"
    assert check_meaning(stated, q).kinds == ("states-answer",)


def test_unreadable_script_is_refused_not_raised() -> None:
    c = check_meaning("(assert (= answer", MUFFINS)
    assert not c.ok and c.kinds == ("unreadable",)


def test_perturbations_move_one_stated_given_each() -> None:
    variants = perturbations(GOOD, MUFFINS)
    assert len(variants) == 3
    values = {verify_in_process(v).value for v in variants}
    assert values == {Fraction(75, 4), Fraction(72, 5), Fraction(24)}   # every given moves the answer


def test_redact_number_keeps_a_gold_out_of_text_unless_the_question_states_it() -> None:
    assert redact_number("answer = 42 but 42.0 and 142, 4.2, x42", Fraction(42)) == \
        "answer = […] but […] and 142, 4.2, x42"
    assert redact_number("(assert (= answer (/ 14 3))) 14/3", Fraction(14, 3)) == "(assert (= answer […])) […]"
    assert redact_number("answer = 42", Fraction(42), keep_in="He has 42 apples.") == "answer = 42"
