"""``qcstation eval rescore RUN``: score every stored response again, list verdict flips."""

from __future__ import annotations

import argparse

from qcstation.commands.eval import score


def register(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    rs = actions.add_parser("rescore", help="re-score a whole run without calling the model",
                            description="Re-score every stored response of a run with the current "
                                        "scorers and list the items whose verdict flipped. The "
                                        "evaluated model is never called; judge replies come from "
                                        "the response cache when they were asked before.")
    rs.add_argument("run", metavar="RUN", help="run id or name")
    rs.add_argument("--json", action="store_true", help="print as JSON")
    rs.set_defaults(eval_func=score.run, only_missing=False)
