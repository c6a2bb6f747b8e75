"""``qcstation derive``: derived item sets with exact answers (variants, ladders,
perturbations, counterfactual and inverse problems).

    qcstation derive variants [--per-seed M] [--name NAME] [--source S] [--limit N] [--seed N]
                               [--workers W] [--z3-workers Z]
    qcstation derive ladder | perturb | counterfactual | inverse [same options]
    qcstation derive status [NAME] [--json]     shares per source and transform, refusal reasons
    qcstation derive list [--json]               the sets
    qcstation derive show NAME [--transform T] [--limit N] [--json]
    qcstation derive check [NAME] [--parents-only] [--json]
                                                  items stale against today's rules and parents
    qcstation derive check [NAME] --answers [--json]
                                                  every answer re-derived independently

Building is resumable (run the same command again after an interruption) and several
processes may build one set at once; the items then go through QC (``qcstation qc sample
DIM --set NAME``) and a curator approves a derived release (``qcstation release approve
REL VERSION --set NAME``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from qcstation.commands import HELP
from qcstation.commands._common import (
    db_path,
    dispatch,
    non_negative_int,
    positive_int,
    print_json,
    print_table,
    rng_seed,
    store_from_args,
)
from qcstation.commands._progress import progress_bar

_KIND_HELP = {
    "variants": "DynaMath variants: every movable given resampled (M per seed), all four "
                "dimensions rebuilt, re-solved by Z3",
    "ladder": "SMART A.10 difficulty ladders: k noise sentences (Understanding), d-digit "
              "givens (Arithmetic), n error types (R&R); Reasoning is grouped by operations",
    "perturb": "SMART Table 3 perturbations: a noise sentence, an added operation, changed numbers",
    "counterfactual": "one given shifted by -30 to +30 percent, new answer from Z3",
    "inverse": "backward problems: the answer stated, one given hidden as X; Z3 solves X and "
               "checks it is unique",
}


def _bounded(option: str) -> Any:
    """argparse type: a whole number (or, for a tuple option, a comma-separated list) within
    the option's bounds (``transforms.OPTION_BOUNDS``), else a clear error."""
    from qcstation.core.derive.transforms import Options

    def parse(text: str) -> Any:
        many = isinstance(getattr(Options(), option), tuple)
        if len(text) > 1000:
            raise argparse.ArgumentTypeError("too long")
        try:
            out = tuple(int(x) for x in text.split(",") if x.strip()) if many else (int(text),)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'a comma-separated list of whole numbers' if many else 'a whole number'}"
            ) from None
        if not out:
            raise argparse.ArgumentTypeError("give at least one level")
        try:
            Options(**{option: out if many else out[0]}).check()   # type: ignore[arg-type]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None
        return out if many else out[0]
    return parse


def _workers(text: str) -> int:
    """argparse type: rules processes, 0 to 64."""
    v = non_negative_int(text)
    if v > 64:
        raise argparse.ArgumentTypeError("must be at most 64")
    return v


_rng_seed = rng_seed


def _at_most(most: int) -> Any:
    """argparse type: a whole number from 1 to ``most``."""
    def parse(text: str) -> int:
        v = positive_int(text)
        if v > most:
            raise argparse.ArgumentTypeError(f"must be at most {most}")
        return v
    return parse


