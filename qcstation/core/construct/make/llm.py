"""Model access through the ``openai`` client, with our own retries, a response cache
and a call log in the SQLite store.

* The openai client runs with ``max_retries=0``; :class:`LLMClient` retries itself:
  exponential backoff with jitter on 408/409/429/5xx, timeouts, connection errors and
  unusable (garbage) responses, honouring ``Retry-After`` / ``retry-after-ms`` (seconds or
  an HTTP date) on 429 and 503, every wait capped at ``ModelConfig.max_backoff_s``.
  400/401/403/404/422 are not retried: they raise :class:`LLMCallError` (a
  :class:`~qcstation.common.errors.ModelAccessError`) with a message saying what to fix.
* Requests in flight are bounded by ``asyncio.Semaphore(cfg.concurrency)`` (per event
  loop; use :meth:`LLMClient.chat_many` to batch). A call keeps its slot while it
  backs off, so a rate-limited client slows down instead of hammering the server.
* Responses are cached in ``llm_cache`` keyed by :func:`cache_key`, so a re-run costs
  nothing: a hit makes no HTTP request. Every call (hit or miss, ok or error) is
  logged in ``llm_calls``. For cache hits the log row has ``cached=1``, no tokens and
  cost 0 (nothing was spent); sum ``cost`` or tokens over ``cached = 0`` rows for spend.
* The API key is read from ``$api_key_env`` when the client is built and is never
  written anywhere (DB, logs, error messages: it is scrubbed from server messages).
  Local servers without auth get the placeholder key ``sk-no-key``.

With ``store_path=None`` nothing is cached or logged (pure in-memory client).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import threading
import time
import traceback
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import openai

from db import Store, now
from db.migrations import SCHEMA_VERSION
from qcstation.common.config import ModelConfig
from qcstation.common.http_retry import (
    ACCEPT_ENCODING,
    PLACEHOLDER_KEY,
    RETRY_AFTER_STATUSES,
    RETRY_STATUSES,
    BadReply,
    BodyDecoder,
    chat_reply_parts,
    clean_text,
    clean_token,
    completion_token_limit,
    cost_of,
    excerpt,
    load_json_reply,
    parse_retry_after,
    prompt_token_limit,
    token_count,
)
from qcstation.common import redact
from qcstation.common.safe import one_line
from qcstation.common.errors import ModelAccessError

log = logging.getLogger(__name__)

CACHE_KEY_VERSION = 1
_EXCERPT = 300
#: the longest reply text a generator or judge call keeps (and caches); longer is cut, marked
MAX_REPLY_CHARS = 200_000
#: an error status's body is read up to this many bytes (its message is all that is used)
MAX_ERROR_BODY_BYTES = 64 * 1024


class _CappedStream(httpx2.AsyncByteStream):
    """A response body decoded here, bounded after decompression (:class:`BodyDecoder`)."""

    def __init__(self, inner: Any, encoding: str | None, *, error: bool = False) -> None:
        self.inner = inner
        self.encoding = encoding
        self.error = error      # an error status: the body is cut at MAX_ERROR_BODY_BYTES

    async def __aiter__(self) -> Any:
        if self.error:
            dec = BodyDecoder(self.encoding, MAX_ERROR_BODY_BYTES)
            try:
                async for chunk in self.inner:
                    out = dec.decode(chunk)
                    if out:
                        yield out
            except BadReply:
                return    # the words of an error need no more than its start
            return
        dec = BodyDecoder(self.encoding)
        async for chunk in self.inner:
            out = dec.decode(chunk)
            if out:
                yield out
        tail = dec.flush()
        if tail:
            yield tail

    async def aclose(self) -> None:
        await self.inner.aclose()


class _CappedTransport(httpx2.AsyncBaseTransport):
    """The ``openai`` client's transport: asks for gzip/deflate only and hands every body on
    decoded and capped, so a decompression bomb (or a 50 MB judge reply) never reaches memory
    whole, error bodies included."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport(limits=httpx2.Limits(
            max_connections=1000, max_keepalive_connections=100, keepalive_expiry=5.0))

    async def handle_async_request(self, request: Any) -> Any:
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        resp = await self.inner.handle_async_request(request)
        encoding = resp.headers.get("content-encoding")
        headers = [(k, v) for k, v in resp.headers.raw
                   if k.lower() not in (b"content-encoding", b"content-length")]
        stream = _CappedStream(resp.stream, encoding, error=resp.status_code >= 400)
        return httpx2.Response(resp.status_code, headers=headers, stream=stream,
                               extensions=resp.extensions, request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _openai_client(cfg: ModelConfig, key: str | None) -> openai.AsyncOpenAI:
    """The one way this module talks to a server: the ``openai`` client with no retries of its
    own, over the capped transport (every body decoded and bounded here)."""
    http = httpx2.AsyncClient(transport=_CappedTransport(), timeout=cfg.timeout_s, follow_redirects=True)
    return openai.AsyncOpenAI(api_key=key or PLACEHOLDER_KEY, base_url=cfg.endpoint, max_retries=0,
                              timeout=cfg.timeout_s, http_client=http)


_E = TypeVar("_E", bound=BaseException)


def detached(exc: _E) -> _E:
    """``exc`` without its traceback and chain (``raise ... from None`` still sets
    ``__context__``): what it refers to — the frames of a refused reply, their buffers of up
    to :data:`MAX_BODY_BYTES` — is freed now, not when the caller drops the error."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        cur = todo.pop()
        if cur is None or id(cur) in seen:
            continue
        seen.add(id(cur))
        if cur.__traceback__ is not None:
            # the frames' locals go now, even where a cycle would keep the frames until
            # the garbage collector runs (frames still running are left alone)
            traceback.clear_frames(cur.__traceback__)
        todo += [cur.__cause__, cur.__context__]
        cur.__traceback__ = None
        cur.__context__ = None
        cur.__cause__ = None
    exc.__suppress_context__ = True
    return exc


def _bad_reply(exc: BaseException) -> BadReply | None:
    """The :class:`BadReply` behind an ``openai`` error (a capped body), if any."""
    seen = 0
    cur: BaseException | None = exc
    while cur is not None and seen < 8:
        if isinstance(cur, BadReply):
            return cur
        cur = cur.__cause__ or cur.__context__
        seen += 1
    return None


@dataclass
class ChatResult:
    text: str
    model: str                       # model reported by the server (else the configured one)
    cached: bool
    latency_ms: float                # wall time of the whole call, retries and waits included
    prompt_tokens: int | None        # of the response (also for cache hits)
    completion_tokens: int | None
    cost: float | None               # USD spent by this call (0.0 for a cache hit); None: no prices
    retries: int
    finish_reason: str | None
    #: token counts the server reported that were dropped (not counts, or more than the
    #: request can hold); the caller says how many over its run
    dropped_counts: int = 0


class LLMCallError(ModelAccessError):
    """A model call that failed for good. ``kind``: auth | forbidden | not_found |
    bad_request | rate_limit | server | timeout | connection | garbage | no_key."""

    def __init__(self, message: str, *, kind: str, url: str, status: int | None = None,
                 retries: int = 0) -> None:
        super().__init__(message, title="Model access failed")
        self.kind = kind
        self.url = url
        self.status = status
        self.retries = retries


def cache_key(model: str, messages: list[dict], params: dict) -> str:
    """sha256 of the canonical JSON of ``model``, ``messages`` and ``params``
    (``temperature``, ``max_tokens``; numbers normalised so 0 and 0.0 agree).

    ``base_url`` is deliberately NOT part of the key: a model name identifies the
    weights, so the same model served from another host or port (a restarted local
    server) still hits the cache. If you serve different weights under one name,
    rename the model or call with ``use_cache=False``."""
    p = dict(params)
    if p.get("temperature") is not None:
        p["temperature"] = float(p["temperature"])
    if p.get("max_tokens") is not None:
        p["max_tokens"] = int(p["max_tokens"])
    canonical = json.dumps({"v": CACHE_KEY_VERSION, "model": model, "messages": messages, "params": p},
                           sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class _Retry(Exception):
    def __init__(self, kind: str, message: str, *, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retry_after = retry_after


@dataclass
class _Parsed:
    text: str
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    dropped: int = 0                 # token counts of the reply dropped (see _parse_body)


@dataclass
class _LoopState:
    client: openai.AsyncOpenAI
    sem: asyncio.Semaphore


def _int_or_none(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _parse_body(body: Any, default_model: str, limits: tuple[int | None, int | None] = (None, None)
                ) -> _Parsed:
    """Validate a chat.completion body (secrets already scrubbed: :func:`load_json_reply`);
    raise ``ValueError`` saying what is unusable. Every field is untrusted: text cut at
    :data:`MAX_REPLY_CHARS`, without lone surrogates; finish reason and model printable and
    short; token counts that are not counts dropped (counted in ``dropped``, never logged one
    by one: a hostile server would write thousands of lines; a run says how many at its end)."""
    parts = chat_reply_parts(body, _EXCERPT)
    if isinstance(parts, str):
        raise ValueError(parts)
    first, msg, content, usage = parts
    finish = clean_token(first.get("finish_reason"), 40)
    if not isinstance(content, str) or not content.strip():
        refusal = msg.get("refusal")
        if isinstance(refusal, str) and refusal:
            raise ValueError(f"model refused: {clean_text(refusal[:_EXCERPT])}")
        raise ValueError(f"response has empty content (finish_reason={finish})")
    if len(content) > MAX_REPLY_CHARS:
        content = content[:MAX_REPLY_CHARS] + f"\n[qcstation: reply cut at {MAX_REPLY_CHARS:,} characters]"
    model = clean_token(body.get("model"), 120) or default_model
    notes: list[str] = []
    pt = token_count(usage.get("prompt_tokens"), "prompt_tokens", notes, limits[0])
    ct = token_count(usage.get("completion_tokens"), "completion_tokens", notes, limits[1])
    for n in notes:
        log.debug("%s", n)
    return _Parsed(clean_text(content), model, pt, ct, finish, len(notes))


def _stored_body(p: _Parsed) -> dict[str, Any]:
    """What the cache keeps of a reply: the parsed fields only (cut, cleaned, key-free), never
    the server's body as sent."""
    return {"object": "chat.completion", "model": p.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": p.text},
                         "finish_reason": p.finish_reason}],
            "usage": {"prompt_tokens": p.prompt_tokens, "completion_tokens": p.completion_tokens}}


