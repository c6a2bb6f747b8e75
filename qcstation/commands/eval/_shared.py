"""What the ``eval`` verbs share: the configuration, RUN arguments, the progress line of a
run, running and scoring it, and metric cells. Light at import (argparse and the
command helpers); the evaluation packages are imported by the functions that use them."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from qcstation.commands._common import db_path, print_json, print_table
from qcstation.common.safe import display_text

if TYPE_CHECKING:
    from db import Store
    from qcstation.eval.metric_values import MetricValue, RunMetrics


def config(args: argparse.Namespace) -> Any:
    from qcstation.common.config import load_config

    return load_config(getattr(args, "config", None))


def add_run_help(p: argparse.ArgumentParser) -> None:
    p.epilog = ("RUN is a run id, or a run name when exactly one run has it. "
                "`qcstation eval list` lists the runs.")


def resolve(store: Store, refs: list[str]) -> list[int]:
    from qcstation.eval.runs import resolve_run

    return [resolve_run(store, r) for r in refs]


def cell(mv: MetricValue, *, ci: bool) -> str:
    from qcstation.eval.metric_values import fmt_ci, fmt_value

    failed = f" ({mv.failed} failed)" if mv.failed else ""
    if mv.value is None:
        return ("n/s" if mv.note and mv.note.startswith("not scored") else "-") + failed
    v = fmt_value(mv.code, mv.value)
    return (f"{v} {fmt_ci(mv)}" if ci and mv.lo is not None else v) + failed


def failed_line(who: str, mv: MetricValue) -> str | None:
    """LLM@Un's failed replies, apart from the judged score (None: there are none)."""
    if not mv.failed:
        return None
    return (f"{who}: {mv.label} over {mv.n_samples} judged item-samples; {mv.failed} failed "
            "(the model's reply failed or was unreadable: no score on 1..100, kept apart, "
            "never a 0; the item-sample fails All-Pass)")


def notes(rows: list[tuple[str, MetricValue]]) -> list[str]:
    """'n/s' and '-' explained, one line each."""
    return [f"  {who}: {mv.label}: {display_text(mv.note, 160)}"
            for who, mv in rows if mv.value is None and mv.note]


class Printer:
    """One progress line on stderr: rewritten in place on a terminal, every 5 s otherwise.
    The codes that rewrite it go to the terminal itself, past the stream that shows control
    characters as text (:class:`qcstation.commands._common.SafeStream`), which printed them
    as ``\\r\\x1b[2K`` before every line; the line itself still goes through it."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, p: Any) -> None:
        if self.quiet:
            return
        t = time.monotonic()
        if self.tty:
            getattr(sys.stderr, "raw_stream", sys.stderr).write("\r\x1b[2K")
            sys.stderr.write(p.line())
            sys.stderr.flush()
        elif t - self.last >= 5.0 or p.done >= p.total:
            self.last = t
            sys.stderr.write(p.line() + "\n")

    def end(self) -> None:
        if self.tty and not self.quiet:
            sys.stderr.write("\n")


def judge_progress_printer(every_s: float = 5.0) -> Callable[[str, int, int, int], None]:
    """Progress of the judges' requests on stderr: when a judge starts, at most every
    ``every_s`` seconds, and when it ends, with the failures so far and how to stop (a judge
    server that is down makes every request wait for its retries)."""
    from qcstation.eval.judging import judge_progress_line

    last = [0.0]
    seen: list[object] = [None, 0.0]      # the last figures told, and since when

    def show(judge: str, done: int, total: int, failed: int) -> None:
        now = time.monotonic()
        figures = (judge, done, total, failed)
        if figures != seen[0]:
            seen[0], seen[1] = figures, now
        if 0 < done < total and now - last[0] < every_s:
            return
        last[0] = now
        # told again with the same figures (the heartbeat): how long nothing has ended
        waiting = now - float(seen[1])  # type: ignore[arg-type]
        print(judge_progress_line(judge, done, total, failed, stop="Ctrl+C",
                                  waiting_s=waiting or None), file=sys.stderr, flush=True)

    return show


def execute(args: argparse.Namespace, run_id: int, cfg: Any, retry_errors: bool = False) -> int:
    """Run and score (``eval run`` / ``eval resume``), then print what happened."""
    from qcstation.eval.evaluate import run_and_score

    printer = Printer(args.quiet)
    scoring = False

    def start_scoring(_final: Any) -> None:
        nonlocal scoring
        scoring = True
        printer.end()

    try:
        outcome = run_and_score(db_path(args), run_id, cfg, progress=printer,
                                retry_errors=retry_errors, score=not args.no_score,
                                on_scoring=start_scoring, figures=True,
                                judge_progress=None if args.quiet else judge_progress_printer())
    except KeyboardInterrupt:
        if scoring:
            raise
        printer.end()
        print(f"qcstation: run {run_id} interrupted; what was answered is stored. "
              f"Continue with `qcstation eval resume {run_id}`", file=sys.stderr)
        return 130
    if not scoring:
        printer.end()
    prog = outcome.progress
    summary: dict[str, Any] = {"run": run_id, "progress": prog.to_dict()}
    figures = outcome.figures
    if outcome.scores is not None and figures is not None:
        summary["scores"] = {**outcome.scores.to_dict(), "counts": figures.counts}
    if args.json:
        print_json(summary)
        return 0
    print(f"run {run_id}: {prog.status}; {prog.done}/{prog.total} responses stored "
          f"({prog.errors} failed requests, {prog.cached} from cache)")
    if prog.status == "unscored":
        print(f"every request is answered, nothing scored yet: `qcstation eval score {run_id}` "
              "scores it (the run reads done then)")
    elif prog.status != "done":
        print(f"continue with `qcstation eval resume {run_id}`")
    if figures is not None:
        print_scores(figures.metrics)
    return 0


def print_scores(r: RunMetrics | None) -> None:
    """A run's scores (its leaderboard row: ``RunOutcome.figures.metrics``), one metric a line
    (fits 80 columns), with what is not reported."""
    from qcstation.eval import metrics as M

    if r is None:
        return
    print_table(["metric", "value [95% CI]", "items"],
                [[M.LABELS[c], cell(r.values[c], ci=True), r.values[c].n] for c in M.CODES])
    extra = notes([("", r.values[c]) for c in M.CODES])
    if extra:
        print("\nnot reported:")
        print("\n".join(line.replace("  : ", "  ", 1) for line in extra))
