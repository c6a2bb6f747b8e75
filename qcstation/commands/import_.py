"""``qcstation import``: load seed questions from dataset files into the database.

Formats: gsm8k, mawps, aqua, math500, aime2024, svamp, asdiv (the public sets; SVAMP and
ASDiv as JSON or CSV with their Body, Question, Equation/Formula and Answer columns), or
generic jsonl / json (one array) / csv with columns question, answer (required) and
solution, equation, id, level, steps (optional). --map FIELD=COLUMN reads a field from
another column; --map question=Body+Question joins two columns into one question (a space
after a full sentence, ", how ..." after an open "If ..." clause, else ". "). Files may be
compressed (.gz, .bz2, .xz); a compressed file is checked whole against its limits (see
PATH) before anything is stored.

SMART's seed filters are applied on import (answer not a single number, single reasoning
step, GCD/LCM, min/max over a set): filtered and duplicate seeds are stored too, with the
reason. An answer with its unit in parentheses ("9 (apples)") keeps its number. Importing
the same file again adds nothing. An import warns when many of its questions state no
number or repeat one already stored (often a question split over two columns).

Exit status: 0 all records imported, 1 some records had errors (the others were
imported; errors go to stderr as FILE:LINE: message, each kind shown a few times with
its count), 2 a file could not be imported.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from qcstation.commands._common import print_json, store_from_args
from qcstation.common.errors import QCStationError
from qcstation.commands import HELP


def register(sub: argparse._SubParsersAction) -> None:
    from qcstation.core.ingest.formats import FORMATS, LEVELS
    from qcstation.core.ingest.readers import (
        MAX_DECOMPRESSED_BYTES,
        MAX_DECOMPRESSED_LINES,
    )

    p = sub.add_parser(
        "import", help=HELP["import"],
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH", type=Path,
                   help=f"seed file(s): .jsonl / .json / .csv / .tsv, optionally compressed (.gz, .bz2, "
                        f".xz: at most {MAX_DECOMPRESSED_BYTES:,} bytes and {MAX_DECOMPRESSED_LINES:,} "
                        "lines once decompressed)")
    p.add_argument("--format", "-f", dest="fmt", default="auto", choices=("auto",) + FORMATS,
                   metavar="FORMAT",
                   help=f"auto (default: detected from the first record and the file name), "
                        f"{', '.join(FORMATS)}")
    p.add_argument("--source", "-s", metavar="NAME",
                   help="source name stored on the seeds (default: the format, or the file name "
                        "for generic files)")
    p.add_argument("--level", "-l", choices=LEVELS, metavar="LEVEL",
                   help="easy, medium or hard: level for seeds without a level column (default: SMART's "
                        "level of the dataset: easy MAWPS/ASDiv, medium GSM8K/SVAMP, hard "
                        "AQuA/MATH/AIME)")
    p.add_argument("--map", "-m", dest="mapping", action="append", default=[],
                   metavar="FIELD=COLUMN",
                   help="read a seed field from another column, e.g. --map question=problem; "
                        "question, solution and equation may join columns: --map question=Body+Question "
                        "(repeatable; generic jsonl/json/csv, svamp, asdiv)")
    p.add_argument("--samples", action="store_true",
                   help="import the small real samples shipped with qcstation (offline)")
    p.add_argument("--list-filtered", action="store_true",
                   help="after the summary, list each newly filtered or duplicate seed with its reason")
    p.add_argument("--json", action="store_true", help="print the import report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from db import current_actor
    from qcstation.core.ingest.formats import parse_mapping
    from qcstation.core.ingest.importer import shipped_samples

    # (path, format, use --source/--level/--map): the shipped samples keep their defaults
    jobs: list[tuple[Path, str, bool]] = [(path, args.fmt, True) for path in args.paths]
    if args.samples:
        jobs += [(path, fmt, False) for path, fmt in shipped_samples()]
    if not jobs:
        print("qcstation import: error: give a PATH to import (or --samples)", file=sys.stderr)
        return 2
    mapping = parse_mapping(args.mapping)
    actor = current_actor()
    results: list[dict[str, Any]] = []
    status = 0
    with store_from_args(args, create=True) as store:
        from qcstation.core.ingest.importer import import_file

        for path, fmt, own in jobs:
            try:
                rep = import_file(store, path, fmt, source=args.source if own else None,
                                  level=args.level if own else None,
                                  mapping=(mapping or None) if own else None, actor=actor)
            except QCStationError as exc:
                if len(jobs) == 1:
                    raise
                print(f"qcstation: error: {exc}", file=sys.stderr)
                results.append({"path": str(path), "error": str(exc)})
                status = 2
                continue
            _print_issues(rep, warnings=args.json)  # else the summary shows them
            if rep.error_count:
                status = max(status, 1)
            data = rep.to_dict()
            listed = _filtered_seeds(store, rep) if args.list_filtered else []
            if args.list_filtered:
                data["left_out"] = listed
            results.append(data)
            if not args.json:
                _print_summary(rep, listed if args.list_filtered else None)
    if args.json:
        print_json(results[0] if len(results) == 1 else results)
    return status


def _filtered_seeds(store: Any, rep: Any) -> list[dict[str, Any]]:
    """Seeds this run stored as filtered or duplicate (same source and file, since the run began)."""
    if not rep.added:
        return []
    return store.query(
        "SELECT id, orig_id, status, filter_reason, filter_detail, import_line FROM seeds "
        "WHERE source = ? AND status != 'active' "
        "AND import_file = (SELECT path FROM import_runs WHERE id = ?) "
        "AND imported_at >= (SELECT started_at FROM import_runs WHERE id = ?) ORDER BY id",
        (rep.source, rep.run_id, rep.run_id))


def _print_summary(rep: Any, listed: list[dict[str, Any]] | None) -> None:
    print(f"{rep.path}: source {rep.source!r}, format {rep.fmt}, import run {rep.run_id}")
    print(f"  records read     {rep.records}")
    print(f"  added            {rep.added}  ({rep.active} active)")
    print(f"  already present  {rep.skipped_existing}")
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(rep.filtered.items(), key=lambda kv: -kv[1]))
    print(f"  filtered         {rep.filtered_total}" + (f"  ({reasons})" if reasons else ""))
    print(f"  duplicates       {rep.duplicates}")
    print(f"  errors           {rep.error_count}" + ("  (see stderr)" if rep.error_count else ""))
    for warning in rep.warnings:
        print(f"  warning: {warning}")
    if listed:
        print("  left out:")
        for row in listed:
            print(f"    {rep.source}:{row['orig_id']} (line {row['import_line']})  "
                  f"{row['filter_reason']}  {row['filter_detail']}")


SHOWN_PER_KIND = 3  #: errors printed per distinct message
_RECORD_NUMBER = re.compile(r"^record \d+: ")  # a JSON array's element number: not part of the kind
SHOWN_KINDS = 20  #: distinct messages printed


def _print_issues(rep: Any, *, warnings: bool) -> None:
    """Errors on stderr as FILE:LINE: message, each distinct message a few times with the
    count of the others (1,000 records missing one field are one kind of error), then the
    warnings (with ``warnings``)."""
    kinds: dict[str, list[Any]] = {}
    for issue in rep.errors:
        kinds.setdefault(_RECORD_NUMBER.sub("", issue.message), []).append(issue)
    for n, (_message, issues) in enumerate(kinds.items()):
        if n == SHOWN_KINDS:
            rest = sum(len(i) for i in list(kinds.values())[n:])
            print(f"{rep.path}: ... and {rest} more errors of {len(kinds) - n} other kinds "
                  "(--json lists them)", file=sys.stderr)
            break
        for issue in issues[:SHOWN_PER_KIND]:
            print(str(issue), file=sys.stderr)
        if len(issues) > SHOWN_PER_KIND:
            lines = ", ".join(str(i.line) for i in issues[SHOWN_PER_KIND:SHOWN_PER_KIND + 5])
            more = "" if len(issues) <= SHOWN_PER_KIND + 5 else ", …"
            print(f"{rep.path}: ... and {len(issues) - SHOWN_PER_KIND} more with the same error "
                  f"(lines {lines}{more})", file=sys.stderr)
    if rep.error_count > len(rep.errors):
        print(f"{rep.path}: ... and {rep.error_count - len(rep.errors)} more errors not kept "
              f"(the first {len(rep.errors)} are listed)", file=sys.stderr)
    for warning in rep.warnings if warnings else ():
        print(f"{rep.path}: warning: {warning}", file=sys.stderr)
