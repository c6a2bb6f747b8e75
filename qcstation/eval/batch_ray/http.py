"""The worker side of the ``http`` engine: the session Ray's HTTP stage posts through.

Ray Data LLM's ``HttpRequestUDF`` (built by ``HttpRequestProcessorConfig`` +
``build_processor``) opens ``async with session_factory() as session`` once per batch,
calls ``session.post(url, headers=..., data=json.dumps(row["payload"]))`` for every row
and then ``await``\\ s each request and reads ``await response.json()``. Left to itself it
would read a reply whole (no size cap after decompression), raise on a reply that is not
JSON, on a connection that fails after its retries, or on a reply that holds the column
name it reserves, and so fail the job.

:class:`SessionFactory` is the ``session_factory`` given to Ray. Its session sends each
row's body through one :class:`~qcstation.eval.backends.openai_compat.OpenAIBackend` per
worker process (``OpenAIBackend.send``: the built-in client's retries, caps, load sharing
over base URLs and key handling), at most ``in_flight`` requests at once per process, all
requests of a batch started at once. Its response always has status 200 and JSON
``{"line": <one OpenAI Batch output line>, "ok": <False for an error line>}``, so
Ray never retries, never raises, and the postprocess only passes the line on.

The API key is read here, in the worker, from ``$api_key_env``: the factory carries the
variable's name (it is pickled into every actor), never its value.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Generator
from typing import Any

from qcstation.common.config import ModelConfig
from qcstation.eval.backends.openai_compat import OpenAIBackend
from qcstation.eval.batch_ray.rows import error_line, reply_line


class SessionFactory:
    """``session_factory`` for Ray's ``HttpRequestProcessorConfig`` (picklable: a model
    configuration, which names the key variable, and a number)."""

    def __init__(self, model_cfg: ModelConfig, in_flight: int) -> None:
        if in_flight < 1:
            raise ValueError("in_flight must be positive")
        self.model_cfg = model_cfg
        self.in_flight = in_flight
        self._backend: OpenAIBackend | None = None
        self._gate: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"model_cfg": self.model_cfg, "in_flight": self.in_flight}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["model_cfg"], state["in_flight"])   # type: ignore[misc]

    def __call__(self) -> Session:
        loop = asyncio.get_running_loop()
        if self._backend is None or self._loop is not loop:
            # one backend (one pooled connection set) per worker process and event loop
            self._backend = OpenAIBackend(self.model_cfg)
            self._gate = asyncio.Semaphore(self.in_flight)
            self._loop = loop
        assert self._gate is not None
        return Session(self._backend, self._gate)

    async def aclose(self) -> None:
        if self._backend is not None:
            await self._backend.aclose()


class Session:
    """What ``HttpRequestUDF`` takes for an ``aiohttp.ClientSession``: ``async with``,
    ``post``. Requests start when posted (the stage awaits them one after another)."""

    def __init__(self, backend: OpenAIBackend, gate: asyncio.Semaphore) -> None:
        self.backend = backend
        self.gate = gate

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None          # the backend outlives the batch: its connections are reused

    def post(self, url: str, headers: Any = None, data: Any = None, **_: Any) -> _Pending:
        return _Pending(asyncio.ensure_future(self._send(data)))

    async def _send(self, data: Any) -> Response:
        cid = ""
        try:
            payload = json.loads(data)
            cid = str(payload["custom_id"])
            body = str(payload["body"]).encode("utf-8")
        except (TypeError, ValueError, KeyError) as exc:
            return Response(error_line(cid, f"the row is not a request of this route ({exc})"), False)
        try:
            async with self.gate:
                reply = await self.backend.send(cid, body)
            return Response(*reply_line(reply))
        except asyncio.CancelledError:
            raise
        except Exception as exc:    # noqa: BLE001 - one row's failure is that row's error line
            return Response(error_line(cid, f"{type(exc).__name__}: {exc}"), False)


class _Pending:
    """``await`` it for the :class:`Response` (the request is already under way)."""

    def __init__(self, task: asyncio.Future[Response]) -> None:
        self.task = task

    def __await__(self) -> Generator[Any, None, Response]:
        return self.task.__await__()


class Response:
    """Status 200 and ``{"line": ..., "ok": ...}``; ``async with`` as an aiohttp response."""

    status = 200
    reason = "OK"

    def __init__(self, line: str, ok: bool) -> None:
        self.line = line
        self.ok = ok

    async def __aenter__(self) -> Response:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def json(self, **_: Any) -> dict[str, Any]:
        return {"line": self.line, "ok": self.ok}
