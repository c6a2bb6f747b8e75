"""The SMART paper's two-step Reflection & Refinement protocol, as a backend wrapper.

Step 1 (*reflection*, the run's ``refinement`` template ``reflection.txt``): the model names
the error types of the wrong chain of thought, and nothing else. Step 2 (*refinement*,
template ``refine.txt``), asked only when step 1 named exactly the injected error types:
the conversation goes on and the model writes the corrected solution. "If the model fails
to detect all errors during the Reflection stage, it is not allowed to proceed to
Refinement" (SMART, sec. 3).

The stored response of a refinement request is one text: the reflection reply, then
``Corrected solution:`` and the corrected solution of step 2, so the scorers read it as
they read a single-prompt reply. When step 2 is not asked, the text ends with
:data:`NOT_ASKED`; the scorers then record R-m as ``not_scored`` (never a failure the
model was not allowed to attempt). When step 2 is asked and its request fails, the output
is an ``error`` (``refinement step: ...``, retried by ``--retry-errors``) that keeps the
reflection and ends with :data:`~qcstation.eval.scorers.CORRECTION_FAILED`: the scorers read
R-t from the reflection and record R-m as ``error`` (the item stays in R-m's denominator).
The gate reads the reflection as ACC@R-t does (flexibly). Tokens and cost are the sum of both
steps.

A run records its protocol in its spec (``protocol.refinement``: ``two-step`` or
``single-prompt``); :func:`wrap` returns the backend unchanged for single-prompt runs and
for runs made before the protocol existed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from qcstation.eval import tasks as T
from qcstation.eval.runs import RunContext
from qcstation.eval.scorers import (
    _CORRECTED_RE,
    CORRECTION_FAILED,
    NOT_ASKED,
    corrected_part,
    flexible_error_types,
)
from qcstation.eval.types import Backend, EvalReply, EvalRequest

REFINE_TEMPLATE = "refine"


def is_two_step(spec: Mapping[str, Any]) -> bool:
    p = spec.get("protocol")
    return isinstance(p, Mapping) and p.get("refinement") == "two-step"


def wrap(backend: Backend, ctx: RunContext) -> Backend:
    """``backend`` as the run's protocol needs it."""
    if not is_two_step(ctx.spec) or "refinement" not in ctx.tasks:
        return backend
    return TwoStep(backend, ctx)


class TwoStep(Backend):
    """Answers refinement requests in two steps through ``inner``; other tasks pass through."""

    def __init__(self, inner: Backend, ctx: RunContext) -> None:
        self.inner = inner
        self.ctx = ctx
        spec = ctx.spec.get("templates", {}).get(REFINE_TEMPLATE)
        self.refine = T.template_from_spec(spec) if isinstance(spec, Mapping) else T.load_template(REFINE_TEMPLATE)
        self.kind = inner.kind
        self.batched = inner.batched
        self.concurrency = inner.concurrency
        self._records: dict[int, dict[str, Any]] = {}

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "protocol": "two-step"}

    def __getattr__(self, name: str) -> Any:          # e.g. a backend's preflight hooks
        return getattr(self.inner, name)

    def _record(self, seed_id: int) -> dict[str, Any] | None:
        if seed_id not in self._records:
            rec = self.ctx.record(seed_id)
            if rec is None:
                return None
            self._records[seed_id] = rec
        return self._records[seed_id]

    def _second(self, req: EvalRequest, first: EvalReply) -> EvalRequest | None:
        """The refinement request after a correct reflection; None when the gate is closed."""
        record = self._record(req.seed_id)
        if record is None or first.status != "ok":
            return None
        # the gate reads the reflection as ACC@R-t does (flexible): R-m counts exactly the
        # items whose reflection R-t counts right
        found = flexible_error_types(first.text)
        if found is None or found != set(T.error_type_ids(record)):
            return None
        vals = T.record_values(record)
        messages = (*req.messages, {"role": "assistant", "content": (first.text or "").strip()},
                    {"role": "user", "content": T.fill(self.refine.user, vals).strip()})
        return dataclasses.replace(
            req, messages=messages, prompt_hash=T.prompt_hash(messages),
            reference=T.reference_answer(self.refine, record) if req.reference is not None else None)

    @staticmethod
    def _combine(req: EvalRequest, first: EvalReply, second: EvalReply | None) -> EvalReply:
        if first.status != "ok":
            return first
        if second is None:
            return dataclasses.replace(first, text=(first.text or "").rstrip() + "\n\n" + NOT_ASKED)
        if second.status != "ok":
            # the reflection stands (R-t reads it); the failed correction is R-m's error only
            return dataclasses.replace(
                second, custom_id=req.custom_id, error=f"refinement step: {second.error}",
                text=(first.text or "").rstrip() + "\n\n" + CORRECTION_FAILED)

        def add(a: Any, b: Any) -> Any:
            return None if a is None and b is None else (a or 0) + (b or 0)

        reflection = first.text or ""
        extra = _CORRECTED_RE.search(reflection)   # a correction written too early is not the answer
        if extra:
            reflection = reflection[:extra.start()]
        text = (reflection.rstrip() + "\n\nCorrected solution:\n"
                + (corrected_part(second.text) or "").strip())
        return dataclasses.replace(
            second, custom_id=req.custom_id, text=text,
            prompt_tokens=add(first.prompt_tokens, second.prompt_tokens),
            completion_tokens=add(first.completion_tokens, second.completion_tokens),
            cost=add(first.cost, second.cost),
            latency_ms=add(first.latency_ms, second.latency_ms))

    async def complete(self, request: EvalRequest) -> EvalReply:
        if request.task != "refinement":
            return await self.inner.complete(request)
        first = await self.inner.complete(request)
        nxt = self._second(request, first)     # the run's store: read on this (the loop's) thread
        second = await self.inner.complete(nxt) if nxt is not None else None
        return self._combine(request, first, second)

    def complete_batch(self, requests: list[EvalRequest]) -> list[EvalReply]:
        firsts = self.inner.complete_batch(requests)
        seconds: dict[int, EvalRequest] = {}
        for i, (req, rep) in enumerate(zip(requests, firsts)):
            if req.task == "refinement":
                nxt = self._second(req, rep)
                if nxt is not None:
                    seconds[i] = nxt
        answers = dict(zip(seconds, self.inner.complete_batch(list(seconds.values())))) if seconds else {}
        return [rep if req.task != "refinement" else self._combine(req, rep, answers.get(i))
                for i, (req, rep) in enumerate(zip(requests, firsts))]

    async def aclose(self) -> None:
        await self.inner.aclose()
