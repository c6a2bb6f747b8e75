"""What the metrics give: the records of a run's figures and how a value is written.

:mod:`qcstation.eval.metrics` computes them from a run's scores; the CLI, the report, the
charts and the results screen read them. Records only: nothing here reads the store.

    MetricValue    one metric of one run (or one group of a breakdown), with its interval
    RunMetrics     a run's metrics by code (a leaderboard row)
    Confusion      the final answer against a dimension (TP, FP, FN, TN)
    Comparison     two runs paired item by item on one metric
    Correlation    Spearman rho between metrics across runs
    fmt_value, fmt_ci   a value and its interval as the tables write them
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from qcstation.eval.types import LABELS

__all__ = ["MetricValue", "RunMetrics", "Confusion", "Comparison", "Correlation", "fmt_value",
           "fmt_ci"]


@dataclass
class MetricValue:
    """One metric of one run (or one group of a breakdown).

    ``value`` is 0..1 for accuracies and 1..100 for ``un``; ``None`` when not scored.
    ``lo``/``hi`` bound the bootstrap 95% interval; ``n`` counts items (``n_samples`` the
    item-samples); ``counts`` are verdicts per item-sample (for ``all``/``all_no_un``:
    ``correct`` = pass, ``wrong`` = fail)."""

    code: str
    value: float | None = None
    lo: float | None = None
    hi: float | None = None
    n: int = 0
    n_samples: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    note: str | None = None
    #: item-samples left out as not the model's failure, per verdict (judge_error, ...)
    not_model: dict[str, int] = field(default_factory=dict)
    #: LLM@Un: item-samples whose reply failed or was unreadable (no score on 1..100; kept
    #: apart from the judged mean, never averaged in as 0)
    failed: int = 0

    @property
    def label(self) -> str:
        return LABELS.get(self.code, self.code)

    @property
    def left_out(self) -> int:
        return sum(self.not_model.values())

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["label"] = self.label
        return d


@dataclass
class RunMetrics:
    run_id: int
    label: str                      # model name
    name: str | None
    status: str
    values: dict[str, MetricValue]

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "label": self.label, "name": self.name,
                "status": self.status,
                "values": {c: v.to_dict() for c, v in self.values.items()}}


@dataclass
class Confusion:
    """Final answer (fi) against a dimension, over the item-samples both were scored on.

    As in SMART fig. 21 and its appendix text: *positive* means correct. TP = the final
    answer and the dimension are both correct; FN = the final answer is correct but the
    dimension is not (the final answer overestimates what the model can do); FP = the
    dimension is correct but the final answer is not; TN = both wrong. Rates are shares of
    all ``n`` item-samples, so tp_rate + fn_rate = ACC@Fi and tp_rate + fp_rate = the
    dimension's accuracy on the same item-samples."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    def rate(self, cell: str) -> float | None:
        return getattr(self, cell) / self.n if self.n else None

    def to_dict(self) -> dict[str, Any]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn, "n": self.n,
                "rates": {c: self.rate(c) for c in ("tp", "fp", "fn", "tn")}}


@dataclass
class Comparison:
    """Paired item-level comparison of two runs on one metric (the items both runs have).

    Each item's value is the mean over its samples, as on the leaderboard (for ``un`` a
    judged sample passes at >= 90; a failed reply is not judged: apart, ``a_failed`` /
    ``b_failed``); ``a_value``/``b_value`` average them over the common items.
    ``a_only``/``b_only`` count the items where A's mean is higher / B's is. ``p_value`` is
    the exact two-sided sign test on those items (with one sample per item, the exact
    McNemar test; 1.0 when there is none). ``a_correct``/``b_correct`` are the sums of the
    per-item means (correct item-equivalents); ``both_*`` count items at 1 / 0 in both."""

    run_a: int
    run_b: int
    metric: str
    n: int                    # paired items
    a_correct: int
    b_correct: int
    both_correct: int
    both_wrong: int
    a_only: int               # correct in A, not in B
    b_only: int
    p_value: float
    a_only_ids: list[int]
    b_only_ids: list[int]
    only_in_a: int            # items A has and B has not (left out)
    only_in_b: int
    note: str | None = None
    a_mean: float | None = None
    b_mean: float | None = None
    #: LLM@Un: item-samples of each run whose reply failed or was unreadable (no score; not
    #: in the pass share, counted apart)
    a_failed: int = 0
    b_failed: int = 0

    @property
    def label(self) -> str:
        return "LLM@Un >= 90" if self.metric == "un" else LABELS.get(self.metric, self.metric)

    @property
    def a_value(self) -> float | None:
        return self.a_mean if self.n else None

    @property
    def b_value(self) -> float | None:
        return self.b_mean if self.n else None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(label=self.label, a_value=self.a_value, b_value=self.b_value)
        return d


@dataclass
class Correlation:
    """Spearman rho between metrics across runs (each run is one observation)."""

    run_ids: list[int]
    codes: list[str]
    rho: dict[str, dict[str, float | None]]
    p: dict[str, dict[str, float | None]]
    n: dict[str, dict[str, int]]
    note: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def fmt_value(code: str, value: float | None, *, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if code == "un":
        return f"{value:.{digits}f}"
    return f"{100 * value:.{digits}f}%"


def fmt_ci(mv: MetricValue, *, digits: int = 1) -> str:
    if mv.value is None or mv.lo is None or mv.hi is None:
        return ""
    if mv.code == "un":
        return f"[{mv.lo:.{digits}f}, {mv.hi:.{digits}f}]"
    return f"[{100 * mv.lo:.{digits}f}, {100 * mv.hi:.{digits}f}]"
