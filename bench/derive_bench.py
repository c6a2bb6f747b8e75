"""Derived sets at scale: 10 variants of every verified GSM8K test seed (all four dimensions
rebuilt by the rules, every item re-solved by Z3), at 2 cores, against the Z3 pool's bare
throughput on the same formulas; then, for the five shared sets, the share of seeds for
which each transformation could be made.

Prints:

* ``variants``: items made, seconds, items/s (derive's own process plan on ``--cores`` cores:
  one rules process and one Z3 worker per core, Z3 in the isolated verifier pool, stored in
  the database; see ``qcstation.core.derive.runner.plan_processes``), for the whole
  run and in the steady state: from the first batch stored to the last but one (between two
  stores, every stage of the pipeline -- rules, Z3, storing -- has moved on by as many
  batches as were stored, so the figure is what a long run sustains). The whole run also
  pays once for starting the processes: the fork server, the Z3 workers and the rules
  workers, each importing what it needs (about 0.7 s CPU with the modules' bytecode cached,
  2.2 s and 5 s of wall clock where none is, as under ``PYTHONDONTWRITEBYTECODE``) and for
  filling and draining the pipeline (the first batch's rules run before any Z3 check can, the
  last batch's checks after the last rules); the bare pool is timed warm. At the scale
  derive is for (every seed of a dataset, 10 variants each) start and drain are rounding
  errors, so the target is read on the steady state; both are printed;
* per process in the steady state, CPU ms per item: derive's rules workers (with the fork
  server that starts them), its Z3 workers and its main process (leasing, storing, feeding
  Z3). Derive reaches 0.5 of the pool by CPU when rules + main take no more than twice the
  pool's Z3 per item less derive's own Z3;
* derive's Z3 workers over the whole run, and the bare pool's workers (beside each ``z3 pool``
  line), per formula: CPU ms, waits for work (voluntary context switches: a worker whose queue
  ran dry) and preemptions (involuntary ones). Both check the same formulas with the same
  code and limits (derive's count of checks is printed: it equals the pool's formulas when
  Z3 refused no item); a difference in CPU per formula with no waits is the cores' sharing;
* ``z3 pool``: the same items' formulas (each item's Reasoning SMT-LIB and notation SMT-LIB,
  the checks derive runs) verified by a bare pool with a worker on every core, under derive's
  limits (:func:`qcstation.core.derive.runner.verify_limits`), items/s;
* the ratio of the two (target: at least 0.5), by wall clock and by CPU: on a machine the
  other helpers also load, the two phases get different shares of the cores, so the CPU
  seconds every process of each phase spent per item (this process and all its children,
  read from /proc, less the meter's own sampling and the bench's own count of the items
  stored after each batch) are printed too, with the load average and the cores each phase
  got (CPU seconds per wall-clock second); their ratio is what the wall ratio is on two
  otherwise idle cores. The pool is timed twice (right after the derive run and once more)
  and both rates are printed;
* per source and transformation: seeds queued, seeds with at least one item, the share, and
  the leading reasons for the others.

Bindings: a given may be transformed only where the references work ties it to its words
(``bound: true`` and a span per given). Where the stored formalizations carry no such
bindings yet, ``--bind-unique`` (default on) stands in for it here: a given is tied to the
one number of the question with its value, and an item with a value written twice, or a
given not found, stays unbound (refused as ``not-bound``). The stand-in is printed with the
figures; it is never used outside this benchmark.

Run: python bench/derive_bench.py [--cores 2] [--variants 10] [--share-limit N]
[--skip-shares] [--db PATH] [--datasets DIR] (``--db``: a database already imported and generated, copied and
used instead of importing and generating again; PATH itself is not written)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.shared_data import datasets_dir, not_found  # noqa: E402

from db import Store  # noqa: E402
from qcstation.common.config import load_config  # noqa: E402
from qcstation.core.construct.pipeline import Pipeline  # noqa: E402
from qcstation.core.derive.bindings import question_numbers  # noqa: E402
from qcstation.core.derive.report import set_report  # noqa: E402
from qcstation.core.derive.runner import run_derive, verify_limits  # noqa: E402
from qcstation.core.derive.transforms import Options  # noqa: E402
from qcstation.core.ingest.importer import import_file  # noqa: E402

SOURCES = {"gsm8k": "gsm8k/test.jsonl", "mawps": "mawps/test.jsonl", "aqua": "aqua/test.json",
           "math500": "math500/test.jsonl", "aime2024": "aime2024/test.jsonl"}


class CpuMeter:
    """CPU seconds spent by this process and all its descendants while it is open (Linux:
    read from /proc every 50 ms; a process keeps the last figure read for it), less the
    meter's own: the sampling thread's CPU (about 1.6 % of a core, for as long as the
    meter runs: a phase that runs longer would pay more of it) and what the caller reports
    with :meth:`exclude` (the bench's own work between batches)."""

    def __init__(self) -> None:
        import os
        import threading

        self._os, self._tick = os, os.sysconf("SC_CLK_TCK")
        self._base = {p: c for p in self._tree() if (c := self._cpu(p)) is not None}
        self._seen: dict[int, float] = dict(self._base)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._t0 = time.process_time()
        self._own_overhead = 0.0      # the sampling thread's CPU so far, and what exclude() adds
        self._excluded = 0.0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _tree(self) -> list[int]:
        out, todo = [], [self._os.getpid()]
        while todo:
            pid = todo.pop()
            try:
                for tid in self._os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{tid}/children") as f:
                        kids = [int(x) for x in f.read().split()]
                    out += kids
                    todo += kids
            except OSError:
                continue
        return out

    def _cpu(self, pid: int) -> float | None:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / self._tick
        except (OSError, IndexError, ValueError):
            return None

    def _read(self) -> None:
        for pid in self._tree():
            c = self._cpu(pid)
            if c is not None:
                with self._lock:
                    self._seen[pid] = max(self._seen.get(pid, 0.0), c)

    def _run(self) -> None:
        t0 = time.thread_time()
        while not self._stop.wait(0.05):
            self._read()
            self._own_overhead = time.thread_time() - t0
        self._own_overhead = time.thread_time() - t0

    def exclude(self, seconds: float) -> None:
        """Leave ``seconds`` of this process's CPU out (the caller's own measuring)."""
        self._excluded += seconds

    def _own(self) -> float:
        return time.process_time() - self._t0 - self._own_overhead - self._excluded

    def so_far(self) -> float:
        """CPU seconds until now, the meter still running."""
        t0 = time.thread_time()
        self._read()
        self._excluded += time.thread_time() - t0
        own = self._own()
        with self._lock:
            return own + sum(c - self._base.get(p, 0.0) for p, c in self._seen.items())

    def seconds(self) -> float:
        self._stop.set()
        self._thread.join()
        own = self._own()
        return own + sum(c - self._base.get(p, 0.0) for p, c in self._seen.items())

    def split(self, z3_pids: set[int]) -> tuple[float, float, float]:
        """CPU seconds so far of (this process, the processes in ``z3_pids``, every other
        descendant): derive's main process, its Z3 workers, its rules workers (and the fork
        server that starts them)."""
        t0 = time.thread_time()
        self._read()
        self._excluded += time.thread_time() - t0
        own = self._own()
        with self._lock:
            deltas = [(p, c - self._base.get(p, 0.0)) for p, c in self._seen.items()]
        z3 = sum(d for p, d in deltas if p in z3_pids)
        return own, z3, sum(d for p, d in deltas if p not in z3_pids)


def worker_stats(pids: set[int] | list[int]) -> dict[int, tuple[float, int, int]]:
    """Per live process of ``pids``: (CPU seconds, voluntary and involuntary context switches),
    from /proc (a process that has ended is left out)."""
    import os

    tick, out = os.sysconf("SC_CLK_TCK"), {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/status") as f:
                sw = {k: int(v) for k, _, v in (line.partition(":") for line in f)
                      if k in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")}
        except (OSError, IndexError, ValueError):
            continue
        out[pid] = ((int(fields[11]) + int(fields[12])) / tick, sw.get("voluntary_ctxt_switches", 0),
                    sw.get("nonvoluntary_ctxt_switches", 0))
    return out


def per_formula(before: dict[int, tuple[float, int, int]], after: dict[int, tuple[float, int, int]],
                formulas: int) -> str:
    """The Z3 workers' CPU ms and context switches per formula between two :func:`worker_stats`
    readings (a worker started in between counts from 0)."""
    cpu = vol = inv = 0.0
    for pid, (c, v, i) in after.items():
        c0, v0, i0 = before.get(pid, (0.0, 0, 0))
        cpu, vol, inv = cpu + c - c0, vol + v - v0, inv + i - i0
    n = max(formulas, 1)
    return (f"{1000 * cpu / n:.2f} ms of CPU, {vol / n:.2f} waits for work and {inv / n:.1f} "
            f"preemptions per formula")


def load_avg() -> str:
    """The 1-, 5- and 15-minute load averages, as ``uptime`` prints them."""
    import os

    try:
        return "/".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        return "?"


def keep_rules(store: Store) -> tuple[int, int]:
    """The rules' result of every seed with a rule-made Reasoning artifact kept with it, as
    generate keeps it today (a database generated before did not): (already kept, kept here)."""
    from qcstation.core.construct.make.rules import RuleError, rule_for_seed
    from qcstation.core.construct.make.rules.stored import rule_key
    from qcstation.core.construct.pipeline_records import keep_rule

    rows = store.query("SELECT s.* FROM seeds s WHERE EXISTS (SELECT 1 FROM artifacts a WHERE "
                       "a.seed_id = s.id AND a.dimension = 'reasoning' AND a.generator LIKE 'rule:%')")
    have = {int(r["seed_id"]): r["key"] for r in store.query("SELECT seed_id, key FROM rule_results")}
    had = kept = 0
    with store.transaction():
        for seed in rows:
            if have.get(int(seed["id"])) == rule_key(seed):
                had += 1
                continue
            try:
                keep_rule(store, seed, rule_for_seed(seed))
            except RuleError:
                continue
            kept += 1
    return had, kept


def bind_unique(store: Store) -> tuple[int, int, int]:
    """The bench's stand-in for the references work (see the module docstring); returns
    (rule-made formalizations, already bound, bound here)."""
    from fractions import Fraction

    rows = store.query("SELECT a.id, a.content, s.question FROM artifacts a JOIN seeds s "
                       "ON s.id = a.seed_id WHERE a.dimension = 'reasoning' AND a.status = "
                       "'verified' AND a.generator LIKE 'rule:%' AND s.status = 'active'")
    already = bound = 0
    with store.transaction():
        for r in rows:
            content = json.loads(r["content"])
            if content.get("bound") is True:
                already += 1
                continue
            givens = content.get("givens") or []
            nums = question_numbers(r["question"])
            out, ok, used = [], bool(givens), set()
            for g in givens:
                try:
                    v = Fraction(str(g.get("value")))
                except (ValueError, ZeroDivisionError):
                    ok = False
                    break
                at = [n for n in nums if n.value == v]
                if len(at) != 1 or at[0].start in used:
                    ok = False
                    break
                n = at[0]
                used.add(n.start)
                tail = r["question"][n.end:n.end + 9].lstrip()
                kind = ("word" if n.text.isalpha() else "percent" if tail.startswith(("%", "percent"))
                        else "fraction" if "/" in n.text else "number")
                out.append({**g, "span": [n.start, n.end], "words": n.text, "kind": kind})
            if not ok:
                continue
            content.update(givens=out, bound=True, bound_by="bench-unique-value")
            store.execute("UPDATE artifacts SET content = ? WHERE id = ?",
                          (json.dumps(content, sort_keys=True), int(r["id"])))
            bound += 1
    return len(rows), already, bound


def stored_items(db: Path, set_name: str) -> int:
    """Items of the set stored so far (read on a connection of its own while the run goes on)."""
    import sqlite3

    con = sqlite3.connect(db, timeout=30)
    try:
        return int(con.execute("SELECT COUNT(*) FROM derived_items di JOIN derive_sets ds ON "
                               "ds.id = di.set_id WHERE ds.name = ?", (set_name,)).fetchone()[0])
    finally:
        con.close()


def pool_rate(db: Path, set_name: str, workers: int) -> tuple[int, int, float, float, str]:
    """(items, formulas, seconds, CPU seconds, the workers' own figures per formula:
    :func:`per_formula`) of a bare verifier pool on the set's stored formulas."""
    from qcstation.core.verify.verifier import VerifierPool

    with Store(db) as store:
        rows = store.query(
            "SELECT a.dimension, a.content, di.answer_value FROM artifacts a JOIN derived_items di "
            "ON di.seed_id = a.seed_id JOIN derive_sets ds ON ds.id = di.set_id "
            "WHERE ds.name = ? AND a.dimension IN ('reasoning', 'arithmetic')", (set_name,))
        items = int(store.scalar("SELECT COUNT(*) FROM derived_items di JOIN derive_sets ds "
                                 "ON ds.id = di.set_id WHERE ds.name = ?", (set_name,)))
    from qcstation.core.construct.check.checks import notation_smtlib

    texts = []
    for r in rows:
        c = json.loads(r["content"])
        smt = c.get("smtlib") if r["dimension"] == "reasoning" else notation_smtlib(c)
        if isinstance(smt, tuple):
            smt = smt[0]
        if isinstance(smt, str) and smt:
            texts.append((smt, r["answer_value"]))     # as derive checks it: value and unique
    pool = VerifierPool(workers=workers, limits=verify_limits(load_config(None, env={})))
    try:
        list(pool.verify_many(texts[:8]))             # warm the workers
        meter = CpuMeter()
        before = worker_stats(pool.worker_pids())
        t0 = time.perf_counter()
        list(pool.verify_many(texts))
        seconds = time.perf_counter() - t0
        own = per_formula(before, worker_stats(pool.worker_pids()), len(texts))
        cpu = meter.seconds()
    finally:
        pool.close()
    return items, len(texts), seconds, cpu, own


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cores", type=int, default=2,
                    help="cores the derive run and the bare pool use (default 2)")
    ap.add_argument("--variants", type=int, default=10)
    ap.add_argument("--share-limit", type=int, default=200,
                    help="seeds per source for the shares (0: all)")
    ap.add_argument("--no-bind-unique", action="store_true")
    ap.add_argument("--skip-shares", action="store_true")
    ap.add_argument("--skip-variants", action="store_true",
                    help="only the shares per source (no timing)")
    ap.add_argument("--db", type=Path, help="an imported and generated database to start from "
                                            "(a copy is used)")
    ap.add_argument("--datasets", type=Path, help="the shared datasets folder (default "
                                                  "$QCSTATION_DATASETS, else shared/datasets in a "
                                                  "folder above the repository)")
    args = ap.parse_args()
    data = datasets_dir(args.datasets)
    cfg = load_config(None, env={})
    if args.db is None and not (data / SOURCES["gsm8k"]).exists():
        sys.exit(f"derive_bench: {not_found(data / SOURCES['gsm8k'])}")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        if args.db is not None:
            import shutil

            shutil.copy(args.db, db)
            print(f"from {args.db} (imported and generated before)")
            with Store(db) as store:
                had, kept = keep_rules(store)
            print(f"rule results: {had} kept by generate, {kept} kept here as generate keeps them "
                  f"today (the parents' rules, outside the timed runs)")
        else:
            with Store(db) as store:
                for source, rel in SOURCES.items():
                    if (data / rel).exists():
                        rep = import_file(store, data / rel, source)
                        print(f"import {source:<9} {rep.active:>5} seeds")
            t0 = time.perf_counter()
            with Pipeline(db, cfg) as p:
                p.generate()
            print(f"generate (rules, Z3): {time.perf_counter() - t0:.1f} s")
        with Store(db) as store:
            rules, already, bound = (0, 0, 0) if args.no_bind_unique else bind_unique(store)
            verified = int(store.scalar(
                "SELECT COUNT(DISTINCT s.id) FROM seeds s JOIN artifacts a ON a.seed_id = s.id "
                "WHERE s.source = 'gsm8k' AND a.dimension = 'reasoning' AND a.status = 'verified'"))
        if not args.no_bind_unique:
            print(f"bindings: {rules} rule-made formalizations, {already} bound by the references "
                  f"work, {bound} more bound here by unique value (bench stand-in)")

        if not args.skip_variants:
            marks: list[tuple[float, float, int]] = []    # (time, CPU, items stored) per batch
            roles: list[tuple[float, float, float]] = []  # (main, Z3, rules) CPU per batch

            def batch_stored(done: int, total: int, msg: str) -> None:
                # the count read here is the bench's, not derive's: its CPU is left out
                t0 = time.thread_time()
                items = stored_items(db, "bench-variants")
                meter.exclude(time.thread_time() - t0)
                z3_pids.update(z3_pool.worker_pids())
                roles.append(meter.split(z3_pids))
                marks.append((time.perf_counter(), sum(roles[-1]), items))

            from qcstation.core.derive.runner import plan_processes
            from qcstation.core.verify.verifier import VerifierPool

            rules_procs, z3_procs = plan_processes(None, None, args.cores)
            load0, meter, t0 = load_avg(), CpuMeter(), time.perf_counter()
            # the pool run_derive would start (z3_procs workers, derive's limits), started
            # here so that its workers' CPU can be told from the rules workers'
            z3_pool = VerifierPool(workers=z3_procs, limits=verify_limits(cfg))
            z3_pids = set(z3_pool.worker_pids())
            z3_before = worker_stats(z3_pids)
            try:
                summary = run_derive(db, cfg, kind="variants", name="bench-variants",
                                     sources=["gsm8k"], opts=Options(variants=args.variants),
                                     workers=rules_procs, pool=z3_pool, progress=batch_stored)
                z3_own = per_formula(z3_before, worker_stats(z3_pids | set(z3_pool.worker_pids())),
                                     summary.checks)
            finally:
                z3_pids.update(z3_pool.worker_pids())
                z3_pool.close()
            seconds = time.perf_counter() - t0
            cpu = meter.seconds()
            made = sum(summary.made.values())
            rate = made / seconds if seconds else 0.0
            print(f"\nvariants: {verified} verified GSM8K test seeds, {made} items "
                  f"({args.variants} asked per seed) in {seconds:.1f} s = {rate:.1f} items/s "
                  f"on {args.cores} cores ({rules_procs} rules, {z3_procs} Z3 processes); CPU "
                  f"{1000 * cpu / max(made, 1):.1f} ms/item "
                  f"(all processes); load {load0} -> {load_avg()}")
            # steady state: from the first batch stored to the last but one (between two
            # stores every stage of the pipeline has moved on by as many batches as were stored)
            (ta, ca, ia), (tb, cb, ib) = (marks[0], marks[-2]) if len(marks) >= 3 else \
                ((t0, 0.0, 0), (t0 + seconds, cpu, made))
            steady_rate = (ib - ia) / (tb - ta) if tb > ta else 0.0
            steady_cpu = 1000 * (cb - ca) / max(ib - ia, 1)
            print(f"  steady state (batches 2..{max(len(marks) - 1, 1)} of {len(marks)}: {ib - ia} items): "
                  f"{tb - ta:.1f} s = {steady_rate:.1f} items/s, CPU {steady_cpu:.1f} ms/item "
                  f"({(cb - ca) / max(tb - ta, 1e-9):.2f} cores used); "
                  f"before it {ta - t0:.1f} s and {ca:.1f} s CPU (start, first batch), after it "
                  f"{t0 + seconds - tb:.1f} s (last batch, drain)")
            if len(roles) >= 3:
                n = max(ib - ia, 1)
                (ma, za, ra), (mb, zb, rb) = roles[0], roles[-2]
                print(f"  steady state per process, CPU ms/item: rules workers {1000 * (rb - ra) / n:.1f}, "
                      f"Z3 workers {1000 * (zb - za) / n:.1f}, main process {1000 * (mb - ma) / n:.1f} "
                      f"(0.5 of the pool asks rules + main <= 2 x pool - Z3)")
            print(f"  derive's Z3 workers, whole run: {summary.checks} formulas checked, {z3_own}")
            rates, cpus = [], []
            for _ in range(2):
                load0 = load_avg()
                items, formulas, z3_s, z3_cpu, pool_own = pool_rate(db, "bench-variants", args.cores)
                rates.append(items / z3_s if z3_s else 0.0)
                cpus.append(1000 * z3_cpu / max(items, 1))
                print(f"z3 pool:  the same {items} items' {formulas} formulas in {z3_s:.1f} s = "
                      f"{rates[-1]:.1f} items/s ({formulas / z3_s:.1f} formulas/s) at {args.cores} "
                      f"workers; CPU {cpus[-1]:.1f} ms/item ({z3_cpu / z3_s:.2f} cores used); "
                      f"load {load0} -> {load_avg()}; its workers: {pool_own}")
            z3_rate, z3_cpu_item = sum(rates) / len(rates), sum(cpus) / len(cpus)
            derive_cpu_item = 1000 * cpu / max(made, 1)
            print(f"ratio:    steady state {steady_rate / z3_rate:.2f} of the pool's bare rate by wall "
                  f"clock (mean of the two pool runs), {z3_cpu_item / steady_cpu:.2f} by CPU per item "
                  f"(target >= 0.5); whole run {rate / z3_rate:.2f} by wall clock, "
                  f"{z3_cpu_item / derive_cpu_item:.2f} by CPU")

        if args.skip_shares:
            return
        print(f"\nshares per source ({args.share_limit or 'all'} seeds per source):")
        for kind in ("variants", "ladder", "perturb", "counterfactual", "inverse"):
            for source in SOURCES:
                run_derive(db, cfg, kind=kind, name=f"share-{kind}-{source}", sources=[source],
                           limit=args.share_limit or None,
                           opts=Options(variants=args.variants), workers=None, z3_workers=None)
        print(f"{'source':<9} {'transform':<16} {'seeds':>5} {'made':>5} {'share':>7}  leading reasons")
        with Store(db) as store:
            for kind in ("variants", "ladder", "perturb", "counterfactual", "inverse"):
                for source in SOURCES:
                    for line in set_report(store, f"share-{kind}-{source}").lines:
                        reasons = ", ".join(f"{c} {n}" for c, n in line.reasons)
                        print(f"{line.source:<9} {line.transform:<16} {line.parents:>5} "
                              f"{line.made_for:>5} {100 * line.share:>6.1f}%  {reasons}")


if __name__ == "__main__":
    main()
