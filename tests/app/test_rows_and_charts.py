"""Results rows and charts at 80 columns and at 1M (issue 28.2, 28.7): a run's name is cut only
where the row has no room; the filter line takes a second line only when it needs one; the
difficulty chart is drawn from the breakdown read once, also when t comes before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.app import make_app
from screens.charts import ChartsScreen
from screens.results import ResultsScreen
from tests.app.conftest import (ANNOTATOR, build_db, flat, make_config, open_screen, screen_text,
                                settle)
from tests.app.test_eval_screens import SIZE, _until, eval_db  # noqa: F401
from tests.eval_rows import add_real_run


def test_a_runs_name_is_cut_only_where_the_row_has_no_room() -> None:
    """Issue 28.2: the Run column cut every name at 16 cells, where the row had room, and at
    its end: two runs of one model on two dates read the same. The column takes the room the
    other columns leave; a cut keeps the run's number and the name's end."""
    from types import SimpleNamespace

    from qcstation.widgets.eval_views import page_cells, run_cell

    def row(label: str) -> Any:
        return SimpleNamespace(run_label=label, item_key="gsm8k-1234", sample_idx=0,
                               metric="ar", verdict="correct", score=None, extracted="33")

    names = ["#3 baseline-gpt-4o-mini-2024-07-18", "#14 baseline-gpt-4o-mini-2024-08-06"]
    wide = [c[0].plain for c in page_cells([row(n) for n in names], 116)]
    assert wide == names                                 # room: whole
    narrow = [c[0].plain for c in page_cells([row(n) for n in names], 44)]
    assert all(len(c) == 16 for c in narrow), narrow     # no room: cut
    assert narrow[0].startswith("#3 ") and narrow[0].endswith("07-18"), narrow
    assert narrow[1].startswith("#14 ") and narrow[1].endswith("08-06"), narrow
    middle = [c[0].plain for c in page_cells([row(n) for n in names], 60)]
    assert all(16 < len(c) < len(n) for c, n in zip(middle, names)), middle
    assert run_cell("#2 reference") == "#2 reference"


async def test_the_results_rows_name_each_run_whole_where_there_is_room(tmp_path: Path) -> None:
    path = build_db(tmp_path / "eval.db")
    names = ("baseline-gpt-4o-mini-2024-07-18", "baseline-gpt-4o-mini-2024-08-06")
    with Store(path) as store:
        for name in names:
            add_real_run(store, make_config(), name, limit=4)
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(120, 30)) as pilot:
        await open_screen(pilot, ResultsScreen())
        rows = [line for line in screen_text(app).splitlines() if "gsm8k-" in line]
        assert rows and all(f"│ #1 {names[0]}  gsm8k-" in line for line in rows[:3]), rows
        await pilot.resize_terminal(80, 24)              # no room: cut, ends kept
        await settle(pilot)
        rows = [line for line in screen_text(app).splitlines() if "gsm8k-" in line][:3]
        assert all(f"#1 {names[0]}" not in line and line.startswith("│ #1 ")
                   and "…" in line.split("gsm8k-")[0] and "07-18  gsm8k-" in line
                   for line in rows), rows


async def test_the_filter_line_grows_and_keeps_its_height(eval_db: Path) -> None:
    """A filter that fits on the line is drawn without a layout of the screen; one that does
    not fit still takes a second line, and the line keeps that height when its filters fit on
    one again (issue 28, at 1M scores: r and x laid the screen out and painted it twice): the
    line freed shows the filter keys the footer has no room for."""
    import dataclasses

    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, ResultsScreen())
        line = screen.query_one("#filter_line")
        await pilot.press("m")
        await settle(pilot)
        assert line.size.height == 1 and "Filters: LLM@Un" in screen_text(app)
        screen.filters = dataclasses.replace(screen.filters, verdict="unparseable",
                                             source="a-long-source-name",
                                             difficulty="a-long-level-name",
                                             text="many words to find in the responses")
        screen._show_filters()
        await settle(pilot)
        assert line.size.height == 2 and "F1: filter keys" in screen_text(app)
        screen.filters = dataclasses.replace(screen.filters, source=None, difficulty=None,
                                             text="")
        screen._show_filters()
        await settle(pilot)
        assert line.size.height == 2
        shown = screen_text(app).splitlines()
        assert shown[1].strip() == "Filters: LLM@Un · unparseable  F1: filter keys", shown[1]
        assert shown[2].strip() == ("f failed  m metric  v verdict  o source  d level  r run  "
                                    "x clear  / search"), shown[2]
        await pilot.resize_terminal(60, 24)    # another width: the line as its filters need
        await settle(pilot)
        assert line.size.height == 1



async def test_t_while_the_breakdown_is_read_draws_it_when_it_comes(
        eval_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A t pressed before the breakdown is read says so, then draws the chart when it comes
    (the read held on an Event: no timing)."""
    import threading

    from qcstation.eval import charts as chartdata

    gate = threading.Event()
    by_difficulty_all = chartdata.by_difficulty_all

    def held(store: Any, run_ids: Any, **kw: Any) -> Any:
        assert gate.wait(60)
        return by_difficulty_all(store, run_ids, **kw)

    monkeypatch.setattr(chartdata, "by_difficulty_all", held)
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ChartsScreen([1, 2]))
        screen = app.screen
        assert isinstance(screen, ChartsScreen)
        await _until(pilot, lambda: screen.data is not None)
        await pilot.press("t")
        await pilot.pause()
        assert "Reading the scores by difficulty" in screen_text(app)
        gate.set()
        await settle(pilot)
        text = screen_text(app)
        assert "ACC@Fi by difficulty" in text and "Reading the scores" not in text


