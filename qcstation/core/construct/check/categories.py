"""What a solution's words after a number name of the question's place other than its own noun
(issue 26.1), asked by :mod:`.bindings` where those words agree with no place of the value
(:func:`named_by_kind`):

* a category noun: "90 spiders / 3 ... 48 bugs + 30 bugs + 90 bugs" names the question's "90
  spiders" as bugs (399), "400 students" its "400 fifth graders" (807). Only the pairs of this
  small, explicit lexicon count: a category and the nouns that are its members, read as whole
  words (a plural "s" dropped), never by value and never by a word's first letters
  ("millipedes" is a bug, "millimeters" is not);
* the unit of a rate: "80 toothpicks / 10 each week" names the question's "10 toothpicks each
  week" (1079) by what it is each of, "each"/"per"/"every"/"a" and the same word in both texts;
* a relative clause that restates the question's verb: "twice the amount of the 14 that he
  passed out" names "He passes 14 out to his friends" (328) by the verb the question writes right
  before its number, the same word (stem) in both texts.

Either only where one place of the value is so named, and the given's name says it is that place
when the question states the value at several.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.words import MAX_TEXT, NUMERAL, Occurrence, numeral_value, stem

__all__ = ["CATEGORIES", "names_a_member", "named_by_kind", "rate_unit_after"]

#: category noun -> the nouns of its members (singular, lower case)
CATEGORIES: dict[str, frozenset[str]] = {
    "bug": frozenset({"spider", "millipede", "centipede", "ant", "beetle", "cricket", "caterpillar", "ladybug"}),
    "student": frozenset({"grader", "pupil", "freshman", "freshmen", "sophomore"}),
}


def _singular(word: str) -> str:
    w = word.lower().replace("’", "'").split("'")[0]
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def names_a_member(solution_words: list[list[str]], place_text: str) -> bool:
    """Does each of the solution's word lists after the value (``solution_words``: the first word
    of each is what it counts) name a category whose member is a word of the question's place
    (``place_text``: the number as written, then its words, as :class:`~qcstation.core.reading.words.Occurrence`
    keeps them)? Every list must: a line that names the value as a bug once and as a lamp once
    vouches for nothing."""
    place = {_singular(w) for w in place_text.split()[1:]}
    if not solution_words or not place:
        return False
    for words in solution_words:
        head = next((_singular(w) for w in words if w not in ("$", "%")), None)
        if head is None or not CATEGORIES.get(head, frozenset()) & place:
            return False
    return True


_RATE = re.compile(r"\s*(?:[A-Za-z][A-Za-z'’]*\s+){0,2}?(?:each|per|every|a|an)\s+([A-Za-z]+)\b", re.I)


def rate_unit_after(text: str, end: int) -> str | None:
    """The stem of what a number ending at ``end`` is a rate of ("10 toothpicks each week",
    "10 each week": "week"), at most two words after it, before any digit, sign or clause break."""
    m = _RATE.match(text[:MAX_TEXT], end)
    if m is None or re.search(r"[\d=+*/×÷<>()$%.,;:!?]", text[end:m.end()]):
        return None
    return stem(m.group(1))


_RELATIVE = re.compile(r"\s+(?:that|which)\s+(?:he|she|they|we|I|you|it)\s+([A-Za-z]+)\b", re.I)
_WORD_BEFORE = re.compile(r"([A-Za-z]+)\s+$")


def _relative_verbs(line: str, v: Fraction) -> set[str]:
    """The stems of the verbs of the relative clauses right after each place ``line`` writes ``v``
    ("the 14 that he passed out": {"pass"}); an empty string for a place with none."""
    text = line[:MAX_TEXT]
    return {stem(m.group(1)) if (m := _RELATIVE.match(text, n.end())) else ""
            for n in NUMERAL.finditer(text) if numeral_value(n) == v}


def _verb_before(question: str, o: Occurrence) -> str:
    m = _WORD_BEFORE.search(question[max(0, o.start - 30):o.start]) if o.start > 0 else None
    return stem(m.group(1)) if m else ""


def named_by_kind(named: list[list[str]], cands: list[Occurrence], given: str, line: str, question: str,
                  v: Fraction) -> bool:
    """See the module docstring: ``named`` the solution's words after each place its line writes
    ``v``, ``cands`` the places of ``v`` in the question."""
    members = [o for o in cands if names_a_member(named, o.text)]
    if not members:
        rates = {rate_unit_after(line, m.end()) for m in NUMERAL.finditer(line[:MAX_TEXT]) if numeral_value(m) == v}
        if len(rates) == 1 and None not in rates:
            members = [o for o in cands if o.start >= 0 and (at := NUMERAL.match(question, o.start)) is not None
                       and rate_unit_after(question, at.end()) in rates]
    if not members:
        verbs = _relative_verbs(line, v) - {""}  # "2*14" beside it writes the value with no words
        if len(verbs) == 1:
            members = [o for o in cands if o.start >= 0 and _verb_before(question, o) in verbs]
    slug = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", given)
    return len(members) == 1 and (len(cands) == 1 or slug is not None and stem(slug.group(1)) in members[0].words)
