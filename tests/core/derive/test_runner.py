"""A derive run on a real database: what is stored, resuming, two processes at once, kill -9,
the same items whatever the number of workers. Real SQLite, real Z3 (the verifier pool)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.derive.report import set_report
from qcstation.core.derive.runner import plan_processes, run_derive, usable_cpus
from qcstation.core.derive.store import DeriveError
from qcstation.core.derive.transforms import Options
from tests.conftest import ROOT
from tests.core.derive.helpers import make_db, z3_value
from tests.must import must

CFG = load_config(None, env={})
NAMES = ["james", "janet", "jacket", "rug"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("tpl"), NAMES, copies=3)


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    out = tmp_path / "d.db"
    shutil.copy(template, out)
    return out


def _items(db: Path, name: str) -> list[tuple]:
    """What a set holds, independent of seed ids: (orig_id, question, answer, params, dims)."""
    with Store(db) as s:
        return [(r["orig_id"], r["question"], r["answer_value"], r["params"], r["dimensions"])
                for r in s.query("SELECT s.orig_id, s.question, s.answer_value, di.params, "
                                 "di.dimensions FROM derived_items di JOIN seeds s ON s.id = di.seed_id "
                                 "JOIN derive_sets ds ON ds.id = di.set_id WHERE ds.name = ? "
                                 "ORDER BY s.orig_id", (name,))]


def test_variants_are_stored_as_verified_items(db: Path) -> None:
    summary = run_derive(db, CFG, kind="variants", opts=Options(rng_seed=1, variants=4))
    assert summary.made["variant"] == 4 * 12                # 12 parents, 4 variants each
    with Store(db) as s:
        rows = s.query("SELECT s.*, di.parent_id, di.transform, di.family, di.idx, di.dimensions "
                       "FROM derived_items di JOIN seeds s ON s.id = di.seed_id")
        assert {r["status"] for r in rows} == {"derived"}
        for r in rows:
            parent = must(s.one("SELECT * FROM seeds WHERE id = ?", (r["parent_id"],)))
            assert r["orig_id"].startswith(f"{parent['orig_id']}~variants.v")
            assert (r["source"], r["level"]) == (parent["source"], parent["level"])
            arts = {a["dimension"]: a for a in s.query(
                "SELECT * FROM artifacts WHERE seed_id = ?", (r["id"],))}
            assert set(arts) == set(json.loads(r["dimensions"])) == {
                "understanding", "reasoning", "arithmetic", "refinement"}
            assert {a["status"] for a in arts.values()} == {"verified"}
            # the stored answer is the one Z3 gives on the stored formalization
            smt = json.loads(arts["reasoning"]["content"])["smtlib"]
            assert z3_value(smt) == Fraction(r["answer_value"])
            assert json.loads(arts["arithmetic"]["content"])["source_artifact_id"] == arts["reasoning"]["id"]
        # the working set does not see them
        assert s.scalar("SELECT COUNT(*) FROM seeds WHERE status = 'active'") == 12


def test_inverse_refusals_are_recorded_with_their_reason(db: Path) -> None:
    run_derive(db, CFG, kind="inverse", opts=Options(inverse_per_seed=2))
    with Store(db) as s:
        rep = set_report(s, "inverse")
        rug = [json.loads(r["detail"]) for r in s.query(
            "SELECT j.detail FROM derive_jobs j JOIN seeds p ON p.id = j.parent_id "
            "WHERE p.question LIKE 'A square rug%'")]
    # (X - 4)^2 = 4 has X = 6 and X = 2, (6 - X)^2 = 4 has X = 4 and X = 8: the second
    # opinion finds the forward answer is no line in X and refuses both before Z3 is asked
    # (test_transforms checks Z3's own not-unique refusal of the same items)
    assert rug and all({d["code"] for d in detail} == {"recheck-unconfirmed"} for detail in rug)
    for detail in rug:
        assert all("not a line in X" in d["reason"] for d in detail)
    (line,) = rep.lines
    assert (line.parents, line.made_for) == (12, 9)      # the three rugs have no unique inverse
    assert line.reasons == [("recheck-unconfirmed", 3)]


def test_rerun_adds_nothing_and_another_recipe_is_refused(db: Path) -> None:
    run_derive(db, CFG, kind="variants", opts=Options(variants=2))
    before = _items(db, "variants")
    again = run_derive(db, CFG, kind="variants", opts=Options(variants=2))
    assert again.jobs == 0 and _items(db, "variants") == before
    with pytest.raises(DeriveError, match="other settings"):
        run_derive(db, CFG, kind="variants", opts=Options(variants=3))


def test_same_items_in_this_process_or_in_rules_processes(template: Path, tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "c.db"
    for db in (a, b, c):
        shutil.copy(template, db)
    run_derive(a, CFG, kind="counterfactual", opts=Options(rng_seed=5), workers=0)
    run_derive(b, CFG, kind="counterfactual", opts=Options(rng_seed=5), workers=1, z3_workers=1)
    run_derive(c, CFG, kind="counterfactual", opts=Options(rng_seed=5), workers=2, batch=3)
    assert _items(a, "counterfactual") == _items(b, "counterfactual") == _items(c, "counterfactual") != []


def test_a_run_starts_with_small_batches_and_stores_the_same_items(template: Path,
                                                                   tmp_path: Path) -> None:
    """The first batches are small and grow to the run's batch size, so Z3 and storing start
    after a few parents' rules, not a whole batch's; the items are those of one parent a batch."""
    from itertools import islice

    from qcstation.core.derive.runner import BATCH, batch_sizes

    assert list(islice(batch_sizes(64), 7)) == [4, 8, 16, 32, 64, 64, 64]
    assert list(islice(batch_sizes(10), 4)) == [4, 8, 10, 10]
    assert list(islice(batch_sizes(3), 3)) == [3, 3, 3]
    assert list(islice(batch_sizes(1), 2)) == [1, 1]
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    for db in (a, b):
        shutil.copy(template, db)
    stored: list[int] = []
    run_derive(a, CFG, kind="variants", opts=Options(rng_seed=3, variants=2), workers=2,
               z3_workers=1, progress=lambda done, total, msg: stored.append(done))
    assert BATCH > 12 and stored == [4, 12]      # 12 parents: a batch of 4, then one of 8
    run_derive(b, CFG, kind="variants", opts=Options(rng_seed=3, variants=2), workers=0, batch=1)
    assert _items(a, "variants") == _items(b, "variants") != []


def test_the_process_plan_puts_both_stages_on_every_core() -> None:
    # (rules processes, Z3 workers): each not asked for is one per usable core (at most 16),
    # so either stage can use every core while the other waits
    assert plan_processes(None, None, 2) == (2, 2)
    assert plan_processes(None, None, 1) == (1, 1)
    assert plan_processes(None, None, 64) == (16, 16)
    assert plan_processes(0, None, 2) == (0, 2)      # rules in the calling process
    assert plan_processes(1, None, 4) == (1, 4)
    assert plan_processes(3, 0, 2) == (3, 1)         # Z3 keeps one worker at least
    assert plan_processes(1, 3, 2) == (1, 3)         # asked for: as asked
    assert 1 <= usable_cpus() <= (os.cpu_count() or 1)


def test_a_batch_keeps_ids_in_item_order_and_the_kept_counts_right(db: Path) -> None:
    """A batch goes in as one multi-row INSERT per table: the rows get the ids they would get
    one at a time (an item's artifacts in the order Reasoning, Understanding, R&R,
    Arithmetic, right after the artifacts of the item before), and the counts the triggers
    keep equal a recount."""
    from qcstation.core.release.releases import candidate_counts, candidate_counts_from_scratch
    from qcstation.core.review.audit import FLAG_COUNTS_SQL
    from qcstation.core.review.queries import (current_counts, current_counts_from_scratch,
                                               flag_count_rows, seed_count_rows,
                                               seed_count_rows_from_scratch)

    run_derive(db, CFG, kind="ladder", opts=Options(rng_seed=4), batch=5)
    run_derive(db, CFG, kind="variants", opts=Options(rng_seed=4, variants=2), batch=5)
    order = ("reasoning", "understanding", "refinement", "arithmetic")
    with Store(db) as s:
        rows = s.query("SELECT di.seed_id, j.id AS job FROM derived_items di JOIN derive_jobs j "
                       "ON j.set_id = di.set_id AND j.parent_id = di.parent_id "
                       "ORDER BY j.id, di.seed_id")
        assert len(rows) > 40
        arts = s.query("SELECT id, seed_id, dimension, content FROM artifacts WHERE seed_id IN "
                       "(SELECT seed_id FROM derived_items) ORDER BY id")
        # seeds in the order their jobs were stored, one after the other, and their
        # artifacts in the same order
        by_seed: dict[int, list[dict]] = {}
        for a in arts:
            by_seed.setdefault(a["seed_id"], []).append(a)
        first = rows[0]["seed_id"]
        assert [r["seed_id"] for r in rows] == list(range(first, first + len(rows))) == list(by_seed)
        assert [a["id"] for a in arts] == list(range(arts[0]["id"], arts[0]["id"] + len(arts)))
        for seed_arts in by_seed.values():
            dims = [a["dimension"] for a in seed_arts]
            assert dims == [d for d in order if d in dims]
            ids = {a["dimension"]: a["id"] for a in seed_arts}
            if "reasoning" in ids and "arithmetic" in ids:
                arith = next(a for a in seed_arts if a["dimension"] == "arithmetic")
                assert json.loads(arith["content"])["source_artifact_id"] == ids["reasoning"]
        for dim in order:
            assert current_counts(s, dim) == current_counts_from_scratch(s, dim), dim
            assert flag_count_rows(s, dim) == s.query(FLAG_COUNTS_SQL, {"dim": dim}), dim
        assert seed_count_rows(s) == seed_count_rows_from_scratch(s)
        assert candidate_counts(s) == candidate_counts_from_scratch(s)


def _built_variants(s: Store, name: str, n: int, **set_kw: Any) -> tuple[Any, list[Any]]:
    """A variants set ``name`` (2 per parent) opened, ``n`` of its jobs claimed and built as a
    rules worker builds them: the set and the jobs' outcomes, not stored yet."""
    from qcstation.core.derive.runner import build_job, recipe_for
    from qcstation.core.derive.store import JobOutcome, claim, enqueue, open_set, parent_rows

    opts = Options(variants=2)
    info = open_set(s, name, "variants", recipe_for("variants", opts, None, None), "me", **set_kw)
    enqueue(s, info)
    jobs = claim(s, info.id, n)
    outs = []
    for job, (seed, arts) in zip(jobs, parent_rows(s, jobs)):
        items, refused, reason = build_job("variants", opts, name, seed, arts, None)
        outs.append(JobOutcome(int(job["id"]), seed, items, refused, reason))
    return info, outs


