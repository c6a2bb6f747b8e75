"""Versioned schema migrations for the qcstation store.

Each migration is a list of steps applied in one transaction: SQL statements, or a
function given the ``sqlite_utils.Database`` on the store's connection (for what
sqlite-utils does well: full-text indexes, introspection). The schema version lives in
``PRAGMA user_version``. A database made by an older version of qcstation is upgraded in
place, keeping its data. Migrations are append-only: never edit a released one, add a
new one. (One edit was made, with the same end state: migration 1 no longer creates the
``eval_responses`` placeholder that migration 4 drops, ``IF EXISTS``, for databases made
before; ``tests/db/v1_schema.sql`` keeps those statements.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Step = str | Callable[[Any], None]   # SQL, or a function of a sqlite_utils.Database

MIGRATIONS: list[tuple[int, str, list[Step]]] = []


def migration(version: int, title: str, statements: list[Step]) -> None:
    MIGRATIONS.append((version, title, statements))


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
# Two summaries the readers used to recompute with a scan of every artifact or sample item,
# kept right by triggers in the writer's own transaction (any process, any write path;
# SQLite runs one writer at a time, so several annotators at once cannot interleave a
# count). ``tests/db/test_summaries.py`` checks both against a recomputation from scratch
# after random sequences of operations.
#
# ``artifact_counts``: current artifacts (highest non-superseded version of a seed and
# dimension) by dimension, seed source, seed status, derived or not, artifact status and
# stored flags -- what ``qcstation status`` and the gate's coverage count. A change to an
# artifact, a seed's status or source, or a derived_items row is bracketed: a BEFORE trigger
# takes the seed's current artifact out of the counts, an AFTER trigger puts the new one in.
# NULL audit_version / flag_codes are stored as -1 / '~' (a key column cannot be NULL).
#
# ``qc_gate_seeds``: each seed's share of its dimension's gate (per scope), from its own
# sample items in the rounds that count: random draws reviewed and rejected (up to its first
# reject), items pending, taken (by current-artifact status) and an open reject (by the
# current artifact's status and whether it is in a sample). ``qc_gate_counts`` holds their
# sums, kept by the insert/delete triggers of ``qc_gate_seeds``. A write that can change a
# seed's share (a sample item, a decision, a curator resolution, an artifact, the seed's
# status, a sample opened or closed) inserts (seed, dimension, scope) into the view
# ``qc_gate_touch``, whose INSTEAD OF trigger recomputes that seed's row. A fresh round
# (samples.params kind 'fresh', fixed when the sample is inserted) restarts the count of its
# dimension and scope: no item of an earlier round counts any more.

_CUR_KEY = ("dimension, source, seed_status, derived, status, audit_version, flag_codes")


def _cur_counts_upsert(seed: str, dim: str | None, sign: int, *, source: str | None = None,
                       status: str | None = None) -> str:
    """Add ``sign`` to the count of seed ``seed``'s current artifact of ``dim`` (None: of
    every dimension); the seed's source/status from the seeds table unless given."""
    where = f"seed_id = {seed}" + (f" AND dimension = {dim}" if dim else "")
    group = "" if dim else " GROUP BY dimension"
    src = source or "(SELECT source FROM seeds WHERE id = c.seed_id)"
    st = status or "(SELECT status FROM seeds WHERE id = c.seed_id)"
    return (
        f"INSERT INTO artifact_counts ({_CUR_KEY}, n) "
        f"SELECT c.dimension, {src}, {st}, "
        f"EXISTS (SELECT 1 FROM derived_items di WHERE di.seed_id = c.seed_id), c.status, "
        f"COALESCE(c.audit_version, -1), COALESCE(c.flag_codes, '~'), {sign} "
        f"FROM (SELECT seed_id, dimension, status, audit_version, flag_codes, "
        f"MAX(version) AS version FROM artifacts WHERE {where} AND status != 'superseded'"
        f"{group}) c WHERE c.version IS NOT NULL AND {src} IS NOT NULL "
        f"ON CONFLICT DO UPDATE SET n = n + excluded.n;")


