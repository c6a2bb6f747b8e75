"""An independent check of what each given of a rule-made formalization measures (issue 26).

The rules tie a number of the solution to a place of the question by the words around both
(:mod:`qcstation.core.construct.make.rules.binding`); the checks of :mod:`.bindings` read
those words again with the rules' own stems. This module reads them a third way, with
nothing shared but the texts: for every given (its place in the question, stored with the
formalization) and every step that uses it, it reads the *kind of quantity* the question's
words give the place and the kind the solution's words give the number on that step's line:

    time (minutes, days, weeks...), money ($, dollars, cents), people (students, friends,
    kids...), length, weight, volume, percent; or a count of some other thing ("dance classes").

A use is **in another role** when the line writes the given's value only with words of
another kind than the place's: "5 days" (time) for the question's "5 dance classes" (a count
of classes), "2 people" for "two books", "$15" for "15 students". Where the step uses other
names of the same value as well (a named constant: "5 days a week" for the weekdays), as many
such words are theirs; a number word that counts the terms of the step's sum ("In three days he
has caught 3+12+6") is no use of the value (:func:`.context.counts_the_terms`); "three times a
week" right after a rate per day ("30 minutes/day three times a week") counts days, as "3
days/week" on the line does. A price is read by what a product makes of it as well: a step that
multiplies by "$2 per mile" makes dollars, so a line that names its result "60 miles per day"
(30 miles there and back: twice) uses the price's value in another role. A given in another role is the hard flag ``given-role``: the rules
refuse such a formalization and the generate pipeline never marks one verified, so derive
never takes it as a parent.

Pure text reading with limits (each text cut at :data:`MAX_TEXT`), each text read once
(:func:`~qcstation.common.memo.text_memo`), the words around a line's numbers once for every line
that differs from it in digits only (:func:`~qcstation.common.memo.digits_masked`); no rule code imported (of the checks, :mod:`.context`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from qcstation.common.memo import LastAnswers, Unkeyed, digits_masked, plain_key, term_shape, text_memo
from qcstation.core.reading.answers import decimal_fraction
from qcstation.core.reading.words import operand_values
from qcstation.core.construct.check.context import counts_the_terms

__all__ = ["KINDS", "kind_of_words", "given_roles"]

MAX_TEXT = 20_000

#: the kind of quantity a noun or unit names (singular, lower case; plurals are read below)
KINDS: dict[str, str] = {}
for _kind, _words in {
    "time": "second sec minute min hour hr day week month year night weekday weekend decade",
    "money": "$ dollar cent buck penny nickel dime quarter",
    "people": "people person kid child children student friend boy girl man men woman women guest "
              "customer worker employee member player adult teacher parent sister brother son "
              "daughter baby passenger visitor classmate cousin grandchild grandchildren neighbor "
              "coworker nephew niece aunt uncle grandparent grandma grandpa mom dad mother father wife "
              "husband sibling relative toddler teen teenager athlete runner patient client tenant "
              "resident volunteer participant attendee spectator fan shopper buyer pupil camper "
              "staff colleague roommate grader",
    "length": "inch foot feet yard mile meter metre km cm mm centimeter kilometer",
    "weight": "pound lb lbs ounce oz kg kilo kilogram gram ton",
    "volume": "gallon liter litre quart pint ml milliliter",
    "percent": "% percent",
}.items():
    for _w in _words.split():
        KINDS[_w] = _kind

# words that say nothing of what a number counts: skipped before the noun
_SKIP = frozenset("""a an the of per each every in on at to for and or but so that this these those it its
    his her their our your my more less fewer extra other another new old same total all only just about
    over under than as is are was were be been has have had will would can could more most least
    additional remaining left whole full half first second third fourth fifth sixth seventh eighth last next""".split())
# a number followed by one of these names nothing itself ("8 in a row", "43 of them"): the
# noun is elided, and what it counts is not read from the words
_ELIDED = frozenset("in on at of per each every for to from with by into out off among".split())
_WORD = re.compile(r"[A-Za-z]+|[$%]")
_STOP = re.compile(r"[=+\-*/×÷<>()\d,;:!?\n]|\.\s|\bx\b")
_NUM = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\d])")
_ANN = re.compile(r"<<[^<>]{0,400}>>")
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}


_NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)
_RESULT_BEFORE = re.compile(r"=\s*\$?\s*$")
_ORDINAL = re.compile(r"(?:st|nd|rd|th)\b")
_HYPHENED = re.compile(r"-([A-Za-z]+)")


def _singular(w: str) -> str:
    if w in KINDS:
        return w
    for suffix, repl in (("ies", "y"), ("ves", "f"), ("es", ""), ("s", "")):
        if w.endswith(suffix) and w[: len(w) - len(suffix)] + repl in KINDS:
            return w[: len(w) - len(suffix)] + repl
    return w


def kind_of_words(before: str, after: str) -> tuple[str | None, str]:
    """(kind, noun) of the quantity a number names, from the text right before it (a ``$``) and
    right after it: the first word that is not a function word, up to a clause break or an
    operator. kind None: a count of ``noun`` ("" when nothing names it)."""
    if before.endswith("$"):
        return "money", "$"
    tail = after[:60]
    if tail[:1] == "%" or tail.lstrip().lower().startswith("percent"):
        return "percent", "%"
    if tail[:1] == "-":  # "a 30-minute visit", "8-ounce bottles": the word hyphened to it
        m = _HYPHENED.match(tail)
        if m:
            w = _singular(m.group(1).lower())
            return KINDS.get(w), w
    if _ORDINAL.match(tail):  # "April 19th": an ordinal, a date
        return None, ""
    stop = _STOP.search(tail)
    for k, w in enumerate(_WORD.findall(tail[: stop.start()] if stop else tail)):
        lw = w.lower()
        if k == 0 and lw in _ELIDED:
            return None, ""
        if lw in _SKIP:
            continue
        lw = _singular(lw)
        return KINDS.get(lw), lw
    return None, ""


def _places(text: str) -> tuple[tuple[Fraction, str | None, str, bool, bool], ...]:
    """(value, kind, noun, is a result, is a number word) of each number ``text`` writes in digits
    or as a number word; a result is right after '=' ("= 8 ounces": what the line computes, not a use).
    The values are the text's own, the rest is read once per masked text (:func:`_place_words`)."""
    out = []
    digits, worded = _place_words(digits_masked(text))
    for (a, b), kind, noun, result in digits:
        try:
            v = decimal_fraction(text[a:b].replace(",", ""))
        except (ValueError, ZeroDivisionError):
            continue
        out.append((v, kind, noun, result, False))
    return tuple(out) + worded


