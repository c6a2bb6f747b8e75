"""Understanding (LLM@Un): the judges' replies read as scores, and the item's verdict.

Reading a judge's reply (:func:`read_judge_reply`)
--------------------------------------------------
A reply is read only when it says its score in a conventional form, on a line of its own:

* the whole reply is an integer from 1 to 100 (``95``, ``95.``);
* a line that is only the score: ``Score: 87``, ``**Score:** 87``, ``Score = 87/100``,
  ``Rating: [[87]]``, ``[[87]]``, ``**87**``.

Exactly one line may qualify. Anything else is *unusable*, with the reason: two score lines
or more, a score out of another scale (``Score: 7/10`` is never read as 7), a "score:"
buried in a sentence, a number outside 1..100. The raw reply is kept (head and tail).

Only the judge's own words are read: the candidate's text is fenced in the prompt
(``<candidate>`` … ``</candidate>``) and any tag in it that reads as the fence once case,
spacing, invisible characters and look-alikes are set aside (``</candidate x>``,
``</candidate\u200b>``, ``＜/candidate＞``) is removed before the judge sees it. In the reply, a
fenced region (an echo of the prompt: from an opening tag to its closing tag, or to the end
when it is not closed) and every line that is a line of the candidate's text are not the
judge's words; a reply whose only score line is there is unusable.

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

A judge that is down makes every request wait for its retries: ``progress`` is told as each
request ends (:func:`judge_progress_line` says it in words, for the CLI and the
workstation alike), and ``cancel`` (a ``threading.Event``) stops the asking at once: the
requests in flight are dropped, and every item a judge did not answer is ``judge_error``
("not asked: the scoring was stopped"), asked again by ``--retry-judges``.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qcstation.common.safe import one_line
from qcstation.eval import tasks as T
from qcstation.eval.types import ALL_PASS_UNDERSTANDING

if TYPE_CHECKING:
    import asyncio

JUDGE_VERSION = "judge-v3"   # 3: only the judge's own words, exactly one score line
MAX_JUDGED_CHARS = 8_000           # the judge sees at most this much of the key information
MAX_RAW_KEPT = 4_000               # a judge reply is kept whole up to this, else head + tail
JUDGE_MODES = ("ask", "reuse", "retry")

log = logging.getLogger(__name__)

# Every run of spaces, stars or dots is matched possessively (``*+``): the same lines match,
# and a line that fails does so in linear time. With plain ``*`` the adjacent runs of
# the tail ('Score: 5' + 4,000 spaces + 'x') were split every way before failing, cubic:
# 5 s of CPU per reply at 1,000 spaces, minutes at 4,000 (found by lane attack6).
_WHOLE_INT = re.compile(r"\s*+[*_`\[]*+\s*+(\d{1,3})\s*+[*_`\]]*+\s*+\.?+\s*+")
_SCORE_LINE = re.compile(
    r"[ \t>#*_-]*+(?:(?:final|overall|similarity)[ \t]+)?(?:score|rating)[ \t*_]*+[:=][ \t*_]*+"
    r"(?:\[\[[ \t]*+(?P<a>\d{1,3}(?:\.\d+)?)[ \t]*+\]\]|(?P<b>\d{1,3}(?:\.\d+)?))"
    r"(?:[ \t]*+/[ \t]*+(?P<den>\d{1,4}))?[ \t*_]*+(?:\.[ \t*_]*+)?", re.I)
_BARE_LINE = re.compile(r"[ \t>*_-]*(?:\[\[[ \t]*+(?P<a>\d{1,3})[ \t]*+\]\]|\*\*[ \t]*+(?P<b>\d{1,3})[ \t]*+\*\*)"
                        r"(?:[ \t]*+/[ \t]*+(?P<den>\d{1,4}))?[ \t.]*+")
_BURIED = re.compile(r"(?:score|rating)[ \t*_]*[:=]", re.I)


def keep_raw(text: str) -> str:
    """A reply as stored with the verdict: whole up to :data:`MAX_RAW_KEPT` characters,
    else its head and tail (the score line is usually last)."""
    if len(text) <= MAX_RAW_KEPT:
        return text
    half = MAX_RAW_KEPT // 2
    return text[:half] + "\n[…]\n" + text[-half:]


_TAG = re.compile(r"[<\uff1c\ufe64\u2039\u3008\u27e8][^<>\n\uff1c\uff1e\ufe64\ufe65]{0,80}"
                  r"[>\uff1e\ufe65\u203a\u3009\u27e9]?")


def _folded(text: str) -> str:
    """``text`` as compared for the fence: NFKC, no format (invisible) characters, no spaces,
    lower case."""
    t = unicodedata.normalize("NFKC", text)
    return "".join(c for c in t if not c.isspace() and unicodedata.category(c) != "Cf").casefold()


def _fence_tag(tag: str) -> str | None:
    """'open' / 'close' when ``tag`` reads as the candidate fence, else None."""
    f = _folded(tag)
    if f.startswith("</candidate") or f.startswith("<\\/candidate"):
        return "close"
    if f.startswith("<candidate"):
        return "open"
    return None


def fence_candidate(text: str) -> str:
    """The candidate's text with every tag that reads as the fence removed."""
    return _TAG.sub(lambda m: "[candidate tag removed]" if _fence_tag(m.group(0)) else m.group(0),
                    text)


