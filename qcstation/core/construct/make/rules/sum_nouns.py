"""Which of a given and an earlier result of one value a term of a sum or difference is, by the
noun every other term of that sum counts (issue 26.1; asked by :func:`.links.resolve_links`).

Terms that are added or taken away count one thing. "In a community of 50 families, 15 families
own 2 dogs, 20 families own 1 dog ..." / "The 20 families own 20x1=<<20*1=20>>20 dogs. There are
50-15-20=<<50-15-20=15>>15 cat owners" (GSM8K train): the 20 of "50-15-20" is the question's
"20 families" or step 2's "20 dogs"; its other terms, 50 and 15, are the question's 50 and 15
families, so it is the families', not the dogs'. Decided only where

* the step is a sum or difference alone (no product nor quotient: "2 * 10 + 5" adds a product);
* the number is one given (its value stated at one place of the question, with a noun) or one
  earlier result (written in an annotation right before a noun on its own line), the two nouns
  different (a given written as a multiplier, "2 times the age", counts no noun: it is never a
  term of a sum whose other terms count the result's noun);
* every other term of the sum is settled (a given at one place of its value, or an earlier result
  the readings agree on) and counts one noun, which is one of the two candidates' and not the other's.

A term whose noun the words do not give (a price "$5", a result at the end of its line), or nouns
that differ among the other terms ("30 dogs + 20 cats"), decide nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.link_structure import (Computation, Readings, _Choices, _keep_decided,
                                                                open_numbers)
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num, leaves

#: the evidence of a link decided by the other terms' noun
SUM_NOUN_EVIDENCE = "the words: the other terms of its sum count the noun of the earlier result, not the question's number's"
SUM_GIVEN_EVIDENCE = "the words: the other terms of its sum count the noun of the question's number, not the earlier result's"

#: the word right after a step's written result, on the same line ("<<20*1=20>>20 dogs")
_RESULT_NOUN_RE = re.compile(r"[ \t]*\$?[ \t]*[\d.,/]*[ \t]*([A-Za-z]+)")
_NOT_A_NOUN = frozenset("""of and or the a an each per for to in on at is are was were more less than
    as by from with every times total left so that this which he she they it his her their its""".split())


#: what :func:`_given_noun` says of a given the question writes as a multiplier ("2 times"): it
#: counts no noun, so a sum whose other terms all count the earlier result's noun is that result's
MULTIPLIER = "×"


def _stem(word: str) -> str:
    w = word.lower()
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


def _pure_sum(e: Expr) -> bool:
    if isinstance(e, Num):
        return True
    if isinstance(e, Neg):
        return _pure_sum(e.operand)
    if isinstance(e, BinOp):
        return e.op in "+-" and _pure_sum(e.left) and _pure_sum(e.right)
    return False


def _given_noun(givens: Givens, v: Fraction) -> str:
    """The noun of the question's one place of ``v`` ('' when it states ``v`` at no place or at
    more than one, or with no noun)."""
    places = [q for q in givens.numbers if q.value == v and not q.percent]
    if len(places) != 1 or not places[0].slug or places[0].slug == "pct":
        return ""
    word = places[0].slug.split("_")[0].lower()
    if word in ("times", "time"):
        return MULTIPLIER  # "2 times the age": a factor, which no sum's terms count
    return "" if word in _NOT_A_NOUN else _stem(word)


def _result_noun(solution: str, comp: Computation) -> str:
    """The noun right after an annotated step's written result on its own line, else ''."""
    if comp.source != "annotation":
        return ""
    m = _RESULT_NOUN_RE.match(solution, comp.end)
    if m is None:
        return ""
    noun = _stem(m.group(1))
    return "" if noun in _NOT_A_NOUN else noun


def decide_by_sum_nouns(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                        givens: Givens, solution: str) -> Readings:
    """A term of a sum or difference that is a given or one earlier result: the one whose noun
    every other (settled) term of the sum counts. Only where one reading is left."""
    first = next(iter(readings.values()))[0]
    open_keys = {o.n for o in open_numbers(readings, ch, exprs)}
    key_index = {key: n for n, key in enumerate(ch.keys)}
    decided: dict[int, int | None] = {}
    for n, i, k, terms, v in open_numbers(readings, ch, exprs):
        steps = [j for j in ch.options[n] if j is not None]
        if None not in ch.options[n] or len(steps) != 1 or v in (0, 1) or not _pure_sum(exprs[i]):
            continue
        if len(terms) < 2 or any(not t.text for t in terms) or sum(1 for t in terms if t.value == v) > 1:
            continue
        gnoun, rnoun = _given_noun(givens, v), _result_noun(solution, comps[steps[0]])
        if not gnoun or not rnoun or gnoun == rnoun:
            continue
        others: set[str] = set()
        for k2, t in enumerate(leaves(exprs[i])):
            if k2 == k:
                continue
            n2 = key_index.get((i, k2))
            if n2 is not None and n2 in open_keys:
                others.add("")  # another open term: nothing is settled to compare with
                break
            choice = first[n2] if n2 is not None else None
            others.add(_given_noun(givens, t.value) if choice is None else _result_noun(solution, comps[choice]))
        if len(others) != 1 or "" in others or MULTIPLIER in others:
            continue
        (noun,) = others
        if noun == gnoun:
            decided[n] = None
        elif noun == rnoun:
            decided[n] = steps[0]
    kept = [r[0] for r in readings.values() if all(r[0][n] == c for n, c in decided.items())]
    if not decided or len(kept) != 1 or not _follows_agree(kept[0], decided, open_keys, ch, comps, exprs,
                                                            givens, solution):
        return readings
    return _keep_decided(readings, ch, decided,
                         lambda j: SUM_NOUN_EVIDENCE if j is not None else SUM_GIVEN_EVIDENCE)


def _follows_agree(choice: tuple[int | None, ...], decided: dict[int, int | None], open_keys: set[int],
                   ch: _Choices, comps: Sequence[Computation], exprs: list[Expr], givens: Givens,
                   solution: str) -> bool:
    """Whether what the decision settles for the other open numbers agrees with their own sums'
    nouns: a number of a sum or difference settled to a given (or a result) whose noun neither the
    sum's written result nor any other of its terms counts is refused. "a 5-level pyramid ... 9 blocks
    ... 2 less" / "7 - 2 = 5 blocks ... 5 - 2 = 3 blocks ... 9 + 7 + 5 + 3 + 1": the total's 5 is the
    blocks' (decided), which would leave the 5-level to "5 - 2 = 3 blocks", a count of blocks."""
    for n in open_keys - set(decided):
        i, k = ch.keys[n]
        if not _pure_sum(exprs[i]):
            continue
        c = choice[n]
        noun = _given_noun(givens, leaves(exprs[i])[k].value) if c is None else _result_noun(solution, comps[c])
        own = _result_noun(solution, comps[i])
        if not noun or not own or noun == own:
            continue
        terms = [_given_noun(givens, t.value) for k2, t in enumerate(leaves(exprs[i])) if k2 != k]
        if noun not in terms:
            return False
    return True
