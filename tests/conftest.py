from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATASETS = SHARED / "datasets"


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


def dataset(name: str) -> Path:
    """Path to a shared seed dataset file; tests needing it skip when shared/ is absent."""
    p = DATASETS / name
    if not p.exists():
        pytest.skip(f"shared dataset {p} not present")
    return p
