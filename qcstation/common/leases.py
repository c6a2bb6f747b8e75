"""Leases: who holds a piece of shared work, and whether that holder is still there.

Several processes share one database (and a folder of runtime files): two ``generate``
processes must not work on the same item, two sessions must not ask the same evaluation
run, and a process killed with ``kill -9`` must not hold its work forever. Every such
claim records its holder, an :class:`Owner` (host name and process id), and a time: the
last sign of life (a heartbeat, or the moment the work started). A claim is *held* while

* its owner is a process of this machine that still runs, and
* (unless the owner's process alone decides) its last sign of life is no older than the
  lease's staleness limit: a process on another machine sharing the file cannot be
  asked, so its claim is trusted only for that long.

Users: the evaluation run lease (``eval_runs.owner`` + ``heartbeat_at``, 60 s, refreshed
by the run's writer every 5 s; qcstation/eval/runs.py), the generate leases (the
unfinished attempt of an item, ``attempts.inputs.owner`` + ``started_at``, 30 min;
qcstation/core/construct/pipeline.py), and folders named after the process that made them
(:func:`pid_alive`: the verifier pool's runtime folders, a killed export's staging
folders). Imports nothing of ours.
"""

from __future__ import annotations

import datetime as _dt
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: the time format of the database's stamps (``db.store.now()``)
STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this machine (one we may not signal counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stamp_age_s(stamp: Any) -> float | None:
    """Seconds since a database stamp (``2026-01-02T03:04:05.123456Z``); None when it is not one."""
    try:
        t = _dt.datetime.strptime(str(stamp), STAMP_FORMAT).replace(tzinfo=_dt.timezone.utc)
    except ValueError:
        return None
    return (_dt.datetime.now(_dt.timezone.utc) - t).total_seconds()


@dataclass(frozen=True)
class Owner:
    """The process holding a lease: its host name and its process id (None when the record
    does not say)."""

    host: str
    pid: int | None

    @classmethod
    def me(cls) -> Owner:
        return cls(socket.gethostname(), os.getpid())

    @classmethod
    def parse(cls, text: Any) -> Owner | None:
        """From ``host:pid`` (the evaluation run lease), or ``host:pid#claim`` (one claim of
        that process: a scoring pass; the process decides whether it holds it); None for an
        empty owner."""
        if not text:
            return None
        host, _, pid = str(text).split("#", 1)[0].rpartition(":")
        return cls(host, int(pid) if pid.isdigit() else None)

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> Owner | None:
        """From ``{"host": ..., "pid": ...}`` (the generate lease); None for an empty one."""
        if not record:
            return None
        try:
            pid = int(record.get("pid") or 0)
        except (TypeError, ValueError):
            pid = 0
        return cls(str(record.get("host") or ""), pid)

    def __str__(self) -> str:
        return f"{self.host}:{'' if self.pid is None else self.pid}"

    def record(self) -> dict[str, Any]:
        return {"host": self.host, "pid": self.pid}

    @property
    def local(self) -> bool:
        return self.host == socket.gethostname()

    @property
    def is_me(self) -> bool:
        return self.local and self.pid == os.getpid()

    def gone(self) -> bool:
        """A process of this machine that no longer runs (or names no process)."""
        return self.local and self.pid is not None and (self.pid <= 0 or not pid_alive(self.pid))


def held(owner: Owner | None, last_sign: Any, *, stale_after_s: float,
         local_pid_decides: bool = False) -> bool:
    """Whether a lease is held by its owner (this process included).

    Not held: no owner; an owner of this machine whose process is gone; a last sign of life
    that is not a stamp or older than ``stale_after_s``. With ``local_pid_decides`` an
    owner of this machine holds the lease exactly while its process runs, however old its
    stamp (a lease with no heartbeat)."""
    if owner is None or owner.gone():
        return False
    if local_pid_decides and owner.local:
        return owner.pid is not None
    age = stamp_age_s(last_sign)
    return age is not None and age <= stale_after_s


def held_by_another(owner: Owner | None, last_sign: Any, *, stale_after_s: float,
                    local_pid_decides: bool = False) -> bool:
    """:func:`held`, by a process other than this one."""
    return (owner is not None and not owner.is_me
            and held(owner, last_sign, stale_after_s=stale_after_s,
                     local_pid_decides=local_pid_decides))
