"""A final answer that is a whole count the solution rounds its last computation to ("1340/80 =
16.75 bags ... will need to buy 17 bags"; "33.333...%, which rounds down to 33%").

Design (issue 26.1). The expression language has one node for this, :class:`~qcstation.core.
reading.expr.Call` (``floor``, ``ceil``, ``round``: the greatest whole number at most x, the least
at least x, the nearest with a half rounded up), evaluated exactly (:func:`~qcstation.core.reading.
expr.evaluate`) and written in SMT-LIB with ``to_int`` (the greatest integer at most its argument:
``(to_int x)``, ``(- (to_int (- x)))``, ``(to_int (+ x (/ 1 2)))``; logic ``QF_LIRA``/``QF_NIRA``).
A new node, not an Int-declared name with a bound: Z3 then checks the same value every Python
walker computes, and a walker that meets the node either reads it or fails loudly, never reads a
bound as a definition. The rules build it in one place only, here: one last step ``Call(fn,
Name(step))`` after every binding is made (the steps before it are read, linked and bound as for
any seed; the rounding step writes no number). What reads it:

* the expression floor (``expr``): evaluation, the atoms walk (its argument's names), SMT-LIB,
  canonical form, linearity; the parser never reads one from text (untrusted text cannot write it);
* Arithmetic (``notation``): the question states it in words ("the least whole number at least
  s1") and reads those words back to the same node, so the rebuilt SMT-LIB is Z3-checked;
* key information (``unknowns``): the unknown's relationship says the rounding in words;
* derive: refuses such a parent with its reason (``rounded``): moving a number would need the
  rounding's words re-read in the derived story (a moved total may divide evenly), not done yet.

When (:func:`rounded_answer`): no step has the gold answer, the solution's last computation
divides (a count of items or a share), its value is not whole, and the gold is that value rounded
the way the *question's* words say, which the solution's words after that computation confirm by
writing the gold:

* ``round``: the question asks it "rounded to the nearest" whole number, integer, percent or unit
  (never a tenth, hundredth, cent, ten, hundred or thousand);
* ``ceil``: the question asks how many of a counted thing (not a unit of time or measure) one must
  buy, use or needs, and the solution rounds up ("rounds up", "the next whole number", "cannot buy
  half a can") or says the count must be bought ("will need to buy 17 bags");
* ``floor``: the question asks how many full, complete or whole things there are, or how many one
  can buy, make or fill, and the solution rounds down or names the count so.

Anything else is refused as before ("final answer ... is not produced by any step")."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from qcstation.core.construct.make.rules.links import Computation
from qcstation.core.reading.expr import BinOp, Call, Expr, Name, Neg, atoms, fmt, rounded

__all__ = ["Rounding", "rounded_answer"]

_HOW_MANY_AT = re.compile(r"\bhow\s+many\b", re.I)
_NEAREST = re.compile(r"\bround(?:ed|ing)?\s+(?:\w+\s+)?(?:off\s+)?to\s+the\s+nearest\s+([a-z%]+(?:\s+[a-z]+)?)",
                      re.I)
#: what "to the nearest ..." may round to for a whole answer (the unit words are checked apart)
_NOT_WHOLE = frozenset({"tenth", "tenths", "hundredth", "hundredths", "thousandth", "thousandths", "decimal",
                        "cent", "cents", "penny", "ten", "tens", "hundred", "hundreds", "thousand", "thousands",
                        "million", "half", "quarter", "dozen", "fraction", "place", "significant"})
#: the nouns of a unit of time or measure: a count of them need not be whole ("137.33 hours")
_MEASURES = frozenset("""second seconds minute minutes hour hours day days week weeks month months year years
mile miles foot feet inch inches meter meters metre metres kilometer kilometers km yard yards pound pounds
ounce ounces gallon gallons liter liters litre litres quart quarts pint pints cup cups gram grams kilogram
kilograms kg ton tons dollar dollars cent cents percent degrees degree points point calories calorie
tablespoon tablespoons teaspoon teaspoons acre acres square cubic times""".split())
_AUX = r"(?:will|would|does|do|did|should|must|can|could|are|is|were|was|need|needs|has|have)"
_HOW_MANY = re.compile(r"\bhow\s+many\s+((?:[$\w'-]+\s+){0,5}?)" + _AUX + r"\b(.*)$", re.I | re.S)
_NEED = re.compile(r"\b(?:need|needs|buy|purchase|use|require|requires|have\s+to|has\s+to|must|should)\b", re.I)
_CAN_MAKE = re.compile(r"\b(?:can|could)\b.*\b(?:buy|make|fill|afford|get|bake|purchase|pack|sew|knit|build)\b",
                       re.I)
_WHOLE_ADJ = frozenset({"full", "complete", "whole", "entire"})
_UP_WORDS = re.compile(r"\bround(?:s|ed|ing)?\s+(?:[\w.]+\s+){0,2}up\b|\bnext\s+(?:highest\s+)?whole\b"
                       r"|\bcan(?:not|'t|\s+not)\s+(?:buy|use|spend|get|have|purchase)\s+(?:half|part|a\s+fraction|\.\d|0\.\d)",
                       re.I)
_DOWN_WORDS = re.compile(r"\bround(?:s|ed|ing)?\s+(?:[\w.]+\s+){0,2}down\b", re.I)


@dataclass(frozen=True)
class Rounding:
    """The rounding step: which computation it rounds, how, why, and the line that says it."""

    index: int  #: the computation rounded (the solution's last)
    fn: str  #: "floor" | "ceil" | "round"
    note: str
    line: str  #: the words that say the rounded count (key information describes the step by them)
    divided_line: str  #: the rounded computation's line without them


def _divides(comp: Computation) -> bool:
    """Does the computation divide (a count of items, a share), and round nowhere yet?"""
    divides = False
    stack: list[Expr] = [comp.expr]
    while stack:
        e = stack.pop()
        if isinstance(e, Call):
            return False
        if isinstance(e, BinOp):
            divides = divides or e.op == "/"
            stack.extend((e.left, e.right))
        elif isinstance(e, Neg):
            stack.append(e.operand)
    return divides


def _writes(text: str, value: Fraction) -> bool:
    return value.denominator == 1 and re.search(rf"(?<![\d.,]){value.numerator}(?![\d]|[.,]\d)", text) is not None


def _asked(question: str) -> tuple[list[str], str, str] | None:
    """The asking sentence's "how many" words: the adjectives and noun it counts, and the rest
    of the sentence (its verb); None when it asks no count."""
    found = list(_HOW_MANY_AT.finditer(question))
    if not found:
        return None
    asking = question[found[-1].start():]
    asking = asking[:asking.find("?") + 1 or len(asking)]
    m = _HOW_MANY.match(asking)
    if m is None:
        return None
    words = m.group(1).split()
    if "of" in words:
        words = words[:words.index("of")]
    if not words:
        return None
    return [w.lower() for w in words[:-1]], words[-1].lower().strip("'"), m.group(2)


def _stem(noun: str) -> str:
    return noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun


def _mode(question: str, tail: str, gold: Fraction) -> tuple[str, str] | None:
    """How the question's words (confirmed by the solution's after the computation) round, and why."""
    near = _NEAREST.search(question)
    if near is not None:
        to = near.group(1).lower().split()
        if to[0] in _NOT_WHOLE or (len(to) > 1 and to[1] in _NOT_WHOLE):
            return None
        return "round", f"the question asks it {near.group(0)!r}"
    asked = _asked(question)
    if asked is None:
        return None
    adjectives, noun, rest = asked
    if noun in _MEASURES or not noun.isalpha():
        return None
    named = re.search(rf"\b{re.escape(_stem(noun))}\w*\b", tail, re.I) is not None
    if _WHOLE_ADJ & set(adjectives) or (_CAN_MAKE.search(rest) and not _NEED.search(rest)):
        if _DOWN_WORDS.search(tail) or named:
            return "floor", f"the question asks how many {' '.join(adjectives + [noun])} ({rest[:60]!r})"
        return None
    if _NEED.search(rest):
        says = _UP_WORDS.search(tail) or re.search(
            rf"\b(?:need|needs|must|have\s+to|has\s+to|should)\s+(?:to\s+)?(?:buy|purchase|use|get)\s+{gold.numerator}\s+"
            rf"{re.escape(_stem(noun))}", tail, re.I)
        if says:
            return "ceil", f"the question asks how many {noun} are needed ({rest[:60]!r}) and the solution " \
                           f"says {says.group(0)!r}"
    return None


def rounded_answer(comps: list[Computation], gold: Fraction | None, question: str | None,
                   solution: str) -> Rounding | None:
    """The rounding of the solution's last computation that gives ``gold`` (see the module
    docstring), or None."""
    if gold is None or question is None or not comps or gold.denominator != 1:
        return None
    last = comps[-1]
    value = last.value
    if value.denominator == 1 or not _divides(last) or any(isinstance(a, Name) for a in atoms(last.expr)):
        return None
    end = solution.find("####")
    tail = solution[last.end:end if end != -1 else len(solution)]
    if not _writes(tail, gold):
        return None
    mode = _mode(question, tail, gold)
    if mode is None:
        return None
    fn, why = mode
    if rounded(fn, value) != gold or (fn == "round" and value - math.floor(value) == Fraction(1, 2)):
        return None  # another rounding, or a half: which way "nearest" goes, the words do not say
    return Rounding(len(comps) - 1, fn, f"the answer {fmt(gold)} is {fmt(value)} rounded ({fn}): {why}",
                    _said(tail, gold, _written_text(solution, last)), _divided_line(solution, last))


# (a sentence ends at . ! ? ; before a capital, never after a title: "Mr. Jackson must buy 7 packs")
_CLAUSE = re.compile(r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<=[.!?;])\s+|,\s+|\n")
_CONNECTOR = re.compile(r"^(?:which|meaning|so|and|thus|therefore|hence|then)\s+(?:that\s+)?", re.I)


def _said(tail: str, gold: Fraction, written: str) -> str:
    """The clause after the computation that says the rounded count, as the rounding step's line
    (key information describes the step by it): its last clause that writes the gold, its opening
    connector left out; "which rounds down to 15" reads "15.36 rounds down to 15"."""
    clauses = [c.strip() for c in _CLAUSE.split(tail) if c and c.strip()]
    said = next((c for c in reversed(clauses) if _writes(c, gold)), " ".join(tail.split()))
    m = _CONNECTOR.match(said)
    if m:  # (the clause keeps its words as written: the self-checks find it in its line)
        rest = said[m.end():]
        said = f"{written or 'That'} {rest}" if m.group(0).lower().startswith("which") else rest
    return said[:300]


def _written_text(solution: str, comp: Computation) -> str:
    """The result the computation writes ("15.36"), where it is its exact value; else ""
    ("77.78" for 700/9 is no value of the step: "That rounds up to 78%")."""
    if comp.source == "annotation":
        m = re.match(r"\s*[$]?\s*(\d[\d,]*(?:\.\d+)?)", solution[comp.end:])
        text = m.group(1) if m else ""
    else:
        found = re.findall(r"=\s*[$]?\s*(\d[\d,]*(?:\.\d+)?)", comp.raw)
        text = found[-1] if found else ""
    try:
        return text if text and Fraction(text.replace(",", "")) == comp.value else ""
    except ValueError:
        return ""


def _divided_line(solution: str, comp: Computation) -> str:
    """The line of the rounded computation up to its result's clause end: the rounding's words
    after it are the rounding step's ("768 / 50 = 15.36 minutes, which rounds down to 15")."""
    start = solution.rfind("\n", 0, comp.start) + 1
    end = solution.find("\n", comp.end)
    end = len(solution) if end == -1 else end
    m = re.compile(r",\s|[.;](?:\s|$)").search(solution, comp.end, end)
    # "33.333...%": the ellipsis of a repeating decimal is no word of the line
    return re.sub(r"(\d)\.{3,}", r"\1", solution[start:m.start() if m else end].strip())
