"""The words a number is written with: where a question or a worked solution states a number
(digits, fractions, number words, word givens such as "half" or "a dozen") and which words
name it ("30 lbs", "$5 per hour"), as word stems. The construction rules tie each given to
its words with these readers, and the checks of :mod:`qcstation.core.construct.check` read
the same words again to judge what the rules made.

Every input is untrusted text; each reads at most :data:`MAX_TEXT` characters.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction
from collections.abc import Mapping
from typing import Any

from qcstation.common.memo import digits_masked, text_memo
from qcstation.core.reading.answers import decimal_fraction
from qcstation.core.reading.textnumbers import word_key
from qcstation.core.reading.word_values import NUMBER_WORD_VALUES, WORD_GIVENS

__all__ = ["ANNOTATION", "MAX_TEXT", "counted_noun", "NUMBER_WORD_VALUES", "NUMERAL", "WORD_GIVENS", "WORD_GIVEN_STEMS", "Occurrence",
           "fmt_value", "line_stems", "number_word_matches", "number_word_stems", "numeral_value", "numeral_values",
           "question_occurrences", "result_words", "solution_lines", "solution_results", "solution_stems", "stated_with_words",
           "joined_stems", "noun_after", "nouns_after_value", "word_before", "words_before_value", "operand_values", "stem", "step_line", "words_after_value", "words_at"]

MAX_TEXT = 200_000

NUMERAL = re.compile(r"(?=[\d.])(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                  r"(?:\s*/\s*(?P<den>\d+)(?![\d.]))?")
_NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(sorted(NUMBER_WORD_VALUES, key=len, reverse=True)) + r")\b",
                             re.IGNORECASE)

_WORD_GIVEN_RE = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(WORD_GIVENS, key=len, reverse=True))
                            + r")\b", re.IGNORECASE)

_WORD_GIVEN_FIRSTS = frozenset(re.match(r"\w+", w).group(0) for w in WORD_GIVENS)  # type: ignore[union-attr]
_WORD_RUN = re.compile(r"\w+")


def _word_matches(rx: re.Pattern[str], firsts: frozenset[str], text: str) -> list[re.Match[str]]:
    """``list(rx.finditer(text))`` for a pattern ``\\b(word|phrase|...)\\b`` (re.I) of letters,
    spaces and hyphens, ``firsts`` their first words; where they start read once per masked text."""
    return [rx.match(text, at) for at in _word_match_starts(rx, firsts, digits_masked(text))]  # type: ignore[misc]


@text_memo(maxsize=1024)
def _word_match_starts(rx: re.Pattern[str], firsts: frozenset[str], text: str) -> tuple[int, ...]:
    """A match starts a run of word characters that is a first word (in ASCII, its lower case; any
    other run is tried): the pattern is tried there only, not at every place (re.I makes it slow)."""
    out: list[int] = []
    end = 0
    for run in _WORD_RUN.finditer(text):
        at, word = run.start(), run.group(0)
        if at < end or (word.isascii() and word.lower() not in firsts):
            continue  # inside the last match ("one-half"), or no first word
        m = rx.match(text, at)
        if m is not None:
            out.append(at)
            end = m.end()
    return tuple(out)


def number_word_matches(text: str) -> list[re.Match[str]]:
    """``list(_NUMBER_WORD_RE.finditer(text))`` (see :func:`_word_matches`)."""
    return _word_matches(_NUMBER_WORD_RE, _NUMBER_WORD_FIRSTS, text)


_NUMBER_WORD_FIRSTS = frozenset(NUMBER_WORD_VALUES)

_STOP = frozenset("""a an the of per each every in on at to for and or but so that this these those it its
    he she they we you i his her their our your him them us me is are was were be been being has have
    had do does did will would can could should must may might then than there here with by from as
    into out up down about over after before more less much many total also just only now all some
    any if when which who whom what how not no old new other another same left still""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*|[$%]")
#: a verb of a solution's purpose after "to" ("by 2 to find the average"): the words name no quantity
_PURPOSE_VERBS = frozenset({"find", "calculate", "determine", "figure", "get", "know", "see", "work"})
#: a noun of kinds: the words after its "of" name what the number counts as well
_KINDS_OF = frozenset({"type", "types", "kind", "kinds", "sort", "sorts", "variety", "varieties"})
#: a word right after a number that opens the next clause: what follows names nothing of the number
_CLAUSE_OPENERS = frozenset({"so", "because", "since", "which", "then", "but"})


