"""Pick the run to compare an item with."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from qcstation.common.safe import preview
from qcstation.widgets.eval_views import run_line
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.marked_list import MarkedOptionList
from screens.dialogs.help import DIALOG_HELP


class PickRunModal(ModalScreen[int | None]):
    """Choose the run to compare with; dismisses with its id or None."""

    BINDING_GROUP_TITLE = "Compare with"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="pick-run-cancel"), DIALOG_HELP]

    def __init__(self, runs: list[tuple[int, str]], item_key: str) -> None:
        super().__init__()
        self.runs = runs
        self.item_key = item_key

    def compose(self) -> ComposeResult:
        with Vertical(id="pick_run_dialog", classes="dialog"):
            # what each run measured (release, protocol) whole; only a name's middle is cut
            yield MarkedOptionList(*[Option(Text(run_line(label, 60)), id=str(run_id))
                               for run_id, label in self.runs], id="pick_run_list")
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#pick_run_dialog")
        dialog.border_title = Text(f"Compare {preview(self.item_key, 30)} with")
        dialog.border_subtitle = "Enter picks · Esc cancels"
        self.query_one("#pick_run_list").focus()

    @on(OptionList.OptionSelected, "#pick_run_list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)
