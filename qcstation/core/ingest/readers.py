"""Reading seed files: what a file may be, how its bytes become records, and the limits.

A seed file is untrusted. This module refuses what cannot be read safely before any
record is read (:func:`check_readable`: a missing file, a folder, a FIFO or device,
UTF-16/32 or binary text; for a compressed file, one that decompresses beyond
:data:`MAX_DECOMPRESSED_BYTES` or :data:`MAX_DECOMPRESSED_LINES`, or is damaged:
:func:`check_decompressed`), then yields one :class:`Raw` per record: JSON Lines (one
object per line, blank lines skipped), one JSON array, or CSV/TSV (header row first).
``.gz``, ``.bz2`` and ``.xz`` files are decompressed on the fly, through a stream that
counts what it inflates. Every record carries the line where it starts; a record that
cannot be read (bad JSON, a duplicate key, two keys equal but for case, not an object)
carries ``data=None`` and an ``error`` (reported as ``FILE:LINE``), so the rest of the
file still imports. A CSV
header naming a column twice, or two columns equal but for case, refuses the file; so does
a quote that opens a CSV field and does not close where a field ends (the rows after it
cannot be told apart), with the line where it opened.

Nothing here knows a dataset format; :mod:`.formats` turns a record's fields into a seed.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import os
import re
import sys
from collections import Counter
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol, cast

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
# A compressed file is read through a counting stream and checked whole before anything
# is stored: a gzip bomb or a file of blank lines ends in seconds, with nothing imported.
MAX_DECOMPRESSED_BYTES = 1_000_000_000  #: bytes a compressed file may inflate to
MAX_DECOMPRESSED_LINES = 5_000_000  #: lines (blank lines included) in a compressed file


@dataclass
class Raw:
    """One record as read: ``data`` None means unreadable (``error`` says why)."""

    line: int                    # line where the record starts (1-based)
    number: int                  # 1-based record number (array index / CSV data row / JSONL line)
    data: dict[str, Any] | None
    error: str | None = None
    in_array: bool = False       # an element of a JSON array (``number`` is its index)


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
        done = "; nothing was imported" if isinstance(exc, DamagedFile) else ""
        raise ImportFormatError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}{done}",
                                title="File not readable") from exc
    encoding = foreign_encoding(head)
    if encoding == BINARY:
        raise ImportFormatError(
            f"{path} is not text: a third or more of its first bytes are NUL (0x00); qcstation "
            "reads UTF-8 text (JSON Lines, JSON, CSV): is this the right file? Nothing was imported",
            title="Not text")
    if encoding:
        raise ImportFormatError(
            f"{path} is {encoding} text; qcstation reads UTF-8 (with or without BOM): convert it, "
            f"e.g. `iconv -f {encoding.split()[0]} -t UTF-8 {path} > converted{plain_suffix(path) or '.txt'}`",
            title="Not UTF-8")


#: what :func:`foreign_encoding` says of a head that is neither UTF-16/32 nor text
BINARY = "binary (not text)"


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
        return BINARY
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
        if b"\r" in buf:
            lines, buf = _split_any(buf)
        else:  # the common case: '\n' only, split in C
            lines = buf.split(b"\n")
            buf = lines.pop()
        for line in lines:
            if skipping:  # the end of a line that was too long
                skipping = False
            else:
                yield line + b"\n"
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


def _split_any(buf: bytes) -> tuple[list[bytes], bytes]:
    """(complete lines, the rest) of ``buf`` with any line ends; a final ``\\r`` stays in
    the rest (it may be half of ``\\r\\n``)."""
    lines: list[bytes] = []
    start = 0
    while True:
        nl = _next_break(buf, start)
        if nl is None:
            break
        end, nxt = nl
        if nxt is None:  # a '\\r' at the end of the buffer: wait for the next byte
            break
        lines.append(buf[start:end])
        start = nxt
    return lines, buf[start:]


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


_CODECS: dict[str, Any] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
COMPRESSED_SUFFIXES: tuple[str, ...] = tuple(_CODECS)
# what a damaged or truncated compressed stream raises, besides OSError
_CODEC_ERRORS = (EOFError, zlib.error, lzma.LZMAError)


class DamagedFile(OSError):
    """A compressed file that cannot be decompressed (damaged, truncated, not that codec)."""


class _Inflated(io.RawIOBase):
    """The decompressed bytes of a compressed file, counted: reading past
    :data:`MAX_DECOMPRESSED_BYTES` raises ImportFormatError; codec errors become
    :class:`DamagedFile`."""

    def __init__(self, path: Path, codec: Any) -> None:
        self._path = path
        self._fh: IO[bytes] = codec(path, "rb")
        self.total = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        want = MAX_DECOMPRESSED_BYTES + 1 - self.total
        try:
            data = self._fh.read(min(n, want) if n is not None and n >= 0 else want)
        except (OSError, *_CODEC_ERRORS) as exc:
            raise DamagedFile(f"damaged, truncated or not {self._path.suffix} data ({short(exc)})") from None
        self.total += len(data)
        if self.total > MAX_DECOMPRESSED_BYTES:
            raise too_large(self._path, f"decompresses to more than {MAX_DECOMPRESSED_BYTES:,} bytes")
        return data

    def close(self) -> None:
        self._fh.close()
        super().close()


def too_large(path: Path, what: str) -> ImportFormatError:
    """The error for a compressed file beyond a limit."""
    return ImportFormatError(
        f"{path}: {what}; nothing was imported. A compressed seed file may hold at most "
        f"{MAX_DECOMPRESSED_BYTES:,} bytes and {MAX_DECOMPRESSED_LINES:,} lines once "
        "decompressed: decompress it yourself and import the plain file", title="File too large")


def open_binary(path: Path) -> IO[bytes]:
    """The file's bytes, decompressed (and counted) for ``.gz``, ``.bz2`` and ``.xz``."""
    codec = _CODECS.get(path.suffix.lower())
    if codec is not None:
        return cast(IO[bytes], _Inflated(path, codec))  # read(n) and close(): all callers use
    return open(path, "rb")


