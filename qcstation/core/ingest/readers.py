"""Reading seed files: what a file may be, how its bytes become records, and the limits.

A seed file is untrusted. This module refuses what cannot be read safely before any
record is read (:func:`check_readable`: a missing file, a folder, a FIFO or device,
UTF-16/32 or binary text), then yields one :class:`Raw` per record: JSON Lines (one
object per line, blank lines skipped), one JSON array, or CSV/TSV (header row first).
``.gz`` files are decompressed on the fly. Every record carries the line where it starts;
a record that cannot be read carries ``data=None`` and an ``error`` (reported as
``FILE:LINE``), so the rest of the file still imports.

Nothing here knows a dataset format; :mod:`.formats` turns a record's fields into a seed.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from qcstation.common.errors import ImportFormatError

# Limits on untrusted seed files (a record beyond one is reported as FILE:LINE and the
# rest imports; a file beyond MAX_ARRAY_BYTES is refused as a whole).
MAX_LINE_BYTES = 1_000_000  #: one JSON Lines record / one CSV line
MAX_ARRAY_BYTES = 256_000_000  #: a single JSON array is read whole: use JSON Lines above this
MAX_QUESTION_CHARS = 20_000
MAX_SOLUTION_CHARS = 100_000
MAX_ANSWER_CHARS = 1_000
MAX_ANSWER_DIGITS = 200  #: digits in the gold answer (exact arithmetic stays cheap)
MAX_JSON_DEPTH = 100


@dataclass
class Raw:
    """One record as read: ``data`` None means unreadable (``error`` says why)."""

    line: int                    # line where the record starts (1-based)
    number: int                  # 1-based record number (array index / CSV data row / JSONL line)
    data: dict[str, Any] | None
    error: str | None = None


def type_name(v: Any) -> str:
    """How a JSON value's type is named in messages."""
    return {dict: "an object", list: "a list", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number", str: "a string"}.get(type(v), type(v).__name__)


def short(exc: BaseException, limit: int = 200) -> str:
    """An exception's message, cut to ``limit`` characters."""
    text = str(exc) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_readable(path: Path) -> None:
    """Refuse what cannot be imported safely before reading any record: a missing file, a
    folder, a FIFO or device (read more than once here, so data would be lost, or endless
    like /dev/zero), and text that is not UTF-8 (UTF-16/32 are named)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ImportFormatError(f"cannot read {path}: no such file", title="File not found") from None
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror or exc}",
                                title="File not readable") from None
    if stat.S_ISDIR(st.st_mode):
        raise ImportFormatError(f"cannot read {path}: it is a directory, not a data file",
                                title="Not a file")
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        raise ImportFormatError(
            f"cannot import {path}: it is {kind}, not a regular file; save the data to a file "
            "and import that (nothing was read from it)", title="Not a file")
    try:
        with open_binary(path) as fh:
            head = fh.read(4096)
    except (OSError, EOFError) as exc:
        raise ImportFormatError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}",
                                title="File not readable") from exc
    encoding = foreign_encoding(head)
    if encoding:
        raise ImportFormatError(
            f"{path} is {encoding} text; qcstation reads UTF-8 (with or without BOM): convert it, "
            f"e.g. `iconv -f {encoding.split()[0]} -t UTF-8 {path} > converted{plain_suffix(path) or '.txt'}`",
            title="Not UTF-8")


def foreign_encoding(head: bytes) -> str | None:
    """Name a UTF-16/UTF-32 encoding from its BOM or from its NUL-byte pattern."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith(b"\xff\xfe"):
        return "UTF-16LE"
    if head.startswith(b"\xfe\xff"):
        return "UTF-16BE"
    sample = head[:512]
    if len(sample) >= 8 and sample.count(0) >= len(sample) // 3:
        if sample[1::2].count(0) > len(sample) // 4 and sample[0::2].count(0) == 0:
            return "UTF-16LE"
        if sample[0::2].count(0) > len(sample) // 4 and sample[1::2].count(0) == 0:
            return "UTF-16BE"
        return "binary (not text)"
    return None


class _LineTooLong(Exception):
    pass


class _ByteSource(Protocol):
    def read(self, n: int = -1, /) -> bytes: ...


def _lines(fh: _ByteSource, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | _LineTooLong]:
    """Lines of a binary stream ending in ``\\n``, ``\\r\\n`` or a lone ``\\r`` (each yielded
    with ``\\n``), read in bounded pieces: a line over ``limit`` bytes is skipped without
    being held in memory and yielded as a :class:`_LineTooLong` marker."""
    buf = b""
    skipping = False
    while True:
        chunk = fh.read(1 << 16)
        if not chunk:
            break
        buf += chunk
        start = 0
        while True:
            nl = _next_break(buf, start)
            if nl is None:
                break
            end, nxt = nl
            if nxt is None:  # a '\\r' at the end of the buffer: wait for the next byte
                break
            if skipping:
                skipping = False
            else:
                yield buf[start:end] + b"\n"
            start = nxt
        buf = buf[start:]
        if len(buf) > limit:
            if not skipping:
                yield _LineTooLong()
            skipping = True
            buf = buf[-1:] if buf.endswith(b"\r") else b""
    if buf:
        if buf.endswith(b"\r"):
            buf = buf[:-1]
        if not skipping and buf:
            yield buf + b"\n"


def _next_break(buf: bytes, start: int) -> tuple[int, int | None] | None:
    """(end of the line, start of the next) for the first line break at or after
    ``start``; the next start is None when a final ``\\r`` might be half of ``\\r\\n``."""
    n = buf.find(b"\n", start)
    r = buf.find(b"\r", start, n if n != -1 else len(buf))
    if r != -1:
        if r + 1 == len(buf):
            return r, None
        return r, r + 2 if buf[r + 1:r + 2] == b"\n" else r + 1
    if n != -1:
        return n, n + 1
    return None


def open_binary(path: Path) -> io.BufferedIOBase:
    if path.suffix.lower() == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def plain_suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def iter_json(path: Path) -> Iterator[Raw]:
    """JSON Lines (one object per line; blank lines skipped) or a single JSON array."""
    with open_binary(path) as fh:
        head = fh.read(1 << 16)
        stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if stripped.startswith(b"["):
            data = head + fh.read(MAX_ARRAY_BYTES + 1 - len(head))
            if len(data) > MAX_ARRAY_BYTES:
                raise ImportFormatError(
                    f"{path}: a JSON array over {MAX_ARRAY_BYTES // 1_000_000} MB is not read whole; "
                    "write it as JSON Lines (one object per line)", title="File too large")
            try:
                items = json.loads(data.decode("utf-8-sig"))
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                raise ImportFormatError(f"{path}: not a valid JSON array: {short(exc)}") from None
            if not isinstance(items, list):  # pragma: no cover - guarded by '['
                raise ImportFormatError(f"{path}: expected a JSON array of objects")
            for i, item in enumerate(items, 1):
                if isinstance(item, dict):
                    yield Raw(i, i, item)
                else:
                    yield Raw(i, i, None, f"record {i}: expected a JSON object, got {type_name(item)}")
            return
        lineno = 0
        for line in _lines(_Prefixed(head, fh)):
            lineno += 1
            if isinstance(line, _LineTooLong):
                yield Raw(lineno, lineno, None,
                           f"line is longer than {MAX_LINE_BYTES // 1_000_000} MB; not imported")
                continue
            if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except UnicodeDecodeError:
                yield Raw(lineno, lineno, None, "line is not valid UTF-8")
                continue
            except RecursionError:
                yield Raw(lineno, lineno, None, f"JSON nested too deeply (limit {MAX_JSON_DEPTH})")
                continue
            except ValueError as exc:
                if isinstance(exc, json.JSONDecodeError) and exc.lineno > 1:
                    try:  # error at the line end: report the column within the line
                        json.loads(line.rstrip(b"\r\n"))
                    except json.JSONDecodeError as exc2:
                        exc = exc2
                if isinstance(exc, json.JSONDecodeError):
                    msg = f"invalid JSON: {exc.msg}: column {exc.colno}"
                else:
                    msg = f"invalid JSON: {exc}"
                yield Raw(lineno, lineno, None, msg)
                continue
            if not isinstance(obj, dict):
                yield Raw(lineno, lineno, None, f"expected a JSON object, got {type_name(obj)}")
                continue
            if _json_depth(obj) > MAX_JSON_DEPTH:
                yield Raw(lineno, lineno, None, f"JSON nested too deeply (limit {MAX_JSON_DEPTH})")
                continue
            yield Raw(lineno, lineno, obj)


class _Prefixed(io.RawIOBase):
    """``head`` (already read) followed by the rest of ``fh``."""

    def __init__(self, head: bytes, fh: Any) -> None:
        self._head, self._fh = head, fh

    def read(self, n: int = -1) -> bytes:  # type: ignore[override]
        if self._head:
            out, self._head = self._head, b""
            return out
        return bytes(self._fh.read(n))


def _json_depth(obj: Any, limit: int = MAX_JSON_DEPTH) -> int:
    depth, level = 0, [obj]
    while level and depth <= limit:
        depth += 1
        nxt: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                nxt.extend(v for v in item.values() if isinstance(v, (dict, list)))
            elif isinstance(item, list):
                nxt.extend(v for v in item if isinstance(v, (dict, list)))
        level = nxt
    return depth


def iter_csv(path: Path) -> Iterator[Raw]:
    delimiter = "\t" if plain_suffix(path) == ".tsv" else ","
    bad_utf8: set[int] = set()
    too_long: set[int] = set()
    counter = [0]

    def text_lines() -> Iterator[str]:
        with open_binary(path) as fh:
            for raw in _lines(fh):  # \n, \r\n and lone \r line ends; bounded length
                counter[0] += 1
                if isinstance(raw, _LineTooLong):
                    too_long.add(counter[0])
                    yield "\n"
                    continue
                if counter[0] == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError:
                    bad_utf8.add(counter[0])
                    yield raw.decode("utf-8", errors="replace")

    reader = csv.reader(text_lines(), delimiter=delimiter)
    header: list[str] | None = None
    number = 0
    last_line = 0
    while True:
        start = last_line + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            last_line = reader.line_num
            number += 1
            yield Raw(start, number, None, f"bad CSV row: {exc}")
            continue
        last_line = reader.line_num
        if any(n in too_long for n in range(start, last_line + 1)):
            number += 1
            yield Raw(start, number, None,
                       f"line is longer than {MAX_LINE_BYTES // 1_000_000} MB; not imported")
            continue
        if header is None:
            if not row or not any(c.strip() for c in row):
                continue
            header = [c.strip() for c in row]
            yield Raw(start, 0, {"__header__": header})
            continue
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        number += 1
        span = f" (record spans lines {start}-{last_line}; unbalanced quote?)" if last_line - start > 5 else ""
        if any(n in bad_utf8 for n in range(start, last_line + 1)):
            yield Raw(start, number, None, "row is not valid UTF-8")
        elif len(row) != len(header):
            yield Raw(start, number, None,
                       f"bad CSV row: expected {len(header)} fields, got {len(row)}{span}")
        else:
            yield Raw(start, number, dict(zip(header, row)))


def first_json_record(path: Path, max_lines: int = 50) -> tuple[dict[str, Any] | None, bool]:
    """(first parseable object, file has any non-blank content)."""
    seen = False
    try:
        for i, raw in enumerate(iter_json(path)):
            seen = True
            if raw.data is not None:
                return raw.data, True
            if i >= max_lines:
                break
    except ImportFormatError:
        return None, True
    return None, seen

