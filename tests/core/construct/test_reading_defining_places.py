"""A use of a value the question states at several places is placed by the words, never by
order (issue 26, point 1): a restatement ("the five pies", "enough for 30 days?") means the
quantity its earlier place defines (:mod:`qcstation.core.construct.make.rules.defining`), a
complement ("the other two pizzas") is its own place (:mod:`.joint`'s marks), a clock time is no
quantity; where the words decide none, the binder refuses rather than take the first free place."""

from __future__ import annotations

import re

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.defining import defining_place


def _given_words(seed: dict) -> dict[str, str]:
    """Each given's name -> the question's words from its span (25 characters)."""
    rule = rule_for_seed(seed)
    q = seed["question"]
    return {str(g["name"]): q[g["span"][0]:g["span"][0] + 25] for g in rule.givens}


def _step_givens(seed: dict) -> dict[str, list[str]]:
    rule = rule_for_seed(seed)
    words = _given_words(seed)
    return {st.name.split("_")[0]: [words[n] for n in re.findall(r"\bg\d+\w*", st.sexpr) if n in words]
            for st in rule.steps}


def test_the_other_two_is_the_complement_not_the_first_two(gsm8k: dict) -> None:
    # 782 "If two of the pizzas cost 30 dollars, how much did each of the other two pizzas cost":
    # "Each of the other two pizzas cost 34/2" divides by the other two, never by the first "two"
    # (bound there by order before)
    assert _step_givens(gsm8k["782"])["s2"] == ["two pizzas cost if they c"]


def test_a_factor_written_once_for_three_places_is_refused(gsm8k: dict) -> None:
    # 27 "3 pairs of shorts, 3 pairs of pants, and 3 pairs of shoes" -> "3 * (16.50 + 22.50 + 42)":
    # one 3 stands for the three places; tied to the first (the shorts) a derived item moving
    # the shorts' 3 would move the pants and shoes with it
    with pytest.raises(RuleError, match="the words decide none"):
        rule_for_seed(gsm8k["27"])


def test_a_restatement_means_the_quantity_its_first_place_defines(gsm8k: dict) -> None:
    # 147 "a lego boxed set with 500 pieces ... 3 times more pieces than the 500 piece one": the
    # three uses of 500 are the first set's pieces; was refused as tied by order
    rule = rule_for_seed(gsm8k["147"])
    assert rule.value == 2125
    words = _given_words(gsm8k["147"])
    assert [w for w in words.values() if w.startswith("500")] == ["500 pieces on the floor, "]
    # 43 "baked 5 apple pies ... set the five pies out": "5*8" is the 5 apple pies
    assert _step_givens(gsm8k["43"])["s1"][0].startswith("5 apple pies")
    # 413 "to last her for 30 days ... enough for 30 days?": the asked 30 days restate the first
    assert _step_givens(gsm8k["413"])["s1"][1].startswith("30 days by storing")


def test_a_percent_is_placed_by_what_it_is_a_percent_of(gsm8k: dict) -> None:
    # 251 "50% boys and 50% girls": "The school has 30 girls because 60 x .5" is the girls' 50%
    # (bound to the boys' by order before)
    assert _step_givens(gsm8k["251"])["s2"] == ["50% girls. The first clas"]


def test_a_clock_time_is_no_quantity(gsm8k: dict) -> None:
    # 182 "five times the number of white carnations ... by 5 pm": "200 pink calla lilies / 5"
    assert _step_givens(gsm8k["182"])["s1"][1].startswith("five times")


def test_defining_place_reads_restatements_and_complements() -> None:
    q = "Ann baked 5 pies and set the five pies out. How many pieces are in the 5 pies?"
    starts = [q.index("5 pies"), q.index("five"), q.rindex("5 pies")]
    own = [frozenset({"pie"})] * 3
    assert defining_place(q, starts, [1, 4, 1], own, False, 1) == 0
    # "the other two" and "another 18" are new quantities: nothing is decided
    q = "If two of the pizzas cost 30 dollars, how much did each of the other two pizzas cost?"
    starts = [q.index("two"), q.rindex("two")]
    assert defining_place(q, starts, [3, 3], [frozenset({"pizz"})] * 2, False, 1) is None
    # a condition before "how many" restates nothing ("If John has 20 minutes of math homework
    # ... and 20 minutes of history homework, how many minutes")
    q = "If John has 20 minutes of math homework and 20 minutes of history homework, how many minutes?"
    starts = [q.index("20"), q.rindex("20")]
    assert defining_place(q, starts, [2, 2], [frozenset({"minu"})] * 2, False, 1) is None
    # what is asked restates an earlier place only when the solution uses the value fewer times
    q = "Dora will turn 12 in 3 years. How old will her brother be in 3 years?"
    starts = [q.index("3"), q.rindex("3")]
    assert defining_place(q, starts, [1, 1], [frozenset({"year"})] * 2, False, 1) == 0
    assert defining_place(q, starts, [1, 1], [frozenset({"year"})] * 2, False, 2) is None
    # a count the story lists ("the three have"): decided only when the line writes the value
    # nowhere else ("Jan has 3 * 6", not "3 * 20 for the three boys")
    q = "Jan has three times the pets of Marcia. How many pets do the three have?"
    starts = [q.index("three"), q.rindex("three")]
    own = [frozenset({"time"}), frozenset()]
    assert defining_place(q, starts, [5, 5], own, False, 1) == 0
    assert defining_place(q, starts, [5, 5], own, True, 1) is None
    # a clock time is no quantity
    q = "She ordered five times as many. Deliver them by 5 pm."
    starts = [q.index("five"), q.index("5 pm")]
    assert defining_place(q, starts, [4, 1], [frozenset({"time"}), frozenset({"pm"})], False, 1) == 0
