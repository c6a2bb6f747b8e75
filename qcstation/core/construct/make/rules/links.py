"""Which step computes the answer, and which written number is an earlier step's result.

:func:`pick_answer` picks the step whose value is the gold answer. :func:`resolve_links`
decides, for every number a step writes, whether it is a given or an earlier result:
a link is fixed only where the solution settles it (not by equal value alone), and a
solution with more than one reading is refused (:class:`RuleError`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from collections.abc import Iterator
from fractions import Fraction

from qcstation.core.reading.expr import (Expr, leaves, Name, Neg, Num, BinOp, canon, expr_names,
                                                 fmt, literal_value, literal_values)
from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.phrases import has_phrase
from qcstation.core.construct.make.rules.scaled import scaled_values
from qcstation.core.reading.words import WORD_GIVENS
from qcstation.core.construct.make.rules.result import RuleError
from qcstation.core.construct.make.rules.implied import implied_constant
from qcstation.core.construct.make.rules.binding import _FACTOR_STEMS
from qcstation.core.reading.words import ANNOTATION as ANNOTATION_RE
from qcstation.core.construct.make.rules.clause_words import restated_before, result_or_given
from qcstation.core.construct.make.rules.percent_results import (decide_percent_results, decide_percent_wholes,
                                                                  percent_only as _percent_only,
                                                                  percent_slots as _percent_slots)
from qcstation.core.construct.make.rules.link_structure import (_keep_decided, _roles, decide_by_structure, decide_together,
                                                                drop_unstated_literals, equal_term_groups,
                                                                keep_distinct, open_numbers)

MAX_LINK_CHOICES = 4096


@dataclass
class Computation:
    """One step of a solution: where it is, what it computes and the result it writes."""

    start: int
    end: int
    raw: str  # how the computation reads in the solution
    expr_text: str
    expr: Expr
    value: Fraction
    written: Fraction
    source: str  # "annotation" | "inline" | "chain" (:data:`CHAIN_SOURCE`)


def pick_answer(comps: list[Computation], gold: Fraction | None, notes: list[str]) -> int:
    """Index of the step that computes the answer: the last whose value (else whose
    written result) is the gold answer; the last step when there is no gold."""
    if gold is None:
        notes.append("no gold answer given: the last step is the answer")
        return len(comps) - 1
    for i in range(len(comps) - 1, -1, -1):
        if comps[i].value == gold:
            return i
    for i in range(len(comps) - 1, -1, -1):
        if comps[i].written == gold:
            notes.append(
                f"the gold answer {fmt(gold)} is only the written result of step {i + 1}; "
                f"its expression evaluates to {fmt(comps[i].value)}"
            )
            return i
    raise RuleError(
        f"final answer {fmt(gold)} is not produced by any step "
        f"(step results: {', '.join(fmt(c.value) for c in comps)})",
        "Answer not derived",
    )



#: the source of a computation read by :mod:`.chains` (a chain of equal terms, a fraction result)
CHAIN_SOURCE = "chain"
_FRACTION_END = re.compile(r"\d\s*/\s*\d+\s*$")


@dataclass
class _Choices:
    """For every number a step writes that could be an earlier result: which earlier steps
    it may be (None: the given), keyed by (step, leaf ordinal), with the evidence."""

    keys: list[tuple[int, int]]
    options: list[list[int | None]]
    evidence: dict[tuple[int, int], str]
    #: numbers written with their minus sign that are an earlier negative result ("-30/3" after
    #: "... = -30"): the link stands for the signed number, sign included
    negated: frozenset[tuple[int, int]] = frozenset()
    #: what each decider decided where that alone left more than one reading (key -> choice ->
    #: evidence), read together by :func:`.link_structure.decide_together` after every decider
    partial: dict[int, dict[int | None, str]] = field(default_factory=dict)


def _link_choices(written: list[Fraction], exprs: list[Expr], givens: Givens | None,
                  bare: set[int], fraction_results: frozenset[int] = frozenset()) -> _Choices:
    choices: list[list[int | None]] = []
    keys: list[tuple[int, int]] = []
    evidence: dict[tuple[int, int], str] = {}
    negated: set[tuple[int, int]] = set()
    ambiguous_values = (givens.values | givens.factors | set(scaled_values(givens))) if givens is not None \
        else frozenset()
    for i, e in enumerate(exprs):
        signed = _negated_leaves(e)
        for k, leaf in enumerate(leaves(e)):
            if not leaf.text or ("/" in leaf.text and not fraction_results):
                continue
            cands = [j for j in range(i) if written[j] == leaf.value and j not in bare
                     and ("/" not in leaf.text or j in fraction_results)]
            if not cands and k in signed and leaf.value > 0:
                # "-30/3" after "-48 + 21 + (-3) = -30": the signed number is that result
                cands = [j for j in range(i) if written[j] == -leaf.value and j not in bare]
                if cands:
                    negated.add((i, k))
            if not cands:
                continue
            if givens is None:
                choices.append([cands[-1]])
                evidence[(i, k)] = "equal value (no question given)"
            elif leaf.value not in ambiguous_values and len(cands) == 1:
                choices.append([cands[0]])
                evidence[(i, k)] = "the only step with this value; the question does not state it"
            else:
                choices.append([None, *cands])
                evidence[(i, k)] = "the one structure that uses every step and given"
            keys.append((i, k))
    return _Choices(keys, choices, evidence, frozenset(negated))


def _negated_leaves(e: Expr) -> set[int]:
    """The ordinals (as :func:`leaves` counts them) of the numbers ``e`` writes with a minus
    sign of their own (``Neg(Num)``)."""
    out: set[int] = set()
    _negated_walk(e, False, iter(range(10**9)), out)
    return out


def _negated_walk(x: Expr, under_neg: bool, counter: Iterator[int], out: set[int]) -> None:
    """For :func:`_negated_leaves`
    (a function of the module: a closure that calls itself is a reference cycle, which
    only the cyclic garbage collector frees)."""
    if isinstance(x, Num):
        k = next(counter)
        if under_neg:
            out.add(k)
    elif isinstance(x, Neg):
        _negated_walk(x.operand, True, counter, out)
    elif isinstance(x, BinOp):
        _negated_walk(x.left, False, counter, out)
        _negated_walk(x.right, False, counter, out)


def _apply(exprs: list[Expr], names: list[str], keys: list[tuple[int, int]],
           assign: tuple[int | None, ...], negated: frozenset[tuple[int, int]] = frozenset()) -> list[Expr]:
    """The steps' terms with each chosen number replaced by the earlier step it is (a signed
    number of ``negated``, sign included: ``-30`` becomes the step whose result is -30)."""
    table = {key: a for key, a in zip(keys, assign)}
    return [_applied(e, i, iter(range(10**9)), table, names, negated) for i, e in enumerate(exprs)]


def _applied(x: Expr, i: int, counter: Iterator[int], table: dict[tuple[int, int], int | None],
             names: list[str], negated: frozenset[tuple[int, int]]) -> Expr:
    """Step ``i``'s term ``x`` as :func:`_apply` makes it
    (a function of the module: a closure that calls itself is a reference cycle, which
    only the cyclic garbage collector frees)."""
    if isinstance(x, Num):
        k = next(counter)
        j = table.get((i, k))
        return Name(names[j]) if j is not None else x
    if isinstance(x, Neg) and isinstance(x.operand, Num):
        k = next(counter)
        j = table.get((i, k))
        if j is None:
            return x
        return Name(names[j]) if (i, k) in negated else Neg(Name(names[j]))
    if isinstance(x, Neg):
        return Neg(_applied(x.operand, i, counter, table, names, negated))
    if isinstance(x, BinOp):
        left = _applied(x.left, i, counter, table, names, negated)
        return BinOp(x.op, left, _applied(x.right, i, counter, table, names, negated))
    return x


def _uses_everything(linked: list[Expr], names: list[str], bare: set[int], used_givens: set[int],
                     givens: Givens | None) -> bool:
    """Does a reading use every step before the answer and keep every given the solution
    uses (a percent given counts by its number or its fraction)?"""
    refs = [set(expr_names(e)) for e in linked]
    closure = {len(linked) - 1}
    stack = [len(linked) - 1]
    index = {n: i for i, n in enumerate(names)}
    while stack:
        for r in refs[stack.pop()]:
            j = index[r]
            if j not in closure:
                closure.add(j)
                stack.append(j)
    if len(closure | bare) != len(linked):
        return False
    return used_givens <= _occurrences(givens, {v for e in linked for v in literal_values(e)})


def _occurrences(givens: Givens | None, values: set[Fraction]) -> set[int]:
    """The question's numbers (by position) a set of literal values uses."""
    return {n.start for n in givens.numbers if n.value in values} if givens else set()


