"""The generate → verify → regenerate loop, end to end on real data, real Z3, real SQLite,
and a real OpenAI-protocol server on loopback."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import Config, load_config
from db.artifacts import current_artifact
from qcstation.core.construct.pipeline import Pipeline
from tests.conftest import ROOT, dataset
from tests.fake_openai import FakeOpenAI
from tests.must import must


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _import(store: Store, path: Path, fmt: str = "auto", **kw) -> None:
    from qcstation.core.ingest.importer import import_file

    import_file(store, path, fmt, **kw)


def _config(tmp_path: Path, body: str = "") -> Config:
    p = tmp_path / "qc.toml"
    p.write_text(body)
    return load_config(p, env={})


def _model_toml(url: str, **extra: object) -> str:
    lines = ["[generator]", 'model = "fake-model"', f'base_url = "{url}"', "retries = 1",
             "backoff_s = 0.01", "timeout_s = 60"]
    lines += [f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"' for k, v in extra.items()]
    return "\n".join(lines) + "\n[generation]\nmax_attempts = 3\n"


def test_offline_loop_on_real_gsm8k(tmp_path: Path, db_file: Path) -> None:
    src = dataset("gsm8k/test.jsonl")
    sample = tmp_path / "gsm8k.jsonl"
    sample.write_text("".join(src.read_text().splitlines(keepends=True)[:25]))
    with Store(db_file) as store:
        _import(store, sample, "gsm8k")
        active = store.scalar("SELECT COUNT(*) FROM seeds WHERE status = 'active'")
    cfg = _config(tmp_path)
    with Pipeline(db_file, cfg) as p:
        summary = p.generate()
    counts = summary.to_dict()["dimensions"]
    # exact rules: about half the active GSM8K seeds verify in every dimension offline (the
    # rest: a given's words cannot be vouched for, so a model must make it), refinement most
    for dim in ("reasoning", "arithmetic", "understanding"):
        assert counts[dim].get("verified", 0) >= 0.45 * active, (dim, counts)
    assert counts["refinement"].get("verified", 0) >= 0.8 * active, counts
    with Store(db_file) as store:
        arith = store.query("SELECT * FROM artifacts WHERE dimension = 'arithmetic' AND status = 'verified'")
        for a in arith:
            content = json.loads(a["content"])
            src_art = must(store.one("SELECT * FROM artifacts WHERE id = ?", (content["source_artifact_id"],)))
            assert src_art["dimension"] == "reasoning" and src_art["status"] == "verified"
            assert json.loads(a["verify_result"])["status"] == "verified"
            assert not any(w in content["notation"].lower() for w in ("egg", "duck", "dollar"))
        # every attempt is recorded, with its output
        assert store.scalar("SELECT COUNT(*) FROM attempts WHERE finished_at IS NULL") == 0
    # a second run does nothing new
    with Pipeline(db_file, cfg) as p:
        again = p.generate().to_dict()["dimensions"]
    assert all("verified" not in c for c in again.values()), again
    with Store(db_file) as store:
        assert store.scalar("SELECT MAX(version) FROM artifacts") == 1


def test_no_model_and_no_rule_says_so(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": f"Tom has {n} apples and buys {n + 2} more, then eats 1. How many now?",
             "answer": str(2 * n + 1), "id": f"q{n}"} for n in range(3)]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    with Pipeline(db_file, _config(tmp_path)) as p:
        s = p.generate(dimensions=["reasoning"])
    assert s.counts["reasoning"]["needs_model"] == 3
    assert any("no model is configured" in n for n in s.notes)


_EXPRS = {7: "(- (+ a b) c)", 8: "(+ a b)", 9: "(+ a b c)"}


def _smt(value: int, a: int = 3) -> str:
    """A formalization of "Tom has ``a`` apples and buys 5 more, then eats 1" whose answer is
    ``value`` (a + 4 right; a + 5 forgets he ate one; a + 6 adds it)."""
    return (f"(set-logic QF_LIA)\n(declare-const a Int)\n(assert (= a {a}))\n(declare-const b Int)\n"
            "(assert (= b 5))\n(declare-const c Int)\n(assert (= c 1))\n(declare-const answer Int)\n"
            f"(assert (= answer {_EXPRS[value - a + 3]}))\n(check-sat)\n(get-value (answer))")


def test_model_loop_regenerates_with_verifier_feedback(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": "Tom has 3 apples and buys 5 more, then eats 1. How many now?",
             "answer": "7", "id": "a"}]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    with FakeOpenAI() as server:
        server.reply("I think the answer is seven.")     # no SMT-LIB at all
        server.reply(_smt(8))                               # wrong value
        server.reply("```smt2\n" + _smt(7) + "\n```")      # right, in a fence
        cfg = _config(tmp_path, _model_toml(server.base_url))
        with Pipeline(db_file, cfg) as p:
            s = p.generate(dimensions=["reasoning"])
        bodies = [must(r.body) for r in server.chat_requests]
    assert s.counts["reasoning"]["verified"] == 1
    assert len(bodies) == 3
    # the third request carried the verifier's message about the wrong value, in terms of the
    # formula (its own value), never the gold answer; and the history of both attempts
    last_user = bodies[2]["messages"][-1]["content"]
    assert "answer = 8" in last_user and "rejected" in last_user
    assert not any("7" in m["content"] for b in bodies for m in b["messages"][-5:])
    assert [m["content"] for m in bodies[2]["messages"]][-4].startswith("I think the answer is seven")
    with Store(db_file) as store:
        attempts = store.query("SELECT * FROM attempts ORDER BY id")
        assert [a["attempt_no"] for a in attempts] == [1, 2, 3]
        assert attempts[0]["parse_ok"] == 0 and attempts[0]["raw_output"].startswith("I think")
        assert attempts[1]["verify_status"] == "wrong_value"
        cur = must(current_artifact(store, 1, "reasoning"))
        assert cur["status"] == "verified" and cur["version"] == 2 and cur["model"] == "fake-model"
        old = must(store.one("SELECT * FROM artifacts WHERE version = 1"))
        assert old["status"] == "superseded" and cur["replaces_id"] == old["id"]


def test_attempts_exhausted_marks_failed_with_history(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": "Tom has 3 apples and buys 5 more, then eats 1. How many now?",
             "answer": "7", "id": "a"}]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    with FakeOpenAI(responder=lambda req: _smt(9) + f"\n; {len(req['messages'])}") as server:
        cfg = _config(tmp_path, _model_toml(server.base_url))
        with Pipeline(db_file, cfg) as p:
            s = p.generate(dimensions=["reasoning"])
    assert s.counts["reasoning"]["failed:attempts_exhausted"] == 1
    with Store(db_file) as store:
        assert store.scalar("SELECT COUNT(*) FROM attempts") == 3
        cur = must(current_artifact(store, 1, "reasoning"))
        assert cur["status"] == "failed"
        assert "9" in json.loads(cur["verify_result"])["message"]


def test_model_jobs_are_asked_window_by_window(tmp_path: Path, db_file: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30.1: every round of one window of model jobs is asked before the next window
    starts, so what a run holds of replies is bounded by the window, not by the seeds; the
    outcome per seed is what one batch of all of them gives."""
    rows = [{"question": f"Tom has {n} apples and buys 5 more, then eats 1. How many now?",
             "answer": str(n + 4), "id": f"q{n}"} for n in range(3, 13)]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    monkeypatch.setattr(Pipeline, "LLM_WINDOW", 4)
    # no SMT-LIB, and a new reply each attempt (so no retry is a cache hit of the one before)
    with FakeOpenAI(responder=lambda req: f"No formula; attempt {len(req['messages'])}. " + "z" * 500) as server:
        cfg = _config(tmp_path, _model_toml(server.base_url, concurrency=1))
        with Pipeline(db_file, cfg) as p:
            s = p.generate(dimensions=["reasoning"])
        asked = len(server.chat_requests)
    assert s.counts["reasoning"]["failed:attempts_exhausted"] == 10 and asked == 30
    with Store(db_file) as store:
        attempts = store.query("SELECT seed_id, attempt_no FROM attempts ORDER BY id")
    seeds = [a["seed_id"] for a in attempts]
    # windows of 4, 4 and 2 seeds, three rounds each, one window after the other
    assert [sorted(set(seeds[i:j])) for i, j in ((0, 12), (12, 24), (24, 30))] == [
        [1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]
    assert [a["attempt_no"] for a in attempts[:12]] == [1] * 4 + [2] * 4 + [3] * 4


def test_dead_server_fails_cleanly_and_keeps_attempts(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": "Tom has 3 apples and buys 5 more, then eats 1. How many now?",
             "answer": "7", "id": "a"}]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    cfg = _config(tmp_path, _model_toml("http://127.0.0.1:9/v1"))
    with Pipeline(db_file, cfg) as p:
        s = p.generate(dimensions=["reasoning"])
    assert s.counts["reasoning"]["failed:attempts_exhausted"] == 1
    with Store(db_file) as store:
        errs = store.query("SELECT parse_error FROM attempts")
        assert len(errs) == 3 and all("model call failed" in e["parse_error"] for e in errs)


