"""The ``gsm8k-calculator`` and ``inline-arithmetic`` rules: a worked solution's
computations (``<<16-3-4=9>>`` annotations, else ``expression = number`` in its text)
become one step constant each; with the question, its numbers are declared givens and
the links between steps are resolved (:mod:`.links`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from qcstation.core.reading.expr import (Call, Expr, ExpressionError, Name, evaluate, expr_names,
                                                 expr_to_sexpr, fmt, literal_value, literal_values,
                                                 parse_expression, rounded)
from qcstation.core.construct.make.rules.rounding import Rounding, rounded_answer
from qcstation.core.construct.make.rules.constants import LITERAL_IN_STEP, declare_literals
from qcstation.core.construct.make.rules.givens import (Givens, cents_as_dollars, content_words, percent_multipliers, protect_fractions,
                                                       question_numbers)
from qcstation.core.reading.inline import find_inline_computations, visible_before
from qcstation.core.construct.make.rules.finalunit import converted_answer
from qcstation.core.construct.make.rules.worded import worded_computations
from qcstation.core.construct.make.rules.chains import (chained_computations, protect_chain_fractions,
                                                        restated_fractions, whole_less_fraction)
from qcstation.core.construct.make.rules.ones import ONE_PREFIX, UNBOUND_ONE, one_constant_words
from qcstation.core.construct.make.rules.links import CHAIN_SOURCE, FREED_EVIDENCE, Computation, pick_answer, resolve_links
from qcstation.core.construct.make.rules.phrases import phrase_re
from qcstation.core.construct.make.rules.result import RuleError, RuleResult, RuleStep, build_smtlib
from qcstation.core.construct.make.rules.unstated import percent_totals, unwritten_conversions
from qcstation.core.construct.make.rules.complements import fraction_rest, percent_rest, percent_results
from qcstation.core.construct.make.rules.ratios import ratio_parts
from qcstation.core.construct.make.rules.percent_parts import percent_parts
from qcstation.core.construct.make.rules.weekdays import week_days
from qcstation.core.construct.make.rules.with_self import the_others, with_self
from qcstation.core.construct.make.rules.visible_terms import stated_visible
from qcstation.core.construct.make.rules.noun_counts import list_totals
from qcstation.core.construct.make.rules.ranks import first_place, floors
from qcstation.core.reading.answers import decimal_fraction, parse_number
from qcstation.core.reading.words import blank_size_names, size_names


# --------------------------------------------------------------------------- calculator rule

ANNOTATION_RE = re.compile(r"<<([^<>]*)>>")
#: the title of the one refusal that read nothing: the solution writes no computation at all
NOTHING_TO_READ = "No computations in the solution"
_RESULT_PREFIX_RE = re.compile(r"^\s*[$€£]?\s*[-\d.,/]*\s*%?")
_LABEL_END_RE = re.compile(r"[.!?;:=\d]")
_CLAUSE_END_RE = re.compile(r"[.!?;:](?:\s|$)")
# (tried only where a run of these characters starts: tried inside a run that does not reach the
# end, it read the rest of the run at each character)
_ARITHMETIC_TAIL_RE = re.compile(r"(?<![\d\s.,+\-*/()=$x×÷%])[\d\s.,+\-*/()=$x×÷%]+$")
_FINAL_RE = re.compile(r"####\s*(.+?)\s*$")
_ANNOTATION_AND_RESULT_RE = re.compile(r"<<[^<>]*>>[\d.,]*")



def _line_of(solution: str, at: int) -> str:
    start = solution.rfind("\n", 0, at) + 1
    end = solution.find("\n", at)
    return solution[start:end if end != -1 else len(solution)]


def _step_label(solution: str, start: int, end: int) -> str:
    """Short deterministic slug from the words around an annotation: up to two
    content words right after the written result (usually the unit, "duck eggs"),
    else the last two content words of the clause before the expression."""
    line_end = solution.find("\n", end)
    after = solution[end : line_end if line_end != -1 else len(solution)]
    after = _RESULT_PREFIX_RE.sub("", after, count=1)
    after = _LABEL_END_RE.split(after, maxsplit=1)[0]
    words = content_words(after)[:2]
    if not words:
        line_start = solution.rfind("\n", 0, start) + 1
        before = solution[line_start:start]
        before = _CLAUSE_END_RE.split(before)[-1]
        before = _ARITHMETIC_TAIL_RE.sub("", before)
        words = content_words(before)[-2:]
    slug = "_".join(words)[:24].strip("_")
    return slug


@dataclass
class _Annotation:
    index: int  # 1-based
    raw: str
    lhs: str
    rhs: str
    start: int
    end: int


def _annotations(solution: str) -> list[_Annotation]:
    out: list[_Annotation] = []
    for i, m in enumerate(ANNOTATION_RE.finditer(solution), start=1):
        raw = m.group(0)
        body = m.group(1)
        if body.count("=") != 1:
            raise RuleError(
                f"annotation {i} {raw!r} is not of the form <<expression=result>>",
                "Annotation not arithmetic",
            )
        lhs, rhs = (part.strip() for part in body.split("="))
        out.append(_Annotation(i, raw, lhs, rhs, m.start(), m.end()))
    return out


def final_answer(solution: str) -> Fraction | None:
    m = _FINAL_RE.search(solution.strip())
    if not m:
        return None
    parsed = parse_number(m.group(1))
    return parsed.value if parsed else None


def mask_annotations(solution: str) -> str:
    """Blank out each annotation and the written result right after it, so the
    visible copy of an annotated computation is not found again as inline text."""

    def blank(m: re.Match[str]) -> str:
        return "\u00a7" * len(m.group(0))

    return _ANNOTATION_AND_RESULT_RE.sub(blank, solution)




_FRACTION_TXT_RE = re.compile(r"(?<![\d.])(\d+)\s*/\s*(\d+)(?![\d.])")


def _stated_fraction_before(solution: str, ann: _Annotation, value: Fraction,
                            givens: Givens | None) -> tuple[str, Expr, Fraction] | None:
    """The computation written right before an annotation ("1/5 * 5000 meters = <<5000/5=1000>>")
    when it has the annotation's value and writes a fraction the question states ("1/5 times
    more") that the annotation does not: the words say the division is that fraction of it."""
    if givens is None or not givens.fractions:
        return None
    visible = visible_before(solution, ann.start, ann.rhs)
    if visible is None or visible[2] != value:
        return None
    stated = {(a, b) for a, b in _FRACTION_TXT_RE.findall(visible[0]) if (a, b) in givens.fractions}
    if not stated or stated & set(_FRACTION_TXT_RE.findall(ann.lhs)):
        return None
    return visible


