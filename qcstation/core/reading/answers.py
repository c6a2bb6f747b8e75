"""Exact answers: parse gold and model answers into rationals and compare them.

A gold answer is kept as text and, where it is a single number, as an exact
``Fraction`` together with how it was written (integer, fraction, decimal with
``decimals`` places). Comparison is exact for integer and fraction golds; for a
decimal gold written with ``d`` places the stated tolerance is half a unit in the
last place (``|x - gold| <= 0.5 * 10**-d``), so ``0.33`` accepts ``1/3``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from qcstation.common.memo import text_memo

__all__ = [
    "written_numbers",
    "ExactAnswer",
    "decimal_places",
    "denominator_places",
    "parse_answer",
    "parse_number",
    "fraction_to_str",
    "fraction_from_str",
    "decimal_fraction",
    "matches",
    "count_numbers",
]


@dataclass(frozen=True)
class ExactAnswer:
    value: Fraction
    kind: str  # integer | fraction | decimal
    decimals: int = 0
    percent: bool = False

    @property
    def text(self) -> str:
        return fraction_to_str(self.value)

    def tolerance(self) -> Fraction:
        if self.kind == "decimal":
            return Fraction(1, 2 * 10**self.decimals)
        return Fraction(0)


_NUM = r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+−]?\.\d+"
_NUM_RE = re.compile(_NUM)
_FRAC_LATEX = re.compile(r"^(-?)\\[dt]?frac\s*\{\s*(-?[\d.]+)\s*\}\s*\{\s*(-?[\d.]+)\s*\}$")
_FRAC_LATEX_SHORT = re.compile(r"^(-?)\\[dt]?frac(\d)(\d)$")
_SLASH = re.compile(rf"^({_NUM})\s*/\s*({_NUM})$")
_MIXED = re.compile(r"^(-?\d+)\s+(\d+)\s*/\s*(\d+)$")
_CURRENCY_PREFIX = re.compile(r"^(?:\\?\$|rs\.?|inr|usd|€|£|¥)\s*", re.IGNORECASE)
# (tried only from :func:`_unit_suffix_from` on, and only where a run of spaces starts: from each
# letter of a long tail of letters and each space of a run, anchored at the end, it read the rest of
# the text again, quadratic in an answer's length; see :func:`_strip_unit_suffix`)
_UNIT_SUFFIX = re.compile(
    r"(?<!\s)\s*+(?:\^\{?[23]\}?|\\?%|percent|\\text\{[^{}]*\}|\\mbox\{[^{}]*\}|\^\\circ|°|\\circ|"
    r"[a-zA-Z](?:[a-zA-Z./ ²³]|\^[23])*)$"
)
_UNIT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ./ ²³")


def _unit_suffix_from(t: str) -> int:
    """A place of ``t`` before which no match of :data:`_UNIT_SUFFIX` starts: a unit's letters
    start at most one character before the longest tail written in a unit's characters (a "^"
    only before a 2 or 3); a \\text{...} or \\mbox{...} at the last "{"; its other forms in the
    last 8 characters. Taken back to the start of a run of spaces (the pattern's own ``\\s*``)."""
    end = len(t) - 1 if t.endswith("\n") else len(t)      # ("$" matches before a last line end too)
    m, k, here, after = end, end, True, True           # here, after: t[k:end], t[k+1:end] are unit tails
    while k > 0 and (here or after):
        k -= 1
        ok = (t[k] in _UNIT_CHARS and here) or (t[k] == "^" and k + 1 < end and t[k + 1] in "23" and after)
        here, after = ok, here
        if ok:
            m = k
    start = min(m - 1, end - 8)
    if t.endswith("}", 0, end):
        brace = t.rfind("{", 0, end)
        if brace >= 5 and t[brace - 5:brace] in ("\\text", "\\mbox") and t.find("}", brace, end - 1) == -1:
            start = min(start, brace - 5)
    start = max(start, 0)
    while start and t[start - 1].isspace():
        start -= 1
    return start


def _strip_unit_suffix(t: str) -> str:
    """``t`` less the unit, percent sign, degree or \\text{...} it ends with, as
    ``_UNIT_SUFFIX.sub("", t)`` (it matches once at most, at the end), in time linear in ``t``."""
    m = _UNIT_SUFFIX.search(t, _unit_suffix_from(t))
    return t if m is None else t[:m.start()] + t[m.end():]


def fraction_to_str(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def fraction_from_str(text: str) -> Fraction:
    return Fraction(text)


def decimal_fraction(text: str) -> Fraction:
    """``Fraction(text)``, cheaper for a plain ASCII numeral (``12``, ``2.50``, ``.5``: read as
    integers, the same value; any other text, and every error, as ``Fraction`` gives it): the
    rules parse every number of every text they read, most of them whole."""
    if text.isascii():
        if text.isdigit():
            return Fraction(int(text))
        whole, dot, frac = text.partition(".")
        if dot and frac.isdigit() and (not whole or whole.isdigit()):
            scale = 10 ** len(frac)
            return Fraction(int(whole or "0") * scale + int(frac), scale)
    return Fraction(text)


def decimal_places(value: Fraction) -> int | None:
    """Decimal places needed to write ``value`` exactly (None: not a finite decimal)."""
    return denominator_places(value.denominator)


def denominator_places(d: int) -> int | None:
    """:func:`decimal_places` of a value in lowest terms with denominator ``d`` (read from the
    denominator alone, where a caller has it without the value)."""
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    return max(twos, fives) if d == 1 else None


def _strip_wrappers(text: str) -> str:
    t = text.strip()
    # \boxed{...} / \fbox{...} (take the innermost balanced content)
    for wrapper in ("\\boxed", "\\fbox", "\\framebox"):
        idx = t.find(wrapper + "{")
        if idx != -1:
            start = idx + len(wrapper) + 1
            depth, j = 1, start
            while j < len(t) and depth:
                depth += {"{": 1, "}": -1}.get(t[j], 0)
                j += 1
            t = t[start : j - 1]
    t = t.strip().strip("$").strip()
    t = t.replace("\\!", "").replace("\\,", "").replace("{,}", ",").replace("\\ ", " ")
    t = t.replace("−", "-").replace("–", "-")
    t = re.sub(r"\\left|\\right", "", t)
    t = t.rstrip(".").strip()
    return t


def _dec(text: str) -> tuple[Fraction, int]:
    clean = text.replace(",", "").replace("−", "-").replace("+", "")
    try:
        d = Decimal(clean)
    except InvalidOperation as exc:  # pragma: no cover - guarded by regex
        raise ValueError(text) from exc
    exp = d.as_tuple().exponent
    places = -exp if isinstance(exp, int) and exp < 0 else 0
    return Fraction(d), places


def parse_number(text: str | float | int | None) -> ExactAnswer | None:
    """Parse one number written as an integer, decimal, fraction (``a/b``, ``\\frac``),
    mixed number, with optional currency prefix, percent sign or unit words.
    Returns ``None`` when the text is not exactly one number. A short text is read once
    (:func:`_parse_text`: the rules and the audits read the same numbers many times)."""
    if type(text) is str and len(text) <= _MEMO_CHARS:
        return _parse_text(text)
    return _parse_number(text)


_MEMO_CHARS = 64


@text_memo(maxsize=1024)
def _parse_text(text: str) -> ExactAnswer | None:
    return _parse_number(text)


def _parse_number(text: str | float | int | None) -> ExactAnswer | None:
    """Parse one number written as an integer, decimal, fraction (``a/b``, ``\\frac``),
    mixed number, with optional currency prefix, percent sign or unit words.
    Returns ``None`` when the text is not exactly one number."""
    if text is None:
        return None
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return ExactAnswer(Fraction(text), "integer")
    if isinstance(text, float):
        if text != text or text in (float("inf"), float("-inf")):
            return None
        if text.is_integer():
            return ExactAnswer(Fraction(int(text)), "integer")
        return parse_number(repr(text))
    t = _strip_wrappers(str(text))
    if not t:
        return None
    m = _FRAC_LATEX_SHORT.match(t)
    if m:
        sign, num, den = m.groups()
        if int(den) == 0:
            return None
        v = Fraction(int(num), int(den))
        return ExactAnswer(-v if sign else v, "fraction")
    percent = bool(re.search(r"(\\?%|percent)\s*$", t))
    t = _CURRENCY_PREFIX.sub("", t).strip()
    # strip trailing units / \text{...} / degrees, repeatedly
    for _ in range(3):
        stripped = _strip_unit_suffix(t).strip()
        if stripped == t or not stripped:
            break
        t = stripped
    t = t.strip().rstrip(".").strip()
    m = _FRAC_LATEX.match(t) or _FRAC_LATEX_SHORT.match(t)
    if m:
        sign, num, den = m.groups()
        n, _ = _dec(num)
        d, _ = _dec(den)
        if d == 0:
            return None
        v = n / d
        return ExactAnswer(-v if sign else v, "fraction", percent=percent)
    m = _MIXED.match(t)
    if m:
        whole, num, den = (int(g) for g in m.groups())
        if den == 0:
            return None
        frac = Fraction(num, den)
        v = Fraction(whole) - frac if whole < 0 or t.startswith("-") else Fraction(whole) + frac
        return ExactAnswer(v, "fraction", percent=percent)
    m = _SLASH.match(t)
    if m:
        n, _ = _dec(m.group(1))
        d, _ = _dec(m.group(2))
        if d == 0:
            return None
        return ExactAnswer(n / d, "fraction", percent=percent)
    m = _NUM_RE.fullmatch(t)
    if m:
        v, places = _dec(t)
        if places and v.denominator == 1 and not re.search(r"\.\d*[1-9]", t):
            # "18.00" is an integer written with zeros: keep exactness, remember places
            return ExactAnswer(v, "decimal", places, percent)
        return ExactAnswer(v, "decimal" if places else "integer", places, percent)
    return None


#: the vulgar fraction characters ("½", "¾", "⅓"...) as digits: "1/2", "3/4", "1/3"
_VULGAR = {ch: f"{n}/{d}" for ch, n, d in (
    ("¼", 1, 4), ("½", 1, 2), ("¾", 3, 4), ("⅐", 1, 7), ("⅑", 1, 9), ("⅒", 1, 10), ("⅓", 1, 3),
    ("⅔", 2, 3), ("⅕", 1, 5), ("⅖", 2, 5), ("⅗", 3, 5), ("⅘", 4, 5), ("⅙", 1, 6), ("⅚", 5, 6),
    ("⅛", 1, 8), ("⅜", 3, 8), ("⅝", 5, 8), ("⅞", 7, 8), ("↉", 0, 3))}
_VULGAR_CLASS = "[" + "".join(_VULGAR) + "]"
#: a vulgar fraction with what touches it: a word character before ("1½": a mixed number when
#: a digit; one space between a digit and it too, "1 ½"), a word character after ("½cup")
_VULGAR_RE = re.compile(rf"(?:(?P<before>(?!{_VULGAR_CLASS})\w)(?P<space> ?))?(?P<ch>{_VULGAR_CLASS})"
                        rf"(?P<after>(?!{_VULGAR_CLASS})\w)?")
#: a fraction slash or division slash between digits ("3⁄4", "3∕4")
_FRACTION_SLASH_RE = re.compile(r"(?<=\d)[\u2044\u2215](?=\d)")


def plain_fractions(text: str) -> str:
    """``text`` with its vulgar fraction characters written in digits, as the rest of the
    reading reads fractions: "1½" and "1 ½" -> "1 1/2" (a mixed number), "½" -> "1/2",
    "¾cup" -> "3/4 cup", and a fraction slash between digits ("3⁄4") -> "3/4". Text with
    none is returned as is (ASCII text at once). One pass, linear in the text."""
    if text.isascii():
        return text
    text = _FRACTION_SLASH_RE.sub("/", text)

    def digits(m: re.Match[str]) -> str:
        before, after = m.group("before"), m.group("after")
        lead = f"{before} " if before is not None else ""
        return lead + _VULGAR[m.group("ch")] + (f" {after}" if after is not None else "")

    return _VULGAR_RE.sub(digits, text)


#: a number written in digits, exactly as a text writes it ("1,500", "2.5", a fraction "3/4" as one)
_WRITTEN_RE = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?")
_SIGNED_RE = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?")


def written_numbers(text: str | None, *, signed: bool = False, limit: int = 100_000) -> set[Fraction]:
    """Every number a text writes in digits ("1,500", "2.5", "3/4"; "-7" where ``signed``), exact,
    read from its first ``limit`` characters: what a chain of thought or a solution line states,
    compared with the values it should state (step fidelity, a line's numbers against its question's)."""
    out: set[Fraction] = set()
    for m in (_SIGNED_RE if signed else _WRITTEN_RE).finditer((text or "")[:limit]):
        try:
            out.add(Fraction(m.group(0).replace(",", "").replace(" ", "")))
        except (ValueError, ZeroDivisionError):
            continue
    return out


def count_numbers(text: str) -> int:
    """How many separate numbers a text contains (for the single-number filter)."""
    t = _strip_wrappers(text)
    t = re.sub(r"\\[dt]?frac\s*\{[^{}]*\}\s*\{[^{}]*\}", " 1 ", t)
    t = re.sub(r"(\d)\s*/\s*(\d)", r"\1\2", t)
    return len(_NUM_RE.findall(t))


def parse_answer(text: str | float | int | None) -> ExactAnswer | None:
    """Parse a gold answer; alias of :func:`parse_number` kept for readability."""
    return parse_number(text)


def matches(value: Fraction, gold: ExactAnswer) -> bool:
    """Does ``value`` equal the gold answer (exactly, or within a decimal gold's tolerance)?"""
    if gold.kind == "decimal" and gold.decimals:
        return abs(value - gold.value) <= gold.tolerance()
    if value == gold.value:
        return True
    # a percent gold (e.g. "25%") also accepts the ratio 0.25
    return gold.percent and value * 100 == gold.value