def test_run_and_release_cuts_keep_what_tells_them_apart() -> None:
    """Issue 28.2/28.5: the runs table read 'variants-re…' for every version of a release and
    '#3 baseline-gpt-4…' for runs of one model on two dates; the chart legend lost the
    protocol ('· 0-s…'), the part that told two runs on one release apart."""
    from qcstation.widgets.eval_views import release_cell, run_line

    assert release_cell("variants-rel@1.0.0", 15) == "variants…@1.0.0"
    assert release_cell("variants-rel@1.10.0", 15) != release_cell("variants-rel@1.1.0", 15)
    assert release_cell("working set", 15) == "working set"
    label = ("#3 baseline-gpt-4o-mini-2024-08-06 (reference) · variants-rel@1.0.0 · "
             "0-shot, t=0")
    line = run_line(label, 74)
    assert len(line) == 74 and line.startswith("#3 baseline")
    assert line.endswith("-08-06 (reference) · variants-rel@1.0.0 · 0-shot, t=0"), line
    assert run_line("#1 reference · smart@1.0.0 · 3-shot, t=0", 74) == \
        "#1 reference · smart@1.0.0 · 3-shot, t=0"


async def test_runs_table_and_chart_legend_tell_two_runs_of_one_model_apart(
        tmp_path: Path) -> None:
    path = build_db(tmp_path / "eval.db")
    names = ("baseline-gpt-4o-mini-2024-07-18", "baseline-gpt-4o-mini-2024-08-06")
    with Store(path) as store:
        add_real_run(store, make_config(), names[0], limit=4)
        add_real_run(store, make_config(), names[1], limit=4, shots=0)
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        rows = [line for line in screen_text(app).splitlines() if "│ #" in line][:2]
        # the protocols differ: each row's mark (P) says which (0-shot B, 3-shot A)
        assert "…-08-06  working set  B " in rows[0] and "…-07-18  working set  A " in rows[1], \
            rows
        await pilot.press("c")
        await settle(pilot)
        legend = [line for line in screen_text(app).splitlines() if "● #" in line or "■ #" in line]
        assert len(legend) == 2, legend
        # each with its refinement protocol (walk28b: a single-prompt run read as a two-step one)
        assert legend[0].rstrip().endswith("3-shot, t=0, 2-step R&R") and "07-18" in legend[0], \
            legend
        assert legend[1].rstrip().endswith("0-shot, t=0, 2-step R&R") and "08-06" in legend[1], \
            legend


