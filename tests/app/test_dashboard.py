"""Pilot tests of the dashboard: counts, gates, attention, and the s / e / g / r keys."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from db import Store
from qcstation.app import make_app
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.gate import gate as qc_gate
from qcstation.core.review.sampling import draw_sample, open_sample
from qcstation.common.vocab import KEYINFO_TITLES
from screens.dashboard import DashboardScreen
from screens.dialogs.error import ErrorModal
from screens.review import ReviewScreen
from tests.app.conftest import (
    ANNOTATOR,
    build_db,
    flat,
    make_config,
    notifications,
    screen_text,
    settle,
    static_text,
)
from tests.must import must

SIZE = (80, 24)


def _dashboard(app) -> DashboardScreen:
    assert isinstance(app.screen, DashboardScreen), type(app.screen).__name__
    return app.screen


async def test_counts_gates_and_what_needs_attention(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = _dashboard(app)
        text = flat(screen_text(app))
        assert "Review 6 notation questions — press r" in text
        assert "Draw a QC sample of key-information extractions — press s" in text
        assert "NOT PASSED Notation questions: 0 of 6 reviewed, 0 rejected" in text
        # counts per stage and dimension, from the database
        counts = flat(static_text(screen.query_one("#counts")))
        assert "gsm8k 40 40" in counts and "mawps 20 20" in counts
        for dimension in ("arithmetic", "understanding", "reasoning", "refinement"):
            assert f"{dimension} 60 60" in counts
        # each gate's rule in plain words, as the QC module states it
        rules = flat(static_text(screen.query_one("#gate_rules")))
        with Store(qc_db) as store:
            for dimension in ("arithmetic", "understanding"):
                gate = qc_gate(store, dimension, threshold=0.05)
                assert " ".join(gate.rule.split()) in rules
                for blocker in gate.blockers:
                    assert blocker in rules
        # the footer names the keys; with no model configured it offers no "Regen" (the
        # rules would make the same text again: the attention list points to the queue)
        for key in ("r Review", "s Sample", "c Queue", "l Releases", "d Derive",
                    "q Quit", "f1 Help"):
            assert key in text
        assert "Regen" not in screen_text(app).splitlines()[-1]


async def test_the_footer_offers_regen_only_with_a_model(qc_db: Path) -> None:
    """`g Regen` promised a regeneration no model could make; with a generator configured
    the footer offers it, without one it does not (the key still asks and says what it does)."""
    from qcstation.common.config import parse_config

    with_model = parse_config({"qc": {"curators": ["alice"], "min_sample": 6},
                               "generator": {"model": "m", "base_url": "http://127.0.0.1:9/v1"}},
                              "<test>")
    for config, offered in ((with_model, True), (make_config(), False)):
        app = make_app(qc_db, config=config, account=ANNOTATOR)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            footer = screen_text(app).splitlines()[-1]
            assert ("g Regen" in footer) is offered, footer
            await pilot.press("g")              # the key itself still asks what it will do
            await settle(pilot)
            assert "Regenerate rejected items" in flat(screen_text(app))


async def test_counts_follow_reviews(qc_db: Path) -> None:
    with Store(qc_db) as store:
        for _ in range(2):
            item = next_item(store, "bob", "arithmetic")
            assert item is not None
            decide(store, item.item_id, "bob", "accept")
        item = next_item(store, "bob", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", "story words left in")
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = flat(screen_text(app))
        assert "Review 3 notation questions — press r" in text
        # no model is configured: the way out is the curator queue, not g
        assert ("1 rejected notation question awaits a fix — press c to fix in place (no model "
                "is configured, so regenerating would make the same text)") in text
        assert "Notation questions: 3 of 6 reviewed, 1 rejected" in text
        counts = flat(static_text(_dashboard(app).query_one("#counts")))
        assert "arithmetic 57 2 1 60" in counts  # verified, accepted, rejected, total


async def test_s_draws_samples_where_none_is_open(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        with Store(qc_db) as store:
            samples = store.query("SELECT dimension, rng_seed, rate, created_by FROM samples "
                                  "ORDER BY id")
            understanding = open_sample(store, "understanding")
        assert samples == [
            {"dimension": "arithmetic", "rng_seed": 7, "rate": 0.1, "created_by": "curator"},
            {"dimension": "understanding", "rng_seed": 12345, "rate": 0.1, "created_by": ANNOTATOR},
        ]
        assert understanding is not None and understanding.size == 6
        assert any("Drew 6 key-information extractions" in n for n in notifications(app))
        assert any("a sample is already open" in n for n in notifications(app))
        assert "Review 6 key-information extractions — press r" in flat(screen_text(app))


async def test_e_extends_a_reviewed_sample_whose_bound_is_too_high(qc_db: Path) -> None:
    with Store(qc_db) as store:
        while (item := next_item(store, "bob", "arithmetic")) is not None:
            decide(store, item.item_id, "bob", "accept")
    config = make_config(dimensions=["arithmetic"], defect_threshold=0.3)
    # an annotator may not extend a sample: only a curator
    app = make_app(qc_db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Extend the notation question sample by" in flat(screen_text(app))
        assert "— a curator does this (the defect bound" in flat(screen_text(app))
        await pilot.press("e")
        await settle(pilot)
        assert any("Only a curator can extend a QC sample. The account tester is not one "
                   "(curators: alice)" in n for n in notifications(app))
    with Store(qc_db) as store:
        assert must(open_sample(store, "arithmetic")).size == 6
    app = make_app(qc_db, config=config, account="Alice")   # names compare case-insensitively
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        with Store(qc_db) as store:
            gate = qc_gate(store, "arithmetic", threshold=0.3)
        assert not gate.passed and gate.needed_reviews is not None
        extra = gate.needed_reviews - gate.reviewed
        assert extra > 0
        # the real reason: the bound, not coverage
        assert f"Extend the notation question sample by {extra} — press e (the defect bound: " \
            f"{gate.needed_reviews} reviewed items with no new defect bring it below 30%" in \
            flat(screen_text(app))
        await pilot.press("e")                  # a bulk action asks first: n leaves it
        await settle(pilot)
        assert f"Notation questions: add {extra} random notation questions" in \
            flat(screen_text(app))
        await pilot.press("n")
        await settle(pilot)
        with Store(qc_db) as store:
            assert must(open_sample(store, "arithmetic")).size == 6
        await pilot.press("e", "y")
        await settle(pilot)
        with Store(qc_db) as store:
            sample = open_sample(store, "arithmetic")
        assert sample is not None and sample.size == 6 + extra
        assert f"Review {extra} notation questions — press r" in flat(screen_text(app))


async def test_g_regenerates_rejected_items_and_requeues_them(tmp_path: Path) -> None:
    db = build_db(tmp_path / "qc.db", sample_dimensions=("understanding",))
    with Store(db) as store:
        item = next_item(store, "bob", "understanding")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", "missing a quantity")
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "1 rejected key-information extraction awaits a fix — press c to fix in place " \
            "(no model is configured, so regenerating would make the same text)" in \
            flat(screen_text(app))
        await pilot.press("g")               # a bulk action: it says what it will do, and asks
        await settle(pilot)
        assert "No model is configured: the rules are tried again on the 1 rejected item(s)" \
            in flat(screen_text(app))
        await pilot.press("y")
        await settle(pilot)
        with Store(db) as store:
            versions = store.query("SELECT version, status, replaces_id FROM artifacts "
                                   "WHERE seed_id = ? AND dimension = 'understanding' "
                                   "ORDER BY version", (item.seed_id,))
            requeued = store.scalar("SELECT COUNT(*) FROM sample_items WHERE seed_id = ?",
                                    (item.seed_id,))
        assert versions == [
            {"version": 1, "status": "superseded", "replaces_id": None},
            {"version": 2, "status": "verified", "replaces_id": item.artifact_id},
        ]
        assert requeued == 2  # the rejected item and its replacement
        assert any("understanding" in n and "verified 1" in n for n in notifications(app))
        assert "Review 6 key-information extractions — press r" in flat(screen_text(app))
        # the replacement is reviewed like any item, and says what it is
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        while screen.item is not None and not screen.item.requeued:
            await pilot.press("a")
            await settle(pilot)
        assert screen.item is not None and screen.item.replaces_id == item.artifact_id
        text = flat(screen_text(app))
        assert "A regenerated replacement of a rejected item." in text
        assert f"replaces #{item.artifact_id}" in text


async def test_g_when_regeneration_fails_says_so_and_the_dashboard_stays_usable(
        qc_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import qcstation.core.construct.pipeline as pipeline
    from qcstation.common.errors import GenerationError

    def broken(*args: object, **kwargs: object) -> None:
        raise GenerationError("the generator model is unreachable", title="Cannot regenerate")

    monkeypatch.setattr(pipeline, "regenerate_rejected", broken)
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g", "y")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "the generator model is unreachable" in flat(screen_text(app))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen)
        assert app.screen.busy_note is None        # the busy note is cleared


async def test_r_opens_the_dimension_with_items_left(tmp_path: Path) -> None:
    db = build_db(tmp_path / "qc.db", sample_dimensions=("understanding",))
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.dimension == "understanding"
        assert screen.item is not None and screen.item.dimension == "understanding"
        artifact = flat(static_text(screen.query_one("#artifact_view"), width=44))
        for heading in KEYINFO_TITLES.values():  # key information laid out by its six fields
            assert heading in artifact
        for known in screen.item.content["known_quantities"]:
            assert known in artifact
        assert "Check: verified" in artifact


async def test_r_without_any_sample_explains(tmp_path: Path) -> None:
    db = build_db(tmp_path / "qc.db", sample_dimensions=())
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen)
        assert any("no open QC sample" in n for n in notifications(app))


async def test_a_broken_database_shows_an_error_instead_of_crashing(tmp_path: Path) -> None:
    db = tmp_path / "broken.db"
    db.write_bytes(b"this is not a sqlite database at all" * 200)
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert app.screen.error_title == "Not a qcstation database"
        assert "not a qcstation database" in flat(screen_text(app))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen) and app.is_running


async def test_command_palette_lists_workstation_commands(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title in ("Review notation questions", "Draw QC samples", "Regenerate rejected items",
                      "Releases", "Help"):
            assert title in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Releases")
        from textual.command import CommandList

        def releases_highlighted() -> bool:     # the search runs in the background: wait for
            found = app.screen.query(CommandList)  # its hit, however slow the machine is
            index = found.first().highlighted if found else None
            if index is None:
                return False
            return "Releases" in str(found.first().get_option_at_index(index).prompt)

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 300
        while not releases_highlighted() and loop.time() < deadline:
            await pilot.pause(0.05)
        assert releases_highlighted()
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "ReleasesScreen"


async def test_heavy_reads_in_a_child_process_give_the_same_dashboard(qc_db: Path) -> None:
    # large databases evaluate gates and counts in a child process (see QCStationApp._offload);
    # force that path on the small database and compare with the in-process one
    texts = []
    for threshold in (10**9, 0):
        app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
        app.subprocess_reads_from = threshold
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = _dashboard(app)
            assert app._large_db is (threshold == 0)
            texts.append([static_text(screen.query_one(f"#{name}"))
                          for name in ("gates", "counts", "gate_rules")])
    assert texts[0] == texts[1]
    assert "NOT PASSED" in texts[1][0] and "gsm8k" in texts[1][1]


def test_child_process_reads_return_cancel_and_fail_readably(qc_db: Path) -> None:
    import time

    from qcstation.app import ReadCancelled, read_in_subprocess
    from qcstation.common.errors import QCStationError

    assert read_in_subprocess("tests.app.slow_read:slow_count", qc_db, 0) == 60
    started = time.monotonic()
    with pytest.raises(ReadCancelled):
        read_in_subprocess("tests.app.slow_read:slow_count", qc_db, 3600,
                           cancelled=lambda: time.monotonic() - started > 0.5)
    assert time.monotonic() - started < 600  # killed, not waited for (the child sleeps an hour)
    with pytest.raises(QCStationError, match="the table is on fire"):
        read_in_subprocess("tests.app.slow_read:broken", qc_db)


def _fix_text(orig_id: str, ask: str = "Find answer.") -> str:
    from tests import factories

    p = factories.problem(int(orig_id.rsplit("-", 1)[1]))
    return (f"Given a = {p['a']}, b = {p['b']} and c = {p['c']}, let t = a + b and "
            f"answer = t × c. {ask}")


async def test_the_sample_and_the_bound_say_what_each_counts(tmp_path: Path) -> None:
    """Three items fixed in place (each a reject, and a fixed version accepted) and one fixed
    version corrected late by a curator: the sample counts 14 reviewed, 4 rejected; the
    bound counts the 10 random draws, 3 rejected. The gate line labels both, and says
    what the difference is (real Z3 checks every fix)."""
    from qcstation.core.review.fixes import fix_in_place
    from qcstation.core.review.items import list_items
    from tests import factories

    db = tmp_path / "late.db"
    with Store(db) as store:
        factories.populate(store, {"gsm8k": 20})
        sample = draw_sample(store, "arithmetic", rate=0.5, rng_seed=3, actor="alice")
        n = 0
        while (item := next_item(store, ANNOTATOR, "arithmetic")) is not None:
            if n < 3:
                fix_in_place(store, item.item_id, _fix_text(item.orig_id), actor=ANNOTATOR,
                             reason="hid a step", curators=("alice",))
            else:
                decide(store, item.item_id, ANNOTATOR, "accept")
            n += 1
        fixed_version = list_items(store, sample.id)[-1]
        fix_in_place(store, fixed_version.item_id, _fix_text(fixed_version.orig_id, "What is answer?"),
                     actor="alice", reason="still unclear", curators=("alice",))
        g = qc_gate(store, "arithmetic", threshold=0.05)
        assert (g.defects, g.reviewed) == (3, 10)
    app = make_app(db, config=make_config(sample_rate=0.5), account="alice")
    async with app.run_test(size=(80, 40)) as pilot:
        await settle(pilot)
        text = flat(static_text(_dashboard(app).query_one("#gates")))
        assert "Notation questions: 14 of 14 reviewed, 4 rejected; defect bound" in text
        assert "from 3 of 10 random draws rejected (must be below 5%)" in text
        assert ("count: 4 of the 14 reviewed are fixed or regenerated versions, 1 of them "
                "rejected; only the 10 random draws enter the bound") in text


def _one_reject(db: Path) -> None:
    """bob rejects one notation question: the attention list reads Review 5 / 1 rejected
    (the queue) / Draw a key-information sample."""
    with Store(db) as store:
        item = next_item(store, "bob", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", "story words left in")


def _type_ahead(app, *keys: str) -> None:
    """Keys as a terminal delivers typed-ahead input (or tmux send-keys): every one queued
    at once, nothing waited for between them (Pilot.press waits for the app to idle after
    each key)."""
    from textual import events

    for key in keys:
        event = events.Key(key, None)
        event.set_sender(app)
        app._driver.send_message(event)


async def test_the_highlight_stays_on_its_line_when_the_list_is_rebuilt(
        qc_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28.4: the list is rebuilt on every load (return from review, F5, every 15 s),
    and Enter must run the line the user moved to. A colleague's sample adds a line above
    the highlighted one: the highlight follows its line (the queue), not its position (which
    now holds the key-information review); unchanged items leave the options alone."""
    from qcstation.widgets.dashboard_panels import AttentionList
    from screens.queue import QueueScreen

    monkeypatch.setattr(DashboardScreen, "AUTO_REFRESH_S", 0.0)
    _one_reject(qc_db)
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        attention = app.screen.query_one("#attention", AttentionList)
        assert [i.action for i in attention.items] == ["review", "queue", "draw_samples"]
        await pilot.press("down")
        assert attention.highlighted == 1 and attention.items[1].action == "queue"
        options = list(attention._options)
        await pilot.press("f5")                     # nothing changed: nothing rebuilt
        await settle(pilot)
        assert attention._options == options and all(
            a is b for a, b in zip(attention._options, options))
        with Store(qc_db) as store:                 # a colleague draws the other sample
            draw_sample(store, "understanding", rate=0.1, rng_seed=1, actor="bob", min_size=6)
        await pilot.press("f5")
        await settle(pilot)
        assert [(i.action, i.dimension) for i in attention.items] == [
            ("review", "arithmetic"), ("review", "understanding"), ("queue", "arithmetic")]
        assert attention.highlighted == 2
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen), type(app.screen).__name__


