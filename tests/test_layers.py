"""The layers import downwards only: ``qcstation.common`` imports nothing of ours outside
itself; ``db`` and ``exports`` import only ``qcstation.common`` (and themselves); the
stages stand on floors in lifecycle order (:data:`FLOORS`: the reading floor, then ingest and
verify, construction, derive and review, release, evaluation), each importing only the
floors below it and nothing of its own floor's other packages; inside construction,
``make/`` does not import ``check/`` but for the re-reading gate; screens use the app only through
``screens._base`` and never import one another; and there is no import loop anywhere in
``qcstation/``, ``screens/``, ``db/`` and ``exports/``.

Every import counts: at module level, inside a function and under ``TYPE_CHECKING``. A
function-level import only defers a dependency (it is how the screens↔app loop through 11
files stayed hidden), and a type-only import is still a dependency a reader must follow.
An import of ``a.b.c`` is an edge to the module it names (``a/b/c.py``, or the package
``a.b`` when ``c`` is a name in its ``__init__``), not to the parent packages Python also
initialises: a package whose ``__init__`` re-exports its own modules is not a loop.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("qcstation", "db", "exports", "screens")


class _Read(NamedTuple):
    """What the tests read of a file's syntax tree: its absolute imports (line, module, the
    names a ``from`` import takes; none for ``import``) and its classes (line, name, bases)."""
    imports: tuple[tuple[int, str, tuple[str, ...] | None], ...]
    classes: tuple[tuple[int, str, tuple[str, ...]], ...]


@functools.lru_cache(maxsize=None)
def _read_text(path: Path, text: str) -> _Read:
    """The file parsed once per text for all the tests of this module (each test reads the
    file again, so a changed file is parsed again)."""
    imports: list[tuple[int, str, tuple[str, ...] | None]] = []
    classes = []
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.Import):
            imports += [(node.lineno, a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imports.append((node.lineno, node.module, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.ClassDef):
            classes.append((node.lineno, node.name, tuple(ast.unparse(b) for b in node.bases)))
    return _Read(tuple(imports), tuple(classes))


def _read(path: Path) -> _Read:
    return _read_text(path, path.read_text(encoding="utf-8"))


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) of every import in a file that names one of our packages."""
    out: list[tuple[int, str]] = []
    for line, module, names in _read(path).imports:
        out.append((line, module))
        if names is not None:
            # "from qcstation import x" names the module qcstation.x when x is one
            out += [(line, f"{module}.{name}") for name in names
                    if (root / module.replace(".", "/") / name).exists()
                    or (root / module.replace(".", "/") / f"{name}.py").exists()]
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


# Lowest first. A package imports only packages of the floors below its own (and db, exports,
# which import only ``qcstation.common``); two packages of one floor do not import each other.
FLOORS: list[tuple[str, ...]] = [
    ("qcstation.common",),
    ("qcstation.core.reading",),  # numbers, expressions, clauses: what every stage reads
    ("qcstation.core.ingest", "qcstation.core.verify"),
    ("qcstation.core.construct",),
    ("qcstation.core.derive", "qcstation.core.review"),
    ("qcstation.core.release",),
    ("qcstation.eval",),
]


def _floor_of(module: str) -> tuple[int, str] | None:
    for level, packages in enumerate(FLOORS):
        for package in packages:
            if module == package or module.startswith(package + "."):
                return level, package
    return None


def test_the_stages_import_only_the_floors_below_them() -> None:
    bad = []
    for level, packages in enumerate(FLOORS):
        for package in packages:
            for path in sorted((ROOT / package.replace(".", "/")).rglob("*.py")):
                for line, module in _imports(path):
                    target = _floor_of(module)
                    if target is not None and target[1] != package and target[0] >= level:
                        bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert bad == []


def test_every_stage_package_stands_on_a_floor() -> None:
    stages = {f"qcstation.core.{p.name}" for p in (ROOT / "qcstation/core").iterdir()
              if (p / "__init__.py").exists()}
    assert stages <= {p for packages in FLOORS for p in packages}, "add the new stage to FLOORS"


# what making may import of checking: the gate every rule-made formalization passes
# (``rules.dispatch.check_independently``: the givens' words re-read, their roles, and no stated
# number written where no given is tied, a given used as a pure number where its place measures,
# a rank's digit in the place of a quantity the line writes)
GATE = ("qcstation.core.construct.check.bindings", "qcstation.core.construct.check.rolecheck",
        "qcstation.core.construct.check.equations", "qcstation.core.construct.check.places",
        "qcstation.core.construct.check.literals", "qcstation.core.construct.check.unheld",
        "qcstation.core.construct.check.purefactor", "qcstation.core.construct.check.ordinals")


