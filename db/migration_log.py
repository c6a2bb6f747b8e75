"""How a migration is written down (shared by ``db/migrations.py`` and ``db/migrations_recent.py``).

A migration is ``(version, title, steps)``; a step is SQL, or a function given the
``sqlite_utils.Database`` on the store's connection. Imports nothing of ours.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Step = str | Callable[[Any], None]   # SQL, or a function of a sqlite_utils.Database
Migration = tuple[int, str, list[Step]]


def register(log: list[Migration], version: int, title: str, statements: list[Step]) -> None:
    """Append migration ``version`` to ``log`` (a module's own list)."""
    log.append((version, title, statements))
