"""Does a formalization mean its question? The one check of meaning that generation and
evaluation scoring share.

Z3 proves that a script's ``answer`` follows from its assertions, not that the assertions
say what the question says: ``(assert (= answer 9))`` "verifies" to a gold of 9. This
module reads the script (with :mod:`.smtlib`'s limits; it never runs Z3) and asks whether
the answer is *reached through asserted relations from declared constants equal to numbers
the question states*. :func:`check_meaning` refuses a script when

* ``states-answer``: an assertion or definition fixes ``answer`` to a number by itself
  (``(assert (= answer 9))``, ``(= 9 answer)``, ``(define-fun answer () Int 9)``,
  ``(= answer (+ 0 9))``): the answer is written, not computed;
* ``unstated-number``: the script writes a number the question does not state and the
  words do not imply (``a = 7, b = 5, answer = a*b + 1`` for a question without 7 and 5;
  ``(= answer (- 20 2))`` when 20 is not in the question; a half-solved ``(* 9 2)`` whose
  9 is an intermediate result worked out in the head);
* ``not-connected``: no chain of assertions (or functions the script defines) links
  ``answer`` to a declared constant set to a number of the question: an answer computed
  from numbers written inline (``(= answer (- 20 2))``, even when 20 and 2 are the question's)
  is the arithmetic done, not the question formalized.

The problems say what is wrong in terms of the formula (lines and its own numbers), never
in terms of an expected answer: a caller that knows the gold answer must still keep it out
of what it shows a model (see :func:`redact_number`).

What counts as *stated* (:func:`stated_numbers`): every number the question writes, in
digits (``1,200``, ``2.5``, ``.5``, ``-3``; each number of ``2:30`` or ``3x``), as a fraction
(``1/2``, ``\\frac{1}{2}``, ``\\dfrac12``: the fraction and its two parts), as a percent
(``45%``: 45 and 0.45), as a power or root (``3^2``, ``2^{10}``, ``\\sqrt{2}``,
``\\sqrt[3]{8}``: each number written, not the value worked out), with a scale word
(``1.5 million``, ``three hundred``: the product too), as number words (``three``,
``twenty-one``, ``half``, ``twice``, ``a dozen``) and ordinals (``third``, ``5th``). Signs are
ignored (a script may write ``(- 5)`` for a loss of 5). *Implied* (:data:`IMPLIED`): the
constants the words of the question name without writing them: a week is 7 days, a dozen
12, a percent 100, an hour 60 minutes, a day 24 hours, a year 12 months or 365 days or 52
weeks, a dollar 100 cents, a foot 12 inches, a triangle's angles 180 degrees, a die 6 faces,
and so on; each applies only when its words occur. ``0`` and ``1`` are always allowed (``(>
x 0)``, ``(- 1 p)``). Anything else (a result of the solution, a value from outside the
question, the gold answer) is unstated.

Numbers are read from the script as written: a numeral or decimal token, and ``(/ p q)`` of
two numerals as one number (``(/ 3 2)`` is stated when 1.5 is, or when 3 and 2 each are).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from qcstation.core.verify.smtlib import (
    Command,
    Node,
    SList,
    SmtDisallowedError,
    SmtSyntaxError,
    Token,
    parse_script,
    symbol_name,
)

__all__ = ["MeaningCheck", "check_meaning", "stated_numbers", "IMPLIED", "STRUCTURAL",
           "redact_number", "number_forms", "perturbations"]

#: numbers any formalization may write without the question stating them
STRUCTURAL = frozenset({Fraction(0), Fraction(1)})

#: the constants words imply: (pattern of the words, values it allows); a value applies when
#: every pattern of its row matches the question (case-insensitive)
IMPLIED: tuple[tuple[tuple[str, ...], tuple[int | Fraction, ...]], ...] = (
    ((r"\bweek",), (7,)),
    ((r"\bfortnight",), (14,)),
    ((r"\bdozen",), (12,)),
    ((r"%|\bpercent|\bper\s*cent|\bpercentage",), (100,)),
    ((r"\bhours?\b|\bhr", r"\bminute|\bmin\b|\bmins\b"), (60,)),
    ((r"\bminute|\bmin\b", r"\bsecond|\bsec\b"), (60,)),
    ((r"\bhour|\bhr", r"\bsecond|\bsec\b"), (3600, 60)),
    ((r"\bday|\bdaily|\bnight", r"\bhour|\bhr"), (24,)),
    ((r"\bday|\bdaily", r"\bminute"), (1440, 24, 60)),
    ((r"\byear|\bannual", r"\bmonth"), (12,)),
    ((r"\byear|\bannual", r"\bday|\bdaily"), (365, 366)),
    ((r"\byear|\bannual", r"\bweek"), (52,)),
    ((r"\bmonth", r"\bday|\bdaily"), (30, 31, 28)),
    # (GSM8K's convention: a month of four weeks; a named month is a month)
    ((r"\bmonth|\b(?:january|february|march|april|june|july|august|september|october|november|december)\b",
      r"\bweek"), (4,)),
    ((r"\bdecade",), (10,)),
    ((r"\bcentur",), (100,)),
    ((r"\bcent|¢", ), (100,)),
    ((r"\bnickel",), (5,)), ((r"\bdime",), (10,)), ((r"\bquarters?\b",), (25, 4)),
    ((r"\bfoot\b|\bfeet\b|\bft\b", r"\binch"), (12,)),
    ((r"\byard", r"\bfoot\b|\bfeet\b|\bft\b"), (3,)),
    ((r"\byard", r"\binch"), (36,)),
    ((r"\bmile", r"\bfoot\b|\bfeet\b|\bft\b"), (5280,)),
    ((r"\bmile", r"\byard"), (1760,)),
    ((r"\bmeter|\bmetre|\bcm\b|\bcentimet", ), (100,)),
    ((r"\bkilomet|\bkm\b|\bkilogram|\bkg\b|\bliter|\blitre|\bml\b|\bmillilit|\bgram|\bmeter|\bmetre",),
     (1000,)),
    ((r"\bmillimet|\bmm\b",), (10, 1000)),
    ((r"\bpound|\blb", r"\bounce|\boz\b"), (16,)),
    ((r"\bgallon", r"\bquart"), (4,)), ((r"\bquart", r"\bpint"), (2,)),
    ((r"\bgallon", r"\bpint"), (8,)), ((r"\bcup", r"\bounce|\boz\b"), (8,)),
    ((r"\bton\b|\btons\b",), (2000, 1000)),
    ((r"\bhalf|\bhalves|\btwice|\bdouble|\bpair|\bcouple|\bboth\b|\btwins?\b|\beven\b|\bodd\b|"
      r"\baverage|\bmean\b|\bmidpoint|\bsquared?\b|\bsquare root|\bradius|\bdiameter|\bcircle|"
      r"\bprime|\bcoin|\bround.?trip|\bback\b",), (2,)),
    ((r"\btriple|\bthrice|\btriangle|\btrio|\btricycle|\bcubed?\b|\bcube root",), (3,)),
    ((r"\bquadruple|\bsquare|\brectang|\bquarter|\bfourth",), (4,)),
    ((r"\bthird",), (3,)), ((r"\bfifth|\bpentagon",), (5,)), ((r"\bsixth|\bhexagon|\bdie\b|\bdice\b|\bcube",), (6,)),
    ((r"\bseventh|\bheptagon",), (7,)), ((r"\beighth|\boctagon",), (8,)),
    ((r"\bninth|\bnonagon",), (9,)), ((r"\btenth|\bdecagon|\bdigit|\bdecimal|\bbase",), (10,)),
    ((r"\bangle|\bdegree|°|\\circ|\btriangle|\bpolygon",), (180, 360, 90)),
    ((r"\bcircle|\bclock|\brevolution|\brotat",), (360,)),
    ((r"\bclock",), (12, 60)),
    ((r"\bcube",), (8, 12)),
    ((r"\bdeck|\bcards?\b",), (52, 4, 13)),
    ((r"\balphabet|\bletters?\b",), (26,)),
    ((r"\bmillion",), (1_000_000,)), ((r"\bbillion",), (1_000_000_000,)), ((r"\bthousand",), (1000,)),
    ((r"\bhundred",), (100,)),
    ((r"\bscore of\b",), (20,)), ((r"\bgross\b",), (144,)),
    ((r"\bquadratic|\bdiscriminant|\broots?\b|x\^2|x\^\{2\}",), (4, 2)),
    ((r"\bsphere|\bcone|\bpyramid",), (3, 4)),
)
_IMPLIED_RE = tuple((tuple(re.compile(p, re.I) for p in pats), tuple(Fraction(v) for v in vals))
                    for pats, vals in IMPLIED)

_MAX_QUESTION = 20_000

_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "twentieth": 20,
             "hundredth": 100, "thousandth": 1000}
_SPECIAL = {"half": Fraction(1, 2), "halves": Fraction(1, 2), "twice": Fraction(2), "double": Fraction(2),
            "triple": Fraction(3), "thrice": Fraction(3), "dozen": Fraction(12), "dozens": Fraction(12),
            "quarter": Fraction(1, 4), "hundred": Fraction(100), "thousand": Fraction(1000),
            "million": Fraction(10**6), "billion": Fraction(10**9), "pair": Fraction(2), "couple": Fraction(2),
            "score": Fraction(20), "quadruple": Fraction(4)}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "dozen": 12}
_WORD_NUMBER_RE = re.compile(
    r"\b(?:(" + "|".join(_TENS) + r")(?:[\s-]+(" + "|".join(w for w in _WORDS if 0 < _WORDS[w] < 10) + r"))?"
    r"|(" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r"))\b"
    r"(?:[\s-]+(hundred|thousand|million|billion|dozen)s?\b)?", re.I)
# (a match starts at a digit or a point before one: every match without a number was skipped,
# and one tried at each character of a run of spaces read the whole run: quadratic)
_DIGITS_RE = re.compile(r"(?<![\w.])(?=\d|\.\d)(\d{1,3}(?:,\d{3})+|\d{1,40})?(\.\d{1,40})?(?!\d)"
                        r"(?:\s*(hundred|thousand|million|billion|dozen)s?\b)?(\s*%|\s*percent\b)?", re.I)
_LATEX_FRAC_RE = re.compile(r"\\[dt]?frac\s*(?:\{\s*(-?\d+(?:\.\d+)?)\s*\}|(\d))\s*(?:\{\s*(-?\d+(?:\.\d+)?)\s*\}|(\d))")
_SLASH_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)(?![\w.])")
_WORD_RE = re.compile(r"[A-Za-z]+")
_ABBREV_POINT = re.compile(r"(?<=[A-Za-z])\.(?=\d)")


def stated_numbers(question: str) -> frozenset[Fraction]:
    """The numbers the question states (see the module docstring), as non-negative values;
    the words' implied constants are not among them (:func:`implied_numbers`)."""
    text = (question or "")[:_MAX_QUESTION]
    # "Rs.360", "no.5": a point after a word is an abbreviation's, not a decimal point
    text = _ABBREV_POINT.sub(". ", text)
    out: set[Fraction] = set()
    for m in _DIGITS_RE.finditer(text):
        whole, frac, scale, pct = m.groups()
        if whole is None and frac is None:
            continue
        try:
            v = Fraction((whole or "0").replace(",", "") + (frac or ""))
        except (ValueError, ZeroDivisionError):
            continue
        out.add(v)
        if scale:
            out.add(v * _SCALES[scale.lower()])
        if pct:
            out.add(v / 100)
    for m in _LATEX_FRAC_RE.finditer(text):
        a, b = m.group(1) or m.group(2), m.group(3) or m.group(4)
        try:
            fa, fb = abs(Fraction(a)), abs(Fraction(b))
        except (ValueError, ZeroDivisionError):
            continue
        out.update((fa, fb))
        if fb:
            out.add(fa / fb)
    for m in _SLASH_RE.finditer(text):
        fa, fb = Fraction(m.group(1)), Fraction(m.group(2))
        if fb:
            out.add(fa / fb)
    for m in _WORD_NUMBER_RE.finditer(text):
        tens, unit, word, scale = m.groups()
        if tens:
            v = Fraction(_TENS[tens.lower()] + (_WORDS[unit.lower()] if unit else 0))
        else:
            v = Fraction(_WORDS[word.lower()])
        out.add(v)
        if scale:
            out.add(v * _SCALES[scale.lower()])
    for w in _WORD_RE.findall(text):
        low = w.lower()
        if low in _SPECIAL:
            out.add(_SPECIAL[low])
        elif low in _ORDINALS or (low.endswith("s") and low[:-1] in _ORDINALS):
            n = _ORDINALS[low if low in _ORDINALS else low[:-1]]
            out.update((Fraction(n), Fraction(1, n)))   # "the third day", "a third of", "two thirds"
    return frozenset(abs(v) for v in out)


