"""Self-refine (SMART 4.6) and the round trip: runs built from an earlier run.

Self-refine: :func:`weakest` names the dimension an earlier run found weakest (the lowest
accuracy, over every sample, of Understanding (a judges' score >= 90), Reasoning,
Arithmetic and R&R (the error types named and the corrected answer right on the same
sample, SMART's "entire R&R task"); a tie is refused with the tied dimensions named), and
:func:`refined_template` adds that dimension's refinement prompt (:data:`REFINE_PROMPTS`,
version :data:`REFINE_VERSION`) to its task's template; the new run's spec records both.
:func:`refine_gain` compares the new run with the earlier one per dimension over the items
both scored, every sample counted (each item's share of right samples; the exact sign test
on the items that moved, McNemar's with one sample).

Round trip: :func:`round_trip_records` rewrites a backward (inverse) release's records for
one model: the answer each backward question states becomes the model's own forward answer
to the parent (from a forward run), and the gold X the given Z3 says would produce that
answer (unique, positive), even when the forward answer was wrong. A consistent model
recovers it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from db.store import Store
from qcstation.eval import tasks as T
from qcstation.eval.robustness.fidelity import solve_hidden
from qcstation.eval.robustness.load import RunData, load_run_data
from qcstation.eval.robustness.measures import McNemar, mcnemar
from qcstation.eval.runs import EvalError, load_spec, run_row

__all__ = ["REFINE_PROMPTS", "REFINE_VERSION", "WEAK_DIMENSIONS", "by_parent", "refine_gain",
           "refined_template", "round_trip_records", "weakest", "weakest_dimensions"]

REFINE_VERSION = "self-refine-v1"
#: task -> the refinement prompt added to its user message
REFINE_PROMPTS: dict[str, str] = {
    "understanding": (
        "Before you answer, refine your work: write the six fields, then check each against "
        "the problem: every number and unit copied exactly, nothing the problem does not say, "
        "nothing it says about the question left out. Correct any field that fails, and give "
        "only the corrected fields."),
    "reasoning": (
        "Before you answer, refine your work: write the SMT-LIB, then check it: every quantity "
        "of the problem declared with the value the problem gives, every step following a "
        "relation the problem states, the operators right (+, -, *, /), and `answer` equal to "
        "what the question asks. Correct what fails, and give only the corrected SMT-LIB."),
    "arithmetic": (
        "Before you answer, refine your work: compute step by step, then recompute every "
        "operation a second time (carry, sign, decimal point, order of operations). Where the "
        "two disagree, find the mistake and correct it, and give the corrected final answer."),
    "refinement": (
        "Before you answer, refine your work: check every step of the chain for each error "
        "type in turn, name every error you find, then rewrite the whole solution with each "
        "error corrected and check its final answer once more."),
}
#: the SMART dimensions self-refine may target: task -> how its accuracy is read
WEAK_DIMENSIONS: tuple[str, ...] = ("understanding", "reasoning", "arithmetic", "refinement")
#: the task -> what its accuracy reads (``refinement``: R-t and R-m on the same sample)
_CODE = {"understanding": "un", "reasoning": "re", "arithmetic": "ar", "refinement": "refinement"}
_ASSISTANT_RE = re.compile(r"^=== *assistant *===[ \t]*$", re.M)


def _sample_verdicts(it: Any, code: str) -> dict[int, bool]:
    """Sample index -> right or not, of one item on ``code``: a dimension's counted samples;
    ``rm`` as the leaderboard's ACC@R-m (only the samples whose reflection is right);
    ``refinement`` SMART's entire R&R task (the reflection right and the corrected answer
    right; a wrong reflection fails it)."""
    if code not in ("rm", "refinement"):
        return {o.k: o.ok for o in it.obs.get(code) or []}
    rt = {o.k: o.ok for o in it.obs.get("rt") or []}
    rm = {o.k: o.ok for o in it.obs.get("rm") or []}
    if code == "rm":
        return {k: ok for k, ok in rm.items() if rt.get(k)}
    return {k: (rm[k] if ok else False) for k, ok in rt.items() if not ok or k in rm}


def _item_means(data: RunData, code: str) -> dict[int, float]:
    """Per item scored on ``code``: the share of its samples that are right (every sample,
    as the leaderboard averages them)."""
    out = {}
    for sid, it in data.items.items():
        v = _sample_verdicts(it, code)
        if v:
            out[sid] = sum(v.values()) / len(v)
    return out


def _dimension_accuracy(data: RunData, task: str) -> tuple[float | None, int]:
    means = _item_means(data, _CODE[task])
    return (sum(means.values()) / len(means) if means else None), len(means)


def weakest_dimensions(store: Store, run_id: int) -> tuple[list[str], dict[str, float]]:
    """(every dimension at the lowest accuracy: more than one when they tie, accuracy per
    dimension scored) of a run, over every sample."""
    data = load_run_data(store, run_id)
    accs = {t: a for t in WEAK_DIMENSIONS if (a := _dimension_accuracy(data, t)[0]) is not None}
    if not accs:
        raise EvalError(f"run {run_id} has no scored dimension (Understanding needs a judge); "
                        f"score it first, or name the dimension with --refine-dimension",
                        title="Nothing to refine")
    low = min(accs.values())
    return [t for t in WEAK_DIMENSIONS if t in accs and math.isclose(accs[t], low, rel_tol=0,
                                                                      abs_tol=1e-12)], accs


def weakest(store: Store, run_id: int) -> tuple[str, dict[str, float]]:
    """(the weakest dimension's task, accuracy per dimension scored) of a run. A tie is
    refused with the tied dimensions named (never broken silently): name one with
    --refine-dimension."""
    dims, accs = weakest_dimensions(store, run_id)
    if len(dims) > 1:
        raise EvalError(f"run {run_id}'s weakest dimensions tie: " + ", ".join(dims)
                        + f" at {100 * accs[dims[0]]:.1f}%; name the one to refine with "
                          "--refine-dimension", title="Weakest dimensions tie")
    return dims[0], accs


def refined_template(template: T.Template, dimension: str | None = None) -> T.Template:
    """``template`` with ``dimension``'s refinement prompt (default: its task's) at the end of
    its user section (for Refinement under the two-step protocol: the reflection template)."""
    prompt = REFINE_PROMPTS[dimension or template.name]
    m = _ASSISTANT_RE.search(template.text)
    if m is None:
        raise EvalError(f"template {template.name} has no assistant section")
    head, tail = template.text[:m.start()].rstrip("\n"), template.text[m.start():]
    text = f"{head}\n\n{prompt}\n\n{tail}"
    text = re.sub(r"^version:[ \t]*(\S+)[ \t]*$", lambda v: f"version: {v.group(1)}+{REFINE_VERSION}",
                  text, count=1, flags=re.M)
    return T.parse_template(template.name, text, origin=f"{template.origin} + {REFINE_VERSION}")


def refine_gain(store: Store, run_id: int, earlier: int | None = None) -> dict[str, McNemar]:
    """Per dimension code: the earlier run against this one over the items both scored,
    every sample counted. ``before``/``after`` average each item's share of right samples
    (as the leaderboard), ``gained``/``lost`` count the items whose share rose/fell, ``p``
    is the exact sign test on those (with one sample per item: the exact McNemar test).
    ``rm`` is the leaderboard's ACC@R-m (samples whose reflection is right). ``earlier``
    defaults to the run the spec names."""
    from scipy.stats import binomtest

    if earlier is None:
        refine = load_spec(run_row(store, run_id).get("spec")).get("refine") or {}
        if not refine.get("from"):
            raise EvalError(f"run {run_id} is not a self-refine run; name the earlier run",
                            title="Not a self-refine run")
        earlier = int(refine["from"])
    now, before = load_run_data(store, run_id), load_run_data(store, earlier)
    out: dict[str, McNemar] = {}
    for code in ("un", "re", "ar", "rt", "rm", "fi"):
        a, b = _item_means(now, code), _item_means(before, code)
        both = sorted(set(a) & set(b))
        if not both:
            continue
        gained = sum(1 for s in both if a[s] > b[s])
        lost = sum(1 for s in both if a[s] < b[s])
        p = float(binomtest(gained, gained + lost, 0.5).pvalue) if gained + lost else 1.0
        out[code] = McNemar(len(both), sum(b[s] for s in both) / len(both),
                            sum(a[s] for s in both) / len(both), gained, lost, min(1.0, p))
    return out


def _forward_answers(store: Store, forward_run: int) -> dict[int, str | None]:
    data = load_run_data(store, forward_run)
    return {sid: (o.answer if (o := it.first("fi")) is not None else None)
            for sid, it in data.items.items()}


def round_trip_records(store: Store, records: list[dict[str, Any]], forward_run: int
                       ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The round-trip records of a backward release's ``records`` for the model of
    ``forward_run`` (see the module docstring), and the count of items left out per reason."""
    from qcstation.core.derive.solution import format_value
    from qcstation.core.derive.transforms import INVERSE_SENTENCE, inverse_smtlib

    forward = _forward_answers(store, forward_run)
    out: list[dict[str, Any]] = []
    refused: dict[str, int] = {}

    def refuse(why: str) -> None:
        refused[why] = refused.get(why, 0) + 1

    for rec in records:
        params = rec.get("params") if isinstance(rec.get("params"), Mapping) else {}
        if rec.get("transform") != "inverse" or not params:
            refuse("not a backward problem")
            continue
        parent = rec.get("parent_seed_id")
        if parent not in forward:
            refuse("the forward run has no answer to its parent")
            continue
        answer = forward[parent]
        try:
            value = Fraction(answer) if answer is not None else None
        except (ValueError, ZeroDivisionError):
            value = None
        if value is None:
            refuse("the forward answer is not a number")
            continue
        smt = load_spec_smt(store, int(parent))
        if smt is None:
            refuse("the parent has no formalization")
            continue
        scale = Fraction(params.get("scale") or 1)
        x, why = solve_hidden(inverse_smtlib(smt, str(params["hidden"]), scale, value))
        if x is None:
            refuse(why)
            continue
        stated = INVERSE_SENTENCE.format(answer=format_value(Fraction(str(params["parent_answer"]))))
        question = str(rec.get("question") or "")
        if not question.endswith(stated):
            refuse("the backward question does not end with its template sentence")
            continue
        new_q = question[: -len(stated)] + INVERSE_SENTENCE.format(answer=format_value(value))
        gold = format_value(x)
        out.append({**rec, "question": new_q, "answer": str(x.numerator) if x.denominator == 1
                    else f"{x.numerator}/{x.denominator}", "gt_answer": gold,
                    "smt-lib": inverse_smtlib(smt, str(params["hidden"]), scale, value),
                    "round_trip": {"forward_run": forward_run, "forward_answer": answer,
                                   "forward_right": answer == _norm(params.get("parent_answer")),
                                   "x": gold, "original_x": params.get("answer_written")}})
    return out, refused


