"""The ``gsm8k-algebra`` rule: a worked solution that names an unknown and solves an equation
for it ("Let x be the number of players on the defense ... x+2x+(1/2)x=105"), formalized as
the solution does: the unknown declared, the solution's first equation that determines it
asserted with every number a declared given tied to its words (or a word given or named
factor the question's words imply), and ``answer`` the unknown itself or the one computation
of the solution that takes the unknown's value to the gold answer ("the team won 22 – 7").

What it refuses (:class:`RuleError`), so that the worked-solution rules' reasons stand:

* no unknown named by "Let X be / represent / stand for ...", or more than one;
* no equation in the unknown that determines it (only identities such as ``2(2x)=4x``);
* an equation (or the answer's computation) that writes a number the question states
  neither as a number nor in words and no named constant explains (``x+2x+4x=700`` where
  the 4 is the solution's own 2·2): that number is the solution's arithmetic, not a given;
  unless it is the written result of exactly one computation the solution makes before the
  equation ("(8 * 12) + 4 = <<8*12+4=100>>100 ... 9*x + 10 = 100", 727): the equation then
  writes that computation, its numbers bound on its own line, and a given both it and the
  equation use whose value the question states at several places is refused (one given in two
  roles: "3c - 2 + c = 10" after "5 * 2 treats", where only words could tell the two 2s apart);
* an unknown whose value does not give the gold, and no single computation that takes it
  there with the question's own numbers, nor one expression in the unknown the solution writes
  ("b = 5s - 4", "Lily = B/2 + 7") that gives the gold at its value (two that differ: refused).

Numbers are read by their role in the equation: a number that multiplies the unknown ("x+2x+3x=180")
is the question's multiplier whose words name the unknown's quantity ("three times the smallest
angle", :func:`coefficient_places`), never a count of equal value ("The three angles"), and a number that multiplies a term the solution defines in the unknown ("My brother is
X + 3" / "(X + 3) * 3") is the multiplier whose words name that term's thing ("three times my
brother's age", :func:`multiplies_defined_term`), the term's own number of equal value the
question's other place of it; the N of "N less than M times ..." that the term takes from that
multiple ("2 less than three times as many brownies as cupcakes" / "3c - 2", 1226) is that place,
by the words' structure; an answer
that restates a term of the equation ("2V = 2 * 11"), or terms of its sum in a row ("In the first
set, he retrieved 2B + 4" of "B + 2B + 2B + 4 = 19"), is bound where the equation binds them (one
quantity, not a second use). An identity the solution writes ("Alex: 5+(4x-13)=4x-8"), whose first
side writes numbers the question states in digits or number words and whose last side one it does
not, lets a later equation's whole term of that simplified side ("x+4x-13+4x-8=339") read as the
first side; never one of word givens ("2(2x)=4x" for two "twice": which is which, no words say).

The formalization is an asserted equation, not a chain of definitions: its steps have no
``expr`` and :func:`.dispatch.check_independently` checks it by
:mod:`qcstation.core.construct.check.equations` (Z3 solves it to the gold and only the gold;
no bare literal; each given's value stated at one place of the question, whose words the
solution's line agrees with). Derived sets take no parent it made (``derive.rebuild.rule_of``
takes only the worked-solution rules: a rebuilt solution would keep the solution's own
intermediate numbers such as "7/2")."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.reading.expr import (BinOp, Expr, ExpressionError, Name, Neg, Num, evaluate, expr_names,
                                         expr_to_sexpr, fmt, is_nonlinear, literal_value, parse_expression)
from qcstation.core.construct.make.rules.result import RuleError, RuleResult, RuleStep

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["smt_from_algebra", "declared_unknown", "declared_unknowns", "unknown_constant"]

_LET_RE = re.compile(
    r"\b(?:[Ll]et(?:'s)?|[Ss]uppose|[Aa]ssume)\s+(?:that\s+)?([A-Za-z])\s*(?:be|represents?|stands? for|equals?|=|is)\s+"
    r"(?:the\s+|a\s+)?([^.\n=]{0,80})")
# "where x represents Brooke's age", "x = the number of ...", "B = the number of insects"
# "If we let the length of one of Bobby's shoes, in inches, be x." (the letter after its words)
_LET_LAST_RE = re.compile(r"\b[Ll]et\s+(?:the\s+|a\s+)?([^.\n=]{3,80}?),?\s+be\s+([A-Za-z])\s*[.,;\n]")
_WHERE_RE = re.compile(r"\bwhere\s+([A-Za-z])\s+(?:represents?|is|stands? for)\s+(?:the\s+)?([^.\n=]{0,80})")
_TWO_UNKNOWNS_RE = re.compile(r"\band\s+(?:let\s+)?([A-Za-z])\s+(?:be|represents?|stands? for|is)\b")
_ANNOTATION_RE = re.compile(r"<<[^<>]*>>")
_MIXED_RE = re.compile(r"(?<![\d./])(\d+)\s+(\d+)\s*/\s*(\d+)(?![\d./])")
_MAX_CHAIN = 400


def declared_unknowns(solution: str) -> list[tuple[str, str]]:
    """(letter, the words it stands for) of each unknown the solution names ("Let m be the number
    of copies Marilyn sold and h be the number Harald sold": m and h), first declared first;
    empty when none, more than two, or a letter that reads as a word ("a", "I")."""
    found: list[tuple[int, str, str]] = []
    for m in _LET_LAST_RE.finditer(solution):
        if not _LET_RE.match(solution, m.start()):
            found.append((m.start(), m.group(2), m.group(1)))
    for rx in (_LET_RE, _WHERE_RE):
        for m in rx.finditer(solution):
            words = m.group(2)
            second = _TWO_UNKNOWNS_RE.search(words)
            if second:
                found.append((m.start(), m.group(1), words[:second.start()]))
                found.append((m.start() + second.start(), second.group(1), words[second.end():]))
            else:
                found.append((m.start(), m.group(1), words))
    out: list[tuple[str, str]] = []
    for _, letter, words in sorted(found):
        if letter not in [x for x, _ in out]:
            out.append((letter, words.strip()))
    if not out or len(out) > 2 or any(x.lower() in ("a", "i") for x, _ in out):
        return []
    return out


def declared_unknown(solution: str) -> tuple[str, str] | None:
    """The first unknown the solution names (see :func:`declared_unknowns`), or None."""
    found = declared_unknowns(solution)
    return found[0] if found else None


def _allowed(text: str, i: int, letter: str) -> bool:
    c = text[i]
    if c.isdigit() or c in " +-*/().[]$%×÷–−=":
        return True
    if c == ",":  # a thousands comma ("88,000"), never a clause's
        return 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
    if c == letter:  # the unknown on its own ("2x", "(L+8)"), never a letter of a word
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        return not before.isalpha() and not after.isalpha()
    return False


def _chains(text: str, letter: str) -> list[tuple[int, int, str]]:
    """Every run of arithmetic with at least one '=' (``(L+8) + L = 2L + 8 = 22``), as
    (start, end, text), in order."""
    out: list[tuple[int, int, str]] = []
    i = 0
    while True:
        eq = text.find("=", i)
        if eq == -1:
            return out
        a = eq
        while a > 0 and _allowed(text, a - 1, letter):
            a -= 1
        b = eq + 1
        while b < len(text) and _allowed(text, b, letter):
            b += 1
        chunk = text[a:b].rstrip(" .,")
        if len(chunk) <= _MAX_CHAIN and not _cut_at_a_letter(text, a, b) \
                and chunk.lstrip()[:1] not in ("+", "*", "/", "="):
            out.append((a, a + len(chunk), chunk))
        i = max(b, eq + 1)


def _letter_written(text: str, letter: str, declared: list[str]) -> str:
    """The letter the solution's equations write for the unknown it declares as ``letter``: the
    same, or its other case where only that one stands in them ("let X be the number of fries
    ..., then 24-5-10-2+x=27", 245) and it names no other unknown."""
    def alone(x: str) -> bool:
        return any(re.search(rf"(?<![A-Za-z]){x}(?![A-Za-z])", chunk) for _, _, chunk in _chains(text, x))

    other = letter.swapcase()
    if other not in declared and not alone(letter) and alone(other):
        return other
    return letter


def _cut_at_a_letter(text: str, a: int, b: int) -> bool:
    """Does the run of arithmetic ``text[a:b]`` stop at a letter standing alone (another unknown:
    "m + h = 80,000" read for h stops at m), so that it is part of a longer equation?"""
    line_start = text.rfind("\n", 0, a) + 1
    line_end = text.find("\n", b)
    before = text[line_start:a].rstrip()
    after = text[b:line_end if line_end != -1 else len(text)].lstrip()
    alone_before = len(before) >= 1 and before[-1].isalpha() and (len(before) == 1 or not before[-2].isalpha())
    alone_after = len(after) >= 1 and after[0].isalpha() and (len(after) == 1 or not after[1].isalpha())
    return alone_before or alone_after


def _parse(part: str, letter: str) -> Expr | None:
    t = part.strip().replace("$", "").replace("–", "-").replace("−", "-").replace("[", "(").replace("]", ")")
    if not t:
        return None
    t = _MIXED_RE.sub(lambda m: f"({m.group(1)}+{m.group(2)}/{m.group(3)})", t)
    if letter == "x" and re.search(r"\d\s+x\s+\d", t):
        return None  # "4 x 20": a times sign or the unknown, no reader can tell
    try:
        e = parse_expression(t, names=True)
    except ExpressionError:
        return None
    if any(n != letter for n in expr_names(e)):
        return None
    return e


def _linear(e: Expr, x: str) -> tuple[Fraction, Fraction] | None:
    """(a, b) with e == a*x + b, or None when not linear in x."""
    if isinstance(e, Num):
        return Fraction(0), e.value
    if isinstance(e, Name):
        return (Fraction(1), Fraction(0)) if e.name == x else None
    if isinstance(e, Neg):
        r = _linear(e.operand, x)
        return None if r is None else (-r[0], -r[1])
    if not isinstance(e, BinOp):
        return None
    left, right = _linear(e.left, x), _linear(e.right, x)
    if left is None or right is None:
        return None
    (la, lb), (ra, rb) = left, right
    if e.op == "+":
        return la + ra, lb + rb
    if e.op == "-":
        return la - ra, lb - rb
    if e.op == "*":
        return None if la and ra else (la * rb + ra * lb, lb * rb)
    if ra or not rb:
        return None
    return la / rb, lb / rb


def _in_solution(solution: str, pos: int) -> int:
    """The place in ``solution`` of the place ``pos`` of its text with the annotations taken out."""
    shift = 0
    for m in _ANNOTATION_RE.finditer(solution):
        if m.start() - shift > pos:
            break
        shift += m.end() - m.start()
    return pos + shift


def _placed(e: Expr, subs: dict[str, Expr]) -> Expr:
    """``e`` with each placeholder of an earlier computation (:func:`_earlier_results`) its term."""
    if isinstance(e, Name):
        return subs.get(e.name, e)
    if isinstance(e, Neg):
        return Neg(_placed(e.operand, subs))
    if isinstance(e, BinOp):
        return BinOp(e.op, _placed(e.left, subs), _placed(e.right, subs))
    return e


def _earlier_results(e: Expr, solution: str, before: int, stated: frozenset[Fraction] | set[Fraction],
                     notes: list[str], subs: list[tuple[str, Expr, str]]) -> Expr:
    """``e`` with each number the question does not state that is the written result of exactly
    one computation the solution writes before its equation ("(8 * 12) + 4 = <<8*12+4=100>>100
    inches ... 9*x + 10 = 100", 727) written as that computation: the equation then holds the
    question's numbers only, each bound as the binder binds them (a number no earlier line
    computes stays, and is refused as unstated)."""
    from qcstation.core.construct.make.rules.calculator import _collect_computations
    if not any(isinstance(n, Num) and n.text and n.value not in stated and n.value not in (0, 1) for n in _nums(e)):
        return e
    comps = [c for c in _collect_computations(solution, True, []) if c.end <= before
             and literal_value(c.expr) is None]

    def walk(x: Expr) -> Expr:
        if isinstance(x, Num):
            if not x.text or x.value in stated or x.value in (0, 1):
                return x
            by = [c for c in comps if x.value in (c.written, c.value)]
            if len(by) != 1:
                return x
            notes.append(f"{x.text} in the equation is the result of {by[0].expr_text}, which the solution "
                         "computes before it")
            subs.append((f"_earlier{len(subs)}", by[0].expr, _line_at(solution, by[0].start)))
            return Name(subs[-1][0])
        if isinstance(x, Neg):
            return Neg(walk(x.operand))
        if isinstance(x, BinOp):
            return BinOp(x.op, walk(x.left), walk(x.right))
        return x

    return walk(e)


def _rename(e: Expr, old: str, new: str) -> Expr:
    if isinstance(e, Name):
        return Name(new) if e.name == old else e
    if isinstance(e, Neg):
        return Neg(_rename(e.operand, old, new))
    if isinstance(e, BinOp):
        return BinOp(e.op, _rename(e.left, old, new), _rename(e.right, old, new))
    return e


def _with_unknown(e: Expr, v: Fraction, name: str) -> tuple[Expr, int]:
    """``e`` with each literal of value ``v`` replaced by the unknown, and how many there were."""
    if isinstance(e, Num):
        return (Name(name), 1) if e.value == v else (e, 0)
    if isinstance(e, Neg):
        inner, n = _with_unknown(e.operand, v, name)
        return Neg(inner), n
    if isinstance(e, BinOp):
        left, a = _with_unknown(e.left, v, name)
        right, b = _with_unknown(e.right, v, name)
        return BinOp(e.op, left, right), a + b
    return e, 0


def _subterm_path(whole: Expr, part: Expr, side: int | None = None) -> tuple[int, list[str]] | None:
    """Where ``part`` stands in ``whole`` (a term other than the unknown alone), as the path of
    left/right/operand steps; None when it is not a subterm."""
    if isinstance(part, Name):
        return None

    def find(e: Expr) -> list[str] | None:
        if e == part:
            return []
        if isinstance(e, Neg):
            r = find(e.operand)
            return None if r is None else ["operand", *r]
        if isinstance(e, BinOp):
            for attr in ("left", "right"):
                r = find(getattr(e, attr))
                if r is not None:
                    return [attr, *r]
        return None

    found = find(whole)
    return None if found is None else (0, found)


def _sum_terms(e: Expr) -> list[Expr]:
    """The terms of a sum written left to right (``B + 2B + 2B + 4``: B, 2B, 2B, 4)."""
    if isinstance(e, BinOp) and e.op == "+":
        return _sum_terms(e.left) + _sum_terms(e.right)
    return [e]


def _terms_run(whole: Expr, part: Expr) -> tuple[int, int] | None:
    """Where the terms of the sum ``part`` ("2B + 4") stand in a row among the terms of the sum
    ``whole`` ("B + 2B + 2B + 4": the first set's 2B + 4), as (first term, how many); None unless
    at exactly one such run."""
    terms, mine = _sum_terms(whole), _sum_terms(part)
    if len(mine) < 2 or len(mine) >= len(terms):
        return None
    runs = [i for i in range(len(terms) - len(mine) + 1) if terms[i:i + len(mine)] == mine]
    return (runs[0], len(mine)) if len(runs) == 1 else None


def _rebuilt_sum(terms: list[Expr]) -> Expr:
    out = terms[0]
    for t in terms[1:]:
        out = BinOp("+", out, t)
    return out


def _follow(e: Expr, path: list[str]) -> Expr:
    for attr in path:
        e = getattr(e, attr)
    return e


def _defining_expr(text: str, letter: str, value: Fraction, gold: Fraction, eq_a: int,
                   eq_b: int) -> tuple[Expr, str, int] | None:
    """The one expression in the unknown the solution writes outside its equation that gives the
    gold at the unknown's value ("Red rope = 4 * (Y - 7)", "the number of dromedaries is
    180 - x"), as (expression, its text, where); None when there is none, or two that differ
    (a coincidence could pick the wrong one)."""
    found: list[tuple[Expr, str, int]] = []
    forms: set[tuple[Fraction, Fraction]] = set()
    i = 0
    while i < len(text):
        if not _allowed(text, i, letter):
            i += 1
            continue
        a = i
        while i < len(text) and _allowed(text, i, letter):
            i += 1
        if a < eq_b and i > eq_a:
            continue  # the determining equation's own sides
        pos = a
        for piece in text[a:i].split("="):
            p0 = pos
            pos += len(piece) + 1
            t = piece.strip().rstrip(" .,")
            if letter not in t or t == letter:
                continue
            e = _parse(t, letter)
            if e is None or letter not in expr_names(e):
                continue
            form = _linear(e, letter)
            if form is None or not form[0]:
                continue
            try:
                if evaluate(e, {letter: value}) != gold:
                    continue
            except ExpressionError:
                continue
            forms.add(form)
            found.append((e, t, p0 + piece.find(t[:1])))
    if len(forms) != 1:
        return None
    return found[-1]


_TIMES_AFTER = re.compile(r"\s*times\b", re.I)
#: words that name no quantity of their own ("the number of queens": the queens)
_GENERIC = frozenset({"numb", "amou", "tota", "valu", "meas", "quan"})


def multiplies_unknown(question: str, end: int, unknown_words: str) -> bool:
    """Do the question's words after a multiplier ending at ``end`` ("three times| the smallest
    angle", "twice| as old as Brooke") name the quantity the solution's unknown stands for ("the
    measure of the smallest angle")? Every one of the first three content words up to the
    clause's end is a word of the unknown's, by their stems ("the middle angle" is not)."""
    from qcstation.core.construct.make.rules.givens import content_words
    from qcstation.core.reading.words import stem

    clause = re.split(r"[,.;:?!]", question[end:end + 80], maxsplit=1)[0]
    after = {stem(w) for w in content_words(clause)[:3]} - _GENERIC
    named = {stem(w) for w in content_words(unknown_words)} - _GENERIC
    return bool(after) and after <= named


def multiplies_defined_term(question: str, end: int, letter: str, unknown_words: str, solution: str) -> bool:
    """Do the question's words after a multiplier ending at ``end`` ("three times| my brother's
    age") name the unknown's quantity ("Let X be my age": age) of one more thing (brother) that
    the solution writes as a term in the unknown ("My brother is X + 3 years old", 856)? Then the
    multiplier multiplies that term ("(X + 3) * 3"), by its words."""
    from qcstation.core.construct.make.rules.givens import content_words
    from qcstation.core.reading.words import stem

    clause = re.split(r"[,.;:?!]", question[end:end + 80], maxsplit=1)[0]
    after = {stem(w) for w in content_words(clause)[:3]} - _GENERIC
    named = {stem(w) for w in content_words(unknown_words)} - _GENERIC
    extra = after - named
    if not extra or not after & named:
        return False
    defines = re.compile(rf"([^.\n=]{{0,80}}?)\b(?:is|are)\s+{re.escape(letter)}\s*[-+]\s*\d+(?:\.\d+)?(?!\s*[-+*/)\d])")
    return any(extra <= {stem(w) for w in content_words(m.group(1))} for m in defines.finditer(solution[:100_000]))


def coefficient_places(exprs: list[Expr], givens: Givens, unknown: str,
                       unknown_words: str, letter: str = "", solution: str = "",
                       ) -> dict[tuple[int, Fraction, int], int]:
    """The places of the numbers that multiply the unknown ("x+2x+3x=180" for "One angle is twice
    the smallest angle, and one angle is three times the smallest angle"): a coefficient is a
    multiplier, so its place is the one the question writes as one ("three times", "twice"),
    never a count of equal value ("The three angles"). Keyed as :meth:`Givens.bind` takes
    ``forced`` ((term, value, nth use) -> index into ``givens.numbers``, or ``NOT_A_PLACE`` for
    a multiplying word such as "twice"); a coefficient whose value the question writes as a
    multiplier at no place, or at more than one kind of place, or whose words after it name
    another quantity than the unknown's (``unknown_words``), is left to the binder's words."""
    from qcstation.core.construct.make.rules.binding import _MULTIPLIERS_OF, NOT_A_PLACE

    q = givens.question
    out: dict[tuple[int, Fraction, int], int] = {}
    for i, e in enumerate(exprs):
        out.update(_less_than_places(e, i, unknown, givens))
        for v, nth, of_term in _coefficients(e, unknown):
            times = [(j, m.end()) for j, n in enumerate(givens.numbers) if n.value == v and not n.percent
                     for m in [_TIMES_AFTER.match(q, n.start + len(n.text))] if m]
            words = [m.end() for p in _MULTIPLIERS_OF.get(v, ())
                     for m in re.finditer(rf"\b{re.escape(p)}\b", q, re.I)] if has_phrase_any(q, v) else []
            if of_term is not None:  # "(X + 3) * 3": "three times my brother's age" / "My brother is X + 3"
                if len(times) == 1 and not words and letter \
                        and multiplies_defined_term(q, times[0][1], letter, unknown_words, solution):
                    out[(i, v, nth)] = times[0][0]
                    # the term's own number of this value ("+ 3", written in each "(X + 3)"): the
                    # question's other place of it, where it states the value at two places only
                    inside, total = _uses_in_term(e, of_term, v)
                    others = [j for j, n in enumerate(givens.numbers) if n.value == v and not n.percent
                              and j != times[0][0]]
                    if inside and len(others) == 1 and sorted([*inside, nth]) == list(range(total)):
                        out.update({(i, v, k): others[0] for k in inside})
                continue
            if len(times) == 1 and not words and multiplies_unknown(q, times[0][1], unknown_words):
                out[(i, v, nth)] = times[0][0]
            elif words and not times and all(multiplies_unknown(q, end, unknown_words) for end in words):
                out[(i, v, nth)] = NOT_A_PLACE
    return out


def _coefficients(e: Expr, unknown: str) -> list[tuple[Fraction, int, Expr | None]]:
    """(value, nth use of that value in the term, counted as the binder counts, the term it
    multiplies or None) of each number of ``e`` that multiplies the unknown alone (``3*x``: None)
    or a sum or difference of the unknown and one number (``(x+3)*3``: ``x+3``)."""
    seen: dict[Fraction, int] = {}
    out: list[tuple[Fraction, int, Expr | None]] = []

    def of_term(x: Expr) -> bool:
        return isinstance(x, BinOp) and x.op in "+-" and Name(unknown) in (x.left, x.right) \
            and (isinstance(x.left, Num) or isinstance(x.right, Num))

    def walk(x: Expr, parent: Expr | None) -> None:
        if isinstance(x, Num):
            if not x.text or x.text.startswith("k_"):
                return
            nth = seen.get(x.value, 0)
            seen[x.value] = nth + 1
            if isinstance(parent, BinOp) and parent.op == "*" and Name(unknown) in (parent.left, parent.right):
                out.append((x.value, nth, None))
            elif isinstance(parent, BinOp) and parent.op == "*":
                term = next((t for t in (parent.left, parent.right) if t is not x and of_term(t)), None)
                if term is not None:
                    out.append((x.value, nth, term))
        elif isinstance(x, Neg):
            walk(x.operand, x)
        elif isinstance(x, BinOp):
            walk(x.left, x)
            walk(x.right, x)

    walk(e, None)
    return out


#: "2 less than three times as many brownies", "one less than three times my brother's age"
LESS_THAN_TIMES = re.compile(r"\b([A-Za-z]+|\d+(?:\.\d+)?)\s+(less|fewer|more)\s+than\s+([A-Za-z]+|\d+(?:\.\d+)?)"
                             r"\s+times\b", re.I)


def _less_than_places(e: Expr, i: int, unknown: str, givens: Givens) -> dict[tuple[int, Fraction, int], int]:
    """The number the question says a multiple is less or more than ("2 less than three times as
    many brownies as cupcakes") where the term takes it from or adds it to that multiple of the
    unknown ("3c - 2", 1226; "(X + 3) * 3 - 1", 856): that place, by the words' structure, never
    another place of its value ("each person gets two treats")."""
    q = givens.question
    out: dict[tuple[int, Fraction, int], int] = {}
    for m in LESS_THAN_TIMES.finditer(q):
        at_n = [j for j, n in enumerate(givens.numbers) if n.start == m.start(1) and not n.percent]
        at_m = [j for j, n in enumerate(givens.numbers) if n.start == m.start(3) and not n.percent]
        if len(at_n) != 1 or len(at_m) != 1:
            continue
        w, times = givens.numbers[at_n[0]].value, givens.numbers[at_m[0]].value
        op = "+" if m.group(2).lower() == "more" else "-"
        targets = [x.right for x in _subterms(e) if isinstance(x, BinOp) and x.op == op
                   and isinstance(x.right, Num) and x.right.value == w and x.right.text
                   and _multiple_of_unknown(x.left, times, unknown)]
        if len(targets) != 1:
            continue
        nth = [k for k, leaf in enumerate(n for n in _nums(e) if n.text and not n.text.startswith("k_")
                                          and n.value == w) if leaf is targets[0]]
        if len(nth) == 1:
            out[(i, w, nth[0])] = at_n[0]
    return out


def _subterms(e: Expr) -> list[Expr]:
    if isinstance(e, Neg):
        return [e, *_subterms(e.operand)]
    if isinstance(e, BinOp):
        return [e, *_subterms(e.left), *_subterms(e.right)]
    return [e]


def _multiple_of_unknown(x: Expr, times: Fraction, unknown: str) -> bool:
    """Is ``x`` a product of the number ``times`` and the unknown or a term of it (``3*c``, ``(X+3)*3``)?"""
    if not (isinstance(x, BinOp) and x.op == "*"):
        return False
    for a, b in ((x.left, x.right), (x.right, x.left)):
        if isinstance(a, Num) and a.value == times and unknown in expr_names(b):
            return True
    return False


def _uses_in_term(e: Expr, term: Expr, v: Fraction) -> tuple[list[int], int]:
    """The nth uses of ``v`` (counted as the binder counts) that stand inside a subterm equal to
    ``term``, and how many uses of ``v`` ``e`` has."""
    count = [0]
    inside: list[int] = []

    def walk(x: Expr, within: bool) -> None:
        within = within or x == term
        if isinstance(x, Num):
            if x.text and not x.text.startswith("k_") and x.value == v:
                if within:
                    inside.append(count[0])
                count[0] += 1
        elif isinstance(x, Neg):
            walk(x.operand, within)
        elif isinstance(x, BinOp):
            walk(x.left, within)
            walk(x.right, within)

    walk(e, False)
    return inside, count[0]


def has_phrase_any(question: str, v: Fraction) -> bool:
    """Does the question write a word that multiplies by ``v`` ("twice", "triple")?"""
    from qcstation.core.construct.make.rules.binding import _MULTIPLIERS_OF
    from qcstation.core.construct.make.rules.phrases import has_phrase

    return any(has_phrase(question, p, ignore_case=True) for p in _MULTIPLIERS_OF.get(v, ()))


def _note_identity(parts: list[str], sides: list[Expr | None], letter: str, stated: frozenset[Fraction] | set[Fraction],
                   identities: list[tuple[str, str, str]]) -> None:
    """Record an identity the solution writes ("Alex: 5+(4x-13)=4x-8") whose first side writes
    numbers, each one the question states in digits or number words, and whose last side writes one
    it does not (the solution's own arithmetic: 8 = 13 - 5). A side of word givens ("2(2x)=4x" for
    two "twice") is not recorded: which "twice" each 2 is, the equation's words do not say."""
    first, last = sides[0], sides[-1]
    if first is None or last is None or len(parts) < 2 or _linear(first, letter) != _linear(last, letter):
        return
    own = [v for v in (n.value for n in _nums(first)) if v not in (0, 1)]
    simplified = [v for v in (n.value for n in _nums(last)) if v not in (0, 1)]
    if own and all(v in stated for v in own) and any(v not in stated for v in simplified):
        identities.append((letter, re.sub(r"\s+", "", parts[-1]).rstrip(".,"), re.sub(r"\s+", "", parts[0])))


def _nums(e: Expr) -> list[Num]:
    if isinstance(e, Num):
        return [e]
    if isinstance(e, Neg):
        return _nums(e.operand)
    if isinstance(e, BinOp):
        return _nums(e.left) + _nums(e.right)
    return []


def _unsimplified(chunk: str, letter: str, identities: list[tuple[str, str, str]]) -> str:
    """``chunk`` with each simplified side of an earlier identity in ``letter`` that it writes as a
    whole term (after "+", "=", "(" or at the start; before "+", "-", "=", ")" or at the end: never
    after a minus or beside a product) written as the side the question's numbers give:
    "x+4x-13+4x-8=339" after "5+(4x-13)=4x-8" reads "x+4x-13+(5+(4x-13))=339". As written when it
    writes no such term."""
    text = re.sub(r"\s+", "", chunk)
    for x, simplified, original in identities:
        if x != letter or not simplified:
            continue
        rx = re.compile(rf"(?:(?<=^)|(?<=[+=(])){re.escape(simplified)}(?=$|[-+=)])")
        text = rx.sub("(" + original.replace("\\", "\\\\") + ")", text)  # a template: its backslashes doubled
    return text if text != re.sub(r"\s+", "", chunk) else chunk


def _line_at(text: str, pos: int) -> str:
    a = text.rfind("\n", 0, pos) + 1
    b = text.find("\n", pos)
    return text[a: b if b != -1 else len(text)].strip()


def unknown_constant(letter: str, words: str) -> str:
    """The declared constant of the unknown ``letter`` the solution names with ``words``."""
    return "x_" + (_slug(words) or letter.lower())


def _slug(words: str) -> str:
    from qcstation.core.construct.make.rules.givens import content_words

    # "the age of Carver's son": what it is (age, son), not whose (a name, a possessive)
    plain = " ".join(w for w in words.split() if not w[:1].isupper() and not w.endswith(("'s", "’s")))
    kept = [w for w in content_words(plain) if w.isalpha()][:2]
    return "_".join(kept)[:20].strip("_")


def smt_from_algebra(solution: str, question: str, gold: Fraction | None) -> RuleResult:
    """Formalize a solution that names an unknown and solves an equation for it (see the
    module docstring); RuleError when it does not, or cannot be vouched for."""
    from qcstation.core.construct.make.rules.calculator import _collect_computations, _constant_words, _given_record
    from qcstation.core.construct.make.rules.constants import declare_literals
    from qcstation.core.construct.make.rules.givens import protect_fractions, question_numbers

    unknowns = declared_unknowns(solution)
    if not unknowns:
        raise RuleError("the solution names no unknown ('Let x be ...')", "No algebra")
    if gold is None:
        raise RuleError("the seed has no gold answer to check the equation's solution against")
    text = _ANNOTATION_RE.sub("", solution)  # "= <<14/2=7>>7" reads "= 7"
    # of two unknowns ("m = 10h"), the first equation in one of them alone ("10h + h = 88,000")
    unknowns = [(_letter_written(text, letter, [x for x, _ in unknowns]), words) for letter, words in unknowns]
    chains = sorted((start, end, chunk, letter, words) for letter, words in unknowns
                    for start, end, chunk in _chains(text, letter))
    equation: tuple[Expr, Expr, str, int, int] | None = None
    letter, words = unknowns[0]
    stated = question_numbers(question).values
    identities: list[tuple[str, str, str]] = []  # (letter, simplified text, the text it simplifies)
    notes_pre: list[str] = []
    for start, end, chunk, cand, cand_words in chains:
        letter, words = cand, cand_words  # the unknown this equation is read in
        chunk = _unsimplified(chunk, letter, identities)
        parts = chunk.split("=")
        sides = [_parse(p, letter) for p in parts]
        with_x = [i for i, e in enumerate(sides) if e is not None and letter in expr_names(e)]
        if not with_x or sides[-1] is None:
            continue
        left_i = with_x[0]
        right_i = len(parts) - 1 if left_i != len(parts) - 1 else 0
        left, right = sides[left_i], sides[right_i]
        if left is None or right is None or left_i == right_i:
            continue
        lf, rf = _linear(left, letter), _linear(right, letter)
        if lf is None or rf is None:
            raise RuleError(f"the equation {chunk.strip()!r} is not linear in {letter}", "No algebra")
        if lf[0] == rf[0]:
            # an identity ("5+(4x-13)=4x-8"): it determines nothing, but a later equation that writes
            # its simplified side ("x+4x-13+4x-8=339") means the side the question's numbers give
            _note_identity(parts, sides, letter, stated, identities)
            continue
        equation = (left, right, chunk.strip(), start, end)
        break
    if equation is None:
        raise RuleError(f"no equation of the solution determines its unknown {letter}", "No algebra")
    lhs, rhs, eq_text, eq_start, eq_end = equation
    (la, lb), (ra, rb) = _linear(lhs, letter), _linear(rhs, letter)  # type: ignore[misc]
    subs: list[tuple[str, Expr, str]] = []  # (placeholder, the earlier computation, its line)
    at = _in_solution(solution, eq_start)  # the equation's place in the solution (annotations kept)
    lhs, rhs = (_earlier_results(side, solution, at, stated, notes_pre, subs) for side in (lhs, rhs))
    value = (rb - lb) / (la - ra)
    unknown = unknown_constant(letter, words)
    lhs, rhs = _rename(lhs, letter, unknown), _rename(rhs, letter, unknown)
    eq_line = _line_at(text, eq_start)
    notes = [f"the solution names the unknown {letter} ({words[:60]}); its equation {eq_text} "
             f"gives {letter} = {fmt(value)}", *notes_pre]
    answer_expr: Expr = Name(unknown)
    answer_line = eq_line
    answer_text = unknown
    if value != gold:
        givens0 = question_numbers(question)
        later = [c for c in _collect_computations(solution, True, [], givens0)
                 if c.start > eq_start and c.value == gold]
        chosen = None
        for c in later:
            replaced, n = _with_unknown(c.expr, value, unknown)
            if n == 1 and value not in givens0.values:
                chosen = (c, replaced)
                break
        if chosen is not None:
            answer_expr = chosen[1]
            answer_line = _line_at(solution, chosen[0].start)
            answer_text = chosen[0].expr_text
            notes.append(f"answer = {chosen[0].expr_text} with {fmt(value)} read as the unknown {letter}")
        else:
            defined = _defining_expr(text, letter, value, gold, eq_start, eq_end)
            if defined is None:
                raise RuleError(f"the unknown {letter} = {fmt(value)} is not the gold {fmt(gold)}, and no one "
                                f"computation of the solution takes {fmt(value)} to it", "No algebra")
            d_expr, d_text, d_pos = defined
            answer_expr = _rename(d_expr, letter, unknown)
            answer_line = _line_at(text, d_pos)
            answer_text = d_text
            notes.append(f"answer = {d_text}, the solution's expression in its unknown {letter} "
                         f"({answer_line[:60]})")
    for x, simplified, original in identities:
        # an answer written as an identity's simplified side is the side the question's numbers give
        short, full = _parse(simplified, x), _parse(original, x)
        if x == letter and short is not None and full is not None and _rename(short, x, unknown) == answer_expr:
            answer_expr = _rename(full, x, unknown)
            notes.append(f"answer {simplified} read as {original}, the solution's own identity")
    givens = question_numbers(question)
    # "2V = 2 * 11" restates the equation's term 2V ("twice as many ... V + 2V"): its numbers are
    # that term's givens, bound where the equation binds them (one quantity, not a second use)
    path = _subterm_path(lhs, answer_expr)
    if path is None:
        found = _subterm_path(rhs, answer_expr)
        path = None if found is None else (1, found[1])
    # "In the first set, he retrieved 2B + 4 balls" restates the terms 2B + 4 of "B + 2B + 2B + 4
    # = 19" in a row: bound where the equation binds them, as a term is
    run = None if path is not None else next(
        ((side, found_run) for side, whole in enumerate((lhs, rhs))
         for found_run in [_terms_run(whole, answer_expr)] if found_run is not None), None)
    exprs = [protect_fractions(e, givens) for e in (lhs, rhs, answer_expr)]
    lines = [eq_line, eq_line, answer_line]
    if path is not None or run is not None:
        exprs, lines = exprs[:2], lines[:2]
    base = len(exprs)
    # an earlier computation the equation writes as its result is bound on its own line
    exprs += [protect_fractions(e, givens) for _, e, _ in subs]
    lines += [line for _, _, line in subs]
    exprs, consts = givens.bind(exprs, lines, forced=coefficient_places(exprs, givens, unknown, words, letter,
                                                                                text))
    uncertain = givens.uncertain('solution')
    exprs, named = declare_literals(exprs, question, {n for n, _, _ in consts}, lines)
    consts += named
    if subs:
        # one given both in the equation and in an earlier computation it takes the result of,
        # where the question states its value at several places: which place each use is, no
        # words say (the binder may have put both at one: one given in two roles)
        inside = {name for e in exprs[base:] for name in expr_names(e)}
        values = {name: v for name, v, _ in consts}
        for shared in sorted(inside & {name for e in exprs[:base] for name in expr_names(e)}):
            if shared in values and sum(1 for q in givens.numbers if q.value == values[shared] and not q.percent) > 1:
                raise RuleError(f"{shared} is used in the equation and in the earlier computation of a number it "
                                f"writes, and the question states {fmt(values[shared])} at several places",
                                "Ambiguous binding")
    exprs = [_placed(e, {name: bound for (name, _, _), bound in zip(subs, exprs[base:])}) for e in exprs[:base]]
    if path is not None:
        side, steps_ = path
        answer_expr = _follow(exprs[side], steps_)
        lhs, rhs = exprs
    elif run is not None:
        side, (first, count) = run
        answer_expr = _rebuilt_sum(_sum_terms(exprs[side])[first:first + count])
        lhs, rhs = exprs
    else:
        lhs, rhs, answer_expr = exprs
    env = {n: v for n, v, _ in consts}
    env[unknown] = value
    try:
        if evaluate(lhs, env) != evaluate(rhs, env) or evaluate(answer_expr, env) != gold:
            raise RuleError("the bound equation does not give the solution's values", "No algebra")
    except ExpressionError as exc:
        raise RuleError(f"the equation cannot be computed: {exc}", "No algebra") from exc
    nonlinear = any(is_nonlinear(e) for e in exprs)
    smt = [f"(set-logic {'QF_NRA' if nonlinear else 'QF_LRA'})"]
    smt += [f"(declare-const {n} Real)" for n, _, _ in consts]
    smt += [f"(declare-const {unknown} Real)", "(declare-const answer Real)"]
    smt += [f"(assert (= {n} {expr_to_sexpr(t)}))" for n, _, t in consts]
    eq_sexpr = f"(= {expr_to_sexpr(lhs)} {expr_to_sexpr(rhs)})"
    smt += [f"(assert {eq_sexpr})", f"(assert (= answer {expr_to_sexpr(answer_expr)}))",
            "(check-sat)", "(get-value (answer))"]
    steps = [RuleStep(unknown, eq_text, value, eq_sexpr, [], None, eq_line),
             RuleStep("answer", answer_text, gold, expr_to_sexpr(answer_expr), [unknown], answer_expr, answer_line)]
    result = RuleResult("\n".join(smt) + "\n", steps, "answer", gold, "gsm8k-algebra", notes, uncertain=uncertain)
    result.givens = [_given_record(n, v, givens, question) for n, v, _ in consts if not n.startswith("k_")]
    result.factors = [{"name": n, "value": fmt(v), "text": _constant_words(n)} for n, v, _ in consts
                      if n.startswith("k_")]
    return result
