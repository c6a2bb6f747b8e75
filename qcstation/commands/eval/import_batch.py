"""``qcstation eval import-batch RUN FILE...``: store the results of the OpenAI Batch API,
``vllm run-batch`` or ``eval ray-batch`` by ``custom_id``. Importing twice stores
nothing twice. Exit status: 0 every line stored or already present, 1 some lines were
skipped (malformed, another run's, or not a request of this run; listed on stderr as
FILE:LINE: message), 2 a file could not be read at all.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qcstation.commands._common import print_json, store_from_args
from qcstation.commands.eval._shared import config, resolve

from qcstation.common.safe import message_text

if TYPE_CHECKING:
    from db import Store
    from qcstation.common.config import ModelConfig
    from qcstation.eval.runs import RunInfo
    from qcstation.eval.types import EvalReply

_SHOWN_PROBLEMS = 20
_IMPORT_CHUNK = 20_000
#: a slice is stored once its replies' texts reach this many characters (a line may hold up to
#: 16 MB: 20,000 such lines held at once would be 320 GB)
_IMPORT_CHUNK_CHARS = 32 * 1024 * 1024
#: problem lines kept (printed by --json); the others are counted only, so memory stays bounded
#: over a file of millions of bad lines
KEPT_PROBLEMS = 1000
#: other runs named one by one in the summary (the rest are counted together)
_NAMED_RUNS = 20


class Problems(list[str]):
    """Problem lines: the first :data:`KEPT_PROBLEMS` kept, every one counted (``total``);
    a file's summary lines (:meth:`note`) are always kept."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0
        self.notes: list[str] = []

    def append(self, message: str) -> None:
        self.total += 1
        if len(self) < KEPT_PROBLEMS:
            super().append(message)

    def note(self, message: str) -> None:
        self.notes.append(message)

    def take(self, other: Problems) -> None:
        """Add ``other``'s problems after these: its kept lines, its count, its notes."""
        for message in other:
            self.append(message)
        self.total += other.total - len(other)
        for message in other.notes:
            super().append(message)
            self.total += 1


def register(actions: argparse._SubParsersAction) -> None:
    im = actions.add_parser(
        "import-batch", help="store the results of a batch by custom_id",
        description="Read OpenAI Batch output files (also written by `vllm run-batch` and "
                    "`qcstation eval ray-batch`) and store each result as the response of its "
                    "request in RUN. A result with an error or a non-200 status is stored as a "
                    "failed request. Results already stored are kept and counted, so importing "
                    "again is safe; results of another run are refused. Then score the run with "
                    "`qcstation eval score RUN` (a run reads done once scored). Exit status: 0 all lines stored or already "
                    "present, 1 some lines skipped (see stderr), 2 a file could not be read.")
    im.add_argument("run", metavar="RUN", help="run id or name")
    im.add_argument("files", metavar="FILE", nargs="+",
                    help="batch output (and error) JSONL files")
    im.add_argument("--json", action="store_true", help="print the result as JSON")
    im.set_defaults(eval_func=run)


class Pricing:
    """What the stored results cost: the run's model's configured prices (``[models.NAME]``
    ``price_in_per_mtok`` / ``price_out_per_mtok``) times its ``batch_price_factor``, summed
    over the results this import stores; ``why_unknown`` says why there is no figure."""

    def __init__(self, model: ModelConfig | None, why_unknown: str | None) -> None:
        self.model = model
        self.why_unknown = why_unknown
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost = 0.0
        self.costed = 0          # stored results with a cost
        self.uncounted = 0       # stored results with no token count: their cost is not known
        self.partial = 0         # with one count missing or dropped (past what the request holds): not known

    @classmethod
    def of(cls, models: dict[str, ModelConfig] | None, source: str, label: str) -> Pricing:
        if models is None:
            return cls(None, f"{source}, so no prices")
        m = models.get(label)
        if m is None:
            return cls(None, f"no model named {message_text(label, 80)!r} in {message_text(source, 200)}, "
                             f"so no prices")
        if m.price_in_per_mtok is None and m.price_out_per_mtok is None:
            return cls(None, f"model {message_text(label, 80)!r} has no price_in_per_mtok / price_out_per_mtok")
        return cls(m, None)

    def price(self, reply: EvalReply) -> None:
        """Set ``reply.cost`` (None: not known) from its token counts."""
        from qcstation.common.http_retry import cost_of

        m = self.model
        if m is None:
            reply.cost = None
            return
        f = m.batch_price_factor
        reply.cost = cost_of(reply.prompt_tokens, reply.completion_tokens,
                             None if m.price_in_per_mtok is None else m.price_in_per_mtok * f,
                             None if m.price_out_per_mtok is None else m.price_out_per_mtok * f)

    def add(self, rows: list[tuple[Any, ...]]) -> None:
        """Count the stored rows' tokens and cost (as bounded by the store, never as claimed)."""
        for pt, ct, cost in rows:
            self.prompt_tokens += pt or 0
            self.completion_tokens += ct or 0
            if cost is not None:
                self.cost += cost
                self.costed += 1
            elif pt is None and ct is None:
                self.uncounted += 1
            elif self.model is not None:
                self.partial += 1

    def summary(self) -> str:
        tokens = f"{self.prompt_tokens} tokens in, {self.completion_tokens} out"
        if self.model is None:
            return f"{tokens}; cost not known: {self.why_unknown}"
        factor = self.model.batch_price_factor
        at = "the configured prices" + (f" x {factor:g} (batch_price_factor)" if factor != 1 else "")
        unknown = (f"; {self.uncounted} result(s) with no token count: their cost is not known"
                   if self.uncounted else "")
        if self.partial:
            unknown += (f"; {self.partial} result(s) with one token count missing or dropped: "
                        "their cost is not known")
        return f"{tokens}, ${self.cost:.4f} at {at}{unknown}"


