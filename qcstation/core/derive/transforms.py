"""The transformations that change values: variants, changed numbers, counterfactuals, the
arithmetic and refinement ladders, and inverse (backward) problems.

Each takes a :class:`~.parent.Parent`, the run's :class:`Options` and the parent's item key
(``set:parent``) and returns :class:`~.model.DerivedItem` s and :class:`~.model.Refused` s.
Draws are seeded per item (:func:`~.draws.item_rng`), so the same key always gives the same
items. Items whose story changes carry all four dimensions, rebuilt by the same rules
(:func:`full_item`); an arithmetic-ladder item carries the notation question only, a
refinement-ladder item the wrong chain of thought only, an inverse problem its question and
formalization (SMART's Reasoning task and the final answer).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from qcstation.core.construct.make.rules import fraction_to_smt
from qcstation.core.derive.bindings import Given, Refusal
from qcstation.core.derive.draws import (
    domain,
    item_rng,
    same_digits,
    shifted,
    with_digits,
)
from qcstation.core.derive.model import Check, DerivedItem, Refused, fmt
from qcstation.core.derive.numbers import render
from qcstation.core.reading.answers import decimal_places
from qcstation.core.derive.parent import (
    Derived,
    Draft,
    Parent,
    _recompute,
    draft,
    formalize,
    held_givens,
    precheck,
)
from qcstation.core.derive.rebuild import (
    NOTATION_MAX_DECIMALS,
    given_term,
    keyinfo_content,
    notation_content,
    operation_count,
    reasoning_content,
    refinement_content,
    substitute_givens,
)
from qcstation.core.derive.recheck import Verdict, recheck
from qcstation.core.derive.solution import format_value

__all__ = [
    "INVERSE_SENTENCE",
    "OPTION_BOUNDS",
    "Options",
    "changed_numbers",
    "counterfactuals",
    "digits",
    "disputed",
    "errors",
    "full_item",
    "inverse_smtlib",
    "inverses",
    "refusal",
    "second_look",
    "variants",
]

#: the backward question (FOBAR's template): the hidden given is X, the answer is stated
_COSTLY_TRIES = 6   # draws that pass the cheap checks and go through the rules, per item
INVERSE_SENTENCE = ("If we know the answer to the above question is {answer}, what is the value "
                    "of unknown variable X?")


@dataclass(frozen=True)
class Options:
    """What a derive run builds (recorded with the set, so a resumed run builds the same)."""

    rng_seed: int = 0
    variants: int = 10
    tries: int = 300
    noise_levels: tuple[int, ...] = (1, 2, 3, 4)
    digit_levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    error_levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    shifts: tuple[int, ...] = (-30, -20, -10, 10, 20, 30)
    errors_per_cot: int = 1
    perturb_noise: int = 1
    inverse_per_seed: int = 3
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.__dict__.items()
                if k != "extra"} | dict(self.extra)

    def check(self) -> None:
        """Every bounded option within its bounds (:data:`OPTION_BOUNDS`), else
        :class:`ValueError` naming it: a run's size never grows without a bound."""
        for name, (lo, hi, what) in OPTION_BOUNDS.items():
            value = getattr(self, name)
            values = value if isinstance(value, tuple) else (value,)
            if isinstance(value, tuple):
                if not 1 <= len(value) <= MAX_LEVELS:
                    raise ValueError(f"{name}: give 1 to {MAX_LEVELS} levels, not {len(value)}")
                if len(set(value)) != len(value):
                    raise ValueError(f"{name}: a level is given twice")
            for v in values:
                if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi or \
                        (name == "shifts" and v == 0):
                    raise ValueError(f"{name}: {v!r} is out of bounds ({what}: a whole number "
                                     f"from {lo} to {hi}{', not 0' if name == 'shifts' else ''})")


