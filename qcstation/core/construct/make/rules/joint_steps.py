"""What a step's relation to its line or to an earlier step tells the joint reading
(:mod:`.joint`) of a value the question states at several places:

* :func:`whole_of`: a difference that takes what is left of a whole after its share ("This left 18
  pink - 6", 6 being "18*1/3" for "one third", 194) is where that whole's use is;
* :func:`what_is_left`: that use's place, where that use's words chose one place and this use's none;
* :func:`one_of_each`: one commutative chain that writes the value once for each of two places, each
  use with the same words after it ("Three persons eat 3 x 3 = 9 eggs each day", 312), takes one
  of each where the line's words name one place and its result's words the other ("three people",
  "three eggs"); where the result names what every place names ("the luge is 2+2 = 4 times" for
  "each of them decided to ride the luge 2 times", 133) nothing is decided.

Reads the reading floor and the rules' phrases only (asked by :mod:`.joint`)."""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.construct.make.rules.clause_words import _NO_EVIDENCE
from qcstation.core.construct.make.rules.phrases import phrase_re
from qcstation.core.reading.expr import BinOp, Expr, Name, Num, atoms, leaves
from qcstation.core.reading.words import ANNOTATION, WORD_GIVENS, line_stems, solution_stems, stem

#: a line that says its difference is what is left of a whole ("This left 18 pink - 6")
_LEFT = re.compile(r"\b(?:left|remain(?:s|ed|ing|der)?)\b", re.I)


def whole_of(exprs: list[Expr], lines: list[str], question: str, step: int, v: Fraction) -> int:
    """The step whose use of ``v`` a difference ``v - s_k`` takes its remainder of: ``s_k`` a share of
    that use ("18*1/3": ``v`` once, times or over word givens of the question only, "one third"),
    the step's line saying what is left ("This left 18 pink - 6", 194); else -1."""
    e = exprs[step]
    if not (isinstance(e, BinOp) and e.op == "-" and isinstance(e.left, Num) and e.left.value == v
            and isinstance(e.right, Name)) or step >= len(lines) or not _LEFT.search(ANNOTATION.sub(" ", lines[step])):
        return -1
    m = re.match(r"s(\d+)(?:_|$)", e.right.name)
    k = int(m.group(1)) - 1 if m else -1
    if not 0 <= k < step:
        return -1
    share = exprs[k]
    found = list(leaves(share)) if isinstance(share, BinOp) and share.op in "*/" else []
    if sum(1 for x in found if x.text and x.value == v) != 1 or any(isinstance(x, Name) for x in atoms(share)):
        return -1
    words = [x for x in found if x.value != v]
    if not words or not all(0 < x.value < 1 and any(x.value in vals and phrase_re(p, True).search(question)
                                                   for p, vals in WORD_GIVENS.items()) for x in words):
        return -1
    return k


def what_is_left(uses: list[tuple[int, int]], options: list[list[int]], worded: list[bool]) -> None:
    """Each use (step, :func:`whole_of` its step) that takes what is left of a whole: the whole's
    use's one place, where that use's words chose it and this use's words chose none (in place)."""
    for k, (_, whole_step) in enumerate(uses):
        whole = [j for j, (step, _) in enumerate(uses) if step == whole_step]
        if not worded[k] and len(whole) == 1 and worded[whole[0]] and len(options[whole[0]]) == 1 \
                and options[whole[0]][0] in options[k]:
            options[k] = list(options[whole[0]])
            worded[k] = True


def _result_after(line: str) -> frozenset[str]:
    """The words right after the line's one annotated result ("<<3*3=9>>9 eggs each day")."""
    found = re.findall(r">>\s*\$?[\d.,]+\s+((?:[A-Za-z]+\s*){1,3})", line[:2000])
    return line_stems(found[0]) - _NO_EVIDENCE if len(found) == 1 else frozenset()


def one_of_each(uses: list[tuple[int, Fraction, int, bool]], options: list[list[int]], worded: list[bool],
                own: list[frozenset[str]], lines: list[str], allowed: list[list[int]]) -> None:
    """Uses (step, value, nth, one commutative chain) of a step that writes the value once for each
    place with the same words after each, the line's words naming one place and its result's words
    the other: each may be any allowed place, by no words (the assignment then takes one of each;
    in place). See the module docstring."""
    n = len(own)
    for step in {u[0] for u in uses if u[3]}:
        ks = [k for k, u in enumerate(uses) if u[0] == step]
        line = lines[step] if step < len(lines) else ""
        if len(ks) != n or not all(uses[k][3] for k in ks) \
                or len({solution_stems(line, uses[k][1], 4, uses[k][2]) for k in ks}) != 1:
            continue  # "4 hours to mow the lawn, and ... 4 hours longer": 4+4 its words tell apart
        by_line = {i for k in ks for i in options[k] if len(options[k]) == 1 and worded[k]}
        common = frozenset.intersection(*own)
        by_result = {i for i in range(n) if _result_after(line) & (own[i] - common - _NO_EVIDENCE)}
        if len(by_line) != 1 or len(by_result) != 1 or by_line | by_result != set(range(n)):
            continue
        for k in ks:
            options[k] = list(allowed[k])
            worded[k] = False


#: a question that shares its costs or things out evenly among people, and a line that says what
#: each one gets or pays
_EVEN_SPLIT = re.compile(r"\b(?:split|share|divide)[a-z]*\b[^.?!]*\b(?:evenly|equally)\b", re.I)
_EACH_ONE = re.compile(r"\beach\b", re.I)
#: nouns that count people (a small explicit lexicon)
_PEOPLE = frozenset(stem(w) for w in """people persons friends kids children students members guests
    siblings brothers sisters cousins classmates teammates roommates players workers adults boys girls""".split())


def sharers(question: str, own: list[frozenset[str]], line: str) -> int | None:
    """The place a divisor of an even split is ("So each of them paid $102/3" for "Three friends ...
    If they agreed to split all the costs evenly", 190): where the question says its costs or things
    are split evenly or equally and the line says what each gets, the one place whose noun counts
    people ("Three friends", not "3 tickets"); else None."""
    if not _EVEN_SPLIT.search(question) or not _EACH_ONE.search(ANNOTATION.sub(" ", line)):
        return None
    people = [i for i, words in enumerate(own) if words & _PEOPLE]
    return people[0] if len(people) == 1 else None
