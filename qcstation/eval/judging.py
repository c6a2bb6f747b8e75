"""Understanding (LLM@Un): the judges' replies read as scores, and the item's verdict.

Reading a judge's reply (:func:`read_judge_reply`)
--------------------------------------------------
A reply is read only when it says its score in a conventional form, on a line of its own:

* the whole reply is an integer from 1 to 100 (``95``, ``95.``);
* a line that is only the score: ``Score: 87``, ``**Score:** 87``, ``Score = 87/100``,
  ``Rating: [[87]]``, ``[[87]]``, ``**87**``.

When several lines qualify, the last one counts. Anything else is *unusable*, with the
reason: a score out of another scale (``Score: 7/10`` is never read as 7), a "score:"
buried in a sentence, a number outside 1..100. The raw reply is kept (head and tail).

An item's verdict (:func:`judge_verdict`)
-----------------------------------------
LLM@Un uses every configured judge. The item's score is the mean over all of them, and
its verdict ``correct`` (>= 90) or ``wrong``. When any configured judge failed (request
error) or gave an unusable reply, the item is ``judge_error``: not the model's failure, so
it is left out of LLM@Un and All-Pass, counted apart, and asked again by
``qcstation eval score RUN --retry-judges``. Never a silently smaller mean.

Asking (:func:`judge_outputs`)
------------------------------
``mode="ask"`` asks every judge (through the response cache); ``mode="reuse"`` re-reads
the replies stored with the previous verdict and asks nobody about an item that has one
(what ``eval rescore`` does: rescoring calls no model; an item never judged is asked);
``mode="retry"`` re-reads the usable stored replies and asks again, bypassing the cache,
only the judges whose reply was missing or unusable.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from qcstation.eval import tasks as T
from qcstation.eval.types import ALL_PASS_UNDERSTANDING

JUDGE_VERSION = "judge-v2"
MAX_JUDGED_CHARS = 8_000           # the judge sees at most this much of the key information
MAX_RAW_KEPT = 4_000               # a judge reply is kept whole up to this, else head + tail
JUDGE_MODES = ("ask", "reuse", "retry")

_WHOLE_INT = re.compile(r"\s*[*_`\[]*\s*(\d{1,3})\s*[*_`\]]*\s*\.?\s*")
_SCORE_LINE = re.compile(
    r"[ \t>#*_-]*(?:(?:final|overall|similarity)[ \t]+)?(?:score|rating)[ \t*_]*[:=][ \t*_]*"
    r"(?:\[\[[ \t]*(?P<a>\d{1,3}(?:\.\d+)?)[ \t]*\]\]|(?P<b>\d{1,3}(?:\.\d+)?))"
    r"[ \t]*(?:/[ \t]*(?P<den>\d{1,4}))?[ \t*_]*\.?[ \t*_]*", re.I)
_BARE_LINE = re.compile(r"[ \t>*_-]*(?:\[\[[ \t]*(?P<a>\d{1,3})[ \t]*\]\]|\*\*[ \t]*(?P<b>\d{1,3})[ \t]*\*\*)"
                        r"[ \t]*(?:/[ \t]*(?P<den>\d{1,4}))?[ \t.]*")
_BURIED = re.compile(r"(?:score|rating)[ \t*_]*[:=]", re.I)


def keep_raw(text: str) -> str:
    """A reply as stored with the verdict: whole up to :data:`MAX_RAW_KEPT` characters,
    else its head and tail (the score line is usually last)."""
    if len(text) <= MAX_RAW_KEPT:
        return text
    half = MAX_RAW_KEPT // 2
    return text[:half] + "\n[…]\n" + text[-half:]


def read_judge_reply(text: str | None) -> tuple[int | None, str]:
    """(score 1..100, "") or (None, why the reply is unusable)."""
    if text is None or not text.strip():
        return None, "the judge's reply is empty"
    tail = text[-MAX_RAW_KEPT:]
    m = _WHOLE_INT.fullmatch(tail)
    if m:
        return _in_range(m.group(1))
    found: tuple[str, str | None] | None = None
    for line in tail.splitlines():
        m = _SCORE_LINE.fullmatch(line) or _BARE_LINE.fullmatch(line)
        if m:
            found = (m.group("a") or m.group("b"), m.group("den"))
    if found is None:
        if _BURIED.search(tail):
            return None, "the reply mentions a score only inside a sentence (not on a line of its own)"
        return None, "no score line ('Score: N', N from 1 to 100) in the judge's reply"
    value, den = found
    if den is not None and den != "100":
        return None, f"the score is out of {den}, not 100 (never rescaled)"
    if "." in value:
        return None, f"the score {value} is not an integer"
    return _in_range(value)


def _in_range(value: str) -> tuple[int | None, str]:
    v = int(value)
    if 1 <= v <= 100:
        return v, ""
    return None, f"the score {v} is outside 1..100"


def parse_judge_score(text: str | None) -> int | None:
    """The score of a judge's reply (:func:`read_judge_reply`), None when unusable."""
    return read_judge_reply(text)[0]


