"""Scorers: stored raw outputs -> ``eval_scores`` rows, with no call to the evaluated model.

=============== ================================================================= ========
metric          how an output is judged                                           verdicts
=============== ================================================================= ========
un (LLM@Un)     every configured judge scores the key information against the    correct >= 90,
                reference from 1 to 100; the item's score is the mean of all      wrong < 90,
                configured judges (:mod:`~qcstation.eval.judging`)                judge_error
re (ACC@Re)     the last SMT-LIB block runs through the isolated Z3 verifier;     correct iff
                correct when its unique ``answer`` equals the gold answer, is      verified;
                reached from numbers the question states, and moves when one       trivial
                moves (:mod:`~qcstation.eval.triviality`)
ar (ACC@Ar)     the final answer (answer checker) equals the gold answer
rt (ACC@R-t)    the set of error types named in the reflection (the six names,
                the paper's names or synonyms, anywhere) equals the set injected;
                rt_s (strict): those on the asked "Error types:" line
rm (ACC@R-m)    the corrected solution's final answer equals the gold answer
fi (ACC@Fi)     the final answer of the seed question equals the gold answer
=============== ================================================================= ========

Verdicts: ``correct`` · ``wrong`` · ``unparseable`` (nothing usable to judge: no SMT-LIB
block, SMT-LIB that does not parse or defines no ``answer``, no final answer, no error-type
line) · ``error`` (the request failed; counts as not passed) · ``not_scored``
(Understanding with no judge configured: never a made-up number). Failures that are not
the model's are left out of every denominator, counted apart and retryable:
``judge_error`` (a configured judge failed or replied unusably; ``eval score
--retry-judges``), ``invalid_item`` (the item lacks an input the task needs, or its gold
cannot be read), ``checker_error`` (the answer checker's or Z3 verifier's worker crashed;
``eval rescore`` tries again).

Every row records its scorer version; :func:`score_run` re-scores a whole run and returns
the items whose verdict flipped. Re-scoring calls no model: it re-reads the judges'
stored replies; only ``retry_judges`` asks the judges again.
"""

from __future__ import annotations

import collections
import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from db.kept_eval import store_scores
from db.store import Store, now, stored_json
from qcstation.eval import tasks as T
from qcstation.eval.judging import (JUDGE_MODES, JUDGE_VERSION, JudgeProgress, judge_outputs,
                                    parse_judge_score)
from qcstation.eval.runs import EvalError, RunContext, scoring_lease
from qcstation.eval.types import STRICT, TASK_SCORES

RT_VERSION = "types-v3"   # 3: flexible (names anywhere); the asked line is rt_s
SMT_VERSION = "smt-v4"   # 2: trivial (answer independent of the givens); 3: trivial by meaning;
#                           4: a gold the data rounds to an option read as generation reads it
MAX_SCORED_CHARS = 64_000          # only the last 64k characters of a response are read
_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)
_ERROR_TYPES_RE = re.compile(r"^[ \t>*_#-]*error[ \t]+types?[ \t*_]*:[ \t*_]*(.*)$", re.I | re.M)
_CORRECTED_RE = re.compile(r"^[ \t>*_#-]*corrected[ \t]+solution[ \t*_]*:?", re.I | re.M)
#: the end of a two-step refinement reply whose reflection failed (see eval/twostep.py)
NOT_ASKED = ("[qcstation: refinement not asked: the reflection did not name exactly the "
             "injected error types (two-step protocol)]")
#: the end of a two-step reply whose correction request failed (the output's status is error)
CORRECTION_FAILED = "[qcstation: the correction request failed (two-step protocol)]"
_NONE_WORDS = {"none", "no errors", "no error", "(none)", "n/a"}


@dataclass
class Score:
    verdict: str
    score: float | None
    extracted: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class ScoreSummary:
    run_id: int
    scored: int = 0
    counts: dict[str, dict[str, int]] = field(default_factory=dict)   # metric -> verdict -> n
    flipped: list[dict[str, Any]] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    judges: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "scored": self.scored, "counts": self.counts,
                "flipped": self.flipped, "versions": self.versions, "judges": self.judges}


# -- extraction helpers --------------------------------------------------------------------

def extract_smtlib(text: str | None) -> str | None:
    """The SMT-LIB script of a response: the last fenced block that looks like SMT-LIB, else
    the text from the first '(' when the response is bare SMT-LIB; None when there is none."""
    if not text:
        return None
    text = text[-MAX_SCORED_CHARS:]
    blocks = [(lang.lower(), body) for lang, body in _FENCE_RE.findall(text)]
    for lang, body in reversed(blocks):
        if lang in ("smt2", "smt", "smtlib", "smt-lib", "lisp", "scheme", "z3") or (
                "(assert" in body or "(declare-" in body):
            return body.strip()
    m = re.search(r"\((?:set-logic|declare-const|declare-fun|define-fun|assert)\b", text)
    if m:
        return text[m.start():].strip().rstrip("`").strip()
    return None


