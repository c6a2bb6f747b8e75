"""`qcstation eval run / resume` (and a verb's missing dependency) in real subprocesses, on
the shipped sample generated offline into a real SQLite file: the reference self-test,
kill -9 and resume, the release a run needs."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from db import Store
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import create_run
from tests.eval_helpers import (
    config,
    copy_db,
    local_model,
    quickstart_db,
    records_by_question,
    reference_reply,
    scripted,
)
from tests.fake_openai import FakeOpenAI


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


@pytest.mark.slow
def test_kill_9_midway_then_resume_loses_nothing_and_repeats_only_in_flight(qs_db: Path, tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        cfg_path = tmp_path / "qc.toml"
        cfg_path.write_text(f'[models.m]\nmodel = "fake-model"\nbase_url = "{fake.base_url}"\nconcurrency = 4\n')
        cfg = config(models={"m": local_model(fake.base_url)})
        with Store(qs_db) as s:
            run_id = create_run(s, cfg, model="m", tasks=["final", "arithmetic"], shots=1, limit=60)
        ref = {"records": records_by_question(qs_db, run_id)}
        fake.responder = scripted(ref, lambda t, r: reference_reply(t, r))
        fake.default_delay = 0.03
        cmd = [sys.executable, "-m", "qcstation", "--db", str(qs_db), "--config", str(cfg_path),
               "eval", "resume", str(run_id), "-q", "--no-score"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 300
        stored = 0
        while time.monotonic() < deadline:
            with Store(qs_db) as s:
                stored = s.scalar("SELECT COUNT(*) FROM eval_outputs WHERE run_id = ?", (run_id,))
            if stored >= 30:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert 30 <= stored < 120
        asked_before = len(fake.chat_requests)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        with Store(qs_db) as s:
            rows = s.query("SELECT seed_id, task, sample_idx, COUNT(*) AS n FROM eval_outputs "
                           "WHERE run_id = ? GROUP BY 1, 2, 3", (run_id,))
            status = s.scalar("SELECT status FROM eval_runs WHERE id = ?", (run_id,))
        assert len(rows) == 120 and all(r["n"] == 1 for r in rows) and status == "unscored"
        prompts = [json.dumps(r.messages) for r in fake.chat_requests]
        repeated = len(prompts) - len(set(prompts))
        # only requests in flight (or received but not yet stored) at the kill are asked again
        assert repeated <= 4 + 256
        assert len(prompts) <= 120 + repeated and asked_before + (120 - stored) <= len(prompts) + 4


def test_cli_run_reference_self_test_and_list(qs_db: Path) -> None:
    cmd = [sys.executable, "-m", "qcstation", "--db", str(qs_db), "eval", "run", "--model", "reference",
           "--working-set", "--limit", "10", "--shots", "1", "-q", "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    counts = out["scores"]["counts"]
    assert counts["fi"] == {"correct": 10} and counts["re"] == {"correct": 10}
    ls = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "eval", "list"],
                        capture_output=True, text=True, timeout=300)
    assert ls.returncode == 0 and "reference" in ls.stdout and "done" in ls.stdout
    # how it asked, as the app names it (walk28b: a single-prompt run read as a two-step one)
    assert "working set" in ls.stdout and "  1-shot, t=0, 2-step R&R  " in ls.stdout, ls.stdout
    bad = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "eval", "run",
                          "--model", "nope", "--working-set"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "no model named 'nope'" in bad.stderr


def test_no_score_leaves_a_run_unscored_until_it_is_scored(qs_db: Path) -> None:
    # `eval run --no-score` marked the run `done` with no score (issue 30.5)
    def cli(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), *a],
                              capture_output=True, text=True, timeout=300)

    proc = cli("eval", "run", "--model", "reference", "--working-set", "--limit", "4", "--shots", "0",
               "-q", "--no-score")
    assert proc.returncode == 0, proc.stderr
    found = re.search(r"run (\d+): unscored; 20/20 responses stored", proc.stdout)
    assert found is not None, proc.stdout
    run_id = found.group(1)
    assert f"`qcstation eval score {run_id}` scores it" in proc.stdout

    def listed() -> str:
        ls = cli("eval", "list")
        assert ls.returncode == 0, ls.stderr
        return next(line for line in ls.stdout.splitlines() if line.split()[:1] == [run_id])

    assert " unscored " in listed() and " done " not in listed()
    show = cli("eval", "show", run_id)
    assert show.returncode == 0 and "; unscored" in show.stdout, show.stdout
    board = cli("eval", "leaderboard")
    assert board.returncode == 0 and "no finished evaluation runs" in board.stdout
    assert f"answered, not scored (not listed: the leaderboard counts scored runs): run {run_id};" in board.stdout
    named = cli("eval", "leaderboard", run_id)
    assert f"run {run_id}: no scores yet (status unscored;" in named.stdout, named.stdout
    other = cli("eval", "run", "--model", "reference", "--working-set", "--limit", "4", "--shots", "0", "-q")
    found = re.search(r"run (\d+): done;", other.stdout)
    assert other.returncode == 0 and found is not None, other.stdout + other.stderr
    compared = cli("eval", "compare", run_id, found.group(1), "--metric", "fi")
    assert (f"warning: run {run_id} reads unscored: answered, not scored; its items are not compared "
            f"until `qcstation eval score {run_id}`") in compared.stdout, compared.stdout + compared.stderr
    assert f"run {found.group(1)} reads" not in compared.stdout
    scored = cli("eval", "score", run_id)
    assert scored.returncode == 0, scored.stderr
    assert re.search(rf"run {run_id}: \d+ scores written; the run reads done", scored.stdout), scored.stdout
    assert " done " in listed()
    board = cli("eval", "leaderboard")
    assert "no finished evaluation runs" not in board.stdout and "answered, not scored" not in board.stdout
    assert any(line.split()[:1] == [run_id] for line in board.stdout.splitlines()), board.stdout


def test_a_release_is_required_unless_the_working_set_is_asked_for(qs_db: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "eval", "run",
                           "--model", "reference"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "no approved release yet" in proc.stderr and "--working-set" in proc.stderr


def test_a_missing_dependency_is_one_line_not_a_traceback(qs_db: Path, tmp_path: Path) -> None:
    cfg = config()
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="reference", tasks=["final"], shots=0, limit=3)
        other = create_run(s, cfg, model="reference", tasks=["final"], shots=0, limit=3)
    execute_run(qs_db, run_id, cfg, live_score=True)
    execute_run(qs_db, other, cfg, live_score=True)
    # a fake 'scipy' shadows the real one: the comparison (exact McNemar) cannot import it
    (tmp_path / "scipy").mkdir()
    (tmp_path / "scipy" / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'scipy'\", name='scipy')\n")
    db = qs_db
    # prepended: a checkout run from source (PYTHONPATH=checkout) still finds qcstation
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "eval", "compare",
                           str(run_id), str(other), "--metric", "fi"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 2
    assert "the Python package 'scipy' is missing" in proc.stderr and "Traceback" not in proc.stderr


def test_a_run_stored_done_by_an_old_no_score_reads_unscored_and_resume_scores_it(qs_db: Path) -> None:
    # before `unscored`, `eval run --no-score` stored the run `done` with no score: it was on the
    # leaderboard with nothing in it, and `eval resume` kept it `done` unscored (a scored run it
    # added nothing to) (issue 30 leftover 1)
    def cli(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), *a],
                              capture_output=True, text=True, timeout=300)

    proc = cli("eval", "run", "--model", "reference", "--working-set", "--limit", "3", "--shots", "0",
               "-q", "--no-score")
    found = re.search(r"run (\d+): unscored;", proc.stdout)
    assert proc.returncode == 0 and found is not None, proc.stdout + proc.stderr
    run_id = found.group(1)
    with Store(qs_db) as s:      # as the old version left it, in a database of schema 24
        s.execute("UPDATE eval_runs SET status = 'done' WHERE id = ?", (int(run_id),))
        s.conn.execute("PRAGMA user_version = 24")
    listed = cli("eval", "list")
    row = next(line for line in listed.stdout.splitlines() if line.split()[:1] == [run_id])
    assert " unscored " in row and " done " not in row, listed.stdout
    board = cli("eval", "leaderboard")
    assert f"answered, not scored (not listed: the leaderboard counts scored runs): run {run_id};" in board.stdout
    resumed = cli("eval", "resume", run_id, "-q")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    with Store(qs_db) as s:
        assert s.scalar("SELECT status FROM eval_runs WHERE id = ?", (int(run_id),)) == "done"
        assert s.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ?", (int(run_id),)) > 0
