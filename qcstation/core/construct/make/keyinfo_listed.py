"""What a rule-made key information (:mod:`.keyinfo_draft`) lists beside the clauses that state
its givens: the clauses that state a 1 the solution counts without writing a given for it
(:func:`_ones_said`), and the irrelevant information, the sentences and clauses whose numbers
the solution never uses (:func:`_irrelevant`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Callable

from qcstation.core.reading.clauses import reads_as_clause
from qcstation.core.reading.textnumbers import (ANNOT_RE as _ANNOT, NUMBER_RE as _NUMBER, NUMBER_WORD_RE as _WORD_RE,
                                                numbers_in as _numbers)
from qcstation.core.construct.make.keyinfo_clauses import _LEAD, _cap, _known_text, _units
from qcstation.core.construct.make.known_forms import locate, unused_list_items


def _counts_what_solution_uses(sentence: str, solution: str) -> bool:
    """Does a sentence count what the solution works with, though the solution never writes
    its number? "Jake buys 2 T-shirts." when the solution adds "the cost of the T-shirts":
    the words after one of its numbers are words of the solution."""
    from qcstation.core.reading.words import line_stems, words_at

    used = line_stems(solution)
    return any(words_at(sentence, m.start(), m.end()) & used for m in _NUMBER.finditer(sentence))


_ONE = re.compile(r"(?<![\w.$/-])1(?![\w.,/%-])")


def _ones_said(question: str, context: list[str], known: list[str], solution: str) -> list[str]:
    """The known quantities with each clause that states a 1 the solution counts without writing a
    given for it ("she drops 1 of each", 813; "money for 1 child ticket and 1 adult ticket", 149;
    "worth 1 point each", 877), in the question's order; listed nowhere, an annotator misses it."""
    said = [_cap(k).strip(" .").lower() for k in known]
    added = [(question.find(u), _known_text(u, True, s.lstrip().startswith(u))) for s in context
             for u in _units(s, lambda c: bool(_ONE.search(c))) if _ONE.search(u) and reads_as_clause(_cap(u))
             and not _LEAD.sub("", u)[:1].isdigit() and _counts_what_solution_uses(s, solution)
             and not any(_cap(u).strip(" .").lower() in k or k in _cap(u).strip(" .").lower() for k in said)]
    if not added:
        return known
    at = [question.lower().find(k.lower()[:40]) for k in known]
    return [k for _, k in sorted([*((a if a >= 0 else len(question), k) for a, k in zip(at, known)), *added],
                                 key=lambda x: x[0])]


def _unused_test(solution: str, used: set[Fraction]) -> Callable[[str], bool]:
    """Is a text a distractor: it states a number in digits, and none of its numbers is a value
    the formalization uses or the solution writes (all 0 or 1 is none: "1 child ticket" is what
    a step counts), nor does it count what the solution works with."""
    sol_numbers = _numbers(_ANNOT.sub(" ", solution))

    def unused(s: str) -> bool:
        return bool(_NUMBER.search(s)) and not (_numbers(s) & used) and not (_numbers(s) & sol_numbers) \
            and not _numbers(s) <= {Fraction(0), Fraction(1)} and not _counts_what_solution_uses(s, solution)

    return unused


def _irrelevant(context_sents: list[str], solution: str, used: set[Fraction], known: list[str]) -> list[str]:
    """Sentences with numbers, none of which the solution uses anywhere. Never a sentence
    whose only numbers are words ("he has one before bed" may be a fact the solution counts
    without writing it), whose numbers are all 1 ("money for 1 child ticket and 1 adult
    ticket" is what 12 + 10 counts), or that counts what the solution works with."""
    sol_numbers = _numbers(_ANNOT.sub(" ", solution))
    unused = _unused_test(solution, used)

    out = [s for s in context_sents if unused(s)]
    out += [i for s in context_sents if s not in out for i in unused_list_items(s, lambda t: not (
        _numbers(t) & (used | sol_numbers)) and not _numbers(t) <= {Fraction(0), Fraction(1)})]
    # "Pat's flowers grow 12 inches wide so she needs to leave 1.5 feet between every plant": a
    # clause of its own whose numbers the solution never uses is a distractor too (listed by
    # neither known quantities nor the sentences above, an annotator would find it nowhere)
    for s in context_sents:
        if s in out:
            continue
        units = _units(s, lambda c: bool(_numbers(c) & used))
        if len(units) < 2:
            continue
        for u in units:
            if unused(u) and reads_as_clause(_cap(u)) and not any(u in k or k in u for k in known):
                out.append(_cap(u))
    return out


#: a number the question states: a fraction, digits (with a unit glued on: "300g", "15$"; not an
#: ordinal "4th", a name "3B", "horse #2"), a number word ("three", "a dozen", "half", "twice")
_STATED = re.compile(r"(?<![\w.,/])\d+/\d+(?![\w/])|(?<!#)" + _NUMBER.pattern
                     + r"(?![.,]?\d|(?:st|nd|rd|th)\b|(?-i:[A-Z])\b|/\d)|" + _WORD_RE.pattern, re.I)
