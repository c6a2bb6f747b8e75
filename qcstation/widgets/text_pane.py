"""A scrolling pane of Rich texts that wraps only what comes into view.

A ``Static`` in a ``VerticalScroll`` wraps its whole content twice on every update (once to
know its height, once to paint it), however little of it shows: the results browser's item
(question, every task's response, SMT-LIB and verifier output) cost most of a cursor key at
1M scores. :class:`TextPane` takes the same content as a list of parts (a ``Group`` of texts),
wraps a part when one of its lines is first painted, keeps the wrapped lines until the content
or the width changes, and counts the parts not wrapped yet by an estimate of their lines (each
line's width over the pane's, rounded up), corrected as they are wrapped. Moving to another
item wraps the first screenful; scrolling down wraps the rest as it shows.

The lines of the parts shown lately are kept by part (the same object, at the same width and
style): content made again of parts shown before (an item rendered once and kept, shown again
with its tasks in another order) wraps none of them again, and content whose parts are the
very ones shown is not drawn again at all (only brought back to its top).
"""

from __future__ import annotations

import sys
from typing import Any

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from qcstation.widgets.scroll_size import set_virtual_size

#: the parts whose wrapped lines are kept (a results item: 20-40 parts)
PARTS_KEPT = 256


class TextPane(ScrollView, can_focus=True):
    """Rich renderables stacked in a scrolling pane, wrapped as they come into view."""

    DEFAULT_CSS = """
    TextPane {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-gutter: stable;
    }
    """

    def __init__(self, content: RenderableType = "", *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._parts: list[RenderableType] = []
        self._lines: list[Strip] = []       # the wrapped lines of parts[:_done]
        self._done = 0
        self._estimates: list[int] = []     # lines of each part not wrapped yet (estimated)
        self._width = 0                     # the width the lines were wrapped to
        self._style: Style | None = None
        # by id(part): (the part, width, base style, its lines); the part is held, so its id
        # names no other object while it is kept
        self._kept: LRUCache[int, tuple[RenderableType, int, Style, list[Strip]]] = \
            LRUCache(PARTS_KEPT)
        self._set_parts(content)

    @property
    def content(self) -> RenderableType:
        """What the pane shows, whole (as a ``Static``'s ``content``)."""
        return Group(*self._parts)

    def update(self, content: RenderableType) -> None:
        """Show ``content`` (a ``Group``'s parts are wrapped one by one), from its top. The
        very parts shown already (the same objects) are not drawn again."""
        parts = self._parts_of(content)
        if len(parts) == len(self._parts) and all(
                new is old for new, old in zip(parts, self._parts)):
            self.scroll_to(0, 0, animate=False, immediate=True)
            return
        self._parts = parts
        self._forget()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    @staticmethod
    def _parts_of(content: RenderableType) -> list[RenderableType]:
        if isinstance(content, Group):
            return list(content.renderables)
        return [Text(content) if isinstance(content, str) else content]

    def _set_parts(self, content: RenderableType) -> None:
        self._parts = self._parts_of(content)
        self._forget()

    def _forget(self) -> None:
        """Drop the wrapped lines (new content, width or style)."""
        self._lines = []
        self._done = 0
        self._estimates = [self._estimate(p) for p in self._parts]
        self._resize_virtual()

    def _wrap_width(self) -> int:
        return max(1, self.scrollable_content_region.width)

    def _estimate(self, part: RenderableType) -> int:
        width = max(1, self._width)
        kept = self._kept.get(id(part))
        if kept is not None and kept[0] is part and kept[1] == self._width:
            return len(kept[3])             # wrapped before at this width: its own count
        if isinstance(part, Text):
            return sum(max(1, -(-cell_len(line) // width)) for line in part.plain.split("\n"))
        return 1

    def _resize_virtual(self) -> None:
        height = len(self._lines) + sum(self._estimates[self._done:])
        # the pane's box does not depend on its lines: only its scroll bar changes (no layout
        # of the screen for each item, or each part wrapped as it shows, unless the bar comes
        # or goes)
        set_virtual_size(self, Size(max(1, self._width), height))

    def on_resize(self) -> None:
        if self._wrap_width() != self._width:
            self._width = self._wrap_width()
            self._forget()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style = None
        self._kept.clear()
        self._forget()

    def _wrap_until(self, count: int) -> None:
        """Wrap parts until ``count`` lines are wrapped (or every part is)."""
        if self._done >= len(self._parts) or len(self._lines) >= count:
            return
        app = self.app
        console = app.console
        if self._width != self._wrap_width():
            self._width = self._wrap_width()
            self._forget()
        options = app.console_options.update(highlight=False, width=self._width, height=None)
        base = self.rich_style
        while self._done < len(self._parts) and len(self._lines) < count:
            part = self._parts[self._done]
            kept = self._kept.get(id(part))
            if kept is None or kept[0] is not part or kept[1] != self._width or kept[2] != base:
                segments = console.render(self.post_render(part, base), options)
                kept = (part, self._width, base, [Strip(line) for line in
                                                  Segment.split_and_crop_lines(
                                                      segments, self._width,
                                                      include_new_lines=False, pad=False)])
                self._kept[id(part)] = kept
            self._lines.extend(kept[3])
            self._done += 1
        self._resize_virtual()

    def scroll_end(self, *args: Any, **kwargs: Any) -> None:
        """To the last line: every part is wrapped first (the estimate may fall short)."""
        if self.is_mounted:
            self._wrap_until(sys.maxsize)
        super().scroll_end(*args, **kwargs)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        style = self.rich_style
        self._wrap_until(index + 1)
        if index >= len(self._lines):
            return Strip.blank(width, style)
        line = self._lines[index].crop_extend(scroll_x, scroll_x + width, style)
        return line.apply_offsets(scroll_x, index)
