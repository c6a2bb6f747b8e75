"""`qcstation eval leaderboard / compare / breakdown` on scores written by hand into a real
SQLite file: each command's text output in a real subprocess (as a shell sees it), its JSON and
a wrong argument through the CLI's entry point in this process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.cli import main
from tests.eval.test_metrics import HAND, hand_run
from tests.eval_factory import add_item, make_run, row


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "eval", *args],
                          capture_output=True, text=True, timeout=300)


def _main(capsys: pytest.CaptureFixture[str], db: Path,
          *args: str) -> subprocess.CompletedProcess[str]:
    """The same command through the CLI's main in this process."""
    code = main(["--db", str(db), "eval", *args])
    out = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out.out, out.err)


def test_cli_leaderboard_compare_breakdown(store: Store, db_file: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    a = hand_run(store, model="evil\x1b[2Jmodel", name="first")
    b = make_run(store, model="model-b", status="running")
    for seed in HAND:
        add_item(store, b, seed, scores=row(fi="w", re="c"))
    store.close()

    lb = _main(capsys, db_file, "leaderboard", "--json", "--n-boot", "200", "--spearman")
    assert lb.returncode == 0, lb.stderr
    data = json.loads(lb.stdout)["runs"]
    assert "at least 3 runs" in json.loads(lb.stdout)["spearman"]["note"]
    assert [r["run_id"] for r in data] == [a]              # default: finished runs only
    assert data[0]["values"]["fi"]["value"] == 0.5
    assert data[0]["values"]["all"]["value"] == 0.25

    text = _cli(db_file, "leaderboard", str(a), str(b), "--no-ci", "--wide")
    assert text.returncode == 0, text.stderr
    assert "\x1b" not in text.stdout and "evil\\x1b[2Jmodel" in text.stdout
    assert "ACC@All w/o Un" in text.stdout and "50.0%" in text.stdout
    compact = _cli(db_file, "leaderboard", str(a), str(b))
    assert compact.returncode == 0, compact.stderr
    assert max(len(line) for line in compact.stdout.splitlines()) <= 120
    assert "smart@1.0" in compact.stdout and "1-prompt" in compact.stdout     # release, protocol
    assert "evil\\x1b[2Jm" in compact.stdout

    cmp_ = _main(capsys, db_file, "compare", "first", str(b), "--metric", "fi", "--json")
    assert cmp_.returncode == 0, cmp_.stderr
    d = json.loads(cmp_.stdout)
    assert (d["a_only"], d["b_only"], d["a_only_ids"]) == (2, 0, [1, 3])
    assert d["p_value"] == pytest.approx(0.5) and d["item_keys"]["1"] == "gsm8k-1"
    plain = _cli(db_file, "compare", str(a), str(b), "--metric", "fi")
    assert "exact sign test p = 0.5" in plain.stdout and "gsm8k-3" in plain.stdout

    bd = _cli(db_file, "breakdown", str(a), "--by", "difficulty")
    assert bd.returncode == 0, bd.stderr
    lines = bd.stdout.splitlines()
    assert lines[0].startswith("difficulty") and lines[2].startswith("easy")
    assert lines[4].startswith("(none)")

    bad = _main(capsys, db_file, "compare", str(a), "nosuch")
    assert bad.returncode == 2 and "no evaluation run with id or name 'nosuch'" in bad.stderr
