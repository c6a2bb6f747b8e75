"""Which givens of a parent may be rewritten: the bindings the references work vouches for.

A rule-made Reasoning artifact (``content`` of the verified reasoning version) lists its
givens; the references work (issue 14) adds to each given its exact place in the seed
question and says whether every given is tied to its words with no ambiguity:

* per given: ``name``, ``value`` (``p`` or ``p/q``), ``span`` ([start, end] character
  offsets of the occurrence in the question), ``words`` (the text at that span), ``kind``
  (``number`` | ``word`` | ``percent`` | ``fraction``);
* on the content: ``bound: true`` when every given is tied to its words with no ambiguity;
  named factors (1/100, 60 min/h) are listed under ``factors``, not as givens.

:func:`read_bindings` checks that contract against the question and returns the givens
with the :class:`~qcstation.core.derive.numbers.Style` each is written in, or raises
:class:`Refusal` with the reason an item cannot be derived faithfully: no vouched
bindings, a span that does not hold the words, two givens read from one place (a given
used twice), a value the question states again outside every given's place (rewriting one
would contradict the other), or words it cannot write again.
A given whose words carry a value no other value can be written in ("twice", "a dozen",
"a week"), or that states the true size of one unit in another ("there are 8 ounces in a cup"),
is kept fixed (``Given.fixed``): the other givens may still move.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from qcstation.common.memo import text_memo
from qcstation.core.derive.numbers import WORDS, Style, Unwritable, money_before, read_style
from qcstation.core.reading.answers import decimal_fraction

__all__ = ["Bindings", "Given", "NumberAt", "Refusal", "kept", "question_numbers", "read_bindings", "sentences",
           "unused_neighbours", "unused_numbers"]


class Refusal(Exception):
    """An item that cannot be derived faithfully: ``code`` (short, for counting) and the
    reason in plain words (``str()``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


_R = TypeVar("_R", bound=BaseException)


def kept(exc: _R) -> _R:
    """``exc`` to be kept past its ``except`` block (remembered for a draw met again, or as the
    last reason to report): its traceback and the exception it was raised in dropped. A
    refusal kept with its traceback is a reference cycle (the handler's frame holds the
    refusal, whose traceback holds that frame and every frame it was raised through, with
    their locals): only the cyclic garbage collector frees it. Kept on every refused draw,
    that was about 1,500 objects per variant item, and the full collections they brought on
    took a fifth of a rules worker's CPU. Its code and reason are all a refusal is read for."""
    exc.__traceback__ = None
    exc.__context__ = None
    return exc


class LazyRefusal(Refusal):
    """A :class:`Refusal` whose reason is written only when it is read (``str()``): the draws'
    cheap checks refuse most draws (about 17 per variant item) and report only the last one's
    reason, so writing every reason (values formatted, a ``Fraction`` made for each) was a
    tenth of a variant's cheap checks. ``message()`` gives the same text a :class:`Refusal`
    would be built with (``args`` stays empty: read its reason with ``str()``)."""

    def __init__(self, code: str, message: Callable[[], str]) -> None:
        Exception.__init__(self)
        self.code = code
        self._message: Callable[[], str] | None = message
        self._text = ""

    def __str__(self) -> str:
        if self._message is not None:
            self._text, self._message = self._message(), None
        return self._text


@dataclass(frozen=True)
class Given:
    """One given of a formalization and where the question states it. ``fixed`` says why
    its value may not move (a clock time, a calendar year), else ""."""

    name: str
    value: Fraction
    start: int
    end: int
    words: str
    kind: str
    style: Style
    fixed: str = ""
    cap: Fraction | None = None   # the most its unit allows ("5 days a week": 7)
    ratio: bool = False           # "1.2 times her rate": keeps its side of 1 (draws.domain)


@dataclass(frozen=True)
class Bindings:
    """The parent's givens, in the order the formalization declares them."""

    givens: tuple[Given, ...]
    factors: tuple[str, ...] = ()

    def by_name(self) -> dict[str, Given]:
        return {g.name: g for g in self.givens}


@dataclass(frozen=True)
class NumberAt:
    """A number written in a text: its place, its words and the value they show."""

    start: int
    end: int
    text: str
    value: Fraction


# (each pattern opening with a look-behind opens with a lookahead for the characters a match
# starts with: the same matches, found without trying the look-behind at every place)
_NUM_RE = re.compile(r"(?=[\d.])(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                     r"(?:\s*/\s*\d+(?![\d.]))?(?![\d])")
# (the lookahead on the words' first letters only spares trying every word at every word start)
_WORDS_RE = re.compile(r"\b(?=[" + "".join(sorted({w[0] for w in WORDS})) + r"])(?:"
                       + "|".join(sorted(WORDS, key=len, reverse=True))
                       + r")(?:-(?:one|two|three|four|five|six|seven|eight|nine))?\b", re.IGNORECASE)


@text_memo(list)
def question_numbers(text: str) -> list[NumberAt]:
    """Every number a text writes, in digits (``1,500``, ``2.5``, ``1/2``) or as a word
    (``three``, ``twenty-one``), with its place."""
    out: list[NumberAt] = []
    for m in _NUM_RE.finditer(text):
        raw = m.group(0)
        try:
            if "/" in raw:
                a, b = (p.strip() for p in raw.split("/"))
                if int(b) == 0:
                    continue
                value = decimal_fraction(a.replace(",", "")) / int(b)
            else:
                value = decimal_fraction(raw.replace(",", ""))
        except (ValueError, ZeroDivisionError):
            continue
        out.append(NumberAt(m.start(), m.end(), raw, value))
    for m in _WORDS_RE.finditer(text):
        word = m.group(0).lower()
        if "-" in word:
            a, b = word.split("-", 1)
            worded = Fraction(WORDS[a] + WORDS[b]) if a in WORDS and WORDS[a] >= 20 else None
        else:
            worded = Fraction(WORDS[word])
        if worded is not None:
            out.append(NumberAt(m.start(), m.end(), m.group(0), worded))
    out.sort(key=lambda n: n.start)
    return out


_SENT_START = re.compile(r"(?:^|(?<=[.!?])\s+)(?=[A-Z$0-9])")
#: a period that ends a title or an abbreviation, not a sentence ("1/3 as many to Mr. Yu")
_ABBREVIATION = re.compile(r"\b(?:Mr|Mrs|Ms|Mx|Dr|St|Mt|Jr|Sr|Prof|Capt|Lt|Col|Gen|Sgt|Rev|Hon|"
                           r"vs|etc|approx|e\.g|i\.e)\.$")


def sentences(text: str) -> list[tuple[int, int, str]]:
    """(start, end, sentence) of each sentence of ``text`` (ends at . ! ? and a space)."""
    starts = [m.end() for m in _SENT_START.finditer(text)
              if not _ABBREVIATION.search(text, 0, m.start())]
    starts = sorted({s for s in starts if s < len(text)})
    out = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else len(text)
        seg = text[s:e].rstrip()
        if seg:
            out.append((s, s + len(seg), seg))
    return out



#: a number word that reads as an article ("one of the", "One crayon costs $2") does not tie
_ARTICLE_ONE = frozenset({"one"})


def unused_numbers(question: str, givens: list[Given] | tuple[Given, ...],
                   used: frozenset[Fraction] = frozenset()) -> list[NumberAt]:
    """The numbers the question states that no given is read from and the formalization
    does not write (``used``); not 0, nor the word "one" (an article as often as a count)."""
    places = [(g.start, g.end) for g in givens]
    return [n for n in question_numbers(question)
            if not any(s <= n.start < e or s < n.end <= e for s, e in places)
            and n.value not in used and n.value != 0
            and not (n.value == 1 and n.text.lower() in _ARTICLE_ONE)]


def unused_neighbours(question: str, givens: list[Given] | tuple[Given, ...],
                      used: frozenset[Fraction] = frozenset()) -> dict[str, list[NumberAt]]:
    """Per given, the numbers its sentence states that no given is read from and the
    formalization does not write (``used``): "She split the cost evenly three ways with her
    two parents" -- the 3 is a given, the two is not, yet 3 = 2 + 1. Nothing says how such
    a number relates to the given, so a given with one may not move: a new value could
    contradict it ("four ways with her two parents"). The word "one" (an article as often
    as a count) and 0 are not counted."""
    unused = unused_numbers(question, givens, used)
    out: dict[str, list[NumberAt]] = {}
    if not unused:
        return out
    for g in givens:
        for s, e, _ in sentences(question):
            if s <= g.start < e:
                near = [n for n in unused if s <= n.start < e]
                if near:
                    out[g.name] = near
                break
    return out


def _span(g: dict[str, Any], question: str) -> tuple[int, int]:
    span = g.get("span")
    if (not isinstance(span, (list, tuple)) or len(span) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in span)):
        raise Refusal("no-span", f"given {g.get('name')} has no place in the question (span)")
    start, end = int(span[0]), int(span[1])
    if not 0 <= start < end <= len(question):
        raise Refusal("bad-span", f"given {g.get('name')}'s span {span} is outside the question")
    return start, end


def read_bindings(question: str, content: dict[str, Any]) -> Bindings:
    """The givens of a rule-made Reasoning artifact ``content`` for the seed ``question``,
    each with its place and number style; :class:`Refusal` when they are not vouched for
    or cannot be rewritten faithfully (see the module docstring)."""
    if content.get("bound") is not True:
        raise Refusal("not-bound", "the references work does not vouch for this item's "
                                   "bindings (no 'bound: true': a given may be tied to "
                                   "another number of the same value)")
    raw = content.get("givens")
    if not isinstance(raw, list) or not raw:
        raise Refusal("no-givens", "the formalization declares no givens of the question")
    givens: list[Given] = []
    for g in raw:
        if not isinstance(g, dict) or not isinstance(g.get("name"), str):
            raise Refusal("bad-given", "a given of the formalization is malformed")
        start, end = _span(g, question)
        words = question[start:end]
        if g.get("words") is not None and g.get("words") != words:
            raise Refusal("bad-span", f"given {g['name']}: the question holds {words!r} at its "
                                      f"span, not {g.get('words')!r}")
        try:
            value = Fraction(str(g.get("value")))
        except (ValueError, ZeroDivisionError):
            raise Refusal("bad-given", f"given {g['name']} has no exact value") from None
        kind = str(g.get("kind") or "number")
        fixed = _fixed(question, start, end, value)
        try:
            style = read_style(words, value, kind,
                               percent=bool(_PERCENT_AFTER.match(question[end:end + 9])),
                               money=money_before(question, start))
        except Unwritable:
            # "twice", "a dozen", "thrice", "a week": a quantity the words carry that no other
            # value can be written in; it keeps its value (the others may move)
            style = Style("word")
            fixed = fixed or f"{words!r} cannot be written with another value"
        givens.append(Given(g["name"], value, start, end, words, kind, style, fixed,
                            unit_cap(question, end), bool(_TIMES_AFTER.match(question[end:end + 12]))))
    _check_places(question, givens)
    factors = tuple(str(f.get("value") if isinstance(f, dict) else f)
                    for f in content.get("factors") or [])
    return Bindings(tuple(givens), factors)


_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b)")
_TIMES_AFTER = re.compile(r"\s*times\b", re.IGNORECASE)
_ORDINAL_AFTER = re.compile(r"^(?:st|nd|rd|th)(?![A-Za-z])", re.IGNORECASE)
_ORDINAL_PLURAL_AFTER = re.compile(r"^(?:st|nd|rd|th)s(?![A-Za-z])", re.IGNORECASE)
_PARTS_WORD_AFTER = re.compile(r"^\s+(?:thirds|quarters|fourths|fifths|sixths|sevenths|eighths|ninths|tenths)\b",
                               re.IGNORECASE)
