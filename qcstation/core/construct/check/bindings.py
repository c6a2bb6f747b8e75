"""Whether each given a formalization uses is tied to the words that state it, re-derived
from the question and the gold solution alone, never from the labels a rule wrote with its
artifact: it can fail where the rule is wrong. The construction rules ask these before they
accept a formalization (``rules.dispatch.check_independently``) and the make-time audit
(:mod:`qcstation.core.construct.check.selfcheck`) asks them again of the stored SMT-LIB.

* :func:`binding_problems`: which words each given a step uses is tied to. For a step, the
  solution's line that computes it names its numbers ("2 * 30 days"); the question's
  occurrences of the same value name theirs ("30 lbs", "half", "2 sons"). A given whose
  solution words agree with none of the question's, or whose solution line names nothing
  while the question offers it under different words, is a binding no reader can vouch for
  (unless the word before it ties it: :func:`~.context.vouched_by_word_before`).
* :func:`step_literals`: numbers written into a step's definition instead of a declared given.
* :func:`equal_value_links`: a step that uses an earlier result whose value the question
  also states, unless the solution's words confirm the link (:func:`link_by_words`) or the
  formalization forces it (:func:`_forced_pair`: the earlier result has no other use, and the
  question's one number of that value has its own, in the step or in another; more generally
  :mod:`~qcstation.core.construct.check.dangling`: every place of the value has its own given,
  used once, and the line's words do not name one of them).

A step is read on its own line of the solution: the line with its result whose computation writes its operands
(:func:`~qcstation.core.reading.words.step_line`), so two steps of equal result are never both read on the first.
The words are read on the reading floor (:mod:`qcstation.core.reading.words`); units by :mod:`.units`.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from qcstation.common.memo import text_memo
from qcstation.core.construct.check.terms import names as expr_names  # the names a term uses (re-exported)
from qcstation.core.construct.check.terms import product_factors as _product_factors
from qcstation.core.construct.check.terms import subterms as _subterms
from qcstation.core.construct.check.categories import named_by_kind
from qcstation.core.construct.check.conversions import converted_by_given, two_places
from qcstation.core.construct.check.context import (counts_the_terms, times_of_no_place, one_sum_or_product as _one_sum_or_product, size_of_counted,
                                                    spelled_each, swap_invariant as _swap_invariant, vouched_by_context,
                                                    vouched_by_word_before, word_by_its_sentence, earlier_result_named)
from qcstation.core.construct.check.dangling import every_place_used
from qcstation.core.construct.check.worded_links import (count_of_a_percent_value, percent_result_of_a_count_value,
                                                        rate_named_by_product)
from qcstation.core.construct.check.elimination import vouched_by_elimination
from qcstation.core.construct.check.word_clauses import vouched_by_word_clauses
from qcstation.core.construct.check.written_forms import vouched_by_written_form
from qcstation.core.construct.check.lines_apart import vouched_by_lines_apart
from qcstation.core.construct.check.own_result import crossed_twin, own_line, place_by_line, without_result
from qcstation.core.construct.check.sentence_operands import vouched_by_sentence_operands
from qcstation.core.construct.check.partitive_rates import partitive_rate_problems
from qcstation.core.construct.check.unit_sizes import sized_unit_problems
from qcstation.core.construct.check.multipliers import object_of_own_word, own_word_givens, vouched_by_multiplied  # noqa: E501
from qcstation.core.construct.check.repeats import repeated_given
from qcstation.core.construct.check.units import places_it_can_be, unit_problems, vouched_by_units
from qcstation.core.construct.check.clause_vouch import vouched_by_clause, vouched_by_operand
from qcstation.core.reading.textnumbers import word_key
from qcstation.core.reading.words import (MAX_TEXT, clause_after_value, number_word_stems, result_words, ANNOTATION, NUMBER_WORD_VALUES, NUMERAL, WORD_GIVEN_STEMS, Occurrence, fmt_value, joined_stems, number_word_matches, numeral_value, numeral_values, question_occurrences, solution_lines, stem, step_line, operand_values, words_after_value, blank_size_names)

__all__ = ["Binding", "binding_problems", "equal_value_links", "expr_names", "link_by_words", "step_literals"]


@dataclass(frozen=True)
class Binding:
    """A given a step uses whose words no reader can match to the question's."""

    step: str
    value: Fraction
    solution_words: tuple[str, ...]
    question_texts: tuple[str, ...]

    def describe(self) -> str:
        v = fmt_value(self.value)
        q = ", ".join(repr(t) for t in self.question_texts[:4])
        if self.solution_words:
            return (f"{self.step} uses {v} as '{v} {' '.join(self.solution_words)}' in the solution, "
                    f"but the question states {v} only as {q}")
        return f"{self.step} uses {v}, which the question states under different words: {q}"


def binding_problems(defs: dict[str, Any], values: dict[str, Fraction], question: str,
                     solution: str) -> list[Binding]:
    """Givens whose words the solution and the question do not agree on (see the module
    docstring). ``defs`` are a formalization's definitions (name -> expression), ``values``
    their values; a given is a name defined as a number.

    The rules ask this of a formalization before they accept it (from its steps) and the
    make-time audit asks it again of the same formalization (read back from its SMT-LIB): the
    answer is kept for the last formalizations by :func:`_bindings_key`, which keeps exactly
    what the checks read."""
    if not question or not solution:
        return []
    question = blank_size_names(question, solution)  # "ten 2 x 4 x 10 boards" / "the 2 x 4s": a name
    try:
        key = (_bindings_key(defs, values), question, solution)
        hit = _BINDINGS.get(key)
    except (_Unkeyed, TypeError):
        return _binding_problems(defs, values, question, solution)
    if hit is None:
        hit = tuple(_binding_problems(defs, values, question, solution))
        if len(_BINDINGS) >= _BINDINGS_KEEP:
            del _BINDINGS[next(iter(_BINDINGS))]
        _BINDINGS[key] = hit
    return list(hit)


