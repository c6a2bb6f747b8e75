"""The derive fast path equals the plain definitions, on real GSM8K seeds.

A parent's cheap checks are compiled once (:class:`~qcstation.core.derive.parent.FastChecks`),
its worked solution is read once and re-rendered per set of values
(:class:`~qcstation.core.derive.solution.SolutionTemplate`), and a notation question just
rendered is not rendered a second time to be compared with itself. Each is compared here
with the slow definition it replaces -- the same values or the same first refusal, word for
word -- over many draws on the first 150 GSM8K test seeds, and whole variant sets built both
ways are compared item by item.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.construct.make import notation
from qcstation.core.construct.check.checks import notation_smtlib
from qcstation.core.construct.pipeline import Pipeline
from qcstation.core.derive import parent as parent_mod
from qcstation.core.derive import transforms
from qcstation.core.derive.bindings import Refusal, question_numbers
from qcstation.core.derive.draws import domain, item_rng, same_digits, shifted
from qcstation.core.derive.parent import load_parent, precheck, slow_precheck, with_values
from qcstation.core.derive.rebuild import notation_content
from qcstation.core.derive.runner import build_job
from qcstation.core.derive.store import parent_rows
from qcstation.core.derive.solution import Quantities, slow_rewrite_solution
from qcstation.core.ingest.importer import import_file
from tests.conftest import dataset

N_SEEDS = 150


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("fast")
    src = tmp / "part.jsonl"
    src.write_text("\n".join(dataset("gsm8k/test.jsonl").read_text().splitlines()[:N_SEEDS]) + "\n")
    db = tmp / "fast.db"
    with Store(db) as store:
        import_file(store, src, "gsm8k", source="gsm8k")
    with Pipeline(db, load_config(None, env={}), actor="t") as pipe:
        pipe.generate()
    with Store(db) as store:
        ids = [int(r["id"]) for r in store.query("SELECT id FROM seeds ORDER BY id")]
        return parent_rows(store, [{"parent_id": i} for i in ids])


@pytest.fixture(scope="module")
def parents(rows: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[Any]:
    out = []
    for seed, arts in rows:
        try:
            out.append(load_parent(seed, arts))
        except Refusal:
            continue
    assert len(out) >= 40, "the rules no longer make enough GSM8K parents to compare on"
    return out


def _outcome(fn: Any, *args: Any) -> tuple[Any, ...]:
    try:
        return ("ok", fn(*args))
    except Refusal as exc:
        return ("refused", exc.code, str(exc))


def _draws(parent: Any, rng: random.Random, n: int) -> list[dict[str, Fraction]]:
    """Variant draws, same-digit changes and percentage shifts: what the transforms try."""
    doms = {g.name: d for g in parent.givens if (d := domain(g)) is not None}
    out = [{k: d.draw(rng) for k, d in doms.items()} for _ in range(n)] if doms else []
    for g in parent.givens:
        if (v := same_digits(g, rng)) is not None:
            out.append({g.name: v})
        for shift in (-30, -10, 20):
            if (v := shifted(g, shift, rounded=True)) is not None:
                out.append({g.name: v})
    return out


def test_compiled_checks_equal_the_plain_ones(parents: list[Any]) -> None:
    rng = random.Random(16)
    kinds: set[str] = set()
    compared = 0
    for parent in parents:
        for values in _draws(parent, rng, 40):
            fast = _outcome(precheck, parent, values)
            slow = _outcome(slow_precheck, parent, values)
            assert fast == slow, (parent.seed["question"], values)
            kinds.add(fast[1] if fast[0] == "refused" else "ok")
            compared += 1
    assert compared > 2000
    assert {"ok", "order", "kind", "collision"} <= kinds      # every branch was exercised


def test_a_cheap_refusal_writes_its_reason_only_when_read(parents: list[Any],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Most variant draws are refused by the cheap checks and only the last one's reason is
    reported: a refusal of the kind and collision checks formats no value until its reason is
    read, and then reads as the plain check's refusal, word for word."""
    written: list[Fraction] = []
    plain_format = parent_mod.format_value

    def counting(value: Fraction) -> str:
        written.append(value)
        return plain_format(value)

    rng = random.Random(26)
    refused = 0
    for parent in parents:
        for values in _draws(parent, rng, 20):
            try:
                parent.checks.order(values)
            except Refusal:
                continue
            monkeypatch.setattr(parent_mod, "format_value", counting)
            try:
                precheck(parent, values, ordered=True)
            except Refusal as exc:
                unread = list(written)
                if exc.code not in ("kind", "collision"):
                    continue
                assert not unread, "a refusal's reason was written before it was read"
                reason = str(exc)
                assert written or "becomes 1" in reason       # written when read
                monkeypatch.setattr(parent_mod, "format_value", plain_format)
                assert ("refused", exc.code, reason) == _outcome(slow_precheck, parent, values)
                refused += 1
            finally:
                monkeypatch.setattr(parent_mod, "format_value", plain_format)
                written.clear()
    assert refused > 200


