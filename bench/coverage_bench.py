"""Offline coverage on the whole GSM8K test set: the share of active seeds whose Understanding,
Reasoning, Arithmetic and Reflection & Refinement artifacts the exact rules make and verify
(issue 26.1's target: at least 85% for the first three), and the reasons the rules refuse the
rest, grouped (numbers and names in a reason are masked so that one kind of refusal counts once).

Run: python bench/coverage_bench.py [--top N] [--examples K] [--dimension D] [--keep DB]
(``--dimension`` lists the refusals of another dimension than Reasoning; ``--keep`` keeps the
generated database at DB, to read its artifacts afterwards.)
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.shared_data import datasets_dir  # noqa: E402

from db import Store  # noqa: E402
from qcstation.common.config import load_config  # noqa: E402
from qcstation.core.ingest.importer import import_file  # noqa: E402
from qcstation.core.construct.pipeline import Pipeline  # noqa: E402

DIMENSIONS = ("understanding", "reasoning", "arithmetic", "refinement")


def reason_kind(reason: str) -> str:
    """A refusal reason with what varies per seed masked: quotes, names, expressions, numbers."""
    r = reason.replace("no rule applies: ", "").replace("; no model is configured", "")
    r = re.sub(r"'[^']*'", "'…'", r)
    r = re.sub(r"\b[a-z]\d+_\w+", "NAME", r)
    r = re.sub(r"\(\S[^)]*\)", "(…)", r)
    r = re.sub(r"\d[\d.,/]*", "N", r)
    return r[:90]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=10, help="refusal kinds to list (default 10)")
    ap.add_argument("--examples", type=int, default=6, help="seed ids shown per kind (default 6)")
    ap.add_argument("--dimension", choices=DIMENSIONS, default="reasoning",
                    help="the dimension whose refusals are listed (default reasoning)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the generated database at this path")
    args = ap.parse_args()
    src = datasets_dir() / "gsm8k" / "test.jsonl"
    if not src.exists():
        raise SystemExit(f"{src} not found")
    print(f"load average {os.getloadavg()[0]:.2f} (1 min)")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        with Store(db) as store:
            rep = import_file(store, src, "gsm8k")
        active = rep.active
        t0 = time.perf_counter()
        with Pipeline(db, load_config(None, env={})) as p:  # offline defaults: rules only
            p.generate(dimensions=list(DIMENSIONS))
        seconds = time.perf_counter() - t0
        con = sqlite3.connect(db)
        print(f"GSM8K test: {active} active seeds; offline generate {seconds:.1f} s")
        print(f"{'dimension':<14} {'verified':>8} {'share':>7}")
        for dim in DIMENSIONS:
            (n,) = con.execute(
                "SELECT COUNT(DISTINCT a.seed_id) FROM artifacts a JOIN seeds s ON s.id = a.seed_id "
                "WHERE a.dimension = ? AND a.status IN ('verified', 'accepted') AND s.status = 'active'",
                (dim,)).fetchone()
            print(f"{dim:<14} {n:>8} {n / active:>7.1%}")
        rows = con.execute(
            "SELECT a.seed_id, a.parse_error, a.verify_status FROM attempts a JOIN seeds s ON s.id = a.seed_id "
            "WHERE a.dimension = ? AND s.status = 'active' AND a.id IN "
            "(SELECT MAX(id) FROM attempts WHERE dimension = ? GROUP BY seed_id) "
            "AND a.verify_status != 'verified'", (args.dimension, args.dimension)).fetchall()
        kinds: Counter[str] = Counter()
        seeds: dict[str, list[int]] = defaultdict(list)
        for seed_id, reason, status in rows:
            kind = reason_kind(reason or "") if status == "needs_model" else f"[{status}]"
            kinds[kind] += 1
            seeds[kind].append(seed_id)
        print(f"\n{args.dimension} refusals: {len(rows)} seeds; top {args.top} kinds")
        for kind, n in kinds.most_common(args.top):
            print(f"{n:>5}  {kind}")
            print(f"       e.g. seeds {', '.join(str(s) for s in sorted(seeds[kind])[:args.examples])}")
        con.close()
        if args.keep is not None:
            import shutil
            shutil.copyfile(db, args.keep)
            print(f"\ndatabase kept at {args.keep}")


if __name__ == "__main__":
    main()
