"""The numbers a question states, and the words around them.

:class:`Givens` lists the question's numbers (digits, fractions, number words, a
percent also as its fraction) in order, and binds the literals of a formalization to
them as named constants. :data:`COMMON_FACTORS` are values a solution writes without
the question stating them (60 minutes an hour, 100 for a percent).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple
from dataclasses import replace
from fractions import Fraction

from qcstation.common.memo import digits_masked, text_memo
from qcstation.core.reading.answers import decimal_fraction
from qcstation.core.reading.words import WORD_GIVENS, stem, words_at
from qcstation.core.reading.textnumbers import word_key
from qcstation.core.construct.make.rules.elided import with_elided_nouns
from qcstation.core.construct.make.rules.binding import Binder, QuestionNumber
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num, fmt
from qcstation.core.construct.make.rules.phrases import stated_word_givens


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
    # a mixed number ("1 1/2 dozen") is one number, 3/2 (never a 1 and a half)
    r"(?<![\w.])(?:(?<![:,/])(?P<whole>[1-9]\d{0,2})\s(?=\d+/\d+(?![\d./])))?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*(?P<den>\d+)(?![\d.]))?"
)
_Q_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_Q_WORDS.update({w: 10 * i for i, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)})
_Q_WORDS["dozen"] = 12
# "forty-two" is one number, 42 (not a forty and a two)
_Q_WORDS.update({f"{t}-{u}": _Q_WORDS[t] + _Q_WORDS[u]
                 for t in "twenty thirty forty fifty sixty seventy eighty ninety".split()
                 for u in "one two three four five six seven eight nine".split()})
# "three hundred feet", "a one hundred dollar bill": one number, 300 (never a three); not a hundred
# that another number word or a larger scale goes on ("two hundred fifty", "three hundred thousand":
# those words are read as before, each apart, and the rules refuse what they cannot read)
_HUNDREDS = {f"{u} hundred": _Q_WORDS[u] * 100 for u in "one two three four five six seven eight nine".split()}
_Q_WORDS.update(_HUNDREDS)
_HUNDRED_RE = (r"(?:one|two|three|four|five|six|seven|eight|nine) hundred(?![\w-])"
               r"(?!\s+(?:and\s+)?(?:" + "|".join(w for w in sorted(_Q_WORDS, key=len, reverse=True)
                                               if w not in _HUNDREDS and w != "dozen")
               + r"|thousand|million|billion)\b)")
_Q_WORD_RE = re.compile(r"\b(" + _HUNDRED_RE + "|" + "|".join(sorted((w for w in _Q_WORDS if w not in _HUNDREDS),
                                                                  key=len, reverse=True)) + r")\b", re.I)
# a number word that is the numerator of a fraction in words ("Two-thirds", "three quarters")
_NUMERATOR_RE = re.compile(r"-(?:halves|half|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?)\b"
                           r"|\s(?:thirds|fifths|sixths|sevenths|eighths|ninths|tenths)\b", re.I)
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


_FACTOR_WORDS_RE: tuple[tuple[Fraction, re.Pattern[str]], ...] = tuple(
    (Fraction(v), re.compile(words)) for v, words in _FACTOR_WORDS.items())


def _plausible_factors(question: str) -> frozenset[Fraction]:
    q = question.lower()
    return frozenset(v for v, words in _FACTOR_WORDS_RE if words.search(q))



# "an hour", "an ounce": the 1 a solution writes for it ("1 hour") is a given stated in words;
# only units (a person or a thing after "a" is no count: "An adult weighs 80 kg")
_ARTICLE_RE = re.compile(
    r"\b(an?)\s+(hour|minute|second|day|week|month|year|ounce|pound|gallon|quart|pint|cup|liter|litre"
    r"|mile|kilometer|meter|metre|inch|foot|yard|kilogram|gram|dollar|cent)\b", re.IGNORECASE)


_PERCENT_AFTER_RE = re.compile(r"\s*(?:%|percent\b)")


class _Layout(NamedTuple):
    """What :class:`Givens` reads of a question apart from its numbers' digits (:func:`_layout`)."""

    #: (start, end, the numerator's span, the denominator's, the whole part's, slug, stems, a
    #: percent right after it) of each number written in digits
    numbers: tuple[tuple[int, int, tuple[int, int], tuple[int, int] | None, tuple[int, int] | None,
                         str, frozenset[str], bool], ...]
    #: (start, text, key into _Q_WORDS, slug, stems, a percent right after it) of each number word
    words: tuple[tuple[int, str, str, str, frozenset[str], bool], ...]
    #: (start, text, slug, stems) of each "an hour"
    articles: tuple[tuple[int, str, str, frozenset[str]], ...]
    #: the (numerator, denominator) of each fraction stated in words, in the order stated
    word_fractions: tuple[tuple[Fraction, Fraction], ...]
    word_values: frozenset[Fraction]
    factors: frozenset[Fraction]


