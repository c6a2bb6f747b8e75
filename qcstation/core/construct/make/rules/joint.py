"""Which place of the question each use of a value it states more than once is, chosen jointly
over every use of that value by the words: the dispatcher's second reading of a worked solution
whose first binding (each use placed on its own by :class:`~.binding.Binder`, by order where its
words did not tell) the independent check refused (:func:`forced_places`, over a first walk).

For each value the question states at two or more places, every use the steps make of it is
scored against every place by the words of both texts:

* the words the line writes right after the number ("4 mph", "20 cards she initially had")
  that one place has after it and not every place (weight 2);
* the word right before the number where the line writes it once in its prose ("but lost 5")
  that is the word right before one place and not every place ("lost 5 right before") (weight 2);
* the words that name one place and not every place ("red cars") that the line writes before
  its computation's result, after no other number of its step (weight 1): the result's noun
  ("6 * 3 = 18 fries") says what the result counts, not which place an operand is;
* the noun of the whole another number of the step is a share of ("One-third of the girls" for
  "12 x 1/3" beside "12 boys and 12 girls"), where that noun names one place (weight 2);
* the clause of one place that states a number of the earlier results a product of the use and
  those results only multiplies ("60 toys * 2 workers", 60 = "6 toys * 10 hours": "2 of the
  workers produce 6 toys an hour"), where every such use finds its own place so (weight 1);
* the words of one place's clause that the question writes nowhere else ("luge") that the line
  writes (weight 1), and the words of one place's sentence that no other place's sentence writes
  that the line writes before its result ("On the second day") (weight 1);
* a mark on the line that names the first of the places ("the original 18 pink flamingos") for the
  one place no mark makes a complement or restatement, every other place having one ("another 18")
  (weight 2).

The words of the step's other numbers are no evidence, also where the line writes one in words
("Two of Cherries friends in total want 2*5": the 2's friends); a number of the step the question
states at several places is where the first walk placed it by its words, not by order, and its clause
is evidence as a number stated once is ("2 of her friends want 5 gifts": the 5 gifts).

A difference that takes what is left of a whole after its share ("This left 18 pink - 6", 6 being
"18*1/3" for "one third") is the place of the whole's use, where that use's words chose one place and
this one's none. One commutative chain that writes the value once for each of two places with the same
words after each ("Three persons eat 3 x 3 = 9 eggs each day") takes one of each, where the line's
words name one place and its result's words the other ("three people", "three eggs"); a product of
two uses of one value says nothing of either by its result's words.

A use the first walk placed by the reading of its step's other operand is that place, as its own
words would choose it: a word that points back ("three times that number": the number stated right
before the word, :mod:`.referents`), or an earlier result that a rate of one place is per ("each
family calls 3 other families" for "9 x 3" after "= 9 families called").

What a use does limits its places: a value divided by 100 as written is a percent the question
states ("20 x 20/100" for "20% enrolled"), and one neither divided by 100 nor written with "%" on
its line is no percent, where the question states the value both ways. A use whose words prefer
some of its places can only be one of those (its own words are never overruled); one whose words
prefer none may be any. The assignment must use every place when there are at least as many uses
as places (elimination), and puts two uses of one step at one place only where the words of each
chose it and every other place is chosen by the words of a use in another step (a line's words
are the same for both uses of its step). Assignments that differ only by which of a step's uses
of one chain of one commutative operator ("12 + 12") is which place make one term and count once.
A place listed right beside another ("12 boys and 12 girls") shares its clause's words with it.
A place that is each one's of the names its sentence opens with ("Hulu and Disney Plus normally
cost $10 a month each") may be used by one step once per name, where the words of each use chose
it, with no other place chosen by words elsewhere (the other places are used by elimination).
Only when exactly one assignment is left is it taken;
otherwise nothing is decided for that value and the binder keeps its own reading (and refusal).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.construct.make.rules.binding import sentence_bounds
from qcstation.core.construct.make.rules.clause_words import _NAME, _NO_EVIDENCE, _stems_in, clause_span, phrase_at
from qcstation.core.construct.make.rules.joint_steps import one_of_each, sharers, what_is_left, whole_of
from qcstation.core.construct.make.rules.role_places import role_evidence, use_role
from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num, leaves
from qcstation.core.reading.words import (ANNOTATION, NUMERAL, NUMBER_WORD_VALUES, line_stems, number_word_stems,
                                         numeral_value, solution_stems, stem)

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.binding import Binder

#: the most assignments enumerated for one value (more: nothing is decided)
MAX_ASSIGNMENTS = 4096


@dataclass(frozen=True)
class Use:
    """One use of a value the binder placed: step index, value, its rank among the step's
    uses of that value (as the binder counts them), and the step's other written values."""

    step: int
    value: Fraction
    nth: int
    others: tuple[Fraction, ...]
    per100: bool = False  # divided by 100 as written ("20/100", "$100 x 2/100"): a percent
    once: bool = True  # the step writes the value once
    #: where the question states the step's other numbers that it states at one place only
    anchors: tuple[int, ...] = ()
    #: the noun a rate among the step's other numbers is per ("3 dress shirts per suit" for
    #: "3*10"): read only for a use whose own words name no place (:func:`_by_what_it_uses`)
    rate_words: frozenset[str] = frozenset()
    #: every use of the value its step writes is an operand of one chain of one commutative
    #: operator ("12 + 12", "3 * 4 * 3"): which of them is which place leaves the term unchanged
    swappable: bool = False
    #: the words after the step's result on its line, where the result counts what the use
    #: counts: a sum or difference, or the use times or over a word that multiplies ("4 / 2 = 2
    #: movies every Sunday" for "half the number of movies"); read only where its own words name
    #: no place (:func:`_by_what_it_uses`)
    result_words: frozenset[str] = frozenset()
    #: where the place is that the reading of the step's other operand settled, as the first walk
    #: read it (a word that points back: "three times that number", :mod:`.referents`; a rate per
    #: what an earlier result counts: "each family calls 3 other families"); -1: none
    settled: int = -1
    #: where the question states the numbers of the earlier steps a product of this use and earlier
    #: results multiplies (each at one place), read only where the step writes no other number
    #: ("60 toys * 2 workers", 60 being "6 toys * 10 hours": the 6 of "2 of the workers produce 6 toys")
    through: tuple[int, ...] = ()
    #: the step whose use of the value this difference takes its remainder of ("This left 18 pink - 6"
    #: after "one third of the original 18 pink flamingos ... 18*1/3 = 6"): that use's place; -1: none
    whole_of: int = -1
    #: the use divides (the right of a "/"): an even split divides by the sharers (:func:`.joint_steps.sharers`)
    divisor: bool = False
    #: what the use does: "times", "divisor" or "" (:func:`.role_places.use_role`)
    role: str = ""


