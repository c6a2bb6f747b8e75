"""The final-answer checker: real extraction, real math-verify in real worker processes,
the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from qcstation.eval.checker import (
    CHECKER_VERSION,
    MAX_SCAN_CHARS,
    AnswerChecker,
    CheckLimits,
    check_answer,
    extract_answer,
    parse_gold,
)
from tests.procs import wait_until_computing
from tests.must import must

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def checker() -> Iterator[AnswerChecker]:
    # math-verify's limit is wall-clock (signal.alarm): a generous one, so that a busy machine
    # never turns a verdict these tests expect into a timeout (the limits have their own tests)
    with AnswerChecker(workers=2, limits=CheckLimits(timeout_s=60)) as c:
        yield c


# --------------------------------------------------------------------------- traps (exact path)

# (response, gold_text, gold_value, verdict, extracted, method)
TRAPS = [
    # several boxed answers: the last non-empty one counts
    ("First \\boxed{12}. Wait, I made an error: \\boxed{18}", "18", None, "correct", "18", "exact"),
    ("\\boxed{18} ... on reflection \\boxed{20}", "18", None, "wrong", "20", "exact"),
    ("\\boxed{18} and then \\boxed{}", "18", None, "correct", "18", "exact"),
    # boxed text and nested braces
    ("\\boxed{\\text{18 apples}}", "18", None, "correct", "18 apples", "exact"),
    ("$\\boxed{\\dfrac{\\text{7}}{2}}$", "7/2", None, "correct", "\\dfrac{7}{2}", "exact"),
    ("\\boxed{x = 18}", "18", None, "correct", "18", "exact"),
    ("so \\boxed 5 is it", "5", None, "correct", "5", "exact"),
    # a gold answer without delimiters, given as text or as the stored exact value
    ("The answer is 3.5", "\\frac{7}{2}", None, "correct", "3.5", "exact"),
    ("Thus the answer is 540 degrees.", "540°", "540", "correct", "540 degrees", "exact"),
    ("The answer is 4 1/3 km/h", "4 1/3 km/h", "13/3", "correct", "4 1/3 km/h", "exact"),
    # Markdown bold
    ("Adding up, she has **73** stickers.", "73", None, "correct", "73", "exact"),
    ("**Step 2**: add 3 and 4 to get 7.", "7", None, "correct", "7", "exact"),
    ("**Final Answer:** 42", "42", None, "correct", "42", "exact"),
    ("To answer: we compute 3+4 and so on.\nShe has **18** apples.", "18", None, "correct", "18",
     "exact"),
    # answer markers, trailing sentences
    ("The answer is 18.", "18", None, "correct", "18", "exact"),
    ("The answer is 18. Then we double-check with 20 apples.", "18", None, "correct", "18",
     "exact"),
    ("The answer is 18 because 6 x 3 = 18, not 20.", "18", None, "correct", "18", "exact"),
    ("Natalia sold 48/2 = 24 clips in May.\n#### 72", "72", None, "correct", "72", "exact"),
    ("#### Step 1\nShe has 5 + 13 = 18 eggs.", "18", None, "correct", "18", "exact"),
    ("Final answer: $18", "18", None, "correct", "$18", "exact"),
    ("Final Answer: The final answer is $18$. I hope it is correct.", "18", None, "correct", "18",
     "exact"),
    ("The answer is:\n\n18", "18", None, "correct", "18", "exact"),
    ("The answer is x = 18.", "18", None, "correct", "18", "exact"),
    # percentages (p% matches a gold of p and of p/100; 0.25 matches a gold written 25%)
    ("The answer is 25%.", "25", None, "correct", "25%", "exact"),
    ("The answer is 25%.", "0.25", None, "correct", "25%", "exact"),
    ("The answer is 25\\%.", "25", None, "correct", "25%", "exact"),
    ("The answer is 0.25", "25%", None, "correct", "0.25", "exact"),
    ("The answer is 0.25", "25", None, "wrong", "0.25", "exact"),
    ("The answer is 20%.", "25", None, "wrong", "20%", "exact"),
    # thousands separators
    ("The answer is 1,000.", "1000", None, "correct", "1,000", "exact"),
    ("The answer is 1 000.", "1000", None, "correct", "1 000", "exact"),
    ("The answer is 1\u202f000.", "1000", None, "correct", "1 000", "exact"),
    ("\\boxed{1{,}250{,}000}", "1250000", None, "correct", "1{,}250{,}000", "exact"),
    ("\\boxed{11,\\! 111,\\! 100}", "11,\\! 111,\\! 100", None, "correct", "11,111,100", "exact"),
    ("It took 2 hours 20 minutes.", "140", None, "wrong", "20", "exact"),
    # units and currency
    ("The answer is 18 dollars.", "18", None, "correct", "18 dollars", "exact"),
    ("She pays $18.00 in total.", "18", None, "correct", "$18.00", "exact"),
    ("The answer is 18 meters", "18", None, "correct", "18 meters", "exact"),
    ("\\boxed{18 \\text{ cm}^2}", "18", None, "correct", "18 cm^2", "exact"),
    ("The answer is \\$18.", "18", None, "correct", "$18", "exact"),
    ("It costs €1,250.50 now.", "1250.5", None, "correct", "€1,250.50", "exact"),
    # negative numbers
    ("The answer is -5.", "-5", None, "correct", "-5", "exact"),
    ("The answer is −5.", "-5", None, "correct", "-5", "exact"),
    ("The temperature is $-12$ degrees.", "-12", None, "correct", "-12", "exact"),
    ("The answer is 5.", "-5", None, "wrong", "5", "exact"),
    # decimals vs fractions
    ("The answer is 0.5", "1/2", None, "correct", "0.5", "exact"),
    ("The answer is 1/2", "0.5", None, "correct", "1/2", "exact"),
    ("The answer is \\frac{1}{2}.", "0.5", "1/2", "correct", "\\frac{1}{2}", "exact"),
    ("The answer is $\\dfrac{7}{2}$.", "3.5", "7/2", "correct", "\\dfrac{7}{2}", "exact"),
    ("\\boxed{\\tfrac12}", "0.5", None, "correct", "\\tfrac12", "exact"),
    ("The answer is 0.33", "1/3", None, "correct", "0.33", "exact-rounded"),
    ("The answer is 33.33%", "1/3", None, "correct", "33.33%", "exact-rounded"),
    ("The answer is 0.3", "1/3", None, "wrong", "0.3", "exact"),
    ("The answer is 0.13", "1/8", None, "wrong", "0.13", "exact"),
    ("The answer is 18.00", "18", None, "correct", "18.00", "exact"),
    # a decimal gold keeps its stated tolerance
    ("The answer is 1/3", "0.33", "33/100", "correct", "1/3", "exact"),
    # number words
    ("The answer is eighteen.", "18", None, "correct", "eighteen", "exact"),
    ("\\boxed{one hundred and five}", "105", None, "correct", "one hundred and five", "exact"),
    ("The answer is twenty-one.", "18", None, "wrong", "twenty-one", "exact"),
    ("The answer is eighteen dollars.", "18", None, "unparseable", "eighteen dollars", "none"),
    # no answer at all, empty responses
    ("I am not sure how to solve this problem.", "18", None, "unparseable", None, "none"),
    ("", "18", None, "unparseable", None, "none"),
    ("   \n  ", "18", None, "unparseable", None, "none"),
    (None, "18", None, "unparseable", None, "none"),
]


@pytest.mark.parametrize("response,gold,gold_value,verdict,extracted,method", TRAPS)
def test_traps(response: str | None, gold: str, gold_value: str | None, verdict: str,
               extracted: str | None, method: str) -> None:
    res = check_answer(response, gold, gold_value)
    assert (res.verdict, res.extracted, res.method) == (verdict, extracted, method), res.detail
    assert res.checker_version == CHECKER_VERSION


def test_traps_never_need_a_worker_process() -> None:
    with AnswerChecker(workers=1) as c:
        out = c.check_many([(r, g, v) for r, g, v, *_ in TRAPS])
        assert not c.started  # all decided in-process
    assert [r.verdict for r in out] == [t[3] for t in TRAPS]


def test_extraction_sources_and_values() -> None:
    e = extract_answer("Step 1: 3 + 4 = 7.\n\\boxed{\\frac{1}{\\sqrt{4}}}")
    assert (e.source, e.text, e.value) == ("boxed", "\\frac{1}{\\sqrt{4}}", None)
    # boxes on lines of their own: the last one is the answer
    e = extract_answer("Two boxes: $\\boxed{\\{1, 2\\}}$\nand then \\boxed{7}")
    assert (e.source, e.text, str(must(e.value).value)) == ("boxed", "7", "7")
    # boxes joined on one line are several values offered, as the strict reading sees them
    e = extract_answer("Two boxes: $\\boxed{\\{1, 2\\}}$ and \\boxed{7}")
    assert e.hedged and e.value is None
    e = extract_answer("We get **12**, then subtract 2. The answer is 10.")
    assert (e.source, e.text) == ("marker", "10")
    e = extract_answer("Total is 18 apples.")
    assert (e.source, e.text) == ("last-number", "18")
    e = extract_answer("The root is \\sqrt{2}")  # the 2 inside \sqrt is not an answer
    assert not e.found
    assert "no answer" in e.reason


@pytest.mark.parametrize("text,source,answer", [
    # no box, marker or bold: a last number inside a LaTeX math span gives the whole span
    ("We get $3 \\times 6 = 18$ apples.", "last-math", "18"),
    ("Thus \\(x = 7\\).", "last-math", "7"),
    ("\\[ 2 + 3 = 5 \\]\nDone.", "last-math", "5"),
    ("Therefore, the area is $\\frac{\\sqrt{36}}{2}$.", "last-math", "\\frac{\\sqrt{36}}{2}"),
    ("So $x = \\sqrt{2}$", "last-math", "x = \\sqrt{2}"),
    ("$10^{3}$", "last-math", "10^{3}"),
    # a $ that is currency is not a math span
    ("It costs $5 and $6 in total.", "last-number", "$6"),
    ("costs $5 and $x$ is 3", "last-number", "3"),
    ("So $a+b$ is 12.", "last-number", "12"),
])
def test_last_number_inside_math(text: str, source: str, answer: str) -> None:
    e = extract_answer(text)
    assert (e.source, e.text) == (source, answer)


def test_math_span_answers_are_checked(checker: AnswerChecker) -> None:
    out = checker.check_many([("Therefore, the area is $\\frac{\\sqrt{36}}{2}$.", "3", None),
                              ("So $x = \\sqrt{2}$", "\\sqrt{2}", None),
                              ("$10^{3}$", "1000", None)])
    assert [r.verdict for r in out] == ["correct", "correct", "correct"]


def test_gold_parsing() -> None:
    assert parse_gold("18", "18").shown == "18"
    assert must(parse_gold("0.33", "33/100").exact).decimals == 2  # tolerance of the text kept
    assert parse_gold("something odd", "7/2").shown == "7/2"  # stored value wins
    assert parse_gold("\\frac{\\sqrt{3}}{2}").exact is None  # symbolic: math-verify decides
    assert parse_gold("25%").shown == "25%"


# --------------------------------------------------------------------------- math-verify workers


@pytest.mark.parametrize("response,gold,verdict", [
    ("The answer is $\\frac{\\sqrt{3}}{2}$.", "\\frac{\\sqrt{3}}{2}", "correct"),
    ("\\boxed{\\sqrt{3}/2}", "\\frac{\\sqrt{3}}{2}", "correct"),
    ("\\boxed{2\\sqrt{3}}", "\\frac{\\sqrt{3}}{2}", "wrong"),
    ("\\boxed{\\sqrt{324}}", "18", "correct"),
    ("\\boxed{2^{3}}", "8", "correct"),  # not read as 2 with a unit ^3
    ("\\boxed{2^{3}}", "6", "wrong"),
    ("The interval is $(1, 2)$.", "(1,2)", "correct"),
    ("\\boxed{x^2+1}", "1+x^2", "correct"),
    ("\\boxed{3\\pi}", "3\\pi", "correct"),
    ("Therefore $\\boxed{\\text{(C)}}$", "\\frac{1}{2}", "wrong"),  # an answer, not 1/2
    ("\\boxed{\\frac{}{}}", "\\frac{1}{2}", "unparseable"),
    # a number with something after it that is not a unit is not a plain number
    ("\\boxed{18x}", "18", "wrong"),
    ("\\boxed{18!}", "18", "wrong"),
    ("\\boxed{18\\pi}", "18", "wrong"),
    ("The answer is 18\\pi.", "18", "wrong"),
    ("\\boxed{18^\\circ}", "18", "correct"),
    # an equation is kept whole; "x = 18" gives 18
    ("\\boxed{5x - 7y + 4 = 0}", "5x - 7y + 4 = 0", "correct"),
])
def test_symbolic_answers_go_to_math_verify(checker: AnswerChecker, response: str, gold: str,
                                            verdict: str) -> None:
    res = checker.check(response, gold)
    assert res.verdict == verdict, res
    assert res.method in ("math-verify", "gold") and res.detail


def test_check_many_keeps_order_and_mixes_paths(checker: AnswerChecker) -> None:
    items = [
        ("The answer is 18.", "18", "18"),
        ("\\boxed{\\sqrt{2}}", "\\sqrt{2}", None),
        ("No idea.", "18", "18"),
        ("\\boxed{\\sqrt{8}}", "2\\sqrt{2}", None),
        ("\\boxed{\\sqrt{8}}", "3", None),
        ("#### 7", "8", "8"),
    ]
    out = checker.check_many(items)
    assert [(r.verdict, r.method) for r in out] == [
        ("correct", "exact"), ("correct", "math-verify"), ("unparseable", "none"),
        ("correct", "math-verify"), ("wrong", "math-verify"), ("wrong", "exact")]
    assert checker.started


def test_math_verify_works_from_a_thread(checker: AnswerChecker) -> None:
    # math-verify's signal.alarm fails outside a main thread; the workers make it safe
    box: list[object] = []
    t = threading.Thread(target=lambda: box.append(checker.check("\\boxed{\\sqrt{9}}", "3")))
    t.start()
    t.join(timeout=60)
    assert box and box[0].verdict == "correct"  # type: ignore[attr-defined]


def test_math_verify_timeout_is_unparseable_with_a_reason() -> None:
    # a long wall clock: only math-verify's own 1 s limit can end this item, however busy the machine
    with AnswerChecker(workers=1, limits=CheckLimits(timeout_s=1, wall_s=120)) as c:
        res = c.check("\\boxed{9^{9^{9}}}", "5")
        assert res.verdict == "unparseable"
        assert "longer than 1 s" in res.detail or "time limit" in res.detail


def test_hung_worker_is_killed_at_the_wall_clock() -> None:
    # the verdicts expected here get 8 s of math-verify (a busy machine is slow); the stopped
    # worker is ended by the 10 s wall clock only
    limits = CheckLimits(timeout_s=8, wall_s=10)
    with AnswerChecker(workers=1, limits=limits) as c:
        assert c.check("\\boxed{\\sqrt{4}}", "2").verdict == "correct"
        [pid] = c.worker_pids()
        os.kill(pid, signal.SIGSTOP)  # a stopped worker never answers: only the kill ends it
        start = time.perf_counter()
        res = c.check("\\boxed{\\sqrt{9}}", "3")
        elapsed = time.perf_counter() - start
        assert res.verdict == "unparseable" and "wall-clock" in res.detail, res
        assert elapsed >= 9.9  # never before the wall clock; no upper bound: a busy machine is slow
        assert c.worker_pids() != [pid]
        assert c.check("\\boxed{\\sqrt{9}}", "3").verdict == "correct"


def test_worker_killed_mid_job_gives_unparseable_and_is_replaced() -> None:
    # The kill lands while the worker is computing the first item (9^(9^9) runs far past the
    # moment its CPU time shows it busy, and 60 s of math-verify cannot end it first): no race
    # with a timer, however busy the machine is.
    with AnswerChecker(workers=1, limits=CheckLimits(timeout_s=60)) as c:
        assert c.check("\\boxed{\\sqrt{4}}", "2").verdict == "correct"
        [pid] = c.worker_pids()
        busy: list[bool] = []

        def kill_when_busy() -> None:
            busy.append(wait_until_computing(pid))
            os.kill(pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        out = c.check_many([("\\boxed{9^{9^{9}}}", "5", None), ("\\boxed{\\sqrt{16}}", "4", None)])
        killer.join()
        assert busy == [True]
        assert out[0].verdict == "unparseable" and "SIGKILL" in out[0].detail, out[0]
        assert out[1].verdict == "correct"  # the next item went to the replacement
        assert c.worker_pids() != [pid]


def test_unreadable_gold_is_reported_as_such(checker: AnswerChecker) -> None:
    res = checker.check("\\boxed{18}", "\\text{}")
    assert res.verdict == "unparseable" and res.method == "gold"
    res = check_answer("\\boxed{18}", "")
    assert res.verdict == "unparseable" and res.method == "gold"


# --------------------------------------------------------------------------- limits


def test_only_the_tail_is_searched() -> None:
    text = "The answer is 99.\n" + "x" * (MAX_SCAN_CHARS + 10) + "\nno number here"
    assert check_answer(text, "99").verdict == "unparseable"
    assert check_answer("The answer is 99.\n" + "x" * 1000, "99").verdict == "correct"


def test_huge_numbers_never_hit_the_int_str_limit() -> None:
    big = "9" * 5000
    for text in (f"\\boxed{{{big}}}", f"The answer is {big}.", f"we get {big}", f"**{big}**"):
        res = check_answer(text, "18")
        assert res.verdict == "unparseable" and ("digits" in res.detail or "close" in res.detail)
    assert check_answer("The answer is 18.", big, big).verdict == "wrong"


PATHOLOGICAL = {
    "digits": "1" * 1_000_000,
    "open boxes": "\\boxed{" * 150_000,
    "braces": "{" * 1_000_000,
    "bold markers": "**" * 500_000,
    "unclosed bold": "**" + "a" * 1_000_000,
    "markers": "The answer is " * 70_000,
    "hashes": "#### " * 200_000,
    "commas": "1," * 500_000,
    "spaced groups": "1 000 " * 160_000,
    "dollars": "$1" * 500_000,
    "fracs": "\\frac{" * 160_000,
    "number words": "one hundred and " * 60_000,
    "percents": "5%" * 500_000,
    "escapes": "\x1b[" * 500_000,
    "backslashes": "\\" * 1_000_000,
}


#: CPU seconds the child may spend on all the pathological texts together. Each takes well
#: under a second of CPU (bench/checker_bench.py has the speed); catastrophic backtracking on
#: 1 MB takes hours. CPU time, not the clock: a loaded machine gives the child less of the
#: CPU per second but never makes it spend more seconds of CPU, so load cannot decide this.
PATHOLOGICAL_CPU_LIMIT_S = 300

_PATHOLOGICAL_CHILD = """
import json, resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_CPU, (limit, limit))
from qcstation.eval.checker import check_answer, extract_answer
from tests.eval.test_checker import PATHOLOGICAL
for name in sorted(PATHOLOGICAL):
    text = PATHOLOGICAL[name]
    extract_answer(text)
    res = check_answer(text, "18", "18")
    print(json.dumps([name, res.verdict]), flush=True)
