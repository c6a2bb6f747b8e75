"""The start-run dialog (screens/dialogs/start_run.py) read without colour: its cursors."""

from __future__ import annotations

from pathlib import Path

from qcstation.app import make_app
from screens.dialogs.start_run import StartRunModal
from tests.app.conftest import ANNOTATOR, make_config, screen_text, settle

SIZE = (80, 24)


async def test_the_forms_cursors_read_without_colour(qc_db: Path) -> None:
    """The task list's cursor (the line Space toggles) and a choice list's highlighted line
    (the one Enter takes) were shown by colour only: walked with NO_COLOR at 80x24, nothing
    said which task Space would leave out. Each now has ▸ before it, and only it."""
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        for key in ("v", "n"):                      # the runs screen, its start-run form
            await settle(pilot)
            await pilot.press(key)
        await settle(pilot)
        assert isinstance(app.screen, StartRunModal)

        def marked() -> list[str]:
            return [line.split("\u25b8", 1)[1].strip() for line in screen_text(app).splitlines()
                    if "\u25b8" in line]

        # the dialog opens on the model: its label is marked (the list is closed)
        assert len(marked()) == 1 and marked()[0].startswith("Model"), marked()
        app.screen.query_one("#run_tasks").focus()
        await settle(pilot)
        assert len(marked()) == 1 and "Understanding" in marked()[0], marked()
        await pilot.press("down")
        await settle(pilot)
        assert len(marked()) == 1 and "Reasoning" in marked()[0], marked()
        app.screen.query_one("#run_model").focus()
        await pilot.press("enter")                  # the list of models, open
        await settle(pilot)
        from screens.dialogs.start_run import MarkedSelectOverlay

        choices = app.screen.query_one("#run_model").query_one(MarkedSelectOverlay)
        assert choices.display and choices.highlighted is not None
        # the field's label and the highlighted model are marked (the task list, without
        # the focus, is not)
        shown = marked()
        assert len(shown) == 2 and shown[0].startswith("Model"), shown
        assert shown[1].startswith("reference"), shown


async def test_its_fields_hold_what_they_may_and_ctrl_a_selects_all(qc_db: Path) -> None:
    """walk8: the number fields took a 50 KB paste whole (no limit, no notice) and the
    name's Ctrl+A went to the line start, where every other field of the app (the fix
    editor, the reasons, the approve dialog) selects all. Each is a TextField now."""
    from textual import events

    from qcstation.widgets.text_field import TextField
    from screens.dialogs.start_run import NAME_CHARS, NUMBER_CHARS
    from tests.app.conftest import notifications

    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        for key in ("v", "n"):
            await settle(pilot)
            await pilot.press(key)
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, StartRunModal)
        for field_id, limit in (("#run_shots", NUMBER_CHARS), ("#run_temperature", NUMBER_CHARS),
                                ("#run_samples", NUMBER_CHARS), ("#run_limit", NUMBER_CHARS),
                                ("#run_name", NAME_CHARS)):
            field = dialog.query_one(field_id, TextField)
            field.focus()
            await settle(pilot)
            await pilot.press("ctrl+a", "backspace")
            assert field.value == "", field_id
            field.post_message(events.Paste("7" * 50_000))
            await settle(pilot)
            assert app.screen is dialog and field.value == "7" * limit, field_id
            assert any(f"at most {limit:,} characters" in n for n in notifications(app)), \
                field_id
        name = dialog.query_one("#run_name", TextField)
        name.focus()
        await pilot.press("ctrl+a", "backspace", *"probe")
        assert name.value == "probe"
        await pilot.press("ctrl+a", *"mine")
        assert name.value == "mine"
