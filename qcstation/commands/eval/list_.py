"""``qcstation eval list``: every evaluation run, with its progress."""

from __future__ import annotations

import argparse

from qcstation.commands._common import print_json, print_table, store_from_args


def register(actions: argparse._SubParsersAction) -> None:
    ls = actions.add_parser("list", help="list evaluation runs")
    ls.add_argument("--json", action="store_true", help="print as JSON")
    ls.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval.protocols import protocol_label
    from qcstation.eval.runs import list_runs

    with store_from_args(args) as store:
        runs = list_runs(store)
    if args.json:
        print_json([r.to_dict() for r in runs])
        return 0
    # how each run asked (shots, samples, temperature, refinement protocol): two runs of one
    # model on one release read alike without it (walk28b: a single-prompt and a two-step run)
    rows = [[r.id, r.name or "", r.model, r.backend, r.source,
             protocol_label(r.spec) if r.spec else "", r.status,
             f"{r.n_outputs}/{r.n_requests}", r.n_errors, r.started_at[:19]] for r in runs]
    print_table(["run", "name", "model", "backend", "on", "asked", "status", "responses", "errors",
                 "started"], rows or [["(none)", "", "", "", "", "", "", "", "", ""]])
    return 0
