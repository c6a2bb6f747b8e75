"""A known quantity is never cut on its clause's next subject: "... a big science project that they
and their society would benefit greatly from" was listed as "... a big science project that they"
(held-out GSM8K train 543, the lead's reading). A clause that ends on an object ("Peter wants a
quarter of that and Paul wants 1/3 of that", GSM8K test 1112) is still two known quantities."""

from __future__ import annotations

from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed


def _known(question: str, solution: str, answer: str) -> list[str]:
    seed = {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(question, solution, rule.steps, givens=rule.givens)["known_quantities"]


def test_a_clause_is_not_cut_after_its_next_subject() -> None:
    known = _known(
        "In Mary's class, there are 25 students. Their teacher told them they could pay $50 each to finance a big "
        "science project that they and their society would benefit greatly from. They all paid the full amount "
        "except for 4 students, who paid half. How much was the class able to gather together?",
        "The original amount is $50 so half is $50/2 = $<<50/2=25>>25\n"
        "4 students paid half ($25) for a total of 4*$25 = $<<4*25=100>>100\n"
        "There are 25-4 = <<25-4=21>>21 students left\n"
        "21 students paid the full amount ($50) for a total of 21*$50 = $<<21*50=1050>>1050\n"
        "They were able to gather a total of $100+$1050 = $<<100+1050=1150>>1150", "1150")
    assert ("Their teacher told them they could pay $50 each to finance a big science project that they and "
            "their society would benefit greatly from") in known
    assert not any(k.endswith("that they") for k in known)


def test_a_clause_that_ends_on_an_object_stays_its_own() -> None:
    known = _known(
        "Pierre, Paul, and Jacques bought 12 kg of apples. Peter wants a quarter of that and Paul wants 1/3 of "
        "that. How many kilograms will James have left?",
        "Peter wants 12 * 1/4 = <<12*1/4=3>>3 kg of apples.\nPaul wants 12 * 1/3 = <<12*1/3=4>>4 kg of apples.\n"
        "Together, Peter and Paul want a total of 3 + 4 = <<3+4=7>>7 kg of apples.\n"
        "So James will have 12 - 7 = <<12-7=5>>5 kg.", "5")
    assert "Peter wants a quarter of that" in known and "Paul wants 1/3 of that" in known
