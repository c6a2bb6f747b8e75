"""Issue 17's journeys replayed with their fixes, in the app (pilot) on real SQLite files:
the same account in two terminals, typed-ahead keys in a dialog, the fix editor, bulk
actions that ask first, the results browser after a live run, the runs list by run id."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import DataTable, Input

from db import Store
from qcstation.app import make_app
from qcstation.core.review.decisions import decide
from screens.review import ReviewScreen
from tests.app.conftest import ANNOTATOR, live_reviews, make_config, notice, settle
from tests.must import must

SIZE = (80, 24)
_KEY_NAMES = {" ": "space", ",": "comma", ".": "full_stop", "=": "equals_sign", "+": "plus",
              "*": "asterisk", ":": "colon", "-": "minus"}


def _keys(text: str) -> list[str]:
    """Keys that type ``text``."""
    return [_KEY_NAMES.get(ch, ch) for ch in text]


async def test_an_item_decided_in_another_terminal_moves_on_by_itself(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.item is not None
        shown = screen.item
        with Store(qc_db) as store:     # the same account decides it in another terminal
            decide(store, shown.item_id, ANNOTATOR, "accept")
        await pilot.press("a")
        await settle(pilot)
        assert screen.item is not None and screen.item.item_id != shown.item_id
        assert notice(app).startswith(f"You ({ANNOTATOR}) already decided {shown.key} "
                                      f"(arithmetic)") and "moved on to the next item" in notice(app)
        await pilot.press("a")                      # no loop: the next item is decided
        await settle(pilot)
        assert notice(app).startswith("Saved:")
    assert len(live_reviews(qc_db)) == 2


async def test_keys_typed_ahead_in_a_dialog_land_in_the_right_field(qc_db: Path) -> None:
    from textual import events

    from qcstation.core.review.items import get_item
    from screens.dialogs.fix_item import ResolveModal

    with Store(qc_db) as store:
        item_id = int(store.scalar("SELECT MIN(id) FROM sample_items"))
        item = get_item(store, item_id)
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    answers: list[object] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ResolveModal("settle", item), callback=answers.append)
        # a fast typist: the whole line arrives before the dialog has drawn or moved focus
        for ch in "reject\rboth read it wrong\r":
            key = "enter" if ch == "\r" else ("space" if ch == " " else ch)
            app.post_message(events.Key(key, None if ch == "\r" else ch))
        await settle(pilot)
    assert answers == [("reject", "both read it wrong")]


async def test_a_late_correction_is_followed_to_a_passing_gate(tmp_path: Path) -> None:
    from textual.widgets import TextArea

    from qcstation.core.review.decisions import next_item
    from qcstation.core.review.gate import gate
    from qcstation.core.review.sampling import draw_sample
    from screens.dashboard import DashboardScreen
    from screens.dialogs.fix_item import FixModal
    from screens.queue import QueueScreen
    from tests import factories as f
    from tests.app.conftest import flat, notifications, screen_text

    db = tmp_path / "late.db"
    with Store(db) as store:
        f.populate(store, {"gsm8k": 93})
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=3, actor="alice")
        while (item := next_item(store, "bob", "arithmetic")) is not None:
            decide(store, item.item_id, "bob", "accept")
        assert gate(store, "arithmetic", threshold=0.05).passed
    config = make_config(dimensions=["arithmetic"], defect_threshold=0.05)
    app = make_app(db, config=config, account="alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        await pilot.press("slash", *"state:accepted", "enter")
        await settle(pilot)
        await pilot.press("tab")                    # to the rows
        await settle(pilot)
        for _ in range(2):                          # the curator corrects two accepted items
            item = queue.item
            assert item is not None and item.outcome == "accept"
            p = f.problem(int(item.orig_id.rsplit("-", 1)[1]))
            await pilot.press("e")
            await settle(pilot)
            modal = app.screen
            assert isinstance(modal, FixModal)
            shown = flat(screen_text(app))
            assert f"Question: {item.question[:40]}" in shown and f"Gold answer: {p['answer']}" in shown
            assert "The accepted version is recorded as your override to reject" in shown
            area = modal.query_one("#fix_text", TextArea)
            await pilot.press("ctrl+a")             # select all, then type over it
            assert area.selected_text == area.text
            await pilot.press(*_keys(f"Given a = {p['a']}, b = {p['b']} and c = {p['c']}, let "
                                     f"t = a + b and answer = t * c. Find answer."))
            await pilot.press("tab", *_keys("hid a step"), "ctrl+s")
            await settle(pilot)
            assert isinstance(app.screen, QueueScreen), flat(screen_text(app))
            assert any("corrected after acceptance (counted as a defect)" in n
                       for n in notifications(app))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen)
        text = flat(screen_text(app))
        assert "(2 of 93 rejected)" in text or "2 defects" in text or "out of reach" in text
        assert "Fresh round: press F" in text, text
        await pilot.press("F")
        await settle(pilot)
        assert "2 defect(s) found and corrected" in flat(screen_text(app))
        await pilot.press("y")
        await settle(pilot)
        assert "Review 59 notation questions — press r" in flat(screen_text(app))
        await pilot.press("r")
        await settle(pilot)
        for _ in range(59):
            await pilot.press("a")
            await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert "All QC gates pass" in flat(screen_text(app))
    with Store(db) as store:
        g = gate(store, "arithmetic", threshold=0.05)
        assert g.passed and (g.reviewed, g.defects) == (59, 0)


async def test_the_arithmetic_pane_shows_the_gold_solution(qc_db: Path) -> None:
    from tests.app.conftest import flat, static_text

    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.item is not None
        seed = flat(static_text(screen.query_one("#seed_view"), width=60))
        steps = screen.item.solution.split("<<")[0].strip()      # "Li has 3 + 9 = "
        assert "Gold answer:" in seed and "Gold solution" in seed and steps[:12] in seed


def _results_after_a_live_run(db: str, out: str) -> None:  # pragma: no cover - a subprocess
    """In a fresh interpreter (scoring starts worker processes): a reference run started in
    the app, then b browses it at 120×40; writes what the browser shows as JSON."""
    import asyncio
    import json

    from qcstation.app import make_app as make
    from tests.app.conftest import make_config as config
    from tests.app.conftest import screen_text
    from tests.app.conftest import settle as wait

    async def main() -> None:
        app = make(Path(db), config=config(), account="tester")
        async with app.run_test(size=(120, 40)) as pilot:
            await wait(pilot)
            await pilot.press("v")
            await wait(pilot)
            await pilot.press("n")
            await wait(pilot)
            app.screen.query_one("#run_shots", Input).value = "0"
            app.screen.query_one("#run_limit", Input).value = "3"
            await pilot.press("ctrl+s")
            await wait(pilot, rounds=400)
            await pilot.press("b")
            await wait(pilot)
            screen = app.screen
            table = screen.query_one("#results_table", DataTable)
            shown = {"screen": type(screen).__name__, "title": str(table.border_title),
                     "height": table.size.height, "rows": table.row_count,
                     "widths": {c.label.plain: c.get_render_width(table) - 2
                                for c in table.columns.values()},
                     "text": screen_text(app)}
            await pilot.press("f")                   # failed only: the reference fails nothing
            await wait(pilot)
            shown["empty_title"] = str(table.border_title)
            shown["empty_item"] = str(screen.query_one("#item_pane").border_title)
            shown["empty_text"] = screen_text(app)
        Path(out).write_text(json.dumps(shown), encoding="utf-8")

    asyncio.run(main())


def test_the_results_browser_after_a_live_run(qc_db: Path, tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    from tests.app.conftest import flat

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "shown.json"
    code = ("import sys; from tests.app.test_journeys import _results_after_a_live_run as f; "
            "f(sys.argv[1], sys.argv[2])")
    proc = subprocess.run([sys.executable, "-c", code, str(qc_db), str(out)], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    shown = json.loads(out.read_text(encoding="utf-8"))
    assert shown["screen"] == "ResultsScreen"
    with Store(qc_db) as store:
        n = int(store.scalar("SELECT COUNT(*) FROM eval_scores"))
        failed = int(store.scalar("SELECT COUNT(*) FROM eval_scores WHERE verdict IN "
                                  "('wrong', 'unparseable', 'error', 'judge_error')"))
        longest_key = int(store.scalar("SELECT MAX(LENGTH(item_key)) FROM eval_items"))
    # the count of matching rows and of failures, not "of more"
    assert shown["title"] == f"Rows 1–{min(n, 50)} of {n} · {failed} failed"
    # the columns hold their cells, not the header's width ("gsm8", "wrong (")
    assert shown["widths"]["Item"] >= min(longest_key, 16)
    assert shown["widths"]["Verdict"] >= len("not scored")
    # the height it has: at 120×40 about half the screen, not the 6 rows it showed
    assert shown["height"] - 1 >= 14 and shown["rows"] >= min(n, 14)
    # a filter that leaves no row shows no row and no stale item
    assert shown["empty_title"] == "No rows match" and shown["empty_item"] == "Item"
    assert "No stored score matches these filters." in flat(shown["empty_text"])


async def test_the_runs_list_keeps_the_run_refreshes_itself_and_rereads_models(
        qc_db: Path, tmp_path: Path, monkeypatch) -> None:
    from qcstation.app import load_app_config
    from qcstation.eval.runs import create_run
    from screens.dialogs.start_run import StartRunModal
    from screens.results import ResultsScreen
    from screens.runs import RunsScreen

    import screens.runs as runs_module

    monkeypatch.setattr(runs_module, "POLL_IDLE_S", 0.2)
    monkeypatch.setattr(runs_module, "POLL_RUNNING_S", 0.2)
    toml = tmp_path / "qcstation.toml"
    toml.write_text('[qc]\ncurators = ["alice"]\n\n[models.small]\nmodel = "m-small"\n'
                    'base_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    config = load_app_config(toml)
    with Store(qc_db) as store:
        first = create_run(store, config, model="reference", limit=2, name="first")
        second = create_run(store, config, model="reference", limit=2, name="second")
    app = make_app(qc_db, config=config, account=ANNOTATOR)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        ids = [r.run_id for r in screen.runs]
        await pilot.press(*["down"] * ids.index(first))     # select "first" (newest on top)
        assert must(screen._selected()).run_id == first
        with Store(qc_db) as store:                          # a run started in another session
            third = create_run(store, config, model="reference", limit=2, name="third")
        deadline = time.monotonic() + 300                     # no F5: the list refreshes itself
        while third not in [r.run_id for r in screen.runs] and time.monotonic() < deadline:
            await pilot.pause(0.1)
        await settle(pilot)
        assert third in [r.run_id for r in screen.runs]
        assert must(screen._selected()).run_id == first            # the run, not the row
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, ResultsScreen) and app.screen.filters.run_ids == (first,)
        await pilot.press("escape")
        await settle(pilot)
        # a model added to the config while the app runs is offered at once
        toml.write_text(toml.read_text(encoding="utf-8") + '\n[models.big]\nmodel = "m-big"\n'
                        'base_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, StartRunModal)
        assert [name for name, _ in app.screen.models][:2] == ["big", "small"]
    assert second in ids


async def test_the_fix_editor_refuses_unverifiable_edits_with_the_reason(tmp_path: Path) -> None:
    """The two edits of issue 17 in the app: two definitions of answer, and a reworded edit
    with the wrong operator; both refused with the reason, nothing stored."""
    import shutil

    from textual.widgets import TextArea

    from screens.dialogs.fix_item import FixModal
    from tests.app.conftest import flat, screen_text
    from tests.eval_helpers import quickstart_db

    # the quickstart database (a real `qcstation quickstart` process, made once per session)
    db = shutil.copy(quickstart_db(tmp_path), tmp_path / "fix.db")
    app = make_app(Path(db), config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.item is not None
        text = screen.item.content["notation"]
        with Store(Path(db)) as store:
            versions = store.scalar("SELECT COUNT(*) FROM artifacts")
        await pilot.press("e")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, FixModal)
        area = modal.query_one("#fix_text", TextArea)
        reason = modal.query_one("#fix_reason")
        reason.value = "clearer"                             # type: ignore[attr-defined]
        area.text = text.replace(". What is", " and answer = 0. What is")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is modal
        assert "'answer' is defined twice" in flat(screen_text(app))
        # reworded, with the last operator changed: read into its own SMT-LIB, Z3 says no
        last = text.rsplit("answer = ", 1)
        swapped = last[1].translate(str.maketrans({"×": "−", "−": "×", "+": "×", "÷": "+"}))
        area.text = (last[0] + "answer = " + swapped).replace(
            "What is the value of answer?", "Find answer.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is modal
        assert "Z3 does not verify the edited question" in flat(screen_text(app))
        await pilot.press("escape")
        await settle(pilot)
    with Store(Path(db)) as store:
        assert store.scalar("SELECT COUNT(*) FROM artifacts") == versions
        assert store.scalar("SELECT COUNT(*) FROM reviews") == 0


async def test_the_starter_data_is_taken_to_a_passing_gate_in_the_app(tmp_path: Path) -> None:
    import subprocess
    import sys

    from qcstation.app import load_app_config
    from qcstation.common.identity import os_account
    from tests.app.conftest import flat, screen_text
    from tests.conftest import ROOT

    proc_env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "qcstation", "quickstart", "--no-app"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=proc_env)
    assert proc.returncode == 0, proc.stderr
    config = load_app_config(tmp_path / "qcstation.toml")
    # the sample is 10% of what the rules make of the starter data (which grows as they cover more)
    with Store(tmp_path / "db" / "qcstation.db") as store:
        drawn = {r["dimension"]: r["n"] for r in store.query(
            "SELECT s.dimension, COUNT(*) AS n FROM samples s JOIN sample_items si ON si.sample_id = s.id "
            "GROUP BY s.dimension")}
    assert set(drawn) == {"arithmetic", "understanding"} and min(drawn.values()) > 0, drawn
    app = make_app(tmp_path / "db" / "qcstation.db", config=config, account=os_account())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = flat(screen_text(app))
        assert f"Review {drawn['arithmetic']} notation questions — press r" in text
        assert "Demonstration gate: defect threshold 30% (qcstation.toml). A real batch uses " \
               "5%, which needs 59 clean reviews per dimension." in text
        for dimension in ("arithmetic", "understanding"):   # notation questions first
            await pilot.press("r")
            await settle(pilot)
            for _ in range(drawn[dimension]):
                await pilot.press("a")
                await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        assert "All QC gates pass — press l to approve a release" in flat(screen_text(app))
        # once a release is approved the dashboard says so, and what comes next
        approve = subprocess.run([sys.executable, "-m", "qcstation", "release", "approve", "smart",
                                  "1.0.0"], cwd=tmp_path, capture_output=True, text=True,
                                 timeout=300, env=proc_env)
        assert approve.returncode == 0, approve.stderr
        await pilot.press("f5")
        await settle(pilot)
        text = flat(screen_text(app))
        assert "press l to approve a release" not in text
        assert "All QC gates pass — approved as smart@1.0.0. Next: evaluate models on it — " \
               "press v" in text