def _line_at(solution: str, pos: int) -> str:
    a = solution.rfind("\n", 0, pos) + 1
    b = solution.find("\n", pos)
    return solution[a:b if b != -1 else len(solution)]


def _decide_by_words(ch: _Choices, comps: list[Computation], exprs: list[Expr], givens: Givens,
                     solution: str, keys: list[int]) -> dict[int, int | None]:
    """For the numbers two readings disagree on (``keys``: indexes into ``ch.keys``), the reading
    the words settle: the step's line writes the number with words that the earlier step's
    line writes after its result and no place of the question has that value with ("9 eggs"
    in both lines, the question's 9 is "9 hours"): that step; or with words of the question's
    place and none of the earlier result's: the given. Keys the words leave open are absent."""
    from qcstation.core.reading.words import solution_stems

    out: dict[int, int | None] = {}
    for n in keys:
        i, k = ch.keys[n]
        v = leaves(exprs[i])[k].value
        steps_only = [j for j in ch.options[n] if j is not None]
        if None in ch.options[n] and len(steps_only) == 1 and _percent_only(givens, v) \
                and any(leaf.value == v / 100 for leaf in leaves(exprs[i])):
            # "10*.1 = $1" for "a 10% tax": the .1 is the question's 10%; the 10 beside it is no
            # second use of that percent (one given in two roles) but the earlier result
            out[n] = steps_only[0]
            continue
        if sum(1 for leaf in leaves(exprs[i]) if leaf.value == v) > 1:
            continue  # "12 inches / 12 inches/foot": which words are whose, no reader can tell
        line = _line_at(solution, comps[i].start)
        named = [solution_stems(line, v, 4, m) for m in range(8)]
        named = [w for w in dict.fromkeys(named) if w]
        if not named and _additive(exprs[i]):
            # "The total times they ride that day is 6+4=10 times": a sum's terms count what
            # its result counts, so the words after the result name each bare term
            named = [w for w in [_result_stems(solution, comps[i])] if w]
        elif not named and _rate_times_count(exprs[i]) and v not in givens.factors \
                and not any(v in vals for phrase, vals in WORD_GIVENS.items() if has_phrase(givens.question, phrase, ignore_case=True)):
            # "30*6 = 180 minutes" for "a page every 6 minutes": of a count times a rate, the rate
            # names what the product counts
            named = [w for w in [_result_stems(solution, comps[i])] if w]
        if len(named) != 1:
            continue  # the line names this value with no words, or with the words of two things
        here = named[0]
        if v in givens.factors and here & _FACTOR_STEMS.get(v, frozenset()) and None in ch.options[n]:
            # "60 minutes is in an hour so 300/60": the line names the unit factor, which an
            # earlier "60-minute break" names with the same word; the words do not tell them apart
            continue
        places = [q.stems for q in givens.numbers if q.value == v]
        by_given = max((len(here & st) for st in places), default=0)
        scores = {}
        unnamed = False  # an earlier result its line names with no words: what it counts is unread
        for j in ch.options[n]:
            if j is None:
                continue
            line_j = _line_at(solution, comps[j].start)
            if line_j == _line_at(solution, comps[i].start):
                continue
            said = _result_stems(solution, comps[j])
            unnamed = unnamed or not said
            scores[j] = len(here & said)
        top = max(scores.values(), default=0)
        best = [j for j, sc in scores.items() if sc == top]
        if top and not by_given and len(best) == 1 and not unnamed:
            out[n] = best[0]
        elif by_given and not top and None in ch.options[n]:
            out[n] = None
    return out


