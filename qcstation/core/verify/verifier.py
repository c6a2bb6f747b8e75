"""Run untrusted SMT-LIB formalizations in Z3, in isolated worker processes.

Convention for formalizations (generators rely on it)
-----------------------------------------------------
A formalization of a word problem is an SMT-LIB v2 script that

* declares a 0-ary constant named ``answer`` of sort ``Int`` or ``Real``
  (``(declare-const answer Real)``; ``(declare-fun answer () Int)`` and
  ``(define-fun answer () Real TERM)`` are accepted too),
* constrains it with ``assert`` commands (helper constants and ``define-fun``
  helpers are fine),
* ends with ``(check-sat)``; ``(get-value (answer))`` / ``(get-model)`` are optional.

Example::

    (set-logic QF_LRA)
    (declare-const eggs Real) (assert (= eggs (- 16 3 4)))
    (declare-const answer Real) (assert (= answer (* eggs 2)))
    (check-sat) (get-value (answer))

The verifier reads the script with :mod:`qcstation.core.verify.smtlib` (size/depth limits,
command allow-list; Z3 never sees ``include``, output-channel options or anything
that names a file), hands the declarations and assertions in force at the last
``(check-sat)`` to Z3, reads the model value of ``answer`` exactly (integers and
rationals as :class:`~fractions.Fraction`; irrational algebraic numbers as a
decimal approximation flagged ``exact=False``), checks that the value is unique
(``answer != v`` must be unsat) and compares it with the gold answer using
:func:`qcstation.core.verify.answers.matches` (exact for integer/fraction golds, half a
unit in the last place for decimal golds).

Every run ends in one :class:`VerifyOutcome` whose ``message`` is written to be
fed back to a model and whose ``status`` is one of :data:`STATUSES`:

``verified`` unique value (matching the gold, when one is given) ·
``parse_error`` malformed text, limits exceeded, or Z3 rejected it (unknown
symbol, sort error) · ``disallowed`` command/option outside the allow-list ·
``unsat`` contradictory constraints (the conflicting lines are named) ·
``unknown`` Z3 gave up, or the value is not a plain number · ``timeout`` Z3
timeout, CPU limit or wall-clock kill · ``no_answer`` no Int/Real constant
``answer`` in scope · ``ambiguous`` another value also satisfies the constraints ·
``wrong_value`` unique value that differs from the gold · ``resource_limit``
out of memory · ``crash`` the worker died (signal, unexpected exit).

Isolation: :class:`VerifierPool` keeps persistent worker processes (started with
the ``forkserver`` method, safe to use from threads; a script that uses the pool
at import time needs the usual ``if __name__ == "__main__":`` guard). Each worker
sets ``RLIMIT_AS`` (memory), ``RLIMIT_CORE`` = 0 and, per job, a soft ``RLIMIT_CPU``,
sends its stdout/stderr to /dev/null;
Z3 gets its own timeout and ``memory_max_size``; the parent kills a worker that
exceeds the wall-clock limit or dies, classifies the job (``timeout``, ``crash``,
``resource_limit``) and starts a replacement.

Time budget per job (``VerifyLimits.timeout_s`` = T): the main ``check-sat`` gets T;
the uniqueness check (or the unsat-core check) gets what is left of T but at least
``max(0.25 s, T/5)``; the parent kills the worker after ``1.5*T + 1 s`` of wall
time (``VerifyLimits.wall_s`` overrides).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from qcstation.core.verify.answers import ExactAnswer, fraction_to_str, matches, parse_number
from qcstation.core.verify.isolation import apply_worker_limits as _apply_worker_limits
from qcstation.core.verify.isolation import current_vm_mb as _current_vm_mb
from qcstation.core.verify.isolation import MPContext, mp_context
from qcstation.core.verify.isolation import set_cpu_budget as _set_cpu_budget
from qcstation.core.verify.isolation import signal_name as _signal_name
from qcstation.core.verify.isolation import silence_output as _silence_output
from qcstation.core.verify.isolation import WorkerProcess
from qcstation.core.verify.smtlib import (
    MAX_BYTES,
    Command,
    Node,
    SmtDisallowedError,
    SmtSyntaxError,
    Token,
    parse_script,
    render_nodes,
    symbol_name,
)
from qcstation.common.errors import VerificationError

__all__ = [
    "STATUSES",
    "VerifyOutcome",
    "VerifyLimits",
    "verify_smtlib",
    "verify_in_process",
    "VerifierPool",
]

STATUSES = (
    "verified", "parse_error", "disallowed", "unsat", "unknown", "timeout",
    "no_answer", "ambiguous", "wrong_value", "resource_limit", "crash",
)

ANSWER = "answer"


@dataclass
class VerifyOutcome:
    status: str
    value: Fraction | None
    value_text: str | None
    expected: str | None
    message: str
    elapsed_ms: float
    exact: bool = True

    @property
    def ok(self) -> bool:
        return self.status == "verified"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "ok": self.ok,
            "value": None if self.value is None else fraction_to_str(self.value),
            "value_text": self.value_text,
            "expected": self.expected,
            "message": self.message,
            "elapsed_ms": round(float(self.elapsed_ms), 3),
            "exact": self.exact,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VerifyOutcome:
        value = data.get("value")
        return cls(
            status=str(data["status"]),
            value=None if value is None else Fraction(str(value)),
            value_text=data.get("value_text"),
            expected=data.get("expected"),
            message=str(data.get("message", "")),
            elapsed_ms=float(data.get("elapsed_ms", 0.0)),
            exact=bool(data.get("exact", True)),
        )


@dataclass(frozen=True)
class VerifyLimits:
    timeout_s: float = 5.0
    memory_mb: int = 512
    #: parent wall-clock kill; ``None`` means ``1.5 * timeout_s + 1``
    wall_s: float | None = None

    def wall_clock_s(self) -> float:
        return float(self.wall_s) if self.wall_s is not None else 1.5 * self.timeout_s + 1.0


#: the limits a check runs under unless it is given others
DEFAULT_LIMITS = VerifyLimits()


# --------------------------------------------------------------------------- expected


def _coerce_expected(expected: str | ExactAnswer | int | Fraction | None
                     ) -> tuple[ExactAnswer | None, str | None]:
    """Gold answer as (ExactAnswer, display text); raises VerificationError when unusable."""
    if expected is None:
        return None, None
    if isinstance(expected, ExactAnswer):
        if expected.kind == "decimal" and expected.decimals:
            return expected, f"{float(expected.value):.{expected.decimals}f}"
        return expected, expected.text
    if isinstance(expected, Fraction):
        kind = "integer" if expected.denominator == 1 else "fraction"
        return ExactAnswer(expected, kind), fraction_to_str(expected)
    gold = parse_number(expected)
    if gold is None:
        raise VerificationError(f"the expected answer {str(expected)!r} is not a single number",
                                title="Bad expected answer")
    return gold, str(expected).strip()


# --------------------------------------------------------------------------- core


def _outcome(status: str, message: str, t0: float, expected: str | None,
             value: Fraction | None = None, value_text: str | None = None,
             exact: bool = True) -> VerifyOutcome:
    return VerifyOutcome(status, value, value_text, expected, message,
                         (time.perf_counter() - t0) * 1000.0, exact)


def _z3_message(exc: BaseException) -> str:
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


def _is_memory_message(text: str) -> bool:
    t = text.lower()
    return "memory" in t or "memout" in t


def _memory_message(reason: str) -> str:
    extra = "" if reason.strip().lower() in ("out of memory", "memout") else f" ({reason})"
    return (f"z3 ran out of memory{extra}; simplify the formalization "
            "(no huge bit-vectors, exponents or case splits are needed for a word problem)")


def _find_answer(commands: list[Command]) -> tuple[Command | None, str]:
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


def _answer_sort(decl: Command) -> str:
    args = decl.args
    sort = args[2] if decl.name in ("declare-fun", "define-fun", "define-fun-rec") else args[1]
    return symbol_name(sort) or "Real"


def _build_solver_text(active: list[Command], decl: Command) -> tuple[str, list[int]]:
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


def _value_of(v: Any) -> tuple[Fraction, str, bool] | None:
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
        base, exp = _value_of(v.arg(0)), _value_of(v.arg(1))
        if base and exp and base[2] and exp[2] and exp[0].denominator == 1:
            e = exp[0].numerator
            bits = max(base[0].numerator.bit_length(), base[0].denominator.bit_length(), 1)
            if abs(e) <= _POWER_MAX_EXP and bits * abs(e) <= 200_000 and (base[0] != 0 or e >= 0):
                f = base[0] ** e
                return f, fraction_to_str(f), True
    if z3.is_app_of(v, z3.Z3_OP_TO_REAL) and v.num_args() == 1:
        return _value_of(v.arg(0))
    return None


def _fmt_lines(lines: list[int]) -> str:
    uniq = sorted(set(lines))
    if len(uniq) == 1:
        return f"line {uniq[0]}"
    return "lines " + ", ".join(str(x) for x in uniq[:-1]) + f" and {uniq[-1]}"


def _verify_core(text: str, gold: ExactAnswer | None, expected_text: str | None,
                 timeout_s: float, ctx: Any = None) -> VerifyOutcome:
    """The whole verification of one script in the current process (shared by all modes)."""
    t0 = time.perf_counter()
    try:
        script = parse_script(text)
    except SmtDisallowedError as exc:
        return _outcome("disallowed", str(exc), t0, expected_text)
    except SmtSyntaxError as exc:
        return _outcome("parse_error", str(exc), t0, expected_text)

    active = script.active_commands()
    decl, problem = _find_answer(active)
    if decl is None:
        popped = any(c.declared_name() == ANSWER for c in script.commands)
        msg = ("no constant named answer is in scope at the (check-sat): it was declared inside "
               "a (push) that was popped" if popped else
               "no constant named answer is declared; declare it with "
               "(declare-const answer Int) or (declare-const answer Real) and constrain it "
               "with (assert ...)")
        return _outcome("no_answer", msg, t0, expected_text)
    if problem:
        return _outcome("no_answer", problem, t0, expected_text)

    import z3

    if ctx is None:
        ctx = z3.Context()
    solver_text, assert_lines = _build_solver_text(active, decl)
    try:
        assertions = z3.parse_smt2_string(solver_text, ctx=ctx)
    except z3.Z3Exception as exc:
        msg = _z3_message(exc)
        if _is_memory_message(msg):
            return _outcome("resource_limit", f"z3 ran out of memory while reading the script ({msg})",
                            t0, expected_text)
        return _outcome("parse_error", f"z3 rejected the script: {msg}", t0, expected_text)

    sort = z3.IntSort(ctx) if _answer_sort(decl) == "Int" else z3.RealSort(ctx)
    ans = z3.Const(ANSWER, sort)
    timeout_ms = max(1, int(timeout_s * 1000))
    extra_min_s = max(0.25, timeout_s / 5)
    notes = list(script.notes)

    def extra_ms() -> int:
        left = timeout_s - (time.perf_counter() - t0)
        return max(1, int(max(left, extra_min_s) * 1000))

    try:
        solver = z3.Solver(ctx=ctx)
        solver.set("timeout", timeout_ms)
        solver.add(assertions)
        result = solver.check()
        if result == z3.unknown:
            reason = solver.reason_unknown()
            if reason in ("timeout", "canceled") or "timeout" in reason:
                return _outcome(
                    "timeout",
                    f"z3 did not finish within {timeout_s:g} s; the formalization is too hard "
                    "(avoid nonlinear integer constraints; compute with explicit numbers)",
                    t0, expected_text)
            if _is_memory_message(reason):
                return _outcome("resource_limit", _memory_message(reason), t0, expected_text)
            return _outcome("unknown", f"z3 could not decide the constraints (unknown: {reason}); "
                            "simplify the formalization, e.g. keep the arithmetic linear",
                            t0, expected_text)
        if result == z3.unsat:
            msg = ("the constraints are unsatisfiable (contradictory), so no value of answer "
                   "satisfies them")
            if len(assert_lines) == len(assertions) and len(assertions) > 1:
                core_lines = _unsat_core_lines(z3, ctx, assertions, assert_lines, extra_ms())
                if core_lines:
                    msg += f"; the assertions on {_fmt_lines(core_lines)} cannot all hold together"
            return _outcome("unsat", msg, t0, expected_text)

        model = solver.model()
        v = model.eval(ans, model_completion=True)
        read = _value_of(v)
        if read is None:
            shown = str(v)
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            return _outcome("unknown", f"the value z3 found for answer is {shown}, which is not a "
                            "plain number; simplify the formalization", t0, expected_text)
        value, value_text, exact = read

        solver.push()
        solver.add(ans != v)
        solver.set("timeout", extra_ms())
        second = solver.check()
        if second == z3.sat:
            other = _value_of(solver.model().eval(ans, model_completion=True))
            other_text = other[1] if other else "another value"
            return _outcome(
                "ambiguous",
                f"answer is not determined by the constraints: both {value_text} and "
                f"{other_text} satisfy them (is a quantity left unconstrained, or divided by "
                "zero?); add the missing constraint",
                t0, expected_text, value, value_text, exact)
        if second == z3.unknown:
            # a value nobody could show to be the only one is not verified: a formalization
            # could otherwise hide a second solution behind a hard constraint
            why = solver.reason_unknown() or "unknown"
            why = "the check timed out" if why in ("timeout", "canceled") else f"z3: {why}"
            return _outcome(
                "unknown",
                f"z3 found answer = {value_text} but could not show it is the only value "
                f"({why}); state the answer's relationships directly so it is determined",
                t0, expected_text, value, value_text, exact)
        solver.pop()
    except z3.Z3Exception as exc:
        msg = _z3_message(exc)
        if _is_memory_message(msg):
            return _outcome("resource_limit", _memory_message(msg), t0, expected_text)
        return _outcome("unknown", f"z3 failed: {msg}", t0, expected_text)

    approx = "" if exact else " (irrational; decimal approximation)"
    note = ("; note: " + "; ".join(notes)) if notes else ""
    if gold is not None and not matches(value, gold):
        sym = "=" if exact else "≈"
        return _outcome("wrong_value",
                        f"answer {sym} {value_text}{approx} but the expected answer is "
                        f"{expected_text}{note}",
                        t0, expected_text, value, value_text, exact)
    if gold is not None:
        msg = f"answer = {value_text}{approx}, matching the expected answer {expected_text}"
    else:
        msg = f"answer = {value_text}{approx} (unique)"
    return _outcome("verified", msg + note, t0, expected_text, value, value_text, exact)


def _unsat_core_lines(z3: Any, ctx: Any, assertions: Any, lines: list[int], ms: int) -> list[int]:
    try:
        s = z3.Solver(ctx=ctx)
        s.set("timeout", ms)
        s.set("core.minimize", True)
        marks = []
        for i, f in enumerate(assertions):
            m = z3.Bool(f"__qc_assert_{i}", ctx)
            marks.append(m)
            s.assert_and_track(f, m)
        if s.check() != z3.unsat:
            return []
        index = {str(m): i for i, m in enumerate(marks)}
        return [lines[index[str(c)]] for c in s.unsat_core() if str(c) in index]
    except z3.Z3Exception:
        return []


# --------------------------------------------------------------------------- in-process

_local = threading.local()


def _thread_context() -> Any:
    import z3

    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ctx = _local.ctx = z3.Context()
    return ctx


def _precheck(text: Any, expected_text: str | None) -> VerifyOutcome | None:
    t0 = time.perf_counter()
    if not isinstance(text, str):
        return _outcome("parse_error", f"expected SMT-LIB text, got {type(text).__name__}",
                        t0, expected_text)
    if len(text) > MAX_BYTES // 4 and len(text.encode("utf-8", errors="replace")) > MAX_BYTES:
        size = len(text.encode("utf-8", errors="replace"))
        return _outcome("parse_error",
                        f"the SMT-LIB text is {size} bytes; the limit is {MAX_BYTES} bytes",
                        t0, expected_text)
    return None


def verify_in_process(text: str, expected: str | ExactAnswer | None = None,
                      limits: VerifyLimits = DEFAULT_LIMITS) -> VerifyOutcome:
    """Verify in the current process with only Z3's own timeout (trusted input, baselines).

    No memory limit and no wall-clock kill: do not use it on model output."""
    gold, expected_text = _coerce_expected(expected)
    early = _precheck(text, expected_text)
    if early is not None:
        return early
    return _verify_core(text, gold, expected_text, limits.timeout_s, _thread_context())


def verify_smtlib(text: str, expected: str | ExactAnswer | None = None,
                  limits: VerifyLimits = DEFAULT_LIMITS) -> VerifyOutcome:
    """Verify one untrusted script in a fresh isolated worker process."""
    gold, expected_text = _coerce_expected(expected)
    early = _precheck(text, expected_text)
    if early is not None:
        return early
    with VerifierPool(workers=1, limits=limits) as pool:
        return pool.verify(text, gold if gold is None else (gold, expected_text))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- worker


_RECYCLE_CONTEXT_EVERY = 2000


def _worker_main(conn: multiprocessing.connection.Connection, memory_mb: int) -> None:
    """Worker loop: receive (job_id, text, gold, expected_text, timeout_s, cpu_s), reply."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the parent, which kills us
    _silence_output()  # z3 warnings must not scribble over the parent's terminal (the TUI)
    _apply_worker_limits(memory_mb)
    import z3

    headroom = memory_mb - _current_vm_mb()
    z3.set_param("memory_max_size", max(16, int(headroom * 0.8)))
    ctx = z3.Context()
    done = 0
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if msg is None:
            return
        job_id, text, gold, expected_text, timeout_s, cpu_s = msg
        _set_cpu_budget(cpu_s)
        t0 = time.perf_counter()
        try:
            out = _verify_core(text, gold, expected_text, timeout_s, ctx)
        except MemoryError:
            out = _outcome("resource_limit", f"the verifier ran out of memory (limit {memory_mb} MB)",
                           t0, expected_text)
        except RecursionError:
            out = _outcome("resource_limit", "the script is nested too deeply", t0, expected_text)
        except Exception as exc:  # noqa: BLE001 - report, never die silently
            out = _outcome("crash", f"the verifier failed: {type(exc).__name__}: {exc}",
                           t0, expected_text)
        try:
            conn.send(("result", job_id, out.to_dict()))
        except (OSError, ValueError):
            return
        if out.status in ("resource_limit", "crash"):
            return  # z3 state may be damaged: let the parent start a fresh worker
        done += 1
        if done % _RECYCLE_CONTEXT_EVERY == 0:
            del ctx
            ctx = z3.Context()