@dataclass(frozen=True)
class Occurrence:
    value: Fraction
    text: str
    words: frozenset[str]   # the stems of the words right after it ("lbs", "$")
    compound: frozenset[str] = frozenset()  # the word it is hyphened to ("speed" of "two-speed")
    start: int = -1  # where the question writes it


_FRACTION_WORD = re.compile(r"(?:hal(?:f|ves)|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|"
                            r"ninths?|tenths?)$", re.I)


def _compound(text: str, end: int) -> frozenset[str]:
    """The stem of the word a number is hyphened to ("a two-speed mower", "a 30-minute visit"),
    never a fraction's ("two-thirds")."""
    hyphen = _HYPHENED.match(text[end:end + 30])
    if hyphen is None or _FRACTION_WORD.match(hyphen.group(1)):
        return frozenset()
    return frozenset({stem(hyphen.group(1))})

def fmt_value(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


#: a unit's abbreviation -> the stem of the unit's name (a reader takes "cm" for "centimeters")
_UNIT_ABBREVIATIONS = {"cm": "cent", "cms": "cent", "mm": "mill", "km": "kilo", "kms": "kilo", "kg": "kilo",
                       "kgs": "kilo", "lb": "poun", "lbs": "poun", "oz": "ounc", "hr": "hour", "hrs": "hour",
                       "min": "minu", "mins": "minu", "sec": "seco", "secs": "seco", "yd": "yard", "yds": "yard",
                       "tbs": "tabl", "tbsp": "tabl", "tbsps": "tabl", "tsp": "teas", "tsps": "teas", "gal": "gall",
                       "gals": "gall"}


@functools.lru_cache(maxsize=16384)
def stem(word: str) -> str:
    # a str of a str: read once per word (the same words come back in every line and text)
    w = word.lower().replace("’", "'").split("'")[0]
    if w in ("$", "%"):
        return w
    if w in ("dollar", "dollars", "cent", "cents"):
        return "$" if w.startswith("d") else "cent"
    if w in ("percent",):
        return "%"
    if w in _UNIT_ABBREVIATIONS:  # "37 cm" names the question's "37 centimeters"
        return _UNIT_ABBREVIATIONS[w]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]  # "eggs" and "egg", "days" and "day" name the same thing
    return w[:4]


#: a noun that counts what its "of" names ("40 pieces of dollar bills": the bills are what is counted)
_PARTITIVE = frozenset({"piece", "pieces"})


#: where the words after a number end (:func:`_words_after`); compiled once, as the checks' many
#: patterns made from the texts' own words would push it out of ``re``'s cache
_WORDS_AFTER_STOP = re.compile(r"[=+\-*/×÷<>()\d.,;:!?\n]|\bx\b|\b(?:equals|plus|minus)\b", re.I)
_STEMS_STOP = re.compile(r"[=+\-*/×÷<>()\d.,;:!?\n]|\bx\b")
_HYPHENED = re.compile(r"-([A-Za-z]+)")
_BEFORE_PRICE = re.compile(r"[ \t]+\$(?=\d)")  # "two $20 bills": a count right before a price


def _words_after(text: str, end: int, limit: int) -> list[str]:
    """The content words right after a number, up to ``limit``, before any operator, digit or
    clause break ("30 lbs. by" -> ["lbs"]; "2 = 4 oranges" -> []); an operator written as a word
    is one too ("3 times 4 equals 12": the 4 is named by nothing, not by "equals"), while "equal"
    may name what is counted ("3 equal portions"); after "pieces" the words go on past "of" ("40
    pieces of dollar bills": the bills are what is counted); an "each" right after it is a word of it
    ("for $8 each": a price per item, its noun left out). Read from the 80 characters after
    the number alone, so the same words after another number are read once
    (:func:`_words_after_tail`: the variants of a question repeat most of its words)."""
    return _words_after_tail(text[end:end + 80], limit)


