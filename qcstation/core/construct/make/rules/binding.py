"""Which place of the question each number a step writes is (:class:`Binder`, behind
:meth:`~.givens.Givens.bind`): read from the words, and from order only where the words
cannot tell.

For one use of a value the question states, in this order:

1. the words the solution writes right after it, then the phrase after it ("$1 extra",
   "2 skeins per pair of mittens"): the place whose words share the most;
   a money place never agrees with a use the line writes as a count of what it prices ("2 cards");
2. a unit factor the solution names ("100%", "60 minutes") where every place names something
   else: not a given (:mod:`.constants` names the factor);
3. the same words at two places ("depreciated 30%", "another 30%"): the question sentence around each place sharing
   the most words with the line, if no other use took it; "7 shells + 2 shells + 4 shells": the other numbers' sentence;
4. a word given the line writes ("Half of ... is 40/2") or whose object the use's words name ("2
   towels/pillow case" for "twice as many towels"), or a word that multiplies stated in the
   sentence of the step's other numbers where no count of its value is ("100 acres more than
   twice that" / "2*200+100"), or whose clause the line restates up to it ("Chikote howls for
   twice as long" / "Chikote howls for 20*2"), or a unit's word beside a number of its smaller
   unit ("an hour" for "each hour 2 * 60/15" of "every 15 minutes"): not the digit; the word given
   is declared by :mod:`.constants`;
5. in a step that multiplies it by one word that points back ("three times that number", "twice
   as many on Friday"), the place that word points to (:mod:`.referents`), where the words after
   the use chose no single place; in a step that multiplies it by an earlier result, the one place
   whose clause is a rate per what that result counts ("each family calls 3 other families" for
   "9 x 3" after "= 9 families called"); a term of a sum or difference is the one place that does not
   multiply by comparing ("16 - 4" for "four minutes", not "four times as long");
6. a 1: bound only when its words agree, or the question writes one 1 that names nothing,
   is in digits, or whose words are on the line; else the literal 1 of an identity;
7. by order, among the places whose words agree (else all), the first no other use took and no other
   line's words name alone ("every 2 days is 6 x 2" for "2 x 3"), unless each line names one place apart
   or the words agree with each and the line names one's sentence (:mod:`.clause_words`); when only one
   place is left and there are as many uses as places, that one (not by order); a divisor of a value used
   more often than placed, its line naming no place, is the word ("half") the question writes for it.

Uses tied by order that decide anything are reported (:meth:`Binder.order_bound`): the rule
records them as uncertain and the item is not rule-made.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.clause_places import clause_choice, multiplied_stems, operand_clause_choice
from qcstation.core.reading.words import (ANNOTATION, NUMERAL, numeral_value, WORD_GIVENS, counted_noun, line_stems, number_word_stems, result_words, solution_stems)
from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num, atoms, leaves
from qcstation.core.construct.make.rules.implied import implied_constant, included_person, list_count
from qcstation.core.construct.make.rules.dimensions import place_by_unit, unit_bars_places
from qcstation.core.construct.make.rules.word_factors import (_MULTIPLIERS_OF as _MULTIPLIERS_OF, word_of_role,
                                                              _PHRASES_OF as _PHRASES_OF,
                                                              _same_sentence as _same_sentence,
                                                              beside_its_operands, clause_restated, word_object_named,
                                                              parts_of_a_stated_fraction,
                                                              sentence_bounds as sentence_bounds,
                                                              unit_word_converts)
from qcstation.core.reading.units import unit_after
from qcstation.core.construct.make.rules.phrases import has_phrase, phrase_re
from qcstation.core.construct.make.rules.sum_terms import a_term, flat_ops, term_by_result
from qcstation.core.construct.make.rules.clause_words import (annotated_results, best_sentence, clause_place,
                                                               operand_numbers, phrase_place, places_named_apart,
                                                               rate_place, single_places, tied_by_sentence)
from qcstation.core.reading.inline import written_outside_computations
from qcstation.core.construct.make.rules.binding_words import (_ANNOTATION, per_article, _AVERAGE_STEMS, _CONVERSIONS,
                                                               _FACTOR_STEMS as _FACTOR_STEMS, _IMPLIED,
                                                               _WEEKDAY_LIST, QuestionNumber as QuestionNumber, place_by_written_form,
                                                               person_in_parentheses,
                                                               _counted, _sentence_of)


#: a forced place (:class:`Binder`'s ``forced``) that is no number of the question: the use is
#: the question's word for it ("twice"), which :mod:`.constants` declares
NOT_A_PLACE = -1


#: where a rate's unit starts after a number ("1 carrot a day", "$4 for a gallon of gas")
_RATE_UNIT = re.compile(r"\b(?:an?|per|each|every)\b", re.I)


class Binder:
    """Binds the literals of a formalization's steps to the places of the question."""

    def __init__(self, question: str, numbers: list[QuestionNumber], articles: list[QuestionNumber],
                 names: dict[str, QuestionNumber], exprs: list[Expr], lines: list[str] | None,
                 forced: dict[tuple[int, Fraction, int], int] | None = None) -> None:
        self.question = question
        #: (step, value, nth) -> place, chosen jointly by the words (:mod:`.joint`), before any other reading
        self.forced = forced or {}
        #: (step, value, nth, place) of every use placed, in the order walked
        self.records: list[tuple[int, Fraction, int, int]] = []
        self.numbers = numbers
        self.articles = articles
        self.names = names  # filled: the name given to each place bound
        self.exprs = exprs
        self.lines = lines
        self.nums: list[QuestionNumber] = [*numbers, *articles]
        self.by_value: dict[Fraction, list[int]] = {}
        for i, n in enumerate(numbers):
            self.by_value.setdefault(n.value, []).append(i)
        self.uses: dict[Fraction, int] = {}  # uses tied by order
        self.all_uses: dict[Fraction, int] = {}
        self.chosen_by_order: dict[int, bool] = {}
        self.chosen: dict[int, str] = {}
        self.order: list[int] = []
        self.here: set[int] = set()  # the places the step being walked uses
        self.expr: Expr | None = None  # the step being walked
        self.line = ""  # its line
        self.role = ""  # what the number being bound does: "times", "divisor" or ""
        self.leaf: Num | None = None  # the number being bound (a leaf of ``expr``)
        self.used_in: dict[Fraction, set[int]] = {}
        self.step = 0  # the step being walked
        #: value -> (step, place) of each use tied by order (place -1: no place was free)
        self.order_picks: dict[Fraction, list[tuple[int, int]]] = {}
        #: values one of whose uses took the first of several free places, by order only
        self.first_of_free: set[Fraction] = set()
        #: (step, value, nth) -> the place the reading of the step's other operand settled
        #: (:meth:`_pointed_to`, :meth:`_rate_of_result`); the joint reading keeps it (:mod:`.joint`)
        self.settled: dict[tuple[int, Fraction, int], int] = {}
        self._nth = 0  # the rank of the use being placed among its step's uses of its value
        self.total: dict[Fraction, int] = {}
        for e in exprs:
            for leaf in leaves(e):
                if leaf.text:
                    self.total[leaf.value] = self.total.get(leaf.value, 0) + 1

    # -- the places one use may be ------------------------------------------------
    def _best(self, pool: list[int], stems: frozenset[str]) -> list[int]:
        """The places whose words share the most with ``stems`` (none share: [])."""
        scores = {j: len(self.nums[j].stems & stems) for j in pool}
        top = max(scores.values(), default=0)
        return [j for j in pool if top and scores[j] == top]

    def _phrase_disputes(self, v: Fraction, line: str, nth: int, occ: list[int], first: int) -> bool:
        """Does the phrase after the use ("1 slice of pepperoni fell off") share as many words with
        another place of ``v`` ("1 of them falls off the slice") as with the one its first word
        chose ("one of the slices"), by words other than that first one? Then the first word alone
        does not tell the two apart (the phrase decides, or no single place is chosen). A money
        sign decides ("$4 for a gallon of gas" is the price "$4", not "4 different gas stations"),
        and the phrase ends before a rate's unit ("1 carrot a day": "a day" is the rate's, not the
        carrot's words)."""
        head = solution_stems(line, v, 1, nth)
        if head & {"$", "%"}:
            return False
        prose = ANNOTATION.sub(" ", line)
        at = [m for m in NUMERAL.finditer(prose) if numeral_value(m) == v]
        if nth >= len(at):
            return False
        after = prose[at[nth].end():]
        cut = _RATE_UNIT.search(after)
        phrase = solution_stems(prose[:at[nth].end()] + after[:cut.start() if cut else len(after)], v, 4, nth) \
            - head - {"$", "%"}  # "1 pod costs $0.10": the price's "$"
        if not phrase:
            return False
        mine = len(self.nums[first].stems & phrase)
        return any(self.nums[j].start != self.nums[first].start and self.nums[j].stems & phrase
                   and len(self.nums[j].stems & phrase) >= mine for j in occ)

    def _said_in_words(self, v: Fraction, line: str) -> bool:
        return any(has_phrase(line, phrase, ignore_case=True)
                   and has_phrase(self.question, phrase, ignore_case=True)
                   and not self._fraction_written_too(phrase, v)
                   for phrase in _PHRASES_OF.get(v, ()))

    def _fraction_written_too(self, phrase: str, v: Fraction) -> bool:
        """Is ``v`` the parts of a fraction in words ("one-tenth": 1/10, in 10 parts) on a step
        that also writes the fraction's own value? Then the fraction is the word's and ``v`` is
        another number ("1/10*10" for "one-tenth its length ... 10 feet long": the length, never
        the word's parts a second time, which made the head 1 foot whatever the length)."""
        values = WORD_GIVENS.get(phrase, ())
        if len(values) != 2 or v != values[1] or self.expr is None:
            return False
        return any(leaf.value == values[0] for leaf in leaves(self.expr))

    def occurrence(self, v: Fraction, line: str, nth: int) -> int | None:
        """The place (index into ``nums``) of the ``nth`` use of ``v`` on ``line``, or None
        when it is no number of the question (see the module docstring)."""
        self._nth = nth
        if v == 1 and line and included_person(line, self.question) is not None:
            # "If you add Ashley ... 30+1" of "including Ashley": Ashley herself, a named one (ones)
            return None
        occ = self.by_value.get(v, [])
        by_form = place_by_written_form(self.leaf.text or "", v, line, self.nums, occ) if self.leaf is not None else None
        if by_form is not None:  # "3/5*400" for "3/5 of the mangoes", not "60%"
            return by_form
        stems: frozenset[str] = frozenset()
        agree: list[int] = []
        counted = counted_noun(line, v, nth) if line else None  # "$6/card * 2 cards": no price of "3 $2 cards"
        priced = [j for j in occ if counted is not None and {"$", counted} <= self.nums[j].stems]
        for limit in (1, 4):  # the word right after it first ("$1 extra"), then the phrase
            stems = solution_stems(line, v, limit, nth) if line else frozenset()
            agree = [j for j in self._best(occ, stems) if j not in priced]
            if limit == 1 and len({self.nums[j].start for j in agree}) == 1 and self._phrase_disputes(v, line, nth, occ, agree[0]):
                continue
            if len({self.nums[j].start for j in agree}) == 1:
                # a stated 1 the step already uses: "3 - 1 - 1" for "1 hour ..., then another hour" (ones)
                return None if v == 1 and agree[0] in self.here else agree[0]
        if not agree and (self._word_by_unit(v, occ, line) or self.role == "divisor"
                          and parts_of_a_stated_fraction(self.question, self.nums, occ, v)):
            return None
        if not stems and line and len(occ) > 1 and self.expr is not None \
                and sum(1 for leaf in leaves(self.expr) if leaf.value == v) == 1:
            # "The two adults pay $26 x 2": the line names the value in words, with the words of
            # one place of the question ("2 adults", not "2 children"); only a step that writes
            # the value once ("three times older ... 3 * 3" names one of its two 3s)
            said = number_word_stems(line, v)
            if len(said) == 1 and said[0]:
                by_word = self._best(occ, said[0])
                if len({self.nums[j].start for j in by_word}) == 1:
                    return by_word[0]
        if not stems and not agree:
            by_unit = self._place_by_unit(occ)
            if by_unit is not None:
                return by_unit
        if stems & _FACTOR_STEMS.get(v, frozenset()) and not agree and all(self.nums[j].stems for j in occ):
            return None
        if not agree and stems and occ and self.role in ("times", "divisor") \
                and implied_constant(v, self.question, line, self.role):
            # "10 birds * 2 legs/bird" where the question's 2 is "2 cats": a bird's legs, a
            # quantity both texts name (a named constant), not the given of equal value
            return None
        if occ and not stems and (all(j in self.here for j in occ) or self.role == "divisor"
                                  and all(j in self.chosen and j not in self.here for j in occ)) \
                and list_count(v, self.question, line, self.role):
            # "On Monday, Wednesday and Friday, Mike ran 3 * 3" where the question states 3 once
            # ("3 miles"), already this step's: the other 3 is the count of the days the line names
            return None
        if occ and not stems and not agree and self.role == "times" and self.expr is not None \
                and all(j in self.chosen and j not in self.here for j in occ) \
                and sum(1 for leaf in leaves(self.expr) if leaf.text and leaf.value == v) == 1 \
                and _WEEKDAY_LIST.fullmatch(list_count(v, self.question, line, "") or ""):
            # "Each week, he spends 3 x 3 = 9 hours in class on Monday, Wednesday, and Friday" after
            # "3 x 1 = 3 hours ... on any given Monday": every place of 3 ("three 1-hour classes") an
            # earlier step's, the line names each day of "On Mondays, Wednesdays, and Fridays": the
            # count of the days it names, not that given a second time
            return None
        implied = _IMPLIED.get(v)
        if implied is not None and not agree and implied.search(line) and implied.search(self.question) \
                and not any(implied.search(self.question, self.nums[j].start, self.nums[j].start + 40) for j in occ):
            return None
        conversion = _CONVERSIONS.get(v)
        if conversion is not None and self.role == "divisor" and occ and conversion[0].search(_ANNOTATION.sub("", line)) \
                and conversion[1].search(self.question) and not any(
                    conversion[1].search(_sentence_of(self.question, self.nums[j].start)) for j in occ):
            # "120/60 = 2 hours" where the question's 60 is "60% charged" (329), "80/2 = 40 pairs
            # of legs" where its 2 is "10 2-legged animals" (1268): a unit conversion's number
            # (a named constant), not a given whose sentence says nothing of that unit
            return None
        if stems and not agree and occ and all(self.nums[j].stems and j in self.here for j in occ) \
                and not self._said_in_words(v, line):
            # "5 dance classes 5 days a week" -> 5*5 (71: "5 dance classes, every day, on the
            # weekdays"): the words name something else than every place of this value, and each
            # place already stands for another number of the same computation: not a second role
            # of that given by its value alone (a named constant where the question's words imply
            # it, else no rule applies)
            return None
        if stems and not agree and occ and self.role in ("times", "divisor") and self.expr is not None \
                and word_object_named(self.question, v, stems, self.expr):
            return None  # "4 pillow cases * 2 towels/pillow case": "twice as many towels as pillow cases"
        if not agree and occ and self.role == "divisor" and all(j in self.chosen for j in occ) \
                and line_stems(line) & _AVERAGE_STEMS and v.denominator == 1 and 2 <= v <= 12 \
                and not any(self.nums[j].stems & _AVERAGE_STEMS for j in occ):
            # "On average they ate 45 because 90 / 2": the (small) count averaged over, not the
            # given an earlier step used ("two roll-ups wide"); only a divisor is such a count
            # ("On average they get in 6 pieces per minute because 4 + 2" adds the question's 4)
            return None
        same = agree if len(agree) > 1 else occ if not stems else []
        if len(same) > 1 and len({self.nums[j].stems for j in same}) == 1:
            by_sentence = best_sentence(same, self.nums, self.question, line_stems(line))
            if len(by_sentence) == 1 and by_sentence[0] not in self.chosen:
                return by_sentence[0]
        if not stems and not agree and self._said_in_words(v, line):
            return None
        if v in (0, 1):
            return self._one(v, line, occ, stems, agree)
        if not occ:
            return None
        if not stems and not agree and occ and not any(self.nums[j].stems for j in occ) \
                and any(has_phrase(self.question, phrase, ignore_case=True) for phrase in _MULTIPLIERS_OF.get(v, ())):
            # "30*2-5" for "5 years younger than twice his age" where the question's other 2 is
            # "the two now", which names nothing: the use is the word given ("twice")
            return None
        if not stems and not agree and self.expr is not None and (
                beside_its_operands(self.question, self.nums, self.by_value, self.expr, self.role, v, occ)
                or clause_restated(self.question, self.nums, self.expr, self.role, v, occ, line)
                or unit_word_converts(self.question, self.nums, self.by_value, self.expr, self.role, v, occ, line)):
            # "Farmer Smith has 2*200+100" for "Smith's farm is 100 acres more than twice that. How
            # many acres do the two farms have": the word that multiplies, stated in the sentence of
            # the step's other numbers, not the count of equal value in another sentence
            return None
        if not stems and not agree:
            # before the sentence of the other operands: the clause of the other operand names
            # the place's noun ("9 pens in each bag of blue" for "6 x 9": the "6 bags", though
            # the sentence of the 9 also writes "6 pens in each bag of red")
            by_operand = self._by_other_operand(v, occ)
            if by_operand is not None:
                return by_operand
        by_sum = None if stems or agree else term_by_result(self.expr, v, line, occ, self.nums)  # "6 - 3 = 3 seahorses"
        if by_sum is not None and self._not_a_second_role(occ, occ.index(by_sum)) is not None:
            return by_sum
        if len(occ) > 1 and (not stems and not written_outside_computations(line, v) or stems and self.expr is not None
                             and len({self.nums[j].start for j in agree}) > 1 and self._by_definition(v, agree) is None
                             and sum(1 for leaf in leaves(self.expr) if leaf.value == v) == 1):  # words alike, no restatement
            beside = self._beside_its_operands(v, agree if stems else occ)
            if beside is not None:
                return beside
        if not stems and not agree and self._multiplier_by_clause(v, occ, line):
            return None
        if not agree and all(j in self.here for j in occ) and any(
                has_phrase(self.question, phrase, ignore_case=True) for phrase in _PHRASES_OF.get(v, ())):
            # "he went twice for 2 hours" -> 2*2: the digit's place is this step's already; the
            # other 2 is the question's "twice" (a word given), not that digit a second time
            return None
        if len(agree) != 1:
            no_factor = self._no_multiplier_term(v, agree or occ)
            if no_factor is not None:
                return no_factor
            pointed = self._pointed_to(v, agree or occ)
            if pointed is not None:
                self.settled[(self.step, v, nth)] = pointed
                return pointed
        by_rate = self._by_rate(v, agree or occ)
        if by_rate is not None:
            return by_rate
        no_percent = self._not_the_percent(v, agree or occ)
        if no_percent is not None:
            return no_percent
        by_phrase = self._by_phrase(v, agree or occ)
        if by_phrase is not None:
            return by_phrase
        by_clause = self._by_clause(v, agree or occ)
        if by_clause is not None:
            return by_clause
        defining = self._by_definition(v, agree or occ)
        if defining is not None:
            return defining
        return self._by_order(v, agree or occ, occ)

    def _by_definition(self, v: Fraction, pool: list[int]) -> int | None:
        """The one place of ``v`` that restates nothing, every other place of the pool a
        restatement ("the five pies", "enough for 30 days?") or a clock time
        (:func:`.defining.defining_place`); else None."""
        from qcstation.core.construct.make.rules.defining import defining_place, restated_counts

        places = sorted({self.nums[j].start: j for j in pool}.values(), key=lambda j: self.nums[j].start)
        if len(places) < 2 or v in (0, 1):
            return None
        best = defining_place(self.question, [self.nums[j].start for j in places],
                              [len(self.nums[j].text) for j in places], [self.nums[j].stems for j in places],
                              written_outside_computations(self.line, v), self.total.get(v, 0))
        if best is not None and places[best] in self.chosen:
            # "-3 degrees ... these 3 countries" (490): "these 3 countries" restates no place of
            # the question but the count its story lists, a quantity of its own; a second use of
            # the value beside that free place is not the first place's given in a second role
            counts = restated_counts(self.question, [self.nums[j].start for j in places],
                                     [self.nums[j].stems for j in places])
            if any(places[i] not in self.chosen for i in counts):
                return None
        return places[best] if best is not None else None

    def _no_multiplier_term(self, v: Fraction, pool: list[int]) -> int | None:
        """"16 - 4" for "four minutes", not "four times as long" (:func:`.referents.term_place`)."""
        from qcstation.core.construct.make.rules.referents import term_place
        places = list({self.nums[j].start: j for j in pool}.values())
        ends = [self.nums[j].start + len(self.nums[j].text) for j in places]
        return self._not_a_second_role(places, term_place(self.question, self.expr, self.leaf, ends))

    def _pointed_to(self, v: Fraction, pool: list[int]) -> int | None:
        """"3*20" for "she collected three times that number": in a step that is ``v`` times one
        number, the place of ``v`` that number's word points to (:func:`.referents.pointed_place`)."""
        from qcstation.core.construct.make.rules.referents import pointed_place
        e = self.expr
        if not (isinstance(e, BinOp) and e.op == "*" and isinstance(e.left, Num) and isinstance(e.right, Num)) \
                or (e.left.value == v) == (e.right.value == v) or v in (0, 1):
            return None
        factor = e.right if e.left.value == v else e.left
        places = list({self.nums[j].start: j for j in pool}.values())
        if not factor.text or factor.value in (0, 1) or len(places) < 2:
            return None
        spans = [(self.nums[j].start, self.nums[j].start + len(self.nums[j].text))
                 for j in self.by_value.get(factor.value, [])]
        at = pointed_place(self.question, [n.start for n in self.numbers], [self.nums[j].start for j in places],
                           spans, _PHRASES_OF.get(factor.value, ()))
        return self._not_a_second_role(places, next((i for i, j in enumerate(places) if self.nums[j].start == at), None))

    def _by_rate(self, v: Fraction, pool: list[int]) -> int | None:
        """"6 x 5 = 30 liters" for "6 pails of water every afternoon. If each pail contains 5 liters":
        the place of the 5 whose clause is a rate of what the other number counts
        (:func:`.clause_words.rate_place`)."""
        e = self.expr
        if isinstance(e, BinOp) and e.op == "*" and v not in (0, 1) and sum(
                isinstance(x, Num) and x.value == v for x in (e.left, e.right)) == 1 \
                and any(isinstance(x, Name) for x in (e.left, e.right)):
            return self._rate_of_result(next(x for x in (e.left, e.right) if isinstance(x, Name)), pool)
        if not (isinstance(e, BinOp) and e.op == "*" and isinstance(e.left, Num) and isinstance(e.right, Num)) \
                or (e.left.value == v) == (e.right.value == v) or v in (0, 1):
            return None
        other = e.right if e.left.value == v else e.left
        at = self.by_value.get(other.value, [])
        if not other.text or other.value.denominator != 1 or len({self.nums[j].start for j in at}) != 1 \
                or self.nums[at[0]].percent:
            return None  # "1/4*40": a part of a whole counts no thing a rate is "each" of
        places = list({self.nums[j].start: j for j in pool}.values())
        best = rate_place(self.question, [self.nums[j].start for j in places], self.nums[at[0]].start,
                          self.nums[at[0]].stems)
        return places[best] if best is not None else None

    def _rate_of_result(self, earlier: Name, pool: list[int]) -> int | None:
        """"9 x 3" after "3 x 3 = 9 families called", for "each family calls 3 other families": the
        place whose clause is a rate per what the earlier result counts, named right after it on its
        line (:func:`.clause_words.rate_place`)."""
        m = re.match(r"s(\d+)(?:_|$)", earlier.name)
        if m is None or self.lines is None or not 0 < int(m.group(1)) <= min(len(self.lines), self.step):
            return None
        line = self.lines[int(m.group(1)) - 1]
        results = annotated_results(line)
        if len(results) != 1:
            return None
        places = list({self.nums[j].start: j for j in pool}.values())
        best = rate_place(self.question, [self.nums[j].start for j in places], None,
                          result_words(_ANNOTATION.sub(" ", line), next(iter(results))))
        if best is None:
            return None
        self.settled[(self.step, self.nums[places[best]].value, self._nth)] = places[best]
        return places[best]

    def _not_the_percent(self, v: Fraction, pool: list[int]) -> int | None:
        """"20 - 4 = 16 students" for "a dance class of 20 students, 20% enrolled in ...": of two
        places of a value, one a percent ("20%") and one not, a use whose step takes no hundredth
        and whose line writes no percent is the place that is no percent."""
        places = list({self.nums[j].start: j for j in pool}.values())
        pct = [j for j in places if "%" in self.nums[j].stems]
        rest = [j for j in places if j not in pct]
        if len(places) != 2 or len(pct) != 1 or self.expr is None \
                or any(leaf.value == 100 for leaf in leaves(self.expr)) \
                or re.search(r"%|\bpercent", self.line, re.I):
            return None
        return rest[0]

    def _by_phrase(self, v: Fraction, pool: list[int]) -> int | None:
        """A use the step writes once, whose line writes the value once with the words of one
        place ("6 pounds of peaches ... 6*2"; :func:`.clause_words.phrase_place`)."""
        if self.expr is None or v in (0, 1) or sum(1 for leaf in leaves(self.expr) if leaf.value == v) != 1:
            return None
        places = list({self.nums[j].start: j for j in pool}.values())
        if len(places) < 2 or any(self.nums[j].percent for j in places):
            return None
        best = phrase_place(self.question, [(self.nums[j].start, self.nums[j].start + len(self.nums[j].text))
                                            for j in places], self.line, v)
        return self._not_a_second_role(places, best)

    def _not_a_second_role(self, places: list[int], best: int | None) -> int | None:
        """The place the words chose, unless another step took it already, or another line names it
        by its words ("every 2 days is 6 x 2" for "2 x 3", 1164), while another place of the value is
        still free (one given in two roles beside an unused place of equal value: 799's two $0.50, the
        raise and Sally's extra): None, the binder's other readings decide."""
        if best is None:
            return None
        j = places[best]
        if (j in self.chosen or self._claimed(j)) and any(k not in self.chosen and self.nums[k].start
                                                          != self.nums[j].start for k in places):
            return None
        return j

    def _claimed(self, j: int) -> bool:
        """Does another line write the place's value with words that name it and no other place of it?"""
        n = self.nums[j]
        others = [self.nums[k].stems for k in self.by_value.get(n.value, []) if self.nums[k].start != n.start]
        return any((w := solution_stems(ln, n.value)) & n.stems and not any(w & o for o in others)
                   for ln in self.lines or [] if ln != self.line)

    def _by_clause(self, v: Fraction, pool: list[int]) -> int | None:
        """A use the step writes once, of a value stated at several places: the place whose
        clause words the line writes and no other place's clause does (:func:`.clause_words.clause_place`)."""
        if self.expr is None or v in (0, 1) or sum(1 for leaf in leaves(self.expr) if leaf.value == v) != 1:
            return None
        places = list({self.nums[j].start: j for j in pool}.values())
        if len(places) < 2:
            return None
        other_values = [x for x in {*(leaf.value for leaf in leaves(self.expr)), *operand_numbers(self.line)} if x != v]
        if isinstance(self.expr, BinOp) and self.expr.op in "+-":
            # "12 + 3 + (12*2) = 39 people": a sum's result names every term, none of them
            other_values += [x for x in annotated_results(self.line) if x != v]
        others = single_places([leaf.value for leaf in leaves(self.expr) if leaf.text and leaf.value != v],
                               self.by_value, [n.start for n in self.nums])
        best = clause_place(self.question, [self.nums[j].start for j in places],
                            [self.nums[j].stems for j in places], self.line, others, other_values)
        return self._not_a_second_role(places, best)

    def _word_by_unit(self, v: Fraction, occ: list[int], line: str) -> bool:
        """A use that multiplies or divides a quantity into a result of the same unit, where
        every place of its value names that unit ("2 * 5 = 10 hours" for "5 hours ... twice the
        time ... 2 hours less"): a pure factor, the question's word of that value ("twice",
        "half"), never the count of equal value (:func:`.dimensions.unit_bars_places`);
        :mod:`.constants` declares the word."""
        if self.role not in ("times", "divisor") or not occ or self.leaf is None or self.expr is None:
            return False
        phrases = [p for p in _PHRASES_OF.get(v, ()) if p in _MULTIPLIERS_OF.get(v, ())
                   or (v.denominator == 1 and Fraction(1, v.numerator) in WORD_GIVENS[p])]
        if not any(has_phrase(self.question, p, ignore_case=True) for p in phrases):
            return False
        return unit_bars_places(self.expr, self.leaf, line, self.lines, self._units(occ),
                                lambda x: self._units(self.by_value.get(x, [])))

    def _place_by_unit(self, occ: list[int]) -> int | None:
        """A use the line names with no words, of a value the question states at places of
        different units, that multiplies or divides: the one place the units of the product or
        quotient allow (:func:`.dimensions.place_by_unit`), or None."""
        if self.role not in ("times", "divisor") or self.leaf is None or self.expr is None:
            return None
        places = list({self.nums[j].start: j for j in occ}.values())
        if any(not _counted(self.nums[j].text) for j in places):
            return None  # "8 dozen glasses": a dozen is a unit itself, no count of the glasses
        units = self._units(places)
        best = place_by_unit(self.expr, self.leaf, self.line, self.lines, units,
                             lambda x: self._units(self.by_value.get(x, [])))
        return places[best] if best is not None else None

    def _units(self, js: list[int]) -> list[frozenset[str]]:
        """The unit of each place (:func:`~qcstation.core.reading.units.unit_after`), one per place."""
        at = {self.nums[j].start: self.nums[j] for j in js}
        return [unit_after(self.question, n.start, n.start + len(n.text)) for n in at.values()]

    def _multiplier_by_clause(self, v: Fraction, occ: list[int], line: str) -> bool:
        """A number the line names with no words that multiplies or divides, of a value the
        question states as a count ("two sleeves") and as a word that multiplies ("twice as many
        as the collar", "half the number of oranges"): the word when its clause alone shares
        words with the line (274: "The rosette takes 2 * 90" is "the rosette takes twice as many
        as the collar", not "a sweater with two sleeves"); :mod:`.constants` declares it."""
        if self.role not in ("times", "divisor") or not occ or self.expr is None \
                or sum(1 for leaf in leaves(self.expr) if leaf.value == v) != 1:
            return False  # "2 * 2" for "2 matches ... double that": the word and the digit, read by order
        if any("time" in self.nums[j].stems for j in occ):
            return False  # "four times" and "a quarter": two words that multiply, which the clause never tells
        phrases = [p for p in _PHRASES_OF.get(v, ()) if (p in _MULTIPLIERS_OF.get(v, ())
                   or (v.denominator == 1 and Fraction(1, v.numerator) in WORD_GIVENS[p]))
                   and not self._fraction_written_too(p, v)]
        words = [m.start() for p in phrases for m in phrase_re(p, True).finditer(self.question)]
        if not words:
            return False
        starts = sorted({self.nums[j].start for j in occ} | set(words))
        best = clause_choice(self.question, starts, line)
        if best is None or starts[best] not in words or starts[best] in {self.nums[j].start for j in occ}:
            return False
        # and what the word multiplies is what the step counts: named on its line or on the line
        # of an earlier step it uses ("twice as many as the collar": "The collar takes 900 / 10 =
        # 90 stitches", then "2 * 90"); "twice a month" is not "70*2 = 140 miles away" (1121)
        end = next(m.end() for p in phrases for m in phrase_re(p, True).finditer(self.question)
                   if m.start() == starts[best])
        multiplied = multiplied_stems(self.question, end)
        return bool(multiplied & (line_stems(line) | self._operand_line_stems()))

    def _operand_line_stems(self) -> frozenset[str]:
        """The words of the lines of the earlier steps the step being walked uses (``s2_...``:
        the second line)."""
        out: frozenset[str] = frozenset()
        if self.expr is None or self.lines is None:
            return out
        for a in atoms(self.expr):
            m = re.match(r"s(\d+)(?:_|$)", a.name) if isinstance(a, Name) else None
            if m and 0 < int(m.group(1)) <= len(self.lines):
                out |= line_stems(self.lines[int(m.group(1)) - 1])
        return out

    def _by_other_operand(self, v: Fraction, occ: list[int]) -> int | None:
        """A step that multiplies or divides two numbers ("$26 x 2"), the other one stated at one
        place of the question: the place of ``v`` whose noun that number's clause names ("a $26
        fee for each adult": the "2 adults", not the "2 children"); else None
        (:func:`~qcstation.core.reading.words.operand_clause_choice`)."""
        e = self.expr
        if not (isinstance(e, BinOp) and e.op in "*/" and isinstance(e.left, Num) and isinstance(e.right, Num)):
            return None
        sides = [e.left, e.right]
        if sum(1 for x in sides if x.value == v) != 1:
            return None
        other = next(x for x in sides if x.value != v)
        at = self.by_value.get(other.value, [])
        if not other.text or len({self.nums[j].start for j in at}) != 1:
            return None
        places = list({self.nums[j].start: j for j in occ}.values())
        if len(places) < 2:
            return None
        o = self.nums[at[0]]
        best = operand_clause_choice(self.question, [self.nums[j].stems for j in places], o.start)
        if best is None:
            return None
        chosen = self.nums[places[best]].stems
        if any(solution_stems(ln, v) & chosen for ln in self.lines or [] if ln != self.line):
            # another line names this place with its words ("every 2 days is 6 x 2"): this use,
            # which names nothing, may be another place of the value ("two times")
            return None
        return places[best]

    def _percent_only(self, p: Fraction) -> bool:
        """Does the question state ``p`` only as a percent ("40%")?"""
        digits = [n for n in self.numbers if n.value == p and not n.percent]
        return bool(digits) and len(digits) == sum(1 for n in self.numbers if n.percent and n.value * 100 == p)

    def _beside_its_operands(self, v: Fraction, occ: list[int]) -> int | None:
        """A use the line names with no words ("4 + 20 + 7 + 8"), of a value the question states
        at several places: the place stated in the same sentence as the step's other numbers
        (each stated at one place only: "read 4 pages ..., 20 pages ..., 7 pages ... and 8
        pages", not "he has 4 more days"), when exactly one place is; else None."""
        if self.expr is None:
            return None
        anchors = []
        for leaf in leaves(self.expr):
            if not leaf.text or leaf.value == v or leaf.value in (0, 1):
                continue
            at = self.by_value.get(leaf.value, [])
            if len({self.nums[j].start for j in at}) != 1:
                continue
            anchors.append(self.nums[at[0]].start)
        if not anchors:
            return None
        bounds = sentence_bounds(self.question)
        # a place that is an other number's own ("80*.8" for "80%": the .8's place) is not this one's
        here = [j for j in occ if self.nums[j].start not in anchors
                and all(_same_sentence(bounds, self.nums[j].start, a) for a in anchors)]
        if len({self.nums[j].start for j in here}) == 1 and here[0] not in self.chosen:
            return self._not_a_second_role(occ, occ.index(here[0]))
        return None

    def _one(self, v: Fraction, line: str, occ: list[int], stems: frozenset[str],
             agree: list[int]) -> int | None:
        if not agree and v == 1:
            said = [len(self.numbers) + j for j, a in enumerate(self.articles) if a.stems & stems
                    and not (a_term(self.expr, self.leaf) and per_article(self.question, a.start))]
            if len(said) == 1:
                return said[0]
        if len(occ) != 1 or stems or person_in_parentheses(line, self._nth):  # "1 (Mary) + 2 friends"
            return None
        # the line names nothing after its 1: the question's one 1 if it names nothing either ("Pandora
        # has one."), is written in digits ("1:00 PM"), or its words are on the line ("one fewer pink eggs")
        n = self.nums[occ[0]]
        if not n.stems or n.text[:1].isdigit() or n.text[:1] in "$." or n.stems <= line_stems(line):
            return occ[0]
        return None

    def _by_order(self, v: Fraction, pool: list[int], occ: list[int]) -> int | None:
        free = [j for j in pool if j not in self.chosen]
        free = [j for j in free if not self._claimed(j)] or free  # not a place another line's words name
        if free and self.role == "" and self.total[v] > len({self.nums[j].start for j in occ}):
            # more uses than places: some place is used twice, and order alone would give this
            # term of a sum or difference the free one ("So he can now run 8+6=14 hours" after
            # "8*.75" took "8 hours straight", beside "his speed of 8 mph"): where the line's words
            # name one place only, and another step took it, that place (a term shares the
            # result's unit)
            by_words = self._best(occ, line_stems(self.line))
            if len({self.nums[j].start for j in by_words}) == 1 and by_words[0] in self.chosen \
                    and by_words[0] not in self.here:
                return by_words[0]
        if len(free) == 1 and len(pool) == len(occ) and self.total[v] == len({self.nums[j].start for j in occ}) \
                and not any(j in self.chosen and self.chosen_by_order.get(j) for j in occ):
            return free[0]  # as many uses as places, every other place taken by its words
        if free and self.role == "divisor" and self.total[v] > len({self.nums[j].start for j in occ}) \
                and not any(self.nums[j].stems & line_stems(self.line) for j in pool) \
                and word_of_role(self.question, v, self.role):
            # more uses than places, the line naming none: a divisor the question writes as a word
            # ("his fish ate half of them" / "10/2 = 5 rocks" beside "spit two out", whose "two" the
            # "5+2" takes) is that word, never the count in a second role
            return None
        tied = places_named_apart(v, occ, free, self.nums, self.exprs, self.lines or [], self.step)
        tied = tied_by_sentence(free, self.nums, self.question, self.line, v, self._nth, self.expr) if tied is None else tied
        if tied is not None:
            return tied
        k = self.uses.get(v, 0)
        self.uses[v] = k + 1
        if len(free) > 1:
            self.first_of_free.add(v)
        if not free and not any(self.nums[j].stems & line_stems(self.line) for j in pool) \
                and word_of_role(self.question, v, self.role):
            return None  # every place taken, the line naming none: "$13*3" is "triple" (541), "40 / 4" "a quarter"
        if free:
            self.chosen_by_order[free[0]] = True
            self.order_picks.setdefault(v, []).append((self.step, free[0]))
            return free[0]
        self.order_picks.setdefault(v, []).append((self.step, -1))
        return pool[min(k, len(pool) - 1)]

    # -- the walk -------------------------------------------------------------------
    def _walk(self, e: Expr, line: str, seen: dict[Fraction, int], role: str = "") -> Expr:
        if isinstance(e, Num):
            self.role = role
            if not e.text or e.text.startswith("k_"):
                return e  # no number of the text, or one marked as a named factor ("k_cents_per_dollar")
            nth = seen.get(e.value, 0)
            seen[e.value] = nth + 1
            self.leaf = e
            idx = self.forced.get((self.step, e.value, nth))
            if idx == NOT_A_PLACE:
                return e  # the question's word ("twice"), never a place of its digits
            if idx is None:
                idx = self.occurrence(e.value, line, nth)
            if idx is None:
                return e
            self.records.append((self.step, e.value, nth, idx))
            self.all_uses[e.value] = self.all_uses.get(e.value, 0) + 1
            if idx not in self.chosen:
                n = self.nums[idx]
                name = f"g{len(self.chosen) + 1}" + (f"_{n.slug}" if n.slug else "") + ("_pct" if n.percent and n.slug != "pct" else "")
                self.chosen[idx] = name
                self.order.append(idx)
                self.names[name] = n
            self.here.add(idx)
            return Name(self.chosen[idx])
        if isinstance(e, Neg):
            return Neg(self._walk(e.operand, line, seen))
        if isinstance(e, BinOp) and e.op == "/" and isinstance(e.left, Num) and isinstance(e.right, Num) \
                and e.right.value == 100 and e.right.text and self._percent_only(e.left.value):
            # "40/100 * 100" for "40% cheaper than the $100 car": the 100 under a percent the
            # question states is the percent's factor (a named constant), never the $100 given
            seen[e.right.value] = seen.get(e.right.value, 0) + 1
            return BinOp("/", self._walk(e.left, line, seen), e.right)
        if isinstance(e, BinOp) and e.op == "/" and isinstance(e.right, Num) and e.right.value == 100 \
                and e.right.text and isinstance(e.left, BinOp) and e.left.op == "*" \
                and isinstance(e.left.right, Num) and e.left.right.text and self._percent_only(e.left.right.value):
            # "$100 x 2/100" for "interest of 2%" on "$100": the 100 under the percent is the
            # percent's factor, never the $100 given (one given in two roles)
            left = self._walk(e.left, line, seen, "")
            seen[e.right.value] = seen.get(e.right.value, 0) + 1
            return BinOp("/", left, e.right)
        if isinstance(e, BinOp):
            return BinOp(e.op, self._walk(e.left, line, seen, "times" if e.op == "*" else ""),
                         self._walk(e.right, line, seen, "times" if e.op == "*" else "divisor" if e.op == "/" else ""))
        return e

    def run(self) -> list[Expr]:
        out = []
        for i, e in enumerate(self.exprs):
            before = dict(self.all_uses)
            line = self.lines[i] if self.lines is not None and i < len(self.lines) else ""
            self.here = set()
            self.step = i
            self.expr = e
            self.line = line
            out.append(self._walk(e, line, {}))
            for v, k in self.all_uses.items():
                if k != before.get(v, 0):
                    self.used_in.setdefault(v, set()).add(i)
        return out

    # -- what it found ------------------------------------------------------------------
    def _immaterial(self, v: Fraction) -> bool:
        # "3 sprints 3 times a week" -> 3*3: every occurrence used once, all in one sum
        # or product, so which is which changes nothing
        places = {self.numbers[i].start for i in self.by_value[v]}
        steps = self.used_in.get(v, set())
        if self.all_uses[v] != len(places) or len(steps) != 1:
            return False
        e = self.exprs[next(iter(steps))]
        return isinstance(e, BinOp) and e.op in "*+" and flat_ops(e) <= {e.op}

    def order_bound(self) -> list[Fraction]:
        """Values the question states more than once whose uses were tied to its places by
        order only, where that decides anything."""
        return sorted(v for v, k in self.uses.items()
                      if k > 1 and len({self.numbers[i].start for i in self.by_value[v]}) > 1
                      and not self._immaterial(v) and not self._pair_immaterial(v))

    def order_unsettled(self) -> list[Fraction]:
        """Values a use of which took the first of several free places by order only (no word
        of either text chose it) while a place of the value is still unused at the end ("Each of
        the other two pizzas cost 34/2" is no more the question's first "two" than its "other
        two"), not reported by :meth:`order_bound`: no use of any place settles which it is."""
        bound = set(self.order_bound())
        out = []
        for v in sorted(self.first_of_free - bound):
            places = {self.numbers[i].start for i in self.by_value[v]}
            used = {self.nums[j].start for j in self.chosen if j < len(self.numbers) and self.nums[j].value == v}
            if places - used and not self._immaterial(v):
                out.append(v)
        return out

    def _pair_immaterial(self, v: Fraction) -> bool:
        """"Baldur gets 5 x 5 = 25 liters" (5 pails, 5 liters a pail), the other uses of 5 tied by
        their words: the uses tied by order are all in one sum or product, each took a place no
        other use had, and every other place of the value was taken by its words; which of
        the two is which changes nothing."""
        picks = self.order_picks.get(v, [])
        steps = {i for i, _ in picks}
        taken = [j for _, j in picks]
        if len(steps) != 1 or -1 in taken or len(set(taken)) != len(taken):
            return False
        e = self.exprs[next(iter(steps))]
        if not (isinstance(e, BinOp) and e.op in "*+" and flat_ops(e) <= {e.op}):
            return False
        places = {self.numbers[i].start: i for i in self.by_value[v]}
        return all(j in taken or (j in self.chosen and not self.chosen_by_order.get(j)) for j in places.values())

    def constants(self) -> list[tuple[str, Fraction, Expr]]:
        """The declared givens (name, value, term), in the order first used."""
        consts: list[tuple[str, Fraction, Expr]] = []
        for idx in self.order:
            n = self.nums[idx]
            term: Expr = Num(n.value, n.text)
            if n.percent:
                term = BinOp("/", Num(n.value * 100), Num(Fraction(100)))
            elif n.value.denominator != 1 and "/" in n.text:
                term = BinOp("/", Num(Fraction(n.value.numerator)), Num(Fraction(n.value.denominator)))
            consts.append((self.chosen[idx], n.value, term))
        return consts
