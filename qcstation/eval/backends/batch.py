"""OpenAI Batch files: a run's requests out as JSONL, the servers' results back in.

The same files serve three routes for work past one machine:

* the OpenAI Batch API (upload the input file, ``POST /v1/batches``, download the output);
* ``vllm run-batch -i in.jsonl -o out.jsonl --model M`` on a GPU node;
* a Ray cluster with Ray Data's LLM processors (``qcstation eval ray-batch``,
  :mod:`qcstation.eval.batch_ray`).

Input line (one request)::

    {"custom_id": "run3-seed17-final-s0", "method": "POST", "url": "/v1/chat/completions",
     "body": {"model": "...", "messages": [...], "temperature": 0.0, "max_tokens": 1024}}

``body.seed`` is set when sampling (temperature > 0), so the samples of an item differ from
each other and a re-run draws the same ones (:func:`sample_seed`).

Output line (one result; OpenAI and ``vllm run-batch`` write the same shape)::

    {"id": "batch_req_...", "custom_id": "...",
     "response": {"status_code": 200, "request_id": "...", "body": {<chat.completion>}},
     "error": null}

A result with a non-200 status or an ``error`` becomes an error reply (the request failed:
it stays in the denominator). A line that cannot be read at all (not JSON, an object with a
key twice, no ``custom_id``, too long...) is reported as ``FILE:LINE: message`` and skipped;
the rest of the file is still read. Every secret (:mod:`qcstation.common.redact`) is scrubbed
from a line as it is parsed, whatever field holds it. Nothing here imports Textual or talks
to a network.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from qcstation.common.errors import QCStationError, os_reason
from qcstation.common.http_retry import (
    MAX_JSON_NODES,
    DuplicateKey,
    clean_text,
    loads_strict,
    token_count,
    too_deep,
)
from qcstation.common.safe import message_text
from qcstation.eval.types import TASKS, EvalReply, EvalRequest

BATCH_URL = "/v1/chat/completions"
MAX_REQUESTS_PER_FILE = 50_000              # OpenAI Batch API: requests per input file
MAX_BYTES_PER_FILE = 190 * 1024 * 1024      # OpenAI allows 200 MB; keep a margin
MAX_LINE_BYTES = 16 * 1024 * 1024           # one output line (a chat.completion)
MAX_FILE_BYTES = 8 * 1024 * 1024 * 1024     # one output file
MAX_CUSTOM_ID = 200
MAX_LINES_PER_FILE = 5_000_000              # lines read from one output file, blank lines included
_GIVE_UP_AFTER = 20          # this many bad lines before any good one: not a batch output file
#: custom_ids whose first line is remembered to report a repeat (memory bounded whatever the
#: file's length: a repeat of a later id is not reported here; the store keeps its first reply)
TRACKED_IDS = 200_000

_CUSTOM_ID_RE = re.compile(r"^run([0-9]{1,12})-seed([0-9]{1,12})-([a-z]{1,32})-s([0-9]{1,6})$")


class BatchFileError(QCStationError):
    """A batch file that cannot be written or read at all (the message names the file)."""


def sample_seed(request: EvalRequest) -> int | None:
    """The sampling seed of a request: ``None`` for greedy decoding (temperature 0), else
    the sample index, so every sample of an item differs from the others and the same
    sample is drawn again on a re-run. Every route uses it: the openai backend, vLLM
    in-process, ``vllm run-batch``, Ray and the OpenAI Batch API."""
    if request.temperature <= 0:
        return None
    return request.sample_idx


def parse_custom_id(custom_id: str) -> tuple[int, int, str, int] | None:
    """``run3-seed17-final-s0`` -> ``(3, 17, "final", 0)``; ``None`` if it is not one of ours."""
    m = _CUSTOM_ID_RE.fullmatch(custom_id)
    if m is None or m.group(3) not in TASKS:
        return None
    return int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4))


def request_body(request: EvalRequest, *, model: str) -> dict[str, Any]:
    """The ``/v1/chat/completions`` body of one request."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [dict(m) for m in request.messages],
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
    }
    seed = sample_seed(request)
    if seed is not None:
        body["seed"] = seed
    return body


