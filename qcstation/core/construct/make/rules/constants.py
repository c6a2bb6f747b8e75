"""Numbers a step writes that are not a digit of the question: word givens and named factors.

After :meth:`Givens.bind` has tied the question's digits to declared constants, a literal
left in a step is one of:

* a **word given** the question states in words ("half", "twice", "a quarter", "a dozen",
  "round trip", "an hour"): declared as ``w_<words>`` tied to those words; a dozen the question
  writes only after numbers ("4 dozen", "1/2 a dozen") is a unit, its 12 the factor ``k_per_dozen``;
* a **named factor** of a unit or percent conversion (100 for a percent, 60 minutes an
  hour, 12 months a year, 7 days a week...) whose words the question uses: declared as
  ``k_<what>``, never bound to a given that merely has the same value;
* anything else (a hard-coded intermediate result such as 2700 for ``9000(.30)``, a fact
  the question does not state): the item is not rule-made (:class:`RuleError`).

0 and 1 stay literals (identities, "1 -" of a complement).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num, fmt
from qcstation.core.reading.words import ANNOTATION
from qcstation.core.construct.make.rules.averaged import AVERAGED_COUNTS
from qcstation.core.construct.make.rules.restated import RESTATED_FACTORS
from qcstation.core.construct.make.rules.implied import (_IMPLIED_CONSTANTS, _IMPLIED_LINE_RE, _MONTH_DAYS,
                                                         _month_days, coin_by_sentence, implied_constant, implied_names,
                                                         list_count)
from qcstation.core.construct.make.rules.clause_names import clause_by_names
from qcstation.core.construct.make.rules.phrases import InOrder, phrase_re, stated_word_givens
from qcstation.core.construct.make.rules.result import RuleError
from qcstation.core.construct.make.rules.sharers import sharers, sharers_value
from qcstation.core.construct.make.rules.weekdays import WEEKDAY_FACTORS
from qcstation.core.construct.make.rules.ranks import FLOOR_FACTORS
from qcstation.core.construct.make.rules.scaled import SCALED_FACTORS
from qcstation.core.construct.make.rules.unstated import BUY_ONE_GET_ONE, ONE_WAY_WORDS, line_percent, month_of_days, sentence_list, sentence_names

__all__ = ["FACTOR_VALUES", "LITERAL_IN_STEP", "declare_literals", "factor_value", "implied_constant"]

#: the title of the refusal of a literal that is no number or word of the question
LITERAL_IN_STEP = "Literal in step"

#: (value, the larger unit, the smaller unit, name) of conversions the question must say both units of
_UNIT_PAIRS: tuple[tuple[int, str, str, str], ...] = (
    (32, r"quarts?", r"(?:fluid\s+)?ounces?|oz", "k_ounces_per_quart"),
    (128, r"gallons?", r"(?:fluid\s+)?ounces?|oz", "k_ounces_per_gallon"),
    (8, r"gallons?", r"pints?", "k_pints_per_gallon"),
    (4, r"gallons?", r"quarts?", "k_quarts_per_gallon"),
    (2, r"quarts?", r"pints?", "k_pints_per_quart"),
    (16, r"gallons?", r"cups?", "k_cups_per_gallon"),
    (100, r"meters?|metres?", r"centimeters?|centimetres?|cm", "k_centimeters_per_meter"),
)

# (value, question words that make it this factor, name)
_FACTORS: list[tuple[Fraction, str, str]] = [
    (Fraction(100), r"%|percent", "k_percent"),
    (Fraction(1, 100), r"%|percent", "k_percent_fraction"),
    (Fraction(100), r"\bcents?\b", "k_cents_per_dollar"),
    (Fraction(100), r"\bpenn(?:y|ies)\b", "k_pennies_per_dollar"),
    (Fraction(60), r"\bminutes?\b|\bhours?\b|\bhourly\b|mph", "k_minutes_per_hour"),
    (Fraction(60), r"\bseconds?\b", "k_seconds_per_minute"),
    (Fraction(24), r"\bhours?\b|\bdays?\b|\bdaily\b", "k_hours_per_day"),
    (Fraction(7), r"\bweeks?\b|\bweekly\b", "k_days_per_week"),
    (Fraction(2), r"\bweekends?\b", "k_weekend_days"),
    (Fraction(4), r"\bmonths?\b|\bmonthly\b", "k_weeks_per_month"),
    (Fraction(2), ONE_WAY_WORDS, "k_ways_of_a_round_trip"),
    (Fraction(2), r"\bevery (?:second|other)\b", "k_every_second"),
    (Fraction(2), r"\bpairs?\b", "k_per_pair"),
    (Fraction(2), r"\bcouples?\b|\bpaired\b", "k_per_couple"),
    (Fraction(2), r"\bbicycles?\b|\bbikes?\b", "k_wheels_per_bicycle"),
    (Fraction(3), r"\btricycles?\b", "k_wheels_per_tricycle"),
    (Fraction(2), r"\bboth\b", "k_both"),
    # "buys steaks for buy one get one free" / "He pays for 20/2 pounds": each two taken, one paid for
    (Fraction(2), BUY_ONE_GET_ONE, "k_items_per_buy_one_get_one"),
    (Fraction(5), r"\bweekdays?\b|\b(?:work|school) ?weeks?\b|\bschool ?days\b|\bmonday\s*(?:through|to|[-–])\s*friday\b",
     "k_weekdays_per_week"),
    (Fraction(12), r"\bmonths?\b|\bmonthly\b|\byears?\b", "k_months_per_year"),
    (Fraction(12), r"\binch(?:es)?\b|\bfoot\b|\bfeet\b", "k_inches_per_foot"),
    (Fraction(12), r"\bdozens?\b", "k_per_dozen"),
    (Fraction(52), r"\bweeks?\b|\byears?\b", "k_weeks_per_year"),
    (Fraction(365), r"\byears?\b|\bdays?\b", "k_days_per_year"),
    (Fraction(3), r"\byards?\b", "k_feet_per_yard"),
    (Fraction(16), r"\bounces?\b|\bpounds?\b", "k_ounces_per_pound"),
    (Fraction(1000), r"\bkilo|\bgrams?\b|\bmeters?\b|\bliters?\b|\bml\b|\bkm\b|\bkg\b|thousand",
     "k_per_thousand"),
    (Fraction(5280), r"\bmiles?\b|\bfeet\b", "k_feet_per_mile"),
    # a unit of volume or length in a smaller one, where the question says both units ("a 1.5-quart
    # bottle ... How many ounces" / "1.5*32 = 48 ounces"), on a line that names one of them
    *[(Fraction(n), rf"^(?=[\s\S]*\b(?:{big})\b)[\s\S]*\b(?:{small})\b", name)
      for n, big, small, name in _UNIT_PAIRS],
    # "pays her insurance quarterly" / "three months in a quarter ... 12/3"
    (Fraction(3), r"\bquarterly\b|\bquarters?\s+of\s+(?:a|the)\s+year\b", "k_months_per_quarter"),
]


#: the larger unit of a conversion factor that shares its value with another ("60": minutes in an
#: hour, seconds in a minute), which the question or the line must say for that one to be meant
_LARGER_UNIT: dict[str, re.Pattern[str]] = {
    "k_minutes_per_hour": re.compile(r"\bhours?\b|\bhourly\b|\bmph\b|\bhrs?\b", re.I),
    "k_seconds_per_minute": re.compile(r"\bminutes?\b|\bmins?\b", re.I),
}

#: factors a step's line must name as well: a weekend's 2 days only where the line says
#: "weekend" (not the 2 plane tickets of a question that mentions a busy weekend); words in order on
#: one line are searched in linear time (:class:`~.phrases.InOrder`)
_LINE_WORDS: dict[str, InOrder] = {
    "k_weekend_days": InOrder(r"\bweekends?\b", re.I),
    "k_weekdays_per_week": InOrder(r"\bweekdays?\b|\bdays?\b|\b(?:work|school) ?weeks?\b", re.I),
    "k_weeks_per_month": InOrder(r"\bweeks?\b.*\b(?:months?|{m})\b|\b(?:months?|{m})\b.*\bweeks?\b".format(
        m="January|February|March|April|June|July|August|September|October|November|December"), re.I),
    "k_ways_of_a_round_trip": InOrder(ONE_WAY_WORDS, re.I),
    "k_every_second": InOrder(r"\bevery (?:second|other)\b", re.I),
    "k_per_pair": InOrder(r"\bpairs?\b", re.I),
    "k_per_couple": InOrder(r"\bcouples?\b", re.I),
    "k_wheels_per_bicycle": InOrder(r"\b(?:bi(?:ke|cycle)s?|bike)\b.*\b(?:tires?|wheels?)\b"
                                       r"|\b(?:tires?|wheels?)\b.*\bbi(?:ke|cycle)s?\b", re.I),
    "k_wheels_per_tricycle": InOrder(r"\btricycles?\b", re.I),
    "k_both": InOrder(r"\bboth\b", re.I),
    "k_items_per_buy_one_get_one": InOrder(BUY_ONE_GET_ONE, re.I),
    **{name: InOrder(rf"\b(?:{big}|{small})\b", re.I) for _, big, small, name in _UNIT_PAIRS},
    "k_months_per_quarter": InOrder(r"\bmonths?\b.*\bquarter(?:s|ly)?\b|\bquarter(?:s|ly)?\b.*\bmonths?\b", re.I),
}


#: the words of a line that name a unit factor ("60 seconds per minute"), where a question allows two
_FACTOR_LINE: dict[str, re.Pattern[str]] = {
    "k_minutes_per_hour": re.compile(r"\bminutes?\s+(?:per|an?|in\s+an?|each)\s+hour\b", re.I),
    "k_seconds_per_minute": re.compile(r"\bseconds?\s+(?:per|an?|in\s+an?|each)\s+minute\b", re.I),
}


_CENTS = re.compile(r"\bcents?\b", re.I)
_PENNIES = re.compile(r"\bpenn(?:y|ies)\b", re.I)


#: the smaller unit of such a factor: a line that says both units of one of them names that one
_SMALLER_UNIT: dict[str, re.Pattern[str]] = {
    "k_minutes_per_hour": re.compile(r"\bminutes?\b|\bmins?\b", re.I),
    "k_seconds_per_minute": re.compile(r"\bseconds?\b|\bsecs?\b", re.I),
}


def _unit_factor(v: Fraction, q: str, line: str) -> str | None:
    """The unit or percent factor of value ``v`` that the question's words allow (``q`` lower
    case) and the step's line names, or None."""
    factors = [n for fv, pat, n in _FACTORS if fv == v and re.search(pat, q)
               and (n not in _LINE_WORDS or _LINE_WORDS[n].search(line))]
    # of two factors of one value the question's words allow, the one the line names
    # ("60 seconds per minute" is no 60 minutes an hour)
    named = [n for n in factors if _FACTOR_LINE.get(n) and _FACTOR_LINE[n].search(line)]
    if len(factors) > 1 and not named:
        # else the one whose two units the line says ("20 kb per second ... 20*60 = 1200 kb per
        # minute": the seconds in a minute, though the question asks per hour, 627)
        both = [n for n in factors if n in _SMALLER_UNIT
                and _LARGER_UNIT[n].search(line) and _SMALLER_UNIT[n].search(line)]
        # else the one whose larger unit the question or the line says: 120 seconds "in
        # minutes" is 120/60 by the seconds in a minute where no hour is said (995)
        named = both if len(both) == 1 else [n for n in factors if n in _LARGER_UNIT and (
            _LARGER_UNIT[n].search(q) or _LARGER_UNIT[n].search(line))]
    name = named[0] if len(factors) > 1 and len(named) == 1 else (factors[0] if factors else None)
    if name == "k_pennies_per_dollar" and _CENTS.search(line) and not _PENNIES.search(line):
        # "Since a dollar is equal to 100 cents, then 500 cents is ... 500/100" where the
        # question counts pennies: the cents a dollar is, which the line names
        name = "k_cents_per_dollar"
    return name


