"""`qcstation eval export-batch / import-batch` on a real database (the shipped sample
generated offline), with the batch run through the loopback OpenAI-protocol server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.cli import main
from qcstation.eval.runs import create_run
from tests.eval.test_batch_files import lines, run_batch_over_http
from tests.eval_helpers import config, copy_db, quickstart_db
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401 - fixture
from tests.must import must


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def outputs(db: Path, run_id: int) -> dict[tuple[int, str, int], dict[str, object]]:
    with Store(db) as s:
        return {(int(r["seed_id"]), r["task"], int(r["sample_idx"])): dict(r) for r in s.query(
            "SELECT * FROM eval_outputs WHERE run_id = ?", (run_id,))}


def _openai_run(db: Path, fake: FakeOpenAI, **kw: object) -> int:
    cfg = config(models={"m": {"model": "fake-model", "base_url": fake.base_url}})
    with Store(db) as s:
        return create_run(s, cfg, model="m", **{"tasks": ["final", "arithmetic"], "shots": 1,
                                                "limit": 5, **kw})  # type: ignore[arg-type]


def test_export_run_import_round_trip_is_idempotent(qs_db: Path, tmp_path: Path, fake_openai: FakeOpenAI,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    run_id = _openai_run(qs_db, fake_openai, samples=2, temperature=0.5)
    inp = tmp_path / "batch" / "in.jsonl"
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(inp)]) == 0
    said = capsys.readouterr().out
    assert f"run {run_id}: 20 requests for model fake-model written to {inp}" in said
    assert f"qcstation eval import-batch {run_id}" in said
    sent = lines(inp)
    assert len(sent) == 20 and {x["body"]["model"] for x in sent} == {"fake-model"}
    assert {x["custom_id"].split("-")[0] for x in sent} == {f"run{run_id}"}
    assert len({x["body"]["seed"] for x in sent}) == 2                  # one seed per sample index
    assert fake_openai.chat_requests == []                              # exporting asks nothing

    fake_openai.status(500, message="overloaded")                        # the first request fails
    out = tmp_path / "out.jsonl"
    run_batch_over_http(inp, out, fake_openai.url)
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_id), str(out)]) == 0
    said = capsys.readouterr().out
    assert "stored           19 responses, 1 failed requests" in said
    assert f"run {run_id}: 20/20 responses stored" in said and f"next: qcstation eval score {run_id}" in said
    stored = outputs(qs_db, run_id)
    first = sent[0]["custom_id"]
    assert len(stored) == 20
    failed = [o for o in stored.values() if o["status"] == "error"]
    assert len(failed) == 1 and "HTTP 500" in str(failed[0]["error"]) and "overloaded" in str(failed[0]["error"])
    assert all(o["endpoint"] == "batch file out.jsonl" for o in stored.values())
    by_msg = {json.dumps(x["body"]["messages"]): x["custom_id"] for x in sent}
    for r in fake_openai.chat_requests[1:]:                            # each answer stored where it belongs
        cid = by_msg[json.dumps(must(r.body)["messages"])]
        _, seed, task, sample = cid.split("-")
        row = stored[(int(seed[4:]), task, int(sample[1:]))]
        assert row["response"] == "echo: " + r.messages[-1]["content"]
    with Store(qs_db) as s:    # complete, not scored: `unscored`, not `done` (issue 30.5)
        assert s.scalar("SELECT status FROM eval_runs WHERE id = ?", (run_id,)) == "unscored"
        assert s.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ?", (run_id,)) == 0
    assert main(["--db", str(qs_db), "eval", "score", str(run_id)]) == 0
    capsys.readouterr()
    with Store(qs_db) as s:    # scored: `done`
        assert s.scalar("SELECT status FROM eval_runs WHERE id = ?", (run_id,)) == "done"
        assert s.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ?", (run_id,)) > 0

    # again, through the real entry point: nothing is stored twice, and it says so
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "eval", "import-batch",
                           str(run_id), str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "already present  20  (nothing was stored twice)" in proc.stdout
    assert "nothing new: every result was already stored" in proc.stdout
    assert outputs(qs_db, run_id) == stored

    # nothing pending now; --retry-errors exports the failed request, and its new result replaces the error
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(inp)]) == 0
    assert "has no pending requests; nothing written" in capsys.readouterr().out
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(inp),
                 "--retry-errors", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == 1
    assert [x["custom_id"] for x in lines(inp)] == [first]
    run_batch_over_http(inp, out, fake_openai.url)
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_id), str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # a new output in a scored run: no longer `done` until scored again
    assert (report["stored"], report["pending"], report["status"]) == (1, 0, "unscored")
    assert {o["status"] for o in outputs(qs_db, run_id).values()} == {"ok"}
    assert main(["--db", str(qs_db), "eval", "score", str(run_id)]) == 0
    with Store(qs_db) as s:
        assert s.scalar("SELECT status FROM eval_runs WHERE id = ?", (run_id,)) == "done"


def test_import_refuses_another_runs_results_and_reports_bad_lines(
        qs_db: Path, tmp_path: Path, fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    run_a = _openai_run(qs_db, fake_openai, tasks=["final"])
    run_b = _openai_run(qs_db, fake_openai, tasks=["final"])
    inp = tmp_path / "a.jsonl"
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_a), "--out", str(inp)]) == 0
    out = tmp_path / "a.out.jsonl"
    run_batch_over_http(inp, out, fake_openai.url)
    capsys.readouterr()
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_b), str(out)]) == 1
    cap = capsys.readouterr()
    assert f"{out}:1: run{run_a}-" in cap.err and f"belongs to run {run_a}, not run {run_b}; refused" in cap.err
    assert f"5 result(s) belong to run {run_a}; import them with `qcstation eval import-batch {run_a} {out}`" in cap.err
    assert "refused          5 of another run" in cap.out
    assert outputs(qs_db, run_b) == {}

    good = out.read_text(encoding="utf-8").splitlines()
    messy = tmp_path / "messy.jsonl"
    messy.write_text("\n".join([good[0], "{oops", good[1], json.dumps({"custom_id": "hello"}),
                                good[2].replace(f"run{run_a}-seed", f"run{run_a}-seed9999"),
                                *good[3:]]) + "\n", encoding="utf-8")
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_a), str(messy),
                 str(tmp_path / "missing.jsonl")]) == 2
    cap = capsys.readouterr()
    assert f"{messy}:2: not valid JSON" in cap.err
    assert f"{messy}:4: custom_id 'hello' is not a qcstation request id; skipped" in cap.err
    assert f"1 result(s) name an item, task or sample that run {run_a} does not have" in cap.err
    assert "missing.jsonl: no such file" in cap.err
    assert "stored           4 responses" in cap.out and "malformed        1 lines skipped" in cap.out
    assert len(outputs(qs_db, run_a)) == 4
    assert f"run {run_a}: 4/5 responses stored; 1 still pending" in cap.out


def test_export_refuses_reference_runs_and_splits_large_ones(qs_db: Path, tmp_path: Path,
                                                             fake_openai: FakeOpenAI,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    with Store(qs_db) as s:
        ref = create_run(s, config(), model="reference", tasks=["final"], shots=0, limit=2)
    assert main(["--db", str(qs_db), "eval", "export-batch", str(ref)]) == 2
    assert "uses the reference backend" in capsys.readouterr().err
    run_id = _openai_run(qs_db, fake_openai, tasks=["final"], limit=7)
    out = tmp_path / "r.jsonl"
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(out),
                 "--max-per-file", "3", "--served-model", "org/served-name", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == [str(tmp_path / f"r.part00{i}.jsonl") for i in (1, 2, 3)]
    assert [len(lines(Path(f))) for f in report["files"]] == [3, 3, 1]
    assert {x["body"]["model"] for f in report["files"] for x in lines(Path(f))} == {"org/served-name"}
    assert main(["--db", str(qs_db), "eval", "export-batch", "999"]) == 2
    assert "no evaluation run 999" in capsys.readouterr().err
    # the size of a file is bounded like every option a user sets (issue 30.2): past the
    # OpenAI limit a clear error, and no file written
    for n in ("50001", "9" * 5000):
        with pytest.raises(SystemExit) as ex:
            main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(tmp_path / "big.jsonl"),
                  "--max-per-file", n])
        assert ex.value.code == 2
        assert "--max-per-file" in capsys.readouterr().err
    assert not list(tmp_path.glob("big*"))


def test_export_refuses_a_run_another_live_process_is_running(
        qs_db: Path, tmp_path: Path, fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    import datetime
    import os
    import socket

    run_id = _openai_run(qs_db, fake_openai, tasks=["final"])
    beat = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with Store(qs_db) as s, s.transaction():       # the parent of this test: alive, on this host
        s.execute("UPDATE eval_runs SET status = 'running', owner = ?, heartbeat_at = ? WHERE id = ?",
                  (f"{socket.gethostname()}:{os.getppid()}", beat, run_id))
    out = tmp_path / "x.jsonl"
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(out)]) == 2
    assert "is being run by" in capsys.readouterr().err and not out.exists()
    with Store(qs_db) as s, s.transaction():       # its process is gone: the lease is free
        s.execute("UPDATE eval_runs SET owner = ? WHERE id = ?", (f"{socket.gethostname()}:999999999", run_id))
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(out)]) == 0
    assert len(lines(out)) == 5


def test_large_imports_are_stored_a_slice_at_a_time(qs_db: Path, tmp_path: Path, fake_openai: FakeOpenAI,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import qcstation.commands.eval.import_batch as cmd
    from qcstation.eval import outputs as stored

    monkeypatch.setattr(cmd, "_IMPORT_CHUNK", 2)
    sizes: list[int] = []
    real_store_replies = stored.store_replies

    def spy(store: object, run: int, replies: list[object], spent: object = None) -> dict[str, int]:
        sizes.append(len(replies))
        return real_store_replies(store, run, replies, spent)  # type: ignore[arg-type]

    monkeypatch.setattr(stored, "store_replies", spy)
    run_id = _openai_run(qs_db, fake_openai, tasks=["final"], limit=5)
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(inp)]) == 0
    run_batch_over_http(inp, out, fake_openai.url)
    capsys.readouterr()
    text = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join([*text, text[0]]) + "\n", encoding="utf-8")   # a duplicate line at the end
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_id), str(out), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["read"], report["stored"], report["already"], report["pending"]) == (5, 5, 0, 0)
    assert report["problems"] == [f"{out}:6: run{run_id}-" + text[0].split(f'"run{run_id}-', 1)[1].split('"')[0]
                                  + " already appeared on line 1; skipped"]
    assert len(outputs(qs_db, run_id)) == 5 and sizes == [2, 2, 1]


def test_create_only_sends_nothing_and_two_step_refinements_stay_for_resume(
        qs_db: Path, tmp_path: Path, fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    conf = tmp_path / "qcstation.toml"     # a server not reachable from here: --create-only does not ask it
    conf.write_text('[models.far]\nmodel = "fake-model"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    assert main(["--db", str(qs_db), "--config", str(conf), "eval", "run", "--model", "far", "--working-set",
                 "--tasks", "final,refinement", "--limit", "4", "--create-only", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    run_id = made["run"]
    assert made["sent"] == 0 and outputs(qs_db, run_id) == {}
    inp = tmp_path / "two.jsonl"
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(inp)]) == 0
    said = capsys.readouterr().out
    sent = lines(inp)
    assert {x["custom_id"].split("-")[2] for x in sent} == {"final"}    # the refinements are held back
    assert "refinement requests were not exported: the run uses the two-step protocol" in said
    assert f"`qcstation eval resume {run_id}` asks them" in said
    # a refinement result brought in anyway (an old export, another tool) is refused, not scored
    out = tmp_path / "two.out.jsonl"
    run_batch_over_http(inp, out, fake_openai.url)
    stray = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    stray["custom_id"] = stray["custom_id"].replace("-final-", "-refinement-")
    with out.open("a", encoding="utf-8") as f:
        f.write(json.dumps(stray) + "\n")
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_id), str(out)]) == 1
    cap = capsys.readouterr()
    assert "is a refinement of a two-step run" in cap.err and "refused          1 two-step refinements" in cap.out
    assert {task for (_, task, _) in outputs(qs_db, run_id)} == {"final"}


def _imported_run(qs_db: Path, tmp_path: Path, fake: FakeOpenAI) -> int:
    """A run whose every request has a stored output (through a batch file), none scored."""
    run_id = _openai_run(qs_db, fake)
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_id), "--out", str(inp)]) == 0
    run_batch_over_http(inp, out, fake.url)
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_id), str(out)]) == 0
    return run_id


def _run_row(db: Path, run_id: int) -> dict[str, object]:
    with Store(db) as s:
        row = dict(must(s.one("SELECT status, owner FROM eval_runs WHERE id = ?", (run_id,))))
        row["scores"] = s.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ?", (run_id,))
        row["distinct"] = s.scalar("SELECT COUNT(*) FROM (SELECT DISTINCT seed_id, sample_idx, metric "
                                   "FROM eval_scores WHERE run_id = ?)", (run_id,))
    return row


def test_one_scoring_pass_per_run_in_this_process_and_in_any_other(
        qs_db: Path, tmp_path: Path, fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30.5: a run is `done` only when scored, and nobody scores the same outputs twice:
    not another process, not another thread of this one, not while this process runs it."""
    import threading

    from qcstation.eval import runs
    from qcstation.eval.runs import EvalError
    from qcstation.eval.scorers import score_run

    run_id = _imported_run(qs_db, tmp_path, fake_openai)
    cfg = config()
    capsys.readouterr()
    assert _run_row(qs_db, run_id)["status"] == "unscored"
    with pytest.raises(RuntimeError, match="the pass failed"):
        with runs.scoring_lease(qs_db, run_id):
            row = _run_row(qs_db, run_id)
            assert row["status"] == "running" and str(row["owner"]).startswith(runs.owner_id() + "#")
            # the same process, same thread and another thread: refused
            with pytest.raises(EvalError, match=f"run {run_id} is being scored by this process"):
                score_run(qs_db, run_id, cfg)
            seen: list[BaseException] = []
            t = threading.Thread(target=lambda: _catch(seen, lambda: score_run(qs_db, run_id, cfg)))
            t.start()
            t.join(300)
            assert len(seen) == 1 and "is being scored by this process" in str(seen[0])
            with Store(qs_db) as s, pytest.raises(EvalError, match="is being scored by this process"):
                runs.take_lease(s, run_id)
            # results are not imported into a run being scored
            assert main(["--db", str(qs_db), "eval", "import-batch", str(run_id),
                         str(tmp_path / "out.jsonl")]) == 2
            assert "is being run or scored by" in capsys.readouterr().err
            # another process: refused, through the real entry point
            proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "eval", "score",
                                   str(run_id)], capture_output=True, text=True, timeout=300)
            assert proc.returncode != 0 and f"run {run_id} is being run or scored by" in proc.stderr
            assert _run_row(qs_db, run_id)["scores"] == 0          # nobody scored meanwhile
            raise RuntimeError("the pass failed")
    row = _run_row(qs_db, run_id)      # a pass that failed: the run keeps its status, unowned
    assert (row["status"], row["owner"], row["scores"]) == ("unscored", None, 0)
    # while this process executes the run, no pass of its own scores it beside the runner
    with runs.executing(qs_db, run_id):
        with pytest.raises(EvalError, match=f"run {run_id} is being run by this process"):
            score_run(qs_db, run_id, cfg)
        with pytest.raises(EvalError, match="is being run by this process already"):
            with runs.executing(qs_db, run_id):
                pass
    # a process holding the scoring lease is killed: its claim lapses with it
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom qcstation.eval.runs import scoring_lease\n"
         f"with scoring_lease({str(qs_db)!r}, {run_id}):\n    print('held', flush=True)\n    time.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(EvalError, match=f"is being run or scored by .*:{holder.pid}#"):
            score_run(qs_db, run_id, cfg)
    finally:
        holder.kill()
        holder.wait(300)
    summary = score_run(qs_db, run_id, cfg)
    row = _run_row(qs_db, run_id)
    assert summary.scored > 0 and (row["status"], row["owner"]) == ("done", None)
    assert row["scores"] == row["distinct"] == summary.scored      # each output scored once


