"""Which uses of a value the question states only as a word ("twice", "half") are that word and
which are an earlier result of equal value, read from the words each step's line writes (used by
:func:`.links.resolve_links` before the other deciders of the words, which then read the numbers
left).

"Aaron was able to run each mile twice as fast as Vanessa, but Vanessa was able to run twice as
far as Aaron did" (1311) / "Vanessa ran twice as far as Aaron, so Aaron ran 4 / 2 = 2 miles. Aaron
took 16 minutes, so he ran each mile in 16 / 2 = 8 minutes. Vanessa takes twice as long to run a
mile, so she took 8 * 2": the question writes "twice" twice and states no 2 otherwise; the two
lines that write "twice" are its two uses, and the line that writes no such word ("16 / 2") uses
the 2 miles. Each step's uses of the value that are the word are as many as its line writes the
word (at most its uses); the rest are earlier results. Only where those uses are exactly as many
as the question writes the word, no two such steps share a line, and the readings that agree
decide every use of the value (they may differ on other numbers, which the other deciders read);
a line that does not write the word where the question's sentence alone says it ("They cost
15*2" for "twice the cost") leaves the count short, so nothing is decided.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.link_structure import (Computation, Readings, _Choices, _line_at,
                                                                open_numbers)
from qcstation.core.reading.expr import Expr, leaves
from qcstation.core.reading.words import ANNOTATION, WORD_GIVENS

#: the evidence of a link this module decides
MULTIPLIER_EVIDENCE = ("the words: the question states this value only as a word (\"twice\"), which the "
                       "lines of its other uses write and this line does not; it is the earlier result")


def _word_re(v: Fraction) -> re.Pattern[str] | None:
    """The word givens of value ``v`` (longest first, so "an hour and a half" is not "half")."""
    phrases = sorted(WORD_GIVENS, key=len, reverse=True)
    if not any(v in WORD_GIVENS[p] for p in phrases):
        return None
    return re.compile(r"\b(" + "|".join(re.escape(p) for p in phrases) + r")\b", re.I)


def _word_count(rx: re.Pattern[str], text: str, v: Fraction) -> int:
    return sum(1 for m in rx.finditer(text[:20000]) if v in WORD_GIVENS[m.group(1).lower()])


def _literal_uses(choice: tuple[int | None, ...], e: Expr, i: int, v: Fraction,
                  keyed: dict[tuple[int, int], int]) -> int:
    """How many of step ``i``'s numbers of value ``v`` a reading (``choice``) takes as written."""
    return sum(1 for k, leaf in enumerate(leaves(e)) if leaf.text and leaf.value == v
               and ((i, k) not in keyed or choice[keyed[(i, k)]] is None))


def decide_multiplier_words(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                            givens: Givens, solution: str) -> Readings:
    """The readings in which each step's uses of a value the question states only as a word are
    as many as its line writes that word, where they agree on every use of the value (see the
    module docstring); the readings unchanged where the words do not say so."""
    for v in dict.fromkeys(o.v for o in open_numbers(readings, ch, exprs)):
        if v in givens.values or v not in givens.word_values or v <= 1 or v.denominator != 1:
            continue
        rx = _word_re(v)
        if rx is None:
            continue
        stated = _word_count(rx, givens.question, v)
        uses: dict[int, int] = {}  # step -> how many of its numbers are the word
        lines: set[str] = set()
        ok = stated > 0
        for i, e in enumerate(exprs):
            n_v = sum(1 for leaf in leaves(e) if leaf.text and leaf.value == v)
            if not n_v:
                continue
            line = _line_at(solution, comps[i].start)
            if line in lines:
                ok = False  # two steps on one line: whose the line's words are, no reader can tell
                break
            lines.add(line)
            uses[i] = min(n_v, _word_count(rx, ANNOTATION.sub(" ", line), v))
        if not ok or sum(uses.values()) != stated or all(
                uses[i] == sum(1 for leaf in leaves(exprs[i]) if leaf.text and leaf.value == v) for i in uses):
            continue
        keyed = {key: n for n, key in enumerate(ch.keys)}
        kept = {key: r for key, r in readings.items()
                if all(_literal_uses(r[0], exprs[i], i, v, keyed) == w for i, w in uses.items())}
        if kept and all(len({r[0][n] for r in kept.values()}) == 1 for (i, k), n in keyed.items()
                        if i in uses and leaves(exprs[i])[k].value == v):
            choice = next(iter(kept.values()))[0]
            for (i, k), n in keyed.items():
                if i in uses and leaves(exprs[i])[k].value == v and choice[n] is not None:
                    ch.evidence[(i, k)] = MULTIPLIER_EVIDENCE
            readings = kept
    return readings
