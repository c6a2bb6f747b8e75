"""A free-text note for the next review decision."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from screens.dialogs.fields import OrderedFields
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.text_field import TextField


class CommentModal(OrderedFields[str | None]):
    """A free-text note for the next decision: Enter keeps it, Esc cancels (keys typed
    while it opens are kept, see :mod:`.fields`)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="comment-cancel")]
    FIELDS = ("comment_text",)

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="comment_dialog", classes="dialog"):
            yield Static(Text("A note that goes with your next decision on this item "
                              "(seen by the curator). Enter keeps it; an empty note clears "
                              "it; Esc cancels."))
            yield TextField(self.current, placeholder="Note", id="comment_text", limit=2000)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#comment_dialog").border_title = "Comment"
        self.set_focus(self.query_one("#comment_text", Input))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def submit_fields(self) -> None:
        self.dismiss(self.query_one("#comment_text", Input).value)
