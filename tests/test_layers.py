"""The layers import downwards only: ``qcstation.common`` imports nothing of ours outside
itself; ``db`` and ``exports`` import only ``qcstation.common`` (and themselves); the
construction stage never imports review. Every import counts, also one inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("qcstation", "db", "exports", "screens")


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in a file that names one of our packages."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.lineno, node.module))
            # "from qcstation import x" names the module qcstation.x when x is one
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names
                    if (ROOT / node.module.replace(".", "/") / a.name).exists()
                    or (ROOT / node.module.replace(".", "/") / f"{a.name}.py").exists()]
    return [(n, m) for n, m in out if m.split(".")[0] in OURS]


def _offences(folder: str, allowed: tuple[str, ...]) -> list[str]:
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, folder
    bad = []
    for path in files:
        for line, module in _imports(path):
            if not any(module == a or module.startswith(a + ".") for a in allowed):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize(("folder", "allowed"), [
    ("qcstation/common", ("qcstation.common",)),
    ("db", ("db", "qcstation.common")),
    ("exports", ("exports", "qcstation.common")),
])
def test_lower_layers_import_only_what_is_below_them(folder: str,
                                                     allowed: tuple[str, ...]) -> None:
    assert _offences(folder, allowed) == []


def test_construction_never_imports_review() -> None:
    bad = [f"{p.relative_to(ROOT)}:{n} imports {m}"
           for p in sorted((ROOT / "qcstation/core/construct").rglob("*.py"))
           for n, m in _imports(p) if m.startswith("qcstation.core.review")]
    assert bad == []


def test_the_check_itself_sees_a_function_level_import(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("def f():\n    from qcstation.core.review import gate\n"
                      "from qcstation import common\n", encoding="utf-8")
    assert sorted(_imports(sample)) == [(2, "qcstation.core.review"),
                                        (2, "qcstation.core.review.gate"),
                                        (3, "qcstation"), (3, "qcstation.common")]
