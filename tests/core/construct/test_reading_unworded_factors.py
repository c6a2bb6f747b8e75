"""A common factor the question does not state, equal to an earlier result (issue 26, point 1):
where neither the question nor the line writes a word that gives the factor a meaning of its own
(a half, a dozen, minutes, a share; a day's 24 only beside hours), the written number is that earlier result
(:func:`qcstation.core.construct.make.rules.links._decide_unworded_factors`). Where such a word is
written, both readings keep their support and the seed stays refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _steps(seed: dict) -> dict[str, str]:
    rule = rule_for_seed(seed)
    return {st.name.split("_")[0]: st.sexpr for st in rule.steps}


def test_a_factor_no_word_names_is_the_earlier_result(gsm8k: dict) -> None:
    # 331 "$1 off ... for every $20 ... spent $80 ... twice the amount of rewards":
    # "80 / 20 = $4 in rewards", "4 * 2", "43 - 4 - 8": both 4s are the rewards
    steps = _steps(gsm8k["331"])
    assert "s1_rewards" in steps["s2"] and "s1_rewards" in steps["s3"]
    assert " 4" not in steps["s2"] + steps["s3"]
    # 722 "5-2=3 minutes ... 3*300 ... 3*250": the minutes without arms raised, not a factor 3
    steps = _steps(gsm8k["722"])
    assert "s1_" in steps["s2"] and "s1_" in steps["s3"]
    # 1198 "$600/10 = $60 each ... .5*60 ... $60+$30": the scotch's price, not an hour's 60
    steps = _steps(gsm8k["1198"])
    assert "s1_scotch" in steps["s3"] and "s1_scotch" in steps["s4"]
    # 67 "2 teams * 1 coach per team = <<2*1=2>>2 coaches": the line writes its own result 2
    # after the annotation; its term 2 is written once, the teams of step 1
    steps = _steps(gsm8k["67"])
    assert "s1_teams" in steps["s2"] and "s1_teams" in steps["s3"]
    # 1173 "Each day after that through Friday ... double": "24 x 2 = 48 puffs of clouds" is
    # Thursday's 12 x 2 = 24 puffs; a day's 24 hours needs hours, which neither text writes
    # (the question's "each day" and the line's "the day before" name no hours)
    steps = _steps(gsm8k["1173"])
    assert steps["s4"] == "(* s3_puffs_clouds w_double)"
    assert "s3_puffs_clouds" in steps["s5"] and " 24" not in steps["s5"]
    # 773 "7 + 5 = 12 hours ... 12 - 3 = 9 ... 6 / 12 = .5": both 12s are step 1's hours (a 12
    # means hours only beside a clock or half a day); "6 / 12 =" writes its 12 once, a division,
    # not the fraction 1/2
    steps = _steps(gsm8k["773"])
    assert steps["s2"] == "(- s1_activities_because g3_hours)"
    assert steps["s5"] == "(/ s4_soccer_because s1_activities_because)"


def test_a_factor_only_the_question_names_is_the_earlier_result(gsm8k: dict) -> None:
    # 46 "Last week, she wrote 5 articles on Monday and 2/5 times more articles on Tuesday ... On
    # Wednesday, she wrote twice the number of articles she wrote on Tuesday": the question's
    # "week" gives a 7 its days, but neither "so it was 2*7" nor "Over the three days, she wrote
    # 5+7 +14" writes a week (a weekday is no week): both 7s are Tuesday's 5 + 2 articles
    steps = _steps(gsm8k["46"])
    assert steps["s3"] == "(* w_twice s2_wrote_tuesday)"
    assert steps["s4"] == "(+ g2_articles s2_wrote_tuesday s3_articles)"


def test_a_factor_the_line_names_stays_open(gsm8k: dict) -> None:
    # the same seed whose Wednesday line says "a week": the 7 may be its days
    seed = dict(gsm8k["46"])
    seed["solution"] = seed["solution"].replace("so it was 2*7", "so that week it was 2*7")
    assert "that week it was 2*7" in seed["solution"]
    with pytest.raises(RuleError, match="ambiguous solution"):
        rule_for_seed(seed)


def test_a_factor_the_question_states_as_a_word_stays_the_word(gsm8k: dict) -> None:
    # 566 "Trevor ate a quarter of the sandwiches" / "Cody ate 12/3=4 ... Trevor ate 12/4": the
    # line names no quarter, but the question states 4 as that word: it is the quarter's parts,
    # never Cody's 4 sandwiches
    steps = _steps(gsm8k["566"])
    assert steps["s2"] == "(/ g1_sandwiches w_a_quarter_parts)"


@pytest.mark.parametrize("seed_id", [
    # (566 "Trevor ate 12/4": the names now decide it is Trevor's quarter, see test_reading_link_structure.py)
    # (773 "7 hours on Saturday ... 12 - 3", "6 / 12": a 12 of hours only beside a clock or half a
    # day; both 12s are step 1's 7 + 5 hours since lane cover18, test below)
    "862",   # "1 badge every month ... over 1 year": a 12 may be the months of a year
])
def test_a_factor_the_words_name_stays_open(gsm8k: dict, seed_id: str) -> None:
    with pytest.raises(RuleError, match="ambiguous solution"):
        rule_for_seed(gsm8k[seed_id])


def test_the_line_that_writes_one_noun_decides(gsm8k: dict) -> None:
    # 77 "1 cup ... every day for the first 180 days": "180 * 1 = <<180*1=180>>180 cups";
    # "days left in the year is 365 - 180" writes "days" (the question's 180 days), not "cups";
    # "the total number of cups ... 180 + 370" writes "cups", not "days": the result
    steps = _steps(gsm8k["77"])
    assert "g1_days" in steps["s2"] and "s1_cups" not in steps["s2"]
    assert "s1_cups" in steps["s4"] and "g1_days" not in steps["s4"]


def test_a_common_factor_is_left_to_its_constant(gsm8k: dict) -> None:
    # 257 "100 pennies": "500/100" writes "cents", the result's noun, but its 100 is the cents in
    # a dollar; a common factor is never decided by the nouns: the constant the line names, never
    # the question's "100 pennies" (the seed was refused until a penny's 1 cent was read, cover31)
    steps = _steps(gsm8k["257"])
    assert steps["s5"] == "(/ s4_cents k_cents_per_dollar)"
