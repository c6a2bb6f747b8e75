"""A parent seed, ready to derive from, and the one construction every value-changing
transformation shares (:func:`with_values`).

:func:`load_parent` takes a seed and its current artifacts and checks that it may be
transformed: its Reasoning artifact is verified and made by the calculator rule, the
references work vouches for its bindings (:func:`~.bindings.read_bindings`), and the rules
still make that very formalization from the seed today, up to the names of its constants (a
parent verified before a fix to how givens are named is read with today's names:
``Parent.renamed``). It keeps the rule's steps, the old
value of every quantity (givens and steps) and the constants of the formalization.

:func:`with_values` builds the derived seed for new values of some givens: every step is
recomputed exactly, each keeps its kind (a whole number stays whole, the sign stays, a
decimal stays a short decimal, a value of one appears only where there was one, no two
quantities become equal that were not), the question is rewritten at the givens' places and
the worked solution with them (:mod:`.solution`); then the *same rules* formalize the
derived seed, and their formalization must be the parent's with only those values changed,
its answer the recomputed one, and each given read from its new place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import partial
from itertools import combinations
from collections.abc import Callable
from typing import Any, TypeVar, cast

from qcstation.core.construct.make.rules import BinOp, ExpressionError, Name, Neg, Num, RuleResult, evaluate
from qcstation.core.reading.expr import pair_op
from qcstation.core.construct.check.selfcheck import hard_codes
from qcstation.core.derive.bindings import (
    Bindings,
    Given,
    LazyRefusal,
    Refusal,
    question_numbers,
    read_bindings,
    unused_neighbours,
    unused_numbers,
)
from qcstation.core.derive.model import fmt
from qcstation.core.derive.numbers import Unwritable, fit_article, render
from qcstation.core.derive.rebuild import renaming, rule_of, skeleton
from qcstation.core.derive.solution import (
    SolutionTemplate,
    format_value,
)
from qcstation.core.reading.answers import decimal_places, denominator_places
from qcstation.core.reading.word_values import mixed_numbers
from qcstation.core.reading.expr import atoms, has_call

__all__ = ["MAX_MAGNITUDE", "Derived", "Draft", "FastChecks", "Parent", "check_kinds", "check_order", "held_givens", "load_parent",
           "draft", "formalize", "precheck", "slow_precheck", "with_values"]

MAX_MAGNITUDE = Fraction(10**9)
T = TypeVar("T")
_MAX_MAGNITUDE_INT = 10**9
_MAX_PLACES = 4


def _say(template: str, key: tuple[int, int], n: str, a: Fraction | None = None, m: str = "") -> str:
    """A cheap check's reason (:meth:`FastChecks._kinds`): ``template`` with the quantity's
    name ``n`` (and ``m``), its new value ``key`` and its old value ``a`` written."""
    return template.format(n=n, m=m, v=format_value(Fraction(*key)),
                           a="" if a is None else format_value(a))


@dataclass
class Parent:
    """A seed that may be transformed, with what every transformation needs."""

    seed: dict[str, Any]
    content: dict[str, Any]                 # its verified Reasoning artifact's content
    bindings: Bindings
    rule: RuleResult                        # the rules' formalization of it (same SMT-LIB)
    old: dict[str, Fraction]                # givens and steps by name
    constants: frozenset[Fraction]
    skeleton: str
    artifacts: dict[str, dict[str, Any]]    # dimension -> current usable artifact row
    renamed: bool = False                   # verified with other names for its constants
    _made: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def once(self, key: str, make: Callable[[Parent], T]) -> T:
        """What ``make`` reads of this parent alone, made once and kept with it (for as long as
        the parent lives: one job) for every item built from it; ``key`` names the reading."""
        if key not in self._made:
            self._made[key] = make(self)
        return cast(T, self._made[key])

    @property
    def checks(self) -> FastChecks:
        """The cheap checks compiled for this parent (:class:`FastChecks`), made once."""
        if "checks" not in self._made:
            self._made["checks"] = FastChecks(self)
        return self._made["checks"]

    @property
    def solution_template(self) -> SolutionTemplate:
        """Its worked solution read once (:class:`~.solution.SolutionTemplate`)."""
        if "solution" not in self._made:
            self._made["solution"] = SolutionTemplate(
                str(self.seed.get("solution") or ""), self.rule.steps, self.old,
                frozenset(g.name for g in self.givens), self.constants)
        return self._made["solution"]

    @property
    def solution_words(self) -> list[Any]:
        """The numbers its worked solution writes as words (``twenty``): the solution template
        rewrites digits only, so every derived solution writes these same words."""
        if "words" not in self._made:
            self._made["words"] = [n for n in question_numbers(str(self.seed.get("solution") or ""))
                                   if n.text[:1].isalpha()]
        return self._made["words"]

    @property
    def solution_mixed(self) -> list[tuple[str, Fraction]]:
        """The mixed numbers its worked solution writes in words ("two and a half")."""
        if "mixed" not in self._made:
            self._made["mixed"] = mixed_numbers(str(self.seed.get("solution") or ""))
        return self._made["mixed"]

    @property
    def asked_share(self) -> tuple[Fraction, str] | None:
        """The whole of a share the question asks for ("what percentage of his money": 100,
        "what fraction of": 1) and its words, read once per parent (:func:`check_stated_totals`)."""
        if "share" not in self._made:
            m = _ASKS_SHARE.search(str(self.seed.get("question") or "")[-4000:])
            self._made["share"] = None if m is None else (Fraction(100) if m.group(1) else Fraction(1), m.group(0))
        return self._made["share"]

    @property
    def stated_totals(self) -> tuple[tuple[Fraction, str], ...]:
        """Totals the story states that the formalization does not use, which its answer may
        not exceed (:func:`check_stated_totals`): each whole number above 1 the question
        states and no given is read from ("a box of 50"), and the product of each two
        ("shared 4 pizzas. Each pizza had 8 slices": 32 slices), with their words."""
        if "totals" not in self._made:
            unused = [n for n in unused_numbers(str(self.seed.get("question") or ""), self.givens, self.constants)
                      if n.value.denominator == 1 and n.value > 1][:8]
            totals = {n.value: repr(n.text) for n in unused}
            for i, a in enumerate(unused):
                for b in unused[i + 1:]:
                    totals.setdefault(a.value * b.value, f"{a.text!r} x {b.text!r}")
            self._made["totals"] = tuple(sorted(totals.items()))
        return self._made["totals"]

    @property
    def id(self) -> int:
        return int(self.seed["id"])

    @property
    def answer(self) -> Fraction:
        return self.rule.value

    @property
    def givens(self) -> tuple[Given, ...]:
        return self.bindings.givens

    def content_of(self, dimension: str) -> dict[str, Any] | None:
        art = self.artifacts.get(dimension)
        if art is None:
            return None
        c = art.get("content")
        return json.loads(c) if isinstance(c, str) else c


@dataclass
class Derived:
    """A derived seed (as :func:`rules.rule_for_seed` reads one) and its formalization."""

    seed: dict[str, Any]
    rule: RuleResult
    values: dict[str, Fraction]             # every quantity's new value
    changed: dict[str, tuple[Fraction, Fraction]]   # given name -> (old, new)


def load_parent(seed: dict[str, Any], artifacts: dict[str, dict[str, Any]]) -> Parent:
    """The parent context of ``seed`` (its row) and its current artifacts by dimension
    (rows with ``content``, ``status``, ``generator``); :class:`Refusal` says why not."""
    rea = artifacts.get("reasoning")
    if rea is None or rea.get("status") not in ("verified", "accepted"):
        raise Refusal("not-verified", "its Reasoning artifact is not verified")
    hard = hard_codes(rea.get("flag_codes"))
    if hard:
        raise Refusal("flagged", f"its Reasoning artifact carries the hard self-check flag(s) "
                                 f"{', '.join(hard)}: a given may stand for another quantity")
    if not str(rea.get("generator") or "").startswith("rule:"):
        raise Refusal("not-rule-made", f"its formalization was written by "
                                       f"{rea.get('generator')}, not by the rules: its givens "
                                       f"are not tied to the question's words")
    content = rea["content"]
    content = json.loads(content) if isinstance(content, str) else dict(content)
    bindings = read_bindings(str(seed["question"]), content)
    rule = rule_of(seed, rea.get("kept_rule"))
    rounds = next((st for st in rule.steps if has_call(st.expr)), None)
    if rounds is not None:
        # a moved number may make the division even, or the rounding's words may not fit the new
        # story: not re-read yet (see rules.rounding)
        raise Refusal("rounded", f"its answer rounds a result to a whole count ({rounds.expr_text}): "
                                 "derive does not yet re-read the rounding for moved numbers")
    renamed = rule.smtlib != content.get("smtlib")
    if renamed:
        content = _renamed(content, rule.smtlib)
        bindings = read_bindings(str(seed["question"]), content)
    names = [g["name"] for g in rule.givens]
    if names != [g.name for g in bindings.givens]:
        raise Refusal("rules-changed", "the rules declare other givens than the verified "
                                       "formalization")
    old: dict[str, Fraction] = {g.name: g.value for g in bindings.givens}
    constants: set[Fraction] = set()
    for st in rule.steps:
        old[st.name] = Fraction(st.result)
        for leaf in atoms(st.expr):
            if isinstance(leaf, Num) and leaf.text:
                constants.add(leaf.value)
    _check_constants(str(seed["question"]), constants)
    bindings = _hold_tied(str(seed["question"]), bindings, frozenset(constants))
    return Parent(seed, content, bindings, rule, old, frozenset(constants),
                  skeleton(rule.smtlib, names), artifacts, renamed)


def _renamed(content: dict[str, Any], today: str) -> dict[str, Any]:
    """The verified content as today's rules name it, when they write the same formalization
    with other names for its constants only (a fix to how givens are named): its SMT-LIB is
    today's and its givens carry today's names, so that the derived seeds, which the rules
    formalize with today's names, compare with it. :class:`Refusal` (``rules-changed``) when
    the formalization differs in more than names."""
    stored = content.get("smtlib")
    mapping = renaming(stored, today) if isinstance(stored, str) else None
    if mapping is None:
        raise Refusal("rules-changed", "the rules make another formalization of it today than "
                                       "the verified one (regenerate it first)")
    givens = content.get("givens")
    if isinstance(givens, list):
        givens = [{**g, "name": mapping.get(g["name"], g["name"])}
                  if isinstance(g, dict) and isinstance(g.get("name"), str) else g for g in givens]
    return {**content, "smtlib": today, "givens": givens}


def _hold_tied(question: str, bindings: Bindings, constants: frozenset[Fraction]) -> Bindings:
    """A given whose sentence states a number the formalization does not use keeps its
    value (:func:`~.bindings.unused_neighbours`): "split the cost evenly three ways with her
    two parents" must not become "four ways with her two parents". The others may move."""
    near = unused_neighbours(question, bindings.givens, constants)
    parts = _parts_of(question, bindings.givens, constants)
    if not near and not parts:
        return bindings
    held = []
    for g in bindings.givens:
        if g.name in near and not g.fixed:
            words = ", ".join(repr(n.text) for n in near[g.name][:3])
            g = replace(g, fixed=f"its sentence also states {words}, which the formalization "
                                 f"does not use: a new value could contradict it")
        elif g.name in parts and not g.fixed:
            g = replace(g, fixed=parts[g.name])
        held.append(g)
    return Bindings(tuple(held), bindings.factors)


