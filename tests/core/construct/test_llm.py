from __future__ import annotations

import asyncio
import email.utils
import socket
import time
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import ModelConfig
from qcstation.core.construct.make.llm import (
    ChatResult,
    LLMCallError,
    LLMClient,
    cache_key,
    list_models,
    parse_retry_after,
)
from qcstation.common.errors import ModelAccessError
from tests.fake_openai import FakeOpenAI, default_responder, fake_openai  # noqa: F401  (fixture)

KEY_ENV = "QC_TEST_API_KEY"
SECRET = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)


def mcfg(fake: FakeOpenAI | None, **kw: object) -> ModelConfig:
    base: dict[str, object] = dict(model="test-model", base_url=fake.base_url if fake else None, api_key_env=KEY_ENV,
                timeout_s=60.0, retries=2, backoff_s=0.01, max_backoff_s=3.0)   # generous: a busy machine is slow
    base.update(kw)
    return ModelConfig(**base)  # type: ignore[arg-type]


def user(text: str) -> list[dict]:
    return [{"role": "system", "content": "be brief"}, {"role": "user", "content": text}]


def calls(db_file: Path) -> list[dict]:
    with Store(db_file) as s:
        return s.query("SELECT * FROM llm_calls ORDER BY id")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_success_records_tokens_latency_cost(fake_openai: FakeOpenAI, db_file: Path) -> None:
    fake_openai.reply("The answer is 42.", prompt_tokens=1000, completion_tokens=2000)
    cfg = mcfg(fake_openai, price_in_per_mtok=1.0, price_out_per_mtok=10.0, temperature=0.2,
               max_tokens=2077)     # a reply holds no more completion tokens than were asked for
    async with LLMClient(cfg, db_file, purpose="unit") as client:
        r = await client.chat(user("what is 6*7?"))
    assert isinstance(r, ChatResult)
    assert (r.text, r.cached, r.retries, r.finish_reason) == ("The answer is 42.", False, 0, "stop")
    assert (r.prompt_tokens, r.completion_tokens) == (1000, 2000)
    assert r.cost == pytest.approx(1000 / 1e6 * 1.0 + 2000 / 1e6 * 10.0)
    assert r.latency_ms > 0 and r.model == "test-model"
    [req] = fake_openai.chat_requests
    assert req.authorization == f"Bearer {SECRET}"
    assert req.body is not None
    assert req.body["model"] == "test-model" and req.body["messages"] == user("what is 6*7?")
    assert req.body["temperature"] == 0.2 and req.body["max_tokens"] == 2077
    [row] = calls(db_file)
    assert row["status"] == "ok" and row["cached"] == 0 and row["retries"] == 0
    assert row["model"] == "test-model" and row["base_url"] == fake_openai.base_url
    assert (row["prompt_tokens"], row["completion_tokens"]) == (1000, 2000)
    assert row["cost"] == pytest.approx(r.cost)
    assert row["purpose"] == "unit" and row["latency_ms"] > 0
    assert row["cache_key"] == cache_key("test-model", user("what is 6*7?"),
                                         {"temperature": 0.2, "max_tokens": 2077})


async def test_no_prices_means_no_cost(fake_openai: FakeOpenAI, db_file: Path) -> None:
    async with LLMClient(mcfg(fake_openai), db_file) as client:
        r = await client.chat(user("x"))
    assert r.cost is None and r.text == "echo: x"
    assert calls(db_file)[0]["cost"] is None


async def test_cache_hit_makes_no_request_and_survives_new_client(fake_openai: FakeOpenAI,
                                                                   db_file: Path) -> None:
    cfg = mcfg(fake_openai, price_in_per_mtok=1.0, price_out_per_mtok=1.0)
    fake_openai.reply("first answer")
    async with LLMClient(cfg, db_file) as c1:
        a = await c1.chat(user("q"), purpose="gen")
        b = await c1.chat(user("q"), purpose="gen")
    assert len(fake_openai.chat_requests) == 1
    assert (a.cached, b.cached, b.text, b.retries, b.cost) == (False, True, "first answer", 0, 0.0)
    assert b.completion_tokens == a.completion_tokens          # describes the response
    async with LLMClient(cfg, db_file) as c2:                 # new instance, same DB
        c = await c2.chat(user("q"))
        assert c.cached and c.text == "first answer"
        assert len(fake_openai.chat_requests) == 1
        # other parameters are a different key
        d = await c2.chat(user("q"), temperature=0.5)
        assert not d.cached and d.text == "echo: q"
        assert len(fake_openai.chat_requests) == 2
        # use_cache=False bypasses the cache (no read, no write)
        e = await c2.chat(user("q"), use_cache=False)
        assert not e.cached and len(fake_openai.chat_requests) == 3
    rows = calls(db_file)
    assert [r["cached"] for r in rows] == [0, 1, 1, 0, 0]
    assert all(r["status"] == "ok" for r in rows)
    assert rows[1]["cost"] == 0.0 and rows[1]["prompt_tokens"] is None
    with Store(db_file) as s:
        assert s.scalar("SELECT COUNT(*) FROM llm_cache") == 2


