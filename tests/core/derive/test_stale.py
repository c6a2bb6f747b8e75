"""Stale derived items are found: an item whose parent's formalization changed, or that
today's rules no longer formalize as stored, is listed with the reason; a freshly built set
has none. Real SQLite, real Z3, the real rules; the CLI in a real subprocess."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from db.store import now
from qcstation.common.config import load_config
from qcstation.core.derive.runner import run_derive
from qcstation.core.derive.stale import check_set, rule_sources, rules_fingerprint
from qcstation.core.derive.transforms import Options
from tests.conftest import ROOT
from tests.core.derive.helpers import SEEDS, make_db
from tests.must import must

CFG = load_config(None, env={})
KINDS = ("variants", "ladder", "perturb", "counterfactual", "inverse")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = make_db(tmp_path_factory.mktemp("stale"), ["james", "janet", "jacket", "rug"])
    for kind in KINDS:
        run_derive(db, CFG, kind=kind, opts=Options(rng_seed=3, variants=3))
    return db


@pytest.fixture
def db(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "d.db"
    shutil.copy(built, out)
    return out


def _item(store: Store, set_name: str, transform: str, parent: str) -> dict:
    row = store.one(
        "SELECT di.seed_id, s.orig_id FROM derived_items di JOIN seeds s ON s.id = di.seed_id "
        "JOIN derive_sets ds ON ds.id = di.set_id JOIN seeds p ON p.id = di.parent_id "
        "WHERE ds.name = ? AND di.transform = ? AND p.question = ? ORDER BY di.seed_id LIMIT 1",
        (set_name, transform, SEEDS[parent]["question"]))
    assert row is not None, (set_name, transform, parent)
    return row


def _edit(store: Store, seed_id: int, dimension: str, fn: object, *, stamp: bool = True) -> None:
    """Change an artifact's content (``stamp``: and its ``updated_at``, as every edit does)."""
    row = must(store.one("SELECT id, content, updated_at FROM artifacts WHERE seed_id = ? AND "
                    "dimension = ?", (seed_id, dimension)))
    content = fn(json.loads(row["content"]))  # type: ignore[operator]
    store.execute("UPDATE artifacts SET content = ?, updated_at = ? WHERE id = ?",
                  (json.dumps(content, sort_keys=True), now() if stamp else row["updated_at"],
                   int(row["id"])))


def test_a_fresh_set_of_every_kind_has_no_stale_item(built: Path) -> None:
    with Store(built) as s:
        for kind in KINDS:
            report = check_set(s, kind)
            assert report.items > 0 and report.parents > 0, kind
            assert report.stale == [], (kind, report.stale[:3])


def test_an_item_the_rules_now_formalize_differently_is_stale(db: Path) -> None:
    # what a rule fix leaves behind: the item's stored formalization, built from the same
    # parent, is not what the rules make of the item's own text today. Here the text is what
    # changed (its annotations multiply in the other order), which the check cannot tell
    # from the rules changing: stored (* a b), today (* b a)
    with Store(db) as s:
        item = _item(s, "variants", "variant", "james")
        sid = int(item["seed_id"])
        sol = str(s.scalar("SELECT solution FROM seeds WHERE id = ?", (sid,)))
        swapped = re.sub(r"<<(\d+)\*(\d+)=", r"<<\2*\1=", sol, count=1)
        assert swapped != sol
        s.execute("UPDATE seeds SET solution = ? WHERE id = ?", (swapped, sid))
        report = check_set(s, "variants")
        cheap = check_set(s, "variants", parents_only=True)
    assert [(x.item, x.transform) for x in report.stale] == [(f"gsm8k-{item['orig_id']}", "variant")]
    assert "formalize it differently" in report.stale[0].reason
    assert report.stale_parents == 1
    assert cheap.stale == []            # the parent-level checks do not re-read items


