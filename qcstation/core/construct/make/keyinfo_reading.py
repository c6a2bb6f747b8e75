"""The reading key information (Understanding) is made from: the seed's rule-made formalization
(:func:`~.rules.rule_for_seed`), or, where that is refused only because the question states a
value at several places and the solution's uses of it were tied to those places by order (no
words told which is which), the same reading when its key information is the same whichever
place each use is: every other check of the formalization passes
(:func:`~.rules.dispatch.check_independently`, but for the words of a tied value's uses: the
relationships write its value, whichever place it is), the relationships are written by value (a
use names no place), and every place of each such value, in digits or as a word that says it
("twice", "half"), stands in a listed known quantity (so the known quantities hold the place a
use means, whichever it is; a place listed nowhere is refused, it could be the one used or a
distractor: train 1163's "twice as many bell peppers"). Held-out GSM8K train 96 ("Ken gave ten
pencils to Manny and ten more pencils to Nilo than he gave to Manny"; "Nilo received 10 + 10")
ties its two tens by order: no Reasoning formalization, but its key information lists both
clauses and "Q1 = 10 + 10" whichever ten each is.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction
from typing import Any, Mapping

from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import Givens, RuleError, rule_for_seed
from qcstation.core.construct.make.rules.calculator import smt_from_calculator_annotations
from qcstation.core.reading.textnumbers import NUMBER_WORD_RE, numbers_in
from qcstation.core.construct.make.rules.dispatch import (check_independently, gold_from_seed, solution_of,
                                                          too_large_for_rules)

__all__ = ["KEYINFO_RULES", "ORDER_TIED", "keyinfo_for_seed"]

#: the formalizations key information is made from (their steps carry the solution's lines)
KEYINFO_RULES = ("gsm8k-calculator", "inline-arithmetic", "gsm8k-algebra")
#: the name an artifact made from an order-tied reading is stored with (``inputs.rule``)
ORDER_TIED = "keyinfo-from-order-tied-reading"

#: the values an order-tied reading names (:meth:`~.rules.givens.Givens.uncertain`'s reasons)
_TIED = re.compile(r"the question states (-?\d+(?:/\d+)?(?:\.\d+)?) (?:more than once|at several places)\b")
#: a known quantity that quotes the question's words ('The question asks about "12 pizzas"')
_QUOTED = re.compile(r'^The question (?:asks about|states) "(.*)"$', re.S)


def keyinfo_for_seed(seed: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """The six fields and the name of the reading they were made from ("keyinfo-from-annotations"
    or :data:`ORDER_TIED`). Raises the formalization's :class:`RuleError` where neither reading
    gives key information, or :class:`~.keyinfo.KeyInfoError` where the draft refuses."""
    question, solution = str(seed.get("question") or ""), str(seed.get("solution") or "")
    try:
        rule = rule_for_seed(seed)
    except RuleError:
        tied = _order_tied(seed)
        if tied is None:
            raise
        return tied, ORDER_TIED
    if rule.rule not in KEYINFO_RULES:
        raise RuleError("key information rules need a calculator-annotated solution")
    return keyinfo_from_annotations(question, solution, rule.steps, givens=rule.givens), "keyinfo-from-annotations"


def _order_tied(seed: Mapping[str, Any]) -> dict[str, Any] | None:
    """Key information from the calculator reading refused only for its order-tied places, or None."""
    question = seed.get("question")
    solution = solution_of(seed)
    if not isinstance(question, str) or not solution or too_large_for_rules(seed) is not None:
        return None
    gold = gold_from_seed(seed)
    try:
        result = smt_from_calculator_annotations(solution, gold, question=question)
        if not result.uncertain or any(st.expr is None for st in result.steps):
            return None
        tied = [_TIED.match(u) for u in result.uncertain]
        if not all(tied):
            return None
        values = {Fraction(m.group(1)) for m in tied if m is not None}
        check_independently(dataclasses.replace(result, uncertain=[]), question, solution, gold, frozenset(values))
        late: list[str] = []
        fields = keyinfo_from_annotations(question, str(seed.get("solution") or ""), result.steps,
                                          givens=result.givens, listed_late=late)
    except (RuleError, RecursionError, ValueError, ArithmeticError):
        return None
    # (by the clauses that state the givens: a place listed only because every number the story
    # states is listed says nothing of which place a use means)
    clauses = [k for k in fields["known_quantities"] if k not in late]
    return fields if _every_place_listed(question, clauses, values) else None


def _every_place_listed(question: str, known: list[str], values: set[Fraction]) -> bool:
    """Does every place where the question states one of ``values`` stand inside a known
    quantity as the question writes it (found again in the question; one not found covers nothing)?"""
    spans: list[tuple[int, int]] = []
    lower = question.lower()
    for k in known:
        quoted = _QUOTED.match(k)
        text = (quoted.group(1) if quoted else k).strip().rstrip(".?").lower()
        at = lower.find(text) if text else -1
        while at >= 0:
            spans.append((at, at + len(text)))
            at = lower.find(text, at + 1)
    places = [n.start for n in Givens(question).numbers if n.value in values and not n.percent]
    # a word that says a tied value ("twice": 2; "half": 1/2 or 2): a step may mean it
    places += [m.start() for m in NUMBER_WORD_RE.finditer(question)
               if any(v in values or (v and 1 / v in values) for v in numbers_in(m.group(0)))]
    return bool(places) and all(any(a <= p < b for a, b in spans) for p in places)