@text_memo(maxsize=256)
def _layout(masked: str) -> _Layout:
    """Where a question writes its numbers and the words around them, read from its text with the
    digits masked (:func:`~qcstation.common.memo.digits_masked`): the patterns read a digit's
    class and place only (and whether it is 0), the words are letters, so the reading is the
    question's own (pinned by test_givens_layout); the variants of a question share it."""
    numbers = []
    for m in _Q_NUMBER_RE.finditer(masked):
        numbers.append((m.start(), m.end(), m.span("num"), m.span("den") if m.group("den") else None,
                        m.span("whole") if m.group("whole") else None, _slug_after(masked, m.end()),
                        words_at(masked, m.start(), m.end()), bool(_PERCENT_AFTER_RE.match(masked, m.end()))))
    words = []
    for m in _Q_WORD_RE.finditer(masked):
        if _NUMERATOR_RE.match(masked, m.end()):
            continue  # the "two" of "two-thirds" is that fraction's, never a given of its own
        words.append((m.start(), m.group(0), word_key(m.group(1), _Q_WORDS), _slug_after(masked, m.end()),
                      words_at(masked, m.start(), m.end()), bool(_PERCENT_AFTER_RE.match(masked, m.end()))))
    articles = tuple((m.start(), m.group(0), _slug_after(masked, m.end(1)), words_at(masked, m.start(), m.end(1)))
                     for m in _ARTICLE_RE.finditer(masked))
    # the fractions the question states in words ("half", "a quarter", "two-thirds"):
    # a solution's 1/2 for "half" is that one given, never a 1 and a 2
    stated = [WORD_GIVENS[phrase] for phrase in stated_word_givens(masked.lower())]
    return _Layout(tuple(numbers), tuple(words), articles,
                   tuple((Fraction(vals[0].numerator), Fraction(vals[0].denominator)) for vals in stated
                         if vals[0].denominator > 1),
                   frozenset(v for vals in stated for v in vals), _plausible_factors(masked))