_CLOCK_BEFORE = re.compile(r"\d:\s*$")
_CLOCK_AFTER = re.compile(r"^\s*(?::\d\d|\s*(?:a\.?m\.?|p\.?m\.?|o'clock)\b)", re.IGNORECASE)


#: "N <unit> a/per/each/every/in a <period>": the most N can be (a week has 7 days)
_CAPS: tuple[tuple[str, str, int], ...] = (
    ("days?", "week", 7), ("weeks?", "year", 52), ("months?", "year", 12), ("days?", "year", 366),
    ("days?", "month", 31), ("hours?", "day", 24), ("hours?", "week", 168),
    ("minutes?", "hour", 60), ("seconds?", "minute", 60), ("weeks?", "month", 5),
)
_CAP_RES = tuple((re.compile(rf"^\s*(?:full\s+|whole\s+)?{unit}\s+(?:a|an|per|each|every|in\s+a|in\s+each|of\s+the|"
                             rf"in\s+the)\s+{period}\b", re.IGNORECASE), cap)
                 for unit, period, cap in _CAPS)


def unit_cap(question: str, end: int) -> Fraction | None:
    """The most a given can be by the unit the question writes after it ("5 days a week":
    7, "50 weeks a year": 52), or None: a variant must not read "60 weeks a year"."""
    tail = question[end:end + 40]
    for rx, cap in _CAP_RES:
        if rx.match(tail):
            return Fraction(cap)
    return None


