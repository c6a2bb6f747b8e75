"""A paste without bracketed paste arrives as keys: it is taken whole, limited, and no
pasted character acts as a key (qcstation/driver.py, qcstation/widgets/text_field.py)."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual._xterm_parser import XTermParser

from qcstation.app import make_app
from qcstation.core.review.decisions import MAX_REASON_CHARS
from qcstation.driver import IgnoredPaste, burst_text, chunk_events
from screens.dialogs.reject_reason import RejectReasonModal
from screens.review import ReviewScreen
from tests.app.conftest import ANNOTATOR, make_config, notifications, reviews, settle

SIZE = (80, 24)


def _reads(text: str, focus: bool) -> list[object]:
    """What the driver posts for ``text`` arriving as a terminal sends it: reads of at most
    4 KB through Textual's own parser, then the parser's pending keys (its timeout)."""
    parser = XTermParser(False)
    posted: list[object] = []
    for at in range(0, len(text), 4096):
        posted += chunk_events(parser.feed(text[at:at + 4096]), focus)
    # keys after an ESC wait for the parser's timeout (0.1 s): end it now, not by waiting
    if parser._timeout_time is not None:
        parser._timeout_time = 0
    posted += chunk_events(parser.tick(), focus)
    return posted


#: 9 KB of a reason with line ends, a tab, an ESC and a CR in it
PASTE = ("the notation question uses the wrong number\r" + "word " * 1200 + "\x1b\tmore\r\x03"
         + "tail " * 600)


def test_a_paste_in_a_text_field_is_one_paste_event_with_no_key() -> None:
    posted = _reads(PASTE, focus=True)
    assert posted and all(isinstance(m, events.Paste) for m in posted), \
        {type(m).__name__ for m in posted}
    text = "".join(m.text for m in posted)  # type: ignore[attr-defined]
    assert text.startswith("the notation question uses the wrong number\nword word")
    assert "\x1b" not in text and "\x03" not in text and "\r" not in text
    assert text.count("word") == 1200 and text.count("tail") == 600


def test_keys_typed_one_by_one_or_two_at_once_stay_keys() -> None:
    parser = XTermParser(False)
    for typed in ("a", "x", "\r", "ab", "\x1b[B\x1b[B\x1b[B"):  # arrow keys held: not printable
        posted = chunk_events(parser.feed(typed), True)
        assert posted and all(isinstance(m, events.Key) for m in posted), typed
    # with no text field focused, a short burst is keys typed ahead; a long one a paste
    assert [m.key for m in chunk_events(parser.feed("an"), False)] == ["a", "n"]  # type: ignore[attr-defined]
    posted = chunk_events(parser.feed("accept reject skip"), False)
    assert [type(m) for m in posted] == [IgnoredPaste] and posted[0].characters == 18  # type: ignore[attr-defined]


def test_burst_text_keeps_only_text() -> None:
    parser = XTermParser(False)
    keys = list(parser.feed("a\tb\rc\x7fd\x01"))
    assert burst_text(keys) == "a\tb\ncd"  # type: ignore[arg-type]


def _review_app(db: Path):  # type: ignore[no-untyped-def]
    return make_app(db, config=make_config(), account=ANNOTATOR, review="arithmetic")


async def test_a_large_paste_into_the_reject_reason_is_cut_to_the_limit_and_submits_nothing(
        qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        assert app.focused is field
        for message in _reads(PASTE, focus=True):
            app.post_message(message)  # type: ignore[arg-type]
        await settle(pilot)
        # nothing pasted submitted the dialog (not the CR, not the ESC), nothing is stored
        assert isinstance(app.screen, RejectReasonModal)
        assert reviews(qc_db) == []
        value = field.value  # type: ignore[attr-defined]
        assert len(value) == MAX_REASON_CHARS
        assert value.startswith("the notation question uses the wrong number word word")
        assert all(ch.isprintable() for ch in value)
        assert any(f"at most {MAX_REASON_CHARS} characters" in n for n in notifications(app))
        # one key more is refused the same way, without a second notice
        await pilot.press("z")
        assert len(field.value) == MAX_REASON_CHARS  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        rows = reviews(qc_db)
        assert [r["verdict"] for r in rows] == ["reject"]
        assert rows[0]["reason"].startswith("the notation question uses the wrong number word")
        assert isinstance(app.screen, ReviewScreen)


async def test_tab_typed_in_a_reason_keeps_the_focus_there(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab", *"off by one", "tab", *" step", "enter")
        await settle(pilot)
        assert [(r["verdict"], r["reason"]) for r in reviews(qc_db)] == \
            [("reject", "off by one step")]


async def test_a_paste_with_no_text_field_focused_acts_as_no_key(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        for message in _reads("aaaa xxxx kkkk\r aaaa", focus=False):
            app.post_message(message)  # type: ignore[arg-type]
        await settle(pilot)
        assert reviews(qc_db) == []
        assert isinstance(app.screen, ReviewScreen)
        assert any("A paste of 19 characters was ignored" in n for n in notifications(app))
