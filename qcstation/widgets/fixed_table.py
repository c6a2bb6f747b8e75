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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.text import Text
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets._data_table import RowKey

from qcstation.widgets.scroll_size import set_virtual_size


class FixedTable(DataTable[Any]):
    """A ``DataTable`` that does not measure its rows when every column's width is fixed."""

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
    return [max([len(label), *(row[i].cell_len for row in rows)])
            for i, label in enumerate(labels)]


def set_rows(table: DataTable[Any], columns: Sequence[tuple[str, str]],
             rows: Sequence[Sequence[Text]], keys: Sequence[str]) -> None:
    """Replace the table's columns and rows: ``columns`` are (label, key), each as wide as
    its widest cell; ``keys`` name the rows."""
    table.clear(columns=True)
    for (label, key), width in zip(columns, widths([c[0] for c in columns], rows), strict=True):
        table.add_column(label, key=key, width=width)
    for cells, key in zip(rows, keys, strict=True):
        table.add_row(*cells, key=key)
    if isinstance(table, FixedTable):
        table.apply_dimensions()
