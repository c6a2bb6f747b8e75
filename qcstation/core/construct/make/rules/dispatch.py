"""Which rule a seed gets (:func:`rule_for_seed`) and its exact gold (:func:`gold_from_seed`)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from fractions import Fraction

from qcstation.core.construct.make.rules.calculator import (ANNOTATION_RE, NOTHING_TO_READ, final_answer,
                                                            smt_from_calculator_annotations)
from qcstation.core.construct.make.rules.equation import smt_from_equation
from qcstation.core.construct.make.rules.result import RuleError, RuleResult
from qcstation.core.reading.answers import parse_number


# --------------------------------------------------------------------------- dispatch


def gold_from_seed(seed: Mapping[str, object]) -> Fraction | None:
    """The seed's exact gold: ``answer_value`` ('p/q'), else ``answer_text``/``target``,
    else the number after ``####`` in the solution."""
    raw = seed.get("answer_value")
    if isinstance(raw, str) and raw.strip():
        try:
            return Fraction(raw.strip())
        except (ValueError, ZeroDivisionError):
            pass
    for key in ("answer_text", "target"):
        val = seed.get(key)
        if isinstance(val, (str, int, float)) and not isinstance(val, bool):
            parsed = parse_number(val)
            if parsed is not None:
                return parsed.value
    solution = solution_of(seed)
    return final_answer(solution) if solution else None


def solution_of(seed: Mapping[str, object]) -> str:
    sol = seed.get("solution")
    if isinstance(sol, str) and sol.strip():
        return sol
    raw = seed.get("answer")  # a raw GSM8K record keeps the solution under "answer"
    if isinstance(raw, str) and ("<<" in raw or "####" in raw):
        return raw
    return ""


def equation_of(seed: Mapping[str, object]) -> str:
    for key in ("equation", "Equation", "lEquations"):
        val = seed.get(key)
        if isinstance(val, list) and len(val) == 1 and isinstance(val[0], str):
            val = val[0]
        if isinstance(val, str) and val.strip():
            return val
    return ""


#: the most of a seed the rules read. Far above any seed of the public sets (GSM8K train and
#: test: questions of 985 characters and 19 numbers at most, solutions of 1,228 characters and
#: 9 annotations; MATH-500: 1,733 characters and 213 numbers; AIME: solutions of 9,681
#: characters and 125 "="s), and low enough that one seed costs bounded time: the places of
#: the question's numbers are weighed against each other and against every computation of the
#: solution, quadratic in both (a question of 20,000 characters stating 1,300 numbers took 10
#: s of CPU; a solution of 1,600 annotated lines, 6 s, every reading of it again).
MAX_RULE_QUESTION_CHARS = 6_000
MAX_RULE_SOLUTION_CHARS = 12_000
MAX_RULE_PLACES = 300  #: numbers, number words and articles of the question
MAX_RULE_EQUALS = 250  #: "="s of the solution, and of the equation field (each computation writes one or two)
#: what the question states a number by (a digit run, a number word, "a"/"an"), counted in one pass
_PLACE = re.compile(r"\d+|\b(?:an?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
                    r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|dozens?|half|halves|"
                    r"thirds?|quarters?|twice|thrice|double|triple)\b", re.I)


def too_large_for_rules(seed: Mapping[str, object]) -> str | None:
    """Why the rules do not read ``seed`` (its question, solution or equation beyond what they
    read: see :data:`MAX_RULE_QUESTION_CHARS`), or None. Each text is read once."""
    question = seed.get("question")
    texts = (("question", question if isinstance(question, str) else "", MAX_RULE_QUESTION_CHARS),
             ("solution", solution_of(seed), MAX_RULE_SOLUTION_CHARS),
             ("equation", equation_of(seed), MAX_RULE_SOLUTION_CHARS))
    for what, text, limit in texts:
        if len(text) > limit:
            return f"the {what} has {len(text):,} characters; the rules read at most {limit:,}"
        if what != "question" and text.count("=") > MAX_RULE_EQUALS:
            return f"the {what} writes {text.count('='):,} '='; the rules read at most {MAX_RULE_EQUALS}"
    places = sum(1 for _ in _PLACE.finditer(texts[0][1]))
    if places > MAX_RULE_PLACES:
        return f"the question states {places:,} numbers or number words; the rules read at most {MAX_RULE_PLACES}"
    return None


