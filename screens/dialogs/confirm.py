"""A yes/no question."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from qcstation.widgets.footer import KeyFooter
from screens.dialogs.help import DIALOG_HELP


class ConfirmModal(ModalScreen[bool]):
    """y confirms, n or Esc cancels."""

    BINDING_GROUP_TITLE = "Confirm"
    BINDINGS = [Binding("y", "answer(True)", "Yes", id="confirm-yes"),
                Binding("n", "answer(False)", "No", id="confirm-no"),
                Binding("escape", "answer(False)", "Cancel", id="confirm-cancel"),
                DIALOG_HELP]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm_dialog", classes="dialog"):
            yield Static(Text(self.text))
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#confirm_dialog").border_title = self.title_text

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class WaitModal(ModalScreen[None]):
    """What the app is waiting for, with no answer to give (quitting while a derive stops
    after its batch): keys do nothing here but the app's own (ctrl+q, F1)."""

    BINDING_GROUP_TITLE = "Waiting"
    BINDINGS = [DIALOG_HELP]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="wait_dialog", classes="dialog"):
            yield Static(Text(self.text))
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#wait_dialog").border_title = self.title_text