def _mp_context() -> MPContext:
    # z3 and the verifier are preloaded in the (shared) fork server
    return mp_context(["z3", "qcstation.core.verify.answers", "qcstation.core.verify.smtlib",
                       "qcstation.core.verify.verifier"])


class _Worker(WorkerProcess):
    """One Z3 worker process, the parent's end of its pipe and the jobs sent to it."""

    def __init__(self, mpctx: MPContext, memory_mb: int) -> None:
        super().__init__(mpctx, _worker_main, (memory_mb,), "qcstation-z3-worker")
        self.inflight: deque[_Job] = deque()
        self.head_since = 0.0  # when the job at the head of ``inflight`` started (parent clock)

    def death_outcome(self, expected_text: str | None, elapsed_ms: float) -> VerifyOutcome:
        self.proc.join(timeout=5)
        code = self.proc.exitcode

        def out(status: str, message: str) -> VerifyOutcome:
            return VerifyOutcome(status, None, None, expected_text, message, elapsed_ms)

        if code is not None and code < 0:
            sig = -code
            name = _signal_name(sig)
            if sig == getattr(signal, "SIGXCPU", -1):
                return out("timeout", "the verifier exceeded its CPU time limit and was stopped; "
                           "the formalization is too hard")
            if sig == signal.SIGKILL:
                return out("crash", "the verifier process was killed (SIGKILL), e.g. by the "
                           "system's out-of-memory killer")
            if sig in (signal.SIGABRT, signal.SIGSEGV, getattr(signal, "SIGBUS", -1)):
                return out("crash", f"z3 crashed ({name}); the script may exhaust memory or hit "
                           "a solver bug; simplify the formalization")
            return out("crash", f"the verifier process died ({name})")
        return out("crash", f"the verifier process exited unexpectedly (exit code {code})")