def _bracket(name: str, event: str, table: str, before: list[str], after: list[str],
             when: str = "") -> list[str]:
    w = f" WHEN {when}" if when else ""
    return [f"CREATE TRIGGER {name}_b BEFORE {event} ON {table}{w} BEGIN {' '.join(before)} END",
            f"CREATE TRIGGER {name}_a AFTER {event} ON {table}{w} BEGIN {' '.join(after)} END"]


_ART_COLS = "seed_id, dimension, version, status, audit_version, flag_codes"
_CUR_TRIGGERS = [
    *_bracket("artifact_counts_ins", "INSERT", "artifacts",
              [_cur_counts_upsert("NEW.seed_id", "NEW.dimension", -1)],
              [_cur_counts_upsert("NEW.seed_id", "NEW.dimension", 1)]),
    *_bracket("artifact_counts_del", "DELETE", "artifacts",
              [_cur_counts_upsert("OLD.seed_id", "OLD.dimension", -1)],
              [_cur_counts_upsert("OLD.seed_id", "OLD.dimension", 1)]),
    *_bracket("artifact_counts_upd", f"UPDATE OF {_ART_COLS}", "artifacts",
              [_cur_counts_upsert("OLD.seed_id", "OLD.dimension", -1),
               _cur_counts_upsert("NEW.seed_id", "NEW.dimension", -1).replace(
                   "WHERE c.version", "WHERE (NEW.seed_id, NEW.dimension) IS NOT "
                   "(OLD.seed_id, OLD.dimension) AND c.version")],
              [_cur_counts_upsert("OLD.seed_id", "OLD.dimension", 1),
               _cur_counts_upsert("NEW.seed_id", "NEW.dimension", 1).replace(
                   "WHERE c.version", "WHERE (NEW.seed_id, NEW.dimension) IS NOT "
                   "(OLD.seed_id, OLD.dimension) AND c.version")]),
    *_bracket("artifact_counts_seed", "UPDATE OF status, source", "seeds",
              [_cur_counts_upsert("OLD.id", None, -1, source="OLD.source", status="OLD.status")],
              [_cur_counts_upsert("NEW.id", None, 1, source="NEW.source", status="NEW.status")],
              when="OLD.status IS NOT NEW.status OR OLD.source IS NOT NEW.source"),
    *_bracket("artifact_counts_derived_ins", "INSERT", "derived_items",
              [_cur_counts_upsert("NEW.seed_id", None, -1)],
              [_cur_counts_upsert("NEW.seed_id", None, 1)]),
    *_bracket("artifact_counts_derived_del", "DELETE", "derived_items",
              [_cur_counts_upsert("OLD.seed_id", None, -1)],
              [_cur_counts_upsert("OLD.seed_id", None, 1)]),
]