class Givens:
    """The numbers a question states (digits, fractions, mixed numbers such as "1 1/2", number
    words), in order."""

    def __init__(self, question: str) -> None:
        self.question = question
        self.numbers: list[QuestionNumber] = []
        self.fractions: set[tuple[str, str]] = set()
        # where the numbers stand and the words around them, read once per masked text
        # (:func:`_layout`); their values are this text's own
        layout = _layout(digits_masked(question))
        for start, end, (num_a, num_b), den_at, whole_at, slug, stems, percent_after in layout.numbers:
            num = question[num_a:num_b].replace(",", "")
            den_text = question[den_at[0]:den_at[1]] if den_at else None
            try:
                if den_text:
                    den = int(den_text)
                    if den == 0:
                        continue
                    value = Fraction(num) / den
                    if whole_at:
                        value += int(question[whole_at[0]:whole_at[1]])
                    else:
                        self.fractions.add((num, den_text))
                else:
                    value = decimal_fraction(num)
            except (ValueError, ZeroDivisionError):
                continue
            text = question[start:end]
            self.numbers.append(QuestionNumber(value, text, start, slug, stems=stems))
            if percent_after and not den_text:
                # "45%" is also the fraction 45/100 a solution may write as .45
                self.numbers.append(QuestionNumber(value / 100, text + "%", start, slug, percent=True))
        for start, text, key, slug, stems, percent_after in layout.words:
            self.numbers.append(QuestionNumber(Fraction(_Q_WORDS[key]), text, start, slug, stems=stems))
            if percent_after:
                # "ten percent" is also the fraction 10/100 a solution may write as 0.10, as "10%" is
                self.numbers.append(QuestionNumber(Fraction(_Q_WORDS[key], 100), text + "%", start, slug, percent=True))
        self.numbers = _mixed_in_words(self.numbers, question)
        self.numbers = _sized_nouns(with_elided_nouns(sorted(self.numbers, key=lambda n: n.start), question),
                                    question)
        # "an hour", "a pen": a 1 stated in words, bound only where the solution names the same
        # thing after its 1 ("1 hour"); never a number of the question otherwise
        self.articles = [QuestionNumber(Fraction(1), text, start, slug, stems=stems)
                         for start, text, slug, stems in layout.articles]
        self.values: set[Fraction] = {n.value for n in self.numbers}
        self.word_fractions: set[tuple[Fraction, Fraction]] = set(layout.word_fractions)
        #: the values of the word givens the question states ("half": 1/2 and 2), read once
        self.word_values: frozenset[Fraction] = layout.word_values
        self.factors = layout.factors
        self._names: dict[str, QuestionNumber] = {}
        self.order_bound: list[Fraction] = []
        #: values one use of which took the first of several places by order only, a place left unused
        self.order_unsettled: list[Fraction] = []

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

    def bind(self, exprs: list[Expr], lines: list[str] | None = None, joint: bool = False,
             forced: dict[tuple[int, Fraction, int], int] | None = None,
             ) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]]]:
        """Replace each literal that is a number of the question by a named constant.

        A use is tied to the occurrence whose words agree with the words the solution writes
        after it on the step's line (``lines[i]``: "$1 extra" is the question's "$1 extra",
        not its "one popcorn"). Where no single occurrence agrees, the i-th use of a value
        the question states k times is its min(i, k-1)-th occurrence (by order: recorded in
        :attr:`order_bound` when that decides anything). A 1 is bound only where its words
        agree (also with a question's "an hour" for the solution's "1 hour") or the question
        writes 1 once in digits; otherwise it stays the literal 1 of an identity ("3 + 1
        people" counting oneself). Returns the new expressions and the constants (name,
        value, term).

        With ``joint``, the uses of a value the question states at several places are first
        assigned to them jointly by the words (:func:`~.joint.forced_places`, over a first walk).
        ``forced``: places a caller's reading settled ((step, value, nth use) -> index into
        :attr:`numbers`, or :data:`~.binding.NOT_A_PLACE` for the question's word)."""
        if joint:
            from qcstation.core.construct.make.rules.joint import forced_places

            first = Binder(self.question, self.numbers, self.articles, {}, exprs, lines)
            first.run()
            forced = forced_places(first)
        binder = Binder(self.question, self.numbers, self.articles, self._names, exprs, lines, forced)
        out = binder.run()
        self.order_bound = binder.order_bound()
        from qcstation.core.construct.make.rules.restated_places import one_quantity

        # "his 4 friends" ... "each of his 4 friends": one quantity, whichever place a use takes
        self.order_unsettled = [v for v in binder.order_unsettled()
                                if not one_quantity(self.question, [n for n in self.numbers if n.value == v])]
        return out, binder.constants()

    def uncertain(self, of: str = "solution") -> list[str]:
        """Why the last :meth:`bind` is uncertain: the values whose uses were tied to the
        question's places by order only (``of``: "solution" or "equation")."""
        return [f"the question states {fmt(v)} more than once; the {of}'s uses of {fmt(v)} were tied "
                f"to those places in order" for v in self.order_bound] + [
                f"the question states {fmt(v)} at several places and the words decide none for the "
                f"{of}'s use of it (the first place would be taken by order only)" for v in self.order_unsettled]


