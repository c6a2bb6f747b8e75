"""Checks re-derived from the question and the gold solution alone, never from the labels a
rule wrote with its artifact (links, evidence, error records): they can fail where the rule
is wrong. :mod:`qcstation.core.construct.check.selfcheck` turns their findings into flags; the
construction rules also ask :func:`binding_problems` before they accept a formalization.

* :func:`binding_problems`: which words each given a step uses is tied to. For a step, the
  solution's line that computes it names its numbers ("2 * 30 days"); the question's
  occurrences of the same value name theirs ("30 lbs", "half", "2 sons"). A given whose
  solution words agree with none of the question's, or whose solution line names nothing
  while the question offers it under different words, is a binding no reader can vouch for.
* :func:`step_literals`: numbers written into a step's definition instead of a declared given.
* :func:`value_leaks`: unknown quantities that show a step's result or the answer.
* :func:`hidden_numbers`: its converse, a '?' that hides a number no step computes.
* :func:`used_irrelevant`: "irrelevant" information whose numbers the solution computes with.
* :func:`stale_edits`: an edited line of a wrong chain of thought that still states the
  value its computation no longer gives.

Every input is untrusted text; each reads at most :data:`MAX_TEXT` characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from qcstation.common.memo import text_memo
from qcstation.core.reading.textnumbers import word_key

__all__ = ["Binding", "binding_problems", "line_stems", "solution_stems", "words_at", "equal_value_links", "expr_names", "link_by_words", "question_occurrences", "solution_lines", "stale_edits",
           "step_literals", "stated_with_words", "used_irrelevant", "value_leaks", "hidden_numbers",
           "WORD_GIVENS"]

MAX_TEXT = 200_000

_NUM = re.compile(r"(?=[\d.])(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                  r"(?:\s*/\s*(?P<den>\d+)(?![\d.]))?")
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_NUMBER_WORDS.update({w: 10 * i for i, w in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), 3)})
_NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b",
                             re.IGNORECASE)

#: words that state a number without digits, with the values a solution writes for them
#: (half of x is x/2 or x*1/2); each is a given of its own, tied to its words
WORD_GIVENS: dict[str, tuple[Fraction, ...]] = {
    "half": (Fraction(1, 2), Fraction(2)),
    "twice": (Fraction(2),),
    "double": (Fraction(2),),
    "doubled": (Fraction(2),),
    "doubles": (Fraction(2),),
    "triple": (Fraction(3),),
    "tripled": (Fraction(3),),
    "thrice": (Fraction(3),),
    "a third": (Fraction(1, 3), Fraction(3)),
    "one third": (Fraction(1, 3), Fraction(3)),
    "a quarter": (Fraction(1, 4), Fraction(4)),
    "one quarter": (Fraction(1, 4), Fraction(4)),
    "a fourth": (Fraction(1, 4), Fraction(4)),
    "one-half": (Fraction(1, 2), Fraction(2)),
    "one-third": (Fraction(1, 3), Fraction(3)),
    "one-quarter": (Fraction(1, 4), Fraction(4)),
    "one-fourth": (Fraction(1, 4), Fraction(4)),
    "a fifth": (Fraction(1, 5), Fraction(5)),
    "one fifth": (Fraction(1, 5), Fraction(5)),
    "one-fifth": (Fraction(1, 5), Fraction(5)),
    "a tenth": (Fraction(1, 10), Fraction(10)),
    "two-thirds": (Fraction(2, 3),),
    "two thirds": (Fraction(2, 3),),
    "three-fourths": (Fraction(3, 4),),
    "three fourths": (Fraction(3, 4),),
    "three-quarters": (Fraction(3, 4),),
    "three quarters": (Fraction(3, 4),),
    "one-tenth": (Fraction(1, 10), Fraction(10)),
    "a dozen": (Fraction(12),),
    "dozen": (Fraction(12),),
    "dozens": (Fraction(12),),
    "an hour": (Fraction(60),),
    "round trip": (Fraction(2),),
    "round-trip": (Fraction(2),),
    "a pair": (Fraction(2),),
    "quadruple": (Fraction(4),),
    "quadrupled": (Fraction(4),),
    "a week": (Fraction(7),),
}
_WORD_GIVEN_RE = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(WORD_GIVENS, key=len, reverse=True))
                            + r")\b", re.IGNORECASE)

_WORD_GIVEN_FIRSTS = frozenset(re.match(r"\w+", w).group(0) for w in WORD_GIVENS)  # type: ignore[union-attr]
_WORD_RUN = re.compile(r"\w+")


def _word_matches(rx: re.Pattern[str], firsts: frozenset[str], text: str) -> list[re.Match[str]]:
    """``list(rx.finditer(text))`` for a pattern ``\\b(word|phrase|...)\\b`` (re.I) whose
    words and phrases are letters, spaces and hyphens, ``firsts`` their first words: a match
    starts a run of word characters, that run is a first word (in ASCII, its lower case; any
    other run is tried), and the pattern is tried there only. The same matches, without trying
    the alternation at every place of the text (which re.I makes slow)."""
    out: list[re.Match[str]] = []
    end = 0
    for run in _WORD_RUN.finditer(text):
        at = run.start()
        if at < end:
            continue  # inside the last match ("one-half")
        word = run.group(0)
        if word.isascii() and word.lower() not in firsts:
            continue
        m = rx.match(text, at)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


def _number_word_matches(text: str) -> list[re.Match[str]]:
    """``list(_NUMBER_WORD_RE.finditer(text))`` (see :func:`_word_matches`)."""
    return _word_matches(_NUMBER_WORD_RE, _NUMBER_WORD_FIRSTS, text)


_NUMBER_WORD_FIRSTS = frozenset(_NUMBER_WORDS)

_STOP = frozenset("""a an the of per each every in on at to for and or but so that this these those it its
    he she they we you i his her their our your him them us me is are was were be been being has have
    had do does did will would can could should must may might then than there here with by from as
    into out up down about over after before more less much many total also just only now all some
    any if when which who whom what how not no old new other another same left still""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*|[$%]")


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
    hyphen = re.match(r"-([A-Za-z]+)", text[end:end + 30])
    if hyphen is None or _FRACTION_WORD.match(hyphen.group(1)):
        return frozenset()
    return frozenset({_stem(hyphen.group(1))})


