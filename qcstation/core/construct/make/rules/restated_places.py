"""Places of one value that state one quantity (:func:`one_quantity`; issue 26.1, lane covB): "He
wants to distribute his gold bars evenly to his 4 friends ... how many gold bars will each of his 4
friends get": the second "his 4 friends" points back to the first (a possessive or "the" before it, the
same number and the same noun after it), so a use the binder ties to the first place by order alone
ties it to the quantity both places state: nothing is left unsettled. Places that only share their noun
("All the trucks have 4 wheels and all the cars also have 4 wheels": two quantities of one value) are
not read so: no word before the later place points back.
"""

from __future__ import annotations

import re

from qcstation.core.construct.make.rules.binding_words import QuestionNumber

__all__ = ["one_quantity"]

#: a word right before a number that points back to a quantity already stated
_BACK = re.compile(r"\b(?:the|his|her|their|its|our|my|your)\s+$", re.I)
_NOUN = re.compile(r"\s+([A-Za-z]+)")


def one_quantity(question: str, places: list[QuestionNumber]) -> bool:
    """Do the places (of one value, in the question's order) state one quantity: every place after
    the first written as the first is ("his 4 friends"), the word before each the same possessive or
    "the", the same noun after each?"""
    q = question[:20_000]
    if len(places) < 2:
        return False

    def form(n: QuestionNumber) -> tuple[str, str, str] | None:
        before = _BACK.search(q, max(0, n.start - 12), n.start)
        after = _NOUN.match(q, n.start + len(n.text))
        if before is None or after is None:
            return None
        return before.group(0).strip().lower(), n.text.lower(), after.group(1).lower()

    forms = [form(n) for n in places]
    return forms[0] is not None and all(f == forms[0] for f in forms[1:])
