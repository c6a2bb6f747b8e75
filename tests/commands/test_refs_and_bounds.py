"""Every name or number a user types reaches a clear error, never a traceback (issue 30.2,
lane attack5): an item or sample number past SQLite's integer was an OverflowError, a digit
that is no ASCII digit ('²', which str.isdigit() takes) a ValueError; --max-tokens, qc queue
--limit and qc change took any whole number. Real CLI in a subprocess, real SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

HUGE = "9" * 26


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("refs")
    seeds = tmp / "seeds.jsonl"
    seeds.write_text('{"question": "Bo has 4 boxes of 5 pens and loses 2. How many pens does he have?", '
                     '"answer": "4*5=<<4*5=20>>20\\n20-2=<<20-2=18>>18\\n#### 18"}\n', encoding="utf-8")
    out = _cli(tmp / "q.db", "import", str(seeds))
    assert out.returncode == 0, out.stderr
    return tmp / "q.db"


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("args", [
    ["qc", "show", HUGE], ["qc", "show", "²"], ["qc", "items", HUGE], ["qc", "items", "²"],
    ["qc", "decide", HUGE, "accept"], ["qc", "decide", "²", "accept"], ["qc", "edit-text", HUGE],
    ["qc", "exclude", HUGE, "--reason", "x"]])
def test_an_item_or_sample_number_no_row_can_have_is_no_such_item(db: Path, args: list[str]) -> None:
    out = _cli(db, *args)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and "Error:" not in out.stderr, out.stderr[-500:]
    assert "qcstation: error: no " in out.stderr and "no database" not in out.stderr, out.stderr[-500:]


@pytest.mark.parametrize(("args", "needle"), [
    (["eval", "run", "--model", "m", "--working-set", "--max-tokens", "9" * 20, "--create-only"],
     "argument --max-tokens: must be at most 1,000,000"),
    (["qc", "queue", "--limit", "-1"], "argument --limit: must be at least 1"),
    (["qc", "change", HUGE, "accept"], "argument DECISION: must be at most"),
    # lane attack6: 'qc sample --seed' past SQLite's integer was an OverflowError traceback;
    # eval ray-batch took any --endpoint ('http://[::1', ftp://, port 99999, user:pass@), a
    # --timeout of nan or inf (the inf run never ended), --in-flight and --retries of any size
    (["qc", "sample", "reasoning", "--seed", HUGE], "argument --seed: '9999"),
    (["qc", "fresh", "reasoning", "--seed", HUGE], "argument --seed: '9999"),
    (["eval", "run", "--model", "m", "--working-set", "--seed", HUGE, "--create-only"],
     "argument --seed: '9999"),
    (["eval", "leaderboard", "--seed", HUGE], "argument --seed: '9999"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://[::1"],
     "argument --endpoint: must be an http(s) URL"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "ftp://h/v1"],
     "argument --endpoint: must be an http(s) URL"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://h:99999/v1"],
     "argument --endpoint: must be an http(s) URL"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://u:p@h/v1"],
     "argument --endpoint: must not contain credentials"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://h/v1", "--timeout", "inf"],
     "argument --timeout: must be above 0 and at most 3600 seconds"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://h/v1", "--timeout", "nan"],
     "argument --timeout: must be above 0 and at most 3600 seconds"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://h/v1", "--in-flight", HUGE],
     "argument --in-flight: must be at most 512"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://h/v1", "--retries", HUGE],
     "argument --retries: must be at most 50"),
    (["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://h/v1", "--api-key-env", "A=B"],
     "argument --api-key-env: must be the NAME of an environment variable"),
    # lane attack30: derive's --limit past SQLite's integer was an OverflowError traceback (the
    # build and 'derive show'); generate --max-attempts took any number ([generation]
    # max_attempts is 1-20: 1,000 attempts a seed against a useless generator ran for hours)
    (["derive", "variants", "--limit", HUGE], "argument --limit: must be at most 9,223,372,036,854,775,807"),
    (["derive", "show", "variants", "--limit", HUGE], "argument --limit: must be at most 9,223,"),
    (["generate", "--limit", HUGE], "argument --limit: must be at most 9,223,"),
    (["generate", "--max-attempts", "1000"], "argument --max-attempts: must be at most 20"),
    (["generate", "--max-attempts", "0"], "argument --max-attempts: must be at least 1"),
    (["eval", "run", "--model", "m", "--working-set", "--limit", "x" * 5000, "--create-only"],
     "argument --limit: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' is not a whole number\n"),
])
def test_a_number_option_out_of_bounds_is_refused_by_name(db: Path, args: list[str], needle: str) -> None:
    out = _cli(db, *args)
    assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr, out.stderr[-500:]
