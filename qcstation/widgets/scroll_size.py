"""A scrolling widget's new virtual size, without a layout of the screen when none is needed.

Textual's ``virtual_size`` is a layout reactive: each change lays the whole screen out (every
widget's box, then a repaint of those that moved), though for a widget whose own size does not
depend on its content only its scroll bars can change. A new page of table rows, a new item in
a pane, a part of it wrapped as it comes into view: each was a layout of the screen, and when a
scroll bar appeared or went, a second one (the bar is found only during the first). Issue 28.7.

:func:`set_virtual_size` sets the size and updates the widget's scroll bars at once (their
visibility, size and thumb), then repaints the widget; a layout follows only when a bar appears
or goes (it takes or gives back a column), and then it is the one layout that also places the
new content. A widget sized by its content (``auto``), or not laid out yet, is laid out as before.
A bar whose size and thumb stay as they were is not drawn again (Textual's update repainted both
bars at any new size: the results table's bar at each page key whose columns' widths changed,
~0.5 ms of its CPU at 1M scores).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def sized_by_content(widget: Widget) -> bool:
    """Whether the widget's own box depends on its content (an ``auto`` width or height)."""
    styles = widget.styles
    width, height = styles.width, styles.height
    return height is None or height.is_auto or (width is not None and width.is_auto)


def set_virtual_size(widget: Widget, size: Size) -> None:
    """Give ``widget`` (a scrolling widget) the virtual size ``size``: a layout of the screen
    only if the widget is sized by its content, not laid out yet, or a scroll bar appears or
    goes."""
    if size == widget.virtual_size:
        return
    if not widget.is_mounted or not widget.container_size or sized_by_content(widget):
        widget.virtual_size = size
        return
    widget.set_reactive(Widget.virtual_size, size)
    _update_bars(widget, size)
    widget.refresh()


def _update_bars(widget: Widget, size: Size) -> None:
    """``Widget._scroll_update`` (bars shown or hidden: a layout then; their size and thumb),
    a bar drawn again only when its size or thumb changes (its values are reactives that
    repaint it when they change)."""
    widget._refresh_scrollbars()
    width, height = widget.container_size
    if widget.show_vertical_scrollbar and widget.styles.scrollbar_size_vertical:
        widget.vertical_scrollbar.window_virtual_size = size.height
        widget.vertical_scrollbar.window_size = height - widget.scrollbar_size_horizontal
    if widget.show_horizontal_scrollbar and widget.styles.scrollbar_size_horizontal:
        widget.horizontal_scrollbar.window_virtual_size = size.width
        widget.horizontal_scrollbar.window_size = width - widget.scrollbar_size_vertical
    widget.scroll_x = widget.validate_scroll_x(widget.scroll_x)
    widget.scroll_y = widget.validate_scroll_y(widget.scroll_y)
