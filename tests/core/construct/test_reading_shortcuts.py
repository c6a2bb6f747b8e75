"""Readers of :mod:`qcstation.core.reading.words` that derive runs for every drawn text take
shortcuts (issue 30.6): :func:`~qcstation.core.reading.words.size_names` looks for its pattern
only in a solution that writes a digit, spaces and an "x", and
:func:`~qcstation.core.reading.words._words_after` reads the 80 characters after a number once
for every text that repeats them. Each must give what the reading without the shortcut gives:
over every GSM8K test question and solution, the same texts with other digits, and crafted
sizes ("2 x 4s", "2x4's", "4 x 4 x 10s")."""

from __future__ import annotations

import json
import random
import re

import pytest

from qcstation.core.reading import words
from qcstation.core.reading.words import MAX_TEXT, size_names
from tests.conftest import dataset

_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")


def _with_other_digits(texts: list[str]) -> list[str]:
    rng = random.Random(11)
    out = []
    for t in texts:
        out.append(t)
        out.append(_DIGIT.sub(lambda _m: rng.choice("0123456789"), t))
    return out


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()]


_CRAFTED_SOLUTIONS = [
    "She bought the 2 x 4s for $100 because 10 x 10 = 100", "six 2x4's at $3", "the 4 x 4 x 10s",
    "2 x 4s", "x 2 x 4s", "a.2 x 4s", "next 2 x\n4s are 6 x 8's", "3 x 4 = 12 boards x 2", "2 ×4s",
    "extra tax: 12 x", "", "x", "12x", "1 x 2 x 3 x 4 x 5 x 6 x 7 x 8 x 9 x 10s",
]


