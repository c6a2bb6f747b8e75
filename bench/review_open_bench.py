"""How long does the review screen take to show its first item on a large database?

Builds a database of N seeds (default 100,000) in a temporary directory, each with a
verified ``arithmetic`` (notation question) and ``understanding`` (key information)
artifact, draws a 10% QC sample of the notation questions with ``draw_sample`` and
then, headless at 80x24, times:

* ``direct``:    ``make_app(..., review="arithmetic")`` until the review screen shows its
                 first claimed item (the requirement: under a second);
* ``dashboard``: ``make_app(...)`` until the dashboard shows the open samples, then until
                 it also shows the counts and every gate;
* ``r``:         pressing ``r`` on the loaded dashboard until the first item shows, and
                 pressing it while the dashboard is still evaluating the gates.

Usage: ``python bench/review_open_bench.py [--seeds 100000] [--runs 3] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from db import Store, now  # noqa: E402
from qcstation.app import QCStationApp, make_app  # noqa: E402
from qcstation.core.review.sampling import draw_sample, open_sample  # noqa: E402
from qcstation.common.config import parse_config  # noqa: E402
from screens.dashboard import DashboardScreen  # noqa: E402
from screens.review import ReviewScreen  # noqa: E402

SOURCES = ("gsm8k", "mawps", "aqua", "math500")


def _smtlib(a: int, b: int, c: int) -> str:
    return (f"(declare-const total Int)\n(declare-const answer Int)\n"
            f"(assert (= total (+ {a} {b})))\n(assert (= answer (* total {c})))\n"
            f"(check-sat)\n(get-value (answer))")


def build_database(path: Path, n_seeds: int, *, rate: float = 0.10) -> dict[str, float]:
    """Fill ``path`` with ``n_seeds`` seeds + 2 artifacts each, then draw the sample."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    stamp = now()
    seeds = []
    artifacts = []
    for i in range(1, n_seeds + 1):
        a, b, c = 3 + i % 17, 2 + (i * 7) % 11, 2 + i % 4
        answer = (a + b) * c
        source = SOURCES[i % len(SOURCES)]
        question = (f"Seed {i}: a shop has {a} boxes and gets {b} more. Each box later turns "
                    f"into {c} boxes. How many boxes are there in the end?")
        seeds.append((i, source, f"{source}-{i}", question, str(answer), str(answer),
                      f"{a}+{b}={a + b}; {a + b}*{c}={answer}\n#### {answer}",
                      ("easy", "medium", "hard")[i % 3], "active",
                      hashlib.sha256(f"{source}:{i}".encode()).hexdigest(), "{}", stamp, 2))
        notation = {"notation": f"Let x = {a} + {b}. Compute answer = x * {c}.",
                    "variables": {"x": str(a + b)}, "target": "answer",
                    "smtlib": _smtlib(a, b, c), "source_artifact_id": None}
        result = {"status": "verified", "value": str(answer), "value_text": str(answer),
                  "expected": str(answer), "message": "", "elapsed_ms": 2.0, "exact": True}
        keyinfo = {"problem_scenario": "A shop counts boxes.", "goal": "Boxes in the end.",
                   "known_quantities": [f"{a} boxes", f"{b} more", f"x{c}"],
                   "unknown_quantities": ["total"],
                   "relationships_and_constraints": [f"({a}+{b})*{c}"],
                   "irrelevant_information": []}
        artifacts.append((i, "arithmetic", 1, "verified", json.dumps(notation), "rule:notation",
                          json.dumps(result), stamp, stamp))
        artifacts.append((i, "understanding", 1, "verified", json.dumps(keyinfo), "llm",
                          json.dumps({"status": "verified", "message": "schema ok"}), stamp, stamp))
    with Store(path) as store:
        with store.transaction():
            store.conn.executemany(
                "INSERT INTO seeds (id, source, orig_id, question, answer_text, answer_value, "
                "solution, level, status, content_hash, meta, imported_at, steps) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", seeds)
            store.conn.executemany(
                "INSERT INTO artifacts (seed_id, dimension, version, status, content, generator, "
                "verify_result, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)", artifacts)
        timings["insert_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        info = draw_sample(store, "arithmetic", rate=rate, rng_seed=12345, actor="bench")
        timings["draw_sample_s"] = time.perf_counter() - t1
        timings["sample_size"] = info.size
    return timings


async def _wait(condition, timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the screen did not get there in time")
        await asyncio.sleep(0.002)


def _showing_item(app: QCStationApp) -> bool:
    screen = app.screen
    return isinstance(screen, ReviewScreen) and screen.item is not None


def _dashboard_ready(app: QCStationApp) -> bool:
    """Samples and progress shown (``r`` knows what to open)."""
    screen = app.screen
    return isinstance(screen, DashboardScreen) and screen.loaded


def _dashboard_complete(app: QCStationApp) -> bool:
    """Counts and every QC gate shown too."""
    screen = app.screen
    return (isinstance(screen, DashboardScreen) and screen.loaded and bool(screen.counts)
            and screen.gates_checked >= set(app.settings.dimensions))


async def time_direct(path: Path, annotator: str) -> float:
    cfg = parse_config({"qc": {"curators": ["bench"]}}, "<bench>")
    t0 = time.perf_counter()
    app = make_app(path, config=cfg, account=annotator, review="arithmetic")
    async with app.run_test(size=(80, 24)):
        await _wait(lambda: _showing_item(app))
        elapsed = time.perf_counter() - t0
        await app.workers.wait_for_complete()
    return elapsed


async def time_dashboard_then_review(path: Path, annotator: str) -> tuple[float, float, float]:
    cfg = parse_config({"qc": {"curators": ["bench"]}}, "<bench>")
    t0 = time.perf_counter()
    app = make_app(path, config=cfg, account=annotator)
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(lambda: _dashboard_ready(app))
        ready = time.perf_counter() - t0
        await _wait(lambda: _dashboard_complete(app))
        complete = time.perf_counter() - t0
        t1 = time.perf_counter()
        await pilot.press("r")
        await _wait(lambda: _showing_item(app))
        review = time.perf_counter() - t1
        await app.workers.wait_for_complete()
    return ready, complete, review


async def time_review_during_dashboard_load(path: Path, annotator: str) -> float:
    """``r`` as soon as the dashboard shows the samples, while its gates are still computed."""
    cfg = parse_config({"qc": {"curators": ["bench"]}}, "<bench>")
    app = make_app(path, config=cfg, account=annotator)
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(lambda: _dashboard_ready(app))
        t0 = time.perf_counter()
        await pilot.press("r")
        await _wait(lambda: _showing_item(app))
        elapsed = time.perf_counter() - t0
        await app.workers.wait_for_complete()
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="build the database here and keep it")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="qcstation-bench-") as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "bench.db"
        if path.exists():
            print(f"using the existing {path}")
            with Store(path) as store:
                sample = open_sample(store, "arithmetic")
            build: dict[str, float] = {"sample_size": sample.size if sample else 0}
        else:
            build = build_database(path, args.seeds)
        print(f"database: {args.seeds:,} seeds, {2 * args.seeds:,} artifacts, sample of "
              f"{int(build['sample_size']):,} notation questions"
              + (f" (insert {build['insert_s']:.1f} s, draw_sample {build['draw_sample_s']:.1f} s)"
                 if "insert_s" in build else ""))
        direct = [asyncio.run(time_direct(path, f"bench-direct-{n}")) for n in range(args.runs)]
        both = [asyncio.run(time_dashboard_then_review(path, f"bench-dash-{n}"))
                for n in range(args.runs)]
        early = [asyncio.run(time_review_during_dashboard_load(path, f"bench-early-{n}"))
                 for n in range(args.runs)]
    runs = ", ".join(f"{t:.3f}" for t in direct)
    print(f"make_app -> review screen showing its first item: median "
          f"{statistics.median(direct):.3f} s (runs: {runs})")
    print(f"make_app -> dashboard shows samples/progress:  median "
          f"{statistics.median(t for t, _, _ in both):.3f} s")
    print(f"make_app -> dashboard shows counts + gates:    median "
          f"{statistics.median(t for _, t, _ in both):.3f} s")
    print(f"dashboard 'r' -> first item shown:             median "
          f"{statistics.median(t for _, _, t in both):.3f} s")
    print(f"'r' while the dashboard computes gates -> item: median "
          f"{statistics.median(early):.3f} s")
    return 0 if statistics.median(direct) < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