def _parts_of(question: str, givens: tuple[Given, ...], constants: frozenset[Fraction]) -> dict[str, str]:
    """Givens tied by the story to a number the formalization does not use, as the parts of
    a total or a total and a part ("ten packets ... four of the packets ... the other two":
    6 = 4 + 2), or of three ("10 liters of orange drink ... 15 liters of pineapple drink ...
    I spill one liter ... the remaining 24 liters": 24 = 10 + 15 - 1): moving any would make
    the story contradict itself. Name -> why."""
    unused = unused_numbers(question, givens, constants)
    if not unused:
        return {}
    out: dict[str, str] = {}
    written = [(g, g.value * g.style.scale) for g in givens]
    for i, (a, wa) in enumerate(written):
        for b, wb in written[i + 1:]:
            for n in unused:
                if n.value in (wa + wb, abs(wa - wb)):
                    why = (f"the question also states {n.text!r}, which the formalization does "
                           f"not use and which is {format_value(wa)} "
                           f"{'+' if n.value == wa + wb else '-'} {format_value(wb)}: parts of a "
                           f"total, a new value would contradict it")
                    out.setdefault(a.name, why)
                    out.setdefault(b.name, why)
    if len(written) <= _MAX_THREE_TERMS:
        # a total of three parts is larger than each part ("two", "three" equal to a
        # difference of three givens is a count of its own, by chance)
        for trio in combinations(written, 3):
            largest = max(w for _, w in trio)
            for signs in ((1, 1, 1), (1, 1, -1), (1, -1, 1), (-1, 1, 1)):
                total = sum(s * w for s, (_, w) in zip(signs, trio))
                for n in unused:
                    if n.value != total or total <= largest:
                        continue
                    terms = " ".join(f"{'+' if s > 0 else '-'} {format_value(w)}"
                                     for s, (_, w) in zip(signs, trio)).lstrip("+ ")
                    why = (f"the question also states {n.text!r}, which the formalization does "
                           f"not use and which is {terms}: parts of a total, a new value would "
                           f"contradict it")
                    for g, _ in trio:
                        out.setdefault(g.name, why)
    return out


