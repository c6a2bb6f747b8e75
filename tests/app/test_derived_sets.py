"""A derived set in the workstation: its own samples, gates and blockers on the dashboard,
its own gate in review (issue 28.1)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input

from db import Store
from qcstation.app import make_app
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.gate import gate as qc_gate
from qcstation.core.review.sampling import draw_sample, open_sample
from qcstation.widgets.labels import noun_in
from screens.dashboard import DashboardScreen
from screens.review import ReviewScreen
from tests.app.conftest import (ANNOTATOR, derived_template, flat, make_config, screen_text, settle,
                                static_text)

SIZE = (80, 24)
CONFIG: dict[str, Any] = dict(curators=[ANNOTATOR], defect_threshold=0.7, min_sample=1,
                              dimensions=["arithmetic"])


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three GSM8K seeds with their artifacts; the working set's arithmetic sample all
    accepted (its gate passes); the derived set dyn (variants) built, not sampled."""
    db = derived_template(tmp_path_factory.mktemp("dset"))
    with Store(db) as store:
        assert qc_gate(store, "arithmetic", threshold=0.7).passed
    return db


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "d.db"
    shutil.copy(template, path)
    return path


def _gates(app) -> str:
    return flat(static_text(app.screen.query_one("#gates"), width=200))


async def test_the_dashboard_shows_a_derived_sets_gate_and_draws_its_sample(db: Path) -> None:
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen)
        text = flat(screen_text(app))
        # the working set passes, the derived set is not sampled: not "All QC gates pass"
        assert "All QC gates pass" not in text
        assert "Draw a QC sample of notation questions of set dyn — press s" in text
        gates = _gates(app)
        assert "PASSED Notation questions: 3 of 3 reviewed, 0 rejected" in gates
        assert "NOT PASSED Notation questions · set dyn: no open sample" in gates
        rules = flat(static_text(app.screen.query_one("#gate_rules"), width=200))
        assert "Notation questions · set dyn (arithmetic@dyn)" in rules
        # s draws the derived set's sample (the working set's gate passes: none drawn there)
        await pilot.press("s")
        await settle(pilot)
        with Store(db) as store:
            sample = open_sample(store, "arithmetic", "dyn")
            assert sample is not None and sample.size >= 1
        text = flat(screen_text(app))
        assert f"Review {sample.size} {noun_in('arithmetic', 'dyn', sample.size)} — press r" in text
        assert f"Notation questions · set dyn: 0 of {sample.size} reviewed" in _gates(app)


async def test_review_shows_the_gate_of_the_items_own_set(db: Path) -> None:
    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.item is not None and screen.item.scope == "dyn"
        # the working set's gate passes; this item's set (dyn) does not
        gate_line = flat(static_text(screen.query_one("#gate_line"), width=200))
        assert gate_line.startswith("Gate of set dyn: not passed"), gate_line
        await pilot.press("x", "1")
        await settle(pilot)
        with Store(db) as store:
            dyn = qc_gate(store, "arithmetic", threshold=0.7, scope="dyn")
            assert dyn.defects == 1 and not dyn.passed
            assert qc_gate(store, "arithmetic", threshold=0.7).passed
        assert "Gate of set dyn: not passed" in flat(screen_text(app))