_WRITTEN_RESULT = re.compile(r"\s*[$€£]?\s*-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)?")


def _result_stems(solution: str, comp: Computation) -> frozenset[str]:
    """The stems of the words right after the result a computation writes ("= 9 eggs" ->
    {egg}; "$<<2*3=6>>6" -> {$}), read at that result only, never at another place of the
    same value on its line."""
    from qcstation.core.reading.words import words_at

    end = comp.end
    if comp.source == "annotation":
        m = _WRITTEN_RESULT.match(solution, end)
        end = m.end() if m else end
        dollar = solution[max(0, comp.start - 1):comp.start] == "$" or "$" in solution[comp.end:end]
    else:
        dollar = "$" in solution[comp.start:comp.end].rsplit("=", 1)[-1]
    stems = set(words_at(solution, end, end))
    if dollar:
        stems.add("$")
    return frozenset(stems)


def _rate_times_count(e: Expr) -> bool:
    return isinstance(e, BinOp) and e.op == "*" and isinstance(e.left, Num) and isinstance(e.right, Num)


def _additive(e: Expr) -> bool:
    """Is a term one sum or difference of numbers ("6+4", "43-4-8")?"""
    if isinstance(e, BinOp):
        return e.op in "+-" and _additive(e.left) and _additive(e.right)
    return isinstance(e, Num)


def _keep_implied_constants(ch: _Choices, comps: list[Computation], exprs: list[Expr], givens: Givens,
                            solution: str) -> None:
    """A number that multiplies or divides and is a quantity both texts name (a dime's 10 cents
    where the line says "dimes") is that named constant, never an earlier result of equal value:
    its only option is the literal (see :func:`.constants.implied_constant`)."""
    for n, (i, k) in enumerate(ch.keys):
        leaf = leaves(exprs[i])[k]
        role = _roles(exprs[i])[k]
        if leaf.value in givens.values or None not in ch.options[n]:
            continue
        name = implied_constant(leaf.value, givens.question, _line_at(solution, comps[i].start), role)
        # a month's 4 weeks the line tells only by "month": an earlier result of 4 may be meant
        if name and name != "k_weeks_per_month":
            ch.options[n] = [None]
            ch.evidence[(i, k)] = "a quantity both texts name (a named constant)"


