"""Human quality control: seeded stratified samples, claims, decisions, the QC gate.

Workflow (SMART §3.3.3: "a randomly selected 10% subset is manually reviewed ... the
low-quality portions are regenerated, then re-sampled and re-verified until they pass"):
a seeded random sample of the verified artifacts of a dimension is drawn, annotators claim
and decide its items, rejects go back to generation with the reviewers' reasons and their
replacements return to the sample, and the gate says when the dimension may be released.
Nothing here imports Textual; screens and commands call these functions (screens from
workers), each in its own process, on one SQLite file.

Modules (rooms), lowest first; a room imports only rooms above it in this list
----------------------------------------------------------------------------------
``queries``    the SQL the rooms share: current artifacts (``CUR_SQL``, ``CUR_COUNTS_SQL``,
               also used by ``status``), ``rejected_sql``, ``ITEMS_CTE`` (the rounds that
               count: ``counting_since``, from the latest fresh round on), the decisions
               that count (``active_reviews``, ``active_resolutions``), ``check_dimension``.
``items``      ``ReviewItem`` (one sampled item as people review it), ``get_item``,
               ``list_items``, ``item_key`` (``gsm8k-17``, as in releases), ``find_item`` /
               ``find_seed`` (an item or seed named ``gsm8k-17`` or by number).
``sampling``   ``draw_sample`` / ``extend_sample`` / ``close_sample`` (seeded, stratified by
               source: ``stratified_allocation``), ``coverage_from``,
               ``requeue_replacements`` and ``join_open_sample`` (a replacement joins the
               open sample, linked to the version it replaces).
``decisions``  claims (``next_item``, ``release_claim``) and decisions (``decide``,
               ``change_decision``, ``undo_last``, ``my_decisions``); the common reject
               reasons; ``clean_text`` (how a reason or note is stored).
``gate``       ``gate`` (read-only), ``gate_plan``, ``progress``, ``bound_text``,
               ``dashboard_counts``.
``curation``   what curators do: ``exclude_seed``, ``resolve_item`` (``override``,
               ``settle``), ``fresh_round`` (a new random round of corrected data) and the
               curator ``queue``.
``step``       the review step, one verb per key of the review journey, each returning a
               typed ``Step`` (what happened: ``Decided`` saved or ``moved_on``, ``Undone``,
               an exclusion; what to show now: item, editable, current, progress):
               ``next_step``, ``decide_item``, ``decide_step``, ``change_step``,
               ``move_on``, ``undo_step``, ``look_at``, ``exclude_step``; shared by the
               review screen and ``qcstation qc next`` / ``decide``.
``rounds``     the curator's bulk operations over every dimension of every set, each with
               a typed outcome (``Rounds``: per dimension and set what was done, or ``Why``
               not): ``draw_samples``, ``extend_samples``, ``fresh_rounds``,
               ``regenerate_rejects``; the dashboard's s, e, F and g. Their steps for one
               dimension (``draw_round``, ``extend_round``, ``fresh_one``) are
               ``qcstation qc sample`` / ``extend`` / ``fresh``.
``team``       ``agreement`` (Cohen's kappa and Gwet's AC1 over overlap items, with a note
               when kappa says little) and ``team_stats``.
``fixes``      fixing an item in place (a new human-made version, checked on its own terms:
               a notation question read into its own SMT-LIB and checked by Z3, then
               accepted); a curator's late correction of an accepted item.
``audit``      flags on references the rules cannot vouch for; ``status`` the counts of
               ``qcstation status``. Both read the store only.

Below the rooms: :mod:`db.artifacts` (``current_artifact``, ``reject_feedback``, also read
by construction) and :mod:`db.store`; :mod:`qcstation.common.vocab` spells the dimensions.

Contract between the modules (what screens and commands rely on)
----------------------------------------------------------------
Every write runs inside ``store.transaction()`` (``BEGIN IMMEDIATE``) and re-checks the
state it acts on there, so two processes never both decide a non-overlap item; functions
that write join a caller's open transaction. Errors meant for people are
:class:`qcstation.common.errors.ReviewError` with a title; a decision refused because its
item moved on elsewhere (decided, replaced, closed, claimed meanwhile) is its subclass
:class:`~qcstation.common.errors.ItemMovedOn`, which the review step turns into an outcome.

sampling.draw_sample(store, dimension, *, rate, rng_seed, actor, min_size=5,
                     overlap_rate=0.0, redraw=False, curators=None) -> SampleInfo
sampling.extend_sample(store, sample_id, *, extra, actor, curators, reason=None) -> SampleInfo
decisions.next_item(store, annotator, dimension=None, *, after_item_id=None)
                     -> ReviewItem | None      (claims it; claims expire after 15 minutes)
decisions.decide(store, item_id, annotator, verdict, reason=None, *, comment=None,
                 unsure=False, display=None) -> review id   (a reject needs a reason)
decisions.undo_last(store, annotator) -> item id | None
step.next_step(store, annotator, dimension=None, *, scope=None) -> Step
step.decide_step(store, annotator, dimension, item_id, verdict, reason=None, *,
                 comment=None, unsure=False) -> Step   (Step.decided.moved_on: ItemMovedOn)
step.decide_item(store, item_id, annotator, verdict, reason=None, *, comment=None,
                 unsure=False) -> Decided
gate.gate(store, dimension, *, threshold, confidence=0.95) -> GateStatus
    (passed, rule, blockers, next_step, cli_hint, extend_by, plan, ...)
gate.dashboard_counts(store, *, threshold, confidence, dimensions) -> dict
curation.exclude_seed(store, seed_id, *, actor, reason, curators) -> dict
curation.resolve_item(store, item_id, *, kind, verdict, reason, actor, curators) -> dict
curation.queue(store, *, state=None, dimension=None, annotator=None, reason=None,
               source=None, text=None, scope=None, limit=1000, after=None) -> list[QueueRow]
curation.queue_and_items(store, **the same) -> (rows, {item id: ReviewItem})
team.team_stats(store, dimensions) -> {"annotators": [...], "agreement": {dim: {...}}}
fixes.fix_in_place(store, item_id, text, *, actor, reason=None, display=None,
                   curators=None) -> dict
curation.fresh_round(store, dimension, *, actor, curators, rate, rng_seed, threshold,
                     confidence, min_size=5, overlap_rate=0.0, scope="") -> dict
items.find_item(store, ref, dimension=None) -> item id    (``gsm8k-17`` or a number)
rounds.draw_round(store, qc, dimension, scope="", *, actor, where_needed=False, redraw=False,
                  rate=None, rng_seed=None, min_size=None, overlap_rate=None) -> DimensionRound
rounds.extend_round(store, qc, sample, *, actor, extra=None, because=BY_HAND) -> DimensionRound
rounds.fresh_one(store, qc, dimension, scope="", *, actor, rng_seed=None) -> DimensionRound
    (a refusal is ``why_not`` REFUSED with ``refusal``, the ReviewError, for the shell to raise)

Storage (``db/migrations.py``): ``samples`` (one row per draw round, ``params`` JSON with
the strata, chosen artifacts and extensions), ``sample_items`` (position, overlap flag,
claim), ``reviews`` (one row per decision; undone or changed ones keep their row with
``undone_at``), ``qc_resolutions`` (curators' overrides and settlements), ``events``.
"""
