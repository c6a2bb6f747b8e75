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
