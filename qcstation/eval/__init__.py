"""Evaluation: models run on a release (or the accepted working set), scored per SMART dimension.

Shaped like inspect_ai: *tasks* build prompts from frozen item records, *backends* answer
them, *scorers* judge the stored responses, *metrics* aggregate the scores. Nothing here
imports Textual; screens call these functions from workers.

Modules, bottom up (a module imports only those above it in this list)
-------------------------------------------------------------------------
``types``       the vocabulary (tasks, verdicts; one record per metric, ``METRIC_RECORDS``,
                from which every table of metric codes is derived) and the one
                interface every backend speaks: EvalRequest / EvalReply / Backend.
``protocols``   how a run asked, in the words its labels use (``protocol_label``); reads a
                run's spec only.
``templates/``  prompt templates, one versioned file per task (users may override them).
``tasks``       item records + exemplars -> chat messages, per task.
``backends/``   ``openai`` (any OpenAI-compatible server, several base URLs), ``vllm``
                (in-process, GPU), ``reference`` (the benchmark's own references: self-test),
                ``batch`` (OpenAI Batch JSONL out and back in; ``parse_custom_id``).
``batch_ray/``  the batch files through a Ray Data pipeline (Ray Data LLM's HTTP processor
                against any OpenAI-compatible endpoint, each request sent by the ``openai``
                backend; or its vLLM engine processor): ``eval ray-batch``; its own
                contract in its ``__init__``; only its ``pipeline`` imports Ray.
``runs``        the run record, the one place that reads and names runs: ``create_run``
                (freezes the spec and the items), ``get_run`` / ``list_runs`` / ``run_row``,
                ``resolve_run`` (every RUN argument: an id, or a name exactly one run has),
                ``resolve_release`` (NAME[@VERSION], default the latest approved), the lease
                (``take_lease``, ``lease_free``, ``effective_status``: a killed run reads
                ``stopped``; ``scoring_lease``: a run is ``done`` only once a scoring pass
                of one process has scored it, ``unscored`` while answered and not scored), and ``RunContext`` (rebuilds any request of a run).
``outputs``     the stored raw outputs (``eval_outputs``): pending requests, the exact
                prompt of one request, the row format, replies stored by ``custom_id``.
``checker/``    final-answer extraction and comparison (math-verify in worker processes,
                on top of the project's exact rationals); verdict correct | wrong | unparseable.
                ``extract`` (the answer out of a response), ``compare`` (the gold, the exact
                verdict), ``symbolic`` (the math-verify worker), ``AnswerChecker`` in
                ``__init__``.
``triviality``  Reasoning: whether a verified script's answer depends on the givens (Z3 runs
                it again with one given moved); a script that states the answer is ``trivial``.
``judging``     Understanding: judges' replies read as scores (1..100, conventional forms
                only), every configured judge required (else ``judge_error``), asked,
                re-read from the stored replies (re-scoring calls no model) or retried.
``scorers``     stored outputs -> ``eval_scores`` rows, each with its scorer version
                (``score_run``; ``LiveScorer`` scores answer tasks as a run stores them).
``twostep``     the SMART two-step Reflection & Refinement protocol (the default): a backend
                wrapper that asks the refinement only after a reflection naming exactly the
                injected error types; the run spec records the protocol.
``live``        live scoring: ``LiveScoring`` starts a worker process that reads a run's
                newly committed answer-task outputs from the database and stores their
                scores (``LiveScorer``) while the run goes on; the scoring pass does the rest.
``runner``      execution only: ``execute_run`` takes the lease, asks a backend for what is
                missing (resumable, bounded concurrency, response cache), stores the outputs.
``provenance``  what a run measured: release, model, refinement protocol, judges, templates,
                replies stopped by length; differences between two runs' ways of measuring.
``metric_values``  the records the metrics give (``MetricValue``, ``RunMetrics``, ``Confusion``,
                ``Comparison``, ``Correlation``) and how a value is written (``fmt_value``,
                ``fmt_ci``); records only, no store.
``item_values``  a run's items counted by their verdicts without numpy: the verdict codes,
                the kept rows' readers (``headline_rows``, ``verdict_counts``) and each metric's
                mean over items from the counted signatures (``headline_means``: the runs
                list's headline numbers; ``metrics`` builds its arrays from the same codes).
``metrics``     leaderboard with Wilson / bootstrap CIs, breakdowns, confusion matrices, McNemar,
                Spearman (numpy, scipy): the computations over a run's scores, giving those records.
``evaluate``    ``run_and_score``: the one run-then-score sequence of ``eval run`` /
                ``eval resume`` and of the workstation's runs screen; its
                ``RunOutcome`` carries the run's figures (``RunFigures``: counts, metrics).
``robustness/``  diagnostics over derived releases (variants A_avg/A_wst/RR/RC, ladders,
                perturbation drops, counterfactual, backward, step fidelity, round trip),
                self-refine and its McNemar gain; its own contract in its ``__init__``.
``report``      Markdown report with matplotlib figures (PNG and SVG).
``browse``      keyset-paged queries for the results browser, the runs list with headlines.
``search``      full-text search over responses for the results browser.
``charts``      the numbers the terminal charts draw.

``runs`` and ``outputs`` sit below both ``runner`` and ``scorers``: the scorers read a run
through ``RunContext``, the runner starts ``live`` (whose worker runs the scorers'
``LiveScorer`` over what the run stored), and
neither imports the other back (``tests/eval/test_eval_layers.py`` checks it).

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
Not the model's failures, left out of every denominator, counted apart and retryable:
``judge_error`` | ``invalid_item`` | ``checker_error``.

Answer tasks are read twice: *flexible* (``ar``, ``fi``, ``rm``: the final answer anywhere)
and *strict* (``ar_s``, ``fi_s``, ``rm_s``: the asked last line ``The answer is N.``).
ACC@R-m is the SMART paper's: refinement counts only where the reflection named every
error (``rm_ungated`` keeps the ungated figure; ``rm_keep`` / ``rm_change`` split it by
whether the injected errors keep the gold answer).
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

# Contract between the modules (signatures the screens and commands rely on; every parameter
# of each function named here, in order: tests/eval/test_metric_record.py checks it):
#
# runs.create_run(store, cfg, *, model, release=None | (name, version), tasks=TASKS,
#                 shots=3, temperature=0.0, samples=1, limit=None, max_tokens=None,
#                 backend=None, name=None, actor=None, rng_seed=0, protocol="two-step",
#                 adjust=None, rewrite=None, spec_extra=None) -> run_id
# runs.resolve_run(store, ref) -> run_id   (EvalError "no evaluation run ..." otherwise)
# runs.resolve_release(store, text="NAME[@VERSION]" | None) -> (name, version)
# runs.get_run(store, run_id) -> RunInfo;  runs.list_runs(store) -> [RunInfo]
# evaluate.run_and_score(db_path, run_id, cfg, *, progress=None, cancel=None,
#                        retry_errors=False, score=True, on_scoring=None,
#                        missing_scorer_ok=False, figures=False, judge_progress=None)
#                        -> RunOutcome(progress, scores, note, figures: RunFigures | None)
#                        (cancel stops the asking and the judges of the scoring pass)
# runner.execute_run(db_path, run_id, cfg, *, progress=None | Callable[[RunProgress], None],
#                    cancel=None | threading.Event, retry_errors=False, backend=None,
#                    live_score=False, preflight=True, keep_lease=False) -> RunProgress (final)
#                    (a run it ends with every request answered reads `unscored`; keep_lease:
#                    it stays `running` under this process's lease instead, and the scoring
#                    pass that follows marks it `done`: runs.scoring_lease)
# runner.RunProgress: run_id, done, total, errors, cached, asked, rate_per_s, eta_s,
#                     prompt_tokens, completion_tokens, cost, uncounted, status, message
# scorers.score_run(db_path, run_id, cfg, *, progress=None, only_missing=False, verifier=None,
#                   judges=None, retry_judges=False, judge_progress=None, cancel=None)
#                   -> ScoreSummary
#                   (judge_progress: called as each judge starts and as each request ends;
#                   cancel, a threading.Event: the judges stop, unjudged items judge_error)
#                   (counts per metric and verdict; `flipped`: items whose verdict changed)
# metrics.leaderboard(store, run_ids=None, *, n_boot=1000, seed=0) -> list[RunMetrics]
#   RunMetrics: run_id, label (model name), name, status, values: dict[code -> MetricValue];
#   codes are types.CODES (one record each: types.METRIC_RECORDS); MetricValue: value (0..1,
#   or 1..100 for un), lo, hi (95% interval), n, counts per verdict, not_model (left out,
#   counted apart); value None when not scored, and MetricValue.note says why. run_ids=None
#   means every finished run; load_run() reads a run once and every function takes it back
#   as table= to avoid re-reading. The records (RunMetrics, MetricValue, Confusion,
#   Comparison, Correlation) and fmt_value / fmt_ci live in metric_values.
# metrics.breakdown(store, run_id, by="source" | "difficulty", *, n_boot=1000, seed=0,
#                   table=None) -> dict[group, dict[code, MetricValue]]
# metrics.confusion(store, run_id, *, table=None)
#   -> dict["re" | "ar" | "re+ar", Confusion(tp, fp, fn, tn)]
#   (a dimension's verdict against the final answer's, as in SMART fig. 21)
# metrics.compare(store, run_a, run_b, metric, *, tables=None)
#   -> Comparison (exact McNemar p, items that differ)
# metrics.correlation(store, run_ids, *, codes=(...)) -> Spearman rho between metrics across runs
