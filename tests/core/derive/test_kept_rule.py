"""The rules' result kept with its seed (``rule_results``, :mod:`...make.rules.stored`): written
exactly, kept by generate, read by derive instead of running the rules on the parent again, and
ignored whenever it is not today's (other rules, other seed fields, text that does not read).
Real importer, real generate pipeline, real SQLite, real Z3."""

from __future__ import annotations

import dataclasses
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.construct.make.rules import RuleError, RuleResult, rule_for_seed
from qcstation.core.construct.make.rules.stored import dump_rule, load_rule, rule_key
from qcstation.core.derive import rebuild
from qcstation.core.derive.parent import load_parent
from qcstation.core.derive.runner import run_derive
from qcstation.core.derive.store import parent_rows
from qcstation.core.derive.transforms import Options
from qcstation.core.ingest.importer import import_file
from tests.conftest import dataset
from tests.core.derive.helpers import make_db

CFG = load_config(None, env={})


def _typed(v: Any) -> Any:
    """``v`` with the type of every part spelled out (``==`` alone takes ``Fraction(3)`` for ``3``
    and a tuple for nothing like a list: the derive code reads both)."""
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return (type(v).__name__, tuple((f.name, _typed(getattr(v, f.name))) for f in dataclasses.fields(v)))
    if isinstance(v, dict):
        return ("dict", tuple((_typed(k), _typed(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_typed(x) for x in v))
    if isinstance(v, Fraction):
        return ("Fraction", v.numerator, v.denominator)
    return (type(v).__name__, v)


def test_every_gsm8k_seeds_rule_result_reads_back_field_by_field(tmp_path: Path) -> None:
    """Over every GSM8K test seed the rules make (imported by the real importer, as derive reads
    the rows): written, read back, every field equal to the fresh result, type by type."""
    db = tmp_path / "g.db"
    with Store(db) as store:
        import_file(store, dataset("gsm8k/test.jsonl"), "gsm8k")
        rows = store.query("SELECT * FROM seeds WHERE status = 'active' ORDER BY id")
    made = 0
    for seed in rows:
        try:
            fresh = rule_for_seed(seed)
        except RuleError:
            continue
        text = dump_rule(fresh)
        assert text is not None, seed["id"]
        back = load_rule(text)
        assert back is not None, seed["id"]
        for f in dataclasses.fields(RuleResult):
            assert _typed(getattr(back, f.name)) == _typed(getattr(fresh, f.name)), (seed["id"], f.name)
        made += 1
    assert made > 1000


def test_what_does_not_read_back_is_ignored() -> None:
    seed = {"question": "Tom has 5 apples and buys 7 more. How many apples does he have?",
            "answer": "5+7=<<5+7=12>>12\n#### 12"}
    text = dump_rule(rule_for_seed(seed))
    assert text is not None
    for bad in ["", "{", "[]", "null", text.replace('"v":1', '"v":2'), text.replace('"F":[12,1]', '"F":[24,2]'),
                text.replace('"F":[12,1]', '"F":[12,0]'), text.replace('"bound":true', '"bound":1'),
                text[:-1] + ',"x":1}', '{"v":1}', "[" * 100_000 + "]" * 100_000, " " * 2_000_000]:
        assert load_rule(bad) is None
    assert load_rule(None) is None


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("kept"), ["james", "janet", "jacket", "rug"], copies=2)


def _loaded(db: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], int]:
    """Every parent loaded as derive loads it, and how many times the rules ran."""
    runs = [0]
    original = rebuild.rule_for_seed

    def counted(seed: Any) -> Any:
        runs[0] += 1
        return original(seed)

    monkeypatch.setattr(rebuild, "rule_for_seed", counted)
    with Store(db) as store:
        jobs = [{"parent_id": r["id"]} for r in store.query("SELECT id FROM seeds ORDER BY id")]
        rows = parent_rows(store, jobs)
    return [load_parent(seed, arts) for seed, arts in rows], runs[0]


def test_generate_keeps_it_and_derive_loads_parents_without_the_rules(template: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "d.db"
    shutil.copy(template, db)
    with Store(db) as store:
        seeds = store.query("SELECT * FROM seeds ORDER BY id")
        kept = {r["seed_id"]: r["key"] for r in store.query("SELECT seed_id, key FROM rule_results")}
    assert len(seeds) == 8 and kept == {s["id"]: rule_key(s) for s in seeds}
    parents, runs = _loaded(db, monkeypatch)
    assert runs == 0
    for p in parents:
        assert _typed(p.rule) == _typed(rule_for_seed(p.seed))


@pytest.mark.parametrize("change", ["none kept", "other key", "unreadable"])
def test_a_database_without_todays_result_runs_the_rules(template: Path, tmp_path: Path, change: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A database generated before results were kept, or made by other rules (its key is not
    today's), or with a result that does not read: the rules run, and the parents are the same."""
    db = tmp_path / "d.db"
    shutil.copy(template, db)
    with Store(db) as store:
        if change == "none kept":
            store.execute("DELETE FROM rule_results")
        elif change == "other key":
            store.execute("UPDATE rule_results SET key = 'made by other rules'")
        else:
            store.execute("UPDATE rule_results SET result = substr(result, 1, 200)")
    before, _ = _loaded(template, monkeypatch)
    parents, runs = _loaded(db, monkeypatch)
    assert runs == len(parents) == 8
    assert [_typed(p.rule) for p in parents] == [_typed(p.rule) for p in before]


def test_the_items_are_the_same_with_and_without_kept_results(template: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    shutil.copy(template, a)
    shutil.copy(template, b)
    with Store(b) as store:
        store.execute("DELETE FROM rule_results")
    for db in (a, b):
        run_derive(db, CFG, kind="variants", opts=Options(rng_seed=3, variants=3), workers=0)

    def items(db: Path) -> list[Any]:
        with Store(db) as s:
            return [tuple(r) for r in s.conn.execute(
                "SELECT s.orig_id, s.question, s.solution, s.answer_value, di.params, a.dimension, a.content, "
                "a.flag_codes FROM derived_items di JOIN seeds s ON s.id = di.seed_id JOIN artifacts a "
                "ON a.seed_id = di.seed_id ORDER BY s.orig_id, a.dimension")]

    assert items(a) == items(b) != []
