"""Issue 18: the evaluation path attacked as a hostile model server would attack it, on
127.0.0.1 (tests/fake_openai.py's hostile modes), against real SQLite files, the real
runner, the real judge/generator client and the real CLI in a subprocess. Each test names
the cause of the issue it reproduces and shows the attack held."""

from __future__ import annotations

import gzip
import io
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from db import Store
from qcstation.common.http_retry import MAX_BODY_BYTES, BodyDecoder
from qcstation.core.construct.make.llm import MAX_REPLY_CHARS, LLMCallError, LLMClient
from qcstation.eval import browse, runner
from qcstation.eval import live as live_scoring
from qcstation.eval.outputs import MAX_STORED_CHARS
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import EvalError, create_run, get_run, take_lease
from qcstation.widgets.eval_views import render_item
from tests.eval_helpers import config, copy_db, local_model, quickstart_db
from tests.fake_openai import FakeOpenAI, default_responder, fake_openai  # noqa: F401

pytest.importorskip("qcstation.eval.checker")

KEY = "sk-test-SECRET-0123456789abcdef"
OSC52 = "\x1b]52;c;UFdORUQ=\x07"          # writes "PWNED" to the clipboard
TITLE = "\x1b]2;owned\x07"
CLEAR = "\x1b[2J"
C1 = "\x9b31m"                             # CSI as one C1 character
HOSTILE = f"stop{OSC52}{TITLE}{CLEAR}{C1}"
RAW_CONTROL = ("\x1b", "\x07", "\x9b")


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def _run(db: Path, cfg: Any, *, limit: int = 4, tasks: tuple[str, ...] = ("final",)) -> int:
    with Store(db) as s:
        return create_run(s, cfg, model="m", tasks=list(tasks), shots=0, limit=limit)


def _outputs(db: Path, run_id: int) -> list[dict[str, Any]]:
    with Store(db) as s:
        return s.query("SELECT * FROM eval_outputs WHERE run_id = ? ORDER BY seed_id, task", (run_id,))


def _shown(renderable: Any) -> str:
    out = io.StringIO()
    Console(file=out, width=120, color_system=None, force_terminal=False).print(renderable)
    return out.getvalue()


