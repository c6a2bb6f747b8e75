"""Throughput of the final-answer checker, on reference solutions written as model responses.

    python bench/checker_bench.py [--n N] [--workers W] [--math500 M] [--show K]

(a) exact path: GSM8K test solutions (gold after ``####``), each rewritten in the styles
    models use (``#### 72``, ``The answer is 72.``, ``\\boxed{72}``, ``**72**``, ``$72.00``,
    ``72 dollars``, a wrong answer), N items through ``AnswerChecker.check_many``; all
    decided in-process. Prints items per second and the verdicts (every reference
    style must be correct and every altered one wrong).
(b) math-verify path: MATH500 reference solutions against their answers; the items the
    exact path cannot decide go to W isolated workers. Prints items per second, the
    verdicts and the first K items that are not correct, to read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from bench.shared_data import datasets_dir  # noqa: E402

from qcstation.eval.checker import AnswerChecker, CheckLimits  # noqa: E402

DATA = datasets_dir()
FALLBACK = ROOT / "qcstation" / "data"


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _gsm8k() -> list[tuple[str, str]]:
    path = DATA / "gsm8k" / "test.jsonl"
    if not path.exists():
        path = FALLBACK / "gsm8k_sample.jsonl"
    out = []
    for rec in _jsonl(path):
        sol = rec.get("answer") or rec.get("solution") or ""
        if "####" not in sol:
            continue
        body, gold = sol.rsplit("####", 1)
        body = re.sub(r"<<[^<>]*>>", "", body).strip()
        out.append((body, gold.strip().replace(",", "")))
    return out


STYLES = [
    ("hashes", lambda b, g: f"{b}\n#### {g}", True),
    ("marker", lambda b, g: f"{b}\nThe answer is {g}. I hope this helps!", True),
    ("boxed", lambda b, g: f"{b}\nSo the final answer is $\\boxed{{{g}}}$.", True),
    ("bold", lambda b, g: f"{b}\n\nIn total: **{g}**", True),
    ("currency", lambda b, g: f"{b}\nFinal answer: ${g}.00", True),
    ("units", lambda b, g: f"{b}\nThe answer is {g} dollars.", True),
    ("wrong", lambda b, g: f"{b}\nThe answer is {int(g) + 1 if g.lstrip('-').isdigit() else g + '1'}.",
     False),
]


def bench_exact(n: int, workers: int) -> None:
    base = _gsm8k()
    items: list[tuple[str, str, str | None]] = []
    expect: list[tuple[str, bool]] = []
    i = 0
    while len(items) < n:
        body, gold = base[i % len(base)]
        name, make, good = STYLES[i % len(STYLES)]
        items.append((make(body, gold), gold, None))
        expect.append((name, good))
        i += 1
    with AnswerChecker(workers=workers) as checker:
        t0 = time.perf_counter()
        results = checker.check_many(items)
        elapsed = time.perf_counter() - t0
        started = checker.started
    per_style: dict[str, Counter[str]] = {}
    bad = 0
    for (name, good), res in zip(expect, results):
        per_style.setdefault(name, Counter())[res.verdict] += 1
        bad += (res.verdict == "correct") != good
    print(f"(a) exact path: {n} GSM8K responses in {elapsed:.2f} s = {n / elapsed:,.0f} items/s "
          f"(workers started: {started})")
    for name, counts in per_style.items():
        print(f"    {name:9} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"    unexpected verdicts: {bad}")


def bench_math500(limit: int, workers: int, show: int) -> None:
    path = DATA / "math500" / "test.jsonl"
    if not path.exists():
        path = FALLBACK / "math500_sample.jsonl"
    recs = _jsonl(path)[:limit]
    items = [(r["solution"], r["answer"], None) for r in recs]
    with AnswerChecker(workers=workers, limits=CheckLimits(timeout_s=3)) as checker:
        t0 = time.perf_counter()
        results = checker.check_many(items)
        elapsed = time.perf_counter() - t0
    verdicts = Counter(r.verdict for r in results)
    methods = Counter(r.method for r in results)
    print(f"(b) MATH500 references: {len(items)} in {elapsed:.2f} s = {len(items) / elapsed:,.1f} "
          f"items/s with {workers} math-verify workers (start-up included)")
    print("    verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    print("    decided by: " + ", ".join(f"{k} {v}" for k, v in sorted(methods.items())))
    shown = 0
    for rec, res in zip(recs, results):
        if res.verdict != "correct" and shown < show:
            shown += 1
            print(f"    - gold {rec['answer']!r}: {res.verdict} ({res.method}); extracted "
                  f"{res.extracted!r}; {res.detail}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20_000, help="exact-path items (default 20000)")
    ap.add_argument("--workers", type=int, default=2, help="math-verify workers (default 2)")
    ap.add_argument("--math500", type=int, default=500, help="MATH500 items (default 500)")
    ap.add_argument("--show", type=int, default=10, help="non-correct MATH500 items to print")
    args = ap.parse_args()
    bench_exact(args.n, args.workers)
    bench_math500(args.math500, args.workers, args.show)


if __name__ == "__main__":
    main()
