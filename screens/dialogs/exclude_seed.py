"""Confirm excluding a seed from the dataset, with the reason typed."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from qcstation.common.safe import one_line
from qcstation.core.review.decisions import MAX_REASON_CHARS
from screens.dialogs.fields import OrderedFields
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.text_field import TextField


class ExcludeSeedModal(OrderedFields[str | None]):
    """Confirm excluding a seed: dismisses with the typed reason, or None on Esc (keys typed
    while it opens are kept, see :mod:`.fields`)."""

    BINDING_GROUP_TITLE = "Exclude seed"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="exclude-cancel")]
    FIELDS = ("exclude_reason",)

    def __init__(self, seed_id: int, label: str) -> None:
        super().__init__()
        self.seed_id = seed_id
        self.label = label

    def compose(self) -> ComposeResult:
        with Vertical(id="exclude_dialog", classes="dialog"):
            yield Static(Text(
                f"Exclude {one_line(self.label, 80)} from the dataset? Do this only "
                "when its artifact cannot be fixed. Its rejected item then no longer blocks "
                "the QC gate (the reject still counts as a defect) and releases leave the "
                "seed out. Type why and press Enter; Esc cancels."), id="exclude_prompt")
            yield TextField(placeholder="Why it cannot be fixed", id="exclude_reason",
                            limit=MAX_REASON_CHARS)
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#exclude_dialog")
        dialog.border_title = "Exclude seed"
        dialog.border_subtitle = "Enter excludes · Esc cancels"
        self.set_focus(self.query_one("#exclude_reason", Input))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def submit_fields(self) -> None:
        reason = " ".join(self.query_one("#exclude_reason", Input).value.split())
        if not reason:
            self.notify("Type why the seed is excluded (it is recorded with your name).",
                        severity="warning")
            return
        self.dismiss(reason)
