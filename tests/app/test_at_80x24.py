"""At 80x24 every dialog keeps room for what is typed (issue 28.5)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea

from qcstation.app import make_app
from screens.dialogs.fix_item import FixModal
from tests.app.conftest import make_config, settle

SIZE = (80, 24)


async def test_the_fix_editor_shows_four_lines_or_more(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account="ann", review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, FixModal)
        area = app.screen.query_one("#fix_text", TextArea)
        assert area.content_region.height >= 4, area.content_region
        # the dialog, editor and reason field all within the screen
        reason = app.screen.query_one("#fix_reason")
        assert reason.region.bottom <= SIZE[1] - 1 and reason.region.height == 3
        # a long edit grows the editor, within the screen
        area.text = "\n".join(f"Let x{n} = {n}." for n in range(30))
        await settle(pilot)
        assert area.content_region.height >= 6
        assert reason.region.bottom <= SIZE[1] - 1


async def test_f1_in_a_dialog_shows_its_keys_and_esc_goes_back_to_it(qc_db: Path) -> None:
    """F1 was dead in every dialog but derive (a modal screen stops the app's keys): in the
    reject reason and the fix editor it did nothing, and no footer said so."""
    from screens.dialogs.help import HelpScreen
    from screens.dialogs.reject_reason import RejectReasonModal
    from tests.app.conftest import flat, static_text

    app = make_app(qc_db, config=make_config(), account="ann", review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key, dialog, title, keys in (
                ("x", RejectReasonModal, "Help: Reject reason", ("esc Cancel", "f1 Help")),
                ("e", FixModal, "Help: Fix in place", ("^s Check and save", "esc Cancel", "f1 Help"))):
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, dialog)
            await pilot.press("f1")
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen), (key, type(app.screen).__name__)
            assert app.screen.help_title == title
            text = flat(static_text(app.screen.query_one("#help_text")))
            for words in keys:
                assert words.lower() in text.lower(), (words, text)
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, dialog)      # back in the dialog, not out of it
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, (dialog, HelpScreen))


async def test_a_refusal_in_the_fix_editor_keeps_the_reason_field_in_view(qc_db: Path) -> None:
    """walk7: with a long edit the editor took all the room, so the refusal shown above it
    pushed the reason field (focused, typed into) out of the dialog at 80x24."""
    from textual.widgets import Static

    app = make_app(qc_db, config=make_config(), account="ann", review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, FixModal)
        area = app.screen.query_one("#fix_text", TextArea)
        area.text = "\n".join(f"Let x{n} = {n}." for n in range(30))
        await pilot.press("tab", *"typo")
        await pilot.press("ctrl+s")
        error = app.screen.query_one("#fix_error", Static)
        for _ in range(200):   # the check runs in a worker: wait for its answer, not a time
            await pilot.pause()
            if error.display and "Checking" not in str(error.render()):
                break
        await settle(pilot)
        assert error.display and "Checking" not in str(error.render())
        dialog = app.screen.query_one("#fix_dialog")
        reason = app.screen.query_one("#fix_reason")
        assert app.screen.focused is reason
        inside = dialog.content_region
        for widget in (error, area, reason):
            assert widget.region.y >= inside.y and widget.region.bottom <= inside.bottom, (
                widget.id, widget.region, inside)
        assert area.content_region.height >= 4


async def test_f1_says_what_ctrl_c_does_with_nothing_selected(qc_db: Path) -> None:
    """walk8: F1 listed '^c Copy', while Ctrl+C with nothing selected (as it mostly is) gave
    the notice saying how to quit. The help line says both."""
    from screens.dialogs.help import HelpScreen
    from tests.app.conftest import flat, notifications, static_text

    app = make_app(qc_db, config=make_config(), account="ann")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert any("Press q (or ctrl+q) to quit" in n for n in notifications(app))
        for key in ("", "r"):                   # the dashboard, then the review screen
            if key:
                await pilot.press(key)
                await settle(pilot)
            await pilot.press("f1")
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen)
            text = flat(static_text(app.screen.query_one("#help_text")))
            assert ("^c, super+c Copy the selected text; with nothing selected, says how to "
                    "quit") in text, text
            await pilot.press("escape")
            await settle(pilot)


async def test_a_refusal_of_four_rows_keeps_the_reason_field_in_view(qc_db: Path) -> None:
    """Walked at 80x24: a fix refused with the meaning check's message (four rows) under a
    short text: the editor kept its four lines and the context its rows, and the reason
    field went out of the dialog (only its top edge showed). The context gives up rows."""
    from textual.widgets import Static

    app = make_app(qc_db, config=make_config(), account="ann", review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, FixModal)
        area = app.screen.query_one("#fix_text", TextArea)
        await pilot.press("end", *" Give it.", "tab", *"typo", "ctrl+s")
        await settle(pilot)
        error = app.screen.query_one("#fix_error", Static)
        assert error.display and error.region.height == 4, error.region
        dialog = app.screen.query_one("#fix_dialog")
        reason = app.screen.query_one("#fix_reason")
        inside = dialog.content_region
        for widget in (error, area, reason):
            assert widget.region.y >= inside.y and widget.region.bottom <= inside.bottom, (
                widget.id, widget.region, inside)
        assert area.content_region.height >= 4
        assert app.screen.query_one("#fix_context").region.height >= 1