def _mixed_in_words(numbers: list[QuestionNumber], question: str) -> list[QuestionNumber]:
    """``numbers`` with each mixed number written with words ("2 and a half dozen", "two and a half
    hours": :func:`~qcstation.core.reading.word_values.mixed_number_places`) one number, 5/2, beside
    its whole ("2", "two"): a solution writes it as 2.5 or as its whole and its half ("3 1/2 * B" of
    "three and a half boxes", test 1003: read as (3 + 1/2), the 3 the whole's)."""
    from qcstation.core.reading.word_values import mixed_number_places

    mixed = mixed_number_places(question)
    if not mixed:
        return numbers
    out = list(numbers)
    for a, b, text, value in mixed:
        out.append(QuestionNumber(value, text, a, _slug_after(question, b), stems=words_at(question, a, b)))
    return sorted(out, key=lambda n: n.start)


_SIZED = re.compile(r"-[A-Za-z]+\s+([A-Za-z]+)")


def _sized_nouns(numbers: list[QuestionNumber], question: str) -> list[QuestionNumber]:
    """Places of one value named alike only by the unit hyphened to each ("2-cup bags", "2-cup
    bottles", 403): each is also named by the noun its unit sizes, which tells them apart."""
    out = list(numbers)
    for i, n in enumerate(numbers):
        twins = [m for m in numbers if m.value == n.value and m.start != n.start and m.stems == n.stems]
        sized = _SIZED.match(question, n.start + len(n.text))
        if twins and sized and all(_SIZED.match(question, m.start + len(m.text)) for m in twins):
            out[i] = replace(n, stems=n.stems | {stem(sized.group(1))})
    return out


def question_numbers(question: str | None) -> Givens:
    return Givens(question or "")


_NUMBER_WORD_SPLIT = r"\b(?:" + "|".join(w for w in _Q_WORDS if w not in ("dozen", "one", "zero")) + r")\b"
_PCT_SLUG_RE = re.compile(r"\s*(?:%|percent\b)\s*([A-Za-z]+)?", re.I)
_SLUG_SPLIT_RE = re.compile(r"[.!?;:,\d]|\b(?:and|or|but|while|whereas|how|what|why|than)\b|" + _NUMBER_WORD_SPLIT,
                            re.I)
_ORDINAL_RE = re.compile(r"^(?:st|nd|rd|th)\b")
_COMPOUND_RE = re.compile(r"\b[A-Za-z]+-([A-Za-z]+)\b(?=(\s+[A-Za-z]+)?)")


def _slug_after(text: str, end: int) -> str:
    # "A pencil costs $1.20 and an eraser costs $0.30": what follows "and" is the next thing's
    # (a name g1_eraser for the pencil's price would mislead whoever reads the formalization);
    # "If he wants to save $80 how many weeks ...": nor is the question's (g4_weeks for $80)
    # "5% of the original price": what follows "of" is the base the percent is taken of (a
    # name g1_original for the 5 would name the 120); the name says it is a percent
    pct = _PCT_SLUG_RE.match(text[end:end + 30])
    if pct and (pct.group(1) is None or pct.group(1).lower() in STOPWORDS):
        return "pct"
    # "$1 less than three times the price": after "than" comes another quantity, never this one's
    # and a number word starts another quantity ("$40000 four years ago": not g2_years)
    after = _SLUG_SPLIT_RE.split(text[end : end + 60], maxsplit=1)[0]
    after = _ORDINAL_RE.sub("", after)  # "its 20th anniversary": no g2_th
    # "$40 for a foot-long fish sub": a compound before a noun says what kind, not what it
    # counts; one that is the noun itself ("96 fourth-graders at ...") names it by its last part
    after = _COMPOUND_RE.sub(
        lambda m: " " if m.group(2) and m.group(2).strip().lower() not in STOPWORDS else " " + m.group(1),
        after)
    words = [w for w in content_words(after) if w.isalpha()][:1]
    return "_".join(words)[:16]


