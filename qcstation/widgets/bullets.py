"""A bulleted line whose wrapped lines stay under its text, not at column 0.

A blocker or a key-information fact appended to a ``Text`` as ``"\\n  • " + words`` wrapped
back to the panel's first column at 80 columns (the releases panel, the review's end, the
dashboard's gate rules), so its continuation read as a line of its own. :class:`Bullet`
wraps the words at the width the marker leaves and indents every line after the first by
the marker's width.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text


class Bullet:
    """``marker`` then ``body``; the body's wrapped lines start under its first character."""

    def __init__(self, body: Text | str, marker: Text | str = "  • ") -> None:
        self.body = Text(body) if isinstance(body, str) else body
        self.marker = Text(marker) if isinstance(marker, str) else marker

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        indent = self.marker.cell_len
        room = options.max_width - indent
        if room < 8:        # too narrow to indent: as a plain line
            yield Text.assemble(self.marker, self.body)
            return
        lines = self.body.wrap(console, room, justify="left", overflow="fold")
        pad = Segment(" " * indent)
        for n, line in enumerate(lines or [Text("")]):
            if n:
                yield Segment.line()
                yield pad
            else:
                yield from self.marker.render(console)
            line.rstrip()
            yield from line.render(console)
        yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((cell_len(part) for part in self.body.plain.split("\n")), default=0)
        words = max((cell_len(w) for w in self.body.plain.split()), default=0)
        indent = self.marker.cell_len
        return Measurement(indent + min(words, options.max_width),
                           min(options.max_width, indent + longest))
