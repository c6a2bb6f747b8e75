"""``qcstation eval run``: start an evaluation run, then score it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from qcstation.commands._common import int_between, positive_int, print_json, rng_seed, store_from_args
from qcstation.commands.eval._shared import config, execute


def _shots(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= v <= 16:
        raise argparse.ArgumentTypeError("must be between 0 and 16")
    return v


def _temperature(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= v <= 2.0:
        raise argparse.ArgumentTypeError("must be between 0 and 2")
    return v


def _tasks(text: str) -> list[str]:
    from qcstation.eval.types import TASKS

    names = [t.strip() for t in text.split(",") if t.strip()]
    aliases = {"un": "understanding", "re": "reasoning", "ar": "arithmetic", "rr": "refinement",
               "r&r": "refinement", "fi": "final"}
    out = []
    for n in names:
        n = aliases.get(n.lower(), n.lower())
        if n not in TASKS:
            raise argparse.ArgumentTypeError(f"unknown task {n!r}; known: {', '.join(TASKS)}")
        out.append(n)
    if not out:
        raise argparse.ArgumentTypeError("name at least one task")
    return out


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "run", help="start an evaluation run and score it",
        description="Run a model on an approved release (default: the latest) or on the current "
                    "working set, ask every task of every item, store the raw responses, then score "
                    "them. Interrupted runs resume with `qcstation eval resume RUN`.")
    p.add_argument("--model", "-m", metavar="NAME",
                   help="a [models.NAME] of the configuration, or `reference` (the benchmark's own "
                        "answers: the offline self-test of the scoring chain, every metric 100%%)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--release", metavar="NAME[@VERSION]",
                     help="approved release to evaluate (default: the latest approved release)")
    src.add_argument("--working-set", action="store_true",
                     help="evaluate the current working set (seeds with all four artifacts verified "
                          "or accepted) instead of a release")
    p.add_argument("--tasks", type=_tasks, metavar="LIST",
                   help="comma-separated tasks (default all): understanding, reasoning, arithmetic, "
                        "refinement, final")
    p.add_argument("--shots", type=_shots, default=None, metavar="K",
                   help="few-shot exemplars per prompt, drawn from items left out of the evaluation "
                        "(default 3, or [eval] shots)")
    p.add_argument("--temperature", type=_temperature, default=0.0, metavar="T",
                   help="sampling temperature (default 0)")
    p.add_argument("--samples", type=positive_int, default=1, metavar="N",
                   help="responses per item and task (default 1)")
    p.add_argument("--limit", type=positive_int, metavar="N",
                   help="evaluate a seeded random subset of N items")
    p.add_argument("--max-tokens", type=int_between(1, 1_000_000), metavar="N",
                   help="completion budget per request (default: the model's max_tokens when "
                        "its configuration sets one, else 16384: room for reasoning models; the "
                        "share of replies cut by this limit is shown per run)")
    p.add_argument("--protocol", choices=("two-step", "single-prompt"), default="two-step",
                   help="Reflection & Refinement protocol: two-step (default, the SMART paper's: "
                        "the corrected solution is asked only after the error types are named "
                        "exactly) or single-prompt (both in one reply); recorded in the run")
    p.add_argument("--name", metavar="NAME", help="a name for the run (shown in lists and reports)")
    p.add_argument("--seed", type=rng_seed, default=0, metavar="N",
                   help="seed for choosing exemplars and the --limit subset (default 0)")
    p.add_argument("--refine-weakest", metavar="RUN",
                   help="self-refine (SMART 4.6): add the refinement prompt to the task of the "
                        "dimension RUN found weakest (over every sample; a tie is refused: name "
                        "one with --refine-dimension); `qcstation eval robustness` then reports "
                        "the gain per dimension against RUN (exact sign test)")
    p.add_argument("--refine-dimension", choices=("understanding", "reasoning", "arithmetic",
                                                  "refinement"),
                   help="with --refine-weakest: refine this dimension instead of the weakest")
    p.add_argument("--round-trip", metavar="RUN",
                   help="on a release of backward (inverse) problems: state the model's own "
                        "forward answer from RUN (a run on the parents) in each backward "
                        "question; the gold is the given Z3 says produces that answer")
    p.add_argument("--create-only", action="store_true",
                   help="create the run (items frozen, prompts fixed) and send nothing: for the "
                        "batch routes (`qcstation eval export-batch RUN`); the model's server need "
                        "not be reachable from here")
    p.add_argument("--no-score", action="store_true", help="store responses only; score later "
                                                           "with `qcstation eval score RUN`")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval.runs import EvalError, create_run, refuse_unusable_model, resolve_release
    from qcstation.eval.types import TASKS

    cfg = config(args)
    if not args.model:
        raise EvalError("name the model to evaluate with --model NAME (a [models.NAME] of the "
                        "configuration) or --model reference for the offline self-test")
    if not args.create_only:   # a batch run's servers may not be reachable from here
        refuse_unusable_model(cfg, args.model)   # before the run is created: nothing left behind
    with store_from_args(args) as store:
        release = None if args.working_set else resolve_release(store, args.release)
        shots = args.shots if args.shots is not None else cfg.eval.shots
        tasks = args.tasks or list(TASKS)
        extra = _derived_run(store, cfg, args, tasks)
        run_id = create_run(store, cfg, model=args.model, release=release,
                            tasks=tasks, shots=shots,
                            temperature=args.temperature, samples=args.samples, limit=args.limit,
                            max_tokens=args.max_tokens, name=args.name, rng_seed=args.seed,
                            protocol=args.protocol, **extra)
    if not args.quiet and not args.json:
        where = f"release {release[0]} {release[1]}" if release else "the working set"
        print(f"run {run_id}: {args.model} on {where}", file=sys.stderr)
        for note in extra.get("spec_extra", {}).values():
            print(f"  {note['note']}", file=sys.stderr)
    if args.create_only:
        if args.json:
            print_json({"run": run_id, "created": True, "sent": 0})
        else:
            print(f"run {run_id} created; nothing sent. Next: `qcstation eval export-batch {run_id} "
                  f"--out run{run_id}.jsonl` (batch routes), or `qcstation eval resume {run_id}`")
        return 0
    return execute(args, run_id, cfg)


def _derived_run(store: Any, cfg: Any, args: argparse.Namespace, tasks: list[str]) -> dict[str, Any]:
    """create_run's extra arguments for a self-refine or a round-trip run."""
    from qcstation.eval.robustness import refine as R
    from qcstation.eval.runs import EvalError, resolve_run

    out: dict[str, Any] = {}
    if args.refine_dimension and not args.refine_weakest:
        raise EvalError("--refine-dimension goes with --refine-weakest RUN")
    if args.refine_weakest:
        earlier = resolve_run(store, args.refine_weakest)
        if args.refine_dimension:
            dim, accs = args.refine_dimension, dict[str, float]()
        else:
            dim, accs = R.weakest(store, earlier)
        if dim not in tasks:
            raise EvalError(f"the dimension to refine ({dim}) is not among the run's tasks")
        shown = ", ".join(f"{t} {100 * a:.1f}%" for t, a in accs.items())
        out["adjust"] = {dim: lambda tpl, dim=dim: R.refined_template(tpl, dim)}
        out["spec_extra"] = {"refine": {
            "from": earlier, "dimension": dim, "accuracies": accs, "version": R.REFINE_VERSION,
            "note": f"self-refine: {dim} " + (f"(weakest of run {earlier}: {shown})" if accs
                                              else f"(named; against run {earlier})")}}
    if args.round_trip:
        forward = resolve_run(store, args.round_trip)
        refused: dict[str, int] = {}

        def rewrite(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
            made, why = R.round_trip_records(store, records, forward)
            refused.update(why)
            return made

        out["rewrite"] = rewrite
        # ``refused`` is filled by rewrite when create_run reads the records, before the spec
        out.setdefault("spec_extra", {})["round_trip"] = {
            "forward_run": forward, "refused": refused,
            "note": f"round trip: backward questions state run {forward}'s forward answers"}
    return out
