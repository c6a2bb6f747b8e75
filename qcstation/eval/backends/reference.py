"""The ``reference`` backend: answers every request with the benchmark's own reference.

The runner puts the item's expected answer (the task template's assistant section filled
from the frozen record) into :attr:`EvalRequest.reference`. Scoring these replies must
give 100% on every scored metric: it is the end-to-end self-test of the scoring chain
(templates, extraction, the answer checker, Z3, error-type parsing, aggregation), and it
needs no network.
"""

from __future__ import annotations

import time
from typing import Any

from qcstation.eval.types import Backend, EvalReply, EvalRequest


class ReferenceBackend(Backend):
    kind = "reference"
    concurrency = 64

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": "reference"}

    async def complete(self, request: EvalRequest) -> EvalReply:
        t0 = time.perf_counter()
        if request.reference is None:
            return EvalReply(request.custom_id, "error",
                             error="no reference answer was built for this request")
        return EvalReply(request.custom_id, "ok", text=request.reference, finish_reason="stop",
                         latency_ms=(time.perf_counter() - t0) * 1000, endpoint="reference")
