"""``qcstation eval breakdown RUN --by source|difficulty [--json]``: every metric per group."""

from __future__ import annotations

import argparse

from qcstation.commands._common import print_json, print_table, store_from_args
from qcstation.commands.eval._shared import add_run_help, cell, notes, resolve
from qcstation.common.safe import display_text


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "breakdown", help="every metric of a run per source or per difficulty",
        description="Every metric of one run per group of items (source or difficulty). "
                    "'n/s' = not scored, '-' = not run or no item in the group.")
    p.add_argument("run", metavar="RUN", help="run id or name")
    p.add_argument("--by", choices=("source", "difficulty"), default="source",
                   help="group items by (default: source)")
    p.add_argument("--ci", action="store_true", help="add bootstrap 95%% intervals")
    p.add_argument("--json", action="store_true", help="print JSON (with intervals)")
    add_run_help(p)
    p.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval import metrics as M

    with store_from_args(args) as store:
        (run_id,) = resolve(store, [args.run])
        n_boot = 1000 if (args.ci or args.json) else 0
        # from the run's items counted by group and verdicts (load_run_kept): the figures
        # every item-sample row gives (tests/eval/test_kept_eval.py), read from a few rows
        # (1M scores: 0.73 -> 0.07 s of CPU)
        groups = M.breakdown(store, run_id, args.by, n_boot=n_boot,
                             table=M.load_run_kept(store, run_id))
    if args.json:
        print_json({"run_id": run_id, "by": args.by,
                    "groups": {g: {c: v.to_dict() for c, v in vals.items()}
                               for g, vals in groups.items()}})
        return 0
    if not groups:
        print(f"run {run_id} has no scores yet")
        return 0
    rows = [[display_text(g, 24), max(v.n for v in vals.values())]
            + [cell(vals[c], ci=args.ci) for c in M.CODES] for g, vals in groups.items()]
    print_table([args.by, "items"] + [M.LABELS[c] for c in M.CODES], rows)
    extra = notes([(display_text(g, 24), vals[c]) for g, vals in groups.items()
                   for c in M.CODES])
    if extra:
        print("\nnot reported:")
        print("\n".join(extra))
    return 0
