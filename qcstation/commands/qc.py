"""``qcstation qc``: QC samples, claims and decisions from the shell (scriptable).

    qcstation qc sample DIMENSION|all [--rate R] [--seed N] [--min-size N] [--overlap R] [--redraw]
    qcstation qc extend DIMENSION|SAMPLE_ID (--extra N | --to-gate)
    qcstation qc status [DIMENSION] [--json]
    qcstation qc next [--dimension D]                 claim and show the next item
    qcstation qc decide ITEM|next VERDICT [--reason TEXT] [--dimension D]
    qcstation qc undo
    qcstation qc requeue                              regenerated items back into review
    qcstation qc items DIMENSION|SAMPLE_ID            list a sample's items
    qcstation qc show ITEM
    qcstation qc exclude SEED_ID --reason TEXT        curators: take an unfixable seed out

The annotator is ``--annotator NAME`` (before the subcommand), else $QCSTATION_USER, else
the OS user. Defaults for rate, RNG seed, threshold... come from the ``[qc]`` config section.
Exit codes: 0 done, 1 nothing left to review / gate not passing (``status``), 2 error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from db.store import current_actor
from qcstation.commands._common import dispatch, print_json, print_table, store_from_args
from qcstation.core import qc
from qcstation.errors import ReviewError

ORDER = 60


def _policy(args: argparse.Namespace) -> Any:
    from qcstation.core.config import load_config
    from qcstation.core.release import QCPolicy

    return QCPolicy.from_config(load_config(getattr(args, "config", None)))


def _dims(value: str, policy: Any) -> list[str]:
    if value == "all":
        return list(policy.dimensions)
    if value not in qc.ALL_DIMENSIONS:
        raise ReviewError(f"unknown dimension {value!r}; expected all or one of "
                          f"{', '.join(qc.ALL_DIMENSIONS)}")
    return [value]


def _sample_ref(store: Any, ref: str) -> qc.SampleInfo:
    if ref.isdigit():
        return qc.get_sample(store, int(ref))
    if ref not in qc.ALL_DIMENSIONS:
        raise ReviewError(f"{ref!r} is neither a sample id nor a dimension")
    s = qc.open_sample(store, ref)
    if s is None:
        samples = qc.list_samples(store, ref)
        if not samples:
            raise ReviewError(f"no {ref} sample yet; draw one with: qcstation qc sample {ref}")
        s = samples[-1]
    return s


def _item_text(item: qc.ReviewItem) -> str:
    lines = [
        f"item {item.item_id}  sample {item.sample_id}  position {item.position}  "
        f"{item.dimension}  seed {item.seed_id} ({item.source} {item.orig_id})  "
        f"artifact {item.artifact_id} v{item.artifact_version}"
        + (f" replaces {item.replaces_id}" if item.replaces_id else "")
        + ("  [overlap]" if item.overlap else "") + ("  [requeued]" if item.requeued else ""),
        "",
        "Question:", item.question, "", f"Gold answer: {item.gold_answer}", "",
    ]
    if item.dimension == "arithmetic":
        lines += ["Notation question:", str(item.content.get("notation", "")), ""]
        if item.smtlib:
            lines += ["SMT-LIB:", item.smtlib, ""]
    elif item.dimension == "understanding":
        from exports.writers import render_key_information

        lines += ["Key information:", render_key_information(item.content), ""]
    else:
        lines += ["Content:", str(item.content), ""]
    vr = item.verify_result or {}
    if vr:
        lines.append(f"Check: {vr.get('status')}  {vr.get('message') or ''}".rstrip())
    for d in item.decisions:
        lines.append(f"Decision: {d['annotator']} {d['verdict']}"
                     + (f" ({d['reason']})" if d.get("reason") else ""))
    return "\n".join(lines).rstrip()


def _gate_text(g: qc.GateStatus) -> list[str]:
    bound = "n/a" if g.upper_bound is None else f"{g.upper_bound * 100:.2f}%"
    out = [f"{g.dimension}: gate {'PASSES' if g.passed else 'does not pass'} "
           f"({g.defects} {'defect' if g.defects == 1 else 'defects'} in {g.reviewed} reviewed; "
           f"upper bound {bound}, "
           f"threshold {g.threshold * 100:.2f}%)",
           f"  rule: {g.rule}"]
    out += [f"  blocker: {b}" for b in g.blockers]
    out.append(f"  next: {g.next_step}")
    if g.cli_hint:
        out.append(f"  run: {g.cli_hint}")
    return out


# -- actions ------------------------------------------------------------------------------

def _sample(args: argparse.Namespace) -> int:
    policy = _policy(args)
    store = store_from_args(args)
    out = []
    try:
        for dim in _dims(args.dimension, policy):
            s = qc.draw_sample(
                store, dim, actor=current_actor(),
                rate=args.rate if args.rate is not None else policy.sample_rate,
                rng_seed=args.seed if args.seed is not None else policy.rng_seed,
                min_size=args.min_size if args.min_size is not None else policy.min_sample,
                overlap_rate=args.overlap if args.overlap is not None else policy.overlap_rate,
                redraw=args.redraw)
            out.append(s)
    finally:
        store.close()
    if args.json:
        print_json([s.to_dict() for s in out])
    else:
        for s in out:
            print(f"sample {s.id}: {s.dimension} round {s.round}, {s.size} items "
                  f"(rate {s.rate:g}, rng seed {s.rng_seed}); by source: "
                  + ", ".join(f"{k} {v}" for k, v in s.params.get("allocation", {}).items()))
    return 0


def _extend(args: argparse.Namespace) -> int:
    store = store_from_args(args)
    try:
        s = _sample_ref(store, args.sample)
        extra = args.extra
        if args.to_gate:
            policy = _policy(args)
            g = qc.gate(store, s.dimension, threshold=policy.threshold, confidence=policy.confidence)
            extra = g.extend_by
            if extra == 0:
                print(f"{s.dimension}: no extension needed ({g.next_step})")
                return 0
        if not extra:
            raise ReviewError("say how many items to add: --extra N, or --to-gate")
        s = qc.extend_sample(store, s.id, extra=extra, actor=current_actor())
    finally:
        store.close()
    if args.json:
        print_json(s.to_dict())
    else:
        last = (s.params.get("extensions") or [{}])[-1]
        print(f"sample {s.id}: added {last.get('added')} items, now {s.size}")
    return 0


def _status(args: argparse.Namespace) -> int:
    policy = _policy(args)
    store = store_from_args(args)
    try:
        dims = _dims(args.dimension, policy) if args.dimension else list(policy.dimensions)
        data: dict[str, Any] = {}
        for dim in dims:
            g = qc.gate(store, dim, threshold=policy.threshold, confidence=policy.confidence)
            samples = qc.list_samples(store, dim)
            data[dim] = {
                "gate": g.to_dict(),
                "agreement": qc.agreement(store, dim).to_dict(),
                "samples": [{**{k: v for k, v in s.to_dict().items() if k != "params"},
                             "progress": qc.progress(store, s.id).to_dict()} for s in samples],
            }
    finally:
        store.close()
    if args.json:
        print_json(data)
    else:
        for dim, d in data.items():
            rows = [[s["id"], s["round"], s["status"], s["rate"], s["rng_seed"], s["size"],
                     s["progress"]["sentence"]] for s in d["samples"]]
            if rows:
                print_table(["sample", "round", "status", "rate", "seed", "items", "progress"], rows)
            g = qc.GateStatus(**d["gate"])
            for line in _gate_text(g):
                print(line)
            ag = d["agreement"]
            if ag["pairs"]:
                kappa = "n/a" if ag["kappa"] is None else f"{ag['kappa']:.3f}"
                print(f"  agreement: {ag['pairs']} overlap pairs, observed "
                      f"{ag['observed'] * 100:.1f}%, Cohen's kappa {kappa}")
            print()
    return 0 if all(d["gate"]["passed"] for d in data.values()) else 1


def _next(args: argparse.Namespace) -> int:
    store = store_from_args(args)
    try:
        item = qc.next_item(store, current_actor(), args.dimension)
    finally:
        store.close()
    if item is None:
        print("nothing left to review", file=sys.stderr)
        return 1
    if args.json:
        print_json(item.to_dict())
    else:
        print(_item_text(item))
    return 0


def _decide(args: argparse.Namespace) -> int:
    who = current_actor()
    store = store_from_args(args)
    try:
        if args.item == "next":
            item = qc.next_item(store, who, args.dimension)
            if item is None:
                print("nothing left to review", file=sys.stderr)
                return 1
            item_id = item.item_id
        elif args.item.isdigit():
            item_id = int(args.item)
        else:
            raise ReviewError(f"ITEM must be an item id or 'next', got {args.item!r}")
        review_id = qc.decide(store, item_id, who, args.verdict, args.reason)
        item = qc.get_item(store, item_id)
    finally:
        store.close()
    if args.json:
        print_json({"review_id": review_id, "item": item.to_dict()})
    else:
        print(f"item {item.item_id} ({item.dimension}, seed {item.seed_id}): "
              f"{qc._norm_verdict(args.verdict)} by {who}; artifact now {item.artifact_status}")
    return 0


def _undo(args: argparse.Namespace) -> int:
    store = store_from_args(args)
    try:
        item_id = qc.undo_last(store, current_actor())
    finally:
        store.close()
    if item_id is None:
        print("nothing to undo", file=sys.stderr)
        return 1
    if args.json:
        print_json({"item_id": item_id})
    else:
        print(f"undid your last decision on item {item_id}; it is yours to review again")
    return 0


def _requeue(args: argparse.Namespace) -> int:
    store = store_from_args(args)
    try:
        n = qc.requeue_replacements(store, current_actor())
    finally:
        store.close()
    if args.json:
        print_json({"requeued": n})
    else:
        print(f"{n} regenerated {'item' if n == 1 else 'items'} back in review")
    return 0


def _items(args: argparse.Namespace) -> int:
    store = store_from_args(args)
    try:
        s = _sample_ref(store, args.sample)
        items = qc.list_items(store, s.id)
    finally:
        store.close()
    if args.json:
        print_json([i.to_dict() for i in items])
    else:
        print_table(["item", "pos", "seed", "source", "artifact", "status", "overlap", "claimed",
                     "decisions"],
                    [[i.item_id, i.position, i.seed_id, i.source, f"{i.artifact_id} v{i.artifact_version}",
                      i.artifact_status, "yes" if i.overlap else "", i.claimed_by or "",
                      ", ".join(f"{d['annotator']}:{d['verdict']}" for d in i.decisions)]
                     for i in items])
    return 0


def _show(args: argparse.Namespace) -> int:
    store = store_from_args(args)
    try:
        item = qc.get_item(store, args.item)
    finally:
        store.close()
    if args.json:
        print_json(item.to_dict())
    else:
        print(_item_text(item))
    return 0


def _exclude(args: argparse.Namespace) -> int:
    policy = _policy(args)
    store = store_from_args(args)
    try:
        result = qc.exclude_seed(store, args.seed_id, actor=current_actor(), reason=args.reason,
                                 curators=list(policy.curators))
    finally:
        store.close()
    if args.json:
        print_json(result)
    else:
        closed = result["open_rejects_closed"]
        print(f"seed {result['seed_id']} ({result['source']} {result['orig_id']}) excluded by "
              f"{result['excluded_by']}: {result['reason']}")
        if closed:
            print("it no longer blocks the QC gate of: "
                  + ", ".join(f"{dim} ({why})" for dim, why in sorted(closed.items())))
        print("releases leave it out (listed under excluded in the manifest)")
    return 0


_ACTIONS = {"sample": _sample, "extend": _extend, "status": _status, "next": _next,
            "decide": _decide, "undo": _undo, "requeue": _requeue, "items": _items, "show": _show,
            "exclude": _exclude}


def run(args: argparse.Namespace) -> int:
    return dispatch(args, _ACTIONS, "qc_action")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "qc", help="human QC: samples, review decisions, the QC gate",
        description="Human quality control of the model-generated dimensions: draw a seeded "
                    "stratified sample, claim and decide items (several annotators at once), "
                    "and check the gate that releases require.")
    p.set_defaults(func=run, qc_action_parser=p)
    sub = p.add_subparsers(dest="qc_action", metavar="ACTION")
    dim_help = "arithmetic, understanding, reasoning, refinement, or all (the [qc] dimensions)"

    s = sub.add_parser("sample", help="draw a seeded random sample stratified by source")
    s.add_argument("dimension", help=dim_help)
    s.add_argument("--rate", type=float, help="fraction to sample (default: [qc] sample_rate)")
    s.add_argument("--seed", type=int, help="RNG seed (default: [qc] rng_seed)")
    s.add_argument("--min-size", type=int, help="minimum sample size (default: [qc] min_sample)")
    s.add_argument("--overlap", type=float,
                   help="share of items reviewed by two annotators (default: [qc] overlap_rate)")
    s.add_argument("--redraw", action="store_true",
                   help="close the open sample (its decisions still count) and draw a new round")
    s.add_argument("--json", action="store_true")

    e = sub.add_parser("extend", help="add more random items to the open sample")
    e.add_argument("sample", metavar="DIMENSION|SAMPLE_ID")
    e.add_argument("--extra", type=int, help="how many items to add")
    e.add_argument("--to-gate", action="store_true",
                   help="add as many as the gate says are needed (assuming no new defects)")
    e.add_argument("--json", action="store_true")

    st = sub.add_parser("status", help="samples, progress, gate and agreement (exit 1 if a gate fails)")
    st.add_argument("dimension", nargs="?", help=dim_help)
    st.add_argument("--json", action="store_true")

    n = sub.add_parser("next", help="claim the next item to review and show it (exit 1: none left)")
    n.add_argument("--dimension", choices=qc.ALL_DIMENSIONS)
    n.add_argument("--json", action="store_true")

    d = sub.add_parser("decide", help="accept, reject (with --reason) or skip an item")
    d.add_argument("item", metavar="ITEM|next", help="item id, or 'next' to claim the next item")
    d.add_argument("verdict", choices=["accept", "reject", "skip", "a", "r", "s"])
    d.add_argument("--reason", help="why (required for reject); common reasons: "
                   + "; ".join(qc.REJECT_REASONS))
    d.add_argument("--dimension", choices=qc.ALL_DIMENSIONS, help="with 'next': only this dimension")
    d.add_argument("--json", action="store_true")

    u = sub.add_parser("undo", help="undo your most recent decision")
    u.add_argument("--json", action="store_true")

    r = sub.add_parser("requeue", help="put regenerated, re-verified items back into review")
    r.add_argument("--json", action="store_true")

    it = sub.add_parser("items", help="list the items of a sample")
    it.add_argument("sample", metavar="DIMENSION|SAMPLE_ID")
    it.add_argument("--json", action="store_true")

    sh = sub.add_parser("show", help="show one item")
    sh.add_argument("item", type=int)
    sh.add_argument("--json", action="store_true")

    x = sub.add_parser(
        "exclude", help="curators: take a seed whose artifact cannot be fixed out of the dataset",
        description="Set the seed's status to excluded (filter reason excluded_in_qc) so its "
                    "rejected artifact no longer blocks the QC gate; the reject still counts as "
                    "a defect, and releases leave the seed out. Only [qc] curators may do this.")
    x.add_argument("seed_id", type=int, metavar="SEED_ID")
    x.add_argument("--reason", required=True, help="why it cannot be fixed (recorded with your name)")
    x.add_argument("--json", action="store_true")
