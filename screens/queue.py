"""The curator queue: every sampled item with its state, filtered; act on the highlighted one.

Filters are typed in one line as ``key:value`` words (``state:rejected dim:arithmetic
by:alice source:gsm8k``) and any other words match the reasons; ``f`` cycles the state.
Keys on the highlighted item: ``e`` fix in place (anyone), ``x`` exclude its seed, ``o``
override its outcome, ``s`` settle a disagreement (curators). Enter shows the whole item.
The first frame reads and draws one page of rows; the rest (up to ``MAX_ROWS``, in the same
order) is read when the cursor or the scroll nears the page's end.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Header, Input
from textual.worker import Worker

from qcstation.core.review.curation import QueueRow, exclude_seed, queue_and_items, resolve_item
from qcstation.core.review.items import ReviewItem, get_items
from qcstation.common.errors import ReviewError
from qcstation.common.safe import one_line, printable
from qcstation.widgets.text_field import TextField
from qcstation.widgets.fixed_table import FixedTable
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.text_pane import TextPane
from screens._base import QCScreen

FILTER_KEYS = {"state": "state", "dim": "dimension", "dimension": "dimension", "by": "annotator",
               "annotator": "annotator", "source": "source", "reason": "reason",
               "set": "scope"}
STATE_CYCLE = (None, "rejected", "awaiting replacement", "disagreed", "skipped", "excluded")
#: the most rows the queue lists (a filter narrows it)
MAX_ROWS = 2000
COLUMNS = ("id", "dimension", "state", "by", "reasons")
#: the most of a row's reasons shown (the item pane below shows them whole)
REASONS_CHARS = 60
#: ... and the least, however little room the other columns leave (the table then scrolls)
MIN_REASONS = 12
#: the table's border and a vertical scroll bar: not room for cells
QUEUE_TABLE_FRAME = 4


class QueueTable(FixedTable):
    """The queue's rows, with the room its reasons column has (set with its columns)."""

    reasons_chars = REASONS_CHARS
#: rows read and drawn a page at a time (what fits, with a margin: the terminal's height,
#: more than the table can show, and MORE_MARGIN rows; at least FIRST_PAGE): the first for
#: the first frame, the next, up to MAX_ROWS, when the cursor or the scroll comes within
#: MORE_MARGIN rows of the end, read from the last row on. Each row drawn costs (read, built,
#: laid out): at 1M seeds 100 rows made the state filter's key 0.2 s of CPU, and the rest read
#: in one key (2,000 rows) 0.3 s for the read; a page of 50 rows (twice the height) read and
#: built 16 rows more than the 34 of this one for the 8 that show at 80x24
FIRST_PAGE = 34
MORE_MARGIN = 10
#: the rows above and below the cursor's whose items are read again with its own when it
#: moves. Every row's item comes with the rows (the queue builds it to find its state): a
#: cursor key, a page down or a jump to the end shows its row's item in the key's own paint
#: (read again behind it, painted again only if it changed), not in a second paint after a
#: worker's read (at 1M seeds and load 15, 30-60 ms of a 10 ms key's wall clock)
NEAR_ROWS = 1


def parse_filter(text: str) -> dict[str, str]:
    """``state:rejected dim:arithmetic garbled`` -> filters for
    :func:`qcstation.core.review.curation.queue`. A state with a space is written with a dash
    or quotes-free underscore (awaiting-replacement). The other words are a full-text search
    over the questions and the reasons (``reason:`` a substring of a reason; ``set:`` a
    derived set's name)."""
    out: dict[str, str] = {}
    free: list[str] = []
    for word in text.split():
        key, sep, value = word.partition(":")
        name = FILTER_KEYS.get(key.lower()) if sep else None
        if name and value:
            value = value.replace("-", " ").replace("_", " ") if name == "state" else value
            out[name] = value
        else:
            free.append(word)
    if free:
        out["text"] = " ".join(free)
    return out


