"""The math-verify worker: runs in an isolated process (its main thread, so math-verify's
``signal.alarm`` timeout works), started by :class:`qcstation.eval.checker.AnswerChecker`
through :class:`qcstation.core.verify.isolation.IsolatedPool`."""

from __future__ import annotations

from typing import Any

_gold_cache: dict[str, Any] = {}


def _wrap(text: str) -> str:
    t = text.strip()
    if t.startswith("$") or t.startswith("\\(") or t.startswith("\\[") or "\\boxed" in t:
        return t
    return "\\boxed{" + t + "}"


def math_verify_job(job: dict[str, Any]) -> dict[str, Any]:
    """Runs in a worker process (main thread, so math-verify's alarm works)."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
    from math_verify.errors import TimeoutException

    timeout = max(1, int(job.get("timeout", 3)))
    configs = [LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()]

    def read(text: str) -> list[Any]:
        try:
            return list(parse(text, extraction_config=configs, fallback_mode="first_match",
                              parsing_timeout=timeout, raise_on_error=True))
        except TimeoutException:
            raise TimeoutError("parsing took longer than %d s" % timeout) from None
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
        ok = verify(gold, pred, timeout_seconds=timeout, raise_on_error=True)
    except TimeoutException:
        return {"status": "unparseable", "pred_text": pred_text, "value": shown(pred[0]),
                "message": f"math-verify: the comparison took longer than {timeout} s"}
    except Exception as exc:  # noqa: BLE001 - could not compare: not equivalent as far as known
        return {"status": "wrong", "pred_text": pred_text, "value": shown(pred[0]),
                "message": f"comparison failed: {type(exc).__name__}"}
    return {"status": "correct" if ok else "wrong", "pred_text": pred_text,
            "value": shown(pred[0])}