async def test_a_derived_release_is_approved_and_exported_from_the_app(
        db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Releases: s chooses the set a new release is of; a approves a derived release, split
    by derived family as chosen in the dialog; e exports it (no shell)."""
    import json

    from screens.dialogs.approve_release import ApproveReleaseModal
    from screens.releases import ReleasesScreen

    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
        while (item := next_item(store, ANNOTATOR, scope="dyn")) is not None:
            decide(store, item.item_id, ANNOTATOR, "accept")
    monkeypatch.chdir(tmp_path)
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReleasesScreen) and screen.scopes == ["", "dyn"]
        await pilot.press("s")
        await settle(pilot)
        assert screen.scope == "dyn" and screen.blockers == []
        assert "New release of the derived set dyn" in str(
            screen.query_one("#blockers").border_title)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApproveReleaseModal) and app.screen.scope == "dyn"
        assert app.screen.query_one("#release_name", Input).value == "dyn-rel"
        modal = app.screen
        assert isinstance(modal, ApproveReleaseModal)
        assert modal.splits() == "set"                 # the default
        await pilot.press("down", "enter")             # the choice (focused first) -> family
        await settle(pilot)
        assert modal.splits() == "family" and modal.focused is modal.query_one("#release_notes")
        await pilot.press("ctrl+s")
        await settle(pilot)
        shown: object = app.screen               # no longer the dialog
        assert shown is screen
        [info] = screen.releases
        assert (info.name, info.manifest["derived"]["set"]) == ("dyn-rel", "dyn")
        assert info.manifest["split_by"] == "family"
        await pilot.press("e")
        await settle(pilot)
        # the panel lists the splits, one too (it listed them only when there were two or more)
        detail = flat(static_text(screen.query_one("#release_detail"), width=200))
        assert "Splits: variants " in detail and "(variants.jsonl)" in detail, detail
        # the same data in another layout is a new version, not "Identical release"
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApproveReleaseModal) and app.screen.splits() == "set"
        await pilot.press("ctrl+s")
        await settle(pilot)
        after: object = app.screen               # not a confirmation of an identical release
        assert after is screen, flat(screen_text(app))
        assert [r.manifest["split_by"] for r in screen.releases] in (["set", "family"],
                                                                     ["family", "set"])
        detail = flat(static_text(screen.query_one("#release_detail"), width=200))
        assert "Splits: test " in detail and "(data.jsonl)" in detail, detail
    folder = tmp_path / "exports" / "dyn-rel" / info.version
    assert not (folder / "data.jsonl").exists()       # one file per family: variants
    records = [json.loads(line) for line in (folder / "variants.jsonl").read_text().splitlines()]
    assert records and {r["set"] for r in records} == {"dyn"}


async def test_all_gates_pass_names_a_derived_set_with_no_release(db: Path) -> None:
    """walk9: with the working set released and a derived set sampled, reviewed and passing,
    the dashboard said 'All QC gates pass — approved as smart@1.0.0. Next: evaluate models on
    it', the derived set never named: approving its release was found only by trying s on
    the releases screen. The line names the set and the keys; Enter opens the releases; once
    the set has a release the line is as before."""
    from qcstation.core.release import releases as rel
    from screens.releases import ReleasesScreen

    config = make_config(**CONFIG)
    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
        while (item := next_item(store, ANNOTATOR, scope="dyn")) is not None:
            decide(store, item.item_id, ANNOTATOR, "accept")
        rel.approve_release(store, "smart", "1.0.0", actor=ANNOTATOR, cfg=config)
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = flat(screen_text(app))
        assert ("All QC gates pass — the working set is approved as smart@1.0.0; the derived "
                "set dyn has no release yet — press l, then s to choose it and a to approve"
                in text), text
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ReleasesScreen)
    with Store(db) as store:
        rel.approve_release(store, "dyn-rel", "1.0.0", actor=ANNOTATOR, cfg=config, scope="dyn")
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = flat(screen_text(app))
        assert "All QC gates pass — approved as smart@1.0.0. Next: evaluate models" in text
        assert "no release yet" not in text


async def test_a_derived_sets_line_in_needs_attention_reviews_that_set(db: Path) -> None:
    """Enter on "Review N notation questions of set dyn" reviews dyn's sample, item after
    item, while the working set has an item left too (it opened the working set's)."""
    from qcstation.core.review.decisions import undo_last

    with Store(db) as store:
        assert undo_last(store, ANNOTATOR) is not None        # the working set: one left
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
        sample = open_sample(store, "arithmetic", "dyn")
        assert sample is not None
        size = sample.size
    assert size >= 2
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        from qcstation.widgets.dashboard_panels import AttentionList

        lines = [item.text for item in app.screen.query_one("#attention", AttentionList).items]
        assert lines[:2] == [f"Review 1 {noun_in('arithmetic', '', 1)} — press r",
                             f"Review {size} {noun_in('arithmetic', 'dyn', size)} — press r"]
        await pilot.press("down", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        seen: list[int] = []
        while screen.item is not None and screen.editable:
            assert screen.item.scope == "dyn", seen
            seen.append(screen.item.item_id)
            await pilot.press("a")
            await settle(pilot)
        assert len(seen) == size
        # done: the progress shown is dyn's sample (not the working set's, left to others)
        assert screen.progress is not None and screen.progress.total == size
        assert screen.progress.reviewed == size
    with Store(db) as store:      # the working set's item is still undecided
        left = next_item(store, ANNOTATOR, "arithmetic", scope="")
        assert left is not None and left.scope == ""


async def test_enter_on_a_draw_line_draws_that_sets_sample_only(db: Path) -> None:
    """Enter on "Draw a QC sample of notation questions of set dyn" draws dyn's notation
    sample, not every sample due (it ran s: the working set's key information too)."""
    from qcstation.widgets.dashboard_panels import AttentionList

    config = make_config(**{**CONFIG, "dimensions": ["arithmetic", "understanding"]})
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = [item.text for item in app.screen.query_one("#attention", AttentionList).items]
        wanted = f"Draw a QC sample of {noun_in('arithmetic', 'dyn')} — press s"
        others = [line for line in lines if line.startswith("Draw a QC sample")
                  and line != wanted]
        assert wanted in lines and others, lines      # more than one sample is due
        # the highlight starts on the first line: it did not follow "Checking the QC
        # gates…" down while the gates loaded (it ended on the third line)
        assert app.screen.query_one("#attention", AttentionList).highlighted == 0
        for _ in range(lines.index(wanted)):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
    with Store(db) as store:
        assert open_sample(store, "arithmetic", "dyn") is not None
        assert open_sample(store, "understanding", "") is None
        assert open_sample(store, "understanding", "dyn") is None


async def test_set_in_the_queue_filter_lists_one_derived_sets_items(db: Path) -> None:
    """The queue's filter had no key for a derived set: ``set:dyn`` lists that set's sampled
    items only (the working set's are left out); help names the key."""
    from screens.queue import QueueScreen, parse_filter
    assert parse_filter("set:dyn state:pending") == {"scope": "dyn", "state": "pending"}
    with Store(db) as store:
        sample = draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR,
                             min_size=1, scope="dyn")
        dyn_items = {int(r["id"]) for r in store.query(
            "SELECT id FROM sample_items WHERE sample_id = ?", [sample.id])}
    assert dyn_items
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        assert {r.item_id for r in queue.rows} > dyn_items     # the working set's too
        assert "set:" in queue.help_notes().plain
        await pilot.press("slash", *"set:dyn", "enter")
        await settle(pilot)
        assert {r.item_id for r in queue.rows} == dyn_items
        box = queue.query_one("#queue_filter", Input)
        box.value = "set:nosuchset"
        await pilot.press("slash", "enter")
        await settle(pilot)
        assert queue.rows == []


async def test_a_derived_items_name_keeps_its_transform_and_index_in_the_review_title(
        db: Path) -> None:
    """The seed pane's title cut a derived item's key at its end, at 80 columns to
    'gsm8k-…', so the set, transform and index (``~dyn.v3``) that tell the items of one
    parent apart were lost; a long parent id is cut in its middle instead."""
    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.item is not None and screen.item.scope == "dyn"
        key = screen.item.key
        tail = key[key.rindex("~"):]
        title = next(r for r in screen_text(app).splitlines() if "─" in r and "~" in r)
        assert tail in title, title
        assert key.split("~")[0][:3] in title, title
        with Store(db) as store:
            store.execute("UPDATE seeds SET orig_id = 'p' || substr(hex(randomblob(40)), 1, 70) "
                          "|| '~' || substr(orig_id, instr(orig_id, '~') + 1) "
                          "WHERE status = 'derived'")
        await pilot.press("n")   # the next item shown has a long parent id
        await settle(pilot)
        assert screen.item is not None and len(screen.item.key) > 75
        tail = screen.item.key[screen.item.key.rindex("~"):]
        title = next(r for r in screen_text(app).splitlines() if "─" in r and "~" in r)
        assert tail in title and "…" in title, title


async def test_the_approve_dialog_opens_on_the_split_choice_and_takes_fast_keys_in_order(
        db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Walked in tmux: the dialog opened on the version, and Tab, Down, Enter typed at once
    (one read of the terminal) approved one split, not one per family: Enter (a priority
    binding) ran before Tab and Down had gone through the version field's queue. It opens on
    the choice the curator must make (the prompt says why), and keys act in the order typed."""
    from screens.dialogs.approve_release import ApproveReleaseModal
    from tests.app.test_paste import _reads

    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
        while (item := next_item(store, ANNOTATOR, scope="dyn")) is not None:
            decide(store, item.item_id, ANNOTATOR, "accept")
    monkeypatch.chdir(tmp_path)
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("l", "s", "a"):
            await pilot.press(key)
            await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ApproveReleaseModal)
        assert modal.focused is modal.query_one("#release_splits")
        assert "Choose the splits first" in flat(screen_text(app))
        # first as the prompt says: on the screen and in the focus order (it came after the
        # name and version: Tab from the choice went to the notes)
        splits, name = modal.query_one("#release_splits"), modal.query_one("#release_name")
        assert splits.region.y < name.region.y
        assert modal.focus_chain.index(splits) < modal.focus_chain.index(name)
        # down and Enter in one read: family chosen, the notes next
        for message in _reads("\x1b[B\r", focus=False):
            app.post_message(message)  # type: ignore[arg-type]
        await settle(pilot)
        assert modal.splits() == "family" and modal.focused is modal.query_one("#release_notes")
        # Shift+Tab twice, Tab and a version typed at once land in the version, in order
        modal.query_one("#release_version", Input).value = ""
        for message in _reads("\x1b[Z\x1b[Z\t", focus=True):
            app.post_message(message)  # type: ignore[arg-type]
        for key in "2.0":
            app.post_message(events.Key(key, key))
        await settle(pilot)
        assert modal.query_one("#release_version", Input).value == "2.0"
        assert modal.query_one("#release_notes", Input).value == ""


async def test_a_set_is_sampled_and_gated_on_the_dimensions_its_release_needs(db: Path) -> None:
    """An inverse set's items carry Reasoning and the final answer, no notation question: its
    release is gated on Reasoning (release.derived.scope_dimensions), but the dashboard's s
    drew (empty) samples of the configured dimensions and showed their gates for the set
    ("0 of the 9 reviews it needs"), never the Reasoning gate the release waited for, whose
    sample only `qcstation qc sample all --set back` drew. The dashboard samples and shows,
    per set, the dimensions its release needs."""
    from qcstation.common.config import load_config
    from qcstation.core.derive.runner import run_derive
    from qcstation.core.derive.transforms import Options

    run_derive(db, load_config(None, env={}), kind="inverse", name="back",
               opts=Options(rng_seed=4))
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM derived_items di JOIN derive_sets ds ON "
                            "ds.id = di.set_id WHERE ds.name = 'back'")
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        with Store(db) as store:
            assert open_sample(store, "reasoning", "back") is not None
            assert open_sample(store, "arithmetic", "back") is None
        gates = _gates(app)
        assert "SMT-LIB formalisations · set back: 0 of 1 reviewed" in gates, gates
        assert "Notation questions · set back" not in gates, gates
        assert "Notation questions · set dyn" in gates, gates
        # its items are reviewed under its gate; a formalisation is not fixed in place, so
        # the footer does not offer e (it offered 'e Fix', which only refused)
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        dashboard.open_review("reasoning", "back")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.item is not None
        footer = screen_text(app).splitlines()[-1]
        assert "a Accept" in footer and "e Fix" not in footer, footer


async def test_a_flagged_item_is_let_through_from_the_releases_screen(
        db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flagged derived item stopped the release with a blocker that sent the curator to the
    shell (`qcstation release override ITEM --dimension DIM --reason TEXT`; walked at 80x24 on
    an inverse set). o on the releases screen picks the flagged item and records the reason."""
    from screens.dialogs.override_flags import OverrideFlagsModal
    from screens.releases import ReleasesScreen

    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
        while (item := next_item(store, ANNOTATOR, scope="dyn")) is not None:
            decide(store, item.item_id, ANNOTATOR, "accept")
        art = store.scalar(
            "SELECT a.id FROM artifacts a JOIN derived_items di ON di.seed_id = a.seed_id "
            "WHERE a.dimension = 'reasoning' AND a.status = 'verified' ORDER BY a.id LIMIT 1")
        store.execute("UPDATE artifacts SET flags = ?, flag_codes = 'stated-literal' WHERE id = ?",
                      ('[{"code": "stated-literal", "message": "a value stated twice"}]', art))
    monkeypatch.chdir(tmp_path)
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReleasesScreen)
        await pilot.press("s")
        await settle(pilot)
        assert screen.scope == "dyn" and screen.blockers is not None
        assert any("1 flagged item would be released" in b and "o on the releases screen" in b
                   for b in screen.blockers), screen.blockers
        assert "o Flags" in screen_text(app).splitlines()[-1]
        await pilot.press("o")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, OverrideFlagsModal)
        assert "reasoning: stated-literal" in flat(screen_text(app))
        await pilot.press("enter")                    # the item -> the reason
        await settle(pilot)
        await pilot.press("enter")                    # no reason: refused, says why
        await settle(pilot)
        assert app.screen is modal and "Say why its flags do not stop it" in flat(screen_text(app))
        modal.query_one("#override_flags_reason", Input).value = "the value is stated once only"
        await pilot.press("enter")
        await settle(pilot)
        back: object = app.screen                 # the dialog closed
        assert back is screen
        assert screen.blockers == [], screen.blockers
    with Store(db) as store:
        reason = store.scalar("SELECT reason FROM flag_overrides WHERE artifact_id = ?", (art,))
    assert reason == "the value is stated once only"


async def test_a_derived_release_waits_for_the_gates_of_its_parent_set(db: Path) -> None:
    """walk8: a derived release was approved while the working set's gates failed (its items
    are made from the working set's seeds). The releases screen lists the parent set's
    failing gate among the set's blockers, and a refuses."""
    from screens.releases import ReleasesScreen

    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
        while (item := next_item(store, ANNOTATOR, scope="dyn")) is not None:
            decide(store, item.item_id, ANNOTATOR, "accept")
    # the working set's understanding gate joins (no sample drawn: it fails)
    config = make_config(**{**CONFIG, "dimensions": ["arithmetic", "understanding"]})
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("l", "s"):
            await pilot.press(key)
            await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReleasesScreen) and screen.scope == "dyn"
        panel = flat(screen_text(app))
        assert ("understanding QC gate of the parent set (the working set): no understanding "
                "sample has been drawn yet") in panel, panel
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ReleasesScreen)          # no approve dialog
        with Store(db) as store:
            assert store.query("SELECT id FROM releases") == []