def _scores(question: str, starts: list[int], own: list[frozenset[str]], line: str, use: Use) -> list[int]:
    """The words' evidence for each place (see the module docstring)."""
    common = frozenset.intersection(*own) if own else frozenset()
    after = solution_stems(line, use.value, 4, use.nth) - _NO_EVIDENCE if line else frozenset()
    said = line_stems(line) - _NO_EVIDENCE
    for o in use.others:
        said -= solution_stems(line, o)
        # and the words of its number word ("Two of Cherries friends in total want 2*5", 503)
        said -= frozenset().union(*number_word_stems(line, o)) if line else frozenset()
    # the nouns the line writes before its computation's result: what the result counts is no
    # evidence of which place an operand is ("6 * 3 = 18 fries" for a raccoon's "two thirds")
    before = said & line_stems(ANNOTATION.sub(" ", line).split("=", 1)[0])
    names = line_stems(" ".join(_NAME.findall(question)))
    spans = [clause_span(question, s) for s in starts]
    # the word right before the value where the line writes it in its prose ("but lost 5"),
    # against the word right before each place ("lost 5 right before the comparison")
    pre: frozenset[str] = frozenset()
    if use.once and line:
        prose = ANNOTATION.sub(" ", line[:2000])
        for m in NUMERAL.finditer(prose):
            if numeral_value(m) == use.value:
                pre |= phrase_at(prose, m.start(), m.end())[0]
    widths = _widths(question, starts)
    q_pre = [phrase_at(question, s, s + width)[0] for s, width in zip(starts, widths)]
    common_pre = frozenset.intersection(*q_pre) if q_pre else frozenset()
    # the word that makes a place a complement or a restatement ("the other two pizzas"), which
    # the stems above drop as a common word, right before the value on the line and in the question
    said_marks = _line_marks(line, use.value) if use.once and line else frozenset()
    # the words after the value where the line's prose writes it once outside its computation
    # ("= 24 movies in four weeks"), against the words that name each place
    said_post = _line_post(line, use.value) if use.once and line else frozenset()
    q_marks = [_mark_before(question, s) for s in starts]
    common_marks = frozenset.intersection(*q_marks) if q_marks else frozenset()
    out = []
    for i, (s, sp) in enumerate(zip(starts, spans)):
        mine = own[i] - common - _NO_EVIDENCE
        score = 2 * len(after & mine) + len(before & mine - names) + 2 * len(pre & (q_pre[i] - common_pre))
        score += 2 * len(said_marks & (q_marks[i] - common_marks)) + 2 * len(said_post & mine)
        if said_marks & _FIRST_MARKS and not q_marks[i] and all(q_marks[j] for j in range(len(starts)) if j != i):
            score += 2  # "the original 18 pink flamingos" (194): the one place no "another" marks
        if spans.count(sp) == 1 and not _listed(question, starts, i):
            a, b = sp
            unique = (_stems_in(question, sp, s) - _NO_EVIDENCE) - line_stems(question[:a] + " . " + question[b:]) - names
            # nor the words that name another place too ("three are wearing" counts the women of
            # "Three of the women", 1110: its noun left out)
            unique -= frozenset().union(*(own[j] for j in range(len(starts)) if j != i))
            score += len(unique & said)
        out.append(score)
    # the clause of one place states another number of the step ("Teddy finished half of a 500
    # piece puzzle" for "1/2 * 500"), the clause of no other place does
    if len(set(spans)) == len(spans):
        for anchor in use.anchors or use.through:
            holding = [i for i, (a, b) in enumerate(spans) if a <= anchor < b]
            if len(holding) == 1:
                out[holding[0]] += 1
    # a share of a named whole, stated as another number of the step ("One-third of the girls"
    # for "12 x 1/3" beside "12 boys and 12 girls"): the one place that whole's noun names
    for anchor in use.anchors:
        share = _SHARE_OF.match(question, anchor)
        if share is None:
            continue
        whole = stem(share.group(1))
        naming = [i for i in range(len(starts)) if whole in own[i] - common - _NO_EVIDENCE]
        if len(naming) == 1:
            out[naming[0]] += 2
    # the sentence of one place: its words no other place's sentence writes, on the line before
    # its result ("On the second day, he does 100+20" for "On the second day, he does 20 more
    # pushups"); the sentence of the step's other numbers is no evidence ("100+20" adds the
    # first day's 100 pushups to the second day's "20 more")
    bounds = sentence_bounds(question)
    sent = [next(k for k, e in enumerate(bounds) if s < e) for s in starts]
    if len(set(sent)) == len(sent):
        words = [line_stems(question[(bounds[k - 1] if k else 0):bounds[k]]) for k in sent]
        for i in range(len(starts)):
            rest = frozenset().union(*(w for j, w in enumerate(words) if j != i))
            out[i] += len((words[i] - rest - names - _NO_EVIDENCE) & before)
    return out


