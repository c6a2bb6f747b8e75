"""Numbers behind the terminal charts, on a real database with hand-known verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Store
from qcstation.eval import charts
from tests.eval_rows import LEVELS, add_run
from tests.must import must


def test_dimension_scores_and_all_pass(tmp_path: Path) -> None:
    # items 0..11: Reasoning wrong on odd items, everything else right (un judged 95)
    with Store(tmp_path / "c.db") as store:
        run = add_run(store, "m", range(12),
                      verdict=lambda i, m, s: "wrong" if (m == "re" and i % 2) else "correct")
        other = add_run(store, "n", range(12), verdict=lambda i, m, s: "wrong")
        data = charts.dimension_scores(store, [run, other], n_boot=200)
        levels, by_level = charts.by_difficulty(store, [run], "re")
    series = {r.run_id: r for r in data.runs}
    # the legend names the model, the release and the protocol each run measured
    assert series[run].label.startswith(f"#{run} m · smart@") and "-shot" in series[run].label
    points = series[run].points
    assert points["re"].value == pytest.approx(50.0)
    assert points["fi"].value == pytest.approx(100.0)
    assert points["un"].value == pytest.approx(95.0)          # the judges' mean, 0..100 already
    assert points["all"].value == pytest.approx(50.0)         # even items pass everything
    assert series[other].points["all"].value == pytest.approx(0.0)
    assert series[other].points["un"].value == pytest.approx(40.0)
    # bootstrap interval from the metrics module, on the same 0..100 scale
    assert 0.0 <= must(points["re"].lo) < 50.0 < must(points["re"].hi) <= 100.0
    assert must(points["un"].lo) <= 95.0 <= must(points["un"].hi)
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


def test_every_metrics_difficulty_bars_from_one_pass(tmp_path: Path) -> None:
    """by_difficulty_all: each metric's bars are the breakdown's values of that metric per
    level, for every run (what the charts screen keeps, so `t` and `m` only draw)."""
    from qcstation.eval import metrics

    with Store(tmp_path / "c.db") as store:
        runs = [add_run(store, "m", range(12),
                        verdict=lambda i, m, s: "wrong" if (m == "re" and i % 2) else "correct"),
                add_run(store, "n", range(12),
                        verdict=lambda i, m, s: "wrong" if i % 3 == 1 else "correct")]
        every = charts.by_difficulty_all(store, runs)
        assert set(every) == set(charts.CODES)
        for code in charts.CODES:
            levels, series = every[code]
            assert levels == list(LEVELS) and [r.run_id for r in series] == runs
            for run in series:
                groups = metrics.breakdown(store, run.run_id, by="difficulty", n_boot=0)
                want = {lv: charts._scale(code, groups[lv][code].value) for lv in LEVELS}
                assert {lv: p.value for lv, p in run.points.items()} == want, (code, run)
        re_levels, [m_run, n_run] = every["re"]
        assert m_run.points["easy"].value == pytest.approx(50.0)   # odd items fail Re
        assert charts.by_difficulty_all(store, []) == {}