@text_memo(list, maxsize=4096)
def _words_after_tail(tail: str, limit: int) -> list[str]:
    """:func:`_words_after` of the 80 characters ``tail`` that follow a number."""
    stop = _WORDS_AFTER_STOP.search(tail)
    if tail[:1] == "%":
        return ["%"]
    chunk = tail[:stop.start()] if stop else tail
    out: list[str] = []
    found = _WORD.findall(chunk)
    if len(found) > 1 and found[0].lower() == "to" and found[1].lower() in _PURPOSE_VERBS:
        return out  # "divide by 2 to find the average": what the number is for, not what it counts
    for k, w in enumerate(found):
        lw = w.lower()
        if k == 0 and (lw in _CLAUSE_OPENERS or lw == "and" and len(found) > 1 and found[1].lower() not in _STOP):
            break  # "groups of 8 and put them", "eats 2 and passes 14": the next clause's words, not the number's  # "20% of 2400 so her car payment is": the words of the next clause name nothing of it
        if k == 0 and lw == "each":
            out.append(lw)  # "for $8 each", "at 8 each earning her": a price or count per item, its noun left out
            continue
        if lw in _STOP:
            if out and not (lw == "of" and (out[-1] in _PARTITIVE or out[-1] in _KINDS_OF)):
                break  # "40 pieces of dollar bills", "4 types of vanilla scents" name the bills, the scents
            continue
        out.append(lw)
        if len(out) >= limit + (out[0] in _KINDS_OF):
            break
    return out


def numeral_value(m: re.Match[str]) -> Fraction | None:
    return _read_value(m.group("num"), m.group("den"))


@text_memo(maxsize=4096)
def _read_value(num: str, den: str | None) -> Fraction | None:
    """The value of a number :data:`NUMERAL` matched (its digits and its denominator's), read
    once per text: the checks read the same numbers of a question and a solution many times."""
    try:
        v = decimal_fraction(num.replace(",", ""))
        if den:
            d = int(den[:30])
            return v / d if d else None
        return v
    except (ValueError, ZeroDivisionError):
        return None


@text_memo(list)
def question_occurrences(question: str) -> list[Occurrence]:
    """Every number the question states, with the words after it: digits, fractions (whole),
    number words and word givens (``half``, ``twice``, ``round trip``...). The values are the
    question's own, the words read once per masked text (:func:`_occurrence_words`)."""
    q = question[:MAX_TEXT]
    digits, worded = _occurrence_words(digits_masked(q))
    out: list[Occurrence] = []
    for a, b, num, den, words, stems, compound, percent in digits:
        v = _read_value(q[num[0]:num[1]], q[den[0]:den[1]] if den else None)
        if v is None:
            continue
        out.append(Occurrence(v, q[a:b] + words, stems, compound, a))
        if percent:
            out.append(Occurrence(v / 100, q[a:b] + "%", frozenset({"%"})))
    for occ, end in worded:  # a number word hyphened to a word it has none after: "two-speed"
        out.append(occ if end is None else Occurrence(
            occ.value, occ.text + q[end:end + 30].split()[0].rstrip(",.;:?!"), occ.words, occ.compound, occ.start))
    return out


@text_memo(maxsize=256)
def _occurrence_words(masked: str) -> tuple[tuple[Any, ...], tuple[tuple[Occurrence, int | None], ...]]:
    """Of a question with its digits masked (:func:`~qcstation.common.memo.digits_masked`): each
    number in digits (its span, its numerator's and denominator's, the words after it as written
    and as stems, its compound, a percent after it) by their class and place only, and
    :func:`question_occurrences` of the number words and word givens (letters: the text's own)."""
    q, digits = masked, []
    for m in NUMERAL.finditer(q):
        words = set(_words_after(q, m.end(), 3)) | ({"$"} if m.start() and q[m.start() - 1] == "$" else set())
        digits.append((m.start(), m.end(), m.span("num"), m.span("den") if m.group("den") else None,
                       " " + " ".join(sorted(words)) if words else "",
                       frozenset(stem(w) for w in words) | _abbreviated(q, m.end()), _compound(q, m.end()),
                       q[m.end():m.end() + 1] == "%" or q[m.end():m.end() + 8].strip().lower().startswith("percent")))
    worded: list[tuple[Occurrence, int | None]] = []
    for m in number_word_matches(q):
        after, compound = _words_after(q, m.end(), 3), _compound(q, m.end())
        worded.append((Occurrence(Fraction(NUMBER_WORD_VALUES[word_key(m.group(1), NUMBER_WORD_VALUES)]),
                                  m.group(0) + (" " + " ".join(after) if after else ""),
                                  frozenset(stem(w) for w in after), compound, m.start()),
                       m.end() if compound and not after else None))
    for m in _word_matches(_WORD_GIVEN_RE, _WORD_GIVEN_FIRSTS, q):
        phrase = m.group(1).lower()
        worded += [(Occurrence(v, m.group(0), frozenset({"~" + phrase}), start=m.start()), None)
                   for v in WORD_GIVENS[phrase]]
    return tuple(digits), tuple(worded)


