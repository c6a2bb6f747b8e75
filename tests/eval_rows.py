"""Test helpers: evaluation runs written straight into a real database (schema v4+).

``add_run`` writes one ``eval_runs`` row, its frozen items (release-record format), the
raw outputs of every task and one score per metric, with verdicts decided by a
deterministic rule so tests know what to expect. Nothing here calls the runner or the
scorers, so the browser and the screens can be tested on their own.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Iterable
from typing import Any

from db.store import Store, now
from qcstation.eval.types import METRICS, TASK_METRICS, TASKS

SOURCES = ("gsm8k", "mawps")
LEVELS = ("easy", "medium", "hard")


def record(i: int) -> dict[str, Any]:
    """A frozen item record like a release's ``data.jsonl`` line, for item number ``i``."""
    a, b = 3 + i % 7, 2 + i % 5
    source = SOURCES[i % len(SOURCES)]
    return {
        "id": f"{source}-{i}", "seed_id": i, "source": source, "orig_id": str(i),
        "difficulty": LEVELS[i % 3],
        "question": f"Ann has {a} pens and buys {b} more. How many pens does she have?",
        "background": f"Goal: total pens\nKnown: {a} pens, buys {b}",
        "smt-lib": f"(declare-const answer Int)\n(assert (= answer (+ {a} {b})))",
        "answer": str(a + b), "notation": f"Let x = {a} + {b}. What is x?",
        "gt_answer": str(a + b), "gt_cot": f"{a} + {b} = {a + b}. #### {a + b}",
        "w_cot": f"{a} + {b} = {a + b + 1}. #### {a + b + 1}", "wrong": ["calculation"],
    }


def default_verdict(i: int, metric: str, sample_idx: int) -> str:
    """Item ``i`` fails ``re`` when i % 3 == 1 (wrong) or 2 (unparseable) ... deterministic."""
    k = (i + METRICS.index(metric) + sample_idx) % 10
    if k in (1, 2):
        return "wrong"
    if k == 3:
        return "unparseable"
    if k == 4 and metric != "un":
        return "error"
    return "correct"


def add_run(store: Store, model: str, seeds: Iterable[int], *, name: str | None = None,
            status: str = "done", samples: int = 1, release: tuple[str, str] | None = ("smart", "1.0.0"),
            verdict: Callable[[int, str, int], str] = default_verdict,
            response: Callable[[int, str, int], str] | None = None,
            scores: bool = True, outputs_done: int | None = None,
            detail: Callable[[int, str, int], dict[str, Any]] | None = None) -> int:
    """One run of ``model`` over ``seeds`` (all tasks); returns the run id.

    ``outputs_done``: write only that many outputs (an unfinished run) and no scores."""
    seeds = list(seeds)
    spec = {"model": {"name": model}, "tasks": list(TASKS), "shots": 3, "temperature": 0.0,
            "samples": samples, "release": ({"name": release[0], "version": release[1]}
                                            if release else None)}
    at = now()
    with store.transaction():
        run_id = store.insert("eval_runs", {
            "release_id": None, "model": model, "config": "{}", "status": status,
            "started_at": at, "finished_at": at if status == "done" else None, "name": name,
            "spec": json.dumps(spec), "backend": "openai", "created_by": "tester",
            "n_items": len(seeds), "n_requests": len(seeds) * len(TASKS) * samples,
            # a running run is held by a live process (this one) with a fresh heartbeat
            "owner": f"{socket.gethostname()}:{os.getpid()}" if status == "running" else None,
            "heartbeat_at": at if status == "running" else None})
        for pos, i in enumerate(seeds):
            rec = record(i)
            store.insert("eval_items", {
                "run_id": run_id, "seed_id": i, "item_key": rec["id"], "source": rec["source"],
                "difficulty": rec["difficulty"], "role": "eval", "position": pos,
                "record": json.dumps(rec)})
    fill_run(store, run_id, samples=samples, verdict=verdict, response=response,
             scores=scores, outputs_done=outputs_done, detail=detail)
    return run_id


def fill_run(store: Store, run_id: int, *, samples: int = 1,
             verdict: Callable[[int, str, int], str] = default_verdict,
             response: Callable[[int, str, int], str] | None = None,
             scores: bool = True, outputs_done: int | None = None,
             detail: Callable[[int, str, int], dict[str, Any]] | None = None) -> None:
    """Outputs (and scores) for every evaluated item of an existing run, as if it had run."""
    items = store.query("SELECT seed_id, record FROM eval_items WHERE run_id = ? AND role = 'eval' "
                        "ORDER BY position", (run_id,))
    seeds = [int(r["seed_id"]) for r in items]
    records = {int(r["seed_id"]): json.loads(r["record"]) for r in items}
    at = now()
    with store.transaction():
        written = 0
        for i in seeds:
            rec = records[i]
            for s in range(samples):
                for task in TASKS:
                    if outputs_done is not None and written >= outputs_done:
                        break
                    task_verdicts = [verdict(i, m, s) for m in TASK_METRICS[task]]
                    failed_request = "error" in task_verdicts
                    text = (response(i, task, s) if response is not None
                            else f"Answer for {task}: \\boxed{{{rec['answer']}}}")
                    store.insert("eval_outputs", {
                        "run_id": run_id, "seed_id": i, "task": task, "sample_idx": s,
                        "status": "error" if failed_request else "ok",
                        "prompt_hash": f"h{i}{task}{s}",
                        "response": None if failed_request else text,
                        "finish_reason": None if failed_request else "stop",
                        "error": "HTTP 500: upstream failed" if failed_request else None,
                        "endpoint": "http://127.0.0.1:9/v1", "cached": 0,
                        "prompt_tokens": 100, "completion_tokens": 20, "cost": None,
                        "latency_ms": 50.0, "created_at": at})
                    written += 1
                    if not scores or outputs_done is not None:
                        continue
                    for metric in TASK_METRICS[task]:
                        v = verdict(i, metric, s)
                        if metric == "un":
                            score = None if v in ("error", "not_scored") else \
                                (95.0 if v == "correct" else 40.0)
                        else:
                            score = 1.0 if v == "correct" else 0.0
                        store.insert("eval_scores", {
                            "run_id": run_id, "seed_id": i, "sample_idx": s, "metric": metric,
                            "task": task, "verdict": v, "score": score,
                            "extracted": None if v in ("error", "unparseable") else
                            (str(rec["answer"]) if v == "correct" else f"{rec['answer']}1"),
                            "detail": json.dumps(detail(i, metric, s) if detail else {}),
                            "scorer_version": "test-1", "source": rec["source"],
                            "difficulty": rec["difficulty"], "scored_at": at})


def add_real_run(store: Store, cfg: Any, label: str, *, limit: int, shots: int = 3,
                 **fill: Any) -> int:
    """A run made by the real ``create_run`` on the database's working set (so
    prompts are rebuilt exactly), answered and scored by :func:`fill_run`."""
    from qcstation.eval.runs import create_run

    run_id = create_run(store, cfg, model="reference", backend="reference", shots=shots,
                        limit=limit, name=label, actor="tester")
    fill_run(store, run_id, **fill)
    with store.transaction():
        store.execute("UPDATE eval_runs SET status = 'done', finished_at = started_at "
                      "WHERE id = ?", (run_id,))
    return run_id