def check_decompressed(path: Path) -> None:
    """Read a compressed file whole, counting bytes and lines (blank ones included), before
    anything is stored: beyond :data:`MAX_DECOMPRESSED_BYTES` or
    :data:`MAX_DECOMPRESSED_LINES`, or damaged, it is refused (ImportFormatError).
    Plain files pass at once."""
    if path.suffix.lower() not in _CODECS:
        return
    lines = 0
    try:
        with open_binary(path) as fh:
            while chunk := fh.read(1 << 20):
                # '\n', '\r\n' and lone '\r' line ends (a pair split between two chunks
                # counts twice: harmless for a limit)
                lines += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
                if lines > MAX_DECOMPRESSED_LINES:
                    raise too_large(path, f"holds more than {MAX_DECOMPRESSED_LINES:,} lines once "
                                          "decompressed (blank lines count)")
    except DamagedFile as exc:
        raise ImportFormatError(f"cannot read {path}: {exc}; nothing was imported",
                                title="File not readable") from None


def plain_suffix(path: Path) -> str:
    """The suffix that names the data (``.csv`` for ``seeds.csv.gz``)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _CODECS:
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


class WrittenFloat(float):
    """A JSON number with a fraction or an exponent, as Python reads it (a float), keeping the
    text the file wrote: ``1.0000000000000000000000001`` is not the float 1.0, and an answer
    read from it must keep every digit (:func:`.formats._answer_text`)."""

    written: str

    def __new__(cls, text: str) -> WrittenFloat:
        obj = super().__new__(cls, text)
        obj.written = text
        return obj


class _KeyCheck:
    """``object_pairs_hook`` that builds each object and notes the first key an object
    repeats (JSON allows it; Python would keep the last value silently)."""

    def __init__(self) -> None:
        self.duplicate: str | None = None

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs) and self.duplicate is None:
            seen: dict[str, Any] = {}
            for key, value in pairs:
                if key in seen:
                    self.duplicate = (f"duplicate key {key!r} in the record ({_shown(seen[key])} "
                                      f"and {_shown(value)}): which one is meant is unclear; "
                                      "not imported")
                    break
                seen[key] = value
        return obj


def _shown(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _checked(line: int, number: int, obj: Any, keys: _KeyCheck, in_array: bool) -> Raw:
    """The record read at ``line``, or why it cannot be one."""
    where = f"record {number}: " if in_array else ""
    if keys.duplicate is not None:
        message, keys.duplicate = keys.duplicate, None
        return Raw(line, number, None, where + message, in_array)
    if not isinstance(obj, dict):
        return Raw(line, number, None, f"{where}expected a JSON object, got {type_name(obj)}", in_array)
    if (alike := _keys_alike(obj)) is not None:
        return Raw(line, number, None, where + alike, in_array)
    if _json_depth(obj) > MAX_JSON_DEPTH:
        return Raw(line, number, None, f"{where}JSON nested too deeply (limit {MAX_JSON_DEPTH})", in_array)
    return Raw(line, number, obj, None, in_array)


def _keys_alike(record: dict[str, Any]) -> str | None:
    """Why a record cannot be read when two of its keys are equal but for case ("Question"
    and "question"), or None: the column mapping reads a key missing as named in lower case
    (ASDiv's JSON Lines), so which one a field reads would be unclear, as with a CSV header
    (:func:`_header_problem`). One dictionary look-up a key: linear in the number of keys."""
    if len(record) < 2:
        return None
    seen: dict[str, str] = {}
    for key in record:
        low = key.lower()
        other = seen.setdefault(low, key)
        if other != key:
            return (f"keys {_shown(other)} and {_shown(key)} differ only in case: which one a "
                    "field reads is unclear; not imported")
    return None


def json_shape(head: bytes) -> str:
    """``array`` when a JSON file's first bytes open an array, else ``lines``."""
    return "array" if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[") else "lines"


def iter_json(path: Path, *, whole: bool = True) -> Iterator[Raw]:
    """JSON Lines (one object per line; blank lines skipped) or a single JSON array (checked
    whole before its first element is returned, unless ``whole`` is False: a look at the
    first records)."""
    with open_binary(path) as fh:
        head = fh.read(1 << 16)
        if json_shape(head) == "array":
            data = head + fh.read(MAX_ARRAY_BYTES + 1 - len(head))
            if len(data) > MAX_ARRAY_BYTES:
                raise ImportFormatError(
                    f"{path}: a JSON array over {MAX_ARRAY_BYTES // 1_000_000} MB is not read whole; "
                    "write it as JSON Lines (one object per line)", title="File too large")
            yield from _array_records(path, data, whole)
            return
        yield from _json_lines(_Prefixed(head, fh))


def _json_lines(fh: _ByteSource) -> Iterator[Raw]:
    keys = _KeyCheck()
    decode = json.JSONDecoder(object_pairs_hook=keys, parse_float=WrittenFloat).decode
    lineno = 0
    for line in _lines(fh):
        lineno += 1
        if isinstance(line, _LineTooLong):
            yield Raw(lineno, lineno, None, f"line is longer than {MAX_LINE_BYTES // 1_000_000} MB; not imported")
            continue
        if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if not line.strip():
            continue
        try:
            obj = decode(line.decode("utf-8"))
        except UnicodeDecodeError:
            yield Raw(lineno, lineno, None, "line is not valid UTF-8")
            continue
        except RecursionError:
            keys.duplicate = None
            yield Raw(lineno, lineno, None, f"JSON nested too deeply (limit {MAX_JSON_DEPTH})")
            continue
        except ValueError as exc:
            keys.duplicate = None
            yield Raw(lineno, lineno, None, _json_error(exc, line))
            continue
        yield _checked(lineno, lineno, obj, keys, False)


def _json_error(exc: ValueError, line: bytes) -> str:
    if isinstance(exc, json.JSONDecodeError) and exc.lineno > 1:
        try:  # error at the line end: report the column within the line
            json.loads(line.rstrip(b"\r\n"))
        except json.JSONDecodeError as exc2:
            exc = exc2
        except ValueError:
            pass
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg}: column {exc.colno}"
    if "integer string conversion" in str(exc):   # Python's own advice is not for the user
        return f"invalid JSON: a number with more than {sys.get_int_max_str_digits():,} digits"
    return f"invalid JSON: {exc}"


_WS = re.compile(r"[ \t\n\r]*")


def _skip_blanks(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    return m.end() if m else pos


def _array_records(path: Path, data: bytes, whole: bool) -> Iterator[Raw]:
    """The elements of one JSON array, each with the line where it starts. The whole array
    is checked before the first element is returned, so a syntax error anywhere stops the
    file before anything is stored (elements are parsed twice rather than all held at once);
    an element with a duplicate key, or not an object, is one bad record."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # where, in the user's terms: Python's codec words are not
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ImportFormatError(f"{path}:{line}: not a valid JSON array: the bytes at column {column} "
                                "are not UTF-8; save the file as UTF-8") from None
    keys = _KeyCheck()
    for _ in _array_elements(path, text, json.JSONDecoder(object_pairs_hook=keys, parse_float=WrittenFloat)) if whole else ():
        keys.duplicate = None
    for number, (line, obj) in enumerate(_array_elements(path, text, json.JSONDecoder(object_pairs_hook=keys, parse_float=WrittenFloat)), 1):
        yield _checked(line, number, obj, keys, True)


def _array_elements(path: Path, text: str, decoder: json.JSONDecoder) -> Iterator[tuple[int, Any]]:
    """(line, value) of each element of the JSON array ``text``; ImportFormatError with
    FILE:LINE at the first syntax error."""
    pos = _skip_blanks(text, _skip_blanks(text, 0) + 1)  # past '[' and blanks
    line, counted, number = 1, 0, 0
    closed = text.startswith("]", pos)
    while not closed:
        line += _line_breaks(text, counted, pos)
        counted = pos
        number += 1
        try:
            obj, end = decoder.raw_decode(text, pos)
        except RecursionError:
            raise ImportFormatError(f"{path}:{line}: record {number} is nested more than "
                                    f"{MAX_JSON_DEPTH} levels deep; the array cannot be read") from None
        except json.JSONDecodeError as exc:
            raise ImportFormatError(f"{path}:{exc.lineno}: not a valid JSON array: {exc.msg}: "
                                    f"column {exc.colno}") from None
        yield line, obj
        pos = _skip_blanks(text, end)
        if text.startswith(",", pos):
            pos = _skip_blanks(text, pos + 1)
        elif text.startswith("]", pos):
            closed = True
        else:
            line += _line_breaks(text, counted, pos)
            raise ImportFormatError(f"{path}:{line}: not a valid JSON array: expected ',' or ']' "
                                    f"after record {number}")
    if _skip_blanks(text, pos + 1) != len(text):
        line += _line_breaks(text, counted, pos)
        raise ImportFormatError(f"{path}:{line}: not a valid JSON array: extra data after its closing ']'")


def _line_breaks(text: str, start: int, end: int) -> int:
    """Line ends (``\n``, ``\r\n``, lone ``\r``) in ``text[start:end]``."""
    return text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)


class _Prefixed(io.RawIOBase):
    """``head`` (already read) followed by the rest of ``fh``."""

    def __init__(self, head: bytes, fh: Any) -> None:
        self._head, self._fh = head, fh

    def read(self, n: int = -1) -> bytes:
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
    """The header (``{"__header__": [...]}``) then one :class:`Raw` per data row. A row that
    cannot be read on its own line (text after a closing quote, a field over the csv
    module's limit) is one bad record; a quote that opens a field and does not close where a field ends, so
    that the record runs over line ends into the rows after it, raises ImportFormatError
    naming the line where the quote opened (the rows after it cannot be told apart). A
    record spanning lines is bounded by :data:`MAX_LINE_BYTES` in all. Column names equal
    but for case are refused like exact duplicates."""
    delimiter = "\t" if plain_suffix(path) == ".tsv" else ","
    bad_utf8: set[int] = set()
    too_long: set[int] = set()
    counter = [0]
    record: list[str] = []  # the lines of the record being read (bounded: MAX_LINE_BYTES)
    size = [0]

    def text_lines() -> Iterator[str]:
        with open_binary(path) as fh:
            for raw in _lines(fh):  # \n, \r\n and lone \r line ends; bounded length
                counter[0] += 1
                if isinstance(raw, _LineTooLong):
                    too_long.add(counter[0])
                    text = "\n"
                else:
                    if counter[0] == 1 and raw.startswith(b"\xef\xbb\xbf"):
                        raw = raw[3:]
                    try:
                        text = raw.decode("utf-8")
                    except UnicodeDecodeError:
                        bad_utf8.add(counter[0])
                        text = raw.decode("utf-8", errors="replace")
                size[0] += len(text)
                record.append(text)
                if size[0] > MAX_LINE_BYTES and len(record) > 1:
                    raise _RecordTooLong
                yield text

    reader = csv.reader(text_lines(), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    number = 0
    last_line = 0
    while True:
        start = last_line + 1
        record.clear()
        size[0] = 0
        try:
            row = next(reader)
        except StopIteration:
            break
        except _RecordTooLong:
            opened = _quote_opened(record, start, delimiter)
            raise ImportFormatError(
                f"{path}:{start}: the record from line {start} runs over "
                f"{MAX_LINE_BYTES // 1_000_000} MB by line {start + len(record) - 1} (its last "
                f"quoted field opens on line {opened}): an unclosed quote? The rows after it "
                "cannot be told apart", title="Unclosed quote") from None
        except csv.Error as exc:
            last_line = reader.line_num
            eof = "unexpected end of data" in str(exc)
            if eof or last_line > start:
                opened = _quote_opened(record, start, delimiter)
                where = ("is never closed: the file ends inside it" if eof else
                         f"runs past {csv.field_size_limit():,} characters by line {last_line} "
                         "without closing" if "field limit" in str(exc) else
                         f"closes on line {last_line} where no field ends ({exc})")
                raise ImportFormatError(
                    f"{path}:{opened}: a quote opens a field on line {opened} and {where}; the "
                    "rows after it cannot be told apart: close or remove the quote",
                    title="Unclosed quote") from None
            number += 1  # one line, read to its end: one bad record ('"abc"d,1')
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
            problem = _header_problem(header)
            if problem:  # a row would keep only the last of the two values
                yield Raw(start, 0, None, problem)
                return
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


class _RecordTooLong(Exception):
    """A CSV record spanning lines grew over :data:`MAX_LINE_BYTES`."""


def _header_problem(header: list[str]) -> str | None:
    """Why a header cannot be read (a column named twice, or two names equal but for case,
    which the column mapping reads alike), or None. Linear in the number of columns."""
    twice = sorted(c for c, n in Counter(header).items() if n > 1)
    if twice:
        named = ", ".join(_shown(c) for c in twice[:5])
        more = f" (and {len(twice) - 5:,} more)" if len(twice) > 5 else ""
        return f"the header names column {named} twice{more}"
    by_case: dict[str, list[str]] = {}
    for c in header:
        by_case.setdefault(c.lower(), []).append(c)
    alike = [names for names in by_case.values() if len(names) > 1]
    if not alike:
        return None
    named = "; ".join(" and ".join(_shown(c) for c in names[:5]) for names in alike[:5])
    more = f" (and {len(alike) - 5:,} more)" if len(alike) > 5 else ""
    return (f"the header names columns that differ only in case: {named}{more}; which one "
            "a field reads is unclear: rename one")


def _quote_opened(lines: list[str], start: int, delimiter: str) -> int:
    """The line where the last quoted field of a CSV record (``lines``, from line ``start``)
    opens, read as the csv module does (a quote opens a field only at its start; a doubled
    quote inside is one quote), stopping where a closing quote is not followed by the end
    of its field."""
    opened = start
    state = 0  # 0 field start, 1 unquoted field, 2 quoted field, 3 quote seen in a quoted field
    for n, text in enumerate(lines, start):
        for ch in text:
            if state == 2:
                if ch == '"':
                    state = 3
            elif state == 3:
                if ch == '"':
                    state = 2
                elif ch in (delimiter, "\n", "\r"):
                    state = 0
                else:
                    return opened
            elif ch == delimiter or ch in "\n\r":
                state = 0
            elif state == 0 and ch == '"':
                state, opened = 2, n
            else:
                state = 1
    return opened


def first_json_record(path: Path, max_lines: int = 50) -> tuple[dict[str, Any] | None, bool, str | None]:
    """(first parseable object, file has any non-blank content, why the first record that
    could not be read was refused as ``LINE: reason``, or None); ImportFormatError when a JSON
    array cannot be read up to its first object."""
    seen = False
    first_error: str | None = None
    for i, raw in enumerate(iter_json(path, whole=False)):
        seen = True
        if raw.data is not None:
            return raw.data, True, first_error
        if first_error is None:
            first_error = f"{raw.line}: {raw.error or 'unreadable record'}"
        if i >= max_lines:
            break
    return None, seen, first_error


def csv_header(path: Path) -> list[str] | None:
    """The column names of a CSV/TSV file (None when it has no readable header)."""
    for raw in iter_csv(path):
        return raw.data["__header__"] if raw.data is not None else None
    return None


def json_file_shape(path: Path) -> str:
    """``array`` for a file holding one JSON array, else ``lines`` (JSON Lines)."""
    with open_binary(path) as fh:
        return json_shape(fh.read(1 << 16))