_LIST_ITEM_RE = re.compile(r"^[ \t]*(?:[-*•+]|\d{1,2}[.)])[ \t]+(.{1,200})$")


def parse_error_types(text: str | None) -> tuple[set[str] | None, list[str]]:
    """(set of error-type ids of the first 'Error types:' line, unrecognised names);
    (None, []) when the response has no such line. The names may be on the line (separated
    by commas, semicolons, slashes or 'and') or listed on the following lines as bullets or
    numbers; an item's description after ':', ' - ' or '(' is ignored. Plurals, the
    paper's names and close synonyms are read (:func:`tasks.canonical_error_type`)."""
    if not text:
        return None, []
    text = text[-MAX_SCORED_CHARS:]
    m = _ERROR_TYPES_RE.search(text)
    if m is None:
        return None, []
    # the first 'Error types:' line is the answer (later ones may quote the instructions)
    raw = m.group(1)
    corrected = _CORRECTED_RE.search(raw)
    if corrected:
        raw = raw[: corrected.start()]
    parts = [p for p in re.split(r"[,;/]|\band\b", raw)]
    if not raw.strip(" \t*_.:"):
        for line in text[m.end():].lstrip("\n").splitlines()[:12]:
            item = _LIST_ITEM_RE.match(line)
            if item is None:
                break
            parts.append(re.split(r":|\s[-–—]\s|\(", item.group(1), maxsplit=1)[0])
    found: set[str] = set()
    unknown: list[str] = []
    for part in parts:
        name = part.strip().strip(".*_`'\" ")
        if not name:
            continue
        if name.lower() in _NONE_WORDS:
            continue
        tid = T.canonical_error_type(name)
        if tid is None:
            unknown.append(name[:60])
        else:
            found.add(tid)
    return found, unknown


_FLEX_WORDS = r"[\s_-]+"


def _flexible_forms() -> list[tuple[re.Pattern[str], str]]:
    """Surface forms of the six error types read anywhere in a reflection: each id and name,
    and the multi-word synonyms and paper's names of :data:`tasks.ERROR_TYPE_ALIASES` (single
    words such as 'missing' or 'arithmetic' say too little out of the asked line), plus the
    few single words that name one type only."""
    forms: dict[str, str] = {}
    for tid, (name, _) in T.ERROR_TYPE_DEFINITIONS.items():
        forms[tid] = tid
        forms[T._error_key(name)] = tid
    for alias, tid in T.ERROR_TYPE_ALIASES.items():
        if "_" in alias:
            forms[alias] = tid
    for word in ("miscalculation", "hallucination", "redundancy", "omission"):
        forms[word] = T.canonical_error_type(word) or word
    out = []
    for key, tid in sorted(forms.items(), key=lambda kv: -len(kv[0])):
        words = key.split("_")
        body = _FLEX_WORDS.join(re.escape(w) for w in words[:-1])
        last = re.escape(words[-1][:-1]) + r"(?:y|ies)" if words[-1].endswith("y") \
            else re.escape(words[-1]) + r"(?:s|es)?"
        pat = (body + _FLEX_WORDS if body else "") + last
        out.append((re.compile(rf"(?<![A-Za-z]){pat}(?![A-Za-z])", re.I), tid))
    return out


_FLEX_FORMS: list[tuple[re.Pattern[str], str]] = []
#: a negation earlier in the same clause ("there is no redundancy"); "but", "and", "," end it
_NEGATED_BEFORE = re.compile(r"(?:\b(?:no|not|without|none|nor|neither)\b|n't)"
                             r"(?:(?!\bbut\b|\band\b|,)[^.;:\n]){0,40}$", re.I)


def reflection_part(text: str | None) -> str:
    """The reflection of a refinement reply: the text before 'Corrected solution:' (and
    before a two-step run's own marks)."""
    t = (text or "")[-MAX_SCORED_CHARS:]
    m = _CORRECTED_RE.search(t)
    t = t[:m.start()] if m else t
    for mark in (NOT_ASKED, CORRECTION_FAILED):
        t = t.split(mark)[0]
    return t


def flexible_error_types(text: str | None) -> set[str] | None:
    """The error types a reflection names anywhere (:func:`_flexible_forms`), a name after
    a negation in its clause ('there is no redundancy') not counted; None when it names
    none and has no 'Error types:' line either (nothing to read)."""
    if not _FLEX_FORMS:
        _FLEX_FORMS.extend(_flexible_forms())
    t = reflection_part(text)
    found: set[str] = set()
    taken: list[tuple[int, int]] = []       # every name read, negated or not
    for rx, tid in _FLEX_FORMS:                 # longest forms first: 'arithmetic error' wins
        for m in rx.finditer(t):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            if _NEGATED_BEFORE.search(t, max(0, m.start() - 60), m.start()):
                continue
            found.add(tid)
    if found or taken:
        return found
    strict, _ = parse_error_types(t)
    return set() if strict is not None else None


