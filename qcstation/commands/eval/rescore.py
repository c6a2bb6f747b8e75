"""``qcstation eval rescore RUN``: score every stored response again, list verdict flips."""

from __future__ import annotations

import argparse

from qcstation.commands.eval import score


def register(actions: argparse._SubParsersAction) -> None:
    rs = actions.add_parser("rescore", help="re-score a whole run without calling the model",
                            description="Re-score every stored response of a run with the current "
                                        "scorers and list the items whose verdict flipped. No model "
                                        "is called: Understanding verdicts are re-read from the "
                                        "judges' stored replies (an output never judged is judged); "
                                        "--retry-judges asks again the judges that failed.")
    rs.add_argument("run", metavar="RUN", help="run id or name")
    rs.add_argument("--retry-judges", action="store_true",
                    help="ask again the judges that failed or replied unusably (judge_error items)")
    rs.add_argument("--json", action="store_true", help="print as JSON")
    rs.set_defaults(eval_func=score.run, only_missing=False)