def _fixed(question: str, start: int, end: int, value: Fraction) -> str:
    """Why a given's value may not move: part of a clock time (``5:00 PM``, ``7 am``) or a
    calendar year (``2015``): other values would not read as the same kind of thing."""
    if _CLOCK_AFTER.match(question[end:end + 12]) or _CLOCK_BEFORE.search(question[max(0, start - 3):start]):
        return "a clock time"
    if value.denominator == 1 and 1800 <= value <= 2100 and question[start:end].isdigit():
        return "a calendar year"
    if _ORDINAL_AFTER.match(question[end:end + 3]):
        return "an ordinal"          # "the 3rd floor": "5rd" or "Xrd" would not read
    if "/" in question[start:end] and _ORDINAL_PLURAL_AFTER.match(question[end:end + 4]):
        # "bounces to 2/3rds of its height": "2/5rds" would not read
        return "a fraction written with its ordinal's ending"
    if _PARTS_WORD_AFTER.match(question[end:end + 12]):
        return "the numerator of a fraction in words"  # "3 quarters of": "1 quarters" would not read
    if _LEGS_AFTER.match(question[end:end + 12]):
        return "the legs of an animal"   # "18 5-legged animals" is no animal
    if _BILL_AFTER.match(question[end:end + 16]):
        return "a bill's denomination"   # "pays with a 26 dollar bill" (read18): no such bill
    if _conversion(question, start, end, value):
        # "there are 8 ounces in a cup of water" (GSM8K train 2465, lane gold8): a variant read
        # "there are 5 ounces in a cup", a story that states a false unit
        return "a unit conversion the question states"
    if value.denominator == 1 and 2 <= value <= 12 and _names_listed(question, start, end) == value:
        # "Four children are playing -- Akbar, Alessandro, Helene, and Wilfred": five would
        # contradict the list
        return "the count of the names its sentence lists"
    if value == 1 and _SINGULAR_AFTER.match(question[end:end + 24]):
        # "1 hour", "one dollar": the noun after it is singular, "2 hour" would not read
        return "one of a unit: the noun after it is singular"
    return ""


