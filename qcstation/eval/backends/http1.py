"""HTTP/1.1 POSTs on a pool of keep-alive connections, over aiohttp's own protocol and parser.

The evaluation client sends many small requests, so the CPU it spends on each decides a
run's throughput on a busy machine. ``aiohttp.ClientSession`` spends most of it outside
the wire (URL and header objects, cookie jar, tracing hooks, timers, a response object):
~350 µs of CPU a request at concurrency 64, this pool ~150 µs for the same exchange
(``bench/eval_bench.py``). What a hostile server sends is read exactly as aiohttp reads
it: by aiohttp's ``ResponseHandler`` and its C ``HttpResponseParser`` (limits on line,
field and header count; chunked, ``Content-Length`` and read-until-close bodies;
keep-alive rules), with its flow control (a connection's unread body is bounded by
``read_bufsize``). Written here are only the request (one buffer: request line, ``Host``,
the pool's fixed headers, ``Content-Length``, body) and the pool.

* :meth:`PostPool.post` returns ``(status, headers, body)`` of the final response (1xx
  skipped), the body decoded and bounded by :class:`~qcstation.common.http_retry.BodyDecoder`
  (``limit`` after decompression: a bomb never inflates). A body past its limit is
  :class:`~qcstation.common.http_retry.BadReply` (``"HTTP <status>: why"``); the
  connection is then closed.
* A connection goes back to the pool only after a whole response on a connection the
  server keeps open; any failure, cancel or timeout closes it. Idle connections are
  dropped after ``keepalive_s``.
* :class:`Deadlines` bounds the time of many exchanges of one length on one timer (what
  ``asyncio.timeout`` does with a timer, a heap entry and a context object per request).
* Failures are raised as the transport raises them: :class:`OSError` (connect, reset,
  TLS), ``aiohttp.ClientError`` (server disconnected, bad payload),
  ``aiohttp.http_exceptions.HttpProcessingError`` (a response the parser refuses). The
  caller bounds the time (:class:`Deadlines`, or ``asyncio.timeout``). No redirect is followed, no proxy used,
  no cookie kept (as the session this replaces was configured).
"""

from __future__ import annotations

import asyncio
import collections
import ssl as _ssl
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any

from qcstation.common.http_retry import MAX_BODY_BYTES, BadReply, BodyDecoder

__all__ = ["Deadlines", "PostPool", "TRANSPORT_ERRORS"]


def _transport_errors() -> tuple[type[BaseException], ...]:
    import aiohttp
    from aiohttp.http_exceptions import HttpProcessingError

    return (OSError, aiohttp.ClientError, HttpProcessingError)


#: what a failed exchange raises (besides a timeout and BadReply)
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = _transport_errors()


@dataclass(frozen=True)
class _Target:
    origin: tuple[str, str, int]          # scheme, host, port: the pool key
    host: str
    port: int
    tls: bool
    head: bytes                           # request line, Host and fixed headers, "Content-Length: "


class PostPool:
    """Keep-alive connections per origin for ``POST`` requests with fixed ``headers``."""

    def __init__(self, headers: Mapping[str, str], *, keepalive_s: float = 30.0,
                 read_bufsize: int = 2**16, limit: int = MAX_BODY_BYTES) -> None:
        for k, v in headers.items():
            if any(c in str(k) + str(v) for c in "\r\n\0"):
                raise ValueError(f"the {k} header holds a line break or a NUL")
        self._fixed = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.keepalive_s = keepalive_s
        self.read_bufsize = read_bufsize
        self.limit = limit
        self._targets: dict[str, _Target] = {}
        self._idle: dict[tuple[str, str, int], list[tuple[Any, float]]] = {}
        self._tls: _ssl.SSLContext | None = None
        self.closed = False
        self.connections = 0          # opened so far (diagnostics, tests)

    def _target(self, url: str) -> _Target:
        t = self._targets.get(url)
        if t is not None:
            return t
        from yarl import URL

        u = URL(url)
        if u.scheme not in ("http", "https") or not u.raw_host or u.port is None:
            raise ValueError(f"not an http(s) URL: {url[:200]!r}")
        host = u.raw_host
        netloc = f"[{host}]" if ":" in host else host
        if u.explicit_port is not None and u.port != (443 if u.scheme == "https" else 80):
            netloc += f":{u.port}"
        target = u.raw_path_qs or "/"
        if any(c in target + netloc for c in "\r\n\0 "):
            raise ValueError(f"URL holds a space or a line break: {url[:200]!r}")
        head = (f"POST {target} HTTP/1.1\r\nHost: {netloc}\r\n{self._fixed}Content-Length: ").encode("utf-8")
        t = _Target((u.scheme, host, u.port), host, u.port, u.scheme == "https", head)
        if len(self._targets) < 64:
            self._targets[url] = t
        return t

    def _take_idle(self, origin: tuple[str, str, int]) -> Any:
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            proto, since = idle.pop()
            if now - since <= self.keepalive_s and proto.is_connected() and not proto.should_close:
                return proto
            proto.close()
        return None

    async def _connect(self, t: _Target) -> Any:
        from aiohttp.client_proto import ResponseHandler

        loop = asyncio.get_running_loop()
        ctx = None
        if t.tls:
            if self._tls is None:
                self._tls = _ssl.create_default_context()
            ctx = self._tls
        _, proto = await loop.create_connection(lambda: ResponseHandler(loop), t.host, t.port,
                                                ssl=ctx, server_hostname=t.host if ctx else None)
        # one parser for the connection's life: llhttp reads the responses of a keep-alive
        # connection one after another (a connection goes back to the pool only after a
        # whole response), as aiohttp's server reads its requests; a new one per request
        # (as ClientSession makes) costs a parser's construction each time
        proto.set_response_params(auto_decompress=False, read_until_eof=True,
                                  read_bufsize=self.read_bufsize)
        self.connections += 1
        return proto

    async def post(self, url: str, body: bytes) -> tuple[int, Mapping[str, str], bytes]:
        """POST ``body`` to ``url``: the final response's status, headers and decoded body."""
        if self.closed:
            raise RuntimeError("the connection pool is closed")
        t = self._target(url)
        proto = self._take_idle(t.origin)
        if proto is None:     # (not ``or``: a protocol with no message queued is falsy)
            proto = await self._connect(t)
        reuse = False
        try:
            transport = proto.transport
            if transport is None:
                raise ConnectionResetError("the connection closed before the request was sent")
            transport.write(t.head + b"%d\r\n\r\n" % len(body) + body)
            while True:
                message, payload = await proto.read()
                if not 100 <= message.code < 200 or message.code == 101:
                    break
            try:
                raw = await _read_body(message.headers, payload, self.limit)
            except BadReply as exc:
                raise BadReply(f"HTTP {message.code}: {exc}") from None
            reuse = not message.should_close and not proto.should_close and message.code != 101
            return message.code, message.headers, raw
        finally:
            if reuse and not self.closed:
                self._idle.setdefault(t.origin, []).append((proto, time.monotonic()))
            else:
                proto.close()

    def close(self) -> None:
        """Close every idle connection (those in use close as their request ends)."""
        self.closed = True
        for idle in self._idle.values():
            for proto, _ in idle:
                proto.close()
        self._idle.clear()


