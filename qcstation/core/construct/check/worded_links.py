"""A link to an earlier result whose value the question also states, vouched for by words the
bindings' own reading of the line (the words right after the number) does not see. Asked by
:func:`~qcstation.core.construct.check.bindings.equal_value_links` and
:func:`~qcstation.core.construct.check.bindings.link_by_words` (which pass what a given is);
this module reads only the reading floor and :mod:`.terms`.

* :func:`count_of_a_percent_value`: the question states the value only as a percent ("candidate A
  got 20% of the votes", GSM8K 736) and the step takes the earlier count ("100 x 20/100 = 20
  votes") as no percent ("20 x 50/100 = 10 more votes": the 50 is the percent).
* :func:`percent_result_of_a_count_value`: the question states the value only as a count ("a
  60-item quiz", GSM8K 1022), the earlier step writes its result as a percent ("100% - 40% = 60%")
  and the step takes it for one ("60 questions x 60/100").
* :func:`rate_named_by_product`: of a rate times a count the product names the rate ("for a total
  of 7 days so he needs 1*7 = 7 pounds of butter" after "4*.25 = 1 pound of butter", 610), where
  the line names the other number otherwise ("7 days")."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.terms import names, product_factors, subterms
from qcstation.core.reading.words import (ANNOTATION, fmt_value, operand_values, question_occurrences,
                                          result_words, solution_lines, stem, step_line, words_after_value)

__all__ = ["count_of_a_percent_value", "percent_result_of_a_count_value", "rate_named_by_product"]

_PERCENT = frozenset({"%", "perc", "percent"})


def _kind(e: Any) -> str:
    return type(e).__name__


def _is_name(e: Any, name: str) -> bool:
    return _kind(e) == "Name" and str(e.name) == name


def percent_only(question: str, v: Fraction) -> bool:
    """Does the question state ``v`` only as a percent ("20%", "20 percent")?"""
    places = [o for o in question_occurrences(question) if o.value == v and o.start >= 0]
    return bool(places) and all("%" in o.words for o in places)


def _value_of(e: Any, values: dict[str, Fraction]) -> Fraction | None:
    if _kind(e) == "Num":
        return Fraction(e.value)
    if _kind(e) == "Name":
        return values.get(str(e.name))
    return None


def _taken_as_percent(e: Any, dep: str, v: Fraction, defs: dict[str, Any], values: dict[str, Fraction],
                      question: str, is_given: Callable[[Any], bool]) -> bool:
    """Could the step take the earlier result ``dep`` for a percent: divide it by 100, or divide by
    100 a term that uses it where no other factor is a percent the question states?"""
    for x in subterms(e):
        if getattr(x, "op", None) != "/" or _value_of(x.right, values) != 100:
            continue
        left = x.left
        if _is_name(left, dep):
            return True
        factors = product_factors(left) if getattr(left, "op", None) == "*" else []
        if any(_is_name(f, dep) for f in factors):
            others = [f for f in factors if not _is_name(f, dep)]
            if not any(_kind(f) == "Name" and str(f.name) in defs and is_given(defs[str(f.name)])
                       and values.get(str(f.name)) != v and percent_only(question, values[str(f.name)])
                       for f in others):
                return True
        elif dep in names(left):
            return True
    return False


def count_of_a_percent_value(name: str, dep: str, v: Fraction, defs: dict[str, Any],
                             values: dict[str, Fraction], question: str, solution: str,
                             is_given: Callable[[Any], bool]) -> bool:
    """Is a step's use of an earlier result ``v`` vouched for by the question's percent? The
    question states ``v`` only as a percent ("candidate A got 20% of the votes"), the earlier
    step and this one name their results as no percent ("= 20 votes", "= 10 more votes"), and
    the step does not take the earlier result for a percent: it divides it by no 100, or divides
    a product by 100 whose other factor is a given of a value the question states only as a
    percent ("20 x 50/100": the 50 is the percent). Then the question's ``v`` (a percent) is no
    place of this count."""
    if not percent_only(question, v) or name not in values or dep not in values:
        return False
    e = defs[name]
    if _taken_as_percent(e, dep, v, defs, values, question, is_given):
        return False
    lines = solution_lines(solution)
    at = step_line(solution, values[name], operand_values(e, values))
    dep_at = step_line(solution, values[dep], operand_values(defs[dep], values))
    if at is None or dep_at is None or at == dep_at or not names(defs[dep]):
        return False
    own = result_words(ANNOTATION.sub(" ", lines[at][0]), values[name])
    said = result_words(ANNOTATION.sub(" ", lines[dep_at][0]), values[dep])
    return bool(own - {"$"}) and bool(said - {"$"}) and not (own | said) & _PERCENT


def percent_result_of_a_count_value(name: str, dep: str, v: Fraction, defs: dict[str, Any],
                                    values: dict[str, Fraction], question: str, solution: str,
                                    is_given: Callable[[Any], bool]) -> bool:
    """Is a step's use of an earlier result ``v`` vouched for by the percent it is? The question
    states ``v`` and never as a percent ("a 60-item quiz"), the earlier step's line writes its
    result as a percent ("100% - 40% = 60% of the quiz"), the step takes it for a percent (divides
    it, or a product of it, by 100: "60 questions x 60/100") and its line writes ``v`` as no
    percent. Then the question's count is no place of this percent."""
    places = [o for o in question_occurrences(question) if o.value == v and o.start >= 0]
    if not places or any("%" in o.words for o in places) or name not in values or dep not in values:
        return False
    e = defs[name]
    if not _taken_as_percent(e, dep, v, defs, values, question, is_given):
        return False
    lines = solution_lines(solution)
    at = step_line(solution, values[name], operand_values(e, values))
    dep_at = step_line(solution, values[dep], operand_values(defs[dep], values))
    if at is None or dep_at is None or at == dep_at:
        return False
    num = re.escape(fmt_value(v))
    written = re.search(rf"=\s*{num}\s*(?:%|percent\b)", ANNOTATION.sub(" ", lines[dep_at][0]), re.I)
    again = re.search(rf"(?<![\d.]){num}\s*(?:%|percent\b)", ANNOTATION.sub(" ", lines[at][0]), re.I)
    return written is not None and again is None


def _product_at(line: str, operands: list[Fraction]) -> int:
    """Where the line writes its step as one product of its two numbers ("1*7 =", "1 x 7 ="); -1
    when it does not."""
    a, b = (fmt_value(x) for x in operands)
    m = re.search(rf"(?<![\d.]){re.escape(a)}\s*[*x×]\s*{re.escape(b)}\s*=", line)
    return m.start() if m else -1


def rate_named_by_product(line: str, dep_line: str, v: Fraction, step_value: Fraction, dep_value: Fraction,
                          operands: list[Fraction]) -> tuple[set[str], set[str]] | None:
    """For a step the line writes as one product of two numbers, one of them ``v`` named by no
    words ("1*7 = 7 pounds of butter"): the words that name ``v`` (the product's, after its result)
    and the words the earlier line ``dep_line`` names its result ``dep_value`` by, to compare as
    :func:`~.bindings.link_by_words` does. Only where the line names the other number before the
    product with words the product's do not share ("for a total of 7 days"); None otherwise."""
    if len(operands) != 2 or operands.count(v) != 1:
        return None
    at = _product_at(line, operands)
    if at < 0:
        return None
    other = next(w for w in operands if w != v)
    said_other = {stem(w) for ws in (words_after_value(line[:at], other) or []) for w in ws}
    here = set(result_words(line, step_value))
    if not said_other or said_other & here:
        return None
    return here, set(result_words(dep_line, dep_value))