def _equal_terms_distinct(readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]],
                          ch: _Choices, exprs: list[Expr], givens: Givens,
                          ) -> dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]]:
    """A sum or product that writes one value more than once ("15+15 = 30 apple slices" after
    "3*5 = 15 large" and "5*3 = 15 small") adds or multiplies that many quantities: each earlier
    result at most once, and the question's number at most as often as the question states it.
    Readings that take one source twice ("15+15" as the large slices twice, the small ones left
    to stand for the question's 15) are dropped; the readings left that only swap equal terms
    are one formalization (a sum or a product in any order). When no reading keeps its terms
    distinct, the readings are left as they were."""
    def one_sum_or_product(e: Expr) -> int | None:
        ops = _ops(e)
        return 0 if len(ops) == 1 and next(iter(ops)) in "+*" else None

    groups = equal_term_groups(exprs, ch.keys, one_sum_or_product)
    if not groups:
        return readings
    return keep_distinct(readings, groups, givens) or readings


def _ops(e: Expr) -> set[str]:
    """The operators of a term (its inner nodes), for "is it one sum or one product"."""
    if isinstance(e, BinOp):
        return {e.op} | _ops(e.left) | _ops(e.right)
    if isinstance(e, Neg):
        return {"neg"} | _ops(e.operand)
    return set()


def _readings_the_words_free(ch: _Choices, comps: list[Computation], exprs: list[Expr], names: list[str],
                             bare: set[int], used_givens: set[int], givens: Givens, solution: str,
                             ) -> dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]]:
    """When no reading uses every step and every given, the words may say why: a number the
    solution writes that the question also states ("$8 / $2/day" beside "an 8-year old child")
    is, by the words of its line, the earlier result ("= $8") and not the question's place.
    Such a number is that result; the question's place of its value is then a number the
    solution does not use (it need not stay used). Every written number of that value must be
    decided so by the words, and the reading must still use every step and every other given."""
    decided = _decide_by_words(ch, comps, exprs, givens, solution, list(range(len(ch.keys))))
    freed: set[Fraction] = set()
    for n, (i, k) in enumerate(ch.keys):
        v = leaves(exprs[i])[k].value
        if decided.get(n) is not None:
            freed.add(v)
    # every written number of a freed value is a decided link (no other use of the question's place)
    for i, e in enumerate(exprs):
        for k, leaf in enumerate(leaves(e)):
            if leaf.value in freed:
                key = ch.keys.index((i, k)) if (i, k) in ch.keys else None
                if key is None or decided.get(key) is None:
                    freed.discard(leaf.value)
    if not freed:
        return {}
    keep = used_givens - _occurrences(givens, freed)
    readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]] = {}
    for assign in itertools.product(*ch.options):
        if any(assign[n] != j for n, j in decided.items()):
            continue
        linked = _apply(exprs, names, ch.keys, assign, ch.negated)
        if _uses_everything(linked, names, bare, keep, givens):
            readings.setdefault(tuple(canon(e) for e in linked), (assign, linked))
    if len(readings) == 1:
        for n, j in decided.items():
            ch.evidence[ch.keys[n]] = FREED_EVIDENCE if j is not None \
                else "the words: the line names it as the question does"
    return readings


def _decide_by_clause(readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]], ch: _Choices,
                      comps: list[Computation], exprs: list[Expr], givens: Givens, solution: str,
                      ) -> dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]]:
    """Where the words after a number left the readings open: the words of the whole line, against
    the clause of the question's number and the lines of the earlier steps of that value
    (:func:`.clause_words.result_or_given`). Only a number the step writes once; the reading left
    must be the one every decided number agrees with, else the readings stay as they were."""
    decided: dict[int, int | None] = {}
    for n, i, _k, terms, v in open_numbers(readings, ch, exprs):
        if sum(1 for x in terms if x.value == v) > 1 or v in (0, 1):
            continue  # a 1 may be no given at all ("5 * 1" for a banana's $1): no clause to read
        steps = [j for j in ch.options[n] if j is not None]
        places = [q.start for q in givens.numbers if q.value == v and not q.percent] if None in ch.options[n] else []
        if not places:
            continue  # a factor the question does not state, or only earlier results: no clause to read
        line = _line_at(solution, comps[i].start)
        earlier = [_line_at(solution, comps[j].start) for j in steps]
        if line in earlier or (_written_times(line, v) != 1 and not restated_before(line, v)):
            continue  # "$4 + $2 = $6 for ... 4 packets of milk": which words are whose, no reader can tell
        found = result_or_given(givens.question, places, line, earlier, [x.value for x in terms if x.value != v])
        if found is not None:
            decided[n] = None if found < 0 else steps[found]
    return _keep_decided(readings, ch, decided, lambda j: CLAUSE_EVIDENCE if j is not None else
                         "the words: the line writes the clause of the question's number")


