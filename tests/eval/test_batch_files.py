"""OpenAI Batch files: export requests, run them through a real loopback server the way a
batch runner does, and read the results back (errors and malformed lines included)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from qcstation.eval.backends.batch import (
    BATCH_URL,
    BatchFileError,
    parse_custom_id,
    read_batch_output,
    request_line,
    sample_seed,
    write_batch,
)
from qcstation.eval.types import EvalRequest
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401 - fixture
from tests.must import must


def req(seed_id: int = 1, *, task: str = "final", sample: int = 0, temperature: float = 0.0,
        user: str = "What is 6 × 7?", run_id: int = 3, max_tokens: int = 128) -> EvalRequest:
    messages = ({"role": "system", "content": "Answer in \\boxed{}."},
                {"role": "user", "content": user})
    return EvalRequest(run_id=run_id, seed_id=seed_id, task=task, sample_idx=sample,
                       messages=messages, temperature=temperature, max_tokens=max_tokens,
                       prompt_hash=f"h{seed_id}")


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def run_batch_over_http(inp: Path, out: Path, server_root: str) -> None:
    """What the OpenAI Batch API or `vllm run-batch` does with an input file: send each
    line's body to its url and write one result line per request."""
    results = []
    for n, line in enumerate(lines(inp), 1):
        assert line["method"] == "POST"
        request = urllib.request.Request(server_root + line["url"], method="POST",
                                         data=json.dumps(line["body"]).encode(),
                                         headers={"Content-Type": "application/json"})
        response: dict[str, Any] | None
        error = None
        try:
            with urllib.request.urlopen(request, timeout=300) as r:
                response = {"status_code": r.status, "request_id": f"req_{n}",
                            "body": json.loads(r.read())}
        except urllib.error.HTTPError as exc:
            response = {"status_code": exc.code, "request_id": f"req_{n}",
                        "body": json.loads(exc.read() or b"{}")}
        except OSError as exc:
            response, error = None, {"code": "connection_error", "message": str(exc)}
        results.append({"id": f"batch_req_{n}", "custom_id": line["custom_id"],
                        "response": response, "error": error})
    out.write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")


# -- writing ------------------------------------------------------------------------------

def test_input_lines_follow_the_openai_batch_format(tmp_path: Path) -> None:
    requests = [req(1), req(2, temperature=0.7, sample=1), req(2, temperature=0.7, sample=2)]
    paths = write_batch(requests, tmp_path / "run3.jsonl", model="gpt-4o-mini")
    assert paths == [tmp_path / "run3.jsonl"]
    got = lines(paths[0])
    assert got[0] == {
        "custom_id": "run3-seed1-final-s0", "method": "POST", "url": "/v1/chat/completions",
        "body": {"model": "gpt-4o-mini",
                 "messages": [{"role": "system", "content": "Answer in \\boxed{}."},
                              {"role": "user", "content": "What is 6 × 7?"}],
                 "temperature": 0.0, "max_tokens": 128}}
    assert "seed" not in got[0]["body"]                     # greedy: no seed
    assert got[1]["body"]["seed"] == sample_seed(requests[1])
    assert got[1]["body"]["seed"] != got[2]["body"]["seed"]  # samples differ
    assert "×" in paths[0].read_text(encoding="utf-8")       # UTF-8, not \u escapes
    assert [p.name for p in tmp_path.iterdir()] == ["run3.jsonl"]   # no temporary files left


def test_large_exports_are_split_within_the_limits(tmp_path: Path) -> None:
    requests = [req(i) for i in range(1, 8)]
    paths = write_batch(requests, tmp_path / "out" / "run3.jsonl", model="m",
                        max_requests_per_file=3)
    assert [p.name for p in paths] == ["run3.part001.jsonl", "run3.part002.jsonl",
                                       "run3.part003.jsonl"]
    assert [len(lines(p)) for p in paths] == [3, 3, 1]
    assert [x["custom_id"] for p in paths for x in lines(p)] == [r.custom_id for r in requests]
    one = len(json.dumps(request_line(req(1), model="m"), ensure_ascii=False,
                         separators=(",", ":")).encode()) + 1
    by_bytes = write_batch(requests, tmp_path / "b.jsonl", model="m", max_bytes_per_file=2 * one + 2)
    assert [len(lines(p)) for p in by_bytes] == [2, 2, 2, 1]
    assert all(p.stat().st_size <= 2 * one + 2 for p in by_bytes)