def judges_words(text: str, candidate: str | None = None) -> str:
    """The judge's reply without what is not its own words: fenced regions (an opening tag
    to its closing tag, or to the end) and the lines of the candidate's text."""
    out: list[str] = []
    pos, inside = 0, False
    for m in _TAG.finditer(text):
        kind = _fence_tag(m.group(0))
        if kind == "open" and not inside:
            out.append(text[pos:m.start()])
            inside = True
        elif kind == "close":
            if not inside:              # a closing tag with no opening: all before was echoed
                out = []
            inside = False
            pos = m.end()
    if not inside:
        out.append(text[pos:])
    words = "".join(out)
    if candidate:
        theirs = {_folded(line) for line in candidate.splitlines()} - {""}
        words = "\n".join(line for line in words.splitlines() if _folded(line) not in theirs)
    return words


def _score_lines(text: str) -> list[tuple[str, str | None]]:
    found = []
    for line in text.splitlines():
        m = _SCORE_LINE.fullmatch(line) or _BARE_LINE.fullmatch(line)
        if m:
            found.append((m.group("a") or m.group("b"), m.group("den")))
    return found


def read_judge_reply(text: str | None, candidate: str | None = None) -> tuple[int | None, str]:
    """(score 1..100, "") or (None, why the reply is unusable). ``candidate``: the text the
    judge graded (its lines in the reply are not the judge's words)."""
    if text is None or not text.strip():
        return None, "the judge's reply is empty"
    m = _WHOLE_INT.fullmatch(text[-MAX_RAW_KEPT:])
    if m:                               # the whole reply is the score: nothing is echoed
        return _in_range(m.group(1))
    tail = judges_words(text, candidate)[-MAX_RAW_KEPT:]
    lines = _score_lines(tail)
    if len(lines) > 1:
        return None, (f"{len(lines)} score lines in the judge's reply (exactly one is read)")
    if not lines:
        if _score_lines(text):
            return None, ("the only score line is inside the candidate's text (echoed), not in "
                          "the judge's own words")
        if _BURIED.search(tail):
            return None, "the reply mentions a score only inside a sentence (not on a line of its own)"
        return None, "no score line ('Score: N', N from 1 to 100) in the judge's reply"
    value, den = lines[0]
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


def parse_judge_score(text: str | None, candidate: str | None = None) -> int | None:
    """The score of a judge's reply (:func:`read_judge_reply`), None when unusable."""
    return read_judge_reply(text, candidate)[0]


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
    text = fence_candidate((response or "")[:MAX_JUDGED_CHARS])
    msgs = []
    if tpl.system:
        msgs.append({"role": "system", "content": tpl.system.strip()})
    msgs.append({"role": "user", "content": T.fill(tpl.user, {
        "question": vals["question"], "reference": vals["key_information"],
        "response": text}).strip()})
    return msgs


