"""A ``DataTable`` whose Home and End keys go to the first and the last row.

Textual's ``DataTable`` binds Home and End to the first and the last *column* (the cursor's
column, or the horizontal scroll of a table whose cursor is not a cell's): in a table whose
cursor is a row and whose columns fit they did nothing (issue 28: End in the curator queue,
walked at 80x24). With a row cursor, Home and End now do what Ctrl+Home and Ctrl+End do (the
first and the last row); a table with another cursor keeps ``DataTable``'s keys. Every table
of the workstation is one (:class:`~qcstation.widgets.fixed_table.FixedTable` is one too).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable


class RowTable(DataTable[Any]):
    """A ``DataTable``: Home / End go to the first / the last row when its cursor is a row."""

    def _row_cursor(self) -> bool:
        return self.show_cursor and self.cursor_type == "row"

    def action_scroll_home(self) -> None:
        if self._row_cursor():
            self.action_scroll_top()
        else:
            super().action_scroll_home()

    def action_scroll_end(self) -> None:
        if self._row_cursor():
            self.action_scroll_bottom()
        else:
            super().action_scroll_end()
