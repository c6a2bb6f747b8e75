"""The independent check of a formalization that asserts an equation instead of defining each
step (a declared unknown and ``(assert (= lhs rhs))``: the equation rule's linear equations, the
``gsm8k-algebra`` rule's solutions). :func:`.bindings.binding_problems` reads a step by the line
that computes its result; an equation has no result of its own, so it is read here, from the
stored SMT-LIB, the question and the solution alone (never from the rule's labels):

* **Z3 solves it to the gold and only the gold** (:func:`qcstation.core.verify.solve.verify_core`,
  the verifier's own in-process check: satisfiable, ``answer`` unique, equal to the gold);
* **no bare literal**: every number other than 0 and 1 is a declared constant's definition
  (``(assert (= g1_members 105))``), never written into the equation or the answer's term;
* **every constant is a given or a named factor**: each defined constant is a given of the record
  (with its place in the question) or a named factor ``k_...``;
* **each given's place is the one its words say**: the record's span holds the given's value; a
  value the question states at more than one place is bound only where the words the solution
  writes after that value agree with exactly that one place (else no reader can tell which);
  a number the solution writes only with words that agree with none of the question's place
  for it is another quantity of the same value; a word given ("twice": 2) of a value the
  question also states as a number is refused (which one the equation means, no reader can tell).
  A given that multiplies the unknown is singled out by its role instead: the one place of its
  value the question writes as a multiplier ("three times the smallest angle", not "The three
  angles") whose words name what the solution's unknown stands for ("Let x be the measure of the
  smallest angle"), or a term the solution defines in it ("three times my brother's age" for
  "(X + 3) * 3" where "My brother is X + 3"); and the N of "N less than M times ..." that the
  equation takes from the product of the M's given and the unknown is that place by the words'
  structure ("2 less than three times as many brownies" / "(- (* g1_times x_c) g2)");
* **no given dropped**: a number of the question the solution computes with that the
  formalization uses nowhere is refused ("2(1/2)x=x" drops "double"); the value the solution finds
  for its unknown ("B = 15 / 5 = 3", then "2(3) + 4") is the unknown, not the question's "three".

:func:`equation_problems` returns the problems as text (empty: nothing found)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

__all__ = ["equation_problems"]

def _z3_problems(smtlib: str, gold: Fraction | None) -> list[str]:
    """Z3's problems with the equation: decided by its resource count
    (:data:`~qcstation.core.verify.outcome.STEADY_RLIMIT`), so the rules read a text the same on
    a quiet and on a loaded machine (derive re-reads every derived text with them); the wall
    clock is only a safety net, and its expiry raises :class:`VerificationError` (the run
    stops, to be run again) instead of refusing the text."""
    from qcstation.common.errors import VerificationError
    from qcstation.core.reading.answers import ExactAnswer, fraction_to_str
    from qcstation.core.verify.outcome import STEADY_RLIMIT, STEADY_WALL_S
    from qcstation.core.verify.solve import verify_core

    if gold is None:
        return ["no gold answer to check the equation's solution against"]
    kind = "integer" if gold.denominator == 1 else "fraction"
    out = verify_core(smtlib, ExactAnswer(gold, kind), fraction_to_str(gold), STEADY_WALL_S,
                      rlimit=STEADY_RLIMIT)
    if out.status == "timeout":
        raise VerificationError(f"the rules' equation check: {out.message}",
                                title="Z3 timed out under load")
    if out.status != "verified":
        return [f"z3: {out.status}: {out.message}"]
    return []


def _numeral(node: Any) -> Fraction | None:
    """The value of a number term (``12``, ``2.5``, ``(- 5)``, ``(/ 1 2)``), else None."""
    from qcstation.core.verify.smtlib import SList, Token

    if isinstance(node, Token):
        try:
            return Fraction(node.text)
        except (ValueError, ZeroDivisionError):
            return None
    if isinstance(node, SList) and node.items and isinstance(node.items[0], Token):
        op = node.items[0].text
        args = [_numeral(a) for a in node.items[1:]]
        if any(a is None for a in args) or not args:
            return None
        vals = [a for a in args if a is not None]
        if op == "-" and len(vals) == 1:
            return -vals[0]
        if op == "/" and len(vals) == 2 and vals[1]:
            return vals[0] / vals[1]
    return None


def _literals(node: Any, depth: int = 0) -> list[Fraction]:
    from qcstation.core.verify.smtlib import SList, Token

    if depth > 200:
        return []
    if isinstance(node, Token):
        try:
            v = Fraction(node.text)
        except (ValueError, ZeroDivisionError):
            return []
        return [] if v in (0, 1) else [v]
    if isinstance(node, SList):
        return [v for item in node.items for v in _literals(item, depth + 1)]
    return []


def _script_problems(smtlib: str, names: set[str]) -> tuple[list[str], dict[str, Fraction]]:
    """Bare literals outside the constants' definitions, and constants that are no declared
    given or named factor; with the constants' values."""
    from qcstation.common.errors import VerificationError
    from qcstation.core.verify.smtlib import SList, Token, parse_script, symbol_name

    try:
        script = parse_script(smtlib)
    except VerificationError as exc:
        return [f"the SMT-LIB cannot be read: {exc}"], {}
    problems: list[str] = []
    defined: dict[str, Fraction] = {}
    for cmd in script.active_commands():
        if cmd.name != "assert":
            continue
        node = cmd.args[0]
        if isinstance(node, SList) and len(node.items) == 3 and isinstance(node.items[0], Token) \
                and node.items[0].text == "=" and isinstance(node.items[1], Token):
            name = symbol_name(node.items[1])
            value = _numeral(node.items[2])
            if name is not None and value is not None and name != "answer":
                defined[name] = value
                if name not in names and not name.startswith("k_"):
                    problems.append(f"the constant {name} = {value} is no given of the question "
                                    "and no named factor")
                continue
        lits = _literals(node)
        if lits:
            problems.append("the equation writes " + ", ".join(str(v) for v in lits[:4])
                            + " instead of a declared given")
    return problems, defined


