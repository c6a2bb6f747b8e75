"""What a reviewer's fix in place must mean, checked before it is stored (:mod:`.fixes`).

Z3 proves a fixed notation question computes the gold answer, and the schema that key
information has six fields; neither says the fix still means the seed's question. Here:

* :func:`notation_fix_problems`: a fixed notation question's own SMT-LIB passes the meaning
  check generation uses (:mod:`qcstation.core.verify.meaning`: no answer written as a number,
  no number the question neither states nor implies) and keeps every given of the seed (each
  constant the verified formalization declares from the question, with its value): "Given a =
  10 and b = 7, let answer = a + b" (7 is in no problem, four givens dropped) is refused.
* :func:`keyinfo_fix_problems`: fixed key information's relationships (``Q1 = 3 × 68``,
  ``Q2 = Q1 − 5``) are evaluated in order and the quantity asked for must come out at the
  gold answer (``Q3 = Q2 + 5`` for ``Q2 − 5`` is caught); every number they use is one the
  question states (or a common factor its words imply) and appears in the known quantities.

Each returns the problems found (an empty list: the fix passes) and says in ``checked`` what
was checked, which is what "verified" means for that fix.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["notation_fix_problems", "keyinfo_fix_problems", "NOTATION_CHECKED", "KEYINFO_CHECKED"]

NOTATION_CHECKED = ("the edited question's own SMT-LIB, read from its text, gives the gold answer "
                    "in Z3, computes it from numbers the question states or its words imply "
                    "(verify.meaning), and keeps every given of the seed's verified "
                    "formalization with its value")
KEYINFO_CHECKED = ("six fields present; the relationships, evaluated in order, give the gold "
                   "answer for the quantity asked for; every number they use is stated by the "
                   "question and listed in the known quantities")

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                     r"(?:\s*/\s*(\d+)(?![\d.]))?")
_TRIVIAL = frozenset({Fraction(0), Fraction(1)})


def _fmt(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def _numbers_in(text: str) -> list[Fraction]:
    out: list[Fraction] = []
    for m in _NUMBER.finditer(text[:20_000]):
        try:
            v = Fraction(m.group(1).replace(",", ""))
            out.append(v / int(m.group(2)) if m.group(2) and int(m.group(2)) else v)
        except (ValueError, ZeroDivisionError):
            continue
    return out


def _question_values(question: str) -> set[Fraction]:
    """The numbers the question states: digits, fractions (also their numerator and
    denominator: "2/3" may be written 2 ÷ 3), number words, a percent also as its fraction
    (the rules' own reading, construct.rules.givens), and the common factors its words imply
    (100 for a percent, 60 minutes an hour) with their inverses."""
    from qcstation.core.construct.make.rules.givens import COMMON_FACTORS, _plausible_factors, question_numbers

    from qcstation.core.verify.meaning import stated_numbers

    g = question_numbers(question)
    out = set(g.values) | set(stated_numbers(question))
    for num, den in g.fractions:
        out |= {Fraction(num.replace(",", "")), Fraction(den)}
    for wnum, wden in g.word_fractions:
        out |= {wnum, wden, wnum / wden}
    factors = COMMON_FACTORS & _plausible_factors(question)
    return out | set(factors) | {1 / f for f in factors}


def _factor_values(question: str) -> set[Fraction]:
    from qcstation.core.construct.make.rules.givens import COMMON_FACTORS, _plausible_factors

    factors = COMMON_FACTORS & _plausible_factors(question)
    return (set(factors) | {1 / f for f in factors}) - set(_question_values_plain(question))


def _question_values_plain(question: str) -> set[Fraction]:
    from qcstation.core.construct.make.rules.givens import question_numbers

    return set(question_numbers(question).values)


def _kept(value: Fraction, stated: set[Fraction]) -> bool:
    """Is a given of the formalization stated by the notation question: as itself, as the
    percent it is (150 for 3/2), or as its numerator and denominator (3 and 4 for 3/4)."""
    return (value in stated or value * 100 in stated
            or (value.denominator > 1 and value.numerator in stated
                and value.denominator in stated))


def _formalization_constants(smtlib: str | None) -> tuple[list[Fraction], set[Fraction]]:
    """(values of the givens, values of every named constant) the verified formalization
    declares: a constant defined as a bare number; givens are those not named as factors
    (``k_*``) or word givens (``w_*``), which the question states in words."""
    from qcstation.core.construct.check.selfcheck import _is_given_constant, _smt_definitions

    if not isinstance(smtlib, str) or not smtlib.strip():
        return [], set()
    read = _smt_definitions(smtlib)
    if read is None:
        return [], set()
    defs, values, _literals = read
    givens: list[Fraction] = []
    named: set[Fraction] = set()
    for name in defs:
        if name == "answer" or name not in values or not _is_given_constant(defs, name):
            continue
        named.add(values[name])
        if not name.startswith(("k_", "w_")):
            givens.append(values[name])
    return givens, named


def notation_fix_problems(notation_smtlib: str, variables: dict[str, Any], question: str,
                          base_smtlib: str | None) -> list[str]:
    """What keeps a fixed notation question from meaning the seed's question ([] if
    nothing): the shared meaning check of its own SMT-LIB against the question
    (:func:`qcstation.core.verify.meaning.check_meaning`: an answer written as a number, a
    number the question neither states nor implies, an answer tied to no stated number), and
    a given of the seed's verified formalization it drops or changes."""
    from qcstation.core.verify.meaning import check_meaning

    problems = list(check_meaning(notation_smtlib, question).problems)
    givens, _named = _formalization_constants(base_smtlib)
    stated = set(_numbers_in(notation_smtlib))
    for v in variables.values():
        try:
            stated.add(Fraction(str(v)))
        except (ValueError, ZeroDivisionError):
            continue
    dropped = sorted({v for v in givens if not _kept(v, stated)})
    if dropped:
        problems.append("it drops the given" + ("s " if len(dropped) > 1 else " ")
                        + ", ".join(_fmt(v) for v in dropped[:8])
                        + " of the seed's formalization (every number the question gives and "
                          "the solution uses must stay, with its value)")
    return problems


