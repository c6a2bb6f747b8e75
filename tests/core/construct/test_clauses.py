"""What reads as a statement of its own (core/reading/clauses.py): the test the rule-made known
quantities pass and the audit's ``known-fragment`` flag applies."""

from __future__ import annotations

import pytest

from qcstation.core.construct.check.fragments import known_fragments
from qcstation.core.reading.clauses import is_question_sentence, reads_as_clause


@pytest.mark.parametrize("text", [
    "The meat cost $7.00 per pound",
    "There are 25 kilograms of rice per sack",
    "After the first 3 hours, they have raised $2100",
    "Amora and Lainey got 70 corn chips each",
    "He'll lose 1.25 pounds/week",
    "Mark had 8 hours to complete the first test",        # a name that is also a verb
    "Her sister, Meg, has 46 pencils",                     # a name set off by commas
    "Drinks and snacks cost $2 each",                      # nouns that are also verbs
    "A third of the large jellyfish change color",         # a part of a whole, uninflected verb
    "In the second month her sales were 3/4 of the total",  # an opening phrase without its comma
    "The man who sells apples has 5 crates",               # the main verb after a relative clause
    "It rang four times",
    "Level 2 is 32 square feet",
    "Both of them decide to share them equally with their 6 other friends",  # 438: the whole of a plural
    "All of them share the oranges",
    "His 2 dogs need 4 snowshoes",
    "In the end Griffin had 27 fries",                     # 245: a name after an opening phrase
    "Will has 5 apples",                                   # a modal's word as a name
    "The blue one can travel at a speed of 80 miles per hour",  # "one can" before a verb's base: a modal
    "A boy flips a coin 30 times",
    "4 of the guests eat the cake",                        # a count of a plural is plural
    "Ten of the children want juice",
    "10% of his classmates want apple pie",
    "Last year Tom worked 200 days",                       # "last" opens a phrase of time
    "Last week's winner collected $30",
])
def test_a_clause_with_its_own_subject_and_verb(text: str) -> None:
    assert reads_as_clause(text)


@pytest.mark.parametrize("text", [
    "Charged her 10% less money on the other half of the year",  # no subject
    "and then charged her 10% less money",
    "Spends $5 and buys 3 apples",
    "A ballpen at $0.5 each",                                 # no verb
    "4 sacks to her brother",
    "20 people",
    "A weekly bus pass for $20",                              # "pass" is a noun here
    "60 mambas in a snake park",
    "1/2 of what her brother earns",                          # the verb is the dependent clause's
    "2 loose pencils which give a total of 26 pencils",
    "After 3 years",
    "Costing $18 per unit",
    "a 4 leveled sandcastle",
    "2 15 minutes break per day at the office",              # 1101: a count of a measure, then its noun
    "One of them share",                                      # one of a plural is no plural
    "In New York City had 5 apples",                          # a name's second word is no subject
    "Will be paid on the twelfth month",                      # 1214: a modal before a base verb
    "$2 each can of soda",                                    # a can, no verb after it
    "1 of the guests want",                                   # one of a plural is no plural
    "4 of the guests",                                        # no verb
    "Last week spends $5",                                    # after the phrase of time, no subject
    "Last year in the town",
])
def test_a_fragment(text: str) -> None:
    assert not reads_as_clause(text)


def test_known_fragments_judges_only_cuts_from_the_question() -> None:
    q = ("The educational shop is selling notebooks for $1.50 each and a ballpen at $0.5 each.  "
         "William bought five notebooks and a ballpen. How much did he spend in all?")
    # a cut without a verb is a fragment; a whole sentence (first letter, end mark, spacing
    # aside) and a clause with its subject are not; words not in the question are no cut
    assert known_fragments(["A ballpen at $0.5 each", "William bought five notebooks and a ballpen.",
                            "The educational shop is selling notebooks for $1.50 each",
                            "Price of a ballpen: $0.5"], q) == ["A ballpen at $0.5 each"]
    assert is_question_sentence("william bought five notebooks and a ballpen",
                                ["William bought five notebooks and a ballpen."])


def test_he_and_a_verb_without_its_s_read_as_a_clause() -> None:
    # GSM8K 153 asks "How much change does Carl receive if he pay with a $10 bill?": the scenario's
    # "He pay with a $10 bill." is a statement with its subject and verb, not a fragment
    from qcstation.core.construct.check.fragments import scenario_fragments
    from qcstation.core.reading.clauses import reads_as_clause

    assert reads_as_clause("He pay with a $10 bill")
    assert not reads_as_clause("a weekly bus pass")
    assert not reads_as_clause("The man pay")
    q = "Each cookie cost $0.10. How much change does Carl receive if he pay with a $10 bill?"
    assert scenario_fragments("Each cookie cost $0.10. He pay with a $10 bill.", q) == []
