"""Metrics over a run's scores: leaderboard with bootstrap CIs, breakdowns, confusion
matrices, paired comparison (exact McNemar) and Spearman correlation across runs.

Everything here reads a run's scores (``eval_scores``, schema v4) through the figures migration
14 keeps of them (``eval_pairs``, ``eval_score_counts``: db/kept_eval.py), and writes nothing. No
Textual import: the CLI, the report and the results screen call these functions.

Per-item values
---------------
Scores are read once per run, aggregated in SQL to one row per (seed, sample):

* ``un`` (LLM@Un, 1..100): the judges' mean the scorer stored, over the judged
  item-samples only. A row with verdict ``not_scored`` (no judge configured) is left out; a
  failed or unparseable reply of the model (verdict ``error`` / ``unparseable``: nothing was
  judged) has no score on the 1..100 scale: it is kept apart, counted as
  ``MetricValue.failed`` ("n failed"), never averaged in as a 0. It fails All-Pass (the item
  has no Understanding >= 90), and ``compare`` reads LLM@Un >= 90 over judged replies, the
  failed ones counted apart there too.
* ``re``, ``ar``, ``rt``, ``rm``, ``fi`` (ACC@*): 1 when the verdict is ``correct``, else 0
  (``wrong``, ``unparseable`` and ``error`` all count 0 and stay in the denominator);
  ``not_scored`` rows are left out.
* ``all`` (ACC@All, All-Pass) per (item, sample): un >= 90 and re, ar, rt, rm correct.
  When Understanding is not scored (not run, or ``not_scored`` for any item-sample),
  ``all`` is not scored (value ``None``, never a made-up number); ``all_no_un`` gives the
  All-Pass over re, ar, rt and rm alone, labelled as such.
* a code read through a gate (``rm``, ``rm_s``, ``rm_keep``, ``rm_change``: its record's
  ``gate``) counts only the item-samples where the gate is correct (ACC@R-m as in SMART:
  over the item-samples whose reflection is correct).

Each code's record (``qcstation.eval.types.METRIC``) says which of these it is.

With several samples per item the values are averaged over an item's samples first, then
over items; ``n`` is the number of items. A metric whose task was not run (no score rows)
has value ``None``, not 0.

Confidence intervals
--------------------
Percentile bootstrap (95%) over items: resampling n items with replacement and taking the
mean. The multiset drawn depends only on how many times each distinct value is drawn, so
each resample is drawn as multinomial counts over the distinct per-item values (the same
distribution as resampling indices, at a tiny fraction of the cost: 100k items cost the
same as 100). Seeded per (seed, metric, group): the same call gives the same interval.
"""

from __future__ import annotations

import math
import re as _re
import zlib
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from db.kept_eval import SIG_METRICS
from db.store import Store
from qcstation.common.errors import QCStationError
from qcstation.common.stats import wilson
from qcstation.eval.runs import finished_runs, load_spec, run_row, spec_tasks
from qcstation.eval.types import (
    ALL_PASS_UNDERSTANDING,
    CODES,
    COMPARABLE,
    LABELS,
    METRIC,
    NEEDS,
    NOT_MODEL_VERDICTS,
    STORED_METRICS,
    STRICT,
)

from qcstation.eval.item_values import (
    CODE_OF,
    EXCLUDED,
    FAILED,
    MISSING,
    NOT_MODEL_CODES,
    NOT_SCORED,
    UN_FAILED_CODES,
    VERDICT_OF,
    headline_rows,
    verdict_counts,
)
from qcstation.eval.metric_values import (
    Comparison,
    Confusion,
    Correlation,
    MetricValue,
    RunMetrics,
)

DIFFICULTY_ORDER = ("easy", "medium", "hard")
_MAX_DISTINCT_MULTINOMIAL = 4096


class MetricsError(QCStationError):
    pass


# --- reading scores -----------------------------------------------------------------------
# verdict codes in the pivot (and RunTable.verdict) and the sentinels of values that do not
# count: one table with the numpy-free readers of the kept rows (item_values)
_CODE_OF = CODE_OF
_VERDICT_OF = VERDICT_OF
_CODE_SQL = ("CASE verdict " + " ".join(f"WHEN '{k}' THEN {v}" for k, v in _CODE_OF.items())
             + " ELSE 5 END")
_NOT_MODEL_CODES = NOT_MODEL_CODES
_UN_FAILED_CODES = UN_FAILED_CODES
_MISSING, _NOT_SCORED, _EXCLUDED, _FAILED = MISSING, NOT_SCORED, EXCLUDED, FAILED


