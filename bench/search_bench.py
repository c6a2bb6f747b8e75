"""Full-text search at scale: building the indexes, keeping them in step, and searching.

Builds a database at schema 6 with N seeds (default 100,000; synthetic word problems), a
10% QC sample of their notation questions with a reject reason on every tenth item, and an
evaluation run of M stored responses (default 1,000,000, with their scores), then:

* opens it with the current code: migration 7 builds the four full-text indexes (once);
* times inserting 10,000 more seeds with the question index kept in step by its trigger,
  one statement a row against multi-row statements (``Store.insert_many``);
* times the searches a user runs, each on a fresh connection (median of ``--runs``):
  the curator queue by a rare and by a common word (``qc queue --search``), and the results
  browser's ``/`` by a rare and a common word (the first 200 rows).

Usage: ``python bench/search_bench.py [--seeds 100000] [--responses 1000000] [--runs 3]``.
Targets (printed against each figure): a search under 1 s, migration 7 under 60 s at 1M
responses. Exit code 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from db import Store  # noqa: E402
from qcstation.core.review.curation import queue  # noqa: E402
from qcstation.eval.browse import Filters  # noqa: E402
from qcstation.eval.search import search_results  # noqa: E402

SEARCH_LIMIT_S = 1.0
MIGRATION_LIMIT_S = 60.0
WORDS = ("apples pears eggs dollars farmer market baker muffins tickets minutes hours books "
         "pages cars miles water bottles boxes cookies friends students teachers").split()
NAMES = ("Janet Tom Ann Zoe Omar Mia Raj Lena Sam Ivy").split()


def _question(rnd: random.Random, i: int) -> str:
    a, b, c = rnd.sample(WORDS, 3)
    extra = " She keeps a rye loaf aside." if i % 5000 == 1 else ""   # rare; sampled seeds
    return (f"{rnd.choice(NAMES)} has {rnd.randint(2, 99)} {a} and buys {rnd.randint(2, 9)} "
            f"more {b} at the {c} stall.{extra} How many {a} are there now?")


def build(path: Path, seeds: int, responses: int) -> None:
    rnd = random.Random(7)
    with Store(path, migrate=False) as store:
        store.migrate(target=6)
        with store.transaction():
            store.conn.executemany(
                "INSERT INTO seeds (id, source, orig_id, question, answer_text, level, "
                "content_hash, imported_at) VALUES (?, 'synthetic', ?, ?, '1', 'easy', ?, 't')",
                ((i, str(i), _question(rnd, i), f"h{i}") for i in range(1, seeds + 1)))
            store.conn.executemany(
                "INSERT INTO artifacts (id, seed_id, dimension, version, status, content, "
                "generator, created_at, updated_at) VALUES (?, ?, 'arithmetic', 1, 'verified', "
                "'{}', 'rule', 't', 't')", ((i, i) for i in range(1, seeds + 1, 10)))
            store.execute("INSERT INTO samples (id, dimension, round, rng_seed, rate, "
                          "created_at) VALUES (1, 'arithmetic', 1, 1, 0.1, 't')")
            store.conn.executemany(
                "INSERT INTO sample_items (sample_id, seed_id, artifact_id, position) "
                "VALUES (1, ?, ?, ?)", ((i, i, n) for n, i in enumerate(range(1, seeds + 1, 10))))
            store.conn.executemany(
                "INSERT INTO reviews (sample_item_id, artifact_id, annotator, verdict, reason, "
                "created_at) VALUES (?, ?, 'ann', ?, ?, 't')",
                ((n + 1, i, "reject" if n % 10 == 0 else "accept",
                  "story words left in" if n % 10 == 0 else None)
                 for n, i in enumerate(range(1, seeds + 1, 10))))
            store.execute("INSERT INTO eval_runs (id, model, status, started_at) "
                          "VALUES (1, 'bench', 'done', 't')")
            per_seed = max(1, responses // seeds)
            store.conn.executemany(
                "INSERT INTO eval_outputs (run_id, seed_id, task, sample_idx, status, "
                "prompt_hash, response, created_at) VALUES (1, ?, 'final', ?, 'ok', 'h', ?, 't')",
                ((1 + n // per_seed, n % per_seed,
                  f"Step by step: {rnd.choice(WORDS)} {rnd.randint(1, 999)} then "
                  f"{rnd.choice(WORDS)}{' pelican' if n % 50_000 == 0 else ''}. "
                  f"So the answer is {rnd.randint(1, 999)}.") for n in range(responses)))
            store.execute(
                "INSERT INTO eval_scores (run_id, seed_id, sample_idx, metric, task, verdict, "
                "score, scorer_version, source, scored_at) SELECT run_id, seed_id, sample_idx, "
                "'fi', 'final', 'wrong', 0, 'b', 'synthetic', 't' FROM eval_outputs")


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=100_000)
    ap.add_argument("--responses", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "search.db"
        t = time.perf_counter()
        build(path, args.seeds, args.responses)
        print(f"built schema 6: {args.seeds:,} seeds, {args.responses:,} responses in "
              f"{time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        Store(path).close()                                     # migration 7
        took = time.perf_counter() - t
        ok &= took < MIGRATION_LIMIT_S
        print(f"migration 7 (four indexes)          {took:7.2f} s   < {MIGRATION_LIMIT_S:.0f} s")
        rnd = random.Random(8)
        cols = ("id", "source", "orig_id", "question", "answer_text", "level", "content_hash",
                "imported_at")
        with Store(path) as store:
            for how in ("one statement a row (executemany)", "Store.insert_many (multi-row)"):
                base = int(store.scalar("SELECT MAX(id) FROM seeds"))
                rows = [(base + i, "more", str(base + i), _question(rnd, i), "1", "easy",
                         f"n{base + i}", "t") for i in range(1, 10_001)]
                t = time.perf_counter()
                if how.startswith("one"):
                    with store.transaction():
                        store.conn.executemany(f"INSERT INTO seeds ({', '.join(cols)}) VALUES "
                                               f"({', '.join('?' for _ in cols)})", rows)
                else:
                    store.insert_many("seeds", rows, columns=cols)
                each = (time.perf_counter() - t) * 1e6 / len(rows)
                print(f"10,000 seeds inserted, the question index in step: {each:5.1f} us a "
                      f"seed, {how}")

        def on_fresh(fn: Callable[[Store], Any]) -> Callable[[], Any]:
            def run() -> Any:
                with Store(path) as s:
                    return fn(s)
            return run

        print(f"\n{'search (median of ' + str(args.runs) + ', fresh connection)':44} "
              f"{'time':>7}  target   found")
        for label, fn in (
                ("queue: rare phrase \"rye loaf\"", lambda s: queue(s, text='"rye loaf"')),
                ("queue: common word (reasons)", lambda s: queue(s, text="story")),
                ("results: rare word", lambda s: search_results(s, Filters(text="pelican"))),
                ("results: common word (first 200)",
                 lambda s: search_results(s, Filters(text="answer")))):
            took, out = timed(on_fresh(fn), args.runs)
            found = len(out) if isinstance(out, list) else len(out.rows)
            ok &= took < SEARCH_LIMIT_S
            mark = "ok" if took < SEARCH_LIMIT_S else "SLOW"
            print(f"{label:44} {took:6.3f}s   < {SEARCH_LIMIT_S:.0f} s  {found:>6}  {mark}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
