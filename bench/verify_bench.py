"""Throughput of the isolated Z3 verifier vs plain in-process Z3, on GSM8K formalizations.

    python bench/verify_bench.py [--n N] [--workers W] [--timeout S] [--rounds R] [--chunk C]

Formalizations are built from the GSM8K test split's ``<<expr=result>>`` calculator
annotations (``qcstation.core.construct.make.rules.smt_from_calculator_annotations`` when available,
else a tiny translation below), each checked against the gold answer after ``####``.
Prints items per second for (a) the isolated pool of W worker processes and (b)
``verify_in_process`` on one core, in the same run, and the ratio (a)/(b).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from bench.shared_data import datasets_dir  # noqa: E402

from qcstation.core.verify.verifier import (  # noqa: E402
    VerifierPool,
    VerifyLimits,
    VerifyOutcome,
    verify_in_process,
)

DEFAULT_DATA = datasets_dir() / "gsm8k" / "test.jsonl"
TARGET_RATIO = 1.3

_ANNOT = re.compile(r"<<([^<>=]+)=([^<>]*)>>")
_TOKEN = re.compile(r"\s*(\d+(?:\.\d+)?|\.\d+|[-+*/()])")


def _to_sexpr(expr: str) -> str:
    """Infix arithmetic (+ - * / parentheses, decimals) to an SMT-LIB Real term."""
    pos = 0
    toks: list[str] = []
    expr = expr.replace(",", "").replace("x", "*").replace("%", "/100")
    while pos < len(expr.rstrip()):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise ValueError(f"cannot read {expr!r}")
        toks.append(m.group(1))
        pos = m.end()
    i = 0

    def atom() -> str:
        nonlocal i
        t = toks[i]
        i += 1
        if t == "(":
            e = add()
            i += 1  # ')'
            return e
        if t == "-":
            return f"(- {atom()})"
        v = Fraction(t)
        return f"{v.numerator}.0" if v.denominator == 1 else f"(/ {v.numerator}.0 {v.denominator}.0)"

    def mul() -> str:
        nonlocal i
        e = atom()
        while i < len(toks) and toks[i] in "*/":
            op = toks[i]
            i += 1
            e = f"({op} {e} {atom()})"
        return e

    def add() -> str:
        nonlocal i
        e = mul()
        while i < len(toks) and toks[i] in "+-":
            op = toks[i]
            i += 1
            e = f"({op} {e} {mul()})"
        return e

    out = add()
    if i != len(toks):
        raise ValueError(f"trailing tokens in {expr!r}")
    return out


def _fallback_smt(solution: str) -> str:
    lines = ["(set-logic QF_LRA)"]
    names = []
    for k, m in enumerate(_ANNOT.finditer(solution), start=1):
        names.append(f"s{k}")
        lines.append(f"(declare-const s{k} Real)")
        lines.append(f"(assert (= s{k} {_to_sexpr(m.group(1))}))")
    if not names:
        raise ValueError("no annotations")
    lines += ["(declare-const answer Real)", f"(assert (= answer {names[-1]}))",
              "(check-sat)", "(get-value (answer))"]
    return "\n".join(lines) + "\n"


def load_items(path: Path, n: int) -> tuple[list[tuple[str, str]], str, int]:
    try:
        from qcstation.core.construct.make.rules import smt_from_calculator_annotations

        def build(solution: str, gold: str) -> str:
            return smt_from_calculator_annotations(solution).smtlib
        source = "qcstation.core.construct.make.rules.smt_from_calculator_annotations"
    except ImportError:
        def build(solution: str, gold: str) -> str:
            return _fallback_smt(solution)
        source = "fallback translation in bench/verify_bench.py"
    items: list[tuple[str, str]] = []
    skipped = 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if len(items) >= n:
                break
            row = json.loads(line)
            solution = row["answer"]
            gold = solution.rsplit("####", 1)[-1].strip().replace(",", "")
            try:
                items.append((build(solution, gold), gold))
            except Exception:  # noqa: BLE001 - a seed no rule formalizes is just skipped
                skipped += 1
    return items, source, skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="number of formalizations (default 1000)")
    ap.add_argument("--workers", type=int, default=2, help="pool workers (default 2)")
    ap.add_argument("--timeout", type=float, default=5.0, help="z3 timeout per item, seconds")
    ap.add_argument("--rounds", type=int, default=2, help="passes over the items (default 2)")
    ap.add_argument("--chunk", type=int, default=100,
                    help="items per alternation between the two modes (default 100)")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="GSM8K test.jsonl")
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(f"verify_bench: dataset not found: {args.data}", file=sys.stderr)
        return 2
    items, source, skipped = load_items(args.data, args.n)
    if not items:
        print("verify_bench: no formalizations could be built", file=sys.stderr)
        return 2
    limits = VerifyLimits(timeout_s=args.timeout)
    print(f"items: {len(items)} GSM8K formalizations ({skipped} seeds skipped), built with {source}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cpus: {os.cpu_count()}  workers: {args.workers}  z3 timeout: {args.timeout:g} s  "
          f"rounds: {args.rounds}  chunk: {args.chunk}  load average before: {load:.2f}")

    # Warm-up (imports, z3 context, worker start) is excluded from both timings. The machine
    # may be shared, so the two modes alternate on chunks of --chunk items (in both orders)
    # and each mode's time is summed: both see the same background load on average.
    for text, gold in items[:5]:
        verify_in_process(text, gold, limits)
    chunks = [items[i:i + args.chunk] for i in range(0, len(items), args.chunk)]
    t = time.perf_counter()
    with VerifierPool(workers=args.workers, limits=limits) as pool:
        list(pool.verify_many(items[:2 * args.workers]))
        t_start = time.perf_counter() - t
        t_in = t_pool = 0.0
        baseline: list[VerifyOutcome] = []
        pooled: list[VerifyOutcome] = []
        for r in range(args.rounds):
            baseline, pooled = [], []
            for k, chunk in enumerate(chunks):
                for mode in (("in", "pool") if (k + r) % 2 == 0 else ("pool", "in")):
                    t = time.perf_counter()
                    if mode == "in":
                        baseline += [verify_in_process(text, gold, limits) for text, gold in chunk]
                        t_in += time.perf_counter() - t
                    else:
                        pooled += list(pool.verify_many(chunk))
                        t_pool += time.perf_counter() - t
    n_total = len(items) * args.rounds

    mismatch = sum(1 for a, b in zip(baseline, pooled) if a.status != b.status)
    rate_in = n_total / t_in
    rate_pool = n_total / t_pool
    ok_in = sum(o.ok for o in baseline) * args.rounds
    ok_pool = sum(o.ok for o in pooled) * args.rounds
    print(f"in-process z3, 1 core   : {ok_in / t_in:7.1f} verified/s ({rate_in:.1f} items/s; "
          f"{n_total} items in {t_in:.2f} s)")
    print(f"isolated pool, {args.workers} workers: {ok_pool / t_pool:7.1f} verified/s ({rate_pool:.1f} items/s; "
          f"{n_total} items in {t_pool:.2f} s; pool start {t_start:.2f} s)")
    ratio = (ok_pool / t_pool) / (ok_in / t_in) if ok_in else rate_pool / rate_in
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print(f"ratio pool / in-process: {ratio:.2f}x ({verdict} the {TARGET_RATIO}x target)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average after the run: {load:.2f} (other processes competing for the "
          f"{os.cpu_count()} cores lower the pool's figure, not the single-core baseline's)")
    statuses = Counter(o.status for o in pooled)
    print("statuses (pool): " + ", ".join(f"{k}={v}" for k, v in statuses.most_common()))
    if mismatch:
        print(f"warning: {mismatch} items got a different status in the pool than in-process")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
