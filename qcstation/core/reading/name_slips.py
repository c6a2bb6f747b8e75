"""A solution line that names the wrong person or place for its numbers (issue 26): "Then find
the number of students in Mr. Feldstein's class who prefer goldfish: 1/6 * 30 students" where
the question's 1/6 is Miss Johnson's class and Mr. Feldstein's class is the 2/3 an earlier line
took (held-out GSM8K train, read18). Key information that copies such a line, and the correct
chain of thought errors are injected into, would ship the slip as true.

:func:`name_slip` reads a line against the question alone: the names the line writes (a capitalized
word that is no sentence's first word, no title "Mr", no weekday or month) and, for each, the
question's sentences that write it. A line whose numbers stand in the question's sentences only
apart from every sentence of a name it writes, while a sentence of that name states another
number that the line does not write, names the wrong one: "Mr. Feldstein" is in the sentence of
2/3 only, the line computes with 1/6 and 30, neither in that sentence. A name the question writes
in a sentence with no number, or in a sentence that also states one of the line's numbers, is no
slip; neither is a line with no number of the question (it says nothing of whose they are).
Reads bounded text (the first 20,000 characters of each)."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from qcstation.core.reading.answers import written_numbers

__all__ = ["name_slip"]

_MAX = 20_000
_NAME = re.compile(r"(?<![\w'’])([A-Z][a-z]{2,})(?:['’]s)?\b")
#: a sentence: a title's stop ("Mr.") and a decimal point ("2.5") end none
_SENTENCE = re.compile(r"(?:[^.!?]|(?<=\bMr)\.|(?<=\bMrs)\.|(?<=\bMs)\.|(?<=\bDr)\.|(?<=\bSt)\.|\.(?=\d))+(?:[.!?]+|$)")
#: capitalized words that name no one
_NOT_NAMES = frozenset("""The This That These Those There Then Than Thus Therefore Hence So And But Or If When
    After Before Since Because While Each Every Both All Some Most Many How What Which Who Whom Where Why His Her
    Hers Their They She He Its Our Your Mrs Miss Mr Ms Dr Find First Second Third Next Last Finally Altogether
    Together Total In On At For From With Without Adding Subtracting Multiplying Dividing Now Also Since
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July
    August September October November December One Two Three Four Five Six Seven Eight Nine Ten Half""".split())
def _names(text: str) -> set[str]:
    """The capitalized words of ``text`` that are no sentence's first word and no function word."""
    out: set[str] = set()
    for s in _SENTENCE.finditer(text):
        for k, m in enumerate(_NAME.finditer(s.group(0))):
            first = k == 0 and not s.group(0)[:m.start()].strip()
            if not first and m.group(1) not in _NOT_NAMES:
                out.add(m.group(1))
    return out


@functools.lru_cache(maxsize=64)
def _sentences(question: str) -> tuple[tuple[str, frozenset[Fraction]], ...]:
    """The question's sentences, each with the numbers it writes: read once per question (a
    solution's every line is read against it, by the key information and again by the chain
    errors are injected into)."""
    return tuple((s.group(0), frozenset(written_numbers(s.group(0)))) for s in _SENTENCE.finditer(question))


def name_slip(line: str, question: str) -> str | None:
    """Why ``line`` names another person or place than the one its numbers are the question's
    for (see the module docstring), or None."""
    line, question = line[:_MAX], question[:_MAX]
    sentences = _sentences(question)
    prose = re.sub(r"<<[^<>]{0,400}>>", " ", line)
    used = written_numbers(prose)
    # the line's numbers the question states, each in the sentences that state it
    stated = {v for v in used for _s, vals in sentences if v in vals}
    if not stated:
        return None
    written = _names(prose)
    theirs = [s for s, vals in sentences if vals & stated]
    if any(re.search(rf"\b{n}\b", t) for n in written for t in theirs):
        return None  # the line names whose the numbers are ("Billy spits 30 inches and Madison 6 farther")
    for name in sorted(written):
        of_name = [(s, vals) for s, vals in sentences if re.search(rf"\b{name}\b", s)]
        numbered = [(s, vals) for s, vals in of_name if vals]
        if not of_name or len(numbered) != len(of_name) or any(vals & stated for _s, vals in numbered):
            continue
        # every sentence of the name states numbers, none of the line's: whose are the line's numbers?
        # only where the name's sentence says of it what another sentence says of the line's numbers
        # ("In Mr. Feldstein's class, 2/3rds of the students preferred goldfish" / "In Miss Johnson's
        # class, 1/6 of the students ..."): one of parallel entities confused, not a relation ("Tom's dad")
        parallel = [t for t in theirs for n, _v in numbered if _alike(n, t)
                    and _names(t) - {name} and not (_names(t) & _names(n))]
        if parallel:
            return f"{name!r} for numbers the question states of another: {parallel[0].strip()[:70]!r}"
    return None


_WORD = re.compile(r"[a-z]+")


def _alike(a: str, b: str) -> bool:
    """Do two sentences say the same of different names (at least half their words shared)?"""
    names = {n.lower() for n in _names(a) | _names(b)}
    wa = {w for w in _WORD.findall(a.lower()) if w not in names and len(w) > 2}
    wb = {w for w in _WORD.findall(b.lower()) if w not in names and len(w) > 2}
    return bool(wa and wb) and len(wa & wb) * 2 >= len(wa | wb)
