"""``qcstation eval resume RUN``: ask what an interrupted run has not stored, then score it."""

from __future__ import annotations

import argparse

from qcstation.commands._common import store_from_args
from qcstation.commands.eval._shared import config, execute, resolve


def register(actions: argparse._SubParsersAction) -> None:
    r = actions.add_parser("resume", help="continue an interrupted run",
                           description="Ask what an interrupted or killed run has not stored yet, "
                                       "then score it. Nothing stored is asked again.")
    r.add_argument("run", metavar="RUN", help="run id or name")
    r.add_argument("--retry-errors", action="store_true",
                   help="also ask again the requests that failed (stored as errors)")
    r.add_argument("--no-score", action="store_true", help="store responses only")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    cfg = config(args)
    with store_from_args(args) as store:
        (run_id,) = resolve(store, [args.run])
    return execute(args, run_id, cfg, retry_errors=args.retry_errors)
