"""The evaluation package imports in one direction: no module of ``qcstation.eval`` reaches
itself again through the others (every import counts, also one inside a function), and the
run record sits below both the runner and the scorers."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "qcstation" / "eval"


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    """module -> the modules of qcstation.eval it imports (a package import counts as its
    ``__init__``; ``from pkg import mod`` as ``pkg.mod`` when that is a module)."""
    mods = {_module(p): p for p in EVAL.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if name in mods and name != mod:
                    graph[mod].add(name)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_loop_inside_the_evaluation_package() -> None:
    graph = _graph()
    assert "qcstation.eval.runner" in graph and "qcstation.eval.scorers" in graph
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_run_record_is_below_the_runner_and_the_scorers() -> None:
    graph = _graph()
    assert "qcstation.eval.runs" in graph["qcstation.eval.runner"]
    assert "qcstation.eval.runs" in graph["qcstation.eval.scorers"]
    assert "qcstation.eval.runner" not in graph["qcstation.eval.scorers"]
    below = {"qcstation.eval.runs", "qcstation.eval.outputs"}
    for low in below:
        assert not graph[low] & {"qcstation.eval.runner", "qcstation.eval.scorers",
                                 "qcstation.eval.evaluate", "qcstation.eval.metrics"}, low


def _documented_order() -> list[str]:
    """The modules in the order ``qcstation/eval/__init__.py`` lists them, bottom up."""
    import re

    import qcstation.eval as ev

    doc = ev.__doc__ or ""
    section = doc.split("Modules, bottom up", 1)[1].split("Storage (", 1)[0]
    names = [m.rstrip("/") for m in re.findall(r"^``([a-z_]+/?)`` {2,}", section, re.M)]
    return list(dict.fromkeys(names))


def test_each_module_imports_only_the_modules_listed_above_it() -> None:
    order = [m for m in _documented_order() if m != "templates"]
    graph = _graph()
    listed = {m.removeprefix("qcstation.eval.").split(".")[0] for m in graph} - {"qcstation"}
    assert set(order) == listed, "qcstation/eval/__init__.py lists every module once"
    rank = {m: i for i, m in enumerate(order)}
    bad = []
    for mod, imports in graph.items():
        if mod == "qcstation.eval":
            continue
        mine = mod.removeprefix("qcstation.eval.").split(".")[0]
        for other in imports:
            theirs = other.removeprefix("qcstation.eval.").split(".")[0]
            if other != "qcstation.eval" and theirs != mine and rank[theirs] >= rank[mine]:
                bad.append(f"{mod} imports {other}")
    assert bad == []


def test_the_check_sees_a_loop() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
