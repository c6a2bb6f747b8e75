"""An option list whose highlighted line reads without colour.

Textual's ``OptionList`` shows which line Enter would run by its background colour alone:
in a terminal without colour (or read by a screen reader, or in a captured frame) the
dashboard's "Needs attention" list and the reject reasons gave no sign of it, and Down,
Enter ran another line than the one meant. :class:`MarkedOptionList` keeps a two-cell
gutter before every option and draws ``▸`` in it on the highlighted option's first line.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import OptionList

__all__ = ["MarkedOptionList", "CURSOR_MARK"]

#: the mark before the highlighted option
CURSOR_MARK = "▸"
#: the room before every option, where the mark goes
GUTTER = "  "


class MarkedOptionList(OptionList):
    """``OptionList`` with :data:`CURSOR_MARK` before the highlighted option. Another
    subclass of ``OptionList`` that does not draw its own lines (a ``Select``'s open list)
    gets the mark by taking this class as its second base, ``class X(SelectOverlay,
    MarkedOptionList)``: Textual's CSS type names follow the first base only."""

    def _get_left_gutter_width(self) -> int:
        return len(GUTTER)

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        try:
            index, offset = self._lines[self.scroll_offset.y + y]
        except IndexError:
            return strip    # a blank line: already the full width
        mark = f"{CURSOR_MARK} " if index == self.highlighted and offset == 0 else GUTTER
        style = next(iter(strip), Segment("")).style
        return Strip([Segment(mark, style), *strip], strip.cell_length + len(GUTTER))
