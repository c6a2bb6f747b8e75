"""The words that tell the unknowns of rule-made key information apart (:mod:`.unknowns` names
each step's result Q1, Q2, ... by its line's words): two unknowns never read with the same words;
each takes the words its own computation writes after a number, or the phrase that opens the line
it points back to, or the draft is refused. The solution's letter for an unknown is noted only
where another unknown's words write it; an unknown never keeps a percent the question says
otherwise (:func:`no_percent_the_question_contradicts`), nor a number, a comparison or a blank the
question contradicts (:func:`descriptions_true_to_question`, which :mod:`.unknowns` calls). Also the written forms of a computation
both read (:data:`WORDED_EXPR`, :data:`TRAILING_EQUALS`), and whether a claim its line justifies
writes the step's result though an operand has the same value (:func:`claim_states_result`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.reading.slips import question_counts, slip_in
from qcstation.core.reading.textnumbers import ANNOT_WITH_RESULT_RE as _ANNOT_WITH_RESULT

__all__ = ["TRAILING_EQUALS", "WORDED_EXPR", "claim_states_result", "descriptions_true_to_question", "letters_unused", "no_percent_the_question_contradicts", "own_sentences",
           "told_apart", "worded_expr"]


#: a claim the line justifies after it ("He removed 5 vampires from town because 25 / 5 = ...")
_CLAIM_BECAUSE = re.compile(r"\s*,?\s+(?:because|since)\s+(?:\$?\d|\.\d|\()")


def claim_states_result(line: str, desc: str, start: int, end: int, value: Fraction, question: str) -> bool:
    """Is the number at ``desc[start:end]`` (of ``value``, the step's result) the result, though the
    step computes with an operand of the same value? Only where the description is the claim its
    line states before justifying it ("He removed 5 vampires from town because 25 / 5 = <<25/5=5>>5":
    the claim says what the computation gives, 817) and the words after the number are not the
    words the question states that value with ("5 vampires", the question's "$5 per vampire"; "Each
    of the 5 friends gets cookies because 25 / 5" writes the question's "5 friends": the operand)."""
    from qcstation.core.reading.words import stated_with_words

    at = line.find(desc)
    if at < 0 or not _CLAIM_BECAUSE.match(line, at + len(desc)):
        return False
    return not stated_with_words(desc, start, end, value, question)


# a number phrase ("24 books", "$2 per bottle of bleach", "65-minute concert"), an operator,
# and the rest of the computation up to its "="
WORDED_EXPR = re.compile(r"(?<![\w.,])\$?\d[\d,]*(?:\.\d+)?%?(?:-[a-z]+)?(?:\s+[^\s\d.;:=?!,+\-–−×*/]+(?:/[a-z]+)?){0,6}"
                         r"\s+[-+–−×x*/]\s(?:(?!, )(?:[^.;:=?!]|(?<=\d)\.(?=\d)))*$")
# a place its tail cannot pass: ", " or one of .;:=?! (a "." only between digits); the last one
_TAIL_STOP = re.compile(r"(?s).*(, |[;:=?!]|\.(?<!\d\.)|\.(?!\d))")


def worded_expr(text: str) -> re.Match[str] | None:
    """``WORDED_EXPR.search(text)`` in time linear in ``text``. Its tail runs to the text's end
    past no ", " and no [.;:=?!] (but a decimal point), and its number and words before the
    operator hold such a place only inside the number it opens with: so it starts after the
    last such place, or in the run of digits, ",", "." and "$" that holds it. Searched from
    there (before, from every number of a text it read the rest of the text again)."""
    stop = _TAIL_STOP.match(text)
    start = 0 if stop is None else stop.start(1)
    while start and (text[start - 1].isdigit() or text[start - 1] in ",.$"):
        start -= 1
    return WORDED_EXPR.search(text, start)
#: what a line writes between a computation and its annotation ("... = $<<")
# read from the start of its run only (from inside it, the rest of the run again each time)
TRAILING_EQUALS = re.compile(r"(?<![\s$€£=])[\s$€£=]+$")


#: the note that names the solution's letter for an unknown ("Number of losses (L in the solution) is ?")
_LETTER_NOTE = re.compile(r" \(([A-Za-z]) in the solution\)")


def letters_unused(unknown: list[str]) -> list[str]:
    """The solution's letter is noted beside its unknown only where another unknown's words write
    it; where none does, the note names what no reader of the key information sees ("Number of
    tennis balls Rory retrieved in the third set (B in the solution) is ?", 1048)."""
    out = []
    for i, u in enumerate(unknown):
        m = _LETTER_NOTE.search(u)
        if m is not None and not any(re.search(rf"(?<![A-Za-z']){m.group(1)}(?![A-Za-z'])", o.partition(": ")[2])
                                     for j, o in enumerate(unknown) if j != i):
            u = u[:m.start()] + u[m.end():]
        out.append(u)
    return out


#: a label of another step's result, as the unknowns write it where its value stands
_Q_LABEL = re.compile(r"(?<![\w.])Q(\d+)(?![\w])")


def own_sentences(unknown: list[str]) -> list[str]:
    """Each unknown cut to the sentences that hold its own blank: a line that computes two steps in
    two sentences ("24/3 = 8. On Wednesday there was 2*8 = 16 feet of water", 161) describes each
    by its own sentence, never as a run-on with the other's label ("Q2: ?. On Wednesday there was
    Q3 feet ..."). A sentence that writes another step's label and no blank is dropped; one
    with neither stays. Refused (:class:`KeyInfoError`) where what is left still names a later
    step ("the second runner will take ? seconds, then the third will take Q3 seconds", 184: its
    blank and the next are one sentence) or has no words of its own."""
    from qcstation.core.reading.clauses import sentences

    out = []
    for i, u in enumerate(unknown):
        label, sep, desc = u.partition(": ")
        if not sep or not _Q_LABEL.search(desc):
            out.append(u)
            continue
        # (a blank is no end of a sentence: "? more people are infected")
        parts = sentences(desc[:4000].replace("?", "\x00"))
        kept = " ".join(p for p in parts if "\x00" in p or not _Q_LABEL.search(p)).replace("\x00", "?")
        later = [m.group(0) for m in _Q_LABEL.finditer(kept) if int(m.group(1)) > i + 1]
        if later:
            raise KeyInfoError(f"{label} would read as a run-on: {kept[:90]!r} (its sentence also holds "
                               f"{later[0]}, a later step's result)")
        if not re.search(r"[A-Za-z]{2}", _Q_LABEL.sub("", kept)):
            raise KeyInfoError(f"{label} would read with no words: {kept[:90]!r} (its sentence writes only "
                               f"its computation)")
        out.append(f"{label}: {kept}")
    return out


def told_apart(unknown: list[str], steps: list[Any], givens: list[dict[str, Any]] | None = None,
               question: str = "") -> list[str]:
    """Two unknowns never read with the same words ("Q2: Olivia had ? pictures." twice, 1018): each
    takes the words its own line's computation writes after a number where the other's writes
    others ("3 selfie albums * 9 pictures" / "2 portrait albums * 9 pictures": "(for the selfie
    albums)", "(for the portrait albums)"). Where the lines write no such words ("1000-356=644
    times" / "1000-135=865 times", 621) and the unknowns point back to no lines that open with
    different phrases (:func:`_pointed_back`, 1123), nor count different things of the question
    (:func:`_counted_phrases`, 854), they cannot be told apart by the words: no rule-made key information (:class:`KeyInfoError`), never a qualifier made up."""
    bodies = [u.partition(": ")[2] for u in unknown]
    groups: dict[str, list[int]] = {}
    for i, b in enumerate(bodies):
        if b.strip(" ."):
            groups.setdefault(b.strip(" .").lower(), []).append(i)
    out = list(unknown)
    for idx in (g for g in groups.values() if len(g) > 1):
        phrases = [_operand_phrases(steps[i]) if i < len(steps) else [] for i in idx]
        own = [[p for p in mine if not any(p in theirs for m, theirs in enumerate(phrases) if m != j)]
               for j, mine in enumerate(phrases)]
        if not all(len(m) == 1 for m in own):
            pointed = _pointed_back(idx, bodies, steps)
            if pointed is not None:
                for i, phrase in zip(idx, pointed):
                    body = bodies[i].rstrip()
                    stop = "." if body.endswith(".") else ""
                    out[i] = f"{unknown[i].partition(': ')[0]}: {body[:len(body) - len(stop)]} ({phrase}){stop}"
                continue
        counted = _counted_phrases(idx, bodies, steps, givens or [], question) if not all(len(m) == 1 for m in own) \
            else None
        if counted is not None:
            for i, phrase in zip(idx, counted):
                body = bodies[i].rstrip()
                stop = "." if body.endswith(".") else ""
                out[i] = f"{unknown[i].partition(': ')[0]}: {body[:len(body) - len(stop)]} (for {phrase}){stop}"
            continue
        if not all(len(m) == 1 for m in own):
            labels = " and ".join(unknown[i].partition(": ")[0] for i in idx)
            raise KeyInfoError(f"{labels} would read with the same words: {bodies[idx[0]][:90]!r} (no words "
                               "of their lines' computations tell them apart)")
        for i, m in zip(idx, own):
            body = bodies[i].rstrip()
            stop = "." if body.endswith(".") else ""
            out[i] = f"{unknown[i].partition(': ')[0]}: {body[:len(body) - len(stop)]} (for the {m[0]}){stop}"
    for i, b in enumerate(bodies[:-1]):  # (the value asked for is named by the goal)
        if _UNIT_ALONE.fullmatch(b.strip()) and len(groups.get(b.strip(" .").lower(), [])) == 1:
            said = _counted_phrases([i], bodies, steps, givens or [], question) \
                or _opened_by(steps[i] if i < len(steps) else None, givens or [], question) \
                or _other_phrase(steps[i] if i < len(steps) else None, b)
            if said:
                out[i] = f"{unknown[i].partition(': ')[0]}: {b.rstrip(' .')} (for {said[0]})"
    return out


#: an unknown described by its blank and unit alone ("? km", 1051; "? tablespoons", 670)
_UNIT_ALONE = re.compile(r"\?\s+[a-z]+\.?")
#: a sentence's opening phrase that says per what it states its numbers ("For every muffin, ...")
_PER_OPENING = re.compile(r"\s*for\s+((?:every|each)\s+[a-z]+(?:\s[a-z]+)?)\s*,", re.I)


def _opened_by(st: Any, givens: list[dict[str, Any]], question: str) -> list[str] | None:
    """The phrase that opens the one sentence of the question stating every given a step computes
    with, where it says per what ("For every muffin, Svetlana needed 5 tablespoons of flour, 3
    tablespoons of sugar, and 0.25 of a tablespoon of salt" for 5 + 3 + 0.25, 670: "every
    muffin"); None for a step that uses an earlier result or a constant, or givens of two sentences."""
    from qcstation.core.reading.clauses import sentences
    from qcstation.core.reading.expr import expr_names

    expr = getattr(st, "expr", None)
    spans = {str(g.get("name")): g.get("span") for g in givens}
    used = [spans.get(n) for n in expr_names(expr)] if expr is not None else []
    if not used or not all(isinstance(s, list) and len(s) == 2 and all(isinstance(x, int) for x in s) for s in used):
        return None
    for sentence in sentences(question[:20_000]):
        at = question.find(sentence)
        if at >= 0 and all(at <= s[0] and s[1] <= at + len(sentence) for s in used if isinstance(s, list)):
            m = _PER_OPENING.match(sentence)
            return [" ".join(m.group(1).lower().split())] if m else None
    return None


def _other_phrase(st: Any, body: str) -> list[str] | None:
    """The one thing the line's computation writes after its numbers that is not the blank's
    unit ("25 boxes * 8 ounces per box = <<25*8=200>>200 ounces", 1131: "? ounces" for "the
    boxes"); None where none or several are."""
    from qcstation.core.reading.words import stem

    unit = re.match(r"\?\s+([a-z]+)", body)
    if st is None or unit is None:
        return None
    others = [p for p in _operand_phrases(st) if stem(p.split()[0]) != stem(unit.group(1))]
    return [f"the {others[0]}"] if len(others) == 1 and len(others[0].split()) <= 3 else None


#: a description that points back to the line before it ("This is a total of ? toys."), and the
#: phrase that opens a line, said of what it computes ("In the first group of workers, ...")
_POINTS_BACK = re.compile(r"(?:this|that|these|those|it)\b", re.I)
_OPENING_PHRASE = re.compile(r"((?:in|on|for|at|during|from|after|before|with)\s[^,.;:!?=\d]{3,60}),\s", re.I)


def _pointed_back(idx: list[int], bodies: list[str], steps: list[Any]) -> list[str] | None:
    """Unknowns that read with the same words, each pointing back ("This is a total of ? toys.")
    to the result of the step right before it, which it computes with: each is said of the phrase
    that opens that step's line ("In the first group of workers, each produces 6 toys * 10 hours"
    / "In the second group of workers, ...", 1123), where those phrases differ. None otherwise."""
    from qcstation.core.reading.expr import expr_names

    out: list[str] = []
    for i in idx:
        expr = getattr(steps[i], "expr", None) if 0 < i < len(steps) else None
        if expr is None or not _POINTS_BACK.match(bodies[i]) or steps[i - 1].name not in expr_names(expr):
            return None
        m = _OPENING_PHRASE.match(str(getattr(steps[i - 1], "line", "") or "")[:200])
        if m is None:
            return None
        phrase = " ".join(m.group(1).split())
        out.append(phrase[:1].lower() + phrase[1:])
    return out if len({p.lower() for p in out}) == len(out) else None


#: a number and the words its computation writes after it ("3 selfie albums", "2 yards of material")
_OPERAND_PHRASE = re.compile(r"\$?\d[\d,]*(?:\.\d+)?%?\s+([a-z][a-z' -]*[a-z])", re.I)
_OPERATOR_SPLIT = re.compile(r"\s[-+*/×x÷]\s")


def _operand_phrases(st: Any) -> list[str]:
    """The words the line's first computation writes after each of its numbers, in order
    ("Olivia had 3 selfie albums * 9 pictures = <<3*9=27>>27" -> ["selfie albums", "pictures"]);
    none for a computation of bare numbers."""
    line = str(getattr(st, "line", "") or "")[:2000]
    m = _ANNOT_WITH_RESULT.search(line)
    if m is None:
        return []
    head = TRAILING_EQUALS.sub("", line[:m.start()])
    w = worded_expr(head + " ")
    if w is None:
        return []
    out = []
    for term in _OPERATOR_SPLIT.split(w.group(0).strip()):
        p = _OPERAND_PHRASE.fullmatch(term.strip())
        if p is not None:
            out.append(" ".join(p.group(1).lower().split()))
    return out


#: the words after a number of the question that say what it counts ("90 rooms", "one-half of the
#: rooms"): a noun, then "of" and its noun phrase; never a verb or a phrase ("20 minutes to clean")
_COUNTED = re.compile(r"\s+(?!(?:each|per|more|less|fewer|times|of|to|a|an|the|and|or|in|at|on|for)\b)([a-z]+)"
                      r"((?:\s+of\s+(?:the\s+|his\s+|her\s+|their\s+)?[a-z]+)?)")
#: a word given that divides by its parts ("one-half" as / 2): the share of what it is said of
_SHARE = re.compile(r"(?:one[- ])?(?:half|third|quarter)", re.I)
#: a unit's abbreviation the solution writes for the question's word ("1300 km" for "325 kilometers")
_UNIT_NAMES = {"km": "kilometers", "mi": "miles", "hr": "hours", "hrs": "hours", "min": "minutes", "mins": "minutes",
               "lb": "pounds", "lbs": "pounds", "oz": "ounces", "ft": "feet", "cm": "centimeters", "m": "meters",
               "kg": "kilograms", "g": "grams"}
_SHARE_OF = re.compile(r"\s+of\s+(?:(?:the|his|her|their)\s+)?([a-z]+)")


def _counted_phrases(idx: list[int], bodies: list[str], steps: list[Any], givens: list[dict[str, Any]],
                     question: str) -> list[str] | None:
    """Unknowns that read with the same words ("? minutes", 854) whose steps each multiply by one
    number of the question that counts something other than the blank's unit ("90 * 20 = 1800
    minutes" for "90 rooms" and "20 minutes to clean each room": the 90 rooms), or divide by the
    parts of a share the question writes ("1800/2" for "one-half of the rooms"): each is said of
    that phrase of the question ("for 90 rooms", "for one-half of the rooms"), where every unknown
    has exactly one and no two the same. None otherwise (a sum or a difference of givens of the
    blank's unit, 621: "1000-356=644 times")."""
    from qcstation.core.reading.expr import BinOp, Name
    from qcstation.core.reading.words import stem

    spans = {str(g.get("name")): g.get("span") for g in givens}
    out: list[str] = []
    for i in idx:
        expr = getattr(steps[i], "expr", None) if i < len(steps) else None
        unit = re.match(r"\?\s+([a-z]+)", bodies[i])
        if not isinstance(expr, BinOp) or unit is None or expr.op not in "*/":
            return None
        terms: list[Any] = [expr.right] if expr.op == "/" else [expr.left, expr.right]
        phrases = []
        for t in terms:
            span = spans.get(t.name) if isinstance(t, Name) else None
            if not (isinstance(span, list) and len(span) == 2 and all(isinstance(x, int) for x in span)):
                continue
            said = question[span[0]:span[1]]
            if expr.op == "/" and not _SHARE.fullmatch(said):
                return None  # "300 / 5 people" is per person, never "for 5 people"
            m = (_SHARE_OF if expr.op == "/" else _COUNTED).match(question, span[1])
            if m is not None and stem(m.group(1)) not in {stem(unit.group(1)), stem(_UNIT_NAMES.get(unit.group(1), ""))}:
                phrases.append(" ".join(f"{said}{m.group(0)}".split()))
        if len(phrases) != 1:
            return None
        out.append(phrases[0])
    return out if len({p.lower() for p in out}) == len(out) else None


#: a percent as a text writes it ("30%", "12.5 percent"), never a step's label ("Q1%"), with the two
#: words after it ("30% cheaper than")
_PERCENT_WRITTEN = re.compile(r"(?<![\w.,])(\d{1,6}(?:\.\d{1,6})?)\s*(?:%|percent\b)((?:\s+[A-Za-z]+){0,2})", re.I)


def no_percent_the_question_contradicts(unknown: list[str], question: str, said: set[Fraction]) -> None:
    """Refuse (:class:`KeyInfoError`) an unknown that keeps a percent the question does not state,
    said with the words the question says another percent with: the solution's slip ("One
    cheesecake was 30% cheaper than the apple pie" for the question's "25% cheaper than the apple
    pie", GSM8K train) would be shipped as key information that contradicts the question. A
    percent said with other words ("150% of what he mines" beside "50% more", "1% of the
    students", "100%") is the solution's own and stays; one the line computes is a blank already."""
    stated: dict[str, set[Fraction]] = {}
    for m in _PERCENT_WRITTEN.finditer(question[:20_000]):
        if m.group(2).strip():
            stated.setdefault(m.group(2).strip().lower(), set()).add(Fraction(m.group(1)))
    if not stated:
        return
    for u in unknown:
        for m in _PERCENT_WRITTEN.finditer(u):
            theirs = stated.get(m.group(2).strip().lower(), set())
            if theirs and Fraction(m.group(1)) not in theirs | said:
                label = u.partition(":")[0]
                raise KeyInfoError(f"{label} would read {m.group(0).strip()!r}, where the question says "
                                   f"{', '.join(f'{float(v):g}%' for v in sorted(theirs))}{m.group(2)}: "
                                   "the solution's words contradict the question's")


def descriptions_true_to_question(unknown: list[str], question: str, said: set[Fraction],
                                  known: set[Fraction], own: list[Fraction]) -> None:
    """Refuse (:class:`KeyInfoError`) a draft whose unknowns keep a slip of the solution's words
    that the question contradicts, which a reviewer would reject as key information:

    * a number no one states (not the question's ``said``, no computation's or constant's
      ``known``, no step's result ``own``) that the question contradicts
      (:func:`~qcstation.core.reading.slips.slip_in`): "Clara sells 3300 cookies total because ?
      cookies" where the solution's sum is 3320, "so in 9 weeks he will spend ?" for the
      question's "in 6 weeks", "half the original $68 price" for its "$48" (GSM8K);
    * a comparison with another ordinal or weekday than the question's same comparison: "ten
      more puppies than the third week" where the question says "ten more puppies than he
      adopted on the first week".

    Percents are :func:`no_percent_the_question_contradicts`'s (called here too)."""
    no_percent_the_question_contradicts(unknown, question, said)
    counts = question_counts(question)
    everything = said | known | set(own)
    for u in unknown:
        label, _, body = u.partition(":")
        slip = slip_in(body, counts, everything)
        if slip is not None:
            raise KeyInfoError(f"{label} would read {slip}: the solution's words contradict the question's")