@dataclass(frozen=True)
class Binding:
    """A given a step uses whose words no reader can match to the question's."""

    step: str
    value: Fraction
    solution_words: tuple[str, ...]
    question_texts: tuple[str, ...]

    def describe(self) -> str:
        v = _fmt(self.value)
        q = ", ".join(repr(t) for t in self.question_texts[:4])
        if self.solution_words:
            return (f"{self.step} uses {v} as '{v} {' '.join(self.solution_words)}' in the solution, "
                    f"but the question states {v} only as {q}")
        return f"{self.step} uses {v}, which the question states under different words: {q}"


def _fmt(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def _stem(word: str) -> str:
    w = word.lower().replace("’", "'").split("'")[0]
    if w in ("$", "%"):
        return w
    if w in ("dollar", "dollars", "cent", "cents"):
        return "$" if w.startswith("d") else "cent"
    if w in ("percent",):
        return "%"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]  # "eggs" and "egg", "days" and "day" name the same thing
    return w[:4]


def _words_after(text: str, end: int, limit: int) -> list[str]:
    """The content words right after a number, up to ``limit``, before any operator, digit or
    clause break ("30 lbs. by" -> ["lbs"]; "2 = 4 oranges" -> [])."""
    tail = text[end:end + 80]
    stop = re.search(r"[=+\-*/×÷<>()\d.,;:!?\n]|\bx\b", tail)
    if tail[:1] == "%":
        return ["%"]
    chunk = tail[:stop.start()] if stop else tail
    out: list[str] = []
    for w in _WORD.findall(chunk):
        lw = w.lower()
        if lw in _STOP:
            if out:
                break
            continue
        out.append(lw)
        if len(out) >= limit:
            break
    return out


def _value(m: re.Match[str]) -> Fraction | None:
    return _read_value(m.group("num"), m.group("den"))


@text_memo(maxsize=4096)
def _read_value(num: str, den: str | None) -> Fraction | None:
    """The value of a number :data:`_NUM` matched (its digits and its denominator's), read
    once per text: the checks read the same numbers of a question and a solution many times."""
    try:
        v = Fraction(num.replace(",", ""))
        if den:
            d = int(den[:30])
            return v / d if d else None
        return v
    except (ValueError, ZeroDivisionError):
        return None


@text_memo(list)
def question_occurrences(question: str) -> list[Occurrence]:
    """Every number the question states, with the words after it: digits, fractions (whole),
    number words and word givens (``half``, ``twice``, ``round trip``...)."""
    q = question[:MAX_TEXT]
    out: list[Occurrence] = []
    for m in _NUM.finditer(q):
        v = _value(m)
        if v is None:
            continue
        words = set(_words_after(q, m.end(), 3))
        if m.start() and q[m.start() - 1] == "$":
            words.add("$")
        out.append(Occurrence(v, m.group(0) + (" " + " ".join(sorted(words)) if words else ""),
                              frozenset(_stem(w) for w in words), _compound(q, m.end()), m.start()))
        if q[m.end():m.end() + 1] == "%" or q[m.end():m.end() + 8].strip().lower().startswith("percent"):
            out.append(Occurrence(v / 100, m.group(0) + "%", frozenset({"%"})))
    for m in _number_word_matches(q):
        after = _words_after(q, m.end(), 3)
        compound = _compound(q, m.end())
        out.append(Occurrence(Fraction(_NUMBER_WORDS[word_key(m.group(1), _NUMBER_WORDS)]),
                              m.group(0) + (" " + " ".join(after) if after else q[m.end():m.end() + 30].split()[0].rstrip(",.;:?!")
                                            if compound else ""),
                              frozenset(_stem(w) for w in after), compound, m.start()))
    for m in _word_matches(_WORD_GIVEN_RE, _WORD_GIVEN_FIRSTS, q):
        phrase = m.group(1).lower()
        for v in WORD_GIVENS[phrase]:
            out.append(Occurrence(v, m.group(0), frozenset({"~" + phrase}), start=m.start()))
    return out


_ANN = re.compile(r"<<([^<>]{1,400})>>")
_WORD_STEMS = frozenset("~" + w for w in WORD_GIVENS)


@text_memo(lambda lines: [(prose, list(results)) for prose, results in lines])
def solution_lines(solution: str) -> list[tuple[str, list[Fraction]]]:
    """Each line of the solution as (its prose without annotations, the results it computes:
    annotation results, else the numbers after '=')."""
    out = []
    for line in solution[:MAX_TEXT].splitlines():
        results: list[Fraction] = []
        for ann in _ANN.findall(line):
            if "=" in ann:
                for m in _NUM.finditer(ann.rsplit("=", 1)[1]):
                    v = _value(m)
                    if v is not None:
                        results.append(v)
                    break
        prose = _ANN.sub(" ", line)
        if not results:
            # "48 = 100% + 20% = 120%": a number that opens an expression is no result
            for m in re.finditer(r"=\s*\$?\s*(" + _NUM.pattern + r")(?!\s*%?\s*[-+*/×÷]\s*[\d$(])", prose):
                v = _value(_NUM.match(m.group(1)))  # type: ignore[arg-type]
                if v is not None:
                    results.append(v)
        out.append((prose, results))
    return out


