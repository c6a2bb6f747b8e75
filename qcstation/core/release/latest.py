"""The latest approved release, for the dashboard: a small module, so the app's loader does
not import the release writer (:mod:`qcstation.core.release.releases` re-exports it)."""

from __future__ import annotations

from db.store import Store

__all__ = ["latest_release"]


def latest_release(store: Store, scope: str = "") -> str | None:
    """NAME@VERSION of the latest release approved for ``scope`` (the working set by
    default), or None."""
    row = store.one("SELECT name, version FROM releases WHERE scope = ? ORDER BY id DESC LIMIT 1",
                    (scope,))
    return None if row is None else f"{row['name']}@{row['version']}"
