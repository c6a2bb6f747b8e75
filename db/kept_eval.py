"""The statements of migration 14 (``db/migrations.py``): an evaluation run's figures kept as
its scores and outputs are written.

``qcstation eval leaderboard`` and ``eval breakdown``, the report and the eval screens used to
aggregate a run's stored scores on every call: one row per (seed, sample) pivoted out of every
score row (about 1.5 s of CPU for a run of 1M scores), its verdicts counted per metric, and
its tokens and cost summed over every output. Triggers keep those figures in the writer's own
transaction, as ``db/kept_counts.py`` does for the QC side: any process and any write path
(scoring, live scoring, rescoring, batch import, a hand-made ``UPDATE``) keeps them, and
SQLite runs one writer at a time. Each reader keeps its old query as a ``*_from_scratch``
function; ``tests/eval/test_kept_eval.py`` checks the kept figures equal them after random
sequences of writes, several processes at once, and a migration. Like every migration they are
frozen once released: a change is a new migration.

The tables:

``eval_pairs``: one row per (run, seed, sample) that has a score, holding what
``qcstation.eval.metrics`` reads per item-sample: the Understanding score, whether the injected
errors keep the answer, and per stored metric its verdict code (-1: no score row).
``source``/``difficulty`` are those of the pair's first score row in (source, difficulty) order
(a breakdown groups a seed by its first). A new score row and a rescore (the scorers' upsert:
same key, same source) set their metric's share in place (*plain*); a deleted score, or an
update that moves one or changes its metric or source, inserts the pair's key into the view
``eval_pair_touch``, whose INSTEAD OF trigger recomputes the row from the pair's own score rows
(*touched*, as ``qc_gate_seeds``; at most one row per metric, read through the unique key).

``eval_score_counts`` (*plain*): scores per (run, metric, verdict); a row may hold 0.

``eval_reply_counts`` (*plain*, migration 15): outputs per (run, status, stopped at the length
limit or not).

``eval_run_totals`` (*plain*): per run, its outputs, failed requests, and the prompt and
completion tokens and cost of the outputs not served from the cache (``costed``: how many of
those have a cost; the run's cost is unknown while it is 0). The cost is a running sum of
floats: it equals a fresh ``SUM`` up to rounding in the last digits.
"""

from __future__ import annotations

from typing import Any

#: the metrics stored in ``eval_scores`` as of this migration (qcstation.eval.types.STORED_METRICS)
METRICS = ("un", "re", "ar", "rt", "rm", "fi", "ar_s", "rm_s", "fi_s")
#: verdict -> code as ``qcstation.eval.metrics`` reads it (5: any other verdict)
VERDICT_CODES = {"correct": 1, "wrong": 0, "not_scored": 2, "unparseable": 3, "error": 4,
                 "judge_error": 6, "invalid_item": 7, "checker_error": 8, "trivial": 9}
_CODE = ("CASE verdict " + " ".join(f"WHEN '{k}' THEN {v}" for k, v in VERDICT_CODES.items())
         + " ELSE 5 END")



def pair_columns(metrics: tuple[str, ...]) -> str:
    """A pair's row from its score rows (un, keeps, then a verdict code per metric)."""
    return ", ".join([
        "COALESCE(MAX(CASE WHEN metric = 'un' THEN COALESCE(CAST(score AS REAL), 0.0) END), 0.0)",
        "COALESCE(MAX(CASE WHEN metric = 'rm' THEN json_extract(CASE WHEN json_valid(detail) "
        "THEN detail END, '$.keeps_answer') END), -1)",
        *(f"COALESCE(MAX(CASE WHEN metric = '{m}' THEN {_CODE} END), -1)" for m in metrics)])


#: a pair's row from its score rows, as of migration 14
PAIR_COLUMNS = pair_columns(METRICS)

_PAIR_KEY = "run_id = NEW.run_id AND seed_id = NEW.seed_id AND sample_idx = NEW.sample_idx"
# through the table's unique key (run, seed, sample, metric): without statistics the planner
# would rather walk the whole run in the (run, source, difficulty) index than sort a pair's
# few rows, which made each recount read every score of the run
_FIRST = ("FROM eval_scores INDEXED BY sqlite_autoindex_eval_scores_1 "
          f"WHERE {_PAIR_KEY} ORDER BY source, difficulty LIMIT 1")


def _pair_touch(metrics: tuple[str, ...]) -> str:
    return f"""
CREATE TRIGGER eval_pair_touch_recount INSTEAD OF INSERT ON eval_pair_touch BEGIN
    DELETE FROM eval_pairs WHERE {_PAIR_KEY};
    INSERT INTO eval_pairs (run_id, seed_id, sample_idx, n, source, difficulty, un, keeps,
                            {', '.join(f'v_{m}' for m in metrics)})
    SELECT NEW.run_id, NEW.seed_id, NEW.sample_idx, COUNT(*), (SELECT source {_FIRST}),
           (SELECT difficulty {_FIRST}), {pair_columns(metrics)}
    FROM eval_scores WHERE {_PAIR_KEY} HAVING COUNT(*) > 0;
END
"""


def _touch(row: str, when: str = "") -> str:
    return ("INSERT INTO eval_pair_touch (run_id, seed_id, sample_idx) "
            f"SELECT {row}.run_id, {row}.seed_id, {row}.sample_idx{when};")


