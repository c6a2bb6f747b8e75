"""A given bound to a rank ("the 2nd competitor") while the step's line writes the same value as a
quantity the question states elsewhere ("twice", "2 years"): refused (issue 26.1/26.2, lane covA).
A rank that is the step's own count ("finished his 4th mile" / "20 minutes to run 4 miles") stays."""

from __future__ import annotations

import pytest

from qcstation.core.construct.check.ordinals import rank_problems
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def test_a_rank_in_the_place_of_a_word_the_line_writes_is_refused() -> None:
    # the 2 of "2*12" is "twice" (the line writes it), not the rank of "the 2nd competitor"
    seed = _seed("In a contest, the 1st competitor ate 12 hot dogs. The 2nd competitor ate twice that amount. "
                 "How many hot dogs did the 2nd competitor eat?",
                 "The 2nd competitor ate twice the 1st competitor's 12 hot dogs, so he ate 2*12=<<2*12=24>>24 hot dogs.",
                 "24")
    # (was made with "(* g1_competitor g2_hot)", g1_competitor the rank's digit)
    with pytest.raises(RuleError, match="bound to the rank '2nd', but the question also states 2 as 'twice'"):
        rule_for_seed(seed)


def test_the_check_reads_the_places_and_the_lines() -> None:
    q = ("the 1st fastest dog is 10 years old, the 2nd fastest dog is 2 years younger than the first. "
         "How old is the 2nd fastest dog?")
    rank = {"name": "g2_fastest", "value": "2", "span": [q.index("2nd"), q.index("2nd") + 1]}
    line = "the 2nd fastest dog is 2 years younger than the first fastest dog, so 10-2=<<10-2=8>>8 years old."
    found = rank_problems([rank], {"g2_fastest": line}, q)
    assert len(found) == 1 and "'2 years" in found[0]
    # a line that writes no other form of the value: the rank may be what the step counts
    assert rank_problems([rank], {"g2_fastest": "the dog is 10-2=<<10-2=8>>8 years old"}, q) == []
    # the given bound to the plain 2, not to the rank: nothing said
    plain = {**rank, "span": [q.index("2 years"), q.index("2 years") + 1]}
    assert rank_problems([plain], {"g2_fastest": line}, q) == []


def test_a_rank_that_is_the_count_stays_made() -> None:
    seed = _seed("Colin ran his first mile in 6 minutes. He ran his next two miles in 5 minutes each and finished "
                 "his 4th mile in 4 minutes. What was the average time it took him to run a mile?",
                 "It took him 6+5+5+4 = <<6+5+5+4=20>>20 minutes\n"
                 "It took 20 minutes to run 4 miles so his average time was 20/4 = <<20/4=5>>5 minutes per mile",
                 "5")
    rule = rule_for_seed(seed)
    assert rule.value == 5


@pytest.mark.parametrize("bad", ["2 years", "twice"])
def test_the_refusal_names_the_other_form(bad: str) -> None:
    q = f"Tom is the 2nd child. He has {bad} the toys of Ann, who has 3. How many toys does Tom have?" \
        if bad == "twice" else "Tom is the 2nd child and he is 2 years older than Ann, who is 3. How old is Tom?"
    rank = {"name": "g1_child", "value": "2", "span": [q.index("2nd"), q.index("2nd") + 1]}
    line = f"Tom has {bad} as many, 3*2=<<3*2=6>>6" if bad == "twice" else "Tom is 2 years older, 3+2=<<3+2=5>>5"
    assert rank_problems([rank], {"g1_child": line}, q)