def _gate_ok(name: str, line: str) -> bool:
    """Does the step's line name what a constant that needs the line's words stands for? A
    weekend's 2 declared for one step is not the 2 of another step whose line says nothing of
    a weekend (an implied quantity is never borrowed by value)."""
    if name in _LINE_WORDS:
        return bool(_LINE_WORDS[name].search(line))
    if name in _IMPLIED_LINE_RE:
        return bool(_IMPLIED_LINE_RE[name].search(line))
    if name.startswith("k_days_in_"):
        return bool(re.search(r"\bdays\b", line, re.I))
    return True


#: a named factor's value by its name (what a relationship shows for it)
FACTOR_VALUES: dict[str, Fraction] = {n: v for v, _, n in _FACTORS}
FACTOR_VALUES.update({n: v for v, _, n, _ in _IMPLIED_CONSTANTS})
FACTOR_VALUES.update({f"k_days_in_{m}": Fraction(d) for m, d in _MONTH_DAYS.items()})
FACTOR_VALUES.update(AVERAGED_COUNTS)
FACTOR_VALUES.update(RESTATED_FACTORS)
FACTOR_VALUES.update(WEEKDAY_FACTORS)
FACTOR_VALUES.update(FLOOR_FACTORS)
FACTOR_VALUES.update(SCALED_FACTORS)


