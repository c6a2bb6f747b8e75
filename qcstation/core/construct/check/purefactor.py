"""A given that a step uses as a pure number, read from the units of the step alone (issue 26.2).

A factor or divisor that turns a quantity of one noun into a result of the same noun, with no
rate named ("Dennis had 10/2 = 5 rocks left" of "10 rocks"; "24 kids / 6 = 4 kids"), is a pure
number there: how many times, or into how many parts. Such a given cannot also be

* a place of the question that measures time, money, length, weight or volume ("less than 6
  minutes") while the question writes its value as a unit fraction ("1/6 of") or, for a factor,
  as a word that multiplies ("twice", "3 times") or a unit fraction it undoes ("$1200, 1/2 of what
  she spent": "1200*2"), at a place no given of that value holds: kids divided by minutes are no
  kids (GSM8K train 1909, whose "/ 6" is the question's "1/6 of the remaining kids"; train 3667,
  "Two nights ago she read twice that many pages": "15 x 2" bound to the nights);
* a factor beside another amount of money (or weight, or volume, with no rate named) in a
  product the line writes as that kind ("$200 x 5 = $1000" where the 5 is bound to "$5 each";
  "45 ounces of water because 15 x 3", the 15 times bound to "A 15 ounce bottle"): money times
  money is no money (:func:`_money_times_money`);
* a term of a sum or difference of that very noun on another line ("5 + 2 = 7 rocks" for "spit
  two out"): one quantity cannot be both a number of rocks and a pure ratio of rocks to rocks
  (train 1796, whose "/ 2" is the question's "half").

A quotient of two measures of different kinds that its line writes as a count with no rate
("28 days / 2 = 14 showers", the 2 bound to "2 gallons of water per minute" where "every other
day" halves the days) divides by no measure there (:func:`_count_of_measures`).

The reading shares nothing with the binder (:mod:`qcstation.core.construct.make.rules.binding`):
only the formalization's terms, each given's place (its span, stored with it), the step lines and
the kind of words :func:`qcstation.core.construct.check.rolecheck.kind_of_words` reads before and
after a number. A step is read only when every word it needs is there (the other operand's noun,
the result's noun): where the words are missing nothing is said. A rate named at the result or at
the other operand ("= 5 pages per minute", "$40 an hour", "4 kids in each group") makes the given
no pure number and the step is not read.

Pure text reading: each line is cut at :data:`MAX_LINE`, the terms walked to :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from qcstation.core.reading.answers import decimal_fraction
from qcstation.core.reading.words import operand_values, solution_lines
from qcstation.core.construct.check.rolecheck import kind_of_words

__all__ = ["pure_factor_problems"]

MAX_LINE = 2_000
MAX_TEXT = 20_000
MAX_DEPTH = 60
#: kinds of quantity that are measured, never a pure number
MEASURED = frozenset({"time", "money", "length", "weight", "volume"})
_ANN = re.compile(r"<<[^<>]{0,400}>>")
_NUM = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\d])")
#: a rate named right after a number's noun: "per minute", "each", "an hour", "a day", "/hr"
_RATE = re.compile(r"^[^.;:=!?\n]{0,40}?(?:\b(?:per|each|every|apiece)\b|\ban?\s+[a-z]+\b|/)", re.I)
#: a clause break: what comes after names no rate of this number
_BREAK = re.compile(r"[.;:,!?\n]|\b(?:and|so|then|which|to|because|if|after|before|that)\b")


def _flat(e: Any, op: str, depth: int = 0) -> list[tuple[Any, bool]] | None:
    """The factors (``op`` '*') or terms ('+') of ``e`` with their side (True: divided by /
    subtracted), through nested operators of the same family; None when too deep."""
    if depth > MAX_DEPTH:
        return None
    kind = type(e).__name__
    ops = ("*", "/") if op == "*" else ("+", "-")
    if kind == "BinOp" and e.op in ops:
        left = _flat(e.left, op, depth + 1)
        right = _flat(e.right, op, depth + 1)
        if left is None or right is None:
            return None
        return left + [(sub, not inv) if e.op == ops[1] else (sub, inv) for sub, inv in right]
    return [(e, False)]


def _rate_after(tail: str) -> bool:
    """Does ``tail`` (the text right after a number) name a rate before its clause ends?"""
    stop = _BREAK.search(tail)
    m = _RATE.match(tail[: stop.start()] if stop else tail[:40])
    return m is not None


def _words_of(text: str, start: int, end: int) -> tuple[str | None, str, bool]:
    """(kind, noun, names a rate) of the number at ``text[start:end]``."""
    kind, noun = kind_of_words(text[max(0, start - 3):start].rstrip(), text[end:end + 80])
    return kind, noun, _rate_after(text[end:end + 80])


def _result_words(line: str, value: Fraction) -> tuple[str | None, str, bool] | None:
    """The words of the last result ``line`` writes after '=' with ``value``; None if none."""
    prose = _ANN.sub(" ", line[:MAX_LINE])
    found = None
    for m in _NUM.finditer(prose):
        before = prose[max(0, m.start() - 4):m.start()].replace(" ", "")
        if not before.endswith(("=", "=$")):
            continue
        try:
            v = decimal_fraction(m.group(1).replace(",", ""))
        except (ValueError, ZeroDivisionError):
            continue
        if v == value:
            found = _words_of(prose, m.start(), m.end())
    return found


def _written_words(line: str, value: Fraction) -> tuple[str | None, str, bool] | None:
    """The words of ``value`` as the line writes it outside its results and annotations, when it
    writes it once with a noun; None otherwise."""
    prose = _ANN.sub(" ", line[:MAX_LINE])
    out = []
    for m in _NUM.finditer(prose):
        before = prose[max(0, m.start() - 4):m.start()].replace(" ", "")
        if before.endswith(("=", "=$")):
            continue
        try:
            if decimal_fraction(m.group(1).replace(",", "")) != value:
                continue
        except (ValueError, ZeroDivisionError):
            continue
        out.append(_words_of(prose, m.start(), m.end()))
    named = {w for w in out if w[1]}
    return named.pop() if len(named) == 1 else None


def pure_factor_problems(defs: Mapping[str, Any], values: Mapping[str, Fraction],
                         givens: Iterable[Mapping[str, Any]], question: str, solution: str,
                         tied: frozenset[Fraction] = frozenset()) -> list[str]:
    """Why a given that a step uses as a pure number (see the module docstring) is bound to a
    place it cannot be; [] when nothing is found. ``defs``: every name's term (givens and named
    constants as numbers, steps as terms of earlier names), ``values``: every name's value,
    ``givens``: name, value and span of each. Each step is read on the solution line that
    computes its value from its operands (:func:`~qcstation.core.reading.words.step_line`), not
    on any line a rule chose. A given whose value is ``tied`` (its places tied to its uses by order,
    for key information, which writes it by value whichever place it is) is not read."""
    givens = [g for g in givens if not tied or values.get(str(g.get("name"))) not in tied]
    given_names = {str(g.get("name")) for g in givens}
    read = solution_lines(solution)
    raw = solution[:MAX_TEXT].splitlines()
    lines = [prose for prose, _results in read]
    steps: list[tuple[str, Any, str]] = []
    for name, expr in defs.items():
        if name in given_names or name == "answer" or type(expr).__name__ not in ("BinOp", "Neg") \
                or name not in values:
            continue
        at = _line_of(read, raw, values[name], operand_values(expr, values))
        steps.append((name, expr, lines[at] if at is not None and at < len(lines) else ""))
    return _problems(steps, values, givens, question)


def _line_of(read: list[tuple[str, list[Fraction]]], raw: list[str], value: Fraction,
             operands: list[Fraction]) -> int | None:
    """The line that computes ``value`` from ``operands``: of the lines whose results hold the
    value, the one whose computations write the most of the operands as plain numbers ("24/6" is
    24 and 6 here, not the fraction 4); the first where none tells them apart."""
    cands = [i for i, (_prose, results) in enumerate(read) if value in results]
    if len(cands) <= 1:
        return cands[0] if cands else None

    def score(i: int) -> int:
        left = list(operands)
        hit = 0
        for ann in _ANN.findall(raw[i] if i < len(raw) else ""):
            for m in _NUM.finditer(ann.rsplit("=", 1)[0]):
                try:
                    v = decimal_fraction(m.group(1).replace(",", ""))
                except (ValueError, ZeroDivisionError):
                    continue
                if v in left:
                    left.remove(v)
                    hit += 1
        return hit

    scores = [score(i) for i in cands]
    best = [i for i, sc in zip(cands, scores) if sc == max(scores)]
    return best[0] if len(best) == 1 else cands[0]


def _problems(steps: list[tuple[str, Any, str]], values: Mapping[str, Fraction],
              givens: list[Mapping[str, Any]], question: str) -> list[str]:
    places: dict[str, tuple[str | None, str, bool]] = {}
    spans: dict[str, tuple[int, int]] = {}
    for given in givens:
        span = given.get("span")
        if isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(x, int) for x in span) \
                and 0 <= span[0] <= span[1] <= len(question):
            places[str(given["name"])] = _words_of(question, span[0], span[1])
            spans[str(given["name"])] = (span[0], span[1])
    # the words after '= <value>', else where the line states the value in its prose ("He will drink
    # 45 ounces of water because 15 x 3 = 45")
    results: dict[str, tuple[str | None, str, bool] | None] = {}
    for name, _e, line in steps:
        found = _result_words(line, values[name])
        results[name] = found if found is not None and found[1] else (_written_words(line, values[name]) or found)

    def words(name_or_num: Any, line: str) -> tuple[str | None, str, bool] | None:
        kind = type(name_or_num).__name__
        if kind != "Name":
            return None
        name = str(name_or_num.name)
        if name in places:
            return places[name]
        if name in results:
            return results[name] or (_written_words(line, values[name]) if name in values else None)
        return None

    #: given -> (step, noun kept, is the divisor) where it is a pure number
    pure: dict[str, list[tuple[str, str, bool]]] = {}
    out: list[str] = []
    terms: dict[str, list[tuple[str, str]]] = {}  # given -> (step, noun of the sum) where it is a term
    for step, expr, line in steps:
        res = results.get(step)
        if res is None or not res[1] or res[2]:
            continue
        factors = _flat(expr, "*")
        if factors is not None and len(factors) > 1:
            named = [(f, inv) for f, inv in factors if type(f).__name__ == "Name"]
            for f, inv in named:
                g = str(f.name)
                if g not in places or _constant(g) or places[g][1] == res[1]:
                    continue
                others = [(o, w, i) for o, i in named if o is not f for w in [words(o, line)]]
                # the other factors: one quantity of the result's noun, the rest named constants
                carriers = [(w, i) for o, w, i in others if w is not None and w[1] and not _constant(str(o.name))]
                unread = [o for o, w, _i in others if (w is None or not w[1]) and not _constant(str(o.name))]
                if len(carriers) != 1 or unread or carriers[0][0][2] or carriers[0][0][1] != res[1] \
                        or carriers[0][1]:
                    continue
                written = _written_words(line, values[g]) if g in values else None
                if written is not None and written[1] == places[g][1] and places[g][0] in MEASURED:
                    continue  # the line names the unit it divides by, as the place does: a rate ("/ 2 hours")
                pure.setdefault(g, []).append((step, res[1], inv))
            if len(named) == 2 and len(factors) == 2:
                out.extend(_count_of_measures(step, named, words, line, res))
            continue
        terms_of = _flat(expr, "+")
        if terms_of is not None and len(terms_of) > 1 and res[0] != "percent":
            for t, _neg in terms_of:
                if type(t).__name__ == "Name" and str(t.name) in places:
                    terms.setdefault(str(t.name), []).append((step, res[1]))
    parts = _unit_fractions(question)
    multipliers = _multipliers(question)
    out.extend(_money_times_money(steps, results, places, spans, question))
    out.extend(_halved_by_the_line(steps, values, places, parts))
    out.extend(_percent_as_parts(steps, places, values, spans, question))
    out.extend(_constant_squared(steps))
    for g, uses in pure.items():
        kind, noun, rate = places[g]
        for at, kept, divisor in uses:
            fractions = parts.get(values[g], []) if g in values else []
            if divisor and fractions and not rate and not any(a < spans[g][1] and spans[g][0] < b for _w, a, b in fractions):
                out.append(f"{g} divides {kept} into {kept} in {at}, as the question's {fractions[0][0]!r} does, "
                           f"but it is bound to another place ({noun or 'no noun'!r})")
                break
            # (a word another given of this value already stands for is taken: "forgot twice" bound to
            # w_twice leaves the "84 * 2" of "two weeks" to the weeks)
            worded = [w for w, a, b in [*fractions, *(multipliers.get(values[g], []) if g in values else [])]
                      if not any(a < e and s < b for n, (s, e) in spans.items()
                                 if n == g or values.get(n) == values.get(g))]
            if not divisor and worded and kind in MEASURED and not rate:
                # "Her rent was $1200, 1/2 of what she spent on food" / "1200*2 = $2400 on food": the 2
                # undoes the question's 1/2, never "two weeks ago"; "Two nights ago she read twice that
                # many pages" / "15 x 2": the 2 is "twice", never the nights
                out.append(f"{g} multiplies {kept} into {kept} in {at}, as the question's {worded[0]!r} does, "
                           f"but it is bound to a measure of {kind} ({noun!r})")
                break
            clash = [t for t, n in terms.get(g, []) if n == kept]
            if clash:
                out.append(f"{g} is a pure number in {at} ({kept} into {kept}) and a number of {kept} in "
                           f"{clash[0]}: one given in two roles")
                break
    return out


#: the kinds :func:`_money_times_money` reads
_PRODUCT_KINDS = frozenset({"money", "weight", "volume"})
#: a word that multiplies ("twice", "double", "three times") and its value
_MULTIPLIER = re.compile(r"\b(?:(twice|double[sd]?)|(triple[sd]?|thrice)|(quadruple[sd]?)|(\d{1,3}|two|three|four|five"
                         r"|six|seven|eight|nine|ten)\s+times)\b", re.I)
_SMALL = {w: i for i, w in enumerate("two three four five six seven eight nine ten".split(), 2)}
#: a result noun that is a rate ("60 mph")
_RATE_NOUNS = frozenset({"mph", "mpg", "kph", "kmh", "wpm", "rpm", "bpm", "gpm"})


def _count_of_measures(step: str, named: list[tuple[Any, bool]],
                       words: Any, line: str, res: tuple[str | None, str, bool]) -> list[str]:
    """A quotient of two measures of different kinds that the line writes as a count with no rate
    ("28 days / 2 = 14 showers" where the 2 is bound to "2 gallons of water per minute", and the
    question's "every other day" halves the days): days divided by gallons count no showers, so
    the divisor is no measure there. Only a quotient of exactly two named operands whose words
    are both read, the divisor a given's place."""
    (a, a_inv), (b, b_inv) = named
    if a_inv == b_inv:
        return []
    num, den = (b, a) if a_inv else (a, b)
    top, bottom = words(num, line), words(den, line)
    if top is None or bottom is None or not top[1] or not bottom[1]:
        return []
    den_name = str(den.name)
    if not den_name.startswith("g") or res[0] is not None or res[2] or res[1].lower() in _RATE_NOUNS \
            or top[0] not in MEASURED \
            or bottom[0] not in MEASURED or top[0] == bottom[0] or res[1] in (top[1], bottom[1]):
        return []
    if re.search(rf"\b{re.escape(bottom[1])}", line[:MAX_LINE], re.I):
        return []  # the line names the divisor's unit: it divides by that measure on purpose
    return [f"{den_name} divides {top[1]} ({top[0]}) into a count of {res[1]} in {step}, but it is bound to a "
            f"measure of {bottom[0]} ({bottom[1]!r}): {top[0]} divided by {bottom[0]} counts no {res[1]}"]


_ORDINALS = {w: i for i, w in enumerate("half third fourth fifth sixth seventh eighth ninth tenth".split(), 2)}
_ORDINALS["quarter"] = 4
#: a unit fraction the question writes: "1/6 of", "half", "a third", "one-fifth"
_UNIT_FRACTION = re.compile(r"(?<![\d./])1\s*/\s*(\d{1,3})(?![\d./])|\bhalf\b|\b(?:a|one)[\s-]+(" +
                            "|".join(_ORDINALS) + r")\b", re.I)


def _unit_fractions(question: str) -> dict[Fraction, list[tuple[str, int, int]]]:
    """The denominator of each unit fraction ``question`` writes: its words and span, each time."""
    out: dict[Fraction, list[tuple[str, int, int]]] = {}
    for m in _UNIT_FRACTION.finditer(question[:MAX_TEXT]):
        den = int(m.group(1)) if m.group(1) else _ORDINALS[(m.group(2) or "half").lower()]
        if den > 1:
            out.setdefault(Fraction(den), []).append((m.group(0), m.start(), m.end()))
    return out


def _halved_by_the_line(steps: list[tuple[str, Any, str]], values: Mapping[str, Fraction],
                        places: Mapping[str, tuple[str | None, str, bool]],
                        question_parts: Mapping[Fraction, list[tuple[str, int, int]]]) -> list[str]:
    """A divisor the step's line says is a unit fraction ("drive half of the distance ... 2,800 /
    2") that the question does not write ("Missouri is midway"), bound to a place of the question
    whose noun the line does not write ("the 2 different US states", held-out GSM8K train 4710): a
    number bound by its value alone; a variant moving the states would move the half."""
    out: list[str] = []
    for step, expr, line in steps:
        factors = _flat(expr, "*")
        for f, inv in factors or []:
            g = str(getattr(f, "name", ""))
            if not inv or g not in places or _constant(g) or g not in values or values[g] in question_parts:
                continue
            said = _unit_fractions(line).get(values[g])
            noun = places[g][1]
            # ("three times as long" / "a third of it": the multiplier undone, its own place)
            if said and noun and noun.lower() not in ("time", "times") and not re.search(rf"\b{re.escape(noun)}", line[:MAX_LINE], re.I):
                out.append(f"{g} divides in {step} as the line's {said[0][0]!r} does, but it is bound to "
                           f"another place ({noun!r}) the line does not name")
    return out


def _names_in(e: Any, depth: int = 0) -> set[str]:
    """Every name a term uses (a function of the module: a closure that calls itself is a
    reference cycle, which only the cyclic garbage collector frees)."""
    if depth > MAX_DEPTH:
        return set()
    if type(e).__name__ == "Name":
        return {str(e.name)}
    return set().union(*(_names_in(sub, depth + 1) for sub in (getattr(e, "left", None), getattr(e, "right", None),
                                                               getattr(e, "operand", None), getattr(e, "arg", None)) if sub is not None))


def _percent_as_parts(steps: list[tuple[str, Any, str]], places: Mapping[str, tuple[str | None, str, bool]],
                      values: Mapping[str, Fraction], spans: Mapping[str, tuple[int, int]], question: str) -> list[str]:
    """A percent's number used as a bare divisor of another kind of quantity ("10% of his money is
    deducted" / "$40 / 10 = $4", held-out GSM8K train 345) whose quotient no later step multiplies by
    a percent: it divides into the percent's parts only where p% is 1/p (10%), so a variant with 20%
    would divide by 20, not take a fifth. Right and left alone: a percent stored as its fraction
    ("20%" as 1/5: "$30 / 20%"), a ratio of percents ("100 / 20 = 5 juices", "40%/10% = 4 sets",
    "65*14/35"), and one percent made whole by a later percent ("1% is 240/40 = 6 students ... 60 x 6")."""
    names = _names_in

    def written(g: str) -> Fraction | None:
        a, b = spans[g]
        try:
            return decimal_fraction(question[a:b].replace(",", ""))
        except (ValueError, ZeroDivisionError):
            return None

    percent = {g for g in places if places[g][0] == "percent"}
    for step, expr, _line in steps:  # a step of percents alone is a percent ("100% - 40% = 60%")
        used = names(expr)
        if used and all(n in percent or n.startswith("k_percent") for n in used):
            percent.add(step)
    out: list[str] = []
    for i, (step, expr, _line) in enumerate(steps):
        factors = _flat(expr, "*") or []
        for f, inv in factors:
            g = str(getattr(f, "name", ""))
            if not inv or g not in places or places[g][0] != "percent" or g not in spans \
                    or values.get(g) != written(g) or any(
                        n in percent or n.startswith("k_percent") for o, _i in factors if o is not f for n in names(o)):
                continue
            later = [e for _s, e, _l in steps[i + 1:] if step in names(e)]
            if not any(n in percent or n.startswith("k_percent") for e in later for o, _i in _flat(e, "*") or []
                       for n in names(o)):
                out.append(f"{g} is a percent its step divides by as a number of parts ({step}), and no later "
                           f"step makes its quotient a percent again: it takes 1/{g} where the question says {g}%")
    return out


def _constant_squared(steps: list[tuple[str, Any, str]]) -> list[str]:
    """A named constant of the words multiplied by itself ("Two weeks has 2*2=4 weekend days" as
    k_weekend_days x k_weekend_days, held-out GSM8K train, read20): a quantity the words imply is a
    count of one thing per another; squared it is no quantity of the story, so one of the two is
    another number (here the question's "2 weeks"), which a variant would not move."""
    out: list[str] = []
    for step, expr, _line in steps:
        seen: dict[str, int] = {}
        for f, inv in _flat(expr, "*") or []:
            name = str(getattr(f, "name", ""))
            if name.startswith("k_") and not inv:
                seen[name] = seen.get(name, 0) + 1
        out += [f"{name} multiplies itself in {step}: one of them is another quantity" for name, n in seen.items() if n > 1]
    return out


def _multipliers(question: str) -> dict[Fraction, list[tuple[str, int, int]]]:
    """The value of each word that multiplies the question writes ("twice", "3 times"), with its span."""
    out: dict[Fraction, list[tuple[str, int, int]]] = {}
    for m in _MULTIPLIER.finditer(question[:MAX_TEXT]):
        n = m.group(4)
        v = 2 if m.group(1) else 3 if m.group(2) else 4 if m.group(3) else int(n) if n.isdigit() else _SMALL[n.lower()]
        out.setdefault(Fraction(v), []).append((m.group(0), m.start(), m.end()))
    return out


def _constant(name: str) -> bool:
    """A named constant or word given (k_..., w_...): a pure number of the question's words."""
    return name.startswith(("k_", "w_"))


def _money_times_money(steps: list[tuple[str, Any, str]],
                       results: Mapping[str, tuple[str | None, str, bool] | None],
                       places: Mapping[str, tuple[str | None, str, bool]],
                       spans: Mapping[str, tuple[int, int]], question: str) -> list[str]:
    """A product of two givens whose places are measures of one kind (money; weight or volume with
    no rate named), whose result its line writes as that kind: money times money is no amount of money,
    so one of them is no money there ("Total sales for the day is $200 x 5 = $1000", where 5 is
    the 1/5 of a profit share, bound to "$5 each", the price of a cone: a variant moving the price
    would move the sales; GSM8K train 3660), nor are ounces times ounces ounces ("He will drink 45
    ounces of water because 15 x 3", the 15 bound to "A 15 ounce bottle" where it is the 15 times
    he drinks; train 2041). Divisions are not read ("$1000 / $5" is a count), nor a count of bills
    ("four $10 bills": the four is written with no "$" of its own), nor a place or result that
    names a rate ("2 gallons per minute"), nor a result that names no kind ("40 cubic feet"). Times
    and lengths are not read: "3 days x 8 hours/day = 24 hours" leaves its rate to the line, and an
    area is often written in feet ("10 feet * 25 feet = 250 feet")."""

    def measure(name: str) -> str | None:
        if name not in spans or places[name][0] not in _PRODUCT_KINDS:
            return None
        if places[name][0] != "money":
            return None if places[name][2] else places[name][0]
        a, b = spans[name]
        dollars = places[name][1] == "$" and (question[a:b].startswith("$")
                                              or question[max(0, a - 2):a].rstrip().endswith("$"))
        return "money" if dollars else None

    out: list[str] = []
    for step, expr, _line in steps:
        res = results.get(step)
        if res is None or res[0] not in _PRODUCT_KINDS or (res[2] and res[0] != "money"):
            continue
        factors = _flat(expr, "*")
        if factors is None or len(factors) < 2:
            continue
        same = [str(f.name) for f, inv in factors if not inv and type(f).__name__ == "Name"
                and measure(str(f.name)) == res[0]]
        if len(same) >= 2:
            what = "amounts of money" if res[0] == "money" else f"measures of {res[0]}"
            out.append(f"{same[0]} and {same[1]} are both {what} the question states, multiplied "
                       f"in {step} into {res[0]}: one of them is no such measure there")
    return out
