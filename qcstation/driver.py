"""Keys that arrive together are a paste: the terminal driver of the workstation.

A terminal without bracketed paste (or a paste over some SSH clients) sends a pasted text as
if typed: Textual makes one ``Key`` event per character. 50 KB pasted into a reason field
took the app about 2.5 minutes at full CPU (50,000 key events, each re-rendering the field),
and a pasted CR or ESC acted as Enter or Esc: it submitted the dialog with half the text.

A person types one key per read of the terminal; a paste arrives in reads of up to 4 KB. So
the driver looks at what one read gave (:func:`chunk_events`): three or more keys, two of
them printable, is a paste. When a text field has the focus the keys become one ``Paste``
event of their text (Enter a line end, Tab a tab, ESC and other control keys nothing): the
field takes it in one step, with its own limit (:class:`qcstation.widgets.text_field.TextField`),
and no pasted character acts as a key. Elsewhere the keys go on one by one as before (keys
typed ahead over a slow link still work), unless there are so many printable ones
(:data:`IGNORED_PASTE_FROM`) that they can only be a paste: then they are dropped with a
notice, so a paste onto the review screen does not accept, reject and skip items.

Only the Linux (and macOS) terminal driver reads in chunks; :class:`ChunkingLinuxDriver` is
Textual's ``LinuxDriver`` with its input loop (``run_input_thread``, Textual 8.2.8, pinned)
handing each read's events to :func:`chunk_events`.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterable

from textual import events
from textual.message import Message

__all__ = ["chunk_events", "burst_text", "PASTE_MIN_KEYS", "IGNORED_PASTE_FROM",
           "IgnoredPaste", "text_has_focus"]

#: from this many keys in one read (two of them printable) the read is a paste
PASTE_MIN_KEYS = 3
#: with no text field focused, a read with this many printable keys is dropped as a paste
IGNORED_PASTE_FROM = 16

_KEY_TEXT = {"enter": "\n", "tab": "\t"}


class IgnoredPaste(Message):
    """A paste arrived while no text field had the focus; its keys were dropped."""

    def __init__(self, characters: int) -> None:
        super().__init__()
        self.characters = characters


def burst_text(keys: Iterable[events.Key]) -> str:
    """The text a run of keys typed: printable characters as they are, Enter a line end,
    Tab a tab; Esc, Backspace, arrows and ctrl+ keys nothing."""
    parts = []
    for key in keys:
        if key.is_printable and key.character:
            parts.append(key.character)
        elif key.key in _KEY_TEXT:
            parts.append(_KEY_TEXT[key.key])
    return "".join(parts)


def _is_paste(keys: list[events.Key]) -> bool:
    if len(keys) < PASTE_MIN_KEYS:
        return False
    printable = 0
    for key in keys:
        if key.is_printable:
            printable += 1
            if printable >= 2:
                return True
    return False


def chunk_events(messages: Iterable[Message], text_focus: bool) -> list[Message]:
    """The messages to post for what one read of the terminal gave. Runs of keys that are
    a paste (:data:`PASTE_MIN_KEYS`) become one ``Paste`` when a text field has the focus,
    else one :class:`IgnoredPaste` when they hold :data:`IGNORED_PASTE_FROM` printable
    keys or more; every other message is kept, in order."""
    out: list[Message] = []
    run: list[events.Key] = []

    def flush() -> None:
        if not run:
            return
        if _is_paste(run):
            if text_focus:
                out.append(events.Paste(burst_text(run)))
                run.clear()
                return
            printable = sum(1 for key in run if key.is_printable)
            if printable >= IGNORED_PASTE_FROM:
                out.append(IgnoredPaste(printable))
                run.clear()
                return
        out.extend(run)
        run.clear()

    for message in messages:
        if isinstance(message, events.Key):
            run.append(message)
        else:
            flush()
            out.append(message)
    flush()
    return out


def text_has_focus(focused: object) -> bool:
    """Is ``focused`` a widget that takes typed text (an editable ``Input`` or ``TextArea``)?"""
    from textual.widgets import Input, TextArea

    if isinstance(focused, TextArea):
        return not focused.read_only
    return isinstance(focused, Input) and not focused.disabled


def chunking_driver_class() -> type:
    """Textual's Linux driver reading keys in chunks (see the module's docstring)."""
    from textual._loop import loop_last
    from textual._parser import ParseError
    from textual._xterm_parser import XTermParser
    from textual.drivers.linux_driver import LinuxDriver

    class ChunkingLinuxDriver(LinuxDriver):
        def _text_focus(self) -> bool:
            # read across threads: a reference read, at worst one key late
            try:
                return text_has_focus(self._app.focused)
            except Exception:  # noqa: BLE001 - the app is starting or closing
                return False

        def run_input_thread(self) -> None:  # Textual 8.2.8's loop, each read's events chunked
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            fileno = self.fileno
            EVENT_READ = selectors.EVENT_READ
            parser = XTermParser(self._debug)
            feed = parser.feed
            tick = parser.tick
            decode = getincrementaldecoder("utf-8")().decode
            read = os.read
            process: Callable[[Message], None] = self.process_message

            def process_selector_events(selector_events: list[tuple[selectors.SelectorKey, int]],
                                        final: bool = False) -> None:
                for last, (_selector_key, mask) in loop_last(selector_events):
                    if mask & EVENT_READ:
                        unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                        if not unicode_data:
                            break
                        for event in chunk_events(feed(unicode_data), self._text_focus()):
                            process(event)
                for event in chunk_events(tick(), self._text_focus()):
                    process(event)

            try:
                while not self.exit_event.is_set():
                    process_selector_events(selector.select(0.1))
                selector.unregister(self.fileno)
                process_selector_events(selector.select(0.1), final=True)
            finally:
                selector.close()
                try:
                    for _event in feed(""):
                        pass
                except (EOFError, ParseError):
                    pass

    return ChunkingLinuxDriver
