"""The results browser: filter stored scores (failed dimension, verdict, source, difficulty,
run), page through them, and read one item in full: prompt, raw response, what was
extracted, verdict, gold, and for Reasoning the model's SMT-LIB with the verifier's output."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Header, Input, Static
from textual.worker import Worker, get_current_worker

from qcstation.eval import browse
from qcstation.common.safe import preview
from qcstation.eval.browse import Filters
from qcstation.eval.search import search_results
from qcstation.eval.types import LABELS as METRIC_LABELS
from qcstation.eval.types import STORED_METRICS as METRICS
from qcstation.eval.types import TASK_SCORES as TASK_METRICS
from qcstation.eval.types import VERDICTS
from qcstation.messages import ItemDetailLoaded, ResultsCounted, ResultsPageLoaded
from qcstation.widgets.eval_views import RUN_WIDTH, ItemRenders, page_cells, run_fit
from qcstation.widgets.fixed_table import FixedTable, set_rows
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.text_field import TextField
from qcstation.widgets.text_pane import TextPane
from screens._base import QCScreen

PAGE_SIZE = 50
#: the table's columns: (label, key)
COLUMNS = (("Run", "run"), ("Item", "item"), ("S", "sample"), ("Metric", "metric"),
           ("Verdict", "verdict"), ("Extracted", "extracted"))
SEARCH_LIMIT = 200
#: the characters a search may hold (db.search.MAX_QUERY_CHARS)
SEARCH_CHARS = 500
FILTER_HINT = "  F1: filter keys"
#: the room the run filters leave on the filter line for one other filter ("failed LLM@Un",
#: "unparseable", "gsm8k"): runs that leave less take a line of their own, whatever else is
#: set, so a filter key does not change the line's height (each change laid the screen out
#: again, twice: at 80 columns a run's whole label leaves no room for any filter)
FILTER_ROOM = 16
#: the filter keys, on a line the filters freed (the footer shows f, m and v only)
FILTER_KEYS = ("f failed", "m metric", "v verdict", "o source", "d level", "r run", "x clear",
               "/ search")


def keys_line(room: int) -> str:
    """The filter keys that fit in ``room`` cells, whole (F1 lists them all)."""
    line = ""
    for words in FILTER_KEYS:
        more = f"{line}  {words}" if line else words
        if len(more) > room:
            break
        line = more
    return line


TASK_OF = {metric: task for task, metrics in TASK_METRICS.items() for metric in metrics}


#: the items read with pages that the screen keeps for the next pages (each a few KB to a
#: few hundred: prompts and responses)
ITEMS_KEPT = 32


def _item_keys(rows: list[browse.ResultRow]) -> list[tuple[int, int, int]]:
    """The (run, seed, sample) of each item on a page, in the rows' order, once each."""
    return list(dict.fromkeys((r.run_id, r.seed_id, r.sample_idx) for r in rows))


def cycle(options: list[Any], current: Any) -> Any:
    """The option after ``current`` (None = no filter comes first and after the last)."""
    seq = [None, *options]
    try:
        return seq[(seq.index(current) + 1) % len(seq)]
    except ValueError:
        return None


class ItemPane(TextPane):
    """The results' item pane: Esc there goes back to the rows, and the footer says so (walk9:
    it read 'esc Back' in the pane, where the first Esc only left the pane)."""

    BINDINGS = [Binding("escape", "screen.back", "Rows", id="results-pane-rows",
                        tooltip="Back to the rows (Esc there goes back)")]


