"""A number a step writes that is both an earlier result and a value the question states is
the earlier result when the structure settles it and the words do not contradict it (issue
26.1, :mod:`qcstation.core.construct.check.dangling`): the earlier result has no other use,
and every place the question states the value already has its own given, used once; read as
a given, the number would be one given in two roles and the earlier step computed for
nothing. Real GSM8K seeds checked with real Z3 against the gold and with the make-time
audit; near-misses where one given is already in two roles or a place is free stay refused."""

from __future__ import annotations

import json

import pytest

from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _asserts(smtlib: str) -> set[str]:
    return {line for line in smtlib.splitlines() if line.startswith("(assert")}


def _spans(rule, question: str) -> dict[str, str]:
    return {g["name"]: question[g["span"][0]:g["span"][1] + 12] for g in rule.givens}


@pytest.mark.parametrize("sid, step, given_starts", [
    # "Her husband eats 1 cookie a day for 7 days ... 1*7 = 7 cookies"; "her husband eats 7 so
    # Jenny eats 36-20-7": the 7 days are the husband's, the 7 subtracted his cookies
    ("347", "(assert (= s3_cookies (- g5_cookies s1_cookies s2_cookies)))",
     {"g4_days": "7 days", "g3_cookie": "1 cookie a"}),
    # "1 hour on Tuesdays and 2 hours on Thursdays"; Saturday "2*1 = 2 hours"; "3 hours on the
    # weekdays and 2 hours on the weekend ... 3+2": the 2 is Saturday's, not Thursday's
    ("373", "(assert (= s3_hours (+ s1_hours s2_hours_saturday)))", {"g2_hours": "2 hours on"}),
    # "only 30% receive interviews"; "100 * 0.30 = 30 people", "30 * 0.20 = 6 people": the
    # question's 30 is the percent, already the first step's 0.30
    ("719", "(assert (= s2_people (* s1_people g3_receive_pct)))", {"g2_receive_pct": "30% rec"}),
    # "A loaf ... costs $2. Bagels cost $1 each ... 2 bagels"; "2 * $1 = $2", "$6 - $2"
    ("800", "(assert (= s3_bagels (- s1_loaves_bread s2_bagels)))", {"g2": "2. Bagels", "g3_bagels": "2 bagels"}),
    # "3 less than ten", "another three"; "7-4 = 3 remained", "3+3 = 6": one 3 is what remained
    ("1069", "(assert (= s3_sub_sandwiches (+ g4_sub s2_remained)))", {"g2": "3 less than", "g4_sub": "three sub"}),
])
def test_the_earlier_result_no_other_step_uses(gsm8k: dict, z3pool, sid: str, step: str, given_starts) -> None:
    seed = gsm8k[sid]
    rule = rule_for_seed(seed)
    assert step in _asserts(rule.smtlib)
    spans = _spans(rule, seed["question"])
    for name, start in given_starts.items():
        assert spans[name].startswith(start), (name, spans[name])
    assert pool_ok(z3pool, rule, seed)
    content = {"smtlib": rule.smtlib, "givens": rule.givens, "links": rule.links}
    assert audit_artifact("reasoning", json.dumps(content), seed) == []


def pool_ok(pool, rule, seed) -> bool:
    return pool.verify(rule.smtlib, seed["answer_text"]).ok


@pytest.mark.parametrize("sid", [
    # (973, "2 x 2 = 4 boxes to her mom and sister", was here: the one given 2 in two roles. Since lane
    # cover40 the two are "her mom and her sister", a pair the line names (w_her_mom_and_her_sister):
    # made, and a line naming no pair stays refused, test_given_words_left)
    "1055",  # "1*1 = 1 SqFt" for a square tile's side: the one given 1 used twice
    # (610, "1/4 pound ... 1 dozen croissants", was here: the question's 1 (a dozen) is used by no
    # step. Its "1*7 = 7 pounds of butter" now reads by the words: the product names the rate "1 pound
    # of butter" of "4*.25", the line names the 7 "7 days", the question's 1 is "1 dozen croissants";
    # made since lane cover24, test_reading_equal_results.test_a_rate_times_a_count_names_the_rate...)
    "765",   # "$6 + $5 + $3" for Chase's "1 x $3 = $3": "the three of them" is a 3 no step uses
])
def test_a_place_free_or_a_given_in_two_roles_stays_refused(gsm8k: dict, sid: str) -> None:
    # (765's "3 x $2" is the 3 cucumbers by the words since lane cover36: "Cucumbers are $2 each";
    # its sum's "$3" stays refused as the link to Chase's "1 x $3" beside the unused "three of them")
    with pytest.raises(RuleError, match="equal-value-link"):
        rule_for_seed(gsm8k[sid])


def test_words_naming_the_questions_place_refuse_the_link() -> None:
    """The line writes "7 days" where the earlier result counts cookies: the words name the
    question's place, not the earlier result, so the structure does not decide; the same line
    naming nothing is read by the structure."""
    # ("a week" is a second 7 of the question, which the lines do not write)
    seed = {"question": "Jenny buys a bag of 36 cookies a week. Her husband eats 1 cookie a day for 7 days. "
                        "Her son eats 20 cookies. How many cookies are left?",
            "solution": "Her husband eats 1 cookie a day for 7 days, 1*7 = <<1*7=7>>7 cookies.\n"
                        "After her son eats 20 and 7 days pass, 36-20-7 = <<36-20-7=9>>9 cookies are left.",
            "answer_text": "9", "source": "gsm8k"}
    with pytest.raises(RuleError, match="equal-value-link: s2_cookies uses s1_cookies = 7"):
        rule_for_seed(seed)
    neutral = {**seed, "solution": seed["solution"].replace("7 days pass", "his 7 are gone")}
    rule = rule_for_seed(neutral)
    assert [(lk["step"], lk["uses"]) for lk in rule.links] == [("s2_cookies", "s1_cookies")]
