"""attack10: a database this process may only read (its folder mounted read-only here) while
another process writes it through a path that may. It was opened ``immutable`` (SQLite told
the file never changes): a long-lived reader kept the counts of when it opened, and read
the database as corrupt once the writer's checkpoints reached the file. Now a change of the
file reopens it: through the writer's -wal/-shm while it writes, else immutable again.

The read-only view is a bind mount in a private mount namespace (``unshare -m``, root);
skipped where the machine cannot mount."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from tests import factories as f

ROOT = Path(__file__).resolve().parents[2]


def _can_mount() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True)
    return probe.returncode == 0


READER = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from db import Store
view, flags = sys.argv[2], sys.argv[3]
def wait(name):
    while not os.path.exists(os.path.join(flags, name)):
        time.sleep(0.02)
s = Store(view)
seen = {"read_only": s.read_only, "at_open": s.scalar("SELECT COUNT(*) FROM seeds")}
open(os.path.join(flags, "opened"), "w").close()
wait("written")                       # the writer has added seeds and still holds the database
seen["writer_open"] = s.scalar("SELECT COUNT(*) FROM seeds")
wait("closed")                        # the writer has closed: its -wal was checkpointed into the file
seen["writer_closed"] = s.scalar("SELECT COUNT(*) FROM seeds")
seen["check"] = s.scalar("PRAGMA quick_check")
print(json.dumps(seen))
"""

WRITER = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from db import Store
from tests import factories as f
db, flags = sys.argv[2], sys.argv[3]
while not os.path.exists(os.path.join(flags, "opened")):
    time.sleep(0.02)
s = Store(db)
f.populate(s, {"mawps": 400}, start=1000)
s.execute("PRAGMA wal_checkpoint(PASSIVE)")     # part of it reaches the database file already
open(os.path.join(flags, "written"), "w").close()
time.sleep(0.3)
s.close()
open(os.path.join(flags, "closed"), "w").close()
"""


@pytest.mark.skipif(not _can_mount(), reason="cannot mount here (needs unshare -m as root)")
def test_a_reader_of_a_read_only_view_sees_a_writer_beside_it(tmp_path: Path) -> None:
    rw, view, flags = tmp_path / "rw", tmp_path / "view", tmp_path / "flags"
    for d in (rw, view, flags):
        d.mkdir()
    with Store(rw / "q.db") as store:
        f.populate(store, {"gsm8k": 30})
    (tmp_path / "reader.py").write_text(READER)
    (tmp_path / "writer.py").write_text(WRITER)
    py = sys.executable
    script = (f"mount --bind {rw} {view} && mount -o remount,ro,bind {view} || exit 9; "
              f"{py} {tmp_path / 'reader.py'} {ROOT} {view / 'q.db'} {flags} & "
              f"{py} {tmp_path / 'writer.py'} {ROOT} {rw / 'q.db'} {flags}; wait")
    run = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    if run.returncode == 9:
        pytest.skip("no bind mount here")
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["read_only"] is True and seen["at_open"] == 30
    assert seen["writer_open"] == 430 and seen["writer_closed"] == 430, seen
    assert seen["check"] == "ok"