# -- key information ----------------------------------------------------------------------

_DEF = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]{0,40})\s*=\s*(.+?)\s*\.?\s*$")
_ASKED = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]{0,40})\s*:.*\(the value asked for\)", re.I)
# a fraction written as one number ("Q3 = Q2 ÷ 1/2" divides by a half)
_FRACTION = re.compile(r"(?<![\w.)])(\d+)\s*/\s*(\d+)(?![\w.(])")
_OPS = str.maketrans({"×": "*", "÷": "/", "−": "-", "–": "-", "·": "*"})


def keyinfo_fix_problems(fields: dict[str, Any], question: str, gold: Fraction | None
                         ) -> list[str]:
    """What keeps fixed key information from meaning the seed's question ([] if nothing)."""
    from qcstation.core.construct.make.notation_rounding import read_rounding
    from qcstation.core.reading.expr import (ExpressionError, Num, evaluate, leaves,
                                                     parse_expression)
    rels = fields.get("relationships_and_constraints") or []
    if isinstance(rels, str):
        rels = [rels]
    env: dict[str, Fraction] = {}
    order: list[str] = []
    used: list[Fraction] = []
    problems: list[str] = []
    for line in rels:
        text = _FRACTION.sub(r"(\1/\2)", str(line).translate(_OPS))
        m = _DEF.match(text)
        if m is None or "=" in m.group(2) or "<" in text or ">" in text:
            continue   # a constraint in words ("Q1 must be whole"): not a definition
        name, rhs = m.group(1), m.group(2)
        try:  # ("Q3 = the least whole number at least Q2": a rounding, as the rules write it)
            expr = read_rounding(rhs) or parse_expression(rhs, names=True)
            value = evaluate(expr, env)
        except (ExpressionError, ArithmeticError, RecursionError) as exc:
            problems.append(f"the relationship {str(line)[:80]!r} cannot be evaluated ({exc}); "
                            f"write each as 'Q1 = expression' of the question's numbers and "
                            f"earlier Qs")
            continue
        env[name] = value
        order.append(name)
        used += [leaf.value for leaf in leaves(expr) if isinstance(leaf, Num)]
    if not order:
        return problems + ["no relationship of the form 'Q1 = expression' to evaluate against "
                           "the gold answer"]
    unknowns = fields.get("unknown_quantities") or []
    asked = next((m.group(1) for u in (unknowns if isinstance(unknowns, list) else [unknowns])
                  if (m := _ASKED.match(str(u))) and m.group(1) in env), None)
    target = asked or order[-1]
    if gold is not None and not problems and env[target] != gold:
        problems.append(f"the relationships give {target} = {_fmt(env[target])}, but the gold "
                        f"answer is {_fmt(gold)}")
    stated = _question_values(question)
    foreign = sorted({v for v in used if v not in stated and v not in _TRIVIAL})
    if foreign:
        problems.append("the relationships use " + ", ".join(_fmt(v) for v in foreign[:5])
                        + ", which the question does not state")
    known = fields.get("known_quantities") or []
    known_text = " ".join(str(k) for k in (known if isinstance(known, list) else [known]))
    in_known = _question_values(known_text)
    given = _question_values(question) - _factor_values(question)
    missing = sorted({v for v in used if v in given and v not in in_known and v not in _TRIVIAL})
    if missing:
        problems.append("the known quantities do not state " + ", ".join(_fmt(v) for v in missing[:5])
                        + ", which the relationships use")
    return problems