#: what a count listed beside another count of one clause writes between them ("12 boys and 12
#: girls", "3 pairs of shorts, 3 pairs of pants"): its noun and a comma or "and"
_LISTED_BETWEEN = re.compile(r"\s*(?:[A-Za-z-]+\s+){0,3}?[A-Za-z-]+\s*(?:,\s*(?:and\s+)?|and\s+|or\s+)\$?$", re.I)


def _listed(question: str, starts: list[int], i: int) -> bool:
    """Is the place ``i`` listed right beside another place of the value ("12 boys and 12
    girls")? Such places share their clause's words ("Miss Albert's class is composed of"):
    the clause break before the second count is no boundary of what the words say."""
    m = re.match(r"[\d$.,]+|[A-Za-z]+", question[starts[i]:starts[i] + 40])
    end = starts[i] + (m.end() if m else 1)
    for j, s in enumerate(starts):
        if j == i:
            continue
        m2 = re.match(r"[\d$.,]+|[A-Za-z]+", question[s:s + 40])
        e2 = s + (m2.end() if m2 else 1)
        if (s > end and _LISTED_BETWEEN.fullmatch(question, end, s)) \
                or (starts[i] > e2 and _LISTED_BETWEEN.fullmatch(question, e2, starts[i])):
            return True
    return False


#: a share stated before the whole it is a share of ("One-third of the girls", "1/4 of the
#: employees", "half of his cards"): the whole's noun
_SHARE_OF = re.compile(r"(?:\d+\s*/\s*\d+|\d+(?:\.\d+)?\s*%|[A-Za-z]+(?:[- ](?:half|halves|thirds?|quarters?"
                       r"|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?))?)\s+of\s+"
                       r"(?:the\s+|his\s+|her\s+|their\s+|its\s+)?([A-Za-z]+)", re.I)


#: a word right before a number (one word may come between: "the other two", "another 18 pink")
#: that makes it a complement or a restatement of a quantity
_MARK = re.compile(r"\b(other|another|remaining|rest|next|last|previous|original|initial|first|second|third"
                   r"|final)\s+(?:[A-Za-z]+\s+)?\$?$", re.I)


#: a mark on a line that names the first of the places ("the original 18"): the place no mark makes a
#: complement or a restatement, where every other place has one ("another 18 pink plastic flamingos")
_FIRST_MARKS = frozenset({"original", "initial"})


def _mark_before(text: str, start: int) -> frozenset[str]:
    m = _MARK.search(text[max(0, start - 30):start])
    return frozenset({m.group(1).lower()}) if m else frozenset()


def _line_marks(line: str, value: Fraction) -> frozenset[str]:
    """The marks (:data:`_MARK`) right before the one place the line's prose writes ``value``,
    in digits or in words, outside a computation ("Each of the other two pizzas cost 34/2":
    "other"); none when it writes it at more than one such place."""
    prose = ANNOTATION.sub(" ", line[:2000])
    at = []
    for m in _PROSE_NUMBER.finditer(prose):
        word = m.group(0).lower()
        v = Fraction(NUMBER_WORD_VALUES[word]) if word in NUMBER_WORD_VALUES else Fraction(word)
        if v == value and not re.match(r"\s*[-+*/x×÷=]", prose[m.end():m.end() + 3]) \
                and not re.search(r"[-+*/x×÷]\s*$", prose[max(0, m.start() - 3):m.start()]):
            at.append(m.start())
    return _mark_before(prose, at[0]) if len(at) == 1 else frozenset()


