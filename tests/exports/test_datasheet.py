"""The release datasheet (exports/writers.py)."""

from __future__ import annotations


def test_the_datasheet_bound_never_rounds_a_pass_to_the_threshold() -> None:
    from exports.writers import _bound

    assert _bound(0.04995, 0.05) == "4.995%"
    assert _bound(0.2589, 0.5) == "25.89%"
    assert _bound(0.05, 0.05) == "5.00%"
