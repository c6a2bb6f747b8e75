"""The results browser's queries: keyset pages over ``eval_scores``, one item in detail,
two runs side by side, and the runs list with headline numbers.

No Textual here: the Results and Runs screens call these from thread workers.

A browser row is one score: (run, seed, sample, metric). Rows come in one stable order,
``(run_id, seed_id, sample_idx, metric)``, and a page continues after the key of the
previous page's last row (keyset paging: a deep page costs what the first one does).

Every page stays fast on a million rows because every query walks an index in exactly
that order and stops after ``limit`` rows:

* runs are read one after another (``run_id = ?``), so no index needs ``run_id`` free;
* a filter on metric and/or verdict uses ``eval_scores_page_mv (run_id, metric, verdict,
  seed_id, sample_idx, ...)``; a set of metrics or verdicts (``failed`` means wrong,
  unparseable or error; for Understanding a judged score under 90) is one index-ordered
  query per (metric, verdict) pair, merged here (a k-way merge of sorted streams);
* a source filter alone uses ``eval_scores_page_sd (run_id, source, ...)``; no filter the
  table's unique key ``(run_id, seed_id, sample_idx, metric)``;
* the filters' choices (sources, difficulties) are the runs' distinct item groups, one
  seek of ``eval_items_groups (run_id, source, difficulty)`` each (a skip scan).

Texts from outside (model output, names, SMT-LIB) are returned as stored; the screens
render them with :func:`qcstation.common.safe.pane_text` and never as markup.
"""

from __future__ import annotations

import heapq
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from db import Store
from qcstation.common.errors import QCStationError
from qcstation.eval import item_values
from qcstation.eval.outputs import prompt_messages
from qcstation.eval.protocols import protocol_label
from qcstation.eval.provenance import describe
from qcstation.eval.runs import (RunContext, effective_status, load_spec, release_label, run_label,
                                 run_short_label)
from qcstation.eval.types import LABELS as METRIC_LABELS
from qcstation.eval.types import (ALL_PASS_UNDERSTANDING, METRICS, NOT_MODEL_VERDICTS, STORED_METRICS,
                                   TASK_METRICS, TASK_SCORES, VERDICTS)

#: Verdicts that count as a failed metric (``not_scored`` is not a failure: nothing was judged).
#: the model's failures (judge_error, invalid_item, checker_error are not: see NOT_MODEL_VERDICTS)
FAILED_VERDICTS: tuple[str, ...] = ("wrong", "unparseable", "error", "trivial")
#: A page never holds more rows than this.
MAX_PAGE = 500

Key = tuple[int, int, int, str]          # (run_id, seed_id, sample_idx, metric)


class BrowseError(QCStationError):
    pass


# -- filters and pages ----------------------------------------------------------------
@dataclass(frozen=True)
class Filters:
    """What the browser shows. Empty fields do not filter.

    ``failed``: only rows whose metric failed (verdict wrong, unparseable or error; for
    ``un`` also a judged score under 90). With ``metric`` set, that metric's failures.
    ``text``: words in the model's response (a full-text search, :mod:`qcstation.eval.search`;
    :func:`page` does not read it)."""

    run_ids: tuple[int, ...] = ()
    metric: str | None = None
    failed: bool = False
    verdict: str | None = None
    source: str | None = None
    difficulty: str | None = None
    text: str = ""

    def check(self) -> None:
        if self.metric is not None and self.metric not in STORED_METRICS:
            raise BrowseError(f"unknown metric {self.metric!r}; one of {', '.join(STORED_METRICS)}",
                              title="Bad filter")
        if self.verdict is not None and self.verdict not in VERDICTS:
            raise BrowseError(f"unknown verdict {self.verdict!r}; one of {', '.join(VERDICTS)}",
                              title="Bad filter")

    def describe(self) -> str:
        parts = []
        if self.run_ids:
            parts.append("run " + ", ".join(f"#{r}" for r in self.run_ids))
        if self.failed:
            parts.append(f"failed {METRIC_LABELS.get(self.metric or '', 'any metric')}")
        elif self.metric:
            parts.append(METRIC_LABELS[self.metric])
        if self.verdict:
            parts.append(self.verdict)
        if self.source:
            parts.append(f"source {self.source}")
        if self.difficulty:
            parts.append(self.difficulty)
        if self.text:
            parts.append(f"responses with {self.text!r}")
        return " · ".join(parts) or "everything"


