"""The run record (qcstation.eval.runs) on real SQLite files: the one rule that names a run,
the release a run is made on, the spec as read back, the lease."""

from __future__ import annotations

import os
import socket

import pytest

from db import Store
from qcstation.eval import runs
from qcstation.eval.runs import EvalError
from tests.eval_factory import make_run
from tests.must import must


def test_a_run_is_named_by_id_or_by_a_name_exactly_one_run_has(store: Store) -> None:
    a = make_run(store, name="base")
    b = make_run(store, name="dup")
    c = make_run(store, name="dup", status="running")
    assert runs.resolve_run(store, str(a)) == a == runs.resolve_run(store, " base ")
    assert runs.resolve_run(store, a) == a
    with pytest.raises(EvalError, match=rf"2 runs are named 'dup' \({b}, {c}\); give the run id"):
        runs.resolve_run(store, "dup")
    with pytest.raises(EvalError, match="no evaluation run 999; `qcstation eval list` lists them"):
        runs.resolve_run(store, "999")
    with pytest.raises(EvalError, match=r"no evaluation run with id or name 'nope\\x1b\[2J'"):
        runs.resolve_run(store, "nope\x1b[2J")
    # more digits than an SQLite integer holds: a name, not an id (no overflow)
    with pytest.raises(EvalError, match="no evaluation run with id or name '9999"):
        runs.resolve_run(store, "9" * 30)
    assert runs.finished_runs(store) == [a, b]


def test_the_release_to_run_on(store: Store) -> None:
    with pytest.raises(EvalError, match="no approved release yet"):
        runs.resolve_release(store, None)
    with store.transaction():
        for name, version, at in (("smart", "1.0", "2026-01-01"), ("smart", "1.1", "2026-01-02"),
                                  ("other", "0.1", "2026-01-03")):
            store.insert("releases", {"name": name, "version": version, "approved_by": "cur",
                                      "approved_at": at, "manifest": "{}", "status": "approved"})
    assert runs.resolve_release(store, None) == ("other", "0.1")
    assert runs.resolve_release(store, "smart") == ("smart", "1.1")
    assert runs.resolve_release(store, "smart@1.0") == ("smart", "1.0")
    with pytest.raises(EvalError, match="no approved release named 'gone'"):
        runs.resolve_release(store, "gone")


def test_the_spec_as_read_back() -> None:
    assert runs.load_spec('{"tasks": ["final", "bogus", 3]}') == {"tasks": ["final", "bogus", 3]}
    assert runs.spec_tasks(runs.load_spec('{"tasks": ["final", "bogus", 3]}')) == {"final"}
    for bad in (None, "", "not json", "[1, 2]", "[" * 100_000, "{}" + " " * runs.MAX_SPEC_CHARS):
        assert runs.load_spec(bad) == {}
    assert runs.spec_tasks({}) is None
    assert runs.source_label({"source": {"release": "smart", "version": "1.0"}}) == "release smart@1.0"
    assert runs.source_label({"source": {"working_set": True, "at": "2026-01-02T03:04:05.6Z"}}) == \
        "working set (2026-01-02T03:04:05)"
    assert runs.release_label({"source": {"release": "smart", "version": "1.0"}}) == "smart@1.0"
    assert runs.release_label({"release": {"name": "smart", "version": "2"}}) == "smart@2"
    assert runs.release_label({}) == "working set"


def test_a_run_of_another_spec_format_is_refused(store: Store) -> None:
    run = make_run(store)          # the factory's spec has no "format"
    with pytest.raises(EvalError, match=f"run {run} was made by another version"):
        runs.RunContext(store, run)
    with pytest.raises(EvalError, match="no evaluation run 77"):
        runs.RunContext(store, 77)


def _lease(store: Store, run: int, owner: str | None, beat: str | None) -> dict[str, object]:
    with store.transaction():
        store.execute("UPDATE eval_runs SET status = 'running', owner = ?, heartbeat_at = ? "
                      "WHERE id = ?", (owner, beat, run))
    return must(store.one("SELECT * FROM eval_runs WHERE id = ?", (run,)))


def test_the_lease(store: Store) -> None:
    run = make_run(store, status="running")
    me, host = runs.owner_id(), socket.gethostname()
    fresh = runs.now()
    # held: a live process here, another host with a fresh heartbeat
    for owner in (f"{host}:{os.getppid()}", "elsewhere:12"):
        row = _lease(store, run, owner, fresh)
        assert not runs.lease_free(row) and runs.held_elsewhere(row)
        assert runs.effective_status(row) == "running"
        with pytest.raises(EvalError, match=f"run {run} is being run by {owner}"):
            runs.take_lease(store, run)
    # free: a dead process here, a stale or unreadable heartbeat, no owner
    free: list[tuple[str | None, str]] = [
        (f"{host}:999999999", fresh), ("elsewhere:12", "2020-01-01T00:00:00.000000Z"),
        ("elsewhere:12", "yesterday"), (None, fresh)]
    for maybe_owner, beat in free:
        row = _lease(store, run, maybe_owner, beat)
        assert runs.lease_free(row) and not runs.held_elsewhere(row)
        assert runs.effective_status(row) == "stopped"
    # our own lease is ours to take again
    row = _lease(store, run, me, fresh)
    assert not runs.lease_free(row) and not runs.held_elsewhere(row)
    runs.take_lease(store, run)
    row = must(store.one("SELECT status, owner FROM eval_runs WHERE id = ?", (run,)))
    assert (row["status"], row["owner"]) == ("running", me)
    assert runs.effective_status({"status": "done"}) == "done"
