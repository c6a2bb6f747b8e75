"""Charts in the terminal: dimension scores per run with their 95% intervals, and one
metric's accuracy by difficulty (plotext through textual-plotext)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.worker import get_current_worker
from textual.app import ComposeResult, RenderResult
from textual.binding import Binding
from textual.widgets import Header, Static
from textual_plotext import PlotextPlot

from qcstation.common.safe import preview
from qcstation.eval import charts as chartdata
from qcstation.eval.types import METRICS
from qcstation.messages import ChartBreakdownLoaded, ChartDataLoaded
from qcstation.widgets.eval_views import BAR_MARKS, POINT_MARKS, SHORT, run_line
from screens._base import QCScreen
from qcstation.widgets.footer import KeyFooter

#: One colour per run (plotext colour names; the legend uses the same).
COLORS = ("cyan", "red", "green", "yellow", "magenta", "blue", "white")
RICH_COLORS = {"cyan": "cyan", "red": "red", "green": "green", "yellow": "yellow",
               "magenta": "magenta", "blue": "blue", "white": "white"}
#: One fill per run on the difficulty chart (the legend shows it): its bars are told apart
#: without colour, where only their order did (issue 28.2)
MARKS = BAR_MARKS
MAX_RUNS = len(COLORS)
CHARTS = ("dimensions", "difficulty")


class ChartPlot(PlotextPlot):
    """A PlotextPlot that keeps what plotext built for a figure at a size: a chart switch
    lays the screen out again (the legend's height changes) and the chart, resized, is
    painted a second time at the size it was just built for; going back to a chart shown
    builds nothing. ``figure`` names what ``plt`` holds, its data included (None: nothing
    is kept); whoever draws sets it with the figure."""

    #: the drawings kept (a few charts and sizes)
    KEPT = 8

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.figure: Hashable | None = None
        self._built: dict[Hashable, RenderResult] = {}

    def render(self) -> RenderResult:
        if self.figure is None:
            return super().render()
        key = (self.figure, self.size, self.app.theme)
        built = self._built.get(key)
        if built is None:
            if len(self._built) >= self.KEPT:
                self._built.clear()
            built = self._built[key] = super().render()
        return built


def level_gaps(run: chartdata.RunSeries, levels: list[str]) -> Text:
    """What the difficulty bars cannot show, in words beside the run: a level at 0% and a
    level with no score both draw no bar, so they read the same without this ('0%: hard ·
    no data: easy')."""
    zero = [lv for lv in levels if (p := run.points.get(lv)) is not None and p.value == 0]
    none = [lv for lv in levels if (p := run.points.get(lv)) is None or p.value is None]
    out = Text()
    if zero:
        out.append(f"\n   0% (no bar): {', '.join(preview(lv, 20) for lv in zero)}")
    if none:
        out.append(f"\n   no data (no bar): {', '.join(preview(lv, 20) for lv in none)}",
                   style="dim")
    return out


def no_data_words(run_ids: list[int], runs: list[Any]) -> tuple[str, str] | None:
    """(the chart's words, the legend's) when ``runs`` have no score to draw, else None: no
    run picked, or runs not scored yet."""
    if any(p.value is not None for run in runs for p in run.points.values()):
        return None
    if not run_ids:
        return ("No data: no evaluation run yet",
                "No evaluation runs yet, so no scores to chart. An evaluation run makes them: "
                "Esc, then n on the runs screen starts one (or `qcstation eval run`).")
    return ("No data: these runs have no scores yet",
            "No scores yet: the runs drawn have no scored replies. A run is scored as it "
            "finishes; one answered and not scored (status 'unscored') is scored by Enter on "
            "the runs screen (or `qcstation eval score RUN`).")


class ChartsScreen(QCScreen):
    """``t`` switches chart, ``m`` the metric of the difficulty chart, Esc goes back."""

    BINDING_GROUP_TITLE = "Charts"
    BINDINGS = [
        Binding("t", "next_chart", "Next chart",
                tooltip="Dimension scores / accuracy by difficulty", id="charts-next"),
        Binding("m", "cycle_metric", "Metric", tooltip="The difficulty chart's metric",
                id="charts-metric"),
        Binding("escape", "back", "Back", id="charts-back"),
    ]

    def __init__(self, run_ids: list[int]) -> None:
        super().__init__()
        # the most recent runs when there are more than colours
        self.run_ids = sorted(set(run_ids))[-MAX_RUNS:]
        self.dropped = max(0, len(set(run_ids)) - MAX_RUNS)
        self.chart = CHARTS[0]
        self.metric = "fi"
        self.data: ChartDataLoaded | None = None
        self.busy = True
        self.reading = False          # the loader runs (the breakdown may still come)
        #: every metric's difficulty breakdown, read once after the dimension scores are
        #: shown: t and m only draw (the first t read one metric's, 75 ms of CPU at 1M scores)
        self._by_level: dict[str, tuple[list[str], list[Any]]] = {}
        # count the dimension scores and the breakdowns read: a chart's drawing is kept for
        # the data it drew
        self.scores_read = self.levels_read = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield ChartPlot(id="chart")
        yield Static("", id="chart_legend")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.reading = True
        self._load()

    def help_notes(self) -> RenderableType:
        return Text(
            "Scores are on one 0-100 scale: accuracies in percent, LLM@Un as the judges' mean "
            "score over judged replies (failed replies are counted apart in the legend, "
            "never drawn as 0). Vertical bars are bootstrap 95% intervals over items (the same numbers "
            "as `qcstation eval leaderboard` and the report). A metric that was not scored "
            "(LLM@Un and All-Pass with no judge) has no point. At most seven runs are "
            "drawn: the most recent ones.")

    @work(thread=True, exclusive=True, exit_on_error=False, group="loaders",
          description="Computing the charts")
    def _load(self) -> None:
        """The dimension scores first (the chart shown first), then every metric's difficulty
        breakdown, kept for t and m. Each run's scores are read once, for both."""
        with self.qc_app.open_store() as store:
            tables = chartdata.load_tables(store, self.run_ids)
            scores = chartdata.dimension_scores(store, self.run_ids, tables=tables)
            self.post_message(ChartDataLoaded(scores, [], None, self.metric))
            if get_current_worker().is_cancelled:
                return
            by_metric = chartdata.by_difficulty_all(store, self.run_ids, tables=tables)
        self.post_message(ChartBreakdownLoaded(by_metric))

    @on(ChartDataLoaded)
    def _loaded(self, message: ChartDataLoaded) -> None:
        self.data = message
        self.scores_read += 1
        self._draw()
        if self.chart == "difficulty":
            self._difficulty_wanted()

    @on(ChartBreakdownLoaded)
    def _breakdown_loaded(self, message: ChartBreakdownLoaded) -> None:
        self._by_level = message.by_metric
        self.levels_read += 1
        self.busy = self.reading = False
        if self.chart == "difficulty":
            self._difficulty_wanted()

    def _difficulty_wanted(self) -> None:
        """The difficulty chart is shown: drawn from the breakdown kept, or once it comes."""
        data = self.data
        if data is None:
            return
        kept = self._by_level.get(self.metric, ([], []) if not self.reading else None)
        if kept is None:               # still being read: drawn when it comes
            self.data = ChartDataLoaded(data.scores, [], None, self.metric)
        else:
            self.data = ChartDataLoaded(data.scores, kept[0], kept[1], self.metric)
        self._draw()

    def action_next_chart(self) -> None:
        self.chart = CHARTS[(CHARTS.index(self.chart) + 1) % len(CHARTS)]
        self._draw()
        if self.chart == "difficulty":
            self._difficulty_wanted()

    def action_cycle_metric(self) -> None:
        self.metric = METRICS[(METRICS.index(self.metric) + 1) % len(METRICS)]
        self.chart = "difficulty"
        self._difficulty_wanted()

    def _draw(self) -> None:
        plot = self.query_one("#chart", PlotextPlot)
        plt = plot.plt
        plt.clear_figure()
        data = self.data
        legend = Text()
        if data is None:
            return
        if isinstance(plot, ChartPlot):
            # what plt holds: the chart and the data it draws (the difficulty chart: its
            # metric's breakdown, or none yet)
            plot.figure = (("dimensions", self.scores_read) if self.chart == "dimensions" else
                           ("difficulty", self.metric, data.by_level is None, self.levels_read))
        runs = data.scores.runs if self.chart == "dimensions" else (data.by_level or [])
        for k, run in enumerate(runs):   # a line each: the run, its model, release, protocol
            if legend:
                legend.append("\n")
            mark = (MARKS[k % len(MARKS)] * 2 if self.chart == "difficulty"
                    else POINT_MARKS[k % len(POINT_MARKS)])
            legend.append(f"{mark} ", style=RICH_COLORS[COLORS[k % len(COLORS)]])
            legend.append(run_line(run.label, max(20, self.app.size.width - 6)))
            un = run.points.get("un")
            if un is not None and un.failed:     # apart from the judged score, as everywhere
                legend.append(f"  LLM@Un: {un.failed} failed replies apart", style="magenta")
            if self.chart == "difficulty":
                legend.append_text(level_gaps(run, data.levels))
        reading = self.chart == "difficulty" and data.by_level is None
        empty = None if reading else no_data_words(self.run_ids, runs)
        if reading:
            legend = Text("Reading the scores by difficulty…", style="dim")
        elif empty is not None and not runs:
            legend = Text(empty[1], style="dim")
        elif empty is not None:
            legend.append(f"\n{empty[1]}", style="dim")
        if self.chart == "dimensions":
            self._draw_dimensions(plt, data)
        else:
            self._draw_difficulty(plt, data)
        if empty is not None:
            # an empty frame said nothing (issue 28): the chart says there is no data, and
            # the legend below it what makes some
            plt.text(empty[0], x=len(chartdata.CODES) / 2 + 0.5
                     if self.chart == "dimensions" else 0.5, y=50, alignment="center")
        if self.dropped:
            legend.append(f"\n{self.dropped} older run(s) not drawn.", style="dim")
        self.query_one("#chart_legend", Static).update(legend)
        plot.refresh()

    def _draw_dimensions(self, plt, data: ChartDataLoaded) -> None:
        codes = list(chartdata.CODES)
        xs = list(range(1, len(codes) + 1))
        runs = data.scores.runs
        width = 0.6 / max(len(runs), 1)
        for k, run in enumerate(runs):
            color = COLORS[k % len(COLORS)]
            offset = -0.3 + width * (k + 0.5)
            px, py = [], []
            for x, code in zip(xs, codes, strict=True):
                point = run.points.get(code)
                if point is None or point.value is None:
                    continue
                if point.lo is not None and point.hi is not None:
                    plt.plot([x + offset, x + offset], [point.lo, point.hi], marker="│",
                             color=color)
                px.append(x + offset)
                py.append(point.value)
            if px:
                plt.scatter(px, py, marker=POINT_MARKS[k % len(POINT_MARKS)], color=color)
        plt.xticks(xs, [SHORT.get(c, "All") for c in codes])
        plt.xlim(0.5, len(codes) + 0.5)
        plt.ylim(0, 100)
        plt.title("Scores by dimension (95% intervals)")

    def _draw_difficulty(self, plt, data: ChartDataLoaded) -> None:
        levels = data.levels
        runs = data.by_level
        if levels and runs:
            values = [[(run.points.get(level).value or 0.0)
                       if run.points.get(level) is not None else 0.0 for level in levels]
                      for run in runs]
            plt.multiple_bar(levels, values,
                             color=[COLORS[k % len(COLORS)] for k in range(len(runs))],
                             marker=[MARKS[k % len(MARKS)] for k in range(len(runs))])
        else:
            plt.xlim(0, 1)          # the frame "no data" is written in (its middle: x 0.5)
            plt.xticks([], [])
        plt.ylim(0, 100)
        plt.title(f"{chartdata.label(data.metric)} by difficulty")

    def action_back(self) -> None:
        self.dismiss(None)

    def worker_failed(self, worker: object) -> None:
        self.busy = self.reading = False
