"""``qcstation eval run|resume|list|show|score|rescore|templates``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from qcstation.commands._common import db_path, print_json, print_table, store_from_args
from qcstation.commands._common import positive_int as _positive_int

ORDER = 10


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


def register_eval(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
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
    p.add_argument("--samples", type=_positive_int, default=1, metavar="N",
                   help="responses per item and task (default 1)")
    p.add_argument("--limit", type=_positive_int, metavar="N",
                   help="evaluate a seeded random subset of N items")
    p.add_argument("--max-tokens", type=_positive_int, metavar="N",
                   help="completion budget per request (default: the model's max_tokens)")
    p.add_argument("--name", metavar="NAME", help="a name for the run (shown in lists and reports)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed for choosing exemplars and the --limit subset (default 0)")
    p.add_argument("--no-score", action="store_true", help="store responses only; score later "
                                                           "with `qcstation eval score RUN`")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(eval_func=run_cmd)

    r = actions.add_parser("resume", help="continue an interrupted run",
                           description="Ask what an interrupted or killed run has not stored yet, "
                                       "then score it. Nothing stored is asked again.")
    r.add_argument("run", metavar="RUN", help="run id or name")
    r.add_argument("--retry-errors", action="store_true",
                   help="also ask again the requests that failed (stored as errors)")
    r.add_argument("--no-score", action="store_true", help="store responses only")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.set_defaults(eval_func=resume_cmd)

    ls = actions.add_parser("list", help="list evaluation runs")
    ls.add_argument("--json", action="store_true", help="print as JSON")
    ls.set_defaults(eval_func=list_cmd)

    sh = actions.add_parser("show", help="what decides a run's results, and its verdict counts",
                            description="Print a run's spec (release, model without secrets, tasks, "
                                        "shots and exemplars, templates, scorer versions) and its "
                                        "verdict counts per metric.")
    sh.add_argument("run", metavar="RUN", help="run id or name")
    sh.add_argument("--json", action="store_true", help="print as JSON (with template texts)")
    sh.set_defaults(eval_func=show_cmd)

    sc = actions.add_parser("score", help="score stored responses that have no score yet",
                            description="Score the outputs of a run that have no score yet "
                                        "(e.g. after `eval import-batch`). No model is called; "
                                        "judges are called for Understanding.")
    sc.add_argument("run", metavar="RUN", help="run id or name")
    sc.add_argument("--json", action="store_true", help="print as JSON")
    sc.set_defaults(eval_func=score_cmd, only_missing=True)

    rs = actions.add_parser("rescore", help="re-score a whole run without calling the model",
                            description="Re-score every stored response of a run with the current "
                                        "scorers and list the items whose verdict flipped. The "
                                        "evaluated model is never called; judge replies come from "
                                        "the response cache when they were asked before.")
    rs.add_argument("run", metavar="RUN", help="run id or name")
    rs.add_argument("--json", action="store_true", help="print as JSON")
    rs.set_defaults(eval_func=score_cmd, only_missing=False)

    tp = actions.add_parser("templates", help="list the prompt templates, or copy them for editing",
                            description="List the prompt templates in force (built-in or overridden "
                                        "by [eval] templates_dir / $QCSTATION_TEMPLATES). With "
                                        "--export DIR, copy the built-in files there to edit them; "
                                        "then set templates_dir = \"DIR\" under [eval].")
    tp.add_argument("--export", metavar="DIR", help="copy the built-in templates into DIR")
    tp.set_defaults(eval_func=templates_cmd)


def _config(args: argparse.Namespace) -> Any:
    from qcstation.common.config import load_config

    return load_config(getattr(args, "config", None))


def _parse_release(text: str | None, store: Any) -> tuple[str, str] | None:
    from qcstation.eval.runner import EvalError, latest_release

    if text is None:
        rel = latest_release(store)
        if rel is None:
            raise EvalError("no approved release yet: approve one (`qcstation release approve`) or "
                            "evaluate the working set with --working-set")
        return rel
    name, _, version = text.partition("@")
    if not version:
        row = store.one("SELECT version FROM releases WHERE name = ? ORDER BY approved_at DESC, id DESC "
                        "LIMIT 1", (name,))
        if row is None:
            raise EvalError(f"no approved release named {name!r} (see `qcstation release list`)")
        version = row["version"]
    return name, version


class _Printer:
    """One progress line on stderr: rewritten in place on a terminal, every 5 s otherwise."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, p: Any) -> None:
        if self.quiet:
            return
        t = time.monotonic()
        if self.tty:
            sys.stderr.write("\r\x1b[2K" + p.line())
            sys.stderr.flush()
        elif t - self.last >= 5.0 or p.done >= p.total:
            self.last = t
            sys.stderr.write(p.line() + "\n")

    def end(self) -> None:
        if self.tty and not self.quiet:
            sys.stderr.write("\n")