async def test_the_robustness_head_names_the_run_whole_where_there_is_room(
        tmp_path: Path) -> None:
    """Issue 28.2: the robustness screen cut a run's title at 30 cells at its end ('#3
    baseline-gpt-4o-mini-2024-…'), losing the part that told two runs apart, on a line with
    room for all of it."""
    from screens.robustness import RobustnessScreen

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        run = add_real_run(store, make_config(), "baseline-gpt-4o-mini-2024-08-06", limit=4)
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, RobustnessScreen([run]))
        lines = screen_text(app).splitlines()
        # the run whole with its model on its line, what it measured (release, protocol) on
        # the next: together they have no room at 80 columns (issue 28.5)
        assert lines[1].rstrip() == f"#{run} baseline-gpt-4o-mini-2024-08-06 (reference)", lines
        assert lines[2].startswith("on working set · 3-shot, t=0, 2-step R&R: 4 items"), lines


async def test_the_compare_picker_keeps_what_each_run_measured(tmp_path: Path) -> None:
    """Issue 28.5: the compare picker cut a run's label at its end ('… · working se…'), losing
    its release and protocol; they stay whole, and only a long name's middle is cut."""
    from screens.dialogs.pick_run import PickRunModal

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        first = add_real_run(store, make_config(), "short", limit=4)
        for name in ("baseline-gpt-4o-mini-2024-07-18", "baseline-gpt-4o-mini-2024-08-06"):
            add_real_run(store, make_config(), name, limit=4, shots=0)
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, ResultsScreen((first,)))
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, PickRunModal)
        lines = [line for line in screen_text(app).splitlines() if " #" in line and "·" in line
                 and "working set" in line and "Filters:" not in line]
        assert len(lines) == 2, lines
        for line, end in zip(lines, ("18 (reference)", "06 (reference)")):
            assert f"{end} · working set · 0-shot, t=0" in line, lines


async def test_side_by_side_names_both_runs_and_what_each_measured(tmp_path: Path) -> None:
    """Issue 28.5: the side-by-side panes named a run cut at its end ('…2024-08-0…') and not
    what it measured; the prompts of a 0-shot and a 3-shot run differed with no reason shown."""
    from screens.side_by_side import SideBySideScreen

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        a = add_real_run(store, make_config(), "baseline-gpt-4o-mini-2024-08-06", limit=4,
                         shots=0)
        b = add_real_run(store, make_config(), "other", limit=4)
        seed = int(store.scalar("SELECT seed_id FROM eval_items WHERE run_id = ? AND role = "
                                "'eval' LIMIT 1", (a,)))
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, SideBySideScreen(a, b, seed))
        text = screen_text(app)
        assert "4-08-06 (reference) ─" in text and f"#{a} baselin" in text, text
        # at 80 columns each pane's 32 cells keep the shots, temperature and refinement
        # protocol whole and cut the release's middle (walk28b)
        assert "work…g set · 0-shot, t=0, 2-step ─" in text, text
        assert "work…g set · 3-shot, t=0, 2-step ─" in text, text
    # a run that did not evaluate the item says so with its whole label, wrapped in its pane
    # (walk9: cut at 40 cells, '#1 probe-nightly · smart@1.0.0 · 3-shot… did not evaluate')
    with Store(path) as store:
        c = add_real_run(store, make_config(), "baseline-gpt-4o-mini-2024-09-30", limit=1)
        other = int(store.scalar("SELECT seed_id FROM eval_items WHERE run_id = ? AND role = "
                                 "'eval' AND seed_id NOT IN (SELECT seed_id FROM eval_items "
                                 "WHERE run_id = ?) LIMIT 1", (a, c)))
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, SideBySideScreen(a, c, other))
        pane = app.screen.query_one("#side_right").region
        text = flat("\n".join(line[pane.x:pane.right] for line in
                              screen_text(app).splitlines()[pane.y:pane.bottom]))
        assert (f"#{c} baseline-gpt-4o-mini-2024-09-30 (reference) · working set · 3-shot, "
                "t=0, 2-step R&R did not evaluate this item.") in text, text


