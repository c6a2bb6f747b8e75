"""Full-text search over the model responses of evaluation runs (the results browser's
``/``): the score rows whose response matches, under the browser's other filters.

The index is ``eval_outputs_fts`` (migration 7, kept in step by triggers); queries are
read as :mod:`db.search` reads them (plain words, or FTS5 syntax with a clear error when
it does not parse). Matches come in the order the responses were stored and stop after
``limit`` rows, so a search costs the same on a million responses as on a thousand; the
rows of a page are shown in the browser's order.
"""

from __future__ import annotations

from typing import Any

from db import Store
from db.search import match_sql, run_search
from qcstation.eval.browse import FAILED_VERDICTS, MAX_PAGE, Filters, Page, decorate
from qcstation.eval.types import ALL_PASS_UNDERSTANDING, METRICS

__all__ = ["search_results", "search_sql"]

_METRIC_RANK = {metric: n for n, metric in enumerate(METRICS)}


def search_results(store: Store, filters: Filters, *, limit: int = 200) -> Page:
    """Up to ``limit`` score rows (of the runs and metrics ``filters`` allow) whose model
    response matches ``filters.text``; ``has_more`` when there are more. :class:`SearchError`
    for a query that cannot run (an empty one too)."""
    filters.check()
    limit = max(1, min(int(limit), MAX_PAGE))
    sql, args = search_sql(filters)
    raw = run_search(store, filters.text, lambda q: [tuple(r) for r in store.execute(
        sql, [q, *args, limit + 1]).fetchall()])
    has_more = len(raw) > limit
    raw = sorted(raw[:limit], key=lambda r: (r[0], r[1], r[2], _METRIC_RANK.get(str(r[3]), 99)))
    return Page(decorate(store, raw), has_more, None)


def search_sql(filters: Filters) -> tuple[str, list[Any]]:
    """The search as one statement and its parameters but the first (the FTS query) and the
    last (the row limit): responses in stored order, stopping at the limit (no sort)."""
    where, args = _conditions(filters)
    return ("SELECT s.run_id, s.seed_id, s.sample_idx, s.metric, s.verdict, s.score, "
            "s.extracted, s.source, s.difficulty FROM eval_outputs o JOIN eval_scores s "
            "ON s.run_id = o.run_id AND s.seed_id = o.seed_id AND s.sample_idx = o.sample_idx "
            f"AND s.task = o.task WHERE o.id IN ({match_sql('eval_outputs')}){where} "
            "ORDER BY o.id LIMIT ?"), args


def _conditions(filters: Filters) -> tuple[str, list[Any]]:
    """The browser's filters as SQL over ``eval_scores s``."""
    where: list[str] = []
    args: list[Any] = []
    if filters.run_ids:
        ids = sorted({int(r) for r in filters.run_ids})
        where.append(f"s.run_id IN ({','.join('?' for _ in ids)})")
        args += ids
    if filters.metric is not None:
        where.append("s.metric = ?")
        args.append(filters.metric)
    if filters.verdict is not None:
        where.append("s.verdict = ?")
        args.append(filters.verdict)
    if filters.failed:
        where.append(f"(s.verdict IN ({','.join('?' for _ in FAILED_VERDICTS)}) OR (s.metric = "
                     "'un' AND s.verdict = 'correct' AND (s.score IS NULL OR s.score < ?)))")
        args += [*FAILED_VERDICTS, ALL_PASS_UNDERSTANDING]
    if filters.source is not None:
        where.append("s.source = ?")
        args.append(filters.source)
    if filters.difficulty is not None:
        where.append("s.difficulty = ?")
        args.append(filters.difficulty)
    return "".join(f" AND {w}" for w in where), args
