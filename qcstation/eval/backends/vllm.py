"""In-process vLLM on a GPU: batched ``LLM.chat`` with one ``SamplingParams`` per request.

Selected by a ``[models.NAME]`` table with ``backend = "vllm"``; ``vllm_args`` are passed
to ``vllm.LLM(model=..., **vllm_args)``, built once per backend. vLLM is imported only
when the backend is built (never when this module is imported), so the rest of qcstation
works without it; without it the backend says how to install it.

``complete_batch`` sends the requests to ``LLM.chat`` in chunks of ``batch_size``
conversations and maps each ``RequestOutput`` back to its request by position. A request
vLLM refuses (a prompt longer than the model's context, say) fails alone: when a whole
call raises, the chunk is split in halves until the failing request is found, and only
that one becomes an error reply. Nothing here raises for one bad request.
"""

from __future__ import annotations

import difflib
import importlib
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from qcstation.common.errors import ModelAccessError
from qcstation.common.safe import message_text
from qcstation.eval.backends.batch import sample_seed
from qcstation.eval.types import Backend, EvalReply, EvalRequest

INSTALL_HINT = ("the vllm backend runs the model in this process and needs vLLM and a CUDA "
                "GPU: pip install '.[gpu]'")
ENDPOINT = "vllm (in-process)"


def require_vllm() -> Any:
    """The ``vllm`` module, or :class:`ModelAccessError` saying how to install it."""
    return _import_vllm()


def _import_vllm() -> Any:
    try:
        return importlib.import_module("vllm")
    except ImportError as exc:
        raise ModelAccessError(f"vLLM is not installed ({message_text(exc, 120)}); {INSTALL_HINT}",
                               title="vLLM not available") from None


def _check_engine_args(vllm: Any, engine_args: Mapping[str, Any], model: str) -> None:
    """Unknown engine-argument names are refused with a suggestion, when this vLLM says
    which names it knows (``EngineArgs`` is a dataclass)."""
    import dataclasses

    engine_cls = getattr(vllm, "EngineArgs", None)
    if engine_cls is None or not dataclasses.is_dataclass(engine_cls):
        return
    known = {f.name for f in dataclasses.fields(engine_cls)}
    for name in engine_args:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ModelAccessError(
                f"model {model}: vllm_args.{name} is not an engine argument of vLLM "
                f"{getattr(vllm, '__version__', '?')}{hint}", title="Bad vLLM arguments")


class VLLMBackend(Backend):
    """Runs one model with vLLM in this process. ``llm`` may be passed in (tests, or a
    caller that already loaded the model); otherwise it is built from ``model`` and
    ``engine_args``."""

    kind = "vllm"
    batched = True

    def __init__(self, model: str, *, engine_args: Mapping[str, Any] | None = None,
                 batch_size: int = 256, name: str = "", llm: Any = None) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.model = model
        self.name = name or model
        self.engine_args = dict(engine_args or {})
        self.batch_size = batch_size
        vllm = _import_vllm()
        self._sampling_params = vllm.SamplingParams
        self.vllm_version = str(getattr(vllm, "__version__", "unknown"))
        if llm is None:
            _check_engine_args(vllm, self.engine_args, model)
            try:
                llm = vllm.LLM(model=model, **self.engine_args)
            except Exception as exc:  # noqa: BLE001 - vLLM raises many kinds; all mean "cannot start"
                raise ModelAccessError(
                    f"vLLM could not load {model}: {type(exc).__name__}: {message_text(exc)} "
                    f"(a CUDA GPU is needed; check vllm_args such as max_model_len and "
                    f"gpu_memory_utilization)", title="vLLM failed to start") from None
        self.llm = llm

    @classmethod
    def from_config(cls, cfg: Any) -> VLLMBackend:
        """Build from a ``[models.NAME]`` :class:`~qcstation.common.config.ModelConfig`."""
        return cls(cfg.model, engine_args=cfg.vllm_args, batch_size=cfg.batch_size,
                   name=cfg.name)

    def describe(self) -> dict[str, Any]:
        """Model and engine arguments (``endpoints`` names this engine, so the response
        cache keeps apart runs of one model with other engine arguments, e.g. quantized)."""
        args = json.dumps(self.engine_args, sort_keys=True, default=str)
        return {"backend": self.kind, "model": self.model, "name": self.name,
                "engine_args": dict(self.engine_args), "vllm_version": self.vllm_version,
                "endpoints": [f"{ENDPOINT} {args}"]}

    # -- requests -> vLLM inputs ------------------------------------------------------------

    def conversation(self, request: EvalRequest) -> list[dict[str, str]]:
        return [{"role": str(m["role"]), "content": str(m["content"])} for m in request.messages]

    def sampling_params(self, request: EvalRequest) -> Any:
        """``SamplingParams`` of one request: its temperature and token budget, one
        completion, and the sample's seed when sampling (see ``batch.sample_seed``)."""
        return self._sampling_params(n=1, temperature=request.temperature,
                                     max_tokens=request.max_tokens, seed=sample_seed(request))

    # -- running ------------------------------------------------------------------------------

    def complete_batch(self, requests: list[EvalRequest]) -> list[EvalReply]:
        replies: list[EvalReply] = []
        for start in range(0, len(requests), self.batch_size):
            replies.extend(self._run(requests[start:start + self.batch_size]))
        return replies

    def _run(self, chunk: Sequence[EvalRequest]) -> list[EvalReply]:
        try:
            conversations = [self.conversation(r) for r in chunk]
            params = [self.sampling_params(r) for r in chunk]
            t0 = time.perf_counter()
            outputs = self.llm.chat(conversations, sampling_params=params, use_tqdm=False)
            elapsed_ms = (time.perf_counter() - t0) * 1000.0
            outputs = list(outputs) if outputs is not None else []
        except Exception as exc:  # noqa: BLE001 - one bad request must not sink the others
            if len(chunk) > 1:
                half = len(chunk) // 2
                return self._run(chunk[:half]) + self._run(chunk[half:])
            return [self._error(chunk[0], f"vLLM refused the request: {type(exc).__name__}: "
                                          f"{message_text(exc)}")]
        replies = []
        for i, request in enumerate(chunk):
            output = outputs[i] if i < len(outputs) else None
            replies.append(self._reply(request, output, elapsed_ms, len(chunk)))
        return replies

    def _error(self, request: EvalRequest, message: str) -> EvalReply:
        return EvalReply(custom_id=request.custom_id, status="error", error=message,
                         endpoint=ENDPOINT)

    def _reply(self, request: EvalRequest, output: Any, elapsed_ms: float,
               batch: int) -> EvalReply:
        if output is None:
            return self._error(request, "vLLM returned no output for this request")
        completions = getattr(output, "outputs", None) or []
        first = completions[0] if completions else None
        text = getattr(first, "text", None)
        if first is None or not isinstance(text, str):
            return self._error(request, "vLLM returned an output without text")
        finish = getattr(first, "finish_reason", None)
        finish_reason = str(finish) if finish is not None else None
        prompt_ids = getattr(output, "prompt_token_ids", None)
        token_ids = getattr(first, "token_ids", None)
        if finish_reason == "abort":
            return self._error(request, "vLLM aborted the request")
        return EvalReply(
            custom_id=request.custom_id, status="ok", text=text, finish_reason=finish_reason,
            prompt_tokens=len(prompt_ids) if prompt_ids is not None else None,
            completion_tokens=len(token_ids) if token_ids is not None else None,
            cost=None, latency_ms=round(elapsed_ms, 3), endpoint=ENDPOINT,
            extra={"batch_size": batch})
