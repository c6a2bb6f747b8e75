"""``qcstation eval export-batch RUN``: the requests a run has no stored output for, as
OpenAI Batch input JSONL (split within the OpenAI limits), for the OpenAI Batch API,
``vllm run-batch`` or ``eval ray-batch`` (Ray Data); ``eval import-batch`` brings the results
back.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from qcstation.commands._common import int_between
from qcstation.commands._common import print_json, store_from_args
from qcstation.commands.eval._shared import resolve


def register(actions: argparse._SubParsersAction) -> None:
    from qcstation.eval.backends.batch import MAX_REQUESTS_PER_FILE

    ex = actions.add_parser(
        "export-batch", help="write a run's pending requests as OpenAI Batch JSONL",
        description="Write the requests of RUN that have no stored response as an OpenAI Batch "
                    "input file (JSONL: custom_id, method, url, body), for the OpenAI Batch API, "
                    "`vllm run-batch` or a Ray cluster (`qcstation eval ray-batch`). More than "
                    f"{MAX_REQUESTS_PER_FILE} requests (or 190 MB) are split into "
                    "NAME.part001.jsonl, NAME.part002.jsonl... Bring the results back with "
                    "`qcstation eval import-batch RUN FILE...`.")
    ex.add_argument("run", metavar="RUN", help="run id or name")
    ex.add_argument("--out", metavar="PATH",
                    help="file to write (default: ./run<ID>.batch.jsonl)")
    ex.add_argument("--served-model", metavar="NAME",
                    help="model name to put in each request body (default: the model of the "
                         "run's [models.NAME] table)")
    ex.add_argument("--retry-errors", action="store_true",
                    help="also export the requests that failed (stored as errors); a result "
                         "imported later replaces the error")
    ex.add_argument("--max-per-file", type=int_between(1, MAX_REQUESTS_PER_FILE), default=MAX_REQUESTS_PER_FILE,
                    metavar="N", help=f"requests per file, 1 to {MAX_REQUESTS_PER_FILE} (default: "
                                      "the OpenAI limit)")
    ex.add_argument("--json", action="store_true", help="print the result as JSON")
    ex.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval.backends.batch import write_batch
    from qcstation.eval.outputs import pending_requests, store_unready
    from qcstation.eval.runs import EvalError, RunContext, get_run, held_elsewhere
    from qcstation.eval.twostep import is_two_step

    with store_from_args(args) as store:
        (run_id,) = resolve(store, [args.run])
        info = get_run(store, run_id)
        if info.backend == "reference":
            raise EvalError(f"run {run_id} uses the reference backend, which needs no model: "
                            f"run it with `qcstation eval resume {run_id}`")
        row = store.one("SELECT status, owner, heartbeat_at FROM eval_runs WHERE id = ?", (run_id,))
        if row is not None and held_elsewhere(row):
            raise EvalError(
                f"run {run_id} is being run by {row['owner']} right now; exporting its pending "
                f"requests would ask them twice. Wait for it, or stop that process first")
        model = args.served_model or str((info.spec.get("model") or {}).get("model") or "")
        if not model.strip():
            raise EvalError(f"run {run_id} records no model name; give one with --served-model")
        # requests that cannot be asked (e.g. no wrong chain of thought) get their error
        # output now, as `eval run` does, so the run can be complete after the import
        not_asked = store_unready(store, RunContext(store, run_id))
        out = Path(args.out) if args.out else Path(f"run{run_id}.batch.jsonl")
        # the two-step protocol asks the refinement only after reading the reflection: one
        # request per line cannot do that, so those stay for `eval resume`
        two_step = is_two_step(info.spec)
        counter = _Counter(pending_requests(store, run_id, retry_errors=args.retry_errors),
                           hold=(lambda r: r.task == "refinement") if two_step else None)
        paths = write_batch(counter, out, model=model, max_requests_per_file=args.max_per_file)
    result = {"run": run_id, "model": model, "requests": counter.n,
              "files": [str(p) for p in paths], "not_asked": not_asked,
              "two_step_held": counter.held}
    if args.json:
        print_json(result)
        return 0
    held = (f"{counter.held} refinement requests were not exported: the run uses the two-step "
            f"protocol, whose refinement is asked after reading the reflection; `qcstation eval "
            f"resume {run_id}` asks them")
    if not paths:
        if counter.held:
            print(f"run {run_id}: nothing to export. {held}")
            return 0
        print(f"run {run_id} has no pending requests; nothing written. Score it with "
              f"`qcstation eval score {run_id}`")
        return 0
    files = " ".join(str(p) for p in paths)
    print(f"run {run_id}: {counter.n} requests for model {model} written to {files}")
    if not_asked:
        print(f"({not_asked} requests that cannot be asked, e.g. items without a wrong chain of "
              f"thought, are stored as errors)")
    if counter.held:
        print(f"({held})")
    print("run them with the OpenAI Batch API, `vllm run-batch -i IN -o OUT --model M` or "
          "`qcstation eval ray-batch IN... --out OUT --endpoint URL`, then:")
    print(f"  qcstation eval import-batch {run_id} OUTPUT.jsonl...")
    return 0


class _Counter:
    """Counts the requests passing through to the writer (which consumes them lazily), and
    those ``hold`` keeps back."""

    def __init__(self, it: Iterator[Any], hold: Callable[[Any], bool] | None = None) -> None:
        self.it, self.n, self.held, self.hold = it, 0, 0, hold

    def __iter__(self) -> Iterator[Any]:
        for x in self.it:
            if self.hold is not None and self.hold(x):
                self.held += 1
                continue
            self.n += 1
            yield x
