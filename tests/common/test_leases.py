"""Leases against real processes: a holder that runs, one killed with SIGKILL, one of
another host known only by its last sign of life, and this process itself."""

from __future__ import annotations

import datetime as dt
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from qcstation.common import leases
from qcstation.common.leases import Owner, held, held_by_another, pid_alive, stamp_age_s


def _stamp(seconds_ago: float) -> str:
    t = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=seconds_ago)
    return t.strftime(leases.STAMP_FORMAT)


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_pid_alive_follows_a_real_process(child: subprocess.Popen[bytes]) -> None:
    assert pid_alive(os.getpid()) and pid_alive(child.pid)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert not pid_alive(child.pid)


def test_owners_as_the_records_store_them() -> None:
    me = Owner.me()
    assert me.is_me and me.local and str(me) == f"{socket.gethostname()}:{os.getpid()}"
    assert Owner.parse(str(me)) == me and Owner.from_record(me.record()) == me
    assert Owner.parse("") is None and Owner.from_record({}) is None and Owner.from_record(None) is None
    assert Owner.parse("host:with:colons:12") == Owner("host:with:colons", 12)
    assert Owner.parse("host:notapid") == Owner("host", None)
    assert Owner.from_record({"host": "h", "pid": "garbage"}) == Owner("h", 0)
    assert stamp_age_s(_stamp(30)) == pytest.approx(30, abs=5)
    assert stamp_age_s("yesterday") is None and stamp_age_s(None) is None


def test_a_local_holder_holds_while_its_process_runs(child: subprocess.Popen[bytes]) -> None:
    owner = Owner(socket.gethostname(), child.pid)
    old = _stamp(10_000)
    # a lease with a heartbeat: the process must run and the heartbeat be fresh
    assert held(owner, _stamp(1), stale_after_s=60)
    assert not held(owner, old, stale_after_s=60)
    # a lease without one: the process alone decides
    assert held_by_another(owner, old, stale_after_s=60, local_pid_decides=True)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    for pid_decides in (False, True):
        assert not held(owner, _stamp(1), stale_after_s=60, local_pid_decides=pid_decides)
    assert not held(Owner(socket.gethostname(), 0), _stamp(1), stale_after_s=60)


def test_another_hosts_holder_is_trusted_until_its_stamp_is_stale() -> None:
    far = Owner("another-host.invalid", os.getpid())      # its pid means nothing here
    for pid_decides in (False, True):
        assert held_by_another(far, _stamp(5), stale_after_s=60, local_pid_decides=pid_decides)
        assert not held(far, _stamp(120), stale_after_s=60, local_pid_decides=pid_decides)
        assert not held(far, "not a time", stale_after_s=60, local_pid_decides=pid_decides)
        assert not held(far, None, stale_after_s=60, local_pid_decides=pid_decides)
    assert not held(None, _stamp(1), stale_after_s=60)


def test_this_process_holds_but_not_against_itself() -> None:
    me = Owner.me()
    assert held(me, _stamp(1), stale_after_s=60)
    assert not held_by_another(me, _stamp(1), stale_after_s=60)
    assert not held_by_another(me, _stamp(1), stale_after_s=60, local_pid_decides=True)
