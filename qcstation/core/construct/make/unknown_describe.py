"""How one line of a solution describes its step's unknown in rule-made key information: its
arithmetic and every number the question does not state hidden behind a marked '?'
(:func:`_describe`), and a step's expression written from the givens and earlier Qs
(:func:`_relation`). Split out of :mod:`.unknowns`, which reads the blanks left here.

Nothing here is a closure that calls itself: a recursive nested function is a function, cell
and closure reference cycle per call, left to the cyclic garbage collector with all it
captured (issue 30.6; tests/core/derive/test_kept_refusals.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from qcstation.core.construct.make.unknown_forms import restored_words, words_before_result
from qcstation.core.construct.make.unknown_words import TRAILING_EQUALS, worded_expr
from qcstation.core.reading.expr import BinOp, Call, Name, Neg, Num
from qcstation.core.reading.textnumbers import (
    ANNOT_WITH_RESULT_RE as _ANNOT_WITH_RESULT, NUMBER_WORDS as _WORDS, numbers_in as _numbers,
    sub_count_words as _sub_count_words, word_key,
)


@dataclass(frozen=True)
class _Blank:
    """What a '?' of a description hides: its value (None: several), whether it stands for a
    computation's result ("result") or for a number the line writes ("written": its text)."""

    value: Fraction | None
    kind: str
    written: str = ""


_SPACES = re.compile(r"\s+")
#: a blank the computation it stands for left spaced from the stop after it
_BLANK_BEFORE_STOP = re.compile(r"\?\s+(?=[.,;:!](?:\s|$))")
_ENDS_EQUALS = re.compile(r"=\s*[$€£]?\s*$")
_FRACTION = re.compile(r"(\d+)/(\d+)")
_ANY = re.compile(r".+")
_DIGITS = re.compile(r"\d+")
# (each pattern opening with a look-behind opens with a lookahead for the characters a match
# starts with: the same matches, found without trying the look-behind at every place)
_WRITTEN_NUMBER = re.compile(r"(?=[-−$\d])(?<![\w.])[-−]?\$?\d(?:[\d,]*\d)?(?:\.\d+)?(?:/\d+(?![\d.]))?%?")
#: a '?' a description writes, with its private mark (:func:`_describe`'s ``blank``)
_MARK0 = 0xE000
_MAX_BLANKS = 0x800
_M = "[\ue000-\ue7ff]?"
_BLANK_TOKEN = re.compile(_M + r"\?")
_HIDDEN_COMPUTATION = re.compile(_M + r"\?(?:\s*[-+*/x×÷=]\s*" + _M + r"\?)+")
_NAME_GLUED = re.compile(r"\b(Q\d+)(?=[^\W\d_])")
_VARIABLE_HIDDEN = re.compile(r"^[a-z] (" + _M + r"\?)(?=\s|$)")
# tried at a comma or where a run of spaces starts after neither (see _JOIN_END in keyinfo_draft)
_EMPTY_BECAUSE = re.compile(r"(?:,|(?<![\s,]))\s+(?:because|since)\s+" + _M + r"\?\s*[.,;]?$")
_FRACTION_OR_PERCENT = re.compile(r"\d+/\d+|\d+(?:\.\d+)?%")


# (each pattern opening with a look-behind opens with a lookahead for the characters a match
# starts with: the same matches, found without trying the look-behind at every place)
_GLUED_DOLLAR = re.compile(r"(?=\$)(?<=[A-Za-z])\$(?=\d)")
#: a unit's abbreviation glued to its number ("300g"), and a minus sign that opens a computation
_GLUED_UNIT = re.compile(r"(?=[gkmclof])(?<=\d)(?:g|kg|mg|cm|mm|km|ml|lbs?|oz|ft)\b")
_NEGATIVE_OPENS = re.compile(r"(?:^|(?<=[^\d\s)]\s)|(?<=^\s))[-−](?=\d)")
_GLUED_TIMES = re.compile(r"(?=[x×*])(?<=\d\s)([x×*])(?=\d)")
#: an operator glued to the number before it ("$2.00x 2 = $<<2*2=4.00>>4.00", 873)
_GLUED_TIMES_AFTER = re.compile(r"(?=[x×])(?<=\d)([x×])(?=\s+\$?\d)")
#: a word glued to the computation after it ("That gives him16*5=<<16*5=80>>80 planks", 1132)
_GLUED_WORD = re.compile(r"(?=\d)(?<=[a-z]{2})(?=\d[\d,]*(?:\.\d+)?\s*[*×x/+]\s*\$?\.?\d)")