ANNOTATION = re.compile(r"<<([^<>]{1,400})>>")
WORD_GIVEN_STEMS = frozenset("~" + w for w in WORD_GIVENS)


@text_memo(lambda lines: [(prose, list(results)) for prose, results in lines])
def solution_lines(solution: str) -> list[tuple[str, list[Fraction]]]:
    """Each line of the solution as (its prose without annotations, the results it computes:
    annotation results, else the numbers after '=')."""
    out = []
    for line in solution[:MAX_TEXT].splitlines():
        results: list[Fraction] = []
        for ann in ANNOTATION.findall(line):
            if "=" in ann:
                for m in NUMERAL.finditer(ann.rsplit("=", 1)[1]):
                    v = numeral_value(m)
                    if v is not None:
                        results.append(v)
                    break
        prose = ANNOTATION.sub(" ", line)
        if not results:
            # "48 = 100% + 20% = 120%": a number that opens an expression is no result
            for m in re.finditer(r"=\s*\$?\s*(" + NUMERAL.pattern + r")(?!\s*%?\s*[-+*/×÷]\s*[\d$(])", prose):
                v = numeral_value(NUMERAL.match(m.group(1)))  # type: ignore[arg-type]
                if v is not None:
                    results.append(v)
        out.append((prose, results))
    return out


def _line_operands(line: str, value: Fraction) -> list[list[Fraction]]:
    """The operands of each computation of ``line`` whose result is ``value``: the numbers of an
    annotation's expression (``<<40-20=20>>`` -> [40, 20]), else of the text before '= value'."""
    out: list[list[Fraction]] = []
    for ann in ANNOTATION.findall(line):
        if "=" not in ann:
            continue
        lhs, rhs = ann.rsplit("=", 1)
        m = NUMERAL.search(rhs)
        if m is None or numeral_value(m) != value:
            continue
        out.append([v for n in NUMERAL.finditer(lhs) if (v := numeral_value(n)) is not None])
    if not out and not ANNOTATION.search(line):
        for m in re.finditer(r"=\s*\$?\s*(" + NUMERAL.pattern + r")", line):
            if numeral_value(NUMERAL.match(m.group(1))) == value:  # type: ignore[arg-type]
                before = re.split(r"[=:]", line[:m.start()])[-1]
                out.append([v for n in NUMERAL.finditer(before) if (v := numeral_value(n)) is not None])
    return out


def operand_values(expr: Any, values: Mapping[str, Fraction] | None = None, depth: int = 0) -> list[Fraction]:
    """The values of the numbers and names a term uses, in order (a name by ``values``; one it
    has no value for is left out): what :func:`step_line` matches a solution's line by. Terms
    are read by shape (class name and fields), so the reading floor imports no term class."""
    if depth > 200:
        return []
    kind = type(expr).__name__
    if kind == "Num":
        return [Fraction(expr.value)]
    if kind == "Name":
        v = (values or {}).get(str(expr.name))
        return [v] if v is not None else []
    if kind == "Neg":
        return operand_values(expr.operand, values, depth + 1)
    if kind == "BinOp":
        return operand_values(expr.left, values, depth + 1) + operand_values(expr.right, values, depth + 1)
    if kind == "Call":  # a rounding (reading.expr.Call)
        return operand_values(expr.arg, values, depth + 1)
    return []


def step_line(solution: str, value: Fraction, operands: list[Fraction] | None = None) -> int | None:
    """The index (into :func:`solution_lines`) of the line that computes a step of result
    ``value`` from ``operands`` (the values of the numbers and earlier results its term uses).
    Of the lines with that result, the one whose computation writes those operands: two steps
    of equal result ("10*2 = $20" for the supplies, "40-20 = $20" for the profit) are read each
    on its own line, never both on the first. Where the operands do not tell the lines apart
    (or are not given), the first line with that result; None when no line has it."""
    lines = solution_lines(solution)
    cands = [i for i, (_, results) in enumerate(lines) if value in results]
    if len(cands) <= 1 or not operands:
        return cands[0] if cands else None
    text_lines = solution[:MAX_TEXT].splitlines()
    want = sorted(operands)

    def score(i: int) -> int:
        best = 0
        for ops in _line_operands(text_lines[i], value):
            left = list(want)
            hit = 0
            for v in ops:
                if v in left:
                    left.remove(v)
                    hit += 1
            exact = hit == len(want) == len(ops)
            best = max(best, 2 * hit + (1 if exact else 0))
        return best

    scores = [score(i) for i in cands]
    top = max(scores)
    best = [i for i, s in zip(cands, scores) if s == top]
    return best[0] if top and len(best) == 1 else cands[0]


