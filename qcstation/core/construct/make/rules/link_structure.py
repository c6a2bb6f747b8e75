"""Readings of a solution's links that the structure of the problem rules out, before the words
are asked (used by :func:`.links.resolve_links`).

A number a step writes that an earlier step computed may be read as that result or as the
question's number of equal value. Where the question states no such number, in digits or in
words, and no unit, percent, implied quantity or list the question and the line name has that
value, the literal reading is no reading at all: :mod:`.constants` would refuse it as "a
hard-coded result or an unstated fact". :func:`drop_unstated_literals` takes that option away,
so the words decide between the earlier results alone (377: "40 - 20 = 20 pupils who like
either green or yellow" after "40/2 = 20 pupils who like blue"; the question states no 20).
"""

from __future__ import annotations

import re
from fractions import Fraction
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple, Protocol

from qcstation.core.construct.make.rules.givens import COMMON_FACTORS, Givens
from qcstation.core.construct.make.rules.result import RuleError
from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num, canon, leaves



Readings = dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]]


class Computation(Protocol):
    """What this module reads of a step (:class:`.links.Computation`; not imported: links imports
    this module)."""

    start: int
    end: int
    source: str


class _Choices(Protocol):
    """What this module reads and writes of the link options (:class:`.links._Choices`)."""

    keys: list[tuple[int, int]]
    options: list[list[int | None]]
    evidence: dict[tuple[int, int], str]
    partial: dict[int, dict[int | None, str]]


def _line_at(solution: str, pos: int) -> str:
    a = solution.rfind("\n", 0, pos) + 1
    b = solution.find("\n", pos)
    return solution[a:b if b != -1 else len(solution)]


def _roles(e: Expr) -> list[str]:
    """What each number of a term (in :func:`leaves`' order) does: "times" (a factor of a
    product), "divisor", or "" (added, subtracted, divided); :mod:`.links` reads it too."""
    out: list[str] = []
    _roles_in(e, "", out)
    return out


def _roles_in(x: Expr, role: str, out: list[str]) -> None:
    """For :func:`_roles`
    (a function of the module: a closure that calls itself is a reference cycle, which
    only the cyclic garbage collector frees)."""
    if isinstance(x, Num):
        out.append(role)
    elif isinstance(x, Neg):
        _roles_in(x.operand, "", out)
    elif isinstance(x, BinOp):
        _roles_in(x.left, "times" if x.op == "*" else "", out)
        _roles_in(x.right, "times" if x.op == "*" else "divisor" if x.op == "/" else "", out)


_WRITTEN_RESULT = re.compile(r"\s*[$€£]?\s*-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)?")
_RESULT_AFTER_RE = re.compile(r"<<[^<>]*>>\s*\$?\s*[\d.,/]*")


def _term_times(line: str, v: Fraction) -> int:
    """How often a line writes ``v`` other than as a step's result (as :func:`.links._term_times`)."""
    from qcstation.core.reading.words import ANNOTATION, NUMERAL, numeral_value

    return sum(1 for m in NUMERAL.finditer(ANNOTATION.sub(" ", _RESULT_AFTER_RE.sub(" ", line)))
               if numeral_value(m) == v)


class OpenNumber(NamedTuple):
    """A number of a step that the readings left disagree on (given or which earlier result)."""

    n: int  #: its key's index into ``ch.keys``, ``ch.options`` and each reading's choices
    i: int  #: the step that writes it
    k: int  #: its ordinal among the step's numbers (:func:`leaves`)
    terms: list[Num]  #: the step's numbers, left to right
    v: Fraction  #: its value


def open_numbers(readings: Readings, ch: _Choices, exprs: list[Expr]) -> Iterator[OpenNumber]:
    """Each number the readings left disagree on, in key order: the loop every decider of
    :mod:`.links`, :mod:`.link_structure` and :mod:`.result_lines` reads its numbers by."""
    for n, (i, k) in enumerate(ch.keys):
        if len({r[0][n] for r in readings.values()}) > 1:
            terms = leaves(exprs[i])
            yield OpenNumber(n, i, k, terms, terms[k].value)


