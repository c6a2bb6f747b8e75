"""One SMT-LIB script verified in this process (the contract: :mod:`.verifier`).

:func:`verify_core` is what every mode runs, here and in the pool's workers: read the script
(:mod:`.smtlib`), find the declaration of ``answer``, let Z3 find its value and show it is the
only one, compare it with the gold. Each step that decides the outcome early raises
:class:`_Decided`. :func:`verify_in_process` runs it with only Z3's own timeout (trusted input,
baselines).
"""

from __future__ import annotations

import re
import threading
import time
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from qcstation.core.reading.answers import ExactAnswer, fraction_to_str, matches
from qcstation.core.verify.outcome import (
    ANSWER,
    DEFAULT_LIMITS,
    VerifyLimits,
    VerifyOutcome,
    coerce_expected,
    precheck,
    timed_outcome,
)
from qcstation.core.verify.smtlib import (
    Command,
    Node,
    Script,
    SmtDisallowedError,
    SmtSyntaxError,
    Token,
    parse_script,
    render_nodes,
    symbol_name,
)

__all__ = ["verify_core", "verify_in_process", "thread_context", "find_answer", "value_of"]


def z3_message(exc: BaseException) -> str:
    raw = getattr(exc, "value", None)
    if isinstance(raw, bytes):
        text = raw.decode("utf-8", errors="replace")
    elif raw is not None:
        text = str(raw)
    else:
        text = str(exc)
    errors = re.findall(r'\(error "((?:[^"]|"")*)"\)', text)
    if errors:
        return "; ".join(e.replace('""', '"') for e in errors)
    return text.strip() or type(exc).__name__


def is_memory_message(text: str) -> bool:
    t = text.lower()
    return "memory" in t or "memout" in t


def memory_message(reason: str) -> str:
    extra = "" if reason.strip().lower() in ("out of memory", "memout") else f" ({reason})"
    return (f"z3 ran out of memory{extra}; simplify the formalization "
            "(no huge bit-vectors, exponents or case splits are needed for a word problem)")


def find_answer(commands: list[Command]) -> tuple[Command | None, str]:
    """The command introducing ``answer`` and, when unusable, why."""
    decls = [cmd for cmd in commands
             if cmd.name in ("declare-const", "declare-fun", "define-fun", "define-const",
                             "define-fun-rec") and cmd.declared_name() == ANSWER]
    if not decls:
        return None, ""
    decl = decls[-1]
    if len(decls) > 1:
        # z3 would overload the name by sort and the value read would depend on which one
        where = ", ".join(str(c.line) for c in decls)
        return decl, (f"answer is declared {len(decls)} times (lines {where}); declare it once")
    args = decl.args
    if decl.name in ("declare-fun", "define-fun", "define-fun-rec"):
        params = args[1]
        if not isinstance(params, Token) and params.items:
            return decl, (f"line {decl.line}: answer is declared as a function of "
                          f"{len(params.items)} argument(s); it must be a constant: "
                          "(declare-const answer Int) or (declare-const answer Real)")
        sort = args[2]
    else:
        sort = args[1]
    sort_name = symbol_name(sort)
    if sort_name not in ("Int", "Real"):
        shown = sort_name if sort_name else "a compound sort"
        return decl, (f"line {decl.line}: answer has sort {shown}; it must be Int or Real, "
                      "e.g. (declare-const answer Real)")
    return decl, ""


def answer_sort(decl: Command) -> str:
    args = decl.args
    sort = args[2] if decl.name in ("declare-fun", "define-fun", "define-fun-rec") else args[1]
    return symbol_name(sort) or "Real"


def build_solver_text(active: list[Command], decl: Command) -> tuple[str, list[int]]:
    """Text for Z3 (declarations, definitions, assertions in force) and each assertion's line."""
    items: list[Node | str] = []
    lines: list[int] = []
    for cmd in active:
        if cmd is decl and cmd.name in ("define-fun", "define-const", "define-fun-rec"):
            # (define-fun answer () S body) -> (declare-const answer S) (assert (= answer body))
            sort = cmd.args[2] if cmd.name != "define-const" else cmd.args[1]
            body = cmd.args[3] if cmd.name != "define-const" else cmd.args[2]
            items += ["(declare-const answer", sort, ")", "(assert (= answer", body, "))"]
            lines.append(cmd.line)
            continue
        items.append(cmd.node)
        if cmd.name == "assert":
            lines.append(cmd.line)
    return render_nodes(items), lines


_POWER_MAX_EXP = 4096
# a benchmark answer has no business being longer; also below Python's int/str conversion limit
_MAX_DIGITS = 1000