#: option -> (least, most, what it counts): what a user may set, bounded
OPTION_BOUNDS: dict[str, tuple[int, int, str]] = {
    "variants": (1, 100, "variants per seed"),
    "tries": (1, 10_000, "draws per item"),
    "noise_levels": (1, 10, "noise sentences"),
    "digit_levels": (1, 12, "significant digits"),
    "error_levels": (1, 6, "distinct error types (there are six)"),
    "shifts": (-90, 300, "shift in percent"),
    "errors_per_cot": (1, 6, "error types per chain of thought"),
    "perturb_noise": (1, 10, "noise sentences"),
    "inverse_per_seed": (1, 20, "givens hidden per seed"),
}
MAX_LEVELS = 20


def _nothing_moves(parent: Parent, why: str) -> Refusal:
    """The refusal when no given may move: ``held`` with the reasons when givens are held
    (a clock time, a number its sentence ties it to), else ``nothing-to-vary``."""
    held = held_givens(parent)
    if held:
        return Refusal("held", f"no given may move: {held}")
    return Refusal("nothing-to-vary", why)


def refusal(transform: str, exc: Refusal, idx: int | None = None) -> Refused:
    return Refused(transform, exc.code, str(exc), idx)


def disputed(verdict: Verdict, transform: str, idx: int | None) -> Refused | None:
    """The refusal of an item whose answer the second opinion (:func:`.recheck.recheck`)
    finds wrong or cannot confirm; None when it confirms it."""
    if verdict.status == "ok":
        return None
    return Refused(transform, f"recheck-{verdict.status}",
                   f"the independent re-derivation: {verdict.why}", idx)


def second_look(parent: Parent, transform: str, d: Draft, idx: int) -> Refused | None:
    """The second opinion on a drafted item's answer, before its artifacts are built: its
    verdict reads only the item's question and answer and its parent's texts, so it is the
    verdict the built item would get (:func:`disputed`). Asked once the rules have formalized
    the draw (one they cannot formalize gets another draw, as before): a draw it refuses is
    refused for good, as the built item would be, without its four artifacts built."""
    seed = parent.seed
    verdict = recheck({"question": seed.get("question"), "solution": seed.get("solution"),
                       "answer_value": seed.get("answer_value")},
                      {"transform": transform, "question": d.seed["question"],
                       "answer_value": fmt(d.answer)})
    return disputed(verdict, transform, idx)


def _refinement_seed(parent: Parent, key: str) -> int:
    """The parent's injection seed when rules made its wrong CoT (paired comparisons), else
    one from the item key."""
    ref = parent.content_of("refinement")
    if ref and isinstance(ref.get("rng_seed"), int):
        return int(ref["rng_seed"])
    return item_rng(key, "refinement").getrandbits(48)


def full_item(parent: Parent, derived: Derived, opts: Options, *, transform: str, idx: int,
              level: int | None, tag: str, params: dict[str, Any], key: str) -> DerivedItem:
    """A derived seed with all four dimensions made by the rules (Refusal if one cannot be)."""
    seed, rule = derived.seed, derived.rule
    reasoning = reasoning_content(rule)
    notation, nota_check = notation_content(rule.smtlib, rule.value, reasoning,
                                            near=parent.rule.smtlib)
    keyinfo = keyinfo_content(seed["question"], seed["solution"], rule)
    refinement = refinement_content(seed["solution"], seed["question"], seed["answer_text"],
                                    n_errors=opts.errors_per_cot,
                                    rng_seed=_refinement_seed(parent, key))
    return DerivedItem(
        transform=transform, idx=idx, level=level, tag=tag, params=params,
        question=seed["question"], solution=seed["solution"], answer=rule.value,
        answer_text=seed["answer_text"],
        contents={"understanding": keyinfo, "reasoning": reasoning, "arithmetic": notation,
                  "refinement": refinement},
        generators={"understanding": "rule:keyinfo", "reasoning": f"rule:{rule.rule}",
                    "arithmetic": "rule:notation", "refinement": "rule:inject"},
        checks=[Check("reasoning", rule.smtlib, rule.value), nota_check],
        ops=operation_count(rule.smtlib))


