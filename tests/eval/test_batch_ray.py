"""The Ray route for real: Ray Data LLM's HTTP request processor on a local Ray cluster (CPU)
against the loopback OpenAI-protocol server. A whole run of a release goes export-batch ->
ray-batch -> import-batch -> score, and scores exactly as the same run made by the built-in
client; reruns send only what has no result; the key is never written. The vLLM engine
processor: its configuration here, the real thing on a GPU (skipped without one).

One local cluster for the module (2 CPUs, a small object store), shut down at the end."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'qcstation[ray]')")
ray_llm = pytest.importorskip("ray.data.llm", reason="Ray Data LLM is not installed")

from db import Store  # noqa: E402
from qcstation.cli import main  # noqa: E402
from qcstation.eval import metrics as M  # noqa: E402
from qcstation.eval import scorers  # noqa: E402
from qcstation.eval.batch_ray.pipeline import RayBatchOptions, build, http_config, vllm_config  # noqa: E402
from qcstation.eval.runner import execute_run  # noqa: E402
from qcstation.eval.runs import create_run  # noqa: E402
from tests.eval.robustness.helpers import POLICY  # noqa: E402
from tests.eval_helpers import (  # noqa: E402
    config,
    copy_db,
    last_user,
    local_model,
    quickstart_db,
    records_by_question,
    reference_reply,
    scripted,
)
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: E402,F401 - fixture

KEY_ENV = "QCS_RAY_TEST_KEY"
KEY = "sk-ray-route-secret-7f3a9c"


#: Ray's node start waits a fixed 30 s for its raylet to register with the GCS
#: (``raylet_start_wait_time_s`` in ray/_private/node.py, not configurable); under heavy load
#: (29 on 2 cores) that wait passed twice and the module failed at setup. Each attempt starts a
#: fresh node in a fresh temp dir after the last one is shut down; all failing is a failure.
START_ATTEMPTS = 3


def _start_ray() -> Path:
    errors: list[str] = []
    for _attempt in range(START_ATTEMPTS):
        temp = Path(tempfile.mkdtemp(prefix="qcsray-", dir="/tmp"))
        try:
            ray.init(num_cpus=2, object_store_memory=96 * 2**20, include_dashboard=False,
                     log_to_driver=False, logging_level=logging.WARNING, _temp_dir=str(temp))
            return temp
        except Exception as e:      # the node's fixed start wait passed, or a process of it died
            errors.append(f"{type(e).__name__}: {e}")
            ray.shutdown()
            shutil.rmtree(temp, ignore_errors=True)
    pytest.fail(f"Ray's local node did not start in {START_ATTEMPTS} attempts: " + " | ".join(errors))


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Path]:
    """A local Ray cluster on 2 CPUs; its workers inherit ``$QCS_RAY_TEST_KEY`` (set before
    the cluster starts, as on a node whose ``ray start`` had it). Yields Ray's temp dir. The
    start is tried up to START_ATTEMPTS times (see there)."""
    old = os.environ.get(KEY_ENV)
    os.environ[KEY_ENV] = KEY
    try:
        temp = _start_ray()
    except BaseException:
        _restore(old)
        raise
    try:
        yield temp
    finally:
        ray.shutdown()
        _restore(old)
        shutil.rmtree(temp, ignore_errors=True)


def _restore(old: str | None) -> None:
    if old is None:
        os.environ.pop(KEY_ENV, None)
    else:
        os.environ[KEY_ENV] = old


@pytest.fixture(scope="module")
def released_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped sample, generated offline, every sample accepted and released as smart@1."""
    db = copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path_factory.mktemp("ray") / "rel.db")
    from qcstation.core.release.releases import approve_release, release_blockers
    from qcstation.core.review.decisions import decide, next_item

    with Store(db) as s:
        while (item := next_item(s, "tester")) is not None:     # the samples quickstart drew
            decide(s, item.item_id, "tester", "accept")
        assert release_blockers(s, POLICY, actor="tester") == []
        approve_release(s, "smart", "1", actor="tester", cfg=POLICY)
    return db


def _cli(*argv: str) -> int:
    return main(list(argv))


def _scores(db: Path, run_id: int) -> dict[tuple[int, int, str], tuple[str, Any, Any]]:
    with Store(db) as s:
        return {(int(r["seed_id"]), int(r["sample_idx"]), r["metric"]): (r["verdict"], r["score"], r["extracted"])
                for r in s.query("SELECT * FROM eval_scores WHERE run_id = ?", (run_id,))}