def rule_for_seed(seed: Mapping[str, object]) -> RuleResult:
    """Apply the first rule the seed row supports: calculator annotations in
    ``solution`` (or a raw GSM8K ``answer``), else the ``equation`` field.
    Raises RuleError with a plain reason when none applies, also when the seed's text
    exceeds a parser limit (length, nesting, digits, size) or what the rules read
    (:func:`too_large_for_rules`): one hostile seed never stops a run, nor holds it long."""
    too_large = too_large_for_rules(seed)
    if too_large is not None:
        raise RuleError(f"the seed is too large for the rules: {too_large}", "Too large")
    try:
        return _rule_for_seed(seed)
    except RuleError as exc:
        if len(str(exc)) <= MAX_REASON_CHARS:
            raise
        # long quotes of the seed's text are cut first, so the reason itself stays readable
        text = _LONG_QUOTE.sub(lambda m: m.group(1) + m.group(2)[:60] + "…" + m.group(1), str(exc))
        raise RuleError(text if len(text) <= MAX_REASON_CHARS else _short(RuleError(text), MAX_REASON_CHARS),
                        exc.title) from None
    except (RecursionError, ValueError, ArithmeticError, MemoryError) as exc:
        raise RuleError(f"the seed's text exceeds a parser limit: {_short(exc)}") from None


MAX_REASON_CHARS = 400  #: a reason quotes the seed's text; keep it readable
_LONG_QUOTE = re.compile(r"""(['"])((?:(?!\1).){80,}?)\1""")


def _short(exc: BaseException, limit: int = 200) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _worked_solution(seed: Mapping[str, object], solution: str) -> bool:
    """Is ``solution`` a GSM8K-style worked solution (computations ending in a final
    answer)? Decided by what the data holds: calculator annotations, a ``####`` line, or
    the importer's note that the record carried one (``meta.solution_format``), never
    by the name the user gave the source. Seeds imported before that note existed fall
    back to the source format name ``gsm8k``."""
    if ANNOTATION_RE.search(solution) or "####" in solution:
        return True
    meta = seed.get("meta")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta) if len(meta) < 100_000 else {}
        except ValueError:
            meta = {}
    if isinstance(meta, Mapping) and "solution_format" in meta:
        return meta.get("solution_format") == "gsm8k"
    return str(seed.get("source") or "").lower() == "gsm8k"


#: a worked solution whose computations were read and refused stays refused, with its
#: reason: the equation field is no better. The GSM8K importer fills it with the solution's
#: own computations joined, so one computation of it would be the item's whole formalization
#: with bare literals: 280's "18 / 3", where 18 is a value the solution derives, or 99's
#: "30-5" whose value 25 is not the gold 5 (the solution's last step, "25 - 20 = 5", has no
#: annotation). Only a solution with no computation at all (nothing read) may fall back to
#: an equation field.