def _changes(parent: Parent, derived: Derived) -> dict[str, Any]:
    by = {g.name: g for g in parent.givens}
    return {n: {"old": fmt(a), "new": fmt(b), "words": by[n].words,
                "new_words": render(by[n].style, b)} for n, (a, b) in derived.changed.items()}


def _first(build: Callable[[], DerivedItem], tries: int) -> DerivedItem | Refusal:
    last: Refusal | None = None
    for _ in range(tries):
        try:
            return build()
        except Refusal as exc:
            last = exc
    assert last is not None
    return last


class VariantDraws:
    """A parent's variant draws, each first checked for the givens' order on whole numbers.

    :func:`variants` draws every movable given at once and refuses most draws by the cheap
    checks (about 20 per item), a third of them because two givens would swap order
    (:meth:`.parent.FastChecks.order`). Here a draw stays raw (:meth:`.draws.Domain.draw_raw`)
    until it keeps the order: every given's written value is a whole number of one common
    fraction (the least common denominator of the steps, choices and fixed values), so the
    order is decided on integers, and only a draw that keeps it becomes values. What is taken
    from the item's RNG, and which draws pass, are as with :meth:`.draws.Domain.draw`; the
    refusal of a draw refused here is worked out when it is the one reported
    (:meth:`refusal`)."""

    def __init__(self, parent: Parent, doms: dict[str, Any]) -> None:
        self.parent = parent
        self.doms = list(doms.items())
        slot = {n: k for k, (n, _) in enumerate(self.doms)}
        # per given (in FastChecks' order): its written value, fixed (-1), per step of its
        # grid, or per choice; then all of them as whole numbers of 1/den
        parts: list[tuple[int, Fraction | dict[Any, Fraction]]] = []
        for g in parent.givens:
            scale = g.style.scale
            k = slot.get(g.name, -1)
            d = doms.get(g.name)
            if d is None:
                parts.append((-1, g.value * scale))
            elif d.choices:
                parts.append((k, {c: c * scale / d.scale for c in d.choices}))
            else:
                parts.append((k, d.bounds()[2] * scale))
        dens = [w.denominator for _, p in parts
                for w in (p.values() if isinstance(p, dict) else (p,))]
        den = math.lcm(*dens)
        self.slots: list[tuple[int, int | dict[Any, int]]] = [
            (k, {c: int(w * den) for c, w in p.items()} if isinstance(p, dict) else int(p * den))
            for k, p in parts]
        self.pairs = parent.checks.pairs
        # per movable given: (least step, how many, None) of its grid, or (0, how many, choices)
        self._grid: list[tuple[int, int, tuple[Fraction, ...] | None]] = [
            (0, len(d.choices), d.choices) if d.choices else
            (d.bounds()[0], d.bounds()[1] - d.bounds()[0] + 1, None) for _, d in self.doms]
        self._empty = any(n <= 0 for _, n, _ in self._grid)   # (domain() never makes one)
        self._values: list[dict[Any, Fraction]] = [{} for _ in self.doms]   # raw -> value, per given
        # the parent's own values as a draw (None: no draw gives them all): draws are compared
        # raw (a value is one raw draw's), not as tuples of Fractions
        own: list[int | Fraction] = []
        for g in parent.givens:
            d = doms.get(g.name)
            if d is None:
                continue
            r = g.value * d.scale if d.choices else g.value / d.bounds()[2]
            if not d.choices and r.denominator != 1:
                break
            own.append(r if d.choices else r.numerator)
        self.own: tuple[int | Fraction, ...] | None = tuple(own) if len(own) == len(self.doms) else None

    def draw(self, rng: random.Random) -> list[int | Fraction]:
        """Every movable given drawn, as :meth:`.draws.Domain.draw_raw` gives them: the same
        values from the same ``rng`` (``randint(lo, hi)`` is ``lo + _randbelow(hi - lo + 1)``,
        ``choice(seq)`` is ``seq[_randbelow(len(seq))]``), each domain's bounds read once per
        parent instead of once per draw (a variant draws about 24 times per item)."""
        if self._empty:         # as draw_raw raises it
            return [d.draw_raw(rng) for _, d in self.doms]
        below = rng._randbelow  # type: ignore[attr-defined]
        return [lo + below(n) if seq is None else seq[below(n)] for lo, n, seq in self._grid]

    def in_order(self, raw: list[int | Fraction]) -> bool:
        """Whether the givens keep their order for this draw (:meth:`.parent.FastChecks.order`)."""
        w: list[Any] = [m if k < 0 else m[raw[k]] if isinstance(m, dict) else raw[k] * m
                        for k, m in self.slots]
        for i, j, less in self.pairs:
            if (w[i] < w[j]) != less:
                return False
        return True

    def values(self, raw: list[int | Fraction]) -> dict[str, Fraction]:
        """The draw's values (:meth:`.draws.Domain.value`; each made once per parent)."""
        out = {}
        for (n, d), r, made in zip(self.doms, raw, self._values):
            v = made.get(r)
            if v is None:
                v = made[r] = d.value(r)
            out[n] = v
        return out

    def refusal(self, raw: list[int | Fraction]) -> Refusal:
        """The refusal of a draw :meth:`in_order` refused: the order check's own."""
        try:
            self.parent.checks.order(self.values(raw))
        except Refusal as exc:
            return exc
        raise AssertionError("a draw refused for the givens' order keeps their order")


