"""SMART seed filters: each reason with cases that must and must not trigger it."""

from __future__ import annotations

import pytest

from qcstation.core.ingest.filters import (
    FILTER_REASONS,
    check_seed,
    find_gcd_lcm,
    find_min_max,
    single_number_issue,
)


def reasons(question: str, solution: str | None = None, answer_text: str = "12",
            answer_value: str | None = "12", steps: int | None = 3) -> list[str]:
    return [h.reason for h in check_seed(question, solution, answer_text, answer_value, steps)]


def test_reason_codes_are_stable() -> None:
    assert FILTER_REASONS == ("not_single_number", "single_step", "gcd_lcm", "min_max")


# --- not_single_number ------------------------------------------------------------------
@pytest.mark.parametrize("answer, count_hint", [
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "2 numbers"),
    ("(1,-16,-4,43)", "4 numbers"),
    ("5(√3 + 1)", "3 numbers"),
])
def test_not_single_number_several_numbers(answer: str, count_hint: str) -> None:
    detail = single_number_issue(answer, None)
    assert detail is not None and count_hint in detail and answer in detail
    assert reasons("Find it.", answer_text=answer, answer_value=None) == ["not_single_number"]


def test_not_single_number_no_number() -> None:
    detail = single_number_issue("None of these", None)
    assert detail == "answer 'None of these' is not a number"


def test_single_number_passes() -> None:
    assert single_number_issue("\\frac{14}{3}", "14/3") is None
    assert reasons("How many apples?", answer_text="\\frac{14}{3}", answer_value="14/3") == []


# --- single_step --------------------------------------------------------------------------
def test_single_step_only_when_exactly_one_step() -> None:
    hits = check_seed("How many?", None, "7", "7", 1, "MAWPS subset singleop (one operation)")
    assert [(h.reason, h.detail) for h in hits] == [
        ("single_step", "one reasoning step (MAWPS subset singleop (one operation))")]
    assert reasons("How many?", steps=2) == []
    assert reasons("How many?", steps=None) == []  # unknown step count is not filtered
    # an equation that only states the answer ("8.0") takes no step: single-step too
    hits = check_seed("How many?", None, "8", "8", 0, "no operation in equation '8.0': it states the answer")
    assert [(h.reason, h.detail) for h in hits] == [
        ("single_step", "no reasoning step (no operation in equation '8.0': it states the answer)")]


# --- gcd_lcm ------------------------------------------------------------------------------
@pytest.mark.parametrize("question, solution, phrase, where", [
    ("Find the greatest common divisor of $3339$, $2961$, and $1491$.", None,
     "greatest common divisor", "question"),
    ("What is the greatest possible value of $\\gcd(n + 7, 2n + 1)$?", None, "gcd", "question"),
    ("Three bells ring every 16, 10 and 8 minutes. When do they ring together?",
     "LCM of 16,10,8 = 80", "LCM", "solution"),
    ("Find the H.C.F. of 24 and 36.", None, "H.C.F.", "question"),
    ("When do the buses meet again?", "The least common multiple of 4 and 9 is 36.",
     "least common multiple", "solution"),
])
def test_gcd_lcm_positive(question: str, solution: str | None, phrase: str, where: str) -> None:
    detail = find_gcd_lcm(question, solution)
    assert detail is not None
    assert detail.startswith(f"{where} mentions '{phrase}'")
    assert "gcd_lcm" in reasons(question, solution)


@pytest.mark.parametrize("question, solution", [
    # adding fractions over a common denominator is not a GCD/LCM problem
    ("What is 1/4 + 1/6?", "Using the least common denominator 12: 3/12 + 2/12 = 5/12."),
    ("The school has a common room with 40 chairs and 8 tables. How many seats are there?", None),
    ("Calculate 12 + 18.", "12 + 18 = 30"),
    ("Maxim lost 3 of his 12 marbles. How many are left?", None),
])
def test_gcd_lcm_negative(question: str, solution: str | None) -> None:
    assert find_gcd_lcm(question, solution) is None


# --- min_max ------------------------------------------------------------------------------
@pytest.mark.parametrize("question, solution, phrase", [
    ("What is the smallest positive integer $n$ such that $n^2 > 200$?", None,
     "smallest positive integer"),
    ("Find the maximum value of \\[4(x + 7)(2 - x)\\] over all real x.", None, "maximum value"),
    ("The truck can carry 3755 pounds. What is the maximum number of boxes which can be loaded?",
     None, "maximum number"),
    ("How many boxes fit if she packs as many boxes as possible into the van?", None,
     "as many boxes as possible into the van?"),
    ("Tom, Ann and Bo ran 3, 5 and 4 miles. Which of them ran the farthest distance, the longest?",
     None, "Which of them ran the farthest distance, the longest?"),
    ("The farmer wants to maximize the fenced area. What is the area?", None, "maximize"),
    ("Compute $\\max(3, 7) + 2$.", None, "\\max"),
])
def test_min_max_positive_question(question: str, solution: str | None, phrase: str) -> None:
    detail = find_min_max(question, solution)
    assert detail is not None
    assert detail.startswith(f"question asks for an extreme value ('{phrase}')")
    assert "min_max" in reasons(question, solution)


def test_min_max_positive_solution_only() -> None:
    detail = find_min_max("How far apart are the two towns?",
                          "The distance is $\\min(12, 15) = 12$ miles.")
    assert detail is not None and detail.startswith("solution takes a max/min ('\\min')")


@pytest.mark.parametrize("question", [
    "She needs at least 5 apples and at most 9 pears. She has 3 apples. How many more apples?",
    "Sara's team won most of their games. They lost 4 of 12 games. How many did they win?",
    "It takes 15 minutes to walk 1 mile and 5 min to rest. How long for 2 miles?",
    "Max has 3 apples and Min has 4. How many apples do they have?",
    "They ordered the largest pizza for $12 and two drinks for $2 each. What did they pay?",
    "What is 3/6 + 1/6? Answer as a fraction in lowest terms.",
    "At its maximum speed, a space shuttle travels 7 km per second. How far does it go in 3 s?",
    "Find the least common multiple of 4 and 6.",   # a GCD/LCM problem, not min/max
    # a contest described in the story is not the question asked
    "Teams try to find as many shells as possible. Team A found 40 of 100 shells. What percent?",
    "A class has 3 groups; the last one (which is the smallest) has 10 fewer. How many in it.",
])
def test_min_max_negative(question: str) -> None:
    assert find_min_max(question, None) is None


def test_min_max_solution_prose_does_not_count() -> None:
    # "5 min (" is minutes, and "most" in a solution is prose, not a max over a set
    assert find_min_max("How long does it take?",
                        "Walking takes 5 min (300 s). Most of the time is spent walking.") is None


def test_all_matching_reasons_are_reported_in_order() -> None:
    hits = check_seed("What is the greatest common divisor of 12 and 18, the largest number?",
                      None, "6 or 3", None, 1)
    assert [h.reason for h in hits] == ["not_single_number", "single_step", "gcd_lcm", "min_max"]