#: the last answers of :func:`binding_problems` (key -> problems), oldest first
_BINDINGS: dict[Any, tuple[Binding, ...]] = {}
_BINDINGS_KEEP = 256


class _Unkeyed(Exception):
    """A formalization :func:`_bindings_key` does not describe (it is checked without the memo)."""


def _bindings_key(defs: dict[str, Any], values: dict[str, Fraction]) -> tuple[Any, ...]:
    """What :func:`_binding_problems` reads of a formalization, and nothing else: the
    definitions in order, each step by its shape (names, operators, numbers), each given only
    as a given (a number, its negation or a quotient of two numbers: only its value counts,
    and that is in ``values``); a definition that only names a step no definition uses
    ("answer = s4") is left out (no check reads it), with its value. Raises :class:`_Unkeyed`
    for a term of another kind or deeper than the checks read."""
    used: set[str] = set()
    for e in defs.values():
        used |= expr_names(e)
    items: list[tuple[str, Any]] = []
    for name, e in defs.items():
        if _is_given(e):
            items.append((name, "given"))
        elif _kind(e) == "Name" and e.name in defs and not _is_given(defs[e.name]) and name not in used:
            continue
        else:
            items.append((name, _shape(e)))
    kept = {name for name, _ in items}
    if not all(type(v) is Fraction for v in values.values()):
        raise _Unkeyed
    return tuple(items), frozenset((n, v) for n, v in values.items() if n in kept)


def _shape(e: Any, depth: int = 0) -> tuple[Any, ...]:
    if depth > 200:
        raise _Unkeyed
    k = _kind(e)
    if k == "Num":
        return ("Num", e.value)
    if k == "Name":
        return ("Name", e.name)
    if k == "Neg":
        return ("Neg", _shape(e.operand, depth + 1))
    if k == "BinOp":
        return ("BinOp", e.op, _shape(e.left, depth + 1), _shape(e.right, depth + 1))
    raise _Unkeyed


def _binding_problems(defs: dict[str, Any], values: dict[str, Fraction], question: str,
                      solution: str) -> list[Binding]:
    occurrences = question_occurrences(question)
    # "1/4 that number", divided as "8 / 4": a unit fraction is also a place of the number it divides by
    reciprocals = [Occurrence(1 / o.value, o.text, o.words | {"~1/n"}) for o in occurrences
                   if o.value.numerator == 1 and o.value.denominator > 1 and "/" in o.text.split()[0]]
    lines = solution_lines(solution)
    problems: list[Binding] = []
    seen: set[tuple[str, Fraction]] = set()
    taken: dict[tuple[object, ...], set[int]] = {}  # the lines read so far (own_result.own_line)
    for step, expr in defs.items():
        if _kind(expr) in ("Num", "Name") or _is_given(expr) or step not in values:
            continue
        # the step's own line: by its result and its operands (two steps of equal result are
        # each read on their own line)
        at = own_line(solution, values[step], operand_values(expr, values), taken)
        if at is None:
            continue
        line = lines[at][0]
        # the first line of that result and those operands: two lines computing the same from the same
        # numbers ("3 bids * $50" twice for "3 other people") may say it either way; one given that the
        # two stand for two places is asked by _one_given_for_two
        first = step_line(solution, values[step], operand_values(expr, values))
        twin = lines[first][0] if first is not None and first != at else None
        for dep in sorted(expr_names(expr)):
            if dep not in defs or not _is_given(defs[dep]) or dep not in values:
                continue
            v = values[dep]
            if (step, v) in seen or v == 0:
                continue
            seen.add((step, v))
            same = [d for d in set(expr_names(expr)) if d in defs and _is_given(defs[d]) and values.get(d) == v]
            if len(same) > 1 and len(same) >= sum(o.value == v for o in occurrences) \
                    and (_one_sum_or_product(expr) or _swap_invariant(expr, same)):
                # "two miles each ... 2+2": a sum of one place twice, not of "Two miles" and "2 gallons"
                crossed = crossed_twin(line, v, [o for o in occurrences if o.value == v], same) \
                    if getattr(expr, "op", None) == "+" and _kind(expr.left) == _kind(expr.right) == "Name" else None
                if crossed is not None:
                    problems.append(Binding(step, v, (), tuple(o.text for o in occurrences if o.value == v)))
                continue  # "3 sprints 3 times" -> 3*3, "20 x 20/100": each place once, which is which is immaterial
            if spelled_each(expr, same, v, line, [o for o in occurrences if o.value == v]):
                continue  # "Three children each have three children ... 3*3" (698)
            if _constant_named_by_line(dep, v, line):
                continue  # "10 birds * 2 legs/bird" for k_legs_per_birds: the constant, not "2 cats"
            if _constant_of_every_place(dep, v, occurrences):
                continue  # "4 dozen brownies" ... "12*3.5" for k_per_dozen: the unit every place names
            occ = occurrences + reciprocals if _divides_by(expr, dep) else occurrences
            once = sum(1 for d in expr_names(expr) if d in values and values[d] == v) == 1 and _name_count(expr, dep) == 1
            args = (occ, solution, dep, question, _other_operand(expr, dep, defs, values), once, expr, defs, values)
            problem = _one_binding(step, v, line, *args)
            if problem is not None and values[step] == v and _one_binding(step, v, without_result(line, v), *args) is None:
                problem = None  # "50-15-20 = 15 cat owners": the result's words are not the operand's
            if problem is not None and twin is not None and _one_binding(step, v, twin, *args) is None:
                problem = None
            problem = problem or _unit_mismatch(step, expr, dep, v, occurrences)
            if problem is not None:
                problems.append(problem)
    return problems + _percent_over_given(defs, values, occurrences) \
        + _one_given_for_two(defs, values, occurrences, solution, question) + _paired_apart(defs, values, question) \
        + _two_roles(defs, values, occurrences, lines, question) + [Binding(*found) for found in converted_by_given(
            defs, values, {n for n, e in defs.items() if _is_given(e)}, question, lines, _places(question))] \
        + [Binding(*found) for found in repeated_given(defs, values, question, _places(question), _is_given)] \
        + [Binding(*found) for found in unit_problems(defs, values, question, solution, occurrences, _is_given)] \
        + [Binding(*found) for found in sized_unit_problems(defs, values, solution, occurrences, _is_given)] \
        + [Binding(*found) for found in partitive_rate_problems(defs, values, question, solution, occurrences, _is_given)]