"""


@pytest.fixture(scope="module")
def pathological_verdicts() -> dict[str, str]:
    """Every pathological text checked in one child process under a CPU-time limit; the
    texts it finished, with their verdicts (a text it was killed on is missing)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", _PATHOLOGICAL_CHILD,
                           str(PATHOLOGICAL_CPU_LIMIT_S)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=None)
    return dict(json.loads(line) for line in proc.stdout.splitlines() if line.startswith("["))


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_no_catastrophic_backtracking_on_1mb(name: str, pathological_verdicts: dict[str, str]) -> None:
    assert name in pathological_verdicts, \
        f"{name}: not checked within {PATHOLOGICAL_CPU_LIMIT_S} s of CPU (backtracking?)"
    assert pathological_verdicts[name] in ("correct", "wrong", "unparseable")


# --------------------------------------------------------------------------- CLI


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qcstation", "check-answer", *args],
                          input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_cli_json() -> None:
    proc = _cli("So the total is **73**.", "--gold", "73", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["extracted"] == "73" and data["verdict"] == "correct"
    assert data["value"] == "73" and data["method"] == "exact"
    assert data["checker_version"] == CHECKER_VERSION


def test_cli_stdin_symbolic_and_exit_code_zero_for_any_verdict() -> None:
    proc = _cli("-", "--gold", "\\frac{\\sqrt{3}}{2}", "--json",
                stdin="We simplify.\n\nThe answer is $\\frac{\\sqrt{3}}{2}$.\n")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] == "correct" and data["method"] == "math-verify"
    wrong = _cli("The answer is 17.", "--gold", "18")
    assert wrong.returncode == 0 and "verdict:   wrong" in wrong.stdout
    none = _cli("no idea", "--gold", "18", "--json")
    assert none.returncode == 0 and json.loads(none.stdout)["verdict"] == "unparseable"