def _line_post(line: str, value: Fraction) -> frozenset[str]:
    """The words after the one place the line's prose writes ``value`` outside a computation
    ("24 movies in four weeks": weeks); none when it writes it at more than one such place."""
    prose = ANNOTATION.sub(" ", line[:2000])
    at = []
    for m in _PROSE_NUMBER.finditer(prose):
        word = m.group(0).lower()
        v = Fraction(NUMBER_WORD_VALUES[word]) if word in NUMBER_WORD_VALUES else Fraction(word)
        if v == value and not re.match(r"\s*[-+*/x×÷=]", prose[m.end():m.end() + 3]) \
                and not re.search(r"[-+*/x×÷=]\s*$", prose[max(0, m.start() - 3):m.start()]):
            at.append(m)
    if len(at) != 1:
        return frozenset()
    return phrase_at(prose, at[0].start(), at[0].end())[1]


_PROSE_NUMBER = re.compile(r"(?<![\w.$/])\d+(?:\.\d+)?(?![\d./\w])|\b(?:" + "|".join(NUMBER_WORD_VALUES) + r")\b",
                           re.I)


def _widths(question: str, starts: list[int]) -> list[int]:
    """How many characters the number at each start writes (digits, or a number word)."""
    out = []
    for s in starts:
        m = re.match(r"[$]?[\d,]*\.?\d+|[A-Za-z]+", question[s:s + 40])
        out.append(len(m.group(0)) if m else 1)
    return out


def _after_percent(question: str, start: int) -> frozenset[str]:
    """The words right after a percent the question states at ``start`` ("50% girls": girls)."""
    m = re.match(r"\d[\d,]*(?:\.\d+)?\s*(?:%|percent\b)", question[start:start + 20])
    if m is None:
        return frozenset()
    return phrase_at(question, start, start + m.end())[1]


def _percent_places(own: list[frozenset[str]]) -> list[int]:
    return [i for i, w in enumerate(own) if "%" in w]


def _allowed(u: Use, line: str, own: list[frozenset[str]]) -> list[int]:
    """The places a use may be by what it does: a value divided by 100 as written is a percent
    the question states ("20% enrolled" for "20 x 20/100"), and a use neither divided by 100 nor
    written with "%" on its line is no percent ("20 - 4" is the 20 students), where the question
    states the value both ways."""
    pct = _percent_places(own)
    every = list(range(len(own)))
    if not pct or len(pct) == len(own):
        return every
    if u.per100:
        return pct
    if re.search(r"(?<![\d.])" + re.escape(_plain(u.value)) + r"\s*%", ANNOTATION.sub(" ", line)):
        return every
    return [i for i in every if i not in pct]