def _cut_at(before: str, at: int) -> str:
    """``before`` up to the computation that starts at ``at``, less the sign that opens it
    ("-48 + 21 + (-3) = <<...>>", 490: the first term is negative)."""
    sign = at > 0 and _NEGATIVE_OPENS.match(before, at - 1) is not None
    return before[: at - (1 if sign else 0)]


# a number that names which one ("Level 3", "day 2", "Week 4"), not how many
_INDEX = re.compile(r"\b(?:level|day|week|month|year|round|game|test|floor|chapter|part|step|stage|lap|"
                    r"hole|station|room|grade|quarter|period|inning|set|box|bag|row|shelf|page|track|trip)"
                    r"\s+$", re.I)


class _Describing:
    """One line's description under way: what :func:`_describe` reads its numbers against and
    the blanks it has left (a plain object whose methods are handed to ``re.sub``: a nested
    function calling itself would be a reference cycle per line)."""

    __slots__ = ("question_values", "results", "others", "earlier", "own", "stated", "computed", "given_at",
                 "blanks", "fractions", "text")

    def __init__(self, question_values: set[Fraction], results: set[Fraction] | None, others: dict[Fraction, str],
                 earlier: dict[Fraction, str], own: Fraction | None, stated: set[Fraction],
                 computed: set[Fraction] | None, given_at: Callable[[str, int, int, Fraction], bool] | None,
                 blanks: list[_Blank], fractions: set[Fraction]) -> None:
        self.question_values, self.results, self.others, self.earlier = question_values, results, others, earlier
        self.own, self.stated, self.computed, self.given_at = own, stated, computed, given_at
        self.blanks, self.fractions, self.text = blanks, fractions, ""

    def blank(self, value: Fraction | None, kind: str, written: str = "") -> str:
        """A '?' with the private mark of what it hides (read by ``unknowns._one_blank_each``)."""
        if len(self.blanks) >= _MAX_BLANKS:
            return "?"
        self.blanks.append(_Blank(value, kind, written))
        return chr(_MARK0 + len(self.blanks) - 1) + "?"

    def hidden(self, value: Fraction | None) -> str:
        return self.others[value] if value is not None and value in self.others else self.blank(value, "result")

    def keep(self, mm: re.Match[str]) -> str:
        """A number the line writes, as the description shows it (itself, a Q, or a blank)."""
        text, earlier, own, results, computed = self.text, self.earlier, self.own, self.results, self.computed
        frac = _FRACTION.fullmatch(mm.group(0))
        if frac and int(frac[2]):
            # "spins 1/11 as fast": a fraction no line computes, of no step's results, stays;
            # "11/18" where 18 is Q1's result is "11/Q1"
            value, parts = Fraction(int(frac[1]), int(frac[2])), {Fraction(int(frac[1])), Fraction(int(frac[2]))}
            said = self.stated | self.fractions
            if (value.denominator != 1 and (value in said or (value.numerator == 1 and value.denominator in said))) \
                    or (results is not None and computed is not None and not parts & results
                        and (value in self.question_values or value not in computed)):
                return mm.group(0)  # ("eleven times faster": "1/11 as fast")
            # a fraction in lowest terms whose value is a step's result ("If I can only eat 4/5 of a
            # serving", 44: Q2's 4/5; "The cards he sold were 2/3 of his collection", 428: the
            # step's own), never a computation of it ("2/40")
            lowest = value.denominator != 1 and value.numerator == int(frac[1])
            if lowest and value in earlier:
                return earlier[value]
            if lowest and value == own:
                return self.blank(own, "written", mm.group(0))
            return "/".join(self.keep(_ANY.match(p)) for p in (frac[1], frac[2]))  # type: ignore[arg-type]
        shown = _numbers(mm.group(0))
        if shown <= self.question_values:
            return mm.group(0)
        if self.given_at is not None and len(shown) == 1 and self.given_at(text, mm.start(), mm.end(), next(iter(shown))):
            return mm.group(0)  # the question's given, written with its words
        # "since 1 foot is equal to 12 inches", "16 cups in 1 gallon", "for 3 weeks": a number
        # no line computes is no hidden value ("? foot" would read as an unknown)
        if results is not None and computed is not None and not shown & computed:
            return mm.group(0)
        if results is not None and not shown & results and _DIGITS.fullmatch(mm.group(0)) \
                and _INDEX.search(text[:mm.start()]):
            return mm.group(0)
        if len(shown) == 1 and next(iter(shown)) in earlier:
            return earlier[next(iter(shown))]
        one = next(iter(shown)) if len(shown) == 1 else None
        # "They spend 50% of their day" (1240): the step's own value as a percent keeps its sign
        # ("?%"), so it reads apart from the step before it that found the half (".5")
        return self.blank(one, "written", mm.group(0)) + ("%" if one == own and mm.group(0).endswith("%") else "")


