"""The one person "N other <people>" are other than (issue 26.1, lane covB), for a bare 1 a step
adds to that count: "There are 3 other people in the house" / "3+1 = 4 people" (the one the
question names, James); "Each student ... will travel in a group with 5 other students" / "5 + 1 =
6 students" (that student); "They planned to share the doughnuts evenly with their 8 other
friends" / "8 friends + 1 (Samuel) + 1 (Cathy)" (the two the question names). :mod:`.ones` reads the
sentence's own name first ("Jack rides the elevator with 8 other adults"); this reads the rest:

* "each/every <noun>" before the count in its sentence, of the noun the count names ("each student
  ... 5 other students"): ``k_one_<noun>``; another noun ("each friend ... 2 other guests"), or
  "each"/"every"/"per" before it with no noun of its own: None;
* else the people the question names (capitalised words it never writes in lower case, no
  sentence word such as "The" or a weekday): one constant each, in the order the line writes them
  (else the question's); the caller takes them only where the step adds exactly that many 1s.
"""

from __future__ import annotations

import re

from qcstation.core.reading.words import stem

__all__ = ["others_reference"]

_OTHER_AFTER = re.compile(r"\s+other\s+([A-Za-z]+)")
_EACH_BEFORE = re.compile(r"\b(?:each|every)\s+([a-z]+)\b", re.I)
_ANY_EACH = re.compile(r"\b(?:each|every|per)\b", re.I)
_CAPITALISED = re.compile(r"\b([A-Z][a-z]+)\b(?!['’]s\s+(?:Day|Eve)\b)")


def _slug(words: str) -> str:
    return re.sub(r"[^a-z]+", "_", words.lower()).strip("_")[:32]


def others_reference(question: str, start: int, text: str, sentence_start: int, line: str,
                     not_a_name: frozenset[str], prefix: str) -> list[str] | None:
    """The constants of the one(s) the count at ``start`` ("3" of "3 other people") is other than,
    or None (see the module docstring)."""
    after = _OTHER_AFTER.match(question, start + len(text))
    if after is None:
        return None
    before = question[sentence_start:start]
    each = _EACH_BEFORE.search(before)
    if each is not None:
        return [prefix + _slug(each.group(1))] if stem(each.group(1)) == stem(after.group(1)) else None
    if _ANY_EACH.search(before):
        return None
    q = question[:20_000]
    lower = {w.lower() for w in re.findall(r"\b[a-z]+\b", q)}
    who = list(dict.fromkeys(w for w in _CAPITALISED.findall(q) if w not in not_a_name and w.lower() not in lower))
    if not who:
        return None
    at = {w: m.start() for w in who if (m := re.search(rf"\b{w}\b", line))}
    if len(at) == len(who):
        who.sort(key=lambda w: at[w])
    return [prefix + _slug(w) for w in who]
