"""The written forms of an unknown's description that read as no sentence to an annotator,
mended by the solution's and the question's own words (for :mod:`.unknowns`): the words a line
writes between a computation's "=" and its result ("= shoe size <<5*5=25>>25", "= in
<<80/10=8>>8 more weeks"), the solution's letter term before a blank ("there were 2V = ?
votes"), a name and its blank ("Cho ? km") said with the verb of the question's one sentence
that states the step's givens ("Cho hiked ? km"), an earlier result's conversion ("Q2 minutes = ? hours"), the blank alone after the sentence that says
what it is, and the value asked for said by its blank alone ("And ?") in the unit the question
asks for ("? points"); a unit as the question writes it (an inch sign kept with its blank, "? per
month" for a rate whose money sign went, a rate multiplied by a count of what it is per said
without it), the blank after a sentence asking how many labelled by it; an opening phrase that
writes a word given as a number before another noun than the question's ("To make 4 brownies"
for "a quadruple batch") cut, and the value asked for said of the person whose age the question
asks. Anything else is left as written. Also the two sides of the equation an algebra step asserts
(:func:`equation_sides`), which :mod:`.unknowns` relates by.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["equation_sides", "lone_blank", "mended", "restored_words", "said_by_question", "words_before_result", "written_units"]


#: a sentence that says what the step's value is ("The cost of the house is 3/4 of the total
#: cost, which is $120,000."), then the blank alone as a sentence of its own (its computation went)
_LONE_BLANK = re.compile(r"(?P<subject>[A-Z][^.?!,;:=\d]{2,80}?\s(?:is|are|was|were))\s[^?]*?[.!]\s+\?")


def lone_blank(desc: str) -> str:
    """A description whose blank stands alone after a sentence that says what it is: the
    sentence's subject is the blank's words ("The cost of the house is ?", 515: it read "... of the
    total cost, which is $120,000. ?"); any other description is left as it is."""
    m = _LONE_BLANK.fullmatch(desc)
    return f"{m.group('subject')} ?" if m else desc


#: words between a computation's "=" and the annotation of its result: a unit said before its
#: number ("= shoe size <<", 984) or a preposition ("= in <<", 1079); never a number or an operator
_WORDS_BEFORE_RESULT = re.compile(r"(?<==)(\s*)((?:[A-Za-z]+\s+){1,3})$")


def words_before_result(before: str) -> tuple[str, str]:
    """``before`` (the line up to a result's annotation) less the words its computation's "="
    is followed by, and those words: "Charlie wears 5 * shoe size 5 = shoe size " ->
    ("Charlie wears 5 * shoe size 5 =", "shoe size "). ("", "") where no words stand there."""
    m = _WORDS_BEFORE_RESULT.search(before)
    if m is None:
        return before, ""
    return before[:m.start()], m.group(2)


def restored_words(before: str, words: str) -> str:
    """The words :func:`words_before_result` took, put back before the blank unless the line as
    cut already ends with them ("is shoe size 30/2 = shoe size <<": "is shoe size ?")."""
    if not words or before.rstrip().lower().endswith(words.strip().lower()):
        return ""
    return words


#: the solution's letter term right before its blank ("there were 2V = ? votes", 757)
_LETTER_TERM = (r"(?<![\w.])(?:\d+(?:\.\d+)?\s*{letter}(?:\s*[-+*/]\s*\d+(?:\.\d+)?)?"
                r"|{letter}\s*[-+*/]\s*\d+(?:\.\d+)?)\s*=\s*(?=\?)")
#: a name and its blank, then a unit ("Cho ? km", 382), and the verb of a sentence opened by it
_NAME_BLANK = re.compile(r"(?!(?:And|But|Or|So|Then|Thus|Therefore|This|That|It|He|She|They|We|There)\b)"
                         r"(?P<name>[A-Z][a-z]+(?:\s[A-Z](?![a-z]))?)\s+\?\s+(?P<unit>[a-z]+)\.?")
#: an earlier result converted, its "=" gone with the computation ("900 minutes = <<900/60=15>>15
#: hours", 854: "Q2 minutes ? hours")
_CONVERSION = re.compile(r"(Q\d+) ([a-z]+) \? ([a-z]+)\.?")
#: a description that says nothing but its blank ("And ?", 448) and the unit the question asks for
_BARE = re.compile(r"(?:(?:and|so|then|thus)\s+)?\?\.?", re.I)
_ASKS_UNIT = re.compile(r"\bhow\s+many\s+([a-z]+)\b(?![^?]*\bhow\s+many\b)[^?]*\?", re.I)


def mended(desc: str, st: Any, givens: list[dict[str, Any]], question: str, letters: list[tuple[str, str]],
           last: bool) -> str:
    """``desc`` mended where its form reads as no sentence (see the module's docstring)."""
    desc = written_units(said_by_question(desc, givens, question, last), str(getattr(st, "line", "") or ""),
                         question)
    desc = _per_time_converted(desc, getattr(st, "expr", None))
    for letter, _ in letters:
        desc = re.sub(_LETTER_TERM.format(letter=re.escape(letter)), "", desc)
    conversion = _CONVERSION.fullmatch(desc)
    if conversion is not None and conversion.group(2) != conversion.group(3):
        return f"{conversion.group(1)} {conversion.group(2)} = ? {conversion.group(3)}"
    m = _NAME_BLANK.fullmatch(desc)
    if m is not None:
        verb = _verb_of(m.group("name"), st, givens, question)
        # (no sentence says it: the name is the label of its blank, "Rug: ? feet", 504)
        return f"{verb} ? {m.group('unit')}" if verb else f"{m.group('name')}: ? {m.group('unit')}"
    for letter, words in letters:
        # "This means B = 60 - 24 = <<...>>36" (1137): the letter alone is what the solution lets it be
        if re.fullmatch(rf"(?:(?:this means|so|thus|then|therefore),?\s+)?{re.escape(letter)}\s*=?\s*\?\.?", desc,
                        re.I) and words:
            return f"{words[:1].upper()}{words[1:]} is ?"
    if last and _BARE.fullmatch(desc.strip()):
        asks = list(_ASKS_UNIT.finditer(question[:20_000]))
        if len(asks) == 1:
            return f"? {asks[0].group(1).lower()}"
    return desc


def _verb_of(name: str, st: Any, givens: list[dict[str, Any]], question: str) -> str:
    """The words that open the one sentence of the question opened by ``name`` (or "On/In" it), up
    to its verb, where that sentence states a given the step computes with ("Cho hiked" of "Cho
    hiked 14 kilometers per hour for 8 hours." for 14 * 8; "On Tuesday they delivered" of "On
    Tuesday they delivered 17 more than one-fifth as many as Monday."); "" otherwise."""
    from qcstation.core.reading.clauses import is_verb_form, sentences
    from qcstation.core.reading.expr import expr_names

    expr = getattr(st, "expr", None)
    if expr is None:
        return ""
    spans = {str(g.get("name")): g.get("span") for g in givens}
    used = [s for s in (spans.get(n) for n in expr_names(expr))
            if isinstance(s, list) and len(s) == 2 and all(isinstance(x, int) for x in s)]
    opens = re.compile(rf"\s*((?:(?:On|In)\s+)?{re.escape(name)}\s+(?:(?:he|she|they|it|we)\s+)?([a-z]+))\b")
    found = [s for s in sentences(question[:20_000]) if opens.match(s)]
    at = question.find(found[0]) if len(found) == 1 else -1
    if at < 0 or not any(at <= int(s[0]) and int(s[1]) <= at + len(found[0]) for s in used):
        return ""
    verb = opens.match(found[0])
    return verb.group(1) if verb and is_verb_form(verb.group(2)) else ""


#: an inch or foot sign the blank's value was written with ('70" tall', 1293: '? " tall')
_SIGN_AFTER_BLANK = re.compile(r"\?\s+([\"'″′])(?=\s|$|[.,;])")
#: a sentence that asks what the blank is, then the blank and its unit as a sentence of their own
#: ("First find how many boxes Nik needs. ? boxes.", 1131)
#: (read as :func:`_asked_then_blank`: the regex, tried whole, took each "how many" of a long
#: sentence as its own and read the rest again from there, quadratic)
_ASKED_THEN_BLANK = re.compile(r"(?P<asks>[^.?!]*\bhow\s+(?:many|much|long|far)\b[^.?!:]*)\.\s+(?P<blank>\?\s+[a-z][^.?!]*?)\.?")
_HOW_MANY = re.compile(r"\bhow\s+(?:many|much|long|far)\b")
_THEN_BLANK = re.compile(r"\.\s+(?P<blank>\?\s+[a-z][^.?!]*?)\.?")
_STOP = re.compile(r"[.?!]")
#: a unit per something whose sign of money went with the computation ("? /month", 174)
_PER_AFTER_BLANK = re.compile(r"\?\s+/([a-z]+)\b")
_SHORT_UNITS = {"hr": "hour", "hrs": "hour", "min": "minute", "wk": "week", "yr": "year", "mo": "month"}
#: a unit per something after the blank ("? pounds/day")
_RATE_AFTER_BLANK = re.compile(r"\?\s+([a-z]+)/([a-z]+)\b")


def _asked_then_blank(desc: str) -> tuple[str, str] | None:
    """The groups ``asks`` and ``blank`` of ``_ASKED_THEN_BLANK.fullmatch(desc)``, in one pass:
    ``asks`` holds no stop, so it runs to the first one, which must be the "." before the blank;
    it must write "how many" (much, long, far) with no ":" after it, and its last one has the
    last end."""
    stop = _STOP.search(desc)
    if stop is None or stop.group() != ".":
        return None
    asks = desc[:stop.start()]
    if _HOW_MANY.search(desc, asks.rfind(":") + 1, stop.start()) is None:
        return None
    then = _THEN_BLANK.fullmatch(desc, stop.start())
    return (asks, then.group("blank")) if then is not None else None


def written_units(desc: str, line: str, question: str) -> str:
    """A blank's unit as the question would write it: an inch sign kept with its blank ('? " tall'
    -> '?" tall', where the question writes the sign after a number); a sentence that asks how
    many, then its blank as a sentence of its own, the blank's label ("First find how many boxes
    Nik needs: ? boxes", as the solution's other lines write it); a rate whose money sign went
    ("? /month") said "per month"; a rate ("? pounds/day") whose line multiplies by a number of
    what it is per ("1440 pounds/day * 30 days", 1027: the total is no rate) said without it."""
    if re.search(r"\d[\"″]", question[:20_000]):
        desc = _SIGN_AFTER_BLANK.sub(r"?\1", desc)
    asked = _asked_then_blank(desc)
    if asked is not None:
        desc = f"{asked[0]}: {asked[1]}"
    desc = _PER_AFTER_BLANK.sub(lambda m: f"? per {_SHORT_UNITS.get(m.group(1), m.group(1))}", desc)
    rate = _RATE_AFTER_BLANK.search(desc)
    if rate is not None:
        per = rate.group(2)
        computation = line.split("=")[0]
        if re.search(rf"[*x×]\s*\d[\d,.]*\s+{re.escape(per)}s?\b", computation):
            desc = desc[:rate.start()] + f"? {rate.group(1)}" + desc[rate.end():]
    return desc


#: an opening phrase of the solution's ("To make 4 brownies, ") before the rest of its sentence
_OPENING_PHRASE = re.compile(r"(?P<phrase>(?:To|For|In order to)\s[^,?]{1,60}),\s+(?P<rest>[A-Za-z][^?]*\?.*)")
#: the question asks one person's age ("How old is Jim?"), and the blank's clause says another's
_HOW_OLD = re.compile(r"\bhow\s+old\s+(?:is|was|will)\s+([A-Z][a-z]+)\b")
_SUBJECT_IS = re.compile(r"\b([A-Z][a-z]+)(?=\s+(?:is|was|will\s+be)\s+(?:now\s+)?\?)")


def said_by_question(desc: str, givens: list[dict[str, Any]], question: str, last: bool) -> str:
    """``desc`` where the solution's words say what the question does not: an opening phrase that
    writes a number the question writes only as a word, before another noun than the word's ("To
    make 4 brownies, Mark needs: ?" for "a quadruple batch of brownies", 403) goes ("Mark needs:
    ?"); the value asked for said of another person than the one whose age the question asks
    ("That means John is now ?" for "How old is Jim?", 1189: the solution's slip) names the
    question's ("That means Jim is now ?")."""
    opening = _OPENING_PHRASE.fullmatch(desc)
    if opening is not None:
        for g in givens:
            span, name = g.get("span"), str(g.get("name", ""))
            if not name.startswith("w_") or not isinstance(span, list) or len(span) != 2:
                continue
            try:
                value = Fraction(str(g["value"]))
            except (KeyError, ValueError, ZeroDivisionError):
                continue
            if value.denominator != 1 or re.search(rf"(?<![\d.,]){value}(?![\d.,])", question[:20_000]):
                continue
            noun = re.match(r"\s*(\w+)", question[int(span[1]):int(span[1]) + 40])
            said = re.search(rf"(?<![\d.,]){value}\s+(\w+)", opening.group("phrase"))
            if said is not None and noun is not None and _stem(said.group(1)) != _stem(noun.group(1)):
                rest = opening.group("rest")
                return rest[:1].upper() + rest[1:]
    if last:
        asked = _HOW_OLD.findall(question[:20_000])
        subject = _SUBJECT_IS.search(desc)
        if len(set(asked)) == 1 and subject is not None and subject.group(1) != asked[0] \
                and asked[0] not in desc and re.search(rf"\b{subject.group(1)}\b", question[:20_000]):
            return desc[:subject.start()] + asked[0] + desc[subject.end():]
    return desc


def _stem(word: str) -> str:
    """A noun's singular, roughly ("batches", "batch" -> "batch"; "brownies" -> "browni")."""
    w = word.lower()
    return w[:-2] if w.endswith(("ches", "shes", "sses", "xes")) else w[:-1] if w.endswith("s") else w


_TIMES_OF = ("minute", "hour", "day", "week", "month", "year")
#: a named constant of one time unit per another ("k_days_per_week")
_TIME_FACTOR = re.compile(r"k_(minute|hour|day|week|month|year)s_per_(minute|hour|day|week|month|year)")


def _per_time_converted(desc: str, expr: Any) -> str:
    """A rate the step multiplies by a named count of its time unit per a longer one ("9*7" for
    k_days_per_week) is a rate per that longer unit: "they eat ? tomatoes a day" (235, the
    solution's slip; the step before it said the same) is "? tomatoes a week". Only a product of
    the rate and the one constant, only "a/per/each <unit>" right after the blank's words, and
    only where the line names no rate per a time unit before the blank."""
    from qcstation.core.reading.expr import BinOp, Name

    if not isinstance(expr, BinOp) or expr.op != "*":
        return desc
    names = [e.name for e in (expr.left, expr.right) if isinstance(e, Name)]
    factors = [m for m in (_TIME_FACTOR.fullmatch(n) for n in names) if m is not None]
    if len(factors) != 1:
        return desc
    short, long = factors[0].group(1), factors[0].group(2)
    said = re.search(rf"(\?(?:\s+[a-z]+){{0,3}}\s+)(a|per|each)\s+{short}\b", desc)
    if said is None or _TIMES_OF.index(short) >= _TIMES_OF.index(long):
        return desc
    # ("With a speed of 20 kb per second, there are ? kb per minute", 627: the line's own rate is
    # per another unit than the constant's, whose name is then no reading of it)
    if re.search(r"\b(?:a|per|each)\s+(?:second|minute|hour|day|week|month|year)\b", desc[:said.start()]):
        return desc
    return desc[:said.start()] + f"{said.group(1)}{said.group(2)} {long}" + desc[said.end():]


def equation_sides(st: Any) -> tuple[Any, Any] | None:
    """The two sides of the equation a step asserts (the ``gsm8k-algebra`` rule's unknown:
    ``(= (+ x x g1) g2)``), or None."""
    from qcstation.common.errors import QCStationError
    from qcstation.core.construct.make.notation import _term
    from qcstation.core.verify.smtlib import SList, Token, parse_script

    sexpr = str(getattr(st, "sexpr", "") or "")
    if not sexpr.startswith("(= ") or len(sexpr) > 4000:
        return None
    names = sorted(set(_SYMBOL.findall(sexpr)))
    try:
        script = parse_script("".join(f"(declare-const {n} Real)\n" for n in names) + f"(assert {sexpr})\n")
        node = script.commands[-1].node.items[1]
        if not (isinstance(node, SList) and len(node.items) == 3 and isinstance(node.items[0], Token)
                and node.items[0].text == "="):
            return None
        consts = {n: "Real" for n in names}
        return _term(node.items[1], consts), _term(node.items[2], consts)
    except (QCStationError, ValueError, IndexError, AttributeError, RecursionError):
        return None


_SYMBOL = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*")
