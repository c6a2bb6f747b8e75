"""The rest of a share the question states, where a solution writes it as a number the question
does not (issue 26.1, lane cover20): a term of the question's own fraction or percent, never the
fraction's parts nor a number of equal value.

``fraction_rest``: a number ``d`` a step writes that is ``1 / (1 - F)`` of the one fraction ``F``
the question states ("three-fourths of students have a desktop computer ... 20 students do not" /
"Twenty students represent 1 - 3/4 = 1/4 of the students. So, there are 4 x 20"), only where the
solution writes that rest ``1/d`` by the step's line or before it ("1 - 3/4 = 1/4", "The raccoon
left 1/3 behind, so there were 6 * 3") and the question states no ``1/d`` of its own. Multiplying
by ``d`` is dividing by the rest ``1 - F`` (``20 / (1 - w_three_fourths)``), dividing by ``d`` is
multiplying by it: for three-fifths the rest is 2/5, where the fraction's parts (5) would be wrong.

``percent_rest``: a number ``1 - p`` a step writes (".4") of the one percent ``p`` the question
states that gives it ("Of these riders, 60% are women ... how many men" / "25 x .4"), only where
the step's line names the other part: the other member of a pair the percent's words name
(women/men, girls/boys, female/male), the rest ("remaining", "the rest", "not", "other"), or what
the question says the rest are, right after the percent ("40% are adults. The rest are children."
/ "There are 72 children because 120 x .6"), by a word the percent's own words do not write.
The term is ``1 - p`` with the question's percent.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.reading.expr import BinOp, Expr, Neg, Num

_ANNOTATION = re.compile(r"<<[^<>]{0,400}>>")

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["fraction_rest", "names_other_quantity", "percent_rest"]


def names_other_quantity(givens: Givens, v: Fraction) -> bool:
    """Is ``v`` a number the question gives otherwise: stated, a word given's value, or the
    denominator of a fraction it states in digits ("gives 1/4 of his apples away" / "36/4": the 4
    is that quarter's parts, never a count these readings build)?"""
    if v in givens.values or v in givens.word_values:
        return True
    return v.denominator == 1 and any(int(den) == v for _, den in givens.fractions if den.isdigit())


def _line_end(solution: str, at: int) -> int:
    end = solution.find("\n", at)
    return len(solution) if end == -1 else end


def line_at(solution: str, at: int) -> str:
    """The line of ``solution`` that holds position ``at``."""
    return solution[solution.rfind("\n", 0, at) + 1:_line_end(solution, at)]


@functools.lru_cache(maxsize=1024)
def _last_word(phrase: str) -> str:
    """The lower-case last word of a phrase ("two-thirds", "two thirds": "thirds")."""
    return re.split(r"[ -]", phrase.lower())[-1]


@functools.lru_cache(maxsize=1)
def _fractions_in_words() -> tuple[tuple[str, Fraction], ...]:
    """(phrase, value) of each fraction in words of more than one part ("two-thirds"), in
    ``WORD_GIVENS``' order, made once (the vocabulary is fixed)."""
    from qcstation.core.reading.words import WORD_GIVENS

    return tuple((phrase, values[0]) for phrase, values in WORD_GIVENS.items()
                 if len(values) == 1 and values[0].numerator >= 2 and values[0].denominator >= 2)


def _stated_fractions(givens: Givens) -> list[tuple[Fraction, str]]:
    """(value, text) of each fraction of more than one part the question states once: in words
    ("three-fourths": text "3/4") or digits ("3/4")."""
    from qcstation.core.construct.make.rules.phrases import phrase_re

    q = givens.question[:20_000]
    # a match holds the phrase's last word (case aside): in ASCII text, where ``str.lower`` and
    # re.I agree (:mod:`.phrases`), a phrase whose last word the text lacks is not looked for
    lowered = q.lower() if q.isascii() else None
    out: list[tuple[Fraction, str]] = []
    for phrase, v in _fractions_in_words():
        if lowered is not None and _last_word(phrase) not in lowered:
            continue
        if len(phrase_re(phrase, True, True).findall(q)) == 1:
            out.append((v, f"{v.numerator}/{v.denominator}"))
    for n in givens.numbers:
        if "/" in n.text and not n.percent and n.value.numerator >= 2 \
                and sum(1 for m in givens.numbers if m.value == n.value) == 1:
            out.append((n.value, n.text))
    return out


def fraction_rest(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` (one term per computation starting at ``starts``) with each number that is the
    rest of the question's one fraction, written as its reciprocal (see the module docstring):
    ``x / d`` becomes ``x * (1 - F)`` and ``d * x`` becomes ``x / (1 - F)``."""
    if givens is None:
        return exprs
    fractions = _stated_fractions(givens)
    if not fractions:
        return exprs
    return [_walk_rest(e, givens, fractions, solution[:_line_end(solution, at)]) for e, at in zip(exprs, starts)]


def _walk_rest(e: Expr, givens: Givens, fractions: list[tuple[Fraction, str]], before: str) -> Expr:
    if isinstance(e, Neg):
        return Neg(_walk_rest(e.operand, givens, fractions, before))
    if not isinstance(e, BinOp):
        return e
    left = _walk_rest(e.left, givens, fractions, before)
    right = _walk_rest(e.right, givens, fractions, before)
    if e.op == "/" and isinstance(right, Num):
        rest = _rest_of_fraction(right, givens, fractions, before)
        if rest is not None:
            return BinOp("*", left, rest)
    if e.op == "*":
        for num, other in ((left, right), (right, left)):
            if isinstance(num, Num):
                rest = _rest_of_fraction(num, givens, fractions, before)
                if rest is not None:
                    return BinOp("/", other, rest)
    return BinOp(e.op, left, right)


def _rest_of_fraction(num: Num, givens: Givens, fractions: list[tuple[Fraction, str]], before: str) -> Expr | None:
    """``1 - F`` where ``num`` writes ``d`` = 1 / (1 - F), else None."""
    d = num.value
    if not num.text or d.denominator != 1 or d < 2 or num.text.startswith("k_") or d in givens.values:
        return None
    found = {(f, text) for f, text in fractions if 1 - f == 1 / d}
    if len(found) != 1:
        return None
    f, text = found.pop()
    if _states_one_over(givens, d):
        return None  # the question's own 1/d ("a quarter") is another quantity
    if not re.search(rf"(?<![\d./])1\s*/\s*{d.numerator}(?![\d./])", before):
        return None  # the solution never writes the rest
    return BinOp("-", Num(Fraction(1), ""), Num(f, text))


def _states_one_over(givens: Givens, d: Fraction) -> bool:
    """Does the question state the fraction 1/d itself ("a quarter", "1/4")?"""
    from qcstation.core.construct.make.rules.phrases import has_phrase
    from qcstation.core.reading.words import WORD_GIVENS

    q = givens.question.lower()
    if any(n.value == 1 / d for n in givens.numbers):
        return True
    return any(values[0] == 1 / d and has_phrase(q, phrase) for phrase, values in WORD_GIVENS.items())


#: pairs of words that split a group in two: the percent names one, the line the other
_PAIRS: list[tuple[str, str]] = [
    (r"wom[ae]n", r"(?<!wo)m[ae]n"), (r"girls?", r"boys?"), (r"females?", r"males?"),
    (r"ladies|lady", r"gentlemen|gentleman"),
]
_REST = re.compile(r"\b(?:remaining|remainder|the rest|rest of|not|don'?t|didn'?t|doesn'?t|other|others)\b", re.I)


def percent_rest(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` with each number ``1 - p`` of the question's one percent ``p`` that the step's
    line says is the other part (see the module docstring) replaced by ``1 - p``."""
    if givens is None:
        return exprs
    pcts = [n for n in givens.numbers if n.percent]
    if not pcts:
        return exprs
    from qcstation.core.construct.make.rules.givens import _map_written_nums

    out = []
    for e, at in zip(exprs, starts):
        line = line_at(solution, at)
        out.append(_map_written_nums(e, functools.partial(_rest_of_percent, givens=givens, line=line)))
    return out


def _rest_of_percent(num: Num, givens: Givens, line: str) -> Expr | None:
    v = num.value
    if not 0 < v < 1 or num.text.startswith("k_") or "%" in num.text or v in givens.values \
            or v in givens.word_values:
        return None
    at = [n for n in givens.numbers if n.percent and 1 - n.value == v]
    if len(at) != 1 or sum(1 for n in givens.numbers if n.percent and n.value == at[0].value) != 1:
        return None
    n = at[0]
    q = givens.question
    around = q[n.start:n.start + len(n.text) + 40]
    for one, other in _PAIRS:
        for a, b in ((one, other), (other, one)):
            if re.search(rf"\b(?:{a})\b", around, re.I) and re.search(rf"\b(?:{b})\b", line, re.I) \
                    and not re.search(rf"\b(?:{a})\b", line, re.I):
                return BinOp("-", Num(Fraction(1), ""), Num(n.value, n.text))
    if _REST.search(line) or _names_the_rest(q, n.start, line):
        return BinOp("-", Num(Fraction(1), ""), Num(n.value, n.text))
    return None


#: what the question says the rest are, right after its percent ("40% are adults. The rest are
#: children."; "25% of goldfish are at the surface and the rest are too deep below the surface")
_REST_ARE = re.compile(r"\bthe\s+rest\s+(?:of\s+(?:them|the\s+\w+)\s+)?(?:are|is|were|was)\s+([^.?!;]{1,80})", re.I)


def _names_the_rest(q: str, start: int, line: str) -> bool:
    """Does the line name what the question says the rest of its percent at ``start`` are, by a
    word that the percent's own words (up to "the rest") do not write ("There are 72 children
    because 120 x .6" for "40% are adults. The rest are children.")?"""
    from qcstation.core.reading.words import line_stems

    m = _REST_ARE.search(q, start, min(len(q), start + 160))
    if m is None or len(re.findall(r"[.?!](?:\s|$)", q[start:m.start()])) > 1:
        return False  # the rest of the percent's sentence or of the next one only
    rest = line_stems(m.group(1)) - line_stems(q[start:m.start()])
    return bool(rest & line_stems(_ANNOTATION.sub(" ", line)))


def percent_results(starts: Sequence[int], values: Sequence[Fraction], exprs: list[Expr], givens: Givens | None,
                    solution: str) -> list[Expr]:
    """``exprs`` with each decimal ``p/100`` a step writes (".6") that is an earlier step's result
    ``p`` its own line names as a percent ("60% of them are yellow because 100 - 20 - 20 = 60")
    written ``p / k_percent``: the ``p`` is then that result (:func:`.links.resolve_links` links a
    value the question does not state to the one step that has it). Only where the question states
    neither ``p/100`` nor ``p``, exactly one earlier step has the value ``p`` and writes "p%", ``p``
    is not 1 (".01" is the percent factor), and no step's percent result is a percent the question
    also states ("100% - 50% = 50%" beside "a 50% chance": its ".5" would be the question's by value
    alone, GSM8K test 1031)."""
    if givens is None:
        return exprs
    from qcstation.core.construct.make.rules.givens import _map_written_nums

    lines = [line_at(solution, at) for at in starts]
    for value, line in zip(values, lines):
        if (value / 100 in givens.values or value in givens.values) and value.denominator == 1 \
                and re.search(rf"(?<![\d.]){value.numerator}\s*%", _ANNOTATION.sub(" ", line)):
            # a percent result the question also states ("100% - 50% = 50%" beside "a 50% chance"):
            # which decimal is which is no longer told by the words; none is read so
            return exprs
    return [_map_written_nums(e, functools.partial(_percent_of_result, givens=givens,
                                                   earlier=[(values[j], lines[j]) for j in range(i)]))
            for i, e in enumerate(exprs)]


def _percent_of_result(num: Num, givens: Givens, earlier: list[tuple[Fraction, str]]) -> Expr | None:
    v = num.value
    if not 0 < v < 1 or not re.fullmatch(r"0?\.\d+", num.text or "") or v in givens.values or v in givens.word_values:
        return None
    p = v * 100
    if p.denominator != 1 or p == 1 or p in givens.values or p in givens.word_values:
        return None  # (".01" is the percent factor: "0.05% * 50000 = 0.05*.01*50000", never a 1% result)
    named = [line for value, line in earlier if value == p]
    if len(named) != 1 or not re.search(rf"(?<![\d.]){p.numerator}\s*%", _ANNOTATION.sub(" ", named[0])):
        return None
    return BinOp("/", Num(p, str(p.numerator)), Num(Fraction(100), "k_percent"))