def test_a_job_finished_elsewhere_or_twice_in_a_batch_is_stored_once(db: Path) -> None:
    from qcstation.core.derive.stale import rules_fingerprint
    from qcstation.core.derive.store import write_batch

    with Store(db) as s:
        info, outs = _built_variants(s, "v", 3, rules=rules_fingerprint())
        assert all(o.items for o in outs)
        # another process finished the second job meanwhile
        s.execute("UPDATE derive_jobs SET status = 'done', owner = NULL WHERE id = ?", (outs[1].job_id,))
        stored, finished = write_batch(s, info, [outs[0], outs[1], outs[2], outs[0]], {})
        assert (stored, finished) == (len(outs[0].items) + len(outs[2].items), 2)
        made = s.query("SELECT j.id, COUNT(di.seed_id) AS n FROM derive_jobs j LEFT JOIN derived_items "
                       "di ON di.set_id = j.set_id AND di.parent_id = j.parent_id WHERE j.id IN "
                       "(?, ?, ?) GROUP BY j.id ORDER BY j.id", [o.job_id for o in outs])
        assert [r["n"] for r in made] == [len(outs[0].items), 0, len(outs[2].items)]
        assert s.scalar("SELECT COUNT(*) FROM seeds WHERE status = 'derived'") == stored


