"""The checker's fast path (a reply ending with the asked line ``The answer is N.``, N one
plain number) reads every response exactly as the rules in full do: the same extraction,
flexible and strict, hence the same verdict, on every answer form the checker's tests use,
on forms built around the asked line to break it, and on real GSM8K solutions."""

from __future__ import annotations

import ast
import itertools
import json
from pathlib import Path

import pytest

from qcstation.eval.checker import AnswerChecker, extract_answer, extract_strict, parse_gold
from qcstation.eval.checker import extract as X
from qcstation.eval.checker.compare import CheckResult, _parse_gold, decide_exact

ROOT = Path(__file__).resolve().parents[2]


def _test_strings() -> list[str]:
    """Every string constant of the checker's and the scorers' tests (the answer forms)."""
    out: set[str] = set()
    for name in ("test_checker.py", "test_scoring_smart.py", "test_rounded_gold.py"):
        path = ROOT / "tests" / "eval" / name
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 5000:
                out.add(node.value)
    return sorted(out)


NUMBERS = ["0", "42", "-7", "3.5", "0.25", "-0.125", "1000000", "007", "18.00", "-0", "1" * 60,
           "1" * 61, "2." + "5" * 60, "12,000", "1 000", "٤٢", "3/4", "1e3", "5%", "$18", "18x"]
ASKED = ["The answer is {n}.", "the answer is {n}", "The answer is {n}.  ", "  The Answer Is {n}.",
         "\tThe answer is\t{n}.", "The answer is {n}..", "The answer is {n}.\n\n", "The answer is {n}\r\n",
         "The answer is ${n}.", "The answer is \\boxed{{{n}}}.", "The answer is {n} apples.",
         "The answer is {n} or 5.", "The answer is not {n} but 6.", "The answer is not {n}.",
         "The answer is {n}%.", "The answer is {n}. Done.", "#### {n}", "The answer is: {n}",
         "**The answer is {n}.**", "The final answer is {n}.", "The answer is {n}.\u00a0",
         "The answer is {n}\u2028", "> The answer is {n}.", "The answer is {n} \\pm 1.",
         "The answer is {n}.\x1b[0m", "The answer is {n}\x07.", "The answer is\n{n}."]
BEFORE = ["", "Step 1: 3 + 4 = 7.\n", "\\boxed{5}\n", "**9** apples.\n", "The answer is 3.\nWait.\n",
          "\x1b[31mred\x1b[0m\n", "\x1b]52;c;UFdORUQ=\n", "\\fbox{2}\n", "Final answer: 8\n",
          "#### 11\n", "$x = 4$\n", "So the final\n", "\u2028\n", "Answer: 16 or 18\n",
          " " * (X.MAX_SCAN_CHARS + 10) + "\n", "a" * 400 + " ", "\\boxed{\n", "x" * X.MAX_SCAN_CHARS + "\n"]


def _forms() -> list[str]:
    built = [b + a.format(n=n) for b, a, n in itertools.product(BEFORE, ASKED, NUMBERS)]
    tests = _test_strings()
    return [*tests, *(t + "\nThe answer is 42." for t in tests),
            *(t + "\nThe answer is -3.5" for t in tests), *built]


