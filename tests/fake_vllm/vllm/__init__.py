"""A fake ``vllm`` package for tests without a GPU: the few classes qcstation uses, shaped
like the real ones (``LLM.chat``, ``SamplingParams``, ``RequestOutput``,
``CompletionOutput``, ``EngineArgs``), with deterministic generation.

It is put on ``sys.path`` by the ``fake_vllm`` fixture (``tests/fake_vllm_fixture.py``)
or by ``PYTHONPATH=tests/fake_vllm`` for a subprocess.

Generation: the "tokens" of a text are its whitespace-separated words; a conversation's
prompt is every message's words plus 3 per message (the chat template). At temperature 0
the reply is ``answer: <last user message>``; above 0 it is words drawn from a
``random.Random`` seeded by (SamplingParams.seed, prompt), so a seed gives the same reply
again and different seeds give different replies. ``max_tokens`` cuts the reply
(``finish_reason = "length"``).

Like the real engine, a prompt longer than ``max_model_len`` (engine argument, default
10_000 here) makes the whole ``chat`` call raise ``ValueError``. Test hooks (class
attributes of :class:`LLM`, reset by :func:`reset`): ``drop_outputs`` (return that many
fewer outputs), ``abort_marker`` / ``empty_marker`` (a conversation containing the text
gets ``finish_reason="abort"`` / no completion), ``load_error`` (raised by ``LLM()``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

__version__ = "0.0.0+fake"

_WORDS = ("seven", "apples", "cost", "three", "dollars", "so", "the", "answer", "is", "42",
          "x", "plus", "y", "equals", "twelve", "hence", "boxed")


@dataclass
class EngineArgs:
    model: str = ""
    tokenizer: str | None = None
    trust_remote_code: bool = False
    dtype: str = "auto"
    seed: int | None = None
    max_model_len: int | None = None
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    gpu_memory_utilization: float = 0.9
    max_num_seqs: int | None = None
    enforce_eager: bool = False
    enable_prefix_caching: bool | None = None
    hf_overrides: dict[str, Any] | None = None


class SamplingParams:
    def __init__(self, n: int = 1, temperature: float = 1.0, top_p: float = 1.0,
                 seed: int | None = None, max_tokens: int | None = 16, **kwargs: Any) -> None:
        if temperature < 0:
            raise ValueError(f"temperature must be non-negative, got {temperature}.")
        if max_tokens is not None and max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {max_tokens}.")
        self.n, self.temperature, self.top_p = n, temperature, top_p
        self.seed, self.max_tokens = seed, max_tokens
        self.extra = kwargs

    def __repr__(self) -> str:
        return (f"SamplingParams(n={self.n}, temperature={self.temperature}, "
                f"seed={self.seed}, max_tokens={self.max_tokens})")


@dataclass
class CompletionOutput:
    index: int
    text: str
    token_ids: list[int]
    cumulative_logprob: float | None
    logprobs: Any
    finish_reason: str | None = None
    stop_reason: int | str | None = None


@dataclass
class RequestOutput:
    request_id: str
    prompt: str | None
    prompt_token_ids: list[int] | None
    prompt_logprobs: Any
    outputs: list[CompletionOutput]
    finished: bool
    metrics: Any = None


@dataclass
class ChatCall:
    """What one ``LLM.chat`` call received (for tests)."""

    messages: list[list[dict[str, Any]]]
    sampling_params: list[SamplingParams]
    use_tqdm: bool


class LLM:
    instances: list[LLM] = []
    drop_outputs = 0
    abort_marker: str | None = None
    empty_marker: str | None = None
    load_error: BaseException | None = None

    def __init__(self, model: str, **kwargs: Any) -> None:
        if LLM.load_error is not None:
            raise LLM.load_error
        self.engine_args = EngineArgs(model=model, **kwargs)   # TypeError on unknown names
        self.model = model
        self.calls: list[ChatCall] = []
        self._counter = 0
        LLM.instances.append(self)

    def chat(self, messages: Any, sampling_params: Any = None, use_tqdm: bool = True,
             lora_request: Any = None, chat_template: str | None = None,
             add_generation_prompt: bool = True, **kwargs: Any) -> list[RequestOutput]:
        conversations = messages if messages and isinstance(messages[0], list) else [messages]
        if sampling_params is None:
            params = [SamplingParams()] * len(conversations)
        elif isinstance(sampling_params, SamplingParams):
            params = [sampling_params] * len(conversations)
        else:
            params = list(sampling_params)
            if len(params) != len(conversations):
                raise ValueError("The lengths of prompts and sampling_params must be the same.")
        self.calls.append(ChatCall([list(c) for c in conversations], params, use_tqdm))
        limit = self.engine_args.max_model_len or 10_000
        prompts = []
        for conv in conversations:
            words = sum((str(m["content"]).split() for m in conv), [])
            n = len(words) + 3 * len(conv)
            if n > limit:
                raise ValueError(f"The decoder prompt (length {n}) is longer than the maximum "
                                 f"model length of {limit}.")
            prompts.append((conv, n))
        outputs = []
        for (conv, n), sp in zip(prompts, params):
            self._counter += 1
            text = " ".join(str(m["content"]) for m in conv)
            last_user = next((str(m["content"]) for m in reversed(conv) if m["role"] == "user"), "")
            if sp.temperature == 0:
                words = ["answer:", *last_user.split()]
            else:
                rng = random.Random(f"{sp.seed}|{text}") if sp.seed is not None else random.Random()
                words = [rng.choice(_WORDS) for _ in range(8)]
            finish = "stop"
            if sp.max_tokens is not None and len(words) > sp.max_tokens:
                words, finish = words[:sp.max_tokens], "length"
            completions = [CompletionOutput(0, " ".join(words), list(range(len(words))), None,
                                            None, finish)]
            if LLM.abort_marker and LLM.abort_marker in text:
                completions[0].finish_reason = "abort"
            if LLM.empty_marker and LLM.empty_marker in text:
                completions = []
            outputs.append(RequestOutput(str(self._counter), None, list(range(n)), None,
                                         completions, True))
        if LLM.drop_outputs:
            outputs = outputs[:max(0, len(outputs) - LLM.drop_outputs)]
        return outputs


def reset() -> None:
    LLM.instances = []
    LLM.drop_outputs = 0
    LLM.abort_marker = LLM.empty_marker = None
    LLM.load_error = None


__all__ = ["LLM", "SamplingParams", "RequestOutput", "CompletionOutput", "EngineArgs", "reset"]