def _pivot_sql() -> str:
    cols = ["seed_id", "sample_idx",
            "COALESCE(MAX(CASE WHEN metric = 'un' THEN COALESCE(CAST(score AS REAL), 0.0) END), 0.0)",
            # whether the injected errors keep the gold answer (1), change it (0), unknown (-1)
            "COALESCE(MAX(CASE WHEN metric = 'rm' THEN json_extract(CASE WHEN json_valid(detail) "
            "THEN detail END, '$.keeps_answer') END), -1)"]
    for m in STORED_METRICS:
        cols.append(f"COALESCE(MAX(CASE WHEN metric = '{m}' THEN {_CODE_SQL} END), -1)")
    # a keeps_answer that is not a number or a boolean (a hand-edited detail) reads as unknown
    inner = (f"SELECT {', '.join(f'{c} AS c{i}' for i, c in enumerate(cols))} FROM eval_scores "
             "WHERE run_id = ? GROUP BY seed_id, sample_idx")
    rest = ", ".join(f"c{i}" for i in range(4, len(cols)))
    return (f"SELECT c0, c1, c2, CASE WHEN typeof(c3) IN ('integer', 'real') THEN c3 ELSE -1 END, {rest} "
            f"FROM ({inner}) ORDER BY c0, c1")


PIVOT_FROM_SCRATCH_SQL = _pivot_sql()
#: the same rows as kept by migration 14 (db/kept_eval.py), one per item-sample, in key order
# a keeps_answer that is not a number or a boolean (a hand-edited detail) reads as unknown
_PAIRS_SQL = ("SELECT seed_id, sample_idx, un, "
              "CASE WHEN typeof(keeps) IN ('integer', 'real') THEN keeps ELSE -1 END, "
              + ", ".join(f"v_{m}" for m in STORED_METRICS)
              + " FROM eval_pairs WHERE run_id = ? ORDER BY seed_id, sample_idx")

