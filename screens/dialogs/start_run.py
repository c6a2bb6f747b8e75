"""The form that starts an evaluation run: model, release, tasks, shots, temperature,
samples, item limit, name."""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Checkbox, Input, Label, Select, SelectionList, Static
from textual.widgets._select import SelectCurrent, SelectOverlay
from textual.widgets.option_list import OptionDoesNotExist

from qcstation.widgets.marked_list import CURSOR_MARK, GUTTER, MarkedOptionList
from qcstation.widgets.text_field import TextField

from qcstation.common.safe import preview
from qcstation.eval.types import TASKS
from qcstation.widgets.eval_views import TASK_TITLES
from qcstation.widgets.footer import KeyFooter
from screens.dialogs.help import DIALOG_HELP

#: The model choice that runs the ``reference`` backend (no model, no network).
REFERENCE = "\x00reference"
WORKING_SET = "\x00working-set"
#: what a number field may hold (the item limit's 10,000,000 has 8 digits; a temperature
#: written 0.123456 has 8 characters): a paste past it is cut with a notice
NUMBER_CHARS = 12
#: what the run's name may hold (the name is kept to 80 characters, spaces squeezed)
NAME_CHARS = 80


@dataclass(frozen=True)
class RunRequest:
    """What the user asked for; ``release`` None means the accepted working set."""

    model: str
    backend: str | None
    release: tuple[str, str] | None
    tasks: tuple[str, ...]
    shots: int
    temperature: float
    samples: int
    limit: int | None
    name: str | None


