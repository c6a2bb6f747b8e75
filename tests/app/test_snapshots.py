"""Snapshot tests at 80x24 on deterministic seeded data (pytest-textual-snapshot).

The database is built by ``tests.factories`` and the sample drawn with a fixed RNG seed,
so every screen shows the same items; there is no clock in the header and notifications
are not rendered headless. Update with ``--snapshot-update`` only after looking at the
report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from qcstation.app import make_app
from tests.app.conftest import ANNOTATOR, make_config, settle

SIZE = (80, 24)


async def _settled(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    pilot.app.clear_notifications()  # toasts time out: never part of a snapshot


def test_dashboard(snap_compare: Any, qc_db: Path, no_cursor_blink: None) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    assert snap_compare(app, terminal_size=SIZE, run_before=_settled)


def test_review_first_item(snap_compare: Any, qc_db: Path, no_cursor_blink: None) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    assert snap_compare(app, terminal_size=SIZE, run_before=_settled)


def test_review_looking_back(snap_compare: Any, qc_db: Path, no_cursor_blink: None) -> None:
    async def decide_then_look_back(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("x", "2")
        await settle(pilot)
        await pilot.press("p")
        await _settled(pilot)

    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    assert snap_compare(app, terminal_size=SIZE, run_before=decide_then_look_back)


def test_reject_reason_modal(snap_compare: Any, qc_db: Path, no_cursor_blink: None) -> None:
    async def open_modal(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("x")
        await _settled(pilot)

    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    assert snap_compare(app, terminal_size=SIZE, run_before=open_modal)


def test_releases_for_a_non_curator(snap_compare: Any, qc_db: Path,
                                    no_cursor_blink: None) -> None:
    async def open_releases(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        await pilot.press("a")
        await _settled(pilot)

    app = make_app(qc_db, config=make_config(curators=["alice"]), account=ANNOTATOR)
    assert snap_compare(app, terminal_size=SIZE, run_before=open_releases)


# -- evaluation screens --------------------------------------------------------------------
def _eval_db(path: Path) -> Path:
    """Two runs by the real create_run on the same items, answered and scored by the factory."""
    from db import Store
    from tests.app.conftest import build_db
    from tests.eval_rows import add_real_run

    def detail(i: int, metric: str, s: int) -> dict[str, Any]:
        if metric != "re":
            return {}
        return {"smtlib": f"(declare-const answer Int)\n(assert (= answer {i}))",
                "verifier": {"status": "wrong_value", "value_text": str(i)}}

    build_db(path)
    with Store(path) as store:
        add_real_run(store, make_config(), "gpt-4o-mini", limit=30, detail=detail,
                     response=lambda i, t, s: f"Step 1. [red]not markup[/red]\x1b[2J\n"
                                              f"The answer is {i}.")
        add_real_run(store, make_config(), "qwen2.5-7b", limit=30,
                     verdict=lambda i, m, s: "correct" if i % 3 else "wrong")
        with store.transaction():   # no clock in a snapshot
            store.execute("UPDATE eval_runs SET started_at = '2026-01-02T03:04:05.000000Z', "
                          "finished_at = '2026-01-02T03:09:15.000000Z'")
    return path


def test_runs_screen(snap_compare: Any, tmp_path: Path, no_cursor_blink: None) -> None:
    async def open_runs(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("v")
        await _settled(pilot)

    app = make_app(_eval_db(tmp_path / "e.db"), config=make_config(), account=ANNOTATOR)
    assert snap_compare(app, terminal_size=SIZE, run_before=open_runs)


def test_start_run_form(snap_compare: Any, qc_db: Path, no_cursor_blink: None) -> None:
    async def open_form(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("n")
        await _settled(pilot)

    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    assert snap_compare(app, terminal_size=SIZE, run_before=open_form)


def test_results_failed_reasoning(snap_compare: Any, tmp_path: Path,
                                  no_cursor_blink: None) -> None:
    async def browse_failures(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        await pilot.press("r", "m", "m", "f")
        await _settled(pilot)

    app = make_app(_eval_db(tmp_path / "e.db"), config=make_config(), account=ANNOTATOR)
    assert snap_compare(app, terminal_size=SIZE, run_before=browse_failures)


def test_side_by_side(snap_compare: Any, tmp_path: Path, no_cursor_blink: None) -> None:
    async def compare(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        await pilot.press("m", "m", "s")
        await _settled(pilot)

    app = make_app(_eval_db(tmp_path / "e.db"), config=make_config(), account=ANNOTATOR)
    assert snap_compare(app, terminal_size=SIZE, run_before=compare)


def test_charts_dimension_scores(snap_compare: Any, tmp_path: Path,
                                 no_cursor_blink: None) -> None:
    async def charts(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("c")
        await _settled(pilot)

    app = make_app(_eval_db(tmp_path / "e.db"), config=make_config(), account=ANNOTATOR)
    assert snap_compare(app, terminal_size=SIZE, run_before=charts)


def test_charts_by_difficulty(snap_compare: Any, tmp_path: Path,
                              no_cursor_blink: None) -> None:
    async def charts(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("t")
        await _settled(pilot)

    app = make_app(_eval_db(tmp_path / "e.db"), config=make_config(), account=ANNOTATOR)
    assert snap_compare(app, terminal_size=SIZE, run_before=charts)