def request_line(request: EvalRequest, *, model: str) -> dict[str, Any]:
    """One line of an OpenAI Batch input file."""
    return {"custom_id": request.custom_id, "method": "POST", "url": BATCH_URL,
            "body": request_body(request, model=model)}


# -- writing --------------------------------------------------------------------------------

def part_path(path: Path, index: int) -> Path:
    """Name of part ``index`` (1-based) when an export needs several files:
    ``run3.jsonl`` -> ``run3.part001.jsonl``."""
    suffix = path.suffix or ".jsonl"
    return path.with_name(f"{path.stem if path.suffix else path.name}.part{index:03d}{suffix}")


def _link_on_the_way(path: Path) -> Path | None:
    """The first symbolic link among the folders of ``path`` as typed, and the file itself."""
    cur = Path(path.anchor) if path.is_absolute() else Path()
    for part in path.parts[1:] if path.is_absolute() else path.parts:
        cur = cur / part
        if cur.is_symlink():
            return cur
    return None


def write_batch(requests: Iterable[EvalRequest], path: str | Path, *, model: str,
                max_requests_per_file: int = MAX_REQUESTS_PER_FILE,
                max_bytes_per_file: int = MAX_BYTES_PER_FILE) -> list[Path]:
    """Write ``requests`` as OpenAI Batch input JSONL and return the files written.

    Everything fits in one file: it is ``path``. Otherwise the requests are split into
    ``<stem>.part001.jsonl``, ``<stem>.part002.jsonl``... each within the OpenAI limits
    (``max_requests_per_file`` lines, ``max_bytes_per_file`` bytes). Files appear
    atomically (written under a temporary name, then renamed) and only once every part is
    complete. No requests: no file, ``[]``.
    """
    if model.strip() == "":
        raise BatchFileError("batch export needs the model name the server should run")
    if max_requests_per_file < 1 or max_bytes_per_file < 1:
        raise ValueError("file limits must be positive")
    path = Path(path)
    directory = path.parent
    link = _link_on_the_way(path)
    if link is not None:
        raise BatchFileError(f"{link} is a symbolic link; batch files are not written through links: "
                             "give the real path with --out")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BatchFileError(f"cannot create {directory}: {exc.strerror or exc}") from None
    temps: list[Path] = []
    seen: set[str] = set()
    handle: IO[bytes] | None = None
    lines = size = 0
    try:
        for request in requests:
            cid = request.custom_id
            if cid in seen:
                raise BatchFileError(f"request {cid} appears twice; custom ids must be unique")
            seen.add(cid)
            data = (json.dumps(request_line(request, model=model), ensure_ascii=False,
                               separators=(",", ":")) + "\n").encode("utf-8")
            if len(data) > max_bytes_per_file:
                raise BatchFileError(f"request {cid} alone is {len(data)} bytes, more than a "
                                     f"batch file may hold ({max_bytes_per_file})")
            if handle is None or lines >= max_requests_per_file or size + len(data) > max_bytes_per_file:
                if handle is not None:
                    _finish(handle)
                fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
                handle = os.fdopen(fd, "wb")
                temps.append(Path(name))
                lines = size = 0
            handle.write(data)
            lines += 1
            size += len(data)
        if handle is not None:
            _finish(handle)
            handle = None
        finals = [path] if len(temps) == 1 else [part_path(path, i + 1) for i in range(len(temps))]
        for tmp, final in zip(temps, finals):
            os.replace(tmp, final)
        temps = []
        return finals
    except OSError as exc:
        raise BatchFileError(f"cannot write {path}: {os_reason(exc)}") from None
    finally:
        if handle is not None:
            handle.close()
        for tmp in temps:
            try:
                tmp.unlink()
            except OSError:
                pass


def _finish(handle: IO[bytes]) -> None:
    handle.flush()
    os.fsync(handle.fileno())
    handle.close()


# -- reading --------------------------------------------------------------------------------