def implied_numbers(question: str) -> dict[Fraction, str]:
    """The constants the question's words imply (:data:`IMPLIED`), each with the words that
    imply it."""
    text = (question or "")[:_MAX_QUESTION]
    out: dict[Fraction, str] = {}
    for pats, vals in _IMPLIED_RE:
        found = [p.search(text) for p in pats]
        if all(found):
            why = " and ".join(repr(f.group(0).strip()) for f in found if f)
            for v in vals:
                out.setdefault(v, why)
    return out


# ---------------------------------------------------------------- reading the script
@dataclass(frozen=True)
class _Literal:
    value: Fraction          # as written, sign dropped
    line: int
    parts: tuple[Fraction, ...] = ()   # the numerals of a (/ p q)


@dataclass
class _Relation:
    line: int
    consts: set[str]
    literals: list[_Literal]
    fixes: str | None = None          # the constant it sets to a single number, if any
    fixed_value: Fraction | None = None
    calls: bool = False               # applies a function the script defines or declares


def _numeral(node: Node) -> Fraction | None:
    if isinstance(node, Token) and node.kind in ("numeral", "decimal"):
        try:
            return Fraction(node.text)
        except (ValueError, ZeroDivisionError):
            return None
    if isinstance(node, Token) and node.kind in ("hex", "binary"):
        try:
            return Fraction(int(node.text[2:], 16 if node.kind == "hex" else 2))
        except ValueError:
            return None
    return None


