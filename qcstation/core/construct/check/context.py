"""Whether a given a step's line names with no words is the place its name says, by what the
step uses (the independent check of :mod:`.bindings`, issue 26.2; it reads the question, the
solution and the formalization only, never the rules' binder):

* :func:`vouched_by_context`: a step that sums numbers stated in one sentence of the question
  ("100+50+20" for "He does 100 pushups, 50 squats, and 20 dumbbell presses on the first day"),
  two or more of them each stated once, where that sentence holds one place of the given's value
  and no other place's sentence holds any of them. Vouched only when that place is the one the
  given's name says (``g3_dumbbell``: the word after the place), so a wrong binding of the same
  shape (the second day's "20 more pushups" there) is still refused. One other number is no
  evidence ("100+20" adds the first day's pushups to the second day's "20 more"), nor is the line
  of an earlier step the step uses ("2 x 17", 17 being "the combined height of the two trees", is
  "twice", not "two trees").
  Or a product of the given and an earlier result whose own line says it is each one's ("The
  dress pants cost 750/5=$150 each", then "So in total they cost 150*10", 643): the one place
  whose words that line names before its computation ("10 dress pants", not "10 suits").
  Or a quotient by the given on a line that says what each one pays, where the question splits
  evenly ("So each of them paid $102/3" for "split all the costs evenly", 190): the one place that
  counts people ("Three friends", not "3 tickets").
  Or a product whose result the line says is per a period ("3*300 = 900 miles per day"): the
  one place that is a number of times in that period ("3 times a day"), where no other place is
  ("3 different cities"), again only where the given's name is that place.
* :func:`swap_invariant`: is a step's term the same function whichever of two givens of one
  value stands where ("20 x 20/100" for "20 students, 20% enrolled"): then which is which is
  immaterial to the check, as in one bare sum or product.
* :func:`spelled_each`: givens of one value a bare product or sum uses once each, the line
  spelling the value as many times, each with the words of a place ("Three children each have
  three children, for a total of 3*3", 698: two "three children", not "three babies"), each
  given's name one of those places: which is which is immaterial.
* :func:`word_beside_operands`: a word given ("w_half_parts") whose phrase the question writes
  once, in the sentence that states each of the step's other givens (each at one place), where no
  other place of its value is ("The oldest son is 8 years old, the youngest is half as old" /
  "8 / 2", 295: not "his 2 sons" of another sentence).
* :func:`word_clause_restated`: a word given whose phrase the question writes once, the line
  writing the words of its clause up to it (two or more) right before its computation ("Karen
  earns twice what Lorie earns" / "Karen earns $10 x 2", 679), no other place of its value in
  the word's sentence.
* :func:`earlier_result_named`: a line that writes the value once with words and otherwise bare,
  in a step that also uses an earlier result of that value ("$3.00 x 3", 873): the words may be
  the earlier result's, so they name nothing of the given.
* :func:`vouched_by_word_before`: a digit the line writes after the same word as exactly one
  place of the question ("shoe size 5" and "wears size five boots", not "five times the size"),
  the place the given's name says.
* :func:`counts_the_terms`: a value the line spells in words where the step is one sum of as many
  terms ("In three days he has caught 3+12+6", 982): the words count the terms (a day each), they
  name no operand of that value.
* :func:`times_of_no_place`: "N times" a line writes where no place of N is a number of times
  ("five people would perform the task 5 times as fast", 528): a multiplier the line derives, no
  words of a place.
* :func:`size_of_counted`: a number written as a size right after the count of what it is the size
  of, the step's other operand ("three 1-hour classes" for "3 x 1 = 3 hours"), that count stated
  once.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from typing import Any, Callable

from qcstation.core.reading.answers import decimal_fraction
from qcstation.core.reading.words import (MAX_TEXT, WORD_GIVEN_STEMS, Occurrence, line_stems, number_word_stems,
                                          operand_values, solution_lines, stem, step_line, word_before,
                                          words_before_value)

_SENTENCE_END = re.compile(r"[.?!;](?:\s|$)")
_SLUG = re.compile(r"g\d+_([a-z]+)(?:_[a-z_]*)?")


def _sentence(question: str, at: int) -> int:
    """The index of the sentence of the question holding position ``at``."""
    return sum(1 for m in _SENTENCE_END.finditer(question) if m.end() <= at)


def vouched_by_context(given: str, expr: Any, cands: list[Occurrence], occurrences: list[Occurrence],
                       defs: dict[str, Any] | None, values: dict[str, Fraction] | None, question: str,
                       is_given: Callable[[Any], bool], line: str = "", solution: str = "") -> bool:
    """See the module docstring."""
    if defs is None or values is None:
        return False
    m = _SLUG.fullmatch(given)
    places = list({o.start: o for o in cands if o.start >= 0}.values())
    if m is None or len(places) < 2 or len(places) != len(cands):
        return False
    slug = stem(m.group(1))
    mine = [i for i, p in enumerate(places) if slug in p.words]
    if len(mine) != 1:
        return False
    if _by_period(places, question, line, expr) == mine[0]:
        return True
    if solution and _by_each_of_result(places, given, expr, defs, values, is_given, solution) == mine[0]:
        return True
    if _by_even_split(places, given, expr, question, line) == mine[0]:
        return True
    return _by_sentence(expr, given, places, occurrences, defs, values, question, is_given) == mine[0]


#: the period a line's result is per, right after its result ("= 900 miles per day")
_RESULT_PERIOD = re.compile(r"=\s*\$?[\d.,]+\s+(?:[A-Za-z]+\s+){0,2}?(?:per|every|each|a)\s+"
                            r"(day|week|month|year|hour|minute)s?\b", re.I)
_ANNOTATION = re.compile(r"<<[^<>]*>>")


def _by_period(places: list[Occurrence], question: str, line: str, expr: Any) -> int | None:
    """A product whose result the line says is per a period ("So it goes 3*300 = 900 miles per
    day"): the one place that is a number of times in that period ("3 times a day"), where no
    other place is ("3 different cities")."""
    if getattr(expr, "op", None) != "*" or not line:
        return None
    found = {m.group(1).lower() for m in _RESULT_PERIOD.finditer(_ANNOTATION.sub(" ", line[:2000]))}
    if len(found) != 1:
        return None
    period = found.pop()
    hits = [i for i, p in enumerate(places) if re.match(
        r"[\w$.,]+\s+times?\s+(?:a|per|every|each)\s+" + period + r"\b", question[p.start:p.start + 60], re.I)]
    return hits[0] if len(hits) == 1 else None


#: an earlier step's result its line says is each one's ("The dress pants cost 750/5=$ 150 each")
_RESULT_EACH = re.compile(r"=\s*\$?\s*(\d[\d,]*(?:\.\d+)?)\s+each\b", re.I)


def _by_each_of_result(places: list[Occurrence], given: str, expr: Any, defs: dict[str, Any],
                       values: dict[str, Fraction], is_given: Callable[[Any], bool], solution: str) -> int | None:
    """A product of the given and one earlier result whose own line says that result is each
    one's ("The dress pants cost 750/5=$150 each", then "So in total they cost 150*10", 643): the
    one place of the value whose words are what that line names before its computation ("10 dress
    pants", not "10 suits"). A line that says no "each" names no count (356: "the combined height
    of the two trees is 6 + 11 = 17 feet" is no "2 trees" for "2 x 17")."""
    if getattr(expr, "op", None) != "*" or type(expr.left).__name__ != "Name" or type(expr.right).__name__ != "Name":
        return None
    names = [expr.left.name, expr.right.name]
    if names.count(given) != 1:
        return None
    other = names[1 - names.index(given)]
    if other not in defs or is_given(defs[other]) or other not in values:
        return None
    at = step_line(solution, values[other], operand_values(defs[other], values))
    if at is None:
        return None
    prose = solution_lines(solution)[at][0]
    m = _RESULT_EACH.search(prose)
    if m is None or decimal_fraction(m.group(1).replace(",", "")) != values[other]:
        return None
    head = prose[:re.search(r"\d", prose).start()]  # type: ignore[union-attr]
    named = line_stems(head)
    hits = [i for i, p in enumerate(places) if p.words & named]
    return hits[0] if len(hits) == 1 else None


_EVEN_SPLIT = re.compile(r"\b(?:split|share|divide)[a-z]*\b[^.?!]*\b(?:evenly|equally)\b", re.I)
#: nouns that count people (a small explicit lexicon, the check's own)
_PEOPLE = frozenset(stem(w) for w in """people persons friends kids children students members guests
    siblings brothers sisters cousins classmates teammates roommates players workers adults boys girls""".split())


def _by_even_split(places: list[Occurrence], given: str, expr: Any, question: str, line: str) -> int | None:
    """A quotient by the given on a line that says what each one pays or gets ("So each of them paid
    $102/3"), where the question splits its costs or things evenly or equally ("If they agreed to split
    all the costs evenly", 190): the one place of the value that counts people ("Three friends", not
    "3 tickets")."""
    if getattr(expr, "op", None) != "/" or type(expr.right).__name__ != "Name" or expr.right.name != given \
            or not _EVEN_SPLIT.search(question) or not re.search(r"\beach\b", _ANNOTATION.sub(" ", line), re.I):
        return None
    people = [i for i, p in enumerate(places) if p.words & _PEOPLE]
    return people[0] if len(people) == 1 else None


def _leaves(e: Any, depth: int = 0) -> list[Any]:
    if depth > 200:
        return []
    k = type(e).__name__
    if k == "BinOp":
        return _leaves(e.left, depth + 1) + _leaves(e.right, depth + 1)
    if k == "Neg":
        return _leaves(e.operand, depth + 1)
    return [e]


def _one_sum(e: Any, depth: int = 0) -> bool:
    k = type(e).__name__
    if k == "BinOp":
        return e.op == "+" and depth < 200 and _one_sum(e.left, depth + 1) and _one_sum(e.right, depth + 1)
    return k == "Name"


def _by_sentence(expr: Any, given: str, places: list[Occurrence], occurrences: list[Occurrence],
                 defs: dict[str, Any], values: dict[str, Fraction], question: str,
                 is_given: Callable[[Any], bool]) -> int | None:
    if not _one_sum(expr):
        return None
    v = places[0].value
    anchors = []
    for leaf in _leaves(expr):
        name = getattr(leaf, "name", None)
        if name is None:
            return None
        if name == given or name not in defs or not is_given(defs[name]) or name.startswith(("k_", "w_")):
            continue
        at = {o.start for o in occurrences if o.value == values.get(name) and o.start >= 0}
        if values.get(name) == v or len(at) != 1:
            return None
        anchors.append(next(iter(at)))
    if len(anchors) < 2:
        return None
    sent = {_sentence(question, a) for a in anchors}
    if len(sent) != 1:
        return None
    holding = [i for i, p in enumerate(places) if _sentence(question, p.start) in sent]
    return holding[0] if len(holding) == 1 else None


def one_sum_or_product(expr: Any) -> bool:
    """Is ``expr`` one bare sum or one bare product ("3 * 3", "2 + 4 + 2")?"""
    ops: set[str] = set()
    _ops_in(expr, 0, ops)
    return ops in ({"*"}, {"+"})


def _ops_in(e: Any, depth: int, ops: set[str]) -> None:
    """For :func:`one_sum_or_product`
    (a function of the module: a closure that calls itself is a reference cycle, which
    only the cyclic garbage collector frees)."""
    op = getattr(e, "op", None)
    if op is None or depth > 200:
        if e.__class__.__name__ == "Neg":
            ops.add("neg")
        return
    ops.add(op)
    _ops_in(e.left, depth + 1, ops)
    _ops_in(e.right, depth + 1, ops)


def swap_invariant(expr: Any, same: list[str]) -> bool:
    """Is ``expr`` the same function of its names whichever of ``same`` (givens of one value)
    stands where ("(20 * 20) / 100": a product over a constant)? Evaluated exactly at two fixed
    points, each name a distinct value, with every pair of ``same`` swapped: a term that is not
    invariant under a swap ("20 - 20/100") differs at one of them."""
    names = sorted({x.name for x in _leaves(expr) if hasattr(x, "name")})
    if len(same) < 2 or len(names) > 40:
        return False
    for base in (Fraction(3, 7), Fraction(11, 5)):
        point = {n: base + 2 * i + 1 for i, n in enumerate(names)}
        want = _value_at(expr, point)
        if want is None:
            return False
        for a, b in itertools.combinations(sorted(same), 2):
            swapped = dict(point)
            swapped[a], swapped[b] = point[b], point[a]
            if _value_at(expr, swapped) != want:
                return False
    return True


def _value_at(e: Any, point: dict[str, Fraction], depth: int = 0) -> Fraction | None:
    """The exact value of a term with each name at ``point`` (None: a division by zero, or a
    term of another kind or deeper than the checks read)."""
    k = type(e).__name__
    if depth > 200:
        return None
    if k == "Num":
        return Fraction(e.value)
    if k == "Name":
        return point.get(e.name)
    if k == "Neg":
        x = _value_at(e.operand, point, depth + 1)
        return None if x is None else -x
    if k != "BinOp":
        return None
    a, b = _value_at(e.left, point, depth + 1), _value_at(e.right, point, depth + 1)
    if a is None or b is None:
        return None
    if e.op == "+":
        return a + b
    if e.op == "-":
        return a - b
    if e.op == "*":
        return a * b
    if e.op == "/":
        return a / b if b else None
    return None


def vouched_by_word_before(given: str, line: str, v: Fraction, cands: list[Occurrence], question: str) -> bool:
    """A digit the line writes after the same word as exactly one place of the question, the place
    the given's name says it is (``g2_right``: the word after it): "but lost 5, that means ... 20-5"
    for "If Brian has 20 video games but lost 5 right before" (136), not "has 5 fewer"; "shoe size
    25 + shoe size 5" for "Sophie wears size five boots" (984), not "five times the size". Every
    place the line's prose writes the value (other than as an operand: "20-5") has that word."""
    m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", given)
    if m is None or not question:
        return False
    before = words_before_value(line, v)
    if not before or any(w is None for w in before) or len(set(before)) != 1:
        return False
    q = question[:MAX_TEXT]
    hits = [o for o in cands if o.start >= 0 and word_before(q, o.start) == before[0]]
    slug = stem(m.group(1))
    if not (len(hits) == 1 and slug in hits[0].words and sum(1 for o in cands if slug in o.words) == 1):
        return False
    # a word before a number is often a verb ("eat 6"), no evidence of what the number counts: the
    # line must not name what another place of the value counts ("Her friends eat 6 x 4" is "Kate's
    # 6 friends", not "each eat 6 cheese pizza slices", 1186)
    said = line_stems(line)
    return not any(o.words & said for o in cands if o is not hits[0])


_ONE_TOKEN = re.compile(r"[A-Za-z0-9$.,-]+\s+")


def size_of_counted(question: str, cands: list[Occurrence], other: Fraction | None,
                    occurrences: list[Occurrence]) -> bool:
    """Is the one place of the value written as a size right after a count of the step's other
    operand ("three 1-hour classes" for "3 x 1 = 3 hours": the hour of each of the three
    classes), that count stated once? Then the product's words are that phrase's."""
    if other is None:
        return False
    counts = [o for o in occurrences if o.value == other and o.start >= 0 and not o.words & WORD_GIVEN_STEMS]
    if len(counts) != 1:
        return False
    sized = [o for o in cands if o.start >= 0 and o.compound
             and _ONE_TOKEN.fullmatch(question, counts[0].start, o.start)]
    return len(sized) == 1


def spelled_each(expr: Any, same: list[str], v: Fraction, line: str, cands: list[Occurrence]) -> bool:
    """See the module docstring: ``same`` the givens of value ``v`` the step ``expr`` uses,
    ``cands`` the places of ``v`` in the question."""
    if len(same) < 2 or not one_sum_or_product(expr) \
            or any(sum(1 for x in _leaves(expr) if getattr(x, "name", None) == d) != 1 for d in same):
        return False
    spelled = number_word_stems(line, v)
    if len(spelled) != len(same) or not all(spelled):
        return False
    named = {o.start for o in cands if o.start >= 0 and any(o.words & w for w in spelled)}
    if len(named) < len(same) or not all(any(o.words & w for o in cands) for w in spelled):
        return False
    for d in same:
        m = _SLUG.fullmatch(d)
        if m is None or not any(stem(m.group(1)) in o.words for o in cands if o.start in named):
            return False
    return True


def _word_place(given: str, cands: list[Occurrence]) -> list[Occurrence]:
    """The places of a word given's own phrase (``w_half_parts``: "half"), when the question writes
    it at one place; else []."""
    words = [o for o in cands if o.start >= 0 and any(w.startswith("~") for w in o.words)
             and given.startswith("w_" + re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_"))]
    return words if given.startswith("w_") and len({o.start for o in words}) == 1 else []


def word_beside_operands(given: str, expr: Any, cands: list[Occurrence], occurrences: list[Occurrence],
                         defs: dict[str, Any], values: dict[str, Fraction], question: str,
                         is_given: Callable[[Any], bool]) -> bool:
    """See the module docstring (``cands``: the places of the given's value)."""
    words = _word_place(given, cands)
    if not words:
        return False
    v = words[0].value
    anchors = []
    for leaf in _leaves(expr):
        name = getattr(leaf, "name", None)
        if name is None or name == given or name not in defs or not is_given(defs[name]) \
                or name.startswith(("k_", "w_")):
            continue
        at = {o.start for o in occurrences if o.value == values.get(name) and o.start >= 0}
        if values.get(name) == v or len(at) != 1:
            return False
        anchors.append(next(iter(at)))
    here = _sentence(question, words[0].start)
    return bool(anchors) and all(_sentence(question, a) == here for a in anchors) \
        and not any(_sentence(question, o.start) == here for o in cands if o.start >= 0 and o.start != words[0].start)


_WORDS = re.compile(r"[a-z']+")


def word_clause_restated(given: str, line: str, cands: list[Occurrence], question: str) -> bool:
    """See the module docstring (``cands``: the places of the given's value)."""
    words = _word_place(given, cands)
    if not words:
        return False
    at = words[0].start
    here = _sentence(question, at)
    if any(_sentence(question, o.start) == here for o in cands if o.start >= 0 and o.start != at):
        return False
    clause = _WORDS.findall(re.split(r"[.,;:!?]\s", question[:at])[-1].lower())
    prose = _ANNOTATION.sub(" ", line[:2000])
    first = re.search(r"[$\d]", prose)
    if first is None:
        return False
    before = _WORDS.findall(re.split(r"[.,;:!?]\s", prose[:first.start()])[-1].lower())
    return len(clause) >= 2 and clause == before


def word_by_its_sentence(given: str, expr: Any, line: str, cands: list[Occurrence], occurrences: list[Occurrence],
                         defs: dict[str, Any] | None, values: dict[str, Fraction] | None, question: str,
                         is_given: Callable[[Any], bool]) -> bool:
    """:func:`word_beside_operands` or :func:`word_clause_restated`."""
    return (defs is not None and values is not None
            and word_beside_operands(given, expr, cands, occurrences, defs, values, question, is_given)) \
        or word_clause_restated(given, line, cands, question)


def earlier_result_named(written: list[list[str]] | None, expr: Any, v: Fraction, defs: dict[str, Any] | None,
                         values: dict[str, Fraction] | None, is_given: Callable[[Any], bool]) -> bool:
    """Does the line write ``v`` once with words and otherwise bare (``written``: the words after
    each place), in a step that uses an earlier result of value ``v`` ("Three bottles of soda cost
    $3.00 x 3", 873)? Then the words may be the earlier result's ($3.00 a bottle), and the bare
    place the given's: the words name nothing of the given."""
    named = [w for w in written or [] if w]
    if not (len(named) == 1 < len(written or []) and defs and values and expr is not None):
        return False
    names = {n for x in _leaves(expr) if isinstance(n := getattr(x, "name", None), str)}
    return any(not is_given(defs[d]) and values.get(d) == v for d in names if d in defs)


def counts_the_terms(expr: Any, v: Fraction) -> bool:
    """Is ``expr`` one sum of exactly ``v`` terms ("3+12+6" for "In three days", 982)? Then a
    number word of value ``v`` on its line counts its terms, not an operand of that value."""
    if v.denominator != 1 or not 2 <= v <= 12 or type(expr).__name__ != "BinOp" or expr.op != "+":
        return False
    terms = _leaves(expr)
    return len(terms) == v and all(type(t).__name__ == "Name" for t in terms) and _one_sum(expr)


def times_of_no_place(words: list[str], cands: list[Occurrence]) -> bool:
    """Are the words a line writes after a value only "times" ("five people would perform the
    task 5 times as fast", 528), where no place of the value is a number of times? A multiplier
    the line derives in its prose, naming no quantity of the question."""
    return [stem(w) for w in words[:1]] == ["time"] and not any("time" in o.words for o in cands)