# A new score row, and a rescore (the scorers' upsert changes a row's verdict, score and
# detail, never its key or source), change only their metric's share of the pair: set here
# without a recount. A new row's source comes first if it sorts before the pair's (source is
# never NULL; a NULL difficulty sorts first).
_CODE_NEW = _CODE.replace("CASE verdict", "CASE NEW.verdict")
_UN_NEW = "COALESCE(CAST(NEW.score AS REAL), 0.0)"
_KEEPS_NEW = ("COALESCE(json_extract(CASE WHEN json_valid(NEW.detail) THEN NEW.detail END, "
              "'$.keeps_answer'), -1)")


def _share(metric: str, value: str, old: str) -> str:
    return f"CASE WHEN NEW.metric = '{metric}' THEN {value} ELSE {old} END"




def _pair_add(metrics: tuple[str, ...]) -> str:
    return (
        f"INSERT INTO eval_pairs (run_id, seed_id, sample_idx, n, source, difficulty, un, keeps, "
        f"{', '.join(f'v_{m}' for m in metrics)}) "
        f"VALUES (NEW.run_id, NEW.seed_id, NEW.sample_idx, 1, NEW.source, NEW.difficulty, "
        f"{_share('un', _UN_NEW, '0.0')}, {_share('rm', _KEEPS_NEW, '-1')}, "
        + ", ".join(_share(m, _CODE_NEW, "-1") for m in metrics) + ") "
        "ON CONFLICT DO UPDATE SET n = n + 1, "
        f"un = {_share('un', 'excluded.un', 'un')}, keeps = {_share('rm', 'excluded.keeps', 'keeps')}, "
        + ", ".join(f"v_{m} = {_share(m, f'excluded.v_{m}', f'v_{m}')}" for m in metrics) + "; "
        # apart, so that the common case (the pair's source already) leaves the group index alone
        "UPDATE eval_pairs SET source = NEW.source, difficulty = NEW.difficulty "
        f"WHERE {_PAIR_KEY} AND (NEW.source < source OR (NEW.source = source AND ("
        "(NEW.difficulty IS NULL AND difficulty IS NOT NULL) OR NEW.difficulty < difficulty)));")


def _pair_rescore(metrics: tuple[str, ...]) -> str:
    return (
        f"UPDATE eval_pairs SET un = {_share('un', _UN_NEW, 'un')}, "
        f"keeps = {_share('rm', _KEEPS_NEW, 'keeps')}, "
        + ", ".join(f"v_{m} = {_share(m, _CODE_NEW, f'v_{m}')}" for m in metrics)
        + f" WHERE {_PAIR_KEY};")


_SAME_PLACE = ("(OLD.run_id, OLD.seed_id, OLD.sample_idx, OLD.metric, OLD.source, OLD.difficulty) "
               "IS (NEW.run_id, NEW.seed_id, NEW.sample_idx, NEW.metric, NEW.source, NEW.difficulty)")


def _score_count(row: str, sign: int) -> str:
    return ("INSERT INTO eval_score_counts (run_id, metric, verdict, n) "
            f"VALUES ({row}.run_id, {row}.metric, {row}.verdict, {sign}) "
            "ON CONFLICT DO UPDATE SET n = n + excluded.n;")


def _fresh(row: str) -> str:
    return f"{row}.cached = 0"


def _totals(row: str, sign: int) -> str:
    fresh = _fresh(row)
    s = "" if sign > 0 else "-"
    return (
        "INSERT INTO eval_run_totals (run_id, outputs, errors, prompt_tokens, "
        "completion_tokens, cost, costed) "
        f"VALUES ({row}.run_id, {s}1, {s}({row}.status = 'error'), "
        f"{s}(CASE WHEN {fresh} THEN COALESCE({row}.prompt_tokens, 0) ELSE 0 END), "
        f"{s}(CASE WHEN {fresh} THEN COALESCE({row}.completion_tokens, 0) ELSE 0 END), "
        f"{s}(CASE WHEN {fresh} AND {row}.cost IS NOT NULL THEN {row}.cost ELSE 0.0 END), "
        f"{s}({fresh} AND {row}.cost IS NOT NULL)) "
        "ON CONFLICT DO UPDATE SET outputs = outputs + excluded.outputs, "
        "errors = errors + excluded.errors, prompt_tokens = prompt_tokens + excluded.prompt_tokens, "
        "completion_tokens = completion_tokens + excluded.completion_tokens, "
        "cost = cost + excluded.cost, costed = costed + excluded.costed;")


def _after(name: str, event: str, table: str, body: list[str], when: str = "") -> str:
    w = f" WHEN {when}" if when else ""
    return f"CREATE TRIGGER {name} AFTER {event} ON {table}{w} BEGIN {' '.join(body)} END"


_MOVED = (" WHERE (NEW.run_id, NEW.seed_id, NEW.sample_idx) IS NOT "
          "(OLD.run_id, OLD.seed_id, OLD.sample_idx)")
_SCORE_COLS = "run_id, seed_id, sample_idx, metric, verdict, score, detail, source, difficulty"
_OUTPUT_COLS = "run_id, status, cached, prompt_tokens, completion_tokens, cost"



