"""The 1s a step writes (issue 26.1): every one is bound by its words, or the item is refused.

After the question's numbers are bound (:mod:`.binding`) and the other literals declared
(:mod:`.constants`), a step may still write a bare 1. It is one of, in this order:

0. **the one person the question counts in by name** ("what's the total number of people at the party,
   including Ashley?" ... "If you add Ashley, the total number of people in the party is 30+1"): the
   line adds that person by the name the question includes ("add Ashley", "plus Ashley", "including
   Ashley", "Ashley herself"), so the 1 is ``k_one_ashley``, never a stated "one more person" of
   equal value that the same sentence holds.
1. **a 1 the question states** ("1 cup of dog food every day", "One of them ... was a bead",
   "6 hours in one week") whose place the words of the step's line pick: the words after the
   line's 1, then the sentence the line shares words with ("each need 1 cup juice" is the
   recipe's "1 cup of fresh lemon juice" per gallon, not the "1 cup of juice" six lemons
   yield); that place's given (declared if no use had bound it). Two places of equal words
   in one sum beside the other's given ("$1.00 cheese, $1.00 avocado" ... ``2+1+1+.50``): the
   place no given holds. A second 1 of the step whose words pick the place it already uses is the
   "another" of its noun the question writes once ("1 hour ..., then another hour" / "3 - 1 - 1"):
   ``k_one_another_hour``; with no such phrase, refused (one given in two roles).
2. **a person the words count** beside a count the question states: "Henry and 3 of his friends",
   "for himself and 3 friends", "himself, his teacher, and his 25 classmates", "Jack rides
   the elevator with 8 other adults", "Fred and the others", "she and her friends", "each invited
   person says that they will also invite 2 of their friends" on a line of groups or people ("groups
   of 1 + 2"), the one person the question names on a line that says her own ("Including her own
   seat, Alex is going to need 300 + 18 + 1"), the one whose counted friends they are where the question
   or the line says so ("Jessie invited 4 friends ... between herself and her friends" / "1 + 4 = 5
   people"): the named constant ``k_one_<who>`` (``k_one_henry``,
   ``k_one_himself``, ``k_one_his_teacher``, ``k_one_invited_person``, ``k_one_alex``).
3. **a thing an article counts** that the line writes as "1 <noun>" ("a coach for each team" ...
   "2 teams * 1 coach per team", "each an ounce" ... "8 1-ounce beef tips"): ``k_one_a_coach``; or,
   for a step's one unbound 1, that the line names before its computation or as what its result
   counts, the question writing the noun once after "a"/"an" and never after a number ("and a
   nickel" ... "The nickel was 5*1 = 5 cents"; "eats a bag of chips ... twice as many" ... "2 + 1 = 3
   bags"), never an amount ("a total of 20 heads").
4. **a 1 the question states once** at a place no given holds, in a sentence that shares words
   with the line ("1 match on Friday" ... "For the whole week, Joey played 2 + 1 + 4"): that place.
5. the unit of a ratio of a named factor ("3 feet / 1 yard": ``k_feet_per_yard`` alone).
6. **a coin's worth of one cent** that a step multiplies by, where the question counts the coin
   and the line names it ("100 pennies ... 100 x 1 cent": ``k_cents_per_penny``, the implied
   quantity of :mod:`.implied`); a 1 on a line that names no penny stays unbound.
7. **the one year** between now and the year the question says ("Last year Dallas was ...", "a
   year ago", "next year"), added or taken away on a line that names that year or "a year older"
   ("Last year Darcy was 16 - 1"): ``k_one_year_last_year``; never where the line's 1 counts a noun.

Anything else (the year after a payoff, "4 + 1 apples" for "Marin and Nancy each eat 4", a 1
the question states at several places the words cannot tell apart) is refused
(:class:`RuleError`): a wrong binding or an unbound stated number is worse than a refusal.
The named constants of 2, 3 and 7 have the value 1 and are never moved by derive."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num, expr_names
from qcstation.core.reading.words import _CLAUSE_STOP, _STOP, ANNOTATION, line_stems, solution_stems, stem
from qcstation.core.construct.make.rules.implied import another_one, implied_names, included_person
from qcstation.core.construct.make.rules.ordinal_ones import ordinal_ones
from qcstation.core.construct.make.rules.other_ones import others_reference
from qcstation.core.construct.make.rules.ratios import base_share_one
from qcstation.core.construct.make.rules.result import RuleError

__all__ = ["ONE_PREFIX", "bind_ones", "one_constant_words"]

#: the prefix of a named constant of value 1 the words imply (a person, a thing an article counts)
ONE_PREFIX = "k_one_"
#: the title of a refusal of a 1 no words tie
UNBOUND_ONE = "Unbound 1 in step"

_NUM = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|" \
       r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty)"
_NOT_A_NAME = frozenset("""The A An If On In At When After Before Then So But And Or How What Each Every Both This
    That These Those There Their They He She It His Her Its We You I My Our Your All Some Most Mr Mrs Ms Dr Find
    Calculate Given Since While Today Tomorrow Yesterday Last Next First Finally Now Later Also Because During
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August
    September October November December Christmas Halloween Easter""".split())
_MEMBER = r"(?:himself|herself|[A-Z][a-z]+|(?:his|her|their) [a-z]+)"
#: the people listed before a count: "for himself and 3", "Henry and 3 of", "himself, his teacher, and his 25"
_LIST_BEFORE = re.compile(rf"(?<![\w'’])({_MEMBER}(?:,\s+{_MEMBER})*),?\s+and\s+(?:(?:his|her|their)\s+)?$")
_WITH_BEFORE = re.compile(r"\bwith\s+(?:his\s+|her\s+)?$", re.I)
_OTHERS_RE = re.compile(r"\b([A-Z][a-z]+) and the others\b")
_SHE_AND_HER = re.compile(r"\b(?:she and her|he and his) (?:friends|family|guests)\b", re.I)
#: "each invited person ... 2 of their friends": the one each counts with them (on a line of a group)
_EACH_ONE = re.compile(r"\beach\s+((?:[a-z]+\s+)?(?:person|guest|member|student|worker|player|visitor))\b[^.?!]*$")
_OF_THEIR = re.compile(r"\s+of\s+(?:their|his|her)\s+(?:friends|guests|family|children|kids)\b")
_GROUP_LINE = re.compile(r"\b(?:groups?|people|persons)\b", re.I)
#: the stems of common verbs ("need", "buy"): no word that tells two sentences apart
_COMMON_VERBS = frozenset(stem(w) for w in _CLAUSE_STOP - _STOP)
#: the people a count names right after it ("4 friends", "three of Lilibeth's friends")
_PEOPLE_AFTER = re.compile(r"\s+(?:of\s+[A-Z][a-z]+['’]s\s+)?(friends|classmates|cousins|siblings|teammates|roommates)\b")
#: "Including her own seat": the one the question asks about, counted in
_OWN_ONE = re.compile(r"\b(?:her|his|their) own\b", re.I)
_CAPITAL = re.compile(r"\b([A-Z][a-z]+)(?:['’]s)?\b")
#: a 1 the line writes before a noun: "1 coach per team", "one tree planted", "8 1-ounce beef tips"
_ONE_NOUN = re.compile(r"(?<![\w.$/])(?:1|one)(?:-|\s+)([A-Za-z][A-Za-z'’]*)", re.I)
_NOUN_STOP = frozenset("""a an the of per each every for and or to in on at is are was were so x times plus
    minus equals equal more less than by with""".split())


def one_constant_words(name: str) -> str:
    """The words a ``k_one_`` constant stands for ("k_one_his_teacher" -> "his teacher")."""
    return name[len(ONE_PREFIX):].replace("_", " ") if name.startswith(ONE_PREFIX) else ""


#: nouns an article makes no thing of ("a total of 20 heads", "a lot of", "a number of")
_AMOUNT_NOUNS = frozenset(stem(w) for w in """total lot number couple few bit sum amount quantity average
    minimum maximum rate ratio share half third quarter dozen pair score""".split())


def _slug(words: str) -> str:
    return re.sub(r"[^a-z]+", "_", words.lower().replace("’", "").replace("'", "")).strip("_")[:32]


#: a question's words that put a time one year from now ("Last year Dallas was ...")
_YEAR_GAP_Q = re.compile(r"\b(last|next|previous)\s+year\b|\b(?:a|one)\s+year\s+(ago|from\s+now|later|earlier)\b|"
                         r"\bin\s+(a|one)\s+year\b", re.I)
#: a line's words of that year: the question's, or "a year older" / "a year younger"
_YEAR_GAP_LINE = re.compile(_YEAR_GAP_Q.pattern + r"|\b(?:a|one)\s+year\s+(?:older|younger)\b", re.I)
#: a 1 the line writes before a word: what it counts
_ONE_BEFORE_WORD = re.compile(r"(?<![\d.,/$])1(?![\d.,/])\s*([A-Za-z]+)")


def _year_gap(question: str, line: str, n: int) -> list[str] | None:
    """The one year between now and the year the question says ("last year", "a year ago", "next
    year"), for the ``n`` 1s a step adds or takes away on a line that names that year ("Last year
    Darcy was 16 - 1", "Dallas is a year older now = 45 + 1"): ``k_one_year_<words>``. None where the
    question or the line says no such year, the question says two different ones, or the line
    writes a 1 that counts something else ("1 apple")."""
    found = {re.sub(r"\s+", " ", m.group(0).lower()) for m in _YEAR_GAP_Q.finditer(question[:20000])}
    if len(found) != 1 or not _YEAR_GAP_LINE.search(line):
        return None
    if any(w.lower() not in ("year", "years") for w in _ONE_BEFORE_WORD.findall(ANNOTATION.sub(" ", line))):
        return None
    return [ONE_PREFIX + "year_" + _slug(found.pop())] * n


def _is_one(e: Expr) -> bool:
    return isinstance(e, Num) and e.value == 1 and bool(e.text) and not e.text.startswith("k_")


def _flat(e: Expr, op: str) -> list[Expr]:
    if isinstance(e, BinOp) and e.op == op:
        return _flat(e.left, op) + _flat(e.right, op)
    return [e]


def _sentence(text: str, at: int) -> tuple[int, int]:
    a = max((m.end() for m in re.finditer(r"[.?!](?:\s|$)", text[:at])), default=0)
    m = re.compile(r"[.?!](?:\s|$)").search(text, at)
    return a, (m.end() if m else len(text))


class _Ones:
    def __init__(self, givens: Any, question: str, consts: list[tuple[str, Fraction, Expr]]) -> None:
        self.givens = givens
        self.q = question
        self.consts = consts
        self.names: dict[str, Any] = getattr(givens, "_names", {})
        #: the places of 1 the question states (digits, "1.00", "one"), not a percent
        self.places = [n for n in givens.numbers if n.value == 1 and not n.percent]

    # -- what holds a place ---------------------------------------------------------
    def holder(self, start: int) -> str | None:
        taken = {n for n, _, _ in self.consts}
        return next((name for name, n in self.names.items() if n.start == start and name in taken), None)

    def given_at(self, place: Any) -> str:
        held = self.holder(place.start)
        if held is not None:
            return held
        taken = {n for n, _, _ in self.consts}
        k = 1 + max((int(m.group(1)) for m in (re.match(r"g(\d+)", n) for n in taken) if m), default=0)
        name = f"g{k}" + (f"_{place.slug}" if place.slug else "")
        self.names[name] = place
        self.consts.insert(sum(1 for n, _, _ in self.consts if not n.startswith(("k_", "w_"))),
                           (name, Fraction(1), Num(Fraction(1), place.text)))
        return name

    def constant(self, name: str) -> str:
        if name not in {n for n, _, _ in self.consts}:
            self.consts.append((name, Fraction(1), Num(Fraction(1))))
        return name

    # -- 0. the person the question counts in by name --------------------------------
    def included(self, line: str) -> str | None:
        """``k_one_<who>`` where the line adds one person by name ("If you add Ashley") whom the
        question counts in by that name ("including Ashley"; :func:`~.implied.included_person`)."""
        name = included_person(line, self.q)
        return None if name is None or name in _NOT_A_NAME else ONE_PREFIX + _slug(name)

    # -- 1. a stated 1 whose place the line's words pick ------------------------------
    def by_words(self, line: str, siblings: list[Expr]) -> Any | None:
        stems = solution_stems(line, Fraction(1))
        if not stems or not self.places:
            return None
        scores = {i: len(p.stems & stems) for i, p in enumerate(self.places)}
        top = max(scores.values())
        agree = [self.places[i] for i, s in scores.items() if top and s == top]
        if len(agree) > 1:
            ls = line_stems(line) - _COMMON_VERBS  # "didn't need to cook for 1 of his friends": no "need" of a sentence

            def shared(p: Any) -> int:
                a, b = _sentence(self.q, p.start)
                return len((line_stems(self.q[a:b]) - p.stems) & ls)

            best = max(shared(p) for p in agree)
            by_sentence = [p for p in agree if shared(p) == best]
            if best and len(by_sentence) == 1:
                return by_sentence[0]
            # two places of equal words in one sum or product beside the other's given: which
            # is which changes nothing; the place no given holds
            beside = {s.name for s in siblings if isinstance(s, Name)}
            free = [p for p in agree if self.holder(p.start) is None]
            if len(free) == 1 and all(self.holder(p.start) in beside for p in agree if p is not free[0]):
                return free[0]
            raise RuleError(f"a step writes 1 where the question states 1 at {len(agree)} places whose words "
                            f"agree with its line ({', '.join(repr(self.q[p.start:p.start + 20]) for p in agree[:3])}):"
                            " which one it means, the words do not tell", UNBOUND_ONE)
        return agree[0] if agree else None

    def another(self, place: Any) -> str | None:
        """The constant of "another <noun>" (:func:`~.implied.another_one`) for a 1 whose words pick
        the stated 1 ``place`` the step already uses ("3 hours - 1 hour - 1 hour")."""
        return another_one(self.q, place.stems)

    # -- 2. a person the words count --------------------------------------------------
    def person(self, op: str, siblings: list[Expr], line: str) -> list[str] | None:
        counts = [self.names[s.name] for s in siblings if isinstance(s, Name) and s.name in self.names]
        for n in counts if op == "+" else []:
            a, _ = _sentence(self.q, n.start)
            before = self.q[a:n.start]
            m = _LIST_BEFORE.search(before)
            if m:
                members = [w.strip() for w in re.split(r",\s+", m.group(1))]
                if all(w not in _NOT_A_NAME for w in members):
                    return _in_line_order(members, line)
            if _WITH_BEFORE.search(before) or re.match(r"\s+other\b", self.q[n.start + len(n.text):]):
                a, b = _sentence(self.q, n.start)
                who = {c for c in _CAPITAL.findall(self.q[a:b]) if c not in _NOT_A_NAME}
                if len(who) == 1:
                    return [ONE_PREFIX + _slug(who.pop())]
                # "There are 3 other people in the house" / "3+1": the one the question names (.other_ones)
                others = others_reference(self.q, n.start, n.text, a, line, _NOT_A_NAME, ONE_PREFIX)
                if others is not None:
                    return others
        if op == "+" and len(counts) == 1 and _GROUP_LINE.search(line):
            # "each invited person says that they will also invite 2 of their friends" / "groups of
            # 1 + 2 = 3 people": the one who brings them
            a, _ = _sentence(self.q, counts[0].start)
            each = _EACH_ONE.search(self.q[a:counts[0].start])
            if each and _OF_THEIR.match(self.q, counts[0].start + len(counts[0].text)):
                return [ONE_PREFIX + _slug(each.group(1))]
        own = _OWN_ONE.search(line)
        if op == "+" and own:
            # "Including her own seat, Alex is going to need 300 + 18 + 1" of "How many seats will Alex
            # need?": the one the question asks for, whom the line names
            who = {c for c in _CAPITAL.findall(self.q) if c not in _NOT_A_NAME}
            if len(who) == 1 and re.search(rf"\b{next(iter(who))}\b", line):
                return [ONE_PREFIX + _slug(who.pop())]
        if op == "+" and len(counts) == 1:
            owner = self._one_with_own(counts[0], line)
            if owner is not None:
                return [ONE_PREFIX + _slug(owner)]
        m = _OTHERS_RE.search(self.q)
        if op == "+" and counts and m and m.group(1) not in _NOT_A_NAME:
            return [ONE_PREFIX + _slug(m.group(1))]
        if op == "-" and _SHE_AND_HER.search(self.q) and re.search(r"\bfriends?\b|\bguests?\b|\bpeople\b", line):
            first = [c for c in _CAPITAL.findall(self.q) if c not in _NOT_A_NAME]
            if first:
                return [ONE_PREFIX + _slug(first[0])]
        return None

    def _one_with_own(self, n: Any, line: str) -> str | None:
        """"Jessie invited 4 friends ... between herself and her friends" / "1 + 4 = 5 people", "three
        of Lilibeth's friends" beside "Lilibeth and her friends" / "1 + 3 = 4 of them", "find four
        friends" / "Kingsley and her four friends 4+1": the one whose own the counted people are, where
        the question or the line says "<who> and her <people>" of the noun the count names; her name
        (or "herself"), when one such phrase is written."""
        after = _PEOPLE_AFTER.match(self.q, n.start + len(n.text))
        if after is None:
            return None
        noun = after.group(1).lower()
        found = {m.group(1).lower() for text in (self.q, ANNOTATION.sub(" ", line))
                 for m in re.finditer(rf"\b([A-Z][a-z]+|herself|himself)\s+and\s+(?:her|his|their)\s+(?:{_NUM}\s+)?"
                                      rf"{noun}\b", text)
                 if m.group(1) not in _NOT_A_NAME}
        return found.pop() if len(found) == 1 else None

    # -- 3. a thing an article counts -------------------------------------------------
    def article(self, line: str, count: int) -> list[str] | None:
        prose = ANNOTATION.sub(" ", line)
        nouns = [m.group(1) for m in _ONE_NOUN.finditer(prose) if m.group(1).lower() not in _NOUN_STOP]
        if not nouns or (len(nouns) != count and len({stem(w) for w in nouns}) != 1):
            return None
        out = []
        for noun in (nouns if len(nouns) == count else nouns[:1] * count):
            found = set()
            for m in re.finditer(r"\b(an?)\s+((?:[A-Za-z'’-]+\s+){0,2}?)([A-Za-z'’-]+)", self.q):
                if stem(m.group(3)) == stem(noun):
                    found.add(_slug(m.group(0)))
            if len(found) != 1:
                return None
            out.append(ONE_PREFIX + found.pop())
        return out

    def counted_by_line(self, line: str) -> str | None:
        """The one thing an article counts ("and a nickel", "eats a bag of chips") that the line names
        before its computation ("The nickel was 5*1") or right after its result ("2 + 1 = 3 bags of
        chips"): the noun the question writes once after "a"/"an" and never after a number; one such
        noun only. None otherwise ("10*1 = 10 oranges in the basket" names the basket after its
        result's noun, not as what it counts)."""
        prose = line[:2000]
        first = re.search(r"\d", prose)
        if first is None:
            return None
        results = list(re.finditer(r"(?:>>|=)\s*\$?\s*[\d.,]+\s*([A-Za-z][A-Za-z'’]*)", prose))
        words = re.findall(r"[A-Za-z][A-Za-z'’]*", prose[:first.start()]) + ([results[-1].group(1)] if results else [])
        q_words = re.findall(r"[A-Za-z'’]+", self.q)
        counted = {stem(m.group(1)) for m in re.finditer(rf"(?:\d+|\b{_NUM})\s+([A-Za-z'’]+)", self.q, re.I)}
        found = set()
        for w in {stem(x) for x in words if x.lower() not in _NOUN_STOP and len(x) > 2}:
            if w in counted or w in _AMOUNT_NOUNS:
                continue
            at = {_slug(m.group(0)) for m in re.finditer(
                r"\b(an?)\s+((?:[A-Za-z'’-]+\s+){0,2}?)([A-Za-z'’-]+)", self.q) if stem(m.group(3)) == w}
            if len(at) == 1 and sum(1 for x in q_words if stem(x) == w and x[:1].islower()) \
                    <= 1 + sum(1 for x in re.finditer(r"\bhow\s+many\s+([A-Za-z'’]+)", self.q, re.I)
                               if stem(x.group(1)) == w):
                found.add(ONE_PREFIX + at.pop())
        return found.pop() if len(found) == 1 else None

    def named_one(self, line: str, count: int) -> list[str] | None:
        """The ones of a sum that the line writes as "1 <noun>" ("2 parents and 1 sister ... 2+1", "5
        teddies + 15 bunnies + 1 koala"), each a noun the question writes once, in the singular, after
        "a/an" or "his/her/their" ("his sister", "a koala bear"), and nowhere else in any form; or "1
        for herself" where the question counts "and herself" once. None where any is not so."""
        prose = ANNOTATION.sub(" ", line)
        out = []
        selves = re.findall(r"(?<![\w.$/])(?:1|one)\s+(?:for\s+)?(herself|himself)\b", prose, re.I)
        for who in selves:
            if len(re.findall(rf"\band\s+{who}\b", self.q, re.I)) != 1:
                return None
            out.append(ONE_PREFIX + who.lower())
        nouns = [m.group(1) for m in _ONE_NOUN.finditer(prose) if m.group(1).lower() not in _NOUN_STOP
                 and m.group(1).lower() not in ("herself", "himself")]
        if len(nouns) + len(out) != count:
            return None
        words = [stem(w) for w in re.findall(r"[A-Za-z'’]+", self.q)]
        for noun in nouns:
            found = {_slug(m.group(0)) for m in re.finditer(
                r"\b(an?|his|her|their)\s+((?:[A-Za-z'’-]+\s+){0,2}?)([A-Za-z'’-]+)", self.q)
                if m.group(3).lower() == noun.lower()}
            if len(found) != 1 or words.count(stem(noun)) != 1:
                return None
            out.append(ONE_PREFIX + found.pop())
        return out

    # -- 4. a place no given holds that the line's words, or its operands' sentence, pick --
    def free_place(self, line: str, siblings: list[Expr], op: str = "+") -> Any | None:
        """A place no given holds: the one whose words the line writes, or the one in the sentence
        of the step's other operands. A factor ("1*2 = 2 slices after the pizza was cut in half")
        that names nothing of its own only by the sentence of its operands: a word the line shares
        with the place ("one of the slices") names what the product counts, not what its 1 is (a
        whole pizza)."""
        free = [p for p in self.places if self.holder(p.start) is None]
        if not free:
            return None
        ls = line_stems(line)
        own = solution_stems(line, Fraction(1))
        scores = [len(p.stems & ls) for p in free]
        top = max(scores)
        # a factor is tied by the line's words only where it names something of its own that the
        # place's sentence names ("1 bucket per Jill trip" / "two buckets ..., but Jill can only
        # manage one"); a bare factor ("1*2 = 2 slices") is not
        worded = op != "*" or bool(own) and all(own & line_stems(self.q[slice(*_sentence(self.q, p.start))])
                                                 for p in free if len(p.stems & ls) == top)
        if top and scores.count(top) == 1 and worded:
            return free[scores.index(top)]  # "1 match on Friday" ... "Joey played ... matches"
        at = [self.names[s.name].start for s in siblings if isinstance(s, Name) and s.name in self.names]
        if at:
            # the place in the sentence of the step's other operands ("180 * 1" where the
            # question's 180 is in the sentence of "1 cup of dog food")
            near = [p for p in free if all(_sentence(self.q, p.start) == _sentence(self.q, x) for x in at)]
            if len(near) == 1 and (not top or len(near[0].stems & ls) == top):
                return near[0]
        if len(free) != 1 or not worded:
            return None
        a, b = _sentence(self.q, free[0].start)
        return free[0] if (line_stems(self.q[a:b]) - free[0].stems - {"one"}) & ls else None


def _in_line_order(members: list[str], line: str) -> list[str]:
    """The constants of the people a list names, in the order the line writes their 1s ("his 1
    teacher + 1 himself" for "himself, his teacher"), else in the list's order."""
    nouns = [stem(m.group(1)) for m in _ONE_NOUN.finditer(ANNOTATION.sub(" ", line))]
    keyed = {stem(w.split()[-1]): w for w in members}
    if len(nouns) == len(members) and set(nouns) == set(keyed):
        members = [keyed[n] for n in nouns]
    return [ONE_PREFIX + _slug(w) for w in members]


def _ratio_unit(e: Expr) -> Expr:
    """``(/ k_feet_per_yard 1)`` ("3 feet / 1 yard") is the named factor alone."""
    if isinstance(e, BinOp):
        left, right = _ratio_unit(e.left), _ratio_unit(e.right)
        if e.op == "/" and _is_one(right) and isinstance(left, Name) and left.name.startswith("k_"):
            return left
        return BinOp(e.op, left, right)
    if isinstance(e, Neg):
        return Neg(_ratio_unit(e.operand))
    return e


def _ones_of(e: Expr, op: str = "", siblings: list[Expr] | None = None) -> list[tuple[Num, str, list[Expr]]]:
    """Each bare 1 of ``e`` with its operator and the other operands of its sum or product."""
    if _is_one(e):
        return [(e, op, siblings or [])]  # type: ignore[list-item]
    if isinstance(e, Neg):
        return _ones_of(e.operand)
    if isinstance(e, BinOp):
        parts = _flat(e, e.op) if e.op in "+*" else [e.left, e.right]
        out = []
        for p in parts:
            out += _ones_of(p, e.op, [x for x in parts if x is not p])
        return out
    return []


def _replace(e: Expr, chosen: dict[int, str]) -> Expr:
    if isinstance(e, Num) and id(e) in chosen:
        return Name(chosen[id(e)])
    if isinstance(e, Neg):
        return Neg(_replace(e.operand, chosen))
    if isinstance(e, BinOp):
        return BinOp(e.op, _replace(e.left, chosen), _replace(e.right, chosen))
    return e


def bind_ones(givens: Any, question: str, exprs: list[Expr], consts: list[tuple[str, Fraction, Expr]],
              lines: list[str]) -> list[Expr]:
    """The steps' terms with every bare 1 bound by its words (see the module docstring); new
    givens and constants are added to ``consts`` (and the givens' places); RuleError for a 1 no
    words tie."""
    ones = _Ones(givens, question, consts)
    out = []
    for i, e in enumerate(exprs):
        e = _ratio_unit(e)
        found = _ones_of(e)
        if not found:
            out.append(e)
            continue
        line = lines[i] if i < len(lines) else ""
        chosen: dict[int, str] = {}
        pending = []
        picked = {ones.names[n].start for n in expr_names(e) if n in ones.names}  # the places it uses
        included = ones.included(line) if len(found) == 1 and found[0][1] == "+" else None
        if included is not None:
            out.append(_replace(e, {id(found[0][0]): ones.constant(included)}))
            continue
        for num, op, siblings in found:
            place = ones.by_words(line, siblings)
            if place is not None and place.start in picked:
                # "3 hours - 1 hour - 1 hour" for "1 hour ..., then another hour": the other hour
                again = ones.another(place)
                if again is None:
                    raise RuleError(f"step {i + 1} writes 1 twice where the question states it once at the place its "
                                    f"words pick ({question[place.start:place.start + 16].strip()!r}): one given in "
                                    "two roles", UNBOUND_ONE)
                chosen[id(num)] = ones.constant(again)
            elif place is not None:
                picked.add(place.start)
                chosen[id(num)] = ones.given_at(place)
            else:
                pending.append((num, op, siblings))
        if pending:
            # "3 times as many apples as oranges" / "3+1": the base's one part (:func:`~.ratios.base_share_one`)
            shares = [base_share_one(givens, line, op, sib, ones.names, {n for n, _, _ in consts})
                      for _, op, sib in pending]
            if all(shares):
                for (num, _, _), share in zip(pending, shares):
                    chosen[id(num)] = ones.constant(str(share))
                pending = []
        if pending:
            ops = {op for _, op, _ in pending}
            names = ones.person(pending[0][1], pending[0][2], line) if len(ops) == 1 and ops <= {"+", "-"} else None
            if (names is None or len(names) != len(pending) or len(set(names)) != len(names)) \
                    and all(op == "*" or (op == "+" and all(_is_one(x) for x in sib)) for _, op, sib in pending):
                # a thing an article counts: a rate ("1 coach per team") or a sum of such things
                # ("1 girls' team + 1 boys' team"), never added to a count of something else
                names = ones.article(line, len(pending))
            if (names is None or len(names) != len(pending)) and all(op == "+" for _, op, _ in pending):
                # a thing or a person the question names once, added to other counts ("2 parents and 1
                # sister", "+ 1 for herself")
                names = ones.named_one(line, len(pending))
            if (names is None or len(names) != len(pending)) and len(pending) == 1 and pending[0][1] in "+*":
                # "The nickel was 5*1 = 5 cents" for "and a nickel": the one thing an article counts that
                # the line names as its subject or as what its result counts
                one = ones.counted_by_line(line)
                names = [one] if one is not None else None
            if names is None and len(pending) == 1 and pending[0][1] == "*":
                # "100 pennies is equal to 100 x 1 cent": a penny's worth, a quantity the words imply
                worth = implied_names(Fraction(1), question, line, "times")
                names = [worth.pop()] if len(worth) == 1 else None
            if names is None and all(op in "+-" for _, op, _ in pending):
                # "Last year Dallas was 3 times the age of his sister" / "Last year Darcy was 16 - 1":
                # the one year between last year and now, a quantity the words imply
                names = _year_gap(question, line, len(pending))
            if names is None and all(op in "+-" for _, op, _ in pending):
                # "For the first hour of work ..." / "4-1 = 3 more hours": the one the ordinal names
                names = ordinal_ones(question, line, len(pending))
            if names is not None and len(names) == len(pending):
                for (num, _, _), name in zip(pending, names):
                    chosen[id(num)] = ones.constant(name)
                pending = []
        for num, op, siblings in pending:
            place = ones.free_place(line, siblings, op)
            if place is None:
                free = [repr(question[p.start:p.start + 16].strip()) for p in ones.places
                        if ones.holder(p.start) is None]
                where = (f"the question states 1 at {len(free)} place(s) no given holds ({', '.join(free[:3])}) "
                         "and the line's words pick none of them" if free else
                         "no place of the question states 1 for that line")
                raise RuleError(f"step {i + 1} writes the number 1, which no words of the question tie: {where}, "
                                "and it counts no person or thing the words name", UNBOUND_ONE)
            chosen[id(num)] = ones.given_at(place)
        out.append(_replace(e, chosen))
    return out