def _literal_value(node: Node) -> tuple[Fraction, tuple[Fraction, ...]] | None:
    """A number written as one: a numeral, ``(- n)``, ``(/ p q)``, ``(- (/ p q))``,
    ``(to_real n)``."""
    v = _numeral(node)
    if v is not None:
        return v, ()
    if isinstance(node, SList) and node.items:
        head = symbol_name(node.items[0])
        args = node.items[1:]
        if head in ("-", "to_real", "to_int") and len(args) == 1:
            return _literal_value(args[0])
        if head == "/" and len(args) == 2:
            p, q = _numeral(args[0]), _numeral(args[1])
            if p is not None and q is not None and q != 0:
                return p / q, (p, q)
    return None


def _walk(node: Node, consts: set[str], bound: frozenset[str], rel: _Relation,
          funcs: frozenset[str] = frozenset()) -> None:
    lit = _literal_value(node)
    if lit is not None:
        rel.literals.append(_Literal(abs(lit[0]), node.line, tuple(abs(p) for p in lit[1])))
        return
    if isinstance(node, Token):
        name = symbol_name(node)
        if name is not None and name in consts and name not in bound:
            rel.consts.add(name)
        return
    items = node.items
    head = symbol_name(items[0]) if items else None
    if head in ("let", "forall", "exists") and len(items) >= 3 and isinstance(items[1], SList):
        names = {symbol_name(b.items[0]) for b in items[1].items if isinstance(b, SList) and b.items}
        inner = bound | {n for n in names if n}
        if head == "let":
            for b in items[1].items:
                if isinstance(b, SList) and len(b.items) >= 2:
                    _walk(b.items[1], consts, bound, rel, funcs)
        for sub in items[2:]:
            _walk(sub, consts, inner, rel, funcs)
        return
    if head == "!" and len(items) >= 2:    # (! term :named x)
        _walk(items[1], consts, bound, rel, funcs)
        return
    if head in funcs:
        rel.calls = True
        rel.consts.add(head)      # a function ties what calls it to what defines it
    for sub in items[1:] if head is not None else items:
        _walk(sub, consts, bound, rel, funcs)