async def test_the_filter_line_names_the_run_with_the_room_it_has(tmp_path: Path) -> None:
    """Issue 28.2: the filter line cut the chosen run's label at 40 cells, at its end
    ('#1 baseline-gpt-4o-mini-2024-08-06 (ref…'), on a line with room for all of it. It takes
    the room the line has (whole at 120 columns, with its release and protocol); where there is
    none (80 columns) only the name's middle is cut: its number, its end and its model stay.
    At 80 columns the run leaves no room for another filter, so it has a line of its own and
    the other filters the next, with or without one set: a filter key (f) does not change the
    line's height (issue 28, at 1M seeds: each change laid the screen out twice more)."""
    path = build_db(tmp_path / "eval.db")
    name = "baseline-gpt-4o-mini-2024-08-06"
    with Store(path) as store:
        run = add_real_run(store, make_config(), name, limit=4)
    label = f"#{run} {name} (reference) · working set · 3-shot, t=0, 2-step R&R"
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(120, 30)) as pilot:
        await open_screen(pilot, ResultsScreen((run,)))
        # whole, on a line of its own beside F1 (with its refinement protocol, walk28b)
        line, below = screen_text(app).splitlines()[1:3]
        assert line.strip() == f"Filters: {label}", line
        assert below.strip() == "no other filter  F1: filter keys", below
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        line, below = screen_text(app).splitlines()[1:3]
        assert line.startswith(f" Filters: #{run} base") and "…" in line, line
        assert line.rstrip().endswith("8-06 (reference) · working set · 3-shot, t=0, 2-step R&R"), \
            line
        assert below.strip() == "no other filter  F1: filter keys", below
        assert app.screen.query_one("#filter_line").size.height == 2
        await pilot.press("f")
        await settle(pilot)
        assert screen_text(app).splitlines()[1] == line
        assert screen_text(app).splitlines()[2].strip() == "failed only  F1: filter keys"
        assert app.screen.query_one("#filter_line").size.height == 2
        table = app.screen.query_one("#results_table")
        top = table.region.y
        await pilot.press("r")          # the run's own line freed: the height stays
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen) and screen.filters.run_ids == ()
        assert screen.query_one("#filter_line").size.height == 2
        assert table.region.y == top
        assert screen_text(app).splitlines()[1].strip() == "Filters: failed only  F1: filter keys"
        assert screen_text(app).splitlines()[2].strip().startswith("f failed  m metric")


def test_a_run_on_a_short_line_keeps_its_name_and_model() -> None:
    """Where a line has no room for a run's release and protocol beside a readable name, the
    name and model stay whole ('#1 gpt-4o-mini (r… set · 3-shot, t=0' kept neither); a long
    name keeps its date and model ('#3 basel…08-06 (gpt-4o-mini)')."""
    from qcstation.widgets.eval_views import run_cell, run_fit

    assert run_fit("#1 gpt-4o-mini (reference) · working set · 3-shot, t=0", 35) == \
        "#1 gpt-4o-mini (reference)"
    assert run_fit("#1 gpt-4o-mini (reference) · working set · 3-shot, t=0", 60) == \
        "#1 gpt-4o-mini (reference) · working set · 3-shot, t=0"
    cut = run_cell("#3 baseline-2024-08-06 (gpt-4o-mini)", 30)
    assert len(cut) == 30 and cut.startswith("#3 bas") and cut.endswith("08-06 (gpt-4o-mini)"), cut
    # walk9: with no room for the whole model, the whole was cut as one name and read as one
    # ('#2 probe-nightly-…-context-2026)', the model's '(' cut out); each is cut on its own
    cut = run_cell("#2 probe-nightly-large-context (probe-large-context-2026)", 32)
    assert len(cut) == 32 and cut.count("(") == 1 and cut.endswith(")"), cut
    name, _, model = cut.partition(" (")
    assert name.startswith("#2 probe-") and name.endswith("ontext") and "…" in name, cut
    assert model.startswith("probe-") and model.endswith("2026)") and "…" in model, cut