def test_cache_survives_base_url_change(db_file: Path) -> None:
    with FakeOpenAI() as f1:
        f1.reply("from server one")
        assert LLMClient(mcfg(f1), db_file).chat_sync(user("hi")).text == "from server one"
    with FakeOpenAI() as f2:  # another port: documented: base_url is not part of the key
        r = LLMClient(mcfg(f2), db_file).chat_sync(user("hi"))
        assert r.cached and r.text == "from server one" and f2.chat_requests == []


def test_cache_key_canonical() -> None:
    m = user("a")
    k = cache_key("x", m, {"temperature": 0, "max_tokens": 5})
    assert k == cache_key("x", [dict(reversed(list(d.items()))) for d in m],
                          {"max_tokens": 5, "temperature": 0.0})
    assert k != cache_key("y", m, {"temperature": 0, "max_tokens": 5})
    assert k != cache_key("x", user("b"), {"temperature": 0, "max_tokens": 5})
    assert k != cache_key("x", m, {"temperature": 0, "max_tokens": 6})
    assert len(k) == 64 and int(k, 16) >= 0


async def test_429_retry_after_is_honoured(fake_openai: FakeOpenAI, db_file: Path) -> None:
    fake_openai.status(429, retry_after=1)
    t0 = time.monotonic()
    async with LLMClient(mcfg(fake_openai), db_file) as client:
        r = await client.chat(user("rate"))
    elapsed = time.monotonic() - t0
    assert r.text == "echo: rate" and r.retries == 1
    first, second = fake_openai.chat_requests
    assert second.at - first.at >= 1.0          # backoff_s is 0.01: only Retry-After explains this
    assert elapsed >= 1.0
    assert calls(db_file)[0]["retries"] == 1


async def test_retry_after_is_capped(fake_openai: FakeOpenAI) -> None:
    fake_openai.status(429, retry_after=3600)     # an hour: only the cap lets the test end
    async with LLMClient(mcfg(fake_openai, max_backoff_s=0.2)) as client:
        r = await client.chat(user("cap"))
    first, second = fake_openai.chat_requests
    assert r.retries == 1 and second.at - first.at < 600


async def test_503_with_http_date_retry_after(fake_openai: FakeOpenAI) -> None:
    # The retry must not come before the date the server names (whole seconds). Compared with
    # that date, not with when the first request came: on a busy machine the first request may
    # arrive late, and no upper or lower bound on elapsed time may decide the test.
    offset = time.time() - time.monotonic()                   # the fake server stamps monotonic time
    due = int(time.time()) + 3
    fake_openai.status(503, retry_after=email.utils.formatdate(due, usegmt=True))
    async with LLMClient(mcfg(fake_openai)) as client:
        r = await client.chat(user("d"))
    _first, second = fake_openai.chat_requests
    assert r.retries == 1
    assert second.at + offset >= due - 0.05   # backoff_s alone (0.01) would retry at once


def test_parse_retry_after() -> None:
    now = 1_700_000_000.0
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"Retry-After": "-4"}) == 0.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    date = email.utils.formatdate(now + 7, usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now_ts=now) == pytest.approx(7, abs=1)
    past = email.utils.formatdate(now - 100, usegmt=True)
    assert parse_retry_after({"Retry-After": past}, now_ts=now) == 0.0
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None


async def test_500_then_success(fake_openai: FakeOpenAI, db_file: Path) -> None:
    fake_openai.status(500).status(502)
    async with LLMClient(mcfg(fake_openai), db_file) as client:
        r = await client.chat(user("s"))
    assert r.text == "echo: s" and r.retries == 2
    assert len(fake_openai.chat_requests) == 3
    assert calls(db_file)[0]["retries"] == 2


async def test_timeout_then_success(fake_openai: FakeOpenAI) -> None:
    # The first request is never answered, so only the client's timeout and a retry can give a
    # reply (no upper bound on elapsed time: a busy machine is slow). The limit must be short
    # enough for the test to end soon, yet the retries must succeed: several of them, so that
    # a machine stalled past the limit once more still gets an answer.
    fake_openai.hang()
    async with LLMClient(mcfg(fake_openai, timeout_s=1.0, retries=6)) as client:
        r = await client.chat(user("t"))
    assert r.text == "echo: t" and r.retries >= 1
    assert len(fake_openai.chat_requests) == r.retries + 1


