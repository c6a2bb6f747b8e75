"""The reading floor: how the words of a seed are read, below every stage that reads them.

Numbers, arithmetic expressions and clauses, read from untrusted text with limits (length,
nesting, digits, size). Every stage stands on this floor: ingest counts a solution's steps
with the expression parser, verify and evaluation compare answers as exact rationals,
construction and derive read a question's numbers and clauses. Nothing here imports a
stage (ingest, verify, construct, derive, review, release, eval): only ``qcstation.common``.

Modules, bottom up (a module imports only those above it in this list)
-------------------------------------------------------------------------
``answers``      exact answers: a gold or model answer read as an exact ``Fraction`` with
                 how it was written (``parse_number``, ``parse_answer``), compared with
                 the stated tolerance (``matches``); ``count_numbers``; ``decimal_fraction``
                 (a numeral's exact value, the parse the readers above repeat most).
``expr``         the bounded arithmetic expression language: ``Expr`` trees,
                 ``parse_expression`` (never ``eval``), ``evaluate`` in exact arithmetic,
                 SMT-LIB terms, ``ExpressionError`` (the rules' ``RuleError`` is making's:
                 ``construct/make/rules/result``).
``inline``       computations written in running text (``54 − 37 = 17``): what ingest counts
                 as a solution's steps, and what key information and error injection read;
                 ``drop_computations`` (a line less its written computations, one pass).
``textnumbers``  numbers as a question or a solution writes them (digits, fractions,
                 number words, calculator annotations), read with a bounded cache.
``word_values``  the values of number words ("forty-two") and word givens ("half", "a dozen"):
                 data, re-exported by ``words``.
``words``        the words a number is written with (question occurrences, solution lines,
                 word givens such as "half", word stems; a size the solution names a thing by,
                 "the 2 x 4s": no place): what the rules tie a given to and what the checks read again.
``clause_places`` which place of a value stated several times a solution means, by the words
                 of each place's clause (``clause_choice``, ``operand_clause_choice``,
                 ``multiplied_stems``): what the rules bind by and the checks read again.
``units``        the unit a number is written with, read strictly ("$60 per day" -> {$}) and
                 the unit of a line's result: whether a factor can be a count of that unit.
``clauses``      what reads as a statement of its own (a subject and a finite verb).
``slips``        slips of a solution's prose that its question contradicts ("3300 cookies" where
                 the sum is 3320 and the question counts cookies otherwise; "than the third week"
                 for its "first week"): what key information and error injection refuse to copy.
"""
