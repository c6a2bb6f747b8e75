"""An earlier unknown's value a later unknown's words write as a counting word, named by its Q (for
:mod:`.unknowns`): "Q2: One foot less than 5 feet is ? feet" where Q1 is the one foot (held-out
GSM8K train 265), "Each of the stalls gets four cows, meaning ..." where Q1 is the four new cows
(test 255). Written in digits, such a value is already named (``unknown_describe``); in words it gave
the earlier unknown away. Named only where the words say it is that unknown: the noun after the
word is one its own description writes after its blank ("? foot", "? new cows"), or, with no noun
after it ("added four into each of the stalls"), the unknown's noun is in the description and the
value is not 1 ("one of them"). A coincidence stays as written: "Over the course of one week" where
Q1 is one hour, "between the two choices" where Q1 is $2.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.textnumbers import COUNT_WORD_RE, NUMBER_WORDS, word_key

__all__ = ["earlier_named"]

#: the words after a blank that say what it counts ("? new cows", "? foot less")
_AFTER_BLANK = re.compile(r"\?((?:\s+[A-Za-z][A-Za-z'-]*){1,3})")
#: the words after a counting word, up to a stop
_AFTER_WORD = re.compile(r"((?:\s+[A-Za-z][A-Za-z'-]*){1,2})")
#: a word after a counting word that is no noun of its own ("four into each", "two of the stalls")
_NO_NOUN = frozenset("into to of in on at for per each and or than as by with from more less fewer times".split())
_STOP = frozenset("the a an of to in into on at for per each and or is are was were than as more less fewer new "
                  "total all his her their its".split())
#: a counting word that names which one ("day two", "level three"), or opens a word of its own ("two-thirds")
_INDEX = re.compile(r"\b(?:level|day|week|month|year|round|game|part|step|stage|grade|number|no\.)\s+$", re.I)


def _nouns(words: str) -> set[str]:
    out = set()
    for w in words.lower().split():
        w = w.strip("'")
        if len(w) >= 3 and w not in _STOP:
            out.add(w[:-1] if w.endswith("s") and len(w) > 3 else w)
    return out


def _counted(description: str) -> set[str]:
    """What an unknown's description counts: the nouns after its blank."""
    m = _AFTER_BLANK.search(description)
    return _nouns(m.group(1)) if m else set()


def earlier_named(desc: str, earlier: dict[Fraction, str], described: dict[str, str]) -> str:
    """``desc`` with each counting word whose value is an ``earlier`` unknown's (value -> "Q1": the
    results before this step, less those the question states) named by it, where the words say
    it is that unknown (the module's rules); ``described`` holds each earlier unknown's
    description by its label."""
    if not earlier:
        return desc
    own_nouns = _nouns(desc)

    def named(m: re.Match[str]) -> str:
        value = NUMBER_WORDS[word_key(m.group(0), NUMBER_WORDS)]
        label = earlier.get(value)
        if label is None or desc[m.end():m.end() + 1] == "-" or _INDEX.search(desc[:m.start()]):
            return m.group(0)
        counted = _counted(described.get(label, ""))
        if not counted:
            return m.group(0)
        after = _AFTER_WORD.match(desc, m.end())
        words = after.group(1).split() if after else []
        if words and words[0].lower() not in _NO_NOUN:
            return label if _nouns(" ".join(words)) & counted else m.group(0)
        return label if value != 1 and counted & own_nouns else m.group(0)

    out = COUNT_WORD_RE.sub(named, desc)
    # "(2) two bags" (train 1187) written "(Q5) two bags": the name once
    return re.sub(r"\((Q\d+)\)\s+\1\b", r"\1", out)
