"""How fast the command line starts: a few everyday commands, each in a fresh interpreter,
against ``python -c pass`` (the floor no command can go under).

    python bench/cli_start.py            # 7 runs per command, median and spread
    python bench/cli_start.py --runs 15
    python bench/cli_start.py --tree ../old-checkout    # the same figures for another checkout

Commands timed: ``qcstation --help``, ``qcstation qc decide --help``, ``qcstation status``
on a small database (the shipped sample after ``quickstart --no-app``, built once in a
temporary folder). Each command runs as ``python -m qcstation`` with this checkout (or
``--tree``) first on ``PYTHONPATH``. Each figure is the median wall time of ``--runs`` fresh
processes; the "over python" column is what qcstation itself costs. The machine's other
load shows in the spread (min and max): compare checkouts in one session, one after the other. The modules a command must not load
(Textual, matplotlib, scipy, math-verify, numpy, z3, openai, aiohttp) are asserted by
``tests/commands/test_cli_start.py``; this file only prints figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _time(cmd: list[str], env: dict[str, str], runs: int, cwd: str) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        out.append(time.perf_counter() - t0)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="fresh processes per command (default 7)")
    ap.add_argument("--tree", type=Path, default=ROOT,
                    help="the checkout to time (default: this one)")
    args = ap.parse_args()
    py = sys.executable
    qc = [py, "-m", "qcstation"]
    with tempfile.TemporaryDirectory(prefix="qcstation-clistart-") as tmp:
        env = dict(os.environ, QCSTATION_DB=str(Path(tmp) / "small.db"), PYTHONPATH=str(args.tree.resolve()),
                   QCSTATION_CONFIG="")
        env.pop("QCSTATION_USER", None)
        subprocess.run(qc + ["quickstart", "--no-app"], env=env, cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        cases = [
            ("python -c pass", [py, "-c", "pass"]),
            ("qcstation --help", qc + ["--help"]),
            ("qcstation qc decide --help", qc + ["qc", "decide", "--help"]),
            ("qcstation status (small db)", qc + ["status"]),
        ]
        rows = []
        for label, cmd in cases:
            _time(cmd, env, 1, tmp)           # warm the file cache
            times = _time(cmd, env, args.runs, tmp)
            rows.append((label, statistics.median(times), min(times), max(times)))
    floor = rows[0][1]
    print(f"CLI start of {args.tree.resolve()}, median of {args.runs} fresh processes "
          f"(python {sys.version.split()[0]}, {os.cpu_count()} cores)")
    print(f"{'command':<30} {'median':>8} {'min':>8} {'max':>8} {'over python':>12}")
    for label, med, lo, hi in rows:
        over = "" if label.startswith("python") else f"{(med - floor) * 1000:+.0f} ms"
        print(f"{label:<30} {med * 1000:>6.0f}ms {lo * 1000:>6.0f}ms {hi * 1000:>6.0f}ms {over:>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
