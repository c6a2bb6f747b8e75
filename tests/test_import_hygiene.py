"""The domain never imports Textual (STYLE.md §1): checked in a fresh interpreter."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imported_textual(modules: list[str]) -> dict[str, object]:
    code = (
        "import importlib, json, sys\n"
        f"mods = {modules!r}\n"
        "out = {}\n"
        "for m in mods:\n"
        "    importlib.import_module(m)\n"
        "    out[m] = sorted(k for k in sys.modules\n"
        "                    if k.split('.')[0] == 'textual')[:3]\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _walk(package: str) -> list[str]:
    import importlib

    pkg = importlib.import_module(package)
    return [package, *(m.name for m in pkgutil.walk_packages(pkg.__path__, package + "."))]


def _core_modules() -> list[str]:
    return [*_walk("qcstation.common"), *_walk("qcstation.core")]


def _eval_modules() -> list[str]:
    import qcstation.eval as ev

    return ["qcstation.eval", *(m.name for m in pkgutil.walk_packages(ev.__path__, "qcstation.eval."))]


def test_domain_packages_do_not_import_textual() -> None:
    modules = ["db", "db.store", "db.migrations", "db.migrations_recent", "db.migration_log", "exports", *_core_modules(), *_eval_modules()]
    exports_dir = ROOT / "exports"
    modules += [f"exports.{p.stem}" for p in sorted(exports_dir.glob("*.py"))
                if p.stem != "__init__"]
    assert "qcstation.core.review.gate" in modules and "qcstation.core.release.releases" in modules
    result = _imported_textual(modules)
    offenders = {m: mods for m, mods in result.items() if mods}
    assert offenders == {}, f"these imports pulled in Textual: {offenders}"


def test_the_cli_parser_does_not_import_textual() -> None:
    # `qcstation status | head` must stay fast and plain: only opening the app loads Textual
    code = ("import sys\nfrom qcstation.cli import build_parser\nbuild_parser()\n"
            "print(sorted(k for k in sys.modules if k.split('.')[0] == 'textual')[:3])")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_the_check_can_fail() -> None:
    # the probe really sees Textual when something imports it
    result = _imported_textual(["qcstation.app"])
    assert result["qcstation.app"]
