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

import dataclasses
import math
import random
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from qcstation.core.construct.make.rules import fraction_to_smt
from qcstation.core.derive.bindings import Given, Refusal, kept
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
    verdict the built item would get (:func:`disputed`). Asked before the rules formalize the
    draw: a draw it refuses is refused for good, as the built item would be, without being
    formalized or its four artifacts built (see :class:`_VariantRun` for what this order
    changes: a draw the rules would also have refused no longer gets another draw)."""
    seed = parent.seed
    verdict = recheck({"question": seed.get("question"), "solution": seed.get("solution"),
                       "answer_value": seed.get("answer_value")},
                      {"transform": transform, "question": d.seed["question"],
                       "answer_value": fmt(d.answer)})
    return disputed(verdict, transform, idx)


def _refinement_seed(parent: Parent, key: str) -> int:
    """The parent's injection seed when rules made its wrong CoT (paired comparisons), else
    one from the item key."""
    own = parent.once("refinement_seed", _own_refinement_seed)
    return own if own is not None else item_rng(key, "refinement").getrandbits(48)


def _own_refinement_seed(parent: Parent) -> int | None:
    """The injection seed of the parent's rule-made wrong CoT, if it has one (its content read
    once per parent: :meth:`.parent.Parent.once`)."""
    ref = parent.content_of("refinement")
    if ref and isinstance(ref.get("rng_seed"), int):
        return int(ref["rng_seed"])
    return None


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
        self._bits = [(lo, n, seq, n.bit_length()) for lo, n, seq in self._grid]
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
        if type(rng) is not random.Random:      # a _randbelow of its own
            below = rng._randbelow  # type: ignore[attr-defined]
            return [lo + below(n) if seq is None else seq[below(n)] for lo, n, seq in self._grid]
        # Random._randbelow_with_getrandbits inlined (the same bits taken, the same draws):
        # k = n.bit_length() bits until one is below n
        bits = rng.getrandbits
        out: list[int | Fraction] = []
        for lo, n, seq, k in self._bits:
            r = bits(k)
            while r >= n:
                r = bits(k)
            out.append(lo + r if seq is None else seq[r])
        return out

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
            return kept(exc)
        raise AssertionError("a draw refused for the givens' order keeps their order")


def variants(parent: Parent, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """DynaMath: ``opts.variants`` variants, every movable given resampled (distinct draws)."""
    doms = {g.name: d for g in parent.givens if (d := domain(g)) is not None}
    if not doms:
        return [refusal("variant", _nothing_moves(parent, "no given can move (0, 1, fractions, "
                                                          "100% are kept as they are)"))]
    return _VariantRun(parent, VariantDraws(parent, doms), opts, key).run()


class _VariantRun:
    """One parent's variants (:func:`variants`), each draw's steps worked out once.

    The checks, the rules, the second opinion and the build are pure functions of the parent
    and the draw (a later variant's RNG draws the same values again), so what each gave for a
    draw is kept (``tup`` -> result) and a draw met again is decided as before without running
    them again.

    Per variant, the drawn values go through the cheap checks, then up to ``_COSTLY_TRIES``
    draws through the costly steps: drafting, the second opinion (:func:`second_look`), the
    rules (:func:`.parent.formalize`) and the build (:func:`full_item`); a draw refused by a
    costly step gets another draw, one the second opinion refuses refuses the variant. The
    second opinion is asked *before* the rules (it reads only the drafted texts): a draw it
    refuses is never formalized. Asked after them (as until 2026-11-30, ``rules_first``), a
    draw the rules also refuse got another draw instead; so the two orders give the same
    outcome for every variant but where a draw is refused by both, and there the new order
    refuses the variant where the old one might have made an item of a later draw. A variant
    made is the old order's own item, never a new one: the outcomes of later variants
    depend on the draws taken before (a draw taken is not drawn again), so once a variant
    ended on a draw the rules were not asked about (``doubt``), a variant about to be made
    is checked against the old order replayed (:meth:`_old_at`, from the kept results: it
    runs the rules only on the draws the new order did not formalize), and the old order's
    outcome is the one given; the draws taken are then the old order's again."""

    def __init__(self, parent: Parent, draws: VariantDraws, opts: Options, key: str) -> None:
        self.parent, self.draws, self.opts, self.key = parent, draws, opts, key
        self.own: set[tuple[int | Fraction, ...]] = set() if draws.own is None else {draws.own}
        self.cheap: dict[tuple[Any, ...], Refusal | tuple[dict[str, Fraction], dict[str, Fraction]]] = {}
        self.drafts: dict[tuple[Any, ...], Draft | Refusal] = {}
        self.looks: dict[tuple[Any, ...], Refused | None] = {}
        self.formal: dict[tuple[Any, ...], Derived | Refusal] = {}
        self.built: dict[tuple[Any, ...], DerivedItem | Refusal] = {}
        # the old order's replay: its draws taken, its outcomes so far, its early end
        self._old_seen = set(self.own)
        self._old_out: list[DerivedItem | Refused] = []
        self._old_end: Refused | None = None

    # -- each step once per draw ---------------------------------------------------------------

    def _values(self, tup: tuple[Any, ...], raw: list[int | Fraction]
                ) -> Refusal | tuple[dict[str, Fraction], dict[str, Fraction]]:
        got = self.cheap.get(tup)
        if got is None:
            values = self.draws.values(raw)
            try:
                got = (values, precheck(self.parent, values, ordered=True))
            except Refusal as exc:
                got = kept(exc)
            self.cheap[tup] = got
        return got

    def _draft(self, tup: tuple[Any, ...], values: dict[str, Fraction],
               checked: dict[str, Fraction]) -> Draft | Refusal:
        got = self.drafts.get(tup)
        if got is None:
            try:
                got = draft(self.parent, values, checked)
            except Refusal as exc:
                got = kept(exc)
            self.drafts[tup] = got
        return got

    def _look(self, tup: tuple[Any, ...], d: Draft, idx: int) -> Refused | None:
        if tup not in self.looks:
            self.looks[tup] = second_look(self.parent, "variant", d, idx)
        got = self.looks[tup]
        return got if got is None or got.idx == idx else dataclasses.replace(got, idx=idx)

    def _formal(self, tup: tuple[Any, ...], d: Draft) -> Derived | Refusal:
        got = self.formal.get(tup)
        if got is None:
            try:
                got = formalize(self.parent, d)
            except Refusal as exc:
                got = kept(exc)
            self.formal[tup] = got
        return got

    def _build(self, tup: tuple[Any, ...], derived: Derived, idx: int) -> DerivedItem | Refusal:
        got = self.built.get(tup)
        if got is None or (isinstance(got, DerivedItem) and got.idx != idx):
            try:
                got = full_item(self.parent, derived, self.opts, transform="variant", idx=idx,
                                level=None, tag=f"v{idx + 1}", key=self.key,
                                params={"givens": _changes(self.parent, derived)})
            except Refusal as exc:
                got = kept(exc)
            self.built[tup] = got
        return got

    def _costly(self, tup: tuple[Any, ...], values: dict[str, Fraction], checked: dict[str, Fraction],
                idx: int, rules_first: bool) -> DerivedItem | Refused | Refusal:
        """The draw's end: an item, the second opinion's refusal, or why another draw is taken."""
        d = self._draft(tup, values, checked)
        if isinstance(d, Refusal):
            return d
        if not rules_first:
            look = self._look(tup, d, idx)
            if look is not None:
                return look
        derived = self._formal(tup, d)
        if isinstance(derived, Refusal):
            return derived
        if rules_first:
            look = self._look(tup, d, idx)
            if look is not None:
                return look
        return self._build(tup, derived, idx)

    # -- one variant ---------------------------------------------------------------------------

    def _attempt(self, idx: int, seen: set[tuple[Any, ...]], rules_first: bool
                 ) -> tuple[DerivedItem | Refused, tuple[Any, ...] | None, bool]:
        """Variant ``idx`` given the draws taken before (``seen``, updated): its outcome, the
        draw it ended on (None: refused, no draw), and whether every later variant is refused
        too (no draw passed the cheap checks: more variants will not do better)."""
        opts, draws = self.opts, self.draws
        rng = item_rng(opts.rng_seed, self.key, "variant", idx)
        last: Refusal = Refusal("no-draw", "every draw repeated an earlier one")
        unordered = None       # the last draw refused by the order, if it is the last refused
        costly = 0
        for _ in range(opts.tries):
            raw = draws.draw(rng)
            if not draws.in_order(raw):   # (no draw already seen is out of order)
                unordered = raw
                continue
            tup = tuple(raw)
            if tup in seen:
                continue
            cheap = self._values(tup, raw)
            if isinstance(cheap, Refusal):              # refused by the cheap checks
                last, unordered = cheap, None
                continue
            if costly == _COSTLY_TRIES:
                break
            costly += 1
            end = self._costly(tup, cheap[0], cheap[1], idx, rules_first)
            if isinstance(end, Refusal):                # refused by the rules or a rebuild
                last, unordered = end, None
                continue
            seen.add(tup)
            return end, tup, False
        if unordered is not None:
            last = draws.refusal(unordered)
        refused = Refused("variant", last.code, f"no draw of {opts.tries} kept every value's kind "
                                                f"and the same reading; the last: {last}", idx)
        return refused, None, costly == 0 and last.code != "no-draw"

    def _old_at(self, idx: int) -> DerivedItem | Refused:
        """Variant ``idx`` as the old order (rules first) makes it, replayed from variant 0
        on (each draw's steps kept: only what the new order did not run is run)."""
        while len(self._old_out) <= idx:
            i = len(self._old_out)
            if self._old_end is not None:
                self._old_out.append(dataclasses.replace(self._old_end, idx=i))
                continue
            made, _, stop = self._attempt(i, self._old_seen, rules_first=True)
            self._old_out.append(made)
            if stop:
                self._old_end = made  # type: ignore[assignment]
        return self._old_out[idx]

    def run(self) -> list[DerivedItem | Refused]:
        seen = set(self.own)
        doubt = False       # the draws taken may differ from the old order's
        out: list[DerivedItem | Refused] = []
        for idx in range(self.opts.variants):
            made, tup, stop = self._attempt(idx, seen, rules_first=False)
            if isinstance(made, Refused) and tup is not None and \
                    not isinstance(self.formal.get(tup), Derived):
                doubt = True    # refused on a draw the rules may refuse too (or did)
            elif isinstance(made, DerivedItem) and doubt:
                made = self._old_at(idx)
                if self._old_end is None:       # the old order's draws taken, from here on
                    seen, doubt = set(self._old_seen), False
            out.append(made)
            if stop:
                assert isinstance(made, Refused)
                out.extend(Refused("variant", made.code, made.reason, i)
                           for i in range(idx + 1, self.opts.variants))
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
                disagreed = second_look(parent, "changed-numbers", drafted, 0)
                if disagreed is not None:        # (before the rules: see _VariantRun)
                    return [disagreed]
                derived = formalize(parent, drafted)
                return [full_item(parent, derived, opts, transform="changed-numbers", idx=0,
                                  level=None, tag="numbers", key=key,
                                  params={"givens": _changes(parent, derived)})]
            except Refusal as exc:
                last = refused[(g.name, v)] = kept(exc)
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
            except Refusal as exc:
                last = kept(exc)
                continue
            disagreed = second_look(parent, "counterfactual", drafted, idx)
            if disagreed is not None:            # (before the rules: see _VariantRun)
                made = disagreed
                break
            try:
                derived = formalize(parent, drafted)
            except Refusal as exc:
                last = kept(exc)
                continue
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
                last = kept(exc)
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
