"""Computations written in running text (``54 − 37 = 17``, ``$4 x 3 = $12``).

:func:`find_inline_computations` finds every ``expression = number`` whose arithmetic
checks out; :func:`normalize_visible` turns written arithmetic into parser input
(currency and unit words dropped, a standalone ``x`` read as ×); :data:`VISIBLE_TAIL_RE`
matches such an expression at the end of a text (``... 7.5 / .5 = ``);
:func:`written_outside_computations`: a value a line writes in its words, not only in a computation.
Such a pattern is tried only before an ``=`` that ends it (:func:`matches_before_an_end`, also
the rules' chains'), so that a hostile chain with no end is not read again from each operand.
"""

from __future__ import annotations

import bisect
import copy
import re
from dataclasses import dataclass
from fractions import Fraction

from qcstation.common.memo import text_memo
from qcstation.core.reading.answers import decimal_fraction
from qcstation.core.reading.expr import BinOp, Expr, ExpressionError, Num, evaluate, parse_expression


# --------------------------------------------------------------------------- inline computations

NUM_TXT = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
# a unit after a number: "/hour", " sheep", " miles per gallon" (up to three words)
_UNIT_TXT = r"(?:/[A-Za-z][A-Za-z’']*|\s+(?!x(?:\s|$))[A-Za-z][A-Za-z’'\-]*(?:/[A-Za-z][A-Za-z’']*)*)"
# (each repetition bounded: an unbounded chain was read again from each of its operands where no
# "=" followed it, quadratic in the text; a written computation has a few operations)
_OPERAND_TXT = rf"(?:\(\s*){{0,16}}[$€£]?{NUM_TXT}(?:\s*%)?(?:{_UNIT_TXT}){{0,3}}(?:\s*\)){{0,16}}"
# (a number right before a parenthesis multiplies it: "9000(.30) = 2700")
_OPSYM_TXT = r"(?:\*\*|[-+*/×÷−–^]|(?<=\s)x(?=\s)|(?<=\d)x(?=\d)|(?<=[\d)])(?=\s?\()|(?<=\))(?=\s?\d))"
EXPR_TXT = rf"{_OPERAND_TXT}(?:\s*{_OPSYM_TXT}\s*{_OPERAND_TXT}){{1,64}}"
# (each pattern opening with a look-behind opens with a lookahead for the characters a match
# starts with: the same matches, found without trying the look-behind at every place)
_INLINE_END = r"\s*=\s*(?P<res>[$€£]?\s*-?" + NUM_TXT + r"(?:\s*%)?)(?!\d|/\s*\d|\.\d|,\d)"
INLINE_RE = re.compile(rf"(?=[($€£\d.])(?<![\w.,$/^*+\-×÷−–])(?P<expr>{EXPR_TXT}){_INLINE_END}")
# (tried only before an "=" that a result follows, :func:`matches_before_an_end`: from each operand
# of a chain with no such "=" after it, it read up to 64 operations again)
_INLINE_HEAD = re.compile(rf"(?=[($€£\d.])(?<![\w.,$/^*+\-×÷−–]){EXPR_TXT}(?=\s*=)")
_INLINE_ENDS_AT = re.compile(_INLINE_END)


def equals_signs(text: str) -> list[int]:
    """The offsets of the "="s of ``text``."""
    return [i for i, c in enumerate(text) if c == "="]


def matches_before_an_end(text: str, full: re.Pattern[str], head: re.Pattern[str], ends: set[int],
                          earliest: dict[int, int] | None = None) -> list[re.Match[str]]:
    """``full.finditer(text)`` for a pattern whose expression holds no "=" and is followed by
    one, tried only before an "=" of ``ends`` (those from which ``full`` goes on to its end). A
    match starts between the "=" before and that one, exactly where ``head`` (its expression up
    to the "=") matches; each place is tried once (a chain of operations with no end after it
    was read again from each operand). ``earliest``: an "=" -> the first place a match before it
    can start (:func:`_earliest_starts`), where one is known."""
    out: list[re.Match[str]] = []
    pos, prev = 0, -1
    for e in equals_signs(text):
        lo, prev = max(pos, prev + 1, earliest.get(e, 0) if earliest else 0), e
        while lo <= e and e in ends and (h := head.search(text, lo, e + 1)) is not None:
            m = full.match(text, h.start())
            if m is None:       # (not expected: ``head`` and the end are the whole pattern)
                lo = h.start() + 1
                continue
            out.append(m)
            pos = m.end()
            break
    return out


