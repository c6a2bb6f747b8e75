"""Bare 1s whose words say what they are (issue 26.1, lane covB): the base's one part of "N times
as many ... as" that a step adds to N, the whole of "1 - (2/3) = 1/3" written on a line before
the step that uses its result, the one "N other people" are other than, the one the question counts
in ("including the queen", "including himself"). Never a 1 the words do not tie."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def _terms(seed: dict[str, str]) -> list[str]:
    return [st.sexpr for st in rule_for_seed(seed).steps]


_RATIO_Q = ("A shelf holds 48 books in all, and there are 5 times as many novels as atlases on it. "
            "How many atlases are on the shelf?")


def test_the_one_added_to_a_ratio_is_the_base_share() -> None:
    seed = _seed(_RATIO_Q, "For every 5 novels there is 1 atlas, so a group has 5+1=<<5+1=6>>6 books.\n"
                           "There are 48/6=<<48/6=8>>8 groups of books.\n"
                           "So there are 8*1=<<8*1=8>>8 atlases.\n#### 8", "8")
    made = rule_for_seed(seed)
    assert made.value == 8
    terms = _terms(seed)
    assert terms[0] == "(+ g1_times k_one_share_of_atlases)"
    # one atlas a group: the same part, on a line that names the base
    assert terms[2] == "(* s2_groups_books k_one_share_of_atlases)"
    assert "k_one_share_of_atlases" in {f["name"] for f in made.factors or []}
    assert all(not g["name"].startswith("k_") for g in made.givens)  # no given of the question


def test_a_word_ratio_and_a_divisor_written_as_a_sum() -> None:
    q = "Ben and Ann picked 27 apples. Ben picked twice as many as Ann. How many apples did Ann pick?"
    made = rule_for_seed(_seed(q, "Ann picked 27 / (2+1) = <<27/(2+1)=9>>9 apples.\n#### 9", "9"))
    assert made.value == 9
    assert made.steps[0].sexpr == "(/ g1_apples (+ w_twice k_one_share_of_ann))"


def test_a_one_the_ratio_words_do_not_tie_stays_refused() -> None:
    # the line names neither the base nor the thing compared
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(_RATIO_Q, "That is 5+1=<<5+1=6>>6.\nThen 48/6=<<48/6=8>>8.\n#### 8", "8"))
    # two ratios: whose base the 1 is, no reader can tell
    q2 = _RATIO_Q.replace("on it.", "on it, and 2 times as many maps as atlases.")
    with pytest.raises(RuleError):
        rule_for_seed(_seed(q2, "For every 5 novels there is 1 atlas, so a group has 5+1=<<5+1=6>>6 books.\n"
                                "There are 48/6=<<48/6=8>>8 atlases.\n#### 8", "8"))
    # a 1 beside a number that is not the ratio's N
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(_RATIO_Q.replace("48 books", "48 books and 7 maps"),
                            "Novels and atlases: 7+1=<<7+1=8>>8 books.\n48/8=<<48/8=6>>6 atlases.\n#### 6", "6"))


def test_the_whole_less_a_fraction_written_before_its_use() -> None:
    q = "A tank holds 60 liters. 3/4 of it is full. How many liters are empty?"
    made = rule_for_seed(_seed(q, "1/4 of the tank is empty because 1 - (3/4) = 1/4\n"
                                  "So 60 x (1/4) = <<60*(1/4)=15>>15 liters are empty.\n#### 15", "15"))
    assert made.value == 15
    # the 1 is the whole tank the question's 3/4 is of; the 4 no given of its own
    assert [st.sexpr for st in made.steps] == ["(- 1 g1_full)", "(* g2_liters s1_empty_because)"]
    assert {g["value"] for g in made.givens} == {"3/4", "60"}


def test_the_one_n_others_are_other_than() -> None:
    # the one person the question names: "4 other people" / "4+1"
    q = ("Rosa buys the milk for her flat. There are 4 other people in the flat and everyone drinks 2 glasses "
         "a day. How many glasses do they drink a day?")
    made = rule_for_seed(_seed(q, "There are 4+1=<<4+1=5>>5 people in the flat.\n"
                                  "They drink 5*2=<<5*2=10>>10 glasses a day.\n#### 10", "10"))
    assert made.steps[0].sexpr == "(+ g1_people k_one_rosa)"
    # two named, "their 6 other friends": one constant each, in the line's order
    q2 = ("Omar baked 20 rolls and Lena baked 16 rolls. They shared the rolls evenly with their 7 other friends. "
          "How many rolls did each of them get?")
    made = rule_for_seed(_seed(q2, "They have 20+16=<<20+16=36>>36 rolls.\n"
                                   "There are 7 friends + 1 (Lena) + 1 (Omar) = <<7+1+1=9>>9 people.\n"
                                   "Each gets 36/9=<<36/9=4>>4 rolls.\n#### 4", "4"))
    assert made.steps[1].sexpr == "(+ g3_friends k_one_lena k_one_omar)"
    # "each <noun> ... N other <noun>s": that one
    q3 = ("Each camper shares a tent with 3 other campers. There are 6 tents. How many campers are there?")
    made = rule_for_seed(_seed(q3, "A tent holds 3 + 1 = <<3+1=4>>4 campers.\n"
                                   "There are 6 * 4 = <<6*4=24>>24 campers.\n#### 24", "24"))
    assert made.steps[0].sexpr == "(+ g1_campers k_one_camper)"


def test_an_other_with_no_one_the_words_name_stays_refused() -> None:
    # "each friend ... 2 other guests": who the 1 is, the words do not say
    q = "Each friend brings 2 other guests to the party. There are 5 friends. How many come?"
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(q, "A friend comes with 2 + 1 = <<2+1=3>>3 people.\n"
                               "So 5 * 3 = <<5*3=15>>15 people come.\n#### 15", "15"))
    # two people named, one 1 added: which of them, no reader can tell
    q2 = "Omar and Lena invite 7 other friends. How many people are there?"
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(q2, "There are 7 + 1 = <<7+1=8>>8 people.\n#### 8", "8"))


def test_the_one_the_question_counts_in() -> None:
    q = ("A colony gains 500 ants and loses 120 ants. It had 3000 ants at first. How many ants are in the colony, "
         "including the queen?")
    made = rule_for_seed(_seed(q, "It has 3000+500-120=<<3000+500-120=3380>>3380 ants.\n"
                                  "Including the queen there are 3380+1=<<3380+1=3381>>3381.\n#### 3381", "3381"))
    assert made.steps[-1].sexpr.endswith("k_one_the_queen)")
    q2 = ("Tariq is having a picnic and is inviting 9 guests. He wants everyone, including himself, to have 3 "
          "sandwiches. How many sandwiches does he need?")
    made = rule_for_seed(_seed(q2, "Including Tariq, there will be 9 + 1 = <<9+1=10>>10 people.\n"
                                   "He needs 10 x 3 = <<10*3=30>>30 sandwiches.\n#### 30", "30"))
    assert made.steps[0].sexpr == "(+ g1_guests k_one_tariq)"


def test_a_ratio_written_with_than_or_of_a_length() -> None:
    q = "In a choir there are three times as many girls than boys. There are 24 singers. How many boys are there?"
    made = rule_for_seed(_seed(q, "Girls and boys make 3+1=<<3+1=4>>4 parts.\nThere are 24/4=<<24/4=6>>6 boys.\n#### 6",
                               "6"))
    assert made.value == 6
    assert made.steps[-1].sexpr == "(/ g1_singers (+ g2_times k_one_share_of_boys))"
    q2 = ("A 40 m rope is cut into two pieces. The long piece is 4 times as long as the short piece. "
          "How long is the short piece?")
    made = rule_for_seed(_seed(q2, "The short piece is 40/(4+1) = <<40/(4+1)=8>>8 m long.\n#### 8", "8"))
    assert made.value == 8
    assert made.steps[0].sexpr.endswith("(+ g2_times k_one_share_of_short))")


def test_one_the_line_writes_after_its_1_that_the_question_counts_in() -> None:
    q = ("Rosa baked 84 cookies for her son's party. If his 11 classmates shared the cookies equally among them, "
         "including the son, how many cookies did each classmate get?")
    made = rule_for_seed(_seed(q, "There are 11 classmates + 1 son = <<11+1=12>>12 children.\n"
                                  "Each gets 84/12=<<84/12=7>>7 cookies.\n#### 7", "7"))
    assert made.steps[0].sexpr == "(+ g1_classmates k_one_the_son)"
    # a noun the question does not count in ("including the son") stays refused
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(q.replace(", including the son,", ""), "There are 11 classmates + 1 son = <<11+1=12>>12 "
                            "children.\nEach gets 84/12=<<84/12=7>>7 cookies.\n#### 7", "7"))