def corrected_part(text: str | None) -> str | None:
    """The corrected solution of a refinement response (after 'Corrected solution:'), else
    everything after the error-types line, else the whole response."""
    if not text:
        return text
    m = _CORRECTED_RE.search(text)
    if m:
        return text[m.end():]
    m2 = _ERROR_TYPES_RE.search(text)
    return text[m2.end():] if m2 else text


# -- the scoring pass ----------------------------------------------------------------------

def scorer_versions(cfg: Any, judge_ident: str | None = None) -> dict[str, str]:
    from qcstation.eval.checker import CHECKER_VERSION

    try:
        import z3  # noqa: F401

        z3v = z3.get_version_string()
    except Exception:  # pragma: no cover
        z3v = "?"
    judges = [f"{j.name}={j.model}" for j in getattr(cfg, "judges", []) or []]  # every one counts
    return {
        "un": f"{JUDGE_VERSION}:{judge_ident or '-'}:{','.join(judges) or 'no-judge'}",
        "re": f"{SMT_VERSION}:z3-{z3v}",
        "ar": f"answer:{CHECKER_VERSION}",
        "rm": f"answer:{CHECKER_VERSION}:gated-copy",
        "fi": f"answer:{CHECKER_VERSION}",
        "ar_s": f"strict:{CHECKER_VERSION}",
        "rm_s": f"strict:{CHECKER_VERSION}:gated-copy",
        "fi_s": f"strict:{CHECKER_VERSION}",
        "rt": RT_VERSION,
        "rt_s": f"{RT_VERSION}:strict",
    }


def _gold(record: Mapping[str, Any]) -> tuple[str, str | None]:
    gold_value = record.get("answer")
    return str(record.get("gt_answer") or gold_value or ""), (str(gold_value) if gold_value not in (None, "") else None)


def score_run(db_path: str | Path, run_id: int, cfg: Any, *,
              progress: Callable[[int, int], None] | None = None,
              only_missing: bool = False, verifier: Any = None,
              judges: str | None = None, retry_judges: bool = False,
              judge_progress: JudgeProgress | None = None,
              cancel: threading.Event | None = None) -> ScoreSummary:
    """(Re-)score every stored output of a run. With ``only_missing`` only outputs that have
    no score yet are scored (and, with ``retry_judges``, the Understanding outputs whose
    verdict is ``judge_error``). Returns counts and the items whose verdict flipped.

    ``judges`` (see :mod:`qcstation.eval.judging`): ``ask`` (the default when scoring what
    has no score) asks every judge; ``reuse`` (the default of a full re-score) asks nobody
    and re-reads the stored replies; ``retry_judges`` asks again, bypassing the response
    cache, only the judges whose reply was missing or unusable. ``cancel`` stops the judges
    (:func:`~qcstation.eval.judging.judge_outputs`; the items not judged are judge_error)."""
    db_path = Path(db_path)
    mode = "retry" if retry_judges else (judges or ("ask" if only_missing else "reuse"))
    if mode not in JUDGE_MODES:
        raise EvalError(f"unknown judge mode {mode!r}")
    # one scoring pass at a time: a second process is refused, and the run reads `done`
    # only once its scores are written (runs.scoring_lease)
    with scoring_lease(db_path, run_id):
        return _score_run(db_path, run_id, cfg, progress, only_missing, verifier, mode, retry_judges,
                          judge_progress, cancel)