def _gsm8k_replies() -> list[tuple[str, str]]:
    """(a reply built from a real GSM8K solution, its gold): the solution's steps, then its
    answer in the forms models write it."""
    out = []
    for line in (ROOT / "qcstation" / "data" / "gsm8k_sample.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        steps, _, gold = rec["answer"].rpartition("####")
        gold = gold.strip()
        for form in ("The answer is {g}.", "#### {g}", "The answer is ${g}.", "So the answer is {g}",
                     "The answer is {g}", "The answer is \\boxed{{{g}}}.", "The answer is {w}."):
            wrong = str(int(gold.replace(",", "")) + 1) if gold.replace(",", "").isdigit() else gold
            out.append((steps.rstrip() + "\n" + form.format(g=gold, w=wrong), gold))
    return out


def _by_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(X, "_asked_number", lambda text: None)


def test_the_fast_path_reads_the_common_reply() -> None:
    """The fast path is taken on the asked line (so the comparisons below compare two paths)."""
    assert X._asked_number("Step 1: 6 * 3 = 18.\nThe answer is 18.") == ("18", X.exact_value("18"))
    assert X._asked_number("So\n  the answer is -2.50 \n\n") == ("-2.50", X.exact_value("-2.50"))
    for text in ("\\boxed{5}\nThe answer is 18.", "The answer is 18 apples.", "x\x1b[0m\nThe answer is 18.",
                 "The answer is 18.\nDone.", "The answer is ٤٢."):
        assert X._asked_number(text) is None, text


def test_fast_and_full_extraction_agree_on_every_form(monkeypatch: pytest.MonkeyPatch) -> None:
    forms = _forms()
    assert len(forms) > 10_000
    fast = [(extract_answer(t), extract_strict(t)) for t in forms]
    taken = sum(X._asked_number(t) is not None for t in forms if t.strip())
    _by_rules(monkeypatch)
    full = [(extract_answer(t), extract_strict(t)) for t in forms]
    differ = [(t, a, b) for t, a, b in zip(forms, fast, full) if a != b]
    assert not differ, differ[:3]
    assert taken > 1000    # the fast path was taken on many of them


def test_fast_and_full_verdicts_agree_on_real_gsm8k_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same verdicts (the whole CheckResult), flexible and strict, against the stored gold."""
    replies = _gsm8k_replies()
    assert len(replies) >= 700

    def verdicts() -> list[CheckResult | None]:
        out: list[CheckResult | None] = []
        for text, gold_text in replies:
            gold = _parse_gold(gold_text, gold_text.replace(",", ""))
            for ext in (extract_answer(text), extract_strict(text)):
                out.append(decide_exact(ext, gold, text))
        return out

    fast = verdicts()
    _by_rules(monkeypatch)
    full = verdicts()
    assert fast == full
    assert sum(v is not None and v.verdict == "correct" for v in fast) > 600


def test_check_many_gives_the_same_results_with_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    items = [(t, g, g.replace(",", "")) for t, g in _gsm8k_replies()[:200]]
    items += [(t, "42", "42") for t in _forms()[:3000] if "\\frac" not in t and "\\sqrt" not in t]
    # only what is decided in-process (math-verify's own verdicts are not the fast path's)
    exact = [(t, g, v) for t, g, v in items
             if all(decide_exact(ext, parse_gold(g, v), t) is not None
                    for ext in (extract_answer(t), extract_strict(t)))]
    assert len(exact) > 1000
    with AnswerChecker(workers=1) as checker:
        fast = checker.check_many(exact) + checker.check_many(exact, strict=True)
        _by_rules(monkeypatch)
        full = checker.check_many(exact) + checker.check_many(exact, strict=True)
    assert fast == full


def test_golds_read_once_are_the_same_gold() -> None:
    for text, value in (("18", "18"), ("0.33", "1/3"), ("\\frac{7}{2}", None), ("540°", "540"), ("", None),
                        ("twelve", None), ("x^2", None), ("1,000", "1000")):
        assert parse_gold(text, value) == _parse_gold(text, value)
        assert parse_gold(text, value) == parse_gold(text, value)


def test_both_readings_at_once_are_the_two_readings_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """``check_both`` (the reply the prompts ask for read and decided once, for the flexible
    and the strict reading) gives what ``check_many`` gives each way, with the fast path and
    by the rules in full, on every form against numeric, symbolic and empty golds."""
    items: list[tuple[str | None, str, str | None]] = [(t, g, g.replace(",", "")) for t, g in _gsm8k_replies()[:300]]
    items += [(t, g, v) for t in _forms()[:6000] if "\\frac" not in t and "\\sqrt" not in t
              for g, v in (("42", "42"), ("-3.5", "-7/2"), ("0.33", "1/3"))]
    items += [(t, g, None) for t in ("The answer is 42.", "x\nThe answer is 5.", "", None, "  ")
              for g in ("", "twelve", "42")]
    exact = [(t, g, v) for t, g, v in items
             if all(decide_exact(ext, parse_gold(g, v), t) is not None
                    for ext in (extract_answer(t), extract_strict(t)))]
    assert len(exact) > 5000
    with AnswerChecker(workers=1) as checker:
        apart = (checker.check_many(exact), checker.check_many(exact, strict=True))
        assert checker.check_both(exact) == apart
        assert sum(r.source == "strict" and r.verdict == "correct" for r in apart[1]) > 1000
        _by_rules(monkeypatch)
        assert checker.check_both(exact) == apart