def _norm(v: Any) -> str | None:
    from qcstation.eval.robustness.measures import norm

    return norm(v)


def load_spec_smt(store: Store, seed_id: int) -> str | None:
    """The verified Reasoning SMT-LIB of a seed (a release's parent)."""
    row = store.one("SELECT content FROM artifacts WHERE seed_id = ? AND dimension = 'reasoning' "
                    "AND status IN ('verified', 'accepted') ORDER BY version DESC LIMIT 1",
                    (seed_id,))
    if row is None:
        return None
    try:
        content = json.loads(row["content"])
    except ValueError:
        return None
    smt = content.get("smtlib") if isinstance(content, dict) else None
    return smt if isinstance(smt, str) else None


def by_parent(store: Store, run_a: int, run_b: int, metric: str) -> dict[str, Any]:
    """Two runs compared per *parent* (runs on different derived sets of the same seeds, or a
    derived set against the parents' release): a seed counts as right in a run when every
    one of its items there (the seed itself, or its derived items) is right on every sample
    (the worst case, as A_wst). Exact McNemar over the parents both runs hold."""
    a, b = load_run_data(store, run_a), load_run_data(store, run_b)

    def per_parent(data: RunData) -> dict[str, bool]:
        out: dict[str, list[float]] = {}
        for it in data.items.values():
            acc = it.acc(metric)
            if acc is not None:
                out.setdefault(it.parent or it.key, []).append(acc)
        return {p: min(v) == 1.0 for p, v in out.items()}

    pa, pb = per_parent(a), per_parent(b)
    both = sorted(set(pa) & set(pb))
    m = mcnemar([pa[p] for p in both], [pb[p] for p in both])
    return {"metric": metric, "parents": len(both), "only_in_a": len(set(pa) - set(pb)),
            "only_in_b": len(set(pb) - set(pa)), "a_value": m.before, "b_value": m.after,
            "a_only": m.lost, "b_only": m.gained, "p_value": m.p,
            "a_only_parents": [p for p in both if pa[p] and not pb[p]],
            "b_only_parents": [p for p in both if pb[p] and not pa[p]]}
