"""``qcstation eval robustness RUN [RUN ...] [--base RUN] [--json]``: the robustness
diagnosis of runs on derived releases (variants, ladders, perturbations, counterfactual
and backward problems, step fidelity)."""

from __future__ import annotations

import argparse

from qcstation.commands._common import print_json, print_table, store_from_args
from qcstation.commands.eval._shared import add_run_help, resolve


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "robustness", help="robustness diagnosis of runs on derived releases",
        description="Per dimension: A_avg, A_wst, RR = A_wst/A_avg and RC over variants, "
                    "consistent failures and memorisation (DynaMath); ladder curves (SMART "
                    "A.10); the drop under each perturbation against the parents and the "
                    "dimension that drops most (SMART Table 3); the counterfactuals' new-gold and "
                    "parent's-gold rates and Answer Adjustment, backward accuracy and backward "
                    "right given forward right, and step fidelity over intermediate steps "
                    "(Catch Me If You Can, answers by Z3); each figure with its 95% interval "
                    "and n. Build the items with `qcstation derive`, release "
                    "them (`qcstation release approve NAME --set SET`) and evaluate the release "
                    "(`qcstation eval run --release NAME`). Drops, Answer Adjustment and backward "
                    "right given forward "
                    "compare with the same model's run on the parents (the base run: found, or "
                    "--base).")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run id or name")
    p.add_argument("--base", metavar="RUN",
                   help="the run of the parents to compare with (default: the finished run of "
                        "the same model holding the most parents)")
    p.add_argument("--no-fidelity", action="store_true",
                   help="skip step fidelity (it solves every reference formalization with Z3)")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_run_help(p)
    p.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval.robustness.diagnose import diagnose
    from qcstation.eval.robustness.tables import tables

    with store_from_args(args) as store:
        ids = resolve(store, args.runs)
        base = resolve(store, [args.base])[0] if args.base else None
        dgs = [diagnose(store, r, base=base, fidelity=not args.no_fidelity) for r in ids]
    if args.json:
        print_json([d.to_dict() for d in dgs])
        return 0
    for n, dg in enumerate(dgs):
        if n:
            print()
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(dg.transforms.items()))
        print(f"run {dg.title}: {dg.release}; {dg.n_items} items ({kinds}); "
              f"{dg.samples} sample(s)" + (f"; base run #{dg.base_run}" if dg.base_run else ""))
        shown = tables(dg)
        for t in shown:
            print(f"\n{t.title}")
            print_table(t.headers, t.rows)
            if t.note:
                print(f"  {t.note}")
        if not shown:
            print("  no derived item of this run is scored yet")
        for note in dg.notes:
            print(f"  note: {note}")
    return 0