#: characters that are an operation wherever EXPR_TXT holds them (no number, unit or space of it
#: holds one)
_ALWAYS_OPERATOR = frozenset("+×÷−–^")
_UNIT_WORD_CHARS = frozenset("’'-")


def _operators(text: str) -> list[int]:
    """The places of ``text`` that a match of EXPR_TXT covering them reads as an operation, in
    order (some operations are left out: a "-" after a letter may be a unit's, "1(2)"'s is
    unwritten): "+", "×", "÷", "−", "–", "^", the first "*" of a run, a "-" after no letter of a
    word, a "/" before no letter, an "x" between spaces or digits."""
    out: list[int] = []
    n = len(text)
    for i, c in enumerate(text):
        if c in _ALWAYS_OPERATOR:
            out.append(i)
        elif c == "*":
            if not (i and text[i - 1] == "*"):
                out.append(i)
        elif c == "-":
            b = text[i - 1] if i else ""
            if not (b.isascii() and b.isalpha()) and b not in _UNIT_WORD_CHARS:
                out.append(i)
        elif c == "/":
            if not (i + 1 < n and text[i + 1].isascii() and text[i + 1].isalpha()):
                out.append(i)
        elif c == "x" and 0 < i < n - 1:
            b, a = text[i - 1], text[i + 1]
            if (b.isspace() and a.isspace()) or (b.isdecimal() and a.isdecimal()):
                out.append(i)
    return out


def _earliest_starts(text: str, ends: set[int]) -> dict[int, int]:
    """For each "=" of ``ends``, the first place an expression of INLINE_RE before it can start:
    EXPR_TXT holds at most 64 operations, so none starts at or before the 65th operation back
    from the "=". Before, a chain of thousands of operations
    ended by "= n" was read again from each operand, 64 operations each time."""
    ops = _operators(text)
    out: dict[int, int] = {}
    for e in ends:
        k = bisect.bisect_left(ops, e)
        if k > 64:
            out[e] = ops[k - 65] + 1
    return out


@dataclass
class InlineComputation:
    """A visible ``expression = result`` in running text (``54 − 37 = 17``)."""

    expr_start: int
    expr_end: int
    result_start: int
    result_end: int
    expr_text: str  # as written, e.g. "$4 x 3"
    result_text: str  # as written, e.g. "$12"
    expr: Expr  # parsed (x -> *, currency dropped); scaled by 100 for a percent result
    value: Fraction  # exact value of ``expr``
    written: Fraction  # the written result (the number shown, without % scaling)


def _strip_currency(text: str) -> str:
    return re.sub(r"[$€£]", "", text)


def _balance(text: str) -> tuple[int, int]:
    """Offsets (lead, trail) of unmatched parentheses to drop from the ends."""
    lead = 0
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                lead = -1  # a ')' before any '(' : cannot balance by trimming the left
            else:
                depth -= 1
    if lead == -1:
        return (0, len(text) - len(text.rstrip(")")))
    # drop `depth` unmatched '(' from the left
    i = 0
    remaining = depth
    while remaining and i < len(text):
        if text[i] == "(":
            remaining -= 1
        elif not text[i].isspace():
            break
        i += 1
    return (i, 0)


def _within(value: Fraction, written: Fraction, written_text: str) -> bool:
    if value == written:
        return True
    m = re.search(r"\.(\d+)", written_text)
    if not m:
        return False
    return abs(value - written) <= Fraction(1, 2 * 10 ** len(m.group(1)))