@dataclass
class RunTable:
    """One run's scores as arrays: one row per (seed, sample)."""

    run_id: int
    seed: np.ndarray            # int64 per pair
    sample: np.ndarray
    raw: dict[str, np.ndarray]  # metric -> float per pair; -1 missing, -2 not_scored, -3 not the model's
    verdict: dict[str, np.ndarray]  # metric -> verdict code per pair (see _CODE_OF; -1 none)
    items: np.ndarray           # distinct seed ids (sorted)
    inverse: np.ndarray         # pair -> index into items
    counts: dict[str, dict[str, int]]
    tasks: set[str] | None = None   # the tasks the run asked for (spec), None if unknown
    keeps: np.ndarray | None = None  # per pair: 1 the injected errors keep the answer, 0 change it
    two_step: bool = False          # the run's R&R protocol is two-step (spec.protocol)
    #: items numbered 0..n-1, not seed ids (:func:`load_run_kept`): no pairing across runs
    synthetic: bool = False
    _groups: dict[str, tuple[list[str], np.ndarray]] = field(default_factory=dict)

    @property
    def n_pairs(self) -> int:
        return int(self.seed.shape[0])

    def pair_values(self, code: str) -> np.ndarray:
        """Per item-sample value (NaN when it does not count) of any code (its record says
        how: :class:`qcstation.eval.types.Metric`)."""
        m = METRIC.get(code)
        if m is None:
            raise MetricsError(f"unknown metric {code!r}")
        if m.all_of:
            return self._all_pass(m.all_of)
        v = self.raw[m.reads or code]
        if m.gate is None:
            v = v.copy()
            v[v < 0] = np.nan
            return v
        # e.g. the paper's ACC@R-m: refinement counts only where reflection named every error
        keep = np.ones(self.n_pairs, dtype=bool)
        if m.keeps is not None:
            k = self.keeps if self.keeps is not None else np.full(self.n_pairs, -1.0)
            keep = k == (1.0 if m.keeps else 0.0)
        return np.where((self.raw[m.gate] == 1.0) & (v >= 0) & keep, v, np.nan)

    def _all_pass(self, of: tuple[str, ...]) -> np.ndarray:
        """All-Pass over stored metrics (``un``: a pass at >= ALL_PASS_UNDERSTANDING)."""
        out = np.ones(self.n_pairs)
        for m in of:
            v = self.raw[m]
            if m == "un":   # a failed reply has no Understanding >= 90: the item-sample fails
                out = np.where(v >= 0, (v >= ALL_PASS_UNDERSTANDING) * 1.0,
                               np.where(v == _FAILED, 0.0, np.nan)) * out
                continue
            gate = METRIC[m].gate
            if gate is not None:
                # not allowed to go on (two-step, reflection wrong): the item fails All-Pass on
                # its gate; it is not left out
                v = np.where((v == _NOT_SCORED) & (self.raw[gate] == 0.0), 0.0, v)
            out = np.where(v >= 0, out * v, np.nan)
        return out

    def item_values(self, code: str, pair_mask: np.ndarray | None = None) -> np.ndarray:
        """Per item: the mean over its counted samples (NaN when none counts)."""
        v = self.pair_values(code)
        if pair_mask is not None:
            v = np.where(pair_mask, v, np.nan)
        ok = ~np.isnan(v)
        k = self.items.shape[0]
        if k == self.n_pairs:      # one sample per item: nothing to average
            return v
        sums = np.bincount(self.inverse, weights=np.where(ok, v, 0.0), minlength=k)
        cnt = np.bincount(self.inverse, weights=ok.astype(float), minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(cnt > 0, sums / np.maximum(cnt, 1), np.nan)


def pair_rows(store: Store, run_id: int, *, from_scratch: bool = False) -> list[tuple[Any, ...]]:
    """One row per (seed, sample) of the run's scores, in that order: seed, sample, the
    Understanding score, whether the injected errors keep the answer, then a verdict code per
    stored metric. Kept by migration 14's triggers; ``from_scratch`` pivots every score row
    again (the kept rows' oracle in tests)."""
    cur = store.conn.cursor()
    cur.row_factory = None
    return cur.execute(PIVOT_FROM_SCRATCH_SQL if from_scratch else _PAIRS_SQL,
                       (int(run_id),)).fetchall()


def load_run(store: Store, run_id: int) -> RunTable:
    """The run's table: one row per item-sample, read from ``eval_pairs``."""
    row = run_row(store, run_id)
    rows = pair_rows(store, run_id)
    arr = np.array(rows, dtype=float).reshape(len(rows), 4 + len(STORED_METRICS))
    seed = arr[:, 0].astype(np.int64)
    items, inverse = np.unique(seed, return_inverse=True)
    return _run_table(store, row, arr, seed, items, inverse.reshape(-1))


def _run_table(store: Store, row: dict[str, Any], arr: np.ndarray, seed: np.ndarray,
               items: np.ndarray, inverse: np.ndarray, synthetic: bool = False) -> RunTable:
    """A :class:`RunTable` of ``arr``'s rows (seed, sample, un, keeps, a code per stored metric)."""
    run_id = int(row["id"])
    sample = arr[:, 1].astype(np.int64)
    verdict = {m: arr[:, 4 + i].astype(np.int8) for i, m in enumerate(STORED_METRICS)}
    raw: dict[str, np.ndarray] = {}
    for m, code in verdict.items():
        excluded = np.isin(code, _NOT_MODEL_CODES)
        counted = (code >= 0) & (code != 2) & ~excluded
        value = arr[:, 2] if m == "un" else (code == 1).astype(float)
        if m == "un":       # a failed reply has no score: apart, not a 0 on the 1..100 scale
            value = np.where(np.isin(code, _UN_FAILED_CODES), _FAILED, value)
        raw[m] = np.where(counted, value, np.where(
            code == 2, _NOT_SCORED, np.where(excluded, _EXCLUDED, _MISSING)))
    counts: dict[str, dict[str, int]] = {m: {} for m in STORED_METRICS}
    for metric, name, c in verdict_counts(store, run_id):
        counts.setdefault(metric, {})[name] = c
    spec = load_spec(row.get("spec"))
    protocol = spec.get("protocol")
    return RunTable(run_id, seed, sample, raw, verdict, items, inverse, counts,
                    tasks=spec_tasks(spec), keeps=arr[:, 3].copy(),
                    two_step=isinstance(protocol, dict) and protocol.get("refinement") == "two-step",
                    synthetic=synthetic)


def load_run_kept(store: Store, run_id: int) -> RunTable:
    """The run's table made from its items counted by group and verdicts (migration 21):
    each item repeated as many times as it is counted, so every figure of :func:`run_metrics`
    and :func:`breakdown` (values, intervals, counts, notes) is the one :func:`load_run`'s table
    gives, read from a few hundred rows instead of one per item-sample (100,000 at 1M scores).
    Its items are numbered 0..n-1 in no particular order (``synthetic``): it is no table to pair
    two runs item by item (:func:`compare`, :func:`confusion` take :func:`load_run`'s). A run
    whose row is gone gives the table of what is still kept of it (none: an empty table)."""
    if set(SIG_METRICS) != set(STORED_METRICS):     # a stored metric the signatures lack
        return load_run(store, run_id)
    row = store.one("SELECT id, spec FROM eval_runs WHERE id = ?", (int(run_id),)) or {
        "id": int(run_id), "spec": None}
    where = [SIG_METRICS.index(m) + 2 for m in STORED_METRICS]
    blocks: list[np.ndarray] = []
    groups: list[tuple[str, str, int]] = []
    item_samples: list[int] = []
    for source, difficulty, sig, n in headline_rows(store, run_id):
        pairs = [[float(x) for x in p.split(",")] for p in sig.split(";")]
        one = np.array([[0.0, k, p[0], p[1], *(p[i] for i in where)]
                        for k, p in enumerate(pairs)], dtype=float)
        blocks.append(np.tile(one, (n, 1)))
        groups.append((source, difficulty, n))
        item_samples.append(len(pairs))
    counts = np.array([g[2] for g in groups], dtype=np.int64)
    k = int(counts.sum())
    arr = (np.concatenate(blocks) if blocks else
           np.zeros((0, 4 + len(STORED_METRICS)), dtype=float))
    inverse = np.repeat(np.arange(k, dtype=np.int64),
                        np.repeat(np.array(item_samples, dtype=np.int64), counts))
    arr[:, 0] = inverse
    table = _run_table(store, row, arr, inverse.copy(), np.arange(k, dtype=np.int64), inverse,
                       synthetic=True)
    for key, col in (("source", 0), ("difficulty", 1)):
        names: dict[str, int] = {}
        codes = [names.setdefault(str(g[col]), len(names)) for g in groups]
        table._groups[key] = (list(names), np.repeat(np.array(codes, dtype=np.int64), counts))
    return table


# --- statistics ---------------------------------------------------------------------------
def _rng(seed: int, *parts: object) -> np.random.Generator:
    key = zlib.crc32("|".join(str(p) for p in parts).encode())
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, key])


