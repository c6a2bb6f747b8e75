"""Scorers: stored raw outputs -> ``eval_scores`` rows, with no call to the evaluated model.

=============== ================================================================= ========
metric          how an output is judged                                           verdicts
=============== ================================================================= ========
un (LLM@Un)     every configured judge scores the key information against the    correct >= 90,
                reference from 1 to 100; the item's score is the judges' mean     wrong < 90
re (ACC@Re)     the last SMT-LIB block runs through the isolated Z3 verifier;     correct iff
                correct when its unique ``answer`` equals the gold answer          verified
ar (ACC@Ar)     the final answer (answer checker) equals the gold answer
rt (ACC@R-t)    the set of error types on the "Error types:" line equals the
                set injected
rm (ACC@R-m)    the corrected solution's final answer equals the gold answer
fi (ACC@Fi)     the final answer of the seed question equals the gold answer
=============== ================================================================= ========

Verdicts: ``correct`` · ``wrong`` · ``unparseable`` (nothing usable to judge: no SMT-LIB
block, SMT-LIB that does not parse or defines no ``answer``, no final answer, no error-type
line, no judge score) · ``error`` (the request failed; counts as not passed) ·
``not_scored`` (Understanding with no judge configured: never a made-up number).

Every row records its scorer version; :func:`score_run` re-scores a whole run and returns
the items whose verdict flipped. Judge calls go through the response cache, so re-scoring
repeats no request that was answered before.
"""

from __future__ import annotations

import asyncio
import collections
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from db.store import Store, now
from qcstation.eval import tasks as T
from qcstation.eval.runs import EvalError, RunContext
from qcstation.eval.types import ALL_PASS_UNDERSTANDING, TASK_METRICS

RT_VERSION = "types-v1"
SMT_VERSION = "smt-v1"
JUDGE_VERSION = "judge-v1"
MAX_SCORED_CHARS = 64_000          # only the last 64k characters of a response are read
MAX_JUDGED_CHARS = 8_000           # the judge sees at most this much of the key information
_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)
_ERROR_TYPES_RE = re.compile(r"^[ \t>*_#-]*error[ \t]+types?[ \t*_]*:[ \t*_]*(.*)$", re.I | re.M)
_CORRECTED_RE = re.compile(r"^[ \t>*_#-]*corrected[ \t]+solution[ \t*_]*:?", re.I | re.M)
_SCORE_RE = re.compile(r"score[ \t*_]*[:=][ \t*_]*(\d{1,3})(?:\s*/\s*100)?", re.I)
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


def parse_error_types(text: str | None) -> tuple[set[str] | None, list[str]]:
    """(set of error-type ids on the last 'Error types:' line, unrecognised names);
    (None, []) when the response has no such line."""
    if not text:
        return None, []
    text = text[-MAX_SCORED_CHARS:]
    lines = _ERROR_TYPES_RE.findall(text)
    if not lines:
        return None, []
    # the first 'Error types:' line is the answer (later ones may quote the instructions)
    raw = lines[0]
    corrected = _CORRECTED_RE.search(raw)
    if corrected:
        raw = raw[: corrected.start()]
    found: set[str] = set()
    unknown: list[str] = []
    for part in re.split(r"[,;/]|\band\b", raw):
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


def parse_judge_score(text: str | None) -> int | None:
    if not text:
        return None
    found = _SCORE_RE.findall(text[-4000:])
    if not found:
        return None
    v = int(found[-1])
    return v if 1 <= v <= 100 else None


# -- the scoring pass ----------------------------------------------------------------------

def scorer_versions(cfg: Any, judge_ident: str | None = None) -> dict[str, str]:
    from qcstation.eval.checker import CHECKER_VERSION

    try:
        import z3  # noqa: F401

        z3v = z3.get_version_string()
    except Exception:  # pragma: no cover
        z3v = "?"
    judges = [f"{j.name}={j.model}" for j in getattr(cfg, "judges", []) or []]
    return {
        "un": f"{JUDGE_VERSION}:{judge_ident or '-'}:{','.join(judges) or 'no-judge'}",
        "re": f"{SMT_VERSION}:z3-{z3v}",
        "ar": f"answer:{CHECKER_VERSION}",
        "rm": f"answer:{CHECKER_VERSION}",
        "fi": f"answer:{CHECKER_VERSION}",
        "rt": RT_VERSION,
    }


def _gold(record: Mapping[str, Any]) -> tuple[str, str | None]:
    gold_value = record.get("answer")
    return str(record.get("gt_answer") or gold_value or ""), (str(gold_value) if gold_value not in (None, "") else None)


