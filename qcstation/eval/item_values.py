"""A run's items counted by their verdicts, and each item's value per metric, without numpy.

The figures of a run are functions of how many of its items have each signature (migration
21: ``eval_headline``, db/kept_eval.py). :mod:`qcstation.eval.metrics` repeats each item as
many times as it is counted into numpy arrays (``load_run_kept``: 100,000 rows at 1M scores)
to compute intervals and breakdowns; the runs list needs only each metric's mean, and reads
it here from the counted signatures directly (a few rows, no numpy import, no arrays): the
runs screen's first frame (issue 28.7).

Here live the verdict codes both use (``CODE_OF``: a stored verdict as its code in the
pivoted rows and signatures; the sentinels a value takes when it does not count), the kept
rows' readers (:func:`headline_rows`, :func:`verdict_counts`), and :func:`headline_means`:
per metric, the leaderboard's value (each item's mean over its counted samples, then the
mean over items) and the number of items it is over, as ``metrics.RunTable`` computes them
(``tests/eval/test_item_values.py`` checks both agree).
"""

from __future__ import annotations

from fractions import Fraction
from db.kept_eval import SIG_METRICS, headline_from_scratch_sql, headline_kept_sql
from db.store import Store
from qcstation.eval.types import ALL_PASS_UNDERSTANDING, METRIC, NOT_MODEL_VERDICTS, STORED_METRICS

#: verdict codes in the pivot and the signatures (-1 = no score row)
CODE_OF = {"correct": 1, "wrong": 0, "not_scored": 2, "unparseable": 3, "error": 4,
           "judge_error": 6, "invalid_item": 7, "checker_error": 8, "trivial": 9}
VERDICT_OF = {v: k for k, v in CODE_OF.items()} | {5: "other"}
NOT_MODEL_CODES = tuple(CODE_OF[v] for v in NOT_MODEL_VERDICTS)
#: the verdicts of an Understanding reply that has no judged score (the model's failure)
UN_FAILED_VERDICTS: tuple[str, ...] = ("error", "unparseable")
UN_FAILED_CODES = tuple(CODE_OF[v] for v in UN_FAILED_VERDICTS)
# an item-sample's value of a stored metric when it does not count
MISSING = -1.0            # no score row
NOT_SCORED = -2.0         # verdict not_scored
EXCLUDED = -3.0           # a failure that is not the model's: left out, counted apart
FAILED = -4.0             # un: the model's reply failed or was unreadable: no score, apart

#: where each stored metric's verdict code is in a signature's sample
_CODES_AT = [SIG_METRICS.index(m) + 2 if m in SIG_METRICS else -1 for m in STORED_METRICS]

_COUNTS_SQL = ("SELECT metric, verdict, n FROM eval_score_counts WHERE run_id = ? AND n != 0 "
               "ORDER BY metric, verdict")
COUNTS_FROM_SCRATCH_SQL = ("SELECT metric, verdict, COUNT(*) FROM eval_scores WHERE run_id = ? "
                           "GROUP BY metric, verdict")


def verdict_counts(store: Store, run_id: int, *, from_scratch: bool = False
                   ) -> list[tuple[str, str, int]]:
    """(metric, verdict, count) of the run's scores, by metric and verdict (kept by migration
    14; ``from_scratch`` counts every score row)."""
    cur = store.conn.cursor()
    cur.row_factory = None
    return [(str(m), str(v), int(n)) for m, v, n in cur.execute(
        COUNTS_FROM_SCRATCH_SQL if from_scratch else _COUNTS_SQL, (int(run_id),))]


def headline_rows(store: Store, run_id: int, *, from_scratch: bool = False
                  ) -> list[tuple[str, str, str, int]]:
    """(source, difficulty, signature, items) of the run: how many of its items have each
    group and set of verdicts (migrations 21 and 22, ``db/kept_eval.py``: an item written since
    the last recount is counted from its rows); ``from_scratch`` makes them
    again from the item-sample rows (the kept rows' oracle in tests)."""
    cur = store.conn.cursor()
    cur.row_factory = None
    run = int(run_id)
    if from_scratch:
        rows = cur.execute(headline_from_scratch_sql(), (run,))
    elif cur.execute("SELECT 1 FROM eval_item_dirty WHERE run_id = ? LIMIT 1", (run,)).fetchone():
        # items written since their last recount (migration 22): counted from their rows
        rows = cur.execute(headline_kept_sql(), (run, run, run))
    else:
        rows = cur.execute("SELECT source, difficulty, sig, n FROM eval_headline WHERE run_id = ? "
                           "AND n != 0 ORDER BY source, difficulty, sig", (run,))
    return [(str(a), str(b), str(c), int(n)) for a, b, c, n in rows]


