"""The unknown quantities and relationships of rule-made key information: each step's result
is named Q1, Q2, ..., described by the solution's own words with every intermediate value
hidden (or named, where another step's result is written), and defined from the givens and
earlier Qs. :mod:`keyinfo` drafts the other fields and calls :func:`unknowns_and_relations`;
two unknowns are told apart by :mod:`.unknown_words`;
numbers are read by :mod:`textnumbers`.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from typing import Any

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.unknown_describe import _MARK0, _Blank, _describe, _relation
from qcstation.core.reading.slips import line_slip
from qcstation.core.construct.make.unknown_forms import equation_sides as _equation, lone_blank, mended
from qcstation.core.construct.make.unknown_named import earlier_named
from qcstation.core.construct.make.unknown_words import (claim_states_result, letters_unused,
                                                         descriptions_true_to_question, own_sentences,
                                                         told_apart)

from qcstation.core.reading.textnumbers import (
    ANNOT_WITH_RESULT_RE as _ANNOT_WITH_RESULT, NUMBER_WORDS as _WORDS, numbers_in as _numbers,
    word_key,
)

__all__ = ["unknowns_and_relations"]


def unknowns_and_relations(question: str, steps: list[Any], givens: list[dict[str, str]] | None,
                           solution: str = "") -> tuple[list[str], list[str]]:
    """Q1, Q2, ... described by the solution's words with every step's result hidden (also
    where the question states the same value: "Michael has $6 in change" when the question
    has "six" bills), and each defined from the givens and earlier Qs."""
    from qcstation.core.reading.words import stated_with_words

    # the gsm8k-algebra rule's "answer = x" only names the unknown's value: the unknown is asked for
    if len(steps) >= 2 and getattr(steps[-1], "expr", None) is not None \
            and getattr(steps[-1].expr, "name", None) == steps[-2].name and _equation(steps[-2]) is not None:
        steps = steps[:-1]
    label = {st.name: f"Q{i + 1}" for i, st in enumerate(steps)}
    given_value = {g["name"]: Fraction(g["value"]) for g in (givens or [])}
    given_text = {g["name"]: g.get("text", "") for g in (givens or [])}
    # numbers a reader may see: the question's and the constants the steps write (7 days
    # a week), never a step's result
    result_of = [Fraction(st.result) for st in steps]  # each step's result, in step order
    results = set(result_of)
    # every value the solution's lines compute (a step's result, or one the solution writes
    # after an "=" though no step keeps it): a number outside these hides nothing
    computed = set(results)
    for st in steps:
        line = str(getattr(st, "line", "") or "")[:4000]
        for m in _RESULT_AFTER_EQUALS.finditer(line):
            computed |= _numbers(m.group(1))
    constants = set().union(*(_numbers(str(st.expr_text)) for st in steps)) - results if steps else set()
    question_values = (_numbers(question) | constants) - results
    unknown: list[str] = []
    relations: list[str] = []
    # a result's name stands where it is written, if no other step has the same value
    owner: dict[Fraction, list[str]] = {}
    for st, r in zip(steps, result_of):
        owner.setdefault(r, []).append(label[st.name])
    named = {v: names[0] for v, names in owner.items() if len(names) == 1}
    stated = _numbers(question)
    # a fraction the question states in words ("One-third of the other emails"): its givens' values
    fractions = {v for v in given_value.values() if v.denominator != 1}

    def given_at(text: str, start: int, end: int, value: Fraction) -> bool:
        return stated_with_words(text, start, end, value, question)

    before: dict[Fraction, str] = {}  # the named results of the steps so far, in step order
    # every value the question states, in digits or in words ("three teeth")
    said = stated | {_WORDS[word_key(w, _WORDS)] for w in _COUNT_WORD.findall(question[:20_000])}
    from qcstation.core.construct.make.rules.algebra import declared_unknowns
    letters = declared_unknowns(solution[:20_000]) if solution else []
    for i, st in enumerate(steps):
        own = result_of[i]
        others = dict(named)
        others.pop(own, None)
        # (never a value the question states as well: "costs $4.00" is no count of 4 cartons)
        earlier = dict(before)
        earlier.pop(own, None)
        for v in _constants_used(st, steps[:i]) & set(earlier):
            earlier.pop(v)
        slip = line_slip(str(getattr(st, "line", "") or ""), question)
        if slip is not None:  # "Mr. Feldstein's class ... 1/6 * 30" where 1/6 is Miss Johnson's; "$3,6000.00"
            raise KeyInfoError(f"{label[st.name]} would read {slip}: the solution's words contradict the question's")
        blanks: list[_Blank] = []
        desc = _describe(str(getattr(st, "line", "") or ""), question_values, results, others, earlier, own, stated,
                         computed, given_at, blanks, fractions)
        desc = _one_blank_each(desc, blanks, own, st, steps[:i], label, given_value, givens or [], question,
                               said)
        if desc and "?" not in desc:
            desc = _own_value_written(desc, own, st, steps[:i], given_value, question)
        if i == len(steps) - 1 and solution and (not desc or "?" not in desc or _terse(desc)):
            # "Lily = B/2 + 7" (501): the asked value's line is the formula the solution
            # writes; its concluding sentence ("Lily found <<16=16>>16 insects.") says what it is
            last = _concluding_line(solution, own)
            if last is not None:
                blanks = []
                said_last = _describe(last, question_values, results, others, earlier, own, stated,
                                      computed, given_at, blanks, fractions)
                said_last = _one_blank_each(said_last, blanks, own, st, steps[:i], label, given_value,
                                            givens or [], question, said)
                if said_last.count("?") == 1:
                    desc = said_last
        if desc and "?" not in desc:
            desc = _expression_written(desc, st)
        desc = mended(_labelled(lone_blank(desc), st, givens or [], question), st, givens or [], question,
                      letters, i == len(steps) - 1)
        equation = _equation(st) if getattr(st, "expr", None) is None else None
        if equation is not None:
            # the unknown the solution names ("Let x be the number of silver coins Gretchen has"),
            # defined by its equation ("Q1 + Q1 + 30 = 110")
            from qcstation.core.construct.make.rules.algebra import declared_unknowns, unknown_constant

            # of two unknowns ("where b is the number of brownies and c is the number of cupcakes"),
            # the one the equation is in (1226: c), by its constant's name
            declared = declared_unknowns(solution[:20_000]) if solution else []
            named_as = next((u for u in declared if unknown_constant(*u) == st.name),
                            declared[0] if declared else None)
            if named_as is None:
                raise KeyInfoError(f"{label[st.name]} is an unknown whose words the solution does not name")
            # ("the number of fries given to Griffin by Ginger, then 24-5-10-2+x=27", 245: its equation goes)
            words = re.split(r",\s+(?:then|so)\b|,\s*(?=\d)", named_as[1])[0].strip().rstrip(",;:")
            desc = f"{words[:1].upper()}{words[1:]} ({named_as[0]} in the solution) is ?"
            unknown.append(f"{label[st.name]}: {desc}")
            relations.append(f"{_relation(equation[0], label, given_value, given_text)} = "
                             f"{_relation(equation[1], label, given_value, given_text)}")
            continue
        if desc:
            # "One foot less than 5 feet" where Q1 is the foot: an earlier unknown in words is named
            desc = earlier_named(desc, earlier, dict(u.split(": ", 1) for u in unknown if ": " in u))
        unknown.append(f"{label[st.name]}: {desc}" if desc else label[st.name])
        if own in named and own not in stated:
            before.setdefault(own, named[own])
        expr = getattr(st, "expr", None)
        if expr is not None:
            relations.append(f"{label[st.name]} = {_relation(expr, label, given_value, given_text)}")
        else:
            text = str(st.expr_text).replace("*", " × ").replace("/", " ÷ ")
            text = _SPACES.sub(" ", text.replace("+", " + ").replace("-", " − ")).strip()
            relations.append(f"{label[st.name]} = {text}")
    unknown = told_apart(letters_unused(own_sentences(unknown)), steps, givens or [], question)
    descriptions_true_to_question(unknown, question, said, computed | constants | question_values, result_of)
    if unknown:
        unknown[-1] = unknown[-1] + " (the value asked for)"
    return unknown, relations


#: a number as a line writes it, also a decimal without its leading zero ("$.05")
_ANY_WRITTEN = re.compile(r"(?<![\w.,/])\$?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?![\w/]|\.\d|,\d)")
#: "half" said of a whole ("half their day", "half of the cake")
_HALF_OF = re.compile(r"\bhalf(\s+of)?(?=\s+(?:the|their|his|her|its|my|our|your|all|of)\b)", re.I)

#: an annotation that only writes a value ("<<16=16>>"), and an operator written in a line
_ANNOT_ECHO = re.compile(r"\s*\$?[\d.,]+\s*=\s*\$?[\d.,]+\s*")
_COMPUTES = re.compile(r"[=+*/×÷]|\s[-−]\s")


def _constants_used(st: Any, before: list[Any]) -> set[Fraction]:
    """The values of the named constants and numbers a step computes with, less those of the
    earlier results it uses: "60 minutes is in an hour so 300/60" (1101) writes the step's
    minutes per hour, not the earlier 60 minutes of break it does not use."""
    from qcstation.core.construct.make.rules.constants import factor_value
    from qcstation.core.reading.expr import Name, Num, atoms

    expr = getattr(st, "expr", None)
    if expr is None:
        return set()
    out: set[Fraction] = set()
    for a in atoms(expr):
        if isinstance(a, Num):
            out.add(Fraction(a.value))
        elif isinstance(a, Name) and a.name.startswith("k_") and factor_value(a.name) is not None:
            out.add(Fraction(factor_value(a.name) or 0))
    used = {a.name for a in atoms(expr) if isinstance(a, Name)}
    return out - {Fraction(x.result) for x in before if x.name in used}


#: a description that is a label and its blank ("Ruins:?", "Second Bag: ?", "Sister ?")
_LABEL_ONLY = re.compile(r"(?P<label>[A-Z][a-z&']*(?:\s[A-Z][a-z&']*){0,2}|[A-Z][a-z]+(?:,\s[A-Z][a-z]+){1,6})"
                         r"\s*[:=]?\s*\?")
_NOUN_AFTER = re.compile(r"\s+([A-Za-z][A-Za-z&']*)")
_NO_NOUN = frozenset("more less fewer times each per percent of a an the and or in for to at on by with is are was "
                     "were has have had".split())


def _labelled(desc: str, st: Any, givens: list[dict[str, Any]], question: str) -> str:
    """A label and its blank ("Ruins:220(.40)=88", 333; "Second Bag:300+12", 271) counts what the
    first given of the question its step computes with counts: the noun after that number
    ("There are 220 castles": "Ruins: ? castles"). Where no given names a noun, as it is."""
    from qcstation.core.reading.expr import expr_names

    m = _LABEL_ONLY.fullmatch(desc)
    expr = getattr(st, "expr", None)
    if m is None or expr is None:
        return desc
    spans = {str(g.get("name")): g.get("span") for g in givens}
    for n in expr_names(expr):
        span = spans.get(n)
        if isinstance(span, list) and len(span) == 2 and isinstance(span[1], int):
            noun = _NOUN_AFTER.match(question, span[1])
            if noun is not None and noun.group(1).lower() not in _NO_NOUN:
                return f"{m.group('label')}: ? {noun.group(1)}"
            break
    return desc


def _terse(desc: str) -> bool:
    """Does a description say no more than its blank and one word ("? letters", "And ?", 430, 448)?"""
    return len([w for w in _WORD.findall(desc) if w.lower() not in ("and", "so", "then", "thus")]) <= 1


def _concluding_line(solution: str, own: Fraction) -> str | None:
    """The solution's last line, where it states the value asked for (``own``) with no
    computation of its own ("The red rope was 20 cm long.", "Lily found <<16=16>>16 insects.")."""
    lines = [ln.strip() for ln in solution[:20_000].split("\n") if ln.strip() and not ln.strip().startswith("####")]
    if not lines:
        return None
    last = lines[-1]
    annots = list(_ANNOT_WITH_RESULT.finditer(last))
    bare = _ANNOT_WITH_RESULT.sub(lambda m: " " + m.group(0)[m.group(0).find(">>") + 2:] + " ", last)
    if any(not _ANNOT_ECHO.fullmatch(m.group(0)[2:m.group(0).find(">>")]) for m in annots) \
            or _COMPUTES.search(bare):
        return None  # a line that computes is described by its own step
    return last if own in _numbers(bare) else None


def _operand_values(st: Any, before: list[Any], given_value: dict[str, Fraction]) -> set[Fraction] | None:
    """The values a step computes with (its givens, named constants and earlier results), or
    None where the step's expression is not known."""
    from qcstation.core.construct.check.bindings import expr_names
    from qcstation.core.construct.make.rules.constants import factor_value

    expr = getattr(st, "expr", None)
    if expr is None:
        return None
    results = {x.name: Fraction(x.result) for x in before}
    out: set[Fraction] = set()
    for n in expr_names(expr):
        if n in given_value:
            out.add(given_value[n])
        elif n in results:
            out.add(results[n])
        elif factor_value(n) is not None:
            out.add(Fraction(factor_value(n) or 0))
        else:
            return None  # a name of no known value: nothing can be told apart
    from qcstation.core.reading.expr import leaves

    try:
        out |= {n.value for n in leaves(expr)}  # a number the step writes ("5 x 20": the 5 weekdays)
    except (AttributeError, TypeError):
        return None
    return out