def test_cli_escapes_control_characters() -> None:
    proc = _cli("-", "--gold", "3", stdin="\\boxed{\x1b]0;owned\x07\u202e7}")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout and "\u202e" not in proc.stdout
    assert "\\u202e" in proc.stdout and "verdict:" in proc.stdout
    js = _cli("-", "--gold", "3", "--json", stdin="\\boxed{\u202e7}")
    assert "\u202e" not in js.stdout and json.loads(js.stdout)["extracted"] == "\u202e7"


def test_cli_usage_errors_exit_2() -> None:
    assert _cli("18", "--gold", "  ").returncode == 2
    assert _cli("18").returncode == 2  # --gold is required
    bad = _cli("18", "--gold", "18", "--gold-value", "eighteen")
    assert bad.returncode == 2 and "not an exact number" in bad.stderr
    big = _cli("-", "--gold", "18", stdin="1" * 1_000_001)
    assert big.returncode == 2 and "larger than" in big.stderr


# -- the checker never guesses: hedged answers, unclosed boxes, strict answers --------------

@pytest.mark.parametrize("text", [
    "The answer is \\pm 5.", "The answer is ±5", "\\pm 5", "The answer is 16 or 18.",
    "16 or 18", "The answer is 5 and 7.", "5 and 7", "7 and 5", "\\boxed{\\pm 5}",
    "\\boxed{5 \\text{ or } 7}", "The answer is either 5 or 7.", "x = 5 or x = -5",
    "The answer is x = 5, x = -5.",
])
def test_a_hedged_answer_is_never_correct_against_one_gold(text: str) -> None:
    res = check_answer(text, "5")
    assert res.verdict == "wrong", res
    assert check_answer(text, "5", strict=True).verdict != "correct"


