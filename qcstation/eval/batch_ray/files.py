"""The files of the Ray route, pure I/O (no Ray): the input requests and the output file.

Input: OpenAI Batch input JSONL, one or more files (an export split in parts). A line that
is not a chat request is reported as ``FILE:LINE: message`` and skipped; a ``custom_id``
seen before is reported and sent once.

Output: OpenAI Batch output JSONL, appended to as results arrive, so a run that is killed
keeps what it wrote. On the next start a last line cut in the middle (no newline) is
dropped, the ``custom_id`` s already present are read (through ``read_batch_output``, with
its caps) and only the other requests are sent again.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from qcstation.common.http_retry import MAX_JSON_NODES, loads_unique, too_deep
from qcstation.eval.backends.batch import MAX_LINE_BYTES, BatchFileError, read_batch_output
from qcstation.eval.batch_ray.rows import BadRequestLine, parse_request_line

_GIVE_UP_AFTER = 20       # this many bad lines before any good one: not a batch input file


def read_requests(paths: Iterable[str | Path], problems: list[str]) -> Iterator[tuple[str, str]]:
    """``(custom_id, body_text)`` of every request of the input files, in file order, each
    ``custom_id`` once. Unreadable lines go to ``problems``; a missing file, or one whose
    first 20 lines are all unreadable, raises :class:`BatchFileError`."""
    seen: dict[str, str] = {}
    for p in paths:
        path = Path(p)
        try:
            f = path.open("rb")
        except FileNotFoundError:
            raise BatchFileError(f"{path}: no such file") from None
        except OSError as exc:
            raise BatchFileError(f"cannot read {path}: {exc.strerror or exc}") from None
        good = bad = 0
        with f:
            for lineno, raw in enumerate(_lines(f), 1):
                if raw is None:
                    problems.append(f"{path}:{lineno}: line longer than {MAX_LINE_BYTES} bytes; skipped")
                    bad += 1
                elif not raw.strip():
                    continue
                else:
                    try:
                        cid, body = parse_request_line(raw)
                    except BadRequestLine as exc:
                        problems.append(f"{path}:{lineno}: {exc}; skipped")
                        bad += 1
                    else:
                        if cid in seen:
                            problems.append(f"{path}:{lineno}: {cid} already appeared at {seen[cid]}; "
                                            "sent once")
                            continue
                        seen[cid] = f"{path}:{lineno}"
                        good += 1
                        yield cid, body
                if good == 0 and bad >= _GIVE_UP_AFTER:
                    raise BatchFileError(f"{path} does not look like an OpenAI Batch input file: its "
                                         f"first {_GIVE_UP_AFTER} lines are not requests")


def _lines(f: IO[bytes]) -> Iterator[bytes | None]:
    """The lines of ``f``; ``None`` for one longer than ``MAX_LINE_BYTES`` (read past, not kept)."""
    while raw := f.readline(MAX_LINE_BYTES + 1):
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = f.readline(1 << 20)
            yield None
        else:
            yield raw


class OutputFile:
    """The output file of a run: what it holds (``done``: custom_id -> whether the result
    is an error) and the handle results are appended through."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.done: dict[str, bool] = {}
        self.problems: list[str] = []
        self.cut_line_dropped = False
        self._handle: IO[bytes] | None = None

    def load(self) -> None:
        """Read what the file already holds (nothing when it does not exist yet), after
        dropping a last line a kill cut in the middle."""
        if not self.path.exists():
            return
        self._drop_cut_line()
        for reply in read_batch_output(self.path, problems=self.problems):
            self.done[reply.custom_id] = reply.status != "ok"

    def _drop_cut_line(self) -> None:
        size = self.path.stat().st_size
        if size == 0:
            return
        with self.path.open("r+b") as f:
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return
            # back to the last newline, a block at a time
            pos = size
            while pos > 0:
                start = max(0, pos - (1 << 16))
                f.seek(start)
                block = f.read(pos - start)
                cut = block.rfind(b"\n")
                if cut >= 0:
                    f.truncate(start + cut + 1)
                    break
                pos = start
            else:
                f.truncate(0)
            self.cut_line_dropped = True

    def drop_errors(self) -> int:
        """Rewrite the file without its error lines (atomically: a temporary file renamed
        over it), so that their requests are sent again; returns how many were dropped."""
        errors = {cid for cid, failed in self.done.items() if failed}
        if not errors:
            return 0
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "wb") as out, self.path.open("rb") as src:
                kept: set[str] = set()
                for reply in read_batch_output(self.path, problems=[]):
                    if reply.custom_id not in errors:
                        kept.add(reply.custom_id)
                # copy the lines of kept results verbatim (no re-encoding), in order
                for raw in _lines(src):
                    cid = None if raw is None else _custom_id_of(raw)
                    if raw is not None and cid is not None and cid in kept:
                        out.write(raw if raw.endswith(b"\n") else raw + b"\n")
                        kept.discard(cid)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        for cid in errors:
            del self.done[cid]
        return len(errors)

    def append(self, line: str) -> None:
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("ab")
        self._handle.write(line.encode("utf-8") + b"\n")

    def flush(self) -> None:
        """Make what was appended durable (called after each batch of results)."""
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self.flush()
            self._handle.close()
            self._handle = None


def _custom_id_of(raw: bytes) -> str | None:
    if too_deep(raw) or raw.count(b"{") + raw.count(b"[") > MAX_JSON_NODES:
        return None
    try:
        rec = loads_unique(raw)          # a key twice: no custom_id (read_batch_output refuses it)
    except (ValueError, RecursionError):
        return None
    cid = rec.get("custom_id") if isinstance(rec, dict) else None
    return cid if isinstance(cid, str) else None