# one seed's sample items of (dimension, scope) in the rounds that count, with their state
_SEED_ITEMS = """
    SELECT si.id, s.status AS sample_status, a.status AS artifact_status,
           EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                   AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')) AS decided,
           COALESCE((SELECT q.verdict = 'reject' FROM qc_resolutions q
                     WHERE q.sample_item_id = si.id AND q.undone_at IS NULL
                     ORDER BY q.id DESC LIMIT 1),
                    EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                            AND r.undone_at IS NULL AND r.verdict = 'reject')) AS rejected
    FROM sample_items si JOIN samples s ON s.id = si.sample_id
    JOIN artifacts a ON a.id = si.artifact_id
    WHERE si.seed_id = NEW.seed_id AND s.dimension = NEW.dimension AND s.scope = NEW.scope
      AND s.id >= (SELECT COALESCE(MAX(f.id), 0) FROM samples f
                   WHERE f.dimension = NEW.dimension AND f.scope = NEW.scope
                     AND json_extract(f.params, '$.kind') = 'fresh')
"""
_FIRST_REJECT = f"(SELECT MIN(id) FROM ({_SEED_ITEMS}) WHERE rejected)"
_LIVE = "CASE WHEN NEW.scope = '' THEN 'active' ELSE 'derived' END"
_GATE_TOUCH = f"""
CREATE TRIGGER qc_gate_touch_recount INSTEAD OF INSERT ON qc_gate_touch BEGIN
    DELETE FROM qc_gate_seeds
    WHERE dimension = NEW.dimension AND scope = NEW.scope AND seed_id = NEW.seed_id;
    INSERT INTO qc_gate_seeds (dimension, scope, seed_id, reviewed, defects, pending,
                               taken_source, taken_status, reject_status, reject_in_sample)
    SELECT NEW.dimension, NEW.scope, NEW.seed_id,
           COALESCE(SUM(it.decided AND (fr.id IS NULL OR it.id <= fr.id)), 0),
           COALESCE(SUM(it.decided AND it.rejected AND (fr.id IS NULL OR it.id <= fr.id)), 0),
           COALESCE(SUM(NOT it.decided AND it.sample_status = 'open'
                        AND it.artifact_status != 'superseded'
                        AND sd.status IN ('active', 'derived')), 0),
           CASE WHEN MAX(it.decided OR it.sample_status = 'open') AND sd.status = {_LIVE}
                     AND cur.version IS NOT NULL THEN sd.source END,
           CASE WHEN MAX(it.decided OR it.sample_status = 'open') AND sd.status = {_LIVE}
                     AND cur.version IS NOT NULL THEN cur.status END,
           CASE WHEN fr.id IS NOT NULL AND sd.status = {_LIVE} THEN cur.status END,
           CASE WHEN fr.id IS NOT NULL AND sd.status = {_LIVE} THEN
               CASE WHEN cur.id IS NULL THEN 0 ELSE EXISTS (
                   SELECT 1 FROM sample_items x JOIN samples xs ON xs.id = x.sample_id
                   WHERE x.artifact_id = cur.id AND xs.dimension = NEW.dimension
                     AND xs.scope = NEW.scope) END END
    FROM ({_SEED_ITEMS}) it,
         (SELECT source, status FROM seeds WHERE id = NEW.seed_id) sd,
         (SELECT id, status, MAX(version) AS version FROM artifacts
          WHERE dimension = NEW.dimension AND seed_id = NEW.seed_id
            AND status != 'superseded') cur,
         (SELECT {_FIRST_REJECT} AS id) fr
    HAVING COUNT(it.id) > 0;
END
"""


def _gate_counts_upsert(row: str, sign: str) -> str:
    add = ("INSERT INTO qc_gate_counts (dimension, scope, kind, k1, k2, n) "
           f"SELECT {row}.dimension, {row}.scope, ")
    tail = " ON CONFLICT DO UPDATE SET n = n + excluded.n;"
    return " ".join(
        [f"{add}'{k}', '', '', {sign}{row}.{k} WHERE {row}.{k} != 0{tail}"
         for k in ("reviewed", "defects", "pending")]
        + [f"{add}'taken', {row}.taken_source, {row}.taken_status, {sign}1 "
           f"WHERE {row}.taken_source IS NOT NULL{tail}",
           f"{add}'reject', COALESCE({row}.reject_status, ''), {row}.reject_in_sample, {sign}1 "
           f"WHERE {row}.reject_in_sample IS NOT NULL{tail}"])


def _touch_item_seed(item: str) -> str:
    return ("INSERT INTO qc_gate_touch (seed_id, dimension, scope) "
            "SELECT si.seed_id, s.dimension, s.scope FROM sample_items si "
            f"JOIN samples s ON s.id = si.sample_id WHERE si.id = {item};")


def _touch_seed(seed: str, dim: str | None) -> str:
    where = f" AND s.dimension = {dim}" if dim else ""
    return ("INSERT INTO qc_gate_touch (seed_id, dimension, scope) "
            f"SELECT DISTINCT si.seed_id, s.dimension, s.scope FROM sample_items si "
            f"JOIN samples s ON s.id = si.sample_id WHERE si.seed_id = {seed}{where};")


def _after(name: str, event: str, table: str, body: list[str], when: str = "") -> str:
    w = f" WHEN {when}" if when else ""
    return f"CREATE TRIGGER {name} AFTER {event} ON {table}{w} BEGIN {' '.join(body)} END"


