"""Exact, rule-based SMT-LIB formalizations of seed problems (no model needed).

Two rules:

* ``gsm8k-calculator``: GSM8K solutions carry calculator annotations
  (``16 - 3 - 4 = <<16-3-4=9>>9``). Every annotation becomes one step constant
  whose value is the annotated expression; given the question, each of its numbers
  the solution uses is its own declared constant (``g1_eggs = 16``). A number in a
  later expression is an earlier step's result only where the solution settles it:
  the value is neither stated by the question nor a common factor and one earlier
  step has it, or exactly one reading uses every step and every given
  (:func:`~.links.resolve_links`); otherwise the solution is ambiguous and no rule
  applies. ``answer`` is the step whose value is the gold answer (the last such step).
  A solution with no annotations but computations written as ``expression = number``
  gets the same treatment (``inline-arithmetic``).
* ``equation``: an explicit equation field (``x = (70 - 27)``, ``X=((45.0*3.0))``,
  a bare expression, or a linear equation in one unknown such as ``x + 27 = 70``).

The SMT-LIB uses sort Real with exact rationals (``(/ 3 2)``, ``(- 5)``) and only the
commands set-logic, declare-const, assert, check-sat and get-value.

The modules and their contract (each imports only the ones above it):

``expr``        the bounded expression language: ``Expr`` trees, :func:`parse_expression`
                (never ``eval``; limits on length, nesting, digits, size, bits),
                :func:`evaluate` in exact ``Fraction`` arithmetic, SMT-LIB terms, and the
                two errors: :class:`ExpressionError` (text is not arithmetic) and
                :class:`RuleError` (no rule applies; its message is the reason shown).
``result``      :class:`RuleStep`, :class:`RuleResult` (what every rule returns) and the
                SMT-LIB script built from steps.
``inline``      computations written in running text (``54 − 37 = 17``); also used by
                key information (unknowns' descriptions) and error injection.
``binding``     which place of the question each number a step writes is, read from the
                words (:class:`~.binding.Binder`; order only where words cannot tell).
``givens``      the numbers a question states (:class:`Givens`) and the words around them;
                binds a formalization's literals to named given constants (via ``binding``).
``constants``   word givens ("half", "an hour") and named unit/percent factors for the
                literals that are no digit of the question; anything else is refused.
``links``       which step is the answer and which written number is an earlier result.
``calculator``  the calculator-annotation and inline-arithmetic rules (uses all above).
``equation``    the equation rule (uses ``expr`` and ``result`` only).
``dispatch``    :func:`rule_for_seed`: the first rule a seed row supports, by what its
                data holds; :func:`gold_from_seed`.

Callers import from this package (``from qcstation.core.construct.rules import
rule_for_seed``); the names below are its public interface.
"""

from __future__ import annotations

from qcstation.core.construct.rules.calculator import ANNOTATION_RE, smt_from_calculator_annotations
from qcstation.core.construct.rules.dispatch import MAX_REASON_CHARS, gold_from_seed, rule_for_seed
from qcstation.core.construct.rules.equation import smt_from_equation
from qcstation.core.construct.rules.expr import (
    BinOp,
    Expr,
    ExpressionError,
    Name,
    Neg,
    Num,
    RuleError,
    evaluate,
    expr_names,
    expr_to_sexpr,
    fraction_to_smt,
    is_nonlinear,
    parse_expression,
)
from qcstation.core.construct.rules.givens import COMMON_FACTORS, Givens, question_numbers
from qcstation.core.construct.rules.inline import (
    INLINE_RE,
    VISIBLE_TAIL_RE,
    InlineComputation,
    find_inline_computations,
    normalize_visible,
)
from qcstation.core.construct.rules.result import RuleResult, RuleStep

__all__ = [
    "Num",
    "Name",
    "BinOp",
    "Neg",
    "Expr",
    "ExpressionError",
    "RuleError",
    "RuleStep",
    "RuleResult",
    "parse_expression",
    "evaluate",
    "expr_names",
    "fraction_to_smt",
    "expr_to_sexpr",
    "is_nonlinear",
    "smt_from_calculator_annotations",
    "smt_from_equation",
    "rule_for_seed",
    "gold_from_seed",
    "ANNOTATION_RE",
    "INLINE_RE",
    "VISIBLE_TAIL_RE",
    "InlineComputation",
    "find_inline_computations",
    "normalize_visible",
    "COMMON_FACTORS",
    "Givens",
    "question_numbers",
    "MAX_REASON_CHARS",
]