async def test_keys_typed_ahead_after_review_act_on_the_list_shown(
        qc_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28.4's walk: Esc out of review, then Down Down Enter sent at once (tmux
    send-keys, a user typing ahead over SSH) runs the third line, as one key at a time does;
    the refresh on return rebuilds the list between those keys."""
    monkeypatch.setattr(DashboardScreen, "AUTO_REFRESH_S", 0.0)
    _one_reject(qc_db)
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")                  # the first line: review
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        with Store(qc_db) as store:
            assert open_sample(store, "understanding") is None
        _type_ahead(app, "escape", "down", "down", "enter")
        await settle(pilot)
        # the third line drew the key-information sample (nothing else draws it)
        with Store(qc_db) as store:
            assert open_sample(store, "understanding") is not None
        assert isinstance(app.screen, DashboardScreen)


async def test_the_text_under_next_and_plan_wraps_under_itself_at_80_columns(qc_db: Path) -> None:
    """At 80 columns the words of a gate's 'plan:' went on at column 0, under the labels, and
    read as lines of their own: its wrapped lines start under its first word."""
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gates = _dashboard(app).query_one("#gates")
        lines = static_text(gates, width=gates.content_region.width).rstrip().splitlines()
    labelled = [n for n, line in enumerate(lines) if line.lstrip().startswith("plan: ")]
    assert labelled, lines
    wrapped = 0
    for n in labelled:
        indent = lines[n].index("plan: ") + len("plan: ")
        for after in lines[n + 1:]:
            if after.lstrip().startswith(("next: ", "plan: ", "count: ", "NOT PASSED", "PASSED")):
                break
            assert after.startswith(" " * indent) and after.strip(), lines
            wrapped += 1
    assert wrapped, lines                     # a plan long enough to wrap at 80 columns


async def test_quitting_mid_regeneration_stops_it_without_waiting_for_the_model(
        tmp_path: Path) -> None:
    """Issue 28: `g` against a model server that never replies could not be stopped: after y
    in 'Quit?' the app closed the terminal and waited for the requests in flight (minutes of
    a blank terminal, walked in tmux at 80x24). Quitting now drops them: the screen says so,
    the app quits while the server still has not answered, the attempts are closed as
    stopped and the items stay rejected (the same `g` again resumes)."""
    from qcstation.common.config import parse_config
    from screens.dialogs.confirm import ConfirmModal, WaitModal
    from tests.fake_openai import FakeOpenAI

    db = build_db(tmp_path / "qc.db", sample_dimensions=("arithmetic",))
    with Store(db) as store:
        rejected = []
        for _ in range(2):
            item = next_item(store, "bob", "arithmetic")
            assert item is not None
            decide(store, item.item_id, "bob", "reject", "story words left in")
            rejected.append(item.artifact_id)
    with FakeOpenAI() as fake:
        for _ in range(8):
            fake.hang()                      # takes each request, never answers
        config = parse_config({"qc": {"curators": ["alice"], "min_sample": 6},
                               "generator": {"model": "m", "base_url": fake.base_url,
                                             "timeout_s": 3600, "retries": 0}}, "<test>")
        app = make_app(db, config=config, account=ANNOTATOR)
        async with app.run_test(size=SIZE) as pilot:
            try:
                await settle(pilot)
                await pilot.press("g")
                await settle(pilot)
                await pilot.press("y")
                while len(fake.chat_requests) < 2:           # both requests are in flight
                    await asyncio.sleep(0.05)
                await pilot.press("q")
                while not isinstance(app.screen, ConfirmModal):
                    await pilot.pause()
                await pilot.press("y")
                while app.is_running and not isinstance(app.screen, WaitModal):
                    await pilot.pause()
                assert isinstance(app.screen, WaitModal), "quit without stopping the regeneration"
                assert "Stopping the regeneration of rejected items" in flat(screen_text(app))
                while app.is_running:
                    await pilot.pause()
            finally:                                   # (before the fix: not to hang)
                fake.stop()
        assert len(fake.chat_requests) == 2              # the server never answered
    with Store(db) as store:
        rows = store.query("SELECT verify_status, finished_at FROM attempts "
                           "WHERE generator = 'llm' ORDER BY id")
        statuses = [store.scalar("SELECT status FROM artifacts WHERE id = ?", (a,))
                    for a in rejected]
    assert [r["verify_status"] for r in rows] == ["stopped", "stopped"]
    assert all(r["finished_at"] for r in rows)
    assert statuses == ["rejected", "rejected"]