def factor_value(name: str) -> Fraction | None:
    """A named constant's value by its name: a unit, percent or implied factor
    (:data:`FACTOR_VALUES`), a person or thing the words count once (``k_one_...``,
    :mod:`.ones`), the people who share (``k_2_sharers_...``, :mod:`.sharers`); None for any other name."""
    if name in FACTOR_VALUES:
        return FACTOR_VALUES[name]
    if name.startswith("k_one_"):
        return Fraction(1)
    return sharers_value(name)  # "k_2_sharers_emani_howard"


_ONE_OVER_RE = re.compile(r"(?<![\d./])1\s*/\s*(\d{1,4})(?![\d./])")


@functools.lru_cache(maxsize=256)
def _slug(phrase: str) -> str:
    return re.sub(r"[^a-z]+", "_", phrase).strip("_")


def _word_givens(question: str) -> dict[Fraction, list[str]]:
    """value -> the names of the word givens of that value the question states."""
    from qcstation.core.reading.words import WORD_GIVENS

    out: dict[Fraction, list[str]] = {}
    q = question.lower()
    for m in _ONE_OVER_RE.finditer(q):
        # "1/3 as many" computed as "÷ 3": the fraction's parts
        if int(m.group(1)) > 1:
            out.setdefault(Fraction(int(m.group(1))), []).append(f"w_1_{m.group(1)}_parts")
    for m in _ONE_PART_RE.finditer(q[:20_000]):
        # "1 quarter of the year" computed as "12/4", "1 quarter that much" as "24/4": the parts of the
        # fraction a digit 1 and a word of parts write (as "a quarter" is 4 parts)
        out.setdefault(Fraction(_PART_WORDS[m.group(1)]), []).append(f"w_1_{m.group(1)}_parts")
    unit_dozen = _dozen_a_unit(q)
    stated = stated_word_givens(q)  # the phrases has_phrase(q, phrase) finds, in WORD_GIVENS' order
    spans = {p: [m.span() for m in phrase_re(p, True).finditer(q)] for p in stated}
    for phrase in stated:
        values = WORD_GIVENS[phrase]
        if unit_dozen and phrase in ("dozen", "dozens", "a dozen"):
            continue  # "4 dozen brownies": the dozen is a unit, its 12 the factor k_per_dozen
        if spans.get(phrase) and all(any(a <= x and y <= b and (a, b) != (x, y) for p, found in spans.items()
                                         if p != phrase for a, b in found) for x, y in spans[phrase]):
            continue  # "half" of "one-half" (372): the one phrase the question writes there
        if not (phrase in _ORDINAL_TOO and _only_ordinal(q, phrase)):
            slug = _slug(phrase)
            for i, v in enumerate(values):
                # "half" is 1/2; a solution that divides by 2 for it uses its 2 parts
                out.setdefault(v, []).append(f"w_{slug}" + ("" if i == 0 else "_parts"))
    from qcstation.core.construct.make.rules.fraction_parts import digit_fraction_parts, fraction_parts

    for v, name in fraction_parts(q):  # "two thirds" as "/ 3" and "* 2" apart
        out.setdefault(v, []).append(name)
    for name, (_, parts) in digit_fraction_parts(q).items():  # "3 quarters of" / "(4/3)*9"
        out.setdefault(Fraction(parts), []).append(name)
    return out


