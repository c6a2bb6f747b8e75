"""Start a derive (``qcstation derive KIND``) from the workstation: the kind of set and its
name; the dashboard builds it in the background and says what was made and refused."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Size
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RadioButton, RadioSet, Static

from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.text_field import TextField

#: kind -> what it builds (the derive command's actions)
KIND_HELP = {
    "variants": "DynaMath variants: every movable given resampled (10 per seed), re-solved",
    "ladder": "SMART A.10 ladders: k noise sentences, d-digit givens, n error types",
    "perturb": "SMART Table 3: a noise sentence, an added operation, changed numbers",
    "counterfactual": "one given shifted by -30%..+30%, new answer from Z3",
    "inverse": "the answer stated, one given hidden as X, unique by Z3",
}
#: a derived set's name: what the field holds (a paste past it is cut, with a notice)
SET_NAME_CHARS = 40
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,%d}$" % (SET_NAME_CHARS - 1))


class DeriveFormError(ValueError):
    pass


@dataclass(frozen=True)
class DeriveRequest:
    kind: str
    name: str


def parse_derive_form(kind: str | None, name: str) -> DeriveRequest:
    """The form's fields checked: a kind, and a set name (default: the kind)."""
    if kind not in KIND_HELP:
        raise DeriveFormError("choose what to build")
    name = name.strip() or kind
    if not _NAME_RE.match(name):
        raise DeriveFormError("a set name is 1-40 letters, digits, '.', '_' or '-'")
    return DeriveRequest(kind, name)


class KindButton(RadioButton):
    """A choice readable without colour: ``●`` the chosen kind, ``○`` the others (Textual's
    radio button draws the same dot for both, told apart by colour only), and ``▸`` before
    the highlighted one, where Enter chooses (Textual shows that cursor by colour only).
    Its description wraps under its name, indented past the marks: at 80x24 each was one
    line cut with '…' (walk9: 'SMART Table 3: a noise sentence, an added operati…')."""

    #: the cells before the label: the cursor mark, the button (``▐●▌``) and a space
    INDENT = 5

    def __init__(self, kind: str, what: str, **kwargs: Any) -> None:
        self.what = what
        super().__init__(kind, **kwargs)

    def _lines(self, width: int) -> list[str]:
        room = max(width - self.INDENT - 1, 10)
        return textwrap.wrap(f"{self.label}: {self.what}", room) or [str(self.label)]

    def render(self) -> Content:
        style = self.get_visual_style("toggle--label")
        first, *rest = self._lines(self.size.width)
        parts: list[Content | str] = ["▸" if self.has_class("-selected") else " ", self._button,
                                      Content(f" {first} ").stylize_before(style)]
        for line in rest:
            parts += ["\n" + " " * self.INDENT, Content(f"{line} ").stylize_before(style)]
        return Content.assemble(*parts)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    # Textual declares BUTTON_INNER a class attribute; a property reads the button's value
    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual's name
        return "●" if self.value else "○"


class DeriveModal(ModalScreen[DeriveRequest | None]):
    """Up/down chooses the kind, the name field names the set, ctrl+s starts, Esc cancels."""

    BINDING_GROUP_TITLE = "Derive a set"
    BINDINGS = [Binding("ctrl+s", "start", "Start", id="derive-start"),
                Binding("escape", "cancel", "Cancel", id="derive-cancel"),
                # a modal screen stops the app's keys: its own F1 opens help on it
                Binding("f1", "app.help", "Help", id="derive-help")]

    def help_notes(self) -> Text:
        return Text("Up/down moves ▸; Enter (or Space) chooses (●) what to build. "
                    "Tab goes to the set name. Ctrl+S starts the build in the background: "
                    "the dashboard says when it ends, what was made and what was refused.\n\n"
                    + "\n".join(f"{kind}: {what}" for kind, what in KIND_HELP.items()))

    def compose(self) -> ComposeResult:
        with Vertical(id="derive_dialog", classes="dialog"):
            yield Static(Text("Build derived items from the verified seeds whose givens are tied "
                              "to their words (a resumable background job, like "
                              "`qcstation derive`)."))
            with RadioSet(id="derive_kind"):
                for n, (kind, what) in enumerate(KIND_HELP.items()):
                    yield KindButton(kind, what, value=n == 0, name=kind)
            yield TextField(placeholder="set name (default: the kind)", id="derive_name",
                            limit=SET_NAME_CHARS)
            yield Static("", id="derive_error")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#derive_dialog").border_title = "Derive a set"
        self.query_one("#derive_kind").focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def action_start(self) -> None:
        pressed = self.query_one("#derive_kind", RadioSet).pressed_button
        try:
            req = parse_derive_form(pressed.name if pressed is not None else None,
                                    self.query_one("#derive_name", Input).value)
        except DeriveFormError as exc:
            self.query_one("#derive_error", Static).update(Text(str(exc), style="bold red"))
            return
        self.dismiss(req)

    def action_cancel(self) -> None:
        self.dismiss(None)
