"""The one place the derive stage calls the construction rules (``qcstation.core.construct``).

A derived seed (question, worked solution, answer) is given to the *same* rules as an
imported seed, so its four artifacts are made exactly as a seed's are:

* Reasoning: :func:`rules.rule_for_seed` (the calculator-annotation rule), content as the
  generate pipeline stores it; checked by Z3 (a :class:`~.model.Check`).
* Arithmetic: :func:`notation.render_notation` of that SMT-LIB; checked by Z3 on the SMT-LIB
  rebuilt from the notation question's own text, as the pipeline does.
* Understanding: :func:`keyinfo_draft.keyinfo_from_annotations`, checked by ``validate_keyinfo``.
* Refinement: :func:`inject.inject_errors` on the worked solution (the configured number of
  error types, uniform draw, ``redraw=False`` as in the pipeline), with the pipeline's checks.

Plus the SMT-LIB text helpers the transformations share: the given asserts of a rule-made
formalization (:func:`given_terms`), replacing them (:func:`substitute_givens`) and the
formalization with them blanked (:func:`skeleton`), which must be the same for a parent and
every item derived from it by new values; and two formalizations compared up to the names of
their constants (:func:`canonical`, :func:`renaming`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from qcstation.common.errors import GenerationError
from qcstation.core.construct.check.checks import check_refinement
from qcstation.core.construct.make.inject import ERROR_TYPES, clean_cot, inject_errors
from qcstation.core.construct.make.keyinfo import validate_keyinfo
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.notation import MAX_DECIMALS as NOTATION_MAX_DECIMALS
from qcstation.core.construct.make.notation import (
    NotationError,
    notation_to_smtlib,
    read_source,
    render_notation,
)
from qcstation.core.construct.make.rules import (
    RuleError,
    RuleResult,
    fraction_to_smt,
    rule_for_seed,
)
from qcstation.core.construct.make.rules.stored import load_rule, rule_key
from qcstation.core.derive.bindings import Given, Refusal
from qcstation.core.derive.model import Check

__all__ = [
    "GIVEN_ASSERT_RE",
    "canonical",
    "declared",
    "NOTATION_MAX_DECIMALS",
    "KEYINFO_RULES",
    "given_term",
    "given_terms",
    "keyinfo_content",
    "notation_content",
    "operation_count",
    "reasoning_content",
    "refinement_content",
    "renaming",
    "rule_of",
    "skeleton",
    "substitute_givens",
]

GIVEN_ASSERT_RE = re.compile(r"^\(assert \(= (?P<name>[A-Za-z_][\w]*) (?P<term>.+)\)\)$", re.MULTILINE)
_STEP_ASSERT_RE = re.compile(r"^\(assert \(= (?P<name>s\d+\w*) (?P<term>.+)\)\)$", re.MULTILINE)
#: rules whose steps key information is drafted from (as in the pipeline)
KEYINFO_RULES = ("gsm8k-calculator", "inline-arithmetic")


def rule_of(seed: Mapping[str, Any], kept: Any = None) -> RuleResult:
    """The calculator rule's formalization of a (derived) seed; :class:`Refusal` when no rule
    applies or it is not the calculator rule (key information needs its steps). ``kept``: the
    rules' result stored with the seed, (key, text) as generate keeps it: used instead of running
    the rules when its key is today's (the same rules, the same fields of the seed: the rules
    are deterministic) and it reads back; anything else is ignored and the rules run."""
    rule = _kept(seed, kept)
    if rule is None:
        try:
            rule = rule_for_seed(seed)
        except (RuleError, GenerationError) as exc:
            raise Refusal("no-rule", f"the rules do not formalize it: {exc}") from None
    if rule.rule not in KEYINFO_RULES:
        # an equation seed (ASDiv, SVAMP) is formalized, from its equation: "no-rule" told the
        # user the rules had failed on 398 of 433 verified ASDiv parents
        if rule.rule == "equation":
            raise Refusal("no-worked-solution", "made by the equation rule from the seed's "
                          "equation; derive rebuilds a worked solution, which this seed has not")
        raise Refusal("no-rule", f"made by the {rule.rule} rule, not from a worked solution "
                                 "computed step by step, which derive rebuilds")
    return rule


def _kept(seed: Mapping[str, Any], kept: Any) -> RuleResult | None:
    if not isinstance(kept, tuple) or len(kept) != 2 or kept[0] != rule_key(seed):
        return None
    return load_rule(kept[1])


def reasoning_content(rule: RuleResult) -> dict[str, Any]:
    """The Reasoning artifact's content, as the generate pipeline stores a rule's output."""
    content: dict[str, Any] = {"smtlib": rule.smtlib, "rule": rule.rule, "notes": list(rule.notes),
                               "links": list(rule.links), "givens": list(rule.givens)}
    if rule.uncertain:
        content["uncertain"] = list(rule.uncertain)
    for key in ("bound", "factors"):  # the references work's additions, when the rule has them
        if getattr(rule, key, None) is not None:
            content[key] = getattr(rule, key)
    return content


def notation_content(smtlib: str, expected: Fraction, source: dict[str, Any] | None = None,
                     *, near: str | None = None) -> tuple[dict[str, Any], Check]:
    """The Arithmetic artifact rendered from ``smtlib`` and its Z3 check (the SMT-LIB rebuilt
    from the notation question's own text must give ``expected``). ``near``: the parent's
    formalization, which ``smtlib`` may differ from in the givens' values only: only those
    are read again (:func:`notation.read_source`; the same reading, which the renderer and the
    make-time audits then share)."""
    try:
        if near is not None:
            read_source(smtlib, near=near)
        q = render_notation(smtlib)
    except (NotationError, GenerationError, ValueError) as exc:
        raise Refusal("no-notation", f"the notation question cannot be rendered: {exc}") from None
    if q.value != expected:
        raise Refusal("notation-value", f"the notation question's value {q.value} is not the "
                                        f"answer {expected}")
    content = {"notation": q.text, "variables": {k: str(v) for k, v in q.variables.items()},
               "target": q.target, "smtlib": smtlib}
    for key in ("links", "uncertain"):
        if source and source.get(key):
            content[key] = source[key]
    # What verification checks with Z3 is checks.notation_smtlib(content). For a question
    # just rendered from ``smtlib`` (no rephrasing, no edit) that re-renders the same SMT-LIB
    # and compares the text with itself, which cannot fail (the renderer is deterministic),
    # and then reads it back: only the reading back is left to do (test_derive_speed pins
    # that the two agree).
    try:
        own = notation_to_smtlib(q)
    except (NotationError, GenerationError, ValueError) as exc:
        raise Refusal("no-notation", f"the notation question cannot be checked: {exc}") from None
    return content, Check("arithmetic", own, expected)


def keyinfo_content(question: str, solution: str, rule: RuleResult) -> dict[str, Any]:
    """Key information drafted from the worked solution, checked as the pipeline does."""
    try:
        fields = keyinfo_from_annotations(question, solution, rule.steps, givens=rule.givens)
    except GenerationError as exc:
        raise Refusal("no-keyinfo", f"key information cannot be drafted: {exc}") from None
    problems = validate_keyinfo(fields, question)
    if problems:
        raise Refusal("keyinfo-invalid", "key information fails its checks: " + "; ".join(problems))
    return fields


def refinement_content(solution: str, question: str, answer_text: str, *, n_errors: int,
                       rng_seed: int, types: Iterable[str] | None = None,
                       redraw: bool = False) -> dict[str, Any]:
    """A wrong chain of thought with ``n_errors`` distinct error types (uniform draw, as the
    pipeline; ``redraw`` replaces a drawn type that cannot apply, for the refinement ladder
    where the count matters), with the pipeline's checks."""
    try:
        injected = inject_errors(solution, n_errors, rng_seed=rng_seed, question=question,
                                 answer=answer_text, redraw=redraw,
                                 types=list(types) if types is not None else None)
    except GenerationError as exc:
        raise Refusal("no-injection", f"errors cannot be injected: {exc}") from None
    content = {
        "gt_cot": "\n".join(clean_cot(solution, answer=answer_text)),
        "w_cot": injected.text,
        "errors": [e.to_dict() for e in injected.errors],
        "n_errors": len(injected.errors),
        "rng_seed": rng_seed,
        "gold_answer": injected.gold_answer,
        "wrong_answer": injected.wrong_answer,
    }
    problems = _refinement_problems(content)
    if problems:
        raise Refusal("injection-invalid", "the wrong chain of thought fails its checks: "
                                           + "; ".join(problems))
    return content


def _refinement_problems(content: dict[str, Any]) -> list[str]:
    return list(check_refinement(content))


def given_term(g: Given, value: Fraction) -> str:
    """The SMT-LIB term a rule writes for given ``g`` with ``value`` (a percent stored as
    p/100 as ``(/ p 100)``, a fraction as n/d)."""
    if g.style.scale == 100:
        p = value * 100
        if p.denominator == 1:
            return f"(/ {p.numerator} 100)"
        return fraction_to_smt(value)
    if g.style.kind == "fraction" and value.denominator != 1:
        return f"(/ {value.numerator} {value.denominator})"
    return fraction_to_smt(value)


def given_terms(smtlib: str) -> dict[str, str]:
    """Name -> term of every ``(assert (= NAME TERM))`` line whose NAME is not a step or
    ``answer`` (the givens of a rule-made formalization)."""
    out: dict[str, str] = {}
    for m in GIVEN_ASSERT_RE.finditer(smtlib):
        name = m.group("name")
        if name == "answer" or re.match(r"s\d+(?:_|$)", name):
            continue
        out[name] = m.group("term")
    return out


def substitute_givens(smtlib: str, terms: Mapping[str, str]) -> str:
    """``smtlib`` with the given asserts of ``terms`` (name -> new term) replaced."""
    seen: set[str] = set()

    def repl(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in terms:
            return m.group(0)
        seen.add(name)
        return f"(assert (= {name} {terms[name]}))"

    out = GIVEN_ASSERT_RE.sub(repl, smtlib)
    missing = set(terms) - seen
    if missing:
        raise Refusal("no-given-assert", f"the formalization has no assert for {sorted(missing)}")
    return out


def skeleton(smtlib: str, names: Iterable[str]) -> str:
    """``smtlib`` with the terms of the given asserts of ``names`` blanked: the structure an
    item derived by new values shares with its parent."""
    wanted = set(names)
    return GIVEN_ASSERT_RE.sub(lambda m: f"(assert (= {m.group('name')} ?))"
                               if m.group("name") in wanted else m.group(0), smtlib)


def operation_count(smtlib: str) -> int:
    """Arithmetic operations (+ - * /) in the step definitions of a rule-made formalization
    (SMART's reasoning difficulty: the operations the solution needs). ``(+ a b c)`` is two;
    a literal such as ``(/ 1 2)`` or ``(- 5)`` is a number, not an operation."""
    total = 0
    for m in _STEP_ASSERT_RE.finditer(smtlib):
        total += _ops(_sexpr(m.group("term")))
    return total


def _sexpr(text: str) -> Any:
    toks = re.findall(r"\(|\)|[^\s()]+", text)
    stack: list[list[Any]] = [[]]
    for tok in toks:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) < 2:
                break
            node = stack.pop()
            stack[-1].append(node)
        else:
            stack[-1].append(tok)
    return stack[0][0] if stack[0] else []


def _literal(node: Any) -> bool:
    if isinstance(node, str):
        return bool(re.fullmatch(r"\d+(?:\.\d+)?", node))
    return (len(node) >= 2 and node[0] in ("-", "/") and all(_literal(a) for a in node[1:]))


def _ops(node: Any) -> int:
    if isinstance(node, str) or not node or _literal(node):
        return 0
    own = max(1, len(node) - 2) if node[0] in ("+", "-", "*", "/") else 0
    return own + sum(_ops(a) for a in node[1:])


def error_types() -> tuple[str, ...]:
    return ERROR_TYPES


_DECLARED = re.compile(r"^\(declare-(?:const|fun) ([A-Za-z_][\w]*)", re.MULTILINE)
_NAME = re.compile(r"(?<![\w.])[A-Za-z_][\w]*")


def declared(smtlib: str) -> list[str]:
    """The constants ``smtlib`` declares, in order, each once."""
    return list(dict.fromkeys(_DECLARED.findall(smtlib)))


def canonical(smtlib: str) -> str:
    """``smtlib`` with its declared constants renamed ``c0, c1, ...`` in the order they are
    declared: two formalizations that differ in names only are equal."""
    mapping = {n: f"c{i}" for i, n in enumerate(declared(smtlib))}
    return _NAME.sub(lambda m: mapping.get(m.group(0), m.group(0)), smtlib)


def renaming(old: str, new: str) -> dict[str, str] | None:
    """Old name -> new name when ``new`` is ``old`` with its constants renamed and nothing
    else changed (:func:`canonical` equal), else None."""
    if canonical(old) != canonical(new):
        return None
    return dict(zip(declared(old), declared(new)))
