"""The references ``generate`` stores do not depend on the machine's load: its Z3 checks are
decided by Z3's resource count (``STEADY_RLIMIT`` units), the wall clock is only a safety net,
and a check the clock stops first says so, never that the formalization is wrong: a rule-made
artifact stays ``generated`` and the next run checks it; a model's is stored ``failed`` with
``decided_by: clock`` and the next run checks the same text again without asking the model.
Nothing here depends on timing: the busy machine is a ``[verify] timeout_s`` of a millisecond,
and Z3 workers stopped with SIGSTOP (they answer nothing however long they are given).
Real GSM8K seeds, real SQLite, real Z3, a real OpenAI-protocol server on loopback."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import Config, load_config
from qcstation.core.construct.pipeline import Pipeline
from qcstation.core.construct.pipeline_records import PENDING_UNDER_LOAD, verify_limits
from qcstation.core.verify.outcome import STEADY_RLIMIT, STEADY_WALL_S, VerifyLimits
from qcstation.core.verify.pool import VerifierPool
from tests.conftest import dataset
from tests.fake_openai import FakeOpenAI

CFG = load_config(None, env={})
TINY = dataclasses.replace(CFG, verify=dataclasses.replace(CFG.verify, timeout_s=0.001))
EASY = "(declare-const answer Int) (assert (= answer (* 3 60))) (check-sat)"
DIMS = ["reasoning", "arithmetic"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from qcstation.core.ingest.importer import import_file

    tmp = tmp_path_factory.mktemp("genload")
    sample = tmp / "gsm8k.jsonl"
    sample.write_text("".join(dataset("gsm8k/test.jsonl").read_text().splitlines(keepends=True)[:12]))
    db = tmp / "template.db"
    with Store(db) as store:
        import_file(store, sample, "gsm8k")
    return db


def _copy(template: Path, tmp_path: Path, name: str) -> Path:
    out = tmp_path / f"{name}.db"
    shutil.copy(template, out)
    return out


def _refs(db: Path) -> list[tuple]:
    """Every current artifact: seed, dimension, status, content, and its check's status and
    message (the elapsed time left out)."""
    out = []
    with Store(db) as s:
        for r in s.query("SELECT seed_id, dimension, status, content, verify_result FROM artifacts "
                         "WHERE status != 'superseded' ORDER BY seed_id, dimension"):
            res = json.loads(r["verify_result"] or "null") or {}
            out.append((r["seed_id"], r["dimension"], r["status"], r["content"],
                        res.get("status"), res.get("message"), res.get("value")))
    return out


@contextmanager
def _stopped_pool() -> Iterator[VerifierPool]:
    """A pool whose one worker is stopped: it answers nothing, as on a machine too busy to run
    it; its wall-clock safety net (0.5 s) kills it and times its job out."""
    limits = VerifyLimits(timeout_s=60.0, wall_s=0.5, rlimit=STEADY_RLIMIT)
    with VerifierPool(workers=1, limits=limits) as pool:
        assert [o.status for o in pool.verify_many([(EASY, "180")])] == ["verified"]  # up, ready
        stopped = pool.worker_pids()
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield pool
        finally:
            for pid in stopped:
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass


def _generate(db: Path, cfg: Config, pool: VerifierPool | None = None, dims: list[str] = DIMS) -> dict:
    with Pipeline(db, cfg) as p:
        if pool is not None:
            p._pool = pool
        try:
            return dict(p.generate(dimensions=dims).counts)
        finally:
            p._pool = None if pool is not None else p._pool


def test_generate_checks_are_decided_by_the_resource_count() -> None:
    limits = verify_limits(CFG)
    assert limits.rlimit == STEADY_RLIMIT and limits.timeout_s >= STEADY_WALL_S
    assert verify_limits(TINY) == limits          # a tiny [verify] timeout_s changes nothing


def test_a_millisecond_of_wall_clock_makes_the_same_references(template: Path, tmp_path: Path) -> None:
    # before: with [verify] timeout_s = 0.001 Z3's own timer refused every rule-made
    # formalization as a timeout, and a loaded machine refused some with 5 s
    quiet, busy = _copy(template, tmp_path, "quiet"), _copy(template, tmp_path, "busy")
    _generate(quiet, CFG)
    _generate(busy, TINY)
    refs = _refs(quiet)
    verified = [r for r in refs if r[2] == "verified"]
    assert len(verified) >= 8 and {r[1] for r in verified} == set(DIMS)
    assert not any(r[4] == "timeout" for r in refs)
    assert _refs(busy) == refs


def test_a_rule_made_check_the_clock_stops_stays_pending_and_the_rerun_checks_it(
        template: Path, tmp_path: Path) -> None:
    quiet, busy = _copy(template, tmp_path, "quiet"), _copy(template, tmp_path, "busy")
    _generate(quiet, CFG, dims=["reasoning"])
    with _stopped_pool() as pool:
        counts = _generate(busy, CFG, pool, dims=["reasoning"])
    assert counts["reasoning"][PENDING_UNDER_LOAD] >= 1
    assert "failed:timeout" not in counts["reasoning"]
    with Store(busy) as s:
        statuses = [r["status"] for r in s.query("SELECT status FROM artifacts WHERE generator LIKE 'rule:%'")]
    # nothing refused for the load: the checks the stopped worker held wait (the pool's fresh
    # worker checks the rest)
    assert statuses.count("generated") == counts["reasoning"][PENDING_UNDER_LOAD]
    assert "failed" not in statuses
    counts = _generate(busy, CFG, dims=["reasoning"])              # the same command again
    assert counts["reasoning"].get(PENDING_UNDER_LOAD, 0) == 0
    assert _refs(busy) == _refs(quiet)


_MODEL_SMT = ("(declare-const a Int)\n(assert (= a 3))\n(declare-const answer Int)\n"
              "(assert (= answer (+ a 4)))\n(check-sat)\n(get-value (answer))")


def test_a_models_check_the_clock_stops_is_stored_as_the_clocks_and_checked_again(
        tmp_path: Path, db_file: Path) -> None:
    from qcstation.core.ingest.importer import import_file

    rows = [{"question": "Tom has 3 apples and buys 4 more. How many now?", "answer": "7", "id": "a"}]
    src = tmp_path / "g.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with Store(db_file) as store:
        import_file(store, src, "jsonl", level="medium")
    with FakeOpenAI(responder=lambda req: "```smt2\n" + _MODEL_SMT + "\n```") as server:
        toml = tmp_path / "qc.toml"
        toml.write_text("[generator]\nmodel = \"fake-model\"\n"
                        f"base_url = \"{server.base_url}\"\nretries = 1\nbackoff_s = 0.01\n"
                        "timeout_s = 60\n[generation]\nmax_attempts = 3\n")
        cfg = load_config(toml, env={})
        with _stopped_pool() as pool:
            counts = _generate(db_file, cfg, pool, dims=["reasoning"])
        asked = len(server.chat_requests)
        with Store(db_file) as s:
            art = s.one("SELECT * FROM artifacts WHERE status != 'superseded'")
        assert art is not None and art["generator"] == "llm"
        res = json.loads(art["verify_result"])
        # stored as the clock's (a hostile script costs one safety limit, never a run), and
        # the model was not asked again for a fault that is not its text's
        assert art["status"] == "failed" and res["status"] == "timeout"
        assert res["decided_by"] == "clock" and "too busy" in res["message"]
        assert asked == 1 and counts["reasoning"].get("failed:attempts_exhausted", 0) == 0
        counts = _generate(db_file, cfg, dims=["reasoning"])          # the same command again
        assert len(server.chat_requests) == asked                     # the same text, checked again
    with Store(db_file) as s:
        again = s.one("SELECT * FROM artifacts WHERE status != 'superseded'")
    assert again is not None and again["id"] == art["id"] and again["status"] == "verified"
