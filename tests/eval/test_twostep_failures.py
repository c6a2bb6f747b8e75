"""Two-step Reflection & Refinement (issue 27.1): each step's failure is its own. A failed
correction request is an R-m error (the item stays in R-m's denominator: its reflection
passed), never an R-t change; the reflection is read flexibly (the type names anywhere) and
strictly (the asked 'Error types:' line). A scripted model on the loopback OpenAI-protocol
server; every figure below is worked out by hand from the script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Store
from qcstation.eval import metrics as M
from qcstation.eval import scorers
from qcstation.eval import tasks as T
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import create_run
from tests.eval_helpers import (
    config,
    copy_db,
    find_record,
    gold_text,
    last_user,
    local_model,
    quickstart_db,
    records_by_question,
)
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def test_a_failed_correction_is_an_r_m_error_and_never_an_r_t_change(qs_db: Path,
                                                                      fake_openai: FakeOpenAI) -> None:
    cfg = config(models={"m": local_model(fake_openai.base_url, retries=0)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["refinement"], shots=0, limit=6)
    records = records_by_question(qs_db, run_id)
    seeds = sorted({int(r["seed_id"]) for r in records.values()})
    assert len(seeds) == 6
    role = dict(zip(seeds, ("prose-fail", "prose-ok", "line-fail", "line-ok", "none", "none")))

    def names(r: dict) -> str:
        return ", ".join(T.ERROR_TYPE_DEFINITIONS[t][0].lower() for t in T.error_type_ids(r))

    def raw(request: dict) -> tuple[int, dict, bytes]:
        msgs = request["messages"]
        rec = find_record(msgs[1]["content"] if len(msgs) > 1 else last_user(request), records)
        assert rec is not None
        kind = role[int(rec["seed_id"])]
        if len(msgs) >= 4:                                   # step 2: the correction
            if kind.endswith("fail"):
                return 500, {"Content-Type": "application/json"}, \
                    b'{"error": {"message": "maximum context length exceeded"}}'
            text = f"The corrected solution.\nThe answer is {gold_text(rec)}."
        elif kind.startswith("prose"):                       # the types, not on the asked line
            text = f"Looking at the steps, the errors are {names(rec)}."
        elif kind.startswith("line"):
            text = f"Error types: {names(rec)}"
        else:
            text = "Error types: none"
        body = fake_openai._completion(request, text)
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    fake_openai.raw_responder = raw
    execute_run(qs_db, run_id, cfg)
    scorers.score_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        got = {(role[int(r["seed_id"])], r["metric"]): r["verdict"] for r in s.query(
            "SELECT seed_id, metric, verdict FROM eval_scores WHERE run_id = ?", (run_id,))}
        (lb,) = M.leaderboard(s, [run_id])
        failed = s.query("SELECT status, error, response FROM eval_outputs WHERE run_id = ? "
                         "AND status = 'error'", (run_id,))
    # by hand, per role: R-t flexible / strict, R-m flexible / strict
    expected = {
        "prose-fail": ("correct", "unparseable", "error", "error"),
        "prose-ok": ("correct", "unparseable", "correct", "correct"),
        "line-fail": ("correct", "correct", "error", "error"),
        "line-ok": ("correct", "correct", "correct", "correct"),
        "none": ("wrong", "wrong", "not_scored", "not_scored"),
    }
    for kind, (rt, rt_s, rm, rm_s) in expected.items():
        assert (got[(kind, "rt")], got[(kind, "rt_s")], got[(kind, "rm")], got[(kind, "rm_s")]) == \
            (rt, rt_s, rm, rm_s), kind
    # the failed outputs keep their reflection and say which step failed
    assert len(failed) == 2 and all(f["error"].startswith("refinement step:") and
                                    f["response"] for f in failed)
    # ACC@R-t 4/6 (the failed corrections do not touch it); strict 2/6; ACC@R-m over the 4
    # items whose reflection passed, the 2 failed corrections in the denominator: 2/4
    v = lb.values
    assert v["rt"].value == pytest.approx(4 / 6) and v["rt"].n == 6
    assert v["rt_s"].value == pytest.approx(2 / 6) and v["rt_s"].n == 6
    assert (v["rm"].value, v["rm"].n) == (0.5, 4)
    assert (v["rm_s"].value, v["rm_s"].n) == (0.5, 4)
    assert v["rm_ungated"].value is None            # not defined under two steps


@pytest.mark.parametrize("text,found", [
    ("The errors are: omitted_step.", {"omitted_step"}),
    ("There is no redundancy here, but an operator misuse and a skipped step.",
     {"operator_misuse", "omitted_step"}),
    ("It does not contain redundant steps.", set()),
    ("I see an arithmetic number error and hallucinated content.",
     {"arithmetic_inaccuracy", "hallucinated_content"}),
    ("Error types: none", set()),
    ("I cannot tell.", None),
])
def test_the_reflection_is_read_flexibly(text: str, found: set[str] | None) -> None:
    assert scorers.flexible_error_types(text) == found
