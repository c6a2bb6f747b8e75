"""Rewriting a seed's worked solution for new values of its givens.

Every number the solution writes is given a meaning before anything is changed:

* inside a computation the formalization keeps (a calculator annotation ``<<9*2=18>>18``
  or a computation written in the text, ``54 - 37 = 17``), each operand is tied to the
  step's term by position: a given, an earlier step's result, or a constant (``2``, the
  ``100`` of a percent) that stays as it is; the annotated and the written results are the
  step's value; the visible copy of the computation before an annotation
  (``9 * 2 = <<9*2=18>>18``) follows the annotation's operands when it writes the same
  numbers in the same order;
* every other number (prose such as "So she has 9 eggs left", the ``#### 18`` line) is read
  by value: it becomes the new value of the one quantity that had that value; a value two
  quantities (or a quantity and a constant) share is refused, never guessed.

:func:`rewrite_solution` returns the new text, or raises
:class:`~qcstation.core.derive.bindings.Refusal` (a computation the formalization leaves out,
a computation it cannot tie to a step, an ambiguous number). The caller then runs the same
construction rules on the derived seed, which checks the result independently.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from qcstation.core.construct.make.rules import (
    ANNOTATION_RE,
    Name,
    Num,
    find_inline_computations,
)
from qcstation.core.derive.bindings import Refusal
from qcstation.core.derive.numbers import Unwritable, money_before, read_style, render
from qcstation.core.reading.answers import decimal_fraction, decimal_places
from qcstation.core.reading.expr import atoms

__all__ = ["Quantities", "SolutionTemplate", "format_value", "rewrite_solution", "slow_rewrite_solution",
           "step_index"]

# a number token: not inside a word ("x" may stand for times: "3x3"), not an ordinal ("3rd")
_TOKEN_RE = re.compile(r"(?<![A-Za-wyzA-WYZ_\d.])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                       r"(?![\d]|st\b|nd\b|rd\b|th\b)")
_RUN_RE = re.compile(r"\d+(?:[.,]\d+)*")
_WRITTEN_AFTER_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+")
_VISIBLE_END_RE = re.compile(r"=\s*[$€£]?\s*$")
_MAX_PLACES = 4


@dataclass
class Quantities:
    """Old and new values of every quantity: givens and steps by name, and constants (values
    the formalization writes as numbers, which stay)."""

    old: dict[str, Fraction]
    new: dict[str, Fraction]
    givens: frozenset[str]
    constants: frozenset[Fraction] = frozenset()


@dataclass
class _Token:
    start: int
    end: int
    text: str
    value: Fraction


def format_value(value: Fraction) -> str:
    """A value as an annotation or ``####`` line writes it: ``18``, ``2.75``, ``1/3``."""
    if value.denominator == 1:
        return str(value.numerator)
    places = decimal_places(value)
    if places is None:
        return f"{value.numerator}/{value.denominator}"
    text = f"{float(value):.{places}f}" if places <= 12 else f"{value.numerator}/{value.denominator}"
    return text


def step_index(name: str) -> int | None:
    """``s3_eggs`` -> 3: the step's computation is the 3rd of the solution."""
    m = re.match(r"s(\d+)(?:_|$)", name)
    return int(m.group(1)) if m else None


def _tokens(text: str, offset: int = 0) -> list[_Token]:
    out = []
    for m in _TOKEN_RE.finditer(text):
        out.append(_Token(offset + m.start(), offset + m.end(), m.group(0),
                          decimal_fraction(m.group(0).replace(",", ""))))
    return out


@dataclass
class _Comp:
    start: int
    end: int
    lhs: str                  # the operands' text (annotation left side, or the visible expression)
    lhs_at: int               # where ``lhs`` starts in the solution
    results: list[_Token]     # the written results (annotation right side, after ">>")
    line_start: int