def _plain(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else str(float(v))


def _by_what_it_uses(question: str, starts: list[int], own: list[frozenset[str]], use: Use,
                     line: str = "") -> list[int]:
    """The evidence for each place of a use whose own line names none, from what its step uses:

    * the name the line opens with, where it is the first name of one place's clause and of no
      other, every place's clause naming one ("So Jean is 21+2" for "Jean is two years older than Mark", not "Two years ago Mark
      was 5 years older"); the words of an earlier step's line it uses are no evidence ("2 x 17",
      17 being "the combined height of the two trees", is "twice", not "two trees");
    * the period the line says the step's result is per ("3*300 = 900 miles per day"), where one
      place is a number of times in that period ("3 times a day") and no other is ("3 different
      cities");
    * the noun a rate among the step's other numbers is per, where it names one place ("3 dress
      shirts per suit" for "3*10": the "10 suits");
    * what the step's result counts, where the use counts the same (a sum or a difference, or the
      use times or over a word that multiplies: "4 / 2 = 2 movies every Sunday" for "half the
      number of movies", "4 + 2 = 6 movies every weekend"), where it names one place; a product
      of two counts is not read so ("6 * 3 = 18 fries");
    * the one place whose sentence states every other number of the step, two or more, where no
      other place's sentence states any ("100+50+20" for "He does 100 pushups, 50 squats, and 20
      dumbbell presses on the first day", not the second day's "20 more pushups"); one other
      number is no evidence ("100+20" adds the first day's pushups to the second day's 20 more)."""
    common = frozenset.intersection(*own) if own else frozenset()
    out = []
    for i in range(len(starts)):
        mine = own[i] - common - _NO_EVIDENCE
        out.append(len(use.rate_words & mine))
    sharing = sharers(question, own, line) if use.divisor else None
    if sharing is not None:
        out[sharing] += 1  # "So each of them paid $102/3" for "split all the costs evenly" (190)
    # what the result counts, where the use counts the same ("4 + 2 = 6 movies every weekend"):
    # the one place whose own words name it
    naming = [i for i in range(len(starts)) if use.result_words & (own[i] - common - _NO_EVIDENCE)]
    if len(naming) == 1:
        out[naming[0]] += 1
    # the period the step's result is per ("= 900 miles per day"): the one place that is a
    # number of times in that period ("3 times a day"), not a count of things ("3 different cities")
    period = _result_period(line)
    if period:
        freq = [i for i, s in enumerate(starts) if _times_per(question, s, period)]
        if len(freq) == 1:
            out[freq[0]] += 1
    subject = _line_subject(question, line)
    if subject:
        firsts = [_clause_name(question, s) for s in starts]
        # every clause names its subject: a clause that leaves it out ("and then started and
        # finished another 500 piece puzzle") may be the same person's
        if all(firsts) and firsts.count(subject) == 1:
            out[firsts.index(subject)] += 1
    role_evidence(question, starts, use.role, out)  # "24/6" is "six times as many", "4+6" "six more ... than"
    if len(use.anchors) >= 2:
        bounds = sentence_bounds(question)
        sent = [next(k for k, e in enumerate(bounds) if s < e) for s in starts]
        at = [next(k for k, e in enumerate(bounds) if a < e) for a in use.anchors]
        if len(set(sent)) == len(sent) and len(set(at)) == 1 and at[0] in sent:
            out[sent.index(at[0])] += 1
    return out


#: a sentence that opens with two or more names joined by "and" ("Hulu and Disney Plus normally
#: cost"), up to the value
_NAMES_OPEN = re.compile(r"\s*(?P<first>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)"
                         r"(?P<more>(?:\s*,\s*[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)*)"
                         r",?\s+and\s+[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*\s+[a-z][^.?!;,]*$")
_EACH_AFTER = re.compile(r"[^.?!;,]*?\beach\b", re.I)


def _each_of_names(question: str, start: int) -> int:
    """How many names the place at ``start`` is each one's: its sentence opens with the names
    joined by "and" and its clause says "each" after the value ("Hulu and Disney Plus normally
    cost $10 a month each": 2); 0 where it is not."""
    bounds = sentence_bounds(question)
    k = next(i for i, e in enumerate(bounds) if start < e)
    head = question[bounds[k - 1] if k else 0:start].rstrip("$")
    m = _NAMES_OPEN.fullmatch(head)
    if m is None:
        return 0
    n = re.match(r"[\d$.,]+|[A-Za-z]+", question[start:start + 40])
    end = start + (n.end() if n else 1)
    if not _EACH_AFTER.match(question, end, bounds[k]):
        return 0
    return 2 + len(re.findall(r",", m.group("more")))


def _twice_worded(uses: list[Use], pick: tuple[int, ...], worded: list[bool], n: int,
                  each_of: list[int] | None = None) -> bool:
    """One place twice in a step only where the words of each use chose it and every other place
    is chosen by the words of a use in another step ("The total times that they ride the luge is
    2+2" beside "roller coaster is 2+4"); the words of a line are the same for both uses of a step
    ("Three persons eat 3 x 3": three people, three eggs), so they never tell one place twice from
    two places otherwise."""
    twice: dict[int, set[int]] = {}
    seen: dict[tuple[int, int], int] = {}
    for u, p in zip(uses, pick):
        seen[(u.step, p)] = seen.get((u.step, p), 0) + 1
        if seen[(u.step, p)] > 1:
            twice.setdefault(u.step, set()).add(p)
    for step, places in twice.items():
        if not all(w for u, p, w in zip(uses, pick, worded) if u.step == step and p in places):
            return False
        if each_of and all(each_of[p] == sum(1 for u, q in zip(uses, pick) if u.step == step and q == p)
                           for p in places):
            continue  # the place is each one's of the names it follows, as often as the step uses it
        elsewhere = {p for u, p, w in zip(uses, pick, worded) if u.step != step and w}
        if not set(range(n)) - places <= elsewhere:
            return False
    return True


def joint_places(question: str, starts: list[int], own: list[frozenset[str]], uses: list[Use],
                 lines: list[str]) -> list[int] | None:
    """The place (index into ``starts``) of each of ``uses`` (the uses of one value, whose
    places are ``starts``, named by ``own``), when the words leave exactly one assignment;
    else None."""
    if len(starts) < 2 or not uses or len(set(starts)) != len(starts):
        return None
    # a percent is named by what it is a percent of, after its "%" ("50% boys and 50% girls")
    own = [o | _after_percent(question, s) for o, s in zip(own, starts)]
    uses = _through_each_its_own(question, starts, uses)
    options: list[list[int]] = []
    worded: list[bool] = []  # the use's own words chose its places
    for u in uses:
        line = lines[u.step] if u.step < len(lines) else ""
        allowed = _allowed(u, line, own)
        if u.settled in starts and starts.index(u.settled) in allowed:
            options.append([starts.index(u.settled)])
            worded.append(True)
            continue
        sc = _scores(question, starts, own, line, u)
        top = max(sc[i] for i in allowed) if allowed else 0
        if top == 0 and allowed:
            sc = _by_what_it_uses(question, starts, own, u, line)
            top = max(sc[i] for i in allowed)
        options.append([i for i in allowed if sc[i] == top] if top > 0 else allowed)
        worded.append(top > 0)
    one_of_each([(u.step, u.value, u.nth, u.swappable) for u in uses], options, worded, own, lines,
                [_allowed(u, lines[u.step] if u.step < len(lines) else "", own) for u in uses])
    what_is_left([(u.step, u.whole_of) for u in uses], options, worded)
    total = 1
    for o in options:
        total *= len(o)
        if total > MAX_ASSIGNMENTS:
            return None
    cover = len(uses) >= len(starts)
    each_of = [_each_of_names(question, s) for s in starts]
    found: list[tuple[int, ...]] = []
    terms: set[tuple[object, ...]] = set()
    for pick in itertools.product(*options):
        if cover and len(set(pick)) != len(starts):
            continue
        if not _twice_worded(uses, pick, worded, len(starts), each_of):
            continue
        term = _term_of(uses, pick)
        if term in terms:
            continue  # the same term as an assignment found: the uses of one chain swapped
        terms.add(term)
        found.append(pick)
        if len(found) > 1:
            return None
    if not cover and found and not all(worded):
        return None  # a use no words place, with a place left over: it may be any
    return list(found[0]) if found else None


def _through_each_its_own(question: str, starts: list[int], uses: list[Use]) -> list[Use]:
    """The numbers of earlier results (:attr:`Use.through`) are evidence only where every use that
    reads them finds them in the clause of one place, each use another place ("2 of the workers
    produce 6 toys an hour, and another 2 workers produce 4 toys an hour": 6 for one 2, 4 for the
    other); else they are dropped ("2 of the workers and another 2 workers produce 6 toys an hour
    and 4 toys an hour" puts the 6 in the second 2's clause and the 4 in none)."""
    reading = [k for k, u in enumerate(uses) if not u.anchors and u.through]
    if not reading:
        return uses
    spans = [clause_span(question, s) for s in starts]
    held = [{i for i, (a, b) in enumerate(spans) for t in uses[k].through if a <= t < b} for k in reading]
    if len(reading) >= 2 and len(set(spans)) == len(spans) and all(len(h) == 1 for h in held) \
            and len({next(iter(h)) for h in held}) == len(held):
        return uses
    return [replace(u, through=()) if k in reading else u for k, u in enumerate(uses)]


def _term_of(uses: list[Use], pick: tuple[int, ...]) -> tuple[object, ...]:
    """What an assignment makes of the steps' terms: the place of each use, except that the
    places of a step's swappable uses (one commutative chain) are one multiset."""
    out: list[object] = []
    chains: dict[int, list[int]] = {}
    for u, p in zip(uses, pick):
        if u.swappable:
            chains.setdefault(u.step, []).append(p)
        else:
            out.append((u.step, u.nth, p))
    out.extend((step, tuple(sorted(ps))) for step, ps in sorted(chains.items()))
    return tuple(out)


def _one_chain(e: Expr, v: Fraction) -> bool:
    """Are all the written uses of ``v`` in ``e`` (two or more) operands of one flat chain of one
    commutative operator ("12 + 12 = 24", "3*3*2"), or terms one difference takes away ("100 - 20 - 20")?"""
    def flat(x: Expr, op: str) -> list[Expr]:
        if isinstance(x, BinOp) and x.op == op:
            return flat(x.left, op) + flat(x.right, op)
        return [x]

    total = sum(1 for leaf in leaves(e) if leaf.text and leaf.value == v)
    if total < 2:
        return False
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Neg):
            stack.append(x.operand)
        elif isinstance(x, BinOp):
            if x.op in "+*":
                ops = flat(x, x.op)
                here = sum(1 for o in ops if isinstance(o, Num) and o.text and o.value == v)
                if here == total:
                    return True
                stack.extend(ops)
            elif x.op == "-":  # "100 - 20 - 20": the terms taken away, in any order
                taken: list[Expr] = []
                head: Expr = x
                while isinstance(head, BinOp) and head.op == "-":
                    taken.append(head.right)
                    head = head.left
                if sum(1 for o in taken if isinstance(o, Num) and o.text and o.value == v) == total:
                    return True
                stack.extend([head, *taken])
            else:
                stack.extend((x.left, x.right))
    return False