def variants(parent: Parent, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """DynaMath: ``opts.variants`` variants, every movable given resampled (distinct draws)."""
    doms = {g.name: d for g in parent.givens if (d := domain(g)) is not None}
    if not doms:
        return [refusal("variant", _nothing_moves(parent, "no given can move (0, 1, fractions, "
                                                          "100% are kept as they are)"))]
    draws = VariantDraws(parent, doms)
    # the draws taken, raw: one raw draw per set of values, the parent's own among them
    seen: set[tuple[int | Fraction, ...]] = set() if draws.own is None else {draws.own}
    # the refusal of each draw refused so far (the checks and the rules are pure functions of
    # the parent and the draw, and a later variant's RNG draws the same values again): a
    # draw seen before is refused as before without running them again
    refused: dict[tuple[int | Fraction, ...], tuple[bool, Refusal]] = {}
    out: list[DerivedItem | Refused] = []
    for idx in range(opts.variants):
        rng = item_rng(opts.rng_seed, key, "variant", idx)
        last: Refusal = Refusal("no-draw", "every draw repeated an earlier one")
        unordered = None       # the last draw refused by the order, if it is the last refused
        made = None
        costly = 0
        for _ in range(opts.tries):
            raw = draws.draw(rng)
            if not draws.in_order(raw):   # (no draw already seen is out of order)
                unordered = raw
                continue
            tup = tuple(raw)
            if tup in seen:
                continue
            known = refused.get(tup)
            if known is not None and not known[0]:      # refused by the cheap checks
                last, unordered = known[1], None
                continue
            if known is None:
                values = draws.values(raw)
                try:
                    checked = precheck(parent, values, ordered=True)
                except Refusal as exc:
                    last, unordered = exc, None
                    refused[tup] = (False, exc)
                    continue
            if costly == _COSTLY_TRIES:
                break
            costly += 1
            if known is not None:                       # refused by the rules or a rebuild
                last, unordered = known[1], None
                continue
            try:
                drafted = draft(parent, values, checked)
                derived = formalize(parent, drafted)
                disagreed = second_look(parent, "variant", drafted, idx)
                made = disagreed or full_item(parent, derived, opts, transform="variant", idx=idx,
                                              level=None, tag=f"v{idx + 1}", key=key,
                                              params={"givens": _changes(parent, derived)})
                seen.add(tup)
                break
            except Refusal as exc:
                last, unordered = exc, None
                refused[tup] = (True, exc)
        if unordered is not None:
            last = draws.refusal(unordered)
        out.append(made if made is not None else Refused(
            "variant", last.code, f"no draw of {opts.tries} kept every value's kind and the "
                                  f"same reading; the last: {last}", idx))
        if made is None and costly == 0 and last.code != "no-draw":
            # the cheap checks fail for every draw: more variants will not do better
            out.extend(Refused("variant", last.code, out[-1].reason, i)  # type: ignore[union-attr]
                       for i in range(idx + 1, opts.variants))
            break
    return out


def changed_numbers(parent: Parent, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """SMART's "changed numbers": one given becomes another number with as many digits."""
    rng = item_rng(opts.rng_seed, key, "changed-numbers")
    order = list(parent.givens)
    rng.shuffle(order)
    last: Refusal = _nothing_moves(parent, "no given can change (only 0, 1, fractions, words)")
    refused: dict[tuple[str, Fraction], Refusal] = {}   # a value drawn again is refused as before
    for g in order:
        for _ in range(max(1, opts.tries // max(1, len(order)))):
            v = same_digits(g, rng)
            if v is None:
                break
            known = refused.get((g.name, v))
            if known is not None:
                last = known
                continue
            try:
                drafted = draft(parent, {g.name: v})
                derived = formalize(parent, drafted)
                disagreed = second_look(parent, "changed-numbers", drafted, 0)
                if disagreed is not None:
                    return [disagreed]
                return [full_item(parent, derived, opts, transform="changed-numbers", idx=0,
                                  level=None, tag="numbers", key=key,
                                  params={"givens": _changes(parent, derived)})]
            except Refusal as exc:
                last = exc
                refused[(g.name, v)] = exc
    return [refusal("changed-numbers", last)]


def counterfactuals(parent: Parent, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """Catch Me If You Can: one given shifted by each of ``opts.shifts`` percent."""
    out: list[DerivedItem | Refused] = []
    for idx, shift in enumerate(opts.shifts):
        rng = item_rng(opts.rng_seed, key, "counterfactual", shift)
        order = list(parent.givens)
        rng.shuffle(order)
        last: Refusal = Refusal("unwritable", f"no given can be shifted by {shift:+d}% and "
                                              f"written as the question writes it")
        if all(g.fixed for g in parent.givens):
            last = _nothing_moves(parent, last.args[0])
        made: DerivedItem | Refused | None = None
        candidates = [(g, v, False) for g in order if (v := shifted(g, shift)) is not None]
        candidates += [(g, v, True) for g in order if shifted(g, shift) is None
                       and (v := shifted(g, shift, rounded=True)) is not None]
        for g, v, rounded in candidates:
            try:
                drafted = draft(parent, {g.name: v})
                derived = formalize(parent, drafted)
                disagreed = second_look(parent, "counterfactual", drafted, idx)
            except Refusal as exc:
                last = exc
                continue
            if disagreed is not None:
                made = disagreed
                break
            actual = (v - g.value) / g.value * 100
            params = {"given": g.name, "shift_percent": shift, "givens": _changes(parent, derived),
                      "parent_answer": fmt(parent.answer), "rounded": rounded,
                      "actual_shift_percent": format_value(actual)}
            try:
                # the level is the shift made: a rounded value's, not the one asked for
                made = full_item(parent, derived, opts, transform="counterfactual", idx=idx,
                                 level=round(actual) if rounded else shift, tag=f"cf{shift:+d}",
                                 params=params, key=key)
                break
            except Refusal as exc:
                last = exc
        out.append(made if made is not None else refusal("counterfactual", last, idx))
    return out


def digits(parent: Parent, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """SMART's arithmetic ladder: every given rewritten to d significant digits in the
    notation question (no story: only the Arithmetic task), re-solved."""
    out: list[DerivedItem | Refused] = []
    movable = [g for g in parent.givens if g.value != 0]
    for idx, d in enumerate(opts.digit_levels):
        rng = item_rng(opts.rng_seed, key, "digits", d)
        made: DerivedItem | Refusal = Refusal("undefined", "every draw divides by zero")
        for _ in range(5):
            values = {g.name: with_digits(g, d, rng) for g in movable}
            try:
                made = _digits_item(parent, values, d, idx)
                break
            except Refusal as exc:
                made = exc
        out.append(made if isinstance(made, DerivedItem) else refusal("digits", made, idx))
    return out


def _digits_item(parent: Parent, values: dict[str, Fraction], d: int, idx: int) -> DerivedItem:
    for name, v in values.items():
        places = decimal_places(v)
        if places is None or places > NOTATION_MAX_DECIMALS:
            # "0.8589309" would be shown as 8589309/10000000: not d digits any more
            raise Refusal("too-many-decimals", f"{name} = {format_value(v)} has more than "
                                               f"{NOTATION_MAX_DECIMALS} decimal places, which the "
                                               f"notation question writes as a fraction")
    env = _recompute(parent, values)
    answer = env[parent.rule.answer_step]
    by = {g.name: g for g in parent.givens}
    smtlib = substitute_givens(parent.rule.smtlib, {n: given_term(by[n], v) for n, v in values.items()})
    content, check = notation_content(smtlib, answer, near=parent.rule.smtlib)
    params = {"digits": d, "givens": {n: {"old": fmt(by[n].value), "new": fmt(v)}
                                      for n, v in values.items()}}
    return DerivedItem(transform="digits", idx=idx, level=d, tag=f"digits{d}", params=params,
                       question=content["notation"], solution=None, answer=answer,
                       answer_text=format_value(answer), contents={"arithmetic": content},
                       generators={"arithmetic": "rule:notation"}, checks=[check],
                       ops=operation_count(smtlib))


def errors(parent: Parent, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """SMART's refinement ladder: n distinct error types (uniform draw, as the pipeline)."""
    out: list[DerivedItem | Refused] = []
    seed = parent.seed
    for idx, n in enumerate(opts.error_levels):
        rng_seed = item_rng(opts.rng_seed, key, "errors", n).getrandbits(48)
        try:
            content = refinement_content(str(seed.get("solution") or ""), seed["question"],
                                         seed["answer_text"], n_errors=n, rng_seed=rng_seed,
                                         redraw=True)
        except Refusal as exc:
            out.append(refusal("errors", exc, idx))
            continue
        out.append(DerivedItem(
            transform="errors", idx=idx, level=n, tag=f"errors{n}",
            params={"n_errors": n, "types": [e["type"] for e in content["errors"]]},
            question=seed["question"], solution=seed.get("solution"), answer=parent.answer,
            answer_text=seed["answer_text"], contents={"refinement": content},
            generators={"refinement": "rule:inject"},
            results={"refinement": {"status": "verified", "message":
                                    f"{n} error(s) injected and recorded"}},
            ops=operation_count(parent.rule.smtlib)))
    return out


_ANSWER_RE = re.compile(r"(?<![\w.])answer(?![\w.])")


def inverse_smtlib(smtlib: str, hidden: str, scale: int | Fraction, answer: Fraction) -> str:
    """The backward formalization of a rule-made ``smtlib``: the forward answer is ``answer``,
    given ``hidden`` is unknown (and positive, a quantity of the story), and ``answer`` is
    X, the number the question writes for it (``hidden`` times ``scale``: 100 for a percent).
    The verifier's uniqueness check (``answer != v`` unsat) is the inverse's uniqueness."""
    lines = smtlib.strip().splitlines()
    assert_hidden = re.compile(rf"^\(assert \(= {re.escape(hidden)} .+\)\)$")
    if sum(1 for ln in lines if assert_hidden.match(ln)) != 1:
        raise Refusal("no-given-assert", f"the formalization has no single assert of {hidden}")
    body = [_ANSWER_RE.sub("forward", ln) for ln in lines
            if not assert_hidden.match(ln) and not ln.startswith(("(set-logic", "(check-sat",
                                                                  "(get-value"))]
    target = hidden if Fraction(scale) == 1 else f"(* {hidden} {fraction_to_smt(Fraction(scale))})"
    answer_term = fraction_to_smt(answer)
    return "\n".join(["(set-logic QF_NRA)", *body, "(declare-const answer Real)",
                      f"(assert (= forward {answer_term}))", f"(assert (> {hidden} 0))",
                      f"(assert (= answer {target}))", "(check-sat)", "(get-value (answer))"]) + "\n"


#: the question asks for its answer rounded ("(Round to the nearest integer)", "rounded to the
#: nearest integer", "round all his prices to the nearest dollar"): not "well-rounded", "ground"
_ROUNDED = re.compile(r"\bround(?:ed|ing)?\b[^.?!]{0,40}?\bnearest\b|\bround(?:ed)?\s+(?:it\s+)?to\b",
                      re.IGNORECASE)


def _hide(g: Given) -> str:
    s = g.style
    return f"{s.prefix}X{s.suffix}"


def inverses(parent: Parent, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """Backward problems: the forward answer stated, one given hidden as X (FOBAR's
    template); Z3 solves X on the same formalization and the verifier checks that it is the
    only solution (an item whose X is not unique is refused at the check)."""
    question = str(parent.seed["question"])
    if re.search(r"(?<![\w])X(?![\w])", question):
        return [Refused("inverse", "x-in-question", "the question already writes an X")]
    if _ROUNDED.search(question):
        # 1017 "(Round to the nearest integer)": 120 + 3 x 6 = 138 hides $120, yet any price
        # from $119.57 to $120.43 rounds to 138; the formalization does not round, the words do
        return [Refused("inverse", "rounded-answer", "the question asks for its answer rounded: "
                                                     "other values of X round to the same answer")]
    out: list[DerivedItem | Refused] = []
    rng = item_rng(opts.rng_seed, key, "inverse")
    order = [g for g in parent.givens if g.value > 0 and not g.fixed]   # no "Xrd floor"
    rng.shuffle(order)
    for idx, g in enumerate(order[:opts.inverse_per_seed]):
        written = g.value * g.style.scale
        hidden = _hide(g)
        if question[g.end:g.end + 1].isalpha() and not g.style.suffix:
            hidden += " "                  # "20kb per second": "X kb", not "Xkb"
        text = (question[:g.start] + hidden + question[g.end:]).rstrip() + " " + \
            INVERSE_SENTENCE.format(answer=format_value(parent.answer))
        try:
            smtlib = inverse_smtlib(parent.rule.smtlib, g.name, g.style.scale, parent.answer)
        except Refusal as exc:
            out.append(refusal("inverse", exc, idx))
            continue
        content = {"smtlib": smtlib, "rule": "inverse", "hidden": g.name,
                   "forward_smtlib": parent.rule.smtlib, "givens": [
                       x for x in parent.content.get("givens", []) if x.get("name") != g.name]}
        out.append(DerivedItem(
            transform="inverse", idx=idx, level=None, tag=f"inv-{g.name}",
            params={"hidden": g.name, "hidden_words": g.words, "hidden_value": fmt(g.value),
                    "scale": g.style.scale, "parent_answer": fmt(parent.answer),
                    "answer_written": format_value(written)},
            question=text, solution=None, answer=written, answer_text=format_value(written),
            contents={"reasoning": content}, generators={"reasoning": "rule:inverse"},
            checks=[Check("reasoning", smtlib, written)], ops=operation_count(parent.rule.smtlib)))
    return out
