"""Final-answer checker: take the answer out of a model's response and compare it with the gold.

Two layers. Plain numbers are decided in-process with the project's exact rationals
(:mod:`qcstation.core.reading.answers`), thousands per second. Anything else (LaTeX
expressions such as ``\\frac{\\sqrt{3}}{2}``, intervals, symbolic golds) goes to
Hugging Face's ``math-verify`` in isolated worker processes
(:class:`qcstation.core.verify.isolation.IsolatedPool`: memory limit, CPU limit, wall-clock
kill). Each parse and comparison there has a limit in CPU seconds (an ``ITIMER_PROF``
timer in the worker's main thread, :mod:`.symbolic`), never wall-clock, so a verdict does
not depend on how busy the machine is. A worker that hangs or dies gives ``unparseable``
with the reason.

Verdicts: ``correct`` | ``wrong`` | ``unparseable`` (no usable answer in the response,
or the checker could not read or compare it).

Extraction rules (:func:`extract_answer`), in this order; only the last
:data:`MAX_SCAN_CHARS` characters of a response are searched:

1. ``\\boxed{...}`` (or ``\\fbox{...}``): the **last** non-empty box wins, whatever came
   before it (a model that boxes several values is judged on its last one). Nested
   braces are balanced; ``\\boxed{\\text{18 apples}}`` gives ``18 apples``.
2. An answer marker, the last one in the text: ``#### 18`` (GSM8K; a Markdown heading
   such as ``#### Step 2`` is not a marker), ``The answer is 18.``, ``Final answer:
   $18``, ``**Answer:** 18``. The answer is the text after the marker up to the end of
   its sentence (``The answer is 18. Next, ...`` gives ``18``); when that sentence has a
   number, the first number is taken (``The answer is 18 because 6 x 3 = 18`` gives
   ``18``); a LaTeX math span (``$...$``, ``\\(...\\)``) right after the marker is taken
   whole.
3. Markdown bold holding one number: the last ``**73**`` (``**Step 2**`` is a heading,
   not an answer).
4. Otherwise the last number in the response (source ``last-number``); when that number
   sits in a LaTeX math span (``$3 \\times 6 = 18$``, ``\\(x = 7\\)``), the span is the
   answer, its part after the last ``=`` when that is a number (source ``last-math``).

A response with no number and no box or marker is ``unparseable``.

The checker never guesses:

* a last ``\\boxed{`` whose braces do not close within 1,200 characters is
  ``unparseable`` (neither an earlier box nor the last number stands in for it);
* an answer giving several values (``\\pm 5``, ``16 or 18``, ``5 and 7``, ``x = 5, x = -5``)
  is ``wrong`` against a single-valued gold (method ``hedged``).
* boxes joined on one line (``\\boxed{16} or \\boxed{18}``) are several values, hedged
  in both readings (boxes on lines of their own: the last one counts);
* a correction is read after it (``The answer is not 5 but 6.``, ``not 5, it is 6``: 6); an
  answer that only says what it is not (``not 5``) is ``unparseable``, never 5;
* scientific notation is a number, its exponent read whole: ``1.5e3`` is 1500, ``2.5E-1`` is
  1/4, ``1e400`` is 10^400 (shown ``1e400``), ``1e4000`` is never 1. An exponent over
  :data:`MAX_EXPONENT` (1000) is not computed: such a number (not 0) is ``wrong`` against a
  numeric gold, whose exponent is at most :data:`MAX_DIGITS`; math-verify gets ``m \\times
  10^{e}`` (it reads ``1e400`` as 1·e·400).

*Strict* answers (``strict=True``, :func:`extract_strict`): only the reply's last non-empty
line, of the form the prompts ask for (``The answer is N.``, N one number, boxed or not),
counts; a reply without it, or (against a numeric gold) with an N that is not one number,
is ``unparseable`` (a format failure, never ``wrong``). The default (*flexible*) reading is the rules above.

Comparison rules for numbers (:func:`check_answer`):

* Exact rationals: ``0.5`` = ``1/2`` = ``\\frac{1}{2}`` = ``\\dfrac12``; ``18.00`` = 18.
* Thousands separators ``1,000``, ``1 000`` (thin or plain space, in an answer after a
  box, marker or bold only), ``1{,}000`` are read as 1000.
* Units and currency are ignored: ``18 dollars``, ``$18.00``, ``\\$18``, ``18 meters``,
  ``18 \\text{ cm}^2``.
* Percentages: a response ``25%`` matches a gold of ``25`` **and** a gold of ``0.25``
  (the sign says which scale the number is on); a plain response ``0.25`` matches a gold
  of 25 only when the gold itself is written ``25%``.
* A decimal gold written with d places accepts half a unit in its last place
  (``0.33`` accepts ``1/3``), as everywhere in the project.
* A response rounded to at least 2 decimal places matches a gold whose decimal
  expansion does not end (``0.33`` or ``0.333`` match ``1/3``; ``0.3`` does not; ``0.13``
  does not match ``1/8``, which can be written exactly). Method ``exact-rounded``.
* Number words: an answer given as English words (``eighteen``, ``one hundred and
  five``) right after a marker or in a box is read as that number.

Limits: responses are searched in their last :data:`MAX_SCAN_CHARS` characters; an
answer candidate longer than :data:`MAX_ANSWER_CHARS` characters is cut; a number with
more than :data:`MAX_DIGITS` digits is not read (Python's int/str limit is never
reached); every regular expression is linear on its input.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qcstation.core.verify.isolation import IsolatedPool
from qcstation.eval.checker.compare import (
    CHECKER_VERSION,
    CheckResult,
    Gold,
    decide_exact,
    from_job,
    parse_gold,
    symbolic_job,
)
from qcstation.eval.checker import extract as _extract
from qcstation.eval.checker.extract import MAX_SCAN_CHARS, Extraction, extract_answer, extract_strict

__all__ = [
    "CHECKER_VERSION",
    "MAX_SCAN_CHARS",
    "Extraction",
    "CheckResult",
    "CheckLimits",
    "AnswerChecker",
    "extract_answer",
    "extract_strict",
    "check_answer",
    "parse_gold",
]


@dataclass(frozen=True)
class CheckLimits:
    """Limits of the math-verify workers: CPU seconds per parse or comparison, the parent's
    wall-clock kill per item (``None``: ``6*timeout_s + 10``: an item can take three CPU
    limits, and a busy machine stretches CPU seconds into more wall-clock ones; the kill is
    for a worker stuck where no signal reaches it), and the worker's address-space limit."""

    timeout_s: int = 3
    memory_mb: int = 1536
    wall_s: float | None = None

    def wall_clock_s(self) -> float:
        return float(self.wall_s) if self.wall_s is not None else 6.0 * self.timeout_s + 10.0


