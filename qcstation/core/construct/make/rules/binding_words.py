"""The words that tell what a number a solution's step writes is, before any place of the question
is chosen for it (the tables and helpers :mod:`.binding` reads; no binding happens here).

- :class:`QuestionNumber`: one place of the question that states a number, with the words
  that name it;
- :data:`_FACTOR_STEMS`: the words after a unit factor's value ("100%", "60 minutes") that make
  the use that factor, not a given of equal value;
- :data:`_IMPLIED`: quantities the words imply ("weekends", "weekdays"), named constants;
- :data:`_CONVERSIONS`: divisions that convert a unit ("= 2 hours", "= 40 pairs");
- :data:`_WEEKDAY_LIST`: a list of weekdays the question names (days it counts);
- :func:`per_article`: an article that is a rate's "per" ("pages a day", "$5 an hour"), no count;
- :func:`_sentence_of`, :func:`_counted`: the sentence around a place, and whether a place is
  written as a count;
- :func:`place_by_written_form`: a fraction the step writes as the question writes one place of it;
- :func:`person_in_parentheses`: a 1 the line writes before a name in parentheses ("1 (Mary)").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

@dataclass
class QuestionNumber:
    value: Fraction
    text: str  # as written: "12", "$1,500", "1/2", "three"
    start: int
    slug: str  # the word after it ("millimeters")
    percent: bool = False  # the fraction p/100 of a "p%" the question states
    stems: frozenset[str] = frozenset()  # the words that name it ("lbs", "$"), as stems


# the words after a factor's value that make it that factor in a solution's line
# a line that averages divides by how many things there are, which the question may never state
_AVERAGE_STEMS = frozenset({"aver"})
_FACTOR_STEMS: dict[Fraction, frozenset[str]] = {
    Fraction(100): frozenset({"%", "cent"}), Fraction(60): frozenset({"minu", "seco"}),
    Fraction(24): frozenset({"hour"}), Fraction(7): frozenset({"day"}), Fraction(12): frozenset({"mont", "inch"}),
    Fraction(52): frozenset({"week"}), Fraction(365): frozenset({"day"}),
    Fraction(5): frozenset({"day", "week"}),  # "5 days a week" for the question's "weekdays"
}


#: quantities the words imply: a value the step's line names with these words where the question
#: writes them too ("During the weekends, a total of 100 x 2": the two days of a weekend, not the
#: question's "two 4-week months"; "5 days a week" for its "weekdays") is that named constant
#: (:mod:`.constants`), never a given of equal value with other words
_IMPLIED: dict[Fraction, re.Pattern[str]] = {
    Fraction(2): re.compile(r"\bweekends?\b", re.I),
    Fraction(5): re.compile(r"\bweekdays?\b", re.I),
}


#: divisions that convert a unit: value -> (the line's result in the new unit, the words
#: of the conversion in a sentence of the question)
_CONVERSIONS: dict[Fraction, tuple[re.Pattern[str], re.Pattern[str]]] = {
    Fraction(2): (re.compile(r"=\s*\$?[\d.,]+\s+pairs?\b", re.I), re.compile(r"\bpairs?\b", re.I)),
    Fraction(60): (re.compile(r"=\s*[\d.,]+\s+hours?\b", re.I),
                   re.compile(r"\bhours?\b|\bhourly\b|\bminutes?\b|\bmph\b", re.I)),
}


#: a list of weekdays the question names ("Mondays, Wednesdays, and Fridays"): days it counts
_WEEKDAY_LIST = re.compile(r"(?:(?:Sun|Mon|Tues|Wednes|Thurs|Fri|Satur)days?(?:,\s+|,?\s+and\s+))+"
                           r"(?:Sun|Mon|Tues|Wednes|Thurs|Fri|Satur)days?")


def _sentence_of(question: str, at: int) -> str:
    """The sentence of the question around position ``at``."""
    a = max((m.end() for m in re.finditer(r"[.?!;](?:\s|$)", question[:at])), default=0)
    m = re.compile(r"[.?!;](?:\s|$)").search(question, at)
    return question[a:m.end() if m else len(question)]


_ANNOTATION = re.compile(r"<<[^<>]*>>")
_NUMBER_WORD_VALUES = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_LINE_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?|\b(?:" + "|".join(_NUMBER_WORD_VALUES) + r")\b", re.I)


def _counted(text: str) -> bool:
    """Is a place written as a count (digits, "$4", or a number word), not as a word that is a
    unit itself ("dozen")?"""
    return text[:1].isdigit() or text[:1] in "$." or text.lower() in _NUMBER_WORD_VALUES


#: what comes before a rate's article: a number or "how many", then at most two words of what it
#: counts ("20 pages a day", "how many pages a day", "$5 an hour", "3 times a week", "twice a week")
_BEFORE_PER = re.compile(r"(?:\d[\d,.]*%?|\bhow\s+(?:many|much)|\bonce|\btwice|\bthrice|\b(?:one|two|three|four|five|six"
                         r"|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred))\s+"
                         r"(?:[A-Za-z'’-]+\s+){0,2}\Z", re.I)


def per_article(question: str, start: int) -> bool:
    """Is the article at ``start`` ("a day") the "per" of a rate the question states ("how many
    pages a day", "60 miles an hour", "twice a week"), not one thing it counts ("takes a day
    off")? A rate's unit is never a term of a sum or difference ("26 days - 1 day" for "the one
    day" of "100 pages on the 23rd" is no "pages a day")."""
    return bool(_BEFORE_PER.search(question[max(0, start - 40):start]))



def place_by_written_form(text: str, v: Fraction, line: str, nums: list[QuestionNumber], occ: list[int]) -> int | None:
    """The place of a fraction ``v`` the step writes as ``text`` where its form tells the places
    apart: "3/5*400" for the question's "3/5 of the mangoes" beside "60%" (a percent, which the
    solution writes "60/100"). Only a fraction that is no whole number, stated as a percent at one
    place and as "a/b" at the other, on a line that names no percent ("60% is 3/5, so 3/5*240" is
    the percent's); a decimal (".6") is either's form, never read here; else None."""
    places = list({nums[j].start: j for j in occ}.values())
    text = text.replace(" ", "")
    if v.denominator == 1 or len(places) != 2 or "/" not in text or text.endswith("/100") \
            or re.search(r"%|\bpercent", line, re.I):
        return None
    percents = [j for j in places if nums[j].percent]
    written = [j for j in places if not nums[j].percent and nums[j].text.replace(" ", "") == text]
    return written[0] if len(percents) == 1 and len(written) == 1 else None


#: a name in parentheses right after a number ("1 (Mary) + 2 friends")
_PAREN_NAME = re.compile(r"\s*\(\s*[A-Z][a-z]+\s*\)")


def person_in_parentheses(line: str, nth: int) -> bool:
    """Does the line write its ``nth`` 1 right before a name in parentheses ("There are 1 (Mary) + 2
    friends = 3 people")? Then the 1 counts that person, never a place of the question that states 1
    ("a liter of oil that costs $1")."""
    prose = _ANNOTATION.sub(" ", line[:2000])
    ones = [m for m in re.finditer(r"(?<![\d.$/])1(?![\d.,/])", prose)]
    return nth < len(ones) and _PAREN_NAME.match(prose, ones[nth].end()) is not None
