"""Schema migrations 17 on (``db/migrations.py`` holds 1 to 16 and its docstring the rules:
append-only, one transaction each). A new migration goes at the end of this module.
"""

from __future__ import annotations

from functools import partial

from db.kept_eval import METRICS as KEPT_EVAL_METRICS
from db.kept_eval import STATEMENTS_21 as KEPT_HEADLINE_STATEMENTS
from db.kept_eval import STATEMENTS_22 as KEPT_HEADLINE_BATCHED
from db.kept_eval import STATEMENTS_24 as KEPT_SCORES_BATCHED
from db.kept_eval import stored_metric_statements
from db.migration_log import Migration, register

RECENT: list[Migration] = []
migration = partial(register, RECENT)


# --- v17: model-made artifacts ----------------------------------------------------------
# Z3 checks a formalization's value, not its meaning: once a model made a Reasoning artifact,
# Reasoning joins the QC dimensions (qcstation.core.review.queries.qc_dimensions). This
# partial index answers "is any verified artifact of this dimension model-made?" at once,
# without reading the rule-made ones.
migration(
    17,
    "model-made artifacts (Reasoning joins QC once a model made one)",
    ["CREATE INDEX artifacts_model_made ON artifacts (dimension, status) "
     "WHERE generator NOT LIKE 'rule:%'"],
)

# --- v18: the strict reading of Reflection (ACC@R-t strict) kept per item-sample ----------
# A new stored metric is a column of eval_pairs and the pair triggers made again over it
# (db/kept_eval.stored_metric_statements; tests/eval/test_metric_record.py).
migration(
    18,
    "stored metric rt_s (Reflection, strict: the asked 'Error types:' line)",
    [*stored_metric_statements(KEPT_EVAL_METRICS, ("rt_s",), batched=False)],
)

# --- v19: the active decisions by verdict ----------------------------------------------------
# The curator queue's skipped and disagreed items start from the active decisions with that
# verdict (a skip; a reject with an accept beside it): a few hundred index entries instead of
# every decision (qcstation.core.review.curation._FEW_STATES).

migration(
    19,
    "active decisions by verdict (the queue's skipped and disagreed items)",
    ["CREATE INDEX reviews_active_verdict ON reviews (verdict, sample_item_id) "
     "WHERE undone_at IS NULL"],
)

# --- v20: the team panel's decisions counted ---------------------------------------------------
# Each annotator's active decisions by verdict, unsure flag and display name, kept by triggers
# on reviews (a decision made, undone, changed or deleted): the team panel counted every
# decision (0.33 s of CPU at 1M seeds). qcstation.core.review.team.team_people reads them (first
# and last decision from reviews_annotator, an index seek each); its *_from_scratch twin is the
# old query (tests/core/review/test_kept_counts.py). No new index on reviews (annotator, ...):
# one made the planner read an annotator's latest decisions through it and sort all of them
# (the review screen's first frame: 3 s of CPU at 1M) instead of reviews_active_by_id.


def _review_count(row: str, sign: int) -> str:
    return (f"INSERT INTO review_counts (annotator, verdict, unsure, display_name, n) "
            f"SELECT {row}.annotator, {row}.verdict, {row}.unsure, "
            f"COALESCE({row}.display_name, ''), {sign} WHERE {row}.undone_at IS NULL "
            f"ON CONFLICT (annotator, verdict, unsure, display_name) DO UPDATE SET n = n + "
            f"excluded.n;")


migration(
    20,
    "each annotator's active decisions counted (the team panel)",
    ["""
     CREATE TABLE review_counts (
         annotator TEXT NOT NULL, verdict TEXT NOT NULL, unsure INTEGER NOT NULL,
         display_name TEXT NOT NULL,            -- '' for none
         n INTEGER NOT NULL,
         PRIMARY KEY (annotator, verdict, unsure, display_name)
     ) WITHOUT ROWID
     """,
     f"CREATE TRIGGER review_counts_ins AFTER INSERT ON reviews BEGIN "
     f"{_review_count('NEW', 1)} END",
     f"CREATE TRIGGER review_counts_upd AFTER UPDATE OF annotator, verdict, unsure, "
     f"display_name, undone_at ON reviews BEGIN {_review_count('OLD', -1)} "
     f"{_review_count('NEW', 1)} END",
     f"CREATE TRIGGER review_counts_del AFTER DELETE ON reviews BEGIN "
     f"{_review_count('OLD', -1)} END",
     "INSERT INTO review_counts (annotator, verdict, unsure, display_name, n) "
     "SELECT annotator, verdict, unsure, COALESCE(display_name, ''), COUNT(*) FROM reviews "
     "WHERE undone_at IS NULL GROUP BY 1, 2, 3, 4"],
)

# --- v21: a run's items counted by their verdicts (headline numbers and charts) -------------
# The runs list's headline numbers and the charts' figures read every item-sample row of a run
# (1M scores: 0.8-0.9 s of CPU per screen); they depend only on how many items of each group
# have each set of verdicts, which these keep (db/kept_eval.py, qcstation.eval.metrics
# .load_run_kept). Built here from the kept item-sample rows.
migration(
    21,
    "a run's items counted by group and verdicts (the runs list's headline, the charts)",
    [*KEPT_HEADLINE_STATEMENTS],
)