def _keep_decided(readings: Readings, ch: _Choices, decided: Mapping[int, int | None],
                  evidence: Callable[[int | None], str], partial: bool = False) -> Readings:
    """The one reading that agrees with every decided choice (choice -> the step it links to,
    None for the question's number), each decision's evidence recorded; the readings unchanged
    when nothing was decided or not exactly one reading agrees (every decider's ending). With
    ``partial``, decisions that leave more than one reading are kept for :func:`decide_together`."""
    if not decided:
        return readings
    kept = {key: r for key, r in readings.items() if all(r[0][n] == c for n, c in decided.items())}
    if len(kept) != 1:
        if partial:
            for n, c in decided.items():
                ch.partial.setdefault(n, {})[c] = evidence(c)
        return readings
    for n, j in decided.items():
        ch.evidence[ch.keys[n]] = evidence(j)
    return kept


def decide_together(readings: Readings, ch: _Choices) -> Readings:
    """What the deciders that keep their partial decisions decided each on its own where that
    alone left more than one reading (:attr:`.links._Choices.partial`: the words right after a
    number, :func:`.links._decide_by_words`; the money of a step's result,
    :func:`.currency.decide_by_money_result`), read together after every decider: where no number
    was decided two ways and exactly one reading agrees with every decision, that reading, each
    decision's evidence recorded; else the readings unchanged (1140: "he orders 4 packs so that's
    9*4" by its words, "40-4 = $36.00" and "36/36 = $1.00" by money). The other deciders read the
    whole line or the structure and decide only where they alone leave one reading (a templated
    line's clause words can point to the wrong result: 1040, 976)."""
    if not ch.partial or any(len(cs) != 1 for cs in ch.partial.values()):
        return readings
    decided = {n: next(iter(cs)) for n, cs in ch.partial.items()}
    kept = {key: r for key, r in readings.items() if all(r[0][n] == c for n, c in decided.items())}
    if len(kept) != 1:
        return readings
    for n, cs in ch.partial.items():
        ch.evidence[ch.keys[n]] = next(iter(cs.values()))
    return kept


def can_be_literal(v: Fraction, text: str, givens: Givens, line: str, role: str, strict: bool = True) -> bool:
    """Could a step's written number of value ``v`` stand as a literal (the question's number,
    a word given, a named factor or implied quantity)? Conservative: True wherever any of the
    ways :func:`.constants.declare_literals` names a literal might apply."""
    from qcstation.core.construct.make.rules.constants import _FACTORS, FACTOR_VALUES, _word_givens
    from qcstation.core.construct.make.rules.implied import _month_days, implied_names, list_count

    if v in (0, 1) or v <= 0 or text in FACTOR_VALUES:
        return True
    if v in givens.values or v in givens.word_values:
        return True
    if v in givens.factors or v in COMMON_FACTORS:
        if not strict:
            return True
        # a common factor (60, 100, 12...) the question does not state stands only where a named
        # factor, word given or implied quantity of it can be declared for this line and role
        # ("$60 + $60" of "10% per annum": no minutes or hours, so no 60 of them)
        return _line_says(v, line, role) or declarable(v, givens.question, line, role)
    from qcstation.core.construct.make.rules.scaled import scaled_values

    if v in scaled_values(givens):
        return True  # "2 million" written in full as 2000000 (rules/scaled.py)
    if any(q.value * 100 == v or q.value == v * 100 for q in givens.numbers):
        return True  # a percent or a price in cents written the other way
    q = givens.question
    if v in _word_givens(q):
        return True
    if any(fv == v and re.search(pat, q.lower()) for fv, pat, _ in _FACTORS):
        return True
    if implied_names(v, q, line, "times") or implied_names(v, q, line, "divisor"):
        return True
    if _month_days(q, v, line) is not None:
        return True
    return list_count(v, q, line, role) is not None or list_count(v, q, line, "divisor") is not None


#: words of a line that share or average by dividing ("Since he paid half", "split equally")
_SHARE_LINE = re.compile(r"\b(?:average|mean|each|equal(?:ly)?|evenly|share[sd]?|split|divid(?:e|es|ed|ing)|apiece)\b",
                         re.I)


