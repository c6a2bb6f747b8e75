"""Issue 28.5 and 28.2 (walk28b): the protocol a run measured is named wherever runs are picked
or plotted, and a run's names take the room the terminal gives them.

Walked at 80x24 on the quickstart database: a ``--protocol single-prompt`` run beside a two-step
one on the same release read alike in the runs list's detail, the compare picker and the
charts' legend ('#1 reference · smart@1.0.0 · 3-shot, t=0' and '#4 reference · smart@1.0.0 ·
3-shot, t=0'); grown to 120 columns, the runs list kept its names cut beside 40 free cells, and
the robustness screen cut a release at 30 cells on a line with room for it."""

from __future__ import annotations

import re
from pathlib import Path

from db import Store
from qcstation.app import make_app
from qcstation.eval.protocols import protocol_label
from qcstation.eval.runs import create_run
from screens.charts import ChartsScreen
from screens.results import ResultsScreen
from tests.app.conftest import ANNOTATOR, build_db, make_config, open_screen, screen_text, settle
from tests.eval_rows import fill_run

SIZE = (80, 24)


def _run(store: Store, name: str | None, protocol: str, **kw: object) -> int:
    run_id = create_run(store, make_config(), model="reference", backend="reference", limit=4,
                        name=name, actor="tester", protocol=protocol, **kw)  # type: ignore[arg-type]
    fill_run(store, run_id)
    with store.transaction():
        store.execute("UPDATE eval_runs SET status = 'done', finished_at = started_at "
                      "WHERE id = ?", (run_id,))
    return run_id


def test_the_protocol_names_how_refinement_was_asked_and_what_an_earlier_run_added() -> None:
    spec = {"tasks": ["final", "refinement"], "shots": 3, "samples": 1, "temperature": 0.0}
    assert protocol_label({**spec, "protocol": {"refinement": "two-step"}}) == \
        "3-shot, t=0, 2-step R&R"
    assert protocol_label({**spec, "protocol": {"refinement": "single-prompt"}}) == \
        "3-shot, t=0, 1-prompt R&R"
    # a run made before the protocol was recorded asked refinement in one prompt
    assert protocol_label(spec) == "3-shot, t=0, 1-prompt R&R"
    # no refinement task: no refinement protocol
    assert protocol_label({**spec, "tasks": ["final"],
                           "protocol": {"refinement": None}}) == "3-shot, t=0"
    assert protocol_label({**spec, "tasks": ["final"], "refine": {
        "from": 2, "dimension": "reasoning"}}) == "3-shot, t=0, self-refine reasoning from #2"
    assert protocol_label({**spec, "tasks": ["final"], "round_trip": {"forward_run": 3}}) == \
        "3-shot, t=0, round trip of #3"
    # a spec without its tasks (a fragment, not a run's) is read as before
    assert protocol_label({"shots": 0, "samples": 1, "temperature": 0}) == "0-shot, t=0"


async def test_a_single_prompt_run_reads_apart_from_a_two_step_one(tmp_path: Path) -> None:
    """Two runs of one model on one set, one per refinement protocol: the compare picker, the
    charts' legend and the runs list's detail each say which is which (fails before: both
    read '· working set · 3-shot, t=0')."""
    from screens.dialogs.pick_run import PickRunModal

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        two = _run(store, None, "two-step")
        one = _run(store, None, "single-prompt")
        third = _run(store, None, "two-step", tasks=["final"])
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, ResultsScreen((third,)))
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, PickRunModal)
        text = screen_text(app)
        assert f"#{two} reference · working set · 3-shot, t=0, 2-step R&R " in text, text
        assert f"#{one} reference · working set · 3-shot, t=0, 1-prompt R&R " in text, text
        await pilot.press("escape")
        await open_screen(pilot, ChartsScreen([two, one, third]))
        legend = [line.strip() for line in screen_text(app).splitlines() if " #" in line
                  and "shot" in line]
        # (each line goes on with the run's notes: 'LLM@Un: 1 failed')
        assert [line.split(" ", 1)[1].split("  ")[0] for line in legend] == [
            f"#{two} reference · working set · 3-shot, t=0, 2-step R&R",
            f"#{one} reference · working set · 3-shot, t=0, 1-prompt R&R",
            f"#{third} reference · working set · 3-shot, t=0"], legend
        await pilot.press("escape")      # the charts, then the results: the dashboard
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("down")        # the newest first: the single-prompt run
        await settle(pilot)
        assert f"#{one} reference · working set · 3-shot, t=0, 1-prompt R&R" in screen_text(app)
        await pilot.press("down")
        await settle(pilot)
        assert f"#{two} reference · working set · 3-shot, t=0, 2-step R&R" in screen_text(app)


