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
from textual.widget import Widget
from textual.widgets import Input, TextArea

from qcstation.common.safe import printable

__all__ = ["SafeTextArea", "TextField", "multi_line_text", "one_line_text"]


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


def _limit_notice(widget: Widget, limit: int, what: str) -> None:
    widget.notify(f"This {what} holds at most {limit:,} characters: the rest of the text was "
                  "not taken.", title="Text cut", severity="warning")


class SafeTextArea(TextArea):
    """A ``TextArea`` whose pastes keep no hidden character raw (:func:`multi_line_text`):
    Textual's own inserts a bracketed paste's text as it came, a Ctrl+C or DEL included,
    which then stood raw in the text, its screen lines and what was saved from it. With a
    ``limit``, every edit by keyboard or paste is cut to what fits, with a notice (once,
    until the text is shorter again)."""

    def __init__(self, text: str = "", *, limit: int | None = None, **kwargs: Any) -> None:
        self.limit = limit
        self._limit_noted = False
        super().__init__(text, **kwargs)

    def _replace_via_keyboard(self, insert: str, start: Any, end: Any) -> Any:
        if self.limit is not None and not self.read_only:
            kept = len(self.text) - len(self.get_text_range(*sorted((start, end))))
            room = self.limit - kept
            if len(insert) > room:
                insert = insert[:max(room, 0)]
                if not self._limit_noted:
                    self._limit_noted = True
                    _limit_notice(self, self.limit, "editor")
                if not insert and start == end:
                    return None
            elif kept + len(insert) < self.limit:
                self._limit_noted = False
        return super()._replace_via_keyboard(insert, start, end)

    async def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()   # TextArea's own handler would insert the raw text too
        event.stop()
        if self.read_only:
            return
        if result := self._replace_via_keyboard(multi_line_text(event.text), *self.selection):
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
        self._limit_noted = False
        super().__init__(value, **kwargs)

    def replace(self, text: str, start: int, end: int) -> None:
        text = one_line_text(text)
        start, end = sorted((max(0, start), min(len(self.value), end)))
        room = self.limit - (len(self.value) - (end - start))
        if len(text) > room:
            text = text[:max(room, 0)]
            self._note_limit()
        elif len(self.value) - (end - start) + len(text) < self.limit:
            self._limit_noted = False
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

    def _note_limit(self) -> None:
        if self._limit_noted:
            return
        self._limit_noted = True
        _limit_notice(self, self.limit, "field")

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
            selection = self.selection
            if selection.is_empty:
                self.insert_text_at_cursor(event.text)
            else:
                self.replace(event.text, *selection)
        event.stop()
