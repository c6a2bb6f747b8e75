"""Build evaluation runs straight into a Store: eval_runs, eval_items and eval_scores rows.

For tests of everything that reads scores (metrics, report, browser) without running a
model or a scorer. Verdict shorthands for :func:`add_scores`::

    "c" correct · "w" wrong · "u" unparseable · "e" error · "n" not_scored
    a number (for ``un``): the judges' mean 1..100, verdict correct at >= 90 else wrong
    (as qcstation.eval.scorers sets it)

Example::

    run = make_run(store, model="m1")
    add_item(store, run, 1, source="gsm8k", difficulty="easy",
             scores={"un": 95, "re": "c", "ar": "c", "rt": "w", "rm": "c", "fi": "c"})
"""

from __future__ import annotations

import json
from typing import Any

from db.store import Store, now
from qcstation.eval.types import ALL_PASS_UNDERSTANDING, METRICS, TASKS

_TASK_OF = {"un": "understanding", "re": "reasoning", "ar": "arithmetic", "rt": "refinement",
            "rm": "refinement", "fi": "final"}
_VERDICT = {"c": "correct", "w": "wrong", "u": "unparseable", "e": "error", "n": "not_scored"}


def make_run(store: Store, *, model: str = "model-a", name: str | None = None,
             status: str = "done", tasks: tuple[str, ...] = TASKS, samples: int = 1,
             spec: dict[str, Any] | None = None, backend: str = "openai") -> int:
    full = {"model": {"name": model}, "tasks": list(tasks), "samples": samples, "shots": 3,
            "temperature": 0.0, "release": {"name": "smart", "version": "1.0"},
            "backend": backend, **(spec or {})}
    with store.transaction():
        return store.insert("eval_runs", {
            "model": model, "name": name, "status": status, "spec": json.dumps(full, sort_keys=True),
            "backend": backend, "created_by": "tester", "started_at": "2026-01-01T00:00:00.000000Z",
            "finished_at": "2026-01-01T01:00:00.000000Z" if status == "done" else None,
            "config": "{}",
        })


def _verdict_score(metric: str, v: Any) -> tuple[str, float | None]:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return ("correct" if v >= ALL_PASS_UNDERSTANDING else "wrong"), float(v)
    if isinstance(v, tuple):               # (verdict, score) given in full
        return str(_VERDICT.get(v[0], v[0])), v[1]
    verdict = _VERDICT.get(v, v)
    if metric == "un":
        return verdict, None
    return verdict, {"correct": 1.0}.get(verdict, 0.0 if verdict != "not_scored" else None)


def add_item(store: Store, run_id: int, seed_id: int, *, source: str = "gsm8k",
             difficulty: str | None = "easy", scores: dict[str, Any] | None = None,
             samples: list[dict[str, Any]] | None = None, position: int | None = None) -> None:
    """One evaluated item; ``scores`` for sample 0, or ``samples`` one dict per sample."""
    per_sample = samples if samples is not None else ([scores] if scores is not None else [])
    with store.transaction():
        store.insert("eval_items", {
            "run_id": run_id, "seed_id": seed_id, "item_key": f"{source}-{seed_id}",
            "source": source, "difficulty": difficulty, "role": "eval",
            "position": seed_id if position is None else position,
            "record": json.dumps({"seed_id": seed_id, "source": source}),
        })
        for idx, sc in enumerate(per_sample):
            for metric, v in sc.items():
                assert metric in METRICS, metric
                verdict, score = _verdict_score(metric, v)
                store.insert("eval_scores", {
                    "run_id": run_id, "seed_id": seed_id, "sample_idx": idx, "metric": metric,
                    "task": _TASK_OF[metric], "verdict": verdict, "score": score,
                    "extracted": None, "detail": "{}", "scorer_version": "test-1",
                    "source": source, "difficulty": difficulty, "scored_at": now(),
                })


def row(un: Any = 95, re: Any = "c", ar: Any = "c", rt: Any = "c", rm: Any = "c",
        fi: Any = "c") -> dict[str, Any]:
    """A full score dict; pass None to leave a metric out (task not run)."""
    d = {"un": un, "re": re, "ar": ar, "rt": rt, "rm": rm, "fi": fi}
    return {k: v for k, v in d.items() if v is not None}
