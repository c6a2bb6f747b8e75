"""What a rule-made key information (:mod:`.keyinfo_draft`) lists beside the clauses that state
its givens: the clauses that state a 1 the solution counts without writing a given for it
(:func:`_ones_said`), and the irrelevant information, the sentences and clauses whose numbers
the solution never uses (:func:`_irrelevant`).
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.clauses import reads_as_clause
from qcstation.core.reading.textnumbers import ANNOT_RE as _ANNOT, NUMBER_RE as _NUMBER, numbers_in as _numbers
from qcstation.core.construct.make.keyinfo_clauses import _LEAD, _cap, _known_text, _units
from qcstation.core.construct.make.known_forms import unused_list_items


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


def _irrelevant(context_sents: list[str], solution: str, used: set[Fraction], known: list[str]) -> list[str]:
    """Sentences with numbers, none of which the solution uses anywhere. Never a sentence
    whose only numbers are words ("he has one before bed" may be a fact the solution counts
    without writing it), whose numbers are all 1 ("money for 1 child ticket and 1 adult
    ticket" is what 12 + 10 counts), or that counts what the solution works with."""
    sol_numbers = _numbers(_ANNOT.sub(" ", solution))

    def unused(s: str) -> bool:
        return bool(_NUMBER.search(s)) and not (_numbers(s) & used) and not (_numbers(s) & sol_numbers) \
            and not _numbers(s) <= {Fraction(0), Fraction(1)} and not _counts_what_solution_uses(s, solution)

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