def check_independently(result: RuleResult, question: str, solution: str,
                        gold: Fraction | None = None, tied: frozenset[Fraction] = frozenset()) -> None:
    """A formalization is rule-made only if the checks re-derived from the question and the
    solution (:mod:`qcstation.core.construct.check.bindings`, the audit's own) find nothing: each
    given tied to words that agree with its step, no step that uses an earlier result whose
    value the question also states, no use tied to a place of the question by order only, no
    given that steps apart use while a use pairs it with a number beside another place of its
    value no given holds (:mod:`qcstation.core.construct.check.unheld`), no given that a step uses
    as a pure number bound to a place of another meaning, read from the units of the lines alone
    (:mod:`qcstation.core.construct.check.purefactor`).
    A formalization that asserts an equation (a step with no defining term: the algebra and
    equation rules) is checked by :mod:`qcstation.core.construct.check.equations` instead: Z3
    solves it to ``gold`` and only ``gold``, no bare literal, each given at the one place its
    words say. Otherwise RuleError with the reason (the item goes to the model path). ``tied``:
    values whose places the reading tied by order, whose uses' words are not asked (only for key
    information, which writes them by value: ``make.keyinfo_reading``; never a formalization)."""
    from qcstation.core.construct.check.bindings import binding_problems, equal_value_links, step_literals
    from qcstation.core.reading.expr import Num, evaluate

    if result.uncertain:
        raise RuleError("uncertain binding: " + result.uncertain[0], "Ambiguous binding")
    from qcstation.core.reading.slips import dozen_dropped

    for line in solution[:20_000].splitlines():
        dropped = dozen_dropped(line, question)
        if dropped is not None:  # "to bake 200 cookies" for "200 dozen cookies": the gold answers another question
            raise RuleError(f"the solution reads {dropped}: its gold answer does not answer the question",
                            "Ambiguous binding")
    if any(st.expr is None for st in result.steps):
        from qcstation.core.construct.check.equations import equation_problems

        found = equation_problems(result.smtlib, result.givens, question, solution, gold)
        if found:
            raise RuleError("equation check: " + found[0], "Ambiguous binding")
        return
    defs: dict[str, Any] = {str(g["name"]): Num(Fraction(str(g["value"])))
                            for g in [*result.givens, *(result.factors or [])]}
    values: dict[str, Fraction] = {n: e.value for n, e in defs.items()}
    for st in result.steps:
        if st.expr is None:
            return
        defs[st.name] = st.expr
        values[st.name] = evaluate(st.expr, values)
    problems = [f"given-words: {b.describe()}" for b in binding_problems(defs, values, question, solution)
                if b.value not in tied]
    problems += [f"step-literal: {n} writes " + ", ".join(str(v) for v in lits)
                 for n, lits in step_literals(defs).items()]
    problems += [f"equal-value-link: {m}" for m in equal_value_links(defs, values, question, solution)]
    from qcstation.core.construct.check.literals import stated_literals

    problems += [f"stated-literal: {m}" for m in stated_literals(defs, result.givens, question)]
    if not problems:
        # the independent reading of what each given measures (its own code: rolecheck)
        from qcstation.core.construct.check.rolecheck import given_roles

        problems = [f"given-role: {m}" for m in given_roles(defs, values, result.givens, question, solution)]
    if not problems:
        # a given a step uses as a pure number, read from the units of the lines alone (check.purefactor)
        from qcstation.core.construct.check.purefactor import pure_factor_problems

        problems = [f"pure-factor: {m}" for m in pure_factor_problems(defs, values, result.givens, question, solution,
                                                                       tied)]
    if not problems:
        problems = [f"given-place: {m}" for m in _one_place_twice(result)]
    if not problems:
        problems = [f"given-place: {m}" for m in _swapped(result, values, question, solution)]
    if not problems:
        # one given that steps apart use while another place of its value is no given's
        from qcstation.core.construct.check.unheld import unheld_places

        problems = [f"given-place: {m}" for m in unheld_places({st.name: st.expr for st in result.steps},
                                                                result.givens, question)]
    if not problems:
        # a rank's digit ("the 2nd competitor") where the question states the value as a quantity too
        from qcstation.core.construct.check.ordinals import rank_problems

        from qcstation.core.reading.expr import Name, atoms

        using: dict[str, str] = {}
        for st in result.steps:
            for a in atoms(st.expr) if st.expr is not None else []:
                if isinstance(a, Name):
                    using[a.name] = using.get(a.name, "") + "\n" + st.line
        problems = [f"given-place: {m}" for m in rank_problems(result.givens, using, question)]
    if problems:
        raise RuleError(problems[0], "Ambiguous binding")


def _one_place_twice(result: RuleResult) -> list[str]:
    """Two givens of the question's numbers tied to one place ("80*.8" for "80% of it", the 80 and
    the .8 both the "80%"): one number of the question in two roles, which no words vouch for.
    Word givens are exempt: one fraction's parts and numerator ("two thirds" as "/ 3" and "* 2")
    are two givens of one phrase by design (:mod:`.fraction_parts`)."""
    at: dict[tuple[int, int], list[str]] = {}
    for g in result.givens:
        span, name = g.get("span"), str(g.get("name"))
        if name.startswith("w_") or not isinstance(span, (list, tuple)) or len(span) != 2:
            continue
        at.setdefault((int(span[0]), int(span[1])), []).append(name)
    return [f"{' and '.join(names)} are both the question's number at {list(span)}: one place in two roles"
            for span, names in at.items() if len(names) > 1]


