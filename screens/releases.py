"""Releases: list them, see what blocks a new one, approve (curators only), export, diff."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Header, Static

from qcstation.core.release import releases as rel
from qcstation.core.release.splits import manifest_splits
from qcstation.common.safe import one_line, one_line_middle, printable
from qcstation.messages import ReleaseApproved, ReleaseDiffed, ReleaseExported, ReleasesLoaded
from screens._base import QCScreen
from screens.dialogs.approve_release import ApproveReleaseModal
from screens.dialogs.confirm import ConfirmModal
from qcstation.widgets.footer import KeyFooter
from qcstation.widgets.row_table import RowTable
from qcstation.widgets.bullets import Bullet
from qcstation.widgets.labels import blocker_text

DEFAULT_NAME = "smart"
#: the fewest characters of a release's name, version and set the table shows (each cut in
#: its middle to fit)
TEXT_MINS = (12, 8, 8)


def release_scope(info: rel.ReleaseInfo) -> str:
    """The derived set a release is of ('' the working set), from its manifest."""
    derived = (info.manifest or {}).get("derived") or {}
    return str(derived.get("set") or "") if isinstance(derived, dict) else ""


def scope_words(scope: str) -> str:
    return f"the derived set {one_line(scope, 40)}" if scope else "the working set"
DEFAULT_VERSION = "1.0.0"


def next_version(version: str | None) -> str:
    """``1.0.0 -> 1.0.1``, ``v3 -> v4``; anything else gets the default."""
    if not version:
        return DEFAULT_VERSION
    match = re.match(r"^(.*?)(\d+)$", version)
    if not match:
        return DEFAULT_VERSION
    return f"{match.group(1)}{int(match.group(2)) + 1}"


def render_release(info: rel.ReleaseInfo) -> RenderableType:
    counts = info.counts or {}
    lines = [Text.assemble((one_line(f"{info.name}@{info.version}"), "bold"),
                           f"  approved by {one_line(info.approved_by, 60)} at {info.approved_at[:19]}")]
    records = counts.get("records")
    if records is not None:
        by_source = counts.get("by_source") or {}
        where = ", ".join(f"{one_line(k, 40)} {v}" for k, v in by_source.items())
        lines.append(Text(f"{records} records" + (f" ({where})" if where else "")
                          + (f"; {counts.get('excluded')} seeds left out"
                             if counts.get("excluded") else "")))
    if info.notes:
        lines.append(Text.assemble(("Notes: ", "bold"), printable(info.notes)))
    splits = manifest_splits(info.manifest or {})
    if splits:      # one split too: which file load_dataset reads, and its name
        lines.append(Text("Splits: " + ", ".join(
            f"{one_line(s['name'], 30)} {s.get('records', '?')} ({one_line(s.get('path'), 40)})"
            for s in splits)))
    lines.append(Text(f"Exported to {printable(info.export_dir)}" if info.export_dir else
                      "Not exported yet (press e)", style="dim"))
    return Group(*lines)


def render_diff(diff: dict[str, Any], *, limit: int = 30) -> RenderableType:
    counts = diff.get("counts") or {}

    def ids(values: list[Any]) -> str:
        shown = ", ".join(str(v) for v in values[:limit])
        return shown + (f", … ({len(values) - limit} more)" if len(values) > limit else "")

    lines = [
        Text(one_line(f"{diff.get('name')}@{diff.get('old')} → {diff.get('name')}@{diff.get('new')}"), style="bold"),
        Text(f"{counts.get('old', 0)} records before, {counts.get('new', 0)} after: "
             f"{counts.get('added', 0)} added, {counts.get('removed', 0)} removed, "
             f"{counts.get('changed', 0)} changed, {diff.get('unchanged', 0)} unchanged"),
    ]
    by_field = diff.get("changed_by_field") or {}
    if by_field:
        lines.append(Text("Changed fields: " + ", ".join(f"{k} {n}" for k, n in by_field.items())))
    if diff.get("added"):
        lines.append(Text.assemble(("Added seeds: ", "bold"), ids(list(diff["added"]))))
    if diff.get("removed"):
        lines.append(Text.assemble(("Removed seeds: ", "bold"), ids(list(diff["removed"]))))
    changed = list(diff.get("changed") or [])
    if changed:
        lines.append(Text("Changed:", style="bold"))
        for entry in changed[:limit]:
            lines.append(Text(f"  {entry.get('id')} (seed {entry.get('seed_id')})"))
            for line in (entry.get("changes") or entry.get("fields") or [])[:6]:
                lines.append(Text(f"    {line}", style="dim"))
        if len(changed) > limit:
            lines.append(Text(f"  … {len(changed) - limit} more", style="dim"))
    return Group(*lines)


class ReleasesScreen(QCScreen):
    """``a`` approve (curators), ``e`` export, ``d`` diff against the previous version."""

    BINDING_GROUP_TITLE = "Releases"
    PASTE_HINT = ("Paste where you type: the approve dialog's fields (a) or a flag override's "
                  'reason (o).')
    AUTO_FOCUS = "#release_table"   # the first focus (Textual's default: the first focusable widget)
    BINDINGS = [
        Binding("a", "approve", "Approve", tooltip="Approve a new release (curators only)",
                id="release-approve"),
        Binding("e", "export", "Export", tooltip="Write the selected release to exports/",
                id="release-export"),
        Binding("s", "next_set", "Set", tooltip="Which set a new release is of: the working "
                "set or a derived set (cycles)", id="release-set"),
        Binding("d", "diff", "Diff", tooltip="Compare with the previous version",
                id="release-diff"),
        Binding("o", "override_flags", "Flags", tooltip="Curators: let a flagged item through "
                "the release gate, with a reason", id="release-override-flags"),
        Binding("f5", "refresh", "Refresh", show=False, id="release-refresh"),
        Binding("escape", "back", "Back", id="release-back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.releases: list[rel.ReleaseInfo] = []
        self.blockers: list[str] | None = None
        # the release just approved: selected once the list is read again, so that `e`
        # ("Press e to export it") exports it, not the row the cursor was on
        self.select_next: tuple[str, str] | None = None
        #: the set a new release is of: '' the working set, else a derived set (``s`` cycles)
        self.scope = ""
        self.scopes: list[str] = [""]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="releases_body"):
            yield RowTable(id="release_table", cursor_type="row")
            yield Static(Text("Loading…", style="dim"), id="blockers", classes="panel")
            yield Static(Text("Select a release to see it here.", style="dim"),
                         id="release_detail", classes="panel")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#release_table", DataTable)
        table.border_title = "Releases"
        # short labels: at 80 columns 'Approved by', 'Approved at' and 'Exported' pushed the
        # last column out of sight (the details pane says who approved when in full)
        table.add_columns("Name", "Version", "Set", "Records", "By", "Approved", "Export")
        self.query_one("#blockers").border_title = "New release"
        self.query_one("#release_detail").border_title = "Details"
        table.focus()
        # the page's scroll bar takes room from the names only while it shows
        self.watch(self.query_one("#releases_body"), "show_vertical_scrollbar",
                   self._body_bar_changed, init=False)
        self.action_refresh()

    def _body_bar_changed(self, _shown: bool) -> None:
        if self.releases:
            self._fill_table(self.query_one("#release_table", DataTable).cursor_row)

    def help_notes(self) -> RenderableType:
        curators = ", ".join(self.qc_app.settings.curators) or "none configured"
        return Text(f"Only curators can approve a release (curators: {curators}). A release "
                    "freezes every seed whose four dimensions are verified or accepted; it never "
                    "changes afterwards. Export writes data.jsonl, README.md and manifest.json "
                    "under exports/<name>/<version>/ with identical bytes every time.")

    # -- loading ---------------------------------------------------------------------
    def action_refresh(self) -> None:
        self._load_releases()

    @work(thread=True, exclusive=True, exit_on_error=False, group="loaders",
          description="Loading releases")
    def _load_releases(self) -> None:
        from qcstation.core.review.queries import derived_scopes

        scope = self.scope
        with self.qc_app.open_store() as store:
            releases = rel.list_releases(store)
            scopes = ["", *derived_scopes(store)]
            if scope not in scopes:
                scope = ""
            blockers = rel.release_blockers(store, self.qc_app.config,
                                            actor=self.qc_app.annotator, scope=scope)
        self.post_message(ReleasesLoaded(releases, blockers, scope, scopes))

    @on(ReleasesLoaded)
    def _show_releases(self, message: ReleasesLoaded) -> None:
        self.releases = message.releases
        self.blockers = message.blockers
        self.scope, self.scopes = message.scope, message.scopes
        self.query_one("#blockers").border_title = (
            f"New release of {scope_words(self.scope)}"
            + (" (s: another set)" if len(self.scopes) > 1 else ""))
        table = self.query_one("#release_table", DataTable)
        selected = table.cursor_row
        if self.select_next is not None:
            wanted, self.select_next = self.select_next, None
            selected = next((n for n, info in enumerate(message.releases)
                             if (info.name, info.version) == wanted), selected)
        self._fill_table(selected)
        table.border_subtitle = "" if message.releases else "no releases yet"
        self._show_blockers()

    def _fill_table(self, selected: int) -> None:
        """The releases' rows, the names, versions and sets cut in their middle to the room
        the other columns leave at this width (a 40-character name or version scrolled the
        table sideways at 80 columns, the Export column out of sight), the row ``selected``
        under the cursor."""
        table = self.query_one("#release_table", DataTable)
        texts = [[printable(info.name, keep_newlines=False),
                  printable(info.version, keep_newlines=False),
                  printable(release_scope(info) or "working set", keep_newlines=False)]
                 for info in self.releases]
        rest = [[Text(str((info.counts or {}).get("records", ""))),
                 Text(one_line(info.approved_by, 30)),
                 Text(info.approved_at[:16].replace("T", " ")),
                 Text("yes" if info.export_dir else "no")]
                for info in self.releases]
        rooms = self._text_rooms(table, texts, rest)
        table.clear()
        for info, cut, cells in zip(self.releases, texts, rest):
            name, version, scope = (one_line_middle(text, room) for text, room in zip(cut, rooms))
            table.add_row(Text(name), Text(version), Text(scope), *cells,
                          key=f"{info.name}\x00{info.version}")
        if self.releases:
            table.move_cursor(row=min(selected, len(self.releases) - 1))

    def _text_rooms(self, table: DataTable[Any], texts: list[list[str]],
                    rest: list[list[Text]]) -> list[int]:
        """The characters the Name, Version and Set columns have at the screen's width
        beside the other columns (their widest cell or label), the table's border and the
        scroll bars the table and the page may show: the one with the most room above its
        least (:data:`TEXT_MINS`) gives up a character at a time."""
        pad = 2 * table.cell_padding
        labels = [len(str(column.label)) for column in table.columns.values()]
        rooms = labels[:3]
        for row in texts:
            rooms = [max(known, len(text)) for known, text in zip(rooms, row)]
        widths = labels[3:]
        for cells in rest:
            widths = [max(known, cell.cell_len) for known, cell in zip(widths, cells)]
        body = self.query_one("#releases_body")
        # the border, and the scroll bars shown: the table's when its rows pass its height
        # (max-height less the border and the header), the page's when it scrolls (both
        # were kept, 4 columns a name could have had, with neither shown)
        max_height = table.styles.max_height
        rows_room = (int(max_height.value) - 2 - table.header_height
                     if max_height is not None and max_height.is_cells else None)
        table_bar = rows_room is not None and len(texts) > rows_room
        reserve = (2 + (table.styles.scrollbar_size_vertical if table_bar else 0)
                   + (body.styles.scrollbar_size_vertical if body.show_vertical_scrollbar
                      else 0))
        screen_width = self.size.width or self.app.size.width
        room = screen_width - reserve - sum(width + pad for width in widths) - 3 * pad
        while sum(rooms) > room:
            wide = max(range(3), key=lambda at: rooms[at] - TEXT_MINS[at])
            if rooms[wide] <= TEXT_MINS[wide]:
                break                   # no room left: the table scrolls, the cuts marked
            rooms[wide] -= 1
        return rooms

    def on_resize(self, event: events.Resize) -> None:
        if self.releases:
            self._fill_table(self.query_one("#release_table", DataTable).cursor_row)
        self._show_selected()

    def _show_blockers(self) -> None:
        panel = self.query_one("#blockers", Static)
        if self.blockers is None:
            return
        if not self.blockers:
            same = [r for r in self.releases if release_scope(r) == self.scope]
            if same:
                # walk8: right after an approval this still said "Press a to approve a
                # release of it", as if none had been
                latest = same[-1]
                records = (latest.counts or {}).get("records")
                panel.update(Text(
                    f"Every QC gate passes ({scope_words(self.scope)}). Its newest release is "
                    f"{one_line(latest.name, 40)}@{one_line(latest.version, 20)}"
                    + (f" ({records:,} records)" if isinstance(records, int) else "")
                    + ": e exports the release under the cursor. Press a only for a new "
                      "version once the data has changed (a release of the same data asks "
                      "first).", style="green"))
                return
            panel.update(Text(f"Ready: every QC gate passes ({scope_words(self.scope)}) and you "
                              "are a curator. Press a to approve a release of it.",
                              style="green"))
            return
        has_model = self.qc_app.config.generator is not None
        # each blocker's wrapped lines under its words, not at column 0 (at 80 columns they
        # read as lines of their own)
        panel.update(Group(Text("A new release cannot be approved yet:", style="bold"),
                           *(Bullet(blocker_text(b, has_model)) for b in self.blockers)))

    def _selected(self) -> rel.ReleaseInfo | None:
        table = self.query_one("#release_table", DataTable)
        if not self.releases or not 0 <= table.cursor_row < len(self.releases):
            return None
        return self.releases[table.cursor_row]

    def _show_selected(self) -> None:
        info = self._selected()
        detail = self.query_one("#release_detail", Static)
        detail.border_title = "Details"
        if info is None:
            detail.update(Text("No releases yet. When every QC gate passes, a curator approves "
                               "one with a.", style="dim"))
        else:
            detail.update(render_release(info))

    @on(DataTable.RowHighlighted, "#release_table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_selected()

    # -- flags -----------------------------------------------------------------------
    class FlaggedLoaded(Message):
        """The flagged items that stop a release of ``scope`` (no override in force)."""

        def __init__(self, items: list[Any], scope: str) -> None:
            super().__init__()
            self.items = items
            self.scope = scope

    class FlagsOverridden(Message):
        def __init__(self, key: str, dimension: str, reason: str) -> None:
            super().__init__()
            self.key, self.dimension, self.reason = key, dimension, reason

    def action_override_flags(self) -> None:
        """``o``: a flagged item of the set shown is let through with a reason (curators), as
        ``qcstation release override`` does: the blocker no longer sends the curator to the
        shell."""
        problem = self.curator_problem()
        if problem is not None:
            self.notify(problem.replace("approve a release", "override flags"),
                        title="Not a curator", severity="warning", timeout=8)
            return
        self._load_flagged(self.scope)

    @work(thread=True, exclusive=True, exit_on_error=False, group="flags",
          description="Reading the flagged items")
    def _load_flagged(self, scope: str) -> None:
        from qcstation.core.release.flag_gate import flagged_items

        with self.qc_app.open_store() as store:
            items = flagged_items(store, scope, only_blocking=True)
        self.post_message(self.FlaggedLoaded(items, scope))

    @on(FlaggedLoaded)
    def _flagged_loaded(self, message: FlaggedLoaded) -> None:
        if not message.items:
            self.notify(f"No flagged item stops a release of {scope_words(message.scope)}.")
            return
        from screens.dialogs.override_flags import OverrideFlagsModal

        def chosen(result: tuple[Any, str] | None) -> None:
            if result is not None:
                self._override_flags(*result)

        self.app.push_screen(OverrideFlagsModal(message.items, scope_words(message.scope)),
                             callback=chosen)

    @work(thread=True, exit_on_error=False, group="flags", description="Overriding the flags")
    def _override_flags(self, item: Any, reason: str) -> None:
        from qcstation.core.release.flag_gate import override_flags

        with self.qc_app.open_store() as store:
            done = override_flags(store, item.seed_id, item.dimension, reason,
                                  actor=self.qc_app.annotator,
                                  curators=list(self.qc_app.settings.curators))
        self.post_message(self.FlagsOverridden(item.key, item.dimension, str(done["reason"])))

    @on(FlagsOverridden)
    def _flags_overridden(self, message: FlagsOverridden) -> None:
        self.notify(f"{message.key} {message.dimension}: its flags no longer stop the release "
                    f"({message.reason}).", title="Flags overridden")
        self.action_refresh()

    # -- approve ---------------------------------------------------------------------
    def curator_problem(self) -> str | None:
        """Why the current user may not approve (None when they are a curator)."""
        settings = self.qc_app.settings
        me = self.qc_app.annotator
        if not settings.curators:
            return ("No curators are configured, so nobody can approve a release. Add "
                    "curators = [\"account\"] under [qc] in qcstation.toml.")
        if not self.qc_app.is_curator:
            return (f"Only a curator can approve a release. Your account is {me}; the "
                    f"curators are {', '.join(settings.curators)}. Ask one of them to "
                    f"approve it.")
        return None

    def action_approve(self) -> None:
        problem = self.curator_problem()
        if problem is not None:
            self.query_one("#release_detail", Static).update(Text(problem, style="bold yellow"))
            self.notify(problem, title="Not a curator", severity="warning", timeout=8)
            return
        if self.blockers is None:
            self.notify("Still checking the QC gates; one moment.")
            return
        if self.blockers:
            self.notify("A release cannot be approved yet; the reasons are listed under "
                        "'New release'.", title="Blocked", severity="warning")
            return
        same = [r for r in self.releases if release_scope(r) == self.scope]
        latest = same[-1] if same else None
        name = latest.name if latest else (f"{self.scope}-rel" if self.scope else DEFAULT_NAME)
        versions = [r.version for r in self.releases if r.name == name]
        self.app.push_screen(
            ApproveReleaseModal(name, next_version(versions[-1] if versions else None),
                                scope=self.scope),
            callback=self._approve_chosen)

    def action_next_set(self) -> None:
        if len(self.scopes) < 2:
            self.notify("There is no derived set: a new release is of the working set. "
                        "Derive one from the dashboard (d).", title="Set")
            return
        self.scope = self.scopes[(self.scopes.index(self.scope) + 1) % len(self.scopes)]
        self.blockers = None
        self.query_one("#blockers", Static).update(Text(
            f"Checking the QC gates of {scope_words(self.scope)}…", style="dim"))
        self.action_refresh()

    def _approve_chosen(self, choice: tuple[str, str, str, str] | None) -> None:
        if choice is not None:
            self._approve(*choice)

    @work(thread=True, exit_on_error=False, group="releasers", description="Approving the release")
    def _approve(self, name: str, version: str, notes: str, splits: str = "set",
                 allow_identical: bool = False) -> None:
        with self.qc_app.open_store() as store:
            try:
                info = rel.approve_release(store, name, version, actor=self.qc_app.annotator,
                                           cfg=self.qc_app.config, notes=notes,
                                           allow_identical=allow_identical, scope=self.scope,
                                           splits=splits)
            except rel.IdenticalReleaseError as exc:
                self.post_message(self.Identical(name, version, notes, splits, str(exc)))
                return
        self.post_message(ReleaseApproved(info))

    class Identical(Message):
        """The release would repeat the last one: ask before approving it."""

        def __init__(self, name: str, version: str, notes: str, splits: str, text: str) -> None:
            super().__init__()
            self.name, self.version, self.notes, self.text = name, version, notes, text
            self.splits = splits

    @on(Identical)
    def _identical(self, message: Identical) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._approve(message.name, message.version, message.notes, message.splits,
                              True)

        self.app.push_screen(ConfirmModal("Identical release", message.text[:1].upper()
                                          + message.text[1:] + "\n\nPress y to approve it "
                                          "anyway, n or Esc to cancel."), callback=answered)

    @on(ReleaseApproved)
    def _approved(self, message: ReleaseApproved) -> None:
        info = message.release
        self.notify(f"Approved {info.name}@{info.version} "
                    f"({(info.counts or {}).get('records', '?')} records). Press e to export it.",
                    title="Release approved")
        self.select_next = (info.name, info.version)
        self.action_refresh()

    # -- export ----------------------------------------------------------------------
    def action_export(self) -> None:
        info = self._selected()
        if info is None:
            self.notify("No release to export yet.", severity="warning")
            return
        self._export(info.name, info.version)

    @work(thread=True, exit_on_error=False, group="exporters", description="Exporting the release")
    def _export(self, name: str, version: str) -> None:
        with self.qc_app.open_store() as store:
            path = rel.export_release(store, name, version)
        self.post_message(ReleaseExported(name, version, path))

    @on(ReleaseExported)
    def _exported(self, message: ReleaseExported) -> None:
        self.notify(f"Wrote {message.name}@{message.version} to {message.path.resolve()}",
                    title="Exported", timeout=8)
        self.action_refresh()

    # -- diff ------------------------------------------------------------------------
    def action_diff(self) -> None:
        info = self._selected()
        if info is None:
            self.notify("No release to compare yet.", severity="warning")
            return
        self._diff(info.name, info.version)

    @work(thread=True, exit_on_error=False, group="loaders-diff", description="Comparing releases")
    def _diff(self, name: str, version: str) -> None:
        with self.qc_app.open_store() as store:
            previous = rel.previous_version(store, name, version)
            diff = (rel.diff_releases(store, name, previous, version)
                    if previous is not None else {})
        self.post_message(ReleaseDiffed(name, previous or "", version, diff))

    @on(ReleaseDiffed)
    def _diffed(self, message: ReleaseDiffed) -> None:
        detail = self.query_one("#release_detail", Static)
        if not message.old:
            detail.update(Text(f"{message.name}@{message.new} is the first version; there is "
                               "nothing earlier to compare with."))
            return
        detail.update(render_diff(message.diff))
        detail.border_title = "Diff"

    def action_back(self) -> None:
        self.dismiss(None)
