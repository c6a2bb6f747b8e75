"""``qcstation eval ACTION``: evaluation runs, scoring, results and reports.

One module per verb, each exposing ``register(actions)`` (``actions`` is this command's
sub-parser collection) whose parser sets ``eval_func``; :data:`VERBS` lists them in the
order ``qcstation eval --help`` shows them. A verb's module imports only argparse and the
light helpers of :mod:`._shared` at load time (``dispatch`` runs the verb: the name
``run`` here is the ``eval run`` module): the evaluation packages (numpy, scipy,
matplotlib, the backends) are imported inside the function that runs the verb, so
building the parser stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from qcstation.commands import HELP


#: the verbs, in the order of ``qcstation eval --help`` (module name: verb with ``-`` as ``_``)
VERBS: tuple[str, ...] = (
    "run", "resume", "list_", "show", "score", "rescore", "templates",
    "export_batch", "ray_batch", "import_batch",
    "leaderboard", "breakdown", "compare", "report", "robustness",
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval", help=HELP["eval"],
        description="Run models on an approved release (or the accepted working set), score "
                    "their stored responses per dimension (LLM@Un, ACC@Re, ACC@Ar, ACC@R-t, "
                    "ACC@R-m, ACC@Fi, All-Pass), compare runs and write reports.")
    actions = p.add_subparsers(dest="eval_action", metavar="ACTION")
    for verb in VERBS:
        importlib.import_module(f"{__name__}.{verb}").register(actions)
    p.set_defaults(func=dispatch, eval_parser=p)


def dispatch(args: argparse.Namespace) -> int:
    """Run the verb named on the command line; with none, print the help and exit 2."""
    func = getattr(args, "eval_func", None)
    if func is None:
        args.eval_parser.print_help(sys.stderr)
        return 2
    return int(func(args) or 0)
