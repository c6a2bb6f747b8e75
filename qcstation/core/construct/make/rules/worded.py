"""Computations a solution writes in words: "200 minus 174 equals 26", "8 times 1/2 equals 4",
"12 plus 14 plus 4 equals 30" (GSM8K 483, 738). Each is read as ``expression = number`` is
(:func:`~qcstation.core.reading.inline.parse_visible`: kept only where its arithmetic checks
out); a computation that an annotation already carries ("83 plus 91 equals <<83+91=174>>174")
is the annotation's, never read twice (the caller blanks annotations and their results)."""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.expr import Expr
from qcstation.core.reading.inline import parse_visible

__all__ = ["WORDED_RE", "worded_computations"]

_NUM = r"\$?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:/\d+)?"
_OPS = {"plus": "+", "minus": "-", "times": "*", "multiplied by": "*", "divided by": "/"}
_OP = r"(?:plus|minus|times|multiplied by|divided by)"
WORDED_RE = re.compile(
    rf"(?<![\w.$/,])(?P<expr>{_NUM}(?:\s+{_OP}\s+{_NUM})+)\s+equals\s+(?P<res>\$?-?{_NUM})(?![\d/]|\.\d|,\d)")
# tried only where a run of spaces starts (from inside it, the rest of the run again each time)
_OP_WORD = re.compile(r"(?<!\s)\s+(plus|minus|times|multiplied by|divided by)\s+")


def worded_computations(masked: str) -> list[tuple[int, int, str, str, Expr, Fraction, Fraction]]:
    """(start, end, raw, expression in symbols, parsed term, value, written result) of each
    computation written in words whose arithmetic checks out, in ``masked`` (the solution with
    its annotations and their results blanked, so offsets are the solution's)."""
    out = []
    for m in WORDED_RE.finditer(masked[:100_000]):
        expr_text = _OP_WORD.sub(lambda w: f" {_OPS[w.group(1)]} ", m.group("expr"))
        parsed = parse_visible(expr_text, m.group("res"))
        if parsed is None:
            continue
        expr, value, written = parsed
        out.append((m.start("expr"), m.end("res"), m.group(0), expr_text, expr, value, written))
    return out
