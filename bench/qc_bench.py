"""How long do the QC gate, the dashboard counts, progress and next_item take at 100k seeds?

Builds the database of ``bench/review_open_bench.py`` (N seeds, default 100,000, each with a
verified ``arithmetic`` and ``understanding`` artifact, and a 10% QC sample of the notation
questions), records decisions on the first ``--decided`` sampled items (every
``--reject-every``-th a reject; written straight into ``reviews``/``artifacts`` the way
``decide`` writes them, so building stays fast), then times on a fresh connection per
call, as the workstation's workers do:

* ``gate`` for both QC dimensions (the requirement: well under 0.3 s),
* ``dashboard_counts`` (well under 0.5 s),
* ``progress`` of the open sample and ``next_item`` (claim; the claim is given back),
* ``status_counts`` (the dashboard's counts panel), for reference.

Usage: ``python bench/qc_bench.py [--seeds 100000] [--runs 5] [--decided 2000]
[--reject-every 50] [--keep DIR]``. Exit code 1 when a requirement is missed.
"""

from __future__ import annotations

import argparse
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

from bench.review_open_bench import build_database  # noqa: E402
from db import Store, now  # noqa: E402
from qcstation.core.review.decisions import next_item, release_claim  # noqa: E402
from qcstation.core.review.gate import dashboard_counts, gate, progress  # noqa: E402
from qcstation.core.review.sampling import open_sample  # noqa: E402
from qcstation.core.review.status import status_counts  # noqa: E402

GATE_LIMIT_S = 0.3
DASHBOARD_LIMIT_S = 0.5


def record_decisions(path: Path, decided: int, reject_every: int) -> tuple[int, int]:
    """Accept (or, every ``reject_every``-th, reject) the first ``decided`` items of the open
    arithmetic sample; returns (decisions, rejects). Skipped when reviews already exist."""
    with Store(path) as store:
        if store.scalar("SELECT COUNT(*) FROM reviews"):
            n = int(store.scalar("SELECT COUNT(*) FROM reviews WHERE undone_at IS NULL"))
            r = int(store.scalar("SELECT COUNT(*) FROM reviews WHERE verdict = 'reject' "
                                 "AND undone_at IS NULL"))
            return n, r
        sample = open_sample(store, "arithmetic")
        if sample is None or decided <= 0:
            return 0, 0
        items = store.query("SELECT id, artifact_id FROM sample_items WHERE sample_id = ? "
                            "ORDER BY position LIMIT ?", (sample.id, decided))
        stamp = now()
        reviews: list[tuple[Any, ...]] = []
        status: list[tuple[str, str, int]] = []
        rejects = 0
        for n, it in enumerate(items, start=1):
            reject = reject_every > 0 and n % reject_every == 0
            rejects += reject
            reviews.append((int(it["id"]), int(it["artifact_id"]), f"bench-{n % 4}",
                            "reject" if reject else "accept",
                            "story words left in" if reject else None, stamp))
            status.append(("rejected" if reject else "accepted", stamp, int(it["artifact_id"])))
        with store.transaction():
            store.conn.executemany(
                "INSERT INTO reviews (sample_item_id, artifact_id, annotator, verdict, reason, "
                "created_at) VALUES (?,?,?,?,?,?)", reviews)
            store.conn.executemany("UPDATE artifacts SET status = ?, updated_at = ? WHERE id = ?",
                                   status)
        return len(items), rejects


def timed(path: Path, runs: int, call: Callable[[Store], Any]) -> list[float]:
    """Seconds per call, each on a fresh connection (schema already read, as in a worker)."""
    out = []
    for _ in range(runs):
        with Store(path) as store:
            store.scalar("SELECT 1 FROM seeds LIMIT 1")
            t0 = time.perf_counter()
            call(store)
            out.append(time.perf_counter() - t0)
    return out


def _next_item(store: Store) -> None:
    item = next_item(store, "bench-claim", "arithmetic")
    if item is not None:
        release_claim(store, item.item_id, "bench-claim")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--decided", type=int, default=2000,
                        help="sampled items to record a decision for before timing")
    parser.add_argument("--reject-every", type=int, default=50,
                        help="every N-th of those decisions is a reject (0: none)")
    parser.add_argument("--keep", metavar="DIR", help="build the database here and keep it")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="qcstation-qc-bench-") as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "bench.db"
        if path.exists():
            print(f"using the existing {path}")
        else:
            build = build_database(path, args.seeds)
            print(f"built {args.seeds:,} seeds, {2 * args.seeds:,} artifacts, a sample of "
                  f"{int(build['sample_size']):,} (insert {build['insert_s']:.1f} s, "
                  f"draw_sample {build['draw_sample_s']:.1f} s)")
        decisions, rejects = record_decisions(path, args.decided, args.reject_every)
        print(f"decisions recorded: {decisions:,} ({rejects:,} rejects)")
        with Store(path) as store:
            sample = open_sample(store, "arithmetic")
            assert sample is not None, "the benchmark database has no open arithmetic sample"
            sample_id = sample.id
        cases: list[tuple[str, Callable[[Store], Any], float | None]] = [
            ("qc.gate arithmetic", lambda s: gate(s, "arithmetic", threshold=0.05),
             GATE_LIMIT_S),
            ("qc.gate understanding", lambda s: gate(s, "understanding", threshold=0.05),
             GATE_LIMIT_S),
            ("qc.dashboard_counts", lambda s: dashboard_counts(s), DASHBOARD_LIMIT_S),
            ("qc.progress (open sample)", lambda s: progress(s, sample_id), None),
            ("qc.next_item (claim)", _next_item, None),
            ("status_counts (counts panel)", status_counts, None),
        ]
        failed = False
        print(f"{'call':<30} {'median':>8} {'min':>8} {'max':>8}  (s, {args.runs} runs)")
        for name, call, limit in cases:
            times = timed(path, args.runs, call)
            med = statistics.median(times)
            verdict = ""
            if limit is not None:
                ok = med < limit
                failed |= not ok
                verdict = f"  {'ok' if ok else 'TOO SLOW'} (< {limit} s)"
            print(f"{name:<30} {med:8.3f} {min(times):8.3f} {max(times):8.3f}{verdict}")
        with Store(path) as store:
            g = gate(store, "arithmetic", threshold=0.05)
        print(f"gate arithmetic: {g.reviewed} reviewed, {g.defects} defects, {g.pending} pending, "
              f"{g.open_rejects} open rejects; next: {g.next_step}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
