"""Number styles and the bindings contract: what can be written again, what is refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.derive.bindings import Refusal, question_numbers, read_bindings
from qcstation.core.derive.numbers import (Unwritable, fit_article, money_before, read_style, render,
                                           word_of)


@pytest.mark.parametrize(("words", "value", "new", "expected"), [
    ("60", 60, 72, "72"),
    ("$1,500", 1500, 2250, "$2,250"),
    ("2.50", Fraction(5, 2), Fraction(15, 4), "3.75"),
    (".20", Fraction(1, 5), Fraction(2, 5), ".40"),
    ("three", 3, 7, "seven"),
    ("Three", 3, 21, "Twenty-one"),
    ("45%", Fraction(9, 20), Fraction(3, 10), "30%"),     # a percent stored as p/100
    ("45%", 45, 30, "30%"),                               # ... or as p
    ("1/2", Fraction(1, 2), Fraction(3, 4), "3/4"),
])
def test_render_like_the_original(words: str, value: int | Fraction, new: int | Fraction,
                                  expected: str) -> None:
    style = read_style(words, Fraction(value))
    assert render(style, Fraction(new)) == expected


@pytest.mark.parametrize(("words", "value", "new", "why"), [
    ("3", 3, Fraction(33, 10), "decimals"),       # a count of 3.3
    ("three", 3, 120, "0 to 99"),                 # no word for it
    ("three", 3, Fraction(7, 2), "not whole"),
    ("2.5", Fraction(5, 2), Fraction(11, 4), "decimals"),
    ("1/2", Fraction(1, 2), 2, "whole"),
    ("5", 5, -2, "negative"),
])
def test_refused_rather_than_written_wrongly(words: str, value: int | Fraction, new: int | Fraction,
                                            why: str) -> None:
    with pytest.raises(Unwritable, match=why):
        render(read_style(words, Fraction(value)), Fraction(new))


def test_words_it_cannot_write_again() -> None:
    with pytest.raises(Unwritable):
        read_style("dozen", Fraction(12))
    with pytest.raises(Unwritable):
        read_style("60", Fraction(61))          # not the given's value
    assert word_of(42) == "forty-two"


def test_question_numbers_finds_digits_fractions_and_words() -> None:
    found = [(n.text, n.value) for n in question_numbers("He ate 1/2 of the 12 pies, then "
                                                         "twenty-one more and 3.5 kg.")]
    assert found == [("1/2", Fraction(1, 2)), ("12", 12), ("twenty-one", 21), ("3.5", Fraction(7, 2))]


Q = "Sam buys 3 pens and 4 pads. Each pen costs 3 dollars."


def _at(text: str, phrase: str, words: str) -> list[int]:
    start = text.index(phrase) + phrase.index(words)
    return [start, start + len(words)]


def _content(**over: object) -> dict:
    givens = [{"name": "g1_pens", "value": "3", "span": _at(Q, "buys 3", "3"), "words": "3",
               "kind": "number"},
              {"name": "g2_pads", "value": "4", "span": _at(Q, "4 pads", "4"), "words": "4",
               "kind": "number"},
              {"name": "g3_dollars", "value": "3", "span": _at(Q, "3 dollars", "3"), "words": "3",
               "kind": "number"}]
    return {"bound": True, "givens": givens, **over}


def test_bound_givens_with_their_places() -> None:
    b = read_bindings(Q, _content())
    assert [(g.name, Q[g.start:g.end]) for g in b.givens] == [("g1_pens", "3"), ("g2_pads", "4"),
                                                               ("g3_dollars", "3")]


def test_not_vouched_for() -> None:
    with pytest.raises(Refusal) as exc:
        read_bindings(Q, _content(bound=False))
    assert exc.value.code == "not-bound"
    c = _content()
    del c["givens"][0]["span"]
    with pytest.raises(Refusal) as exc:
        read_bindings(Q, c)
    assert exc.value.code == "no-span"


def test_span_must_hold_the_words() -> None:
    c = _content()
    c["givens"][1]["span"] = [Q.index("4 pads") - 1, Q.index("4 pads") + 1]
    with pytest.raises(Refusal) as exc:
        read_bindings(Q, c)
    assert exc.value.code == "bad-span"


def test_a_given_used_twice() -> None:
    # two givens of the formalization read from one place of the text
    c = _content()
    c["givens"][2]["span"] = _at(Q, "buys 3", "3")
    with pytest.raises(Refusal) as exc:
        read_bindings(Q, c)
    assert exc.value.code == "given-used-twice"


def test_a_value_stated_again_outside_the_givens() -> None:
    c = _content()
    c["givens"] = c["givens"][:2]       # the second 3 is not a given: it may be the same quantity
    with pytest.raises(Refusal) as exc:
        read_bindings(Q, c)
    assert exc.value.code == "restated-value"


def test_clock_times_and_years_stay_put() -> None:
    q = "From 1:00 PM to 5:00 PM in 2015 she sold 30 cups. How many per hour?"
    c = {"bound": True, "givens": [
        {"name": "g1", "value": "1", "span": _at(q, "1:00", "1"), "words": "1", "kind": "number"},
        {"name": "g2", "value": "5", "span": _at(q, "5:00", "5"), "words": "5", "kind": "number"},
        {"name": "g3", "value": "2015", "span": _at(q, "2015", "2015"), "words": "2015",
         "kind": "number"},
        {"name": "g4", "value": "30", "span": _at(q, "30 cups", "30"), "words": "30",
         "kind": "number"}]}
    fixed = {g.name: g.fixed for g in read_bindings(q, c).givens}
    assert fixed == {"g1": "a clock time", "g2": "a clock time", "g3": "a calendar year", "g4": ""}


@pytest.mark.parametrize(("words", "value", "new", "expected"), [
    ("1.5", Fraction(3, 2), 2, "2"),              # "2 times", never "2.0 times"
    ("3.5", Fraction(7, 2), 3, "3"),
    ("$1.5", Fraction(3, 2), 3, "$3"),            # "$3 each", never "$3.0 each"
    ("$1.50", Fraction(3, 2), 3, "$3.00"),        # money written with cents keeps them
    ("2.50", Fraction(5, 2), 3, "3"),
    (".5", Fraction(1, 2), 1, "1"),
])
def test_a_whole_value_where_decimals_were_written(words: str, value: int | Fraction,
                                                  new: int | Fraction, expected: str) -> None:
    assert render(read_style(words, Fraction(value)), Fraction(new)) == expected


def test_a_fraction_with_its_ordinal_ending_stays_put() -> None:
    # GSM8K 1090: "bounces to 2/3rds of its starting height"; a variant wrote "2/5rds"
    q = "A ball bounces to 2/3rds of its height. It falls 3/4 of the way, 24 feet."
    c = {"bound": True, "givens": [
        {"name": "g1", "value": "2/3", "span": _at(q, "2/3rds", "2/3"), "words": "2/3", "kind": "fraction"},
        {"name": "g2", "value": "3/4", "span": _at(q, "3/4 of", "3/4"), "words": "3/4", "kind": "fraction"},
        {"name": "g3", "value": "24", "span": _at(q, "24 feet", "24"), "words": "24", "kind": "number"}]}
    fixed = {g.name: g.fixed for g in read_bindings(q, c).givens}
    assert fixed == {"g1": "a fraction written with its ordinal's ending", "g2": "", "g3": ""}


def test_money_whose_sign_is_outside_the_given_keeps_its_cents() -> None:
    # GSM8K 228: the given's words are "5.00", the "$" stands before them; a whole new value
    # is "$4.00" as the question writes money, not "$4"; a plain decimal still drops ".00"
    q = "They are on sale at 4 yogurts for $5.00. He walks 2.50 miles."
    c = {"bound": True, "givens": [
        {"name": "g1", "value": "5", "span": _at(q, "$5.00", "5.00"), "words": "5.00", "kind": "number"},
        {"name": "g2", "value": "5/2", "span": _at(q, "2.50", "2.50"), "words": "2.50", "kind": "number"}]}
    style = {g.name: g.style for g in read_bindings(q, c).givens}
    assert render(style["g1"], Fraction(4)) == "4.00"
    assert render(style["g1"], Fraction(9, 2)) == "4.50"
    assert render(style["g2"], Fraction(3)) == "3"
    assert money_before("costs $ 5.00", 8) and money_before("$5.00", 1) and not money_before("5.00", 0)


@pytest.mark.parametrize(("before", "text", "expected"), [
    ("ate a ", "8", "ate an "),                   # "an 8-ounce steak"
    ("solving a ", "800", "solving an "),
    ("gets a ", "18", "gets an "),
    ("A ", "11", "An "),
    ("has a ", "18,500", "has an "),
    ("offers him an ", "5", "offers him a "),     # "an 8% raise" -> "a 5% raise"
    ("a ", "1800", "a "),
    ("a ", "110", "a "),
    ("costs a ", "$8", "costs a "),               # after a currency sign: left as it is
    ("banana ", "8", "banana "),                  # no article
    ("makes an ", "eleven", "makes an "),
    ("makes an ", "twelve", "makes a "),
])
def test_the_article_before_a_rewritten_number(before: str, text: str, expected: str) -> None:
    assert fit_article(before, text) == expected


def test_a_one_before_a_singular_noun_stays_put() -> None:
    # "1 hour" moved to 2 would read "2 hour"; "$1 each" reads as well with 2
    q = "It takes 1 hour to walk 3 miles. Pens cost $1 each and he has 12 pens."
    c = {"bound": True, "givens": [
        {"name": "g1", "value": "1", "span": _at(q, "1 hour", "1"), "words": "1", "kind": "number"},
        {"name": "g2", "value": "3", "span": _at(q, "3 miles", "3"), "words": "3", "kind": "number"},
        {"name": "g3", "value": "1", "span": _at(q, "1 each", "1"), "words": "1", "kind": "number"},
        {"name": "g4", "value": "12", "span": _at(q, "12 pens", "12"), "words": "12",
         "kind": "number"}]}
    fixed = {g.name: g.fixed for g in read_bindings(q, c).givens}
    assert fixed["g1"].startswith("one of a unit") and fixed["g2"] == fixed["g3"] == fixed["g4"] == ""


def test_a_count_of_listed_names_stays_put() -> None:
    # GSM8K 997: five children would contradict the four names the sentence lists
    q = ("Four children are playing together, Akbar, Alessandro, Helene, and Wilfred. The total "
         "age of the children is 20. If Akbar is 3 years old, how old is Wilfred?")
    c = {"bound": True, "givens": [
        {"name": "g1", "value": "4", "span": _at(q, "Four children", "Four"), "words": "Four",
         "kind": "word"},
        {"name": "g2", "value": "20", "span": _at(q, "is 20", "20"), "words": "20", "kind": "number"},
        {"name": "g3", "value": "3", "span": _at(q, "is 3 years", "3"), "words": "3", "kind": "number"}]}
    fixed = {g.name: g.fixed for g in read_bindings(q, c).givens}
    assert fixed == {"g1": "the count of the names its sentence lists", "g2": "", "g3": ""}


def test_a_mixed_number_stays_put() -> None:
    # GSM8K 967 (made by cover26): "1 1/2 dozen brownies were eaten", a given of 3/2 written as a
    # mixed number: no style writes it again, so it keeps its value; the other givens still move
    q = "Her friends had 4 dozen brownies. During the party, 1 1/2 dozen brownies were eaten."
    c = {"bound": True, "givens": [
        {"name": "g1", "value": "4", "span": _at(q, "4 dozen", "4"), "words": "4", "kind": "number"},
        {"name": "g2", "value": "3/2", "span": _at(q, "1 1/2", "1 1/2"), "words": "1 1/2", "kind": "fraction"}]}
    fixed = {g.name: g.fixed for g in read_bindings(q, c).givens}
    assert fixed["g1"] == "" and fixed["g2"]


def test_the_digit_numerator_of_a_fraction_in_words_stays_put() -> None:
    # GSM8K 1235 (made by cover26): "If this is 3 quarters of the number of novels": "1 quarters"
    # or "5 quarters" would not read; the other givens still move
    q = "Regina wrote 9 novels last year. If this is 3 quarters of the number of novels she has written."
    c = {"bound": True, "givens": [
        {"name": "g1", "value": "3", "span": _at(q, "3 quarters", "3"), "words": "3", "kind": "number"},
        {"name": "g2", "value": "9", "span": _at(q, "9 novels", "9"), "words": "9", "kind": "number"}]}
    fixed = {g.name: g.fixed for g in read_bindings(q, c).givens}
    assert fixed == {"g1": "the numerator of a fraction in words", "g2": ""}
