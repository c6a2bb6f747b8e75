"""F1 / ``?``: the keys of the screen underneath, plus that screen's own notes."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from qcstation.widgets.footer import KeyFooter

_SCREEN_BASE_ACTIONS = {b.action for b in Screen.BINDINGS if isinstance(b, Binding)}

#: F1 in a dialog: a modal screen stops the app's keys, so each dialog binds it itself (it was
#: dead in every dialog but derive); one id, so a keymap moves it in every dialog at once
DIALOG_HELP = Binding("f1", "app.help", "Help", id="dialog-help")


#: what a key of Textual's own does in this app, where its label says less: Ctrl+C copies
#: the selected text, and with nothing selected (the usual case) the app's Ctrl+C says how
#: to quit (walk8: F1 said only 'Copy')
_TRUE_LABELS = {"screen.copy_text": "Copy the selected text; with nothing selected, says how "
                                    "to quit"}


def key_rows(screen: Screen[Any]) -> list[tuple[str, str, str]]:
    """(group, keys, description) for every active binding with a description,
    keys of the same action joined (``"F1, ?"``), screen keys before app keys."""
    app = screen.app
    rows: dict[tuple[str, str], list[str]] = {}
    groups: dict[tuple[str, str], str] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.description:
            continue
        node = active.node
        if not isinstance(node, (Screen, App)):
            continue  # widget keys (scrolling, focus) are standard; keep the list short
        group = (getattr(node, "BINDING_GROUP_TITLE", None) or
                 ("Everywhere" if node is app else type(node).__name__))
        if binding.action in _SCREEN_BASE_ACTIONS:
            group = "Everywhere"  # tab / shift+tab / copy: the same on every screen
        ident = (group, binding.action)
        rows.setdefault(ident, []).append(app.get_key_display(binding))
        description = _TRUE_LABELS.get(binding.action, binding.description)
        groups[ident] = (f"{description} — {binding.tooltip}" if binding.tooltip
                         else description)
    order = sorted(rows, key=lambda ident: (ident[0] == "Everywhere", list(rows).index(ident)))
    return [(ident[0], ", ".join(dict.fromkeys(rows[ident])), groups[ident]) for ident in order]


class HelpScreen(ModalScreen[None]):
    """Key list (plus notes such as the review guidelines). Esc, F1 or ``?`` closes it."""

    BINDING_GROUP_TITLE = "Help"
    BINDINGS = [
        Binding("escape", "close", "Close", id="help-close"),
        Binding("q", "close", "Close", show=False, id="help-close-q"),
    ]

    def __init__(self, title: str, rows: list[tuple[str, str, str]],
                 notes: RenderableType | None = None) -> None:
        super().__init__()
        self.help_title = title
        self.rows = rows
        self.notes = notes

    @classmethod
    def for_screen(cls, screen: Screen[Any]) -> HelpScreen:
        notes_fn = getattr(screen, "help_notes", None)
        notes = notes_fn() if callable(notes_fn) else None
        title = getattr(screen, "BINDING_GROUP_TITLE", None) or type(screen).__name__
        return cls(f"Help: {title}", key_rows(screen), notes)

    def render_keys(self) -> RenderableType:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        last_group = None
        for group, keys, description in self.rows:
            if group != last_group:
                if last_group is not None:
                    table.add_row("", "")
                table.add_row(Text(group, style="underline"), "")
                last_group = group
            table.add_row(keys, description)
        if self.notes is None:
            return table
        return Group(table, Text(""), self.notes)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help_dialog", classes="dialog"):
            yield Static(self.render_keys(), id="help_text")
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#help_dialog")
        dialog.border_title = self.help_title
        dialog.border_subtitle = "Esc closes"
        dialog.focus()

    def action_close(self) -> None:
        self.dismiss(None)
