"""Messages shared by the workstation's screens.

Thread workers never touch widgets: they post one of these (``post_message`` is
thread-safe) and the screen's ``@on`` handlers own all UI state. Names are past-tense
events (STYLE.md §2).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from qcstation.core.review.gate import GateStatus, Progress
    from qcstation.core.review.step import Step
    from qcstation.core.review.sampling import SampleInfo
    from qcstation.core.release.releases import ReleaseInfo


@dataclass
class DimensionQC:
    """Everything the dashboard shows about one QC dimension (``gate`` None until evaluated:
    on a large database the gate takes seconds, so it arrives after the rest)."""

    dimension: str
    sample: SampleInfo | None
    progress: Progress | None
    gate: GateStatus | None = None
    scope: str = ""      # '' the working set, else the derived set (its own sample and gate)


class SamplesLoaded(Message):
    """The open sample and its progress for every QC dimension (fast; comes first)."""

    def __init__(self, dimensions: list[DimensionQC]) -> None:
        super().__init__()
        self.dimensions = dimensions


class CountsLoaded(Message):
    """Seeds per source and status, current artifacts per dimension and status."""

    def __init__(self, counts: dict[str, Any]) -> None:
        super().__init__()
        self.counts = counts


class GateLoaded(Message):
    """One QC dimension's gate was evaluated."""

    def __init__(self, dimension: str, gate: GateStatus, scope: str = "") -> None:
        super().__init__()
        self.dimension = dimension
        self.gate = gate
        self.scope = scope


class SamplesDrawn(Message):
    """``s`` finished: samples drawn, dimensions skipped (with why), replacements requeued."""

    def __init__(self, drawn: list[SampleInfo], skipped: list[str], requeued: int) -> None:
        super().__init__()
        self.drawn = drawn
        self.skipped = skipped
        self.requeued = requeued


class SamplesExtended(Message):
    """``e`` finished: ``extended`` maps dimension to items added; ``skipped`` says why not."""

    def __init__(self, extended: dict[str, int], skipped: list[str]) -> None:
        super().__init__()
        self.extended = extended
        self.skipped = skipped


class RegenerationFinished(Message):
    """``g`` finished: a plain-words summary of what the pipeline regenerated."""

    def __init__(self, summary: str, requeued: int) -> None:
        super().__init__()
        self.summary = summary
        self.requeued = requeued


class RunProgress(Message):
    """A long run (regeneration) advanced: ``done`` of ``total``, with the pipeline's words.
    Posted at most a few times a second, never once per item."""

    def __init__(self, done: int, total: int, message: str) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.message = message


class ReviewStepTaken(Message):
    """A review step ran (:mod:`qcstation.core.review.step`): ``step`` is its typed outcome,
    what happened (a decision saved or moved on, an undo, an exclusion) and what to show
    now (the item, editable or not, or nothing left: ``step.finished``)."""

    def __init__(self, step: Step) -> None:
        super().__init__()
        self.step = step


class GateUpdated(Message):
    """The QC gate of the dimension under review was re-evaluated (posted after the item,
    so a slow gate on a large database never delays showing the next item)."""

    def __init__(self, dimension: str, gate: GateStatus,
                 progress: Progress | None = None) -> None:
        super().__init__()
        self.dimension = dimension
        self.gate = gate
        #: the open sample's counts read with the gate (when the screen asked: sample done)
        self.progress = progress


class ReleasesLoaded(Message):
    """Releases and the reasons (if any) a new one cannot be approved now."""

    def __init__(self, releases: list[ReleaseInfo], blockers: list[str], scope: str = "",
                 scopes: list[str] | None = None) -> None:
        super().__init__()
        self.releases = releases
        self.blockers = blockers
        self.scope = scope                    # the set the blockers are of ('' working set)
        self.scopes = scopes or [""]          # the working set and every derived set


class ReleaseApproved(Message):
    def __init__(self, release: ReleaseInfo) -> None:
        super().__init__()
        self.release = release


class ReleaseExported(Message):
    def __init__(self, name: str, version: str, path: Path) -> None:
        super().__init__()
        self.name = name
        self.version = version
        self.path = path


class ReleaseDiffed(Message):
    def __init__(self, name: str, old: str, new: str, diff: dict[str, Any]) -> None:
        super().__init__()
        self.name = name
        self.old = old
        self.new = new
        self.diff = diff


class TeamLoaded(Message):
    """The team panel's figures (:func:`qcstation.core.review.team.team_stats`)."""

    def __init__(self, stats: dict[str, Any]) -> None:
        super().__init__()
        self.stats = stats