def _numeric_places(question: str) -> list[tuple[Fraction, int, frozenset[str]]]:
    """(value, start, the stems of the words after it) of each number the question writes in
    digits or number words (not word givens such as "half")."""
    from qcstation.core.reading.words import question_occurrences

    return [(o.value, o.start, o.words) for o in question_occurrences(question)
            if o.start >= 0 and (o.text[:1].isdigit() or o.text[:1] in "$.")
            or o.start >= 0 and o.text.split()[0].lower().split("-")[0] in _NUMBER_WORDS]


_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
    "dozen".split())


_NEXT_WORD = re.compile(r"\s*([A-Za-z]+)")


def _solution_words(solution: str, v: Fraction) -> list[frozenset[str]]:
    """The stem of the word right after each place the solution's prose writes ``v`` ("40 feet",
    "$40": what it counts), none where a function word follows ("40 when the lengths ...")."""
    from qcstation.core.reading.words import ANNOTATION, NUMERAL, numeral_value, stem
    from qcstation.core.construct.make.rules.givens import STOPWORDS

    out: list[frozenset[str]] = []
    for line in solution.splitlines():
        prose = ANNOTATION.sub(" ", line)
        for m in NUMERAL.finditer(prose):
            if numeral_value(m) != v:
                continue
            words: set[str] = set()
            if m.start() and prose[m.start() - 1] == "$":
                words.add("$")
            w = _NEXT_WORD.match(prose, m.end())
            if w and w.group(1).lower() not in STOPWORDS and len(w.group(1)) > 1:
                words.add(stem(w.group(1)))
            out.append(frozenset(words))
    return out


def _unknown_factors(smtlib: str, defined: Mapping[str, Fraction]) -> frozenset[str]:
    """The constants that multiply an unknown (a declared constant the script defines no value
    for, other than ``answer``) in a product of two factors: ``(* g1_times x_measure)``."""
    from qcstation.common.errors import VerificationError
    from qcstation.core.verify.smtlib import Token, parse_script, symbol_name

    try:
        script = parse_script(smtlib)
    except VerificationError:
        return frozenset()
    declared = {symbol_name(c.args[0]) for c in script.active_commands() if c.name == "declare-const" and c.args}
    unknowns = {n for n in declared if n and n != "answer" and n not in defined}
    found: set[str] = set()
    for node in _asserted_lists(script):
        items = node.items
        if len(items) == 3 and isinstance(items[0], Token) and items[0].text == "*":
            a, b = symbol_name(items[1]), symbol_name(items[2])
            if (a in unknowns or _unknown_and_one(items[1], unknowns, defined)) and b is not None and b in defined:
                found.add(b)
            if (b in unknowns or _unknown_and_one(items[2], unknowns, defined)) and a is not None and a in defined:
                found.add(a)
    return frozenset(found)


def _asserted_lists(script: Any) -> list[Any]:
    """Every list node of the script's active asserts, outer before inner (200 levels deep at
    most): what the equation checks walk."""
    from qcstation.core.verify.smtlib import SList

    out: list[Any] = []

    def walk(node: Any, depth: int) -> None:
        if depth > 200 or not isinstance(node, SList):
            return
        out.append(node)
        for item in node.items:
            walk(item, depth + 1)

    for cmd in script.active_commands():
        if cmd.name == "assert" and cmd.args:
            walk(cmd.args[0], 0)
    return out