async def test_the_provenance_under_the_item_takes_the_panes_width(tmp_path: Path) -> None:
    """Issue 28.2: the line under the item pane (how the run measured) was cut at 110 cells,
    then at the pane's width: 118 characters lost their end at 120 columns. It is whole on the
    pane's border where it fits, else whole at the end of the item, wrapped, and moved again
    for a new width (lane tui9)."""
    from qcstation.eval.provenance import describe

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        run = add_real_run(store, make_config(), "baseline-gpt-4o-mini-2024-08-06", limit=4)
        whole = describe(store, run).line()
    assert len(whole) > 110
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(len(whole) + 6, 30)) as pilot:
        await open_screen(pilot, ResultsScreen())
        bottom = screen_text(app).splitlines()[-2]
        assert bottom == f"╰─ {whole} ─╯", bottom
        for width in (len(whole) + 5, 120, 80):
            await pilot.resize_terminal(width, 30)
            await settle(pilot)
            lines = [line.rstrip() for line in screen_text(app).splitlines()]
            assert "…" not in lines[-2] and whole[:20] not in lines[-2], lines
            await pilot.click("#item_pane")
            await pilot.press("end")                    # whole at the item's end, wrapped
            await settle(pilot)
            pane = " ".join(line.strip("│ ") for line in screen_text(app).splitlines())
            assert f"How the run measured: {whole}" in " ".join(pane.split()), (width, pane)
        await pilot.resize_terminal(len(whole) + 6, 30)
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert lines[-2] == f"╰─ {whole} ─╯", lines        # back on the border, no line under


async def test_the_difficulty_bars_of_each_run_read_apart_without_colour(eval_db: Path) -> None:
    """Issue 28.2: the difficulty chart's bars of two runs differed only by colour. Each run's
    bars have their own fill, and the legend shows it beside the run."""
    from screens.charts import MARKS

    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ChartsScreen([1, 2]))
        screen = app.screen
        assert isinstance(screen, ChartsScreen)
        await _until(pilot, lambda: screen.data is not None)
        await pilot.press("t")
        await _until(pilot, lambda: "Reading the scores" not in screen_text(app))
        await settle(pilot)
        lines = screen_text(app).splitlines()
        legend = [line for line in lines if " #" in line and "shot" in line]
        assert len(legend) == 2, lines
        marks = [line.split(" #")[0].strip() for line in legend]
        assert sorted(marks) == [MARKS[0] * 2, MARKS[1] * 2], legend
        chart = "\n".join(line for line in lines if line not in legend)
        assert MARKS[0] * 2 in chart and MARKS[1] * 2 in chart, chart


async def test_the_dimension_points_of_each_run_read_apart_without_colour(eval_db: Path) -> None:
    """The dimension chart drew every run's points as ● and its legend named each run with
    ●: two runs differed only by colour. Each run has its own point mark, in the chart and
    beside the run in the legend."""
    from screens.charts import POINT_MARKS

    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ChartsScreen([1, 2]))
        screen = app.screen
        assert isinstance(screen, ChartsScreen)
        await _until(pilot, lambda: screen.data is not None)
        await settle(pilot)
        lines = screen_text(app).splitlines()
        legend = [line for line in lines if " #" in line and "shot" in line]
        assert len(legend) == 2, lines
        marks = [line.split(" #")[0].strip() for line in legend]
        assert marks == [POINT_MARKS[0], POINT_MARKS[1]] and marks[0] != marks[1], legend
        chart = "\n".join(line for line in lines if line not in legend)
        assert POINT_MARKS[0] in chart and POINT_MARKS[1] in chart, chart


