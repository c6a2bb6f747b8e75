"""The interface between the runner and every backend, and the evaluation vocabulary.

Every metric is one :class:`Metric` record in :data:`METRIC_RECORDS`; every other table of
metric codes (the tasks' metrics, the strict twins, labels, descriptions, what a reported code
is computed from, what ``compare`` accepts, the report's groups, the short and compact column
names) is derived from those records here. A new stored metric also needs its column in
``eval_pairs``: ``tests/eval/test_metric_record.py`` says where that migration goes.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

from qcstation.common.vocab import DIMENSIONS

#: one task per SMART dimension, plus the seed question itself
TASKS: tuple[str, ...] = (*DIMENSIONS, "final")
ALL_PASS_UNDERSTANDING = 90.0


@dataclass(frozen=True)
class Metric:
    """One metric: what it is called, what it is computed from and where it is shown.

    A *stored* metric has one ``eval_scores`` row per item-sample of its ``task`` (its verdict,
    and for ``un`` the score); ``strict_of`` names the flexible metric a strict twin re-reads.
    A *reported* metric that is not stored reads the stored metric ``reads`` (counting an
    item-sample only where ``gate`` is correct and, with ``keeps`` set, only where the injected
    errors keep (True) or change (False) the gold answer), or is an All-Pass over ``all_of``
    (with Understanding >= 90 when ``all_of`` starts with ``un``)."""

    code: str
    label: str
    short: str                          # a terminal column (at most 6 characters)
    description: str
    task: str | None = None             # stored: the task whose outputs it scores
    strict_of: str | None = None        # stored: the flexible metric this reads strictly
    reads: str | None = None            # reported: the stored metric whose verdicts it counts
    gate: str | None = None             # reported: counted only where this one is correct
    keeps: bool | None = None           # reported: only items whose errors keep/change the answer
    all_of: tuple[str, ...] = ()        # reported: All-Pass over these stored metrics
    comparable: bool = True             # ``eval compare`` accepts it
    report: tuple[str, ...] = ()        # report sections: figure, group, difficulty
    compact: bool = False               # a column of the compact leaderboard
    two_step: bool = True               # defined under the two-step R&R protocol

    @property
    def stored(self) -> bool:
        return self.task is not None

    @property
    def needs(self) -> tuple[str, ...]:
        """The stored metrics its value is computed from (in the order failures that are not
        the model's are attributed)."""
        if self.all_of:
            return self.all_of
        reads = self.reads or self.code
        return (self.gate, reads) if self.gate else (reads,)


_FIG, _GRP, _DIF = "figure", "group", "difficulty"
#: every metric, in display order (the leaderboard's, the breakdown's and the report's)
METRIC_RECORDS: tuple[Metric, ...] = (
    Metric("un", "LLM@Un", "Un",
           "Understanding: mean of every configured judge's similarity to the reference (1..100), "
           "over judged replies (a failed or unreadable reply is counted apart, never 0)",
           task="understanding", report=(_FIG, _GRP), compact=True),
    Metric("re", "ACC@Re", "Re",
           "Reasoning: the model's SMT-LIB verifies to the gold answer and its answer depends "
           "on the givens", task="reasoning", report=(_FIG, _GRP, _DIF), compact=True),
    Metric("ar", "ACC@Ar", "Ar",
           "Arithmetic: the notation question answered correctly (flexible: final number anywhere)",
           task="arithmetic", report=(_FIG, _GRP, _DIF), compact=True),
    Metric("ar_s", "ACC@Ar strict", "Ar·s",
           "Arithmetic, strict: the answer on the asked line 'The answer is N.'",
           task="arithmetic", strict_of="ar", report=(_GRP,)),
    Metric("rt", "ACC@R-t", "R-t",
           "Reflection: the set of error types named exactly (flexible: the six names, the "
           "paper's names or their synonyms anywhere in the reflection)",
           task="refinement", report=(_FIG, _GRP, _DIF), compact=True),
    Metric("rt_s", "ACC@R-t strict", "R-t·s",
           "Reflection, strict: the error types on the asked line 'Error types: ...'",
           task="refinement", strict_of="rt", report=(_GRP,)),
    # the stored verdict of the corrected chain; reported gated as in SMART (code "rm" below)
    Metric("rm", "ACC@R-m", "R-m",
           "Refinement (as in SMART): the corrected chain's final answer is correct, over the "
           "items whose reflection named every error",
           task="refinement", reads="rm", gate="rt", report=(_FIG, _GRP, _DIF), compact=True),
    Metric("rm_s", "ACC@R-m strict", "R-m·s",
           "Refinement, strict answer line, over the items whose reflection is correct",
           task="refinement", strict_of="rm", reads="rm_s", gate="rt"),
    Metric("rm_ungated", "ACC@R-m ungated", "R-m·u",
           "Refinement over every item, whatever the reflection (not the paper's; single-prompt "
           "runs only: under two steps only a correct reflection is asked to refine)",
           reads="rm", report=(_FIG,), two_step=False),
    Metric("rm_keep", "ACC@R-m answer-keeping", "R-m·k",
           "Refinement (gated) on items whose injected errors keep the gold answer",
           reads="rm", gate="rt", keeps=True, comparable=False),
    Metric("rm_change", "ACC@R-m answer-changing", "R-m·c",
           "Refinement (gated) on items whose injected errors change the answer",
           reads="rm", gate="rt", keeps=False, comparable=False),
    Metric("fi", "ACC@Fi", "Fi", "Final answer of the seed question (flexible: final number anywhere)",
           task="final", report=(_FIG, _GRP, _DIF), compact=True),
    Metric("fi_s", "ACC@Fi strict", "Fi·s",
           "Final answer, strict: the answer on the asked line 'The answer is N.'",
           task="final", strict_of="fi", report=(_GRP,)),
    Metric("all", "ACC@All", "All", "All-Pass: Un >= 90 and Re, Ar, R-t, R-m correct",
           all_of=("un", "re", "ar", "rt", "rm"), report=(_FIG, _GRP, _DIF), compact=True),
    Metric("all_no_un", "ACC@All w/o Un", "All·u",
           "All-Pass without Understanding (Re, Ar, R-t, R-m correct)",
           all_of=("re", "ar", "rt", "rm"), report=(_FIG, _GRP, _DIF)),
)
#: code -> its record
METRIC: dict[str, Metric] = {m.code: m for m in METRIC_RECORDS}

# --- every other table, derived -------------------------------------------------------------
#: the stored metrics of each task, flexible ones (strict twins apart: TASK_SCORES)
TASK_METRICS: dict[str, tuple[str, ...]] = {
    t: tuple(m.code for m in METRIC_RECORDS if m.task == t and m.strict_of is None)
    for t in dict.fromkeys(m.task for m in METRIC_RECORDS if m.task)}
#: one metric per dimension task and the final answer (``rm`` the corrected chain's verdict)
METRICS: tuple[str, ...] = tuple(c for ms in TASK_METRICS.values() for c in ms)
#: the strict reading of each answer metric (the answer on the asked line 'The answer is N.')
STRICT: dict[str, str] = {m.strict_of: m.code for m in METRIC_RECORDS if m.strict_of}
#: every score row a task's output gets: its metrics and their strict readings
TASK_SCORES: dict[str, tuple[str, ...]] = {
    t: ms + tuple(STRICT[m] for m in ms if m in STRICT) for t, ms in TASK_METRICS.items()}
#: every metric code stored in eval_scores (the order of ``eval_pairs``' columns as read)
STORED_METRICS: tuple[str, ...] = (*METRICS, *STRICT.values())
# Codes reported for a run, in display order. ``rm`` is the paper's (gated) ACC@R-m:
# refinement counts only where the reflection named every error.
CODES: tuple[str, ...] = tuple(m.code for m in METRIC_RECORDS)
LABELS: dict[str, str] = {m.code: m.label for m in METRIC_RECORDS}
#: the labels of the flexible stored metrics and All-Pass
METRIC_LABELS: dict[str, str] = {c: LABELS[c] for c in (*METRICS, "all")}
DESCRIPTIONS: dict[str, str] = {m.code: m.description for m in METRIC_RECORDS}
#: short column names (·s: the strict answer)
SHORT: dict[str, str] = {m.code: m.short for m in METRIC_RECORDS}
#: what each reported code is computed from (for the counts left out as not the model's)
NEEDS: dict[str, tuple[str, ...]] = {m.code: m.needs for m in METRIC_RECORDS}
# Metrics that compare() accepts (binary per item-sample, in display order; un, compared as a
# pass at >= 90, last).
COMPARABLE: tuple[str, ...] = tuple(sorted((m.code for m in METRIC_RECORDS if m.comparable),
                                           key=lambda c: c == "un"))
#: the codes of each report section, in display order
REPORT_CODES: dict[str, tuple[str, ...]] = {
    s: tuple(m.code for m in METRIC_RECORDS if s in m.report) for s in (_FIG, _GRP, _DIF)}
#: the compact leaderboard: (header, code, its strict twin or None)
COMPACT: tuple[tuple[str, str, str | None], ...] = tuple(
    (m.short + (" f/s" if m.code in STRICT else ""), m.code, STRICT.get(m.code))
    for m in METRIC_RECORDS if m.compact)
VERDICTS: tuple[str, ...] = ("correct", "wrong", "unparseable", "error", "not_scored",
                             "judge_error", "invalid_item", "checker_error", "trivial")
#: failures that are not the model's: left out of every denominator, counted apart, retryable
NOT_MODEL_VERDICTS: tuple[str, ...] = ("judge_error", "invalid_item", "checker_error")


@dataclass(frozen=True)
class EvalRequest:
    """One chat request of a run: (seed, task, sample) with the messages as sent."""

    run_id: int
    seed_id: int
    task: str
    sample_idx: int
    messages: tuple[dict[str, str], ...]
    temperature: float
    max_tokens: int
    prompt_hash: str
    # The benchmark's own answer for this request (used only by the reference backend).
    reference: str | None = None
    # ``messages`` as compact JSON with sorted keys (what ``prompt_hash`` hashes), when the
    # run built it (:meth:`with_json`): the HTTP body reuses it instead of serialising and
    # hashing the prompt again. Not an argument of the constructor, so that a request
    # rebuilt with other messages (``dataclasses.replace``: the two-step protocol's second
    # step) never carries the blob of the messages it replaced.
    messages_json: str | None = field(default=None, init=False, compare=False, repr=False)

    def with_json(self, blob: str) -> EvalRequest:
        """This request, its ``messages_json`` set to ``blob`` (the caller's word that
        ``blob`` is its messages' JSON, the text ``prompt_hash`` hashes)."""
        object.__setattr__(self, "messages_json", blob)
        return self

    @property
    def custom_id(self) -> str:
        """Stable id of the request across export and import (OpenAI Batch ``custom_id``)."""
        return f"run{self.run_id}-seed{self.seed_id}-{self.task}-s{self.sample_idx}"

    @property
    def key(self) -> tuple[int, str, int]:
        return (self.seed_id, self.task, self.sample_idx)


@dataclass
class EvalReply:
    """What a backend returns for one request. A failed request is a reply with
    ``status='error'`` and ``error`` set; backends never raise for one bad request."""

    custom_id: str
    status: str                      # ok | error
    text: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    latency_ms: float | None = None
    cached: bool = False
    endpoint: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Backend(abc.ABC):
    """Answers :class:`EvalRequest` s. Async backends implement :meth:`complete`; batched
    ones (vLLM in-process) set ``batched = True`` and implement :meth:`complete_batch`."""

    kind: str = "abstract"
    batched: bool = False
    concurrency: int = 1

    @abc.abstractmethod
    def describe(self) -> dict[str, Any]:
        """Everything about this backend that decides a result, without secrets."""

    async def complete(self, request: EvalRequest) -> EvalReply:
        """One request (async backends override this)."""
        raise TypeError(f"{type(self).__name__} answers in batches: call complete_batch()")

    def complete_batch(self, requests: list[EvalRequest]) -> list[EvalReply]:
        """Many requests at once (backends with ``batched = True`` override this)."""
        raise TypeError(f"{type(self).__name__} answers one request at a time: await complete()")

    async def aclose(self) -> None:
        return None