def _computations(solution: str) -> list[_Comp]:
    comps: list[_Comp] = []
    for m in ANNOTATION_RE.finditer(solution):
        body = m.group(1)
        if body.count("=") != 1:
            raise Refusal("odd-annotation", f"annotation {m.group(0)!r} is not <<expression=result>>")
        lhs, rhs = body.split("=")
        rhs_at = m.start(1) + len(lhs) + 1
        results = _tokens(rhs, rhs_at)
        after = _WRITTEN_AFTER_RE.match(solution, m.end())
        if after:
            results.append(_Token(after.start(), after.end(), after.group(0),
                                  decimal_fraction(after.group(0).replace(",", ""))))
        comps.append(_Comp(m.start(), after.end() if after else m.end(), lhs, m.start(1), results,
                           solution.rfind("\n", 0, m.start()) + 1))
    masked = re.sub(r"<<[^<>]*>>[\d.,]*", lambda x: "\u00a7" * len(x.group(0)), solution)
    for c in find_inline_computations(masked):
        comps.append(_Comp(c.expr_start, c.result_end, solution[c.expr_start:c.expr_end],
                           c.expr_start, _tokens(solution[c.result_start:c.result_end],
                                                 c.result_start),
                           solution.rfind("\n", 0, c.expr_start) + 1))
    comps.sort(key=lambda c: c.start)
    return comps


def _bare(solution: str, comp: _Comp, expr_text: str) -> _Comp | None:
    """``7.5 / .5 = <<15=15>>15``: a bare-number annotation whose computation is the visible
    text before it (as the rules read it); the annotation's number is then a result."""
    lhs_toks = _tokens(comp.lhs, comp.lhs_at)
    if len(lhs_toks) != 1 or comp.lhs.strip() != lhs_toks[0].text:
        return None
    before = solution[comp.line_start:comp.start]
    m = _VISIBLE_END_RE.search(before)
    if not m:
        return None
    text = before[:m.start()].rstrip()
    at = text.rfind(expr_text.strip())
    if at < 0 or text[at:].strip() != expr_text.strip():
        return None
    return _Comp(comp.start, comp.end, text[at:], comp.line_start + at,
                 [*lhs_toks, *comp.results], comp.line_start)


# a token's meaning: (quantity name or None for a constant, scale: token value / quantity
# value, part: "" the whole value, "num"/"den" a fraction written as two numbers: 3/4)
_Meaning = tuple[str | None, Fraction, str]
_CONST: _Meaning = (None, Fraction(1), "")


def _scale_of(token: Fraction, value: Fraction) -> Fraction | None:
    for s in (Fraction(1), Fraction(100), Fraction(1, 100)):
        if token == value * s:
            return s
    return None


def _align(step: Any, comp: _Comp, q: Quantities) -> dict[int, _Meaning]:
    """Meanings of the operand tokens of ``comp`` (by start offset) from ``step``'s term."""
    toks = _tokens(comp.lhs, comp.lhs_at)
    out: dict[int, _Meaning] = {}
    p = 0
    for leaf in atoms(step.expr):
        if isinstance(leaf, Name) and leaf.name.startswith("k_"):
            # a named factor (construct.rules.constants: 100 for a percent, 60 min/h): a
            # constant, written in the solution as its number
            leaf = Num(Fraction(1), leaf.name)
        if isinstance(leaf, Num):
            if not leaf.text:
                continue
            width = 2 if "/" in leaf.text else 1
            if p + width > len(toks):
                raise Refusal("unaligned", f"step {step.name}: its term has more numbers than "
                                           f"the solution's {comp.lhs.strip()!r}")
            for t in toks[p:p + width]:
                out[t.start] = _CONST
            p += width
            continue
        name = leaf.name
        if name not in q.old or p >= len(toks):
            raise Refusal("unaligned", f"step {step.name}: cannot tie {name} to the solution's "
                                       f"{comp.lhs.strip()!r}")
        scale = _scale_of(toks[p].value, q.old[name])
        if scale is not None:
            out[toks[p].start] = (name, scale, "")
            p += 1
        elif (p + 1 < len(toks) and toks[p + 1].value and name in q.givens
              and toks[p].value / toks[p + 1].value == q.old[name]):
            # a fraction given written as two numbers (3/4): numerator and denominator
            out[toks[p].start] = (name, Fraction(1), "num")
            out[toks[p + 1].start] = (name, Fraction(1), "den")
            p += 2
        else:
            raise Refusal("unaligned", f"step {step.name}: the solution writes {toks[p].text} "
                                       f"where the formalization has {name} = "
                                       f"{format_value(q.old[name])}")
    if p != len(toks):
        raise Refusal("unaligned", f"step {step.name}: the solution's {comp.lhs.strip()!r} "
                                   f"writes numbers its term does not use")
    return out