def _reject(store: Store, art_id: int, seed_id: int, dim: str, reason: str) -> None:
    with store.transaction():
        store.execute("UPDATE artifacts SET status = 'rejected' WHERE id = ?", (art_id,))
        sid = store.insert("samples", {"dimension": dim, "round": 1, "rng_seed": 1, "rate": 1.0,
                                       "created_at": "t"})
        iid = store.insert("sample_items", {"sample_id": sid, "seed_id": seed_id,
                                            "artifact_id": art_id, "position": 0})
        store.insert("reviews", {"sample_item_id": iid, "artifact_id": art_id, "annotator": "ann",
                                 "verdict": "reject", "reason": reason, "created_at": "t"})


KEYINFO = {"problem_scenario": "Tom and apples.", "goal": "How many apples now?",
           "known_quantities": ["3 apples", "5 more"], "unknown_quantities": ["apples now"],
           "relationships_and_constraints": ["now = 3 + 5 - 1"], "irrelevant_information": []}


def test_rejected_artifact_is_regenerated_with_reviewer_reason(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": "Tom has 3 apples and buys 5 more, then eats 1. How many now?",
             "answer": "7", "id": "a"}]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    with FakeOpenAI(responder=lambda req: json.dumps(KEYINFO)) as server:
        cfg = _config(tmp_path, _model_toml(server.base_url))
        with Pipeline(db_file, cfg) as p:
            p.generate(dimensions=["understanding"])
        with Store(db_file) as store:
            art = must(current_artifact(store, 1, "understanding"))
            assert art["status"] == "verified"
            # a reviewer rejects it (written as the QC module writes decisions)
            _reject(store, art["id"], 1, "understanding", "goal misses the unit")
        with Pipeline(db_file, cfg) as p:
            s = p.regenerate_rejected()
        last = must(server.chat_requests[-1].body)["messages"][-1]["content"]
    assert "goal misses the unit" in last
    assert s.counts["understanding"]["verified"] == 1
    with Store(db_file) as store:
        new = must(current_artifact(store, 1, "understanding"))
        assert new["version"] == 2 and new["replaces_id"] == art["id"]
        assert store.scalar("SELECT status FROM artifacts WHERE id = ?", (art["id"],)) == "superseded"