def words_at(text: str, start: int, end: int) -> frozenset[str]:
    """The stems of the words that name a number written at ``text[start:end]`` (the words
    right after it, and ``$`` before it): what it counts or measures."""
    words = {_stem(w) for w in _words_after(text, end, 3)}
    hyphen = re.match(r"-([A-Za-z]+)", text[end:end + 30])
    if hyphen:  # "a 7-day week", "8-ounce bottles"
        words.add(_stem(hyphen.group(1)))
    if start and text[start - 1] == "$":
        words.add("$")
    return frozenset(words)


def line_stems(line: str) -> frozenset[str]:
    """The stems of every content word of a line."""
    return frozenset(_stem(w) for w in _WORD.findall(_ANN.sub(" ", line[:MAX_TEXT])) if w.lower() not in _STOP)


@text_memo(maxsize=512)
def solution_stems(line: str, value: Fraction, limit: int = 4, nth: int | None = None) -> frozenset[str]:
    """The stems of the words after the places a solution line writes ``value`` (annotations
    left out): up to ``limit`` content words before the next operator, digit or clause break.
    With ``nth``, only the nth place, when the line writes the value that often."""
    prose = _ANN.sub(" ", line[:MAX_TEXT])
    places: list[set[str]] = []
    for m in _NUM.finditer(prose):
        if m.group("den") and _value(m) != value:
            # "25/100 x 100%": the numerator and the denominator are places of their own
            parts = [(m.start("num"), m.end("num")), (m.start("den"), m.end("den"))]
            for a, b in parts:
                try:
                    if Fraction(prose[a:b].replace(",", "")) == value:
                        places.append(set())  # what follows names the whole fraction
                except ValueError:
                    pass
            continue
        if _value(m) != value:
            continue
        here: set[str] = set()
        if m.start() and prose[m.start() - 1] == "$":
            here.add("$")
        # up to four content words before the next operator, digit or clause break
        # ("1 skein per pair of mittens" names the pair of mittens too)
        tail = prose[m.end():m.end() + 80]
        stop = re.search(r"[=+\-*/×÷<>()\d.,;:!?\n]|\bx\b", tail)
        if tail[:1] == "%":
            here.add("%")
        else:
            words = [w for w in _WORD.findall(tail[:stop.start()] if stop else tail) if w.lower() not in _STOP]
            here |= {_stem(w) for w in words[:limit]}
        places.append(here)
    if nth is not None and nth < len(places):
        return frozenset(places[nth])
    return frozenset().union(*places) if places else frozenset()


@text_memo(lambda found: None if found is None else [list(w) for w in found], maxsize=512)
def _solution_words(prose: str, value: Fraction) -> list[list[str]] | None:
    """The words after each place the line writes ``value`` (None: the line does not write it)."""
    found: list[list[str]] = []
    for m in _NUM.finditer(prose):
        if _value(m) != value:
            continue
        words = _words_after(prose, m.end(), 2)
        if m.start() and prose[m.start() - 1] == "$":
            words = ["$", *words]
        found.append(words)
    return found or None


def binding_problems(defs: dict[str, Any], values: dict[str, Fraction], question: str,
                     solution: str) -> list[Binding]:
    """Givens whose words the solution and the question do not agree on (see the module
    docstring). ``defs`` are a formalization's definitions (name -> expression), ``values``
    their values; a given is a name defined as a number.

    The rules ask this of a formalization before they accept it (from its steps) and the
    make-time audit asks it again of the same formalization (read back from its SMT-LIB): the
    answer is kept for the last formalizations by :func:`_bindings_key`, which keeps exactly
    what the checks read."""
    if not question or not solution:
        return []
    try:
        key = (_bindings_key(defs, values), question, solution)
        hit = _BINDINGS.get(key)
    except (_Unkeyed, TypeError):
        return _binding_problems(defs, values, question, solution)
    if hit is None:
        hit = tuple(_binding_problems(defs, values, question, solution))
        if len(_BINDINGS) >= _BINDINGS_KEEP:
            del _BINDINGS[next(iter(_BINDINGS))]
        _BINDINGS[key] = hit
    return list(hit)


#: the last answers of :func:`binding_problems` (key -> problems), oldest first
_BINDINGS: dict[Any, tuple[Binding, ...]] = {}
_BINDINGS_KEEP = 256


class _Unkeyed(Exception):
    """A formalization :func:`_bindings_key` does not describe (it is checked without the memo)."""


def _bindings_key(defs: dict[str, Any], values: dict[str, Fraction]) -> tuple[Any, ...]:
    """What :func:`_binding_problems` reads of a formalization, and nothing else: the
    definitions in order, each step by its shape (names, operators, numbers), each given only
    as a given (a number, its negation or a quotient of two numbers: only its value counts,
    and that is in ``values``); a definition that only names a step no definition uses
    ("answer = s4") is left out (no check reads it), with its value. Raises :class:`_Unkeyed`
    for a term of another kind or deeper than the checks read."""
    used: set[str] = set()
    for e in defs.values():
        used |= expr_names(e)
    items: list[tuple[str, Any]] = []
    for name, e in defs.items():
        if _is_given(e):
            items.append((name, "given"))
        elif _kind(e) == "Name" and e.name in defs and not _is_given(defs[e.name]) and name not in used:
            continue
        else:
            items.append((name, _shape(e)))
    kept = {name for name, _ in items}
    if not all(type(v) is Fraction for v in values.values()):
        raise _Unkeyed
    return tuple(items), frozenset((n, v) for n, v in values.items() if n in kept)


