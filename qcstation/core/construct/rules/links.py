"""Which step computes the answer, and which written number is an earlier step's result.

:func:`pick_answer` picks the step whose value is the gold answer. :func:`resolve_links`
decides, for every number a step writes, whether it is a given or an earlier result:
a link is fixed only where the solution settles it (not by equal value alone), and a
solution with more than one reading is refused (:class:`RuleError`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from qcstation.core.construct.rules.expr import (Expr, leaves, Name, Neg, Num, BinOp, RuleError, canon, expr_names,
                                                 fmt, literal_value, literal_values)
from qcstation.core.construct.rules.givens import Givens

MAX_LINK_CHOICES = 4096


@dataclass
class Computation:
    """One step of a solution: where it is, what it computes and the result it writes."""

    start: int
    end: int
    raw: str  # how the computation reads in the solution
    expr_text: str
    expr: Expr
    value: Fraction
    written: Fraction
    source: str  # "annotation" | "inline"


def pick_answer(comps: list[Computation], gold: Fraction | None, notes: list[str]) -> int:
    """Index of the step that computes the answer: the last whose value (else whose
    written result) is the gold answer; the last step when there is no gold."""
    if gold is None:
        notes.append("no gold answer given: the last step is the answer")
        return len(comps) - 1
    for i in range(len(comps) - 1, -1, -1):
        if comps[i].value == gold:
            return i
    for i in range(len(comps) - 1, -1, -1):
        if comps[i].written == gold:
            notes.append(
                f"the gold answer {fmt(gold)} is only the written result of step {i + 1}; "
                f"its expression evaluates to {fmt(comps[i].value)}"
            )
            return i
    raise RuleError(
        f"final answer {fmt(gold)} is not produced by any step "
        f"(step results: {', '.join(fmt(c.value) for c in comps)})",
        "Answer not derived",
    )



@dataclass
class _Choices:
    """For every number a step writes that could be an earlier result: which earlier steps
    it may be (None: the given), keyed by (step, leaf ordinal), with the evidence."""

    keys: list[tuple[int, int]]
    options: list[list[int | None]]
    evidence: dict[tuple[int, int], str]


def _link_choices(written: list[Fraction], exprs: list[Expr], givens: Givens | None,
                  bare: set[int]) -> _Choices:
    choices: list[list[int | None]] = []
    keys: list[tuple[int, int]] = []
    evidence: dict[tuple[int, int], str] = {}
    ambiguous_values = (givens.values | givens.factors) if givens is not None else frozenset()
    for i, e in enumerate(exprs):
        for k, leaf in enumerate(leaves(e)):
            if not leaf.text or "/" in leaf.text:
                continue
            cands = [j for j in range(i) if written[j] == leaf.value and j not in bare]
            if not cands:
                continue
            if givens is None:
                choices.append([cands[-1]])
                evidence[(i, k)] = "equal value (no question given)"
            elif leaf.value not in ambiguous_values and len(cands) == 1:
                choices.append([cands[0]])
                evidence[(i, k)] = "the only step with this value; the question does not state it"
            else:
                choices.append([None, *cands])
                evidence[(i, k)] = "the one structure that uses every step and given"
            keys.append((i, k))
    return _Choices(keys, choices, evidence)


def _apply(exprs: list[Expr], names: list[str], keys: list[tuple[int, int]],
           assign: tuple[int | None, ...]) -> list[Expr]:
    """The steps' terms with each chosen number replaced by the earlier step it is."""
    table = {key: a for key, a in zip(keys, assign)}
    out: list[Expr] = []
    for i, e in enumerate(exprs):
        counter = iter(range(10**9))

        def walk(x: Expr) -> Expr:
            if isinstance(x, Num):
                k = next(counter)  # noqa: B023 (walk runs within this iteration)
                j = table.get((i, k))  # noqa: B023
                return Name(names[j]) if j is not None else x
            if isinstance(x, Neg):
                return Neg(walk(x.operand))
            if isinstance(x, BinOp):
                left = walk(x.left)
                return BinOp(x.op, left, walk(x.right))
            return x

        out.append(walk(e))
    return out


def _uses_everything(linked: list[Expr], names: list[str], bare: set[int], used_givens: set[int],
                     givens: Givens | None) -> bool:
    """Does a reading use every step before the answer and keep every given the solution
    uses (a percent given counts by its number or its fraction)?"""
    refs = [set(expr_names(e)) for e in linked]
    closure = {len(linked) - 1}
    stack = [len(linked) - 1]
    index = {n: i for i, n in enumerate(names)}
    while stack:
        for r in refs[stack.pop()]:
            j = index[r]
            if j not in closure:
                closure.add(j)
                stack.append(j)
    if len(closure | bare) != len(linked):
        return False
    return used_givens <= _occurrences(givens, {v for e in linked for v in literal_values(e)})


def _occurrences(givens: Givens | None, values: set[Fraction]) -> set[int]:
    """The question's numbers (by position) a set of literal values uses."""
    return {n.start for n in givens.numbers if n.value in values} if givens else set()


def resolve_links(
    comps: list[Computation], exprs: list[Expr], names: list[str], givens: Givens | None,
    notes: list[str],
) -> tuple[list[Expr], list[dict[str, str]]]:
    """Decide, for every number written in a step, whether it is a given or an earlier
    step's result. Without a question: the most recent step with that written result
    (the historical behaviour). With one: a link is fixed only when the value is not
    stated by the question, is not a common factor, and one earlier step has it; every
    other candidate is settled by structure (each step before the answer is used, each
    given the solution uses stays used), and a solution with more than one such
    structure is ambiguous (RuleError)."""
    written = [c.written for c in comps]
    # a bare restatement (<<8=8>>8) computes nothing: it is never what a later step uses,
    # and nothing needs to use it
    bare = {j for j, c in enumerate(comps) if literal_value(c.expr) is not None}
    ch = _link_choices(written, exprs, givens, bare)
    n_combos = 1
    for c in ch.options:
        n_combos *= len(c)
    if n_combos > MAX_LINK_CHOICES:
        raise RuleError(
            f"{len(ch.options)} numbers of the solution could each be a given or an earlier result; "
            "too many readings to settle by rule", "Ambiguous solution")
    used_givens = _occurrences(givens, {v for e in exprs for v in literal_values(e)})
    readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]] = {}
    all_assign = list(itertools.product(*ch.options)) if ch.options else [()]
    for assign in all_assign:
        linked = _apply(exprs, names, ch.keys, assign)
        if len(all_assign) == 1 or _uses_everything(linked, names, bare, used_givens, givens):
            readings.setdefault(tuple(canon(e) for e in linked), (assign, linked))
    if not readings:
        raise RuleError(
            "no reading of the solution uses every step and every given it states "
            "(a number could be a given or an earlier result)", "Ambiguous solution")
    if len(readings) > 1:
        diffs = [(i, k) for n, (i, k) in enumerate(ch.keys)
                 if len({r[0][n] for r in readings.values()}) > 1]
        i, k = diffs[0] if diffs else ch.keys[0]
        value = leaves(exprs[i])[k].value
        raise RuleError(
            f"ambiguous solution: the {fmt(value)} in step {i + 1} ({comps[i].expr_text}) could be "
            "a number of the question or an earlier step's result; "
            f"{len(readings)} readings fit", "Ambiguous solution")
    assign, linked = next(iter(readings.values()))
    links: list[dict[str, str]] = []
    for (i, k), j in zip(ch.keys, assign):
        if j is None:
            continue
        links.append({"step": names[i], "uses": names[j], "value": fmt(written[j]),
                      "evidence": ch.evidence[(i, k)]})
    return linked, links
