"""What a rule returns: its steps, the SMT-LIB it builds, and what it recorded; or, where no
exact rule applies, the :class:`RuleError` saying why."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from qcstation.common.errors import GenerationError
from qcstation.core.reading.expr import Expr, expr_to_sexpr, has_call, is_nonlinear


class RuleError(GenerationError):
    """No exact rule could formalize this seed; ``str(err)`` says why."""

    def __init__(self, message: str, title: str = "No rule applies") -> None:
        super().__init__(message, title)


# --------------------------------------------------------------------------- results


@dataclass
class RuleStep:
    name: str
    expr_text: str  # the original infix, e.g. "16-3-4"
    result: Fraction  # exact value of the step in the formalization (earlier steps substituted)
    sexpr: str  # SMT-LIB term defining the step (may reference earlier steps)
    refs: list[str] = field(default_factory=list)  # earlier steps this one uses
    expr: Expr | None = None  # the defining term (names: givens and earlier steps)
    line: str = ""  # the solution line the computation is written on


@dataclass
class RuleResult:
    smtlib: str
    steps: list[RuleStep]
    answer_step: str
    value: Fraction
    rule: str  # "gsm8k-calculator" | "inline-arithmetic" | "equation"
    notes: list[str] = field(default_factory=list)
    # each use of an earlier step's result: {"step", "uses", "value", "evidence"}
    links: list[dict[str, str]] = field(default_factory=list)
    # the question's numbers declared as constants: {"name", "value", "text"}
    givens: list[dict[str, Any]] = field(default_factory=list)  # name, value, span
    # what the rule could not settle from the solution (shown to reviewers, flagged by audit)
    uncertain: list[str] = field(default_factory=list)
    # named factors of unit and percent conversions: {"name", "value", "text"} (not givens)
    factors: list[dict[str, str]] | None = None
    # True when every given is tied to its words with no ambiguity (the independent check
    # of rules.dispatch found nothing); derived sets rewrite only such items' givens
    bound: bool | None = None


def build_smtlib(steps: list[RuleStep], exprs: list[Expr], answer_step: str,
                  givens: list[tuple[str, Fraction, Expr]] | None = None) -> str:
    nonlinear = any(is_nonlinear(e) for e in exprs)
    ints = "I" if any(has_call(e) for e in exprs) else ""  # a rounding: to_int (Reals_Ints)
    lines = [f"(set-logic {'QF_N' if nonlinear else 'QF_L'}{ints}RA)"]
    for name, _value, _expr in givens or []:
        lines.append(f"(declare-const {name} Real)")
    for step in steps:
        if step.name != "answer":
            lines.append(f"(declare-const {step.name} Real)")
    lines.append("(declare-const answer Real)")
    for name, _value, expr in givens or []:
        lines.append(f"(assert (= {name} {expr_to_sexpr(expr)}))")
    for step in steps:
        lines.append(f"(assert (= {step.name} {step.sexpr}))")
    if answer_step != "answer":
        lines.append(f"(assert (= answer {answer_step}))")
    lines.append("(check-sat)")
    lines.append("(get-value (answer))")
    return "\n".join(lines) + "\n"