def _score_run(db_path: Path, run_id: int, cfg: Any, progress: Callable[[int, int], None] | None,
               only_missing: bool, verifier: Any, mode: str, retry_judges: bool,
               judge_progress: JudgeProgress | None = None,
               cancel: threading.Event | None = None) -> ScoreSummary:
    store = Store(db_path, migrate=False, create=False)
    try:
        ctx = RunContext(store, run_id)
        judge_tpl = (T.template_from_spec(ctx.spec["judge_template"])
                     if ctx.spec.get("judge_template") else None)
        versions = scorer_versions(cfg, judge_tpl.ident if judge_tpl else None)
        summary = ScoreSummary(run_id=run_id, versions=versions,
                               judges=[j.name for j in getattr(cfg, "judges", []) or []])
        previous, outputs = _outputs_to_score(store, run_id, only_missing, retry_judges)
        items = _items_for(store, run_id, {int(o["seed_id"]) for o in outputs})
        sp = _Pass(run_id, items, versions, len(outputs), progress)
        by_task: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
        for o in outputs:
            if int(o["seed_id"]) not in items:
                continue
            if o["status"] != "ok":
                err = str(o["error"] or "")
                if o["task"] == "refinement" and _correction_failed(o):
                    # two-step: the reflection was answered (and passed the gate); only the
                    # correction failed: an R-m error, R-t as the reflection reads
                    rec = items[int(o["seed_id"])][0]
                    sp.emit(o, "rt", _score_types(o["response"], rec))
                    sp.emit(o, "rt_s", _score_types(o["response"], rec, strict=True))
                    for metric in ("rm", "rm_s"):
                        sp.emit(o, metric, Score("error", 0.0, None, {
                            "error": err[:500], "reason": "the correction request failed after "
                            "a correct reflection: an R-m error (two-step protocol)"}))
                    sp.advance(1, report=False)
                    continue
                for metric in TASK_SCORES[o["task"]]:
                    if err.startswith("not asked:"):   # the item lacks an input: not the model's
                        sp.emit(o, metric, Score("invalid_item", None, None,
                                                 {"error": err[:500], "reason": err[:500]}))
                    else:   # Understanding has no score for a failed reply (1..100: none is 0)
                        sp.emit(o, metric, Score("error", None if metric == "un" else 0.0, None,
                                                 {"error": err[:500]}))
                sp.advance(1, report=False)
                continue
            by_task[o["task"]].append(o)
        sp.advance(0)
        _score_answers(sp, by_task)
        _score_reasoning(sp, by_task.get("reasoning", []), cfg, verifier,
                         _rounded_gold_seeds(store, {int(o["seed_id"]) for o in
                                                     by_task.get("reasoning", [])}))
        group = by_task.get("understanding", [])
        if group:
            old = _judge_details(store, run_id) if mode != "ask" else {}
            judged = judge_outputs(
                db_path, cfg, judge_tpl, [items[int(o["seed_id"])][0] for o in group],
                [o["response"] for o in group],
                [old.get((int(o["seed_id"]), int(o["sample_idx"]))) for o in group], mode=mode,
                progress=judge_progress, cancel=cancel)
            for o, (verdict, score, extracted, detail) in zip(group, judged):
                sp.emit(o, "un", Score(verdict, score, extracted, detail))
            sp.advance(len(group))
        _tally(summary, sp.rows, previous, items)
        _save(store, ctx, summary, sp.rows, cfg)
        return summary
    finally:
        store.close()


class _Pass:
    """One scoring pass: the score rows it makes and how far it got."""

    def __init__(self, run_id: int, items: Mapping[int, tuple[Any, ...]], versions: Mapping[str, str],
                 total: int, progress: Callable[[int, int], None] | None) -> None:
        self.run_id, self.items, self.versions = run_id, items, versions
        self.total, self.progress = total, progress
        self.done = 0
        self.rows: list[tuple[Any, ...]] = []
        self.at = now()

    def emit(self, o: Mapping[str, Any], metric: str, s: Score) -> None:
        _record, source, difficulty, _ = self.items[int(o["seed_id"])]
        self.rows.append(score_row(self.run_id, int(o["seed_id"]), int(o["sample_idx"]), metric,
                                   o["task"], s, self.versions[metric], source, difficulty, self.at))

    def advance(self, n: int, *, report: bool = True) -> None:
        self.done += n
        if report and self.progress:
            self.progress(self.done, self.total)


def _judge_details(store: Store, run_id: int) -> dict[tuple[int, int], dict[str, Any]]:
    """The stored Understanding verdicts' details (the judges' replies), by (seed, sample)."""
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for sid, k, detail in store.conn.execute(
            "SELECT seed_id, sample_idx, detail FROM eval_scores WHERE run_id = ? AND metric = 'un'",
            (run_id,)):
        try:
            d = json.loads(detail or "{}")
        except ValueError:
            continue
        if isinstance(d, dict):
            out[(int(sid), int(k))] = d
    return out


def _outputs_to_score(store: Store, run_id: int, only_missing: bool, retry_judges: bool = False
                      ) -> tuple[dict[tuple[int, int, str], str], list[dict[str, Any]]]:
    """(verdicts stored before, by (seed, sample, metric); the outputs to score)."""
    if only_missing:
        # outputs lacking any of their task's scores (the unique score index answers this),
        # and with retry_judges the Understanding outputs whose judges failed
        retry = ("OR (o.task = 'understanding' AND EXISTS (SELECT 1 FROM eval_scores s "
                 "WHERE s.run_id = o.run_id AND s.seed_id = o.seed_id AND s.sample_idx = o.sample_idx "
                 "AND s.metric = 'un' AND s.verdict = 'judge_error')) " if retry_judges else "")
        previous = {(int(a), int(b), str(c)): str(d) for a, b, c, d in store.conn.execute(
            "SELECT seed_id, sample_idx, metric, verdict FROM eval_scores WHERE run_id = ? "
            "AND verdict = 'judge_error'", (run_id,))} if retry_judges else {}
        return previous, store.query(
            "SELECT o.id, o.seed_id, o.task, o.sample_idx, o.status, o.response, o.error "
            "FROM eval_outputs o WHERE o.run_id = ? AND ((SELECT COUNT(*) FROM eval_scores s "
            "WHERE s.run_id = o.run_id AND s.seed_id = o.seed_id AND s.sample_idx = o.sample_idx "
            "AND s.task = o.task) < (CASE o.task WHEN 'refinement' THEN 4 WHEN 'arithmetic' THEN 2 "
            "WHEN 'final' THEN 2 ELSE 1 END) "
            f"{retry}) ORDER BY o.seed_id, o.task, o.sample_idx", (run_id,))
    previous = {(int(a), int(b), str(c)): str(d) for a, b, c, d in store.conn.execute(
        "SELECT seed_id, sample_idx, metric, verdict FROM eval_scores WHERE run_id = ?", (run_id,))}
    return previous, store.query(
        "SELECT id, seed_id, task, sample_idx, status, response, error FROM eval_outputs "
        "WHERE run_id = ? ORDER BY seed_id, task, sample_idx", (run_id,))


