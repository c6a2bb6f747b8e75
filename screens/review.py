"""The review screen: one sampled item at a time, keyboard first.

``a`` accept, ``x`` reject (with a reason), ``k`` skip, ``u`` undo, ``n``/``p`` next and
previous (``p`` also reaches decisions of earlier sessions; a/x/k on one of your earlier
decisions changes it, logged), ``c`` a comment and ``!`` the unsure flag for the next
decision, ``e`` fix the item in place, ``g`` guidelines. Keys pressed while a decision is
saving are queued and run in order; notices go to a line of their own, never over the
item. ``X`` (curators only) excludes the shown item's seed from the
dataset when its artifact cannot be fixed (:func:`qcstation.core.review.curation.exclude_seed`). Items come from
:func:`qcstation.core.review.decisions.next_item`, which
claims atomically, so annotators in separate SSH sessions never get the same item.
Each key runs one review step (:mod:`qcstation.core.review.step`: decide and the next item,
undo and the item again...) in a thread worker with its own store, which posts the step's
typed outcome (:class:`~qcstation.messages.ReviewStepTaken`) for one handler to render. The
screen maps keys and renders, nothing more.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Header, Static
from textual.worker import Worker

from qcstation.common.safe import one_line
from qcstation.core.review.decisions import my_decisions, reject_reasons
from qcstation.core.review.fixes import FIXABLE
from qcstation.core.review.gate import GateStatus, Progress, progress
from qcstation.core.review.items import ReviewItem, item_key
from qcstation.core.review.sampling import open_sample
from qcstation.core.review.step import (
    Decided,
    Step,
    Undone,
    change_step,
    decide_step,
    exclude_step,
    look_at,
    move_on,
    next_step,
    undo_step,
)
from qcstation.messages import GateUpdated, ReviewStepTaken
from qcstation.widgets.bullets import Bullet, Figures
from qcstation.widgets.guidelines import GuidelinesPanel, guidelines_view
from qcstation.widgets.labels import VERDICT_WORDS, blocker_text, gate_line, noun, title
from qcstation.widgets.review_views import (ArtifactView, KeyedPane, SeedView, pane_title,
                                            render_verdicts)
from qcstation.widgets.footer import KeyFooter
from screens._base import QCScreen
from screens.dialogs.comment import CommentModal
from screens.dialogs.exclude_seed import ExcludeSeedModal
from screens.dialogs.reject_reason import RejectReasonModal

if TYPE_CHECKING:
    from db import Store

#: seconds between re-reads of the "Sample done" view's counts and gate
DONE_REFRESH_S = 15.0
#: what needs an item shown (hidden on the "Sample done" view)
_ITEM_ACTIONS = frozenset({"accept", "reject", "skip", "fix", "exclude_seed", "comment",
                           "toggle_unsure"})

Op = Literal["next", "move_on", "decide", "undo", "show", "exclude", "change", "history"]


@dataclass(frozen=True)
class _Step:
    """One unit of work for the review worker."""

    op: Op
    item_id: int | None = None
    verdict: str | None = None
    reason: str | None = None
    seed_id: int | None = None
    at_head: bool = True     # exclude: the shown item is the one being decided
    comment: str | None = None
    unsure: bool = False
    review_id: int | None = None  # change: the earlier decision being changed


class HistoryLoaded(Message):
    """This annotator's earlier decisions (item ids, oldest first), so p reaches them."""

    def __init__(self, item_ids: list[int]) -> None:
        super().__init__()
        self.item_ids = item_ids


