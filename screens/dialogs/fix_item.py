"""Fix an item in place: edit a notation question or key information, checked, accepted.

The modal runs the check and the save itself (a thread worker with its own store): when the
edit fails its check (Z3 for a notation question, the schema and grounding checks for key
information) the error is shown under the editor and the text stays as typed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static, TextArea
from textual.worker import Worker, WorkerState

from qcstation.common.errors import QCStationError
from qcstation.widgets.text_field import SafeTextArea, TextField
from qcstation.common.safe import one_line, printable
from screens.dialogs.fields import OrderedFields
from qcstation.widgets.footer import KeyFooter
from screens.dialogs.help import DIALOG_HELP

if TYPE_CHECKING:
    from screens._base import Workstation
    from qcstation.core.review.items import ReviewItem


#: the editor's width inside the dialog (dialog width less border and padding)
EDITOR_WIDTH = 94


def fix_text_limit(dimension: str) -> int:
    """The most characters a fix's text may hold: what the check of its dimension takes
    (a longer notation question or key information is refused as too long)."""
    if dimension == "arithmetic":
        from qcstation.core.review.fixes import MAX_NOTATION_CHARS

        return MAX_NOTATION_CHARS
    from qcstation.core.construct.make.keyinfo import MAX_EDIT_CHARS

    return MAX_EDIT_CHARS


#: the editor's border takes a row above and below its text
EDITOR_BORDER_ROWS = 2


def editor_height(text: str, width: int = EDITOR_WIDTH, *, at_most: int = 30) -> int:
    """Rows the editor needs (its border included) to show ``text`` whole with soft
    wrapping, plus one to type on, and at least four rows of text; at most ``at_most``."""
    rows = sum(max(1, -(-len(line) // max(width, 10))) for line in text.split("\n"))
    return max(4 + EDITOR_BORDER_ROWS, min(rows + 1 + EDITOR_BORDER_ROWS, at_most))


def fix_context(item: ReviewItem) -> Text:
    """What is being fixed and why: the item, its question and gold answer (and for
    key information the gold solution), the reasons it was rejected or replaced, and how
    the edit is checked. Every outside text is shown inert (control characters escaped)."""
    out = Text()
    out.append(f"{one_line(item.key, 60)} · {item.dimension} · version {item.artifact_version} · "
               f"{item.artifact_status}\n", style="bold")
    out.append("Question: ", style="bold")
    out.append(f"{printable(item.question)}\n")
    out.append("Gold answer: ", style="bold")
    out.append(f"{one_line(item.gold_answer, 200)}\n")
    if item.dimension == "understanding" and item.solution:
        out.append("Gold solution: ", style="bold")
        out.append(f"{printable(item.solution)}\n")
    why = [f"{one_line(d['annotator'], 40)} rejected: {one_line(d['reason'], 300)}"
           for d in item.decisions if d["verdict"] == "reject" and d.get("reason")]
    if item.resolution is not None:
        r = item.resolution
        why.append(f"curator {one_line(r['curator'], 40)} {r['kind']} {r['verdict']}: "
                   f"{one_line(r['reason'], 300)}")
    if item.replaces_reason:
        why.append(f"the version it replaces was rejected: {one_line(item.replaces_reason, 300)}")
    out.append("Why: ", style="bold")
    out.append(("; ".join(why) if why else
                "not rejected yet: say what is wrong in the reason field") + "\n",
               style="yellow" if why else "dim")
    if item.dimension == "arithmetic":
        out.append("Any wording: every 'name = expression' is a definition, and the question "
                   "asks for one defined name. The text is read into SMT-LIB of its own and Z3 "
                   "checks it against the gold answer; what cannot be read is refused.",
                   style="dim")
    else:
        out.append("Six fields, one per heading; the check needs each present and grounded in "
                   "the question.", style="dim")
    return out


class FixModal(ModalScreen[dict[str, Any] | None]):
    """Dismisses with what :func:`qcstation.core.review.fixes.fix_in_place` returned, or None.

    Shows what is being fixed and why above the editor; the editor is as tall as its text
    (up to most of the screen); ``ctrl+a`` selects all of the field that has the focus."""

    BINDING_GROUP_TITLE = "Fix in place"
    BINDINGS = [
        Binding("ctrl+s", "save", "Check and save", priority=True, id="fix-save"),
        Binding("ctrl+a", "select_all", "Select all", priority=True, id="fix-select-all"),
        Binding("escape", "cancel", "Cancel", id="fix-cancel"),
        DIALOG_HELP,
    ]
    DEFAULT_CSS = """
    FixModal #fix_dialog { width: 100; }
    FixModal #fix_context { height: auto; }
    FixModal #fix_error { height: auto; max-height: 4; }
    """

    class Failed(Message):
        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    class Saved(Message):
        def __init__(self, result: dict[str, Any]) -> None:
            super().__init__()
            self.result = result

    def __init__(self, item: ReviewItem, text: str) -> None:
        super().__init__()
        self.item = item
        self.text = text
        self.saving = False
        self.message = ""       # the message shown above the editor (a refusal, 'Checking…')
        self.shown_text = text
        self.needs_reason = item.outcome != "reject"
        self.late = item.outcome == "accept"     # a curator's correction of an accepted item
        self._what = "notation question" if item.dimension == "arithmetic" else "key information"

    @property
    def qc_app(self) -> Workstation:
        return cast("Workstation", self.app)

    def _prompt_text(self) -> str:
        """What the dialog says above the editor."""
        return (f"Edit the {self._what}. Ctrl+S checks it"
                + (" (Z3)" if self.item.dimension == "arithmetic" else "")
                + ", stores it as a new version by you and accepts it."
                + (" The accepted version is recorded as your override to reject (curators): "
                   "it counts as the defect it reveals." if self.late else
                   " The shown version is recorded as rejected by you, with the reason below."
                   if self.needs_reason else ""))

    def compose(self) -> ComposeResult:
        with Vertical(id="fix_dialog", classes="dialog"):
            with VerticalScroll(id="fix_context"):
                yield Static(fix_context(self.item), id="fix_context_text")
            yield Static(Text(self._prompt_text()), id="fix_prompt")
            yield Static("", id="fix_error")
            yield SafeTextArea(self.text, id="fix_text", soft_wrap=True, show_line_numbers=False,
                               limit=fix_text_limit(self.item.dimension))
            if self.needs_reason:
                yield TextField(placeholder="What was wrong (required)", id="fix_reason",
                                limit=500)
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#fix_dialog")
        dialog.border_title = f"Fix {one_line(self.item.key, 40)} in place"
        dialog.border_subtitle = "Ctrl+S check and save · Ctrl+A select all · Esc cancel"
        self.query_one("#fix_error", Static).display = False
        self._size_editor()
        area = self.query_one("#fix_text", TextArea)
        self.shown_text = area.text         # as the editor holds it: Esc asks once it changes
        self.set_focus(area)

    @on(TextArea.Changed, "#fix_text")
    def _size_editor(self) -> None:
        """The context takes a quarter of the terminal at most, the editor what its text
        needs of the rest (prompt, message, reason field, borders and footer come first)."""
        height = self.app.size.height
        self.query_one("#fix_dialog").styles.width = min(100, max(40, self.app.size.width - 4))
        # the dialog's 90 % of the rows above the footer, less its border (2), the prompt,
        # the message shown and the reason field (3): a refusal took rows the editor had, so
        # the reason field, focused and typed into, went out of the dialog at 80x24; the
        # context (it scrolls) gives up rows before the editor's four lines do (a refusal of
        # four rows under a short text put the reason field out of the dialog, issue 28)
        inside = int((height - 1) * 0.9) - 2
        fixed = (self._rows(self._prompt_text())
                 + (self._rows(self.message, at_most=4) if self.message else 0)
                 + (3 if self.needs_reason else 0))
        least = 4 + EDITOR_BORDER_ROWS
        context = max(1, min(max(3, height // 6), inside - fixed - least))
        self.query_one("#fix_context").styles.max_height = context
        area = self.query_one("#fix_text", TextArea)
        room = max(least, inside - context - fixed)
        area.styles.height = editor_height(area.text, at_most=room)

    def _rows(self, text: str, at_most: int = 10) -> int:
        """Rows ``text`` takes wrapped at the dialog's inner width (border 2, padding 2)."""
        inner = max(10, min(100, max(40, self.app.size.width - 4)) - 4)
        return min(at_most, len(Text(text).wrap(self.app.console, inner)))

    def on_resize(self) -> None:
        self._size_editor()

    def action_select_all(self) -> None:
        focused = self.focused
        if isinstance(focused, TextArea):
            focused.select_all()
        elif isinstance(focused, Input):
            focused.select_all()

    def edited(self) -> bool:
        """Has the user changed the text or typed a reason (what Esc would lose)?"""
        if self.query_one("#fix_text", TextArea).text != self.shown_text:
            return True
        return self.needs_reason and bool(self.query_one("#fix_reason", Input).value.strip())

    def action_cancel(self) -> None:
        """Esc: leaves at once with nothing changed; an edit is lost only when the user says
        so (as quitting with a run going asks): one Esc took a typed fix away unasked."""
        if self.saving:
            return
        if not self.edited():
            self.dismiss(None)
            return
        from screens.dialogs.confirm import ConfirmModal

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(None)

        self.app.push_screen(ConfirmModal(
            "Discard the fix?", "What you typed is lost; nothing is stored.\n\n"
                                "y: discard · n (or Esc): keep editing"),
            callback=answered)

    def action_save(self) -> None:
        if self.saving:
            return
        reason = None
        if self.needs_reason:
            reason = self.query_one("#fix_reason", Input).value.strip()
            if not reason:
                self._show_error("Say what was wrong with the shown version (Tab to the "
                                 "reason field).")
                return
        self.saving = True
        self._show_error("Checking…", style="dim")
        self._save(self.query_one("#fix_text", TextArea).text, reason)

    @work(thread=True, exit_on_error=False, group="fixes", description="Fixing the item")
    def _save(self, text: str, reason: str | None) -> None:
        from qcstation.core.review.fixes import fix_in_place

        try:
            with self.qc_app.open_store() as store:
                result = fix_in_place(store, self.item.item_id, text, actor=self.qc_app.annotator,
                                      reason=reason, curators=list(self.qc_app.settings.curators))
        except QCStationError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        self.post_message(self.Saved(result))

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        self.saving = False
        self._show_error(message.error)

    @on(Saved)
    def _saved(self, message: Saved) -> None:
        self.saving = False
        self.dismiss(message.result)

    @on(Worker.StateChanged)
    def _worker_error(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.saving = False
            self._show_error(f"Unexpected error: {event.worker.error}")

    def _show_error(self, text: str, style: str = "bold red") -> None:
        error = self.query_one("#fix_error", Static)
        error.display = bool(text)
        error.update(Text(text, style=style))
        self.message = text
        self._size_editor()


class ResolveModal(OrderedFields[tuple[str, str] | None]):
    """A curator's override or settlement: the verdict (accept or reject) and the reason are
    typed (Enter moves on at once, see :mod:`.fields`); dismisses with (verdict, reason), or
    None on Esc."""

    BINDING_GROUP_TITLE = "Resolve"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="resolve-cancel")]
    FIELDS = ("resolve_verdict", "resolve_reason")

    def __init__(self, kind: str, item: ReviewItem) -> None:
        super().__init__()
        self.kind = kind
        self.item = item
        self.verdict: str | None = None

    def compose(self) -> ComposeResult:
        decisions = "; ".join(f"{d['annotator']} {d['verdict']}"
                              + (f" ({d['reason']})" if d.get("reason") else "")
                              for d in self.item.decisions if d["verdict"] in ("accept", "reject"))
        verb = "Settle the disagreement on" if self.kind == "settle" else "Override the outcome of"
        with Vertical(id="resolve_dialog", classes="dialog"):
            yield Static(Text(f"{verb} {self.item.key} ({self.item.dimension}). Decisions: "
                              f"{decisions or 'none'}. The reviewers' decisions stay in the "
                              f"log; yours is what the gate counts."), id="resolve_prompt")
            yield TextField(placeholder="accept or reject", id="resolve_verdict", limit=10)
            yield TextField(placeholder="Why (required; recorded with your account)",
                            id="resolve_reason", limit=500)
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#resolve_dialog")
        dialog.border_title = self.kind.capitalize()
        dialog.border_subtitle = "Enter: next field, then save · Esc cancels"
        self.set_focus(self.query_one("#resolve_verdict", Input))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def submit_fields(self) -> None:
        verdict = self.query_one("#resolve_verdict", Input).value.strip().lower()
        verdict = {"a": "accept", "accept": "accept", "r": "reject", "x": "reject",
                   "reject": "reject"}.get(verdict, "")
        reason = " ".join(self.query_one("#resolve_reason", Input).value.split())
        if not verdict:
            self.notify("Type accept or reject in the first field.", severity="warning")
            self.set_focus(self.query_one("#resolve_verdict", Input))
            return
        if not reason:
            self.notify("Say why (it is recorded).", severity="warning")
            return
        self.dismiss((verdict, reason))
