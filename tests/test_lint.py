"""Lint (ruff) and type checks (mypy on the whole tree, tests and benchmarks included) run with
the test suite, so CI's ``python -m pytest -q`` runs them. Their rules are in pyproject.toml
(``[tool.ruff]``, ``[tool.mypy]``); both are real subprocesses on the whole tree."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests import background

ROOT = Path(__file__).resolve().parents[1]


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"{module} is not installed: pip install -e '.[test]'")
    # the timeout only stops a hung tool: mypy over the whole tree took over 600 s of wall
    # time on a machine at load 17, so the bound is far above any run, never a speed target
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=3600, check=False)


def test_ruff_finds_nothing() -> None:
    proc = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


MYPY = ("mypy", "--cache-dir", str(ROOT / ".mypy_cache"))


def start_mypy() -> None:
    """Called by tests/conftest.py once the session's tests are collected, when
    test_mypy_finds_nothing is one of them: mypy over the whole tree (about a CPU minute on a
    fresh clone) then runs on the second core beside the other tests (tests/background.py)."""
    if importlib.util.find_spec("mypy") is not None:
        background.start("mypy", [sys.executable, "-m", *MYPY], ROOT)


def test_mypy_finds_nothing() -> None:
    proc = background.result("mypy", timeout=3600) or _run(*MYPY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


def test_the_checks_would_fail_on_a_finding(tmp_path: Path) -> None:
    """The same commands fail on a file with an unused import and a type error."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f() -> int:\n    return 'x'\n", encoding="utf-8")
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated",
                           "--select", "F", str(bad)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert ruff.returncode == 1 and "F401" in ruff.stdout
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file",
                           str(ROOT / "pyproject.toml"), str(bad)], capture_output=True,
                          text=True, timeout=300, check=False, cwd=tmp_path)
    assert mypy.returncode == 1 and "Incompatible return value" in mypy.stdout


# -- conventions the tree keeps (each was made true once; these keep it true) -------------

def _py_files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py")
                  if "__pycache__" not in p.parts)


def test_commands_open_a_store_one_way() -> None:
    """A command opens the database as ``with store_from_args(args) as store:`` (the path from
    --db / $QCSTATION_DB / the default, the display name set, closed on every way out); never
    ``Store(...)`` itself, nor a ``store_from_args`` kept open by hand."""
    import ast

    bad = []
    for path in _py_files("qcstation/commands"):
        if path.name == "_common.py":
            continue  # where store_from_args is defined
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_with = {id(item.context_expr) for node in ast.walk(tree) if isinstance(node, ast.With)
                   for item in node.items}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name == "Store" or (name == "store_from_args" and id(node) not in in_with):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}(...)")
    assert bad == []


def test_test_files_are_named_by_what_they_cover() -> None:
    """A test file's name says what it tests, not which issue or which random draw found it
    (``test_issue14_seeds.py``, ``test_reading_83.py`` were renamed for this)."""
    import re

    bad = [str(p.relative_to(ROOT)) for p in _py_files("tests")
           if re.search(r"^test_issue|_\d+\.py$", p.name)]
    assert bad == []


def test_no_source_file_is_over_800_lines() -> None:
    """A file over 800 lines holds more than one thing a reader can keep in mind: split it
    by meaning (as construct's reread, keyinfo and pipeline were)."""
    bad = [f"{p.relative_to(ROOT)}: {n}" for p in _py_files("qcstation", "screens", "db", "exports", "tests")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800]
    assert bad == []


def test_mypy_reads_every_folder_and_ignores_no_module_wholesale() -> None:
    """Every top-level folder with Python files is in mypy's ``files``, and no module's
    errors are ignored (issue 29.5: the last 18 test modules were brought under the check)."""
    import tomllib

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    folders = {p.parts[0] for p in (f.relative_to(ROOT) for f in ROOT.glob("*/**/*.py"))
               if not p.parts[0].startswith(".")}
    assert folders <= set(cfg["files"])
    assert not cfg.get("ignore_errors") and not cfg.get("exclude")
    for override in cfg.get("overrides", []):
        assert not override.get("ignore_errors"), override["module"]