def _error_text(error: Any, depth: int = 0) -> str:
    """The message of an ``error`` field: OpenAI ``{code, message}``, vLLM's plain string
    or ``ErrorResponse`` (``{"error": {...}}`` or ``{"message", "type", "code"}``)."""
    if isinstance(error, str):
        return message_text(error)
    if isinstance(error, dict):
        if isinstance(error.get("error"), (dict, str)) and depth < 3:
            return _error_text(error["error"], depth + 1)
        message = error.get("message")
        code = error.get("code") or error.get("type")
        parts = [message_text(code, 60)] if isinstance(code, (str, int)) and not isinstance(code, bool) else []
        if isinstance(message, str) and message:
            parts.append(message_text(message))
        if parts:
            return ": ".join(parts)
    return message_text(json.dumps(error, ensure_ascii=False, default=str))


def _skip_blank_run(f: Any, block: int = 1 << 20) -> int:
    """Move past the blank lines that follow (whitespace only); returns how many there were.
    A file of millions of blank lines is counted at memory speed, its line cap still applies."""
    n = 0
    while True:
        chunk = f.read(block)
        if not chunk:
            return n
        rest = chunk.lstrip()
        skipped = chunk[:len(chunk) - len(rest)]
        if rest:
            # keep the start of the next non-blank line: back to the last newline skipped
            cut = skipped.rfind(b"\n") + 1
            n += skipped.count(b"\n")
            f.seek(cut - len(chunk), 1)
            return n
        n += chunk.count(b"\n")
        if n > MAX_LINES_PER_FILE:
            return n


class _Skip(Exception):
    """A line that cannot be read; the message says why."""


def _reply(record: Any) -> EvalReply:
    if not isinstance(record, dict):
        raise _Skip(f"expected a JSON object, got {type(record).__name__}")
    cid = record.get("custom_id")
    if not isinstance(cid, str) or not cid:
        raise _Skip("no custom_id")
    if len(cid) > MAX_CUSTOM_ID:
        raise _Skip(f"custom_id longer than {MAX_CUSTOM_ID} characters")
    response = record.get("response")
    if response is not None and not isinstance(response, dict):
        raise _Skip(f"{message_text(cid, 80)}: response must be an object or null")
    extra: dict[str, Any] = {}
    if isinstance(record.get("id"), str):
        extra["batch_line_id"] = message_text(record["id"], 100)
    status = None if response is None else response.get("status_code")
    if status is not None and (not isinstance(status, int) or isinstance(status, bool)):
        raise _Skip(f"{message_text(cid, 80)}: status_code must be an integer")
    body = None if response is None else response.get("body")
    if response is not None and isinstance(response.get("request_id"), str):
        extra["request_id"] = message_text(response["request_id"], 100)
    error = record.get("error")
    if error not in (None, {}, ""):
        prefix = f"HTTP {status}: " if isinstance(status, int) and status != 200 else ""
        return EvalReply(custom_id=cid, status="error", error=f"{prefix}{_error_text(error)}",
                         extra=extra)
    if response is None:
        return EvalReply(custom_id=cid, status="error",
                         error="the batch output has neither a response nor an error", extra=extra)
    if status is not None and status != 200:
        detail = _error_text(body) if body not in (None, {}, "") else "no details"
        return EvalReply(custom_id=cid, status="error", error=f"HTTP {status}: {detail}",
                         extra=extra)
    if not isinstance(body, dict):
        return EvalReply(custom_id=cid, status="error", error="the response has no body",
                         extra=extra)
    if isinstance(body.get("model"), str):
        extra["served_model"] = message_text(body["model"], 200)
    raw_usage = body.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    notes: list[str] = []
    prompt_tokens = token_count(usage.get("prompt_tokens"), "prompt_tokens", notes)
    completion_tokens = token_count(usage.get("completion_tokens"), "completion_tokens", notes)
    if notes:
        extra["notes"] = notes
    choices = body.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    if not isinstance(choice, dict):
        return EvalReply(custom_id=cid, status="error", error="the response has no choices",
                         prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                         extra=extra)
    finish = choice.get("finish_reason")
    finish_reason = message_text(finish, 40) if isinstance(finish, str) else None
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        return EvalReply(custom_id=cid, status="error",
                         error=f"the response has no message content (finish_reason "
                               f"{finish_reason or 'none'})",
                         finish_reason=finish_reason, prompt_tokens=prompt_tokens,
                         completion_tokens=completion_tokens, extra=extra)
    return EvalReply(custom_id=cid, status="ok", text=clean_text(content), finish_reason=finish_reason,
                     prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                     extra=extra)