_GATE_TRIGGERS = [
    _GATE_TOUCH,
    _after("qc_gate_seeds_ins", "INSERT", "qc_gate_seeds", [_gate_counts_upsert("NEW", "")]),
    _after("qc_gate_seeds_del", "DELETE", "qc_gate_seeds", [_gate_counts_upsert("OLD", "-")]),
    _after("qc_gate_item_ins", "INSERT", "sample_items", [_touch_item_seed("NEW.id")]),
    _after("qc_gate_item_upd", "UPDATE OF sample_id, seed_id, artifact_id", "sample_items",
           ["INSERT INTO qc_gate_touch (seed_id, dimension, scope) SELECT OLD.seed_id, "
            "s.dimension, s.scope FROM samples s WHERE s.id = OLD.sample_id;",
            _touch_item_seed("NEW.id")]),
    _after("qc_gate_item_del", "DELETE", "sample_items",
           ["INSERT INTO qc_gate_touch (seed_id, dimension, scope) SELECT OLD.seed_id, "
            "s.dimension, s.scope FROM samples s WHERE s.id = OLD.sample_id;"]),
    _after("qc_gate_review_ins", "INSERT", "reviews", [_touch_item_seed("NEW.sample_item_id")]),
    _after("qc_gate_review_upd", "UPDATE OF sample_item_id, verdict, undone_at", "reviews",
           [_touch_item_seed("OLD.sample_item_id"), _touch_item_seed("NEW.sample_item_id")]),
    _after("qc_gate_review_del", "DELETE", "reviews", [_touch_item_seed("OLD.sample_item_id")]),
    _after("qc_gate_resolution_ins", "INSERT", "qc_resolutions",
           [_touch_item_seed("NEW.sample_item_id")]),
    _after("qc_gate_resolution_upd", "UPDATE OF sample_item_id, verdict, undone_at",
           "qc_resolutions",
           [_touch_item_seed("OLD.sample_item_id"), _touch_item_seed("NEW.sample_item_id")]),
    _after("qc_gate_resolution_del", "DELETE", "qc_resolutions",
           [_touch_item_seed("OLD.sample_item_id")]),
    _after("qc_gate_artifact_ins", "INSERT", "artifacts",
           [_touch_seed("NEW.seed_id", "NEW.dimension")]),
    _after("qc_gate_artifact_upd", "UPDATE OF seed_id, dimension, version, status", "artifacts",
           [_touch_seed("OLD.seed_id", "OLD.dimension"), _touch_seed("NEW.seed_id", "NEW.dimension")]),
    _after("qc_gate_artifact_del", "DELETE", "artifacts",
           [_touch_seed("OLD.seed_id", "OLD.dimension")]),
    _after("qc_gate_seed_upd", "UPDATE OF status, source", "seeds", [_touch_seed("NEW.id", None)],
           when="OLD.status IS NOT NEW.status OR OLD.source IS NOT NEW.source"),
    _after("qc_gate_sample_status", "UPDATE OF status", "samples",
           ["INSERT INTO qc_gate_touch (seed_id, dimension, scope) SELECT DISTINCT si.seed_id, "
            "NEW.dimension, NEW.scope FROM sample_items si WHERE si.sample_id = NEW.id;"],
           when="OLD.status IS NOT NEW.status"),
    _after("qc_gate_fresh_round", "INSERT", "samples",
           ["DELETE FROM qc_gate_seeds WHERE dimension = NEW.dimension AND scope = NEW.scope;"],
           when="json_extract(NEW.params, '$.kind') = 'fresh'"),
]

# ``seed_counts``: seeds by source, status and filter reason ('~': NULL), kept by plain row
# triggers. ``attempt_counts``: generation attempts by dimension ('attempts') and the items
# that need a model ('needs_model': an active seed whose latest attempt says no rule applies
# and that has no current artifact), bracketed as ``artifact_counts`` is.
_SEED_KEY = "source, status, filter_reason"


def _seed_counts_upsert(row: str, sign: int) -> str:
    return (f"INSERT INTO seed_counts ({_SEED_KEY}, n) VALUES ({row}.source, {row}.status, "
            f"COALESCE({row}.filter_reason, '~'), {sign}) "
            f"ON CONFLICT DO UPDATE SET n = n + excluded.n;")


