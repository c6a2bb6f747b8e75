"""A number of the question is one quantity (issue 26.1): "80*.8" for "an 80-foot tree ... 80% of
it" writes the 80 and the .8 of two places, and the .8 is the "80%" (its own place), so the 80 is
the "80-foot" tree, not the percent's place again
(:meth:`~qcstation.core.construct.make.rules.binding.Binder._beside_its_operands`); the check
vouches for it by the place the percent's given claims and the word the 80 is hyphened to
(:func:`~qcstation.core.construct.check.claims.vouched_by_claims`). Two givens of the question's
numbers at one place are one number in two roles and are refused
(``rules.dispatch._one_place_twice``)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _made(seed: dict) -> tuple[dict[str, str], dict[str, list[int]]]:
    rule = rule_for_seed(seed)
    assert rule.bound and rule.value == int(seed["answer_text"])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    return steps, {str(g["name"]): list(g["span"]) for g in rule.givens}


def test_the_percent_is_the_fractions_place_the_number_the_tree(gsm8k: dict) -> None:
    # 1132 "John cuts down an 80-foot tree. He can make logs out of 80% of it." / "80*.8=64 feet"
    steps, spans = _made(gsm8k["1132"])
    q = gsm8k["1132"]["question"]
    assert steps["s1"] == "(* g1_foot g2_pct)"
    assert q[spans["g1_foot"][0]:spans["g1_foot"][1] + 5] == "80-foot"
    assert q[spans["g2_pct"][0]:spans["g2_pct"][1] + 1] == "80%"


def test_the_deer_are_not_their_percent(gsm8k: dict) -> None:
    # 696 "There are 50 deer in a field. 50 percent of them are bucks." / "Bucks:50(.50)=25"
    steps, spans = _made(gsm8k["696"])
    q = gsm8k["696"]["question"]
    assert steps["s1"] == "(* g1_deer g2_pct)"
    assert q[spans["g1_deer"][0]:spans["g1_deer"][1] + 5] == "50 deer"
    assert q[spans["g2_pct"][0]:spans["g2_pct"][1] + 8] == "50 percent"


@pytest.mark.parametrize("seed_id, stated, cut", [
    ("1132", "an 80-foot tree", "a tree"),  # 80 stated only as "80%": "80*.8" is that place twice
    ("696", "There are 50 deer in a field.", "There are deer in a field."),
])
def test_one_place_in_two_roles_is_refused(gsm8k: dict, seed_id: str, stated: str, cut: str) -> None:
    seed = dict(gsm8k[seed_id])
    seed["question"] = seed["question"].replace(stated, cut)
    assert seed["question"] != gsm8k[seed_id]["question"]
    with pytest.raises(RuleError, match="one place in two roles"):
        rule_for_seed(seed)


def test_a_term_used_again_is_the_place_its_line_names_not_the_free_one_of_equal_value() -> None:
    # more uses of 6 than places: "6+3=9 hours" after "6*.5" took "6 hours straight" is that place
    # again (the line says hours), not "her speed of 6 mph", the one place order alone would give it
    q = ("Lena trains for long hikes.  She starts only able to hike 6 hours straight but eventually "
         "increases that by 50%.  She also increases her speed of 6 mph by 2 mph.  How far can she hike now?")
    seed = {"question": q, "answer_text": "72", "source": "gsm8k",
            "solution": "She increases the time she can hike by 6*.5=<<6*.5=3>>3 hours\n"
                        "So she can now hike 6+3=<<6+3=9>>9 hours\n"
                        "Her speed is now 6+2=<<6+2=8>>8 mph\n"
                        "So she can hike 9*8=<<9*8=72>>72 miles"}
    steps, spans = _made(seed)
    assert q[spans["g1_hours"][0]:spans["g1_hours"][1] + 6] == "6 hours"
    assert q[spans["g3_mph"][0]:spans["g3_mph"][1] + 4] == "6 mph"
    assert steps["s1"] == "(* g1_hours g2_pct)"
    assert steps["s2"] == "(+ g1_hours s1_hours)"  # the hours again, not the speed
    assert steps["s3"] == "(+ g3_mph g4_mph)"
