"""Money times money is no money (issue 26.2: a self-check the binder's reading cannot vouch for).
A product whose line writes its result as money, two of whose factors are bound to amounts the
question writes with "$", binds one number to a place of equal value and other meaning: "$200 x 5"
where the 5 is the 1/5 profit share, bound to "$5 each"; "$16 * 2" where the 2 is "doubles",
bound to "$2 in January". A variant moving that price would move the other number with it (wrong
gold). Such a formalization is refused (``pure-factor``); counts of bills ("four $10 bills") and
a price times a count stay made. Real rules, real Z3."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


@pytest.mark.parametrize("question, solution, answer", [
    ("Lena sells lemonade at $5 a cup. If her costs are 80% of her sales, how many cups must she sell to "
     "make a $100 profit?",
     "Her profit is 20/100 = 1/5 of her sales.\nHer sales must be $100 x 5 = $<<100*5=500>>500.\n"
     "She must sell $500 / 5 = <<500/5=100>>100 cups.\n#### 100", "100"),
    ("Sam saves $2 in January, $4 in February and $8 in March. If he keeps doubling, how much does he save "
     "in May?",
     "In April he saves $8 * 2 = $<<8*2=16>>16.\nIn May he saves $16 * 2 = $<<16*2=32>>32.\n#### 32", "32"),
])
def test_a_price_bound_where_the_line_multiplies_money_by_a_pure_number_is_refused(question: str, solution: str,
                                                                                   answer: str) -> None:
    with pytest.raises(RuleError, match="pure-factor: .* both amounts of money"):
        rule_for_seed(_seed(question, solution, answer))


@pytest.mark.parametrize("question, solution, answer", [
    ("Ali has four $10 bills and six $20 bills. How much money does he have?",
     "Four $10 bills are worth 4*$10 = $<<4*10=40>>40\nSix $20 bills are worth 6*$20 = $<<6*20=120>>120\n"
     "He has $40+$120 = $<<40+120=160>>160\n#### 160", "160"),
    ("Meat costs $5 a pound and James buys 20 pounds. Bread costs $3 a loaf and he buys 4 loaves. How much does "
     "he spend?",
     "The meat costs $5/pound * 20 pounds = $<<5*20=100>>100\nThe bread costs $3 * 4 = $<<3*4=12>>12\n"
     "He spends $100 + $12 = $<<100+12=112>>112\n#### 112", "112"),
])
def test_counts_of_bills_and_prices_times_counts_are_made(z3pool, question: str, solution: str, answer: str) -> None:
    rule = rule_for_seed(_seed(question, solution, answer))
    assert z3pool.verify(rule.smtlib, answer).ok