def _needs_model_upsert(seed: str, dim: str | None, sign: int) -> str:
    dims = (f"(SELECT {dim} AS dimension) d" if dim else
            f"(SELECT DISTINCT dimension FROM attempts WHERE seed_id = {seed}) d")
    return (
        f"INSERT INTO attempt_counts (dimension, kind, n) SELECT d.dimension, 'needs_model', {sign} "
        f"FROM {dims} WHERE (SELECT status FROM seeds WHERE id = {seed}) = 'active' "
        f"AND (SELECT verify_status FROM attempts WHERE seed_id = {seed} "
        f"AND dimension = d.dimension ORDER BY id DESC LIMIT 1) = 'needs_model' "
        f"AND NOT EXISTS (SELECT 1 FROM artifacts WHERE seed_id = {seed} "
        f"AND dimension = d.dimension AND status != 'superseded') "
        f"ON CONFLICT DO UPDATE SET n = n + excluded.n;")


def _attempts_upsert(dim: str, sign: int) -> str:
    return (f"INSERT INTO attempt_counts (dimension, kind, n) VALUES ({dim}, 'attempts', {sign}) "
            f"ON CONFLICT DO UPDATE SET n = n + excluded.n;")


_STAGE_TRIGGERS = [
    _after("seed_counts_ins", "INSERT", "seeds", [_seed_counts_upsert("NEW", 1)]),
    _after("seed_counts_del", "DELETE", "seeds", [_seed_counts_upsert("OLD", -1)]),
    _after("seed_counts_upd", "UPDATE OF source, status, filter_reason", "seeds",
           [_seed_counts_upsert("OLD", -1), _seed_counts_upsert("NEW", 1)]),
    _after("attempt_counts_ins", "INSERT", "attempts", [_attempts_upsert("NEW.dimension", 1)]),
    _after("attempt_counts_del", "DELETE", "attempts", [_attempts_upsert("OLD.dimension", -1)]),
    _after("attempt_counts_upd", "UPDATE OF dimension", "attempts",
           [_attempts_upsert("OLD.dimension", -1), _attempts_upsert("NEW.dimension", 1)]),
    *_bracket("needs_model_attempt_ins", "INSERT", "attempts",
              [_needs_model_upsert("NEW.seed_id", "NEW.dimension", -1)],
              [_needs_model_upsert("NEW.seed_id", "NEW.dimension", 1)]),
    *_bracket("needs_model_attempt_del", "DELETE", "attempts",
              [_needs_model_upsert("OLD.seed_id", "OLD.dimension", -1)],
              [_needs_model_upsert("OLD.seed_id", "OLD.dimension", 1)]),
    *_bracket("needs_model_attempt_upd", "UPDATE OF seed_id, dimension, verify_status", "attempts",
              [_needs_model_upsert("OLD.seed_id", "OLD.dimension", -1),
               _needs_model_upsert("NEW.seed_id", "NEW.dimension", -1).replace(
                   "WHERE (SELECT status", "WHERE (NEW.seed_id, NEW.dimension) IS NOT "
                   "(OLD.seed_id, OLD.dimension) AND (SELECT status")],
              [_needs_model_upsert("OLD.seed_id", "OLD.dimension", 1),
               _needs_model_upsert("NEW.seed_id", "NEW.dimension", 1).replace(
                   "WHERE (SELECT status", "WHERE (NEW.seed_id, NEW.dimension) IS NOT "
                   "(OLD.seed_id, OLD.dimension) AND (SELECT status")]),
    *_bracket("needs_model_artifact_ins", "INSERT", "artifacts",
              [_needs_model_upsert("NEW.seed_id", "NEW.dimension", -1)],
              [_needs_model_upsert("NEW.seed_id", "NEW.dimension", 1)]),
    *_bracket("needs_model_artifact_del", "DELETE", "artifacts",
              [_needs_model_upsert("OLD.seed_id", "OLD.dimension", -1)],
              [_needs_model_upsert("OLD.seed_id", "OLD.dimension", 1)]),
    *_bracket("needs_model_artifact_upd", "UPDATE OF seed_id, dimension, status", "artifacts",
              [_needs_model_upsert("OLD.seed_id", "OLD.dimension", -1),
               _needs_model_upsert("NEW.seed_id", "NEW.dimension", -1).replace(
                   "WHERE (SELECT status", "WHERE (NEW.seed_id, NEW.dimension) IS NOT "
                   "(OLD.seed_id, OLD.dimension) AND (SELECT status")],
              [_needs_model_upsert("OLD.seed_id", "OLD.dimension", 1),
               _needs_model_upsert("NEW.seed_id", "NEW.dimension", 1).replace(
                   "WHERE (SELECT status", "WHERE (NEW.seed_id, NEW.dimension) IS NOT "
                   "(OLD.seed_id, OLD.dimension) AND (SELECT status")]),
    *_bracket("needs_model_seed", "UPDATE OF status", "seeds",
              [_needs_model_upsert("OLD.id", None, -1)], [_needs_model_upsert("NEW.id", None, 1)],
              when="OLD.status IS NOT NEW.status"),
]