@pytest.mark.parametrize("script", ["garbage", "empty_choices", "empty_content", "drop"])
async def test_bad_response_then_success(fake_openai: FakeOpenAI, db_file: Path, script: str) -> None:
    getattr(fake_openai, script)()
    async with LLMClient(mcfg(fake_openai), db_file) as client:
        r = await client.chat(user("g"))
    assert r.text == "echo: g" and r.retries == 1
    assert len(fake_openai.chat_requests) == 2


async def test_persistent_garbage_is_a_clear_error(fake_openai: FakeOpenAI, db_file: Path) -> None:
    for _ in range(3):
        fake_openai.garbage("<html>oops")
    async with LLMClient(mcfg(fake_openai), db_file) as client:
        with pytest.raises(ModelAccessError) as ei:
            await client.chat(user("g"))
    msg = str(ei.value)
    assert "not JSON" in msg and fake_openai.base_url in msg and "gave up after 3 attempts" in msg
    row = calls(db_file)[0]
    assert row["status"] == "error" and "not JSON" in row["error"]
    with Store(db_file) as s:
        assert s.scalar("SELECT COUNT(*) FROM llm_cache") == 0   # failures are not cached


async def test_persistent_500_gives_up_and_is_logged(fake_openai: FakeOpenAI, db_file: Path) -> None:
    for _ in range(10):
        fake_openai.status(500, message="upstream exploded")
    async with LLMClient(mcfg(fake_openai, retries=3), db_file, purpose="p") as client:
        with pytest.raises(LLMCallError) as ei:
            await client.chat(user("x"))
    err = ei.value
    assert isinstance(err, ModelAccessError)
    assert err.status == 500 and err.retries == 3 and err.kind == "server"
    assert "500" in str(err) and "upstream exploded" in str(err) and fake_openai.base_url in str(err)
    assert len(fake_openai.chat_requests) == 4
    [row] = calls(db_file)
    assert (row["status"], row["retries"], row["cached"], row["purpose"]) == ("error", 3, 0, "p")
    assert "500" in row["error"]


@pytest.mark.parametrize(("code", "fragment", "kind"), [
    (401, f"check ${KEY_ENV}", "auth"),
    (403, "403 Forbidden", "forbidden"),
    (404, "base_url is wrong", "not_found"),
    (400, "request rejected", "bad_request"),
])
async def test_client_errors_are_not_retried(fake_openai: FakeOpenAI, db_file: Path, code: int,
                                             fragment: str, kind: str) -> None:
    fake_openai.status(code, message=f"Incorrect API key provided: {SECRET}")
    async with LLMClient(mcfg(fake_openai), db_file) as client:
        with pytest.raises(LLMCallError) as ei:
            await client.chat(user("x"))
    msg = str(ei.value)
    assert len(fake_openai.chat_requests) == 1
    assert fragment in msg and str(code) in msg and fake_openai.base_url in msg
    assert ei.value.kind == kind and ei.value.retries == 0
    assert SECRET not in msg                                 # scrubbed from the server's echo
    assert calls(db_file)[0]["status"] == "error"


