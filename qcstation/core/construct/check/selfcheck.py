"""Self-checks that flag what the rules cannot settle, computed when an artifact is made
(stored with it) and again by ``qcstation audit`` (:mod:`qcstation.core.review.audit`).

A flag is not a verdict: it points a reviewer at an artifact whose reference may be
wrong in a way Z3 cannot see (Z3 only checks that the formalization computes the gold
answer). The flags, per dimension:

* ``equal-value-link`` (reasoning, arithmetic): a step uses an earlier step's result
  whose value the question also states as a number: the link may have been made
  because two values are equal, not because the solution computes it that way.
* ``unused-given`` (reasoning, arithmetic): a number of the question that the gold
  solution computes with does not appear in the formalization (or the notation
  question): a given was dropped.
* ``repeated-field`` (understanding): one key-information field repeats another
  (the scenario is the goal, the goal is listed as a known quantity, an item is in
  two lists, a known quantity is listed twice).
* ``uncertain`` (any): the generator recorded something it could not settle from the
  solution (a value the question states twice, tied to its uses by order).
* ``wrong-cot-keeps-gold`` (refinement): the erroneous chain of thought ends with the
  gold answer although no injected error type keeps it, so a model that copies the
  last line would pass Refinement.

Re-derived from the question and solution alone (:mod:`.bindings`, :mod:`.reread`),
never from the labels the rule stored with the artifact:

* ``given-words`` (reasoning): a given a step uses is tied to words of the question that
  do not match the solution's words for that step ("30 lbs" for "April and June have 30
  days"), or the question states its value under several words and the solution's line
  names none ("2 sons" or "half").
* ``step-literal`` (reasoning): a number written into a step's definition instead of a
  declared given (a hard-coded intermediate result, an unnamed factor).
* ``value-leak`` (understanding): an unknown quantity shows a step's result or the answer.
* ``hidden-number`` (understanding): the converse of ``value-leak``: an unknown quantity's
  '?' stands where the solution writes only numbers no step computes ("since ? foot is equal
  to 12 inches"), or a relationship writes a '?'.
* ``irrelevant-used`` (understanding): an item listed as irrelevant information states a
  number the solution computes with.
* ``known-fragment`` (understanding): a known quantity cut from the question (its words
  stand in the question as written) that is neither a whole sentence of the question nor a
  clause with its own subject and verb ("Charged her 10% less money", "A ballpen at $0.5
  each", "1/2 of what her brother earns"); see :mod:`qcstation.core.reading.clauses`.
* ``scenario-fragment`` (understanding): a sentence of the problem scenario that is no
  sentence of the question as written and does not read as a statement of its own ("At the
  end of the 8 weeks, if she has a total of $100.", "Profit is the difference between total
  income and total expenses, so."); see :func:`qcstation.core.construct.check.fragments.scenario_fragments`.
* ``given-role`` (reasoning), a **hard** flag: read a third way, by
  :mod:`qcstation.core.construct.check.rolecheck` (its own reading of the texts, no rule code), a
  step's line writes a given's value only with words of another kind of quantity than the
  question's place of that given ("5 days" for "5 dance classes", "2 people" for "two books"):
  one number in two roles. The rules refuse such a formalization, generate never marks one
  verified (:func:`hard_flags`), and derive takes no parent that carries it.
* ``stated-literal`` (reasoning), a **hard** flag: a rule-made formalization (one that stores its
  givens' places) writes, as a bare literal, a number the question states at a place no given
  covers ("1 cup of dog food every day" ... ``(* g1_days 1)``), read by
  :mod:`qcstation.core.construct.check.literals` from the stored places alone: a stated quantity
  unbound, which a derived item would not move. Rule-made items never carry it; it keeps a stored
  one out of ``verified`` and out of derived sets.
* ``pure-factor`` (reasoning), a **hard** flag: read by
  :mod:`qcstation.core.construct.check.purefactor` from the units of each step's line alone (no rule
  code), a given that a step uses as a pure number (it divides "10 rocks" into "5 rocks") is also
  a term of that noun on another line ("5 + 2 = 7 rocks"), or divides as a unit fraction the
  question writes ("half", "1/6 of") while it is bound to another place ("6 minutes"): a number
  bound to a place of equal value and another meaning. Kept out of ``verified`` and derived sets.
* ``stale-edit`` (refinement): an edited line of the wrong chain of thought still states
  the value its new computation no longer gives ("They each get 22 chips because
  110 * 5 = 550").

Pure domain code (no Textual); every input is untrusted text parsed with limits.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from qcstation.common.errors import QCStationError
from qcstation.common.memo import text_memo

__all__ = ["Flag", "FLAG_CODES", "HARD_FLAGS", "AUDIT_VERSION", "audit_artifact", "flag_columns", "stored_flags",
           "parse_flag_codes", "hard_flags", "hard_codes"]

#: the version of the flag rules; stored flags of an older version count as not audited
AUDIT_VERSION = 11

#: flags that keep an artifact out of ``verified`` (and so out of release and derived sets)
HARD_FLAGS = frozenset({"given-role", "stated-literal", "pure-factor"})


FLAG_CODES: dict[str, str] = {
    "equal-value-link": "a step uses an earlier result whose value the question also states",
    "unused-given": "a number the solution uses is missing from the formalization",
    "repeated-field": "a key-information field repeats another",
    "wrong-cot-keeps-gold": "the wrong chain of thought still ends with the gold answer",
    "uncertain": "the rule that made it recorded what it could not settle",
    "given-words": "a given is tied to words that do not match the solution's for its step",
    "step-literal": "a step's definition writes a number instead of a declared given",
    "value-leak": "an unknown quantity shows a step's result or the answer",
    "hidden-number": "an unknown quantity hides a number no step computes",
    "irrelevant-used": "irrelevant information states a number the solution uses",
    "known-fragment": "a known quantity cut from the question is no sentence and no clause with a subject",
    "scenario-fragment": "a sentence of the scenario that is not the question's reads as no statement of its own",
    "stale-edit": "an edited step still states the value its computation no longer gives",
    "given-role": "a given stands for another kind of quantity on a line that uses it (hard)",
    "stated-literal": "a step writes a number the question states where no given is tied (hard)",
    "pure-factor": "a given a step uses as a pure number is bound to a place of another meaning (hard)",
}

MAX_TEXT = 200_000  # characters of any one text examined


@dataclass(frozen=True)
class Flag:
    code: str
    dimension: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


# --------------------------------------------------------------------------- numbers

_NUM = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*(\d+)(?![\d.]))?")


@text_memo(set, maxsize=512)
def _question_numbers(text: str) -> set[Fraction]:
    """Digits written in a text (fractions both as a/b and as their parts)."""
    out: set[Fraction] = set()
    for m in _NUM.finditer(text[:MAX_TEXT]):
        raw = m.group(0)
        head = raw.split("/")[0].strip().replace(",", "")
        if len(head) > 30:
            continue
        v = _head_value(head)
        if v is None:
            continue
        if m.group(1):
            den = int(m.group(1)[:30])
            if den:
                out.add(v / den)  # "3/4" is the given 3/4, not the givens 3 and 4
        else:
            out.add(v)
    return out


@text_memo(maxsize=2048)
def _head_value(head: str) -> Fraction | None:
    """A number's digits as a Fraction (read once per text), None if it is none."""
    try:
        return Fraction(head)
    except (ValueError, ZeroDivisionError):
        return None


