"""The numbers a question states, and the words around them.

:class:`Givens` lists the question's numbers (digits, fractions, number words, a
percent also as its fraction) in order, and binds the literals of a formalization to
them as named constants. :data:`COMMON_FACTORS` are values a solution writes without
the question stating them (60 minutes an hour, 100 for a percent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from qcstation.core.construct.rules.expr import BinOp, Expr, Name, Neg, Num


STOPWORDS = frozenset(
    """a an the of per each every in on at to for and or but so that this these those it its
    he she they we you i his her their our your him them us me is are was were be been being
    has have had do does did will would can could should must may might then than there here
    with by from as into out up down about over after before more less much many total also
    just only now all some any if when which who whom what how not no yes one ones get gets got
    makes make made came come comes goes go went need needs needed left still further another
    other new old first second third last next amount number cost costs pay pays paid buy buys
    bought sell sells sold spend spends spent take takes took find found means mean therefore
    thus hence overall combined together altogether would totals x""".split()
)

_WORD_RE = re.compile(r"[A-Za-z]+")


def content_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text) if w.lower() not in STOPWORDS and len(w) > 1]


# --------------------------------------------------------------------------- the question's numbers

_Q_NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*(?P<den>\d+)(?![\d.]))?"
)
_Q_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_Q_WORDS.update({w: 10 * i for i, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)})
_Q_WORDS["dozen"] = 12
_Q_WORD_RE = re.compile(r"\b(" + "|".join(sorted(_Q_WORDS, key=len, reverse=True)) + r")\b", re.I)
# factors a solution writes without the question stating them (units, percent, halves):
# a step result equal to one of these is never linked because of the equality alone
COMMON_FACTORS = frozenset(Fraction(v) for v in (2, 3, 4, 7, 10, 12, 24, 30, 52, 60, 100, 365, 1000))
# the words of a question that make a common factor a plausible constant of its solution
# (60 minutes an hour, 100 cents a dollar, 2 for a half, ...): without them, a written 24
# that an earlier step computed is that step's result
_FACTOR_WORDS: dict[int, str] = {
    2: r"half|halves|twice|double|pair|both|two|each|every|round|per|average|split|share",
    3: r"third|triple|thrice|three|each|every|per|average|split|share",
    4: r"quarter|four|week|month|each|every|per|average|split|share",
    7: r"week|day|daily",
    10: r"dime|ten|decade|cent|percent|%|tenth",
    12: r"dozen|month|year|inch|foot|feet|hour|twelve",
    24: r"day|hour|daily",
    30: r"month|day|minute|half",
    52: r"week|year",
    60: r"minute|hour|second|mph|speed|per",
    100: r"percent|%|cent|dollar|\$|century|hundred",
    365: r"year|day|annual",
    1000: r"thousand|kilo|gram|meter|metre|liter|litre|ml|\bkm|\bkg",
}


def _plausible_factors(question: str) -> frozenset[Fraction]:
    q = question.lower()
    return frozenset(Fraction(v) for v, words in _FACTOR_WORDS.items() if re.search(words, q))


@dataclass
class QuestionNumber:
    value: Fraction
    text: str  # as written: "12", "$1,500", "1/2", "three"
    start: int
    slug: str  # the word after it ("millimeters")
    percent: bool = False  # the fraction p/100 of a "p%" the question states


class Givens:
    """The numbers a question states (digits, fractions, number words), in order."""

    def __init__(self, question: str) -> None:
        self.numbers: list[QuestionNumber] = []
        self.fractions: set[tuple[str, str]] = set()
        for m in _Q_NUMBER_RE.finditer(question):
            num = m.group("num").replace(",", "")
            try:
                if m.group("den"):
                    den = int(m.group("den"))
                    if den == 0:
                        continue
                    value = Fraction(num) / den
                    self.fractions.add((num, m.group("den")))
                else:
                    value = Fraction(num)
            except (ValueError, ZeroDivisionError):
                continue
            self.numbers.append(QuestionNumber(value, m.group(0), m.start(), _slug_after(question, m.end())))
            if re.match(r"\s*(?:%|percent\b)", question[m.end():]) and not m.group("den"):
                # "45%" is also the fraction 45/100 a solution may write as .45
                self.numbers.append(QuestionNumber(value / 100, m.group(0) + "%", m.start(),
                                                   _slug_after(question, m.end()), percent=True))
        for m in _Q_WORD_RE.finditer(question):
            self.numbers.append(QuestionNumber(Fraction(_Q_WORDS[m.group(1).lower()]), m.group(0),
                                               m.start(), _slug_after(question, m.end())))
        self.numbers.sort(key=lambda n: n.start)
        self.values: set[Fraction] = {n.value for n in self.numbers}
        self.factors = _plausible_factors(question)
        self._names: dict[str, QuestionNumber] = {}
        self.order_bound: list[Fraction] = []

    def place_of(self, name: str) -> dict[str, object] | None:
        """Where the question states the given ``name``: ``span`` [start, end], the ``words``
        at it, and its ``kind`` (number | word | percent | fraction)."""
        n = self._names.get(name)
        if n is None:
            return None
        words = n.text[:-1] if n.percent else n.text
        kind = ("percent" if n.percent else "fraction" if "/" in words
                else "word" if words[:1].isalpha() else "number")
        return {"span": [n.start, n.start + len(words)], "words": words, "kind": kind}

    def text_of(self, name: str) -> str:
        n = self._names.get(name)
        return n.text if n else ""

    def bind(self, exprs: list[Expr]) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]]]:
        """Replace each literal that is a number of the question by a named constant.
        The i-th use of a value the question states k times is its min(i, k-1)-th
        occurrence. Returns the new expressions and the constants (name, value, term)."""
        by_value: dict[Fraction, list[int]] = {}
        for i, n in enumerate(self.numbers):
            by_value.setdefault(n.value, []).append(i)
        uses: dict[Fraction, int] = {}
        chosen: dict[int, str] = {}
        order: list[int] = []

        def walk(e: Expr) -> Expr:
            if isinstance(e, Num):
                if not e.text or e.value not in by_value:
                    return e
                occ = by_value[e.value]
                k = uses.get(e.value, 0)
                uses[e.value] = k + 1
                idx = occ[min(k, len(occ) - 1)]
                if idx not in chosen:
                    n = self.numbers[idx]
                    name = f"g{len(chosen) + 1}" + (f"_{n.slug}" if n.slug else "") + ("_pct" if n.percent else "")
                    chosen[idx] = name
                    order.append(idx)
                    self._names[name] = n
                return Name(chosen[idx])
            if isinstance(e, Neg):
                return Neg(walk(e.operand))
            if isinstance(e, BinOp):
                return BinOp(e.op, walk(e.left), walk(e.right))
            return e

        out = []
        used_in: dict[Fraction, set[int]] = {}
        for i, e in enumerate(exprs):
            before = dict(uses)
            out.append(walk(e))
            for v, k in uses.items():
                if k != before.get(v, 0):
                    used_in.setdefault(v, set()).add(i)

        def immaterial(v: Fraction) -> bool:
            # "3 sprints 3 times a week" -> 3*3: every occurrence used once, all in one sum
            # or product, so which is which changes nothing
            places = {self.numbers[i].start for i in by_value[v]}
            steps = used_in.get(v, set())
            if uses[v] != len(places) or len(steps) != 1:
                return False
            e = exprs[next(iter(steps))]
            return isinstance(e, BinOp) and e.op in "*+" and _flat_ops(e) <= {e.op}

        # a value the question states more than once, used more than once: which use is
        # which occurrence is read from their order only (uncertain: say so)
        self.order_bound = sorted(v for v, k in uses.items()
                                  if k > 1 and len({self.numbers[i].start for i in by_value[v]}) > 1
                                  and not immaterial(v))
        consts: list[tuple[str, Fraction, Expr]] = []
        for idx in order:
            n = self.numbers[idx]
            term: Expr = Num(n.value, n.text)
            if n.percent:
                term = BinOp("/", Num(n.value * 100), Num(Fraction(100)))
            elif n.value.denominator != 1 and "/" in n.text:
                term = BinOp("/", Num(Fraction(n.value.numerator)), Num(Fraction(n.value.denominator)))
            consts.append((chosen[idx], n.value, term))
        return out, consts


def _flat_ops(e: Expr) -> set[str]:
    """The operators of a term (its leaves' parents), for "is it one sum or one product"."""
    if isinstance(e, BinOp):
        return {e.op} | _flat_ops(e.left) | _flat_ops(e.right)
    if isinstance(e, Neg):
        return {"neg"} | _flat_ops(e.operand)
    return set()


def question_numbers(question: str | None) -> Givens:
    return Givens(question or "")


def _slug_after(text: str, end: int) -> str:
    after = re.split(r"[.!?;:,\d]", text[end : end + 60], maxsplit=1)[0]
    words = [w for w in content_words(after) if w.isalpha()][:1]
    return "_".join(words)[:16]


def text_numbers(text: str) -> set[Fraction]:
    out: set[Fraction] = set()
    for m in _Q_NUMBER_RE.finditer(text):
        try:
            v = Fraction(m.group("num").replace(",", ""))
            out.add(v / int(m.group("den")) if m.group("den") and int(m.group("den")) else v)
        except (ValueError, ZeroDivisionError):
            continue
    return out


def protect_fractions(expr: Expr, givens: Givens | None) -> Expr:
    """A fraction the question states (``1/2``) stays one given: ``12*1/2`` becomes
    ``12 * (1/2)`` with the fraction as a single number that is never linked."""
    if givens is None or not givens.fractions:
        return expr

    def frac(a: Num, b: Num) -> Num | None:
        if (a.text, b.text) in givens.fractions and b.value:
            return Num(a.value / b.value, f"{a.text}/{b.text}")
        return None

    def walk(e: Expr) -> Expr:
        if isinstance(e, Neg):
            return Neg(walk(e.operand))
        if not isinstance(e, BinOp):
            return e
        if e.op == "/" and isinstance(e.right, Num):
            left = e.left
            if isinstance(left, Num):
                f = frac(left, e.right)
                if f is not None:
                    return f
            if isinstance(left, BinOp) and left.op == "*" and isinstance(left.right, Num):
                f = frac(left.right, e.right)
                if f is not None:
                    return BinOp("*", walk(left.left), f)
        return BinOp(e.op, walk(e.left), walk(e.right))

    return walk(expr)