class ReviewScreen(QCScreen):
    """Review the open QC sample of one dimension (or of any, when ``dimension`` is None)."""

    BINDING_GROUP_TITLE = "Review"
    PASTE_HINT = 'Paste where you type: a reason (x, then Tab), a fix (e) or a note (c).'
    AUTO_FOCUS = "#artifact_pane"   # the first focus (Textual's default: the seed pane)
    BINDINGS = [
        Binding("a", "accept", "Accept", tooltip="The artifact is right", id="review-accept"),
        Binding("x", "reject", "Reject", tooltip="Reject with a reason", id="review-reject"),
        Binding("k", "skip", "Skip", tooltip="Decide later; it comes back at the end",
                id="review-skip"),
        Binding("u", "undo", "Undo", tooltip="Undo your last decision", id="review-undo"),
        Binding("n", "next", "Next",
                tooltip="Next item (from your current one: move on without deciding)",
                id="review-next"),
        Binding("p", "previous", "Prev",
                tooltip="Look back at your decisions (a/x/k there change one)",
                id="review-previous"),
        Binding("g", "toggle_guidelines", "Guide", tooltip="Show or hide the guidelines",
                id="review-guidelines"),
        Binding("escape", "back", "Back", tooltip="Back to the dashboard", id="review-back"),
        Binding("f5", "refresh", "Refresh", tooltip="The sample done: read the counts and the "
                "gate again (they also refresh themselves)", id="review-refresh"),
        Binding("e", "fix", "Fix", tooltip="Edit the item and accept your edit (a new version, "
                "verified again)", id="review-fix"),
        Binding("c", "comment", "Note", show=False,
                tooltip="A comment to go with your next decision", id="review-comment"),
        Binding("exclamation_mark", "toggle_unsure", "Unsure", show=False,
                tooltip="Flag your next decision as unsure", id="review-unsure"),
        Binding("X", "exclude_seed", "Exclude seed", show=False,
                tooltip="Curators: take the shown item's seed out of the dataset (its artifact "
                        "cannot be fixed)", id="review-exclude-seed"),
        # the menu is in help and behind the header's icon: at 80 columns the footer was cut
        # after '^p' (its label lost), as the dashboard's was
        Binding("ctrl+p", "app.command_palette", "Menu", show=False,
                tooltip="Command palette: every action by name", id="review-command-palette"),
    ]

    def __init__(self, dimension: str | None, set_name: str | None = None) -> None:
        super().__init__()
        self.dimension = dimension
        #: the samples handed out: of one set ('' the working set, else a derived set's
        #: name), or of any (None)
        self.set_name = set_name
        self.item: ReviewItem | None = None         # what is on screen
        self.editable = False                       # is it the item being decided?
        self.head_id: int | None = None             # the item this annotator holds
        self.history: list[int] = []                # items shown as current this session
        self.cursor: int | None = None              # index into history while looking back
        self.busy = False
        self.finished = False
        self.progress: Progress | None = None
        self.gate: GateStatus | None = None
        self.gate_running = False
        self.gate_stale: tuple[str, str] | None = None  # re-evaluate once the running one ends
        self.scope = ""                             # the set of the last item shown ('' working set)
        self.queued: deque[str] = deque()           # keys pressed while saving, run in order
        self.comment: str = ""                      # goes with the next decision
        self.unsure = False
        self.keys: dict[int, str] = {}              # item number -> its name (gsm8k-83)
        self.done_dimension: str | None = dimension  # the dimension of the sample done

    # -- layout ----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Loading…", style="dim"), id="progress_line")
        yield Static("", id="gate_line")
        yield Static("", id="notice_line")
        yield Static("", id="verdict_line")
        with Horizontal(id="review_body"):
            with KeyedPane("Seed problem", "Seed", id="seed_pane", classes="pane"):
                yield SeedView(id="seed_view")
            yield GuidelinesPanel(self.dimension, id="guidelines", classes="pane")
            with VerticalScroll(id="artifact_pane", classes="pane"):
                yield ArtifactView(id="artifact_view")
        with VerticalScroll(id="done_panel", classes="pane"):
            yield Static("", id="done_text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#artifact_pane").border_title = sentence(noun(self.dimension, 1))
        self.query_one("#done_panel").border_title = "Sample done"
        self.query_one("#review_body").loading = True
        self.query_one("#artifact_pane").focus()
        self._run(_Step("next"))
        self._load_history()
        # the "Sample done" view follows the others' decisions (as the dashboard does)
        self.set_interval(DONE_REFRESH_S, self._refresh_done)

    @work(thread=True, exit_on_error=False, group="history",
          description="Reading your earlier decisions")
    def _load_history(self) -> None:
        with self.qc_app.open_store() as store:
            mine = my_decisions(store, self.qc_app.annotator, limit=200)
        ids = [int(r["item_id"]) for r in reversed(mine)
               if self.dimension is None or r["dimension"] == self.dimension]
        self.post_message(HistoryLoaded(list(dict.fromkeys(ids))))

    @on(HistoryLoaded)
    def _history_loaded(self, message: HistoryLoaded) -> None:
        earlier = [i for i in message.item_ids if i not in self.history]
        self.history[:0] = earlier
        if self.cursor is not None:
            self.cursor += len(earlier)

    def _notice(self, text: str, severity: str = "information") -> None:
        """A notice on its own line under the gate, never over the item."""
        style = {"warning": "yellow", "error": "bold red"}.get(severity, "")
        self.query_one("#notice_line", Static).update(
            Bullet(Text(" ".join(text.split()), style=style), "", indent=2))

    def help_notes(self) -> RenderableType:
        return guidelines_view(self.dimension)

    # -- actions ---------------------------------------------------------------------
    def _queue_if_busy(self, action: str) -> bool:
        """While a decision saves, keep the key for afterwards (in order) instead of
        dropping it. True when it was queued."""
        if not self.busy:
            return False
        if len(self.queued) < 50:
            self.queued.append(action)
        self._notice(f"Saving… {len(self.queued)} key(s) queued")
        return True

    def _run_queued(self) -> None:
        while self.queued and not self.busy:
            action = self.queued.popleft()
            getattr(self, f"action_{action}")()
            if self.app.screen is not self:   # a dialog opened (reject reason): wait for it
                break

    def _my_decision(self) -> dict[str, Any] | None:
        if self.item is None:
            return None
        mine = [d for d in self.item.decisions if d.get("annotator") == self.qc_app.annotator]
        return mine[-1] if mine else None

    def _can_decide(self, action: str) -> bool | str:
        """True to decide the shown item, "change" to change your earlier decision on it,
        False when neither is possible (said on the notice line)."""
        if self._queue_if_busy(action):
            return False
        if self.item is None or self.finished and not self.editable:
            self._notice("Nothing to decide: the sample is done. Esc returns to the "
                         "dashboard.", "warning")
            return False
        if not self.editable:
            if self._my_decision() is not None:
                return "change"
            self._notice("You are looking back at an item that is not yours to decide. Press "
                         "n to return to your current item.", "warning")
            return False
        return True

    def _decide(self, verdict: str, reason: str | None = None,
                mode: bool | str = True) -> None:
        assert self.item is not None
        comment, unsure = self.comment or None, self.unsure
        self.comment, self.unsure = "", False
        if mode == "change":
            mine = self._my_decision()
            assert mine is not None
            self._run(_Step("change", self.item.item_id, verdict, reason, comment=comment,
                            unsure=unsure, review_id=int(mine["review_id"])))
        else:
            self._run(_Step("decide", self.item.item_id, verdict, reason, comment=comment,
                            unsure=unsure))

    def action_accept(self) -> None:
        mode = self._can_decide("accept")
        if mode and self.item is not None:
            self._decide("accept", mode=mode)

    def action_skip(self) -> None:
        mode = self._can_decide("skip")
        if mode and self.item is not None:
            self._decide("skip", mode=mode)

    def action_reject(self) -> None:
        mode = self._can_decide("reject")
        if not (mode and self.item is not None):
            return
        item_id = self.item.item_id

        def rejected(reason: str | None) -> None:
            if reason and self.item is not None and self.item.item_id == item_id:
                self._decide("reject", reason, mode=mode)
            else:
                self._run_queued()

        dimension = self.item.dimension
        self.app.push_screen(RejectReasonModal(reject_reasons(dimension),
                                               subject=f"this {noun(dimension, 1)}"),
                             callback=rejected)

    def action_comment(self) -> None:
        def typed(text: str | None) -> None:
            if text is not None:
                self.comment = text.strip()
                self._show_pending()

        self.app.push_screen(CommentModal(self.comment), callback=typed)

    def action_toggle_unsure(self) -> None:
        self.unsure = not self.unsure
        self._show_pending()

    def _show_pending(self) -> None:
        bits = []
        if self.unsure:
            bits.append("unsure")
        if self.comment:
            bits.append(f"note: {self.comment}")
        self._notice(("Goes with your next decision: " + "; ".join(bits)) if bits
                     else "No note or unsure flag for the next decision.")

    def action_fix(self) -> None:
        if self._queue_if_busy("fix"):
            return
        item = self.item
        if item is None:
            self._notice("No item is shown to fix.", "warning")
            return
        from qcstation.core.review.fixes import FIXABLE, editable_text
        from screens.dialogs.fix_item import FixModal

        if item.dimension not in FIXABLE:
            self._notice(f"{item.dimension} items cannot be fixed in place.", "warning")
            return
        late = item.outcome == "accept" and not self.editable
        if late and not self.qc_app.is_curator:
            self._notice(f"{one_line(item.key, 40)} was accepted; only a curator can correct it now "
                         f"(the correction counts as a defect).", "warning")
            return
        if not (self.editable or item.outcome in ("reject", "accept")):
            self._notice("Only an item you are deciding, or a decided one, can be fixed.",
                         "warning")
            return

        def fixed(result: dict[str, Any] | None) -> None:
            if result:
                self._notice(f"{result['item']}: "
                             + ("corrected after acceptance (counted as a defect)"
                                if result.get("late_correction") else "fixed")
                             + f" as version {result['version']}, verified on its own terms "
                             "and accepted by you")
                self._run(_Step("next"))

        self.app.push_screen(FixModal(item, editable_text(item)), callback=fixed)

    def action_exclude_seed(self) -> None:
        if self._queue_if_busy("exclude_seed"):
            return
        curators = self.qc_app.settings.curators
        if not self.qc_app.is_curator:
            self._notice(f"Only a curator can exclude a seed; the account "
                         f"{self.qc_app.annotator} is not one"
                         + (f" (curators: {', '.join(curators)})." if curators else
                            "; no curators are configured ([qc] curators)."), "warning")
            return
        item = self.item
        if item is None:
            self._notice("No item is shown; there is no seed to exclude.", "warning")
            return
        at_head = item.item_id == self.head_id and self.editable and self.cursor is None

        def confirmed(reason: str | None) -> None:
            if reason and self.item is not None and self.item.item_id == item.item_id:
                self._run(_Step("exclude", item.item_id, reason=reason, seed_id=item.seed_id,
                                at_head=at_head))

        self.app.push_screen(ExcludeSeedModal(item.seed_id, item.key), callback=confirmed)

    def action_undo(self) -> None:
        if self._queue_if_busy("undo"):
            return
        self._run(_Step("undo"))

    def action_next(self) -> None:
        if self._queue_if_busy("next"):
            return
        if self.cursor is not None:
            target = self.cursor + 1
            if target >= len(self.history) or self.history[target] == self.head_id:
                self.cursor = None
                if self.head_id is not None:
                    self._run(_Step("show", self.head_id))
                else:
                    self._run(_Step("next"))
            else:
                self.cursor = target
                self._run(_Step("show", self.history[target]))
            return
        if self.finished or self.item is None:
            self._run(_Step("next"))
            return
        # at the current item: move on without deciding (its claim is given back)
        self._run(_Step("move_on", self.item.item_id))

    def action_previous(self) -> None:
        if self._queue_if_busy("previous"):
            return
        if self.cursor is None:
            if self.head_id is not None and self.head_id in self.history:
                target = self.history.index(self.head_id) - 1
            else:
                target = len(self.history) - 1
        else:
            target = self.cursor - 1
        if target < 0:
            earlier = [i for i in self.history if i != self.head_id]
            self._notice("This is the first of your decisions." if earlier
                         else "You have no earlier decision to look back at.")
            return
        self.cursor = target
        self._run(_Step("show", self.history[target]))

    def action_toggle_guidelines(self) -> None:
        self.toggle_class("-show-guidelines")

    def action_back(self) -> None:
        if self.has_class("-show-guidelines"):
            self.remove_class("-show-guidelines")
            return
        if self.head_id is not None:
            self.qc_app.release_claim_later(self.head_id)
        self.dismiss(None)

    # -- the worker ------------------------------------------------------------------
    def _run(self, step: _Step) -> None:
        self.busy = True
        self._review_step(step)

    @work(thread=True, exit_on_error=False, group="reviews", description="Reviewing")
    def _review_step(self, step: _Step) -> None:
        with self.qc_app.open_store() as store:
            outcome = self._take(store, step)
        self.post_message(ReviewStepTaken(outcome))
    def _take(self, store: Store, step: _Step) -> Step:
        """The review step (:mod:`qcstation.core.review.step`) a key asked for."""
        who, dimension, scope = self.qc_app.annotator, self.dimension, self.set_name
        if step.op in ("decide", "change"):
            assert step.item_id is not None and step.verdict is not None
            if step.op == "change":
                assert step.review_id is not None
                return change_step(store, who, step.item_id, step.review_id, step.verdict,
                                   step.reason, comment=step.comment, unsure=step.unsure)
            return decide_step(store, who, dimension, step.item_id, step.verdict, step.reason,
                               comment=step.comment, unsure=step.unsure, scope=scope)
        if step.op == "move_on":
            assert step.item_id is not None
            return move_on(store, who, dimension, step.item_id, scope=scope)
        if step.op == "undo":
            return undo_step(store, who, dimension, scope=scope)
        if step.op == "show":
            assert step.item_id is not None
            return look_at(store, who, step.item_id)
        if step.op == "exclude":
            assert step.seed_id is not None and step.reason is not None
            return exclude_step(store, who, dimension, step.seed_id, step.reason,
                                curators=self.qc_app.settings.curators, item_id=step.item_id,
                                at_head=step.at_head, scope=scope)
        return next_step(store, who, dimension, scope=scope)

    # -- the gate (slow on a large database: one evaluation at a time, after the item) --
    @property
    def _has_model(self) -> bool:
        """Can this session regenerate (a generator is configured)? Without one, the gate's
        "regenerate N rejected items" reads as what does help, as on the dashboard."""
        return self.qc_app.config.generator is not None

    def _refresh_gate(self, dimension: str | None, scope: str | None = None) -> None:
        """Read the gate of ``dimension`` in the set of the item shown (``scope``: the set,
        default the last item's): a derived set's item is judged by its set's gate."""
        if dimension is None:
            return
        scope = self.scope if scope is None else scope
        if self.gate_running:
            self.gate_stale = (dimension, scope)
            return
        self.gate_running = True
        self.gate_stale = None
        self._evaluate_gate(dimension, scope, counts=self.finished)

    def action_refresh(self) -> None:
        """F5 on the "Sample done" view (it also refreshes itself): the sample's counts and
        the gate read again, as others decide the items they hold."""
        if self.finished and not self.busy:
            self._refresh_gate(self.dimension_shown, self.scope)

    def _refresh_done(self) -> None:
        if self.finished and not self.busy and self.app.screen is self:
            self._refresh_gate(self.dimension_shown, self.scope)

    @property
    def dimension_shown(self) -> str | None:
        """The dimension of the item shown, else of the screen (the sample done)."""
        return self.item.dimension if self.item is not None else self.done_dimension

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Nothing to decide on the "Sample done" view: its footer offers no decision and
        no fix, and F5 only there (p shows an earlier item, where they come back); no fix of
        an item of a dimension that is not fixed in place (a formalisation)."""
        if action in _ITEM_ACTIONS and self.item is None and self.finished:
            return False
        if action == "fix" and self.item is not None and self.item.dimension not in FIXABLE:
            return False    # e only refused ("cannot be fixed in place"): not offered
        if action == "refresh" and not (self.finished and self.item is None):
            return False
        return True

    @work(thread=True, exit_on_error=False, group="gates", description="Checking the QC gate")
    def _evaluate_gate(self, dimension: str, scope: str = "", counts: bool = False) -> None:
        """The gate, and with ``counts`` the open sample's counts read with it (the "Sample
        done" view: both of one moment, never counts older than the gate)."""
        with self.qc_app.open_store() as store:
            gate = self.qc_app.evaluate_gate(store, dimension, scope)
            sample = open_sample(store, dimension, scope) if counts else None
            done = progress(store, sample.id) if sample is not None else None
        self.post_message(GateUpdated(dimension, gate, done))

    def worker_failed(self, worker: Worker[object]) -> None:
        if worker.group == "gates":
            self.gate_running = False
            return
        if worker.group != "reviews":
            return
        self.busy = False
        self.queued.clear()  # what was typed after a failed step must not hit another item
        self.query_one("#review_body").loading = False
        if self.cursor is not None and self.item is not None and self.item.item_id not in (
                self.history[self.cursor:self.cursor + 1]):
            self.cursor = None

    # -- handlers --------------------------------------------------------------------
    @on(ReviewStepTaken)
    def _step_taken(self, message: ReviewStepTaken) -> None:
        """Render a step's outcome: what happened on the notice line, then what to show."""
        step = message.step
        if step.decided is not None:
            self._decided(step.decided)
        if step.undone is not None:
            self._undone(step.undone)
        if step.excluded is not None:
            self._seed_excluded(step.excluded)
        if step.item is not None:
            self._show_item(step.item, step)
        else:
            self._sample_finished(step)

    def _decided(self, decided: Decided) -> None:
        if decided.moved_on is not None:
            # decided meanwhile (this account in another terminal, or someone else),
            # replaced or closed: say so once; the step already moved on
            text = one_line(str(decided.moved_on), 300)
            self.queued.clear()   # keys typed for the stale item must not hit the next one
            self._notice(f"{text[:1].upper()}{text[1:]} — moved on to the next item.",
                         "warning")
            return
        word = VERDICT_WORDS.get(decided.verdict, decided.verdict)
        key = self.keys.get(decided.item_id, "the item")
        self._notice(("Changed: " if decided.changed else "Saved: ") + f"{key} {word}"
                     + (f": {decided.reason}" if decided.reason else ""))
        if decided.changed and self.item is not None:
            # an earlier decision changed while looking back: the item shown stays (no
            # current step reads the gate), so the gate is read here; it kept its old
            # defect bound until n moved on
            self.call_after_refresh(self._refresh_gate, self.item.dimension, self.item.scope)

    def _show_item(self, item: ReviewItem, step: Step) -> None:
        self.busy = False
        self.finished = False
        self.item = item
        self.editable = step.editable
        self.keys[item.item_id] = one_line(item.key, 60)
        if step.progress is not None:
            self.progress = step.progress
        if step.current:
            self.head_id = item.item_id
            self.cursor = None
            if item.item_id in self.history:
                self.history.remove(item.item_id)
            self.history.append(item.item_id)
        if self.dimension is None:
            self.query_one(GuidelinesPanel).set_dimension(item.dimension)
        self.query_one("#review_body").loading = False
        self.remove_class("-finished")
        self.refresh_bindings()
        self.set_class(not step.editable, "-read-only")
        self.query_one("#seed_view", SeedView).show_item(item)
        self.query_one("#artifact_view", ArtifactView).show_item(item)
        self.query_one("#artifact_pane").border_title = pane_title(item)
        self.query_one("#seed_pane", KeyedPane).show_key(item.key)
        self.query_one("#seed_pane", VerticalScroll).scroll_home(animate=False)
        self.query_one("#artifact_pane", VerticalScroll).scroll_home(animate=False)
        self._show_status()
        if item.scope != self.scope:
            self.gate = None  # another set's gate: not this one's
            self.query_one("#gate_line", Static).update(Bullet(gate_line(None), "", indent=2))
        self.scope = item.scope
        if step.current or self.gate is None:
            self.call_after_refresh(self._refresh_gate, item.dimension, item.scope)
        self.call_after_refresh(self._run_queued)

    def _sample_finished(self, step: Step) -> None:
        self.busy = False
        self.finished = True
        self.item = None
        self.editable = False
        self.head_id = None
        self.cursor = None
        if step.progress is not None:
            self.progress = step.progress
        self.done_dimension = step.dimension
        self.query_one("#review_body").loading = False
        self.add_class("-finished")
        self.refresh_bindings()
        self.remove_class("-read-only")
        self.query_one("#done_panel").focus()
        self._show_status()
        self._show_done()
        self.call_after_refresh(self._refresh_gate, step.dimension)
        self.call_after_refresh(self._run_queued)

    @on(GateUpdated)
    def _gate_updated(self, message: GateUpdated) -> None:
        self.gate_running = False
        if self.gate_stale is not None:
            self._refresh_gate(*self.gate_stale)
        if message.gate.scope != self.scope:
            return  # the gate of the set of an item shown before
        self.gate = message.gate
        if message.progress is not None and self.finished and self.item is None:
            self.progress = message.progress
            self._show_status()
        # its wrapped lines indented, not at column 0 (issue 28: at 80 columns a gate line
        # with a bound and a next step went on at the edge, as a line of its own)
        self.query_one("#gate_line", Static).update(
            Bullet(gate_line(message.gate, has_model=self._has_model), "", indent=2))
        if self.finished:
            self._show_done()

    def _seed_excluded(self, r: dict[str, Any]) -> None:
        closed = r.get("open_rejects_closed") or {}
        self._notice(f"Seed {item_key(str(r.get('source')), r.get('orig_id'))} excluded: "
                     f"{r.get('reason')}"
                     + ("; it no longer blocks the gate" if closed else ""))
        self.gate = None  # re-read: the open rejects changed
        self.call_after_refresh(self._refresh_gate, self.item.dimension if self.item is not None
                                else self.dimension)

    def _undone(self, undone: Undone) -> None:
        if undone.item_id is None:
            self._notice("Nothing to undo: you have no decision left to take back.", "warning")
        else:
            key = self.keys.get(undone.item_id, "the item")
            self._notice(f"Undid your decision on {key}; decide it again.")

    # -- rendering -------------------------------------------------------------------
    def _show_status(self) -> None:
        progress = self.progress
        dimension = self.item.dimension if self.item is not None else self.dimension
        line = Text.assemble((f"{title(dimension)}: ", "bold"),
                             progress.sentence() if progress is not None else "no open sample")
        parts = [line]
        if self.item is not None and progress is not None:
            parts.append(Text(f"·  {one_line(self.item.key, 40)} ({self.item.position + 1} of "
                              f"{progress.total})", style="dim"))
        # the item's place whole on one line ('gsm8k-61 (3 of' / '12)' at 80 columns)
        self.query_one("#progress_line", Static).update(Figures(parts, indent=2))
        banner_text = self._banner()
        self.query_one("#verdict_line", Static).update(
            Bullet(banner_text, "", indent=2) if banner_text is not None else "")
        self.set_class(banner_text is not None, "-has-banner")

    def _banner(self) -> Text | None:
        """The line over the panes: a looked-back item's verdicts, or what is special here."""
        item = self.item
        if item is None:
            return None
        if not self.editable:
            mine = self._my_decision() is not None
            return Text.assemble(("Looking back: ", "bold"),
                                 render_verdicts(item.decisions, self.qc_app.annotator),
                                 ("  — a/x/k change your decision, n goes forward" if mine
                                  else "  — n goes forward", "dim"))
        if item.item_id != self.head_id:
            return Text.assemble(("Looking back: ", "bold"),
                                 "you moved past this item; decide it now, or n to go forward")
        notes = []
        if item.requeued:
            notes.append("A regenerated replacement of a rejected item")
        if item.overlap:
            notes.append("An overlap item: a second annotator reviews it too")
        return Text("; ".join(notes) + ".", style="italic") if notes else None

    def _show_done(self) -> None:
        progress = self.progress
        text = Text()
        if progress is not None and progress.remaining > 0:
            text.append("Nothing left for you right now.\n", style="bold")
            text.append(f"{progress.sentence()}. {progress.remaining} still to be decided by "
                        "others (claims expire after 15 minutes; skipped items come back to "
                        "whoever skipped them).\n")
        elif progress is not None:
            text.append("The sample is done.\n", style="bold")
            text.append(f"{progress.sentence()}.\n")
        else:
            text.append("There is no open sample for this dimension.\n", style="bold")
            text.append("Press Esc, then s on the dashboard to draw one.\n")
        text.append("\n")
        parts: list[RenderableType] = [text, Bullet(
            gate_line(self.gate, has_model=self._has_model) if self.gate is not None
            else "Checking the gate…", "", indent=2)]
        after = Text()
        if self.gate is not None and not self.gate.passed:
            # as this session can act on it (walk9: '1 awaiting regeneration' with no model
            # configured, where the line above said to fix or exclude it); each blocker's
            # wrapped lines under its words, not at column 0
            parts += [Bullet(blocker_text(b, self._has_model)) for b in self.gate.blockers]
            if self.gate.open_rejects:
                after.append("\nRejected items wait for a fix: Esc, then c opens the curator "
                             "queue (e there fixes an item in place).\n")
        after.append("\n" + ("p looks back at your decisions (a/x/k there change them); "
                             if self.history else "") + "Esc returns to the dashboard.",
                     style="dim")
        self.query_one("#done_text", Static).update(Group(*parts, after))


def sentence(words: str) -> str:
    return words[:1].upper() + words[1:]
