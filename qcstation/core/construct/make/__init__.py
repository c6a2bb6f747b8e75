"""Making: the four SMART dimension artifacts built from a seed, by exact rules where the
seed's data allows and by a model otherwise. Nothing here decides whether an artifact is
right: that is :mod:`qcstation.core.construct.check`, but for one gate: a rule-made
formalization passes ``check.bindings`` and ``check.rolecheck`` (an asserted equation:
``check.equations``) before ``rules`` returns it (``rules.dispatch.check_independently``). The words around a given are read on the reading
floor (``qcstation.core.reading.words``), by the rules and the checks alike.

Modules, bottom up (a module imports only those above it in this list, the reading floor
``qcstation.core.reading`` and ``qcstation.core.verify``)
-------------------------------------------------------------------------
``rules/``            the exact formalizations (Reasoning): the question's givens and which
                      place each use is (``binding``), word givens and named factors
                      (``constants``), links between steps, the calculator /
                      inline-arithmetic and equation rules, ``rule_for_seed``; its own
                      contract in its ``__init__``.
``notation_solve``    one equation linear in one unknown solved for it (the unknown's term in
                      the other constants), for ``notation``.
``notation_literals`` a number definition's value read without the SMT-LIB parser, for
                      ``notation``'s near reading of a derived item's formalization.
``notation``          the notation-only question (Arithmetic) rendered from a verified
                      formalization, and ``question_smtlib``: the one SMT-LIB rule for a
                      notation question.
``unknown_words``     the words that tell two unknowns apart (a line's operand words, the
                      phrase opening the line an unknown points back to), for ``unknowns``.
``unknown_forms``     an unknown's description mended where its form reads as no sentence
                      ("= shoe size <<...>>", "2V = ?", "Cho ? km"), by the solution's and the
                      question's own words (a unit as the question writes it: '?" tall',
                      "? per month"; the person the question asks about), for ``unknowns``.
``unknowns``          the rule-made unknowns and relationships: Q1, Q2, ... described by the
                      solution's words with every result hidden or named, defined from givens.
``keyinfo``           key information (Understanding): a model's JSON parsed and validated,
                      the editable text form of a reviewer's fix;
``draft_reads``       what the draft refuses as no annotator could read it: fragments of the
                      scenario or the known quantities, unknowns with no words, no blank, only
                      a unit or their computation shown.
``known_forms``       the forms of the question's clauses the draft lists: a number phrase with
                      no verb of its own said by the clause before it, the unused item of a
                      two-item list as a distractor of its own ("5 fourth-grade girls were absent").
``keyinfo_draft``     the rule-made draft, cut from the question's sentences and grounded in
                      the solution's computations.
``keyinfo_reading``   the reading a draft is made from: the rules' formalization, or one refused
                      only for places of equal values tied by order where every such place is a
                      listed known quantity (the key information is the same whichever it is).
``inject_chain``      the chain of thought being edited (R&R): steps, numbers, propagation;
``inject_types``      the six error injectors; ``inject`` the public interface.
``prompts``, ``llm``  the model path: versioned prompts; the client with retries and cache.
"""
