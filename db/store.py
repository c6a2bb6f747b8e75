"""SQLite store shared safely by several processes.

WAL journal + busy timeout let annotators' sessions, a generation run and an
evaluation share one file. Every write goes through :meth:`Store.transaction`,
which takes the write lock up front (``BEGIN IMMEDIATE``) so two writers queue
instead of failing half-way with "database is locked".
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import math
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from db.locks import describe_lock_holders, lock_holders  # noqa: F401 (lock_holders: part of db.store's interface)
from db.migrations import MIGRATIONS, SCHEMA_VERSION
from qcstation.common.safe import printable
from qcstation.common.errors import StoreError, file_size_limit

if TYPE_CHECKING:
    import sqlite_utils

ENV_DB = "QCSTATION_DB"
BUSY_TIMEOUT_MS = 60_000
#: after this long waiting for the write lock, say who holds it (lock_notices)
LOCK_NOTICE_AFTER_S = 2.0

#: rows per statement of Store.insert_many (fewer when the columns would pass SQLite's limit
#: on bound variables: 32766 since SQLite 3.32, 999 before)
ROWS_PER_INSERT = 500
MAX_VARIABLES = 32766 if sqlite3.sqlite_version_info >= (3, 32, 0) else 999

#: Who is told (with a one-line message) that a write waits for a lock another process
#: holds: the innermost :func:`lock_notices` block. None open: wait silently.
_lock_listeners: list[Callable[[str], None]] = []


@contextlib.contextmanager
def lock_notices(listener: Callable[[str], None]) -> Iterator[None]:
    """While the block runs, a write that waits for another process's lock calls
    ``listener`` with a line saying who holds it (the CLI prints it on stderr, the app shows a
    notification). Blocks nest: the innermost listener is the one told."""
    _lock_listeners.append(listener)
    try:
        yield
    finally:
        _lock_listeners.remove(listener)


def busy_timeout_ms() -> int:
    """How long a write waits for another process's write lock: ``$QCSTATION_BUSY_TIMEOUT``
    seconds (0.1 to 3600), else :data:`BUSY_TIMEOUT_MS`."""
    raw = os.environ.get("QCSTATION_BUSY_TIMEOUT", "")
    try:
        seconds = float(raw) if raw.strip() else BUSY_TIMEOUT_MS / 1000
    except ValueError:
        seconds = BUSY_TIMEOUT_MS / 1000
    if not 0.1 <= seconds <= 3600:  # also rejects nan
        seconds = BUSY_TIMEOUT_MS / 1000
    return int(seconds * 1000)


def busy_timeout_problem() -> str | None:
    """Why ``$QCSTATION_BUSY_TIMEOUT`` is not a number of seconds from 0.1 to 3600, or None
    (unset or empty: the default). A command refuses to start with it."""
    raw = os.environ.get("QCSTATION_BUSY_TIMEOUT", "")
    if not raw.strip():
        return None
    try:
        seconds = float(raw) if len(raw) <= 40 else math.nan
    except ValueError:
        seconds = math.nan
    if 0.1 <= seconds <= 3600:
        return None
    shown = raw if len(raw) <= 40 and raw.isprintable() else repr(raw[:40]) + ("…" if len(raw) > 40 else "")
    return f"$QCSTATION_BUSY_TIMEOUT must be seconds from 0.1 to 3600, got {shown}"


def default_db_path() -> Path:
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env)
    return Path.cwd() / "db" / "qcstation.db"


_SECOND: tuple[int, str] = (-1, "")


def now() -> str:
    """UTC timestamp with microseconds, ISO 8601 (sorts as text): ``2026-11-26T23:21:56.668096Z``.
    The text of the current second is kept (an evaluation stamps thousands of rows a second)."""
    global _SECOND
    t = time.time()
    sec = int(t)
    known = _SECOND
    if known[0] != sec:
        known = _SECOND = (sec, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)))
    return f"{known[1]}.{min(999_999, int((t - sec) * 1e6)):06d}Z"


def current_actor() -> str:
    """The person acting: the operating-system account (never an environment variable or
    ``--annotator``, which only choose a display name; see qcstation/common/identity.py)."""
    from qcstation.common.identity import os_account

    return os_account()


def current_display_name() -> str:
    """The name shown beside the account: ``$QCSTATION_USER`` (``--annotator``), else the account."""
    from qcstation.common.identity import current_identity

    return current_identity().display


def _umask() -> int:
    """The process's umask (read without changing it where /proc says it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _honour_umask(path: Path) -> None:
    """SQLite creates a database 0644 whatever the umask; a team working under umask 002
    needs it group-writable like every other file it makes. The -wal and -shm files take
    the database's mode. Best effort: a file we cannot chmod keeps SQLite's mode."""
    with contextlib.suppress(OSError):
        os.chmod(path, 0o666 & ~_umask())


