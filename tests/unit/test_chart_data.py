"""Numbers behind the terminal charts, on a real database with hand-known verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Store
from qcstation.eval import charts
from tests.eval_rows import LEVELS, add_run


def test_dimension_scores_and_all_pass(tmp_path: Path) -> None:
    # items 0..11: Reasoning wrong on odd items, everything else right (un judged 95)
    with Store(tmp_path / "c.db") as store:
        run = add_run(store, "m", range(12),
                      verdict=lambda i, m, s: "wrong" if (m == "re" and i % 2) else "correct")
        other = add_run(store, "n", range(12), verdict=lambda i, m, s: "wrong")
        data = charts.dimension_scores(store, [run, other], n_boot=200)
        levels, by_level = charts.by_difficulty(store, [run], "re")
    series = {r.run_id: r for r in data.runs}
    assert series[run].label == f"#{run} m"
    points = series[run].points
    assert points["re"].value == pytest.approx(50.0)
    assert points["fi"].value == pytest.approx(100.0)
    assert points["un"].value == pytest.approx(95.0)          # the judges' mean, 0..100 already
    assert points["all"].value == pytest.approx(50.0)         # even items pass everything
    assert series[other].points["all"].value == pytest.approx(0.0)
    assert series[other].points["un"].value == pytest.approx(40.0)
    if data.intervals:
        assert points["re"].lo is not None and points["re"].lo <= 50.0 <= points["re"].hi
    else:
        assert points["re"].lo is None and data.source == "stored scores"
    # difficulty of item i is LEVELS[i % 3]: odd items fail Re
    assert levels == list(LEVELS)
    expected = {lv: 100.0 * sum(1 for i in range(12) if LEVELS[i % 3] == lv and i % 2 == 0)
                / sum(1 for i in range(12) if LEVELS[i % 3] == lv) for lv in LEVELS}
    [only] = by_level
    assert {lv: p.value for lv, p in only.points.items()} == pytest.approx(expected)


def test_no_runs_no_points(tmp_path: Path) -> None:
    with Store(tmp_path / "e.db") as store:
        assert charts.dimension_scores(store, []).runs == []
        assert charts.by_difficulty(store, [], "fi") == ([], [])


def test_intervals_come_from_the_metrics_module_when_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``qcstation.eval.metrics`` (the contract in qcstation/eval/__init__.py) the
    chart takes its values and bootstrap intervals, scaled to 0..100 (LLM@Un already is)."""
    import sys
    import types
    from dataclasses import dataclass, field

    @dataclass
    class MetricValue:
        value: float | None
        lo: float | None
        hi: float | None
        n: int
        counts: dict[str, int] = field(default_factory=dict)

    @dataclass
    class RunMetrics:
        run_id: int
        label: str
        values: dict[str, MetricValue]

    calls: list[tuple[str, object]] = []

    def leaderboard(store, run_ids, *, n_boot=1000, seed=0):  # type: ignore[no-untyped-def]
        calls.append(("leaderboard", (tuple(run_ids), n_boot, seed)))
        return [RunMetrics(r, "ignored", {"re": MetricValue(0.5, 0.25, 0.75, 12),
                                          "un": MetricValue(80.0, 70.0, 88.0, 12),
                                          "all": MetricValue(None, None, None, 0),
                                          "rm_given_rt": MetricValue(1.0, 1.0, 1.0, 3)})
                for r in run_ids]

    def breakdown(store, run_id, by="source", **kw):  # type: ignore[no-untyped-def]
        calls.append(("breakdown", (run_id, by)))
        return {"hard": {"fi": MetricValue(0.1, 0.0, 0.3, 4)},
                "easy": {"fi": MetricValue(0.9, 0.7, 1.0, 4)}}

    fake = types.ModuleType("qcstation.eval.metrics")
    fake.leaderboard = leaderboard  # type: ignore[attr-defined]
    fake.breakdown = breakdown  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "qcstation.eval.metrics", fake)
    import qcstation.eval as ev
    monkeypatch.setattr(ev, "metrics", fake, raising=False)
    with Store(tmp_path / "m.db") as store:
        run = add_run(store, "m", range(3))
        data = charts.dimension_scores(store, [run], n_boot=300)
        levels, by_level = charts.by_difficulty(store, [run], "fi")
    assert data.intervals and data.source == "metrics"
    [series] = data.runs
    assert series.label == f"#{run} m"                  # our label, with the run number
    assert (series.points["re"].value, series.points["re"].lo, series.points["re"].hi) == \
        (50.0, 25.0, 75.0)
    assert (series.points["un"].value, series.points["un"].hi) == (80.0, 88.0)
    assert series.points["all"].value is None           # not scored stays not scored
    assert "rm_given_rt" not in series.points
    assert levels == ["easy", "hard"]
    assert by_level[0].points["hard"].value == pytest.approx(10.0)
    assert ("leaderboard", ((run,), 300, 0)) in calls and ("breakdown", (run, "difficulty")) in calls
