"""The second opinion on derived items (issue 26.3): every answer re-derived from the item's
own question through its parent's gold solution's calculator annotations, independently of
the formalization that made it; old values left in its texts; repeated questions; parents
whose artifacts carry a blocking flag; givens that are parts of a stated total or an
animal's legs. Hand-worked texts, the expected verdicts worked out by hand."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

from qcstation.core.derive import recheck as rc
from qcstation.core.derive.bindings import Given, _fixed
from qcstation.core.derive.model import DerivedItem, Refused
from qcstation.core.derive.numbers import read_style
from qcstation.core.derive.parent import _parts_of
from qcstation.core.derive.runner import hard_flags, second_opinion
from tests.core.derive.helpers import JAMES

PEACHES = {"question": "John collects peaches for 3 hours.  He can collect 2 peaches a minute.  "
                       "How many peaches does he collect?",
           "solution": "He is collecting peaches for 3*60=<<3*60=180>>180 minutes\nSo he can "
                       "collect 180 * 2 = <<180*2=360>>360 peaches", "answer_value": "360"}


def _item(question: str, solution: str, answer: str, transform: str = "variant") -> dict[str, object]:
    return {"transform": transform, "question": question, "solution": solution,
            "answer_value": answer, "contents": {}, "params": {}}


def test_a_right_variant_is_confirmed_and_a_wrong_one_is_found() -> None:
    q = PEACHES["question"].replace("3 hours", "4 hours").replace("2 peaches", "3 peaches")
    s = "He is collecting peaches for 4*60=<<4*60=240>>240 minutes\nSo he can collect 240 * 3 = " \
        "<<240*3=720>>720 peaches"
    assert rc.recheck(PEACHES, _item(q, s, "720")).status == "ok"      # 4 * 60 * 3 by hand
    wrong = rc.recheck(PEACHES, _item(q, s, "540"))
    assert (wrong.status, wrong.value) == ("wrong", Fraction(720))


def test_a_number_the_words_also_imply_is_not_guessed() -> None:
    # GSM8K 71: the solution's second 5 is the weekdays, not the 5 dance classes
    judy = {"question": "Judy teaches 5 dance classes, every day, on the weekdays and 8 classes on "
                        "Saturday.  If each class has 15 students and she charges $15.00 per "
                        "student, how much money does she make in 1 week?",
            "solution": "She teaches 5 dance classes 5 days a week so that's 5*5 = <<5*5=25>>25 "
                        "classes\nShe teaches 25 classes during the week and 8 classes on Saturday "
                        "for a total of 25+8 = <<25+8=33>>33 classes\nThere are 15 students in each "
                        "of the 33 classes so there are 15*33 = <<15*33=495>>495 students\nEach "
                        "student pays $15.00 per class and there are 495 students so Judy makes "
                        "15*495 = $<<15*495=7425>>7,425", "answer_value": "7425"}
    q = judy["question"].replace("teaches 5", "teaches 3").replace("8 classes", "4 classes")
    v = rc.recheck(judy, _item(q, "", "2925"))
    assert v.status == "unconfirmed" and "imply" in v.why


def test_an_old_value_left_in_the_solution_is_found() -> None:
    parent = {"question": "Richard lives in an apartment building with 15 floors. Each floor "
                          "contains 8 units, and 3/4 of the building is occupied. What's the total "
                          "number of unoccupied units In the building?",
              "solution": "The total number of units is 8 * 15 = <<8*15=120>>120 units.\nIf 3/4 of "
                          "the building is occupied, then 3/4 * 120 = <<3/4*120=90>>90 units.\nThe "
                          "unoccupied units are 120 - 90 = <<120-90=30>>30 units.",
              "answer_value": "30"}
    q = parent["question"].replace("15 floors", "24 floors").replace("8 units", "10 units") \
        .replace("3/4", "5/8")
    s = ("The total number of units is 10 * 24 = <<10*24=240>>240 units.\nIf 3/4 of the building "
         "is occupied, then 5/8 * 240 = <<5/8*240=150>>150 units.\nThe unoccupied units are "
         "240 - 150 = <<240-150=90>>90 units.")
    v = rc.recheck(parent, _item(q, s, "90"))
    assert v.status == "ok" and not v.ok and v.stale == ["solution writes 3/4"]
    assert rc.recheck(parent, _item(q, s.replace("If 3/4", "If 5/8"), "90")).ok
    # the value is read once per question (the runner asks about a draft, then the built
    # item): asked again, an item's own texts and answer are still what is judged
    assert rc.recheck(parent, _item(q, s, "90")).stale == ["solution writes 3/4"]
    assert (rc.recheck(parent, _item(q, s, "91")).status, rc.recheck(parent, _item(q, "", "90")).ok) \
        == ("wrong", True)


def test_an_inverse_count_read_through_a_division_is_not_unique() -> None:
    movies = {"question": "Tom has $21. A movie ticket costs $7. How many times can he go to the "
                          "movies?",
              "solution": "He can go 21 / 7 = <<21/7=3>>3 times.", "answer_value": "3"}
    q = ("Tom has $21. A movie ticket costs $X. How many times can he go to the movies? If we "
         "know the answer to the above question is 3, what is the value of unknown variable X?")
    v = rc.recheck(movies, _item(q, "", "7", "inverse"))
    assert v.status == "wrong" and "interval" in v.why       # X = 6 gives 3 times too
    wire = {"question": "Tracy used a piece of wire 4 feet long to support tomato plants in the "
                        "garden. The wire was cut into pieces 6 inches long. How many pieces did "
                        "she obtain?",
            "solution": "The wire was 12*4=<<12*4=48>>48 inches long.\nShe obtained 48/6=<<48/6=8>>8 "
                        "pieces", "answer_value": "8"}
    q = wire["question"].replace("wire 4 feet", "wire X feet") + (
        " If we know the answer to the above question is 8, what is the value of unknown "
        "variable X?")
    assert rc.recheck(wire, _item(q, "", "4", "inverse")).status == "wrong"   # 4.25 feet: 8 too
    total = dict(movies, question="Tom has $21. A movie ticket costs $7. How much does he pay "
                                  "for 3 tickets?", solution="He pays 7 * 3 = <<7*3=21>>21.",
                 answer_value="21")
    q = ("Tom has $21. A movie ticket costs $X. How much does he pay for 3 tickets? If we know "
         "the answer to the above question is 21, what is the value of unknown variable X?")
    assert rc.recheck(total, _item(q, "", "7", "inverse")).status == "ok"


def test_a_notation_question_is_evaluated_as_written() -> None:
    q = ("Let a = 5.4, b = 3.3, c = 82 and d = 57. Let s1 = a × a, s2 = s1 + b, s3 = c × s2 and "
         "answer = d × s3. What is the value of answer?")
    value = Fraction(57) * 82 * (Fraction("5.4") ** 2 + Fraction("3.3"))
    assert rc.recheck({"answer_value": "1"}, _item(q, "", str(value), "digits")).status == "ok"
    assert rc.recheck({"answer_value": "1"}, _item(q, "", "1", "digits")).status == "wrong"


def test_the_route_reads_no_formalization() -> None:
    tree = ast.parse(Path(rc.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m.startswith("qcstation") for m in imported), imported


def _derived(question: str, tag: str, idx: int) -> DerivedItem:
    return DerivedItem("counterfactual", idx, 10, tag, {}, question, JAMES["answer"].split("\n####")[0],
                       Fraction(540), "540", {}, {})


def test_one_item_per_distinct_question() -> None:
    seed = {"question": JAMES["question"], "solution": JAMES["answer"].split("\n####")[0],
            "answer_value": "540"}
    out = second_opinion(seed, [_derived(JAMES["question"], "cf+10", 0),
                                _derived(JAMES["question"], "cf+20", 1)])
    # the same question as the parent's with no number moved: not confirmable, refused
    assert all(isinstance(o, Refused) for o in out)
    q = JAMES["question"].replace("60 meters", "66 meters")
    sol = "He sprints 3*3=<<3*3=9>>9 times\nSo he runs 9*66=<<9*66=594>>594 meters"
    a, b = (DerivedItem("counterfactual", i, 10, t, {}, q, sol, Fraction(594), "594", {}, {})
            for i, t in ((0, "cf+10"), (1, "cf+20")))
    out = second_opinion(seed, [a, b])
    assert out[0] is a and isinstance(out[1], Refused) and out[1].code == "repeated"


def test_a_flagged_parent_is_not_derived_from() -> None:
    assert hard_flags({"reasoning": {"flag_codes": "equal-value-link:1"}}) == \
        "its reasoning artifact is flagged equal-value-link"
    assert hard_flags({"reasoning": {"flag_codes": ""},
                       "understanding": {"flag_codes": "repeated-field:1"}}) == ""


def _given(name: str, question: str, words: str) -> Given:
    start = question.index(words)
    value = Fraction(rc._number(words) or 0)
    return Given(name, value, start, start + len(words), words, "number", read_style(words, value))


def test_parts_of_a_stated_total_and_legs_keep_their_values() -> None:
    q = ("Sam bought six packets of seeds. He planted four of the packets in May and the other "
         "two in June. Each packet has 12 seeds. How many seeds did he plant in May?")
    gs = (_given("g1", q, "six"), _given("g2", q, "four"), _given("g3", q, "12"))
    held = _parts_of(q, gs, frozenset())
    assert set(held) == {"g1", "g2"} and "6 - 4" in held["g1"]
    # GSM8K 21: the asked "remaining 24 liters" is 10 + 15 - 1, three givens
    q = ("I have 10 liters of orange drink that are two-thirds water and I wish to add it to 15 "
         "liters of pineapple drink that is three-fifths water. But as I pour it, I spill one "
         "liter of the orange drink. How much water is in the remaining 24 liters?")
    gs = (_given("g1", q, "15"), _given("g2", q, "10"), _given("g3", q, "one"))
    held = _parts_of(q, gs, frozenset())
    assert set(held) == {"g1", "g2", "g3"} and "'24'" in held["g1"]
    assert "15 + 10 - 1" in held["g1"] or "10 + 15 - 1" in held["g1"], held["g1"]
    # a total no three givens make holds nothing
    other = q.replace("24 liters", "30 liters")
    assert _parts_of(other, (_given("g1", other, "15"), _given("g2", other, "10"),
                             _given("g3", other, "one")), frozenset()) == {}
    legs = "A farm has 18 5-legged starfish."
    assert _fixed(legs, legs.index("5"), legs.index("5") + 1, Fraction(5)) == "the legs of an animal"


def test_an_article_that_follows_its_number_is_no_change_of_words() -> None:
    # "A 4 foot strip" -> "An 8 foot strip": the article is said with the new number
    pairs = rc._changes("A 4 foot strip is cut off.", "An 8 foot strip is cut off.")
    assert [(x.value, y.value) for x, y in pairs] == [(Fraction(4), Fraction(8))]
    try:
        rc._changes("A 4 foot strip is cut off.", "The 8 foot strip is cut off.")
    except rc._Unconfirmed:
        pass
    else:
        raise AssertionError("another word than the article passed as a number change")


def test_a_unit_conversion_the_question_states_keeps_its_value() -> None:
    """GSM8K train 2465 (lane gold8's held-out reading): "there are 8 ounces in a cup of water"
    was moved by a variant to "there are 5 ounces in a cup", a story that states a false unit
    (the answer followed it: 70/5*3 = 42). A given the question states as the true size of one
    unit in another is held; the other numbers still move."""
    q = ("A mother is making her own bubble mix out of dish soap and water for her two-year-old son.  "
         "The recipe she is following calls for 3 tablespoons of soap for every 1 cup of water.  If the "
         "container she hopes to store the bubble mix in can hold 40 ounces of liquid, and there are 8 "
         "ounces in a cup of water, how many tablespoons of soap should she add to the container "
         "(assuming that the soap itself doesn't count towards the capacity of the container)?")
    at = q.index("8 ounces")
    assert _fixed(q, at, at + 1, Fraction(8)) == "a unit conversion the question states"
    forty = q.index("40")
    assert _fixed(q, forty, forty + 2, Fraction(40)) == ""
    three = q.index("3 tablespoons")
    assert _fixed(q, three, three + 1, Fraction(3)) == ""
    # the other side of the same words: "a ton is 2000 pounds" (train 1840), "16 ounces to a
    # pound" (GSM8K test 1131); a size that is no true conversion is no unit of the story's world
    ton = "An elephant weighs 3 tons (a ton is 2000 pounds)."
    assert _fixed(ton, ton.index("2000"), ton.index("2000") + 4, Fraction(2000)) != ""
    pound = "How much do the apples weigh, when there are 16 ounces to a pound?"
    assert _fixed(pound, pound.index("16"), pound.index("16") + 2, Fraction(16)) != ""
    wrong = q.replace("8 ounces in a cup", "5 ounces in a cup")
    five = wrong.index("5 ounces")
    assert _fixed(wrong, five, five + 1, Fraction(5)) == ""