def _size_names_unshortened(question: str, solution: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """size_names read with its own patterns at every place (no look for the hint first)."""
    q, sol = question[:MAX_TEXT], solution[:MAX_TEXT]
    named = [(m.start(), m.end(), re.sub(r"\s+", "", m.group(1))) for m in words._SIZE_NAMED.finditer(sol)]
    if not named:
        return [], []
    in_q = [(m.start(), m.end(), re.sub(r"\s+", "", m.group(0))) for m in words._SIZE_RUN.finditer(q)]
    return ([(a, b) for a, b, size in in_q if any(size.startswith(n) for _, _, n in named)],
            [(a, b) for a, b, n in named if any(size.startswith(n) for _, _, size in in_q)])


def test_size_names_is_the_patterns_reading(rows: list[dict[str, str]]) -> None:
    pairs = [(r["question"], r["answer"]) for r in rows]
    pairs += [("She has ten 2 x 4 x 10 boards and five 4 x 4 x 10 boards; six 2x4 posts.", s)
              for s in _CRAFTED_SOLUTIONS]
    named = 0
    for q, sol in pairs:
        for s in _with_other_digits([sol]):
            got = size_names(q, s)
            assert got == _size_names_unshortened(q, s), (q, s)
            named += bool(got[1])
    assert named >= 5     # the crafted sizes are found: the comparison is not of empty readings


def test_words_after_a_number_are_read_from_what_follows_it(rows: list[dict[str, str]]) -> None:
    fresh = words._words_after_tail.__wrapped__  # type: ignore[attr-defined]  # the reading itself, without the memo
    texts = _with_other_digits([r["question"] for r in rows] + [r["answer"] for r in rows])
    texts += ["40 pieces of dollar bills", "for $8 each earning her", "divide by 2 to find the average",
              "4 types of vanilla scents and 3 kinds of", "20% of 2400 so", "3 times 4 equals 12",
              "7" + " word" * 40, "12 ſix thırty", "9"]
    read = 0
    for text in texts:
        for m in _NUMBER.finditer(text):
            for limit in (1, 2, 3):
                got = words._words_after(text, m.end(), limit)
                assert got == fresh(text[m.end():m.end() + 80], limit), (text, m.end(), limit)
                read += bool(got)
    assert read > 10_000


def test_words_after_gives_each_caller_its_own_list() -> None:
    text = "She bought 12 red apples at the market."    # ("at" ends the words)
    first = words._words_after(text, text.index("12") + 2, 3)
    assert first == ["red", "apples"]
    first.append("changed")
    first[0] = "blue"
    assert words._words_after(text, text.index("12") + 2, 3) == ["red", "apples"]
    # another text with the same 80 characters after its number reads the same words
    assert words._words_after("Then 7" + text[text.index("12") + 2:], 6, 3) == ["red", "apples"]


# patterns that open with a lookahead for the characters a match starts with, and the same
# patterns without it (as they were written before): the lookahead only spares trying the rest
# where no match can start, so every match, its place and its groups must be the same
_GUARDED = {
    "qcstation.core.construct.check.bindings._CLAUSE_BOUND": (r"[.;,]\s|\band\b", 0),
    "qcstation.core.construct.make.rules.calculator._MENTION_RE":
        (r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*(\d+)(?![\d.]))?", 0),
    "qcstation.core.construct.make.unknown_describe._WRITTEN_NUMBER":
        (r"(?<![\w.])[-−]?\$?\d(?:[\d,]*\d)?(?:\.\d+)?(?:/\d+(?![\d.]))?%?", 0),
    "qcstation.core.construct.make.unknown_describe._GLUED_DOLLAR": (r"(?<=[A-Za-z])\$(?=\d)", 0),
    "qcstation.core.construct.make.unknown_describe._GLUED_UNIT": (r"(?<=\d)(?:g|kg|mg|cm|mm|km|ml|lbs?|oz|ft)\b", 0),
    "qcstation.core.construct.make.unknown_describe._GLUED_TIMES": (r"(?<=\d\s)([x×*])(?=\d)", 0),
    "qcstation.core.construct.make.unknown_describe._GLUED_TIMES_AFTER": (r"(?<=\d)([x×])(?=\s+\$?\d)", 0),
    "qcstation.core.construct.make.unknown_describe._GLUED_WORD":
        (r"(?<=[a-z]{2})(?=\d[\d,]*(?:\.\d+)?\s*[*×x/+]\s*\$?\.?\d)", 0),
    "qcstation.core.derive.bindings._NUM_RE":
        (r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*\d+(?![\d.]))?(?![\d])", 0),
}


def _unguarded(name: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    import importlib

    module, _, attr = name.rpartition(".")
    guarded = getattr(importlib.import_module(module), attr)
    text, flags = _GUARDED[name]
    return guarded, re.compile(text, flags)


def _long_patterns() -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
    """INLINE_RE and _RESTATED_RE, built from parts: the guarded pattern less its lookahead."""
    from qcstation.core.construct.make.rules import restated
    from qcstation.core.reading import inline

    out = []
    for name, pat, guard in (("INLINE_RE", inline.INLINE_RE, "(?=[($€£\\d.])"),
                             ("_RESTATED_RE", restated._RESTATED_RE, "(?=[$\\d.])")):
        assert pat.pattern.startswith(guard + "(?<!")
        out.append((name, pat, re.compile(pat.pattern[len(guard):], pat.flags)))
    return out


def test_guarded_patterns_match_as_without_the_guard(rows: list[dict[str, str]]) -> None:
    rng = random.Random(5)
    texts = [r["question"] for r in rows] + [r["answer"] for r in rows]
    texts += ["".join(rng.choice("0123456789 .,$-−x×*()/%aAbgkz=€\n") for _ in range(rng.randint(0, 120)))
              for _ in range(3000)]
    texts += ["Madeline spends$25*4=$<<25*4=100>>100", "That gives him16*5=<<16*5=80>>80 planks",
              "300g/5 = <<300/5=60>>60", "72 x1/4 = <<72*1/4=18>>18", "$2.00x 2 = $4.00", "1.25 hours = 75 minutes"]
    pairs = [(name, *_unguarded(name)) for name in _GUARDED] + _long_patterns()
    found = 0
    for name, guarded, plain in pairs:
        for t in texts:
            got = [(m.span(), m.groups()) for m in guarded.finditer(t)]
            assert got == [(m.span(), m.groups()) for m in plain.finditer(t)], (name, t)
            found += len(got)
    assert found > 50_000
