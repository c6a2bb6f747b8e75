"""`qcstation eval import-batch` prices what it stores (issue 30.5): each result's cost from
its token counts, the run's model's configured prices and its ``batch_price_factor``; a result
with no token count costs *unknown*, never $0; with no prices the summary says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Store
from qcstation.cli import main
from qcstation.common.errors import ConfigError
from qcstation.common.config import load_config
from tests.eval.test_batch_files import lines
from tests.eval_helpers import copy_db, quickstart_db


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def _conf(tmp_path: Path, prices: str) -> Path:
    conf = tmp_path / "qcstation.toml"
    conf.write_text('[models.m]\nmodel = "fake-model"\nbase_url = "http://127.0.0.1:9/v1"\n' + prices,
                    encoding="utf-8")
    return conf


def _exported(db: Path, conf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    assert main(["--db", str(db), "--config", str(conf), "eval", "run", "--model", "m", "--working-set",
                 "--tasks", "final,arithmetic", "--limit", "3", "--protocol", "single-prompt",
                 "--create-only", "--json"]) == 0
    run_id = int(json.loads(capsys.readouterr().out)["run"])
    inp = tmp_path / "in.jsonl"
    assert main(["--db", str(db), "eval", "export-batch", str(run_id), "--out", str(inp)]) == 0
    capsys.readouterr()
    return run_id, [x["custom_id"] for x in lines(inp)]


def _results(path: Path, ids: list[str], usage: list[dict[str, int] | None]) -> Path:
    out = []
    for cid, u in zip(ids, usage, strict=True):
        body: dict[str, object] = {"object": "chat.completion", "model": "fake-model",
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": "42"}}]}
        if u is not None:
            body["usage"] = u
        out.append({"id": f"b_{cid}", "custom_id": cid, "error": None,
                    "response": {"status_code": 200, "request_id": "r", "body": body}})
    path.write_text("".join(json.dumps(x) + "\n" for x in out), encoding="utf-8")
    return path


def _costs(db: Path, run_id: int) -> list[float | None]:
    with Store(db) as s:
        return [r["cost"] for r in s.query(
            "SELECT cost FROM eval_outputs WHERE run_id = ? ORDER BY seed_id, task, sample_idx", (run_id,))]


def test_stored_results_are_priced_at_the_configured_batch_prices(
        qs_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = _conf(tmp_path, "price_in_per_mtok = 2.0\nprice_out_per_mtok = 8.0\nbatch_price_factor = 0.5\n")
    run_id, ids = _exported(qs_db, conf, tmp_path, capsys)
    assert len(ids) == 6
    usage: list[dict[str, int] | None] = [{"prompt_tokens": 100, "completion_tokens": 10}] * 5 + [None]
    out = _results(tmp_path / "out.jsonl", ids, usage)
    assert main(["--db", str(qs_db), "--config", str(conf), "eval", "import-batch", str(run_id), str(out)]) == 0
    said = capsys.readouterr().out
    one = (100 * 2.0 + 10 * 8.0) / 1e6 * 0.5            # $0.00014 a result
    assert ("spent            500 tokens in, 50 out, $0.0007 at the configured prices x 0.5 "
            "(batch_price_factor); 1 result(s) with no token count: their cost is not known") in said
    costs = _costs(qs_db, run_id)
    assert sorted(c for c in costs if c is not None) == pytest.approx([one] * 5)
    assert costs.count(None) == 1                      # not known, never $0
    with Store(qs_db) as s:                            # the run's own total counts them
        from qcstation.eval.runs import get_run
        assert get_run(s, run_id).cost == pytest.approx(5 * one)
    # importing again stores nothing and spends nothing
    assert main(["--db", str(qs_db), "--config", str(conf), "eval", "import-batch", str(run_id), str(out),
                 "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["already"] == 6 and again["cost"] == 0 and again["prompt_tokens"] == 0


def test_without_prices_the_cost_is_said_to_be_unknown(
        qs_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = _conf(tmp_path, "")
    run_id, ids = _exported(qs_db, conf, tmp_path, capsys)
    out = _results(tmp_path / "out.jsonl", ids, [{"prompt_tokens": 7, "completion_tokens": 3}] * len(ids))
    assert main(["--db", str(qs_db), "--config", str(conf), "eval", "import-batch", str(run_id), str(out)]) == 0
    said = capsys.readouterr().out
    assert ("spent            42 tokens in, 18 out; cost not known: model 'm' has no "
            "price_in_per_mtok / price_out_per_mtok") in said
    assert "$" not in said and set(_costs(qs_db, run_id)) == {None}


def test_with_no_configuration_the_cost_is_unknown_and_the_import_goes_on(
        qs_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    run_id, ids = _exported(qs_db, _conf(tmp_path, "price_in_per_mtok = 1.0\n"), tmp_path, capsys)
    out = _results(tmp_path / "out.jsonl", ids, [{"prompt_tokens": 7, "completion_tokens": 3}] * len(ids))
    elsewhere = tmp_path / "elsewhere"          # a results file imported on another machine
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("QCSTATION_CONFIG", raising=False)
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_id), str(out), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["stored"] == len(ids) and said["cost"] is None
    assert said["cost_note"] == "no model named 'm' in the built-in defaults, so no prices"
    assert set(_costs(qs_db, run_id)) == {None}


def test_batch_price_factor_is_bounded(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"batch_price_factor.*must be in \[0, 1\]"):
        load_config(_conf(tmp_path, "batch_price_factor = 2\n"))


def test_a_result_with_one_count_missing_or_dropped_is_said_not_known(
        qs_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue 30.5 (lane attack30): a result whose server sent the prompt count only, or a completion
    # count past what the request could hold (dropped), has no cost; the summary said
    # '$0.0011 at the configured prices' as if the whole import had been priced
    conf = _conf(tmp_path, "price_in_per_mtok = 2.0\nprice_out_per_mtok = 8.0\n")
    run_id, ids = _exported(qs_db, conf, tmp_path, capsys)
    both: dict[str, int] = {"prompt_tokens": 100, "completion_tokens": 10}
    usage: list[dict[str, int] | None] = [both, both, both, both, {"prompt_tokens": 100},
                                          {"prompt_tokens": 100, "completion_tokens": 2**40}]
    out = _results(tmp_path / "out.jsonl", ids, usage)
    assert main(["--db", str(qs_db), "--config", str(conf), "eval", "import-batch", str(run_id), str(out),
                 "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert _costs(qs_db, run_id).count(None) == 2
    assert said["cost"] == pytest.approx(4 * (100 * 2.0 + 10 * 8.0) / 1e6)
    assert said["results_cost_not_known"] == 2
    run_id2, ids2 = _exported(qs_db, conf, tmp_path, capsys)
    out2 = _results(tmp_path / "out2.jsonl", ids2, usage)
    assert main(["--db", str(qs_db), "--config", str(conf), "eval", "import-batch", str(run_id2), str(out2)]) == 0
    assert ("600 tokens in, 40 out, $0.0011 at the configured prices; 2 result(s) with one token count missing or dropped: "
            "their cost is not known") in capsys.readouterr().out
