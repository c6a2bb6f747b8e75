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
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["digits_masked", "text_memo"]

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
