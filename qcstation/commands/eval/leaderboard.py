"""``qcstation eval leaderboard [RUN ...] [--json]``: every metric of each run with its
bootstrap 95% interval over items (default: every finished run)."""

from __future__ import annotations

import argparse

from qcstation.commands._common import print_json, print_table, store_from_args
from qcstation.commands.eval._shared import add_run_help, cell, notes, resolve
from qcstation.common.safe import display_text
from qcstation.eval.types import CODES


def register(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = actions.add_parser(
        "leaderboard", help="every metric per run with bootstrap 95%% intervals",
        description="LLM@Un, ACC@Re, ACC@Ar, ACC@R-t, ACC@R-m (also over the items whose "
                    "reflection is correct), ACC@Fi and All-Pass per run, each with its 95% "
                    "bootstrap interval over items. Wrong, unparseable and failed requests count "
                    "as not correct. 'n/s' = not scored (e.g. no judge: All-Pass then needs "
                    "Understanding, see 'ACC@All w/o Un'); '-' = task not run.")
    p.add_argument("runs", nargs="*", metavar="RUN", help="runs to show (default: every finished run)")
    p.add_argument("--json", action="store_true", help="print JSON (values 0..1; un on 1..100)")
    p.add_argument("--no-ci", action="store_true", help="values only, without intervals")
    p.add_argument("--sort", metavar="CODE", choices=CODES,
                   help=f"sort by this metric, best first ({', '.join(CODES)})")
    p.add_argument("--n-boot", type=int, default=1000, metavar="N",
                   help="bootstrap resamples (default 1000; 0 = no intervals)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--spearman", action="store_true",
                   help="also print Spearman's rho between the metrics across these runs "
                        "(with --json: an object with 'runs' and 'spearman')")
    add_run_help(p)
    p.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval import metrics as M

    if not 0 <= args.n_boot <= 100_000:
        raise M.MetricsError("--n-boot must be between 0 and 100000")
    store = store_from_args(args)
    try:
        ids = resolve(store, args.runs) if args.runs else None
        board = M.leaderboard(store, ids, n_boot=args.n_boot, seed=args.seed)
        corr = M.correlation(store, [r.run_id for r in board]) if args.spearman else None
    finally:
        store.close()
    if args.sort:
        board.sort(key=lambda r: (r.values[args.sort].value is None,
                                  -(r.values[args.sort].value or 0.0)))
    if args.json:
        runs = [r.to_dict() for r in board]
        print_json({"runs": runs, "spearman": corr.to_dict()} if corr is not None else runs)
        return 0
    if not board:
        print("no finished evaluation runs" if not args.runs else "no runs")
        return 0
    ci = not args.no_ci and args.n_boot > 0
    headers = ["run", "model", "items"] + [M.LABELS[c] for c in M.CODES]
    rows = [[r.run_id, display_text(r.label, 30), max(v.n for v in r.values.values())]
            + [cell(r.values[c], ci=ci) for c in M.CODES] for r in board]
    print_table(headers, rows)
    extra = []
    for r in board:
        if all(v.n == 0 for v in r.values.values()):
            extra.append(f"  run {r.run_id}: no scores yet (status {display_text(r.status, 20)}; "
                         f"`qcstation eval score {r.run_id}` scores what is stored)")
        else:
            extra += notes([(f"run {r.run_id}", r.values[c]) for c in M.CODES])
    if extra:
        print("\nnot reported:")
        print("\n".join(extra))
    if corr is not None:
        print("\nSpearman rho between metrics across runs")
        print(corr.note)
        print_table([""] + [M.LABELS[c] for c in corr.codes],
                    [[M.LABELS[c1]] + ["-" if corr.rho[c1][c2] is None else f"{corr.rho[c1][c2]:+.2f}"
                                       for c2 in corr.codes] for c1 in corr.codes])
    return 0