def _swapped(result: RuleResult, values: dict[str, Fraction], question: str, solution: str) -> list[str]:
    """Two givens of equal value whose steps' lines read as each other's place
    (:func:`qcstation.core.construct.check.places.swapped_places`): each given's place is in
    ``result.givens``, each step's line read by its result and operands."""
    from qcstation.core.construct.check.places import swapped_places
    from qcstation.core.reading.expr import expr_names
    from qcstation.core.reading.words import step_line

    given_names = {str(g["name"]) for g in result.givens}
    uses: dict[str, list[int | None]] = {}
    for st in result.steps:
        if st.expr is None:
            return []
        names = expr_names(st.expr)
        at = step_line(solution, values[st.name], [values[n] for n in names if n in values])
        for n in set(names) & given_names:
            uses.setdefault(n, []).append(at)
    return swapped_places(result.givens, uses, question, solution)


def _joint(solution: str, question: str, gold: Fraction | None) -> RuleResult | None:
    """The worked solution read again with the places of each value the question states more
    than once chosen jointly over all its uses by their words (:mod:`.joint`), after the first
    reading (each use placed on its own, by order where the words did not tell) was refused:
    taken only when the independent check finds nothing in it, else None (the first reading's
    reason stands)."""
    try:
        result = smt_from_calculator_annotations(solution, gold, question=question, joint=True)
        check_independently(result, question, solution, gold)
    except RuleError:
        return None
    result.bound = True
    return result


def _algebra(solution: str, question: object, gold: Fraction | None) -> RuleResult | None:
    """The ``gsm8k-algebra`` rule's formalization of a solution that names an unknown and
    solves an equation for it, checked independently; None when the solution names none or
    the rule or its check refuses (the worked-solution rule's own reason then stands)."""
    from qcstation.core.construct.make.rules.algebra import declared_unknown, smt_from_algebra

    if not isinstance(question, str) or declared_unknown(solution) is None:
        return None
    try:
        result = smt_from_algebra(solution, question, gold)
        check_independently(result, question, solution, gold)
    except RuleError:
        return None
    result.bound = True  # the independent check found nothing (derive still takes no algebra parent)
    return result


def _rule_for_seed(seed: Mapping[str, object]) -> RuleResult:
    solution = solution_of(seed)
    equation = equation_of(seed)
    gold = gold_from_seed(seed)
    reasons: list[str] = []
    # GSM8K-style solutions: annotations, or plain computations ending in "#### n"
    gsm8k_style = _worked_solution(seed, solution)
    if solution and gsm8k_style:
        question = seed.get("question")
        result = None
        try:
            result = smt_from_calculator_annotations(
                solution, gold, question=question if isinstance(question, str) else None)
        except RuleError as exc:
            algebra = _algebra(solution, question, gold)
            if algebra is not None:
                return algebra
            if not equation or exc.title != NOTHING_TO_READ:
                raise
            reasons.append(f"calculator rule: {exc}")
        if result is not None:
            # the worked solution was read; when its bindings cannot be vouched for, the
            # equation field (one computation of it) is no better: the item is not rule-made
            if isinstance(question, str):
                try:
                    check_independently(result, question, solution, gold)
                except RuleError:
                    joint = _joint(solution, question, gold)
                    if joint is not None:
                        return joint
                    algebra = _algebra(solution, question, gold)
                    if algebra is not None:
                        return algebra
                    raise
                result.bound = True
            return result
    if equation:
        try:
            question = seed.get("question")
            eq = smt_from_equation(equation, gold, question=question if isinstance(question, str) else None)
            if isinstance(question, str) and any(st.expr is None for st in eq.steps):
                # a linear equation (declared unknown, asserted equation): checked on its own
                # terms (Z3 gives the gold and only the gold, no bare literal, each given at the
                # one place its words say; tied by order only, it is refused)
                from qcstation.core.construct.check.equations import equation_problems

                found = eq.uncertain[:1] or equation_problems(eq.smtlib, eq.givens, question, "", gold)
                if found:
                    raise RuleError("equation check: " + found[0], "Ambiguous binding")
            return eq
        except RuleError as exc:
            reasons.append(f"equation rule: {exc}")
            raise RuleError("no rule applies: " + "; ".join(reasons)) from exc
    if reasons:
        raise RuleError("no rule applies: " + "; ".join(reasons))
    raise RuleError("no rule applies: no calculator annotations and no equation field")
