"""The generate → verify → regenerate loop for the four SMART dimensions.

For each active seed and dimension the loop makes an artifact, checks it, and on
failure tries again with the checker's feedback, up to ``generation.max_attempts``;
after that the artifact stays ``failed`` with its history. Exact rules are used
wherever the data allows (calculator-annotated solutions, explicit equations, the
seed's own chain of thought); a configured model (any OpenAI-compatible server)
covers the rest. Where neither applies the item says so plainly (``needs_model``).

Crash safety: an attempt row is written before the generator runs and the artifact
is written in one transaction with the attempt's result; an artifact left
``generated`` by a killed run is verified at the start of the next one. Nothing is
generated twice: seeds that already have a current artifact are skipped, and model
calls are cached by the LLM client.

Dimension order matters: arithmetic (notation) questions are derived from the
*verified* reasoning (SMT-LIB) artifact of the same seed.

Memory: the seeds are read a page at a time (:meth:`Pipeline.seed_pages`, :attr:`Pipeline.PAGE`
rows by id, never the whole selection), every dimension over every page in turn, so a run
holds one page of seed rows and its jobs whatever the number of seeds (1–2 KB a seed held
for the whole run was 1–2 GB at a million seeds). Model jobs are asked in windows of
:attr:`Pipeline.LLM_WINDOW`, every round of a window before the next one, and a finished job
drops the replies it held; what a run keeps of model replies is bounded by the window, whatever
the number of seeds (issue 30.1).

Z3's verdicts do not depend on the machine's load: Z3's resource count decides and the clock
is only a safety net whose expiry decides nothing (:mod:`.pipeline_records`, :func:`verify_limits`,
:func:`clock_stopped`, :func:`awaits_check`).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from db import Store, current_actor, now
from db.artifacts import current_artifact, reject_feedback
from qcstation.common.vocab import DIMENSIONS, USABLE_STATUSES
from qcstation.core.construct.pipeline_model import job_messages, prompt_version, reply_content
from qcstation.core.construct.pipeline_summary import PipelineSummary
from qcstation.core.construct.pipeline_records import (
    PENDING_UNDER_LOAD,
    ItemTaken,
    Job,
    awaits_check,
    checked_elsewhere,
    clock_stopped,
    finish_attempt,
    keep_rule,
    record_needs_model,
    save_artifact,
    set_verified,
    start_attempt,
    until_stopped,
    verify_limits,
)
from qcstation.core.construct.check.checks import (
    check_refinement,
    expected_answer,
    meaning_refusal,
    model_feedback,
    notation_smtlib,
    rounded_gold_match,
)
from qcstation.core.construct.check.selfcheck import hard_flags
from qcstation.common.config import Config
from qcstation.common.errors import GenerationError, ModelAccessError

ProgressFn = Callable[[int, int, str], None]

DONE_STATUSES = USABLE_STATUSES


# ---------------------------------------------------------------- the loop
class Pipeline:
    def __init__(self, db_path: str | Path, cfg: Config, *, actor: str | None = None,
                 progress: ProgressFn | None = None, cancel: Callable[[], bool] | None = None) -> None:
        self.db_path = Path(db_path)
        #: asked between batches and rounds and with requests in flight: true stops the run
        self.cancel = cancel or (lambda: False)
        self.cfg = cfg
        self.actor = actor or current_actor()
        self.progress = progress or (lambda done, total, msg: None)
        self.store = Store(self.db_path, create=False)
        self.summary = PipelineSummary()
        self._pool: Any = None
        self._deferred: list[tuple[Job, int, int, dict[str, Any], str, str | None]] | None = None

    # -- resources ---------------------------------------------------------------
    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self.store.close()

    def __enter__(self) -> "Pipeline":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pool(self) -> Any:
        if self._pool is None:
            from qcstation.core.verify.verifier import VerifierPool

            self._pool = VerifierPool(workers=self.cfg.verify.workers, limits=verify_limits(self.cfg))
        return self._pool

    @property
    def has_model(self) -> bool:
        return self.cfg.generator is not None

    # -- selection ---------------------------------------------------------------
    #: seed rows read at a time (a multiple of CHECK_BATCH: a fresh run checks the same
    #: batches as it would over the whole selection)
    PAGE = 1024

    def _selection(self, source: str | None, seed_ids: Iterable[int] | None,
                   up_to: int | None = None) -> tuple[str, list[Any]]:
        """The WHERE clause and parameters of the seeds a command selects (``up_to``: ids up to
        this one only); an unknown source is a :class:`GenerationError` naming the sources there
        are."""
        sql = "status = 'active'"
        params: list[Any] = []
        if up_to is not None:
            sql += " AND id <= ?"
            params.append(int(up_to))
        if source:
            sql += " AND source = ?"
            params.append(source)
        if seed_ids is not None:
            ids = list(seed_ids)
            sql += f" AND id IN ({','.join('?' * len(ids))})" if ids else " AND 0"
            params.extend(ids)
        if source and not self.store.scalar("SELECT 1 FROM seeds WHERE source = ? LIMIT 1", (source,)):
            known = [r["source"] for r in self.store.query("SELECT DISTINCT source FROM seeds ORDER BY 1")]
            raise GenerationError(f"no seeds of source {source!r}; sources here: "
                                  f"{', '.join(known) or '(none: import seeds first)'}")
        return sql, params

    def seeds(self, *, source: str | None, limit: int | None,
              seed_ids: Iterable[int] | None = None) -> list[dict[str, Any]]:
        """Every selected seed row, in id order (for a small selection; a run reads
        :meth:`seed_pages`)."""
        return [row for page in self.seed_pages(source=source, limit=limit, seed_ids=seed_ids)
                for row in page]

    def last_seed_id(self) -> int:
        """The highest seed id there is now: a run that pages by id reads up to it, so seeds
        imported during the run are not taken (as one query at the start would not take them)."""
        return int(self.store.scalar("SELECT COALESCE(MAX(id), 0) FROM seeds") or 0)

    def count_seeds(self, *, source: str | None, limit: int | None,
                    seed_ids: Iterable[int] | None = None, up_to: int | None = None) -> int:
        """How many seeds :meth:`seed_pages` gives (the progress total)."""
        where, params = self._selection(source, list(seed_ids) if seed_ids is not None else None,
                                        up_to)
        n = int(self.store.scalar(f"SELECT COUNT(*) FROM seeds WHERE {where}", params) or 0)
        return n if limit is None else min(n, max(0, int(limit)))

    def seed_pages(self, *, source: str | None, limit: int | None,
                   seed_ids: Iterable[int] | None = None, page: int | None = None,
                   up_to: int | None = None) -> Iterator[list[dict[str, Any]]]:
        """The selected seed rows in id order, ``page`` (default :attr:`PAGE`) at a time: each
        page read by its own query after the last id of the one before, so only one page is
        held. ``up_to``: ids up to this one only (default :meth:`last_seed_id` now)."""
        ids = list(seed_ids) if seed_ids is not None else None
        where, params = self._selection(source, ids, self.last_seed_id() if up_to is None else up_to)
        size = max(1, int(page or self.PAGE))
        left = None if limit is None else max(0, int(limit))
        last = -1
        while left is None or left > 0:
            n = size if left is None else min(size, left)
            rows = self.store.query(f"SELECT * FROM seeds WHERE {where} AND id > ? ORDER BY id LIMIT ?",
                                    [*params, last, n])
            if not rows:
                return
            yield rows
            last = int(rows[-1]["id"])
            if left is not None:
                left -= len(rows)
            if len(rows) < n:
                return

    # -- entry points ------------------------------------------------------------
    def generate(self, *, dimensions: Iterable[str] | None = None, source: str | None = None,
                 limit: int | None = None, seed_ids: Iterable[int] | None = None,
                 retry_failed: bool = False) -> PipelineSummary:
        dims = _ordered(dimensions)
        ids = list(seed_ids) if seed_ids is not None else None
        top = self.last_seed_id()       # every dimension reads the same seeds
        total = self.count_seeds(source=source, limit=limit, seed_ids=ids, up_to=top)
        started = now()
        for dim in dims:
            resumed_n, seen = 0, 0
            for seeds in self.seed_pages(source=source, limit=limit, seed_ids=ids, up_to=top):
                resumed = self._resume_unverified(dim, seeds, note=False)
                resumed_n += len(resumed)
                jobs: list[Job] = []
                for seed in seeds:
                    if seed["id"] in resumed:
                        continue  # counted by the resume
                    cur = current_artifact(self.store, seed["id"], dim)
                    if cur is None:
                        jobs.append(Job(seed, dim))
                    elif cur["status"] == "rejected":
                        jobs.append(self._reject_job(seed, dim, cur))
                    elif cur["status"] == "failed" and retry_failed:
                        jobs.append(Job(seed, dim, feedback=_failure_feedback(cur, seed),
                                         previous_output=_artifact_output(cur), replaces_id=cur["id"]))
                    else:
                        self.summary.add(dim, "already " + cur["status"])
                base = seen + len(seeds) - len(jobs)        # seeds of the dimension settled
                self._run_jobs(dim, jobs, progress=functools.partial(self._seeds_done, dim, base, total))
                seen += len(seeds)
                self.progress(seen, total, f"{dim}: {seen}/{total}")
            if resumed_n:
                self.summary.notes.append(f"{dim}: resumed {resumed_n} unverified artifact(s)")
        self.store.event(self.actor, "generation.run", "pipeline", None,
                         {"started_at": started, "dimensions": dims, "source": source, "limit": limit,
                          "summary": self.summary.to_dict()["dimensions"]})
        return self.summary

    def regenerate_rejected(self) -> PipelineSummary:
        rows = self.store.query(
            "SELECT a.*, s.id AS sid FROM artifacts a JOIN seeds s ON s.id = a.seed_id "
            "WHERE a.status = 'rejected' AND s.status = 'active' ORDER BY a.dimension, a.seed_id")
        by_dim: dict[str, list[Job]] = {}
        for row in rows:
            seed = self.store.one("SELECT * FROM seeds WHERE id = ?", (row["sid"],))
            assert seed is not None
            by_dim.setdefault(row["dimension"], []).append(self._reject_job(seed, row["dimension"], row))
        for dim in _ordered(by_dim):
            if not self._stop():
                self._run_jobs(dim, by_dim[dim])
        self.store.event(self.actor, "generation.regenerate_rejected", "pipeline", None,
                         {"summary": self.summary.to_dict()["dimensions"]})
        return self.summary

    def verify(self, *, dimensions: Iterable[str] | None = None, source: str | None = None,
               limit: int | None = None, reverify: bool = False) -> PipelineSummary:
        """Verify artifacts left ``generated`` or stopped by the clock (:func:`awaits_check`), or,
        with ``reverify``, re-check every current one."""
        dims = _ordered(dimensions)
        statuses = ("generated", "verified", "failed", "accepted") if reverify else ("generated",)
        top = self.last_seed_id()
        for dim in dims:
            for seeds in self.seed_pages(source=source, limit=limit, up_to=top):
                arts = []
                for seed in seeds:
                    cur = current_artifact(self.store, seed["id"], dim)
                    if (cur is not None and (cur["status"] in statuses or awaits_check(cur))
                            and not checked_elsewhere(self.store, cur)):
                        arts.append((seed, cur))
                self._verify_artifacts(dim, arts, keep_review_status=True)
        return self.summary

    # -- internals ---------------------------------------------------------------
    def _seeds_done(self, dim: str, base: int, total: int, n: int) -> None:
        """Progress of a page's jobs: ``n`` of them finished after ``base`` seeds settled."""
        self.progress(base + n, total, f"{dim}: {base + n}/{total}")

    def _reject_job(self, seed: dict[str, Any], dim: str, art: dict[str, Any]) -> Job:
        feedback = reject_feedback(self.store, art["id"])
        if not feedback:
            feedback = self.store.scalar(
                "SELECT reason FROM reviews WHERE artifact_id = ? AND verdict = 'reject' "
                "AND undone_at IS NULL ORDER BY id DESC LIMIT 1", (art["id"],))
        return Job(seed, dim, feedback=f"A reviewer rejected it: {feedback or 'no reason given'}",
                    previous_output=_artifact_output(art), replaces_id=art["id"])

    def _resume_unverified(self, dim: str, seeds: list[dict[str, Any]], note: bool = True) -> set[int]:
        """Verify artifacts a killed run left ``generated``; returns their seed ids (``note``:
        say how many in the summary's notes; a paged run says it once for all its pages)."""
        arts = []
        for seed in seeds:
            cur = current_artifact(self.store, seed["id"], dim)
            if cur is not None and awaits_check(cur) and not checked_elsewhere(self.store, cur):
                arts.append((seed, cur))
        if arts:
            if note:
                self.summary.notes.append(f"{dim}: resumed {len(arts)} unverified artifact(s)")
            self._verify_artifacts(dim, arts)
        return {seed["id"] for seed, _ in arts}

    def _verify_artifacts(self, dim: str, arts: list[tuple[dict[str, Any], dict[str, Any]]],
                          keep_review_status: bool = False) -> None:
        if not arts:
            return
        results = self._check(dim, [(seed, json.loads(a["content"])) for seed, a in arts])
        for (_seed, art), (ok, result) in zip(arts, results):
            if clock_stopped(result) and (art["status"] in ("verified", "accepted")
                                          or not str(art.get("generator") or "").startswith("llm")):
                # the machine's load decides nothing: a stored verdict stays, a rule-made
                # artifact stays pending for the next run
                self.summary.add(dim, PENDING_UNDER_LOAD)
                continue
            if keep_review_status and ok and art["status"] == "accepted":
                with self.store.transaction():
                    self.store.execute("UPDATE artifacts SET verify_result = ? WHERE id = ?",
                                       (json.dumps(result, sort_keys=True, default=str), art["id"]))
            else:
                set_verified(self.store, art["id"], art["attempt_id"], ok, result)
            self.summary.add(dim, "verified" if ok else f"failed:{result.get('status')}")

    def _check(self, dim: str, items: list[tuple[dict[str, Any], dict[str, Any]]]
               ) -> list[tuple[bool, dict[str, Any]]]:
        """Automatic checks of artifact contents, batched (Z3 runs in the isolated pool)."""
        if dim in ("reasoning", "arithmetic"):
            texts: list[tuple[str, Any]] = []
            early: dict[int, tuple[bool, dict[str, Any]]] = {}
            model_made: dict[int, str] = {}   # checked for meaning besides Z3 (issue 31)
            for i, (seed, content) in enumerate(items):
                if dim == "reasoning":
                    smt = str(content.get("smtlib", ""))
                    texts.append((smt, expected_answer(seed)))
                    if content.get("rule") is None:
                        model_made[i] = smt
                    continue
                smt, problem = notation_smtlib(content)
                if problem:
                    early[i] = (False, {"status": "mismatch", "message": problem})
                else:
                    texts.append((smt, expected_answer(seed)))
                    if content.get("form") in ("model", "human"):
                        model_made[i] = smt
            outs = iter(list(self.pool.verify_many(texts)) if texts else [])
            res = []
            for i, (seed, _content) in enumerate(items):
                if i in early:
                    res.append(early[i])
                    continue
                o = next(outs)
                result = o.to_dict()
                rounded = rounded_gold_match(seed, result)
                if rounded is not None:
                    result = rounded
                if result["status"] == "verified" and i in model_made:
                    result = meaning_refusal(model_made[i], seed, result)
                if result["status"] == "timeout":
                    result["decided_by"] = "clock"      # the load, not the script: see clock_stopped
                hard = hard_flags(dim, _content, seed) if result["status"] == "verified" else []
                if hard:
                    # Z3 found the answer, but a given stands for another quantity: not verified
                    result = {"status": "self-check", "message": "; ".join(f.message for f in hard)}
                res.append((result["status"] == "verified", result))
            return res
        if dim == "understanding":
            from qcstation.core.construct.make.keyinfo import validate_keyinfo

            res = []
            for seed, content in items:
                problems = validate_keyinfo(content, seed["question"])
                res.append((not problems, {"status": "verified" if not problems else "invalid",
                                           "message": "; ".join(problems) or "six fields present and grounded"}))
            return res
        res = []
        for _seed, content in items:
            problems = check_refinement(content)
            res.append((not problems, {"status": "verified" if not problems else "invalid",
                                       "message": "; ".join(problems) or
                                       f"{len(content.get('errors', []))} error(s) injected and recorded"}))
        return res

    CHECK_BATCH = 256

    def _run_jobs(self, dim: str, jobs: list[Job], progress: Callable[[int], None] | None = None) -> None:
        """Every job of ``jobs`` (rules first, checked in batches; then the model's);
        ``progress(n)``: n of them finished (default: this run's progress, of ``len(jobs)``)."""
        if not jobs:
            return
        total, done = len(jobs), 0
        if progress is None:
            def progress(n: int) -> None:
                self.progress(n, total, f"{dim}: {n}/{total}")
        llm_jobs: list[Job] = []
        # rule-made artifacts are stored first and checked in batches, so the verifier
        # pool's workers are all busy instead of one round-trip per item
        self._deferred = []
        try:
            for start in range(0, total, self.CHECK_BATCH):
                if self._stop():
                    break
                for job in jobs[start:start + self.CHECK_BATCH]:
                    if self._guarded_rule_job(job) == "llm":
                        llm_jobs.append(job)
                llm_jobs.extend(self._flush_checks(dim))
                done = min(total, start + self.CHECK_BATCH) - len(llm_jobs)
                progress(done)
        finally:
            self._deferred = None
        if llm_jobs and not self._stop():
            self._llm_jobs(dim, llm_jobs, lambda n: progress(done + n))

    def _flush_checks(self, dim: str) -> list[Job]:
        """Check the deferred artifacts in one batch; returns rule failures a model should retry."""
        pending, self._deferred = self._deferred or [], []
        if not pending:
            return []
        results = self._check(dim, [(job.seed, content) for job, _, _, content, _, _ in pending])
        retry = []
        for (job, art_id, attempt_id, _content, generator, raw), (ok, result) in zip(pending, results):
            if self._record_check(job, art_id, attempt_id, ok, result, generator, raw):
                retry.append(job)
        return retry

    def _record_check(self, job: Job, art_id: int, attempt_id: int, ok: bool,
                      result: dict[str, Any], generator: str, raw: str | None) -> bool:
        """Store a check's result; True when an exact rule failed and a model should take over.
        A rule-made artifact the clock stopped is left ``generated`` (:func:`clock_stopped`)."""
        if clock_stopped(result) and not generator.startswith("llm"):
            self.summary.add(job.dimension, PENDING_UNDER_LOAD)
            return False
        set_verified(self.store, art_id, attempt_id, ok, result)
        self.summary.add(job.dimension, "verified" if ok else f"failed:{result.get('status')}")
        if not ok and self.has_model and not generator.startswith("llm"):
            job.feedback = model_feedback(result, job.seed, raw if job.dimension == "reasoning" else None)
            job.previous_output = raw
            job.replaces_id = art_id
            return True
        return False

    # -- rules -------------------------------------------------------------------
    def _guarded_rule_job(self, job: Job) -> str:
        """:meth:`_rule_job`, but a seed whose text breaks a rule (too deep, too long, a
        number too big) is recorded with that reason and the run goes on to the next one."""
        try:
            return self._rule_job(job)
        except (RecursionError, ValueError, ArithmeticError, MemoryError, IndexError,
                KeyError, TypeError, AttributeError) as exc:
            text = str(exc) or type(exc).__name__
            text = text if len(text) <= 200 else text[:199] + "…"
            return self._needs_model(job, f"the seed's text cannot be processed by the rules "
                                          f"({type(exc).__name__}: {text})")

    def _rule_job(self, job: Job) -> str:
        """Try the exact rule for this job; returns 'done' or 'llm' (needs the model path)."""
        dim, seed = job.dimension, job.seed
        if job.feedback and job.replaces_id and not (dim == "arithmetic" and self.has_model):
            # a rule-made artifact failed or was rejected: the rule would make the same text again
            # (a model rephrases notation questions from the rendering, see _arithmetic_rule)
            prev = self.store.one("SELECT generator FROM artifacts WHERE id = ?", (job.replaces_id,))
            if prev and str(prev["generator"]).startswith("rule:"):
                return self._needs_model(job, "the rule generator would produce the same text again; "
                                              "configure a generator model to act on the feedback")
        try:
            if dim == "reasoning":
                from qcstation.core.construct.make.rules import RuleError, rule_for_seed

                try:
                    rule = rule_for_seed(seed)
                except RuleError as exc:
                    return self._needs_model(job, _no_rule(exc))
                keep_rule(self.store, seed, rule)       # for derived sets (pipeline_records)
                content = {"smtlib": rule.smtlib, "rule": rule.rule, "notes": list(rule.notes),
                           "links": list(rule.links), "givens": list(rule.givens)}
                if rule.uncertain:
                    content["uncertain"] = list(rule.uncertain)
                for key in ("bound", "factors"):  # givens vouched for; named factors
                    if getattr(rule, key) is not None:
                        content[key] = getattr(rule, key)
                return self._store_and_check(job, content, f"rule:{rule.rule}", raw=rule.smtlib,
                                             inputs={"rule": rule.rule})
            if dim == "arithmetic":
                return self._arithmetic_rule(job)
            if dim == "understanding":
                from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed

                try:
                    # the verified formalization's reading, or one refused only for places tied by order
                    fields, reading = keyinfo_for_seed(seed)
                except GenerationError as exc:
                    return self._needs_model(job, _no_rule(exc))
                return self._store_and_check(job, fields, "rule:keyinfo", raw=None, inputs={"rule": reading})
            if dim == "refinement":
                if not seed.get("solution"):
                    return self._needs_model(job, "the seed has no gold chain of thought to inject errors into")
                return self._refinement_from_cot(job, seed["solution"], "rule:inject")
        except GenerationError as exc:
            return self._needs_model(job, str(exc))
        raise GenerationError(f"unknown dimension {dim!r}")

    def _arithmetic_rule(self, job: Job) -> str:
        from qcstation.core.construct.make.notation import NotationError, render_notation

        src = current_artifact(self.store, job.seed["id"], "reasoning")
        if src is None or src["status"] not in DONE_STATUSES:
            self.summary.add("arithmetic", "waiting for verified reasoning")
            return "done"
        smt = json.loads(src["content"])["smtlib"]
        try:
            q = render_notation(smt)
        except NotationError as exc:
            # a model writes the question in the canonical form instead; Z3 still checks it
            job.source_artifact = {"notation": None, "smtlib": smt, "source_artifact_id": src["id"]}
            return self._needs_model(job, f"the SMT-LIB cannot be rendered deterministically ({exc})")
        content = {"notation": q.text, "variables": {k: str(v) for k, v in q.variables.items()},
                   "target": q.target, "smtlib": smt, "source_artifact_id": src["id"]}
        src_content = json.loads(src["content"])
        for key in ("links", "uncertain"):  # how the source formalization was settled (audit)
            if src_content.get(key):
                content[key] = src_content[key]
        if self.has_model and (self.cfg.generation.rephrase_notation or job.feedback):
            job.source_artifact = content
            return "llm"
        return self._store_and_check(job, content, "rule:notation", raw=q.text,
                                     inputs={"source_artifact_id": src["id"]})

    def _refinement_from_cot(self, job: Job, cot: str, generator: str,
                             attempt_id: int | None = None, model: str | None = None,
                             model_chain: bool = False) -> str:
        from qcstation.core.construct.make.inject import InjectionError, clean_cot, inject_errors

        g = self.cfg.generation
        rng_seed = int(g.rng_seed) * 1_000_003 + int(job.seed["id"])
        redrawn: str | None = None
        try:
            injected = inject_errors(cot, g.errors_per_cot, rng_seed=rng_seed,
                                     question=job.seed["question"], answer=job.seed["answer_text"],
                                     redraw=False)
        except InjectionError as exc:
            if not model_chain:
                raise
            # SMART's uniform draw did not fit a model's good chain: the rules try the other
            # types before giving up (the model's reply is not at fault)
            redrawn = str(exc)
            try:
                injected = inject_errors(cot, g.errors_per_cot, rng_seed=rng_seed,
                                         question=job.seed["question"], answer=job.seed["answer_text"],
                                         redraw=True)
            except InjectionError as again:
                return self._injection_failed(job, cot, model, f"{redrawn}; other types: {again}")
        content = {
            "gt_cot": "\n".join(clean_cot(cot, answer=job.seed["answer_text"])),
            "w_cot": injected.text,
            "errors": [e.__dict__ if not hasattr(e, "to_dict") else e.to_dict() for e in injected.errors],
            "n_errors": len(injected.errors),
            "rng_seed": rng_seed,
            "gold_answer": injected.gold_answer,
            "wrong_answer": injected.wrong_answer,
        }
        if redrawn:
            content["redrawn"] = f"the drawn type did not fit ({redrawn}); another type was drawn"
        return self._store_and_check(job, content, generator, raw=injected.text,
                                     inputs={"n_errors": g.errors_per_cot, "rng_seed": rng_seed},
                                     attempt_id=attempt_id, model=model)

    def _store_and_check(self, job: Job, content: dict[str, Any], generator: str, *,
                         raw: str | None, inputs: Any, attempt_id: int | None = None,
                         model: str | None = None, prompt_version: str | None = None) -> str:
        if attempt_id is None:
            try:
                attempt_id = start_attempt(self.store, job, generator, model, prompt_version, inputs)
            except ItemTaken:
                self.summary.add(job.dimension, "taken by another process")
                return "done"
        try:
            art_id = save_artifact(self.store, job, attempt_id, content, generator=generator,
                                    model=model, prompt_version=prompt_version, raw_output=raw)
        except ItemTaken:
            self.summary.add(job.dimension, "abandoned (the replaced version changed)")
            return "done"
        if self._deferred is not None and not generator.startswith("llm"):
            self._deferred.append((job, art_id, attempt_id, content, generator, raw))
            return "deferred"
        ((ok, result),) = self._check(job.dimension, [(job.seed, content)])
        return "llm" if self._record_check(job, art_id, attempt_id, ok, result, generator, raw) else "done"

    def _injection_failed(self, job: Job, cot: str, model: str | None, reason: str) -> str:
        """A model's good chain the injection rules cannot use: stored ``failed`` with the rules'
        reason (so ``status`` counts it and a plain re-run does not ask the model again)."""
        from qcstation.core.construct.make.inject import clean_cot

        try:
            attempt_id = start_attempt(self.store, job, "llm+inject", model, None, {"rules": "inject"})
            content = {"gt_cot": "\n".join(clean_cot(cot, answer=job.seed["answer_text"])), "w_cot": "",
                       "errors": [], "n_errors": 0}
            art_id = save_artifact(self.store, job, attempt_id, content, generator="llm+inject", model=model,
                                   prompt_version=None, raw_output=cot)
        except ItemTaken:
            self.summary.add(job.dimension, "taken by another process")
            return "done"
        set_verified(self.store, art_id, attempt_id, False, {
            "status": "inject_failed",
            "message": f"the injection rules could not inject errors into the model's good chain of thought "
                       f"(a failure of the rules, not of the model): {reason}"})
        self.summary.add(job.dimension, "failed:inject_failed")
        return "done"

    def _needs_model(self, job: Job, reason: str) -> str:
        if self.has_model:
            return "llm"
        self.summary.add(job.dimension, "needs_model")
        message = f"{reason}; no model is configured"
        if len(self.summary.notes) < 50:
            self.summary.notes.append(f"seed {job.seed['id']} {job.dimension}: {message}")
        record_needs_model(self.store, job, message)
        return "done"

    # -- model path (what is asked and how a reply is read: pipeline_model) -------------
    #: model jobs asked as one window, every round of it before the next window starts: what
    #: a window holds (each reply, up to MAX_REPLY_CHARS, and the earlier attempts every retry
    #: carries) is bounded by its size, never by the number of seeds (issue 30.1)
    LLM_WINDOW = 64

    def _llm_jobs(self, dim: str, jobs: list[Job], advance: Callable[[int], None]) -> None:
        model_cfg = self.cfg.generator
        assert model_cfg is not None
        window = max(self.LLM_WINDOW, 4 * int(model_cfg.concurrency))
        finished = 0
        for start in range(0, len(jobs), window):
            if self._stop():
                break
            part = jobs[start:start + window]

            def moved_on(n: int, before: int = finished) -> None:
                advance(before + n)

            finished += self._llm_window(dim, part, moved_on)
            for job in part:
                job.release()

    def _llm_window(self, dim: str, jobs: list[Job], advance: Callable[[int], None]) -> int:
        """Every round of one window of model jobs; returns how many finished."""
        from qcstation.core.construct.make.llm import LLMClient

        model_cfg = self.cfg.generator
        assert model_cfg is not None
        pending = jobs
        max_attempts = max(1, int(self.cfg.generation.max_attempts))
        finished = 0
        for round_no in range(1, max_attempts + 1):
            if not pending or self._stop():
                break
            batch, attempt_ids, mine = [], [], []
            for j in pending:
                m = job_messages(j)
                try:
                    aid = start_attempt(self.store, j, "llm", model_cfg.model, prompt_version(j),
                                     {"messages": m, "round": round_no})
                except ItemTaken:
                    self.summary.add(dim, "taken by another process")
                    continue
                batch.append(m)
                attempt_ids.append(aid)
                mine.append(j)
            pending = mine
            if not pending:
                break

            async def _round() -> list[Any]:
                client = LLMClient(model_cfg, store_path=self.db_path, purpose=f"generate:{dim}")
                try:
                    return await until_stopped(client.chat_many(batch), self._stop)  # noqa: B023
                finally:
                    await client.aclose()

            results = asyncio.run(_round())
            if results is None:      # stopped with the requests in flight: the items stay as they were
                for attempt_id in attempt_ids:
                    finish_attempt(self.store, attempt_id, raw_output=None, verify_status="stopped",
                                   parse_error="the run was stopped before the model replied")
                return finished
            retry: list[Job] = []
            for job, attempt_id, res in zip(pending, attempt_ids, results):
                self.summary.add_call(res)
                if isinstance(res, ModelAccessError) or isinstance(res, Exception):
                    finish_attempt(self.store, attempt_id, raw_output=None,
                                    parse_error=f"model call failed: {res}", verify_status="model_error")
                    job.feedback = None  # the model never saw it; ask again unchanged
                    retry.append(job)
                    continue
                ok = self._accept_llm_output(job, attempt_id, res.text, model_cfg.model)
                if not ok:
                    retry.append(job)
            finished += len(pending) - len(retry)
            advance(finished)
            pending = retry
        for _job in pending if not self.summary.stopped else ():
            self.summary.add(dim, "failed:attempts_exhausted")
        return finished

    def _stop(self) -> bool:   # is the run to stop (cancel asked; true from then on)?
        self.summary.stopped = self.summary.stopped or bool(self.cancel())
        return self.summary.stopped

    def _accept_llm_output(self, job: Job, attempt_id: int, text: str, model: str) -> bool:
        dim, pv = job.dimension, prompt_version(job)
        try:
            content = reply_content(job, text)
        except GenerationError as exc:
            finish_attempt(self.store, attempt_id, raw_output=text, parse_error=str(exc),
                            verify_status="parse_error")
            job.feedback, job.previous_output = str(exc), text
            return False
        if dim == "refinement":
            # the model's chain is good; what follows is the injection rules' work, and a failure
            # of theirs is theirs: another error type is tried, and a chain no type fits is
            # recorded as the rules' failure, never sent back to the model nor retried with it
            finish_attempt(self.store, attempt_id, raw_output=text, verify_status="cot_ok")
            self._refinement_from_cot(job, text, "llm+inject", model=model, model_chain=True)
            return True
        assert content is not None
        try:
            art_id = save_artifact(self.store, job, attempt_id, content, generator="llm", model=model,
                                    prompt_version=pv, raw_output=text)
        except ItemTaken:
            self.summary.add(dim, "abandoned (the replaced version changed)")
            return True
        ((ok, result),) = self._check(dim, [(job.seed, content)])
        if ok and dim == "understanding":
            # a model's key information is read for content too (the rules' drafts are made
            # from the question's own sentences)
            from qcstation.core.construct.make.keyinfo import keyinfo_content_problems

            problems = keyinfo_content_problems(content, job.seed["question"])
            if problems:
                ok, result = False, {"status": "invalid", "message": "; ".join(problems)}
        set_verified(self.store, art_id, attempt_id, ok, result)
        if ok:
            self.summary.add(dim, "verified")
            return True
        if clock_stopped(result):
            # the machine was too busy, the model's text is not at fault: not asked again; the
            # next run checks the same text again (awaits_check)
            self.summary.add(dim, "failed:timeout (the clock, under load; a rerun checks it again)")
            return True
        job.feedback = model_feedback(result, job.seed, content.get("smtlib") if dim == "reasoning" else None)
        job.previous_output, job.replaces_id = text, art_id
        return False


