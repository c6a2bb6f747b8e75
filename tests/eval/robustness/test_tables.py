"""The diagnosis tables as the report and the screen write them
(qcstation/eval/robustness/tables.py)."""

from __future__ import annotations

from qcstation.eval.robustness.diagnose import Diagnosis
from qcstation.eval.robustness.tables import tables


def test_step_fidelity_columns_name_one_step_and_several_steps() -> None:
    dg = Diagnosis(run_id=1, title="t", release="r@1", base_run=None, samples=1, n_items=3,
                   transforms={}, fidelity={"right": [(1, 0.5, 2), (3, 1.0, 1)],
                                            "wrong": [(1, 0.0, 4)]})
    (fidelity,) = [t for t in tables(dg) if t.key == "fidelity"]
    assert fidelity.headers == ["", "1 step", "3 steps"]
    assert [row[0] for row in fidelity.rows] == ["final answer right", "final answer wrong"]
    assert fidelity.rows[1][2] == "-"                 # no wrong answer with 3 steps
