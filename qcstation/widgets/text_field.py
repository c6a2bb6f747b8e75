"""A one-line text field with a limit that says so, and pastes taken whole.

Textual's ``Input`` keeps only the first line of a paste and, past ``max_length``, refuses
a paste *silently* (the whole of it). A reviewer pasting a reason needs the opposite: every
line joined into one, control characters never kept (a pasted ESC or CR is text, not a
key: it becomes a space or nothing), as much as fits, and a notice when the rest is cut.
Every change goes through :meth:`TextField.replace`, so a typed key, a paste and a key
burst (:mod:`qcstation.driver`) obey the same limit.

:class:`SafeTextArea` is the multi-line editor's counterpart: a paste keeps its lines, and
every other hidden character (a bracketed paste's Ctrl+C, DEL, a C1 control, a bidi
override) is written in its visible form, never kept raw in the text or shown raw. Given a
``limit``, it holds at most that many characters, a paste or a key past it cut with the same
notice as the field's (a 50 KB paste stood whole in the fix editor, for the check to refuse).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.notifications import Notification
from textual.widget import Widget
from textual.widgets import Input, TextArea

from qcstation.common.safe import printable
from qcstation.driver import GOES_ON_ATTR

__all__ = ["SafeTextArea", "TextField", "cut_message", "multi_line_text", "one_line_text"]


def one_line_text(text: str) -> str:
    """Pasted text as one line: line ends and tabs become spaces, other characters that
    ``str.isprintable`` refuses (ESC, BEL, DEL, C1 controls, bidi overrides) are dropped."""
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ch in "\r\n\t\v\f":
            out.append(" ")
    return "".join(out)


def multi_line_text(text: str) -> str:
    """Pasted text for a multi-line editor: its line ends (CR LF, CR) as newlines, tabs kept,
    every other hidden character in its visible form (``\\x03``, ``\\x7f``)."""
    return printable(text.replace("\r\n", "\n").replace("\r", "\n"), keep_newlines=True)


def cut_message(what: str, limit: int, offered: int, kept: int, pasted: bool) -> str:
    """What a notice says of text cut at a field's limit: for a paste, how much of it was
    kept (its first characters) and how much was not, and the limit; for a typed key, the
    limit. walk9: 'the rest of the text was not taken' said neither what stood in the field
    nor how much was lost."""
    if not pasted:
        return f"This {what} holds at most {limit:,} characters: the key was not taken."
    if not kept:
        return (f"None of the {offered:,} characters pasted was kept: this {what} holds at "
                f"most {limit:,} characters and is full.")
    return (f"Kept the first {kept:,} of the {offered:,} characters pasted: this {what} holds "
            f"at most {limit:,} characters, so the other {offered - kept:,} were not taken.")


class _CutNotice:
    """The notice of one widget's text cut at its limit. A long paste comes in parts (one per
    terminal read), each cut on its own: while the notice shows, each part adds to it (what
    was pasted and what was kept, in total), where each made a notice of its own. A typed
    key past the limit is told once, until the text is shorter again."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.notice: Notification | None = None
        self.offered = self.kept = 0
        self.noted = False             # told since the text was last under its limit
        self.taken_whole = 0           # characters of this paste its earlier parts gave whole
        self.goes_on: bool | None = None   # the last part went on with a paste (None: unsaid)

    def paste_part(self, event: events.Paste) -> None:
        """A part of a paste arrives: one that does not go on with the paste before it
        (:data:`qcstation.driver.GOES_ON_ATTR`) starts the count of what was taken whole."""
        self.goes_on = getattr(event, GOES_ON_ATTR, None)
        if not self.goes_on:
            self.taken_whole = 0

    def took(self, characters: int) -> None:
        """A part of a paste was taken whole (no notice): a later part's cut counts it.
        walk28a: 49,069 characters pasted into the fix editor (24,000 at most) said 'Kept
        the first 2,819 of the 28,675 characters pasted': the first 20,394 came in parts
        taken whole."""
        self.taken_whole += characters

    def cut(self, widget: Widget, limit: int, offered: int, kept: int, pasted: bool) -> None:
        app = widget.app
        showing = self.notice is not None and self.notice in app._notifications
        if pasted and self.taken_whole:
            offered, kept = offered + self.taken_whole, kept + self.taken_whole
            self.taken_whole = 0
        if pasted and showing and self.offered and self.goes_on is not False:
            self.offered += offered
            self.kept += kept
        elif pasted:
            self.offered, self.kept = offered, kept
        elif self.noted or showing:
            return                     # a key past the limit, told already
        else:
            self.offered = self.kept = 0
        if showing and self.notice is not None:
            app._unnotify(self.notice, refresh=False)
        self.noted = True
        self.notice = Notification(
            cut_message(self.what, limit, self.offered, self.kept, bool(self.offered)),
            "Text cut", "warning", app.NOTIFICATION_TIMEOUT, markup=False)
        app._notifications.add(self.notice)          # at once: the next part finds it shown
        app._refresh_notifications()


