"""SQLite store shared safely by several processes.

WAL journal + busy timeout let annotators' sessions, a generation run and an
evaluation share one file. Every write goes through :meth:`Store.transaction`,
which takes the write lock up front (``BEGIN IMMEDIATE``) so two writers queue
instead of failing half-way with "database is locked".
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

from db.migrations import MIGRATIONS, SCHEMA_VERSION
from qcstation.errors import StoreError

ENV_DB = "QCSTATION_DB"
BUSY_TIMEOUT_MS = 60_000


def default_db_path() -> Path:
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env)
    return Path.cwd() / "db" / "qcstation.db"


def now() -> str:
    """UTC timestamp with microseconds, ISO 8601 (sorts as text)."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def current_actor() -> str:
    """The person acting: the operating-system account (never an environment variable or
    ``--annotator``, which only choose a display name; see qcstation/core/identity.py)."""
    from qcstation.core.identity import os_account

    return os_account()


def current_display_name() -> str:
    """The name shown beside the account: ``$QCSTATION_USER`` (``--annotator``), else the account."""
    from qcstation.core.identity import current_identity

    return current_identity().display


class Store:
    """One connection to the database file. Not shared between threads: each
    thread or process opens its own ``Store`` on the same path."""

    def __init__(self, path: str | Path, *, migrate: bool = True, create: bool = True) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            if not create and not self.path.exists():
                raise StoreError(
                    f"no database at {self.path}; create one with `qcstation import FILE` or "
                    "`qcstation quickstart` (or pass the right --db / $QCSTATION_DB)",
                    title="No database")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(
                str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                check_same_thread=True,
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open database {path}: {exc}") from exc
        self.conn = conn
        self.conn.row_factory = sqlite3.Row
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a qcstation database: {exc}") from exc
        if str(path) != ":memory:" and mode.lower() != "wal":
            raise StoreError(f"could not switch {path} to WAL mode (got {mode})")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.db = sqlite_utils.Database(self.conn)
        self._depth = 0
        self._lock = threading.RLock()
        #: the display name written beside the acting account in the event log (set by the
        #: CLI and the app for the session's account; see qcstation/core/identity.py)
        self.display_name: str | None = None
        if migrate:
            self.migrate()

    # -- lifecycle ---------------------------------------------------------------
    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self, target: int | None = None) -> list[int]:
        """Apply pending migrations (up to ``target``) in place; returns the versions applied."""
        target = SCHEMA_VERSION if target is None else target
        applied: list[int] = []
        with self.transaction():
            current = self.schema_version
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has schema version {current}, newer than this qcstation "
                    f"understands ({SCHEMA_VERSION}); upgrade qcstation",
                    title="Database too new",
                )
            for version, title, statements in MIGRATIONS:
                if current < version <= target:
                    for sql in statements:
                        self.conn.execute(sql)
                    self.conn.execute(f"PRAGMA user_version = {version}")
                    applied.append(version)
            if applied:
                self._event_raw("system", "schema.migrated", "schema", None,
                                {"from": current, "to": applied[-1]})
        return applied

    # -- transactions ------------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Write transaction taking the write lock up front; nested calls join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self.conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self.conn
            except BaseException:
                self._depth = 0
                self.conn.execute("ROLLBACK")
                raise
            else:
                self._depth = 0
                self.conn.execute("COMMIT")

    # -- queries -----------------------------------------------------------------
    def query(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.conn.execute(sql, params).fetchall()]

    def one(self, sql: str, params: Any = ()) -> dict[str, Any] | None:
        row = self.conn.execute(sql, params).fetchone()
        return dict(row) if row is not None else None

    def scalar(self, sql: str, params: Any = ()) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def insert(self, table: str, row: dict[str, Any]) -> int:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cur = self.conn.execute(
            f"INSERT INTO {table} ({cols}) VALUES ({marks})",
            [_to_db(v) for v in row.values()],
        )
        return int(cur.lastrowid or 0)

    # -- event log -----------------------------------------------------------------
    def event(self, actor: str, action: str, entity: str | None = None,
              entity_id: int | None = None, detail: dict[str, Any] | None = None, *,
              display: str | None = None) -> int:
        """Append to the event log: the acting account (``actor``) and, from schema 5 on,
        the display name it used (``display``, else the store's :attr:`display_name`)."""
        with self.transaction():
            return self._event_raw(actor, action, entity, entity_id, detail or {},
                                   display=display)

    def _event_raw(self, actor: str, action: str, entity: str | None,
                   entity_id: int | None, detail: dict[str, Any], *,
                   display: str | None = None) -> int:
        row: dict[str, Any] = {
            "at": now(), "actor": actor, "action": action, "entity": entity,
            "entity_id": entity_id, "detail": json.dumps(detail, sort_keys=True, default=str),
        }
        if self.schema_version >= 5:
            row["display_name"] = display if display is not None else self.display_name
        return self.insert("events", row)


def _to_db(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def open_store(path: str | Path | None = None) -> Store:
    return Store(path if path is not None else default_db_path())
