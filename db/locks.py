"""Who holds a database's write lock (Linux ``/proc/locks``), for the messages that name it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from qcstation.common.safe import one_line

#: the byte of the -shm file a WAL writer locks (SQLite's WAL_WRITE_LOCK: 120), and the main
#: file's RESERVED byte a rollback-journal writer locks (PENDING_BYTE 0x40000000 + 1)
_WAL_WRITE_BYTE = 120
_RESERVED_BYTE = 0x40000001


def lock_holders(path: Path) -> list[tuple[int, str]]:
    """The processes holding the write lock of the database (Linux ``/proc/locks``: a write
    lock on the ``-shm`` file's writer byte, or on the main file's RESERVED byte), as
    ``(pid, command line)``; this process is included (another of its connections may hold
    it). Processes that only read (each holds shared locks on the ``-shm`` file) are not
    holders. Empty where that cannot be known, or when nobody holds it any more."""
    wanted: dict[int, int] = {}
    for suffix, byte in (("-shm", _WAL_WRITE_BYTE), ("", _RESERVED_BYTE)):
        with contextlib.suppress(OSError):
            wanted[os.stat(f"{path}{suffix}").st_ino] = byte
    holders: dict[int, str] = {}
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read(1_000_000).splitlines()
    except OSError:
        return []
    for line in lines:
        parts = line.split()
        if "->" in parts or len(parts) < 8 or parts[3] != "WRITE":  # a waiter, or a shared lock
            continue
        try:
            pid = int(parts[4])
            inode = int(parts[5].rsplit(":", 1)[1])
            start = int(parts[6])
            end = None if parts[7] == "EOF" else int(parts[7])
        except (IndexError, ValueError):
            continue
        locked = wanted.get(inode)
        if locked is None or pid <= 0 or pid in holders or start > locked or (end is not None and end < locked):
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                raw = fh.read(400)
            cmd = raw.replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            cmd = ""
        holders[pid] = one_line(cmd, 120)
    return sorted(holders.items())


def describe_lock_holders(path: Path) -> str:
    """Who holds the write lock, in words: its process (this one: another of its tasks), or,
    when no holder can be seen (it let go as this looked, or /proc is not there), that."""
    holders = lock_holders(path)
    if not holders:
        return ("a process that could not be identified (it may have let go just now; "
                "another qcstation run or an sqlite3 shell)")
    return ", ".join(
        f"this process (pid {pid}: another of its tasks, such as a background job)" if pid == os.getpid()
        else f"pid {pid} ({cmd or 'unknown command'})" for pid, cmd in holders[:3])
