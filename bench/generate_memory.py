"""Memory of ``generate`` against the number of seeds (issue 30.1): the peak RSS of the process
that runs it, for growing numbers of seeds, offline (the rules; no model).

``generate`` reads the seeds a page at a time (``Pipeline.seed_pages``): what a run holds is one
page of seed rows and its jobs, whatever the number of seeds. Two cases, each N in a fresh
process (this script with ``--child``), printing its peak RSS (``VmHWM``), its RSS once the
modules are imported (before the run) and the difference, seconds, CPU and the load:

* ``select``: ``generate --dimension arithmetic`` over N seeds whose Reasoning is not made:
  every seed is read and settled ("waiting for verified reasoning") and nothing is made, so
  the figure is the selection's own memory, at up to a million seeds in minutes (default
  10,000, 100,000 and 1,000,000);
* ``rules``: every dimension made by the offline rules and checked by Z3 on N seeds (the rules
  take tens of milliseconds a seed: default 1,000 and 4,000).

The seeds are synthetic two-step GSM8K-like problems (``bench/import_bench.write_synthetic``,
about 300 bytes of text each; every one a distinct question): 20,000 imported, and the rest of
a larger case copies of those rows made in SQL (:func:`build`), into a database under ``--work``
(default a temporary folder). ``--tree DIR`` runs the children with
another checkout's code (e.g. the main branch before a change) for a comparison.

Run: python bench/generate_memory.py [--select 10000,100000,1000000] [--rules 1000,4000]
[--tree DIR] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _status_mb(field: str) -> float:
    """A memory figure of this process (``VmRSS``: now; ``VmHWM``: its peak) from Linux
    /proc, in MB (0 where it cannot be read). The peak is read here, not from ``ru_maxrss``,
    which keeps across exec the peak of the process that forked this one."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def load_avg() -> str:
    try:
        return "/".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        return "?"


def child(db: Path, n: int, dims: list[str]) -> None:
    """Run ``generate`` on the first ``n`` seeds of ``db``; print what it cost as JSON."""
    from qcstation.common.config import load_config
    from qcstation.core.construct.pipeline import Pipeline

    cfg = load_config(None, env={})
    before = _status_mb("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()
    with Pipeline(db, cfg) as p:
        summary = p.generate(dimensions=dims, limit=n)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = _status_mb("VmHWM")
    print(json.dumps({"before_mb": before, "peak_mb": peak, "seconds": seconds, "cpu": cpu,
                      "counts": summary.to_dict()["dimensions"]}))


#: seeds imported through the importer; a larger database is made of copies of them (below)
IMPORTED = 20_000


def build(db: Path, n: int) -> float:
    """A database of ``n`` synthetic seeds; returns the seconds it took. Up to
    :data:`IMPORTED` are imported (the importer reads about a thousand a second on a loaded
    machine: a million would take a quarter of an hour); the rest are copies of those rows
    made in SQL, each its own seed (its own id, ``orig_id`` and question), in id order."""
    from bench.import_bench import write_synthetic
    from db import Store
    from qcstation.core.ingest.importer import import_file

    src = db.with_suffix(".jsonl")
    first = min(n, IMPORTED)
    write_synthetic(src, first)
    t0 = time.perf_counter()
    with Store(db) as store:
        rep = import_file(store, src, actor="bench")
        if rep.active != first:
            raise SystemExit(f"generate_memory: {rep.active} of {first} synthetic seeds imported")
        cols = [r["name"] for r in store.query("PRAGMA table_info(seeds)") if r["name"] != "id"]
        made, copy = first, 0
        while made < n:
            copy += 1
            take = min(first, n - made)
            picked = ", ".join(
                f"orig_id || '~{copy}'" if c == "orig_id" else
                f"question || ' (copy {copy})'" if c == "question" else
                f"content_hash || '~{copy}'" if c == "content_hash" else c for c in cols)
            with store.transaction():
                store.execute(f"INSERT INTO seeds ({', '.join(cols)}) SELECT {picked} FROM seeds "
                              f"WHERE id <= ? ORDER BY id", (take,))
            made += take
    src.unlink()
    return time.perf_counter() - t0


def run_child(tree: Path, db: Path, n: int, dims: list[str], build_only: bool = False) -> dict:
    """This script in a fresh process with ``tree``'s code: a run of ``generate`` (or, with
    ``build_only``, the database built by that code, whose schema it then knows)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, __file__, "--child", str(db), "--n", str(n),
                          "--dims", ",".join(dims)] + (["--build"] if build_only else []),
                         env=env, check=False, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"generate_memory: the child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(case: str, n: int, r: dict, load0: str) -> None:
    made = sum(v for c in r["counts"].values() for k, v in c.items() if not k.startswith("waiting"))
    print(f"{case:<7} {n:>9,} seeds  peak RSS {r['peak_mb']:7.1f} MB  (at start {r['before_mb']:6.1f} MB, "
          f"+{r['peak_mb'] - r['before_mb']:6.1f} MB)  {r['seconds']:7.1f} s  CPU {r['cpu']:7.1f} s  "
          f"items made {made:,}  load {load0} -> {load_avg()}", flush=True)


def _sizes(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()] if text else []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--select", default="10000,100000,1000000",
                    help="seed counts of the select case, comma-separated ('' : skip)")
    ap.add_argument("--rules", default="1000,4000",
                    help="seed counts of the rules case, comma-separated ('' : skip)")
    ap.add_argument("--tree", type=Path, default=ROOT,
                    help="the checkout whose code the children run (default this one)")
    ap.add_argument("--work", type=Path, help="where the databases go (default a temporary folder)")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--dims", help=argparse.SUPPRESS)
    ap.add_argument("--build", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        sys.path.insert(0, os.environ.get("PYTHONPATH", str(ROOT)).split(os.pathsep)[0])
        if args.build:
            print(json.dumps({"seconds": build(args.child, int(args.n))}))
        else:
            child(args.child, int(args.n), args.dims.split(","))
        return
    tree = args.tree.resolve()
    print(f"generate memory, code of {tree}; load {load_avg()}")
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        work = Path(tmp)
        select = _sizes(args.select)
        if select:
            db = work / "select.db"
            secs = run_child(tree, db, max(select), [], build_only=True)["seconds"]
            print(f"select: {max(select):,} synthetic seeds made in {secs:.1f} s "
                  f"({db.stat().st_size / 2**20:.0f} MB database)")
            for n in sorted(select):     # arithmetic without reasoning: nothing is written
                load0 = load_avg()
                report("select", n, run_child(tree, db, n, ["arithmetic"]), load0)
        for n in sorted(_sizes(args.rules)):
            db = work / f"rules-{n}.db"
            run_child(tree, db, n, [], build_only=True)
            load0 = load_avg()
            report("rules", n, run_child(tree, db, n, ["reasoning", "arithmetic", "understanding",
                                                       "refinement"]), load0)
            shutil.rmtree(db.parent / f"{db.name}-wal", ignore_errors=True)
            db.unlink()


if __name__ == "__main__":
    main()
