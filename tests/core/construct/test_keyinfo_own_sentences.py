"""An unknown whose solution line computes another step in another sentence is described by the
sentence that holds its own blank, never as a run-on that carries the other step's label
("Q2: ?. On Wednesday there was Q3 feet of water in the tank.", GSM8K test 161). Where its own
sentence still names a later step, or no words are left, the draft is refused (184, 161).
Before this change the problems written here read as run-ons ("Q1: On Tuesday the pond held ?
liters. On Wednesday it held Q2 liters.") and 161 and 184 were made with them."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.unknown_words import own_sentences

POND = ("A pond holds 30 liters of water on Monday. On Tuesday, 10 more liters of water are poured in. "
        "On Wednesday, the pond holds half of what it held on Tuesday. How many liters does the pond hold "
        "on Wednesday?")


def _keyinfo(question: str, solution: str, answer: str) -> dict:
    seed = {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(question, solution, rule.steps, givens=rule.givens)


def test_two_steps_in_two_sentences_of_one_line_read_each_its_own() -> None:
    fields = _keyinfo(POND, "On Tuesday the pond held 30+10 = <<30+10=40>>40 liters. "
                            "On Wednesday it held 40/2 = <<40/2=20>>20 liters.", "20")
    assert fields["unknown_quantities"] == ["Q1: On Tuesday the pond held ? liters.",
                                            "Q2: On Wednesday it held ? liters. (the value asked for)"]
    assert fields["relationships_and_constraints"] == ["Q1 = 30 + 10", "Q2 = Q1 ÷ 2"]


def test_two_steps_in_one_sentence_are_refused_not_shipped_as_a_run_on() -> None:
    # near-miss: the same two steps in one sentence; no cut leaves Q1 without Q2's label
    with pytest.raises(KeyInfoError, match="Q1 would read as a run-on"):
        _keyinfo(POND, "On Tuesday the pond held 30+10 = <<30+10=40>>40 liters, and on Wednesday it "
                       "held 40/2 = <<40/2=20>>20 liters.", "20")


def test_the_cut_keeps_sentences_with_no_label_and_earlier_labels_in_its_own() -> None:
    got = own_sentences(["Q1: He had ? apples.",
                         "Q2: First count the pears. He has ? pears, Q1 fewer than before. Then he ate Q3.",
                         "Q3: He has Q2 pears. He ate ? of them."])
    assert got == ["Q1: He had ? apples.",
                   "Q2: First count the pears. He has ? pears, Q1 fewer than before.",
                   "Q3: He ate ? of them."]
    # a blank followed by a word is no end of a sentence
    assert own_sentences(["Q1: On day one ? More people fell ill. So Q2."]) == ["Q1: On day one ? More people fell ill."]


def test_a_sentence_of_only_the_blank_is_refused() -> None:
    with pytest.raises(KeyInfoError, match="Q2 would read with no words"):
        own_sentences(["Q1: He had ? feet.", "Q2: ?. On Wednesday there was Q3 feet.", "Q3: Q2. There was ? feet."])


def test_gsm8k_run_ons_are_cut_or_refused(gsm8k: dict) -> None:
    def keyinfo(sid: str) -> dict:
        seed = gsm8k[sid]
        return _keyinfo(seed["question"], seed["solution"], seed["answer_text"])

    with pytest.raises(KeyInfoError, match="Q2 would read with no words: '\\?\\.'"):
        keyinfo("161")
    with pytest.raises(KeyInfoError, match="Q2 would read as a run-on: .*holds Q3"):
        keyinfo("184")
    assert keyinfo("523")["unknown_quantities"][2:] == [
        "Q3: Ricky picks two fewer quarts per hour than Kathy, or a total of ? quarts per hour.",
        "Q4: Thus, in total, Tony, Bobby, Ricky, and Kathy can pick ? quarts of strawberries per hour. "
        "(the value asked for)"]
    assert keyinfo("859")["unknown_quantities"][4:] == [
        "Q5: On the third day, ? more people are infected.",
        "Q6: Therefore, there are ? infected people after three days. (the value asked for)"]
