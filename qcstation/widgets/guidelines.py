"""Concise reviewing guidelines, shown by ``g`` on the review screen and in help."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from qcstation.widgets.bullets import Bullet

NOTATION_GUIDELINES = """\
Notation questions (Arithmetic)
The question must be the seed's computation with the story removed.
Accept when all hold:
 • Only numbers, variables and operations; no names, objects or story.
 • Every quantity needed for the answer is there, with the seed's values.
 • The operations match the SMT-LIB it came from, in the same order.
 • Solving it gives the seed's gold answer (Z3 value matches expected).
 • It asks for one value, unambiguously.
Reject (and say why) when:
 • story words are left in;
 • a quantity is missing, extra, or has a different value;
 • an operation or relationship differs from the SMT-LIB;
 • the answer would change, or the question is ambiguous or garbled.
Wording and variable names do not matter; the arithmetic does."""

KEYINFO_GUIDELINES = """\
Key information (Understanding), six fields
 • Problem scenario: the setting in a sentence, no numbers invented.
 • Goal: exactly what the question asks for.
 • Known quantities: every given number, with its meaning and unit.
 • Unknown quantities: what must be found, including intermediates.
 • Relationships and constraints: correct, and enough to solve it.
 • Irrelevant information: only details not needed for the answer.
Reject when a needed quantity is missing, a relationship is wrong,
needed information is filed as irrelevant, the goal is misstated, or
the text is garbled. Do not reject for style or ordering alone."""

GENERAL_GUIDELINES = """\
In doubt, skip (k) rather than accept; skipped items stay in the sample.
Rejecting sends the item back for regeneration; its replacement is
reviewed again. Use u to undo your last decision."""


def guidelines_text(dimension: str | None = None) -> Text:
    """The guidelines for a dimension (both QC dimensions when None), as plain text."""
    sections: list[str] = []
    if dimension in (None, "arithmetic"):
        sections.append(NOTATION_GUIDELINES)
    if dimension in (None, "understanding"):
        sections.append(KEYINFO_GUIDELINES)
    if not sections:
        sections.append("Judge whether the artifact is faithful to its seed problem.")
    sections.append(GENERAL_GUIDELINES)
    text = Text()
    for n, section in enumerate(sections):
        if n:
            text.append("\n\n")
        head, _, body = section.partition("\n")
        text.append(head, style="bold")
        text.append("\n" + body)
    return text


def guidelines_view(dimension: str | None = None) -> Group:
    """:func:`guidelines_text` as shown: each bullet's wrapped lines under its words (in the
    review's guidelines pane at 80 columns ' • Only numbers, variables' went on with 'and
    operations; ...' at the pane's edge, issue 28.2)."""
    marker = " • "
    return Group(*(Bullet(line[len(marker):], marker) if line.plain.startswith(marker)
                   else line for line in guidelines_text(dimension).split("\n", allow_blank=True)))


class GuidelinesPanel(VerticalScroll):
    """A focusable, scrollable panel holding the guidelines for one dimension."""

    DEFAULT_CSS = """
    GuidelinesPanel {
        height: 1fr;
    }
    """

    def __init__(self, dimension: str | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.dimension = dimension
        self.border_title = "Guidelines (g closes)"

    def compose(self) -> ComposeResult:
        yield Static(guidelines_view(self.dimension), id="guidelines_text")

    def set_dimension(self, dimension: str | None) -> None:
        self.dimension = dimension
        self.query_one("#guidelines_text", Static).update(guidelines_view(dimension))
