"""One item in two runs, side by side (the dialog that picks the second run is
``screens.dialogs.pick_run``)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Header, Static

from qcstation.eval import browse
from qcstation.common.safe import preview
from qcstation.messages import SideBySideLoaded
from qcstation.widgets.eval_views import (RUN_WIDTH, measured_cell, render_item,
                                          render_item_header, run_cell)
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.text_pane import TextPane
from screens._base import QCScreen


class SideBySideScreen(QCScreen):
    """Left: the first run; right: the second. Tab switches pane, ``p`` shows prompts."""

    BINDING_GROUP_TITLE = "Side by side"
    BINDINGS = [
        Binding("p", "toggle_prompts", "Prompts", tooltip="Show or hide the prompts",
                id="side-prompts"),
        Binding("w", "swap", "Swap", tooltip="Swap the two runs", id="side-swap"),
        Binding("escape", "back", "Back", id="side-back"),
    ]

    def __init__(self, run_a: int, run_b: int, seed_id: int, sample_idx: int = 0,
                 first_task: str | None = None) -> None:
        super().__init__()
        self.first_task = first_task
        self.run_a = run_a
        self.run_b = run_b
        self.seed_id = seed_id
        self.sample_idx = sample_idx
        self.left: browse.ItemDetail | None = None
        self.right: browse.ItemDetail | None = None
        self.labels = (f"#{run_a}", f"#{run_b}")
        self.show_prompts = False
        self.busy = True

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="side_item")
        # each pane wraps only what comes into view (TextPane): a Static in a scroll box
        # wrapped both items whole, twice (its height, then its lines), 0.2-0.3 s of the
        # first frame's CPU at 1M scores
        with Horizontal(id="side_body"):
            yield TextPane(Text("Loading…", style="dim"), id="side_left", classes="pane")
            yield TextPane(Text("Loading…", style="dim"), id="side_right", classes="pane")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#side_left").focus()
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="loaders",
          description="Loading the item in both runs")
    def _load(self) -> None:
        with self.qc_app.open_store() as store:
            left, right = browse.side_by_side(store, self.run_a, self.run_b, self.seed_id,
                                              self.sample_idx)
            labels = dict(browse.run_labels(store, (self.run_a, self.run_b)))
        self.post_message(SideBySideLoaded(left, right, (
            labels.get(self.run_a, f"#{self.run_a}"), labels.get(self.run_b, f"#{self.run_b}"))))

    @on(SideBySideLoaded)
    def _loaded(self, message: SideBySideLoaded) -> None:
        self.left, self.right = message.left, message.right
        self.labels = message.labels
        self.busy = False
        self._show_panes()

    def _show_panes(self) -> None:
        self.query_one("#side_item", Static).update(render_item_header(self.left or self.right))
        for pane, detail, label in (("side_left", self.left, self.labels[0]),
                                    ("side_right", self.right, self.labels[1])):
            # the run in the title (a long name cut in its middle), what it measured (release,
            # protocol) under the pane: two runs' prompts differ by their shots
            box = self.query_one(f"#{pane}")
            name, _, measured = label.partition(" · ")
            room = max(RUN_WIDTH, box.size.width - 6)
            box.border_title = Text(run_cell(name, room))
            box.border_subtitle = (Text(measured_cell(measured, max(RUN_WIDTH, box.size.width - 4)))
                                   if measured else "")
            self.query_one(f"#{pane}", TextPane).update(render_item(
                detail, show_prompt=self.show_prompts,
                # the run's whole label (the pane wraps it): cut at 40 it lost its protocol
                # where the pane had lines to spare (walk9: '· 3-shot… did not evaluate')
                missing=f"{preview(label, 300)} did not evaluate this item.",
                first_task=self.first_task, header=False))

    def action_toggle_prompts(self) -> None:
        self.show_prompts = not self.show_prompts
        self._show_panes()

    def action_swap(self) -> None:
        self.run_a, self.run_b = self.run_b, self.run_a
        self.left, self.right = self.right, self.left
        self.labels = (self.labels[1], self.labels[0])
        self._show_panes()

    def action_back(self) -> None:
        self.dismiss(None)

    def worker_failed(self, worker: object) -> None:
        self.busy = False