# -- evaluation: runs, results browser, charts ---------------------------------------------
class EvalRunsLoaded(Message):
    """Every run with its progress and headline numbers (``browse.RunSummary``);
    ``partial``: only the runs that were moving have headline numbers."""

    def __init__(self, runs: list[Any], partial: bool = False) -> None:
        super().__init__()
        self.runs = runs
        self.partial = partial


class EvalRunStarted(Message):
    """A run was created (or is being resumed) and its worker is asking the model."""

    def __init__(self, run_id: int, resumed: bool) -> None:
        super().__init__()
        self.run_id = run_id
        self.resumed = resumed


class EvalProgressed(Message):
    """The runner's ``RunProgress`` (done, total, errors, cached, rate_per_s, eta_s, tokens,
    cost), posted at most a few times a second. ``phase``: asking | scoring."""

    def __init__(self, run_id: int, progress: Any, phase: str = "asking") -> None:
        super().__init__()
        self.run_id = run_id
        self.progress = progress
        self.phase = phase


class JudgesProgressed(Message):
    """How far a judge's requests got while a run is scored (a judge that is down makes
    every request wait for its retries): posted as the judge starts, at most a few times a
    second, and as it ends."""

    def __init__(self, run_id: int, judge: str, done: int, total: int, failed: int) -> None:
        super().__init__()
        self.run_id = run_id
        self.judge, self.done, self.total, self.failed = judge, done, total, failed


class EvalRunFinished(Message):
    """The run's worker ended: finished, or ``cancelled`` by the user (resumable)."""

    def __init__(self, run_id: int, progress: Any, *, cancelled: bool,
                 scored: Any = None, note: str | None = None) -> None:
        super().__init__()
        self.run_id = run_id
        self.progress = progress
        self.cancelled = cancelled
        self.scored = scored
        self.note = note


class ResultsCounted(Message):
    """The counts (and filter choices) of the page ``number`` for ``filters``, read after the
    page itself was shown (counting 1M rows takes longer than a page)."""

    def __init__(self, filters: Any, number: int, choices: dict[str, Any] | None,
                 counts: dict[str, Any] | None, version: Any = None) -> None:
        super().__init__()
        self.filters = filters
        self.number = number
        self.choices = choices
        self.counts = counts
        self.version = version  # browse.counts_version of the data counted (None: unknown)


class ResultsPageLoaded(Message):
    """One page of the results browser (``browse.Page``) for ``filters``; ``number`` counts
    pages from 1; ``choices`` are the sources/difficulties/runs the filters can take;
    ``first`` the page's first row in detail, as :class:`ItemDetailLoaded` carries it."""

    def __init__(self, filters: Any, page: Any, number: int,
                 choices: dict[str, Any] | None = None,
                 counts: dict[str, Any] | None = None,
                 first: tuple[tuple[int, int, int], Any] | None = None,
                 near: dict[tuple[int, int, int], Any] | None = None,
                 runs: list[tuple[int, str]] | None = None,
                 items: dict[tuple[int, int, int], tuple[Any, Any]] | None = None) -> None:
        super().__init__()
        self.runs = runs        # every run's (id, label), read with the first page
        # the items of ``near``, each with browse.items_version of its run before its read
        self.items = items or {}
        self.filters = filters
        self.page = page
        self.number = number
        self.choices = choices
        self.counts = counts    # {"rows": (n, exact), "failed": (n, exact) | None}
        self.first = first      # (key, browse.ItemDetail | None) or None
        self.near = near or {}  # items of the page read with it (the first's, the next's)


class ItemDetailLoaded(Message):
    """One (run, item, sample) in detail (``browse.ItemDetail`` or None); ``key`` None: only
    ``near``, items read ahead (the rows beside the cursor's), by key."""

    def __init__(self, key: tuple[int, int, int] | None, detail: Any,
                 near: dict[tuple[int, int, int], Any] | None = None) -> None:
        super().__init__()
        self.key = key
        self.detail = detail
        self.near = near or {}


class SideBySideLoaded(Message):
    def __init__(self, left: Any, right: Any, labels: tuple[str, str]) -> None:
        super().__init__()
        self.left = left
        self.right = right
        self.labels = labels


class ChartBreakdownLoaded(Message):
    """Every metric's difficulty breakdown for the charts screen (``charts.by_difficulty_all``),
    read after the dimension scores are shown: the difficulty chart then only draws."""

    def __init__(self, by_metric: dict[str, tuple[list[str], list[Any]]]) -> None:
        super().__init__()
        self.by_metric = by_metric


class ChartDataLoaded(Message):
    """Numbers for the charts screen (``charts.ChartData`` and the difficulty breakdown, None
    until that chart is shown)."""

    def __init__(self, scores: Any, levels: list[str], by_level: list[Any] | None,
                 metric: str) -> None:
        super().__init__()
        self.scores = scores
        self.levels = levels
        self.by_level = by_level
        self.metric = metric
