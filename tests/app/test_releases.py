"""Pilot tests of the releases screen: curators only, blockers, approve, export, diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable

from db import Store
from qcstation.app import make_app
from qcstation.core.release import releases as rel
from screens.dialogs.approve_release import ApproveReleaseModal
from screens.releases import ReleasesScreen, next_version
from tests.app.conftest import (curator_app, flat, make_config, notifications, pass_the_gate,
                                press_each, screen_text, settle, static_text)

SIZE = (80, 24)


def _releases(app) -> ReleasesScreen:
    assert isinstance(app.screen, ReleasesScreen), type(app.screen).__name__
    return app.screen


def _release_rows(db: Path) -> list[dict[str, object]]:
    with Store(db) as store:
        return store.query("SELECT name, version, approved_by FROM releases ORDER BY id")


def test_next_version() -> None:
    assert next_version(None) == "1.0.0"
    assert next_version("1.0.0") == "1.0.1"
    assert next_version("v9") == "v10"
    assert next_version("beta") == "1.0.0"


async def test_a_non_curator_cannot_approve(qc_db: Path) -> None:
    pass_the_gate(qc_db)
    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.5)
    app = make_app(qc_db, config=config, account="tester")
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l")
        screen = _releases(app)
        assert "tester is not a curator (curators: alice)" in \
            flat(static_text(screen.query_one("#blockers")))
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, ApproveReleaseModal)
        text = flat(screen_text(app))
        assert ("Only a curator can approve a release. Your account is tester; the curators are alice."
                in text)
        assert _release_rows(qc_db) == []


async def test_no_curators_configured_is_explained(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(curators=[]), account="tester")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert "No curators are configured" in flat(screen_text(app))
        assert _release_rows(qc_db) == []


async def test_a_curator_is_told_what_blocks_the_release(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(curators=["alice"]), account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        blockers = flat(static_text(_releases(app).query_one("#blockers")))
        with Store(qc_db) as store:
            expected = rel.release_blockers(store, make_config(curators=["alice"]), actor="alice")
        assert expected and blockers.startswith("A new release cannot be approved yet:")
        for blocker in expected:
            assert " ".join(blocker.split()) in blockers
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, ApproveReleaseModal)
        assert any("cannot be approved yet" in n for n in notifications(app))
        assert _release_rows(qc_db) == []


async def test_a_curator_approves_exports_and_diffs(qc_db: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    pass_the_gate(qc_db)
    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.5)
    app = make_app(qc_db, config=config, account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = _releases(app)
        assert "Ready: every QC gate passes" in flat(static_text(screen.query_one("#blockers")))

        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ApproveReleaseModal)
        assert (modal.default_name, modal.default_version) == ("smart", "1.0.0")
        await pilot.press("enter")           # version -> notes
        await pilot.press(*"first cut", "enter")
        await settle(pilot)
        assert _release_rows(qc_db) == [{"name": "smart", "version": "1.0.0",
                                         "approved_by": "alice"}]
        assert screen.releases and screen.releases[0].notes == "first cut"
        assert "smart@1.0.0" in flat(screen_text(app))
        # walk8: the panel offered "Press a to approve" again right after the approval
        panel = flat(static_text(screen.query_one("#blockers")))
        assert "Press a to approve" not in panel, panel
        assert "Its newest release is smart@1.0.0 (60 records)" in panel, panel
        # at 80 columns every column of the release shows whole (was cut at 'Expo')
        table = screen.query_one("#release_table", DataTable)
        assert table.max_scroll_x == 0, table.virtual_size

        await pilot.press("e")
        await settle(pilot)
        out = tmp_path / "exports" / "smart" / "1.0.0"
        lines = (out / "data.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == 60 and json.loads(lines[0])["seed_id"]
        assert (out / "manifest.json").is_file() and (out / "README.md").is_file()
        assert any(str(out.resolve()) in n for n in notifications(app))

        await pilot.press("d")
        await settle(pilot)
        assert "smart@1.0.0 is the first version" in flat(screen_text(app))

        # one seed (not in the QC sample) leaves the benchmark; a second release drops it
        with Store(qc_db) as store:
            gone = store.scalar("SELECT id FROM seeds WHERE id NOT IN "
                                "(SELECT seed_id FROM sample_items) ORDER BY id LIMIT 1")
            with store.transaction():
                store.execute("UPDATE seeds SET status = 'filtered' WHERE id = ?", (gone,))
        await pilot.press("f5")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ApproveReleaseModal) and modal.default_version == "1.0.1"
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert [r["version"] for r in _release_rows(qc_db)] == ["1.0.0", "1.0.1"]
        await pilot.press("down")
        await pilot.press("d")
        await settle(pilot)
        detail = flat(static_text(screen.query_one("#release_detail")))
        assert "smart@1.0.0 → smart@1.0.1" in detail
        assert "60 records before, 59 after: 0 added, 1 removed, 0 changed" in detail
        assert f"Removed seeds: {gone}" in detail


async def test_e_after_an_approval_exports_the_release_just_approved(
        qc_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"Press e to export it", said after the second approval, exported the first release
    again (the cursor stayed on its row; walked in tmux at 80x24, dyn-rel@1.1.0): the
    release just approved is selected."""
    monkeypatch.chdir(tmp_path)
    pass_the_gate(qc_db)
    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.5)
    app = make_app(qc_db, config=config, account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l", "a")
        await pilot.press("enter", "enter")             # 1.0.0, no notes
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("ctrl+a", "backspace", *"1.1.0", "enter", "enter")
        await settle(pilot)
        if not isinstance(app.screen, ReleasesScreen):  # identical data: approve it anyway
            await pilot.press("y")
            await settle(pilot)
        assert [r["version"] for r in _release_rows(qc_db)] == ["1.0.0", "1.1.0"]
        assert any("Press e to export it" in n and "@1.1.0" in n for n in notifications(app))
        await pilot.press("e")
        await settle(pilot)
    out = tmp_path / "exports" / "smart"
    assert sorted(p.name for p in out.iterdir()) == ["1.1.0"]


async def test_an_invalid_version_shows_the_error_and_keeps_the_app(qc_db: Path) -> None:
    pass_the_gate(qc_db)
    app = curator_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l", "a")
        await pilot.press(*"/evil")  # appended to the default version
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "ErrorModal"
        assert "is not allowed" in flat(screen_text(app))
        assert _release_rows(qc_db) == []
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ReleasesScreen)