def _less_than_givens(smtlib: str, givens: list[Mapping[str, Any]], question: str,
                      defined: Mapping[str, Fraction]) -> frozenset[str]:
    """The givens at the N of "N less than M times ..." ("2 less than three times as many
    brownies", 1226) that the equation takes from (or, for "more", adds to) a product of the
    given at that M and an unknown or a term of it (``(- (* g1_times x_c) g2)``): that place by
    the words' structure, whatever other words the solution writes after the value elsewhere."""
    from qcstation.common.errors import VerificationError
    from qcstation.core.construct.make.rules.algebra import LESS_THAN_TIMES
    from qcstation.core.verify.smtlib import SList, Token, parse_script, symbol_name

    at = {int(g["span"][0]): str(g.get("name")) for g in givens
          if isinstance(g.get("span"), list) and len(g["span"]) == 2 and isinstance(g["span"][0], int)}
    pairs = [(at[m.start(1)], at[m.start(3)], "+" if m.group(2).lower() == "more" else "-")
             for m in LESS_THAN_TIMES.finditer(question) if m.start(1) in at and m.start(3) in at]
    if not pairs:
        return frozenset()
    try:
        script = parse_script(smtlib)
    except VerificationError:
        return frozenset()
    declared = {symbol_name(c.args[0]) for c in script.active_commands() if c.name == "declare-const" and c.args}
    unknowns = {n for n in declared if n and n != "answer" and n not in defined}

    def names_in(node: Any, depth: int = 0) -> set[str]:
        if depth > 200:
            return set()
        if isinstance(node, SList):
            return {n for item in node.items for n in names_in(item, depth + 1)}
        name = symbol_name(node) if isinstance(node, Token) else None
        return {name} if name else set()

    found: set[str] = set()
    for node in _asserted_lists(script):
        items = node.items
        if len(items) == 3 and isinstance(items[0], Token) and isinstance(items[2], Token):
            last = symbol_name(items[2])
            product = items[1]
            for n_name, m_name, op in pairs:
                if items[0].text == op and last == n_name and isinstance(product, SList) \
                        and len(product.items) == 3 and isinstance(product.items[0], Token) \
                        and product.items[0].text == "*":
                    a, b = product.items[1], product.items[2]
                    for mult, other in ((a, b), (b, a)):
                        if isinstance(mult, Token) and symbol_name(mult) == m_name and names_in(other) & unknowns:
                            found.add(n_name)
    return frozenset(found)


def _unknown_and_one(node: Any, unknowns: Iterable[str | None], defined: Mapping[str, Fraction]) -> bool:
    """Is ``node`` a sum or difference of an unknown and one constant (``(+ x_age g1_years)``)?"""
    from qcstation.core.verify.smtlib import SList, Token, symbol_name

    if not (isinstance(node, SList) and len(node.items) == 3 and isinstance(node.items[0], Token)
            and node.items[0].text in ("+", "-")):
        return False
    names = [symbol_name(x) for x in node.items[1:]]
    known = set(unknowns)
    return any(n in known for n in names) and any(n is not None and n in defined for n in names)


def _multiplier_place(question: str, start: int, same: list[tuple[Fraction, int, frozenset[str]]],
                      solution: str) -> bool:
    """Is the place at ``start`` the one multiplier of its value ("three times the smallest
    angle", not "The three angles"), whose words after it name what the solution's unknown
    stands for ("Let x be the measure of the smallest angle")? A factor of the unknown in the
    equation is then that place, by its role."""
    from qcstation.core.construct.make.rules.algebra import (declared_unknowns, multiplies_defined_term,
                                                              multiplies_unknown)

    def times_end(at: int) -> int | None:
        m = re.compile(r"[A-Za-z0-9$.,/]*\s*times\b", re.I).match(question, at)
        return m.end() if m else None

    ends = {p[1]: times_end(p[1]) for p in same}
    if ends.get(start) is None or sum(1 for e in ends.values() if e is not None) != 1:
        return False
    # "three times my brother's age" multiplies "(X + 3)" where "My brother is X + 3" (856)
    return any(multiplies_unknown(question, ends[start] or 0, words)
               or multiplies_defined_term(question, ends[start] or 0, letter, words, solution)
               for letter, words in declared_unknowns(solution))