#: three-term sums are looked for only up to this many givens (C(12, 3) * 4 = 880 sums)
_MAX_THREE_TERMS = 12


def held_givens(parent: Parent) -> str:
    """Why the givens that keep their value keep it ("" when none does), for refusals."""
    return "; ".join(f"{g.words!r} ({g.fixed})" for g in parent.givens if g.fixed)


#: constants a formalization may write that a question need not state (twice, half, a
#: percent's 100, a dozen, hours, minutes, days of a week, weeks and days of a year...)
CONVENTIONAL: frozenset[Fraction] = frozenset(
    [Fraction(x) for x in (1, 2, 3, 4, 7, 10, 12, 24, 52, 60, 100, 1000, 365, 366)]
    + [Fraction(1, d) for d in (2, 3, 4, 10, 100, 1000)] + [Fraction(3, 4), Fraction(2, 3)])


def _check_constants(question: str, constants: set[Fraction]) -> None:
    """A constant of the formalization that the question does not write and no convention
    explains (``300`` for "30% of the 1000 students") is a value computed from the givens
    and frozen: a variant would keep it while its givens move. Refused."""
    written = {n.value for n in question_numbers(question)}
    hidden = sorted(c for c in constants if c not in written and c not in CONVENTIONAL)
    if hidden:
        raise Refusal("hidden-constant", f"the formalization writes {format_value(hidden[0])}, "
                                         f"which the question does not state: it may be "
                                         f"computed from a given and would not follow it")


