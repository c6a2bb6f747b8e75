"""Fixtures for the workstation's pilot and snapshot tests.

Every test runs the real app on a real SQLite file filled by ``tests.factories`` (seeds
with four verified artifacts each) and a QC sample drawn by ``sampling.draw_sample``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from db import Store
from qcstation.app import QCStationApp, make_app
from qcstation.core.review.sampling import draw_sample
from qcstation.common.config import Config, parse_config
from tests.eval_rows import add_real_run
from tests.factories import populate

ANNOTATOR = "tester"
SAMPLE_SEED = 7


def make_config(curators: list[str] | None = None, **qc_settings: Any) -> Config:
    """A real Config, validated like a qcstation.toml ``[qc]`` section."""
    section: dict[str, Any] = {"curators": curators if curators is not None else ["alice"],
                               "min_sample": 6}
    section.update(qc_settings)
    return parse_config({"qc": section}, "<test>")


#: databases :func:`build_db` made, by its arguments, kept closed in a folder of the process's own
_BUILT_DBS: dict[tuple[Any, ...], Path] = {}


def build_db(path: Path, *, per_source: dict[str, int] | None = None,
             sample_dimensions: tuple[str, ...] = ("arithmetic",), min_size: int = 6) -> Path:
    """Seeds (+ four verified artifacts each) and a seeded QC sample per dimension.

    What is made depends on the arguments only (seeded), so each kind is made once per
    process and copied for every later test that asks for it (about a third of a CPU
    second saved per copy; the copy is a closed single-file database, its own per test)."""
    import atexit
    import shutil
    import tempfile

    sources = per_source or {"gsm8k": 40, "mawps": 20}
    key = (tuple(sources.items()), tuple(sample_dimensions), min_size)
    template = _BUILT_DBS.get(key)
    existed = path.exists()
    if template is None or existed:
        with Store(path) as store:
            populate(store, sources)
            for dimension in sample_dimensions:
                draw_sample(store, dimension, rate=0.1, rng_seed=SAMPLE_SEED, actor="curator",
                            min_size=min_size)
        if template is None and not existed and not path.with_name(path.name + "-wal").exists():
            folder = Path(tempfile.mkdtemp(prefix="qcstation-test-db-"))
            atexit.register(shutil.rmtree, folder, True)
            _BUILT_DBS[key] = shutil.copyfile(path, folder / "template.db")
        return path
    shutil.copyfile(template, path)
    return path


def pass_the_gate(path: Path, annotator: str = "bob", dimension: str = "arithmetic") -> None:
    """Every item of the open ``dimension`` sample accepted by ``annotator``."""
    from qcstation.core.review.decisions import decide, next_item

    with Store(path) as store:
        while (item := next_item(store, annotator, dimension)) is not None:
            decide(store, item.item_id, annotator, "accept")


def curator_app(path: Path) -> QCStationApp:
    """The app as the curator alice, the arithmetic gate at a 50% threshold (which an
    all-accepted sample passes)."""

    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.5)
    return make_app(path, config=config, account="alice")


def derived_template(folder: Path) -> Path:
    """Three GSM8K seeds with their artifacts; the working set's arithmetic sample all
    accepted by :data:`ANNOTATOR`; the derived set dyn (variants) built, not sampled."""
    from qcstation.common.config import load_config
    from qcstation.core.derive.runner import run_derive
    from qcstation.core.derive.transforms import Options
    from qcstation.core.review.decisions import decide, next_item
    from tests.core.derive.helpers import make_db

    db = make_db(folder, ["james", "janet", "jacket"])
    run_derive(db, load_config(None, env={}), kind="variants", name="dyn",
               opts=Options(variants=2, rng_seed=4))
    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1)
        while (item := next_item(store, ANNOTATOR, scope="")) is not None:
            decide(store, item.item_id, ANNOTATOR, "accept")
    return db


@pytest.fixture
def qc_db(tmp_path: Path) -> Path:
    """60 seeds (40 gsm8k, 20 mawps); a 6-item arithmetic sample."""
    return build_db(tmp_path / "qc.db")


@pytest.fixture
def one_run(tmp_path: Path) -> tuple[Path, int]:
    """A database with one real evaluation run of 12 items (every third wrong): (path, run id)."""
    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        add_real_run(store, make_config(), "gpt-4o-mini", limit=12,
                     verdict=lambda i, m, s: "correct" if i % 3 else "wrong")
        run_id = int(store.scalar("SELECT MAX(id) FROM eval_runs"))
    return path, run_id


@pytest.fixture
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Snapshots must not depend on when the cursor blinked (H conftest::no_cursor_blink), in
    a one-line field or in an editor (the fix dialog's TextArea: on a loaded machine the
    frame was taken on either side of a blink), nor on the dashboard refreshing itself
    (every 15 s) under the screen shown when a slow run takes that long."""
    from textual.widgets import TextArea

    from screens.dashboard import DashboardScreen

    monkeypatch.setattr(Input, "cursor_blink", False)
    monkeypatch.setattr(TextArea, "cursor_blink", False)
    monkeypatch.setattr(DashboardScreen, "AUTO_REFRESH_S", 0.0)
    yield


