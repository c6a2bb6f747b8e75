"""Any OpenAI-compatible chat server (OpenAI, ``vllm serve``, llama.cpp, Ollama), over HTTP/1.1.

Evaluation sends many small requests, so the transport decides throughput: this backend
speaks ``POST {base_url}/chat/completions`` on a pool of keep-alive connections
(:class:`~qcstation.eval.backends.http1.PostPool`: aiohttp's protocol and C parser without
its ``ClientSession``, which costs about twice the CPU per request; the ``openai``
package's own transport is slower still, see ``bench/eval_bench.py``).

* Several base URLs for one model (``base_urls``): each request goes to the server with
  the fewest requests in flight; a connection failure moves the retry to another server.
  ``concurrency`` is per server.
* Retries with exponential backoff and jitter on 408/409/429/5xx, timeouts, connection
  errors and unusable bodies, honouring ``Retry-After`` / ``retry-after-ms`` (capped by
  ``max_backoff_s``); 400/401/403/404/422 are not retried.
* A failed request becomes an error reply (never an exception): the runner stores it and
  it stays in the metric's denominator.
* The API key comes from ``$api_key_env``; it is sent as a header. Every secret
  (:mod:`qcstation.common.redact`) is scrubbed from a reply as it is parsed, every field
  (a server that echoes the key in ``model`` or ``usage`` too), and from every message this
  module writes.
* Every reply is untrusted (:mod:`qcstation.common.http_retry`): read up to
  ``MAX_BODY_BYTES`` *after* decompression (gzip and deflate are decoded by the pool with a
  bounded output), within ``timeout_s`` for the whole exchange, parsed with limits on
  nesting and size, lone surrogates made U+FFFD, finish reason printable and short, absurd token counts
  dropped with a note. A reply that breaks a rule is that request's error, with the reason.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from qcstation.common.config import ModelConfig
from qcstation.common.http_retry import (
    ACCEPT_ENCODING,
    MAX_BODY_BYTES,
    PLACEHOLDER_KEY,
    RETRY_AFTER_STATUSES,
    RETRY_STATUSES,
    BadReply,
    chat_reply_parts,
    clean_text,
    clean_token,
    cost_of,
    excerpt,
    load_json_reply,
    parse_retry_after,
    token_count,
)
from qcstation.eval.backends.http1 import TRANSPORT_ERRORS, Deadlines, PostPool
from qcstation.eval.types import Backend, EvalReply, EvalRequest

__all__ = ["MAX_BODY_BYTES", "OpenAIBackend", "parse_chat_body"]
_EXCERPT = 300


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None, *, bad_server: bool = False):
        super().__init__(message)
        self.retry_after = retry_after
        self.bad_server = bad_server


class OpenAIBackend(Backend):
    kind = "openai"

    def __init__(self, cfg: ModelConfig) -> None:
        self.cfg = cfg
        self.urls = cfg.endpoints
        self.concurrency = max(1, cfg.concurrency) * len(self.urls)
        self._key = cfg.api_key()
        self._in_flight = {u: 0 for u in self.urls}
        self.sent = {u: 0 for u in self.urls}       # HTTP attempts per server (diagnostics)
        self._pool: PostPool | None = None
        self._deadlines = Deadlines(cfg.timeout_s)    # each attempt's time bound (timeout_s)
        self._model_json = json.dumps(cfg.model, ensure_ascii=False)
        self._headers = {"Content-Type": "application/json", "Accept-Encoding": ACCEPT_ENCODING,
                         "Authorization": f"Bearer {self._key or PLACEHOLDER_KEY}"}

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.cfg.model, "name": self.cfg.name,
                "endpoints": list(self.urls)}

    def check_ready(self) -> str | None:
        """Why no request can succeed (None: go ahead)."""
        if self._key is None and self.cfg.base_url is None and not self.cfg.base_urls:
            return (f"no API key for {self.urls[0]}: set ${self.cfg.api_key_env} (or configure "
                    f"base_url for a local server)")
        return None

    def preflight(self) -> str | None:
        """Why this model cannot be used at all (key variable unset, no server answers)."""
        from qcstation.common.preflight import model_preflight

        return model_preflight(self.cfg)

    def _get_pool(self) -> PostPool:
        if self._pool is None or self._pool.closed:
            self._pool = PostPool(self._headers)
        return self._pool

    async def aclose(self) -> None:
        if self._pool is not None:
            self._pool.close()
        self._pool = None

    def _pick(self, avoid: set[str]) -> str:
        if len(self.urls) == 1:
            return self.urls[0]
        candidates = [u for u in self.urls if u not in avoid] or self.urls
        return min(candidates, key=lambda u: self._in_flight[u])

    def _scrub(self, text: str) -> str:
        return excerpt(text, _EXCERPT)

    def _body(self, req: EvalRequest) -> bytes:
        blob = req.messages_json
        # the prompt serialised once, for its hash and here (a request rebuilt with other
        # messages, dataclasses.replace, has none: types.EvalRequest.messages_json)
        if blob is not None:
            seed = f',"seed":{int(req.sample_idx)}' if req.temperature > 0 else ""
            return (f'{{"model":{self._model_json},"messages":{blob},'
                    f'"temperature":{float(req.temperature)!r},"max_tokens":{int(req.max_tokens)}{seed}}}'
                    ).encode("utf-8")
        body: dict[str, Any] = {"model": self.cfg.model, "messages": list(req.messages),
                                "temperature": req.temperature, "max_tokens": req.max_tokens}
        if req.temperature > 0:
            body["seed"] = req.sample_idx   # reproducible, distinct samples where servers honour it
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    async def complete(self, req: EvalRequest) -> EvalReply:
        if self.check_ready() is not None:
            return EvalReply(req.custom_id, "error", error=self.check_ready(), endpoint=self.urls[0])
        return await self.send(req.custom_id, self._body(req))

    async def send(self, custom_id: str, payload: bytes) -> EvalReply:
        """POST one request body (``payload``, the JSON of a ``/chat/completions`` body) with
        this backend's retries, limits and key, and read the reply as :meth:`complete` does:
        an error reply, never an exception. The Ray batch route sends the exported bodies
        through it (:mod:`qcstation.eval.batch_ray`)."""
        t0 = time.perf_counter()
        try:
            pool = self._get_pool()
        except ValueError as exc:    # a line break in the key: no request can be sent
            return EvalReply(custom_id, "error", endpoint=self.urls[0], error=self._scrub(str(exc)))
        avoid: set[str] = set()
        last = "no attempt"
        url = self.urls[0]
        for attempt in range(self.cfg.retries + 1):
            url = self._pick(avoid)
            self._in_flight[url] += 1
            self.sent[url] += 1
            try:
                try:
                    status, headers, raw = await self._deadlines.run(pool.post(url + "/chat/completions", payload))
                except BadReply as exc:      # the body broke a limit: "HTTP <status>: why"
                    raise _Retryable(str(exc)) from None
                if status == 200:
                    return self._ok(custom_id, raw, url, t0, attempt)
                message = _server_message(raw, status)
                if status in RETRY_STATUSES or status >= 500:
                    ra = parse_retry_after(headers) if status in RETRY_AFTER_STATUSES else None
                    raise _Retryable(f"HTTP {status}: {message}", ra)
                return EvalReply(custom_id, "error", endpoint=url,
                                 error=self._scrub(f"HTTP {status} from {url}: {message} (not retried)"),
                                 latency_ms=(time.perf_counter() - t0) * 1000)
            except _Retryable as exc:
                last = str(exc)
                wait = exc.retry_after
                if exc.bad_server and len(self.urls) > 1:
                    avoid.add(url)
            except TimeoutError:
                last, wait = f"timed out after {self.cfg.timeout_s:g} s", None
            except TRANSPORT_ERRORS as exc:
                last, wait = f"connection failed: {exc.__class__.__name__}: {exc}", None
                if len(self.urls) > 1:
                    avoid.add(url)
            finally:
                self._in_flight[url] -= 1
            if attempt < self.cfg.retries:
                await asyncio.sleep(self._backoff(attempt, wait))
        return EvalReply(custom_id, "error", endpoint=url,
                         error=self._scrub(f"{last} (gave up after {self.cfg.retries + 1} attempts)"),
                         latency_ms=(time.perf_counter() - t0) * 1000)

    def _ok(self, custom_id: str, raw: bytes, url: str, t0: float, attempt: int) -> EvalReply:
        try:
            body = load_json_reply(raw)
        except BadReply as exc:
            raise _Retryable(self._scrub(str(exc))) from None
        notes: list[str] = []
        # counts above what the request can hold are dropped where the reply is stored
        # (outputs.output_row: it has the request, whichever route the reply took)
        parsed = parse_chat_body(body, notes)
        if isinstance(parsed, str):
            raise _Retryable(self._scrub(parsed))
        text, finish, pt, ct = parsed
        extra: dict[str, Any] = {"retries": attempt} if attempt else {}
        if notes:
            extra["notes"] = notes
        return EvalReply(custom_id, "ok", text=text, finish_reason=finish,
                         prompt_tokens=pt, completion_tokens=ct, cost=self._cost(pt, ct), endpoint=url,
                         latency_ms=(time.perf_counter() - t0) * 1000, extra=extra)

    def _backoff(self, n: int, retry_after: float | None) -> float:
        cap = self.cfg.max_backoff_s
        if retry_after is not None:
            return min(cap, retry_after)
        return min(cap, self.cfg.backoff_s * (2 ** n) * (0.5 + random.random()))

    def _cost(self, pt: int | None, ct: int | None) -> float | None:
        return cost_of(pt, ct, self.cfg.price_in_per_mtok, self.cfg.price_out_per_mtok)


def parse_chat_body(body: Any, notes: list[str] | None = None, *, prompt_limit: int | None = None,
                    completion_limit: int | None = None
                    ) -> tuple[str, str | None, int | None, int | None] | str:
    """(text, finish_reason, prompt_tokens, completion_tokens) from a chat.completion body,
    or a string saying why the body is unusable. Empty content is a valid (empty) answer.
    Text has no lone surrogates, the finish reason is printable and short, and a token
    count that is not one is dropped with a line in ``notes``."""
    parts = chat_reply_parts(body, _EXCERPT)
    if isinstance(parts, str):
        return parts
    first, msg, content, usage = parts
    if content is None:
        refusal = msg.get("refusal")
        content = f"[refusal] {refusal}" if isinstance(refusal, str) and refusal else ""
    if not isinstance(content, str):
        return "response content is not text"
    finish = clean_token(first.get("finish_reason"), 40)
    if notes is None:
        notes = []
    return (clean_text(content), finish,
            token_count(usage.get("prompt_tokens"), "prompt_tokens", notes, prompt_limit),
            token_count(usage.get("completion_tokens"), "completion_tokens", notes, completion_limit))


def _server_message(raw: bytes, status: int) -> str:
    try:
        body = load_json_reply(raw)
        err = body.get("error") if isinstance(body, dict) else None
        if isinstance(err, dict) and err.get("message"):
            return clean_text(str(err["message"])[:_EXCERPT])
        if isinstance(err, str):
            return clean_text(err[:_EXCERPT])
    except BadReply:
        pass
    text = excerpt(raw[:4 * _EXCERPT].decode("utf-8", "replace"), _EXCERPT).strip()
    return text or f"status {status}"