# ``sample_progress``: each sample's items by decision state (what ``qc status`` and the
# dashboard list per sample), summed by the insert/delete triggers of ``qc_item_state`` (one
# row per sample item: decided, rejected, skipped, seed in play), which the view
# ``qc_item_touch`` recomputes for an item when a decision, a resolution or its seed changes.
_ITEM_TOUCH = """
CREATE TRIGGER qc_item_touch_recount INSTEAD OF INSERT ON qc_item_touch BEGIN
    DELETE FROM qc_item_state WHERE item_id = NEW.item_id;
    INSERT INTO qc_item_state (item_id, sample_id, fin, rej, skip, active)
    SELECT si.id, si.sample_id,
           EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                   AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')),
           COALESCE((SELECT q.verdict = 'reject' FROM qc_resolutions q
                     WHERE q.sample_item_id = si.id AND q.undone_at IS NULL
                     ORDER BY q.id DESC LIMIT 1),
                    EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                            AND r.undone_at IS NULL AND r.verdict = 'reject')),
           EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                   AND r.undone_at IS NULL AND r.verdict = 'skip'),
           (SELECT status IN ('active', 'derived') FROM seeds WHERE id = si.seed_id)
    FROM sample_items si WHERE si.id = NEW.item_id;
END
"""


def _progress_upsert(row: str, sign: str) -> str:
    return (
        "INSERT INTO sample_progress (sample_id, total, reviewed, rejected, skipped, excluded) "
        f"VALUES ({row}.sample_id, {sign}1, {sign}{row}.fin, {sign}({row}.fin AND {row}.rej), "
        f"{sign}(NOT {row}.fin AND {row}.skip AND {row}.active), "
        f"{sign}(NOT {row}.fin AND NOT {row}.active)) "
        "ON CONFLICT DO UPDATE SET total = total + excluded.total, "
        "reviewed = reviewed + excluded.reviewed, rejected = rejected + excluded.rejected, "
        "skipped = skipped + excluded.skipped, excluded = excluded + excluded.excluded;")


def _touch_item(item: str) -> str:
    return f"INSERT INTO qc_item_touch (item_id) VALUES ({item});"


_PROGRESS_TRIGGERS = [
    _ITEM_TOUCH,
    _after("qc_item_state_ins", "INSERT", "qc_item_state", [_progress_upsert("NEW", "")]),
    _after("qc_item_state_del", "DELETE", "qc_item_state", [_progress_upsert("OLD", "-")]),
    _after("qc_item_ins", "INSERT", "sample_items", [_touch_item("NEW.id")]),
    _after("qc_item_upd", "UPDATE OF sample_id, seed_id", "sample_items", [_touch_item("NEW.id")]),
    _after("qc_item_del", "DELETE", "sample_items",
           ["DELETE FROM qc_item_state WHERE item_id = OLD.id;"]),
    _after("qc_item_review_ins", "INSERT", "reviews", [_touch_item("NEW.sample_item_id")]),
    _after("qc_item_review_upd", "UPDATE OF sample_item_id, verdict, undone_at", "reviews",
           [_touch_item("OLD.sample_item_id"), _touch_item("NEW.sample_item_id")]),
    _after("qc_item_review_del", "DELETE", "reviews", [_touch_item("OLD.sample_item_id")]),
    _after("qc_item_resolution_ins", "INSERT", "qc_resolutions",
           [_touch_item("NEW.sample_item_id")]),
    _after("qc_item_resolution_upd", "UPDATE OF sample_item_id, verdict, undone_at",
           "qc_resolutions",
           [_touch_item("OLD.sample_item_id"), _touch_item("NEW.sample_item_id")]),
    _after("qc_item_resolution_del", "DELETE", "qc_resolutions",
           [_touch_item("OLD.sample_item_id")]),
    _after("qc_item_seed", "UPDATE OF status", "seeds",
           ["INSERT INTO qc_item_touch (item_id) SELECT id FROM sample_items "
            "WHERE seed_id = NEW.id;"],
           when="OLD.status IS NOT NEW.status"),
]