def test_items_of_a_parent_that_can_no_longer_be_transformed_are_stale(db: Path) -> None:
    # the parent's Reasoning artifact no longer vouched for (bindings withdrawn): every item
    # made from it, of every kind, is stale; the other parents' items are not
    with Store(db) as s:
        parent = must(s.one("SELECT id FROM seeds WHERE question = ?", (SEEDS["jacket"]["question"],)))
        _edit(s, int(parent["id"]), "reasoning", lambda c: {**c, "bound": False})
        for kind in KINDS:
            n = int(s.scalar("SELECT COUNT(*) FROM derived_items di JOIN derive_sets ds ON "
                             "ds.id = di.set_id WHERE ds.name = ? AND di.parent_id = ?",
                             (kind, int(parent["id"]))))
            report = check_set(s, kind, parents_only=True)
            assert len(report.stale) == n and n > 0, kind
            assert {x.parent for x in report.stale} == {f"gsm8k-{_orig(s, int(parent['id']))}"}
            assert all("can no longer be transformed" in x.reason for x in report.stale)
    # running the set again (a resume: nothing left to build) says so
    again = run_derive(db, CFG, kind="counterfactual", opts=Options(rng_seed=3, variants=3))
    assert again.jobs == 0 and again.stale_parents == 1


def test_a_resumed_set_with_nothing_changed_reports_no_stale_parent(db: Path) -> None:
    again = run_derive(db, CFG, kind="inverse", opts=Options(rng_seed=3, variants=3))
    assert again.jobs == 0 and again.stale_parents == 0


def test_a_set_made_by_other_rules_is_checked_whole_on_resume(db: Path) -> None:
    # resuming checks the parents changed since the set was made; when the rules changed (the
    # set records their fingerprint) it checks every parent, changed or not
    with Store(db) as s:
        spec = json.loads(s.scalar("SELECT spec FROM derive_sets WHERE name = 'inverse'"))
        assert spec["rules"] == rules_fingerprint()
        parent = must(s.one("SELECT id FROM seeds WHERE question = ?", (SEEDS["jacket"]["question"],)))
        _edit(s, int(parent["id"]), "reasoning", lambda c: {**c, "bound": False}, stamp=False)
    opts = Options(rng_seed=3, variants=3)
    assert run_derive(db, CFG, kind="inverse", opts=opts).stale_parents == 0   # not looked at
    with Store(db) as s:
        s.execute("UPDATE derive_sets SET spec = ? WHERE name = 'inverse'",
                  (json.dumps({**spec, "rules": "built-by-other-rules"}),))
    assert run_derive(db, CFG, kind="inverse", opts=opts).stale_parents == 1


def _orig(s: Store, seed_id: int) -> str:
    return str(s.scalar("SELECT orig_id FROM seeds WHERE id = ?", (seed_id,)))


def test_items_built_from_another_formalization_of_the_parent_are_stale(db: Path) -> None:
    with Store(db) as s:
        digits = _item(s, "ladder", "digits", "rug")
        _edit(s, int(digits["seed_id"]), "arithmetic",
              lambda c: {**c, "smtlib": c["smtlib"].replace("(- ", "(+ ", 1)})
        inverse = _item(s, "inverse", "inverse", "james")
        _edit(s, int(inverse["seed_id"]), "reasoning",
              lambda c: {**c, "forward_smtlib": c["forward_smtlib"].replace("(* ", "(+ ", 1)})
        errors = _item(s, "ladder", "errors", "janet")
        s.execute("UPDATE seeds SET solution = solution || ' ' WHERE id = ?", (int(errors["seed_id"]),))
        ladder = {x.item: x.reason for x in check_set(s, "ladder", parents_only=True).stale}
        inv = {x.item: x.reason for x in check_set(s, "inverse", parents_only=True).stale}
    assert set(ladder) == {f"gsm8k-{digits['orig_id']}", f"gsm8k-{errors['orig_id']}"}
    assert "another formalization" in ladder[f"gsm8k-{digits['orig_id']}"]
    assert "worked solution changed" in ladder[f"gsm8k-{errors['orig_id']}"]
    assert list(inv) == [f"gsm8k-{inverse['orig_id']}"]


