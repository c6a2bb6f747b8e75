"""Every RUN argument of `qcstation eval` follows the one rule of qcstation.eval.runs (an id,
or a name exactly one run has), in real subprocesses on a real SQLite file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from db import Store
from tests.eval_factory import make_run


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "eval", *args],
                          capture_output=True, text=True, timeout=300)


def test_every_run_argument_follows_the_one_rule(store: Store, db_file: Path) -> None:
    make_run(store, name="dup")
    make_run(store, name="dup")
    store.close()
    for action in (["show"], ["resume"], ["score"], ["rescore"], ["export-batch"], ["breakdown"],
                   ["report"], ["compare", "1"], ["leaderboard"]):
        for ref, message in (("nosuch", "no evaluation run with id or name 'nosuch'"),
                             ("9" * 30, "no evaluation run with id or name"),
                             ("dup", "2 runs are named 'dup' (1, 2); give the run id"),
                             ("7", "no evaluation run 7; `qcstation eval list` lists them")):
            proc = _cli(db_file, *action, ref)
            assert proc.returncode == 2, (action, ref, proc.stderr)
            assert proc.stderr.startswith(f"qcstation: error: {message}"), (action, ref, proc.stderr)
            assert "Traceback" not in proc.stderr
    proc = _cli(db_file, "import-batch", "nosuch", str(db_file))
    assert proc.returncode == 2 and "no evaluation run with id or name 'nosuch'" in proc.stderr
    listed = _cli(db_file, "list", "--json")
    assert [r["name"] for r in json.loads(listed.stdout)] == ["dup", "dup"]
