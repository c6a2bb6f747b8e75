"""Issue 30: memory bounded per process on the judge/generator client, one secret scrubber
for every reply field on every path, duplicate keys refused in replies and batch files.
Against the loopback OpenAI-protocol server of the tests, real SQLite files, the real CLI."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import os
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.common import redact
from qcstation.common.config import ModelConfig
from qcstation.common.http_retry import MAX_BODY_BYTES, BadReply, excerpt, load_json_reply
from qcstation.core.construct.make.llm import LLMCallError, LLMClient
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import create_run
from tests.eval_helpers import config, copy_db, local_model, quickstart_db
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401
from tests.must import must

pytest.importorskip("qcstation.eval.checker")

KEY = "sk-harden-SECRET-0123456789abcdef"
#: the key as a hostile server can spell it inside a JSON string: every character escaped
ESCAPED = "".join(f"\\u{ord(c):04x}" for c in KEY)


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def _dump(db: Path) -> bytes:
    with Store(db) as s:
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db.read_bytes()


# -- memory: a refused reply is freed when its request ends ----------------------------------------

def test_a_refused_reply_is_not_kept_by_the_error_returned(fake_openai: FakeOpenAI) -> None:
    bomb = gzip.compress(b'{"choices": [{"message": {"content": "' + b" " * (MAX_BODY_BYTES + 2**20)
                         + b'"}}]}', compresslevel=6)
    fake_openai.raw_responder = lambda req: (200, {"Content-Encoding": "gzip"}, bomb)
    client = LLMClient(ModelConfig(model="fake-model", base_url=fake_openai.base_url, retries=1,
                                   backoff_s=0.001, max_backoff_s=0.001, timeout_s=30, concurrency=2))

    async def go() -> list[Any]:
        try:
            return await client.chat_many([[{"role": "user", "content": f"judge {i}"}] for i in range(4)])
        finally:
            await client.aclose()

    tracemalloc.start()
    try:
        results = asyncio.run(go())
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(isinstance(r, LLMCallError) and "after decompression" in str(r) for r in results), results
    # the errors say why; they keep no frame, no chain, and with them no buffer of the reply
    assert all(r.__traceback__ is None and r.__context__ is None and r.__cause__ is None for r in results)
    assert held < MAX_BODY_BYTES // 2, f"{held / 2**20:.0f} MiB still held by 4 refused replies"


# -- secrets: one scrubber on the way in -------------------------------------------------------------

def test_the_scrubber_reads_every_string_of_a_reply_and_cuts_after_scrubbing() -> None:
    redact.register(KEY)
    raw = (f'{{"model": "{ESCAPED}", "{KEY}": ["a {KEY} b", {{"usage": "{KEY}{KEY}"}}], '
           f'"n": 3}}').encode()
    body = load_json_reply(raw)
    assert KEY not in json.dumps(body), body
    assert body["model"] == redact.MARK and body[redact.MARK][0] == f"a {redact.MARK} b"
    assert body[redact.MARK][1]["usage"] == redact.MARK * 2 and body["n"] == 3
    # an excerpt cut in the middle of the key keeps none of it
    text = "x" * 50 + KEY + "y" * 50
    assert excerpt(text, 60) == "x" * 50 + redact.MARK + "y" * 5
    # nothing to scrub: the very same objects come back
    plain = b'{"choices": [{"message": {"content": "18"}}]}'
    assert not redact.may_hold(plain)


#: the key as a hostile server can disguise it: upper-cased, a zero-width space or a soft hyphen
#: between characters, split by a line break, spaced out with no-break spaces
DISGUISED = (KEY.upper(), "\u200b".join(KEY), KEY[:10] + "\u00ad" + KEY[10:], KEY[:12] + "\n" + KEY[12:],
             "\u00a0".join(KEY), KEY[:5] + "\ufeff\u202e" + KEY[5:].swapcase())


def _shown(text: str) -> str:
    """What a reader sees of ``text``: no whitespace or invisible characters, in one case."""
    return re.sub(r"[\s\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]", "", text).casefold()


def test_a_key_disguised_by_the_server_is_scrubbed_as_the_key(qs_db: Path,
                                                              fake_openai: FakeOpenAI) -> None:
    """attack6 stored the key as it came when a server upper-cased it, put a zero-width space
    in it or split it with a line break: the scrubber matched the exact text only, and the
    quick test on the raw body let such replies through unread."""
    redact.register(KEY)
    for d in DISGUISED:
        for raw in (json.dumps({"m": f"a {d} b"}, ensure_ascii=False).encode(),
                    json.dumps({"m": f"a {d} b"}).encode()):
            assert redact.may_hold(raw), raw
            body = load_json_reply(raw)
            assert _shown(KEY) not in _shown(json.dumps(body, ensure_ascii=False)), body
            assert body["m"] == f"a {redact.MARK} b", body
        assert redact.scrub(f"x{d}y") == f"x{redact.MARK}y"
    # ordinary text and a different key of the same shape are left alone (one that shares half
    # the key's characters in a row is that half of the key: scrubbed, test_secret_spellings)
    other = "sk-harden-OTHER-a1b2c3d4e5f6a7b8X"
    for text in (f"18 {other}", "The answer is 18.", "sk harden secret"):
        assert redact.scrub(text) == text
    assert not redact.may_hold(b'{"choices": [{"message": {"content": "18"}}]}')
    # end to end: a run whose server echoes the key disguised stores none of it
    fake_openai.hostile(text="18 " + " | ".join(DISGUISED), model=DISGUISED[1],
                        finish_reason=DISGUISED[3])
    cfg = config({"m": local_model(fake_openai.base_url, retries=0)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=2)
    execute_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        stored = json.dumps(s.query("SELECT response, error, finish_reason FROM eval_outputs "
                                    "WHERE run_id = ?", (run_id,)), ensure_ascii=False)
    assert redact.MARK in stored and _shown(KEY) not in _shown(stored), stored


def test_a_key_echoed_in_any_reply_field_is_stored_logged_and_printed_nowhere(
        qs_db: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    from qcstation.eval.outputs import pending_requests

    monkeypatch.setenv("QC_HARDEN_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    fake_openai.hostile(text=f"18 {KEY}", finish_reason=KEY, model=KEY,
                        usage={"prompt_tokens": KEY, "completion_tokens": f"many {KEY}"},
                        extra={"system_fingerprint": KEY})
    judge = {"model": "fake-model", "base_url": fake_openai.base_url, "api_key_env": "QC_HARDEN_KEY",
             "retries": 0}
    cfg = config({"m": local_model(fake_openai.base_url, api_key_env="QC_HARDEN_KEY", retries=0)},
                 judges=[judge])
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=3)
    execute_run(qs_db, run_id, cfg)                                      # evaluation backend
    client = LLMClient(cfg.judges[0], qs_db, purpose="eval-judge")        # judge / generator client
    res = client.chat_sync([{"role": "user", "content": "judge"}])
    assert KEY not in f"{res.text} {res.model} {res.finish_reason}"
    fake_openai.raw(('{"choices": [{"message": {"content": "' + ESCAPED + '"}, "finish_reason": "'
                     + ESCAPED + '"}], "model": "' + ESCAPED + '"}').encode())
    res = client.chat_sync([{"role": "user", "content": "escaped"}])
    assert KEY not in f"{res.text} {res.model} {res.finish_reason}" and redact.MARK in res.text
    for status in (400, 500):       # an error's words, cut at 300 characters mid-key
        fake_openai.body({"error": {"message": "e" * 290 + KEY}}, status=status)
        with pytest.raises(LLMCallError) as info:
            client.chat_sync([{"role": "user", "content": f"error {status}"}], use_cache=False)
        assert KEY[:6] not in str(info.value).replace("sk-no-key", ""), str(info.value)
    # batch import: a result line with the key in every field, imported by the CLI
    with Store(qs_db) as s:
        run2 = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=2)
        reqs = list(pending_requests(s, run2))
    lines = [json.dumps({"id": KEY, "custom_id": reqs[0].custom_id, "response": {
        "status_code": 200, "request_id": KEY, "body": {
            "model": KEY, "choices": [{"message": {"content": f"18 {KEY}"}, "finish_reason": KEY}],
            "usage": {"prompt_tokens": KEY, "completion_tokens": 1}}}}),
        json.dumps({"custom_id": reqs[1].custom_id, "response": {"status_code": 500, "body": {
            "error": {"message": KEY, "code": KEY}}}, "error": {"message": f"failed {KEY}", "code": KEY}})]
    out = tmp_path / "out.jsonl"
    out.write_text("\n".join(lines) + "\n")
    cfg_file = tmp_path / "qcstation.toml"
    cfg_file.write_text(f'[models.m]\nmodel = "fake-model"\nbase_url = "{fake_openai.base_url}"\n'
                        'api_key_env = "QC_HARDEN_KEY"\n')
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "--config", str(cfg_file),
                           "eval", "import-batch", str(run2), str(out)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "QC_HARDEN_KEY": KEY})
    assert proc.returncode == 0, proc.stderr
    show = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "--config", str(cfg_file),
                           "eval", "show", str(run_id)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "QC_HARDEN_KEY": KEY})
    assert KEY not in proc.stdout + proc.stderr + show.stdout + show.stderr
    assert KEY not in caplog.text, caplog.text
    with Store(qs_db) as s:
        stored = s.query("SELECT response, error, finish_reason FROM eval_outputs WHERE run_id = ?",
                         (run2,))
    assert len(stored) == 2 and redact.MARK in json.dumps(stored)
    assert KEY.encode() not in _dump(qs_db)


# -- duplicate keys: an error on every path ------------------------------------------------------------

def test_a_reply_with_a_key_twice_is_refused() -> None:
    with pytest.raises(BadReply, match="'content' appears twice"):
        load_json_reply(b'{"choices": [{"message": {"content": "18", "content": "19"}}]}')


def test_import_batch_refuses_a_line_with_two_custom_ids(qs_db: Path, tmp_path: Path) -> None:
    from qcstation.eval.backends.batch import read_batch_output
    from qcstation.eval.outputs import pending_requests

    cfg = config({"m": local_model("http://127.0.0.1:9/v1")})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=2)
        a, b = [r.custom_id for r in pending_requests(s, run_id)][:2]
    ok = {"status_code": 200, "body": {"choices": [{"message": {"content": "18"}}]}}
    two = json.dumps({"custom_id": a, "response": ok})[:-1] + f', "custom_id": "{b}"}}'
    inner = json.dumps({"custom_id": a, "response": {"status_code": 200, "body": {
        "choices": [{"message": {"content": "18"}}], "usage": {"prompt_tokens": 1}}}}).replace(
        '"prompt_tokens": 1', '"prompt_tokens": 1, "prompt_tokens": 2')
    out = tmp_path / "out.jsonl"
    out.write_text(two + "\n" + inner + "\n")
    problems: list[str] = []
    got = list(read_batch_output(out, problems=problems))
    assert got == [] and len(problems) == 2, (got, problems)
    assert "'custom_id' appears twice" in problems[0] and ":1:" in problems[0]
    assert "'prompt_tokens' appears twice" in problems[1] and ":2:" in problems[1]


# -- figures that cannot be computed are shown as such ------------------------------------------------

def test_llm_un_without_a_judge_is_not_computed_never_0(qs_db: Path, fake_openai: FakeOpenAI) -> None:
    from qcstation.eval import browse, metrics
    from qcstation.eval.scorers import score_run

    fake_openai.responder = lambda req: "Problem Scenario: x\nGoal: y"
    for _ in range(3):                      # some requests fail: their rows count 0 where judged
        fake_openai.status(400, message="bad request")
    cfg = config({"m": local_model(fake_openai.base_url, retries=0, concurrency=1)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["understanding"], shots=0, limit=6)
    execute_run(qs_db, run_id, cfg)
    score_run(qs_db, run_id, cfg)
    with Store(qs_db) as s:
        un = metrics.run_metrics(s, run_id).values["un"]
        head = browse.headline(s, run_id)["un"]
        head2 = browse.headline(s, run_id, from_scratch=True)["un"]
        verdicts = {r["verdict"]: r["n"] for r in s.query(
            "SELECT verdict, COUNT(*) AS n FROM eval_scores WHERE run_id = ? AND metric = 'un' "
            "GROUP BY verdict", (run_id,))}
    assert verdicts == {"error": 3, "not_scored": 3}, verdicts      # 0 over the failed ones alone
    assert un.value is None and un.lo is None and "no judge configured" in must(un.note), un
    assert head.value is None and head.n == 0 and head2.value is None


def test_an_accuracy_made_of_failed_requests_only_is_not_computed_never_0(
        qs_db: Path, fake_openai: FakeOpenAI) -> None:
    # lane attack5: a batch of HTTP 500s (or a server down for a whole run) showed
    # 'ACC@Fi 0.0% [0.0, 43.4]' on 5 items: a figure made of the server's failures alone
    from qcstation.eval import browse, metrics
    from qcstation.eval.scorers import score_run

    cfg = config({"m": local_model(fake_openai.base_url, retries=0, concurrency=1)})
    with Store(qs_db) as s:
        failed_run = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=4)
    for _ in range(4):
        fake_openai.status(500, message="down")
    execute_run(qs_db, failed_run, cfg)
    fake_openai.responder = lambda req: "The answer is 1."
    for _ in range(2):
        fake_openai.status(500, message="down")
    cfg2 = config({"m2": local_model(fake_openai.base_url, retries=0, concurrency=1, model="other")})
    with Store(qs_db) as s:
        half_run = create_run(s, cfg2, model="m2", tasks=["final"], shots=0, limit=4)
    execute_run(qs_db, half_run, cfg2)
    score_run(qs_db, failed_run, cfg)
    score_run(qs_db, half_run, cfg2)
    with Store(qs_db) as s:
        fi = metrics.run_metrics(s, failed_run).values["fi"]
        half = metrics.run_metrics(s, half_run).values["fi"]
        verdicts = {r["verdict"] for r in s.query(
            "SELECT verdict FROM eval_scores WHERE run_id = ? AND metric = 'fi'", (failed_run,))}
    assert verdicts == {"error"}
    assert fi.value is None and fi.n == 0 and "every request failed" in must(fi.note), fi
    assert half.value == 0.0 and half.n == 4          # a reply stands behind it: failures count wrong
    out = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "eval", "leaderboard",
                          str(failed_run)], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if line.startswith(f"{failed_run} "))
    assert "0.0" not in row and "every request failed" in out.stdout and "no scores yet" not in out.stdout
    with Store(qs_db) as s:
        head = browse.headline(s, failed_run).get("fi")
    assert head is None or head.value is None, head


def test_cost_without_token_counts_is_unknown_and_counts_are_bounded_by_the_request(
        qs_db: Path, fake_openai: FakeOpenAI) -> None:
    priced = {"price_in_per_mtok": 1.0, "price_out_per_mtok": 2.0, "retries": 0, "concurrency": 1}
    cfg = config({"m": local_model(fake_openai.base_url, max_tokens=64, **priced),
                  "m2": local_model(fake_openai.base_url, max_tokens=64, model="other", **priced)})
    fake_openai.hostile(text="18", usage={})                                   # no usage at all
    with Store(qs_db) as s:
        run_a = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=2)
    execute_run(qs_db, run_a, cfg)
    fake_openai.hostile(text="18", usage={"prompt_tokens": 10**7, "completion_tokens": 2**53})
    with Store(qs_db) as s:
        run_b = create_run(s, cfg, model="m2", tasks=["final"], shots=0, limit=2)
    execute_run(qs_db, run_b, cfg)
    with Store(qs_db) as s:
        a = s.query("SELECT status, cost, prompt_tokens, completion_tokens FROM eval_outputs WHERE run_id = ?",
                    (run_a,))
        b = s.query("SELECT status, cost, prompt_tokens, completion_tokens, error FROM eval_outputs "
                    "WHERE run_id = ?", (run_b,))
    assert [r["status"] for r in a + b] == ["ok"] * 4
    assert all(r["cost"] is None and r["prompt_tokens"] is None for r in a + b), (a, b)
    assert all(r["completion_tokens"] is None and "more than this request can hold" in (r["error"] or "") for r in b), b
    # the judge/generator client: the same rules
    client = LLMClient(ModelConfig(model="fake-model", base_url=fake_openai.base_url, retries=0,
                                   max_tokens=64, price_in_per_mtok=1.0, price_out_per_mtok=2.0))
    res = client.chat_sync([{"role": "user", "content": "q"}])
    assert res.completion_tokens is None and res.prompt_tokens is None and res.cost is None
    fake_openai.hostile(text="18", usage={"prompt_tokens": 12, "completion_tokens": 3})
    res = client.chat_sync([{"role": "user", "content": "q2"}])
    assert (res.prompt_tokens, res.completion_tokens) == (12, 3) and res.cost == pytest.approx(18e-6)


def _run_and_cli(qs_db: Path, base_url: str, tmp_path: Path) -> tuple[Any, int, Any]:
    """A 3-item run of model m on the loopback server, and the CLI on its database and a
    config file naming the same model: (config, run id, cli(*args))."""
    cfg = config({"m": local_model(base_url)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=3)
    cfg_file = tmp_path / "qcstation.toml"
    cfg_file.write_text(f'[models.m]\nmodel = "fake-model"\nbase_url = "{base_url}"\n')

    def cli(*verb: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "--config",
                               str(cfg_file), *verb], capture_output=True, text=True, timeout=300)
    return cfg, run_id, cli


def _while_scoring(monkeypatch: pytest.MonkeyPatch, qs_db: Path, run_id: int, cli: Any) -> dict[str, Any]:
    """While the scoring pass is under way: the run's status, and `eval score` / `eval resume`
    of the same run from other processes (filled in when the pass tallies)."""
    from qcstation.eval import scorers

    seen: dict[str, Any] = {}
    tally = scorers._tally

    def while_scoring(*a: Any, **kw: Any) -> Any:
        with Store(qs_db) as s:
            seen["status"] = s.scalar("SELECT status FROM eval_runs WHERE id = ?", (run_id,))
        for verb in ("score", "resume"):
            seen[verb] = cli("eval", verb, str(run_id))
        return tally(*a, **kw)

    monkeypatch.setattr(scorers, "_tally", while_scoring)
    return seen


def test_a_run_is_done_only_once_scored_and_nobody_scores_it_beside(
        qs_db: Path, fake_openai: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from qcstation.eval.evaluate import run_and_score

    cfg, run_id, cli = _run_and_cli(qs_db, fake_openai.base_url, tmp_path)
    seen = _while_scoring(monkeypatch, qs_db, run_id, cli)
    outcome = run_and_score(qs_db, run_id, cfg)
    assert seen["status"] == "running"
    for verb in ("score", "resume"):
        assert seen[verb].returncode != 0 and "being run" in seen[verb].stderr, seen[verb].stderr
    with Store(qs_db) as s:
        row = must(s.one("SELECT status, owner FROM eval_runs WHERE id = ?", (run_id,)))
        n_scores = s.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ?", (run_id,))
    assert outcome.scores is not None and (row["status"], row["owner"]) == ("done", None)
    assert n_scores == 3 * len(outcome.scores.counts) or n_scores > 0


def test_an_unscored_run_is_scored_once_by_one_process(
        qs_db: Path, fake_openai: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `--no-score` marked the run `done` with no score (issue 30.5): it reads `unscored` now,
    # and `eval score` / `eval resume` beside the pass that scores it are refused
    from qcstation.eval import scorers

    cfg, run_id, cli = _run_and_cli(qs_db, fake_openai.base_url, tmp_path)

    answered = cli("eval", "resume", str(run_id), "--no-score", "-q")
    assert answered.returncode == 0, answered.stderr
    assert f"run {run_id}: unscored; 3/3 responses stored" in answered.stdout
    assert f"`qcstation eval score {run_id}` scores it" in answered.stdout
    with Store(qs_db) as s:
        assert s.scalar("SELECT status FROM eval_runs WHERE id = ?", (run_id,)) == "unscored"
        assert s.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ?", (run_id,)) == 0
    seen = _while_scoring(monkeypatch, qs_db, run_id, cli)
    summary = scorers.score_run(qs_db, run_id, cfg, only_missing=True)
    assert seen["status"] == "running"
    for verb in ("score", "resume"):
        assert seen[verb].returncode != 0 and "being run" in seen[verb].stderr, seen[verb].stderr
    with Store(qs_db) as s:
        row = must(s.one("SELECT status, owner FROM eval_runs WHERE id = ?", (run_id,)))
        n, distinct = must(s.one("SELECT COUNT(*) AS n, COUNT(DISTINCT seed_id || '/' || sample_idx || '/' "
                                 "|| metric) AS d FROM eval_scores WHERE run_id = ?", (run_id,))).values()
    assert (row["status"], row["owner"]) == ("done", None)
    assert summary.scored == n == distinct > 0       # each output scored once


def test_import_batch_stores_slices_bounded_in_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from qcstation.commands.eval import import_batch
    from qcstation.eval.types import EvalReply

    monkeypatch.setattr(import_batch, "_IMPORT_CHUNK_CHARS", 100)
    replies = [EvalReply(f"r{i}", "ok", text="z" * 40) for i in range(7)] + [EvalReply("e", "error", error="x" * 500)]
    sizes = [len(c) for c in import_batch._chunks(iter(replies))]
    assert sizes == [3, 3, 2] and sum(sizes) == len(replies)


def test_judge_replies_are_not_held_until_the_run_ends(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """attack8 saw the judges' memory climb over a long hostile run (232 -> 256 MB): every
    reply's text (up to MAX_REPLY_CHARS, 200,000 characters) was held until the judge's last
    request ended, and every prompt was made before the first was sent. Now a reply is read as
    it comes and only its entry (MAX_RAW_KEPT characters) is kept: the peak of 72 such replies
    at concurrency 2 is that of 12 (before: 12 MiB more, a text a reply)."""
    from qcstation.core.construct.make.llm import MAX_REPLY_CHARS
    from qcstation.eval import tasks as T
    from qcstation.eval.judging import MAX_RAW_KEPT, judge_outputs

    fake_openai.responder = lambda req: "z" * (MAX_REPLY_CHARS - 20) + "\nScore: 95"
    judge = {"model": "fake-model", "base_url": fake_openai.base_url, "retries": 0, "timeout_s": 60,
             "concurrency": 2}
    cfg = config(models={"m": {"model": "fake-model", "base_url": fake_openai.base_url}}, judges=[judge])
    tpl = T.load_template("judge_understanding", cfg)

    def peak(n: int, traced: bool = True) -> int:
        db = tmp_path / f"judged{n}.db"
        Store(db).close()
        records = [{"seed_id": i, "question": f"How many eggs, case {i}?", "key_information": "16 eggs"}
                   for i in range(n)]
        if traced:
            tracemalloc.start()
        try:
            out = judge_outputs(db, cfg, tpl, records, [f"answer {i}" for i in range(n)], [None] * n)
            top = tracemalloc.get_traced_memory()[1] if traced else 0
        finally:
            tracemalloc.stop()
        assert [v for v, *_ in out] == ["correct"] * n, out[:2]
        assert all(len(d["judges"][cfg.judges[0].name]["raw"]) <= MAX_RAW_KEPT + 10 for *_, d in out)
        return top

    peak(2, traced=False)          # what is made once (imports, the client's first connection)
    few, many = peak(12), peak(72)
    assert many - few < 20 * MAX_REPLY_CHARS, f"{few / 2**20:.1f} MiB for 12 replies, {many / 2**20:.1f} for 72"


def test_the_live_progress_and_the_response_cache_hold_token_counts_as_stored(
        qs_db: Path, fake_openai: FakeOpenAI) -> None:
    """A claim of 2^53 tokens a reply is dropped from the stored row; the progress line and
    the response cache took it as claimed ('72057611217797120 tokens, $108086416826.6957' on
    the terminal, a cache entry of cost 2.7e10). Both now count what the row holds."""
    priced = {"price_in_per_mtok": 1.0, "price_out_per_mtok": 2.0, "retries": 0, "concurrency": 1}
    cfg = config({"m": local_model(fake_openai.base_url, max_tokens=64, **priced)})
    fake_openai.hostile(text="18", usage={"prompt_tokens": 2**53, "completion_tokens": 2**53},
                        finish_reason="\x1b]2;owned\x07stop")
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=3)
    seen: list[Any] = []
    final = execute_run(qs_db, run_id, cfg, progress=lambda p: seen.append(p.line()))
    assert (final.prompt_tokens, final.completion_tokens, final.cost, final.uncounted) == (0, 0, 0.0, 3), final
    assert "9007199254740992" not in "".join(seen) and "$" not in final.line(), final.line()
    assert "3 replies with no token count: cost not known" in final.line(), final.line()
    with Store(qs_db) as s:
        cached = [json.loads(r["response"]) for r in s.query("SELECT response FROM llm_cache")]
    assert len(cached) == 3 and all(
        (c["prompt_tokens"], c["completion_tokens"], c["cost"]) == (None, None, None) for c in cached), cached
    assert all("\x1b" not in c["finish_reason"] for c in cached), cached
    # a truthful count is counted and cached as sent
    fake_openai.hostile(text="18", usage={"prompt_tokens": 12, "completion_tokens": 3})
    with Store(qs_db) as s:
        run2 = create_run(s, config({"m2": local_model(fake_openai.base_url, max_tokens=64, model="other",
                                                       **priced)}), model="m2", tasks=["final"], shots=0, limit=3)
    cfg2 = config({"m2": local_model(fake_openai.base_url, max_tokens=64, model="other", **priced)})
    final = execute_run(qs_db, run2, cfg2)
    assert (final.prompt_tokens, final.completion_tokens, final.uncounted) == (36, 9, 0), final
    assert final.cost == pytest.approx(3 * 18e-6)