def _shape(e: Any, depth: int = 0) -> tuple[Any, ...]:
    if depth > 200:
        raise _Unkeyed
    k = _kind(e)
    if k == "Num":
        return ("Num", e.value)
    if k == "Name":
        return ("Name", e.name)
    if k == "Neg":
        return ("Neg", _shape(e.operand, depth + 1))
    if k == "BinOp":
        return ("BinOp", e.op, _shape(e.left, depth + 1), _shape(e.right, depth + 1))
    raise _Unkeyed


def _binding_problems(defs: dict[str, Any], values: dict[str, Fraction], question: str,
                      solution: str) -> list[Binding]:
    occurrences = question_occurrences(question)
    # "1/4 that number", divided as "8 / 4": a unit fraction is also a place of the number it divides by
    reciprocals = [Occurrence(1 / o.value, o.text, o.words | {"~1/n"}) for o in occurrences
                   if o.value.numerator == 1 and o.value.denominator > 1 and "/" in o.text.split()[0]]
    lines = solution_lines(solution)
    problems: list[Binding] = []
    seen: set[tuple[str, Fraction]] = set()
    for step, expr in defs.items():
        if _kind(expr) in ("Num", "Name") or _is_given(expr) or step not in values:
            continue
        line = next((prose for prose, results in lines if values[step] in results), None)
        if line is None:
            continue
        for dep in sorted(expr_names(expr)):
            if dep not in defs or not _is_given(defs[dep]) or dep not in values:
                continue
            v = values[dep]
            if (step, v) in seen or v == 0:
                continue
            seen.add((step, v))
            same = [d for d in set(expr_names(expr)) if d in defs and _is_given(defs[d]) and values.get(d) == v]
            if len(same) > 1 and len(same) >= sum(o.value == v for o in occurrences) \
                    and _one_sum_or_product(expr):
                continue  # "3 sprints 3 times" -> 3*3: each place once, which is which is immaterial
            occ = occurrences + reciprocals if _divides_by(expr, dep) else occurrences
            problem = _one_binding(step, v, line, occ, solution, dep, question) \
                or _unit_mismatch(step, expr, dep, v, occurrences)
            if problem is not None:
                problems.append(problem)
    return problems + _one_given_for_two(defs, values, occurrences, lines) + _paired_apart(defs, values, question) \
        + _two_roles(defs, values, occurrences, lines)


def _name_count(expr: Any, name: str, depth: int = 0) -> int:
    if depth > 200:
        return 0
    k = _kind(expr)
    if k == "Name":
        return int(str(expr.name) == name)
    if k == "Neg":
        return _name_count(expr.operand, name, depth + 1)
    if k == "BinOp":
        return _name_count(expr.left, name, depth + 1) + _name_count(expr.right, name, depth + 1)
    return 0


def _two_roles(defs: dict[str, Any], values: dict[str, Fraction], occurrences: list[Occurrence],
               lines: list[tuple[str, list[Fraction]]]) -> list[Binding]:
    """One given a step uses twice where its line writes the value once with the words of the
    question's place and once with words no place of that value has: "5 dance classes 5 days a
    week so that's 5*5" (71: the question's 5 is "5 dance classes"; the 5 days are its
    "weekdays"). Two roles of one number, tied by its value alone."""
    out: list[Binding] = []
    for step, expr in defs.items():
        if _is_given(expr) or step not in values:
            continue
        line = None
        for dep in sorted(expr_names(expr)):
            if dep not in defs or not _is_given(defs[dep]) or dep not in values or _name_count(expr, dep) < 2:
                continue
            v = values[dep]
            cands = [o for o in occurrences if o.value == v]
            if not cands or not all(o.words for o in cands):
                continue
            if line is None:
                line = next((prose for prose, results in lines if values[step] in results), "")
            named = [{_stem(w) for w in ws} for ws in (_solution_words(line, v) or []) if ws]
            agree = [ws for ws in named if any(o.words & ws for o in cands)]
            other = [ws for ws in named if not any(o.words & ws for o in cands)]
            if agree and other:
                out.append(Binding(step, v, tuple(sorted(other[0])), tuple(o.text for o in cands)))
    return out


@text_memo(maxsize=512)
def _places(question: str) -> tuple[tuple[Fraction, int, int], ...]:
    """(value, start, end) of every number the question writes, in digits or as a number word
    (read once per question: the rules and the audit ask it of the same question)."""
    q = question[:MAX_TEXT]
    out = []
    for m in (*_NUM.finditer(q), *_number_word_matches(q)):
        v = _value(m) if m.re is _NUM else Fraction(_NUMBER_WORDS[word_key(m.group(1), _NUMBER_WORDS)])
        if v is not None:
            out.append((v, m.start(), m.end()))
    return tuple(out)


_CLAUSE_BOUND = re.compile(r"[.;,]\s|\band\b")


@text_memo(maxsize=512)
def _clause_bounds(question: str) -> tuple[int, ...]:
    """Where the question's clauses start and end (for :func:`_paired_apart`)."""
    return (0, *[m.end() for m in _CLAUSE_BOUND.finditer(question[:MAX_TEXT])], len(question))


