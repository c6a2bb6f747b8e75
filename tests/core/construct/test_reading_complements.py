"""The rest of a share the question states, written by a solution as a number the question does
not state (issue 26.1, lane cover20): a term of the question's own fraction or percent, never the
fraction's parts nor a number of equal value; refused where the words do not say it is the rest."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.complements import fraction_rest, percent_rest
from qcstation.core.construct.make.rules.givens import question_numbers
from qcstation.core.reading.expr import BinOp, Num, parse_expression
from tests.core.construct.seeds import gsm8k_seed as _seed


def _steps(seed: dict) -> dict[str, str]:
    return {st.name.split("_")[0]: st.sexpr for st in rule_for_seed(seed).steps}


def test_the_rest_of_a_fraction_written_as_its_reciprocal(gsm8k: dict) -> None:
    # 475 "three-fourths of students have a desktop computer at home. If 20 students do not" /
    # "Twenty students represent 1 - 3/4 = 1/4 of the students. So, there are 4 x 20": the 4 is
    # 1 / (1 - 3/4), not the parts of three-fourths (for three-fifths that would be 5, not 5/2)
    rule = rule_for_seed(gsm8k["475"])
    assert _steps(gsm8k["475"])["s1"] == "(/ g1_students (- 1 w_three_fourths))"
    assert rule.value == 80
    assert {g["name"]: g["words"] for g in rule.givens}["w_three_fourths"] == "three-fourths"


def test_the_rest_of_a_percent_the_line_names_as_the_other_part(gsm8k: dict) -> None:
    # 631 "Of these riders, 60% are women ... how many men" / "10 were men because 25 x .4"
    rule = rule_for_seed(gsm8k["631"])
    assert _steps(gsm8k["631"])["s2"] == "(* s1_upright_because (- 1 g3_pct))"
    assert rule.value == 10
    assert {g["name"]: g["text"] for g in rule.givens}["g3_pct"] == "60%"


def test_a_word_given_shared_out_equally_is_another_quantity(gsm8k: dict) -> None:
    # 994 "its 44 trips only amount to half the number of trips the first plane makes throughout
    # each day" / "44 flights * 2", then "Splitting these flights equally ... 22 flights / 2": the
    # second 2 is the two countries, not half again ("each day" does not make it one quantity)
    with pytest.raises(RuleError, match="'half' \\(2\\) is used by 2 steps"):
        rule_for_seed(gsm8k["994"])


def test_the_rest_needs_the_solution_to_write_it() -> None:
    q = "Three-fourths of the students walk to school. If 20 students do not walk, how many students are there?"
    made = rule_for_seed(_seed(q, "1 - 3/4 = 1/4 of the students ride.\nSo there are 4 x 20 = <<4*20=80>>80 students.",
                               "80"))
    assert made.value == 80 and "(- 1 w_three_fourths)" in made.smtlib
    # the rest never written: the 4 may be any quantity of that value (refused, as before)
    with pytest.raises(RuleError):
        rule_for_seed(_seed(q, "So there are 4 x 20 = <<4*20=80>>80 students.", "80"))


def test_a_quarter_the_question_states_is_no_rest() -> None:
    givens = question_numbers("Three-fourths of the pie is eaten and a quarter of the cake. 20 slices are left.")
    e = parse_expression("4*20")
    assert fraction_rest([0], [e], givens, "1 - 3/4 = 1/4.\n4 x 20 = <<4*20=80>>80") == [e]


def test_the_rest_of_a_percent_needs_the_line_to_name_it() -> None:
    givens = question_numbers("Of these riders, 60% are women. If there are 100 riders, how many men are there?")
    e = BinOp("*", Num(Fraction(100), "100"), Num(Fraction(2, 5), ".4"))
    assert percent_rest([0], [e], givens, "100 x .4 = <<100*.4=40>>40 men") != [e]
    assert percent_rest([0], [e], givens, "100 x .4 = <<100*.4=40>>40 women") == [e]   # the same part
    assert percent_rest([0], [e], givens, "100 x .4 = <<100*.4=40>>40 riders") == [e]  # no part named


def test_the_rest_of_a_percent_the_line_names_as_the_question_says_the_rest_are() -> None:
    # held-out GSM8K train seeds (issue 26.1, lane gold11a): "40% are adults. The rest are
    # children." / "There are 72 children because 120 x .6"; "25% of goldfish are at the surface and
    # the rest are too deep below the surface" / "45 goldfish below the surface because 60 x .75"
    q = "A club has 80 members. 30% are boys. The rest are girls. How many girls are there?"
    seed = {"question": q, "solution": "There are 56 girls because 80 x .7 = <<80*.7=56>>56\n#### 56",
            "answer_text": "56", "answer_value": "56"}
    assert _steps(seed)["s1"] == "(* g1_members (- 1 g2_pct))"
    q = "A club has 80 members. 30% are adults. The rest are kids who play chess. How many play chess?"
    seed = {"question": q, "solution": "56 members play chess because 80 x .7 = <<80*.7=56>>56\n#### 56",
            "answer_text": "56", "answer_value": "56"}
    assert _steps(seed)["s1"] == "(* g1_members (- 1 g2_pct))"
    # near-misses: a line that names only what the percent's own words name, or a rest the
    # question says two sentences later, is no rest of this percent
    near = dict(seed, solution="56 members because 80 x .7 = <<80*.7=56>>56\n#### 56")
    with pytest.raises(RuleError):
        rule_for_seed(near)
    far = dict(seed, question="A club has 80 members. 30% are adults. Some sing. The rest are kids who play chess. "
                              "How many play chess?")
    with pytest.raises(RuleError):
        rule_for_seed(far)


def test_a_percent_result_written_as_a_decimal_is_that_result_over_100() -> None:
    # held-out GSM8K train seed (issue 26.1, lane gold11a): "20% are Brown and 20% are Green. The rest
    # are yellow." / "60% of them are yellow because 100 - 20 - 20 = 60" / "25 x .6": the .6 is that
    # result over 100, and the two 20s taken away in one difference are each place once, in any order
    q = "Tom picks 30 apples. 10% are red and 10% are green. The rest are yellow. How many yellow apples does he pick?"
    s = ("80% of them are yellow because 100 - 10 - 10 = <<100-10-10=80>>80\n"
         "He picks 24 yellow apples because 30 x .8 = <<30*.8=24>>24\n#### 24")
    seed = {"question": q, "solution": s, "answer_text": "24", "answer_value": "24"}
    assert _steps(seed) == {"s1": "(- k_percent g1_pct g2_pct)", "s2": "(* g3_apples (/ s1_yellow_because k_percent))"}
    # near-miss: the earlier line does not name its result as a percent: the .8 stays an unstated number
    near = dict(seed, solution=s.replace("80% of them are yellow because", "They are yellow because"))
    with pytest.raises(RuleError):
        rule_for_seed(near)


def test_a_percent_result_is_never_the_percent_factor_nor_read_beside_a_stated_percent(gsm8k: dict) -> None:
    # 414 "0.05% * 50000 = <<0.05*.01*50000=25>>": the .01 is the percent factor, not the "1%" of
    # "100% - 99% = 1%"; 1031 "100% - 50% = 50%" beside "a 50% chance": its ".6 * .5" would take the
    # question's 50% by value alone, so no decimal of it is read as a result (refused, as before)
    assert "(* s2 k_percent_fraction g3_candles)" in rule_for_seed(gsm8k["414"]).smtlib
    with pytest.raises(RuleError):
        rule_for_seed(gsm8k["1031"])
