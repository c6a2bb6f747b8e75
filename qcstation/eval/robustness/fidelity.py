"""What Z3 adds to the fidelity checks: the intermediate values of a reference
formalization (step fidelity), and the given a forward answer implies (round trip).

The formalizations read here are the benchmark's own (a release's ``smt-lib``, verified
when it was made), solved in this process with a time limit; a model's SMT-LIB is never
read here (the scorers run it in the isolated verifier).
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = ["intermediates", "solve_hidden"]

_PINNED_RE = re.compile(r"^\(assert \(= ([A-Za-z_][\w.]*) ([^()A-Za-z_]+|\([-/ \d.]+\))\)\)$")
_DECLARE_RE = re.compile(r"^\(declare-const ([A-Za-z_][\w.]*) (Real|Int)\)$")
_TIMEOUT_MS = 5_000
MAX_SMTLIB = 50_000


def _model_values(smtlib: str, names: list[str]) -> dict[str, Fraction] | None:
    import z3

    body = "\n".join(ln for ln in smtlib.splitlines()
                     if not ln.strip().startswith(("(check-sat", "(get-value", "(set-logic")))
    s = z3.Solver()
    s.set("timeout", _TIMEOUT_MS)
    try:
        s.from_string(body)
    except z3.Z3Exception:
        return None
    if s.check() != z3.sat:
        return None
    m = s.model()
    out: dict[str, Fraction] = {}
    decls = {d.name(): d for d in m.decls()}
    for n in names:
        d = decls.get(n)
        if d is None:
            continue
        v = m[d]
        if z3.is_rational_value(v):
            out[n] = Fraction(v.numerator_as_long(), v.denominator_as_long())
        elif z3.is_int_value(v):
            out[n] = Fraction(v.as_long())
    return out


def intermediates(smtlib: str | None) -> list[Fraction]:
    """The values of a formalization's intermediate steps: every declared constant that is
    neither a given (pinned to a number) nor ``answer``, in declaration order (distinct
    values), less the answer's own value (the last step that computes the answer is not an
    intermediate one: "The answer is N." alone finds no step)."""
    if not smtlib or len(smtlib) > MAX_SMTLIB:
        return []
    lines = [ln.strip() for ln in smtlib.splitlines()]
    declared = [m.group(1) for ln in lines if (m := _DECLARE_RE.match(ln))]
    pinned = {m.group(1) for ln in lines if (m := _PINNED_RE.match(ln))}
    steps = [n for n in declared if n not in pinned and n != "answer"]
    if not steps:
        return []
    values = _model_values(smtlib, [*steps, "answer"]) or {}
    final = values.get("answer")
    return list(dict.fromkeys(values[n] for n in steps if n in values and values[n] != final))


def solve_hidden(inverse_smtlib: str) -> tuple[Fraction | None, str]:
    """X of a backward formalization (:func:`qcstation.core.derive.transforms.inverse_smtlib`
    for some forward answer), with its uniqueness checked: (X, "unique"), or (None, why)."""
    import z3

    if len(inverse_smtlib) > MAX_SMTLIB:
        return None, "too long"
    vals = _model_values(inverse_smtlib, ["answer"])
    if vals is None:
        return None, "no given produces this answer"
    if "answer" not in vals:
        return None, "not a number"
    x = vals["answer"]
    body = "\n".join(ln for ln in inverse_smtlib.splitlines()
                     if not ln.strip().startswith(("(check-sat", "(get-value", "(set-logic")))
    s = z3.Solver()
    s.set("timeout", _TIMEOUT_MS)
    from qcstation.core.construct.make.rules import fraction_to_smt

    s.from_string(body + f"\n(assert (not (= answer {fraction_to_smt(x)})))")
    again = s.check()
    if again == z3.sat:
        return None, "more than one given produces this answer"
    if again != z3.unsat:
        return None, "Z3 could not decide uniqueness"
    return x, "unique"
