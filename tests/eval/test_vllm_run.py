"""The vLLM backend through the real runner, on a real database (the shipped sample generated
offline), with a fake ``vllm`` module standing in for the GPU library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from db import Store
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import create_run
from tests.eval_helpers import config, copy_db, quickstart_db
from tests.fake_vllm_fixture import fake_vllm  # noqa: F401 - fixture


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def outputs(db: Path, run_id: int) -> dict[tuple[int, str, int], dict[str, object]]:
    with Store(db) as s:
        return {(int(r["seed_id"]), r["task"], int(r["sample_idx"])): dict(r) for r in s.query(
            "SELECT * FROM eval_outputs WHERE run_id = ?", (run_id,))}


# -- vLLM in-process through the runner ------------------------------------------------------

def test_vllm_backend_runs_a_whole_evaluation(qs_db: Path, fake_vllm: ModuleType) -> None:
    cfg = config(models={"gpu": {"model": "tiny/model", "backend": "vllm", "batch_size": 8,
                                 "vllm_args": {"max_model_len": 100_000}}})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="gpu", tasks=["final", "arithmetic"], shots=1, limit=10,
                            samples=2, temperature=0.7)
        spec = json.loads(s.scalar("SELECT spec FROM eval_runs WHERE id = ?", (run_id,)))
    assert spec["backend"] == "vllm" and spec["model"]["vllm_args"] == {"max_model_len": 100_000}
    prog = execute_run(qs_db, run_id, cfg)
    assert (prog.status, prog.done, prog.total, prog.errors) == ("unscored", 40, 40, 0)
    (llm,) = fake_vllm.LLM.instances
    assert llm.engine_args.max_model_len == 100_000
    assert [len(c.messages) for c in llm.calls] == [8] * 5          # the model's batch_size
    out = outputs(qs_db, run_id)
    assert len(out) == 40 and {o["status"] for o in out.values()} == {"ok"}
    assert {o["endpoint"] for o in out.values()} == {"vllm (in-process)"}
    assert all(o["prompt_tokens"] and o["completion_tokens"] == 8 for o in out.values())
    # two samples of an item differ; the prompts sent are the run's own (checked by hash)
    for (sid, task, k), o in out.items():
        if k == 0:
            assert o["response"] != out[(sid, task, 1)]["response"]
    # a second run of the same model on the same prompts is answered from the cache
    with Store(qs_db) as s:
        again = create_run(s, cfg, model="gpu", tasks=["final", "arithmetic"], shots=1, limit=10,
                           samples=2, temperature=0.7)
    prog2 = execute_run(qs_db, again, cfg)
    assert (prog2.done, prog2.cached) == (40, 40)
    assert sum(len(i.calls) for i in fake_vllm.LLM.instances) == 5
    assert {k: o["response"] for k, o in outputs(qs_db, again).items()} == \
        {k: o["response"] for k, o in out.items()}
    # other engine arguments (say, a shorter context or a quantization) are another engine:
    # the cache does not answer for it
    other = config(models={"gpu": {"model": "tiny/model", "backend": "vllm", "batch_size": 8,
                                   "vllm_args": {"max_model_len": 50_000}}})
    with Store(qs_db) as s:
        third = create_run(s, other, model="gpu", tasks=["final", "arithmetic"], shots=1, limit=10,
                           samples=2, temperature=0.7)
    prog3 = execute_run(qs_db, third, other)
    assert (prog3.done, prog3.cached) == (40, 0)
    assert fake_vllm.LLM.instances[-1].engine_args.max_model_len == 50_000


def test_a_vllm_run_without_vllm_says_how_to_install(qs_db: Path, tmp_path: Path) -> None:
    cfg_file = tmp_path / "c.toml"
    cfg_file.write_text('[models.gpu]\nmodel = "tiny/model"\nbackend = "vllm"\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "--config",
                           str(cfg_file), "eval", "run", "--model", "gpu", "--working-set",
                           "--limit", "2", "--shots", "0", "--no-score", "-q"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "vLLM is not installed" in proc.stderr and "pip install '.[gpu]'" in proc.stderr
    assert "Traceback" not in proc.stderr
    with Store(qs_db) as s:                        # checked before the run is created
        assert s.scalar("SELECT COUNT(*) FROM eval_runs") == 0
