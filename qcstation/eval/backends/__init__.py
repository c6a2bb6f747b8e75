"""Backends answer :class:`~qcstation.eval.types.EvalRequest` s; :func:`make_backend` picks one.

* ``openai``    any OpenAI-compatible server (OpenAI, ``vllm serve``, llama.cpp, Ollama), one
                or several base URLs for one model (``base_urls``), requests shared out to the
                least busy server.
* ``reference`` answers every task with the benchmark's own reference (self-test, offline).
* ``vllm``      vLLM in-process on a GPU (optional extra ``.[gpu]``; imported lazily).

``batch`` is not a backend but its files: OpenAI Batch JSONL out (``write_batch``) and the
results back in (``read_batch_output``), for the OpenAI Batch API, ``vllm run-batch`` or Ray.
"""

from __future__ import annotations

from typing import Any

from qcstation.common.errors import ConfigError
from qcstation.eval.types import Backend

REFERENCE = "reference"


def backend_kind(model_cfg: Any) -> str:
    return str(getattr(model_cfg, "backend", None) or "openai")


def make_backend(kind: str, model_cfg: Any = None) -> Backend:
    """A backend of ``kind`` for ``model_cfg`` (a :class:`~qcstation.common.config.ModelConfig`)."""
    if kind == REFERENCE:
        from qcstation.eval.backends.reference import ReferenceBackend

        return ReferenceBackend()
    if model_cfg is None:
        raise ConfigError(f"backend {kind!r} needs a [models.NAME] configuration")
    if kind == "openai":
        from qcstation.eval.backends.openai_compat import OpenAIBackend

        return OpenAIBackend(model_cfg)
    if kind == "vllm":
        from qcstation.eval.backends.vllm import VLLMBackend

        return VLLMBackend.from_config(model_cfg)
    raise ConfigError(f"unknown backend {kind!r}; known: openai, vllm, reference")