def _joined(words: list[str]) -> frozenset[str]:
    """The stems of two words that one word may write ("sea horses" for a solution's "seahorses"):
    a short first word (whose own stem is shorter than the joined word's) and the word after it."""
    return frozenset(stem(a + b) for a, b in zip(words, words[1:])
                     if len(a) < 4 and a.isalpha() and b.isalpha())


_MPH = re.compile(r"\s*miles?\s+(?:per|an|a|each)\s+hour\b", re.I)


def _abbreviated(text: str, end: int) -> frozenset[str]:
    """The abbreviation a solution writes for the unit after a number ending at ``end``: "4 miles
    per hour" -> {"mph"}, which a solution's "4 mph" names (the "first 4 miles" it does not)."""
    return frozenset({"mph"}) if _MPH.match(text, end, min(len(text), end + 40)) else frozenset()


@functools.lru_cache(maxsize=1024)
def _of_after(word: str) -> re.Pattern[str]:
    """``word of`` and up to three words after it (:func:`joined_stems`), compiled once per word."""
    return re.compile(r"\s+" + re.escape(word) + r"\s+of\s+((?:[A-Za-z]+\s*){1,3})", re.I)


def joined_stems(question: str, start: int) -> frozenset[str]:
    """:func:`_joined` of the words after the number the question writes at ``start`` (digits or a
    number word): "3 fewer sea horses" -> {"seah"}, which a solution's "3 seahorses" names; and the
    words after an "of" right after its noun ("twenty trees of White Oak" -> {"whit", "oak"}, which
    a solution's "20 oak" names)."""
    q = question[:MAX_TEXT]
    m = (NUMERAL.match(q, start) or _WORD_RUN.match(q, start)) if start >= 0 else None
    if m is None:
        return frozenset()
    after = _words_after(q, m.end(), 1)
    out = _joined(_words_after(q, m.end(), 3)) | _abbreviated(q, m.end())
    of = _of_after(after[0]).match(q[m.end():m.end() + 80]) if after else None
    if of:
        out |= {stem(w) for w in _WORD.findall(of.group(1)) if w.lower() not in _STOP}
    return out


def words_at(text: str, start: int, end: int) -> frozenset[str]:
    """The stems of the words that name a number written at ``text[start:end]`` (the words
    right after it, and ``$`` before it): what it counts or measures. A number right before a
    price ("two $20 bills", "3 $2 cards") counts the things priced: the words after the price,
    not its "$" (no sum of money)."""
    price = _BEFORE_PRICE.match(text, end, min(len(text), end + 4))
    if price is not None:
        priced = NUMERAL.match(text, price.end(), min(len(text), price.end() + 40))
        if priced is not None:
            end = priced.end()
    listed = _words_after(text, end, 3)
    words = {stem(w) for w in listed} | _joined(listed) | _abbreviated(text, end)
    hyphen = _HYPHENED.match(text[end:end + 30])
    if hyphen:  # "a 7-day week", "8-ounce bottles"
        words.add(stem(hyphen.group(1)))
    if start and text[start - 1] == "$":
        words.add("$")
    return frozenset(words)


@text_memo(maxsize=2048)
def line_stems(line: str) -> frozenset[str]:
    """The stems of every content word of a line."""
    return frozenset(stem(w) for w in _WORD.findall(ANNOTATION.sub(" ", line[:MAX_TEXT])) if w.lower() not in _STOP)


