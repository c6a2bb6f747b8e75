"""``qcstation eval report RUN [--compare RUN2] [--out DIR]``: Markdown report with figures."""

from __future__ import annotations

import argparse
from pathlib import Path

from qcstation.commands._common import print_json, store_from_args
from qcstation.commands.eval._shared import add_run_help, resolve


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "report", help="write a Markdown report with figures (PNG and SVG)",
        description="Write DIR/report.md: run details, the leaderboard with 95% bootstrap "
                    "intervals, verdict counts (correct, wrong, unparseable, error), breakdowns "
                    "by source and difficulty, the confusion matrices of the final answer against "
                    "Reasoning, Arithmetic and both, and with --compare the paired comparison "
                    "(exact McNemar) with the items that differ; figures dimensions, confusion "
                    "and difficulty as PNG and SVG. The same run gives byte-identical files.")
    p.add_argument("run", metavar="RUN", help="run id or name")
    p.add_argument("--compare", metavar="RUN2", help="a second run to compare with, item by item")
    p.add_argument("--out", metavar="DIR",
                   help="output directory (default: ./eval-reports/run<ID>[-vs-<ID2>])")
    p.add_argument("--json", action="store_true", help="print the written paths as JSON")
    add_run_help(p)
    p.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval import metrics as M
    from qcstation.eval.report import write_report

    with store_from_args(args) as store:
        run_id = resolve(store, [args.run])[0]
        other = resolve(store, [args.compare])[0] if args.compare else None
        if other is not None and other == run_id:
            raise M.MetricsError("--compare names the same run; give another run")
        out = Path(args.out) if args.out else (
            Path("eval-reports") / (f"run{run_id}" + (f"-vs-{other}" if other else "")))
        path = write_report(store, run_id, out, compare=other)
    files = sorted(p.name for p in path.parent.iterdir()
                   if p.name == "report.md" or p.stem in ("dimensions", "confusion", "difficulty"))
    if args.json:
        print_json({"report": str(path), "files": files})
    else:
        print(path)
    return 0