def score_run(db_path: str | Path, run_id: int, cfg: Any, *,
              progress: Callable[[int, int], None] | None = None,
              only_missing: bool = False, verifier: Any = None) -> ScoreSummary:
    """(Re-)score every stored output of a run. With ``only_missing`` only outputs that have
    no score yet are scored. Returns counts and the items whose verdict flipped."""
    db_path = Path(db_path)
    store = Store(db_path, migrate=False, create=False)
    try:
        ctx = RunContext(store, run_id)
        judge_tpl = (T.template_from_spec(ctx.spec["judge_template"])
                     if ctx.spec.get("judge_template") else None)
        versions = scorer_versions(cfg, judge_tpl.ident if judge_tpl else None)
        summary = ScoreSummary(run_id=run_id, versions=versions,
                               judges=[j.name for j in getattr(cfg, "judges", []) or []])
        previous, outputs = _outputs_to_score(store, run_id, only_missing)
        items = _items_for(store, run_id, {int(o["seed_id"]) for o in outputs})
        sp = _Pass(run_id, items, versions, len(outputs), progress)
        by_task: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
        for o in outputs:
            if int(o["seed_id"]) not in items:
                continue
            if o["status"] != "ok":
                for metric in TASK_METRICS[o["task"]]:
                    sp.emit(o, metric, Score("error", 0.0, None, {"error": str(o["error"] or "")[:500]}))
                sp.advance(1, report=False)
                continue
            by_task[o["task"]].append(o)
        sp.advance(0)
        _score_answers(sp, by_task)
        _score_reasoning(sp, by_task.get("reasoning", []), cfg, verifier)
        group = by_task.get("understanding", [])
        if group:
            for o, s in zip(group, _judge_all(db_path, cfg, judge_tpl, group, items)):
                sp.emit(o, "un", s)
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


def _outputs_to_score(store: Store, run_id: int, only_missing: bool
                      ) -> tuple[dict[tuple[int, int, str], str], list[dict[str, Any]]]:
    """(verdicts stored before, by (seed, sample, metric); the outputs to score)."""
    if only_missing:
        # outputs lacking any of their task's scores (the unique score index answers this)
        return {}, store.query(
            "SELECT o.id, o.seed_id, o.task, o.sample_idx, o.status, o.response, o.error "
            "FROM eval_outputs o WHERE o.run_id = ? AND (SELECT COUNT(*) FROM eval_scores s "
            "WHERE s.run_id = o.run_id AND s.seed_id = o.seed_id AND s.sample_idx = o.sample_idx "
            "AND s.task = o.task) < (CASE o.task WHEN 'refinement' THEN 2 ELSE 1 END) "
            "ORDER BY o.seed_id, o.task, o.sample_idx", (run_id,))
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