@text_memo(maxsize=512)
def _stem_places(line: str) -> tuple[tuple[Any, ...], ...]:
    """Each place a solution line writes a number (annotations left out), read once per line for
    :func:`solution_stems`: its value, its numerator's and denominator's with a "$" before each (a
    fraction), a "$" before it, a "%" after it, the stems of the content words after it."""
    prose = ANNOTATION.sub(" ", line[:MAX_TEXT])
    out = []
    for m in NUMERAL.finditer(prose):
        parts = None if not m.group("den") else tuple(
            (_fraction_or_none(prose[a:b]), a == m.start("num") and bool(a) and prose[a - 1] == "$")
            for a, b in (m.span("num"), m.span("den")))
        end = m.end()
        price = _BEFORE_PRICE.match(prose, end, min(len(prose), end + 4))
        priced = NUMERAL.match(prose, price.end(), min(len(prose), price.end() + 40)) if price else None
        if priced is not None:
            end = priced.end()  # "2 $20 bills": the bills it counts (as :func:`words_at` reads a question)
        tail = prose[end:end + 80]
        stop = _STEMS_STOP.search(tail)
        words = [w for w in _WORD.findall(tail[:stop.start()] if stop else tail) if w.lower() not in _STOP]
        dollar = bool(m.start()) and prose[m.start() - 1] == "$"
        first = _NEXT_WORD.match(tail)
        counts = None if dollar or priced is not None or first is None or first.group(1).lower() in _STOP \
            or first.group(1).lower() in _MONEY_WORDS else stem(first.group(1))
        out.append((numeral_value(m), parts, dollar, tail[:1] == "%", tuple(stem(w) for w in words), counts))
    return tuple(out)


#: the word right after a number (one space or tab before it)
_NEXT_WORD = re.compile(r"[ \t]([A-Za-z][A-Za-z'’]*)")
_MONEY_WORDS = frozenset({"dollar", "dollars", "cent", "cents", "buck", "bucks", "usd"})


@text_memo(maxsize=512)
def counted_noun(line: str, value: Fraction, nth: int) -> str | None:
    """The stem of the thing the ``nth`` place a solution line writes ``value`` counts, where the
    line writes it as a count: no "$" before it and a content word right after it that is no
    money ("$6/card * 2 cards": "card"; "2 $20 bills", "$2", "2 per card", "2 dollars": None)."""
    places: list[str | None] = []
    for v, parts, _dollar, _percent, _stems, counts in _stem_places(line):  # numbered as solution_stems numbers them
        if parts is not None and v != value:
            places += [None for part, _ in parts if part == value]
        elif v == value:
            places.append(counts)
    return places[nth] if 0 <= nth < len(places) else None


def _fraction_or_none(text: str) -> Fraction | None:
    try:
        return Fraction(text.replace(",", ""))
    except ValueError:
        return None


@text_memo(maxsize=512)
def solution_stems(line: str, value: Fraction, limit: int = 4, nth: int | None = None) -> frozenset[str]:
    """The stems of the words after the places a solution line writes ``value`` (annotations
    left out): up to ``limit`` content words before the next operator, digit or clause break.
    With ``nth``, only the nth place, when the line writes the value that often."""
    places: list[set[str]] = []
    for v, parts, dollar, percent, stems, _counts in _stem_places(line):
        if parts is not None and v != value:  # "25/100 x 100%": its parts are places of their own
            # (what follows names the whole fraction; a "$" before, the numerator: "$3 / 2 sandwiches")
            places += [{"$"} if dollar_part else set() for part, dollar_part in parts if part == value]
            continue
        if v != value:
            continue
        # up to four content words before the next operator, digit or clause break
        # ("1 skein per pair of mittens" names the pair of mittens too)
        places.append(({"$"} if dollar else set()) | ({"%"} if percent else set(stems[:limit])))
    if nth is not None and nth < len(places):
        return frozenset(places[nth])
    return frozenset().union(*places) if places else frozenset()


def noun_after(text: str, end: int) -> str | None:
    """The first content word right after a number that ends at ``text[end]``, before any
    operator, digit or clause break ("9 inpatients at the clinic": "inpatient"; "9 * 20": None),
    in lower case with a plural "s" dropped and nothing else: "feet" and "foot" stay two words."""
    words = _words_after(text, end, 1)
    if not words or words[0] in ("$", "%"):
        return None
    w = words[0].replace("’", "'").split("'")[0]
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def nouns_after_value(prose: str, value: Fraction) -> frozenset[str]:
    """:func:`noun_after` at each place a line's prose (annotations blanked) writes ``value`` in digits."""
    out = set()
    for m in NUMERAL.finditer(prose[:MAX_TEXT]):
        if numeral_value(m) == value:
            w = noun_after(prose, m.end())
            if w:
                out.add(w)
    return frozenset(out)


_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z'’]*) +$")


