"""Exact, rule-based SMT-LIB formalizations of seed problems (no model needed).

Two rules:

* ``gsm8k-calculator``: GSM8K solutions carry calculator annotations
  (``16 - 3 - 4 = <<16-3-4=9>>9``). Every annotation becomes one step constant
  whose value is the annotated expression; given the question, each of its numbers
  the solution uses is its own declared constant (``g1_eggs = 16``). A number in a
  later expression is an earlier step's result only where the solution settles it:
  the value is neither stated by the question nor a common factor and one earlier
  step has it, or exactly one reading uses every step and every given
  (:func:`~.links.resolve_links`); otherwise the solution is ambiguous and no rule
  applies. ``answer`` is the step whose value is the gold answer (the last such step).
  A solution with no annotations but computations written as ``expression = number``
  gets the same treatment (``inline-arithmetic``).
* ``equation``: an explicit equation field (``x = (70 - 27)``, ``X=((45.0*3.0))``,
  a bare expression, or a linear equation in one unknown such as ``x + 27 = 70``).

The SMT-LIB uses sort Real with exact rationals (``(/ 3 2)``, ``(- 5)``) and only the
commands set-logic, declare-const, assert, check-sat and get-value.

The bounded expression language (``Expr`` trees, :func:`parse_expression`, :func:`evaluate`,
:class:`ExpressionError`, :class:`RuleError`) and the computations written in running text
(``find_inline_computations``) are the reading floor's (``qcstation.core.reading.expr``,
``qcstation.core.reading.inline``); this package re-exports them for its callers.

The modules and their contract (each imports only the ones above it):

``phrases``     a phrase read as whole words (``has_phrase``, ``phrase_re``).
``result``      :class:`RuleStep`, :class:`RuleResult` (what every rule returns) and the
                SMT-LIB script built from steps.
``implied``     quantities the words imply (a coin's worth, an animal's legs, a shape's sides, a month's days, the "another
                hour" beside a stated "1 hour"; a list's count, "her mom and her sister" too: its word
                given): named constants a number is only where the question and its line name them.
``dimensions``  a factor that multiplies or divides a quantity into a result of the same unit
                is a pure number: the question's word ("twice", "half"), never a count of
                that unit of equal value (asked by ``binding``).
``word_factors`` a number a step multiplies or divides by that the question states as a count and
                as a word ("twice", "an hour"): the word where the words say so (the sentence of
                the step's other numbers, the clause the line restates, a unit beside its smaller
                unit, a word pointing back to the step's other number: "half that many"; every place
                in digits another use's, the line naming none: "$13*3" for "triple"); asked by ``binding``.
``referents``   the number a word that multiplies points back to ("three times that number",
                "twice as many on Friday"): the question's number right before it (asked by ``binding``).
``sum_terms``   a term of a sum or difference the line names with no words: the place whose noun
                the words after the step's result name ("6 - 3 = 3 seahorses" for "3 fewer sea
                horses", not "3 clownfish"; asked by ``binding``).
``binding``     which place of the question each number a step writes is, read from the
                words (:class:`~.binding.Binder`; order only where words cannot tell).
``joint_steps`` what a step's relation to its line or an earlier step tells the joint reading: what is
                left of a whole after its share ("This left 18 pink - 6") is the whole's place; one
                chain written once for each of two places ("3 x 3 = 9 eggs") takes one of each (asked
                by ``joint``).
``joint``       the places of a value the question states more than once, chosen jointly over
                all its uses by their words (the dispatcher's second reading, :func:`~.joint.forced_places`).
``elided``      a number whose noun the question leaves out ("the other 3 have"): the words of the
                earlier place of its value (read by ``givens``).
``givens``      the numbers a question states (:class:`Givens`) and the words around them;
                binds a formalization's literals to named given constants (via ``binding``);
                a price in cents the solution writes in dollars (``.4`` for "40 cents"); places of one
                value named alike only by the unit hyphened to each are also named by the noun it sizes
                ("2-cup bags", "2-cup bottles").
``averaged``    the count of the values an average divides by (``240 / 3`` after ``80 + 60 + 100``):
                the named constant ``k_<n>_values_averaged``, only where the words say average.
``restated``    a quantity restated in another unit with no operator ("1.25 hours = 75 minutes"):
                a conversion by its named factor.
``unstated``    numbers the question's words give without writing them, tied to a step only by
                its words (a round trip's 2 on a line naming the sentence of "there and back").
``stated_factors`` the words of the question that state a named constant ("there and back", "both",
                "buy one get one free", "Monday to Friday"): what the key information lists for it.
``complements`` the rest of a share the question states, written as a number it does not ("1 - 3/4 =
                1/4 ... 4 x 20"; "60% are women" / "men: 25 x .4"): a term of that fraction or percent.
``ratios``      the parts of a whole "N times as much as" splits into ("Jeff gets 4 times as much as
                Brad" / "100/5"): N plus the base's one share ``k_one_share_of_brad``.
``weekdays``    the days of a week the question counts by naming them ("From Sunday through Wednesday":
                ``k_days_sunday_through_wednesday``; "the rest of the week": the week's days less those).
``noun_counts`` a count of one noun the question states in parts of one list ("two zebras ..., a zebra
                ..., and another zebra" / "4 zebras"): the question's counts and ``k_one_a_zebra``; the
                things a line names, each counted once by an article ("the three animals": a pink frog ...);
                each one of a group and the N who join it ("each child is joined by another child": 1 + 1).
``visible_terms`` the computation the text writes where its annotation hard-codes a number the
                question does not state ("1/2*20=<<20-10=10>>"): read only with the question's numbers.
``with_self``   a group the question names by its other members, counted with the one who has them
                ("Jenna has 4 roommates ... divide equally" / "5 roommates"): N plus ``k_one_jenna``.
``ranks``       the first place the question writes as "first", written "1st ... 1+5": ``k_one_first_place``.
``scaled``      a number the question writes with a scale word ("1 million tokens") that a step writes in
                full ("1000000 / 2"): the question's number times ``k_per_million``, bound to its place.
``constants``   word givens ("half", "an hour"), named unit/percent factors and implied
                quantities for the literals that are no digit of the question; of two word givens
                of one value, the one whose object alone the line names ("His dad will be 24 x 2"
                for "half the age of his dad but twice as old as his brother"), else by role;
                anything else is refused.
``one_unit``    a named factor that stands for the question's "1 hour" ("60/2" for "in 1 hour"):
                that 1 declared a given at its place, the use written as it converted.
``result_lines`` which of two earlier results of one value a step's number is, where the question
                states no such number: the words only one candidate's line shares with the step's,
                or with what the question compares the step's other number with; a common factor
                its line names with the factor's unit ("7 days" for a week).
``multiplier_words`` which uses of a value the question states only as a word ("twice") are that
                word and which an earlier result: a step's uses of the word as many as its line writes
                it, where that accounts for every time the question writes it (1311's "16 / 2").
``percent_results`` a number a step divides by 100 where an earlier result is written as a percent
                ("= 60%") and the question states the value only as a count ("a 60-item quiz"):
                the percent is that result, the count the question's; a 100 the question's percent is
                taken from into a percent ("100-60 = 40%") or that divides a percent is the percent's
                hundred, not an earlier $100 (asked by ``links``).
``currency``    a number a step writes as money ("$4 + $2") is the one money candidate; a term or
                dividend of a step whose result is money the money one, its divisor the one that
                counts ("40-4 = $36.00", "36/36 = $1.00 per bagel"); asked by ``links``, whose
                partial decisions of the words and of money are read together last.
``sum_nouns``   a term of a sum or difference that is a given or one earlier result of one value: the
                one whose noun the sum's other, settled terms count ("50-15-20 = 15 cat owners": the 20
                families, not step 2's 20 dogs); never where that leaves the given to another sum that
                counts something else (asked by ``links``).
``signed_terms`` of two earlier results of one value a sum takes away one and adds the other
                ("44-10-6+6"): the one its line names a decrease ("= 6 fewer yellow balloons") is
                taken away (asked by ``links``).
``ones``        the 1s a step writes, bound by their words: a stated 1 a given at its place, a person
                or thing the words count once the named constant ``k_one_<words>``, else refused.
``links``       which step is the answer and which written number is an earlier result.
``worded``      computations written in words ("200 minus 174 equals 26").
``chains``      computations the inline reader leaves, read only when a first reading leaves a given
                unused or the answer unproduced: a chain of equal terms ("5+2(3)=5+6=11") as its
                first term, a result written as a fraction ("2/40 = 1/20") that a later fraction of
                the same text is (``links`` links it only there), an operand of many words; the 1
                of "1 - (1/3) = 2/3" the whole the question's fraction is of; "10/100" on a line
                naming the question's "1/10" that fraction; a computation from a negative result
                written after the "=" of its line ("Increase 3 degrees = -6 + 3 = -3").
``finalunit``   a final answer asked in another unit than the last step's ("in cents" after
                "$0.25"): one more step with the named factor.
``calculator``  the calculator-annotation and inline-arithmetic rules (uses all above).
``equation``    the equation rule (uses ``result`` and the expression language).
``algebra``     the ``gsm8k-algebra`` rule: a solution that names an unknown ("Let x be ...") and
                solves an equation for it, formalized as written (the unknown declared, the
                equation asserted, givens bound as the calculator rule binds them; a multiplier
                by the words after it: of the unknown, or of a term the solution defines in it;
                an earlier computation's result the equation writes as that computation).
``dispatch``    :func:`rule_for_seed`: the first rule a seed row supports, by what its
                data holds; :func:`gold_from_seed`.
``stored``      a rule's result written as JSON text and read back exactly (:func:`~.stored.dump_rule`,
                :func:`~.stored.load_rule`), with the key it is valid for (today's rules and the seed's
                fields, :func:`~.stored.rule_key`): generate keeps it, derive reads it.

Callers import from this package (``from qcstation.core.construct.make.rules import
rule_for_seed``); the names below are its public interface.
"""

