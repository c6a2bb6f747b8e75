"""Pick the run to compare an item with."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
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


#: the dialog's width at least (the other dialogs'), and the cells its frame, the list's
#: and the list's cursor mark take around a line
DIALOG_WIDTH = 72
LIST_FRAME = 12


class RunLine:
    """A run's label drawn in the width it is given (:func:`run_line`): whole where it
    fits, else its name cut in the middle, what the run measured kept."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(run_line(self.label, max(1, options.max_width)), no_wrap=True)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, len(preview(self.label, 1000))).clamp(max_width=options.max_width)


class PickRunModal(ModalScreen[int | None]):
    """Choose the run to compare with; dismisses with its id or None."""

    BINDING_GROUP_TITLE = "Compare with"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="pick-run-cancel"), DIALOG_HELP]

    def __init__(self, runs: list[tuple[int, str]], item_key: str) -> None:
        super().__init__()
        self.runs = runs
        self.item_key = item_key

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="pick_run_dialog", classes="dialog")
        # as wide as the longest run's line where the terminal has room (it stayed 72 cells
        # at 120 columns and cut names that fitted)
        longest = max((len(preview(label, 1000)) for _, label in self.runs), default=0)
        dialog.styles.width = max(20, min(self.app.size.width - 4,
                                          max(DIALOG_WIDTH, longest + LIST_FRAME)))
        with dialog:
            # what each run measured (release, protocol) whole; only a name's middle is cut,
            # and only where the list is narrower than the line
            yield MarkedOptionList(*[Option(RunLine(label), id=str(run_id))
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
