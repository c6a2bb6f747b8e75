"""The counts the database keeps as rows are written (migration 10: ``artifact_counts``,
``qc_gate_seeds``/``qc_gate_counts``) equal a recomputation from scratch: after random
sequences of the operations people do (draw, decide, undo, change, override, regenerate,
requeue, extend, re-draw, fresh round, late correction, exclusion, filtering, new seeds,
re-verification, re-audit), after several processes decide at once, and after an old
database is migrated. Real SQLite, real Z3 (the late correction re-verifies)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from db import Store
from db.migrations import SCHEMA_VERSION
from db.store import now
from qcstation.common.errors import ReviewError
from qcstation.common.vocab import DIMENSIONS
from qcstation.core.release.releases import candidate_counts, candidate_counts_from_scratch
from qcstation.core.review.team import team_people, team_people_from_scratch
from qcstation.core.review.audit import FLAG_COUNTS_SQL
from qcstation.core.review.curation import (disagreed_items, exclude_seed, fresh_round, override,
                                            queue)
from qcstation.core.review.decisions import change_decision, decide, next_item, undo_last
from qcstation.core.review.fixes import fix_in_place
from qcstation.core.review.gate import (gate, gate_rows, gate_rows_from_scratch, progress,
                                        progress_from_scratch)
from qcstation.core.review.queries import (current_counts, current_counts_from_scratch,
                                           flag_count_rows, seed_count_rows,
                                           seed_count_rows_from_scratch)
from qcstation.core.review.sampling import (close_sample, draw_sample, extend_sample, get_sample,
                                            open_sample, pending_requeues,
                                            requeue_replacements)
from tests import factories as f
from tests.must import must

CURATORS = ("lead",)
QC_DIMS = ("arithmetic", "understanding")
PEOPLE = ("ann", "bob", "lead")


def _gate_view(rows: list[dict[str, Any]]) -> tuple[Any, ...]:
    summary = next(r for r in rows if r["kind"] == "summary")
    taken = {(r["k1"], r["k2"]): int(r["n"]) for r in rows if r["kind"] == "taken" and r["n"]}
    reject = {(r["k1"], int(r["k2"])): int(r["n"]) for r in rows
              if r["kind"] == "reject" and r["n"]}
    return (int(summary["a"]), int(summary["b"]), int(summary["c"])), taken, reject


def assert_kept_counts_right(store: Store) -> None:
    for dim in DIMENSIONS:
        assert current_counts(store, dim) == current_counts_from_scratch(store, dim), dim
        assert flag_count_rows(store, dim) == store.query(FLAG_COUNTS_SQL, {"dim": dim}), dim
        assert flag_count_rows(store, dim, working_set=True) == store.query(
            FLAG_COUNTS_SQL.replace("GROUP BY sd.source", "WHERE c.seed_id NOT IN "
                                    "(SELECT seed_id FROM derived_items) GROUP BY sd.source"),
            {"dim": dim}), dim
        for scope in ("",):
            kept, scratch = gate_rows(store, dim, scope), gate_rows_from_scratch(store, dim, scope)
            assert _gate_view(kept) == _gate_view(scratch), (dim, scope)
    assert seed_count_rows(store) == seed_count_rows_from_scratch(store)
    assert team_people(store) == team_people_from_scratch(store)
    # the items with an active reject and an active accept (migration 23)
    assert disagreed_items(store) == disagreed_items(store, from_scratch=True)
    assert candidate_counts(store) == candidate_counts_from_scratch(store)
    for sample_id in [r["id"] for r in store.query("SELECT id FROM samples")]:
        assert progress(store, sample_id) == progress_from_scratch(store, sample_id), sample_id
        # a sample's size (the dashboard's, qc status's) is its kept total
        assert get_sample(store, sample_id).size == store.scalar(
            "SELECT COUNT(*) FROM sample_items WHERE sample_id = ?", (sample_id,)), sample_id
    # every kept per-seed row is a seed with sample items; no count is left below zero
    assert store.scalar("SELECT COUNT(*) FROM qc_gate_counts WHERE n < 0") == 0
    assert store.scalar("SELECT COUNT(*) FROM artifact_counts WHERE n < 0") == 0
    assert store.scalar("SELECT COUNT(*) FROM review_counts WHERE n < 0") == 0
    # the replacements to requeue, found through migration 13's partial index, are the ones
    # a read of every rejected item finds
    assert pending_requeues(store) == pending_requeues(store, from_scratch=True)


# -- the operations -----------------------------------------------------------------------

def _decide(store: Store, rng: random.Random) -> None:
    who = rng.choice(PEOPLE[:2])
    item = next_item(store, who, rng.choice(QC_DIMS))
    if item is not None:
        verdict = rng.choice(("accept", "accept", "reject", "skip"))
        # the team panel counts unsure flags and the names shown beside the account
        decide(store, item.item_id, who, verdict, None if verdict != "reject" else "wrong",
               unsure=rng.random() < 0.2, display=rng.choice((None, None, who.title())))


def _change(store: Store, rng: random.Random) -> None:
    r = store.one("SELECT id, annotator, verdict FROM reviews WHERE undone_at IS NULL "
                  "AND verdict IN ('accept', 'reject') ORDER BY random() LIMIT 1")
    if r is not None:
        new = "accept" if r["verdict"] == "reject" else "reject"
        change_decision(store, int(r["id"]), r["annotator"], new, "on second reading")


def _override(store: Store, rng: random.Random) -> None:
    r = store.one("SELECT sample_item_id FROM reviews WHERE undone_at IS NULL "
                  "AND verdict IN ('accept', 'reject') ORDER BY random() LIMIT 1")
    if r is not None:
        override(store, int(r["sample_item_id"]), verdict=rng.choice(("accept", "reject")),
                 reason="curator's reading", actor="lead", curators=CURATORS)


def _regenerate(store: Store, rng: random.Random) -> None:
    r = store.one("SELECT id FROM artifacts a WHERE status = 'rejected' AND version = (SELECT "
                  "MAX(version) FROM artifacts b WHERE b.seed_id = a.seed_id AND b.dimension = "
                  "a.dimension) ORDER BY random() LIMIT 1")
    if r is not None:
        f.regenerate(store, int(r["id"]), status=rng.choice(("verified", "verified", "failed",
                                                             "generated")),
                     supersede=rng.random() < 0.7)


def _verify(store: Store, rng: random.Random) -> None:
    store.execute("UPDATE artifacts SET status = 'verified', updated_at = ? WHERE id = "
                  "(SELECT id FROM artifacts WHERE status = 'generated' ORDER BY random() LIMIT 1)",
                  (now(),))


def _requeue(store: Store, rng: random.Random) -> None:
    requeue_replacements(store, "lead")


def _draw(store: Store, rng: random.Random) -> None:
    dim = rng.choice(QC_DIMS)
    draw_sample(store, dim, rate=0.3, rng_seed=rng.randrange(100), actor="lead", min_size=3,
                overlap_rate=0.2, redraw=rng.random() < 0.3, curators=CURATORS)


def _extend(store: Store, rng: random.Random) -> None:
    s = open_sample(store, rng.choice(QC_DIMS))
    if s is not None:
        extend_sample(store, s.id, extra=rng.randint(1, 3), actor="lead", curators=CURATORS)


def _close(store: Store, rng: random.Random) -> None:
    s = open_sample(store, rng.choice(QC_DIMS))
    if s is not None:
        close_sample(store, s.id, actor="lead", status=rng.choice(("failed", "superseded")))


def _fresh(store: Store, rng: random.Random) -> None:
    fresh_round(store, rng.choice(QC_DIMS), actor="lead", curators=CURATORS, rate=0.3,
                rng_seed=rng.randrange(100), threshold=0.05, confidence=0.95)


def _late_correction(store: Store, rng: random.Random) -> None:
    r = store.one("SELECT si.id, sd.orig_id FROM sample_items si JOIN samples s ON s.id = "
                  "si.sample_id JOIN artifacts a ON a.id = si.artifact_id JOIN seeds sd ON "
                  "sd.id = si.seed_id WHERE s.dimension = 'arithmetic' AND a.status IN "
                  "('accepted', 'verified') ORDER BY random() LIMIT 1")
    if r is not None:
        p = f.problem(int(str(r["orig_id"]).rsplit("-", 1)[1]))
        fix_in_place(store, int(r["id"]), f"Given a = {p['a']}, b = {p['b']} and c = {p['c']}, "
                     f"let t = a + b and answer = t × c. Find answer.", actor="lead",
                     reason="the question hid a step", curators=CURATORS)


def _exclude(store: Store, rng: random.Random) -> None:
    r = store.one("SELECT seed_id FROM sample_items ORDER BY random() LIMIT 1")
    if r is not None:
        exclude_seed(store, int(r["seed_id"]), actor="lead", reason="cannot be fixed",
                     curators=CURATORS)


def _filter_or_restore(store: Store, rng: random.Random) -> None:
    status = rng.choice(("filtered", "active"))
    store.execute("UPDATE seeds SET status = ? WHERE id = (SELECT id FROM seeds "
                  "ORDER BY random() LIMIT 1)", (status,))


def _new_seeds(store: Store, rng: random.Random) -> None:
    start = int(store.scalar("SELECT COUNT(*) FROM seeds")) + 1000
    f.populate(store, {rng.choice(("gsm8k", "mawps")): rng.randint(1, 4)}, start=start)


def _reaudit(store: Store, rng: random.Random) -> None:
    codes = rng.choice(("", "uncertain:1", "value-leak:1 uncertain:2", None))
    store.execute("UPDATE artifacts SET flag_codes = ?, audit_version = ? WHERE id = "
                  "(SELECT id FROM artifacts ORDER BY random() LIMIT 1)",
                  (codes, None if codes is None else rng.choice((1, 2))))


def _attempt(store: Store, rng: random.Random) -> None:
    """What the generation loop records: an attempt per item, some saying a model is needed
    (a later artifact, or a later attempt, takes precedence)."""
    seed = store.one("SELECT id FROM seeds ORDER BY random() LIMIT 1")
    if seed is not None:
        store.insert("attempts", {
            "seed_id": int(seed["id"]), "dimension": rng.choice(DIMENSIONS), "attempt_no": 1,
            "generator": "rule:test", "verify_status": rng.choice(("needs_model", "verified")),
            "started_at": now()})


def _filter_reason(store: Store, rng: random.Random) -> None:
    store.execute("UPDATE seeds SET status = 'filtered', filter_reason = ? WHERE id = (SELECT id "
                  "FROM seeds ORDER BY random() LIMIT 1)", (rng.choice((None, "", "too long")),))


def _drop_artifacts(store: Store, rng: random.Random) -> None:
    """Artifacts of one seed set aside (superseded with nothing newer): its items need a model
    again if the latest attempt says so."""
    store.execute("UPDATE artifacts SET status = 'superseded' WHERE seed_id = (SELECT seed_id FROM "
                  "attempts ORDER BY random() LIMIT 1)")


OPERATIONS = [(_attempt, 3), (_filter_reason, 1), (_drop_artifacts, 1),(_decide, 12), (_change, 2), (_override, 2), (_regenerate, 3), (_verify, 2),
              (_requeue, 2), (_draw, 2), (_extend, 2), (_close, 1), (_fresh, 1),
              (_late_correction, 3), (_exclude, 1), (_filter_or_restore, 1), (_new_seeds, 1),
              (_reaudit, 1), (lambda s, r: undo_last(s, r.choice(PEOPLE)), 2)]


@pytest.mark.parametrize("rng_seed", [1, 2, 3])
def test_kept_counts_equal_a_recount_after_random_operations(store: Store, rng_seed: int) -> None:
    rng = random.Random(rng_seed)
    # the operations pick rows with SQL's random(): drawn from the same seeded generator, so a
    # run is the same sequence every time (SQLite's own random() made the check below that the
    # hard cases ran fail on some runs: no late correction ever found an item to correct)
    sql_rng = random.Random(rng_seed)
    store.conn.create_function("random", 0, lambda: sql_rng.getrandbits(63) - 2 ** 62)
    f.populate(store, {"gsm8k": 24, "mawps": 10})
    for dim in QC_DIMS:
        draw_sample(store, dim, rate=0.4, rng_seed=rng_seed, actor="lead", overlap_rate=0.2)
    assert_kept_counts_right(store)
    ops, weights = zip(*OPERATIONS)
    done: dict[str, int] = {}
    for _ in range(160):
        op = rng.choices(ops, weights)[0]
        try:
            op(store, rng)
            done[getattr(op, "__name__", "undo")] = done.get(getattr(op, "__name__", "undo"), 0) + 1
        except ReviewError:
            pass  # refused (nothing open, not allowed now): nothing was written
        assert_kept_counts_right(store)
    # the sequence really exercised the hard cases
    assert {"_decide", "_regenerate", "_draw", "_late_correction"} <= set(done)
    _assert_disagreed_queue_right(store)   # (seeds 1 and 2 decide some items both ways)


def _assert_disagreed_queue_right(store: Store) -> None:
    """The queue's disagreed rows (found from the kept items) are the rows of the whole queue
    whose state is disagreed."""
    every = queue(store, limit=10**6)
    assert ([r.item_id for r in queue(store, state="disagreed", limit=10**6)]
            == [r.item_id for r in every if r.state == "disagreed"])


def test_a_fresh_round_restarts_the_kept_count(store: Store) -> None:
    f.populate(store, {"gsm8k": 80})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=3, actor="lead")
    n = 0
    while (item := next_item(store, "ann", "arithmetic")) is not None:
        decide(store, item.item_id, "ann", "reject" if n < 2 else "accept", "wrong" if n < 2 else None)
        n += 1
    for r in store.query("SELECT id FROM artifacts WHERE status = 'rejected'"):
        f.regenerate(store, int(r["id"]))
    requeue_replacements(store, "lead")
    while (item := next_item(store, "bob", "arithmetic")) is not None:
        decide(store, item.item_id, "bob", "accept")
    assert_kept_counts_right(store)
    assert gate(store, "arithmetic", threshold=0.05).defects == 2
    fresh_round(store, "arithmetic", actor="lead", curators=CURATORS, rate=0.5, rng_seed=4,
                threshold=0.05, confidence=0.95)
    assert_kept_counts_right(store)
    g = gate(store, "arithmetic", threshold=0.05, confidence=0.95)
    assert (g.reviewed, g.defects, g.open_rejects) == (0, 0, 0) and g.pending > 0


@pytest.mark.parametrize("status", ["verified", "failed", "generated", "accepted"])
def test_replacements_to_requeue_are_found_whatever_the_new_version_is(
        store: Store, status: str) -> None:
    # rejected versions regenerated without the generation loop superseding them: the new
    # version in each status the partial index holds; an accepted one got there by review
    # after requeueing (which superseded the rejected version), and leaves the index
    f.populate(store, {"gsm8k": 12})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=3, actor="lead")
    for _n in range(4):
        item = next_item(store, "ann", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "ann", "reject", "wrong")
    rejected = [int(r["id"]) for r in store.query(
        "SELECT id FROM artifacts WHERE status = 'rejected' ORDER BY id")]
    made = "verified" if status == "accepted" else status
    for n, aid in enumerate(rejected):
        new = f.regenerate(store, aid, status=made, supersede=n % 2 == 0)
        if n == 3:  # a third version on top of the second
            f.regenerate(store, new, status=made, supersede=False)
    if status == "accepted":
        assert requeue_replacements(store, "lead") == 4
        while (item := next_item(store, "bob", "arithmetic")) is not None:
            decide(store, item.item_id, "bob", "accept")
        assert store.scalar("SELECT COUNT(*) FROM artifacts WHERE version > 1 AND status = "
                            "'accepted'") == 4
    kept, scratch = pending_requeues(store), pending_requeues(store, from_scratch=True)
    assert kept == scratch
    assert len(scratch) == {"verified": 4, "accepted": 0}.get(status, 2)
    requeue_replacements(store, "lead")
    assert pending_requeues(store) == pending_requeues(store, from_scratch=True) == []
    assert_kept_counts_right(store)


@pytest.mark.slow
def test_kept_counts_stay_right_when_four_processes_decide_at_once(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with Store(db) as s:
        f.populate(s, {"gsm8k": 40, "mawps": 20})
        draw_sample(s, "arithmetic", rate=1.0, rng_seed=3, actor="lead")
    got = f.run_at_once(f.review_worker, [(str(db), f"ann{n}", "arithmetic") for n in range(4)], after=(0.0,))
    assert [e for _, _, _, errs in got for e in errs] == []
    with Store(db) as s:
        assert_kept_counts_right(s)
        g = gate(s, "arithmetic", threshold=0.05, confidence=0.95)
        assert (g.reviewed, g.pending) == (60, 0)


def test_an_old_database_gets_its_counts_when_migrated(db_file: Path) -> None:
    with Store(db_file) as s:
        f.populate(s, {"gsm8k": 30, "mawps": 12})
        for n in range(6):
            _attempt(s, random.Random(n))
        s.execute("UPDATE seeds SET status = 'filtered', filter_reason = 'too long' WHERE id < 4")
        kept = seed_count_rows(s)
        draw_sample(s, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
        n = 0
        while (item := next_item(s, "ann", "arithmetic")) is not None:
            decide(s, item.item_id, "ann", "reject" if n % 4 == 0 else "accept", "wrong")
            n += 1
        expected = {dim: (current_counts(s, dim), _gate_view(gate_rows(s, dim)))
                    for dim in QC_DIMS}
        sample_progress = progress(s, 1)
        releasable = candidate_counts(s)
        # the database as migration 9 left it: no kept counts, no triggers
        assert len(f.rewind_to(s, db_file, 9)) > 30
    with Store(db_file) as s:
        assert s.schema_version == SCHEMA_VERSION
        assert_kept_counts_right(s)
        assert {dim: (current_counts(s, dim), _gate_view(gate_rows(s, dim)))
                for dim in QC_DIMS} == expected
        assert expected["arithmetic"][1][0][0] > 0   # decisions were there to count
        assert seed_count_rows(s) == kept and kept["filtered"] and kept["attempts"]
        assert progress(s, 1) == sample_progress and sample_progress.reviewed > 0
        assert candidate_counts(s) == releasable and releasable[0] > 0


def test_an_old_database_gets_its_disagreed_items_when_migrated(db_file: Path) -> None:
    """Migration 23 finds the items decided both ways before it; its triggers keep them."""
    with Store(db_file) as s:
        f.populate(s, {"gsm8k": 30})
        draw_sample(s, "arithmetic", rate=0.5, rng_seed=1, actor="lead", overlap_rate=1.0)
        for who, reject_every in (("ann", 3), ("bob", 2)):
            n = 0
            while (item := next_item(s, who, "arithmetic")) is not None:
                verdict = "reject" if n % reject_every == 0 else "accept"
                decide(s, item.item_id, who, verdict, "wrong" if verdict == "reject" else None)
                n += 1
        expected = disagreed_items(s, from_scratch=True)
        # migration 23's objects are dropped (later migrations' objects go too: 24 made
        # eval_score_batch, which this test does not concern)
        assert sorted(x for x in f.rewind_to(s, db_file, 22) if x[0].startswith("review_")) == [
            ("review_disagreed", "table"), ("review_disagreed_del", "trigger"),
            ("review_disagreed_ins", "trigger"), ("review_disagreed_upd", "trigger")]
    with Store(db_file) as s:
        assert s.schema_version == SCHEMA_VERSION
        assert disagreed_items(s) == expected and expected
        _assert_disagreed_queue_right(s)
        # a decision undone and one changed after the migration: the triggers keep them
        first = expected[0]
        r = must(s.one("SELECT id, annotator, verdict FROM reviews WHERE sample_item_id = ? "
                       "AND undone_at IS NULL AND verdict = 'reject'", (first,)))
        change_decision(s, int(r["id"]), r["annotator"], "accept", "on second reading")
        assert first not in disagreed_items(s)
        assert disagreed_items(s) == disagreed_items(s, from_scratch=True)
        # changed back: disagreed again; the last decision undone: not any more
        r = must(s.one("SELECT id, annotator FROM reviews WHERE sample_item_id = ? AND "
                       "undone_at IS NULL AND annotator = ?", (first, r["annotator"])))
        change_decision(s, int(r["id"]), r["annotator"], "reject", "wrong after all")
        assert first in disagreed_items(s)
        last = must(s.one("SELECT annotator, sample_item_id FROM reviews WHERE undone_at IS "
                          "NULL ORDER BY id DESC LIMIT 1"))
        undo_last(s, last["annotator"])
        assert disagreed_items(s) == disagreed_items(s, from_scratch=True)
        assert int(last["sample_item_id"]) not in disagreed_items(s)
        _assert_disagreed_queue_right(s)
