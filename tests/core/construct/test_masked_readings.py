"""Readings memoized on a question's text with its digits masked (:func:`qcstation.common.memo.digits_masked`):
the variants of one question share them, so each must be the reading of the text itself. Over every
GSM8K test question and the same questions with other digits (zeros and non-zero digits drawn alike),
the reading of the masked text is the reading of the text (the route that reads the text itself)."""

from __future__ import annotations

import json
import random
from fractions import Fraction
import re

import pytest

from qcstation.common.memo import digits_masked
from qcstation.core.construct.make.rules.givens import _layout, question_numbers
from qcstation.core.construct.check import rolecheck
from qcstation.core.reading import words
from qcstation.core.reading.words import solution_stems
from tests.conftest import dataset

_DIGIT = re.compile(r"\d")


def _with_other_digits(texts: list[str]) -> list[str]:
    rng = random.Random(7)
    out = []
    for t in texts:
        out.append(t)
        for _ in range(2):   # other digits at the same places, a 0 among them now and then
            out.append(_DIGIT.sub(lambda _m: rng.choice("0123456789"), t))
    return out


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def questions(rows: list[dict[str, str]]) -> list[str]:
    crafted = ["He ran 0 3/4 miles, then 10 1/2 more and 1 1/2 dozen eggs for $1,000.05 on May 7th.",
               "A 2-cup bag of 5km trail mix at 40% off costs 0.5 of $3/2 per 12:30 hour, 1/0 of it."]
    return _with_other_digits([r["question"] for r in rows] + crafted)


@pytest.fixture(scope="module")
def solution_lines(rows: list[dict[str, str]]) -> list[str]:
    return _with_other_digits([ln for r in rows for ln in r["answer"].splitlines()])


def test_masking_keeps_length_places_and_zeros() -> None:
    text = "He paid $1,250.09 for 3 1/2 dozen, 40% off, on May 7th."
    masked = digits_masked(text)
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c.isdigit()] == [i for i, c in enumerate(text) if c.isdigit()]
    assert [i for i, c in enumerate(masked) if c == "0"] == [i for i, c in enumerate(text) if c == "0"]
    assert re.sub(r"\d", "", masked) == re.sub(r"\d", "", text)


def test_the_layout_of_the_masked_question_is_the_questions_own(questions: list[str]) -> None:
    plain = _layout.__wrapped__  # type: ignore[attr-defined]
    for q in questions:
        assert plain(digits_masked(q)) == plain(q), q[:80]


def test_the_words_around_a_questions_numbers_are_read_alike_masked(questions: list[str]) -> None:
    plain = words._occurrence_words.__wrapped__  # type: ignore[attr-defined]
    for q in questions:
        assert plain(digits_masked(q)) == plain(q), q[:80]


def test_the_kinds_of_a_lines_numbers_are_read_alike_masked(questions: list[str], solution_lines: list[str]) -> None:
    plain = rolecheck._place_words.__wrapped__  # type: ignore[attr-defined]
    for text in [*questions[::3], *solution_lines]:
        prose = rolecheck._ANN.sub(" ", text)
        assert plain(digits_masked(prose)) == plain(prose), prose[:80]


def test_number_words_and_word_givens_start_alike_masked(questions: list[str], solution_lines: list[str]) -> None:
    plain = words._word_match_starts.__wrapped__  # type: ignore[attr-defined]
    for text in [*questions, *solution_lines[::2]]:
        for rx, firsts in ((words._NUMBER_WORD_RE, words._NUMBER_WORD_FIRSTS),
                           (words._WORD_GIVEN_RE, words._WORD_GIVEN_FIRSTS)):
            assert plain(rx, firsts, digits_masked(text)) == plain(rx, firsts, text), text[:80]
            assert [m.span() for m in words._word_matches(rx, firsts, text)] == \
                [m.span() for m in rx.finditer(text)], text[:80]


def test_variants_share_one_layout_and_keep_their_own_values() -> None:
    q = "Tom buys 12 apples at $3 each and gives away a quarter of them. He also has two dogs."
    a = question_numbers(q)
    hits = _layout.cache_info().hits  # type: ignore[attr-defined]
    b = question_numbers(q.replace("12", "48").replace("$3", "$7"))
    assert _layout.cache_info().hits == hits + 1  # type: ignore[attr-defined]
    new = {"12": ("48", 48), "3": ("7", 7)}
    assert [(n.text, n.value, n.start, n.slug, n.stems) for n in b.numbers] == \
        [(*new.get(n.text, (n.text, n.value)), n.start, n.slug, n.stems) for n in a.numbers]
    assert [n.value for n in b.numbers] == [48, 7, 2]
    assert (a.word_values, a.word_fractions, a.factors) == (b.word_values, b.word_fractions, b.factors)


def test_a_lines_places_are_read_once_for_every_value_and_limit() -> None:
    line = "He pays $3/2 sandwiches = <<3/2=1.5>>1.5 and 25/100 x 100% = 25 skeins per pair of mittens"
    assert solution_stems(line, Fraction(3), 4) == frozenset({"$"})
    assert solution_stems(line, Fraction(100), 4) == frozenset({"%"})
    assert solution_stems(line, Fraction(25), 1) == frozenset({"skei"})
    assert solution_stems(line, Fraction(25), 4) == frozenset({"skei", "pair", "mitt"})
    assert solution_stems(line, Fraction(25), 4, 0) == frozenset()