_CONSTANT_FILLER = frozenset({"k", "per", "of", "a", "an", "in", "the"})


def _constant_of_every_place(name: str, v: Fraction, occurrences: list[Occurrence]) -> bool:
    """Is ``name`` a named constant (``k_per_dozen``) and every place where the question states
    ``v`` a word of that name ("one dozen", "4 dozen", "1/2 a dozen": the unit, never a count)?
    Then no place of the question is another quantity of that value the constant could stand for."""
    if not name.startswith("k_"):
        return False
    own = {stem(w) for w in name.split("_") if w and w not in _CONSTANT_FILLER}
    places = [o for o in occurrences if o.value == v]
    return bool(places) and all(not o.text[:1].isdigit() and {stem(w) for w in o.text.lower().split()} - {"a"} <= own
                                for o in places)


def _constant_named_by_line(name: str, v: Fraction, line: str) -> bool:
    """Is ``name`` a named constant (``k_legs_per_birds``) whose value the step's line writes with
    words of that name ("2 legs/bird")? Then the line's number is that constant, not a place of
    the question, and it is not bound to the question's words: the question's "2 cats" is no
    place of it. A constant whose words the line does not write is checked as a given is."""
    if not name.startswith("k_"):
        return False
    own = {stem(w) for w in name.split("_") if w and w not in _CONSTANT_FILLER} | ({"day"} if "weekdays" in name else set())
    return any({stem(w) for w in ws} & own for ws in words_after_value(line, v) or [])  # "5 days" of the weekdays


def _percent_over_given(defs: dict[str, Any], values: dict[str, Fraction],
                        occurrences: list[Occurrence]) -> list[Binding]:
    """A given the question states only as a percent ("40%") divided by a given of value 100:
    "40/100 * 100" for "40% cheaper than the $100 blue car" (979) binds the percent's 100 to the
    $100 price, one given in two roles (move the price and the percent moves with it)."""
    out: list[Binding] = []
    for step, expr in defs.items():
        for e in _subterms(expr):
            if getattr(e, "op", None) != "/" or _kind(e.right) != "Name":
                continue
            bottom = str(e.right.name)
            if not (bottom in defs and _is_given(defs[bottom]) and bottom in values) \
                    or values[bottom] != 100 or bottom.startswith("k_"):
                continue
            # the percent divided, alone or as a factor of a product ("100*2/100" for "$100 ...
            # monthly interest of 2%": the 100 under the 2 is the percent's, not the $100 debt)
            for top in [str(f.name) for f in _product_factors(e.left) if _kind(f) == "Name"]:
                if not (top in defs and _is_given(defs[top]) and top in values) or top == bottom:
                    continue
                places = [o for o in occurrences if o.value == values[top] and o.start >= 0]
                if places and all("%" in o.words for o in places):
                    out.append(Binding(step, Fraction(100), ("%",),
                                       tuple(o.text for o in occurrences if o.value == 100)))
                    break
    return out




def _name_count(expr: Any, name: str, depth: int = 0) -> int:
    if depth > 200:
        return 0
    k = _kind(expr)
    if k == "Name":
        return int(str(expr.name) == name)
    if k == "Neg":
        return _name_count(expr.operand, name, depth + 1)
    if k == "BinOp":
        return _name_count(expr.left, name, depth + 1) + _name_count(expr.right, name, depth + 1)
    return 0