def pair_triggers(metrics: tuple[str, ...]) -> list[str]:
    """The triggers that keep ``eval_pairs`` with a verdict column per metric of ``metrics``
    (the ones that name the metrics; the others do not change with them)."""
    return [
        _pair_touch(metrics),
        _after("eval_pairs_score_ins", "INSERT", "eval_scores", [_pair_add(metrics)]),
        _after("eval_pairs_rescore", f"UPDATE OF {_SCORE_COLS}", "eval_scores",
               [_pair_rescore(metrics)], when=_SAME_PLACE),
    ]


_PAIR_TOUCH, _PAIR_INS, _PAIR_RESCORE_TRIGGER = pair_triggers(METRICS)
TRIGGERS = [
    _PAIR_TOUCH,
    _PAIR_INS,
    _after("eval_pairs_score_del", "DELETE", "eval_scores", [_touch("OLD")]),
    _PAIR_RESCORE_TRIGGER,
    _after("eval_pairs_score_moved", f"UPDATE OF {_SCORE_COLS}", "eval_scores",
           [_touch("OLD"), _touch("NEW", _MOVED)], when=f"NOT {_SAME_PLACE}"),
    _after("eval_score_counts_ins", "INSERT", "eval_scores", [_score_count("NEW", 1)]),
    _after("eval_score_counts_del", "DELETE", "eval_scores", [_score_count("OLD", -1)]),
    _after("eval_score_counts_upd", "UPDATE OF run_id, metric, verdict", "eval_scores",
           [_score_count("OLD", -1), _score_count("NEW", 1)],
           when="(OLD.run_id, OLD.metric, OLD.verdict) IS NOT (NEW.run_id, NEW.metric, NEW.verdict)"),
    _after("eval_run_totals_ins", "INSERT", "eval_outputs", [_totals("NEW", 1)]),
    _after("eval_run_totals_del", "DELETE", "eval_outputs", [_totals("OLD", -1)]),
    _after("eval_run_totals_upd", f"UPDATE OF {_OUTPUT_COLS}", "eval_outputs",
           [_totals("OLD", -1), _totals("NEW", 1)]),
]

