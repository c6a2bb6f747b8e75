"""A computation written in a form the calculator annotation does not hold is hidden from the
unknown's description as the rules read it (issue 26.1, Understanding): a fraction result or a
chain of equal terms ("or 2/40 = 1/20 miles per minute", 1134; "60g * 4/5 = 240g/5 = 48 grams",
44; the rules' second reading, ``rules.chains``), an operator glued to the number before it
("$2.00x 2 =", 873), a unit glued to its number ("300g/5 =", 44), a first term's sign ("-30/3 =",
490), and a fraction whose value is a step's result ("2/3 of his collection", 428; "eat 4/5 of a
serving" for Q2). These seeds were made in Reasoning but refused in Understanding. A line that
writes only its computation has no words for its unknown and stays refused (490); so does a
fraction chain whose arithmetic does not check (no computation to hide)."""

from __future__ import annotations

import dataclasses

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations


@pytest.mark.parametrize(("seed", "index", "text"), [
    ("1134", 0, "Q1: On the beach, Grandma walks at a rate of 2 miles per 40 minutes, or ? miles per minute."),
    ("1134", 1, "Q2: On the sidewalk, she walks at twice the rate of speed as when she is on the sand, or ? miles "
                "per minute."),
    ("44", 2, "Q3: We also know that a 300g bag of chips has 5 servings, hence each serving has ? grams"),
    ("44", 3, "Q4: If I can only eat Q2 of a serving, then I can eat only ? grams (the value asked for)"),
    ("428", 2, "Q3: The cards he sold were ? of his collection"),
    ("873", 3, "Q4: Two bottles of water cost ?."),
    # made before, their computations were shown ("$2000x ?", "160 used pieces of straw – Q2 ...")
    ("217", 0, "Q1: Janeth will pay an additional ?"),
    ("187", 2, "Q3: As the remaining straw is for the rats, the rats have a total of ? pieces of straws."),
])
def test_a_computation_in_another_written_form_is_hidden(gsm8k_readings, seed: str, index: int,
                                                         text: str) -> None:
    unknowns = gsm8k_readings.keyinfo(seed)["unknown_quantities"]
    assert unknowns[index] == text
    assert all(u.partition(": ")[2].count("?") == 1 for u in unknowns), unknowns


def test_the_relationships_evaluate_to_the_gold(gsm8k_readings) -> None:
    # 44: Q4 = Q3 x Q2 with Q2 the 4/5 of a serving the line writes (60 x 4/5 = 48 grams)
    assert gsm8k_readings.keyinfo("44")["relationships_and_constraints"] == [
        "Q1 = 2000 − 1800", "Q2 = Q1 ÷ 250", "Q3 = 300 ÷ 5", "Q4 = Q3 × Q2"]
    assert gsm8k_readings.keyinfo("428")["relationships_and_constraints"][2:] == ["Q3 = 1 − 1/3", "Q4 = Q2 ÷ Q3"]


def test_a_line_of_only_its_computation_has_no_words_and_is_refused(gsm8k_readings) -> None:
    # "-48 + 21 + (-3) = <<...>>-30": the sum of the three temperatures is named by no words
    with pytest.raises(KeyInfoError, match="Q1 would read with no words"):
        gsm8k_readings.keyinfo("490")


def test_a_fraction_chain_that_does_not_check_is_no_computation_to_hide(gsm8k_readings) -> None:
    seed = gsm8k_readings.seeds["1134"]
    rule = gsm8k_readings.rule("1134")
    wrong = "On the beach, Grandma walks at a rate of 2 miles per 40 minutes, or 2/40 = 1/25 miles per minute."
    steps = [dataclasses.replace(rule.steps[0], line=wrong), *rule.steps[1:]]
    with pytest.raises(KeyInfoError, match="Q1 would read with no blank"):
        keyinfo_from_annotations(seed["question"], seed["solution"], steps, givens=rule.givens)
