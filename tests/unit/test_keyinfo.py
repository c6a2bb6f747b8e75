from __future__ import annotations

import json

import pytest

from qcstation.core.keyinfo import KeyInfoError, parse_keyinfo, validate_keyinfo

QUESTION = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes "
            "muffins for her friends every day with four. She sells the remainder at the farmers' "
            "market daily for $2 per fresh duck egg. How much in dollars does she make every day?")

GOOD = {
    "Problem Scenario": "Janet sells duck eggs at a market.",
    "Goal": "Daily earnings in dollars.",
    "Known Quantities": ["16 eggs per day", "$2 per egg"],
    "Unknown Quantities": ["eggs sold per day"],
    "Relationships and Constraints": ["sold = 16 - 3 - 4", "earnings = sold * 2"],
    "Irrelevant Information": [],
}


def test_parses_fenced_json_with_title_case_keys() -> None:
    text = "Here you go:\n```json\n" + json.dumps(GOOD) + "\n```\nthanks"
    fields = parse_keyinfo(text)
    assert list(fields) == ["problem_scenario", "goal", "known_quantities", "unknown_quantities",
                            "relationships_and_constraints", "irrelevant_information"]
    assert fields["known_quantities"] == ["16 eggs per day", "$2 per egg"]
    assert validate_keyinfo(fields, QUESTION) == []


@pytest.mark.parametrize("text, msg", [
    ("", "empty"),
    ("no json here", "no JSON object"),
    ('{"goal": "x",', "malformed"),
    ("[1, 2]", "no JSON object"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "Goal"}), "missing field"),
    (json.dumps({**GOOD, "Secret": "x"}), "unexpected field"),
    (json.dumps({**GOOD, "Known Quantities": [{"a": 1}]}), "list of strings"),
])
def test_malformed_model_output_is_a_clear_error(text: str, msg: str) -> None:
    with pytest.raises(KeyInfoError, match=msg):
        parse_keyinfo(text)


def test_invented_numbers_are_caught() -> None:
    fields = parse_keyinfo(json.dumps({**GOOD, "Known Quantities": ["16 eggs", "7 hens"]}))
    problems = validate_keyinfo(fields, QUESTION)
    assert any("not in the problem" in p and "7" in p for p in problems)


def test_empty_goal_is_caught() -> None:
    fields = parse_keyinfo(json.dumps({**GOOD, "Goal": ""}))
    assert "Goal is empty" in validate_keyinfo(fields, QUESTION)
