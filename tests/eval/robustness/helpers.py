"""A real database for the robustness tests: the hand-worked derive seeds (imported, made by
the rules, bound by hand), a working-set release ``base@1`` of them, and one derived release
per kind (``<kind>-rel@1``), every sample reviewed and accepted by a curator. Built once per
session and copied per test."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from db import Store
from qcstation.common.config import load_config
from qcstation.core.derive.runner import run_derive
from qcstation.core.derive.transforms import Options
from qcstation.core.release.derived import scope_dimensions
from qcstation.core.release.releases import QCPolicy, approve_release, release_blockers
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.sampling import draw_sample
from qcstation.common.vocab import DIMENSIONS
from tests.core.derive.helpers import make_db

POLICY = QCPolicy(curators=("tester",), threshold=0.7, min_sample=1)
SEEDS = ["james", "janet", "jacket"]
#: kind -> (set name, options)
SETS = {
    "variants": ("dyn", Options(variants=4, rng_seed=3)),
    "ladder": ("lad", Options(noise_levels=(1, 2), digit_levels=(2, 4), error_levels=(1, 2),
                              rng_seed=3)),
    "perturb": ("pert", Options(rng_seed=3)),
    "counterfactual": ("cf", Options(shifts=(-20, 20), rng_seed=3)),
    "inverse": ("back", Options(inverse_per_seed=2, rng_seed=3)),
}
_BUILT: dict[str, Path] = {}


def review_all(store: Store, scope: str) -> None:
    for dim in scope_dimensions(store, scope, DIMENSIONS):
        draw_sample(store, dim, rate=1.0, rng_seed=1, actor="tester", scope=scope, min_size=1)
    while (item := next_item(store, "tester", scope=scope)) is not None:
        decide(store, item.item_id, "tester", "accept")


def release(store: Store, name: str, scope: str = "") -> None:
    review_all(store, scope)
    blockers = release_blockers(store, POLICY, actor="tester", scope=scope)
    assert blockers == [], blockers
    approve_release(store, name, "1", actor="tester", cfg=POLICY, scope=scope)


def released_db(tmp_root: Path) -> Path:
    """The template database (built once per session): see the module docstring."""
    if "db" not in _BUILT:
        root = Path(tempfile.mkdtemp(prefix="robustness-template-", dir=tmp_root))
        db = make_db(root, SEEDS)
        cfg = load_config(None, env={})
        for kind, (name, opts) in SETS.items():
            run_derive(db, cfg, kind=kind, name=name, opts=opts)
        with Store(db) as store:
            release(store, "base")
            for name, _ in SETS.values():
                release(store, f"{name}-rel", name)
        _BUILT["db"] = db
    return _BUILT["db"]


def copy_released(tmp_root: Path, dest: Path) -> Path:
    shutil.copy(released_db(tmp_root), dest)
    return dest
