"""The unit a number is written with, read strictly: the content words right after it, up to the
first function word ("10 hours" -> {hour}; "2 fewer laps" -> {lap}; "$60 per day" -> {$}: what the
"per" follows is the rate's other unit, not this number's; "16 more than Ethel" -> {}), and "$"
before it. The rules
(:mod:`qcstation.core.construct.make.rules.dimensions`) and the checks
(:mod:`qcstation.core.construct.check.units`) read with it whether a factor that multiplies or
divides a quantity into a result of the same unit can be a count of that unit (it cannot).
Reads at most 200 characters after a number; untrusted text in, stems out."""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.words import ANNOTATION, NUMBER_WORD_VALUES, NUMERAL, numeral_value, stem

__all__ = ["unit_after", "result_unit", "units_of_value"]

#: words that end a number's unit: rate words, articles, prepositions, conjunctions, verbs of being
#: and comparison, and the operator "x"
_ENDS = frozenset("""a an the of per each every in on at to for from with by as and or but so than then that
    which who whom what when where while more less fewer is are was were be been being has have had do does did
    will would can could should must may might it its this these those his her their our your my he she they we
    you him them us me x times time after before during until into onto over under about around between among
    through across behind beside within without since toward towards near off away back left right now still
    already again there here ago later earlier instead yet also just only all some any both total altogether
    together if because though although take takes took make makes made get gets got go goes went come comes
    came buy buys bought sell sells sold cost costs pay pays paid spend spends spent give gives gave need needs
    want wants keep keeps kept leave leaves leaving remain remains remaining""".split())
_COMPARATIVES = frozenset({"more", "fewer", "less", "extra"})
_WORD = re.compile(r"[ \t]*([A-Za-z][A-Za-z'’]*)")


def unit_after(text: str, start: int, end: int, limit: int = 3) -> frozenset[str]:
    """The stems of the unit of the number written at ``text[start:end]`` (see the module
    docstring)."""
    out: set[str] = set()
    if text[start:start + 1] == "$" or text[max(0, start - 3):start].rstrip().endswith("$"):
        out.add("$")
    pos = end
    for i in range(limit):
        m = _WORD.match(text, pos, min(len(text), end + 200))
        if m is None:
            break
        word = m.group(1).lower()
        if i == 0 and word in _COMPARATIVES:
            pos = m.end()  # "2 fewer laps" counts laps; "16 more than Ethel" names nothing
            continue
        if word in _ENDS or word in NUMBER_WORD_VALUES:
            break
        out.add(stem(word))
        pos = m.end()
    return frozenset(out)


_RESULT = re.compile(r"=\s*\$?\s*(" + NUMERAL.pattern + r")")


def result_unit(line: str, value: Fraction | None = None) -> frozenset[str]:
    """The unit of the last result a solution line writes after '=' (annotations blanked:
    "= $<<2*8=16>>16" is "= $ 16" -> {$}); with ``value``, only a result of that value."""
    prose = ANNOTATION.sub(" ", line[:5000])
    found: frozenset[str] = frozenset()
    for m in _RESULT.finditer(prose):
        num = NUMERAL.match(m.group(1))
        if num is None or (value is not None and numeral_value(num) != value):
            continue
        found = unit_after(prose, m.start(1), m.end(1)) | ({"$"} if "$" in prose[m.start():m.start(1)] else set())
    return found


def units_of_value(line: str, value: Fraction) -> list[frozenset[str]]:
    """The unit of each place a solution line (annotations blanked) writes ``value``."""
    prose = ANNOTATION.sub(" ", line[:5000])
    return [unit_after(prose, m.start(), m.end()) for m in NUMERAL.finditer(prose) if numeral_value(m) == value]
