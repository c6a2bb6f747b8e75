"""A modal showing an error a user must read (STYLE.md §6), copyable."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from qcstation.common.safe import one_line, printable
from qcstation.widgets.footer import KeyFooter
from screens.dialogs.help import DIALOG_HELP


class ErrorModal(ModalScreen[None]):
    """``ErrorModal(title, header, error)``: the title names the error kind, the header
    what was being done, the body the message (selectable; ``c`` copies it)."""

    BINDING_GROUP_TITLE = "Error"
    BINDINGS = [
        # priority: the read-only text area would otherwise keep Esc to itself
        Binding("escape", "close", "Close", priority=True, id="error-close"),
        Binding("enter", "close", "Close", show=False, id="error-close-enter"),
        Binding("c", "copy", "Copy", id="error-copy"),
        DIALOG_HELP,
    ]

    def __init__(self, title: str, header: str, error: str) -> None:
        super().__init__()
        # messages quote seed text, names and paths: show their control characters escaped
        self.error_title = one_line(title, 80)
        self.header = one_line(header, 200)
        self.error = printable(error)

    def compose(self) -> ComposeResult:
        with Vertical(id="error_dialog", classes="dialog"):
            yield Static(self.header or "Something went wrong", id="error_header",
                         markup=False)
            yield TextArea(self.error, read_only=True, soft_wrap=True, id="error_text",
                           show_cursor=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#error_dialog")
        dialog.border_title = self.error_title
        dialog.border_subtitle = "Esc closes · c copies · Tab selects text"

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(f"{self.error_title}\n{self.header}\n{self.error}")
        self.notify("Error copied to the clipboard")