def normalize_visible(expr_text: str) -> str:
    """Written arithmetic -> parser input: currency signs and unit words dropped,
    a standalone ``x`` read as ×, a number right before a parenthesis multiplied by it. ``$20/hour * 35 hours/week`` -> ``20 * 35``."""
    text = re.sub(r"(?<=[\s\d])x(?=[\s\d])", "*", _strip_currency(expr_text))
    text = re.sub(r"(?<=[\d)])\s?(?=\()", "*", text)  # "9000(.30)", "1/2 (68)": a product
    text = re.sub(r"(?<=\))\s?(?=\d)", "*", text)  # "(1/2) 278": a product
    text = re.sub(r"/[A-Za-z][A-Za-z’']*", " ", text)
    text = re.sub(r"[A-Za-z][A-Za-z’'\-]*", " ", text)
    return text


@text_memo(maxsize=512)
def parse_visible(expr_text: str, result_text: str) -> tuple[Expr, Fraction, Fraction] | None:
    """Parse a written ``expression = result`` pair; None unless the arithmetic checks out."""
    normalized = normalize_visible(expr_text)
    res_clean = _strip_currency(result_text).strip()
    res_percent = res_clean.endswith("%")
    try:
        written = Fraction(res_clean.rstrip("%").strip().replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None
    candidates: list[Expr] = []
    try:
        if "%" in normalized:
            candidates.append(parse_expression(normalized.replace("%", "")))
            scaled = parse_expression(normalized)
            if res_percent:
                scaled = BinOp("*", scaled, Num(Fraction(100), ""))
            candidates.append(scaled)
        else:
            candidates.append(parse_expression(normalized))
    except ExpressionError:
        return None
    for cand in candidates:
        try:
            value = evaluate(cand)
        except ExpressionError:
            continue
        if _within(value, written, res_clean):
            return cand, value, written
    return None


@text_memo(lambda found: [copy.copy(c) for c in found], maxsize=256)
def find_inline_computations(text: str) -> list[InlineComputation]:
    """Every ``expression = number`` in ``text`` whose arithmetic checks out (exactly,
    or within the rounding of a written decimal). A ``%`` is read either as a unit
    mark on both sides (``100% - 80% = 20%``) or as /100 with the percent result
    scaled back (``50% * 50% = 25%``)."""
    found: list[InlineComputation] = []
    if "=" not in text:          # every match writes one (a line of prose: no search)
        return found
    ends = {e for e in equals_signs(text) if _INLINE_ENDS_AT.match(text, e)}
    for m in matches_before_an_end(text, INLINE_RE, _INLINE_HEAD, ends, _earliest_starts(text, ends)):
        expr_text = m.group("expr")
        lead, trail = _balance(expr_text)
        expr_start = m.start("expr") + lead
        expr_end = m.end("expr") - trail
        expr_text = text[expr_start:expr_end]
        result_text = m.group("res")
        parsed = parse_visible(expr_text, result_text)
        if parsed is None:
            continue
        cand, value, written = parsed
        found.append(
            InlineComputation(
                expr_start, expr_end, m.start("res"), m.end("res"),
                expr_text, result_text, cand, value, written,
            )
        )
    return found


VISIBLE_TAIL_RE = re.compile(rf"(?<![\w.,$/^*+\-×÷−–])({EXPR_TXT})\s*=\s*[$€£]?\s*$")


#: the most of a line before an "=" that :func:`visible_before` reads (a written computation is a
#: few dozen characters; the search is quadratic in what it is given)
MAX_TAIL_CHARS = 400


def visible_before(solution: str, start: int, rhs: str) -> tuple[str, Expr, Fraction] | None:
    line_start = solution.rfind("\n", 0, start) + 1
    cut = max(line_start, start - MAX_TAIL_CHARS)
    m = VISIBLE_TAIL_RE.search(solution[cut:start])
    if not m or (cut > line_start and m.start() == 0):   # it may open before the cut: refused
        return None
    parsed = parse_visible(m.group(1), rhs)
    if parsed is None:
        return None
    expr, value, _written = parsed
    return m.group(1).strip(), expr, value


#: a written computation ("3 x (4 + 5) = 27"): COMPUTATION_TXT's matches, found by
#: :func:`drop_computations` in one pass. The regex itself backtracks exponentially on
#: parentheses ("(" and ")" are both operators and operand characters: 1 s for "1" and 36 of
#: them, twice as long for each two more) and reads the rest of a line again from each number
#: with no "=" after it; it stays as the definition the scanner is tested against.
COMPUTATION_TXT = r"[\d.,$]+(?:\s*[-+*/x×÷()]\s*[\d.,$()]+)+\s*=\s*[\d.,$]*"
_OPERAND = frozenset(".,$")
_OPERATOR = frozenset("-+*/x×÷")
# the repetition (?:\s*OP\s*ARG+)+ then \s* before "=", as states: 0 before an operator (spaces
# may come), 1 after one (spaces, then an operand), 2 in an operand (a match may end: "="
# next), 3 in the spaces before "=". _STEP[state][kind] -> states next; kinds: s(pace), o(nly
# an operator), p(arenthesis: both), d(igit or . , $)
_STEP = ({"s": (0,), "o": (1,), "p": (1,)}, {"s": (1,), "d": (2,), "p": (2,)},
         {"d": (2,), "p": (2, 1), "o": (1,), "s": (0, 3)}, {"s": (3,)})


def _kind(c: str) -> str:
    if c.isdecimal() or c in _OPERAND:
        return "d"
    if c in "()":
        return "p"
    if c in _OPERATOR:
        return "o"
    return "s" if c.isspace() else ""


def drop_computations(text: str, repl: str = " ") -> str:
    """``re.sub(COMPUTATION_TXT, repl, text)`` in linear time. From the right: for each place,
    whether what follows it up to the next "=" reads as the repetition (the set of states that
    accept it); from the left: a computation starts at a run of digits (never inside one: a
    later start reads the same rest) and ends after the "=", its spaces and digits."""
    if "=" not in text:
        return text
    n = len(text)
    kinds = [_kind(c) for c in text]
    starts_ok = [False] * (n + 1)      # text[k:next "="] reads as the repetition from state 0
    next_eq = [n] * (n + 1)
    live: frozenset[int] = frozenset()
    eq = n
    for k in range(n - 1, -1, -1):
        c = text[k]
        if c == "=":
            live, eq = frozenset((2, 3)), k
        else:
            kind = kinds[k]
            live = frozenset(q for q in range(4) if any(r in live for r in _STEP[q].get(kind, ()))) \
                if kind and live else frozenset()
        starts_ok[k] = 0 in live
        next_eq[k] = eq
    out: list[str] = []
    i = last = 0
    while i < n:
        if kinds[i] != "d":
            i += 1
            continue
        k = i
        while k < n and kinds[k] == "d":
            k += 1
        if k < n and starts_ok[k] and text[k] != "=":
            end = next_eq[k] + 1
            while end < n and text[end].isspace():
                end += 1
            while end < n and kinds[end] == "d":
                end += 1
            out += [text[last:i], repl]
            i = last = end
        else:
            i = k
    return "".join(out) + text[last:] if out else text


_ANNOTATION_RE = re.compile(r"<<[^<>]*>>")
_SMALL_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_LINE_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?|\b(?:" + "|".join(_SMALL_NUMBER_WORDS) + r")\b", re.I)


def written_outside_computations(line: str, v: Fraction) -> bool:
    """Does a solution line write ``v`` outside its computations too ("Eight years ago, Duncan
    was 60-8"): words there may tie it to a place of the question (the rules' binder reads
    this before it lets the sentence of the other operands decide)."""
    prose = drop_computations(_ANNOTATION_RE.sub(" ", line))
    for m in _LINE_NUMBER.finditer(prose):
        word = m.group(0).lower()
        try:
            value = Fraction(_SMALL_NUMBER_WORDS[word]) if word in _SMALL_NUMBER_WORDS \
                else decimal_fraction(word.replace(",", ""))
        except (ValueError, ZeroDivisionError):
            continue
        if value == v:
            return True
    return False
