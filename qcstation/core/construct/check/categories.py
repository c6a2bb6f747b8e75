"""A category noun a solution writes for the question's own noun (issue 26.1): "90 spiders / 3
... 48 bugs + 30 bugs + 90 bugs" names the question's "90 spiders" as bugs (399), "400 students"
its "400 fifth graders" (807). Only the pairs of this small, explicit lexicon count: a category
and the nouns that are its members, read as whole words (a plural "s" dropped), never by value
and never by a word's first letters ("millipedes" is a bug, "millimeters" is not). Called by
:mod:`.bindings` where the solution's words after a given agree with no place of its value.
"""

from __future__ import annotations

__all__ = ["CATEGORIES", "names_a_member"]

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