def _collect_computations(solution: str, inline: bool, notes: list[str],
                          givens: Givens | None = None, read_chains: bool = False) -> list[Computation]:
    comps: list[Computation] = []
    for ann in _annotations(solution):
        try:
            lhs = parse_expression(ann.lhs)
        except ExpressionError as exc:
            raise RuleError(
                f"annotation {ann.index} {ann.raw!r} is not arithmetic: {exc}",
                "Annotation not arithmetic",
            ) from exc
        try:
            value = evaluate(lhs)
        except ExpressionError as exc:
            raise RuleError(f"annotation {ann.index} {ann.raw!r} cannot be computed: {exc}") from exc
        try:
            written_value = evaluate(parse_expression(ann.rhs)) if ann.rhs else value
        except ExpressionError:
            notes.append(f"annotation {ann.index} {ann.raw!r}: written result {ann.rhs!r} is not a number")
            written_value = value
        if written_value != value:
            notes.append(
                f"annotation {ann.index} {ann.raw!r}: the expression evaluates to {fmt(value)}, "
                f"not the written {ann.rhs}; using the computed value"
            )
        expr_text = ann.lhs
        if literal_value(lhs) is not None:
            # <<15=15>>: the computation is only in the visible text ("7.5 / .5 = <<15=15>>15")
            visible = visible_before(solution, ann.start, ann.rhs)
            if visible is not None:
                expr_text, lhs, value = visible
                notes.append(
                    f"annotation {ann.index} {ann.raw!r} is a bare number; "
                    f"used the computation written before it: {expr_text} = {ann.rhs}"
                )
        else:
            stated = _stated_fraction_before(solution, ann, value, givens)
            if stated is not None:
                expr_text, lhs, value = stated
                notes.append(
                    f"annotation {ann.index} {ann.raw!r} divides where the text writes the "
                    f"question's fraction: used the computation written before it: {expr_text} = {ann.rhs}"
                )
            elif (shown := stated_visible(solution, ann.start, ann.rhs, lhs, value, givens,
                                          [c.value for c in comps])) is not None:
                expr_text, lhs, value = shown
                notes.append(f"annotation {ann.index} {ann.raw!r} writes a number the question does not "
                             f"state: used the computation written before it: {expr_text} = {ann.rhs}")
        comps.append(
            Computation(ann.start, ann.end, ann.raw, expr_text, lhs, value, written_value, "annotation")
        )
    if inline:
        masked = mask_annotations(solution)
        for c in find_inline_computations(masked):
            raw = solution[c.expr_start : c.result_end]
            comps.append(
                Computation(c.expr_start, c.result_end, raw, c.expr_text.strip(), c.expr, c.value, c.written, "inline")
            )
        if read_chains:
            chained = [Computation(start, end, raw, text, expr, value, written, CHAIN_SOURCE)
                       for start, end, raw, text, expr, value, written in chained_computations(masked)]
            comps = [c for c in comps if c.source == "annotation"
                     or not any(k.start < c.end and c.start < k.end for k in chained)] + chained
            if chained:
                notes.append(f"{len(chained)} chain(s) of equal terms or fraction result(s) used: "
                             + "; ".join(c.raw for c in chained))
    comps.sort(key=lambda c: c.start)
    return comps


