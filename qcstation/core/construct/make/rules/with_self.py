"""A group the question names by its other members, counted with the one who has them, where a
solution writes the whole group's count, a number the question does not state (issue 26.1, lane
cover20).

``with_self``: "Jenna has 4 roommates ... How much will each roommate pay ... if they divide the
share equally?" / "Since there are 5 roommates, each roommate will pay 1200/5"; "Maria invited 4 of
her friends ... gave each person 3 more balloons" / "5 girls * 3 balloons": the 5 is the question's
4 and the one who has them, the term ``4 + k_one_jenna`` (the person a named constant of value 1,
never moved by derive; the 4 the question's given, so a derived item that moves it moves the
group). Only where:

* the question says "<Name> has/invited N <people>" ("roommates", "of her friends") once, with
  N stated at that one place, and N + 1 the number the step writes;
* the question shares among them all ("each person", "equally", "share", "split", "everyone");
* the step's line writes that number before a word for people ("5 roommates", "5 girls").

``the_others``: the others of a group the question names one of ("There are five phones on a phone
plan. The main phone costs twice as much as each additional phone" / "the four additional phones
cost 4 * 10"): the question's N less ``k_one_main_phone``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.construct.make.rules.complements import line_at, names_other_quantity
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num
from qcstation.core.reading.words import ANNOTATION, NUMBER_WORD_VALUES

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["the_others", "with_self"]

_N_WORDS = "|".join(w for w, v in NUMBER_WORD_VALUES.items() if 1 <= v <= 20 and "-" not in w)
_PEOPLE = r"friends|roommates|siblings|brothers|sisters|cousins|classmates|teammates|guests|children|kids"
_GROUP = re.compile(rf"\b(?P<who>[A-Z][a-z]+)\s+(?:has|had|invited|invites|brought|brings)\s+"
                    rf"(?P<n>\d+|{_N_WORDS})\s+(?:of\s+(?:her|his|their)\s+)?(?:{_PEOPLE})\b")
#: "Elisa and her two friends", "John with his five friends", "herself and her 14 friends", "for her and
#: for three of her friends", "himself and his three younger siblings": the one, and the others she has
_WITH_GROUP = re.compile(rf"(?P<for>\bfor\s+)?\b(?P<who>[A-Z][a-z]+|herself|himself|her|him)\s+(?:and|with)\s+"
                         rf"(?:for\s+)?(?:(?:her|his|their)\s+)?(?P<n>\d+|{_N_WORDS})\s+(?:of\s+(?:her|his|their)\s+)?"
                         rf"(?:[a-z]+\s+)?(?:{_PEOPLE})\b")
_ALL_SHARE = re.compile(r"\beach (?:person|one|of them)\b|\bequally\b|\bevenly\b|\bshare\b|\bsplit\b"
                        r"|\beveryone\b|\beverybody\b|\bamong them\b", re.I)
_NOT_A_NAME = frozenset("The A An If On In At When After Before Then So But And Or How What Each Every This That "
                        "These Those There He She It They We You I My Our Your".split())


def with_self(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` (one term per computation starting at ``starts``) with each count of a group and
    the one who has it (see the module docstring) replaced by ``N + k_one_<who>``."""
    if givens is None:
        return exprs
    q = givens.question[:20_000]
    shared = bool(_ALL_SHARE.search(q))
    groups: list[tuple[Fraction, str, str, str]] = []
    for m in [*_GROUP.finditer(q), *_WITH_GROUP.finditer(q)]:
        # "tickets for her and for three of her friends": each of them gets one, shared or not
        if m.group("who") in _NOT_A_NAME or not (shared or "for" in m.groupdict() and m.group("for")):
            continue
        raw = m.group("n")
        n = Fraction(int(raw)) if raw.isdigit() else Fraction(NUMBER_WORD_VALUES[raw.lower()])
        places = [x for x in givens.numbers if x.value == n and not x.percent]
        who = {"her": "herself", "him": "himself"}.get(m.group("who"), m.group("who").lower())
        if len(places) == 1 and places[0].start == m.start("n") and (n, who) not in {(g[0], g[2][6:]) for g in groups}:
            groups.append((n, places[0].text, "k_one_" + who, _subject(q, m.start("who")) or m.group("who")))
    if len(groups) != 1:
        return exprs
    out = []
    for e, at in zip(exprs, starts):
        # "There were 1 + 4 = 5 of them ... James planted 100/5": an earlier line's result, not the group again
        if groups[0][0] + 1 in _results_before(solution, at):
            out.append(e)
            continue
        out.append(_walk(e, givens, groups[0], line_at(solution, at)))
    return out


_RESULT = re.compile(r"=\s*\$?\s*(\d[\d,]*(?:\.\d+)?)")


