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
# Codes reported for a run, in display order.
CODES: tuple[str, ...] = ("un", "re", "ar", "rt", "rm", "rm_given_rt", "fi", "all", "all_no_un")
LABELS: dict[str, str] = {
    **METRIC_LABELS,
    "rm_given_rt": "ACC@R-m given R-t",
    "all_no_un": "ACC@All w/o Un",
}
DESCRIPTIONS: dict[str, str] = {
    "un": "Understanding: judges' similarity to the reference key information (1..100)",
    "re": "Reasoning: the model's SMT-LIB verifies to the gold answer",
    "ar": "Arithmetic: the notation question answered correctly",
    "rt": "Reflection: the set of error types named exactly",
    "rm": "Refinement: the corrected chain's final answer is correct",
    "rm_given_rt": "Refinement over the items whose reflection is correct",
    "fi": "Final answer of the seed question",
    "all": "All-Pass: Un >= 90 and Re, Ar, R-t, R-m correct",
    "all_no_un": "All-Pass without Understanding (Re, Ar, R-t, R-m correct)",
}
# Metrics that compare() accepts (binary per item-sample; un counts as a pass at >= 90).
COMPARABLE: tuple[str, ...] = ("re", "ar", "rt", "rm", "fi", "all", "all_no_un", "un")
VERDICTS: tuple[str, ...] = ("correct", "wrong", "unparseable", "error", "not_scored")
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