@pytest.mark.parametrize("text", [
    "The answer is 5, which is the number of apples.", "Add 5 and 7 to get 12, minus 7 is 5",
    "The answer is 1,005.", "The answer is 18 because 6 x 3 = 18",
])
def test_one_answer_with_other_numbers_nearby_is_not_hedged(text: str) -> None:
    gold = {"The answer is 1,005.": "1005", "The answer is 18 because 6 x 3 = 18": "18"}.get(text, "5")
    assert check_answer(text, gold).verdict == "correct"


def test_an_unclosed_last_box_is_unparseable_never_its_last_number() -> None:
    text = "\\boxed{-" + "{" * 700 + "18" + "}" * 700 + "}"
    res = check_answer(text, "18")
    assert res.verdict == "unparseable" and "close" in res.detail
    # an earlier, closed box does not stand in for the last one either
    assert check_answer("\\boxed{18} then \\boxed{" + "{" * 1300 + "18", "18").verdict == "unparseable"


def test_strict_needs_the_asked_line_flexible_does_not() -> None:
    ignoring = "3 + 2 = 5, so Tom has **5** apples."
    assert check_answer(ignoring, "5").verdict == "correct"
    strict = check_answer(ignoring, "5", strict=True)
    assert strict.verdict == "unparseable" and "The answer is N" in strict.detail
    following = "3 + 2 = 5.\nThe answer is 5."
    assert check_answer(following, "5", strict=True).verdict == "correct"
    assert check_answer("The answer is 6.", "5", strict=True).verdict == "wrong"
    # the asked line must be the last one
    assert check_answer("The answer is 5.\nHope this helps!", "5", strict=True).verdict == "unparseable"


