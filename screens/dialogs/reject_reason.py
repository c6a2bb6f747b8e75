"""Why is this item rejected? Number keys pick a common reason; or type one."""

from __future__ import annotations

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from qcstation.common.safe import one_line
from qcstation.core.review.decisions import MAX_REASON_CHARS
from qcstation.widgets.text_field import TextField
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.marked_list import MarkedOptionList
from screens.dialogs.help import DIALOG_HELP


class ReasonField(TextField):
    """The typed reason. Tab in it, once something is typed, moves nowhere: a tab typed
    (or pasted) while writing must not send the focus to the list, where the next Enter
    would store reason 1 instead of the words typed. It is a space between words, as a
    pasted tab is (walk9: 'goal', Tab, 'misses the unit' stored 'goalmisses the unit')."""

    BINDINGS = [Binding("tab", "stay", "Stay", show=False, id="reject-typed-tab")]

    def action_stay(self) -> None:
        if not self.value.strip():
            self.screen.focus_next()
            return
        at = self.cursor_position
        if 0 < at and not self.value[at - 1].isspace():
            self.insert_text_at_cursor(" ")      # runs of spaces are one when saved
        self.notify("Enter saves the reason typed; shift+tab goes back to the list.",
                    title="Reason")


class ReasonList(MarkedOptionList):
    """The numbered reasons. A letter (or a space, or any other printable key but a
    digit, which picks) typed here is the start of a typed reason: it goes to the reason
    field, which takes the focus, so nothing typed is lost (walk: 'goal', Tab, 'misses the
    unit' stored 'misses the unit' -- the list had dropped 'goal' silently). A paste here,
    bracketed or not, goes there too (``TAKES_PASTE``: the driver makes it one ``Paste``)."""

    TAKES_PASTE = True

    def on_key(self, event: events.Key) -> None:
        character = event.character
        if not event.is_printable or character is None or character.isdigit():
            return
        event.stop()
        event.prevent_default()
        field = self.screen.query_one("#reject_typed", ReasonField)
        field.insert_text_at_cursor(character)
        field.focus()

    def on_paste(self, event: events.Paste) -> None:
        """A (bracketed) paste here is a typed reason too: the field takes it, within its limit."""
        event.stop()
        field = self.screen.query_one("#reject_typed", ReasonField)
        field.focus()
        field._on_paste(event)


class RejectReasonModal(ModalScreen[str | None]):
    """Dismisses with the reason (a picked one or the typed text), or None on Esc."""

    BINDING_GROUP_TITLE = "Reject reason"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="reject-cancel"),
        *[Binding(str(n), f"pick({n})", f"Reason {n}", show=False, id=f"reject-reason-{n}")
          for n in range(1, 10)],
        DIALOG_HELP,
    ]

    def __init__(self, reasons: tuple[str, ...] | list[str], *, subject: str = "this item") -> None:
        super().__init__()
        self.reasons = list(reasons)[:9]
        self.subject = subject

    def compose(self) -> ComposeResult:
        with Vertical(id="reject_dialog", classes="dialog"):
            yield Static(Text(f"Why reject {one_line(self.subject, 80)}? Press a number, or type a reason "
                              "and press Enter."), id="reject_prompt")
            yield ReasonList(*[Option(Text(f"{n}  {one_line(reason, 200)}"), id=f"reason-{n}")
                               for n, reason in enumerate(self.reasons, start=1)],
                             id="reject_reasons")
            yield ReasonField(placeholder="Other reason (type it, Enter saves)", id="reject_typed",
                              select_on_focus=False,
                              limit=MAX_REASON_CHARS)
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#reject_dialog")
        dialog.border_title = "Reject"
        dialog.border_subtitle = "1-9 pick · letters type · Esc cancels"
        self.query_one("#reject_reasons", OptionList).focus()

    def action_pick(self, number: int) -> None:
        if 1 <= number <= len(self.reasons):
            self.dismiss(self.reasons[number - 1])
        else:
            self.notify(f"There is no reason {number}; pick 1-{len(self.reasons)} or type one.",
                        severity="warning")

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#reject_reasons")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.reasons[event.option_index])

    @on(Input.Submitted, "#reject_typed")
    def _typed(self, event: Input.Submitted) -> None:
        reason = " ".join(event.value.split())
        if not reason:
            self.notify("Type a reason, or pick one with its number.", severity="warning")
            return
        self.dismiss(reason)