def word_before(text: str, start: int) -> str | None:
    """The stem of the word written right before ``start`` with only spaces between ("lost 5",
    "size five"), None when a sign, a number or a stop word stands there ("has 5", "20-5")."""
    m = _WORD_BEFORE.search(text[max(0, start - 40):start])
    if m is None or m.group(1).lower() in _STOP:
        return None
    return stem(m.group(1))


_OPERAND_BEFORE = re.compile(r"[-+*/×÷=(\dx$] *$")


def words_before_value(prose: str, value: Fraction) -> list[str | None]:
    """:func:`word_before` at each place a line's prose (annotations blanked) writes ``value``,
    in digits or as a number word, except where it is an operand of written arithmetic ("20-5",
    "= 5", "$5"); an empty list: the prose writes it nowhere else."""
    text = prose[:MAX_TEXT]
    starts = [m.start() for m in NUMERAL.finditer(text) if numeral_value(m) == value]
    starts += [m.start(1) for m in number_word_matches(text)
               if Fraction(NUMBER_WORD_VALUES[word_key(m.group(1), NUMBER_WORD_VALUES)]) == value]
    return [word_before(text, s) for s in sorted(starts) if not _OPERAND_BEFORE.search(text[max(0, s - 3):s])]


@text_memo(lambda found: None if found is None else [list(w) for w in found], maxsize=512)
def words_after_value(prose: str, value: Fraction) -> list[list[str]] | None:
    """The words after each place the line writes ``value`` (None: the line does not write it)."""
    found: list[list[str]] = []
    for m in NUMERAL.finditer(prose):
        if m.group("den") and numeral_value(m) != value and m.start() and prose[m.start() - 1] == "$":
            # "$3 / 2 sandwiches": the numerator is the dollars, what follows names the quotient
            try:
                if Fraction(m.group("num").replace(",", "")) == value:
                    found.append(["$"])
            except ValueError:
                pass
            continue
        if numeral_value(m) != value:
            continue
        words = _words_after(prose, m.end(), 2)
        if m.start() and prose[m.start() - 1] == "$":
            words = ["$", *words]
        found.append(words)
    return found or None


def clause_after_value(prose: str, value: Fraction) -> bool:
    """Does the prose write ``value`` right before a word that opens the next clause ("of 2400 so
    her car payment is")? Its words then name nothing of it (:func:`words_after_value` reads none)."""
    for m in NUMERAL.finditer(prose[:MAX_TEXT]):
        if numeral_value(m) == value:
            first = _WORD.match(prose[m.end():m.end() + 20].lstrip())
            if first is not None and first.group(0).lower() in _CLAUSE_OPENERS:
                return True
    return False


_DOLLAR_BEFORE = re.compile(r"\$\s*$")


def result_words(prose: str, value: Fraction) -> frozenset[str]:
    """The stems of the words after the last place a line (annotations blanked) writes its
    result ``value``, with the "$" before it ("... = $ 70" -> {$}); empty when the line writes
    it with no words."""
    found: frozenset[str] = frozenset()
    for m in NUMERAL.finditer(prose):
        if numeral_value(m) != value:
            continue
        words = {stem(w) for w in _words_after(prose, m.end(), 2)}
        if _DOLLAR_BEFORE.search(prose, max(0, m.start() - 3), m.start()):
            words.add("$")
        found = frozenset(words)
    return found


_FRACTION_AFTER = re.compile(r"-?\s*(?:halves|half|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?"
                             r"|ninths?|tenths?)\b", re.I)


def number_word_stems(line: str, value: Fraction) -> list[frozenset[str]]:
    """The stems of the words after each place a solution line writes ``value`` as a number
    word ("The two adults pay $26 x 2" -> [{adul}]), annotations left out; a number word that
    is a fraction's numerator ("two-thirds") is no place of its own."""
    prose = ANNOTATION.sub(" ", line[:MAX_TEXT])
    out: list[frozenset[str]] = []
    for m in number_word_matches(prose):
        if _FRACTION_AFTER.match(prose, m.end()):
            continue
        if Fraction(NUMBER_WORD_VALUES[word_key(m.group(1), NUMBER_WORD_VALUES)]) != value:
            continue
        out.append(frozenset(stem(w) for w in _words_after(prose, m.end(), 3)))
    return out


@text_memo(set, maxsize=512)
def numeral_values(text: str) -> set[Fraction]:
    out = set()
    for m in NUMERAL.finditer(text[:MAX_TEXT]):
        v = numeral_value(m)
        if v is not None:
            out.add(v)
    return out