def test_kill_9_then_resume_loses_and_duplicates_nothing(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": f"Tom has {n} apples and buys 5 more, then eats 1. How many now?",
             "answer": str(n + 4), "id": f"q{n}"} for n in range(1, 13)]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")

    # the first 4 requests are answered; the rest wait until the kill (and are answered after
    # it, for the resume): the run is mid-way when it is killed, however slow the machine is
    answered, killed = itertools.count(), threading.Event()

    def responder(req: dict) -> str:
        if next(answered) >= 4:
            killed.wait(600)
        q = req["messages"][-1]["content"]
        n = int(q.split("has ")[1].split(" ")[0])
        return _smt(n + 4, n)

    with FakeOpenAI(responder=responder) as server:
        cfg_path = tmp_path / "qc.toml"
        cfg_path.write_text(_model_toml(server.base_url, concurrency=1))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "qcstation", "--db", str(db_file), "--config", str(cfg_path),
               "generate", "-d", "reasoning", "-q"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 300       # polled, however slow the machine is
        while time.time() < deadline and len(server.chat_requests) < 4:
            time.sleep(0.05)
        assert len(server.chat_requests) >= 4
        proc.send_signal(signal.SIGKILL)
        proc.wait(300)
        killed.set()
        first_requests = len(server.chat_requests)
        assert 4 <= first_requests < 12
        with Store(db_file) as store:
            cached_before = store.scalar("SELECT COUNT(*) FROM llm_cache")
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    with Store(db_file) as store:
        per_seed = store.query(
            "SELECT seed_id, COUNT(*) AS n, MAX(status) AS st FROM artifacts "
            "WHERE dimension = 'reasoning' AND status != 'superseded' GROUP BY seed_id")
        assert len(per_seed) == 12 and all(r["n"] == 1 and r["st"] == "verified" for r in per_seed)
        assert store.scalar("SELECT COUNT(*) FROM artifacts WHERE dimension = 'reasoning'") == 12
        # answers the killed run already received were cached, so they cost nothing now
        assert store.scalar("SELECT COUNT(*) FROM llm_calls WHERE cached = 1") == cached_before
    assert len(server.chat_requests) - first_requests == 12 - cached_before


