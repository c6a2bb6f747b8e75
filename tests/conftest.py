from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATASETS = SHARED / "datasets"


def pytest_collection_finish(session: pytest.Session) -> None:
    """mypy over the whole tree starts now when its test is selected, and runs beside the other
    tests; its test reads the finished process (tests/background.py)."""
    if session.config.option.collectonly:
        return
    for item in session.items:
        if item.nodeid.endswith("test_lint.py::test_mypy_finds_nothing"):
            item.module.start_mypy()  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests import background

    background.stop_all()


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "qc.db"


@pytest.fixture
def store(db_file: Path):
    from db import Store

    s = Store(db_file)
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # never touch a developer's real database, config or API key from a test
    monkeypatch.delenv("QCSTATION_DB", raising=False)
    monkeypatch.delenv("QCSTATION_CONFIG", raising=False)
    monkeypatch.setenv("QCSTATION_USER", "tester")
    monkeypatch.setenv("QCSTATION_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(autouse=True)
def _own_secrets():
    """Each test starts from the registry of secrets it found and leaves it so: a key one test
    registers (a config's api_key, redact.register) would otherwise be scrubbed from the texts
    of every later test in the process, and a test asserting a text is left alone would pass or
    fail by the order tests ran in."""
    from qcstation.common import redact

    state = redact.saved()
    yield
    redact.restore(state)


def dataset(name: str) -> Path:
    """Path to a shared seed dataset file; tests needing it skip when shared/ is absent."""
    p = DATASETS / name
    if not p.exists():
        pytest.skip(f"shared dataset {p} not present")
    return p