def test_a_question_another_parent_of_the_set_asks_is_refused_as_repeated(db: Path) -> None:
    """Two parents can give one question (GSM8K 1105 and 1164, both "a x b x c" in notation,
    drew 2, 9, 8 at one digit): the second is refused as repeated, in the batch that stores
    the first and in any later batch; the jobs' counts and the summary say so."""
    import dataclasses

    from qcstation.core.derive.store import write_batch

    with Store(db) as s:
        info, outs = _built_variants(s, "rep", 3)
        assert [len(o.items) for o in outs] == [2, 2, 2]
        first = outs[0].items[0]
        # the second parent's first variant asks the first's question; the third's, in a later
        # batch, the first parent's second variant
        outs[1].items[0] = dataclasses.replace(outs[1].items[0], question=first.question,
                                               answer_text=first.answer_text)
        outs[2].items[1] = dataclasses.replace(outs[2].items[1], question=outs[0].items[1].question,
                                               answer_text=outs[0].items[1].answer_text)
        refused_before = [len(o.refused) for o in outs]
        stored, _ = write_batch(s, info, outs[:2], {})
        stored2, _ = write_batch(s, info, outs[2:], {})
        assert (stored, stored2) == (3, 1)
        for o, n in zip(outs, refused_before):
            assert len(o.items) == (2 if o is outs[0] else 1)
            assert len(o.refused) == n + (0 if o is outs[0] else 1)
        rep = outs[1].refused[-1]
        assert (rep.transform, rep.code) == ("variant", "repeated")
        assert f"{outs[0].parent['orig_id']}~rep.v1" in rep.reason, rep.reason
        assert "~rep.v2" in outs[2].refused[-1].reason
        rows = s.query("SELECT made, refused, detail FROM derive_jobs WHERE id IN (?, ?, ?) "
                       "ORDER BY id", [o.job_id for o in outs])
        assert [r["made"] for r in rows] == [2, 1, 1]
        assert [r["refused"] for r in rows] == [n + (i > 0) for i, n in enumerate(refused_before)]
        assert '"repeated"' in rows[1]["detail"] and '"repeated"' in rows[2]["detail"]
        asked = s.query("SELECT s.question, COUNT(*) AS n FROM seeds s JOIN derived_items d "
                        "ON d.seed_id = s.id WHERE d.set_id = ? GROUP BY s.question", (info.id,))
        assert len(asked) == 4 and all(r["n"] == 1 for r in asked)


