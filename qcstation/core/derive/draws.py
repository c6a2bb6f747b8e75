"""New values for givens: where a given may move, and seeded draws from there.

* :func:`domain` — the values a given may take in a variant: the same kind of number the
  question writes (whole where it is whole, as many decimals, a percent of at most 100 where
  it was at most 100, a number word of at most twenty where it was a small word), on the
  same grain (``60`` moves by tens, ``1,500`` by hundreds, ``2.5`` by tenths), between half
  and twice the original, never 0 or 1 (a given of 0 or 1 keeps its value: "1 apples"),
  never past what its unit allows ("days a week" at most 7, "weeks a year" at most 52), a
  ratio written "N times" on its side of 1 ("an overtime pay of 1.2 times her regular rate"
  never becomes 0.7 times it: the words around it say which way it goes).
* :func:`same_digits` — another value with as many digits (SMART's "changed numbers").
* :func:`shifted` — the value shifted by a percentage, when its style can write it.
* :func:`with_digits` — a value with ``d`` significant digits at the original's magnitude
  (SMART's arithmetic ladder: ``12`` -> ``34.823`` at d = 5).

Every draw comes from a ``random.Random`` the caller seeds from the item's key, so the same
set, parent and item always get the same values, whichever process builds them.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction

from qcstation.core.derive.bindings import Given
from qcstation.core.derive.numbers import Unwritable, render
from qcstation.core.reading.answers import decimal_places

__all__ = ["Domain", "domain", "item_rng", "same_digits", "shifted", "with_digits"]

_MIN_CHOICES = 4


def item_rng(*key: object) -> random.Random:
    """A seeded RNG for one item (str seeds are hashed with SHA-512 by ``random``: stable)."""
    return random.Random("qcstation-derive:" + ":".join(str(k) for k in key))


@dataclass(frozen=True)
class Domain:
    """Written values ``lo..hi`` in steps of ``unit`` (the given's value is written/scale)."""

    lo: Fraction
    hi: Fraction
    unit: Fraction
    scale: int
    choices: tuple[Fraction, ...] = ()     # explicit written values (fractions), else the grid

    def size(self) -> int:
        if self.choices:
            return len(self.choices)
        return max(0, math.floor(self.hi / self.unit) - math.ceil(self.lo / self.unit) + 1)

    def draw(self, rng: random.Random) -> Fraction:
        return self.value(self.draw_raw(rng))

    def draw_raw(self, rng: random.Random) -> int | Fraction:
        """A draw before it is a value: the written value of ``choices`` drawn, else the
        number of ``unit`` steps (:meth:`value` makes it the given's value); it takes from
        ``rng`` what :meth:`draw` takes."""
        if self.choices:
            return rng.choice(self.choices)
        lo, hi, _ = self.bounds()
        return rng.randint(lo, hi)

    def value(self, raw: int | Fraction) -> Fraction:
        """The given's value for a draw of :meth:`draw_raw`."""
        if self.choices:
            return Fraction(raw) / self.scale
        return raw * self.bounds()[2]

    def bounds(self) -> tuple[int, int, Fraction]:
        """(least, most) steps of the grid and the value of one step (``unit / scale``),
        worked out once: a variant draws about 20 times per item."""
        bounds = self.__dict__.get("_bounds")
        if bounds is None:
            bounds = (math.ceil(self.lo / self.unit), math.floor(self.hi / self.unit),
                      self.unit / self.scale)
            object.__setattr__(self, "_bounds", bounds)
        return bounds


def _grain(w: Fraction) -> Fraction:
    """The step the written number moves by: its last non-zero digit's place."""
    if w.denominator != 1:
        places = decimal_places(w) or 0
        return Fraction(1, 10**places)
    n, unit = w.numerator, 1
    while n % 10 == 0 and n >= 10:
        n //= 10
        unit *= 10
    return Fraction(unit)


def domain(g: Given) -> Domain | None:
    """Where ``g`` may move in a variant; None when it keeps its value."""
    w = g.value * g.style.scale
    if w in (0, 1) or w < 0 or g.fixed:
        return None
    if g.style.kind == "fraction":
        return _fraction_domain(w)
    lo, hi = w / 2, w * 2
    if g.style.percent and w <= 100:
        if w == 100:
            return None
        hi = min(hi, Fraction(99))
    if g.style.kind == "word":
        hi = min(hi, Fraction(20) if w <= 20 else Fraction(99))
    if g.style.whole:
        lo = max(lo, Fraction(2))
    if g.cap is not None:                  # "5 days a week" stays at most 7
        hi = min(hi, g.cap * g.style.scale)
    if g.ratio:                            # "1.2 times her rate" stays more than her rate
        lo, hi = (max(lo, 1 + _grain(w)), hi) if w > 1 else (lo, min(hi, 1 - _grain(w)))
    unit = _grain(w)
    dom = Domain(lo, hi, unit, g.style.scale)
    while dom.size() < _MIN_CHOICES and unit > 1:   # 60 moves by tens unless too few are left
        unit /= 10
        dom = Domain(lo, hi, unit, g.style.scale)
    return dom if dom.size() >= 2 else None


def _fraction_domain(w: Fraction) -> Domain | None:
    """A fraction the question writes (``3/4``) moves to other fractions of small
    denominators between half and twice it, staying below one where it was."""
    top = min(w * 2, Fraction(1)) if w < 1 else w * 2
    choices = sorted({Fraction(n, d) for d in range(2, 11) for n in range(1, 4 * d)
                      if w / 2 <= Fraction(n, d) <= top and Fraction(n, d).denominator != 1
                      and Fraction(n, d) != 1})
    return Domain(w / 2, top, Fraction(1), 1, tuple(choices)) if len(choices) >= 2 else None


def same_digits(g: Given, rng: random.Random) -> Fraction | None:
    """Another value of ``g`` written with as many digits (and decimals), or None."""
    w = g.value * g.style.scale
    if g.style.kind in ("fraction", "word") or w in (0, 1) or w < 0 or g.fixed:
        return None
    places = g.style.places
    whole_digits = len(str(int(w))) if w >= 1 else 0
    lo = Fraction(10 ** (whole_digits - 1)) if whole_digits else Fraction(1, 10**places)
    hi = Fraction(10**whole_digits) - Fraction(1, 10**places)
    if g.style.percent and w <= 100:
        hi = min(hi, Fraction(99))
    lo = max(lo, Fraction(2)) if g.style.whole else lo
    if g.cap is not None:
        hi = min(hi, g.cap * g.style.scale)
    unit = Fraction(1, 10**places)
    if g.ratio and w > 1:                  # "1.2 times" never "1.0 times"
        lo = max(lo, 1 + unit)
    dom = Domain(lo, hi, unit, g.style.scale)
    if dom.size() < 2:
        return None
    for _ in range(20):
        v = dom.draw(rng)
        if v != g.value:
            return v
    return None


def shifted(g: Given, percent: int, *, rounded: bool = False) -> Fraction | None:
    """``g``'s value shifted by ``percent`` (%), or None when the question's style cannot
    write it (a whole number that would not be whole, more decimals, a percent over 100).
    With ``rounded``, a whole number is rounded to the nearest whole one when that still
    moves it in the same direction by at most ten points more or less than asked."""
    w = g.value * g.style.scale
    if w <= 0 or g.style.kind == "fraction" or g.fixed:
        return None
    new = w * (100 + percent) / 100
    if rounded and g.style.whole and new.denominator != 1:
        new = Fraction(round(new))
        actual = (new - w) / w * 100
        if new == w or (actual > 0) != (percent > 0) or abs(actual - percent) > 10:
            return None
    if g.style.percent and w <= 100 and new > 100:
        return None
    if g.cap is not None and new > g.cap * g.style.scale:
        return None                        # "6 days a week" + 30% is not a week
    if g.ratio and (new - 1) * (w - 1) <= 0:
        return None                        # "1.2 times her rate" - 30% is less than her rate
    value = new / g.style.scale
    try:
        render(g.style, value)
    except Unwritable:
        return None
    return value if value not in (0, 1) or value == g.value else None


def with_digits(g: Given, d: int, rng: random.Random) -> Fraction:
    """A value with ``d`` significant digits at the order of magnitude of ``g``'s written
    number (``12`` -> ``34.823`` at d = 5), as the given's value (a percent divided by 100)."""
    w = g.value * g.style.scale
    if w <= 0:
        w = Fraction(1)
    e = math.floor(math.log10(float(w))) if w > 0 else 0
    mantissa = rng.randint(10 ** (d - 1), 10**d - 1)
    while mantissa % 10 == 0 and d > 1:    # exactly d significant digits
        mantissa = rng.randint(10 ** (d - 1), 10**d - 1)
    value = Fraction(mantissa) * Fraction(10) ** (e - d + 1)
    return value / g.style.scale