_PART_WORDS = {"third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
               "tenth": 10}
#: a digit 1 and a word of parts, as a fraction ("1 quarter of the year", "1 quarter that much"; never
#: "1 quarter" of coins, which no "of", "as" or "that" follows)
_ONE_PART_RE = re.compile(r"(?<![\w.,$])1\s+(" + "|".join(_PART_WORDS) + r")\s+(?:of|as|that)\b")


_NUMBER_BEFORE = re.compile(r"(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
                            r"|thirty|forty|fifty))\s+$")


def _dozen_a_unit(q: str) -> bool:
    """Does the question write every "dozen" after a number ("one dozen", "4 dozen", "1 1/2 dozen",
    "1/2 a dozen": a unit, as "4 pounds"), so that a 12 its solution writes is the unit's factor
    ``k_per_dozen``, one quantity wherever it is written? A "dozen" with no number before it ("a
    dozen eggs", "half a dozen") states a count of 12 itself: a word given at its place."""
    found = list(re.finditer(r"\b(?:(a)\s+)?dozens?\b", q[:20_000]))
    return bool(found) and all(_NUMBER_BEFORE.search(q, max(0, m.start() - 24), m.start()) for m in found)


#: word givens that are also ordinals: "A third says 25% more" is the third person, no 1/3
_ORDINAL_TOO = frozenset({"a third", "a fourth", "a fifth", "a sixth", "a seventh", "an eighth", "a ninth",
                          "a tenth"})
