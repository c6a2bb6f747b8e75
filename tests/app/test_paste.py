"""A paste without bracketed paste arrives as keys: it is taken whole, limited, and no
pasted character acts as a key (qcstation/driver.py, qcstation/widgets/text_field.py)."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.message import Message

from qcstation.app import make_app
from qcstation.core.review.decisions import MAX_REASON_CHARS
from qcstation.driver import (BurstParser, IgnoredPaste, ReadChunker, burst_text,
                              chunk_events)
from qcstation.widgets.text_field import multi_line_text
from screens.dialogs.reject_reason import RejectReasonModal
from screens.review import ReviewScreen
from tests.app.test_eval_screens import eval_db  # noqa: F401
from tests.app.conftest import (ANNOTATOR, curator_app, make_config, notifications, open_screen,
                                pass_the_gate, press_each, reviews, settle)

SIZE = (80, 24)


def _reads(text: str, focus: bool) -> list[object]:
    """What the driver posts for ``text`` arriving as a terminal sends it: reads of at most
    4 KB through the driver's parser, then the parser's pending keys (its timeout)."""
    return _timed_reads([(text[at:at + 4096], 0.0, True) for at in range(0, len(text), 4096)],
                        focus)


def _timed_reads(reads: list[tuple[str, float, bool]], focus: bool) -> list[object]:
    """What the driver posts for reads of text, each coming at a time (seconds), and
    whether more input was waiting once its messages were posted (at the same time), each
    through the driver's parser, then the parser's held-back keys (its timeout)."""
    parser = BurstParser(False)
    chunker = ReadChunker()
    posted: list[object] = []
    at = 0.0
    for text, at, more_waiting in reads:
        messages = list(parser.feed_runs(text))     # as the driver reads
        posted += chunker.take(messages, focus, at, size=len(text), holding=parser.holding)
        if chunker.in_paste:
            chunker.posted(at, more_waiting)
    # keys after an ESC wait for the parser's timeout (0.1 s): end it now, not by waiting
    if parser._timeout_time is not None:
        parser._timeout_time = 0
    given_out = list(parser.tick())
    posted += chunker.take(given_out, focus, at + 1, held_back=True, holding=parser.holding)
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
    parser = BurstParser(False)
    for typed in ("a", "x", "\r", "ab", "\x1b[B\x1b[B\x1b[B"):  # arrow keys held: not printable
        posted = chunk_events(parser.feed(typed), True)
        assert posted and all(isinstance(m, events.Key) for m in posted), typed
    # with no text field focused, a short burst is keys typed ahead; a long one a paste
    assert [m.key for m in chunk_events(parser.feed("an"), False)] == ["a", "n"]  # type: ignore[attr-defined]
    posted = chunk_events(parser.feed("accept reject skip"), False)
    assert [type(m) for m in posted] == [IgnoredPaste] and posted[0].characters == 18  # type: ignore[attr-defined]


def test_burst_text_keeps_text_and_shows_control_characters_escaped() -> None:
    parser = BurstParser(False)
    keys = list(parser.feed("a\tb\rc\x7fd\x01"))
    assert burst_text(keys) == "a\tb\nc\\x7fd\\x01"


def _review_app(db: Path):
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
            app.post_message(message)
        await settle(pilot)
        # nothing pasted submitted the dialog (not the CR, not the ESC), nothing is stored
        assert isinstance(app.screen, RejectReasonModal)
        assert reviews(qc_db) == []
        value = field.value
        assert len(value) == MAX_REASON_CHARS
        assert value.startswith("the notation question uses the wrong number word word")
        assert all(ch.isprintable() for ch in value)
        assert any(f"at most {MAX_REASON_CHARS} characters" in n for n in notifications(app))
        # one key more is refused the same way, without a second notice
        await pilot.press("z")
        assert len(field.value) == MAX_REASON_CHARS
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


async def test_a_tab_between_words_of_a_reason_is_a_space(qc_db: Path) -> None:
    """walk9: 'goal', Tab, 'misses the unit' (typed, or a short paste that came as keys)
    stored 'goalmisses the unit': the tab kept the focus but joined the words. It is a
    space, as in a paste."""
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab", *"goal", "tab", *"misses the unit", "enter")
        await settle(pilot)
        assert [(r["verdict"], r["reason"]) for r in reviews(qc_db)] == \
            [("reject", "goal misses the unit")]


async def test_the_cut_notice_says_what_was_kept_of_a_paste_in_parts(qc_db: Path) -> None:
    """walk9: 50 KB pasted into the reject reason (not bracketed, so in parts of up to 4 KB)
    was cut with 'This field holds at most 500 characters: the rest of the text was not
    taken': not what was kept, nor how much was lost. One notice for the whole paste says
    how many of the characters pasted were kept (the first 500) and how many were not; a
    key typed past the limit then makes no second notice."""
    import re

    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        big = ("step two multiplies where it should divide " * 1200)[:50_000]
        reads = _reads(big, focus=True)
        assert sum(isinstance(m, events.Paste) for m in reads) > 1      # in parts
        for message in reads:
            app.post_message(message)
        await settle(pilot)
        assert field.value == big[:MAX_REASON_CHARS]
        await pilot.press("z")
        shown = [n for n in notifications(app) if "characters" in n and "most" in n]
        assert len(shown) == 1, shown
        said = re.search(r"Kept the first ([\d,]+) of the ([\d,]+) characters pasted: this "
                         r"field holds at most ([\d,]+) characters, so the other ([\d,]+) were "
                         r"not taken", shown[0])
        assert said, shown
        assert [int(g.replace(",", "")) for g in said.groups()] == \
            [MAX_REASON_CHARS, 50_000, MAX_REASON_CHARS, 50_000 - MAX_REASON_CHARS]


async def test_a_paste_with_no_text_field_focused_acts_as_no_key(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        for message in _reads("aaaa xxxx kkkk\r aaaa", focus=False):
            app.post_message(message)
        await settle(pilot)
        assert reviews(qc_db) == []
        assert isinstance(app.screen, ReviewScreen)
        # walk8: the notice counted the printable keys (19), not the characters pasted (the
        # line end is one too)
        assert any("A paste of 20 characters was ignored" in n for n in notifications(app))


async def test_a_bracketed_paste_with_no_text_field_focused_says_where_pasting_works(
        qc_db: Path) -> None:
    """walk8: a bracketed paste on the review screen (no field focused) came as one Paste
    that no widget took: it was dropped without a word. It is told as a paste that came as
    keys is, with where pasting works."""
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        app.post_message(events.Paste("hello world"))
        await settle(pilot)
        shown = [n for n in notifications(app) if "was ignored" in n]
        assert len(shown) == 1 and "A paste of 11 characters was ignored" in shown[0], shown
        assert "Paste where you type: a reason (x, then Tab)" in shown[0]
        assert reviews(qc_db) == [] and isinstance(app.screen, ReviewScreen)


async def test_an_ignored_paste_says_where_this_screen_takes_one(eval_db: Path) -> None:
    """walk9: a paste no field took said 'Paste where you type: a reason (x, then Tab), a fix
    (e), a note, a filter or a search' on every screen: on the dashboard x is no key and on
    the results screen only the search takes text. Each screen names its own fields."""
    from screens.results import ResultsScreen

    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(events.Paste("hello world"))
        await settle(pilot)
        shown = [n for n in notifications(app) if "was ignored" in n]
        assert len(shown) == 1 and "The dashboard has no text field" in shown[0], shown
        assert "a reason (x, then Tab)" not in shown[0], shown
        app.clear_notifications()
        app.push_screen(ResultsScreen())
        await settle(pilot)
        app.post_message(events.Paste("hello world"))
        await settle(pilot)
        shown = [n for n in notifications(app) if "was ignored" in n]
        assert len(shown) == 1 and shown[0].endswith(
            "Paste where you type: the search of the responses (/)."), shown


async def test_keys_typed_ahead_in_one_read_fill_the_settle_dialogs_fields(tmp_path: Path) -> None:
    """Fast typing that reaches the app in one read ("reject⏎story words left in") is one
    paste (qcstation/driver.py): the settle dialog takes one line per field, as Enter moves
    on, and submits nothing until Enter is pressed."""
    from db import Store
    from qcstation.core.review.decisions import next_item
    from screens.dialogs.fix_item import ResolveModal
    from tests.app.conftest import build_db

    db = build_db(tmp_path / "qc.db")
    with Store(db) as store:
        item = next_item(store, "ann", "arithmetic")
        assert item is not None
    app = make_app(db, config=make_config(), account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, ResolveModal("override", item))
        for message in _reads("reject\rstory words left in", focus=True):
            app.post_message(message)  # type: ignore[arg-type]
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ResolveModal)           # a pasted CR did not submit it
        assert dialog.query_one("#resolve_verdict").value == "reject"  # type: ignore[attr-defined]
        assert dialog.query_one("#resolve_reason").value == "story words left in"  # type: ignore[attr-defined]
        assert app.focused is dialog.query_one("#resolve_reason")
        results: list[object] = []
        dialog.dismiss = results.append  # type: ignore[method-assign, assignment]
        await pilot.press("enter")
        await settle(pilot)
        assert results == [("reject", "story words left in")]


async def test_the_queue_filter_keeps_typed_words_and_ctrl_a_selects_all(qc_db: Path) -> None:
    from screens.queue import QueueScreen
    from screens.dialogs.exclude_seed import ExcludeSeedModal

    app = make_app(qc_db, config=make_config(), account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        await pilot.press("slash")
        await pilot.press(*"dim:arithmetic", "enter")
        await settle(pilot)
        # words typed after Enter refine the filter: x is a letter here, not "exclude"
        await pilot.press(*" x")
        await settle(pilot)
        box = app.screen.query_one("#queue_filter")
        assert isinstance(app.screen, QueueScreen) and not isinstance(app.screen, ExcludeSeedModal)
        assert box.value == "dim:arithmetic x"  # type: ignore[attr-defined]
        await pilot.press("ctrl+a", "backspace")
        assert box.value == ""  # type: ignore[attr-defined]
        await pilot.press("down")
        assert app.focused is app.screen.query_one("#queue_table")


async def test_a_paste_into_the_approve_dialog_is_one_paste_and_approves_nothing(
        qc_db: Path) -> None:
    """The approve dialog's fields take a paste of any size in one step: its lines spread one
    per field from the focused one (as Enter moves on), the rest joined into the notes, each
    field cut to its limit with a notice; a pasted CR (Enter on the notes approves) or ESC
    (cancels) acts as no key. The curator's own Enter then approves."""
    from db import Store
    from screens.dialogs.approve_release import NAME_CHARS, NOTES_CHARS, ApproveReleaseModal
    from screens.releases import ReleasesScreen

    pass_the_gate(qc_db)

    def approved() -> list[dict[str, object]]:
        with Store(qc_db) as store:
            return store.query("SELECT name, version, notes FROM releases ORDER BY id")

    app = curator_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l", "a")
        modal = app.screen
        assert isinstance(modal, ApproveReleaseModal)
        version, notes = modal.query_one("#release_version"), modal.query_one("#release_notes")
        assert app.focused is version
        # one long line into the version: cut to what a version may hold, with a notice
        await pilot.press("ctrl+a", "backspace")
        for message in _reads("9" * 5000, focus=True):
            app.post_message(message)  # type: ignore[arg-type]
        await settle(pilot)
        assert app.screen is modal and approved() == []
        assert version.value == "9" * NAME_CHARS                # type: ignore[attr-defined]
        assert any(f"at most {NAME_CHARS} characters" in n for n in notifications(app))
        # 9 KB of three lines with an ESC, a TAB and a Ctrl+C among them
        await pilot.press("ctrl+a", "backspace")
        for message in _reads(PASTE, focus=True):
            app.post_message(message)  # type: ignore[arg-type]
        await settle(pilot)
        assert app.screen is modal and approved() == []          # no Enter, no Esc acted
        assert version.value == "the notation question uses the wrong number"  # type: ignore[attr-defined]
        text = notes.value                                       # type: ignore[attr-defined]
        assert len(text) == NOTES_CHARS and text.startswith("word word")
        assert all(ch.isprintable() for ch in text)
        # a paste's notice (walk28a: 'the key was not taken', as for a key typed)
        assert any(f"Kept the first {NOTES_CHARS} of the" in n and
                   f"at most {NOTES_CHARS} characters" in n for n in notifications(app))
        assert not any("the key was not taken" in n for n in notifications(app))
        assert app.focused is notes
        # the curator sets the version right, Enter moves to the notes, Enter approves
        version.focus()
        await pilot.press("ctrl+a", "backspace", *"1.0.0", "enter")
        assert app.focused is notes
        await pilot.press("enter")
        await settle(pilot)
        rows = approved()
        assert [(r["name"], r["version"]) for r in rows] == [("smart", "1.0.0")]
        assert rows[0]["notes"] == text.strip()           # as the dialog trims it
        assert isinstance(app.screen, ReleasesScreen)


