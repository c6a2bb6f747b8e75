"""Robustness diagnostics: how a model's answers hold up across derived items (variants,
ladders, perturbations, counterfactual and inverse problems; :mod:`qcstation.core.derive`),
each with its exact answer from Z3.

A derived release is evaluated like any other (``qcstation eval run --release NAME@VERSION``;
an item is asked the tasks it carries and the final answer). Its run's frozen records name
each item's ``parent``, ``transform``, ``level`` and ``params``; this package reads them
(joined to ``derived_items`` for what the records lack) with the run's scores, and the run of
the same model on the parents' release (the *base run*) when a measure compares with the
parent.

Modules, bottom up (a module imports only those above it in this list)
----------------------------------------------------------------------
``measures``   the measures as plain functions of plain data, each checkable by hand:
               ``robustness`` (A_avg, A_wst, RR), ``repetition_consistency`` (RC),
               ``consistent_failures``, ``memorised``, ``curve`` (ladders), ``drop``,
               ``counterfactual`` (follow / repeat-original), ``mcnemar``, ``step_fidelity``.
``fidelity``   Z3 on the benchmark's own formalizations: ``intermediates`` (the step values
               step fidelity looks for), ``solve_hidden`` (the given a forward answer implies,
               unique, for the round trip).
``load``       ``load_run_data`` (a run's items with parent/transform/params and per
               dimension and sample: right or not, the answer), ``find_base``.
``diagnose``   ``diagnose(store, run_id, base=None) -> Diagnosis``: every table of one run.
``refine``     self-refine (SMART 4.6): ``weakest`` dimension of a run, the refinement
               prompt added to a task's template, ``refine_gain`` (per dimension, McNemar);
               the round trip's records (``round_trip_records``).
``charts``     the terminal charts and the report's figures of a diagnosis.

Contract (what commands, the report and screens call)
-----------------------------------------------------
diagnose.diagnose(store, run_id, *, base=None, fidelity=True) -> Diagnosis (``to_dict()``;
    ``most_dropped(transform)``: every dimension tied at the largest drop)
refine.weakest(store, run_id) -> (dimension task, accuracies by dimension); a tie: EvalError
refine.weakest_dimensions(store, run_id) -> (the dimensions at the lowest accuracy, accuracies)
refine.refine_gain(store, run_id, earlier_run_id) -> dict[dimension code, measures.McNemar]
    (every sample: per-item shares, the sign test on the items that moved)
refine.round_trip_records(store, inverse_run, forward_run) -> (records, refused reasons)

Dimensions are the metric codes (``un`` right at a judges' score >= 90, ``re``, ``ar``,
``rt``, ``rm``, ``fi``); accuracies are shares 0..1, averaged over an item's samples first.
"""
