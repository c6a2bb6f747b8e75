"""Pilot tests of the evaluation screens on real databases: start a run (reference backend,
and the loopback OpenAI-protocol server), stop it with Esc and resume it, browse results
with filters and pages, read an item, compare two runs, draw the charts."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from db import Store
from qcstation.app import make_app
from qcstation.common.config import parse_config
from screens.charts import ChartsScreen
from screens.results import ResultsScreen
from screens.runs import RunsScreen
from screens.dialogs.pick_run import PickRunModal
from screens.side_by_side import SideBySideScreen
from qcstation.widgets.text_pane import TextPane
from screens.dialogs.start_run import FormError, StartRunModal, parse_run_form
from tests.app.conftest import (ANNOTATOR, build_db, flat, make_config, notifications,
                                open_screen, screen_text, settle)
from tests.eval_helpers import local_model
from tests.eval_rows import add_real_run, add_run
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401
from tests.must import must

SIZE = (80, 24)


def _re_detail(i: int, metric: str, s: int) -> dict[str, Any]:
    if metric == "re":
        return {"smtlib": f"(declare-const answer Int)\n(assert (= answer {i}))",
                "verifier": {"status": "wrong_value", "value_text": str(i)}, "gold": "7"}
    return {}


def _response(i: int, task: str, s: int) -> str:
    return f"Working.\nSo the answer is [bold]{i}[/bold] \x1b[2J\x07 done"


@pytest.fixture
def eval_db(tmp_path: Path) -> Path:
    """Two runs made by the real runner on the same 40 items (3 exemplars left out of 60),
    answered and scored by the factory."""
    path = build_db(tmp_path / "eval.db")
    with Store(path) as store:
        add_real_run(store, make_config(), "gpt-4o-mini", limit=40, detail=_re_detail,
                     response=_response)
        add_real_run(store, make_config(), "qwen2.5-7b", limit=40,
                     verdict=lambda i, m, s: "correct" if i % 3 else "wrong")
    return path


def _runs(db: Path) -> list[dict[str, Any]]:
    with Store(db) as store:
        return store.query("SELECT id, status, n_requests, backend, model FROM eval_runs ORDER BY id")


def _outputs(db: Path, run_id: int) -> int:
    with Store(db) as store:
        return int(store.scalar("SELECT COUNT(*) FROM eval_outputs WHERE run_id = ?", (run_id,)))


async def _open_run_form(pilot: Pilot[Any]) -> None:
    """From the dashboard: the runs screen (v), then its start-run form (n)."""
    for key in ("v", "n"):
        await settle(pilot)
        await pilot.press(key)
    await settle(pilot)


async def _type_into(pilot: Pilot[Any], selector: str, text: str) -> None:
    widget = pilot.app.screen.query_one(selector, Input)
    widget.focus()
    await pilot.pause()
    await pilot.press("ctrl+a", *(["backspace"] * 4))
    await pilot.press(*text)


# -- the form --------------------------------------------------------------------------------
def test_the_run_form_checks_every_field() -> None:
    ok: dict[str, Any] = dict(model="m", release=None, tasks=["final", "reasoning"], shots="3",
                              temperature="0", samples="1", limit="", name="  nightly   run ")
    req = parse_run_form(**ok)
    assert req.tasks == ("reasoning", "final") and req.limit is None and req.release is None
    assert req.name == "nightly run" and req.backend is None
    assert parse_run_form(**{**ok, "release": "smart\x001.0.0"}).release == ("smart", "1.0.0")
    ref = parse_run_form(**{**ok, "model": "\x00reference"})
    assert (ref.model, ref.backend) == ("reference", "reference")
    for field, value, where in (("shots", "x", "run_shots"), ("shots", "17", "run_shots"),
                                ("temperature", "hot", "run_temperature"),
                                ("temperature", "nan", "run_temperature"),
                                ("samples", "0", "run_samples"), ("limit", "-3", "run_limit"),
                                ("tasks", [], "run_tasks"), ("model", None, "run_model")):
        with pytest.raises(FormError) as err:
            parse_run_form(**{**ok, field: value})
        assert err.value.field == where


async def test_the_form_shows_which_tasks_are_chosen_without_colour(qc_db: Path) -> None:
    """A chosen task has X in its box, one left out an empty box: the plain text tells them
    apart (Textual draws the same X for both, in another colour)."""
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await _open_run_form(pilot)
        assert isinstance(app.screen, StartRunModal)

        def boxes() -> dict[str, str]:
            lines = screen_text(app).splitlines()
            return {title: next(line.split("\u258c")[0][-1] for line in lines if title in line)
                    for title in ("Understanding", "Reasoning", "Arithmetic", "Final answer")}

        assert boxes() == {"Understanding": "X", "Reasoning": "X", "Arithmetic": "X",
                           "Final answer": "X"}
        app.screen.query_one("#run_tasks").focus()
        await pilot.press("down", "space")          # Reasoning left out
        await settle(pilot)
        assert boxes() == {"Understanding": "X", "Reasoning": " ", "Arithmetic": "X",
                           "Final answer": "X"}
        assert "X marks a chosen one" in flat(screen_text(app))
        await _type_into(pilot, "#run_limit", "4")
        await pilot.press("ctrl+s")
        await settle(pilot)
        with Store(qc_db) as store:
            specs = [json.loads(r["spec"]) for r in store.query("SELECT spec FROM eval_runs")]
        assert [s["tasks"] for s in specs] == [["understanding", "arithmetic", "refinement",
                                                "final"]]


# -- runs ------------------------------------------------------------------------------------
async def test_start_a_reference_run_from_the_runs_screen(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        assert "No evaluation runs yet" in flat(screen_text(app))
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, StartRunModal)
        await _type_into(pilot, "#run_limit", "8")
        await pilot.press("ctrl+s")
        # the run's end, however long a loaded machine takes: its notice (asserted here: a
        # notice expires after 8 s, which a loaded machine can pass before a later look),
        # then the list shown again (not a fixed number of rounds)
        await _until(pilot, lambda: any("Run #1 finished" in n for n in notifications(app)))
        await _until(pilot, lambda: "#1 reference working set done 40/40" in flat(screen_text(app)))
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        runs = _runs(qc_db)
        assert [(r["backend"], r["status"], r["n_requests"]) for r in runs] == \
            [("reference", "done", 40)]
        assert _outputs(qc_db, runs[0]["id"]) == 40
        text = flat(screen_text(app))
        assert "#1 reference working set done 40/40" in text
        await pilot.press("enter")      # a finished run is not resumed
        await settle(pilot)
        assert any("is finished; b browses its results" in n for n in notifications(app))


async def _until(pilot: Pilot[Any], done: Any, timeout_s: float = 300.0) -> None:
    """Let the app run until ``done()`` holds (a bound for a loaded machine, not a pace)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "the app never got there"
        await pilot.pause(0.05)


