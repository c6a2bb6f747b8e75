"""``qcstation eval compare RUN_A RUN_B [--metric re] [--json]``: paired item-level
comparison of two runs (per-item means, exact sign test) and the items that differ; warns
when the two runs were measured differently (release, protocol, templates, judges)."""

from __future__ import annotations

import argparse
from typing import Any

from qcstation.commands._common import print_json, store_from_args
from qcstation.commands.eval._shared import add_run_help, resolve
from qcstation.common.safe import display_text
from qcstation.eval.types import COMPARABLE

SHOWN = 50


def _status(store: Any, run_id: int) -> str:
    from qcstation.eval.runs import effective_status

    row = store.one("SELECT status, owner, heartbeat_at FROM eval_runs WHERE id = ?", (run_id,))
    return effective_status(row) if row is not None else "?"


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "compare", help="two runs item by item on one metric (paired, exact sign test)",
        description="Compare two runs on the items both scored. Each item's value is the mean "
                    "over its samples, as on the leaderboard, so A and B are the leaderboard's "
                    "values over the paired items; 'un' passes at 90 or more (over judged "
                    "replies: a failed or unreadable reply is counted apart). 'A only' / 'B only' "
                    "count the items where A's / B's mean is higher, and p is the exact two-sided "
                    "sign test on them (with one sample per item: the exact McNemar test). Runs "
                    "measured differently (release, refinement protocol, templates, judges, "
                    "scorer versions) are compared with a warning naming the differences.")
    p.add_argument("run_a", metavar="RUN_A", help="the first run (id or name)")
    p.add_argument("run_b", metavar="RUN_B", help="the second run (id or name)")
    p.add_argument("--metric", choices=COMPARABLE, default="re",
                   help="metric to compare on (default: re)")
    p.add_argument("--all", action="store_true",
                   help=f"list every differing item (default: the first {SHOWN} per side)")
    p.add_argument("--by-parent", action="store_true",
                   help="pair by parent seed (runs on different derived sets of the same seeds, "
                        "or on a derived set and on its parents): a seed is right when all its "
                        "items are")
    p.add_argument("--json", action="store_true", help="print JSON with every differing seed id")
    add_run_help(p)
    p.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval import metrics as M
    from qcstation.eval.metric_values import fmt_value

    with store_from_args(args) as store:
        a, b = resolve(store, [args.run_a, args.run_b])
        if a == b:
            raise M.MetricsError("RUN_A and RUN_B are the same run; give two different runs")
        if args.by_parent:
            from qcstation.eval.runs import run_row

            return _by_parent(store, args, a, b, run_row(store, a), run_row(store, b))
        cmp_ = M.compare(store, a, b, args.metric)
        keys = M.item_keys(store, [a, b], cmp_.a_only_ids + cmp_.b_only_ids)
        from qcstation.eval import provenance as P

        diffs = P.differences(store, a, b)
        prov = (P.describe(store, a), P.describe(store, b))
        statuses = {"a": _status(store, a), "b": _status(store, b)}
    unfinished = [f"run {run} reads {display_text(st, 20)}: "
                  + ("answered, not scored; its items are not compared until `qcstation eval "
                     f"score {run}`" if st == "unscored" else "not a finished measurement")
                  for run, st in ((a, statuses["a"]), (b, statuses["b"])) if st != "done"]
    if args.json:
        d = cmp_.to_dict()
        d["item_keys"] = {str(k): v for k, v in sorted(keys.items())}
        d["differences"] = diffs
        d["provenance"] = {"a": prov[0].to_dict(), "b": prov[1].to_dict()}
        d["status"] = statuses
        print_json(d)
        return 0
    print(f"A = {display_text(prov[0].line(), 200)}")
    print(f"B = {display_text(prov[1].line(), 200)}")
    for line in unfinished:
        print(f"warning: {line}")
    if diffs:
        print("warning: the two runs were not measured the same way:")
        for diff in diffs:
            print(f"  {display_text(diff, 200)}")
    print(f"{cmp_.label} on {cmp_.n} items both runs scored (per-item means over samples)")
    if cmp_.a_failed or cmp_.b_failed:
        print(f"  over judged replies; failed or unreadable replies (no score, kept apart): "
              f"A {cmp_.a_failed}, B {cmp_.b_failed} item-samples")
    if cmp_.n:
        print(f"  A {fmt_value('fi', cmp_.a_value)}   B {fmt_value('fi', cmp_.b_value)}")
        print(f"  both all correct {cmp_.both_correct}, both all not correct {cmp_.both_wrong}, "
              f"A higher {cmp_.a_only}, B higher {cmp_.b_only}")
        print(f"  exact sign test p = {cmp_.p_value:.4g}"
              + ("  (no item differs)" if not (cmp_.a_only or cmp_.b_only) else ""))
    elif cmp_.note:
        print(f"  {cmp_.note}")
        if cmp_.only_in_a and cmp_.only_in_b:
            print("  (runs on different derived sets of the same seeds pair with --by-parent)")
    if cmp_.only_in_a or cmp_.only_in_b:
        print(f"  left out: {cmp_.only_in_a} item(s) only in A, {cmp_.only_in_b} only in B")
    for side, ids in (("A", cmp_.a_only_ids), ("B", cmp_.b_only_ids)):
        if not ids:
            continue
        shown = ids if args.all else ids[:SHOWN]
        print(f"\nhigher in {side} ({len(ids)}):")
        for s in shown:
            print(f"  {s}  {display_text(keys.get(s, ''), 60)}".rstrip())
        if len(shown) < len(ids):
            print(f"  … and {len(ids) - len(shown)} more (--all lists them)")
    return 0


def _by_parent(store: Any, args: argparse.Namespace, a: int, b: int, ra: Any, rb: Any) -> int:
    from qcstation.eval.robustness.refine import by_parent

    d = by_parent(store, a, b, args.metric)
    if args.json:
        print_json({"run_a": a, "run_b": b, **d})
        return 0
    print(f"A = run {a} ({display_text(ra['model'], 40)})")
    print(f"B = run {b} ({display_text(rb['model'], 40)})")
    print(f"{args.metric} per parent seed (right = every item of the seed right) on "
          f"{d['parents']} seeds both runs hold")
    if d["parents"]:
        print(f"  A {100 * d['a_value']:.1f}%   B {100 * d['b_value']:.1f}%   A only {d['a_only']}, "
              f"B only {d['b_only']}   exact McNemar p = {d['p_value']:.4g}")
    if d["only_in_a"] or d["only_in_b"]:
        print(f"  left out: {d['only_in_a']} seed(s) only in A, {d['only_in_b']} only in B")
    for side in ("a", "b"):
        keys = d[f"{side}_only_parents"]
        if keys:
            shown = keys if args.all else keys[:SHOWN]
            print(f"\nright in {side.upper()} only ({len(keys)}): "
                  + ", ".join(display_text(k, 40) for k in shown))
    return 0
