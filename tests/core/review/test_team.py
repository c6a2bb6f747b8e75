"""The review team's workstation (issue 9), in the core and the shell: identity and rights,
curator resolutions, the curator queue, fixing in place (through real Z3), honest gate
planning, changing earlier decisions, comments and the team figures."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.core.review import qc
from qcstation.core.review.fixes import editable_text, fix_in_place
from qcstation.common.identity import current_identity, is_curator, os_account, require_curator
from qcstation.common.errors import ReviewError
from tests import factories as f
from tests.conftest import ROOT


# -- a database made by the real pipeline on the shipped sample (offline) ----------------

@pytest.fixture(scope="module")
def shipped_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from qcstation.common.config import parse_config
    from qcstation.core.ingest.importer import import_file, shipped_samples
    from qcstation.core.construct.pipeline import Pipeline

    path = tmp_path_factory.mktemp("shipped") / "template.db"
    with Store(path) as store:
        for sample_path, fmt in shipped_samples():
            import_file(store, sample_path, fmt, actor="importer")
    cfg = parse_config({}, "<test>")
    with Pipeline(path, cfg, actor="generator") as p:
        p.generate(dimensions=["reasoning", "arithmetic", "understanding"])
    with Store(path) as store:
        for dimension in ("arithmetic", "understanding"):
            qc.draw_sample(store, dimension, rate=0.1, rng_seed=12345, actor="lead")
        store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def shipped(shipped_template: Path, tmp_path: Path) -> Store:
    path = tmp_path / "shipped.db"
    shutil.copy(shipped_template, path)
    s = Store(path)
    yield s
    s.close()


def _claim(store: Store, who: str, dimension: str) -> qc.ReviewItem:
    item = qc.next_item(store, who, dimension)
    assert item is not None
    return item


# -- identity -------------------------------------------------------------------------------

def test_the_person_is_the_os_account_not_an_environment_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import pwd

    real = pwd.getpwuid(os.getuid()).pw_name.lower()
    monkeypatch.setenv("USER", "carol")
    monkeypatch.setenv("LOGNAME", "carol")
    monkeypatch.setenv("QCSTATION_USER", "Carol\x1b[31m")
    who = current_identity()
    assert who.account == os_account() == real
    assert who.display == "Carol [31m"          # printable only; a name, not a right
    assert not is_curator(who.account, ["carol"]) or real == "carol"


def test_curator_names_compare_case_insensitively() -> None:
    assert is_curator("alice", ["Alice"]) and is_curator(" ALICE ", ["alice"])
    assert not is_curator("mallory", ["alice"]) and not is_curator("", ["alice"])
    with pytest.raises(ReviewError, match="only a curator can settle a disagreement; the "
                                          "account mallory is not one"):
        require_curator("mallory", ["alice"], "settle a disagreement")
    with pytest.raises(ReviewError, match="no curators are configured"):
        require_curator("alice", [], "exclude a seed")


def test_alice_and_Alice_are_one_annotator(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    qc.draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    item = _claim(store, "Alice", "arithmetic")
    qc.decide(store, item.item_id, "alice", "accept")
    with pytest.raises(ReviewError, match="already decided"):
        qc.decide(store, item.item_id, "ALICE", "reject", "changes the answer")
    assert store.scalar("SELECT annotator FROM reviews") == "alice"


def test_redraw_and_extend_are_for_curators(store: Store) -> None:
    f.populate(store, {"gsm8k": 30})
    info = qc.draw_sample(store, "arithmetic", rate=0.1, rng_seed=1, actor="ann", min_size=3)
    with pytest.raises(ReviewError, match="only a curator can extend a sample"):
        qc.extend_sample(store, info.id, extra=2, actor="ann", curators=["carol"])
    with pytest.raises(ReviewError, match="only a curator can re-draw a sample"):
        qc.draw_sample(store, "arithmetic", rate=0.1, rng_seed=1, actor="ann", redraw=True,
                       curators=["carol"])
    ext = qc.extend_sample(store, info.id, extra=2, actor="Carol", curators=["carol"],
                           reason="coverage")
    assert ext.size == info.size + 2 and ext.params["extensions"][-1]["reason"] == "coverage"


def test_the_event_log_keeps_account_and_display_name(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    qc.draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    store.display_name = "Bob B."
    item = _claim(store, "bob", "arithmetic")
    qc.decide(store, item.item_id, "bob", "reject", "story words left in",
              comment="line one\nline\x07 two", unsure=True)
    row = store.one("SELECT annotator, display_name, comment, unsure FROM reviews")
    assert row == {"annotator": "bob", "display_name": "Bob B.",
                   "comment": "line one\nline two", "unsure": 1}
    ev = store.one("SELECT actor, display_name, detail FROM events WHERE action = 'qc.review.reject'")
    assert (ev["actor"], ev["display_name"]) == ("bob", "Bob B.")
    assert json.loads(ev["detail"])["unsure"] is True


# -- resolutions ----------------------------------------------------------------------------

def _overlap_disagreement(store: Store) -> qc.ReviewItem:
    f.populate(store, {"gsm8k": 20})
    qc.draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead", overlap_rate=0.1)
    while (item := qc.next_item(store, "ann", "arithmetic")) is not None:
        verdict = "reject" if item.overlap else "accept"
        qc.decide(store, item.item_id, "ann", verdict, "changes the answer")
    while (item := qc.next_item(store, "bob", "arithmetic")) is not None:
        qc.decide(store, item.item_id, "bob", "accept")
    disputed = [r for r in qc.queue(store, state="disagreed")]
    assert len(disputed) == 2
    return qc.get_item(store, disputed[0].item_id)


def test_settling_a_disagreement_is_what_the_gate_counts(store: Store) -> None:
    item = _overlap_disagreement(store)
    before = qc.gate(store, "arithmetic", threshold=0.3)
    kappa_before = qc.agreement(store, "arithmetic").to_dict()
    assert before.defects == 2 and item.disagreed
    with pytest.raises(ReviewError, match="only a curator"):
        qc.settle(store, item.item_id, verdict="accept", reason="fine", actor="ann",
                  curators=["carol"])
    with pytest.raises(ReviewError, match="say why"):
        qc.settle(store, item.item_id, verdict="accept", reason="  ", actor="carol",
                  curators=["carol"])
    done = qc.settle(store, item.item_id, verdict="accept", reason="the notation is right",
                     actor="Carol", curators=["carol"])
    assert done["curator"] == "carol" and done["artifact_status"] == "accepted"
    after = qc.gate(store, "arithmetic", threshold=0.3)
    assert after.defects == 1 and after.reviewed == before.reviewed
    # both original decisions stay; kappa still sees them
    assert [d["verdict"] for d in qc.get_item(store, item.item_id).decisions] == \
        ["reject", "accept"]
    assert qc.agreement(store, "arithmetic").to_dict() == kappa_before
    assert [r.state for r in qc.queue(store, state="settled")] == ["settled"]
    with pytest.raises(ReviewError, match="no open disagreement"):
        qc.settle(store, item.item_id, verdict="reject", reason="x", actor="carol",
                  curators=["carol"])


def test_override_closes_an_open_reject_and_is_logged(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    qc.draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead")
    item = _claim(store, "ann", "arithmetic")
    qc.decide(store, item.item_id, "ann", "reject", "story words left in")
    assert qc.gate(store, "arithmetic", threshold=0.5).open_rejects == 1
    assert [r.state for r in qc.queue(store, state="rejected")] == ["awaiting replacement"]
    qc.override(store, item.item_id, verdict="accept", reason="no story words: misread",
                actor="carol", curators=["carol"])
    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert g.open_rejects == 0 and g.defects == 0
    assert f.artifact_status(store, item.artifact_id) == "accepted"
    ev = f.events(store, "qc.override")[0]
    assert ev["actor"] == "carol" and ev["detail"]["reason"] == \
        "no story words: misread"
    row = qc.queue(store, state="overridden")[0]
    assert row.key == f"{item.source}-{item.orig_id}" and "misread" in row.note


def test_queue_filters(store: Store) -> None:
    f.populate(store, {"gsm8k": 6, "mawps": 6})
    qc.draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead")
    seen = []
    while (item := qc.next_item(store, "ann", "arithmetic")) is not None:
        if len(seen) == 0:
            qc.decide(store, item.item_id, "ann", "reject", "garbled text")
        elif len(seen) == 1:
            qc.decide(store, item.item_id, "ann", "skip")
        else:
            qc.decide(store, item.item_id, "ann", "accept")
        seen.append(item)
        if len(seen) == 4:
            break
    assert [r.item_id for r in qc.queue(store, state="rejected")] == [seen[0].item_id]
    assert [r.item_id for r in qc.queue(store, state="skipped")] == [seen[1].item_id]
    assert [r.item_id for r in qc.queue(store, reason="GARBLED")] == [seen[0].item_id]
    assert len(qc.queue(store, annotator="ANN")) == 4
    assert qc.queue(store, annotator="bob") == []
    assert {r.source for r in qc.queue(store, source="mawps")} == {"mawps"}
    assert len(qc.queue(store, state="pending")) == 12 - 4
    with pytest.raises(ReviewError, match="unknown state"):
        qc.queue(store, state="lost")


# -- fixing in place (real pipeline data, real Z3) -------------------------------------------

def test_fix_a_notation_question_in_place_through_z3(shipped: Store) -> None:
    item = _claim(shipped, "ann", "arithmetic")
    text = editable_text(item)
    assert text.startswith("Let ") and text.endswith("?")
    # a wrong edit is refused by Z3 and stores nothing
    wrong = re.sub(r"= (\d+)", lambda m: f"= {int(m.group(1)) + 1}", text, count=1)
    versions = shipped.scalar("SELECT COUNT(*) FROM artifacts")
    with pytest.raises(ReviewError, match="Z3 does not verify the edited question"):
        fix_in_place(shipped, item.item_id, wrong, actor="ann", reason="story words left in")
    with pytest.raises(ReviewError, match="drifted from its rendering: the given number"):
        fix_in_place(shipped, item.item_id, "What is 2 + 2?", actor="ann", reason="x")
    with pytest.raises(ReviewError, match="say what was wrong"):
        fix_in_place(shipped, item.item_id, text.replace("Let ", "Let  "), actor="ann")
    assert shipped.scalar("SELECT COUNT(*) FROM artifacts") == versions
    assert shipped.scalar("SELECT COUNT(*) FROM reviews") == 0
    # a right edit (a variable renamed) is verified, linked and accepted by its author
    name = re.match(r"Let (\w+) =", text).group(1)  # type: ignore[union-attr]
    fixed = re.sub(rf"\b{name}\b", "q1", text)
    done = fix_in_place(shipped, item.item_id, fixed, actor="Ann", reason="unclear names")
    new = shipped.one("SELECT * FROM artifacts WHERE id = ?", (done["artifact_id"],))
    assert (new["generator"], new["author"], new["replaces_id"], new["status"]) == \
        ("human", "ann", item.artifact_id, "accepted")
    assert json.loads(new["content"])["notation"] == fixed
    assert json.loads(new["verify_result"])["status"] == "verified"
    assert f.artifact_status(shipped, item.artifact_id) == "superseded"
    old_reviews = [(r["verdict"], r["reason"]) for r in shipped.query(
        "SELECT verdict, reason FROM reviews WHERE sample_item_id = ?", (item.item_id,))]
    assert old_reviews == [("reject", "fixed in place: unclear names")]
    g = qc.gate(shipped, "arithmetic", threshold=0.05)
    assert g.open_rejects == 0 and g.defects == 1     # the fixed version was a defect
    shown = qc.get_item(shipped, done["new_item_id"])
    assert shown.author == "ann" and shown.requeued and shown.outcome == "accept"


def test_fix_key_information_of_a_rejected_item(shipped: Store) -> None:
    item = _claim(shipped, "ann", "understanding")
    qc.decide(shipped, item.item_id, "ann", "reject", "wrong goal")
    text = editable_text(item)
    assert "Goal: " in text and "Known Quantities:" in text
    with pytest.raises(ReviewError, match="Goal is empty"):
        fix_in_place(shipped, item.item_id, re.sub(r"Goal: .*", "Goal:", text), actor="bob")
    with pytest.raises(ReviewError, match="missing field"):
        fix_in_place(shipped, item.item_id, "Goal: x\n", actor="bob")
    fixed = re.sub(r"Goal: .*", "Goal: Find the final amount asked for.", text)
    done = fix_in_place(shipped, item.item_id, fixed, actor="bob")
    assert not done["rejected_first"]                  # it was rejected already
    cur = qc.current_artifact(shipped, item.seed_id, "understanding")
    assert cur is not None and cur["author"] == "bob" and cur["status"] == "accepted"
    assert json.loads(cur["content"])["goal"] == "Find the final amount asked for."
    assert qc.gate(shipped, "understanding", threshold=0.05).open_rejects == 0


# -- gate planning and wording ----------------------------------------------------------------

def test_gate_plan_says_what_the_gate_needs_and_when_it_is_out_of_reach() -> None:
    plan = qc.gate_plan(110, threshold=0.05)
    assert (plan["clean"], plan["after_one"], plan["reachable"]) == (59, 93, True)
    assert plan["sentence"].startswith("The gate (5% threshold) needs 59 reviews with no "
                                       "defect, 93 after one reject; 110 verified items")
    small = qc.gate_plan(40, threshold=0.05)
    assert not small["reachable"]
    assert "out of reach, since at most 40 items can be reviewed. Ways out: import more " \
           "seeds" in small["sentence"]
    assert "raise [qc] defect_threshold (now 5%)" in small["sentence"]


def test_a_bound_below_the_threshold_never_reads_as_the_threshold() -> None:
    from qcstation.widgets.labels import gate_line

    assert qc.bound_text(0.0495, 0.05) == "4.95%"
    assert qc.bound_text(0.04999, 0.05) == "4.999%"
    assert qc.bound_text(0.393, 0.05) == "39.3%"
    assert qc.bound_text(0.0501, 0.05) == "5%"           # a fail may read as the threshold
    gate = qc.GateStatus(dimension="arithmetic", passed=True, rule="", reviewed=90, defects=1,
                         upper_bound=0.0495, threshold=0.05, open_rejects=0, blockers=[],
                         next_step="")
    assert gate_line(gate) == "Gate: passed · defect bound 4.95% (needs < 5%)"


def test_extension_reasons_are_the_real_ones(store: Store) -> None:
    f.populate(store, {"gsm8k": 40})
    qc.draw_sample(store, "arithmetic", rate=0.1, rng_seed=1, actor="lead", min_size=4)
    while (item := qc.next_item(store, "ann", "arithmetic")) is not None:
        qc.decide(store, item.item_id, "ann", "accept")
    g = qc.gate(store, "arithmetic", threshold=0.3)
    assert g.extend_by > 0 and g.extend_reason.startswith("the defect bound")
    assert "new verified items arrived" not in g.next_step
    f.populate(store, {"gsm8k": 100}, start=100)       # a hundred new verified items arrive
    g = qc.gate(store, "arithmetic", threshold=0.3)
    assert g.extend_reason == "coverage: 100 new verified items arrived since the draw"
    assert "(100 new verified items arrived since the draw)" in g.next_step


def test_the_unreachable_gate_names_the_ways_out_not_a_redraw(store: Store) -> None:
    f.populate(store, {"gsm8k": 12})
    qc.draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="lead")
    while (item := qc.next_item(store, "ann", "arithmetic")) is not None:
        qc.decide(store, item.item_id, "ann", "accept")
    g = qc.gate(store, "arithmetic", threshold=0.05)
    assert "out of reach" in g.next_step and "re-draw" not in g.next_step
    assert "fix rejected items in place" in g.next_step
    assert not g.plan["reachable"]


# -- changing an earlier decision, team figures ------------------------------------------------

def test_any_earlier_decision_of_your_own_can_be_changed(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    qc.draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead")
    first = _claim(store, "ann", "arithmetic")
    r1 = qc.decide(store, first.item_id, "ann", "accept")
    second = _claim(store, "ann", "arithmetic")
    qc.decide(store, second.item_id, "ann", "accept")
    with pytest.raises(ReviewError, match="is ann's, not yours"):
        qc.change_decision(store, r1, "bob", "reject", "x")
    new = qc.change_decision(store, r1, "ann", "reject", "changes the answer", unsure=True)
    rows = store.query("SELECT id, verdict, undone_at, changes_id FROM reviews "
                       "WHERE sample_item_id = ? ORDER BY id", (first.item_id,))
    assert [(r["verdict"], r["undone_at"] is None, r["changes_id"]) for r in rows] == \
        [("accept", False, None), ("reject", True, r1)]
    assert rows[1]["id"] == new
    assert f.artifact_status(store, first.artifact_id) == "rejected"
    assert f.events(store, "qc.review.reject")[0]["detail"]["changes_review_id"] == r1


def test_team_stats_per_annotator_and_kappa_with_a_note(store: Store) -> None:
    _overlap_disagreement(store)
    stats = qc.team_stats(store, ["arithmetic"])
    people = {p["annotator"]: p for p in stats["annotators"]}
    assert people["ann"]["decided"] == 20 and people["ann"]["rejects"] == 2
    assert people["bob"]["decided"] == 2 and people["bob"]["reject_rate"] == 0
    assert people["ann"]["per_hour"] is None          # 20 decisions within seconds: no rate
    a = stats["agreement"]["arithmetic"]
    assert a["pairs"] == 2 and "too few to mean anything" in a["note"]
    assert a["disagreed"] == 2


# -- the shell -----------------------------------------------------------------------------------

def _cli(db: Path, cwd: Path, *args: str, stdin: str | None = None
         ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
                          input=stdin)


def test_every_shell_argument_has_help() -> None:
    from qcstation.cli import build_parser

    missing: list[str] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif not action.help and not isinstance(action, argparse._HelpAction):
                missing.append(" ".join(path + [action.dest]))

    walk(build_parser(), ["qcstation"])
    assert missing == []


@pytest.mark.slow
def test_cli_queue_settle_fix_and_team(shipped: Store, tmp_path: Path) -> None:
    db = shipped.path
    item = _claim(shipped, "ann", "arithmetic")
    qc.decide(shipped, item.item_id, "ann", "reject", "story words left in")
    shipped.close()
    conf = tmp_path / "qcstation.toml"
    conf.write_text(f'[qc]\ncurators = ["{os_account()}"]\n', encoding="utf-8")
    r = _cli(db, tmp_path, "qc", "queue", "--state", "rejected")
    assert r.returncode == 0, r.stderr
    assert f"{item.source}-{item.orig_id}" in r.stdout and "awaiting replacement" in r.stdout
    r = _cli(db, tmp_path, "qc", "edit-text", str(item.item_id))
    assert r.returncode == 0 and r.stdout.strip() == item.content["notation"]
    name = re.match(r"Let (\w+) =", r.stdout).group(1)  # type: ignore[union-attr]
    r = _cli(db, tmp_path, "--annotator", "Fixer", "qc", "fix", str(item.item_id), "--file", "-",
             stdin=re.sub(rf"\b{name}\b", "q1", r.stdout), )
    assert r.returncode == 0, r.stderr
    assert "fixed in place as version 2" in r.stdout
    r = _cli(db, tmp_path, "--config", str(conf), "qc", "override", str(item.item_id), "accept",
             "--reason", "x")
    assert r.returncode == 2 and "regenerated or fixed since" in r.stderr
    r = _cli(db, tmp_path, "--config", str(conf), "qc", "team", "--json")
    assert r.returncode == 0, r.stderr
    people = {p["annotator"]: p for p in json.loads(r.stdout)["annotators"]}
    assert people[os_account()]["names"] == ["Fixer"] and people["ann"]["rejects"] == 1


# -- releases ------------------------------------------------------------------------------------

def test_release_diff_summary_and_what_changed_and_the_datasheet(store: Store,
                                                                tmp_path: Path) -> None:
    from exports.writers import datasheet_markdown as render_datasheet
    from qcstation.core.release import releases as rel
    from qcstation.common.config import load_config
    from tests.core.release.test_release import TOML, _review_all

    path = tmp_path / "qcstation.toml"
    path.write_text(TOML.replace("defect_threshold = 0.3", "defect_threshold = 0.5"),
                    encoding="utf-8")
    cfg = load_config(path, env={})
    f.populate(store, {"gsm8k": 20})
    _review_all(store, cfg)
    first = rel.approve_release(store, "smart", "1.0", actor="Carol", cfg=cfg)
    assert first.approved_by == "carol"
    sheet = render_datasheet(first.manifest)
    assert "no item was rejected" in sheet and "regenerated" not in sheet
    with pytest.raises(rel.IdenticalReleaseError, match="identical to smart 1.0"):
        rel.approve_release(store, "smart", "1.1", actor="carol", cfg=cfg)
    # a reviewed key-information item is rejected and fixed in place
    item = qc.queue(store, state="accepted", dimension="understanding")[0]
    qc.override(store, item.item_id, verdict="reject", reason="wrong goal", actor="carol",
                curators=["carol"])
    text = editable_text(qc.get_item(store, item.item_id))
    fix_in_place(store, item.item_id, re.sub(r"Goal: .*", "Goal: Count the second trip.", text),
                 actor="bob")
    second = rel.approve_release(store, "smart", "1.1", actor="carol", cfg=cfg)
    d = rel.diff_releases(store, "smart", "1.0", "1.1")
    assert d["counts"]["changed"] == 1 and d["changed_by_field"]
    changes = d["changed"][0]["changes"]
    assert any("Count the second trip." in line and "→" in line for line in changes)
    assert "provenance.understanding.author: added bob" in changes
    assert "provenance.understanding.generator: llm → human" in changes
    sheet = render_datasheet(second.manifest)
    assert "1 seed had a rejected item: 1 fixed in place by a reviewer and accepted" in sheet
    assert "1 outcome(s) overridden by a curator" in sheet


def test_the_datasheet_bound_never_rounds_a_pass_to_the_threshold() -> None:
    from exports.writers import _bound

    assert _bound(0.04995, 0.05) == "4.995%"
    assert _bound(0.2589, 0.5) == "25.89%"
    assert _bound(0.05, 0.05) == "5.00%"