def _rename_james(s: Store, old: str = "g1_sprints", new: str = "g1_old", items: bool = True) -> int:
    """Store the james parent (and, ``items``, every item built from it) with the given
    ``old`` named ``new``, as a formalization verified before a naming fix reads; its id."""
    parent = must(s.one("SELECT id FROM seeds WHERE question = ?", (SEEDS["james"]["question"],)))
    ids = [int(parent["id"])] + ([int(r["seed_id"]) for r in s.query(
        "SELECT seed_id FROM derived_items WHERE parent_id = ?", (int(parent["id"]),))] if items else [])
    renamed = 0
    for sid in ids:
        for a in s.query("SELECT id, content FROM artifacts WHERE seed_id = ?", (sid,)):
            text = re.sub(rf"\b{old}\b", new, a["content"])
            renamed += text != a["content"]
            s.execute("UPDATE artifacts SET content = ? WHERE id = ?", (text, int(a["id"])))
    assert renamed >= len(ids)
    return int(parent["id"])


def _set_items(db: Path, name: str) -> list[tuple]:
    with Store(db) as s:
        return [(r["orig_id"], r["question"], r["answer_value"], r["params"], r["dimension"], r["content"])
                for r in s.query("SELECT s.orig_id, s.question, s.answer_value, di.params, a.dimension, "
                                 "a.content FROM derived_items di JOIN seeds s ON s.id = di.seed_id "
                                 "JOIN derive_sets ds ON ds.id = di.set_id JOIN artifacts a ON "
                                 "a.seed_id = s.id WHERE ds.name = ? ORDER BY s.orig_id, a.dimension",
                                 (name,))]


def test_a_parent_verified_under_old_names_is_derived_from_with_todays(db: Path, built: Path,
                                                                        tmp_path: Path) -> None:
    # the parent's verified formalization names a given as the rules did before a naming fix:
    # a new derive run reads it with today's names and builds exactly what it builds from a
    # parent verified under today's names (not refused as rules-changed until regenerated)
    with Store(db) as s:
        pid = _rename_james(s, items=False)
    fresh = tmp_path / "fresh.db"
    shutil.copy(built, fresh)
    for path in (db, fresh):
        run_derive(path, CFG, kind="variants", name="again", opts=Options(rng_seed=5, variants=3))
        run_derive(path, CFG, kind="inverse", name="again-inverse", opts=Options(rng_seed=5))
    with Store(db) as s:
        jobs = s.query("SELECT j.status, j.reason, j.made FROM derive_jobs j JOIN derive_sets ds ON "
                       "ds.id = j.set_id WHERE j.parent_id = ? AND ds.name LIKE 'again%'", (pid,))
    assert [(j["status"], j["reason"]) for j in jobs] == [("done", None)] * 2
    assert all(j["made"] > 0 for j in jobs)
    for name in ("again", "again-inverse"):
        assert _set_items(db, name) == _set_items(fresh, name) != []
    # a formalization that differs in more than names is still refused
    with Store(db) as s:
        _edit(s, pid, "reasoning", lambda c: {**c, "smtlib": c["smtlib"].replace("(* ", "(+ ", 1)})
    run_derive(db, CFG, kind="variants", name="third", opts=Options(rng_seed=5, variants=3))
    with Store(db) as s:
        reason = s.scalar("SELECT j.reason FROM derive_jobs j JOIN derive_sets ds ON ds.id = j.set_id "
                          "WHERE j.parent_id = ? AND ds.name = 'third'", (pid,))
    assert str(reason).startswith("rules-changed:")


def test_a_parent_the_rules_now_name_differently_keeps_its_items(db: Path) -> None:
    # the rules name a given differently today (as when the naming of givens changes): the
    # parent and every item built from it were stored with the old name. Nothing is stale;
    # the parent is counted as renamed (a new derive run reads it with today's names)
    with Store(db) as s:
        parent = must(s.one("SELECT id, orig_id FROM seeds WHERE id = ?", (_rename_james(s),)))
        for kind in KINDS:
            report = check_set(s, kind)
            assert report.stale == [], (kind, report.stale[:2])
            assert report.renamed == [f"gsm8k-{parent['orig_id']}"], kind
        # a real change under the new name is still found
        item = _item(s, "variants", "variant", "james")
        sol = str(s.scalar("SELECT solution FROM seeds WHERE id = ?", (int(item["seed_id"]),)))
        s.execute("UPDATE seeds SET solution = ? WHERE id = ?",
                  (re.sub(r"<<(\d+)\*(\d+)=", r"<<\2*\1=", sol, count=1), int(item["seed_id"])))
        assert [x.item for x in check_set(s, "variants").stale] == [f"gsm8k-{item['orig_id']}"]


