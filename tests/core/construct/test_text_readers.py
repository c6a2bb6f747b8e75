"""The faster readers of numbers and number words answer as the regular expressions they
stand for (word edges, case, hyphens, underscores, digits, non-ASCII case folding), on every
GSM8K question and solution and on hand-made hostile texts."""

from __future__ import annotations

import json
import re

import pytest

from qcstation.core.reading import textnumbers, words
from tests.conftest import dataset

HOSTILE = [
    "", "one", "One-half of twenty-ONE", "ſix ſeven thouſand", "tſo", "KEVEN", "İ one ı two",
    "three_four 5five six5 seven", "a third and a  third, a-third", "one-half one -half round-trip",
    "Round trip; a DOZEN dozens, an hour a week", "twice-thrice", "$1,200.50 45% .5 -3 −7 3/4 10 / 0 1/2/3",
    "x = 24/3 = 8 white fish", "٣ three ٣", "half-hour halves", "a pair of quadrupled tripled",
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    out = list(HOSTILE)
    for line in dataset("gsm8k/test.jsonl").read_text().splitlines():
        rec = json.loads(line)
        out += [rec["question"], rec["answer"], *rec["answer"].splitlines()]
    return out


def _spans(matches) -> list[tuple]:
    return [(m.span(), m.group(0), m.group(1), m.re.pattern) for m in matches]


def test_word_matches_are_the_patterns_matches(texts: list[str]) -> None:
    for t in texts:
        assert _spans(words.number_word_matches(t)) == _spans(words._NUMBER_WORD_RE.finditer(t)), t
        assert _spans(words._word_matches(words._WORD_GIVEN_RE, words._WORD_GIVEN_FIRSTS, t)) \
            == _spans(words._WORD_GIVEN_RE.finditer(t)), t


def test_number_words_and_counting_words_are_the_patterns(texts: list[str]) -> None:
    def repl(m: re.Match[str]) -> str:
        return f"<{m.group(0).upper()}@{m.start()}>"

    for t in texts:
        assert textnumbers._number_words(t) == textnumbers.NUMBER_WORD_RE.findall(t), t
        assert textnumbers.sub_count_words(repl, t) == textnumbers.COUNT_WORD_RE.sub(repl, t), t


def test_numbers_read_as_the_patterns_read_them(texts: list[str]) -> None:
    from qcstation.core.reading.answers import parse_number

    def by_patterns(t: str) -> set:
        words = textnumbers.NUMBER_WORDS
        out = {words[textnumbers.word_key(w, words)] for w in textnumbers.NUMBER_WORD_RE.findall(t)}
        for tok in textnumbers.NUMBER_RE.findall(t):
            parsed = parse_number(tok.rstrip(",").replace("$", ""))
            if parsed is not None:
                out.add(parsed.value)
        for a, b in textnumbers.FRACTION_RE.findall(t):
            if int(b):
                out.add(textnumbers.Fraction(int(a), int(b)))
        for a, b in textnumbers.SUFFIXED_FRACTION_RE.findall(t):  # "3/4ths", never "1/3rd"
            if int(b) and int(a) > 1:
                out.add(textnumbers.Fraction(int(a), int(b)))
        return out

    def outcome(read, t: str) -> tuple:
        got = read(t)
        return (got, list(got))  # the same numbers, put in the set in the same order

    for t in texts:
        assert outcome(textnumbers._read_numbers, t) == outcome(by_patterns, t), t
    assert textnumbers._read_numbers("Twenty-one ducks, 3/4 of $1,200 and 45%") \
        == {20, 1, textnumbers.Fraction(3, 4), 1200, 45, 3, 4}


def test_a_number_word_only_case_folding_makes_one_is_read() -> None:
    # re.I ties the long s, the dotless i and the Kelvin sign to s, i and k; str.lower does not:
    # such a word was a KeyError that left its seed to a model ("the seed's text cannot be
    # processed by the rules (KeyError: 'ſix')")
    assert textnumbers._read_numbers("She has \u017fix apples and th\u0131rty pears.") == {6, 30}
    assert textnumbers.word_key("\u017fIX", textnumbers.NUMBER_WORDS) == "six"
    with pytest.raises(KeyError):
        textnumbers.word_key("apples", textnumbers.NUMBER_WORDS)
