"""Let a flagged item through the release gate, with a reason (curators): the app's
``qcstation release override ITEM --dimension DIM --reason TEXT``."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from qcstation.common.safe import one_line
from qcstation.core.release.flag_gate import MAX_REASON_CHARS, FlaggedItem
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.marked_list import MarkedOptionList
from qcstation.widgets.text_field import TextField
from screens.dialogs.help import DIALOG_HELP


def flagged_line(item: FlaggedItem) -> str:
    """``gsm8k-3~back.inv-g3_pct reasoning: step-literal · rules (gsm8k-calculator)``"""
    made = f" · {one_line(item.made_by, 40)}" if item.made_by else ""
    return f"{one_line(item.key, 60)} {item.dimension}: {', '.join(item.codes)}{made}"


class OverrideFlagsModal(ModalScreen[tuple[FlaggedItem, str] | None]):
    """Up/down picks a flagged item, the reason says why its flags do not stop it, Enter in
    the reason (or ctrl+s) records the override; dismisses with the item and the reason."""

    BINDING_GROUP_TITLE = "Override flags"
    BINDINGS = [Binding("ctrl+s", "submit", "Override", id="override-flags-submit"),
                Binding("escape", "cancel", "Cancel", id="override-flags-cancel"),
                DIALOG_HELP]

    def __init__(self, items: list[FlaggedItem], scope_words: str) -> None:
        super().__init__()
        self.items = items
        self.scope_words = scope_words

    def help_notes(self) -> Text:
        return Text("A self-check flag (a formula that states the answer, a number the question "
                    "does not state...) stops the release until the item is fixed, regenerated or "
                    "excluded, or a curator lets it through here with a reason. The reason is "
                    "recorded with who and when, and shown in the release; the override lapses "
                    "when the item's flags change.")

    def compose(self) -> ComposeResult:
        with Vertical(id="override_flags_dialog", classes="dialog"):
            yield Static(Text(f"{len(self.items)} flagged item(s) of {self.scope_words} stop the "
                              "release. Pick one (up/down, Enter), then say why its flags do "
                              "not stop it."), id="override_flags_prompt")
            yield MarkedOptionList(*[Option(Text(flagged_line(item)), id=f"flagged-{n}")
                                     for n, item in enumerate(self.items)],
                                   id="override_flags_list")
            yield TextField(placeholder="why these flags do not stop the item (recorded)",
                            id="override_flags_reason", limit=MAX_REASON_CHARS)
            yield Static("", id="override_flags_error")
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#override_flags_dialog")
        dialog.border_title = "Override flags"
        dialog.border_subtitle = "Enter on the reason or ctrl+s records · Esc cancels"
        self.query_one("#override_flags_list").focus()

    @on(OptionList.OptionSelected, "#override_flags_list")
    def _picked(self) -> None:
        self.query_one("#override_flags_reason", Input).focus()

    @on(Input.Submitted, "#override_flags_reason")
    def _typed(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        highlighted = self.query_one("#override_flags_list", OptionList).highlighted
        reason = " ".join(self.query_one("#override_flags_reason", Input).value.split())
        if highlighted is None or not 0 <= highlighted < len(self.items):
            self._error("Pick the flagged item first (up/down).")
            return
        if not reason:
            self._error("Say why its flags do not stop it: the reason is recorded.")
            self.query_one("#override_flags_reason", Input).focus()
            return
        self.dismiss((self.items[highlighted], reason))

    def _error(self, text: str) -> None:
        self.query_one("#override_flags_error", Static).update(Text(text, style="bold red"))

    def action_cancel(self) -> None:
        self.dismiss(None)