async def test_a_zero_bar_and_a_level_without_data_read_apart(
        eval_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lane tui9 (issue 28.2): on the difficulty chart a level at 0% and a level with no score
    both drew no bar, the same without colour. The legend says which is which, per run."""
    import dataclasses

    from qcstation.eval import charts as chartdata

    by_difficulty_all = chartdata.by_difficulty_all
    cut: dict[str, str] = {}

    def one_zero_one_missing(store: Any, run_ids: Any, **kw: Any) -> Any:
        out = by_difficulty_all(store, run_ids, **kw)
        levels, runs = out["fi"]
        first, last = levels[0], levels[-1]
        runs[0].points[first] = dataclasses.replace(runs[0].points[first], value=0.0)
        del runs[1].points[last]
        cut.update(zero=first, none=last)
        return out

    monkeypatch.setattr(chartdata, "by_difficulty_all", one_zero_one_missing)
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ChartsScreen([1, 2]))
        screen = app.screen
        assert isinstance(screen, ChartsScreen)
        await _until(pilot, lambda: screen.data is not None)
        await pilot.press("t")
        await _until(pilot, lambda: "Reading the scores" not in screen_text(app))
        await settle(pilot)
        lines = screen_text(app).splitlines()
        runs = [n for n, line in enumerate(lines) if " #" in line and "shot" in line]
        assert len(runs) == 2, lines
        first_run = lines[runs[0] + 1:runs[1]]
        second_run = lines[runs[1] + 1:]
        assert any(f"0% (no bar): {cut['zero']}" in line for line in first_run), lines
        assert not any("no data" in line for line in first_run), lines
        assert any(f"no data (no bar): {cut['none']}" in line for line in second_run), lines
        assert not any("0% (no bar)" in line for line in second_run), lines


async def test_the_runs_table_shows_every_score_whole_at_80_columns(tmp_path: Path) -> None:
    """Walked at 80x24: the runs table's last score was cut at the border ('100%' read '1'),
    the Run and Items-from columns keeping 18 and 15 cells. They give up what the scores
    need; every column shows whole."""
    from textual.widgets import DataTable

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        add_real_run(store, make_config(), "baseline-gpt-4o-mini-2024-07-18", limit=4)
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        table = app.screen.query_one("#runs_table", DataTable)
        assert table.max_scroll_x == 0, (table.virtual_size, table.scrollable_content_region)
        row = next(line for line in screen_text(app).splitlines() if "│ #" in line)
        assert row.rstrip().removesuffix("│").rstrip().endswith("%"), row
        # the name cut in its middle, its end kept ('#1 baselin…24-07-18')
        name = row.split("#1 ", 1)[1].split("  ", 1)[0]
        assert "…" in name and name.endswith("4-07-18"), row


async def test_a_derived_items_name_is_whole_in_the_rows_where_there_is_room(
        eval_db: Path) -> None:
    """walk7: at 80 columns the results rows read 'gsm8k-1~vari….v1' (the transform lost)
    beside 20 empty cells; the Item column takes the room the other columns leave, and the
    columns' labels are counted ('Extracted' was cut to 'Ex' when they were not)."""
    with Store(eval_db) as store:
        store.conn.execute("UPDATE eval_items SET item_key = 'gsm8k-' || seed_id || "
                           "'~ladder.v' || (seed_id % 9 + 1)")
        keys = {str(r["item_key"]) for r in store.query("SELECT item_key FROM eval_items")}
    assert all(len(key) > 16 for key in keys), keys
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, ResultsScreen())
        rows = [line for line in screen_text(app).splitlines() if "gsm8k-" in line
                and line.startswith("│ #")]
        assert rows, screen_text(app)
        for line in rows:
            shown = next(word for word in line.split() if word.startswith("gsm8k-"))
            assert shown in keys, (shown, line)
        assert "Extracted" in screen_text(app)


async def test_a_named_run_shows_its_model_in_the_runs_list_at_80_columns(
        eval_db: Path) -> None:
    """walk8: the runs list named a run by its name alone ('#1 probe…ghtly'), its model
    only in the detail of the run under the cursor. A named run's model is the line under
    its name (issue 28.5: the curator sees the model of each run where runs are picked)."""
    from textual.widgets import DataTable

    from screens.runs import RunsScreen

    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        table = screen.query_one("#runs_table", DataTable)
        lines = screen_text(app).splitlines()
        for number, name in ((1, "gpt-4o-mini"), (2, "qwen2.5-7b")):
            at = [n for n, line in enumerate(lines) if f"#{number} {name}" in line]
            assert at, lines
            assert "reference" in lines[at[0] + 1][:22], lines[at[0]:at[0] + 2]
        # the figures keep their room: the last score whole (no column cut)
        assert table.max_scroll_x == 0, table.virtual_size


