"""The in-process vLLM backend, against the fake ``vllm`` package (tests/fake_vllm) and,
where a GPU and vLLM are present, against the real thing."""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

import pytest

from qcstation.common.config import ModelConfig
from qcstation.common.errors import ModelAccessError, QCStationError
from qcstation.eval.types import EvalRequest
from tests.fake_vllm_fixture import fake_vllm  # noqa: F401 - fixture


def req(seed_id: int = 1, *, task: str = "final", sample: int = 0, temperature: float = 0.0,
        max_tokens: int = 64, user: str = "What is 6 times 7?", run_id: int = 1) -> EvalRequest:
    messages = ({"role": "system", "content": "You are a careful mathematician."},
                {"role": "user", "content": user})
    return EvalRequest(run_id=run_id, seed_id=seed_id, task=task, sample_idx=sample,
                       messages=messages, temperature=temperature, max_tokens=max_tokens,
                       prompt_hash=f"h{seed_id}")


def backend(**kwargs: object):
    from qcstation.eval.backends.vllm import VLLMBackend

    return VLLMBackend("tiny/model", **kwargs)  # type: ignore[arg-type]


# -- without vLLM ------------------------------------------------------------------------------

def test_module_imports_without_vllm_and_building_says_how_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)        # `import vllm` raises ImportError
    import qcstation.eval.backends.vllm as mod

    importlib.reload(mod)                                 # the module itself never imports vllm
    with pytest.raises(ModelAccessError) as ei:
        mod.VLLMBackend.from_config(ModelConfig(model="Qwen/Qwen2.5-0.5B-Instruct", backend="vllm"))
    msg = str(ei.value)
    assert isinstance(ei.value, QCStationError)
    assert "pip install '.[gpu]'" in msg and "GPU" in msg and "vLLM is not installed" in msg
    assert "\n" not in msg


