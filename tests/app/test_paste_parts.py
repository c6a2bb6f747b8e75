"""A paste without bracketed paste in parts: keys before an ESC the parser holds are one read
with the keys after it; a cut notice counts every part of one paste (walk28a;
qcstation/driver.py, qcstation/widgets/text_field.py)."""

from __future__ import annotations

from pathlib import Path

from qcstation.driver import IgnoredPaste
from screens.dialogs.reject_reason import RejectReasonModal
from tests.app.conftest import notifications, reviews, settle
from tests.app.test_paste import SIZE, _reads, _review_app, _timed_reads


#: a short paste whose ESC comes after a CR and 14 letters, too few for a paste by themselves
#: (walk28a, tmux paste-buffer at 80x24: 'bad reason' was stored, 'more' opened the fix editor)
LATE_ESC_PASTE = "bad reason\rmore\x1bx tab\there end"


def test_keys_before_an_esc_the_parser_holds_are_one_read_with_the_keys_after_it() -> None:
    posted = _reads(LATE_ESC_PASTE, focus=True)
    assert [type(m).__name__ for m in posted] == ["Paste"], posted
    assert posted[0].text == "bad reason\nmore\\x1bx tab\there end"  # type: ignore[attr-defined]
    # with no text field it is one paste ignored: no 'more' acting as screen keys
    assert [type(m) for m in _reads(LATE_ESC_PASTE, focus=False)] == [IgnoredPaste]
    # typed keys with an Esc or an arrow after them in one read stay keys
    assert [getattr(m, "key", None) for m in _reads("ab\x1b", focus=True)] == \
        ["a", "b", "escape"]
    assert [getattr(m, "key", None) for m in _reads("ab\x1b[A", focus=True)] == \
        ["a", "b", "up"]


async def test_a_short_paste_with_a_cr_before_an_esc_submits_nothing(qc_db: Path) -> None:
    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("tab")
        field = app.screen.query_one("#reject_typed")
        for message in _reads(LATE_ESC_PASTE, focus=True):
            app.post_message(message)
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        assert reviews(qc_db) == []
        assert field.value == "bad reason more\\x1bx tab here end"


async def test_the_cut_notice_counts_the_parts_of_a_paste_taken_whole(qc_db: Path) -> None:
    """walk28a: 49,069 characters pasted (not bracketed) into the key-information fix editor
    (24,000 at most) said 'Kept the first 2,819 of the 28,675 characters pasted': the parts
    before the first cut were taken whole and made no notice, so the notice counted from
    there. Here a paste of 2,000 then 3,000 characters into the notation editor (4,000)."""
    from textual.widgets import TextArea

    from qcstation.core.review.fixes import MAX_NOTATION_CHARS

    app = _review_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        area = app.screen.query_one("#fix_text", TextArea)
        assert app.focused is area
        kept = MAX_NOTATION_CHARS - len(area.text)
        parts = _timed_reads([("a" * 2000, 0.0, True), ("b" * 3000, 0.01, False)], focus=True)
        assert [len(m.text) for m in parts] == [2000, 3000]  # type: ignore[attr-defined]
        for message in parts:
            app.post_message(message)
        await settle(pilot)
        assert len(area.text) == MAX_NOTATION_CHARS
        shown = [n for n in notifications(app) if "Kept the first" in n]
        assert len(shown) == 1 and f"Kept the first {kept:,} of the 5,000 characters " \
            f"pasted: this editor holds at most {MAX_NOTATION_CHARS:,} characters, so the " \
            f"other {5000 - kept:,} were not taken" in shown[0], shown
        # a paste of its own after it counts from its own start
        await pilot.press("ctrl+a", "backspace")
        for message in _timed_reads([("c" * 4100, 5.0, False)], focus=True):
            app.post_message(message)
        await settle(pilot)
        assert any(f"Kept the first {MAX_NOTATION_CHARS:,} of the 4,100 characters" in n
                   for n in notifications(app)), notifications(app)