async def test_a_runs_name_takes_the_room_the_figures_leave(eval_db: Path) -> None:
    """walk9: the runs list cut a run's name at 18 cells ('#1 probe…ghtly') where the row had
    room for more, and a run once shown 'running' kept the Status column a cell wider after
    it ended (an auto-width column only grows), a cell the names' widths did not count: the
    last score was cut. A name now takes every cell the figures leave, and is cut (in its
    middle) only when it needs more; every figure stays whole."""
    from textual.coordinate import Coordinate
    from textual.widgets import DataTable

    from qcstation.messages import EvalRunsLoaded
    from screens.runs import RunsScreen

    name = "probe-nightly-large-context-window-2026"
    with Store(eval_db) as store:
        store.execute("UPDATE eval_runs SET name = ? WHERE id = 1", (name,))
    for size in (SIZE, (120, 40)):
        app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await pilot.press("v")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            # run 2 shown going on, then ended: the Status column back to its cells' width
            screen.active_run = 2
            screen._show_runs(EvalRunsLoaded(list(screen.runs)))
            table = screen.query_one("#runs_table", DataTable)
            status = table.ordered_columns[2]
            for _ in range(1000):          # the table measures its cells when idle
                if status.content_width == len("running"):
                    break
                await pilot.pause()
            assert status.content_width == len("running"), status
            screen.active_run = None
            screen._show_runs(EvalRunsLoaded(list(screen.runs)))
            # as the rows are added, before the table measures them (when idle; never under a
            # dialog): each column as wide as its widest cell, not squeezed to its label
            # (walk9: 'Done' read '480/' over '480' under the quit dialog)
            for n, column in enumerate(table.ordered_columns):
                cells = [table.get_cell_at(Coordinate(row, n)) for row in range(table.row_count)]
                widest = max([column.label.cell_len,
                              *(max(len(line) for line in cell.plain.split("\n")) for cell in cells)])
                assert column.content_width == widest, (str(column.label), column.content_width)
            await settle(pilot)
            table = screen.query_one("#runs_table", DataTable)
            assert table.max_scroll_x == 0, (table.virtual_size, table.size)
            line = next(line for line in screen_text(app).splitlines() if "#1 " in line)
            shown = line.split("#1 ", 1)[1].split("  ", 1)[0]
            used = sum(column.get_render_width(table) for column in table.ordered_columns)
            if size == SIZE:
                # cut, keeping both ends, and not a cell of the row left over
                assert shown != name and shown.startswith("probe") and shown.endswith("2026")
                assert used == table.scrollable_content_region.width, (used, line)
            else:
                assert shown == name, line
            assert line.rstrip(" │").endswith("%"), line       # the last score whole


async def test_a_filter_key_pressed_before_its_choices_are_read_says_so(
        eval_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """walk8: r pressed as the results opened did nothing and said nothing: the runs it
    cycles through are read after the first page (0.1-0.3 s at 1M scores). Until they are,
    r, o and d say so; once read, r filters."""
    from qcstation.messages import ResultsCounted
    from tests.app.conftest import notifications

    async def until(done: Any) -> None:     # polled: the screen's page never comes here
        for _ in range(2000):
            if done():
                return
            await pilot.pause()
        raise AssertionError("never got there")

    # the screen's reads never run: it stays as it opens, its choices unread
    monkeypatch.setattr(ResultsScreen, "_read_page", lambda self, *args, **kwargs: None)
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = ResultsScreen()
        app.push_screen(screen)
        await until(lambda: app.screen is screen and screen.is_mounted)
        await pilot.press("r")
        await until(lambda: any("Still reading the runs of the results: press r again" in n
                                for n in notifications(app)))
        assert screen.filters.run_ids == ()
        screen.post_message(ResultsCounted(screen.filters, 1, {
            "source": [], "difficulty": [], "runs": [(1, "#1 gpt-4o-mini")]}, None))
        await until(lambda: screen.choices_read)
        await pilot.press("r")
        await until(lambda: tuple(screen.filters.run_ids) == (1,))


async def test_the_compare_picker_uses_the_room_at_120_columns(tmp_path: Path) -> None:
    """The compare picker stayed 60 cells wide at 120 columns: a run's line that fitted the
    terminal was cut in its name ('#2 baseline…24-07-18 (reference) · …'). It is as wide as
    its longest line where there is room, and such a line reads whole."""
    from screens.dialogs.pick_run import PickRunModal

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        first = add_real_run(store, make_config(), "short", limit=4)
        runs = [add_real_run(store, make_config(), name, limit=4, shots=0)
                for name in ("baseline-gpt-4o-mini-2024-07-18", "baseline-gpt-4o-mini-2024-08-06")]
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_screen(pilot, ResultsScreen((first,)))
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, PickRunModal)
        text = screen_text(app)
        for run, name in zip(runs, ("baseline-gpt-4o-mini-2024-07-18",
                                    "baseline-gpt-4o-mini-2024-08-06")):
            whole = f"#{run} {name} (reference) · working set · 0-shot, t=0"
            assert len(whole) > 60 and whole in text, text