def value_of(v: Any) -> tuple[Fraction, str, bool] | None:
    """(value, text, exact) for a model value, or None when it is not a number we can read."""
    import z3

    if z3.is_int_value(v):
        if len(v.as_string()) > _MAX_DIGITS:
            return None
        f = Fraction(v.as_long())
        return f, fraction_to_str(f), True
    if z3.is_rational_value(v):
        if len(v.numerator().as_string()) + len(v.denominator().as_string()) > _MAX_DIGITS:
            return None
        f = Fraction(v.numerator_as_long(), v.denominator_as_long())
        return f, fraction_to_str(f), True
    if z3.is_algebraic_value(v):
        dec = v.as_decimal(30).rstrip("?")
        try:
            f = Fraction(Decimal(dec))
        except (InvalidOperation, ValueError):
            return None
        return f, dec, False
    if z3.is_app_of(v, z3.Z3_OP_POWER) and v.num_args() == 2:
        base, exp = value_of(v.arg(0)), value_of(v.arg(1))
        if base and exp and base[2] and exp[2] and exp[0].denominator == 1:
            e = exp[0].numerator
            bits = max(base[0].numerator.bit_length(), base[0].denominator.bit_length(), 1)
            if abs(e) <= _POWER_MAX_EXP and bits * abs(e) <= 200_000 and (base[0] != 0 or e >= 0):
                f = base[0] ** e
                return f, fraction_to_str(f), True
    if z3.is_app_of(v, z3.Z3_OP_TO_REAL) and v.num_args() == 1:
        return value_of(v.arg(0))
    return None


def fmt_lines(lines: list[int]) -> str:
    uniq = sorted(set(lines))
    if len(uniq) == 1:
        return f"line {uniq[0]}"
    return "lines " + ", ".join(str(x) for x in uniq[:-1]) + f" and {uniq[-1]}"