def _line_says(v: Fraction, line: str, role: str) -> bool:
    """Does the line itself write words of ``v`` ("half", "twice", "a pair") or, for a divisor, of a
    share ("split equally")? Such a number may be a quantity no declarer names ("Cody and his
    friend split the price equally" / "Since he paid half ... 34/2"): never then an earlier result
    of equal value by elimination."""
    from qcstation.core.construct.make.rules.phrases import has_phrase
    from qcstation.core.construct.make.rules.word_factors import _MULTIPLIERS_OF, _PHRASES_OF

    if role == "divisor" and _SHARE_LINE.search(line):
        return True
    return any(has_phrase(line, p, ignore_case=True) for p in (*_PHRASES_OF.get(v, ()), *_MULTIPLIERS_OF.get(v, ())))


def declarable(v: Fraction, question: str, line: str, role: str) -> bool:
    """Can :func:`.constants.declare_literals` name a literal ``v`` that a step on ``line`` writes
    in ``role`` ("times", "divisor" or "": added or subtracted)? Asked of the declarer itself, so
    that no way of naming it is missed."""
    from qcstation.core.construct.make.rules.constants import declare_literals

    op = {"times": "*", "divisor": "/"}.get(role, "+")
    try:
        declare_literals([BinOp(op, Name("s0_term"), Num(v))], question, set(), [line])
    except RuleError:
        return False
    return True


def drop_unstated_literals(ch: _Choices, comps: Sequence[Computation], exprs: list[Expr], givens: Givens,
                           solution: str) -> None:
    """For a number that could be the question's number or an earlier result, where the literal
    cannot stand (:func:`can_be_literal`): its options are the earlier results alone."""

    for n, (i, k) in enumerate(ch.keys):
        opts = ch.options[n]
        if None not in opts or len(opts) < 2:
            continue
        leaf = leaves(exprs[i])[k]
        line = _line_at(solution, comps[i].start)
        strict = not _open_beside(ch, exprs, givens, i, k, line)
        if can_be_literal(leaf.value, leaf.text or "", givens, line, _roles(exprs[i])[k], strict):
            continue
        ch.options[n] = [j for j in opts if j is not None]
        ch.evidence[(i, k)] = UNSTATED_EVIDENCE


#: words of a line that say two of its numbers are one quantity again ("the same amount")
_SAME_AGAIN = re.compile(r"\b(?:same|again|each|both|also)\b", re.I)


def _open_beside(ch: _Choices, exprs: list[Expr], givens: Givens, i: int, k: int, line: str) -> bool:
    """Does step ``i`` write, beside its ``k``-th number, another that its structure alone could
    settle wrongly: a number of the question's values that could also be an earlier result ("3 + 5 +
    7" where 5 is both "5 days" and the step that made 5 snails: each given used stays used, so
    the 7 settled would settle the 5 by its value alone), or the same value again across a "/" or
    "-" ("3/3": one earlier result by itself), or the same value twice on a line that does not say it
    is the same quantity again ("They weigh 2*2 = 4 pounds. In all 4 + 4": the second 4 is the other
    book's, which no step computes; "the same amount of interest, which $60 + $60" says it)? A
    common factor no words name is then no earlier result by elimination either."""
    v = leaves(exprs[i])[k].value
    if sum(1 for leaf in leaves(exprs[i]) if leaf.value == v) > 1 and not _SAME_AGAIN.search(line):
        return True
    for n, (i2, k2) in enumerate(ch.keys):
        if i2 == i and k2 != k and None in ch.options[n] and leaves(exprs[i])[k2].value in givens.values:
            return True

    return _self_pair(exprs[i], v)


def _self_pair(x: Expr, v: Fraction) -> bool:
    """Does ``x`` write ``v / v`` or ``v - v``
    (a function of the module: a closure that calls itself is a reference cycle, which
    only the cyclic garbage collector frees)?"""
    if isinstance(x, BinOp):
        if x.op in "/-" and isinstance(x.left, Num) and isinstance(x.right, Num) \
                and x.left.value == x.right.value == v:
            return True
        return _self_pair(x.left, v) or _self_pair(x.right, v)
    return isinstance(x, Neg) and _self_pair(x.operand, v)


#: the evidence of a link whose literal reading the question cannot give
UNSTATED_EVIDENCE = ("the structure: the question states no such number, in digits or words, and no "
                     "named unit or implied quantity has it; it is an earlier result")


