"""Rule-made key information never ships a slip of the solution's words that the question
contradicts (issue 26: gold that means its question). GSM8K solutions carry such slips in their
prose ("Clara sells 3300 cookies total because 600+1600+1120=3320", "in 9 weeks" for the
question's "6 weeks", "ten more puppies than the third week" for its "first week"); an unknown
described by that line would tell a reader a number or a comparison the question does not
make. The draft is refused (a model's, or a reviewer's, instead); the near misses, numbers the
words imply, are made as before. Real rules on whole seeds."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed


def _seed(question: str, solution: str) -> dict:
    return {"question": question, "solution": solution, "source": "gsm8k"}


PENS = ("A shop sells boxes of pens. The small box has 12 pens and the big box has 20 pens. If the shop "
        "sells 10 small boxes and 5 big boxes, how many pens does it sell?")


def test_a_number_the_question_states_otherwise_is_refused() -> None:
    seed = _seed(PENS, "It sells 12*10 = <<12*10=120>>120 pens in small boxes.\n"
                       "It sells 20*5 = <<20*5=100>>100 pens in big boxes.\n"
                       "Thus, it sells 210 pens total because 120+100=<<120+100=220>>220 pens.\n#### 220")
    with pytest.raises(KeyInfoError, match="'210 pens'"):
        keyinfo_for_seed(seed)


def test_the_same_line_without_the_slip_is_made() -> None:
    seed = _seed(PENS, "It sells 12*10 = <<12*10=120>>120 pens in small boxes.\n"
                       "It sells 20*5 = <<20*5=100>>100 pens in big boxes.\n"
                       "Thus, it sells 120+100=<<120+100=220>>220 pens total.\n#### 220")
    fields, _ = keyinfo_for_seed(seed)
    assert not any("210" in u for u in fields["unknown_quantities"])
    assert fields["unknown_quantities"][-1].startswith("Q3:")


def test_a_money_amount_no_one_states_is_refused() -> None:
    seed = _seed("Ann bought a hat for $10 and shoes that were originally $48 but were on sale for half "
                 "price. How much did she spend?",
                 "The shoes were half the original $68 price, so they cost 48 / 2 = $<<48/2=24>>24.\n"
                 "She spent 10 + 24 = $<<10+24=34>>34.\n#### 34")
    with pytest.raises(KeyInfoError, match=r"'\$68 price'"):
        keyinfo_for_seed(seed)


def test_a_comparison_with_another_ordinal_is_refused() -> None:
    seed = _seed("Tom read for three weeks. The first week he read 10 pages, the second week twice as many "
                 "pages as the first week, and the third week five more pages than he read on the first "
                 "week. How many pages did he read in all?",
                 "In the second week he read 2 * 10 = <<2*10=20>>20 pages.\n"
                 "In the third week Tom read five more pages than the second week, which totals 5 + 10 = "
                 "<<5+10=15>>15 pages.\nIn all he read 10 + 20 + 15 = <<10+20+15=45>>45 pages.\n#### 45")
    with pytest.raises(KeyInfoError, match="compares with the first"):
        keyinfo_for_seed(seed)


@pytest.mark.parametrize("question, solution, kept", [
    # a part of the question's period: 2 of its 3 days
    ("Lance wants to read a 100 page book in 3 days. Yesterday he read 35 pages. Today he read 5 fewer "
     "pages than yesterday. How many pages should he read tomorrow to finish the book?",
     "Today he read 35 - 5 = <<35-5=30>>30 pages.\nSo he read a total of 35 + 30 = <<35+30=65>>65 pages in 2 "
     "days.\nHe should read 100 - 65 = <<100-65=35>>35 pages tomorrow.\n#### 35", "in 2 days"),
    # a count the question's numbers add up to, fewer than its whole
    ("There are 10 students in a class, 5 of which scored 92 on a test and 4 of which scored 80. What is the "
     "total score of those who scored 92 or 80?",
     "The 5 students scored 5 * 92 = <<5*92=460>>460 points.\nThe 4 students scored 4 * 80 = <<4*80=320>>320 "
     "points.\n9 students therefore scored a combined total of 460 + 320 = <<460+320=780>>780 points.\n#### 780",
     "9 students"),
])
def test_numbers_the_words_imply_are_kept(question: str, solution: str, kept: str) -> None:
    fields, _ = keyinfo_for_seed(_seed(question, solution))
    assert any(kept in u for u in fields["unknown_quantities"])
