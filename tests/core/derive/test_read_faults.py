"""Faults an annotator found reading ten derived items per transformation (session of
2026-11-27), each pinned on a hand-worked seed:

* added operation: "…1/3 as many messages to Mr. He also delivers 24 more messages. Yu, how
  many…" -- a title's period was taken for the end of a sentence (GSM8K 389);
* noise: a distractor put before "A few minutes later, 20 more birds joined the fearless
  birds." cut that sentence from the one it goes on from (GSM8K 742);
* inverse: "a speed of Xkb per second" (GSM8K 627);
* arithmetic ladder: at 7 significant digits the 1/3 of GSM8K 742 became 0.8589309, shown
  as 8589309/10000000 -- not a 7-digit decimal any more.
"""

from __future__ import annotations

import pytest

from qcstation.core.derive.bindings import sentences
from qcstation.core.derive.model import DerivedItem, Refused
from qcstation.core.derive.story import _insertion_points, add_operation
from qcstation.core.derive.transforms import Options, digits, inverses
from tests.core.derive.helpers import make_db, parent_of


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return make_db(tmp_path_factory.mktemp("faults"), ["messages", "ashley", "jacket", "jeremy"])


@pytest.mark.parametrize(("text", "expected"), [
    ("If he delivers 66 messages to Ms. Thompson and 1/3 as many messages to Mr. Yu, how many?",
     ["If he delivers 66 messages to Ms. Thompson and 1/3 as many messages to Mr. Yu, how many?"]),
    ("Tom has 5 pens. Dr. Smith has 3. How many?", ["Tom has 5 pens.", "Dr. Smith has 3.", "How many?"]),
    ("She left at 5 p.m. Tom stayed.", ["She left at 5 p.m.", "Tom stayed."]),
])
def test_a_title_does_not_end_a_sentence(text: str, expected: list[str]) -> None:
    assert [s for _, _, s in sentences(text)] == expected


def test_the_added_sentence_stays_out_of_mr_yu(db) -> None:
    parent = parent_of(db, "messages")
    last = sentences(str(parent.seed["question"]))[-1][2]
    assert last.startswith("If he delivers") and "to Mr. Yu, how many messages" in last
    # Since 00cd30d (lane gold8) the item is not made at all: "1/3 as many messages to Mr. Yu"
    # states a relation after the place of the added sentence, so whether "He also delivers N
    # more messages" is scaled by it reads two ways; refused with that reason, never cut at "Mr."
    out = add_operation(parent, Options(), "t:messages")
    assert not [o for o in out if isinstance(o, DerivedItem)]
    assert [(o.code, "as many" in o.reason) for o in out if isinstance(o, Refused)] == [("scaled-answer", True)]


def test_noise_goes_before_no_sentence_that_goes_on_from_the_last() -> None:
    q = ("Jeremy saw 12 birds in their backyard and threw a stone at them, scaring away 1/3 of "
         "that number. A few minutes later, 20 more birds joined the fearless birds. How many "
         "birds are now in the backyard?")
    points = _insertion_points(q)
    assert q.index("A few minutes later") not in points
    assert points == [0, q.index("How many birds")]
    q2 = "Ann has 4 cats. Bob has 3 dogs. But Carl has 2 fish. So how many pets?"
    assert _insertion_points(q2) == [0, q2.index("Bob has")]


def test_a_hidden_given_written_against_its_unit_is_spaced(db) -> None:
    parent = parent_of(db, "ashley")
    made = {i.params["hidden"]: i for i in inverses(parent, Options(inverse_per_seed=5), "t:ashley")
            if isinstance(i, DerivedItem)}
    assert "speed of X kb per second" in made["g1_kb"].question
    # "1 Mb has 1000 kb": the 1 is stated beside the 1000 and not used, so 1000 is held
    assert "g2_kb" not in made
    assert "'1'" in {g.name: g for g in parent.givens}["g2_kb"].fixed


def test_the_arithmetic_ladder_never_shows_its_digits_as_a_fraction(db) -> None:
    parent = parent_of(db, "jeremy")                     # 12, 1/3 and 20
    four, seven = digits(parent, Options(digit_levels=(4, 7)), "t:jeremy")
    assert isinstance(four, DerivedItem) and "/" not in four.question
    assert isinstance(seven, Refused) and seven.code == "too-many-decimals"
    assert "g1 = 0." in seven.reason                     # 0.xxxxxxx: seven decimal places
    jacket = digits(parent_of(db, "jacket"), Options(digit_levels=(7,)), "t:jacket")[0]
    assert isinstance(jacket, DerivedItem) and "/" not in jacket.question   # 80 -> 12.34567
