"""``qcstation eval export-batch|import-batch``: a run's requests as OpenAI Batch files.

``export-batch RUN`` writes the requests the run has no stored output for (OpenAI Batch
input JSONL, split within the OpenAI limits); ``import-batch RUN FILE...`` stores the
results of the OpenAI Batch API, ``vllm run-batch`` or ``examples/ray_batch.py`` by
``custom_id``. Importing twice stores nothing twice. Exit status of import-batch: 0 every
line stored or already present, 1 some lines were skipped (malformed, another run's, or
not a request of this run; listed on stderr as FILE:LINE: message), 2 a file could not be
read at all.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qcstation.commands._common import positive_int as _positive_int
from qcstation.commands._common import print_json, store_from_args

ORDER = 20
_SHOWN_PROBLEMS = 20
_IMPORT_CHUNK = 20_000


def register_eval(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from qcstation.eval.backends.batch import MAX_REQUESTS_PER_FILE

    ex = actions.add_parser(
        "export-batch", help="write a run's pending requests as OpenAI Batch JSONL",
        description="Write the requests of RUN that have no stored response as an OpenAI Batch "
                    "input file (JSONL: custom_id, method, url, body), for the OpenAI Batch API, "
                    "`vllm run-batch` or a Ray cluster (see examples/README.md). More than "
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
    ex.add_argument("--max-per-file", type=_positive_int, default=MAX_REQUESTS_PER_FILE,
                    metavar="N", help=f"requests per file (default {MAX_REQUESTS_PER_FILE}, the "
                                      "OpenAI limit)")
    ex.add_argument("--json", action="store_true", help="print the result as JSON")
    ex.set_defaults(eval_func=export_cmd)

    im = actions.add_parser(
        "import-batch", help="store the results of a batch by custom_id",
        description="Read OpenAI Batch output files (also written by `vllm run-batch` and "
                    "examples/ray_batch.py) and store each result as the response of its "
                    "request in RUN. A result with an error or a non-200 status is stored as a "
                    "failed request. Results already stored are kept and counted, so importing "
                    "again is safe; results of another run are refused. Then score the run with "
                    "`qcstation eval score RUN`. Exit status: 0 all lines stored or already "
                    "present, 1 some lines skipped (see stderr), 2 a file could not be read.")
    im.add_argument("run", metavar="RUN", help="run id or name")
    im.add_argument("files", metavar="FILE", nargs="+",
                    help="batch output (and error) JSONL files")
    im.add_argument("--json", action="store_true", help="print the result as JSON")
    im.set_defaults(eval_func=import_cmd)


def _store_not_asked(store: Any, run_id: int) -> int:
    """Items that cannot be asked a task (e.g. no wrong chain of thought) get their error
    output now, as ``eval run`` does, so an exported run can be complete after the import."""
    from qcstation.eval import runner

    ctx = runner.RunContext(store, run_id)
    done = runner._done_keys(store, run_id, ok_only=False)
    rows = runner._unready_outputs(ctx, done)
    if rows:
        with store.transaction():
            store.conn.executemany(runner._INSERT_OUTPUT, rows)
    return len(rows)


def _refuse_if_running(store: Any, run_id: int) -> None:
    from qcstation.eval import runner

    row = store.one("SELECT status, owner, heartbeat_at FROM eval_runs WHERE id = ?", (run_id,))
    if row is not None and not runner._lease_free(row) and row["owner"] != runner._owner():
        raise runner.EvalError(
            f"run {run_id} is being run by {row['owner']} right now; exporting its pending "
            f"requests would ask them twice. Wait for it, or stop that process first")


def export_cmd(args: argparse.Namespace) -> int:
    from qcstation.eval.backends.batch import write_batch
    from qcstation.eval.runner import EvalError, get_run, pending_requests, resolve_run

    with store_from_args(args) as store:
        run_id = resolve_run(store, args.run)
        info = get_run(store, run_id)
        if info.backend == "reference":
            raise EvalError(f"run {run_id} uses the reference backend, which needs no model: "
                            f"run it with `qcstation eval resume {run_id}`")
        _refuse_if_running(store, run_id)
        model = args.served_model or str((info.spec.get("model") or {}).get("model") or "")
        if not model.strip():
            raise EvalError(f"run {run_id} records no model name; give one with --served-model")
        not_asked = _store_not_asked(store, run_id)
        out = Path(args.out) if args.out else Path(f"run{run_id}.batch.jsonl")
        counter = _Counter(pending_requests(store, run_id, retry_errors=args.retry_errors))
        paths = write_batch(counter, out, model=model, max_requests_per_file=args.max_per_file)
    result = {"run": run_id, "model": model, "requests": counter.n,
              "files": [str(p) for p in paths], "not_asked": not_asked}
    if args.json:
        print_json(result)
        return 0
    if not paths:
        print(f"run {run_id} has no pending requests; nothing written. Score it with "
              f"`qcstation eval score {run_id}`")
        return 0
    files = " ".join(str(p) for p in paths)
    print(f"run {run_id}: {counter.n} requests for model {model} written to {files}")
    if not_asked:
        print(f"({not_asked} requests that cannot be asked, e.g. items without a wrong chain of "
              f"thought, are stored as errors)")
    print("run them with the OpenAI Batch API, `vllm run-batch -i IN -o OUT --model M` or "
          "examples/ray_batch.py, then:")
    print(f"  qcstation eval import-batch {run_id} OUTPUT.jsonl...")
    return 0


class _Counter:
    """Counts the requests passing through to the writer (which consumes them lazily)."""

    def __init__(self, it: Iterator[Any]) -> None:
        self.it, self.n = it, 0

    def __iter__(self) -> Iterator[Any]:
        for x in self.it:
            self.n += 1
            yield x


def import_cmd(args: argparse.Namespace) -> int:
    from qcstation.common.safe import message_text
    from qcstation.eval.backends.batch import BatchFileError, parse_custom_id, read_batch_output
    from qcstation.eval.runner import get_run, resolve_run, store_replies
    from qcstation.eval.types import EvalReply

    totals: dict[str, int] = {"read": 0, "stored": 0, "stored_error": 0, "already": 0,
                              "other_run": 0, "unknown_id": 0, "skipped": 0}
    problems: list[str] = []
    unreadable: list[str] = []
    with store_from_args(args) as store:
        run_id = resolve_run(store, args.run)
        for name in args.files:
            path = Path(name)
            file_problems: list[str] = []
            other_runs: dict[int, int] = {}

            def ours(replies: Iterator[EvalReply]) -> Iterator[EvalReply]:
                for reply in replies:
                    totals["read"] += 1
                    line = reply.extra.get("line", "?")
                    parsed = parse_custom_id(reply.custom_id)
                    if parsed is None:
                        totals["unknown_id"] += 1
                        file_problems.append(f"{path}:{line}: custom_id {message_text(reply.custom_id, 80)!r} "
                                             f"is not a qcstation request id; skipped")
                        continue
                    if parsed[0] != run_id:
                        totals["other_run"] += 1
                        other_runs[parsed[0]] = other_runs.get(parsed[0], 0) + 1
                        file_problems.append(f"{path}:{line}: {reply.custom_id} belongs to run "
                                             f"{parsed[0]}, not run {run_id}; refused")
                        continue
                    reply.endpoint = reply.endpoint or f"batch file {message_text(path.name, 120)}"
                    yield reply

            malformed: list[str] = []
            counts: dict[str, int] = {}
            stream = ours(read_batch_output(path, problems=malformed))
            try:
                # stored a slice at a time: memory stays bounded on large files, and a re-run
                # after an interruption skips what was stored
                while chunk := list(itertools.islice(stream, _IMPORT_CHUNK)):
                    for key, n in store_replies(store, run_id, chunk).items():
                        counts[key] = counts.get(key, 0) + n
            except BatchFileError as exc:
                unreadable.append(str(exc))
                continue
            totals["skipped"] += len(malformed)
            file_problems[:0] = malformed
            for key, n in counts.items():
                if key == "unknown_id":   # a well-formed id of this run that names no request of it
                    file_problems.append(f"{path}: {n} result(s) name an item, task or sample "
                                         f"that run {run_id} does not have; skipped")
                totals[key] = totals.get(key, 0) + n
            for other, n in sorted(other_runs.items()):
                exists = store.one("SELECT id FROM eval_runs WHERE id = ?", (other,)) is not None
                hint = (f"; import them with `qcstation eval import-batch {other} {path}`"
                        if exists else " (no such run in this database)")
                file_problems.append(f"{path}: {n} result(s) belong to run {other}{hint}")
            problems.extend(file_problems)
        info = get_run(store, run_id)
        complete = info.n_outputs >= info.n_requests > 0
        if complete and info.status in ("created", "interrupted", "failed"):
            with store.transaction():
                store.execute("UPDATE eval_runs SET status = 'done', finished_at = COALESCE("
                              "finished_at, ?) WHERE id = ?", (_now(), run_id))
            info = get_run(store, run_id)
        store.event(_actor(), "eval.batch_imported", "eval_run", run_id,
                    {"files": [str(f) for f in args.files], **totals})
    status = 2 if unreadable else (1 if problems else 0)
    for msg in unreadable:
        print(f"qcstation: error: {msg}", file=sys.stderr)
    for p in problems[:_SHOWN_PROBLEMS]:
        print(p, file=sys.stderr)
    if len(problems) > _SHOWN_PROBLEMS:
        print(f"... and {len(problems) - _SHOWN_PROBLEMS} more", file=sys.stderr)
    pending = max(0, info.n_requests - info.n_outputs)
    if args.json:
        print_json({"run": run_id, **totals, "problems": problems, "unreadable": unreadable,
                    "responses": info.n_outputs, "requests": info.n_requests,
                    "pending": pending, "status": info.status})
        return status
    if len(unreadable) == len(args.files):
        return status
    new = totals["stored"] + totals["stored_error"]
    print(f"run {run_id}: {totals['read']} results read from {len(args.files) - len(unreadable)} "
          f"file(s)")
    print(f"  stored           {totals['stored']} responses, {totals['stored_error']} failed requests")
    print(f"  already present  {totals['already']}" +
          ("  (nothing was stored twice)" if totals["already"] else ""))
    if totals["other_run"]:
        print(f"  refused          {totals['other_run']} of another run")
    if totals["unknown_id"]:
        print(f"  unknown          {totals['unknown_id']} not requests of run {run_id}")
    if totals["skipped"]:
        print(f"  malformed        {totals['skipped']} lines skipped")
    if problems:
        print("  (details on stderr)")
    if new == 0 and totals["read"] and not problems:
        print(f"nothing new: every result was already stored in run {run_id}")
    print(f"run {run_id}: {info.n_outputs}/{info.n_requests} responses stored"
          + (f"; {pending} still pending (`qcstation eval export-batch {run_id}` writes them)"
             if pending else ""))
    print(f"next: qcstation eval score {run_id}")
    return status


def _now() -> str:
    from db.store import now

    return now()


def _actor() -> str:
    from db.store import current_actor

    return current_actor()
