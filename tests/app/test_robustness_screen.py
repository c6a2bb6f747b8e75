"""The robustness screen on the scripted model's runs (a real loopback server, real runs):
the tables show the figures the script implies, the charts draw, and the drill-down reads an
item with its parent and the transformation."""

from __future__ import annotations

from pathlib import Path

import pytest

from qcstation.app import make_app
from screens.robustness import RobustnessScreen
from tests.app.conftest import ANNOTATOR, flat, make_config, screen_text, settle
from tests.eval.robustness.helpers import copy_released
from tests.eval.robustness.test_scripted import scripted_runs

SIZE = (100, 30)


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_released(tmp_path_factory.getbasetemp(), tmp_path / "screen.db")


@pytest.fixture
def runs(db: Path, tmp_path: Path) -> dict[str, int]:
    return scripted_runs(db, tmp_path)      # outside the app's event loop


async def test_robustness_screen_tables_charts_and_drill_down(db: Path, runs: dict[str, int]) -> None:
    from db import Store

    with Store(db) as store:       # a name that does not contain its model ('m')
        store.conn.execute("UPDATE eval_runs SET name = 'baseline' WHERE id = ?",
                           (runs["dyn-rel"],))
        model = store.scalar("SELECT model FROM eval_runs WHERE id = ?", (runs["dyn-rel"],))
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")                       # dashboard -> results
        await settle(pilot)
        await pilot.press("b")                       # results -> robustness of every run
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RobustnessScreen) and screen.data is not None
        assert screen.run_ids == sorted(runs.values())
        while screen.data.dgs[screen.run].run_id != runs["dyn-rel"]:
            await pilot.press("r")
            await settle(pilot)
        text = flat(screen_text(app))
        # the head names the run with its model, and what it measured: release and protocol
        # (a named run's head hid its model; issue 28.5)
        head = screen.head.plain.splitlines()[0]
        dg = screen.data.dgs[screen.run]
        assert head.startswith(f"#{runs['dyn-rel']} baseline ({model}) on "), head
        assert " on dyn-rel@1" in head and "0-shot" in head and "2 samples" in head, head
        assert dg.protocol and dg.protocol in head, head
        # the variants table: ACC@Fi A_avg 66.7, A_wst 33.3, RR 0.500, RC 0.833 over 3 seeds (few:
        # marked), each with its Wilson interval (the script, worked out in tests/eval/robustness)
        assert "Variants (DynaMath)" in text
        assert "ACC@Fi 3† 12 66.7 [20.8-93.9] 33.3 [6.1-79.2] 0.500 [" in text
        assert "A_avg" in text                       # the chart's legend
        await pilot.press("t")                       # the next table: a ladder, with its curve
        await settle(pilot)
        assert "ladder" in flat(screen_text(app)).lower()
        await pilot.press("i")                       # the run's items
        await settle(pilot)
        text = flat(screen_text(app))
        assert "~dyn.v1" in text and "variant" in text
        await pilot.press("enter")                   # the first item, its parent, what changed
        await settle(pilot)
        text = flat(screen_text(app))
        assert "Parent gsm8k-" in text and "The transformation" in text
        assert "->" in text and "(written" in text       # a given: old -> new, as written
        await pilot.press("escape")
        await settle(pilot)
        assert "Items (12)" in flat(screen_text(app))
        while screen.data.dgs[screen.run].run_id != runs["pert-rel"]:
            await pilot.press("r")
            await settle(pilot)
        for _ in range(8):
            if "Perturbation 'noise'" in flat(screen_text(app)):
                break
            await pilot.press("t")
            await settle(pilot)
        text = flat(screen_text(app))
        assert "Perturbation 'noise'" in text and "ACC@Fi <- most 2† 100.0 [" in text
        assert "fixed by construction" in text      # the Ar drop under noise: not measured
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, RobustnessScreen)


async def test_at_80_columns_a_wide_table_says_what_it_cut_and_scrolls(
        db: Path, runs: dict[str, int]) -> None:
    """No column is cut silently (a memorisation count of 13 read as 1): the table says which
    columns it shows, and → brings the rest in view."""
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RobustnessScreen) and screen.data is not None
        while screen.data.dgs[screen.run].run_id != runs["dyn-rel"]:
            await pilot.press("r")
            await settle(pilot)
        headers = screen.data.tables[screen.run][screen.table].headers
        text = flat(screen_text(app))
        assert f"of {len(headers) - 1} shown · → shows the rest" in text, text
        # the table's rows in view at 24 rows: its note (8 lines here) is behind F1, where it
        # left the table no line (lane tui9)
        table = screen.data.tables[screen.run][screen.table]
        assert table.note and "F1: what the columns mean" in text, text
        assert str(table.rows[0][0]) in screen_text(app).split("Variants (DynaMath)")[-1]
        assert table.note.split(";")[0] not in text
        await pilot.press("f1")
        await settle(pilot)
        await pilot.press("end")             # the notes follow the keys
        await settle(pilot)
        assert flat(table.note)[:40] in flat(screen_text(app))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, RobustnessScreen)
        for _ in range(len(headers)):
            await pilot.press("right")
            await settle(pilot)
            if "→ shows the rest" not in flat(screen_text(app)):
                break
        text = flat(screen_text(app))
        assert f"-{len(headers) - 1} of {len(headers) - 1} shown" in text and "← goes back" in text
        assert str(headers[-1]).split()[0] in text       # the last column, wholly in view