def _build(args: argparse.Namespace) -> int:
    from qcstation.common.config import load_config
    from qcstation.core.derive.runner import run_derive
    from qcstation.core.derive.transforms import Options

    cfg = load_config(getattr(args, "config", None))
    base = Options(errors_per_cot=int(cfg.generation.errors_per_cot),
                   rng_seed=args.seed if args.seed is not None else int(cfg.generation.rng_seed))
    over: dict[str, Any] = {}
    for key in ("per_seed", "noise_levels", "digit_levels", "error_levels", "shifts",
                "inverse_per_seed"):
        value = getattr(args, key, None)
        if value is not None:
            over["variants" if key == "per_seed" else key] = value
    opts = Options(**{**base.__dict__, **over})
    try:
        opts.check()
    except ValueError as exc:
        print(f"qcstation: error: {exc}", file=sys.stderr)
        return 2
    with progress_bar(not args.quiet) as progress:
        summary = run_derive(db_path(args), cfg, kind=args.kind, name=args.name, opts=opts,
                             sources=args.source, limit=args.limit, workers=args.workers,
                             z3_workers=args.z3_workers,
                             progress=progress, batch=args.batch)
    if args.json:
        print_json(summary.to_dict())
        return 0
    print(f"derived set {summary.set_name}: {summary.jobs} parents built this run in "
          f"{summary.seconds:.1f} s ({summary.checks} Z3 checks)")
    for t in sorted(set(summary.made) | set(summary.refused)):
        print(f"  {t:<16} {summary.made[t]:>6} made, {summary.refused[t]:>6} refused")
    if summary.parents_refused:
        print("  parents left out: " + ", ".join(f"{c} {n}" for c, n in
                                                 summary.parents_refused.most_common(5)))
    if summary.reasons:
        print("  leading refusals: " + ", ".join(f"{t} {c} {n}" for (t, c), n in
                                                  summary.reasons.most_common(5)))
    if summary.stale_parents:
        print(f"  STALE: the items of {summary.stale_parents} parents built earlier no longer "
              f"follow from their parent's formalization today; see qcstation derive check "
              f"{summary.set_name}")
    print(f"next: qcstation derive status {summary.set_name}; qcstation qc sample all "
          f"--set {summary.set_name}")
    return 0


def _status(args: argparse.Namespace) -> int:
    from qcstation.core.derive.report import set_report
    from qcstation.core.derive.store import list_sets

    with store_from_args(args) as store:
        names = [args.name] if args.name else [s.name for s in list_sets(store)]
        reports = [set_report(store, n) for n in names]
    if args.json:
        print_json([r.to_dict() for r in reports])
        return 0
    if not reports:
        print("no derived sets yet; build one with: qcstation derive variants")
    for r in reports:
        print(f"{r.name} ({r.kind}): jobs " + ", ".join(f"{k} {v}" for k, v in r.jobs.items()))
        print_table(["source", "transform", "made for", "share", "items", "refused",
                     "why not (parents)"],
                    [[x.source, x.transform, f"{x.made_for}/{x.parents}", f"{x.share * 100:.1f}%",
                      x.items, x.refused_items, ", ".join(f"{c} {n}" for c, n in x.reasons)]
                     for x in r.lines])
        print()
    return 0


def _list(args: argparse.Namespace) -> int:
    from qcstation.core.derive.store import list_sets

    with store_from_args(args) as store:
        sets = list_sets(store)
        counts = {int(r["set_id"]): int(r["n"]) for r in store.query(
            "SELECT set_id, COUNT(*) AS n FROM derived_items GROUP BY set_id")}
    if args.json:
        print_json([{**s.__dict__, "items": counts.get(s.id, 0)} for s in sets])
    elif not sets:
        print("no derived sets yet")
    else:
        print_table(["set", "kind", "items", "created by", "created at"],
                    [[s.name, s.kind, counts.get(s.id, 0), s.created_by or "", s.created_at]
                     for s in sets])
    return 0


def _show(args: argparse.Namespace) -> int:
    from qcstation.core.derive.report import list_items

    with store_from_args(args) as store:
        rows = list_items(store, args.name, transform=args.transform, limit=args.limit)
    if args.json:
        print_json(rows)
        return 0
    for r in rows:
        lvl = f" level {r['level']}" if r["level"] is not None else ""
        print(f"{r['id']}  ({r['transform']}{lvl}, from {r['parent']}; answer {r['answer']}; "
              f"carries {', '.join(r['dimensions'])})")
        print(f"  {r['question']}")
    return 0