def _given_problems(givens: Iterable[Mapping[str, Any]], question: str, solution: str,
                    factors: frozenset[str] = frozenset(), structured: frozenset[str] = frozenset()) -> list[str]:
    problems: list[str] = []
    places = _numeric_places(question)
    for g in givens:
        name = str(g.get("name"))
        try:
            v = Fraction(str(g.get("value")))
        except (ValueError, ZeroDivisionError):
            problems.append(f"given {name} has no exact value")
            continue
        span = g.get("span")
        if not (isinstance(span, list) and len(span) == 2 and all(isinstance(x, int) for x in span)
                and 0 <= span[0] < span[1] <= len(question)):
            problems.append(f"given {name} has no place in the question")
            continue
        same = [p for p in places if p[0] == v]
        if name.startswith("w_"):
            if same:
                problems.append(f"the word given {name} ({v}) has the value of a number the question "
                                f"states at {same[0][1]}: which one the equation means, no reader can tell")
            continue
        mine = [p for p in same if p[1] == span[0]]
        if not mine:
            problems.append(f"given {name}'s place in the question holds no number {v}")
            continue
        said = [w for w in _solution_words(solution, v) if w - {"$"}] if solution else []
        if name in structured:
            continue  # "2 less than three times" taken from that multiple: its place by the words' structure
        if len(same) > 1:
            agree = {p[1] for p in same for w in said if w & p[2]}
            if agree != {span[0]} and not (name in factors and _multiplier_place(question, span[0], same, solution)):
                problems.append(f"the question states {v} at {len(same)} places and the solution's words "
                                f"do not single out the one given {name} is tied to")
        elif said and not any(w & mine[0][2] for w in said) and mine[0][2] - {"$"}:
            problems.append(f"the solution writes {v} only as '{v} {' '.join(sorted(said[0]))}', the question "
                            f"states it only with other words: another quantity of the same value")
    return problems


def _unknowns_values(solution: str) -> set[Fraction]:
    """The values the solution finds for the unknowns it names ("Let B be ..." / "B = 15 / 5 =
    3 balls": 3): numbers it computes with afterwards ("2(3) + 4") that are the unknown, never a
    number of the question of equal value ("the first of three sets")."""
    from qcstation.core.construct.make.rules.algebra import declared_unknowns
    from qcstation.core.reading.words import ANNOTATION, NUMERAL, numeral_value

    out: set[Fraction] = set()
    for letter, _ in declared_unknowns(solution):
        for line in solution.splitlines():
            prose = ANNOTATION.sub(" ", line)
            for m in re.finditer(rf"(?<![A-Za-z0-9]){re.escape(letter)}\s*=", prose):
                last = prose[m.end():].split("=")[-1]  # "B = 15 / 5 = 3 balls": " 3 balls"
                num = NUMERAL.search(last)
                if num is None or last[:num.start()].strip(" $"):
                    continue  # a term first ("x = 2y"), not the value found
                v = numeral_value(num)
                if v is not None:
                    out.add(v)
    return out


def _unused_places(question: str, solution: str, used: set[Fraction]) -> list[str]:
    """The question's numbers (digits, number words, word givens such as "double") whose value
    the solution's arithmetic writes but the formalization uses at no place: a given dropped
    ("2(1/2)x=x" simplifies the question's "double" away; the formalization's x then stands
    for another quantity of the same value)."""
    from qcstation.core.reading.words import ANNOTATION, NUMERAL, numeral_value, question_occurrences

    written: set[Fraction] = set()
    for line in solution.splitlines():
        for m in NUMERAL.finditer(ANNOTATION.sub(" ", line)):
            v = numeral_value(m)
            if v is not None:
                written.add(v)
    written -= _unknowns_values(solution)
    groups: list[tuple[str, set[Fraction]]] = []
    for o in question_occurrences(question):
        if o.start < 0 and groups:
            groups[-1][1].add(o.value)  # "25%" is also 25/100: one place
        elif o.start >= 0:
            groups.append((o.text.split()[0] if o.text else "", {o.value}))
    out = []
    for text, values in groups:
        values -= {Fraction(0), Fraction(1)}
        if values and not values & used and values & written:
            out.append(f"the solution computes with the question's {text!r}, the formalization does not use it")
    return out


def equation_problems(smtlib: str, givens: Iterable[Mapping[str, Any]], question: str, solution: str,
                      gold: Fraction | None) -> list[str]:
    """What the independent check finds wrong with an equation formalization (see the module
    docstring); empty when nothing."""
    givens = list(givens)
    names = {str(g.get("name")) for g in givens}
    problems, defined = _script_problems(smtlib, names)
    problems += _given_problems(givens, question, solution, _unknown_factors(smtlib, defined),
                                _less_than_givens(smtlib, givens, question, defined))
    if solution:
        problems += _unused_places(question, solution, set(defined.values()))
    if not problems:
        problems += _z3_problems(smtlib, gold)
    return problems
