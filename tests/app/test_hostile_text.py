"""Issue 10: text from seeds, models and users never reaches the terminal as control
characters. The app renders a database whose seed text, source name, annotator name and
reject reasons are full of control sequences; the rendered screen holds none of them raw
and shows them visibly escaped."""

from __future__ import annotations

from pathlib import Path

from db import Store
from qcstation.app import make_app
from qcstation.core.review.decisions import decide
from qcstation.core.review.items import list_items
from qcstation.core.review.sampling import open_sample
from qcstation.common.safe import has_unsafe
from tests.app.conftest import build_db, flat, make_config, notifications, screen_text, settle

#: retitle the window, clear it, colour, carriage return + backspace, bidi override, CSI (C1), DEL
EVIL = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\r\bX\u202eabc\x9b31m\x7f"


def _hostile_db(tmp_path: Path) -> Path:
    db = build_db(tmp_path / "hostile.db", per_source={"gsm8k": 10}, min_size=6)
    with Store(db) as store, store.transaction():
        store.execute("UPDATE seeds SET question = question || ?, orig_id = orig_id || ?",
                      (EVIL, EVIL))
    with Store(db) as store:
        sample = open_sample(store, "arithmetic")
        assert sample is not None
        first = list_items(store, sample.id)[0]
        decide(store, first.item_id, "mallory" + EVIL, "reject", reason="bad " + EVIL)
    return db


def _assert_inert(text: str) -> None:
    assert not has_unsafe(text), [c for c in text if has_unsafe(c)][:5]


async def test_review_screen_shows_control_sequences_escaped(tmp_path: Path) -> None:
    db = _hostile_db(tmp_path)
    app = make_app(db, config=make_config(), account="tester", display_name="eve" + EVIL, review="arithmetic")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        _assert_inert(text)
        assert "\\x1b]0;pwned" in flat(text) or "\\x1b" in flat(text)
        # every item of the sample, including the one rejected with a hostile reason
        for _ in range(6):
            await pilot.press("p")
            await settle(pilot)
            _assert_inert(screen_text(app))
        await pilot.press("g")  # guidelines
        await settle(pilot)
        _assert_inert(screen_text(app))
    for message in notifications(app):
        _assert_inert(message)


async def test_dashboard_shows_hostile_source_and_names_escaped(tmp_path: Path) -> None:
    db = _hostile_db(tmp_path)
    with Store(db) as store, store.transaction():
        store.execute("UPDATE seeds SET source = ? WHERE id <= 3", ("evil" + EVIL,))
    app = make_app(db, config=make_config(), account="tester", display_name="eve" + EVIL)
    async with app.run_test(size=(100, 90)) as pilot:  # tall enough to show the counts
        await settle(pilot)
        text = screen_text(app)
        _assert_inert(text)
        assert "evil\\x1b]0;pwned" in text
        app.notify("reason: " + EVIL)
        await pilot.pause()
        _assert_inert(screen_text(app))