def _score_reasoning(sp: _Pass, group: list[dict[str, Any]], cfg: Any, verifier: Any) -> None:
    """Reasoning outputs: the last SMT-LIB block through the isolated Z3 verifier (a pool of
    its own unless ``verifier`` is given)."""
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
            for o, script, (g, v) in zip(chunk, scripts, golds):
                if script is None:
                    sp.emit(o, "re", Score("unparseable", 0.0, None,
                                           {"reason": "no SMT-LIB block in the response", "gold": g}))
                    continue
                sp.emit(o, "re", _score_outcome(next(outcomes), script, g))
            sp.advance(len(chunk))
    finally:
        if verifier is None:
            pool.close()


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
        store.conn.executemany(INSERT_SCORE, rows)
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
    ar / fi / rm by the answer checker, plus rt (error types) for refinement."""
    texts = [r if task != "refinement" else corrected_part(r) for r, _ in outputs]
    golds = [_gold(rec) for _, rec in outputs]
    results = checker.check_many([(t, g, v) for t, (g, v) in zip(texts, golds)])
    metric = _ANSWER_METRIC[task]
    out: list[list[tuple[str, Score]]] = []
    for (response, rec), res, (g, _v) in zip(outputs, results, golds):
        ok = res.verdict == "correct"
        pairs = [(metric, Score(res.verdict, 1.0 if ok else 0.0, res.extracted,
                                {"gold": g, "value": res.value, "method": res.method}))]
        if task == "refinement":
            pairs.append(("rt", _score_types(response, rec)))
        out.append(pairs)
    return out


def score_row(run_id: int, seed_id: int, sample_idx: int, metric: str, task: str, s: Score,
              version: str, source: str, difficulty: str | None, at: str) -> tuple[Any, ...]:
    return (run_id, seed_id, sample_idx, metric, task, s.verdict, s.score,
            None if s.extracted is None else str(s.extracted)[:2000],
            json.dumps(s.detail, sort_keys=True, ensure_ascii=False, default=str),
            version, source, difficulty, at)


INSERT_SCORE = (
    "INSERT INTO eval_scores (run_id, seed_id, sample_idx, metric, task, verdict, score, "
    "extracted, detail, scorer_version, source, difficulty, scored_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (run_id, seed_id, sample_idx, metric) DO UPDATE SET "
    "task = excluded.task, verdict = excluded.verdict, score = excluded.score, "
    "extracted = excluded.extracted, detail = excluded.detail, "
    "scorer_version = excluded.scorer_version, scored_at = excluded.scored_at")


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
        missing = sorted({s for s in seed_ids if s not in self._items})
        for i in range(0, len(missing), 500):
            chunk = missing[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for sid, rec, source, diff in store.conn.execute(
                    f"SELECT seed_id, record, source, difficulty FROM eval_items WHERE run_id = ? "
                    f"AND seed_id IN ({marks})", [self.run_id, *chunk]):
                r = json.loads(rec)
                self._items[int(sid)] = ({k: r.get(k) for k in ("answer", "gt_answer", "errors", "wrong")},
                                         source, diff)

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


def _score_types(response: str | None, record: Mapping[str, Any]) -> Score:
    gold = set(T.error_type_ids(record))
    found, unknown = parse_error_types(response)
    detail: dict[str, Any] = {"gold": sorted(gold)}
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


def _score_outcome(outcome: Any, script: str, gold: str) -> Score:
    d = outcome.to_dict()
    detail = {"verifier": d, "smtlib": script[:20_000], "gold": gold}
    if outcome.status == "verified":
        return Score("correct", 1.0, d.get("value_text") or d.get("value"), detail)
    verdict = "unparseable" if outcome.status in _UNPARSEABLE_STATUSES else "wrong"
    return Score(verdict, 0.0, d.get("value_text") or d.get("value"), detail)


def _judge_all(db_path: Path, cfg: Any, tpl: T.Template | None, group: list[dict[str, Any]],
               items: Mapping[int, Any]) -> list[Score]:
    judges = list(getattr(cfg, "judges", []) or [])
    if not judges or tpl is None:
        return [Score("not_scored", None, None, {"reason": "no judge configured ([[judges]] in "
                                                            "qcstation.toml)"}) for _ in group]
    batches = []
    for o in group:
        record = items[int(o["seed_id"])][0]
        vals = T.record_values(record)
        # the candidate is fenced in the judge prompt; it cannot close the fence itself
        response = re.sub(r"(?i)</?\s*candidate\s*>", "[candidate tag removed]",
                          (o["response"] or "")[:MAX_JUDGED_CHARS])
        msgs = []
        if tpl.system:
            msgs.append({"role": "system", "content": tpl.system.strip()})
        msgs.append({"role": "user", "content": T.fill(tpl.user, {
            "question": vals["question"], "reference": vals["key_information"],
            "response": response}).strip()})
        batches.append(msgs)
    per_judge: list[list[Any]] = []
    for j in judges:
        per_judge.append(asyncio.run(_ask_judge(db_path, j, batches, cfg)))
    out: list[Score] = []
    for idx in range(len(group)):
        scores: dict[str, Any] = {}
        for j, answers in zip(judges, per_judge):
            a = answers[idx]
            if isinstance(a, Exception):
                scores[j.name] = {"error": str(a)[:300]}
            else:
                s = parse_judge_score(a.text)
                scores[j.name] = {"score": s, "raw": a.text[:500]} if s is not None else {
                    "error": "no 'Score: N' (1-100) in the judge's reply", "raw": a.text[:500]}
        valid = [v["score"] for v in scores.values() if v.get("score") is not None]
        if not valid:
            out.append(Score("unparseable", None, None, {"judges": scores,
                                                          "reason": "no judge gave a usable score"}))
            continue
        mean = sum(valid) / len(valid)
        out.append(Score("correct" if mean >= ALL_PASS_UNDERSTANDING else "wrong", mean,
                         f"{mean:.1f}", {"judges": scores, "n_judges": len(valid)}))
    return out


async def _ask_judge(db_path: Path, judge: Any, batches: Iterable[list[dict[str, str]]], cfg: Any) -> list[Any]:
    from qcstation.core.construct.llm import LLMClient

    client = LLMClient(judge, db_path, purpose="eval-judge")
    try:
        return await client.chat_many(list(batches), temperature=0.0)
    finally:
        await client.aclose()


def summarize_verdicts(store: Store, run_id: int) -> dict[str, dict[str, int]]:
    """metric -> verdict -> count for a run (for a quick summary without the metrics module)."""
    out: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for m, v, n in store.conn.execute(
            "SELECT metric, verdict, COUNT(*) FROM eval_scores WHERE run_id = ? GROUP BY 1, 2", (run_id,)):
        out[str(m)][str(v)] = int(n)
    return dict(out)


__all__ = ["EvalError", "Score", "ScoreSummary", "score_run", "extract_smtlib",
           "parse_error_types", "parse_judge_score", "corrected_part", "summarize_verdicts",
           "scorer_versions"]