def _given_record(name: str, value: Fraction, givens: object, question: str) -> dict[str, object]:
    """A declared given with the place the question states it (see derive.bindings)."""
    out: dict[str, object] = {"name": name, "value": fmt(value)}
    if name.startswith("w_"):
        from qcstation.core.construct.make.rules.word_places import occurrence_of

        words = _constant_words(name)
        nth = occurrence_of(name)  # "w_half_at2": the second "half" the question writes
        found = list(phrase_re(words, True, True).finditer(question))
        m = found[nth] if nth < len(found) else None if nth else (found[0] if found else re.search(
            r"\b" + r"[\s,]+".join(re.escape(w) for w in words.split()) + r"\b", question, re.I))
        out["text"] = words
        if m:
            out.update({"span": [m.start(), m.end()], "words": m.group(0), "kind": "word"})
        return out
    out["text"] = givens.text_of(name) if givens is not None else ""  # type: ignore[attr-defined]
    place = givens.place_of(name) if givens is not None else None  # type: ignore[attr-defined]
    if place:
        out.update(place)
    return out


def _constant_words(name: str) -> str:
    """The words a declared word given or factor stands for ("w_round_trip" -> "round trip")."""
    m = re.fullmatch(r"w_1_(\d+)_parts", name)
    if m:
        return f"1/{m.group(1)}"
    if name.startswith(ONE_PREFIX):
        return one_constant_words(name)  # "k_one_his_teacher": "his teacher"
    if name.startswith(("w_", "k_")):
        from qcstation.core.construct.make.rules.word_places import strip_occurrence

        return strip_occurrence(name)[2:].removesuffix("_parts").removesuffix("_numerator").replace("_", " ")
    return ""


def _chained_steps(solution: str, comps: list[Computation], names: list[str], linked_exprs: list[Expr],
                   notes: list[str]) -> list[RuleStep]:
    """One step per computation, its value computed in the chain (earlier steps' values, not
    their written results), with the solution line it is written on."""
    steps: list[RuleStep] = []
    env: dict[str, Fraction] = {}
    for name, comp, linked in zip(names, comps, linked_exprs):
        try:
            chained = evaluate(linked, env)
        except ExpressionError as exc:
            raise RuleError(f"step {name} ({comp.raw}) cannot be computed: {exc}") from exc
        if chained != comp.value:
            notes.append(
                f"step {name} ({comp.expr_text}) is {fmt(chained)} in the chain, not {fmt(comp.value)}, "
                "because an earlier step's written result differs from its computed value"
            )
        env[name] = chained
        line_start = solution.rfind("\n", 0, comp.start) + 1
        line_end = solution.find("\n", comp.start)
        line = solution[line_start : line_end if line_end != -1 else len(solution)].strip()
        steps.append(RuleStep(name, comp.expr_text, chained, expr_to_sexpr(linked), expr_names(linked),
                              linked, line))
    return steps


def _needed(steps: list[RuleStep], answer: str) -> set[str]:
    """The names of the steps ``answer`` depends on (itself included)."""
    needed: set[str] = set()
    by_name = {s.name: s for s in steps}
    stack = [answer]
    while stack:
        current = stack.pop()
        if current in needed:
            continue
        needed.add(current)
        stack.extend(by_name[current].refs)
    return needed


