"""Seed import benchmark: seeds/second and peak memory.

Cases, each imported into a fresh temporary database:

* ``gsm8k``      - all of GSM8K test (../shared/datasets/gsm8k/test.jsonl, 1319 seeds)
* ``synthetic``  - a generated generic JSONL file with 100,000 distinct seeds
                   (question / answer / solution with calculator annotations / id)

Each case runs in its own process so ``ru_maxrss`` (peak resident set) belongs to that
import alone; ``cpu s`` is the process's CPU time during the import (steadier than the
wall clock on a shared machine); a second pass under ``tracemalloc`` gives the peak Python heap of the import
(tracemalloc slows Python down, so the seeds/second figure comes from the first pass).

    python bench/import_bench.py             # both cases
    python bench/import_bench.py --n 20000   # smaller synthetic file
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.shared_data import datasets_dir  # noqa: E402

GSM8K = datasets_dir() / "gsm8k" / "test.jsonl"

_NAMES = ["Ava", "Ben", "Chloe", "Dev", "Elif", "Farah", "Goran", "Hana", "Ivan", "Jun", "Kofi", "Lena"]
_ITEMS = ["apples", "stickers", "marbles", "books", "pencils", "cookies", "stamps", "shells"]


def write_synthetic(path: Path, n: int, seed: int = 7) -> None:
    """``n`` distinct GSM8K-like two/three-step seeds as generic JSON Lines."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            name, item = rng.choice(_NAMES), rng.choice(_ITEMS)
            a, b, c = rng.randint(2, 90), rng.randint(2, 20), rng.randint(2, 12)
            total = a + b * c
            q = (f"{name} has {a} {item}. {name} buys {b} packs with {c} {item} in each pack "
                 f"(order {i}). How many {item} does {name} have now?")
            sol = (f"The packs hold {b}*{c}=<<{b}*{c}={b * c}>>{b * c} {item}.\n"
                   f"{name} has {a}+{b * c}=<<{a}+{b * c}={total}>>{total} {item}.")
            fh.write(json.dumps({"id": f"syn-{i}", "question": q, "answer": str(total),
                                 "solution": sol, "level": "medium"}) + "\n")


def run_case(path: Path, fmt: str, trace: bool) -> dict[str, float | int]:
    from db import Store
    from qcstation.core.ingest.importer import import_file

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        if trace:
            tracemalloc.start()
        t0, c0 = time.perf_counter(), time.process_time()
        rep = import_file(store, path, fmt, actor="bench")
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        peak = tracemalloc.get_traced_memory()[1] if trace else 0
        if trace:
            tracemalloc.stop()
        stored = store.scalar("SELECT COUNT(*) FROM seeds")
        store.close()
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seeds": rep.added, "stored": stored, "errors": len(rep.errors), "seconds": elapsed, "cpu": cpu,
            "seeds_per_s": rep.added / elapsed if elapsed else 0.0,
            "maxrss_mb": rss_kb / 1024, "tracemalloc_peak_mb": peak / 2**20}


def _child(path: str, fmt: str, trace: bool) -> dict[str, float | int]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", path, "--fmt", fmt] + (["--trace"] if trace else []),
        check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="synthetic seeds (default 100000)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--fmt", default="auto", help=argparse.SUPPRESS)
    ap.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(run_case(Path(args.child), args.fmt, args.trace)))
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        synth = Path(tmp) / "synthetic_100k.jsonl"
        t0 = time.perf_counter()
        write_synthetic(synth, args.n)
        print(f"wrote {args.n} synthetic seeds ({synth.stat().st_size / 2**20:.1f} MiB) "
              f"in {time.perf_counter() - t0:.1f}s")
        cases = []
        if GSM8K.exists():
            cases.append(("gsm8k test", GSM8K, "gsm8k"))
        else:
            print(f"skipping GSM8K: {GSM8K} not found")
        cases.append((f"synthetic {args.n}", synth, "jsonl"))
        print(f"{'case':<18} {'seeds':>7} {'seconds':>8} {'cpu s':>6} {'seeds/s':>9} {'maxrss MiB':>11} "
              f"{'tracemalloc peak MiB':>21}")
        ok = True
        for name, path, fmt in cases:
            timed = _child(str(path), fmt, trace=False)
            traced = _child(str(path), fmt, trace=True)
            ok = ok and timed["errors"] == 0 and timed["stored"] == timed["seeds"]
            print(f"{name:<18} {timed['seeds']:>7} {timed['seconds']:>8.2f} {timed['cpu']:>6.2f} "
                  f"{timed['seeds_per_s']:>9.0f} {timed['maxrss_mb']:>11.1f} "
                  f"{traced['tracemalloc_peak_mb']:>21.1f}")
            if fmt == "jsonl":
                per_100k = float(timed["seconds"]) * 100_000 / max(1, int(timed["seeds"]))
                print(f"  target 100k seeds < 10 s: {per_100k:.1f} s per 100k -> "
                      f"{'met' if per_100k < 10 else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
