"""The release datasheet (exports/writers.py)."""

from __future__ import annotations


def test_the_datasheet_bound_never_rounds_a_pass_to_the_threshold() -> None:
    from exports.writers import defect_bound_text

    assert defect_bound_text(0.04995, 0.05) == "4.995%"
    assert defect_bound_text(0.2589, 0.5) == "25.89%"
    assert defect_bound_text(0.05, 0.05) == "5.00%"
