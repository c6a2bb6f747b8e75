"""`qcstation` with no subcommand opens the workstation (run_app), in a real terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.app.conftest import build_db

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "80",
                "LINES": "24", "QCSTATION_USER": "tester"})
    env.pop("QCSTATION_CONFIG", None)
    env.pop("QCSTATION_DB", None)
    return env


def test_an_unreadable_database_fails_before_the_screen_opens(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not sqlite " * 500)
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(bad)], cwd=tmp_path,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "not a qcstation database" in proc.stderr
    assert proc.stdout == ""


def test_a_bad_config_fails_before_the_screen_opens(tmp_path: Path) -> None:
    db = build_db(tmp_path / "qc.db")
    (tmp_path / "qcstation.toml").write_text("[qc]\ndefect_threshold = 7\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db)], cwd=tmp_path,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "defect_threshold" in proc.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_no_subcommand_opens_the_dashboard_and_q_quits(tmp_path: Path) -> None:
    db = build_db(tmp_path / "qc.db")
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "qcstation", "--db", str(db)], cwd=tmp_path,
                            env=_env(tmp_path), stdin=follower, stdout=follower,
                            stderr=follower, close_fds=True)
    os.close(follower)
    seen = b""

    def drain(until: float) -> None:
        # keep reading: a terminal whose output is not read blocks the app's writes
        nonlocal seen
        while time.monotonic() < until and proc.poll() is None:
            ready, _, _ = select.select([leader], [], [], 0.1)
            if ready:
                try:
                    seen += os.read(leader, 65536)
                except OSError:
                    return

    try:
        deadline = time.monotonic() + 300
        while b"notation questions" not in seen and time.monotonic() < deadline \
                and proc.poll() is None:
            drain(time.monotonic() + 0.2)
        assert b"notation questions" in seen, seen[-2000:]
        os.write(leader, b"q")
        drain(time.monotonic() + 300)   # returns as soon as the app has exited
        assert proc.wait(timeout=300) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
