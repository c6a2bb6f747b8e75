"""Numbers behind the terminal charts of the results screen (no Textual, no plotting).

* :func:`dimension_scores`: per run, every metric (and All-Pass) on one 0..100 scale
  with its bootstrap 95% interval: accuracies as percentages, LLM@Un as the judges' mean.
* :func:`by_difficulty`: per run, one metric's value per difficulty level;
  :func:`by_difficulty_all` every metric's from one pass (a chart switching metrics only draws).

The values are :mod:`qcstation.eval.metrics`' (the same as ``qcstation eval leaderboard``
and the report print); this module only scales and orders them for a chart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from db import Store
from qcstation.eval import metrics
from qcstation.eval.runs import run_label
from qcstation.eval.types import METRIC_LABELS, METRICS

#: Chart order of the codes (metrics, then All-Pass).
CODES: tuple[str, ...] = (*METRICS, "all")


@dataclass
class Point:
    value: float | None          # 0..100 (None: not scored)
    lo: float | None = None
    hi: float | None = None
    n: int = 0
    failed: int = 0              # LLM@Un: replies that failed (no score; apart from the value)


@dataclass
class RunSeries:
    run_id: int
    label: str
    points: dict[str, Point] = field(default_factory=dict)


@dataclass
class ChartData:
    runs: list[RunSeries]


def _scale(code: str, value: float | None) -> float | None:
    if value is None:
        return None
    return float(value) if code == "un" else float(value) * 100.0


def _point(code: str, mv: Any) -> Point:
    return Point(_scale(code, mv.value), _scale(code, mv.lo), _scale(code, mv.hi),
                 int(mv.n or 0), int(getattr(mv, "failed", 0) or 0))


def _labels(store: Store, run_ids: list[int]) -> dict[int, str]:
    if not run_ids:
        return {}
    rows = store.query(
        f"SELECT id, name, model, spec FROM eval_runs WHERE id IN ({','.join('?' for _ in run_ids)}) "
        "ORDER BY id", list(run_ids))
    return {int(r["id"]): run_label(r) for r in rows}


def load_tables(store: Store, run_ids: list[int]) -> dict[int, metrics.RunTable]:
    """Each run's scores, read once for both charts (and a change of the difficulty metric):
    from its items counted by group and verdicts (``metrics.load_run_kept``: the same figures
    as from every item-sample row, read from a few hundred rows)."""
    return {run_id: metrics.load_run_kept(store, run_id) for run_id in _labels(store, run_ids)}


def dimension_scores(store: Store, run_ids: list[int], *, n_boot: int = 1000,
                     tables: dict[int, metrics.RunTable] | None = None) -> ChartData:
    labels = _labels(store, run_ids)
    board = [metrics.run_metrics(store, r, n_boot=n_boot, seed=0,
                                 table=tables.get(r) if tables else None) for r in labels]
    return ChartData([
        RunSeries(int(rm.run_id), labels.get(int(rm.run_id), str(rm.label)),
                  {code: _point(code, rm.values[code]) for code in CODES if code in rm.values})
        for rm in board])


def by_difficulty(store: Store, run_ids: list[int], metric: str, *,
                  tables: dict[int, metrics.RunTable] | None = None
                  ) -> tuple[list[str], list[RunSeries]]:
    """(difficulty levels in order, per run the metric's value per level on 0..100)."""
    return by_difficulty_all(store, run_ids, tables=tables).get(metric, ([], []))


def by_difficulty_all(store: Store, run_ids: list[int], *,
                      tables: dict[int, metrics.RunTable] | None = None
                      ) -> dict[str, tuple[list[str], list[RunSeries]]]:
    """:func:`by_difficulty` of every code of :data:`CODES`, from one breakdown of each run
    (the breakdown computes every metric at once: 75 ms of CPU at 1M scores, each time)."""
    labels = _labels(store, run_ids)
    levels: dict[str, list[str]] = {code: [] for code in CODES}
    series: dict[str, list[RunSeries]] = {code: [] for code in CODES}
    for run_id, label in labels.items():
        # the bars show values only, which do not depend on the bootstrap: none drawn
        groups = metrics.breakdown(store, run_id, by="difficulty", n_boot=0,
                                   table=tables.get(run_id) if tables else None)
        for code in CODES:
            points = {str(g): _point(code, values[code])
                      for g, values in groups.items() if code in values}
            levels[code] += [g for g in points if g not in levels[code]]
            series[code].append(RunSeries(run_id, label, points))
    if not labels:
        return {}
    return {code: (metrics.group_order(levels[code], "difficulty"), series[code])
            for code in CODES}


def label(code: str) -> str:
    return METRIC_LABELS.get(code, code)