_FRACTION_AFTER = re.compile(r"\s+(?:of|as|off)\b|\s*[,.;:?!]|\s*$")


def _only_ordinal(q: str, phrase: str) -> bool:
    """Does the question write ``phrase`` only as an ordinal ("a third person", "A third says"),
    never as a fraction ("a third of the cake", "a fifth as many", "... and a quarter.")?"""
    return not any(_FRACTION_AFTER.match(q, m.end()) for m in phrase_re(phrase, True, True).finditer(q))


def _phrase(name: str) -> str:
    m = re.fullmatch(r"w_1_(\d+)_parts", name)
    if m:
        return f"1/{m.group(1)}"
    return name[2:].removesuffix("_parts").removesuffix("_numerator").replace("_", " ")


def declare_literals(exprs: list[Expr], question: str, taken: set[str],
                     lines: list[str] | None = None) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]]]:
    """Replace each literal other than 0 and 1 by a declared word given or named factor
    (see the module docstring). Returns the new expressions and the constants; raises
    RuleError naming the first literal that is neither."""
    from qcstation.core.construct.make.rules.fraction_parts import digit_fraction_parts, writes_the_fraction

    words = _word_givens(question)
    q = question.lower()
    digit_parts = digit_fraction_parts(q)
    consts: dict[Fraction, str] = {}
    order: list[tuple[str, Fraction, Expr]] = []
    declared: set[str] = set()
    claimed = {n for ns in words.values() if len(ns) > 1 for n in ns
               if any(phrase_re(_phrase(n), True, True).search(ln) for ln in lines or [])}

    listed_names: dict[str, str] = {}  # a list's count -> the list's text ("Marcell and Beatrice")

    def name_for(v: Fraction, line: str, role: str) -> str | None:
        # the parts of "3 quarters" only on a line that writes the fraction ("(4/3)*9")
        names = [n for n in words.get(v, []) if n not in digit_parts or writes_the_fraction(*digit_parts[n], line)]
        # of two word givens of one value ("half" and "twice"), the one the step's line writes,
        # else the one whose role the computation has: "8 / 2" divides by half's parts, "5 x 2"
        # multiplies by "twice"
        on_line = [n for n in names if phrase_re(_phrase(n), True, True).search(line)]
        if len(names) > 1 and not on_line:
            # a phrase the question writes once and another step's line writes is that step's
            names = [n for n in names if not (n in claimed and len(phrase_re(_phrase(n), True, True)
                                                                   .findall(question)) == 1)] or names
        # else the one whose clause alone shares words with the line ("His dad will be 24 x 2" for
        # "half the age of his dad but twice as old as his brother": the half, undone), then the role
        by_clause = _clause_of(names, question, line) if len(names) > 1 and not on_line else None
        if by_clause is None and len(names) > 1 and not on_line:
            # "Kiarra is twice as old as Bea ... Harry is half as old as Figaro" / "Bea is 30 / 2": by the people named
            by_clause = clause_by_names([(n, phrase_re(_phrase(n), True, True)) for n in names], question, line)
        if by_clause is not None:
            names = [by_clause]
        by_role = [n for n in names if _role_of(n) == role] if len(names) > 1 and not on_line else []
        if len(names) == 1 and not on_line and len(words.get(v, [])) > 1:
            by_role = names
        # a quantity the line names the words of ("The chickens have 40*2 legs": a chicken's legs)
        # is that implied constant, never a word given ("twice as many chickens") the line does not write
        implied_here = implied_names(v, question, line, role) if names and not on_line else set()
        # so is a list the line names the members of ("The math and science book weigh 2 pounds each
        # so they weigh 2*2": the two books, not "twice")
        listed_here = list_count(v, question, line, role) if names and not on_line and not implied_here else None
        # a factor whose words the line writes ("They both drew 4 matches each ... 2*4" for "both
        # teams") where the one word given of the value ("twice as many") that the line does not write
        # is already an earlier step's, written once: this use is the factor, not "twice" again
        gated_here = _unit_factor(v, q, line) if names and not on_line and not implied_here \
            and listed_here is None and len(names) == 1 and names[0] in declared \
            and len(phrase_re(_phrase(names[0]), True, True).findall(question)) == 1 else None
        if gated_here is not None and not (gated_here in _LINE_WORDS and _LINE_WORDS[gated_here].search(line)):
            gated_here = None
        name: str | None
        if gated_here is not None:
            name = gated_here
            if name in declared:
                return name
        elif len(implied_here) == 1:
            name = implied_here.pop()
            if name in declared:
                return name
        elif listed_here is not None:
            name = "w_" + _slug(listed_here.lower())
            if name in declared and listed_names.get(name) == listed_here:
                return name
            listed_names[name] = listed_here
        elif len(on_line) == 1 or len(by_role) == 1:
            name = on_line[0] if on_line else by_role[0]
            if name in declared:
                return name
        elif v in consts and consts[v] in _LARGER_UNIT and _unit_factor(v, q, line) not in (None, consts[v]):
            # 60 declared as the seconds in a minute for one line is not the minutes in an hour
            # another line converts by (627: "20*60 ... kb per minute", then "1.2*60 = 72Mb per hour")
            name = _unit_factor(v, q, line)
        elif v in consts and _gate_ok(consts[v], line) and (
                consts[v] not in listed_names or listed_names[consts[v]] == list_count(v, question, line, role)):
            return consts[v]
        elif v in consts and consts[v] in listed_names:
            name = None  # a list's count on a line that does not name that list: only what this line names
        elif v in consts and names:
            return None  # a constant the line does not name, and word givens no words decide
        else:
            name = names[0] if names else None
        if name is None:
            name = _unit_factor(v, q, line)
        if name is None:
            implied = implied_names(v, question, line, role)
            # two implied quantities of one value the line names ("4 legs" of dogs and cats on one
            # line): which one the step uses no reader can tell
            name = implied.pop() if len(implied) == 1 else None
        if name is None:
            name = _month_days(question, v, line)
        if name is None:
            listed = list_count(v, question, line, role)
            name = "w_" + _slug(listed.lower()) if listed else None
            if name is not None and listed is not None:
                listed_names[name] = listed
        if name is None:
            # a factor whose words the question writes in one sentence that the line names by
            # another of its words ("walks there and back each day" / "He has to walk 3*2"):
            # only where nothing else names the value (:mod:`.unstated`)
            gated = [n for fv, pat, n in _FACTORS if fv == v and re.search(pat, q) and n in _LINE_WORDS
                     and sentence_names(n, question, line)]
            name = gated[0] if len(gated) == 1 else None
        if name is None:
            name = sentence_list(v, question, line, role)  # "for herself and her younger sister" / "* 2"
        if name is None:
            name = coin_by_sentence(v, question, line, role)  # "only spends 4 nickels" / "Pete spends 4*5"
        if name is None:
            name = sharers(v, question, line, role)  # "splits 8 shots of vodka with his friend" / "8/2"
        if name is None:
            name = line_percent(v, line)  # "multiply by 100%" where the question says no percent
        if name is None:
            name = month_of_days(question, v, line, role)  # "3*31 = $93 a month" of "the month of May"
        if name is not None and name in declared:
            return name
        if name is None or name in taken:
            return None
        consts.setdefault(v, name)
        declared.add(name)
        taken.add(name)
        term: Expr = Num(v) if v.denominator == 1 else BinOp("/", Num(Fraction(v.numerator)),
                                                             Num(Fraction(v.denominator)))
        order.append((name, v, term))
        return name

    def named_factor(name: str, v: Fraction) -> str:
        if name not in declared:
            declared.add(name)
            taken.add(name)
            order.append((name, v, Num(v)))
        return name

    def literal(e: Num, step: int, role: str) -> Expr:
        if e.value == 1 and e.text.startswith("k_one_"):
            return Name(named_factor(e.text, e.value))  # a share the words count once (:mod:`.ratios`)
        if e.value in (0, 1):
            return e
        if e.text in FACTOR_VALUES and FACTOR_VALUES[e.text] == e.value:
            return Name(named_factor(e.text, e.value))  # marked by the reading ("40 / k_cents_per_dollar")
        name = name_for(e.value, lines[step - 1] if lines is not None and step <= len(lines) else "", role)
        if name is None:
            raise RuleError(
                f"step {step} writes the number {fmt(e.value)}, which the question states "
                f"neither as a number nor in words, and which is no named unit or percent "
                f"factor: a hard-coded result or an unstated fact", LITERAL_IN_STEP)
        return Name(name)

    out = [_map_numbers(e, i, "", literal) for i, e in enumerate(exprs, start=1)]
    _check_word_given_roles(out, question, order, lines)
    from qcstation.core.construct.make.rules.fraction_parts import check_parts_with_numerator

    apart = check_parts_with_numerator([n for n, _, _ in order])
    if apart is not None:
        raise RuleError(apart, "Ambiguous binding")
    return _each_occurrence(out, question, order, lines)


