"""Every RUN argument of `qcstation eval` follows the one rule of qcstation.eval.runs (an id,
or a name exactly one run has), on a real SQLite file: every action with every kind of wrong
argument through the CLI's entry point in this process, and each kind of wrong argument, the
batch import and the listing in real subprocesses (exit code and stderr as a shell sees them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.cli import main
from tests.eval_factory import make_run

WRONG = (("nosuch", "no evaluation run with id or name 'nosuch'"),
         ("9" * 30, "no evaluation run with id or name"),
         ("dup", "2 runs are named 'dup' (1, 2); give the run id"),
         ("7", "no evaluation run 7; `qcstation eval list` lists them"))


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "eval", *args],
                          capture_output=True, text=True, timeout=300)


def test_every_run_argument_follows_the_one_rule(store: Store, db_file: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    make_run(store, name="dup")
    make_run(store, name="dup")
    store.close()
    for action in (["show"], ["resume"], ["score"], ["rescore"], ["export-batch"], ["breakdown"],
                   ["report"], ["compare", "1"], ["leaderboard"]):
        for ref, message in WRONG:
            code = main(["--db", str(db_file), "eval", *action, ref])
            err = capsys.readouterr().err
            assert code == 2, (action, ref, err)
            assert err.startswith(f"qcstation: error: {message}"), (action, ref, err)
            assert "Traceback" not in err
    for ref, message in WRONG:                      # the same in a real process
        proc = _cli(db_file, "show", ref)
        assert proc.returncode == 2, (ref, proc.stderr)
        assert proc.stderr.startswith(f"qcstation: error: {message}"), (ref, proc.stderr)
        assert "Traceback" not in proc.stderr
    proc = _cli(db_file, "import-batch", "nosuch", str(db_file))
    assert proc.returncode == 2 and "no evaluation run with id or name 'nosuch'" in proc.stderr
    listed = _cli(db_file, "list", "--json")
    assert [r["name"] for r in json.loads(listed.stdout)] == ["dup", "dup"]