@dataclass(frozen=True)
class ResultRow:
    run_id: int
    run_label: str
    seed_id: int
    item_key: str
    sample_idx: int
    metric: str
    verdict: str
    score: float | None
    extracted: str | None
    source: str
    difficulty: str | None

    @property
    def key(self) -> Key:
        return (self.run_id, self.seed_id, self.sample_idx, self.metric)

    @property
    def failed(self) -> bool:
        return metric_failed(self.metric, self.verdict, self.score)


@dataclass
class Page:
    rows: list[ResultRow]
    has_more: bool
    after: Key | None           # pass as ``after`` for the next page (None: no rows)


def metric_failed(metric: str, verdict: str, score: float | None) -> bool:
    if verdict in FAILED_VERDICTS:
        return True
    if metric == "un" and verdict == "correct":
        return score is None or float(score) < ALL_PASS_UNDERSTANDING
    return False


_METRIC_RANK = {metric: n for n, metric in enumerate(STORED_METRICS)}
_COLUMNS = "run_id, seed_id, sample_idx, metric, verdict, score, extracted, source, difficulty"


def _branches(filters: Filters) -> list[tuple[str, list[Any]]]:
    """(SQL condition, params) per index-ordered stream; an empty condition is the whole run."""
    metrics = [filters.metric] if filters.metric else list(STORED_METRICS)
    if not filters.failed and filters.verdict is None:
        if filters.metric is None:
            return [("", [])]
        return [("metric = ?", [filters.metric])]
    branches: list[tuple[str, list[Any]]] = []
    for metric in metrics:
        verdicts = [filters.verdict] if filters.verdict else list(VERDICTS)
        for verdict in verdicts:
            if not filters.failed:
                branches.append(("metric = ? AND verdict = ?", [metric, verdict]))
            elif verdict in FAILED_VERDICTS:
                branches.append(("metric = ? AND verdict = ?", [metric, verdict]))
            elif metric == "un" and verdict == "correct":
                branches.append(("metric = ? AND verdict = ? AND (score IS NULL OR score < ?)",
                                 [metric, verdict, ALL_PASS_UNDERSTANDING]))
    return branches


def _where(run_id: int, condition: str, params: list[Any], filters: Filters) -> tuple[list[str], list[Any]]:
    """One stream's conditions and their arguments: the run, the branch's condition, and the
    source and difficulty filters."""
    where = ["run_id = ?", *([condition] if condition else [])]
    args: list[Any] = [run_id, *params]
    if filters.source is not None:
        where.append("source = ?")
        args.append(filters.source)
    if filters.difficulty is not None:
        where.append("difficulty = ?")
        args.append(filters.difficulty)
    return where, args


def _run_ids(store: Store, filters: Filters) -> list[int]:
    """The runs ``filters`` names, or every run, in id order."""
    if filters.run_ids:
        return sorted(set(int(r) for r in filters.run_ids))
    return [int(r[0]) for r in store.execute("SELECT id FROM eval_runs ORDER BY id")]


def _stream(store: Store, run_id: int, condition: str, params: list[Any], filters: Filters,
            after: Key | None, limit: int) -> list[tuple[Any, ...]]:
    where, args = _where(run_id, condition, params, filters)
    if after is not None and after[0] == run_id:
        _, seed_id, sample_idx, metric = after
        where.append("seed_id >= ? AND (seed_id > ? OR sample_idx > ? OR "
                     "(sample_idx = ? AND metric > ?))")
        args += [seed_id, seed_id, sample_idx, sample_idx, metric]
    sql = (f"SELECT {_COLUMNS} FROM eval_scores WHERE {' AND '.join(where)} "
           "ORDER BY seed_id, sample_idx, metric LIMIT ?")
    args.append(limit)
    return [tuple(r) for r in store.execute(sql, args).fetchall()]