def _two_roles(defs: dict[str, Any], values: dict[str, Fraction], occurrences: list[Occurrence],
               lines: list[tuple[str, list[Fraction]]], question: str = "") -> list[Binding]:
    """One given a step uses twice where its line writes the value once with the words of the
    question's place and once with words no place of that value has: "5 dance classes 5 days a
    week so that's 5*5" (71: the question's 5 is "5 dance classes"; the 5 days are its
    "weekdays"). Two roles of one number, tied by its value alone."""
    out: list[Binding] = []
    for step, expr in defs.items():
        if _is_given(expr) or step not in values:
            continue
        line = None
        for dep in sorted(expr_names(expr)):
            if dep not in defs or not _is_given(defs[dep]) or dep not in values or _name_count(expr, dep) < 2:
                continue
            v = values[dep]
            cands = [o for o in occurrences if o.value == v]
            if not cands or not all(o.words for o in cands):
                continue
            if line is None:
                line = next((prose for prose, results in lines if values[step] in results), "")
            named = [{stem(w) for w in ws} for ws in (words_after_value(line, v) or []) if ws]
            agree = [ws for ws in named if any(o.words & ws for o in cands)]
            other = [ws for ws in named if not any(o.words & ws for o in cands)]
            if agree and other:
                out.append(Binding(step, v, tuple(sorted(other[0])), tuple(o.text for o in cands)))
            elif len(cands) > 1 and len(named) > 1 and two_places(line, v, question, _places(question)):
                # "2 skeins per hat + ... + 2 skeins per pair of socks" as g + ... + g where the
                # question states "2 skeins ... a hat" and "2 for a pair of socks": each use names
                # a different place of the value, so one given stands for two quantities (521)
                out.append(Binding(step, v, (), tuple(o.text for o in cands if not any(w[:1] == "~" for w in o.words))))
    return out


@text_memo(maxsize=512)
def _places(question: str) -> tuple[tuple[Fraction, int, int], ...]:
    """(value, start, end) of every number the question writes, in digits or as a number word
    (read once per question: the rules and the audit ask it of the same question)."""
    q = question[:MAX_TEXT]
    out = []
    for m in (*NUMERAL.finditer(q), *number_word_matches(q)):
        v = numeral_value(m) if m.re is NUMERAL else Fraction(NUMBER_WORD_VALUES[word_key(m.group(1), NUMBER_WORD_VALUES)])
        if v is not None:
            out.append((v, m.start(), m.end()))
    return tuple(out)


_CLAUSE_BOUND = re.compile(r"(?=[.;,a])(?:[.;,]\s|\band\b)")  # (tried only where a match can start)


@text_memo(maxsize=512)
def _clause_bounds(question: str) -> tuple[int, ...]:
    """Where the question's clauses start and end (for :func:`_paired_apart`)."""
    return (0, *[m.end() for m in _CLAUSE_BOUND.finditer(question[:MAX_TEXT])], len(question))


def _paired_apart(defs: dict[str, Any], values: dict[str, Fraction], question: str) -> list[Binding]:
    """One given that two steps pair with two different places of its value: "Three of the
    women ... are wearing 4 inch heels and three are wearing 2 inch heels" computed as 3 * 4
    and 3 * 2 with one given 3 (1110; 561's "3 of the cages have 10 hamsters and the other 3
    have 5 guinea pigs"). The clause that states the other operand (stated once) states the
    value as well: that place is the one the step uses."""
    places = _places(question)
    bounds = _clause_bounds(question)

    def clause(pos: int) -> tuple[int, int]:
        a = max(b for b in bounds if b <= pos)
        return a, min(b for b in bounds if b > pos)

    paired: dict[str, set[int]] = {}
    said: dict[tuple[str, int], str] = {}
    for expr in defs.values():
        if getattr(expr, "op", None) not in ("*", "/"):
            continue
        ops = [n for n in (getattr(expr.left, "name", None), getattr(expr.right, "name", None))
               if n in defs and _is_given(defs[n]) and n in values]
        if len(ops) != 2 or ops[0] == ops[1]:
            continue
        for g, h in (ops, ops[::-1]):
            v, w = values[g], values[h]
            at_v = [p for p in places if p[0] == v]
            at_w = [p for p in places if p[0] == w]
            if len(at_v) < 2 or len(at_w) != 1 or v == w:
                continue
            a, b = clause(at_w[0][1])
            here = [i for i, p in enumerate(at_v) if a <= p[1] < b and p[1] != at_w[0][1]]
            if len(here) == 1:
                paired.setdefault(g, set()).add(here[0])
                said[(g, here[0])] = question[a:b].strip(" ,.;")[:50]
    # (described as a binding whose places differ: the clause of each place)
    return [Binding(g, values[g], (), tuple(said[(g, i)] for i in sorted(which)))
            for g, which in paired.items() if len(which) > 1]


def _one_given_for_two(defs: dict[str, Any], values: dict[str, Fraction], occurrences: list[Occurrence],
                       solution: str, question: str) -> list[Binding]:
    """One given that stands for two places of the question: the question states its value
    twice, and the steps that use it name it with the words of a different place each (877:
    "5 questions * 60%" and "3 questions * 5 points": the 5 long-answer questions and the 5
    points each are two givens, not one)."""
    out: list[Binding] = []
    for dep, e in defs.items():
        if not _is_given(e) or dep not in values:
            continue
        v = values[dep]
        # places named by words ("5 points", not a bare "20%" or "$20")
        cands = [o for o in occurrences if o.value == v and o.words - {"$", "%"} and not o.words & WORD_GIVEN_STEMS]
        if len(cands) < 2 or not _distinct(cands):
            continue
        places: dict[int, str] = {}
        lines = solution_lines(solution)
        taken: dict[tuple[object, ...], set[int]] = {}
        for step, expr in defs.items():
            if step not in values or _is_given(expr) or _kind(expr) == "Name":
                continue
            at = own_line(solution, values[step], operand_values(expr, values), taken)  # each step its own line
            if dep not in expr_names(expr) or at is None:
                continue
            given_ops = [d for d in expr_names(expr) if d in defs and _is_given(defs[d]) and d in values]
            uses = sum(_name_count(expr, d) for d in given_ops if values[d] == v)
            others = [values[d] for d in given_ops if values[d] != v]
            k = place_by_line(lines[at][0], v, cands, question, others, occurrences, uses)  # "15x2 = 30 cats"
            if k is not None:
                places[k] = step
        if len(places) > 1:
            out.append(Binding(dep, v, (), tuple(cands[k].text for k in sorted(places))))
    return out


