"""The forms of the question's clauses a rule-made key information lists (for :mod:`.keyinfo_draft`):
a number phrase with no verb of its own outside the clause said of it ("and 9 fewer rose stamps
than truck stamps", "and 3 hours before he has to eat dinner", "and 1 king set of sheets at a
time") is said by the clause before it, never a known quantity cut from it (633, 689, 1057: the
reading floor takes "rose", "has", "set" for the verb); and the one item of "N x and M y were
absent" whose number the solution never uses is a distractor of its own, said with the list's
verb ("On Friday, 5 fourth-grade girls were absent", 365).
"""

from __future__ import annotations

import re
from typing import Callable

from qcstation.core.reading.clauses import is_verb_form

__all__ = ["locate", "unused_list_items", "verbless_number_phrase"]

#: what ends a number phrase: the clause said of it ("that can hold", "than truck stamps",
#: "before he has to eat", "as they do boys")
_SAID_OF = re.compile(r"\b(?:that|which|who|whose|than|as|before|after|until|when|where|while|because|if)\b", re.I)
#: a word that is a verb wherever it stands
_FINITE = frozenset("is are was were am be been has have had do does did will would can could shall should "
                    "may might must".split())
_NUMBER_HEAD = re.compile(r"(?:and\s+)?\$?\d[\d,]*(?:\.\d+)?(?:/\d+)?%?\s+"
                          r"(?P<comparing>(?:more|fewer|less|as\s+(?:many|much))\s+)?", re.I)


def verbless_number_phrase(clause: str, before: str = "") -> bool:
    """Is ``clause`` a number phrase with no verb of its own: it opens with a number (after
    "and"), and up to the clause said of it no word can be a verb ("and 3 hours before he has to
    eat dinner"); in a comparison ("and 9 fewer rose stamps than truck stamps", "and 1/10 as
    many nongendered children as they do boys") or a phrase that ends as the clause ``before``
    it does in four words that are no verb ("... 2 twin sets of sheets at a time and 1 king set of
    sheets at a time"), none is
    a form of be/have/do or a modal ("rose", "set" are nouns there)?"""
    text = clause.strip(" ,;:.")
    head = _NUMBER_HEAD.match(text)
    if head is None:
        return False
    said = _SAID_OF.search(text, head.end())
    words = [w.lower() for w in re.findall(r"[A-Za-z']+", text[head.end():said.start() if said else len(text)])]
    if not words:
        return False
    if not any(is_verb_form(w) for w in words):
        return True
    tail = [w.lower() for w in re.findall(r"[A-Za-z']+", before)][-4:]
    # (a tail that holds a verb is a clause said again: "Four students each drank 1.5 quarts of tea
    # and 16 students each drank 2 quarts of tea", 809)
    parallel = len(tail) == 4 and [w.lower() for w in re.findall(r"[A-Za-z']+", text)][-4:] == tail \
        and not any(is_verb_form(w) for w in tail)
    return bool(head.group("comparing") or parallel) and not any(w in _FINITE for w in words)


#: "On Friday, 5 fourth-grade girls and 4 fourth-grade boys were absent": two number phrases
#: joined by "and", then the verb said of both
_TWO_ITEMS = re.compile(r"(?P<lead>(?:[A-Z][^,;:]{0,40},\s+)?)(?P<a>\$?\d[\d,.]*\s+[^,;:]{1,40}?)\s+and\s+"
                        r"(?P<b>\$?\d[\d,.]*\s+[^,;:]{1,40}?)\s+(?P<verb>(?:were|was|are|is)\s+[a-z]+)\.?")


def unused_list_items(sentence: str, unused: Callable[[str], bool]) -> list[str]:
    """The item of ``sentence`` ("On Friday, 5 fourth-grade girls and 4 fourth-grade boys were
    absent") whose number the solution never uses, said with the lead phrase and the verb they
    share ("On Friday, 5 fourth-grade girls were absent"): the other item's must be used. Only a
    list of two items, each one number phrase, said by one form of "be" and one word."""
    m = _TWO_ITEMS.fullmatch(sentence.strip())
    if m is None:
        return []
    a, b = m.group("a"), m.group("b")
    if unused(a) == unused(b):
        return []
    item = a if unused(a) else b
    verb = m.group("verb")
    if re.match(r"1\s", item):
        return []  # ("1 girl were absent": the verb says many)
    return [f"{m.group('lead')}{item} {verb}"]


def locate(question: str, text: str) -> tuple[int, int]:
    """Where ``text`` stands in the question: as written, or from its first comma-separated
    piece to its last (a premise whose "if" went: "At the end of the 8 weeks, she has ...");
    (-1, -1) if not there."""
    at = question.find(text)
    if at >= 0:
        return at, at + len(text)
    pieces = [p for p in text.split(", ") if p]
    if len(pieces) > 1:
        a = question.find(pieces[0])
        b = question.find(pieces[-1], a + len(pieces[0])) if a >= 0 else -1
        if b >= 0 and b - a < len(text) + 40:
            return a, b + len(pieces[-1])
    return -1, -1
