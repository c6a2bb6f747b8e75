"""Construction: the four SMART dimension artifacts made from a seed (import -> **construct** ->
verify -> review -> release), by exact rules where the seed's data allows and by a model
otherwise. Nothing here imports Textual or the review stage.

The path says what a module does: ``make/`` makes an artifact, ``check/`` checks one, and
the pipeline drives both. Below all of it stand the reading floor (``qcstation.core.reading``:
numbers, expressions, clauses) and ``qcstation.core.verify`` (Z3); ingest and verify never
import construction.

Packages and modules, bottom up (each imports only those above it in this list)
---------------------------------------------------------------------------------
``make/``             the artifacts: rules (Reasoning), notation (Arithmetic), key information
                      and unknowns (Understanding), error injection (R&R), the model client
                      and prompts; its own contract in its ``__init__``.
``check/``            the checks: re-reading, given roles, stored flags, notation read back,
                      the content checks every caller shares; its own contract in its
                      ``__init__``.
``pipeline_records``  what a generation run writes per item (attempt, artifact, verdict);
``pipeline_model``    the model's side of the loop: a job's prompt, a reply read as content;
``pipeline``          the generate -> verify -> regenerate loop over seeds and dimensions.
"""