def test_contents_encoded_by_the_worker_are_stored_as_the_dicts_would_be(template: Path,
                                                                         tmp_path: Path) -> None:
    """A worker sends its items' contents as the JSON they are stored as (encode_contents);
    what is stored is what the contents' dicts give, Arithmetic's link to Reasoning included."""
    import copy

    from qcstation.core.derive.store import encode_contents, write_batch

    stored = []
    for encode in (False, True):
        db = tmp_path / f"e{encode}.db"
        shutil.copy(template, db)
        with Store(db) as s:
            info, outs = _built_variants(s, "v", 4)
            for out in outs:
                out.items[:] = copy.deepcopy(out.items)
                if encode:
                    for item in out.items:
                        encode_contents(item)
                        assert set(item.stored) == {"reasoning", "understanding", "refinement"}
                        assert list(item.contents) == ["arithmetic"]
            write_batch(s, info, outs, {})
            stored.append(s.query("SELECT a.id, s.orig_id, a.dimension, a.content, a.flags, "
                                  "di.dimensions FROM artifacts a JOIN seeds s ON s.id = a.seed_id "
                                  "JOIN derived_items di ON di.seed_id = s.id ORDER BY a.id"))
    assert stored[0] == stored[1] and len(stored[0]) == 4 * 4 * 2


# The real command, whose main thread stops for good once it has stored ``hold_after`` batches
# (each in its own transaction, as ever): the kill -9 then lands mid-run however slow the
# machine is (a run polled for its progress could end between two looks).
_HELD = """import sys, time
import qcstation.core.derive.runner as runner
from qcstation.cli import main
real, stored = runner.write_batch, []
def write_batch(*args, **kwargs):
    out = real(*args, **kwargs)
    stored.append(1)
    if len(stored) >= {hold_after}:
        time.sleep(3600)    # the test kills the process here
    return out
runner.write_batch = write_batch
raise SystemExit(main())
"""