async def test_a_paste_whose_line_end_is_read_alone_submits_nothing(qc_db: Path) -> None:
    """A paste comes in several reads: from tmux, 4,095 letters, a space and a line end came
    as reads of 4,095 and 2 bytes, and the lone CR acted as Enter and rejected the item by
    itself. A read that comes right after a paste goes on with it: the reason stays open."""
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        assert app.focused is field
        # the tail was waiting once the paste was posted, 56 ms later (as logged in tmux)
        for message in _timed_reads([("b" * 4095, 0.0, True), (" \r", 0.056, False)],
                                    focus=True):
            app.post_message(message)
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        assert reviews(qc_db) == []
        assert field.value == "b" * MAX_REASON_CHARS


def test_a_paste_goes_on_in_the_read_right_after_it() -> None:
    # with no text field, the tail of a paste is dropped with it: its last keys ('a'
    # accept, Enter) act as no key; the tail came 12 ms after the paste was posted
    posted = _timed_reads([("x" * 3586, 0.0, False), ("a\r", 0.012, False)], focus=False)
    assert [type(m) for m in posted] == [IgnoredPaste, IgnoredPaste]
    # an ESC that ends a paste is the paste's too, given out at the parser's timeout (as
    # text, shown escaped): the keys before it wait for it, one paste
    posted = _timed_reads([("the reason for it\x1b", 0.0, False)], focus=True)
    assert [type(m).__name__ for m in posted] == ["Paste"]
    pasted = "".join(m.text for m in posted)  # type: ignore[attr-defined]
    assert pasted == "the reason for it\\x1b"
    # keys typed after the paste, later than a paste's reads come, are keys again
    posted = _timed_reads([("x" * 100, 0.0, False), ("a", 0.5, False), ("\r", 0.7, False)],
                          focus=True)
    assert [type(m).__name__ for m in posted] == ["Paste", "Key", "Key"]
    # a read that was keys hands nothing on, however soon the next one comes
    posted = _timed_reads([("a", 0.0, False), ("\r", 0.001, False)], focus=True)
    assert [type(m).__name__ for m in posted] == ["Key", "Key"]
    # nor does a short burst (words typed ahead, tmux's send-keys), which is keys: the Enter
    # after it, even if it was waiting already, is Enter (a queue filter typed, then applied)
    posted = _timed_reads([("state:rejected", 0.0, True), ("\r", 0.001, False)], focus=True)
    assert [getattr(m, "key", None) for m in posted][-2:] == ["d", "enter"]
    # nor does a lone ESC typed (the parser gives it out at its timeout), also after a
    # paste: Esc pressed 3 s after it closes the dialog (in tmux it was taken as the paste's)
    posted = _timed_reads([("\x1b", 0.0, False)], focus=True)
    assert [getattr(m, "key", None) for m in posted] == ["escape"]
    posted = _timed_reads([("x" * 100, 0.0, False), ("\x1b", 3.0, False)], focus=True)
    assert [getattr(m, "key", None) for m in posted] == [None, "escape"]
    # but an ESC that is the paste's last read, read alone, is the paste's
    posted = _timed_reads([("x" * 4095, 0.0, True), ("\x1b", 0.2, False)], focus=True)
    assert [type(m).__name__ for m in posted] == ["Paste", "Paste"]