@pytest.mark.parametrize("text,gold,flexible,strict", [
    # a correction is read after it, in both readings; a bare negation is no value
    ("The answer is not 5 but 6.", "5", "wrong", "wrong"),
    ("The answer is not 5 but 6.", "6", "correct", "correct"),
    ("The answer is not 5, it is 6.", "6", "correct", "correct"),
    ("The answer is not 5, rather 6.", "5", "wrong", "wrong"),
    ("The answer is not 5.", "5", "unparseable", "unparseable"),
    # scientific notation
    ("The answer is 1.5e3.", "1500", "correct", "correct"),
    ("The answer is 1.5e3.", "1.5", "wrong", "wrong"),
    ("Answer: 2.5E-1", "0.25", "correct", "unparseable"),
    ("x = 1.5e3", "1500", "correct", "unparseable"),
    # a two-box hedge is the same hedge in both readings, whichever box is last
    ("The answer is \\boxed{16} or \\boxed{18}.", "18", "wrong", "wrong"),
    ("The answer is \\boxed{18} or \\boxed{16}.", "18", "wrong", "wrong"),
    ("The answer is \\boxed{18}.", "18", "correct", "correct"),
    # a strict line whose N is not one number is a format failure: unparseable, never wrong
    ("The answer is 3 apples and 5 pears.", "5", "wrong", "unparseable"),
    ("The answer is about x.", "5", "unparseable", "unparseable"),
])
def test_corrections_notation_and_hedges_read_alike(text: str, gold: str, flexible: str,
                                                     strict: str) -> None:
    assert check_answer(text, gold).verdict == flexible
    got = check_answer(text, gold, strict=True)
    assert got.verdict == strict, got
    if strict == "unparseable":
        assert got.detail