def bootstrap_mean(values: np.ndarray, *, n_boot: int, rng: np.random.Generator
                   ) -> tuple[float, float | None, float | None]:
    """Mean of ``values`` and its percentile-bootstrap 95% interval over the values."""
    n = int(values.shape[0])
    mean = float(values.mean())
    if n_boot <= 0:
        return mean, None, None
    uniq, cnt = np.unique(values, return_counts=True)
    if uniq.shape[0] == 1:
        return mean, mean, mean
    if uniq.shape[0] <= _MAX_DISTINCT_MULTINOMIAL:
        draws = rng.multinomial(n, cnt / n, size=n_boot)
        means = draws @ uniq / n
    else:                         # many distinct values: resample indices in chunks
        chunk = max(1, 4_000_000 // n)
        parts = []
        for start in range(0, n_boot, chunk):
            idx = rng.integers(0, n, size=(min(chunk, n_boot - start), n))
            parts.append(values[idx].mean(axis=1))
        means = np.concatenate(parts)
    lo, hi = np.percentile(means, [2.5, 97.5])
    lo = float(min(max(lo, uniq[0]), mean))
    hi = float(max(min(hi, uniq[-1]), mean))
    return mean, lo, hi




def interval(code: str, values: np.ndarray, *, n_boot: int, seed: int
             ) -> tuple[float, float | None, float | None]:
    """(mean, lo, hi) of per-item values. Accuracies: Wilson. LLM@Un (1..100): percentile
    bootstrap, seeded by the values themselves (the same items give the same interval in
    the leaderboard, a breakdown and the report); when every item has the same score it
    is the Wilson interval of the mean on the 1..100 scale (a bounded variable's variance
    is at most p(1-p), so this is conservative), never zero width. ``n_boot`` 0: no interval.
    The values are taken in sorted order, so the figures do not depend on the items' order
    (a float sum does: the same items read by :func:`load_run_kept` give the same figures)."""
    values = np.sort(values)
    n = int(values.shape[0])
    mean = float(values.mean())
    if n_boot <= 0:
        return mean, None, None
    if code != "un":
        lo, hi = wilson(mean, n)
        return mean, lo, hi
    if np.unique(values).shape[0] > 1:
        key = zlib.crc32(np.ascontiguousarray(values).tobytes())
        return bootstrap_mean(values, n_boot=n_boot, rng=_rng(seed, "un", key))
    lo, hi = wilson((mean - 1.0) / 99.0, n)
    return mean, 1.0 + 99.0 * lo, 1.0 + 99.0 * hi


def _metric(table: RunTable, code: str, *, n_boot: int, seed: int,
            pair_mask: np.ndarray | None = None, group: str = "",
            counts: dict[str, dict[str, int]] | None = None) -> MetricValue:
    mv = MetricValue(code)
    if table.two_step and not METRIC[code].two_step:
        mv.note = ("not defined under the two-step protocol: only a correct reflection is asked "
                   "to refine (see ACC@R-m)")
        return mv
    pv = table.pair_values(code)
    if pair_mask is not None:
        pv = np.where(pair_mask, pv, np.nan)
    counted = ~np.isnan(pv)
    mv.n_samples = int(counted.sum())
    rec = METRIC[code]
    if rec.gate is None and not rec.all_of:         # a stored metric's verdicts as stored
        mv.counts = dict((counts if counts is not None else table.counts).get(rec.needs[0], {}))
    else:
        passed = int((pv[counted] >= 1.0).sum())
        mv.counts = {"correct": passed, "wrong": mv.n_samples - passed} if mv.n_samples else {}
    mv.not_model = _not_model(table, code, pair_mask)
    if (rec.reads or code) == "un" and not rec.all_of:
        un = table.raw["un"] if pair_mask is None else table.raw["un"][pair_mask]
        mv.failed = int((un == _FAILED).sum())
    if "un" in rec.all_of:
        reason = _all_pass_unavailable(table, pair_mask, rec.all_of)
        if reason:
            mv.counts, mv.n_samples, mv.note = {}, 0, reason
            return mv
    if (rec.reads or code) == "un" and not rec.all_of and _never_judged(table, pair_mask):
        # no judge configured: the failed requests alone would make a figure of 0
        mv.n_samples, mv.note = 0, "not computed: no judge configured ([[judges]] in qcstation.toml)"
        return mv
    if mv.n_samples and _only_failed_requests(table, code, counted):
        # every item-sample counted is a request that failed (no reply at all): a figure of 0
        # would be made of the server's failures alone (a batch of HTTP 500s: 'ACC@Fi 0.0%')
        mv.n_samples, mv.note = 0, (f"not computed: every request failed ({sum(mv.counts.values()) or mv.n_samples:,} "
                                    "item-samples, no reply); `qcstation eval resume RUN --retry-errors` "
                                    "asks them again")
        mv.counts = {}
        return mv
    iv = table.item_values(code, pair_mask)
    iv = iv[~np.isnan(iv)]
    mv.n = int(iv.shape[0])
    if mv.n == 0:
        mv.note = _why_empty(table, code, pair_mask)
        if mv.left_out:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(mv.not_model.items()))
            mv.note = (f"not scored: every item-sample was left out as not the model's failure "
                       f"({kinds})" if mv.n_samples == 0 and not mv.note.startswith("not run")
                       else mv.note + f" ({kinds} left out as not the model's failure)")
        return mv
    mv.value, mv.lo, mv.hi = interval(code, iv, n_boot=n_boot, seed=seed)
    return mv


