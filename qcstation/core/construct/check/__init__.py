"""Checking: whether a made artifact means its seed, re-derived by a route independent of
the one that made it (the question's words and the gold solution, never the formalization
alone). Every stage that checks an artifact calls these modules: the generation pipeline,
derive, the audit and fixes of review, the release's flag gate.

Modules, bottom up (a module imports only those above it in this list, the reading floor
``qcstation.core.reading``, ``qcstation.core.verify`` and what it checks in
``qcstation.core.construct.make``)
-------------------------------------------------------------------------
``terms``                the shapes of a formalization's terms: every subterm, a product's
                         factors, the names a term uses (bounded in depth; shared below).
``categories``           what a solution's words after a number name of a place besides its noun:
                         a category ("90 bugs" for "90 spiders", a small explicit lexicon of whole
                         words), a rate's unit ("10 each week" for "10 toothpicks each week"), a
                         relative clause restating the question's verb ("the 14 that he passed
                         out" for "passes 14 out") (called by ``bindings``).
``conversions``          a unit conversion's number and a value used for two places, read
                         from the words up to the next number (called by ``bindings``).
``repeats``              one given a step multiplies by itself (or adds to itself as many
                         times as its value) with no words saying a square: one given in two
                         roles (called by ``bindings``).
``multipliers``          what a word that multiplies ("twice the amount of apples") multiplies,
                         which ties a step's wordless number to it (called by ``bindings``).
``dangling``             a link to an earlier result of a value the question states, settled
                         by the structure: every place of the value has its own given, and the
                         result no other use (called by ``bindings``).
``worded_links``         a link to an earlier result of a value the question states, vouched
                         for by words the line's own reading misses: the question states the
                         value only as a percent and the step takes the count as no percent; a
                         rate times a count named by the product (called by ``bindings``).
``claims``               a given whose line names nothing, vouched for by the places other
                         givens claim: a percent by its fraction's given, "one-fourth" by the
                         1/4 given, a place another given names by its lines (called by
                         ``elimination``).
``elimination``          a given whose line names nothing, vouched for by elimination: one
                         given for each place of its value, every other one named by its lines
                         for one place, and this one named for the place left; a word given
                         ("triple") where every place in digits is another given's whose lines
                         name its noun (called by ``bindings``).
``units``                a word given ("twice", "half") vouched for by the units (a factor of
                         a result in its other operand's unit is a pure number; every other
                         place of the value counts that unit), a term of a sum by the unit the
                         sum counts, a factor of a product of money beside a count of another
                         unit by the one place that is money ("14 * 2 = $28", "about $2"), and a
                         word that only multiplies never an added number (called by ``bindings``).
``clause_vouch``         a given whose line names it with no words, vouched for by the clause
                         words of the question: the other operand's clause names what it is a
                         rate of, or one place's clause alone shares words with the line
                         (called by ``bindings``).
``bindings``             which words each given a formalization uses is tied to, literals in
                         steps, links to results the question also states: re-derived from
                         the question and the gold solution alone; the audit's, and the gate
                         every rule-made item passes.
``rolecheck``            the role each given plays, read from the question's words (the
                         gate's second half).
``places``               two givens of equal value whose steps' lines read as each other's
                         place, by the noun right after the value on each line, else by the
                         sentence that states each (the gate's last question;
                         it reads each given's place, which ``bindings`` does not).
``unheld``               one given that steps apart use while the question states its value at
                         another place no given holds and a use pairs it with a number of that
                         place's sentence ("3 less than 6" read as 6 - 3 with the "3 scoops"
                         given, 1141); restatements ("the 500 piece one") and "each" exempt
                         (the gate's; it reads each given's place).
``reread``               key information and a wrong chain of thought re-read against the
                         question and the solution (value leaks, hidden numbers,
                         irrelevant-but-used, stale edits).
``fragments``            key information that reads as no statement of its own (a known
                         quantity or a scenario sentence cut without subject and verb).
``selfcheck``            the flags stored with each artifact (what the rules could not settle).
``notation_reader``      reads any wording of a notation question back to its formalization;
``notation_rephrasing``  judges a model's rewording of one.
``checks``               the automatic checks of an artifact's content, shared by every caller.
"""