def _conjuncts(node: Node) -> list[Node]:
    if isinstance(node, SList) and node.items and symbol_name(node.items[0]) == "and":
        return [c for sub in node.items[1:] for c in _conjuncts(sub)]
    return [node]


def _fixing(node: Node, consts: set[str]) -> tuple[str, Fraction] | None:
    """``(= c n)`` or ``(= n c)``: the constant and the number."""
    if not (isinstance(node, SList) and len(node.items) == 3 and symbol_name(node.items[0]) == "="):
        return None
    a, b = node.items[1], node.items[2]
    for x, y in ((a, b), (b, a)):
        name = symbol_name(x)
        lit = _literal_value(y)
        if name is not None and name in consts and lit is not None:
            return name, abs(lit[0])
    return None


def _relations(commands: list[Command]) -> tuple[set[str], list[_Relation]]:
    consts: set[str] = set()
    fset: set[str] = set()
    for cmd in commands:
        name = cmd.declared_name()
        if name is None:
            continue
        if cmd.name == "declare-const" or cmd.name == "define-const":
            consts.add(name)
        elif cmd.name in ("declare-fun", "define-fun") and len(cmd.args) >= 2 \
                and isinstance(cmd.args[1], SList) and not cmd.args[1].items:
            consts.add(name)
        elif cmd.name in ("declare-fun", "define-fun", "define-fun-rec"):
            fset.add(name)
    funcs = frozenset(fset)
    rels: list[_Relation] = []
    for cmd in commands:
        bodies: list[tuple[Node, str | None]] = []
        if cmd.name == "assert" and cmd.args:
            bodies = [(c, None) for c in _conjuncts(cmd.args[0])]
        elif cmd.name in ("define-fun", "define-fun-rec") and len(cmd.args) == 4:
            params = cmd.args[1]
            bound = frozenset(n for n in (symbol_name(p.items[0]) for p in params.items
                                          if isinstance(p, SList) and p.items) if n) \
                if isinstance(params, SList) else frozenset()
            rel = _Relation(cmd.line, set(), [])
            name = cmd.declared_name()
            _walk(cmd.args[3], consts, bound, rel, funcs)
            if name in funcs:
                rel.consts.add(name)
            if name in consts:
                rel.consts.add(name)
                lit = _literal_value(cmd.args[3])
                if lit is not None:
                    rel.fixes, rel.fixed_value = name, abs(lit[0])
            rels.append(rel)
            continue
        elif cmd.name == "define-const" and len(cmd.args) == 3:
            rel = _Relation(cmd.line, {str(cmd.declared_name())}, [])
            _walk(cmd.args[2], consts, frozenset(), rel, funcs)
            lit = _literal_value(cmd.args[2])
            if lit is not None:
                rel.fixes, rel.fixed_value = cmd.declared_name(), abs(lit[0])
            rels.append(rel)
            continue
        for body, _ in bodies:
            rel = _Relation(body.line if isinstance(body, SList) else cmd.line, set(), [])
            _walk(body, consts, frozenset(), rel, funcs)
            fix = _fixing(body, consts)
            if fix is not None:
                rel.fixes, rel.fixed_value = fix
            rels.append(rel)
    return consts, rels


