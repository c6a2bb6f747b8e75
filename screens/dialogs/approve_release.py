"""Name, version and notes for a release a curator is about to approve; for a derived
release, also how its folder splits the records (one split, or one per derived family)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.actions import SkipAction
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, RadioSet, Static

from qcstation.common.safe import one_line
from qcstation.core.release.releases import NOTES_CHARS
from qcstation.core.release.splits import SPLIT_CHOICES, SPLIT_HELP
from qcstation.widgets.text_field import TextField
from screens.dialogs.derive import KindButton
from screens.dialogs.fields import OrderedFields
from qcstation.widgets.footer import KeyFooter

#: a release name and version become directory names (at most 64 characters, see
#: ``core/release/releases._NAME_RE``); the notes go into the manifest and the datasheet
#: (at most ``releases.NOTES_CHARS``, as the shell's ``--notes``)
NAME_CHARS = 64


class ApproveReleaseModal(OrderedFields[tuple[str, str, str, str] | None]):
    """Dismisses with ``(name, version, notes, splits)``, or None on Esc (Enter moves to the
    next field at once, see :mod:`.fields`). ``splits`` is one of
    :data:`~qcstation.core.release.splits.SPLIT_CHOICES`: chosen here (Tab to the choice,
    up/down, Enter) for a derived release, ``set`` for the working set."""

    FIELDS = ("release_name", "release_version", "release_notes")

    BINDING_GROUP_TITLE = "Approve release"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="approve-cancel"),
        Binding("ctrl+s", "submit", "Approve", id="approve-submit"),
        # the choice's own up/down wait in its queue, behind an Enter that runs at once: a
        # fast "down, Enter" chose the first choice (walked in tmux: family asked, set made)
        Binding("down", "choice(1)", "Next choice", show=False, priority=True,
                id="approve-choice-next"),
        Binding("up", "choice(-1)", "Previous choice", show=False, priority=True,
                id="approve-choice-previous"),
    ]

    def __init__(self, name: str, version: str, *, scope: str = "") -> None:
        super().__init__()
        self.default_name = name
        self.default_version = version
        self.scope = scope

    def compose(self) -> ComposeResult:
        with Vertical(id="approve_dialog", classes="dialog"):
            what = (f"every verified or accepted item of the derived set "
                    f"{one_line(self.scope, 30)}" if self.scope else
                    "every seed of the working set whose four dimensions are verified or accepted")
            first = ("Choose the splits first (up/down; Enter takes them and goes on to the "
                     "notes); the name and version below are suggested (Tab changes them)."
                     if self.scope else
                     "The version comes first: the name is suggested, the one a new version "
                     "keeps (Shift+Tab changes it).")
            yield Static(Text(f"The release freezes {what}. It cannot be changed afterwards. "
                              + first), id="approve_prompt")
            if self.scope:
                # first on the screen and in the focus order, as the prompt says (walk: it
                # said "first" of a choice that came after the name and version)
                yield Label("Splits for datasets.load_dataset (up/down, Enter)")
                with RadioSet(id="release_splits"):
                    for n, choice in enumerate(SPLIT_CHOICES):
                        yield KindButton(choice, SPLIT_HELP[choice], value=n == 0,
                                         name=choice)
            yield Label("Name")
            # a paste of any size is one paste, cut to the limit with a notice: a pasted CR
            # or ESC is text, never the key that approves or cancels
            yield TextField(self.default_name, id="release_name", limit=NAME_CHARS)
            yield Label("Version")
            yield TextField(self.default_version, id="release_version", limit=NAME_CHARS)
            yield Label("Notes (optional)")
            yield TextField(placeholder="what changed", id="release_notes", limit=NOTES_CHARS)
        yield KeyFooter()

    def on_mount(self) -> None:
        dialog = self.query_one("#approve_dialog")
        dialog.border_title = ("Approve a release of set " + one_line(self.scope, 30)
                               if self.scope else "Approve release")
        dialog.border_subtitle = "Enter on notes or ctrl+s approves · Esc cancels"
        # the first field the curator must decide: the split layout of a derived release
        # (name and version are suggested); the version of the working set's (the prompt
        # says so)
        if self.scope:
            self.set_focus(self.query_one("#release_splits", RadioSet))
        else:
            self.set_focus(self.query_one("#release_version", Input))

    def action_choice(self, step: int) -> None:
        """Up/down on the split choice, at once (in order with Enter); elsewhere the key
        goes on as usual."""
        choice = self.focused
        if not isinstance(choice, RadioSet):
            raise SkipAction()
        if step > 0:
            choice.action_next_button()
        else:
            choice.action_previous_button()

    def action_cancel(self) -> None:
        self.dismiss(None)

    async def action_next_field(self) -> None:
        """Enter on the split choice chooses the highlighted one and moves on to the notes."""
        choice = self.focused
        if isinstance(choice, RadioSet):
            choice.action_toggle_button()
            self.set_focus(self.query_one("#release_notes", Input))
            return
        await super().action_next_field()

    def splits(self) -> str:
        """The chosen split layout (``set`` unless a derived release chose another)."""
        if not self.scope:
            return SPLIT_CHOICES[0]
        pressed = self.query_one("#release_splits", RadioSet).pressed_button
        return pressed.name if pressed is not None and pressed.name else SPLIT_CHOICES[0]

    def submit_fields(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        name = self.query_one("#release_name", Input).value.strip()
        version = self.query_one("#release_version", Input).value.strip()
        notes = self.query_one("#release_notes", Input).value.strip()
        if not name or not version:
            self.notify("A release needs a name and a version.", severity="warning")
            (self.query_one("#release_name" if not name else "#release_version", Input)).focus()
            return
        self.dismiss((name, version, notes, self.splits()))
