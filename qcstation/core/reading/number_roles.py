"""What the words right after a number say it does: a difference the question compares by ("six
more digits of pi than Carlos", "3 fewer times than Sam", "5 years older than"), added or taken
away and never a factor (:func:`compares_by`).

The checks that read a binding again ask it of a use the line names nothing of
(:func:`qcstation.core.construct.check.units.places_it_can_be`). Every input is untrusted text;
each call reads at most 120 characters from ``start``.
"""

from __future__ import annotations

import re

__all__ = ["compares_by"]

_SPAN = 120

#: a number, up to two words that are no "times"/"percent"/"of"/"as", a comparative, up to four
#: more words, then "than" ("six more digits of pi than", "4 more times than"); never a percent or
#: a fraction ("20% more than", "1/5 more than") or "six times more than": those multiply. A rate's
#: difference ("$3 more per hour than") may be multiplied by its hours: it is none of these.
_COMPARED_BY = re.compile(
    r"(?:\$?\d[\d,]*(?:\.\d+)?(?![\d/%.,])|[A-Za-z]+)(?!\s*(?:%|percent\b))"
    r"\s+(?:(?!times\b|percent\b|of\b|as\b|per\b|an?\b|each\b|every\b)[A-Za-z]+\s+){0,2}?"
    r"(?:more|fewer|less|older|younger|taller|shorter|longer|heavier|lighter|cheaper)\b"
    r"(?:\s+(?!than\b|as\b|per\b|an?\b|each\b|every\b)[A-Za-z-]+){0,4}\s+than\b", re.I)


def compares_by(question: str, start: int) -> bool:
    """Does ``question`` compare by the number it writes at ``start`` (see ``_COMPARED_BY``)?"""
    return start >= 0 and _COMPARED_BY.match(question, start, min(len(question), start + _SPAN)) is not None
