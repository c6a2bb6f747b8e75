"""Evaluation: models run on a release (or the accepted working set), scored per SMART dimension.

Shaped like inspect_ai: *tasks* build prompts from frozen item records, *backends* answer
them, *scorers* judge the stored responses, *metrics* aggregate the scores. Nothing here
imports Textual; screens call these functions from workers.

Modules
-------
``types``       EvalRequest / EvalReply / Backend: the one interface every backend speaks.
``templates/``  prompt templates, one versioned file per task (users may override them).
``tasks``       item records + exemplars -> chat messages, per task.
``backends/``   ``openai`` (any OpenAI-compatible server, several base URLs), ``vllm``
                (in-process, GPU), ``reference`` (the benchmark's own references: self-test),
                ``batch`` (OpenAI Batch JSONL out and back in).
``runner``      creates runs, asks for what is missing (resumable, bounded concurrency),
                stores raw outputs in ``eval_outputs``.
``checker``     final-answer extraction and comparison (math-verify in worker processes,
                on top of the project's exact rationals); verdict correct | wrong | unparseable.
``scorers``     stored outputs -> ``eval_scores`` rows, each with its scorer version.
``metrics``     leaderboard with bootstrap CIs, breakdowns, confusion matrices, McNemar,
                Spearman (scipy).
``report``      Markdown report with matplotlib figures (PNG and SVG).
``browse``      keyset-paged queries for the results browser.

Storage (schema v4, ``db/migrations.py``)
-----------------------------------------
``eval_runs``    one row per run; ``spec`` (JSON) holds everything that decides a result:
                 release name/version (or working set), model config without secrets,
                 backend, tasks, shots, exemplar seed ids, temperature, samples, limit,
                 template names + versions + texts, scorer versions.
``eval_items``   the frozen item records of the run (role ``eval``) and its exemplars
                 (role ``exemplar``).
``eval_outputs`` one row per (seed, task, sample): raw response or the request's error.
``eval_scores``  one row per (seed, sample, metric), metric codes below.

Tasks and metrics
-----------------
=============== ====================================== ========================
task            the model is asked to                  metric code(s)
=============== ====================================== ========================
understanding   write the six key-information fields   ``un`` (LLM@Un, 1..100)
reasoning       formalize the question in SMT-LIB      ``re`` (ACC@Re)
arithmetic      answer the notation-only question      ``ar`` (ACC@Ar)
refinement      name the error types of a wrong CoT,   ``rt`` (ACC@R-t),
                then correct it with a final answer     ``rm`` (ACC@R-m)
final           answer the seed question               ``fi`` (ACC@Fi)
=============== ====================================== ========================

All-Pass (ACC@All) holds for an (item, sample) when un >= 90 and re, ar, rt, rm are correct.
Verdicts: ``correct`` | ``wrong`` | ``unparseable`` (the response had no usable answer) |
``error`` (the request failed; stays in the denominator) | ``not_scored`` (e.g. no judge).
"""

from qcstation.eval.types import (  # noqa: F401
    METRIC_LABELS,
    METRICS,
    TASK_METRICS,
    TASKS,
    VERDICTS,
    Backend,
    EvalReply,
    EvalRequest,
)

# Contract between the modules (signatures the screens and commands rely on):
#
# runner.create_run(store, cfg, *, model, release=None | (name, version), tasks=TASKS,
#                   shots=3, temperature=0.0, samples=1, limit=None, backend=None,
#                   name=None, actor) -> run_id
# runner.execute_run(db_path, run_id, cfg, *, progress=None | Callable[[RunProgress], None],
#                    cancel=None | threading.Event) -> RunProgress (final)
# runner.RunProgress: run_id, done, total, errors, cached, rate_per_s, eta_s,
#                     prompt_tokens, completion_tokens, cost
# scorers.score_run(db_path, run_id, cfg, *, progress=None) -> ScoreSummary
#                   (counts per metric and verdict; `flipped`: items whose verdict changed)
# metrics.leaderboard(store, run_ids, *, n_boot=1000, seed=0) -> list[RunMetrics]
#   RunMetrics: run_id, label (model name), values: dict[code -> MetricValue]; codes are
#   METRICS plus "all" and "rm_given_rt"; MetricValue: value (0..1, or 1..100 for un),
#   lo, hi (bootstrap 95% CI), n, counts per verdict; value None when not scored.
#   (also: code "all_no_un" = All-Pass without Understanding, MetricValue.note says why a
#   value is None; run_ids=None means every finished run; load_run() reads a run once and
#   every function takes it back as table= to avoid re-reading)
# metrics.breakdown(store, run_id, by="source" | "difficulty") -> dict[group, dict[code, MetricValue]]
# metrics.confusion(store, run_id) -> dict["re" | "ar" | "re+ar", Confusion(tp, fp, fn, tn)]
#   (a dimension's verdict against the final answer's, as in SMART fig. 21)
# metrics.compare(store, run_a, run_b, metric) -> Comparison (exact McNemar p, items that differ)
# metrics.correlation(store, run_ids) -> Spearman rho between metrics across runs
