"""Scores comparable to SMART, with judge and infrastructure failures kept apart (issue 15):
whole runs on the shipped sample (real SQLite, real Z3) against the loopback OpenAI-protocol
server as the model and as the judge."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.eval import metrics as M
from qcstation.eval import scorers
from qcstation.eval.judging import read_judge_reply
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import create_run
from qcstation.eval.tasks import canonical_error_type
from tests.eval_helpers import (
    config,
    copy_db,
    gold_text,
    local_model,
    quickstart_db,
    records_by_question,
    reference_reply,
    scripted,
)
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401
from tests.must import must

JUDGE = {"name": "judge", "model": "fake-judge", "retries": 0, "backoff_s": 0.01}


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def _cli(db: Path, *args: str, cfg: Path | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--config", str(cfg)] if cfg else []
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *extra, "eval", *args],
                          capture_output=True, text=True, timeout=300)


# -- judges ---------------------------------------------------------------------------------

@pytest.mark.parametrize("reply,score", [
    ("95", 95), ("95.", 95), ("Score: 87", 87), ("**Score:** 87", 87), ("Rating: [[87]]", 87),
    ("[[87]]", 87), ("**87**", 87), ("The fields match.\nScore: 92/100", 92),
    ("Score: 7/10", None), ("7/10", None), ("I would give a score: 87 here.", None),
    ("Score: 0", None), ("Score: 250", None), ("Score: 87.5", None), ("garbage", None), ("", None),
])
def test_a_judge_reply_is_read_only_in_a_conventional_form(reply: str, score: int | None) -> None:
    got, why = read_judge_reply(reply)
    assert got == score
    assert (why == "") == (score is not None)
    if reply == "Score: 7/10":
        assert "out of 10" in why


def _understanding_run(qs_db: Path, fake: FakeOpenAI, judges: list[dict]) -> tuple[int, object]:
    cfg = config(models={"m": local_model(fake.base_url)},
                 judges=[{**j, "base_url": fake.base_url} for j in judges])
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["understanding", "final"], shots=0, limit=4)
    return run_id, cfg


def test_a_garbage_judge_is_judge_error_never_a_zero_for_the_model(qs_db: Path, fake_openai: FakeOpenAI) -> None:
    run_id, cfg = _understanding_run(qs_db, fake_openai, [JUDGE])
    ref = {"records": records_by_question(qs_db, run_id)}
    judge_says = {"text": "I cannot grade this, sorry."}

    def responder(req: dict) -> str:
        if req.get("model") == "fake-judge":
            return judge_says["text"]
        return scripted(ref, lambda t, r: reference_reply(t, r))(req)

    fake_openai.responder = responder
    execute_run(qs_db, run_id, cfg)
    first = scorers.score_run(qs_db, run_id, cfg)
    assert first.counts["un"] == {"judge_error": 4}
    with Store(qs_db) as s:
        (rm,) = M.leaderboard(s, [run_id])
        detail = json.loads(s.scalar("SELECT detail FROM eval_scores WHERE run_id = ? AND metric = 'un' "
                                     "LIMIT 1", (run_id,)))
    un, all_ = rm.values["un"], rm.values["all"]
    assert un.value is None and un.n == 0 and un.not_model == {"judge_error": 4}   # unscored, not 0
    assert "judge_error 4" in (un.note or "") and "not the model" in (un.note or "")
    assert all_.value is None                                      # not a made-up All-Pass
    assert rm.values["fi"].value == 1.0
    assert detail["judges"]["judge"]["raw"] == "I cannot grade this, sorry."     # raw text kept

    lb = _cli(qs_db, "leaderboard", str(run_id))
    assert lb.returncode == 0, lb.stderr
    assert "judge_error" in lb.stdout and "--retry-judges" in lb.stdout            # > 5 %: said so
    row = lb.stdout.splitlines()[2]
    assert re.search(r"n/a\s+n/s\s", row) and row.split()[-1] == "4"   # Un unscored, 4 left out
    assert "no judge configured" not in lb.stdout

    # rescoring calls no model: the stored replies are read again
    n = len(fake_openai.chat_requests)
    again = scorers.score_run(qs_db, run_id, cfg)
    assert len(fake_openai.chat_requests) == n and again.counts["un"] == {"judge_error": 4}

    # the judge recovers: --retry-judges asks again (past the cache) and the items are scored
    judge_says["text"] = "Score: 96"
    retried = scorers.score_run(qs_db, run_id, cfg, only_missing=True, retry_judges=True)
    assert len(fake_openai.chat_requests) == n + 4
    assert retried.counts == {"un": {"correct": 4}}
    with Store(qs_db) as s:
        (rm2,) = M.leaderboard(s, [run_id])
    assert rm2.values["un"].value == 96.0 and rm2.values["un"].left_out == 0


def test_llm_at_un_needs_every_configured_judge(qs_db: Path, fake_openai: FakeOpenAI) -> None:
    run_id, cfg = _understanding_run(qs_db, fake_openai, [JUDGE, {**JUDGE, "name": "second",
                                                                    "model": "fake-judge-2"}])
    ref = {"records": records_by_question(qs_db, run_id)}

    def responder(req: dict) -> str:
        if req.get("model") == "fake-judge":
            return "Score: 95"
        if req.get("model") == "fake-judge-2":
            return "Score: 7/10"                    # another scale: never read as 7
        return scripted(ref, lambda t, r: reference_reply(t, r))(req)

    fake_openai.responder = responder
    execute_run(qs_db, run_id, cfg)
    summary = scorers.score_run(qs_db, run_id, cfg)
    assert summary.counts["un"] == {"judge_error": 4}          # never a silently smaller mean
    with Store(qs_db) as s:
        detail = json.loads(s.scalar("SELECT detail FROM eval_scores WHERE run_id = ? AND metric = 'un' "
                                     "LIMIT 1", (run_id,)))
    assert detail["judges"]["judge"]["score"] == 95 and "out of 10" in detail["judges"]["second"]["error"]


# -- answers: strict and flexible, hedged ---------------------------------------------------

def test_strict_and_flexible_differ_when_the_format_is_ignored(qs_db: Path, fake_openai: FakeOpenAI) -> None:
    cfg = config(models={"m": local_model(fake_openai.base_url)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=6)
    ref = {"records": records_by_question(qs_db, run_id)}
    # right answer, but bold instead of the asked line 'The answer is N.'
    fake_openai.responder = scripted(ref, lambda t, r: f"Working it out carefully, we get **{gold_text(r)}**.")
    execute_run(qs_db, run_id, cfg)
    scorers.score_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        (rm,) = M.leaderboard(s, [run_id])
    assert rm.values["fi"].value == 1.0 and rm.values["fi_s"].value == 0.0
    assert rm.values["fi_s"].counts == {"unparseable": 6}


def test_check_answer_prints_both_and_hedges_are_wrong(tmp_path: Path) -> None:
    for text in ("The answer is \\pm 5.", "The answer is 16 or 18.", "The answer is 5 and 7."):
        out = subprocess.run([sys.executable, "-m", "qcstation", "check-answer", text, "--gold", "5"],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "verdict:   wrong  (hedged)" in out.stdout
        assert "flexible:  wrong" in out.stdout and "strict:    wrong" in out.stdout


# -- refinement: the paper's gated R-m -----------------------------------------------------

def _types_line(record: dict) -> str:
    from qcstation.eval import tasks as T

    return T.record_values(record)["error_types"]


@pytest.mark.parametrize("protocol", ["two-step", "single-prompt"])
def test_copying_the_wrong_chain_scores_zero_on_the_headline_r_m(qs_db: Path, fake_openai: FakeOpenAI,
                                                                 protocol: str) -> None:
    cfg = config(models={"m": local_model(fake_openai.base_url)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["refinement"], shots=0, limit=20, protocol=protocol)
    ref = {"records": records_by_question(qs_db, run_id)}
    # names every injected error (so reflection passes) and hands back the wrong chain unchanged
    fake_openai.responder = scripted(ref, lambda t, r: f"Error types: {_types_line(r)}\n"
                                                      f"Corrected solution:\n{r['w_cot']}")
    execute_run(qs_db, run_id, cfg)
    scorers.score_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        (rm,) = M.leaderboard(s, [run_id])
        copied = s.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ? AND metric = 'rm' "
                          "AND json_extract(detail, '$.copied') = 1", (run_id,))
    assert rm.values["rt"].value == 1.0
    assert rm.values["rm"].value == 0.0 and rm.values["rm"].n == 20     # the headline
    # ungated R-m is a single-prompt figure: under two steps it is not shown, with the reason
    ungated = rm.values["rm_ungated"]
    assert copied == 20 and (ungated.value == 0.0 if protocol == "single-prompt" else
                             ungated.value is None and "two-step" in (ungated.note or ""))


def test_r_m_counts_only_after_a_correct_reflection(qs_db: Path, fake_openai: FakeOpenAI) -> None:
    cfg = config(models={"m": local_model(fake_openai.base_url)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["refinement"], shots=0, limit=20,
                            protocol="single-prompt")
    ref = {"records": records_by_question(qs_db, run_id)}
    # a right corrected answer every time, but no error named: reflection always fails
    fake_openai.responder = scripted(ref, lambda t, r: f"Error types: none\nCorrected solution:\n"
                                                      f"The answer is {gold_text(r)}.")
    execute_run(qs_db, run_id, cfg)
    scorers.score_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        (rm,) = M.leaderboard(s, [run_id])
    assert rm.values["rt"].value == 0.0
    assert rm.values["rm"].value is None and "reflection" in (rm.values["rm"].note or "")
    assert rm.values["rm_ungated"].value == 1.0              # kept, under its own name
    # the split by error kind: every item is one or the other
    with Store(qs_db) as s:
        keeps = [json.loads(d).get("keeps_answer") for (d,) in s.conn.execute(
            "SELECT detail FROM eval_scores WHERE run_id = ? AND metric = 'rm'", (run_id,))]
    assert set(keeps) <= {True, False} and True in keeps and False in keeps


@pytest.mark.parametrize("written,tid", [
    ("arithmetic inaccuracies", "arithmetic_inaccuracy"), ("Omitted steps", "omitted_step"),
    ("skipped step", "omitted_step"), ("arithmetic number error", "arithmetic_inaccuracy"),
    ("calculation errors", "arithmetic_inaccuracy"), ("Hallucinations", "hallucinated_content"),
    ("redundant steps", "redundancy"), ("wrong operators", "operator_misuse"),
    ("logical disorder", "logical_disorder"), ("banana", None),
])
def test_error_type_names_plurals_and_the_papers_names(written: str, tid: str | None) -> None:
    assert canonical_error_type(written) == tid


def test_error_types_listed_on_the_following_lines() -> None:
    found, unknown = scorers.parse_error_types(
        "Error types:\n- Omitted steps: the second step is missing\n* Redundancy (step 3 repeats)\n\n"
        "Corrected solution:\nThe answer is 4.")
    assert found == {"omitted_step", "redundancy"} and unknown == []


# -- statistics -----------------------------------------------------------------------------

def test_intervals_at_zero_and_one_hundred_percent_have_width() -> None:
    for p in (0.0, 1.0):
        for n in (1, 5, 20, 1000):
            lo, hi = M.wilson(p, n)
            assert hi - lo > 0 and 0.0 <= lo <= p <= hi <= 1.0
    import numpy as np

    mean, lo_un, hi_un = M.interval("un", np.full(12, 100.0), n_boot=100, seed=0)
    assert mean == 100.0 and must(lo_un) < 100.0 and hi_un == 100.0


def test_compare_and_the_leaderboard_agree_on_a_three_sample_run(store: Store) -> None:
    from tests.eval_factory import add_item, make_run, row

    a = make_run(store, model="a", samples=3)
    b = make_run(store, model="b", samples=3)
    # item 1: 2 of 3, item 2: 1 of 3, item 3: 3 of 3 -> per-item means 2/3, 1/3, 1 -> 66.7 %
    for seed, wins in ((1, 2), (2, 1), (3, 3)):
        add_item(store, a, seed, samples=[row(re="c" if k < wins else "w") for k in range(3)])
        add_item(store, b, seed, samples=[row(re="w") for _ in range(3)])
    (la, lb) = M.leaderboard(store, [a, b])
    cmp_ = M.compare(store, a, b, "re")
    assert cmp_.a_value == pytest.approx(la.values["re"].value) == pytest.approx(2 / 3)
    assert cmp_.b_value == pytest.approx(lb.values["re"].value) == 0.0
    assert (cmp_.a_only, cmp_.b_only) == (3, 0)
    # the same items give the same interval in the leaderboard and in a breakdown
    (group,) = M.breakdown(store, a, "source").values()
    assert (group["re"].lo, group["re"].hi) == (la.values["re"].lo, la.values["re"].hi)


def test_a_release_run_is_labelled_with_its_release_in_the_report(qs_db: Path, tmp_path: Path) -> None:
    from qcstation.eval.report import write_report

    with Store(qs_db) as s:
        run_id = create_run(s, config(), model="reference", shots=0, limit=3)
        s.execute("UPDATE eval_runs SET spec = json_set(spec, '$.source', json('{\"release\": \"smart\", "
                  "\"version\": \"1.2.0\", \"release_id\": 1}')) WHERE id = ?", (run_id,))
    execute_run(qs_db, run_id, config())
    scorers.score_run(qs_db, run_id, config())
    with Store(qs_db) as s:
        text = write_report(s, run_id, tmp_path / "rep", n_boot=50).read_text()
    assert "| release | smart@1.2.0 |" in text and "working set" not in text
    assert "| refinement protocol | two-step" in text          # the default, the paper's


# -- reasoning: a script that states the answer is trivial ------------------------------------

def test_a_script_that_states_the_answer_is_trivial(qs_db: Path, fake_openai: FakeOpenAI) -> None:
    cfg = config(models={"m": local_model(fake_openai.base_url)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["reasoning"], shots=0, limit=6)
    records = records_by_question(qs_db, run_id)
    ref = {"records": records}
    stating = {sid for sid in sorted({int(r["seed_id"]) for r in records.values()})[:3]}

    def answer(task: str, r: dict) -> str:
        if int(r["seed_id"]) in stating:   # the gold answer, stated: verifies, formalizes nothing
            value = str(r["answer"])
            lit = value if "/" not in value else "(/ {} {})".format(*value.split("/"))
            return f"```smt2\n(declare-const answer Real)\n(assert (= answer {lit}))\n(check-sat)\n```"
        return reference_reply(task, r)    # the reference formalization: depends on its givens

    fake_openai.responder = scripted(ref, answer)
    execute_run(qs_db, run_id, cfg)
    scorers.score_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        rows = {int(r["seed_id"]): (r["verdict"], json.loads(r["detail"])) for r in s.query(
            "SELECT seed_id, verdict, detail FROM eval_scores WHERE run_id = ? AND metric = 're'", (run_id,))}
        (rm,) = M.leaderboard(s, [run_id])
    assert {sid for sid, (v, _) in rows.items() if v == "trivial"} == stating
    assert all(v == "correct" for sid, (v, _) in rows.items() if sid not in stating)
    assert all("moved the answer" in d["depends_on_givens"] for v, d in rows.values() if v == "correct")
    assert "does not formalize the question" in rows[min(stating)][1]["reason"]
    assert rm.values["re"].value == pytest.approx(0.5)           # trivial counts as not correct


def test_moving_a_given_is_found_by_value_in_the_models_own_names() -> None:
    from qcstation.eval.triviality import perturbations

    question = ("Carlos plants a lemon tree for $90. Each year it grows 7 lemons, which he sells for "
                "$1.5 each. It costs $3 a year to water it. How many years until he earns money?")
    own = ("(declare-const lemons Real)(declare-const price Real)(declare-const answer Real)\n"
           "(assert (= lemons 7.0))(assert (= price 1.5))\n"
           "(assert (= answer (/ 90 (- (* lemons price) 3))))")
    variants = perturbations(own, question)
    assert len(variants) == 4
    assert "(= lemons 8)" in variants[0] and "(= price (/ 5 2))" in variants[1]
    assert perturbations("(declare-const answer Int)\n(assert (= answer 90))", question) == []


@pytest.mark.parametrize(("script", "why"), [
    ("(declare-const answer Int)(assert (= answer (- 20 2)))", "unstated-number"),
    ("(declare-const answer Int)(assert (= answer (+ 14 4)))", "unstated-number"),
    ("(declare-const answer Int)(assert (= answer (* 9 2)))", "unstated-number"),
    ("(declare-const answer Int)(assert (= answer 18))", "states-answer"),
    ("(declare-const a Int)(assert (= a 7))(declare-const b Int)(assert (= b 5))"
     "(declare-const answer Int)(assert (= answer (- (* a b) 17)))", "unstated-number"),
])
def test_acc_re_is_trivial_for_value_based_shortcuts(script: str, why: str) -> None:
    """Issue 27.2: the value-based guard let (- 20 2), (+ 14 4) and a half-solved (* 9 2) score
    correct for a gold of 18 (each literal equal to some given counted as that given)."""
    from qcstation.core.verify.verifier import VerifierPool, VerifyLimits
    from qcstation.eval import scorers as S

    question = "Sue has 12 apples and buys 3 bags of 2 apples each. How many apples does she have?"
    with VerifierPool(workers=1, limits=VerifyLimits(timeout_s=5, memory_mb=512)) as pool:
        good = ("(declare-const a Int)(assert (= a 12))(declare-const b Int)(assert (= b 3))"
                "(declare-const c Int)(assert (= c 2))(declare-const answer Int)"
                "(assert (= answer (+ a (* b c))))")
        outs = list(pool.verify_many([(script, "18"), (good, "18")]))
        assert [o.status for o in outs] == ["verified", "verified"]

        class _Sp:
            items = {1: ({"question": question},), 2: ({"question": question},)}

        scored = [({"seed_id": 1}, S.Score("correct", 1.0, None, {"smtlib": script}), outs[0]),
                  ({"seed_id": 2}, S.Score("correct", 1.0, None, {"smtlib": good}), outs[1])]
        S._mark_trivial(pool, _Sp(), scored)   # type: ignore[arg-type]
    (_, bad, _), (_, ok, _) = scored
    assert bad.verdict == "trivial" and bad.score == 0.0 and why in bad.detail["meaning"]
    assert "18" not in bad.detail["reason"] or why == "states-answer"
    assert ok.verdict == "correct" and "moved the answer" in ok.detail["depends_on_givens"]


def test_the_two_step_protocol_refines_only_after_a_correct_reflection(qs_db: Path,
                                                                        fake_openai: FakeOpenAI) -> None:
    cfg = config(models={"m": local_model(fake_openai.base_url)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["refinement"], shots=0, limit=10)
        spec = json.loads(s.scalar("SELECT spec FROM eval_runs WHERE id = ?", (run_id,)))
    assert spec["protocol"] == {"refinement": "two-step"}
    assert spec["templates"]["refinement"]["version"].startswith("reflection-")
    assert spec["templates"]["refine"]["version"].startswith("refine-")
    records = records_by_question(qs_db, run_id)
    right = sorted({int(r["seed_id"]) for r in records.values()})[:6]     # reflect right on 6 of 10

    def answer(task: str, r: dict) -> str:
        if int(r["seed_id"]) not in right:
            return "Error types: none"
        return f"Error types: {_types_line(r)}\nCorrected solution:\nThe answer is {gold_text(r)}."

    fake_openai.responder = scripted({"records": records}, answer)
    execute_run(qs_db, run_id, cfg)
    prompts = [r.messages for r in fake_openai.chat_requests]
    assert len(prompts) == 10 + 6                               # step 2 only after a right step 1
    second = [m for m in prompts if len(m) == 4]                # system, user, assistant, user
    assert len(second) == 6 and all(m[2]["role"] == "assistant" and "Error types:" in m[2]["content"]
                                    and "Now correct them" in m[3]["content"] for m in second)
    assert all("Do not correct the solution yet" in m[1]["content"] for m in prompts if len(m) == 2)
    scorers.score_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        (rm,) = M.leaderboard(s, [run_id])
    assert rm.values["rt"].value == pytest.approx(0.6)
    assert rm.values["rm"].value == 1.0 and rm.values["rm"].n == 6
    assert rm.values["rm"].counts == {"correct": 6, "wrong": 0}
    # never asked: not a 0, and ungated R-m is not defined under two steps
    assert rm.values["rm_ungated"].value is None and "two-step" in must(rm.values["rm_ungated"].note)
    with Store(qs_db) as s:
        assert M.verdict_counts(s, run_id) == [
            ("rm", "correct", 6), ("rm", "not_scored", 4), ("rm_s", "correct", 6),
            ("rm_s", "not_scored", 4), ("rt", "correct", 6), ("rt", "wrong", 4),
            ("rt_s", "correct", 6), ("rt_s", "wrong", 4)]


def test_replies_cut_by_the_length_limit_are_counted_and_flagged(qs_db: Path, fake_openai: FakeOpenAI) -> None:
    from qcstation.eval import provenance as P
    from qcstation.eval.runs import EVAL_MAX_TOKENS

    cfg = config(models={"m": local_model(fake_openai.base_url, concurrency=1)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=5)
        spec = json.loads(s.scalar("SELECT spec FROM eval_runs WHERE id = ?", (run_id,)))
    assert spec["max_tokens"] == EVAL_MAX_TOKENS >= 16_000          # room for reasoning models
    ref = {"records": records_by_question(qs_db, run_id)}
    fake_openai.responder = scripted(ref, lambda t, r: reference_reply(t, r))
    fake_openai.reply("Let me think step by step about this long", finish_reason="length")
    execute_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        prov = P.describe(s, run_id)
    assert (prov.stopped_by_length, prov.replies) == (1, 5)
    assert prov.warnings and "stopped at the length limit" in prov.warnings[0]
    lb = _cli(qs_db, "leaderboard", str(run_id))
    assert "cut by length 1/5" in lb.stdout and "stopped at the length limit" in lb.stdout


def test_an_item_not_allowed_to_refine_fails_all_pass_it_is_not_left_out(store: Store) -> None:
    from tests.eval_factory import add_item, make_run, row

    run = make_run(store)
    add_item(store, run, 1, scores=row(un=95))                       # passes everything
    add_item(store, run, 2, scores=row(un=95, rt="w", rm="n"))       # reflection wrong: R-m not asked
    (rm,) = M.leaderboard(store, [run])
    assert rm.values["all"].value == 0.5 and rm.values["all_no_un"].value == 0.5
    assert rm.values["rm"].value == 1.0 and rm.values["rm"].n == 1    # R-m over item 1 only


def test_a_judge_that_is_down_is_reported_request_by_request(qs_db: Path,
                                                             fake_openai: FakeOpenAI) -> None:
    """With the judge server down, --retry-judges says how far it got as each request ends
    (it sat silent for the whole wait), and the items stay judge_error."""
    import socket

    with socket.socket() as s:          # a loopback port nothing listens on: the judge is down
        s.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    cfg = config(models={"m": local_model(fake_openai.base_url)},
                 judges=[{**JUDGE, "base_url": down}])
    with Store(qs_db) as st:
        run_id = create_run(st, cfg, model="m", tasks=["understanding", "final"], shots=0, limit=4)
    ref = {"records": records_by_question(qs_db, run_id)}
    fake_openai.responder = scripted(ref, lambda t, r: reference_reply(t, r))
    execute_run(qs_db, run_id, cfg)
    told: list[tuple[str, int, int, int]] = []
    retried = scorers.score_run(qs_db, run_id, cfg, only_missing=True, retry_judges=True,
                                judge_progress=lambda *a: told.append(a))
    assert retried.counts["un"] == {"judge_error": 4}
    assert told[0] == ("judge", 0, 4, 0) and told[-1] == ("judge", 4, 4, 4)
    assert [t[1] for t in told] == [0, 1, 2, 3, 4]
    # the command prints it on stderr, with how to stop
    toml = qs_db.parent / "down.toml"
    toml.write_text("[[judges]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in
                                              {**JUDGE, "base_url": down}.items()), encoding="utf-8")
    proc = _cli(qs_db, "score", str(run_id), "--retry-judges", cfg=toml)
    assert proc.returncode == 0, proc.stderr
    assert "judge judge: 0 of 4 requests answered · Ctrl+C stops" in proc.stderr
    assert "judge judge: 4 of 4 requests answered, 4 failed" in proc.stderr
