"""The ``fake_vllm`` fixture: puts ``tests/fake_vllm`` first on ``sys.path`` so that
``import vllm`` finds the fake package, and removes it again afterwards.

In tests import it: ``from tests.fake_vllm_fixture import fake_vllm``. A subprocess gets
it with ``PYTHONPATH=str(FAKE_VLLM_PATH)``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

FAKE_VLLM_PATH = Path(__file__).resolve().parent / "fake_vllm"


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.syspath_prepend(str(FAKE_VLLM_PATH))
    sys.modules.pop("vllm", None)
    import vllm

    assert vllm.__version__.endswith("+fake"), vllm.__file__
    vllm.reset()
    yield vllm
    sys.modules.pop("vllm", None)
