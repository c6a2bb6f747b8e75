"""A reading that built a pattern of its own for each text, now read without compiling it where
that cannot change what it finds: where the key information's listed texts stand in the
question (:func:`qcstation.core.construct.make.keyinfo_listed.said_at`: the matches of the
pattern the words make, any case, any run of spaces between them). On every GSM8K test question
and texts cut from it, and on made-up edge cases (odd spaces, case, repeats, overlaps,
non-ASCII)."""

from __future__ import annotations

import json
import random
import re

from qcstation.core.construct.make.keyinfo_listed import said_at
from tests.conftest import dataset


def _pattern(question: str, words: list[str]) -> list[tuple[int, int]]:
    said = re.compile(r"\s+".join(re.escape(w) for w in words), re.I)
    return [(m.start(), m.end()) for m in said.finditer(question)]


def test_the_matches_are_the_patterns_on_every_gsm8k_question() -> None:
    rng = random.Random(7)
    rows = [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()]
    asked = 0
    for r in rows:
        q = r["question"]
        ws = q.split()
        for _ in range(6):
            a = rng.randrange(len(ws))
            words = ws[a:a + rng.randint(1, 4)]
            if rng.random() < 0.3:
                words = [w.upper() if rng.random() < 0.5 else w.lower() for w in words]
            if rng.random() < 0.2:      # another number: found nowhere, or elsewhere
                words = [re.sub(r"\d", "7", w) for w in words]
            assert said_at(q, words) == _pattern(q, words), (q, words)
            asked += 1
    assert asked > 7000


def test_edge_cases_match_the_pattern() -> None:
    cases = [
        ("He has 3  apples and\t3\napples. 3 APPLES!", ["3", "apples"]),
        ("aaa aaa aaa", ["aa"]),
        ("aa aa aa", ["aa", "aa"]),
        ("a b a b a b", ["a", "b", "a"]),
        ("Twelve twelve\x1ctwelve", ["twelve", "twelve"]),
        ("The price was $5.50 per kg", ["$5.50", "per"]),
        ("no space:3apples", ["3", "apples"]),
        ("Stra\u00dfe 3 km", ["STRASSE", "3"]),
        ("\u212a 5 kelvin", ["k", "5"]),
        ("\u017fix apples", ["six", "apples"]),
        ("caf\u00e9 2 cups", ["CAF\u00c9", "2"]),
        ("", ["a"]),
        ("(a) [b] a+b", ["a+b"]),
    ]
    for question, words in cases:
        assert said_at(question, words) == _pattern(question, words), (question, words)
