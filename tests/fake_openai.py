"""A real, scriptable OpenAI-compatible HTTP server on 127.0.0.1 for tests.

Stdlib only. It listens on a random free loopback port in a background thread and
speaks ``POST /v1/chat/completions`` and ``GET /v1/models`` with proper
``chat.completion`` JSON (including ``usage``).

Scripting: each chat request consumes the next queued behaviour; when the queue is
empty the *default responder* ``(request_json) -> str`` supplies the content::

    with FakeOpenAI() as fake:                 # or the ``fake_openai`` pytest fixture
        fake.status(429, retry_after=1)        # 1st request: 429 + Retry-After: 1
        fake.status(500)                       # 2nd request: 500
        fake.delay(2.0)                        # 3rd: sleep 2 s, then answer (client timeout)
        fake.garbage()                         # 4th: 200 with a body that is not JSON
        fake.empty_choices()                   # 5th: 200 with "choices": []
        fake.reply("42")                       # 6th: content "42"
        fake.responder = lambda req: "hello"   # everything after that
        ...
        fake.requests            # every request received (RecordedRequest), in order
        fake.chat_requests       # only POST /v1/chat/completions
        fake.max_in_flight       # highest number of chat requests processed at once

Hostile modes (issue 18: a server attacking its client)::

        fake.raw(gzip.compress(b" " * 2**30), headers={"Content-Encoding": "gzip"})   # a bomb
        fake.body({"choices": [{"message": {"content": "\ud800"}, "finish_reason": "\x1b]52;c;UFdORUQ=\x07"}]})
        fake.hang()                            # accept the request, never answer
        fake.raw_responder = lambda req: (200, {"Content-Encoding": "gzip"}, bomb)   # every reply
        fake.chat_body = lambda req, body: {**body, "usage": {"prompt_tokens": 2**70}}  # every reply

``fake.body(obj)`` sends ``obj`` as JSON verbatim (``ensure_ascii``: a lone surrogate goes out
as ``\ud800``, as a hostile server would send it); ``fake.raw(bytes)`` sends bytes verbatim.
``fake.hostile(text=..., finish_reason=..., model=..., usage=...)`` makes every default reply
a chat.completion with those fields as given.

``fake.default_delay`` (seconds) makes every default reply slow, so tests can observe
how many requests a client keeps in flight. Use ``fake.base_url`` as the client's
``base_url`` (it ends in ``/v1``).

In tests import the fixture: ``from tests.fake_openai import fake_openai``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Responder = Callable[[dict[str, Any]], str]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]          # lower-cased header names
    body: dict[str, Any] | None      # parsed JSON body (None when absent or not JSON)
    raw_body: bytes
    at: float                        # time.monotonic() when received

    @property
    def authorization(self) -> str | None:
        return self.headers.get("authorization")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("messages") or [])


@dataclass
class _Behaviour:
    kind: str                        # reply | status | delay | garbage | empty_choices | empty_content | drop
    text: str | None = None
    code: int = 200
    retry_after: float | str | None = None
    message: str | None = None
    seconds: float = 0.0
    finish_reason: str = "stop"
    usage: dict[str, int] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    obj: Any = None


def default_responder(request: dict[str, Any]) -> str:
    """Deterministic content: echoes the last user message."""
    last = ""
    for m in request.get("messages") or []:
        if isinstance(m, dict) and m.get("role") == "user":
            last = str(m.get("content"))
    return f"echo: {last}"


def _count_tokens(text: str) -> int:
    return max(1, len(text.split()))


class FakeOpenAI:
    """Scriptable loopback OpenAI-compatible server (see module docstring)."""

    def __init__(self, responder: Responder | None = None, *, model: str = "fake-model") -> None:
        self.responder: Responder = responder or default_responder
        self.model = model
        self.default_delay: float = 0.0
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._script: deque[_Behaviour] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._ids = 0
        # hostile modes for every default reply (see the module docstring)
        self.raw_responder: Callable[[dict[str, Any]], tuple[int, dict[str, str], bytes]] | None = None
        self.chat_body: Callable[[dict[str, Any], dict[str, Any]], Any] | None = None
        self.models_status = 200        # GET /v1/models answers this (401: the key is refused)
        self.models_message = "invalid api key"

    # -- lifecycle --------------------------------------------------------------------
    def start(self) -> "FakeOpenAI":
        if self._server is not None:
            return self
        handler = _make_handler(self)
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        server.handle_error = lambda request, client_address: None   # type: ignore[method-assign]  # clients that hang up
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()           # wakes handlers sleeping in delay()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("fake server not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Server root, e.g. ``http://127.0.0.1:43123``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as ``base_url``: ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    # -- scripting --------------------------------------------------------------------
    def _push(self, b: _Behaviour) -> "FakeOpenAI":
        with self._lock:
            self._script.append(b)
        return self

    def reply(self, text: str, *, finish_reason: str = "stop",
              prompt_tokens: int | None = None, completion_tokens: int | None = None) -> "FakeOpenAI":
        usage = None
        if prompt_tokens is not None or completion_tokens is not None:
            usage = {"prompt_tokens": prompt_tokens or 0, "completion_tokens": completion_tokens or 0}
        return self._push(_Behaviour("reply", text=text, finish_reason=finish_reason, usage=usage))

    def status(self, code: int, *, retry_after: float | str | None = None,
               message: str | None = None, headers: dict[str, str] | None = None) -> "FakeOpenAI":
        """Answer with HTTP ``code`` and an OpenAI-style error body. ``retry_after`` is sent
        verbatim as the Retry-After header (seconds, or an HTTP date string)."""
        return self._push(_Behaviour("status", code=code, retry_after=retry_after,
                                     message=message, headers=dict(headers or {})))

    def delay(self, seconds: float, text: str | None = None) -> "FakeOpenAI":
        """Sleep ``seconds`` before answering (``text`` or the default responder)."""
        return self._push(_Behaviour("delay", seconds=seconds, text=text))

    def garbage(self, body: str = "<html>this is not json {") -> "FakeOpenAI":
        return self._push(_Behaviour("garbage", text=body))

    def empty_choices(self) -> "FakeOpenAI":
        return self._push(_Behaviour("empty_choices"))

    def empty_content(self) -> "FakeOpenAI":
        return self._push(_Behaviour("empty_content"))

    def drop(self) -> "FakeOpenAI":
        """Close the connection without sending any response."""
        return self._push(_Behaviour("drop"))

    def raw(self, body: bytes, *, status: int = 200, headers: dict[str, str] | None = None) -> "FakeOpenAI":
        """Answer with exactly these bytes (and headers): bombs, non-UTF-8, deep nesting."""
        return self._push(_Behaviour("raw", raw=body, code=status, headers=dict(headers or {})))

    def body(self, obj: Any, *, status: int = 200) -> "FakeOpenAI":
        """Answer with ``obj`` as JSON, whatever it holds (lone surrogates escaped as JSON does)."""
        return self._push(_Behaviour("body", obj=obj, code=status))

    def hang(self) -> "FakeOpenAI":
        """Take the request and never answer (until the server stops)."""
        return self._push(_Behaviour("hang"))

    def hostile(self, *, text: Any = "42", finish_reason: Any = "stop", model: Any = None,
                usage: Any = None, extra: dict[str, Any] | None = None) -> "FakeOpenAI":
        """Every default reply: a chat.completion with these fields exactly as given."""
        def make(request: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
            body["choices"][0]["message"]["content"] = text(request) if callable(text) else text
            body["choices"][0]["finish_reason"] = finish_reason
            if model is not None:
                body["model"] = model
            if usage is not None:
                body["usage"] = usage
            body.update(extra or {})
            return body
        self.chat_body = make
        return self

    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    def reset(self) -> None:
        with self._lock:
            self._script.clear()
            self.requests.clear()
            self.max_in_flight = 0

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path.endswith("/chat/completions")]

    # -- internals used by the handler -----------------------------------------------------
    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def _next(self) -> _Behaviour | None:
        with self._lock:
            return self._script.popleft() if self._script else None

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _completion(self, request: dict[str, Any], text: str | None, *, finish_reason: str = "stop",
                    usage: dict[str, int] | None = None, choices: bool = True) -> dict[str, Any]:
        with self._lock:
            self._ids += 1
            n = self._ids
        prompt_text = " ".join(str(m.get("content", "")) for m in request.get("messages") or []
                               if isinstance(m, dict))
        u = usage or {"prompt_tokens": _count_tokens(prompt_text),
                      "completion_tokens": _count_tokens(text or "")}
        u = {**u, "total_tokens": u["prompt_tokens"] + u["completion_tokens"]}
        body: dict[str, Any] = {
            "id": f"chatcmpl-fake{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(request.get("model") or self.model),
            "choices": [],
            "usage": u,
        }
        if choices:
            body["choices"] = [{
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish_reason,
                "logprobs": None,
            }]
        return body


def _make_handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "FakeOpenAI/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _read_body(self) -> bytes:
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(n) if n else b""

        def _send(self, code: int, body: bytes, *, content_type: str = "application/json",
                  headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                self.close_connection = True  # the client gave up (e.g. timed out)

        def _send_json(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
            self._send(code, json.dumps(obj).encode(), headers=headers)

        def _recorded(self, raw: bytes) -> RecordedRequest:
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            req = RecordedRequest(
                method=self.command, path=self.path.split("?", 1)[0],
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body if isinstance(body, dict) else None, raw_body=raw, at=time.monotonic(),
            )
            fake._record(req)
            return req

        def do_GET(self) -> None:
            self._recorded(b"")
            if self.path.split("?", 1)[0].rstrip("/") == "/v1/models" and fake.models_status != 200:
                self._send_json(fake.models_status, {"error": {"message": fake.models_message}})
            elif self.path.split("?", 1)[0].rstrip("/") == "/v1/models":
                self._send_json(200, {"object": "list", "data": [
                    {"id": fake.model, "object": "model", "created": 0, "owned_by": "fake"}]})
            else:
                self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            raw = self._read_body()
            req = self._recorded(raw)
            if req.path.rstrip("/") != "/v1/chat/completions":
                self._send_json(404, {"error": {"message": f"no route {req.path}", "type": "not_found"}})
                return
            if req.body is None:
                self._send_json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                return
            fake._enter()
            left = False

            def leave() -> None:
                nonlocal left
                if not left:
                    left = True
                    fake._leave()

            try:
                self._chat(req.body, leave)
            finally:
                leave()

        def _chat(self, request: dict[str, Any], leave: Callable[[], None]) -> None:
            b = fake._next()
            if b is None:
                if fake.default_delay:
                    fake._stopping.wait(fake.default_delay)
                if fake.raw_responder is not None:
                    code, headers, raw = fake.raw_responder(request)
                    leave()
                    self._send(code, raw, headers=headers)
                    return
                text = fake.responder(request)
                leave()  # count a request as in flight until its answer starts going out
                body = fake._completion(request, text)
                if fake.chat_body is not None:
                    body = fake.chat_body(request, body)
                self._send_json(200, body)
                return
            if b.kind == "reply":
                leave()
                self._send_json(200, fake._completion(request, b.text, finish_reason=b.finish_reason,
                                                      usage=b.usage))
            elif b.kind == "delay":
                fake._stopping.wait(b.seconds)
                text = b.text if b.text is not None else fake.responder(request)
                leave()
                self._send_json(200, fake._completion(request, text))
            elif b.kind == "status":
                headers = dict(b.headers)
                if b.retry_after is not None:
                    ra = b.retry_after
                    headers["Retry-After"] = (str(int(ra)) if isinstance(ra, (int, float)) and float(ra).is_integer()
                                              else str(ra))
                etype = {400: "invalid_request_error", 401: "invalid_api_key", 404: "model_not_found",
                         429: "rate_limit_exceeded"}.get(b.code, "server_error")
                msg = b.message or f"fake error {b.code}"
                leave()
                self._send_json(b.code, {"error": {"message": msg, "type": etype, "code": etype}}, headers)
            elif b.kind == "garbage":
                leave()
                self._send(200, (b.text or "").encode())
            elif b.kind == "empty_choices":
                leave()
                self._send_json(200, fake._completion(request, None, choices=False))
            elif b.kind == "empty_content":
                leave()
                self._send_json(200, fake._completion(request, ""))
            elif b.kind == "raw":
                leave()
                self._send(b.code, b.raw or b"", headers=b.headers)
            elif b.kind == "body":
                leave()
                self._send(b.code, json.dumps(b.obj).encode())
            elif b.kind == "hang":
                fake._stopping.wait(3600)
                leave()
                self.close_connection = True
            elif b.kind == "drop":
                leave()
                self.close_connection = True
                try:
                    self.connection.shutdown(2)
                except OSError:
                    pass
            else:  # pragma: no cover - programming error in a test
                raise ValueError(f"unknown behaviour {b.kind}")

    return Handler


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A started :class:`FakeOpenAI`; stopped after the test."""
    with FakeOpenAI() as fake:
        yield fake
