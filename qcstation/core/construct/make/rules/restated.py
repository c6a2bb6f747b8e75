"""A quantity the solution restates in another unit with no operator written: "Movie C = 1.25
hours = 75 minutes", "48 quarts = 12 gallons", "15 gallons = 120 pints", "Since 100 cents = $1".
Each is a conversion by a named factor (:data:`RESTATED_FACTORS`): ``1.25 * k_minutes_per_hour``,
``48 / k_quarts_per_gallon``. It is read only where

* the line writes both units, one on each side of the ``=``, and they are the two units of one
  factor;
* the written numbers convert exactly by that factor (``1.25 * 60 = 75``);
* the first number is no written result ("12*1=12 inches=1 foot": the 12 after ``=`` is the
  computation's, not a quantity restated).

The factor is a named constant, never a number of the question; the first number is whatever
the binder and the links make of it (a given, an earlier result)."""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.expr import BinOp, Expr, Num

__all__ = ["RESTATED_FACTORS", "restated_quantities"]

#: (factor name, value, the larger unit, the smaller unit)
_UNITS: list[tuple[str, Fraction, str, str]] = [
    ("k_minutes_per_hour", Fraction(60), r"hours?|hrs?", r"minutes?|mins?"),
    ("k_seconds_per_minute", Fraction(60), r"minutes?|mins?", r"seconds?|secs?"),
    ("k_quarts_per_gallon", Fraction(4), r"gallons?", r"quarts?"),
    ("k_pints_per_gallon", Fraction(8), r"gallons?", r"pints?"),
    ("k_inches_per_foot", Fraction(12), r"feet|foot", r"inch(?:es)?"),
    ("k_ounces_per_pound", Fraction(16), r"pounds?|lbs?", r"ounces?|oz"),
    ("k_cents_per_dollar", Fraction(100), r"dollars?", r"cents?"),
]
#: each factor's value by its name (see constants.FACTOR_VALUES)
RESTATED_FACTORS: dict[str, Fraction] = {n: v for n, v, _, _ in _UNITS}

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_UNIT = r"[A-Za-z]+\b"
# "1.25 hours = 75 minutes", "100 cents = $1" (a dollar sign for the unit "dollars")
# (each pattern opening with a look-behind opens with a lookahead for the characters a match
# starts with: the same matches, found without trying the look-behind at every place)
_RESTATED_RE = re.compile(
    rf"(?=[$\d.])(?<![\w.,$/=*+\-×÷−])(?P<ds_a>\$)?(?P<a>{_NUM})(?:\s*(?P<ua>{_UNIT}))?\s*=\s*"
    rf"(?P<ds_b>\$)?\s*(?P<b>{_NUM})(?:\s*(?P<ub>{_UNIT}))?(?![\d.,/]|\s*[-+*/×÷=])")


def _unit(dollar: str | None, word: str | None) -> str:
    return "dollars" if dollar else (word or "").lower()


def _factor(big: str, small: str) -> tuple[str, Fraction] | None:
    for name, value, big_rx, small_rx in _UNITS:
        if re.fullmatch(big_rx, big) and re.fullmatch(small_rx, small):
            return name, value
    return None


def restated_quantities(masked: str) -> list[tuple[int, int, str, str, Expr, Fraction, Fraction]]:
    """(start, end, raw, expression in symbols, parsed term, value, written result) of each
    quantity restated in another unit (see the module docstring) in ``masked`` (the solution with
    its annotations and their results blanked, so offsets are the solution's)."""
    out = []
    for m in _RESTATED_RE.finditer(masked[:100_000]):
        ua, ub = _unit(m.group("ds_a"), m.group("ua")), _unit(m.group("ds_b"), m.group("ub"))
        if not ua or not ub or ua == ub:
            continue
        a, b = Fraction(m.group("a").replace(",", "")), Fraction(m.group("b").replace(",", ""))
        down = _factor(ua, ub)  # "1.25 hours = 75 minutes": times the factor
        up = _factor(ub, ua)    # "48 quarts = 12 gallons": divided by it
        if down is not None and a * down[1] == b:
            name, value = down
            expr: Expr = BinOp("*", Num(a, m.group("a")), Num(value, name))
            text = f"{m.group('a')} * {value}"
        elif up is not None and a / up[1] == b:
            name, value = up
            expr = BinOp("/", Num(a, m.group("a")), Num(value, name))
            text = f"{m.group('a')} / {value}"
        else:
            continue
        out.append((m.start(), m.end(), m.group(0), text, expr, b, b))
    return out
