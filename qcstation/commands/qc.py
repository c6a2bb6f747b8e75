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
    qcstation qc exclude ITEM --reason TEXT           curators: take an unfixable seed out
    qcstation qc queue [--state S] [--dimension D] [--annotator A] [--reason R] [--source S]
    qcstation qc override ITEM accept|reject --reason TEXT     curators
    qcstation qc settle ITEM accept|reject --reason TEXT       curators: a disagreement
    qcstation qc fix ITEM --file PATH|- [--reason TEXT]        fix a notation question or key info
    qcstation qc fresh DIMENSION                               curators: a fresh random round
    qcstation qc change REVIEW_ID VERDICT [--reason TEXT]      change an earlier decision of yours
    qcstation qc team [--json]                                 per annotator and kappa

ITEM is an item's name, ``source-orig_id`` as in releases and runs (``gsm8k-83``; add
``--dimension`` when it is sampled in several), or the item number ``qc queue`` shows.
You act as your operating-system account; ``--annotator NAME`` only chooses the name shown
beside it in the logs. Curator rights come from ``[qc] curators`` matched to the account
(case-insensitively). Defaults for rate, RNG seed, threshold... come from the ``[qc]`` config section.
Exit codes: 0 done, 1 nothing left to review / gate not passing (``status``), 2 error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from db.store import current_actor
from qcstation.commands._common import (
    dispatch,
    int_between,
    print_json,
    print_table,
    rng_seed,
    store_from_args,
)
from qcstation.common.config import QCConfig
from qcstation.common.vocab import DIMENSIONS
from qcstation.core.review.curation import QUEUE_STATES, exclude_seed, queue, resolve_item
from qcstation.core.review.decisions import (
    REJECT_REASONS_BY_DIMENSION,
    change_decision,
    norm_verdict,
    undo_last,
)
from qcstation.core.review.gate import GateStatus, bound_text, gate, progress
from qcstation.core.review.items import (ReviewItem, find_item, find_seed, flag_lines, get_item, row_number,
                                         list_items)
from qcstation.core.review.rounds import Why, draw_round, extend_round, fresh_one
from qcstation.core.review.sampling import (
    SampleInfo,
    get_sample,
    list_samples,
    open_sample,
    requeue_replacements,
)
from qcstation.core.review.step import decide_named, next_step
from qcstation.core.review.team import MIN_KAPPA_PAIRS, agreement, team_stats
from qcstation.common.errors import ReviewError
from qcstation.common.safe import one_line
from qcstation.commands import HELP


def _policy(args: argparse.Namespace) -> Any:
    from qcstation.common.config import load_config
    from qcstation.core.release.releases import QCPolicy

    return QCPolicy.from_config(load_config(getattr(args, "config", None)))


def _dims(value: str, policy: Any, store: Any = None, scope: str = "") -> list[str]:
    if value == "all":
        if scope and store is not None:  # a derived set: the QC dimensions its items carry
            from qcstation.core.release.derived import scope_dimensions

            return list(scope_dimensions(store, scope, tuple(policy.dimensions)))
        if store is not None:   # and Reasoning once a model made any (queries.qc_dimensions)
            from qcstation.core.review.queries import qc_dimensions

            return list(qc_dimensions(store, policy.dimensions, policy.sample_model_reasoning))
        return list(policy.dimensions)
    if value not in DIMENSIONS:
        raise ReviewError(f"unknown dimension {value!r}; expected all or one of "
                          f"{', '.join(DIMENSIONS)}")
    return [value]


def _sample_ref(store: Any, ref: str, scope: str = "") -> SampleInfo:
    if ref.isdigit():
        number = row_number(ref)
        if number is None:
            raise ReviewError(f"no sample #{one_line(ref, 40)}", title="No such sample")
        return get_sample(store, number)
    if ref not in DIMENSIONS:
        raise ReviewError(f"{ref!r} is neither a sample id nor a dimension")
    s = open_sample(store, ref, scope)
    if s is None:
        samples = list_samples(store, ref, scope)
        if not samples:
            opt = f" --set {scope}" if scope else ""
            raise ReviewError(f"no {ref} sample yet; draw one with: qcstation qc sample {ref}{opt}")
        s = samples[-1]
    return s


