"""Numbers as a question or a worked solution writes them: in digits ("$1,200.50", "45%"), as
fractions ("1/16") and as small number words ("three", "twice", "a dozen"), and the calculator
annotations of a GSM8K solution ("<<12*4=48>>48"). The key information's drafting
(:mod:`keyinfo`) and its unknowns (:mod:`unknowns`) read numbers here; nothing here depends
on either.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from qcstation.common.memo import text_memo
from qcstation.core.reading.answers import parse_number

__all__ = ["word_key", "ANNOT_RE", "ANNOT_WITH_RESULT_RE", "COUNT_WORDS", "COUNT_WORD_RE", "FRACTION_RE", "NUMBER_RE", "NUMBER_WORDS",
           "NUMBER_WORD_RE", "numbers_in", "sub_count_words"]

# (each opens with a lookahead for the characters a match starts with: the same matches, found
# without trying the lookbehind at every place)
NUMBER_RE = re.compile(r"(?=[-−$\d.])(?<![\w.])[-−]?\$?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?")

NUMBER_WORDS = {w: Fraction(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
NUMBER_WORDS.update({w: Fraction(10 * i) for i, w in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), start=3)})
NUMBER_WORDS.update({"half": Fraction(1, 2), "twice": Fraction(2), "double": Fraction(2),
               "triple": Fraction(3), "dozen": Fraction(12), "hundred": Fraction(100),
               "thousand": Fraction(1000), "quarter": Fraction(1, 4)})
NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b", re.I)
#: the counting words ("three", "twenty"), not "half", "twice" or "dozen" (a ratio or a unit)
COUNT_WORDS = frozenset(w for w, v in NUMBER_WORDS.items() if v.denominator == 1
                        and w not in ("twice", "double", "triple", "dozen"))
COUNT_WORD_RE = re.compile(r"\b(" + "|".join(sorted((w for w in NUMBER_WORDS if w in COUNT_WORDS),
                                                      key=len, reverse=True)) + r")\b", re.I)


@text_memo(set, maxsize=2048)
def numbers_in(text: str) -> set[Fraction]:
    """Numbers a text states, in digits or (small) number words (a new set each call; the
    drafting reads the question, each step and each sentence several times, so the last
    texts' readings are kept: :func:`qcstation.common.memo.text_memo`)."""
    return _read_numbers(text)


def word_key(word: str, keys: Mapping[str, Any]) -> str:
    """The key of ``keys`` that ``word`` is, read without case as ``re.I`` reads it: its lower
    case, else the key whose pattern matches it (a letter that only Unicode case folding ties to
    an ASCII one: "ſix", "thırty", "\u212aILO"); KeyError when none does."""
    low = word.lower()
    if low in keys:
        return low
    for key in keys:
        if re.fullmatch(re.escape(key), word, re.I):
            return key
    raise KeyError(word)


def _read_numbers(text: str) -> set[Fraction]:
    if text.isascii():  # (lower case keeps every run of word characters where it is)
        out: set[Fraction] = {NUMBER_WORDS[w] for w in _WORD_RUN.findall(text.lower()) if w in NUMBER_WORDS}
    else:
        out = {NUMBER_WORDS[word_key(w, NUMBER_WORDS)] for w in _number_words(text)}
    for tok in NUMBER_RE.findall(text):
        parsed = parse_number(tok.rstrip(",").replace("$", ""))
        if parsed is not None:
            out.add(parsed.value)
    for a, b in FRACTION_RE.findall(text):
        if int(b):
            out.add(Fraction(int(a), int(b)))
    for a, b in SUFFIXED_FRACTION_RE.findall(text):
        if int(b) and int(a) > 1:
            out.add(Fraction(int(a), int(b)))
    return out


_WORD_RUN = re.compile(r"\w+")


def _number_words(text: str) -> list[str]:
    """``NUMBER_WORD_RE.findall(text)``, read word by word: a match of ``\\b(...)\\b`` is a
    whole run of word characters, so each run is looked up instead of trying every word at
    every place (a run in ASCII by its lower case, any other by the pattern itself, whose
    case folding is Unicode's)."""
    out = []
    for run in _WORD_RUN.findall(text):
        if run.isascii():
            if run.lower() in NUMBER_WORDS:
                out.append(run)
        elif NUMBER_WORD_RE.fullmatch(run):
            out.append(run)
    return out


def sub_count_words(repl: Callable[[re.Match[str]], str], text: str) -> str:
    """``COUNT_WORD_RE.sub(repl, text)``, read word by word as :func:`_number_words` does
    (``repl`` gets each counting word as a match of the whole run of word characters: the
    same text and place)."""
    out: list[str] = []
    pos = 0
    for m in _WORD_RUN.finditer(text):
        run = m.group(0)
        if (run.lower() in COUNT_WORDS) if run.isascii() else COUNT_WORD_RE.fullmatch(run) is not None:
            out.append(text[pos:m.start()])
            out.append(repl(m))
            pos = m.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


FRACTION_RE = re.compile(r"(?=\d)(?<![\w./])(\d+)\s*/\s*(\d+)(?![\w./])")
#: a fraction written with an ordinal's ending ("3/4ths of the teachers' cars", "2/3rd of that
#: number", "3/8ths of a day"): the fraction. Read only with a numerator above 1: a unit
#: fraction so written ("1/3rd of the calories") is divided by as its parts ("600 / 3"), which
#: the drafting places by the formalization's own word given, not as a number of the text
SUFFIXED_FRACTION_RE = re.compile(r"(?=\d)(?<![\w./])(\d+)\s*/\s*(\d+)(?:st|nd|rd|th)s?\b")

ANNOT_RE = re.compile(r"<<([^<>=]*)=([^<>]*)>>")
# the annotation and the result written after it: "= <<16-3-4=9>>9 eggs" -> "= ? eggs"
ANNOT_WITH_RESULT_RE = re.compile(r"<<[^<>]*>>\s*\$?-?[\d,]*\.?\d*")