#: told as each judge request ends: (judge name, requests done, requests in all, failed)
JudgeProgress = Callable[[str, int, int, int], None]

#: what an item's entry says for a judge the scoring stopped before it answered
STOPPED = "not asked: the scoring was stopped"


class JudgeStopped(Exception):
    """The scoring was stopped before this judge request was answered."""


#: while no judge request ends, the progress is told again this often (seconds): a judge
#: server that hangs holds each request for its timeout and retries (walk28a: one line,
#: '0 of 10 requests answered', for minutes)
HEARTBEAT_S = 10.0


def judge_progress_line(judge: str, done: int, total: int, failed: int, *, stop: str,
                        judge_width: int = 40, note: bool = True,
                        waiting_s: float | None = None) -> str:
    """How far a judge's requests got, in words; ``stop`` names the key that stops them;
    ``waiting_s``: how long no request has ended (said from a heartbeat on). A line that
    must fit a width cuts the judge's name to ``judge_width`` and leaves out the note that
    nothing scored is lost (``note=False``)."""
    return (f"judge {one_line(judge, judge_width)}: {done:,} of {total:,} requests answered"
            + (f", {failed:,} failed" if failed else "")
            + (f" · no reply for {waiting_s:,.0f} s" if waiting_s is not None
               and waiting_s >= HEARTBEAT_S and done < total else "")
            + ("" if done == total else f" · {stop} stops"
               + (" (nothing scored is lost)" if note else "")))


def judge_outputs(db_path: Path, cfg: Any, tpl: T.Template | None, records: Sequence[Mapping[str, Any]],
                  responses: Sequence[str | None], previous: Sequence[Mapping[str, Any] | None],
                  *, mode: str = "ask", progress: JudgeProgress | None = None,
                  cancel: threading.Event | None = None,
                  ) -> list[tuple[str, float | None, str | None, dict[str, Any]]]:
    """One (verdict, score, extracted, detail) per response; see the module docstring.
    ``progress(judge, done, total, failed)`` is told as each request ends (a judge that is
    down is a long wait: retries and backoff on every request); ``cancel`` stops it."""
    import asyncio   # here: the live scoring worker imports this module and judges nothing

    if mode not in JUDGE_MODES:
        raise ValueError(f"unknown judge mode {mode!r}")
    judges = list(getattr(cfg, "judges", []) or [])
    if not judges or tpl is None:
        return [("not_scored", None, None,
                 {"reason": "no judge configured ([[judges]] in qcstation.toml)"}) for _ in records]
    entries: list[dict[str, dict[str, Any]]] = []
    for i, prev in enumerate(previous):
        got: dict[str, dict[str, Any]] = {}
        old = (prev or {}).get("judges") if isinstance(prev, Mapping) else None
        if mode != "ask" and isinstance(old, Mapping):
            for j in judges:
                e = old.get(j.name)
                if not isinstance(e, Mapping):
                    continue
                if isinstance(e.get("raw"), str):      # a reply came: read it again
                    got[j.name] = _entry(j, e["raw"], responses[i])
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
        dropped = 0

        def ask(k: int, i: list[int] = todo) -> list[dict[str, str]]:
            return judge_messages(tpl, records[i[k]], responses[i[k]])

        def keep(k: int, a: Any, judge: Any = j, i: list[int] = todo) -> None:
            # the reply is read as it comes and only its entry is kept (its text, up to
            # MAX_REPLY_CHARS, is not held until the last request of the run ends)
            nonlocal dropped
            dropped += int(getattr(a, "dropped_counts", 0) or 0)
            entries[i[k]][judge.name] = _answer_entry(judge, a, responses[i[k]])

        if cancel is not None and cancel.is_set():
            for k in range(len(todo)):
                keep(k, JudgeStopped(STOPPED))
        else:
            asyncio.run(_ask(db_path, j, len(todo), ask, keep, use_cache=(mode != "retry"),
                             progress=progress, cancel=cancel))
        if dropped:      # one line for the judge's requests, not one a reply
            log.warning("judge %s: %d token count(s) the server reported dropped (not a count of "
                        "tokens, or more than the request can hold)", j.name, dropped)
    return [judge_verdict(judges, got) for got in entries]