def forced_places(binder: Binder) -> dict[tuple[int, Fraction, int], int]:
    """The place (index into the binder's numbers) of every use a first walk of ``binder``
    placed, for each value the question states at several places whose uses the words assign
    jointly (:func:`joint_places`); keyed by (step, value, nth) as the binder walks."""
    out: dict[tuple[int, Fraction, int], int] = {}
    by_v: dict[Fraction, list[tuple[int, int]]] = {}
    for step, v, nth, idx in binder.records:
        if idx < len(binder.numbers) and v not in (0, 1, 100):
            by_v.setdefault(v, []).append((step, nth))
    for v, keys in by_v.items():
        first: dict[int, int] = {}
        for j in binder.by_value.get(v, []):
            first.setdefault(binder.numbers[j].start, j)
        if len(first) < 2:
            continue
        starts = sorted(first)
        uses = [Use(step, v, nth, tuple(sorted({leaf.value for leaf in leaves(binder.exprs[step])
                                                if leaf.text and leaf.value != v})),
                    _over_100(binder.exprs[step], v, nth),
                    sum(1 for leaf in leaves(binder.exprs[step]) if leaf.text and leaf.value == v) == 1,
                    _anchors(binder, step, v), _rate_words(binder, step, v), _one_chain(binder.exprs[step], v),
                    _result_words(binder, step, v),
                    binder.numbers[binder.settled[(step, v, nth)]].start if (step, v, nth) in binder.settled else -1,
                    _through(binder, step, v), whole_of(binder.exprs, binder.lines or [], binder.question, step, v),
                    _divides(binder.exprs[step], v), use_role(binder.exprs[step], v, nth))
                for step, nth in keys]
        lines = binder.lines or []
        pick = joint_places(binder.question, starts, [binder.numbers[first[s]].stems for s in starts], uses, lines)
        if pick is None:
            continue
        for (step, nth), p in zip(keys, pick):
            out[(step, v, nth)] = first[starts[p]]
    return out


