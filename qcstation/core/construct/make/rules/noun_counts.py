"""The count of one noun the question states in parts of one list, where a solution writes the whole
count, a number the question does not state (issue 26.1, lane cover35).

``list_totals``: "Jane counts two zebras with 17 stripes each, a zebra with 36 stripes, and another
zebra with half that many stripes. How many stripes do the zebras have on average?" / "88 stripes /
4 zebras" (405): the 4 is the question's "two" zebras, "a zebra" and "another zebra", the term
``2 + k_one_a_zebra + k_one_another_zebra`` (the two a given, so a derived item that moves it moves
the count; each one counted by an article a named constant of value 1). Only where:

* the step's line writes the number right before the noun ("4 zebras"), and neither the question
  (as a number or in words) nor an earlier computation has that number;
* every place the question names the noun (singular or plural) is counted by a number or by "a",
  "an", "another" or "one", except a place after "the" (a reference to those counted: "do the zebras
  have"), and all counted places are in one sentence, two or more of them, each followed by no other
  noun ("4 inch heels" measures heels);
* each counting number is stated by the question at that place only (its given is that place), and
  no article counts the noun twice with the same word;
* the counts add up to the number the step writes.

``line_things`` (where no list of the noun gives the number): the things the line names, each counted
once by an article in the question ("the three animals weigh 3*50" on a line that names "the pink frog
... a blue beetle and a green toad": ``k_one_a_pink_frog + k_one_a_blue_beetle + k_one_a_green_toad``).

Anything else leaves the number as it is (and the step refused as a number no words give)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.construct.make.rules.complements import line_at, names_other_quantity
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["list_totals"]

_ARTICLES = ("a", "an", "another")
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z]+)")
#: the words that may follow a counted thing ("two zebras with 17 stripes", "a zebra, and"): anything
#: else makes the noun a measure of another ("4 inch heels")
_AFTER_A_THING = frozenset("with and or each that who which in on at of for to from are is was were have has had"
                           .split())
_WORD_BEFORE = re.compile(r"([A-Za-z]+|\d+(?:\.\d+)?)\s+$")


def _sentence_bounds(text: str, at: int) -> tuple[int, int]:
    a = max(text.rfind(c, 0, at) for c in ".?!") + 1
    ends = [e for e in (text.find(c, at) for c in ".?!") if e != -1]
    return a, min(ends) if ends else len(text)


def _plural_re(noun: str) -> re.Pattern[str]:
    """The noun in the singular or the plural ("zebra", "zebras"; "box", "boxes")."""
    stem = re.escape(noun)
    return re.compile(rf"\b{stem}(?:s|es)?\b", re.I)


def _counted(givens: Givens, noun: str, v: Fraction) -> Expr | None:
    """The term of the noun's counts in the question (see the module docstring), or None."""
    q = givens.question[:20_000]
    parts: list[Expr] = []
    sentences = set()
    articles = set()
    for m in _plural_re(noun).finditer(q):
        before = _WORD_BEFORE.search(q, max(0, m.start() - 24), m.start())
        word = before.group(1) if before else ""
        if word.lower() == "the":
            continue  # "do the zebras have": those counted
        place = [x for x in givens.numbers if not x.percent and x.start == (before.start(1) if before else -1)]
        if place:
            n = place[0]
            if n.value.denominator != 1 or sum(1 for x in givens.numbers if x.value == n.value) != 1:
                return None  # a count stated at another place too: its given is chosen by words we lack
            parts.append(Num(n.value, n.text))
        elif word.lower() in _ARTICLES:
            if word.lower() in articles:
                return None  # "a zebra ... a zebra": one constant's words for two things
            articles.add(word.lower())
            parts.append(Num(Fraction(1), f"k_one_{word.lower()}_{noun.lower()}"))
        else:
            return None  # a place the words count otherwise ("striped zebras"): not read
        nxt = _NEXT_WORD.match(q, m.end())
        if nxt is not None and nxt.group(1).lower() not in _AFTER_A_THING:
            return None  # "4 inch heels": the noun a measure of another thing, no count of it
        sentences.add(_sentence_bounds(q, m.start()))
    if len(parts) < 2 or len(sentences) != 1 or sum((p.value for p in parts if isinstance(p, Num)), Fraction(0)) != v:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = BinOp("+", out, p)
    return out