def _execute(args: argparse.Namespace, run_id: int, cfg: Any, retry_errors: bool = False) -> int:
    from qcstation.eval.runner import execute_run

    printer = _Printer(args.quiet)
    try:
        prog = execute_run(db_path(args), run_id, cfg, progress=printer, retry_errors=retry_errors,
                           live_score=not args.no_score)
    except KeyboardInterrupt:
        printer.end()
        print(f"qcstation: run {run_id} interrupted; what was answered is stored. "
              f"Continue with `qcstation eval resume {run_id}`", file=sys.stderr)
        return 130
    printer.end()
    summary: dict[str, Any] = {"run": run_id, "progress": prog.to_dict()}
    if not args.no_score:
        from qcstation.eval.scorers import score_run

        from qcstation.eval.scorers import summarize_verdicts

        s = score_run(db_path(args), run_id, cfg, only_missing=not retry_errors)
        with store_from_args(args) as store:
            counts = summarize_verdicts(store, run_id)
        summary["scores"] = {**s.to_dict(), "counts": counts}
    if args.json:
        print_json(summary)
        return 0
    print(f"run {run_id}: {prog.status}; {prog.done}/{prog.total} responses stored "
          f"({prog.errors} failed requests, {prog.cached} from cache)")
    if prog.status != "done":
        print(f"continue with `qcstation eval resume {run_id}`")
    if not args.no_score:
        _print_scores(args, run_id)
    return 0


def _print_scores(args: argparse.Namespace, run_id: int) -> None:
    """The run's scores, one metric a line (fits 80 columns), with what is not reported."""
    from qcstation.commands._results import cell, notes
    from qcstation.eval import metrics as M

    with store_from_args(args) as store:
        board = M.leaderboard(store, [run_id])
    if not board:
        return
    r = board[0]
    print_table(["metric", "value [95% CI]", "items"],
                [[M.LABELS[c], cell(r.values[c], ci=True), r.values[c].n] for c in M.CODES])
    extra = notes([("", r.values[c]) for c in M.CODES])
    if extra:
        print("\nnot reported:")
        print("\n".join(line.replace("  : ", "  ", 1) for line in extra))


def run_cmd(args: argparse.Namespace) -> int:
    from qcstation.eval.runner import EvalError, create_run
    from qcstation.eval.types import TASKS

    cfg = _config(args)
    if not args.model:
        raise EvalError("name the model to evaluate with --model NAME (a [models.NAME] of the "
                        "configuration) or --model reference for the offline self-test")
    if args.model != "reference" and cfg.model(args.model).backend == "vllm":
        from qcstation.eval.backends.vllm import require_vllm

        require_vllm()   # before the run is created: no empty run left behind without vLLM
    with store_from_args(args) as store:
        release = None if args.working_set else _parse_release(args.release, store)
        shots = args.shots if args.shots is not None else cfg.eval.shots
        run_id = create_run(store, cfg, model=args.model, release=release,
                            tasks=args.tasks or list(TASKS), shots=shots,
                            temperature=args.temperature, samples=args.samples, limit=args.limit,
                            max_tokens=args.max_tokens, name=args.name, rng_seed=args.seed)
    if not args.quiet and not args.json:
        where = f"release {release[0]} {release[1]}" if release else "the working set"
        print(f"run {run_id}: {args.model} on {where}", file=sys.stderr)
    return _execute(args, run_id, cfg)


def resume_cmd(args: argparse.Namespace) -> int:
    from qcstation.eval.runner import resolve_run

    cfg = _config(args)
    with store_from_args(args) as store:
        run_id = resolve_run(store, args.run)
    return _execute(args, run_id, cfg, retry_errors=args.retry_errors)