def page(store: Store, filters: Filters, after: Key | None = None,
         limit: int = 50) -> Page:
    """Up to ``limit`` rows matching ``filters`` that come after the key ``after``."""
    filters.check()
    limit = max(1, min(int(limit), MAX_PAGE))
    run_ids = _run_ids(store, filters)
    if after is not None:
        run_ids = [r for r in run_ids if r >= after[0]]
    branches = _branches(filters)
    if not branches:                     # contradictory filters (failed and correct)
        run_ids = []
    raw: list[tuple[Any, ...]] = []
    want = limit + 1
    for run_id in run_ids:
        streams = [_stream(store, run_id, cond, params, filters, after, want - len(raw))
                   for cond, params in branches]
        merged: Iterator[tuple[Any, ...]] = (heapq.merge(*streams, key=lambda r: r[:4])
                                             if len(streams) > 1 else iter(streams[0]))
        for row in merged:
            raw.append(row)
            if len(raw) >= want:
                break
        if len(raw) >= want:
            break
    has_more = len(raw) > limit
    raw = raw[:limit]
    next_after: Key | None = (
        (int(raw[-1][0]), int(raw[-1][1]), int(raw[-1][2]), str(raw[-1][3])) if raw else None)
    # shown in the dimension order (Un, Re, Ar, R-t, R-m, Fi) within an item; the keyset
    # continues after the last row in index order, so no row is lost or shown twice
    raw.sort(key=lambda r: (r[0], r[1], r[2], _METRIC_RANK.get(str(r[3]), 99)))
    return Page(decorate(store, raw), has_more, next_after)


#: counts stop here (a count is shown as "N+" past it)
COUNT_CAP = 1_000_000


def count(store: Store, filters: Filters, cap: int = COUNT_CAP) -> tuple[int, bool]:
    """(rows matching ``filters``, exact?) without the text search: summed over the same
    index-ordered streams :func:`page` reads (from the kept verdict counts where they hold
    a stream, :func:`_kept_count`), stopping at ``cap`` (then not exact)."""
    filters.check()
    run_ids = _run_ids(store, filters)
    total = 0
    for run_id in run_ids:
        for condition, params in _branches(filters):
            kept = _kept_count(store, run_id, condition, params, filters)
            if kept is not None:
                total += kept
            else:
                where, args = _where(run_id, condition, params, filters)
                left = cap - total + 1
                total += int(store.execute(
                    f"SELECT COUNT(*) FROM (SELECT 1 FROM eval_scores WHERE "
                    f"{' AND '.join(where)} LIMIT ?)", [*args, left]).fetchone()[0])
            if total > cap:
                return cap, False
    return total, True


def counts_version(store: Store, filters: Filters) -> tuple[Any, ...]:
    """What :func:`count` of ``filters`` reads, as far as a few index lookups can tell: equal
    versions, equal counts. The runs' kept verdict counts (any score added, deleted or given
    another verdict, by any writer: triggers), the last score row and the last event (a
    rescore that keeps every verdict logs one: ``eval.scored``). A count takes a pass over a
    run's rows where these take microseconds: a reader keeps counts by filters and version."""
    run_ids = _run_ids(store, filters)
    marks = ",".join("?" * len(run_ids))
    kept = tuple(tuple(r) for r in store.execute(
        f"SELECT run_id, metric, verdict, n FROM eval_score_counts WHERE run_id IN ({marks}) "
        "ORDER BY run_id, metric, verdict", run_ids)) if run_ids else ()
    return (tuple(run_ids), kept, store.scalar("SELECT MAX(id) FROM eval_scores"),
            store.scalar("SELECT MAX(id) FROM events"))



def items_version(store: Store, run_ids: Sequence[int]) -> tuple[Any, ...]:
    """What :func:`item_detail` of the runs ``run_ids`` reads that a writer changes, as far
    as a few index lookups can tell: the runs' kept verdict and reply counts (a score or an
    output added, deleted, or given another verdict or status: triggers), the last score,
    output and event rows (a rescore that keeps every verdict logs ``eval.scored``). An item
    read while these held is read again only where they moved: the results browser keeps
    the items read with a page for the next one (the metric key's pages open on the same
    items)."""
    runs = sorted(set(run_ids))
    marks = ",".join("?" * len(runs))
    kept = tuple(tuple(r) for r in store.execute(
        f"SELECT run_id, metric, verdict, n FROM eval_score_counts WHERE run_id IN ({marks}) "
        "ORDER BY run_id, metric, verdict", runs)) if runs else ()
    replies = tuple(tuple(r) for r in store.execute(
        f"SELECT run_id, status, length, n FROM eval_reply_counts WHERE run_id IN ({marks}) "
        "ORDER BY run_id, status, length", runs)) if runs else ()
    return (tuple(runs), kept, replies, store.scalar("SELECT MAX(id) FROM eval_scores"),
            store.scalar("SELECT MAX(id) FROM eval_outputs"),
            store.scalar("SELECT MAX(id) FROM events"))


#: the branch conditions whose rows the kept verdict counts hold (``eval_score_counts``:
#: db/kept_eval.py), as (metric, verdict) equalities
_KEPT_CONDITIONS = {"": (), "metric = ?": ("metric",),
                    "metric = ? AND verdict = ?": ("metric", "verdict")}


