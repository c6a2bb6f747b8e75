"""A value the question states only as a word ("twice") that an earlier step also computed (see
:mod:`qcstation.core.construct.make.rules.multiplier_words`): the uses whose lines write the word
are the word, as many as the question writes it; the use whose line writes none is the earlier
result. Where the lines do not account for every "twice" of the question, the words decide
nothing and the seed stays refused. And a number the line writes both in prose ("3 days on the
low setting", "1 less than 3 scoops") and as an operand ("3*1", "3-1") is read by its prose words
(:func:`qcstation.core.construct.make.rules.clause_words.phrase_place` for the question's places,
:func:`~qcstation.core.construct.make.rules.clause_words.restated_before` for a given against an
earlier result); the wrong reading of 1141 stays refused by the check (test_unheld)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def test_the_line_without_twice_uses_the_earlier_result(gsm8k: dict) -> None:
    # 1311: "twice as fast" and "twice as far"; "Aaron ran 4 / 2 = 2 miles" (twice as far), "he ran
    # each mile in 16 / 2" (the 2 miles), "Vanessa takes twice as long ... 8 * 2" (twice as fast)
    seed = gsm8k["1311"]
    got = _asserts(seed)
    for line in ("(assert (= s1_miles (/ g1_miles w_twice_at2)))",
                 "(assert (= s2_minutes (/ g2_minutes s1_miles)))",
                 "(assert (= s3_minutes_mile (* s2_minutes w_twice)))",
                 "(assert (= s4_minutes_complete (* g1_miles s3_minutes_mile)))"):
        assert line in got
    q = seed["question"]
    spans = {g["name"]: g["span"] for g in rule_for_seed(seed).givens}
    assert q[spans["w_twice"][0]:].startswith("twice as fast")
    assert q[spans["w_twice_at2"][0]:].startswith("twice as far")
    assert rule_for_seed(seed).value == 64


def test_a_line_that_does_not_write_the_word_leaves_it_refused(gsm8k: dict) -> None:
    # the third line no longer says "twice": one "twice" of the question is accounted for by no
    # line, so which 2 is the earlier result the lines do not say
    seed = dict(gsm8k["1311"])
    seed["solution"] = seed["solution"].replace("Vanessa takes twice as long to run a mile",
                                                "Vanessa takes longer to run a mile")
    assert "Vanessa takes longer" in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_more_lines_with_the_word_than_the_question_writes_stay_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["1311"])
    seed["solution"] = seed["solution"].replace("so he ran each mile in 16 / 2",
                                                "so he ran each mile twice as fast in 16 / 2")
    assert "twice as fast in 16 / 2" in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_each_twice_and_each_setting_read_by_the_words(gsm8k: dict) -> None:
    # 1210: "twice as much ... as the low setting", "twice as much ... as the medium setting";
    # "3 days on the low setting removes 3*1", "3 days on the medium setting removes 3*2"
    seed = gsm8k["1210"]
    got = _asserts(seed)
    for line in ("(assert (= s1_liters_water (* w_twice g1_liter)))",
                 "(assert (= s2_liters_water (* w_twice_at2 s1_liters_water)))",
                 "(assert (= s3_liters_water (* g2_days g1_liter)))",
                 "(assert (= s4_liters_water (* g3_days s1_liters_water)))",
                 "(assert (= s5_liters_water (* g4_days s2_liters_water)))"):
        assert line in got
    q = seed["question"]
    spans = {g["name"]: g["span"] for g in rule_for_seed(seed).givens}
    assert q[spans["g2_days"][0]:].startswith("3 days on the low setting")
    assert q[spans["g3_days"][0]:].startswith("3 days on the medium setting")
    assert rule_for_seed(seed).value == 29


def test_days_the_line_does_not_name_by_setting_stay_refused(gsm8k: dict) -> None:
    # without the settings' words, which "3 days" each line means is only their order
    seed = dict(gsm8k["1210"])
    seed["solution"] = (seed["solution"].replace("3 days on the low setting removes", "3 days removes")
                        .replace("3 days on the medium setting removes", "3 days removes"))
    assert seed["solution"].count("3 days removes") == 2
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_number_restated_before_its_computation_is_read_by_its_clause(gsm8k: dict) -> None:
    # 1141: "1 less than 3 scoops of mashed potatoes is 3-1 = 2 scoops" writes the question's clause
    # of its 3 ("1 less than 3 scoops"), not the line of "6-3 = 3 potatoes"; the 3 of "18*(3/2)"
    # ("it takes 3 potatoes") is that earlier result, and each of the question's 3s has one role
    seed = gsm8k["1141"]
    got = _asserts(seed)
    for line in ("(assert (= s2_potatoes (- g3_potatoes g4)))",
                 "(assert (= s3_scoops_mashed (- g5_scoops g6)))",
                 "(assert (= s4_potatoes (* s1_scoops_mashed (/ s2_potatoes s3_scoops_mashed))))"):
        assert line in got
    q = seed["question"]
    spans = {g["name"]: g["span"] for g in rule_for_seed(seed).givens}
    assert q[spans["g4"][0]:].startswith("3 less than 6")
    assert q[spans["g5_scoops"][0]:].startswith("3 scoops")
    assert rule_for_seed(seed).value == 27


def test_a_mention_after_the_computation_is_no_restatement() -> None:
    from fractions import Fraction

    from qcstation.core.construct.make.rules.clause_words import restated_before

    assert restated_before("Jason did his laundry 1 time at $3.00 so he made 1*3 = $<<1*3=3.00>>3.00", Fraction(3))
    # the trap of 309's variant: the 4 after the result names other things than the operand
    assert not restated_before("4 + 2 = $<<4+2=6>>6 for 2 tubs and 4 packets of milk", Fraction(4))
    # written twice in prose before it: which mention is the operand's, no reader can tell
    assert not restated_before("3 days and 3 nights, so 3*2 = <<3*2=6>>6", Fraction(3))


def test_eats_15_slices_restated_is_the_questions_15(gsm8k: dict) -> None:
    # 839: "After Adam eats 15 slices, there are 30-15": the question's "eats 15 slices", so
    # "15+15" is the large and the small apples' slices; the seed stays refused, for its 3s ("3
    # large" and "3 pieces" of a small apple, which "3*5" and "5*3" the words do not tell apart)
    seed = gsm8k["839"]
    with pytest.raises(RuleError, match="the question states 3 more than once"):
        rule_for_seed(seed)
