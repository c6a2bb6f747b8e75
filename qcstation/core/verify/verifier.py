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
:func:`qcstation.core.reading.answers.matches` (exact for integer/fraction golds, half a
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

from qcstation.core.verify.outcome import STATUSES, VerifyLimits, VerifyOutcome
from qcstation.core.verify.pool import VerifierPool, verify_smtlib
from qcstation.core.verify.solve import verify_in_process

__all__ = [
    "STATUSES",
    "VerifyOutcome",
    "VerifyLimits",
    "verify_smtlib",
    "verify_in_process",
    "VerifierPool",
]