def _kept_count(store: Store, run_id: int, condition: str, params: list[Any],
                filters: Filters) -> int | None:
    """A stream's rows from the kept verdict counts, when they hold it (no source or
    difficulty filter, no score condition), else None: reading them is one index lookup
    where counting the scores is a pass over the run's rows (0.1 to 0.3 s at 1M)."""
    columns = _KEPT_CONDITIONS.get(condition)
    if columns is None or filters.source is not None or filters.difficulty is not None:
        return None
    where = " AND ".join(["run_id = ?", *(f"{c} = ?" for c in columns)])
    return int(store.scalar(f"SELECT COALESCE(SUM(n), 0) FROM eval_score_counts WHERE {where}",
                            [run_id, *params]) or 0)


def decorate(store: Store, raw: list[tuple[Any, ...]]) -> list[ResultRow]:
    """Rows of eval_scores columns (run_id, seed_id, sample_idx, metric, verdict, score,
    extracted, source, difficulty) as :class:`ResultRow`, with run labels and item keys."""
    if not raw:
        return []
    run_ids = sorted({int(r[0]) for r in raw})
    marks = ",".join("?" for _ in run_ids)
    labels = {int(r["id"]): run_short_label(r) for r in store.query(
        f"SELECT id, name, model FROM eval_runs WHERE id IN ({marks})", run_ids)}
    keys: dict[tuple[int, int], str] = {}
    for run_id in run_ids:
        seeds = sorted({int(r[1]) for r in raw if int(r[0]) == run_id})
        seed_marks = ",".join("?" for _ in seeds)
        for r in store.execute(
                f"SELECT seed_id, item_key FROM eval_items WHERE run_id = ? "
                f"AND seed_id IN ({seed_marks})", [run_id, *seeds]):
            keys[(run_id, int(r[0]))] = str(r[1])
    return [ResultRow(run_id=int(r[0]), run_label=labels.get(int(r[0]), f"#{r[0]}"),
                      seed_id=int(r[1]), item_key=keys.get((int(r[0]), int(r[1])), f"seed {r[1]}"),
                      sample_idx=int(r[2]), metric=str(r[3]), verdict=str(r[4]),
                      score=None if r[5] is None else float(r[5]),
                      extracted=None if r[6] is None else str(r[6]),
                      source=str(r[7]), difficulty=None if r[8] is None else str(r[8]))
            for r in raw]


def filter_choices(store: Store, run_ids: Iterable[int] = (), *,
                   from_scratch: bool = False) -> dict[str, list[str]]:
    """Sources and difficulties present in the runs' items (for the filter pickers), from
    their distinct (run, source, difficulty) groups found by seeks of ``eval_items_groups``
    (:func:`_item_groups`: one seek a group, where a DISTINCT read every item: 100,000 at 1M
    scores, 0.1 s of CPU and 0.4-0.8 s of wall on a cold cache, in the results browser's
    first frame); ``from_scratch`` reads every item (the seeks' oracle in tests)."""
    ids = [int(r) for r in run_ids]
    if from_scratch:
        where, args = "", []
        if ids:
            where = f" WHERE run_id IN ({','.join('?' for _ in ids)})"
            args = ids
        sources = [str(r[0]) for r in store.execute(
            f"SELECT DISTINCT source FROM eval_items{where} ORDER BY source", args)]
        levels = [str(r[0]) for r in store.execute(
            f"SELECT DISTINCT difficulty FROM eval_items{where} ORDER BY difficulty", args)
            if r[0] is not None]
    else:
        groups = _item_groups(store, ids)
        sources = sorted({str(s) for s, _ in groups})
        levels = sorted({str(d) for _, d in groups if d is not None})
    order = {"easy": 0, "medium": 1, "hard": 2}
    levels.sort(key=lambda d: (order.get(d, 9), d))
    return {"source": sources, "difficulty": levels}