#: a paste with ESC + letter (Textual's parser reads alt+letter) and an ESC inside text it
#: reissues as keys (it stored a '^'), then ctrl+C and DEL
ESC_PASTE = "wrong \x1bx in it\x1bmore \x03 and \x7f end"
ESC_SHOWN = "wrong \\x1bx in it\\x1bmore \\x03 and \\x7f end"


def test_a_pasted_esc_and_control_characters_are_text_shown_escaped() -> None:
    posted = _reads(ESC_PASTE, focus=True)
    assert posted and all(isinstance(m, events.Paste) for m in posted), posted
    assert "".join(m.text for m in posted) == ESC_SHOWN  # type: ignore[attr-defined]


async def test_a_pasted_esc_and_letter_is_stored_escaped_in_the_reason(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        for message in _reads(ESC_PASTE, focus=True):
            app.post_message(message)
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        assert field.value == ESC_SHOWN  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        assert [r["reason"] for r in reviews(qc_db)] == [ESC_SHOWN]


#: a paste without bracketed paste holding escape sequences: colours (which Textual's parser
#: reads as a mouse code it cannot decode and drops), an arrow key and a mouse click
SEQUENCE_PASTE = "red \x1b[31mtext\x1b[0m, go \x1b[A up and \x1b[<0;5;5M click"
SEQUENCE_SHOWN = "red \\x1b[31mtext\\x1b[0m, go \\x1b[A up and \\x1b[<0;5;5M click"


def test_escape_sequences_in_a_paste_burst_are_text_shown_escaped() -> None:
    posted = _reads(SEQUENCE_PASTE, focus=True)
    assert posted and all(isinstance(m, events.Paste) for m in posted), posted
    assert "".join(m.text for m in posted) == SEQUENCE_SHOWN  # type: ignore[attr-defined]
    # typed alone, an arrow key and a click are what they were; a colour code typed alone
    # (no key of a keyboard sends one) is nothing
    parser = BurstParser(False)
    assert [m.key for m in chunk_events(parser.feed("\x1b[A"), True)] == ["up"]  # type: ignore[attr-defined]
    assert [type(m) for m in chunk_events(parser.feed("\x1b[<0;5;5M"), True)] == \
        [events.MouseDown]
    assert chunk_events(parser.feed("\x1b[31m"), True) == []
    # keys typed and a click in one read, too few for a paste, stay a key and a click
    typed = chunk_events(parser.feed("a\x1b[<0;5;5M"), True)
    assert [type(m) for m in typed] == [events.Key, events.MouseDown]


async def test_a_pasted_colour_code_is_stored_escaped_in_the_reason_and_acts_as_nothing(
        qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        for message in _reads(SEQUENCE_PASTE, focus=True):
            app.post_message(message)
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        assert app.focused is field
        assert field.value == SEQUENCE_SHOWN
        await pilot.press("enter")
        await settle(pilot)
        assert [r["reason"] for r in reviews(qc_db)] == [SEQUENCE_SHOWN]


#: bracketed pastes: an ESC before letters (Textual's parser reissued the letters as keys,
#: after the paste, and dropped the ESC), a colour code, and an ESC that ends the pasted text
#: (Textual's parser sent it as the Esc key: it closed the dialog)
BRACKETED = [("\x1b[200~abc\x1bxyz def\x1b[201~", "abc\\x1bxyz def"),
             ("\x1b[200~ab \x1b[31mred\x1b[0m end\x1b[201~", "ab \\x1b[31mred\\x1b[0m end"),
             ("\x1b[200~tail esc\x1b\x1b[201~", "tail esc\\x1b")]


def test_an_esc_inside_a_bracketed_paste_is_kept_shown_escaped() -> None:
    for sent, shown in BRACKETED:
        posted = _reads(sent, focus=True)
        assert [type(m) for m in posted] == [events.Paste], (sent, posted)
        assert posted[0].text == shown  # type: ignore[attr-defined]
        # the same paste in reads cut anywhere (the end marker split too)
        for cut in range(1, len(sent)):
            posted = _timed_reads([(sent[:cut], 0.0, True), (sent[cut:], 0.0, True)], True)
            assert "".join(m.text for m in posted if isinstance(m, events.Paste)) == shown, \
                (sent, cut, posted)
            assert all(isinstance(m, events.Paste) for m in posted), (sent, cut, posted)
    # keys after a bracketed paste are keys again, an Esc the Esc key
    posted = _timed_reads([(BRACKETED[0][0], 0.0, False), ("\x1b", 0.5, False)], True)
    assert [type(m) for m in posted] == [events.Paste, events.Key]
    assert posted[1].key == "escape"  # type: ignore[attr-defined]
    # the end of input after a read that ended in an ESC held inside a paste is the end
    parser = BurstParser(False)
    assert list(parser.feed("\x1b[200~ab\x1b")) == []
    list(parser.feed(""))
    assert parser.is_eof


async def test_an_esc_ending_a_bracketed_paste_is_text_and_closes_no_dialog(
        qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        for sent, _shown in BRACKETED:
            for message in _reads(sent, focus=True):
                app.post_message(message)
            await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        assert field.value == "".join(shown for _sent, shown in BRACKETED)  # type: ignore[attr-defined]
        assert reviews(qc_db) == []


async def test_a_bracketed_paste_into_the_fix_editor_keeps_no_control_character_raw(
        qc_db: Path) -> None:
    """Textual's TextArea inserted a bracketed paste as it came: a pasted Ctrl+C or DEL
    stood raw in the fix editor's text (and its screen lines) while the reason field drops
    them. The editor keeps the paste's lines and writes the rest in their visible form."""
    from textual.widgets import TextArea

    from screens.dialogs.fix_item import FixModal

    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, FixModal)
        area = app.screen.query_one("#fix_text", TextArea)
        area.text = ""
        await settle(pilot)
        area.post_message(events.Paste("Let a = 1\r\nb\x03c\x7f\td\u202eZ\rend"))
        await settle(pilot)
        assert area.text == "Let a = 1\nb\\x03c\\x7f\td\\u202eZ\nend"
        assert isinstance(app.screen, FixModal)   # no pasted character acted as a key


async def test_a_pasted_bracketed_paste_start_does_not_swallow_the_keys_after_it(
        qc_db: Path) -> None:
    """A paste that was not bracketed held ``ESC [200~`` as text: Textual's parser then took
    every later key as paste text until a ``ESC [201~`` that never came (walked in tmux: the
    reject reason, then the review screen, took no key but Esc). A bracketed paste comes
    whole, so one still open a while after the last read ends there: its text goes into the
    field, and the keys typed after act again."""
    from qcstation.driver import PASTE_STALL_S, end_stalled_paste

    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        assert app.focused is field
        parser, chunker = BurstParser(False), ReadChunker()

        def read(text: str, at: float) -> list[Message]:
            return chunker.take(parser.feed(text), True, at, size=len(text))

        posted = read("short reason\x1b[200~tail\x03", 0.0) + read(" typed", 0.2)
        assert parser.in_bracketed_paste
        # while the paste may still be coming, nothing is ended
        assert end_stalled_paste(parser, 0.2, 0.2 + PASTE_STALL_S / 2) == []
        posted += end_stalled_paste(parser, 0.2, 1.0 + PASTE_STALL_S)
        assert not parser.in_bracketed_paste
        for message in posted:
            app.post_message(message)
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal) and reviews(qc_db) == []
        assert field.value == "short reasontail typed"
        # the Enter typed now is a key again: it rejects with that reason
        keys = read("\r", 2.0)
        assert [type(m) for m in keys] == [events.Key]
        for message in keys:
            app.post_message(message)
        await settle(pilot)
        assert [(r["verdict"], r["reason"]) for r in reviews(qc_db)] == \
            [("reject", "short reasontail typed")]
        # a real bracketed paste is one paste and leaves nothing open
        assert [m.text for m in parser.feed("\x1b[200~whole\x1b[201~")] == ["whole"]
        assert not parser.in_bracketed_paste
        assert end_stalled_paste(parser, 0.0, 10.0) == []


async def test_a_50_kb_paste_into_the_fix_editor_is_cut_to_what_a_fix_may_hold(
        qc_db: Path) -> None:
    """Walked in tmux: 50 KB pasted (not bracketed) into the fix editor stood whole in it
    (the reason field cuts at its limit); the check would refuse the text only at Ctrl+S.
    The editor holds what a notation fix may hold, cuts the rest with a notice, and no
    pasted CR or ESC acts (the dialog stays, nothing is saved)."""
    from textual.widgets import TextArea

    from qcstation.core.review.fixes import MAX_NOTATION_CHARS
    from screens.dialogs.fix_item import FixModal

    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, FixModal)
        area = app.screen.query_one("#fix_text", TextArea)
        assert app.focused is area
        before = area.text
        big = (PASTE * 6)[:50_000]
        parts = _reads(big, focus=True)
        for message in parts:
            app.post_message(message)
        await settle(pilot)
        assert isinstance(app.screen, FixModal) and reviews(qc_db) == []
        assert len(area.text) == MAX_NOTATION_CHARS and area.text.endswith(before)
        assert "\x1b" not in area.text and "\r" not in area.text
        pasted = sum(len(multi_line_text(m.text)) for m in parts)  # type: ignore[attr-defined,misc]
        kept = MAX_NOTATION_CHARS - len(before)
        shown = [n for n in notifications(app) if "Kept the first" in n]
        assert len(shown) == 1 and f"Kept the first {kept:,} of the {pasted:,} characters " \
            f"pasted: this editor holds at most {MAX_NOTATION_CHARS:,} characters" in shown[0], \
            shown
        # a key typed at the limit is not taken either; one typed after a delete is
        await pilot.press("z")
        assert len(area.text) == MAX_NOTATION_CHARS and "z" not in area.text[:1]
        await pilot.press("backspace", "z")
        assert len(area.text) == MAX_NOTATION_CHARS