def test_a_failed_export_leaves_the_previous_file_and_no_debris(tmp_path: Path) -> None:
    target = tmp_path / "run3.jsonl"
    target.write_text("previous export\n", encoding="utf-8")

    def requests():
        yield req(1)
        yield req(2)
        raise RuntimeError("database went away")

    with pytest.raises(RuntimeError):
        write_batch(requests(), target, model="m", max_requests_per_file=1)
    assert target.read_text(encoding="utf-8") == "previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run3.jsonl"]


def test_nothing_to_export_writes_nothing_and_duplicates_are_refused(tmp_path: Path) -> None:
    assert write_batch([], tmp_path / "x.jsonl", model="m") == []
    assert not (tmp_path / "x.jsonl").exists()
    with pytest.raises(BatchFileError, match="run3-seed1-final-s0 appears twice"):
        write_batch([req(1), req(1)], tmp_path / "x.jsonl", model="m")
    assert list(tmp_path.iterdir()) == []


def test_custom_ids_parse_back() -> None:
    assert parse_custom_id(req(17, task="refinement", sample=4).custom_id) == (3, 17, "refinement", 4)
    for bad in ["run3-seed1-algebra-s0", "run3-seed1-final", "xrun3-seed1-final-s0",
                "run3-seed1-final-s0\n", "run-1-seed1-final-s0", "run" + "9" * 20 + "-seed1-final-s0"]:
        assert parse_custom_id(bad) is None, bad


# -- the round trip --------------------------------------------------------------------------