def _score_answers(sp: _Pass, by_task: Mapping[str, list[dict[str, Any]]]) -> None:
    """Arithmetic, final and refinement outputs through the answer checker (and R-t)."""
    from qcstation.eval.checker import AnswerChecker

    with AnswerChecker() as checker:
        for task in ANSWER_TASKS:
            group = by_task.get(task, [])
            for i in range(0, len(group), 2000):
                chunk = group[i:i + 2000]
                scored = answer_scores(checker, task, [(o["response"], sp.items[int(o["seed_id"])][0])
                                                       for o in chunk])
                for o, pairs in zip(chunk, scored):
                    for metric, sc in pairs:
                        sp.emit(o, metric, sc)
                sp.advance(len(chunk))


def _rounded_gold_seeds(store: Store, seed_ids: set[int]) -> dict[int, dict[str, Any]]:
    """The seeds among ``seed_ids`` whose gold the data rounds to an answer option (AQuA:
    ``meta`` lists the options and the correct letter), with what
    :func:`qcstation.core.construct.check.checks.rounded_gold_match` reads of them."""
    out: dict[int, dict[str, Any]] = {}
    ids = sorted(seed_ids)
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        for r in store.conn.execute(
                f"SELECT id, meta, answer_text FROM seeds WHERE id IN ({','.join('?' * len(chunk))}) "
                "AND meta LIKE '%\"options\"%'", chunk):
            out[int(r[0])] = {"meta": r[1], "answer_text": r[2]}
    return out


def _score_reasoning(sp: _Pass, group: list[dict[str, Any]], cfg: Any, verifier: Any,
                     rounded: Mapping[int, Mapping[str, Any]] | None = None) -> None:
    """Reasoning outputs: the last SMT-LIB block through the isolated Z3 verifier (a pool of
    its own unless ``verifier`` is given). Where the data rounds the gold to an answer option
    (``rounded``: AQuA), a value Z3 finds unique but not equal to the gold is read as generation
    reads it: right when it is nearest the correct option and within 1% of the gold
    (:func:`~qcstation.core.construct.check.checks.rounded_gold_match`), the rounding recorded."""
    if not group:
        return
    from qcstation.core.verify.verifier import VerifierPool, VerifyLimits

    pool = verifier
    if pool is None:
        vc = getattr(cfg, "verify", None)
        pool = VerifierPool(workers=getattr(vc, "workers", 2),
                            limits=VerifyLimits(timeout_s=getattr(vc, "timeout_s", 5.0),
                                                memory_mb=getattr(vc, "memory_mb", 512)))
    try:
        for i in range(0, len(group), 500):
            chunk = group[i:i + 500]
            scripts = [extract_smtlib(o["response"]) for o in chunk]
            golds = [_gold(sp.items[int(o["seed_id"])][0]) for o in chunk]
            jobs = [(s, v or g) for s, (g, v) in zip(scripts, golds) if s is not None]
            outcomes = iter(list(pool.verify_many(jobs)) if jobs else [])
            scored: list[tuple[Mapping[str, Any], Score, Any]] = []
            for o, script, (g, _v) in zip(chunk, scripts, golds):
                if script is None:
                    sp.emit(o, "re", Score("unparseable", 0.0, None,
                                           {"reason": "no SMT-LIB block in the response", "gold": g}))
                    continue
                outcome = next(outcomes)
                seed = (rounded or {}).get(int(o["seed_id"]))
                scored.append((o, _score_outcome(outcome, script, g, seed), outcome))
            _mark_trivial(pool, sp, scored)
            for out, sc, _ in scored:
                sp.emit(out, "re", sc)
            sp.advance(len(chunk))
    finally:
        if verifier is None:
            pool.close()


