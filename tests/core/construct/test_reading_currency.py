"""A number a step writes as money ("$4 + $2") where the question's number of that value is a count
and an earlier result is money (issue 26, point 1), see
:mod:`qcstation.core.construct.make.rules.currency`: it is that result. Where the question writes
the value as money too, or the earlier result is named by nothing, or the sign is not on the
number's own place in the computation, the seed stays refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def test_money_is_the_earlier_result_not_the_count(gsm8k: dict) -> None:
    # 309: "You will save $4 + $2 = $6": the "$4" is the discount for 2 tubs (step 2, "= $4"), not
    # the question's "4 packets of milk", which "$0.5 x 4" takes
    got = _asserts(gsm8k["309"])
    for line in ("(assert (= g5_packets 4))",
                 "(assert (= s2_ice_cream (* g3_tubs s1_ice_cream)))",
                 "(assert (= s3_packets_milk (* g4 g5_packets)))",
                 "(assert (= s4_save (+ s2_ice_cream s3_packets_milk)))"):
        assert line in got


def _variant(gsm8k: dict, question: str | None = None, solution: str | None = None) -> dict:
    seed = dict(gsm8k["309"])
    if question is not None:
        seed["question"] = question
    if solution is not None:
        seed["solution"] = solution
    return seed


def test_a_question_that_writes_the_value_as_money_too_stays_refused(gsm8k: dict) -> None:
    # the question's 4 is "$4" at one place and "4 packets" at another: money is no longer one
    # candidate's alone
    q = gsm8k["309"]["question"].replace("A packet of milk was sold", "A packet of milk costing $4 was sold")
    assert "$4" in q
    with pytest.raises(RuleError):
        rule_for_seed(_variant(gsm8k, question=q))


def test_an_earlier_result_named_by_nothing_decides_nothing(gsm8k: dict) -> None:
    # "2 x 2 = <<2*2=4>>4." writes no sign and no word after its result, and the milk's line no
    # longer names its 4: whether the discount is money, no line says, so the "$4" of the last
    # step is not told apart from the 4 packets
    sol = gsm8k["309"]["solution"].replace("$2 x 2 = $<<2*2=4>>4.", "2 x 2 = <<2*2=4>>4.") \
        .replace("The total discount for 4 packets of milk is", "The total discount for the milk is")
    assert "2 x 2 = <<2*2=4>>4." in sol and "discount for the milk" in sol
    with pytest.raises(RuleError, match="ambiguous solution"):
        rule_for_seed(_variant(gsm8k, solution=sol))


def test_money_beside_a_twin_of_equal_value_is_the_earlier_result(gsm8k: dict) -> None:
    # 467: "With a 10 percent discount Kelly paid ($10 x 10)/100 = $1 less": the "$10" is Kelly's
    # price before the discount (step 3, "= $10"), the bare 10 the question's "10 percent"; the
    # readings keep one formalization of the commuted pair, so the link stands on either 10
    got = _asserts(gsm8k["467"])
    for line in ("(assert (= g6_percent 10))",
                 "(assert (= s4_discount_kelly (/ (* g6_percent s3_apples_apple) k_percent)))",
                 "(assert (= s5_kelly (- s3_apples_apple s4_discount_kelly)))",
                 "(assert (= s6_becky (- s5_kelly s2_discount_becky)))"):
        assert line in got


@pytest.mark.parametrize("written", ["($10 x $10)/100", "(10 x 10)/100"])
def test_twins_both_or_neither_money_stay_refused(gsm8k: dict, written: str) -> None:
    # both 10s written as money, or neither: which is the price and which the percent, the signs
    # do not say
    seed = dict(gsm8k["467"])
    seed["solution"] = seed["solution"].replace("($10 x 10)/100", written)
    assert written in seed["solution"]
    with pytest.raises(RuleError, match="ambiguous solution"):
        rule_for_seed(seed)


def test_a_sum_of_money_takes_the_money_and_a_price_divides_money_by_a_count(gsm8k: dict) -> None:
    # 1140 "he has a $4.00 discount making his total 40-4 = $36.00": a difference of money takes
    # the discount ("40*.10 = $4.00"), not the question's "4 packs"; "each bagel costs 36/36 =
    # $1.00": the dividend is the $36.00 total, the divisor the "9*4 = 36 bagels"; "he orders 4
    # packs so that's 9*4" is the question's 4 packs by its words (decided alone, it left the
    # money open; together with the money's decisions one reading is left)
    got = _asserts(gsm8k["1140"])
    for line in ("(assert (= s3_discount_making (- s1_bagels_pack s2_discount_discount)))",
                 "(assert (= s4_bagels (* g4_bagels g1_packs)))",
                 "(assert (= s5_bagels_bagel (/ s3_discount_making s4_bagels)))"):
        assert line in got


def test_a_money_result_with_money_or_counts_on_both_sides_stays_refused(gsm8k: dict) -> None:
    # the same seed whose discount line writes no money ("40*.10 = 4.00 off"): the 4 of "40-4" is
    # no longer told from the 4 packs by money, nor the "36/36" dividend from the bagels
    sol = gsm8k["1140"]["solution"].replace("40*.10 = $4.00", "40*.10 = 4.00 off") \
        .replace("$<<40-4=36.00>>36.00", "<<40-4=36.00>>36.00 off")
    assert "40*.10 = 4.00 off" in sol and "<<40-4=36.00>>36.00 off" in sol
    seed = dict(gsm8k["1140"], solution=sol)
    with pytest.raises(RuleError, match="ambiguous solution"):
        rule_for_seed(seed)


def test_a_product_of_money_is_not_read_by_money(gsm8k: dict) -> None:
    # 1218 (a known trap): "So for per year Pauline paid 3 * 5 = $15" after "2 + 3 = $5": a
    # product may be money times a count either way round; the 3 is left open (its binding to the
    # question's "three times a year" or "3 more years" needs a reading of roles) and it stays refused
    with pytest.raises(RuleError, match="ambiguous solution"):
        rule_for_seed(gsm8k["1218"])
