"""The two people a question shares something between (issue 26.1, lane covB): a step's divisor 2
is the one who splits and the one other the words name in the singular ("with his sister"), or the
two people the question names who share equally. Never where the words leave the count open."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def test_one_person_splits_with_one_other() -> None:
    q = "Omar splits 12 slices of pizza with his sister. Each slice has 300 calories. How many calories does Omar eat?"
    made = rule_for_seed(_seed(q, "Omar eats 12/2=<<12/2=6>>6 slices.\nSo he eats 6*300=<<6*300=1800>>1800 calories."
                                  "\n#### 1800", "1800"))
    assert made.value == 1800
    assert made.steps[0].sexpr == "(/ g1_slices w_with_his_sister)"
    given = next(g for g in made.givens if g["name"] == "w_with_his_sister")
    assert given["words"] == "with his sister" and q[slice(*given["span"])] == "with his sister"


def test_two_named_people_share_equally() -> None:
    q = ("Nora has 18 stamps and Felix has 6 more stamps than Nora. If they put their stamps together and share "
         "them equally between themselves, how many stamps does each get?")
    made = rule_for_seed(_seed(q, "Felix has 18+6=<<18+6=24>>24 stamps.\nTogether they have 18+24=<<18+24=42>>42 stamps."
                                  "\nSharing them equally, each gets 42/2=<<42/2=21>>21 stamps.\n#### 21", "21"))
    assert made.value == 21
    assert made.steps[-1].sexpr == "(/ s2_stamps k_2_sharers_nora_felix)"


@pytest.mark.parametrize("question", [
    # how many friends is not said
    "Omar splits 12 slices of pizza with his friends. Each slice has 300 calories. How many calories does Omar eat?",
    # two split with a third
    "Omar and Lina split 12 slices of pizza with their mom. Each slice has 300 calories. How many calories does Omar eat?",
])
def test_the_words_leave_the_count_open(question: str) -> None:
    with pytest.raises(RuleError, match="writes the number 2"):
        rule_for_seed(_seed(question, "Omar eats 12/2=<<12/2=6>>6 slices.\nSo he eats 6*300=<<6*300=1800>>1800 "
                                      "calories.\n#### 1800", "1800"))


@pytest.mark.parametrize("question", [
    # a third person the question names
    "Nora has 18 stamps and Felix has 6 more stamps than Nora. If they and Ivan put their stamps together and share "
    "them equally between themselves, how many stamps does each get?",
    # a person word besides the two names
    "Nora has 18 stamps and Felix has 6 more stamps than Nora. If they and their cousin put their stamps together "
    "and share them equally between themselves, how many stamps does each get?",
])
def test_more_than_two_may_share(question: str) -> None:
    with pytest.raises(RuleError, match="writes the number 2"):
        rule_for_seed(_seed(question, "Felix has 18+6=<<18+6=24>>24 stamps.\nTogether they have 18+24=<<18+24=42>>42 "
                                      "stamps.\nSharing them equally, each gets 42/2=<<42/2=21>>21 stamps.\n#### 21", "21"))