def _answer_entry(judge: Any, answer: Any, response: str | None) -> dict[str, Any]:
    if isinstance(answer, JudgeStopped):
        return {"error": STOPPED, "model": judge.model}
    if isinstance(answer, Exception):
        return {"error": f"the judge request failed: {str(answer)[:300]}", "model": judge.model}
    return _entry(judge, answer.text or "", response)


def _entry(judge: Any, raw: str, response: str | None) -> dict[str, Any]:
    score, why = read_judge_reply(raw, (response or "")[:MAX_JUDGED_CHARS])
    e: dict[str, Any] = {"raw": keep_raw(raw), "model": judge.model, "replied": True}
    if score is None:
        e["error"] = f"unusable reply: {why}"
    else:
        e["score"] = score
    return e


async def _ask(db_path: Path, judge: Any, n: int, ask: Callable[[int], list[dict[str, str]]],
               keep: Callable[[int, Any], None], *, use_cache: bool,
               progress: JudgeProgress | None = None, cancel: threading.Event | None = None) -> None:
    """Ask ``judge`` the ``n`` requests ``ask(k)`` and give each answer (or its error) to
    ``keep(k, answer)`` as it comes. Memory is per request in flight, not per request of the
    run: a request's messages are made when it is about to be sent (up to twice the judge's
    concurrency at a time) and its reply is dropped once kept."""
    import asyncio

    from qcstation.core.construct.make.llm import LLMClient

    client = LLMClient(judge, db_path, purpose="eval-judge")
    name = str(getattr(judge, "name", "judge"))
    window = asyncio.Semaphore(2 * max(1, int(getattr(judge, "concurrency", 1) or 1)))
    done = failed = 0

    async def one(k: int) -> None:
        nonlocal done, failed
        async with window:
            [answer] = await client.chat_many([ask(k)], temperature=0.0, use_cache=use_cache)
            done += 1
            failed += isinstance(answer, Exception)
            keep(k, answer)
        if progress is not None:
            progress(name, done, n, failed)

    async def heartbeat(tell: JudgeProgress) -> None:
        while True:                 # told again while nothing ends (the judge may hang)
            await asyncio.sleep(HEARTBEAT_S)
            tell(name, done, n, failed)

    beat: asyncio.Future[None] | None = None
    try:
        if progress is not None:
            progress(name, 0, n, 0)
            beat = asyncio.ensure_future(heartbeat(progress))
        tasks = [asyncio.ensure_future(one(k)) for k in range(n)]
        watch = asyncio.ensure_future(_stop_when(cancel, tasks)) if cancel is not None else None
        try:
            if tasks:
                _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
                for task in pending:       # one raised (the store failed): the others stop too
                    task.cancel()
                if pending:
                    await asyncio.wait(pending)
        finally:
            if watch is not None:
                watch.cancel()
            if beat is not None:
                beat.cancel()
            # stopped from outside (Ctrl+C cancels asyncio.run's task): the requests stop
            # before the client closes. They went on, and each retry then raised 'Cannot
            # send a request, as the client has been closed' at asyncio.run's shutdown:
            # walk28a, a traceback per request on Ctrl+C with the judge server hanging
            left = [task for task in tasks if not task.done()]
            for task in left:
                task.cancel()
            if left:
                await asyncio.gather(*left, return_exceptions=True)
        for k, task in enumerate(tasks):
            if task.cancelled():
                keep(k, JudgeStopped(STOPPED))
            else:
                task.result()          # the store's failure, raised here as before
    finally:
        await client.aclose()


async def _stop_when(cancel: threading.Event, tasks: Sequence[asyncio.Future[Any]]) -> None:
    """Cancel ``tasks`` (their requests in flight, their retries' waits) once ``cancel`` is
    set: a ``threading.Event`` set by another thread, looked at ten times a second."""
    import asyncio

    while not cancel.is_set():
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
