"""Pilot tests of the review screen against a real SQLite file and the real qc module."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import events
from textual.widgets import Input

from db import Store
from qcstation.app import make_app
from qcstation.core.review.decisions import next_item, reject_reasons
from qcstation.core.review.gate import gate as qc_gate
from qcstation.core.review.items import list_items
from qcstation.core.review.sampling import open_sample
from qcstation.widgets.labels import gate_line
from screens.dialogs.help import HelpScreen
from screens.dialogs.reject_reason import RejectReasonModal
from screens.review import ReviewScreen
from tests.app.conftest import (
    ANNOTATOR,
    artifact_status,
    flat,
    live_reviews,
    make_config,
    notice,
    notifications,
    reviews,
    screen_text,
    settle,
    static_text,
)
from tests.must import must

SIZE = (80, 24)


def _review_app(db: Path, annotator: str = ANNOTATOR):
    return make_app(db, config=make_config(), account=annotator, review="arithmetic")


def _screen(app) -> ReviewScreen:
    screen = app.screen
    assert isinstance(screen, ReviewScreen), type(screen).__name__
    return screen


def _first_position_item(db: Path) -> int:
    with Store(db) as store:
        sample = open_sample(store, "arithmetic")
        assert sample is not None
        return list_items(store, sample.id)[0].item_id


async def test_opens_on_the_first_claimed_item_with_seed_and_artifact(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = _screen(app)
        assert screen.item is not None and screen.editable
        assert screen.item.item_id == _first_position_item(qc_db)
        with Store(qc_db) as store:
            claimed = store.one("SELECT claimed_by FROM sample_items WHERE id = ?",
                                (screen.item.item_id,))
        assert claimed == {"claimed_by": ANNOTATOR}
        text = flat(screen_text(app))
        assert "Notation questions: 0 of 6 reviewed, 0 rejected" in text
        assert f"Gold answer: {screen.item.gold_answer}" in text
        assert screen.item.content["notation"].split(".")[0] in text
        assert "Z3: verified" in text
        assert "Gate: not passed — review 6 more items" in text
        # the footer names the keys
        for key in ("a Accept", "x Reject", "k Skip", "u Undo", "n Next", "p Prev"):
            assert key in text


async def test_accept_writes_a_review_and_moves_on(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = _screen(app).item
        assert first is not None
        await pilot.press("a")
        await settle(pilot)
        rows = reviews(qc_db)
        assert [(r["sample_item_id"], r["annotator"], r["verdict"], r["reason"]) for r in rows] \
            == [(first.item_id, ANNOTATOR, "accept", None)]
        assert artifact_status(qc_db, first.artifact_id) == "accepted"
        second = _screen(app).item
        assert second is not None and second.item_id != first.item_id
        assert "1 of 6 reviewed, 0 rejected" in flat(screen_text(app))


async def test_reject_with_a_numbered_reason(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = _screen(app).item
        assert first is not None
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        modal_text = flat(screen_text(app))
        reasons = reject_reasons("arithmetic")   # the notation questions' own list
        for n, reason in enumerate(reasons[:9], start=1):
            assert f"{n} {reason}" in modal_text
        assert "irrelevant info misfiled" not in modal_text  # a key-information reason
        await pilot.press("3")
        await settle(pilot)
        assert [(r["verdict"], r["reason"]) for r in reviews(qc_db)] == \
            [("reject", reasons[2])]
        assert artifact_status(qc_db, first.artifact_id) == "rejected"
        text = flat(screen_text(app))
        assert "1 of 6 reviewed, 1 rejected" in text
        with Store(qc_db) as store:
            gate = qc_gate(store, "arithmetic", threshold=0.05)
        assert gate.defects == 1 and not gate.passed
        assert gate_line(gate) in text
        assert gate_line(gate).startswith("Gate: not passed — review 5 more items")


async def test_reject_with_a_typed_reason(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab")
        await pilot.press(*"uses 7 [not 9] as the second number")
        await pilot.press("enter")
        await settle(pilot)
        assert [(r["verdict"], r["reason"]) for r in reviews(qc_db)] == \
            [("reject", "uses 7 [not 9] as the second number")]
        assert isinstance(app.screen, ReviewScreen)


async def test_reject_letters_typed_on_the_reason_list_start_the_typed_reason(qc_db: Path) -> None:
    """A user typed 'goal', Tab, 'misses the unit' with the list focused: 'goal' was dropped
    silently and 'misses the unit' stored. Letters on the list go to the reason field."""
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert app.focused is app.screen.query_one("#reject_reasons")
        await pilot.press(*"goal", "tab", *"misses the unit")
        await settle(pilot)
        assert app.screen.query_one("#reject_typed", Input).value == "goal misses the unit"
        await pilot.press("enter")
        await settle(pilot)
        assert [(r["verdict"], r["reason"]) for r in reviews(qc_db)] == \
            [("reject", "goal misses the unit")]
        assert isinstance(app.screen, ReviewScreen)
        # a paste onto the list goes to the reason field too
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        app.screen.query_one("#reject_reasons").post_message(events.Paste("wrong unit"))
        await settle(pilot)
        assert app.screen.query_one("#reject_typed", Input).value == "wrong unit"


async def test_reject_cancelled_records_nothing(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = _screen(app).item
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert reviews(qc_db) == []
        assert _screen(app).item == first
        # an empty typed reason is refused, not recorded
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        assert reviews(qc_db) == []


async def test_skip_then_the_skipped_item_comes_back_last(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = _screen(app).item
        assert first is not None
        await pilot.press("k")
        await settle(pilot)
        assert [(r["sample_item_id"], r["verdict"]) for r in reviews(qc_db)] == \
            [(first.item_id, "skip")]
        assert artifact_status(qc_db, first.artifact_id) == "verified"
        assert "0 of 6 reviewed, 0 rejected, 1 skipped" in flat(screen_text(app))
        for _ in range(5):
            await pilot.press("a")
            await settle(pilot)
        assert _screen(app).item is not None
        assert _screen(app).item.item_id == first.item_id  # type: ignore[union-attr]


async def test_undo_restores_the_item_and_its_status(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = _screen(app).item
        assert first is not None
        await pilot.press("x", "1")
        await settle(pilot)
        assert artifact_status(qc_db, first.artifact_id) == "rejected"
        await pilot.press("u")
        await settle(pilot)
        rows = reviews(qc_db)
        assert len(rows) == 1 and rows[0]["undone_at"] is not None
        assert artifact_status(qc_db, first.artifact_id) == "verified"
        screen = _screen(app)
        assert screen.item is not None and screen.item.item_id == first.item_id
        assert screen.editable
        assert "0 of 6 reviewed, 0 rejected" in flat(screen_text(app))
        await pilot.press("a")
        await settle(pilot)
        assert [(r["verdict"], r["undone_at"] is None) for r in reviews(qc_db)] == \
            [("reject", False), ("accept", True)]
        assert artifact_status(qc_db, first.artifact_id) == "accepted"
        # nothing left to undo after undoing everything
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert live_reviews(qc_db) == []
        assert "Nothing to undo" in notice(app)
        assert notifications(app) == []               # no toast over the item


async def test_previous_is_read_only_and_next_returns(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = _screen(app)
        first = screen.item
        await pilot.press("a")
        await settle(pilot)
        second = screen.item
        await pilot.press("x", "2")
        await settle(pilot)
        current = screen.item
        assert first and second and current
        assert len({first.item_id, second.item_id, current.item_id}) == 3

        await pilot.press("p")
        await settle(pilot)
        assert screen.item is not None and screen.item.item_id == second.item_id
        assert not screen.editable
        text = flat(screen_text(app))
        reason = reject_reasons("arithmetic")[1]
        assert f"Looking back: Rejected by you: {reason}" in text
        assert "a/x/k change your decision" in text
        # a decision of your own is changed there: the old one stays in the log, undone
        await pilot.press("a")
        await settle(pilot)
        rows = reviews(qc_db)
        assert len(rows) == 3
        assert (rows[1]["verdict"], rows[1]["undone_at"] is not None) == ("reject", True)
        assert (rows[2]["verdict"], rows[2]["changes_id"], rows[2]["undone_at"]) == \
            ("accept", rows[1]["id"], None)
        assert artifact_status(qc_db, second.artifact_id) == "accepted"
        assert f"Changed: {second.key} accepted" in notice(app)
        assert screen.item is not None and screen.item.item_id == second.item_id
        assert "Looking back: Accepted by you" in flat(screen_text(app))

        await pilot.press("p")
        await settle(pilot)
        assert screen.item is not None and screen.item.item_id == first.item_id
        assert "Accepted by you" in flat(screen_text(app))
        await pilot.press("p")
        await settle(pilot)
        assert screen.item.item_id == first.item_id  # first of the session: stays
        assert "This is the first of your decisions." in notice(app)

        await pilot.press("n")
        await settle(pilot)
        assert screen.item.item_id == second.item_id
        await pilot.press("n")
        await settle(pilot)
        assert screen.item.item_id == current.item_id and screen.editable
        assert "Looking back" not in screen_text(app)

        # n on the current item moves on without deciding and gives the claim back
        await pilot.press("n")
        await settle(pilot)
        assert screen.item.item_id != current.item_id and screen.editable
        assert len(reviews(qc_db)) == 3
        with Store(qc_db) as store:
            assert store.scalar("SELECT claimed_by FROM sample_items WHERE id = ?",
                                (current.item_id,)) is None
        # ... and p then shows it again, still decidable
        await pilot.press("p")
        await settle(pilot)
        assert screen.item.item_id == current.item_id and screen.editable
        assert "you moved past this item" in flat(screen_text(app))
        await pilot.press("a")
        await settle(pilot)
        assert [r["sample_item_id"] for r in reviews(qc_db)][-1] == current.item_id


async def test_sample_done_shows_the_gate(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for n in range(6):
            await pilot.press("a")
            await settle(pilot)
            if n < 5:
                assert f"{n + 1} of 6 reviewed, 0 rejected" in flat(screen_text(app))
        screen = _screen(app)
        assert screen.finished and screen.item is None
        text = flat(screen_text(app))
        assert "The sample is done." in text
        assert "6 of 6 reviewed, 0 rejected" in text
        with Store(qc_db) as store:
            gate = qc_gate(store, "arithmetic", threshold=0.05)
        assert not gate.passed
        assert "defect bound 39.3%" in text
        assert gate.blockers[0] in text
        assert len(live_reviews(qc_db)) == 6
        # nothing to decide any more
        await pilot.press("a")
        await settle(pilot)
        assert len(reviews(qc_db)) == 6


async def test_sample_done_follows_the_others_and_offers_no_decision(qc_db: Path) -> None:
    """The "Sample done" view kept the counts of the moment this annotator ran out of items
    while another still held one (10 of 11 reviewed after the other had decided it), and its
    footer still offered Accept, Reject, Skip and Fix with nothing to decide. F5 (and the
    view's own refresh) reads the counts and the gate again, together; the footer offers
    what the view can do."""
    from qcstation.core.review.decisions import decide

    with Store(qc_db) as store:  # another annotator holds one item, as their session would
        held = next_item(store, "bob", "arithmetic")
    assert held is not None
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(5):
            await pilot.press("a")
            await settle(pilot)
        screen = _screen(app)
        assert screen.finished and screen.item is None
        text = flat(screen_text(app))
        assert "Nothing left for you right now." in text and "5 of 6 reviewed" in text, text
        footer = screen_text(app).splitlines()[-1]
        for label in ("a Accept", "x Reject", "k Skip", "e Fix"):
            assert label not in footer, footer
        assert "p Prev" in footer and "esc Back" in footer and "f5 Refresh" in footer, footer
        with Store(qc_db) as store:
            decide(store, held.item_id, "bob", "accept")
        await pilot.press("f5")
        await settle(pilot)
        text = flat(screen_text(app))
        assert "The sample is done." in text and "6 of 6 reviewed, 0 rejected" in text, text
        assert "Nothing left for you" not in text and "5 of 6" not in text, text
        # looking back at a decision of one's own offers the keys that change it
        await pilot.press("p")
        await settle(pilot)
        assert screen.item is not None
        assert "a Accept" in screen_text(app).splitlines()[-1]


async def test_two_annotators_never_get_the_same_item(qc_db: Path) -> None:
    app = _review_app(qc_db, annotator="ann")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        held = _screen(app).item
        assert held is not None
        with Store(qc_db) as store:  # another annotator's session, as its own process would
            other = next_item(store, "bob", "arithmetic")
        assert other is not None and other.item_id != held.item_id
        await pilot.press("a")
        await settle(pilot)
        after = _screen(app).item
        assert after is not None and after.item_id not in (held.item_id, other.item_id)


async def test_guidelines_and_help(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await pilot.pause()
        text = screen_text(app)
        assert "Guidelines (g closes)" in text and "Accept when all hold:" in text
        assert "Seed" not in text  # the guidelines take the seed's place
        await pilot.press("g")
        await pilot.pause()
        # at 80 columns the seed pane's label is short, so its item's key is whole
        assert "Guidelines" not in screen_text(app) and "─ Seed · gsm8k-" in screen_text(app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = flat(static_text(app.screen.query_one("#help_text")))
        assert help_text.startswith("Review a Accept")
        assert "Accept when all hold:" in help_text  # the guidelines follow the keys
        for words in ("a Accept — The artifact is right", "x Reject — Reject with a reason",
                      "u Undo — Undo your last decision", "f1, ? Help"):
            assert words in help_text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)


async def test_escape_returns_to_the_dashboard_and_gives_the_claim_back(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        held = _screen(app).item
        assert held is not None
        await pilot.press("a")
        await settle(pilot)
        held = _screen(app).item
        assert held is not None
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "DashboardScreen"
        with Store(qc_db) as store:
            held_now = store.scalar("SELECT COUNT(*) FROM sample_items "
                                    "WHERE claimed_by IS NOT NULL")
        assert held_now == 0
        assert "Review 5 notation questions — press r" in flat(screen_text(app))


async def test_quitting_mid_review_gives_the_item_back(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        held = _screen(app).item
        assert held is not None
        with Store(qc_db) as store:
            assert store.scalar("SELECT claimed_by FROM sample_items WHERE id = ?",
                                (held.item_id,)) == ANNOTATOR
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
    with Store(qc_db) as store:
        assert store.scalar("SELECT COUNT(*) FROM sample_items WHERE claimed_by IS NOT NULL") == 0


async def test_a_busy_database_is_waited_for_not_an_error(qc_db: Path) -> None:
    import sqlite3

    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = _screen(app).item
        assert first is not None
        blocker = sqlite3.connect(qc_db, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # another session holds the write lock
        try:
            await pilot.press("a")
            loop = asyncio.get_running_loop()     # the save starts in a worker: wait for it,
            deadline = loop.time() + 300           # however slow the machine is
            while not _screen(app).busy and loop.time() < deadline:
                await pilot.pause(0.05)
            await pilot.pause(0.5)                # (the write meets the lock; held until ROLLBACK)
            assert _screen(app).busy  # still waiting for the lock
            assert type(app.screen).__name__ == "ReviewScreen"  # no error shown
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        await settle(pilot)
        assert [(r["sample_item_id"], r["verdict"]) for r in reviews(qc_db)] == \
            [(first.item_id, "accept")]
        assert "1 of 6 reviewed" in flat(screen_text(app))


async def test_exclude_seed_key_is_for_curators_only(qc_db: Path) -> None:
    app = _review_app(qc_db)  # the tester is not a curator (alice is)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = _screen(app).item
        assert shown is not None
        await pilot.press("X")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)  # no dialog
        assert (f"Only a curator can exclude a seed; the account {ANNOTATOR} is not one "
                "(curators: alice).") in notice(app)
    with Store(qc_db) as store:
        assert store.scalar("SELECT COUNT(*) FROM seeds WHERE status != 'active'") == 0


async def test_curator_excludes_the_seed_of_a_rejected_item(qc_db: Path) -> None:
    from screens.dialogs.exclude_seed import ExcludeSeedModal

    app = _review_app(qc_db, annotator="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rejected = _screen(app).item
        assert rejected is not None
        await pilot.press("x", "2")
        await settle(pilot)
        with Store(qc_db) as store:
            assert qc_gate(store, "arithmetic", threshold=0.05).open_rejects == 1
        await pilot.press("p")                       # look back at the rejected item
        await settle(pilot)
        assert must(_screen(app).item).item_id == rejected.item_id
        await pilot.press("X")
        await pilot.pause()
        assert isinstance(app.screen, ExcludeSeedModal)
        assert f"Exclude {rejected.key} from the dataset?" in flat(screen_text(app))
        await pilot.press("enter")                   # no reason: refused, still asking
        await pilot.pause()
        assert isinstance(app.screen, ExcludeSeedModal)
        await pilot.press(*"rule makes the same text")
        await pilot.press("enter")
        await settle(pilot)
        screen = _screen(app)
        assert f"Seed {rejected.key} excluded: rule makes the same text" in notice(app)
        assert screen.item is not None and screen.item.seed_status == "excluded"
        assert not screen.editable
        assert screen.gate is not None and screen.gate.open_rejects == 0
    with Store(qc_db) as store:
        seed = store.one("SELECT status, filter_reason, filter_detail FROM seeds WHERE id = ?",
                         (rejected.seed_id,))
        assert seed == {"status": "excluded", "filter_reason": "excluded_in_qc",
                        "filter_detail": "rule makes the same text (excluded by alice)"}
        g = qc_gate(store, "arithmetic", threshold=0.05)
        assert g.open_rejects == 0 and g.defects == 1


async def test_excluding_the_current_item_moves_on(qc_db: Path) -> None:
    app = _review_app(qc_db, annotator="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = _screen(app).item
        assert first is not None
        await pilot.press("X")
        await pilot.pause()
        await pilot.press("escape")                  # cancelled: nothing happens
        await settle(pilot)
        with Store(qc_db) as store:
            assert store.scalar("SELECT status FROM seeds WHERE id = ?",
                                (first.seed_id,)) == "active"
        await pilot.press("X")
        await pilot.pause()
        await pilot.press(*"garbled seed", "enter")
        await settle(pilot)
        screen = _screen(app)
        assert screen.item is not None and screen.item.seed_id != first.seed_id
        assert screen.editable
        assert "0 of 6 reviewed, 0 rejected, 1 excluded" in flat(screen_text(app))


async def test_help_says_what_p_does_looking_back_changes_a_decision(qc_db: Path) -> None:
    # walk7: F1 said p was read-only ("u changes your last decision") while the look-back
    # line and the README say a/x/k there change the decision, as they do
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = _screen(app).item
        assert first is not None
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        back = _screen(app).item
        assert back is not None and back.item_id == first.item_id
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)  # x on a looked-back item rejects it
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        help_text = flat(static_text(app.screen.query_one("#help_text")))
        assert "read-only" not in help_text
        assert "p Prev — Look back at your decisions (a/x/k there change one)" in help_text


async def test_changing_a_looked_back_decision_reads_the_gate_again(qc_db: Path) -> None:
    # walk7: a reject made while looking back said 'Changed: ... rejected' and the header
    # kept the gate as it was before (its defect bound) until n moved on
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        gate = app.screen.query_one("#gate_line")
        before = flat(static_text(gate))
        assert "defect bound 95%" in before, before          # one accepted of 6
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        await pilot.press("1")
        await settle(pilot)
        assert "Changed:" in flat(screen_text(app))
        after = flat(static_text(gate))
        assert "defect bound 100%" in after, after           # one rejected of 6
