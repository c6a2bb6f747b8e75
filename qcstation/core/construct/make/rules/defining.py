"""Which place of a value the question states more than once defines the quantity a use means,
where every other place restates a quantity (used by :class:`~.binding.Binder` after its other
readings, before it would fall back to order).

A place restates a quantity when its own words say so:

* a definite reference: "set *the five pies* out" after "baked 5 apple pies", "*all 5* hanging
  baskets", "*the first four* days", "*the previous three* teeth", "than *the 500* piece one";
  the place restates the earlier place its noun names ("pies"), or, naming none, a count the
  story lists and never states as this number ("the three months" after "first month",
  "second month"; "do the three have" for Jan, Marcia and Cindy);
* what the question asks ("How many ... ?", after its question word) repeating the very words
  of an earlier place outside it: "enough for 30 days?" after "to last her for 30 days", where
  the solution writes the value fewer times than the question states it (two uses of "in 3
  years" are two quantities).

"*the other* two pizzas", "*another* 18 flamingos", "*the next* two days", "*the last* 2
teeth" are complements, new quantities, never restatements. A clock time ("by 5 pm") is a
label, never a quantity. When exactly one place is left that restates nothing (and is no clock
time), it is the quantity: every restatement means the same quantity, so the use is that place
by the words of the others (derive refuses a parent whose given is restated elsewhere, so no
derived item moves one mention alone). A place restating a count the story never states as
this number decides only where the line writes the value nowhere outside its computation ("Jan
has 3 * 6": the "three times", not "the three" people; a line "for the three boys" may mean
them). Otherwise None: the words decide nothing and the binder refuses rather than take the
first place.
"""

from __future__ import annotations

import re

#: where a sentence ends (as :func:`.binding.sentence_bounds`: the '.' of "$2.50" ends nothing;
#: not imported from there, which imports this module)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def sentence_bounds(question: str) -> list[int]:
    return [m.end() for m in _SENTENCE_END.finditer(question)] + [len(question)]

#: words before a place that refer back to a quantity already named
_DEFINITE = re.compile(r"\b(?:the|all|all\s+the|those|these)\s+"
                       r"(?:(?:first|previous|original|initial|same|entire|whole)\s+)?\$?$", re.I)
#: words before a place that make it a new quantity beside one already named
_COMPLEMENT = re.compile(r"\b(?:other|another|next|last|remaining|rest|more|extra|additional|further|final"
                         r"|new)\s+(?:\w+\s+)?\$?$", re.I)
#: a clock time after the number ("5 pm", "5:00", "5 o'clock")
_CLOCK = re.compile(r"^\s*(?::\d\d\s*)?(?:[ap]\.?\s?m\b|o'?clock\b)|^:\d\d\b", re.I)
#: where the question asks, in its last sentence: a place after it restates ("How much will she
#: pay each month for 3 months?")
_ASKS = re.compile(r"\b(?:how|what|calculate|find|determine|compute)\b", re.I)


def is_clock(question: str, start: int, width: int) -> bool:
    """Is the number at ``start`` (``width`` characters) a clock time ("5 pm", "5:00")?"""
    return bool(_CLOCK.search(question[start + width:start + width + 12]))


def _asked(question: str, pos: int) -> bool:
    """Is ``pos`` in what the question asks: after its "How many" (or "What", "Calculate") in
    a sentence ending with "?" or starting with that word, not in a condition before it ("If
    John has 20 minutes of history homework ..., how many minutes")?"""
    bounds = sentence_bounds(question)
    k = next(i for i, e in enumerate(bounds) if pos < e)
    a = bounds[k - 1] if k else 0
    sentence = question[a:bounds[k]]
    ask = _ASKS.search(sentence)
    if ask is None or a + ask.start() > pos:
        return False
    return sentence.rstrip().endswith("?") or not sentence[:ask.start()].strip()


def restated_counts(question: str, starts: list[int], own: list[frozenset[str]]) -> list[int]:
    """Of the places ``starts`` (sorted; ``own``: the words that name each) of one value, the
    indices of those that restate a count the story lists and never states as this number ("these
    3 countries" after three countries named, beside "-3 degrees"): a definite reference naming
    no other place's noun. Such a place is a quantity of its own, never another place's."""
    out: list[int] = []
    for i, s in enumerate(starts):
        if i and _DEFINITE.search(question[max(0, s - 40):s]) \
                and not any(own[i] & own[j] for j in range(len(starts)) if j != i):
            out.append(i)
    return out


def defining_place(question: str, starts: list[int], widths: list[int], own: list[frozenset[str]],
                   writes_elsewhere: bool, uses: int) -> int | None:
    """Of the places ``starts`` (sorted, distinct; ``widths``: characters each writes, ``own``:
    the words that name each) of one value, the index of the one place that restates nothing
    and is no clock time, when every other place restates a quantity (module docstring);
    ``writes_elsewhere``: the step's line writes the value outside its computation too;
    ``uses``: how many times the solution writes the value (what the question asks restates an
    earlier place only where the solution uses the value fewer times than the question states
    it: "turn 12 in 3 years ... be in 3 years?" used twice are two quantities)."""
    if len(starts) < 2 or len(set(starts)) != len(starts):
        return None
    defining: list[int] = []
    unstated_count = False
    for i, s in enumerate(starts):
        if is_clock(question, s, widths[i]):
            continue
        before = question[max(0, s - 40):s]
        if i == 0 or _COMPLEMENT.search(before):
            defining.append(i)
            continue
        named = [j for j in range(i) if own[i] & own[j]]
        if _DEFINITE.search(before):
            if not named:
                if any(own[i] & own[j] for j in range(len(starts)) if j != i):
                    defining.append(i)  # names a later place's noun: not a count the story lists
                    continue
                unstated_count = True
            continue
        if uses < len(starts) and _asked(question, s) \
                and any(own[i] and own[i] == own[j] and not _asked(question, starts[j]) for j in named):
            continue
        defining.append(i)
    if len(defining) != 1 or (unstated_count and writes_elsewhere):
        return None
    return defining[0]
