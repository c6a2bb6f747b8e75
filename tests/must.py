"""``must(x)``: the value a test expects to be there (a stored row, a parsed number), or the
test fails where it is missing. Reads as the assertion it is, and tells the type checker that
what follows works on the value, not on ``None``."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def must(value: T | None) -> T:
    assert value is not None, "expected a value, got None"
    return value
