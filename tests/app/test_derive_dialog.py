"""`d` on the dashboard starts a derive: the dialog checks its fields, the set is built in
the background on the real database, and the dashboard says what was made."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from db import Store
from qcstation.app import make_app
from qcstation.core.derive.refusals import REFUSAL_WORDS
from screens.dialogs.derive import DeriveFormError, DeriveModal, parse_derive_form
from tests.app.conftest import ANNOTATOR, make_config, settle
from tests.core.derive.helpers import make_db


def test_the_form() -> None:
    assert parse_derive_form("inverse", "  ") == parse_derive_form("inverse", "inverse")
    assert parse_derive_form("variants", "dyn-1").name == "dyn-1"
    with pytest.raises(DeriveFormError):
        parse_derive_form(None, "x")
    with pytest.raises(DeriveFormError):
        parse_derive_form("variants", "a name\x1b")


async def test_d_builds_a_derived_set(tmp_path: Path) -> None:
    db = make_db(tmp_path, ["james", "janet", "tom"])
    app = make_app(db, config=make_config(curators=[ANNOTATOR]), account=ANNOTATOR)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, DeriveModal)
        await pilot.press("down", "down", "down", "enter")    # counterfactual
        app.screen.query_one("#derive_name", Input).value = "cf1"
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=200)
        assert not isinstance(app.screen, DeriveModal)
        notes = [n.message for n in app._notifications]
    with Store(db) as store:
        made = store.scalar("SELECT COUNT(*) FROM derived_items di JOIN derive_sets ds ON "
                            "ds.id = di.set_id WHERE ds.name = 'cf1' AND di.transform = "
                            "'counterfactual'")
        kind = store.scalar("SELECT kind FROM derive_sets WHERE name = 'cf1'")
    # james and janet, up to 6 shifts each (tom restates a value: refused)
    assert kind == "counterfactual" and 6 <= made <= 12
    assert any(f"Set cf1: made counterfactual {made};" in n for n in notes), notes
    # its next step is in the app, not the shell (the notice sent the curator to `qc sample`,
    # then to `qcstation derive status` for the refusals): what was refused, and why, is in
    # the notice; its gate is the dashboard's
    notice = next(n for n in notes if "Set cf1: made" in n)
    assert "qcstation" not in notice and "`" not in notice, notice
    with Store(db) as store:
        refused = store.scalar("SELECT SUM(j.refused) FROM derive_jobs j JOIN derive_sets ds "
                               "ON ds.id = j.set_id WHERE ds.name = 'cf1'")
    assert refused and f"refused counterfactual {refused}" in notice, notice
    assert "s draws its QC samples" in notice and "QC gates" in notice, notice
    # the refusals in words, not derive's internal codes ('most: restated-value 3')
    assert not [code for code in REFUSAL_WORDS if "-" in code and code in notice], notice
    assert "Most often: " in notice, notice
    assert any(f"{words} (" in notice for words in REFUSAL_WORDS.values()), notice


async def test_the_dialog_reads_without_colour_has_help_and_is_for_curators(tmp_path: Path) -> None:
    from screens.dialogs.help import HelpScreen
    from tests.app.conftest import flat, notifications, screen_text

    db = make_db(tmp_path, ["james"])
    # a curator is configured and this account is not one: the key says who may
    app = make_app(db, config=make_config(curators=["alice"]), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert not isinstance(app.screen, DeriveModal)
        assert any("Only a curator can build a derived set" in n for n in notifications(app))
    app = make_app(db, config=make_config(curators=[ANNOTATOR]), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = screen_text(app).splitlines()[-1]
        assert "d Derive" in footer and footer.rstrip().endswith("f1 Help"), footer
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, DeriveModal)
        text = screen_text(app)
        # the chosen kind and the others differ by their mark, not only by colour
        assert "●▌ variants:" in text and "○▌ ladder:" in text and "●▌ ladder:" not in text
        await pilot.press("down", "enter")
        text = screen_text(app)
        assert "○▌ variants:" in text and "●▌ ladder:" in text
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        helptext = flat(screen_text(app))
        assert "Help: Derive a set" in helptext and "Ctrl+S starts the build" in helptext
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DeriveModal)


async def test_derive_is_in_the_command_palette(tmp_path: Path) -> None:
    db = make_db(tmp_path, ["james"])
    app = make_app(db, config=make_config(curators=[ANNOTATOR]), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Derive a set" in titles


async def test_the_radio_cursor_reads_without_colour(tmp_path: Path) -> None:
    """The highlighted choice (where Enter would choose) has a mark of its own, apart from
    the chosen one's ●: Textual shows the cursor by colour only."""
    from tests.app.conftest import screen_text

    db = make_db(tmp_path, ["james"])
    app = make_app(db, config=make_config(curators=[ANNOTATOR]), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, DeriveModal)
        lines = screen_text(app).splitlines()
        # the dialog's radio lines (the dashboard behind it marks its own list's line with ▸)
        cursor = [line for line in lines if "▸▐" in line]
        assert len(cursor) == 1 and "●▌ variants:" in cursor[0], cursor
        await pilot.press("down", "down")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        cursor = [line for line in lines if "▸▐" in line]
        # the cursor is on perturb; variants is still the chosen one
        assert len(cursor) == 1 and "○▌ perturb:" in cursor[0], cursor
        assert any("●▌ variants:" in line and "▸" not in line for line in lines)