def _catch(seen: list[BaseException], fn: object) -> None:
    try:
        fn()  # type: ignore[operator]
    except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
        seen.append(exc)


def test_millions_of_bad_lines_are_counted_not_kept(qs_db: Path, tmp_path: Path, fake_openai: FakeOpenAI,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Lane attack7: import-batch kept every problem line (and every other run it met) until it
    ended: 2,000,000 bad lines (a 150 MB file) peaked at 561 MB, growing with the file. The
    first KEPT_PROBLEMS lines are kept, all are counted; 20 other runs are named, the rest
    counted together; a file's repeats are tracked for its first TRACKED_IDS ids."""
    from qcstation.commands.eval import import_batch
    from qcstation.eval.backends import batch

    monkeypatch.setattr(import_batch, "KEPT_PROBLEMS", 50)
    run_a = _openai_run(qs_db, fake_openai, tasks=["final"])
    inp = tmp_path / "a.jsonl"
    assert main(["--db", str(qs_db), "eval", "export-batch", str(run_a), "--out", str(inp)]) == 0
    out = tmp_path / "a.out.jsonl"
    run_batch_over_http(inp, out, fake_openai.url)
    good = out.read_text(encoding="utf-8").splitlines()
    others = [good[0].replace(f"run{run_a}-", f"run{1000 + i}-") for i in range(30)]
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join([good[0], *["{oops"] * 300, *[json.dumps({"custom_id": f"hi{i}"}) for i in range(300)],
                              *others, *good[1:]]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["--db", str(qs_db), "eval", "import-batch", str(run_a), str(big), "--json"]) == 1
    cap = capsys.readouterr()
    report = json.loads(cap.out)
    notes = [p for p in report["problems"] if "result(s) belong to" in p]
    assert len(report["problems"]) == 50 + len(notes) and len(notes) == 21, report["problems"][-25:]
    assert report["problems_total"] == 300 + 300 + 30 + 21 and report["skipped"] == 300
    assert f"{big}: 10 result(s) belong to 20+ other runs; refused" in notes
    assert f"... and {300 + 300 + 30 + 21 - 20} more" in cap.err
    assert report["stored"] == 5 and report["other_run"] == 30
    # a repeat is reported for the first TRACKED_IDS ids; a later one is yielded (the store keeps
    # the reply it has)
    monkeypatch.setattr(batch, "TRACKED_IDS", 2)
    rep = tmp_path / "rep.jsonl"
    rep.write_text("\n".join([*good, good[0], good[4]]) + "\n", encoding="utf-8")
    problems: list[str] = []
    ids = [r.custom_id for r in batch.read_batch_output(rep, problems=problems)]
    assert len(ids) == 6 and ids[-1] == ids[4] and len(problems) == 1 and "already appeared on line 1" in problems[0]