def _visible(solution: str, comp: _Comp, prev_end: int, lhs_meanings: list[tuple[_Token, _Meaning]]
             ) -> dict[int, _Meaning]:
    """The visible copy of an annotated computation right before it (``9 * 2 =``)."""
    seg_start = max(comp.line_start, prev_end)
    before = solution[seg_start:comp.start]
    m = _VISIBLE_END_RE.search(before)
    if not m or not lhs_meanings:
        return {}
    toks = _tokens(before[:m.start()], seg_start)
    tail = toks[-len(lhs_meanings):]
    if len(tail) != len(lhs_meanings) or [t.value for t in tail] != [t.value for t, _ in lhs_meanings]:
        return {}
    return {t.start: meaning for t, (_, meaning) in zip(tail, lhs_meanings)}


def _by_value(tok: _Token, q: Quantities) -> _Meaning | None:
    """A prose number: the one quantity (or constant) with its value; None when nothing has
    it; Refusal when quantities that change differently share it."""
    cands: dict[Fraction, _Meaning] = {}
    for name, old in q.old.items():
        scales = (Fraction(1), Fraction(100)) if name in q.givens else (Fraction(1),)
        for s in scales:
            if old * s == tok.value:
                cands.setdefault(q.new[name] * s, (name, s, ""))
    if tok.value in q.constants:
        cands.setdefault(tok.value, _CONST)
    if not cands:
        return None
    if len(cands) > 1:
        raise Refusal("ambiguous-number", f"the solution writes {tok.text} where quantities "
                                          f"that change differently have that value")
    return next(iter(cands.values()))


_NO_STYLE = object()


def _render_token(tok: _Token, meaning: _Meaning, q: Quantities, style: Any = None,
                  money: bool = False) -> str:
    """``tok`` written for its quantity's new value; ``style`` is ``read_style(tok.text,
    tok.value, money=money)`` when the caller read it already (:data:`_NO_STYLE`: it is
    unwritable); ``money``: a currency sign stands just before the token."""
    name, scale, part = meaning
    if name is None:
        return tok.text
    if part:
        new_value, old_value = q.new[name], q.old[name]
        if new_value == old_value:
            return tok.text
        if tok.value != (old_value.numerator if part == "num" else old_value.denominator):
            raise Refusal("fraction-operands", f"the solution writes {name} as a fraction that "
                                               f"is not in lowest terms")
        return str(new_value.numerator if part == "num" else new_value.denominator)
    new = q.new[name] * scale if scale != 1 else q.new[name]
    if style is None:
        try:
            style = read_style(tok.text, tok.value, money=money)
        except Unwritable:
            style = _NO_STYLE
    if style is _NO_STYLE:
        return format_value(new)
    try:
        return render(style, new)
    except Unwritable:
        places = decimal_places(new)
        if name in q.givens or places is None or places > _MAX_PLACES:
            raise Refusal("unwritable-number", f"the solution's {tok.text} cannot be written "
                                               f"as {format_value(new)} in its style") from None
        try:
            return render(dataclasses.replace(style, places=places), new)
        except Unwritable as exc:
            raise Refusal("unwritable-number", f"the solution's {tok.text} cannot be written "
                                               f"as {format_value(new)}: {exc}") from None


def rewrite_solution(solution: str, steps: list[Any], q: Quantities) -> str:
    """``solution`` with every number rewritten to the new values of ``q`` (see the module
    docstring); ``steps`` are the parent's rule steps (``name``, ``expr_text``, ``expr``)."""
    return SolutionTemplate(solution, steps, q.old, q.givens, q.constants).render(q.new)