def test_math_verify_limit_counts_cpu_seconds_not_waiting() -> None:
    # a verdict must not depend on load: time spent not computing (here, sleeping; on a busy
    # machine, waiting for a core) never uses up the limit, while computing does
    from qcstation.eval.checker.symbolic import CPULimit, cpu_limit

    with cpu_limit(0.3):
        time.sleep(0.8)  # off the CPU for longer than the limit: not interrupted
    spins = 0
    with pytest.raises(CPULimit):
        with cpu_limit(0.3):
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:  # computes until the limit interrupts it
                spins += 1
    assert spins > 0
    with cpu_limit(0.3):  # the timer is cleared after each block: nothing fires later
        time.sleep(0.1)


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e"])
def test_characters_that_draw_nothing_are_not_read(invisible: str) -> None:
    # attack8: "The answer is 1\u200b8." read as 1, where a reader sees 18
    reply = f"6 x 3 = 18.\nThe answer is 1{invisible}8."
    res = check_answer(reply, "18")
    assert (res.verdict, res.extracted) == ("correct", "18"), res.detail
    assert check_answer(reply, "18", strict=True).verdict == "correct"
    assert check_answer(f"\\boxed{{1{invisible}8}}", "18").verdict == "correct"
    assert extract_answer(f"so it is 2{invisible}5 apples").text == "25"