def _results_before(solution: str, at: int) -> set[Fraction]:
    """The values the solution writes as results ("= 5", "=5>>") before the line at ``at``."""
    out = set()
    for m in _RESULT.finditer(solution[:max(0, solution.rfind("\n", 0, at))][:20_000]):
        try:
            out.add(Fraction(m.group(1).replace(",", "")))
        except (ValueError, ZeroDivisionError):
            continue
    return out


def _walk(e: Expr, givens: Givens, group: tuple[Fraction, str, str, str], line: str) -> Expr:
    if isinstance(e, Num):
        n, text, who, written = group
        v = e.value
        if e.text and not e.text.startswith("k_") and v == n + 1 and not names_other_quantity(givens, v) \
                and (re.search(rf"(?<![\d.])(?:{v.numerator}|{_WORD_OF.get(int(v), '_')})\s+(?:girls|boys|people"
                               rf"|persons|members|{_PEOPLE})\b", line, re.I)
                     or _names_the_one(written, ANNOTATION.sub(" ", line))):
            return BinOp("+", Num(n, text), Num(Fraction(1), who))
        return e
    if isinstance(e, Neg):
        return Neg(_walk(e.operand, givens, group, line))
    if isinstance(e, BinOp):
        return BinOp(e.op, _walk(e.left, givens, group, line), _walk(e.right, givens, group, line))
    return e


def _subject(q: str, at: int) -> str | None:
    """The one name the sentence writes before "herself"/"himself"/"her"/"him" at ``at`` ("If Rex
    divided his card equally among himself"), else None."""
    if q[at:at + 1].isupper():
        return None
    a = max(q.rfind(c, 0, at) for c in ".?!") + 1
    names = {w for w in re.findall(r"\b[A-Z][a-z]+\b", q[a:at]) if w not in _NOT_A_NAME}
    return names.pop() if len(names) == 1 else None


def _names_the_one(written: str, line: str) -> bool:
    """Does the line name the one who has the others: by name ("Rex is left with 600/4", the Rex of
    "himself"), or "including him" ("each one of his friends including him ... 45 / 5")?"""
    if written[:1].isupper():
        return bool(re.search(rf"\b{re.escape(written)}\b", line))
    return bool(re.search(r"\bincluding\s+(?:him|her)(?:self)?\b", line, re.I))


_WORD_OF = {v: w for w, v in NUMBER_WORD_VALUES.items() if 1 <= v <= 20 and "-" not in w}
_OTHER = r"(?:additional|other|remaining)"


def the_others(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` with each count of the others of a group of N the question names one of ("There
    are five phones on a phone plan. The main phone costs twice as much as each additional phone" /
    "the four additional phones cost 4 * 10") replaced by ``N - k_one_<that one>`` (the question's
    N, a given; the one named, a constant of value 1). Only where the question states N before the
    noun once, names "the <word> <noun>" once and "each/every/the additional/other <noun>", and the
    step's line writes N - 1 before "additional/other/remaining <noun>"."""
    if givens is None:
        return exprs
    q = givens.question[:20_000]
    found = []
    for n in givens.numbers:
        if n.percent or n.value.denominator != 1 or not 2 <= n.value <= 20 \
                or sum(1 for x in givens.numbers if x.value == n.value and not x.percent) != 1:
            continue
        m = re.match(r"\s+([a-z]+)s\b", q[n.start + len(n.text):])
        if m is None:
            continue
        noun = m.group(1)  # "phones": phone ("boxes": boxe, then box)
        if not re.search(rf"\b{noun}\b(?!s)", q) and noun.endswith("e"):
            noun = noun[:-1]
        ones = {x.group(1).lower() for x in re.finditer(rf"\b[Tt]he\s+([a-z]+)\s+{noun}\b(?!s)", q)
                if not re.fullmatch(_OTHER + "|whole|total|same|first|last|new|old", x.group(1), re.I)}
        if len(ones) == 1 and re.search(rf"\b(?:each|every|the)\s+{_OTHER}\s+{noun}", q, re.I):
            found.append((n, noun, f"k_one_{ones.pop()}_{noun}"))
    if len(found) != 1:
        return exprs
    n, noun, one = found[0]
    v = n.value - 1
    if names_other_quantity(givens, v):
        return exprs
    out = []
    for e, at in zip(exprs, starts):
        line = line_at(solution, at)
        said = re.search(rf"\b(?:{v.numerator}|{_WORD_OF.get(int(v), '_')})\s+{_OTHER}\s+{noun}", line, re.I)
        out.append(_others(e, v, n, one) if said else e)
    return out


def _others(e: Expr, v: Fraction, n: object, one: str) -> Expr:
    if isinstance(e, Num):
        if e.text and not e.text.startswith("k_") and e.value == v:
            return BinOp("-", Num(n.value, n.text), Num(Fraction(1), one))  # type: ignore[attr-defined]
        return e
    if isinstance(e, Neg):
        return Neg(_others(e.operand, v, n, one))
    if isinstance(e, BinOp):
        return BinOp(e.op, _others(e.left, v, n, one), _others(e.right, v, n, one))
    return e