def _describe(line: str, question_values: set[Fraction], results: set[Fraction] | None = None,
              others: dict[Fraction, str] | None = None, earlier: dict[Fraction, str] | None = None,
              own: Fraction | None = None, stated: set[Fraction] | None = None,
              computed: set[Fraction] | None = None,
              given_at: Callable[[str, int, int, Fraction], bool] | None = None,
              blanks: list[_Blank] | None = None, fractions: set[Fraction] | None = None) -> str:
    """The solution's words for a step with its arithmetic and every number the question
    does not state replaced by '?' (no intermediate result leaks). A number that names which
    one ("Level 3 is 32 square feet") stays unless it is a step's result; a "because" left
    with nothing to say after its computation went ("... because ?") goes. ``others`` names
    the results of the other steps (value -> "Q2"): where one of them is written, its name
    stands in its place, so that a line that computes several quantities describes each
    with one '?' ("the second runner will take ? seconds, then the third will take Q3
    seconds"). A number written without its computation is named only as the result of an
    ``earlier`` step ("he needs Q1 boxes") the question does not state: a later step's value
    there is a coincidence ("his children drank 4 gallons" is no count of the party-goers
    computed after it), and so is a value the question states ("costs $4.00"). A number that
    no line ``computed`` hides nothing and stays ("since 1 foot is equal to 12 inches", "for 3
    weeks", "spins 1/11 as fast"): a '?' there would read as an unknown. So does a number
    ``given_at`` says the question states with the same words ("if both work 20 hours" where the
    answer is $20; "for 20 chickens"), and a fraction that is the value of one of the question's
    ``fractions`` ("1/3 are to her boyfriend" for "One-third of the other emails", 957)."""
    from qcstation.core.construct.make.rules import VISIBLE_TAIL_RE, find_inline_computations
    from qcstation.core.construct.make.rules.chains import chained_computations

    d = _Describing(question_values, results, others or {}, earlier or {}, own, stated or set(), computed,
                    given_at, blanks if blanks is not None else [], fractions or set())
    hidden = d.hidden

    # "Madeline spends$25*4=$<<25*4=100>>100" (350): a word glued to the "$" of a computation
    # is read as if spaced, so the computation goes as it does elsewhere
    # (so is an operator glued to its number: "72 x1/4 = <<72*1/4=18>>18", 619)
    text = _GLUED_WORD.sub(" ", _GLUED_TIMES_AFTER.sub(r" \1", _GLUED_TIMES.sub(r"\1 ", _GLUED_DOLLAR.sub(" $", line))))
    for m in reversed(list(_ANNOT_WITH_RESULT.finditer(text))):
        # ("5 * shoe size 5 = shoe size <<5*5=25>>25", 984: the words after its "=" stay with the blank)
        before, said = words_before_result(text[: m.start()])
        had_equals = _ENDS_EQUALS.search(before) is not None
        for _ in range(5):  # "a - b = a + b = <<...>>": drop every written form of the computation
            for j in range(5):
                # (only a form the line ends with its "=": "so in 7 days/1 week she meditates 30*7 ="
                # is one computation, not "7 days/1 week she meditates" too, 1289)
                if j and not _ENDS_EQUALS.search(before):
                    break
                before = TRAILING_EQUALS.sub(" ", before)
                # (a unit glued to its number is read as a unit: "300g/5 = <<300/5=60>>60", 44)
                # ("-30/3 = <<-30/3=-10>>" (490): a sign that opens the computation is read with it)
                t = VISIBLE_TAIL_RE.search(_NEGATIVE_OPENS.sub(" ", _GLUED_UNIT.sub(
                    lambda u: " " * len(u.group(0)), before)) + "= ")
                if not t:
                    break
                before = _cut_at(before, t.start())
            if not had_equals:
                break
            # "60 plant pots for roses + 30 plant pots for daisies = <<60+30=90>>90": a computation
            # written with words between its numbers goes too, each form of it ("1.75 pounds/week
            # - ( -1.25 pounds/week) = 1.75 pounds/week + 1.25 pounds/week = <<...>>"); the
            # result alone is described
            w = worded_expr(before)
            if not w:
                break
            before = _cut_at(before, w.start())
            if not _ENDS_EQUALS.search(before):
                break
        written = _numbers(m.group(0).split(">>")[-1])
        text = before.rstrip() + f" {restored_words(before, said)}{hidden(next(iter(written)) if len(written) == 1 else None)} " \
            + text[m.end():].lstrip()
    # (a computation written in the text has its "=": a text without one has none to read)
    for c in reversed(find_inline_computations(text)):
        text = text[: c.expr_start] + hidden(c.written) + text[c.result_end:]
    # "or 2/40 = 1/20 miles per minute" (1134), "60g * 4/5 = 240g/5 = 48 grams" (44): a
    # computation whose result is a fraction, or a chain of equal terms, the inline reader
    # leaves (the rules' second reading reads the same, :mod:`.rules.chains`)
    for start, end, *_, chain_written in reversed(chained_computations(text)):
        text = text[:start] + hidden(chain_written) + text[end:]
    d.text = text  # (what a number's place is read in)
    text = _WRITTEN_NUMBER.sub(d.keep, text)
    # "Q3: Three total people can attend": the step's own result written as a counting word
    # shows it as much as in digits (another's is left: "four peaches" is no Q2 of 4 dollars;
    # so is a value the question ``stated`` itself: "four fewer cars each day")
    if own is not None and own not in question_values and own not in (stated or set()):
        text = _sub_count_words(lambda mm: d.blank(own, "written", mm.group(0))
                                if _WORDS[word_key(mm.group(0), _WORDS)] == own
                                and not _INDEX.search(text[:mm.start()]) else mm.group(0), text)
    text = _HIDDEN_COMPUTATION.sub(lambda mm: _BLANK_TOKEN.findall(mm.group(0))[-1], text)
    text = _NAME_GLUED.sub(r"\1 ", text)  # "2500km" -> "Q2 km"
    text = _SPACES.sub(" ", text).strip()
    text = _BLANK_BEFORE_STOP.sub("?", text)  # "Two pens cost ? ." (a "$0.50." gone): "cost ?."
    text = _VARIABLE_HIDDEN.sub(r"\1", text)  # "x = 24/3 = 8 white fish": "? white fish", not "x ?"
    text = _EMPTY_BECAUSE.sub("", text)
    return text[:300]