def _check_answers(args: argparse.Namespace) -> int:
    """``derive check --answers``: every item re-derived independently (:mod:`.recheck`)."""
    from qcstation.common.safe import one_line
    from qcstation.core.derive.recheck import recheck_set
    from qcstation.core.derive.store import list_sets

    with store_from_args(args) as store:
        names = [args.name] if args.name else [s.name for s in list_sets(store)]
        reports = [recheck_set(store, n) for n in names]
    bad = sum(r.wrong + r.by_status["stale"] + len(r.repeated) for r in reports)
    if args.json:
        print_json([r.to_dict() for r in reports])
        return 1 if bad else 0
    if not reports:
        print("no derived sets yet")
    for r in reports:
        print(f"{r.name}: {r.items} items re-derived from their own questions: "
              f"{r.by_status['ok']} confirmed, {r.wrong} wrong, {r.by_status['stale']} with an old "
              f"value, {r.by_status['unconfirmed']} not confirmable this way, "
              f"{len(r.repeated)} repeated questions")
        for t, c in sorted(r.by_transform.items()):
            print(f"  {t:<16} " + ", ".join(f"{k} {n}" for k, n in sorted(c.items())))
        shown = [f for f in r.findings if f.status != "unconfirmed"][:args.limit]
        for f in shown:
            print(f"  {f.status.upper()} {one_line(f.item)} ({f.transform}): {one_line(f.why)}")
        for keys in r.repeated[:args.limit]:
            print("  REPEATED " + ", ".join(one_line(k) for k in keys[:4]))
    return 1 if bad else 0


def _check(args: argparse.Namespace) -> int:
    if args.answers:
        return _check_answers(args)
    from qcstation.common.safe import one_line
    from qcstation.core.derive.stale import check_set
    from qcstation.core.derive.store import list_sets

    with store_from_args(args) as store:
        names = [args.name] if args.name else [s.name for s in list_sets(store)]
        reports = [check_set(store, n, parents_only=args.parents_only) for n in names]
    stale = sum(len(r.stale) for r in reports)
    if args.json:
        print_json([r.to_dict() for r in reports])
        return 1 if stale else 0
    if not reports:
        print("no derived sets yet")
    for r in reports:
        of = f" (of {r.stale_parents} parent{'s' if r.stale_parents != 1 else ''})" if r.stale else ""
        print(f"{r.name}: {r.items} items of {r.parents} parents checked, {len(r.stale)} stale{of}")
        if r.renamed:
            print(f"  {len(r.renamed)} parents are formalized today with other names only (their "
                  f"items stand; new runs read them with today's names): "
                  + ", ".join(one_line(k) for k in r.renamed[:8]) + (" ..." if len(r.renamed) > 8 else ""))
        for x in r.stale[:args.limit]:
            print(f"  {one_line(x.item)} ({x.transform}, from {one_line(x.parent)}): "
                  f"{one_line(x.reason)}")
        if len(r.stale) > args.limit:
            print(f"  ... {len(r.stale) - args.limit} more (--limit, --json)")
    if stale:
        print("stale items were built by other rules or from another formalization of their "
              "parent: do not evaluate on them; build the set again under a new --name")
    return 1 if stale else 0


_ACTIONS = {"status": _status, "list": _list, "show": _show, "check": _check}