async def test_an_empty_chart_says_there_is_no_data_and_what_makes_some(tmp_path: Path) -> None:
    """Issue 28: the charts with no run (c on an empty runs screen), or with runs not scored
    yet, drew an empty frame: no axes, no words. Each chart now says there is no data, in the
    frame, and its legend what makes some; once a run is scored, neither is said."""
    import asyncio

    from qcstation.eval.evaluate import run_and_score
    from qcstation.eval.runs import create_run

    path = build_db(tmp_path / "eval.db")
    cfg = make_config()
    app = make_app(path, config=cfg, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, ChartsScreen([]))
        for chart in ("dimensions", "difficulty"):
            text = flat(screen_text(app))
            assert "No data: no evaluation run yet" in text, (chart, text)
            assert "An evaluation run makes them: Esc, then n on the runs screen" in text, text
            await pilot.press("t")
            await settle(pilot)
    with Store(path) as store:
        run_id = create_run(store, cfg, model="reference", tasks=["final"], shots=0, limit=4)
    await asyncio.to_thread(run_and_score, path, run_id, cfg, score=False)
    app = make_app(path, config=cfg, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, ChartsScreen([run_id]))
        text = flat(screen_text(app))
        assert "No data: these runs have no scores yet" in text, text
        assert "scored by Enter on the runs screen" in text, text
    await asyncio.to_thread(run_and_score, path, run_id, cfg)
    app = make_app(path, config=cfg, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, ChartsScreen([run_id]))
        assert "No data" not in flat(screen_text(app))
        assert "No scores yet" not in flat(screen_text(app))


def test_a_pages_run_and_item_names_are_cut_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """A results page of 50 rows of one run and five items cuts the run's name once and each
    item's name at most twice (to measure it, then at its column's width), not once a row,
    into the same cells."""
    from types import SimpleNamespace

    from qcstation.widgets import eval_views

    rows = [SimpleNamespace(run_label="#3 baseline-gpt-4o-mini-2024-07-18",
                            item_key=f"gsm8k-{i % 5}~variant.v{i % 5}", sample_idx=i % 3,
                            metric="ar", verdict="wrong" if i % 4 else "correct", score=None,
                            extracted=str(i)) for i in range(50)]
    expected = [tuple(t.plain for t in c) for c in eval_views.page_cells(rows, 80)]
    cuts: list[str] = []
    run_cell, keep_ends = eval_views.run_cell, eval_views.keep_ends

    def cut_run(label: object, width: int = eval_views.RUN_WIDTH) -> str:
        cuts.append("run")
        return run_cell(label, width)

    def cut_item(item: object, width: int) -> str:
        cuts.append("item")
        return keep_ends(item, width)

    monkeypatch.setattr(eval_views, "run_cell", cut_run)
    monkeypatch.setattr(eval_views, "keep_ends", cut_item)
    cells = eval_views.page_cells(rows, 80)
    assert cuts.count("run") == 1 and cuts.count("item") <= 10, cuts
    assert [tuple(t.plain for t in c) for c in cells] == expected
    assert expected[7][1:] == ("gsm8k-2~variant.v2", "1", "Ar", "wrong", "7")