def _self_applied(e: Expr) -> bool:
    """Does a term divide or subtract an earlier result by itself ("s3 / s3")?"""
    if isinstance(e, BinOp):
        if e.op in "/-" and isinstance(e.left, Name) and isinstance(e.right, Name) and e.left.name == e.right.name:
            return True
        return _self_applied(e.left) or _self_applied(e.right)
    if isinstance(e, Neg):
        return _self_applied(e.operand)
    return False


def drop_self_quotients(readings: Readings) -> Readings:
    """A step that divides an earlier result by itself, or takes it from itself ("24/24" as the
    smores one box makes over the same smores), computes nothing a reader would write: such
    readings go, when any other is left."""
    kept = {key: r for key, r in readings.items() if not any(_self_applied(e) for e in r[1])}
    return kept or readings


def _chain(e: Expr) -> tuple[Expr, list[Expr]] | None:
    """A left-leaning chain of subtractions ``a - b - c``: (a, [b, c])."""
    subtracted: list[Expr] = []
    while isinstance(e, BinOp) and e.op == "-":
        subtracted.append(e.right)
        e = e.left
    return (e, subtracted[::-1]) if len(subtracted) > 1 else None


def _order_free(e: Expr) -> str:
    """The canonical form of a step's term in which the subtracted terms of a chain ``a - b - c``
    are one multiset (``a - b - c`` is ``a - c - b``); any other term as :func:`canon` writes it."""
    chn = _chain(e)
    if chn is None:
        return canon(e)
    head, rest = chn
    return "(-- " + canon(head) + " " + " ".join(sorted(canon(x) for x in rest)) + ")"


def equal_term_groups(exprs: list[Expr], keys: Sequence[tuple[int, int]],
                      first: Callable[[Expr], int | None]) -> list[tuple[Fraction, list[int]]]:
    """The links (indices into ``keys``, each a (step, term) pair) of each value a step's term
    writes more than once, counting from term ``first(e)`` on (None: the step has none)."""
    groups: list[tuple[Fraction, list[int]]] = []
    for i, e in enumerate(exprs):
        start = first(e)
        if start is None:
            continue
        terms = leaves(e)
        by_value: dict[Fraction, list[int]] = {}
        for n, (step, k) in enumerate(keys):
            if step == i and k >= start:
                by_value.setdefault(terms[k].value, []).append(n)
        groups += [(v, ns) for v, ns in by_value.items() if len(ns) > 1]
    return groups


def keep_distinct(readings: Readings, groups: list[tuple[Fraction, list[int]]], givens: Givens) -> Readings:
    """The readings in which each group of equal terms (:func:`equal_term_groups`) takes each
    earlier result at most once and the question's number at most as often as the question
    states it (empty when none does)."""
    def distinct(assign: tuple[int | None, ...]) -> bool:
        for v, ns in groups:
            picks = [assign[n] for n in ns]
            steps = [j for j in picks if j is not None]
            places = len({q.start for q in givens.numbers if q.value == v and not q.percent})
            if len(steps) != len(set(steps)) or len(picks) - len(steps) > places:
                return False
        return True

    return {key: r for key, r in readings.items() if distinct(r[0])}


def merge_subtraction_orders(readings: Readings, ch: _Choices, exprs: list[Expr], givens: Givens) -> Readings:
    """A chain of subtractions that takes one value away more than once ("$200 - $50 - $50"
    after "5 * $10 = $50 on pencils", for "50 dollars on gas") takes that many quantities away:
    each earlier result at most once, the question's number at most as often as the question
    states it; the readings left that only swap the subtracted terms are one formalization."""
    def subtracted(e: Expr) -> int | None:
        chn = _chain(e)
        if chn is None or not all(isinstance(x, Num) for x in [chn[0], *chn[1]]):
            return None
        return len(leaves(chn[0]))      # the terms after the head are the ones taken away

    groups = equal_term_groups(exprs, ch.keys, subtracted)
    if not groups:
        return readings
    kept = keep_distinct(readings, groups, givens)
    if not kept:
        return readings
    merged: dict[tuple[str, ...], tuple[str, ...]] = {}
    for key, r in kept.items():
        merged.setdefault(tuple(_order_free(e) for e in r[1]), key)
    if len(merged) != 1:
        return readings
    only = next(iter(merged.values()))
    for n in {n for _, ns in groups for n in ns}:
        ch.evidence[ch.keys[n]] = ORDER_EVIDENCE
    return {only: kept[only]}