def _not_model(table: RunTable, code: str, pair_mask: np.ndarray | None) -> dict[str, int]:
    """Item-samples of ``code`` left out because one of its inputs failed not by the model's
    doing, by the first such verdict."""
    needs = NEEDS[code]
    out: dict[str, int] = {}
    taken = np.zeros(table.n_pairs, dtype=bool)
    for m in needs:
        v = table.verdict[m]
        for name in NOT_MODEL_VERDICTS:
            hit = (v == _CODE_OF[name]) & ~taken
            if pair_mask is not None:
                hit &= pair_mask
            k = int(hit.sum())
            if k:
                out[name] = out.get(name, 0) + k
                taken |= hit
    return out


def _only_failed_requests(table: RunTable, code: str, counted: np.ndarray) -> bool:
    """Whether every item-sample ``code`` counts is a failed request (verdict ``error`` in one
    of its inputs): no reply of the model stands behind the figure."""
    failed = np.zeros(table.n_pairs, dtype=bool)
    for m in NEEDS[code]:
        failed |= table.verdict[m] == _CODE_OF["error"]
    return bool(counted.any()) and bool(failed[counted].all())      # (counted is masked already)


def _never_judged(table: RunTable, pair_mask: np.ndarray | None) -> bool:
    """Whether Understanding was left unjudged (``not_scored``: no judge configured) and no
    item-sample of it has a judge's verdict."""
    v = table.verdict["un"] if pair_mask is None else table.verdict["un"][pair_mask]
    return bool((v == _CODE_OF["not_scored"]).any()) and not bool(
        ((v == _CODE_OF["correct"]) | (v == _CODE_OF["wrong"])).any())


def _why_empty(table: RunTable, code: str, pair_mask: np.ndarray | None) -> str:
    needs = NEEDS[code]
    raw = {m: (table.raw[m] if pair_mask is None else table.raw[m][pair_mask]) for m in needs}
    missing = [m for m in needs if not (raw[m] != _MISSING).any()]
    flexible = {v: k for k, v in STRICT.items()}
    if missing and all(m in flexible for m in missing) and all(
            (table.raw[flexible[m]] != _MISSING).any() for m in missing):
        return ("not scored yet: the run was scored before strict answers existed; "
                f"`qcstation eval rescore {table.run_id}` adds them (no model is called)")
    if missing:
        asked = table.tasks
        not_asked = [m for m in missing if asked is None or METRIC[m].task not in asked]
        if not_asked or pair_mask is not None:
            return "not run: no scores for " + ", ".join(LABELS[m] for m in (not_asked or missing))
        return "not scored yet: no scores for " + ", ".join(LABELS[m] for m in missing)
    rec = METRIC[code]
    if rec.gate is not None and rec.keeps is None:
        return "no item has a correct reflection (R-m counts only after one)"
    if rec.keeps is not None:
        return ("no item with a correct reflection whose errors "
                + ("keep" if rec.keeps else "change") + " the answer")
    if code == "un" and ((table.raw["un"] if pair_mask is None else table.raw["un"][pair_mask])
                         == _FAILED).any():
        return "not scored: every Understanding reply failed or was unreadable (see 'failed')"
    if rec.stored:
        return "not scored" + (" (no judge configured)" if code == "un" else "")
    return "not scored"