from __future__ import annotations

from qcstation.core.construct.make.rules.calculator import ANNOTATION_RE, smt_from_calculator_annotations
from qcstation.core.construct.make.rules.dispatch import MAX_REASON_CHARS, gold_from_seed, rule_for_seed
from qcstation.core.construct.make.rules.equation import smt_from_equation
from qcstation.core.reading.expr import (
    BinOp,
    Expr,
    ExpressionError,
    Name,
    Neg,
    Num,
    evaluate,
    expr_names,
    expr_to_sexpr,
    fraction_to_smt,
    is_nonlinear,
    parse_expression,
)
from qcstation.core.construct.make.rules.givens import COMMON_FACTORS, Givens, question_numbers
from qcstation.core.reading.inline import (
    INLINE_RE,
    VISIBLE_TAIL_RE,
    InlineComputation,
    find_inline_computations,
    normalize_visible,
)
from qcstation.core.construct.make.rules.result import RuleError, RuleResult, RuleStep

__all__ = [
    "Num",
    "Name",
    "BinOp",
    "Neg",
    "Expr",
    "ExpressionError",
    "RuleError",
    "RuleStep",
    "RuleResult",
    "parse_expression",
    "evaluate",
    "expr_names",
    "fraction_to_smt",
    "expr_to_sexpr",
    "is_nonlinear",
    "smt_from_calculator_annotations",
    "smt_from_equation",
    "rule_for_seed",
    "gold_from_seed",
    "ANNOTATION_RE",
    "INLINE_RE",
    "VISIBLE_TAIL_RE",
    "InlineComputation",
    "find_inline_computations",
    "normalize_visible",
    "COMMON_FACTORS",
    "Givens",
    "question_numbers",
    "MAX_REASON_CHARS",
]