class SafeTextArea(TextArea):
    """A ``TextArea`` whose pastes keep no hidden character raw (:func:`multi_line_text`):
    Textual's own inserts a bracketed paste's text as it came, a Ctrl+C or DEL included,
    which then stood raw in the text, its screen lines and what was saved from it. With a
    ``limit``, every edit by keyboard or paste is cut to what fits, with a notice (once,
    until the text is shorter again). Ctrl+Home and Ctrl+End go to the start and the end
    of the text (Textual's editor has no key for them: in the fix editor, Ctrl+End and
    Enter put a new line above the text, not below it), with Shift selecting."""

    BINDINGS = [
        Binding("ctrl+home", "text_end(False)", "Start of the text", show=False,
                id="editor-text-start"),
        Binding("ctrl+end", "text_end(True)", "End of the text", show=False,
                id="editor-text-end"),
        Binding("ctrl+shift+home", "text_end(False, True)", "Select to the start",
                show=False, id="editor-select-start"),
        Binding("ctrl+shift+end", "text_end(True, True)", "Select to the end", show=False,
                id="editor-select-end"),
    ]

    def action_text_end(self, end: bool, select: bool = False) -> None:
        self.move_cursor(self.document.end if end else self.document.start, select=select)

    def __init__(self, text: str = "", *, limit: int | None = None, **kwargs: Any) -> None:
        self.limit = limit
        self._cut = _CutNotice("editor")
        self._pasting = False
        super().__init__(text, **kwargs)

    def _replace_via_keyboard(self, insert: str, start: Any, end: Any) -> Any:
        if self.limit is not None and not self.read_only:
            kept = len(self.text) - len(self.get_text_range(*sorted((start, end))))
            room = self.limit - kept
            if len(insert) > room:
                offered, insert = len(insert), insert[:max(room, 0)]
                self._cut.cut(self, self.limit, offered, len(insert), self._pasting)
                if not insert and start == end:
                    return None
            else:
                if kept + len(insert) < self.limit:
                    self._cut.noted = False
                if self._pasting:
                    self._cut.took(len(insert))
        return super()._replace_via_keyboard(insert, start, end)

    async def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()   # TextArea's own handler would insert the raw text too
        event.stop()
        if self.read_only:
            return
        self._pasting = True
        self._cut.paste_part(event)
        try:
            result = self._replace_via_keyboard(multi_line_text(event.text), *self.selection)
        finally:
            self._pasting = False
        if result:
            self.move_cursor(result.end_location)
            self.focus()


class TextField(Input):
    """An ``Input`` holding at most ``limit`` characters; a paste or a key past the limit
    is cut to what fits, with a notice naming the limit (once, until the text is shorter
    again). Ctrl+A selects all, as in the fix editor (Textual's Input goes to the start;
    Home still does)."""

    BINDINGS = [Binding("ctrl+a", "select_all", "Select all", show=False,
                        id="text-select-all")]

    def __init__(self, value: str | None = None, *, limit: int = 500, **kwargs: Any) -> None:
        self.limit = limit
        self._cut = _CutNotice("field")
        self._pasting = False
        super().__init__(value, **kwargs)

    def replace(self, text: str, start: int, end: int) -> None:
        text = one_line_text(text)
        start, end = sorted((max(0, start), min(len(self.value), end)))
        room = self.limit - (len(self.value) - (end - start))
        if len(text) > room:
            offered, text = len(text), text[:max(room, 0)]
            self._cut.cut(self, self.limit, offered, len(text), self._pasting)
        else:
            if len(self.value) - (end - start) + len(text) < self.limit:
                self._cut.noted = False
            if self._pasting:
                self._cut.took(len(text))
        super().replace(text, start, end)

    def _watch_value(self, value: str) -> None:
        """Input's own watcher, without a layout of the screen for the new text's width: the
        width is the field's scroll range, and a field of fixed size with no scroll bar
        (Input's ``scrollbar-size-horizontal: 0``) changes no one's place when it grows;
        the value repaints the field. Input set it as a layout reactive: each typed key, and
        each filter key of the queue (which writes the filter into its field), laid out the
        whole screen (~15 ms of CPU on the queue at 1M seeds). A field of auto size is still
        laid out (Input's watcher does so)."""
        self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)       # the same size again: no layout asked

    def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()   # Input's own handler would insert the first line again
        focused = self.screen.focused
        if focused is not self and isinstance(focused, TextField):
            # a long paste comes in parts (one per terminal read), each forwarded to the
            # field focused when the app took it; a part that spread its lines over the
            # dialog's fields moved the focus on before the next part reached this field:
            # the paste goes on where the part before it ended
            focused._on_paste(event)
            return
        lines = event.text.splitlines()
        spread = getattr(self.screen, "spread_paste", None)
        if len(lines) > 1 and callable(spread) and spread(self, lines):
            event.stop()   # a dialog of several fields took one line per field
            return
        if event.text:
            self.insert_pasted(event.text, event)
        event.stop()

    def insert_pasted(self, text: str, event: events.Paste | None = None) -> None:
        """Put pasted ``text`` in at the cursor (over the selection), cut at the limit with
        a paste's notice (what was kept of how much). A dialog spreading a paste's lines
        over its fields puts each in so: walk28a, 50 KB pasted into the approve dialog's
        notes said 'This field holds at most 500 characters: the key was not taken'."""
        selection = self.selection
        self._pasting = True
        if event is not None:
            self._cut.paste_part(event)
        try:
            if selection.is_empty:
                self.insert_text_at_cursor(text)
            else:
                self.replace(text, *selection)
        finally:
            self._pasting = False
