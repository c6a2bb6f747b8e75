"""Issue 28.2: a line longer than its panel at 80 columns goes on indented, never at the
panel's edge where its rest reads as a line of its own (the dashboard's Team panel, the
review's gate line)."""

from __future__ import annotations

from pathlib import Path

from db import Store
from qcstation.app import make_app
from tests.app.conftest import ANNOTATOR, make_config, press_each, settle, static_text

SIZE = (80, 24)


def _paragraph(text: str, start: str) -> list[str]:
    """The line that starts with ``start`` and the lines after it up to the next line that
    starts at the left edge (or a blank line)."""
    lines = text.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith(start))
    block = [lines[first]]
    for line in lines[first + 1:]:
        if not line.strip() or not line.startswith(" "):
            break
        block.append(line)
    return block


def _hangs(block: list[str], text: str) -> None:
    assert len(block) >= 2, text                       # it does wrap at this width
    for line in block[1:]:
        assert line.startswith("  ") and line[2] != " ", text


async def test_the_team_panels_lines_go_on_indented_at_80_columns(qc_db: Path) -> None:
    config = make_config(curators=["alice"], dimensions=["arithmetic"], overlap_rate=0.0)
    app = make_app(qc_db, config=config, account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        team = app.screen.query_one("#team")
        text = static_text(team, width=team.content_region.width)
        _hangs(_paragraph(text, "Notation questions: kappa"), text)


async def test_the_reviews_lines_go_on_indented_at_80_columns(qc_db: Path) -> None:
    """The gate line (with a bound and a step after a reject) and the banner of an item
    looked back at."""
    from qcstation.core.review.decisions import decide, next_item

    with Store(qc_db) as store:               # a reject: the line gains a bound and a step
        item = next_item(store, "bob", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", reason="changes the answer")
    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.3)
    app = make_app(qc_db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "r")
        line = app.screen.query_one("#gate_line")
        text = static_text(line, width=line.content_region.width)
        _hangs(_paragraph(text, "Gate: not passed"), text)
        assert "(needs < 30%)" in text
        await press_each(pilot, "x", "2", "p")
        banner = app.screen.query_one("#verdict_line")
        text = static_text(banner, width=banner.content_region.width)
        _hangs(_paragraph(text, "Looking back: Rejected by you"), text)


async def test_a_gates_line_goes_on_under_its_dimension_at_80_columns(qc_db: Path) -> None:
    """Walked at 80x24: after a reject the QC gates panel's line 'NOT PASSED  Notation
    questions: 1 of 11 reviewed, 1 rejected; defect bound 100% from ...' went on at the
    panel's edge; its rest now starts under the dimension's name."""
    from qcstation.core.review.decisions import decide, next_item

    with Store(qc_db) as store:
        item = next_item(store, "bob", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", reason="changes the answer")
    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.3)
    app = make_app(qc_db, config=config, account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.screen.query_one("#gates")
        text = static_text(panel, width=panel.content_region.width)
        lines = text.splitlines()
        first = next(n for n, line in enumerate(lines) if line.startswith("NOT PASSED"))
        assert "defect bound" in lines[first] and "(must be below 30%)" not in lines[first], text
        rest = lines[first + 1]
        assert rest.startswith(" " * 12) and rest[12] != " " and "30%" in rest, text


async def test_a_runs_figures_stay_whole_at_80_columns(tmp_path: Path) -> None:
    """Walked at 80x24 after a reference run: the run's detail read 'LLM@Un not scored
    ACC@Re 100% (n=97)  ACC@Ar 100% (n=97)  ACC@R-t 100%' and '(n=97)  ACC@R-m ...' on the
    next line at column 0: a figure cut from its count. Each figure is whole on its line."""
    import re

    from tests.app.conftest import build_db, open_screen
    from tests.eval_rows import add_real_run

    db = build_db(tmp_path / "eval.db")
    with Store(db) as store:
        add_real_run(store, make_config(), "reference-model", limit=40)
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        from screens.runs import RunsScreen

        screen = await open_screen(pilot, RunsScreen())
        detail = screen.query_one("#run_detail")
        text = static_text(detail, width=detail.content_region.width)
        lines = text.splitlines()
        figures = [line for line in lines if "ACC@" in line or "(n=" in line]
        assert len(figures) >= 2, text                 # the figures take two lines here
        for line in figures:
            assert not line.startswith("("), text
            for name in re.findall(r"(ACC@[\w-]+|LLM@Un)", line):
                assert re.search(rf"{re.escape(name)} (\d+%?|–|not scored)( \(n=\d+\))?", line), text


async def test_the_robustness_head_goes_on_indented_at_80_columns(tmp_path: Path) -> None:
    """Walked at 80x24 (a reference run of the working set, b on its results): the head's
    'Reasoning ladder: operations of the formalization  (1/2, t: next)  F1: what the' went
    on with 'columns mean' at column 0. A wrapped head line goes on indented."""
    from screens.robustness import RobustnessScreen
    from tests.app.conftest import build_db, open_screen
    from tests.eval_rows import add_real_run

    db = build_db(tmp_path / "eval.db")
    with Store(db) as store:
        run_id = add_real_run(store, make_config(), "reference-model", limit=40)
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, RobustnessScreen([run_id]))
        title = screen.query_one("#robust_title")
        text = static_text(title, width=title.content_region.width)
        starts = [line[:20] for line in screen.head.plain.split("\n") if line]
        assert any("t: next" in line for line in screen.head.plain.split("\n")), text
        assert len(text.splitlines()) > len(starts), text      # a line does wrap here
        for line in text.splitlines():
            assert not line or line.startswith("  ") or any(
                line.startswith(start) for start in starts), text


async def test_the_guidelines_bullets_wrap_under_their_words(qc_db: Path) -> None:
    """Walked at 80x24: g on the review screen showed ' • Only numbers, variables' and then
    'and operations; no names,' at the pane's edge; each bullet now goes on under its words
    (in the pane and in F1's help)."""
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "g")
        pane = app.screen.query_one("#guidelines_text")
        text = static_text(pane, width=pane.content_region.width)
        lines = text.splitlines()
        first = next(n for n, line in enumerate(lines) if line.startswith(" • Only numbers"))
        assert not lines[first].rstrip().endswith("story."), text     # it wraps here
        assert lines[first + 1].startswith("   ") and lines[first + 1][3] != " ", text
        for line in lines:
            assert not line.startswith(("and operations", "for the answer", "the SMT-LIB")), text


async def test_the_items_place_stays_whole_on_the_progress_line(qc_db: Path) -> None:
    """Walked at 80x24: after a skip the progress line read 'Notation questions: 2 of 12
    reviewed, 1 rejected, 1 skipped  ·  gsm8k-61 (3 of' and '12)' on the next line. The
    item's place goes to the next line whole, indented."""
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=(64, 24)) as pilot:
        await press_each(pilot, "k")
        line = app.screen.query_one("#progress_line")
        text = static_text(line, width=line.content_region.width)
        lines = text.splitlines()
        assert len(lines) == 2 and "1 skipped" in lines[0], text
        assert lines[1].startswith("  ·  ") and lines[1].rstrip().endswith(" of 6)"), text
