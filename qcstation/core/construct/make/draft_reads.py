"""What a rule-made key information draft (:mod:`.keyinfo_draft`) refuses because an annotator
could not read it: a scenario sentence that is no statement of its own, a known quantity cut
from the question that is neither its sentence nor a clause, an unknown described by its unit
alone, by two quantities of one unit, by no words, with no blank or with its computation shown
(the audit's fragment flags, :mod:`qcstation.core.construct.check.fragments`, read the same).
"""

from __future__ import annotations

import re

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.reading.clauses import (MAX_TEXT, is_question_sentence, negations_spelled, reads_as_clause,
                                            sentence_key, sentences as _sentences)

__all__ = ["known_fragments", "refuse_unread", "scenario_fragments"]


def scenario_fragments(scenario: str, question: str) -> list[str]:
    """The scenario's sentences that are no sentence of the question and read as no statement
    of their own (the reading floor's clauses; the audit's scenario-fragment flag reads the same)."""
    whole = _sentences(question)
    return [s.strip()[:120] for s in _sentences(scenario)
            if not is_question_sentence(s, whole)
            and ("?" in s.strip().rstrip(".!")
                or not reads_as_clause(negations_spelled(s.strip().rstrip(".!").strip("()"))))]


def known_fragments(known: list[str], question: str) -> list[str]:
    """The known quantities cut from the question as written that are neither one of its
    sentences nor a clause with its own subject and verb (the audit's known-fragment flag,
    :func:`qcstation.core.construct.check.fragments.known_fragments`, reads the same)."""
    q = re.sub(r"\s+", " ", question[:MAX_TEXT * 20]).lower()
    whole = _sentences(question[:MAX_TEXT * 20])
    return [k.strip()[:120] for k in known
            if (t := sentence_key(k)) and t in q and not is_question_sentence(k, whole) and not reads_as_clause(k)]


#: an unknown described by its blank and unit alone ("? km"; "? percentage points", 329: of what?)
_UNIT_ONLY = re.compile(r"\?\s*(?:(?:percentage|square|cubic|fluid)\s+)?[A-Za-z]+\.?")
#: a computation written into an unknown's description ("$25*4"): it shows how the value is found
_SHOWN_COMPUTATION = re.compile(r"\d\s*[*×x÷+]\s*\$?\d")
#: the whole chain of operations a computation starts ("2 x 4 x 10")
_WHOLE_CHAIN = re.compile(r"\d+(?:\s*[*×x÷+]\s*\$?\d+)+")


def _shows_computation(body: str, question: str) -> bool:
    """Does ``body`` write a computation ("spends$25*4 ?", 350)? Never one the question writes as a
    name of its own ("the 2 x 4s" for "ten 2 x 4 x 10 boards", 116: a board's size, no product).
    Each chain of operations is read once from its first operation (a match inside a chain the
    question writes is a piece of it, written there too): linear in ``body`` (it was read again
    from each operation, 20 s for a chain of 4,000)."""
    question = question[:20_000]
    read_to = 0
    for m in _SHOWN_COMPUTATION.finditer(body):
        if m.start() < read_to:
            continue
        whole = _WHOLE_CHAIN.match(body, m.start())
        written = whole.group(0) if whole else m.group(0)
        read_to = m.start() + len(written)
        if not re.search(r"(?<![\w.])" + re.escape(written) + r"(?![\d.])", question):
            return True
    return False


def refuse_unread(unknown: list[str], question: str) -> None:
    """Refuse (:class:`KeyInfoError`) an unknown an annotator could not read: one described by its
    unit alone ("Q1: ? km", 1051: which km?) but the value asked for; one whose label is the
    blank's own unit ("Drop 8 degrees = ? degrees", 1114: the drop, or after it?); one with no
    words ("Q1: ?", 490); one that shows its own value with no blank ("He walks 20 miles on the
    weekend", 170) or shows how it is computed ("Madeline spends$25*4 ? on food", 350)."""
    for u in unknown:
        label, _, desc = u.partition(": ")
        body = desc.replace(" (the value asked for)", "")
        if u is not unknown[-1] and _UNIT_ONLY.fullmatch(body):
            raise KeyInfoError(f"{label} would read with only its unit: {body[:90]!r}")
        if re.search(r"\b(\w+) = \? \1\b", body):
            raise KeyInfoError(f"{label} would read as two quantities of one unit: {body[:90]!r}")
        if not re.search(r"[A-Za-z]{2}", body):
            raise KeyInfoError(f"{label} would read with no words: {body[:90]!r} (its line writes only its computation)")
        if desc and ("?" not in body or _shows_computation(body, question)):
            raise KeyInfoError(f"{label} would read with {'no blank' if '?' not in body else 'its computation'}: "
                               f"{body[:90]!r} (its line writes the result where no blank stands for it)")
