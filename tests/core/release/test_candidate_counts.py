"""``candidate_counts`` counts in SQL what ``release_candidates`` builds record by record
(``release blockers`` and the releases screen use the counts; only approval builds)."""

from __future__ import annotations

from pathlib import Path

from db import Store
from qcstation.common.config import load_config
from qcstation.core.derive.runner import run_derive
from qcstation.core.derive.transforms import Options
from qcstation.core.release import releases as rel
from tests import factories as f
from tests.core.derive.helpers import make_db


def _both(store: Store, scope: str = "") -> tuple[tuple[int, int], tuple[int, int]]:
    records, excluded = rel.release_candidates(store, scope)
    return rel.candidate_counts(store, scope), (len(records), len(excluded))


def test_working_set_counts_match_the_records(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as store:
        assert _both(store) == ((0, 0), (0, 0))
        f.populate(store, {"gsm8k": 6, "mawps": 3})
        f.add_full_seed(store, 100, statuses={"refinement": "failed"})
        f.add_full_seed(store, 101, statuses={"arithmetic": None})
        f.add_full_seed(store, 102, statuses={"understanding": "generated"})
        f.add_full_seed(store, 103, statuses={"reasoning": "rejected"})
        f.add_full_seed(store, 104, statuses={"arithmetic": "accepted"})
        filtered = f.add_full_seed(store, 105)
        store.execute("UPDATE seeds SET status = 'filtered' WHERE id = ?", (filtered,))
        # a rejected artifact regenerated: the new version counts, the superseded one not
        rejected = f.add_full_seed(store, 106, statuses={"understanding": "rejected"})
        art = store.one("SELECT id FROM artifacts WHERE seed_id = ? AND dimension = "
                        "'understanding'", (rejected,))
        assert art is not None
        f.regenerate(store, art["id"])
        # and one regenerated into a version that failed
        broken = f.add_full_seed(store, 107)
        art = store.one("SELECT id FROM artifacts WHERE seed_id = ? AND dimension = "
                        "'reasoning'", (broken,))
        assert art is not None
        f.regenerate(store, art["id"], status="failed")
        counts, built = _both(store)
        assert counts == built == (11, 5)


def test_derived_set_counts_match_the_records(tmp_path: Path) -> None:
    db = make_db(tmp_path, ["james", "janet"])
    run_derive(db, load_config(None, env={}), kind="variants", name="dyn",
               opts=Options(variants=2, rng_seed=4))
    with Store(db) as store:
        counts, built = _both(store, "dyn")
        assert counts == built and sum(counts) > 0
        counts, built = _both(store)
        assert counts == built
