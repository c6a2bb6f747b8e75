"""A number whose noun the question leaves out because an earlier place of the same value names
it: "3 of the cages have 10 hamsters and the other 3 have 5 guinea pigs" (GSM8K 561), "Three of
the women ... are wearing 4 inch heels and three are wearing 2 inch heels" (1110). The second
number is followed by a verb ("have", "are"), not by a noun: it counts what the earlier place of
its value counts (cages, women), so a solution's "3 cages x 5 guinea pigs/cage" names both places
by its words and the words alone choose neither; the clause of the step's other number ("5 guinea
pigs": the other 3's) then decides (:mod:`.joint`). Without the earlier place's noun, the words
"cages" would tie both uses to the first place, one given in two roles.

Read by :class:`~.givens.Givens` when it reads the question's numbers."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.binding import QuestionNumber

#: a verb right after a number: the number's noun is left out ("the other 3 have", "three are")
_VERB_AFTER = re.compile(r"\s+(?:are|is|were|was|have|has|had)\b", re.I)


def with_elided_nouns(numbers: list[QuestionNumber], question: str) -> list[QuestionNumber]:
    """``numbers`` (in the question's order), each whose noun is left out (a verb right after it)
    given the words of the nearest earlier place of its value that has words of its own."""
    out: list[QuestionNumber] = []
    for n in numbers:
        if not n.percent and _VERB_AFTER.match(question, n.start + len(n.text)):
            earlier = next((p for p in reversed(out) if p.value == n.value and p.stems and not p.percent
                            and not _VERB_AFTER.match(question, p.start + len(p.text))), None)
            if earlier is not None:
                n = replace(n, stems=n.stems | earlier.stems)
        out.append(n)
    return out