async def test_enter_on_a_sets_awaits_a_fix_line_lists_that_sets_rejected_items(
        db: Path) -> None:
    """walk28a: Enter on "1 rejected key-information extraction of set cf1 awaits a fix —
    press c" opened the queue filtered on the dimension alone: 32 rows, the working set's
    pending items first, the rejected cf1 item not on screen. It lists that set's rejected
    items (state:rejected set:NAME); a line of the working set lists rejects of every set."""
    from screens.queue import QueueScreen
    from qcstation.widgets.dashboard_panels import AttentionList

    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
        item = next_item(store, ANNOTATOR, "arithmetic", scope="dyn")
        assert item is not None
        decide(store, item.item_id, ANNOTATOR, "reject", "a number not in the problem")
    app = make_app(db, config=make_config(**CONFIG), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        attention = app.screen.query_one("#attention", AttentionList)
        lines = [i.text for i in attention.items]
        at = next(n for n, i in enumerate(attention.items) if i.action == "queue")
        assert "of set dyn awaits a fix" in lines[at], lines
        await pilot.press(*["down"] * (at - (attention.highlighted or 0)), "enter")
        await settle(pilot)
        queue = app.screen
        assert isinstance(queue, QueueScreen), type(queue).__name__
        assert queue.query_one("#queue_filter", Input).value == \
            "state:rejected dim:arithmetic set:dyn"
        assert [r.item_id for r in queue.rows] == [item.item_id]
