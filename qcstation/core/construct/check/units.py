"""A word given ("twice", "half") whose step's line names nothing after its value, vouched for
by the units (:func:`vouched_by_unit`): the step multiplies or divides a quantity of one unit into
a result of the same unit ("2 * 5 = 10 hours" of "5 hours"; "6/2 = 3 hours" of "6 hours"), so
the factor is a pure number; every other place of the value the question states names that very
unit ("2 hours less"), which no such factor can be (hours times hours are no hours). Asked by
:func:`~qcstation.core.construct.check.bindings.binding_problems` after the words, the clause,
the operand and the roles found nothing; this module reads only the reading floor.

Only a given that is the question's word (``w_twice`` for "twice") is vouched for; a digit of
the question that stands for a count of that unit never is (GSM8K 20: "12 miles / 4 mph" bound
to "the first 4 miles" stays a problem), and a factor whose result names another unit than the
other operand ("$10 x 2 = $20 per hour" beside "two days") is left to the other readings.

A factor of a product is vouched for by the units of its product (:func:`vouched_by_product_unit`);
a factor the binder named by no word ("$2": ``g3``) only where the result is money, the other
factor is not, and exactly one place of the value is money ("14 * 2 = $28" beside "14 days" of
"about $2", not "two weeks" or "twice", 498)."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.reading.units import result_unit, unit_after, units_of_value
from qcstation.core.reading.words import NUMERAL, WORD_GIVENS, Occurrence, operand_values, solution_lines, stem, step_line

__all__ = ["vouched_by_unit"]


def _path_to(e: Any, name: str, depth: int = 0) -> list[Any] | None:
    """The terms from ``e`` down to the one use of ``name`` (None when it is not used)."""
    if depth > 200:
        return None
    kind = type(e).__name__
    if kind == "Name":
        return [e] if str(e.name) == name else None
    for sub in (getattr(e, "left", None), getattr(e, "right", None), getattr(e, "operand", None), getattr(e, "arg", None)):
        if sub is not None:
            found = _path_to(sub, name, depth + 1)
            if found is not None:
                return [e, *found]
    return None


def vouched_by_unit(given: str, v: Fraction, cands: list[Occurrence], step: str, expr: Any,
                    defs: dict[str, Any], values: dict[str, Fraction], line: str, solution: str, question: str,
                    occurrences: list[Occurrence], is_given: Callable[[Any], bool]) -> bool:
    """Is the word given ``given`` (value ``v``, used once by ``step``) the only place of its value
    a pure factor can be, by the units (see the module docstring)? ``cands``: the places of the
    value; ``line``: the step's line (annotations blanked)."""
    if not given.startswith("w_"):
        return False
    words = [o for o in cands if any(w.startswith("~") for w in o.words)]
    digits = [o for o in cands if o not in words]
    own = [o for o in words if given.startswith("w_" + re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_"))]
    if not own or not digits or any(o.start < 0 for o in digits):
        return False
    path = _path_to(expr, given)
    if path is None or len(path) < 2:
        return False
    parent = path[-2]
    if type(parent).__name__ != "BinOp" or parent.op not in "*/" or (parent.op == "/" and parent.right is not path[-1]):
        return False
    if any(not (type(e).__name__ == "BinOp" and e.op in "+-") for e in path[:-2]):
        return False
    other = parent.left if parent.right is path[-1] else parent.right
    if type(other).__name__ != "Name" or str(other.name) not in defs or str(other.name) not in values:
        return False
    name = str(other.name)
    w = values[name]
    if w == v:
        return False  # "2 * 2 = 4 hours": which 2 is the factor the units never tell
    if is_given(defs[name]):
        # a given: the unit the line writes after its value, else its one place's in the question
        said = [u for u in units_of_value(line, w) if u]
        unit = set(said[0]) if said else set()
        if not unit:
            at = {o.start for o in occurrences if o.value == w and o.start >= 0}
            unit = set(_place_unit(question, next(iter(at)))) if len(at) == 1 else set()
    else:
        # an earlier step: the unit after its result on its own line
        at_line = step_line(solution, w, operand_values(defs[name], values))
        unit = set(result_unit(solution_lines(solution)[at_line][0], w)) if at_line is not None else set()
    if step not in values:
        return False
    unit &= set(result_unit(line, values[step]))
    unit -= {"%"}
    digit_units = [_place_unit(question, o.start) for o in digits]
    return bool(unit) and all(u & unit for u in digit_units)


_NUMBER_WORD = re.compile(r"[A-Za-z]+")


def _place_unit(question: str, start: int) -> frozenset[str]:
    """The unit of the number the question writes at ``start`` (digits, or a number word)."""
    m = NUMERAL.match(question, start) or _NUMBER_WORD.match(question, start)
    return unit_after(question, start, m.end()) if m else frozenset()


#: word givens that only multiply or divide: "twice" (2), "triple" (3), and a fraction's parts
#: ("half" written as "/ 2": ``w_half_parts``)
_MULTIPLIER = re.compile(r"w_(?:twice|doubled?|doubles|tripled?|triples|thrice|quadrupled?)|w_\w+_parts")


def added_multipliers(defs: dict[str, Any], values: dict[str, Fraction], question: str,
                      is_given: Callable[[Any], bool]) -> list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]]:
    """Word givens that multiply or divide ("twice", half's two parts) added to or taken from a
    sum: "2 + 16" for "$2 more than twice the money" written with ``w_twice`` is the "$2", a
    number no word that multiplies ever is (one word in two roles, or a count bound to the word
    by its value). Returns (step, value, the role's words, the question's places) per use."""
    out: list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]] = []
    for step, e in defs.items():
        if is_given(e):
            continue
        for sub in _sums(e):
            for side, other in ((sub.left, sub.right), (sub.right, sub.left)):
                name = str(getattr(side, "name", ""))
                if type(side).__name__ == "Name" and _MULTIPLIER.fullmatch(name) and name in values \
                        and name in defs and is_given(defs[name]) \
                        and not (sub.op == "+" and _ratio_parts(name, other, question)):
                    phrase = name[2:].removesuffix("_parts").replace("_", " ")
                    out.append((step, values[name], ("added",),
                                tuple(m.group(0) for m in re.finditer(r"\b" + re.escape(phrase) + r"\b", question,
                                                                       re.I))[:4]))
    return out


