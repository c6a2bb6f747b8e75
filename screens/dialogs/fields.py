"""Fields in order, with no typed-ahead key lost (for dialogs with more than one field).

A fast typist presses Enter and goes on typing the next field. An ``Input`` reports Enter
with a message and ``focus()`` moves later, so the keys typed meanwhile used to land in the
field just left. Here Enter is a *priority* binding of the dialog: it moves the focus at
once, inside the key's own handling, so every following key lands in the next field. Keys
that reach the dialog before a field could take them (typed right after the key that
opened it) go into the focused field, or the first, instead of being dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual import events
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Input

from qcstation.widgets.text_field import TextField
from screens.dialogs.help import DIALOG_HELP

__all__ = ["OrderedFields"]

#: what the dialog dismisses with (its callback's argument)
Result = TypeVar("Result")


class OrderedFields(ModalScreen[Result]):
    """A dialog whose ``FIELDS`` (Input ids, in order) take Enter as "next field"; Enter on
    the last calls :meth:`submit_fields`."""

    FIELDS: tuple[str, ...] = ()
    # Tab and Shift+Tab move the focus at once too: as Textual's (app) bindings they acted
    # only once the key had gone through the focused field's queue, after the keys typed
    # behind them had been taken there, and after an Enter (a priority binding) had run
    BINDINGS = [Binding("enter", "next_field", "Next", show=False, priority=True,
                        id="fields-next"),
                Binding("tab", "focus_next_now", "Next field", show=False, priority=True,
                        id="fields-tab"),
                Binding("shift+tab", "focus_previous_now", "Previous field", show=False,
                        priority=True, id="fields-shift-tab"), DIALOG_HELP]

    def action_focus_next_now(self) -> None:
        self.focus_next()

    def action_focus_previous_now(self) -> None:
        self.focus_previous()

    def _inputs(self) -> list[Input]:
        return [self.query_one(f"#{name}", Input) for name in self.FIELDS]

    async def action_next_field(self) -> None:
        inputs = self._inputs()
        focused = self.focused
        if not isinstance(focused, Input) or focused not in inputs:
            if isinstance(focused, Input):       # another input of the dialog: its own Enter
                await focused.action_submit()    # a coroutine: not awaited, Enter did nothing
                return
            self.set_focus(inputs[0])
            return
        at = inputs.index(focused)
        if at + 1 < len(inputs):
            self.set_focus(inputs[at + 1])        # now, not after the next refresh
        else:
            # after the keys already queued in the field: they are part of what is submitted
            focused.call_later(self.submit_fields)

    #: what Enter on the last field does: every dialog with FIELDS defines it (checked below,
    #: when the dialog's class is made, not when a user first presses Enter)
    submit_fields: Callable[[], None]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.FIELDS and not callable(getattr(cls, "submit_fields", None)):
            raise TypeError(f"{cls.__name__} lists FIELDS but defines no submit_fields()")

    def spread_paste(self, field: Input, lines: list[str]) -> bool:
        """Lines pasted (or typed ahead so fast that they came as one paste, see
        :mod:`qcstation.driver`) into a field: one line per field from there on, as Enter
        moves on; what is left goes into the last field. Nothing is submitted: a pasted line
        end is never the Enter that saves. False when ``field`` is not one of the dialog's."""
        inputs = self._inputs()
        if field not in inputs:
            return False
        at = inputs.index(field)
        last = len(inputs) - 1
        # one line per field from ``field`` on; the lines beyond the last field join it
        room = last - at + 1
        per_field = lines if len(lines) <= room else [*lines[:room - 1], " ".join(lines[room - 1:])]
        for n, line in enumerate(per_field):
            target = inputs[at + n]
            self.set_focus(target)
            if isinstance(target, TextField):
                target.insert_pasted(line)      # cut with a paste's notice, not a key's
                continue
            selection = target.selection
            if selection.is_empty:
                target.insert_text_at_cursor(line)
            else:
                target.replace(line, *selection)
        return True

    def on_key(self, event: events.Key) -> None:
        """A printable key that reached the dialog itself was typed before a field could
        take it (the dialog was still opening): it goes into the focused field, else the
        first one. (A field that has the key handles it and never lets it through.)"""
        if not (event.is_printable and event.character and self.FIELDS):
            return
        inputs = self._inputs()
        target = self.focused if self.focused in inputs else inputs[0]
        assert isinstance(target, Input)
        if self.focused is not target:
            self.set_focus(target)
        target.insert_text_at_cursor(event.character)
        event.stop()