@text_memo(maxsize=1024)
def _place_words(masked: str) -> tuple[tuple[tuple[tuple[int, int], str | None, str, bool], ...],
                                       tuple[tuple[Fraction, str | None, str, bool, bool], ...]]:
    """Of a text with its digits masked (:func:`~qcstation.common.memo.digits_masked`): the span,
    kind, noun and whether it is a result of each number written in digits (read by their class
    and place only), and :func:`_places` of each number word (letters: the text's own)."""
    digits = tuple((m.span(1), *kind_of_words(masked[max(0, m.start() - 2):m.start()], masked[m.end():]),
                    bool(_RESULT_BEFORE.search(masked, max(0, m.start() - 4), m.start())))
                   for m in _NUM.finditer(masked))
    worded = tuple((Fraction(_NUMBER_WORDS[m.group(1).lower()]), *kind_of_words("", masked[m.end():]), False, True)
                   for m in _NUMBER_WORD_RE.finditer(masked))
    return digits, worded


@text_memo(maxsize=256)
def _read_solution(solution: str) -> tuple[tuple[tuple[frozenset[Fraction], tuple[tuple[Fraction, str | None, str, bool], ...]], ...],
                                           frozenset[str]]:
    """Each line's results and the places it uses (results left out), and the nouns the
    solution counts: written right after a number, a result's too (read once per text)."""
    lines = []
    counted: set[str] = set()
    for ln in solution[:MAX_TEXT].splitlines():
        places = _places(_ANN.sub(" ", ln))
        counted |= {p[2] for p in places if p[2]}
        lines.append((frozenset(_results(ln)), tuple((*p[:3], p[4]) for p in places if not p[3])))
    return tuple(lines), frozenset(counted)


@text_memo(maxsize=1024)
def _question_words(question: str, a: int, b: int) -> tuple[str | None, str]:
    return kind_of_words(question[max(0, a - 2):a], question[b:])


