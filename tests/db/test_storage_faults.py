"""Issue 10: every storage fault ends with one line saying what is wrong and what to do,
in the shell and in the app, never a traceback; nothing already stored is lost.

Read-only files and folders: the tests run as root, and root ignores file modes. So the
command runs in a child process started with ``setpriv`` dropping the two capabilities
that let root bypass them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): the kernel then
enforces ``chmod`` exactly as for a normal user. A full disk is a real 400 KiB tmpfs
mounted in a private mount namespace (``unshare -m``); both are skipped where the machine
does not allow them. The importer's own accounting under a full disk is also checked
in-process with SQLite's ``PRAGMA max_page_count``, which makes SQLite fail with
SQLITE_FULL exactly as a full disk does."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.core.ingest.importer import import_file
from qcstation.common.errors import StoreError
from tests import factories as f

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "qcstation" / "data" / "gsm8k_sample.jsonl"
NOCAP = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
         "--bounding-set=-dac_override,-dac_read_search"]


def _cli(db: Path, *args: str, prefix: list[str] | None = None, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([*(prefix or []), sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=db.parent, env=full_env, capture_output=True, text=True, timeout=timeout)


def _one_line_error(run: subprocess.CompletedProcess[str], *words: str) -> None:
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "Traceback" not in run.stderr
    for word in words:
        assert word in lines[0], lines[0]


def _seeded_db(path: Path, n: int = 5) -> Path:
    with Store(path) as store:
        f.populate(store, {"gsm8k": n})
    return path


def _can_drop_caps() -> bool:
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        return False
    return subprocess.run([*NOCAP, "true"], capture_output=True).returncode == 0


# -- files that are not a qcstation database --------------------------------------------

@pytest.mark.parametrize("kind", ["empty", "text", "foreign-sqlite", "folder", "fifo"])
def test_not_a_database_is_refused_and_left_untouched(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "x.db"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "text":
        path.write_text("name,score\nann,3\n")
    elif kind == "foreign-sqlite":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE users (name TEXT)")
        conn.commit()
        conn.close()
    elif kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(StoreError, match="not a qcstation database|0 bytes|a folder|not a regular"):
        Store(path)
    run = _cli(path, "import", str(SAMPLE), timeout=300)    # import creates missing databases
    _one_line_error(run, str(path.name))
    if before is not None:
        assert path.read_bytes() == before                # not silently made a new database
    assert not Path(f"{path}-wal").exists()


# -- read-only file and folder -------------------------------------------------------------

@pytest.mark.skipif(not _can_drop_caps(), reason="needs root and setpriv to enforce file modes")
def test_read_only_database_file(tmp_path: Path) -> None:
    db = _seeded_db(tmp_path / "ro.db")
    os.chmod(db, 0o444)
    status = _cli(db, "status", "--json", prefix=NOCAP)
    assert status.returncode == 0, status.stderr            # reading needs no write access
    assert json.loads(status.stdout)["seeds"]["gsm8k"]["active"] == 5
    run = _cli(db, "import", str(SAMPLE), "--source", "more", prefix=NOCAP)
    _one_line_error(run, "read-only", "chmod u+w")
    os.chmod(db, 0o644)
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM seeds") == 5


@pytest.mark.skipif(not _can_drop_caps(), reason="needs root and setpriv to enforce file modes")
def test_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = _seeded_db(folder / "q.db")
    os.chmod(folder, 0o555)
    try:
        status = _cli(db, "status", "--json", prefix=NOCAP)   # reading needs no -wal/-shm file
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["seeds"]["gsm8k"]["active"] == 5
        run = _cli(db, "import", str(SAMPLE), "--source", "more", prefix=NOCAP)
        _one_line_error(run, "folder", "read-only", "chmod u+w")
        assert "is not a qcstation database" not in run.stderr
        missing = _cli(folder / "new.db", "import", str(SAMPLE), prefix=NOCAP)
        _one_line_error(missing, "read-only")
    finally:
        os.chmod(folder, 0o755)
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM seeds") == 5


# -- full disk ------------------------------------------------------------------------------

def test_full_disk_import_counts_only_what_was_stored(tmp_path: Path) -> None:
    db = _seeded_db(tmp_path / "full.db", n=2)
    big = tmp_path / "big.jsonl"
    with big.open("w") as fh:
        for i in range(2000):
            fh.write(json.dumps({"question": f"Tom has {i} apples {'and pears ' * 30}. How many?",
                                 "answer": f"{i}+3=<<{i}+3={i + 3}>>{i + 3}\n#### {i + 3}"}) + "\n")
    with Store(db) as store:
        pages = int(store.scalar("PRAGMA page_count"))
        store.execute(f"PRAGMA max_page_count = {pages + 60}")   # room for a few batches only
        with pytest.raises(sqlite3.OperationalError, match="full"):
            import_file(store, big, source="big")
    with Store(db) as store:
        stored = store.scalar("SELECT COUNT(*) FROM seeds WHERE source = 'big'")
        runs = store.query("SELECT added, errors FROM import_runs WHERE source = 'big'")
        assert store.scalar("SELECT COUNT(*) FROM seeds WHERE source = 'gsm8k'") == 2
    assert len(runs) == 1 and runs[0]["added"] == stored < 2000
    assert "import stopped" in runs[0]["errors"]


def _tmpfs_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _tmpfs_works(), reason="cannot mount a small tmpfs here")
def test_full_disk_in_the_shell(tmp_path: Path) -> None:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    big = tmp_path / "big.jsonl"
    with big.open("w") as fh:
        for i in range(3000):
            fh.write(json.dumps({"question": f"Ann has {i} pens {'and inks ' * 40}. How many?",
                                 "answer": f"{i}+1=<<{i}+1={i + 1}>>{i + 1}\n#### {i + 1}"}) + "\n")
    py = sys.executable
    # room for the shipped sample and its full-text index, not for the big file
    script = (f"mount -t tmpfs -o size=900k tmpfs {mnt} && cd {mnt} && "
              f"{py} -m qcstation --db q.db import {SAMPLE} >/dev/null && "
              f"{py} -m qcstation --db q.db import {big} --source big; echo rc=$?; "
              f"{py} -m qcstation --db q.db status --json")
    run = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "rc=2" in run.stdout, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "disk holding" in lines[0] and "full" in lines[0], run.stderr
    status = json.loads(run.stdout.split("rc=2", 1)[1])
    assert status["seeds"]["gsm8k"]["active"] > 100                 # what was stored is intact


@pytest.mark.skipif(not _tmpfs_works(), reason="cannot mount here (needs unshare -m as root)")
def test_read_only_mount_says_so_not_chmod(tmp_path: Path) -> None:
    """A database on a file system mounted read-only: it is read (status, releases, an export
    to a writable folder: attack8 found it could not even be opened, SQLite having no -shm
    file there); a write fails with one line saying the mount is read-only (chmod cannot
    help) and naming the folder; nothing is changed. A -wal file left with changes and no
    -shm beside it cannot be read there: one line says so."""
    from qcstation.common.config import load_config
    from qcstation.core.release import releases as rel
    from tests.core.release.test_release import TOML, _ready_store

    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "q.db"
    (tmp_path / "qcstation.toml").write_text(TOML, encoding="utf-8")
    cfg = load_config(tmp_path / "qcstation.toml", env={})
    with Store(db) as store:
        _ready_store(store, cfg)
        rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    shutil.copy(db, tmp_path / "rw.db")
    with Store(tmp_path / "rw.db") as store:      # the same export from a writable copy
        expected = rel.export_release(store, "smart", "1.0", tmp_path / "expected")
    # a database killed with changes in its -wal, the -shm gone
    pending = tmp_path / "pending"
    pending.mkdir()
    shutil.copy(db, pending / "q.db")
    hold = subprocess.Popen([sys.executable, "-c", _HOLD_WAL, str(pending / "q.db")], stdout=subprocess.PIPE,
                            text=True)
    assert hold.stdout is not None and hold.stdout.readline().strip() == "written"
    hold.kill()
    hold.wait()
    Path(f"{pending / 'q.db'}-shm").unlink()
    before = db.read_bytes()
    py = sys.executable
    script = (f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} || exit 9; "
              f"mount --bind {pending} {pending} && mount -o remount,ro,bind {pending} || exit 9; "
              f"{py} -m qcstation --db {db} status --json; echo rc=$?; "
              f"{py} -m qcstation --db {db} release export smart@1.0 --out {tmp_path / 'out'} >&2; echo rc=$?; "
              f"{py} -m qcstation --db {db} import {SAMPLE} --source more; echo rc=$?; "
              f"{py} -m qcstation --db {folder / 'new.db'} import {SAMPLE}; echo rc=$?; "
              f"{py} -m qcstation --db {pending / 'q.db'} status; echo rc=$?")
    run = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                         cwd=tmp_path, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    codes = [line for line in run.stdout.splitlines() if line.startswith("rc=")]
    assert codes == ["rc=0", "rc=0", "rc=2", "rc=2", "rc=2"], run.stdout + run.stderr
    assert json.loads(run.stdout.split("rc=0")[0])["seeds"]["gsm8k"]["active"] > 0
    out = tmp_path / "out" / "smart" / "1.0"
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in expected.iterdir())
    for p in expected.iterdir():
        assert (out / p.name).read_bytes() == p.read_bytes(), p.name
    lines = run.stderr.strip().splitlines()
    assert "Traceback" not in run.stderr, run.stderr
    assert "the export is complete" in lines[0] and lines[1] == str(out), lines[:2]
    assert "-wal file holds changes" in lines[-1] and "mounted read-only" in lines[-1], lines[-1]
    lines = lines[2:-1]
    assert len(lines) == 2, lines
    for line in lines:
        assert f"{folder} is mounted read-only" in line and "chmod cannot help" in line, line
        assert "chmod u+w" not in line, line
    assert db.read_bytes() == before and not (folder / "new.db").exists()


_HOLD_WAL = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA wal_autocheckpoint = 0")
conn.execute("INSERT INTO events (at, actor, action, detail) VALUES ('x', 'w', 'pending', '{}')")
print("written", flush=True)
time.sleep(86400)
"""


