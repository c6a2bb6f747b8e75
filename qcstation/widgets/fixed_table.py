"""A ``DataTable`` whose columns have the widths it is given: rows are not measured.

Textual's ``DataTable`` measures every cell of the rows added since it was last idle (a Rich
render of each) to find the columns' widths, even when every column has an explicit width
and the measure decides nothing: at 1M scores the results browser's page of 50 rows x 6
columns cost 11-19 ms of CPU a page turn for it. :class:`FixedTable` skips that measure when
no column is sized by its content and no row is labelled or auto-height; it then sets the
table's scrollable size as ``DataTable`` does (the columns' widths, the rows' heights and
the header). Otherwise it is a ``DataTable``.

:func:`set_rows` shows a table's rows in one step: columns as wide as their widest cell (or
the label), so no row drawn before Textual's idle measure is cut in its row cache (a frame
painted before that measure read 'gs  arithmeti  pendi' in a terminal until redrawn).

A cell of one line that is a ``Text`` is drawn by :meth:`FixedTable._render_cell` without
Rich's layers (``Styled(Padding(cell))`` through ``Console.render_lines``, ~0.1 ms a cell,
0.2-0.3 ms under load: 48 cells of a new page, ~12 ms of a page turn's CPU at 1M scores):
the cell's own line is rendered by Rich as before (``Console.render`` of the ``Text``, cut and
padded by ``Segment.split_and_crop_lines``), kept by its content and width (the run, sample,
metric and verdict of a results page repeat on every page), padded and styled with the
row's styles as ``Styled`` styles it. Its segments are those of ``DataTable``'s route
(``tests/app/test_fixed_table.py`` compares both on many tables); any other cell (a
renderable, a taller row, a label) takes that route. On that route a paint also takes the
table's own style, its rows' styles and its ordered columns once, not once a line (each
``rich_style`` walks every ancestor's styles; ``ordered_columns`` is built anew at each
call, several times a line): a page of new rows painted with ~40% less CPU.

A line of rows whose cells are all one-line ``Text`` is kept by what it shows: its place
(the line, the row's index: the segments' meta name it), its cells' content, the columns'
widths, the styles and whether the cursor or the hover is on its row. A page shown again
(the results' ``x``, ``[``, a filter toggled back) or a row at a place it had before draws
from these lines, not from its cells (a results page's lines: ~3 ms of a page key's CPU at
1M scores). ``DataTable``'s own line cache is dropped with each change of the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice, zip_longest
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._types import SegmentLines
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets._data_table import DuplicateKey, Row, RowKey

from qcstation.widgets.row_table import RowTable
from qcstation.widgets.scroll_size import set_virtual_size


#: the lines of a cell's content kept per table (content, width: the unstyled segments)
CELL_LINES_KEPT = 4096
#: the table's lines kept by what they show (a few pages of a screenful each)
LINES_KEPT = 512
_NULL = Style.null()


class _PaintStyles:
    """A component's styles as one paint reads them: its rich style taken once."""

    def __init__(self, styles: Any) -> None:
        self._styles = styles
        self.rich_style: Style = styles.rich_style

    def __getattr__(self, name: str) -> Any:
        return getattr(self._styles, name)