#: words that give a common factor a meaning of its own (a half's 2, a dozen's 12, an hour's 60):
#: where neither the question nor the line writes one, a written factor equal to an earlier result
#: names nothing but that result. Ordinals ("second month") and words of counting ("each", "per")
#: name no factor; a share or an average does, as a divisor
_FACTOR_MEANING: dict[int, str] = {
    2: r"half|halves|twice|double|doubles?d?|pairs?|both|twins?|round[- ]trip|weekends?",
    3: r"thirds?|triple[sd]?|thrice|trio|triangles?",
    4: r"quarters?|fourths?|quadruple[sd]?|weeks?|weekly|squares?",
    7: r"weeks?|weekly|daily",
    10: r"dimes?|decades?|tenths?|percent|%|cents?",
    12: r"dozens?|months?|monthly|years?|yearly|annual|inch(?:es)?|feet|foot|half[- ]days?|noon|midnight|o'clock|[ap]\.?m\b",
    24: r"hours?|hourly|around the clock|24/7",
    30: r"months?|monthly|days?|minutes?|half",
    52: r"weeks?|weekly|years?|yearly|annual",
    60: r"minutes?|hours?|hourly|seconds|per second|mph",
    100: r"percent|%|cents?|dollars?|\$|century|hundredths?",
    365: r"years?|yearly|annual|days?",
    1000: r"thousandths?|kilo\w*|grams?|met(?:er|re)s?|lit(?:er|re)s?|ml|km|kg",
}
_FACTOR_MEANING_RE = {Fraction(v): re.compile(rf"(?:^|(?<=[^a-z]))(?:{w})(?![a-z])", re.I)
                      for v, w in _FACTOR_MEANING.items()}
_SHARE_RE = re.compile(r"\b(?:average|mean|split|share[sd]?|equally|evenly|divided?|apiece)\b", re.I)


def _decide_unworded_factors(readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]],
                             ch: _Choices, comps: list[Computation], exprs: list[Expr], givens: Givens,
                             solution: str,
                             ) -> dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]]:
    """A common factor the question does not state (a 4 where no number of the question is 4),
    that one earlier step computed, written once in a line, where the line writes no word that
    gives that factor a meaning (:data:`_FACTOR_MEANING`: "a quarter", "a dozen", "minutes"; a
    share or an average for a divisor; a list of that many names) and the question none that
    states it as a word ("a quarter" of 566's "12/4"), is that step's result: "80 / 20 = $4 in
    rewards ... coupon was worth 4 * 2 ... 43 - 4 - 8" (331); "Last week ... so it was 2*7" after
    "she wrote on Tuesday is 5+2 = 7" (46: the question's week, no line's). Only where one
    reading is left; else the readings stay as they were."""
    from qcstation.core.construct.make.rules.implied import named_lists

    decided: dict[int, int] = {}
    for n, i, k, terms, v in open_numbers(readings, ch, exprs):
        opts = ch.options[n]
        steps = [j for j in opts if j is not None]
        if None not in opts or len(steps) != 1 or v in givens.values or v not in _FACTOR_MEANING_RE:
            continue
        line = _line_at(solution, comps[i].start)
        if _term_times(line, v) != 1 or sum(1 for x in terms if x.value == v) > 1:
            continue
        words = _FACTOR_MEANING_RE[v]
        if words.search(line) or (words.search(givens.question) and v in givens.word_values):
            continue  # the line names the factor, or the question states it as a word ("a quarter")
        if _roles(exprs[i])[k] == "divisor" and _SHARE_RE.search(givens.question):
            continue
        if any(len(members) == v for _, members in named_lists(givens.question)):
            continue
        decided[n] = steps[0]
    return _keep_decided(readings, ch, decided, lambda j: UNWORDED_EVIDENCE)


#: the evidence of a link to an earlier result where no word gives the factor a meaning of its own
UNWORDED_EVIDENCE = ("the words: neither the question nor the line names this factor (no half, "
                     "dozen, unit...); it is the earlier result")


_NOUN_AFTER_RE = re.compile(r"\s*\$?\s*[\d.,/]*\s*([A-Za-z]+)")
_NOT_A_NOUN = frozenset("""of and or the a an each per for to in on at is are was were more less than
    as by from with every times total left""".split())


def _stem(word: str) -> str:
    w = word.lower()
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


