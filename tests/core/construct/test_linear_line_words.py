"""Issue 30.4, lane lin4's leftovers: two readers of a solution's lines that were quadratic.

Words in order on one line (``A.*B|B.*A``, :class:`~.phrases.InOrder`) are searched in linear time
and find what the regular expression found: as a regex each place the first word matches scanned
the rest of the line, so a line that repeats "bike" 3,000 times took 3 s for one pattern (there are
about 200). An unknown's chain of operations is read once (``draft_reads._shows_computation``).
The tests count the work (how many searches, from where), never a clock."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from qcstation.core.construct.make import draft_reads
from qcstation.core.construct.make.rules.constants import _LINE_WORDS
from qcstation.core.construct.make.rules.implied import _IMPLIED_LINE_RE
from qcstation.core.construct.make.rules.phrases import InOrder
from tests.conftest import dataset

PATTERNS = {**{f"line:{n}": p for n, p in _LINE_WORDS.items()}, **{f"implied:{n}": p for n, p in _IMPLIED_LINE_RE.items()}}


def _texts() -> list[str]:
    texts: list[str] = []
    with open(dataset("gsm8k/test.jsonl"), encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            texts += [rec["question"], *rec["answer"].split("\n")]
    texts = texts[::3]  # a third of GSM8K test's lines: about 2,500
    vocab = sorted({w for p in PATTERNS.values() for w in re.findall(r"[a-z]{3,}", p.pattern)})
    vocab += ["x", "1", "\n", ".", ",", "her", "the", "-"]
    rng = random.Random(20261202)
    texts += [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 8))) for _ in range(2000)]
    return texts


def test_each_pattern_finds_what_its_regular_expression_found() -> None:
    texts = _texts()
    assert len(texts) > 4_000
    ordered = [k for k, p in PATTERNS.items() if any(len(parts) > 1 for _, parts in p._alts)]
    assert len(ordered) > 40, "the patterns of words in order are read as such"
    for key, p in PATTERNS.items():
        rx = re.compile(p.pattern, re.I)
        some = texts if key in ordered else texts[::10]  # one expression of alternatives: a sample
        wrong = [t for t in some if (rx.search(t) is not None) != p.search(t)]
        assert not wrong, (key, wrong[:3])


def test_each_part_is_searched_once_per_line_of_a_hostile_text(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []

    class Counted:
        def __init__(self, rx: re.Pattern[str]) -> None:
            self.rx = rx

        def search(self, text: str, pos: int = 0) -> Any:
            calls.append((pos, len(text)))
            return self.rx.search(text, pos)

    bike = _LINE_WORDS["k_wheels_per_bicycle"]
    monkeypatch.setattr(bike, "_alts", [(across, [Counted(r) for r in parts]) for across, parts in bike._alts])
    hostile = "bike " * 20_000  # 100,000 characters: "bike" at every fifth, no "wheels" anywhere
    assert re.compile(bike.pattern, re.I).search("bike " * 200 + "wheels")  # what it must still find
    assert not bike.search(hostile)
    # two alternatives of two parts: at most four searches, each from one place over the one line
    assert len(calls) <= 4 and all(n == len(hostile) for _, n in calls)
    calls.clear()
    assert bike.search(hostile + "two wheels\n" + hostile)
    assert len(calls) <= 2


def test_words_in_order_stay_on_one_line_and_keep_their_order() -> None:
    p = InOrder(r"\bweeks?\b.*\bmonths?\b", re.I)
    assert p.search("4 Weeks in a month")
    assert not p.search("a month of 4 weeks")  # the order is kept
    assert not p.search("4 weeks\na month")  # '.' never crosses a line
    assert InOrder(r"\bweeks?\b[\s\S]*\bmonths?\b").search("4 weeks\na month")
    assert not p.search("4 weeksmonth") and p.search("week month")  # whole words, as the regex
    anchored = InOrder(r"^(?=[\s\S]*\bsides?\b)[\s\S]*\btriangles?\b|\bhexagon\b")
    assert anchored.search("sides of a triangle") and anchored.search("a hexagon")
    assert not anchored.search("a triangle")
    with pytest.raises(ValueError, match="both kinds of gap"):
        InOrder(r"a.*b[\s\S]*c")


def test_a_chain_of_operations_in_an_unknown_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """draft_reads._shows_computation read a chain again from each of its operations (20 s for a
    description holding "1*1*...*1" 4,000 times); now each chain once, and the verdicts stay."""
    read: list[int] = []
    chain = draft_reads._WHOLE_CHAIN

    class Counted:
        def match(self, text: str, pos: int = 0) -> Any:
            m = chain.match(text, pos)
            read.append(len(m.group(0)) if m else 0)
            return m

    body = "1*" * 8_000 + "1 ?"  # within the 20,000 characters of the question it reads
    monkeypatch.setattr(draft_reads, "_WHOLE_CHAIN", Counted())
    assert not draft_reads._shows_computation(body, "x " * 100 + body)  # the question writes the chain
    assert len(read) == 1 and read[0] == 16_001
    read.clear()
    assert draft_reads._shows_computation("1*1 ?" + " 2*2" * 5_000, "x 1*1 y")  # 2*2: written nowhere
    assert len(read) == 2
    # the verdicts of the rule's own examples: "$25*4" is shown, "2 x 4" is a board's name
    assert draft_reads._shows_computation("Madeline spends$25*4 ? on food", "She spends $25 a week for 4 weeks.")
    assert not draft_reads._shows_computation("the 2 x 4s ?", "He buys ten 2 x 4 x 10 boards.")