def text_numbers(text: str) -> set[Fraction]:
    out: set[Fraction] = set()
    for m in _Q_NUMBER_RE.finditer(text):
        try:
            v = Fraction(m.group("num").replace(",", ""))
            v = v / int(m.group("den")) if m.group("den") and int(m.group("den")) else v
            out.add(v + int(m.group("whole")) if m.group("whole") and m.group("den") else v)
        except (ValueError, ZeroDivisionError):
            continue
    return out


def protect_fractions(expr: Expr, givens: Givens | None) -> Expr:
    """A fraction the question states (``1/2``) stays one given: ``12*1/2`` becomes
    ``12 * (1/2)`` with the fraction as a single number that is never linked."""
    if givens is None or not (givens.fractions or givens.word_fractions):
        return expr

    def frac(a: Num, b: Num) -> Num | None:
        if not b.value:
            return None
        if (a.text, b.text) in givens.fractions or (a.value, b.value) in givens.word_fractions:
            return Num(a.value / b.value, f"{a.text}/{b.text}")
        return None

    def parts(n: Num, d: Num) -> Num | None:
        """The stated fraction n/d written as its two parts apart ("27/3*2" for "Two thirds"),
        where neither part is a number the question states on its own."""
        if n.value.denominator != 1 or d.value.denominator != 1 or n.value in (0, 1) or d.value in (0, 1) \
                or n.value == d.value or n.value in givens.values or d.value in givens.values:
            return None
        return frac(n, d)

    return _protect(expr, frac, parts)


_CENTS_AFTER_RE = re.compile(r"\s*(?:cents?\b|¢)", re.I)


def _protect(e: Expr, frac: Callable[[Num, Num], Num | None],
             parts: Callable[[Num, Num], Num | None]) -> Expr:
    """:func:`protect_fractions` of ``e`` (a function of the module, not a closure that calls
    itself: that is a reference cycle only the cyclic garbage collector frees)."""
    if isinstance(e, Neg):
        return Neg(_protect(e.operand, frac, parts))
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
                return BinOp("*", _protect(left.left, frac, parts), f)
        if isinstance(left, BinOp) and left.op == "*" and isinstance(left.left, Num):
            f = parts(left.left, e.right)  # "4 * 60 / 5" for "four-fifths" of 60
            if f is not None:
                return BinOp("*", f, _protect(left.right, frac, parts))
    if e.op == "*" and isinstance(e.right, Num) and isinstance(e.left, BinOp) and e.left.op == "/" \
            and isinstance(e.left.right, Num):
        times = parts(e.right, e.left.right)     # "27/3*2": two thirds of 27
        over = parts(e.left.right, e.right)      # "18/2*3": 18 is two thirds of it
        if (times is None) != (over is None):
            x = _protect(e.left.left, frac, parts)
            return BinOp("*", x, times) if times is not None else BinOp("/", x, over)  # type: ignore[arg-type]
    return BinOp(e.op, _protect(e.left, frac, parts), _protect(e.right, frac, parts))


def cents_as_dollars(expr: Expr, givens: Givens | None) -> Expr:
    """A price the question states in cents that the solution writes in dollars ("chips for 40
    cents" ... "3 x .4"): the literal ``.4`` is the question's 40 over the 100 cents of a dollar,
    ``40 / k_cents_per_dollar`` (the divisor is marked as that named factor, never bound to a
    given 100 of the question). Only where the question states the value once and only with
    "cents" after it, states no number of the literal's own value, and writes no word given of
    that value ("half" for .5): anything else keeps the literal (and the rules refuse it)."""
    if givens is None:
        return expr
    q = givens.question
    cents: dict[Fraction, list[QuestionNumber]] = {}
    for n in givens.numbers:
        if not n.percent:
            cents.setdefault(n.value, []).append(n)
    words = givens.word_values

    def dollars(v: Fraction) -> Fraction | None:
        if v in givens.values or v in words or not 0 < v < 100:
            return None
        at = cents.get(v * 100, [])
        if len(at) != 1 or not _CENTS_AFTER_RE.match(q, at[0].start + len(at[0].text)):
            return None
        return v * 100

    def cents_over_dollar(e: Num) -> Expr | None:
        c = dollars(e.value)
        return None if c is None else BinOp("/", Num(c, fmt_cents(c)), Num(Fraction(100), "k_cents_per_dollar"))

    return _map_written_nums(expr, cents_over_dollar)


