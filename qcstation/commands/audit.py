"""``qcstation audit``: flag references the rules cannot vouch for."""

from __future__ import annotations

import argparse

from qcstation.common.vocab import DIMENSIONS
from qcstation.commands._common import print_json, print_table, store_from_args
from qcstation.commands import HELP


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit", help=HELP["audit"],
        description=(
            "Audit the current version of every artifact of the active seeds and count the\n"
            "flags per dimension. A flag asks a reviewer to look; it changes no artifact.\n\n"
            "  equal-value-link      a step uses an earlier result whose value the question\n"
            "                        also states (reasoning, arithmetic)\n"
            "  unused-given          a number the solution computes with is missing from the\n"
            "                        formalization or notation question (reasoning, arithmetic)\n"
            "  repeated-field        a key-information field repeats another (understanding)\n"
            "  uncertain             the rule recorded what it could not settle (a value the\n"
            "                        question states twice, tied to its uses by order)\n"
            "  wrong-cot-keeps-gold  a wrong chain of thought still ends with the gold answer\n"
            "                        and no error type explains it (refinement)\n\n"
            "Flags are stored with each artifact when it is made. By default audit reads\n"
            "every current artifact again, with the current rules, and stores what it finds\n"
            "(a database made before flags were stored gets them so); --stored only counts\n"
            "the stored flags, which takes about as long as counting the artifacts.\n\n"
            "Exit status: 0 no flags, 1 some artifacts are flagged."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", help="only seeds of this source (e.g. gsm8k)")
    p.add_argument("--dimension", "-d", choices=DIMENSIONS, action="append",
                   help="only this dimension (repeatable; default: all four)")
    p.add_argument("--examples", type=int, default=5, metavar="N",
                   help="flagged items listed per flag (default 5)")
    p.add_argument("--stored", action="store_true",
                   help="count the flags stored with the artifacts instead of auditing them "
                        "again (fast at any size; artifacts with no stored flags are counted "
                        "as not audited)")
    p.add_argument("--json", action="store_true", help="print counts and examples as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.core.review.audit import FLAG_CODES, audit_database, stored_counts
    from qcstation.common.safe import nonprintable_escaped as shown

    if args.examples < 0:
        raise SystemExit("qcstation audit: error: --examples must be 0 or more")
    with store_from_args(args) as store:
        if args.source and not store.one("SELECT 1 FROM seeds WHERE source = ? LIMIT 1", (args.source,)):
            raise SystemExit(f"qcstation audit: error: no seeds of source {shown(args.source)!r}")
        if args.stored:
            from qcstation.core.review.queries import flag_count_rows

            # the kept counts (migration 10), not a scan of every current artifact
            kept = {dim: flag_count_rows(store, dim) for dim in args.dimension or DIMENSIONS}
            data = stored_counts(store, source=args.source, dimensions=args.dimension,
                                 examples=args.examples, rows=kept)
        else:
            data = audit_database(store, source=args.source, dimensions=args.dimension,
                                  examples=args.examples)
    total = sum(sum(c.values()) for c in data["flags"].values())
    if args.json:
        print_json(data)
        return 1 if total else 0
    dims = args.dimension or list(DIMENSIONS)
    rows = []
    for dim in dims:
        c = data["flags"].get(dim, {})
        rows.append([dim, data["audited"].get(dim, 0), data["flagged_artifacts"].get(dim, 0)]
                    + [c.get(code, 0) for code in FLAG_CODES])
    print_table(["dimension", "audited", "flagged"] + list(FLAG_CODES), rows)
    missing = sum((data.get("not_audited") or {}).values())
    if missing:
        print(f"({missing} current artifacts have no stored flags of this audit version; "
              f"`qcstation audit` without --stored stores theirs)")
    for code, items in data["examples"].items():
        print()
        print(f"{code}: {FLAG_CODES[code]}")
        for it in items:
            print(f"  {shown(it['source'])} {shown(it['orig_id'])} (seed {it['seed_id']}, "
                  f"{it['dimension']}, {shown(it['generator'])}): {shown(it['message'])}")
    return 1 if total else 0
