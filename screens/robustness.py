"""Robustness of runs on derived releases: the diagnosis tables (variants, ladders, drops,
counterfactual and backward problems, step fidelity, self-refine, round trip) with a
terminal chart of each, and a drill-down from the run's items to one item, its parent and
the transformation that made it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Header, Static
from textual_plotext import PlotextPlot

from qcstation.common.safe import preview
from qcstation.eval.types import SHORT
from qcstation.widgets.bullets import hanging
from qcstation.widgets.eval_views import BAR_MARKS, POINT_MARKS, RUN_WIDTH, release_cell, run_cell
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.row_table import RowTable
from screens._base import QCScreen

COLORS = ("cyan", "red", "green", "yellow", "magenta", "blue")
# each series has a mark of its own beside its colour (the charts screen's): a ladder's
# curves were all ● and the bars of two series told apart by colour only
ITEM_DIMS = ("un", "re", "ar", "rt", "rm", "fi")


@dataclass
class ItemRow:
    seed_id: int
    key: str
    transform: str
    level: Any
    parent: str
    marks: dict[str, str]


class DiagnosisLoaded(Message):
    def __init__(self, dgs: list[Any], tables: list[list[Any]], items: list[list[ItemRow]]) -> None:
        super().__init__()
        self.dgs, self.tables, self.items = dgs, tables, items


class RobustItemLoaded(Message):
    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text


def wrapped_header(header: str, width: int = 10) -> str:
    """A column's header on up to three lines (``consistent\nfailures``), so a table of many
    columns fits in 80 columns where it can."""
    import textwrap

    lines = textwrap.wrap(header, width=max(width, *(len(w) for w in header.split() or [""])))
    return "\n".join(lines[:3]) if lines else header


def visible_columns(table: DataTable[Any], width: int) -> tuple[list[int], bool]:
    """The indexes of the scrolling columns wholly shown in ``width`` cells (the fixed label
    columns first, then the others from the table's horizontal scroll position), and whether
    columns are hidden on the left."""
    widths = [column.get_render_width(table) for column in table.ordered_columns]
    fixed = min(table.fixed_columns, len(widths))
    start = int(table.scroll_x) + sum(widths[:fixed])
    shown: list[int] = []
    x = 0
    for index, w in enumerate(widths):
        if index >= fixed and x >= start and x + w <= start - sum(widths[:fixed]) + width:
            shown.append(index)
        x += w
    return (shown or [fixed]), int(table.scroll_x) > 0


class RobustnessScreen(QCScreen):
    """``t`` next table, ``r`` next run, ``i`` the run's items (Enter: one item), Esc back."""

    BINDING_GROUP_TITLE = "Robustness"
    BINDINGS = [
        Binding("t", "next_table", "Next table", tooltip="The next diagnosis table and its chart",
                id="robust-next"),
        Binding("r", "next_run", "Run", tooltip="The next run", id="robust-run"),
        Binding("i", "items", "Items", tooltip="The run's derived items: Enter reads one with "
                                               "its parent and transformation", id="robust-items"),
        Binding("escape", "back", "Back", id="robust-back"),
        # before the table's own: the note of what is shown follows the scroll
        Binding("right", "scroll_columns(1)", "More columns", show=False, priority=True,
                tooltip="A table wider than the screen: the columns to the right",
                id="robust-right"),
        Binding("left", "scroll_columns(-1)", "Back columns", show=False, priority=True,
                id="robust-left"),
    ]

    #: from this many terminal rows up the shown table's note is under its title; below, F1
    #: shows it (at 24 rows it took 8 lines and left the table none)
    NOTES_FROM_ROWS = 40

    def __init__(self, run_ids: list[int]) -> None:
        super().__init__()
        self.run_ids = sorted(set(run_ids))
        self.run = 0
        self.table = 0
        self.mode = "tables"           # tables | items | item
        self.data: DiagnosisLoaded | None = None
        self.busy = True
        self.head = Text("")
        self._fits = 0                 # widths set to end the table at a whole column

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Computing the diagnosis…", id="robust_title")
        yield PlotextPlot(id="robust_chart")
        # the label column (dimension, item) stays in view when the others scroll
        yield RowTable(id="robust_table", cursor_type="row", zebra_stripes=True,
                        fixed_columns=1)
        with VerticalScroll(id="robust_item"):
            yield Static("", id="robust_item_text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#robust_chart").styles.height = 9
        self.query_one("#robust_item").display = False
        # the table learns its width after the refresh that follows a draw (on the first
        # draw at 80x24 the mark came before it: a wide table was cut with no note)
        self.watch(self.query_one("#robust_table", DataTable), "virtual_size",
                   self._table_resized, init=False)
        self._load()

    def _table_resized(self, _size: object) -> None:
        self._fits = 0
        self.call_after_refresh(self._mark_cut_columns)

    def help_notes(self) -> RenderableType:
        note = self._table_note()
        return Text.assemble((f"{note}\n\n" if note else ""), Text(

            "The same figures as `qcstation eval robustness RUN` and the report's Robustness "
            "section. A_avg: mean over seeds of the mean over its variants; A_wst: of the "
            "minimum; RR = A_wst / A_avg; RC: the share of repeated samples agreeing with the "
            "first. Drops compare each perturbed item with its parent in the same model's run "
            "on the parents (the base run). Items: Enter reads one, with its parent and what "
            "the transformation changed."))

    def _table_note(self) -> str:
        """What the shown table's columns mean ('' when it has no note)."""
        if self.data is None or self.mode != "tables":
            return ""
        tabs = self.data.tables[self.run]
        return str(tabs[self.table % len(tabs)].note or "") if tabs else ""

    def on_resize(self) -> None:
        if self.data is not None and self.mode == "tables":   # the head's room, the note
            self._draw()

    @work(thread=True, exclusive=True, exit_on_error=False, group="loaders",
          description="Computing the robustness diagnosis")
    def _load(self) -> None:
        from qcstation.eval.robustness.diagnose import diagnose
        from qcstation.eval.robustness.load import load_run_data
        from qcstation.eval.robustness.tables import tables

        dgs, tabs, items = [], [], []
        with self.qc_app.open_store() as store:
            for r in self.run_ids:
                dg = diagnose(store, r)
                dgs.append(dg)
                tabs.append(tables(dg))
                data = load_run_data(store, r)
                items.append([
                    ItemRow(it.seed_id, it.key, it.transform or "seed",
                            "" if it.level is None else it.level, it.parent or "",
                            {d: ("✓" if a == 1.0 else "✗" if a == 0.0 else f"{100 * a:.0f}%")
                             for d in ITEM_DIMS if (a := it.acc(d)) is not None})
                    for it in data.items.values()])
        self.post_message(DiagnosisLoaded(dgs, tabs, items))

    @on(DiagnosisLoaded)
    def _loaded(self, message: DiagnosisLoaded) -> None:
        self.data = message
        self.busy = False
        self._draw()

    def _draw(self) -> None:
        data = self.data
        if data is None:
            return
        dg = data.dgs[self.run]
        tabs = data.tables[self.run]
        # the run named whole (with its model) where the line has room, else cut in its middle
        # (its number, its end and its model stay: '#3 basel…08-06 (gpt-4o-mini)'); a cut at
        # 30 cells lost the end that told runs apart. What it measured follows: the release
        # and the protocol (issue 28.5)
        protocol = f" · {preview(dg.protocol, 80)}" if dg.protocol else ""
        room = self.size.width - 2
        # the release takes the room the line leaves (whole at 120 columns; a cut at 30 read
        # 'dyn-relational-long-rel…@1.0.0' with 30 cells free), its version always kept
        count = f": {dg.n_items} items"
        release = release_cell(dg.release, max(16, room - 4 - len(protocol) - len(count)))
        rest = f" on {release}{protocol}{count}"
        if len(dg.title) + len(rest) <= room:
            head = Text(f"{dg.title}{rest}", style="bold")
        else:   # the run on its line (whole where it fits), what it measured on the next
            head = Text(f"{run_cell(dg.title, max(RUN_WIDTH, room))}\n{rest.lstrip()}",
                        style="bold")
        if len(self.run_ids) > 1:
            head.append(f"  ({self.run + 1}/{len(self.run_ids)}, r: next)", style="dim")
        table = self.query_one("#robust_table", DataTable)
        table.clear(columns=True)
        chart = self.query_one("#robust_chart", PlotextPlot)
        if self.mode == "items":
            rows = data.items[self.run]
            head.append(f"\nItems ({len(rows)}): Enter reads one, its parent and the transformation",
                        style="dim")
            table.add_columns("item", "transform", "level", "parent",
                              *(SHORT[d] for d in ITEM_DIMS))
            for n, row in enumerate(rows):
                table.add_row(preview(row.key, 34), row.transform, str(row.level),
                              preview(row.parent, 20), *(row.marks.get(d, "") for d in ITEM_DIMS),
                              key=str(n))
            chart.display = False
        elif not tabs:
            head.append("\nNo derived item of this run is scored yet: evaluate a derived release "
                        "(`qcstation derive`, `release approve --set`, `eval run --release`).",
                        style="dim")
            chart.display = False
        else:
            self.table %= len(tabs)
            t = tabs[self.table]
            head.append(f"\n{t.title}  ({self.table + 1}/{len(tabs)}, t: next)")
            if t.note and self.app.size.height >= self.NOTES_FROM_ROWS:
                head.append(f"\n{t.note}", style="dim")
            elif t.note:   # at 24 rows the note took 8 lines and left the table none
                head.append("  F1: what the columns mean", style="dim")
            labels = [wrapped_header(str(h)) for h in t.headers]
            table.header_height = max((label.count("\n") + 1 for label in labels), default=1)
            table.add_columns(*labels)
            for row in t.rows:
                table.add_row(*(preview(str(c), 24) for c in row))
            chart.display = True
            self._chart(chart, dg, t)
        # a line longer than the screen goes on indented ('... (1/2, t: next)  F1: what the' /
        # 'columns mean' went on at column 0 at 80 columns, issue 28.2)
        self.query_one("#robust_title", Static).update(hanging(head))
        self.head = head
        self.call_after_refresh(self._mark_cut_columns)

    def _mark_cut_columns(self) -> None:
        """A table wider than the screen says so, and how to see the rest: no column (a
        memorisation count of 13 read as 1) is cut silently. The table ends at the last
        column wholly in view (a part of the next one read '0.' for 0.75), and the note
        counts the value columns, not the label column that stays."""
        table = self.query_one("#robust_table", DataTable)
        title = self.query_one("#robust_title", Static)
        widths = [column.get_render_width(table) for column in table.ordered_columns]
        # the table's border and scroll bar, as drawn now
        chrome = max(0, table.outer_size.width - table.scrollable_content_region.width)
        room = max(1, (self.size.width or self.app.size.width) - chrome)
        if not widths or sum(widths) <= room:
            if table.styles.width is not None:
                table.styles.width = None
            table.border_subtitle = ""
            return
        shown, left = visible_columns(table, room)
        fixed = min(table.fixed_columns, len(widths))
        whole = sum(widths[:fixed]) + sum(widths[at] for at in shown)
        region = table.scrollable_content_region.width
        if region != whole and self._fits < 3:
            # the region the whole columns need; the border and scroll bars are what they
            # are once laid out at that width: looked at again after the refresh
            self._fits += 1
            table.styles.width = table.outer_size.width + whole - region
            self.call_after_refresh(self._mark_cut_columns)
        table.border_subtitle = ""
        values = len(widths) - fixed
        first, last = shown[0] - fixed + 1, shown[-1] - fixed + 1
        note = Text(f"\ncolumns {first}-{last} of {values} shown"
                    + (" · → shows the rest" if last < values else "")
                    + (" · ← goes back" if left else ""), style="yellow")
        title.update(hanging(Text.assemble(self.head, note)))

    @on(DataTable.HeaderSelected, "#robust_table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        self.call_after_refresh(self._mark_cut_columns)

    def _chart(self, chart: PlotextPlot, dg: Any, t: Any) -> None:
        from qcstation.eval.robustness.figures import ladder_series

        plt = chart.plt
        plt.clear_figure()
        if t.key.startswith("ladder-"):
            levels: set[int] = set()
            for k, (label, (xs, ys)) in enumerate(ladder_series(dg, t.extra["ladder"]).items()):
                plt.plot(xs, ys, marker=POINT_MARKS[k % len(POINT_MARKS)],
                         color=COLORS[k % len(COLORS)], label=label)
                levels.update(xs)
            plt.xticks(sorted(levels), [str(lv) for lv in sorted(levels)])
            plt.ylim(0, 100)
        elif t.key.startswith("drop-"):
            by = dg.drops[t.key[5:]]
            plt.bar([SHORT.get(d, d) for d in by], [100 * (v.drop or 0.0) for v in by.values()],
                    color="red")
        elif t.key == "variants":
            dims = list(dg.variants)
            plt.multiple_bar([SHORT.get(d, d) for d in dims],
                             [[100 * (dg.variants[d].robust.a_avg or 0) for d in dims],
                              [100 * (dg.variants[d].robust.a_wst or 0) for d in dims]],
                             # plotext takes labels and a colour per series; the stub
                             # textual_plotext ships says label and one colour
                             labels=["A_avg", "A_wst"],  # type: ignore[call-arg]
                             color=["cyan", "red"],  # type: ignore[arg-type]
                             marker=list(BAR_MARKS[:2]))  # type: ignore[arg-type]
            plt.ylim(0, 100)
        elif t.key == "counterfactual":
            dims = list(dg.counterfactual)
            plt.multiple_bar([SHORT.get(d, d) for d in dims],
                             [[100 * (dg.counterfactual[d].follow or 0) for d in dims],
                              [100 * (dg.counterfactual[d].repeat or 0) for d in dims]],
                             labels=["new gold", "parent's gold"],  # type: ignore[call-arg]
                             color=["green", "red"],  # type: ignore[arg-type]
                             marker=list(BAR_MARKS[:2]))  # type: ignore[arg-type]
            plt.ylim(0, 100)
        else:
            chart.display = False
        plt.title(t.title[:70])
        chart.refresh()

    def action_scroll_columns(self, step: int) -> None:
        table = self.query_one("#robust_table", DataTable)
        # a column at a time: the first scrolling column in view moves one column on (or
        # back), each column at its start, up to the last one wholly in view
        widths = [column.get_render_width(table) for column in table.ordered_columns]
        fixed = min(table.fixed_columns, len(widths))
        starts = [sum(widths[fixed:at]) for at in range(fixed, len(widths))]
        chrome = max(0, table.outer_size.width - table.scrollable_content_region.width)
        room = max(1, (self.size.width or self.app.size.width) - chrome - sum(widths[:fixed]))
        last = max(0, sum(widths[fixed:]) - room)          # the last column wholly in view
        left = int(table.scroll_x)
        if step > 0:
            target = min(next((st for st in starts if st > left), left),
                         next((st for st in starts if st >= last), last))
        else:
            target = max((st for st in starts if st < left), default=0)
        table.scroll_to(x=target, animate=False)
        self._fits = 0
        self.call_after_refresh(self._mark_cut_columns)

    def action_next_table(self) -> None:
        self.mode = "tables"
        self.table += 1
        self._show_table()

    def action_next_run(self) -> None:
        self.run = (self.run + 1) % max(1, len(self.run_ids))
        self.table = 0
        self._show_table()

    def action_items(self) -> None:
        self.mode = "items"
        self._show_table()

    def _show_table(self) -> None:
        self._fits = 0
        self.query_one("#robust_item").display = False
        self.query_one("#robust_table").display = True
        self._draw()
        self.query_one("#robust_table").focus()

    @on(DataTable.RowSelected, "#robust_table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        if self.mode != "items" or self.data is None or event.row_key.value is None:
            return
        row = self.data.items[self.run][int(event.row_key.value)]
        self._load_item(self.run_ids[self.run], row.seed_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="details",
          description="Reading the item")
    def _load_item(self, run_id: int, seed_id: int) -> None:
        with self.qc_app.open_store() as store:
            text = item_text(store, run_id, seed_id)
        self.post_message(RobustItemLoaded(text))

    @on(RobustItemLoaded)
    def _item_loaded(self, message: RobustItemLoaded) -> None:
        self.mode = "item"
        self.query_one("#robust_item_text", Static).update(message.text)
        self.query_one("#robust_table").display = False
        self.query_one("#robust_chart").display = False
        pane = self.query_one("#robust_item")
        pane.display = True
        pane.focus()

    def action_back(self) -> None:
        if self.mode == "item":
            self.mode = "items"
            self._show_table()
            return
        if self.mode == "items":
            self.mode = "tables"
            self._show_table()
            return
        self.dismiss(None)

    def worker_failed(self, worker: object) -> None:
        self.busy = False


def item_text(store: Any, run_id: int, seed_id: int) -> Text:
    """One item of a run: its question and gold, the model's verdicts and answers, its
    parent's question and answer, and the transformation with its parameters."""
    from qcstation.eval.robustness.load import load_run_data, seed_text

    data = load_run_data(store, run_id)
    it = data.items.get(seed_id)
    out = Text()
    if it is None:
        return Text("This item is not in the run.", style="dim")
    out.append(f"{preview(it.key, 70)}\n", style="bold")
    out.append(f"transform {it.transform or 'none (a seed)'}"
               + (f", level {it.level}" if it.level is not None else "") + "\n")
    out.append("\nQuestion\n", style="bold")
    out.append(preview(it.question, 2000) + "\n")
    out.append(f"gold {preview(it.gold, 40)}\n")
    out.append("\nThe model\n", style="bold")
    for d in ITEM_DIMS:
        obs = it.obs.get(d)
        if not obs:
            continue
        answers = ", ".join(("✓ " if o.ok else "✗ ") + preview(o.answer or "(none)", 20) for o in obs)
        out.append(f"  {SHORT[d]:4} {answers}\n")
    if it.parent_seed_id:
        parent = seed_text(store, int(it.parent_seed_id))
        out.append(f"\nParent {preview(it.parent, 40)}\n", style="bold")
        if parent is not None:
            out.append(preview(parent[0], 2000) + "\n")
            out.append(f"answer {preview(parent[1], 40)}\n")
    if it.params:
        out.append("\nThe transformation\n", style="bold")
        for line in params_lines(it.params):
            out.append(f"  {line}\n")
    if it.round_trip:
        out.append("\nRound trip\n", style="bold")
        out.append(preview(json.dumps(it.round_trip, sort_keys=True), 500) + "\n")
    return out


def params_lines(params: dict[str, Any]) -> list[str]:
    """A transformation's parameters, one line each: a changed given as ``name: old -> new``
    (with the words the question writes), other parameters as ``key: value``."""
    out = []
    for key, value in sorted(params.items()):
        if key == "givens" and isinstance(value, dict):
            for name, g in sorted(value.items()):
                if not isinstance(g, dict):
                    continue
                words = (f" (written {preview(g.get('words'), 20)!r} -> "
                         f"{preview(g.get('new_words'), 20)!r})" if g.get("new_words") else "")
                out.append(f"{preview(name, 30)}: {preview(g.get('old'), 20)} -> "
                           f"{preview(g.get('new'), 20)}{words}")
        elif key == "sentences" and isinstance(value, list):
            for sent in value:
                text = sent.get("text") if isinstance(sent, dict) else sent
                out.append(f"noise: {preview(text, 120)}")
        else:
            out.append(f"{preview(key, 30)}: "
                       f"{preview(json.dumps(value, ensure_ascii=False, sort_keys=True), 200)}")
    return out