# (each pattern opening with a look-behind opens with a lookahead for the characters a match
# starts with: the same matches, found without trying the look-behind at every place)
_MENTION_RE = re.compile(r"(?=[\d.])(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*(\d+)(?![\d.]))?")
# a number that names a thing instead of counting it: "horse #2", "the Widgeteer 3000", "Grade
# 5", "the 400-meter hurdles", "a 1959 penny"
_LABEL_BEFORE = re.compile(r"(?:#|\b[A-Z][a-z]+\s)$")
_LABEL_AFTER = re.compile(r"-[A-Za-z]")
_ORDINAL_AFTER = re.compile(r"(?:st|nd|rd|th)\b")  # "the 2nd fastest car"
_CLOCK_AFTER = re.compile(r":\d\d\b")  # "by 16:00": a time of day names a moment, it counts nothing


#: a noun the question writes right before a number ("house 3", "semester 2"): a name where it
#: writes it before two numbers or more ("12 carpets in house 1, 20 carpets in house 2, and 10 carpets
#: in house 3"; "her semester 2 average ... her semester 1 average"), never a verb ("sold 3 ... sold 5")
#: nor a word of the grammar
_NAMED_BY = re.compile(r"\b([A-Za-z]{3,})\s+(\d{1,3})(?![\w/%-]|[.,]\d)")
_WORD_BEFORE = re.compile(r"\b([A-Za-z]{3,})\s+$")
_NO_NAME = frozenset("""the and for are was were with from than about only each every per over under after before
his her their its into onto until till through between times plus minus all just another other next last
first then also has have had not but nor yet was been being some any both either neither more less most least
total about around nearly almost exactly extra additional""".split())


def _labels(question: str) -> dict[str, frozenset[str]]:
    """noun -> the numbers the question names things by after it (see :data:`_NAMED_BY`)."""
    from qcstation.core.reading.clauses import is_verb_form
    from qcstation.core.reading.words import NUMBER_WORD_VALUES

    found: dict[str, set[str]] = {}
    for m in _NAMED_BY.finditer(question[:20_000]):
        found.setdefault(m.group(1).lower(), set()).add(m.group(2))
    return {w: frozenset(ns) for w, ns in found.items() if len(ns) >= 2 and w not in _NO_NAME
            and w not in NUMBER_WORD_VALUES and not is_verb_form(w)}


# a number the prose computes with: an operator (or "times", "by"...) right before it, "% of" after it,
# or a word that drops it ("the lowest score, which is 71, and remove it": a choice the answer depends on),
# or right after it and up to two words ("3 years * $720", "$80/4", "12 x 2")
_OPERATOR = r"(?:[-+*/=×÷(]|\b(?:x|times|plus|minus|divided|multiplied)\b)"
_DROPPED = r"\b(?:remov\w*|drop\w*|discard\w*|subtract\w*|exclud\w*|without|except|lowest|highest)\b"
_COMPUTED_BEFORE = re.compile(r"(?:" + _OPERATOR + r"|\bby)\s*[$(]*\s*$|" + _DROPPED + r"(?:\W+\w+){0,3}\W+$")
_COMPUTED_AFTER = re.compile(r"\s*%\s*of\b|\s*%?\)?\s*(?:[A-Za-z]+/?[A-Za-z]*\s+){0,2}" + _OPERATOR
                             + r"|\W*(?:\w+\W+){0,2}" + _DROPPED)