async def test_the_runs_list_and_the_robustness_head_take_the_room_of_a_new_width(
        tmp_path: Path) -> None:
    """A long release name: cut at 80 columns (its version kept), whole as soon as the
    terminal is 120 wide (fails before: the runs list kept its 80-column cut until its next
    poll, and then cut the release at 40 cells; the robustness head cut it at 30; the results'
    filter line dropped the release and the protocol)."""
    from screens.robustness import RobustnessScreen

    path = build_db(tmp_path / "eval.db")
    release = "dyn-relational-long-release-with-a-long-name"
    with Store(path) as store:
        run = _run(store, None, "two-step")
        with store.transaction():
            store.execute("UPDATE eval_runs SET spec = json_set(spec, '$.source', "
                          "json_object('release', ?, 'version', '1.0.0')) WHERE id = ?",
                          (release, run))
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        row = next(line for line in screen_text(app).splitlines() if f"│ #{run} " in line)
        assert "…@1.0.0" in row and re.search(r"\d%$", row.rstrip("│ ")), row
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        row = next(line for line in screen_text(app).splitlines() if f"│ #{run} " in line)
        assert f"#{run} reference  {release}@1.0.0  done" in row, row
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        row = next(line for line in screen_text(app).splitlines() if f"│ #{run} " in line)
        assert "…@1.0.0" in row and re.search(r"\d%$", row.rstrip("│ ")), row
        # the results' filter line names the run with its release cut and its protocol
        # whole (it read '#3 reference' alone, with 50 cells free)
        app.push_screen(ResultsScreen((run,)))
        await settle(pilot)
        line = screen_text(app).splitlines()[1].rstrip()
        assert line.startswith(f" Filters: #{run} reference · dyn-relational") and line.endswith(
            "…@1.0.0 · 3-shot, t=0, 2-step R&R"), line
        await pilot.press("escape")
        await open_screen(pilot, RobustnessScreen([run]))
        head = screen_text(app).splitlines()[2]
        assert head.startswith("on dyn-relational-long-release-with…@1.0.0 · 3-shot, t=0, "
                               "2-step R&R: 4 items"), head
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        head = screen_text(app).splitlines()[1]
        assert head.startswith(f"#{run} reference on {release}@1.0.0 · 3-shot, t=0, 2-step "
                               "R&R: 4 items"), head


def test_a_report_of_a_run_without_refinement_says_it_asked_none(tmp_path: Path) -> None:
    """The report's 'refinement protocol' of a run that asked no Reflection & Refinement read
    'n/a (error types and correction in one reply)' (fails before)."""
    from qcstation.eval.report import write_report

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        run = _run(store, None, "two-step", tasks=["final"])
        text = write_report(store, run, tmp_path / "rep", n_boot=20).read_text()
    # (markdown-escaped as the report writes every cell)
    assert r"| refinement protocol | n/a \(the run asked no Reflection &amp; Refinement\) |" in text


async def test_the_runs_table_at_80_columns_says_each_runs_protocol(tmp_path: Path) -> None:
    """Issue 28.5: at 80 columns the runs table showed each run's name and release, and its
    protocol only in the detail of the highlighted run: two runs of one model on one set,
    0-shot and 3-shot, read '#2 reference  working set  done' and '#1 reference  working
    set  done'. Each row now has its protocol's mark (P) and the legend under the table says
    each mark's protocol whole; the figures stay whole."""
    from screens.runs import RunsScreen

    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        a = _run(store, None, "two-step", shots=0)
        b = _run(store, None, "single-prompt", shots=3)
        c = _run(store, "baseline-probe-2026-12-02", "two-step", shots=0)
    app = make_app(path, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, RunsScreen())
        screen = app.screen
        assert isinstance(screen, RunsScreen) and len(screen.runs) == 3
        text = screen_text(app)
        lines = text.splitlines()
        marks = {}
        for run_id in (a, b, c):
            row = next(line for line in lines if re.search(rf"│ #{run_id} ", line))
            cells = row.strip("│ ").split()
            mark = next(cell for cell in cells if re.fullmatch(r"[A-Z]", cell))
            marks[run_id] = mark
            assert re.search(r" \d+% │$", row.rstrip()), row         # the last figure whole
        assert marks[a] == marks[c] != marks[b], marks
        legend = " ".join(text[text.index("P, protocol:"):].split())
        for run_id, protocol in ((a, "0-shot, t=0, 2-step R&R"),
                                 (b, "3-shot, t=0, 1-prompt R&R")):
            assert f"{marks[run_id]} {protocol}" in legend, legend
