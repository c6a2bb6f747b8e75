"""What a fresh reading of 25 random GSM8K test seeds (random.Random(101), 2026-11-27) found:
a given named after a compound modifier ("$40 for a foot-long fish sub" was g1_foot)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import rule_for_seed


@pytest.mark.parametrize(("seed", "words", "name"), [
    ("557", "40", "g1_fish"),          # "$40 for a foot-long fish sub": not g1_foot
    ("740", "16", "g4_jars"),          # "16 half-gallon jars": not g4_half
    ("365", "96", "g1_graders"),       # "96 fourth-graders at ...": the compound is the noun
    ("47", "23", "g2_notes"),          # "23 post-it notes"
])
def test_a_compound_before_a_noun_does_not_name_the_given(gsm8k: dict, seed: str, words: str, name: str) -> None:
    names = {str(g["name"]): str(g.get("words", g.get("text"))) for g in rule_for_seed(gsm8k[seed]).givens}
    assert names.get(name) == words, names