def _divides_by(expr: Any, name: str) -> bool:
    """Does ``expr`` divide by the name ``name`` (at any depth)?"""
    if getattr(expr, "op", None) == "/" and _kind(expr.right) == "Name" and str(expr.right.name) == name:
        return True
    return any(_divides_by(e, name) for e in (getattr(expr, "left", None), getattr(expr, "right", None),
                                              getattr(expr, "operand", None), getattr(expr, "arg", None)) if e is not None)


_PER_FACTOR = re.compile(r"k_([a-z]+)_per_[a-z]+")


def _unit_mismatch(step: str, expr: Any, dep: str, v: Fraction, occurrences: list[Occurrence]) -> Binding | None:
    """A given added to or taken from a named rate of units ("7 days a week" − 2) counts those
    units; where the question states its value only under other words ("2 weeks", while the
    solution's "7-2=5 days a week" takes the 2 days off of "except Sunday and Wednesday"),
    the given is not that number."""
    if getattr(expr, "op", None) not in ("+", "-"):
        return None
    sides = [getattr(expr, "left", None), getattr(expr, "right", None)]
    names = [str(getattr(e, "name", "")) for e in sides if _kind(e) == "Name"]
    if dep not in names:
        return None
    unit = next((m.group(1) for n in names if (m := _PER_FACTOR.fullmatch(n))), None)
    if unit is None:
        return None
    cands = [o for o in occurrences if o.value == v]
    if not cands or any(stem(unit) in o.words for o in cands):
        return None
    return Binding(step, v, (unit,), tuple(o.text for o in cands))


def link_by_words(v: Fraction, step_value: Fraction, dep_value: Fraction, question: str,
                  solution: str, additive: bool = False, step_operands: list[Fraction] | None = None,
                  dep_operands: list[Fraction] | None = None) -> bool:
    """Do the words confirm that a step uses an earlier result ``v`` rather than the question's
    ``v``? The step's line writes ``v`` with words that the earlier step's line also writes
    after its result, and none of the question's occurrences of ``v`` has those words
    ("40 minutes" in both lines; the question's 40 is "40%"). In a sum or difference
    (``additive``) whose line names ``v`` with no words, the words after the step's own result
    name it (a sum's terms count what it counts: "100-30 = $70" beside "$30 discount", while the
    question's 30 is "30%")."""
    lines = solution_lines(solution)
    # each step on its own line, found by its result and operands (:func:`step_line`)
    at, dep_at = step_line(solution, step_value, step_operands), step_line(solution, dep_value, dep_operands)
    if at is None or dep_at is None or at == dep_at:
        return False
    line, dep = lines[at][0], lines[dep_at][0]
    if line == dep:
        return False
    here = {stem(w) for ws in (words_after_value(line, v) or []) for w in ws}
    there = {stem(w) for ws in (words_after_value(dep, v) or []) for w in ws}
    # "= $<<0.60*10=6>>6 from selling": the "$" before a result its annotation stood between
    there |= result_words(dep, dep_value) & {"$"}
    if additive and not here:
        here, there = set(result_words(line, step_value)), set(result_words(dep, dep_value))
    elif not here and step_operands is not None:
        # None: no product of a rate and a count the words name; nothing is shared
        here, there = rate_named_by_product(line, dep, v, step_value, dep_value, step_operands) or (set(), set())
    elif additive:
        # what the earlier step computes is named after its result ("= $ 20.00", its annotation
        # blanked: {$}), not by the operands its line writes with the same value ("40 cookies
        # cost 40 x $1 = $40": the result is dollars)
        there |= set(result_words(dep, dep_value))
    shared = here & there
    if not shared:
        return False
    return not any(o.words & shared for o in question_occurrences(question) if o.value == v)


def _additive(e: Any, depth: int = 0) -> bool:
    """Is a term one sum or difference ("6+4", "43-4-8"), of names or numbers?"""
    if depth > 200:
        return False
    if _kind(e) == "BinOp":
        return e.op in ("+", "-") and _additive(e.left, depth + 1) and _additive(e.right, depth + 1)
    return _kind(e) in ("Name", "Num")


def _distinct(cands: list[Occurrence]) -> bool:
    """Do the question's occurrences of one value name different things? Two occurrences
    name the same thing when their words share a stem or either names nothing."""
    # "a two-speed lawn mower" and "half": a number hyphened to a word names that word
    named = [o.words or o.compound for o in cands if o.words or o.compound]
    return any(not (a & b) for i, a in enumerate(named) for b in named[i + 1:])