def test_making_does_not_import_checking_but_for_the_rereading_gate() -> None:
    """``construct/make`` builds artifacts and ``construct/check`` checks them, so checking
    imports what it checks and making imports no check but the gate (:data:`GATE`); the
    words both read stand on the reading floor (``qcstation.core.reading.words``)."""
    bad = [f"{p.relative_to(ROOT)}:{n} imports {m}"
           for p in sorted((ROOT / "qcstation/core/construct/make").rglob("*.py"))
           for n, m in _imports(p) if m.startswith("qcstation.core.construct.check")
           and m not in GATE]
    assert bad == []


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


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (every import; see the module docstring)."""
    files = {_module_name(p, root): p for top in OURS for p in sorted((root / top).rglob("*.py"))}

    def owner(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets = {owner(name) for _, name in _imports(path, root)}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def import_loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every loop: one cycle (``[a, b, ..., a]``) through each strongly connected component
    of the graph (Tarjan), the largest component first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return [_cycle_in(graph, c) for c in sorted(components, key=lambda c: (-len(c), min(c)))]


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One cycle inside a strongly connected component: from its first module, the shortest
    way back to it (breadth first, staying inside the component)."""
    start = min(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"not a loop: {sorted(component)}")


def test_no_import_loop_anywhere() -> None:
    loops = import_loops(import_graph())
    assert not loops, "import loops:\n" + "\n".join(" -> ".join(c) for c in loops)


def test_the_loop_check_finds_a_loop_through_a_function_level_import(tmp_path: Path) -> None:
    (tmp_path / "qcstation").mkdir()
    for top in OURS[1:]:
        (tmp_path / top).mkdir()
    (tmp_path / "qcstation" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "qcstation" / "a.py").write_text("from qcstation import b\n", encoding="utf-8")
    (tmp_path / "qcstation" / "b.py").write_text(
        "def f():\n    from qcstation.c import x\n", encoding="utf-8")
    (tmp_path / "qcstation" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import qcstation.a\n",
        encoding="utf-8")
    (tmp_path / "qcstation" / "d.py").write_text("import qcstation.a\n", encoding="utf-8")
    graph = import_graph(tmp_path)
    assert import_loops(graph) == [["qcstation.a", "qcstation.b", "qcstation.c", "qcstation.a"]]


def test_screens_use_the_app_only_through_the_interface_and_open_one_another_by_name() -> None:
    """A screen imports ``screens._base`` and dialogs, never ``qcstation.app`` nor another
    full screen; dialogs import no screen."""
    bad = []
    for path in sorted((ROOT / "screens").rglob("*.py")):
        for line, module in _imports(path):
            if module == "qcstation.app" or (
                    module.startswith("screens.") and module != "screens._base"
                    and not module.startswith("screens.dialogs")):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert bad == []


def test_every_screen_name_opens_a_screen() -> None:
    import importlib

    from screens._base import SCREENS, QCScreen

    for name, where in SCREENS.items():
        module, cls = where.split(":")
        assert issubclass(getattr(importlib.import_module(module), cls), QCScreen), name


def test_every_dialog_lives_in_screens_dialogs() -> None:
    """Every ``ModalScreen`` subclass is defined under ``screens/dialogs``."""
    bad = []
    for top in OURS:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path.is_relative_to(ROOT / "screens" / "dialogs"):
                continue
            for line, name, bases in _read(path).classes:
                if any("ModalScreen" in b for b in bases):
                    bad.append(f"{path.relative_to(ROOT)}:{line} {name}")
    assert bad == []


_SQL = __import__("re").compile(r"\b(SELECT|INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b")


def test_screens_and_widgets_run_no_sql_of_their_own() -> None:
    """Screens stay thin: what they show is read by the domain modules (qcstation/eval/browse,
    robustness/load, ...), never by a query written in a screen (screens/results.py ran its
    own 'SELECT ... FROM eval_runs'). Every string constant of screens/ and
    qcstation/widgets/ is checked, docstrings too."""
    found = []
    for folder in (ROOT / "screens", ROOT / "qcstation" / "widgets"):
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                        and _SQL.search(node.value):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