class FormError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def parse_run_form(*, model: str | None, release: str | None, tasks: list[str], shots: str,
                   temperature: str, samples: str, limit: str, name: str) -> RunRequest:
    """Check the form's raw values; :class:`FormError` names the field at fault."""
    if not model:
        raise FormError("run_model", "Choose a model (configure one under [models.NAME] in "
                                     "qcstation.toml, or pick the reference self-test).")
    chosen = [t for t in TASKS if t in tasks]
    if not chosen:
        raise FormError("run_tasks", "Choose at least one task.")

    def integer(field: str, text: str, lo: int, hi: int, what: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise FormError(field, f"{what} must be a whole number from {lo} to {hi}.") from None
        if not lo <= value <= hi:
            raise FormError(field, f"{what} must be a whole number from {lo} to {hi}.")
        return value

    n_shots = integer("run_shots", shots, 0, 16, "Shots")
    try:
        temp = float(temperature.strip())
    except ValueError:
        raise FormError("run_temperature", "Temperature must be a number from 0 to 2.") from None
    if not 0.0 <= temp <= 2.0 or temp != temp:
        raise FormError("run_temperature", "Temperature must be a number from 0 to 2.")
    n_samples = integer("run_samples", samples, 1, 100, "Samples per item")
    n_limit = None
    if limit.strip():
        n_limit = integer("run_limit", limit, 1, 10_000_000, "The item limit")
    rel: tuple[str, str] | None = None
    if release and release != WORKING_SET:
        name_part, _, version = release.partition("\x00")
        rel = (name_part, version)
    clean_name = " ".join(name.split())[:NAME_CHARS] or None
    if model == REFERENCE:
        return RunRequest("reference", "reference", rel, tuple(chosen), n_shots, temp,
                          n_samples, n_limit, clean_name)
    return RunRequest(model, None, rel, tuple(chosen), n_shots, temp, n_samples, n_limit,
                      clean_name)


class TaskChecklist(SelectionList[str]):
    """The tasks to run, each readable without colour: ``X`` in the box of a chosen task, the
    box empty for the others (Textual's selection list draws the same ``X`` for both and
    tells them apart by colour only), and, while it has the focus, ``▸`` before the line
    Space toggles (the cursor was its colour only)."""

    def _get_left_gutter_width(self) -> int:
        return super()._get_left_gutter_width() + len(GUTTER)

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        segments = list(line)
        if len(segments) < 3 or segments[0].text != Checkbox.BUTTON_LEFT:
            return line
        index = self.scroll_offset.y + y
        try:
            option = self.get_option_at_index(index)
        except OptionDoesNotExist:   # a line below the last option
            return line
        mark = Checkbox.BUTTON_INNER if option.value in self.selected else " "
        segments[1] = Segment(mark, segments[1].style)
        cursor = (f"{CURSOR_MARK} " if index == self.highlighted and self.has_focus
                  else GUTTER)
        segments.insert(0, Segment(cursor, segments[3].style))
        return Strip(segments, line.cell_length + len(GUTTER))


class MarkedSelectOverlay(SelectOverlay, MarkedOptionList):
    """A ``Select``'s open list with ``▸`` before the highlighted choice (Enter takes it),
    drawn by :class:`qcstation.widgets.marked_list.MarkedOptionList`."""


class MarkedSelect(Select[str]):
    """A ``Select`` whose open list marks the highlighted choice without colour
    (:class:`MarkedSelectOverlay`; Textual's showed it by colour only)."""

    def compose(self) -> ComposeResult:
        yield SelectCurrent(self.prompt)
        yield MarkedSelectOverlay(type_to_search=self._type_to_search).data_bind(
            compact=Select.compact)


class StartRunModal(ModalScreen[RunRequest | None]):
    """Dismisses with a :class:`RunRequest`, or None on Esc."""

    BINDING_GROUP_TITLE = "Start a run"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="start-run-cancel"),
        Binding("ctrl+s", "submit", "Start", id="start-run-submit"),
        DIALOG_HELP,
    ]

    def __init__(self, models: list[tuple[str, str]], releases: list[tuple[str, str]],
                 shots: int = 3) -> None:
        """``models``: (name, description); ``releases``: (name, version), newest last;
        ``shots``: the default (``[eval] shots``)."""
        super().__init__()
        self.models = models
        self.releases = releases
        self.default_shots = shots

    def compose(self) -> ComposeResult:
        # names come from the config and the database: Text, so never read as markup
        model_options: list[tuple[Text, str]] = [
            (Text(preview(f"{name} ({desc})" if desc else name, 50)), name)
            for name, desc in self.models]
        model_options.append((Text("reference (self-test: the benchmark's own answers)"),
                              REFERENCE))
        release_options: list[tuple[Text, str]] = [
            (Text(preview(f"{n}@{v}", 50)), f"{n}\x00{v}") for n, v in reversed(self.releases)]
        release_options.append((Text("working set (accepted items, no release)"), WORKING_SET))
        with Vertical(id="start_run_dialog", classes="dialog"):
            with Horizontal(classes="form_row"):
                yield Label("Model", classes="form_label", id="run_model_label")
                yield MarkedSelect(model_options, id="run_model", allow_blank=False, compact=True,
                             value=model_options[0][1])
            with Horizontal(classes="form_row"):
                yield Label("Items from", classes="form_label", id="run_release_label")
                yield MarkedSelect(release_options, id="run_release", allow_blank=False,
                             compact=True, value=release_options[0][1])
            yield Label("Tasks (Space toggles; X marks a chosen one)", id="start_run_tasks_label")
            yield TaskChecklist(*[(TASK_TITLES[t], t, True) for t in TASKS],
                                id="run_tasks", compact=True)
            with Horizontal(classes="form_row"):
                yield Label("Shots", classes="form_label")
                yield TextField(str(self.default_shots), id="run_shots", compact=True,
                                classes="form_short", limit=NUMBER_CHARS)
                yield Label("Temperature", classes="form_label")
                yield TextField("0", id="run_temperature", compact=True, classes="form_short",
                                limit=NUMBER_CHARS)
            with Horizontal(classes="form_row form_row_tight"):
                yield Label("Samples", classes="form_label")
                yield TextField("1", id="run_samples", compact=True, classes="form_short",
                                limit=NUMBER_CHARS)
                yield Label("Item limit", classes="form_label")
                yield TextField("", placeholder="all", id="run_limit", compact=True,
                                classes="form_short", limit=NUMBER_CHARS)
            with Horizontal(classes="form_row form_row_tight"):
                yield Label("Name", classes="form_label")
                yield TextField("", placeholder="optional", id="run_name", compact=True,
                                limit=NAME_CHARS)
            yield Static(Text("Exemplars for the shots come from items outside the run. "
                              "An interrupted run resumes where it stopped.", style="dim"),
                         id="start_run_note")
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#start_run_dialog")
        dialog.border_title = "Start an evaluation run"
        dialog.border_subtitle = "ctrl+s starts · Esc cancels"
        self.query_one("#run_model", Select).focus()

    @on(events.DescendantFocus)
    @on(events.DescendantBlur)
    def _mark_focused_choice(self) -> None:
        """A closed choice list shows that it has the focus by colour only: the label of
        the one that has it (or its open list) reads '▸ Model'."""
        focused = self.focused
        for select_id, text in (("run_model", "Model"), ("run_release", "Items from")):
            select = self.query_one(f"#{select_id}", Select)
            within = focused is not None and (focused is select or select in focused.ancestors)
            self.query_one(f"#{select_id}_label", Label).update(
                f"{CURSOR_MARK} {text}" if within else text)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_submit(self) -> None:
        model = self.query_one("#run_model", Select).value
        release = self.query_one("#run_release", Select).value
        try:
            request = parse_run_form(
                model=model if isinstance(model, str) else None,
                release=release if isinstance(release, str) else None,
                tasks=list(self.query_one("#run_tasks", SelectionList).selected),
                shots=self.query_one("#run_shots", Input).value,
                temperature=self.query_one("#run_temperature", Input).value,
                samples=self.query_one("#run_samples", Input).value,
                limit=self.query_one("#run_limit", Input).value,
                name=self.query_one("#run_name", Input).value)
        except FormError as exc:
            self.notify(str(exc), title="Cannot start the run", severity="warning")
            self.query_one(f"#{exc.field}").focus()
            return
        self.dismiss(request)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.action_submit()
