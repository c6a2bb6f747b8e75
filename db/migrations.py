"""Versioned schema migrations for the qcstation store.

Each migration is a list of steps applied in one transaction: SQL statements, or a
function given the ``sqlite_utils.Database`` on the store's connection (for what
sqlite-utils does well: full-text indexes, introspection). The schema version lives in
``PRAGMA user_version``. A database made by an older version of qcstation is upgraded in
place, keeping its data. Migrations are append-only: never edit a released one, add a
new one. (One edit was made, with the same end state: migration 1 no longer creates the
``eval_responses`` placeholder that migration 4 drops, ``IF EXISTS``, for databases made
before; ``tests/db/v1_schema.sql`` keeps those statements.)

Two modules hold them: this one migrations 1 to 16, :mod:`db.migrations_recent` 17 on (a
new migration goes at the end of that one). Each registers its own with
:func:`db.migration_log.register`; :data:`MIGRATIONS` here is both, in version order, and
:data:`SCHEMA_VERSION` the last. ``db.store`` reads these two names only.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from db.kept_counts import STATEMENTS as KEPT_COUNTS_STATEMENTS
from db.kept_eval import STATEMENTS as KEPT_EVAL_STATEMENTS
from db.kept_eval import STATEMENTS_15 as KEPT_REPLIES_STATEMENTS
from db.migration_log import Migration, register
from db.migrations_recent import RECENT

_EARLY: list[Migration] = []
migration = partial(register, _EARLY)


# --- v1: seeds, artifacts, attempts, reviews, releases, evaluations, events -----------
migration(
    1,
    "initial schema",
    [
        """
        CREATE TABLE seeds (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,
            orig_id TEXT NOT NULL,
            question TEXT NOT NULL,
            answer_text TEXT NOT NULL,
            answer_value TEXT,              -- exact rational 'p/q' (or 'p') when numeric
            solution TEXT,
            equation TEXT,
            level TEXT NOT NULL,            -- easy | medium | hard
            status TEXT NOT NULL DEFAULT 'active',   -- active | filtered | duplicate
            filter_reason TEXT,
            filter_detail TEXT,
            duplicate_of INTEGER REFERENCES seeds(id),
            content_hash TEXT NOT NULL,
            meta TEXT NOT NULL DEFAULT '{}',
            import_file TEXT,
            import_line INTEGER,
            imported_at TEXT NOT NULL,
            UNIQUE (source, orig_id)
        )
        """,
        "CREATE INDEX seeds_source_hash ON seeds (source, content_hash)",
        "CREATE INDEX seeds_status ON seeds (status)",
        """
        CREATE TABLE import_runs (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL,
            format TEXT NOT NULL,
            source TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            actor TEXT,
            added INTEGER DEFAULT 0,
            skipped_existing INTEGER DEFAULT 0,
            filtered INTEGER DEFAULT 0,
            duplicates INTEGER DEFAULT 0,
            errors TEXT NOT NULL DEFAULT '[]'
        )
        """,
        """
        CREATE TABLE artifacts (
            id INTEGER PRIMARY KEY,
            seed_id INTEGER NOT NULL REFERENCES seeds(id),
            dimension TEXT NOT NULL,       -- understanding | reasoning | arithmetic | refinement
            version INTEGER NOT NULL,
            status TEXT NOT NULL,          -- generated | verified | failed | accepted | rejected | superseded
            content TEXT NOT NULL,         -- JSON
            generator TEXT NOT NULL,
            model TEXT,
            prompt_version TEXT,
            attempt_id INTEGER REFERENCES attempts(id),
            replaces_id INTEGER REFERENCES artifacts(id),
            verify_result TEXT,            -- JSON
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (seed_id, dimension, version)
        )
        """,
        "CREATE INDEX artifacts_dim_status ON artifacts (dimension, status)",
        "CREATE INDEX artifacts_seed ON artifacts (seed_id, dimension)",
        """
        CREATE TABLE attempts (
            id INTEGER PRIMARY KEY,
            seed_id INTEGER NOT NULL REFERENCES seeds(id),
            dimension TEXT NOT NULL,
            attempt_no INTEGER NOT NULL,
            generator TEXT NOT NULL,
            model TEXT,
            prompt_version TEXT,
            inputs TEXT,                   -- JSON: messages / rule inputs
            feedback TEXT,                 -- verifier or reviewer feedback this attempt answered
            raw_output TEXT,
            parse_ok INTEGER,
            parse_error TEXT,
            verify_status TEXT,
            verify_detail TEXT,            -- JSON
            artifact_id INTEGER REFERENCES artifacts(id),
            started_at TEXT NOT NULL,
            finished_at TEXT
        )
        """,
        "CREATE INDEX attempts_seed ON attempts (seed_id, dimension)",
        """
        CREATE TABLE llm_cache (
            key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            request TEXT NOT NULL,
            response TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY,
            model TEXT NOT NULL,
            base_url TEXT,
            cache_key TEXT,
            cached INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL,          -- ok | error
            error TEXT,
            retries INTEGER NOT NULL DEFAULT 0,
            latency_ms REAL,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            cost REAL,
            purpose TEXT,
            created_at TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE samples (
            id INTEGER PRIMARY KEY,
            dimension TEXT NOT NULL,
            round INTEGER NOT NULL,
            rng_seed INTEGER NOT NULL,
            rate REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'open',   -- open | passed | failed | superseded
            params TEXT NOT NULL DEFAULT '{}',
            created_by TEXT,
            created_at TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE sample_items (
            id INTEGER PRIMARY KEY,
            sample_id INTEGER NOT NULL REFERENCES samples(id),
            seed_id INTEGER NOT NULL REFERENCES seeds(id),
            artifact_id INTEGER NOT NULL REFERENCES artifacts(id),
            stratum TEXT,
            position INTEGER NOT NULL,
            overlap INTEGER NOT NULL DEFAULT 0,    -- 1: reviewed by two annotators for agreement
            claimed_by TEXT,
            claimed_at TEXT,
            UNIQUE (sample_id, artifact_id)
        )
        """,
        """
        CREATE TABLE reviews (
            id INTEGER PRIMARY KEY,
            sample_item_id INTEGER NOT NULL REFERENCES sample_items(id),
            artifact_id INTEGER NOT NULL REFERENCES artifacts(id),
            annotator TEXT NOT NULL,
            verdict TEXT NOT NULL,                 -- accept | reject | skip
            reason TEXT,
            created_at TEXT NOT NULL,
            undone_at TEXT
        )
        """,
        "CREATE INDEX reviews_item ON reviews (sample_item_id)",
        """
        CREATE TABLE releases (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            version TEXT NOT NULL,
            status TEXT NOT NULL,                  -- approved
            approved_by TEXT NOT NULL,
            approved_at TEXT NOT NULL,
            manifest TEXT NOT NULL,
            notes TEXT,
            UNIQUE (name, version)
        )
        """,
        """
        CREATE TABLE release_items (
            release_id INTEGER NOT NULL REFERENCES releases(id),
            seed_id INTEGER NOT NULL REFERENCES seeds(id),
            record TEXT NOT NULL,                  -- frozen JSON record
            PRIMARY KEY (release_id, seed_id)
        )
        """,
        """
        CREATE TABLE eval_runs (
            id INTEGER PRIMARY KEY,
            release_id INTEGER REFERENCES releases(id),
            model TEXT NOT NULL,
            config TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL,                  -- running | done | failed
            started_at TEXT NOT NULL,
            finished_at TEXT
        )
        """,
        """
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            entity TEXT,
            entity_id INTEGER,
            detail TEXT NOT NULL DEFAULT '{}'
        )
        """,
        """
        CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END
        """,
        """
        CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END
        """,
    ],
)

# --- v2: derived reasoning-step count on seeds, release items immutable ---------------
migration(
    2,
    "seed step counts; immutable releases",
    [
        "ALTER TABLE seeds ADD COLUMN steps INTEGER",
        "CREATE INDEX events_at ON events (at)",
        """
        CREATE TRIGGER release_items_no_update BEFORE UPDATE ON release_items
        BEGIN SELECT RAISE(ABORT, 'releases are immutable'); END
        """,
        """
        CREATE TRIGGER release_items_no_delete BEFORE DELETE ON release_items
        BEGIN SELECT RAISE(ABORT, 'releases are immutable'); END
        """,
        """
        CREATE TRIGGER releases_no_update BEFORE UPDATE ON releases
        BEGIN SELECT RAISE(ABORT, 'releases are immutable'); END
        """,
    ],
)

# --- v3: indexes for the QC gate and dashboard aggregates at 100k+ items ---------------
migration(
    3,
    "indexes for QC aggregates",
    [
        # current artifact of each (dimension, seed): index-only GROUP BY seed_id / MAX(version)
        "CREATE INDEX artifacts_dim_seed_version ON artifacts (dimension, seed_id, version, status)",
        "CREATE INDEX sample_items_artifact ON sample_items (artifact_id)",
        "CREATE INDEX sample_items_seed ON sample_items (seed_id)",
        "CREATE INDEX reviews_artifact ON reviews (artifact_id)",
        # seeds by source and status (dashboard counts) without reading the seed rows
        "CREATE INDEX seeds_source_status ON seeds (source, status)",
    ],
)

# --- v4: evaluation runs (qcstation.eval): frozen items, raw outputs, scores ------------
# Raw model outputs and their scores live apart, so a run can be re-scored without a
# model call. Prompts are not stored per output: they are rebuilt from the run's spec
# (template texts, exemplar ids) and the frozen item record, and checked by hash.
migration(
    4,
    "evaluation runs, outputs and scores",
    [
        "DROP TABLE IF EXISTS eval_responses",  # v1 placeholder of databases made before 0.1
        "ALTER TABLE eval_runs ADD COLUMN name TEXT",
        "ALTER TABLE eval_runs ADD COLUMN spec TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE eval_runs ADD COLUMN backend TEXT",
        "ALTER TABLE eval_runs ADD COLUMN created_by TEXT",
        "ALTER TABLE eval_runs ADD COLUMN n_items INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE eval_runs ADD COLUMN n_requests INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE eval_runs ADD COLUMN owner TEXT",         # host:pid of the process running it
        "ALTER TABLE eval_runs ADD COLUMN heartbeat_at TEXT",  # lease: stale after 60 s
        "ALTER TABLE eval_runs ADD COLUMN error TEXT",
        """
        CREATE TABLE eval_items (
            run_id INTEGER NOT NULL REFERENCES eval_runs(id),
            seed_id INTEGER NOT NULL,
            item_key TEXT NOT NULL,                -- '<source>-<orig_id>'
            source TEXT NOT NULL,
            difficulty TEXT,
            role TEXT NOT NULL DEFAULT 'eval',     -- eval | exemplar
            position INTEGER NOT NULL,
            record TEXT NOT NULL,                  -- frozen JSON record (release record format)
            PRIMARY KEY (run_id, seed_id)
        )
        """,
        """
        CREATE TABLE eval_outputs (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES eval_runs(id),
            seed_id INTEGER NOT NULL,
            task TEXT NOT NULL,                    -- understanding | reasoning | arithmetic | refinement | final
            sample_idx INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL,                  -- ok | error
            prompt_hash TEXT NOT NULL,             -- sha256 of the messages as sent
            response TEXT,                         -- raw model text (ok)
            finish_reason TEXT,
            error TEXT,                            -- why the request failed (error)
            endpoint TEXT,
            cached INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            cost REAL,
            latency_ms REAL,
            created_at TEXT NOT NULL,
            UNIQUE (run_id, seed_id, task, sample_idx)
        )
        """,
        """
        CREATE TABLE eval_scores (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES eval_runs(id),
            seed_id INTEGER NOT NULL,
            sample_idx INTEGER NOT NULL DEFAULT 0,
            metric TEXT NOT NULL,                  -- un | re | ar | rt | rm | fi
            task TEXT NOT NULL,
            verdict TEXT NOT NULL,                 -- correct | wrong | unparseable | error | not_scored
            score REAL,                            -- 1/0 for accuracy metrics; 1..100 for un
            extracted TEXT,
            detail TEXT NOT NULL DEFAULT '{}',
            scorer_version TEXT NOT NULL,
            source TEXT NOT NULL,                  -- denormalised for the results browser
            difficulty TEXT,
            scored_at TEXT NOT NULL,
            UNIQUE (run_id, seed_id, sample_idx, metric)
        )
        """,
        "CREATE INDEX eval_scores_browse ON eval_scores (run_id, metric, verdict, seed_id)",
        "CREATE INDEX eval_scores_source ON eval_scores (run_id, source, difficulty, seed_id)",
        "CREATE INDEX eval_outputs_status ON eval_outputs (run_id, status)",
    ],
)

# --- v5: the review team: identity in the logs, comments, curator resolutions, human fixes --
# A person is the OS account (``annotator``/``actor``/``author``); the display name they
# chose (--annotator) is kept beside it. A curator's override or settlement of an item is a
# row of ``qc_resolutions`` (the latest active one is the item's outcome for the gate; the
# annotators' own reviews stay untouched). A review changed later points at the review it
# replaces (``changes_id``). A version fixed in place by a reviewer is an ordinary artifact
# row (``generator`` 'human', ``author`` the account, ``replaces_id`` the version it fixes).
migration(
    5,
    "review team: display names, comments, unsure flags, resolutions, human authors",
    [
        "ALTER TABLE events ADD COLUMN display_name TEXT",
        "ALTER TABLE reviews ADD COLUMN display_name TEXT",
        "ALTER TABLE reviews ADD COLUMN comment TEXT",
        "ALTER TABLE reviews ADD COLUMN unsure INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE reviews ADD COLUMN changes_id INTEGER REFERENCES reviews(id)",
        "CREATE INDEX reviews_annotator ON reviews (annotator, created_at)",
        "ALTER TABLE artifacts ADD COLUMN author TEXT",
        """
        CREATE TABLE qc_resolutions (
            id INTEGER PRIMARY KEY,
            sample_item_id INTEGER NOT NULL REFERENCES sample_items(id),
            kind TEXT NOT NULL,                    -- override | settle
            verdict TEXT NOT NULL,                 -- accept | reject
            reason TEXT NOT NULL,
            curator TEXT NOT NULL,                 -- account
            display_name TEXT,
            created_at TEXT NOT NULL,
            undone_at TEXT
        )
        """,
        "CREATE INDEX qc_resolutions_item ON qc_resolutions (sample_item_id)",
    ],
)

# --- v6: results-browser indexes (qcstation/eval/browse.py) ------------------------------
# Every browser page walks one of these in the page order (seed_id, sample_idx, metric)
# after equality on its leading columns, and stops after a page: a page costs the same
# on the first and the thousandth page of a million scores (bench/browse_bench.py).
# source/difficulty/score ride along so a residual filter never reads the table.
# Without them (and without ANALYZE statistics, which a working database does not have)
# SQLite walks the run's unique key and filters: up to 300 ms a page on a million
# scores for a rare verdict across runs, against under 2 ms with them.
migration(
    6,
    "results browser indexes",
    [
        "CREATE INDEX eval_scores_page_mv ON eval_scores "
        "(run_id, metric, verdict, seed_id, sample_idx, source, difficulty, score)",
        "CREATE INDEX eval_scores_page_sd ON eval_scores "
        "(run_id, source, difficulty, seed_id, sample_idx, metric)",
        "DROP INDEX eval_scores_browse",      # a prefix of eval_scores_page_mv
        "DROP INDEX eval_scores_source",      # a prefix of eval_scores_page_sd
    ],
)

# --- v7: full-text search (FTS5) over seed questions, review reasons, model responses ----
# External-content indexes (the text stays in its table; the index holds tokens only),
# made and filled by sqlite-utils, kept in step by triggers on insert, delete and an update
# of the indexed columns only (a status change does not re-index). ``db/search.py`` queries
# them.
_FTS_V7 = {
    "seeds": ("question",),
    "reviews": ("reason", "comment"),
    "qc_resolutions": ("reason",),
    "eval_outputs": ("response",),
}


def _full_text_indexes(db: Any) -> None:
    for table, columns in _FTS_V7.items():
        db[table].enable_fts(list(columns), fts_version="FTS5", create_triggers=False)
        cols = ", ".join(columns)
        new = ", ".join(f"new.{c}" for c in columns)
        old = ", ".join(f"old.{c}" for c in columns)
        fts = f"{table}_fts"
        db.execute(f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN "
                   f"INSERT INTO {fts} (rowid, {cols}) VALUES (new.rowid, {new}); END")
        db.execute(f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN "
                   f"INSERT INTO {fts} ({fts}, rowid, {cols}) VALUES ('delete', old.rowid, {old}); "
                   f"END")
        db.execute(f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {cols} ON {table} BEGIN "
                   f"INSERT INTO {fts} ({fts}, rowid, {cols}) VALUES ('delete', old.rowid, {old}); "
                   f"INSERT INTO {fts} (rowid, {cols}) VALUES (new.rowid, {new}); END")


migration(7, "full-text search: seed questions, review reasons, model responses",
          [_full_text_indexes])

# --- v8: derived item sets (qcstation/core/derive): variants, ladders, perturbations,
# counterfactual and inverse problems. A derived item is a seed of its own (status
# ``derived``, so the working set's queries never see it) with a ``derived_items`` row naming
# its parent, transformation, parameters and exact answer; its artifacts are ordinary
# artifact rows. ``derive_jobs`` holds one row per (set, parent): its lease while a process
# builds it, then its outcome (made / refused, with the reasons). QC samples and releases
# get a ``scope``: '' for the working set, else the name of the derived set they are about.
migration(
    8,
    "derived item sets; QC and release scopes",
    [
        """
        CREATE TABLE derive_sets (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,                    -- variants | ladder | perturb | counterfactual | inverse
            spec TEXT NOT NULL,                    -- JSON: options, sources, limit, rng seed
            created_by TEXT,
            created_at TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE derive_jobs (
            id INTEGER PRIMARY KEY,
            set_id INTEGER NOT NULL REFERENCES derive_sets(id),
            parent_id INTEGER NOT NULL REFERENCES seeds(id),
            status TEXT NOT NULL DEFAULT 'pending',  -- pending | done | refused
            owner TEXT,                            -- lease: {"host", "pid"} of the process building it
            leased_at TEXT,
            made INTEGER NOT NULL DEFAULT 0,
            refused INTEGER NOT NULL DEFAULT 0,
            reason TEXT,                           -- why the parent cannot be transformed at all
            detail TEXT NOT NULL DEFAULT '[]',     -- JSON: refused items {transform, code, reason, idx}
            finished_at TEXT,
            UNIQUE (set_id, parent_id)
        )
        """,
        "CREATE INDEX derive_jobs_status ON derive_jobs (set_id, status)",
        """
        CREATE TABLE derived_items (
            seed_id INTEGER PRIMARY KEY REFERENCES seeds(id),
            set_id INTEGER NOT NULL REFERENCES derive_sets(id),
            parent_id INTEGER NOT NULL REFERENCES seeds(id),
            transform TEXT NOT NULL,               -- variant | noise | digits | errors | add-operation
                                                   -- | changed-numbers | counterfactual | inverse
            family TEXT NOT NULL,                  -- what it is compared within (see core/derive)
            level INTEGER,                         -- k noise sentences, d digits, n errors, shift %
            idx INTEGER NOT NULL,                  -- its number among the parent's items of the transform
            tag TEXT NOT NULL,                     -- "v3", "noise2", "cf+20", "inv-g2_apples", ...
            params TEXT NOT NULL,                  -- JSON: what was changed, from what to what
            answer_value TEXT NOT NULL,            -- exact 'p' or 'p/q'
            dimensions TEXT NOT NULL,              -- JSON: the SMART dimensions it carries
            ops INTEGER,                           -- arithmetic operations of its formalization
            created_at TEXT NOT NULL,
            UNIQUE (set_id, parent_id, transform, idx)
        )
        """,
        "CREATE INDEX derived_items_set ON derived_items (set_id, family, level)",
        "CREATE INDEX derived_items_parent ON derived_items (parent_id)",
        "ALTER TABLE samples ADD COLUMN scope TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE releases ADD COLUMN scope TEXT NOT NULL DEFAULT ''",
    ],
)

# --- v9: self-check flags stored with each artifact (qcstation/core/review/audit.py) -------
# Flags are computed when an artifact is made (and refreshed by ``qcstation audit``), so
# ``qcstation status`` and ``audit --stored`` count them without reading any artifact:
# ``flag_codes`` ("code:n ...", '' none) and ``audit_version`` join the covering index of the
# current-version scan, which replaces migration 3's (a prefix of it). Artifacts made before
# have NULL flags and count as "not audited" until ``qcstation audit`` stores theirs.
migration(
    9,
    "self-check flags stored with artifacts",
    [
        "ALTER TABLE artifacts ADD COLUMN flags TEXT",          # JSON [{code, message}]; NULL: not audited
        "ALTER TABLE artifacts ADD COLUMN flag_codes TEXT",     # "code:n code:n" sorted; '' none
        "ALTER TABLE artifacts ADD COLUMN audit_version INTEGER",
        "CREATE INDEX artifacts_dim_seed_flags ON artifacts "
        "(dimension, seed_id, version, status, audit_version, flag_codes)",
        "DROP INDEX artifacts_dim_seed_version",
    ],
)

# --- v10: counts kept as rows are written (qcstation status, the QC gate at 1M seeds) -------
# Summaries the readers used to recompute with a scan of every artifact or sample item, kept
# right by triggers in the writer's own transaction; see db/kept_counts.py.
migration(
    10,
    "counts kept as rows are written: seeds, attempts, current artifacts, QC gates, samples, releasable seeds",
    [*KEPT_COUNTS_STATEMENTS],
)

# --- v11: the team's figures at scale ---------------------------------------------------------
# The dashboard's team panel counts each annotator's active decisions (and their first and
# last times); a partial covering index of the active reviews by annotator serves it without
# reading the table (1M seeds: 0.9 s -> about 0.15 s of CPU).
migration(
    11,
    "active reviews by annotator (the team panel)",
    [
        "CREATE INDEX reviews_active_annotator ON reviews "
        "(annotator, verdict, unsure, created_at, display_name, undone_at) WHERE undone_at IS NULL",
    ],
)

# --- v12: the review screen at scale ---------------------------------------------------------
# The review screen lists the annotator's latest active decisions (to change one): newest
# first by id, 200 of them. A partial index by (annotator, id) of the active reviews is read
# backwards and stops there, instead of sorting all of the annotator's decisions (1M seeds:
# 2.5 s of CPU for an annotator with 230,000). Claiming the next item looks only at the items
# that can still be handed out: undecided ones (qc_item_state, migration 10) and overlap ones.
migration(
    12,
    "an annotator's active decisions newest first; undecided and overlap items",
    ["CREATE INDEX reviews_active_by_id ON reviews (annotator, id) WHERE undone_at IS NULL",
     "CREATE INDEX qc_item_state_undecided ON qc_item_state (item_id) WHERE NOT fin",
     "CREATE INDEX sample_items_overlap ON sample_items (id) WHERE overlap"],
)

# --- v13: regenerated replacements to requeue, found without reading every rejected item ---
# Claiming an item first requeues regenerated replacements (qcstation/core/review/sampling.py).
# A replacement is a newer version (version > 1) of an artifact that is not superseded; once
# accepted it has been reviewed (it joined a sample through requeueing, a fix or a draw, all of
# which supersede the rejected version) and needs nothing more. This partial index holds only
# the others, so requeueing reads the few (seed, dimension) pairs with pending replacements
# instead of every rejected item (1M seeds: 44,000 rejected items read on every claim).
migration(
    13,
    "pending regenerated replacements (requeue on claim)",
    ["CREATE INDEX artifacts_replacements ON artifacts (seed_id, dimension) "
     "WHERE version > 1 AND status NOT IN ('superseded', 'accepted')"],
)

# --- v14: an evaluation run's figures kept as its scores and outputs are written -----------
# The leaderboard, a breakdown, the report and the eval screens read one row per item-sample,
# the verdict counts and the run's tokens and cost from these instead of aggregating every
# score and output on each call (1M scores: about 1.5 s of CPU); see db/kept_eval.py.
migration(
    14,
    "evaluation figures kept as scores and outputs are written: item-samples, verdict counts, tokens and cost",
    [*KEPT_EVAL_STATEMENTS],
)

# --- v15: a run's replies by status and length cut; its items by role and by group ----------
# The runs list (progress) and each run's provenance line (replies cut at the length limit)
# counted every output of the run; showing one item's prompt read every item of the run to
# find its exemplars (1M scores: 0.5 s each), and the results browser's source and difficulty
# pickers every item's frozen record. See db/kept_eval.py.
migration(
    15,
    "a run's replies by status and length cut; its items by role and by source and difficulty",
    [*KEPT_REPLIES_STATEMENTS],
)

# --- v16: a curator's override of an artifact's self-check flags -------------------------
# A flag on a verified or accepted artifact blocks the release until a curator overrides it
# with a reason (qcstation.core.release.flag_gate). The override names the artifact and the
# flag codes it saw: if the artifact is re-audited and its flags change, the override no
# longer applies. Undone overrides keep their row (``undone_at``).
migration(
    16,
    "a curator's override of an artifact's self-check flags (release blockers)",
    [
        """
        CREATE TABLE flag_overrides (
            id INTEGER PRIMARY KEY,
            artifact_id INTEGER NOT NULL REFERENCES artifacts(id),
            flag_codes TEXT NOT NULL,      -- the artifact's flag_codes when overridden
            reason TEXT NOT NULL,
            curator TEXT NOT NULL,
            display_name TEXT,
            created_at TEXT NOT NULL,
            undone_at TEXT
        )
        """,
        "CREATE INDEX flag_overrides_artifact ON flag_overrides (artifact_id)",
    ],
)


MIGRATIONS: list[Migration] = sorted([*_EARLY, *RECENT], key=lambda m: m[0])
SCHEMA_VERSION = max(v for v, _, _ in MIGRATIONS)
