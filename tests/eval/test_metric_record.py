"""Each metric is one record (``qcstation.eval.types.METRIC_RECORDS``) and every table of metric
codes is derived from it; a new stored metric's column in ``eval_pairs`` is one migration made
by ``db.kept_eval.stored_metric_statements``, and these tests say so when it is missing."""

from __future__ import annotations

import random

from db import Store
from db import kept_eval
from db.store import now
from qcstation.eval import metrics as M
from qcstation.eval import report
from qcstation.eval import types as T
from qcstation.eval.scorers import INSERT_SCORE
from qcstation.widgets import eval_views
from tests.eval_factory import make_run

RECIPE = ("a stored metric (a record with a task in qcstation/eval/types.py) needs its column in "
          "eval_pairs: add `migration(N, 'stored metric CODE', kept_eval.stored_metric_statements("
          "kept_eval.STORED, ('CODE',)))` at the end of db/migrations_recent.py and append CODE to "
          "db/kept_eval.STORED")


def test_every_stored_metric_has_its_column_in_eval_pairs_made_by_a_migration(store: Store) -> None:
    columns = [r[1] for r in store.conn.execute("PRAGMA table_info(eval_pairs)")]
    kept = [c[2:] for c in columns if c.startswith("v_")]
    assert set(T.STORED_METRICS) <= set(kept), RECIPE
    assert set(kept_eval.STORED) == set(T.STORED_METRICS) == set(kept), RECIPE


def test_the_tables_are_the_records() -> None:
    codes = [m.code for m in T.METRIC_RECORDS]
    assert len(set(codes)) == len(codes) and list(T.CODES) == codes
    for m in T.METRIC_RECORDS:
        assert T.LABELS[m.code] == m.label and T.DESCRIPTIONS[m.code] == m.description
        assert T.SHORT[m.code] == m.short and len(m.short) <= 6
        assert all(n in T.STORED_METRICS for n in m.needs), m.code
        if m.strict_of:     # a strict twin reads the same task's output as its flexible metric
            assert T.METRIC[m.strict_of].task == m.task and T.STRICT[m.strict_of] == m.code
        assert (m.code in T.STORED_METRICS) == m.stored
    # the tables other modules read are these, not copies
    assert report.FIGURE_CODES == T.REPORT_CODES["figure"]
    assert report.GROUP_CODES == T.REPORT_CODES["group"]
    assert eval_views.SHORT is T.SHORT and M.NEEDS is T.NEEDS
    assert [c for _, c, _ in T.COMPACT] == [m.code for m in T.METRIC_RECORDS if m.compact]
    # the CLI's and report's columns (R-t's strict twin since migration 18)
    assert T.COMPACT == (("Un", "un", None), ("Re", "re", None), ("Ar f/s", "ar", "ar_s"),
                         ("R-t f/s", "rt", "rt_s"), ("R-m f/s", "rm", "rm_s"), ("Fi f/s", "fi", "fi_s"),
                         ("All", "all", None))
    assert T.COMPARABLE == ("re", "ar", "ar_s", "rt", "rt_s", "rm", "rm_s", "rm_ungated", "fi", "fi_s",
                            "all", "all_no_un", "un")
    assert T.NEEDS["rm"] == ("rt", "rm") and T.NEEDS["rm_ungated"] == ("rm",)
    assert T.NEEDS["all"] == ("un", "re", "ar", "rt", "rm")
    assert T.TASK_SCORES["refinement"] == ("rt", "rm", "rt_s", "rm_s")


def _scores(store: Store, run: int, metrics: tuple[str, ...], rng: random.Random, k: int) -> None:
    rows = []
    for _ in range(k):
        m = rng.choice(metrics)
        v = rng.choice(("correct", "wrong", "error", "judge_error", "not_scored"))
        rows.append((run, rng.randrange(6), rng.randrange(2), m, "final", v,
                     rng.choice((None, 55.0)), None, "{}", 1, rng.choice(("a", "b")), None, now()))
    with store.transaction():
        store.conn.executemany(INSERT_SCORE, rows)


def _pairs(store: Store, metrics: tuple[str, ...]) -> tuple[list, list]:
    cols = ", ".join(f"v_{m}" for m in metrics)
    kept = store.conn.execute(f"SELECT run_id, seed_id, sample_idx, un, keeps, {cols} FROM "
                              "eval_pairs ORDER BY 1, 2, 3").fetchall()
    scratch = store.conn.execute(
        f"SELECT run_id, seed_id, sample_idx, {kept_eval.pair_columns(metrics)} FROM eval_scores "
        "GROUP BY run_id, seed_id, sample_idx ORDER BY 1, 2, 3").fetchall()
    return [tuple(r) for r in kept], [tuple(r) for r in scratch]


def test_the_migration_of_a_new_stored_metric_keeps_its_column(store: Store) -> None:
    rng = random.Random(7)
    run = make_run(store)
    before = kept_eval.STORED
    _scores(store, run, (*before, "zz"), rng, 60)      # scores of 'zz' before its migration
    with store.transaction():
        for sql in kept_eval.stored_metric_statements(before, ("zz",)):
            store.conn.execute(sql)
    kept, scratch = _pairs(store, (*before, "zz"))
    assert kept == scratch and any(r[-1] != -1 for r in kept)
    _scores(store, run, (*before, "zz"), rng, 60)      # and after it: kept by the new triggers
    with store.transaction():
        store.conn.execute("DELETE FROM eval_scores WHERE seed_id = 1")
        store.conn.execute("UPDATE eval_scores SET verdict = 'wrong' WHERE metric = 'zz'")
    kept, scratch = _pairs(store, (*before, "zz"))
    assert kept == scratch and any(r[-1] == 0 for r in kept)


def _contract() -> list[tuple[str, str, list[str]]]:
    """(module, function, parameter names) of each call in eval/__init__'s contract comment."""
    import re
    from pathlib import Path

    import qcstation.eval as E

    text = "\n".join(line[2:] if line.startswith("# ") else "" for line in
                     Path(E.__file__).read_text(encoding="utf-8").splitlines())
    out = []
    for m in re.finditer(r"(?m)^(\w+)\.(\w+)\(", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        parts, depth, cur = [], 0, ""
        for ch in text[m.end():i - 1]:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(ch, 0)
            cur += ch
        parts.append(cur)
        names = [p.split("=")[0].strip() for p in parts if p.strip() not in ("*", "")]
        out.append((m.group(1), m.group(2), names))
    return out


def test_the_contract_comment_names_every_parameter_of_each_function() -> None:
    import importlib
    import inspect

    found = _contract()
    assert {f"{m}.{f}" for m, f, _ in found} >= {
        "runs.create_run", "evaluate.run_and_score", "runner.execute_run", "scorers.score_run",
        "metrics.leaderboard", "metrics.breakdown", "metrics.compare"}
    for module, func, names in found:
        obj = getattr(importlib.import_module(f"qcstation.eval.{module}"), func)
        assert names == list(inspect.signature(obj).parameters), f"{module}.{func}"
    from dataclasses import fields
    from pathlib import Path

    import qcstation.eval as E
    from qcstation.eval.runner import RunProgress

    comment = " ".join(line[2:].strip() for line in
                       Path(E.__file__).read_text(encoding="utf-8").splitlines()
                       if line.startswith("# "))
    listed = comment.split("runner.RunProgress: ")[1].split(" scorers.")[0]
    assert [n.strip() for n in listed.split(",")] == [f.name for f in fields(RunProgress)]
