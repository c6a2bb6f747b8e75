"""One phrase written twice and read two ways (issue 26.1): "half as many robots as helmets and
half as many helmets as footballs" used as 1/2 ("1/2*20 robots") and as its 2 parts ("20*2
footballs") is two uses of the phrase, each tied to its own occurrence by its line's words
(:func:`~qcstation.core.construct.make.rules.word_places.split_word_givens` reads the names of
one phrase together); before, each name was used once and both stayed at the first "half", so
the footballs' 2 was tied to the robots' words. Where no words tell the occurrences apart, the
seed is refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _at(seed: dict) -> tuple[dict[str, str], dict[str, int]]:
    rule = rule_for_seed(seed)
    assert rule.bound and rule.value == int(seed["answer_text"])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    return steps, {str(g["name"]): int(g["span"][0]) for g in rule.givens}


def test_each_half_at_its_own_words(gsm8k: dict) -> None:
    # 1253 "2 footballs/helmet * 20 helmets" is "half as many helmets as footballs", "1 robot/2
    # helmets * 20 helmets" is "half as many robots as helmets"
    q = gsm8k["1253"]["question"]
    steps, at = _at(gsm8k["1253"])
    assert steps["s1"] == "(* g1_helmets w_half_at2_parts)" and steps["s2"] == "(* w_half g1_helmets)"
    assert q[at["w_half"]:].startswith("half as many robots")
    assert q[at["w_half_at2_parts"]:].startswith("half as many helmets as footballs")
    # 314 "Noah was half as old as Cera" (1/2*40) and "the population of Chile was half what it
    # is now" (60000*2)
    q = gsm8k["314"]["question"]
    steps, at = _at(gsm8k["314"])
    assert steps["s4"] == "(* s3_people_living w_half_at2_parts)"
    assert q[at["w_half"] - 15:at["w_half"]].endswith("Noah was ")
    assert q[at["w_half_at2_parts"] - 30:at["w_half_at2_parts"]].endswith("the population of Chile was ")


def test_halves_no_words_tell_apart_are_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["1253"])
    seed["solution"] = ("First, 20*2 = <<20*2=40>>40\nThen, 1/2*20 = <<1/2*20=10>>10\n"
                        "The total number of items in the changing room is 10 + 40 + 20 = <<10+40+20=70>>70 items")
    with pytest.raises(RuleError, match="no words tell which step uses which"):
        rule_for_seed(seed)
