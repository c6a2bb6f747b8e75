"""``qcstation generate`` and ``qcstation verify``: the generate → verify → regenerate loop."""

from __future__ import annotations

import argparse
import sys

from qcstation.common.vocab import DIMENSIONS
from qcstation.commands._common import db_path, int_between, positive_int, print_json
from qcstation.commands._progress import progress_bar
from qcstation.commands import HELP


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate", help=HELP["generate"],
        description="For every active seed, generate the artifacts of each dimension, verify them "
                    "(Z3 for SMT-LIB and notation questions), and regenerate failures with the "
                    "verifier's feedback up to generation.max_attempts. Resumable: run it again "
                    "after an interruption and it continues where it stopped.")
    _common_filters(p)
    p.add_argument("--retry-failed", action="store_true",
                   help="try again items whose attempts were exhausted in an earlier run")
    p.add_argument("--rejected", action="store_true",
                   help="only regenerate artifacts rejected in QC review, with the reviewer's reason")
    p.add_argument("--max-attempts", type=int_between(1, 20), metavar="N",
                   help="attempts per item before it is marked failed, 1-20 (default: generation.max_attempts)")
    p.add_argument("--errors-per-cot", type=_error_count, metavar="N",
                   help="errors injected into each R&R chain of thought, 1-6 (R&R difficulty; "
                        "default: generation.errors_per_cot)")
    p.set_defaults(func=run_generate)

    v = sub.add_parser(
        "verify", help=HELP["verify"],
        description="Run the automatic checks (isolated Z3 for reasoning and arithmetic; schema "
                    "and grounding for key information; recorded injections for R&R).")
    _common_filters(v)
    v.add_argument("--all", action="store_true", help="re-verify every current artifact")
    v.set_defaults(func=run_verify)


def _error_count(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 6:
        raise argparse.ArgumentTypeError("must be between 1 and 6 (there are six error types)")
    return value


def _common_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dimension", "-d", action="append", choices=DIMENSIONS,
                   help="only this dimension (repeatable; default: all four)")
    p.add_argument("--source", help="only seeds of this source (e.g. gsm8k)")
    p.add_argument("--limit", type=positive_int, metavar="N", help="only the first N active seeds")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _print_summary(title: str, summary, as_json: bool) -> None:
    if as_json:
        print_json(summary.to_dict())
        return
    print(title)
    lines = summary.lines()
    for line in lines or ["nothing to do"]:
        print("  " + line)
    notes = summary.notes
    if notes:
        print("notes:")
        for n in notes[:20]:
            print("  " + n)
        if len(notes) > 20:
            print(f"  … and {len(notes) - 20} more")


def run_generate(args: argparse.Namespace) -> int:
    from qcstation.common.config import load_config
    from qcstation.core.construct.pipeline import Pipeline

    cfg = load_config(args.config)
    if args.max_attempts:
        cfg.generation.max_attempts = args.max_attempts
    if args.errors_per_cot:
        cfg.generation.errors_per_cot = args.errors_per_cot
    with progress_bar(not args.quiet) as progress, Pipeline(db_path(args), cfg, progress=progress) as p:
        if args.rejected:
            summary = p.regenerate_rejected()
        else:
            summary = p.generate(dimensions=args.dimension, source=args.source, limit=args.limit,
                                 retry_failed=args.retry_failed)
    _print_summary("generation summary (per dimension):", summary, args.json)
    dropped = summary.dropped_line()
    if dropped:      # one line for the run (a line a reply was thousands over a hostile run)
        print(f"qcstation: warning: {dropped}", file=sys.stderr)
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from qcstation.common.config import load_config
    from qcstation.core.construct.pipeline import Pipeline

    cfg = load_config(args.config)
    with progress_bar(not args.quiet) as progress, Pipeline(db_path(args), cfg, progress=progress) as p:
        summary = p.verify(dimensions=args.dimension, source=args.source, limit=args.limit,
                           reverify=args.all)
    _print_summary("verification summary (per dimension):", summary, args.json)
    return 1 if summary.total("failed") else 0
