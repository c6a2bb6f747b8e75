"""Self-refine over every sample (issue 27.5): the weakest dimension and the gain read every
sample of an item, R&R lines a sample's reflection up with its own correction (under two
steps a wrong reflection has no correction), and a tie for weakest is refused with the tied
dimensions named. Scores written straight into a real SQLite file; figures by hand."""

from __future__ import annotations

import pytest

from db import Store
from qcstation.eval.robustness import refine as R
from qcstation.eval.runs import EvalError
from tests.eval_factory import add_item, make_run

TASKS = ("reasoning", "arithmetic", "refinement")


def _two_step_run(store: Store, model: str = "m", **spec: object) -> int:
    return make_run(store, model=model, tasks=TASKS, samples=2,
                    spec={"protocol": {"refinement": "two-step"}, **spec})


def test_weakest_reads_every_sample_and_lines_rt_up_with_rm(store: Store) -> None:
    run = _two_step_run(store)
    # item 1: sample 0 reflection wrong (no correction asked), sample 1 both right -> R&R 1/2
    #         (read by position, rm's only row would be paired with rt's wrong sample 0: 0)
    add_item(store, run, 1, samples=[{"re": "c", "ar": "c", "rt": "w", "rm": "n"},
                                     {"re": "w", "ar": "c", "rt": "c", "rm": "c"}])
    # item 2: Re right on the second sample only (the first sample alone would say 0)
    add_item(store, run, 2, samples=[{"re": "w", "ar": "w", "rt": "c", "rm": "c"},
                                     {"re": "c", "ar": "c", "rt": "c", "rm": "w"}])
    dims, accs = R.weakest_dimensions(store, run)
    # Re (1/2 + 1/2)/2 = 0.5; Ar (1 + 1/2)/2 = 0.75; R&R (1/2 + 1/2)/2 = 0.5 -> a tie
    assert accs == {"reasoning": 0.5, "arithmetic": 0.75, "refinement": 0.5}
    assert dims == ["reasoning", "refinement"]
    with pytest.raises(EvalError, match="tie: reasoning, refinement at 50.0%.*--refine-dimension"):
        R.weakest(store, run)


def test_the_gain_counts_every_sample(store: Store) -> None:
    before = _two_step_run(store)
    after = _two_step_run(store, refine={"from": before, "dimension": "arithmetic"})
    # Ar per item, (before, after): 1: 0/2 -> 2/2 (gained); 2: 2/2 -> 1/2 (lost);
    # 3: 1/2 -> 1/2 (the first samples alone say 0 -> 1: a gain that is not there)
    plan = {1: (("w", "w"), ("c", "c")), 2: (("c", "c"), ("c", "w")), 3: (("w", "c"), ("c", "w"))}
    for sid, (b, a) in plan.items():
        add_item(store, before, sid, samples=[{"ar": v, "rt": "c", "rm": "c"} for v in b])
        add_item(store, after, sid, samples=[{"ar": v, "rt": "c", "rm": "c"} for v in a])
    gain = R.refine_gain(store, after)
    ar = gain["ar"]
    assert ar.n == 3 and ar.before == pytest.approx((0 + 1 + 0.5) / 3)
    assert ar.after == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert (ar.gained, ar.lost) == (1, 1) and ar.p == 1.0
    # R-m as the leaderboard's: every sample's reflection is right, all right before and after
    assert (gain["rm"].before, gain["rm"].after, gain["rm"].n) == (1.0, 1.0, 3)