def test_model_rephrasing_of_notation_is_checked_and_retried(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": "Janet's ducks lay 16 eggs per day. She eats 3 and bakes with 4. She sells "
                         "the rest for $2 each. How much does she make?",
             "answer": "#### 18".replace("#### ", ""), "id": "j",
             "solution": "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
                         "She makes 9 * 2 = $<<9*2=18>>18 every day."}]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    good = ("Given a = 16, b = 3, c = 4 and d = 2, let s1 = a − b − c and answer = s1 × d. "
            "Find the value of answer.")
    with FakeOpenAI() as server:
        server.reply(good.replace("d = 2", "d = 7"))   # changes a number: must be refused
        server.reply(good)
        cfg = _config(tmp_path, _model_toml(server.base_url) + "rephrase_notation = true\n")
        with Pipeline(db_file, cfg) as p:
            s = p.generate(dimensions=["reasoning", "arithmetic"])
        second = must(server.chat_requests[1].body)["messages"][-1]["content"]
    assert s.counts["reasoning"]["verified"] == 1
    assert s.counts["arithmetic"]["verified"] == 1
    assert "7" in second and "rejected" in second
    with Store(db_file) as store:
        art = must(current_artifact(store, 1, "arithmetic"))
        content = json.loads(art["content"])
        assert content["notation"] == good and content["rendered"].startswith("Let a = 16")
        assert art["generator"] == "llm" and art["status"] == "verified"
        # a later drift of the stored text is caught by re-verification
        with store.transaction():
            content["notation"] = good.replace("d = 2", "d = 3")
            store.execute("UPDATE artifacts SET content = ? WHERE id = ?", (json.dumps(content), art["id"]))
    with Pipeline(db_file, _config(tmp_path)) as p:
        v = p.verify(dimensions=["arithmetic"], reverify=True)
    assert v.counts["arithmetic"]["failed:mismatch"] == 1


def test_two_generate_processes_share_the_work_without_duplicates(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": f"Tom has {n} apples and buys 5 more, then eats 1. How many now?",
             "answer": str(n + 4), "id": f"q{n}"} for n in range(1, 9)]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")

    def responder(req: dict) -> str:
        n = int(req["messages"][-1]["content"].split("has ")[1].split(" ")[0])
        return _smt(n + 4, n)

    with FakeOpenAI(responder=responder) as server:
        server.default_delay = 0.3
        cfg_path = tmp_path / "qc.toml"
        cfg_path.write_text(_model_toml(server.base_url, concurrency=2))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "qcstation", "--db", str(db_file), "--config", str(cfg_path),
               "generate", "-d", "reasoning", "-q", "--json"]
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert all(p.returncode == 0 for p in procs), outs
        requests = len(server.chat_requests)
    with Store(db_file) as store:
        per_seed = store.query("SELECT seed_id, COUNT(*) AS n FROM artifacts "
                               "WHERE dimension = 'reasoning' GROUP BY seed_id")
        assert len(per_seed) == 8 and all(r["n"] == 1 for r in per_seed)
        assert store.scalar("SELECT COUNT(*) FROM artifacts WHERE status = 'verified'") == 8
    # each item was asked for at most once across both processes (cache hits are free)
    assert requests <= 8
    verified = sum(json.loads(o[0])["dimensions"]["reasoning"].get("verified", 0) for o in outs)
    assert verified == 8