_SHARE_OF = re.compile(r"k_one_share_of_([a-z_]{1,24})")


def _ratio_parts(name: str, other: Any, question: str) -> bool:
    """Is ``name + other`` the parts of a ratio the question writes: "twice" plus the base's one
    share, where the question says "twice as many chickens as cows" and ``other`` is the named
    constant of the cows' share (``k_one_share_of_cows``)? Any other sum with a word that only
    multiplies ("$2 more than twice": ``w_twice + 2``) is no such count."""
    m = _SHARE_OF.fullmatch(str(getattr(other, "name", ""))) if type(other).__name__ == "Name" else None
    word = re.fullmatch(r"w_(twice|thrice)", name)
    if m is None or word is None:
        return False
    base = r"[\s-]+".join(re.escape(w) for w in m.group(1).split("_") if w)
    return re.search(rf"\b{word.group(1)}\s+as\s+(?:much|many)\b[^.?!;]{{0,40}}?\s+as\s+"
                     rf"(?:(?:the|a|an|his|her|their|each)\s+)?{base}\b", question[:20_000], re.I) is not None


def _sums(e: Any, depth: int = 0) -> list[Any]:
    """The sums and differences of a term (every depth)."""
    if depth > 200:
        return []
    out = [e] if type(e).__name__ == "BinOp" and e.op in "+-" else []
    for sub in (getattr(e, "left", None), getattr(e, "right", None), getattr(e, "operand", None), getattr(e, "arg", None)):
        if sub is not None:
            out += _sums(sub, depth + 1)
    return out


_MULTIPLIER_WORDS = frozenset({"twice", "double", "doubled", "doubles", "triple", "tripled", "triples", "thrice",
                               "quadruple", "quadrupled"})


def only_multiplies(o: Occurrence) -> bool:
    """Is the place a word that only multiplies or divides at its value: a multiplier word
    ("twice": 2), or a fraction word read as its parts ("one-fifth" as 5, "half" as 2)?"""
    for w in o.words:
        if not w.startswith("~"):
            continue
        phrase = w[1:]
        if phrase in _MULTIPLIER_WORDS:
            return True
        if o.value.denominator == 1 and o.value > 1 and Fraction(1, o.value.numerator) in WORD_GIVENS.get(phrase, ()):
            return True
    return False


def only_added(expr: Any, name: str, depth: int = 0) -> bool:
    """Is every use of ``name`` in ``expr`` a term of a sum or difference (and is there one)?"""
    uses: list[bool] = []
    _uses_added(expr, name, False, depth, uses)
    return bool(uses) and all(uses)