def _paired_apart(defs: dict[str, Any], values: dict[str, Fraction], question: str) -> list[Binding]:
    """One given that two steps pair with two different places of its value: "Three of the
    women ... are wearing 4 inch heels and three are wearing 2 inch heels" computed as 3 * 4
    and 3 * 2 with one given 3 (1110; 561's "3 of the cages have 10 hamsters and the other 3
    have 5 guinea pigs"). The clause that states the other operand (stated once) states the
    value as well: that place is the one the step uses."""
    places = _places(question)
    bounds = _clause_bounds(question)

    def clause(pos: int) -> tuple[int, int]:
        a = max(b for b in bounds if b <= pos)
        return a, min(b for b in bounds if b > pos)

    paired: dict[str, set[int]] = {}
    said: dict[tuple[str, int], str] = {}
    for expr in defs.values():
        if getattr(expr, "op", None) not in ("*", "/"):
            continue
        ops = [n for n in (getattr(expr.left, "name", None), getattr(expr.right, "name", None))
               if n in defs and _is_given(defs[n]) and n in values]
        if len(ops) != 2 or ops[0] == ops[1]:
            continue
        for g, h in (ops, ops[::-1]):
            v, w = values[g], values[h]
            at_v = [p for p in places if p[0] == v]
            at_w = [p for p in places if p[0] == w]
            if len(at_v) < 2 or len(at_w) != 1 or v == w:
                continue
            a, b = clause(at_w[0][1])
            here = [i for i, p in enumerate(at_v) if a <= p[1] < b and p[1] != at_w[0][1]]
            if len(here) == 1:
                paired.setdefault(g, set()).add(here[0])
                said[(g, here[0])] = question[a:b].strip(" ,.;")[:50]
    # (described as a binding whose places differ: the clause of each place)
    return [Binding(g, values[g], (), tuple(said[(g, i)] for i in sorted(which)))
            for g, which in paired.items() if len(which) > 1]


def _one_given_for_two(defs: dict[str, Any], values: dict[str, Fraction], occurrences: list[Occurrence],
                       lines: list[tuple[str, list[Fraction]]]) -> list[Binding]:
    """One given that stands for two places of the question: the question states its value
    twice, and the steps that use it name it with the words of a different place each (877:
    "5 questions * 60%" and "3 questions * 5 points": the 5 long-answer questions and the 5
    points each are two givens, not one)."""
    out: list[Binding] = []
    for dep, e in defs.items():
        if not _is_given(e) or dep not in values:
            continue
        v = values[dep]
        # places named by words ("5 points", not a bare "20%" or "$20")
        cands = [o for o in occurrences if o.value == v and o.words - {"$", "%"} and not o.words & _WORD_STEMS]
        if len(cands) < 2 or not _distinct(cands):
            continue
        places: dict[int, str] = {}
        for step, expr in defs.items():
            if step == dep or dep not in expr_names(expr) or step not in values:
                continue
            line = next((prose for prose, results in lines if values[step] in results), None)
            stems = {_stem(w) for ws in (_solution_words(line, v) or []) for w in ws} - {"$", "%"} if line else set()
            scores = [len(o.words & stems) for o in cands]
            best = max(scores, default=0)
            if best and scores.count(best) == 1:
                places[scores.index(best)] = step
        if len(places) > 1:
            out.append(Binding(dep, v, (), tuple(cands[k].text for k in sorted(places))))
    return out


def _divides_by(expr: Any, name: str) -> bool:
    """Does ``expr`` divide by the name ``name`` (at any depth)?"""
    if getattr(expr, "op", None) == "/" and _kind(expr.right) == "Name" and str(expr.right.name) == name:
        return True
    return any(_divides_by(e, name) for e in (getattr(expr, "left", None), getattr(expr, "right", None),
                                              getattr(expr, "operand", None)) if e is not None)


_PER_FACTOR = re.compile(r"k_([a-z]+)_per_[a-z]+")


def _unit_mismatch(step: str, expr: Any, dep: str, v: Fraction, occurrences: list[Occurrence]) -> Binding | None:
    """A given added to or taken from a named rate of units ("7 days a week" − 2) counts those
    units; where the question states its value only under other words ("2 weeks", while the
    solution's "7-2=5 days a week" takes the 2 days off of "except Sunday and Wednesday"),
    the given is not that number."""
    if getattr(expr, "op", None) not in ("+", "-"):
        return None
    sides = [getattr(expr, "left", None), getattr(expr, "right", None)]
    names = [str(getattr(e, "name", "")) for e in sides if _kind(e) == "Name"]
    if dep not in names:
        return None
    unit = next((m.group(1) for n in names if (m := _PER_FACTOR.fullmatch(n))), None)
    if unit is None:
        return None
    cands = [o for o in occurrences if o.value == v]
    if not cands or any(_stem(unit) in o.words for o in cands):
        return None
    return Binding(step, v, (unit,), tuple(o.text for o in cands))


def link_by_words(v: Fraction, step_value: Fraction, dep_value: Fraction, question: str,
                  solution: str) -> bool:
    """Do the words confirm that a step uses an earlier result ``v`` rather than the question's
    ``v``? The step's line writes ``v`` with words that the earlier step's line also writes
    after its result, and none of the question's occurrences of ``v`` has those words
    ("40 minutes" in both lines; the question's 40 is "40%")."""
    lines = solution_lines(solution)
    line = next((p for p, r in lines if step_value in r), None)
    dep = next((p for p, r in lines if dep_value in r), None)
    if line is None or dep is None or line == dep:
        return False
    here = {_stem(w) for ws in (_solution_words(line, v) or []) for w in ws}
    there = {_stem(w) for ws in (_solution_words(dep, v) or []) for w in ws}
    shared = here & there
    if not shared:
        return False
    return not any(o.words & shared for o in question_occurrences(question) if o.value == v)


