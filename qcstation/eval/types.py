"""The interface between the runner and every backend, and the evaluation vocabulary."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

from qcstation.common.vocab import DIMENSIONS

#: one task per SMART dimension, plus the seed question itself
TASKS: tuple[str, ...] = (*DIMENSIONS, "final")
METRICS: tuple[str, ...] = ("un", "re", "ar", "rt", "rm", "fi")
TASK_METRICS: dict[str, tuple[str, ...]] = {
    "understanding": ("un",),
    "reasoning": ("re",),
    "arithmetic": ("ar",),
    "refinement": ("rt", "rm"),
    "final": ("fi",),
}
METRIC_LABELS: dict[str, str] = {
    "un": "LLM@Un", "re": "ACC@Re", "ar": "ACC@Ar", "rt": "ACC@R-t", "rm": "ACC@R-m",
    "fi": "ACC@Fi", "all": "ACC@All",
}
#: the strict reading of each answer metric (the answer on the asked line 'The answer is N.')
STRICT: dict[str, str] = {"ar": "ar_s", "rm": "rm_s", "fi": "fi_s"}
#: every score row a task's output gets: its metrics and their strict readings
TASK_SCORES: dict[str, tuple[str, ...]] = {
    t: ms + tuple(STRICT[m] for m in ms if m in STRICT) for t, ms in TASK_METRICS.items()}
#: every metric code stored in eval_scores
STORED_METRICS: tuple[str, ...] = (*METRICS, *STRICT.values())
# Codes reported for a run, in display order. ``rm`` is the paper's (gated) ACC@R-m:
# refinement counts only where the reflection named every error.
CODES: tuple[str, ...] = ("un", "re", "ar", "ar_s", "rt", "rm", "rm_s", "rm_ungated", "rm_keep",
                          "rm_change", "fi", "fi_s", "all", "all_no_un")
LABELS: dict[str, str] = {
    **METRIC_LABELS,
    "ar_s": "ACC@Ar strict", "rm_s": "ACC@R-m strict", "fi_s": "ACC@Fi strict",
    "rm_ungated": "ACC@R-m ungated",
    "rm_keep": "ACC@R-m answer-keeping", "rm_change": "ACC@R-m answer-changing",
    "all_no_un": "ACC@All w/o Un",
}
DESCRIPTIONS: dict[str, str] = {
    "un": "Understanding: mean of every configured judge's similarity to the reference (1..100)",
    "re": "Reasoning: the model's SMT-LIB verifies to the gold answer and its answer depends "
          "on the givens",
    "ar": "Arithmetic: the notation question answered correctly (flexible: final number anywhere)",
    "ar_s": "Arithmetic, strict: the answer on the asked line 'The answer is N.'",
    "rt": "Reflection: the set of error types named exactly",
    "rm": "Refinement (as in SMART): the corrected chain's final answer is correct, over the "
          "items whose reflection named every error",
    "rm_s": "Refinement, strict answer line, over the items whose reflection is correct",
    "rm_ungated": "Refinement over every item, whatever the reflection (not the paper's)",
    "rm_keep": "Refinement (gated) on items whose injected errors keep the gold answer",
    "rm_change": "Refinement (gated) on items whose injected errors change the answer",
    "fi": "Final answer of the seed question (flexible: final number anywhere)",
    "fi_s": "Final answer, strict: the answer on the asked line 'The answer is N.'",
    "all": "All-Pass: Un >= 90 and Re, Ar, R-t, R-m correct",
    "all_no_un": "All-Pass without Understanding (Re, Ar, R-t, R-m correct)",
}
# Metrics that compare() accepts (binary per item-sample; un counts as a pass at >= 90).
COMPARABLE: tuple[str, ...] = ("re", "ar", "ar_s", "rt", "rm", "rm_s", "rm_ungated", "fi", "fi_s",
                               "all", "all_no_un", "un")
VERDICTS: tuple[str, ...] = ("correct", "wrong", "unparseable", "error", "not_scored",
                             "judge_error", "invalid_item", "checker_error", "trivial")
#: failures that are not the model's: left out of every denominator, counted apart, retryable
NOT_MODEL_VERDICTS: tuple[str, ...] = ("judge_error", "invalid_item", "checker_error")
ALL_PASS_UNDERSTANDING = 90.0


@dataclass(frozen=True)
class EvalRequest:
    """One chat request of a run: (seed, task, sample) with the messages as sent."""

    run_id: int
    seed_id: int
    task: str
    sample_idx: int
    messages: tuple[dict[str, str], ...]
    temperature: float
    max_tokens: int
    prompt_hash: str
    # The benchmark's own answer for this request (used only by the reference backend).
    reference: str | None = None
    # ``messages`` as compact JSON with sorted keys (what ``prompt_hash`` hashes), when the
    # run built it: the HTTP body reuses it instead of serialising the prompt again.
    messages_json: str | None = field(default=None, compare=False, repr=False)

    @property
    def custom_id(self) -> str:
        """Stable id of the request across export and import (OpenAI Batch ``custom_id``)."""
        return f"run{self.run_id}-seed{self.seed_id}-{self.task}-s{self.sample_idx}"

    @property
    def key(self) -> tuple[int, str, int]:
        return (self.seed_id, self.task, self.sample_idx)


@dataclass
class EvalReply:
    """What a backend returns for one request. A failed request is a reply with
    ``status='error'`` and ``error`` set; backends never raise for one bad request."""

    custom_id: str
    status: str                      # ok | error
    text: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    latency_ms: float | None = None
    cached: bool = False
    endpoint: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Backend(abc.ABC):
    """Answers :class:`EvalRequest` s. Async backends implement :meth:`complete`; batched
    ones (vLLM in-process) set ``batched = True`` and implement :meth:`complete_batch`."""

    kind: str = "abstract"
    batched: bool = False
    concurrency: int = 1

    @abc.abstractmethod
    def describe(self) -> dict[str, Any]:
        """Everything about this backend that decides a result, without secrets."""

    async def complete(self, request: EvalRequest) -> EvalReply:
        """One request (async backends override this)."""
        raise TypeError(f"{type(self).__name__} answers in batches: call complete_batch()")

    def complete_batch(self, requests: list[EvalRequest]) -> list[EvalReply]:
        """Many requests at once (backends with ``batched = True`` override this)."""
        raise TypeError(f"{type(self).__name__} answers one request at a time: await complete()")

    async def aclose(self) -> None:
        return None
