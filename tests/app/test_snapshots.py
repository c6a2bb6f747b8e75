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
