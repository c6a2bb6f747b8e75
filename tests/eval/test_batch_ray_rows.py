"""The Ray route's pure parts, without Ray: input lines, the rows of both engines, the
output lines (read back by import-batch's reader), the output file (resume, cut line,
--retry-errors) and the worker session against a real loopback server."""

from __future__ import annotations

import asyncio
import gzip
import json
import pickle
from pathlib import Path

import pytest

from qcstation.common.config import ModelConfig
from qcstation.eval.backends.batch import MAX_LINE_BYTES, read_batch_output, request_body, write_batch
from qcstation.eval.batch_ray.files import OutputFile, read_requests
from qcstation.eval.batch_ray.http import SessionFactory
from qcstation.eval.batch_ray.rows import (
    BadRequestLine,
    error_line,
    parse_request_line,
    reply_line,
    vllm_line,
    vllm_row,
)
from qcstation.eval.types import EvalReply
from tests.eval.test_batch_files import req
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401 - fixture


def _read(path: Path) -> tuple[list[EvalReply], list[str]]:
    problems: list[str] = []
    return list(read_batch_output(path, problems=problems)), problems


def test_input_lines_give_the_exported_bodies_verbatim(tmp_path: Path) -> None:
    requests = [req(1), req(2, temperature=0.7, sample=3), req(3, user="Ünïcode × “quotes” \\ \u2028")]
    (inp,) = write_batch(requests, tmp_path / "in.jsonl", model="m")
    problems: list[str] = []
    got = list(read_requests([inp], problems))
    assert problems == []
    assert [cid for cid, _ in got] == [r.custom_id for r in requests]
    raw_bodies = [json.dumps(json.loads(x)["body"], ensure_ascii=False, separators=(",", ":"))
                  for x in inp.read_text(encoding="utf-8").split("\n") if x]
    assert [b for _, b in got] == raw_bodies                   # the same JSON text as the export
    assert [json.loads(b) for _, b in got] == [request_body(r, model="m") for r in requests]
    assert "seed" not in json.loads(got[0][1]) and json.loads(got[1][1])["seed"] == 3


@pytest.mark.parametrize(("line", "why"), [
    (b"{oops", "not valid JSON"),
    (b"[1]", "not a JSON object"),
    (b'{"url": "/v1/chat/completions", "body": {}}', "no custom_id"),
    (b'{"custom_id": "a", "url": "/v1/embeddings", "body": {"messages": []}}', "not a POST /v1/chat/completions"),
    (b'{"custom_id": "a", "url": "/v1/chat/completions", "body": {"messages": [{"role": 1}]}}',
     "no chat messages"),
    (b"[" * 600 + b"]" * 600, "nested too deeply"),
    (b"\xff\xfe", "not UTF-8"),
    # a key twice (lane attack7: the last was taken silently, the request sent under 'b')
    (b'{"custom_id": "a", "custom_id": "b", "url": "/v1/chat/completions", "body": {"messages": '
     b'[{"role": "user", "content": "x"}]}}', "'custom_id' appears twice"),
    (b'{"custom_id": "a", "url": "/v1/chat/completions", "body": {"messages": [{"role": "user", '
     b'"content": "x"}], "messages": [{"role": "user", "content": "y"}]}}', "'messages' appears twice"),
])
def test_bad_input_lines_say_why(line: bytes, why: str) -> None:
    with pytest.raises(BadRequestLine, match=why):
        parse_request_line(line)


def test_bad_and_repeated_input_lines_are_reported_and_the_rest_read(tmp_path: Path) -> None:
    (inp,) = write_batch([req(1), req(2)], tmp_path / "in.jsonl", model="m")
    good = inp.read_text(encoding="utf-8").splitlines()
    messy = tmp_path / "messy.jsonl"
    messy.write_bytes(("\n".join([good[0], "{oops", "", good[0], good[1]]) + "\n").encode()
                      + b"x" * (MAX_LINE_BYTES + 10) + b"\n")
    problems: list[str] = []
    assert [c for c, _ in read_requests([messy], problems)] == [req(1).custom_id, req(2).custom_id]
    assert problems == [f"{messy}:2: not valid JSON (Expecting property name enclosed in double quotes: "
                        "line 1 column 2 (char 1)); skipped",
                        f"{messy}:4: {req(1).custom_id} already appeared at {messy}:1; sent once",
                        f"{messy}:6: line longer than {MAX_LINE_BYTES} bytes; skipped"]
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n" * 100, encoding="utf-8")
    from qcstation.eval.backends.batch import BatchFileError

    with pytest.raises(BatchFileError, match="does not look like an OpenAI Batch input file"):
        list(read_requests([junk], []))
    with pytest.raises(BatchFileError, match="no such file"):
        list(read_requests([tmp_path / "missing.jsonl"], []))


