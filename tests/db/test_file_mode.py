"""A new database honours the umask (SQLite alone makes it 0644): a team working under
umask 002 gets a group-writable file, and its -wal/-shm files follow it."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_CREATE = """
import os, sys
os.umask(int(sys.argv[2], 8))
from db import Store
with Store(sys.argv[1]) as store:
    store.scalar("SELECT COUNT(*) FROM seeds")
"""


def _create(path: Path, umask: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-c", _CREATE, str(path), umask], check=True, env=env)


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
@pytest.mark.parametrize(("umask", "mode"), [("002", 0o664), ("022", 0o644), ("077", 0o600)])
def test_a_new_database_takes_the_umask(tmp_path: Path, umask: str, mode: int) -> None:
    path = tmp_path / "team.db"
    _create(path, umask)
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_an_existing_database_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "kept.db"
    _create(path, "022")
    path.chmod(0o640)
    _create(path, "002")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