async def _read_body(headers: Mapping[str, str], payload: Any, limit: int) -> bytes:
    """The decoded body; :class:`~qcstation.common.http_retry.BadReply` once it passes
    ``limit`` (counted after decompression)."""
    encoding = headers.get("Content-Encoding")
    if not encoding:
        length = headers.get("Content-Length")
        if length is not None and length.isdigit() and len(length) < 12 and int(length) <= limit:
            # the common case: one read, bounded; a body already whole (a small reply
            # arrives with its head) is taken as it is, without a coroutine
            if payload.is_eof():
                raw = payload.read_nowait(-1)
                if payload.at_eof():
                    return bytes(raw)
                return bytes(raw) + bytes(await payload.read())
            return bytes(await payload.read())
    dec = BodyDecoder(encoding, limit)
    while True:
        chunk = await payload.readany()
        if not chunk:
            break
        dec.feed(chunk)
    return dec.finish()


class _Bound:
    """One awaited exchange under :class:`Deadlines`: its deadline, task and state."""

    __slots__ = ("when", "task", "state", "cancelling")

    def __init__(self, when: float, task: asyncio.Task[Any], cancelling: int) -> None:
        self.when, self.task, self.state, self.cancelling = when, task, _RUNNING, cancelling


_RUNNING, _DONE, _EXPIRED = 0, 1, 2


class Deadlines:
    """``await deadlines.run(aw)`` is ``aw`` bounded by ``timeout_s`` as
    ``async with asyncio.timeout(timeout_s): await aw`` bounds it: past the deadline the task
    is cancelled and :class:`TimeoutError` raised in its place; a cancel from elsewhere (or
    both) stays a ``CancelledError``. Every exchange has the same length, so deadlines come
    in the order the exchanges start: they wait in a queue, and one timer, set for the
    earliest, cancels what has run out and is set again for the next (asyncio.timeout keeps a
    timer, a heap entry and a context object per exchange; an evaluation makes thousands a
    second). Finished exchanges leave the queue's front as the next one starts, so it holds
    about what is in flight (at most what starts within ``timeout_s``). One event loop at a
    time (a new loop starts a new queue)."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = float(timeout_s)
        self._q: collections.deque[_Bound] = collections.deque()
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slack = time.get_clock_info("monotonic").resolution   # as the loop fires timers

    async def run(self, aw: Awaitable[Any]) -> Any:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        if task is None:   # pragma: no cover - not in a task: asyncio.timeout refuses it too
            raise RuntimeError("Deadlines.run() must be awaited in a task")
        if loop is not self._loop:
            self._loop, self._handle = loop, None
            self._q.clear()
        b = _Bound(loop.time() + self.timeout_s, task, task.cancelling())
        q = self._q
        while q and q[0].state != _RUNNING:
            q.popleft()
        q.append(b)
        if self._handle is None:
            self._handle = loop.call_at(b.when, self._fire)
        try:
            result = await aw
        except BaseException as exc:
            # (as asyncio.timeout's exit: the cancel it made is taken back, and is a timeout
            # unless the task was cancelled from elsewhere too)
            if b.state == _EXPIRED and task.uncancel() <= b.cancelling \
                    and isinstance(exc, asyncio.CancelledError):
                raise TimeoutError from None
            raise
        else:
            if b.state == _EXPIRED:
                task.uncancel()
            return result
        finally:
            if b.state == _RUNNING:
                b.state = _DONE

    def _fire(self) -> None:
        self._handle = None
        loop = self._loop
        if loop is None:   # pragma: no cover
            return
        q = self._q
        now = loop.time() + self._slack
        while q:
            b = q[0]
            if b.state == _RUNNING:
                if b.when > now:
                    self._handle = loop.call_at(b.when, self._fire)
                    return
                b.state = _EXPIRED
                b.task.cancel()
            q.popleft()