async def test_one_paste_ignored_in_parts_is_one_notice(qc_db: Path) -> None:
    """Walked in tmux: 50 KB pasted onto the review screen came in many reads (and was split
    where a sequence in it was no key); each part was dropped with its own notice, a stack of
    'A paste of 654 / 1,249 / 158 characters was ignored'. The parts of one paste make one
    notice with their total."""
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for characters in (654, 1249, 158):
            app.post_message(IgnoredPaste(characters))
        await settle(pilot)
        shown = [n for n in notifications(app) if "was ignored" in n]
        assert len(shown) == 1 and "A paste of 2,061 characters was ignored" in shown[0], shown
        assert isinstance(app.screen, ReviewScreen) and reviews(qc_db) == []


async def test_a_large_paste_into_every_other_one_line_field_is_cut_with_a_notice(
        qc_db: Path) -> None:
    """walk7: the derive dialog's set name, the exclude reason and the note were plain
    fields: a 50 KB paste stood whole in the set name (51,000 characters, for the check to
    refuse on Ctrl+S) and no notice said a thing; each now holds what it may, with the
    notice the reasons give."""
    from qcstation.widgets.text_field import TextField
    from screens.dialogs.comment import CommentModal
    from screens.dialogs.derive import DeriveModal
    from screens.dialogs.exclude_seed import ExcludeSeedModal

    app = curator_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key, modal, field_id, limit in (
                ("d", DeriveModal, "#derive_name", 40),
                ("r", None, "", 0),
                ("X", ExcludeSeedModal, "#exclude_reason", MAX_REASON_CHARS),
                ("c", CommentModal, "#comment_text", 2000)):
            await pilot.press(key)
            await settle(pilot)
            if modal is None:
                assert isinstance(app.screen, ReviewScreen)
                continue
            assert isinstance(app.screen, modal), (key, app.screen)
            field = app.screen.query_one(field_id, TextField)
            field.focus()
            await settle(pilot)
            for message in _reads(PASTE, focus=True):
                app.post_message(message)  # type: ignore[arg-type]
            await settle(pilot)
            assert isinstance(app.screen, modal), key         # nothing pasted submitted it
            assert len(field.value) == limit, (key, len(field.value))
            assert all(ch.isprintable() for ch in field.value)
            assert any(f"at most {limit:,} characters" in n for n in notifications(app)), key
            await pilot.press("escape")
            await settle(pilot)