def solution_results(solution: str) -> set[Fraction]:
    return {v for _, results in solution_lines(solution) for v in results}


def stated_with_words(text: str, start: int, end: int, value: Fraction, question: str) -> bool:
    """Does the question state ``value`` with the words that follow it at ``text[start:end]``
    ("for 20 chickens" where the question says "the size of Wendi's flock is 20 chickens",
    "$5 per hour" for "earns $5 per hour")? Then it is that given, written again, not a step's
    result of the same value (the answer $20 is no "20 hours"). A percent sign is such a word:
    "in 40% of the file" is gsm8k-8's given "40% of the way", though a step computes 40 minutes."""
    if text[start:end].endswith("%"):
        end -= 1
    # "the rows of 8 and 6 stars": the word after a list of numbers is said of each
    listed = re.match(r"\s+(?:and|or|to)\s+\$?\d[\d,]*(?:\.\d+)?", text[end:end + 40])
    first = _words_after(text[:MAX_TEXT], end + (listed.end() if listed else 0), 1)
    if not first:
        return False
    word = stem(first[0])
    # the word right after it, on both sides ("5 pens when the 25 run low" is no "five
    # empty pens")
    return (value, word) in _stated_words(question)


@text_memo(maxsize=512)
def _stated_words(question: str) -> frozenset[tuple[Fraction, str]]:
    """(value, the stem of the word right after it) of every number the question writes in
    digits or as a number word and follows by a word (read once per question)."""
    q = question[:MAX_TEXT]
    out: set[tuple[Fraction, str]] = set()
    for m in (*NUMERAL.finditer(q), *number_word_matches(q)):
        v = numeral_value(m) if m.re is NUMERAL else Fraction(NUMBER_WORD_VALUES[word_key(m.group(1), NUMBER_WORD_VALUES)])
        after = _words_after(q, m.end(), 1)
        if v is not None and after:
            out.add((v, stem(after[0])))
    return frozenset(out)


_CLAUSE_STOP = _STOP | frozenset("""take takes took make makes made get gets got go goes went come comes came
    buy buys bought sell sells sold cost costs pay pays paid spend spends spent give gives gave need needs
    want wants many much number amount times time as than""".split())


_SIZE_RUN = re.compile(r"(?<![\w.])\d+(?:\s*x\s*\d+)+")
_SIZE_NAMED = re.compile(r"(?<![\w.])(\d+(?:\s*x\s*\d+){1,8})['’]?s\b")   # bounded: linear
#: what every size name holds (a digit, spaces, an "x"): a pattern that opens with a digit is
#: looked for only where a digit stands, while :data:`_SIZE_NAMED`, opening with a look-behind,
#: is tried at every place of the text; a solution without it names no size
_SIZE_HINT = re.compile(r"\d\s*x")


def size_names(question: str, solution: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The sizes the question writes ("ten 2 x 4 x 10 boards") that the solution names a thing by,
    as the plural of a name ("She bought the 2 x 4s", "six 2 x 4's"): the spans of each in the
    question and in the solution. Such a size is the name of the thing, its numbers no quantities
    (the 10 of "2 x 4 x 10" is neither the ten boards nor their $10); a size the solution computes
    with ("a 10 x 12 room" / "10 x 12 = 120") is no name."""
    q, sol = question[:MAX_TEXT], solution[:MAX_TEXT]
    if "x" not in sol or _SIZE_HINT.search(sol) is None:
        return [], []
    named = [(m.start(), m.end(), re.sub(r"\s+", "", m.group(1))) for m in _SIZE_NAMED.finditer(sol)]
    if not named:
        return [], []
    in_q = [(m.start(), m.end(), re.sub(r"\s+", "", m.group(0))) for m in _SIZE_RUN.finditer(q)]
    return ([(a, b) for a, b, size in in_q if any(size.startswith(n) for _, _, n in named)],
            [(a, b) for a, b, n in named if any(size.startswith(n) for _, _, size in in_q)])


def blank_size_names(question: str, solution: str) -> str:
    """``question`` with each size the solution names a thing by (:func:`size_names`) blanked, at
    the same length (every place keeps its offset)."""
    spans = size_names(question, solution)[0]
    for a, b in spans:
        question = question[:a] + " " * (b - a) + question[b:]
    return question
