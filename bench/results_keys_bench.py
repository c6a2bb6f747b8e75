"""The results browser's filter keys, pressed many times: wall clock and CPU of each, and where
the CPU goes.

``bench/scale.py`` presses each key of the results browser once; this presses the ones that
redraw a page (by default ``m`` and ``x`` in turn: a metric's first page, then every metric's)
``--repeat`` times each on a database ``scale.py`` built (``--db``), headless at 80x24, and
prints each key's median and slowest wall clock and CPU (the way ``scale.py`` times a key: from
the key sent until the app has nothing left to do for it). ``--load N`` keeps N other processes
busy meanwhile, one core each. ``--profile PATH`` runs cProfile over the keys (the app's thread
and its workers' share one interpreter: the profile is of the event loop's thread, where a
key's paint runs) and prints its top functions by own time.

Usage: ``python bench/results_keys_bench.py --db PATH [--keys m,x] [--repeat 20] [--load 1]
[--profile PATH]``
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import multiprocessing
import os
import pstats
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.scale import _burn, _key, _wait_idle  # noqa: E402


async def press(db: Path, keys: list[str], repeat: int,
                profile: cProfile.Profile | None) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU seconds) of each press of each key, in turn, ``repeat`` rounds."""
    from db import Store
    from qcstation.app import make_app
    from qcstation.common.config import load_config
    from screens.results import ResultsScreen

    with Store(db, create=False) as store:
        run_id = int(store.conn.execute("SELECT MAX(id) FROM eval_runs").fetchone()[0])
    app = make_app(db, config=load_config(str(db.parent / "qcstation.toml")), account="ann")
    times: dict[str, list[tuple[float, float]]] = {key: [] for key in keys}
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait_idle(app, pilot)
        app.push_screen(ResultsScreen((run_id,)))
        await _wait_idle(app, pilot)
        for key in keys:            # each key once, untimed: the pages and counts read once
            await _wait_idle(app, pilot)
            await _key(app, key)
        for _ in range(repeat):
            for key in keys:
                await _wait_idle(app, pilot)
                if profile is not None:
                    profile.enable()
                times[key].append(await _key(app, key))
                if profile is not None:
                    profile.disable()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="a database bench/scale.py built")
    ap.add_argument("--keys", default="m,x")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--load", type=int, default=0, metavar="N",
                    help="processes kept busy meanwhile, one core each (default 0)")
    ap.add_argument("--profile", type=Path, help="write a cProfile of the keys here")
    args = ap.parse_args()
    burners = [multiprocessing.get_context("spawn").Process(target=_burn, daemon=True)
               for _ in range(max(0, args.load))]
    for b in burners:
        b.start()
    profile = cProfile.Profile() if args.profile else None
    try:
        times = asyncio.run(press(args.db, args.keys.split(","), args.repeat, profile))
    finally:
        for b in burners:
            b.terminate()
    one, five, _ = os.getloadavg()
    print(f"{args.db}: {args.repeat} presses of each key, {args.load} busy beside; "
          f"load average {one:.1f} (5 min {five:.1f})")
    for key, pairs in times.items():
        walls = sorted(w * 1000 for w, _ in pairs)
        cpus = sorted(c * 1000 for _, c in pairs)
        print(f"  {key:4} wall median {statistics.median(walls):6.1f} ms  max {walls[-1]:6.1f} ms"
              f"   cpu median {statistics.median(cpus):5.1f} ms  max {cpus[-1]:5.1f} ms"
              f"   ({sum(w >= 100 for w in walls)} of {len(walls)} over 100 ms)")
    if profile is not None:
        profile.dump_stats(str(args.profile))
        stats: Any = pstats.Stats(str(args.profile))
        stats.sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