def test_rejected_rule_notation_needs_a_model_offline_and_is_rephrased_with_one(
        tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": "Janet's ducks lay 16 eggs per day. She eats 3 and bakes with 4. She sells "
                         "the rest for $2 each. How much does she make?", "answer": "18", "id": "j",
             "solution": "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
                         "She makes 9 * 2 = $<<9*2=18>>18 every day."}]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    with Pipeline(db_file, _config(tmp_path)) as p:
        p.generate(dimensions=["reasoning", "arithmetic"])
    with Store(db_file) as store:
        art = must(current_artifact(store, 1, "arithmetic"))
        assert art["generator"] == "rule:notation"
        _reject(store, art["id"], 1, "arithmetic", "reads like a formula dump")
    with Pipeline(db_file, _config(tmp_path)) as p:
        offline = p.regenerate_rejected()
    assert offline.counts["arithmetic"]["needs_model"] == 1
    assert any("same text again" in n for n in offline.notes)
    good = ("Given a = 16, b = 3, c = 4 and d = 2, let s1 = a − b − c and answer = s1 × d. "
            "Find the value of answer.")
    with FakeOpenAI(responder=lambda req: good) as server:
        with Pipeline(db_file, _config(tmp_path, _model_toml(server.base_url))) as p:
            s = p.regenerate_rejected()
        prompt = must(server.chat_requests[-1].body)["messages"]
    assert s.counts["arithmetic"]["verified"] == 1
    assert "reads like a formula dump" in prompt[-1]["content"]
    with Store(db_file) as store:
        new = must(current_artifact(store, 1, "arithmetic"))
        assert new["replaces_id"] == art["id"] and json.loads(new["content"])["notation"] == good


def test_model_writes_notation_when_the_smtlib_cannot_be_rendered(tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": "Tom is 3 years older than twice Ann's age. Together they are 30 years old. "
                         "How old is Tom?", "answer": "21", "id": "t"}]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="hard")
    solved_smt = ("(set-logic QF_LIA)\n(declare-const older_by Int)\n(assert (= older_by 3))\n"
                  "(declare-const twice Int)\n(assert (= twice 2))\n(declare-const together Int)\n"
                  "(assert (= together 30))\n(declare-const ann Int)\n(declare-const answer Int)\n"
                  "(assert (= answer (+ (* twice ann) older_by)))\n(assert (= (+ ann answer) together))\n"
                  "(check-sat)\n(get-value (answer))")
    wrong = "Let a = 2, b = 3 and c = 30. Let ann = (c - b) ÷ 3 and answer = a × ann. What is the value of answer?"
    right = "Let a = 2, b = 3 and c = 30. Let ann = (c - b) ÷ 3 and answer = a × ann + b. What is the value of answer?"
    with FakeOpenAI() as server:
        server.reply(solved_smt)            # reasoning: verified (answer 21) but not renderable
        server.reply("Tom is 21.")          # arithmetic: not in the form
        server.reply(wrong)                 # in the form, Z3 says 18
        server.reply(right)                 # verified
        cfg = _config(tmp_path, _model_toml(server.base_url).replace("max_attempts = 3", "max_attempts = 4"))
        with Pipeline(db_file, cfg) as p:
            s = p.generate(dimensions=["reasoning", "arithmetic"])
        msgs = [must(r.body)["messages"] for r in server.chat_requests]
    assert s.counts["reasoning"]["verified"] == 1 and s.counts["arithmetic"]["verified"] == 1
    assert "(assert (= (+ ann answer) together))" in msgs[1][-1]["content"]
    assert "required form" in msgs[2][-1]["content"]
    assert "answer = 18" in msgs[3][-1]["content"]
    assert not any("21" in m["content"] for ms in msgs for m in ms[-6:])   # never the gold
    with Store(db_file) as store:
        art = must(current_artifact(store, 1, "arithmetic"))
        content = json.loads(art["content"])
        assert content["notation"] == right and content["form"] == "model"
        assert art["prompt_version"] == "notation-from-smtlib-v2"
    # offline, the same seed says plainly that a model is needed
    with Store(db_file) as store, store.transaction():
        store.execute("UPDATE artifacts SET status = 'superseded' WHERE dimension = 'arithmetic'")
    with Pipeline(db_file, _config(tmp_path)) as p:
        off = p.generate(dimensions=["arithmetic"])
    assert off.counts["arithmetic"]["needs_model"] == 1
    assert any("cannot be rendered" in n for n in off.notes)


