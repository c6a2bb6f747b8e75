"""Helpers for tests that act on a worker process at a chosen moment, without timing races."""

from __future__ import annotations

import os
import time


def cpu_seconds(pid: int) -> float:
    """User + system CPU time used so far by process ``pid`` (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until_computing(pid: int, *, cpu_s: float = 0.3, deadline_s: float = 300.0) -> bool:
    """Wait until ``pid`` has burnt ``cpu_s`` more CPU seconds than when called, i.e. it is busy
    with a job (an idle worker blocked on its pipe uses none), however slow the machine is.
    False if that never happened within ``deadline_s``."""
    start = cpu_seconds(pid)
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            if cpu_seconds(pid) - start >= cpu_s:
                return True
        except (FileNotFoundError, ProcessLookupError):
            return False
        time.sleep(0.02)
    return False
