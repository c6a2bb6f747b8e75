"""The rules' whole-word phrase test equals the regular expression it replaces."""

from __future__ import annotations

import itertools
import re

from qcstation.core.reading.words import WORD_GIVENS
from qcstation.core.construct.make.rules.phrases import has_phrase, phrase_re

TEXTS = [
    "She ate half of the pie.", "HALF the class left", "a half-hour", "behalf of him", "halfway there",
    "one-third of it", "one third of it", "A Dozen eggs", "dozens of eggs", "a dozen.", "twice as many",
    "ſecond: a third", "a thirds", "Kilo", "\u212ailo", "kilo", "İt is a fourth", "a fourth", "A FOURTH",
    "a ſixth", "two-thirds", "two  thirds", "two\tthirds", "", "half", "x_half", "half_x", "3half",
]
PHRASES = [*WORD_GIVENS, "kilo", "sixth", "it"]


def test_has_phrase_is_the_regex() -> None:
    for text, phrase in itertools.product(TEXTS, PHRASES):
        for ignore_case in (False, True):
            expected = re.search(r"\b" + re.escape(phrase) + r"\b", text, re.I if ignore_case else 0)
            assert has_phrase(text, phrase, ignore_case=ignore_case) is (expected is not None), (text, phrase)
            assert has_phrase(text, phrase, ignore_case=ignore_case, lowered=text.lower()) is (expected is not None)


def test_non_ascii_case_folding_is_left_to_the_regex() -> None:
    # re.I matches the long s and the Kelvin sign to s and k; str.lower keeps them: no shortcut
    assert has_phrase("a \u017fixth", "sixth", ignore_case=True)
    assert has_phrase("\u212ailo", "kilo", ignore_case=True)
    assert not has_phrase("a \u017fixth", "sixth")


def test_loose_spaces() -> None:
    pat = phrase_re("round trip", True, True)
    assert pat.search("a Round-trip ticket") and pat.search("a round\ttrip") and not pat.search("roundtrip")