def _own_value_written(desc: str, own: Fraction, st: Any, before: list[Any],
                       given_value: dict[str, Fraction], question: str) -> str:
    """A description with no blank whose line states the step's result before computing it
    ("He walks 20 miles on the weekend because 2 x 10 = <<2*10=20>>20", 170; "George got $.05 in
    change because ...", 435; "They spend half their day cleaning classrooms because 4 / 8",
    1240): its claim writes the step's own value, kept because the question states an equal
    number ("20 miles a day") or because a decimal without its zero reads as no number. Where
    the description writes the own value exactly once and the step computes with no number of
    that value (else: :func:`.unknown_words.claim_states_result`, 817), that place is the blank.
    Anything else is left as it was (and refused by the drafting: "They have 30 pounds left"
    where the step computes 3 writes no own value)."""
    operands = _operand_values(st, before, given_value)
    if operands is None:
        return desc
    digits = [m for m in _ANY_WRITTEN.finditer(desc) if _value_of(m.group(0)) == own]
    words = [m for m in _COUNT_WORD.finditer(desc) if _WORDS[word_key(m.group(0), _WORDS)] == own
             and m.group(0).lower() not in ("half", "quarter", "twice", "double", "triple", "dozen", "hundred",
                                            "thousand")]
    halves = list(_HALF_OF.finditer(desc)) if own == Fraction(1, 2) else []
    found = [(m.start(), m.end(), "?") for m in [*digits, *words]] \
        + [(m.start(), m.end(), "? of" if not m.group(1) else "? of") for m in halves]
    if len(found) != 1 or (own in operands and not claim_states_result(  # an operand of equal value
            str(getattr(st, "line", "") or ""), desc, found[0][0], found[0][1], own, question)):
        return desc
    a, b, text = found[0]
    return desc[:a] + text + desc[b:]