# after a number: "per mile", "a week", "an hour", "each", "/hour" -- it is a rate of one thing
_RATE_AFTER = re.compile(r"\s*(?:[A-Za-z]+\s+){0,2}?(?:per|a|an|each|every)\b|\s*/\s*[A-Za-z]", re.I)
_RESULT_NUM = re.compile(r"=\s*(\$?)\s*<<[^<>]{0,400}>>\s*(\$?)\s*(\d[\d,]*(?:\.\d+)?)")


@text_memo(maxsize=1024)
def _rate_kind(question: str, a: int, b: int) -> str | None:
    """"money" when the question states a price at a place ("$2 per mile", "$150 bonus per
    month"), else None. Only money: it is what a product keeps whatever else it multiplies
    ("5 days a week" times "60 miles a day" is miles, the days cancel; dollars do not cancel
    against miles, hours or items)."""
    kind, _ = kind_of_words(question[max(0, a - 2):a], question[b:])
    if kind != "money" or not _RATE_AFTER.match(question[b:b + 40]):
        return None
    return kind


def _result_kinds(line: str) -> list[tuple[Fraction, str | None]]:
    """(value, kind) of each result a line computes with a calculator annotation ("=$<<..>>600",
    "=<<..>>60 miles per day"); a result followed by "per"/"a"/"each" is a rate: kind None."""
    out: list[tuple[Fraction, str | None]] = []
    for m in _RESULT_NUM.finditer(line[:MAX_TEXT]):
        try:
            v = decimal_fraction(m.group(3).replace(",", ""))
        except (ValueError, ZeroDivisionError):
            continue
        if m.group(1) or m.group(2):
            out.append((v, "money"))
            continue
        after = line[m.end():m.end() + 60]
        if re.match(r"\s*(?:per|a|an|each|every)\b|\s*/", after, re.I):
            out.append((v, None))
            continue
        out.append((v, kind_of_words("", after)[0]))
    return out


def _factors(expr: Any, depth: int = 0) -> list[Any]:
    """The factors of a product (the term itself when it is none)."""
    if depth < 200 and type(expr).__name__ == "BinOp" and getattr(expr, "op", None) == "*":
        return _factors(expr.left, depth + 1) + _factors(expr.right, depth + 1)
    return [expr]


def _rate_roles(defs: Mapping[str, Any], values: Mapping[str, Fraction], name: str, rate: str, span: str,
                solution: str) -> str | None:
    """A step that multiplies by a rate of ``rate`` kind ("$2 per mile") makes a quantity of
    that kind (dollars); a line whose result the solution names as another kind ("30*2 = 60
    miles per day") uses the rate's value in another role (there and back: twice)."""
    for step, expr in defs.items():
        if step not in values or not any(type(f).__name__ == "Name" and f.name == name for f in _factors(expr)):
            continue
        # the step's own line (two steps of equal result: each its own), by its operands
        lines, _ = _read_solution(solution)
        at = _step_line(solution, lines, values[step], operand_values(expr, values))
        if at is None:
            continue
        kinds = {k for v, k in _result_kinds(solution[:MAX_TEXT].splitlines()[at]) if v == values[step]}
        if len(kinds) == 1 and None not in kinds and rate not in kinds:
            other = next(iter(kinds))
            return (f"{name} stands for the rate '{span}' ({rate}) in the question, but {step} multiplies by it"
                    f" and its line names the result as {other}")
    return None


def _results(line: str) -> set[Fraction]:
    out = set()
    for m in re.finditer(r"<<[^<>=]{0,400}=([^<>]{1,60})>>", line):
        try:
            out.add(decimal_fraction(m.group(1).strip().replace(",", "")))
        except (ValueError, ZeroDivisionError):
            continue
    if not out:  # a computation written in running text: "54 - 37 = 17"
        for m in re.finditer(r"=\s*\$?\s*(\d[\d,]*(?:\.\d+)?)", line):
            try:
                out.add(decimal_fraction(m.group(1).replace(",", "")))
            except (ValueError, ZeroDivisionError):
                continue
    return out


_ANN_PARTS = re.compile(r"<<([^<>=]{0,400})=([^<>]{1,60})>>")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?|(?<![\w.])\.\d+")


