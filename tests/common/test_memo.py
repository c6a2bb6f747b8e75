"""Memoized text readers (:mod:`qcstation.common.memo`): every caller gets what the plain
function gives, as a copy it may change without changing what the next caller gets, and an
error each time the plain function raises one. On the real readers and real GSM8K texts."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar, cast

import pytest

from qcstation.common.memo import text_memo
from qcstation.core.construct.check import selfcheck
from qcstation.core.reading.clauses import reads_as_clause
from qcstation.core.reading.expr import ExpressionError, parse_expression
from qcstation.core.reading.inline import find_inline_computations, parse_visible
from qcstation.core.reading import answers, words
from qcstation.core.reading.answers import parse_number
from tests.conftest import dataset
from tests.must import must

F = TypeVar("F", bound=Callable[..., Any])


def plain(fn: F) -> F:
    """The function under the memo (``functools.wraps`` keeps it as ``__wrapped__``)."""
    return cast(F, inspect.unwrap(fn))

#: the memoized readers of one text, as the rules, the key-information draft and the audit call them
ONE_TEXT = [words.question_occurrences, words.solution_lines, words.numeral_values,
            selfcheck._question_numbers, selfcheck._solution_numbers, selfcheck._smt_definitions]


@pytest.fixture(scope="module")
def texts() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()[:300]]
    return [(r["question"], r["answer"]) for r in rows]


def test_memoized_readers_give_what_the_plain_functions_give(texts: list[tuple[str, str]]) -> None:
    smt = ("(declare-const g1 Real)\n(declare-const s1 Real)\n(declare-const answer Real)\n"
           "(assert (= g1 {v}))\n(assert (= s1 (* g1 2)))\n(assert (= answer s1))\n(check-sat)\n")
    for _ in range(2):          # the second round reads every text from the memo
        for question, solution in texts:
            for fn in ONE_TEXT:
                for text in (question, solution):
                    assert fn(text) == plain(fn)(text), (fn.__name__, text[:60])
            for literal in (3, 4.5, 12):
                assert selfcheck._smt_definitions(smt.format(v=literal)) == \
                    plain(selfcheck._smt_definitions)(smt.format(v=literal))
            for line in solution.splitlines():
                for num in re.findall(r"\d+(?:\.\d+)?", line)[:4]:
                    v = Fraction(num)
                    assert words.words_after_value(line, v) == plain(words.words_after_value)(line, v)
                    for nth in (None, 1):
                        assert words.solution_stems(line, v, 4, nth) == \
                            plain(words.solution_stems)(line, v, 4, nth)


def _outcome(fn: object, *args: object, **kwargs: object) -> object:
    try:
        return ("ok", fn(*args, **kwargs))  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - the same error is part of the same outcome
        return ("error", type(exc).__name__, str(exc))


def test_memoized_parsers_give_what_the_plain_functions_give(texts: list[tuple[str, str]]) -> None:
    # annotations' expressions, the visible computations of a solution, its numbers, the
    # clauses of a question: as the rules, the wrong chains and the audits read them
    for _ in range(2):
        for question, solution in texts:
            assert find_inline_computations(solution) == plain(find_inline_computations)(solution)
            for lhs, rhs in re.findall(r"<<([^<>=]{1,400})=([^<>]*)>>", solution):
                for names in (False, True):
                    assert _outcome(parse_expression, lhs, names=names) == \
                        _outcome(plain(parse_expression), lhs, names=names)
                assert _outcome(parse_visible, lhs, rhs) == _outcome(plain(parse_visible), lhs, rhs)
            for tok in re.findall(r"\S+", solution)[:40] + ["$1,500", "45%", "3/4", "x" * 70 + "5"]:
                assert parse_number(tok) == answers._parse_number(tok)
            for sentence in re.split(r"(?<=[.?!])\s+", question):
                assert reads_as_clause(sentence) == plain(reads_as_clause)(sentence)
    # a number that is no text is not read from the memo: True is no number, 1 and 1.0 are
    assert parse_number("1") is not None
    assert parse_number(True) is None and parse_number(1) == parse_number(1.0) == parse_number("1")
    for _ in range(2):      # an expression that does not parse is refused each time
        with pytest.raises(ExpressionError):
            parse_expression("2 +* 3")
    found = find_inline_computations("So 54 - 37 = 17 are left.")
    found[0].expr_text = "changed"
    assert find_inline_computations("So 54 - 37 = 17 are left.")[0].expr_text == "54 - 37"


def test_a_caller_that_changes_its_result_changes_nothing_for_the_next() -> None:
    q = "Tom has 3 apples and 1/2 of 12 pears. He buys twice as many. How many does he have?"
    sol = "He has 12/2=<<12/2=6>>6 pears.\nSo 3+6=<<3+6=9>>9 in all.\n#### 9"
    got = words.question_occurrences(q)
    assert got
    got.clear()
    assert words.question_occurrences(q) == plain(words.question_occurrences)(q) != []
    lines = words.solution_lines(sol)
    lines[0][1].append(Fraction(99))
    lines.pop()
    assert words.solution_lines(sol) == plain(words.solution_lines)(sol)
    for fn in (words.numeral_values, selfcheck._question_numbers, selfcheck._solution_numbers):
        nums = fn(sol)
        nums.add(Fraction(99))
        assert Fraction(99) not in fn(sol) and fn(sol) == plain(fn)(sol)
    after = words.words_after_value("So 3+6 is 9 apples in all.", Fraction(9))
    assert after == [["apples"]]
    after[0].append("pears")
    assert words.words_after_value("So 3+6 is 9 apples in all.", Fraction(9)) == [["apples"]]
    smt = "(declare-const g1 Real)\n(declare-const answer Real)\n(assert (= g1 5))\n(assert (= answer g1))\n"
    defs, values, literals = must(selfcheck._smt_definitions(smt))
    defs.clear()
    values.clear()
    literals.add(Fraction(7))
    assert selfcheck._smt_definitions(smt) == plain(selfcheck._smt_definitions)(smt)


def test_an_error_is_raised_again_not_kept() -> None:
    calls: list[str] = []

    @text_memo(list)
    def read(text: str) -> list[str]:
        calls.append(text)
        if "!" in text:
            raise ValueError(text)
        return text.split()

    for _ in range(2):
        with pytest.raises(ValueError):
            read("bad!")
    assert read("a b") == read("a b") == ["a", "b"]
    assert calls == ["bad!", "bad!", "a b"]