#: a list of names: "Akbar, Alessandro, Helene, and Wilfred", "Tom and Jerry"
_NAME_LIST = re.compile(r"\b[A-Z][a-z]+(?:,\s+[A-Z][a-z]+)*,?\s+(?:and|&)\s+[A-Z][a-z]+\b")


def _names_listed(question: str, start: int, end: int) -> int:
    """The most names one list of the given's sentence holds (0 when none)."""
    left = max(question.rfind(". ", 0, start), question.rfind("? ", 0, start)) + 1
    stops = [i for i in (question.find(". ", end), question.find("? ", end)) if i >= 0]
    right = min(stops) if stops else len(question)
    best = 0
    for m in _NAME_LIST.finditer(question, left, right):
        best = max(best, len(re.findall(r"[A-Z][a-z]+", m.group(0))))
    return best


#: a singular noun right after a number: a word that does not end in s ("1 hour", "1 dollar",
#: "1 large pizza"; a hyphenated "1-hour class" reads as well with 2). A word such as "each"
#: or "more" is no noun of the number; an adjective before a singular noun is held too
#: (holding is the safe side: the other givens may still move)
_SINGULAR_AFTER = re.compile(r"^\s(?!(?:and|or|to|of|in|at|on|for|per|each|more|less|than|"
                             r"times|percent|%)\b)[A-Za-z]+(?<!s)\b")


_LEGS_AFTER = re.compile(r"^(?:-|\s)?(?:legged\b|legs?\b)", re.IGNORECASE)
#: a bill's denomination: "a 20 dollar bill", "$5 bills", "twenty-dollar bills", "a 10-euro note"
_BILL_AFTER = re.compile(r"^(?:[- ](?:dollars?|euros?|pounds?))?[- ](?:bills?|notes?)\b", re.IGNORECASE)