def test_a_release_run_through_ray_scores_as_the_built_in_client(
        released_db: Path, tmp_path: Path, fake_openai: FakeOpenAI, ray_cluster: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    db = copy_db(released_db, tmp_path / "eval.db")
    cfg = config(models={"m": local_model(fake_openai.base_url, api_key_env=KEY_ENV)},
                 judges=[{"name": "judge", "model": "fake-judge", "base_url": fake_openai.base_url}])
    with Store(db) as s:
        kw: dict[str, Any] = {"model": "m", "release": ("smart", "1"), "shots": 1, "limit": 8,
                              "protocol": "single-prompt"}
        built_in = create_run(s, cfg, **kw)
        via_ray = create_run(s, cfg, **kw)
    ref = {"records": records_by_question(db, built_in)}
    answer = scripted(ref, lambda t, r: reference_reply(t, r))

    def raw(request: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        if request.get("model") == "fake-judge":
            text = "Score: 93"
        elif sum(map(ord, last_user(request))) % 7 == 0:     # refused (HTTP 400) in both runs
            return 400, {"Content-Type": "application/json"}, b'{"error": {"message": "refused"}}'
        else:       # the reference for even items, a wrong answer for odd ones: a mixed score
            text = answer(request)
            if sum(map(ord, last_user(request))) % 2:
                text = "I think the answer is 7."
        return 200, {"Content-Type": "application/json"}, json.dumps(fake_openai._completion(request, text)).encode()

    fake_openai.raw_responder = raw
    execute_run(db, built_in, cfg)
    scorers.score_run(db, built_in, cfg)
    online = sorted(json.dumps(r.body, sort_keys=True) for r in fake_openai.chat_requests
                    if r.body and r.body.get("model") == "fake-model")
    fake_openai.reset()
    fake_openai.raw_responder = raw

    inp, out = tmp_path / "run.jsonl", tmp_path / "run.out.jsonl"
    assert _cli("--db", str(db), "eval", "export-batch", str(via_ray), "--out", str(inp)) == 0
    assert "eval ray-batch" in capsys.readouterr().out
    assert _cli("eval", "ray-batch", str(inp), "--out", str(out), "--endpoint", fake_openai.base_url,
                "--api-key-env", KEY_ENV, "--retries", "0", "--workers", "2", "--batch-size", "8") == 0
    said = capsys.readouterr().out
    n = len(inp.read_text(encoding="utf-8").splitlines())
    assert n > 20
    assert f"{n} requests read; 0 already had a result" in said
    batch = sorted(json.dumps(r.body, sort_keys=True) for r in fake_openai.chat_requests)
    assert batch == online                                     # the same request bodies
    assert {r.authorization for r in fake_openai.chat_requests} == {f"Bearer {KEY}"}
    assert _cli("--db", str(db), "eval", "import-batch", str(via_ray), str(out)) == 0
    assert f"run {via_ray}: {n}/{n} responses stored" in capsys.readouterr().out
    conf = tmp_path / "qcstation.toml"                          # the judge, as a user configures it
    conf.write_text(f'[[judges]]\nname = "judge"\nmodel = "fake-judge"\nbase_url = "{fake_openai.base_url}"\n',
                    encoding="utf-8")
    assert _cli("--db", str(db), "--config", str(conf), "eval", "score", str(via_ray)) == 0
    capsys.readouterr()

    a, b = _scores(db, built_in), _scores(db, via_ray)
    assert a == b and len(a) > 40
    verdicts = {v for v, _, _ in a.values()}
    assert {"correct", "wrong", "error"} <= verdicts          # a mixed run, a failed request included
    with Store(db) as s:
        la, lb = M.leaderboard(s, [built_in, via_ray], n_boot=50)
    assert {k: (v.value, v.n) for k, v in la.values.items()} == {k: (v.value, v.n) for k, v in lb.values.items()}

    # the key: sent as a header, written nowhere (the output, the database, Ray's own files)
    assert KEY not in out.read_text(encoding="utf-8")
    assert KEY.encode() not in db.read_bytes()
    found = subprocess.run(["grep", "-rlF", KEY, str(ray_cluster)], capture_output=True, text=True)
    assert found.stdout == "", found.stdout


def test_a_rerun_sends_only_what_has_no_result(tmp_path: Path, fake_openai: FakeOpenAI, ray_cluster: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from qcstation.eval.backends.batch import read_batch_output, write_batch
    from tests.eval.test_batch_files import req

    requests = [req(i, user=f"What is {i} + {i}?") for i in range(1, 31)]
    (inp,) = write_batch(requests, tmp_path / "in.jsonl", model="fake-model")
    out = tmp_path / "out.jsonl"
    fake_openai.status(503, message="overloaded")                    # retries 0: an error line
    assert _cli("eval", "ray-batch", str(inp), "--out", str(out), "--endpoint", fake_openai.base_url,
                "--retries", "0", "--json") == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["sent"], first["ok"], first["errors"]) == (30, 29, 1)
    lines = out.read_text(encoding="utf-8").splitlines()
    # a kill: the last 10 results lost, the one before cut in the middle
    out.write_text("\n".join(lines[:19]) + "\n" + lines[19][:40], encoding="utf-8")
    kept = {r.custom_id for r in read_batch_output(tmp_path / "out.jsonl")}
    fake_openai.reset()
    assert _cli("eval", "ray-batch", str(inp), "--out", str(out), "--endpoint", fake_openai.base_url,
                "--json") == 0
    again = json.loads(capsys.readouterr().out)
    assert again["cut_line_dropped"] and (again["already"], again["sent"]) == (19, 11)
    by_question = {r.messages[-1]["content"]: r.custom_id for r in requests}
    resent = {by_question[r.messages[-1]["content"]] for r in fake_openai.chat_requests}
    assert len(fake_openai.chat_requests) == 11 and len(kept) == 19
    assert resent == {r.custom_id for r in requests} - kept         # exactly those without a result
    replies = list(read_batch_output(out))
    assert sorted(r.custom_id for r in replies) == sorted(r.custom_id for r in requests)
    errors = [r for r in replies if r.status == "error"]
    # nothing left to send; --retry-errors sends the failed one again and replaces its line
    fake_openai.reset()
    assert _cli("eval", "ray-batch", str(inp), "--out", str(out), "--endpoint", fake_openai.base_url) == 0
    assert "nothing to send" in capsys.readouterr().out and fake_openai.chat_requests == []
    if errors:
        assert _cli("eval", "ray-batch", str(inp), "--out", str(out), "--endpoint", fake_openai.base_url,
                    "--retry-errors", "--json") == 0
        assert json.loads(capsys.readouterr().out)["retried_errors"] == 1
        assert len(fake_openai.chat_requests) == 1
    final = list(read_batch_output(out))
    assert len(final) == 30 and {r.status for r in final} == {"ok"}


def test_a_dead_endpoint_gives_error_lines_not_a_crashed_job(tmp_path: Path, ray_cluster: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from qcstation.eval.backends.batch import read_batch_output, write_batch
    from tests.eval.test_batch_files import req

    with socket.socket() as sock:          # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    (inp,) = write_batch([req(i) for i in range(1, 5)], tmp_path / "in.jsonl", model="m")
    out = tmp_path / "out.jsonl"
    assert _cli("eval", "ray-batch", str(inp), "--out", str(out), "--endpoint",
                f"http://127.0.0.1:{port}/v1", "--retries", "0") == 0
    assert "sent 4: 0 results, 4 failed requests" in capsys.readouterr().out
    replies = list(read_batch_output(out))
    assert len(replies) == 4 and all("connection failed" in (r.error or "") for r in replies)


# -- the vLLM engine processor -----------------------------------------------------------

def test_the_vllm_engine_processor_is_configured_per_options() -> None:
    opts = RayBatchOptions(engine="vllm", workers=3, tensor_parallel_size=2, max_model_len=4096, batch_size=16)
    cfg = vllm_config(opts, "Qwen/Qwen2.5-0.5B-Instruct")
    assert isinstance(cfg, ray_llm.vLLMEngineProcessorConfig)
    assert cfg.model_source == "Qwen/Qwen2.5-0.5B-Instruct" and cfg.should_continue_on_error
    assert {"tensor_parallel_size": 2, "max_model_len": 4096}.items() <= cfg.engine_kwargs.items()
    assert (cfg.concurrency, cfg.batch_size) == (3, 16)
    http = http_config(RayBatchOptions(endpoints=["http://h:8000/v1/", "http://g:8000/v1"], qps=5))
    assert isinstance(http, ray_llm.HttpRequestProcessorConfig)
    assert (http.url, http.max_retries, http.qps) == ("http://h:8000/v1/chat/completions", 0, 5)
    assert http.session_factory.model_cfg.endpoints == ["http://h:8000/v1", "http://g:8000/v1"]
    assert http.headers is None                                    # no key among Ray's settings


def _vllm_and_gpu() -> str | None:
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
def test_the_vllm_engine_processor_on_a_gpu(tmp_path: Path, ray_cluster: Path) -> None:
    reason = _vllm_and_gpu()
    if reason:
        pytest.skip(reason)
    from qcstation.eval.backends.batch import read_batch_output, write_batch
    from qcstation.eval.batch_ray.pipeline import run_batch
    from tests.eval.test_batch_files import req

    model = os.environ.get("QCSTATION_GPU_TEST_MODEL", "Qwen/Qwen2.5-0.5B-Instruct")
    requests = [req(i, user=f"What is {i} + {i}? Answer with a number.", max_tokens=16) for i in range(1, 6)]
    requests += [req(9, sample=s, temperature=1.0, max_tokens=24) for s in range(2)]
    (inp,) = write_batch(requests, tmp_path / "in.jsonl", model=model)
    out = tmp_path / "out.jsonl"
    summary = run_batch([inp], out, RayBatchOptions(engine="vllm", workers=1, max_model_len=1024))
    assert (summary.sent, summary.ok) == (7, 7)
    replies = list(read_batch_output(out))
    assert all(r.status == "ok" and r.text and r.finish_reason in ("stop", "length") for r in replies)
    assert build(RayBatchOptions(engine="vllm"), model) is not None
