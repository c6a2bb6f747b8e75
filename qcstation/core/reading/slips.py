"""Slips of a solution's prose that its question contradicts: a number no one states where the
question counts the same noun with another number ("Clara sells 3300 cookies total because
600+1600+1120=3320" beside "12 cookies per box"; "in 9 weeks he will spend" for "in 6 weeks"),
or a money amount no one states ("half the original $68 price" for "$48"), or a comparison
with another ordinal than the question's ("ten more puppies than the third week" for "than he
adopted on the first week"). GSM8K's solutions
carry such slips; key information that copies a line (:mod:`qcstation.core.construct.make.unknowns`)
and the correct chain of thought that errors are injected into
(:mod:`qcstation.core.construct.make.inject`) would ship them as true.

A number is no slip where the question or a computation states its value (``known``), where it
is 0 or 1, a unit's constant ("12 inches in a foot"), a coin's worth, a count after "first" or
"next" ("the first 2 pages"), where the question's number of the same noun is a rate ("every 2
years": "after 6 years" is no contradiction), where it counts fewer days (weeks, hours, ...) than the question's ("in 2 days" of "3
days": a part of the period), or where it is a part that sums stated numbers ("9 students" of
"10 students, 5 of which ... and 4 of which"). Reads bounded text (the first 20,000 characters)."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from qcstation.core.reading.answers import written_numbers
from qcstation.core.reading.textnumbers import numbers_in
from qcstation.core.reading.word_values import NUMBER_WORD_VALUES

__all__ = ["QuestionCounts", "answer_unreached", "computation_numbers", "dozen_dropped", "line_slip", "noun_key",
           "question_counts", "slip_in"]

_MAX = 20_000
#: a number written in digits (not a label "Q2", an ordinal "2nd", a fraction's part "2/5", a
#: percent), its money sign and the word after it
_DIGITS_WRITTEN = re.compile(r"(?<![\w.,/])(?<!\d\s)(?<!\b[Ff]irst\s)(?<!\b[Nn]ext\s)(?<!\b[Ll]ast\s)(\$?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                             r"(?![\w/%]|\.\d|,\d|\s*percent\b)(?:\s+([A-Za-z]+))?")
#: a number the question states in digits or in words, and the word after it ("six gorillas")
_STATED_BEFORE_WORD = re.compile(r"(?<![\w.,/])(?<!\b[Ee]very\s)(?<!\b[Ee]ach\s)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[A-Za-z]+)\s+([A-Za-z]+)")
#: a count of time: "for 3 days" of a question's "4 days" is a part of the period, no slip
_PERIODS = frozenset({"day", "week", "month", "year", "hour", "minute", "second", "night", "game", "round"})
#: how many of a unit a larger one holds ("12 inches in a foot", "16 ounces per pound"): a named
#: constant of the unit, no slip where a line writes it
_UNIT_FACTORS: dict[str, frozenset[int]] = {
    "inch": frozenset({12, 36}), "hour": frozenset({24, 168}), "ounce": frozenset({16, 32, 128}),
    "minute": frozenset({60, 1440}), "second": frozenset({60, 3600}), "cent": frozenset({100}),
    "day": frozenset({7, 28, 29, 30, 31, 365, 366}), "week": frozenset({4, 52}), "month": frozenset({12}),
    "egg": frozenset({12}), "foot": frozenset({3, 5280}), "feet": frozenset({3, 5280}),
    "gram": frozenset({1000}), "ml": frozenset({1000}), "milliliter": frozenset({1000}),
    "centimeter": frozenset({100}), "meter": frozenset({100, 1000}), "millimeter": frozenset({10, 1000}),
    "pound": frozenset({2000}), "quart": frozenset({4}), "pint": frozenset({2}), "cup": frozenset({2, 4, 16}),
    "year": frozenset({10, 100}), "leg": frozenset({2, 4, 6, 8}), "wheel": frozenset({2, 3, 4}),
}
#: a coin's worth in dollars ("$.25" for a quarter): a named constant, no slip
_COINS = frozenset({Fraction(1, 100), Fraction(5, 100), Fraction(10, 100), Fraction(25, 100), Fraction(50, 100)})
#: a number that an operator or "=" stands beside: a computation's ("600+1600+1120=3320")
_IN_COMPUTATION = re.compile(r"[-+*/×÷=−(x]\s*\$?$")
_BEFORE_OPERATOR = re.compile(r"^\s*\)?\s*(?:[-+*/×÷=−]|x\s*\$?\d)")
_NUMBER = re.compile(r"(?<![\w.,])\$?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")
_ANNOTATION = re.compile(r"<<([^<>]{0,400})>>")
#: "ten more puppies than the third week": a comparison whose other side is an ordinal or a weekday,
#: in the question after a few words ("than he adopted on the first week"), in a solution right after "than"
_ORDINAL = (r"(first|second|third|fourth|fifth|sixth|seventh|last|previous|monday|tuesday|wednesday|thursday|"
            r"friday|saturday|sunday)\b")
_COMPARED_IN_QUESTION = re.compile(r"\b(\w+)\s+(more|fewer|less)\s+([a-z]+\s+)?than\s+(?:[a-z']+\s+){0,4}?"
                                   r"(?:the\s+|on\s+)?" + _ORDINAL, re.I)
_COMPARED_IN_SOLUTION = re.compile(r"\b(\w+)\s+(more|fewer|less)\s+([a-z]+\s+)?than\s+(?:the\s+|on\s+(?:the\s+)?)?"
                                   + _ORDINAL, re.I)


def _value(digits: str) -> Fraction | None:
    """A numeral's value, or None past 40 characters (a hostile run of digits reads as no number)."""
    return Fraction(digits.replace(",", "")) if len(digits) <= 40 else None


