"""The qcstation store: SQLite (through sqlite-utils) with versioned migrations.

Plain Python, no Textual. The default database file lives under ``db/`` in the
working directory (git-ignored); ``--db`` or ``QCSTATION_DB`` override it.
"""

from db.store import (
    Store,
    current_actor,
    current_display_name,
    default_db_path,
    from_json,
    now,
    open_store,
)

__all__ = ["Store", "default_db_path", "open_store", "now", "current_actor",
           "current_display_name", "from_json"]