def _distinct(cands: list[Occurrence]) -> bool:
    """Do the question's occurrences of one value name different things? Two occurrences
    name the same thing when their words share a stem or either names nothing."""
    # "a two-speed lawn mower" and "half": a number hyphened to a word names that word
    named = [o.words or o.compound for o in cands if o.words or o.compound]
    return any(not (a & b) for i, a in enumerate(named) for b in named[i + 1:])


def _one_binding(step: str, v: Fraction, line: str, occurrences: list[Occurrence],
                 solution: str, given: str = "", question: str = "") -> Binding | None:
    cands = [o for o in occurrences if o.value == v]
    if not cands:
        return None
    written = _solution_words(line, v)
    named = [w for w in written or [] if w]
    # a word given of this value that the line writes ("Half of Raymond's jewels is 40/2")
    said = {o.text.lower() for o in cands if o.words & _WORD_STEMS
            and re.search(r"\b" + re.escape(o.text) + r"\b", line, re.IGNORECASE)}
    if not named and len(said) == 1:
        # tied to its words when the given is that word given ("w_half..."), else a digit of
        # the question stands where the line says a word
        phrase = re.sub(r"[^a-z]+", "_", next(iter(said))).strip("_")
        if given.startswith("w_" + phrase):
            return None
        return Binding(step, v, (), tuple(o.text for o in cands))
    if not named:
        # the line names nothing after it (or does not write it: "64 cars * 1/4" for a 4):
        # it is tied to one occurrence only if the question states it one way only, or if the
        # given is a word given ("twice", "half") whose clause alone shares words with the line
        # (see clause_choice)
        if _distinct(cands) and not _vouched_by_clause(given, line, cands, question):
            return Binding(step, v, (), tuple(o.text for o in cands))
        return None
    stems = {_stem(x) for ws in named for x in ws}
    if any(o.words & stems for o in cands) or not all(o.words for o in cands):
        return None
    if len(cands) > 1 and _distinct(cands) and not any(o.words & _WORD_STEMS for o in cands):
        # 495's "the bottom 3 layers": the question states 3 as "3 stand on top" and "the 3",
        # neither the solution's, so which one the given is no reader can tell
        return Binding(step, v, tuple(named[0]), tuple(o.text for o in cands))
    # the solution names this value differently from every place the question states it:
    # a wrong binding when the solution also writes the value with the question's words
    # elsewhere ("2 * 30 days" here, "30 lbs" in another line: two different 30s)
    q_stems = set().union(*(o.words for o in cands))
    elsewhere = _solution_words(_ANN.sub(" ", solution.replace(line, " ")), v) or []
    if any({_stem(x) for x in ws} & q_stems for ws in elsewhere):
        return Binding(step, v, tuple(named[0]), tuple(o.text for o in cands))
    return None


def _vouched_by_clause(given: str, line: str, cands: list[Occurrence], question: str) -> bool:
    """Is a word given the line names with no words tied to its phrase by the clause around it
    (see :func:`clause_choice`)?"""
    if not question or not given:
        return False
    best = clause_choice(question, [o.start for o in cands], line)
    if best is None:
        return False
    o = cands[best]
    # a word given only ("twice", "half"): a count of things ("two pairs of high heels", "2
    # sons") may multiply or divide as well, so the clause never vouches for a digit (30:
    # "The second pair of heels costs 33 * 2" is "twice as much", not "two pairs")
    if not o.words & _WORD_STEMS:
        return False
    phrase = re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_")
    return given.startswith("w_" + phrase)


_CLAUSE_BREAK = re.compile(r"[.,;:!?](?:\s|$)|\b(?:and|while|but|whereas|then)\b", re.I)
_CLAUSE_STOP = _STOP | frozenset("""take takes took make makes made get gets got go goes went come comes came
    buy buys bought sell sells sold cost costs pay pays paid spend spends spent give gives gave need needs
    want wants many much number amount times time as than""".split())


def _clause_stems(text: str, pos: int) -> frozenset[str]:
    """The content words (stems) of the clause of ``text`` around ``pos``, less the number and
    phrase words and common verbs."""
    a = 0
    for m in _CLAUSE_BREAK.finditer(text, 0, pos):
        a = m.end()
    end = _CLAUSE_BREAK.search(text, pos + 1)
    b = end.start() if end else len(text)
    words = [w for w in _WORD.findall(text[a:b]) if w.lower() not in _CLAUSE_STOP and w.lower() not in _NUMBER_WORDS
             and not _WORD_GIVEN_RE.fullmatch(w) and w not in ("$", "%")]
    return frozenset(_stem(w) for w in words)


def clause_choice(question: str, starts: list[int], line: str) -> int | None:
    """Of the places ``starts`` of the question (a value stated several ways), the one whose
    clause alone shares words with the solution's ``line`` ("The rosette takes 2 * 90" and
    "the rosette takes twice as many as the collar", not "a sweater with two sleeves"); None
    when no place or more than one shares the most."""
    if any(s < 0 for s in starts):
        return None
    here = frozenset(_stem(w) for w in _WORD.findall(_ANN.sub(" ", line))
                     if w.lower() not in _CLAUSE_STOP and w.lower() not in _NUMBER_WORDS)
    scores = [len(_clause_stems(question, s) & here) for s in starts]
    top = max(scores, default=0)
    if not top or scores.count(top) != 1:
        return None
    return scores.index(top)


def _one_sum_or_product(expr: Any) -> bool:
    ops: set[str] = set()

    def walk(e: Any, depth: int = 0) -> None:
        op = getattr(e, "op", None)
        if op is None or depth > 200:
            if e.__class__.__name__ == "Neg":
                ops.add("neg")
            return
        ops.add(op)
        walk(e.left, depth + 1)
        walk(e.right, depth + 1)

    walk(expr)
    return ops in ({"*"}, {"+"})