def run(args: argparse.Namespace) -> int:
    from qcstation.eval.runs import get_run

    totals: dict[str, int] = {"read": 0, "stored": 0, "stored_error": 0, "already": 0,
                              "other_run": 0, "unknown_id": 0, "skipped": 0, "two_step": 0}
    problems = Problems()
    unreadable: list[str] = []
    models, source = _register_keys(args)
    with store_from_args(args) as store:
        (run_id,) = resolve(store, [args.run])
        _refuse_if_busy(store, run_id)
        pricing = Pricing.of(models, source, get_run(store, run_id).model)
        for name in args.files:
            _import_file(store, run_id, Path(name), totals, problems, unreadable, pricing)
        # a run is `done` only once scored (`eval score` marks it so, runs.scoring_lease):
        # new outputs that complete a run leave it `unscored`, and new outputs in a scored run
        # unscore it
        if totals["stored"] + totals["stored_error"]:
            with store.transaction():
                store.execute(
                    "UPDATE eval_runs SET status = CASE WHEN (SELECT COUNT(*) FROM eval_outputs "
                    "WHERE run_id = eval_runs.id) >= n_requests THEN 'unscored' "
                    "WHEN status = 'done' THEN 'interrupted' ELSE status END "
                    "WHERE id = ? AND status != 'running'", (run_id,))
        info = get_run(store, run_id)
        store.event(_actor(), "eval.batch_imported", "eval_run", run_id,
                    {"files": [str(f) for f in args.files], **totals,
                     "cost": pricing.cost if pricing.model is not None else None})
    status = 2 if unreadable else (1 if problems.total else 0)
    for msg in unreadable:
        print(f"qcstation: error: {msg}", file=sys.stderr)
    for p in problems[:_SHOWN_PROBLEMS]:
        print(p, file=sys.stderr)
    if problems.total > _SHOWN_PROBLEMS:
        print(f"... and {problems.total - _SHOWN_PROBLEMS} more", file=sys.stderr)
    pending = max(0, info.n_requests - info.n_outputs)
    if args.json:
        print_json({"run": run_id, **totals, "problems": list(problems), "problems_total": problems.total,
                    "unreadable": unreadable,
                    "responses": info.n_outputs, "requests": info.n_requests,
                    "pending": pending, "status": info.status,
                    "prompt_tokens": pricing.prompt_tokens, "completion_tokens": pricing.completion_tokens,
                    "cost": pricing.cost if pricing.model is not None else None,
                    "cost_note": pricing.why_unknown,
                    "results_cost_not_known": pricing.uncounted + pricing.partial
                    if pricing.model is not None else None})
        return status
    if len(unreadable) == len(args.files):
        return status
    _print_summary(run_id, len(args.files) - len(unreadable), totals, bool(problems.total), info, pricing)
    return status


def _refuse_if_busy(store: Store, run_id: int) -> None:
    """Results are not stored into a run another process (or a pass of this one) is running
    or scoring: that pass would end the run ``done`` with outputs it never scored."""
    from qcstation.eval.runs import EvalError, claimed_here, held_elsewhere

    row = store.one("SELECT status, owner, heartbeat_at FROM eval_runs WHERE id = ?", (run_id,))
    if row is not None and (held_elsewhere(row) or claimed_here(row)):
        raise EvalError(f"run {run_id} is being run or scored by {row['owner']} right now; import "
                        f"its results once that ends")