def test_order_on_whole_numbers_equals_the_plain_order(parents: list[Any]) -> None:
    """A variant draw kept raw and checked for the givens' order on whole numbers
    (:class:`~qcstation.core.derive.transforms.VariantDraws`) is kept or refused as the plain
    order check keeps or refuses its values, with the same refusal; its values are the ones
    :meth:`Domain.draw` gives from the same RNG."""
    from qcstation.core.derive.parent import check_order

    outcomes: set[str] = set()
    for parent in parents:
        doms = {g.name: d for g in parent.givens if (d := domain(g)) is not None}
        if not doms:
            continue
        draws = transforms.VariantDraws(parent, doms)
        rng, plain = item_rng("order", parent.id), item_rng("order", parent.id)
        for _ in range(60):
            raw = draws.draw(rng)
            values = draws.values(raw)
            assert values == {n: d.draw(plain) for n, d in doms.items()}
            slow = _outcome(check_order, parent, values)
            assert draws.in_order(raw) == (slow[0] == "ok"), (parent.seed["question"], values)
            if slow[0] != "ok":
                exc = draws.refusal(raw)
                assert (exc.code, str(exc)) == slow[1:]
            outcomes.add(slow[0])
    assert outcomes == {"ok", "refused"}


class _OwnBelow(random.Random):
    """A Random whose ``_randbelow`` is not ``getrandbits``' (it overrides ``random``)."""

    def random(self) -> float:
        return super().random()


def test_draws_take_what_domain_draw_takes(parents: list[Any]) -> None:
    """A variant draw takes from the RNG what :meth:`Domain.draw` takes, the next draw after
    it too: ``getrandbits`` inline for a plain Random, its own ``_randbelow`` for another."""
    for parent in parents[:40]:
        doms = {g.name: d for g in parent.givens if (d := domain(g)) is not None}
        if not doms:
            continue
        draws = transforms.VariantDraws(parent, doms)
        for make in (random.Random, _OwnBelow):
            rng, plain = make(parent.id), make(parent.id)
            for _ in range(30):
                assert draws.values(draws.draw(rng)) == {n: d.draw(plain) for n, d in doms.items()}
            assert rng.random() == plain.random()


def test_solution_template_equals_reading_it_afresh(parents: list[Any]) -> None:
    rng = random.Random(8)
    seen: set[str] = set()
    rendered = 0
    for parent in parents:
        names = frozenset(g.name for g in parent.givens)
        sol = str(parent.seed.get("solution") or "")
        for givens in _draws(parent, rng, 15):
            pre = _outcome(slow_precheck, parent, givens)
            if pre[0] != "ok":
                continue
            values = pre[1]
            q = Quantities(parent.old, values, names, parent.constants)
            fast = _outcome(parent.solution_template.render, values)
            slow = _outcome(slow_rewrite_solution, sol, parent.rule.steps, q)
            assert fast == slow, (sol, values)
            if fast[0] == "ok":     # digits rewritten, words kept: the parent's words are the item's
                assert [(n.text, n.value) for n in question_numbers(fast[1]) if n.text[:1].isalpha()] \
                    == [(n.text, n.value) for n in parent.solution_words]
            seen.add(fast[1] if fast[0] == "refused" else "ok")
            rendered += fast[0] == "ok"
    assert rendered > 300
    assert "ok" in seen and len(seen) >= 3      # rewritten texts and several refusals


def test_notation_check_is_the_one_verification_runs(parents: list[Any]) -> None:
    checked = 0
    for parent in parents[:60]:
        rng = item_rng("notation", parent.id)
        for givens in _draws(parent, rng, 6):
            try:
                derived = with_values(parent, givens)
            except Refusal:
                continue
            content, check = notation_content(derived.rule.smtlib, derived.rule.value)
            own, problem = notation_smtlib(content)
            assert problem is None and check.smtlib == own
            checked += 1
    assert checked > 50


def test_reading_near_the_parent_equals_reading_whole(parents: list[Any]) -> None:
    """An item's formalization read as its parent's with the givens' lines read again
    (:func:`notation.read_source` ``near=``) is the formalization read whole: variants,
    changed numbers and counterfactuals (the rules' SMT-LIB of the derived seed) and the
    digits ladder (the parent's SMT-LIB with new given terms)."""
    from qcstation.core.derive.draws import with_digits
    from qcstation.core.derive.rebuild import given_term, substitute_givens

    near = total = 0
    for parent in parents:
        rng = item_rng("near", parent.id)
        texts = []
        for givens in _draws(parent, rng, 8):
            try:
                texts.append(with_values(parent, givens).rule.smtlib)
            except Refusal:
                continue
        by = {g.name: g for g in parent.givens}
        for d in (1, 3, 7):
            values = {g.name: with_digits(g, d, rng) for g in parent.givens if g.value != 0}
            texts.append(substitute_givens(parent.rule.smtlib,
                                           {n: given_term(by[n], v) for n, v in values.items()}))
        for text in texts:
            notation._READ.clear()
            whole = _outcome_any(notation._read_source, text)
            got = _outcome_any(notation.read_source, text, parent.rule.smtlib)
            assert got == whole, text
            near += notation._read_near(text, parent.rule.smtlib) is not None
            total += 1
    assert near > 500 and near > 0.9 * total, (near, total)   # the near reading did the work


