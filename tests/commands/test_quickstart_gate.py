"""A new user's starter data can pass its gate: ``qcstation quickstart`` in an empty folder
writes a demonstration QC config that says what a real batch needs, and reviewing the
starter sample takes every gate to a pass and a release to approvable (real processes,
real SQLite; qcstation/commands/quickstart.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.common.identity import os_account
from tests.conftest import ROOT
from tests.core.review.helpers import decide_all


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "qcstation", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_starter_data_is_taken_to_a_passing_gate(tmp_path: Path) -> None:
    r = _cli(tmp_path, "quickstart", "--no-app")
    assert r.returncode == 0, r.stderr
    conf = (tmp_path / "qcstation.toml").read_text(encoding="utf-8")
    assert "A DEMONSTRATION gate: 9 clean reviews per dimension pass it" in conf
    assert "its gate needs 59 clean reviews per" in conf
    assert f'curators = ["{os_account()}"]' in conf
    assert "wrote " in r.stdout and "a real batch needs the 5% default" in r.stdout
    # a second quickstart keeps the user's file as it is
    (tmp_path / "qcstation.toml").write_text(conf + "# mine\n", encoding="utf-8")
    assert _cli(tmp_path, "quickstart", "--no-app").returncode == 0
    assert (tmp_path / "qcstation.toml").read_text(encoding="utf-8").endswith("# mine\n")
    r = _cli(tmp_path, "release", "blockers")
    assert r.returncode == 1 and "sampled item" in r.stdout
    with Store(tmp_path / "db" / "qcstation.db") as store:
        for dim in ("arithmetic", "understanding"):
            assert decide_all(store, os_account(), dim) >= 9
    r = _cli(tmp_path, "qc", "status")
    assert r.returncode == 0, r.stdout
    assert r.stdout.count("gate PASSES") == 2
    r = _cli(tmp_path, "release", "blockers")
    assert r.returncode == 0 and r.stdout.startswith("Ready:"), r.stdout
    r = _cli(tmp_path, "release", "approve", "starter@1.0", "--export", "--out", "exp")
    assert r.returncode == 0 and r.stdout.startswith("approved starter@1.0"), r.stderr
    sheet = (tmp_path / "exp" / "starter" / "1.0" / "README.md").read_text(encoding="utf-8")
    assert "The defect threshold of this release, 30%, is a demonstration setting" in sheet


def test_the_config_quickstart_writes_is_the_owners_alone(tmp_path: Path) -> None:
    """Walked as a team (README: the curator runs quickstart under umask 002 in the shared
    folder): the database came out group-writable as it should, and so did qcstation.toml,
    which names the curators, so an annotator could make themselves one. The config is
    written writable by its owner only, whatever the umask (a real process)."""
    code = ("import os, sys; from pathlib import Path; os.umask(0o002); "
            "from qcstation.commands.quickstart import write_demo_config; "
            "write_demo_config(Path(sys.argv[1]), 'carol')")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
    env["PYTHONPATH"] = str(ROOT)
    path = tmp_path / "qcstation.toml"
    subprocess.run([sys.executable, "-c", code, str(path)], check=True, env=env, timeout=120)
    assert path.stat().st_mode & 0o777 == 0o644
    assert 'curators = ["carol"]' in path.read_text(encoding="utf-8")