async def test_a_model_that_cannot_be_used_is_refused_before_a_run_is_created(
        qc_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As `eval run` does: the key variable unset, the form's run is refused with the
    reason and no run record is left behind."""
    monkeypatch.delenv("QCSTATION_TEST_UNSET_KEY", raising=False)
    config = parse_config({"qc": {"curators": ["alice"], "min_sample": 6},
                           "models": {"cloud": {"model": "gpt-x",
                                                "api_key_env": "QCSTATION_TEST_UNSET_KEY"}}},
                          "<test>")
    app = make_app(qc_db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await _open_run_form(pilot)
        assert isinstance(app.screen, StartRunModal)
        await _type_into(pilot, "#run_limit", "8")
        await pilot.press("ctrl+s")
        await settle(pilot)
        shown = flat(screen_text(app)) + " ".join(notifications(app))
        assert "not started" in shown and "QCSTATION_TEST_UNSET_KEY is not set" in shown, shown
        assert _runs(qc_db) == []                       # nothing created, nothing to clean up
        if not isinstance(app.screen, RunsScreen):      # the error's modal
            await pilot.press("escape")
            await settle(pilot)
        assert isinstance(app.screen, RunsScreen) and app.screen.active_run is None
        assert "No evaluation runs yet" in flat(screen_text(app))


async def test_a_bad_form_value_says_why_and_keeps_the_dialog(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await _open_run_form(pilot)
        await _type_into(pilot, "#run_shots", "many")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, StartRunModal)
        assert app.screen.focused is not None and app.screen.focused.id == "run_shots"
        assert any("Shots must be a whole number from 0 to 16" in n for n in notifications(app))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen) and _runs(qc_db) == []


async def test_esc_stops_a_run_and_enter_resumes_it_without_asking_twice(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:  # noqa: F811
    db = build_db(tmp_path / "slow.db")
    fake_openai.default_delay = 0.05
    config = parse_config({"qc": {"curators": ["alice"], "min_sample": 6},
                           "models": {"slow": local_model(fake_openai.base_url, concurrency=2)}},
                          "<test>")
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await _open_run_form(pilot)
        await _type_into(pilot, "#run_limit", "12")
        await _type_into(pilot, "#run_shots", "0")
        await pilot.press("ctrl+s")
        screen = app.screen
        await _until(pilot, lambda: isinstance(screen, RunsScreen) and bool(screen.active_run)  # live progress
                     and "requests" in flat(screen_text(app)) and len(fake_openai.chat_requests) >= 4)
        progress = flat(screen_text(app))
        assert " of 60 requests · " in progress and "/s · ETA" in progress
        assert "Esc cancels" in progress
        await pilot.press("escape")
        # the stop notice as it comes (a notice expires after 8 s: not looked for later)
        await _until(pilot, lambda: any("Stopped run #1" in n for n in notifications(app)))
        await settle(pilot, rounds=400)
        assert isinstance(app.screen, RunsScreen)  # Esc stopped the run, it did not leave
        [run] = _runs(db)
        stored = _outputs(db, run["id"])
        assert run["status"] == "interrupted" and 0 < stored < 60
        # the list is read again after the stop notice (bounded wait, for a loaded machine)
        await _until(pilot, lambda: "#1 slow working set interrupted" in flat(screen_text(app)))
        await pilot.press("enter")
        await settle(pilot, rounds=400)
        [run] = _runs(db)
        assert run["status"] == "done" and _outputs(db, run["id"]) == 60
    prompts = [str(r.messages) for r in fake_openai.chat_requests]
    # every request asked; a stored one never again. Esc cancels the (at most 2) requests in
    # flight (issue 18: stop within 2 s), and those are asked once more on resume
    assert len(set(prompts)) == 60 and len(prompts) <= 60 + 2


# -- results -------------------------------------------------------------------------------
async def test_results_filter_page_and_read_an_item(eval_db: Path) -> None:
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        table = screen.query_one("#results_table", DataTable)
        assert table.row_count == 50 and screen.page is not None and screen.page.has_more
        await pilot.press("r")                      # run #1 only
        await pilot.press("m", "m")                 # metric: un -> re
        await pilot.press("f")                      # failed only
        await settle(pilot)
        assert list(screen.filters.run_ids) == [1] and screen.filters.metric == "re"
        assert screen.filters.failed
        rows = screen.page.rows
        assert rows and all(r.metric == "re" and r.failed and r.run_id == 1 for r in rows)
        # the run is named gpt-4o-mini; its model (the reference) stays in view, and its
        # release and protocol too (walk8: they went once another filter was set): the run
        # takes a line of its own, the other filters the next
        label = flat(str(dict(screen.choices["runs"])[1]))
        assert label.startswith("#1 gpt-4o-mini (reference) · working set · "), label
        shown = flat(screen_text(app))
        assert f"Filters: {label} failed ACC@Re" in shown, shown
        first = rows[0]
        detail = flat(screen_text(app))
        assert f"Item {first.item_key}" in detail and "Reasoning ACC@Re" in detail
        # the item pane: raw response with control characters shown, markup not applied
        pane = flat(__import__("tests.app.conftest", fromlist=["static_text"])
                    .static_text(screen.query_one("#item_pane"), width=76))
        assert f"So the answer is [bold]{first.seed_id}[/bold] \\x1b[2J\\a done" in pane
        assert "Model's SMT-LIB" in pane and f"(assert (= answer {first.seed_id}))" in pane
        assert "Verifier output verifier: status: wrong_value value_text:" in pane
        assert "ACC@Re gold: 7" in pane
        # how run #1 measured (issue 15.5): under the pane where it fits, else at the item's end
        subtitle = str(screen.query_one("#item_pane").border_subtitle or "") or \
            pane.split("How the run measured: ")[-1]
        assert subtitle.startswith("run 1: working set · ") and "refinement" in subtitle
        assert "Prompt: 1 messages" not in pane and "The prompt cannot be rebuilt" not in pane
        assert "(p shows it)" in pane
        await pilot.press("p")
        pane = flat(__import__("tests.app.conftest", fromlist=["static_text"])
                    .static_text(screen.query_one("#item_pane"), width=76))
        with Store(eval_db) as store:
            from qcstation.eval.outputs import prompt_messages
            sent = prompt_messages(store, 1, first.seed_id, "reasoning", 0)
        assert "Prompt (" in pane and flat(sent[-1]["content"])[:200] in pane
        await pilot.press("x")                      # clear: 6 metrics x 40 items x 2 runs
        await settle(pilot)
        assert screen.filters.run_ids == () and screen.page.has_more
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.page_number == 2
        with Store(eval_db) as store:
            n = int(store.scalar("SELECT COUNT(*) FROM eval_scores"))
        assert must(table.border_title).startswith(f"Rows 51–100 of {n} · ")
        second = screen.page.rows[0].key
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert screen.page_number == 1 and screen.page.rows[0].key < second


async def test_compare_two_runs_on_the_same_item(eval_db: Path) -> None:
    with Store(eval_db) as store:
        add_run(store, "llama-3-8b", range(1, 11))
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        row = must(app.screen.selected_row())  # type: ignore[attr-defined]
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, PickRunModal)
        await pilot.press("enter")              # the first other run: #2
        await settle(pilot)
        assert isinstance(app.screen, SideBySideScreen)
        assert (app.screen.run_a, app.screen.run_b, app.screen.seed_id) == (1, 2, row.seed_id)
        text = flat(screen_text(app))
        assert "#1 gpt-4o-mini" in text and "#2 qwen2.5-7b" in text
        assert app.screen.left is not None and app.screen.right is not None
        expected = "correct" if row.seed_id % 3 else "wrong"
        assert must(app.screen.right.task("final")).scores[0].verdict == expected
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)


async def test_charts_of_the_runs(eval_db: Path) -> None:
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChartsScreen) and screen.data is not None
        text = screen_text(app)
        assert "Scores by dimension" in text
        for tick in ("Un", "Re", "Ar", "R-t", "R-m", "Fi", "All"):
            assert f" {tick} " in text
        assert "● #1 gpt-4o-mini" in text and "■ #2 qwen2.5-7b" in text
        runs = {r.run_id: r for r in screen.data.scores.runs}
        # run 2: every metric correct exactly when the seed id % 3 != 0
        with Store(eval_db) as store:
            seeds = [int(r[0]) for r in store.execute(
                "SELECT seed_id FROM eval_items WHERE run_id = 2 AND role = 'eval'")]
        assert len(seeds) == 40
        assert runs[2].points["fi"].value == pytest.approx(
            100 * sum(1 for i in seeds if i % 3) / 40)
        await pilot.press("t")
        await settle(pilot)
        text = screen_text(app)
        assert "ACC@Fi by difficulty" in text
        assert "easy" in text and "medium" in text and "hard" in text
        await pilot.press("m")                  # next metric after fi wraps to un
        await settle(pilot)
        assert "LLM@Un by difficulty" in screen_text(app)


async def test_hostile_names_and_keys_are_shown_as_text(tmp_path: Path) -> None:
    """Markup and terminal codes in model names, item keys and responses never style,
    move or break anything: every screen shows them escaped, as typed."""
    db = build_db(tmp_path / "hostile.db")
    evil = "evil[/] [bold]x\x1b[2J"
    with Store(db) as store:
        a = add_run(store, evil, range(1, 6), response=lambda i, t, s: "[/]\x1b]0;title\x07")
        add_run(store, "plain", range(1, 6))
        add_run(store, "third[", range(1, 6))
        with store.transaction():
            store.execute("UPDATE eval_items SET item_key = '[/]key\x1b[1m' WHERE run_id = ? "
                          "AND seed_id = 1", (a,))
    config = parse_config({"qc": {"curators": ["alice"], "min_sample": 6},
                           "models": {"m[/]": {"model": "x[bold]"}}}, "<test>")
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("down", "down")     # the evil run (newest first)
        await settle(pilot)
        text = flat(screen_text(app))
        assert "#1 evil[/] [bold]x\\x1b[2J" in text
        await pilot.press("n")
        await settle(pilot)
        assert "m[/] (x[bold])" in flat(screen_text(app))
        await pilot.press("escape", "b")
        await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)
        text = flat(screen_text(app))
        assert "Item [/]key\\x1b[1m" in text and "[/]\\x1b]0;title\\a" in text
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, PickRunModal)
        assert "Compare [/]key\\x1b[1m with" in flat(screen_text(app))
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, SideBySideScreen)
        text = flat(screen_text(app))
        assert "#1 evil[/] [bold]x\\x1b[2J" in text and "#3 third[" in text
        assert "\x1b" not in screen_text(app)


async def test_quitting_mid_run_stops_it_resumable(tmp_path: Path,
                                                   fake_openai: FakeOpenAI) -> None:  # noqa: F811
    import itertools
    import threading

    from tests.fake_openai import default_responder

    db = build_db(tmp_path / "quit.db")
    # the first 4 requests are answered; the rest wait until the app is left, so the run is
    # still going when ctrl+q comes, however slow the machine is
    gate, answered = threading.Event(), itertools.count()

    def held(request: Any) -> str:
        if next(answered) >= 4:
            gate.wait(600)
        return default_responder(request)

    fake_openai.responder = held
    config = parse_config({"qc": {"curators": ["alice"], "min_sample": 6},
                           "models": {"slow": local_model(fake_openai.base_url, concurrency=2)}},
                          "<test>")
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await _open_run_form(pilot)
        await _type_into(pilot, "#run_shots", "0")
        await pilot.press("ctrl+s")
        await _until(pilot, lambda: len(fake_openai.chat_requests) >= 4)
        await pilot.press("ctrl+q")        # asks, as q does, with the run going; again: quits
        await pilot.pause()
        assert getattr(app.screen, "quit_question", False) and app.is_running, app.screen
        await pilot.press("ctrl+q")
        await pilot.pause()
        gate.set()
    # leaving the app stops the run between requests instead of finishing it (the worker
    # thread writes the final status when its requests in flight come back)
    deadline = time.monotonic() + 300
    while _runs(db)[0]["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    [run] = _runs(db)
    assert run["status"] == "interrupted" and 0 < _outputs(db, run["id"]) < run["n_requests"]


_FRESH_INTERPRETER_RUN = r"""
import asyncio, sys
from pathlib import Path
from qcstation.app import make_app
from tests.app.conftest import settle, make_config
from db import Store

async def main(db):
    app = make_app(db, config=make_config(), account="tester")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("v"); await settle(pilot)
        await pilot.press("n"); await settle(pilot)
        app.screen.query_one("#run_shots").value = "0"
        app.screen.query_one("#run_limit").value = "3"
        await pilot.press("ctrl+s"); await settle(pilot, rounds=400)
        print(type(app.screen).__name__)
    with Store(db) as store:
        print(store.scalar("SELECT COUNT(*) FROM eval_scores WHERE verdict = 'correct'"))

asyncio.run(main(Path(sys.argv[1])))
"""


def test_a_run_started_in_a_fresh_app_is_scored_with_worker_processes(qc_db: Path) -> None:
    """Scoring starts worker processes (Z3, the answer checker) from inside the running
    app, where sys.stderr is Textual's capture: the first pool of a fresh interpreter must
    start there too (it once failed with 'bad value(s) in fds_to_keep')."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", _FRESH_INTERPRETER_RUN, str(qc_db)],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    screen, correct = proc.stdout.split()
    assert screen == "RunsScreen"            # no error dialog
    assert int(correct) == 3 * 9     # reference answers: re, ar, rt, rm, fi and ar_s, rt_s, rm_s, fi_s correct; un not scored