# --- v22: a run's items recounted once per batch, not at every score written -------------
# Migration 21's triggers recounted an item at each write of its item-sample rows (~75 µs a
# score); now a write marks the item and the writer's batch recounts each marked item once
# (db/kept_eval.py: RECOUNT_DIRTY); readers count what is still marked from its rows.
migration(
    22,
    "a run's items recounted once per batch (marked by each write, recounted by the writer)",
    [*KEPT_HEADLINE_BATCHED],
)

# --- v23: the items the annotators disagree on ------------------------------------------------
# The curator queue's disagreed items (an active reject and an active accept of the same item)
# were found from every active reject, looking for an accept beside each: at 1M seeds 48,790
# rejects read to find none (55-71 ms of CPU, 0.4-0.6 s of wall). This table holds the items
# that have both, kept by triggers on reviews: a decision made, undone, changed, moved or
# deleted recounts its item (and the item it left) with two seeks of reviews_active_verdict
# (migration 19). qcstation.core.review.curation reads it; disagreed_items(from_scratch=True)
# is the old query (tests/core/review/test_kept_counts.py).


def _disagreed(item: str) -> str:
    """Statements that make ``item`` (a sample item id) a row of review_disagreed exactly
    when it has an active reject and an active accept."""
    def active(verdict: str) -> str:
        return (f"EXISTS (SELECT 1 FROM reviews r WHERE r.verdict = '{verdict}' "
                f"AND r.sample_item_id = {item} AND r.undone_at IS NULL)")

    return (f"DELETE FROM review_disagreed WHERE sample_item_id = {item}; "
            f"INSERT INTO review_disagreed (sample_item_id) SELECT {item} "
            f"WHERE {active('reject')} AND {active('accept')};")


migration(
    23,
    "the items with an active reject and an active accept (the queue's disagreed)",
    ["CREATE TABLE review_disagreed (sample_item_id INTEGER PRIMARY KEY)",
     f"CREATE TRIGGER review_disagreed_ins AFTER INSERT ON reviews BEGIN "
     f"{_disagreed('NEW.sample_item_id')} END",
     f"CREATE TRIGGER review_disagreed_upd AFTER UPDATE OF sample_item_id, verdict, undone_at "
     f"ON reviews BEGIN {_disagreed('OLD.sample_item_id')} {_disagreed('NEW.sample_item_id')} END",
     f"CREATE TRIGGER review_disagreed_del AFTER DELETE ON reviews BEGIN "
     f"{_disagreed('OLD.sample_item_id')} END",
     "INSERT INTO review_disagreed (sample_item_id) SELECT DISTINCT r.sample_item_id "
     "FROM reviews r WHERE r.verdict = 'reject' AND r.undone_at IS NULL AND EXISTS (SELECT 1 "
     "FROM reviews o WHERE o.verdict = 'accept' AND o.sample_item_id = r.sample_item_id "
     "AND o.undone_at IS NULL)"],
)

# --- v24: a batch of score rows keeps its pairs and verdict counts with one statement each ------
# Migration 14's insert triggers upserted the item-sample row and the verdict count at every
# score row (about 30 µs a row, beside a running evaluation). A writer of many rows
# (db/kept_eval.store_scores: the scorers, the live scoring worker) names its pairs in
# eval_score_batch inside its transaction; the two insert triggers pass over them, and the
# writer makes those pairs and counts with one statement each, then clears the names. Every
# other write goes through the triggers as before.
migration(
    24,
    "a batch of score rows keeps its item-samples and verdict counts once (not per row)",
    [*KEPT_SCORES_BATCHED],
)

# --- v25: runs answered and never scored read `unscored` ---------------------------------------
# Before the `unscored` status (issue 30.5) `eval run --no-score` stored a run `done` with its
# outputs and no score. A scoring pass writes at least one score row for every output it reads
# (a failed request's too: verdict `error`), so a `done` run holding outputs and no score row was
# never scored: it reads `unscored` now, as a run made so today does (the leaderboard leaves it
# out and names it; `eval score`/`eval resume` score it). One UPDATE over eval_runs; each run is
# two index seeks (eval_outputs_status and eval_scores_page_sd start with run_id), whatever the
# number of outputs; it changes nothing when run again (tests/db/test_store.py).
UNSCORED_DONE_RUNS = (
    "UPDATE eval_runs SET status = 'unscored' WHERE status = 'done' "
    "AND EXISTS (SELECT 1 FROM eval_outputs o WHERE o.run_id = eval_runs.id) "
    "AND NOT EXISTS (SELECT 1 FROM eval_scores s WHERE s.run_id = eval_runs.id)")

migration(
    25,
    "runs stored done with outputs and no score (eval run --no-score before `unscored`) read unscored",
    [UNSCORED_DONE_RUNS],
)

# --- v26: the rules' result kept with its seed (construct.make.rules.stored), valid for its key
# (today's rules, the seed's fields): generate writes it, derive reads it instead of the rules.
migration(26, "the rules' result kept with its seed", [
    "CREATE TABLE IF NOT EXISTS rule_results (seed_id INTEGER PRIMARY KEY, key TEXT NOT NULL, result TEXT NOT NULL)"])