def _item_text(item: ReviewItem) -> str:
    from qcstation.common.identity import clean_display

    lines = [
        f"{item.key}  {item.dimension}  (item {item.item_id}, seed {item.seed_id}, "
        f"sample {item.sample_id}, position {item.position}, "
        f"artifact {item.artifact_id} v{item.artifact_version})"
        + (f" replaces {item.replaces_id}" if item.replaces_id else "")
        + ("  [overlap]" if item.overlap else "") + ("  [requeued]" if item.requeued else ""),
        "",
        "Question:", item.question, "", f"Gold answer: {item.gold_answer}", "",
    ]
    if item.dimension == "understanding" and item.solution:
        lines += ["Gold solution:", item.solution, ""]
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
    lines.append(f"Made by: {item.made_by}")
    lines += flag_lines(item.flags, item.flag_override)
    for d in item.decisions:
        lines.append(f"Decision #{d['review_id']}: {d['annotator']} {d['verdict']}"
                     + (f" ({d['reason']})" if d.get("reason") else "")
                     + (" [unsure]" if d.get("unsure") else "")
                     + (f" — {clean_display(d['comment'])}" if d.get("comment") else ""))
    if item.resolution:
        r = item.resolution
        lines.append(f"Curator {r['kind']}: {r['curator']} {r['verdict']} ({r['reason']})")
    return "\n".join(lines).rstrip()


def _gate_text(g: GateStatus) -> list[str]:
    bound = "n/a" if g.upper_bound is None else bound_text(g.upper_bound, g.threshold)
    out = [f"{g.dimension}: gate {'PASSES' if g.passed else 'does not pass'} "
           f"({g.defects} {'defect' if g.defects == 1 else 'defects'} in {g.reviewed} random "
           f"draws reviewed; "
           f"upper bound {bound}, "
           f"threshold {g.threshold * 100:.2f}%)",
           f"  rule: {g.rule}"]
    out += [f"  blocker: {b}" for b in g.blockers]
    out.append(f"  next: {g.next_step}")
    if g.cli_hint:
        out.append(f"  run: {g.cli_hint}")
    if g.extend_reason:
        out.append(f"  extend because: {g.extend_reason}")
    if g.plan:
        out.append(f"  plan: {g.plan['sentence']}")
    return out


# -- actions ------------------------------------------------------------------------------

def _qc(args: argparse.Namespace) -> QCConfig:
    from qcstation.common.config import load_config

    return load_config(getattr(args, "config", None)).qc


def _sample(args: argparse.Namespace) -> int:
    qc = _qc(args)
    drawn = []
    scope = args.set or ""
    with store_from_args(args) as store:
        for dim in _dims(args.dimension, qc, store, scope):
            r = draw_round(store, qc, dim, scope, actor=current_actor(), redraw=args.redraw,
                           rate=args.rate, rng_seed=args.seed, min_size=args.min_size,
                           overlap_rate=args.overlap)
            if r.refusal is not None:
                raise r.refusal
            drawn.append(r)
    if args.json:
        print_json([r.sample.to_dict() for r in drawn if r.sample is not None])
    else:
        for r in drawn:
            if r.plan:
                print(f"{r.dimension}: {r.plan}")
        for s in (r.sample for r in drawn if r.sample is not None):
            print(f"sample {s.id}: {s.dimension}" + (f" of {s.scope}" if s.scope else "")
                  + f" round {s.round}, {s.size} items "
                  f"(rate {s.rate:g}, rng seed {s.rng_seed}); by source: "
                  + ", ".join(f"{k} {v}" for k, v in s.params.get("allocation", {}).items()))
    return 0


