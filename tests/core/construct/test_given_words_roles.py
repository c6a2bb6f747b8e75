"""A use the line names nothing of, read by what it does (issue 26.1; the independent check's
:func:`qcstation.core.construct.check.units.places_it_can_be` with
:mod:`qcstation.core.reading.number_roles`): a factor or divisor is never a difference the question
compares by ("six more books than Ben"), where every place of the value has its own given. Held-out GSM8K train seed of lane gold11a's tuning sample ("Sam memorized
six more digits of pi than Carlos ... Mina memorized six times as many digits of pi as Carlos":
"24/6" and "4+6", refused as tied by order only)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.number_roles import compares_by

Q = ("Ann read six more books than Ben read. Cal read six times as many books as Ben read. "
     "If Cal read 42 books, how many books did Ann read?")
S = "Ben read 42/6=<<42/6=7>>7 books.\nAnn read 7+6=<<7+6=13>>13 books.\n#### 13"


def _places(seed: dict) -> list[str]:
    """Each step's expression with its givens written as the question's words (20 characters)."""
    rule = rule_for_seed(seed)
    q = seed["question"]
    out = []
    for st in rule.steps:
        text = st.sexpr
        for g in rule.givens:
            text = text.replace(str(g["name"]), repr(q[g["span"][0]:g["span"][0] + 20]))
        out.append(text)
    return out


def test_the_divisor_is_the_number_of_times_and_the_added_number_the_difference() -> None:
    seed = {"question": Q, "solution": S, "answer_text": "13", "answer_value": "13"}
    assert _places(seed)[:2] == ["(/ '42 books, how many b' 'six times as many bo')",
                                 "(+ s1_books 'six more books than ')"]


def test_a_count_that_is_no_difference_is_still_refused() -> None:
    # "six more books after Ben" compares by nothing ("more" without "than": books read after him,
    # a count that may be multiplied): no role tells its 6 from "six times" for the wordless "42/6"
    q = Q.replace("six more books than Ben read", "six more books after Ben")
    with pytest.raises(RuleError):
        rule_for_seed({"question": q, "solution": S, "answer_text": "13", "answer_value": "13"})


def test_what_compares_by() -> None:
    q = "Ann earns $6 more per hour than Ben. Cal read six more books than Ben. Dan has 6 times as many."
    assert compares_by(q, q.index("six more"))
    assert not compares_by(q, q.index("6 more"))  # a rate's difference may be multiplied by hours
    assert not compares_by(q, q.index("6 times"))
    q2 = "He ran 20% more than Ben, 1/5 more than Cal, and six times more than Dan. He jumped 4 more times than Al."
    assert not any(compares_by(q2, q2.index(x)) for x in ("20%", "1/5", "six"))  # these multiply
    assert compares_by(q2, q2.index("4 more"))
    assert not compares_by(q2, -1) and not compares_by("", 0)


def test_a_wrong_given_at_a_difference_is_still_refused() -> None:
    # the two 6s swapped (the divisor at "six more books than", the added 6 at "six times"): the
    # given-place check reads each line as the other's place
    import copy

    from qcstation.core.construct.make.rules.dispatch import check_independently
    from qcstation.core.reading.expr import BinOp, Name

    seed = {"question": Q, "solution": S, "answer_text": "13", "answer_value": "13"}
    rule = rule_for_seed(seed)
    a, b = (g["name"] for g in rule.givens if g["value"] == "6")
    swapped = copy.deepcopy(rule)
    for st in swapped.steps:
        e = st.expr
        if isinstance(e, BinOp):
            swap = {a: b, b: a}
            st.expr = BinOp(e.op, *(Name(swap.get(x.name, x.name)) if isinstance(x, Name) else x
                                    for x in (e.left, e.right)))
    with pytest.raises(RuleError, match="given-place|given-words"):
        check_independently(swapped, Q, S, rule.value)