def _uses_added(e: Any, name: str, added: bool, d: int, uses: list[bool]) -> None:
    """For :func:`only_added`: whether each use of ``name`` in ``e`` is added, onto ``uses``
    (a function of the module: a closure that calls itself is a reference cycle only the cyclic
    garbage collector frees)."""
    if d > 200:
        uses.append(False)
        return
    kind = type(e).__name__
    if kind == "Name":
        if str(e.name) == name:
            uses.append(added)
    elif kind == "Neg":
        _uses_added(e.operand, name, False, d + 1, uses)
    elif kind == "BinOp":
        _uses_added(e.left, name, e.op in "+-", d + 1, uses)
        _uses_added(e.right, name, e.op in "+-", d + 1, uses)
    elif kind == "Call":  # a rounding (reading.expr.Call): no use inside it is added
        _uses_added(e.arg, name, False, d + 1, uses)


def vouched_by_result_unit(given: str, cands: list[Occurrence], step: str, expr: Any,
                           values: dict[str, Fraction], line: str, question: str) -> bool:
    """Is a given the line names with no words tied to one place of its value by the unit of the
    step's result? A term of a sum or difference counts what the sum counts ("50+10=60 boxes": the
    "10 boxes of stuff", not the "10 people"; "6 + 3 = 9 oranges": "her only boy got 3 oranges",
    not "three daughters"). Only where exactly one place of the value names that unit and the
    given is named for it (``g3_boxes``: the word after it), as :mod:`.elimination` reads a given's
    name. A factor of a product is never vouched for so: what a product counts is no unit of
    either factor alone (503: "2*5 = 10 gifts" for "2 of her friends want 5 gifts" beside "her 5
    friends")."""
    m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", given)
    if m is None or step not in values:
        return False
    slug = stem(m.group(1))
    path = _path_to(expr, given)
    if path is None or len(path) < 2 or any(not (type(e).__name__ == "BinOp" and e.op in "+-") for e in path[:-1]):
        return False
    unit = set(result_unit(line, values[step])) - {"%"}
    if not unit:
        return False
    places = {o.start: _place_unit(question, o.start) for o in cands if o.start >= 0}
    naming = [u for u in places.values() if u & unit]
    return len(naming) == 1 and slug in naming[0] and sum(1 for u in places.values() if slug in u) == 1


def _factor_context(expr: Any, given: str) -> tuple[Any, Any] | None:
    """The product or quotient ``given`` is a direct factor (or divisor) of, and its other
    operand, when every term above it is a sum or difference; else None."""
    path = _path_to(expr, given)
    if path is None or len(path) < 2:
        return None
    parent = path[-2]
    if type(parent).__name__ != "BinOp" or parent.op not in "*/" or (parent.op == "/" and parent.right is not path[-1]):
        return None
    if any(not (type(e).__name__ == "BinOp" and e.op in "+-") for e in path[:-2]):
        return None
    return parent, parent.left if parent.right is path[-1] else parent.right


def _operand_unit(other: Any, line: str, solution: str, question: str, defs: dict[str, Any],
                  values: dict[str, Fraction], occurrences: list[Occurrence],
                  is_given: Callable[[Any], bool]) -> set[str]:
    """The unit of a step's other operand: a given's as the line writes it after its value (else
    its one place's in the question); an earlier step's after its result on its own line."""
    name = str(getattr(other, "name", ""))
    if type(other).__name__ != "Name" or name not in defs or name not in values:
        return set()
    w = values[name]
    if is_given(defs[name]):
        said = [u for u in units_of_value(line, w) if u]
        if said:
            return set(said[0])
        at = {o.start for o in occurrences if o.value == w and o.start >= 0}
        if len(at) > 1:
            # the one place its name says ("g1_friends": "2 of her friends", not "2 gifts"; 503), as
            # :func:`product_unit_problems` reads a factor: its words, where no unit follows it
            m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", name)
            named = [o for o in occurrences if o.value == w and o.start >= 0 and m is not None
                     and stem(m.group(1)) in o.words]
            if len(named) != 1:
                return set()
            return set(_place_unit(question, named[0].start) or {x for x in named[0].words if x.isalpha()})
        return set(_place_unit(question, next(iter(at)))) if len(at) == 1 else set()
    at_line = step_line(solution, w, operand_values(defs[name], values))
    return set(result_unit(solution_lines(solution)[at_line][0], w)) if at_line is not None else set()