def _counted_mentions(masked: str, fractions: frozenset[tuple[str, str]] = frozenset(),
                      question: str = "") -> set[Fraction]:
    """The numbers the solution's text writes outside its annotations, less those that name a
    thing (a label, a model number, a year, an ordinal, a size the question writes that the
    solution names a thing by: "She bought the 2 x 4s", 116): a number the text writes may be one
    it computes with in words the annotations miss ("takes $80/4" beside "by 25%": the 4 is
    25%'s), so it must stay used; a label never is."""
    out: set[Fraction] = set()
    names = size_names(question, masked)[1] if question else []
    labels = _labels(question)
    for m in _MENTION_RE.finditer(masked):
        if any(a <= m.start() < b for a, b in names):
            continue
        before = masked[max(0, m.start() - 14):m.start()]
        label = _WORD_BEFORE.search(before)
        if label and m.group(1) in labels.get(label.group(1).lower(), ()):
            continue  # "House 4 has 2 * 10 house 3 carpets": the question's house 3 is a name
        sentence_start = re.search(r"(?:^|[.!?]\s+)[A-Z][a-z]+\s$", before)
        if (_LABEL_BEFORE.search(before) and not sentence_start) or _LABEL_AFTER.match(masked, m.end()) \
                or _ORDINAL_AFTER.match(masked, m.end()) or _CLOCK_AFTER.match(masked, m.end()) \
                or (not m.group(2) and "." not in m.group(1) and 1900 <= int(m.group(1).replace(",", "")) <= 2100):
            continue
        if not _COMPUTED_BEFORE.search(masked, max(0, m.start() - 40), m.start()) \
                and not _COMPUTED_AFTER.match(masked, m.end()):
            continue  # "after 5 years", "in the next 6 hours": a frame the prose names, not an operand
        try:
            v = decimal_fraction(m.group(1).replace(",", ""))
            if m.group(2) and v > int(m.group(2)) > 0 and (m.group(1), m.group(2)) not in fractions \
                    and re.match(r"\s*=", masked[m.end():]) \
                    and not re.search(_OPERATOR + r"\s*[$(]*\s*$", masked[max(0, m.start() - 12):m.start()]):
                # "is 400/5 = <<400/5=80>>80": one division of a larger number by a smaller, the
                # whole computation, that the question writes as no fraction: its two numbers,
                # not the fraction 80 ("200 x 2/5 =" writes the question's 2/5)
                out.update((v, Fraction(int(m.group(2)))))
                continue
            out.add(v / int(m.group(2)) if m.group(2) and int(m.group(2)) else v)
        except (ValueError, ZeroDivisionError):
            continue
    return out


def _check_every_given_used(solution: str, givens: Givens, exprs: list[Expr], kept: list[Expr],
                            freed: frozenset[Fraction] = frozenset()) -> None:
    """RuleError unless the kept steps use every number of the question the solution works
    with (in its computations, or in its text as digits). ``freed``: values the words of the
    solution's lines bind to earlier results where it writes them (the question's place of
    that value is not used, see :func:`.links.resolve_links`)."""
    used_by_solution = {v for e in exprs for v in literal_values(e) if v in givens.values}
    # a number of the question the solution's text works with (digits, not words)
    digits = {n.value for n in givens.numbers
              if not n.percent and (n.text[:1].isdigit() or n.text[:1] in "$.")}
    mentioned = {v for v in _counted_mentions(mask_annotations(solution), frozenset(givens.fractions),
                                              givens.question)
                 if v in digits}
    used_by_solution |= mentioned - {Fraction(0), Fraction(1)} - freed
    used_kept = {v for e in kept for v in literal_values(e)}
    used_kept |= {n.value * 100 for n in givens.numbers if n.percent and n.value in used_kept}
    missing = sorted(used_by_solution - used_kept)
    if missing:
        raise RuleError(
            UNUSED_GIVENS + " "
            + ", ".join(fmt(v) for v in missing)
            + " that the solution uses: its structure is not clear from the annotations",
            "Ambiguous solution",
        )


def _restated(solution: str, comps: list[Computation]) -> list[Computation]:
    """The quantities the solution restates in another unit ("1.25 hours = 75 minutes"), as
    computations by their named factor (:mod:`.restated`), less any that overlaps a computation
    already read."""
    from qcstation.core.construct.make.rules.restated import restated_quantities

    return [Computation(start, end, raw, text, expr, value, written, "inline")
            for start, end, raw, text, expr, value, written in restated_quantities(mask_annotations(solution))
            if not any(c.start < end and start < c.end for c in comps)]


def _note_unannotated(comps: list[Computation], n_annotations: int, notes: list[str]) -> None:
    if n_annotations and len(comps) > n_annotations:
        extra = [c.raw for c in comps if c.source != "annotation"]
        notes.append(f"{len(extra)} unannotated computation(s) from the text used: " + "; ".join(extra))
    elif not n_annotations:
        notes.append(
            f"no calculator annotations: {len(comps)} computation(s) written in the text used"
        )