#: an operator of a computation the line writes with the unknown's letter ("2B + 4")
_OPERATOR = re.compile(r"\s[-+*/×÷]\s")


def _expression_written(desc: str, st: Any) -> str:
    """A description with no blank whose line writes the step's own computation as it is, in the
    letter of the solution's unknown and with no "=" ("In the first set, he retrieved 2B + 4
    balls.", 1048): that computation is the blank ("he retrieved ? balls"). Only a computation
    written once, with an operator between spaces and a letter in it (its numbers alone would
    be hidden already)."""
    written = str(getattr(st, "expr_text", "") or "").strip()
    if not _OPERATOR.search(written) or not re.search(r"[A-Za-z]", written) or desc.count(written) != 1:
        return desc
    at = desc.find(written)
    if re.match(r"[\w.]", desc[at - 1:at]) or re.match(r"[\w.]", desc[at + len(written):at + len(written) + 1]):
        return desc
    return desc[:at] + "?" + desc[at + len(written):]


def _value_of(text: str) -> Fraction | None:
    try:
        return Fraction(text.replace("$", "").replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None



_COUNT_WORD = re.compile(r"\b(?:" + "|".join(_WORDS) + r")\b", re.I)
_MARKED = re.compile(r"([\ue000-\ue7ff])\?")
_UNMARK = re.compile(r"[\ue000-\ue7ff]")
#: where a clause that says the step's value again under other words starts ("11 years of
#: vacations, so he has 11 rows of blocks"; "10 bike tires ... because 2 times 5 equals 10")
#: (its joining word is tried only where a run of spaces starts, at a comma, or after the "[,;:] "
#: it also matches: from inside a run it read the rest of it again, quadratic in a run's length)
_CLAUSE_START = re.compile(r"(?:(?=,)|(?<![\s,])|(?<=[,;:]\s)),?\s++(?:so|because|since|and|which|then|thus|meaning)\b"
                           r"|[,;:]\s")
_WORD = re.compile(r"[A-Za-z]+")
_CUT_AT = re.compile(r"[,.;:!?=+*/×÷()\d\ue000-\ue7ff]|\s-\s|\bx\b")
#: a unit a "1" counts in a conversion the line states ("12 inches in 1 foot", "1 dozen is 12")
_ONE_UNIT = re.compile(r"\s*(?:foot|inch|yard|mile|meter|metre|hour|minute|second|day|week|month|year|dozen|"
                       r"pound|ounce|gallon|quart|pint|cup|liter|litre|kilogram|gram|dollar|cent|pair)\b", re.I)


def _words_near(text: str, end: int, dollar_before: bool) -> set[str]:
    """The stems of the first content words after ``end`` (up to a break: a number, a blank, a
    punctuation mark or an operator), with "$" when a dollar sign stands before the number."""
    from qcstation.core.construct.make.rules.givens import STOPWORDS
    from qcstation.core.reading.words import stem

    tail = text[end:end + 80]
    cut = _CUT_AT.search(tail)
    words = [w for w in _WORD.findall(tail[:cut.start()] if cut else tail) if w.lower() not in STOPWORDS][:3]
    return {stem(w) for w in words} | ({"$"} if dollar_before else set())


def _words_before(text: str, start: int) -> set[str]:
    """The stems of the content words of the clause right before ``start`` (up to 5 words: "found
    an aquarium for $10.00")."""
    from qcstation.core.construct.make.rules.givens import STOPWORDS
    from qcstation.core.reading.words import stem

    head = text[max(0, start - 80):start]
    cut = list(_CUT_AT.finditer(head.rstrip("$ ")))
    if cut:
        head = head[cut[-1].end():]
    words = [w for w in _WORD.findall(head)][-5:]
    return {stem(w) for w in words if w.lower() not in STOPWORDS}


#: where the clause of a '?' starts, read back from it ("... players and 6 are part of band")
_CLAUSE_BACK = re.compile(r"(?:[,.;:!?=+*/×÷()\d\ue000-\ue7ff]|\b(?:and|or|but|so|then|because|since|while|Q\d+)\b)",
                          re.I)


def _clause_words_before(text: str, start: int) -> set[str]:
    """The stems of the content words between the start of the clause a '?' stands in and the
    '?' ("and her husband eats ?" -> {husband, eat}); none past a joining word or a number."""
    from qcstation.core.construct.make.rules.givens import STOPWORDS
    from qcstation.core.reading.words import stem

    head = text[max(0, start - 80):start]
    cut = list(_CLAUSE_BACK.finditer(head))
    if cut:
        head = head[cut[-1].end():]
    return {stem(w) for w in _WORD.findall(head)[-5:] if w.lower() not in STOPWORDS}


def _by_its_line(desc: str, a: int, b: int, near: set[str], cands: list[tuple[str, str, set[str]]],
                 line_words: dict[str, set[str]]) -> tuple[str, str, set[str]] | None:
    """The earlier result a '?' names, told by the words around it in the line that computed
    it, where the words right after the '?' tell nothing ("her husband eats ? so Jenny eats",
    347: the line "Her husband eats 1 cookie a day ... = 7 cookies"; "6 students are football
    players and 6 are part of band", 983: each 6 by its own line's words). Only earlier results
    are told apart so, and only one whose line shares more of the words (those before the '?'
    in its clause and those after it) than every other number of the value the step uses;
    a given of that value among them, or a tie, tells nothing (None)."""
    if any(o[0] != "ref" for o in cands):
        return None
    around = near - {"$"} | _clause_words_before(desc, a)
    scores = [len(around & line_words.get(o[1], set())) for o in cands]
    best = max(scores) if scores else 0
    if best and scores.count(best) == 1:
        return cands[scores.index(best)]
    return None


def _name_words(name: str) -> set[str]:
    """The stems of the words a step's name was made of ("s3_fish" -> {"fish"})."""
    from qcstation.core.reading.words import stem

    return {stem(w) for w in name.split("_")[1:] if w.isalpha() and len(w) > 2}


def _use_name(option: tuple[str, str, set[str]], label: dict[str, str]) -> str:
    """The name of the step's use an option of :func:`_one_blank_each` stands for (an earlier
    result is listed by its label, a given or constant by its name)."""
    if option[0] != "ref":
        return option[1]
    return next((n for n, q in label.items() if q == option[1]), option[1])


def _one_blank_each(desc: str, blanks: list[_Blank], own: Fraction, st: Any, before: list[Any],
                    label: dict[str, str], given_value: dict[str, Fraction], givens: list[dict[str, Any]],
                    question: str, stated: set[Fraction]) -> str:
    """Each unknown quantity names one quantity with one '?'. A description whose line writes
    more numbers than its own result hides each of them by the rules of :func:`_describe`; here
    every '?' but the step's own is read again by what the step computes with:

    * an earlier step's result the step uses (its label: "she needs Q1 containers"), or a given
      or named constant it uses, written as the line writes it ("each carton costs $4.00",
      "12 inches in a foot is 12"), chosen by the words after the '?' when the value is more
      than one of them (the words the question or the earlier line writes after it; a given
      that is the only one of its value needs none; an earlier result always does);
    * the step's value said again under other words ("11 years of vacations, so he has 11 rows
      of blocks"): the clause that says it again goes;
    * a "1" of a unit no step computes ("12 inches in 1 foot") is written.

    Anything else (a '?' whose words match no number the step uses, or match two) is no
    rule-made key information: :class:`KeyInfoError` with the reason."""
    marks = [(m.start(), m.end(), ord(m.group(1)) - _MARK0) for m in _MARKED.finditer(desc)]
    if len(marks) <= 1 or getattr(st, "expr", None) is None:
        return _UNMARK.sub("", desc)
    from qcstation.core.construct.check.bindings import expr_names
    from qcstation.core.reading.words import ANNOTATION, line_stems, result_words

    names = expr_names(st.expr)
    by_name = {x.name: x for x in before}
    places = {str(g.get("name")): g for g in givens}
    # what each use of a value may be: (what is written for it, the words said after it)
    options: dict[Fraction, list[tuple[str, str, set[str]]]] = {}
    line_words: dict[str, set[str]] = {}  # every content word of an earlier result's line
    for n in sorted(names):
        if n in by_name:
            ref = by_name[n]
            prose = ANNOTATION.sub(" ", str(getattr(ref, "line", "") or ""))
            # the words after its result, and those its name was made of ("s3_fish")
            options.setdefault(Fraction(ref.result), []).append(
                ("ref", label[n], set(result_words(prose, Fraction(ref.result))) | _name_words(n)))
            line_words[label[n]] = set(line_stems(prose))
        elif n in given_value:
            span = places.get(n, {}).get("span")
            words: set[str] = set()
            if isinstance(span, list) and len(span) == 2 and all(isinstance(x, int) for x in span):
                words = _words_near(question, span[1], question[max(0, span[0] - 1):span[0]] == "$") \
                    | _words_before(question, span[0])
            options.setdefault(given_value[n], []).append(("given", n, words))
        elif n.startswith("k_"):
            from qcstation.core.construct.make.rules.constants import factor_value
            from qcstation.core.reading.words import stem

            if factor_value(n) is not None:
                options.setdefault(Fraction(factor_value(n) or 0), []).append(
                    ("given", n, {stem(w) for w in n.split("_")[1:] if w not in ("per", "of", "in", "a")}))
    said_again: list[int] = []      # the places of the step's own value
    writes: dict[int, str] = {}
    # how often the step uses each name: a use the words already chose is no option for a
    # later '?' of its value ("cost $12 per pair ... buy 12 pairs", 507: the $12 is the price by
    # its words, so the other 12 is the step's other use of that value, Q2's pairs)
    from qcstation.core.reading.expr import Name, atoms

    left = Counter(a.name for a in atoms(st.expr) if isinstance(a, Name))
    for k, (a, b, idx) in enumerate(marks):
        blank = blanks[idx]
        v = blank.value
        if v == own and blank.kind == "result":
            said_again.append(k)
            continue
        if blank.kind == "written" and (desc[b:b + 1] == "/" or desc[max(0, a - 1):a] == "/"):
            # "?/Q3 are to her boyfriend": a part of a fraction, no quantity of its own
            raise KeyInfoError(f"{label[st.name]} would read with a blank inside a fraction: "
                               f"{_UNMARK.sub('', desc)[:90]!r}")
        cands = [o for o in (options.get(v, []) if v is not None else [])
                 if (o[0] == "ref" or blank.kind == "written") and left[_use_name(o, label)] > 0]
        if cands:
            near = _words_near(desc, b, desc[max(0, a - 1):a] == "$" or blank.written.startswith("$"))
            scores = [len(near & o[2]) for o in cands]
            best = max(scores)
            pick = None
            # the only number of its value the step uses: a given, or an earlier result whose
            # value the question does not state (no given of the story can be meant)
            if len(cands) == 1 and (cands[0][0] == "given" or v not in stated):
                pick = cands[0]
            elif best and scores.count(best) == 1:
                pick = cands[scores.index(best)]
            if pick is None:
                pick = _by_its_line(desc, a, b, near, cands, line_words)
            if pick is not None:
                writes[k] = pick[1] if pick[0] == "ref" else blank.written
                left[_use_name(pick, label)] -= 1
                continue
        if v == own:
            said_again.append(k)
        elif v == 1 and blank.kind == "written" and _ONE_UNIT.match(desc, b):
            writes[k] = blank.written
        else:
            what = blank.written or "a computed value"
            raise KeyInfoError(f"{label[st.name]} would read with more than one blank: the '?' for {what!r} in "
                               f"{_UNMARK.sub('', desc)[:90]!r} stands for no number its step uses by its words")
    cut = len(desc)
    head = 0
    if len(said_again) > 1:
        first, second = marks[said_again[0]][1], marks[said_again[1]][0]
        starts = [m.start() for m in _CLAUSE_START.finditer(desc, first, second)]
        main = _MAIN_AFTER_PREMISE.match(desc, first) if _PREMISE_OPENS.match(desc) else None
        rest = desc[starts[-1]:].lstrip(",;: ") if starts else ""
        glued = re.match(r"[A-Za-z%-]", desc[marks[said_again[0]][1]:])  # "the ?st period", "At ?pm", "a ?-person cake"
        if starts and [blanks[marks[k][2]].kind for k in said_again] == ["written", "result"] \
                and (own in stated or glued) and not re.match(r"(?:because|since|as)\b", rest, re.I):
            # "By buying 3 at once ..., she can save $30-$27 = $3" (train 1942): the computing clause
            # says it; the question's 3 (pairs), or an index glued to its word, is no saying of it again
            head = len(desc) - len(rest)
        elif starts:
            cut = starts[-1]
        elif main is not None and main.end() <= second:
            # "Since 100 cents = $1 she spends $1 everyday" (359): the premise (a unit's
            # conversion) goes, the main clause after it says the step's value
            head = main.start(1)
        else:
            raise KeyInfoError(f"{label[st.name]} would read with two blanks for its own value: "
                               f"{_UNMARK.sub('', desc)[:90]!r}")
    out = []
    pos = head
    for k, (a, b, _) in enumerate(marks):
        if a < head:
            continue
        if a >= cut:
            break
        out.append(desc[pos:a])
        out.append(writes.get(k, "?"))
        pos = b
    tail = desc[pos:cut]
    text = "".join(out) + tail
    if cut < len(desc):
        text = text.rstrip(" ,;:") + ("." if desc.rstrip().endswith(".") else "")
    if head:
        text = text[:1].upper() + text[1:]
    return _UNMARK.sub("", text)


#: a description that opens with a premise ("Since 100 cents = $1 ..."), and the subject that
#: starts its main clause right after the premise's last value ("... = ? she spends ...")
_PREMISE_OPENS = re.compile(r"(?:since|because|as)\s", re.I)
_MAIN_AFTER_PREMISE = re.compile(r",?\s+((?:he|she|they|it|we|i|you)\s+[a-z]+)", re.I)


_RESULT_AFTER_EQUALS = re.compile(r"=\s*[$€£]?\s*(-?\d[\d,]*(?:\.\d+)?)")
_SPACES = re.compile(r"\s+")