def _other_operand(expr: Any, dep: str, defs: dict[str, Any], values: dict[str, Fraction]) -> Fraction | None:
    """The value of the other given of a step that multiplies or divides two givens, one of
    them ``dep`` ("$26 x 2"); None for any other step."""
    if getattr(expr, "op", None) not in ("*", "/"):
        return None
    names = [str(getattr(e, "name", "")) for e in (expr.left, expr.right) if _kind(e) == "Name"]
    if len(names) != 2 or names.count(dep) != 1:
        return None
    other = names[1] if names[0] == dep else names[0]
    if other not in defs or not _is_given(defs[other]) or other not in values:
        return None
    return values[other]


def _one_binding(step: str, v: Fraction, line: str, occurrences: list[Occurrence],
                 solution: str, given: str = "", question: str = "", other: Fraction | None = None,
                 once: bool = False, expr: Any = None, defs: dict[str, Any] | None = None,
                 values: dict[str, Fraction] | None = None) -> Binding | None:
    cands = places_it_can_be(given, expr, [o for o in occurrences if o.value == v])  # added: never "twice"
    if not cands:
        return None
    written = words_after_value(line, v)
    # "$3.00 x 3" (873): the words are the earlier result's ($3.00 a bottle); the bare 3 the given
    named = [] if earlier_result_named(written, expr, v, defs, values, _is_given) else [w for w in written or [] if w and not times_of_no_place(w, cands)]
    if not named and len(cands) > 1 and once:
        # "The two adults pay $26 x 2": the line names the value in words once, and the step
        # uses it once
        spelled = [] if counts_the_terms(expr, v) else number_word_stems(line, v)  # "In three days ... 3+12+6"
        if len(spelled) == 1 and spelled[0]:
            named = [sorted(spelled[0])]
    # a word given of this value that the line writes ("Half of Raymond's jewels is 40/2")
    said = {o.text.lower() for o in cands if o.words & WORD_GIVEN_STEMS
            and re.search(r"\b" + re.escape(o.text) + r"\b", line, re.IGNORECASE)}
    if not named and len(said) == 1:
        # tied to its words when the given is that word given ("w_half..."), else a digit of
        # the question stands where the line says a word
        phrase = re.sub(r"[^a-z]+", "_", next(iter(said))).strip("_")
        if given.startswith("w_" + phrase):
            return None
        return Binding(step, v, (), tuple(o.text for o in cands))
    if not named and len(cands) > 1 and _distinct(cands) and clause_after_value(ANNOTATION.sub(" ", line), v):
        return Binding(step, v, (), tuple(o.text for o in cands))  # "of 2400 so her car ...": no word of its own
    if not named:
        # the line names nothing after it (or does not write it: "64 cars * 1/4" for a 4): it is tied to one
        # occurrence only if the question states it one way only, or if the given is a word given ("twice",
        # "half") whose clause alone shares words with the line (clause_choice), or by units or elimination
        if _distinct(cands) and not vouched_by_clause(given, line, cands, question, own_word_givens(defs, v)) \
                and not vouched_by_operand(question, cands, other, occurrences, line, solution) \
                and not (once and size_of_counted(question, cands, other, occurrences)) \
                and not (once and vouched_by_word_before(given, line, v, cands, question)) \
                and not _decided_by_roles(expr, v, cands, defs, values, question) \
                and not vouched_by_context(given, expr, cands, occurrences, defs, values, question, _is_given, line, solution) \
                and not word_by_its_sentence(given, expr, line, cands, occurrences, defs, values, question, _is_given) \
                and not vouched_by_multiplied(given, line, v, cands, question, other, occurrences, step, values) \
                and not vouched_by_written_form(given, line, v, cands) \
                and not (defs is not None and values is not None
                         and vouched_by_lines_apart(given, v, cands, defs, values, solution, _is_given)) \
                and not (defs is not None and values is not None and (
                    vouched_by_elimination(given, v, cands, defs, values, solution, _is_given, question)
                    or vouched_by_word_clauses(given, v, cands, defs, values, solution, _is_given, question)
                    or vouched_by_sentence_operands(given, v, cands, expr, defs, values, question, occurrences, _is_given)
                    or once and vouched_by_units(
                        given, v, cands, step, expr, defs, values, line, solution, question, occurrences, _is_given))):
            return Binding(step, v, (), tuple(o.text for o in cands))
        return None
    stems = {stem(x) for ws in named for x in ws}
    if any((o.words | joined_stems(question, o.start)) & stems for o in cands) or not all(o.words for o in cands) \
            or object_of_own_word(given, stems, cands, question):  # "2 towels" for "twice as many towels"
        return None
    if named_by_kind(named, cands, given, line, question, v):
        return None  # "90 bugs" for "90 spiders" (399), "80 / 10 each week" for "10 toothpicks each week"
    if len(cands) > 1 and _distinct(cands) and not any(o.words & WORD_GIVEN_STEMS for o in cands):
        # 495's "the bottom 3 layers": the question states 3 as "3 stand on top" and "the 3",
        # neither the solution's, so which one the given is no reader can tell
        return Binding(step, v, tuple(named[0]), tuple(o.text for o in cands))
    # the solution names this value differently from every place the question states it:
    # a wrong binding when the solution also writes the value with the question's words
    # elsewhere ("2 * 30 days" here, "30 lbs" in another line: two different 30s)
    q_stems = set().union(*(o.words for o in cands))
    elsewhere = words_after_value(ANNOTATION.sub(" ", solution.replace(line, " ")), v) or []
    if any({stem(x) for x in ws} & q_stems for ws in elsewhere):
        return Binding(step, v, tuple(named[0]), tuple(o.text for o in cands))
    return None