def _line_words(line: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[A-Za-z]+", re.sub(r"<<[^<>]*>>", " ", line))}


def _decide_by_line_nouns(readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]],
                          ch: _Choices, comps: list[Computation], exprs: list[Expr], givens: Givens,
                          solution: str,
                          ) -> dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]]:
    """A value the question states once ("the first 180 days") and one earlier step computed with
    another noun ("= <<180*1=180>>180 cups"), written once in a line: the line that writes the
    question's noun and not the result's is the given ("days left in the year is 365 - 180"), the
    line that writes the result's noun and not the question's is the result ("the total number of
    cups ... 180 + 370"). Equal nouns, or a line with both or neither, decide nothing, nor a noun
    the line writes after another of its numbers ("Over 12 weeks she has saved 20+40+80": the
    weeks are the 12's, not the "$20.00 a week"'s; GSM8K train 4295); only where one reading is left."""
    decided: dict[int, int | None] = {}
    for n, i, _k, terms, v in open_numbers(readings, ch, exprs):
        steps = [j for j in ch.options[n] if j is not None]
        places = [q for q in givens.numbers if q.value == v and not q.percent]
        if None not in ch.options[n] or len(steps) != 1 or len(places) != 1 or v in (0, 1) \
                or v in givens.factors or places[0].slug == "pct":
            continue  # a common factor may be a constant of the line's unit (257's 100 cents a dollar)
        line = _line_at(solution, comps[i].start)
        earlier = _line_at(solution, comps[steps[0]].start)
        if line == earlier or _term_times(line, v) != 1 or sum(1 for x in terms if x.value == v) > 1:
            continue
        rm = _NOUN_AFTER_RE.match(solution, comps[steps[0]].end)
        if comps[steps[0]].source != "annotation" or not places[0].slug or rm is None:
            continue
        gnoun, rnoun = _stem(places[0].slug), _stem(rm.group(1))
        if gnoun == rnoun or gnoun in _NOT_A_NOUN or rnoun in _NOT_A_NOUN:
            continue
        words = _line_words(line)
        others = _other_numbers_nouns(line, v)
        if gnoun in others or rnoun in others:
            continue  # "Over 12 weeks she has saved 20+40+80": the weeks are the 12's (train 4295)
        if gnoun in words and rnoun not in words:
            decided[n] = None
        elif rnoun in words and gnoun not in words:
            decided[n] = steps[0]
    return _keep_decided(readings, ch, decided, lambda j: NOUN_EVIDENCE if j is not None else
                         "the words: the line writes the noun of the question's number, not the earlier result's")


def _other_numbers_nouns(line: str, v: Fraction) -> set[str]:
    """The stems of the words right after each number of the line other than ``v`` (annotations
    left out): a noun that another number counts names that number's quantity, not ``v``'s."""
    from qcstation.core.reading.words import ANNOTATION, NUMERAL, numeral_value

    text = ANNOTATION.sub(" ", line)
    out: set[str] = set()
    for m in NUMERAL.finditer(text):
        if numeral_value(m) == v:
            continue
        after = re.match(r"\s*([A-Za-z]+)", text[m.end():m.end() + 40])
        if after:
            out.add(_stem(after.group(1)))
    return out


#: the evidence of a link the nouns of a line decide (see :func:`_decide_by_line_nouns`)
NOUN_EVIDENCE = "the words: the line writes the earlier result's noun, not the question's number's"


def _term_times(line: str, v: Fraction) -> int:
    """How often a line writes ``v`` other than as a step's result ("2 teams * 1 coach per team =
    <<2*1=2>>2 coaches" writes the 2 teams once): annotations and the number after each left out;
    a division written before its result ("6 / 12 = .5") writes its two numbers, not a fraction."""
    return _written_times(_DIVISION_RE.sub(r"\1 ÷ \2", _RESULT_AFTER_RE.sub(" ", line)), v)


_DIVISION_RE = re.compile(r"(?<![\d.])(\d+)\s*/\s*(\d+)(?=\s*=)")


_RESULT_AFTER_RE = re.compile(r"<<[^<>]*>>\s*\$?\s*[\d.,/]*")


def _written_times(line: str, v: Fraction) -> int:
    """How often a line writes ``v`` (its annotations left out)."""
    from qcstation.core.reading.words import ANNOTATION, NUMERAL, numeral_value

    return sum(1 for m in NUMERAL.finditer(ANNOTATION.sub(" ", line)) if numeral_value(m) == v)


_PERCENT_WORD = frozenset({"%", "perc", "percent", "pct"})


def _names_percent(stems: frozenset[str]) -> bool:
    return any(w.startswith("perc") or w in _PERCENT_WORD for w in stems)


