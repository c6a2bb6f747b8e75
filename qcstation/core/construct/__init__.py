"""Construction: the four SMART dimension artifacts made from a seed (import -> **construct** ->
verify -> review -> release), by exact rules where the seed's data allows and by a model
otherwise. Nothing here imports Textual or the review stage.

Modules, bottom up (a module imports only those above it in this list)
-------------------------------------------------------------------------
``reread``            checks re-derived from the question and the gold solution alone (which
                      words a given is tied to, literals, value leaks, irrelevant-but-used,
                      stale edits): the audit's, and the gate every rule-made item passes.
``clauses``           what reads as a statement of its own (a subject and a finite verb): the
                      test rule-made known quantities pass and the ``known-fragment`` flag.
``rules/``            the exact formalizations (Reasoning): the bounded expression language,
                      the question's givens and which place each use is (``binding``), word
                      givens and named factors (``constants``), links between steps, the
                      calculator / inline-arithmetic and equation rules, ``rule_for_seed``.
``notation``          the notation-only question (Arithmetic) rendered from a verified
                      formalization, and ``question_smtlib``: the one SMT-LIB rule for a
                      notation question; ``notation_reader`` reads any wording of one back;
                      ``notation_rephrasing`` judges a model's rewording of one.
``textnumbers``       numbers as a question or a solution writes them (digits, fractions,
                      number words, calculator annotations), read with a bounded cache.
``unknowns``          the rule-made unknowns and relationships: Q1, Q2, ... described by the
                      solution's words with every result hidden or named, defined from givens.
``keyinfo``           key information (Understanding): a model's JSON parsed and validated,
                      or the rule-made draft grounded in the solution's computations.
``inject_chain``      the chain of thought being edited (R&R): steps, numbers, propagation;
``inject_types``      the six error injectors; ``inject`` the public interface.
``checks``            the automatic checks of an artifact's content, shared by every caller.
``selfcheck``         the flags stored with each artifact (what the rules could not settle).
``prompts``, ``llm``  the model path: versioned prompts; the client with retries and cache.
``pipeline_records``  what a generation run writes per item (attempt, artifact, verdict);
``pipeline``          the generate -> verify -> regenerate loop over seeds and dimensions.
"""
