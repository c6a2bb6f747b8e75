"""``qcstation eval compare RUN_A RUN_B [--metric re] [--json]``: paired item-level
comparison of two runs (exact McNemar test) and the items that differ."""

from __future__ import annotations

import argparse

from qcstation.commands._common import print_json, store_from_args
from qcstation.commands.eval._shared import add_run_help, resolve
from qcstation.common.safe import display_text
from qcstation.eval.types import COMPARABLE

SHOWN = 50


def register(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = actions.add_parser(
        "compare", help="two runs item by item on one metric (exact McNemar test)",
        description="Compare two runs on the items both scored: how many each got right, the "
                    "items correct in only one of them, and the exact McNemar p-value (two-sided "
                    "binomial test on those discordant items). With several samples an item counts "
                    "as correct when more than half of its samples are; 'un' passes at 90 or more.")
    p.add_argument("run_a", metavar="RUN_A", help="the first run (id or name)")
    p.add_argument("run_b", metavar="RUN_B", help="the second run (id or name)")
    p.add_argument("--metric", choices=COMPARABLE, default="re",
                   help="metric to compare on (default: re)")
    p.add_argument("--all", action="store_true",
                   help=f"list every differing item (default: the first {SHOWN} per side)")
    p.add_argument("--json", action="store_true", help="print JSON with every differing seed id")
    add_run_help(p)
    p.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval import metrics as M
    from qcstation.eval.runs import run_row

    store = store_from_args(args)
    try:
        a, b = resolve(store, [args.run_a, args.run_b])
        if a == b:
            raise M.MetricsError("RUN_A and RUN_B are the same run; give two different runs")
        ra, rb = run_row(store, a), run_row(store, b)
        cmp_ = M.compare(store, a, b, args.metric)
        keys = M.item_keys(store, [a, b], cmp_.a_only_ids + cmp_.b_only_ids)
    finally:
        store.close()
    if args.json:
        d = cmp_.to_dict()
        d["item_keys"] = {str(k): v for k, v in sorted(keys.items())}
        print_json(d)
        return 0
    label_a = f"run {a} ({display_text(ra['model'], 40)})"
    label_b = f"run {b} ({display_text(rb['model'], 40)})"
    print(f"A = {label_a}")
    print(f"B = {label_b}")
    print(f"{cmp_.label} on {cmp_.n} items both runs scored")
    if cmp_.n:
        print(f"  A {M.fmt_value('fi', cmp_.a_value)} ({cmp_.a_correct})   "
              f"B {M.fmt_value('fi', cmp_.b_value)} ({cmp_.b_correct})")
        print(f"  both correct {cmp_.both_correct}, both not correct {cmp_.both_wrong}, "
              f"A only {cmp_.a_only}, B only {cmp_.b_only}")
        print(f"  exact McNemar p = {cmp_.p_value:.4g}"
              + ("  (no discordant item)" if not (cmp_.a_only or cmp_.b_only) else ""))
    elif cmp_.note:
        print(f"  {cmp_.note}")
    if cmp_.only_in_a or cmp_.only_in_b:
        print(f"  left out: {cmp_.only_in_a} item(s) only in A, {cmp_.only_in_b} only in B")
    for side, ids in (("A", cmp_.a_only_ids), ("B", cmp_.b_only_ids)):
        if not ids:
            continue
        shown = ids if args.all else ids[:SHOWN]
        print(f"\ncorrect in {side} only ({len(ids)}):")
        for s in shown:
            print(f"  {s}  {display_text(keys.get(s, ''), 60)}".rstrip())
        if len(shown) < len(ids):
            print(f"  … and {len(ids) - len(shown)} more (--all lists them)")
    return 0
