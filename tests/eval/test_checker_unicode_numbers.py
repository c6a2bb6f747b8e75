"""attack30 (issue 30): a number the reply writes with a vulgar fraction, a superscript, per mille
or a fraction slash right after its digits ("12½", "12 ¾", "12²", "12‰", "1⁄2") was read as its
digits alone: "The answer is 12½" (12.5) and "She has 12½ apples." were *correct* against a gold
12, "1⁄2" wrong as 1. Such a number is not read as its digits: unparseable, never correct."""

from __future__ import annotations

import pytest

from qcstation.eval.checker import check_answer


@pytest.mark.parametrize("reply", ["The answer is 12½", "The answer is 12 ½.", "The answer is 12¾.",
                                   "She has 12½ apples.", "The answer is 12².", "The answer is 12⁵",
                                   "The answer is 12‰", "**12½**", "Step 1: 3 + 9 = 12½"])
def test_a_number_with_a_unicode_fraction_or_power_is_not_its_digits(reply: str) -> None:
    res = check_answer(reply, "12")
    assert res.verdict != "correct", res


def test_a_fraction_slash_is_not_the_numerator() -> None:
    assert check_answer("The answer is 1⁄2", "1").verdict != "correct"


@pytest.mark.parametrize(("reply", "gold"), [("The answer is 12.", "12"), ("She has 12 apples.", "12"),
                                             ("The answer is 12 apples ½ eaten", "12"),
                                             ("I had 12½ apples, then 25 halves, so 25.", "25")])
def test_plain_numbers_read_as_before(reply: str, gold: str) -> None:
    assert check_answer(reply, gold).verdict == "correct"