def _decide_percent_places(readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]],
                           ch: _Choices, comps: list[Computation], exprs: list[Expr], givens: Givens,
                           solution: str,
                           ) -> dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]]:
    """A value the question states only as a percent ("candidate A got 20% of the votes") that
    one earlier step computed as a count ("100 x 20/100 = 20 votes"): where a step divides the
    number by 100 ("40/100 * 40"), it is the question's percent; where the step writes it as no
    percent (not divided by 100, the step's result and the earlier one named as no percent, the
    line writing no "20%"), it is the earlier result ("20 x 50/100 = 10 more votes": the 50 is
    the percent, the 20 the votes). A term "(20*50)/100" divides one of its two numbers by 100:
    the 20 is the count only where the 50 is a percent the question states and no earlier
    result. Only where one reading is left."""
    decided: dict[int, int | None] = {}
    for n, i, k, terms, v in open_numbers(readings, ch, exprs):
        steps = [j for j in ch.options[n] if j is not None]
        if None not in ch.options[n] or len(steps) != 1 or not _percent_only(givens, v) \
                or sum(1 for x in terms if x.value == v) > 2:
            continue
        j = steps[0]
        said, own = _result_stems(solution, comps[j]), _result_stems(solution, comps[i])
        if not said or _names_percent(said) or _names_percent(own):
            continue  # the earlier result names nothing, or is a percent itself ("100-60 = 40%")
        line = ANNOTATION_RE.sub(" ", _line_at(solution, comps[i].start))
        slots = _percent_slots(exprs[i])
        mine = [sl for sl in slots if k in sl]
        as_percent = len(re.findall(rf"(?<![\d.]){re.escape(terms[k].text or fmt(v))}\s*(?:%|percent)", line, re.I))
        if as_percent > sum(1 for sl in slots if len(sl) == 1 and terms[next(iter(sl))].value == v):
            continue  # the line writes this value as a percent more often than the step divides it by 100
        if not mine:
            decided[n] = j
        elif len(mine) == 1 and mine[0] == {k}:
            decided[n] = None
        elif len(mine) == 1 and len(mine[0]) == 2:
            (m,) = mine[0] - {k}
            w = terms[m].value
            fixed = (i, m) not in ch.keys or ch.options[ch.keys.index((i, m))] == [None]
            if m >= 0 and w != v and fixed and _percent_only(givens, w):
                decided[n] = j
    return _keep_decided(readings, ch, decided, lambda j: PERCENT_EVIDENCE if j is not None else
                         "the words: the question states this value as a percent and the step divides it by 100")


#: the evidence of a link the question's percent decides (see :func:`_decide_percent_places`)
PERCENT_EVIDENCE = ("the words: the question states this value only as a percent; the step writes it as "
                    "no percent, and the earlier result counts what it counts")


#: the evidence of a link the line's words make against the clause of the question's number
CLAUSE_EVIDENCE = "the words: the line writes the earlier result's line, not the clause of the question's number"


#: the evidence of a link the words make where the question states the same value elsewhere and
#: the solution does not use that place (see :func:`_readings_the_words_free`)
FREED_EVIDENCE = "the words: the line names it as the earlier result does, not as the question's place of this value"