def test_domain_import_does_not_load_vllm(fake_vllm: ModuleType) -> None:
    import subprocess

    from tests.fake_vllm_fixture import FAKE_VLLM_PATH

    code = ("import sys, qcstation.eval.backends.vllm, qcstation.eval.backends.batch\n"
            "print('vllm' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(FAKE_VLLM_PATH), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# -- building the engine ---------------------------------------------------------------------

def test_llm_is_built_once_with_the_engine_args(fake_vllm: ModuleType) -> None:
    from qcstation.eval.backends.vllm import VLLMBackend

    cfg = ModelConfig(model="tiny/model", backend="vllm", batch_size=4, name="tiny",
                      vllm_args={"tensor_parallel_size": 2, "max_model_len": 512, "seed": 3})
    b = VLLMBackend.from_config(cfg)
    b.complete_batch([req(1), req(2)])
    b.complete_batch([req(3)])
    assert len(fake_vllm.LLM.instances) == 1
    llm = fake_vllm.LLM.instances[0]
    assert llm.model == "tiny/model"
    assert (llm.engine_args.tensor_parallel_size, llm.engine_args.max_model_len,
            llm.engine_args.seed) == (2, 512, 3)
    assert b.batched is True and b.kind == "vllm" and b.batch_size == 4
    d = b.describe()
    assert d == {"backend": "vllm", "model": "tiny/model", "name": "tiny",
                 "engine_args": {"tensor_parallel_size": 2, "max_model_len": 512, "seed": 3},
                 "vllm_version": "0.0.0+fake",
                 "endpoints": ['vllm (in-process) {"max_model_len": 512, "seed": 3, '
                               '"tensor_parallel_size": 2}']}


def test_unknown_engine_argument_is_refused_with_a_suggestion(fake_vllm: ModuleType) -> None:
    with pytest.raises(ModelAccessError, match=r"vllm_args.max_model_length .*did you mean 'max_model_len'"):
        backend(engine_args={"max_model_length": 512})
    assert fake_vllm.LLM.instances == []


def test_engine_that_cannot_start_is_one_clear_error(fake_vllm: ModuleType) -> None:
    fake_vllm.LLM.load_error = RuntimeError("CUDA error: no CUDA-capable device\nis detected")
    with pytest.raises(ModelAccessError) as ei:
        backend()
    msg = str(ei.value)
    assert "vLLM could not load tiny/model" in msg and "no CUDA-capable device" in msg
    assert "\n" not in msg                              # control characters shown escaped


# -- requests -> LLM.chat --------------------------------------------------------------------

def test_requests_become_conversations_and_sampling_params(fake_vllm: ModuleType) -> None:
    b = backend()
    requests = [req(1, max_tokens=100), req(2, temperature=0.8, sample=1, max_tokens=50)]
    b.complete_batch(requests)
    (call,) = fake_vllm.LLM.instances[0].calls
    assert call.use_tqdm is False
    assert call.messages == [[dict(m) for m in r.messages] for r in requests]
    greedy, sampled = call.sampling_params
    assert (greedy.n, greedy.temperature, greedy.max_tokens, greedy.seed) == (1, 0.0, 100, None)
    assert (sampled.n, sampled.temperature, sampled.max_tokens) == (1, 0.8, 50)
    assert isinstance(sampled.seed, int)


def test_requests_are_sent_in_batches_and_replies_keep_their_order(fake_vllm: ModuleType) -> None:
    b = backend(batch_size=3)
    requests = [req(i, user=f"question number {i}") for i in range(1, 8)]
    replies = b.complete_batch(requests)
    calls = fake_vllm.LLM.instances[0].calls
    assert [len(c.messages) for c in calls] == [3, 3, 1]
    assert [r.custom_id for r in replies] == [r.custom_id for r in requests]
    assert [r.text for r in replies] == [f"answer: question number {i}" for i in range(1, 8)]
    assert b.complete_batch([]) == []


def test_samples_differ_per_sample_index_and_are_reproducible(fake_vllm: ModuleType) -> None:
    requests = [req(5, sample=s, temperature=1.0) for s in range(4)]
    first = backend().complete_batch(requests)
    seeds = [sp.seed for sp in fake_vllm.LLM.instances[0].calls[0].sampling_params]
    assert len(set(seeds)) == 4 and all(isinstance(s, int) and 0 <= s < 2**31 for s in seeds)
    assert len({r.text for r in first}) == 4              # every sample its own draw
    again = backend().complete_batch(list(reversed(requests)))
    assert [r.text for r in reversed(again)] == [r.text for r in first]
    seeds_again = [sp.seed for sp in fake_vllm.LLM.instances[1].calls[0].sampling_params]
    assert list(reversed(seeds_again)) == seeds
    # the seed belongs to the sample index, not to the item: another item's sample 2 shares it
    other = backend().complete_batch([req(9, sample=2, temperature=1.0, user="another one")])
    assert fake_vllm.LLM.instances[2].calls[0].sampling_params[0].seed == seeds[2]
    assert other[0].text != first[2].text


# -- RequestOutput -> EvalReply --------------------------------------------------------------

def test_outputs_map_to_replies(fake_vllm: ModuleType) -> None:
    long_q = "one two three four five six seven eight nine ten"
    replies = backend().complete_batch([req(1, user="six times seven", max_tokens=64),
                                        req(2, user=long_q, max_tokens=4)])
    ok, cut = replies
    assert (ok.status, ok.text, ok.finish_reason, ok.error) == ("ok", "answer: six times seven", "stop", None)
    # prompt: 5 system words + 3 user words + 3 per message; completion: 4 words
    assert (ok.prompt_tokens, ok.completion_tokens) == (5 + 3 + 6, 4)
    assert ok.latency_ms is not None and ok.latency_ms >= 0
    assert ok.endpoint == "vllm (in-process)" and ok.cost is None and ok.cached is False
    assert ok.extra == {"batch_size": 2}
    assert (cut.status, cut.text, cut.finish_reason, cut.completion_tokens) == (
        "ok", "answer: one two three", "length", 4)


def test_missing_outputs_become_error_replies(fake_vllm: ModuleType) -> None:
    fake_vllm.LLM.drop_outputs = 1
    replies = backend(batch_size=3).complete_batch([req(i) for i in range(1, 6)])
    assert [r.status for r in replies] == ["ok", "ok", "error", "ok", "error"]
    assert replies[2].error == "vLLM returned no output for this request"
    assert replies[2].text is None and replies[2].custom_id == req(3).custom_id


def test_aborted_and_empty_outputs_become_error_replies(fake_vllm: ModuleType) -> None:
    fake_vllm.LLM.abort_marker = "ABORT"
    fake_vllm.LLM.empty_marker = "EMPTY"
    replies = backend().complete_batch([req(1, user="ABORT me"), req(2, user="EMPTY"), req(3)])
    assert [(r.status, r.error) for r in replies] == [
        ("error", "vLLM aborted the request"), ("error", "vLLM returned an output without text"),
        ("ok", None)]


def test_a_request_vllm_refuses_fails_alone(fake_vllm: ModuleType) -> None:
    b = backend(engine_args={"max_model_len": 40}, batch_size=8)
    requests = [req(i, user=f"short question {i}") for i in range(1, 9)]
    requests[5] = req(6, user="word " * 60)               # longer than the model's context
    replies = b.complete_batch(requests)
    assert [r.status for r in replies] == ["ok"] * 5 + ["error"] + ["ok"] * 2
    assert "longer than the maximum model length of 40" in (replies[5].error or "")
    assert replies[5].error.startswith("vLLM refused the request: ValueError: ")
    assert [r.custom_id for r in replies] == [r.custom_id for r in requests]
    calls = fake_vllm.LLM.instances[0].calls
    assert len(calls) <= 1 + 2 * 3                        # halving, not one call per request
    assert sum(len(c.messages) for c in calls if len(c.messages) == 1) <= 3


def test_bad_sampling_values_fail_their_own_request(fake_vllm: ModuleType) -> None:
    replies = backend().complete_batch([req(1), req(2, max_tokens=0), req(3)])
    assert [r.status for r in replies] == ["ok", "error", "ok"]
    assert "max_tokens must be at least 1" in (replies[1].error or "")


# -- the real thing -----------------------------------------------------------------------

def _real_vllm_and_gpu() -> str | None:
    try:
        import torch
        import vllm
    except Exception:  # noqa: BLE001 - any import failure means "not here"
        return "vLLM is not installed"
    if getattr(vllm, "__version__", "").endswith("+fake"):
        return "only the fake vLLM is importable"
    if not torch.cuda.is_available():
        return "no CUDA GPU"
    return None


@pytest.mark.gpu
def test_real_vllm_on_a_gpu() -> None:
    reason = _real_vllm_and_gpu()
    if reason:
        pytest.skip(reason)
    from qcstation.eval.backends.vllm import VLLMBackend

    model = os.environ.get("QCSTATION_GPU_TEST_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
    b = VLLMBackend(model, engine_args={"max_model_len": 1024, "gpu_memory_utilization": 0.5,
                                        "enforce_eager": True}, batch_size=4)
    requests = [req(i, user=f"What is {i} + {i}? Answer with a number.", max_tokens=16)
                for i in range(1, 6)]
    requests += [req(9, sample=s, temperature=1.0, max_tokens=24,
                     user="Write a random sentence about numbers.") for s in range(3)]
    replies = b.complete_batch(requests)
    assert [r.custom_id for r in replies] == [r.custom_id for r in requests]
    assert all(r.status == "ok" and r.text for r in replies), replies
    assert all((r.prompt_tokens or 0) > 0 and (r.completion_tokens or 0) > 0 for r in replies)
    assert all(r.finish_reason in ("stop", "length") for r in replies)
    again = b.complete_batch(requests[5:])
    assert [r.text for r in again] == [r.text for r in replies[5:]]   # seeded: reproducible
