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
