"""Numbers behind the terminal charts of the results screen (no Textual, no plotting).

* :func:`dimension_scores`: per run, every metric (and All-Pass) on one 0..100 scale
  with its 95% interval: accuracies as percentages, LLM@Un as the judges' mean score.
* :func:`by_difficulty`: per run, one metric's value per difficulty level.

The values come from :mod:`qcstation.eval.metrics` (bootstrap intervals) so the app
shows what ``qcstation eval report`` prints. On an installation without that module
the point estimates are computed here from the stored scores with the same rules
(errors stay in the denominator, ``not_scored`` rows do not count) and the intervals
are left out (``lo``/``hi`` None), which the chart says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from db import Store
from qcstation.eval.browse import headline, run_label
from qcstation.eval.types import ALL_PASS_UNDERSTANDING, METRIC_LABELS, METRICS

#: Chart order of the codes (metrics, then All-Pass).
CODES: tuple[str, ...] = (*METRICS, "all")
LEVEL_ORDER = {"easy": 0, "medium": 1, "hard": 2}


@dataclass
class Point:
    value: float | None          # 0..100 (None: not scored)
    lo: float | None = None
    hi: float | None = None
    n: int = 0


@dataclass
class RunSeries:
    run_id: int
    label: str
    points: dict[str, Point] = field(default_factory=dict)


@dataclass
class ChartData:
    runs: list[RunSeries]
    intervals: bool                  # False: metrics module absent, points only
    source: str                      # "metrics" | "stored scores"


def _scale(code: str, value: float | None) -> float | None:
    if value is None:
        return None
    return float(value) if code == "un" else float(value) * 100.0


def _metrics_module() -> Any | None:
    try:
        from qcstation.eval import metrics  # type: ignore[attr-defined]
    except ImportError:
        return None
    return metrics if hasattr(metrics, "leaderboard") else None


def _all_pass(store: Store, run_id: int) -> Point:
    """All-Pass over (item, sample) pairs: un >= 90 and re, ar, rt, rm correct."""
    rows = store.query(
        "SELECT seed_id, sample_idx, "
        "SUM(CASE WHEN metric = 'un' AND verdict = 'correct' AND score >= ? THEN 1 "
        "         WHEN metric IN ('re', 'ar', 'rt', 'rm') AND verdict = 'correct' THEN 1 "
        "         ELSE 0 END) AS passed, "
        "SUM(CASE WHEN metric IN ('un', 're', 'ar', 'rt', 'rm') AND verdict = 'not_scored' "
        "         THEN 1 ELSE 0 END) AS unscored "
        "FROM eval_scores WHERE run_id = ? GROUP BY seed_id, sample_idx",
        (ALL_PASS_UNDERSTANDING, run_id))
    rows = [r for r in rows if not r["unscored"]]
    if not rows:
        return Point(None)
    return Point(100.0 * sum(1 for r in rows if r["passed"] == 5) / len(rows), n=len(rows))


def dimension_scores(store: Store, run_ids: list[int], *, n_boot: int = 1000) -> ChartData:
    runs = store.query(
        f"SELECT id, name, model FROM eval_runs WHERE id IN ({','.join('?' for _ in run_ids)}) "
        "ORDER BY id", list(run_ids)) if run_ids else []
    labels = {int(r["id"]): run_label(r) for r in runs}
    metrics = _metrics_module()
    if metrics is not None and labels:
        board = metrics.leaderboard(store, list(labels), n_boot=n_boot, seed=0)
        series = []
        for rm in board:
            points = {}
            for code in CODES:
                mv = rm.values.get(code)
                if mv is None:
                    continue
                points[code] = Point(_scale(code, mv.value), _scale(code, mv.lo),
                                     _scale(code, mv.hi), int(mv.n or 0))
            series.append(RunSeries(int(rm.run_id), labels.get(int(rm.run_id), rm.label), points))
        return ChartData(series, intervals=True, source="metrics")
    series = []
    for run_id, label in labels.items():
        points = {code: Point(_scale(code, h.value), n=h.n)
                  for code, h in headline(store, run_id).items()}
        points["all"] = _all_pass(store, run_id)
        series.append(RunSeries(run_id, label, points))
    return ChartData(series, intervals=False, source="stored scores")


def by_difficulty(store: Store, run_ids: list[int], metric: str) -> tuple[list[str], list[RunSeries]]:
    """(difficulty levels, per run the metric's value per level on 0..100)."""
    metrics = _metrics_module()
    levels: set[str] = set()
    series: list[RunSeries] = []
    runs = store.query(
        f"SELECT id, name, model FROM eval_runs WHERE id IN ({','.join('?' for _ in run_ids)}) "
        "ORDER BY id", list(run_ids)) if run_ids else []
    for run in runs:
        run_id = int(run["id"])
        points: dict[str, Point] = {}
        if metrics is not None and hasattr(metrics, "breakdown"):
            # bars show values only, which do not depend on the bootstrap: few resamples
            for group, values in metrics.breakdown(store, run_id, by="difficulty",
                                                   n_boot=100).items():
                mv = values.get(metric)
                if mv is not None:
                    points[str(group)] = Point(_scale(metric, mv.value), _scale(metric, mv.lo),
                                               _scale(metric, mv.hi), int(mv.n or 0))
        elif metric in METRICS:
            for r in store.query(
                    "SELECT difficulty, verdict, COUNT(*) AS n, SUM(score) AS total "
                    "FROM eval_scores WHERE run_id = ? AND metric = ? AND verdict != 'not_scored' "
                    "GROUP BY difficulty, verdict", (run_id, metric)):
                level = str(r["difficulty"] or "unknown")
                p = points.setdefault(level, Point(0.0))
                p.n += int(r["n"])
                if metric == "un":
                    p.value = (p.value or 0.0) + float(r["total"] or 0)
                elif r["verdict"] == "correct":
                    p.value = (p.value or 0.0) + int(r["n"])
            for p in points.values():
                p.value = (p.value or 0.0) / p.n if metric == "un" else 100.0 * (p.value or 0.0) / p.n
        levels.update(points)
        series.append(RunSeries(run_id, run_label(run), points))
    ordered = sorted(levels, key=lambda d: (LEVEL_ORDER.get(d, 9), d))
    return ordered, series


def label(code: str) -> str:
    return METRIC_LABELS.get(code, code)