def _item_groups(store: Store, run_ids: list[int]) -> set[tuple[str, str | None]]:
    """The distinct (source, difficulty) of the items of ``run_ids`` (every run's when
    empty), each found by one seek of the index ``eval_items_groups`` (run_id, source,
    difficulty) past the one before (a skip scan; NULL difficulties sort first)."""
    def first(where: str, args: list[Any]) -> Any:
        return store.execute(f"SELECT source, difficulty FROM eval_items WHERE run_id = ? "
                             f"{where} ORDER BY source, difficulty LIMIT 1", args).fetchone()

    def runs() -> Iterator[int]:
        run = store.scalar("SELECT MIN(run_id) FROM eval_items")
        while run is not None:
            yield int(run)
            run = store.scalar("SELECT MIN(run_id) FROM eval_items WHERE run_id > ?", (run,))

    groups: set[tuple[str, str | None]] = set()
    for run_id in sorted(set(run_ids)) if run_ids else runs():
        row = first("", [run_id])
        while row is not None:
            source, difficulty = str(row[0]), row[1]
            groups.add((source, None if difficulty is None else str(difficulty)))
            # the source's next difficulty, else the run's next source
            row = (first("AND source = ? AND difficulty IS NOT NULL", [run_id, source])
                   if difficulty is None else
                   first("AND source = ? AND difficulty > ?", [run_id, source, difficulty]))
            if row is None:
                row = first("AND source > ?", [run_id, source])
    return groups


# -- one item in detail ------------------------------------------------------------------
@dataclass
class ScoreDetail:
    metric: str
    verdict: str
    score: float | None
    extracted: str | None
    gold: str | None
    scorer_version: str
    detail: dict[str, Any]

    @property
    def label(self) -> str:
        return METRIC_LABELS.get(self.metric, self.metric)

    @property
    def failed(self) -> bool:
        return metric_failed(self.metric, self.verdict, self.score)


#: a fenced SMT-LIB block of a model's response
SMTLIB_BLOCK = re.compile(r"```(?:smt2?|smtlib|smt-lib|lisp|scheme)?\s*\n(.*?)```", re.S | re.I)


@dataclass
class TaskDetail:
    task: str
    status: str                          # ok | error | missing (not asked yet)
    prompt: list[dict[str, str]] | None
    prompt_note: str | None              # why the prompt cannot be shown
    response: str | None
    error: str | None
    finish_reason: str | None
    cached: bool
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    scores: list[ScoreDetail] = field(default_factory=list)
    #: what :meth:`smtlib` found, once found (a tuple: None is an answer too)
    _smtlib: tuple[str | None] | None = field(default=None, init=False, repr=False,
                                              compare=False)

    def smtlib(self) -> str | None:
        """The model's SMT-LIB as the scorer recorded it (any ``smt``-named key of a score's
        detail), else the fenced block of the raw response. Found once: the item pane renders
        the task again at each of its keys (the response's regex: ~0.7 ms at 1M scores)."""
        if self._smtlib is None:
            self._smtlib = (self._find_smtlib(),)
        return self._smtlib[0]

    def _find_smtlib(self) -> str | None:
        for score in self.scores:
            for key, value in sorted(score.detail.items()):
                if "smt" in key.lower() and isinstance(value, str) and value.strip():
                    return value
        if self.task == "reasoning" and self.response:
            match = SMTLIB_BLOCK.search(self.response)
            if match:
                return match.group(1)
        return None


@dataclass
class ItemDetail:
    run_id: int
    run_label: str
    seed_id: int
    item_key: str
    sample_idx: int
    source: str
    difficulty: str | None
    question: str | None
    tasks: list[TaskDetail]
    #: how the run measured (release, model, protocol, judges: provenance.Provenance.line)
    provenance: str = ""

    def task(self, name: str) -> TaskDetail | None:
        return next((t for t in self.tasks if t.task == name), None)


def _loads(text: Any) -> Any:
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def gold_for(metric: str, record: dict[str, Any], detail: dict[str, Any]) -> str | None:
    """The reference a metric was judged against: what the scorer recorded (``gold``,
    ``reference``, ``expected``), else the frozen record's field for that task."""
    for key in ("gold", "reference", "expected", "gold_answer"):
        if detail.get(key) not in (None, ""):
            return _text(detail[key])
    if metric == "un":
        return _text(record.get("background"))
    if metric == "rt":
        return _text(record.get("wrong"))
    if metric in ("re", "ar", "rm", "fi"):
        value = record.get("answer")
        gt = record.get("gt_answer")
        if metric == "fi" and gt not in (None, ""):
            return _text(gt)
        return _text(value if value not in (None, "") else gt)
    return None


def _prompt(store: Store, run_id: int, seed_id: int, task: str, sample_idx: int,
            ctx: RunContext | None = None) -> tuple[list[dict[str, str]] | None, str | None]:
    try:
        messages = prompt_messages(store, run_id, seed_id, task, sample_idx, ctx)
    except QCStationError as exc:
        return None, f"The prompt cannot be rebuilt: {exc}"
    return [{"role": str(m.get("role", "")), "content": str(m.get("content", ""))}
            for m in messages], None


