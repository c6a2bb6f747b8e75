"""Derived item sets: variants, difficulty ladders, perturbations, counterfactual and inverse
problems, each with its exact answer from Z3, reviewed and released like everything else.

Every verified seed whose givens the references work ties to their words (``bound``, a
``span`` per given: :mod:`.bindings`) can be transformed. A transformation never guesses:
what it cannot rewrite faithfully is refused with the reason, and the reasons are stored.

Modules, lowest first; a module imports only modules above it in this list
---------------------------------------------------------------------------
``numbers``     how a number is written (``$1,500``, ``2.50``, ``three``, ``45%``, ``3/4``) and
                another value written the same way, or :class:`~.numbers.Unwritable`.
``bindings``    the contract with the references work: the givens of a rule-made Reasoning
                artifact with their places and styles; :class:`~.bindings.Refusal`.
``model``       :class:`~.model.DerivedItem` (an item in memory), :class:`~.model.Refused`,
                :class:`~.model.Check` (a Z3 check still to run), and
                :class:`~.model.Transform`: one record per transformation (family, kinds,
                builder, level, re-reading, perturbation and ladder roles) from which
                ``TRANSFORMS``, ``FAMILIES``, ``KINDS``, the runner's dispatch, the stale
                checks and the robustness tables are read. Adding a transformation is its
                record and its builder.
``recheck``     the second opinion: every item's answer re-derived from its own question
                through its parent's gold solution's calculator annotations, never from
                the formalization (imports nothing of the rules nor of the other derive modules);
                old values left in its texts; repeated questions. What it does not confirm
                is refused: a value-changing draw before the rules formalize it
                (:func:`~.transforms.second_look`), every item again by the runner;
                ``qcstation derive check --answers``.
``rebuild``     the one door to the construction rules (``core/construct``): a derived seed
                goes through the *same* rules as an imported one (calculator rule, notation
                renderer, key-information draft, error injection) and the same checks; the
                SMT-LIB given-assert helpers; ``operation_count``. A parent's formalization is
                the rules' result generate kept with the seed (``rule_results``,
                ``construct.make.rules.stored``) when its key is today's, else the rules run.
``solution``    rewriting a worked solution for new values (each number given a meaning
                first: an operand of a step, a result, a constant, or read by value).
``parent``      :func:`~.parent.load_parent` (may this seed be transformed?) and
                :func:`~.parent.with_values` (the derived seed for new given values, rebuilt
                by the rules and checked against the parent: same formalization but the
                values, every quantity keeping its kind, the givens their order), in two
                halves: :func:`~.parent.draft` (the texts) and :func:`~.parent.formalize`
                (the rules).
``draws``       seeded value draws: variant domains, same-digit changes, percentage shifts,
                d significant digits.
``transforms``  variants, changed numbers, counterfactuals, the arithmetic (digits) and
                refinement (errors) ladders, inverse problems; ``Options``.
``story``       noise sentences (Understanding ladder, noise perturbation) and the added
                operation.
``store``       sets, jobs (leases, outcomes) and items in the database; a job's parent rows
                with the rules' result kept with the seed.
``stale``       items a set holds that no longer follow from their parent's current
                formalization or from today's rules (a rule fixed since, a parent
                regenerated): :func:`~.stale.check_set`, ``qcstation derive check``; what a
                resumed run checks.
``runner``      :func:`~.runner.run_derive`: lease, build (in rules worker processes, by
                default one per usable core, or in the calling process), Z3 in the run's
                isolated verifier pool (one worker per usable core), store in one
                transaction per batch; a rules worker ends with the run's main process.
``report``      per-source shares of parents for which each transformation could be made,
                with the leading refusal reasons; the listing of a set's items.

What ``qcstation derive KIND`` builds (``KINDS``)
-----------------------------------------------
==============  ==================  ===============================================  ==========
kind            transform           the item                                         carries
==============  ==================  ===============================================  ==========
variants        ``variant``         every movable given resampled (M per parent,     all four
                                    default 10), re-solved (DynaMath)
ladder          ``noise``           k = 1..4 distractor sentences from other seeds;  all four
                                    irrelevant information extended (SMART A.10)
                ``digits``          the notation question's givens at d = 1..7       arithmetic
                                    significant digits, re-solved
                ``errors``          n = 1..6 distinct error types in the CoT         refinement
                (Reasoning ladder)  not items: group any item by its operation count
                                    (``seeds.steps`` / ``derived_items.ops``)
perturb         ``noise``           one distractor sentence (SMART Table 3)          all four
                ``add-operation``   one more given and step (+ N) in story and       all four
                                    formalization, re-solved
                ``changed-numbers`` one given changed to a number of as many digits  all four
counterfactual  ``counterfactual``  one given shifted by -30/-20/-10/+10/+20/+30 %   all four
inverse         ``inverse``         the answer stated, one given hidden as X (FOBAR  reasoning
                                    template); Z3 solves X and proves it unique
==============  ==================  ===============================================  ==========

Every item also has its question and exact answer, so the final-answer task applies to all.

Data model (schema v8, ``db/migrations.py``): what evaluation reads
-------------------------------------------------------------------
A derived item is a **seed of its own** (``seeds`` row, status ``derived``, so nothing that
works on the working set sees it) whose four dimension artifacts are ordinary ``artifacts``
rows (version 1, status ``verified``, generator ``rule:...`` as for a seed). Its
``orig_id`` is ``<parent orig_id>~<set>.<tag>`` (item key ``gsm8k-17~dyn.v3``), its source
and level those of its parent, ``answer_value`` its exact answer, ``steps`` its operations.

``derive_sets``   ``id``, ``name`` (unique; the QC/release scope), ``kind``, ``spec`` (JSON:
                  options, sources, limit, ``max_seed_id``), ``created_by``, ``created_at``.
``derive_jobs``   one per (set, parent): ``status`` pending | done | refused, the lease
                  (``owner``, ``leased_at``), ``made``, ``refused``, ``reason`` (why the parent
                  itself cannot be transformed, ``code: message``), ``detail`` (JSON list of
                  refused items ``{transform, code, reason, idx}``).
``derived_items`` one per item: ``seed_id`` (its seed), ``set_id``, ``parent_id`` (the parent's
                  seed id), ``transform``, ``family``, ``level`` (k noise sentences, d digits,
                  n errors, the counterfactual shift in %), ``idx`` (its number among the
                  parent's items of that transform), ``tag``, ``params`` (JSON, below),
                  ``answer_value``, ``dimensions`` (JSON list of the dimensions it carries),
                  ``ops`` (arithmetic operations of its formalization).

Groups the metrics need: a **variant family** is (``set_id``, ``parent_id``, ``transform`` =
``variant``) — A_avg is the mean over parents of the mean over the family, A_wst of its
minimum; a **ladder curve** is (``set_id``, ``transform``, ``level``); a **perturbation drop**
compares an item with its parent's release record (``parent_id``); a **counterfactual** item
has ``params.parent_answer`` (a model repeating it shows memorisation) and its own answer;
an **inverse** item hides ``params.hidden`` (given name; ``scale`` 100 for a percent) and
:func:`.transforms.inverse_smtlib` (parent SMT-LIB, hidden, scale, any forward answer)
gives the backward formalization for the round trip: Z3 on it says which X a forward answer
implies.

``params`` by transform: ``variant``, ``changed-numbers``: ``givens`` {name: {old, new, words,
new_words}}; ``counterfactual``: ``given``, ``shift_percent``, ``actual_shift_percent``,
``rounded``, ``givens``, ``parent_answer``; ``noise``: ``k``, ``sentences`` [{text, from}];
``digits``: ``digits``, ``givens`` {name: {old, new}}; ``errors``: ``n_errors``, ``types``;
``add-operation``: ``sentence``, ``added``, ``operation``, ``parent_answer``; ``inverse``:
``hidden``, ``hidden_words``, ``hidden_value``, ``scale``, ``parent_answer``, ``answer_written``.

QC and releases: samples and releases have a ``scope`` ('' the working set, else a set's
name); ``qcstation qc sample DIM --set NAME``, the gate per scope, and ``qcstation release
approve NAME --set SET`` freeze a *derived release* whose records carry the SMART fields of
every dimension the item has, plus ``parent``, ``transform``, ``params`` (and ``family``,
``level``, ``set``, ``dimensions``).

Contract (what commands and screens call)
-----------------------------------------
runner.run_derive(db_path, cfg, *, kind, name=None, opts=None, sources=None, limit=None,
                  workers=0, z3_workers=None, actor=None, progress=None) -> DeriveSummary
                  (workers / z3_workers None: one per usable core, runner.plan_processes)
report.set_report(store, name) -> SetReport (shares per source and transform, reasons)
report.list_items(store, name, *, transform=None, limit=50) -> list[dict]
store.list_sets(store) -> list[SetInfo]; store.get_set(store, name) -> SetInfo
stale.check_set(store, name, *, parents_only=False) -> StaleReport (stale items, reasons)
"""