#: migration 14, in order: tables, view, triggers, then the figures of the runs already stored
STATEMENTS: list[str] = [
    f"""
    CREATE TABLE eval_pairs (
        run_id INTEGER NOT NULL, seed_id INTEGER NOT NULL, sample_idx INTEGER NOT NULL,
        n INTEGER NOT NULL,                  -- its score rows
        source TEXT, difficulty TEXT,        -- of the pair's first score row by (source, difficulty)
        un, keeps,                           -- as the pivot computes them (no type: kept as is)
        {', '.join(f'v_{m} INTEGER NOT NULL' for m in METRICS)},  -- verdict codes; -1: no row
        PRIMARY KEY (run_id, seed_id, sample_idx)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX eval_pairs_group ON eval_pairs (run_id, source, difficulty, seed_id)",
    """
    CREATE TABLE eval_score_counts (
        run_id INTEGER NOT NULL, metric TEXT NOT NULL, verdict TEXT NOT NULL, n INTEGER NOT NULL,
        PRIMARY KEY (run_id, metric, verdict)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE eval_run_totals (
        run_id INTEGER PRIMARY KEY, outputs INTEGER NOT NULL, errors INTEGER NOT NULL,
        prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,  -- not from the cache
        cost REAL NOT NULL, costed INTEGER NOT NULL  -- sum and number of known costs (not cached)
    )
    """,
    "CREATE VIEW eval_pair_touch AS SELECT 0 AS run_id, 0 AS seed_id, 0 AS sample_idx WHERE 0",
    *TRIGGERS,
    "INSERT INTO eval_pair_touch (run_id, seed_id, sample_idx) "
    "SELECT DISTINCT run_id, seed_id, sample_idx FROM eval_scores",
    "INSERT INTO eval_score_counts (run_id, metric, verdict, n) "
    "SELECT run_id, metric, verdict, COUNT(*) FROM eval_scores GROUP BY 1, 2, 3",
    """
    INSERT INTO eval_run_totals (run_id, outputs, errors, prompt_tokens, completion_tokens,
                                 cost, costed)
    SELECT run_id, COUNT(*), COALESCE(SUM(status = 'error'), 0),
           COALESCE(SUM(CASE WHEN cached = 0 THEN prompt_tokens END), 0),
           COALESCE(SUM(CASE WHEN cached = 0 THEN completion_tokens END), 0),
           COALESCE(SUM(CASE WHEN cached = 0 THEN cost END), 0.0),
           COUNT(CASE WHEN cached = 0 THEN cost END)
    FROM eval_outputs GROUP BY run_id
    """,
]


# --- migration 15 -------------------------------------------------------------------------
# ``eval_reply_counts`` (*plain*): outputs per (run, status, stopped at the length limit),
# what the runs list shows as progress and each run's provenance line ("cut by length") used
# to count over every output; the index that finds a run's exemplars (rebuilding a request,
# e.g. to show its prompt, read every item of the run to find its three); and one of the
# items' sources and difficulties.

def _reply_count(row: str, sign: int) -> str:
    return ("INSERT INTO eval_reply_counts (run_id, status, length, n) "
            f"VALUES ({row}.run_id, {row}.status, COALESCE({row}.finish_reason = 'length', 0), "
            f"{sign}) ON CONFLICT DO UPDATE SET n = n + excluded.n;")


REPLY_TRIGGERS = [
    _after("eval_reply_counts_ins", "INSERT", "eval_outputs", [_reply_count("NEW", 1)]),
    _after("eval_reply_counts_del", "DELETE", "eval_outputs", [_reply_count("OLD", -1)]),
    _after("eval_reply_counts_upd", "UPDATE OF run_id, status, finish_reason", "eval_outputs",
           [_reply_count("OLD", -1), _reply_count("NEW", 1)]),
]

#: migration 15
STATEMENTS_15: list[str] = [
    """
    CREATE TABLE eval_reply_counts (
        run_id INTEGER NOT NULL, status TEXT NOT NULL,
        length INTEGER NOT NULL,             -- 1: finish_reason 'length'
        n INTEGER NOT NULL,
        PRIMARY KEY (run_id, status, length)
    ) WITHOUT ROWID
    """,
    *REPLY_TRIGGERS,
    "INSERT INTO eval_reply_counts (run_id, status, length, n) "
    "SELECT run_id, status, COALESCE(finish_reason = 'length', 0), COUNT(*) FROM eval_outputs "
    "GROUP BY 1, 2, 3",
    "CREATE INDEX eval_items_role ON eval_items (run_id, role, position)",
    # the results browser's source and difficulty pickers, without reading the frozen records
    "CREATE INDEX eval_items_groups ON eval_items (run_id, source, difficulty)",
]


# --- a new stored metric ------------------------------------------------------------------
def stored_metric_statements(before: tuple[str, ...], added: tuple[str, ...], *,
                             batched: bool = True) -> list[str]:
    """The statements of a migration that adds stored metrics ``added`` to ``eval_pairs``,
    which holds a verdict column per metric of ``before``: a column ``v_<code>`` each (-1 for
    the rows already kept), the three pair triggers made again over ``before + added``, and
    the pairs that already have scores of an added metric recounted. A new stored metric (a
    record in ``qcstation.eval.types`` with a ``task``) is one migration in
    ``db/migrations_recent.py``: ``migration(N, "...", stored_metric_statements(OLD, ("code",)))``,
    and this module's ``STORED`` gets its code (``tests/eval/test_metric_record.py``), which
    :func:`store_scores` makes a batch's pairs over. ``batched``: the insert trigger passes
    over a batch's pairs (migration 24; migration 18, made before it, is not)."""
    metrics = (*before, *added)
    marks = ", ".join(f"'{m}'" for m in added)
    touch, insert, rescore = pair_triggers(metrics)
    if batched:
        insert = batched_insert_triggers(metrics)[0]
    return [
        "DROP TRIGGER eval_pair_touch_recount", "DROP TRIGGER eval_pairs_score_ins",
        "DROP TRIGGER eval_pairs_rescore",
        *(f"ALTER TABLE eval_pairs ADD COLUMN v_{m} INTEGER NOT NULL DEFAULT -1" for m in added),
        touch, insert, rescore,
        "INSERT INTO eval_pair_touch (run_id, seed_id, sample_idx) SELECT DISTINCT run_id, "
        f"seed_id, sample_idx FROM eval_scores WHERE metric IN ({marks})",
    ]


#: every stored metric with its column in ``eval_pairs``, in column order: migration 14's,
#: then those of each later ``stored_metric_statements`` migration (18: ``rt_s``)
STORED: tuple[str, ...] = (*METRICS, "rt_s")


# --- migration 21 -------------------------------------------------------------------------
# The runs list's headline numbers and the charts' figures read every item-sample row of a run
# (``eval_pairs``: 100,000 rows at 1M scores, 0.8-0.9 s of CPU per screen) to compute figures
# that depend only on how many items have each set of verdicts. Two tables keep that:
#
# ``eval_item_sigs`` (*touched*): one row per (run, seed) that has item-samples: the item's
# group (the (source, difficulty) of its first item-sample by (source, difficulty), as
# ``qcstation.eval.metrics`` groups a breakdown, each '(none)' when NULL or empty) and its
# signature: each item-sample's Understanding score, whether its injected errors keep the
# answer and its verdict code per stored metric, in sample order (``;`` between samples,
# ``,`` between fields; numbers written by ``quote()``, which reads back exactly).
#
# ``eval_headline`` (*plain*): per run, group and signature, how many items have it (a row may
# hold 0: a signature no item has any more). A run's figures (the headline, every metric of
# the leaderboard with its interval, a breakdown by source or difficulty) are functions of
# these counts: ``qcstation.eval.metrics.load_run_kept``
# makes the run's table from them, each item repeated as many times as it is counted.
#
# Any change of an item-sample row (inserted, changed, deleted: every write of a score reaches
# ``eval_pairs`` through migration 14's triggers) inserts its (run, seed) into the view
# ``eval_item_touch``, whose INSTEAD OF trigger takes the item's old signature off its count,
# makes it again from the item's rows and counts it. A later stored metric (a new column of
# ``eval_pairs``) must remake these triggers with it (:func:`headline_triggers` over the new
# columns) and touch every item.

#: the stored metrics a signature holds, in its order: every column of ``eval_pairs`` as of
#: migration 21 (frozen with it: a later stored metric is not in these signatures, and
#: ``load_run_kept`` reads the item-sample rows until a migration remakes them with it)
SIG_METRICS: tuple[str, ...] = (*METRICS, "rt_s")


def _none(col: str) -> str:
    return f"CASE WHEN {col} IS NULL OR {col} = '' THEN '(none)' ELSE {col} END"


def pair_sig(metrics: tuple[str, ...]) -> str:
    """One item-sample row's share of its item's signature (over ``eval_pairs``' columns)."""
    keeps = "CASE WHEN typeof(keeps) IN ('integer', 'real') THEN keeps ELSE -1 END"
    return (f"quote(un) || ',' || quote({keeps}) || ',' || "
            + " || ',' || ".join(f"v_{m}" for m in metrics))


# an item's rows through the primary key: ordered by (source, difficulty), the planner would
# rather walk the whole run in eval_pairs_group (every write of a score read the run's pairs)
_BY_KEY = "INDEXED BY sqlite_autoindex_eval_pairs_1"


def _recount(metrics: tuple[str, ...], row: str) -> list[str]:
    """The statements that count the item of ``row`` (NEW or OLD) again: its old signature's
    count goes down (a count may rest at 0: read as none), its row is made again from its
    item-samples (gone with the last of them), and its signature's count goes up."""
    key = f"run_id = {row}.run_id AND seed_id = {row}.seed_id"
    first = (f"(SELECT {_none('source')} AS s, {_none('difficulty')} AS d FROM eval_pairs "
             f"{_BY_KEY} WHERE {key} ORDER BY source, difficulty LIMIT 1)")
    sig = (f"(SELECT group_concat(s, ';') AS sig FROM (SELECT {pair_sig(metrics)} AS s "
           f"FROM eval_pairs WHERE {key} ORDER BY sample_idx))")
    return [
        "UPDATE eval_headline SET n = n - 1 WHERE (run_id, source, difficulty, sig) = "
        f"(SELECT run_id, source, difficulty, sig FROM eval_item_sigs WHERE {key});",
        "INSERT INTO eval_item_sigs (run_id, seed_id, source, difficulty, sig) "
        f"SELECT {row}.run_id, {row}.seed_id, g.s, g.d, x.sig FROM {first} AS g, {sig} AS x "
        "WHERE true ON CONFLICT DO UPDATE SET source = excluded.source, "
        "difficulty = excluded.difficulty, sig = excluded.sig;",
        f"DELETE FROM eval_item_sigs WHERE {key} "
        f"AND NOT EXISTS (SELECT 1 FROM eval_pairs WHERE {key});",
        "INSERT INTO eval_headline (run_id, source, difficulty, sig, n) "
        f"SELECT run_id, source, difficulty, sig, 1 FROM eval_item_sigs WHERE {key} "
        "ON CONFLICT DO UPDATE SET n = n + 1;",
    ]


def _touch_item(row: str) -> str:
    return f"INSERT INTO eval_item_touch (run_id, seed_id) VALUES ({row}.run_id, {row}.seed_id);"


_ITEM_MOVED = "(NEW.run_id, NEW.seed_id) IS NOT (OLD.run_id, OLD.seed_id)"


def headline_triggers(metrics: tuple[str, ...]) -> list[str]:
    """The triggers that keep ``eval_item_sigs`` and ``eval_headline`` over an ``eval_pairs``
    with a verdict column per metric of ``metrics`` (the common writes recount the item in
    place; a row moved to another item touches both through the view)."""
    cols = ", ".join(["un", "keeps", "source", "difficulty", *(f"v_{m}" for m in metrics)])
    upd = f"UPDATE OF run_id, seed_id, sample_idx, {cols}"
    return [
        "CREATE TRIGGER eval_item_touch_recount INSTEAD OF INSERT ON eval_item_touch BEGIN "
        + " ".join(_recount(metrics, "NEW")) + " END",
        _after("eval_headline_pair_ins", "INSERT", "eval_pairs", _recount(metrics, "NEW")),
        _after("eval_headline_pair_del", "DELETE", "eval_pairs", _recount(metrics, "OLD")),
        _after("eval_headline_pair_upd", upd, "eval_pairs", _recount(metrics, "NEW"),
               when=f"NOT {_ITEM_MOVED}"),
        _after("eval_headline_pair_moved", upd, "eval_pairs",
               [_touch_item("OLD"), _touch_item("NEW")], when=_ITEM_MOVED),
    ]


#: migration 21's triggers (migration 22 keeps the first, the view's, and drops the others)
HEADLINE_TRIGGERS_21 = headline_triggers(SIG_METRICS)

#: migration 21
STATEMENTS_21: list[str] = [
    """
    CREATE TABLE eval_item_sigs (
        run_id INTEGER NOT NULL, seed_id INTEGER NOT NULL,
        source TEXT NOT NULL, difficulty TEXT NOT NULL,   -- its group ('(none)': none)
        sig TEXT NOT NULL,                                -- its item-samples' verdicts
        PRIMARY KEY (run_id, seed_id)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE eval_headline (
        run_id INTEGER NOT NULL, source TEXT NOT NULL, difficulty TEXT NOT NULL,
        sig TEXT NOT NULL, n INTEGER NOT NULL,            -- items of the run with this signature
        PRIMARY KEY (run_id, source, difficulty, sig)
    ) WITHOUT ROWID
    """,
    "CREATE VIEW eval_item_touch AS SELECT 0 AS run_id, 0 AS seed_id WHERE 0",
    *HEADLINE_TRIGGERS_21,
    "INSERT INTO eval_item_touch (run_id, seed_id) "
    "SELECT DISTINCT run_id, seed_id FROM eval_pairs",
]


def headline_from_scratch_sql(metrics: tuple[str, ...] = SIG_METRICS) -> str:
    """``eval_headline``'s rows of one run (``?``) made from its item-sample rows, in the
    table's key order (the kept rows' oracle in tests)."""
    return f"""
    SELECT source, difficulty, sig, COUNT(*) FROM (
        SELECT seed_id,
               (SELECT {_none('p.source')} FROM eval_pairs p WHERE p.run_id = i.run_id
                AND p.seed_id = i.seed_id ORDER BY p.source, p.difficulty LIMIT 1) AS source,
               (SELECT {_none('p.difficulty')} FROM eval_pairs p WHERE p.run_id = i.run_id
                AND p.seed_id = i.seed_id ORDER BY p.source, p.difficulty LIMIT 1) AS difficulty,
               (SELECT group_concat(s, ';') FROM (SELECT {pair_sig(metrics)} AS s FROM eval_pairs p
                WHERE p.run_id = i.run_id AND p.seed_id = i.seed_id ORDER BY p.sample_idx)) AS sig
        FROM (SELECT DISTINCT run_id, seed_id FROM eval_pairs WHERE run_id = ?) i)
    GROUP BY source, difficulty, sig ORDER BY source, difficulty, sig"""


# --- migration 22 -------------------------------------------------------------------------
# Migration 21 recounted an item at every write of one of its item-sample rows: about 75 µs
# per score written, four times per item of a run asking two answer tasks (each stored with
# its strict twin), in the scoring worker beside a running evaluation. Now a write of an
# item-sample row only marks its item (and, moved, the item it left) in ``eval_item_dirty``
# (one small insert), and the item is recounted once per batch: the writer ends its batch
# with :data:`RECOUNT_DIRTY` (the scorers and the live scoring worker do, in the batch's own
# transaction: :func:`recount_dirty`), which recounts the marked items as migration 21's view
# recounts one (the same rows; one statement over all of them) and clears the marks. A write that leaves marks behind (a
# hand-made ``UPDATE``, a writer that does not recount) is read right all the same: the
# reader (:func:`headline_kept_sql`) takes each marked item's kept signature off its count
# and counts the signature made from its rows now; the next batch recounts it for good. So
# every figure is the one the item-sample rows give, whoever wrote them, as before.

#: every write of an item-sample row marks its item (an update marks the item it left too)
DIRTY_TRIGGERS: list[str] = [
    _after("eval_item_dirty_pair_ins", "INSERT", "eval_pairs",
           ["INSERT INTO eval_item_dirty (run_id, seed_id) VALUES (NEW.run_id, NEW.seed_id) "
            "ON CONFLICT DO NOTHING;"]),
    _after("eval_item_dirty_pair_del", "DELETE", "eval_pairs",
           ["INSERT INTO eval_item_dirty (run_id, seed_id) VALUES (OLD.run_id, OLD.seed_id) "
            "ON CONFLICT DO NOTHING;"]),
    _after("eval_item_dirty_pair_upd", "UPDATE", "eval_pairs",
           ["INSERT INTO eval_item_dirty (run_id, seed_id) "
            "VALUES (NEW.run_id, NEW.seed_id), (OLD.run_id, OLD.seed_id) ON CONFLICT DO NOTHING;"]),
]

#: the triggers that keep ``eval_headline`` as of migration 22: migration 21's recount (the
#: view's: a batch's end recounts its marked items as it does, :data:`RECOUNT_DIRTY`) and the
#: marks
HEADLINE_TRIGGERS: list[str] = [HEADLINE_TRIGGERS_21[0], *DIRTY_TRIGGERS]


def recount_dirty(conn: object) -> None:
    """Recount the items marked since the last recount (call inside the transaction of the
    batch that wrote them; nothing to do costs one look at an empty table)."""
    execute = conn.execute  # type: ignore[attr-defined]
    if execute("SELECT 1 FROM eval_item_dirty LIMIT 1").fetchone() is not None:
        for sql in RECOUNT_DIRTY:
            execute(sql)


def _fresh_item(metrics: tuple[str, ...], i: str) -> str:
    """(source, difficulty, sig) of the item ``i`` (a row with run_id and seed_id) made from
    its item-sample rows, as :func:`headline_from_scratch_sql` makes it."""
    key = f"p.run_id = {i}.run_id AND p.seed_id = {i}.seed_id"
    return (f"(SELECT {_none('p.source')} FROM eval_pairs p {_BY_KEY} WHERE {key} "
            "ORDER BY p.source, p.difficulty LIMIT 1), "
            f"(SELECT {_none('p.difficulty')} FROM eval_pairs p {_BY_KEY} WHERE {key} "
            "ORDER BY p.source, p.difficulty LIMIT 1), "
            f"(SELECT group_concat(s, ';') FROM (SELECT {pair_sig(metrics)} AS s FROM eval_pairs p "
            f"WHERE {key} ORDER BY p.sample_idx))")


def headline_kept_sql(metrics: tuple[str, ...] = SIG_METRICS) -> str:
    """``eval_headline``'s rows of one run (``?``, given three times) as the item-sample rows
    give them now: the kept counts, each marked item's kept signature taken off and its
    signature made from its rows counted (in the table's key order, counts of 0 left out)."""
    return f"""
    SELECT source, difficulty, sig, SUM(n) FROM (
        SELECT source, difficulty, sig, n FROM eval_headline WHERE run_id = ?
        UNION ALL
        SELECT s.source, s.difficulty, s.sig, -1 FROM eval_item_dirty d
        JOIN eval_item_sigs s ON s.run_id = d.run_id AND s.seed_id = d.seed_id WHERE d.run_id = ?
        UNION ALL
        SELECT {_fresh_item(metrics, 'i')}, 1 FROM eval_item_dirty i WHERE i.run_id = ?
        AND EXISTS (SELECT 1 FROM eval_pairs p WHERE p.run_id = i.run_id AND p.seed_id = i.seed_id))
    GROUP BY source, difficulty, sig HAVING SUM(n) != 0 ORDER BY source, difficulty, sig"""


# (CROSS JOIN: the marked items outside, each's signature through the key; not every
# signature of every run read)
_DIRTY_SIGS = ("FROM eval_item_dirty d CROSS JOIN eval_item_sigs s ON s.run_id = d.run_id "
               "AND s.seed_id = d.seed_id")
_DIRTY_HAS_PAIRS = ("EXISTS (SELECT 1 FROM eval_pairs p WHERE p.run_id = d.run_id "
                    "AND p.seed_id = d.seed_id)")
#: a batch's end: every marked item recounted (its old signature off, its new one on), the
#: marks cleared; in the writer's transaction (:func:`recount_dirty`). Set-based: each
#: statement once over all the marked items, not migration 21's view's four statements per
#: item (about 6 against 9 µs an item), leaving exactly the rows the view leaves: a
#: signature's count is a sum, and goes down only where its row exists (the view's ``UPDATE``)
RECOUNT_DIRTY: tuple[str, ...] = (
    # the marked items' kept signatures off their counts (rows that exist only)
    "INSERT INTO eval_headline (run_id, source, difficulty, sig, n) "
    f"SELECT s.run_id, s.source, s.difficulty, s.sig, -COUNT(*) {_DIRTY_SIGS} "
    "WHERE EXISTS (SELECT 1 FROM eval_headline h WHERE h.run_id = s.run_id AND "
    "h.source = s.source AND h.difficulty = s.difficulty AND h.sig = s.sig) "
    "GROUP BY 1, 2, 3, 4 ON CONFLICT DO UPDATE SET n = n + excluded.n",
    # each marked item with item-samples made again from them; one without, dropped
    "INSERT INTO eval_item_sigs (run_id, seed_id, source, difficulty, sig) "
    f"SELECT d.run_id, d.seed_id, {_fresh_item(SIG_METRICS, 'd')} FROM eval_item_dirty d "
    f"WHERE {_DIRTY_HAS_PAIRS} ON CONFLICT DO UPDATE SET source = excluded.source, "
    "difficulty = excluded.difficulty, sig = excluded.sig",
    "DELETE FROM eval_item_sigs WHERE (run_id, seed_id) IN (SELECT d.run_id, d.seed_id "
    f"FROM eval_item_dirty d WHERE NOT {_DIRTY_HAS_PAIRS})",
    # their signatures counted
    "INSERT INTO eval_headline (run_id, source, difficulty, sig, n) "
    f"SELECT s.run_id, s.source, s.difficulty, s.sig, COUNT(*) {_DIRTY_SIGS} WHERE true "
    "GROUP BY 1, 2, 3, 4 ON CONFLICT DO UPDATE SET n = n + excluded.n",
    "DELETE FROM eval_item_dirty",
)


#: migration 22
STATEMENTS_22: list[str] = [
    """
    CREATE TABLE eval_item_dirty (
        run_id INTEGER NOT NULL, seed_id INTEGER NOT NULL,   -- an item written since its recount
        PRIMARY KEY (run_id, seed_id)
    ) WITHOUT ROWID
    """,
    *(f"DROP TRIGGER IF EXISTS {name}"
      for name in ("eval_headline_pair_ins", "eval_headline_pair_del",
                   "eval_headline_pair_upd", "eval_headline_pair_moved")),
    *DIRTY_TRIGGERS,
]


# --- migration 24 -------------------------------------------------------------------------
# Migration 14's triggers kept a run's item-sample rows and verdict counts at every score row
# inserted: an upsert of the pair's row (and of its item's mark, migration 22) and of a count,
# about 30 µs per score row, two rows per output of an answer task, in the live scoring
# worker beside a running evaluation. Now a writer of many score rows (the scorers, the live
# scoring worker: :func:`store_scores`) names the batch's item-samples in ``eval_score_batch``
# inside its transaction, inserts the rows (the two insert triggers pass over the rows of the
# pairs named there), then keeps the pairs and counts with one statement each
# (:func:`batch_statements`: each named pair's row made from its score rows, as migration 14's
# view recounts one, and the verdicts of the rows the batch inserted counted) and empties the
# table. SQLite has one writer at a time and the names live only inside that writer's
# transaction (written and deleted in it), so no other writer ever sees one: every other
# write (a single score, a hand-made ``INSERT``, an older qcstation) goes through the triggers
# as before, and an update (a rescore through the upsert, a row moved) too.

#: the insert triggers of migration 14 (pairs, verdict counts) over the pairs not in a batch
_NOT_IN_BATCH = ("NOT EXISTS (SELECT 1 FROM eval_score_batch WHERE run_id = NEW.run_id "
                 "AND seed_id = NEW.seed_id AND sample_idx = NEW.sample_idx)")


def batched_insert_triggers(metrics: tuple[str, ...]) -> list[str]:
    """Migration 14's two insert triggers of ``eval_scores`` (the pair's row with a verdict
    column per metric of ``metrics``, the verdict count), passing over a batch's pairs."""
    return [
        _after("eval_pairs_score_ins", "INSERT", "eval_scores", [_pair_add(metrics)],
               when=_NOT_IN_BATCH),
        _after("eval_score_counts_ins", "INSERT", "eval_scores", [_score_count("NEW", 1)],
               when=_NOT_IN_BATCH),
    ]


#: migration 24
STATEMENTS_24: list[str] = [
    """
    CREATE TABLE eval_score_batch (
        run_id INTEGER NOT NULL, seed_id INTEGER NOT NULL, sample_idx INTEGER NOT NULL,
        PRIMARY KEY (run_id, seed_id, sample_idx)   -- empty outside a writer's transaction
    ) WITHOUT ROWID
    """,
    "DROP TRIGGER eval_pairs_score_ins",
    "DROP TRIGGER eval_score_counts_ins",
    *batched_insert_triggers(STORED),
]

_BATCH_KEY = "s.run_id = b.run_id AND s.seed_id = b.seed_id AND s.sample_idx = b.sample_idx"
_BATCH_FIRST = ("FROM eval_scores INDEXED BY sqlite_autoindex_eval_scores_1 WHERE run_id = b.run_id "
                "AND seed_id = b.seed_id AND sample_idx = b.sample_idx ORDER BY source, difficulty LIMIT 1")


def batch_statements(metrics: tuple[str, ...] = STORED) -> tuple[str, str]:
    """The two statements that end a batch (after its rows are inserted; ``?``: the largest
    score id before them): each named pair's row made from its score rows (as migration 14's
    view makes one; an upsert, so its item is marked as by the triggers), and the verdicts of
    the rows the batch inserted (a row the upsert updated went through the update triggers)
    counted."""
    cols = ", ".join(f"v_{m}" for m in metrics)
    sets = ", ".join(f"{c} = excluded.{c}" for c in
                     ("n", "source", "difficulty", "un", "keeps", *(f"v_{m}" for m in metrics)))
    pairs = (f"INSERT INTO eval_pairs (run_id, seed_id, sample_idx, n, source, difficulty, un, keeps, "
             f"{cols}) SELECT b.run_id, b.seed_id, b.sample_idx, COUNT(*), (SELECT source {_BATCH_FIRST}), "
             f"(SELECT difficulty {_BATCH_FIRST}), {pair_columns(metrics)} "
             "FROM eval_score_batch b JOIN eval_scores s INDEXED BY sqlite_autoindex_eval_scores_1 "
             f"ON {_BATCH_KEY} GROUP BY b.run_id, b.seed_id, b.sample_idx "
             f"ON CONFLICT DO UPDATE SET {sets}")
    # the rows above the id by the table's own key: with an index free to choose, SQLite
    # walked the whole of ``eval_scores_page_mv`` (every score of every run, in its GROUP BY
    # order) at every batch; 3.1 s a batch on the scale bench's 1M scores, 16 ms by the key
    counts = ("INSERT INTO eval_score_counts (run_id, metric, verdict, n) "
              "SELECT s.run_id, s.metric, s.verdict, COUNT(*) FROM eval_scores s NOT INDEXED "
              "WHERE s.id > ? "
              f"AND EXISTS (SELECT 1 FROM eval_score_batch b WHERE {_BATCH_KEY}) "
              "GROUP BY 1, 2, 3 ON CONFLICT DO UPDATE SET n = n + excluded.n")
    return pairs, counts


_PAIRS_BATCH, _COUNTS_BATCH = batch_statements()
#: a batch's rows are new score ids above this (SQLite takes the largest id + 1 below it)
_LAST_ID = 2**62


def store_scores(conn: object, insert_sql: str, rows: list[tuple[Any, ...]]) -> None:
    """Write score rows (``insert_sql``: the scorers' upsert; each row starts with run, seed
    and sample) and keep the run's figures, inside the caller's transaction: the batch's
    pairs named, the rows inserted past the pair and count triggers, each pair made from its
    rows and the inserted rows' verdicts counted once, the names cleared, then every item
    written recounted (:func:`recount_dirty`). The kept tables end exactly as the per-row
    triggers leave them (``tests/eval/test_kept_eval.py``); a pair is made from its rows,
    so one whose kept row was edited by hand is made right again."""
    execute = conn.execute  # type: ignore[attr-defined]
    if not rows:
        recount_dirty(conn)
        return
    last = execute("SELECT COALESCE(MAX(id), 0) FROM eval_scores").fetchone()[0]
    if last >= _LAST_ID or len({r[:4] for r in rows}) < len(rows):
        # ids no longer one past the largest, or a row the batch itself inserted updated
        # again (the update triggers would take off a verdict not yet counted): row by row
        conn.executemany(insert_sql, rows)  # type: ignore[attr-defined]
        recount_dirty(conn)
        return
    conn.executemany(  # type: ignore[attr-defined]
        "INSERT INTO eval_score_batch (run_id, seed_id, sample_idx) VALUES (?, ?, ?) "
        "ON CONFLICT DO NOTHING", sorted({(r[0], r[1], r[2]) for r in rows}))
    conn.executemany(insert_sql, rows)  # type: ignore[attr-defined]
    execute(_PAIRS_BATCH)
    execute(_COUNTS_BATCH, (last,))
    execute("DELETE FROM eval_score_batch")
    recount_dirty(conn)