def _roles_of(expr: Any, name: str, role: str = "", depth: int = 0) -> list[str]:
    """What each use of ``name`` does in ``expr``: "times" (a factor of a product), "divisor",
    or "" (added, subtracted, divided)."""
    if depth > 200:
        return []
    k = _kind(expr)
    if k == "Name":
        return [role] if str(expr.name) == name else []
    if k == "Neg":
        return _roles_of(expr.operand, name, "", depth + 1)
    if k == "BinOp":
        return _roles_of(expr.left, name, "times" if expr.op == "*" else "", depth + 1) \
            + _roles_of(expr.right, name, "times" if expr.op == "*" else "divisor" if expr.op == "/" else "",
                        depth + 1)
    return []


#: a comparing multiplier right after a place's number ("six times as many", "3 times more")
_TIMES_AS = re.compile(r"(?:\s*-\s*|\s+)times\s+(?:as|more|less|fewer|the|that|what|his|her|their|its|[a-z]+er)\b",
                       re.I)


def _fits(o: Occurrence, v: Fraction, roles: list[str], question: str = "") -> bool:
    """Can the place ``o`` (of value ``v``) be a number used in ``roles``? A word that multiplies
    or divides ("twice", "half": 2) is a factor or a divisor, read forwards ("5 * 2" for "twice")
    or backwards ("14 / 2" undoing "twice"): never added, subtracted or divided up; so is a number
    that compares as a multiplier ("six times as many digits": "24/6", never "4+6"); another digit
    or number word ("2 slices", "two feet", "six more digits than") may be anything."""
    if any(w.startswith("~") for w in o.words) or (question and o.start >= 0 and _times_after(question, o)):
        return all(r in ("times", "divisor") for r in roles)
    return True


def _times_after(question: str, o: Occurrence) -> bool:
    """Is the place ``o`` a number right before "times as", "times more"...?"""
    m = re.match(r"[\w$.,]+", question[o.start:o.start + 40])
    return m is not None and _TIMES_AS.match(question, o.start + m.end()) is not None