def _map_numbers(e: Expr, step: int, role: str, literal: Callable[[Num, int, str], Expr]) -> Expr:
    """``e`` with each number ``literal(number, step, role)``: role "times" for a factor of a product,
    "divisor", else "" (a function of the module: a closure that calls itself is a reference cycle,
    which only the cyclic garbage collector frees)."""
    if isinstance(e, Num):
        return literal(e, step, role)
    if isinstance(e, Neg):
        return Neg(_map_numbers(e.operand, step, "", literal))
    if isinstance(e, BinOp):
        return BinOp(e.op, _map_numbers(e.left, step, "times" if e.op == "*" else "", literal),
                     _map_numbers(e.right, step, "times" if e.op == "*" else "divisor" if e.op == "/" else "",
                                  literal))
    return e


def _each_occurrence(exprs: list[Expr], question: str, order: list[tuple[str, Fraction, Expr]],
                     lines: list[str] | None) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]]]:
    """Each written occurrence of a word given its own given, tied to its span
    (:func:`.word_places.split_word_givens`)."""
    from qcstation.core.construct.make.rules.word_places import split_word_givens
    from qcstation.core.reading.words import NUMERAL, WORD_GIVENS, numeral_value

    phrase_of = {n: _phrase(n) for n, _, _ in order if n.startswith("w_") and not n.startswith("w_1_")
                 and not n.endswith("_numerator") and _phrase(n) in WORD_GIVENS}
    if not phrase_of:
        return exprs, order
    at: dict[Fraction, set[int]] = {}
    for m in NUMERAL.finditer(question):
        v = numeral_value(m)
        if v is not None:
            at.setdefault(v, set()).add(m.start())
    single = {v: next(iter(s)) for v, s in at.items() if len(s) == 1}
    return split_word_givens(exprs, question, order, lines, phrase_of, single)