@dataclass
class _Job:
    index: int
    msg: tuple[Any, ...]  # (index, text, gold, expected_text, timeout_s, cpu_s) for the worker
    expected_text: str | None


class VerifierPool:
    """Persistent, isolated Z3 worker processes; a context manager.

    Workers are started once (limits applied once per worker) and replaced when
    killed or dead. ``verify_many`` keeps every worker busy, with up to
    :attr:`depth` jobs queued per worker so a worker never waits for the parent,
    and yields outcomes in input order. Safe to share between threads: each call
    checks workers out of the pool and returns them when idle.

    Like any ``multiprocessing`` code, a script that uses the pool at import time
    needs the ``if __name__ == "__main__":`` guard.
    """

    depth = 2

    def __init__(self, workers: int = 2, limits: VerifyLimits = DEFAULT_LIMITS) -> None:
        if workers < 1:
            raise VerificationError("a verifier pool needs at least one worker")
        self.limits = limits
        self.size = int(workers)
        self._mp = _mp_context()
        self._cond = threading.Condition()
        self._closed = False
        self._idle: list[_Worker] = [self._spawn() for _ in range(self.size)]
        self._all: set[_Worker] = set(self._idle)

    # -- worker management -------------------------------------------------
    def _spawn(self) -> _Worker:
        return _Worker(self._mp, self.limits.memory_mb)

    def _replace(self, w: _Worker) -> _Worker:
        if w.alive():
            w.kill()
        else:
            w.proc.join(timeout=1)
            w.close_conn()
        nw = self._spawn()
        with self._cond:
            self._all.discard(w)
            self._all.add(nw)
        return nw

    def _take(self, block: bool) -> _Worker | None:
        with self._cond:
            while True:
                if self._closed:
                    raise VerificationError("the verifier pool is closed")
                if self._idle:
                    return self._idle.pop()
                if not block:
                    return None
                self._cond.wait()

    def _give_back(self, workers: list[_Worker]) -> None:
        if not workers:
            return
        with self._cond:
            if not self._closed:
                self._idle.extend(workers)
                self._cond.notify_all()
                return
        for w in workers:
            w.stop()

    def worker_pids(self) -> list[int]:
        """Process ids of the current workers (for monitoring and tests)."""
        with self._cond:
            return sorted(w.pid for w in self._all if w.pid is not None)

    # -- public API --------------------------------------------------------
    def verify(self, text: str, expected: str | ExactAnswer | None = None) -> VerifyOutcome:
        """Verify one script in a worker (blocks until a worker is free).

        Raises :class:`VerificationError` when ``expected`` is not a number."""
        return next(iter(self.verify_many([(text, expected)])))

    def verify_many(self, items: Iterable[tuple[str, str | ExactAnswer | None]]
                    ) -> Iterator[VerifyOutcome]:
        """Verify many scripts, yielding outcomes in input order while all workers stay busy.

        Raises :class:`VerificationError` (when the item is reached) if an expected
        answer is not a number."""
        limits = self.limits
        wall = limits.wall_clock_s()
        cpu_s = 1.5 * limits.timeout_s + 2.0
        source = enumerate(items)
        exhausted = False
        retry: deque[_Job] = deque()
        results: dict[int, VerifyOutcome] = {}
        next_out = 0
        mine: list[_Worker] = []

        def next_job() -> _Job | None:
            nonlocal exhausted
            while not exhausted:
                try:
                    idx, (text, expected) = next(source)
                except StopIteration:
                    exhausted = True
                    return None
                if isinstance(expected, tuple):  # (ExactAnswer, text), from verify_smtlib
                    gold, expected_text = expected
                else:
                    gold, expected_text = _coerce_expected(expected)
                early = _precheck(text, expected_text)
                if early is not None:
                    results[idx] = early
                    continue
                return _Job(idx, (idx, text, gold, expected_text, limits.timeout_s, cpu_s),
                            expected_text)
            return None

        try:
            while True:
                # 1. check out workers while there is work
                if not exhausted or retry:
                    if not mine and next_out not in results:
                        mine.append(self._take(block=True))  # type: ignore[arg-type]
                    while len(mine) < self.size:
                        w = self._take(block=False)
                        if w is None:
                            break
                        mine.append(w)
                # 2. keep each worker's queue filled
                for k in range(len(mine)):
                    while len(mine[k].inflight) < self.depth:
                        job = retry.popleft() if retry else next_job()
                        if job is None:
                            break
                        mine[k] = self._send(mine[k], job)
                # 3. yield what is ready, in order (idle workers go back meanwhile)
                if next_out in results:
                    idle = [w for w in mine if not w.inflight]
                    mine = [w for w in mine if w.inflight]
                    self._give_back(idle)
                    while next_out in results:
                        yield results.pop(next_out)
                        next_out += 1
                    continue
                busy = [w for w in mine if w.inflight]
                if not busy:
                    if exhausted and not retry:
                        break
                    continue
                # 4. wait for replies, deaths or a deadline
                def deadline(w: _Worker) -> float:
                    return w.head_since + wall + (0.0 if w.ready else 30.0)

                timeout = max(0.0, min(deadline(w) for w in busy) - time.perf_counter())
                ready = set(multiprocessing.connection.wait([w.conn for w in busy], timeout=timeout))
                now = time.perf_counter()
                for k, w in enumerate(mine):
                    if w.conn in ready:
                        mine[k] = w = self._drain(w, results, retry)
                    if w.inflight and now >= deadline(w):
                        job = w.inflight.popleft()
                        results[job.index] = VerifyOutcome(
                            "timeout", None, None, job.expected_text,
                            f"the verifier did not answer within the {wall:g} s wall-clock limit "
                            "and was stopped; the formalization is too hard",
                            (now - w.head_since) * 1000.0)
                        retry.extendleft(reversed(w.inflight))
                        w.inflight.clear()
                        mine[k] = self._replace(w)
        finally:
            # jobs abandoned (generator closed early, error): their workers are replaced
            back = [self._replace(w) if w.inflight else w for w in mine]
            self._give_back(back)

    def _send(self, w: _Worker, job: _Job) -> _Worker:
        for _ in range(3):
            if not w.inflight and w.ready and not w.alive():
                w = self._replace(w)
            try:
                w.conn.send(job.msg)
            except (OSError, ValueError):
                w = self._replace(w)
                continue
            if not w.inflight:
                w.head_since = time.perf_counter()
            w.inflight.append(job)
            return w
        raise VerificationError("could not start a verifier worker process")

    def _drain(self, w: _Worker, results: dict[int, VerifyOutcome], retry: deque[_Job]) -> _Worker:
        """Read every message waiting from ``w``; returns the worker to use from now on."""
        while True:
            try:
                msg = w.conn.recv()
            except (EOFError, OSError):
                now = time.perf_counter()
                if w.inflight:
                    job = w.inflight.popleft()
                    results[job.index] = w.death_outcome(job.expected_text,
                                                         (now - w.head_since) * 1000.0)
                retry.extendleft(reversed(w.inflight))
                w.inflight.clear()
                return self._replace(w)
            now = time.perf_counter()
            if msg[0] == "ready":
                w.ready = True
                w.head_since = now
            else:
                _, job_id, data = msg
                job = w.inflight.popleft()
                if job.index != job_id:  # pragma: no cover - protocol invariant
                    raise VerificationError("verifier worker answered out of order")
                outcome = VerifyOutcome.from_dict(data)
                results[job.index] = outcome
                w.head_since = now
                if outcome.status in ("resource_limit", "crash"):
                    # the worker exits after such a job; queued jobs go to its replacement
                    retry.extendleft(reversed(w.inflight))
                    w.inflight.clear()
                    return self._replace(w)
            if not w.conn.poll(0):
                return w

    def close(self) -> None:
        """Stop all workers (idle ones now; busy ones when their caller gives them back)."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for w in idle:
            w.stop()

    def __enter__(self) -> VerifierPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass
