"""Which written occurrence of a word given each step uses, where the question writes the
phrase more than once ("One-third of them jump in and swim ... Another one-third go inside the
cave"): each occurrence its own given tied to its span, never one name for both (used by
:func:`~.constants.declare_literals` after it has named the word givens).

Each step that uses the word given is placed at the occurrence whose words its line writes:

* the words of the occurrence's sentence (names too: "Seth gave half ... Luis used half") that
  no other occurrence's sentence writes, or, in one sentence, of its clause that no other
  occurrence's clause writes ("half in turtle mode and half in rabbit mode");
* the word that makes an occurrence a complement ("the other half of the rooms"), right before
  the phrase on the line and in the question (weight 2);
* the clause of one occurrence stating another number of the step ("8 dozen glasses" for
  "8*12").

The names of one phrase are read together: "half" used as 1/2 (``w_half``) by one step and as its
2 parts (``w_half_parts``) by another is two uses of the phrase ("half as many robots as helmets and
half as many helmets as footballs").

A step whose words prefer some occurrences is one of those; one whose words prefer none may be
any. Each step takes its own occurrence (a step using the phrase twice, or more steps than
occurrences, is left as it was: :func:`~.constants._check_word_given_roles` reads those); when
there are as many steps as occurrences every occurrence is used. Exactly one assignment left:
the steps' uses are renamed, the second occurrence's given ``w_half_at2`` (``w_half_at2_parts``)
and so on, the first keeping its name; none left or several: RuleError, no reader can tell which
quantity each step uses.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

from qcstation.core.construct.make.rules.binding import sentence_bounds
from qcstation.core.construct.make.rules.clause_words import _NO_EVIDENCE, _stems_in, clause_span
from qcstation.core.construct.make.rules.phrases import phrase_re
from qcstation.core.construct.make.rules.result import RuleError
from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, leaves
from qcstation.core.reading.words import ANNOTATION, line_stems

#: the marker of the k-th occurrence in a word given's name ("w_half_at2_parts")
AT = re.compile(r"_at(\d+)(?=_parts$|_numerator$|$)")

#: a word before a phrase that makes it a complement or a restatement ("the other half")
_MARK = re.compile(r"\b(other|another|remaining|rest|next|last|first|second|final)\s+(?:[A-Za-z]+\s+)?$", re.I)


def occurrence_of(name: str) -> int:
    """Which written occurrence of its phrase a word given's name stands for (0: the first)."""
    m = AT.search(name)
    return int(m.group(1)) - 1 if m else 0


def strip_occurrence(name: str) -> str:
    """The name without its occurrence marker ("w_half_at2_parts" -> "w_half_parts")."""
    return AT.sub("", name)


def _renamed(e: Expr, old: str, new: str) -> Expr:
    if isinstance(e, Name):
        return Name(new) if e.name == old else e
    if isinstance(e, Neg):
        return Neg(_renamed(e.operand, old, new))
    if isinstance(e, BinOp):
        return BinOp(e.op, _renamed(e.left, old, new), _renamed(e.right, old, new))
    return e


def _count(e: Expr, name: str) -> int:
    if isinstance(e, Name):
        return int(e.name == name)
    if isinstance(e, Neg):
        return _count(e.operand, name)
    if isinstance(e, BinOp):
        return _count(e.left, name) + _count(e.right, name)
    return 0


def _mark(text: str, start: int) -> str:
    m = _MARK.search(text[max(0, start - 25):start])
    return m.group(1).lower() if m else ""


def _scores(question: str, starts: list[int], line: str, phrase: str, anchors: list[int]) -> list[int]:
    said = line_stems(ANNOTATION.sub(" ", line)) - _NO_EVIDENCE - line_stems(phrase)
    bounds = sentence_bounds(question)
    sent = [next(k for k, e in enumerate(bounds) if s < e) for s in starts]
    out = [0] * len(starts)
    if len(set(sent)) == len(sent):
        words = [line_stems(question[(bounds[k - 1] if k else 0):bounds[k]]) for k in sent]
    else:
        spans = [clause_span(question, s) for s in starts]
        if len(set(spans)) != len(spans):
            words = [frozenset() for _ in starts]
        else:
            words = [_stems_in(question, sp, s) for s, sp in zip(starts, spans)]
    for i in range(len(starts)):
        rest = frozenset().union(*(w for j, w in enumerate(words) if j != i))
        out[i] += len((words[i] - rest - _NO_EVIDENCE) & said)
    prose = ANNOTATION.sub(" ", line)
    on_line = [m.start() for m in phrase_re(phrase, True, True).finditer(prose)]
    marks = [_mark(question, s) for s in starts]
    if len(on_line) == 1 and len(set(marks)) > 1:
        said_mark = _mark(prose, on_line[0])
        for i, mk in enumerate(marks):
            if said_mark and mk == said_mark:
                out[i] += 2
    spans = [clause_span(question, s) for s in starts]
    if len(set(spans)) == len(spans):
        for a in anchors:
            holding = [i for i, (x, y) in enumerate(spans) if x <= a < y]
            if len(holding) == 1:
                out[holding[0]] += 1
    return out


def split_word_givens(exprs: list[Expr], question: str, order: list[tuple[str, Fraction, Expr]],
                      lines: list[str] | None, phrase_of: dict[str, str],
                      single_places: dict[Fraction, int]) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]]]:
    """Each word given of ``order`` whose phrase (``phrase_of``: name -> phrase) the question
    writes more than once and more than one step uses: each step's use renamed to its own
    occurrence's given (module docstring). ``single_places``: value -> where the question
    states it, for the values it states at one place."""
    out = list(exprs)
    new_order: list[tuple[str, Fraction, Expr]] = []
    # the names of one phrase read together: "half" as 1/2 (``w_half``) in one step and as its 2
    # parts (``w_half_parts``) in another are two uses of the phrase, each at its own occurrence
    group: dict[str, list[tuple[str, Fraction, Expr]]] = {}
    for name, v, term in order:
        if name in phrase_of:
            group.setdefault(phrase_of[name], []).append((name, v, term))
    done: set[str] = set()
    for name, v, term in order:
        phrase = phrase_of.get(name)
        if phrase is None:
            new_order.append((name, v, term))
            continue
        if phrase in done:
            continue
        done.add(phrase)
        members = group[phrase]
        starts = [m.start() for m in phrase_re(phrase, True, True).finditer(question)]
        using = [(i, n) for n, _, _ in members for i, e in enumerate(out) if _count(e, n)]
        if len(starts) < 2 or len(using) < 2 or len(using) > len(starts) \
                or any(_count(out[i], n) > 1 for i, n in using) or len({i for i, _ in using}) != len(using):
            new_order.extend(members)
            continue
        options: list[list[int]] = []
        worded: list[bool] = []
        for i, _ in using:
            line = lines[i] if lines is not None and i < len(lines) else ""
            anchors = [single_places[leaf.value] for leaf in leaves(exprs[i])
                       if leaf.text and leaf.value in single_places]
            sc = _scores(question, starts, line, phrase, anchors)
            top = max(sc)
            options.append([k for k, s in enumerate(sc) if s == top] if top > 0 else list(range(len(starts))))
            worded.append(top > 0)
        cover = len(using) == len(starts)
        found = []
        for pick in itertools.product(*options):
            if len(set(pick)) != len(pick) or (cover and len(set(pick)) != len(starts)):
                continue
            found.append(pick)
            if len(found) > 1:
                break
        if len(found) != 1 or (not cover and not all(worded)):
            raise RuleError(f"the word given {phrase!r} is written {len(starts)} times and used by {len(using)} "
                            "steps: no words tell which step uses which (one name for both would tie "
                            "each use to the first)", "Ambiguous binding")
        of = {n: (v2, t2) for n, v2, t2 in members}
        placed: dict[tuple[int, str], str] = {}
        for (i, n), k in zip(using, found[0]):
            new = n if k == 0 else _at(n, k + 1)
            out[i] = _renamed(out[i], n, new)
            placed[(k, n)] = new
        for k, n in sorted(placed):
            new_order.append((placed[(k, n)], *of[n]))
    return out, new_order


def _at(name: str, k: int) -> str:
    for suffix in ("_parts", "_numerator"):
        if name.endswith(suffix):
            return f"{name[:-len(suffix)]}_at{k}{suffix}"
    return f"{name}_at{k}"