def check_kinds(old: dict[str, Fraction], new: dict[str, Fraction],
                constants: frozenset[Fraction] = frozenset()) -> None:
    """Every quantity keeps its kind (see the module docstring); :class:`Refusal` names the
    first that does not."""
    for name, a in old.items():
        b = new[name]
        if a.denominator == 1 and b.denominator != 1:
            raise Refusal("kind", f"{name} = {format_value(b)} is not whole (it was {format_value(a)})")
        if (a > 0) != (b > 0) or (a < 0) != (b < 0) or (a == 0) != (b == 0):
            raise Refusal("kind", f"{name} = {format_value(b)} changes sign (it was {format_value(a)})")
        if abs(b) > MAX_MAGNITUDE:
            raise Refusal("kind", f"{name} = {format_value(b)} is too large")
        if a.denominator != 1:
            pa, pb = decimal_places(a), decimal_places(b)
            if pa is not None and (pb is None or pb > max(pa, 2, min(_MAX_PLACES, pa + 1))):
                raise Refusal("kind", f"{name} = {format_value(b)} is not a short decimal "
                                      f"(it was {format_value(a)})")
        if b == 1 and a != 1:
            raise Refusal("kind", f"{name} becomes 1 (singular where the text says a plural)")
    names = list(old)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            if new[x] == new[y] and old[x] != old[y]:
                raise Refusal("collision", f"{x} and {y} would both be {format_value(new[x])}")
        if new[x] in constants and old[x] not in constants:
            raise Refusal("collision", f"{x} would be {format_value(new[x])}, a constant of the "
                                       f"formalization")


def _recompute(parent: Parent, givens: dict[str, Fraction]) -> dict[str, Fraction]:
    env = {str(f["name"]): Fraction(str(f["value"])) for f in parent.rule.factors or []}
    env.update({g.name: givens.get(g.name, g.value) for g in parent.givens})
    for st in parent.rule.steps:
        if st.expr is None:
            raise Refusal("undefined", f"step {st.name} has no term to compute it from")
        try:
            env[st.name] = evaluate(st.expr, env)
        except (ExpressionError, ZeroDivisionError) as exc:
            raise Refusal("undefined", f"step {st.name} cannot be computed: {exc}") from None
    return env


