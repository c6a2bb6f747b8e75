"""HTTP rules shared by the generation client, the judges and the evaluation backends: when
to retry and how long to wait, and how a reply is read (bounded after decompression) and
parsed (with limits) — see the second half.

Kept free of the ``openai`` package so that importing it stays cheap.
"""

from __future__ import annotations

import email.utils
import json as _json
import math
import re as _re
import time
import zlib as _zlib
from collections.abc import Mapping
from typing import Any

from qcstation.common import redact

PLACEHOLDER_KEY = "sk-no-key"                          # local servers without auth
RETRY_STATUSES = frozenset({408, 409, 429})          # plus every 5xx
RETRY_AFTER_STATUSES = frozenset({429, 503})


def parse_retry_after(headers: Mapping[str, str], now_ts: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (delta-seconds or an
    HTTP date); ``None`` when absent or unparsable. Never negative."""
    h = {str(k).lower(): str(v) for k, v in headers.items()}
    ms = h.get("retry-after-ms", "").strip()
    if ms:
        try:
            v = float(ms)
            if math.isfinite(v) and v >= 0:
                return v / 1000.0
        except ValueError:
            pass
    ra = h.get("retry-after", "").strip()
    if not ra:
        return None
    try:
        v = float(ra)
        return max(0.0, v) if math.isfinite(v) else None
    except ValueError:
        pass
    try:
        dt = email.utils.parsedate_to_datetime(ra)
    except (TypeError, ValueError, IndexError):
        return None
    if dt is None:
        return None
    if dt.tzinfo is None:
        import datetime as _dt

        dt = dt.replace(tzinfo=_dt.timezone.utc)
    return max(0.0, dt.timestamp() - (time.time() if now_ts is None else now_ts))


# -- what a server sends back: bounded after decoding, parsed with limits ------------------------
#
# Every model client (evaluation backend, judges, generator) reads a reply through these, so one
# rule holds everywhere: at most MAX_BODY_BYTES *after* decompression (a 1 MB gzip body that
# inflates to 1 GiB is refused at 16 MiB, never held whole), JSON with at most MAX_JSON_NODES
# containers and no nesting past Python's recursion limit, text without lone surrogates, counts
# that fit SQLite's integers. A reply that breaks a rule is that request's error, with the reason.

#: the largest reply body read, counted after decompression (bytes)
MAX_BODY_BYTES = 16 * 1024 * 1024
#: the most JSON objects and arrays a reply may hold, counted as ``{`` and ``[`` bytes (in its
#: strings too: 100,000 is far above any real reply), so that parsing cannot amplify a capped
#: body into gigabytes of empty objects (~64 bytes each: at most ~10 MB here)
MAX_JSON_NODES = 100_000
#: the encodings asked for; anything else the server sends is refused
ACCEPT_ENCODING = "gzip, deflate"
#: the largest count of tokens taken from ``usage`` (SQLite's INTEGER is signed 64-bit)
MAX_TOKENS_COUNT = 2**53
_SURROGATE = _re.compile("[\ud800-\udfff]")


class BadReply(Exception):
    """A reply that cannot be used (too large, not JSON, not UTF-8, ...): the reason."""


class BodyTooLarge(BadReply):
    pass


class BodyDecoder:
    """Decodes a body chunk by chunk (``Content-Encoding`` gzip, deflate or none) and refuses it
    once the *decoded* bytes pass ``limit``: the output of one step is bounded by
    ``limit + 1`` bytes (``zlib``'s ``max_length``), so a decompression bomb never inflates.
    :meth:`feed` / :meth:`finish` keep the body; :meth:`decode` / :meth:`flush` pass it on."""

    def __init__(self, content_encoding: str | None, limit: int = MAX_BODY_BYTES) -> None:
        enc = (content_encoding or "").strip().lower()
        self.limit = limit
        self.total = 0
        self.buf = bytearray()
        if enc in ("", "identity"):
            self._z: Any = None
        elif enc in ("gzip", "x-gzip"):
            self._z = _zlib.decompressobj(16 + _zlib.MAX_WBITS)
        elif enc == "deflate":
            self._z = _DeflateEither()
        else:
            raise BadReply(f"reply uses the content encoding {enc[:40]!r}, which was not asked for")

    def _count(self, n: int) -> None:
        self.total += n
        if self.total > self.limit:
            raise BodyTooLarge(f"reply larger than {self.limit // 2**20} MiB after decompression")

    def decode(self, chunk: bytes) -> bytes:
        """The decoded bytes of one chunk (counted against the limit)."""
        if self._z is None:
            self._count(len(chunk))
            return chunk
        parts = []
        data = chunk
        while data:
            try:
                out = self._z.decompress(data, self.limit - self.total + 1)
            except _zlib.error as exc:
                raise BadReply(f"reply body does not decompress: {exc}") from None
            self._count(len(out))
            parts.append(out)
            data = self._z.unconsumed_tail
            if not out and data:   # pragma: no cover - zlib made no progress
                break
        return b"".join(parts)

    def flush(self) -> bytes:
        if self._z is None:
            return b""
        try:
            out = self._z.flush()
        except _zlib.error as exc:
            raise BadReply(f"reply body does not decompress: {exc}") from None
        self._count(len(out))
        return out

    def feed(self, chunk: bytes) -> None:
        self.buf += self.decode(chunk)

    def finish(self) -> bytes:
        self.buf += self.flush()
        return bytes(self.buf)


class _DeflateEither:
    """``deflate`` as servers send it: zlib-wrapped, or (wrongly, but commonly) raw."""

    def __init__(self) -> None:
        self._z: Any = None

    @property
    def unconsumed_tail(self) -> bytes:
        return self._z.unconsumed_tail if self._z is not None else b""

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if self._z is None:
            self._z = _zlib.decompressobj(_zlib.MAX_WBITS if data[:1] and (data[0] & 0x0F) == 8
                                          and int.from_bytes(data[:2], "big") % 31 == 0
                                          else -_zlib.MAX_WBITS)
        return self._z.decompress(data, max_length)

    def flush(self) -> bytes:
        return self._z.flush() if self._z is not None else b""


def decode_body(raw: bytes, content_encoding: str | None = None, limit: int = MAX_BODY_BYTES) -> bytes:
    """A whole body, decoded with the same limit (for bodies already in memory)."""
    dec = BodyDecoder(content_encoding, limit)
    dec.feed(raw)
    return dec.finish()


def too_deep(raw: bytes) -> bool:
    """Whether a body opens 500 arrays or objects in a row (no reply does; an attack does)."""
    return b"[" * 500 in raw or b"{" * 500 in raw


class DuplicateKey(ValueError):
    """A JSON object that names one key twice (JSON allows it; which value is meant is not
    clear, and Python would keep the last one silently)."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                from qcstation.common.safe import one_line

                raise DuplicateKey(f"the key '{one_line(redact.scrub(key), 60)}' appears twice in one object")
            seen.add(key)
    return obj


_STRICT = _json.JSONDecoder(object_pairs_hook=_unique_pairs)


def loads_unique(text: str | bytes) -> Any:
    """JSON text as Python, refusing an object with a key twice (:class:`DuplicateKey`), as
    it is (nothing scrubbed: a request a user wrote, to be sent as written)."""
    return _STRICT.decode(text.decode("utf-8") if isinstance(text, bytes) else text)


def loads_strict(text: str | bytes, raw: bytes | None = None) -> Any:
    """JSON text as Python, refusing an object with a key twice (:class:`DuplicateKey`, a
    ``ValueError``), every secret scrubbed (:mod:`qcstation.common.redact`). ``raw``: the
    bytes ``text`` was decoded from, when at hand (a quicker test for secrets). Limits on
    size and nesting are the caller's (see :func:`load_json_reply`)."""
    if isinstance(text, bytes):
        raw, text = text, text.decode("utf-8")
    obj = _STRICT.decode(text)
    if not redact.secrets():
        return obj
    if raw is None:
        raw = text.encode("utf-8", "surrogatepass")
    return redact.scrub_json(obj) if redact.may_hold(raw) else obj


def load_json_reply(raw: bytes) -> Any:
    """A reply body as JSON, or :class:`BadReply` saying why not: not UTF-8, not JSON, a key
    twice in one object, more than :data:`MAX_JSON_NODES` objects and arrays, nested too deep.
    Every secret in it is scrubbed (every string, object keys included)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadReply(f"reply is not UTF-8 (byte {exc.start}: {raw[exc.start:exc.start + 4]!r})") from None
    # (a body shorter than 500 bytes cannot open 500 containers in a row, nor one of at most
    # MAX_JSON_NODES bytes hold more: the usual reply is not scanned for them)
    if len(raw) >= 500 and too_deep(raw):
        raise BadReply("reply is JSON nested too deep to read")
    if len(raw) > MAX_JSON_NODES and raw.count(b"{") + raw.count(b"[") > MAX_JSON_NODES:
        raise BadReply(f"reply holds more than {MAX_JSON_NODES:,} JSON objects and arrays")
    try:
        return loads_strict(text, raw)
    except RecursionError:
        raise BadReply("reply is JSON nested too deep to read") from None
    except DuplicateKey as exc:
        raise BadReply(f"reply is not usable JSON: {exc}") from None
    except ValueError as exc:
        raise BadReply(f"reply is not JSON ({str(exc)[:80]}): "
                       f"{excerpt(text, 60)!r}") from None


def excerpt(text: str, limit: int) -> str:
    """The start of a server's text, secrets scrubbed *before* it is cut (so no key prefix
    survives the cut, nor a part of one spelled seven characters a character: ``&#x6b;``)."""
    longest = 7 * len(redact.secrets()[0]) if redact.secrets() else 0
    return redact.scrub(text[:limit + longest])[:limit]


def clean_text(text: str) -> str:
    """Model text as stored: a lone surrogate (valid JSON, not storable UTF-8) becomes U+FFFD."""
    if text.isascii():      # (no surrogate: the usual reply, told without a scan by the regex)
        return text
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def clean_token(value: Any, limit: int = 80) -> str | None:
    """A short field a server names (finish reason, model): printable, no surrogates, bounded;
    None when it is not text."""
    if not isinstance(value, str):
        return None
    if len(value) <= limit and value.isascii() and value.isprintable():
        return value          # the usual "stop", "length": nothing to escape
    from qcstation.common.safe import one_line

    return one_line(clean_text(value), limit)


def chat_reply_parts(body: Any, excerpt: int = 300
                     ) -> tuple[dict[str, Any], dict[str, Any], Any, dict[str, Any]] | str:
    """What every reader of a ``chat.completion`` body takes from it: (the first choice,
    its message, its content with content parts joined, the usage object or ``{}``), or a
    string saying why the body is unusable (not an object, no choices: with the server's
    own error message when it sent one, cut at ``excerpt``; a choice without a message).
    What an empty or missing content means is the reader's to decide."""
    if not isinstance(body, dict):
        return f"response is JSON but not an object ({type(body).__name__})"
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        err = body.get("error")
        if isinstance(err, dict) and err.get("message"):
            return f"server returned an error object: {clean_text(str(err.get('message'))[:excerpt])}"
        return "response has no choices"
    first = choices[0]
    if not isinstance(first, dict) or not isinstance(first.get("message"), dict):
        return "response choice has no message"
    msg = first["message"]
    content = msg.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    usage = body.get("usage")
    return first, msg, content, usage if isinstance(usage, dict) else {}


def token_count(value: Any, name: str, notes: list[str], limit: int | None = None) -> int | None:
    """A usage count a server reports, if it is a plausible one; otherwise None, with a note.
    ``limit``: the most this reply can hold (the completion budget asked for, the prompt's
    size); a claim above it is dropped like one that is not a count."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS_COUNT:
        if limit is None or value <= limit:
            return value
        notes.append(f"usage.{name} {value} dropped (more than this request can hold: {limit})")
        return None
    shown = repr(value) if not isinstance(value, int) else (
        str(value) if value.bit_length() < 200 else f"a {value.bit_length()}-bit number")
    notes.append(f"usage.{name} {shown[:40]} dropped (not a count of tokens)")
    return None


def prompt_token_limit(messages: Any, serialized: str | None = None) -> int:
    """The most tokens a prompt of these messages can be: a token is at least one byte of
    its text (at most 4 bytes a character), plus a chat template's tokens per message.
    ``serialized``: the messages as JSON when at hand (longer than their texts: O(1))."""
    if serialized is not None:
        return 4 * len(serialized) + 64 * len(messages or ()) + 1024
    chars = 0
    n = 0
    for m in messages or ():
        n += 1
        c = m.get("content") if isinstance(m, Mapping) else None
        if isinstance(c, str):
            chars += len(c)
        elif c is not None:
            chars += len(str(c))
    return 4 * chars + 64 * n + 1024


def completion_token_limit(max_tokens: Any) -> int | None:
    """The most completion tokens a reply can hold: the budget asked for (None: unknown)."""
    return int(max_tokens) if isinstance(max_tokens, int) and max_tokens > 0 else None


def cost_of(prompt_tokens: int | None, completion_tokens: int | None,
            price_in: float | None, price_out: float | None) -> float | None:
    """USD for one reply; None when no price is configured, or when a count a configured
    price needs is unknown (a reply without usage costs *unknown*, never $0)."""
    if price_in is None and price_out is None:
        return None
    if (price_in and prompt_tokens is None) or (price_out and completion_tokens is None):
        return None
    if prompt_tokens is None and completion_tokens is None:
        return None
    return ((prompt_tokens or 0) * (price_in or 0.0) + (completion_tokens or 0) * (price_out or 0.0)) / 1e6


def scrub_key(text: str, key: str | None = None, mark: str = redact.MARK) -> str:
    """``text`` with every secret (:mod:`qcstation.common.redact`) replaced, ``key`` too
    (registered as one when it is 8+ characters)."""
    if key:
        redact.register(key)
    return redact.scrub(text)
