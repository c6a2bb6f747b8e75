"""Which place of a value the question states more than once a solution means, told by the
words of each place's clause: the clause that alone shares words with the solution's line
(:func:`clause_choice`), the place that counts what the other operand is "each" or "per" of
(:func:`operand_clause_choice`), and what a word that multiplies multiplies
(:func:`multiplied_stems`). Built on :mod:`.words` (its stems and stop words); the rules that
bind a given to its place and the checks that read the binding again both call these.

Every input is untrusted text; each reads at most :data:`~.words.MAX_TEXT` characters.
"""

from __future__ import annotations

import re

from qcstation.core.reading.words import (_CLAUSE_STOP, _WORD, _WORD_GIVEN_RE, ANNOTATION, MAX_TEXT, NUMBER_WORD_VALUES,
                                          stem)

__all__ = ["CLAUSE_STOP", "PER_UNIT", "clause_choice", "clause_stems", "multiplied_stems", "operand_clause_choice"]


_CLAUSE_BREAK = re.compile(r"[.,;:!?](?:\s|$)|\b(?:and|while|but|whereas|then)\b", re.I)
#: stop words of a clause's content words (kept in :mod:`.words`, which other readers import it from)
CLAUSE_STOP = _CLAUSE_STOP


def clause_stems(text: str, pos: int) -> frozenset[str]:
    """The content words (stems) of the clause of ``text`` around ``pos``, less the number and
    phrase words and common verbs."""
    a = 0
    for m in _CLAUSE_BREAK.finditer(text, 0, pos):
        a = m.end()
    end = _CLAUSE_BREAK.search(text, pos + 1)
    b = end.start() if end else len(text)
    words = [w for w in _WORD.findall(text[a:b]) if w.lower() not in CLAUSE_STOP and w.lower() not in NUMBER_WORD_VALUES
             and not _WORD_GIVEN_RE.fullmatch(w) and w not in ("$", "%")]
    return frozenset(stem(w) for w in words)


PER_UNIT = re.compile(r"\b(?:each|per|every)\s+((?:[A-Za-z][A-Za-z'’]*\s*){1,3})", re.I)
#: an operand whose clause ends right after it with "each" ("Cucumbers are $2 each.")
_EACH_LAST = re.compile(r"[\d.,]+\s+each\s*$", re.I)


def operand_clause_choice(question: str, places: list[frozenset[str]], other: int) -> int | None:
    """Of the places of a value the question states more than once (``places``: the stems that
    name each), the one that counts what a computation's other operand is a rate of: the
    clause that states that operand (at ``other``) names, after it, the thing it
    is "each", "per" or "every" of, and that place names the same thing ("$26 x 2" for "a $26
    fee for each adult": the "2 adults", not the "2 children"; "6 x 9" for "9 pens in each bag
    of blue": the "6 bags of blue pens", not the "6 pens in each bag of red"). None when a
    place names nothing, the clause names no such thing, or no place or more than one shares
    the most."""
    if other < 0 or not places or any(not ws for ws in places):
        return None
    q = question[:MAX_TEXT]
    end = _CLAUSE_BREAK.search(q, other + 1)
    clause = q[other:end.start() if end else len(q)]  # what follows the operand in its clause
    per: set[str] = set()
    for m in PER_UNIT.finditer(clause):
        per |= {stem(w) for w in _WORD.findall(m.group(1)) if w.lower() not in CLAUSE_STOP}
    if not per and _EACH_LAST.match(clause):
        # "Cucumbers are $2 each": the clause ends with its "each", what it is each of is the
        # clause's subject, before the operand
        start = max((m.end() for m in _CLAUSE_BREAK.finditer(q, 0, other)), default=0)
        per = {stem(w) for w in _WORD.findall(q[start:other]) if w.lower() not in CLAUSE_STOP and w != "$"}
    if not per:
        return None
    scores = [len(ws & per) for ws in places]
    top = max(scores)
    if not top or scores.count(top) != 1:
        return None
    return scores.index(top)


_MULTIPLIED_END = re.compile(r"[.,;:!?](?:\s|$)|\b(?:and|while|but|whereas|then|than|if|because|so)\b", re.I)
_MULTIPLIED_STOP = frozenset("""a an the of as that this these those many much number amount what his her their its
    he she they it was were is are did does do had has have times time""".split())


def multiplied_stems(question: str, end: int) -> frozenset[str]:
    """What a word that multiplies, ending at ``end`` of the question, multiplies: the content
    words after it up to its clause's end ("twice the amount of apples" -> {appl}; "three times
    as many as the downloads in the first month" -> {down, firs, mont}; "twice that" -> {})."""
    q = question[:MAX_TEXT]
    m = _MULTIPLIED_END.search(q, end)
    chunk = q[end:m.start() if m else len(q)][:120]
    return frozenset(stem(w) for w in _WORD.findall(chunk) if w.lower() not in _MULTIPLIED_STOP
                     and w not in ("$", "%"))


def clause_choice(question: str, starts: list[int], line: str) -> int | None:
    """Of the places ``starts`` of the question (a value stated several ways), the one whose
    clause alone shares words with the solution's ``line`` ("The rosette takes 2 * 90" and
    "the rosette takes twice as many as the collar", not "a sweater with two sleeves"); None
    when no place or more than one shares the most."""
    if any(s < 0 for s in starts):
        return None
    here = frozenset(stem(w) for w in _WORD.findall(ANNOTATION.sub(" ", line))
                     if w.lower() not in CLAUSE_STOP and w.lower() not in NUMBER_WORD_VALUES)
    scores = [len(clause_stems(question, s) & here) for s in starts]
    top = max(scores, default=0)
    if not top or scores.count(top) != 1:
        return None
    return scores.index(top)