#: a known quantity that quotes the question's words ('The question asks about "12 pizzas"')
_QUOTED = re.compile(r'^The question (?:asks about|states) "(.*)"$', re.S)


def said_at(question: str, words: list[str]) -> list[tuple[int, int]]:
    """Where ``words`` (no space in any) stand in ``question`` one after another, any case, any
    run of spaces between them: the matches of ``re.compile(r"\\s+".join(map(re.escape, words)),
    re.I).finditer(question)``. An ASCII question and words are read without compiling that
    pattern (each listed text of each item is another one: a third of drafting the key
    information went to compiling them); the same matches, as the pattern finds them (no
    ASCII letter folds to another character under ``re.I``, and between two words the greedy
    ``\\s+`` takes the whole run of spaces: a word starts with none)."""
    if not (question.isascii() and all(w.isascii() for w in words)):
        said = re.compile(r"\s+".join(re.escape(w) for w in words), re.I)
        return [(m.start(), m.end()) for m in said.finditer(question)]
    low, parts = question.lower(), [w.lower() for w in words]
    first, n = parts[0], len(low)
    out: list[tuple[int, int]] = []
    at = low.find(first)
    while at >= 0:
        end = at + len(first)
        for w in parts[1:]:
            k = end
            while k < n and low[k].isspace():
                k += 1
            if k == end or not low.startswith(w, k):
                end = -1
                break
            end = k + len(w)
        if end < 0:
            at = low.find(first, at + 1)
        else:
            out.append((at, end))
            at = low.find(first, end)
    return out


def _spans(question: str, text: str) -> list[tuple[int, int]]:
    """Where a listed text stands in the question: each place its words are written (any case,
    any spacing; a quoted known quantity by its quote), else from its first comma-separated piece
    to its last (:func:`~.known_forms.locate`: a premise whose "if" went); [] if nowhere."""
    quoted = _QUOTED.match(text)
    words = (quoted.group(1) if quoted else text).strip().rstrip(".?!").split()
    if not words:
        return []
    found = said_at(question, words)
    lower = question.lower()
    if not found and len(lower) == len(question):
        at, end = locate(lower, " ".join(words).lower())
        found = [(at, end)] if at >= 0 else []
    return found


def every_number_listed(question: str, parts: list[str], sentences: list[str], known: list[str],
                        irrelevant: list[str], solution: str, used: set[Fraction]) -> tuple[list[str], list[str]]:
    """Known quantities and irrelevant information with every number the story states (``parts``:
    its sentences and the premises of the asking one) in one of them: a number no listed text holds
    ("He has 8 customers on Tuesday" of test 22, "Ginger and Amy both start with 100 pieces" of
    712, "Two candidates are running" of 180) is listed with the clause that states it: as
    irrelevant information where that clause is a distractor (:func:`_unused_test`), else as a
    known quantity (a count the solution works with though no line writes it: "Jake buys 2
    T-shirts"), in the question's order. A reviewer rejects key information that drops a number the
    question states. 0 and 1 ("one of them") are no count of their own here."""
    unused = _unused_test(solution, used)
    listed = [sp for t in [*known, *irrelevant] for sp in _spans(question, t)]
    new_known: list[tuple[int, str]] = []
    new_irrelevant: list[str] = []
    for part in parts:
        at = question.find(part)
        if at < 0:
            continue
        for m in _STATED.finditer(part):
            a, b = at + m.start(), at + m.start() + len(m.group(0).rstrip(",."))
            if _numbers(m.group(0)) <= {Fraction(0), Fraction(1)} or any(x <= a and b <= y for x, y in listed):
                continue
            here = (a - at, b - at)

            def carries(c: str, here: tuple[int, int] = here, part: str = part) -> bool:
                pos = part.find(c)
                return 0 <= pos <= here[0] and here[1] <= pos + len(c)

            unit = next((u for u in _units(part, carries) if carries(u)), part.strip(" ,;:"))
            whole = part in sentences
            if unused(unit):
                # (a sentence as written, as :func:`_irrelevant` lists one; a clause without its stop)
                text = part if unit.strip(" .") == part.strip(" .") and whole else _cap(unit).rstrip(".")
                if not reads_as_clause(_cap(text).rstrip(".")):
                    text = part
                if text not in irrelevant and text not in new_irrelevant:
                    new_irrelevant.append(text)
            else:
                text = _known_text(unit, whole, part.lstrip().startswith(unit))
                if text not in known and all(t != text for _, t in new_known):
                    new_known.append((a, text))
            listed += [(a, b), *_spans(question, text)]
    if new_known:
        at_k = [question.lower().find(k.lower()[:40]) for k in known]
        known = [k for _, k in sorted([*((p if p >= 0 else len(question), k) for p, k in zip(at_k, known)),
                                       *new_known], key=lambda x: x[0])]
    return known, [*irrelevant, *new_irrelevant]