#: two releases of 40-character names that differ only in their version suffix
LONG_NAMES = ("gsm8k-arithmetic-robustness-variantset-v1",
              "gsm8k-arithmetic-robustness-variantset-v2")
#: a 40-character version: its end tells it apart too
LONG_VERSION = "2026.11.30-robustness-paper-final-rc2"


async def test_long_release_names_are_cut_in_the_middle_and_the_table_fits_80_columns(
        qc_db: Path) -> None:
    pass_the_gate(qc_db)
    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.5)
    with Store(qc_db) as store:
        for name in LONG_NAMES:
            rel.approve_release(store, name, "1.0.0", actor="alice", cfg=config)
        rel.approve_release(store, "smart", LONG_VERSION, actor="alice", cfg=config)
    app = make_app(qc_db, config=config, account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l")
        screen = _releases(app)
        table = screen.query_one("#release_table", DataTable)
        assert table.row_count == 3
        # no column out of sight (a 40-character name or version scrolled the table sideways)
        assert table.max_scroll_x == 0, table.virtual_size
        rows = {str(table.get_row_at(row)[0]): table.get_row_at(row) for row in range(3)}
        version = str(rows["smart"][1])
        assert "…" in version and version.endswith("-rc2"), version
        assert LONG_VERSION.startswith(version.partition("…")[0])
        names = sorted(name for name in rows if name != "smart")
        # each name is cut in its middle, marked, and keeps its start and its suffix
        for name, shown in zip(LONG_NAMES, names):
            assert "…" in shown and len(shown) < len(name), shown
            head, _, tail = shown.partition("…")
            assert name.startswith(head) and name.endswith(tail) and tail.endswith(name[-3:])
        assert names[0] != names[1]
        text = flat(screen_text(app))
        assert "Export" in text and "1.0.0" in text
        # the details pane names the selected release whole
        assert any(whole in text for whole in (f"{LONG_NAMES[0]}@1.0.0", f"{LONG_NAMES[1]}@1.0.0",
                                               f"smart@{LONG_VERSION}"))
    # at 120 columns the names take the room there is (cut less), the table still fits
    app = make_app(qc_db, config=config, account="alice")
    async with app.run_test(size=(120, 40)) as pilot:
        await press_each(pilot, "l")
        table = _releases(app).query_one("#release_table", DataTable)
        assert table.max_scroll_x == 0, table.virtual_size
        wider = sorted(str(table.get_row_at(row)[0]) for row in range(3))[:2]
        for name, shown, narrow in zip(LONG_NAMES, wider, names):
            assert len(shown) > len(narrow) and shown.endswith(name[-3:]), (shown, narrow)


async def test_the_names_take_the_room_of_scroll_bars_not_shown(qc_db: Path) -> None:
    """The Name, Version and Set columns were cut to leave room for the table's and the
    page's scroll bars (4 columns at 80) when neither showed: with three releases and a page
    that fits, the columns fill the table to its border."""
    pass_the_gate(qc_db)
    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.5)
    with Store(qc_db) as store:
        for name in LONG_NAMES:
            rel.approve_release(store, name, "1.0.0", actor="alice", cfg=config)
        rel.approve_release(store, "smart", LONG_VERSION, actor="alice", cfg=config)
    app = make_app(qc_db, config=config, account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l")
        screen = _releases(app)
        table = screen.query_one("#release_table", DataTable)
        assert not table.show_vertical_scrollbar
        assert not screen.query_one("#releases_body").show_vertical_scrollbar
        used = sum(column.get_render_width(table) for column in table.ordered_columns)
        assert table.max_scroll_x == 0
        assert used == table.scrollable_content_region.width, \
            (used, table.scrollable_content_region.width)


async def test_with_no_model_review_and_dashboard_never_say_awaiting_regeneration(
        qc_db: Path) -> None:
    """walk9: with no model configured, the review screen's 'Sample done' said a reject was
    '1 awaiting regeneration' under a gate line that said to fix or exclude it, and the
    dashboard's gate rules said the same: the releases screen alone said what to do."""
    from qcstation.core.review.decisions import decide, next_item

    with Store(qc_db) as store:
        item = next_item(store, "bob", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", reason="changes the answer")
    pass_the_gate(qc_db)
    app = curator_app(qc_db)
    assert app.config.generator is None
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rules = flat(static_text(app.screen.query_one("#gate_rules")))
        assert "rejected item without an accepted replacement" in rules, rules
        assert "awaiting regeneration" not in rules and "to fix in place or exclude" in rules
        await press_each(pilot, "r")
        done = flat(static_text(app.screen.query_one("#done_text")))
        assert "The sample is done" in done, done
        assert "awaiting regeneration" not in done and "to fix in place or exclude" in done


async def test_with_no_model_a_reject_blocks_as_a_fix_not_as_awaiting_regeneration(
        qc_db: Path) -> None:
    """walk8: with no model configured the releases screen said a reject was '1 awaiting
    regeneration', which never comes (the rules make the same text): it says what to do."""
    from qcstation.core.review.decisions import decide, next_item

    with Store(qc_db) as store:
        item = next_item(store, "bob", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", reason="changes the answer")
    app = curator_app(qc_db)
    assert app.config.generator is None
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l")
        blockers = flat(static_text(_releases(app).query_one("#blockers")))
        assert "awaiting regeneration" not in blockers, blockers
        assert ("1 rejected item without an accepted replacement (1 to fix in place or "
                "exclude: c, the queue, from the dashboard; no model is configured" in blockers), \
            blockers


def _bullet_blocks(text: str) -> list[list[str]]:
    """The lines of each bullet ('  • ' and the lines up to the next bullet or blank line)."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("  • "):
            current = [line]
            blocks.append(current)
        elif current is not None and line.strip():
            current.append(line)
        else:
            current = None
    return blocks


async def test_a_blocker_wraps_under_its_words_at_80_columns(qc_db: Path) -> None:
    """Issue 28 (walked at 80x24): a blocker longer than the panel wrapped back to column 0,
    where its rest read as a line of its own (the releases panel, the review's end, the
    dashboard's gate rules); its wrapped lines now start under its words."""
    from qcstation.core.review.decisions import decide, next_item

    with Store(qc_db) as store:
        item = next_item(store, "bob", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", reason="changes the answer")
    pass_the_gate(qc_db)
    app = curator_app(qc_db)
    long_words = "no model is configured, so regenerating would make the same text"

    def check(widget_id: str) -> None:
        widget = app.screen.query_one(widget_id)
        text = static_text(widget, width=widget.content_region.width)
        blocks = _bullet_blocks(text)
        wrapped = [b for b in blocks if long_words in flat("\n".join(b))]
        assert wrapped and len(wrapped[0]) >= 2, text
        for block in blocks:
            for line in block[1:]:
                assert line.startswith("    ") and line[4] != " ", (widget_id, text)

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        check("#gate_rules")
        await press_each(pilot, "r")
        check("#done_text")
        await press_each(pilot, "escape", "l")
        check("#blockers")
