"""What a verification returns and the limits it runs under (the contract: :mod:`.verifier`).

- :class:`VerifyOutcome` and :data:`STATUSES`: one check's result, as stored in ``verify_result``.
- :class:`VerifyLimits`: the time and memory a check may use.
- :func:`coerce_expected`: the gold answer as an exact number and the text shown for it.
- :func:`timed_outcome`: an outcome stamped with the time since the check began;
  :func:`precheck`: what is refused before any text reaches Z3 (not text, too large).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from qcstation.common.errors import VerificationError
from qcstation.core.reading.answers import ExactAnswer, fraction_to_str, parse_number
from qcstation.core.verify.smtlib import MAX_BYTES

__all__ = ["STATUSES", "ANSWER", "VerifyOutcome", "VerifyLimits", "DEFAULT_LIMITS", "STEADY_RLIMIT",
           "STEADY_WALL_S", "coerce_expected", "timed_outcome", "precheck"]

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
    #: Z3 resource units (its ``rlimit``, a count of its own steps) each check may use, or
    #: None. Set, it decides what is too hard: a check that needs more is ``unknown`` on a
    #: quiet and on a loaded machine alike, and ``timeout_s``, the CPU limit and the wall-clock
    #: kill are only safety nets: ``timeout`` then says the clock ran out first (the machine
    #: was too busy), never that the formalization is too hard
    rlimit: int | None = None

    def wall_clock_s(self) -> float:
        return float(self.wall_s) if self.wall_s is not None else 1.5 * self.timeout_s + 1.0


#: the limits a check runs under unless it is given others
DEFAULT_LIMITS = VerifyLimits()

#: Z3 resource units (:attr:`VerifyLimits.rlimit`) for the checks whose outcome must not depend
#: on the machine's load: derive's checks of every item (a derived set is part of a benchmark)
#: and the rules' own check of an equation. Measured 2026-11-29 over 1,497 inverse and
#: counterfactual checks of 300 GSM8K parents: at most 1,943 units (median 575); a hard
#: nonlinear script spends about 3 million a second of CPU, so this is about 3 s of CPU
STEADY_RLIMIT = 10_000_000
#: the wall clock such a check may take at least: only a safety net (its expiry is a
#: ``timeout`` that says the machine was too busy, never that the script is too hard)
STEADY_WALL_S = 60.0


def coerce_expected(expected: str | ExactAnswer | int | Fraction | None
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


def timed_outcome(status: str, message: str, t0: float, expected: str | None,
             value: Fraction | None = None, value_text: str | None = None,
             exact: bool = True) -> VerifyOutcome:
    return VerifyOutcome(status, value, value_text, expected, message,
                         (time.perf_counter() - t0) * 1000.0, exact)


def precheck(text: Any, expected_text: str | None) -> VerifyOutcome | None:
    t0 = time.perf_counter()
    if not isinstance(text, str):
        return timed_outcome("parse_error", f"expected SMT-LIB text, got {type(text).__name__}",
                        t0, expected_text)
    if len(text) > MAX_BYTES // 4 and len(text.encode("utf-8", errors="replace")) > MAX_BYTES:
        size = len(text.encode("utf-8", errors="replace"))
        return timed_outcome("parse_error",
                        f"the SMT-LIB text is {size} bytes; the limit is {MAX_BYTES} bytes",
                        t0, expected_text)
    return None
