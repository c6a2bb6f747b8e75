"""Plain words for dimensions, verdicts and gates, shared by the screens."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from qcstation.common.safe import one_line

if TYPE_CHECKING:
    from qcstation.core.review.gate import GateStatus

#: What a reviewer looks at in each dimension: (singular, plural).
DIMENSION_NOUNS: dict[str, tuple[str, str]] = {
    "arithmetic": ("notation question", "notation questions"),
    "understanding": ("key-information extraction", "key-information extractions"),
    "reasoning": ("SMT-LIB formalisation", "SMT-LIB formalisations"),
    "refinement": ("error-injected solution", "error-injected solutions"),
}

def noun_in(dimension: str | None, scope: str = "", count: int | None = None) -> str:
    """:func:`noun`, naming the derived set when ``scope`` is one (``notation questions of
    set dyn``); the working set's are just the noun."""
    words = noun(dimension, count)
    return f"{words} of set {one_line(scope, 40)}" if scope else words


VERDICT_WORDS: dict[str, str] = {
    "accept": "accepted",
    "reject": "rejected",
    "skip": "skipped",
}


def noun(dimension: str | None, count: int | None = None) -> str:
    """``noun("arithmetic", 2) == "notation questions"``; unknown dimensions fall back to items."""
    singular, plural = DIMENSION_NOUNS.get(dimension or "", (f"{dimension or 'review'} item",
                                                             f"{dimension or 'review'} items"))
    return singular if count == 1 else plural


def title(dimension: str | None) -> str:
    words = noun(dimension)
    return words[:1].upper() + words[1:]


def percent(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value * 100:.1f}%".replace(".0%", "%")


def bound_percent(bound: float, threshold: float) -> str:
    """The defect bound as a percentage that compares with the threshold as the number does:
    as many decimals as it takes for a bound below the threshold never to read as the
    threshold (4.95% is "4.95%", not "5%")."""
    from qcstation.core.review.gate import bound_text

    return bound_text(bound, threshold)


def sentence_case(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


_REGENERATE = re.compile(r"regenerate ([\d,]+) rejected (items?)")


def next_step_text(next_step: str, has_model: bool) -> str:
    """A gate's next step as this session can take it: with no model configured,
    regenerating a rule-made item makes the same text again, so "regenerate N rejected
    items" reads as what does help (fix in place or exclude, from the queue), as the
    attention list says."""
    if has_model:
        return next_step

    def instead(m: re.Match[str]) -> str:
        them = "it" if m.group(2) == "item" else "them"
        return (f"fix {m.group(1)} rejected {m.group(2)} in place or exclude {them} (c; no "
                f"model is configured, so regenerating would make the same text)")

    return _REGENERATE.sub(instead, next_step)


_AWAITING = re.compile(r"\(([\d,]+) awaiting regeneration")


def blocker_text(blocker: str, has_model: bool) -> str:
    """A release blocker as this session can act on it: with no model configured, a rejected
    item "awaiting regeneration" waits for nothing that will come (the rules make the same
    text again), so it reads what does help, as :func:`next_step_text` says it."""
    if has_model:
        return blocker
    return _AWAITING.sub(lambda m: (f"({m.group(1)} to fix in place or exclude: c, the queue, "
                                    f"from the dashboard; no model is configured, so "
                                    f"regenerating would make the same text"), blocker)


def gate_line(gate: GateStatus | None, *, has_model: bool = True) -> str:
    """One line for the review screen: whether the gate passes, the next step (as this
    session can take it, :func:`next_step_text`), the bound."""
    if gate is None:
        return "Gate: checking…"
    bound = ""
    if gate.upper_bound is not None:
        bound = (f" · defect bound {bound_percent(gate.upper_bound, gate.threshold)} "
                 f"(needs < {percent(gate.threshold)})")
    head = f"Gate of set {one_line(gate.scope, 30)}" if getattr(gate, "scope", "") else "Gate"
    if gate.passed:
        return f"{head}: passed{bound}"
    steps = [s.strip().rstrip(".") for s in next_step_text(gate.next_step, has_model).split("; then ")
             if s.strip()]
    words = f"{head}: not passed"
    if steps:
        words += f" — {steps[0]}"
        if len(steps) > 1:
            words += f", then {len(steps) - 1} more step{'s' if len(steps) > 2 else ''}"
    return words + bound
