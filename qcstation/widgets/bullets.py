"""A bulleted line whose wrapped lines stay under its text, not at column 0.

A blocker or a key-information fact appended to a ``Text`` as ``"\\n  • " + words`` wrapped
back to the panel's first column at 80 columns (the releases panel, the review's end, the
dashboard's gate rules), so its continuation read as a line of its own. :class:`Bullet`
wraps the words at the width the marker leaves and indents every line after the first by
the marker's width. With no marker and an ``indent`` it is a hanging paragraph (the
dashboard's kappa lines, the review's gate line): the first line at the left edge, the
lines after it indented.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text


class Bullet:
    """``marker`` then ``body``; the body's wrapped lines start ``indent`` cells in (by
    default under its first character)."""

    def __init__(self, body: Text | str, marker: Text | str = "  • ",
                 indent: int | None = None) -> None:
        self.body = Text(body) if isinstance(body, str) else body
        self.marker = Text(marker) if isinstance(marker, str) else marker
        self.indent = self.marker.cell_len if indent is None else indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        first_room = options.max_width - self.marker.cell_len
        room = options.max_width - self.indent
        if min(first_room, room) < 8:        # too narrow to indent: as a plain line
            yield Text.assemble(self.marker, self.body)
            return
        pad = Segment(" " * self.indent)
        for n, line in enumerate(_hanging_lines(self.body, console, first_room, room)):
            if n:
                yield Segment.line()
                yield pad
            elif self.marker:       # no empty segment: a frame's cells as a plain line's
                yield from self.marker.render(console)
            line.rstrip()
            yield from line.render(console)
        yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((cell_len(part) for part in self.body.plain.split("\n")), default=0)
        words = max((cell_len(w) for w in self.body.plain.split()), default=0)
        indent = self.marker.cell_len
        return Measurement(max(indent, self.indent) + min(words, options.max_width),
                           min(options.max_width, indent + longest))


def _hanging_lines(body: Text, console: Console, first_room: int, room: int) -> list[Text]:
    """``body`` wrapped: its first line in ``first_room`` cells, every later one in ``room``
    (a line break in the body starts a line at ``room`` too)."""
    paragraphs = body.split("\n", allow_blank=True) or [Text("")]
    lines: list[Text] = []
    for n, para in enumerate(paragraphs):
        if n or first_room == room:
            lines += para.wrap(console, room, justify="default", overflow="fold") or [Text("")]
            continue
        head, *rest = para.wrap(console, first_room, justify="default", overflow="fold") \
            or [Text("")]
        lines.append(head)
        if rest:
            tail = para[len(head.plain):]
            spaces = len(tail.plain) - len(tail.plain.lstrip(" "))
            lines += tail[spaces:].wrap(console, room, justify="default", overflow="fold")
    return lines


class Figures:
    """Figures side by side, ``gap`` apart, each kept whole on one line: a line that has no
    room for the next figure ends before it (the runs screen's 'ACC@R-t 100% (n=97)' was
    cut after '100%' at 80 columns, its count starting the next line at column 0). A
    figure wider than the line wraps on its own, its wrapped lines indented."""

    def __init__(self, figures: list[Text], gap: str = "  ", indent: int = 0) -> None:
        self.figures = figures
        self.gap = gap
        self.indent = indent        # the cells before every line after the first

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        line = Text()
        for figure in self.figures:
            if line.plain.strip() and line.cell_len + len(self.gap) + figure.cell_len > width:
                yield line
                line = Text(" " * self.indent)
            if figure.cell_len > width:
                yield Bullet(figure, "", indent=2)
                continue
            if line.plain.strip():
                line.append(self.gap)
            line.append_text(figure)
        if line.plain.strip():
            yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((f.cell_len for f in self.figures), default=0)
        whole = sum(f.cell_len for f in self.figures) + len(self.gap) * max(0, len(self.figures) - 1)
        return Measurement(min(widest, options.max_width), min(whole, options.max_width))


def hanging(text: Text, indent: int = 2) -> Group:
    """Each line of ``text`` as a hanging paragraph: where it wraps, it goes on ``indent``
    cells in, not at the left edge (the robustness screen's head, issue 28.2)."""
    return Group(*(Bullet(line, "", indent=indent) for line in text.split("\n")))
