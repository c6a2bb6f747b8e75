"""How a number is written, and the same number-style for another value.

A given's words in a question (``"$1,500"``, ``"2.50"``, ``"three"``, ``"45%"``, ``"1/2"``)
are read into a :class:`Style`; :func:`render` writes another value the way the original
was written (``"$2,250"``, ``"3.75"``, ``"seven"``, ``"30%"``, ``"3/4"``), or raises
:class:`Unwritable` with the reason when it cannot (a count of 3.3 in a whole-number style,
a number word past ninety-nine, a value of one where the text says "apples"). Nothing here
guesses: a style it does not know is refused by :func:`read_style`.

The value of a style is the value of the *given* in the formalization. A percent's given
is p (when the solution divides by 100 itself) or p/100 (when it writes ``.45``); the
words show p either way: ``scale`` is what the written number is times the value (1 or 100).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction

from qcstation.core.reading.answers import decimal_fraction, decimal_places

__all__ = [
    "WORDS",
    "Style",
    "Unwritable",
    "read_style",
    "fit_article",
    "money_before",
    "render",
    "word_of",
    "written_value",
]


class Unwritable(ValueError):
    """A value cannot be written in a style (``str()`` says why)."""


_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
#: number words read and written (0-99); "dozen", "half" and the like are not numbers here
WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS)}
WORDS.update({w: 10 * i for i, w in enumerate(_TENS, 2)})

_DIGITS_RE = re.compile(
    r"^(?P<pre>[$€£]?\s?)(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<post>\s?%|\s?percent)?$")
_FRACTION_RE = re.compile(r"^(?P<n>\d+)\s*/\s*(?P<d>\d+)$")
_WORD_RE = re.compile(r"^(?P<w>[A-Za-z]+(?:-[A-Za-z]+)?)(?P<post>\s?%|\s?percent)?$")


def word_of(n: int) -> str:
    """``21`` -> ``"twenty-one"`` (0..99)."""
    if not 0 <= n <= 99:
        raise Unwritable(f"{n} has no number word here (0 to 99 only)")
    if n < 20:
        return _UNITS[n]
    tens, unit = divmod(n, 10)
    return _TENS[tens - 2] + ("" if unit == 0 else "-" + _UNITS[unit])


def _word_value(text: str) -> int | None:
    t = text.lower()
    if t in WORDS:
        return WORDS[t]
    if "-" in t:
        a, b = t.split("-", 1)
        if a in _TENS and b in _UNITS[1:10]:
            return WORDS[a] + WORDS[b]
    return None


@dataclass(frozen=True)
class Style:
    """How a number is written: ``kind`` is ``number`` (digits), ``word``, ``percent`` or
    ``fraction``; ``prefix`` a currency sign, ``suffix`` the percent mark as written;
    ``commas`` thousands separators; ``places`` decimals written (``2.50`` -> 2);
    ``capital`` a number word starting with a capital; ``lead_dot`` ``.5`` rather than
    ``0.5``; ``percent`` the text states a percent (``45%``, ``45 percent``); ``scale`` what
    the written number is times the given's value (100 for a percent given stored as p/100);
    ``money`` a sum of money (a currency sign before it, inside the words or just before
    them): with two decimals it keeps its cents when whole ("$5.00" -> "$4.00", never "$4")."""

    kind: str
    prefix: str = ""
    suffix: str = ""
    commas: bool = False
    places: int = 0
    capital: bool = False
    lead_dot: bool = False
    percent: bool = False
    scale: int = 1
    money: bool = False

    @property
    def whole(self) -> bool:
        """Only whole written numbers fit this style (digits without decimals, words)."""
        return self.kind in ("word",) or (self.kind in ("number", "percent") and self.places == 0)


def _scale(written: Fraction, value: Fraction, percent: bool, words: str) -> int:
    if written == value:
        return 1
    if percent and written == value * 100:
        return 100
    raise Unwritable(f"the words {words!r} do not state the given's value {value}")


def read_style(words: str, value: Fraction, kind: str | None = None, *,
               percent: bool = False, money: bool = False) -> Style:
    """The style of ``words`` (a given's exact text in the question), checked against the
    given's ``value``; ``percent``: the text goes on with a percent sign or word; ``money``:
    a currency sign stands just before the words (:func:`money_before`). Raises
    :class:`Unwritable` for text it does not know how to write again, or whose number is
    not the given's value."""
    text = words.strip()
    m = _DIGITS_RE.match(text)
    if m:
        num = m.group("num")
        percent = percent or bool(m.group("post")) or kind == "percent"
        written = decimal_fraction(num.replace(",", ""))
        scale = _scale(written, value, percent, words)
        places = len(num.split(".", 1)[1]) if "." in num else 0
        return Style("percent" if percent else "number", prefix=m.group("pre") or "",
                     suffix=m.group("post") or "", commas="," in num, places=places,
                     lead_dot=num.startswith("."), percent=percent, scale=scale,
                     money=money or bool((m.group("pre") or "").strip()))
    m = _FRACTION_RE.match(text)
    if m:
        n, d = int(m.group("n")), int(m.group("d"))
        if d == 0 or Fraction(n, d) != value:
            raise Unwritable(f"the words {words!r} do not state the given's value {value}")
        return Style("fraction")
    m = _WORD_RE.match(text)
    if m:
        word = _word_value(m.group("w"))
        if word is None:
            raise Unwritable(f"{words!r} is not a number word that can be written again")
        percent = percent or bool(m.group("post")) or kind == "percent"
        scale = _scale(Fraction(word), value, percent, words)
        return Style("word", suffix=m.group("post") or "", capital=m.group("w")[0].isupper(),
                     percent=percent, scale=scale)
    raise Unwritable(f"{words!r} is not a number style the rewriter knows")


def written_value(style: Style, value: Fraction) -> Fraction:
    """The number the words show for a given of ``value`` (p for a percent)."""
    return value * style.scale


@functools.lru_cache(maxsize=4096, typed=True)
def render(style: Style, value: Fraction) -> str:
    """``value`` (a given's value) written in ``style``; :class:`Unwritable` when it cannot be
    written that way exactly. A str of a frozen style and a number, made once per pair (a
    parent's draws and its worked solution write the same values again and again; an
    :class:`Unwritable` is raised again each time, never kept)."""
    shown = written_value(style, value)
    if shown < 0:
        raise Unwritable(f"{shown} is negative; the question writes no sign")
    if style.kind == "fraction":
        if shown.denominator == 1:
            raise Unwritable(f"{shown} is whole; the question writes a fraction there")
        return f"{shown.numerator}/{shown.denominator}"
    if style.kind == "word":
        if shown.denominator != 1:
            raise Unwritable(f"{shown} is not whole; the question writes a number word there")
        word = word_of(int(shown))
        return (word[:1].upper() + word[1:] if style.capital else word) + style.suffix
    places = decimal_places(shown)
    if places is None or places > style.places:
        raise Unwritable(f"{_plain(shown)} needs more decimals than the {style.places} "
                         f"the question writes there")
    scaled = shown * 10 ** style.places
    digits = str(int(scaled)).rjust(style.places + 1, "0")
    whole, frac = (digits[:-style.places], digits[-style.places:]) if style.places else (digits, "")
    if frac and not frac.strip("0") and not (style.money and style.places == 2):
        # a whole value where the question writes decimals: "$3" and "2 times", not "$3.0"
        # and "2.0 times"; money with cents keeps them ("$3.00")
        frac = ""
    if style.commas:
        whole = f"{int(whole):,}"
    if style.lead_dot and whole == "0" and frac:
        whole = ""
    return style.prefix + whole + ("." + frac if frac else "") + style.suffix


_MONEY_BEFORE = re.compile(r"[$€£]\s?$")


def money_before(text: str, start: int) -> bool:
    """A currency sign stands just before ``text[start:]`` ("$5.00" where the words are
    "5.00")."""
    return _MONEY_BEFORE.search(text, max(0, start - 2), start) is not None


_ARTICLE_RE = re.compile(r"(?:^|(?<=[^A-Za-z]))([Aa])(n?)(\s+)$")


def fit_article(before: str, text: str) -> str:
    """``before`` (the text up to a number written as ``text``) with an article right before
    the number agreeing with how the number is said: "a 5-hour shift" -> "an 8-hour shift",
    "an 8% raise" -> "a 5% raise", "an eleven" / "a twelve". A number after a currency sign
    (said "a $8 fee" or "an $8 fee" alike) and text with no article are left as they are."""
    m = _ARTICLE_RE.search(before)
    if m is None:
        return before
    an = _said_with_vowel(text)
    if an is None or an == bool(m.group(2)):
        return before
    article = m.group(1) + ("n" if an else "")
    return before[:m.start()] + article + m.group(3)


def _said_with_vowel(text: str) -> bool | None:
    """Whether ``text`` (a written number) is said starting with a vowel sound ("8", "11",
    "18", "80", "800", "8,000", "eighteen"); None when it starts with no digit or word."""
    t = text.strip().lower()
    if not t:
        return None
    if t[0].isalpha():
        return t.startswith(("eight", "eleven"))
    if not t[0].isdigit():
        return None
    whole = re.match(r"[\d,]+", t)
    digits = whole.group(0).replace(",", "") if whole else ""
    if not digits:
        return None
    lead = digits[: len(digits) % 3 or 3]     # the group said first: 18 in 18,500
    return lead.startswith("8") or lead in ("11", "18")


def _plain(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