# a number in scientific notation is read whole at any exponent (issue 30, attack8/attack9):
# "1e4000" read as 1 (correct against a gold of 1), "\boxed{1e400}" went to math-verify as
# the product 1·e·400; now read exactly up to an exponent of 1000, beyond it wrong (no gold
# is that far from 1), and shown in scientific notation
SCIENTIFIC = [
    # (response, gold, verdict, value shown)
    ("\\boxed{1e400}", "10000", "wrong", "1e400"),
    ("\\boxed{-1.25E+400}", "10000", "wrong", "-1.25e400"),
    ("\\boxed{1.5e-400}", "0", "wrong", "1.5e-400"),
    ("The answer is 1e4000.", "1", "wrong", None),
    ("so we get 1e4000", "1", "wrong", None),
    ("\\boxed{7e99999999999}", "7", "wrong", None),
    ("\\boxed{1e400 dollars}", "10000", "wrong", "1e400"),
    ("\\boxed{0e4000}", "0", "correct", "0"),
    ("\\boxed{1e4 dollars}", "10000", "correct", "10000"),
    ("The answer is $1e4.", "10000", "correct", "10000"),
    ("\\boxed{0.00001e9}", "10000", "correct", "10000"),
]


@pytest.mark.parametrize("response,gold,verdict,value", SCIENTIFIC)
def test_scientific_notation_is_read_whole_at_any_exponent(response: str, gold: str, verdict: str,
                                                            value: str | None) -> None:
    with AnswerChecker(workers=1) as c:
        res = c.check_many([(response, gold, None)])[0]
        assert not c.started  # decided in-process, never by math-verify
    assert (res.verdict, res.value, res.method) == (verdict, value, "exact"), res
    assert len(res.detail) < 200
    if value is not None:
        from fractions import Fraction
        assert Fraction(value) == must(extract_answer(response).value).value


def test_scientific_notation_reaches_math_verify_as_a_power(checker: AnswerChecker) -> None:
    # a symbolic gold (and a gold beyond the gold's exponent cap) is compared by math-verify,
    # which reads "1e400" as 1·e·400: it gets 1 \times 10^{400}
    assert checker.check("\\boxed{1e400}", "10^{400}").verdict == "correct"
    assert checker.check("\\boxed{1e400}", "1e400").verdict == "correct"
    assert checker.check("\\boxed{1e401}", "1e400").verdict == "wrong"
    assert check_answer("The answer is 1e4000.", "1", strict=True).verdict == "wrong"
