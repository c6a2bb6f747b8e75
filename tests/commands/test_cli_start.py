"""The command line starts with only what it uses: what ``qcstation --help`` and
``qcstation qc decide`` import, in fresh interpreters (the times are in bench/cli_start.py);
and the parser built for one command is the parser of every command, cut to that command."""

from __future__ import annotations

import argparse
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.cli import build_parser, command_named
from qcstation.commands import COMMANDS
from qcstation.core.review.sampling import draw_sample
from tests import factories as f
from tests.conftest import ROOT

#: packages a command that does not need them must not import
HEAVY = ("textual", "rich", "matplotlib", "scipy", "numpy", "math_verify", "sympy", "z3",
         "openai", "aiohttp", "httpx", "sqlite_utils", "vllm", "ray", "pyarrow", "pandas")

_PROBE = """
import json, sys
from qcstation.cli import main
argv = json.loads(sys.argv[1])
try:
    code = main(argv)
except SystemExit as exc:
    code = exc.code
loaded = sorted({m.split(".")[0] for m in sys.modules})
ours = sorted(m for m in sys.modules if m.split(".")[0] in ("qcstation", "db", "exports", "screens"))
print(json.dumps({"code": code, "loaded": loaded, "ours": ours}), file=sys.__stderr__)
"""


def _imports(*argv: str, db: Path | None = None) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QCSTATION_USER": "ann"}
    if db is not None:
        env["QCSTATION_DB"] = str(db)
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(list(argv))], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    report: dict[str, object] = json.loads(proc.stderr.strip().splitlines()[-1])
    return report


def _heavy(report: dict[str, object]) -> list[str]:
    return [m for m in HEAVY if m in report["loaded"]]  # type: ignore[operator]


def test_help_imports_no_command_and_nothing_heavy() -> None:
    report = _imports("--help")
    assert report["code"] == 0
    assert _heavy(report) == []
    ours = report["ours"]
    assert isinstance(ours, list)
    assert not [m for m in ours if m.startswith(("qcstation.core", "qcstation.eval", "db"))], ours
    assert "qcstation.commands.qc" not in ours


def test_qc_decide_imports_the_review_rooms_and_nothing_heavy(tmp_path: Path) -> None:
    db = tmp_path / "small.db"
    with Store(db) as store:
        f.populate(store, {"gsm8k": 12})
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="lead")
    report = _imports("qc", "decide", "--help")
    assert report["code"] == 0 and _heavy(report) == []
    report = _imports("qc", "decide", "next", "accept", "--dimension", "arithmetic", db=db)
    assert report["code"] == 0
    assert _heavy(report) == []
    ours = report["ours"]
    assert "qcstation.core.review.decisions" in ours  # type: ignore[operator]
    for elsewhere in ("qcstation.eval", "qcstation.core.construct", "qcstation.core.ingest",
                      "qcstation.commands.eval", "qcstation.commands.release", "screens"):
        assert elsewhere not in ours, elsewhere  # type: ignore[operator]
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM reviews WHERE verdict = 'accept'") == 1


def test_the_probe_sees_a_heavy_import(tmp_path: Path) -> None:
    # `eval leaderboard` reads the metrics (numpy): the probe must see it
    db = tmp_path / "empty.db"
    Store(db).close()
    report = _imports("eval", "leaderboard", db=db)
    assert report["code"] == 0 and "numpy" in _heavy(report)


def _helps(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    out = {path: parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.update(_helps(sub, (*path, name)))
    return out


def test_the_parser_of_one_command_is_the_whole_parser_cut_to_it() -> None:
    whole = _helps(build_parser())
    assert whole[()] == _helps(build_parser(["--help"]))[()]
    for cmd in COMMANDS:
        lazy = _helps(build_parser(["--db", "x.db", cmd.name]))
        assert lazy[()] == whole[()], cmd.name
        mine = {k: v for k, v in whole.items() if k[:1] == (cmd.name,)}
        assert {k: v for k, v in lazy.items() if k[:1] == (cmd.name,)} == mine, cmd.name


def test_the_command_is_read_past_the_global_options() -> None:
    assert command_named(["--db", "status", "qc", "decide"]) == "qc"
    assert command_named(["--db=x", "--annotator", "bob", "eval", "list"]) == "eval"
    assert command_named(["--conf", "c.toml", "release"]) == "release"      # abbreviated option
    assert command_named(["--help"]) is None and command_named([]) is None
    assert command_named(["--db"]) is None                                  # the real parser says why
    proc = subprocess.run([sys.executable, "-m", "qcstation", "nosuch"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "invalid choice: 'nosuch'" in proc.stderr


def test_every_command_module_is_listed() -> None:
    import qcstation.commands as pkg

    registering = {m.name for m in pkgutil.iter_modules(pkg.__path__)
                   if not m.name.startswith("_")}
    assert registering == {c.module for c in COMMANDS}
    names = [c.name for c in COMMANDS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("verb", ["run", "leaderboard", "export-batch", "ray-batch"])
def test_eval_verbs_import_nothing_heavy_to_show_their_help(verb: str) -> None:
    report = _imports("eval", verb, "--help")
    assert report["code"] == 0 and _heavy(report) == []