# ---------------------------------------------------------------- the check
@dataclass(frozen=True)
class MeaningCheck:
    """What :func:`check_meaning` found. ``ok`` when nothing is refused; ``kinds`` names each
    refusal (``states-answer``, ``unstated-number``, ``not-connected``, ``unreadable``);
    ``problems`` says each in terms of the formula; ``givens`` are the constants set to a
    stated (or implied) number; ``unstated`` the numbers written that the question does not
    state, each with its line; ``unused`` the numbers the question states (other than 0 and 1)
    that the formula never writes."""

    ok: bool
    kinds: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    givens: dict[str, Fraction] = field(default_factory=dict)
    unstated: tuple[tuple[Fraction, int], ...] = ()
    unused: tuple[Fraction, ...] = ()
    stated: frozenset[Fraction] = frozenset()

    @property
    def message(self) -> str:
        """One line for a record or a model: the problems joined, or what was checked."""
        if self.problems:
            return "; ".join(self.problems)
        return (f"the answer is computed from {len(self.givens)} constant(s) set to numbers the "
                "question states")

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "kinds": list(self.kinds), "problems": list(self.problems),
                "givens": {k: _show(v) for k, v in self.givens.items()},
                "unstated": [[_show(v), line] for v, line in self.unstated],
                "unused": [_show(v) for v in self.unused]}


