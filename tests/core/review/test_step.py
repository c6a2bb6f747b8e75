"""The review step (qcstation/core/review/step.py): each key of the review journey as one
verb with a typed outcome, on real SQLite: decide and the next item, a decision that finds
its item moved on (an outcome, not an error), undo, looking back, finishing."""

from __future__ import annotations

import pytest

from db import Store
from qcstation.common.errors import ItemMovedOn, ReviewError
from qcstation.core.review.sampling import draw_sample, open_sample
from qcstation.core.review.step import (
    Undone,
    decide_item,
    decide_named,
    decide_step,
    look_at,
    move_on,
    next_step,
    undo_step,
)
from tests import factories as f
from tests.must import must


def _sample(store: Store, n: int = 10) -> int:
    f.populate(store, {"gsm8k": n})
    return draw_sample(store, "arithmetic", rate=0.5, rng_seed=3, actor="lead", min_size=3).id


def test_decide_then_the_next_item_with_its_progress(store: Store) -> None:
    sample_id = _sample(store)
    first = next_step(store, "ann", "arithmetic")
    assert first.item is not None and first.editable and first.current and not first.finished
    assert first.decided is None and first.progress is not None and first.progress.reviewed == 0
    step = decide_step(store, "ann", "arithmetic", first.item.item_id, "accept")
    assert step.decided is not None and step.decided.saved and step.decided.review_id
    assert (step.decided.item_id, step.decided.verdict) == (first.item.item_id, "accept")
    assert step.item is not None and step.item.item_id != first.item.item_id
    assert step.item.claimed_by == "ann" and step.progress is not None
    assert step.progress.reviewed == 1 and step.item.sample_id == sample_id


def test_a_decision_on_an_item_that_moved_on_is_an_outcome_not_an_error(store: Store) -> None:
    _sample(store)
    mine = next_step(store, "ann", "arithmetic").item
    assert mine is not None
    # ann's claim expires and bob decides the item meanwhile
    store.execute("UPDATE sample_items SET claimed_at = '2000-01-01T00:00:00.000000Z' "
                  "WHERE id = ?", (mine.item_id,))
    bob = next_step(store, "bob", "arithmetic").item
    assert bob is not None and bob.item_id == mine.item_id
    decide_item(store, bob.item_id, "bob", "accept")
    step = decide_step(store, "ann", "arithmetic", mine.item_id, "reject", "changes the answer")
    assert step.decided is not None and not step.decided.saved
    assert isinstance(step.decided.moved_on, ItemMovedOn)
    assert "already decided by bob" in str(step.decided.moved_on)
    assert step.item is not None and step.item.item_id != mine.item_id   # moved on by itself
    assert must(store.one("SELECT COUNT(*) AS n FROM reviews WHERE annotator = 'ann'"))["n"] == 0


def test_other_refusals_are_still_errors(store: Store) -> None:
    _sample(store)
    item = next_step(store, "ann", "arithmetic").item
    assert item is not None
    with pytest.raises(ReviewError, match="needs a reason") as err:
        decide_step(store, "ann", "arithmetic", item.item_id, "reject")
    assert not isinstance(err.value, ItemMovedOn)


def test_undo_look_back_move_on_and_finish(store: Store) -> None:
    _sample(store, 6)
    first = next_step(store, "ann", "arithmetic").item
    assert first is not None
    after = decide_step(store, "ann", "arithmetic", first.item_id, "accept")
    back = look_at(store, "ann", first.item_id)            # decided: read-only
    assert back.item is not None and not back.editable and not back.current
    undone = undo_step(store, "ann", "arithmetic")
    assert undone.undone == Undone(first.item_id) and undone.item is not None
    assert undone.item.item_id == first.item_id and undone.editable
    assert after.item is not None
    skipped = move_on(store, "ann", "arithmetic", first.item_id)
    assert skipped.item is not None and skipped.item.item_id != first.item_id
    step = skipped
    while step.item is not None:
        step = decide_step(store, "ann", "arithmetic", step.item.item_id, "accept")
    assert step.finished and step.dimension == "arithmetic"
    sample = open_sample(store, "arithmetic")
    assert sample is not None and step.progress is not None
    assert step.progress.remaining == 0
    assert undo_step(store, "nobody", "arithmetic").undone == Undone(None)


def test_decide_named_by_name_or_next_until_none_is_left(store: Store) -> None:
    """The shell's verb: the item by its name or 'next', decided, then shown as it stands."""
    _sample(store, 6)
    first = decide_named(store, "ann", "next", "accept", dimension="arithmetic")
    assert first.decided is not None and first.decided.saved and first.item is not None
    assert first.item.item_id == first.decided.item_id and first.item.outcome == "accept"
    assert not first.editable and not first.current               # decided: read-only
    other = next_step(store, "bob", "arithmetic").item
    assert other is not None
    named = decide_named(store, "bob", other.key, "reject", "wrong operator",
                         dimension="arithmetic")
    assert named.decided is not None and named.decided.review_id and named.item is not None
    assert named.item.item_id == other.item_id and named.item.artifact_status == "rejected"
    again = decide_named(store, "ann", str(other.item_id), "accept")   # by number: moved on
    assert again.decided is not None and isinstance(again.decided.moved_on, ItemMovedOn)
    while not (step := decide_named(store, "ann", "next", "accept")).finished:
        assert step.decided is not None and step.decided.saved
    assert step.decided is None                                    # nothing left: no decision
    assert step.progress is None                                   # and no sample read to show
