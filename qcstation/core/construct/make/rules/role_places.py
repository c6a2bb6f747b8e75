"""Which place of a value the question states twice a use is, by what the use does (issue 26.1,
lane cov26): read by :func:`.joint._by_what_it_uses` only where the use's own words name no place.

A place written as a multiplier that compares ("six times as many digits", "3 times more", "four
times the price") is what a step multiplies or divides by; a place written as a difference that
compares ("six more digits than", "4 years older than", "$3 less than") is what a step adds or
subtracts. "Mina memorized six times as many digits as Carlos ... Sam memorized six more digits
than Carlos" / "Carlos memorized 24/6" (the six times) and "Sam memorized 4+6" (the six more).
Evidence for a place only where exactly one place is of the use's kind and no place is of both;
a count of times ("3 times a day") is neither.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.expr import BinOp, Expr, Neg, Num

__all__ = ["role_evidence", "use_role"]

#: the number (digits or a word) at a place, then "times" and a word that makes it compare
_MULTIPLIER = re.compile(r"[\w$.,]+(?:\s*-\s*|\s+)times\s+(?:as|more|less|fewer|the|that|what|his|her|their|its|"
                         r"[a-z]+er)\b", re.I)
#: the number at a place, up to three words, then a comparative and "than" within three more words
_DIFFERENCE = re.compile(r"[\w$.,]+\s+(?:[A-Za-z'’-]+\s+){0,3}?(?:more|fewer|less|older|younger|longer|shorter|"
                         r"taller|heavier|lighter|cheaper|higher|lower|extra)\b(?:\s+[A-Za-z'’-]+){0,3}?\s+than\b",
                         re.I)


def use_role(e: Expr, v: Fraction, nth: int) -> str:
    """What the ``nth`` number of value ``v`` a step writes (as the binder counts them: numbers of
    the text, in order) does: "times" (a factor of a product), "divisor", or "" (added or
    subtracted, or divided)."""
    roles: list[str] = []

    def walk(x: Expr, role: str) -> None:
        if isinstance(x, Num):
            if x.text and not x.text.startswith("k_") and x.value == v:
                roles.append(role)
        elif isinstance(x, Neg):
            walk(x.operand, "")
        elif isinstance(x, BinOp):
            walk(x.left, "times" if x.op == "*" else "")
            walk(x.right, "times" if x.op == "*" else "divisor" if x.op == "/" else "")

    walk(e, "")
    return roles[nth] if nth < len(roles) else ""


def role_evidence(question: str, starts: list[int], role: str, out: list[int]) -> None:
    """Add 1 to the one place (index into ``starts``) of the use's kind: a comparing multiplier for
    a use that multiplies or divides (``role`` "times" or "divisor"), a comparing difference for
    one added or subtracted (``role`` "")."""
    q = question[:20_000]
    mult = [i for i, s in enumerate(starts) if _MULTIPLIER.match(q, s)]
    diff = [i for i, s in enumerate(starts) if _DIFFERENCE.match(q, s)]
    if set(mult) & set(diff) or not mult or not diff:
        return
    kind = mult if role in ("times", "divisor") else diff
    if len(kind) == 1:
        out[kind[0]] += 1
