"""``qcstation status``: what is in the database, per source, stage and dimension."""

from __future__ import annotations

import argparse

from qcstation.common.vocab import DIMENSIONS
from qcstation.commands._common import print_json, print_table, store_from_args
from qcstation.commands import HELP


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help=HELP["status"],
                       description="Print seed counts per source and status (with filter reasons), "
                                   "current artifacts per dimension and status, and the QC gates.")
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.add_argument("--no-audit", action="store_true",
                   help="leave out the self-check flag counts (stored with each artifact when it "
                        "is made; qcstation audit refreshes them)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.common.config import load_config
    from qcstation.core.review.status import status_counts

    cfg = load_config(args.config)   # a broken configuration is said first: it must be fixed whatever the database
    with store_from_args(args) as store:
        data = status_counts(store)
        gates = _gates(store, cfg)
    if args.no_audit:
        data.pop("audit", None)
    if gates is not None:
        data["gates"] = gates
    if args.json:
        print_json(data)
        return 0
    print(f"database: {data['database']} (schema v{data['schema_version']})")
    print()
    print("seeds")
    rows = []
    for source in sorted(data["seeds"]):
        st = data["seeds"][source]
        reasons = data["filtered"].get(source, {})
        why = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
        rows.append([source, st.get("active", 0), st.get("filtered", 0), st.get("duplicate", 0), why])
    print_table(["source", "active", "filtered", "duplicate", "left out because"], rows or [["(none)", 0, 0, 0, ""]])
    print()
    print("artifacts (current versions)")
    statuses = ["generated", "verified", "failed", "accepted", "rejected"]
    rows = []
    for dim in DIMENSIONS:
        c = data["artifacts"].get(dim, {})
        rows.append([dim] + [c.get(s, 0) for s in statuses]
                    + [data["not_generated"][dim], data["needs_model"][dim]])
    print_table(["dimension"] + statuses + ["not generated", "needs a model"], rows)
    if any(data["needs_model"].values()):
        print("(needs a model: no exact rule applies to these items; configure [generator] "
              "in qcstation.toml, see qcstation.example.toml)")
    if "audit" in data:
        from qcstation.core.review.audit import FLAG_CODES

        print()
        print("self-check flags (qcstation audit lists them; README: 'Self-checks')")
        rows = []
        for dim in DIMENSIONS:
            c = data["audit"]["flags"].get(dim, {})
            rows.append([dim, data["audit"]["flagged_artifacts"].get(dim, 0)] + [c.get(k, 0) for k in FLAG_CODES])
        print_table(["dimension", "flagged"] + list(FLAG_CODES), rows)
        missing = sum(data["audit"]["not_audited"].values())
        if missing:
            print(f"({missing} current artifacts have no stored flags of this audit version: "
                  f"made before flags were stored; `qcstation audit` stores theirs)")
    if data.get("generation_usage"):
        print()
        print("model calls for generation (tokens and cost of calls sent; the cache's cost nothing)")
        print_table(["model", "calls", "cached", "failed", "tokens in", "tokens out", "cost USD"],
                    [[u["model"], u["calls"], u["cached"], u["failed"], f"{u['prompt_tokens']:,}",
                      f"{u['completion_tokens']:,}",
                      "not priced" if u["cost"] is None else f"{u['cost']:.4f}"]
                     for u in data["generation_usage"]])
    if gates:
        print()
        print("QC gates")
        for dim, g in gates.items():
            state = "PASSED" if g.get("passed") else "not passed"
            print(f"  {dim}: {state} — {g.get('next_step') or ''}".rstrip(" —"))
    return 0


def _gates(store, cfg):
    from qcstation.core.review.gate import gate
    from qcstation.core.review.queries import qc_dimensions

    out = {}
    for dim in qc_dimensions(store, cfg.qc.dimensions, cfg.qc.sample_model_reasoning):
        g = gate(store, dim, threshold=cfg.qc.defect_threshold, confidence=cfg.qc.confidence)
        out[dim] = g.__dict__ if not hasattr(g, "to_dict") else g.to_dict()
    return out