def test_round_trip_through_a_real_server(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    requests = [req(i, user=f"question {i}") for i in range(1, 6)]
    (inp,) = write_batch(requests, tmp_path / "in.jsonl", model="fake-model")
    fake_openai.reply("ok")                                       # 1st
    fake_openai.status(500, message="engine \x1b[31mexploded\x1b[0m")   # 2nd
    fake_openai.reply("cut short", finish_reason="length", prompt_tokens=11, completion_tokens=2)
    fake_openai.empty_choices()                                   # 4th
    out = tmp_path / "out.jsonl"
    run_batch_over_http(inp, out, fake_openai.url)
    assert [must(r.body)["messages"] for r in fake_openai.chat_requests] == \
        [[dict(m) for m in r.messages] for r in requests]
    problems: list[str] = []
    replies = list(read_batch_output(out, problems=problems))
    assert problems == []
    assert [r.custom_id for r in replies] == [r.custom_id for r in requests]
    first, failed, cut, nochoice, echo = replies
    assert (first.status, first.text, first.finish_reason) == ("ok", "ok", "stop")
    assert first.prompt_tokens and first.completion_tokens == 1
    assert first.extra == {"batch_line_id": "batch_req_1", "request_id": "req_1",
                           "served_model": "fake-model", "line": 1}
    assert [r.extra["line"] for r in replies] == [1, 2, 3, 4, 5]
    assert failed.status == "error" and failed.text is None
    error = must(failed.error)
    assert error.startswith("HTTP 500: ") and "exploded" in error
    assert "\x1b" not in error and "\\x1b" in error
    assert (cut.status, cut.text, cut.finish_reason, cut.prompt_tokens, cut.completion_tokens) == (
        "ok", "cut short", "length", 11, 2)
    assert (nochoice.status, nochoice.error) == ("error", "the response has no choices")
    assert (echo.status, echo.text) == ("ok", "echo: question 5")


def test_error_shapes_of_openai_and_vllm(tmp_path: Path) -> None:
    ok_body = {"id": "c", "object": "chat.completion", "model": "m",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": "42"},
                            "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10}}
    rows = [
        # OpenAI: a request that failed without an HTTP response
        {"id": "b1", "custom_id": "run3-seed1-final-s0", "response": None,
         "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}},
        # OpenAI error file: an HTTP error with its body
        {"id": "b2", "custom_id": "run3-seed2-final-s0",
         "response": {"status_code": 400, "request_id": "r2",
                      "body": {"error": {"message": "max_tokens is too large", "type": "invalid_request_error",
                                         "param": "max_tokens", "code": None}}},
         "error": None},
        # vllm run-batch: an exception, as a plain string, with status 400 and no body
        {"id": "vllm-3", "custom_id": "run3-seed3-final-s0",
         "response": {"status_code": 400, "request_id": "vllm-batch-3", "body": None},
         "error": "This model's maximum context length is 2048 tokens"},
        # vllm run-batch: an ErrorResponse object
        {"id": "vllm-4", "custom_id": "run3-seed4-final-s0",
         "response": {"status_code": 404, "request_id": "vllm-batch-4", "body": None},
         "error": {"error": {"message": "The model `x` does not exist.", "type": "NotFoundError",
                             "param": None, "code": 404}}},
        # 200 but no text (e.g. a refusal or a tool call)
        {"id": "b5", "custom_id": "run3-seed5-final-s0",
         "response": {"status_code": 200, "request_id": "r5",
                      "body": {**ok_body, "choices": [{"index": 0, "message": {"role": "assistant", "content": None},
                                                       "finish_reason": "content_filter"}]}},
         "error": None},
        {"id": "b6", "custom_id": "run3-seed6-final-s0", "response": None, "error": None},
        {"id": "b7", "custom_id": "run3-seed7-final-s0",
         "response": {"status_code": 200, "request_id": "r7", "body": ok_body}, "error": None},
    ]
    out = tmp_path / "out.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    replies = list(read_batch_output(out))
    assert [(r.custom_id[:10], r.status) for r in replies] == [
        (f"run3-seed{i}", "error") for i in range(1, 7)] + [("run3-seed7", "ok")]
    errors = [r.error for r in replies[:6]]
    assert errors[0] == ("batch_expired: This request could not be executed before the "
                         "completion window expired.")
    assert errors[1] == "HTTP 400: invalid_request_error: max_tokens is too large"
    assert errors[2] == "HTTP 400: This model's maximum context length is 2048 tokens"
    assert errors[3] == "HTTP 404: 404: The model `x` does not exist."
    assert errors[4] == "the response has no message content (finish_reason content_filter)"
    assert errors[5] == "the batch output has neither a response nor an error"
    assert (replies[6].text, replies[6].prompt_tokens, replies[6].completion_tokens) == ("42", 9, 1)


def test_malformed_lines_are_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    good = {"id": "x", "custom_id": "run3-seed1-final-s0",
            "response": {"status_code": 200, "request_id": "r",
                         "body": {"choices": [{"message": {"content": "7"}, "finish_reason": "stop"}]}},
            "error": None}

    def good_for(seed: int) -> bytes:
        return json.dumps({**good, "custom_id": f"run3-seed{seed}-final-s0"}).encode() + b"\n"

    data = b"".join([
        good_for(1),                                                   # 1
        b"{not json\n",                                                # 2
        b"\n",                                                         # 3 (blank: ignored)
        b"[1, 2]\n",                                                   # 4
        json.dumps({**good, "custom_id": None}).encode() + b"\n",       # 5
        json.dumps({**good, "custom_id": "run3-seed8-final-s0", "response": {"status_code": "200"}}).encode() + b"\n",  # 6
        b'{"custom_id": "' + b"a" * 3000 + b'"}\n',                    # 7: over the line limit
        good_for(2),                                                   # 8
        b"\xff\xfe garbage\n",                                         # 9
        b"[" * 100_000 + b"]" * 100_000 + b"\n",                       # 10 (also too long)
        good_for(1),                                                   # 11: duplicate
        json.dumps({**good, "custom_id": "x" * 300}).encode() + b"\n",  # 12
        b'{"custom_id": "run3-seed9-final-s0", "response": 5}\n',       # 13
        good_for(3),                                                   # 14 (no newline at the end)
    ]).rstrip(b"\n")
    out = tmp_path / "messy.jsonl"
    out.write_bytes(data)
    problems: list[str] = []
    replies = list(read_batch_output(out, problems=problems, max_line_bytes=2048))
    assert [r.custom_id for r in replies] == ["run3-seed1-final-s0", "run3-seed2-final-s0",
                                              "run3-seed3-final-s0"]
    assert all(r.status == "ok" and r.text == "7" for r in replies)
    where = [p.split(": ", 1)[0] for p in problems]
    assert where == [f"{out}:{n}" for n in (2, 4, 5, 6, 7, 9, 10, 11, 12, 13)], problems
    text = "\n".join(problems)
    assert "not valid JSON" in problems[0]
    assert "expected a JSON object, got list" in problems[1]
    assert "no custom_id" in problems[2]
    assert "status_code must be an integer" in problems[3]
    assert "longer than 2048 bytes" in problems[4] and "longer than 2048 bytes" in problems[6]
    assert "not UTF-8" in problems[5]
    assert "already appeared on line 1" in problems[7]
    assert "custom_id longer than 200" in problems[8]
    assert "response must be an object or null" in problems[9]
    assert all(p.endswith("skipped") for p in problems) and "\x00" not in text


def test_deeply_nested_json_is_a_reported_line_not_a_crash(tmp_path: Path) -> None:
    deep = (b'{"custom_id": "run3-seed4-final-s0", "x": ' + b"[" * 200_000 + b"]" * 200_000
            + b"}\n")
    out = tmp_path / "deep.jsonl"
    out.write_bytes(deep + b'{"custom_id": "run3-seed5-final-s0", "response": null, "error": "boom"}\n')
    problems: list[str] = []
    replies = list(read_batch_output(out, problems=problems))
    assert [(r.custom_id, r.error) for r in replies] == [("run3-seed5-final-s0", "boom")]
    assert problems == [f"{out}:1: not valid JSON (nested too deeply); skipped"]


def test_unreadable_files_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BatchFileError, match="no such file"):
        list(read_batch_output(tmp_path / "missing.jsonl"))
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"{}\n" * 100)
    with pytest.raises(BatchFileError, match=r"big.jsonl is 300 bytes, more than the 200"):
        list(read_batch_output(big, max_file_bytes=200))
    with pytest.raises(BatchFileError, match="not a file"):
        list(read_batch_output(tmp_path))


def test_batch_url_is_the_chat_endpoint() -> None:
    assert BATCH_URL == "/v1/chat/completions"


def test_a_file_that_is_not_batch_output_is_one_error_not_thousands(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("".join(f"line {i} of some other file\n" for i in range(5000)), encoding="utf-8")
    problems: list[str] = []
    with pytest.raises(BatchFileError) as ei:
        list(read_batch_output(junk, problems=problems))
    assert str(ei.value).startswith(f"{junk} does not look like an OpenAI Batch output file: "
                                    "its first 20 lines are not results (line 1: not valid JSON")
    assert not str(ei.value).endswith("skipped)")
    assert problems == []
    # a bad start followed by results is still read
    good = json.dumps({"custom_id": "run3-seed1-final-s0", "response": None, "error": "x"})
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("{bad\n" * 19 + good + "\n" + "{bad\n" * 30, encoding="utf-8")
    replies = list(read_batch_output(mixed, problems=problems))
    assert [r.custom_id for r in replies] == ["run3-seed1-final-s0"] and len(problems) == 49


async def test_exported_bodies_are_what_the_online_backend_sends(fake_openai: FakeOpenAI) -> None:
    """A batch route and an online run of the same model send the same request (seed
    included), so they draw the same samples."""
    from qcstation.common.config import ModelConfig
    from qcstation.eval.backends.batch import request_body
    from qcstation.eval.backends.openai_compat import OpenAIBackend

    requests = [req(4, sample=s, temperature=0.7) for s in range(3)] + [req(5)]
    backend = OpenAIBackend(ModelConfig(model="fake-model", base_url=fake_openai.base_url))
    try:
        for r in requests:
            assert (await backend.complete(r)).status == "ok"
    finally:
        await backend.aclose()
    sent = [must(r.body) for r in fake_openai.chat_requests]
    assert sent == [request_body(r, model="fake-model") for r in requests]
    assert [b.get("seed") for b in sent] == [0, 1, 2, None]