def _all_pass_unavailable(table: RunTable, pair_mask: np.ndarray | None,
                          of: tuple[str, ...]) -> str | None:
    """Why an All-Pass with Understanding is not scored (None: it is)."""
    un = table.raw["un"]
    base = ~np.isnan(table._all_pass(tuple(m for m in of if m != "un")))
    if pair_mask is not None:
        base &= pair_mask
    if not base.any():
        return None
    if not (un[base] != _MISSING).any():
        return "not scored: Understanding was not run (see ACC@All w/o Un)"
    ns = int((un[base] == _NOT_SCORED).sum())
    if ns:
        return (f"not scored: Understanding not scored on {ns} of {int(base.sum())} "
                "item-samples (see ACC@All w/o Un)")
    return None


# --- public API -----------------------------------------------------------------------------
def run_metrics(store: Store, run_id: int, *, n_boot: int = 1000, seed: int = 0,
                table: RunTable | None = None) -> RunMetrics:
    row = run_row(store, run_id)
    table = table if table is not None else load_run(store, run_id)
    values = {c: _metric(table, c, n_boot=n_boot, seed=seed) for c in CODES}
    return RunMetrics(int(row["id"]), str(row["model"]), row["name"], str(row["status"]), values)


def leaderboard(store: Store, run_ids: Iterable[int] | None = None, *, n_boot: int = 1000,
                seed: int = 0) -> list[RunMetrics]:
    """Every metric of each run, with bootstrap 95% CIs over items (``None`` run_ids: every
    finished run), from each run's counted items (:func:`load_run_kept`: the figures its
    item-sample rows give, read from a few hundred rows instead of 100,000 at 1M scores)."""
    ids = finished_runs(store) if run_ids is None else [int(r) for r in run_ids]
    return [run_metrics(store, r, n_boot=n_boot, seed=seed, table=load_run_kept(store, r))
            for r in ids]


def _groups(store: Store, table: RunTable, by: str) -> tuple[list[str], np.ndarray]:
    """(group names, group index per item) for ``source`` or ``difficulty``; read once per
    table through the covering index on (run_id, source, difficulty, seed_id)."""
    if by not in ("source", "difficulty"):
        raise MetricsError(f"cannot break down by {by!r}; use source or difficulty")
    if by in table._groups:
        return table._groups[by]
    # the rows of group_rows(), as blocks of one (source, difficulty) each and their seeds
    cur = store.conn.cursor()
    cur.row_factory = None
    blocks = cur.execute("SELECT source, difficulty, COUNT(DISTINCT seed_id) FROM eval_pairs "
                         "WHERE run_id = ? GROUP BY source, difficulty ORDER BY source, difficulty",
                         (table.run_id,)).fetchall()
    sizes = np.array([int(b[2]) for b in blocks], dtype=np.int64)
    seeds = np.fromiter((r[0] for r in cur.execute(
        "SELECT seed_id FROM eval_pairs WHERE run_id = ? GROUP BY source, difficulty, seed_id "
        "ORDER BY source, difficulty, seed_id", (table.run_id,))),
        dtype=np.int64, count=int(sizes.sum()))
    k = table.items.shape[0]
    pos = np.searchsorted(table.items, seeds) if k else np.zeros(len(seeds), dtype=np.int64)
    known = pos < k
    known[known] = table.items[pos[known]] == seeds[known]
    for key, col in (("source", 0), ("difficulty", 1)):
        names: dict[str, int] = {}
        codes = np.repeat(np.array(
            [names.setdefault("(none)" if b[col] is None or b[col] == "" else str(b[col]),
                              len(names)) for b in blocks], dtype=np.int64), sizes)
        per_item = np.full(k, -1, dtype=np.int64)
        # the first (source, difficulty) row of a seed wins (they agree unless the data is odd)
        sel = np.flatnonzero(known)[::-1]
        per_item[pos[sel]] = codes[sel]
        if (per_item < 0).any():       # scores without a source row cannot happen; be safe
            per_item[per_item < 0] = names.setdefault("(none)", len(names))
        table._groups[key] = (list(names), per_item)
    return table._groups[by]


