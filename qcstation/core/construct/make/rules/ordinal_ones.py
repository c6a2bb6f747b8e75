"""The one thing an ordinal names (issue 26.1, lane covB): a bare 1 a step adds or takes away
where the question writes "the first <noun>" (or second ... tenth, last, final) and the 1 is one
<noun>: the line writes it as "1 <noun>" ("6 books the first week, and 3 books the second week" /
"1 week + 1 week + 5 weeks"; "she drank the last cup" / "drank 1 cup"), or the step's result counts
that noun, or its noun after one adjective ("the first stripe is red" / "13-1 = 12 stripes left", then
"6+1 = 7 red stripes"; "For the first hour ..." / "4-1 = 3 more hours"). The constant ``k_one_the_first_week`` (value 1, never moved by derive), one per
ordinal phrase.

Only where the noun the ordinal names is the noun of the line's 1 or of its result (never "The
third stick is 6 - 1 = 5 centimeters": the 1 counts centimeters); a step that writes as many such 1s
as the question writes ordinal phrases of that noun takes them all, in the question's order (a sum:
which is which changes nothing); a step's one 1 takes the one phrase of its noun, or of several the
one whose ordinal the line writes. None where the line writes an ordinal of the noun the question
does not ("starting on the second day" / "also ate chips on the first day, so 9 + 1"), and
otherwise: :mod:`.ones` refuses the 1.
"""

from __future__ import annotations

import re

from qcstation.core.reading.words import ANNOTATION, stem

__all__ = ["ordinal_ones"]

_ORDINALS = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final"
_ORDINAL_NOUN = re.compile(rf"\bthe\s+({_ORDINALS})\s+([a-z]+)\b", re.I)
_NOT_A_NOUN = frozenset("""one two three four five six seven eight nine ten few couple half time times of and or
    to is was are were day's""".split())
#: "drank 1 cup", "1 week + 1 week": the noun a bare 1 counts
_ONE_NOUN = re.compile(r"(?<![\w.$/,])1(?![\d.,/])\s+([a-z]+)", re.I)
#: the noun after a step's written result: "<<13-1=12>>12 stripes", "= 3 more hours"
_RESULT_NOUN = re.compile(r"(?:>>|=)\s*\$?\s*\d[\d,]*(?:\.\d+)?\s+(?:more\s+|other\s+|remaining\s+|additional\s+)?"
                          r"([a-z]+)(?:\s+([a-z]+))?", re.I)


def _slug(words: str) -> str:
    return re.sub(r"[^a-z]+", "_", words.lower()).strip("_")[:40]


def _singular(noun: str) -> bool:
    """"the first week", "the last glass", never "the first two" nor "the last days"."""
    w = noun.lower()
    return not w.endswith("s") or w.endswith("ss")


def ordinal_ones(question: str, line: str, count: int) -> list[str] | None:
    """The constants of the ``count`` bare 1s a step adds or takes away that the ordinals of the
    question name (see the module docstring), else None."""
    q = question[:20_000]
    prose = ANNOTATION.sub(" ", line[:2000])
    ones = [stem(m.group(1)) for m in _ONE_NOUN.finditer(prose)]
    results = [[stem(w) for w in m.groups() if w] for m in _RESULT_NOUN.finditer(line[:2000])]
    ordinal_nouns = {stem(m.group(2)) for m in _ORDINAL_NOUN.finditer(q)}
    if ones and len(ones) == count and len(set(ones)) == 1:
        noun = ones[0]
    elif not ones and count == 1 and results:
        # "= 12 stripes left", "= 7 red stripes": the result's noun, or its noun after one adjective
        words = results[-1]
        noun = words[0] if words[0] in ordinal_nouns or len(words) == 1 else words[1]
    else:
        return None
    phrases = list(dict.fromkeys(m.group(0).lower() for m in _ORDINAL_NOUN.finditer(q)
                                 if m.group(2).lower() not in _NOT_A_NOUN and stem(m.group(2)) == noun
                                 and _singular(m.group(2))))
    if not phrases:
        return None
    # "ate chips on the first day" where the question writes only "the second day": another one
    said = {m.group(1).lower() for m in re.finditer(rf"\b({_ORDINALS})\s+([a-z]+)", prose, re.I)
            if stem(m.group(2)) == noun}
    if said - {p.split()[1] for p in phrases}:
        return None
    if count == len(phrases):
        return [f"k_one_{_slug(p)}" for p in phrases]
    if count == 1:
        named = [p for p in phrases if re.search(rf"\b{re.escape(p.split()[1])}\s+{re.escape(p.split()[2])}\b",
                                                 prose, re.I)]
        if len(named) == 1:
            return [f"k_one_{_slug(named[0])}"]
    return None
