"""Readings of a solution's links the structure and units decide (issue 26, point 1), see
:mod:`qcstation.core.construct.make.rules.link_structure`: a number the question cannot state is
an earlier result; a step never divides a result by itself; the subtracted terms of a chain are
one multiset; a line that writes the question's word ("twice") uses that word given; a result in
minutes divided into hours divides by the hour's minutes; a step that divides by a stated rate
("4 cups per hour") divides the result that counts cups; a line whose subject is one of the
question's names ("Trevor ate 12/4") uses the number whose words name that one; a unit factor the
line states as a fact ("12 months in a year") is that constant. Where these leave
two readings, the seed stays refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


@pytest.mark.parametrize(("seed", "lines"), [
    # "12 inches / 12 inches/foot = 1 foot" after "6 inches/remora * 2 remoras = 12 inches": the
    # inches are step 1, the divisor the inches in a foot (not step 1 twice, nor the other way)
    ("474", ["(assert (= s2_foot (/ s1_inches k_inches_per_foot)))"]),
    # "50 total students - 10 baking - 5 basketball - 10 music": the bakers and step 1's music
    # fans, in either order one formalization
    ("741", ["(assert (= s2_basketball_music (- g2_students g3_like g1_like s1_like_basketball)))"]),
    # "$200 - $50 - $50" after "5 * $10 = $50 on pencils": the gas (the question's second 50)
    # and the pencils
    ("939", ["(assert (= s4_pens (- s2 g6_dollars s3_pencils)))"]),
    # "60 minutes is in an hour so 300/60 = 5 hours": the 300 minutes over the hour's minutes,
    # not over the 60-minute break of step 2
    ("1101", ["(assert (= s4_hours_break (/ s3_minutes_break k_minutes_per_hour)))",
              "(assert (= s3_minutes_break (* s2_minute_break g4_days)))"]),
    # "She sells an average of 4 cups per hour": "36 / 4 = 9 hours" divides the 36 cups of step 1,
    # not the $36 of step 2; "$36 - $18" is the $36 (no 36 is stated: an earlier result)
    ("384", ["(assert (= s4_hours_work (/ s1_cups_lemonade g5_cups)))",
             "(assert (= s3_selling_lemonade (- s2_lemonade g4_enough)))"]),
    # "Trevor ate 12/4" is the question's "Trevor ate a quarter", not "Cody ate 12/3 = 4"
    ("566", ["(assert (= s2_sandwiches (/ g1_sandwiches w_a_quarter_parts)))",
             "(assert (= s3_sandwiches (+ s1_sandwiches s2_sandwiches)))"]),
    # "since there are 12 months in a year that means he buys 12*2": the year's months, not the
    # "1*12 = 12 games" of step 1, which the total "12+24+48+15" adds
    ("602", ["(assert (= s2_games (* g2_games k_months_per_year)))",
             "(assert (= s5_games (+ s1_games s2_games s3_games s4_games)))"]),
    # "4 * 25 cents = 100 cents. Since 100 cents = $1": a result written in dollars converts the
    # 100 cents of step 1 by the cents in a dollar (not the cents' factor over step 1)
    ("359", ["(assert (= s2_since (/ s1_cents k_cents_per_dollar)))",
             "(assert (= s3_savings_everyday (- g3_pocket s2_since)))"]),
])
def test_the_structure_decides_a_reading(gsm8k: dict, seed: str, lines: list[str]) -> None:
    got = _asserts(gsm8k[seed])
    for line in lines:
        assert line in got


@pytest.mark.parametrize(("seed", "why"), [
    # 1311 ("twice as fast ... twice as far") is made since the lines that write "twice" are its two
    # uses and "16 / 2" the 2 miles (test_reading_multiplier_words)
    # "Charlie got 25 x 3/5" (the remaining 25) and "gave away 25 + 15" (Brandon's 25): no word
    # of the lines tells the two 25s apart
    ("774", "ambiguous solution"),
    # "24/24 = 1 box": the smores a box makes over those eaten, or the other way round
    ("732", "ambiguous solution"),
    # "So one carrot costs $2 / $2 = $1": a price's dividend is money, its divisor counts (lane
    # cover39: the $2 the carrots cost over the question's "two carrots"); the given-role check
    # refuses the line that writes the two carrots as "$2"
    ("893", "given-role"),
    # (1030 "44-10-6+6" is made since lane cover39: the "6 fewer yellow balloons" is taken away,
    # test_reading_signed_terms)
    # "he earned $40 x 2 = $80 for the two devices he bought last Monday": Monday names the
    # devices after the computation, not whose $40 it is (the resale price, not Monday's cost)
    ("1157", "ambiguous solution"),
    # "His total number of stories ... 80+40": no name says whose 40 (Braylen's or Alani's)
    ("285", "ambiguous solution"),
])
def test_what_the_structure_leaves_open_stays_refused(gsm8k: dict, seed: str, why: str) -> None:
    with pytest.raises(RuleError, match=why):
        rule_for_seed(gsm8k[seed])