_CLAUSE_EDGE = re.compile(r"[.,;:!?](?:\s|$)")
_PER = re.compile(r"\b(?:each|per|every)\s+([A-Za-z]+)", re.I)


def _rate_per(question: str, start: int) -> set[str]:
    """What the clause of the place at ``start`` is a rate per ("If each pack has 5 pens": pack)."""
    a = max((m.end() for m in _CLAUSE_EDGE.finditer(question, 0, start)), default=0)
    b = _CLAUSE_EDGE.search(question, start)
    return {stem(m.group(1)) for m in _PER.finditer(question, a, b.start() if b else len(question))}


#: a word given that only multiplies or divides ("w_twice", "w_half_parts"): a pure number
_PURE_WORD = re.compile(r"w_(?:twice|doubled?|doubles|tripled?|triples|thrice|quadrupled?|half_parts)")


def vouched_by_product_unit(given: str, v: Fraction, cands: list[Occurrence], step: str, expr: Any,
                            defs: dict[str, Any], values: dict[str, Fraction], line: str, solution: str,
                            question: str, occurrences: list[Occurrence], is_given: Callable[[Any], bool]) -> bool:
    """Is a factor the line names with no words tied to one place of its value by the units of
    its product (the binder's :func:`~qcstation.core.construct.make.rules.dimensions.place_by_unit`,
    re-read here)? Beside a factor that carries the result's unit it is a count, no place of that
    unit ("6 x 4 = 24 pepperoni pizza slices" of "4 pepperoni pizza slices" each: the "6 friends");
    beside one that carries another unit it carries the result's ("2 x 3 = 6 kilograms" of "2
    Bulldogs": the "3 kilograms"); beside a word that only multiplies or divides ("twice": "5 x 2 =
    10 packs of black pens", 1197) it carries the result's; beside a count of what one place's clause
    is a rate per, where the line names no unit ("10 x 5 = 50" after "= 10 packs", for "If each pack has
    5 pens"), it is that place. Only where every place of the value names a unit, exactly one
    place is left (a word that multiplies, "twice", is left too where the count is), and the
    given is named for it (``g1_friends``)."""
    m = re.fullmatch(r"g\d+(?:_([a-z]+)(?:_[a-z_]*)?)?", given)
    ctx = _factor_context(expr, given)
    if m is None or ctx is None or step not in values:
        return False
    slug = stem(m.group(1)) if m.group(1) else ""  # "" a given the binder named by no word ("$2")
    parent, other = ctx
    if type(other).__name__ == "Name" and values.get(str(other.name)) == v:
        return False
    result = set(result_unit(line, values[step])) - {"%"}
    # a word that only multiplies ("twice": 5 x 2 = 10 packs of black pens, 1197) is a pure number:
    # the given carries the result's unit
    pure = type(other).__name__ == "Name" and _PURE_WORD.fullmatch(str(other.name)) is not None \
        and (parent.op == "*") != str(other.name).endswith("_parts")
    unit = set() if pure else _operand_unit(other, line, solution, question, defs, values, occurrences, is_given) - {"%"}
    digits = {o.start: _place_unit(question, o.start) for o in cands if o.start >= 0 and not only_multiplies(o)
              and not any(w.startswith("~") for w in o.words)}
    words = [o for o in cands if any(w.startswith("~") for w in o.words)]
    if len(digits) < 2 or any(not u - {"%"} for u in digits.values()):
        return False
    if not result and unit and parent.op == "*" and not words:
        # "10 x 5 = 50" beside "= 10 packs" for "If each pack has 5 pens" (1197): beside a count of
        # packs, the one place whose clause is a rate per pack
        rates = [st for st in digits if _rate_per(question, st) & unit]
        return len(rates) == 1 and slug in digits[rates[0]] and sum(1 for u in digits.values() if slug in u) == 1
    if not result or not (unit or pure):
        return False
    if pure:
        left = [u for u in digits.values() if u & result]
    elif unit & result:
        left = [u for u in digits.values() if not u & result]
        if words:
            return False  # a word of the value ("twice") is no unit either: which one, the units never tell
    elif parent.op == "*":
        left = [u for u in digits.values() if u & result]
        if not slug:
            # "14 * 2 = $28" beside "14 days" of "about $2": the one place of the result's unit, where
            # that unit is money and the given is named by no word (the "$2" has none to name it by)
            return len(left) == 1 and left[0] == {"$"} and result == {"$"}
    else:
        return False
    return len(left) == 1 and bool(slug) and slug in left[0] and sum(1 for u in digits.values() if slug in u) == 1


