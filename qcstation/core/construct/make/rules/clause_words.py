"""Which place of a value the question states more than once a solution line means, read from
the words of each place's clause (used by :class:`~.binding.Binder` before it would fall back
to order).

The question "He stopped being penpals with 2 of them. They each send 2 letters a week" states
2 twice; the line "Thus he gets 3*2 = 6 letters a week" names "letters", which only the clause
of the second 2 writes. :func:`clause_place` gives that place when the line writes words of
exactly one place's clause that the question writes nowhere else; when the line writes such
words of two places (or of none), it gives None and the binder keeps its other readings.
Words the line writes after another number of the step ("2 pounds / 4") say what that number
is, not which place this one is; nor do the words of another number's own clause.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from qcstation.core.reading.clause_places import CLAUSE_STOP, PER_UNIT, clause_stems
from qcstation.core.reading.expr import leaves
from qcstation.core.reading.words import (_STOP, _WORD, ANNOTATION, NUMERAL, NUMBER_WORD_VALUES, line_stems, numeral_value, solution_stems, stem)

#: stems that tell no quantity from another: units of every price and percent, totals
_NO_EVIDENCE = frozenset({"$", "%", "cent", "tota", "numb"})

#: what ends a clause here: punctuation, a conjunction, a comparison or a condition ("than
#: Billy's starting salary", "if he has 9 inpatients" start clauses of their own)
_BREAK = re.compile(r"[.,;:!?](?:\s|$)|\b(?:and|while|but|whereas|then|than|if|when|because|so|how|what|which"
                    r"|where|who)\b", re.I)

#: a place the question writes as a quantity it already named ("the 500 piece one", "the
#: original 18"): the same quantity as another place, never told apart from it by its clause
_RESTATED = re.compile(r"\b(?:the|same)\s+(?:\w+\s+)?\$?$", re.I)

#: a name ("Craig", "Ellen"): the line's subject, who acts in several clauses, never which place
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_WEEKDAY = re.compile(r"(?:Sun|Mon|Tues|Wednes|Thurs|Fri|Satur)days?")


def clause_span(question: str, pos: int) -> tuple[int, int]:
    """The clause of the question around ``pos`` (between the breaks of :data:`_BREAK`)."""
    a = 0
    for m in _BREAK.finditer(question, 0, pos):
        a = m.end()
    end = _BREAK.search(question, pos + 1)
    return a, end.start() if end else len(question)


def _stems_in(question: str, span: tuple[int, int], pos: int) -> frozenset[str]:
    """The clause words of ``span`` (the reading floor's clause stems, cut to the span)."""
    a, b = span
    return clause_stems(question[a:b], pos - a)


def clause_place(question: str, starts: list[int], own: list[frozenset[str]], line: str,
                 others: list[int], other_values: list[Fraction]) -> int | None:
    """Of the places ``starts`` of one value in the question (``own``: the words that name each,
    right after it), the index of the one whose clause words the solution ``line`` writes, when
    exactly one does. A place's evidence is the words of its clause (and its own words) that
    the question writes nowhere else, no name ("Craig": who acts, not what is counted); two places in one clause, or a place that restates a
    quantity ("the 500 piece one"), are never told apart. ``others``: where the question states
    the step's other numbers (each at one place), ``other_values``: the step's other numbers;
    the words of their clauses (when no clause of the places) and the words the line writes
    after them are taken off the line first."""
    if len(starts) < 2 or len(set(starts)) != len(starts):
        return None
    if any(_RESTATED.search(question[max(0, s - 30):s]) for s in starts):
        return None
    spans = [clause_span(question, s) for s in starts]
    if len(set(spans)) != len(spans):
        return None  # two places in one clause: its words name both
    words = [(_stems_in(question, sp, s) | own[i]) - _NO_EVIDENCE for i, (s, sp) in enumerate(zip(starts, spans))]
    names = line_stems(" ".join(_NAME.findall(question)))
    unique = [w - line_stems(question[:a] + " . " + question[b:]) - names for w, (a, b) in zip(words, spans)]
    said = line_stems(line) - _NO_EVIDENCE
    for o in others:
        sp = clause_span(question, o)
        if sp not in spans:
            said -= _stems_in(question, sp, o)
    for v in other_values:
        said -= solution_stems(line, v)
    hits = [len(u & said) for u in unique]
    if sum(1 for h in hits if h) != 1:
        return None
    return next(i for i, h in enumerate(hits) if h)


def single_places(values: list[Fraction], by_value: dict[Fraction, list[int]], starts: list[int]) -> list[int]:
    """Where the question states each of ``values`` that it states at one place only."""
    out = []
    for v in values:
        at = {starts[j] for j in by_value.get(v, [])}
        if len(at) == 1:
            out.append(next(iter(at)))
    return out


_ANNOTATED = re.compile(r"<<([^<>=]{1,200})=[^<>]*>>")
_NUMBER = re.compile(r"\d+(?:\.\d+)?|\.\d+")


def operand_numbers(line: str) -> set[Fraction]:
    """The numbers the calculator annotations of a line compute with (not their results): an
    earlier result the step uses ("<<2/4=0.5>>": 2 and 4)."""
    out: set[Fraction] = set()
    for m in _ANNOTATED.finditer(line[:2000]):
        for n in _NUMBER.findall(m.group(1)):
            out.add(Fraction(n))
    return out


_RESULT = re.compile(r"<<[^<>=]{1,200}=\s*(\d+(?:\.\d+)?|\.\d+)\s*>>")


def annotated_results(line: str) -> set[Fraction]:
    """The results the calculator annotations of a line write ("<<12+3=15>>": 15)."""
    return {Fraction(m.group(1)) for m in _RESULT.finditer(line[:2000])}


def _plain_stems(text: str, names: frozenset[str]) -> frozenset[str]:
    """The content words of a text (no common verb, number word, unit sign or name), as stems."""
    return frozenset(stem(w) for w in _WORD.findall(ANNOTATION.sub(" ", text[:2000]))
                     if w.lower() not in CLAUSE_STOP and w.lower() not in NUMBER_WORD_VALUES
                     and w not in ("$", "%") and w.lower() not in _NO_WORDS) - names - _NO_EVIDENCE


#: words of a line that say nothing of what it counts: the times sign ("25 x 3/5") and the
#: connectives of a worked solution ("meaning", "means")
_NO_WORDS = frozenset({"x", "meaning", "means", "mean"})


def result_or_given(question: str, places: list[int], line: str, earlier: list[str],
                    other_values: list[Fraction]) -> int | None:
    """A number a step's ``line`` writes that could be the question's number (stated at
    ``places``) or an earlier step's result (``earlier``: the lines of those steps): which one
    the words of the line say. The evidence of the given is the words of its clause that no
    earlier line writes; of an earlier result, the words of its line that neither the given's
    clause nor another earlier line writes ("Vanilla ice cream ... 50 quarts / 4 hours" is the
    question's "50 quarts of vanilla ice cream", not "Chocolate ice cream ... = 50 quarts per
    hour"). Returns -1 for the given, the index into ``earlier`` for a result, None when the
    line writes the evidence of none or of more than one."""
    if not earlier:
        return None
    found = _result_or_given(question, places, line, earlier, other_values, _NAME.findall(question))
    # a day of the week only unsettles: "two times the number sent on Wednesday" may be the result
    # whose line says "On Wednesday" as well as the one that says "sent last week on Monday and
    # Tuesday" (train 1710, where "sent" alone chose the latter); it decides nothing by itself ("he
    # earned $40 x 2 for the two devices he bought last Monday" is not Monday's cost, 1157)
    days = _result_or_given(question, places, line, earlier, other_values,
                            [w for w in _NAME.findall(question) if not _WEEKDAY.fullmatch(w)])
    return found if found == days else None


def _result_or_given(question: str, places: list[int], line: str, earlier: list[str],
                     other_values: list[Fraction], name_words: list[str]) -> int | None:
    names = line_stems(" ".join(name_words))
    given: frozenset[str] = frozenset()
    for p in places:
        a, b = clause_span(question, p)
        given |= _plain_stems(question[a:b], names)
    lines = [_plain_stems(e, names) for e in earlier]
    said = _plain_stems(line, names)
    for v in other_values:
        said -= solution_stems(line, v)
    hits = {-1: len((given - frozenset().union(*lines)) & said)}
    for j, words in enumerate(lines):
        rest = frozenset().union(given, *(x for k, x in enumerate(lines) if k != j))
        hits[j] = len((words - rest) & said)
    found = [j for j, h in hits.items() if h]
    return found[0] if len(found) == 1 else None


def rate_place(question: str, starts: list[int], other: int | None, other_words: frozenset[str]) -> int | None:
    """A number that multiplies or divides another stated at one place (``other``, named by
    ``other_words``: "6 pails"; None: an earlier result, named by the words after it on its line),
    of a value the question states at ``starts``: the place whose
    clause is a rate of what the other number counts ("each pail contains 5 liters", not "5
    pails of water every morning"), when exactly one place's clause says "each", "per" or
    "every" of those words; None otherwise, also when two places share a clause or the other
    number's clause is one of theirs."""
    words = other_words - _NO_EVIDENCE
    if len(starts) < 2 or not words:
        return None
    spans = [clause_span(question, s) for s in starts]
    if len(set(spans)) != len(spans) or (other is not None and clause_span(question, other) in spans):
        return None
    hits = []
    for a, b in spans:
        per: set[str] = set()
        for m in PER_UNIT.finditer(question[a:b]):
            per |= {stem(w) for w in _WORD.findall(m.group(1)) if w.lower() not in CLAUSE_STOP}
        hits.append(bool(per & words))
    return hits.index(True) if hits.count(True) == 1 else None


#: where the words after a number stop saying what it counts: another number, an operator, a
#: clause break, or a rate ("$2 per bottle of bleach" is a price, not a count of bottles)
_AFTER_STOP = re.compile(r"[=+\-*/×÷<>()\d.,;:!?\n$]|\b(?:x|per|each|every|an?)\b", re.I)
_BEFORE_WORD = re.compile(r"([A-Za-z][A-Za-z'’]*)\W{0,2}$")


def phrase_at(text: str, start: int, end: int) -> tuple[frozenset[str], frozenset[str]]:
    """The words that say what a number at ``text[start:end]`` is: the content word right before
    it ("lost 5") and up to four content words after it, to the next number, operator or
    clause break ("6 pounds of peaches")."""
    before = _BEFORE_WORD.search(text[max(0, start - 30):start])
    word = before.group(1).lower() if before else ""
    pre = frozenset({stem(word)}) if word and word not in _STOP and word not in CLAUSE_STOP else frozenset()
    tail = text[end:end + 80]
    stop = _AFTER_STOP.search(tail)
    words = [w for w in _WORD.findall(tail[:stop.start()] if stop else tail) if w.lower() not in _STOP]
    return pre, frozenset(stem(w) for w in words[:4]) - _NO_EVIDENCE


#: a number written as an operand or the result of a computation on the line ("removes 3*1= 3")
_IN_COMPUTATION = re.compile(r"[-+*/x×÷=(]\s*$")
_OPERAND_AFTER = re.compile(r"\s*[-+*/x×÷=)]")


def phrase_place(question: str, places: list[tuple[int, int]], line: str, value: Fraction) -> int | None:
    """Of the places (start, end) of ``value`` in the question, the one whose words the line's
    own mention of the value repeats ("He bought 6 pounds of peaches that are $2.00 per pound so
    he spent 6*2" is "6 pounds of peaches", not "6 pounds of apricots"; "but lost 5" is "lost 5
    right before", not "5 fewer than"): the words before and after the mention that one place
    has and not every place. The line must write the value once with such words, an operand or
    result of a computation on the line aside ("3 days on the low setting removes 3*1 = 3": the
    "3 days"); None when no place or more than one has the most."""
    prose = ANNOTATION.sub(" ", line[:2000])
    said = [phrase_at(prose, m.start(), m.end()) for m in NUMERAL.finditer(prose) if numeral_value(m) == value
            and not _IN_COMPUTATION.search(prose[max(0, m.start() - 3):m.start()])
            and not _OPERAND_AFTER.match(prose[m.end():m.end() + 3])]
    said = [s for s in said if s[0] or s[1]]
    if len(said) != 1 or len(places) < 2:
        return None
    pre, post = said[0]
    at = [phrase_at(question, a, b) for a, b in places]
    common_pre = frozenset.intersection(*(p for p, _ in at))
    common_post = frozenset.intersection(*(q for _, q in at))
    scores = [len((pre & p) - common_pre) + len((post & q) - common_post) for p, q in at]
    top = max(scores)
    return scores.index(top) if top and scores.count(top) == 1 else None


def restated_before(line: str, value: Fraction) -> bool:
    """Does a solution line write ``value`` once as an operand of its computation and once in
    prose before it, as what it then computes with ("Jason did his laundry 1 time at $3.00 so he
    made 1*3 = $3.00")? A result of the value written after the computation is no mention; a
    mention after the computation ("$4 + $2 = $6 for ... 4 packets of milk") is none of these."""
    prose = ANNOTATION.sub(" ", line[:2000])
    operands, mentions, results = [], [], []
    for m in NUMERAL.finditer(prose):
        if numeral_value(m) != value:
            continue
        before = prose[max(0, m.start() - 6):m.start()]
        if re.search(r"=\s*\$?\s*$", before):
            results.append(m.start())
        elif _IN_COMPUTATION.search(before[-3:]) or _OPERAND_AFTER.match(prose[m.end():m.end() + 3]):
            operands.append(m.start())
        else:
            mentions.append(m.start())
    return len(operands) == 1 and len(mentions) == 1 and mentions[0] < operands[0] \
        and all(r > operands[0] for r in results)


#: the stems of common verbs and quantity words (``CLAUSE_STOP`` less ``_STOP``)
_COMMON_VERBS = frozenset(stem(w) for w in CLAUSE_STOP - _STOP)


def best_sentence(pool: list[int], nums: Sequence[Any], question: str,
                   stems: frozenset[str]) -> list[int]:
    """The places whose sentence in the question shares the most words with ``stems``; a common
    verb ("need", "buy", "get") is no such word ("didn't need to cook for 1 of his friends" names
    neither "1 of his friends didn't eat meat" nor "Another one ... would not need the buns")."""
    stems = stems - _COMMON_VERBS
    scores = {}
    for j in pool:
        start = nums[j].start
        a = max(question.rfind(c, 0, start) for c in ".?!") + 1
        ends = [e for e in (question.find(c, start) for c in ".?!") if e != -1]
        sentence = question[a:min(ends) if ends else len(question)]
        scores[j] = len((line_stems(sentence) - nums[j].stems) & stems)
    top = max(scores.values(), default=0)
    return [j for j in pool if top and scores[j] == top]


def tied_by_sentence(free: list[int], nums: Sequence[Any], question: str, line: str, v: Fraction,
                     nth: int, expr: Any) -> int | None:
    """Of the free places of ``v`` (several), the one whose sentence alone shares the most words with
    the line, where the words after the ``nth`` use agree with every one of them ("Jacob found 13
    shells + 2 shells" of "Jacob found 2 more shells than Ed did" beside "Ed and Jacob already had 2
    shells"); else None (a use the line writes with no words: the sentence alone is no reading of it; a
    step ``expr`` that writes ``v`` twice, "6 cups / 6 cups/hour": the line's sentence is both uses')."""
    said = solution_stems(line, v, 4, nth) if line else frozenset()
    if sum(1 for leaf in leaves(expr) if leaf.text and leaf.value == v) != 1 \
            or len({nums[j].start for j in free}) < 2 or not said or not all(nums[j].stems & said for j in free):
        return None
    best = best_sentence(free, nums, question, line_stems(line))
    return best[0] if len({nums[j].start for j in best}) == 1 else None


def places_named_apart(v: Fraction, places: list[int], free: list[int], nums: Sequence[Any], exprs: Sequence[Any],
                       lines: Sequence[str], step: int) -> int | None:
    """The place of ``v`` (one of ``free``) that ``step``'s line names, where each line that writes
    ``v`` names the words of one place and of no other ("From her daughters, Olga has 3 x 6" and "From
    her sons, she has 3 x 5" for "3 daughters and 3 sons"; "$15 x 2 = $30 for the laptop repairs" for
    "2 laptop repairs, and 2 computer repairs"): a place's own words are those no other place of ``v``
    has. Only where every step (``exprs``, one a line) writes ``v`` once, as many steps as places,
    each line naming another place; else None (a line that writes ``v`` twice, "(138-2)/2", is no
    such reading)."""
    uses = [(i, k) for i, e in enumerate(exprs) if (k := sum(1 for leaf in leaves(e) if leaf.text and leaf.value == v))]
    at = list({nums[j].start: j for j in places}.values())
    if len(at) < 2 or len(uses) != len(at) or any(k != 1 or not 0 <= i < len(lines) for i, k in uses):
        return None
    own = {j: nums[j].stems - frozenset().union(*(nums[k].stems for k in at if k != j)) for j in at}
    out: dict[int, int] = {}  # step -> the place its line names
    for i, _ in uses:
        said = line_stems(lines[i])
        named = [j for j in at if own[j] & said]
        if len(named) != 1:
            return None
        out[i] = named[0]
    return out[step] if len(set(out.values())) == len(at) and out.get(step) in free else None