# ``counters``: 'releasable_seeds', the active seeds whose current artifact of every
# dimension is verified or accepted (what a release of the working set would take; the
# release dimensions and releasable statuses of qcstation/core/release as of this migration),
# bracketed as ``artifact_counts`` is.
def _releasable_upsert(seed: str, sign: int, extra: str = "") -> str:
    return (
        f"INSERT INTO counters (name, n) SELECT 'releasable_seeds', {sign} "
        f"WHERE {extra}(SELECT status FROM seeds WHERE id = {seed}) = 'active' "
        f"AND (SELECT COUNT(*) FROM (SELECT status, MAX(version) FROM artifacts "
        f"WHERE seed_id = {seed} AND status != 'superseded' AND dimension IN "
        f"('understanding', 'reasoning', 'arithmetic', 'refinement') GROUP BY dimension) "
        f"WHERE status IN ('verified', 'accepted')) = 4 "
        f"ON CONFLICT DO UPDATE SET n = n + excluded.n;")


_OTHER_SEED = "NEW.seed_id IS NOT OLD.seed_id AND "
_RELEASE_TRIGGERS = [
    *_bracket("releasable_artifact_ins", "INSERT", "artifacts",
              [_releasable_upsert("NEW.seed_id", -1)], [_releasable_upsert("NEW.seed_id", 1)]),
    *_bracket("releasable_artifact_del", "DELETE", "artifacts",
              [_releasable_upsert("OLD.seed_id", -1)], [_releasable_upsert("OLD.seed_id", 1)]),
    *_bracket("releasable_artifact_upd", "UPDATE OF seed_id, dimension, version, status",
              "artifacts",
              [_releasable_upsert("OLD.seed_id", -1),
               _releasable_upsert("NEW.seed_id", -1, _OTHER_SEED)],
              [_releasable_upsert("OLD.seed_id", 1),
               _releasable_upsert("NEW.seed_id", 1, _OTHER_SEED)]),
    *_bracket("releasable_seed", "UPDATE OF status", "seeds",
              [_releasable_upsert("OLD.id", -1)], [_releasable_upsert("NEW.id", 1)],
              when="OLD.status IS NOT NEW.status"),
]

