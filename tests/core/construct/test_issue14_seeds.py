"""Issue 14's seeds (GSM8K test ids), pinned: a corrected artifact, or a refusal with its
reason (a faithful refusal is better than a wrong reference)."""

from __future__ import annotations

import json

import pytest

from qcstation.core.construct.keyinfo import keyinfo_from_annotations
from qcstation.core.construct.rules import RuleError, rule_for_seed
from qcstation.core.construct.selfcheck import audit_artifact
from tests.conftest import dataset


@pytest.fixture(scope="module")
def gsm8k() -> dict[str, dict[str, str]]:
    rows = dataset("gsm8k/test.jsonl").read_text().splitlines()
    out = {}
    for i, line in enumerate(rows, start=1):
        rec = json.loads(line)
        solution, gold = rec["answer"].split("####")
        out[str(i)] = {"question": rec["question"], "solution": solution.strip(),
                       "answer_text": gold.strip(), "source": "gsm8k"}
    return out


@pytest.mark.parametrize(("seed", "reason"), [
    # the 30 days of April and June, 3 months of 31 days: facts the question does not state
    ("511", "step 1 writes the number 3, which the question states neither"),
    # "half as old" or "his 2 sons": the solution's 8 / 2 names neither
    ("295", "given-words: s1_oranges uses 2, which the question states under different words: "
            "'2 sons', 'half'"),
    # "2 hours", "twice a month" or "round trip"
    ("1121", "given-words: s1_miles_away uses 2, which the question states under different words: "
             "'2 hours', 'twice', 'round trip'"),
    # "a quarter" of the cars or "four windows"
    ("728", "given-words: s1_cars uses 4, which the question states under different words: "
            "'four windows', 'a quarter'"),
    # 9000(.30)=2700 has no annotation: 2700 would be hard-coded
    ("1271", "step 1 writes the number 2700"),
    # "x 100%" would be read as the given "100 plants"
    ("891", "step 1 writes the number 4"),
    # "twice the amount of apples" or "half"
    ("122", "given-words: s1_apples uses 2, which the question states under different words: "
            "'twice', 'half'"),
    # 40 employees or a 40-hour workweek: tied by order only
    ("410", "uncertain binding: the question states 40 more than once"),
])
def test_a_binding_no_reader_can_vouch_for_is_not_rule_made(gsm8k: dict, seed: str, reason: str) -> None:
    with pytest.raises(RuleError) as info:
        rule_for_seed(gsm8k[seed])
    assert reason in str(info.value)


def _keyinfo(seed: dict) -> dict:
    rule = rule_for_seed(seed)
    assert rule.bound is True
    fields = keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)
    assert [f for f in audit_artifact("understanding", fields, seed)
            if f.code in ("value-leak", "irrelevant-used", "repeated-field")] == []
    return fields


def test_57_every_given_once_per_occurrence(gsm8k: dict) -> None:
    # the ticket and the popcorn both cost $7: two givens, two known quantities
    f = _keyinfo(gsm8k["57"])
    assert f["known_quantities"] == ["He always gets a ticket for $7", "Popcorn for $7",
                                     "He has 42 dollars for the week"]


def test_446_no_unknown_shows_a_result_or_the_answer(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["446"])
    assert f["unknown_quantities"][3:] == ["Q4: Michael has ? because ?",
                                           "Q5: Michael has ? in change because ? (the value asked for)"]


def test_962_a_known_quantity_is_a_whole_true_clause(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["962"])
    assert "Amora and Lainey got 70 corn chips each" in f["known_quantities"]
    assert "Lainey got 70 corn chips each" not in f["known_quantities"]


def test_878_the_goal_is_the_question_and_the_scenario_ends_cleanly(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["878"])
    assert f["goal"] == "For how much money did Isaias buy the chicken he took to the market for sale?"
    assert f["problem_scenario"].endswith("Isaias has 300 chickens on his farm and plans to sell 3/5 of them.")


def test_1217_the_scenario_keeps_every_fact(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["1217"])
    for fact in ("capacity of 200 people", "it had 20 people", "40 people entered the bus",
                 "3/4 of the total number", "doubled at the third station"):
        assert fact in f["problem_scenario"], fact
    assert "The number of passengers on the bus doubled at the third station" in f["known_quantities"]


def test_1251_the_goal_keeps_its_condition(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["1251"])
    assert f["goal"] == "How many chips does each person get if they all get the same number?"


# --------------------------------------------------------------------------- injected errors


def _injected(gsm8k: dict, seed: str, etype: str, rng: int):  # type: ignore[no-untyped-def]
    from qcstation.core.construct.inject import clean_cot, inject_errors

    s = gsm8k[seed]
    answer = s["solution"] + "\n#### " + s["answer_text"]
    return clean_cot(answer), inject_errors(answer, types=[etype], rng_seed=rng, question=s["question"])


def test_1251_the_edited_step_states_its_new_result(gsm8k: dict) -> None:
    from qcstation.core.construct.reread import stale_edits

    for rng in range(12):
        original, res = _injected(gsm8k, "1251", "operator_misuse", rng)
        assert stale_edits("\n".join(original), "\n".join(res.steps)) == [], res.steps
        if "110 * 5 = 550" in res.steps[1]:
            assert res.steps[1] == "They each get 550 chips because 110 * 5 = 550"


def test_225_propagation_never_changes_an_equal_value_it_does_not_follow(gsm8k: dict) -> None:
    # Carlos pays 30*3 = 90, Benji 18*5 = 90, together 90 + 90: a change of one 90 cannot be
    # carried into "90 + 90" by value; that step is not chosen
    from qcstation.core.construct.inject import InjectionError

    for etype in ("arithmetic_inaccuracy", "operator_misuse"):
        for rng in range(12):
            try:
                original, res = _injected(gsm8k, "225", etype, rng)
            except InjectionError:
                continue
            step = res.errors[0].step
            assert step == 2 or "90" not in original[step].rsplit("=", 1)[-1], (original, res.steps)


def test_insertions_read_naturally_and_do_not_name_their_type(gsm8k: dict) -> None:
    from qcstation.core.construct.inject import InjectionError

    openings: dict[str, set[str]] = {"hallucinated_content": set(), "redundancy": set()}
    for etype in openings:
        for i in range(1, 200):
            try:
                _, res = _injected(gsm8k, str(i), etype, i)
            except InjectionError:
                continue
            text = res.errors[0].modified
            assert not text.startswith(("The problem also", "Recall that", "As computed before", "Again,"))
            assert "problem" not in text.lower() and "mentioned" not in text.lower()
            openings[etype].add(" ".join(text.split()[:2]))
    assert len(openings["hallucinated_content"]) >= 5 and len(openings["redundancy"]) >= 5