def _declare_givens(givens: Givens, question: str, steps: list[RuleStep], exprs: list[Expr],
                    joint: bool = False) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]], list[str]]:
    """Tie the steps' numbers to the question's places (:meth:`Givens.bind`), then declare
    what is left as word givens or named factors, or refuse (:func:`declare_literals`); the
    steps' terms are updated in place. Returns the terms, the constants and what was tied
    by order only (uncertain)."""
    lines = [s.line for s in steps]
    from qcstation.core.construct.make.rules.scaled import scaled_literals

    exprs, scales = scaled_literals(question, givens, exprs)
    exprs, consts = givens.bind(exprs, lines, joint)
    uncertain = givens.uncertain('solution')
    try:
        exprs, named = declare_literals(exprs, question, {n for n, _, _ in consts}, lines)
    except RuleError as exc:
        # a literal no word of the question names may be the count of the values an average
        # divides by (:mod:`.averaged`); only then, so that no reading made before changes
        from qcstation.core.construct.make.rules.averaged import mark_average_counts

        marked = mark_average_counts([s.name for s in steps], exprs, lines, question)
        if exc.title != LITERAL_IN_STEP or marked == exprs:
            raise
        exprs, named = declare_literals(marked, question, {n for n, _, _ in consts}, lines)
    consts += named + scales
    from qcstation.core.construct.make.rules.one_unit import one_unit_givens

    exprs = one_unit_givens(givens, question, exprs, consts)
    from qcstation.core.construct.make.rules.ones import bind_ones

    exprs = bind_ones(givens, question, exprs, consts, lines)
    from qcstation.core.construct.make.rules.restated_each import check_each_sums

    check_each_sums(question, givens.numbers, givens._names, exprs)
    for st, e in zip(steps, exprs):
        st.sexpr = expr_to_sexpr(e)
        st.expr = e
    return exprs, consts, uncertain


def smt_from_calculator_annotations(
    solution: str, gold: Fraction | None = None, *, inline: bool = True, question: str | None = None,
    joint: bool = False,
) -> RuleResult:
    """Formalize a GSM8K-style solution (see :func:`_smt_from_calculator`). A solution whose
    answer step does not use numbers of the question it works with may compute them in words the
    annotations miss ("8 times 1/2 equals 4 ... 12 plus 14 plus 4 equals 30", 738): it is read
    again with its computations written in words (:mod:`.worded`) as steps too, and taken only if
    that reading passes every check; else the first reading's reason stands."""
    try:
        return _smt_from_calculator(solution, gold, inline=inline, question=question, joint=joint)
    except RuleError as exc:
        if not inline:
            raise
        if str(exc).startswith(UNUSED_GIVENS):
            try:
                return _smt_from_calculator(solution, gold, inline=inline, question=question, joint=joint,
                                            read_worded=True)
            except RuleError:
                pass
        if str(exc).startswith(_CHAIN_READ_AFTER) or exc.title == UNBOUND_ONE:
            # a chain of equal terms or a fraction result the inline reader left (:mod:`.chains`);
            # a 1 no words tie may be the whole of "1 - (2/3) = 1/3", written before the step that
            # uses its result ("12 x (1/3)"): the chain reader reads that line as a step
            try:
                return _smt_from_calculator(solution, gold, inline=inline, question=question, joint=joint,
                                            read_chains=True)
            except RuleError:
                pass
        raise exc from None


#: how the refusal of a reading whose answer step leaves numbers of the question unused begins
UNUSED_GIVENS = "the answer step does not use the given(s)"
#: the refusals after which the solution is read again with its chains (:mod:`.chains`)
_CHAIN_READ_AFTER = (UNUSED_GIVENS, "final answer ", "no reading of the solution uses every step")