def _extend(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        s = _sample_ref(store, args.sample, args.set or "")
        if not args.to_gate and not args.extra:
            raise ReviewError("say how many items to add: --extra N, or --to-gate")
        r = extend_round(store, _qc(args), s, actor=current_actor(),
                         extra=None if args.to_gate else args.extra)
    if r.why_not is Why.NOTHING_TO_ADD:
        print(f"{r.dimension}: no extension needed ({r.detail})")
        return 0
    if r.refusal is not None:
        raise r.refusal
    assert r.sample is not None
    if args.json:
        print_json(r.sample.to_dict())
    else:
        last = (r.sample.params.get("extensions") or [{}])[-1]
        print(f"sample {r.sample.id}: added {last.get('added')} items, now {r.sample.size} "
              f"(why: {r.because})")
    return 0


def _status(args: argparse.Namespace) -> int:
    policy = _policy(args)
    with store_from_args(args) as store:
        scope = args.set or ""
        dims = _dims(args.dimension or "all", policy, store, scope)
        data: dict[str, Any] = {}
        for dim in dims:
            g = gate(store, dim, threshold=policy.threshold, confidence=policy.confidence,
                     scope=scope)
            samples = list_samples(store, dim, scope)
            data[dim] = {
                "gate": g.to_dict(),
                "agreement": agreement(store, dim).to_dict(),
                "samples": [{**{k: v for k, v in s.to_dict().items() if k != "params"},
                             "progress": progress(store, s.id).to_dict()} for s in samples],
            }
    if args.json:
        print_json(data)
    else:
        for _dim, d in data.items():
            rows = [[s["id"], s["round"], s["status"], s["rate"], s["rng_seed"], s["size"],
                     s["progress"]["sentence"]] for s in d["samples"]]
            if rows:
                print_table(["sample", "round", "status", "rate", "seed", "items", "progress"], rows)
            g = GateStatus(**d["gate"])
            for line in _gate_text(g):
                print(line)
            ag = d["agreement"]
            if ag["pairs"]:
                kappa = "n/a" if ag["kappa"] is None else f"{ag['kappa']:.2f}"
                ac1 = "n/a" if ag.get("ac1") is None else f"{ag['ac1']:.2f}"
                warn = (f" — only {ag['pairs']} pairs: too few to mean anything"
                        if ag["pairs"] < MIN_KAPPA_PAIRS else
                        f" — {ag['note']}" if ag.get("note") else "")
                print(f"  agreement: {ag['pairs']} overlap pairs, observed "
                      f"{ag['observed'] * 100:.1f}%, Cohen's kappa {kappa}, Gwet's AC1 "
                      f"{ac1}{warn}")
            print()
    return 0 if all(d["gate"]["passed"] for d in data.values()) else 1


def _next(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        item = next_step(store, current_actor(), args.dimension, scope=args.set).item
    if item is None:
        print("nothing left to review", file=sys.stderr)
        return 1
    if args.json:
        print_json(item.to_dict())
    else:
        print(_item_text(item))
    return 0


def _decide(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        step = decide_named(store, current_actor(), args.item, args.verdict, args.reason,
                            dimension=args.dimension, comment=args.comment, unsure=args.unsure)
    if step.decided is None or step.item is None:
        print("nothing left to review", file=sys.stderr)
        return 1
    if step.decided.moved_on is not None:
        raise step.decided.moved_on     # the shell says so and exits 2, as for any refusal
    item = step.item
    if args.json:
        print_json({"review_id": step.decided.review_id, "item": item.to_dict()})
    else:
        from qcstation.common.identity import current_identity

        print(f"{item.key} {item.dimension} (item {item.item_id}): "
              f"{norm_verdict(args.verdict)} by {current_identity().label()}; "
              f"artifact now {item.artifact_status}")
    return 0


def _undo(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        item_id = undo_last(store, current_actor())
    if item_id is None:
        print("nothing to undo", file=sys.stderr)
        return 1
    if args.json:
        print_json({"item_id": item_id})
    else:
        print(f"undid your last decision on item {item_id}; it is yours to review again")
    return 0


def _requeue(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        n = requeue_replacements(store, current_actor())
    if args.json:
        print_json({"requeued": n})
    else:
        print(f"{n} regenerated {'item' if n == 1 else 'items'} back in review")
    return 0


def _items(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        s = _sample_ref(store, args.sample)
        items = list_items(store, s.id)
    if args.json:
        print_json([i.to_dict() for i in items])
    else:
        print_table(["item", "pos", "id", "source", "artifact", "status", "overlap", "claimed",
                     "decisions"],
                    [[i.item_id, i.position, i.key, i.source, f"{i.artifact_id} v{i.artifact_version}",
                      i.artifact_status, "yes" if i.overlap else "", i.claimed_by or "",
                      ", ".join(f"{d['annotator']}:{d['verdict']}" for d in i.decisions)]
                     for i in items])
    return 0


def _show(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        item = get_item(store, find_item(store, args.item, args.dimension))
    if args.json:
        print_json(item.to_dict())
    else:
        print(_item_text(item))
    return 0


def _exclude(args: argparse.Namespace) -> int:
    policy = _policy(args)
    with store_from_args(args) as store:
        result = exclude_seed(store, find_seed(store, args.seed_id), actor=current_actor(),
                              reason=args.reason, curators=list(policy.curators))
    if args.json:
        print_json(result)
    else:
        closed = result["open_rejects_closed"]
        print(f"{result['source']}-{result['orig_id']} (seed {result['seed_id']}) excluded by "
              f"{result['excluded_by']}: {result['reason']}")
        if closed:
            print("it no longer blocks the QC gate of: "
                  + ", ".join(f"{dim} ({why})" for dim, why in sorted(closed.items())))
        print("releases leave it out (listed under excluded in the manifest)")
    return 0


def _queue(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        rows = queue(store, state=args.state, dimension=args.dimension,
                     annotator=args.by, reason=args.reason, source=args.source,
                     text=args.search, limit=args.limit)
    if args.json:
        print_json([r.to_dict() for r in rows])
        return 0
    from qcstation.common.identity import clean_display

    print_table(["id", "dimension", "state", "by", "reasons / note", "item"],
                [[r.key, r.dimension, f"{r.state} (now {r.now})" if r.now else r.state,
                  ",".join(r.annotators),
                  clean_display("; ".join(r.reasons) + (f" [{r.note}]" if r.note else ""))[:60],
                  r.item_id] for r in rows])
    if len(rows) >= args.limit:
        print(f"(showing the first {args.limit}; narrow with --state/--dimension/--source)")
    return 0


def _resolve(kind: str) -> Any:
    def run_(args: argparse.Namespace) -> int:
        policy = _policy(args)
        with store_from_args(args) as store:
            result = resolve_item(store, find_item(store, args.item, args.dimension), kind=kind,
                                  verdict=args.verdict,
                                  reason=args.reason, actor=current_actor(),
                                  curators=list(policy.curators))
        if args.json:
            print_json(result)
        else:
            print(f"{result['item']} {result['dimension']} (item {result['item_id']}): "
                  f"{kind} {result['verdict']} by {result['curator']}: {result['reason']}; "
                  f"artifact now {result['artifact_status']}")
        return 0
    return run_


def _fix(args: argparse.Namespace) -> int:
    from qcstation.core.review.fixes import fix_in_place

    if args.file == "-":
        text = sys.stdin.read(100_000)
    else:
        from pathlib import Path

        path = Path(args.file)
        if not path.is_file():
            raise ReviewError(f"no file {path}")
        if path.stat().st_size > 100_000:
            raise ReviewError(f"{path} is too large for a fix (over 100 kB)")
        text = path.read_text(encoding="utf-8", errors="replace")
    with store_from_args(args) as store:
        result = fix_in_place(store, find_item(store, args.item, args.dimension), text,
                              actor=current_actor(), reason=args.reason,
                              curators=list(_policy(args).curators))
    if args.json:
        print_json(result)
    else:
        how = ("corrected after acceptance (your override to reject counts as the defect it "
               "reveals)" if result.get("late_correction") else "fixed in place")
        print(f"{result['item']} {result['dimension']}: {how} as version "
              f"{result['version']} (artifact {result['artifact_id']}, verified on its own "
              f"terms, accepted by you)")
    return 0


def _fresh(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        r = fresh_one(store, _qc(args), args.dimension, args.set or "", actor=current_actor(),
                      rng_seed=args.seed)
    if r.refusal is not None:
        raise r.refusal
    result = r.fresh or {}
    if args.json:
        print_json(result)
    else:
        print(f"sample {result['sample_id']}: {result['dimension']} round {result['round']}, a "
              f"fresh random sample of {result['size']} of the {result['population']} corrected "
              f"items (the {result['defects_before']} defect(s) of {result['reviewed_before']} "
              f"reviews before stay in the log). The gate counts this round: {result['needs']} "
              f"reviews, all accepted, pass. Review with: qcstation qc next --dimension "
              f"{result['dimension']}")
    return 0


def _edit_text(args: argparse.Namespace) -> int:
    from qcstation.core.review.fixes import editable_text

    with store_from_args(args) as store:
        item = get_item(store, find_item(store, args.item, args.dimension))
        text = editable_text(item)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _change(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        new_id = change_decision(store, args.review_id, current_actor(), args.verdict,
                                 args.reason, comment=args.comment, unsure=args.unsure)
    if args.json:
        print_json({"review_id": new_id, "changes": args.review_id})
    else:
        print(f"decision #{args.review_id} changed to {norm_verdict(args.verdict)} "
              f"(new decision #{new_id}; both are in the log)")
    return 0


def _team(args: argparse.Namespace) -> int:
    policy = _policy(args)
    with store_from_args(args) as store:
        data = team_stats(store, list(policy.dimensions))
    if args.json:
        print_json(data)
        return 0
    print_table(["annotator", "decided", "per hour", "reject rate", "skips", "unsure"],
                [[p["annotator"], p["decided"],
                  "n/a" if p["per_hour"] is None else p["per_hour"],
                  "n/a" if p["reject_rate"] is None else f"{p['reject_rate'] * 100:.0f}%",
                  p["skips"], p["unsure"]] for p in data["annotators"]])
    for dim, a in data["agreement"].items():
        kappa = "n/a" if a["kappa"] is None else f"{a['kappa']:.2f}"
        ac1 = "" if a.get("ac1") is None else f", AC1 {a['ac1']:.2f}"
        print(f"{dim}: kappa {kappa}{ac1} from {a['pairs']} pairs"
              + (f" ({a['note']})" if a["note"] else "")
              + (f"; {a['disagreed']} disagreement(s) to settle" if a["disagreed"] else ""))
    return 0


_ACTIONS = {"sample": _sample, "extend": _extend, "status": _status, "next": _next,
            "decide": _decide, "undo": _undo, "requeue": _requeue, "items": _items, "show": _show,
            "exclude": _exclude, "queue": _queue, "override": _resolve("override"),
            "settle": _resolve("settle"), "fix": _fix, "fresh": _fresh, "edit-text": _edit_text,
            "change": _change, "team": _team}


def run(args: argparse.Namespace) -> int:
    return dispatch(args, _ACTIONS, "qc_action")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "qc", help=HELP["qc"],
        description="Human quality control of the model-generated dimensions: draw a seeded "
                    "stratified sample, claim and decide items (several annotators at once), "
                    "and check the gate that releases require.")
    p.set_defaults(func=run, qc_action_parser=p)
    sub = p.add_subparsers(dest="qc_action", metavar="ACTION")
    _register_sampling(sub)
    _register_deciding(sub)
    _register_curation(sub)


_ITEM_HELP = ("the item's name, source-orig_id as in releases and runs (e.g. gsm8k-83), or "
              "its item number (qc queue)")
_ITEM_DIM_HELP = "the dimension, when the item is sampled in several"
#: what a DIMENSION argument of qc sample / qc status accepts
_DIM_HELP = "arithmetic, understanding, reasoning, refinement, or all (the [qc] dimensions)"


def _register_sampling(sub: Any) -> None:
    """qc sample, extend, status."""

    s = sub.add_parser("sample", help="draw a seeded random sample stratified by source")
    s.add_argument("dimension", help=_DIM_HELP)
    s.add_argument("--rate", type=float, help="fraction to sample (default: [qc] sample_rate)")
    s.add_argument("--seed", type=rng_seed, help="RNG seed (default: [qc] rng_seed)")
    s.add_argument("--min-size", type=int_between(0, 10_000_000),
                   help="minimum sample size (default: [qc] min_sample)")
    s.add_argument("--overlap", type=float,
                   help="share of items reviewed by two annotators (default: [qc] overlap_rate)")
    s.add_argument("--redraw", action="store_true",
                   help="curators: close the open sample (its decisions, rejects included, "
                        "still count) and draw a new round")
    s.add_argument("--set", metavar="NAME",
                   help="sample the items of this derived set (qcstation derive) instead of "
                        "the working set; 'all' is then the QC dimensions its items carry")
    s.add_argument("--json", action="store_true", help="print JSON")

    e = sub.add_parser("extend", help="curators: add more random items to the open sample")
    e.add_argument("sample", metavar="DIMENSION|SAMPLE_ID",
                   help="a dimension (its open sample) or a sample id")
    e.add_argument("--extra", type=int, help="how many items to add")
    e.add_argument("--to-gate", action="store_true",
                   help="add as many as the gate says are needed (assuming no new defects)")
    e.add_argument("--set", metavar="NAME", help="with DIMENSION: the open sample of this derived set")
    e.add_argument("--json", action="store_true", help="print JSON")

    st = sub.add_parser("status", help="samples, progress, gate and agreement (exit 1 if a gate fails)")
    st.add_argument("dimension", nargs="?", help=_DIM_HELP)
    st.add_argument("--set", metavar="NAME", help="the gates of this derived set")
    st.add_argument("--json", action="store_true", help="print JSON")


def _register_deciding(sub: Any) -> None:
    """qc next, decide, undo, requeue, items, show."""
    n = sub.add_parser("next", help="claim the next item to review and show it (exit 1: none left)")
    n.add_argument("--dimension", choices=DIMENSIONS, help="only this dimension")
    n.add_argument("--set", metavar="NAME",
                   help="only items of this derived set ('' for the working set; default: any)")
    n.add_argument("--json", action="store_true", help="print JSON")

    d = sub.add_parser("decide", help="accept, reject (with --reason) or skip an item")
    d.add_argument("item", metavar="ITEM|next", help=_ITEM_HELP + ", or 'next' to claim the next item")
    d.add_argument("verdict", choices=["accept", "reject", "skip", "a", "r", "s"],
                   help="accept, reject or skip (a, r, s)")
    d.add_argument("--reason", help="why (required for reject); common reasons: "
                   + " | ".join(f"{dim}: " + "; ".join(r)
                                for dim, r in REJECT_REASONS_BY_DIMENSION.items()))
    d.add_argument("--dimension", choices=DIMENSIONS,
                   help="with 'next': only this dimension; with a name: " + _ITEM_DIM_HELP)
    d.add_argument("--comment", help="a free-text note to go with the decision")
    d.add_argument("--unsure", action="store_true", help="flag the decision as unsure")
    d.add_argument("--json", action="store_true", help="print JSON")

    u = sub.add_parser("undo", help="undo your most recent decision")
    u.add_argument("--json", action="store_true", help="print JSON")

    r = sub.add_parser("requeue", help="put regenerated, re-verified items back into review")
    r.add_argument("--json", action="store_true", help="print JSON")

    it = sub.add_parser("items", help="list the items of a sample")
    it.add_argument("sample", metavar="DIMENSION|SAMPLE_ID",
                    help="a dimension (its open or latest sample) or a sample id")
    it.add_argument("--json", action="store_true", help="print JSON")

    sh = sub.add_parser("show", help="show one item")
    sh.add_argument("item", metavar="ITEM", help=_ITEM_HELP)
    sh.add_argument("--dimension", choices=DIMENSIONS, help=_ITEM_DIM_HELP)
    sh.add_argument("--json", action="store_true", help="print JSON")


def _register_curation(sub: Any) -> None:
    """qc exclude, queue, override, settle, fix, edit-text, fresh, change, team (in this
    order: the order --help lists them)."""
    _register_exclude(sub)
    _register_queue(sub)
    _register_resolutions(sub)
    _register_fix(sub)
    _register_fresh(sub)
    _register_change_and_team(sub)


def _register_exclude(sub: Any) -> None:
    """qc exclude: a curator takes a seed out of the dataset."""
    x = sub.add_parser(
        "exclude", help="curators: take a seed whose artifact cannot be fixed out of the dataset",
        description="Set the seed's status to excluded (filter reason excluded_in_qc) so its "
                    "rejected artifact no longer blocks the QC gate; the reject still counts as "
                    "a defect, and releases leave the seed out. Only [qc] curators may do this.")
    x.add_argument("seed_id", metavar="ITEM",
                   help="the item's name, source-orig_id (gsm8k-83), or the seed number qc show prints")
    x.add_argument("--reason", required=True,
                   help="why it cannot be fixed (recorded with your account)")
    x.add_argument("--json", action="store_true", help="print JSON")



def _register_queue(sub: Any) -> None:
    """qc queue: the curator queue, filtered."""
    q = sub.add_parser(
        "queue", help="every sampled item with its state, filtered (the curator queue)",
        description="Every sampled item with the state a curator acts on: rejected, awaiting "
                    "replacement, disagreed, excluded, skipped, settled, overridden, accepted, "
                    "pending. Items are named by source and original id.")
    q.add_argument("--state", choices=QUEUE_STATES,
                   help="only items in this state ('rejected' includes awaiting replacement)")
    q.add_argument("--dimension", choices=DIMENSIONS, help="only this dimension")
    q.add_argument("--annotator", dest="by", metavar="ACCOUNT",
                   help="only items this account decided (case-insensitive)")
    q.add_argument("--reason", help="only items whose reasons contain this text")
    q.add_argument("--search", metavar="WORDS",
                   help='full-text search over the questions and the reasons and notes: words, '
                        '"a phrase", prefix*, OR, NOT')
    q.add_argument("--source", help="only seeds of this source (e.g. gsm8k)")
    q.add_argument("--limit", type=int_between(1, 1_000_000), default=1000, help="at most this many rows (default 1000)")
    q.add_argument("--json", action="store_true", help="print JSON")


def _register_resolutions(sub: Any) -> None:
    """qc override, qc settle: a curator's outcome of a decided item."""
    for kind, what in (("override", "curators: set a decided item's outcome, with a reason "
                                    "(the reviewers' decisions stay in the log)"),
                       ("settle", "curators: settle a disagreement on an overlap item (what "
                                  "the gate counts; both decisions stay in the log)")):
        o = sub.add_parser(kind, help=what, description=what[0].upper() + what[1:] + ".")
        o.add_argument("item", metavar="ITEM", help=_ITEM_HELP)
        o.add_argument("--dimension", choices=DIMENSIONS, help=_ITEM_DIM_HELP)
        o.add_argument("verdict", choices=["accept", "reject"], help="the outcome that counts")
        o.add_argument("--reason", required=True, help="why (recorded with your account)")
        o.add_argument("--json", action="store_true", help="print JSON")


def _register_fix(sub: Any) -> None:
    """qc fix, qc edit-text: an item corrected in place."""
    fx = sub.add_parser(
        "fix", help="fix a notation question or key information in place and accept it",
        description="Store an edited notation question or key information as a new version "
                    "(author: your account), verified on its own terms (a notation question, in "
                    "any wording, is read into its own SMT-LIB and checked by Z3 against the gold "
                    "answer; an edit that cannot be read or does not verify is refused), linked "
                    "to the version it replaces, and accepted by you. An undecided item is first "
                    "rejected by you with --reason; an accepted one can be corrected by a curator "
                    "(--reason: what was wrong; it counts as the defect it reveals). Get the text "
                    "to edit with: qcstation qc edit-text ITEM")
    fx.add_argument("item", metavar="ITEM", help=_ITEM_HELP)
    fx.add_argument("--dimension", choices=DIMENSIONS, help=_ITEM_DIM_HELP)
    fx.add_argument("--file", required=True, metavar="PATH|-",
                    help="the edited text (a file, or - for standard input)")
    fx.add_argument("--reason", help="what was wrong (required when the item is undecided)")
    fx.add_argument("--json", action="store_true", help="print JSON")

    et = sub.add_parser("edit-text", help="print an item's text in the form qc fix reads")
    et.add_argument("item", metavar="ITEM", help=_ITEM_HELP)
    et.add_argument("--dimension", choices=DIMENSIONS, help=_ITEM_DIM_HELP)


def _register_fresh(sub: Any) -> None:
    """qc fresh: a curator's fresh random round."""
    fr = sub.add_parser(
        "fresh", help="curators: a fresh random round once every defect found is corrected",
        description="When the defects found put the gate out of reach and every one of them is "
                    "corrected, draw a new random sample of the corrected data (every current "
                    "verified or accepted item, reviewed before or not), sized before any "
                    "review to what the gate needs with no defect; the gate counts this round. "
                    "Refused while items are undecided or rejects open, or with no defect found.")
    fr.add_argument("dimension", choices=DIMENSIONS, help="the dimension")
    fr.add_argument("--seed", type=rng_seed, help="RNG seed (default: [qc] rng_seed)")
    fr.add_argument("--set", metavar="NAME", help="a derived set's round")
    fr.add_argument("--json", action="store_true", help="print JSON")


def _register_change_and_team(sub: Any) -> None:
    """qc change (one's own earlier decision), qc team (the team's figures)."""
    ch = sub.add_parser("change", help="change one of your earlier decisions (logged)")
    ch.add_argument("review_id", type=int_between(1, 2**63 - 1), metavar="DECISION",
                    help="the decision's number (shown by qc show as 'Decision #N')")
    ch.add_argument("verdict", choices=["accept", "reject", "skip", "a", "r", "s"],
                    help="the new verdict")
    ch.add_argument("--reason", help="why (required for reject)")
    ch.add_argument("--comment", help="a free-text note to go with the decision")
    ch.add_argument("--unsure", action="store_true", help="flag the decision as unsure")
    ch.add_argument("--json", action="store_true", help="print JSON")

    tm = sub.add_parser("team", help="per annotator: decided, throughput, reject rate; kappa "
                                     "and Gwet's AC1")
    tm.add_argument("--json", action="store_true", help="print JSON")