def signature_samples(sig: str) -> list[list[float]]:
    """An item's signature as its samples, each [un, keeps, a verdict code per
    ``SIG_METRICS``] (``;`` between samples, ``,`` between fields)."""
    return [[float(x) for x in part.split(",")] for part in sig.split(";")]


def raw_value(metric: str, code: int, un: float) -> float:
    """A stored metric's value of one item-sample: 1.0 / 0.0 for a verdict that counts (the
    judged score for ``un``), else the sentinel saying why it does not count."""
    excluded = code in NOT_MODEL_CODES
    if code >= 0 and code != 2 and not excluded:
        if metric == "un":
            return FAILED if code in UN_FAILED_CODES else un
        return 1.0 if code == 1 else 0.0
    return NOT_SCORED if code == 2 else (EXCLUDED if excluded else MISSING)


def pair_value(code: str, raw: dict[str, float], keeps: float) -> float | None:
    """One item-sample's value of any metric code (None when it does not count), from its
    stored metrics' raw values (:func:`raw_value`): as ``metrics.RunTable.pair_values``."""
    m = METRIC[code]
    if m.all_of:
        out: float | None = 1.0
        for of in m.all_of:
            v = raw[of]
            if of == "un":   # a failed reply has no Understanding >= 90: the item-sample fails
                if v >= 0:
                    out = None if out is None else (1.0 if v >= ALL_PASS_UNDERSTANDING else 0.0) * out
                elif v == FAILED:
                    out = None if out is None else 0.0 * out
                else:
                    out = None
                continue
            gate = METRIC[of].gate
            if gate is not None and v == NOT_SCORED and raw[gate] == 0.0:
                v = 0.0     # not allowed to go on (two-step, reflection wrong): fails All-Pass
            out = None if (v < 0 or out is None) else out * v
        return out
    v = raw[m.reads or code]
    if m.gate is None:
        return v if v >= 0 else None
    if m.keeps is not None and keeps != (1.0 if m.keeps else 0.0):
        return None
    return v if raw[m.gate] == 1.0 and v >= 0 else None


def item_value(code: str, samples: list[list[float]]) -> float | None:
    """An item's value of ``code``: the mean over its samples that count (None when none
    does), summed in sample order as ``metrics.RunTable.item_values`` sums them."""
    total, counted = 0.0, 0.0
    for sample in samples:
        raw = {m: raw_value(m, int(sample[at]), sample[0])
               for m, at in zip(STORED_METRICS, _CODES_AT)}
        v = pair_value(code, raw, sample[1])
        if v is not None:
            total += v
            counted += 1.0
    return total / counted if counted else None


def headline_means(rows: list[tuple[str, str, str, int]], metrics: tuple[str, ...]
                   ) -> dict[str, tuple[float | None, int]]:
    """Per metric, (the mean over items of each item's value, the items that count) from the
    run's counted signatures (:func:`headline_rows`); the mean is the exact one, rounded once
    (numpy's sum of the repeated values may differ from it in the last bits)."""
    sigs: dict[str, int] = {}
    for _source, _difficulty, sig, n in rows:
        sigs[sig] = sigs.get(sig, 0) + n
    samples = {sig: signature_samples(sig) for sig in sigs}
    out: dict[str, tuple[float | None, int]] = {}
    for metric in metrics:
        total, items = Fraction(0), 0
        for sig, n in sigs.items():
            value = item_value(metric, samples[sig])
            if value is not None:
                total += Fraction(value) * n
                items += n
        out[metric] = (float(total / items) if items else None, items)
    return out


def usable() -> bool:
    """Whether the signatures hold every stored metric (a stored metric added after migration
    21 is not in them: its figures come from the item-sample rows, ``metrics.load_run``)."""
    return set(SIG_METRICS) == set(STORED_METRICS)