def test_two_offline_runs_never_leave_two_current_versions(tmp_path: Path, db_file: Path) -> None:
    src = dataset("gsm8k/test.jsonl")
    sample = tmp_path / "gsm8k.jsonl"
    sample.write_text("".join(src.read_text().splitlines(keepends=True)[:400]))
    with Store(db_file) as store:
        _import(store, sample, "gsm8k")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "qcstation", "--db", str(db_file), "generate", "-d", "reasoning", "-q"]
    first = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 300       # the second starts once the first is writing (or is done)
    while time.time() < deadline and first.poll() is None:
        with Store(db_file) as store:
            if store.scalar("SELECT COUNT(*) FROM artifacts WHERE dimension = 'reasoning'"):
                break
        time.sleep(0.05)
    second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    first.communicate(timeout=300)
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    with Store(db_file) as store:
        doubled = store.scalar(
            "SELECT COUNT(*) FROM (SELECT seed_id FROM artifacts WHERE dimension = 'reasoning' "
            "AND status != 'superseded' GROUP BY seed_id HAVING COUNT(*) > 1)")
        assert doubled == 0
        assert store.scalar("SELECT COUNT(*) FROM artifacts WHERE status = 'generated'") == 0
        assert store.scalar("SELECT MAX(version) FROM artifacts") == 1


def test_undoing_the_reject_while_the_model_answers_abandons_the_replacement(
        tmp_path: Path, db_file: Path) -> None:
    rows = [{"question": "Tom has 3 apples and buys 5 more, then eats 1. How many now?",
             "answer": "7", "id": "a"}]
    with Store(db_file) as store:
        _import(store, _jsonl(tmp_path / "g.jsonl", rows), "jsonl", level="medium")
    hold, release = threading.Event(), threading.Event()

    def responder(req: dict) -> str:      # once held, replies wait until the undo is done
        if hold.is_set():
            release.wait(600)
        return json.dumps(KEYINFO)

    with FakeOpenAI(responder=responder) as server:
        cfg = _config(tmp_path, _model_toml(server.base_url))
        with Pipeline(db_file, cfg) as p:
            p.generate(dimensions=["understanding"])
        with Store(db_file) as store:
            art = must(current_artifact(store, 1, "understanding"))
            _reject(store, art["id"], 1, "understanding", "goal misses the unit")
        hold.set()
        result: dict = {}

        def regenerate() -> None:
            with Pipeline(db_file, cfg) as p:
                result["summary"] = p.regenerate_rejected()

        t = threading.Thread(target=regenerate)
        t.start()
        deadline = time.time() + 300
        while time.time() < deadline and len(server.chat_requests) < 2:
            time.sleep(0.02)
        assert len(server.chat_requests) >= 2
        with Store(db_file) as store, store.transaction():   # what decisions.undo_last does
            store.execute("UPDATE reviews SET undone_at = 'now' WHERE artifact_id = ?", (art["id"],))
            store.execute("UPDATE artifacts SET status = 'verified' WHERE id = ?", (art["id"],))
        release.set()
        t.join(300)
    assert result["summary"].counts["understanding"]["abandoned (the replaced version changed)"] == 1
    with Store(db_file) as store:
        assert must(current_artifact(store, 1, "understanding"))["id"] == art["id"]
        assert store.scalar("SELECT COUNT(*) FROM artifacts WHERE dimension = 'understanding'") == 1
        assert store.scalar("SELECT verify_status FROM attempts ORDER BY id DESC LIMIT 1") == "abandoned"
