"""A seed whose number word is one only under Unicode case folding ("ſix") is formalized by the
rules like its ASCII twin (it was a KeyError that left the seed to a model)."""

from __future__ import annotations

from qcstation.core.construct.make.rules.dispatch import rule_for_seed


def test_long_s_number_word_is_a_given() -> None:
    seed = {"question": "She has \u017fix apples and buys 4 more. Then she gives away 3. How many apples "
                        "does she have?",
            "solution": "She has 6+4=<<6+4=10>>10 apples.\nThen 10-3=<<10-3=7>>7.\n#### 7",
            "source": "gsm8k", "answer_value": "7"}
    twin = {**seed, "question": seed["question"].replace("\u017fix", "six")}
    got, want = rule_for_seed(seed), rule_for_seed(twin)
    assert got.smtlib == want.smtlib and got.value == 7
    assert got.givens[0]["words"] == "\u017fix" and got.givens[0]["value"] == "6"
