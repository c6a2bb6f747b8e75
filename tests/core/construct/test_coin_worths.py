"""A coin's worth a step writes (issue 26.1, lane covB): the named constant ``k_cents_per_<coin>`` /
``k_dollars_per_<coin>`` where the line does not name the coin but shares a word with the one
sentence of the question that writes it ("Lena spent 6 nickels on gum" / "Lena spent 6*5"), and a
coin's worth as a divisor where the line names the coin ("26 quarters because 6.5 / .25"): the
money divided by one coin's worth is how many coins."""

from __future__ import annotations

from qcstation.core.construct.make.rules import rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def test_a_coin_worth_tied_by_the_sentence_that_names_the_coin() -> None:
    q = ("Lena saved her allowance and spent 6 nickels on gum. Omar kept his coins but spent 4 dimes at the fair. "
         "How many cents did they spend altogether?")
    made = rule_for_seed(_seed(q, "Lena spent 6*5 = <<6*5=30>>30 cents.\nOmar spent 4*10 = <<4*10=40>>40 cents."
                                  "\nTogether they spent 30+40 = <<30+40=70>>70 cents.\n#### 70", "70"))
    assert made.value == 70
    assert [s.sexpr for s in made.steps[:2]] == ["(* g1_nickels k_cents_per_nickel)", "(* g2_dimes k_cents_per_dime)"]


def test_a_dollar_worth_tied_by_the_sentence_of_the_price() -> None:
    q = "Each leaf Nico rakes earns him 1 penny. He rakes 3,000 leaves and then buys a $12 hat. How many dollars are left?"
    made = rule_for_seed(_seed(q, "He earns 3000 leaves * $0.01/leaf = $<<3000*0.01=30>>30.\nHe has 30 - 12 = "
                                  "$<<30-12=18>>18 left.\n#### 18", "18"))
    assert made.value == 18
    assert made.steps[0].sexpr == "(* g1_leaves k_dollars_per_penny)"


def test_money_divided_by_a_coin_worth_counts_the_coins() -> None:
    q = "A jar holds $3.50 in dimes and the rest in quarters. It holds $8.00 in all. How many quarters are in the jar?"
    made = rule_for_seed(_seed(q, "The quarters are worth 8 - 3.5 = $<<8-3.5=4.5>>4.5.\nThere are 18 quarters "
                                  "because 4.5 / .25 = <<4.5/.25=18>>18.\n#### 18", "18"))
    assert made.value == 18
    assert made.steps[1].sexpr == "(/ s1_quarters_worth k_dollars_per_quarter)"


def test_a_price_in_dollars_counted_in_cents() -> None:
    q = "Ivy gets $3.50 from her aunt. She keeps 6 dimes and spends the rest. How many cents did she spend?"
    made = rule_for_seed(_seed(q, "She keeps 6*10 = <<6*10=60>>60 cents.\nShe spent 350-60 = <<350-60=290>>290 "
                                  "cents.\n#### 290", "290"))
    assert made.value == 290
    assert made.steps[1].sexpr == "(- (* g2_aunt k_cents_per_dollar) s1_cents)"