#: the period a line's result is per, right after its result ("= 900 miles per day")
_RESULT_PERIOD = re.compile(r"=\s*\$?[\d.,]+\s+(?:[A-Za-z]+\s+){0,2}?(?:per|every|each|a)\s+"
                            r"(day|week|month|year|hour|minute)s?\b", re.I)


def _result_period(line: str) -> str:
    """The period the step's result is per, written right after it on the line; else ""."""
    found = {m.group(1).lower() for m in _RESULT_PERIOD.finditer(ANNOTATION.sub(" ", line[:2000]))}
    return found.pop() if len(found) == 1 else ""


def _times_per(question: str, start: int, period: str) -> bool:
    """Is the place at ``start`` a number of times in ``period`` ("3 times a day")?"""
    return re.match(r"[\w$.,]+\s+times?\s+(?:a|per|every|each)\s+" + period + r"\b",
                    question[start:start + 60], re.I) is not None


def _names(text: str, pos: int = 0, endpos: int | None = None) -> list[str]:
    """The capitalised words of ``text[pos:endpos]`` that may be names: no number word ("Two years
    ago") and no common word that opens a sentence ("The", "If", "So")."""
    found = _NAME.findall(text, pos, len(text) if endpos is None else endpos)
    return [w for w in found if w.lower() not in NUMBER_WORD_VALUES and not line_stems(w) <= frozenset()
            and line_stems(w) and w.lower() not in _OPENERS]


#: capitalised words that open a sentence and name no one
_OPENERS = frozenset("""if so then thus therefore hence since when after before on in at for the a an each every
    there this that these those what how which who she he they it his her their we you i she's he's
    she'd he'd it's from by with over during while until first second third last next finally also
    total altogether together""".split())


def _line_subject(question: str, line: str) -> str:
    """The name a line opens with ("So Jean is 21+2": Jean), before its first number, where the
    question writes that name; else ""."""
    head = re.split(r"\d", ANNOTATION.sub(" ", line[:300]), maxsplit=1)[0]
    names = set(_names(question))
    found = [w for w in _names(head) if w in names]
    return found[0] if found else ""


def _clause_name(question: str, start: int) -> str:
    """The first name of the clause of the place at ``start`` (its subject: "Jean is two years
    older", "Two years ago Mark was")."""
    a, b = clause_span(question, start)
    found = _names(question, a, b)
    return found[0] if found else ""


#: a rate's noun in the question: "3 dress shirts per suit", "$2 for each box"
_PER_NOUN = re.compile(r"\b(?:per|each|every)\s+([A-Za-z]+)", re.I)


def _rate_words(binder: Binder, step: int, v: Fraction) -> frozenset[str]:
    """The nouns the other numbers of a product or quotient ``step`` are rates per, each stated
    at one place only ("3 dress shirts per suit"): what the step's ``v`` may count."""
    e = binder.exprs[step]
    if not (isinstance(e, BinOp) and e.op in "*/"):
        return frozenset()
    out: set[str] = set()
    for leaf in leaves(e):
        if not leaf.text or leaf.value == v or leaf.value in (0, 1):
            continue
        at = {binder.numbers[j].start for j in binder.by_value.get(leaf.value, [])}
        if len(at) != 1:
            continue
        a, b = clause_span(binder.question, next(iter(at)))
        m = _PER_NOUN.search(binder.question, next(iter(at)), b)
        if m:
            out.add(stem(m.group(1)))
    return frozenset(out)


