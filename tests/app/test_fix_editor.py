"""The fix editor (screens/dialogs/fix_item.py): Esc with an edit asks before it is lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.widgets import TextArea

from qcstation.app import make_app
from screens.dialogs.confirm import ConfirmModal
from screens.dialogs.fix_item import FixModal
from screens.review import ReviewScreen
from tests.app.conftest import ANNOTATOR, flat, make_config, reviews, screen_text, settle

SIZE = (80, 24)


def _fix_modal(app: App[Any]) -> FixModal:
    screen = app.screen
    assert isinstance(screen, FixModal), type(screen).__name__
    return screen


async def test_esc_with_an_edited_fix_asks_and_unchanged_leaves_at_once(qc_db: Path) -> None:
    """Walked at 80x24: a fix typed into the editor was gone with one Esc, unasked (quitting
    with a run going asks first). Esc with the text or the reason changed asks; n goes back
    to the edit as it was, y discards it; with nothing changed Esc leaves at once."""
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        _fix_modal(app)
        await pilot.press("escape")                 # nothing changed: leaves at once
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("e")
        await settle(pilot)
        modal = _fix_modal(app)
        area = modal.query_one("#fix_text", TextArea)
        before = area.text
        await pilot.press("end", *"xyz")
        edited = area.text
        assert edited != before
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal), flat(screen_text(app))
        assert "Discard" in flat(screen_text(app))
        await pilot.press("n")                      # back to the edit, kept as it was
        await settle(pilot)
        assert _fix_modal(app) is modal and area.text == edited
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")                      # discarded: nothing stored
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert reviews(qc_db) == []
        # a reason typed alone is an edit too
        await pilot.press("e")
        await settle(pilot)
        modal = _fix_modal(app)
        if modal.needs_reason:
            modal.query_one("#fix_reason").value = "wrong rate"     # type: ignore[attr-defined]
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmModal)


async def test_ctrl_end_and_ctrl_home_go_to_the_ends_of_the_text(qc_db: Path) -> None:
    """Walked in tmux at 80x24: in the fix editor, Ctrl+End then Enter and a new line put
    the line above the whole text (the cursor stayed at its start: Textual's editor binds no
    key to the ends of the text), and Ctrl+S refused it. Ctrl+End goes to the end of the
    text, Ctrl+Home to its start, with Shift they select."""
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        area = _fix_modal(app).query_one("#fix_text", TextArea)
        area.text = "first line\nsecond line\nthird line"
        area.move_cursor((0, 0))
        await pilot.press("ctrl+end")
        assert area.cursor_location == (2, len("third line"))
        await pilot.press("enter", *"- more")
        assert area.text == "first line\nsecond line\nthird line\n- more"
        await pilot.press("ctrl+home")
        assert area.cursor_location == (0, 0)
        await pilot.press("ctrl+shift+end")
        assert area.selected_text == area.text


async def test_ctrl_s_on_the_text_as_it_was_stores_nothing(qc_db: Path) -> None:
    """Walked at 80x24 in tmux on a quickstart database: in the curator queue, e on a
    rejected notation question, then Ctrl+S with the text untouched stored it as version 2,
    'verified on its own terms and accepted': the reject closed with no fix (the content
    read again from the same words differs from the rule-made one in its fields, so 'the
    edit changes nothing' never fired). The text as it was is refused and nothing stored."""
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        modal = _fix_modal(app)
        if modal.needs_reason:
            modal.query_one("#fix_reason").value = "wrong rate"     # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _fix_modal(app) is modal, flat(screen_text(app))
        assert "changes nothing" in flat(screen_text(app))
        assert reviews(qc_db) == []
        await pilot.press("end", *" Give it.")         # an edit goes on to its checks
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "changes nothing" not in flat(screen_text(app))
