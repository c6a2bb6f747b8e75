"""Evaluation runs: list them with progress and headline numbers, start one, watch it
live (throughput, ETA), cancel it with Esc and resume it later."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Header, ProgressBar, Static
from textual.worker import Worker, get_current_worker

from qcstation.eval.browse import RunSummary, list_runs
from qcstation.eval.types import METRICS
from qcstation.common.safe import one_line
from qcstation.eval.judging import judge_progress_line
from qcstation.messages import (EvalProgressed, EvalRunFinished, EvalRunsLoaded, EvalRunStarted,
                                JudgesProgressed)
from qcstation.widgets.eval_views import (
    SHORT,
    headline_cell,
    keep_ends,
    progress_cell,
    progress_text,
    release_cell,
    run_cell,
    progress_line,
    render_run_detail,
)
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.row_table import RowTable
from screens._base import QCScreen
from screens.dialogs.start_run import RunRequest, StartRunModal

#: Seconds between progress messages from the run's worker.
PROGRESS_EVERY_S = 0.25
#: Seconds between re-reading the runs list while a run (ours or another session's) goes on.
POLL_RUNNING_S = 3.0
#: Seconds between re-reading the whole list otherwise (new runs, runs that stopped elsewhere).
POLL_IDLE_S = 10.0


#: the Run and Items-from columns at most (cells): a name is whole where the screen has room
#: for it; at 80 columns they give up what the figures need, down to NAME_MIN each (walk28b:
#: at 120 columns a release of 50 cells was cut at 40 with 12 cells free)
RUN_COLUMN, RELEASE_COLUMN, NAME_MIN = 120, 100, 10
#: the model's line under a named run's name in the runs list starts here
_MODEL_INDENT = "   "


def _model_line(run: RunSummary) -> str:
    """The model to show under a run's name: a named run's model, where the name does not
    hold it already ('' for a run named by its model)."""
    model = run.model or ""
    return model if run.name and model and model not in run.name else ""


#: the table's lines in view (its max-height less the border and the header)
VISIBLE_RUN_ROWS = 7


def protocol_marks(runs: list[RunSummary]) -> dict[str, str]:
    """A short mark for each protocol the runs asked with (``A``, ``B``, ... ``Z``, ``A1``...),
    by the first run that used it (run ids ascending: a new run never changes the marks the
    curator has read). The runs table shows the mark in its P column and the legend under it
    says each whole: at 80 columns the protocol had no room, and two runs of one model on
    one release, 0-shot and 3-shot, read alike (issue 28.5)."""
    marks: dict[str, str] = {}
    for run in sorted(runs, key=lambda r: r.run_id):
        if run.protocol and run.protocol not in marks:
            n = len(marks)
            marks[run.protocol] = chr(ord("A") + n % 26) + (str(n // 26) if n >= 26 else "")
    return marks


def protocol_legend(marks: dict[str, str], runs: list[RunSummary]) -> Text:
    """The protocol under the table, in full (wrapped, never cut): every run's when they
    share one (the table has no P column then: at 80 columns its 3 cells cut a name of 12,
    '#1 ref…ence'), else each mark's."""
    if len({run.protocol for run in runs}) == 1:
        legend = Text("Protocol of every run: ", style="bold")
        legend.append(one_line(runs[0].protocol, 200) or "not recorded (runs made before "
                      "protocols were)")
        return legend
    legend = Text("P, protocol: ", style="bold")
    parts = [f"{mark} {one_line(protocol, 200)}" for protocol, mark in marks.items()]
    if any(not run.protocol for run in runs):
        parts.append("– not recorded (a run made before protocols were)")
    legend.append(" · ".join(parts))
    return legend


