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

``joined_groups`` (read first, over all steps): a group each one of which is joined by another N ("each
child is joined by another child" / "the group doubles to 5 children * 2"): each one and the N who join
it, ``k_one_each_child + k_one_another_child`` (:func:`joined_groups`).

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


_N_WORD = {"two": 2, "three": 3, "four": 4, "five": 5}
#: "each child is joined by another child", "each child in the existing group is joined by another 2
#: children": each one of a group becomes itself and N more
_JOINED = re.compile(r"\beach\s+(?P<who>[a-z]+(?:\s+in\s+the\s+[a-z]+(?:\s+[a-z]+)?)?)\s+(?:is|was|gets|got)\s+"
                     r"joined\s+by\s+another\s+(?:(?P<n>\d+|two|three|four|five)\s+)?(?P<noun>[a-z]+)\b", re.I)


def _joined_terms(givens: Givens) -> list[tuple[str, Expr]]:
    """Each clause of :data:`_JOINED` the question writes, with the term of what each one becomes;
    none where one's N is stated elsewhere too (which place, the words there do not say)."""
    q = givens.question[:20_000]
    out: list[tuple[str, Expr]] = []
    for m in _JOINED.finditer(q):
        who = "k_one_each_" + re.sub(r"[^a-z]+", "_", m.group("who").lower()).strip("_")
        raw = m.group("n")
        if raw is None:
            joined: Expr = Num(Fraction(1), f"k_one_another_{m.group('noun').lower()}")
        else:
            n = Fraction(int(raw)) if raw.isdigit() else Fraction(_N_WORD[raw.lower()])
            places = [x for x in givens.numbers if x.value == n and not x.percent]
            if len(places) != 1 or places[0].start != m.start("n"):
                return []
            joined = Num(n, places[0].text)
        out.append((" ".join(m.group(0).lower().split()), BinOp("+", Num(Fraction(1), who), joined)))
    return out


def _factor_nums(e: Expr, v: Fraction) -> list[Num]:
    """The numbers of value ``v`` a product of ``e`` multiplies by (its text written, no constant)."""
    if isinstance(e, BinOp):
        here = [x for x in (e.left, e.right) if e.op == "*" and isinstance(x, Num) and x.value == v
                and x.text and not x.text.startswith("k_")]
        return here + _factor_nums(e.left, v) + _factor_nums(e.right, v)
    if isinstance(e, Neg):
        return _factor_nums(e.operand, v)
    return []


def _replace(e: Expr, old: Num, new: Expr) -> Expr:
    if e is old:
        return new
    if isinstance(e, BinOp):
        return BinOp(e.op, _replace(e.left, old, new), _replace(e.right, old, new))
    if isinstance(e, Neg):
        return Neg(_replace(e.operand, old, new))
    return e


def joined_groups(lines: Sequence[str], exprs: list[Expr], givens: Givens) -> list[Expr]:
    """``joined_groups``: "On the second street, each child is joined by another child and on the
    third street, each child in the existing group is joined by another 2 children" / "each child is
    joined by another child so the group doubles to 5 children * 2", "each child is joined by 2 more so
    the group has tripled to 10 children * 3" (1285): the group times each one and those who join it,
    ``k_one_each_child + k_one_another_child`` and ``k_one_each_child_in_the_existing_group + 2`` (the 2
    a given). Only where every such clause the question writes is read in exactly one step, each step
    reading one: a product by 1 + N on a line that says "joined", and where the question states 1 + N
    itself too (the 2 of "another 2 children"), a line that writes the clause as the question does.
    Else no step is read so (a step left to the binder may take the stated 2 by its value)."""
    terms = _joined_terms(givens)
    if not terms:
        return exprs
    found: dict[int, tuple[int, Num, Expr]] = {}
    for c, (clause, term) in enumerate(terms):
        v = Fraction(1) + (term.right.value if isinstance(term, BinOp) and isinstance(term.right, Num) else 0)
        hits = []
        for i, (e, line) in enumerate(zip(exprs, lines)):
            said = " ".join(line.lower().split())
            nums = _factor_nums(e, v)
            if len(nums) != 1 or not re.search(r"\bjoined\b", said) \
                    or (names_other_quantity(givens, v) and clause not in said):
                continue
            hits.append((i, nums[0], term))
        if len(hits) != 1:
            return exprs
        found[c] = hits[0]
    if len({i for i, _, _ in found.values()}) != len(found):
        return exprs
    out = list(exprs)
    for i, num, term in found.values():
        out[i] = _replace(out[i], num, term)
    return out


def list_totals(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str,
                values: Sequence[Fraction]) -> list[Expr]:
    """``exprs`` (one term per computation starting at ``starts``, of the values ``values``) with each
    whole count of a noun the question counts in parts of one list (see the module docstring)
    replaced by its term; never a number an earlier computation has (a result the step may use)."""
    if givens is None:
        return exprs
    lines = [line_at(solution, at) for at in starts]
    exprs = joined_groups(lines, exprs, givens)
    return [_walk(e, givens, line, frozenset(values[:i])) for i, (e, line) in enumerate(zip(exprs, lines))]


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
    if not num.text or num.text.startswith("k_") or v.denominator != 1 or not 2 <= v <= 20 or v in earlier:
        return None
    if names_other_quantity(givens, v):
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
