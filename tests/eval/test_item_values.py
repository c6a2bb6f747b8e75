"""The runs list's headline numbers read without numpy (``qcstation.eval.item_values``) are the
ones the metrics' arrays give: every metric code's item values from random signatures (gates,
answer-keeping, failed and unjudged Understanding, several samples, failures that are not the
model's), their means and counts; and the runs list reads them without importing numpy."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from db import Store
from db.kept_eval import SIG_METRICS
from qcstation.eval import browse, item_values
from qcstation.eval import metrics as M
from qcstation.eval.types import CODES, METRICS
from tests.eval_rows import add_run

ROOT = Path(__file__).resolve().parents[2]
VERDICT_CODES = [-1, 0, 1, 2, 3, 4, 6, 7, 8, 9]


def _sample(rng: random.Random) -> str:
    un = rng.choice([0.0, 12.5, 45.25, 89.0, 90.0, 95.5, 100.0])
    keeps = rng.choice([-1, 0, 1])
    # correct and wrong most often, so gates and All-Pass pass on some items
    codes = [rng.choice([0, 1, 1, 1, *VERDICT_CODES]) for _ in SIG_METRICS]
    return ",".join([repr(un), str(keeps), *map(str, codes)])


def _rows(rng: random.Random) -> list[tuple[str, str, str, int]]:
    sigs = {";".join(_sample(rng) for _ in range(rng.choice([1, 1, 2, 3])))
            for _ in range(rng.randint(1, 25))}
    return [(rng.choice(["gsm8k", "math"]), rng.choice(["easy", "hard", "(none)"]), sig,
             rng.randint(1, 400)) for sig in sorted(sigs)]


@pytest.mark.parametrize("seed", range(40))
def test_item_values_are_the_arrays_values(seed: int, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    rows = _rows(rng)
    if seed % 4 == 0:      # one sample per item: the arrays take the values as they are
        rows = [(a, b, sig.split(";")[0], n) for a, b, sig, n in rows]
    monkeypatch.setattr(M, "headline_rows", lambda *args, **kwargs: rows)
    with Store(tmp_path / "e.db") as store:
        table = M.load_run_kept(store, 1)
    means = item_values.headline_means(rows, CODES)
    for code in CODES:
        arrays = table.item_values(code)
        counted = np.sort(arrays[arrays == arrays])
        mine = sorted(v for _a, _b, sig, n in rows
                      for v in [item_values.item_value(code, item_values.signature_samples(sig))] * n
                      if v is not None)
        assert [float(x) for x in counted] == mine, (seed, code)
        value, n = means[code]
        assert n == counted.shape[0], (seed, code)
        assert (value is None) == (n == 0), (seed, code)
        if value is not None:
            assert math.isclose(value, float(counted.mean()), rel_tol=1e-12), (seed, code)


def test_the_headline_is_the_tables(tmp_path: Path) -> None:
    """On stored runs: the same counts, items and (to the last bits) means as the numpy path
    and the leaderboard's computation from every score row."""
    path = tmp_path / "eval.db"
    with Store(path) as store:
        runs = [add_run(store, "model-a", range(1, 41), samples=2),
                add_run(store, "model-b", range(1, 31), name="b-run",
                        verdict=lambda i, m, s: "correct" if i % 2 else "wrong"),
                add_run(store, "model-c", range(1, 25),
                        verdict=lambda i, m, s: ("correct", "wrong", "error", "judge_error",
                                                 "not_scored", "unparseable")[(i + len(m)) % 6])]
        for run in runs:
            mine, table = browse.headline(store, run), browse._headline_from_table(store, run)
            for metric in METRICS:
                h, o = mine[metric], table[metric]
                assert (h.n, h.counts, list(h.counts)) == (o.n, o.counts, list(o.counts))
                assert (h.value is None) == (o.value is None), (run, metric)
                if h.value is not None:
                    assert math.isclose(h.value, o.value or 0.0, rel_tol=1e-12), (run, metric)


def test_the_runs_list_does_not_import_numpy(tmp_path: Path) -> None:
    path = tmp_path / "eval.db"
    with Store(path) as store:
        add_run(store, "model-a", range(1, 11), samples=2)
    code = ("import sys\nfrom db import Store\nfrom qcstation.eval.browse import list_runs\n"
            f"with Store({str(path)!r}) as s:\n    runs = list_runs(s)\n"
            "assert runs and runs[0].headline['re'].n == 10, runs\n"
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                         check=True)
    assert out.stdout.strip() == "False", out.stderr
