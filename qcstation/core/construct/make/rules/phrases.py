"""Whole-word phrase tests, as ``re.search(r"\\b" + re.escape(phrase) + r"\\b", text[, re.I])``
but cheaper: the rules ask them for every phrase of a fixed vocabulary (number words, "half",
"a dozen", unit words) against every question and solution line.

A phrase can only match where the text contains it, so a plain substring test decides most
cases before any regular expression runs; the expression itself is compiled once per phrase.
Case-insensitive tests take that shortcut only for ASCII text (``str.lower`` and ``re.I`` agree
there; outside ASCII, ``re.I`` also matches letters such as "ſ" or "K" that ``lower`` keeps, so
the expression decides).

:func:`stated_word_givens`: the word givens ("half", "twice", "two-thirds") a lower-cased question
writes, in :data:`~qcstation.core.reading.words.WORD_GIVENS`' order, read once per text: the
givens, the word constants and the fraction parts each asked it of every phrase in turn.

:class:`InOrder`: a pattern of words said in order on one line ("``\\bweeks?\\b.*\\bmonths?\\b|
\\bmonths?\\b.*\\bweeks?\\b``") searched in time linear in the line: as a regular expression each
place the first word matches scans the rest of the line, so a line that repeats it thousands of
times (a hostile solution, within the rules' 12,000 characters) took seconds (issue 30.4).
"""

from __future__ import annotations

import functools
import re

from qcstation.common.memo import text_memo

__all__ = ["InOrder", "has_phrase", "phrase_re", "stated_word_givens"]


@functools.lru_cache(maxsize=4096)
def phrase_re(phrase: str, ignore_case: bool = False, loose_spaces: bool = False) -> re.Pattern[str]:
    r"""``\bphrase\b`` compiled (``loose_spaces``: a space of the phrase also matches any
    whitespace or a hyphen, ``[\s-]``)."""
    body = re.escape(phrase)
    if loose_spaces:
        body = body.replace(r"\ ", r"[\s-]")
    return re.compile(r"\b" + body + r"\b", re.I if ignore_case else 0)


def has_phrase(text: str, phrase: str, *, ignore_case: bool = False, lowered: str | None = None) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words (``re.search`` of ``\\bphrase\\b``,
    with ``re.I`` when ``ignore_case``). ``lowered``: ``text.lower()``, when the caller has it."""
    if ignore_case:
        if text.isascii() and phrase.isascii():
            if phrase.lower() not in (lowered if lowered is not None else text.lower()):
                return False
    elif phrase not in text:
        return False
    return phrase_re(phrase, ignore_case).search(text) is not None


@text_memo(maxsize=256)
def stated_word_givens(lowered: str) -> tuple[str, ...]:
    """The phrases of ``WORD_GIVENS`` that ``lowered`` writes as whole words (each one's
    ``has_phrase(lowered, phrase)``), in that dict's order."""
    from qcstation.core.reading.words import WORD_GIVENS

    return tuple(p for p in WORD_GIVENS if p in lowered and phrase_re(p).search(lowered) is not None)


def _top_level_split(pattern: str, seps: tuple[str, ...]) -> list[str]:
    """``pattern`` cut at each top-level occurrence of one of ``seps`` (outside groups, classes and
    escapes), the separators kept as items of their own."""
    out: list[str] = []
    depth, cls, i, start = 0, False, 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if cls:
            cls = c != "]"
        elif c == "[" and not any(pattern.startswith(sep, i) for sep in seps):
            cls = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif not depth:
            for sep in seps:
                if pattern.startswith(sep, i):
                    out += [pattern[start:i], sep]
                    i += len(sep)
                    start = i
                    break
            else:
                i += 1
            continue
        i += 1
    return out + [pattern[start:]]


class InOrder:
    r"""A regular expression whose alternatives are words in order (``A.*B|B.*A``; ``.*`` within
    a line, ``[\s\S]*`` across lines; an alternative with no gap, or one that is anchored
    (``^...``), stays a plain expression), whose :meth:`search` says whether it matches anywhere
    in linear time: each alternative takes each of its parts at the earliest place the part can
    start after the part before it ends (a word's earliest start is its earliest end), so no
    place is tried twice. Alternatives with both kinds of gap are not taken (ValueError).
    ``pattern`` keeps the expression; :meth:`search` returns a bool, not a match."""

    __slots__ = ("pattern", "_alts")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._alts: list[tuple[bool, list[re.Pattern[str]]]] = []
        plain: list[str] = []
        for alt in _top_level_split(pattern, ("|",))[::2]:
            parts = [alt] if alt.startswith("^") else _top_level_split(alt, (".*", r"[\s\S]*"))
            if len(parts) == 1:
                plain.append(alt)
                continue
            gaps = set(parts[1::2])
            if len(gaps) > 1:
                raise ValueError(f"both kinds of gap in one alternative: {alt!r}")
            self._alts.append((gaps == {r"[\s\S]*"}, [re.compile(p, flags) for p in parts[::2]]))
        if plain:  # the alternatives with no gap, one expression searched once
            self._alts.insert(0, (True, [re.compile("|".join(plain), flags)]))

    def search(self, text: str) -> bool:
        for across, parts in self._alts:
            for segment in ((text,) if across else text.split("\n")):
                pos = 0
                for part in parts:
                    m = part.search(segment, pos)
                    if m is None:
                        break
                    pos = m.end()
                else:
                    return True
        return False
