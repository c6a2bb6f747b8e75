"""``qcstation eval score RUN``: score the stored responses that have no score yet (also the
action of ``eval rescore``, which scores every response again)."""

from __future__ import annotations

import argparse

from qcstation.commands._common import db_path, print_json, print_table, store_from_args
from qcstation.commands.eval._shared import (config, judge_progress_printer, print_scores,
                                             resolve)


def register(actions: argparse._SubParsersAction) -> None:
    sc = actions.add_parser("score", help="score stored responses that have no score yet",
                            description="Score the outputs of a run that have no score yet "
                                        "(e.g. after `eval import-batch`). The evaluated model is "
                                        "never called; judges are called for Understanding "
                                        "outputs not judged yet. --retry-judges asks the judges "
                                        "again (bypassing the response cache) for the items "
                                        "whose verdict is judge_error.")
    sc.add_argument("run", metavar="RUN", help="run id or name")
    sc.add_argument("--retry-judges", action="store_true",
                    help="ask again the judges that failed or replied unusably (judge_error items)")
    sc.add_argument("--json", action="store_true", help="print as JSON")
    sc.set_defaults(eval_func=run, only_missing=True)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval.scorers import score_run

    cfg = config(args)
    with store_from_args(args) as store:
        (run_id,) = resolve(store, [args.run])
    judges = judge_progress_printer()
    try:
        summary = score_run(db_path(args), run_id, cfg, only_missing=args.only_missing,
                            retry_judges=getattr(args, "retry_judges", False),
                            judge_progress=judges)
    finally:
        judges.end()          # Ctrl+C mid-line: what follows starts on a line of its own
    if args.json:
        print_json(summary.to_dict())
        return 0
    from qcstation.eval.runs import stored_status

    status = stored_status(db_path(args), run_id)
    print(f"run {run_id}: {summary.scored} scores written" + (f"; the run reads {status}" if status else ""))
    judge_errors = summary.counts.get("un", {}).get("judge_error", 0)
    if judge_errors:
        print(f"{judge_errors} Understanding item(s) are judge_error (a judge failed or replied "
              f"unusably; not the model's failure): `qcstation eval score {run_id} --retry-judges` "
              "asks again")
    if not args.only_missing:
        if summary.flipped:
            print(f"{len(summary.flipped)} verdicts flipped:")
            print_table(["item", "sample", "metric", "before", "after"],
                        [[f["item"], f["sample"], f["metric"], f["before"], f["after"]]
                         for f in summary.flipped])
        else:
            print("no verdict flipped")
    from qcstation.eval.evaluate import run_figures

    print_scores(run_figures(db_path(args), run_id).metrics)
    return 0