def list_totals(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str,
                values: Sequence[Fraction]) -> list[Expr]:
    """``exprs`` (one term per computation starting at ``starts``, of the values ``values``) with each
    whole count of a noun the question counts in parts of one list (see the module docstring)
    replaced by its term; never a number an earlier computation has (a result the step may use)."""
    if givens is None:
        return exprs
    return [_walk(e, givens, line_at(solution, at), frozenset(values[:i]))
            for i, (e, at) in enumerate(zip(exprs, starts))]


def _walk(e: Expr, givens: Givens, line: str, earlier: frozenset[Fraction]) -> Expr:
    if isinstance(e, Num):
        return _total(e, givens, line, earlier) or e
    if isinstance(e, Neg):
        return Neg(_walk(e.operand, givens, line, earlier))
    if isinstance(e, BinOp):
        return BinOp(e.op, _walk(e.left, givens, line, earlier), _walk(e.right, givens, line, earlier))
    return e


def _total(num: Num, givens: Givens, line: str, earlier: frozenset[Fraction]) -> Expr | None:
    v = num.value
    if not num.text or num.text.startswith("k_") or v.denominator != 1 or not 2 <= v <= 20 \
            or names_other_quantity(givens, v) or v in earlier:
        return None
    words = {m.group(1).lower() for m in re.finditer(rf"(?<![\d.,])(?<!\d/){v.numerator}\s+([A-Za-z]+s)\b", line)}
    # "zebras": zebra; "boxes": box or boxe (a noun read both ways gives one term or none)
    nouns = {w[:-1] for w in words} | {w[:-2] for w in words if w.endswith("es")}
    found = {repr(t): t for t in (_counted(givens, noun, v) for noun in sorted(nouns) if len(noun) > 2)
             if t is not None}
    if len(found) == 1:
        return next(iter(found.values()))
    return None if found else _named_on_line(givens, line, v)


_WORD_OF = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
#: "a blue beetle", "A pink frog": one thing an article counts, named by a word and its noun
_ARTICLE_THING = re.compile(r"\b([Aa]n?)\s+([a-z]+)\s+([a-z]+)\b")
_ARTICLE_STOP = frozenset("of to and or the a an is are was were with for in on at by from as than that who which"
                          .split())


def _named_on_line(givens: Givens, line: str, v: Fraction) -> Expr | None:
    """``line_things``: "A pink frog weighs the same as a blue beetle, the same as a green toad" /
    "Since the pink frog weighs the same as a blue beetle and a green toad ... the three animals weigh
    3*50" (342): a count the line writes in words or digits before a plural noun ("the three
    animals"), where the line's words before its computation name exactly that many of the things the
    question counts each with an article ("a blue beetle": the word and its noun, each counted once in
    the question; "the pink frog" names the one counted): ``k_one_a_pink_frog + k_one_a_blue_beetle + k_one_a_green_toad``; else None."""
    n = int(v)
    said = rf"(?:{n}|{_WORD_OF[n]})" if n in _WORD_OF else rf"{n}"
    if not re.search(rf"(?<![\d.,/$]){said}\s+[a-z]+s\b", line, re.I):
        return None
    m = re.search(r"(?<![\w.])\d", line)
    prose = line[:m.start()].lower() if m else line.lower()
    q = givens.question[:20_000]
    things: dict[str, str] = {}
    for t in _ARTICLE_THING.finditer(q):
        adj, noun = t.group(2).lower(), t.group(3).lower()
        if adj in _ARTICLE_STOP or noun in _ARTICLE_STOP:
            continue
        words = rf"\b{adj}\s+{noun}\b"
        if len(re.findall(rf"\b(?:an?|one|another)\s+{words}", q, re.I)) != 1:
            return None  # a thing the question counts twice: which count it is in, the words do not say
        if re.search(words, prose):
            things[f"k_one_{t.group(1).lower()}_{adj}_{noun}"] = words
    if len(things) != n:
        return None
    parts = [Num(Fraction(1), name) for name in things]
    out: Expr = parts[0]
    for p in parts[1:]:
        out = BinOp("+", out, p)
    return out