def group_rows(store: Store, run_id: int, *, from_scratch: bool = False
               ) -> list[tuple[int, Any, Any]]:
    """(seed, source, difficulty) of the run's scores by (source, difficulty, seed): from the
    kept item-sample rows (each with its first score row's), ``from_scratch`` from every score
    row. A seed's first row is the same in both; the kept rows leave out the later ones."""
    cur = store.conn.cursor()
    cur.row_factory = None
    table = "eval_scores" if from_scratch else "eval_pairs"
    return cur.execute(f"SELECT seed_id, source, difficulty FROM {table} WHERE run_id = ? "
                       "GROUP BY source, difficulty, seed_id", (int(run_id),)).fetchall()


def _natural(text: str) -> tuple[Any, ...]:
    return tuple((0, int(p), "") if p.isascii() and p.isdigit() and len(p) <= 30
                 else (1, 0, p.lower()) for p in _re.split(r"([0-9]+)", text[:200]) if p)


def group_order(keys: Iterable[str], by: str) -> list[str]:
    """easy, medium, hard first for difficulty; otherwise natural order ('level 2' before
    'level 10'); '(none)' last."""
    keys = list(keys)
    if by == "difficulty":
        rank = {d: i for i, d in enumerate(DIFFICULTY_ORDER)}
        return sorted(keys, key=lambda k: (rank.get(k, len(rank)), k == "(none)", _natural(k), k))
    return sorted(keys, key=lambda k: (k == "(none)", _natural(k), k))


def breakdown(store: Store, run_id: int, by: str = "source", *, n_boot: int = 1000,
              seed: int = 0, table: RunTable | None = None) -> dict[str, dict[str, MetricValue]]:
    """Every metric per group of items (``source`` or ``difficulty``), groups in order."""
    table = table if table is not None else load_run(store, run_id)
    names, per_item = _groups(store, table, by)
    pair_group = per_item[table.inverse]
    out: dict[str, dict[str, MetricValue]] = {}
    for g in group_order(names, by):
        mask = pair_group == names.index(g)
        if not mask.any():
            continue
        counts = {m: _code_counts(table.verdict[m][mask]) for m in STORED_METRICS}
        out[g] = {c: _metric(table, c, n_boot=n_boot, seed=seed, pair_mask=mask,
                             group=f"{by}={g}", counts=counts)
                  for c in CODES}
    return out


def _code_counts(codes: np.ndarray) -> dict[str, int]:
    found = np.bincount(codes[codes >= 0].astype(np.int64), minlength=10)
    return {_VERDICT_OF[i]: int(n) for i, n in enumerate(found) if n}


def confusion(store: Store, run_id: int, *, table: RunTable | None = None) -> dict[str, Confusion]:
    """The final answer (fi) against ``re``, ``ar`` and ``re+ar`` (both correct), counted
    over the item-samples where both sides were scored. See :class:`Confusion` for P/N."""
    table = table if table is not None else load_run(store, run_id)
    fi = table.raw["fi"]
    out: dict[str, Confusion] = {}
    dims = {"re": table.raw["re"], "ar": table.raw["ar"]}
    re_, ar_ = dims["re"], dims["ar"]
    dims["re+ar"] = np.where((re_ >= 0) & (ar_ >= 0), ((re_ == 1) & (ar_ == 1)) * 1.0, _MISSING)
    for key, d in dims.items():
        ok = (fi >= 0) & (d >= 0)
        f, v = fi[ok] == 1, d[ok] == 1
        out[key] = Confusion(tp=int((f & v).sum()), fp=int((~f & v).sum()),
                             fn=int((f & ~v).sum()), tn=int((~f & ~v).sum()))
    return out


