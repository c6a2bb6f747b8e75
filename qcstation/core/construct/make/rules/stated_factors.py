"""The words of the question that state a named constant's value (issue 26): a number the question
gives in words and no digit, which a formalization declares as a named constant ``k_...``: "a
round trip", "there and back", "to and from school" (2 ways), "both" (2), "buy one get one free"
(2 items for the price of one), "every other day" (every 2nd), "pairs", "couples" (2 each), "her
parents" (2), "twins" (2), "Monday to Friday" (5 days), "from Sunday through Wednesday" (4 days),
"the third day" (3 days up to it), "the third floor" (3 stories up to it).

A key information lists the clause that states such a constant with the other stated numbers
(:mod:`..keyinfo_draft`): a reader who is given the known quantities must find every number the
solution uses among them. A constant of a unit (60 minutes an hour, 7 days a week, 100 cents a
dollar) or of a fact the words name (a coin's worth, an animal's legs) is no number the question
states: it has no words here.
"""

from __future__ import annotations

import re

from qcstation.core.construct.make.rules.unstated import BUY_ONE_GET_ONE, ONE_WAY_WORDS

__all__ = ["stated_words"]

_WORDS: dict[str, str] = {
    "k_ways_of_a_round_trip": ONE_WAY_WORDS,
    "k_both": r"\bboth\b",
    "k_items_per_buy_one_get_one": BUY_ONE_GET_ONE,
    "k_every_second": r"\bevery (?:second|other)\b",
    "k_per_pair": r"\bpairs?\b",
    "k_per_couple": r"\bcouples?\b|\bpaired\b",
    "k_parents_of_one_person": r"\b(?:her|his|my|your)\s+parents\b",
    "k_twins": r"\btwins\b",
    # the five days "Monday to Friday" name (never "weekdays", "school days": a week's days)
    "k_weekdays_per_week": r"\bmondays?\s*(?:through|thru|to|until|till|[-–])\s*fridays?\b",
}

_RANGE_NAME = re.compile(r"k_days_([a-z]+)_through_([a-z]+)")
_UP_TO_NAME = re.compile(r"k_(days|stories)_(?:through|up_to)_the_([a-z]+)_(day|floor)")


def stated_words(name: str) -> re.Pattern[str] | None:
    """The words that state the named constant ``name`` where a question writes them (any case), or
    None for a constant no words of the question state (a unit's, a percent's, a fact's)."""
    if name in _WORDS:
        return re.compile(_WORDS[name], re.I)
    m = _RANGE_NAME.fullmatch(name)
    if m:
        return re.compile(rf"\b{m.group(1)}s?\s*(?:through|thru|to|until|till|[-–])\s*"
                          rf"(?:the\s+end\s+of\s+the\s+day\s+on\s+)?{m.group(2)}s?\b", re.I)
    m = _UP_TO_NAME.fullmatch(name)
    if m:
        return re.compile(rf"\b{m.group(2)}\s+{m.group(3)}\b", re.I)
    return None