async def test_an_enter_typed_after_a_paste_left_in_a_bracketed_paste_acts(qc_db: Path) -> None:
    """A paste (not bracketed) that ended inside ``ESC [200~``'s paste: the Enter pressed
    after it went into that paste's text (ended only 0.5 s after the last read), and the
    reject waited. A read that comes a while after the last one, nothing waiting then, is
    typed after the paste: the paste is ended first, and the Enter rejects."""
    from qcstation.driver import end_paste_before_read

    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        assert app.focused is field
        parser, chunker = BurstParser(False), ReadChunker()
        pasted = "short reason\x1b[200~tail"
        posted: list[Message] = chunker.take(parser.feed_runs(pasted), True, 0.0,
                                             size=len(pasted))
        assert parser.in_bracketed_paste
        # the Enter comes 0.3 s later, nothing was waiting after the paste's read
        posted += end_paste_before_read(parser, 0.0, 0.3, waiting=False)
        assert not parser.in_bracketed_paste
        keys = chunker.take(parser.feed_runs("\r"), True, 0.3, size=1)
        assert [getattr(m, "key", None) for m in keys] == ["enter"]
        for message in posted + keys:
            app.post_message(message)
        await settle(pilot)
        assert [(r["verdict"], r["reason"]) for r in reviews(qc_db)] == \
            [("reject", "short reasontail")]
    # a read right after the last one, or one already waiting then, goes on with the paste
    parser = BurstParser(False)
    list(parser.feed_runs("a\x1b[200~b"))
    assert end_paste_before_read(parser, 0.0, 0.05, waiting=False) == []
    assert end_paste_before_read(parser, 0.0, 0.3, waiting=True) == []
    assert parser.in_bracketed_paste


