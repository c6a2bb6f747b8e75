"""``qcstation eval show RUN``: what decides a run's results, and its verdict counts."""

from __future__ import annotations

import argparse
from typing import Any

from qcstation.commands._common import print_json, print_table, store_from_args
from qcstation.commands.eval._shared import resolve


def register(actions: argparse._SubParsersAction) -> None:
    sh = actions.add_parser("show", help="what decides a run's results, and its verdict counts",
                            description="Print a run's spec (release, model without secrets, tasks, "
                                        "shots and exemplars, templates, scorer versions) and its "
                                        "verdict counts per metric.")
    sh.add_argument("run", metavar="RUN", help="run id or name")
    sh.add_argument("--json", action="store_true", help="print as JSON (with template texts)")
    sh.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval.runs import get_run
    from qcstation.eval.scorers import summarize_verdicts

    with store_from_args(args) as store:
        info = get_run(store, resolve(store, [args.run])[0])
        counts = summarize_verdicts(store, info.id)
        uncounted = _replies_without_token_count(store, info.id)
    if args.json:
        print_json({**info.to_dict(), "spec": info.spec, "verdicts": counts,
                    "replies_without_token_count": uncounted})
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
    cost = "" if info.cost is None else f", ${info.cost:.4f}"
    if uncounted:       # a count the server did not send (or sent wrong) is not known, never 0
        print(f"  spent {info.prompt_tokens:,} prompt + {info.completion_tokens:,} completion tokens{cost} "
              f"over the replies with a token count; {uncounted:,} replies came with none: their tokens "
              "and cost are not known (all sessions of the run; cache hits cost nothing)")
    else:
        print(f"  spent {info.prompt_tokens:,} prompt + {info.completion_tokens:,} completion tokens"
              f"{cost} (all sessions of the run; cache hits cost nothing)")
    if counts:
        print()
        print_table(*verdict_table(counts))
    return 0


def verdict_table(counts: dict[str, dict[str, int]]) -> tuple[list[str], list[list[Any]]]:
    """(header, rows) of the verdict counts: the five every metric can have, then every other
    verdict some metric has (judge_error, checker_error, invalid_item, trivial, ...), so each
    row adds up to its metric's scored item-samples (the 'un' row of a run whose judge gave
    21 unusable replies of 40 showed 17 + 2 and nothing else; found by lane attack6)."""
    from qcstation.eval.types import VERDICTS

    base = ["correct", "wrong", "unparseable", "error", "not_scored"]
    seen = {v for c in counts.values() for v, n in c.items() if n}
    extra = [v for v in VERDICTS if v in seen and v not in base]
    extra += sorted(seen - set(base) - set(extra))
    cols = base + extra
    rows: list[list[Any]] = [[m, *(c.get(v, 0) for v in cols)] for m, c in sorted(counts.items())]
    return ["metric", *(v.replace("_", " ") for v in cols)], rows


def _replies_without_token_count(store: Any, run_id: int) -> int:
    """Replies of the run asked of the server (not the cache) whose token counts are not
    known: the server sent none, or counts output_row dropped (not a count, or more than the
    request can hold). Their tokens are in no total: 'spent 0 prompt + 0 completion tokens'
    was shown for a run of 30 replies that came with no usage."""
    return int(store.scalar(
        "SELECT COUNT(*) FROM eval_outputs WHERE run_id = ? AND status = 'ok' AND cached = 0 "
        "AND (prompt_tokens IS NULL OR completion_tokens IS NULL)", (run_id,)) or 0)
