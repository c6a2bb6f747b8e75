-- Schema version 1 exactly as qcstation created it before migration 1 stopped creating
-- eval_responses (the statements of db/migrations.py, byte for byte inside each statement).
-- Frozen: tests build a v1-era database from it (sqlite3 executescript).

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
        );

CREATE INDEX seeds_source_hash ON seeds (source, content_hash);

CREATE INDEX seeds_status ON seeds (status);

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
        );

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
        );

CREATE INDEX artifacts_dim_status ON artifacts (dimension, status);

CREATE INDEX artifacts_seed ON artifacts (seed_id, dimension);

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
        );

CREATE INDEX attempts_seed ON attempts (seed_id, dimension);

CREATE TABLE llm_cache (
            key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            request TEXT NOT NULL,
            response TEXT NOT NULL,
            created_at TEXT NOT NULL
        );

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
        );

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
        );

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
        );

CREATE TABLE reviews (
            id INTEGER PRIMARY KEY,
            sample_item_id INTEGER NOT NULL REFERENCES sample_items(id),
            artifact_id INTEGER NOT NULL REFERENCES artifacts(id),
            annotator TEXT NOT NULL,
            verdict TEXT NOT NULL,                 -- accept | reject | skip
            reason TEXT,
            created_at TEXT NOT NULL,
            undone_at TEXT
        );

CREATE INDEX reviews_item ON reviews (sample_item_id);

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
        );

CREATE TABLE release_items (
            release_id INTEGER NOT NULL REFERENCES releases(id),
            seed_id INTEGER NOT NULL REFERENCES seeds(id),
            record TEXT NOT NULL,                  -- frozen JSON record
            PRIMARY KEY (release_id, seed_id)
        );

CREATE TABLE eval_runs (
            id INTEGER PRIMARY KEY,
            release_id INTEGER REFERENCES releases(id),
            model TEXT NOT NULL,
            config TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL,                  -- running | done | failed
            started_at TEXT NOT NULL,
            finished_at TEXT
        );

CREATE TABLE eval_responses (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES eval_runs(id),
            seed_id INTEGER NOT NULL REFERENCES seeds(id),
            dimension TEXT NOT NULL,
            prompt TEXT,
            response TEXT,
            parsed TEXT,
            score REAL,
            passed INTEGER,
            created_at TEXT NOT NULL,
            UNIQUE (run_id, seed_id, dimension)
        );

CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            entity TEXT,
            entity_id INTEGER,
            detail TEXT NOT NULL DEFAULT '{}'
        );

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