class FixedTable(RowTable):
    """A ``DataTable`` that does not measure its rows when every column's width is fixed
    (a :class:`RowTable`: Home and End go to the first and the last row)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # while a paint runs (fast_cells): the table's style, its rows' styles by
        # component and its ordered columns, each taken once for the paint (set before
        # DataTable's own set-up, which reads the columns)
        self._paint_style: Style | None = None
        self._paint_row_styles: dict[str, Style] = {}
        self._paint_columns: list[Any] | None = None
        self._paint_backgrounds: tuple[Any, Any] | None = None
        self._paint_components: dict[tuple[str, ...], _PaintStyles] = {}
        super().__init__(*args, **kwargs)
        # a cell's padded line before the row's styles, by its content and width
        self._cell_lines: LRUCache[tuple[Any, ...], list[Segment]] = LRUCache(CELL_LINES_KEPT)
        # a line by what it shows (_render_line); each row's content as drawn, while the
        # table is as it was at _marks_at (its update count)
        self._shown_lines: LRUCache[tuple[Any, ...], Strip] = LRUCache(LINES_KEPT)
        self._row_marks: dict[Any, tuple[Any, ...] | None] = {}
        self._marks_at = -1
        #: False: every cell takes DataTable's route (the tests' reference)
        self.fast_cells = True

    def render_lines(self, crop: Region) -> list[Strip]:
        if not self.fast_cells:
            return super().render_lines(crop)
        self._paint_style = self.rich_style
        self._paint_row_styles = {}
        self._paint_columns = None
        self._paint_backgrounds = None
        self._paint_components = {}
        try:
            return super().render_lines(crop)
        finally:
            self._paint_style = None
            self._paint_row_styles = {}
            self._paint_columns = None
            self._paint_backgrounds = None
            self._paint_components = {}

    @property
    def rich_style(self) -> Style:
        """The widget's style, taken once a paint: DataTable reads it again at every line of
        a new row, as its header's component style (each a walk of every ancestor's styles)."""
        return self._paint_style if self._paint_style is not None else super().rich_style

    def get_component_styles(self, *names: str) -> Any:
        """DOMNode's; while a paint runs, each component's taken once with its rich style
        (DataTable reads the header's at every line of a new row: a walk of the component's
        and every ancestor's styles, ~15% of the line)."""
        if self._paint_style is None:
            return super().get_component_styles(*names)
        styles = self._paint_components.get(names)
        if styles is None:
            styles = self._paint_components[names] = _PaintStyles(
                super().get_component_styles(*names))
        return styles

    @property
    def background_colors(self) -> tuple[Any, Any]:
        """DOMNode's, taken once a paint (DataTable reads it at every line of a new row)."""
        if self._paint_style is None:
            return super().background_colors
        if self._paint_backgrounds is None:
            self._paint_backgrounds = super().background_colors
        return self._paint_backgrounds

    def render_line(self, y: int) -> Strip:
        """DataTable's, with the paint's style (``rich_style`` once a paint)."""
        style = self._paint_style
        if style is None:
            return super().render_line(y)
        scroll_x, scroll_y = self.scroll_offset
        fixed_height = self.get_row_height(self._header_row_key) if self.show_header else 0
        for index in range(self.fixed_rows):
            key = self._row_locations.get_key(index)
            if key is not None:
                fixed_height += self.get_row_height(key)
        if y >= fixed_height:
            y += scroll_y
        return self._render_line(y, scroll_x, scroll_x + self.size.width, style)

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        """DataTable's line, kept by what it shows (see the module)."""
        if not self.fast_cells or self.fixed_columns or self.fixed_rows \
                or self._labelled_row_exists:
            return super()._render_line(y, x1, x2, base_style)
        try:
            row_key, line_no = self._get_offsets(y)
        except LookupError:
            return super()._render_line(y, x1, x2, base_style)
        mark = self._row_mark(row_key)
        if mark is None:
            return super()._render_line(y, x1, x2, base_style)
        row_index = self._row_locations.get(row_key) if row_key in self._row_locations else -1
        cursor, hover = self.cursor_coordinate, self.hover_coordinate
        where: tuple[Any, ...] = ((cursor.row == row_index, hover.row == row_index)
                                  if self.cursor_type == "row" else (cursor, hover))
        key = (y, row_index, line_no, x1, x2, self.size.width, base_style, mark, where,
               tuple(c.get_render_width(self) for c in self.ordered_columns),
               self._row_label_column_width, self.cursor_type, self.show_cursor,
               self._show_hover_cursor, self.zebra_stripes, self.cell_padding,
               self.cursor_foreground_priority, self.cursor_background_priority,
               self._pseudo_class_state)
        line = self._shown_lines.get(key)
        if line is None:
            line = super()._render_line(y, x1, x2, base_style)
            self._shown_lines[key] = line
        return line

    def _row_mark(self, row_key: RowKey) -> tuple[Any, ...] | None:
        """What the row (or the header) shows, as a key: each cell's text, spans and styles;
        None when a cell is not a one-line ``Text`` (its line is not kept)."""
        if self._marks_at != self._update_count:
            self._row_marks.clear()
            self._marks_at = self._update_count
        if row_key in self._row_marks:
            return self._row_marks[row_key]
        mark: tuple[Any, ...] | None = None
        if row_key is self._header_row_key:
            if self.header_height == 1:
                mark = self._cells_mark([c.label for c in self.ordered_columns])
        else:
            row = self.rows.get(row_key)
            if row is not None and row.height == 1 and not row.auto_height:
                data = self._data.get(row_key, {})
                mark = self._cells_mark([data.get(c.key) for c in self.ordered_columns])
        self._row_marks[row_key] = mark
        return mark

    @staticmethod
    def _cells_mark(cells: Sequence[Any]) -> tuple[Any, ...] | None:
        marks = []
        for cell in cells:
            if not isinstance(cell, Text) or "\n" in cell.plain:
                return None
            marks.append((cell.plain, tuple(cell.spans), cell.style, cell.justify,
                          cell.overflow, cell.no_wrap, cell.end, cell.tab_size))
        return tuple(marks)

    def clear(self, columns: bool = False) -> Any:
        self._row_marks.clear()
        return super().clear(columns)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._shown_lines.clear()           # the component styles may have changed

    def add_many(self, rows: Iterable[tuple[Sequence[Any], str]]) -> None:
        """``(cells, key)`` rows of one line added as ``add_row`` adds each, in one step: the
        ordered columns read once (``add_row`` reads and orders them again for every row,
        ~12 ms of the queue's Ctrl+End at 1M seeds, a page of 2,000 rows), and the cursor set
        again (its watchers called: the screens' own run for every row) and the table marked
        changed once, not once a row (a results page of 50 rows: ~1.5 ms of a filter key's
        CPU at 1M scores)."""
        columns = super().ordered_columns
        first = self.row_count == 0
        added = 0
        for cells, key in rows:
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            if len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
            self._row_locations[row_key] = self.row_count
            self._data[row_key] = {column.key: cell
                                   for column, cell in zip_longest(columns, cells)}
            self.rows[row_key] = Row(row_key, 1, None, False)
            self._new_rows.add(row_key)
            added += 1
        if not added:
            return
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if first and len(self.columns) > 0 and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()        # as add_row does for a first row
        self._update_count += added
        self.check_idle()

    @property
    def ordered_columns(self) -> list[Any]:
        """DataTable's, kept while a paint runs (no column changes during one)."""
        if self._paint_style is None:
            return super().ordered_columns
        if self._paint_columns is None:
            self._paint_columns = super().ordered_columns
        return self._paint_columns

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        """DataTable's, each component's style taken once a paint."""
        if self._paint_style is None:
            return super()._get_row_style(row_index, base_style)
        if row_index == -1:
            name = "datatable--header"
        elif row_index < self.fixed_rows:
            name = "datatable--fixed"
        elif self.zebra_stripes:
            name = "datatable--odd-row" if row_index % 2 else "datatable--even-row"
        else:
            return base_style
        style = self._paint_row_styles.get(name)
        if style is None:
            style = self._paint_row_styles[name] = self.get_component_styles(name).rich_style
        return style

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> SegmentLines:
        """DataTable's cell, a one-line ``Text`` drawn without Rich's layers (see the module)."""
        if not self.fast_cells or column_index < 0:
            return super()._render_cell(row_index, column_index, base_style, width,
                                        cursor, hover)
        is_header = row_index == -1
        row_key = self._header_row_key if is_header else self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width,
                                        cursor, hover)
        cache_key = (row_key, column_key, base_style, cursor, hover, self._show_hover_cursor,
                     self._update_count, self._pseudo_class_state)
        cached = self._cell_render_cache.get(cache_key)
        if cached is not None:
            return cached
        if is_header:
            height = self.header_height
        else:
            row = self.rows.get(row_key)
            height = 0 if row is None or row.auto_height else row.height
        cell = self._get_row_renderables(row_index).cells[column_index]
        padding = self.cell_padding
        if height != 1 or not isinstance(cell, Text) or width - 2 * padding < 1:
            return super()._render_cell(row_index, column_index, base_style, width,
                                        cursor, hover)
        fixed = not is_header and (row_index < self.fixed_rows
                                   or column_index < self.fixed_columns)
        component_style, post_style = self._get_styles_to_render_cell(
            is_header, False, fixed, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
        pre_style = (base_style + Style.from_meta({"row": row_index, "column": column_index})
                     + component_style)
        line = self._cell_line(cell, width, padding)
        lines = [list(Segment.apply_style(line, pre_style, post_style))]
        self._cell_render_cache[cache_key] = lines
        return lines

    def _cell_line(self, cell: Text, width: int, padding: int) -> list[Segment]:
        """The cell's line as ``Padding(cell, (0, padding))`` renders it in ``width`` cells
        and one line, before any style of the row: kept by the cell's content and width."""
        options = self.app.console_options
        key = (cell.plain, tuple(cell.spans), cell.style, cell.justify, cell.overflow,
               cell.no_wrap, cell.end, cell.tab_size, width, padding, options.justify,
               options.overflow)
        line = self._cell_lines.get(key)
        if line is None:
            inner = width - 2 * padding
            console = self.app.console
            inner_options = options.update_dimensions(inner, 1).update(no_wrap=True)
            # as Padding: the cell rendered in the inner width, cut and padded to it
            cut = list(islice(Segment.split_and_crop_lines(
                console.render(cell, inner_options), inner, include_new_lines=False,
                pad=True, style=_NULL), None, 1)) or [[Segment(" " * inner, _NULL)]]
            side = [Segment(" " * padding, _NULL)] if padding else []
            line = [*side, *cut[0], *side]
            self._cell_lines[key] = line
        return line

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        new = list(new_rows)
        rows = [self.rows.get(key) for key in new]
        if (any(column.auto_width for column in self.columns.values())
                or any(row is not None and (row.label is not None or row.auto_height)
                       for row in rows)):
            super()._update_dimensions(new)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        # a table of fixed size: new rows repaint it, the screen is laid out only if a scroll
        # bar comes or goes (scroll_size)
        set_virtual_size(self, Size(width + self._row_label_column_width,
                                    self._total_row_height + header))

    def apply_dimensions(self) -> None:
        """Set the table's scrollable size for the rows added now, not when the app is next
        idle: the rows and their size are laid out in one pass (the idle one was a second
        layout of the screen, ~10 ms of CPU a key at 80x24)."""
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            new = self._new_rows.copy()
            self._new_rows.clear()
            self._update_dimensions(new)


def widths(labels: Sequence[str], rows: Sequence[Sequence[Text]]) -> list[int]:
    """Each column's width: its widest cell's, at least its label's."""
    return [max(len(label), max((cell_len(row[i].plain) for row in rows), default=0))
            for i, label in enumerate(labels)]


def set_rows(table: DataTable[Any], columns: Sequence[tuple[str, str]],
             rows: Sequence[Sequence[Text]], keys: Sequence[str]) -> None:
    """Replace the table's columns and rows: ``columns`` are (label, key), each as wide as
    its widest cell; ``keys`` name the rows. Columns of the same labels and keys (every page
    of the results) are kept, each given its new width, and only the rows replaced (a column
    added again measures its label: m then x, ~0.3 ms of the key's CPU)."""
    sized = list(zip(columns, widths([c[0] for c in columns], rows), strict=True))
    kept = table.ordered_columns
    if [(str(c.label), c.key.value, c.auto_width) for c in kept] == \
            [(label, key, False) for (label, key), _ in sized]:
        table.clear()               # the columns' widths are read from here on, as a paint's
        for column, (_, width) in zip(kept, sized):
            column.width = width
    else:
        table.clear(columns=True)
        for (label, key), width in sized:
            table.add_column(label, key=key, width=width)
    if isinstance(table, FixedTable):
        table.add_many(zip(rows, keys, strict=True))
        table.apply_dimensions()
        return
    for cells, key in zip(rows, keys, strict=True):
        table.add_row(*cells, key=key)