async def test_the_first_table_shown_says_what_it_cut(db: Path, runs: dict[str, int]) -> None:
    """The table shown first, when the screen opens, is marked as the ones after it are: at
    80x24 the ladder's '5' column read '0.' with no note (the mark was made before the
    table had its width)."""
    from textual.widgets import DataTable

    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_screen("robustness", [runs["dyn-rel"]])     # its first table is wide
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RobustnessScreen) and screen.data is not None
        table = screen.query_one("#robust_table", DataTable)
        assert table.virtual_size.width > table.scrollable_content_region.width  # cut
        assert "shown · → shows the rest" in flat(screen_text(app)), flat(screen_text(app))


async def test_a_wide_table_shows_whole_columns_and_keeps_its_labels(
        db: Path, runs: dict[str, int]) -> None:
    """Walked at 80x24: the note said 'columns 1-5 of 11' counting the label column, and the
    column cut at the right edge showed its start ('1.000 [1.00', '0.' for 0.75). The label
    column stays when the others scroll, the table ends at the last whole column, and the
    note counts the value columns."""
    from textual.widgets import DataTable

    from screens.robustness import visible_columns

    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_screen("robustness", [runs["dyn-rel"]])     # its first table is wide
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RobustnessScreen) and screen.data is not None
        table = screen.query_one("#robust_table", DataTable)
        headers = screen.data.tables[screen.run][screen.table].headers
        label = str(screen.data.tables[screen.run][screen.table].rows[0][0])
        for step in range(len(headers)):
            widths = [c.get_render_width(table) for c in table.ordered_columns]
            chrome = table.outer_size.width - table.scrollable_content_region.width
            shown, _left = visible_columns(table, 80 - chrome)
            region = table.scrollable_content_region.width
            # no part of a column: the table ends where its last whole column ends
            assert region == widths[0] + sum(widths[at] for at in shown), (step, region, shown)
            text = flat(screen_text(app))
            assert f"columns {shown[0]}-{shown[-1]} of {len(headers) - 1} shown" in text, text
            assert label in screen_text(app).split("shown")[-1]        # the labels stay
            if shown[-1] == len(headers) - 1:
                break
            await pilot.press("right")
            await settle(pilot)
        assert shown[-1] == len(headers) - 1 and "← goes back" in flat(screen_text(app))


async def test_the_charts_series_read_apart_without_colour(db: Path, runs: dict[str, int]) -> None:
    """The ladder's curves were all ● (its legend '●● ACC@Re', '●● ACC@Fi') and the bars of
    A_avg and A_wst (new and parent's gold) were told apart by colour only, their legend
    without a mark. Each series has a mark of its own, shown beside it in the legend."""
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RobustnessScreen) and screen.data is not None
        seen = set()
        for _ in runs:                      # every run's tables and charts
            for _ in range(6):
                lines = screen_text(app).splitlines()
                legend = [line.split("┤", 1)[-1].split("│", 1)[0].strip() for line in lines
                          if "┤" in line and any(w in line for w in ("A_avg", "A_wst", "@"))]
                if len(legend) >= 2:
                    marks = [entry.split(" ", 1)[0] for entry in legend]
                    assert all(marks) and len(set(marks)) == len(marks), legend
                    seen.add("ladder" if "@" in legend[0] else "bars")
                await pilot.press("t")
                await settle(pilot)
            await pilot.press("r")
            await settle(pilot)
        assert "bars" in seen, seen
        # a ladder of two curves (the scripted runs' ladders have one): each its own mark
        import types

        from textual_plotext import PlotextPlot

        import qcstation.eval.robustness.figures as figures

        two = {"ACC@Re": ([1, 2, 3], [90.0, 60.0, 30.0]), "ACC@Fi": ([1, 2, 3], [80.0, 50.0, 40.0])}
        real = figures.ladder_series
        figures.ladder_series = lambda dg, ladder: two
        try:
            chart = screen.query_one("#robust_chart", PlotextPlot)
            chart.display = True
            screen._chart(chart, None, types.SimpleNamespace(
                key="ladder-ops", extra={"ladder": "ops"}, title="A ladder"))
            await settle(pilot)
        finally:
            figures.ladder_series = real
        lines = screen_text(app).splitlines()
        legend = [line.split("┤", 1)[-1].split("│", 1)[0].strip() for line in lines
                  if "┤" in line and "ACC@" in line]
        marks = [entry.split(" ", 1)[0] for entry in legend]
        assert len(marks) == 2 and len(set(marks)) == 2, legend
