"""The math-verify worker: runs in an isolated process, started by
:class:`qcstation.eval.checker.AnswerChecker` through
:class:`qcstation.core.verify.isolation.IsolatedPool`.

Its time limit is CPU time, not wall-clock: math-verify's own timeout is ``signal.alarm``
(wall-clock), so a busy machine turned answers it reads in a few milliseconds of CPU into
timeouts, and a verdict depended on the load. Here math-verify runs without its alarm and
an ``ITIMER_PROF`` timer (the worker's user + system CPU seconds) interrupts a parse or a
comparison that has computed for longer than the limit. Work stuck in C code that never
returns to the interpreter is ended by the parent's wall-clock kill."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_gold_cache: dict[str, Any] = {}


class CPULimit(BaseException):
    """Raised in the worker when a parse or comparison used up its CPU seconds (a
    BaseException, so that no ``except Exception`` inside sympy or math-verify swallows it)."""


def _on_cpu_limit(signum: int, frame: object) -> None:
    raise CPULimit()


@contextmanager
def cpu_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block with :class:`CPULimit` after ``seconds`` of this process's CPU time."""
    old = signal.signal(signal.SIGPROF, _on_cpu_limit)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def _wrap(text: str) -> str:
    t = text.strip()
    if t.startswith("$") or t.startswith("\\(") or t.startswith("\\[") or "\\boxed" in t:
        return t
    return "\\boxed{" + t + "}"


def math_verify_job(job: dict[str, Any]) -> dict[str, Any]:
    """Runs in a worker process (its main thread: signal handlers run there)."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    timeout = max(1, int(job.get("timeout", 3)))
    configs = [LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()]

    def read(text: str) -> list[Any]:
        try:
            with cpu_limit(timeout):
                return list(parse(text, extraction_config=configs, fallback_mode="first_match",
                                  parsing_timeout=None, raise_on_error=True))
        except CPULimit:
            raise TimeoutError("parsing took longer than %d s of CPU time" % timeout) from None
        except Exception:  # noqa: BLE001 - malformed LaTeX is an unreadable answer
            return []

    def shown(x: Any) -> str:
        try:
            if getattr(x, "is_Rational", False):
                return str(x.p) if x.q == 1 else f"{x.p}/{x.q}"
            s = str(x)
        except Exception:  # noqa: BLE001 - e.g. int/str digit limit
            return "(too large to show)"
        return s if len(s) <= 200 else s[:199] + "…"

    gold_text = job["gold"]
    gold = _gold_cache.get(gold_text)
    if gold is None:
        try:
            gold = read(_wrap(gold_text))
        except TimeoutError as exc:
            return {"status": "gold", "message": str(exc)}
        if len(_gold_cache) > 512:
            _gold_cache.clear()
        _gold_cache[gold_text] = gold
    if not gold or isinstance(gold[0], str):
        return {"status": "gold", "message": "math-verify found no expression in it"}
    pred_src = _wrap(job["pred"]) if job.get("wrap") else job["pred"]
    try:
        pred = read(pred_src)
    except TimeoutError as exc:
        return {"status": "unparseable", "message": f"math-verify: {exc}"}
    if not pred:
        return {"status": "unparseable", "message": "math-verify found no answer it can read"}
    pred_text = pred[-1] if isinstance(pred[-1], str) else shown(pred[0])
    if isinstance(pred[0], str):
        return {"status": "unparseable", "pred_text": pred_text,
                "message": "math-verify could not read the answer as mathematics"}
    try:
        with cpu_limit(timeout):
            ok = verify(gold, pred, timeout_seconds=None, raise_on_error=True)
    except CPULimit:
        return {"status": "unparseable", "pred_text": pred_text, "value": shown(pred[0]),
                "message": f"math-verify: the comparison took longer than {timeout} s of CPU time"}
    except Exception as exc:  # noqa: BLE001 - could not compare: not equivalent as far as known
        return {"status": "wrong", "pred_text": pred_text, "value": shown(pred[0]),
                "message": f"comparison failed: {type(exc).__name__}"}
    return {"status": "correct" if ok else "wrong", "pred_text": pred_text,
            "value": shown(pred[0])}