# Terms are read by shape (class name and fields: Num.value, Name.name, BinOp.op/left/right,
# Neg.operand), so this module imports nothing of the rules (which use it).


def _kind(e: Any) -> str:
    return type(e).__name__


def expr_names(expr: Any, depth: int = 0) -> set[str]:
    """The names a term uses."""
    if depth > 200:
        return set()
    k = _kind(expr)
    if k == "Name":
        return {str(expr.name)}
    if k == "Neg":
        return expr_names(expr.operand, depth + 1)
    if k == "BinOp":
        return expr_names(expr.left, depth + 1) | expr_names(expr.right, depth + 1)
    return set()


def _is_given(expr: Any) -> bool:
    if _kind(expr) == "Num":
        return True
    if _kind(expr) == "Neg" and _kind(expr.operand) == "Num":
        return True
    return bool(_kind(expr) == "BinOp" and expr.op == "/" and _kind(expr.left) == "Num"
                and _kind(expr.right) == "Num")


def equal_value_links(defs: dict[str, Any], values: dict[str, Fraction], question: str,
                      solution: str) -> list[str]:
    """Steps that use an earlier result whose value the question also states as a number,
    unless the solution's words confirm the link (:func:`link_by_words`)."""
    q_numbers = _numbers(question)
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for name, e in defs.items():
        if _kind(e) == "Name":
            continue  # answer = s3: naming the result, not using it
        for dep in sorted(expr_names(e)):
            if dep not in defs or _is_given(defs[dep]) or (name, dep) in seen:
                continue
            v = values.get(dep)
            if v is not None and v in q_numbers and name in values \
                    and not link_by_words(v, values[name], v, question, solution):
                seen.add((name, dep))
                out.append(f"{name} uses {dep} = {_fmt(v)}, a value the question also states")
    return out


def step_literals(defs: dict[str, Any]) -> dict[str, list[Fraction]]:
    """Numbers other than 0 and 1 written into a step's definition (not a declared given)."""
    out: dict[str, list[Fraction]] = {}
    for name, expr in defs.items():
        if _is_given(expr):
            continue
        found: list[Fraction] = []

        def walk(e: Any, depth: int = 0) -> None:
            if depth > 200:
                return
            k = _kind(e)
            if k == "Num":
                if e.value not in (0, 1):
                    found.append(e.value)  # noqa: B023 (walk runs within this iteration)
            elif k == "Neg":
                walk(e.operand, depth + 1)
            elif k == "BinOp":
                walk(e.left, depth + 1)
                walk(e.right, depth + 1)

        walk(expr)
        if found:
            out[name] = found
    return out


@text_memo(set, maxsize=512)
def _numbers(text: str) -> set[Fraction]:
    out = set()
    for m in _NUM.finditer(text[:MAX_TEXT]):
        v = _value(m)
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
    word = _stem(first[0])
    # the word right after it, on both sides ("5 pens when the 25 run low" is no "five
    # empty pens")
    return (value, word) in _stated_words(question)


@text_memo(maxsize=512)
def _stated_words(question: str) -> frozenset[tuple[Fraction, str]]:
    """(value, the stem of the word right after it) of every number the question writes in
    digits or as a number word and follows by a word (read once per question)."""
    q = question[:MAX_TEXT]
    out: set[tuple[Fraction, str]] = set()
    for m in (*_NUM.finditer(q), *_number_word_matches(q)):
        v = _value(m) if m.re is _NUM else Fraction(_NUMBER_WORDS[word_key(m.group(1), _NUMBER_WORDS)])
        after = _words_after(q, m.end(), 1)
        if v is not None and after:
            out.add((v, _stem(after[0])))
    return frozenset(out)


def value_leaks(unknowns: list[Any], question: str, solution: str, gold: Fraction | None) -> list[str]:
    """Unknown-quantity descriptions that show a step's result or the answer: the answer
    anywhere, a result the question does not state, or the result of the solution line the
    description is written from (most words in common) even when the question states the
    same value elsewhere."""
    stated = _numbers(question) | {o.value for o in question_occurrences(question)}
    lines = solution_lines(solution)
    results = {v for _, r in lines for v in r} - {Fraction(0), Fraction(1)}
    out = []
    line_words = [set(_skeleton(prose)) for prose, _ in lines]
    for u in unknowns:
        text = str(u)[:2000]
        # a given written with the question's words for it shows that given, whatever its value
        shown = {v for m in _NUM.finditer(text) if (v := _value(m)) is not None
                 and not stated_with_words(text, m.start(), m.end(), v, question)}
        own: set[Fraction] = set()
        words = set(_skeleton(text))
        best = max(range(len(lines)), key=lambda k: len(words & line_words[k]), default=None)
        if best is not None and len(words & line_words[best]) >= 3:
            own = set(lines[best][1])
        leak = (shown & ((results - stated) | own)) | ({gold} & shown if gold is not None else set())
        if leak:
            out.append(f"{text[:80]!r} shows " + ", ".join(_fmt(v) for v in sorted(leak)[:4]))
    return out


def _computed(solution: str) -> set[Fraction]:
    """Every value the solution computes: an annotation's result, a number written after '='
    (in digits or as a counting word)."""
    out = set(solution_results(solution))
    text = solution[:MAX_TEXT]
    for m in re.finditer(r"=\s*[$€£]?\s*(" + _NUM.pattern + r")(?!\s*%?\s*[-+*/×÷]\s*[\d$(])", text):
        v = _value(_NUM.match(m.group(1)))  # type: ignore[arg-type]
        if v is not None:
            out.add(v)
    return out