#: the evidence of a link in a chain of subtractions whose equal terms only swap
ORDER_EVIDENCE = ("the structure: a chain of subtractions takes each quantity of this value away once; "
                  "the order of the subtracted terms changes nothing")


def decide_word_lines(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                      givens: Givens, solution: str) -> Readings:
    """A value the question states only in words ("twice", "half"), written once in a line that
    writes that word ("Vanessa takes twice as long to run a mile, so ... 8 * 2"), is that word
    given, not an earlier result of equal value ("Aaron ran 4 / 2 = 2 miles"). Only where the
    question states the value in no digits and its word once (1311's "twice as fast ... twice as
    far" is two givens the line's "twice" does not tell apart), and only where one reading is left."""
    from qcstation.core.construct.make.rules.phrases import has_phrase, phrase_re
    from qcstation.core.reading.words import WORD_GIVENS

    decided: dict[int, int | None] = {}
    for n, i, _k, terms, v in open_numbers(readings, ch, exprs):
        if None not in ch.options[n] or v in givens.values or v not in givens.word_values:
            continue
        line = _line_at(solution, comps[i].start)
        if _term_times(line, v) != 1 or sum(1 for x in terms if x.value == v) > 1:
            continue
        phrases = [p for p, vals in WORD_GIVENS.items() if v in vals and has_phrase(givens.question, p, ignore_case=True)]
        if sum(len(phrase_re(p, True).findall(givens.question)) for p in phrases) != 1:
            continue  # "twice as fast ... twice as far": which of the two the line's word is, it does not say
        if any(has_phrase(line, p, ignore_case=True) for p in phrases):
            decided[n] = None
    return _keep_decided(readings, ch, decided, lambda j: WORD_LINE_EVIDENCE)


#: the evidence of a number a line's word decides is the question's word given
WORD_LINE_EVIDENCE = "the words: the line writes the question's word for this value"


#: unit conversions by a common factor: (factor, the smaller unit, the larger unit, the question's words)
_CONVERSIONS = ((Fraction(60), r"minutes?", r"hours?", r"\bminutes?\b|\bhours?\b"),
                (Fraction(60), r"seconds?", r"minutes?", r"\bseconds?\b"),
                (Fraction(12), r"inch(?:es)?", r"foot|feet", r"\binch(?:es)?\b|\bfoot\b|\bfeet\b"),
                (Fraction(100), r"cents?", r"dollars?", r"\bcents?\b"))


def _unit_after(solution: str, comp: Computation, unit: str) -> bool:
    """Does the word right after the result a step writes name ``unit`` ("= 60 minutes")?"""

    end = comp.end
    if comp.source == "annotation":
        m = _WRITTEN_RESULT.match(solution, end)
        end = m.end() if m else end
    return re.match(rf"[ \t]*(?:{unit})\b", solution[end:end + 40], re.I) is not None


def _names_result(solution: str, comp: Computation, other: str, unit: str) -> bool:
    """Does a step name its result in ``unit`` (not ``other``): the word right after it ("= 5
    hours"), or, where it writes no word there, its line writes the unit and never the other ("It
    will take one hour because 60 / 60 = 1"; "It will take 60 minutes ... because 360 / 6 = 60")?
    A result written in dollars ("100 cents = $1", "= $<<...>>") names dollars and no other unit."""

    if re.search(r"dollar", unit + other) and _written_in_dollars(solution, comp):
        return "dollar" in unit
    if _unit_after(solution, comp, unit):
        return True
    end = comp.end
    if comp.source == "annotation":
        m = _WRITTEN_RESULT.match(solution, end)
        end = m.end() if m else end
    if re.match(r"[ \t]*[A-Za-z]", solution[end:end + 40]):
        return False  # it names its result with another word
    line = re.sub(r"<<[^<>]*>>", " ", _line_at(solution, comp.start))
    return re.search(rf"\b(?:{unit})\b", line, re.I) is not None and re.search(rf"\b(?:{other})\b", line, re.I) is None