def _mark_trivial(pool: Any, sp: _Pass, scored: list[tuple[Mapping[str, Any], Score, Any]]) -> None:
    """A verified script that does not mean its question, or whose answer no number of the
    question moves, is ``trivial`` (:mod:`~qcstation.eval.triviality`): the meaning check first,
    then one moved number per round, each round one batch."""
    from qcstation.eval.triviality import meaning, perturbations

    todo: list[tuple[Score, Any, list[str]]] = []
    for o, sc, outcome in scored:
        if sc.verdict != "correct":
            continue
        record = sp.items[int(o["seed_id"])][0]
        script, question = str(sc.detail.get("smtlib") or ""), str(record.get("question") or "")
        m = meaning(script, question)
        if not m.ok:
            sc.verdict, sc.score = "trivial", 0.0
            sc.detail["meaning"] = list(m.kinds)
            sc.detail["reason"] = ("the script does not formalize the question: " + m.message)[:1000]
            continue
        todo.append((sc, outcome.value, perturbations(script, question)))
    tried = 0
    while todo:
        jobs = [(variants[tried], None) for _, _, variants in todo if tried < len(variants)]
        results = iter(list(pool.verify_many(jobs)) if jobs else [])
        left: list[tuple[Score, Any, list[str]]] = []
        for sc, value, variants in todo:
            if tried >= len(variants):
                sc.verdict, sc.score = "trivial", 0.0
                sc.detail["meaning"] = ["no-dependence"]
                sc.detail["reason"] = (
                    "the answer does not depend on the numbers of the question: " + (
                        "the script writes none of them" if not variants else
                        f"moving each of {len(variants)} of them left the answer unchanged")
                    + " (it states the answer instead of formalizing the problem)")
                continue
            res = next(results)
            if res.status == "verified" and res.value is not None and res.value != value:
                sc.detail["depends_on_givens"] = f"moving number {tried + 1} of the question moved the answer"
                continue
            left.append((sc, value, variants))
        todo = left
        tried += 1


def _tally(summary: ScoreSummary, rows: list[tuple[Any, ...]],
           previous: Mapping[tuple[int, int, str], str], items: Mapping[int, tuple[Any, ...]]) -> None:
    """Counts per metric and verdict, and the verdicts that flipped since the last pass."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for r in rows:
        counts[r[3]][r[5]] += 1
        key = (r[1], r[2], r[3])
        old = previous.get(key)
        if old is not None and old != r[5]:
            summary.flipped.append({"seed_id": r[1], "item": items[r[1]][3], "sample": r[2],
                                    "metric": r[3], "before": old, "after": r[5]})
    summary.counts = {m: dict(c) for m, c in sorted(counts.items())}
    summary.scored = len(rows)


def _save(store: Store, ctx: RunContext, summary: ScoreSummary, rows: list[tuple[Any, ...]],
          cfg: Any) -> None:
    """The score rows, and the scorer versions and judges recorded in the run's spec."""
    with store.transaction():
        store_scores(store.conn, INSERT_SCORE, rows)   # figures kept once (migrations 22, 24)
        spec = dict(ctx.spec)
        spec["scorer_versions"] = summary.versions
        spec["judges"] = [{"name": j.name, "model": j.model} for j in getattr(cfg, "judges", []) or []]
        store.execute("UPDATE eval_runs SET spec = ? WHERE id = ?",
                      (json.dumps(spec, sort_keys=True, ensure_ascii=False), ctx.run_id))
        store._event_raw("system", "eval.scored", "eval_run", ctx.run_id,
                         {"scored": len(rows), "flipped": len(summary.flipped),
                          "versions": summary.versions})


def _items_for(store: Store, run_id: int, seed_ids: set[int]) -> dict[int, tuple[Any, ...]]:
    out: dict[int, tuple[Any, ...]] = {}
    ids = sorted(seed_ids)
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for r in store.conn.execute(
                f"SELECT seed_id, record, source, difficulty, item_key FROM eval_items WHERE run_id = ? "
                f"AND role = 'eval' AND seed_id IN ({marks})", [run_id, *chunk]):
            out[int(r[0])] = (json.loads(r[1]), r[2], r[3], r[4])
    return out


ANSWER_TASKS = ("arithmetic", "final", "refinement")
_ANSWER_METRIC = {"arithmetic": "ar", "final": "fi", "refinement": "rm"}