def _smt_from_calculator(
    solution: str, gold: Fraction | None = None, *, inline: bool = True, question: str | None = None,
    joint: bool = False, read_worded: bool = False, read_chains: bool = False,
) -> RuleResult:
    """Formalize a GSM8K-style solution from its ``<<expr=result>>`` annotations.

    With ``inline=True`` (default) visible computations the annotator missed
    (``54 − 37 = 17`` with no ``<<...>>``) are steps too, and a solution with no
    annotations but such computations is formalized from them alone (rule
    ``inline-arithmetic``). ``gold`` defaults to the number after ``####``;
    without either, the last step is the answer. Raises RuleError when there is
    nothing to formalize, an annotation is not arithmetic, or no step produces
    the gold answer.

    With ``question`` (the seed problem), every number of the question the solution
    uses becomes its own declared constant, and a number in a later step is read as
    an earlier step's result only where that is the one structure that uses every
    step and every given (a value the question also states, or a common unit factor
    such as 60 or 100, is never linked because it is equal). An ambiguous solution
    raises RuleError (the item goes to the model path).

    With ``joint``, the places of a value the question states more than once are chosen
    jointly over all its uses by the words (:mod:`.joint`): the dispatcher's second reading
    of a solution whose first binding its independent check refused."""
    notes: list[str] = []
    # a size the solution names a thing by ("She bought the 2 x 4s") is no place of a quantity
    givens = question_numbers(blank_size_names(question, solution)) if question is not None else None
    comps = _collect_computations(solution, inline, notes, givens, read_chains)
    n_annotations = sum(1 for c in comps if c.source == "annotation")
    if not comps:
        raise RuleError(
            "no calculator annotations (<<expression=result>>)"
            + (" and no computation written as 'expression = number'" if inline else "")
            + " in the solution", NOTHING_TO_READ)
    rule = "gsm8k-calculator" if n_annotations else "inline-arithmetic"
    _note_unannotated(comps, n_annotations, notes)
    if gold is None:
        gold = final_answer(solution)
    if inline and gold is not None and (read_worded or all(gold not in (c.value, c.written) for c in comps)):
        # no step has the answer: the solution may write its last step in words ("200 minus
        # 174 equals 26"); read only then (or when asked: see smt_from_calculator_annotations),
        # so that no solution read before reads otherwise
        worded = [Computation(start, end, solution[start:end], text, expr, value, written, "inline")
                  for start, end, _, text, expr, value, written in worded_computations(mask_annotations(solution))]
        if worded:
            comps = sorted(comps + worded, key=lambda c: c.start)
            notes.append(f"{len(worded)} computation(s) written in words used: " + "; ".join(c.raw for c in worded))
    restated = _restated(solution, comps)
    if restated:
        comps = sorted(comps + restated, key=lambda c: c.start)
        notes.append(f"{len(restated)} quantity(ies) restated in another unit used: " + "; ".join(c.raw for c in restated))
    exprs_raw = [percent_multipliers(cents_as_dollars(protect_fractions(c.expr, givens), givens), givens)
                 for c in comps]
    if read_chains:  # "1 - (1/3) = 2/3 ... 100 / (2/3)": the 2/3 is one number, that result
        exprs_raw = protect_chain_fractions([c.start for c in comps], [c.raw if c.source == CHAIN_SOURCE else None
                                                                       for c in comps], exprs_raw)
        if givens is not None:  # "1/10 ... so 10/100 * 30": the question's 1/10, which the line names
            exprs_raw = restated_fractions(exprs_raw, [_line_of(solution, c.start) for c in comps],
                                           frozenset(givens.fractions))
        if givens is not None:  # the 1 of "1 - (1/3)": the whole the question's fraction is of
            exprs_raw = whole_less_fraction(exprs_raw, [c.source == CHAIN_SOURCE for c in comps],
                                            frozenset(givens.fractions), Fraction(1) in givens.values)
    exprs_raw = unwritten_conversions(comps, exprs_raw, givens, solution)  # "48 - 40" for "4 feet"
    exprs_raw = percent_totals(exprs_raw, givens, [_line_of(solution, c.start) for c in comps])  # "by 150%"
    exprs_raw = fraction_rest([c.start for c in comps], exprs_raw, givens, solution)  # "1 - 3/4 = 1/4 ... 4 x 20"
    exprs_raw = percent_rest([c.start for c in comps], exprs_raw, givens, solution)  # "60% are women" / "men: 25 x .4"
    exprs_raw = percent_results([c.start for c in comps], [c.value for c in comps], exprs_raw, givens,
                                solution)  # "60% of them are yellow because 100 - 20 - 20 = 60" / "25 x .6"
    exprs_raw = percent_parts([c.start for c in comps], exprs_raw, givens, solution)  # "25% less ... 24/4"
    exprs_raw = ratio_parts([c.start for c in comps], exprs_raw, givens, solution)  # "4 times as much as Brad" / "100/5"
    exprs_raw = week_days([c.start for c in comps], exprs_raw, givens, solution)  # "Sunday through Wednesday" / "4*$10"
    exprs_raw = with_self([c.start for c in comps], exprs_raw, givens, solution)  # "Jenna has 4 roommates" / "5 roommates"
    exprs_raw = list_totals([c.start for c in comps], exprs_raw, givens, solution, [c.value for c in comps])  # "two zebras ..., a zebra" / "4 zebras"
    exprs_raw = the_others([c.start for c in comps], exprs_raw, givens, solution)  # "five phones ... the main phone" / "four additional"
    exprs_raw = first_place([c.start for c in comps], exprs_raw, givens, solution)  # "started off in first" / "1st place ... 1+5"
    exprs_raw = floors([c.start for c in comps], exprs_raw, givens, solution)  # "the third-floor balcony" / "24 * 3 stories"
    converted = None
    rounding: Rounding | None = None
    try:
        answer_index = pick_answer(comps, gold, notes)
    except RuleError:
        # the answer asked in another unit than the last step's ("in cents": "$0.25")
        converted = converted_answer(comps, gold, question, solution)
        if converted is not None:
            comps.append(converted.comp)
            exprs_raw.append(converted.comp.expr)
            notes.append(converted.note)
            answer_index = len(comps) - 1
        else:
            # a whole count the solution rounds its last computation to (:mod:`.rounding`)
            rounding = rounded_answer(comps, gold, question, solution)
            if rounding is None:
                raise
            notes.append(rounding.note)
            answer_index = rounding.index
    if answer_index + 1 < len(comps):
        notes.append(f"steps after the answer were left out: {', '.join(f's{i + 1}' for i in range(answer_index + 1, len(comps)))}")
    comps = comps[: answer_index + 1]
    exprs_raw = exprs_raw[: answer_index + 1]
    names = [f"s{i}_{label}" if label else f"s{i}"
             for i, label in enumerate((_step_label(solution, c.start, c.end) for c in comps), start=1)]
    if converted is not None:
        names[-1] = f"s{len(names)}_{converted.label}"
    linked_exprs, links = resolve_links(comps, exprs_raw, names, givens, notes, solution)
    steps = _chained_steps(solution, comps, names, linked_exprs, notes)
    if converted is not None:
        steps[-1].line = converted.line  # the solution writes none: key information reads this
    exprs = linked_exprs
    chosen = steps[answer_index]
    if not chosen.refs and literal_value(exprs[answer_index]) is not None:
        raise RuleError(
            f"the answer {fmt(chosen.result)} is written as a bare number ({comps[answer_index].raw}); "
            "the solution's computation of it is not in its arithmetic",
            "Answer not derived",
        )
    # keep only the steps the answer depends on
    needed = _needed(steps, steps[answer_index].name)
    kept = [(s, e) for s, e in zip(steps, exprs) if s.name in needed]
    dropped = [s.name for s in steps if s.name not in needed]
    if dropped:
        notes.append(f"steps not needed for the answer were left out: {', '.join(dropped)}")
    if givens is not None:
        freed = frozenset(Fraction(lk["value"]) for lk in links if lk["evidence"] == FREED_EVIDENCE)
        _check_every_given_used(solution, givens, exprs, [e for _, e in kept], freed)
    kept_steps = [s for s, _ in kept]
    answer_step = steps[answer_index].name
    kept_exprs = [e for _, e in kept]
    uncertain: list[str] = []
    given_consts: list[tuple[str, Fraction, Expr]] = []
    if givens is not None:
        kept_exprs, given_consts, uncertain = _declare_givens(givens, question or "", kept_steps, kept_exprs, joint)
    value = steps[answer_index].result
    if rounding is not None:
        last = RuleStep(f"s{len(comps) + 1}_rounded", f"{rounding.fn} of {answer_step}",
                        rounded(rounding.fn, value), "", [answer_step], Call(rounding.fn, Name(answer_step)),
                        rounding.line)
        last.sexpr = expr_to_sexpr(last.expr)  # type: ignore[arg-type]
        kept_steps[-1].line = rounding.divided_line
        kept_steps.append(last)
        kept_exprs.append(last.expr)  # type: ignore[arg-type]
        answer_step, value = last.name, last.result
    smtlib = build_smtlib(kept_steps, kept_exprs, answer_step, given_consts)
    return RuleResult(
        smtlib=smtlib,
        steps=kept_steps,
        answer_step=answer_step,
        value=value,
        rule=rule,
        notes=notes,
        links=[lk for lk in links if lk["step"] in needed],
        uncertain=uncertain,
        givens=[_given_record(n, v, givens, question or "") for n, v, _ in given_consts
                if not n.startswith("k_")],
        factors=[{"name": n, "value": fmt(v), "text": _constant_words(n)}
                 for n, v, _ in given_consts if n.startswith("k_")] if givens is not None else None,
    )