def _written_in_dollars(solution: str, comp: Computation) -> bool:
    """Does a step write its result with a dollar sign ("= $<<2*3=6>>6", "100 cents = $1")?"""
    if comp.source == "annotation":
        return solution[max(0, comp.start - 2):comp.start].strip().endswith("$")
    return re.search(r"=\s*\$\s*\d", solution[comp.start:comp.end]) is not None


def decide_conversions(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                       givens: Givens, solution: str) -> Readings:
    """A step that divides an earlier result the solution names in a smaller unit by a common
    factor of that unit, and names its own result in the larger one ("60 minutes" ... "It will take
    one hour because 60 / 60 = 1"; "300 minutes of break time ... 300/60 = 5 hours"), converts:
    the divisor is the factor (minutes in an hour), not an earlier result of equal value; the
    dividend is the result in the smaller unit. Only where one reading is left."""

    decided: dict[int, int | None] = {}
    key_at = {key: n for n, key in enumerate(ch.keys)}
    for i, e in enumerate(exprs):
        if not (isinstance(e, BinOp) and e.op == "/" and isinstance(e.left, Num) and isinstance(e.right, Num)):
            continue
        v = e.right.value
        div = key_at.get((i, 1))
        if div is None or None not in ch.options[div]:
            continue
        for fv, small, large, qwords in _CONVERSIONS:
            if fv != v or not re.search(qwords, givens.question, re.I) or not _names_result(solution, comps[i], small, large):
                continue
            top = key_at.get((i, 0))
            if top is None:
                continue  # the dividend is no earlier result
            steps = [j for j in ch.options[top] if j is not None and _names_result(solution, comps[j], large, small)]
            if len(steps) != 1:
                continue  # the dividend's unit unread
            decided[div] = None
            decided[top] = steps[0]
            break
    return _keep_decided(readings, ch, decided, lambda j: CONVERSION_EVIDENCE)


#: the evidence of a unit conversion the units decide
CONVERSION_EVIDENCE = ("the units: a result in the smaller unit divided by the factor gives the larger "
                       "unit the line names")


def decide_by_structure(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                        givens: Givens, solution: str) -> Readings:
    """Where the words after each number left more than one reading: the structure and units of
    the steps (:func:`drop_self_quotients`, :func:`merge_subtraction_orders`,
    :func:`decide_word_lines`, :func:`decide_conversions`, :func:`decide_rate_units`, :func:`decide_by_owner`), each applied only while readings are left to
    decide and each leaving them unchanged unless it decides."""
    steps = (lambda r: drop_self_quotients(r),
             lambda r: merge_subtraction_orders(r, ch, exprs, givens),
             lambda r: decide_word_lines(r, ch, comps, exprs, givens, solution),
             lambda r: decide_conversions(r, ch, comps, exprs, givens, solution),
             lambda r: decide_rate_units(r, ch, comps, exprs, givens, solution),
             lambda r: decide_by_owner(r, ch, comps, exprs, givens, solution),
             lambda r: decide_stated_factors(r, ch, comps, exprs, givens, solution))
    for step in steps:
        if len(readings) > 1:
            readings = step(readings)
    return readings


#: a rate the question states: "4 cups per hour", "$2 a pound", "5 liters each day"
_RATE_AFTER = re.compile(r"[ \t]*([A-Za-z]+)(?:[ \t]+of[ \t]+[A-Za-z]+)?[ \t]+(?:per|an?|each|every)[ \t]+([A-Za-z]+)\b")


def _plural(noun: str) -> str:
    """A noun's singular and plural as one pattern ("cups?", "inch(?:es)?")."""
    w = noun.lower()
    w = w[:-2] if w.endswith(("ches", "shes", "sses", "xes")) else w[:-1] if w.endswith("s") and not w.endswith("ss") else w
    return re.escape(w) + r"(?:s|es)?"


