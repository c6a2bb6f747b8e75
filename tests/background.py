"""A check over the whole tree that a test asserts on, run as a real subprocess started when the
session's tests are collected (tests/conftest.py) rather than when its test comes: on two cores
it runs beside the other tests, and its test reads the finished process. The same command, the
same output and the same assertions; nothing starts unless its test is selected."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

#: started processes by key, with the files their stdout and stderr go to
_STARTED: dict[str, tuple[subprocess.Popen[bytes], IO[bytes], IO[bytes]]] = {}


def start(key: str, argv: Sequence[str], cwd: Path) -> None:
    """Start ``argv`` in ``cwd`` (once per key), its output kept in temporary files."""
    if key in _STARTED:
        return
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    proc = subprocess.Popen(list(argv), cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    _STARTED[key] = (proc, out, err)


def result(key: str, timeout: float) -> subprocess.CompletedProcess[str] | None:
    """The finished process started under ``key`` (waited for up to ``timeout`` s, then killed as
    ``subprocess.run`` would), or None if none was started."""
    entry = _STARTED.pop(key, None)
    if entry is None:
        return None
    proc, out, err = entry
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    texts = []
    for f in (out, err):
        f.seek(0)
        texts.append(f.read().decode("utf-8", "replace"))
        f.close()
    return subprocess.CompletedProcess(proc.args, proc.returncode, texts[0], texts[1])


def stop_all() -> None:
    """End whatever was started and never read (a session stopped early, a deselected run)."""
    for key in list(_STARTED):
        proc, out, err = _STARTED.pop(key)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        out.close()
        err.close()
