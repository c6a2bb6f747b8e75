"""Offline generate → verify throughput on the whole GSM8K test set (exact rules, isolated Z3).

Prints items per second per dimension and in total. Run: python bench/generate_bench.py
"""

from __future__ import annotations

from collections import Counter

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from db import Store  # noqa: E402
from qcstation.common.config import load_config  # noqa: E402
from qcstation.core.ingest.importer import import_file  # noqa: E402
from qcstation.core.construct.pipeline import Pipeline  # noqa: E402


def main() -> None:
    src = ROOT.parent / "shared" / "datasets" / "gsm8k" / "test.jsonl"
    if not src.exists():
        raise SystemExit(f"{src} not found")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        with Store(db) as store:
            rep = import_file(store, src, "gsm8k")
        print(f"seeds: {rep.active} active of {rep.records} GSM8K test records")
        cfg = load_config(None, env={})  # offline defaults: rules only
        total_items = 0
        t_all = time.perf_counter()
        with Pipeline(db, cfg) as p:
            for dim in ("reasoning", "arithmetic", "understanding", "refinement"):
                t0 = time.perf_counter()
                before = Counter(p.summary.counts.get(dim, Counter()))
                p.generate(dimensions=[dim])
                seconds = time.perf_counter() - t0
                made = sum(p.summary.counts.get(dim, Counter()).values()) - sum(before.values())
                verified = p.summary.counts.get(dim, Counter()).get("verified", 0)
                total_items += made
                print(f"{dim:<14} {made:>6} items  {verified:>6} verified  {seconds:6.2f} s  "
                      f"{made / seconds:8.1f} items/s")
        seconds = time.perf_counter() - t_all
        print(f"{'total':<14} {total_items:>6} items  {'':>15} {seconds:6.2f} s  "
              f"{total_items / seconds:8.1f} items/s")


if __name__ == "__main__":
    main()