def _numbers(text: str) -> list[Fraction]:
    out = []
    for m in _NUMBER.finditer(text):
        try:
            out.append(decimal_fraction(m.group(0).replace(",", "")))
        except (ValueError, ZeroDivisionError):
            continue
    return out


def _step_line(solution: str, lines: tuple[Any, ...], value: Fraction, operands: list[Fraction]) -> int | None:
    """The line of a step: of the lines with its result, the one whose annotation computes it
    from the step's operands ("40-20=20", not "10*2=20"), else the first (read here, not
    shared with the rules or :mod:`.bindings`)."""
    cands = [i for i, (results, _) in enumerate(lines) if value in results]
    if len(cands) <= 1:
        return cands[0] if cands else None
    text = solution[:MAX_TEXT].splitlines()
    scores = []
    for i in cands:
        best = 0
        for m in _ANN_PARTS.finditer(text[i]):
            res = _numbers(m.group(2))
            if not res or res[0] != value:
                continue
            left, hit = sorted(operands), 0
            ops = _numbers(m.group(1))
            for v in ops:
                if v in left:
                    left.remove(v)
                    hit += 1
            # in the step's own order too: "3*$5 = $15" and "5*$3 = $15" are two steps' lines (4068)
            best = max(best, 4 * hit + 2 * (hit == len(ops) == len(operands)) + (ops == operands))
        scores.append(best)
    top = max(scores)
    return cands[scores.index(top)] if top and scores.count(top) == 1 else cands[0]


def _uses(expr: Any, depth: int = 0) -> list[str]:
    """The names a term uses, each as often as it uses it."""
    if depth > 200:
        return []
    kind = type(expr).__name__
    if kind == "Name":
        return [str(expr.name)]
    if kind == "Neg":
        return _uses(expr.operand, depth + 1)
    if kind == "BinOp":
        return _uses(expr.left, depth + 1) + _uses(expr.right, depth + 1)
    return []


def _differ(q: tuple[str | None, str], s: tuple[str | None, str], counted: frozenset[str]) -> bool:
    """Do the question's words at a place and the solution's words at a number name two kinds
    of quantity? Only when the solution's words name a kind (time, money, people...) and the
    question's name another kind, or a count of a thing that is none of them and that the
    solution also counts ("3 books/person"): a word after the question's number that the
    solution never writes after a number ("6 are allergic", "two times older") names no thing."""
    (qk, qn), (sk, sn) = q, s
    if sk is None or not qn or qn == sn:
        return False
    if qk is None and qn not in counted:
        return False
    return qk != sk


#: "30 minutes/day three times a week": a rate per day right before "N times a week" (its occasions are days)
_DAILY_RATE_BEFORE = re.compile(r"(?:/\s*day|\b(?:a|per|each)\s+day)\s*,?\s*$", re.I)
_TIMES_A_WEEK = re.compile(r"\s+times\s+(?:a|per|each)\s+week\b", re.I)


def _times_a_week_of_a_daily_rate(question: str, a: int, b: int) -> bool:
    """Is the place "N times a week" right after a rate per day ("Aron spends 30 minutes/day three times a
    week")? Then its N occasions are days: a line writing "3 days/week" names it as the question does."""
    return bool(_TIMES_A_WEEK.match(question, b) and _DAILY_RATE_BEFORE.search(question[max(0, a - 40):a]))


# "on day seven", "by day 3", "Day 2": a day named by its number ("6 hours a day 6 days" is no label)
_LABEL_BEFORE = re.compile(r"(?:\b(?:on|by|until|till|from|of|to|and)\s+day|(?:^|[.!?]\s+)Day)\s+$", re.I)


def given_roles(defs: Mapping[str, Any], values: Mapping[str, Fraction], givens: Iterable[Mapping[str, Any]],
                question: str, solution: str) -> list[str]:
    """The uses of givens in another role (see the module docstring), described. ``defs`` and
    ``values``: the formalization's definitions and their values; ``givens``: the stored givens
    (``name``, ``span`` in the question).

    The rules ask this of a formalization (from its steps) and the make-time audit asks it again
    (read back from its SMT-LIB): the answer is kept for the last formalizations by
    :func:`_roles_key`, which keeps exactly what it reads."""
    givens = list(givens)
    try:
        key = _roles_key(defs, values, givens, question, solution)
    except (Unkeyed, TypeError):
        return _given_roles(defs, values, givens, question, solution)
    hit = _ROLES.get(key)
    if hit is None:
        hit = tuple(_given_roles(defs, values, givens, question, solution))
        _ROLES.put(key, hit)
    return list(hit)