def _outcome_any(fn: Any, text: str, near: str | None = None) -> tuple[Any, ...]:
    try:
        return ("ok", fn(text) if near is None else fn(text, near=near))
    except Exception as exc:  # noqa: BLE001 -- the same error either way
        return ("error", type(exc).__name__, str(exc))


def test_variant_sets_built_both_ways_are_the_same(rows: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    def dump(items: list[Any], refused: list[Any], reason: str | None) -> str:
        return json.dumps([[i.__dict__ for i in items], [r.__dict__ for r in refused], reason],
                          default=str, sort_keys=True)

    sample = rows[:60]
    opts = transforms.Options(variants=6)
    fast = [dump(*build_job("variants", opts, "eq", seed, arts, None)) for seed, arts in sample]

    class Slow:
        def __init__(self, parent: Any) -> None:
            self.parent = parent

        def render(self, values: dict[str, Fraction]) -> str:
            p = self.parent
            q = Quantities(p.old, values, frozenset(g.name for g in p.givens), p.constants)
            return slow_rewrite_solution(str(p.seed.get("solution") or ""), p.rule.steps, q)

    def slow_notation(smtlib: str, expected: Fraction, source: Any = None, near: Any = None) -> Any:
        notation._READ.clear()                 # read whole, not from the parent's reading
        content, check = original(smtlib, expected, source)
        own, problem = notation_smtlib(content)
        assert problem is None
        check.smtlib = own
        return content, check

    original = notation_content
    monkeypatch.setattr(transforms, "precheck", slow_precheck)
    # every draw goes to the plain checks, the order's too (not decided on whole numbers first)
    monkeypatch.setattr(transforms.VariantDraws, "in_order", lambda self, raw: True)
    monkeypatch.setattr(parent_mod, "precheck", slow_precheck)
    monkeypatch.setattr(parent_mod.Parent, "solution_template", property(lambda p: Slow(p)))
    monkeypatch.setattr(transforms, "notation_content", slow_notation)
    slow = [dump(*build_job("variants", opts, "eq", seed, arts, None)) for seed, arts in sample]
    assert fast == slow
    assert sum('"transform": "variant"' in f for f in fast) >= 20


def test_a_refused_draw_is_not_formalized_again(rows: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A later variant's RNG draws values an earlier draw was refused for: the refusal is
    taken again without running the rules again (each derived text is formalized once per
    parent; before, one parent formalized one text 21 times)."""
    from collections import Counter

    calls: Counter[tuple[Any, ...]] = Counter()
    original = parent_mod.rule_of

    def counted(seed: Any, *kept: Any) -> Any:
        calls[(seed.get("question"), seed.get("solution"))] += 1
        return original(seed, *kept)

    monkeypatch.setattr(parent_mod, "rule_of", counted)
    made = 0
    for seed, arts in rows[:60]:
        calls.clear()
        items, _, _ = build_job("variants", transforms.Options(variants=10), "once", seed, arts, None)
        made += len(items)
        assert not calls or max(calls.values()) == 1, calls.most_common(1)
    assert made >= 100


def test_number_line_read_without_parsing_equals_parsed() -> None:
    """A number definition's value read directly (:func:`notation_literals.literal_line_term`,
    what :func:`notation._read_near` reads each differing given line with) is the term the
    parsed line gives; anything it does not read as a number is left to the parser (None)."""
    from qcstation.common.errors import VerificationError
    from qcstation.core.construct.make.notation_literals import literal_line_term
    from qcstation.core.verify.smtlib import parse_script

    toks = ["0", "12", "012", "2.5", "0.75", "10.", "1.2.3", ".5", "1e5", "x", "-3", "3/4", "12a"]
    cands = set(toks)
    for a in toks:
        for op in "-/*+":
            cands.add(f"({op} {a})")
            for b in toks[:8]:
                cands |= {f"({op} {a} {b})", f"({op}  {a} {b})", f"({op} {a}\t{b})", f"({op} {a} {b} 3)"}
    read = 0
    for t in sorted(cands):
        line = f"(assert (= x {t}))"
        if not notation._NUMBER_DEF.match(line):
            continue
        fast = literal_line_term(t)
        try:
            node: Any = parse_script(line).commands[0].args[0]
            parsed: Any = notation._term(node.items[2], {})
        except (VerificationError, notation.NotationError):
            parsed = None
        if fast is not None:
            read += 1
            assert fast == parsed, t
    assert read > 100
    assert literal_line_term("(/ 3 2)") == notation.Num(Fraction(3, 2), "")
