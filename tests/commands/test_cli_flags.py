"""Flags where a reviewer and a curator decide, from the shell: ``qc show`` / ``qc next`` print
every stored flag and who or what made the item; ``release flags`` lists what blocks the
release; ``release override`` (curators, with a reason) lets an item through."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from db import Store
from qcstation.common.identity import os_account
from qcstation.core.review.sampling import draw_sample
from tests import factories as f
from tests.conftest import ROOT
from tests.core.release.test_flag_gate import _flag_reasoning


def _cli(db: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_reviewer_sees_flags_and_maker_and_curator_overrides(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    me = os_account()
    with Store(db) as s:
        seeds = f.populate(s, {"gsm8k": 4})
        _flag_reasoning(s, seeds[2], model="weak-gen")
        draw_sample(s, "reasoning", rate=1.0, rng_seed=1, actor="lead")
    r = _cli(db, tmp_path, "qc", "show", "gsm8k-gsm8k-2", "--dimension", "reasoning")
    assert r.returncode == 0, r.stderr
    assert "Made by: model weak-gen" in r.stdout
    assert "Flags (" in r.stdout and "! " in r.stdout
    r = _cli(db, tmp_path, "qc", "show", "gsm8k-gsm8k-1", "--dimension", "reasoning")
    assert "Made by: rules (gsm8k-calculator)" in r.stdout and "Flags: none" in r.stdout
    js = json.loads(_cli(db, tmp_path, "qc", "show", "gsm8k-gsm8k-2", "--dimension", "reasoning",
                         "--json").stdout)
    assert js["made_by"].startswith("model weak-gen") and js["flags"]
    # the release gate lists it
    r = _cli(db, tmp_path, "release", "flags")
    assert r.returncode == 1 and "gsm8k-gsm8k-2  reasoning" in r.stdout
    conf = tmp_path / "qcstation.toml"
    conf.write_text('[qc]\ncurators = ["someone-else"]\n', encoding="utf-8")
    r = _cli(db, tmp_path, "--config", str(conf), "release", "override", "gsm8k-gsm8k-2",
             "-d", "reasoning", "--reason", "fine")
    assert r.returncode != 0 and "only a curator" in r.stderr
    conf.write_text(f'[qc]\ncurators = ["{me}"]\n', encoding="utf-8")
    r = _cli(db, tmp_path, "--config", str(conf), "release", "override", "gsm8k-gsm8k-2",
             "-d", "reasoning")
    assert r.returncode != 0 and "say why" in r.stderr
    r = _cli(db, tmp_path, "--config", str(conf), "release", "override", "gsm8k-gsm8k-2",
             "-d", "reasoning", "--reason", "value checked by hand")
    assert r.returncode == 0, r.stderr
    r = _cli(db, tmp_path, "release", "flags")
    assert r.returncode == 0 and "1 overridden" in r.stdout
    r = _cli(db, tmp_path, "release", "flags", "--all")
    assert f"overridden by {me}" in r.stdout and "value checked by hand" in r.stdout
    r = _cli(db, tmp_path, "qc", "show", "gsm8k-gsm8k-2", "--dimension", "reasoning")
    assert "value checked by hand" in r.stdout
