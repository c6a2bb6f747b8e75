"""The row protocol of the Ray route, pure functions (no Ray, no network).

An input line (OpenAI Batch input, as ``eval export-batch`` writes it) becomes
``(custom_id, body_text)``: the body re-serialized compactly, which is the same JSON the
export holds. Ray rows carry that text, never the body as a nested value (Arrow would
unify the rows' schemas: a greedy row would gain ``"seed": null``, an integer
temperature would become a float).

Every result becomes one OpenAI Batch output line, the shape ``eval import-batch`` reads::

    {"id": "ray-...", "custom_id": "...",
     "response": {"status_code": 200, "request_id": "ray-...", "body": {<chat.completion>}},
     "error": null}

or, for a request that failed, ``{"id", "custom_id", "response": null, "error":
{"message": "..."}}`` (stored as that request's error: it stays in the denominator).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from qcstation.common.http_retry import MAX_JSON_NODES, clean_text, loads_unique, too_deep
from qcstation.common.safe import message_text
from qcstation.eval.backends.batch import BATCH_URL, MAX_CUSTOM_ID, MAX_LINE_BYTES
from qcstation.eval.types import EvalReply

#: the most characters of an error message written to a line
MAX_ERROR_CHARS = 2000


class BadRequestLine(ValueError):
    """An input line that is not one request of an OpenAI Batch chat input file."""


def parse_request_line(raw: bytes) -> tuple[str, str]:
    """``(custom_id, body_text)`` of one input line, or :class:`BadRequestLine` saying why not."""
    if too_deep(raw) or raw.count(b"{") + raw.count(b"[") > MAX_JSON_NODES:
        raise BadRequestLine("JSON nested too deeply or too large")
    try:
        rec = loads_unique(raw.decode("utf-8"))     # a key twice: which one is meant is unclear
    except UnicodeDecodeError:
        raise BadRequestLine("not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise BadRequestLine(f"not valid JSON ({message_text(exc, 120)})") from None
    if not isinstance(rec, dict):
        raise BadRequestLine("not a JSON object")
    cid = rec.get("custom_id")
    if not isinstance(cid, str) or not cid or len(cid) > MAX_CUSTOM_ID:
        raise BadRequestLine(f"no custom_id (a text of 1 to {MAX_CUSTOM_ID} characters)")
    if rec.get("url") != BATCH_URL or rec.get("method", "POST") != "POST":
        raise BadRequestLine(f"{message_text(cid, 80)}: not a POST {BATCH_URL} request")
    body = rec.get("body")
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or not messages or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
            for m in messages):
        raise BadRequestLine(f"{message_text(cid, 80)}: the body has no chat messages")
    assert isinstance(body, dict)
    return cid, body_text(body)


def body_text(body: dict[str, Any]) -> str:
    """A request body as the JSON text sent (compact, UTF-8 as is: as the export wrote it)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def http_row(custom_id: str, body: str) -> dict[str, Any]:
    """The Ray row of one request for the ``http`` engine: the payload Ray's HTTP stage
    sends to the session, which unwraps the body text (``http.SessionFactory``)."""
    return {"payload": {"custom_id": custom_id, "body": body}}


def vllm_row(custom_id: str, body: str) -> dict[str, Any]:
    """The Ray row of one request for the ``vllm`` engine: the chat messages and this
    request's own sampling parameters (every row the same keys: ``seed`` None when greedy,
    so one schema holds for all rows)."""
    data = json.loads(body)
    seed = data.get("seed")
    max_tokens = int(data.get("max_tokens", 1024))
    return {
        "custom_id": custom_id,
        "messages": [{"role": str(m["role"]), "content": str(m["content"])} for m in data["messages"]],
        "sampling_params": {"temperature": float(data.get("temperature", 0.0)),
                            "max_tokens": max_tokens,
                            "seed": None if seed is None else int(seed)},
        "max_tokens": max_tokens,
    }


def _new_id() -> str:
    return f"ray-{uuid.uuid4().hex[:16]}"


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def error_line(custom_id: str, message: str) -> str:
    """The output line of a request that failed, with why."""
    rid = _new_id()
    return _dump({"id": rid, "custom_id": custom_id, "response": None,
                  "error": {"message": message_text(message, MAX_ERROR_CHARS)}})


def _ok_line(custom_id: str, text: str, finish_reason: str | None, prompt_tokens: int | None,
             completion_tokens: int | None) -> tuple[str, bool]:
    rid = _new_id()
    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}
    if prompt_tokens is not None and completion_tokens is not None:
        usage["total_tokens"] = prompt_tokens + completion_tokens
    body = {"id": f"chatcmpl-{rid}", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": finish_reason,
                         "message": {"role": "assistant", "content": text}}],
            "usage": usage}
    line = _dump({"id": rid, "custom_id": custom_id,
                  "response": {"status_code": 200, "request_id": rid, "body": body}, "error": None})
    if len(line.encode("utf-8")) > MAX_LINE_BYTES:
        return error_line(custom_id, f"the reply does not fit in a batch output line "
                                     f"({MAX_LINE_BYTES // 2**20} MiB)"), False
    return line, True


def reply_line(reply: EvalReply) -> tuple[str, bool]:
    """The output line of one reply of ``OpenAIBackend.send`` (already read with its caps:
    text without lone surrogates, finish reason short and printable, counts plausible),
    and whether it is a result (False: an error line)."""
    if reply.status != "ok":
        return error_line(reply.custom_id, reply.error or "the request failed"), False
    return _ok_line(reply.custom_id, reply.text or "", reply.finish_reason, reply.prompt_tokens,
                    reply.completion_tokens)


def _count(value: Any) -> int | None:
    try:
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return n if 0 <= n <= 2**53 else None


def vllm_line(row: dict[str, Any]) -> tuple[str, bool]:
    """The output line of one row of Ray's vLLM stage (``generated_text``, token counts),
    or of its error row (``__inference_error__``), and whether it is a result. The stage
    reports no finish reason: a reply that used its whole ``max_tokens`` is ``length``,
    any other ``stop``."""
    custom_id = str(row.get("custom_id") or "")
    error = row.get("__inference_error__")
    if error:
        return error_line(custom_id, f"vLLM: {error}"), False
    text = row.get("generated_text")
    if not isinstance(text, str):
        return error_line(custom_id, "vLLM returned no text"), False
    generated = _count(row.get("num_generated_tokens"))
    max_tokens = _count(row.get("max_tokens")) or 0
    finish = "length" if generated is not None and max_tokens > 0 and generated >= max_tokens else "stop"
    return _ok_line(custom_id, clean_text(text), finish, _count(row.get("num_input_tokens")), generated)
