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
"""

from __future__ import annotations

import functools
import re

from qcstation.common.memo import text_memo

__all__ = ["has_phrase", "phrase_re", "stated_word_givens"]


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
