"""Memoized pure text readers: the construction rules, the key-information draft and the
make-time audit read the same question and worked solution several times over (a derived
item goes through all of them in a row), and each reading is a pure function of its text.

:func:`text_memo` keeps the last results of such a function (``functools.lru_cache``, keyed
by its arguments, which must be hashable: texts, numbers) and hands every caller a fresh copy
made by ``copy`` (``list``, ``set``, or a function for nested results), so a caller that
changes what it got cannot change what the next caller gets. A function is memoized only if
its result depends on its arguments alone (no configuration, no clock, no randomness) and is
made of immutable parts once copied. An exception is not kept: the call runs again and
raises again.

:func:`digits_masked` is the key of a reading that the texts of one question with other numbers
share (a derived item's question and solution are its parent's with other numbers): a reader
that takes only the masked text cannot read any number's digits, only where numbers stand.

:class:`LastAnswers` keeps the answers of a check for its last few keys, where the arguments are
not hashable (a formalization's definitions, stored givens): the caller builds a key of exactly
what the check reads (:func:`term_shape`, :func:`plain_key`; :class:`Unkeyed` for anything they
do not describe, which is then checked without the memo). The rules' independent checks and the
make-time audit ask the same checks of one formalization, read once from its steps and once
back from its SMT-LIB.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

__all__ = ["LastAnswers", "Unkeyed", "digits_masked", "plain_key", "term_shape", "text_memo"]

F = TypeVar("F", bound=Callable[..., Any])


def text_memo(copy: Callable[[Any], Any] | None = None, maxsize: int = 128) -> Callable[[F], F]:
    """Memoize a pure function of hashable arguments (see the module docstring); ``copy``
    makes each caller's copy of a mutable result (None: the result is immutable)."""

    def deco(fn: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        if copy is None:
            return cached  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return copy(cached(*args, **kwargs))

        wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco


_MASK = str.maketrans("23456789", "11111111")


def digits_masked(text: str) -> str:
    """``text`` with every digit from 2 to 9 written 1: the same length, every character at its
    place and of its class (a digit, a word character), zeros and non-zero digits told apart (a
    pattern may ask for ``[1-9]``). Readers of words and of where numbers stand, memoized on
    it, read once what every text of one question with other numbers of the same lengths shares."""
    return text.translate(_MASK)


class Unkeyed(Exception):
    """A value :func:`term_shape` or :func:`plain_key` does not describe."""


def term_shape(e: Any, depth: int = 0) -> tuple[Any, ...]:
    """An expression term (``Num``, ``Name``, ``Neg``, ``BinOp``, ``Call``, read by class name and fields)
    as a key: its operators, names and exact values (a ``Num``'s written text left out)."""
    if depth > 200:
        raise Unkeyed
    k = type(e).__name__
    if k == "Num":
        if type(e.value) is not Fraction:
            raise Unkeyed
        return ("Num", e.value)
    if k == "Name":
        return ("Name", str(e.name)) if type(e.name) is str else _unkeyed()
    if k == "Neg":
        return ("Neg", term_shape(e.operand, depth + 1))
    if k == "BinOp":
        return ("BinOp", e.op, term_shape(e.left, depth + 1), term_shape(e.right, depth + 1))
    if k == "Call":  # a rounding (reading.expr.Call)
        return ("Call", str(e.fn), term_shape(e.arg, depth + 1))
    raise Unkeyed


def plain_key(v: Any, depth: int = 0) -> Any:
    """Plain data (None, bool, int, str, ``Fraction``, lists and tuples of them) as a key that
    tells every type apart (``1`` from ``True`` and from ``Fraction(1)``, a list from a tuple)."""
    if depth > 20:
        raise Unkeyed
    t = type(v)
    if v is None or t in (bool, int, str, Fraction):
        return (t.__name__, v)
    if t in (list, tuple):
        return (t.__name__, tuple(plain_key(x, depth + 1) for x in v))
    raise Unkeyed


def _unkeyed() -> Any:
    raise Unkeyed


class LastAnswers:
    """The answers for the last ``keep`` keys, oldest dropped first (a bounded memo)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._answers: dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        return self._answers.get(key)

    def put(self, key: Any, answer: Any) -> None:
        if len(self._answers) >= self.keep:
            del self._answers[next(iter(self._answers))]
        self._answers[key] = answer