async def test_an_empty_database_says_how_to_start(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        for key in ("p", "s", "right_square_bracket", "f"):
            await pilot.press(key)
            await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)
        assert "No stored score matches these filters." in flat(screen_text(app))
        await pilot.press("x")
        await settle(pilot)
        assert "No scores stored yet: start a run from the Runs screen" in flat(screen_text(app))
        assert {"Select a row first.", "This is the last page."} <= set(notifications(app))
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ChartsScreen)
        assert "No data: no evaluation run yet" in flat(screen_text(app))


async def test_esc_stops_the_judges_of_a_run_being_scored(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:  # noqa: F811
    """A judge that takes every request and never answers: the scoring said only "Scoring
    run #1…" and Esc did not stop it (walked in tmux at 80x24: still "Stopping after the
    requests in flight…" two minutes later). The judges' progress is shown, with the key that
    stops it, and Esc stops them: the run is scored, the items not judged are judge_error."""
    db = build_db(tmp_path / "judged.db")
    fake_openai.default_delay = 3600          # taken, never answered (until the test ends)
    config = parse_config({"qc": {"curators": ["alice"], "min_sample": 6},
                           "judges": [{"name": "slowjudge", "model": "j", "retries": 0,
                                       "timeout_s": 3600, "base_url": fake_openai.base_url}]},
                          "<test>")
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await _open_run_form(pilot)
        await _type_into(pilot, "#run_limit", "4")
        await pilot.press("ctrl+s")
        await _until(pilot, lambda: "Scoring run #1: judge slowjudge: 0 of 4 requests answered "
                     "· Esc stops" in flat(screen_text(app)) and len(fake_openai.chat_requests) >= 4)
        # the whole line on one row at 80 columns (it wrapped: "… (nothing scored is lost)")
        frame = screen_text(app).splitlines()
        at = next(i for i, r in enumerate(frame) if "Scoring run #1:" in r)
        assert frame[at + 1].strip("│ ").startswith("━"), screen_text(app)   # the bar follows
        await pilot.press("escape")
        await _until(pilot, lambda: any("Stopped scoring run #1" in n for n in notifications(app)))
        await settle(pilot, rounds=400)
        assert isinstance(app.screen, RunsScreen)
        assert any("--retry-judges` asks them again" in n for n in notifications(app))
    with Store(db) as store:
        rows = store.query("SELECT verdict, detail FROM eval_scores WHERE metric = 'un'")
        status = store.scalar("SELECT status FROM eval_runs")
    assert [r["verdict"] for r in rows] == ["judge_error"] * 4
    assert all("not asked: the scoring was stopped" in r["detail"] for r in rows)
    assert status == "done"


async def test_q_mid_run_asks_before_quitting(tmp_path: Path,
                                              fake_openai: FakeOpenAI) -> None:  # noqa: F811
    from screens.dialogs.confirm import ConfirmModal

    import threading

    from tests.fake_openai import default_responder

    db = build_db(tmp_path / "askq.db")
    gate = threading.Event()       # replies wait for it: the run is going until the test says

    def held(request: Any) -> str:
        gate.wait(600)
        return default_responder(request)

    fake_openai.responder = held
    config = parse_config({"qc": {"curators": ["alice"], "min_sample": 6},
                           "models": {"slow": local_model(fake_openai.base_url, concurrency=2)}},
                          "<test>")
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await _open_run_form(pilot)
        await _type_into(pilot, "#run_shots", "0")
        await pilot.press("ctrl+s")
        await _until(pilot, lambda: len(fake_openai.chat_requests) >= 2)
        runs = app.screen
        assert isinstance(runs, RunsScreen) and runs.active_run is not None
        await pilot.press("q")                     # asks; n stays and the run goes on
        await pilot.pause()
        assert isinstance(modal := app.screen, ConfirmModal), modal
        assert "Evaluation run #1 is going on" in flat(screen_text(app))
        await pilot.press("n")
        await pilot.pause()
        assert runs.active_run is not None and app.screen is runs and app.is_running
        await pilot.press("q", "y")                # y quits: the run stops, resumable
        await pilot.pause()
        gate.set()
    import time
    deadline = time.monotonic() + 300   # the worker writes the final status when its requests return
    while _runs(db)[0]["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    [run] = _runs(db)
    assert run["status"] == "interrupted" and _outputs(db, run["id"]) < run["n_requests"]


async def test_a_page_turn_draws_the_new_item_once_never_the_old_one_under_its_title(
        eval_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page turn reads the first row's item with the page (one read, no second worker):
    while it is being read the table and the pane keep what they showed and the pane is not
    drawn again; then the new page and its first item come together, the item drawn once
    under its own title. The next item's is read with them: the cursor's move onto it shows
    it in the key's own paint (issue 28), and the one after it is read ahead in its turn."""
    import asyncio
    import threading

    import screens.results as results_screen
    from qcstation.eval import browse

    from qcstation.widgets import eval_views

    drawn: list[Any] = []
    render_item = eval_views.render_item
    def counted(detail: Any, **kw: Any) -> Any:
        drawn.append(detail)
        return render_item(detail, **kw)

    monkeypatch.setattr(eval_views, "render_item", counted)
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen) and screen.detail is not None
        before, before_key = screen.detail, screen.detail_key
        entered, release = threading.Event(), threading.Event()
        reads: list[tuple[Any, ...]] = []
        item_detail = browse.item_detail

        def held(*args: Any, **kw: Any) -> Any:     # the items are read only once released
            reads.append(args[1:])
            entered.set()
            release.wait(60)
            return item_detail(*args, **kw)

        monkeypatch.setattr(browse, "item_detail", held)
        drawn.clear()
        await pilot.press("right_square_bracket")
        deadline = time.monotonic() + 300
        while not entered.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await pilot.pause()
        assert entered.is_set()
        # the page waits for its first item: page 1 and its item are still what is shown
        assert screen.page_number == 1 and screen.detail is before
        assert screen.detail_key == before_key and drawn == []
        release.set()
        await settle(pilot)
        first = must(screen.page).rows[0]
        assert screen.page_number == 2 and screen.selected_row() == first
        assert screen.detail_key == (first.run_id, first.seed_id, first.sample_idx)
        assert screen.detail is not None and screen.detail is not before
        assert not screen.detail_pending
        rows = must(screen.page).rows

        def item(r: Any) -> tuple[int, int, int]:
            return (r.run_id, r.seed_id, r.sample_idx)
        items = list(dict.fromkeys(item(r) for r in rows))
        assert len(items) >= 3
        # read once, with the page, and the next item's with it (read ahead)
        assert reads == [screen.detail_key, items[1]]
        assert drawn == [screen.detail]        # the new one, once
        assert str(screen.query_one("#item_pane").border_title) == f"Item {first.item_key}"
        # a move onto another row of the item shown, whose metric puts the same task first (a
        # metric and its strict twin), shows the pane from its top, as before, the item as
        # rendered already (not rendered again: ItemRenders)
        twin = next(i for i in range(1, len(rows)) if item(rows[i]) == item(rows[i - 1])
                    and results_screen.TASK_OF.get(rows[i].metric)
                    == results_screen.TASK_OF.get(rows[i - 1].metric))
        await pilot.press(*["down"] * (twin - 1))
        await settle(pilot)
        pane = screen.query_one("#item_pane", TextPane)
        pane.scroll_to(y=2, animate=False, immediate=True)
        await settle(pilot)
        assert pane.scroll_offset.y == 2
        drawn.clear()
        reads.clear()
        await pilot.press("down")
        await settle(pilot)
        assert screen.selected_row() == rows[twin] and reads == []
        assert drawn == [] and pane.scroll_offset.y == 0
        await pilot.press(*["up"] * twin)
        await settle(pilot)
        # the next item's row shows the item read with the page (no read of it), once
        other = next(i for i, r in enumerate(rows) if item(r) == items[1])
        await pilot.press(*["down"] * (other - 1))
        await settle(pilot)
        reads.clear()
        drawn.clear()
        release.clear()                        # no read may finish from here on
        await pilot.press("down")
        await pilot.pause()
        row = must(screen.selected_row())
        assert row == rows[other] and screen.detail_key == items[1] == item(row)
        assert not screen.detail_pending and drawn == [screen.detail]
        assert screen.detail is not None and screen.detail.seed_id == row.seed_id
        release.set()
        await settle(pilot)
        assert reads == [items[2]] and drawn == [screen.detail]


async def test_a_metrics_difficulty_chart_is_read_once(eval_db: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Every metric's difficulty breakdown is read once, after the dimension scores are
    shown: t and m cycling the metrics only draw (a pass over every score of the runs each
    time), with the same numbers as a breakdown of that metric alone."""
    from qcstation.eval import charts as chartdata
    from qcstation.eval.types import METRICS

    read: list[list[int]] = []
    by_difficulty_all = chartdata.by_difficulty_all

    def counted(store: Any, run_ids: Any, **kw: Any) -> Any:
        read.append(list(run_ids))
        return by_difficulty_all(store, run_ids, **kw)

    monkeypatch.setattr(chartdata, "by_difficulty_all", counted)
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, ChartsScreen([1, 2]))
        assert "Scores by dimension" in screen_text(app) and read == [[1, 2]]
        await pilot.press("t")
        await settle(pilot)
        first = screen_text(app)
        assert "ACC@Fi by difficulty" in first and read == [[1, 2]]
        with Store(eval_db) as store:
            levels, series = by_difficulty_all(store, [1, 2])["fi"]
        assert screen.data is not None and screen.data.levels == levels
        assert [{lv: p.value for lv, p in r.points.items()} for r in screen.data.by_level or []] \
            == [{lv: p.value for lv, p in r.points.items()} for r in series]
        for _ in METRICS:                       # every metric once, back to fi
            await pilot.press("m")
            await settle(pilot)
            label = chartdata.label(screen.metric)
            assert f"{label} by difficulty" in screen_text(app)
        assert screen.metric == "fi" and read == [[1, 2]]
        assert screen_text(app) == first        # drawn from what was kept, the same chart
        await pilot.press("t", "t")             # away and back: nothing read again
        await settle(pilot)
        assert read == [[1, 2]] and screen_text(app) == first


def test_the_done_cell_keeps_one_width_through_a_run() -> None:
    """The runs table measures a changed cell only when the app is next idle: a Done cell
    that grew ('999/2365' to '1969/2365') was drawn cut ('1969/236') until then. Every
    count of a run reads at the final count's width."""
    from qcstation.widgets.eval_views import progress_text

    for total in (9, 36, 2365):
        widths = {len(progress_text(done, total)) for done in range(total + 1)}
        assert widths == {len(f"{total}/{total}")}
    assert progress_text(7, 120) == "  7/120" and progress_text(5, 0) == "5"


def test_a_derived_items_name_keeps_its_seed_and_its_variant_in_the_rows() -> None:
    """Issue 28.2: at 80 columns every variant of a seed read 'gsm8k-1~variant…' in the
    results table; the cut is in the middle now, so each row names its own item."""
    from types import SimpleNamespace

    from qcstation.widgets.eval_views import row_cells

    def item_cell(key: str) -> str:
        row = SimpleNamespace(run_label="#1 reference", item_key=key, sample_idx=0,
                              metric="ar", verdict="correct", score=None, extracted="33")
        return row_cells(row)[1].plain

    cells = [item_cell(f"gsm8k-1234~variants.v{n}") for n in (1, 2, 12)]
    assert len(set(cells)) == 3 and all(len(c) == 16 for c in cells), cells
    assert all(c.startswith("gsm8k-1234~") for c in cells), cells
    assert [c.endswith(f".v{n}") for c, n in zip(cells, (1, 2, 12))] == [True] * 3
    assert item_cell("gsm8k-54") == "gsm8k-54"          # short names are whole
