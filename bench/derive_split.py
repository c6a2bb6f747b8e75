"""Where a derive rules worker's CPU goes per derived item, and the most that reading each text
once per parent could save (issue 30.6: derive at half the bare Z3 pool's rate).

Builds ``derive variants`` items in this process exactly as a rules worker does
(:func:`qcstation.core.derive.runner._work`: the draws and their cheap checks, the rules'
formalization of each drafted item, its four artifacts, the second opinion, the make-time
audit, the contents encoded), from the verified GSM8K parents of a generated database, and
prints, in ms of CPU per item made:

* ``cold``: each parent's items built once, as in a run (the readers' memos hold what this
  parent's earlier items and the parents before it read);
* ``again``: the same parent's items built a second time right after, with every reading the
  rules, the drafts, the audit and the second opinion memoize today answered from its memo
  (the same texts). What is left is what such reuse cannot remove: a bound on the gain of
  working readings out once per parent and reusing them for its items (readings that depend on
  the new values could not be reused at all, so the real gain is smaller);
* per phase, on other parents (each function timed where it is called, with what it calls;
  the timing adds a little to every call): the draws' cheap checks, drafting, the second
  opinion, the rules (and their independent checks), each artifact, the audit.

With ``--pool-ms`` (the bare pool's CPU per item, ``derive_bench.py``'s ``z3 pool`` line),
``--z3-ms`` (derive's own Z3 workers per item; default: as the pool) and ``--main-ms`` (derive's
main process per item), the CPU ratio derive would have at the ``cold`` and at the ``again``
cost: pool / (rules + Z3 + main); the target is 0.5.

Run: python bench/derive_split.py --db DB [--parents 150] [--skip 0] [--pool-ms 9.5]
[--z3-ms 9.9] [--main-ms 1.5] (``--db``: a database imported and generated before, e.g. the one
``derive_bench.py --db`` reads; it is only read)
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from db import Store  # noqa: E402
from qcstation.core.derive import runner  # noqa: E402
from qcstation.core.derive.store import parent_rows  # noqa: E402
from qcstation.core.derive.transforms import Options  # noqa: E402

#: (module, attribute path, label) of what the per-phase pass times, where it is looked up
PHASES = [
    ("qcstation.core.derive.transforms", "_VariantRun._values", "draws: cheap checks"),
    ("qcstation.core.derive.transforms", "draft", "drafting the texts"),
    ("qcstation.core.derive.transforms", "second_look", "second opinion (before the rules)"),
    ("qcstation.core.derive.transforms", "formalize", "rules: formalize the draft"),
    ("qcstation.core.construct.make.rules.dispatch", "check_independently",
     "  of which the rules' independent checks"),
    ("qcstation.core.derive.transforms", "_VariantRun._old_at",
     "  replay of the old order (its steps are in the lines above)"),
    ("qcstation.core.derive.transforms", "notation_content", "artifact: notation"),
    ("qcstation.core.derive.transforms", "keyinfo_content", "artifact: key information"),
    ("qcstation.core.derive.transforms", "refinement_content", "artifact: wrong chain of thought"),
    ("qcstation.core.derive.runner", "second_opinion", "second opinion (built items)"),
    ("qcstation.core.derive.runner", "stored_flags", "make-time audit (4 artifacts)"),
    ("qcstation.core.derive.runner", "encode_contents", "encoding the contents"),
]


def parents(db: Path, skip: int, n: int) -> list[Any]:
    with Store(db, create=False) as store:
        ids = [int(r["seed_id"]) for r in store.query(
            "SELECT DISTINCT a.seed_id FROM artifacts a JOIN seeds s ON s.id = a.seed_id WHERE "
            "s.source = 'gsm8k' AND s.status = 'active' AND a.dimension = 'reasoning' AND "
            "a.status = 'verified' ORDER BY a.seed_id")]
        return parent_rows(store, [{"parent_id": i} for i in ids[skip:skip + n]])


def timed(totals: dict[str, float], label: str, fn: Any) -> Any:
    running: list[int] = []

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        outer = not running
        running.append(1)
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            running.pop()
            if outer:                     # a call inside a call of the same is counted once
                totals[label] += time.process_time() - t0
    return wrapper


def patch(totals: dict[str, float]) -> None:
    for module, path, label in PHASES:
        owner: Any = importlib.import_module(module)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        setattr(owner, name, timed(totals, label, getattr(owner, name)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="a generated database (only read)")
    ap.add_argument("--parents", type=int, default=150, help="parents per pass (default 150)")
    ap.add_argument("--skip", type=int, default=0, help="verified parents to leave out first")
    ap.add_argument("--variants", type=int, default=10)
    ap.add_argument("--pool-ms", type=float, help="the bare Z3 pool's CPU ms per item")
    ap.add_argument("--main-ms", type=float, default=0.0, help="derive's main process ms per item")
    ap.add_argument("--z3-ms", type=float, help="derive's own Z3 workers' ms per item (default: "
                                                "the pool's)")
    args = ap.parse_args()
    if not args.db.exists():
        sys.exit(f"derive_split: {args.db} not found")
    rows = parents(args.db, args.skip, 2 * args.parents + 10)
    warm, first, second = rows[:10], rows[10:10 + args.parents], rows[10 + args.parents:]
    runner._init_worker("variants", Options(variants=args.variants), "bench-split", [])
    for r in warm:                        # imports, compiled patterns: not an item's cost
        runner._work(r)
    load0 = "/".join(f"{v:.1f}" for v in os.getloadavg())
    cold = again = 0.0
    made = 0
    for r in first:
        t0 = time.process_time()
        items, _, _ = runner._work(r)
        t1 = time.process_time()
        runner._work(r)
        again += time.process_time() - t1
        cold += t1 - t0
        made += len(items)
    print(f"{len(first)} parents, {made} items ({args.variants} asked per parent); load "
          f"{load0} -> {'/'.join(f'{v:.1f}' for v in os.getloadavg())}")
    if not made:
        sys.exit("derive_split: no item made")
    c_ms, a_ms = 1000 * cold / made, 1000 * again / made
    print(f"cold:  {c_ms:6.2f} ms of CPU per item")
    print(f"again: {a_ms:6.2f} ms of CPU per item, every memoized reading warm "
          f"({100 * (1 - a_ms / c_ms):.0f} % less: the bound on reusing readings per parent)")
    if args.pool_ms:
        p, m = args.pool_ms, args.main_ms
        z = args.z3_ms if args.z3_ms is not None else p
        print(f"CPU ratio (pool {p:g} ms, derive's Z3 {z:g} and main process {m:g} ms per item): "
              f"cold {p / (c_ms + z + m):.2f}, again {p / (a_ms + z + m):.2f} (target 0.5)")
    totals: dict[str, float] = defaultdict(float)
    patch(totals)
    t0, made2 = time.process_time(), 0
    for r in second:
        made2 += len(runner._work(r)[0])
    whole = time.process_time() - t0
    if not made2:
        return
    print(f"\nper phase ({len(second)} other parents, {made2} items, {1000 * whole / made2:.2f} ms "
          f"per item timed):")
    for _, _, label in PHASES:
        print(f"  {label:<42} {1000 * totals[label] / made2:6.2f} ms")
    named = sum(v for k, v in totals.items() if not k.startswith("  "))
    print(f"  {'the rest (draws, bookkeeping)':<42} {1000 * (whole - named) / made2:6.2f} ms")


if __name__ == "__main__":
    main()