class ResultsScreen(QCScreen):
    """Filters on single keys, ``]``/``[`` pages, Enter reads the item, ``s`` side by side."""

    BINDING_GROUP_TITLE = "Results"
    PASTE_HINT = 'Paste where you type: the search of the responses (/).'
    AUTO_FOCUS = "#results_table"   # the first focus (Textual's default: the first focusable widget)
    BINDINGS = [
        Binding("f", "toggle_failed", "Failed", tooltip="Only rows whose metric failed",
                id="results-failed"),
        Binding("m", "cycle_metric", "Metric", tooltip="Filter by metric (cycles)",
                id="results-metric"),
        Binding("v", "cycle_verdict", "Verdict",
                tooltip="Filter by verdict: wrong, unparseable, error… (cycles)",
                id="results-verdict"),
        Binding("o", "cycle_source", "Source", show=False, tooltip="Filter by source (cycles)",
                id="results-source"),
        Binding("d", "cycle_difficulty", "Level", show=False,
                tooltip="Filter by difficulty (cycles)", id="results-difficulty"),
        Binding("r", "cycle_run", "Run", show=False, tooltip="Filter by run / model (cycles)",
                id="results-run"),
        Binding("x", "clear_filters", "Clear", show=False, tooltip="Clear every filter",
                id="results-clear"),
        Binding("slash", "search", "Search", show=False,
                tooltip="Rows whose model response has these words", id="results-search"),
        Binding("right_square_bracket", "next_page", "Next",
                tooltip="Next page of rows", id="results-next-page"),
        Binding("left_square_bracket", "previous_page", "Prev",
                tooltip="Previous page of rows", id="results-prev-page"),
        Binding("p", "toggle_prompts", "Prompts", show=False,
                tooltip="Show or hide the prompts in the item pane", id="results-prompts"),
        Binding("s", "side_by_side", "Compare",
                tooltip="The selected item in two runs", id="results-side-by-side"),
        Binding("c", "charts", "Charts", show=False, tooltip="Charts of the filtered runs",
                id="results-charts"),
        Binding("b", "robustness", "Robustness", show=False,
                tooltip="Robustness diagnosis of the filtered runs (derived releases)",
                id="results-robustness"),
        Binding("escape", "back", "Back", tooltip="From the item pane to the rows, else back",
                id="results-back"),
    ]

    def __init__(self, run_ids: tuple[int, ...] = (), filters: Filters | None = None) -> None:
        super().__init__()
        self.filters = filters or Filters(run_ids=run_ids)
        self.page_starts: list[browse.Key | None] = [None]   # cursor of each page shown so far
        self.page: browse.Page | None = None
        self.page_text = ""             # the search the page shown answers
        self.page_number = 1
        self.choices: dict[str, Any] = {"source": [], "difficulty": [], "runs": []}
        self.choices_read = False      # the runs, sources and levels to cycle through
        self.show_prompts = False
        self.detail_key: tuple[int, int, int] | None = None
        self.detail: browse.ItemDetail | None = None
        self.provenance_below = False      # the provenance at the item's end (border too narrow)
        self.page_pending = True      # a page is being read
        self.detail_pending = False   # the selected item is being read
        # the row whose item the pane shows, shown as the cursor came to it (_cursor_moved)
        # or with its page: the highlight message that follows (and the one a page's first
        # row posts: DataTable highlights the first row added to an empty table) does not
        # draw it again
        self.shown_row: int | None = None
        self.drawing = False          # rows being drawn: the cursor's moves are not the user's
        # the filter line's width and lines its text was last drawn at, each line whole (see
        # _show_filters)
        self.filter_fitted_at: tuple[int, int] | None = None
        self.filter_text: Text | None = None     # the filter line as last drawn
        self.rows_width = 0           # the table's width its rows were drawn for
        #: the runs' prompt contexts, kept between items (the workers read them: building
        #: one renders every exemplar, 80% of an item's read)
        self.contexts: dict[int, Any] = {}
        #: the items of the page shown read so far, by (run, seed, sample): the item of the
        #: cursor's row and those of the rows beside it, read ahead, so a cursor key shows
        #: its row's item in its own paint (not after a worker's read, in a second one)
        self.details: dict[tuple[int, int, int], browse.ItemDetail | None] = {}
        #: the items read with the last pages (at most ITEMS_KEPT), each with what its run
        #: held as it was read (``browse.items_version``): a page's worker takes those it
        #: shows again from here while nothing was written since (m and x open on the same
        #: items; a page seen before)
        self.items_kept: dict[tuple[int, int, int], tuple[Any, Any]] = {}
        #: the rows counted, by filters: (counts_version, counts). A page turn, or filters
        #: counted before (f twice), shows its counts with its rows when nothing was written
        #: since (a count is a pass over a run's rows, and its title a second paint)
        self.counts_kept: dict[Filters, tuple[Any, dict[str, Any]]] = {}
        self.renders = ItemRenders()     # the items shown lately, as rendered
        self.pane_subtitle = ""          # the item pane's subtitle as set

    @property
    def busy(self) -> bool:
        return self.page_pending or self.detail_pending

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="filter_line")
        # a search holds at most db.search.MAX_QUERY_CHARS (a paste past it is cut, with a
        # notice: a plain field took part of a 50 KB paste for Enter to refuse)
        yield TextField(placeholder='words in the responses ("a phrase", prefix*, OR, NOT); '
                        'Enter', id="results_search", limit=SEARCH_CHARS)
        # fixed column widths: a page turn does not measure its 300 cells (FixedTable)
        yield FixedTable(id="results_table", cursor_type="row", zebra_stripes=True)
        # the item wraps only what comes into view (a Static wrapped all of it twice a key)
        yield ItemPane(Text("Select a row to read the item.", style="dim"), id="item_pane",
                       classes="pane")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#results_table", DataTable)
        for label, key in COLUMNS:
            table.add_column(label, key=key)
        self.query_one("#item_pane").border_title = "Item"
        self._fit_heights()
        self.query_one("#results_search").display = False
        table.focus()
        self.watch(table, "cursor_coordinate", self._cursor_moved, init=False)
        self._show_filters()
        self._reload()

    def on_resize(self) -> None:
        self._fit_heights()
        self.call_after_refresh(self._fit_rows)     # once the table has its new width
        self.call_after_refresh(self._refit_filters)

    def _refit_filters(self) -> None:
        """A run's label and the provenance take the new width; the filter line is laid out
        again if its width changed (the resize measured the label drawn for the old width: it
        may have taken two lines)."""
        self._show_filters()
        self._show_provenance()

    def _fit_rows(self) -> None:
        """Rows drawn for another width are drawn again: the run's name takes this width's
        room (the cursor stays on its row)."""
        table = self.query_one("#results_table", DataTable)
        if self.page is not None and self.page.rows and self.rows_width != table.content_region.width:
            row = table.cursor_row
            self._draw_rows(table, self.page.rows)
            table.move_cursor(row=row)

    def _fit_heights(self) -> None:
        """The rows take about half of the screen (at least 9 lines), the item pane the rest."""
        room = self.size.height - 4         # header, filter line, footer
        self.query_one("#results_table").styles.height = max(9, room // 2)

    def help_notes(self) -> RenderableType:
        return Text(
            "Rows are scores: one per run, item, sample and metric. f shows only failures "
            "(wrong, unparseable or a failed request; for LLM@Un a judged score under 90). "
            "m, v, o, d and r cycle the metric, verdict, source, difficulty and run filters; "
            "x clears them. / finds the rows whose model response has some words (the first "
            f"{SEARCH_LIMIT} matches). ] and [ turn pages. Tab moves to the item pane to scroll it; "
            "p shows the prompts there. s puts the selected item of two runs side by side.")

    # -- filters ---------------------------------------------------------------------------
    def _set_filters(self, **changes: Any) -> None:
        """New filters: the line shows them with their first page (one paint, not the line
        first and the rows in a second)."""
        self.filters = dataclasses.replace(self.filters, **changes)
        self._reload()

    def action_toggle_failed(self) -> None:
        self._set_filters(failed=not self.filters.failed)

    def action_cycle_metric(self) -> None:
        self._set_filters(metric=cycle(list(METRICS), self.filters.metric))

    def action_cycle_verdict(self) -> None:
        self._set_filters(verdict=cycle(list(VERDICTS), self.filters.verdict))

    def _choices_unread(self, key: str, what: str) -> bool:
        """Are the choices a key cycles through still being read (the screen just opened)?
        Then it says so: walk8, r pressed as the screen opened did nothing, without a word
        (it cycled through no runs)."""
        if self.choices_read:
            return False
        self.notify(f"Still reading the {what} of the results: press {key} again in a moment.")
        return True

    def action_cycle_source(self) -> None:
        if self._choices_unread("o", "sources"):
            return
        self._set_filters(source=cycle(self.choices["source"], self.filters.source))

    def action_cycle_difficulty(self) -> None:
        if self._choices_unread("d", "levels"):
            return
        self._set_filters(difficulty=cycle(self.choices["difficulty"], self.filters.difficulty))

    def action_cycle_run(self) -> None:
        if self._choices_unread("r", "runs"):
            return
        runs = [r for r, _ in self.choices["runs"]]
        current = self.filters.run_ids[0] if len(self.filters.run_ids) == 1 else None
        chosen = cycle(runs, current)
        self._set_filters(run_ids=(chosen,) if chosen is not None else ())

    def action_clear_filters(self) -> None:
        self._set_filters(run_ids=(), metric=None, failed=False, verdict=None, source=None,
                          difficulty=None, text="")

    def action_search(self) -> None:
        box = self.query_one("#results_search", Input)
        box.value = self.filters.text
        box.display = True
        box.focus()

    @on(Input.Submitted, "#results_search")
    def _search_typed(self, event: Input.Submitted) -> None:
        event.input.display = False
        self.query_one("#results_table").focus()
        self._set_filters(text=" ".join(event.value.split()))

    def _show_filters(self) -> None:
        f = self.filters
        labels = dict(self.choices["runs"])
        active = []
        if f.failed:
            active.append(f"failed {METRIC_LABELS[f.metric]}" if f.metric else "failed only")
        elif f.metric:
            active.append(METRIC_LABELS[f.metric])
        for value in (f.verdict, f.source, f.difficulty):
            if value:
                active.append(preview(value, 16))
        if f.text:
            active.append(f"/{preview(f.text, 24)}")
        line = self.query_one("#filter_line", Static)
        text = Text("Filters: ", style="bold")
        own_line = False
        if f.run_ids:
            # each run's label takes the room the other filters leave on the line; a label cut
            # keeps its number and its name's end, and its release and protocol where they fit
            # (run_fit); a cut at 40 cells at its end read '#3 baseline-gpt-4o-mini-2024-08-06
            # (ref…' (issue 28.2). Where the other filters leave too little room for every
            # label whole, the runs take a line of their own and the other filters the next
            # (walk8: with a filter set, the release and the protocol went)
            # The runs take their own line where they leave the others less than FILTER_ROOM,
            # whether or not another filter is set: a filter key keeps the line's height
            width = line.content_region.width or self.app.size.width - 2
            full = [preview(labels.get(r, f"#{r}"), 10 * width) for r in f.run_ids]
            gaps = 2 * (len(f.run_ids) - 1)
            others = sum(len(a) + 3 for a in active) + len("Filters: ") + len(FILTER_HINT)
            runs = sum(len(label) for label in full) + gaps
            # (and before the labels are read, as they most often do: the first page, which
            # brings them, then keeps the line's height)
            if not labels or runs > width - len("Filters: ") - len(FILTER_HINT) - FILTER_ROOM \
                    or (active and runs > width - others):
                each = (width - len("Filters: ") - gaps) // len(f.run_ids)
                text.append(", ".join(run_fit(label, max(RUN_WIDTH, each)) for label in full),
                            style="reverse")
                text.append("\n" + " " * len("Filters: "))
                own_line = True
            else:
                each = (width - others - gaps) // len(f.run_ids)
                active.insert(0, ", ".join(run_fit(label, max(RUN_WIDTH, each))
                                           for label in full))
        # under the runs' own line, "none" read as "no run" (walk at 80x24): it is no other filter
        text.append(" · ".join(active) if active else ("no other filter" if own_line else "none"),
                    style="reverse" if active else "dim")
        text.append(FILTER_HINT, style="dim")
        # a line that fits, in place of one that fitted at this width, keeps the line's height:
        # no layout of the screen for it (a filter key's first frame, ~5-10 ms of CPU at 1M
        # scores; the first frame's counts and its resize, one layout each). Before its first
        # layout the line's width is the screen's less its padding
        room = line.content_region.width or self.app.size.width - 2
        fitted = self.filter_fitted_at
        if fitted is None and line.content_region.width == room and line.size.height:
            fitted = (room, line.size.height)       # a line that wrapped, as laid out
        lines = text.split("\n")
        fits = all(part.cell_len <= room for part in lines)
        if fits and fitted is not None and fitted[0] == room and len(lines) < fitted[1]:
            # fewer lines than the line has at this width: it keeps its height, so a key that
            # sets or clears a run's own line lays nothing out (r and x at 1M scores: a layout
            # of the screen and a second paint, ~20% of their CPU); the line freed shows the
            # filter keys the footer has no room for
            text.append("\n" + keys_line(room), style="dim")
            text.append("\n " * (fitted[1] - len(lines) - 1))
            lines = text.split("\n")
        if text == self.filter_text and fitted is not None and fitted[0] == room:
            return                      # drawn as it is (the sources and levels read later)
        self.filter_text = text
        line.update(text, layout=not (fits and fitted == (room, len(lines))))
        self.filter_fitted_at = (room, len(lines)) if fits else None

    # -- pages -----------------------------------------------------------------------------
    def _reload(self) -> None:
        self.page_starts = [None]
        self.page_number = 1
        self._load_page(self.filters, None, 1, with_choices=not self.choices["runs"])

    def action_next_page(self) -> None:
        if self.filters.text and self.page is not None and self.page.has_more:
            self.notify(f"A search shows its first {SEARCH_LIMIT} matches: add words to narrow it.")
            return
        if self.page is None or not self.page.has_more:
            self.notify("This is the last page.")
            return
        after = self.page.after
        if len(self.page_starts) <= self.page_number:
            self.page_starts.append(after)
        self._load_page(self.filters, after, self.page_number + 1)

    def action_previous_page(self) -> None:
        if self.page_number <= 1:
            self.notify("This is the first page.")
            return
        self._load_page(self.filters, self.page_starts[self.page_number - 2],
                        self.page_number - 1)

    def _load_page(self, filters: Filters, after: browse.Key | None, number: int,
                   with_choices: bool = False) -> None:
        self.page_pending = True
        self._read_page(filters, after, number, with_choices, self.counts_kept.get(filters),
                        dict(self.items_kept))

    @work(thread=True, exclusive=True, exit_on_error=False, group="loaders",
          description="Loading results")
    def _read_page(self, filters: Filters, after: browse.Key | None, number: int,
                   with_choices: bool = False,
                   kept: tuple[Any, dict[str, Any]] | None = None,
                   held: dict[tuple[int, int, int], tuple[Any, Any]] | None = None) -> None:
        with self.qc_app.open_store() as store:
            # the page first; its counts and the filters' choices (each a pass over the
            # run's rows: 0.1-0.3 s at 1M scores) follow it, unless counted before
            # (``kept``) and nothing was written since
            page = (search_results(store, filters, limit=SEARCH_LIMIT) if filters.text
                    else browse.page(store, filters, after=after, limit=PAGE_SIZE))
            version = None if filters.text else browse.counts_version(store, filters)
            # the runs' labels with the first page (the filter line names them: drawn with
            # the rows, its height is set once); the sources and levels follow
            runs = browse.run_labels(store) if with_choices else None
            known = kept[1] if kept is not None and kept[0] == version else None
            # the first row's item with it (the cursor lands there): the table and the item
            # pane are drawn in one pass, not a second worker and a second layout (~40 ms
            # of a page turn's CPU at 1M scores); and the next row's item, read ahead. Those
            # read with an earlier page (``held``: item -> what its run held as it was read,
            # and the item) are taken as they are while nothing their run holds was written
            # since: another metric's page, the filters cleared, a page seen before open on
            # items read already (their read: ~3.5 ms of CPU of an m or x at 1M scores,
            # before the page is sent)
            first = None
            near: dict[tuple[int, int, int], Any] = {}
            items: dict[tuple[int, int, int], tuple[Any, Any]] = {}
            if page.rows:
                keys = _item_keys(page.rows)[:2]
                # each run's, before its items are read
                run_at = {r: browse.items_version(store, [r]) for r in {k[0] for k in keys}}
                for key in keys:
                    had = held.get(key) if held is not None else None
                    near[key] = (had[1] if had is not None and had[0] == run_at[key[0]] else
                                 browse.item_detail(store, *key, contexts=self.contexts))
                    items[key] = (run_at[key[0]], near[key])
                first = (keys[0], near[keys[0]])
            self.post_message(ResultsPageLoaded(filters, page, number, counts=known,
                                                first=first, near=near, runs=runs,
                                                items=items))
            if get_current_worker().is_cancelled:
                return
            choices: dict[str, Any] | None = None
            if with_choices:
                choices = dict(browse.filter_choices(store))
                choices["runs"] = runs
            counts: dict[str, Any] | None = None
            if not filters.text and known is None:
                counts = {"rows": browse.count(store, filters), "failed": None}
                if not filters.failed and filters.verdict is None:
                    counts["failed"] = browse.count(store, dataclasses.replace(filters,
                                                                               failed=True))
        if choices is not None or counts is not None:
            self.post_message(ResultsCounted(filters, number, choices, counts, version))

    @on(ResultsCounted)
    def _counted(self, message: ResultsCounted) -> None:
        if message.choices is not None:
            self.choices, self.choices_read = message.choices, True
            self._show_filters()
        if message.counts is not None and message.version is not None:
            self._keep_counts(message.filters, message.version, message.counts)
        page = self.page
        if message.filters != self.filters or message.number != self.page_number or page is None:
            return
        shown = len(page.rows)
        self.query_one("#results_table", DataTable).border_title = self._rows_title(
            (message.number - 1) * PAGE_SIZE + 1, shown, page.has_more, message.counts)

    def _keep_counts(self, filters: Filters, version: Any, counts: dict[str, Any]) -> None:
        """Keep ``counts`` of ``filters`` for its next page or its next visit; the failed rows
        counted with them are the rows of the same filters with ``failed`` on (f)."""
        self.counts_kept[filters] = (version, counts)
        if counts.get("failed") is not None:
            self.counts_kept[dataclasses.replace(filters, failed=True)] = (
                version, {"rows": counts["failed"], "failed": None})

    @on(ResultsPageLoaded)
    def _page_loaded(self, message: ResultsPageLoaded) -> None:
        if message.choices is not None:
            self.choices, self.choices_read = message.choices, True
        if message.runs is not None:
            self.choices["runs"] = message.runs
        if message.filters != self.filters:
            return  # the filters changed while this page was loading
        self._show_filters()            # the filters with their rows, in one paint
        self.page_pending = False
        self.page = message.page
        self.details = dict(message.near)
        for key, item in message.items.items():
            self.items_kept.pop(key, None)
            self.items_kept[key] = item         # the latest last
        while len(self.items_kept) > ITEMS_KEPT:
            del self.items_kept[next(iter(self.items_kept))]
        self.page_text = message.filters.text
        self.page_number = message.number
        while len(self.page_starts) < message.number:
            self.page_starts.append(None)
        table = self.query_one("#results_table", DataTable)
        self.drawing = True
        try:
            self._draw_rows(table, message.page.rows)
            if message.page.rows:
                table.move_cursor(row=0)
        finally:
            self.drawing = False
        first = (message.number - 1) * PAGE_SIZE + 1
        shown = len(message.page.rows)
        table.border_title = self._rows_title(first, shown, message.page.has_more,
                                              message.counts)
        table.border_subtitle = (f"the first {shown} matches" if message.filters.text else
                                 f"page {message.number}" + (" · ] next" if message.page.has_more
                                                             else ""))
        if shown:
            self._show_row(loaded=message.first)
            self.shown_row = 0
        else:
            self.detail_key = None
            self.detail = None
            self.detail_pending = False
            self.query_one("#item_pane").border_title = "Item"
            self._render_detail()

    def _draw_rows(self, table: DataTable[Any], rows: list[browse.ResultRow]) -> None:
        """The page's rows, in columns as wide as their cells (never clipped to the header's
        width); the run's name takes the room the other columns leave."""
        self.rows_width = table.content_region.width
        width = self.rows_width - table.styles.scrollbar_size_vertical
        drawing, self.drawing = self.drawing, True
        try:
            set_rows(table, COLUMNS, page_cells(rows, width, 2 * table.cell_padding,
                                            [label for label, _ in COLUMNS]),
                     ["|".join(map(str, row.key)) for row in rows])
        finally:
            self.drawing = drawing

    @staticmethod
    def _rows_title(first: int, shown: int, has_more: bool,
                    counts: dict[str, Any] | None) -> str:
        """'Rows 1–50 of 1,234 · 312 failed' (a count past the cap reads '1,000,000+');
        without counts (not read yet, or a search) 'of more' or the last row's number."""
        def num(pair: tuple[int, bool]) -> str:
            return f"{pair[0]:,}" + ("" if pair[1] else "+")

        counts = counts or {}
        total = counts.get("rows")
        if not shown:
            return "No rows match"
        if total is not None:
            text = f"Rows {first:,}–{first + shown - 1:,} of {num(total)}"
        else:
            text = (f"Rows {first:,}–{first + shown - 1:,}"
                    + (" of more" if has_more else f" of {first + shown - 1:,}"))
        failed = counts.get("failed")
        if failed is not None:
            text += f" · {num(failed)} failed"
        return text

    def selected_row(self) -> browse.ResultRow | None:
        table = self.query_one("#results_table", DataTable)
        if self.page is None or not 0 <= table.cursor_row < len(self.page.rows):
            return None
        return self.page.rows[table.cursor_row]

    def _cursor_moved(self, new: Any) -> None:
        """The cursor's row shown as the cursor moves, in the key's own handling: from its
        RowHighlighted message, which came after the table's repaint, the item pane was
        painted in a second pass (at 1M scores and load 20, ~20-30 ms of a cursor key's
        wall clock)."""
        table = self.query_one("#results_table", DataTable)
        if self.drawing or self.page is None or not 0 <= new.row < min(table.row_count,
                                                                      len(self.page.rows)):
            return          # the rows being drawn (a page's table cleared, then filled)
        self.shown_row = new.row
        self._show_row()

    @on(DataTable.RowHighlighted, "#results_table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        table = self.query_one("#results_table", DataTable)
        if event.cursor_row != table.cursor_row or event.cursor_row == self.shown_row:
            return          # the cursor moved on since, or its row is shown already
        self.shown_row = event.cursor_row
        self._show_row()

    @on(DataTable.RowSelected, "#results_table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.query_one("#item_pane").focus()

    # -- the item --------------------------------------------------------------------------
    def _show_row(self, loaded: tuple[tuple[int, int, int], Any] | None = None) -> None:
        """Show the selected row's item: ``loaded`` is an item already read (the page's first,
        read with it); any other is read by a worker."""
        row = self.selected_row()
        if row is None:
            return
        key = (row.run_id, row.seed_id, row.sample_idx)
        if key == self.detail_key:
            # same item, maybe another metric: its task comes first; while it is still being
            # read (a page turn highlights the row it just asked for) the pane would show the
            # item before it under this one's title, and draw it twice. Read again with a new
            # page (something was written since), it shows what it holds now
            if loaded is not None and loaded[0] == key:
                self.details[key] = loaded[1]
                self.detail, self.detail_pending = loaded[1], False
            if not self.detail_pending:
                self._render_detail()
            return
        self.detail_key = key
        self.query_one("#item_pane").border_title = Text(f"Item {preview(row.item_key, 30)}")
        if loaded is not None and loaded[0] == key:
            self.details[key] = loaded[1]
        if key in self.details:
            # read with the page or ahead of the cursor: shown in this key's own paint
            self.detail_pending = False
            self.detail = self.details[key]
            self._render_detail()
            ahead = self._ahead()
            if ahead:
                self._load_detail(None, ahead)
            return
        self.detail_pending = True
        self._load_detail(key, self._ahead())

    def _ahead(self) -> list[tuple[int, int, int]]:
        """The items of the rows beside the cursor's (the nearest other item above and below
        it on the page) not read yet."""
        table = self.query_one("#results_table", DataTable)
        rows = self.page.rows if self.page is not None else []
        at = table.cursor_row
        if not 0 <= at < len(rows):
            return []
        here = rows[at].key[:3]
        wanted: list[tuple[int, int, int]] = []
        for span in (range(at - 1, -1, -1), range(at + 1, len(rows))):
            for i in span:
                key = (rows[i].run_id, rows[i].seed_id, rows[i].sample_idx)
                if key != here:
                    if key not in self.details:
                        wanted.append(key)
                    break
        return wanted

    @work(thread=True, exclusive=True, exit_on_error=False, group="details",
          description="Loading the item")
    def _load_detail(self, key: tuple[int, int, int] | None,
                     ahead: Sequence[tuple[int, int, int]] = ()) -> None:
        """Read the item ``key`` (None: none) and show it, then the items ``ahead`` (those
        of the rows beside it), kept for the cursor's next move."""
        with self.qc_app.open_store() as store:
            if key is not None:
                detail = browse.item_detail(store, *key, contexts=self.contexts)
                self.post_message(ItemDetailLoaded(key, detail))
            near = {k: browse.item_detail(store, *k, contexts=self.contexts) for k in ahead
                    if not get_current_worker().is_cancelled}
        if near:
            self.post_message(ItemDetailLoaded(None, None, near))

    @on(ItemDetailLoaded)
    def _detail_loaded(self, message: ItemDetailLoaded) -> None:
        on_page = ({(r.run_id, r.seed_id, r.sample_idx) for r in self.page.rows}
                   if self.page is not None else set())
        for key, detail in message.near.items():
            if key in on_page:
                self.details[key] = detail
        if message.key is None or message.key != self.detail_key:
            return
        if message.key in on_page:
            self.details[message.key] = message.detail
        self.detail_pending = False
        self.detail = message.detail
        self._render_detail()

    def _render_detail(self) -> None:
        if self.detail_key is None:
            self.query_one("#item_pane", TextPane).update(Text(
                "No stored score matches these filters." if self.filters != Filters() else
                "No scores stored yet: start a run from the Runs screen (v on the dashboard).",
                style="dim"))
            return
        row = self.selected_row()
        first = TASK_OF.get(row.metric) if row is not None else None
        # no room on the border: the provenance at the item's end. An item shown before is
        # the same parts, which the pane does not draw again (ItemRenders)
        self.provenance_below = not self._provenance_fits()
        self.query_one("#item_pane", TextPane).update(self.renders.render(
            self.detail, show_prompt=self.show_prompts, first_task=first,
            provenance_below=self.provenance_below))
        self._show_provenance()

    def _provenance_fits(self) -> bool:
        """Whether the provenance fits on the item pane's border (the corners, a dash and a
        space each side: '╰─ … ─╯')."""
        pane = self.query_one("#item_pane")
        room = max(16, (pane.outer_size.width or self.app.size.width) - 6)
        return self.detail is None or len(preview(self.detail.provenance, 2000)) <= room

    def _show_provenance(self) -> None:
        """How the run measured (release, model, protocol, judges), under the item pane: on
        its border where it fits, else whole at the end of the item, wrapped (cut at the
        border's width, its 118 characters lost their end at 120 columns)."""
        fits = self._provenance_fits()
        if self.detail is not None and fits == self.provenance_below:
            self._render_detail()       # a new width moved it: on the border, or in the item
            return
        subtitle = preview(self.detail.provenance, 2000) if self.detail is not None and fits else ""
        if subtitle != self.pane_subtitle:      # set, it repaints the pane
            self.pane_subtitle = subtitle
            self.query_one("#item_pane").border_subtitle = Text(subtitle)   # never markup

    def action_toggle_prompts(self) -> None:
        self.show_prompts = not self.show_prompts
        self._render_detail()

    # -- elsewhere -------------------------------------------------------------------------
    def action_side_by_side(self) -> None:
        from screens.dialogs.pick_run import PickRunModal

        row = self.selected_row()
        if row is None:
            self.notify("Select a row first.", severity="warning")
            return
        others = [(r, label) for r, label in self.choices["runs"] if r != row.run_id]
        if not others:
            self.notify("There is only one run; side by side needs two.", severity="warning")
            return

        def chosen(run_b: int | None) -> None:
            if run_b is not None:
                self.qc_app.open_screen("side_by_side", row.run_id, run_b, row.seed_id,
                                        row.sample_idx, TASK_OF.get(row.metric))

        if len(others) == 1:
            chosen(others[0][0])
        else:
            self.app.push_screen(PickRunModal(others, row.item_key), callback=chosen)

    def action_charts(self) -> None:
        runs = list(self.filters.run_ids) or [r for r, _ in self.choices["runs"]]
        self.qc_app.open_screen("charts", runs)

    def action_robustness(self) -> None:
        runs = list(self.filters.run_ids) or [r for r, _ in self.choices["runs"]]
        self.qc_app.open_screen("robustness", runs)

    def worker_failed(self, worker: Worker[object]) -> None:
        if worker.group == "loaders":
            self.page_pending = False
            shown = self.page_text if self.page is not None else ""
            if self.filters.text != shown:    # a search that failed: back to what is shown
                self.filters = dataclasses.replace(self.filters, text=shown)
            self._show_filters()              # the filters asked for, their page or not
        elif worker.group == "details":
            self.detail_pending = False

    def action_back(self) -> None:
        if self.focused is not None and self.focused.id == "results_search":
            self.focused.display = False
            self.query_one("#results_table").focus()
            return
        if self.focused is not None and self.focused.id == "item_pane":
            self.query_one("#results_table").focus()
            return
        self.dismiss(None)