class QueueScreen(QCScreen):
    """Rejected, awaiting replacement, disagreed, excluded and skipped items, and the rest."""

    BINDING_GROUP_TITLE = "Curator queue"
    PASTE_HINT = ('Paste where you type: the filter (/), or the dialog of a fix (e), an exclusion '
                  '(x), an override (o) or a settlement (s).')
    #: the rows take the first focus (by default the filter did, the first focusable widget,
    #: until the mount moved it: an Enter typed ahead applied the filter)
    AUTO_FOCUS = "#queue_table"
    #: seconds between re-reads while the queue is shown and idle (0: never): colleagues
    #: decide, fix and regenerate in their own sessions (or through the menu over this
    #: screen), and a row read once kept its old state until F5 (issue 28)
    AUTO_REFRESH_S = 15.0
    BINDINGS = [
        Binding("f", "cycle_state", "State", tooltip="Cycle the state filter", id="queue-state"),
        Binding("slash", "focus_filter", "Filter", tooltip="Type filters", id="queue-filter"),
        Binding("e", "fix", "Fix", tooltip="Edit the item and accept the edit (a new version)",
                id="queue-fix"),
        Binding("x", "exclude", "Exclude", tooltip="Curators: take the seed out", id="queue-exclude"),
        Binding("o", "override", "Override", tooltip="Curators: set the outcome, with a reason",
                id="queue-override"),
        Binding("s", "settle", "Settle", tooltip="Curators: settle a disagreement",
                id="queue-settle"),
        Binding("f5", "reload", "Refresh", show=False, id="queue-refresh"),
        Binding("escape", "back", "Back", id="queue-back"),
    ]

    class RowsLoaded(Message):
        def __init__(self, rows: list[QueueRow], filters: dict[str, str], limit: int = MAX_ROWS,
                      generation: int = 0, after: tuple[str, int] | None = None,
                      items: dict[int, ReviewItem] | None = None, text: str = "") -> None:
            self.limit = limit
            self.items = items or {}    # each row's item, read with the rows, by item id
            self.text = text            # the filter as typed (shown in the box with the rows)
            self.generation = generation
            self.after = after          # rows that follow this row (dimension, item id)
            super().__init__()
            self.rows = rows
            self.filters = filters

    class ItemShown(Message):
        def __init__(self, item: ReviewItem, near: dict[int, ReviewItem] | None = None) -> None:
            super().__init__()
            self.item = item
            self.near = near or {}      # the items of the rows beside it, by item id

    class Done(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, dimension: str | None = None, state: str | None = None,
                 set_name: str | None = None) -> None:
        super().__init__()
        words = []
        if state:
            words.append(f"state:{state.replace(' ', '-')}")
        if dimension:
            words.append(f"dim:{dimension}")
        if set_name:
            words.append(f"set:{set_name}")
        self.initial_filter = " ".join(words)
        self.rows: list[QueueRow] = []
        self.item: ReviewItem | None = None
        self.showing: int | None = None  # the item id shown or being read for the pane
        #: the items of the rows shown, by item id: read with the rows, and each again with
        #: the rows beside it when the cursor comes to it (NEAR_ROWS)
        self.near: dict[int, ReviewItem] = {}
        #: the filter a key set (f) that is not in the box yet: it is shown there with its
        #: rows, in one paint (set at once, the box was painted alone, then the rows)
        self.pending_text: str | None = None
        self.drawing = False     # the rows are being drawn: the cursor's moves are not the user's
        self.busy = False
        self.more = False        # only the first page is shown; more rows may follow
        self.loading_more = False
        self.generation = 0      # a reload makes every earlier read stale
        self.reload_on_resume = False   # a full screen was pushed over this one
        self.filters: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield FilterField(self.initial_filter, placeholder="state:rejected dim:arithmetic "
                          "by:alice source:gsm8k search words", id="queue_filter", limit=500)
        # fixed column widths (_set_columns): added rows are not measured (FixedTable)
        table: DataTable[Any] = QueueTable(id="queue_table", cursor_type="row", zebra_stripes=True)
        yield table
        # a pane that wraps what shows: a Static in a scroll box changed its height with each
        # item, and the box's scroll bar with it (two or three layouts of the screen a key)
        yield TextPane(Text("Loading…", style="dim"), id="queue_detail", classes="panel")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#queue_filter").border_title = "Filter (Enter applies, ↓ to the rows)"
        table = self.query_one("#queue_table", DataTable)
        table.border_title = "Items"
        self._set_columns(table, [])
        self.query_one("#queue_detail").border_title = "Item"
        table.focus()
        self.watch(table, "scroll_y", self._scrolled, init=False)
        self.watch(table, "cursor_coordinate", self._cursor_moved, init=False)
        if self.AUTO_REFRESH_S > 0:
            self.set_interval(self.AUTO_REFRESH_S, self._refresh_by_itself,
                              name="queue-refresh-by-itself")
        self.action_reload()

    def _refresh_by_itself(self) -> None:
        """Read the rows shown again, while shown and idle, and not while a filter is being
        typed (a reload reads the box)."""
        if (self.app.screen is not self or self.busy or self.loading_more
                or self.pending_text is not None
                or self.focused is self.query_one("#queue_filter")):
            return
        self.action_reload(keep_rows=True)

    def on_screen_suspend(self) -> None:
        from textual.screen import ModalScreen

        if not isinstance(self.app.screen, ModalScreen):
            self.reload_on_resume = True

    def on_screen_resume(self) -> None:
        # back from a full screen pushed over this one (review, the menu's screens): what
        # was done there shows here (a dialog of this screen reloads by itself when it acts)
        if self.reload_on_resume and self.app.screen is self:
            self.reload_on_resume = False
            self._refresh_by_itself()

    def help_notes(self) -> Text:
        return Text(
            "Every sampled item with its state. Type filters as key:value words — state: "
            "(rejected, awaiting-replacement, disagreed, excluded, skipped, settled, overridden, "
            "accepted, pending), dim:, by: (an account), source:, set: (a derived set's name) "
            "— and any other words to find "
            "in the questions and the reasons (\"a phrase\", prefix*, OR, NOT); Enter applies, "
            "f cycles the state. e fixes the highlighted item in place (a new version by you, "
            "checked like a generated one, then accepted); "
            "curators also exclude its seed (x), override its outcome (o) or settle a "
            "disagreement (s), always with a recorded reason. The reviewers' own decisions "
            "stay in the log.")

    # -- loading -----------------------------------------------------------------------
    def action_reload(self, text: str | None = None, keep_rows: bool = False) -> None:
        """Read the rows again, with the filter in the box, or ``text`` (shown in the box
        when its rows come); ``keep_rows``: as many rows as are shown (a refresh)."""
        shown = len(self.rows) if keep_rows else 0
        self.busy = True
        self.generation += 1
        self.more = self.loading_more = False
        self.pending_text = text
        if text is None:
            text = self.query_one("#queue_filter", Input).value
        self.filters = parse_filter(text)
        self._load(self.filters, max(self._page_size(), min(shown, MAX_ROWS)), self.generation,
                   text=text)

    def _page_size(self) -> int:
        return max(FIRST_PAGE, self.app.size.height + MORE_MARGIN)

    def _more_wanted(self, row: int) -> None:
        """Read the next page (up to MAX_ROWS in all) once ``row`` comes near the end of what
        is shown, from the last row shown on."""
        if self.more and not self.loading_more and row >= len(self.rows) - MORE_MARGIN:
            self.loading_more = True
            last = self.rows[-1]
            self._load(self.filters, min(self._page_size(), MAX_ROWS - len(self.rows)),
                       self.generation, (last.dimension, last.item_id))

    def _scrolled(self, _old: float, new: float) -> None:
        self._more_wanted(int(new) + self.query_one("#queue_table", DataTable).size.height)

    @work(thread=True, exclusive=True, exit_on_error=False, group="loaders",
          description="Reading the curator queue")
    def _load(self, filters: dict[str, str], limit: int = MAX_ROWS, generation: int = 0,
              after: tuple[str, int] | None = None, text: str = "") -> None:
        # each row's item comes with it (the queue builds it to find its state): the
        # cursor's row's item is drawn with the rows, in one pass, and any row the cursor
        # moves to shows its item in the key's own paint
        with self.qc_app.open_store() as store:
            rows, items = queue_and_items(store, limit=limit, after=after, **filters)
        self.post_message(self.RowsLoaded(rows, filters, limit, generation, after, items, text))


    @on(RowsLoaded)
    def _rows_loaded(self, message: RowsLoaded) -> None:
        if message.generation != self.generation:
            return  # a reload came since: its rows are the ones to show
        table = self.query_one("#queue_table", DataTable)
        shown = one_line(", ".join(f"{k} {v}" for k, v in message.filters.items()) or "all items", 80)
        if message.after is not None:
            # the page after the last row shown (same query, same order): added below it
            if not (self.loading_more and self.rows
                    and message.after == (self.rows[-1].dimension, self.rows[-1].item_id)):
                return
            start = len(self.rows)
            self.rows = self.rows + message.rows
            self.near.update(message.items)
            self.loading_more = False
            self.more = len(message.rows) >= message.limit and len(self.rows) < MAX_ROWS
            # the new rows' widths against the shown ones' (not every row's measured again)
            shown_widths = self._widths(self.rows[:start])
            if any(new > old for new, old in zip(self._widths(message.rows), shown_widths)):
                keep = table.cursor_row        # wider cells follow: the columns are remade
                with self._drawing():
                    table.clear(columns=True)
                    self._set_columns(table, self.rows)
                    self._add_rows(table, self.rows)
                    table.move_cursor(row=keep)
            else:
                self._add_rows(table, message.rows)
            if isinstance(table, FixedTable):
                table.apply_dimensions()
            table.border_title = f"Items: {len(self.rows)}{'+' if self.more else ''} ({shown})"
            return
        more = len(message.rows) >= message.limit and message.limit < MAX_ROWS
        self.busy = self.loading_more = False
        self.more = more
        if message.rows and message.rows == self.rows and self.pending_text is None:
            # read again unchanged (a refresh): the rows stay as drawn; the item shown is
            # drawn again only if it changed
            self.near = dict(message.items)
            current = message.items.get(self.showing) if self.showing is not None else None
            if current is not None:
                self._item_shown(self.ItemShown(current))
            return
        # the cursor stays on its item where the item is still listed (a row added or gone
        # above it moved it to another item)
        before = self.rows[table.cursor_row].item_id \
            if self.rows and 0 <= table.cursor_row < len(self.rows) else None
        self.rows = message.rows
        self.near = dict(message.items)
        if self.pending_text is not None:
            # the filter a key set, in the box with its rows (one paint)
            self.pending_text = None
            self.query_one("#queue_filter", Input).value = message.text
        keep = table.cursor_row
        with self._drawing():
            table.clear(columns=True)
            self._set_columns(table, message.rows)
            self._add_rows(table, message.rows)
            table.border_title = f"Items: {len(message.rows)}{'+' if more else ''} ({shown})"
            if isinstance(table, FixedTable):
                table.apply_dimensions()
            if message.rows:
                ids = [r.item_id for r in message.rows]
                table.move_cursor(row=ids.index(before) if before in ids
                                  else min(keep, len(message.rows) - 1))
        if message.rows:
            item_id = message.rows[table.cursor_row].item_id
            first = message.items.get(item_id)
            if first is not None:
                self.showing = item_id
                self._item_shown(self.ItemShown(first))
            else:
                self._show(item_id, again=True)
        else:
            self.item = None
            self.showing = None
            self.query_one("#queue_detail", TextPane).update(
                Text("No item matches. f cycles the state filter; / edits the filter.",
                     style="dim"))

    @contextmanager
    def _drawing(self) -> Iterator[None]:
        """The rows drawn again: the cursor's moves meanwhile are not the user's (see
        :meth:`_cursor_moved`)."""
        self.drawing = True
        try:
            yield
        finally:
            self.drawing = False

    @staticmethod
    def _cells(r: QueueRow, reasons: int = REASONS_CHARS) -> tuple[Text, ...]:
        # keys, names and reasons come from data and users: one line, controls escaped; the
        # reasons cut to ``reasons`` characters with '…' (the item pane has them whole)
        # a rejected item replaced since says what it is now ('rejected → v2 accepted'):
        # 'rejected' alone read as if the fix had not been taken (issue 28)
        state = f"{r.state} → {r.now}" if r.now else r.state
        return (Text(one_line(r.key, 60)), Text(r.dimension), Text(one_line(state, 40)),
                Text(one_line(",".join(r.annotators), 60)),
                Text(one_line("; ".join(r.reasons), reasons)))

    @classmethod
    def _widths(cls, rows: list[QueueRow], reasons: int = REASONS_CHARS) -> list[int]:
        # each row's cells made once, not per column
        cells = [cls._cells(r, reasons) for r in rows]
        return [max([len(label), *(c[i].cell_len for c in cells)])
                for i, label in enumerate(COLUMNS)]

    @classmethod
    def _set_columns(cls, table: DataTable[Any], rows: list[QueueRow]) -> None:
        """Columns as wide as the rows' cells. Textual's own widths (measured when the app
        is next idle) left rows drawn before that at the labels' widths in its row cache:
        in a terminal the ids read "gs", the states "pendi", until the row was redrawn.
        The reasons take the room the other columns leave on the screen (at least
        :data:`MIN_REASONS`), so a long one ends in '…' on the screen, not past its edge
        with only a scroll bar to say so."""
        if isinstance(table, QueueTable):
            table.reasons_chars = cls._room(table, rows)
        for label, width in zip(COLUMNS, cls._widths(rows, cls._reasons(table)), strict=True):
            table.add_column(label, width=width)

    @classmethod
    def _room(cls, table: DataTable[Any], rows: list[QueueRow]) -> int:
        """The reasons' width: what the terminal's width leaves after the other columns."""
        others = cls._widths(rows)[:-1]
        room = (table.app.size.width - QUEUE_TABLE_FRAME
                - sum(w + 2 * table.cell_padding for w in others) - 2 * table.cell_padding)
        return max(MIN_REASONS, min(REASONS_CHARS, room))

    @staticmethod
    def _reasons(table: DataTable[Any]) -> int:
        return table.reasons_chars if isinstance(table, QueueTable) else REASONS_CHARS

    @classmethod
    def _add_rows(cls, table: DataTable[Any], rows: list[QueueRow]) -> None:
        reasons = cls._reasons(table)
        if isinstance(table, FixedTable):
            table.add_many((cls._cells(r, reasons), str(r.item_id)) for r in rows)
            return
        for r in rows:
            table.add_row(*cls._cells(r, reasons), key=str(r.item_id))

    def on_resize(self) -> None:
        """The reasons' room follows the terminal's width: the columns are made again."""
        table = self.query_one("#queue_table", DataTable)
        if not self.rows or not isinstance(table, QueueTable):
            return
        if self._room(table, self.rows) != table.reasons_chars:
            keep = table.cursor_row
            with self._drawing():
                table.clear(columns=True)
                self._set_columns(table, self.rows)
                self._add_rows(table, self.rows)
                table.apply_dimensions()
                table.move_cursor(row=keep)

    @on(Input.Submitted, "#queue_filter")
    def _filter_typed(self) -> None:
        # the focus stays in the filter: words typed after Enter refine it, never act as the
        # rows' keys (x excludes, s settles); Down, Tab or Esc go to the rows
        self.action_reload()

    def action_focus_filter(self) -> None:
        self.query_one("#queue_filter", Input).focus()

    def action_cycle_state(self) -> None:
        """The next state of :data:`STATE_CYCLE` in the filter; the box shows it with the
        rows it finds (a key pressed again meanwhile cycles on from it)."""
        text = (self.pending_text if self.pending_text is not None
                else self.query_one("#queue_filter", Input).value)
        current = parse_filter(text).get("state")
        nxt = STATE_CYCLE[(STATE_CYCLE.index(current) + 1) % len(STATE_CYCLE)] \
            if current in STATE_CYCLE else None
        words = [w for w in text.split() if not w.lower().startswith("state:")]
        if nxt:
            words.insert(0, f"state:{nxt.replace(' ', '-')}")
        self.action_reload(" ".join(words))

    def _cursor_moved(self, new: Any) -> None:
        """The cursor's row, shown as the cursor moves (in the key's own handling): its
        RowHighlighted message came after the table's repaint, so a key's item shown from
        :attr:`near` was painted in a second pass."""
        table = self.query_one("#queue_table", DataTable)
        if self.drawing or not 0 <= new.row < table.row_count:
            return
        self._more_wanted(new.row)
        key = table.coordinate_to_cell_key(new).row_key.value
        if key is not None:
            self._show(int(key))

    @on(DataTable.RowHighlighted, "#queue_table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        table = self.query_one("#queue_table", DataTable)
        if event.cursor_row != table.cursor_row:
            # the cursor moved on since (a key typed ahead, or rows drawn: the first row
            # added highlights row 0 before the cursor is put back on its row): only its
            # latest row's item is read (each stale one was a worker's read and a paint)
            return
        self._more_wanted(event.cursor_row)
        if event.row_key is not None and event.row_key.value is not None:
            self._show(int(event.row_key.value))

    @on(DataTable.RowSelected, "#queue_table")
    def _selected(self) -> None:
        self.query_one("#queue_detail").focus()

    def _show(self, item_id: int, again: bool = False) -> None:
        """Read the item for the pane: not again while it is shown or being read (the
        cursor's highlight after a reload names the row whose item came with the rows),
        unless ``again`` (a reload: it may have changed)."""
        if item_id == self.showing and not again:
            return
        self.showing = item_id
        near = self.near.get(item_id)
        if near is not None and not again:
            # read with the row beside it: shown with the cursor's move, read again below
            self._item_shown(self.ItemShown(near))
        at = self.query_one("#queue_table", DataTable).cursor_row
        ids = [r.item_id for r in self.rows]
        self._load_item(item_id, ids, at if 0 <= at < len(ids) and ids[at] == item_id else -1)

    @work(thread=True, exclusive=True, exit_on_error=False, group="items",
          description="Reading the item")
    def _load_item(self, item_id: int, ids: list[int], at: int) -> None:
        # the item and those of the rows within NEAR_ROWS of its row ``at``, read together
        near_ids = ([ids[i] for i in range(max(0, at - NEAR_ROWS),
                                           min(len(ids), at + NEAR_ROWS + 1)) if i != at]
                    if at >= 0 else [])
        with self.qc_app.open_store() as store:
            read = get_items(store, [item_id, *near_ids])
        if item_id not in read:
            raise ReviewError(f"no review item #{item_id}", title="No such item")
        item = read.pop(item_id)
        self.post_message(self.ItemShown(item, read))

    @on(ItemShown)
    def _item_shown(self, message: ItemShown) -> None:
        if message.item.item_id != self.showing:
            return              # the cursor moved on since: its item is being read
        self.near.update(message.near)
        self.near[message.item.item_id] = message.item
        if message.item == self.item:
            return              # read again (a reload) and unchanged: the pane stays as drawn
        self.item = message.item
        self.query_one("#queue_detail", TextPane).update(render_item(message.item))
        self.query_one("#queue_detail").border_title = (
            f"{message.item.key} · {message.item.dimension}")

    # -- actions -------------------------------------------------------------------------
    def _target(self) -> ReviewItem | None:
        if self.busy:
            self.notify("One moment…", timeout=2)
            return None
        if self.item is None:
            self.notify("No item is highlighted.", severity="warning")
            return None
        return self.item

    def _curator_only(self, what: str) -> bool:
        if self.qc_app.is_curator:
            return True
        curators = self.qc_app.settings.curators
        self.notify(f"Only a curator can {what}; the account {self.qc_app.annotator} is not one"
                    + (f" (curators: {', '.join(curators)})." if curators else
                       "; no curators are configured ([qc] curators)."),
                    title="Not allowed", severity="warning")
        return False

    def action_fix(self) -> None:
        item = self._target()
        if item is None:
            return
        from qcstation.core.review.fixes import FIXABLE, editable_text
        from screens.dialogs.fix_item import FixModal

        if item.dimension not in FIXABLE:
            self.notify(f"{item.dimension} items cannot be fixed in place.", severity="warning")
            return

        if item.outcome == "accept" and not self._curator_only(
                f"correct {item.key}, which was accepted (it counts as a defect)"):
            return

        def fixed(result: dict[str, Any] | None) -> None:
            if result:
                how = ("corrected after acceptance (counted as a defect)"
                       if result.get("late_correction") else "fixed")
                self.notify(f"{result['item']}: {how} as version {result['version']}, verified "
                            f"on its own terms and accepted", title="Fixed in place")
                self.action_reload()

        self.app.push_screen(FixModal(item, editable_text(item)), callback=fixed)

    def action_exclude(self) -> None:
        item = self._target()
        if item is None or not self._curator_only("exclude a seed"):
            return
        from screens.dialogs.exclude_seed import ExcludeSeedModal

        def confirmed(reason: str | None) -> None:
            if reason:
                self.busy = True
                self._act("exclude", item, reason=reason)

        self.app.push_screen(ExcludeSeedModal(item.seed_id, item.key), callback=confirmed)

    def action_override(self) -> None:
        self._resolve("override")

    def action_settle(self) -> None:
        item = self._target()
        if item is not None and not item.disagreed:
            self.notify(f"{item.key} has no open disagreement; o overrides a decided outcome.",
                        severity="warning")
            return
        self._resolve("settle")

    def _resolve(self, kind: str) -> None:
        item = self._target()
        if item is None or not self._curator_only(f"{kind} a decision"):
            return
        if not any(d["verdict"] in ("accept", "reject") for d in item.decisions):
            self.notify(f"{item.key} has no decision yet to {kind}.", severity="warning")
            return
        from screens.dialogs.fix_item import ResolveModal

        def chosen(result: tuple[str, str] | None) -> None:
            if result:
                self.busy = True
                self._act(kind, item, verdict=result[0], reason=result[1])

        self.app.push_screen(ResolveModal(kind, item), callback=chosen)

    @work(thread=True, exit_on_error=False, group="curators", description="Curator action")
    def _act(self, kind: str, item: ReviewItem, *, reason: str,
             verdict: str | None = None) -> None:
        curators = list(self.qc_app.settings.curators)
        with self.qc_app.open_store() as store:
            if kind == "exclude":
                r = exclude_seed(store, item.seed_id, actor=self.qc_app.annotator,
                                 reason=reason, curators=curators)
                text = f"{item.key}: seed excluded ({r['reason']})"
            else:
                assert verdict is not None
                r = resolve_item(store, item.item_id, kind=kind, verdict=verdict,
                                 reason=reason, actor=self.qc_app.annotator, curators=curators)
                text = f"{item.key}: {kind} {verdict} recorded"
        self.post_message(self.Done(text))

    @on(Done)
    def _done(self, message: Done) -> None:
        self.busy = False
        self.notify(message.text, title="Curator queue")
        self.action_reload()

    def worker_failed(self, worker: Worker[object]) -> None:
        self.busy = False
        if worker.group == "loaders" and self.pending_text is not None:
            # the filter a key set is shown even when its rows could not be read
            self.query_one("#queue_filter", Input).value = self.pending_text
            self.pending_text = None

    def action_back(self) -> None:
        if self.focused is self.query_one("#queue_filter"):
            self.query_one("#queue_table", DataTable).focus()
            return
        self.dismiss(None)


class FilterField(TextField):
    """The queue's filter: Down goes to the rows (as Tab and Esc do)."""

    BINDINGS = [Binding("down", "to_rows", "To the rows", show=False, id="queue-filter-down")]

    def action_to_rows(self) -> None:
        self.screen.query_one("#queue_table").focus()


def render_item(item: ReviewItem) -> Text:
    """The whole item as plain text (untrusted parts as Text, never markup)."""
    t = Text()
    t.append("Question: ", style="bold")
    t.append(printable(item.question) + "\n")
    t.append("Gold answer: ", style="bold")
    t.append(printable(item.gold_answer) + "\n")
    if item.dimension == "arithmetic":
        t.append("Notation question: ", style="bold")
        t.append(printable(item.content.get("notation", "")) + "\n")
    elif item.dimension == "understanding":
        from qcstation.core.construct.make.keyinfo import keyinfo_to_text

        t.append("Key information:\n", style="bold")
        t.append(printable(keyinfo_to_text(item.content)))
    t.append(f"Version {item.artifact_version} ({item.artifact_status})", style="dim")
    if item.author:
        t.append(f", fixed in place by {one_line(item.author, 60)}", style="dim")
    t.append("\n")
    for d in item.decisions:
        t.append(f"{one_line(d['annotator'], 60)}: {one_line(d['verdict'], 20)}")
        if d.get("reason"):
            t.append(f" — {printable(d['reason'])}")
        if d.get("unsure"):
            t.append(" [unsure]", style="yellow")
        if d.get("comment"):
            t.append(f" (note: {printable(d['comment'])})", style="dim")
        t.append("\n")
    if item.resolution:
        r = item.resolution
        t.append(printable(f"Curator {r['kind']}: {r['curator']} {r['verdict']} — {r['reason']}")
                 + "\n",
                 style="bold")
    if item.seed_status != "active":
        t.append(f"Seed {item.seed_status}\n", style="yellow")
    return t