class _Decided(Exception):
    """A step of :func:`verify_core` decided the outcome (status, message, and what was
    found of the value so far)."""

    def __init__(self, status: str, message: str, *found: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.found = status, message, found


def verify_core(text: str, gold: ExactAnswer | None, expected_text: str | None,
                timeout_s: float, ctx: Any = None, rlimit: int | None = None) -> VerifyOutcome:
    """The whole verification of one script in the current process (shared by all modes):
    read the script, solve for a unique ``answer``, compare it with the gold. ``rlimit``:
    Z3 resource units per check, the limit that decides (:attr:`.VerifyLimits.rlimit`)."""
    t0 = time.perf_counter()
    try:
        script = _read_script(text)
        active = script.active_commands()
        decl = _answer_declaration(script, active)
        value, value_text, exact = _solve(active, decl, _Budget(timeout_s, t0, rlimit), ctx)
    except _Decided as d:
        return timed_outcome(d.status, d.message, t0, expected_text, *d.found)
    return _compare(value, value_text, exact, gold, expected_text, list(script.notes), t0)


def _read_script(text: str) -> Script:
    try:
        return parse_script(text)
    except SmtDisallowedError as exc:
        raise _Decided("disallowed", str(exc)) from None
    except SmtSyntaxError as exc:
        raise _Decided("parse_error", str(exc)) from None


def _answer_declaration(script: Script, active: list[Command]) -> Command:
    decl, problem = find_answer(active)
    if decl is None:
        popped = any(c.declared_name() == ANSWER for c in script.commands)
        raise _Decided("no_answer", (
            "no constant named answer is in scope at the (check-sat): it was declared inside "
            "a (push) that was popped" if popped else
            "no constant named answer is declared; declare it with "
            "(declare-const answer Int) or (declare-const answer Real) and constrain it "
            "with (assert ...)"))
    if problem:
        raise _Decided("no_answer", problem)
    return decl


_TOO_HARD = "avoid nonlinear integer constraints; compute with explicit numbers"


class _Budget:
    """What each Z3 check of one verification may spend: its wall-clock ``timeout_s`` (the
    first check all of it; the uniqueness or unsat-core check what is left, at least
    ``max(0.25 s, timeout_s / 5)``), and, when ``rlimit`` is set, that many of Z3's resource
    units (a count of its own steps: the same for one script on a quiet and a loaded machine).
    With ``rlimit`` set the count decides: a check that spends it is ``unknown``, and a check
    the clock stops first is a ``timeout`` that says the machine was too busy (run it
    again), never that the formalization is too hard."""

    def __init__(self, timeout_s: float, t0: float, rlimit: int | None) -> None:
        self.timeout_s, self.t0 = timeout_s, t0
        self.rlimit = int(rlimit) if rlimit else None
        self._before: int | None = None

    def extra_ms(self) -> int:
        left = self.timeout_s - (time.perf_counter() - self.t0)
        return max(1, int(max(left, max(0.25, self.timeout_s / 5)) * 1000))

    def arm(self, solver: Any, ms: int) -> None:
        """Limit ``solver``'s next check to ``ms`` of wall clock (and the resource units)."""
        solver.set("timeout", ms)
        if self.rlimit is not None:
            solver.set("rlimit", self.rlimit)      # Z3 counts it from the check's start
            self._before = _resource_count(solver)

    def spent(self, solver: Any) -> bool:
        """Did the last check use up its resource units (not the clock)?"""
        if self.rlimit is None or self._before is None:
            return False
        after = _resource_count(solver)
        return after is not None and after - self._before >= self.rlimit

    def spent_message(self) -> str:
        return f"z3 did not decide within its resource limit ({self.rlimit:,} units)"

    def clock_message(self) -> str:
        return (f"z3 did not finish within the {self.timeout_s:g} s wall-clock safety limit "
                f"before its resource limit ({self.rlimit:,} units): the machine was too busy "
                "to decide it; run it again")


def _resource_count(solver: Any) -> int | None:
    """Z3's resource count of the solver's context so far (``rlimit count``), or None."""
    st = solver.statistics()
    for key in st.keys():
        if key == "rlimit count":
            return int(st.get_key_value(key))
    return None


def _solve(active: list[Command], decl: Command, budget: _Budget,
           ctx: Any) -> tuple[Fraction, str, bool]:
    """(value, text, exact) of the only ``answer`` the constraints allow, found by Z3; any
    other result is decided here (:class:`_Decided`)."""
    import z3

    if ctx is None:
        ctx = z3.Context()
    solver_text, assert_lines = build_solver_text(active, decl)
    try:
        assertions = z3.parse_smt2_string(solver_text, ctx=ctx)
    except z3.Z3Exception as exc:
        msg = z3_message(exc)
        if is_memory_message(msg):
            raise _Decided("resource_limit",
                           f"z3 ran out of memory while reading the script ({msg})") from None
        raise _Decided("parse_error", f"z3 rejected the script: {msg}") from None

    sort = z3.IntSort(ctx) if answer_sort(decl) == "Int" else z3.RealSort(ctx)
    ans = z3.Const(ANSWER, sort)
    try:
        solver = z3.Solver(ctx=ctx)
        solver.add(assertions)
        budget.arm(solver, max(1, int(budget.timeout_s * 1000)))
        _first_check(z3, solver, ctx, assertions, assert_lines, budget)
        v = solver.model().eval(ans, model_completion=True)
        read = value_of(v)
        if read is None:
            shown = str(v)
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            raise _Decided("unknown", f"the value z3 found for answer is {shown}, which is not a "
                           "plain number; simplify the formalization")
        _check_unique(z3, solver, ans, v, read, budget)
        return read
    except z3.Z3Exception as exc:
        msg = z3_message(exc)
        if is_memory_message(msg):
            raise _Decided("resource_limit", memory_message(msg)) from None
        raise _Decided("unknown", f"z3 failed: {msg}") from None


def _first_check(z3: Any, solver: Any, ctx: Any, assertions: Any, assert_lines: list[int],
                 budget: _Budget) -> None:
    """Is there a value at all? Decides unknown (timeout, memory, resource units spent) and
    unsat (naming the assertions that cannot hold together)."""
    result = solver.check()
    if result == z3.unknown:
        reason = solver.reason_unknown()
        if budget.spent(solver):
            raise _Decided("unknown", f"{budget.spent_message()}; the formalization is too hard "
                           f"({_TOO_HARD})")
        if reason in ("timeout", "canceled") or "timeout" in reason:
            if budget.rlimit is not None:
                raise _Decided("timeout", budget.clock_message())
            raise _Decided(
                "timeout",
                f"z3 did not finish within {budget.timeout_s:g} s; the formalization is too hard "
                f"({_TOO_HARD})")
        if is_memory_message(reason):
            raise _Decided("resource_limit", memory_message(reason))
        raise _Decided("unknown", f"z3 could not decide the constraints (unknown: {reason}); "
                       "simplify the formalization, e.g. keep the arithmetic linear")
    if result == z3.unsat:
        msg = ("the constraints are unsatisfiable (contradictory), so no value of answer "
               "satisfies them")
        if len(assert_lines) == len(assertions) and len(assertions) > 1:
            core_lines = unsat_core_lines(z3, ctx, assertions, assert_lines, budget.extra_ms(),
                                          budget)
            if core_lines:
                msg += f"; the assertions on {fmt_lines(core_lines)} cannot all hold together"
        raise _Decided("unsat", msg)


def _check_unique(z3: Any, solver: Any, ans: Any, v: Any, read: tuple[Fraction, str, bool],
                  budget: _Budget) -> None:
    """Is ``v`` the only value of ``answer``? Decides ambiguous, and unknown when that
    cannot be shown."""
    value, value_text, exact = read
    solver.push()
    solver.add(ans != v)
    budget.arm(solver, budget.extra_ms())
    second = solver.check()
    if second == z3.sat:
        other = value_of(solver.model().eval(ans, model_completion=True))
        other_text = other[1] if other else "another value"
        raise _Decided(
            "ambiguous",
            f"answer is not determined by the constraints: both {value_text} and "
            f"{other_text} satisfy them (is a quantity left unconstrained, or divided by "
            "zero?); add the missing constraint", value, value_text, exact)
    if second == z3.unknown:
        # a value nobody could show to be the only one is not verified: a formalization
        # could otherwise hide a second solution behind a hard constraint
        why = solver.reason_unknown() or "unknown"
        if budget.spent(solver):
            why = budget.spent_message()
        elif budget.rlimit is not None and why in ("timeout", "canceled"):
            raise _Decided("timeout", budget.clock_message(), value, value_text, exact)
        else:
            why = "the check timed out" if why in ("timeout", "canceled") else f"z3: {why}"
        raise _Decided(
            "unknown",
            f"z3 found answer = {value_text} but could not show it is the only value "
            f"({why}); state the answer's relationships directly so it is determined",
            value, value_text, exact)
    solver.pop()


def _compare(value: Fraction, value_text: str, exact: bool, gold: ExactAnswer | None,
             expected_text: str | None, notes: list[str], t0: float) -> VerifyOutcome:
    """``verified``, or ``wrong_value`` when a gold answer is given and not matched."""
    approx = "" if exact else " (irrational; decimal approximation)"
    note = ("; note: " + "; ".join(notes)) if notes else ""
    if gold is not None and not matches(value, gold):
        sym = "=" if exact else "≈"
        return timed_outcome("wrong_value",
                             f"answer {sym} {value_text}{approx} but the expected answer is "
                             f"{expected_text}{note}",
                             t0, expected_text, value, value_text, exact)
    if gold is not None:
        msg = f"answer = {value_text}{approx}, matching the expected answer {expected_text}"
    else:
        msg = f"answer = {value_text}{approx} (unique)"
    return timed_outcome("verified", msg + note, t0, expected_text, value, value_text, exact)


def unsat_core_lines(z3: Any, ctx: Any, assertions: Any, lines: list[int], ms: int,
                     budget: _Budget | None = None) -> list[int]:
    """The lines of the assertions that cannot hold together (empty: not found). With a
    budget's ``rlimit`` set, a check the clock stops first is a ``timeout`` (:class:`_Budget`):
    the lines named must not depend on the machine's load."""
    try:
        s = z3.Solver(ctx=ctx)
        s.set("core.minimize", True)
        marks = []
        for i, f in enumerate(assertions):
            m = z3.Bool(f"__qc_assert_{i}", ctx)
            marks.append(m)
            s.assert_and_track(f, m)
        if budget is None:
            s.set("timeout", ms)
        else:
            budget.arm(s, ms)
        found = s.check()
        if (found == z3.unknown and budget is not None and budget.rlimit is not None
                and not budget.spent(s) and s.reason_unknown() in ("timeout", "canceled")):
            raise _Decided("timeout", budget.clock_message())
        if found != z3.unsat:
            return []
        index = {str(m): i for i, m in enumerate(marks)}
        return [lines[index[str(c)]] for c in s.unsat_core() if str(c) in index]
    except z3.Z3Exception:
        return []


# --------------------------------------------------------------------------- in-process

_local = threading.local()


def thread_context() -> Any:
    import z3

    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ctx = _local.ctx = z3.Context()
    return ctx


def verify_in_process(text: str, expected: str | ExactAnswer | None = None,
                      limits: VerifyLimits = DEFAULT_LIMITS) -> VerifyOutcome:
    """Verify in the current process with only Z3's own timeout (trusted input, baselines).

    No memory limit and no wall-clock kill: do not use it on model output."""
    gold, expected_text = coerce_expected(expected)
    early = precheck(text, expected_text)
    if early is not None:
        return early
    return verify_core(text, gold, expected_text, limits.timeout_s, thread_context(), limits.rlimit)
