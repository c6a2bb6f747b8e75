"""The runtime folder of the verifier pool's socket is short enough for a Unix socket wherever
the environment points: a deep ``$XDG_RUNTIME_DIR`` falls back to the system temp folder, and a
deep ``$TMPDIR`` as well to ``/tmp`` (the pool failed to start, 'AF_UNIX path too long', where
both were deep: a test's tmp_path under pytest-xdist)."""

from __future__ import annotations

import multiprocessing.connection
import shutil
import tempfile
from pathlib import Path

import pytest

from qcstation.common import runtime


def _deep(root: Path) -> Path:
    deep = root / ("d" * 60) / ("e" * 40)
    deep.mkdir(parents=True)
    return deep


def test_a_deep_runtime_and_temp_folder_fall_back_to_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(_deep(tmp_path / "run")))
    monkeypatch.setenv("TMPDIR", str(_deep(tmp_path / "tmp")))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read $TMPDIR again
    base = runtime.runtime_base()
    assert base.parent == Path("/tmp") and base.name.startswith("qcstation-")
    # a socket in a pid's folder of it binds (a listener as the forkserver makes it)
    mine = base / "4194304"  # (no pid is this large: pid_max is at most 2**22)
    mine.mkdir(parents=True, exist_ok=True)
    try:
        with multiprocessing.connection.Listener(str(mine / "listener-abcdefgh"), family="AF_UNIX"):
            pass
    finally:
        shutil.rmtree(mine, ignore_errors=True)


def test_a_short_runtime_folder_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    short = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    try:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(short))
        assert runtime.runtime_base() == short / "qcstation"
    finally:
        short.rmdir()
