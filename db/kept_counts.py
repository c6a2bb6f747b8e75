"""The statements of migration 10 (``db/migrations.py``): counts kept as rows are written.

They live here, apart from the other migrations, for their size: the trigger bodies are
generated from a few patterns so that each is written once. Like every migration they are
frozen once released: a change is a new migration.

Counts the readers (``qcstation status``, ``qc status``, ``release blockers``, the QC gate,
the dashboard) used to recompute with a scan of every artifact or sample item -- about 3 s of
CPU per QC dimension at 1M seeds -- kept right by triggers in the writer's own transaction:
any process and any write path keeps them, and several annotators at once cannot interleave
a count (SQLite runs one writer at a time). Each reader keeps its old query as a
``*_from_scratch`` function; ``tests/core/review/test_kept_counts.py`` checks the kept
counts equal them after random sequences of operations, concurrent writers and a migration.

Three patterns:

- *bracketed*: a BEFORE trigger takes the row's old share out of a count, an AFTER trigger
  puts the new one in (the share is computed from the tables themselves, so a statement
  touching several rows of one seed stays right);
- *touched*: a write inserts a key into a view whose INSTEAD OF trigger recomputes that
  key's row of a per-key table (the row holds its own share, so only AFTER triggers are
  needed), and that table's insert/delete triggers keep the sums;
- *plain*: a row's own columns, added on insert and taken out on delete.

The tables:

``artifact_counts`` (bracketed): current artifacts (highest non-superseded version of a
seed and dimension) by dimension, seed source, seed status, derived or not, artifact status
and stored flags -- what ``qcstation status`` and the gate's coverage count; on a change to
an artifact, a seed's status or source, or a derived_items row.
NULL audit_version / flag_codes are stored as -1 / '~' (a key column cannot be NULL).

``qc_gate_seeds`` (touched): each seed's share of its dimension's gate (per scope), from its own
sample items in the rounds that count: random draws reviewed and rejected (up to its first
reject), items pending, taken (by current-artifact status) and an open reject (by the
current artifact's status and whether it is in a sample). ``qc_gate_counts`` holds their
sums, kept by the insert/delete triggers of ``qc_gate_seeds``. A write that can change a
seed's share (a sample item, a decision, a curator resolution, an artifact, the seed's
status, a sample opened or closed) inserts (seed, dimension, scope) into the view
``qc_gate_touch``, whose INSTEAD OF trigger recomputes that seed's row. A fresh round
(samples.params kind 'fresh', fixed when the sample is inserted) restarts the count of its
dimension and scope: no item of an earlier round counts any more.

``seed_counts`` (plain), ``attempt_counts`` (plain; 'needs_model' bracketed),
``qc_item_state``/``sample_progress`` (touched), ``counters`` (bracketed): see each below.
"""

from __future__ import annotations

from collections.abc import Callable

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


def _seed_dim_brackets(prefix: str, table: str, columns: str, upsert: Callable[..., str], guard: str) -> list[str]:
    """Insert, delete and update triggers for a count kept per (seed, dimension): each takes
    the row's old contribution out before the write and puts its new one back after. An update
    that keeps the row's (seed, dimension) recounts it once (``guard``: the upsert's WHERE, which
    the moved row's second recount is made conditional on)."""
    def moved(sign: int) -> str:
        return upsert("NEW.seed_id", "NEW.dimension", sign).replace(
            guard, "WHERE (NEW.seed_id, NEW.dimension) IS NOT (OLD.seed_id, OLD.dimension) AND "
            + guard.removeprefix("WHERE "))

    return [
        *_bracket(f"{prefix}_ins", "INSERT", table, [upsert("NEW.seed_id", "NEW.dimension", -1)],
                  [upsert("NEW.seed_id", "NEW.dimension", 1)]),
        *_bracket(f"{prefix}_del", "DELETE", table, [upsert("OLD.seed_id", "OLD.dimension", -1)],
                  [upsert("OLD.seed_id", "OLD.dimension", 1)]),
        *_bracket(f"{prefix}_upd", f"UPDATE OF {columns}", table,
                  [upsert("OLD.seed_id", "OLD.dimension", -1), moved(-1)],
                  [upsert("OLD.seed_id", "OLD.dimension", 1), moved(1)]),
    ]


_ART_COLS = "seed_id, dimension, version, status, audit_version, flag_codes"
_CUR_TRIGGERS = [
    *_seed_dim_brackets("artifact_counts", "artifacts", _ART_COLS, _cur_counts_upsert, "WHERE c.version"),
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
    *_seed_dim_brackets("needs_model_attempt", "attempts", "seed_id, dimension, verify_status",
                        _needs_model_upsert, "WHERE (SELECT status"),
    *_seed_dim_brackets("needs_model_artifact", "artifacts", "seed_id, dimension, status",
                        _needs_model_upsert, "WHERE (SELECT status"),
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


#: migration 10, in order: tables, view, triggers, then the counts of an old database
STATEMENTS: list[str] = [
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
        "CREATE INDEX qc_item_state_rejected ON qc_item_state (item_id) WHERE rej",
        "CREATE INDEX sample_items_order ON sample_items (sample_id, position, id)",
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
]
