"""``qcstation check-answer TEXT --gold G``: what the final-answer checker takes from a response.

Exit code 0 whatever the verdict (correct, wrong and unparseable are all results;
read the verdict from the output), 2 on a usage error (empty gold, bad
``--gold-value``, unreadable or oversized standard input).
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from qcstation.commands import HELP


#: the most read from standard input (a response longer than this is an error, not cut)
MAX_STDIN_BYTES = 1_000_000


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "check-answer",
        help=HELP["check-answer"],
        description=(
            "Extract the final answer from a model response (last \\boxed{}, else the last "
            "answer marker such as 'The answer is' or '####', else a bold number, else the "
            "last number) and compare it with the gold answer: exact rationals for plain "
            "numbers, math-verify (in an isolated worker) for LaTeX and symbolic answers. "
            "The verdict is correct, wrong or unparseable. Exit code 0 whatever the "
            "verdict, 2 on a usage error. Two verdicts are printed, as lm-evaluation-harness "
            "reports them: flexible (the answer found as above) and strict (only the reply's "
            "last line 'The answer is N.', the line the prompts ask for). An answer giving "
            "several values (\\pm 5, '16 or 18', '5 and 7') is wrong against a single gold; "
            "a last \\boxed{} whose braces do not close is unparseable, never its last number."
        ),
    )
    p.add_argument("text", metavar="TEXT",
                   help="the response text, or - to read it from standard input "
                        f"(at most {MAX_STDIN_BYTES // 1_000_000} MB)")
    p.add_argument("--gold", required=True, metavar="G",
                   help="the gold answer as written (e.g. 18, 7/2, 0.25, 25%%, \\frac{\\sqrt{3}}{2})")
    p.add_argument("--gold-value", metavar="P/Q",
                   help="the gold's exact value as stored for a seed (seeds.answer_value, "
                        "e.g. 540 or 7/2); takes precedence over --gold for the comparison")
    p.add_argument("--timeout", type=int, default=3, metavar="S",
                   help="math-verify limit per step in whole CPU seconds (1-60, default 3; CPU "
                        "time, so load never causes a timeout); a worker stuck where no signal "
                        "reaches it is killed after 6*S+10 s")
    p.add_argument("--json", action="store_true",
                   help="print a JSON object: extracted, verdict, value, method, detail, "
                        "source, gold, checker_version, and strict (the same fields)")
    p.set_defaults(func=run)


def _read_stdin() -> str | None:
    try:
        stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
        data = stream.read(MAX_STDIN_BYTES + 1) if stream is not None else \
            sys.stdin.read(MAX_STDIN_BYTES + 1).encode("utf-8", errors="replace")
    except OSError as exc:
        print(f"qcstation: error: cannot read standard input: {exc.strerror or exc}",
              file=sys.stderr)
        return None
    if len(data) > MAX_STDIN_BYTES:
        print(f"qcstation: error: standard input is larger than {MAX_STDIN_BYTES} bytes; "
              "pass only the response", file=sys.stderr)
        return None
    return data.decode("utf-8", errors="replace")


def run(args: argparse.Namespace) -> int:
    from qcstation.common.safe import inline_value
    from qcstation.eval.checker import CheckLimits, check_answer

    if not args.gold.strip():
        print("qcstation: error: --gold is empty", file=sys.stderr)
        return 2
    if args.gold_value is not None and not re.fullmatch(r"\s*-?\d{1,120}(?:/\d{1,120})?\s*",
                                                          args.gold_value):
        print(f"qcstation: error: --gold-value '{inline_value(args.gold_value[:40])}' is not "
              "an exact number such as 540, -3 or 7/2", file=sys.stderr)
        return 2
    if not 1 <= args.timeout <= 60:
        print("qcstation: error: --timeout must be between 1 and 60 seconds", file=sys.stderr)
        return 2
    text = _read_stdin() if args.text == "-" else args.text
    if text is None:
        return 2
    limits = CheckLimits(timeout_s=args.timeout)
    result = check_answer(text, args.gold, args.gold_value, limits)
    strict = check_answer(text, args.gold, args.gold_value, limits, strict=True)
    if args.json:
        # ensure_ascii: every control or non-ASCII character of the response is escaped
        out = result.to_dict()
        out["strict"] = strict.to_dict()
        json.dump(out, sys.stdout, indent=2, sort_keys=True, ensure_ascii=True)
        sys.stdout.write("\n")
        return 0

    def show(value: str | None) -> str:
        return "(none)" if value is None else inline_value(value)

    source = f"  (from {result.source})" if result.source else ""
    print(f"extracted: {show(result.extracted)}{source}")
    print(f"value:     {show(result.value)}")
    print(f"gold:      {show(result.gold if result.gold is not None else args.gold)}")
    print(f"verdict:   {result.verdict}  ({result.method})")
    print(f"detail:    {show(result.detail)}")
    print(f"flexible:  {result.verdict}  (the final answer anywhere, as above)")
    print(f"strict:    {strict.verdict}  (the last line 'The answer is N.'"
          + (f": {show(strict.extracted)}" if strict.extracted is not None else "")
          + f"; {show(strict.detail)})")
    return 0
