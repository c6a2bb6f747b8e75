"""Keys typed ahead in one read of the terminal are keys, in order (qcstation/driver.py:
PASTE_FROM, in_order and KeyHandled); a paste stays a paste (tests/app/test_paste.py)."""

from __future__ import annotations

from pathlib import Path

from textual import events

from screens.review import ReviewScreen
from tests.app.conftest import reviews, settle
from tests.app.test_paste import SIZE, _reads, _review_app


async def test_keys_typed_ahead_in_one_read_act_as_keys_in_order_in_a_text_field(
        qc_db: Path) -> None:
    """walk8: keys typed fast reach the app in one read of the terminal; three of them made
    a paste, so a reason typed ahead with a correction and Enter became text with '\\x7f' in
    it and nothing was submitted. Fewer printable keys in one read than PASTE_FROM (more than
    anyone types between two reads) are keys, posted as the driver posts them (in_order:
    each after the one before was handled, so a Backspace deletes before the letters after
    it go in): Backspace deletes, Enter submits."""
    from qcstation.driver import PASTE_FROM, in_order

    typed = "off by one\x7f\x7f\x7fnone\r"
    assert sum(ch.isprintable() for ch in typed) < PASTE_FROM
    posted = _reads(typed, focus=True)
    assert all(isinstance(m, events.Key) for m in posted), posted
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab")
        assert app.focused is app.screen.query_one("#reject_typed")
        for message, handled in in_order(posted):  # type: ignore[arg-type]
            app.post_message(message)
            if handled is not None:
                app.post_message(handled)
                while not handled.done.is_set():     # the driver's thread waits so
                    await pilot.pause()
        await settle(pilot)
        assert [(r["verdict"], r["reason"]) for r in reviews(qc_db)] == \
            [("reject", "off by none")]
        assert isinstance(app.screen, ReviewScreen)