class Store:
    """One connection to the database file. Not shared between threads: each
    thread or process opens its own ``Store`` on the same path.

    A thread that reads again and again (the app's worker threads) may keep its store
    between tasks (:attr:`kept`): leaving a ``with`` block then ends what the block left
    open (:meth:`release`) instead of closing the connection, so the next task skips the
    connection's set-up and SQLite's parse of the schema (~7 ms of CPU at schema v23)."""

    #: kept by its thread for its next tasks: ``with`` releases it instead of closing it
    kept = False
    closed = False
    #: opened for reading only: the file's folder cannot be written (a read-only mount, a
    #: folder without write permission), so SQLite cannot make its -wal and -shm files there
    read_only = False
    #: opened ``immutable`` (read-only, no -wal beside it): the database file's state then,
    #: (:meth:`_file_state`); see :meth:`_fresh`
    _frozen: tuple[int, int, int, int] | None = None
    _conn: sqlite3.Connection

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection; on a database opened ``immutable``, first reopened if its file has
        changed since (:meth:`_fresh`)."""
        if self._frozen is not None and not self.closed and self._depth == 0:
            self._fresh()
        return self._conn

    @conn.setter
    def conn(self, value: sqlite3.Connection) -> None:
        self._conn = value

    def __init__(self, path: str | Path, *, migrate: bool = True, create: bool = True) -> None:
        self.path = Path(path)
        memory = str(path) == ":memory:"
        if not memory:
            _check_database_file(self.path, create=create)
        new_file = not memory and not self.path.exists()
        try:
            self._open(str(path), memory, new_file)
        except StoreError:
            if memory or new_file or _folder_writable(self.path.parent) \
                    or not os.access(self.path, os.R_OK):
                raise
            self._open_read_only()
        else:
            # opened through the -wal and -shm files already there (a database left open
            # elsewhere): readable, and never writable on a read-only mount
            self.read_only = not memory and _read_only_mount(self.path.parent)
        self._depth = 0
        self._lock = threading.RLock()
        #: the display name written beside the acting account in the event log (set by the
        #: CLI and the app for the session's account; see qcstation/common/identity.py)
        self.display_name: str | None = None
        if migrate:
            try:
                self.migrate()
            except sqlite3.Error as exc:
                self.close()
                raise StoreError(storage_message(exc, self.path), title=_storage_title(exc)) from None
            except BaseException:
                self.close()
                raise

    def _open(self, path: str, memory: bool, new_file: bool, *, uri: bool = False) -> None:
        try:
            conn = sqlite3.connect(
                path, timeout=busy_timeout_ms() / 1000, isolation_level=None,
                check_same_thread=True, uri=uri,
            )
        except sqlite3.Error as exc:
            raise StoreError(storage_message(exc, self.path), title=_storage_title(exc)) from None
        self.conn = conn
        self.conn.row_factory = sqlite3.Row
        if new_file:
            _honour_umask(self.path)
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
            if not memory:
                self._check_is_ours()  # before WAL: another program's file is left as it was
            if not self.read_only:
                mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if not memory and mode.lower() != "wal":
                    raise StoreError(f"could not switch {path} to WAL mode (got {mode}); is the "
                                     "file on a network or read-only filesystem?",
                                     title="Cannot open the database")
                self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            self.close()
            raise StoreError(storage_message(exc, self.path), title=_storage_title(exc)) from None
        except StoreError:
            self.close()
            raise

    def _open_read_only(self) -> None:
        """Open a database whose folder cannot be written, for reading: every read works and
        every write fails with the reason (:func:`storage_message`: the folder or mount is
        read-only; nothing was changed). With no -wal file beside it (the database was closed
        cleanly: its file holds everything) SQLite is told the file cannot change
        (``immutable``: it then needs no -shm file; a writer beside it is caught by :meth:`_fresh`); with one, SQLite reads it through the
        -shm file that must be there too, else the open fails as before."""
        self.closed = False
        self.read_only = True
        self._frozen = None
        self._depth = 0
        wal = Path(f"{self.path}-wal")
        try:
            pending = wal.stat().st_size > 0
        except OSError:
            pending = False
        from urllib.parse import quote

        query = "mode=ro" if pending else "mode=ro&immutable=1"
        state = None if pending else self._file_state()
        try:
            self._open(f"file:{quote(str(self.path.resolve()))}?{query}", False, False, uri=True)
            self._frozen = state
        except StoreError as err:
            self.read_only = False
            if not pending or Path(f"{self.path}-shm").exists():
                raise
            folder = self.path.parent
            raise StoreError(
                f"cannot read {self.path}: its -wal file holds changes not yet written into it, "
                f"which SQLite reads only with the -shm file it would make beside them, and the "
                f"folder {folder} cannot be written: {_make_writable(folder, 'copy the database and its -wal file somewhere writable')}",
                title=err.title) from None

    def _file_state(self) -> tuple[int, int, int, int] | None:
        """(inode, size, mtime) of the database file and the size of its -wal file (-1: none)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        try:
            wal = os.stat(f"{self.path}-wal").st_size
        except OSError:
            wal = -1
        return st.st_ino, st.st_size, st.st_mtime_ns, wal

    def _fresh(self) -> None:
        """``immutable`` tells SQLite the file never changes: it takes no lock and keeps what
        it read. A database whose folder this process cannot write may still be written by
        another (its owner beside a reader who may only read; the same folder mounted
        read-write elsewhere): read so, it showed the counts of when it was opened and then
        read as corrupt once the writer's checkpoints reached the file (attack10). So the
        file is looked at before each use outside a transaction, and a change reopens it:
        through the writer's -wal and -shm files while they are there (as SQLite reads a
        database that is being written), else ``immutable`` again."""
        state = self._file_state()
        if state == self._frozen:
            return
        self.__dict__.pop("db", None)  # sqlite-utils on the connection replaced
        try:
            self._open_read_only()  # the connection replaced is closed when its last cursor is done
        except StoreError:
            self._frozen = state  # as before: the old connection stays, and the next change is tried again
            raise

    @functools.cached_property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils on this connection (schema changes, full-text search), made on first
        use: importing sqlite-utils costs a command that never needs it a tenth of a second."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    def _check_is_ours(self) -> None:
        """An SQLite file another program made (no schema version, tables that are not
        ours) is refused instead of being filled with qcstation tables."""
        if self.schema_version != 0:
            return
        tables = [r[0] for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name LIMIT 6")]
        if tables and "seeds" not in tables:
            shown = ", ".join(printable(t)[:40] for t in tables[:5])
            raise StoreError(f"{self.path} is an SQLite database of another program (tables: "
                             f"{shown}), not a qcstation database; pass the right --db / "
                             "$QCSTATION_DB", title="Not a qcstation database")

    # -- lifecycle ---------------------------------------------------------------
    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            self.conn.close()

    def release(self) -> None:
        """End what a task left open on a kept connection, as closing it would have: a
        transaction still open is rolled back (``transaction()`` commits or rolls back its
        own; this is for a ``BEGIN`` a task's error left behind). A finished statement
        holds no snapshot (each cursor resets its statement when it is exhausted or
        dropped), so the next task reads what is committed then."""
        self._depth = 0
        self._rollback()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.kept:
            self.release()
        else:
            self.close()

    # -- schema ------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self, target: int | None = None) -> list[int]:
        """Apply pending migrations (up to ``target``) in place; returns the versions applied."""
        target = SCHEMA_VERSION if target is None else target
        applied: list[int] = []
        current = self.schema_version
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {current}, newer than this qcstation "
                f"understands ({SCHEMA_VERSION}); upgrade qcstation",
                title="Database too new",
            )
        if current >= target:
            return applied  # nothing due: no write lock taken (readers never wait here)
        with self.transaction():
            current = self.schema_version
            for version, _title, statements in MIGRATIONS:
                if current < version <= target:
                    for step in statements:
                        if callable(step):
                            step(self.db)
                        else:
                            self.conn.execute(step)
                    self.conn.execute(f"PRAGMA user_version = {version}")
                    applied.append(version)
            if applied:
                self._analyze_new_indexes()
                self._event_raw("system", "schema.migrated", "schema", None,
                                {"from": current, "to": applied[-1]})
        return applied

    def _analyze_new_indexes(self) -> None:
        """A database with planner statistics (``sqlite_stat1``, from an ``ANALYZE``: the
        scale bench's, or one a user ran) keeps them whole across an upgrade: an index a
        migration added to an analyzed table gets its own row. Left without one, the planner
        weighs the new index by its default guess against the measured ones of the old, and
        may take the wrong one. A database never analyzed (as the workstation leaves them)
        stays so: the planner then guesses for every index alike."""
        if self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                             "AND name = 'sqlite_stat1'").fetchone() is None:
            return
        missing = [str(r[0]) for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
            "AND tbl_name IN (SELECT tbl FROM sqlite_stat1) "
            "AND name NOT IN (SELECT idx FROM sqlite_stat1 WHERE idx IS NOT NULL)")]
        for name in missing:
            self.conn.execute(f'ANALYZE "{name}"')

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
            self._begin_immediate()
            self._depth = 1
            try:
                yield self.conn
            except BaseException:
                self._depth = 0
                self._rollback()
                raise
            else:
                self._depth = 0
                try:
                    self.conn.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise

    def _rollback(self) -> None:
        """Roll back if a transaction is still open. SQLite itself rolls back on some errors
        (a full disk, SQLITE_FULL); the original error is what the user must see."""
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")

    def _begin_immediate(self) -> None:
        """Take the write lock. When another process holds it for more than
        :data:`LOCK_NOTICE_AFTER_S`, tell the user who (:func:`lock_notices`), keep waiting
        up to the busy timeout, then fail with a message naming the holder."""
        total_ms = busy_timeout_ms()
        first_ms = min(int(LOCK_NOTICE_AFTER_S * 1000), total_ms)
        self.conn.execute(f"PRAGMA busy_timeout = {first_ms}")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {total_ms}")
        who = describe_lock_holders(self.path)
        notice = _lock_listeners[-1] if _lock_listeners else None
        if notice is not None:
            notice(f"waiting for the write lock on {self.path}, held by {who} "
                   f"(up to {total_ms / 1000:g} s; Ctrl-C stops waiting, nothing is lost)")
        self.conn.execute(f"PRAGMA busy_timeout = {max(total_ms - first_ms, 0)}")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            raise StoreError(
                f"{self.path} is locked for writing by {describe_lock_holders(self.path)} for "
                f"more than {total_ms / 1000:g} s; nothing was changed: wait for it to finish "
                "(or stop it) and run this again", title="Database busy") from None
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {total_ms}")

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
        return self.conn.execute(sql, _clean_params(params))

    def insert(self, table: str, row: dict[str, Any]) -> int:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cur = self.conn.execute(
            f"INSERT INTO {table} ({cols}) VALUES ({marks})",
            [_to_db(v) for v in row.values()],
        )
        return int(cur.lastrowid or 0)

    def insert_many(self, table: str, rows: Iterable[dict[str, Any]] | Iterable[Sequence[Any]],
                    *, columns: Sequence[str] | None = None) -> int:
        """Insert ``rows`` — dicts with the same keys, or tuples in the order of ``columns`` —
        as multi-row INSERT statements (up to :data:`ROWS_PER_INSERT` rows each), values
        stored as :meth:`insert` stores them, in one write transaction (joining an open one).
        Returns how many rows were inserted.

        One statement per chunk rather than one per row: a full-text index kept by a
        trigger takes a whole chunk at once (FTS5 writes its pending terms at every
        statement), about 4 µs a row instead of 20. (sqlite-utils' ``insert_all`` was
        measured for this: 10 µs a row of Python overhead against 1.)"""
        it: Iterator[Any] = iter(rows)  # dicts or sequences, as the first row shows
        first = next(it, None)
        if first is None:
            return 0
        if isinstance(first, dict):
            cols = list(first)
            values: Iterator[Sequence[Any]] = (tuple(r[c] for c in cols)
                                               for r in itertools.chain([first], it))
        else:
            if columns is None:
                raise ValueError("rows given as tuples need their columns")
            cols = list(columns)
            values = itertools.chain([first], it)
        per = max(1, min(ROWS_PER_INSERT, MAX_VARIABLES // len(cols)))
        head = f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
        mark = "(" + ", ".join("?" for _ in cols) + ")"
        count = 0
        with self.transaction():
            while True:
                chunk = list(itertools.islice(values, per))
                if not chunk:
                    break
                self.conn.execute(head + ", ".join([mark] * len(chunk)),
                                  [_to_db(v) for row in chunk for v in row])
                count += len(chunk)
        return count

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


def _is_busy(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _folder_writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK) and not _read_only_mount(folder)


def _read_only_mount(folder: Path) -> bool:
    """Whether the file system holding ``folder`` is mounted read-only (``access`` says a
    root process may write there; chmod cannot help)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _make_writable(folder: Path, what: str = "move the database") -> str:
    """What to do about a folder that cannot be written: chmod, or for a read-only mount,
    remount or go elsewhere."""
    if _read_only_mount(folder):
        return (f"the file system holding {folder} is mounted read-only (chmod cannot help): "
                f"remount it read-write or {what}")
    return f"make the folder writable (chmod u+w) or {what}"


def _check_database_file(path: Path, *, create: bool) -> None:
    """Refuse what cannot be a qcstation database before SQLite touches it: a missing file
    (unless creating), a folder, FIFO or device, a 0-byte file (SQLite would silently make
    it a new database). Only ``stat`` is used, never ``open``."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if not create:
            raise StoreError(
                f"no database at {path}; create one with `qcstation import FILE` or "
                "`qcstation quickstart` (or pass the right --db / $QCSTATION_DB)",
                title="No database") from None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder {path.parent} for the database: "
                             f"{exc.strerror}; pass a --db in a folder you can write",
                             title="Cannot create the database") from None
        if not _folder_writable(path.parent):
            raise StoreError(f"cannot create {path}: the folder {path.parent} is read-only; "
                             + (_make_writable(path.parent, "pass a --db in a folder you can write")
                                if _read_only_mount(path.parent) else
                                "pass a --db in a folder you can write (or chmod u+w it)"),
                             title="Cannot create the database") from None
        return
    except OSError as exc:
        raise StoreError(f"cannot open {path}: {exc.strerror}", title="Cannot open the database") from None
    if stat.S_ISDIR(st.st_mode):
        raise StoreError(f"{path} is a folder, not a database file; pass the file with --db",
                         title="Not a qcstation database")
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(f"{path} is not a regular file (a FIFO, socket or device), not a "
                         "qcstation database; pass the right --db / $QCSTATION_DB",
                         title="Not a qcstation database")
    if st.st_size == 0:
        raise StoreError(f"{path} is empty (0 bytes), not a qcstation database; delete it to "
                         "start a new database there, or pass the right --db / $QCSTATION_DB",
                         title="Not a qcstation database")
    # The header is not read here: opening and closing our own descriptor on the file
    # would drop the POSIX locks SQLite holds through other connections of this process.
    # A file that is not SQLite fails on the first query ("file is not a database").


def _storage_title(exc: BaseException) -> str:
    text = str(exc).lower()
    if "not a database" in text or "encrypted" in text:
        return "Not a qcstation database"
    if "malformed" in text or "disk image" in text:
        return "Database damaged"
    if _is_busy(exc):
        return "Database busy"
    return "Cannot open the database"


def storage_message(exc: BaseException, path: Path | str) -> str:
    """One line saying what is wrong with the database ``path`` and what to do, for an
    ``sqlite3`` error (read-only file or folder, full disk, corrupt page, lock, I/O)."""
    path = Path(path)
    text = str(exc)
    low = text.lower()
    folder = path.parent
    if "readonly" in low or "read-only" in low:
        if not _folder_writable(folder):
            return (f"the folder {folder} is read-only, so {path.name} cannot be written "
                    "(SQLite keeps its -wal and -shm files next to it); nothing was changed: "
                    + _make_writable(folder))
        return (f"{path} is read-only; nothing was changed: make it writable (chmod u+w) or "
                "copy it somewhere writable and pass --db")
    capped = _file_size_cap(path)
    if capped is not None and ("full" in low or "i/o" in low):
        return (f"writing {path} failed ({text}): this process may write files of at most "
                f"{capped:,} bytes (its file-size limit, `ulimit -f`) and the disk has room; "
                "the interrupted step was not stored and everything stored before it is intact: "
                "raise the limit (ulimit -f unlimited) and run it again")
    if "disk is full" in low or "database or disk is full" in low:
        return (f"the disk holding {path} is full; the interrupted step was not stored and "
                "everything stored before it is intact: free some space and run it again")
    if "malformed" in low or "disk image" in low:
        return (f"{path} is damaged ({text}); restore it from a backup, or save what is "
                f"readable with `sqlite3 {path} .recover > recovered.sql`")
    if "not a database" in low or "file is encrypted" in low:
        return f"{path} is not a qcstation database ({text}); pass the right --db / $QCSTATION_DB"
    if "unable to open" in low:
        if not _folder_writable(folder):
            return (f"cannot open {path}: the folder {folder} is read-only and SQLite must "
                    "create its -wal and -shm files there: " + _make_writable(folder))
        return (f"cannot open {path} ({text}); check that the file and its folder are readable "
                "and writable")
    if _is_busy(exc):
        return (f"{path} is locked by {describe_lock_holders(path)}; nothing was changed: "
                "wait for it to finish (or stop it) and run this again")
    if "disk i/o error" in low or "i/o" in low:
        return (f"reading or writing {path} failed ({text}); check the disk (free space, "
                "dmesg) and run it again")
    return f"database error on {path}: {text}"


def _file_size_cap(path: Path) -> int | None:
    """This process's file-size limit (``ulimit -f``) in bytes when it is set and the disk
    holding ``path`` has room (1 MiB or more free), else None: SQLite reports a write cut short
    by the limit as a full disk or an I/O error that would send the user to check a disk with
    room to spare. (The -wal that hit the limit may be gone by the time this is asked:
    closing the store checkpoints it into a small database.)"""
    soft = file_size_limit()
    if soft is None:
        return None
    try:
        fs = os.statvfs(path.parent)
    except OSError:
        return soft
    return soft if fs.f_bavail * fs.f_frsize >= 1 << 20 else None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_text(value: str) -> str:
    """``value`` with lone surrogates (which UTF-8 cannot hold, so SQLite refuses the
    whole statement) replaced by U+FFFD; a valid surrogate pair becomes its character.
    Model output and JSON ``\\ud800`` escapes can carry them."""
    if _LONE_SURROGATE.search(value) is None:
        return value
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _clean_params(params: Any) -> Any:
    if isinstance(params, dict):
        return {k: storable_text(v) if isinstance(v, str) else v for k, v in params.items()}
    if isinstance(params, (list, tuple)):
        return [storable_text(v) if isinstance(v, str) else v for v in params]
    return params


def from_json(text: Any) -> Any:
    """A JSON column's value: the decoded document, the value itself when it is already a
    dict or list, None for NULL, empty or undecodable text."""
    if text is None or text == "":
        return None
    if isinstance(text, (dict, list)):
        return text
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _to_db(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, str):
        return storable_text(value)
    return value


def open_store(path: str | Path | None = None) -> Store:
    return Store(path if path is not None else default_db_path())


_STORED_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str).encode   # json.dumps', made once
_JSON_STR = json.encoder.encode_basestring   # the string encoder of ensure_ascii=False (C)


def stored_json(detail: Any) -> str:
    """An object as a row stores it (a score's detail): exactly ``json.dumps(detail,
    sort_keys=True, ensure_ascii=False, default=str)``. A flat object of strings, whole
    numbers, booleans and nulls (an answer check's: two a scored output) is written here, each
    string by json's own encoder, about four times faster than the encoder's walk; anything
    else goes to it (``tests/eval/test_score_rows.py``)."""
    if not isinstance(detail, dict):
        return _STORED_JSON(detail)
    parts: list[str] = []
    for k in detail:
        if type(k) is not str:
            return _STORED_JSON(detail)
    for k in sorted(detail):
        v = detail[k]
        t = type(v)
        if t is str:
            e = _JSON_STR(v)
        elif v is None:
            e = "null"
        elif t is bool:
            e = "true" if v else "false"
        elif t is int:
            e = int.__repr__(v)
        else:
            return _STORED_JSON(detail)
        parts.append(f"{_JSON_STR(k)}: {e}")
    return "{" + ", ".join(parts) + "}"
