"""The written forms of an unknown's description that read as no sentence to an annotator,
mended by the solution's and the question's own words (for :mod:`.unknowns`): the words a line
writes between a computation's "=" and its result ("= shoe size <<5*5=25>>25", "= in
<<80/10=8>>8 more weeks"), the solution's letter term before a blank ("there were 2V = ?
votes"), a name and its blank ("Cho ? km") said with the verb of the question's one sentence
that states the step's givens ("Cho hiked ? km"), an earlier result's conversion ("Q2 minutes = ? hours"), the blank alone after the sentence that says
what it is, and the value asked for said by its blank alone ("And ?") in the unit the question
asks for ("? points"). Anything else is left as written.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["lone_blank", "mended", "restored_words", "words_before_result"]


#: a sentence that says what the step's value is ("The cost of the house is 3/4 of the total
#: cost, which is $120,000."), then the blank alone as a sentence of its own (its computation went)
_LONE_BLANK = re.compile(r"(?P<subject>[A-Z][^.?!,;:=\d]{2,80}?\s(?:is|are|was|were))\s[^?]*?[.!]\s+\?")


def lone_blank(desc: str) -> str:
    """A description whose blank stands alone after a sentence that says what it is: the
    sentence's subject is the blank's words ("The cost of the house is ?", 515: it read "... of the
    total cost, which is $120,000. ?"); any other description is left as it is."""
    m = _LONE_BLANK.fullmatch(desc)
    return f"{m.group('subject')} ?" if m else desc


#: words between a computation's "=" and the annotation of its result: a unit said before its
#: number ("= shoe size <<", 984) or a preposition ("= in <<", 1079); never a number or an operator
_WORDS_BEFORE_RESULT = re.compile(r"(?<==)(\s*)((?:[A-Za-z]+\s+){1,3})$")


def words_before_result(before: str) -> tuple[str, str]:
    """``before`` (the line up to a result's annotation) less the words its computation's "="
    is followed by, and those words: "Charlie wears 5 * shoe size 5 = shoe size " ->
    ("Charlie wears 5 * shoe size 5 =", "shoe size "). ("", "") where no words stand there."""
    m = _WORDS_BEFORE_RESULT.search(before)
    if m is None:
        return before, ""
    return before[:m.start()], m.group(2)


def restored_words(before: str, words: str) -> str:
    """The words :func:`words_before_result` took, put back before the blank unless the line as
    cut already ends with them ("is shoe size 30/2 = shoe size <<": "is shoe size ?")."""
    if not words or before.rstrip().lower().endswith(words.strip().lower()):
        return ""
    return words


#: the solution's letter term right before its blank ("there were 2V = ? votes", 757)
_LETTER_TERM = (r"(?<![\w.])(?:\d+(?:\.\d+)?\s*{letter}(?:\s*[-+*/]\s*\d+(?:\.\d+)?)?"
                r"|{letter}\s*[-+*/]\s*\d+(?:\.\d+)?)\s*=\s*(?=\?)")
#: a name and its blank, then a unit ("Cho ? km", 382), and the verb of a sentence opened by it
_NAME_BLANK = re.compile(r"(?!(?:And|But|Or|So|Then|Thus|Therefore|This|That|It|He|She|They|We|There)\b)"
                         r"(?P<name>[A-Z][a-z]+(?:\s[A-Z](?![a-z]))?)\s+\?\s+(?P<unit>[a-z]+)\.?")
#: an earlier result converted, its "=" gone with the computation ("900 minutes = <<900/60=15>>15
#: hours", 854: "Q2 minutes ? hours")
_CONVERSION = re.compile(r"(Q\d+) ([a-z]+) \? ([a-z]+)\.?")
#: a description that says nothing but its blank ("And ?", 448) and the unit the question asks for
_BARE = re.compile(r"(?:(?:and|so|then|thus)\s+)?\?\.?", re.I)
_ASKS_UNIT = re.compile(r"\bhow\s+many\s+([a-z]+)\b(?![^?]*\bhow\s+many\b)[^?]*\?", re.I)


def mended(desc: str, st: Any, givens: list[dict[str, Any]], question: str, letters: list[tuple[str, str]],
           last: bool) -> str:
    """``desc`` mended where its form reads as no sentence (see the module's docstring)."""
    for letter, _ in letters:
        desc = re.sub(_LETTER_TERM.format(letter=re.escape(letter)), "", desc)
    conversion = _CONVERSION.fullmatch(desc)
    if conversion is not None and conversion.group(2) != conversion.group(3):
        return f"{conversion.group(1)} {conversion.group(2)} = ? {conversion.group(3)}"
    m = _NAME_BLANK.fullmatch(desc)
    if m is not None:
        verb = _verb_of(m.group("name"), st, givens, question)
        # (no sentence says it: the name is the label of its blank, "Rug: ? feet", 504)
        return f"{verb} ? {m.group('unit')}" if verb else f"{m.group('name')}: ? {m.group('unit')}"
    for letter, words in letters:
        # "This means B = 60 - 24 = <<...>>36" (1137): the letter alone is what the solution lets it be
        if re.fullmatch(rf"(?:(?:this means|so|thus|then|therefore),?\s+)?{re.escape(letter)}\s*=?\s*\?\.?", desc,
                        re.I) and words:
            return f"{words[:1].upper()}{words[1:]} is ?"
    if last and _BARE.fullmatch(desc.strip()):
        asks = list(_ASKS_UNIT.finditer(question[:20_000]))
        if len(asks) == 1:
            return f"? {asks[0].group(1).lower()}"
    return desc


def _verb_of(name: str, st: Any, givens: list[dict[str, Any]], question: str) -> str:
    """The words that open the one sentence of the question opened by ``name`` (or "On/In" it), up
    to its verb, where that sentence states a given the step computes with ("Cho hiked" of "Cho
    hiked 14 kilometers per hour for 8 hours." for 14 * 8; "On Tuesday they delivered" of "On
    Tuesday they delivered 17 more than one-fifth as many as Monday."); "" otherwise."""
    from qcstation.core.reading.clauses import is_verb_form, sentences
    from qcstation.core.reading.expr import expr_names

    expr = getattr(st, "expr", None)
    if expr is None:
        return ""
    spans = {str(g.get("name")): g.get("span") for g in givens}
    used = [s for s in (spans.get(n) for n in expr_names(expr))
            if isinstance(s, list) and len(s) == 2 and all(isinstance(x, int) for x in s)]
    opens = re.compile(rf"\s*((?:(?:On|In)\s+)?{re.escape(name)}\s+(?:(?:he|she|they|it|we)\s+)?([a-z]+))\b")
    found = [s for s in sentences(question[:20_000]) if opens.match(s)]
    at = question.find(found[0]) if len(found) == 1 else -1
    if at < 0 or not any(at <= int(s[0]) and int(s[1]) <= at + len(found[0]) for s in used):
        return ""
    verb = opens.match(found[0])
    return verb.group(1) if verb and is_verb_form(verb.group(2)) else ""