def _cli(db: Path, cfg_file: Path, *args: str, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "--config", str(cfg_file),
                           *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def _cfg_file(tmp: Path, url: str, **extra: Any) -> Path:
    keys: dict[str, Any] = {"model": "fake-model", "base_url": url, "retries": 1, "backoff_s": 0.01,
                            "max_backoff_s": 0.05, "timeout_s": 10, **extra}
    lines = ["[models.m]"] + [f"{k} = {json.dumps(v)}" for k, v in keys.items()]
    p = tmp / "qcstation.toml"
    p.write_text("\n".join(lines) + "\n")
    return p


# -- 1. every reply field is untrusted text ------------------------------------------------

def test_cause1_control_sequences_in_every_reply_field_are_escaped_everywhere(
        qs_db: Path, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.hostile(text=f"The answer is 18.{OSC52}{TITLE}{CLEAR}{C1}", finish_reason=HOSTILE,
                        model=f"evil{TITLE}", usage={"prompt_tokens": f"9{CLEAR}", "completion_tokens": 3})
    fake_openai.status(400, message=f"bad{OSC52}{TITLE}")          # error text, first request
    cfg = config({"m": local_model(fake_openai.base_url)})
    run_id = _run(qs_db, cfg, limit=3)
    prog = execute_run(qs_db, run_id, cfg)
    assert prog.status == "unscored"
    rows = _outputs(qs_db, run_id)
    assert sum(r["status"] == "error" for r in rows) == 1 and sum(r["status"] == "ok" for r in rows) == 2
    for r in rows:   # stored: the finish reason is a short printable token, usage is a count or none
        assert r["finish_reason"] is None or not any(c in r["finish_reason"] for c in RAW_CONTROL)
        assert r["prompt_tokens"] is None
    with Store(qs_db) as s:
        seeds = [r["seed_id"] for r in rows]
        for sid in seeds:   # results browser, then side by side
            shown = _shown(render_item(browse.item_detail(s, run_id, sid)))
            a, b = browse.side_by_side(s, run_id, run_id, sid)
            shown += _shown(render_item(a)) + _shown(render_item(b, header=False))
            assert not any(c in shown for c in RAW_CONTROL), repr(shown)
        assert "\\x1b]52" in shown or "\\x1b" in shown            # shown visibly, not dropped
        # a row stored raw by an older version: escaped at the display boundary all the same
        s.execute("UPDATE eval_outputs SET finish_reason = ?, error = ? WHERE run_id = ?",
                  (HOSTILE, f"old{OSC52}", run_id))
        for sid in seeds:
            shown = _shown(render_item(browse.item_detail(s, run_id, sid)))
            assert not any(c in shown for c in RAW_CONTROL), repr(shown)
    cfg_file = _cfg_file(tmp_path, fake_openai.base_url)
    for args in (["eval", "list"], ["eval", "show", str(run_id)], ["eval", "leaderboard"],
                 ["eval", "breakdown", str(run_id)]):
        proc = _cli(qs_db, cfg_file, *args)
        assert not any(c in proc.stdout + proc.stderr for c in RAW_CONTROL), (args, proc.stdout)


# -- 2. bounded in bytes after decoding ------------------------------------------------------

def _bomb(mib: int) -> bytes:
    z = gzip.compress(b'{"choices": [{"message": {"content": "' + b" " * (mib * 2**20) + b'"}}]}',
                      compresslevel=6)
    return z


def test_cause2_gzip_bomb_is_capped_on_decompressed_bytes_for_the_eval_client(
        qs_db: Path, fake_openai: FakeOpenAI) -> None:
    bomb = _bomb(256)
    assert len(bomb) < 2 * 2**20
    fake_openai.raw_responder = lambda req: (200, {"Content-Encoding": "gzip"}, bomb)
    cfg = config({"m": local_model(fake_openai.base_url, retries=0, concurrency=2)})
    run_id = _run(qs_db, cfg, limit=2)
    tracemalloc.start()
    try:
        prog = execute_run(qs_db, run_id, cfg)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert prog.status == "unscored" and prog.errors == 2
    rows = _outputs(qs_db, run_id)
    assert all("after decompression" in r["error"] for r in rows), rows
    # two requests in flight, each held to the cap (plus one zlib step), never 256 MiB
    assert peak < 3 * MAX_BODY_BYTES + 16 * 2**20, peak


def test_cause2_decoder_output_per_step_is_bounded() -> None:
    dec = BodyDecoder("gzip", limit=1000)
    with pytest.raises(Exception, match="after decompression"):
        dec.feed(gzip.compress(b"x" * 10**7))
    assert dec.total <= 1001


def test_cause2_and_5_judge_and_generator_replies_are_capped(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    from qcstation.common.config import ModelConfig

    db = tmp_path / "j.db"
    client = LLMClient(ModelConfig(model="fake-model", base_url=fake_openai.base_url, retries=0,
                                   timeout_s=20), db)
    fake_openai.raw(_bomb(256), headers={"Content-Encoding": "gzip"})
    tracemalloc.start()
    try:
        with pytest.raises(LLMCallError, match="after decompression"):
            client.chat_sync([{"role": "user", "content": "judge this"}])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * MAX_BODY_BYTES + 16 * 2**20, peak
    fake_openai.raw(gzip.compress(b"x" * (64 * 2**20)), status=500, headers={"Content-Encoding": "gzip"})
    with pytest.raises(LLMCallError):                    # an error body is cut, not inflated
        client.chat_sync([{"role": "user", "content": "error body"}])
    fake_openai.reply("y" * (5 * 2**20))                 # 5 MB: under the byte cap, cut as text
    res = client.chat_sync([{"role": "user", "content": "long"}])
    assert len(res.text) < MAX_REPLY_CHARS + 100 and "reply cut" in res.text
    with Store(db) as s:
        biggest = s.scalar("SELECT MAX(LENGTH(response)) FROM llm_cache")
    assert biggest < MAX_REPLY_CHARS + 1000


# -- 3. one bad reply is one bad row ---------------------------------------------------------

def _bad_replies(request: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    q = json.dumps(request["messages"])
    kind = sum(map(ord, q)) % 5
    ok: dict[str, Any] = {"choices": [{"message": {"content": "18"}, "finish_reason": "stop"}],
          "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
    if kind == 0:
        ok["choices"][0]["message"]["content"] = "\ud800 18"      # a lone surrogate
        return 200, {}, json.dumps(ok).encode()
    if kind == 1:
        ok["usage"] = {"prompt_tokens": 2**80, "completion_tokens": -5}
        return 200, {}, json.dumps(ok).encode()
    if kind == 2:
        return 200, {}, b"[" * 100_000 + b"]" * 100_000              # nested 100,000 deep
    if kind == 3:
        return 200, {}, b'{"choices": [{"message": {"content": "\xff\xfe 18"}}]}'   # not UTF-8
    return 200, {}, json.dumps(ok).encode()


def test_cause3_bad_replies_are_bad_rows_the_run_goes_on_and_resume_asks_nothing(
        qs_db: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.raw_responder = _bad_replies
    cfg = config({"m": local_model(fake_openai.base_url, retries=0, price_in_per_mtok=1.0,
                                   price_out_per_mtok=2.0)})
    run_id = _run(qs_db, cfg, limit=25, tasks=("final", "arithmetic"))
    prog = execute_run(qs_db, run_id, cfg, live_score=True)
    assert prog.status == "unscored" and prog.done == prog.total == 50
    rows = _outputs(qs_db, run_id)
    assert len(rows) == 50
    text = " ".join(r["response"] or "" for r in rows)
    assert "\ufffd 18" in text and "\ud800" not in text
    notes = [r for r in rows if r["status"] == "ok" and r["error"]]
    assert notes and all("dropped" in r["error"] and r["prompt_tokens"] is None for r in notes)
    errors = " ".join(r["error"] for r in rows if r["status"] == "error")
    assert "nested too deep" in errors and "not UTF-8" in errors
    asked = len(fake_openai.chat_requests)
    again = execute_run(qs_db, run_id, cfg)
    assert again.status == "unscored" and len(fake_openai.chat_requests) == asked   # nothing repeated


def test_cause3_the_judge_and_generator_client_takes_the_same_replies(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    from qcstation.common.config import ModelConfig

    client = LLMClient(ModelConfig(model="fake-model", base_url=fake_openai.base_url, retries=0,
                                   price_in_per_mtok=1.0), tmp_path / "g.db")
    fake_openai.body({"choices": [{"message": {"content": "a\ud800b"}, "finish_reason": HOSTILE}],
                      "model": f"m{TITLE}", "usage": {"prompt_tokens": 2**80, "completion_tokens": 1}})
    res = client.chat_sync([{"role": "user", "content": "one"}])
    assert res.text == "a\ufffdb" and res.prompt_tokens is None and res.completion_tokens == 1
    assert "\x1b" not in (res.finish_reason or "") and "\x1b" not in res.model
    fake_openai.raw(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(LLMCallError, match="nested too deep"):
        client.chat_sync([{"role": "user", "content": "two"}])
    fake_openai.raw(b'{"choices": [{"message": {"content": "\xff"}}]}')
    with pytest.raises(LLMCallError, match="not UTF-8"):
        client.chat_sync([{"role": "user", "content": "three"}])


def test_cause3_import_batch_stores_bad_lines_as_rows_or_problems(qs_db: Path, tmp_path: Path) -> None:
    from qcstation.eval.backends.batch import read_batch_output
    from qcstation.eval.outputs import pending_requests, store_replies

    cfg = config({"m": local_model("http://127.0.0.1:9/v1")})
    run_id = _run(qs_db, cfg, limit=3)
    with Store(qs_db) as s:
        reqs = list(pending_requests(s, run_id))
    lines = []
    for i, r in enumerate(reqs):
        body = {"choices": [{"message": {"content": ["\ud800 18", "18", "x"][i]}, "finish_reason": HOSTILE}],
                "usage": {"prompt_tokens": [1, 2**80, 1][i], "completion_tokens": 1}}
        lines.append(json.dumps({"custom_id": r.custom_id, "response": {"status_code": 200, "body": body}}))
    lines.insert(1, "[" * 50_000 + "]" * 50_000)
    out = tmp_path / "out.jsonl"
    out.write_text("\n".join(lines) + "\n")
    problems: list[str] = []
    with Store(qs_db) as s:
        counts = store_replies(s, run_id, read_batch_output(out, problems=problems))
    assert counts["stored"] == 3 and problems and "nested too deeply" in problems[0]
    rows = _outputs(qs_db, run_id)
    assert "\ufffd 18" in [r["response"] for r in rows]
    assert all("\x1b" not in (r["finish_reason"] or "") for r in rows)
    assert any(r["error"] and "dropped" in r["error"] for r in rows)


# -- 4. storing never waits on scoring; a live run is never taken over --------------------------

def test_cause4_outputs_are_stored_while_slow_scoring_goes_on(qs_db: Path, fake_openai: FakeOpenAI,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from qcstation.eval import scorers

    frozen: list[int] = []
    started = threading.Event()
    start = live_scoring.LiveScoring._start_worker

    def start_then_freeze(self: Any) -> None:      # a scorer that never gets to score
        start(self)
        os.kill(self._proc.pid, signal.SIGSTOP)
        frozen.append(self._proc.pid)
        started.set()

    monkeypatch.setattr(live_scoring.LiveScoring, "_start_worker", start_then_freeze)
    monkeypatch.setattr(runner, "LIVE_DRAIN_S", 0.5)
    # an answer only the math-verify workers decide (the frozen scorer's, then the pass's), and
    # quickly: the scoring pass below checks all 40 (10^{10^{10}}, once needed by a scorer
    # slowed by sleeping, made each of them run out its CPU limit: minutes under load). The
    # first 5 are answered at once, the rest once the scorer has started (with the first stored
    # answer) and is frozen: a run that ended first would start no scorer on a slow machine.
    answered = itertools.count()
    fake_openai.responder = lambda req: (next(answered) < 5 or started.wait(600), "\\boxed{\\sqrt{100}}")[1]
    cfg = config({"m": local_model(fake_openai.base_url)})
    run_id = _run(qs_db, cfg, limit=20)
    box: dict[str, Any] = {}
    t = threading.Thread(target=lambda: box.update(p=execute_run(qs_db, run_id, cfg, live_score=True)),
                         daemon=True)
    t.start()
    t.join(600)          # a guard, not a pace: waiting on the frozen scorer would never end
    assert not t.is_alive(), "storing waited on the frozen scorer"
    prog = box["p"]
    assert prog.status == "unscored" and len(_outputs(qs_db, run_id)) == 20
    assert frozen and not os.path.exists(f"/proc/{frozen[0]}")    # stopped, not left behind
    with Store(qs_db) as s:
        assert s.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ?", (run_id,)) == 0
    rest = scorers.score_run(qs_db, run_id, cfg, only_missing=True)   # the pass scores it all
    assert rest.scored == 40 and sum(rest.counts["fi"].values()) == 20


def test_cause4_the_heartbeat_beats_on_its_own_timer(qs_db: Path, fake_openai: FakeOpenAI,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "HEARTBEAT_S", 0.2)
    release = threading.Event()               # nothing arrives for the writer to store until the
    fake_openai.responder = lambda req: (release.wait(600), "42")[1]   # test has seen the beats
    cfg = config({"m": local_model(fake_openai.base_url, concurrency=1, timeout_s=300)})
    run_id = _run(qs_db, cfg, limit=1)
    beats: list[str] = []
    t = threading.Thread(target=execute_run, args=(qs_db, run_id, cfg), daemon=True)
    t.start()
    deadline = time.monotonic() + 300          # polled, however slow the machine is
    while len(beats) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
        with Store(qs_db) as s:
            hb = s.scalar("SELECT heartbeat_at FROM eval_runs WHERE id = ?", (run_id,))
        if hb and hb not in beats:
            beats.append(hb)
    release.set()
    t.join(300)
    assert len(beats) >= 3, beats
    assert len(fake_openai.chat_requests) == 1     # all of them while the one request was unanswered


def test_cause4_resume_refuses_a_run_whose_owner_is_alive(qs_db: Path) -> None:
    cfg = config({"m": local_model("http://127.0.0.1:9/v1")})
    run_id = _run(qs_db, cfg)
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])   # killed below
    try:
        with Store(qs_db) as s, s.transaction():    # alive, but silent for an hour
            s.execute("UPDATE eval_runs SET status = 'running', owner = ?, heartbeat_at = "
                      "'2020-01-01T00:00:00.000000Z' WHERE id = ?",
                      (f"{socket.gethostname()}:{owner.pid}", run_id))
        with Store(qs_db) as s:
            with pytest.raises(EvalError, match="is being run by"):
                take_lease(s, run_id)
            assert get_run(s, run_id).status == "running"
    finally:
        owner.kill()
        owner.wait()
    with Store(qs_db) as s:                          # its owner gone: stopped, and resumable
        assert get_run(s, run_id).status == "stopped"
        take_lease(s, run_id)


# -- 5. refuse early, stop fast, say what happened ---------------------------------------------

def test_cause9_unset_key_variable_and_unreachable_server_are_refused_before_start(
        qs_db: Path, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    cfg_file = _cfg_file(tmp_path, fake_openai.base_url, api_key_env="QC_TEST_UNSET_KEY")
    with Store(qs_db) as s:
        before = s.scalar("SELECT COUNT(*) FROM eval_runs")
    proc = _cli(qs_db, cfg_file, "eval", "run", "--model", "m", "--limit", "2", "-q", "--working-set")
    assert proc.returncode != 0 and "QC_TEST_UNSET_KEY is not set" in proc.stderr, proc.stderr
    check = _cli(qs_db, cfg_file, "config", "--check")
    assert check.returncode != 0 and "QC_TEST_UNSET_KEY is not set" in check.stdout
    with socket.socket() as sock:                    # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    cfg_dead = _cfg_file(tmp_path, f"http://127.0.0.1:{dead}/v1")
    proc = _cli(qs_db, cfg_dead, "eval", "run", "--model", "m", "--limit", "2", "-q", "--working-set")
    assert proc.returncode != 0 and "cannot reach" in proc.stderr, proc.stderr
    with Store(qs_db) as s:
        assert s.scalar("SELECT COUNT(*) FROM eval_runs") == before     # no run left behind
    assert not fake_openai.chat_requests
    # resume refuses the same way (a run made while the server was up)
    cfg = config({"m": local_model(f"http://127.0.0.1:{dead}/v1")})
    run_id = _run(qs_db, cfg)
    with pytest.raises(EvalError, match="not started: cannot reach"):
        execute_run(qs_db, run_id, cfg)


def test_cause10_cancel_stops_within_2s_hanging_server_and_backoff(qs_db: Path, fake_openai: FakeOpenAI) -> None:
    # the server hangs an hour / asks for 3,000 s, so a run not ended by the cancel would take
    # far longer than the 300 s allowed below: a bound no busy machine reaches
    for _ in range(8):
        fake_openai.hang()
    cfg = config({"m": local_model(fake_openai.base_url, timeout_s=3600, retries=4, concurrency=4)})
    for attack in ("hang", "backoff"):
        in_flight = 4                     # the cancel comes once the run is waiting on the server
        if attack == "backoff":
            fake_openai.reset()
            for _ in range(40):
                fake_openai.status(503, retry_after=3000)
            cfg = config({"m": local_model(fake_openai.base_url, retries=10, max_backoff_s=3600)})
            in_flight = 1
        run_id = _run(qs_db, cfg, limit=8)
        cancel = threading.Event()
        box: dict[str, Any] = {}
        t = threading.Thread(target=lambda: box.update(p=execute_run(qs_db, run_id, cfg, cancel=cancel)),  # noqa: B023
                             daemon=True)  # (joined within this iteration)
        t.start()
        deadline = time.monotonic() + 300      # polled, however slow the machine is
        while len(fake_openai.chat_requests) < in_flight and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(fake_openai.chat_requests) >= in_flight, attack
        t0 = time.monotonic()
        cancel.set()
        t.join(300)  # the server hangs 3,600 s / asks for 3,000 s: only the cancel ends the run sooner
        assert not t.is_alive() and time.monotonic() - t0 < 300, attack
        assert box["p"].status == "interrupted"


def test_cause10_ctrl_c_on_the_cli_stops_within_2s(qs_db: Path, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    for _ in range(20):
        fake_openai.hang()
    cfg_file = _cfg_file(tmp_path, fake_openai.base_url, timeout_s=3600)   # only the Ctrl-C ends a request
    proc = subprocess.Popen([sys.executable, "-m", "qcstation", "--db", str(qs_db), "--config", str(cfg_file),
                             "eval", "run", "--model", "m", "--limit", "4", "--tasks", "final", "--shots", "0",
                             "--working-set"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # Ctrl-C as in a terminal, even when the test runner was started
                            # in the background by a shell (SIGINT ignored, and inherited)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while len(fake_openai.chat_requests) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(fake_openai.chat_requests) == 4      # the 4 requests hang in flight
    told = threading.Event()
    lines: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "eval resume" in line:
                told.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    # the stop itself: from the signal until the run is recorded as stopped and the
    # command says how to resume (the interpreter's own exit after that is not timed)
    assert told.wait(300), lines                   # the requests hang for an hour, the client's
    assert time.monotonic() - t0 < 300              # timeout is an hour: only the Ctrl-C ends them
    assert proc.wait(timeout=300) == 130
    reader.join(300)
    err = "".join(lines)
    assert "interrupted" in err and "eval resume" in err, err
    with Store(qs_db) as s:
        assert s.scalar("SELECT status FROM eval_runs ORDER BY id DESC LIMIT 1") == "interrupted"


def test_cause11_a_lock_taken_mid_run_says_what_was_stored_and_leaves_it_stopped(
        qs_db: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QCSTATION_BUSY_TIMEOUT", "1.5")
    fake_openai.default_delay = 0.05
    # the first 7 requests are answered; the rest wait until the lock is taken, so the lock
    # lands mid-run however slowly the locker polls (on a busy machine the run could
    # otherwise end before it)
    locked = threading.Event()
    answered = itertools.count()
    fake_openai.responder = lambda req: (next(answered) < 7 or locked.wait(120), default_responder(req))[1]
    cfg = config({"m": local_model(fake_openai.base_url, concurrency=2)})
    run_id = _run(qs_db, cfg, limit=40)
    locker: dict[str, Any] = {}

    def lock_when_some_are_stored() -> None:
        while True:
            with Store(qs_db) as s:
                if s.scalar("SELECT COUNT(*) FROM eval_outputs WHERE run_id = ?", (run_id,)) >= 5:
                    break
            time.sleep(0.05)
        import sqlite3

        conn = sqlite3.connect(qs_db, isolation_level=None, check_same_thread=False)
        conn.execute("BEGIN EXCLUSIVE")
        locker["conn"] = conn
        locked.set()

    t = threading.Thread(target=lock_when_some_are_stored, daemon=True)
    t.start()
    with pytest.raises(EvalError) as err:
        execute_run(qs_db, run_id, cfg)
    locker["conn"].rollback()
    locker["conn"].close()
    message = str(err.value)
    stored = len(_outputs(qs_db, run_id))
    assert "nothing was changed" not in message
    assert f"{stored:,} of 40 requests of the run have a stored output" in message, message
    assert f"qcstation eval resume {run_id}" in message
    # the lock gone, the run's end is written: polled, however slow the machine is, and
    # with the default busy wait (the short one above is only for the lock held forever)
    monkeypatch.delenv("QCSTATION_BUSY_TIMEOUT")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with Store(qs_db) as s:
            status = get_run(s, run_id).status
        if status == "stopped":
            break
        time.sleep(0.2)
    assert status == "stopped"
    prog = execute_run(qs_db, run_id, cfg)            # and it continues exactly
    assert prog.status == "unscored" and len(_outputs(qs_db, run_id)) == 40


# -- 6 and 14: the cache keeps replies cut; the key is scrubbed everywhere ------------------------

def test_cause6_and_14_cache_is_cut_and_an_echoed_key_is_stored_nowhere(
        qs_db: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QC_TEST_KEY", KEY)
    fake_openai.responder = lambda req: f"my key is {KEY}; " + "z" * (MAX_STORED_CHARS + 500_000)
    cfg = config({"m": local_model(fake_openai.base_url, api_key_env="QC_TEST_KEY")},
                 judges=[{"model": "fake-model", "base_url": fake_openai.base_url, "api_key_env": "QC_TEST_KEY",
                          "retries": 0}])
    run_id = _run(qs_db, cfg, limit=2)
    execute_run(qs_db, run_id, cfg)
    assert fake_openai.chat_requests[0].authorization == f"Bearer {KEY}"
    client = LLMClient(cfg.judges[0], qs_db)
    fake_openai.reply(f"score 90 {KEY}")
    assert KEY not in client.chat_sync([{"role": "user", "content": "judge"}]).text
    with Store(qs_db) as s:
        biggest = s.scalar("SELECT MAX(LENGTH(response)) FROM llm_cache")
        assert biggest < MAX_STORED_CHARS + 1000
        for table in ("eval_outputs", "llm_cache", "llm_calls", "eval_runs", "events"):
            dump = json.dumps(s.query(f"SELECT * FROM {table}"))
            assert KEY not in dump, table
    assert KEY.encode() not in qs_db.read_bytes()


# -- 12. export refuses a symlink anywhere on the output path ----------------------------------

def test_cause12_export_refuses_a_link_higher_up_the_path(tmp_path: Path) -> None:
    from exports.writers import ExportPathError, write_release_dir

    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "linkparent").symlink_to(real)
    with pytest.raises(ExportPathError, match="symbolic link"):
        write_release_dir(tmp_path / "linkparent" / "deeper", "smart", "1.0.0", {"a.json": b"{}"})
    with pytest.raises(ExportPathError, match="symbolic link"):
        write_release_dir(tmp_path / "linkparent", "smart", "1.0.0", {"a.json": b"{}"})
    assert not any(real.rglob("*"))
    out = write_release_dir(tmp_path / "plain" / "deeper", "smart", "1.0.0", {"a.json": b"{}"})
    assert (out / "a.json").read_bytes() == b"{}"
    from qcstation.eval.backends.batch import BatchFileError, write_batch
    from qcstation.eval.types import EvalRequest

    req = EvalRequest(1, 1, "final", 0, ({"role": "user", "content": "x"},), 0.0, 16, "h")
    with pytest.raises(BatchFileError, match="symbolic link"):
        write_batch([req], tmp_path / "linkparent" / "deeper" / "in.jsonl", model="m")
    assert not any(real.rglob("*"))


def test_cause4_a_run_ending_while_the_scoring_worker_starts_does_not_wait_for_it(
        qs_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C right at the start: the stop does not wait for the worker's start (a fork
    server's first start takes seconds on a loaded machine); the worker started after is
    stopped at once by its thread, never left behind."""
    start = live_scoring.LiveScoring._start_worker

    entered, release = threading.Event(), threading.Event()

    def slow_start(self: Any) -> None:             # held until the test lets it go: no race
        entered.set()
        release.wait(600)
        start(self)

    monkeypatch.setattr(live_scoring.LiveScoring, "_start_worker", slow_start)
    live = live_scoring.LiveScoring(qs_db, 1, {})
    live.put([(1, "final", 0, "The answer is 1.")])   # a first batch: the worker starts
    live.start()
    assert entered.wait(300)
    closer = threading.Thread(target=live.close, args=(0.0,), daemon=True)
    closer.start()
    closer.join(300)                               # the start is held for 600 s
    assert not closer.is_alive()                   # the stop did not wait for it
    release.set()
    live.join(300)
    assert not live.is_alive() and live._proc is not None and not live._proc.is_alive()
