"""Targets for ``read_in_subprocess`` tests (imported in the child process)."""

from __future__ import annotations

import time
from typing import Any


def slow_count(store: Any, seconds: float) -> int:
    time.sleep(seconds)
    return int(store.scalar("SELECT COUNT(*) FROM seeds"))


def broken(store: Any) -> None:
    raise RuntimeError("the table is on fire")