#: the last answers of :func:`given_roles`
_ROLES = LastAnswers(64)


def _roles_key(defs: Mapping[str, Any], values: Mapping[str, Fraction], givens: Sequence[Mapping[str, Any]],
               question: str, solution: str) -> tuple[Any, ...]:
    """What :func:`_given_roles` reads, and nothing else: each given's name, place and kind; the
    definitions that use a given (in order: the first found is the message), by shape (a
    number's written text is never read); the values of the givens, of those steps and of what
    they use. A definition that uses no given (a given's own number, ``answer = s4``) is never
    read past its uses. :class:`Unkeyed` for anything else."""
    gkey, names = [], set()
    for g in givens:
        name = g.get("name")
        gkey.append((plain_key(name), plain_key(g.get("span")), plain_key(g.get("kind"))))
        if type(name) is str:
            names.add(name)
    steps, needed = [], set(names)
    for step, expr in defs.items():
        if step not in values:
            continue
        uses = _uses(expr)
        if not names.intersection(uses):
            continue
        steps.append((plain_key(step), term_shape(expr)))
        needed.add(step)
        needed.update(uses)
    vals = []
    for n in sorted(needed):
        v = values[n] if n in values else None
        if n in values and type(v) is not Fraction:
            raise Unkeyed
        vals.append((n, n in values, v))
    return question, solution, tuple(gkey), tuple(steps), tuple(vals)


def _given_roles(defs: Mapping[str, Any], values: Mapping[str, Fraction], givens: Iterable[Mapping[str, Any]],
                 question: str, solution: str) -> list[str]:
    question = question[:MAX_TEXT]
    lines, counted = _read_solution(solution)
    out: list[str] = []
    for g in givens:
        name, span = g.get("name"), g.get("span")
        if not isinstance(name, str) or not name.startswith("g") or name not in values \
                or not isinstance(span, (list, tuple)) or len(span) != 2:
            continue
        try:
            a, b = int(span[0]), int(span[1])
        except (TypeError, ValueError):
            continue
        if not 0 <= a < b <= len(question):
            continue
        if _LABEL_BEFORE.search(question, max(0, a - 16), a):
            # "on day seven he saw 90": the seventh day, a name of one day, not a count of days
            out.append(f"{name} stands for '{question[max(0, a - 4):b]}' in the question, a label of one day, not a quantity")
            continue
        v = values[name]
        q = _question_words(question, a, b)
        if q[0] == "percent" or str(g.get("kind")) == "percent":
            continue
        days_of_times = _times_a_week_of_a_daily_rate(question, a, b)
        rate = _rate_kind(question, a, b)
        if rate is not None:
            found = _rate_roles(defs, values, name, rate, question[a:b + 12].strip(), solution)
            if found:
                out.append(found)
                continue
        for step, expr in defs.items():
            if step not in values:
                continue
            uses = _uses(expr)
            if name not in uses:
                continue
            at = _step_line(solution, lines, values[step], operand_values(expr, values))
            places = lines[at][1] if at is not None else None
            if not places:
                continue
            # the other names of this value the step uses (a named constant, another given)
            others = sum(1 for u in uses if u != name and values.get(u) == v)
            # a number word that counts the terms of the step's sum ("In three days ... 3+12+6") is no use
            terms = counts_the_terms(expr, v)
            here = [(k, n) for pv, k, n, spelled in places if pv == v and not (spelled and terms)]
            differ = [p for p in here if _differ(q, p, counted) and not (p[1] in ("day", "days") and days_of_times)]
            agree = [p for p in here if p[1] and not _differ(q, p, counted)]
            if len(differ) > others and len(agree) < uses.count(name):
                out.append(f"{name} stands for '{question[a:b]} {q[1]}'".rstrip()
                           + f" in the question, but {step}'s line writes {_fmt(v)} as '{differ[0][1]}'"
                           + f" ({differ[0][0]})")
                break
    return out


def _fmt(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