async def test_a_large_paste_into_the_results_search_is_cut_to_what_a_search_may_hold(
        eval_db: Path) -> None:
    """walk7: the results' search was a plain field: a 50 KB paste stood in it (5,455
    characters of it, the rest lost without a word), and Enter then said the search was too
    long. It holds what a search may (db.search.MAX_QUERY_CHARS), a paste cut with a notice."""
    from db.search import MAX_QUERY_CHARS
    from qcstation.widgets.text_field import TextField
    from screens.results import SEARCH_CHARS, ResultsScreen

    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, ResultsScreen())
        await pilot.press("slash")
        await settle(pilot)
        field = app.screen.query_one("#results_search", TextField)
        assert app.focused is field
        for message in _reads(PASTE, focus=True):
            app.post_message(message)  # type: ignore[arg-type]
        await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)             # nothing pasted acted
        assert len(field.value) == MAX_QUERY_CHARS
        assert all(ch.isprintable() for ch in field.value)
        assert any(f"at most {MAX_QUERY_CHARS} characters" in n for n in notifications(app))
        assert SEARCH_CHARS == MAX_QUERY_CHARS


async def test_a_paste_onto_the_reject_reasons_list_goes_to_the_reason_field(qc_db: Path) -> None:
    """Issue 28, walked in tmux at 80x24: x, then 50 KB pasted without bracketed paste while
    the numbered reasons had the focus (as the dialog opens) was ignored ('no text field has
    the focus'), where a letter typed there, or a bracketed paste, goes to the reason field.
    The driver now takes the list as a place that takes a paste (``TAKES_PASTE``): the field
    has the text, cut to its limit, and nothing pasted acted as a key."""
    from qcstation.driver import text_has_focus

    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "x")
        assert isinstance(app.screen, RejectReasonModal)
        field = app.screen.query_one("#reject_typed")
        assert app.focused is not field              # the reasons' list, as the dialog opens
        for message in _reads(PASTE * 6, focus=text_has_focus(app.focused)):
            app.post_message(message)
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal) and reviews(qc_db) == []
        assert app.focused is field
        assert len(field.value) == MAX_REASON_CHARS, field.value
        assert field.value.startswith("the notation question uses the wrong number word word")