def _show(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    text = f"{float(v):.6g}"
    return text if Fraction(text) == v else f"{v.numerator}/{v.denominator}"


def _lines(items: Iterable[tuple[Fraction, int]]) -> str:
    by_value: dict[Fraction, list[int]] = {}
    for v, line in items:
        by_value.setdefault(v, [])
        if line not in by_value[v]:
            by_value[v].append(line)
    return ", ".join(f"{_show(v)} (line{'s' if len(ls) > 1 else ''} {', '.join(map(str, ls))})"
                     for v, ls in by_value.items())


def check_meaning(smtlib: str, question: str, *, answer: str = "answer") -> MeaningCheck:
    """Is the script's ``answer`` reached through asserted relations from constants equal to
    numbers ``question`` states (module docstring)? Pure: reads text only, never runs Z3;
    an unreadable script is refused as ``unreadable`` (the verifier says why in detail).

    >>> check_meaning("(declare-const answer Int)(assert (= answer 9))", "Ann has 3 bags of 3.").kinds
    ('states-answer',)
    """
    try:
        script = parse_script(smtlib)
    except (SmtSyntaxError, SmtDisallowedError) as exc:
        return MeaningCheck(False, ("unreadable",), (f"the SMT-LIB cannot be read: {exc}",))
    stated = stated_numbers(question)
    implied = implied_numbers(question)
    allowed = set(stated) | set(implied) | STRUCTURAL
    consts, rels = _relations(script.active_commands())
    kinds: list[str] = []
    problems: list[str] = []

    def ok_literal(lit: _Literal) -> bool:
        if lit.value in allowed:
            return True
        return bool(lit.parts) and all(p in allowed for p in lit.parts)

    # 1. the answer written as a number
    answer_lines = []
    for rel in rels:
        if answer not in rel.consts:
            continue
        others = rel.consts - {answer}
        numbers = [lit for lit in rel.literals if lit.value not in STRUCTURAL]
        if rel.fixes == answer or (not others and not rel.calls and len(numbers) <= 1 and rel.literals):
            answer_lines.append(rel.line)
    if answer_lines:
        kinds.append("states-answer")
        where = ", ".join(str(n) for n in sorted(set(answer_lines)))
        problems.append(
            f"line {where} sets {answer} to a number directly instead of computing it: declare a "
            "constant for each number the problem states and assert how the answer follows from them")
    # 2. numbers the question does not state
    # (a number that sets the answer is said above: the answer is never repeated back)
    unstated = [(lit.value, lit.line) for rel in rels if rel.line not in answer_lines
                for lit in rel.literals if not ok_literal(lit)]
    if unstated:
        kinds.append("unstated-number")
        problems.append(
            f"the formula writes {_lines(unstated)}, which the problem does not state: write only the "
            "problem's own numbers (and constants its words name, such as 7 days in a week) and let the "
            "assertions compute every other value; a number worked out by hand is not a formalization")
    # 3. the answer tied to the question's numbers through the relations
    givens = {rel.fixes: rel.fixed_value for rel in rels
              if rel.fixes is not None and rel.fixes != answer and rel.fixed_value is not None
              and rel.fixed_value in allowed}
    anchored = set(givens)
    if not kinds and answer in consts:   # (a refusal above already says what to fix)
        reach, frontier = {answer}, [answer]
        while frontier:
            cur = frontier.pop()
            for rel in rels:
                if cur in rel.consts:
                    for c in rel.consts - reach:
                        reach.add(c)
                        frontier.append(c)
        if not (reach & anchored):
            kinds.append("not-connected")
            problems.append(f"{answer} is not computed from any declared constant set to a number of the "
                            "problem (numbers written inline do not count): declare a constant for each "
                            "number the problem states and compute the answer from those constants")
    used = {lit.value for rel in rels for lit in rel.literals} | \
        {p for rel in rels for lit in rel.literals for p in lit.parts}
    unused = tuple(sorted(v for v in stated if v not in STRUCTURAL and v not in used))
    return MeaningCheck(not kinds, tuple(kinds), tuple(problems), givens,
                        tuple(unstated), unused, stated)


# ---------------------------------------------------------------- keeping a number out of text
def number_forms(value: Fraction) -> list[str]:
    """The ways a text may write ``value``: ``42``, ``42.0``, ``1,200``, ``0.5``, ``1/2``,
    ``(/ 1 2)``."""
    forms: list[str] = []
    v = abs(value)
    if v.denominator == 1:
        n = v.numerator
        forms += [str(n), f"{n:,}"]
    else:
        forms += [f"{v.numerator}/{v.denominator}", f"(/ {v.numerator} {v.denominator})"]
        f = float(v)
        for places in range(1, 7):
            text = f"{f:.{places}f}"
            if Fraction(text) == v:
                forms.append(text)
                break
    return list(dict.fromkeys(forms))


def redact_number(text: str, value: Fraction | None, *, keep_in: str = "",
                  mark: str = "[…]") -> str:
    """``text`` with every standalone writing of ``value`` (:func:`number_forms`, also with
    trailing zeros ``42.00``) replaced by ``mark`` — unless ``keep_in`` (the question) writes
    it too, when it is no secret. For a gold answer kept out of what a model is shown."""
    if value is None or not text:
        return text
    if keep_in and abs(value) in stated_numbers(keep_in):
        return text
    out = text
    for form in sorted(number_forms(value), key=len, reverse=True):
        if form.startswith("("):
            out = out.replace(form, mark)
            continue
        pat = re.escape(form)
        if value.denominator == 1:
            pat += r"(?:\.0+)?"
        out = re.sub(rf"(?<![\w.]){pat}(?![\w]|\.\d)", mark, out)
    return out


def perturbations(smtlib: str, question: str, *, limit: int = 6, answer: str = "answer") -> list[str]:
    """Scripts to run to see the answer move: one per number of the question the script sets a
    constant to (its defining number moved to value + 1), at most ``limit``; empty when the
    script has none. A caller runs them with Z3: an answer that no such move changes does not
    depend on the question's numbers."""
    try:
        script = parse_script(smtlib)
    except (SmtSyntaxError, SmtDisallowedError):
        return []
    stated = stated_numbers(question) - STRUCTURAL
    consts, _ = _relations(script.active_commands())
    out: list[str] = []
    lines = smtlib.split("\n")
    for cmd in script.active_commands():
        if cmd.name != "assert" or not cmd.args:
            continue
        fix = _fixing(cmd.args[0], consts)
        if fix is None or fix[0] == answer or fix[1] not in stated:
            continue
        node = cmd.args[0]
        assert isinstance(node, SList)
        target = node.items[2] if symbol_name(node.items[1]) == fix[0] else node.items[1]
        new = f"(/ {(fix[1] + 1).numerator} {(fix[1] + 1).denominator})" if (fix[1] + 1).denominator != 1 \
            else str((fix[1] + 1).numerator)
        text = _replace_node(lines, target, new)
        if text is not None:
            out.append(text)
        if len(out) >= limit:
            break
    return out


def _replace_node(lines: list[str], node: Node, new: str) -> str | None:
    """The script with ``node`` (which must sit on one line) replaced by ``new``."""
    if isinstance(node, Token):
        start, end_line, end_col = node, node.line, node.col + len(node.text)
    else:
        start, end_line, end_col = node.open, node.close.line, node.close.col + 1
    if start.line != end_line or start.line < 1 or start.line > len(lines):
        return None
    row = lines[start.line - 1]
    a, b = start.col - 1, end_col - 1
    if not (0 <= a < b <= len(row)):
        return None
    copy = list(lines)
    copy[start.line - 1] = row[:a] + new + row[b:]
    return "\n".join(copy)