migration(
    10,
    "counts kept as rows are written: seeds, attempts, current artifacts, QC gates, samples, releasable seeds",
    [
        f"""
        CREATE TABLE artifact_counts (
            dimension TEXT NOT NULL, source TEXT NOT NULL, seed_status TEXT NOT NULL,
            derived INTEGER NOT NULL, status TEXT NOT NULL,
            audit_version INTEGER NOT NULL,        -- -1: NULL (not audited)
            flag_codes TEXT NOT NULL,              -- '~': NULL (not audited)
            n INTEGER NOT NULL,
            PRIMARY KEY ({_CUR_KEY})
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE qc_gate_seeds (
            dimension TEXT NOT NULL, scope TEXT NOT NULL, seed_id INTEGER NOT NULL,
            reviewed INTEGER NOT NULL, defects INTEGER NOT NULL, pending INTEGER NOT NULL,
            taken_source TEXT, taken_status TEXT,  -- NULL: not taken (or not in play)
            reject_status TEXT,                    -- current status of a seed with an open reject
            reject_in_sample INTEGER,              -- NULL: no open reject
            PRIMARY KEY (dimension, scope, seed_id)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE qc_gate_counts (
            dimension TEXT NOT NULL, scope TEXT NOT NULL,
            kind TEXT NOT NULL,                    -- reviewed | defects | pending | taken | reject
            k1 TEXT NOT NULL, k2 TEXT NOT NULL,    -- taken: source, status; reject: status, in sample
            n INTEGER NOT NULL,
            PRIMARY KEY (dimension, scope, kind, k1, k2)
        ) WITHOUT ROWID
        """,
        f"""
        CREATE TABLE seed_counts (
            source TEXT NOT NULL, status TEXT NOT NULL,
            filter_reason TEXT NOT NULL,           -- '~': NULL
            n INTEGER NOT NULL,
            PRIMARY KEY ({_SEED_KEY})
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE attempt_counts (
            dimension TEXT NOT NULL, kind TEXT NOT NULL,   -- attempts | needs_model
            n INTEGER NOT NULL,
            PRIMARY KEY (dimension, kind)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE qc_item_state (
            item_id INTEGER PRIMARY KEY, sample_id INTEGER NOT NULL,
            fin INTEGER NOT NULL, rej INTEGER NOT NULL, skip INTEGER NOT NULL,
            active INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE sample_progress (
            sample_id INTEGER PRIMARY KEY, total INTEGER NOT NULL, reviewed INTEGER NOT NULL,
            rejected INTEGER NOT NULL, skipped INTEGER NOT NULL, excluded INTEGER NOT NULL
        )
        """,
        "CREATE TABLE counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE VIEW qc_item_touch AS SELECT 0 AS item_id WHERE 0",
        "CREATE VIEW qc_gate_touch AS SELECT 0 AS seed_id, '' AS dimension, '' AS scope WHERE 0",
        *_CUR_TRIGGERS,
        *_GATE_TRIGGERS,
        *_STAGE_TRIGGERS,
        *_PROGRESS_TRIGGERS,
        *_RELEASE_TRIGGERS,
        """
        INSERT INTO counters (name, n)
        SELECT 'releasable_seeds', COUNT(*) FROM (
            SELECT seed_id FROM (
                SELECT seed_id, status, MAX(version) FROM artifacts
                WHERE dimension IN ('understanding', 'reasoning', 'arithmetic', 'refinement')
                  AND status != 'superseded'
                GROUP BY dimension, seed_id)
            WHERE status IN ('verified', 'accepted')
            GROUP BY seed_id HAVING COUNT(*) = 4) ok
        JOIN seeds s ON s.id = ok.seed_id WHERE s.status = 'active'
        """,
        "INSERT INTO qc_item_touch (item_id) SELECT id FROM sample_items",
        f"INSERT INTO seed_counts ({_SEED_KEY}, n) SELECT source, status, "
        "COALESCE(filter_reason, '~'), COUNT(*) FROM seeds GROUP BY 1, 2, 3",
        "INSERT INTO attempt_counts (dimension, kind, n) "
        "SELECT dimension, 'attempts', COUNT(*) FROM attempts GROUP BY dimension",
        """
        INSERT INTO attempt_counts (dimension, kind, n)
        SELECT t.dimension, 'needs_model', COUNT(*) FROM attempts t
        JOIN seeds s ON s.id = t.seed_id AND s.status = 'active'
        WHERE t.verify_status = 'needs_model'
          AND t.id = (SELECT MAX(u.id) FROM attempts u
                      WHERE u.seed_id = t.seed_id AND u.dimension = t.dimension)
          AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.seed_id = t.seed_id
                          AND a.dimension = t.dimension AND a.status != 'superseded')
        GROUP BY t.dimension
        """,
        f"""
        INSERT INTO artifact_counts ({_CUR_KEY}, n)
        SELECT c.dimension, sd.source, sd.status,
               EXISTS (SELECT 1 FROM derived_items di WHERE di.seed_id = c.seed_id), c.status,
               COALESCE(c.audit_version, -1), COALESCE(c.flag_codes, '~'), COUNT(*)
        FROM (SELECT seed_id, dimension, status, audit_version, flag_codes, MAX(version) AS version
              FROM artifacts WHERE status != 'superseded' GROUP BY dimension, seed_id) c
        CROSS JOIN seeds sd ON sd.id = c.seed_id
        GROUP BY 1, 2, 3, 4, 5, 6, 7
        """,
        "INSERT INTO qc_gate_touch (seed_id, dimension, scope) "
        "SELECT DISTINCT si.seed_id, s.dimension, s.scope FROM sample_items si "
        "JOIN samples s ON s.id = si.sample_id",
    ],
)

SCHEMA_VERSION = max(v for v, _, _ in MIGRATIONS)
