"""What the ``eval`` verbs share: the configuration, RUN arguments, the progress line of a
run, running and scoring it, and metric cells. Light at import (argparse and the
command helpers); the evaluation packages are imported by the functions that use them."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
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


class JudgeLine:
    """Progress of the judges' requests on stderr, said when a judge starts, as requests end
    and again every :data:`~qcstation.eval.judging.HEARTBEAT_S` while none does (a judge
    server that is down makes every request wait for its retries). On a terminal it is one
    line rewritten in place, fitted to the terminal's width (a longer line wraps, and the
    rewrite then leaves its first rows behind); it ends with a newline when the judge's last
    request ends and at :meth:`end` (Ctrl+C, an error). Elsewhere (a file, a pipe) a plain
    line at most every ``every_s`` seconds, and when a judge starts and ends. The heartbeats
    of a judge that was down printed a line each on a terminal too: in ten minutes, 60."""

    def __init__(self, every_s: float = 5.0, *, tty: bool | None = None,
                 width: int | None = None) -> None:
        self.every_s = every_s
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.width = width
        self.last = 0.0
        self.seen: tuple[object, float] = (None, 0.0)   # the last figures told, and since when
        self.open = False                               # a line in place, not ended yet

    def __call__(self, judge: str, done: int, total: int, failed: int) -> None:
        from qcstation.eval.judging import judge_progress_line

        now = time.monotonic()
        figures = (judge, done, total, failed)
        if figures != self.seen[0]:
            self.seen = (figures, now)
        # told again with the same figures (the heartbeat): how long nothing has ended
        waiting = (now - self.seen[1]) or None
        if not self.tty:
            if 0 < done < total and now - self.last < self.every_s:
                return
            self.last = now
            print(judge_progress_line(judge, done, total, failed, stop="Ctrl+C",
                                      waiting_s=waiting), file=sys.stderr, flush=True)
            return
        width = self.width or shutil.get_terminal_size((80, 24)).columns
        line = judge_progress_line(judge, done, total, failed, stop="Ctrl+C",
                                   waiting_s=waiting)
        if len(line) >= width:          # the note goes first, then the judge's name is cut
            line = judge_progress_line(judge, done, total, failed, stop="Ctrl+C",
                                       waiting_s=waiting, note=False)
        if len(line) >= width:
            line = judge_progress_line(judge, done, total, failed, stop="Ctrl+C",
                                       waiting_s=waiting, note=False,
                                       judge_width=max(8, len(judge) - (len(line) - width + 1)))
        if len(line) >= width:          # a terminal narrower than the figures: cut, marked
            line = line[:max(1, width - 2)] + "…"
        # the codes that rewrite the line go to the terminal itself, past the stream that
        # shows control characters as text (as Printer's)
        getattr(sys.stderr, "raw_stream", sys.stderr).write("\r\x1b[2K")
        sys.stderr.write(line)
        self.open = True
        if done >= total:
            self.end()
        sys.stderr.flush()

    def end(self) -> None:
        """End the line in place (its last figures stay on the screen)."""
        if self.open:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.open = False


def judge_progress_printer(every_s: float = 5.0) -> JudgeLine:
    """The judges' progress on stderr (:class:`JudgeLine`); call its ``end()`` when scoring
    stops."""
    return JudgeLine(every_s)


def execute(args: argparse.Namespace, run_id: int, cfg: Any, retry_errors: bool = False) -> int:
    """Run and score (``eval run`` / ``eval resume``), then print what happened."""
    from qcstation.eval.evaluate import run_and_score

    printer = Printer(args.quiet)
    scoring = False

    def start_scoring(_final: Any) -> None:
        nonlocal scoring
        scoring = True
        printer.end()

    judges = None if args.quiet else judge_progress_printer()
    try:
        outcome = run_and_score(db_path(args), run_id, cfg, progress=printer,
                                retry_errors=retry_errors, score=not args.no_score,
                                on_scoring=start_scoring, figures=True,
                                judge_progress=judges)
    except KeyboardInterrupt:
        if judges is not None:
            judges.end()
        if scoring:
            raise
        printer.end()
        print(f"qcstation: run {run_id} interrupted; what was answered is stored. "
              f"Continue with `qcstation eval resume {run_id}`", file=sys.stderr)
        return 130
    finally:
        if judges is not None:
            judges.end()          # an error mid-line: its message starts a line of its own
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