def _clause_of(names: list[str], question: str, line: str) -> str | None:
    """Of word givens of one value, each written once in the question, the one whose object (the
    words after it up to its clause's end or verb: "half the age of his dad", "twice as old as his
    brother") alone names a word of the step's line, one the story writes only there ("His dad will
    be 24 x 2"); None when a phrase is written more or less than once, an object names nothing, or
    the line names words of two objects ("Jana has 6*3 = 18 Pomeranians" for "Two thirds of Jana's
    puppies are Pomeranians. One third of the Pomeranians are girls": Jana and the Pomeranians)."""
    from qcstation.core.reading.words import line_stems, stem

    objects = []
    for n in names:
        found = list(phrase_re(_phrase(n), True, True).finditer(question))
        if len(found) != 1:
            return None
        tail = question[found[0].end():found[0].end() + 200]
        cut = _OBJECT_END.search(tail)
        objects.append(line_stems(tail[:cut.start()] if cut else tail))
    if not all(objects):
        return None  # "half of what is left" names nothing its line could
    # a word the story (its question sentence aside) writes once, in that object only
    asked = question.rfind("?")
    story = question[:max(question.rfind(".", 0, asked), 0)] if asked >= 0 else question
    once = {w for w, k in Counter(stem(w) for w in _WORDS.findall(story)).items() if k == 1}
    here = line_stems(line)
    named = [i for i, o in enumerate(objects) if o & here & once]
    if len(named) != 1 or any(o & here for i, o in enumerate(objects) if i != named[0]):
        return None
    return names[named[0]]


_WORDS = re.compile(r"[A-Za-z][A-Za-z'’]*")
#: where the object of a word that multiplies ends: its clause's end or a verb after it
_OBJECT_END = re.compile(r"[.,;:!?](?:\s|$)|\b(?:and|while|but|whereas|then|than|if|because|so|is|are|was|were"
                         r"|has|have|had|will|does|do|did)\b", re.I)


