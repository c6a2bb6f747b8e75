"""A solution whose first reading leaves a number of the question unused or its answer unproduced
is read again with the computations the inline reader leaves (issue 26.1, lane cover33, see
:mod:`qcstation.core.construct.make.rules.chains`): a chain of equal terms ("5+2(3)=5+6=11") as its
first term, and a computation whose result is written as a fraction ("2/40 = 1/20"), which a later
step's fraction of that same text ("1/(1/10)") is (:func:`~.chains.protect_chain_fractions`)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.calculator import mask_annotations
from qcstation.core.construct.make.rules.chains import chained_computations


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def test_fraction_results_are_steps_a_later_fraction_of_their_text_uses(gsm8k: dict) -> None:
    # 1134: "2/40 = 1/20 miles per minute", "2 * 1/20 = 1/10 miles per minute",
    # "1/(1/10) = <<1/(1/10)=10>>10 minutes", "40+10 = <<40+10=50>>50": the beach's 2 miles over its
    # 40 minutes, twice that rate on the sidewalk, its 1 mile at that rate, plus the beach's 40
    result = rule_for_seed(gsm8k["1134"])
    assert result.value == 50
    got = _asserts(gsm8k["1134"])
    for line in ("(assert (= s1_miles_minute (/ g1_miles g2_minutes)))",
                 "(assert (= s2_miles_minute (* w_twice s1_miles_minute)))",
                 "(assert (= s3_minutes (/ g3_mile s2_miles_minute)))",
                 "(assert (= s4_minutes_walk (+ g2_minutes s3_minutes)))"):
        assert line in got
    q = gsm8k["1134"]["question"]
    places = {g["name"]: q[g["span"][0]:q.find(" on", g["span"][0])] for g in result.givens}
    assert places["g1_miles"] == "2 miles of walking"
    assert places["g3_mile"] == "1 mile of walking"


def test_a_fraction_no_earlier_line_writes_as_its_result_is_no_link(gsm8k: dict) -> None:
    # the same solution with the sidewalk's rate not written as "= 1/10": the "1/10" of
    # "1/(1/10)" is then a number no line computes and no words of the question give
    seed = dict(gsm8k["1134"])
    seed["solution"] = seed["solution"].replace("2 * 1/20 = 1/10 miles per minute", "twice 1/20 miles per minute")
    assert "1/10 miles" not in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_chain_of_equal_terms_is_its_first_term() -> None:
    found = chained_computations(mask_annotations("Harry:5+2(3)=5+6=11 trees\n11-3=<<11-3=8>>8 trees"))
    assert [(raw, text, str(value)) for _, _, raw, text, _, value, _ in found] == [
        ("5+2(3)=5+6=11", "5+2(3)", "11")]


@pytest.mark.parametrize("text", [
    "So 1/2 off of 1 pound is $3/2 = $1.50+$3.00=$4.50",   # a running total: its terms differ
    "He has 4 x 3 = 12 + 2 = 14 apples",                   # the same
    "Ferdinand has 6/2 = 3 trees",                         # one '=' and a whole result: the inline reader's
])
def test_a_running_total_or_a_plain_computation_is_no_chain(text: str) -> None:
    assert chained_computations(text) == []


def test_a_remaining_share_whose_numerator_a_step_divides_by_stays_refused(gsm8k: dict) -> None:
    # 385 "1 - 3/5 = 2/5 ... 1/5 is equal to 12.8/2": the 2 is the rest's numerator, which no
    # line computes as a number: read again with the chain, still refused
    with pytest.raises(RuleError):
        rule_for_seed(gsm8k["385"])


def test_the_one_less_a_stated_fraction_is_the_whole_it_is_of(gsm8k: dict) -> None:
    # 428 "He keeps 1/3 of them" / "The cards he sold were 2/3 of his collection because
    # 1 - (1/3) = 2/3" / "He started with 150 cards because 100 / (2/3)": the 1 is the whole
    # collection, written as complements writes a rest; the 100 is the cards he sold (the only
    # reading that uses the step "150 / 1.5"), not the ticket's $100
    result = rule_for_seed(gsm8k["428"])
    assert result.value == 150
    got = _asserts(gsm8k["428"])
    for line in ("(assert (= g4 (/ 1 3)))",
                 "(assert (= s1_cards_because (+ g1 g2_spending)))",
                 "(assert (= s2_cards_because (/ s1_cards_because g3)))",
                 "(assert (= s3_collection_because (- 1 g4)))",
                 "(assert (= s4_cards_because (/ s2_cards_because s3_collection_because)))"):
        assert line in got
    q = gsm8k["428"]["question"]
    assert {g["name"]: q[g["span"][0] - 1:g["span"][1]] for g in result.givens} == {
        "g1": "$100", "g2_spending": "$50", "g3": "$1.5", "g4": " 1/3"}


def test_one_less_a_stated_fraction_where_the_question_states_a_1_stays_refused(gsm8k: dict) -> None:
    # 428 with "He keeps 1/3 of them in 1 box": the 1 of "1 - (1/3)" is the whole collection,
    # but the binder would tie it to the box by its value alone; no words tell, so refused
    seed = dict(gsm8k["428"])
    seed["question"] = seed["question"].replace("He keeps 1/3 of them", "He keeps 1/3 of them in 1 box")
    assert "1 box" in seed["question"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_an_operand_of_many_words_is_read_on_the_second_reading(gsm8k: dict) -> None:
    # 187 "160 used pieces of straw – 70 pieces of straw for the hamsters and rabbits = 90 pieces
    # of straws" (no annotation; past the inline reader's three words): the rats' straw, which
    # "90 / 3 cages" then divides; 10 hamster cages * 5 + the rabbits' 20 = 70
    result = rule_for_seed(gsm8k["187"])
    assert result.value == 5
    got = _asserts(gsm8k["187"])
    for line in ("(assert (= s1_pieces_straw (* g1_cages g2_pieces)))",
                 "(assert (= s2_pieces_straw (+ s1_pieces_straw g3_pieces)))",
                 "(assert (= s3_pieces_straws (- g4_pieces s2_pieces_straw)))",
                 "(assert (= s4_pieces_straw (/ s3_pieces_straws g5_cages)))",
                 "(assert (= s5_rats (/ s4_pieces_straw g6_pieces)))"):
        assert line in got
    q = gsm8k["187"]["question"]
    words = {g["name"]: q[g["span"][0]:g["span"][0] + 20] for g in result.givens}
    assert words["g1_cages"] == "10 cages of hamsters"
    assert words["g2_pieces"].startswith("5 pieces") and words["g5_cages"].startswith("3 cages")


def test_words_holding_a_number_are_no_operand(gsm8k: dict) -> None:
    # 99 "25 total cars – 20 cars that drove through in the final 15 minutes = 5 cars": the words
    # between write the 15, so no computation is read there and the answer stays unproduced
    assert chained_computations(mask_annotations(gsm8k["99"]["solution"])) == []
    with pytest.raises(RuleError, match="final answer 5 is not produced"):
        rule_for_seed(gsm8k["99"])


def test_a_unit_glued_to_its_number_is_read_on_a_chain(gsm8k: dict) -> None:
    # 44 "200/250 of a serving = 4/5 of a serving" ... "60g * 4/5 = 240g/5 = 48 grams": the 200
    # calories left over the 250 of a serving, times the 60 grams of one (300g / 5 servings)
    result = rule_for_seed(gsm8k["44"])
    assert result.value == 48
    got = _asserts(gsm8k["44"])
    for line in ("(assert (= s1_calories_eat (- g1 g2_calories)))",
                 "(assert (= s2_serving (/ s1_calories_eat g3_calories)))",
                 "(assert (= s3_grams (/ g4_bag g5_servings)))",
                 "(assert (= s4_serving_eat (* s3_grams s2_serving)))"):
        assert line in got
    q = gsm8k["44"]["question"]
    words = {g["name"]: q[g["span"][0]:g["span"][1] + 9] for g in result.givens}
    assert (words["g3_calories"], words["g4_bag"], words["g5_servings"]) == (
        "250 calories", "300g bag has", "5 servings")


def test_a_fraction_restated_in_other_numbers_on_a_line_naming_it(gsm8k: dict) -> None:
    # 319 "1/10 as many nongendered children as they do boys" / "The classroom has 1/10
    # nongendered children so 10/100 * 30 boys = <<10/100*30=3>>3": the line names the
    # question's 1/10, so its 10/100 is that given
    result = rule_for_seed(gsm8k["319"])
    assert result.value == 123
    got = _asserts(gsm8k["319"])
    for line in ("(assert (= g3_nongendered (/ 1 10)))",
                 "(assert (= s2_nongendered_children (* g3_nongendered g2_boys)))",
                 "(assert (= s3_students (+ s1_girls g2_boys s2_nongendered_children)))"):
        assert line in got


def test_a_fraction_in_other_numbers_on_a_line_not_naming_it_stays_refused(gsm8k: dict) -> None:
    # the same line without the question's "1/10": no words say the 10/100 is that share
    seed = dict(gsm8k["319"])
    seed["solution"] = seed["solution"].replace("The classroom has 1/10 nongendered children so",
                                                "The classroom has")
    assert "1/10" not in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_computation_from_a_negative_result_after_its_naming_is_a_step(gsm8k: dict) -> None:
    # 1114 "The temperature was 2 degrees Celsius. It dropped 8 degrees Celsius overnight and then
    # increased 3 degrees Celsius" / "Drop 8 degrees = 2 - 8 = -6 degrees / Increase 3 degrees =
    # -6 + 3 = -3 degrees": the -6 is the line before's result (the inline reader starts at no
    # minus sign); the bare "<<2=2>>" is left out
    result = rule_for_seed(gsm8k["1114"])
    assert result.value == -3
    got = _asserts(gsm8k["1114"])
    for line in ("(assert (= s2_degrees (- g1_degrees g2_degrees)))",
                 "(assert (= s3_degrees (+ s2_degrees g3_degrees)))"):
        assert line in got
    q = gsm8k["1114"]["question"]
    assert {g["name"]: q[g["span"][0]:g["span"][0] + 12] for g in result.givens} == {
        "g1_degrees": "2 degrees Ce", "g2_degrees": "8 degrees Ce", "g3_degrees": "3 degrees Ce"}


def test_a_negative_number_no_earlier_line_computes_stays_refused(gsm8k: dict) -> None:
    # the same solution with the drop not computed ("2 - 8 degrees" written with no result): the
    # -6 is then a number no line computes and the question does not state
    seed = dict(gsm8k["1114"])
    seed["solution"] = seed["solution"].replace("= 2 - 8 = -6 degrees", "= 2 less 8 degrees")
    assert "-6 degrees" not in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)
