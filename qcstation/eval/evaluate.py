"""Run and score: the one sequence behind ``qcstation eval run`` / ``eval resume`` and the
workstation's evaluation runs.

:func:`run_and_score` executes a run (:func:`~qcstation.eval.runner.execute_run`, the
answer tasks scored live as their outputs are stored), then, unless the run was
cancelled, scores what has no score yet (:func:`~qcstation.eval.scorers.score_run`:
Reasoning through Z3, Understanding through the judges). With ``retry_errors`` the scoring
pass scores every output again, since failed requests were replaced. With ``figures`` a
scored run's outcome carries its figures (:class:`RunFigures`: verdict counts and every
metric with its 95% interval, read once here), so a command prints them without opening
the store again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from db.store import Store
from qcstation.eval.metric_values import RunMetrics
from qcstation.eval.judging import JudgeProgress
from qcstation.eval.metrics import leaderboard
from qcstation.eval.runner import RunProgress, execute_run
from qcstation.eval.runs import release_lease, stored_status
from qcstation.eval.scorers import ScoreSummary, score_run, summarize_verdicts


@dataclass(frozen=True)
class RunFigures:
    """What a scored run measured, read in one pass over the store."""

    counts: dict[str, dict[str, int]]   # metric -> verdict -> n, over the whole run
    metrics: RunMetrics | None          # every metric with its 95% interval (leaderboard row)


def run_figures(db_path: str | Path, run_id: int) -> RunFigures:
    """The figures of a run as they stand (its verdict counts and its leaderboard row)."""
    with Store(db_path) as store:
        counts = summarize_verdicts(store, run_id)
        board = leaderboard(store, [run_id])
    return RunFigures(counts, board[0] if board else None)


@dataclass
class RunOutcome:
    progress: RunProgress            # the run's final progress (status as stored at the end:
    # done | unscored (answered, not scored) | interrupted | stopped)
    scores: ScoreSummary | None      # None when not scored (score=False, cancelled, scorer missing)
    note: str | None = None          # why it was not scored, when a scorer's package is missing
    figures: RunFigures | None = None  # with figures=True, once scored: counts and metrics


def run_and_score(db_path: str | Path, run_id: int, cfg: Any, *,
                  progress: Callable[[RunProgress], None] | None = None,
                  cancel: threading.Event | None = None, retry_errors: bool = False,
                  score: bool = True, on_scoring: Callable[[RunProgress], None] | None = None,
                  missing_scorer_ok: bool = False, figures: bool = False,
                  judge_progress: JudgeProgress | None = None) -> RunOutcome:
    """Ask what the run lacks, then score it. ``on_scoring`` is called with the final
    progress as the scoring pass starts, ``judge_progress`` as each judge request ends
    (:func:`~qcstation.eval.judging.judge_outputs`: a judge that is down is a long wait),
    and ``cancel`` stops the judges too (the items not judged are ``judge_error``). A scorer whose package is missing ends the call
    with that ImportError, or, with ``missing_scorer_ok`` (the workstation), leaves the
    run ``unscored`` with a note saying so; without ``score`` a run with every request
    answered is ``unscored`` too (``done`` only once scored). With ``figures`` a scored outcome carries the run's
    :class:`RunFigures`. Ctrl+C during the run propagates (what was
    answered is stored; the run resumes later)."""
    final = execute_run(db_path, run_id, cfg, progress=progress, cancel=cancel,
                        retry_errors=retry_errors, live_score=score, keep_lease=score)
    if not score or (cancel is not None and cancel.is_set()):
        return RunOutcome(final, None)
    # the run is still ours (`running`) when every request was answered: it is `done` once
    # scored, and nobody else scores it meanwhile
    try:
        if on_scoring is not None:
            on_scoring(final)
        summary = score_run(db_path, run_id, cfg, only_missing=not retry_errors,
                            judge_progress=judge_progress, cancel=cancel)
    except ImportError as exc:
        if not missing_scorer_ok:
            raise
        return RunOutcome(final, None, f"not scored ({exc}); score it later with "
                                       f"`qcstation eval score`")
    finally:
        release_lease(db_path, run_id)     # scoring did not start or failed: not `done`
        final.status = stored_status(db_path, run_id) or final.status
    return RunOutcome(final, summary, figures=run_figures(db_path, run_id) if figures else None)
