"""The dashboard: counts per stage and dimension, QC gates, and what needs attention next."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import Counter
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Header, OptionList, Static
from textual.worker import Worker, get_current_worker

from qcstation.core.derive.refusals import refusal_words
from qcstation.core.review.gate import progress as qc_progress
from qcstation.core.review.rounds import (
    Why,
    draw_samples,
    extend_samples,
    fresh_rounds,
    regenerate_rejects,
)
from qcstation.core.review.sampling import open_sample
from qcstation.core.review.team import team_stats
from qcstation.messages import (
    CountsLoaded,
    DimensionQC,
    GateLoaded,
    RegenerationFinished,
    RunProgress,
    SamplesDrawn,
    SamplesExtended,
    SamplesLoaded,
    TeamLoaded,
)
from qcstation.widgets.dashboard_panels import (
    Attention,
    AttentionList,
    Panel,
    attention_items,
    extension_size,
    render_counts,
    render_gate_rules,
    render_gate_summary,
    render_team,
)
from qcstation.widgets.labels import noun, noun_in, percent, sentence_case
from qcstation.widgets.footer import KeyFooter
from screens._base import HeldMessages, HeldPosts, QCScreen


def describe_summary(result: Any) -> str:
    """Plain words for whatever the pipeline returned (PipelineSummary, count, dict)."""
    lines = getattr(result, "lines", None)
    if callable(lines):
        text = "; ".join(" ".join(str(line).split()) for line in lines())
        notes = getattr(result, "notes", None) or []
        if notes:
            text = "; ".join([text, *map(str, notes)]) if text else "; ".join(map(str, notes))
        return text or "nothing to regenerate"
    if isinstance(result, int):
        return f"regenerated {result} item{'s' if result != 1 else ''}"
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        result = dataclasses.asdict(result)
    if isinstance(result, dict):
        return ", ".join(f"{k} {v}" for k, v in result.items()) or "nothing to regenerate"
    return str(result)


class ReleaseLoaded(Message):
    """The latest approved release of the working set (NAME@VERSION), or None; and of each
    derived set with items (by set name)."""

    def __init__(self, released: str | None,
                 released_sets: dict[str, str | None] | None = None) -> None:
        super().__init__()
        self.released = released
        self.released_sets = released_sets or {}


class DeriveFinished(Message):
    """A derive started from the dashboard ended (what it made, what to do next)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


def derive_notice(name: str, summary: Any) -> str:
    """What a derive made and refused (the leading reasons), and where its QC goes on: the
    dashboard's own keys and panels, not the shell (it named ``qcstation derive status``)."""
    made = ", ".join(f"{t} {n}" for t, n in sorted(summary.made.items())) or "nothing"
    text = f"Set {name}: made {made}"
    refused = ", ".join(f"{t} {n}" for t, n in sorted(summary.refused.items()) if n)
    if refused:
        codes: Counter[str] = Counter()
        for (_t, code), n in summary.reasons.items():
            codes[code] += n
        why = "; ".join(f"{refusal_words(code)} ({n})" for code, n in codes.most_common(3))
        text += f"; refused {refused}" + (f". Most often: {why}" if why else "")
    if summary.parents_refused:
        text += ". Questions left out: " + "; ".join(
            f"{refusal_words(code)} ({n})" for code, n in summary.parents_refused.most_common(3))
    return (text + ". s draws its QC samples; its gates then show under 'QC gates' here, and "
            "Enter on its line in 'Needs attention' reviews them.")