def _fmt(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    return f"{v.numerator}/{v.denominator}"


_ANN_LHS = re.compile(r"<<([^<>=]{1,400})=")


_ONE_DIVISION = re.compile(r"(\d{1,12})\s*/\s*(\d{1,12})")


@text_memo(set, maxsize=64)
def _solution_numbers(solution: str, question: str = "") -> set[Fraction]:
    """Numbers the gold solution computes with: the left sides of its calculator
    annotations, else the operands of its visible computations. An annotation that is one
    division of a larger number by a smaller ("<<400/5=80>>") divides them: it writes no
    fraction 80 unless the question writes that fraction, and a numerator an earlier
    annotation computed ("<<12-4=8>>", then "<<8/2=4>>") is that result, no number of its own."""
    from qcstation.core.construct.make.rules import ExpressionError, evaluate, find_inline_computations, parse_expression

    solution = solution[:MAX_TEXT]
    anns = _ANN_LHS.findall(solution)
    if anns:
        out: set[Fraction] = set()
        results: set[Fraction] = set()
        for lhs in anns:
            division = _ONE_DIVISION.fullmatch(lhs.strip())
            if division and int(division[1]) > int(division[2]) > 0 \
                    and not re.search(rf"(?<![\d.]){division[1]}\s*/\s*{division[2]}(?![\d.])", question):
                out |= {Fraction(int(p)) for p in division.groups()} - results
            else:
                out |= _question_numbers(lhs)
            try:
                results.add(evaluate(parse_expression(lhs)))
            except ExpressionError:
                pass
        return out
    out = set()
    for c in find_inline_computations(solution):
        out |= _question_numbers(c.expr_text)
    return out


_ANN_FULL = re.compile(r"<<([^<>=]{1,400})=([^<>=]{1,60})>>")


def _named_as_result(v: Fraction, question: str, solution: str) -> bool:
    """Is every annotation that computes with ``v`` one whose line names ``v`` as an earlier
    annotation's result, with words no place of the question has for ``v`` ("$6 x 2" after
    "= $6", where the question's 6 is "6 hours": :func:`.bindings.link_by_words`)? Then the
    question's ``v`` is not a number the solution uses."""
    from qcstation.core.construct.check.bindings import link_by_words

    uses = 0
    results: set[Fraction] = set()
    for m in _ANN_FULL.finditer(solution[:MAX_TEXT]):
        written = _question_numbers(m.group(2))
        if v in _question_numbers(m.group(1)):
            if v not in results or len(written) != 1:
                return False
            if not link_by_words(v, next(iter(written)), v, question, solution):
                return False
            uses += 1
        results |= written
    return uses > 0


@text_memo(lambda parsed: None if parsed is None else (dict(parsed[0]), dict(parsed[1]), set(parsed[2])), maxsize=32)
def _smt_definitions(smtlib: str) -> tuple[dict[str, Any], dict[str, Fraction], set[Fraction]] | None:
    """(definitions, values, literal numbers) of a definitional SMT-LIB, or None."""
    from qcstation.core.construct.make.notation import NotationError, read_source

    try:
        src = read_source(smtlib[:MAX_TEXT])
    except (NotationError, QCStationError, ValueError, RecursionError):
        return None
    defs = src.defs
    values: dict[str, Fraction] = {}

    for n in defs:
        _smt_value(n, 0, defs, values)
    literals: set[Fraction] = set()
    for e in defs.values():
        _smt_literals(e, literals)
    return defs, values, literals


def _smt_value(name: str, depth: int, defs: dict[str, Any], values: dict[str, Fraction]) -> Fraction | None:
    """For :func:`_smt_definitions`: the value of ``name``, kept in ``values`` (a function of the
    module: a closure that calls itself is a reference cycle, which only the cyclic garbage
    collector frees)."""
    from qcstation.core.construct.make.rules import ExpressionError, evaluate, expr_names

    if name in values:
        return values[name]
    if name not in defs or depth > 200:
        return None
    try:  # every name it uses defined before it (the usual order): their values are known
        values[name] = evaluate(defs[name], values)
        return values[name]
    except (ExpressionError, ZeroDivisionError, RecursionError):
        pass  # (a name defined later or nowhere, or an error: as below)
    env: dict[str, Fraction] = {}
    for dep in expr_names(defs[name]):
        v = _smt_value(dep, depth + 1, defs, values)
        if v is None:
            return None
        env[dep] = v
    try:
        values[name] = evaluate(defs[name], env)
    except (ExpressionError, ZeroDivisionError, RecursionError):
        return None
    return values[name]


def _smt_literals(e: Any, literals: set[Fraction]) -> None:
    """For :func:`_smt_definitions`: the numbers ``e`` writes, onto ``literals``."""
    from qcstation.core.construct.make.rules import Num

    if isinstance(e, Num):
        literals.add(e.value)
    elif getattr(e, "op", None) == "/" and isinstance(e.left, Num) and isinstance(e.right, Num) \
            and e.right.value:
        literals.add(e.left.value / e.right.value)  # (/ 3 4): the fraction 3/4
    for child in (getattr(e, "left", None), getattr(e, "right", None), getattr(e, "operand", None), getattr(e, "arg", None)):
        if child is not None:
            _smt_literals(child, literals)


def _is_given_constant(defs: dict[str, Any], name: str) -> bool:
    from qcstation.core.construct.make.rules import Neg, Num

    e = defs.get(name)
    if isinstance(e, Num):
        return True
    if isinstance(e, Neg) and isinstance(e.operand, Num):
        return True
    # (/ 1 2): a fraction given
    return bool(getattr(e, "op", None) == "/" and isinstance(getattr(e, "left", None), Num)
                and isinstance(getattr(e, "right", None), Num))


# --------------------------------------------------------------------------- per dimension


def _audit_smt(dim: str, smtlib: str, question: str, solution: str) -> list[Flag]:
    parsed = _smt_definitions(smtlib)
    if parsed is None:
        return []
    defs, values, literals = parsed
    q_numbers = _question_numbers(question)
    flags = [Flag("equal-value-link", dim, m) for m in _links(smtlib, question, solution)]
    if dim == "reasoning":
        flags += _reread_smt(defs, values, question, solution)
    if solution:
        used = _solution_numbers(solution, question) & q_numbers
        missing = sorted(v for v in used - literals if v not in (0, 1) and not _named_as_result(v, question, solution))
        if missing:
            flags.append(Flag("unused-given", dim,
                              "the solution uses " + ", ".join(_fmt(v) for v in missing[:8])
                              + " from the question, the formalization does not"))
    return flags


@text_memo(maxsize=64)
def _links(smtlib: str, question: str, solution: str) -> tuple[str, ...]:
    """The equal-value links of a formalization (:func:`.bindings.equal_value_links`), found once:
    a derived item's Reasoning and Arithmetic artifacts carry the same SMT-LIB."""
    from qcstation.core.construct.check.bindings import equal_value_links

    parsed = _smt_definitions(smtlib)
    if parsed is None:
        return ()
    defs, values, _ = parsed
    return tuple(equal_value_links(defs, values, question, solution))


def _reread_smt(defs: dict[str, Any], values: dict[str, Fraction], question: str,
                solution: str) -> list[Flag]:
    from qcstation.core.construct.check.bindings import binding_problems, step_literals

    flags = [Flag("given-words", "reasoning", b.describe()[:300])
             for b in binding_problems(defs, values, question, solution)[:5]]
    for name, lits in list(step_literals(defs).items())[:5]:
        flags.append(Flag("step-literal", "reasoning",
                          f"{name} writes " + ", ".join(_fmt(v) for v in lits[:6])
                          + " instead of a declared given"))
    return flags


def _audit_notation(content: dict[str, Any], question: str, solution: str) -> list[Flag]:
    flags: list[Flag] = []
    smt = content.get("smtlib")
    if isinstance(smt, str) and smt:
        # (what _audit_smt flags for it, less unused-given: the notation question is checked below)
        flags = [Flag("equal-value-link", "arithmetic", m) for m in _links(smt, question, solution)]
    if solution:
        shown = _question_numbers(str(content.get("notation", "")))
        for v in (content.get("variables") or {}).values():
            try:
                shown.add(Fraction(str(v)))
            except (ValueError, ZeroDivisionError):
                continue
        used = _solution_numbers(solution, question) & _question_numbers(question)
        missing = sorted(v for v in used - shown if v not in (0, 1) and not _named_as_result(v, question, solution))
        if missing:
            flags.append(Flag("unused-given", "arithmetic",
                              "the notation question leaves out " + ", ".join(_fmt(v) for v in missing[:8])
                              + ", which the solution uses"))
    return flags


_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def _norm(text: Any) -> str:
    return _NON_ALNUM.sub(" ", str(text).lower()).strip()


_SENTENCE_BREAK = re.compile(r"[.!?]\s+\S")


def _audit_keyinfo(content: dict[str, Any], question: str = "", solution: str = "",
                   gold: Fraction | None = None) -> list[Flag]:
    from qcstation.core.construct.check.reread import hidden_numbers, used_irrelevant, value_leaks

    flags: list[Flag] = []
    unknowns = content.get("unknown_quantities")
    if isinstance(unknowns, list) and solution:
        flags += [Flag("value-leak", "understanding", m) for m in value_leaks(unknowns, question, solution, gold)[:5]]
        relations = content.get("relationships_and_constraints")
        flags += [Flag("hidden-number", "understanding", m)
                  for m in hidden_numbers(unknowns, relations if isinstance(relations, list) else [], solution)[:5]]
    irrelevant = content.get("irrelevant_information")
    if isinstance(irrelevant, list) and solution:
        flags += [Flag("irrelevant-used", "understanding", m)
                  for m in used_irrelevant(irrelevant, question, solution)[:5]]
    known = content.get("known_quantities")
    if isinstance(known, list) and question:
        from qcstation.core.construct.check.fragments import known_fragments

        flags += [Flag("known-fragment", "understanding",
                       f"{k!r} is cut from the question and has no subject and verb of its own")
                  for k in known_fragments(known, question)[:5]]
    scenario = content.get("problem_scenario")
    if isinstance(scenario, str) and question:
        from qcstation.core.construct.check.fragments import scenario_fragments

        flags += [Flag("scenario-fragment", "understanding",
                       f"the scenario's {s!r} is no sentence of the question and reads as no statement of its own")
                  for s in scenario_fragments(scenario, question)[:5]]
    titles = {"problem_scenario": "scenario", "goal": "goal", "known_quantities": "known quantities",
              "unknown_quantities": "unknown quantities",
              "relationships_and_constraints": "relationships", "irrelevant_information": "irrelevant information"}
    where: dict[str, list[str]] = {}
    for key, title in titles.items():
        v = content.get(key)
        items = v if isinstance(v, list) else [v]
        for item in items:
            n = _norm(item)
            if len(n) < 3:
                continue
            where.setdefault(n, []).append(title)
    goal, scenario = _norm(content.get("goal", "")), _norm(content.get("problem_scenario", ""))
    reported: set[str] = set()
    # a one-sentence story is also the clause that states its givens: the known quantity keeps
    # it whole rather than lose its subject ("$300 into a scheme ..."); that is no repeat
    one_sentence = _SENTENCE_BREAK.search(str(content.get("problem_scenario", "")).strip()) is None
    for n, fields in where.items():
        if one_sentence and sorted(fields) == ["known quantities", "scenario"]:
            continue
        if len(fields) > 1:
            pair = " and ".join(sorted(set(fields))) if len(set(fields)) > 1 else f"{fields[0]} (twice)"
            flags.append(Flag("repeated-field", "understanding", f"the same text is in {pair}: {n[:60]!r}"))
            reported.add(n)
    if goal and scenario and goal not in reported and goal != scenario and goal in scenario \
            and len(goal) > 0.8 * len(scenario):
        flags.append(Flag("repeated-field", "understanding", "the scenario is the goal"))
    return flags


_FINAL = re.compile(r"(?:answer is|####)\s*:?\s*\$?\s*([-−]?[\d,]*\.?\d+(?:/\d+)?)", re.I)


def _audit_refinement(content: dict[str, Any], gold: Fraction | None) -> list[Flag]:
    from qcstation.core.reading.answers import parse_number

    from qcstation.core.construct.make.inject import KEEPS_ANSWER
    from qcstation.core.construct.check.reread import stale_edits

    text = str(content.get("w_cot", ""))[:MAX_TEXT]
    stale = [Flag("stale-edit", "refinement", m[:300])
             for m in stale_edits(str(content.get("gt_cot", "")), text)[:5]]
    m = list(_FINAL.finditer(text))
    if not m or gold is None:
        return stale
    got = parse_number(m[-1].group(1).replace("−", "-"))
    if got is None or got.value != gold:
        return stale
    errors = [e for e in content.get("errors") or [] if isinstance(e, dict)]
    if errors and all(str(e.get("type")) in KEEPS_ANSWER for e in errors):
        return stale  # every error type keeps the answer by definition (its type, not a label)
    return stale + [Flag("wrong-cot-keeps-gold", "refinement",
                 f"the erroneous chain of thought ends with the gold answer {_fmt(gold)}"
                 + ("" if errors and "changes_answer" in errors[0] else " and its labels do not say why"))]


def _parsed(content: dict[str, Any] | str) -> dict[str, Any] | None:
    """A stored artifact's content as a dict (its JSON text read with the size limit), or None."""
    if isinstance(content, str):
        try:
            content = json.loads(content[:MAX_TEXT * 5])
        except ValueError:
            return None
    return content if isinstance(content, dict) else None


def audit_artifact(dimension: str, content: dict[str, Any] | str, seed: dict[str, Any]) -> list[Flag]:
    """Flags for one artifact. ``content`` is the stored JSON (text or parsed);
    ``seed`` the seed row (``question``, ``solution``, ``answer_value``/``answer_text``)."""
    parsed = _parsed(content)
    if parsed is None:
        return []
    question = str(seed.get("question") or "")
    solution = str(seed.get("solution") or "")
    flags = [Flag("uncertain", dimension, str(u)[:300]) for u in (parsed.get("uncertain") or [])
             if isinstance(u, str)][:5]
    return flags + _audit_dimension(dimension, parsed, seed, question, solution)


def _audit_dimension(dimension: str, content: dict[str, Any], seed: dict[str, Any], question: str,
                     solution: str) -> list[Flag]:
    try:
        if dimension == "reasoning":
            smt = content.get("smtlib")
            return _audit_smt("reasoning", smt, question, solution) + _roles(content, question, solution) \
                + _stated(content, question) + _pure(content, question, solution) if isinstance(smt, str) else []
        if dimension == "arithmetic":
            return _audit_notation(content, question, solution)
        if dimension == "understanding":
            return _audit_keyinfo(content, question, solution, _gold(seed))
        if dimension == "refinement":
            return _audit_refinement(content, _gold(seed))
    except RecursionError:
        return []
    return []


def _placed_flags(code: str, content: dict[str, Any], question: str, solution: str,
                  read: Callable[..., list[str]]) -> list[Flag]:
    """``code`` flags of a formalization that stores its givens' places (rule-made): what ``read``
    (defs, values, givens, question, solution) finds, at most 5."""
    smt, givens = content.get("smtlib"), content.get("givens")
    if not isinstance(smt, str) or not isinstance(givens, list) or not question or not solution:
        return []
    parsed = _smt_definitions(smt)
    if parsed is None:
        return []
    defs, values, _ = parsed
    return [Flag(code, "reasoning", m[:300])
            for m in read(defs, values, [g for g in givens if isinstance(g, dict)], question, solution)[:5]]


def _roles(content: dict[str, Any], question: str, solution: str) -> list[Flag]:
    """``given-role`` flags of a formalization that stores its givens' places (rule-made)."""
    from qcstation.core.construct.check.rolecheck import given_roles

    return _placed_flags("given-role", content, question, solution, given_roles)


def _stated(content: dict[str, Any], question: str) -> list[Flag]:
    """``stated-literal`` flags of a formalization that stores its givens' places (rule-made)."""
    from qcstation.core.construct.check.literals import stated_literals

    smt, givens = content.get("smtlib"), content.get("givens")
    if not isinstance(smt, str) or not isinstance(givens, list) or not question:
        return []
    parsed = _smt_definitions(smt)
    if parsed is None:
        return []
    return [Flag("stated-literal", "reasoning", m[:300])
            for m in stated_literals(parsed[0], [g for g in givens if isinstance(g, dict)], question)[:5]]


def _pure(content: dict[str, Any], question: str, solution: str) -> list[Flag]:
    """``pure-factor`` flags of a formalization that stores its givens' places (rule-made)."""
    from qcstation.core.construct.check.purefactor import pure_factor_problems

    return _placed_flags("pure-factor", content, question, solution, pure_factor_problems)


def hard_flags(dimension: str, content: dict[str, Any] | str, seed: dict[str, Any]) -> list[Flag]:
    """The flags of :data:`HARD_FLAGS` an artifact carries (what keeps it out of ``verified``)."""
    if dimension != "reasoning":
        return []
    parsed = _parsed(content)
    if parsed is None:
        return []
    try:
        return _roles(parsed, str(seed.get("question") or ""), str(seed.get("solution") or "")) \
            + _stated(parsed, str(seed.get("question") or "")) \
            + _pure(parsed, str(seed.get("question") or ""), str(seed.get("solution") or ""))
    except RecursionError:
        return []


def hard_codes(codes: str | None) -> list[str]:
    """The hard flag codes among stored ``flag_codes`` ("given-role:1 unused-given:2")."""
    return sorted(c for c in parse_flag_codes(codes) if c in HARD_FLAGS)


def _gold(seed: dict[str, Any]) -> Fraction | None:
    from qcstation.core.reading.answers import parse_number

    raw = seed.get("answer_value")
    if isinstance(raw, str) and raw.strip():
        try:
            return Fraction(raw.strip())
        except (ValueError, ZeroDivisionError):
            pass
    parsed = parse_number(str(seed.get("answer_text") or ""))
    return parsed.value if parsed else None


# --------------------------------------------------------------------------- stored flags
# Flags are stored with each artifact when it is made (and refreshed by ``qcstation audit``):
#   flags          JSON list of {"code", "message"}; NULL: never audited
#   flag_codes     the codes with their counts, "code:n" sorted and joined by spaces ('' none)
#   audit_version  AUDIT_VERSION of the rules that stored them
# ``flag_codes`` and ``audit_version`` sit in the covering index of the current-version scan
# (migration 9), so counting them costs what counting artifacts costs.


def flag_columns(flags: list[Flag]) -> dict[str, Any]:
    """The stored columns for ``flags`` (see above)."""
    per = Counter(f.code for f in flags)
    return {"flags": json.dumps([{"code": f.code, "message": f.message} for f in flags],
                                ensure_ascii=False),
            "flag_codes": " ".join(f"{c}:{n}" for c, n in sorted(per.items())),
            "audit_version": AUDIT_VERSION}


def stored_flags(dimension: str, content: dict[str, Any] | str, seed: dict[str, Any]) -> dict[str, Any]:
    """The flag columns of an artifact about to be stored (its make-time audit)."""
    return flag_columns(audit_artifact(dimension, content, seed))


def parse_flag_codes(codes: str | None) -> Counter[str]:
    out: Counter[str] = Counter()
    for part in (codes or "").split():
        code, _, n = part.rpartition(":")
        if code and n.isdigit():
            out[code] += int(n)
    return out