def _role_of(name: str) -> str:
    """What a word given does in a computation: a fraction's parts divide ("half": / 2), a
    multiplier word multiplies ("twice": * 2)."""
    if name.endswith("_parts"):
        return "divisor"
    if name.endswith("_numerator"):
        return "times"
    if re.fullmatch(r"w_(?:twice|doubled?|doubles|tripled?|triples|thrice|quadrupled?)", name):
        return "times"
    return ""


def _uses(e: Expr, name: str) -> bool:
    if isinstance(e, Name):
        return e.name == name
    if isinstance(e, Neg):
        return _uses(e.operand, name)
    if isinstance(e, BinOp):
        return _uses(e.left, name) or _uses(e.right, name)
    return False


#: a unit's word whose value is its size in a smaller unit ("a week": 7 days), and the words of either unit
_UNIT_WORDS = {"w_a_week": re.compile(r"\b(?:days?|daily|weeks?|weekly)\b", re.I),
               "w_an_hour": re.compile(r"\b(?:minutes?|hours?|hourly)\b", re.I)}
_REPEATED = re.compile(r"\b(?:each|every|per)\b", re.I)
_SHARES = re.compile(r"\b(?:split(?:s|ting)?|equally|evenly|shared?|sharing)\b", re.I)


def _check_word_given_roles(exprs: list[Expr], question: str, order: list[tuple[str, Fraction, Expr]],
                            lines: list[str] | None) -> None:
    """A word given ("half") that more steps use than the question writes it, where the words
    do not say it is one quantity used again (the question's sentence says "each level", "every
    month", or each step's line writes the phrase: "60/3 ... in an hour", "60/4 ... in an hour"):
    one of those uses is another quantity of the same value (386: "52/2" for "50% of which are
    girls", then "26/2" for "half the people performing"): one given in two roles, which no
    reader can vouch for (RuleError). Every using line naming the value alike in its prose ("To make
    4 brownies" on each line of a "quadruple batch", 403) says it is one quantity; so does a line that
    names a unit's word's units ("70 miles a week" / "56 / 7 ... 8 miles a day": a week's 7 days)."""
    for name, v, _ in order:
        if not name.startswith("w_") or name.startswith("w_1_"):
            continue
        rx = phrase_re(_phrase(name), True, True)
        places = list(rx.finditer(question))
        using = [i for i, e in enumerate(exprs) if _uses(e, name)]
        if not places or len(using) <= len(places):
            continue
        unit = _UNIT_WORDS.get(name)
        # "a week" is 7 days wherever a line names its days or the week ("56 / 7 ... 8 miles a day"):
        # one quantity, a week's days, the same in each use
        unsaid = [i for i in using if lines is None or i >= len(lines) or not rx.search(lines[i])
                  and not (unit is not None and unit.search(ANNOTATION.sub(" ", lines[i])))]
        # a use whose line shares out equally ("Splitting these flights equally ... 22 / 2") divides by
        # the sharers, another quantity than the word the question repeats "each day" (994)
        shared = [i for i in unsaid if lines is not None and i < len(lines) and _SHARES.search(lines[i])]
        if not shared and any(_REPEATED.search(_sentence_at(question, m.start())) for m in places):
            continue
        if lines is not None and not shared and _named_alike(v, [lines[i] if i < len(lines) else "" for i in using]):
            continue
        steps = len(using)
        written = len(places)
        if unsaid:
            raise RuleError(f"the word given {_phrase(name)!r} ({fmt(v)}) is used by {steps} steps but the "
                            f"question writes it {written} time(s): one use may be another quantity of "
                            "the same value", "Ambiguous binding")


def _named_alike(v: Fraction, lines: list[str]) -> bool:
    """Does every line write ``v`` once in its prose, outside its computation, with the same words
    after it ("To make 4 brownies, Mark needs: 3 cups * 4", "To make 4 brownies, Mark needs: 1 cup *
    4", 403, for "a quadruple batch")? The lines name the uses as one quantity."""
    from qcstation.core.construct.make.rules.joint import _line_post

    said = {_line_post(line, v) for line in lines}
    return len(lines) > 1 and len(said) == 1 and bool(next(iter(said)))


def _sentence_at(text: str, pos: int) -> str:
    a = max(text.rfind(c, 0, pos) for c in ".?!") + 1
    ends = [e for e in (text.find(c, pos) for c in ".?!") if e != -1]
    return text[a:min(ends) if ends else len(text)]