async def test_401_without_key_says_variable_unset(fake_openai: FakeOpenAI,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    fake_openai.status(401)
    async with LLMClient(mcfg(fake_openai)) as client:
        with pytest.raises(ModelAccessError, match=rf"\${KEY_ENV} is not set"):
            await client.chat(user("x"))
    assert fake_openai.chat_requests[0].authorization == "Bearer sk-no-key"


async def test_no_key_for_openai_fails_fast(monkeypatch: pytest.MonkeyPatch, db_file: Path) -> None:
    monkeypatch.delenv(KEY_ENV)
    async with LLMClient(mcfg(None), db_file) as client:
        with pytest.raises(LLMCallError, match=rf"no API key .*set \${KEY_ENV}"):
            await client.chat(user("x"))
        assert client.http_attempts == 0
    assert calls(db_file)[0]["status"] == "error"


async def test_dead_port_is_a_clear_error(db_file: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    cfg = ModelConfig(model="m", base_url=url, api_key_env=KEY_ENV, retries=1, backoff_s=0.01,
                      timeout_s=2.0)
    async with LLMClient(cfg, db_file) as client:
        with pytest.raises(ModelAccessError) as ei:
            await client.chat(user("x"))
        assert client.http_attempts == 2
    assert str(ei.value).startswith(f"cannot reach {url}: ")
    assert "gave up after 2 attempts" in str(ei.value)
    row = calls(db_file)[0]
    assert row["status"] == "error" and row["retries"] == 1 and "cannot reach" in row["error"]


async def test_concurrency_bound_is_respected(fake_openai: FakeOpenAI, db_file: Path) -> None:
    # Each request is held until three are in flight at once (or 300 s pass: a bound against a
    # hang, not a pace), so reaching the bound does not depend on how fast the client sends them.
    def held(request: dict) -> str:
        deadline = time.monotonic() + 300
        while fake_openai.max_in_flight < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        return default_responder(request)

    fake_openai.responder = held
    async with LLMClient(mcfg(fake_openai, concurrency=3), db_file) as client:
        results = await client.chat_many([user(f"q{i}") for i in range(10)])
    assert len(fake_openai.chat_requests) == 10
    assert fake_openai.max_in_flight == 3
    assert [r.text for r in results if isinstance(r, ChatResult)] == [f"echo: q{i}" for i in range(10)]


async def test_chat_many_keeps_order_and_survives_a_failure(fake_openai: FakeOpenAI) -> None:
    fake_openai.status(400, message="bad one")
    async with LLMClient(mcfg(fake_openai, concurrency=2)) as client:
        results = await client.chat_many([user(f"m{i}") for i in range(5)])
    errors = [r for r in results if isinstance(r, ModelAccessError)]
    assert len(errors) == 1 and "bad one" in str(errors[0])
    for i, r in enumerate(results):
        if isinstance(r, ChatResult):
            assert r.text == f"echo: m{i}"


def test_chat_sync_twice_uses_fresh_event_loops(fake_openai: FakeOpenAI, db_file: Path) -> None:
    client = LLMClient(mcfg(fake_openai), db_file)
    assert client.chat_sync(user("one")).text == "echo: one"
    assert client.chat_sync(user("two")).text == "echo: two"
    assert client.chat_sync(user("one")).cached


async def test_chat_sync_refuses_inside_a_loop(fake_openai: FakeOpenAI) -> None:
    with pytest.raises(RuntimeError, match="await chat"):
        LLMClient(mcfg(fake_openai)).chat_sync(user("x"))


async def test_bad_messages_are_rejected_before_any_request(fake_openai: FakeOpenAI) -> None:
    async with LLMClient(mcfg(fake_openai)) as client:
        with pytest.raises(ValueError):
            await client.chat([])
        with pytest.raises(ValueError):
            await client.chat_many([user("ok"), [{"content": "no role"}]])
    assert fake_openai.chat_requests == []


async def test_api_key_never_written_to_the_database(fake_openai: FakeOpenAI, db_file: Path) -> None:
    fake_openai.status(401, message=f"bad key {SECRET}")
    fake_openai.status(500, message=f"server saw Authorization: Bearer {SECRET}")
    fake_openai.garbage(f"garbage with {SECRET}")
    cfg = mcfg(fake_openai, price_in_per_mtok=1.0, retries=3)
    async with LLMClient(cfg, db_file, purpose="secret-test") as client:
        with pytest.raises(ModelAccessError):
            await client.chat(user("a"))
        await client.chat(user("b"))           # 500, garbage, then ok
        await client.chat(user("b"))           # cache hit
    assert fake_openai.chat_requests[0].authorization == f"Bearer {SECRET}"
    with Store(db_file) as s:
        assert s.scalar("SELECT COUNT(*) FROM llm_calls") == 3
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    blobs = b"".join(p.read_bytes() for p in db_file.parent.glob(db_file.name + "*"))
    assert b"secret-test" in blobs                                  # the scan sees the data
    assert SECRET.encode() not in blobs
    assert SECRET[-16:].encode() not in blobs


async def test_in_memory_client_without_store(fake_openai: FakeOpenAI) -> None:
    async with LLMClient(mcfg(fake_openai)) as client:
        a = await client.chat(user("z"))
        b = await client.chat(user("z"))
    assert not a.cached and not b.cached and len(fake_openai.chat_requests) == 2


def test_list_models(fake_openai: FakeOpenAI) -> None:
    assert list_models(mcfg(fake_openai)) == ["fake-model"]
    with pytest.raises(ModelAccessError, match="cannot reach"):
        list_models(ModelConfig(model="m", base_url=f"http://127.0.0.1:{free_port()}/v1", timeout_s=1))


def test_repr_has_no_key(fake_openai: FakeOpenAI) -> None:
    client = LLMClient(mcfg(fake_openai))
    assert SECRET not in repr(client) and SECRET not in repr(client.cfg)


async def test_fake_server_records_and_serves_models(fake_openai: FakeOpenAI) -> None:
    import json
    import urllib.request

    with urllib.request.urlopen(fake_openai.base_url + "/models", timeout=5) as resp:
        data = json.loads(resp.read())
    assert data["data"][0]["id"] == "fake-model"
    assert fake_openai.requests[-1].method == "GET"
    req = urllib.request.Request(fake_openai.base_url + "/chat/completions",
                                 data=json.dumps({"model": "m", "messages": user("hey")}).encode(),
                                 headers={"Content-Type": "application/json"})
    body = await asyncio.to_thread(lambda: json.loads(urllib.request.urlopen(req, timeout=5).read()))
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"]["content"] == "echo: hey"
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