def item_detail(store: Store, run_id: int, seed_id: int, sample_idx: int = 0, *,
                contexts: dict[int, RunContext] | None = None) -> ItemDetail | None:
    """Everything stored about one (run, item, sample): per task the prompt, the raw
    response (or the request's error), and per metric the verdict, score, what was
    extracted, the gold and the scorer's detail. None when the run has no such item.
    ``contexts``: the runs' contexts a caller keeps between items, by run id (taken from it
    and added to it): building one renders every task's exemplars, 80% of an item's read."""
    run = store.one("SELECT id, name, model FROM eval_runs WHERE id = ?", (run_id,))
    item = store.one("SELECT * FROM eval_items WHERE run_id = ? AND seed_id = ?",
                     (run_id, seed_id))
    if run is None or item is None:
        return None
    record = _loads(item["record"]) or {}
    if not isinstance(record, dict):
        record = {}
    outputs = {str(o["task"]): o for o in store.query(
        "SELECT * FROM eval_outputs WHERE run_id = ? AND seed_id = ? AND sample_idx = ?",
        (run_id, seed_id, sample_idx))}
    scores: dict[str, dict[str, Any]] = {str(s["metric"]): s for s in store.query(
        "SELECT * FROM eval_scores WHERE run_id = ? AND seed_id = ? AND sample_idx = ?",
        (run_id, seed_id, sample_idx))}
    spec = load_spec(store.scalar("SELECT spec FROM eval_runs WHERE id = ?", (run_id,)))
    run_tasks = spec.get("tasks") if isinstance(spec, dict) else None
    tasks = [t for t in TASK_METRICS if not isinstance(run_tasks, list) or t in run_tasks
             or t in outputs]
    details: list[TaskDetail] = []
    kept = contexts.get(run_id) if contexts is not None else None
    ctx: RunContext | None = kept.bound(store) if kept is not None else None
    if ctx is None:
        try:    # one context for every task's prompt (each one renders the exemplars)
            ctx = RunContext(store, run_id)
        except QCStationError:
            ctx = None                  # each prompt then says why it cannot be rebuilt
        if ctx is not None and contexts is not None:
            contexts[run_id] = ctx      # kept as built; this read uses a copy of it
            ctx = ctx.bound(store)
    for task in tasks:
        out = outputs.get(task)
        prompt, note = _prompt(store, run_id, seed_id, task, sample_idx, ctx)
        task_scores = []
        for metric in TASK_SCORES[task]:        # flexible and strict answers both shown
            s = scores.get(metric)
            if s is None:
                continue
            detail = _loads(s["detail"])
            detail = detail if isinstance(detail, dict) else {}
            task_scores.append(ScoreDetail(
                metric=metric, verdict=str(s["verdict"]),
                score=None if s["score"] is None else float(s["score"]),
                extracted=s["extracted"], gold=gold_for(metric, record, detail),
                scorer_version=str(s["scorer_version"]), detail=detail))
        details.append(TaskDetail(
            task=task, status=str(out["status"]) if out else "missing", prompt=prompt,
            prompt_note=note, response=out["response"] if out else None,
            error=out["error"] if out else None,
            finish_reason=out["finish_reason"] if out else None,
            cached=bool(out["cached"]) if out else False,
            latency_ms=out["latency_ms"] if out else None,
            prompt_tokens=out["prompt_tokens"] if out else None,
            completion_tokens=out["completion_tokens"] if out else None,
            scores=task_scores))
    return ItemDetail(run_id=run_id, run_label=run_label(run), seed_id=seed_id,
                      item_key=str(item["item_key"]), sample_idx=sample_idx,
                      source=str(item["source"]), difficulty=item["difficulty"],
                      question=_text(record.get("question")), tasks=details,
                      provenance=describe(store, run_id).line())


def side_by_side(store: Store, run_a: int, run_b: int, seed_id: int,
                 sample_idx: int = 0) -> tuple[ItemDetail | None, ItemDetail | None]:
    """The same item in two runs (None for a run that did not evaluate it)."""
    return (item_detail(store, run_a, seed_id, sample_idx),
            item_detail(store, run_b, seed_id, sample_idx))


