"""Issue 17's journeys replayed with their fixes, in the app (pilot) on real SQLite files:
the same account in two terminals, typed-ahead keys in a dialog, the fix editor, bulk
actions that ask first, the results browser after a live run, the runs list by run id."""

from __future__ import annotations

from pathlib import Path

from db import Store
from qcstation.app import make_app
from qcstation.core.review.decisions import decide
from screens.review import ReviewScreen
from tests.app.conftest import ANNOTATOR, live_reviews, make_config, notice, settle

SIZE = (80, 24)


async def test_an_item_decided_in_another_terminal_moves_on_by_itself(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.item is not None
        shown = screen.item
        with Store(qc_db) as store:     # the same account decides it in another terminal
            decide(store, shown.item_id, ANNOTATOR, "accept")
        await pilot.press("a")
        await settle(pilot)
        assert screen.item is not None and screen.item.item_id != shown.item_id
        assert notice(app).startswith(f"You ({ANNOTATOR}) already decided {shown.key} "
                                      f"(arithmetic)") and "moved on to the next item" in notice(app)
        await pilot.press("a")                      # no loop: the next item is decided
        await settle(pilot)
        assert notice(app).startswith("Saved:")
    assert len(live_reviews(qc_db)) == 2


async def test_keys_typed_ahead_in_a_dialog_land_in_the_right_field(qc_db: Path) -> None:
    from textual import events

    from qcstation.core.review.items import get_item
    from screens.dialogs.fix_item import ResolveModal

    with Store(qc_db) as store:
        item_id = int(store.scalar("SELECT MIN(id) FROM sample_items"))
        item = get_item(store, item_id)
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    answers: list[object] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ResolveModal("settle", item), callback=answers.append)
        # a fast typist: the whole line arrives before the dialog has drawn or moved focus
        for ch in "reject\rboth read it wrong\r":
            key = "enter" if ch == "\r" else ("space" if ch == " " else ch)
            app.post_message(events.Key(key, None if ch == "\r" else ch))
        await settle(pilot)
    assert answers == [("reject", "both read it wrong")]
