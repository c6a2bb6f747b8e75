"""The evaluation client's HTTP/1.1 pool (qcstation/eval/backends/http1.py) against real
loopback servers that write exactly the bytes each test scripts: keep-alive reuse, servers
that close, chunked and gzip bodies, bodies past the cap, a server dying mid-body, 1xx
responses, timeouts (one timer for many exchanges: Deadlines) and what is sent (request
line, Host, headers, body)."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Awaitable, Callable

import pytest

from qcstation.common.http_retry import BadReply
from qcstation.eval.backends.http1 import TRANSPORT_ERRORS, Deadlines, PostPool

Handler = Callable[[bytes, asyncio.StreamWriter], Awaitable[bool]]


async def _read_request(reader: asyncio.StreamReader) -> bytes | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head + await reader.readexactly(length)


class Server:
    """Answers each request with ``handler(request_bytes, writer)``; the connection stays
    open while the handler returns True. Records requests and connections."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[bytes] = []
        self.connections = 0

    async def __aenter__(self) -> Server:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            try:
                while True:
                    req = await _read_request(reader)
                    if req is None:
                        break
                    self.requests.append(req)
                    keep = await self.handler(req, writer)
                    await writer.drain()
                    if not keep:
                        break
            except (ConnectionError, asyncio.IncompleteReadError):
                pass
            finally:
                writer.close()

        self.server = await asyncio.start_server(serve, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1/chat/completions"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()


def _ok(body: bytes, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s" % (
        len(body), extra, body)


def run(coro: Awaitable[object]) -> None:
    async def bounded() -> None:
        await asyncio.wait_for(coro, 60)

    asyncio.run(bounded())


def test_keep_alive_reuses_one_connection_and_sends_the_request_as_given() -> None:
    async def handler(req: bytes, w: asyncio.StreamWriter) -> bool:
        w.write(_ok(b'{"n": %d}' % len(req)))
        return True

    async def main() -> None:
        async with Server(handler) as srv:
            pool = PostPool({"Content-Type": "application/json", "Authorization": "Bearer k"})
            for i in range(5):
                status, headers, body = await pool.post(srv.url, b'{"i": %d}' % i)
                assert status == 200 and headers["Content-Type"] == "application/json"
                assert body.startswith(b'{"n": ')
            pool.close()
            assert srv.connections == 1 and pool.connections == 1
            head, _, body = srv.requests[3].partition(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            assert lines[0] == b"POST /v1/chat/completions HTTP/1.1"
            port = srv.url.split(":")[2].split("/")[0]
            assert lines[1] == b"Host: 127.0.0.1:" + port.encode()
            assert b"Authorization: Bearer k" in lines and b"Content-Length: 8" in lines
            assert body == b'{"i": 3}'

    run(main())


def test_a_server_that_closes_after_each_reply_gets_a_new_connection_each_time() -> None:
    async def handler(req: bytes, w: asyncio.StreamWriter) -> bool:
        w.write(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\": 1}")   # read until close
        return False

    async def main() -> None:
        async with Server(handler) as srv:
            pool = PostPool({})
            for _ in range(3):
                status, _, body = await pool.post(srv.url, b"{}")
                assert (status, body) == (200, b'{"a": 1}')
            pool.close()
            assert srv.connections == pool.connections == 3

    run(main())


def test_chunked_gzip_and_1xx_bodies_are_read_whole() -> None:
    payload = b'{"text": "' + b"x" * 5000 + b'"}'
    packed = gzip.compress(payload)

    async def handler(req: bytes, w: asyncio.StreamWriter) -> bool:
        w.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        w.write(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n")
        for i in range(0, len(packed), 100):
            part = packed[i:i + 100]
            w.write(b"%x\r\n%s\r\n" % (len(part), part))
        w.write(b"0\r\n\r\n")
        return True

    async def main() -> None:
        async with Server(handler) as srv:
            pool = PostPool({})
            for _ in range(2):
                status, _, body = await pool.post(srv.url, b"{}")
                assert (status, body) == (200, payload)
            pool.close()
            assert srv.connections == 1

    run(main())


def test_a_body_past_the_cap_is_refused_and_its_connection_closed() -> None:
    bomb = gzip.compress(b" " * (4 * 2**20))

    async def handler(req: bytes, w: asyncio.StreamWriter) -> bool:
        if b'"bomb"' in req:
            w.write(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (len(bomb), bomb))
        elif b'"big"' in req:
            w.write(_ok(b"y" * 300_000))
        else:
            w.write(_ok(b"{}"))
        return True

    async def main() -> None:
        async with Server(handler) as srv:
            pool = PostPool({}, limit=2**20)
            with pytest.raises(BadReply, match=r"HTTP 200: reply larger than 1 MiB"):
                await pool.post(srv.url, b'"bomb"')
            small = PostPool({}, limit=100_000)
            with pytest.raises(BadReply, match="HTTP 200"):
                await small.post(srv.url, b'"big"')
            assert (await pool.post(srv.url, b"{}"))[2] == b"{}"
            pool.close()
            small.close()
            assert srv.connections == 3     # each refused body's connection was closed

    run(main())


def test_a_server_dying_mid_body_or_sending_garbage_is_a_transport_error() -> None:
    async def handler(req: bytes, w: asyncio.StreamWriter) -> bool:
        if b'"cut"' in req:
            w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"partial")
            return False
        if b'"garbage"' in req:
            w.write(b"NOT HTTP AT ALL\r\n\r\n")
            return False
        if b'"silent"' in req:
            return False
        w.write(_ok(b"{}"))
        return True

    async def main() -> None:
        async with Server(handler) as srv:
            pool = PostPool({})
            for what in (b'"cut"', b'"garbage"', b'"silent"'):
                with pytest.raises(TRANSPORT_ERRORS):
                    await pool.post(srv.url, what)
            assert (await pool.post(srv.url, b"{}"))[2] == b"{}"
            pool.close()

    run(main())


def test_a_timeout_closes_the_connection_it_cut() -> None:
    hang = asyncio.Event()

    async def handler(req: bytes, w: asyncio.StreamWriter) -> bool:
        if b'"hang"' in req:
            await hang.wait()
            return False
        w.write(_ok(b"{}"))
        return True

    async def main() -> None:
        async with Server(handler) as srv:
            pool = PostPool({})
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.2):
                    await pool.post(srv.url, b'"hang"')
            hang.set()
            assert (await pool.post(srv.url, b"{}"))[2] == b"{}"
            pool.close()
            assert pool.connections == 2      # the cut one was not reused

    run(main())


def test_deadlines_bound_each_exchange_as_asyncio_timeout_does() -> None:
    """Deadlines.run: exchanges that hang past the deadline raise TimeoutError (their
    connections cut, never reused), those that answer return their reply, a cancel from
    elsewhere stays a cancel (the task's cancel count as before), the queue holds about what
    is in flight, and a new event loop (a new run) is bounded too."""
    hang = asyncio.Event()

    async def handler(req: bytes, w: asyncio.StreamWriter) -> bool:
        if b'"hang"' in req:
            await hang.wait()
            return False
        w.write(_ok(b"{}"))
        return True

    async def main() -> Deadlines:
        async with Server(handler) as srv:
            pool = PostPool({})
            short, long = Deadlines(0.2), Deadlines(60.0)

            async def ask(d: Deadlines, what: bytes) -> object:
                try:
                    return (await d.run(pool.post(srv.url, what)))[2]
                except TimeoutError:
                    return "timeout"

            got = await asyncio.gather(*(ask(short, b'"hang"' if i % 3 == 0 else b"{}") for i in range(12)))
            assert got == ["timeout" if i % 3 == 0 else b"{}" for i in range(12)]
            for _ in range(200):      # answered ones leave the queue as the next one starts
                assert await long.run(pool.post(srv.url, b"{}")) is not None
                assert len(long._q) <= 2
            task = asyncio.ensure_future(long.run(pool.post(srv.url, b'"hang"')))
            while not srv.requests[-1].endswith(b'"hang"'):    # polled: it is in flight
                assert not task.done()
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            me = asyncio.current_task()
            assert me is not None and me.cancelling() == 0
            hang.set()
            assert await short.run(pool.post(srv.url, b"{}")) is not None
            pool.close()
            return short

    short = asyncio.run(main())
    hang = asyncio.Event()

    async def again() -> None:        # the same Deadlines in another loop
        async with Server(handler) as srv:
            pool = PostPool({})
            with pytest.raises(TimeoutError):
                await short.run(pool.post(srv.url, b'"hang"'))
            hang.set()
            pool.close()

    run(again())


def test_a_connection_refused_is_a_transport_error() -> None:
    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        pool = PostPool({})
        with pytest.raises(TRANSPORT_ERRORS):
            await pool.post(f"http://127.0.0.1:{port}/v1/chat/completions", b"{}")

    run(main())


def test_header_injection_and_odd_urls_are_refused() -> None:
    with pytest.raises(ValueError, match="line break"):
        PostPool({"Authorization": "Bearer k\r\nX-Evil: 1"})
    pool = PostPool({})
    for url in ("ftp://h/x", "http:///x", "http://h:99999/x"):
        with pytest.raises(ValueError):
            run(pool.post(url, b"{}"))
