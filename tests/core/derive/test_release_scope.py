"""Derived items go through the same QC as generated artifacts (a sample, the gate, a
curator's approval) as a derived release, apart from the working set."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.common.errors import ReleaseError
from qcstation.core.derive.runner import run_derive
from qcstation.core.derive.transforms import Options
from qcstation.core.release.releases import (
    QCPolicy,
    approve_release,
    export_release,
    release_blockers,
    release_candidates,
)
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.gate import gate
from qcstation.core.review.sampling import draw_sample
from tests.core.derive.helpers import make_db

POLICY = QCPolicy(curators=("tester",), threshold=0.7, min_sample=1)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = make_db(tmp_path_factory.mktemp("rel"), ["james", "janet", "jacket"])
    run_derive(db, load_config(None, env={}), kind="variants", name="dyn",
               opts=Options(variants=3, rng_seed=4))
    run_derive(db, load_config(None, env={}), kind="inverse", name="back",
               opts=Options(inverse_per_seed=1, rng_seed=4))
    return db


@pytest.fixture
def store(template: Path, tmp_path: Path):
    path = tmp_path / "r.db"
    shutil.copy(template, path)
    with Store(path) as s:
        yield s


def _review_all(store: Store, scope: str, dims: tuple[str, ...]) -> None:
    for dim in dims:
        draw_sample(store, dim, rate=1.0, rng_seed=1, actor="tester", scope=scope, min_size=1)
    while (item := next_item(store, "tester", scope=scope)) is not None:
        decide(store, item.item_id, "tester", "accept")


def test_a_derived_set_is_sampled_gated_and_released_on_its_own(store: Store, tmp_path: Path) -> None:
    blockers = release_blockers(store, POLICY, actor="tester", scope="dyn")
    assert any("QC gate of the derived set dyn" in b for b in blockers)
    _review_all(store, "dyn", ("arithmetic", "understanding"))
    assert gate(store, "arithmetic", threshold=0.7, scope="dyn").passed
    # the working set's gate knows nothing of it
    ws = gate(store, "arithmetic", threshold=0.7)
    assert not ws.passed and ws.reviewed == 0 and ws.population == 3
    # but the derived items are made from its seeds: its failing gates block the derived
    # release too (walk8: it was approved while they failed), with the reason
    blockers = release_blockers(store, POLICY, actor="tester", scope="dyn")
    assert blockers and all("QC gate of the parent set (the working set): " in b
                            for b in blockers), blockers
    with pytest.raises(ReleaseError, match="QC gate of the parent set"):
        approve_release(store, "dyn-rel", "1", actor="tester", cfg=POLICY, scope="dyn")
    _review_all(store, "", POLICY.dimensions)
    assert release_blockers(store, POLICY, actor="tester", scope="dyn") == []
    info = approve_release(store, "dyn-rel", "1", actor="tester", cfg=POLICY, scope="dyn")
    assert info.counts["records"] == 9
    records = [json.loads(line) for line in
               (export_release(store, "dyn-rel", "1", tmp_path / "out") / "data.jsonl").read_text().splitlines()]
    for r in records:
        assert r["set"] == "dyn" and r["transform"] == "variant" and r["family"] == "variants"
        assert r["parent"].startswith("gsm8k-") and r["id"].startswith(r["parent"] + "~dyn.v")
        assert r["params"]["givens"]              # what changed, from what to what
        for field in ("question", "notation", "smt-lib", "w_cot", "gt_cot", "answer", "background"):
            assert r[field], field
    # a release name keeps its scope
    with pytest.raises(ReleaseError, match="derived set dyn"):
        approve_release(store, "dyn-rel", "2", actor="tester", cfg=POLICY)


def test_items_without_a_qc_dimension_are_reviewed_by_what_they_carry(store: Store) -> None:
    # inverse problems carry Reasoning only: their gate is the reasoning one. The set holds
    # its three items on a quiet and on a loaded machine alike (derive's Z3 checks are decided
    # by Z3's resource count, not the clock: test_load_independence)
    _review_all(store, "", POLICY.dimensions)       # the parent set's gates pass
    blockers = release_blockers(store, POLICY, actor="tester", scope="back")
    assert blockers and all(b.startswith("reasoning QC gate of the derived set back") for b in blockers)
    _review_all(store, "back", ("reasoning",))
    assert release_blockers(store, POLICY, actor="tester", scope="back") == []
    records, _ = release_candidates(store, "back")
    assert len(records) == 3 and all(r["transform"] == "inverse" and r["notation"] is None
                           and r["smt-lib"] and r["dimensions"] == ["reasoning"] for r in records)


def test_working_set_sample_never_takes_derived_items(store: Store) -> None:
    s = draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="tester")
    statuses = {r["status"] for r in store.query(
        "SELECT sd.status FROM sample_items si JOIN seeds sd ON sd.id = si.seed_id "
        "WHERE si.sample_id = ?", (s.id,))}
    assert statuses == {"active"} and s.size == 3