def _decided_by_roles(expr: Any, v: Fraction, cands: list[Occurrence], defs: dict[str, Any] | None,
                      values: dict[str, Fraction] | None, question: str = "") -> bool:
    """Do the roles of a step's numbers of value ``v`` tie each to one place of the question, the
    only way? "It takes 2/2" for "2 bolts ... and half that much": "half" is never divided up, so
    the dividend is "2 bolts" and the divisor "half"; "2 + 4" for "Abby can eat 2 slices ... Josh
    twice as much": "twice" never adds, so the 2 is "2 slices". Which of two places multiplies
    or divides the roles never tell (980: "half the age of his dad" is undone as "24 x 2"). The givens of value ``v`` the step
    uses (each used once) are matched to different places by their roles alone, and exactly one
    matching must exist; in it, a word given (``w_half``) must be its own words and any other given
    a digit or number word. "2 * 5" for "twice the time ... 2 hours less" is not decided: both
    places may multiply."""
    if expr is None or not defs or not values:
        return False
    same = sorted(d for d in expr_names(expr) if d in defs and _is_given(defs[d]) and values.get(d) == v)
    if not same or len(same) > len(cands) or any(_name_count(expr, d) != 1 for d in same):
        return False
    # every place of the value is some given of the formalization: a place left over may be the
    # one a use means, read backwards ("14 = twice the fish" solved as "28/2"; "half as many
    # cookies" undone as "3 * 2"), where the roles below would mislead
    if sum(1 for d, e in defs.items() if _is_given(e) and values.get(d) == v) != len(cands):
        return False
    # the places each use can be, by its role alone (not by what the formalization calls it)
    options = [[i for i, o in enumerate(cands) if _fits(o, v, _roles_of(expr, d), question)] for d in same]
    picks = [p for p in itertools.product(*options) if len(set(p)) == len(p)]
    if len(picks) != 1:
        from qcstation.core.construct.check.role_match import decided_across_steps

        return decided_across_steps(v, cands, defs, values, question, _fits, _roles_of, _is_given)
    # and the one way is the formalization's: a word given is its own words, another given a digit
    for d, i in zip(same, picks[0]):
        o = cands[i]
        if d.startswith("w_") != any(w.startswith("~") for w in o.words):
            return False
        if d.startswith("w_") and not d.startswith("w_" + re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_")):
            return False
        if not d.startswith("w_") and question and any(_times_after(question, c) for c in cands):
            from qcstation.core.construct.check.role_match import named_for

            if not named_for(d, cands, i):
                return False  # a digit the roles place beside a multiplier: its name must say which
    return True


# Terms are read by shape (class name and fields: Num.value, Name.name, BinOp.op/left/right,
# Neg.operand), so this module imports nothing of the rules (which use it).


def _kind(e: Any) -> str:
    return type(e).__name__


def _is_given(expr: Any) -> bool:
    if _kind(expr) == "Num":
        return True
    if _kind(expr) == "Neg" and _kind(expr.operand) == "Num":
        return True
    return bool(_kind(expr) == "BinOp" and expr.op == "/" and _kind(expr.left) == "Num"
                and _kind(expr.right) == "Num")


def equal_value_links(defs: dict[str, Any], values: dict[str, Fraction], question: str,
                      solution: str) -> list[str]:
    """Steps that use an earlier result whose value the question also states as a number,
    unless the solution's words confirm the link (:func:`link_by_words`)."""
    q_numbers = numeral_values(question)
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for name, e in defs.items():
        if _kind(e) == "Name":
            continue  # answer = s3: naming the result, not using it
        for dep in sorted(expr_names(e)):
            if dep not in defs or _is_given(defs[dep]) or (name, dep) in seen:
                continue
            v = values.get(dep)
            if v is not None and v in q_numbers and name in values \
                    and not _percent_beside(v, e, defs, values, question) \
                    and not count_of_a_percent_value(name, dep, v, defs, values, question, solution, _is_given) \
                    and not percent_result_of_a_count_value(name, dep, v, defs, values, question, solution, _is_given) \
                    and not _forced_pair(name, dep, v, defs, values, question) \
                    and not link_by_words(v, values[name], v, question, solution, _additive(e),
                                          operand_values(e, values), operand_values(defs[dep], values)) \
                    and not every_place_used(name, dep, v, defs, values, question, solution, _is_given):
                seen.add((name, dep))
                out.append(f"{name} uses {dep} = {fmt_value(v)}, a value the question also states")
    return out


def _forced_pair(name: str, dep: str, v: Fraction, defs: dict[str, Any], values: dict[str, Fraction],
                 question: str) -> bool:
    """Is the link forced by what the formalization must use? A step that is one sum or product
    of an earlier result ``v`` and a given of the same value ("3*3 = 9 hours a week": the 3 hours
    a night and the question's "3 times a week"), each written once in it, the earlier result used
    by no other step (the given may be, unless squared), where the question states ``v`` once:
    the two equal terms are two quantities, the question's number is one of them, and the earlier
    result, which nothing else uses, is the other (reading both as the question's number leaves a
    computed result unused)."""
    e = defs[name]
    if _name_count(e, dep) != 1:
        return False
    if sum(1 for o in question_occurrences(question) if o.value == v and o.start >= 0) != 1:
        return False
    others = [x for n, x in defs.items() if n != name and _kind(x) != "Name"]
    if any(_name_count(x, dep) for x in others):
        return False
    twins = [g for g in expr_names(e) if g in defs and _is_given(defs[g]) and not g.startswith("k_")
             and values.get(g) == v]
    if not twins:
        # the question's number has its use in another step ("12-4 = 8 years old" for "4 years
        # younger"), the earlier result none but this one ("20/5 = 4 packs", then "4*3 = $12")
        givens = [g for g in defs if _is_given(defs[g]) and not g.startswith("k_") and values.get(g) == v]
        # a given multiplied by itself ("2 x 2 = 4 boxes to her mom and sister": 2 boxes each,
        # and the two people?) may be one given in two roles: its other use vouches for nothing
        squared = any(getattr(x, "op", None) == "*" and _kind(x.left) == "Name" and _kind(x.right) == "Name"
                      and x.left.name == x.right.name for d in defs.values() for x in _subterms(d))
        return len(givens) == 1 and not squared and any(_name_count(x, givens[0]) for x in others)
    if len(twins) != 1 or _name_count(e, twins[0]) != 1 or not _one_sum_or_product(e):
        return False
    # the question's number may have other uses (354's "6/2", then "6+3+6"): the earlier result is still
    # the other equal term; a given multiplied by itself is one given in two roles, vouching for nothing
    return not any(getattr(x, "op", None) == "*" and _kind(x.left) == "Name" and _kind(x.right) == "Name"
                   and x.left.name == x.right.name == twins[0] for d in defs.values() for x in _subterms(d))


def _percent_beside(v: Fraction, expr: Any, defs: dict[str, Any], values: dict[str, Fraction],
                    question: str) -> bool:
    """Does a step use ``v`` beside a given of value ``v``/100 where the question states ``v``
    only as that percent ("10*.1 = $1" for "a 10% tax")? Then the question's ``v`` is that given;
    the step's ``v`` cannot be it a second time, so its link to an earlier result of that value
    is the one reading."""
    places = [o for o in question_occurrences(question) if o.value == v and o.start >= 0]
    if not places or not all("%" in o.words for o in places):
        return False
    return any(n in defs and _is_given(defs[n]) and values.get(n) == v / 100 for n in expr_names(expr))


def step_literals(defs: dict[str, Any]) -> dict[str, list[Fraction]]:
    """Numbers other than 0 and 1 written into a step's definition (not a declared given)."""
    out: dict[str, list[Fraction]] = {}
    for name, expr in defs.items():
        if _is_given(expr):
            continue
        found: list[Fraction] = []
        _literals_in(expr, 0, found)
        if found:
            out[name] = found
    return out


def _literals_in(e: Any, depth: int, found: list[Fraction]) -> None:
    """For :func:`step_literals`
    (a function of the module: a closure that calls itself is a reference cycle, which
    only the cyclic garbage collector frees)."""
    if depth > 200:
        return
    k = _kind(e)
    if k == "Num":
        if e.value not in (0, 1):
            found.append(e.value)
    elif k == "Neg":
        _literals_in(e.operand, depth + 1, found)
    elif k == "BinOp":
        _literals_in(e.left, depth + 1, found)
        _literals_in(e.right, depth + 1, found)