# -- runs ------------------------------------------------------------------------------
@dataclass
class Headline:
    """A metric's point estimate over stored scores: accuracy (0..1) for most metrics,
    the mean judge score (1..100) for ``un``; None when nothing was scored."""

    value: float | None
    n: int                                 # rows in the denominator
    counts: dict[str, int]

    @property
    def failed(self) -> int:
        """Understanding: item-samples whose reply failed or was unreadable (no score; kept
        apart from the judged mean, as the leaderboard does)."""
        return sum(self.counts.get(v, 0) for v in ("error", "unparseable"))


@dataclass
class RunSummary:
    run_id: int
    label: str
    model: str
    name: str | None
    backend: str | None
    release: str
    status: str
    n_items: int
    n_requests: int
    outputs_ok: int
    outputs_error: int
    started_at: str | None
    finished_at: str | None
    heartbeat_at: str | None
    error: str | None
    headline: dict[str, Headline]
    #: how it asked (``3-shot, t=0, 2-step R&R``: :func:`~qcstation.eval.protocols.protocol_label`);
    #: '' for a run made before its spec was recorded
    protocol: str = ""

    @property
    def outputs_done(self) -> int:
        return self.outputs_ok + self.outputs_error

    @property
    def resumable(self) -> bool:
        """Not finished and nobody is running it now (a stopped, failed or killed run), or
        answered and not scored (``unscored``: resuming it scores it)."""
        if self.status == "unscored":
            return True
        return self.status not in ("done", "running") and \
            self.outputs_done < max(self.n_requests, 1)


def headline(store: Store, run_id: int, *, from_scratch: bool = False) -> dict[str, Headline]:
    """Per metric, as the leaderboard computes it: each item's mean over its counted
    samples, then the mean over items (errors count 0; ``not_scored`` rows and failures that
    are not the model's — ``judge_error``, ``invalid_item``, ``checker_error`` — are left
    out); Understanding as the mean judged score (a failed or unreadable reply has none:
    ``Headline.failed``, apart). ``rm`` is the paper's gated ACC@R-m: only rows
    whose reflection (rt) is correct. ``n`` counts items; ``counts`` are verdicts per row.

    Read from the run's items counted by their verdicts (migration 21: a few hundred rows,
    where the item-sample rows of migration 14 are one per item-sample) and its verdict counts,
    in plain Python (``item_values.headline_means``: no numpy import and no table of every
    item-sample, 0.28 s of CPU for the first runs list at 1M scores, 0.06 s after);
    ``from_scratch`` reads every score row again."""
    if from_scratch:
        return _headline_from_scratch(store, run_id)
    if not item_values.usable():       # a stored metric the signatures lack: its rows
        return _headline_from_table(store, run_id)
    # the means from the counted signatures themselves (a few rows): no numpy, no table of
    # every item-sample (the runs screen's first frame, issue 28.7)
    means = item_values.headline_means(item_values.headline_rows(store, run_id), METRICS)
    counts_of: dict[str, dict[str, int]] = {m: {} for m in STORED_METRICS}
    for metric, verdict, c in item_values.verdict_counts(store, run_id):
        counts_of.setdefault(metric, {})[verdict] = c
    out: dict[str, Headline] = {}
    for metric in METRICS:
        counts = dict(counts_of.get(metric, {}))
        value, n = means[metric]
        n = 0 if _never_judged(metric, counts) else n
        out[metric] = Headline(value if n else None, n, counts)
    return out


def _headline_from_table(store: Store, run_id: int) -> dict[str, Headline]:
    """:func:`headline` from the run's table of counted items (numpy)."""
    import numpy as np

    from qcstation.eval import metrics   # numpy: only once a headline is asked for

    table = metrics.load_run_kept(store, run_id)
    out: dict[str, Headline] = {}
    for metric in METRICS:
        counts = dict(table.counts.get(metric, {}))
        values = table.item_values(metric)
        values = np.sort(values[values == values])     # the items that count (not NaN), as
        # metrics.interval takes them: sorted, so the mean does not depend on their order
        n = 0 if _never_judged(metric, counts) else int(values.shape[0])
        out[metric] = Headline(float(values.mean()) if n else None, n, counts)
    return out


def _never_judged(metric: str, counts: dict[str, int]) -> bool:
    """Understanding left unjudged (no judge configured) on every item-sample that has a
    reply, or any metric whose every counted row is a failed request (no reply at all): not
    computed, never the 0 its failed requests alone would make."""
    if counts.get("error", 0) and not any(counts.get(v, 0) for v in ("correct", "wrong", "unparseable",
                                                                        "trivial")):
        return True
    return (metric == "un" and counts.get("not_scored", 0) > 0
            and not counts.get("correct", 0) and not counts.get("wrong", 0))