def rewrite_question(parent: Parent, givens: dict[str, Fraction]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The question with each changed given written at its place; the new places."""
    q = str(parent.seed["question"])
    out: list[str] = []
    pos = 0
    places: dict[str, tuple[int, int]] = {}
    shift = 0
    for g in sorted(parent.givens, key=lambda g: g.start):
        text = g.words
        before = q[pos:g.start]
        if g.name in givens and givens[g.name] != g.value:
            try:
                text = render(g.style, givens[g.name])
            except Unwritable as exc:
                raise Refusal("unwritable", f"given {g.name}: {exc}") from None
            said = fit_article(before, text)     # "a 5-hour shift" -> "an 8-hour shift"
            shift += len(said) - len(before)
            before = said
        out.append(before)
        out.append(text)
        start = g.start + shift
        places[g.name] = (start, start + len(text))
        shift += len(text) - (g.end - g.start)
        pos = g.end
    out.append(q[pos:])
    return "".join(out), places


def check_order(parent: Parent, givens: dict[str, Fraction]) -> None:
    """The story's givens keep their order: one that was smaller than another stays smaller
    (the dearer item stays dearer, the later hour later). Givens that were equal may part."""
    gs = parent.givens
    for i, a in enumerate(gs):
        va = givens.get(a.name, a.value) * a.style.scale
        for b in gs[i + 1:]:
            vb = givens.get(b.name, b.value) * b.style.scale
            wa, wb = a.value * a.style.scale, b.value * b.style.scale
            if wa != wb and (wa < wb) != (va < vb):
                raise Refusal("order", f"{a.name} and {b.name} would swap order "
                                       f"({format_value(va)} vs {format_value(vb)})")


def precheck(parent: Parent, givens: dict[str, Fraction], *, ordered: bool = False) -> dict[str, Fraction]:
    """The cheap part of :func:`with_values`: the givens keep their order, every quantity is
    recomputed and keeps its kind. Runs the parent's compiled checks (:class:`FastChecks`):
    the same checks as :func:`check_order`, :func:`_recompute` and :func:`check_kinds`, with
    the same first refusal, at a fraction of the cost (a variant tries about 20 draws).
    ``ordered``: the caller has checked the order already (it is not checked again)."""
    checks = parent.checks
    if not ordered:
        checks.order(givens)
    return checks.checked(givens)


def slow_precheck(parent: Parent, givens: dict[str, Fraction], *, ordered: bool = False) -> dict[str, Fraction]:
    """:func:`precheck` by the plain definitions (the reference the tests compare with; the
    order is checked whatever ``ordered`` says)."""
    check_order(parent, givens)
    values = _recompute(parent, givens)
    check_kinds(parent.old, values, parent.constants)
    return values


def _compile(expr: Any) -> Any:
    """``evaluate(expr, env)`` as a closure (same order, same errors, same bounds) on exact
    rationals held as ``(numerator, denominator)`` pairs in lowest terms, denominator positive
    (as :class:`Fraction` holds them): ``env`` maps names to pairs and the closure returns one.
    The same values as the ``Fraction`` arithmetic, without building a ``Fraction`` per
    operation (a variant tries about 20 draws per item, each through every step)."""
    if isinstance(expr, Num):
        v = (expr.value.numerator, expr.value.denominator)
        return lambda env: v
    if isinstance(expr, Name):
        n = expr.name

        def name(env: dict[str, tuple[int, int]]) -> tuple[int, int]:
            if n not in env:
                raise ExpressionError(f"unknown name {n!r}")
            return env[n]
        return name
    if isinstance(expr, Neg):
        inner = _compile(expr.operand)

        def neg(env: dict[str, tuple[int, int]]) -> tuple[int, int]:
            a, b = inner(env)
            return -a, b
        return neg
    if not isinstance(expr, BinOp):
        def other(env: dict[str, tuple[int, int]]) -> tuple[int, int]:
            v = evaluate(expr, {k: Fraction(a, b) for k, (a, b) in env.items()})
            return v.numerator, v.denominator
        return other
    left, right, op = _compile(expr.left), _compile(expr.right), expr.op

    def binop(env: dict[str, tuple[int, int]]) -> tuple[int, int]:
        an, ad = left(env)
        bn, bd = right(env)
        return pair_op(op, an, ad, bn, bd)
    return binop


class FastChecks:
    """:func:`check_order`, :func:`_recompute` and :func:`check_kinds` for one parent, with
    everything that depends only on the parent worked out once: the pairs of givens whose
    order must hold, the steps as closures, each old value's kind. Same checks, same order,
    same first refusal and message as the plain definitions."""

    def __init__(self, parent: Parent) -> None:
        gs = parent.givens
        self.givens = [(g.name, g.value, g.style.scale) for g in gs]
        written = [g.value * g.style.scale for g in gs]
        self.pairs = [(i, j, written[i] < written[j]) for i in range(len(gs))
                      for j in range(i + 1, len(gs)) if written[i] != written[j]]
        self.base = {str(f["name"]): Fraction(str(f["value"])) for f in parent.rule.factors or []}
        self.base_pairs = {k: (v.numerator, v.denominator) for k, v in self.base.items()}
        self.steps = [(st.name, None if st.expr is None else _compile(st.expr))
                      for st in parent.rule.steps]
        self.names = list(parent.old)
        self.old = [parent.old[n] for n in self.names]
        self.old_keys = [(a.numerator, a.denominator) for a in self.old]
        self.places = [decimal_places(a) if a.denominator != 1 else None for a in self.old]
        ckeys = {(c.numerator, c.denominator) for c in parent.constants}
        self.ckeys = ckeys
        self.old_const = [k in ckeys for k in self.old_keys]
        # per quantity, what its kind check reads of its old value: whole, sign, decimal places
        # (None when whole or no finite decimal), one
        self.kind_of = [(n, a, a.denominator == 1, (a.numerator > 0) - (a.numerator < 0), pa,
                         a == 1) for n, a, pa in zip(self.names, self.old, self.places)]

    def precheck(self, givens: dict[str, Fraction]) -> dict[str, Fraction]:
        self.order(givens)
        values = self.recompute(givens)
        self.kinds(values)
        return values

    def order(self, givens: dict[str, Fraction]) -> None:
        v = [givens.get(n, a) * s if s != 1 else givens.get(n, a) for n, a, s in self.givens]
        for i, j, less in self.pairs:
            if (v[i] < v[j]) != less:
                a, b = self.givens[i][0], self.givens[j][0]
                raise Refusal("order", f"{a} and {b} would swap order "
                                       f"({format_value(v[i])} vs {format_value(v[j])})")

    def recompute(self, givens: dict[str, Fraction]) -> dict[str, Fraction]:
        env = dict(self.base)
        pairs = dict(self.base_pairs)      # the same values as (numerator, denominator): _compile
        for n, a, _ in self.givens:
            v = env[n] = givens.get(n, a)
            pairs[n] = (v.numerator, v.denominator)
        for name, fn in self.steps:
            if fn is None:
                raise Refusal("undefined", f"step {name} has no term to compute it from")
            try:
                num, den = pairs[name] = fn(pairs)
            except (ExpressionError, ZeroDivisionError) as exc:
                raise Refusal("undefined", f"step {name} cannot be computed: {exc}") from None
            env[name] = Fraction(num, den)
        return env

    def checked(self, givens: dict[str, Fraction]) -> dict[str, Fraction]:
        """:meth:`recompute` then :meth:`kinds` on ``(numerator, denominator)`` pairs: the
        same values, the same first refusal and message, and each value's ``Fraction`` made
        only for a draw that passes (most draws are refused here)."""
        pairs = dict(self.base_pairs)
        for n, a, _ in self.givens:
            v = givens.get(n, a)
            pairs[n] = (v.numerator, v.denominator)
        for name, fn in self.steps:
            if fn is None:
                raise Refusal("undefined", f"step {name} has no term to compute it from")
            try:
                pairs[name] = fn(pairs)
            except (ExpressionError, ZeroDivisionError) as exc:
                raise Refusal("undefined", f"step {name} cannot be computed: {exc}") from None
        self._kinds(pairs)
        env = dict(self.base)                   # in recompute's order
        for n, a, _ in self.givens:
            env[n] = givens.get(n, a)
        for name, _ in self.steps:
            num, den = pairs[name]
            env[name] = Fraction(num, den)
        return env

    def _kinds(self, pairs: dict[str, tuple[int, int]]) -> None:
        """:meth:`kinds` on the values as ``(numerator, denominator)`` pairs in lowest terms;
        a refusal's reason written only when read (:class:`~.bindings.LazyRefusal`: most draws
        are refused here, and only the last one's reason is reported)."""
        names = self.names
        keys = []
        for name, a, whole, sign, pa, one in self.kind_of:
            key = pairs[name]
            bn, bd = key
            keys.append(key)
            if whole and bd != 1:
                raise LazyRefusal("kind", partial(_say, "{n} = {v} is not whole (it was {a})", key, name, a))
            if sign != (bn > 0) - (bn < 0):
                raise LazyRefusal("kind", partial(_say, "{n} = {v} changes sign (it was {a})", key, name, a))
            if abs(bn) > _MAX_MAGNITUDE_INT * bd:      # abs(b) > MAX_MAGNITUDE, on integers
                raise LazyRefusal("kind", partial(_say, "{n} = {v} is too large", key, name))
            if pa is not None:
                pb = denominator_places(bd)            # decimal_places reads the denominator only
                if pb is None or pb > max(pa, 2, min(_MAX_PLACES, pa + 1)):
                    raise LazyRefusal("kind", partial(_say, "{n} = {v} is not a short decimal (it was {a})",
                                                      key, name, a))
            if bn == 1 and bd == 1 and not one:
                raise Refusal("kind", f"{name} becomes 1 (singular where the text says a plural)")
        at: dict[tuple[int, int], list[int]] = {}
        for k, key in enumerate(keys):
            at.setdefault(key, []).append(k)
        for i, key in enumerate(keys):
            for j in at[key]:
                if j > i and self.old_keys[j] != self.old_keys[i]:
                    raise LazyRefusal("collision", partial(_say, "{n} and {m} would both be {v}", key,
                                                           names[i], m=names[j]))
            if key in self.ckeys and not self.old_const[i]:
                raise LazyRefusal("collision", partial(_say, "{n} would be {v}, a constant of the "
                                                       "formalization", key, names[i]))

    def kinds(self, new: dict[str, Fraction]) -> None:
        names = self.names
        keys = []
        for name, a, whole, sign, pa, one in self.kind_of:
            b = new[name]
            bn, bd = b.numerator, b.denominator
            keys.append((bn, bd))
            if whole and bd != 1:
                raise Refusal("kind", f"{name} = {format_value(b)} is not whole (it was {format_value(a)})")
            if sign != (bn > 0) - (bn < 0):
                raise Refusal("kind", f"{name} = {format_value(b)} changes sign (it was {format_value(a)})")
            if abs(bn) > _MAX_MAGNITUDE_INT * bd:      # abs(b) > MAX_MAGNITUDE, on integers
                raise Refusal("kind", f"{name} = {format_value(b)} is too large")
            if pa is not None:
                pb = decimal_places(b)
                if pb is None or pb > max(pa, 2, min(_MAX_PLACES, pa + 1)):
                    raise Refusal("kind", f"{name} = {format_value(b)} is not a short decimal "
                                          f"(it was {format_value(a)})")
            if bn == 1 and bd == 1 and not one:
                raise Refusal("kind", f"{name} becomes 1 (singular where the text says a plural)")
        at: dict[tuple[int, int], list[int]] = {}
        for k, key in enumerate(keys):
            at.setdefault(key, []).append(k)
        for i, key in enumerate(keys):
            for j in at[key]:
                if j > i and self.old_keys[j] != self.old_keys[i]:
                    raise Refusal("collision", f"{names[i]} and {names[j]} would both be "
                                               f"{format_value(new[names[i]])}")
            if key in self.ckeys and not self.old_const[i]:
                raise Refusal("collision", f"{names[i]} would be {format_value(new[names[i]])}, "
                                           f"a constant of the formalization")


@dataclass
class Draft:
    """A derived seed's texts for new given values, before the rules formalize it
    (:func:`draft`): what the second opinion (:mod:`.recheck`) reads, so that a draw it
    refuses is never built."""

    seed: dict[str, Any]                    # question, solution, answer (text and value)
    values: dict[str, Fraction]             # every quantity's new value
    places: dict[str, tuple[int, int]]      # each given's place in the new question
    answer: Fraction                        # the recomputed answer


def with_values(parent: Parent, givens: dict[str, Fraction],
                checked: dict[str, Fraction] | None = None) -> Derived:
    """The derived seed with ``givens`` (name -> new value) changed, formalized by the same
    rules and checked against the parent (see the module docstring). ``checked``: what
    :func:`precheck` just gave for these ``givens`` (it is not run again). The two halves:
    :func:`draft` (the texts, cheap) and :func:`formalize` (the rules)."""
    return formalize(parent, draft(parent, givens, checked))


def draft(parent: Parent, givens: dict[str, Fraction],
          checked: dict[str, Fraction] | None = None) -> Draft:
    """The cheap half of :func:`with_values`: held givens stay, the values are rechecked
    (unless ``checked``), the question and the worked solution are rewritten."""
    for g in parent.givens:
        if g.fixed and g.name in givens and givens[g.name] != g.value:
            raise Refusal("held", f"given {g.name} ({g.words!r}) keeps its value: {g.fixed}")
    _check_shared_caps(parent, givens)
    values = checked if checked is not None else precheck(parent, givens)
    question, places = rewrite_question(parent, givens)
    new_written = {values[g.name] * g.style.scale for g in parent.givens
                   if values[g.name] != g.value}
    for n in question_numbers(question):
        if n.value in new_written and not any(s <= n.start < e for s, e in places.values()):
            raise Refusal("collision", f"the question already writes {n.text!r}, a new value")
    solution = parent.solution_template.render(values)
    _check_solution_words(parent, values)
    answer = values[parent.rule.answer_step]
    check_stated_totals(parent, answer)
    seed = {"question": question, "solution": solution, "answer_text": format_value(answer),
            "answer_value": fmt(answer), "source": parent.seed.get("source"),
            "meta": parent.seed.get("meta")}
    return Draft(seed, values, places, answer)


#: a question that asks for a share of a whole ("what percentage of his money will he spend")
_ASKS_SHARE = re.compile(r"\b(?:what|which)\s+(?:(percent(?:age)?)|fraction|portion|proportion|part|share)\s+of\b", re.I)


def check_stated_totals(parent: Parent, answer: Fraction) -> None:
    """An answer that the parent's stays within a total the story states but the
    formalization does not use (:attr:`Parent.stated_totals`) stays within it: "Becky, Jake,
    and Silvia shared 4 pizzas. Each pizza had 8 slices" with 31 slices eaten must not become
    37 slices eaten. A share the question asks for ("what percentage of his money will he
    spend", 90 in GSM8K train 115) that is at most the whole in the parent stays at most the
    whole: "$4 each" would make him spend 180% of his $40 (lead's held-out reading).
    :class:`Refusal` (``implausible``) otherwise."""
    if answer <= parent.answer:
        return
    share = parent.asked_share
    if share is not None:
        whole, words = share
        if parent.answer <= whole < answer:
            raise Refusal("implausible", f"the question asks {words!r} a whole, which the "
                                         f"answer {fmt(parent.answer)} stays within; {fmt(answer)} exceeds it")
    for total, words in parent.stated_totals:
        if parent.answer <= total < answer:
            raise Refusal("implausible", f"the question states {words} ({fmt(total)}), which the "
                                         f"formalization does not use and the answer "
                                         f"{fmt(parent.answer)} stays within; {fmt(answer)} exceeds it")


def _check_shared_caps(parent: Parent, givens: dict[str, Fraction]) -> None:
    """Givens of one unit and period ("8 hours a day" and "10 hours a day": at most 24 each)
    that fit in the period together in the parent fit together in the item too: "3 hours a
    day reading and 4 hours a day swimming" must not become 14 and 13 hours a day."""
    groups: dict[tuple[Fraction, Fraction | int], list[Given]] = {}
    for g in parent.givens:
        if g.cap is not None:
            groups.setdefault((g.cap, g.style.scale), []).append(g)
    for (cap, scale), group in groups.items():
        if len(group) < 2 or not any(g.name in givens for g in group):
            continue
        limit = cap * scale
        if sum(g.value for g in group) > limit:
            continue   # the parent's own quantities overlap (two people, activities on one day)
        new = [givens.get(g.name, g.value) for g in group]
        if sum(new) > limit:
            raise Refusal("implausible", "givens " + ", ".join(repr(g.words) for g in group)
                          + f" share a period of {fmt(cap)}; the new values "
                          + " + ".join(fmt(v / scale) for v in new) + " exceed it")


def formalize(parent: Parent, d: Draft) -> Derived:
    """The costly half of :func:`with_values`: the same rules formalize the drafted seed, and
    their formalization must be the parent's with only the values changed."""
    values = d.values
    rule = rule_of(d.seed)
    _check_same_reading(parent, rule, d.answer, d.places)
    changed = {g.name: (g.value, values[g.name]) for g in parent.givens
               if values[g.name] != g.value}
    return Derived(d.seed, rule, values, changed)


def _check_solution_words(parent: Parent, values: dict[str, Fraction]) -> None:
    """The worked solution rewrites numbers written in digits; one written as a word
    ("After buying twenty marbles") with the old value of a quantity that changed would
    tell the old story: refused, never left stale. The words are the parent's
    (:attr:`Parent.solution_words`)."""
    words = parent.solution_words
    if not words and not parent.solution_mixed:
        return
    stale = {a for k, a in parent.old.items() if values.get(k, a) != a}
    # a word may still be a quantity that keeps its value (or a constant), never one that only
    # takes that value now: the parent's "forty customers" is no "$40 tip" (860: 40 customers
    # -> 50, a $20 tip -> $40; its variant kept "from the forty customers is 50*$40")
    keep = {a for k, a in parent.old.items() if values.get(k, a) == a} | set(parent.constants)
    # and the question's own words for a changed given name that given, whatever else has its
    # value: 422's "Four boats ... carried away 4 cats each" -> "Two boats", the 4 cats kept,
    # the solution's "When four boats carried away" is the old story
    givens = tuple(getattr(parent, "givens", ()))
    moved = {g.words.lower() for g in givens if values.get(g.name, g.value) != g.value}
    kept = {g.words.lower() for g in givens if values.get(g.name, g.value) == g.value}
    for n in words:
        named = n.text.lower() in moved and n.text.lower() not in kept
        if n.value in stale and (n.value not in keep or named):
            raise Refusal("solution-words", f"the worked solution writes {n.text!r}, the old "
                                            f"value of a quantity that changes, in words")
    # "Since Daria consumes two and a half times ..." where the question says "2.5 times" and
    # the variant 4.7 (lead's read24): a mixed number in words is one old value
    for text, value in parent.solution_mixed:
        if value in stale and value not in keep:
            raise Refusal("solution-words", f"the worked solution writes {text!r}, the old "
                                            f"value of a quantity that changes, in words")


def _check_same_reading(parent: Parent, rule: RuleResult, answer: Fraction,
                        places: dict[str, tuple[int, int]]) -> None:
    names = [g.name for g in parent.givens]
    if [g["name"] for g in rule.givens] != names:
        raise Refusal("reads-differently", "the rules declare other givens for the derived seed")
    if skeleton(rule.smtlib, names) != parent.skeleton:
        raise Refusal("reads-differently", "the rules formalize the derived seed differently "
                                           "from its parent (not only new values)")
    if rule.value != answer:
        raise Refusal("reads-differently", f"the rules' answer {format_value(rule.value)} is not "
                                           f"the recomputed {format_value(answer)}")
    for g in rule.givens:
        span = g.get("span")
        if span is not None and tuple(span) != places[g["name"]]:
            raise Refusal("reads-differently", f"the rules read {g['name']} from another place "
                                               f"of the derived question")