def answer_scores(checker: Any, task: str, outputs: list[tuple[str | None, Mapping[str, Any]]]
                  ) -> list[list[tuple[str, Score]]]:
    """Scores of ok outputs of an answer task, as ``[(metric, Score), ...]`` per output:
    ar / fi / rm by the answer checker (flexible: the final answer anywhere) and ar_s / fi_s
    / rm_s (strict: the asked last line), plus rt (error types) for refinement. A corrected
    solution that repeats the wrong chain is ``wrong`` on rm and rm_s whatever its answer,
    and the rm row records whether the injected errors keep the gold answer
    (``keeps_answer``: the wrong chain's own final answer is correct)."""
    texts = [r if task != "refinement" else corrected_part(r) for r, _ in outputs]
    golds = [_gold(rec) for _, rec in outputs]
    jobs = [(t, g, v) for t, (g, v) in zip(texts, golds)]
    results, strict = checker.check_both(jobs)   # the asked line read once for both readings
    keeps: list[bool | None] = [None] * len(outputs)
    if task == "refinement":
        wrong = checker.check_many([(str(rec.get("w_cot") or ""), g, v)
                                    for (_, rec), (g, v) in zip(outputs, golds)])
        keeps = [None if w.verdict == "unparseable" else w.verdict == "correct" for w in wrong]
    metric = _ANSWER_METRIC[task]
    out: list[list[tuple[str, Score]]] = []
    for (response, rec), text, res, st, keep, (g, _v) in zip(outputs, texts, results, strict,
                                                              keeps, golds):
        copied = task == "refinement" and repeats_wrong_chain(text, rec)
        types = _score_types(response, rec) if task == "refinement" else None
        types_s = _score_types(response, rec, strict=True) if task == "refinement" else None
        if types is not None and types_s is not None and types.verdict != "correct" \
                and (response or "").rstrip().endswith(NOT_ASKED):
            why = ("refinement not asked: the reflection did not name exactly the injected error "
                   "types (two-step protocol)")
            out.append([(metric, Score("not_scored", None, None, {"gold": g, "reason": why})),
                        (STRICT[metric], Score("not_scored", None, None, {"gold": g, "reason": why})),
                        ("rt", types), ("rt_s", types_s)])
            continue
        pairs = []
        for code, r in ((metric, res), (STRICT[metric], st)):
            verdict = _not_model_verdict(r) or r.verdict
            detail: dict[str, Any] = {"gold": g, "value": r.value, "method": r.method,
                                      "reason": r.detail, "source": r.source}
            if copied:
                verdict = "wrong"
                detail["reason"] = ("the corrected solution repeats the wrong chain of thought "
                                    "unchanged: nothing was corrected")
                detail["copied"] = True
            if keep is not None and code == "rm":
                detail["keeps_answer"] = keep
            pairs.append((code, Score(verdict, 1.0 if verdict == "correct" else 0.0, r.extracted,
                                      detail)))
        if types is not None and types_s is not None:
            pairs += [("rt", types), ("rt_s", types_s)]
        out.append(pairs)
    return out


def _normalised_chain(text: str) -> str:
    body = T.strip_final_line(text or "")
    return " ".join(re.sub(r"[*_`#>]", " ", body).lower().split())


def repeats_wrong_chain(corrected: str | None, record: Mapping[str, Any]) -> bool:
    """Whether a corrected solution is the item's wrong chain of thought again (compared
    without its final-answer line, Markdown, case and spacing)."""
    w = _normalised_chain(str(record.get("w_cot") or ""))
    return bool(w) and _normalised_chain(corrected or "") == w


def _not_model_verdict(res: Any) -> str | None:
    """``invalid_item`` when the gold cannot be read, ``checker_error`` when the checker's
    worker crashed (not a time limit: a reply too slow to read is ``unparseable``)."""
    if res.verdict != "unparseable":
        return None
    if res.method == "gold":
        return "invalid_item"
    if res.method == "math-verify" and str(res.detail).startswith("math-verify failed"):
        return "checker_error"
    return None


def score_row(run_id: int, seed_id: int, sample_idx: int, metric: str, task: str, s: Score,
              version: str, source: str, difficulty: str | None, at: str) -> tuple[Any, ...]:
    return (run_id, seed_id, sample_idx, metric, task, s.verdict, s.score,
            None if s.extracted is None else str(s.extracted)[:2000], stored_json(s.detail),
            version, source, difficulty, at)


INSERT_SCORE = (
    "INSERT INTO eval_scores (run_id, seed_id, sample_idx, metric, task, verdict, score, "
    "extracted, detail, scorer_version, source, difficulty, scored_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (run_id, seed_id, sample_idx, metric) DO UPDATE SET "
    "task = excluded.task, verdict = excluded.verdict, score = excluded.score, "
    "extracted = excluded.extracted, detail = excluded.detail, "
    "scorer_version = excluded.scorer_version, scored_at = excluded.scored_at")

LIVE_ITEMS_KEPT = 4096   # items whose answer fields the live scorer keeps between batches
_LIVE_FIELDS = ("answer", "gt_answer", "errors", "wrong", "w_cot")   # what answer_scores reads
_LIVE_PATHS = ", ".join(f"'$.{k}'" for k in _LIVE_FIELDS)


