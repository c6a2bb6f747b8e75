"""Name, version and notes for a release a curator is about to approve."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static


class ApproveReleaseModal(ModalScreen[tuple[str, str, str] | None]):
    """Dismisses with ``(name, version, notes)``, or None on Esc."""

    BINDING_GROUP_TITLE = "Approve release"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="approve-cancel"),
        Binding("ctrl+s", "submit", "Approve", id="approve-submit"),
    ]

    def __init__(self, name: str, version: str) -> None:
        super().__init__()
        self.default_name = name
        self.default_version = version

    def compose(self) -> ComposeResult:
        with Vertical(id="approve_dialog", classes="dialog"):
            yield Static(Text("The release freezes every seed whose four dimensions are "
                              "verified or accepted. It cannot be changed afterwards."),
                         id="approve_prompt")
            yield Label("Name")
            yield Input(self.default_name, id="release_name")
            yield Label("Version")
            yield Input(self.default_version, id="release_version")
            yield Label("Notes (optional)")
            yield Input(placeholder="what changed", id="release_notes")
        yield Footer(show_command_palette=False, compact=True)

    def on_mount(self) -> None:
        dialog = self.query_one("#approve_dialog")
        dialog.border_title = "Approve release"
        dialog.border_subtitle = "Enter on notes or ctrl+s approves · Esc cancels"
        self.query_one("#release_version", Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_submit(self) -> None:
        name = self.query_one("#release_name", Input).value.strip()
        version = self.query_one("#release_version", Input).value.strip()
        notes = self.query_one("#release_notes", Input).value.strip()
        if not name or not version:
            self.notify("A release needs a name and a version.", severity="warning")
            (self.query_one("#release_name" if not name else "#release_version", Input)).focus()
            return
        self.dismiss((name, version, notes))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "release_notes":
            self.action_submit()
        else:
            self.focus_next()