def _file_size_cap(limit: int):
    def cap() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return cap


def test_file_size_limit_is_named_not_the_disk(tmp_path: Path) -> None:
    """Under `ulimit -f` SQLite's write is cut short and it says 'disk I/O error' (or full):
    the message names the process's limit, not a disk with room to spare."""
    db = _seeded_db(tmp_path / "cap.db", n=2)
    big = tmp_path / "big.jsonl"
    with big.open("w") as fh:
        for i in range(3000):
            fh.write(json.dumps({"question": f"Ann has {i} pens {'and inks ' * 40}. How many?",
                                 "answer": f"{i}+1=<<{i}+1={i + 1}>>{i + 1}\n#### {i + 1}"}) + "\n")
    limit = db.stat().st_size + (1 << 20)
    full_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "import", str(big),
                          "--source", "big"], cwd=tmp_path, env=full_env, capture_output=True, text=True,
                         timeout=300, preexec_fn=_file_size_cap(limit))
    _one_line_error(run, "file-size limit", f"{limit:,} bytes", "ulimit -f")
    assert "check the disk" not in run.stderr
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM seeds WHERE source = 'gsm8k'") == 2
        assert store.query("PRAGMA integrity_check")[0] == {"integrity_check": "ok"}


# -- corrupt page ------------------------------------------------------------------------------