def resolve_links(
    comps: list[Computation], exprs: list[Expr], names: list[str], givens: Givens | None,
    notes: list[str], solution: str | None = None,
) -> tuple[list[Expr], list[dict[str, str]]]:
    """Decide, for every number written in a step, whether it is a given or an earlier
    step's result. Without a question: the most recent step with that written result
    (the historical behaviour). With one: a link is fixed only when the value is not
    stated by the question, is not a common factor, and one earlier step has it; every
    other candidate is settled by structure (each step before the answer is used, each
    given the solution uses stays used), and a solution with more than one such
    structure is ambiguous (RuleError)."""
    written = [c.written for c in comps]
    # a bare restatement (<<8=8>>8) computes nothing: it is never what a later step uses,
    # and nothing needs to use it
    bare = {j for j, c in enumerate(comps) if literal_value(c.expr) is not None}
    # a fraction a step writes ("100 / (2/3)") is an earlier result only where that step's line
    # writes it as its result ("1 - (1/3) = 2/3", read by :mod:`.chains`)
    fraction_results = frozenset(j for j, c in enumerate(comps)
                                 if c.source == CHAIN_SOURCE and _FRACTION_END.search(c.raw))
    ch = _link_choices(written, exprs, givens, bare, fraction_results)
    n_combos = 1
    for c in ch.options:
        n_combos *= len(c)
    if n_combos > MAX_LINK_CHOICES:
        raise RuleError(
            f"{len(ch.options)} numbers of the solution could each be a given or an earlier result; "
            "too many readings to settle by rule", "Ambiguous solution")
    if givens is not None and solution:
        _keep_implied_constants(ch, comps, exprs, givens, solution)
        drop_unstated_literals(ch, comps, exprs, givens, solution)
    used_givens = _occurrences(givens, {v for e in exprs for v in literal_values(e)})
    readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]] = {}
    all_assign = list(itertools.product(*ch.options)) if ch.options else [()]
    for assign in all_assign:
        linked = _apply(exprs, names, ch.keys, assign, ch.negated)
        if len(all_assign) == 1 or _uses_everything(linked, names, bare, used_givens, givens):
            readings.setdefault(tuple(canon(e) for e in linked), (assign, linked))
    if not readings and solution and givens is not None:
        readings = _readings_the_words_free(ch, comps, exprs, names, bare, used_givens, givens, solution)
    if not readings:
        raise RuleError(
            "no reading of the solution uses every step and every given it states "
            "(a number could be a given or an earlier result)", "Ambiguous solution")
    if len(readings) > 1 and givens is not None:
        readings = _equal_terms_distinct(readings, ch, exprs, givens)
    if len(readings) > 1 and solution and givens is not None:
        from qcstation.core.construct.make.rules.multiplier_words import decide_multiplier_words

        readings = decide_multiplier_words(readings, ch, comps, exprs, givens, solution)
    if len(readings) > 1 and solution and givens is not None:
        # the words decide between the readings where they can (see _decide_by_words)
        open_keys = [o.n for o in open_numbers(readings, ch, exprs)]
        decided = _decide_by_words(ch, comps, exprs, givens, solution, open_keys)
        if decided:
            kept = {key: r for key, r in readings.items()
                    if all(r[0][n] == choice for n, choice in decided.items())}
            if len(kept) == 1:
                readings = kept
            for n in decided:
                said = "the words: the line names it as the earlier result does" \
                    if decided[n] is not None else "the words: the line names it as the question does"
                if len(kept) == 1:
                    ch.evidence[ch.keys[n]] = said
                else:
                    ch.partial.setdefault(n, {})[decided[n]] = said
    if len(readings) > 1 and solution and givens is not None:
        readings = _decide_by_clause(readings, ch, comps, exprs, givens, solution)
    if len(readings) > 1 and solution and givens is not None:
        readings = _decide_unworded_factors(readings, ch, comps, exprs, givens, solution)
    if len(readings) > 1 and solution and givens is not None:
        readings = _decide_by_line_nouns(readings, ch, comps, exprs, givens, solution)
    if len(readings) > 1 and solution and givens is not None:
        from qcstation.core.construct.make.rules.sum_nouns import decide_by_sum_nouns

        readings = decide_by_sum_nouns(readings, ch, comps, exprs, givens, solution)
    if len(readings) > 1 and solution and givens is not None:
        readings = decide_by_structure(readings, ch, comps, exprs, givens, solution)
    if len(readings) > 1 and solution and givens is not None:
        from qcstation.core.construct.make.rules.carried import decide_carried

        readings = decide_carried(readings, ch, comps, exprs, givens, solution)
    if len(readings) > 1 and solution and givens is not None:
        from qcstation.core.construct.make.rules.result_lines import decide_compared_results, decide_results_by_line

        readings = decide_results_by_line(readings, ch, comps, exprs, givens, solution)
        if len(readings) > 1:
            readings = decide_compared_results(readings, ch, comps, exprs, givens, solution)
        if len(readings) > 1:
            from qcstation.core.construct.make.rules.result_lines import decide_factor_words

            readings = decide_factor_words(readings, ch, comps, exprs, givens, solution)
        if len(readings) > 1:
            from qcstation.core.construct.make.rules.currency import decide_by_currency

            readings = decide_by_currency(readings, ch, comps, exprs, givens, solution)
        if len(readings) > 1:
            from qcstation.core.construct.make.rules.currency import decide_by_money_result

            readings = decide_by_money_result(readings, ch, comps, exprs, givens, solution)
        if len(readings) > 1:
            from qcstation.core.construct.make.rules.signed_terms import decide_by_decrease

            readings = decide_by_decrease(readings, ch, comps, exprs, givens, solution)
        if len(readings) > 1:
            readings = _decide_percent_places(readings, ch, comps, exprs, givens, solution)
        if len(readings) > 1:
            readings = decide_percent_results(readings, ch, comps, exprs, givens, solution)
        if len(readings) > 1:
            readings = decide_percent_wholes(readings, ch, comps, exprs, givens, solution)
    if len(readings) > 1 and givens is not None:
        from qcstation.core.construct.make.rules.added_multipliers import drop_added_multipliers

        readings = drop_added_multipliers(readings, ch, exprs, givens)  # "2 + 8 books" adds no "two times"
    if len(readings) > 1 and solution and givens is not None:
        readings = decide_together(readings, ch)
    if len(readings) > 1:
        diffs = [(i, k) for n, (i, k) in enumerate(ch.keys)
                 if len({r[0][n] for r in readings.values()}) > 1]
        i, k = diffs[0] if diffs else ch.keys[0]
        value = leaves(exprs[i])[k].value
        raise RuleError(
            f"ambiguous solution: the {fmt(value)} in step {i + 1} ({comps[i].expr_text}) could be "
            "a number of the question or an earlier step's result; "
            f"{len(readings)} readings fit", "Ambiguous solution")
    assign, linked = next(iter(readings.values()))
    links: list[dict[str, str]] = []
    for (i, k), j in zip(ch.keys, assign):
        if j is None:
            continue
        links.append({"step": names[i], "uses": names[j], "value": fmt(written[j]),
                      "evidence": ch.evidence[(i, k)]})
    return linked, links