class SolutionTemplate:
    """A parent's worked solution read once, rewritten for any new values.

    What a number means (an operand of a step, a result, a constant, or the quantities that
    had its value) depends only on the parent: it is worked out here, once. A refusal found
    there (a computation the formalization leaves out, one it cannot tie to a step) holds
    for every set of new values and is raised again by :meth:`render`. What depends on the
    new values is done by :meth:`render` for each: a stale number inside a word, a prose
    number two quantities share that now change differently, writing each new number."""

    def __init__(self, solution: str, steps: list[Any], old: dict[str, Fraction],
                 givens: frozenset[str], constants: frozenset[Fraction] = frozenset()) -> None:
        self.solution, self.old, self.givens, self.constants = solution, old, givens, constants
        self.error: tuple[str, str] | None = None
        # each quantity's old value as the solution may write it (a given also as a percent)
        self.written = [(n, v, (v, v * 100) if n in givens else (v,)) for n, v in old.items()]
        try:
            meanings = _meanings(solution, steps, Quantities(old, old, givens, constants))
        except Refusal as exc:
            self.error = (exc.code, str(exc))
            return
        self.tokens = _tokens(solution)
        meanings.update(_prose_fractions(solution, self.tokens, meanings, old, givens))
        covered = {t.start for t in self.tokens}
        self.runs: list[tuple[str, Fraction]] = []     # digit runs that are not tokens
        for m in _RUN_RE.finditer(solution):
            if any(t.start <= m.start() < t.end for t in self.tokens) or m.start() in covered:
                continue
            try:
                self.runs.append((m.group(0), decimal_fraction(m.group(0).replace(",", ""))))
            except ValueError:
                continue
        # per token: its meaning, or (quantities with its value, is it a constant)
        self.plan: list[tuple[_Token, _Meaning | None, list[tuple[str, Fraction]], bool, Any]] = []
        for tok in self.tokens:
            meaning = meanings.get(tok.start)
            cands: list[tuple[str, Fraction]] = []
            if meaning is None:
                for name, value in old.items():
                    for sc in ((Fraction(1), Fraction(100)) if name in givens else (Fraction(1),)):
                        if value * sc == tok.value:
                            cands.append((name, sc))
                if not cands and tok.value not in constants:
                    continue          # a number no quantity has: left as it is
            try:
                style: Any = read_style(tok.text, tok.value, money=money_before(solution, tok.start))
            except Unwritable:
                style = _NO_STYLE
            self.plan.append((tok, meaning, cands, tok.value in constants, style))

    def render(self, new: dict[str, Fraction]) -> str:
        """The solution for the new values (every quantity's, as :class:`Quantities`)."""
        if self.error is not None:
            raise Refusal(*self.error)
        q = Quantities(self.old, new, self.givens, self.constants)
        changing = {w for n, v, written in self.written if new[n] != v for w in written}
        for text, value in self.runs:
            if value in changing:
                raise Refusal("hidden-number", f"the solution writes {text!r} inside a word "
                                               f"or an ordinal, where a changed quantity has that value")
        solution = self.solution
        out: list[str] = []
        pos = 0
        for tok, meaning, cands, const, style in self.plan:
            if meaning is None:
                by: dict[Fraction, _Meaning] = {}
                for name, sc in cands:
                    by.setdefault(new[name] * sc, (name, sc, ""))
                if const:
                    by.setdefault(tok.value, _CONST)
                if len(by) > 1:
                    raise Refusal("ambiguous-number", f"the solution writes {tok.text} where "
                                                      f"quantities that change differently "
                                                      f"have that value")
                meaning = next(iter(by.values()))
            out.append(solution[pos:tok.start])
            out.append(_render_token(tok, meaning, q, style))
            pos = tok.end
        out.append(solution[pos:])
        return "".join(out)