def _map_written_nums(expr: Expr, replace: Callable[[Num], Expr | None]) -> Expr:
    """``expr`` with each number the solution writes (a ``Num`` with text) replaced by what
    ``replace`` gives for it, or kept where it gives None."""
    if isinstance(expr, Num) and expr.text:
        r = replace(expr)
        return expr if r is None else r
    if isinstance(expr, Neg):
        return Neg(_map_written_nums(expr.operand, replace))
    if isinstance(expr, BinOp):
        return BinOp(expr.op, _map_written_nums(expr.left, replace), _map_written_nums(expr.right, replace))
    return expr


def fmt_cents(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else str(float(v))


_MORE_WORDS = re.compile(r"\b(?:more|increase[ds]?|increasing|additional|extra|markup|marked up|raise[ds]?|"
                         r"higher|taller|longer|bigger|larger|heavier|faster|expensive|tip|tax|interest|"
                         r"profit|premium|surcharge|gain(?:ed|s)?|grows?|grew|rise|rose|up|returns?\s+on)\b", re.I)
_LESS_WORDS = re.compile(r"\b(?:less|decrease[ds]?|decreasing|off|discount(?:ed|s)?|reduce[ds]?|reduction|"
                         r"fewer|lower(?:s|ed|ing)?|cheaper|shorter|smaller|lighter|slower|lose|loses|lost|loss|sale|"
                         r"drops?|dropped|falls?|fell|down|shrinks?|shrank)\b", re.I)


def percent_multipliers(expr: Expr, givens: Givens | None) -> Expr:
    """A factor the solution writes for a percent change the question states ("25% more than
    the first one" ... "80 x 1.25"; "an additional 20% cost per frame" ... "$20 * 1.20"; "20%
    off" ... "x 0.8"): the literal is ``1 + p`` or ``1 - p`` of the question's percent p, as the
    words beside that percent say (more, additional, increase... or less, off, discount...).
    Only where exactly one percent the question states (once) gives the literal that way and
    its words say which way; the literal is no number the question states, and no word given's
    value. Anything else keeps the literal (and the rules refuse it)."""
    if givens is None:
        return expr
    q = givens.question
    words = givens.word_values
    pcts: dict[Fraction, list[QuestionNumber]] = {}
    for n in givens.numbers:
        if n.percent:
            pcts.setdefault(n.value, []).append(n)

    def change(v: Fraction) -> tuple[str, Fraction] | None:
        if v in givens.values or v in words or v <= 0 or v == 1:
            return None
        found = []
        for op, p in (("+", v - 1), ("-", 1 - v)):
            at = pcts.get(p, [])
            if p <= 0 or len(at) != 1:
                continue
            n = at[0]
            around = q[max(0, n.start - 30):n.start] + " " + q[n.start:n.start + len(n.text) + 30]
            says = _MORE_WORDS if op == "+" else _LESS_WORDS
            other = _LESS_WORDS if op == "+" else _MORE_WORDS
            if not says.search(around) and not other.search(around):
                # "He increases the weight that he uses by 50%.": the verb of the percent's own
                # sentence says which way when nothing near it does
                a = max(q.rfind(c, 0, n.start) for c in ".!?") + 1
                ends = [e for e in (q.find(c, n.start + len(n.text)) for c in ".!?") if e != -1]
                around = q[a:min(ends) if ends else len(q)]
            if says.search(around) and not other.search(around):
                found.append((op, p))
        return found[0] if len(found) == 1 else None

    def one_plus_percent(e: Num) -> Expr | None:
        c = change(e.value)
        if c is None:
            return None
        op, p = c
        return BinOp(op, Num(Fraction(1), ""), Num(p, f"{fmt_cents(p * 100)}%"))

    return _map_written_nums(expr, one_plus_percent)