def noun_key(word: str) -> str:
    """A noun with its plural's ending taken off ("cookies" -> "cooky" as "cooky" is, "inches"
    -> "inch", "pens" -> "pen"): two forms of one noun read as one key."""
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("es") and w[:-2].endswith(("s", "x", "ch", "sh")):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


class QuestionCounts:
    """The numbers a question states before each noun, whether it states money, and every value
    it states (digits or number words)."""

    def __init__(self, question: str) -> None:
        text = question[:_MAX]
        self.by_noun: dict[str, set[Fraction]] = {}
        for m in _STATED_BEFORE_WORD.finditer(text):
            raw = m.group(1)
            if raw[0].isalpha():
                word_value = NUMBER_WORD_VALUES.get(raw.lower())
                if word_value is None:
                    continue
                value = Fraction(word_value)
            else:
                read = _value(raw)
                if read is None:
                    continue
                value = read
            self.by_noun.setdefault(noun_key(m.group(2)), set()).add(value)
        self.money = "$" in text
        self.said = numbers_in(text)
        #: "ten more puppies" -> the ordinals or weekdays the question compares it with
        self.compared: dict[str, set[str]] = {}
        for m in _COMPARED_IN_QUESTION.finditer(text):
            self.compared.setdefault(_comparison_key(m), set()).add(m.group(4).lower())


@functools.lru_cache(maxsize=64)
def question_counts(question: str) -> QuestionCounts:
    """:class:`QuestionCounts` of ``question``, read once per question (shared: callers only
    read it): the key information's unknowns and the chain errors are injected into both check
    a derived item's texts against its question."""
    return QuestionCounts(question)


def _comparison_key(m: re.Match[str]) -> str:
    return f"{m.group(1).lower()} {m.group(2).lower()} {noun_key((m.group(3) or '').strip())}"


def computation_numbers(solution: str) -> set[Fraction]:
    """The values a solution's computations write: inside its calculator annotations, and every
    number an operator or "=" stands beside in its prose ("600+1600+1120=3320")."""
    text = solution[:_MAX]
    out: set[Fraction] = set()
    for m in _ANNOTATION.finditer(text):
        out |= {v for n in _NUMBER.finditer(m.group(1)) if (v := _value(n.group(1))) is not None}
    prose = _ANNOTATION.sub(" ", text)
    for m in _NUMBER.finditer(prose):
        if _IN_COMPUTATION.search(prose[max(0, m.start() - 3):m.start()]) \
                or _BEFORE_OPERATOR.match(prose[m.end():m.end() + 8]):
            value = _value(m.group(1))
            if value is not None:
                out.add(value)
    return out


def _a_sum_of(value: Fraction, stated: set[Fraction]) -> bool:
    """Is ``value`` the sum of two or three different numbers of ``stated`` (its first 40)?"""
    vals = sorted(stated)[:40]
    pairs = {a + b for i, a in enumerate(vals) for b in vals[i + 1:]}
    return value in pairs or any(value - c in pairs for c in vals)


def slip_in(text: str, counts: QuestionCounts, known: set[Fraction]) -> str | None:
    """The first slip of ``text`` that the question contradicts, said for a reader ("'3300
    cookies', a number neither the question nor any computation states"; "'ten more puppies than
    the third', where the question compares with the first"), or None. ``known``: the values the
    computations and steps state, beside the question's own (``counts.said``). A comparison is a
    slip where the question makes the same one ("ten more puppies than") with one other ordinal
    or weekday."""
    everything = counts.said | known
    text = text[:_MAX]
    for m in _DIGITS_WRITTEN.finditer(text):
        value = _value(m.group(2))
        if value is None or value in everything or value in (0, 1) or value * 100 in everything:
            continue  # (".25 pearls/oyster" for the question's "25%")
        noun = noun_key(m.group(3) or "") if len(m.group(3) or "") > 1 else ""  # "5 A.M." names no noun
        if value in _UNIT_FACTORS.get(noun, ()) or (m.group(1) and value in _COINS):
            continue
        theirs = counts.by_noun.get(noun, set()) - {value} if noun else set()
        if noun in _PERIODS and any(value < v for v in theirs):
            continue
        if noun not in _PERIODS and not m.group(1) and all(value < v for v in theirs) \
                and _a_sum_of(value, counts.said):
            continue  # "9 students" of "10 students, 5 of which ... and 4 of which": a part the words imply
        if theirs or (m.group(1) and counts.money):
            return f"{m.group(0).strip()!r}, a number neither the question nor any computation states"
    for m in _COMPARED_IN_SOLUTION.finditer(text):
        theirs_at = counts.compared.get(_comparison_key(m), set())
        if len(theirs_at) == 1 and m.group(4).lower() not in theirs_at:
            return f"{m.group(0).strip()!r}, where the question compares with the {next(iter(theirs_at))}"
    return None