def _aligns(chunks: list[str], line: str, ok: Any, pos: int = 0, k: int = 0, depth: int = 0) -> bool:
    """Can ``line`` be read as the ``chunks`` of a description, in order, with what stands
    between them (the text each '?' or step name replaces) passing ``ok``?"""
    if k == len(chunks) or depth > 40:
        return k == len(chunks)
    c = chunks[k].strip()
    last = k == len(chunks) - 1
    if not c:
        return ok(line[pos:]) if last else _aligns(chunks, line, ok, pos, k + 1, depth + 1)
    if k == 0:
        return line.startswith(c) and _aligns(chunks, line, ok, len(c), 1, depth + 1)
    at = line.find(c, pos)
    tries = 0
    while at >= 0 and tries < 12:
        if ok(line[pos:at]) and _aligns(chunks, line, ok, at + len(c), k + 1, depth + 1):
            return True
        at, tries = line.find(c, at + 1), tries + 1
    return False


_SPACES = re.compile(r"\s+")
_LABEL = re.compile(r"^Q\d+:\s*")
_ASKED_FOR = re.compile(r"\s*\(the value asked for\)$")
_GAP = re.compile(r"\?|\bQ\d+\b")


@text_memo(maxsize=1024)
def _gap_values(gap: str) -> frozenset[Fraction]:
    """The numbers a piece of a solution line writes, in digits or as number words."""
    return frozenset(_numbers(gap) | {Fraction(_NUMBER_WORDS[word_key(m.group(1), _NUMBER_WORDS)]) for m in _number_word_matches(gap)})


def hidden_numbers(unknowns: list[Any], relations: list[Any], solution: str) -> list[str]:
    """The converse of :func:`value_leaks`: an unknown quantity's '?' (or another step's name,
    Q2) that can only stand where its solution line writes numbers no step of the solution
    computes ("since ? foot is equal to 12 inches": the 1 of a unit reads as an unknown), and a
    relationship that writes a '?' (it defines each Q from the givens and earlier Qs, hiding
    nothing). A description the solution's lines do not contain piece by piece is not judged."""
    computed = _computed(solution)
    lines = [_SPACES.sub(" ", ln).strip() for ln in solution[:MAX_TEXT].splitlines() if ln.strip()]

    def hides_a_result(gap: str) -> bool:
        return not _gap_values(gap).isdisjoint(computed)

    out: list[str] = []
    for u in unknowns:
        text = str(u)[:2000]
        body = _ASKED_FOR.sub("", _LABEL.sub("", text))
        chunks = _GAP.split(_SPACES.sub(" ", body))
        if len(chunks) < 2:
            continue
        cut_from = [ln for ln in lines if _aligns(chunks, ln, lambda g: True)]
        if cut_from and not any(_aligns(chunks, ln, hides_a_result) for ln in cut_from):
            out.append(f"{text[:80]!r} hides a number no step computes")
    out += [f"{str(r)[:80]!r} writes '?'" for r in relations if "?" in str(r)]
    return out


def _used_givens(question: str, solution: str) -> set[Fraction]:
    """Numbers of the question the solution computes with (the left sides of its computations)."""
    used: set[Fraction] = set()
    for line in solution[:MAX_TEXT].splitlines():
        anns = _ANN.findall(line)
        lefts = [a.rsplit("=", 1)[0] for a in anns if "=" in a] or \
            [part for part in re.findall(r"([^=\n]+)=", _ANN.sub(" ", line))]
        for left in lefts:
            used |= _numbers(left)
    return used & {o.value for o in question_occurrences(question)}


def used_irrelevant(irrelevant: list[Any], question: str, solution: str) -> list[str]:
    """Items listed as irrelevant that state a number the solution computes with."""
    used = _used_givens(question, solution) - {Fraction(0), Fraction(1)}
    out = []
    for item in irrelevant:
        hit = {o.value for o in question_occurrences(str(item)) if not o.words & _WORD_STEMS} & used
        if hit:
            out.append(f"{str(item)[:80]!r} states " + ", ".join(_fmt(v) for v in sorted(hit)[:4])
                       + ", which the solution uses")
    return out


def stale_edits(gt_cot: str, w_cot: str) -> list[str]:
    """Lines of the wrong chain of thought whose computation gives a new result while the line
    still states the old one (the result of the line it replaced)."""
    gt = gt_cot[:MAX_TEXT].splitlines()
    wrong = w_cot[:MAX_TEXT].splitlines()
    by_text = {line.strip() for line in gt}
    gt_words = [(g, _skeleton(g)) for g in gt]
    out = []
    for line in wrong:
        if line.strip() in by_text or "=" not in line:
            continue
        new = _last_result(line)
        if new is None:
            continue
        # the line it was made from: the one of the correct chain with the same words
        words = _skeleton(line)
        old_line = next((g for g, gw in gt_words if gw == words and g.strip() != line.strip()), None)
        if old_line is None:
            continue
        old = _last_result(old_line)
        if old is None or old == new:
            continue
        prose = line.rsplit("=", 1)[0]
        computation = re.split(r"\b(?:because|since|as)\b|:", prose)[-1]
        before = prose[:len(prose) - len(computation)]
        if old in _numbers(before):
            out.append(f"{line.strip()[:100]!r} still states {_fmt(old)}, its computation gives "
                       f"{_fmt(new)}")
    return out


def _last_result(line: str) -> Fraction | None:
    if "=" not in line:
        return None
    tail = line.rsplit("=", 1)[1]
    m = _NUM.search(tail.replace("$", ""))
    return _value(m) if m else None


_LETTERS = re.compile(r"[A-Za-z]+")


def _skeleton(line: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _LETTERS.findall(line))