def product_unit_problems(defs: dict[str, Any], values: dict[str, Fraction], question: str, solution: str,
                          occurrences: list[Occurrence], is_given: Callable[[Any], bool]
                          ) -> list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]]:
    """Products of two givens whose result's unit neither factor's place names, while another place
    of one factor's value names it: 503's "2*5 = 10 gifts" with the 5 bound to "her 5 friends"
    (``g2_friends``) beside "2 of her friends", where the question's other 5 is "5 gifts". A
    factor is read at the one place of its value whose words its name says (``g2_friends``:
    "friends"). Returns (step, value, the given's place's words, the place that names the unit)."""
    out: list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]] = []
    lines = solution_lines(solution)
    for step, e in defs.items():
        if is_given(e) or step not in values or getattr(e, "op", None) != "*":
            continue
        names = [str(getattr(x, "name", "")) for x in (e.left, e.right)]
        if any(type(x).__name__ != "Name" for x in (e.left, e.right)) \
                or not all(n in defs and is_given(defs[n]) and n in values for n in names):
            continue
        at = step_line(solution, values[step], operand_values(e, values))
        if at is None:
            continue
        result = set(result_unit(lines[at][0], values[step])) - {"%", "$"}
        if not result:
            continue
        placed = [_named_place(n, values[n], occurrences) for n in names]
        if any(p is None for p in placed) or any(p.words & result for p in placed if p is not None):
            continue
        for (n, p) in zip(names, placed):
            others = [o for o in occurrences if o.value == values[n] and o.start >= 0 and p is not None
                      and o.start != p.start and o.words & result and not any(w.startswith("~") for w in o.words)]
            if len(others) == 1 and p is not None:
                # each factor that could be the misplaced one (503: the 2 of "2 gifts" too)
                out.append((step, values[n], tuple(sorted(p.words)), (others[0].text,)))
    return out


def _named_place(name: str, value: Fraction, occurrences: list[Occurrence]) -> Occurrence | None:
    """The one place of ``value`` whose words (read after it, as the question's places are) hold
    the word the given's name says (``g2_friends``: "friends"), or None."""
    m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", name)
    if m is None:
        return None
    slug = stem(m.group(1))
    at = [o for o in occurrences if o.value == value and o.start >= 0 and slug in o.words]
    return at[0] if len({o.start for o in at}) == 1 else None


def vouched_by_units(given: str, v: Fraction, cands: list[Occurrence], step: str, expr: Any,
                     defs: dict[str, Any], values: dict[str, Fraction], line: str, solution: str,
                     question: str, occurrences: list[Occurrence], is_given: Callable[[Any], bool]) -> bool:
    """Is a given the step uses once, whose line names nothing after its value, tied to one place
    by the units: a word given as a pure factor (:func:`vouched_by_unit`), a term of a sum
    (:func:`vouched_by_result_unit`), a factor of a product (:func:`vouched_by_product_unit`)?"""
    return vouched_by_unit(given, v, cands, step, expr, defs, values, line, solution, question, occurrences,
                           is_given) \
        or vouched_by_result_unit(given, cands, step, expr, values, line, question) \
        or vouched_by_product_unit(given, v, cands, step, expr, defs, values, line, solution, question,
                                   occurrences, is_given)


def places_it_can_be(given: str, expr: Any, cands: list[Occurrence]) -> list[Occurrence]:
    """The places of a given's value it can be by its role: an added number is never a word that
    only multiplies ("2 * 102 + 5" for "5 more than twice as many": the question's "one-fifth" is no
    5 that is added; see ``bindings._fits``)."""
    if given.startswith("w_") or expr is None or not only_added(expr, given) \
            or all(only_multiplies(o) for o in cands):
        return cands
    return [o for o in cands if not only_multiplies(o)]


def unit_problems(defs: dict[str, Any], values: dict[str, Fraction], question: str, solution: str,
                  occurrences: list[Occurrence], is_given: Callable[[Any], bool]
                  ) -> list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]]:
    """A word that only multiplies added (:func:`added_multipliers`) and a product whose unit no
    factor's place names (:func:`product_unit_problems`)."""
    return added_multipliers(defs, values, question, is_given) \
        + product_unit_problems(defs, values, question, solution, occurrences, is_given)
