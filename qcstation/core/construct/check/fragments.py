"""Key information that reads as no statement of its own: the audit's ``known-fragment``
and ``scenario-fragment`` flags (:mod:`qcstation.core.construct.check.selfcheck`).

A known quantity cut from the question, or a sentence of the problem scenario, must be a fact a
reader can sign on its own: one of the question's sentences, or a clause with its own subject
and verb (:func:`qcstation.core.reading.clauses.reads_as_clause`). These checks read key
information against its question; the reading of clauses is the reading floor's.
"""

from __future__ import annotations

import re

from qcstation.core.reading.clauses import (
    MAX_TEXT,
    is_question_sentence,
    negations_spelled,
    reads_as_clause,
    sentence_key,
    sentences,
)

__all__ = ["known_fragments", "scenario_fragments"]


def known_fragments(known: list[str], question: str) -> list[str]:
    """The known quantities cut from ``question`` (their words stand in it as written) that
    are neither one of its sentences nor a clause with its own subject and verb. A known
    quantity in other words (a paraphrase) is no cut and is not judged here."""
    question = question[:MAX_TEXT * 20]
    q = re.sub(r"\s+", " ", question).lower()
    whole = sentences(question)
    out: list[str] = []
    for item in known:
        if not isinstance(item, str) or not item.strip():
            continue
        t = sentence_key(item)
        if not t or t not in q or is_question_sentence(item, whole):
            continue
        if not reads_as_clause(item):
            out.append(item.strip()[:120])
    return out


def scenario_fragments(scenario: str, question: str) -> list[str]:
    """The sentences of a problem scenario that are no sentence of ``question`` as written (a
    part cut from one, or a premise restated as a fact) and do not read as a statement of their
    own: no subject and verb, a clause that ends where its main clause was cut off ("At the end
    of the 8 weeks, if she has a total of $100.", "..., so."), or a question mark inside ("It was
    $120 initially? (Round to the nearest integer)."). The question's own sentences are its
    words, never judged."""
    whole = sentences(question[:MAX_TEXT * 20])
    out: list[str] = []
    for s in sentences(scenario[:MAX_TEXT * 20]):
        if is_question_sentence(s, whole):
            continue
        body = s.strip().rstrip(".!")
        if "?" in body or not reads_as_clause(negations_spelled(body.strip("()"))):
            out.append(s.strip()[:120])
    return out