def reviews(path: Path) -> list[dict[str, Any]]:
    """Every row of the reviews table (read through a fresh connection)."""
    with Store(path) as store:
        return store.query("SELECT * FROM reviews ORDER BY id")


def live_reviews(path: Path) -> list[dict[str, Any]]:
    return [r for r in reviews(path) if r["undone_at"] is None]


def artifact_status(path: Path, artifact_id: int) -> str:
    with Store(path) as store:
        return str(store.scalar("SELECT status FROM artifacts WHERE id = ?", (artifact_id,)))


_S = TypeVar("_S", bound=Screen[Any])


async def open_screen(pilot: Pilot[Any], screen: _S) -> _S:
    """Settle, push ``screen`` and settle again: ``screen``, shown with its first data read
    (the steps each table and review test took by hand)."""
    await settle(pilot)
    pilot.app.push_screen(screen)
    await settle(pilot)
    assert pilot.app.screen is screen, type(pilot.app.screen).__name__
    return screen


async def press_each(pilot: Pilot[Any], *keys: str) -> None:
    """Settle, then press each key and settle after it (a screen opens, a worker ends)."""
    await settle(pilot)
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


#: how long :func:`settle` waits for an app that keeps working before it says so (a limit
#: on the success path, as generous as a machine at load 30 needs: never a measure of speed)
SETTLE_LIMIT_S = 180.0


async def settle(pilot: Pilot[Any], rounds: int = 50) -> None:
    """Wait until no worker runs and every posted message is handled. An app still busy
    after ``rounds`` rounds is waited for until :data:`SETTLE_LIMIT_S` seconds have passed
    as well: on a loaded machine a screen that polls (the runs list, the dashboard's
    refresh) can start its next read before the last one ends, and a count of rounds alone
    let the machine's speed decide the test."""
    import time

    app = pilot.app
    from textual.worker import WorkerCancelled

    deadline = time.monotonic() + SETTLE_LIMIT_S
    done = 0
    while done < rounds or time.monotonic() < deadline:
        done += 1
        await pilot.pause()
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # an exclusive worker replaced by a newer one: that one is waited for next
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            busy = getattr(app.screen, "busy", False)
            if not busy:
                # a worker's end is a message that bubbles to the app, which may push a screen (an
                # error's modal) a few cycles later: settled once the screen stays the same
                screen = app.screen
                await pilot.pause(0.01)
                if app.screen is screen and not any(w.is_running for w in app.workers):
                    return
    raise AssertionError("the app did not settle")


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as plain text (for assertions and eyeballing layouts)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False,
                      safe_box=False)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return console.export_text()


def flat(text: str) -> str:
    """Screen text without borders, scrollbars and line breaks (words wrap at 80 columns)."""
    return " ".join(re.sub("[\u2500-\u259f]", " ", text).split())


def static_text(widget: Any, width: int = 76) -> str:
    """The plain text of a Static's content (also the parts scrolled out of view)."""
    console = Console(width=width, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(widget.content)
    return console.export_text()


def notifications(app: App[Any]) -> list[str]:
    """Messages of the notifications currently shown (toasts)."""
    return [str(n.message) for n in app._notifications]


def notice(app: App[Any]) -> str:
    """The review screen's notice line (decisions saved, refusals: never a toast over the item)."""
    from textual.widgets import Static

    return static_text(app.screen.query_one("#notice_line", Static), width=200).strip()