def _cli(db: Path, *args: str, hold_after: int | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = ["-m", "qcstation"] if hold_after is None else ["-c", _HELD.format(hold_after=hold_after)]
    return subprocess.Popen([sys.executable, *start, "--db", str(db), "derive", *args,
                             "--quiet"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_processes_build_one_set_without_duplicates(template: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    shutil.copy(template, one)
    shutil.copy(template, two)
    run_derive(one, CFG, kind="variants", opts=Options(variants=3, rng_seed=2))
    procs = [_cli(two, "variants", "--per-seed", "3", "--seed", "2", "--batch", "2") for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert _items(two, "variants") == _items(one, "variants")


@pytest.mark.slow
def test_kill_9_then_resume_loses_and_duplicates_nothing(template: Path, tmp_path: Path) -> None:
    clean, killed = tmp_path / "clean.db", tmp_path / "killed.db"
    shutil.copy(template, clean)
    shutil.copy(template, killed)
    run_derive(clean, CFG, kind="ladder", opts=Options(rng_seed=3))
    proc = _cli(killed, "ladder", "--seed", "3", "--batch", "1", hold_after=3)
    deadline = time.monotonic() + 300
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with Store(killed) as s:
                done = int(s.scalar("SELECT COUNT(*) FROM derive_jobs WHERE status != 'pending'") or 0)
        except Exception:
            done = 0
        if done >= 3:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    proc.wait(timeout=300)
    assert done >= 3
    with Store(killed) as s:
        assert s.scalar("SELECT COUNT(*) FROM derive_jobs WHERE status = 'pending'") > 0
    resumed = _cli(killed, "ladder", "--seed", "3")
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert _items(killed, "ladder") == _items(clean, "ladder")


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux: /proc/PID/task/TID/children)."""
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    kids = {int(x) for x in f.read().split()}
            except OSError:
                continue
            todo += list(kids - out)
            out |= kids
    return out


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from /proc")
def test_the_process_plan_killed_mid_run_leaves_no_process_and_resumes(template: Path,
                                                                        tmp_path: Path) -> None:
    """Two rules workers and two Z3 workers, real processes: kill -9 the run's main process
    once it has stored some parents; every worker ends with it (none waits for work forever),
    and a resumed run, planned otherwise, stores exactly what an uninterrupted one does."""
    clean, killed = tmp_path / "clean.db", tmp_path / "killed.db"
    shutil.copy(template, clean)
    shutil.copy(template, killed)
    run_derive(clean, CFG, kind="variants", opts=Options(variants=3, rng_seed=4), workers=0)
    proc = _cli(killed, "variants", "--per-seed", "3", "--seed", "4", "--batch", "1",
                "--workers", "2", "--z3-workers", "2", hold_after=2)
    deadline = time.monotonic() + 300
    done, tree = 0, set()
    while time.monotonic() < deadline and proc.poll() is None:
        tree |= _descendants(proc.pid)
        try:
            with Store(killed) as s:
                done = int(s.scalar("SELECT COUNT(*) FROM derive_jobs WHERE status != 'pending'") or 0)
        except Exception:
            done = 0
        if done >= 2 and len(tree) >= 5:   # fork server, 2 rules workers, 2 Z3 workers at least
            tree |= _descendants(proc.pid)
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    proc.wait(timeout=300)
    assert done >= 2 and len(tree) >= 5, (done, tree)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and any(_running(p) for p in tree):
        time.sleep(0.1)
    assert not [p for p in tree if _running(p)], "a worker outlived the killed run"
    with Store(killed) as s:
        assert s.scalar("SELECT COUNT(*) FROM derive_jobs WHERE status = 'pending'") > 0
    resumed = _cli(killed, "variants", "--per-seed", "3", "--seed", "4", "--workers", "1",
                   "--z3-workers", "1")
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert _items(killed, "variants") == _items(clean, "variants") != []