@pytest.mark.parametrize("size", [(80, 24), (60, 24)])
async def test_every_choice_reads_whole_at_80_columns(tmp_path: Path,
                                                      size: tuple[int, int]) -> None:
    """walk9: at 80x24 each kind's description was one line cut with '…' ('SMART Table 3: a
    noise sentence, an added operati…'), the operations a curator chooses between unread.
    Each wraps under its kind, indented past the marks, and reads whole."""
    from screens.dialogs.derive import KIND_HELP
    from tests.app.conftest import screen_text

    db = make_db(tmp_path, ["james"])
    app = make_app(db, config=make_config(curators=[ANNOTATOR]), account=ANNOTATOR)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, DeriveModal)
        kinds = app.screen.query_one("#derive_kind").region
        lines = screen_text(app).splitlines()[kinds.y:kinds.bottom]
        inside = [line[kinds.x:kinds.right] for line in lines]
        shown = " ".join(" ".join(inside).replace("▊", " ").replace("▎", " ").split())
        assert "…" not in shown, inside
        for kind, what in KIND_HELP.items():
            assert f"{kind}: {what}" in shown, (kind, inside)
        # a description's second line starts under the kind's name, not under the marks
        second = next(n for n, line in enumerate(inside) if "▐●▌ variants:" in line) + 1
        assert inside[second].index(inside[second].split()[1]) == \
            inside[second - 1].index("variants"), inside


async def test_quitting_with_a_derive_going_stops_it(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """walk28a: q, then y in "Deriving v2 is going on. Quitting stops it ..." left a blank
    terminal for minutes: the app waited for the whole set (its worker's cancel reached no
    one). The derive is given the worker's cancel and stops between batches."""
    import asyncio
    import threading
    import time

    from qcstation.core.derive import runner

    started = threading.Event()
    seen: dict[str, object] = {}

    def derive(_db: object, _cfg: object, **kw: object) -> runner.DeriveSummary:
        cancel = kw.get("cancel")
        seen["cancel"] = cancel
        started.set()
        while callable(cancel) and not cancel():   # a batch after another until told to stop
            time.sleep(0.01)
        seen["stopped"] = callable(cancel)
        return runner.DeriveSummary(str(kw.get("name")))

    monkeypatch.setattr(runner, "run_derive", derive)
    db = make_db(tmp_path, ["james", "janet", "tom"])
    app = make_app(db, config=make_config(curators=[ANNOTATOR]), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await asyncio.to_thread(started.wait)
        from screens.dialogs.confirm import ConfirmModal

        await pilot.press("q")                      # asks: a derive is going on
        while app.is_running and not isinstance(app.screen, ConfirmModal):  # not settle:
            # it waits for every worker, the derive too
            await pilot.pause()
        if app.is_running:
            await pilot.press("y")
    assert callable(seen["cancel"]) and seen["stopped"] is True


async def test_quitting_mid_derive_says_so_until_the_batch_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: after y in 'Quit?', the app waited 10-17 s for the derive's batch with the
    terminal already closed (blank or frozen). The screen now says the derive is being
    stopped after its current batch, and the app quits once the batch has ended, not
    before (the batch is held on an Event: no timing)."""
    import asyncio
    import threading

    from qcstation.core.derive import runner
    from screens.dialogs.confirm import ConfirmModal, WaitModal
    from tests.app.conftest import flat, screen_text

    started, told, batch_over = threading.Event(), threading.Event(), threading.Event()

    def derive(_db: object, _cfg: object, **kw: object) -> runner.DeriveSummary:
        cancel = kw.get("cancel")
        started.set()
        while callable(cancel) and not cancel():
            batch_over.wait(0.01)                   # batches, until told to stop
        told.set()
        assert batch_over.wait(600)                 # the batch in hand ends when the test says
        return runner.DeriveSummary(str(kw.get("name")))

    monkeypatch.setattr(runner, "run_derive", derive)
    db = make_db(tmp_path, ["james", "janet", "tom"])
    app = make_app(db, config=make_config(curators=[ANNOTATOR]), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        app.screen.query_one("#derive_name", Input).value = "v2"
        await pilot.press("ctrl+s")
        await asyncio.to_thread(started.wait)
        await pilot.press("q")
        while not isinstance(app.screen, ConfirmModal):
            await pilot.pause()
        await pilot.press("y")
        await asyncio.to_thread(told.wait)          # the derive was told to stop
        while not isinstance(app.screen, WaitModal):
            await pilot.pause()
        await pilot.pause()
        assert app.is_running                       # still there, saying why
        text = flat(screen_text(app))
        assert "Stopping derive v2 after its current batch…" in text, text
        assert "The app quits when it has stopped" in text, text
        batch_over.set()
        while app.is_running:
            await pilot.pause()
    assert not app.is_running