def read_batch_output(path: str | Path, *, problems: list[str] | None = None,
                      max_line_bytes: int = MAX_LINE_BYTES,
                      max_file_bytes: int = MAX_FILE_BYTES) -> Iterator[EvalReply]:
    """Yield one :class:`EvalReply` per result line of an OpenAI Batch output (or error)
    file, in file order (``extra["line"]`` is its line number).

    Lines that cannot be read are appended to ``problems`` as ``FILE:LINE: message`` and
    skipped; reading goes on. A ``custom_id`` seen earlier in the same file is reported
    and its later line skipped (for the first :data:`TRACKED_IDS` ids; a repeat of a later
    one is yielded, and the store keeps the reply it already has). A missing, unreadable or oversized file raises
    :class:`BatchFileError` before anything is yielded, and so does a file whose first
    20 lines are all unreadable (not a batch output file at all).
    """
    path = Path(path)
    sink = problems if problems is not None else []
    f = _open_output(path, max_file_bytes)
    first_line: dict[str, int] = {}
    start = len(sink)
    with f:
        lineno = 0
        while True:
            if not first_line and len(sink) - start >= _GIVE_UP_AFTER:
                first = sink[start].split(": ", 1)[-1].removesuffix("; skipped")
                del sink[start:]
                raise BatchFileError(f"{path} does not look like an OpenAI Batch output file: its "
                                     f"first {_GIVE_UP_AFTER} lines are not results (line 1: {first})")
            raw = f.readline(max_line_bytes + 1)
            if not raw:
                break
            lineno += 1
            if lineno > MAX_LINES_PER_FILE:
                sink.append(f"{path}:{lineno}: more than {MAX_LINES_PER_FILE:,} lines (blank lines "
                            f"count); the rest of the file is not read")
                break
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):
                    raw = f.readline(1 << 20)
                sink.append(f"{path}:{lineno}: line longer than {max_line_bytes} bytes; skipped")
                continue
            if not raw.strip():
                lineno += _skip_blank_run(f)   # a run of blank lines is counted in C, not line by line
                continue
            reply = _parse_line(raw)
            if isinstance(reply, str):
                sink.append(f"{path}:{lineno}: {reply}; skipped")
                continue
            if reply.custom_id in first_line:
                sink.append(f"{path}:{lineno}: {message_text(reply.custom_id, 80)} already appeared "
                            f"on line {first_line[reply.custom_id]}; skipped")
                continue
            if len(first_line) < TRACKED_IDS:
                first_line[reply.custom_id] = lineno
            reply.extra["line"] = lineno
            yield reply


def _open_output(path: Path, max_file_bytes: int) -> IO[bytes]:
    """The batch output file, open for reading; :class:`BatchFileError` when it is
    missing, not a file, unreadable or larger than ``max_file_bytes``."""
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise BatchFileError(f"{path} is not a file")
    except FileNotFoundError:
        raise BatchFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise BatchFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if size > max_file_bytes:
        raise BatchFileError(f"{path} is {size} bytes, more than the {max_file_bytes} a batch "
                             f"output file may have; split it")
    try:
        return path.open("rb")
    except OSError as exc:
        raise BatchFileError(f"cannot read {path}: {exc.strerror or exc}") from None


def _parse_line(raw: bytes) -> EvalReply | str:
    """One result line as a reply, or why it is skipped."""
    if too_deep(raw):
        return "not valid JSON (nested too deeply)"
    if raw.count(b"{") + raw.count(b"[") > MAX_JSON_NODES:
        return f"more than {MAX_JSON_NODES:,} JSON objects and arrays"
    try:
        return _reply(loads_strict(raw))
    except UnicodeDecodeError:
        return "not UTF-8 text"
    except DuplicateKey as exc:
        return f"{exc}: which value is meant is unclear"
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else message_text(exc, 120)
        return f"not valid JSON ({reason})"
    except _Skip as exc:
        return str(exc)