def run(args: argparse.Namespace) -> int:
    if getattr(args, "derive_action", None) in _KIND_HELP:
        args.kind = args.derive_action
        return _build(args)
    return dispatch(args, _ACTIONS, "derive_action")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "derive", help=HELP["derive"],
        description="Build derived items from verified seeds whose givens are tied to their "
                    "words: each item is a seed of its own with its parent, transformation, "
                    "parameters and exact answer, its dimension tasks rebuilt by the same rules. "
                    "Whatever cannot be rewritten faithfully is refused with the reason "
                    "(qcstation derive status). Run it again to resume.")
    p.set_defaults(func=run, derive_action_parser=p)
    sub = p.add_subparsers(dest="derive_action", metavar="ACTION")
    for kind, what in _KIND_HELP.items():
        k = sub.add_parser(kind, help=what, description=what[:1].upper() + what[1:] + ".")
        k.add_argument("--name", help=f"the set's name, 1-40 letters, digits, '.', '_' or '-' "
                                      f"(default: {kind}); it is the QC and release scope")
        k.add_argument("--source", action="append", help="only seeds of this source (repeatable)")
        k.add_argument("--limit", type=positive_int, metavar="N", help="only the first N seeds")
        k.add_argument("--seed", type=_rng_seed, help="RNG seed (default: generation.rng_seed)")
        k.add_argument("--workers", type=_workers, default=None, metavar="W",
                       help="processes running the rules (default: one per core this process "
                            "may use, at most 16; 0: in this process)")
        k.add_argument("--z3-workers", type=_at_most(64), metavar="Z",
                       help="Z3 worker processes (default: one per core this process may use, "
                            "at most 16): each stage can use every core while the other waits")
        k.add_argument("--batch", type=_at_most(10_000), default=64, metavar="N",
                       help="parents stored per transaction (default 64): an interruption "
                            "loses at most the batch in progress, which the next run builds again")
        if kind == "variants":
            k.add_argument("--per-seed", type=_bounded("variants"), metavar="M",
                           help="variants per seed (default 10, at most 100)")
        if kind == "ladder":
            k.add_argument("--noise-levels", type=_bounded("noise_levels"), metavar="K,..",
                           help="noise sentences per level (default 1,2,3,4)")
            k.add_argument("--digit-levels", type=_bounded("digit_levels"), metavar="D,..",
                           help="significant digits per level (default 1..7)")
            k.add_argument("--error-levels", type=_bounded("error_levels"), metavar="N,..",
                           help="error types per level (default 1..6)")
        if kind == "counterfactual":
            k.add_argument("--shifts", type=_bounded("shifts"), metavar="P,..",
                           help="shifts in percent, -90 to 300, not 0 (default -30,-20,-10,10,20,30)")
        if kind == "inverse":
            k.add_argument("--per-seed", dest="inverse_per_seed", type=_bounded("inverse_per_seed"), metavar="G",
                           help="givens hidden per seed, one item each (default 3, at most 20)")
        k.add_argument("--json", action="store_true", help="print the summary as JSON")
        k.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    st = sub.add_parser("status", help="per source and transform: share of seeds made, refusals")
    st.add_argument("name", nargs="?", help="the set (default: every set)")
    st.add_argument("--json", action="store_true", help="print JSON")
    ls = sub.add_parser("list", help="the derived sets")
    ls.add_argument("--json", action="store_true", help="print JSON")
    sh = sub.add_parser("show", help="a set's items (question, parent, transform, answer)")
    sh.add_argument("name", help="the set")
    sh.add_argument("--transform", help="only this transform (variant, noise, digits, ...)")
    sh.add_argument("--limit", type=positive_int, default=20, help="at most this many (default 20)")
    sh.add_argument("--json", action="store_true", help="print JSON")
    ck = sub.add_parser("check", help="items that are stale: their parent's formalization or "
                                      "today's rules no longer give them (exit 1 if any)")
    ck.add_argument("name", nargs="?", help="the set (default: every set)")
    ck.add_argument("--parents-only", action="store_true",
                    help="only whether each parent still gives the same formalization (fast; "
                         "the items' own texts are not re-read)")
    ck.add_argument("--answers", action="store_true",
                    help="re-derive every item's answer independently of the formalization that "
                         "made it (its question's numbers through the parent's gold solution's "
                         "calculator annotations, exact fractions): wrong answers, old values "
                         "left in its texts, repeated questions (exit 1 if any)")
    ck.add_argument("--limit", type=positive_int, default=20, help="list at most this many "
                                                                   "per set (default 20)")
    ck.add_argument("--json", action="store_true", help="print JSON")
