"""attack10 (issue 30): a number in scientific notation whose exponent is not whole
("1E+4.5", "2e-1.5") or that has two exponents ("1e4e5") went to math-verify, which reads
"1E+4.5" as 10000.0*0.5: a reply of that text was *correct* against a gold 5000. It is
malformed, refused before math-verify, in the flexible and the strict verdict alike."""

from __future__ import annotations

import pytest

from qcstation.eval.checker import AnswerChecker, check_answer


@pytest.mark.parametrize("reply", ["The answer is 1E+4.5.", "The answer is 1e4.5", "\\boxed{1E+4.5}",
                                   "So it is $1e4.5 dollars.\nThe answer is 1e4.5."])
def test_a_fractional_exponent_is_not_read_as_a_product(reply: str) -> None:
    res = check_answer(reply, "5000")
    assert res.verdict == "unparseable" and res.method == "none", res
    assert "exponent is a whole number" in (res.detail or "")


def test_malformed_replies_and_golds_in_a_checker_batch() -> None:
    with AnswerChecker(workers=1) as checker:
        flexible, strict = checker.check_both([("The answer is 1E+4.5.", "5000", None),
                                               ("The answer is 1e4e5.", "7", None),
                                               ("The answer is 2e-1.5.", "0.05", None),
                                               ("The answer is 18.", "1e4.5", None),
                                               ("The answer is 2.5e3.", "2500", None)])
    assert [r.verdict for r in flexible] == ["unparseable"] * 4 + ["correct"]
    assert [r.verdict for r in strict] == ["unparseable"] * 4 + ["correct"]
    assert flexible[3].method == "gold" and "gold answer 1e4.5" in (flexible[3].detail or "")