class DashboardScreen(QCScreen):
    """Where a session starts: ``r`` review, ``s`` sample, ``g`` regenerate, ``l`` releases."""

    BINDING_GROUP_TITLE = "Dashboard"
    PASTE_HINT = ('The dashboard has no text field: a reason is typed in review (r, then x), '
                  'a filter in the curator queue (c, then /).')
    BINDINGS = [
        Binding("r", "review", "Review", tooltip="Review the next QC sample item", id="review"),
        Binding("s", "draw_samples", "Sample",
                tooltip="Draw a QC sample for each dimension without one", id="draw-samples"),
        Binding("e", "extend_samples", "Extend", show=False,   # curators; in help and the menu
                tooltip="Curators: extend fully reviewed samples whose defect bound is still "
                        "too high (asks first)", id="extend-samples"),
        Binding("F", "fresh_round", "Fresh round", show=False,
                tooltip="Curators: once every defect found is corrected, a fresh random round "
                        "of the corrected data (asks first)", id="fresh-round"),
        Binding("g", "regenerate", "Regen", tooltip="Regenerate rejected items (needs a model)",
                id="regenerate"),
        Binding("c", "queue", "Queue",
                tooltip="The curator queue: rejected, disagreed, excluded, skipped items; fix "
                        "in place, exclude, override, settle", id="queue"),
        Binding("l", "releases", "Releases", id="releases"),
        Binding("v", "eval_runs", "Eval", tooltip="Evaluation runs: start, watch, resume",
                id="eval-runs"),
        Binding("b", "results", "Results", show=False,
                tooltip="Browse evaluation results by failed dimension, verdict, source, level",
                id="eval-results"),
        Binding("d", "derive", "Derive",
                tooltip="Build a derived set (variants, ladders, perturbations, counterfactual, "
                        "inverse) in the background", id="derive"),
        Binding("f5", "refresh", "Refresh", show=False, id="refresh"),
        # the menu is in help and behind the header's icon: its footer room goes to Derive, so
        # every key of the footer fits in 80 columns
        Binding("ctrl+p", "app.command_palette", "Menu", show=False,
                tooltip="Command palette: every action by name", id="dashboard-command-palette"),
        Binding("q", "app.quit", "Quit", id="dashboard-quit"),
    ]

    #: the first focus: the attention list (Textual's default, the first focusable widget,
    #: is the scrolling body; focusing the list after it restyled the body and every panel
    #: twice, for the focus and the blur: ~20 ms of CPU of the first frame)
    AUTO_FOCUS = "#attention"

    #: seconds between automatic refreshes while the dashboard is shown (0: never)
    AUTO_REFRESH_S = 15.0

    def __init__(self) -> None:
        super().__init__()
        self.dimensions: list[DimensionQC] = []
        self.counts: dict[str, Any] = {}
        self.busy_note: str | None = None
        self.loaded = False
        self.gates_checked: set[str] = set()
        self.refresh_on_resume = True
        self.team: dict[str, Any] | None = None
        self.released: str | None = None   # latest approved release of the working set
        self.released_sets: dict[str, str | None] = {}   # and of each derived set
        self.auto_refresh_s = self.AUTO_REFRESH_S
        self.qc_held = False      # held parts of a load are being handled (_held)
        self.qc_changed = False   # ... and the QC panels are to be drawn after them
        #: set while no derive of this screen's runs (cleared as one starts, set as its
        #: thread ends): quitting waits on it, with a word on the screen (stop_for_quit)
        self.derive_ended = threading.Event()
        self.derive_ended.set()
        #: the same for a regeneration (g): quitting waited for its requests in flight with the
        #: terminal closed, minutes against a server that never replies (issue 28)
        self.regen_ended = threading.Event()
        self.regen_ended.set()
        self.derive_name = ""     # the set being derived (what quitting says it stops)

    def compose(self) -> ComposeResult:
        if self.qc_app.config.generator is None:
            # no model: `g` tries the rules again, which make the same text, so the footer
            # must not offer "Regen"; the key, the palette and help still reach it (it asks
            # first and says so), and the attention list points to the queue instead. Here,
            # before the footer is composed, so it is built once with the right keys
            self._bindings.key_to_bindings["g"] = [
                dataclasses.replace(b, show=False)
                for b in self._bindings.key_to_bindings.get("g", [])]
        yield Header()
        with VerticalScroll(id="dashboard_body"):
            yield AttentionList(id="attention")
            yield Panel(Text("Loading…", style="dim"), id="gates", classes="panel")
            yield Panel(Text("Loading…", style="dim"), id="team", classes="panel")
            yield Panel(Text("Loading…", style="dim"), id="counts", classes="panel")
            yield Panel(Text("Loading…", style="dim"), id="gate_rules", classes="panel")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#attention").border_title = "Needs attention (Enter runs it)"
        self.query_one("#gates").border_title = "QC gates"
        self.query_one("#team").border_title = "Team"
        if self.auto_refresh_s > 0:
            self.set_interval(self.auto_refresh_s, self._refresh_by_itself,
                              name="refresh-by-itself")
        self.query_one("#counts").border_title = "Counts"
        self.query_one("#gate_rules").border_title = "Gate rules"
        self.query_one("#attention", AttentionList).show(
            [Attention("Loading the database…", None)])

    def on_screen_resume(self) -> None:
        # first show, and back from review or releases; not after a dialog (closing an error
        # about an unreadable database must not reopen it), not when another screen was
        # pushed straight over this one
        if self.refresh_on_resume and self.app.screen is self:
            self.refresh_on_resume = False
            self.action_refresh()

    def help_notes(self) -> RenderableType:
        settings = self.qc_app.settings
        return Text(
            "The gate of a QC dimension passes when every item of its sample is reviewed, "
            "no rejected item is still waiting for an accepted replacement, and the "
            f"{percent(settings.confidence)} upper bound on the defect rate is below "
            f"{percent(settings.defect_threshold)}. Releases need every gate passed and a "
            "curator's approval. Enter on a line of 'Needs attention' does what it says.")

    # -- loading ---------------------------------------------------------------------
    def _refresh_by_itself(self) -> None:
        """Re-read everything now and then, while shown and not busy (colleagues decide in
        their own sessions; the panel follows them)."""
        if self.app.screen is not self or self.busy_note:
            return
        if any(w.is_running for w in self.workers if w.group == "loaders"):
            return
        self.action_refresh()

    def action_refresh(self) -> None:
        self.gates_checked = set()
        self._load_dashboard()

    #: seconds the loader may hold what it has read before showing it: what is read within
    #: it is shown together (one layout of the screen, not one per part: each lays out and
    #: measures every panel again, ~45 ms of CPU at 80x24), a slower read never hides the
    #: parts read before it for longer
    SHOW_WITHIN_S = 1.0

    @work(thread=True, exclusive=True, exit_on_error=False, group="loaders",
          description="Loading the dashboard")
    def _load_dashboard(self) -> None:
        """Fast parts first (open samples and their progress, then counts), then each gate,
        then the team's numbers: on a large database a gate takes time and must not hold up
        the rest. What is read within :attr:`SHOW_WITHIN_S` of the first part held is posted
        together."""
        worker = get_current_worker()
        show = HeldPosts(self, self.SHOW_WITHIN_S)
        try:
            self._read_dashboard(show)
        finally:
            show.flush(post=not worker.is_cancelled)

    def _read_dashboard(self, show: HeldPosts) -> None:
        settings = self.qc_app.settings
        worker = get_current_worker()
        with self.qc_app.open_store() as store:
            dimensions = []
            from qcstation.core.review.queries import derived_scopes, scope_dimensions

            # the working set, then every derived set with items: each its own samples and
            # gates, of the dimensions its release is gated on
            for scope in ["", *derived_scopes(store)]:
                for dimension in scope_dimensions(store, scope, settings.dimensions):
                    sample = open_sample(store, dimension, scope)
                    progress = qc_progress(store, sample.id) if sample is not None else None
                    dimensions.append(DimensionQC(dimension, sample, progress, scope=scope))
            show(SamplesLoaded(dimensions))
            if worker.is_cancelled:
                return
            show(CountsLoaded(self.qc_app.read_counts(store)))
            if worker.is_cancelled:
                return
            from qcstation.core.release.latest import latest_release

            scopes = sorted({dim.scope for dim in dimensions if dim.scope})
            show(ReleaseLoaded(latest_release(store),
                               {scope: latest_release(store, scope) for scope in scopes}))
            for dim in dimensions:
                if worker.is_cancelled:
                    return
                show(GateLoaded(
                    dim.dimension, self.qc_app.evaluate_gate(store, dim.dimension, dim.scope),
                    dim.scope))
            if worker.is_cancelled:
                return
            # the team panel last: what needs attention comes from the gates (its per-person
            # counts read every decision: half a second of CPU at 1M seeds)
            show(TeamLoaded(team_stats(store, settings.dimensions)))

    def on_screen_suspend(self) -> None:
        # a full screen (review, releases) on top: stop computing gates nobody is looking
        # at, and read everything again on return; a dialog on top changes nothing
        if not isinstance(self.app.screen, ModalScreen):
            self.workers.cancel_group(self, "loaders")
            self.refresh_on_resume = True

    @on(HeldMessages)
    def _held(self, batch: HeldMessages) -> None:
        """The parts of a load read together, shown together: each handled in turn, the QC
        panels drawn once at the end (for each part they were drawn again: the gates, the
        team and the rules rendered four times, the screen laid out twice)."""
        handlers: dict[type, Any] = {
            SamplesLoaded: self._samples_loaded, CountsLoaded: self._counts_loaded,
            TeamLoaded: self._team_loaded, ReleaseLoaded: self._release_loaded,
            GateLoaded: self._gate_loaded}
        self.qc_held = True
        try:
            for message in batch.messages:
                handler = handlers.get(type(message))
                if handler is not None:
                    handler(message)
                else:
                    self.post_message(message)
        finally:
            self.qc_held = False
        if self.qc_changed:
            self._show_qc()

    @on(SamplesLoaded)
    def _samples_loaded(self, message: SamplesLoaded) -> None:
        known = {(d.scope, d.dimension): d.gate for d in self.dimensions}
        for dim in message.dimensions:   # keep the last gate until the new one arrives
            dim.gate = known.get((dim.scope, dim.dimension))
        self.dimensions = message.dimensions
        self.loaded = True
        self._qc_shown_later()

    @on(CountsLoaded)
    def _counts_loaded(self, message: CountsLoaded) -> None:
        self.counts = message.counts
        self.query_one("#counts", Static).update(render_counts(message.counts))

    @on(TeamLoaded)
    def _team_loaded(self, message: TeamLoaded) -> None:
        self.team = message.stats
        self._qc_shown_later()

    @on(ReleaseLoaded)
    def _release_loaded(self, message: ReleaseLoaded) -> None:
        self.released = message.released
        self.released_sets = message.released_sets
        if self.qc_held:
            self.qc_changed = True      # the attention list is drawn with the QC panels
        else:
            self._show_attention()

    @on(GateLoaded)
    def _gate_loaded(self, message: GateLoaded) -> None:
        for dim in self.dimensions:
            if dim.dimension == message.dimension and dim.scope == message.scope:
                dim.gate = message.gate
        self.gates_checked.add(f"{message.scope}/{message.dimension}" if message.scope
                               else message.dimension)
        self._qc_shown_later()

    def _qc_shown_later(self) -> None:
        """The QC panels drawn now, or once the held parts being handled are (_held)."""
        if self.qc_held:
            self.qc_changed = True
        else:
            self._show_qc()

    def _show_qc(self) -> None:
        self.qc_changed = False
        self._show_attention()
        self.query_one("#gates", Static).update(render_gate_summary(
            self.dimensions, has_model=self.qc_app.config.generator is not None))
        self.query_one("#team", Static).update(render_team(self.team, self.dimensions))
        self.query_one("#gate_rules", Static).update(render_gate_rules(
            self.dimensions, has_model=self.qc_app.config.generator is not None))

    def _show_attention(self) -> None:
        disagreements = {dim: int(a.get("disagreed") or 0)
                         for dim, a in ((self.team or {}).get("agreement") or {}).items()}
        self.query_one("#attention", AttentionList).show(
            attention_items(self.dimensions, busy=self.busy_note,
                            has_model=self.qc_app.config.generator is not None,
                            disagreements=disagreements, curator=self.qc_app.is_curator,
                            curators_configured=bool(self.qc_app.settings.curators),
                            threshold=self.qc_app.settings.defect_threshold,
                            released=self.released, released_sets=self.released_sets))

    @on(OptionList.OptionSelected, "#attention")
    def _run_attention(self, event: OptionList.OptionSelected) -> None:
        items = self.query_one("#attention", AttentionList).items
        if not 0 <= event.option_index < len(items):
            return
        item = items[event.option_index]
        if item.action == "review":
            self.open_review(item.dimension, item.scope)
        elif item.action == "draw_samples":       # that line's sample, not every one due
            self.draw_samples(item.dimension, item.scope)
        elif item.action == "extend_samples":
            self.action_extend_samples()
        elif item.action == "fresh_round":
            self.action_fresh_round()
        elif item.action == "regenerate":
            self.action_regenerate()
        elif item.action == "releases":
            self.action_releases()
        elif item.action == "eval_runs":
            self.action_eval_runs()
        elif item.action == "queue":        # that line's items: its state, in its set
            self.open_queue(item.dimension, item.state, item.scope)
        else:
            self.notify(item.text)

    # -- review ----------------------------------------------------------------------
    def review_dimension(self) -> str | None:
        """The dimension ``r`` opens: the first with items left to review, else the first
        with an open sample."""
        found = self._review_sample()
        return found[0] if found is not None else None

    def _review_sample(self) -> tuple[str, str] | None:
        """(dimension, set) of the sample ``r`` opens (:meth:`review_dimension`)."""
        for dim in self.dimensions:
            if dim.sample is not None and dim.progress is not None and dim.progress.remaining:
                return dim.dimension, dim.scope
        for dim in self.dimensions:
            if dim.sample is not None:
                return dim.dimension, dim.scope
        return None

    def action_review(self) -> None:
        if not self.loaded:
            self.open_review(None)  # not loaded yet: review whatever open sample has items
            return
        found = self._review_sample()
        if found is None:
            self.notify("There is no open QC sample to review. Press s to draw samples.",
                        title="Nothing to review", severity="warning")
            return
        self.open_review(*found)

    def open_review(self, dimension: str | None, set_name: str | None = None) -> None:
        """Review ``dimension`` (any, when None) in the set ``set_name`` ('' the working
        set, a derived set's name, or None: any set's samples)."""
        self.refresh_on_resume = True
        self.qc_app.open_screen("review", dimension, set_name)

    def action_queue(self) -> None:
        self.open_queue(None)

    def open_queue(self, dimension: str | None, state: str | None = None,
                   set_name: str | None = None) -> None:
        """The queue filtered to ``dimension``, ``state`` and the derived set ``set_name``
        (the working set's items cannot be told apart by a filter: '' or None lists all)."""
        self.refresh_on_resume = True
        self.qc_app.open_screen("queue", dimension, state, set_name or None)

    def action_releases(self) -> None:
        self.refresh_on_resume = True
        self.qc_app.open_screen("releases")

    def action_eval_runs(self) -> None:
        self.refresh_on_resume = True
        self.qc_app.open_screen("runs")

    def action_results(self) -> None:
        self.refresh_on_resume = True
        self.qc_app.open_screen("results")

    # -- sampling --------------------------------------------------------------------
    def action_draw_samples(self) -> None:
        self.draw_samples()

    def draw_samples(self, dimension: str | None = None, scope: str | None = None) -> None:
        """Draw every due sample, or only ``dimension``'s in the set ``scope``."""
        self._set_busy("Drawing QC samples…" if dimension is None else
                       f"Drawing a QC sample of {noun_in(dimension, scope or '')}…")
        self._draw_samples(dimension, scope)

    @work(thread=True, exclusive=True, exit_on_error=False, group="samplers",
          description="Drawing QC samples")
    def _draw_samples(self, dimension: str | None = None, scope: str | None = None) -> None:
        with self.qc_app.open_store() as store:
            rounds = draw_samples(store, self.qc_app.settings, actor=self.qc_app.annotator,
                                  dimension=dimension, scope=scope)
        skipped = [f"{noun_in(r.dimension, r.scope)}: "
                   + (r.detail if r.why_not is Why.REFUSED else r.why_not.value)
                   for r in rounds.rounds if r.why_not is not None]
        plans = [f"{sentence_case(noun_in(r.dimension, r.scope))}: {r.plan}"
                 for r in rounds.rounds if r.plan]
        self.post_message(SamplesDrawn([r.sample for r in rounds.done if r.sample is not None],
                                       skipped + plans, rounds.requeued))

    @on(SamplesDrawn)
    def _samples_drawn(self, message: SamplesDrawn) -> None:
        self._set_busy(None)
        lines = [f"Drew {info.size} {noun_in(info.dimension, info.scope, info.size)} (round "
                 f"{info.round}, {info.rate:.0%} rate)" for info in message.drawn]
        if message.requeued:
            lines.append(f"{message.requeued} regenerated item(s) joined their open sample")
        lines += message.skipped
        self.notify("\n".join(lines) or "Nothing to sample.",
                    title="QC samples", severity="information" if message.drawn else "warning")
        self.action_refresh()

    def _curator_or_say(self, what: str) -> bool:
        """True for a curator; else says who may, or how to configure one."""
        if self.qc_app.is_curator:
            return True
        curators = list(self.qc_app.settings.curators)
        self.notify(f"Only a curator can {what}. "
                    + (f"The account {self.qc_app.annotator} is not one (curators: "
                       f"{', '.join(curators)})." if curators else
                       f"No curators are configured: add curators = "
                       f"[\"{self.qc_app.annotator}\"] under [qc] in qcstation.toml."),
                    title="Not allowed", severity="warning", timeout=8)
        return False

    def _ask(self, title_text: str, question: str, then: Any) -> None:
        """A bulk action asks first (y / n)."""
        from screens.dialogs.confirm import ConfirmModal

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(ConfirmModal(title_text, question + "\n\ny: go ahead · n: cancel"),
                             callback=answered)

    def action_extend_samples(self) -> None:
        if not self._curator_or_say("extend a QC sample"):
            return
        plan = [(d.dimension, d.scope, extension_size(d.gate), d.gate.extend_reason)
                for d in self.dimensions if d.gate is not None and not d.gate.passed
                and d.sample is not None and extension_size(d.gate) > 0]
        if not plan:
            self.notify("No sample needs extending now"
                        + ("" if self.dimensions else " (the gates are still being read)") + ".",
                        title="QC samples")
            return
        lines = [f"{sentence_case(noun_in(dim, scope))}: add {n} random {noun(dim, n)} "
                 f"({why or 'the gate asks'})" for dim, scope, n, why in plan]
        total = sum(n for _, _, n, _ in plan)
        self._ask("Extend QC samples", "\n".join(lines)
                  + f"\n\nEvery added item must then be reviewed ({total} in all).",
                  self._extend_now)

    def _extend_now(self) -> None:
        self._set_busy("Extending QC samples…")
        self._extend_samples()

    def action_fresh_round(self) -> None:
        if not self._curator_or_say("start a fresh round"):
            return
        dims = [(d.dimension, d.scope) for d in self.dimensions if d.gate is not None
                and not d.gate.passed and d.gate.defects and not d.gate.pending
                and not d.gate.open_rejects and not (d.gate.plan or {}).get("reachable", True)]
        if not dims:
            self.notify("A fresh round is for a gate out of reach once every defect found is "
                        "corrected (reviewed, no open reject); no dimension is there now.",
                        title="Fresh round", severity="warning", timeout=8)
            return
        lines = [f"{sentence_case(noun_in(d.dimension, d.scope))}: {d.gate.defects} defect(s) "
                 f"found and corrected; a new random sample of the corrected data, sized to "
                 f"what the gate needs with no defect, is what the gate counts from now on"
                 for d in self.dimensions if (d.dimension, d.scope) in dims
                 and d.gate is not None]
        self._ask("Fresh random round", "\n".join(lines), lambda: self._fresh(dims))

    def _fresh(self, dims: list[tuple[str, str]]) -> None:
        self._set_busy("Drawing a fresh round…")
        self._draw_fresh(dims)

    @work(thread=True, exclusive=True, exit_on_error=False, group="samplers",
          description="Drawing a fresh round")
    def _draw_fresh(self, dims: list[tuple[str, str]]) -> None:
        with self.qc_app.open_store() as store:
            rounds = fresh_rounds(store, self.qc_app.settings, dims, actor=self.qc_app.annotator)
        lines = [f"{sentence_case(noun_in(r.dimension, r.scope))}: "
                 + (r.detail if r.why_not is not None else
                    f"round {r.detail}, {r.added} items to review") for r in rounds.rounds]
        self.post_message(SamplesExtended({}, lines))

    @work(thread=True, exclusive=True, exit_on_error=False, group="samplers",
          description="Extending QC samples")
    def _extend_samples(self) -> None:
        with self.qc_app.open_store() as store:
            rounds = extend_samples(store, self.qc_app.settings, actor=self.qc_app.annotator)
        extended: dict[str, int] = {}
        skipped: list[str] = []
        for r in rounds.rounds:
            what = noun(r.dimension)
            if r.why_not is Why.NO_SAMPLE:
                skipped.append(f"{what}: no open sample (press s to draw one)")
            elif r.why_not is Why.UNFINISHED:
                skipped.append(f"{what}: finish the open sample first ({r.detail})")
            elif r.why_not in (Why.NOTHING_TO_ADD, Why.REFUSED):
                skipped.append(f"{what}: {r.detail}")
            elif r.why_not is None:
                extended[f"{r.scope}/{r.dimension}" if r.scope else r.dimension] = r.added
                if r.because:
                    skipped.append(f"{noun_in(r.dimension, r.scope)}: because of {r.because}")
        self.post_message(SamplesExtended(extended, skipped))

    @on(SamplesExtended)
    def _samples_extended(self, message: SamplesExtended) -> None:
        self._set_busy(None)
        lines = [f"Added {n} {noun(dim.rpartition('/')[2], n)} to the sample"
                 + (f" of set {dim.rpartition('/')[0]}" if "/" in dim else "")
                 for dim, n in message.extended.items()]
        lines += message.skipped
        self.notify("\n".join(lines) or "No sample needs extending.", title="QC samples",
                    severity="information" if message.extended else "warning")
        self.action_refresh()

    # -- regeneration ----------------------------------------------------------------
    def action_regenerate(self) -> None:
        if self.busy_note and self.busy_note.startswith("Regenerating"):
            self.notify("Regeneration is already running.")
            return
        rejects = sum(d.gate.open_rejects for d in self.dimensions if d.gate is not None)
        what = f"the {rejects} rejected item(s)" if rejects else "every rejected item"
        if self.qc_app.config.generator is None:
            question = (f"No model is configured: the rules are tried again on {what}. An item "
                        f"the rules made comes out the same and stays rejected: fix it in place "
                        f"instead (c: the queue, then e), or configure a generator in "
                        f"qcstation.toml (see qcstation.example.toml).")
        else:
            question = (f"Ask the model again for {what} awaiting regeneration, with the "
                        f"reviewers' reasons; the replacements come back to review.")
        self._ask("Regenerate rejected items", question, self._regenerate_now)

    def _regenerate_now(self) -> None:
        self._set_busy("Regenerating rejected items… (runs in the background)")
        self.regen_ended.clear()
        self._regenerate()

    @work(thread=True, exclusive=True, exit_on_error=False, group="generators",
          description="Regenerating rejected items")
    def _regenerate(self) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()   # quitting cancels it: the requests in flight are dropped
        last_post = 0.0

        def progress(done: int, total: int, message: str) -> None:
            nonlocal last_post
            now = time.monotonic()
            if now - last_post >= 0.25 or done >= total:
                last_post = now
                self.post_message(RunProgress(done, total, message))

        try:
            done = regenerate_rejects(self.qc_app.db_path, self.qc_app.config,
                                      actor=self.qc_app.annotator, progress=progress,
                                      display=self.qc_app.display_name,
                                      cancel=lambda: worker.is_cancelled)
        finally:
            self.regen_ended.set()
        self.post_message(RegenerationFinished(describe_summary(done.summary), done.requeued))

    @on(RegenerationFinished)
    def _regenerated(self, message: RegenerationFinished) -> None:
        self._set_busy(None)
        text = message.summary
        if message.requeued:
            text += f"\n{message.requeued} replacement(s) joined the open sample for review"
        self.notify(text, title="Regeneration finished", timeout=10)
        self.action_refresh()

    def action_derive(self) -> None:
        from screens.dialogs.derive import DeriveModal

        if self.busy_note and self.busy_note.startswith("Deriving"):
            self.notify("A derive is already running.")
            return
        # with curators configured, building a set (a new scope for QC and releases) is theirs
        if self.qc_app.settings.curators and not self._curator_or_say("build a derived set"):
            return

        def chosen(req: object) -> None:
            if req is not None:
                self._set_busy(f"Deriving {getattr(req, 'name', '')}… (runs in the background)")
                self.derive_ended.clear()
                self.derive_name = str(getattr(req, "name", ""))
                self._derive(req)

        self.app.push_screen(DeriveModal(), callback=chosen)

    @work(thread=True, exclusive=True, exit_on_error=False, group="derivers",
          description="Building a derived set")
    def _derive(self, req: Any) -> None:
        from textual.worker import get_current_worker

        from qcstation.core.derive.runner import run_derive

        worker = get_current_worker()   # quitting cancels it: the derive stops between batches
        try:
            summary = run_derive(self.qc_app.db_path, self.qc_app.config, kind=req.kind,
                                 name=req.name, actor=self.qc_app.annotator, workers=None,
                                 cancel=lambda: worker.is_cancelled)
        finally:
            self.derive_ended.set()
        self.post_message(DeriveFinished(derive_notice(req.name, summary)))

    def stop_for_quit(self) -> list[tuple[str, threading.Event]]:
        """Quitting: a derive going on is told to stop after its current batch, a
        regeneration to drop its requests in flight; returns what to say meanwhile and the
        event set when each thread has ended (empty: nothing goes on). The app waited for
        the threads with the terminal closed: 10-17 s of a blank screen after y for a derive,
        minutes for a regeneration against a server that never replies (issue 28)."""
        waits = []
        if not self.derive_ended.is_set():
            self.workers.cancel_group(self, "derivers")    # the derive's cancel() turns true
            what = self.derive_name or ""
            waits.append((f"Stopping derive {what} after its current batch…".replace("  ", " "),
                          self.derive_ended))
        if not self.regen_ended.is_set():
            self.workers.cancel_group(self, "generators")  # the regeneration's cancel() too
            waits.append(("Stopping the regeneration of rejected items (the requests in "
                          "flight are dropped; the items stay rejected)…", self.regen_ended))
        return waits

    @on(DeriveFinished)
    def _derived(self, message: DeriveFinished) -> None:
        self._set_busy(None)
        self.notify(message.text, title="Derive finished", timeout=10)
        self.action_refresh()

    @on(RunProgress)
    def _regeneration_progress(self, message: RunProgress) -> None:
        if self.busy_note and self.busy_note.startswith("Regenerating"):
            self._set_busy(f"Regenerating rejected items… {message.message} "
                           f"({message.done} of {message.total})")

    # -- helpers ---------------------------------------------------------------------
    def _set_busy(self, note: str | None) -> None:
        self.busy_note = note
        if self.loaded:
            self._show_attention()

    def worker_failed(self, worker: Worker[object]) -> None:
        if worker.group in ("samplers", "generators", "derivers"):
            self._set_busy(None)
        elif worker.group == "loaders" and not self.loaded:
            self.query_one("#attention", AttentionList).show(
                [Attention("Could not read the database (see the error); F5 tries again", None)])