def decide_rate_units(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                      givens: Givens, solution: str) -> Readings:
    """A step that divides by a rate the question states at one place ("She sells an average of 4
    cups per hour"; "36 / 4 = 9 hours") divides what the rate counts (cups): of the earlier results
    of the dividend's value, the one whose step names it in that unit ("3 * 12 = 36 cups of
    lemonade", not "36 * $1 = $36"); one that multiplies by the rate multiplies what it is per (an
    hour). Only where exactly one earlier result names that unit and the other unit is named by
    none, and only where one reading is left."""

    decided: dict[int, int | None] = {}
    key_at = {key: n for n, key in enumerate(ch.keys)}
    for i, e in enumerate(exprs):
        if not (isinstance(e, BinOp) and e.op in "*/" and isinstance(e.left, Num) and isinstance(e.right, Num)):
            continue
        for side, other_side in ((1, 0), (0, 1)) if e.op == "*" else ((1, 0),):
            rate = (e.left, e.right)[side]
            places = [q for q in givens.numbers if q.value == rate.value and not q.percent]
            if len(places) != 1 or (i, side) in key_at and len(ch.options[key_at[(i, side)]]) > 1:
                continue  # the rate is no single stated number, or could itself be an earlier result
            m = _RATE_AFTER.match(givens.question, places[0].start + len(places[0].text))
            n = key_at.get((i, other_side))
            if m is None or n is None or m.group(1).lower() in ("times", "time", "more", "less"):
                continue
            counted, per = _plural(m.group(1)), _plural(m.group(2))
            unit, other = (counted, per) if e.op == "/" else (per, counted)
            steps = [j for j in ch.options[n] if j is not None]
            fits = [j for j in steps if _names_result(solution, comps[j], other, unit)]
            if len(fits) == 1 and not any(_names_result(solution, comps[j], unit, other) for j in steps):
                decided[n] = fits[0]
    return _keep_decided(readings, ch, decided, lambda j: RATE_EVIDENCE)


#: the evidence of a link the unit of a stated rate decides
RATE_EVIDENCE = "the units: the step divides by (or multiplies by) a stated rate; the earlier result counts its unit"


_CAPITAL = re.compile(r"\b[A-Z][a-z]+\b")


def _owners(text: str, names: frozenset[str]) -> frozenset[str]:
    """The question's names ("Elizabeth", "Monday") a text writes."""
    return frozenset(w for w in _CAPITAL.findall(re.sub(r"<<[^<>]*>>", " ", text)) if w in names)


def question_names(question: str, solution: str) -> frozenset[str]:
    """The capitalized words of a question that name someone or something ("Elizabeth", "Margareth",
    "Tuesday"): never a common opener, and a word that opens a sentence only where neither text
    writes it in lower case or as a number word ("Cody ate a third", not "Half of the hats")."""
    from qcstation.core.construct.make.rules.implied import _NOT_A_NAME
    from qcstation.core.reading.clause_places import CLAUSE_STOP
    from qcstation.core.reading.words import _STOP, NUMBER_WORD_VALUES

    lower = set(re.findall(r"\b[a-z]+\b", question + " " + solution))
    out = set()
    for m in _CAPITAL.finditer(question):
        w = m.group(0)
        if w in _NOT_A_NAME:
            continue
        before = question[:m.start()].rstrip()
        if before and before[-1] not in ".!?\"'":
            out.add(w)
        elif w.lower() not in lower and w.lower() not in NUMBER_WORD_VALUES and w.lower() not in _STOP \
                and w.lower() not in CLAUSE_STOP:
            out.add(w)
    return frozenset(out)


def _before(text: str, pos: int) -> str:
    """The text of the line of ``pos`` before it: where a line names whose quantity it computes."""
    return text[text.rfind("\n", 0, pos) + 1:pos]