def _corrupt(db: Path) -> None:
    conn = sqlite3.connect(db)
    page_size, pages = conn.execute("PRAGMA page_size").fetchone()[0], conn.execute(
        "PRAGMA page_count").fetchone()[0]
    conn.close()
    with db.open("r+b") as fh:  # every third page after the schema page: any scan meets one
        for page in range(2, pages, 3):
            fh.seek(page_size * page)
            fh.write(b"\xde\xad" * (page_size // 2))


def test_corrupt_page_in_the_shell(tmp_path: Path) -> None:
    db = _seeded_db(tmp_path / "bad.db", n=200)
    _corrupt(db)
    run = _cli(db, "status")
    _one_line_error(run, "damaged", ".recover")


async def test_corrupt_page_in_the_app(tmp_path: Path) -> None:
    from qcstation.app import make_app
    from screens.dialogs.error import ErrorModal
    from tests.app.conftest import build_db, make_config, settle

    db = build_db(tmp_path / "bad.db", per_source={"gsm8k": 200})
    _corrupt(db)
    app = make_app(db, config=make_config(), account="tester")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ErrorModal), type(modal).__name__
        # met on opening (the schema spans several pages since the full-text indexes of
        # migration 7) or by the first query: either way one modal saying what to do
        assert modal.error_title in ("Database damaged", "Database problem")
        assert "damaged" in modal.error and ".recover" in modal.error
        assert "Traceback" not in modal.error


# -- a held lock -----------------------------------------------------------------------------

_HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO events (at, actor, action, detail) VALUES ('x', 'holder', 'hold', '{}')")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
"""


def _hold_lock(db: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(db), str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


@pytest.mark.slow
def test_held_lock_read_only_commands_do_not_wait_and_writers_name_the_holder(tmp_path: Path) -> None:
    """No clock decides: the lock is held until the test ends it. A read-only command given a
    busy timeout of an hour can only return while it is held if it never waits for it; a writer
    given 3 s can only fail while it is held by giving up on its own timeout."""
    db = _seeded_db(tmp_path / "locked.db")
    holder = _hold_lock(db, 86_400)
    try:
        status = _cli(db, "status", "--json", env={"QCSTATION_BUSY_TIMEOUT": "3600"},
                      timeout=900)   # a guard against a hang, not a speed limit
        assert status.returncode == 0, status.stderr
        assert holder.poll() is None                       # the lock was held all along
        run = _cli(db, "import", str(SAMPLE), env={"QCSTATION_BUSY_TIMEOUT": "3"}, timeout=900)
        assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert lines[0].startswith("qcstation: waiting for the write lock") and f"pid {holder.pid}" in lines[0]
    assert "locked for writing by" in lines[-1] and f"pid {holder.pid}" in lines[-1]
    assert "nothing was changed" in lines[-1]
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM seeds") == 5


async def test_held_lock_app_opens_and_shows_counts(tmp_path: Path) -> None:
    from qcstation.app import make_app
    from tests.app.conftest import build_db, flat, make_config, screen_text, settle

    db = build_db(tmp_path / "locked.db", per_source={"gsm8k": 10})
    holder = _hold_lock(db, 86_400)   # held until the test ends it: no clock decides
    try:
        app = make_app(db, config=make_config(), account="tester")
        async with app.run_test(size=(100, 90)) as pilot:  # tall enough to show the counts
            await settle(pilot)
            assert "gsm8k" in flat(screen_text(app))
            assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()


def test_app_start_on_a_bad_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from qcstation.app import run_app

    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert run_app(empty) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "0 bytes" in err[0]
    assert empty.read_bytes() == b""


_READ = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN")
conn.execute("SELECT COUNT(*) FROM seeds").fetchone()
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_the_lock_message_names_the_writer_not_a_reader_nor_another_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """attack8/attack9 (issue 30): every process with the database open holds shared locks on
    its -shm file, and the message named them all as holders ("held by pid R (a reader)"); a
    write lock taken by another connection of this same process was "another process". Only
    the writer's lock (the -shm writer byte) names a holder. No clock decides: each lock is
    held until the test ends it, and the write fails on its own busy timeout."""
    from db.store import describe_lock_holders, lock_notices

    db = _seeded_db(tmp_path / "locked.db")
    reader = subprocess.Popen([sys.executable, "-c", _READ, str(db), "86400"], stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "held"
        holder = _hold_lock(db, 86_400)
        try:
            said = describe_lock_holders(db)
            assert f"pid {holder.pid}" in said and f"pid {reader.pid}" not in said, said
        finally:
            holder.kill()
            holder.wait()
        # the writer is another connection of this process
        mine = sqlite3.connect(str(db), isolation_level=None)
        mine.execute("BEGIN IMMEDIATE")
        try:
            heard: list[str] = []
            monkeypatch.setenv("QCSTATION_BUSY_TIMEOUT", "0.2")
            with lock_notices(heard.append), pytest.raises(StoreError) as err:
                with Store(db, migrate=False) as store:
                    store.event("tester", "attempt")
        finally:
            mine.execute("ROLLBACK")
            mine.close()
        for line in [*heard, str(err.value)]:
            assert f"this process (pid {os.getpid()}" in line and f"pid {reader.pid}" not in line, line
            assert "another process" not in line
    finally:
        reader.kill()
        reader.wait()
    # nobody holds it: no holder is made up
    assert "could not be identified" in describe_lock_holders(db)
