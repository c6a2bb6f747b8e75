"""Numbers a solution writes that the question states neither as a number nor in words, read by the
question's words (issue 26.1, lane cover35): a count of one noun the question states in parts of one
list ("two zebras ..., a zebra ..., and another zebra" / "4 zebras", :mod:`.noun_counts`), the
computation the text writes where its annotation hard-codes a number ("1/2*20=<<20-10=10>>",
:mod:`.visible_terms`), a fact the words name ("the number of states in the USA": 50), and a word
that divides by pointing back to the step's other number ("half that many" / "36 / 2"). Each with
a near-miss that stays refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.givens import question_numbers
from qcstation.core.construct.make.rules.noun_counts import list_totals
from qcstation.core.reading.expr import BinOp, Num
from tests.core.construct.seeds import gsm8k_seed as _seed


def _steps(seed: dict) -> dict[str, str]:
    return {st.name.split("_")[0]: st.sexpr for st in rule_for_seed(seed).steps}


def test_a_count_the_question_states_in_parts_of_one_list(gsm8k: dict) -> None:
    # 405 "Jane counts two zebras with 17 stripes each, a zebra with 36 stripes, and another zebra
    # with half that many stripes" / "88 stripes / 4 zebras": the two, a zebra and another zebra
    rule = rule_for_seed(gsm8k["405"])
    steps = _steps(gsm8k["405"])
    assert steps["s4"] == "(/ s3_stripes (+ g2_zebras k_one_a_zebra k_one_another_zebra))"
    # "36 stripes / 2": "half that many" points back to the 36, not the "two zebras" of its sentence
    assert steps["s1"] == "(/ g1_stripes w_half_parts)"
    assert rule.value == 22
    words = {g["name"]: g["words"] for g in rule.givens}
    assert words["g2_zebras"] == "two" and words["w_half_parts"] == "half"


_Q = "Jane counts two zebras with 17 stripes each, a zebra with 36 stripes, and another zebra with 18 stripes."


def _total(question: str, line: str, earlier: tuple[Fraction, ...] = ()) -> object:
    e = BinOp("/", Num(Fraction(88), "88"), Num(Fraction(4), "4"))
    before = [Num(v, str(v)) for v in earlier]
    return list_totals([0] * (len(before) + 1), [*before, e], question_numbers(question), line,
                       [*earlier, Fraction(22)])[-1]


def test_the_parts_of_a_count_need_their_words() -> None:
    same = BinOp("/", Num(Fraction(88), "88"), Num(Fraction(4), "4"))
    line = "88 stripes / 4 zebras = 22 stripes"
    assert _total(_Q, line) == BinOp("/", Num(Fraction(88), "88"), BinOp(
        "+", BinOp("+", Num(Fraction(2), "two"), Num(Fraction(1), "k_one_a_zebra")),
        Num(Fraction(1), "k_one_another_zebra")))
    assert _total(_Q, "88 stripes / 4 = 22 stripes") == same                     # the line names no zebras
    assert _total(_Q, line, (Fraction(4),)) == same                              # an earlier result of 4
    assert _total(_Q.replace("a zebra with 36", "a zebra with 36 stripes. She sees a zebra with"), line) == same
    assert _total(_Q.replace("another zebra", "one striped zebra"), line) == same  # a place counted otherwise
    assert _total(_Q + " Zebras eat grass.", line) == same                      # a place no count names
    assert _total(_Q + " How many do the zebras have?", line) != same             # "the zebras": those counted
    # "4 inch heels" (1110): the noun a measure of another thing, no count of it
    heels = "Three women wear 4 inch heels and three wear 2 inch heels."
    e = BinOp("+", Num(Fraction(12), "12"), Num(Fraction(6), "6"))
    assert list_totals([0], [e], question_numbers(heels), "12 inches + 6 inches = 18 inches", [Fraction(18)])[0] == e


def test_a_count_no_list_gives_stays_refused() -> None:
    q = "Jane counts zebras with 17 stripes each and a zebra with 36 stripes. How many stripes on average?"
    sol = "Jane sees 17*3 + 36 = <<17*3+36=87>>87 stripes.\nSo 87 stripes / 4 zebras = <<87/4=21.75>>21.75"
    with pytest.raises(RuleError, match="writes the number"):
        rule_for_seed(_seed(q, sol, "21.75"))


def test_the_text_of_an_annotation_that_hard_codes_a_number(gsm8k: dict) -> None:
    # 579 "half the number is 1/2*20=<<20-10=10>>10": the text's half of the starting value 20
    rule = rule_for_seed(gsm8k["579"])
    assert _steps(gsm8k["579"])["s1"] == "(* w_half g1)"
    assert rule.value == 48


def test_an_annotation_whose_text_writes_an_unstated_number_stays_refused() -> None:
    q = "Diane gave a number train a starting value of 20. Half the number was added to it. What is the value?"
    sol = "Half the number is 20/2=<<20-10=10>>10\nThe value is 20+10=<<20+10=30>>30"
    assert rule_for_seed(_seed(q, sol, "30")).value == 30  # "20/2": half's parts, read from the text
    with pytest.raises(RuleError, match="writes the number 10"):
        rule_for_seed(_seed(q, sol.replace("20/2=", "20-10="), "30"))  # the text hard-codes it too
    with pytest.raises(RuleError, match="writes the number 10"):
        rule_for_seed(_seed(q, sol.replace("20/2=", "30/3="), "30"))  # the text's 30 and 3 no numbers of the question


def test_the_states_of_the_usa(gsm8k: dict) -> None:
    # 974 "India has 4 more than half the number of states in the USA" / "1/2*50 = 25 ... 50+29"
    rule = rule_for_seed(gsm8k["974"])
    steps = _steps(gsm8k["974"])
    assert steps["s1"] == "(* w_half k_states_of_the_usa)"
    assert steps["s3"] == "(+ k_states_of_the_usa s2_states_india)"
    assert rule.value == 79
    q = gsm8k["974"]["question"].replace("states in the USA", "states in Mexico")
    with pytest.raises(RuleError, match="writes the number 50"):
        rule_for_seed({**gsm8k["974"], "question": q})


def test_the_us_states_said_as_us_states() -> None:
    """read19: 'For each percentage point of total US states that he has' / '40 / 50' was refused
    ('writes the number 50'): 'US states' names the 50 as 'states in the USA' does."""
    q = ("Lia has stamps from 30 different states. For each percentage point of total US states she has, "
         "her aunt gives her $3. How much does she get?")
    sol = ("Her share of the states is .6 because 30 / 50 = <<30/50=.6>>.6\n"
           "She has 60% of them because .6 x 100 = <<.6*100=60>>60\n"
           "She gets $180 because 60 x 3 = <<60*3=180>>180\n#### 180")
    rule = rule_for_seed(_seed(q, sol, "180"))
    assert "(assert (= k_states_of_the_usa 50))" in rule.smtlib and rule.value == 180
    with pytest.raises(RuleError, match="writes the number 50"):
        rule_for_seed(_seed(q.replace("US states", "states of Brazil"), sol, "180"))


def test_a_half_that_names_its_own_comparison_is_not_pointed_back() -> None:
    q = ("Jane counts two zebras with 17 stripes each, a zebra with 36 stripes, and another zebra with half as "
         "many stripes as the two zebras. How many stripes does the last zebra have?")
    sol = "The last zebra has 36 stripes / 2 = <<36/2=18>>18 stripes"
    with pytest.raises(RuleError):
        rule_for_seed(_seed(q, sol, "18"))


def test_a_count_of_a_unit_the_question_states_in_parts(gsm8k: dict) -> None:
    # 453 "drives 60 mph for 2 hours, and then 30 mph for 1 hour" / "S=150 miles/3 hours": 2 + 1
    rule = rule_for_seed(gsm8k["453"])
    assert _steps(gsm8k["453"])["s4"] == "(/ s3_miles (+ g2_hours g4_hour))"
    assert rule.value == 50
    q = "A car drives 60 mph for 2 hours, and then 30 mph for 1 hour."
    e = BinOp("/", Num(Fraction(150), "150"), Num(Fraction(3), "3"))
    assert list_totals([0], [e], question_numbers(q), "S = 150 miles/3 hours = 50 mph", [Fraction(50)])[0] != e
    assert list_totals([0], [e], question_numbers(q), "S = 150 miles/1/3 hours", [Fraction(50)])[0] == e  # '1/3 hours'


def test_things_the_line_names_each_counted_once_by_an_article(gsm8k: dict) -> None:
    # 342 "A pink frog weighs the same as a blue beetle, the same as a green toad" / "Since the pink
    # frog weighs the same as a blue beetle and a green toad ... the three animals weigh 3*50"
    rule = rule_for_seed(gsm8k["342"])
    assert _steps(gsm8k["342"])["s1"] == \
        "(* (+ k_one_a_pink_frog k_one_a_blue_beetle k_one_a_green_toad) g1_pounds)"
    assert rule.value == 260
    line = gsm8k["342"]["solution"].splitlines()[0]
    # the line names two of the three things, or writes no count before a noun: refused
    for wrong in (line.replace(" and a green toad", ""), line.replace("the three animals weigh ", "")):
        sol = gsm8k["342"]["solution"].replace(line, wrong)
        with pytest.raises(RuleError, match="writes the number 3"):
            rule_for_seed({**gsm8k["342"], "solution": sol})
    # a thing the question counts twice ("a blue beetle ... a blue beetle"): which count, no words say
    q = gsm8k["342"]["question"].replace("a red bird", "a blue beetle")
    with pytest.raises(RuleError):
        rule_for_seed({**gsm8k["342"], "question": q})


def test_the_one_who_brings_a_group_and_the_one_asked_about(gsm8k: dict) -> None:
    # 591 "each invited person says that they will also invite 2 of their friends" / "groups of 1 +2";
    # "How many seats will Alex need?" / "Including her own seat, Alex ... 300 + 18 +1"
    rule = rule_for_seed(gsm8k["591"])
    steps = _steps(gsm8k["591"])
    assert steps["s1"] == "(+ k_one_invited_person g1_friends)"
    assert steps["s4"] == "(+ s2_people s3_people k_one_alex)"
    assert rule.value == 319
    sol = gsm8k["591"]["solution"]
    for wrong in (sol.replace("Including her own seat, ", "In the end, "),   # no one's own seat said
                  sol.replace("Each of the people that were emailed are", "They are")   # no group on the line
                  .replace("groups of", "sets of").replace("3 people.", "3.")):
        with pytest.raises(RuleError, match="writes the number 1"):
            rule_for_seed({**gsm8k["591"], "solution": wrong})
    q = gsm8k["591"]["question"].replace("2 of their friends", "2 friends")   # not "of their": no group
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed({**gsm8k["591"], "question": q})
    q = gsm8k["591"]["question"].replace("She then calls", "Her sister Jo then calls")  # two names
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed({**gsm8k["591"], "question": q})


def test_each_one_of_a_group_and_those_who_join_it(gsm8k: dict) -> None:
    # 1285 "each child is joined by another child ... each child in the existing group is joined by
    # another 2 children" / "the group doubles to 5 children * 2", "tripled to 10 children * 3"
    rule = rule_for_seed(gsm8k["1285"])
    steps = _steps(gsm8k["1285"])
    assert steps["s1"] == "(* g1_children (+ k_one_each_child k_one_another_child))"   # never the "2 children"
    assert steps["s2"] == "(* s1_children (+ k_one_each_child_in_the_existing_group g2_children))"
    assert rule.value == 25
    # the first line not restating its clause: its 2 could be the question's "2 children" by value, so
    # no step is read so and the 3 stays refused
    sol = gsm8k["1285"]["solution"].replace("each child is joined by another child so the group doubles",
                                            "the group doubles")
    with pytest.raises(RuleError, match="writes the number 3"):
        rule_for_seed({**gsm8k["1285"], "solution": sol})
