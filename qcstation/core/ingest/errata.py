"""Seeds whose dataset gold answer contradicts the words of their own question.

A benchmark is only worth its gold answers. The rules check that a formalization follows
the seed's worked solution; they cannot know that the solution itself misreads the
question. A few seeds of GSM8K's test set do: found by reading them against their
questions, each is listed here with what the words give. Such a seed is stored
``status='filtered'`` with ``filter_reason`` ``gold_error`` and the evidence as
``filter_detail``, so it never reaches generation, review, a release or a derived set,
and a reader can check (and overrule, by re-importing a corrected file) every call.

An entry is keyed by the content hash of the question (``importer.content_hash``, the
same normalisation as duplicate detection) AND the gold answer as the file writes it: a
corrected release of the dataset with a fixed answer is not filtered. Only seeds read and
found wrong are listed (typos in a solution that leave its answer right are not errors).
Pure data and one lookup; no I/O.
"""

from __future__ import annotations

from typing import NamedTuple

from qcstation.core.ingest.filters import FilterHit

__all__ = ["GOLD_ERROR", "ERRATA", "Erratum", "erratum"]

GOLD_ERROR = "gold_error"


class Erratum(NamedTuple):
    dataset: str   # where the seed comes from, and its line in that file
    gold: str      # the answer the file gives (must match for the entry to apply)
    words: str     # what the question's words give, and where the solution departs


ERRATA: dict[str, Erratum] = {
    # "Adrien's total salary was 30 percent higher than Lylah's. ..."
    "45ee8182c9fa8dba4396ce0b6559f89a4f1ff82974b1b9c9f8b0bcc780a5948b": Erratum(
        "GSM8K test line 120", "95200",
        "the question says Adrien's salary was 30 percent higher than Lylah's, so Lylah "
        "earned $40000 / 1.3; the solution takes her salary as 30% less than his "
        "($28000), so its 95200 answers another question"),
    # "Marin and his neighbor Nancy each eat 4 apples a day. ..."
    "b5b89484d050079e96bb1e52c3780de75582d05c4832e60ea1c5abf0c0311c2e": Erratum(
        "GSM8K test line 455", "150",
        "each of the two eats 4 apples a day, 8 a day, 240 in 30 days; the solution "
        "adds 4 + 1 = 5 a day"),
    # "Jim decides to go to college to earn some more money. ..."
    "ad49f07894b998d745d0692334d226e8699f6cc03ccf04394722c2d5701c8f22": Erratum(
        "GSM8K test line 1039", "4",
        "loans 4 x $50,000 plus 4 years of a $25,000 salary lost is $300,000, earned back "
        "at $50,000 a year more: 6 years, as the solution itself computes; the file's "
        "answer is 4"),
    # "Johnny's dad brought him to watch some horse racing ..."
    "3c0cf3d6ed58e0802ed4e94c0c22437f86cfd3bec8c269cb2dc0157f2a42b1e3": Erratum(
        "GSM8K test line 1043", "3",
        "the second race won 2 x 5 + 1 = $11, so the third lost 1.5 x 11 = $16.50 "
        "(the solution uses 10 x 1.5); lost 5 + 16.50 - 11 = $10.50 over 3 races, $3.50 "
        "on average"),
}


def erratum(question_hash: str, answer_text: str) -> FilterHit | None:
    """The ``gold_error`` hit of a listed seed whose file still gives the listed answer."""
    e = ERRATA.get(question_hash)
    if e is None or answer_text.strip() != e.gold:
        return None
    return FilterHit(GOLD_ERROR, f"the dataset's gold answer {e.gold} contradicts the "
                                 f"question ({e.dataset}): {e.words}")