class AnswerChecker:
    """Checks many answers: the exact path in-process, the rest in math-verify workers.

    A context manager; the worker pool starts on the first item that needs it::

        with AnswerChecker() as checker:
            results = checker.check_many([(response, gold_text, gold_value), ...])
    """

    def __init__(self, workers: int = 2, limits: CheckLimits = CheckLimits()) -> None:
        self.workers = max(1, int(workers))
        self.limits = limits
        self._pool: IsolatedPool | None = None
        self._lock = threading.Lock()

    def _get_pool(self) -> IsolatedPool:
        with self._lock:
            if self._pool is None:
                self._pool = IsolatedPool(
                    "qcstation.eval.checker.symbolic:math_verify_job", workers=self.workers,
                    wall_s=self.limits.wall_clock_s(), cpu_s=self.limits.wall_clock_s() + 1,
                    memory_mb=self.limits.memory_mb,
                    # imported in each worker, not preloaded into the fork server that
                    # the Z3 verifier's small-memory workers share
                    worker_imports=["math_verify", "sympy"],
                    name="qcstation-checker")
            return self._pool

    def worker_pids(self) -> list[int]:
        return self._pool.worker_pids() if self._pool is not None else []

    @property
    def started(self) -> bool:
        return self._pool is not None and self._pool.started

    def check(self, response_text: str | None, gold_text: str | None,
              gold_value: str | None = None) -> CheckResult:
        return self.check_many([(response_text, gold_text, gold_value)])[0]

    def check_many(self, items: Sequence[tuple[str | None, str | None, str | None]], *,
                   strict: bool = False) -> list[CheckResult]:
        """Verdicts in input order. Plain numbers are decided here; the rest go to the
        math-verify workers in one batch. ``strict``: the answer on the asked line only
        (:func:`extract_strict`); a strict answer that is not there is ``unparseable``."""
        results: list[CheckResult | None] = [None] * len(items)
        pending: list[tuple[int, Extraction, Gold, dict[str, Any]]] = []
        golds: dict[tuple[str | None, str | None], Gold] = {}
        for i, (response, gold_text, gold_value) in enumerate(items):
            key = (gold_text, gold_value)
            gold = golds.get(key)
            if gold is None:
                gold = golds[key] = parse_gold(gold_text, gold_value)
            ext = extract_strict(response) if strict else extract_answer(response)
            decided = decide_exact(ext, gold, response)
            if decided is not None:
                results[i] = decided
                continue
            if strict and _strict_format_failure(ext, gold):
                results[i] = CheckResult("unparseable", ext.text and ext.text[:200], None, "none",
                                         ext.reason, ext.source, gold.shown)
                continue
            job = symbolic_job(ext, response, gold)
            job["timeout"] = self.limits.timeout_s
            pending.append((i, ext, gold, job))
        if pending:
            outs = self._get_pool().run_many([job for _, _, _, job in pending])
            for (i, ext, gold, job), res in zip(pending, outs):
                results[i] = from_job(ext, gold, job, res)
        return [r for r in results if r is not None]

    def check_both(self, items: Sequence[tuple[str | None, str | None, str | None]]
                   ) -> tuple[list[CheckResult], list[CheckResult]]:
        """``check_many(items)`` and ``check_many(items, strict=True)``, with the reply the
        prompts ask for (its last line ``The answer is N.``: both readings take the same N from
        it, ``extract._asked_number``, the fast path) read and decided once: the strict result
        is the flexible one with the strict source. The others are read each way in full."""
        flexible: list[CheckResult | None] = [None] * len(items)
        strict: list[CheckResult | None] = [None] * len(items)
        rest: list[int] = []
        golds: dict[tuple[str | None, str | None], Gold] = {}
        for i, (response, gold_text, gold_value) in enumerate(items):
            asked = (_extract._asked_number(response) if isinstance(response, str) and response.strip()
                     else None)
            decided = None
            if asked is not None:
                key = (gold_text, gold_value)
                gold = golds.get(key)
                if gold is None:
                    gold = golds[key] = parse_gold(gold_text, gold_value)
                decided = decide_exact(Extraction(asked[0], "marker", asked[1]), gold, response)
            if decided is None:
                rest.append(i)
                continue
            flexible[i] = decided
            strict[i] = CheckResult(decided.verdict, decided.extracted, decided.value, decided.method,
                                    decided.detail, "strict", decided.gold, decided.checker_version)
        if rest:
            some = [items[i] for i in rest]
            for i, f, st in zip(rest, self.check_many(some), self.check_many(some, strict=True)):
                flexible[i], strict[i] = f, st
        return [r for r in flexible if r is not None], [r for r in strict if r is not None]

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def __enter__(self) -> AnswerChecker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _strict_format_failure(ext: Extraction, gold: Gold) -> bool:
    """A strict answer not in the asked form: no line 'The answer is N.', or (against a
    numeric gold) an N that is not one number. Never read further, never ``wrong``."""
    return not ext.found or (gold.exact is not None and ext.value is None and not ext.hedged)


def check_answer(response_text: str | None, gold_text: str | None,
                 gold_value: str | None = None, limits: CheckLimits = CheckLimits(), *,
                 strict: bool = False) -> CheckResult:
    """Check one response (``strict``: the answer on the asked line only). Plain numbers
    never start a process; anything math-verify has to decide runs in a one-off isolated
    worker (use :class:`AnswerChecker` for many)."""
    gold = parse_gold(gold_text, gold_value)
    ext = extract_strict(response_text) if strict else extract_answer(response_text)
    decided = decide_exact(ext, gold, response_text)
    if decided is not None:
        return decided
    if strict and _strict_format_failure(ext, gold):
        return CheckResult("unparseable", ext.text and ext.text[:200], None, "none", ext.reason,
                           ext.source, gold.shown)
    with AnswerChecker(workers=1, limits=limits) as checker:
        return checker.check_many([(response_text, gold_text, gold_value)], strict=strict)[0]
