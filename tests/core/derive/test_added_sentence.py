"""The sentence an added operation (SMART Table 3) puts into the story says N more of exactly what
the question asks: with the words that say what the amount is for, and the preposition its verb
takes. Pinned on the asking clauses of GSM8K test seeds read on 2026-11-27."""

from __future__ import annotations

import pytest

from qcstation.core.derive.story import _added_sentence


@pytest.mark.parametrize(("asking", "sentence"), [
    # 176: "They also spent $4 more." could be on anything; the question asks about lemons
    ("If they made $25 in profit, how much did they spend on lemons?", "They also spent ${n} more on lemons."),
    ("How many hours a week does he spend taking care of dogs?",
     "He also spends {n} more hours a week taking care of dogs."),
    ("If a packet of tomato seeds costs $40 and a packet of celery seeds costs $30, how much money did she use "
     "to buy the seeds?", "She also used ${n} more to buy the seeds."),
    ("How many miles can Sophia drive on a single tank of gas?",
     "Sophia can also drive {n} more miles on a single tank of gas."),
    # a condition of the question is not said of the added amount
    ("How many minutes will John spend watching the show if he watches every episode?",
     "John will also spend {n} more minutes watching the show."),
    # "He also responds 86 more emails." is no English: the verb keeps its preposition
    ("How many emails does he respond to in a 5 day work week?", "He also responds to {n} more emails."),
    ("How many calls does he deal with during his 5 day work week?", "He also deals with {n} more calls."),
    # a time or total tail is not copied
    ("How much money will he make in a year?", "He will also make ${n} more."),
    ("How many meters does he run a week?", "He also runs {n} more meters."),
    ("How much did he pay in total in dollars?", "He also paid ${n} more."),
    # where the amount comes from is said of it too ("Ricardo can also get 36 more fruits." is
    # from anywhere)
    ("How many fruits can Ricardo get from his plants?", "Ricardo can also get {n} more fruits from his plants."),
    # an adverb before the verb is not the verb ("She also nows 5 more action figures.")
    ("How many action figures does she now have in total?", "She also has {n} more action figures."),
])
def test_the_added_sentence_says_more_of_what_is_asked(asking: str, sentence: str) -> None:
    made = _added_sentence(asking)
    assert made is not None and made[0] == sentence


@pytest.mark.parametrize("asking", [
    # 1125: what Seth had in the beginning is what the story works back to; "25 more" contradicts it
    "How many stickers did Seth have in the beginning?",
    "How many marbles did she have at first?",
    "How much money did he have initially?",
    # 606: "Patrick also earned $20 more." before "How much money did Patrick earn, in dollars,
    # from selling lemonade for 6 hours?" need not be from lemonade: a source that writes a number
    # of the story cannot be said again, so no sentence is made (nor for "a four-week month")
    "How much money did Patrick earn, in dollars, from selling lemonade for 6 hours?",
    "How many cents does Grayson earn from recycling in a four-week month?",
    # the counted set is restricted: "There were also 6 more legs." among 7 chickens and 5 sheep
    "How many total legs were there among the animals he fed?",
    # an occasion compared with another: "9 more rungs to climb this time" reads as more than last time
    "How many rungs does he have to climb this time to get the cat down from the tree?",
    # what all of a thing makes or takes the story fixes: "He also made $49 more from selling all
    # the water." after $1.2 per gallon of 105 gallons contradicts it (lead's read24)
    "How much money did he make from selling all the water?",
    "How many sticks of wax did she use to make all the animals?",
    # said after the verb too: "He will also earn $25 more." beside three tunas' weights and a
    # price per kilogram (lead's reading of GSM8K test's added-operation items)
    "If a kilogram of tuna costs $0.50, how much will he earn after selling all the tunas to the market?",
])
def test_an_amount_the_story_works_back_to_gets_no_added_operation(asking: str) -> None:
    assert _added_sentence(asking) is None


def test_a_noise_sentence_is_written_as_a_person_writes_it() -> None:
    from qcstation.core.derive.story import NoisePool

    # MAWPS text is tokenized: "cantelopes ." would show in the derived question as it is
    pool = NoisePool.from_sentences([("mawps-1108", "Dan grew 42 turnips and 38 cantelopes ."),
                                     ("mawps-9", "there were 28 bales of hay in the barn ."),
                                     ("gsm8k-5", "A football team  played 22 games .")])
    assert [s.text for s in pool.items] == ["Dan grew 42 turnips and 38 cantelopes.",
                                            "A football team played 22 games."]