def test_cli_lists_stale_items_and_exits_1(db: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "derive", "check",
                               *args], capture_output=True, text=True, cwd=ROOT, timeout=300)

    ok = cli("perturb")
    assert ok.returncode == 0, ok.stderr
    assert "0 stale" in ok.stdout
    with Store(db) as s:
        item = _item(s, "perturb", "noise", "janet")
        _edit(s, int(item["seed_id"]), "reasoning",
              lambda c: {**c, "smtlib": c["smtlib"].replace("(- ", "(+ ", 1)})
    bad = cli("perturb")
    assert bad.returncode == 1
    assert f"gsm8k-{item['orig_id']} (noise" in bad.stdout
    assert "stale (of 1 parent)" in bad.stdout and "(of" not in ok.stdout
    assert "do not evaluate on them" in bad.stdout
    data = json.loads(cli("perturb", "--json").stdout)
    assert data[0]["stale_items"] == 1 and data[0]["stale"][0]["transform"] == "noise"


@pytest.mark.parametrize(("where", "dimension"), [("understanding", "understanding"),
                                                  ("refinement", "refinement"),
                                                  ("solution", None)])
def test_an_old_value_left_in_an_items_texts_is_stale(db: Path, where: str,
                                                      dimension: str | None) -> None:
    # issue 26.3: `derive check` looks for old values: a rebuilt key information, chain of
    # thought or worked solution that still writes the value a changed number had in the
    # parent is listed, with where it is written
    with Store(db) as s:
        item = _item(s, "variants", "variant", "jacket")
        sid = int(item["seed_id"])
        params = json.loads(s.scalar("SELECT params FROM derived_items WHERE seed_id = ?", (sid,)))
        new = {c["new"] for c in params["givens"].values()}
        old = next(c["old"] for c in params["givens"].values() if c["old"] not in new)
        sentence = f" The jacket first cost ${old}."
        if dimension == "understanding":
            _edit(s, sid, dimension, lambda c: {**c, "known_quantities": [
                *c["known_quantities"], sentence.strip()]})
        elif dimension == "refinement":
            _edit(s, sid, dimension, lambda c: {**c, "gt_cot": c["gt_cot"] + sentence})
        else:
            s.execute("UPDATE seeds SET solution = solution || ? WHERE id = ?", (sentence, sid))
        assert check_set(s, "variants", parents_only=True).stale == []   # texts not re-read
        report = check_set(s, "variants")
    assert [(x.item, x.transform) for x in report.stale] == [(f"gsm8k-{item['orig_id']}", "variant")]
    assert report.stale[0].reason == f"an old value is still written: {where} writes {old}"


def test_the_rules_fingerprint_covers_every_module_the_rules_import() -> None:
    """A change in the readings the rules use (qcstation/core/reading, qcstation/common) marks
    a set as made by other rules, like a change in construct or derive (perf10 found reading
    and common left out)."""
    import qcstation.core.construct.make.rules  # noqa: F401 - what the rules import, loaded
    import qcstation.core.derive.runner  # noqa: F401

    hashed = {p.resolve() for p in rule_sources()}
    pkg = ROOT / "qcstation"
    used = {Path(f).resolve() for name, m in list(sys.modules.items())
            if name.startswith(("qcstation.core.construct", "qcstation.core.reading",
                                 "qcstation.common", "qcstation.core.derive"))
            and (f := getattr(m, "__file__", None))}
    assert used and used <= hashed, sorted(str(p.relative_to(pkg)) for p in used - hashed)
    assert any(p.parent.name == "reading" for p in hashed)
    assert len(rules_fingerprint()) == 16