class LiveScorer:
    """Scores answer-task outputs as a run stores them (used by the runner's writer thread),
    so that a run's own scoring pass only has Reasoning (Z3) and Understanding (judges) left.
    The rows are exactly those :func:`score_run` writes."""

    def __init__(self, run_id: int, versions: Mapping[str, str]) -> None:
        from qcstation.eval.checker import AnswerChecker

        self.run_id = run_id
        self.versions = dict(versions)
        self.checker = AnswerChecker()
        self._items: dict[int, tuple[dict[str, Any], str, str | None]] = {}

    def _load(self, store: Store, seed_ids: Iterable[int]) -> None:
        """The answer fields of a batch's items; those kept from earlier batches are dropped
        past :data:`LIVE_ITEMS_KEPT` (an item's outputs come close together)."""
        wanted = set(seed_ids)
        if len(self._items) + len(wanted) > LIVE_ITEMS_KEPT:
            self._items = {s: v for s, v in self._items.items() if s in wanted}
        missing = sorted(s for s in wanted if s not in self._items)
        for i in range(0, len(missing), 500):
            chunk = missing[i:i + 500]
            marks = ",".join("?" * len(chunk))
            # only the fields scored, taken out by SQLite (one JSON array of them, null where
            # absent: not the whole record decoded here)
            for sid, fields, source, diff in store.conn.execute(
                    f"SELECT seed_id, json_extract(record, {_LIVE_PATHS}), source, difficulty "
                    f"FROM eval_items WHERE run_id = ? AND seed_id IN ({marks})", [self.run_id, *chunk]):
                self._items[int(sid)] = (dict(zip(_LIVE_FIELDS, json.loads(fields))), source, diff)

    def rows(self, store: Store, outputs: list[tuple[int, str, int, str]]) -> list[tuple[Any, ...]]:
        """``outputs``: (seed_id, task, sample_idx, response) of ok answer-task outputs."""
        self._load(store, (o[0] for o in outputs))
        at = now()
        rows: list[tuple[Any, ...]] = []
        for task in ANSWER_TASKS:
            group = [o for o in outputs if o[1] == task and o[0] in self._items]
            if not group:
                continue
            scored = answer_scores(self.checker, task, [(o[3], self._items[o[0]][0]) for o in group])
            for (sid, _t, k, _r), pairs in zip(group, scored):
                _, source, diff = self._items[sid]
                for metric, sc in pairs:
                    rows.append(score_row(self.run_id, sid, k, metric, task, sc, self.versions[metric],
                                          source, diff, at))
        return rows

    def close(self) -> None:
        self.checker.close()


def _correction_failed(o: Mapping[str, Any]) -> bool:
    """A two-step refinement output whose reflection came back and whose correction request
    failed (eval/twostep.py keeps the reflection with :data:`CORRECTION_FAILED`)."""
    return str(o["error"] or "").startswith("refinement step:") and \
        (o["response"] or "").rstrip().endswith(CORRECTION_FAILED)


def _score_types(response: str | None, record: Mapping[str, Any], *, strict: bool = False) -> Score:
    """R-t: flexible (the types named anywhere in the reflection) or ``strict`` (the asked
    'Error types:' line); the set must equal the injected one."""
    gold = set(T.error_type_ids(record))
    detail: dict[str, Any] = {"gold": sorted(gold)}
    if not strict:
        flex = flexible_error_types(response)
        if flex is None:
            detail["reason"] = "the reflection names no error type"
            return Score("unparseable", 0.0, None, detail)
        ok = flex == gold
        return Score("correct" if ok else "wrong", 1.0 if ok else 0.0,
                     ", ".join(sorted(flex)) or "(none)", detail)
    found, unknown = parse_error_types(reflection_part(response))
    if found is None:
        detail["reason"] = "no 'Error types:' line"
        return Score("unparseable", 0.0, None, detail)
    detail["unrecognised"] = unknown
    extracted = ", ".join(sorted(found)) + (f" (+ unrecognised: {', '.join(unknown)})" if unknown else "")
    if not found and unknown:
        detail["reason"] = "no error type name was recognised"
        return Score("unparseable", 0.0, extracted, detail)
    ok = found == gold and not unknown
    return Score("correct" if ok else "wrong", 1.0 if ok else 0.0, extracted or "(none)", detail)


_UNPARSEABLE_STATUSES = {"parse_error", "disallowed", "no_answer"}


def _score_outcome(outcome: Any, script: str, gold: str,
                   seed: Mapping[str, Any] | None = None) -> Score:
    d = outcome.to_dict()
    detail: dict[str, Any] = {"verifier": d, "smtlib": script[:20_000], "gold": gold}
    if outcome.status == "wrong_value" and seed is not None:
        from qcstation.core.construct.check.checks import rounded_gold_match

        near = rounded_gold_match(dict(seed), d)
        if near is not None:       # the data's gold is an option rounding this value
            detail["rounding"] = near["rounding"]
            detail["reason"] = near["message"]
            return Score("correct", 1.0, d.get("value_text") or d.get("value"), detail)
    if outcome.status == "verified":
        return Score("correct", 1.0, d.get("value_text") or d.get("value"), detail)
    verdict = ("unparseable" if outcome.status in _UNPARSEABLE_STATUSES
               else "checker_error" if outcome.status == "crash" else "wrong")
    return Score(verdict, 0.0, d.get("value_text") or d.get("value"), detail)


def summarize_verdicts(store: Store, run_id: int) -> dict[str, dict[str, int]]:
    """metric -> verdict -> count for a run (for a quick summary without the metrics module)."""
    out: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for m, v, n in store.conn.execute(   # kept by migration 14 (db/kept_eval.py)
            "SELECT metric, verdict, n FROM eval_score_counts WHERE run_id = ? AND n != 0 "
            "ORDER BY 1, 2", (run_id,)):
        out[str(m)][str(v)] = int(n)
    return dict(out)


__all__ = ["EvalError", "Score", "ScoreSummary", "score_run", "extract_smtlib", "parse_error_types",
           "flexible_error_types", "CORRECTION_FAILED", "parse_judge_score", "corrected_part", "summarize_verdicts", "scorer_versions"]
