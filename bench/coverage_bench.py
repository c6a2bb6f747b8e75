"""Offline coverage on the whole GSM8K test set: the share of active seeds whose Understanding,
Reasoning, Arithmetic and Reflection & Refinement artifacts the exact rules make and verify
(issue 26.1's target: at least 85% for the first three), and the reasons the rules refuse the
rest, grouped (numbers and names in a reason are masked so that one kind of refusal counts once).

Run: python bench/coverage_bench.py [--top N] [--examples K] [--dimension D] [--keep DB]
                                    [--seeds FILE [--sample N --rng R [--skip M --skip-rng S]]]
(``--dimension`` lists the refusals of another dimension than Reasoning; ``--keep`` keeps the
generated database at DB, to read its artifacts afterwards; ``--seeds`` measures another
GSM8K-format file instead of the test set, e.g. held-out GSM8K *train* seeds the rules were
never tuned on, ``--sample N --rng R`` drawing N of its lines with ``random.Random(R)`` after
leaving out the ``--skip M`` lines drawn with ``--skip-rng S``, so that a tuning sample and a
measuring sample of one file never overlap.)
"""

from __future__ import annotations

import argparse
import os
import random
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


def draw(src: Path, out: Path, args: argparse.Namespace) -> Path:
    """``args.sample`` lines of ``src`` drawn with ``random.Random(args.rng)``, written to ``out``
    in file order, after leaving out the lines an ``args.skip`` draw with ``args.skip_rng`` takes."""
    lines = [line for line in src.read_text(encoding="utf-8").splitlines() if line.strip()]
    positions = list(range(len(lines)))
    if args.skip:
        left_out = set(random.Random(args.skip_rng).sample(positions, args.skip))
        positions = [i for i in positions if i not in left_out]
    chosen = sorted(random.Random(args.rng).sample(positions, min(args.sample, len(positions))))
    out.write_text("".join(lines[i] + "\n" for i in chosen), encoding="utf-8")
    print(f"{len(chosen)} lines of {src.name} (0-based positions {chosen[0]}..{chosen[-1]}; "
          f"orig_id k is the k-th of them)")
    out.with_suffix(".positions").write_text(
        "".join(f"{k}\t{i}\n" for k, i in enumerate(chosen, 1)), encoding="utf-8")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=10, help="refusal kinds to list (default 10)")
    ap.add_argument("--examples", type=int, default=6, help="seed ids shown per kind (default 6)")
    ap.add_argument("--dimension", choices=DIMENSIONS, default="reasoning",
                    help="the dimension whose refusals are listed (default reasoning)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the generated database at this path")
    ap.add_argument("--seeds", type=Path, default=None,
                    help="a GSM8K-format JSONL file to measure instead of GSM8K test")
    ap.add_argument("--sample", type=int, default=0, help="draw this many lines of --seeds")
    ap.add_argument("--rng", type=int, default=0, help="random seed of the --sample draw")
    ap.add_argument("--skip", type=int, default=0,
                    help="leave out the lines a draw of this many with --skip-rng would take")
    ap.add_argument("--skip-rng", type=int, default=0, help="random seed of the --skip draw")
    args = ap.parse_args()
    src = args.seeds or datasets_dir() / "gsm8k" / "test.jsonl"
    if not src.exists():
        raise SystemExit(f"{src} not found")
    print(f"load average {os.getloadavg()[0]:.2f} (1 min)")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        if args.sample:
            src = draw(src, Path(tmp) / "sample.jsonl", args)
        with Store(db) as store:
            rep = import_file(store, src, "gsm8k", source="gsm8k" if args.seeds is None else "held_out")
        active = rep.active
        t0 = time.perf_counter()
        with Pipeline(db, load_config(None, env={})) as p:  # offline defaults: rules only
            p.generate(dimensions=list(DIMENSIONS))
        seconds = time.perf_counter() - t0
        con = sqlite3.connect(db)
        print(f"{'GSM8K test' if args.seeds is None else args.seeds.name}: {active} active seeds; offline generate {seconds:.1f} s")
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
            if args.sample:  # which line of --seeds each seed of the sample is
                kept = args.keep.with_suffix(".positions")
                shutil.copyfile(Path(tmp) / "sample.positions", kept)
                print(f"sample positions (orig_id, 0-based line of {args.seeds.name}) at {kept}")


if __name__ == "__main__":
    main()
