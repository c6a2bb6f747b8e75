"""Key information lists every number the solution uses, also one the question gives in words and
no digit (issue 26): the sentence that says a round trip ("He walks there and back each day he
works", test 546), "both" ("Each paper is printed on both sides", 952), "buy one get one free",
"Monday to Friday" (785), "pairs" the question asks about (700) is a known quantity, as a sentence
that states a number is; the words of the asking sentence that state a word given are quoted whole
("Friday and Saturday", never "on Friday" cut at its "and"); a given of the asking sentence is
quoted where the context states the same words only at another given's place (1315: "in 3 years"
of the asked age is not Dora's "in 3 years"). Near-miss: a unit's factor (60 minutes an hour) has
no words the question states, and nothing is listed for it."""

from __future__ import annotations

from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed
from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.rules.stated_factors import stated_words


def _seed(question: str, solution: str, answer: str) -> dict[str, str]:
    return {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}


def test_a_round_trip_said_in_words_is_a_known_quantity(gsm8k_readings) -> None:
    assert "k_ways_of_a_round_trip" in gsm8k_readings.rule("546").smtlib
    assert gsm8k_readings.keyinfo("546")["known_quantities"] == [
        "Jeff’s work is 3 miles away", "He walks there and back each day he works", "He has to work 5 times a week"]


def test_both_sides_is_a_known_quantity(gsm8k_readings) -> None:
    assert "k_both" in gsm8k_readings.rule("952").smtlib
    assert "Each paper is printed on both sides, with one page of the book printed on each side" \
        in gsm8k_readings.keyinfo("952")["known_quantities"]


def test_monday_to_friday_of_a_condition_is_a_known_quantity(gsm8k_readings) -> None:
    assert "k_weekdays_per_week" in gsm8k_readings.rule("785").smtlib
    assert gsm8k_readings.keyinfo("785")["known_quantities"] == [
        "Andy's car fuel efficiency is 10 MPG (miles per gallon)", "The current price for regular gas is $3/gallon",
        "He only uses his car to go to work from Monday to Friday",
        "The one-way distance between his home and office is 5 miles"]


def test_pairs_the_question_asks_about_are_quoted(gsm8k_readings) -> None:
    assert "k_per_pair" in gsm8k_readings.rule("700").smtlib
    assert gsm8k_readings.keyinfo("700")["known_quantities"][-1] == 'The question asks about "pairs of pencils"'


def test_buy_one_get_one_free_is_a_known_quantity_in_the_questions_order() -> None:
    seed = _seed("Nina buys candles at a buy one get one free sale. Each candle costs $6 and she takes home 10 "
                 "candles. How much does she pay for the candles?",
                 "She pays for 10/2=<<10/2=5>>5 candles\nThat costs 5*6=$<<5*6=30>>30", "30")
    assert "k_items_per_buy_one_get_one" in rule_for_seed(seed).smtlib
    fields, _ = keyinfo_for_seed(seed)
    assert fields["known_quantities"] == ["Nina buys candles at a buy one get one free sale", "Each candle costs $6",
                                          "She takes home 10 candles"]


def test_the_asking_sentences_words_of_a_word_given_are_quoted_whole() -> None:
    seed = _seed("Sam bakes 12 cakes every day. How many cakes does he bake on Friday and Saturday together?",
                 "He bakes 12*2=<<12*2=24>>24 cakes on Friday and Saturday.", "24")
    assert "w_friday_and_saturday" in rule_for_seed(seed).smtlib
    fields, _ = keyinfo_for_seed(seed)
    assert fields["known_quantities"] == ["Sam bakes 12 cakes every day",
                                          'The question asks about "Friday and Saturday together"']


def test_an_asked_given_is_not_another_givens_place_in_the_story(gsm8k_readings) -> None:
    assert gsm8k_readings.keyinfo("1315")["known_quantities"] == [
        "John had a son James when he was 19", "James is now twice as old as his sister Dora, who will turn 12 in 3 years",
        'The question asks about "when John was 32"', 'The question asks about "in 3 years"']


def test_a_units_factor_has_no_stated_words() -> None:
    for name in ("k_minutes_per_hour", "k_days_per_week", "k_cents_per_dollar", "k_percent", "k_legs_per_chickens"):
        assert stated_words(name) is None
    days = stated_words("k_days_sunday_through_wednesday")
    assert days is not None and days.search("From Sunday through Wednesday, he spent $4")
    seed = _seed("A movie lasts 2 hours. How many minutes does it last?",
                 "It lasts 2*60=<<2*60=120>>120 minutes.", "120")
    assert "k_minutes_per_hour" in rule_for_seed(seed).smtlib
    fields, _ = keyinfo_for_seed(seed)
    assert fields["known_quantities"] == ["A movie lasts 2 hours"]
