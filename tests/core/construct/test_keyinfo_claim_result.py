"""Understanding refusals the words decide (issue 26.1, lane cov26u), on held-out GSM8K train
seeds of the tuning sample (their text as written):

* a line that states its claim and then justifies it ("They ate three slices of cheese each because
  9 / 3 = <<9/3=3>>3") writes the step's result in the claim even where an operand of the step has
  the same value, unless the claim's number carries the words the question states that value with
  ("5 vampires" for the question's "$5 per vampire": the operand's words; refused as before);
* "a third bidder" after ", and" is the third person, no half of a mixed number cut at its "and"
  ("three and a half boxes" is; that refusal needs a number right before the "and")."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError, validate_keyinfo
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed

PIZZAS = {
    "question": "Phoebe has two pizzas to share with her and three friends. One has pepperoni and the other has "
                "cheese. They both have 16 slices. They all eat the same amount. One friend eats only pepperoni, "
                "while the rest have an equal number of slices of each. At the end, there is one slice of "
                "pepperoni left and 7 slices of cheese, how many slices does each person eat?",
    "solution": "They are 9 slices of cheese because 16 - 7 = <<16-7=9>>9\nThey ate three slices of cheese each "
                "because 9 / 3 = <<9/3=3>>3\nThey are 6 slices each in total because 3 x 2 = <<3*2=6>>6",
    "answer_text": "6", "source": "gsm8k"}
VAMPIRES = {
    "question": "Van Helsing gets paid by the town to remove all the vampires and werewolves. He gets $5 per "
                "vampire and $10 per werewolf. He removes half the vampires and removes 8 werewolves, and earned "
                "$105. There were 4 times as many werewolves as vampires. What percentage of the werewolves did "
                "he remove?",
    "solution": "He earns $80 from werewolf removal because 8 x 10 = <<8*10=80>>80\nHe earned $25 from vampire "
                "removal because 105 - 80 = <<105-80=25>>25\nHe removed 5 vampires from town because 25 / 5 = "
                "<<25/5=5>>5\nThere were 10 vampires because 5 / .5 = 10\nThere were 40 werewolves because 4 x 10 "
                "= <<4*10=40>>40\nThe proportion of werewolves that he removed was .2 because 8 / 40 = "
                "<<8/40=.2>>.2\nThe percentage of werewolves removed was 20% because 100 x .2 = <<100*.2=20>>20",
    "answer_text": "20", "source": "gsm8k"}
AUCTION = {
    "question": "Harry participates in the auction of a classic painting. The auction starts at $300, Harry is the "
                "first to bid, adding $200 to the starting value, a second bidder doubles the bid, and a third "
                "bidder adds three times Harry's bid. Finally, Harry bids $4,000. By how much did Harry's final "
                "bid exceed that of the third bidder?",
    "solution": "Adding Harry's $200 to the initial value, the bid is at 300 + 200 = $<<300+200=500>>500.\nThe "
                "second bidder doubles the previous value, reaching a value of 500 * 2 = $<<500*2=1000>>1000.\nThe "
                "third bidder adds three times the value of Harry's, then adds 500 * 3 = $<<3*500=1500>>1500\n"
                "Adding the $1500 to the value of the second bid, the bid is at 1500 + 1000 ="
                "$<<1500+1000=2500>>2500.\nWith the final bid of $4000, Harry bids 4000 - 2500 = "
                "$<<4000-2500=1500>>1500 more than the third bidder.",
    "answer_text": "1500", "source": "gsm8k"}


def _keyinfo(seed: dict) -> dict:
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)


def test_a_claim_justified_after_it_writes_the_result_though_an_operand_is_equal() -> None:
    f = _keyinfo(PIZZAS)
    # 9 / 3 = 3: the claim's "three slices of cheese each" is the result, not the divisor
    assert f["unknown_quantities"] == ["Q1: They are ? slices of cheese", "Q2: They ate ? slices of cheese each",
                                       "Q3: They are ? slices each in total (the value asked for)"]
    assert f["relationships_and_constraints"] == ["Q1 = 16 − 7", "Q2 = Q1 ÷ 3", "Q3 = Q2 × 2"]
    assert validate_keyinfo(f, PIZZAS["question"]) == []


def test_a_claim_with_the_operands_own_words_is_still_refused() -> None:
    # the question states 5 as "$5 per vampire": "5 vampires" may be that operand, not told apart
    with pytest.raises(KeyInfoError, match="Q3 would read with no blank: 'He removed 5 vampires from town'"):
        _keyinfo(VAMPIRES)
    # the claim writes the question's "three friends": the divisor's words, not the result's
    seed = dict(PIZZAS, solution=PIZZAS["solution"].replace("They ate three slices of cheese each",
                                                            "They share with three friends"))
    with pytest.raises(KeyInfoError, match="Q2 would read with no blank: 'They share with three friends'"):
        _keyinfo(seed)


def test_a_third_bidder_after_and_is_no_half_of_a_mixed_number() -> None:
    f = _keyinfo(AUCTION)
    assert f["known_quantities"] == ["The auction starts at $300", "Harry is the first to bid, adding $200 to the "
                                     "starting value", "A second bidder doubles the bid",
                                     "A third bidder adds three times Harry's bid", "Finally, Harry bids $4,000"]
    assert f["relationships_and_constraints"] == ["Q1 = 300 + 200", "Q2 = Q1 × 2", "Q3 = 3 × Q1", "Q4 = Q3 + Q2",
                                                  "Q5 = 4000 − Q4"]
    assert validate_keyinfo(f, AUCTION["question"]) == []