def _relation(expr: Any, label: dict[str, str], given_value: dict[str, Fraction],
              given_text: dict[str, str]) -> str:
    from qcstation.core.construct.make.notation import render_infix
    from qcstation.core.construct.make.rules.constants import factor_value

    return render_infix(_relation_terms(expr, label, given_value, given_text, factor_value))


def _relation_terms(e: Any, label: dict[str, str], given_value: dict[str, Fraction], given_text: dict[str, str],
                    factor_value: Callable[[str], Fraction | None]) -> Any:
    """``e`` with each name as the relation writes it: a given's value (a fraction or percent as
    the question writes it), a named constant's value, an earlier step's Q."""
    if isinstance(e, Name):
        k = factor_value(e.name)
        if k is not None and e.name not in given_value:
            return Num(k, "k")
        if e.name in given_value:
            v = given_value[e.name]
            if _FRACTION_OR_PERCENT.fullmatch(given_text.get(e.name, "")) \
                    and _written_value(given_text[e.name]) in (v, v * 100):
                return Name(given_text[e.name])  # a fraction as the question writes it
            # "1/16" divided as "÷ 16", "half" as "÷ 2": the value the step computes with
            if v.denominator != 1 and str(given_text.get(e.name, ""))[:1].isalpha():
                return Name(f"{v.numerator}/{v.denominator}")  # "half" as 1/2, not 0.5
            return Num(given_value[e.name], "g")
        return Name(label.get(e.name, e.name))
    if isinstance(e, Neg):
        return Neg(_relation_terms(e.operand, label, given_value, given_text, factor_value))
    if isinstance(e, BinOp):
        return BinOp(e.op, _relation_terms(e.left, label, given_value, given_text, factor_value),
                     _relation_terms(e.right, label, given_value, given_text, factor_value))
    if isinstance(e, Call):  # "the least whole number at least Q6" (notation's words)
        return Call(e.fn, _relation_terms(e.arg, label, given_value, given_text, factor_value))
    return e


def _written_value(text: str) -> Fraction | None:
    """The value a fraction or percent is written as ("1/16" -> 1/16, "45%" -> 45)."""
    try:
        return Fraction(text.rstrip("%"))
    except (ValueError, ZeroDivisionError):
        return None