def _headline_from_scratch(store: Store, run_id: int) -> dict[str, Headline]:
    """:func:`headline` from every score row of the run (the kept figures' oracle in tests)."""
    left_out = ", ".join(f"'{v}'" for v in ("not_scored", *NOT_MODEL_VERDICTS))
    counts_rows = store.query(
        "SELECT metric, verdict, COUNT(*) AS n FROM eval_scores WHERE run_id = ? "
        "GROUP BY metric, verdict", (run_id,))
    value = ("CASE WHEN s.metric = 'un' THEN COALESCE(s.score, 0.0) "
             "WHEN s.verdict = 'correct' THEN 1.0 ELSE 0.0 END")
    gate = ("(s.metric != 'rm' OR EXISTS (SELECT 1 FROM eval_scores t WHERE t.run_id = s.run_id "
            "AND t.seed_id = s.seed_id AND t.sample_idx = s.sample_idx AND t.metric = 'rt' "
            "AND t.verdict = 'correct'))")
    means = {str(r["metric"]): (r["v"], int(r["n"])) for r in store.query(
        f"SELECT metric, AVG(v) AS v, COUNT(*) AS n FROM (SELECT s.metric AS metric, "
        f"AVG({value}) AS v FROM eval_scores s WHERE s.run_id = ? AND s.verdict NOT IN ({left_out}) "
        f"AND NOT (s.metric = 'un' AND s.verdict IN ('error', 'unparseable')) "
        f"AND {gate} GROUP BY s.metric, s.seed_id) GROUP BY metric", (run_id,))}
    out: dict[str, Headline] = {}
    for metric in METRICS:
        counts = {str(r["verdict"]): int(r["n"]) for r in counts_rows if r["metric"] == metric}
        v, n = means.get(metric, (None, 0))
        n = 0 if _never_judged(metric, counts) else n
        out[metric] = Headline(None if not n else float(v), n, counts)
    return out


def list_runs(store: Store, *, headline_for: set[int] | None = None) -> list[RunSummary]:
    """Every run, newest first, with progress and headline numbers. A ``running`` run
    whose owner lost the runner's lease (killed, or silent for a minute) is ``stopped``.

    The headline numbers are read from each run's items counted by their verdicts (a few
    hundred rows: :func:`headline`); with ``headline_for`` only those runs get them (the others an empty dict), so a screen
    that polls while a run goes on re-reads only what can have changed."""
    runs = store.query("SELECT * FROM eval_runs ORDER BY id DESC")
    progress: dict[int, dict[str, int]] = {}
    for r in store.query("SELECT run_id, status, SUM(n) AS n FROM eval_reply_counts "
                         "GROUP BY run_id, status"):   # kept by migration 15
        progress.setdefault(int(r["run_id"]), {})[str(r["status"])] = int(r["n"])
    out = []
    for run in runs:
        spec = load_spec(run.get("spec"))
        done = progress.get(int(run["id"]), {})
        out.append(RunSummary(
            run_id=int(run["id"]), label=run_label(run), model=str(run["model"]),
            name=run.get("name"), backend=run.get("backend"), release=release_label(spec),
            status=effective_status(run), n_items=int(run.get("n_items") or 0),
            n_requests=int(run.get("n_requests") or 0), outputs_ok=done.get("ok", 0),
            outputs_error=done.get("error", 0), started_at=run.get("started_at"),
            finished_at=run.get("finished_at"), heartbeat_at=run.get("heartbeat_at"),
            error=run.get("error"),
            headline=(headline(store, int(run["id"]))
                      if headline_for is None or int(run["id"]) in headline_for else {}),
            protocol=protocol_label(spec) if spec else ""))
    return out


def run_labels(store: Store, run_ids: Sequence[int] | None = None) -> list[tuple[int, str]]:
    """Each run's id and label (:func:`~qcstation.eval.runs.run_label`: with what it
    measured), in id order: every run's, or those of ``run_ids``."""
    sql = "SELECT id, name, model, spec FROM eval_runs"
    params: tuple[int, ...] = ()
    if run_ids is not None:
        params = tuple(int(r) for r in run_ids)
        if not params:
            return []
        sql += f" WHERE id IN ({', '.join('?' * len(params))})"
    return [(int(r["id"]), run_label(r)) for r in store.query(sql + " ORDER BY id", params)]