def _check_messages(messages: Any) -> None:
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages must be a non-empty list of {'role': ..., 'content': ...} dicts")
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str) or "content" not in m:
            raise ValueError(f"messages[{i}] must be a dict with 'role' (str) and 'content'")


class LLMClient:
    """Async chat client for one :class:`ModelConfig` (see the module docstring)."""

    def __init__(self, cfg: ModelConfig, store_path: str | Path | None = None, *,
                 purpose: str = "") -> None:
        self.cfg = cfg
        self.purpose = purpose
        self.url = cfg.endpoint
        self.store_path = Path(store_path) if store_path is not None else None
        self._key = cfg.api_key()
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary())
        self._lock = threading.Lock()
        self.http_attempts = 0   # HTTP requests sent by this instance (diagnostics)
        if self.store_path is not None:
            # create / migrate up front, taking the write lock only when needed
            with Store(self.store_path, migrate=False) as s:
                if s.schema_version < SCHEMA_VERSION:
                    s.migrate()

    def __repr__(self) -> str:
        return f"LLMClient(model={self.cfg.model!r}, url={self.url!r}, store={str(self.store_path)!r})"

    # -- per-event-loop resources ------------------------------------------------------------
    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        with self._lock:
            st = self._loops.get(loop)
            if st is None:
                st = _LoopState(_openai_client(self.cfg, self._key), asyncio.Semaphore(self.cfg.concurrency))
                self._loops[loop] = st
            return st

    async def aclose(self) -> None:
        """Close the HTTP client of the current event loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover
            return
        with self._lock:
            st = self._loops.pop(loop, None)
        if st is not None:
            await st.client.close()

    async def __aenter__(self) -> "LLMClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- public API ----------------------------------------------------------------------------
    async def chat(self, messages: list[dict], *, temperature: float | None = None,
                   max_tokens: int | None = None, purpose: str | None = None,
                   use_cache: bool = True) -> ChatResult:
        """One chat completion. Cache hit → no HTTP request. Raises :class:`LLMCallError`
        (a ModelAccessError) when the model cannot be used; the call is logged either way.
        ``use_cache=False`` neither reads nor writes the cache."""
        _check_messages(messages)
        temp = self.cfg.temperature if temperature is None else float(temperature)
        mtok = self.cfg.max_tokens if max_tokens is None else int(max_tokens)
        why = self.purpose if purpose is None else purpose
        key = cache_key(self.cfg.model, messages, {"temperature": temp, "max_tokens": mtok})
        start = time.monotonic()
        caching = use_cache and self.store_path is not None

        if caching:
            cached = await asyncio.to_thread(self._cache_get, key)
            if cached is not None:
                try:
                    p = _parse_body(cached, self.cfg.model)
                except ValueError:
                    log.warning("ignoring unusable cache entry %s", key)
                else:
                    result = ChatResult(p.text, p.model, True, _ms(start), p.prompt_tokens,
                                        p.completion_tokens, 0.0 if self._priced else None, 0,
                                        p.finish_reason)
                    await asyncio.to_thread(self._write, None, self._call_row(
                        key, cached=True, status="ok", error=None, retries=0,
                        latency_ms=result.latency_ms, pt=None, ct=None,
                        cost=result.cost, purpose=why))
                    return result

        retries = 0
        failed: LLMCallError | None = None
        try:
            if self._key is None and self.cfg.base_url is None:
                raise LLMCallError(
                    f"no API key for {self.url}: set ${self.cfg.api_key_env} (or configure "
                    f"base_url for a local server)", kind="no_key", url=self.url)
            st = self._state()
            async with st.sem:
                body, p, retries = await self._request(st.client, messages, temp, mtok)
        except LLMCallError as exc:
            failed = detached(exc)
        except asyncio.CancelledError:
            # record synchronously: awaiting here would be cancelled again
            self._write(None, self._call_row(
                key, cached=False, status="error", error="cancelled", retries=retries,
                latency_ms=_ms(start), pt=None, ct=None, cost=None, purpose=why))
            raise
        if failed is not None:
            # raised outside the handler, without chain or traceback: a caller that keeps the
            # error (chat_many returns it) keeps its message, not the reply it refused
            await asyncio.to_thread(self._write, None, self._call_row(
                key, cached=False, status="error", error=str(failed), retries=failed.retries,
                latency_ms=_ms(start), pt=None, ct=None, cost=None, purpose=why))
            raise failed

        cost = self._cost(p.prompt_tokens, p.completion_tokens)
        result = ChatResult(p.text, p.model, False, _ms(start), p.prompt_tokens,
                            p.completion_tokens, cost, retries, p.finish_reason, p.dropped)
        cache_row = None
        if caching:
            cache_row = {
                "key": key, "model": self.cfg.model, "created_at": now(),
                "request": json.dumps({"model": self.cfg.model, "messages": messages,
                                       "params": {"temperature": temp, "max_tokens": mtok}},
                                      sort_keys=True, ensure_ascii=False, default=str),
                "response": json.dumps(_stored_body(p), sort_keys=True, ensure_ascii=False),
            }
        await asyncio.to_thread(self._write, cache_row, self._call_row(
            key, cached=False, status="ok", error=None, retries=retries,
            latency_ms=result.latency_ms, pt=p.prompt_tokens, ct=p.completion_tokens,
            cost=cost, purpose=why))
        return result

    async def chat_many(self, batch: list[list[dict]], **kw: Any) -> list[ChatResult | ModelAccessError]:
        """Run many chats with bounded concurrency; results in input order. A failed
        call yields its :class:`ModelAccessError` in place instead of sinking the batch."""
        async def one(messages: list[dict]) -> ChatResult | ModelAccessError:
            try:
                return await self.chat(messages, **kw)
            except ModelAccessError as exc:
                return detached(exc)

        for m in batch:
            _check_messages(m)
        try:
            async with asyncio.TaskGroup() as tg:
                tasks = [tg.create_task(one(m)) for m in batch]
        except BaseExceptionGroup as group:  # e.g. StoreError: the others were cancelled
            raise group.exceptions[0] from None
        return [t.result() for t in tasks]

    def chat_sync(self, messages: list[dict], **kw: Any) -> ChatResult:
        """Blocking :meth:`chat` for the CLI and worker threads (not inside a running loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("chat_sync() called inside a running event loop; use `await chat(...)`")

        async def run() -> ChatResult:
            try:
                return await self.chat(messages, **kw)
            finally:
                await self.aclose()

        return asyncio.run(run())

    # -- HTTP with retries -------------------------------------------------------------------
    async def _request(self, client: openai.AsyncOpenAI, messages: list[dict], temp: float,
                       mtok: int) -> tuple[dict[str, Any], _Parsed, int]:
        attempts = self.cfg.retries + 1
        for n in range(attempts):
            try:
                body, parsed = await self._attempt(client, messages, temp, mtok)
                return body, parsed, n
            except _Retry as r:
                # only its words are kept: its chain and traceback hold the reply's buffers
                # (up to MAX_BODY_BYTES each), which must not outlive the attempt
                failure = detached(r)
            if n + 1 >= attempts:
                raise LLMCallError(self._final_message(failure, attempts), kind=failure.kind,
                                   url=self.url, status=failure.status, retries=n)
            wait = self._backoff(n, failure.retry_after)
            log.info("%s; retrying in %.2fs (attempt %d of %d)", one_line(self._scrub(str(failure)), 300),
                     wait, n + 2, attempts)
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _attempt(self, client: openai.AsyncOpenAI, messages: list[dict], temp: float,
                       mtok: int) -> tuple[dict[str, Any], _Parsed]:
        self.http_attempts += 1
        hard_limit = self.cfg.timeout_s + max(0.5, 0.1 * self.cfg.timeout_s)
        try:
            raw = await asyncio.wait_for(
                client.chat.completions.with_raw_response.create(
                    model=self.cfg.model, messages=messages,  # type: ignore[arg-type]
                    temperature=temp, max_tokens=mtok),
                timeout=hard_limit)
            content = raw.content
        except (asyncio.TimeoutError, openai.APITimeoutError):
            raise _Retry("timeout", f"timed out after {self.cfg.timeout_s:g}s waiting for {self.url}") from None
        except BadReply as exc:
            raise _Retry("garbage", f"unusable response from {self.url}: {exc}") from None
        except openai.APIConnectionError as exc:
            bad = _bad_reply(exc)
            if bad is not None:
                raise _Retry("garbage", f"unusable response from {self.url}: {bad}") from None
            cause = exc.__cause__ or exc
            detail = str(cause) or type(cause).__name__
            raise _Retry("connection", f"cannot reach {self.url}: {self._scrub(detail)}") from None
        except openai.APIStatusError as exc:
            self._status_error(exc)
            raise AssertionError("unreachable") from exc  # pragma: no cover
        except openai.OpenAIError as exc:
            raise LLMCallError(f"unexpected error from {self.url}: {type(exc).__name__}: "
                               f"{self._scrub(str(exc))[:_EXCERPT]}", kind="garbage", url=self.url) from None
        try:
            body = load_json_reply(content)
        except BadReply as exc:
            raise _Retry("garbage", f"unusable response from {self.url}: {self._scrub(str(exc))}") from None
        try:
            parsed = _parse_body(body, self.cfg.model,
                                 (prompt_token_limit(messages), completion_token_limit(mtok)))
        except ValueError as exc:
            raise _Retry("garbage", f"unusable response from {self.url}: {self._scrub(str(exc))}") from None
        return body, parsed

    def _status_error(self, exc: openai.APIStatusError) -> None:
        code = exc.status_code
        detail = self._scrub(_server_message(exc))[:_EXCERPT]
        url = self.url
        if code in RETRY_STATUSES or code >= 500:
            ra = parse_retry_after(exc.response.headers) if code in RETRY_AFTER_STATUSES else None
            kind = "rate_limit" if code == 429 else "server"
            raise _Retry(kind, f"{code} from {url}: {detail}", status=code, retry_after=ra) from None
        env = self.cfg.api_key_env
        if code == 401:
            hint = (f"${env} is not set" if self._key is None
                    else f"check ${env} (the key is wrong, expired or for another server)")
            msg, kind = f"401 Unauthorized from {url}: {hint}. Server said: {detail}", "auth"
        elif code == 403:
            msg, kind = (f"403 Forbidden from {url}: the key in ${env} may not use model "
                         f"{self.cfg.model!r}. Server said: {detail}"), "forbidden"
        elif code == 404:
            msg, kind = (f"404 Not Found from {url}: model {self.cfg.model!r} does not exist there, "
                         f"or base_url is wrong (it usually ends in /v1). Server said: {detail}"), "not_found"
        else:
            msg, kind = f"{code} from {url}: request rejected: {detail}", "bad_request"
        raise LLMCallError(msg, kind=kind, url=url, status=code, retries=0) from None

    def _final_message(self, r: _Retry, attempts: int) -> str:
        return f"{self._scrub(str(r))} (gave up after {attempts} attempt{'s' if attempts != 1 else ''})"

    def _backoff(self, n: int, retry_after: float | None) -> float:
        cap = self.cfg.max_backoff_s
        if retry_after is not None:
            return min(cap, retry_after * (1.0 + 0.1 * random.random()))
        return min(cap, self.cfg.backoff_s * (2 ** n)) * random.uniform(0.5, 1.0)

    # -- bookkeeping ---------------------------------------------------------------------------
    @property
    def _priced(self) -> bool:
        return self.cfg.price_in_per_mtok is not None or self.cfg.price_out_per_mtok is not None

    def _cost(self, pt: int | None, ct: int | None) -> float | None:
        return cost_of(pt, ct, self.cfg.price_in_per_mtok, self.cfg.price_out_per_mtok)

    def _scrub(self, text: str) -> str:
        return redact.scrub(text)

    def _call_row(self, key: str, *, cached: bool, status: str, error: str | None, retries: int,
                  latency_ms: float, pt: int | None, ct: int | None, cost: float | None,
                  purpose: str) -> dict[str, Any]:
        return {
            "model": self.cfg.model, "base_url": self.url, "cache_key": key, "cached": int(cached),
            "status": status, "error": self._scrub(error) if error else None, "retries": retries,
            "latency_ms": round(latency_ms, 3), "prompt_tokens": pt, "completion_tokens": ct,
            "cost": cost, "purpose": purpose or None, "created_at": now(),
        }

    def _cache_get(self, key: str) -> dict[str, Any] | None:
        assert self.store_path is not None
        with Store(self.store_path, migrate=False) as s:
            text = s.scalar("SELECT response FROM llm_cache WHERE key = ?", (key,))
        if text is None:
            return None
        try:
            body = redact.scrub_json(json.loads(text))    # an entry stored before a key was one
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def _write(self, cache_row: dict[str, Any] | None, call_row: dict[str, Any]) -> None:
        """Cache entry (if any) and call log row in one transaction, on a connection
        opened in the calling thread (Store connections are per-thread)."""
        if self.store_path is None:
            return
        with Store(self.store_path, migrate=False) as s, s.transaction():
            if cache_row is not None:
                s.execute(
                    "INSERT OR REPLACE INTO llm_cache (key, model, request, response, created_at) "
                    "VALUES (:key, :model, :request, :response, :created_at)", cache_row)
            s.insert("llm_calls", call_row)


def _server_message(exc: openai.APIStatusError) -> str:
    return clean_text(excerpt(_server_words(exc), 2000))


def _server_words(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
    try:
        text = exc.response.text
    except Exception:  # pragma: no cover - body not readable
        text = ""
    return text.strip() or exc.message or f"HTTP {exc.status_code}"


def _ms(start: float) -> float:
    return (time.monotonic() - start) * 1000.0


def ping_chat(cfg: ModelConfig) -> None:
    """One chat request of one token for ``cfg.model`` (a server whose ``/models`` does not
    list the model, or has no such route, as llama.cpp and scripted servers may: generation
    only needs chat). Raises :class:`LLMCallError` on failure; no retries, nothing logged
    or cached."""
    async def run() -> None:
        key = cfg.api_key()
        client = _openai_client(cfg, key)
        try:
            await client.chat.completions.create(
                model=cfg.model, messages=[{"role": "user", "content": "Reply with: ok"}],
                max_tokens=1, temperature=0)
        except openai.APIStatusError as exc:
            msg = _server_message(exc)
            if key:
                msg = msg.replace(key, "***")
            raise LLMCallError(f"{exc.status_code} from {cfg.endpoint}: {msg[:_EXCERPT]}",
                               kind="server", url=cfg.endpoint, status=exc.status_code) from None
        except BadReply as exc:
            raise LLMCallError(f"unusable response from {cfg.endpoint}: {exc}", kind="garbage",
                               url=cfg.endpoint) from None
        except openai.APIConnectionError as exc:
            raise LLMCallError(f"cannot reach {cfg.endpoint}: {exc.__cause__ or exc}",
                               kind="connection", url=cfg.endpoint) from None
        finally:
            await client.close()

    asyncio.run(run())


def list_models(cfg: ModelConfig) -> list[str]:
    """Model ids listed by ``GET {base_url}/models`` (a quick connectivity check).
    Raises :class:`LLMCallError` on failure; no retries, nothing logged."""
    async def run() -> list[str]:
        client = _openai_client(cfg, cfg.api_key())
        try:
            page = await client.models.list()
            return [clean_token(redact.scrub_json(m.id), 200) or "" for m in page.data[:10_000]]
        except openai.APIStatusError as exc:
            msg = excerpt(_server_message(exc), _EXCERPT)
            raise LLMCallError(f"{exc.status_code} from {cfg.endpoint}: {msg}",
                               kind="server", url=cfg.endpoint, status=exc.status_code) from None
        except BadReply as exc:
            raise LLMCallError(f"unusable response from {cfg.endpoint}: {exc}", kind="garbage",
                               url=cfg.endpoint) from None
        except openai.APIConnectionError as exc:
            bad = _bad_reply(exc)
            if bad is not None:
                raise LLMCallError(f"unusable response from {cfg.endpoint}: {bad}", kind="garbage",
                                   url=cfg.endpoint) from None
            raise LLMCallError(f"cannot reach {cfg.endpoint}: {exc.__cause__ or exc}",
                               kind="connection", url=cfg.endpoint) from None
        finally:
            await client.close()

    return asyncio.run(run())