def list_cmd(args: argparse.Namespace) -> int:
    from qcstation.eval.runner import list_runs

    with store_from_args(args) as store:
        runs = list_runs(store)
    if args.json:
        print_json([r.to_dict() for r in runs])
        return 0
    rows = [[r.id, r.name or "", r.model, r.backend, r.source, r.status,
             f"{r.n_outputs}/{r.n_requests}", r.n_errors, r.started_at[:19]] for r in runs]
    print_table(["run", "name", "model", "backend", "on", "status", "responses", "errors", "started"],
                rows or [["(none)", "", "", "", "", "", "", "", ""]])
    return 0


def show_cmd(args: argparse.Namespace) -> int:
    from qcstation.eval.runner import get_run, resolve_run
    from qcstation.eval.scorers import summarize_verdicts

    with store_from_args(args) as store:
        info = get_run(store, resolve_run(store, args.run))
        counts = summarize_verdicts(store, info.id)
    if args.json:
        print_json({**info.to_dict(), "spec": info.spec, "verdicts": counts})
        return 0
    spec = info.spec
    print(f"run {info.id}{' (' + info.name + ')' if info.name else ''}: {info.model} "
          f"[{info.backend}] on {info.source}; {info.status}")
    print(f"  items {info.n_items}, tasks {', '.join(spec.get('tasks', []))}, samples "
          f"{spec.get('samples')}, temperature {spec.get('temperature')}, max tokens {spec.get('max_tokens')}")
    ex = ", ".join(e["id"] for e in spec.get("exemplars", [])) or "none"
    print(f"  shots {spec.get('shots')} (exemplars: {ex})")
    print("  templates: " + ", ".join(f"{t}={s['version']}@{s['sha']}" for t, s in
                                      sorted(spec.get("templates", {}).items())))
    if spec.get("scorer_versions"):
        print("  scorers: " + ", ".join(f"{k}={v}" for k, v in sorted(spec["scorer_versions"].items())))
    print(f"  responses {info.n_outputs}/{info.n_requests} ({info.n_errors} failed requests)")
    if counts:
        print()
        rows = [[m, *(c.get(v, 0) for v in ("correct", "wrong", "unparseable", "error", "not_scored"))]
                for m, c in sorted(counts.items())]
        print_table(["metric", "correct", "wrong", "unparseable", "error", "not scored"], rows)
    return 0


def score_cmd(args: argparse.Namespace) -> int:
    from qcstation.eval.runner import resolve_run
    from qcstation.eval.scorers import score_run

    cfg = _config(args)
    with store_from_args(args) as store:
        run_id = resolve_run(store, args.run)
    summary = score_run(db_path(args), run_id, cfg, only_missing=args.only_missing)
    if args.json:
        print_json(summary.to_dict())
        return 0
    print(f"run {run_id}: {summary.scored} scores written")
    if not args.only_missing:
        if summary.flipped:
            print(f"{len(summary.flipped)} verdicts flipped:")
            print_table(["item", "sample", "metric", "before", "after"],
                        [[f["item"], f["sample"], f["metric"], f["before"], f["after"]]
                         for f in summary.flipped])
        else:
            print("no verdict flipped")
    _print_scores(args, run_id)
    return 0


def templates_cmd(args: argparse.Namespace) -> int:
    from qcstation.eval import tasks as T

    cfg = _config(args)
    if args.export:
        out = Path(args.export)
        out.mkdir(parents=True, exist_ok=True)
        for name in T.TEMPLATE_NAMES:
            dest = out / f"{name}.txt"
            if dest.exists():
                print(f"kept {dest} (exists)")
                continue
            dest.write_text(T.builtin_text(name), encoding="utf-8")
            print(f"wrote {dest}")
        print(f"edit them, change each `version:` line you edit, then set templates_dir = "
              f"\"{out}\" under [eval] (or export QCSTATION_TEMPLATES={out})")
        return 0
    rows = []
    for name in T.TEMPLATE_NAMES:
        tpl = T.load_template(name, cfg)
        rows.append([name, tpl.version, tpl.sha, tpl.origin])
    print_table(["template", "version", "sha256", "from"], rows)
    return 0