class RunsScreen(QCScreen):
    """``n`` new run · Enter resumes · ``b`` browse results · ``c`` charts · Esc cancels/back."""

    BINDING_GROUP_TITLE = "Runs"
    PASTE_HINT = "Paste where you type: the new run form's fields (n)."
    AUTO_FOCUS = "#runs_table"   # the first focus (Textual's default: the first focusable widget)
    BINDINGS = [
        Binding("n", "new_run", "New run", tooltip="Start an evaluation run", id="runs-new"),
        Binding("enter", "resume", "Resume", tooltip="Continue the selected unfinished run",
                id="runs-resume", show=False),
        Binding("b", "browse", "Results", tooltip="Browse the selected run's results",
                id="runs-browse"),
        Binding("c", "charts", "Charts", tooltip="Dimension scores and accuracy by difficulty",
                id="runs-charts"),
        Binding("f5", "refresh", "Refresh", id="runs-refresh",
                tooltip="Read the runs again now (the list also refreshes by itself)"),
        Binding("escape", "back", "Back / cancel", tooltip="Cancel the running run, else go back",
                id="runs-back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[RunSummary] = []
        self.releases: list[tuple[str, str]] = []
        self.active_run: int | None = None          # the run our worker is asking for
        self.cancel_event: threading.Event | None = None
        self.first_load_pending = True
        self.detail_shown: RunSummary | None = None   # the run the detail pane shows
        self.marks: dict[str, str] = {}                 # each protocol's mark (P column)
        self.legend_shown: str | None = None            # the P column's legend, as shown
        self.marks_column = False       # the P column is shown (the runs' protocols differ)
        self._last_poll = time.monotonic()

    @property
    def busy(self) -> bool:
        """Still reading the runs for the first time, or a run of ours is going on."""
        return self.first_load_pending or self.active_run is not None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="runs_body"):
            yield RowTable(id="runs_table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="runs_protocols")
            with Vertical(id="run_progress", classes="panel"):
                yield Static("", id="run_progress_text")
                yield ProgressBar(id="run_progress_bar", show_eta=False)
            yield Static(Text("Loading…", style="dim"), id="run_detail", classes="panel")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#runs_table", DataTable)
        table.border_title = "Evaluation runs"
        self._add_columns(table, marks=False)
        self.query_one("#run_progress").border_title = "Running"
        self.query_one("#run_detail").border_title = "Run"
        table.focus()
        self.set_interval(POLL_RUNNING_S, self._poll)
        self.action_refresh()

    def _add_columns(self, table: DataTable[Any], marks: bool) -> None:
        """The table's columns, the P column (each run's protocol mark) with ``marks``."""
        table.clear(columns=True)
        self.marks_column = marks
        table.add_column("Run", key="run")
        table.add_column("Items from", key="release")
        if marks:
            table.add_column("P", key="protocol")
        table.add_column("Status", key="status")
        table.add_column("Done", key="progress")
        for metric in METRICS:
            table.add_column(SHORT[metric], key=metric)

    def help_notes(self) -> RenderableType:
        return Text(
            "A run asks a model every task of every item of a release (or of the accepted "
            "working set) and stores the raw answers; scoring is a separate pass over them. "
            "Esc stops a run between requests: nothing answered is lost and Enter on the "
            "run resumes it without asking twice. The numbers are accuracies (LLM@Un: the "
            "judges' mean score, 1-100); errors count as failures.")

    # -- loading ---------------------------------------------------------------------
    def action_refresh(self) -> None:
        self._load_runs()

    def _poll(self) -> None:
        """The list refreshes by itself: every few seconds while a run goes on (only the
        moving runs' numbers are read again), else every :data:`POLL_IDLE_S` seconds (a run
        started in another session appears; one whose owner died shows as stopped)."""
        moving = {r.run_id for r in self.runs if r.status == "running"}
        if self.active_run is not None:
            moving.add(self.active_run)
        now = time.monotonic()
        if moving:
            # finished runs keep their numbers: only the moving ones are read again
            self._last_poll = now
            self._load_runs(moving)
        elif now - self._last_poll >= POLL_IDLE_S:
            self._last_poll = now
            self._load_runs()

    @work(thread=True, exclusive=True, exit_on_error=False, group="loaders",
          description="Loading evaluation runs")
    def _load_runs(self, headline_for: set[int] | None = None) -> None:
        from qcstation.core.release import releases as rel

        with self.qc_app.open_store() as store:
            # the list with its headline numbers in one message: each run's are read from
            # its counted items in plain Python (a few rows; no numpy), so the table is
            # filled and laid out once, not first with '…' and again with the numbers
            runs = list_runs(store, headline_for=headline_for)
            self.releases = [(r.name, r.version) for r in rel.list_releases(store)]
        self.post_message(EvalRunsLoaded(runs, partial=headline_for is not None))

    @on(EvalRunsLoaded)
    def _show_runs(self, message: EvalRunsLoaded) -> None:
        self.first_load_pending = False
        if message.partial:
            known = {r.run_id: r.headline for r in self.runs}
            for run in message.runs:
                if not run.headline and run.run_id in known:
                    run.headline = known[run.run_id]
        selected = self._selected()        # the run shown, kept by its id (not its row)
        self.runs = message.runs
        self.marks = protocol_marks(self.runs)
        legend = self.query_one("#runs_protocols", Static)
        words = protocol_legend(self.marks, self.runs) if self.runs else Text("")
        if words.plain != self.legend_shown:    # a poll with the same runs lays out nothing
            self.legend_shown = words.plain
            legend.display = bool(self.runs)
            legend.update(words)
        table = self.query_one("#runs_table", DataTable)
        marks_wanted = len({run.protocol for run in self.runs}) > 1
        if marks_wanted != self.marks_column:
            self._add_columns(table, marks_wanted)
        table.clear()
        # each column exactly as wide as its widest cell, set before the rows are added: an
        # auto-width column only grows (DataTable.clear keeps its width), so a run that read
        # 'running' kept Status a cell wider than the names' widths counted once done and the
        # last score was cut ('64%' read '64'); and DataTable measures new rows only when
        # idle, so widths reset to the labels' drew the table squeezed until then (walk9:
        # '480/' over '480' under the quit dialog, which keeps the screen from idling)
        widths = self._column_widths(self.runs)
        for column, width in zip(table.ordered_columns, widths):
            column.content_width = width
        for run in self.runs:
            table.add_row(*self._cells(run, widths[0], widths[1]), key=str(run.run_id),
                          height=2 if _model_line(run) else 1)
        if self.runs:
            rows = [r.run_id for r in self.runs]
            keep = selected.run_id if selected is not None and selected.run_id in rows else None
            table.move_cursor(row=rows.index(keep) if keep is not None else 0)
        table.border_subtitle = ((f"{len(self.runs)} run{'s' if len(self.runs) != 1 else ''}"
                                  if self.runs else "no runs yet: n starts one")
                                 + " · refreshes by itself (F5 now)")
        self._show_selected()

    def on_resize(self) -> None:
        """The names take the room of the new width: the columns are measured again (walk28b:
        grown from 80 to 120 columns, the names stayed cut beside 40 free cells until the
        next poll; shrunk, the last scores went out of view)."""
        if not self.runs:
            return
        table = self.query_one("#runs_table", DataTable)
        if [c.content_width for c in table.ordered_columns] != self._column_widths(self.runs):
            self.post_message(EvalRunsLoaded(list(self.runs), partial=False))

    def _cells(self, run: RunSummary, run_width: int = RUN_COLUMN,
               release_width: int = RELEASE_COLUMN) -> tuple[Text, ...]:
        # the narrow column names the run; the detail below adds its model and protocol
        # cut in the middle: two runs of one model keep their ends ('#3 basel…-08-06'), two
        # versions of a release their version ('variants…@1.0.0')
        name = run_cell(f"#{run.run_id} {run.name or run.model}", run_width)
        model = _model_line(run)
        if model:
            # walk8: a named run hid its model ('#1 probe…ghtly'); it is the line under the
            # name, both cut in their middle where the column has no room
            name += "\n" + _MODEL_INDENT + keep_ends(model, run_width - len(_MODEL_INDENT))
        return (Text(name), Text(release_cell(run.release, release_width)),
                *self._figure_cells(run))

    def _figure_cells(self, run: RunSummary) -> tuple[Text, ...]:
        status = run.status
        if run.run_id == self.active_run:
            status = "running"
        mark = (Text(self.marks.get(run.protocol, "–")),) if self.marks_column else ()
        return (*mark, Text(status), Text(progress_cell(run)),
                *(Text(headline_cell(m, run.headline.get(m)) if run.headline else "…",
                       justify="right") for m in METRICS))

    def _column_widths(self, runs: list[RunSummary]) -> list[int]:
        """Each column's cells: the status, progress and score columns their widest cell
        (whole), the Run and Items-from columns what those leave at this width, the table's
        border and its scroll bar when its rows pass its height. At 80 columns names of 18
        and 15 cells pushed the last score out of view, '100%' reading '1'."""
        table = self.query_one("#runs_table", DataTable)
        pad = 2 * table.cell_padding
        labels = [str(column.label) for column in table.ordered_columns]
        widths = [len(label) for label in labels[2:]]
        for run in runs:
            widths = [max(w, cell.cell_len) for w, cell in zip(widths, self._figure_cells(run))]
            # the progress of a run going on grows to its total ('2265/2265')
            done = 2 if self.marks_column else 1
            widths[done] = max(widths[done], len(progress_text(run.n_requests or 0,
                                                               run.n_requests or 0)))
        lines = sum(2 if _model_line(run) else 1 for run in runs)
        bar = table.styles.scrollbar_size_vertical if lines > VISIBLE_RUN_ROWS else 0
        screen_width = self.size.width or self.app.size.width
        room = screen_width - 2 - bar - sum(w + pad for w in widths) - 2 * pad
        # whole names where there is room (walk9: '#1 probe…ghtly' was cut at 18 cells with
        # 3 cells free), cut in their middle only as far as the figures need
        names = [max(len(run_cell(f"#{run.run_id} {run.name or run.model}", RUN_COLUMN)),
                     min(len(_MODEL_INDENT + _model_line(run)), RUN_COLUMN))
                 for run in runs]
        releases = [len(release_cell(run.release, RELEASE_COLUMN)) for run in runs]
        run_width = max([len(labels[0]), *names])
        release_width = max([len(labels[1]), *releases])
        while run_width + release_width > room:
            if run_width - NAME_MIN >= release_width - NAME_MIN and run_width > NAME_MIN:
                run_width -= 1
            elif release_width > NAME_MIN:
                release_width -= 1
            else:
                break                  # no room left: the table scrolls sideways
        return [run_width, release_width, *widths]

    def _selected(self) -> RunSummary | None:
        table = self.query_one("#runs_table", DataTable)
        if not self.runs or not 0 <= table.cursor_row < len(self.runs):
            return None
        return self.runs[table.cursor_row]

    def _show_selected(self) -> None:
        run = self._selected()
        # the run drawn already (the highlight the first row added posts, a poll that read the
        # same numbers) is not drawn again: the detail's height is its content's, so each
        # update lays the screen out
        shown = dataclasses.replace(run) if run is not None else None
        if shown is not None and shown == self.detail_shown:
            return
        self.detail_shown = shown
        detail = self.query_one("#run_detail", Static)
        if run is None:
            detail.update(Text("No evaluation runs yet. Press n to start one: pick a model "
                               "from [models.*] in qcstation.toml (or the reference self-test) "
                               "and a release.", style="dim"))
            return
        detail.update(render_run_detail(run))

    @on(DataTable.RowHighlighted, "#runs_table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_selected()

    @on(DataTable.RowSelected, "#runs_table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_resume()

    # -- starting and resuming ------------------------------------------------------------
    def action_new_run(self) -> None:
        if self.active_run is not None:
            self.notify("A run is going on; wait for it or press Esc to stop it first.",
                        severity="warning")
            return
        cfg = self._reread_models()
        models = [(name, getattr(m, "model", "")) for name, m in
                  sorted((getattr(cfg, "models", None) or {}).items())]
        shots = int(getattr(getattr(cfg, "eval", None), "shots", 3))
        self.app.push_screen(StartRunModal(models, self.releases, shots),
                             callback=self._start_chosen)

    def _reread_models(self) -> Any:
        """The configuration with its ``[models.*]`` and ``[[judges]]`` read again from the
        file (a model added while the app runs is offered at once); the QC settings stay
        as loaded. On a file that cannot be read, says why and keeps what was loaded."""
        from qcstation.common.config import find_config_path, load_config
        from qcstation.common.errors import ConfigError

        cfg = self.qc_app.config
        try:
            path = getattr(cfg, "source_path", None) or find_config_path(None)
            if path is None:
                return cfg
            fresh = load_config(path)
        except ConfigError as exc:
            self.notify(f"The configuration could not be read again ({exc}); the models "
                        f"loaded at start are offered.", severity="warning", timeout=8)
            return cfg
        added = sorted(set(fresh.models) - set(cfg.models))
        cfg.models = fresh.models
        cfg.judges = fresh.judges
        if added:
            self.notify(f"Read {path} again: {', '.join(added)} added.", title="Models")
        return cfg

    def _start_chosen(self, request: RunRequest | None) -> None:
        if request is not None:
            self._begin(None, request)

    def action_resume(self) -> None:
        run = self._selected()
        if run is None:
            return
        if self.active_run is not None:
            self.notify("A run is going on already.", severity="warning")
            return
        if run.status == "running":
            self.notify(f"{run.label} is running in another session (its owner keeps a "
                        "heartbeat); it can be resumed here once it stops.", severity="warning")
            return
        if not run.resumable:
            self.notify(f"{run.label} is finished; b browses its results.")
            return
        self._begin(run.run_id, None)

    def _begin(self, run_id: int | None, request: RunRequest | None) -> None:
        self.cancel_event = threading.Event()
        self.active_run = run_id if run_id is not None else -1
        self._show_progress(Text("Preparing the run…", style="dim"), None, None)
        self._execute(run_id, request, self.cancel_event)

    @work(thread=True, exit_on_error=False, group="eval_runs", description="Evaluation run")
    def _execute(self, run_id: int | None, request: RunRequest | None,
                 cancel: threading.Event) -> None:
        from qcstation.eval.evaluate import run_and_score
        from qcstation.eval.runs import create_run, refuse_unusable_model

        app = self.qc_app
        if run_id is None:
            assert request is not None
            # as `eval run` does: a model that cannot be used leaves no run behind
            refuse_unusable_model(app.config, request.model, request.backend)
            with app.open_store() as store:
                run_id = int(create_run(
                    store, app.config, model=request.model, release=request.release,
                    tasks=request.tasks, shots=request.shots, temperature=request.temperature,
                    samples=request.samples, limit=request.limit, backend=request.backend,
                    name=request.name, actor=app.annotator))
        self.post_message(EvalRunStarted(run_id, resumed=request is None))
        worker = get_current_worker()
        last = 0.0

        def progress(p: Any) -> None:
            nonlocal last
            if worker.is_cancelled:    # the screen went away: stop between requests
                cancel.set()
            now = time.monotonic()
            if now - last >= PROGRESS_EVERY_S or p.done >= p.total:
                last = now
                self.post_message(EvalProgressed(run_id, p))

        def scoring(final: Any) -> None:
            self.post_message(EvalProgressed(run_id, final, phase="scoring"))

        judged_at = 0.0

        def judging(judge: str, done: int, total: int, failed: int) -> None:
            nonlocal judged_at
            if worker.is_cancelled:
                cancel.set()
            now = time.monotonic()
            if 0 < done < total and now - judged_at < PROGRESS_EVERY_S:
                return
            judged_at = now
            self.post_message(JudgesProgressed(run_id, judge, done, total, failed))

        outcome = run_and_score(
            app.db_path, run_id, app.config, progress=progress, cancel=cancel,
            on_scoring=scoring, judge_progress=judging,
            missing_scorer_ok=True)
        self.post_message(EvalRunFinished(run_id, outcome.progress, cancelled=cancel.is_set(),
                                          scored=outcome.scores, note=outcome.note))

    @on(EvalRunStarted)
    def _started(self, message: EvalRunStarted) -> None:
        self.active_run = message.run_id
        self.notify(f"{'Resuming' if message.resumed else 'Started'} run #{message.run_id}. "
                    "Esc stops it; Enter on the run resumes it later.")
        self._load_runs()

    @on(EvalProgressed)
    def _progressed(self, message: EvalProgressed) -> None:
        p = message.progress
        if message.phase == "scoring":
            self._show_progress(Text(f"Scoring run #{message.run_id}…", style="bold"),
                                None, None)
            return
        tokens = (getattr(p, "prompt_tokens", 0) or 0) + (getattr(p, "completion_tokens", 0) or 0)
        line = progress_line(int(p.done), int(p.total), rate=getattr(p, "rate_per_s", None),
                             eta=getattr(p, "eta_s", None), errors=int(getattr(p, "errors", 0)),
                             cached=int(getattr(p, "cached", 0)), tokens=tokens,
                             cost=getattr(p, "cost", None), uncounted=int(getattr(p, "uncounted", 0) or 0))
        self._show_progress(line, int(p.done), int(p.total))
        for run in self.runs:       # the listed numbers follow the live ones
            if run.run_id == message.run_id:
                run.status = "running"
                run.outputs_error = int(getattr(p, "errors", 0) or 0)
                run.outputs_ok = int(p.done) - run.outputs_error
                if run is self._selected():
                    self._show_selected()
        table = self.query_one("#runs_table", DataTable)
        try:
            table.update_cell(str(message.run_id), "progress", Text(progress_text(int(p.done), int(p.total))))
            table.update_cell(str(message.run_id), "status", Text("running"))
        except Exception:  # the row is not listed yet (first refresh still loading)
            pass

    @on(JudgesProgressed)
    def _judged(self, message: JudgesProgressed) -> None:
        if self.cancel_event is not None and self.cancel_event.is_set():
            return      # "Stopping…" stays until the run ends
        # one row at 80 columns: no note, and the judge's name cut to what the row has room for
        prefix = f"Scoring run #{message.run_id}: "
        width = self.query_one("#run_progress_text", Static).content_region.width or self.size.width - 4
        line = judge_progress_line(message.judge, message.done, message.total, message.failed,
                                   stop="Esc", note=False)
        if len(prefix) + len(line) > width:
            room = len(one_line(message.judge, 40)) - (len(prefix) + len(line) - width)
            line = judge_progress_line(message.judge, message.done, message.total, message.failed,
                                       stop="Esc", note=False, judge_width=max(room, 8))
        self._show_progress(Text(prefix + line, style="bold"),
                            message.done, message.total)

    @on(EvalRunFinished)
    def _finished(self, message: EvalRunFinished) -> None:
        self._end_run()
        p = message.progress
        done = f"{getattr(p, 'done', '?')} of {getattr(p, 'total', '?')} requests answered"
        errors = int(getattr(p, "errors", 0) or 0)
        if errors:
            done += f" ({errors} failed)"
        if message.cancelled and message.scored is not None:
            # stopped while the judges were asked: the run is scored, what they did not
            # answer is judge_error (left out, not the model's failure)
            self.notify(f"Stopped scoring run #{message.run_id}: the items the judges did not "
                        f"answer are judge_error; `qcstation eval score {message.run_id} "
                        "--retry-judges` asks them again.",
                        title="Scoring stopped", severity="warning", timeout=8)
        elif message.cancelled:
            self.notify(f"Stopped run #{message.run_id}: {done}. Enter on it resumes.",
                        title="Run stopped", severity="warning", timeout=8)
        else:
            scored = " and scored" if message.scored is not None else ""
            note = f"\n{message.note}" if message.note else ""
            self.notify(f"Run #{message.run_id} finished{scored}: {done}.{note}",
                        title="Run finished", severity="warning" if note else "information",
                        timeout=8)
        self._load_runs()

    def _show_progress(self, line: Text, done: int | None, total: int | None) -> None:
        self.add_class("-running")
        self.query_one("#run_progress_text", Static).update(line)
        bar = self.query_one("#run_progress_bar", ProgressBar)
        bar.update(total=total if total else None, progress=done or 0)

    def _end_run(self) -> None:
        self.active_run = None
        self.cancel_event = None
        self.remove_class("-running")

    def worker_failed(self, worker: Worker[object]) -> None:
        if worker.group == "loaders":
            self.first_load_pending = False
        if worker.group == "eval_runs":
            self._end_run()
            self._load_runs()

    # -- leaving -----------------------------------------------------------------------
    def on_unmount(self) -> None:
        # quitting the app mid-run: stop between requests (a thread cannot be killed);
        # what was answered is stored and the run resumes later
        if self.cancel_event is not None:
            self.cancel_event.set()

    def action_back(self) -> None:
        if self.cancel_event is not None and self.active_run is not None:
            self.cancel_event.set()
            self._show_progress(Text("Stopping after the requests in flight…", style="yellow"),
                                None, None)
            return
        self.dismiss(None)

    def action_browse(self) -> None:
        run = self._selected()
        self.qc_app.open_screen("results", run_ids=(run.run_id,) if run else ())

    def action_charts(self) -> None:
        self.qc_app.open_screen("charts", [r.run_id for r in reversed(self.runs)])