def judge_verdict(judges: Sequence[Any], per_judge: Mapping[str, Mapping[str, Any]]
                  ) -> tuple[str, float | None, str | None, dict[str, Any]]:
    """(verdict, score, extracted, detail) of one item from every configured judge's entry
    (``{"score": N, "raw": ...}`` or ``{"error": ..., "raw"?: ...}``)."""
    names = [j.name for j in judges]
    entries = {n: dict(per_judge.get(n) or {"error": "this judge has not been asked "
                                                      "(`qcstation eval score RUN --retry-judges`)"})
               for n in names}
    usable = [e["score"] for e in entries.values() if e.get("score") is not None]
    detail: dict[str, Any] = {"judges": entries, "n_judges": len(usable), "configured": len(names)}
    if len(usable) < len(names):
        failed = [n for n, e in entries.items() if e.get("score") is None]
        detail["reason"] = (f"{len(failed)} of {len(names)} judge(s) gave no usable score "
                            f"({', '.join(failed)}): not the model's failure; "
                            "`qcstation eval score RUN --retry-judges` asks again")
        return "judge_error", None, None, detail
    mean = sum(usable) / len(usable)
    return ("correct" if mean >= ALL_PASS_UNDERSTANDING else "wrong"), mean, f"{mean:.1f}", detail


def judge_messages(tpl: T.Template, record: Mapping[str, Any], response: str | None) -> list[dict[str, str]]:
    vals = T.record_values(record)
    # the candidate is fenced in the judge prompt; it cannot close the fence itself
    text = re.sub(r"(?i)</?\s*candidate\s*>", "[candidate tag removed]",
                  (response or "")[:MAX_JUDGED_CHARS])
    msgs = []
    if tpl.system:
        msgs.append({"role": "system", "content": tpl.system.strip()})
    msgs.append({"role": "user", "content": T.fill(tpl.user, {
        "question": vals["question"], "reference": vals["key_information"],
        "response": text}).strip()})
    return msgs


def judge_outputs(db_path: Path, cfg: Any, tpl: T.Template | None, records: Sequence[Mapping[str, Any]],
                  responses: Sequence[str | None], previous: Sequence[Mapping[str, Any] | None],
                  *, mode: str = "ask") -> list[tuple[str, float | None, str | None, dict[str, Any]]]:
    """One (verdict, score, extracted, detail) per response; see the module docstring."""
    if mode not in JUDGE_MODES:
        raise ValueError(f"unknown judge mode {mode!r}")
    judges = list(getattr(cfg, "judges", []) or [])
    if not judges or tpl is None:
        return [("not_scored", None, None,
                 {"reason": "no judge configured ([[judges]] in qcstation.toml)"}) for _ in records]
    entries: list[dict[str, dict[str, Any]]] = []
    for prev in previous:
        got: dict[str, dict[str, Any]] = {}
        old = (prev or {}).get("judges") if isinstance(prev, Mapping) else None
        if mode != "ask" and isinstance(old, Mapping):
            for j in judges:
                e = old.get(j.name)
                if not isinstance(e, Mapping):
                    continue
                if isinstance(e.get("raw"), str):      # a reply came: read it again
                    got[j.name] = _entry(j, e["raw"])
                elif e.get("error"):                   # the request failed
                    got[j.name] = {"error": str(e["error"])[:300], "model": j.model}
        entries.append(got)
    never = [prev is None for prev in previous]      # no verdict stored yet: asked in any mode
    for j in judges:
        todo = [i for i, got in enumerate(entries)
                if mode == "ask" or never[i]
                or (mode == "retry" and got.get(j.name, {}).get("score") is None)]
        if not todo:
            continue
        batch = [judge_messages(tpl, records[i], responses[i]) for i in todo]
        answers = asyncio.run(_ask(db_path, j, batch, use_cache=(mode != "retry")))
        for i, a in zip(todo, answers):
            if isinstance(a, Exception):
                entries[i][j.name] = {"error": f"the judge request failed: {str(a)[:300]}",
                                      "model": j.model}
            else:
                entries[i][j.name] = _entry(j, a.text or "")
    return [judge_verdict(judges, got) for got in entries]


def _entry(judge: Any, raw: str) -> dict[str, Any]:
    score, why = read_judge_reply(raw)
    e: dict[str, Any] = {"raw": keep_raw(raw), "model": judge.model, "replied": True}
    if score is None:
        e["error"] = f"unusable reply: {why}"
    else:
        e["score"] = score
    return e


async def _ask(db_path: Path, judge: Any, batches: Iterable[list[dict[str, str]]], *,
               use_cache: bool) -> list[Any]:
    from qcstation.core.construct.llm import LLMClient

    client = LLMClient(judge, db_path, purpose="eval-judge")
    try:
        return await client.chat_many(list(batches), temperature=0.0, use_cache=use_cache)
    finally:
        await client.aclose()