#: true unit conversions (smaller unit, larger unit) -> how many of the smaller make one larger
_CONVERSIONS: dict[tuple[str, str], int] = {
    ("ounce", "cup"): 8, ("ounce", "pound"): 16, ("ounce", "gallon"): 128, ("ounce", "pint"): 16,
    ("ounce", "quart"): 32, ("cup", "pint"): 2, ("cup", "quart"): 4, ("cup", "gallon"): 16,
    ("pint", "quart"): 2, ("pint", "gallon"): 8, ("quart", "gallon"): 4, ("tablespoon", "cup"): 16,
    ("teaspoon", "tablespoon"): 3, ("inch", "foot"): 12, ("inch", "yard"): 36, ("foot", "yard"): 3,
    ("foot", "mile"): 5280, ("yard", "mile"): 1760, ("centimeter", "meter"): 100,
    ("millimeter", "centimeter"): 10, ("millimeter", "meter"): 1000, ("meter", "kilometer"): 1000,
    ("milliliter", "liter"): 1000, ("gram", "kilogram"): 1000, ("pound", "ton"): 2000,
    ("second", "minute"): 60, ("minute", "hour"): 60, ("hour", "day"): 24, ("day", "week"): 7,
    ("month", "year"): 12, ("week", "year"): 52, ("day", "year"): 365, ("cent", "dollar"): 100,
    ("penny", "dollar"): 100, ("nickel", "dollar"): 20, ("dime", "dollar"): 10, ("quarter", "dollar"): 4,
    ("year", "decade"): 10, ("year", "century"): 100, ("egg", "dozen"): 12, ("item", "dozen"): 12,
}
_UNIT_IN_ONE = re.compile(r"^\s*([a-z]+)\s+(?:in|per|to|make|makes|make up|equals?|in one)\s+"
                          r"(?:a|an|one|1|each|every|the)\s+([a-z]+)", re.IGNORECASE)
_ONE_IS_UNITS = re.compile(r"\b(?:a|an|one|1|each|every)\s+([a-z]+)\s+(?:is|equals|has|contains|holds|"
                           r"is equal to|weighs)\s+$", re.IGNORECASE)


def _unit(word: str) -> str:
    """The singular name of a unit word ("ounces", "oz", "feet": "ounce", "ounce", "foot")."""
    w = word.lower()
    if w in _UNIT_FORMS:
        return _UNIT_FORMS[w]
    return w[:-1] if w.endswith("s") and w[:-1] in _UNITS else w


_UNITS = frozenset(u for pair in _CONVERSIONS for u in pair)
_UNIT_FORMS = {"feet": "foot", "inches": "inch", "pennies": "penny", "centuries": "century",
               "oz": "ounce", "lb": "pound", "lbs": "pound", "ml": "milliliter", "kg": "kilogram",
               "km": "kilometer", "cm": "centimeter", "mm": "millimeter", "g": "gram", "min": "minute",
               "mins": "minute", "hr": "hour", "hrs": "hour", "tbsp": "tablespoon", "tsp": "teaspoon"}


def _conversion(question: str, start: int, end: int, value: Fraction) -> bool:
    """Does the question state the given as the true size of one unit in another ("8 ounces
    in a cup", "a foot is 12 inches")? Only a value equal to the real conversion counts."""
    if value.denominator != 1:
        return False
    after = _UNIT_IN_ONE.match(question[end:end + 48])
    if after and _CONVERSIONS.get((_unit(after.group(1)), _unit(after.group(2)))) == value:
        return True
    before = _ONE_IS_UNITS.search(question[max(0, start - 40):start])
    nxt = re.match(r"^\s*([a-z]+)", question[end:end + 20], re.IGNORECASE)
    return bool(before and nxt and _CONVERSIONS.get((_unit(nxt.group(1)), _unit(before.group(1)))) == value)


def _check_places(question: str, givens: list[Given]) -> None:
    """Two givens read from one place; a given's value stated again outside every place."""
    ordered = sorted(givens, key=lambda g: g.start)
    for a, b in itertools.pairwise(ordered):
        if b.start < a.end:
            raise Refusal("given-used-twice", f"givens {a.name} and {b.name} are both read from "
                                              f"the words {a.words!r}: one place in the text, "
                                              f"two quantities of the formalization")
    places = [(g.start, g.end) for g in givens]
    values = {g.value * g.style.scale for g in givens} | {g.value for g in givens}
    for n in question_numbers(question):
        if any(s <= n.start < e or s < n.end <= e for s, e in places):
            continue
        if n.value in values:
            raise Refusal("restated-value", f"the question writes {n.text!r} again outside the "
                                            f"given's place: rewriting one would contradict the "
                                            f"other if they are the same quantity")