def _item_means(table: RunTable, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """(seed ids, per-item mean over the item's counted samples) for compare(): the values
    the leaderboard averages (``un`` as the share of samples >= 90)."""
    if table.synthetic:
        raise MetricsError("a table of counted items (load_run_kept) cannot pair items")
    pv = table.pair_values(metric)
    if metric == "un":
        pv = np.where(np.isnan(pv), np.nan, (pv >= ALL_PASS_UNDERSTANDING) * 1.0)
    if "un" in METRIC[metric].all_of and _all_pass_unavailable(table, None, METRIC[metric].all_of):
        pv = np.full(table.n_pairs, np.nan)
    ok = ~np.isnan(pv)
    k = table.items.shape[0]
    sums = np.bincount(table.inverse, weights=np.where(ok, pv, 0.0), minlength=k)
    cnt = np.bincount(table.inverse, weights=ok.astype(float), minlength=k)
    has = cnt > 0
    return table.items[has], sums[has] / cnt[has]


def compare(store: Store, run_a: int, run_b: int, metric: str, *,
            tables: tuple[RunTable, RunTable] | None = None) -> Comparison:
    """Paired comparison of two runs on the items both have: per-item means (over an item's
    samples, as the leaderboard), and an exact two-sided sign test on the items where they
    differ (with one sample per item this is the exact McNemar test)."""
    from scipy.stats import binomtest

    if metric not in COMPARABLE:
        raise MetricsError(f"cannot compare on {metric!r}; use one of {', '.join(COMPARABLE)}")
    ta, tb = tables if tables is not None else (load_run(store, run_a), load_run(store, run_b))
    if not METRIC[metric].two_step and (ta.two_step or tb.two_step):
        raise MetricsError(f"{LABELS[metric]} is not defined under the two-step protocol (only a "
                           "correct reflection is asked to refine): compare on rm")
    ia, ma = _item_means(ta, metric)
    ib, mb = _item_means(tb, metric)
    common, xa, xb = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
    a, b = ma[xa], mb[xb]
    a_only = common[a > b]
    b_only = common[b > a]
    disc = int(a_only.shape[0] + b_only.shape[0])
    p = float(binomtest(int(a_only.shape[0]), disc, 0.5).pvalue) if disc else 1.0
    note = None
    if common.shape[0] == 0:
        note = "no item scored on this metric in both runs"
    one = (a == 1.0) & (b == 1.0)
    zero = (a == 0.0) & (b == 0.0)
    return Comparison(
        run_a=int(run_a), run_b=int(run_b), metric=metric, n=int(common.shape[0]),
        a_correct=int(round(float(a.sum()))), b_correct=int(round(float(b.sum()))),
        both_correct=int(one.sum()), both_wrong=int(zero.sum()), a_only=int(a_only.shape[0]),
        b_only=int(b_only.shape[0]), p_value=min(1.0, p),
        a_only_ids=[int(s) for s in a_only], b_only_ids=[int(s) for s in b_only],
        only_in_a=int(ia.shape[0] - common.shape[0]), only_in_b=int(ib.shape[0] - common.shape[0]),
        note=note, a_mean=float(a.mean()) if a.size else None,
        b_mean=float(b.mean()) if b.size else None,
        a_failed=int((ta.raw["un"] == _FAILED).sum()) if metric == "un" else 0,
        b_failed=int((tb.raw["un"] == _FAILED).sum()) if metric == "un" else 0)


def correlation(store: Store, run_ids: Iterable[int], *,
                codes: Iterable[str] = ("un", "re", "ar", "rt", "rm", "fi", "all")) -> Correlation:
    """Spearman rho between metrics, each run one observation (runs with the metric scored)."""
    from scipy.stats import spearmanr

    ids = [int(r) for r in run_ids]
    codes = list(codes)
    rows = [run_metrics(store, r, n_boot=0) for r in ids]
    vals = {c: [rm.values[c].value for rm in rows] for c in codes}
    rho: dict[str, dict[str, float | None]] = {c: {} for c in codes}
    pv: dict[str, dict[str, float | None]] = {c: {} for c in codes}
    nn: dict[str, dict[str, int]] = {c: {} for c in codes}
    for c1 in codes:
        for c2 in codes:
            pairs = [(x, y) for x, y in zip(vals[c1], vals[c2]) if x is not None and y is not None]
            nn[c1][c2] = len(pairs)
            r = p = None
            if len(pairs) >= 3:
                xs, ys = zip(*pairs)
                if len(set(xs)) > 1 and len(set(ys)) > 1:
                    res = spearmanr(xs, ys)
                    r, p = float(res.statistic), float(res.pvalue)
                    if math.isnan(r):
                        r = p = None
            rho[c1][c2], pv[c1][c2] = r, p
    k = len(ids)
    if k < 3:
        note = (f"{k} run(s): Spearman correlation needs at least 3 runs; nothing is shown")
    elif k < 10:
        note = (f"{k} runs: with fewer than 10 runs the p-values are not reliable and the "
                "correlations mean little (each run is one observation)")
    else:
        note = f"{k} runs, each one observation; rho is None where a metric is constant or missing"
    return Correlation(ids, codes, rho, pv, nn, note)


def item_keys(store: Store, run_ids: list[int], seed_ids: list[int]) -> dict[int, str]:
    """seed id -> item key ('<source>-<orig_id>') from the runs' frozen items."""
    keys: dict[int, str] = {}
    for rid in run_ids:
        for start in range(0, len(seed_ids), 500):
            chunk = seed_ids[start:start + 500]
            marks = ",".join("?" for _ in chunk)
            for r in store.query(f"SELECT seed_id, item_key FROM eval_items WHERE run_id = ? "
                                 f"AND seed_id IN ({marks})", [rid, *chunk]):
                keys.setdefault(int(r["seed_id"]), str(r["item_key"]))
    return keys