def _import_file(store: Store, run_id: int, path: Path, totals: dict[str, int],
                 problems: Problems, unreadable: list[str], pricing: Pricing) -> None:
    """Store one batch output file's results of ``run_id``, a slice at a time; what cannot
    be stored is added to ``problems`` (or the file to ``unreadable``)."""
    from qcstation.eval.backends.batch import BatchFileError, parse_custom_id, read_batch_output
    from qcstation.eval.outputs import store_replies
    from qcstation.eval.runs import get_run
    from qcstation.eval.twostep import is_two_step

    two_step = is_two_step(get_run(store, run_id).spec)
    file_problems = Problems()
    other_runs: dict[int, int] = {}

    def ours(replies: Iterator[EvalReply]) -> Iterator[EvalReply]:
        for reply in replies:
            totals["read"] += 1
            line = reply.extra.get("line", "?")
            parsed = parse_custom_id(reply.custom_id)
            if parsed is None:
                totals["unknown_id"] += 1
                file_problems.append(f"{path}:{line}: custom_id '{message_text(reply.custom_id, 80)}' "
                                     f"is not a qcstation request id; skipped")
                continue
            if parsed[0] != run_id:
                totals["other_run"] += 1
                if parsed[0] in other_runs or len(other_runs) < _NAMED_RUNS:
                    other_runs[parsed[0]] = other_runs.get(parsed[0], 0) + 1
                else:
                    other_runs[-1] = other_runs.get(-1, 0) + 1     # counted, not named
                file_problems.append(f"{path}:{line}: {reply.custom_id} belongs to run "
                                     f"{parsed[0]}, not run {run_id}; refused")
                continue
            if two_step and parsed[2] == "refinement":
                # one request cannot be both steps: scored, it would read as a failed refinement
                totals["two_step"] += 1
                file_problems.append(f"{path}:{line}: {reply.custom_id} is a refinement of a two-step "
                                     f"run, asked by `qcstation eval resume {run_id}`, not by batch; refused")
                continue
            reply.endpoint = reply.endpoint or f"batch file {message_text(path.name, 120)}"
            pricing.price(reply)
            yield reply

    malformed = Problems()
    counts: dict[str, int] = {}
    stream = ours(read_batch_output(path, problems=malformed))
    try:
        # stored a slice at a time: memory stays bounded on large files, and a re-run
        # after an interruption skips what was stored
        for chunk in _chunks(stream):
            spent: list[tuple[Any, Any, Any]] = []
            for key, n in store_replies(store, run_id, chunk, spent).items():
                counts[key] = counts.get(key, 0) + n
            pricing.add(spent)
    except BatchFileError as exc:
        unreadable.append(str(exc))
        return
    totals["skipped"] += malformed.total
    for key, n in counts.items():
        if key == "unknown_id":   # a well-formed id of this run that names no request of it
            file_problems.note(f"{path}: {n} result(s) name an item, task or sample "
                               f"that run {run_id} does not have; skipped")
        totals[key] = totals.get(key, 0) + n
    unnamed = other_runs.pop(-1, 0)
    for other, n in sorted(other_runs.items()):
        exists = store.one("SELECT id FROM eval_runs WHERE id = ?", (other,)) is not None
        hint = (f"; import them with `qcstation eval import-batch {other} {path}`"
                if exists else " (no such run in this database)")
        file_problems.note(f"{path}: {n} result(s) belong to run {other}{hint}")
    if unnamed:
        file_problems.note(f"{path}: {unnamed} result(s) belong to {_NAMED_RUNS}+ other runs; refused")
    problems.take(malformed)
    problems.take(file_problems)


def _chunks(replies: Iterator[EvalReply]) -> Iterator[list[EvalReply]]:
    """Slices of at most :data:`_IMPORT_CHUNK` replies and about :data:`_IMPORT_CHUNK_CHARS`
    characters of text and errors: memory stays bounded whatever the lines hold."""
    chunk: list[EvalReply] = []
    chars = 0
    for reply in replies:
        chunk.append(reply)
        chars += len(reply.text or "") + len(reply.error or "")
        if len(chunk) >= _IMPORT_CHUNK or chars >= _IMPORT_CHUNK_CHARS:
            yield chunk
            chunk, chars = [], 0
    if chunk:
        yield chunk


def _print_summary(run_id: int, n_files: int, totals: dict[str, int], problems: bool,
                   info: RunInfo, pricing: Pricing) -> None:
    pending = max(0, info.n_requests - info.n_outputs)
    new = totals["stored"] + totals["stored_error"]
    print(f"run {run_id}: {totals['read']} results read from {n_files} file(s)")
    print(f"  stored           {totals['stored']} responses, {totals['stored_error']} failed requests")
    if new:
        print(f"  spent            {pricing.summary()}")
    print(f"  already present  {totals['already']}" +
          ("  (nothing was stored twice)" if totals["already"] else ""))
    if totals["other_run"]:
        print(f"  refused          {totals['other_run']} of another run")
    if totals["two_step"]:
        print(f"  refused          {totals['two_step']} two-step refinements (`qcstation eval resume "
              f"{run_id}` asks them)")
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


def _register_keys(args: argparse.Namespace) -> tuple[dict[str, ModelConfig] | None, str]:
    """Every configured model's key becomes a secret the reader scrubs (a batch file
    written by a server that echoed it); without a configuration, the environment's
    secret-named variables are. Returns the configured models by the label a run names
    them by (None: no configuration could be read) and where they were read from."""
    from qcstation.common import redact
    from qcstation.common.errors import QCStationError

    redact.register(None)
    try:
        cfg = config(args)
    except (QCStationError, OSError):
        return None, "no configuration could be read"     # import needs none
    models: dict[str, ModelConfig] = {}
    for m in [cfg.generator, *cfg.judges, *cfg.models.values()]:
        if m is not None:
            m.api_key()
            models.setdefault(m.name, m)
    for name, m in cfg.models.items():
        models[name] = m
    return models, cfg.describe_source()


def _actor() -> str:
    from db.store import current_actor

    return current_actor()