#: "200 dozen cookies", "two dozens of eggs": a count of dozens of a noun
_DOZENS = re.compile(r"(?<![\w.,])(\d{1,6}|[a-z]+)\s+dozens?\s+(?:of\s+)?([a-z]{3,})", re.I)
_TWELVE = re.compile(r"\b(?:12|twelve|dozens?)\b", re.I)


def dozen_dropped(line: str, question: str) -> str | None:
    """A line that writes the question's "N dozen <noun>" as "N <noun>" and never multiplies by
    12 ("to bake 200 cookies, you'll need 200/4" for "200 dozen cookies", held-out GSM8K train
    4943): the solution answers another question than the one asked, so its gold is wrong for
    it. The words that say which quantity (and "dozen" or 12 anywhere on the line) leave it be."""
    dozens = _dozens(question[:_MAX])
    if not dozens:
        return None
    prose = _ANNOTATION.sub(" ", line[:_MAX])
    if _TWELVE.search(prose):
        return None
    for count, stem, written in dozens:
        phrase = re.compile(rf"(?<![\w.,$]){re.escape(count)}\s+{re.escape(stem)}s?\b", re.I)
        said = phrase.search(prose)
        if said and not phrase.search(question[:_MAX]):  # ("two bandages on her left knee" the question's own)
            return f"{said.group(0)!r} for the question's {written!r}"
    return None


@functools.lru_cache(maxsize=64)
def _dozens(question: str) -> tuple[tuple[str, str, str], ...]:
    """(count, noun stem, words) of each count of dozens the question states ("200 dozen
    cookies": "200", "cookie"), read once per question (:func:`dozen_dropped` is asked of every
    solution line, most questions state none)."""
    out = []
    for m in _DOZENS.finditer(question):
        count, noun = m.group(1), m.group(2).lower()
        if not count[0].isdigit() and count.lower() not in NUMBER_WORD_VALUES:
            continue
        out.append((count, noun[:-1] if noun.endswith("s") else noun, m.group(0)))
    return tuple(out)


#: a number whose thousands groups are malformed ("$3,6000.00", "$100,00", "16,0000"): no number as
#: written; a list ("days 4,5,6 and 7", "13,15,17&19") is none
_MALFORMED = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})*,(?:\d{1,2}|\d{4,})(?!\d|,\d|\s*&)")


def line_slip(line: str, question: str) -> str | None:
    """Why a solution line is no correct line of its question as written, read from the two texts
    alone (for key information and the chain errors are injected into): a count of dozens written
    as the count (:func:`dozen_dropped`), the wrong one of parallel entities named
    (:func:`~qcstation.core.reading.name_slips.name_slip`), or a number with malformed thousands
    groups ("Dawn will make $3,6000.00" for the question's "$3,600.00"). None if none is found."""
    from qcstation.core.reading.name_slips import name_slip

    found = dozen_dropped(line, question) or name_slip(line, question)
    if found is None:
        m = _MALFORMED.search(_ANNOTATION.sub(" ", line[:_MAX]))
        found = f"{m.group(0)!r}, a number written with malformed thousands" if m else None
    return found


#: the scales a final answer may be written in apart from its lines' unit (cents of dollars, minutes of hours)
_SCALES = tuple(Fraction(n, d) for n, d in ((1, 1), (100, 1), (1, 100), (1000, 1), (1, 1000), (60, 1), (1, 60)))
#: a thousands separator written as a space ("$400 000")
_SPACED_THOUSANDS = re.compile(r"(?<=\d) (?=\d{3}\b)")


def answer_unreached(lines: list[str], value: Fraction) -> bool:
    """Do a worked solution's lines compute (write "=") and never write its final answer, in digits or
    words, in any of the scales its unit may change by? "Including his bonus, James scored a total of
    48 + 16 = 64 points." over "#### 66": the gold answers another reading than the lines (held-out
    GSM8K train, read22), so a chain of thought that ends "The answer is 66." is not correct as written."""
    body = _SPACED_THOUSANDS.sub("", " ".join(lines)[:_MAX])
    if "=" not in body:
        return False
    found = written_numbers(body, signed=True) | numbers_in(body)
    return not any(value * s in found for s in _SCALES)
