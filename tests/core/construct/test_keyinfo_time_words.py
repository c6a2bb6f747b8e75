"""A known quantity is a whole clause: "by then" is a time said of its clause ("The island had
four times as many holes by then as it did at the end of the first day", GSM8K 961), not a
"then" that starts a clause of its own. Cut there, the known quantity read "The island had four
times as many holes by" (as many as what?) and the rest was lost (issue 26, lead's reading rng
20261216)."""

from __future__ import annotations

from qcstation.core.construct.make.keyinfo_draft import _clauses, keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed


def test_by_then_keeps_its_clause_whole(gsm8k: dict) -> None:
    seed = gsm8k["961"]
    rule = rule_for_seed(seed)
    fields = keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)
    assert ("The island had four times as many holes by then as it did at the end of the first day"
            in fields["known_quantities"])
    assert not [k for k in fields["known_quantities"] if k.endswith(" by")]


def test_a_then_that_starts_a_clause_still_cuts() -> None:
    assert _clauses("She sold 5 apples then bought 3 more.") == ["She sold 5 apples", "then bought 3 more."]
    assert _clauses("Until then he had 4 cats, since then he has 6.")[0] == "Until then he had 4 cats"