def _meanings(solution: str, steps: list[Any], q: Quantities) -> dict[int, _Meaning]:
    """What each number of a computation means (see the module docstring); reads only the
    old values of ``q``."""
    comps = _computations(solution)
    kept = {}
    for st in steps:
        i = step_index(st.name)
        if i is None or not 1 <= i <= len(comps):
            raise Refusal("unaligned", f"step {st.name} has no computation in the solution")
        comp = comps[i - 1]
        if re.sub(r"\s+", "", comp.lhs) != re.sub(r"\s+", "", str(st.expr_text)):
            comp = _bare(solution, comp, str(st.expr_text)) or comp
            comps[i - 1] = comp
        if re.sub(r"\s+", "", comp.lhs) != re.sub(r"\s+", "", str(st.expr_text)):
            raise Refusal("unaligned", f"step {st.name} ({st.expr_text}) is not the solution's "
                                       f"computation {i} ({comp.lhs.strip()})")
        kept[i - 1] = st
    left_out = [i + 1 for i in range(len(comps)) if i not in kept]
    if left_out:
        raise Refusal("computation-left-out", f"the solution computes {len(left_out)} thing(s) the "
                                              f"formalization leaves out (computation "
                                              f"{', '.join(map(str, left_out))})")
    meanings: dict[int, _Meaning] = {}
    prev_end = 0
    for i, comp in enumerate(comps):
        st = kept[i]
        lhs = _align(st, comp, q)
        ordered = [(t, lhs[t.start]) for t in _tokens(comp.lhs, comp.lhs_at)]
        meanings.update(lhs)
        for t in comp.results:
            meanings[t.start] = (st.name, Fraction(1), "")
        meanings.update(_visible(solution, comp, prev_end, ordered))
        prev_end = comp.end
    return meanings


def _prose_fractions(solution: str, tokens: list[_Token], meanings: dict[int, _Meaning],
                     old: dict[str, Fraction], givens: frozenset[str]) -> dict[int, _Meaning]:
    """A fraction the prose writes as two numbers ("If 3/4 of the building is occupied")
    outside every computation, with the value of exactly one quantity, a given: its
    numerator and denominator are that given's (written anew with it, never left with the
    old value). Read from the parent's values only."""
    out: dict[int, _Meaning] = {}
    for a, b in zip(tokens, tokens[1:]):
        if solution[a.end:b.start] != "/" or a.start in meanings or b.start in meanings \
                or a.value.denominator != 1 or b.value.denominator != 1 or not b.value:
            continue
        v = a.value / b.value
        if a.value != v.numerator or b.value != v.denominator:
            continue                      # "2/4": not in lowest terms, read by value as before
        having = [n for n, x in old.items() if x == v]
        if len(having) == 1 and having[0] in givens:
            out[a.start] = (having[0], Fraction(1), "num")
            out[b.start] = (having[0], Fraction(1), "den")
    return out


def slow_rewrite_solution(solution: str, steps: list[Any], q: Quantities) -> str:
    """:func:`rewrite_solution` read from scratch for one set of values (the reference the
    tests compare :class:`SolutionTemplate` with)."""
    meanings = _meanings(solution, steps, q)
    tokens = _tokens(solution)
    meanings.update(_prose_fractions(solution, tokens, meanings, q.old, q.givens))
    _check_hidden_numbers(solution, tokens, q)
    out: list[str] = []
    pos = 0
    for tok in tokens:
        meaning = meanings.get(tok.start)
        if meaning is None:
            meaning = _by_value(tok, q)
            if meaning is None:
                continue
        out.append(solution[pos:tok.start])
        out.append(_render_token(tok, meaning, q, money=money_before(solution, tok.start)))
        pos = tok.end
    out.append(solution[pos:])
    return "".join(out)


def _check_hidden_numbers(solution: str, tokens: list[_Token], q: Quantities) -> None:
    """A digit run that is not a number token (inside a word, an ordinal) but has the old
    value of a quantity that changes would be left stale: refused."""
    covered = {t.start for t in tokens}
    changing = {v * s for n, v in q.old.items() if q.new[n] != v
                for s in ((Fraction(1), Fraction(100)) if n in q.givens else (Fraction(1),))}
    for m in _RUN_RE.finditer(solution):
        if any(t.start <= m.start() < t.end for t in tokens) or m.start() in covered:
            continue
        try:
            value = decimal_fraction(m.group(0).replace(",", ""))
        except ValueError:
            continue
        if value in changing:
            raise Refusal("hidden-number", f"the solution writes {m.group(0)!r} inside a word "
                                           f"or an ordinal, where a changed quantity has that value")