# ---------------------------------------------------------------- small helpers
# arithmetic is derived from verified reasoning, so reasoning always runs first
GENERATION_ORDER = ("reasoning", "arithmetic", "understanding", "refinement")


def _ordered(dimensions: Iterable[str] | None) -> list[str]:
    wanted = set(DIMENSIONS if dimensions is None else dimensions)
    unknown = wanted - set(DIMENSIONS)
    if unknown:
        raise GenerationError(f"unknown dimension(s): {', '.join(sorted(unknown))}; "
                              f"choose from {', '.join(DIMENSIONS)}")
    return [d for d in GENERATION_ORDER if d in wanted]


def _no_rule(exc: Exception) -> str:
    text = str(exc)
    return text if text.lower().startswith("no rule applies") else f"no rule applies: {text}"


def _artifact_output(art: dict[str, Any]) -> str | None:
    """The text a model produced for this artifact, to show it alongside feedback."""
    try:
        content = json.loads(art["content"])
    except (TypeError, ValueError):
        return None
    key = {"reasoning": "smtlib", "arithmetic": "notation", "refinement": "w_cot"}.get(art["dimension"])
    if key is None:
        return json.dumps(content, ensure_ascii=False)
    value = content.get(key)
    return None if value is None else str(value)


def _failure_feedback(art: dict[str, Any], seed: dict[str, Any]) -> str | None:
    try:
        res = json.loads(art["verify_result"] or "{}")
    except ValueError:
        return None
    if not isinstance(res, dict) or not res.get("status") or res.get("status") == "inject_failed":
        return None     # (the injection rules' failure is never the model's to fix)
    smt = _artifact_output(art) if art["dimension"] == "reasoning" else None
    return model_feedback(res, seed, smt)


def run_generate(db_path: str | Path, cfg: Config, **kw: Any) -> PipelineSummary:
    progress = kw.pop("progress", None)
    actor = kw.pop("actor", None)
    with Pipeline(db_path, cfg, actor=actor, progress=progress) as p:
        return p.generate(**kw)


def run_verify(db_path: str | Path, cfg: Config, **kw: Any) -> PipelineSummary:
    progress = kw.pop("progress", None)
    with Pipeline(db_path, cfg, progress=progress) as p:
        return p.verify(**kw)


def regenerate_rejected(db_path: str | Path, cfg: Config, *, actor: str | None = None,
                        progress: ProgressFn | None = None,
                        cancel: Callable[[], bool] | None = None) -> PipelineSummary:
    with Pipeline(db_path, cfg, actor=actor, progress=progress, cancel=cancel) as p:
        return p.regenerate_rejected()