def test_output_lines_are_what_import_batch_reads(tmp_path: Path) -> None:
    ok = EvalReply("run3-seed1-final-s0", "ok", text="So \\boxed{42}.", finish_reason="length",
                   prompt_tokens=20, completion_tokens=7)
    failed = EvalReply("run3-seed2-final-s0", "error", error="HTTP 400 from http://x/v1: bad (not retried)")
    empty = EvalReply("run3-seed3-final-s0", "ok", text="", finish_reason="stop")
    huge = EvalReply("run3-seed4-final-s0", "ok", text="\x01" * (MAX_LINE_BYTES // 5), finish_reason="stop")
    lines = [reply_line(r) for r in (ok, failed, empty, huge)]
    assert [flag for _, flag in lines] == [True, False, True, False]
    out = tmp_path / "out.jsonl"
    out.write_text("".join(line + "\n" for line, _ in lines), encoding="utf-8")
    replies, problems = _read(out)
    assert problems == []
    a, b, c, d = replies
    assert (a.status, a.text, a.finish_reason, a.prompt_tokens, a.completion_tokens) == (
        "ok", "So \\boxed{42}.", "length", 20, 7)
    assert (b.status, b.error) == ("error", failed.error)             # the built-in client's message
    assert (c.status, c.text, c.prompt_tokens) == ("ok", "", None)
    assert d.status == "error" and "does not fit in a batch output line" in (d.error or "")
    assert len(json.loads(error_line("x", "e" * 10_000))["error"]["message"]) <= 2001


def test_vllm_rows_carry_each_requests_sampling_and_results_become_lines(tmp_path: Path) -> None:
    requests = [req(1, max_tokens=5), req(2, temperature=0.9, sample=3), req(3)]
    (inp,) = write_batch(requests, tmp_path / "in.jsonl", model="Qwen/Qwen2.5-0.5B-Instruct")
    rows = [vllm_row(c, b) for c, b in read_requests([inp], [])]
    assert rows[0]["messages"] == [dict(m) for m in requests[0].messages]
    assert rows[0]["sampling_params"] == {"temperature": 0.0, "max_tokens": 5, "seed": None}
    assert rows[1]["sampling_params"] == {"temperature": 0.9, "max_tokens": 128, "seed": 3}
    assert {frozenset(r["sampling_params"]) for r in rows} == {frozenset({"temperature", "max_tokens", "seed"})}
    done = [   # what Ray's vLLM stage adds to a row, or its error row
        {**rows[0], "generated_text": "1 2 3 4 5", "num_input_tokens": 20, "num_generated_tokens": 5},
        {**rows[1], "generated_text": "\\boxed{42}\ud800", "num_input_tokens": 21, "num_generated_tokens": 6},
        {**rows[2], "__inference_error__": "ValueError: prompt too long"},
    ]
    out = tmp_path / "out.jsonl"
    lines = [vllm_line(r) for r in done]
    assert [flag for _, flag in lines] == [True, True, False]
    out.write_text("".join(line + "\n" for line, _ in lines), encoding="utf-8")
    (a, b, c), problems = _read(out)
    assert problems == []
    assert (a.finish_reason, a.completion_tokens, a.prompt_tokens) == ("length", 5, 20)
    assert (b.text, b.finish_reason) == ("\\boxed{42}\ufffd", "stop")
    assert (c.status, c.error) == ("error", "vLLM: ValueError: prompt too long")


def _line(cid: str, text: str | None) -> str:
    reply = (EvalReply(cid, "ok", text=text, finish_reason="stop") if text is not None
             else EvalReply(cid, "error", error="HTTP 500: boom"))
    return reply_line(reply)[0]


def test_the_output_file_resumes_after_a_cut_line_and_retry_errors_rewrites_it(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    keep = [_line("run1-seed1-final-s0", "one"), _line("run1-seed2-final-s0", None),
            _line("run1-seed3-final-s0", "three")]
    out.write_text("".join(x + "\n" for x in keep) + keep[0][:25], encoding="utf-8")   # killed mid-line
    f = OutputFile(out)
    f.load()
    assert f.cut_line_dropped and f.problems == []
    assert f.done == {"run1-seed1-final-s0": False, "run1-seed2-final-s0": True, "run1-seed3-final-s0": False}
    assert out.read_text(encoding="utf-8") == "".join(x + "\n" for x in keep)
    assert f.drop_errors() == 1
    assert out.read_text(encoding="utf-8") == keep[0] + "\n" + keep[2] + "\n"   # kept lines verbatim
    assert "run1-seed2-final-s0" not in f.done
    f.append(_line("run1-seed2-final-s0", "two"))
    f.close()
    replies, problems = _read(out)
    assert problems == [] and [r.text for r in replies] == ["one", "three", "two"]
    fresh = OutputFile(tmp_path / "none" / "new.jsonl")
    fresh.load()
    assert fresh.done == {} and not fresh.cut_line_dropped


# -- the worker session, against a real loopback server ----------------------------------

def _payload(cid: str, body: dict[str, object]) -> str:
    """What Ray's HTTP stage posts: json.dumps of the row's payload."""
    return json.dumps({"custom_id": cid, "body": json.dumps(body, separators=(",", ":"))})


async def _post_all(factory: SessionFactory, payloads: list[str]) -> list[dict[str, object]]:
    async with factory() as session:                     # as HttpRequestUDF does
        pending = [session.post("ignored", headers={}, data=p) for p in payloads]
        out = []
        for request in pending:
            async with await request as response:
                assert response.status == 200
                out.append(await response.json())
    await factory.aclose()
    return out


def test_the_session_sends_the_body_as_is_and_never_raises(fake_openai: FakeOpenAI,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QCS_TEST_RAY_KEY", "sk-test-ray-secret-123")
    cfg = ModelConfig(model="x", base_url=fake_openai.base_url, api_key_env="QCS_TEST_RAY_KEY",
                      retries=1, backoff_s=0.01, max_backoff_s=0.02, timeout_s=60)
    factory = SessionFactory(cfg, in_flight=3)
    blob = pickle.dumps(factory)
    assert b"sk-test-ray-secret" not in blob and b"QCS_TEST_RAY_KEY" in blob      # the name, never the key
    factory = pickle.loads(blob)
    bodies = [request_body(req(i, temperature=0.5 if i % 2 else 0.0, sample=i), model="fake-model")
              for i in range(8)]
    fake_openai.status(400, message="bad request")                         # not retried: an error line
    fake_openai.garbage()                                                  # retried once, then answered
    fake_openai.default_delay = 0.05
    results = asyncio.run(_post_all(factory, [_payload(f"run1-seed{i}-final-s0", b) for i, b in enumerate(bodies)]))
    assert [r["ok"] for r in results].count(False) == 1
    assert fake_openai.max_in_flight <= 3                                  # in_flight per worker process
    received = [r.body for r in fake_openai.chat_requests]
    assert len(received) == 9                                              # 8 bodies, one sent twice
    assert {json.dumps(b, sort_keys=True) for b in received} == {json.dumps(b, sort_keys=True) for b in bodies}
    assert all(r.authorization == "Bearer sk-test-ray-secret-123" for r in fake_openai.chat_requests)
    lines = [json.loads(str(r["line"])) for r in results]
    assert [x["custom_id"] for x in lines] == [f"run1-seed{i}-final-s0" for i in range(8)]
    assert all("sk-test-ray-secret" not in str(r["line"]) for r in results)


def test_hostile_replies_cost_one_row_each(fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QCS_TEST_RAY_KEY", "sk-echoed-secret-456")
    cfg = ModelConfig(model="x", base_url=fake_openai.base_url, api_key_env="QCS_TEST_RAY_KEY",
                      retries=0, timeout_s=60)
    fake_openai.raw(gzip.compress(b" " * 2**26), headers={"Content-Encoding": "gzip"})     # a bomb
    fake_openai.body({"__idx_in_batch": 0, "choices": [{"message": {"content": "reserved column"}}]})
    fake_openai.reply("my key is sk-echoed-secret-456")                                    # echoes the key
    fake_openai.body({"choices": [{"message": {"content": "x"}, "finish_reason": "\x1b]52;c;AAAA\x07"}],
                      "usage": {"prompt_tokens": 2**70}})
    fake_openai.drop()
    payloads = [_payload(f"run1-seed{i}-final-s0", request_body(req(i), model="m")) for i in range(5)]
    payloads.append("not json at all")
    results = asyncio.run(_post_all(SessionFactory(cfg, in_flight=1), payloads))
    flags = [r["ok"] for r in results]
    assert flags == [False, True, True, True, False, False]
    bomb, reserved, echo, odd, dropped, junk = (json.loads(str(r["line"])) for r in results)
    assert "larger than 16 MiB after decompression" in bomb["error"]["message"]
    assert reserved["response"]["body"]["choices"][0]["message"]["content"] == "reserved column"
    assert echo["response"]["body"]["choices"][0]["message"]["content"] == "my key is [key]"
    assert "\x1b" not in odd["response"]["body"]["choices"][0]["finish_reason"]
    assert odd["response"]["body"]["usage"]["prompt_tokens"] is None
    assert "connection failed" in dropped["error"]["message"] or "Server" in dropped["error"]["message"]
    assert "not a request of this route" in junk["error"]["message"]