def decide_by_owner(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                    givens: Givens, solution: str) -> Readings:
    """Whose quantity a number is, by the one name its line writes before the computation (its
    subject, not "for the two devices he bought last Monday" after it): "So Elizabeth bought 3 x 20" is
    the 3 packs of "Elizabeth bought 1 + 2 = 3 packs", not the question's "Margareth bought 3 packs
    of blue"; "Margareth bought 3 + 4" is the question's. The line names one of the question's names;
    exactly one candidate names it before its number (the clause of the question's number, or an
    earlier step's line before its computation), and every other candidate names someone else
    there. Only where one reading is left."""
    from qcstation.core.construct.make.rules.clause_words import clause_span
    from qcstation.core.construct.make.rules.phrases import phrase_re
    from qcstation.core.reading.words import WORD_GIVENS

    names = question_names(givens.question, solution)
    if len(names) < 2:
        return readings
    decided: dict[int, int | None] = {}
    for n, i, _k, terms, v in open_numbers(readings, ch, exprs):
        line = _line_at(solution, comps[i].start)
        if sum(1 for x in terms if x.value == v) > 1:
            continue
        own = _owners(_before(solution, comps[i].start), names)
        if len(own) != 1:
            continue  # the line names no one, or two, before its computation
        cands: dict[int | None, frozenset[str]] = {}
        for j in ch.options[n]:
            if j is None:
                starts = [q.start for q in givens.numbers if q.value == v and not q.percent] or \
                    [m.start() for p, vals in WORD_GIVENS.items() if v in vals
                     for m in phrase_re(p, True).finditer(givens.question)]
                if len({clause_span(givens.question, st) for st in starts}) != 1:
                    break  # the question's number at two places (or none): whose it is, unread here
                a, _ = clause_span(givens.question, starts[0])
                cands[None] = _owners(givens.question[a:min(starts)], names)
            else:
                line_j = _line_at(solution, comps[j].start)
                if line_j == line:
                    break
                cands[j] = _owners(_before(solution, comps[j].start), names)
        else:
            hits = [j for j, who in cands.items() if who & own]
            if len(hits) == 1 and all(who and not who & own for j, who in cands.items() if j != hits[0]):
                decided[n] = hits[0]
    return _keep_decided(readings, ch, decided, lambda j: OWNER_EVIDENCE)


#: the evidence of a link the names of the lines decide
OWNER_EVIDENCE = "the words: the line names whose quantity it is, as only this candidate's words do"


#: the unit factors a line may state as a fact: value -> (the smaller unit, the larger unit)
_STATED_FACTORS: dict[Fraction, tuple[tuple[str, str], ...]] = {
    Fraction(60): (("minutes", "hour"), ("seconds", "minute")),
    Fraction(12): (("months", "year"), ("inches", "foot")),
    Fraction(100): (("cents", "dollar"), ("pennies", "dollar")),
    Fraction(7): (("days", "week"),),
    Fraction(24): (("hours", "day"),),
    Fraction(52): (("weeks", "year"),),
    Fraction(365): (("days", "year"),),
}


def _states_factor(line: str, v: Fraction) -> bool:
    """Does a line state the unit factor ``v`` as a fact ("there are 12 months in a year", "a dollar
    is equal to 100 cents", "60 minutes is in an hour")?"""
    n = re.escape(str(v.numerator))
    for small, large in _STATED_FACTORS.get(v, ()):
        forward = rf"(?<![\d.]){n}\s+{small}\s+(?:is\s+|are\s+)?(?:in|per|to|make|makes|equal)\s+(?:an?|one|each|every|1)\s+{large}\b"
        backward = rf"\b(?:an?|one|each|every|1)\s+{large}\s+(?:is|has|equals|is\s+equal\s+to|=)\s+{n}\s+{small}\b"
        if re.search(forward, line, re.I) or re.search(backward, line, re.I):
            return True
    return False


def decide_stated_factors(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                          givens: Givens, solution: str) -> Readings:
    """A unit factor the line states as a fact ("since there are 12 months in a year that means he
    buys 12*2"; "Since a dollar is equal to 100 cents, then 500 cents is equal to 500/100"), that the
    question's words make plausible, written once in the step's term, is that named constant, not
    an earlier result of equal value ("1*12 = 12 games"). Only where one reading is left."""

    decided: dict[int, int | None] = {}
    for n, i, _k, terms, v in open_numbers(readings, ch, exprs):
        if None not in ch.options[n] or v not in givens.factors or sum(1 for x in terms if x.value == v) > 1:
            continue
        if _states_factor(re.sub(r"<<[^<>]*>>", " ", _line_at(solution, comps[i].start)), v):
            decided[n] = None
    return _keep_decided(readings, ch, decided, lambda j: STATED_FACTOR_EVIDENCE)


#: the evidence of a number the line states as a unit factor
STATED_FACTOR_EVIDENCE = "the words: the line states this unit factor as a fact (12 months in a year)"
