"""Results-browser page times on a million stored scores.

Fills a fresh database with 1,000,000 ``eval_scores`` rows (10 runs x 16,667 items x 6
metrics, realistic verdict mix: about 1% errors, 3% unparseable) by bulk insert, then
times ``browse.page`` for several filter combinations, on the first page and on deep
pages (continuing after the key of a row far into the results). Target: every page
under 100 ms.

    python bench/browse_bench.py [--rows 1000000] [--keep PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from db import Store  # noqa: E402
from db.store import now  # noqa: E402
from qcstation.eval import browse  # noqa: E402
from qcstation.eval.browse import Filters  # noqa: E402
from qcstation.eval.types import METRICS, TASK_METRICS  # noqa: E402

TASK_OF = {m: t for t, ms in TASK_METRICS.items() for m in ms}
SOURCES = ("gsm8k", "gsm8k", "gsm8k", "mawps", "math500", "aime2024")   # aime is rare
LEVELS = ("easy", "medium", "hard")
TARGET_MS = 100.0


def fill(path: Path, rows: int, runs: int = 10) -> None:
    per_run = rows // (runs * len(METRICS))
    rng = random.Random(7)
    at = now()
    with Store(path) as store:
        conn = store.conn
        with store.transaction():
            for r in range(runs):
                run_id = store.insert("eval_runs", {
                    "model": f"model-{r}", "config": "{}", "status": "done", "started_at": at,
                    "spec": "{}", "n_items": per_run, "n_requests": per_run * 5})
                items = []
                for i in range(per_run):
                    source = SOURCES[rng.randrange(len(SOURCES) - 1)] if i % 50 else "aime2024"
                    items.append((run_id, i + 1, f"{source}-{i + 1}", source, LEVELS[i % 3],
                                  "eval", i, json.dumps({"question": f"q{i}"})))
                conn.executemany("INSERT INTO eval_items (run_id, seed_id, item_key, source, "
                                 "difficulty, role, position, record) VALUES (?,?,?,?,?,?,?,?)",
                                 items)
                skill = 0.4 + 0.05 * r

                def scores(run_id: int = run_id, skill: float = skill,
                           items: list[Any] = items):
                    for item in items:
                        seed_id, source, level = item[1], item[3], item[4]
                        for metric in METRICS:
                            x = rng.random()
                            verdict = ("error" if x < 0.01 else "unparseable" if x < 0.04
                                       else "correct" if x < 0.04 + skill else "wrong")
                            score = (rng.uniform(50, 100) if metric == "un" and verdict != "error"
                                     else None if verdict == "error"
                                     else 1.0 if verdict == "correct" else 0.0)
                            yield (run_id, seed_id, 0, metric, TASK_OF[metric], verdict, score,
                                   "42", "{}", "bench-1", source, level, at)

                conn.executemany(
                    "INSERT INTO eval_scores (run_id, seed_id, sample_idx, metric, task, verdict,"
                    " score, extracted, detail, scorer_version, source, difficulty, scored_at) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", scores())
        # no ANALYZE: a real database has no planner statistics either


def timed(store: Store, f: Filters, after: browse.Key | None) -> tuple[float, int]:
    best = float("inf")
    n = 0
    for _ in range(3):
        t0 = time.perf_counter()
        pg = browse.page(store, f, after=after, limit=50)
        best = min(best, (time.perf_counter() - t0) * 1000)
        n = len(pg.rows)
    return best, n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--keep", type=Path, help="build (or reuse) the database at this path")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    path = args.keep or Path(tmp.name) / "browse.db"
    if not path.exists():
        t0 = time.perf_counter()
        fill(path, args.rows)
        print(f"filled {args.rows:,} eval_scores rows in {time.perf_counter() - t0:.1f} s")
    combos = [
        ("everything", Filters()),
        ("one run", Filters(run_ids=(3,))),
        ("run, failed Re", Filters(run_ids=(3,), metric="re", failed=True)),
        ("run, failed any metric", Filters(run_ids=(3,), failed=True)),
        ("run, failed Un (score < 90)", Filters(run_ids=(3,), metric="un", failed=True)),
        ("all runs, unparseable", Filters(verdict="unparseable")),
        ("run, error", Filters(run_ids=(5,), verdict="error")),
        ("run, source aime2024 (2%)", Filters(run_ids=(5,), source="aime2024")),
        ("source mawps, hard", Filters(source="mawps", difficulty="hard")),
        ("difficulty hard", Filters(difficulty="hard")),
        ("run, wrong Fi, math500, hard",
         Filters(run_ids=(7,), metric="fi", verdict="wrong", source="math500", difficulty="hard")),
        ("all runs, error Ar, aime2024",
         Filters(metric="ar", verdict="error", source="aime2024")),
        ("all runs, failed R-t, easy", Filters(metric="rt", failed=True, difficulty="easy")),
    ]
    worst = 0.0
    with Store(path) as store:
        per_run = int(store.scalar("SELECT n_items FROM eval_runs WHERE id = 1"))
        print(f"{'filter':34} {'first page':>11} {'deep page':>11} {'near end':>10}  rows")
        for label, f in combos:
            first, n1 = timed(store, f, None)
            # deep: continue from far into the results (half-way through a run)
            run = f.run_ids[0] if f.run_ids else 4
            deep, n2 = timed(store, f, (run, per_run // 2, 0, "un"))
            last, n3 = timed(store, f, (10, per_run - 100, 0, "ar"))
            worst = max(worst, first, deep, last)
            print(f"{label:34} {first:9.1f}ms {deep:9.1f}ms {last:8.1f}ms  {n1}/{n2}/{n3}")
        detail_ms = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            browse.item_detail(store, 3, per_run // 2, 0)
            detail_ms = min(detail_ms, (time.perf_counter() - t0) * 1000)
        print(f"{'item detail':34} {detail_ms:9.1f}ms")
        worst = max(worst, detail_ms)
    ok = worst < TARGET_MS
    print(f"slowest: {worst:.1f} ms ({'OK' if ok else 'OVER'} the {TARGET_MS:.0f} ms target)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