def _result_words(binder: Binder, step: int, v: Fraction) -> frozenset[str]:
    """The words after the step's result on its line, where the result counts what ``v`` counts:
    the step is a chain of sums and differences, or a product or quotient whose other numbers are
    each a word that multiplies the question writes and states no digit of ("half", "twice")."""
    from qcstation.core.construct.make.rules.phrases import phrase_re
    from qcstation.core.reading.expr import evaluate
    from qcstation.core.reading.words import WORD_GIVENS, result_words

    e = binder.exprs[step]
    lines = binder.lines or []
    if step >= len(lines) or not isinstance(e, BinOp):
        return frozenset()
    ops: set[str] = set()
    atoms: list[Expr] = []
    stack: list[Expr] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, BinOp):
            ops.add(x.op)
            stack.extend((x.left, x.right))
        elif isinstance(x, Neg):
            stack.append(x.operand)
        else:
            atoms.append(x)
    if not ops <= {"+", "-"}:
        if not ops <= {"*", "/"} or sum(1 for x in atoms if isinstance(x, Num) and x.text and x.value == v) > 1:
            return frozenset()  # "5 x 5 = 25 red pens": a product of two counts of one value (1197)
        for leaf in atoms:
            if not isinstance(leaf, Num):
                return frozenset()  # an earlier result: what it counts is not read here
            if leaf.value == v or not leaf.text:
                continue
            if binder.by_value.get(leaf.value) or leaf.text.startswith("k_") or not any(
                    leaf.value in vals and phrase_re(p, True).search(binder.question) for p, vals in WORD_GIVENS.items()):
                return frozenset()
    try:
        result = evaluate(e, {})
    except Exception:  # noqa: BLE001 - a term with an earlier result: the line's one annotation says it
        found = [m for a in ANNOTATION.findall(lines[step][:2000]) if "=" in a
                 for m in NUMERAL.finditer(a.rsplit("=", 1)[1])][:2]
        value = numeral_value(found[0]) if len(ANNOTATION.findall(lines[step][:2000])) == 1 and found else None
        if value is None:
            return frozenset()
        result = value
    return result_words(ANNOTATION.sub(" ", lines[step][:2000]), result) - {"$"}


def _anchors(binder: Binder, step: int, v: Fraction) -> tuple[int, ...]:
    """Where the question states the other numbers of ``step`` that it states at one place only
    (a digit, or a word given it writes once: "half")."""
    from qcstation.core.construct.make.rules.phrases import phrase_re
    from qcstation.core.reading.words import WORD_GIVENS

    out = []
    for leaf in leaves(binder.exprs[step]):
        if not leaf.text or leaf.value == v or leaf.value in (0, 1):
            continue
        at = {binder.numbers[j].start for j in binder.by_value.get(leaf.value, [])}
        if not at:
            at = {m.start() for p, vals in WORD_GIVENS.items() if leaf.value in vals
                  for m in phrase_re(p, True).finditer(binder.question)}
        if len(at) > 1:
            # a number the question states at several places, placed in this step by its own words
            # ("Two of Cherries friends ... 2*5": "2 of her friends want 5 gifts", 503), not by order
            placed = {j for s, pv, _, j in binder.records if s == step and pv == leaf.value}
            if len(placed) == 1 and next(iter(placed)) < len(binder.numbers) \
                    and not binder.chosen_by_order.get(next(iter(placed))):
                at = {binder.numbers[next(iter(placed))].start}
        if len(at) == 1:
            out.append(next(iter(at)))
    return tuple(out)


def _through(binder: Binder, step: int, v: Fraction) -> tuple[int, ...]:
    """Where the question states the numbers of the earlier steps ``step`` multiplies ``v`` by, for a
    step that is one product of ``v`` and earlier results only (:func:`_anchors` of each of those
    steps, ``v`` written once)."""
    e = binder.exprs[step]
    if not (isinstance(e, BinOp) and e.op == "*"):
        return ()
    sides = [e.left, e.right]
    if sum(isinstance(x, Num) and x.value == v and bool(x.text) for x in sides) != 1 \
            or not all(isinstance(x, Name) or (isinstance(x, Num) and x.value == v) for x in sides):
        return ()
    out: list[int] = []
    for x in sides:
        m = re.match(r"s(\d+)(?:_|$)", x.name) if isinstance(x, Name) else None
        if m and 0 < int(m.group(1)) <= step:
            out += _anchors(binder, int(m.group(1)) - 1, v)
    return tuple(out)


def _divides(e: Expr, v: Fraction) -> bool:
    """Is the step one quotient whose divisor is ``v`` as written ("102/3")?"""
    return isinstance(e, BinOp) and e.op == "/" and isinstance(e.right, Num) and e.right.value == v \
        and bool(e.right.text)


def _over_100(e: Expr, v: Fraction, nth: int) -> bool:
    """Is the ``nth`` written use of ``v`` in ``e`` (in the binder's walk order) divided by 100
    as written: "20/100" (the left of a division by 100) or "$100 x 2/100" (the right factor of
    a product divided by 100)?"""
    marked: list[bool] = []

    def walk(x: Expr, mark: bool) -> None:
        if isinstance(x, Num):
            if x.text and not x.text.startswith("k_") and x.value == v:
                marked.append(mark)
        elif isinstance(x, Neg):
            walk(x.operand, False)
        elif isinstance(x, BinOp):
            by100 = x.op == "/" and isinstance(x.right, Num) and x.right.value == 100
            if by100 and isinstance(x.left, BinOp) and x.left.op == "*":
                walk(x.left.left, False)
                walk(x.left.right, True)
            else:
                walk(x.left, by100)
            walk(x.right, False)

    walk(e, False)
    return nth < len(marked) and marked[nth]

