"""A fraction the question states in words ("one-tenth its length") is one word given: its value
(``w_one_tenth``) and, where a step divides by it, its parts (``w_one_tenth_parts``, the 10 of
"length / 10"). A step that writes the fraction itself ("1/10*10") takes the word's value once;
its other 10 is another number of the question (the length, "10 feet long"), never the word's
parts a second time: that reading made the head "1/10 * 10 parts" = 1 foot whatever the length,
and derive would keep it at 1 foot in every variant (issue 26.1). Real rules, real Z3."""

from __future__ import annotations

from fractions import Fraction


from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def test_the_fraction_written_takes_the_word_once_and_its_other_number_is_not_the_parts() -> None:
    seed = _seed("A rope's knot takes one-tenth its length. If the rope is 10 feet long, how long "
                 "is the rest of the rope?",
                 "The knot takes one-tenth its length, which is 1/10*10 = <<1/10*10=1>>1 foot.\n"
                 "The rest of the rope is 10-1 = <<10-1=9>>9 feet long.\n#### 9", "9")
    try:
        rule = rule_for_seed(seed)
    except RuleError as exc:
        assert "10" in str(exc)  # refused, naming the number it cannot place
        return
    assert "w_one_tenth_parts" not in rule.smtlib
    # made: the knot is a tenth of the rope's stated length, so its given is that length
    length = next(g for g in rule.givens if g["value"] == Fraction(10))
    assert seed["question"][length["span"][0]:length["span"][1]].startswith("10")


def test_the_parts_of_a_fraction_not_written_are_still_the_words(z3pool) -> None:
    """The near miss: "50/10" for "one-tenth of it" writes no fraction; the 10 is the word's parts."""
    seed = _seed("A cake weighs 50 ounces. One-tenth of it is frosting. How many ounces of frosting "
                 "are on the cake?",
                 "The frosting weighs 50/10 = <<50/10=5>>5 ounces.\n#### 5", "5")
    rule = rule_for_seed(seed)
    assert "w_one_tenth_parts" in rule.smtlib
    assert z3pool.verify(rule.smtlib, "5").ok


def test_a_fraction_written_with_a_number_of_another_value_is_read_as_before(z3pool) -> None:
    seed = _seed("A rope's knot takes one-tenth its length. If the rope is 20 feet long, how long "
                 "is the rest of the rope?",
                 "The knot takes one-tenth its length, which is 1/10*20 = <<1/10*20=2>>2 feet.\n"
                 "The rest of the rope is 20-2 = <<20-2=18>>18 feet long.\n#### 18", "18")
    rule = rule_for_seed(seed)
    assert "(* w_one_tenth g" in rule.smtlib and "w_one_tenth_parts" not in rule.smtlib
    assert z3pool.verify(rule.smtlib, "18").ok
