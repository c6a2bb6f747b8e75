"""Leaderboard, breakdown, confusion and comparison times on big runs.

    python bench/metrics_bench.py [--items 100000] [--samples 1] [--n-boot 1000]

Builds a temporary database with two runs of N items x 6 metrics (random verdicts,
judge scores 1..100, three sources, three difficulties) and prints the seconds each
metrics call takes. Target: a leaderboard of 100k items in about a second.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from db import Store  # noqa: E402
from qcstation.eval import metrics  # noqa: E402
from qcstation.eval.metric_values import fmt_ci, fmt_value  # noqa: E402

TASK = {"un": "understanding", "re": "reasoning", "ar": "arithmetic", "rt": "refinement",
        "rm": "refinement", "fi": "final"}
ACC = {"re": 0.7, "ar": 0.9, "rt": 0.4, "rm": 0.85, "fi": 0.8}
VERDICT_OTHER = ("wrong", "wrong", "wrong", "unparseable", "error")


def build(store: Store, model: str, items: int, samples: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    with store.transaction():
        run = store.insert("eval_runs", {
            "model": model, "status": "done", "spec": "{}", "config": "{}",
            "started_at": "2026-01-01T00:00:00Z"})
        sources = np.array(["gsm8k", "math500", "aqua"])[rng.integers(0, 3, items)]
        diffs = np.array(["easy", "medium", "hard"])[rng.integers(0, 3, items)]
        store.conn.executemany(
            "INSERT INTO eval_items (run_id, seed_id, item_key, source, difficulty, role, "
            "position, record) VALUES (?, ?, ?, ?, ?, 'eval', ?, '{}')",
            ((run, i, f"k{i}", sources[i], diffs[i], i) for i in range(items)))
        rows = []
        for s in range(samples):
            un = rng.integers(40, 101, items)
            draws = {m: rng.random(items) < p for m, p in ACC.items()}
            other = rng.integers(0, len(VERDICT_OTHER), items)
            for i in range(items):
                rows.append((run, i, s, "un", TASK["un"], "correct", float(un[i]),
                             sources[i], diffs[i]))
                for m in ACC:
                    ok = bool(draws[m][i])
                    rows.append((run, i, s, m, TASK[m], "correct" if ok else VERDICT_OTHER[other[i]],
                                 1.0 if ok else 0.0, sources[i], diffs[i]))
        store.conn.executemany(
            "INSERT INTO eval_scores (run_id, seed_id, sample_idx, metric, task, verdict, score, "
            "scorer_version, source, difficulty, scored_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'b', ?, ?, "
            "'2026-01-01T00:00:00Z')", rows)
    return run


def timed(label: str, fn):
    t0 = time.perf_counter()
    out = fn()
    print(f"{label:<44} {time.perf_counter() - t0:7.3f} s")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=1)
    ap.add_argument("--n-boot", type=int, default=1000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        t0 = time.perf_counter()
        a = build(store, "model-a", args.items, args.samples, 1)
        b = build(store, "model-b", args.items, args.samples, 2)
        print(f"built 2 runs x {args.items} items x {args.samples} sample(s) x 6 metrics "
              f"in {time.perf_counter() - t0:.1f} s")
        lb = timed(f"leaderboard, 1 run, n_boot={args.n_boot}",
                   lambda: metrics.leaderboard(store, [a], n_boot=args.n_boot))
        timed(f"leaderboard, 2 runs, n_boot={args.n_boot}",
              lambda: metrics.leaderboard(store, [a, b], n_boot=args.n_boot))
        timed("load_run (SQL pivot only)", lambda: metrics.load_run(store, a))
        timed("breakdown by difficulty (with CIs)", lambda: metrics.breakdown(store, a, "difficulty",
                                                                           n_boot=args.n_boot))
        timed("confusion", lambda: metrics.confusion(store, a))
        cmp_ = timed("compare on fi (McNemar)", lambda: metrics.compare(store, a, b, "fi"))
        from qcstation.eval.report import write_report

        timed("write_report with --compare (7 files)",
              lambda: write_report(store, a, Path(tmp) / "report", compare=b))
        for code, mv in lb[0].values.items():
            print(f"  {mv.label:<16} {fmt_value(code, mv.value, digits=2):>8} "
                  f"{fmt_ci(mv, digits=2):<18} n={mv.n}")
        print(f"  compare fi: {cmp_.a_only} vs {cmp_.b_only} discordant, p={cmp_.p_value:.3g}")
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
