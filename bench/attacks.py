"""The evaluation path attacked as a hostile model server would attack it (issue 18), on
127.0.0.1, and a table of what held: tried / passed / failed per area.

Every attack runs against real components: the loopback OpenAI-protocol server of the tests
in its hostile modes (tests/fake_openai.py) or a raw socket that breaks HTTP itself
(:class:`RawServer`: endless or trickling headers and bodies, the key in the status line or a
header), a real SQLite file made by ``qcstation
quickstart``, the real runner, the judge/generator client, the batch reader, the importer,
the export writer and the CLI in subprocesses. An attack *held* when its check passed;
the check says what holding means (nothing raw reached a terminal, memory stayed under the
bound, the run went on, the key is nowhere in the database file, ...).

Run: python bench/attacks.py [--only AREA] [--name TEXT] [-v]      (about 2-4 minutes on 2 cores)
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import traceback
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from db import Store  # noqa: E402
from qcstation.common.config import ModelConfig, parse_config  # noqa: E402
from qcstation.common.http_retry import MAX_BODY_BYTES  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

KEY = "sk-attack-SECRET-9f8e7d6c5b4a3210"
OSC52 = "\x1b]52;c;UFdORUQ=\x07"
TITLE = "\x1b]2;owned\x07"
CLEAR = "\x1b[2J"
C1 = "\x9b31m\x9d0;t\x9c"
HOSTILE = f"{OSC52}{TITLE}{CLEAR}{C1}"
RAW = ("\x1b", "\x07", "\x9b", "\x9d", "\x9c")
#: the peak a request may add (Python allocations, tracemalloc): the body cap, its
#: decoded copy and one decompression step, plus the parse of a capped body
PEAK_BOUND = 3 * MAX_BODY_BYTES + 80 * 2**20

ATTACKS: list[tuple[str, str, Callable[[Any], str | None]]] = []


def attack(area: str, name: str) -> Callable[[Callable[[Any], str | None]], Callable[[Any], str | None]]:
    """Register an attack: it returns None when it held, else what went wrong."""
    def wrap(fn: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
        ATTACKS.append((area, name, fn))
        return fn
    return wrap


class World:
    """What the attacks share: a quickstart database (copied per attack), a fake server."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.template = tmp / "qs.db"
        proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(self.template), "quickstart",
                               "--no-app"], cwd=tmp, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"quickstart failed: {proc.stderr[-2000:]}")
        self.n = 0

    def db(self) -> Path:
        self.n += 1
        path = self.tmp / f"a{self.n}.db"
        shutil.copy(self.template, path)
        return path

    def cfg(self, url: str, **model: Any) -> Any:
        m = {"model": "fake-model", "base_url": url, "retries": 0, "backoff_s": 0.01,
             "max_backoff_s": 0.05, "timeout_s": 20.0, "concurrency": 4, **model}
        return parse_config({"models": {"m": m}}, "<attacks>")

    def cfg_file(self, url: str, **extra: Any) -> Path:
        lines = ["[models.m]", 'model = "fake-model"', f'base_url = "{url}"', "retries = 0", "timeout_s = 20"]
        lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
        p = self.tmp / f"cfg{self.n}.toml"
        p.write_text("\n".join(lines) + "\n")
        return p

    def run(self, db: Path, cfg: Any, *, limit: int = 3, tasks: tuple[str, ...] = ("final",)) -> int:
        from qcstation.eval.runs import create_run

        with Store(db) as s:
            return create_run(s, cfg, model="m", tasks=list(tasks), shots=0, limit=limit)

    def cli(self, db: Path, cfg: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "--config", str(cfg), *args],
                              capture_output=True, text=True, timeout=180, env={**os.environ, **(env or {})})


def outputs(db: Path, run_id: int) -> list[dict[str, Any]]:
    with Store(db) as s:
        return s.query("SELECT * FROM eval_outputs WHERE run_id = ? ORDER BY seed_id", (run_id,))


def shown(renderable: Any) -> str:
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=120, color_system=None, force_terminal=False).print(renderable)
    return out.getvalue()


def raw_in(text: str) -> bool:
    return any(c in text for c in RAW)


def peak_of(fn: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def llm(url: str, db: Path | None = None, **kw: Any) -> Any:
    from qcstation.core.construct.make.llm import LLMClient

    return LLMClient(ModelConfig(**{"model": "fake-model", "base_url": url, "retries": 0, "timeout_s": 20, **kw}), db)


# -- display: every reply field, every surface -------------------------------------------------

def _display_run(w: World, field: str) -> tuple[Path, int, str]:
    db = w.db()
    with FakeOpenAI() as fake:
        if field == "error":
            for _ in range(3):
                fake.status(400, message=f"bad {HOSTILE}")
        else:
            fake.hostile(text=f"18 {HOSTILE}" if field == "content" else "The answer is 18.",
                         finish_reason=f"stop{HOSTILE}" if field == "finish_reason" else "stop",
                         model=f"m{HOSTILE}" if field == "model" else None,
                         usage={"prompt_tokens": f"1{HOSTILE}", "completion_tokens": [HOSTILE]}
                         if field == "usage" else None)
        cfg = w.cfg(fake.base_url)
        run_id = w.run(db, cfg)
        from qcstation.eval.runner import execute_run

        execute_run(db, run_id, cfg)
        return db, run_id, fake.base_url


for _field in ("content", "finish_reason", "model", "error", "usage"):
    def _make(field: str) -> None:
        @attack("display", f"ESC/C1/OSC in {field}: results browser and side by side")
        def panes(w: World) -> str | None:
            from qcstation.eval import browse
            from qcstation.widgets.eval_views import render_item

            db, run_id, _ = _display_run(w, field)
            with Store(db) as s:
                for r in outputs(db, run_id):
                    a, b = browse.side_by_side(s, run_id, run_id, r["seed_id"])
                    text = shown(render_item(browse.item_detail(s, run_id, r["seed_id"]))) + \
                        shown(render_item(a)) + shown(render_item(b, header=False))
                    if raw_in(text):
                        return f"raw control character shown: {text[:200]!r}"
            return None

        @attack("display", f"ESC/C1/OSC in {field}: CLI (list, show, leaderboard, breakdown)")
        def cli(w: World) -> str | None:
            db, run_id, url = _display_run(w, field)
            cfg = w.cfg_file(url)
            for args in (["eval", "list"], ["eval", "show", str(run_id)], ["eval", "leaderboard"],
                         ["eval", "breakdown", str(run_id)], ["eval", "report", str(run_id), "--out",
                                                               str(w.tmp / f"rep{w.n}")]):
                p = w.cli(db, cfg, *args)
                if raw_in(p.stdout + p.stderr):
                    return f"{' '.join(args)} printed a raw control character"
            for f in (w.tmp / f"rep{w.n}").rglob("*"):
                if f.is_file() and f.suffix in (".md", ".html", ".json", ".csv", ".txt") and raw_in(
                        f.read_text("utf-8", "replace")):
                    return f"report file {f.name} holds a raw control character"
            return None
    _make(_field)


@attack("display", "ESC in a stored finish reason of an older database: escaped at the pane")
def display_old_rows(w: World) -> str | None:
    from qcstation.eval import browse
    from qcstation.widgets.eval_views import render_item

    db, run_id, _ = _display_run(w, "content")
    with Store(db) as s:
        s.execute("UPDATE eval_outputs SET finish_reason = ?, error = ? WHERE run_id = ?",
                  (f"stop{HOSTILE}", f"old{HOSTILE}", run_id))
        for r in outputs(db, run_id):
            if raw_in(shown(render_item(browse.item_detail(s, run_id, r["seed_id"])))):
                return "raw control character shown"
    return None


# -- size: bounded after decoding ------------------------------------------------------------------

def _eval_one(w: World, behave: Callable[[FakeOpenAI], object], **model: Any) -> tuple[list[dict[str, Any]], int]:
    from qcstation.eval.runner import execute_run

    db = w.db()
    with FakeOpenAI() as fake:
        behave(fake)
        cfg = w.cfg(fake.base_url, concurrency=1, **model)
        run_id = w.run(db, cfg, limit=1)
        _, peak = peak_of(lambda: execute_run(db, run_id, cfg))
    return outputs(db, run_id), peak


def _bomb(size: int, wrap: bool = True) -> bytes:
    head, tail = (b'{"choices": [{"message": {"content": "', b'"}}]}') if wrap else (b"", b"")
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [c.compress(head)]
    block = b" " * (1 << 20)
    for _ in range(size >> 20):
        parts.append(c.compress(block))
    parts.append(c.compress(tail))
    parts.append(c.flush())
    return b"".join(parts)


_BOMB = None


def bomb() -> bytes:
    global _BOMB
    if _BOMB is None:
        _BOMB = _bomb(1 << 30)          # 1 GiB once inflated, ~1 MB on the wire
    return _BOMB


@attack("size", "eval: 1 MB gzip reply inflating to 1 GiB")
def size_gzip_eval(w: World) -> str | None:
    rows, peak = _eval_one(w, lambda f: f.raw(bomb(), headers={"Content-Encoding": "gzip"}))
    if rows[0]["status"] != "error" or "after decompression" not in rows[0]["error"]:
        return f"not refused: {rows[0]['error']}"
    return None if peak < PEAK_BOUND else f"peak {peak / 2**20:.0f} MiB"


@attack("size", "eval: 4 gzip bombs in flight at once")
def size_gzip_eval_4(w: World) -> str | None:
    from qcstation.eval.runner import execute_run

    db = w.db()
    with FakeOpenAI() as fake:
        fake.raw_responder = lambda req: (200, {"Content-Encoding": "gzip"}, bomb())
        cfg = w.cfg(fake.base_url, concurrency=4)
        run_id = w.run(db, cfg, limit=4)
        _, peak = peak_of(lambda: execute_run(db, run_id, cfg))
    if any(r["status"] != "error" for r in outputs(db, run_id)):
        return "a bomb was stored"
    return None if peak < 4 * PEAK_BOUND else f"peak {peak / 2**20:.0f} MiB"


@attack("size", "eval: deflate (raw and zlib) bombs")
def size_deflate(w: World) -> str | None:
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = raw.compress(b" " * (200 << 20)) + raw.flush()
    for b in (body, zlib.compress(b" " * (200 << 20), 9)):
        def deflated(f: FakeOpenAI, b: bytes = b) -> object:
            return f.raw(b, headers={"Content-Encoding": "deflate"})

        rows, peak = _eval_one(w, deflated)
        if rows[0]["status"] != "error" or peak > PEAK_BOUND:
            return f"{rows[0]['error']}, peak {peak >> 20} MiB"
    return None


@attack("size", "eval: an encoding not asked for (br) is refused")
def size_br(w: World) -> str | None:
    rows, _ = _eval_one(w, lambda f: f.raw(b"\x0b\x02\x80hello\x03", headers={"Content-Encoding": "br"}))
    return None if rows[0]["status"] == "error" and "not asked for" in rows[0]["error"] else str(rows[0])


@attack("size", "eval: 40 MB plain body (no compression)")
def size_plain(w: World) -> str | None:
    body = b'{"choices": [{"message": {"content": "' + b"y" * (40 << 20) + b'"}}]}'
    rows, peak = _eval_one(w, lambda f: f.raw(body))
    if rows[0]["status"] != "error":
        return "stored"
    return None if peak < PEAK_BOUND else f"peak {peak >> 20} MiB"


@attack("size", "eval: 15 MB of empty JSON objects (parse amplification)")
def size_nodes(w: World) -> str | None:
    body = b'{"x": [' + b"{}," * (5 << 20) + b'{}], "choices": [{"message": {"content": "1"}}]}'
    rows, peak = _eval_one(w, lambda f: f.raw(body))
    if rows[0]["status"] != "error":
        return "parsed whole"
    return None if peak < PEAK_BOUND else f"peak {peak >> 20} MiB"


@attack("size", "eval: 3M-character reply: output and cache cut at 1M characters")
def size_cache(w: World) -> str | None:
    from qcstation.eval.outputs import MAX_STORED_CHARS
    from qcstation.eval.runner import execute_run

    db = w.db()
    with FakeOpenAI() as fake:
        fake.responder = lambda req: "z" * 3_000_000
        cfg = w.cfg(fake.base_url)
        execute_run(db, w.run(db, cfg, limit=2), cfg)
    with Store(db) as s:
        big = max(s.scalar("SELECT MAX(LENGTH(response)) FROM llm_cache"),
                  s.scalar("SELECT MAX(LENGTH(response)) FROM eval_outputs"))
    return None if big < MAX_STORED_CHARS + 1000 else f"stored {big:,} characters"


@attack("size", "judge/generator: 1 GiB gzip bomb")
def size_judge_bomb(w: World) -> str | None:
    from qcstation.core.construct.make.llm import LLMCallError

    with FakeOpenAI() as fake:
        fake.raw(bomb(), headers={"Content-Encoding": "gzip"})
        client = llm(fake.base_url)
        try:
            _, peak = peak_of(lambda: client.chat_sync([{"role": "user", "content": "x"}]))
            return "accepted"
        except LLMCallError as exc:
            if "after decompression" not in str(exc):
                return str(exc)
    return None


@attack("size", "judge/generator: 1 GiB gzip bomb as an HTTP 500 body")
def size_judge_error_bomb(w: World) -> str | None:
    from qcstation.core.construct.make.llm import LLMCallError

    with FakeOpenAI() as fake:
        fake.raw(_bomb(1 << 30, wrap=False), status=500, headers={"Content-Encoding": "gzip"})
        client = llm(fake.base_url)
        tracemalloc.start()
        try:
            client.chat_sync([{"role": "user", "content": "x"}])
            return "accepted"
        except LLMCallError:
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return None if peak < PEAK_BOUND else f"peak {peak >> 20} MiB"


@attack("size", "judge/generator: 50 MB reply (database growth)")
def size_judge_50mb(w: World) -> str | None:
    db = w.tmp / f"j{w.n}.db"
    w.n += 1
    with FakeOpenAI() as fake:
        client = llm(fake.base_url, db)
        fake.raw(b'{"choices": [{"message": {"content": "' + b"s" * (50 << 20) + b'"}}]}')
        try:
            client.chat_sync([{"role": "user", "content": "x"}])
        except Exception:
            pass
        fake.reply("q" * (10 << 20))
        client.chat_sync([{"role": "user", "content": "y"}])
    size = db.stat().st_size
    return None if size < 4 << 20 else f"database {size >> 20} MiB"


@attack("size", "import-batch: 20 MB line, a million-object line, 6M blank lines")
def size_batch(w: World) -> str | None:
    from qcstation.eval.backends.batch import read_batch_output

    f = w.tmp / "big.jsonl"
    with f.open("wb") as h:
        h.write(b'{"custom_id": "run1-seed1-final-s0", "x": "' + b"a" * (20 << 20) + b'"}\n')
        h.write(b"[" + b"{}," * 1_100_000 + b"{}]\n")
        h.write(b"\n" * 6_000_000)
    problems: list[str] = []
    t0 = time.monotonic()
    replies, peak = peak_of(lambda: list(read_batch_output(f, problems=problems)))
    took = time.monotonic() - t0
    if replies or len(problems) != 3 or took > 20:
        return f"{len(replies)} replies, {problems}, {took:.1f} s"
    return None if peak < PEAK_BOUND else f"peak {peak >> 20} MiB"


# -- bad rows: one bad reply is one bad row ---------------------------------------------------------

BAD_BODIES: dict[str, bytes] = {
    "lone surrogate in content": json.dumps({"choices": [{"message": {"content": "\ud800 18"}}]}).encode(),
    "prompt_tokens 2^80": json.dumps({"choices": [{"message": {"content": "18"}}],
                                      "usage": {"prompt_tokens": 2**80, "completion_tokens": 1}}).encode(),
    "negative and float token counts": json.dumps({"choices": [{"message": {"content": "18"}}],
                                                   "usage": {"prompt_tokens": -3, "completion_tokens": 1.5}}).encode(),
    "NaN and Infinity in usage": b'{"choices": [{"message": {"content": "18"}}], "usage": {"prompt_tokens": NaN, '
                                 b'"completion_tokens": Infinity}}',
    "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
    "not UTF-8": b'{"choices": [{"message": {"content": "\xff\xfe 18"}}]}',
    "1 MB finish reason": json.dumps({"choices": [{"message": {"content": "18"}, "finish_reason": "s" * (1 << 20)}]}).encode(),
    "content parts that are not text": json.dumps({"choices": [{"message": {"content": [{"text": 5}, "x", None]}}]}).encode(),
    "choices not a list": json.dumps({"choices": {"0": "x"}}).encode(),
    "surrogate in the error message": json.dumps({"error": {"message": "\udfff boom"}}).encode(),
}


for _name, _body in BAD_BODIES.items():
    def _mk(name: str, body: bytes) -> None:
        @attack("bad rows", f"eval: {name}")
        def ev(w: World) -> str | None:
            from qcstation.eval.runner import execute_run

            db = w.db()
            with FakeOpenAI() as fake:
                fake.raw_responder = lambda req: (200, {}, body)
                cfg = w.cfg(fake.base_url, price_in_per_mtok=1.0, price_out_per_mtok=1.0)
                run_id = w.run(db, cfg, limit=3)
                try:
                    prog = execute_run(db, run_id, cfg)
                except Exception as exc:
                    return f"run ended: {exc.__class__.__name__}: {str(exc)[:200]}"
                asked = len(fake.chat_requests)
                again = execute_run(db, run_id, cfg)
                if len(fake.chat_requests) != asked:
                    return "resume asked again"
            rows = outputs(db, run_id)
            if prog.status != "done" or again.status != "done" or len(rows) != 3:
                return f"{prog.status}, {len(rows)} rows"
            for r in rows:
                for v in r.values():
                    if isinstance(v, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in v):
                        return "a surrogate was stored"
                if r["status"] == "error" and not r["error"]:
                    return "an error row without its reason"
            return None

        @attack("bad rows", f"judge/generator: {name}")
        def judge(w: World) -> str | None:
            from qcstation.core.construct.make.llm import LLMCallError

            db = w.tmp / f"jb{w.n}.db"
            w.n += 1
            with FakeOpenAI() as fake:
                fake.raw(body)
                try:
                    res = llm(fake.base_url, db, price_in_per_mtok=1.0).chat_sync([{"role": "user", "content": "x"}])
                except LLMCallError:
                    return None           # refused with its reason: the caller records it
                except Exception as exc:
                    return f"{exc.__class__.__name__}: {str(exc)[:200]}"
            if any(0xD800 <= ord(c) <= 0xDFFF for c in res.text) or len(res.finish_reason or "") > 60:
                return "unclean result"
            return None
    _mk(_name, _body)


@attack("bad rows", "import-batch: surrogates, 2^80 counts, deep nesting, non-UTF-8 lines")
def bad_batch(w: World) -> str | None:
    from qcstation.eval.backends.batch import read_batch_output
    from qcstation.eval.outputs import pending_requests, store_replies

    db = w.db()
    cfg = w.cfg("http://127.0.0.1:9/v1")
    run_id = w.run(db, cfg, limit=3)
    with Store(db) as s:
        reqs = list(pending_requests(s, run_id))
    lines = [json.dumps({"custom_id": r.custom_id, "response": {"status_code": 200, "body": {
        "choices": [{"message": {"content": "\ud800 18"}, "finish_reason": f"stop{HOSTILE}"}],
        "usage": {"prompt_tokens": 2**80}}}}).encode() for r in reqs]
    lines[1:1] = [b"[" * 50_000 + b"]" * 50_000, b'{"custom_id": "\xff"}']
    f = w.tmp / "bad.jsonl"
    f.write_bytes(b"\n".join(lines) + b"\n")
    problems: list[str] = []
    with Store(db) as s:
        counts = store_replies(s, run_id, read_batch_output(f, problems=problems))
    rows = outputs(db, run_id)
    if counts.get("stored") != 3 or len(problems) != 2:
        return f"{counts} {problems}"
    if any(raw_in(r["finish_reason"] or "") or "\ud800" in (r["response"] or "") for r in rows):
        return "stored raw"
    return None


@attack("bad rows", "generate: a generator that answers with surrogates, escapes and 2^80 counts")
def bad_generate(w: World) -> str | None:
    db = w.tmp / f"gen{w.n}.db"
    w.n += 1
    seeds = w.tmp / "seeds.jsonl"
    seeds.write_text("".join(json.dumps({
        "id": f"j{i}", "answer": str(18 + i),
        "question": f"Janet's ducks lay {16 + i} eggs per day. She eats 3 and bakes with 4. She sells the "
                    "rest for $2 each. How much does she make?",
        "solution": f"Janet sells {16 + i} - 3 - 4 = <<{16 + i}-3-4={9 + i}>>{9 + i} duck eggs a day.\n"
                    f"She makes {9 + i} * 2 = $<<{9 + i}*2={18 + 2 * i}>>{18 + 2 * i} every day."}) + "\n"
        for i in (0, 1)))
    with FakeOpenAI() as fake:
        fake.hostile(text=lambda req: f"\ud800 {HOSTILE} garbage", finish_reason=HOSTILE, model=HOSTILE,
                     usage={"prompt_tokens": 2**80, "completion_tokens": 1})
        cfg = w.tmp / f"gen{w.n}.toml"
        cfg.write_text(f'[generator]\nmodel = "fake-model"\nbase_url = "{fake.base_url}"\nretries = 0\n'
                       "[generation]\nrephrase_notation = true\nmax_attempts = 2\n")
        imp = w.cli(db, cfg, "import", str(seeds), "--format", "jsonl", "--level", "medium")
        if imp.returncode != 0:
            return f"import: {imp.stderr[-200:]}"
        p = w.cli(db, cfg, "generate", "--limit", "2", "-q", "-d", "reasoning", "-d", "arithmetic")
        asked = len(fake.chat_requests)
    if "Traceback" in p.stderr or p.returncode not in (0, 1) or raw_in(p.stdout + p.stderr):
        return f"exit {p.returncode}: {p.stderr[-300:]}"
    if not asked:
        return "the generator was never asked (attack not reached)"
    with Store(db) as s:
        for t in ("artifacts", "attempts", "llm_cache", "llm_calls"):
            dump = json.dumps(s.query(f"SELECT * FROM {t}"))
            if "\\ud800" in dump:
                return f"a surrogate was stored in {t}"
    return None


# -- store and lease --------------------------------------------------------------------------------

@attack("store/lease", "slow scoring (2 s an item) does not hold up storing")
def lease_slow_scoring(w: World) -> str | None:
    from qcstation.eval import runner, scorers
    from qcstation.eval.runner import execute_run

    real = scorers.LiveScorer.rows

    def slow(self: Any, store: Any, outs: list[Any]) -> Any:
        time.sleep(2.0 * len(outs))
        return real(self, store, outs)

    scorers.LiveScorer.rows = slow  # type: ignore[method-assign,assignment]
    drain, runner.LIVE_DRAIN_S = runner.LIVE_DRAIN_S, 0.5
    try:
        db = w.db()
        with FakeOpenAI() as fake:
            fake.responder = lambda req: "\\boxed{10^{10^{10}}}"
            cfg = w.cfg(fake.base_url, concurrency=8)
            run_id = w.run(db, cfg, limit=20)
            t0 = time.monotonic()
            execute_run(db, run_id, cfg, live_score=True)
            took = time.monotonic() - t0
    finally:
        scorers.LiveScorer.rows = real  # type: ignore[method-assign]
        runner.LIVE_DRAIN_S = drain
    n = len(outputs(db, run_id))
    return None if n == 20 and took < 10 else f"{n} stored in {took:.1f} s"


@attack("store/lease", "resume of a live run whose heartbeat is an hour old")
def lease_live(w: World) -> str | None:
    from qcstation.eval.runs import EvalError, take_lease

    db = w.db()
    run_id = w.run(db, w.cfg("http://127.0.0.1:9/v1"))
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with Store(db) as s, s.transaction():
            s.execute("UPDATE eval_runs SET status = 'running', owner = ?, heartbeat_at = "
                      "'2020-01-01T00:00:00.000000Z' WHERE id = ?", (f"{socket.gethostname()}:{owner.pid}", run_id))
        with Store(db) as s:
            try:
                take_lease(s, run_id)
                return "taken over"
            except EvalError:
                return None
    finally:
        owner.kill()
        owner.wait()


@attack("store/lease", "kill -9 mid-run: status stopped in eval list, resume exact")
def lease_kill(w: World) -> str | None:
    db = w.db()
    with FakeOpenAI() as fake:
        fake.default_delay = 0.05
        cfg = w.cfg_file(fake.base_url, concurrency=2)
        proc = subprocess.Popen([sys.executable, "-m", "qcstation", "--db", str(db), "--config", str(cfg), "eval",
                                 "run", "--model", "m", "--working-set", "--shots", "0", "--tasks", "final",
                                 "--limit", "40", "-q", "--no-score"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        while len(fake.chat_requests) < 10:
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        listing = w.cli(db, cfg, "eval", "list").stdout
        if "stopped" not in listing:
            return f"eval list says: {listing.strip().splitlines()[-1]}"
        with Store(db) as s:
            run_id = s.scalar("SELECT MAX(id) FROM eval_runs")
            stored = s.scalar("SELECT COUNT(*) FROM eval_outputs WHERE run_id = ?", (run_id,))
        before = len(fake.chat_requests)
        w.cli(db, cfg, "eval", "resume", str(run_id), "-q", "--no-score")
        asked = len(fake.chat_requests) - before
    return None if asked <= 40 - stored else f"resume asked {asked}, {40 - stored} were missing"


@attack("store/lease", "tokens and cost add up over a resume")
def lease_tokens(w: World) -> str | None:
    from qcstation.eval.runner import execute_run
    from qcstation.eval.runs import get_run

    db = w.db()
    with FakeOpenAI() as fake:
        fake.hostile(text="18", usage={"prompt_tokens": 10, "completion_tokens": 2})
        cfg = w.cfg(fake.base_url, price_in_per_mtok=1.0, price_out_per_mtok=1.0, concurrency=1)
        run_id = w.run(db, cfg, limit=6)
        cancel = threading.Event()
        seen = []

        def stop_half(p: Any) -> None:
            seen.append(p.done)
            if p.done >= 3:
                cancel.set()
        execute_run(db, run_id, cfg, cancel=cancel, progress=stop_half)
        prog = execute_run(db, run_id, cfg)
    with Store(db) as s:
        info = get_run(s, run_id)
    if info.prompt_tokens != 60 or prog.prompt_tokens != 60 or abs((info.cost or 0) - 72e-6) > 1e-9:
        return f"run total {info.prompt_tokens} tokens ${info.cost}, progress {prog.prompt_tokens}"
    return None


# -- refuse early, stop fast, say what happened --------------------------------------------------------

@attack("refuse/stop", "key variable named but unset: eval run and config --check refuse")
def refuse_key(w: World) -> str | None:
    db = w.db()
    with FakeOpenAI() as fake:
        cfg = w.cfg_file(fake.base_url, api_key_env="ATTACK_UNSET_KEY")
        p = w.cli(db, cfg, "eval", "run", "--model", "m", "--working-set", "-q")
        c = w.cli(db, cfg, "config", "--check")
        asked = len(fake.chat_requests)
    with Store(db) as s:
        runs = s.scalar("SELECT COUNT(*) FROM eval_runs")
    if p.returncode == 0 or c.returncode == 0 or asked or runs:
        return f"run exit {p.returncode}, check exit {c.returncode}, {asked} asked, {runs} runs"
    return None


@attack("refuse/stop", "server down: refused before start, no run left behind")
def refuse_down(w: World) -> str | None:
    db = w.db()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    p = w.cli(db, w.cfg_file(f"http://127.0.0.1:{port}/v1"), "eval", "run", "--model", "m", "--working-set", "-q")
    with Store(db) as s:
        runs = s.scalar("SELECT COUNT(*) FROM eval_runs")
    return None if p.returncode != 0 and "cannot reach" in p.stderr and not runs else p.stderr[-200:]


@attack("refuse/stop", "server rejects the key (401, with escapes in its words): refused before start")
def refuse_401(w: World) -> str | None:
    db = w.db()
    with FakeOpenAI() as fake:
        fake.models_status = 401
        fake.models_message = f"bad key {HOSTILE}"
        p = w.cli(db, w.cfg_file(fake.base_url), "eval", "run", "--model", "m", "--working-set", "-q")
        asked = len(fake.chat_requests)
    if p.returncode == 0 or asked or raw_in(p.stderr) or "refused the key" not in p.stderr:
        return p.stderr[-300:]
    return None


def _cancel_within(w: World, behave: Callable[[FakeOpenAI], object], **model: Any) -> str | None:
    from qcstation.eval.runner import execute_run

    db = w.db()
    with FakeOpenAI() as fake:
        behave(fake)
        cfg = w.cfg(fake.base_url, **model)
        run_id = w.run(db, cfg, limit=8)
        cancel = threading.Event()
        t = threading.Thread(target=execute_run, args=(db, run_id, cfg), kwargs={"cancel": cancel}, daemon=True)
        t.start()
        time.sleep(1.0)
        t0 = time.monotonic()
        cancel.set()
        t.join(30)
        took = time.monotonic() - t0
    return None if took < 2.0 else f"stopped after {took:.1f} s"


@attack("refuse/stop", "Esc (cancel) against a server that never answers")
def stop_hang(w: World) -> str | None:
    return _cancel_within(w, lambda f: [f.hang() for _ in range(20)], timeout_s=300, retries=4)


@attack("refuse/stop", "Esc (cancel) during Retry-After: 100 backoff sleeps")
def stop_backoff(w: World) -> str | None:
    return _cancel_within(w, lambda f: [f.status(503, retry_after=100) for _ in range(50)],
                          retries=10, max_backoff_s=120)


@attack("refuse/stop", "Ctrl-C on eval run against a server that never answers")
def stop_ctrl_c(w: World) -> str | None:
    db = w.db()
    with FakeOpenAI() as fake:
        for _ in range(20):
            fake.hang()
        cfg = w.cfg_file(fake.base_url)
        proc = subprocess.Popen([sys.executable, "-m", "qcstation", "--db", str(db), "--config", str(cfg), "eval",
                                 "run", "--model", "m", "--working-set", "--limit", "4", "--tasks", "final",
                                 "--shots", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while len(fake.chat_requests) < 4:
            time.sleep(0.05)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    return None if took < 2.0 and "eval resume" in err else f"{took:.1f} s: {err[-200:]}"


@attack("refuse/stop", "write lock taken mid-run: true message, run stopped, resume exact")
def stop_lock(w: World) -> str | None:
    from qcstation.eval.runner import execute_run
    from qcstation.eval.runs import EvalError, get_run
    import sqlite3

    os.environ["QCSTATION_BUSY_TIMEOUT"] = "1.5"
    try:
        db = w.db()
        with FakeOpenAI() as fake:
            fake.default_delay = 0.05
            cfg = w.cfg(fake.base_url, concurrency=2)
            run_id = w.run(db, cfg, limit=40)
            box: dict[str, Any] = {}

            def locker() -> None:
                while len(outputs(db, run_id)) < 5:
                    time.sleep(0.05)
                c = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
                c.execute("BEGIN EXCLUSIVE")
                box["c"] = c
            threading.Thread(target=locker, daemon=True).start()
            try:
                execute_run(db, run_id, cfg)
                return "no fault seen"
            except EvalError as exc:
                msg = str(exc)
            box["c"].rollback()
            box["c"].close()
            time.sleep(1.5)
            with Store(db) as s:
                status = get_run(s, run_id).status
            stored = len(outputs(db, run_id))
            prog = execute_run(db, run_id, cfg)
        if "nothing was changed" in msg or f"{stored:,} of 40" not in msg or "eval resume" not in msg:
            return msg[:300]
        if status != "stopped" or prog.status != "done":
            return f"status {status}, then {prog.status}"
        return None
    finally:
        os.environ.pop("QCSTATION_BUSY_TIMEOUT", None)


# -- secrets ------------------------------------------------------------------------------------------

@attack("secrets", "key echoed in replies, errors and judge answers: not in the database file")
def secret_echo(w: World) -> str | None:
    from qcstation.eval.runner import execute_run

    os.environ["ATTACK_KEY"] = KEY
    try:
        db = w.db()
        with FakeOpenAI() as fake:
            fake.status(500, message=f"your key {KEY} is wrong")
            fake.responder = lambda req: f"I saw {KEY} in the header"
            cfg = w.cfg(fake.base_url, api_key_env="ATTACK_KEY", retries=1)
            execute_run(db, w.run(db, cfg, limit=3), cfg)
            client = llm(fake.base_url, db, api_key_env="ATTACK_KEY")
            fake.reply(f"judge: {KEY}")
            client.chat_sync([{"role": "user", "content": "judge"}])
            fake.status(400, message=f"nope {KEY}")
            try:
                client.chat_sync([{"role": "user", "content": "judge 2"}])
            except Exception:
                pass
            sent = fake.chat_requests[0].authorization
    finally:
        os.environ.pop("ATTACK_KEY", None)
    with Store(db) as s:
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = db.read_bytes()
    if sent != f"Bearer {KEY}":
        return "the key was not sent"
    return None if KEY.encode() not in data else "the key is in the database file"


@attack("secrets", "a redirect to another origin does not carry the key")
def secret_redirect(w: World) -> str | None:
    from qcstation.eval.runner import execute_run

    os.environ["ATTACK_KEY"] = KEY
    try:
        with FakeOpenAI() as thief, FakeOpenAI() as fake:
            target = thief.base_url.replace("127.0.0.1", "localhost") + "/chat/completions"
            for _ in range(4):
                fake.status(307, headers={"Location": target})
            db = w.db()
            cfg = w.cfg(fake.base_url, api_key_env="ATTACK_KEY")
            execute_run(db, w.run(db, cfg, limit=2), cfg)
            client = llm(fake.base_url, None, api_key_env="ATTACK_KEY")
            try:
                client.chat_sync([{"role": "user", "content": "x"}])
            except Exception:
                pass
            leaked = [r for r in thief.requests if KEY in (r.authorization or "")]
    finally:
        os.environ.pop("ATTACK_KEY", None)
    return None if not leaked else f"{len(leaked)} requests carried the key to another origin"


# -- files: import, export ------------------------------------------------------------------------------

@attack("files", "export through a symlink higher up --out")
def files_symlink(w: World) -> str | None:
    from exports.writers import ExportPathError, write_release_dir

    real = w.tmp / "real"
    real.mkdir(exist_ok=True)
    link = w.tmp / "linkparent"
    if not link.exists():
        link.symlink_to(real)
    for out in (link / "deeper", link, link / "a" / "b"):
        try:
            write_release_dir(out, "smart", "1.0.0", {"a.json": b"{}"})
            return f"wrote through {out}"
        except ExportPathError:
            pass
    return None if not any(real.rglob("*")) else "something was written"


@attack("files", "seed file with a duplicate key ('answer' 5 then 18)")
def files_dup(w: World) -> str | None:
    from qcstation.common.errors import ImportFormatError
    from qcstation.core.ingest.importer import import_file

    f = w.tmp / "dup.jsonl"
    f.write_text('{"question": "Bo has 4 boxes of 5 pens and loses 2. How many?", "answer": "5", "answer": "18"}\n')
    with Store(w.tmp / f"i{w.n}.db") as s:
        w.n += 1
        try:
            rep = import_file(s, f, "jsonl", level="easy")
        except ImportFormatError as exc:
            return None if "dup.jsonl:1" in str(exc) else str(exc)
        stored = s.scalar("SELECT COUNT(*) FROM seeds")
    errors = [(e.line, e.message) for e in rep.errors]
    if stored or not errors or errors[0][0] != 1 or "duplicate key 'answer'" not in errors[0][1]:
        return f"{stored} stored, errors {errors}"
    return None


@attack("files", "1 MB .jsonl.gz of blank lines (a billion lines)")
def files_blank_gz(w: World) -> str | None:
    from qcstation.common.errors import ImportFormatError
    from qcstation.core.ingest.importer import import_file

    f = w.tmp / "blank.jsonl.gz"
    f.write_bytes(gzip.compress(b"\n" * (10 << 20), 9) * 100)
    t0 = time.monotonic()
    with Store(w.tmp / f"i{w.n}.db") as s:
        w.n += 1
        try:
            import_file(s, f, level="easy")
            return "imported"
        except ImportFormatError:
            pass
    took = time.monotonic() - t0
    return None if took < 30 else f"took {took:.0f} s"


@attack("files", "import-batch of a file that is a symlink to /dev/zero")
def files_dev_zero(w: World) -> str | None:
    from qcstation.eval.backends.batch import BatchFileError, read_batch_output

    f = w.tmp / "zero.jsonl"
    if not f.exists():
        f.symlink_to("/dev/zero")
    t0 = time.monotonic()
    try:
        list(read_batch_output(f))
        return "read"
    except BatchFileError:
        pass
    return None if time.monotonic() - t0 < 10 else "slow"


# -- the checker (the scoring lane's, attacked here too) -----------------------------------------------

@attack("checker", "\\boxed{} of 700 nested braces around 18 is not read as 18")
def checker_braces(w: World) -> str | None:
    from qcstation.eval.checker import check_answer

    text = "\\boxed{-" + "{" * 700 + "18" + "}" * 690 + "}"
    v = check_answer(text, "18")
    return None if v.verdict != "correct" else "scored correct"


@attack("checker", "\\boxed{10^{10^{10}}} gets a bounded verdict")
def checker_tower(w: World) -> str | None:
    from qcstation.eval.checker import check_answer

    t0 = time.monotonic()
    check_answer("\\boxed{10^{10^{10}}}", "18")
    took = time.monotonic() - t0
    return None if took < 15 else f"{took:.1f} s"


# -- the wire: a raw-socket server that breaks HTTP itself (lane attack5) ---------------------------

class RawServer:
    """A loopback server that answers every POST with ``write(sock, key)`` (raw bytes, its
    own framing): what tests/fake_openai.py cannot send (endless headers, endless chunks, a
    body that trickles, the key in the status line or a header)."""

    def __init__(self, write: Callable[[socket.socket, str], None], key: str = KEY) -> None:
        self.write, self.key = write, key
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                body += conn.recv(65536) or b"x" * length
            if head.startswith(b"GET"):
                conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 31\r\n\r\n{"data":[{"id":"fake-model"}]}')
            else:
                self.write(conn, self.key)
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self) -> "RawServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.sock.close()


def _forever(conn: socket.socket, first: bytes, each: bytes, pause: float = 0.0) -> None:
    conn.sendall(first)
    while True:
        conn.sendall(each)
        if pause:
            time.sleep(pause)


WIRE: dict[str, Callable[[socket.socket, str], None]] = {
    "a body that trickles a byte every 0.3 s (slow loris)": lambda c, k: _forever(
        c, b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n", b" ", 0.3),
    "headers that trickle, never ending": lambda c, k: _forever(c, b"HTTP/1.1 200 OK\r\n", b"X-A: b\r\n", 0.3),
    "headers that never end (1 KB lines)": lambda c, k: _forever(c, b"HTTP/1.1 200 OK\r\n", b"X-J: " + b"j" * 1000 + b"\r\n"),
    "one header line that never ends": lambda c, k: _forever(c, b"HTTP/1.1 200 OK\r\nX-Big: ", b"h" * 65536),
    "a chunked body that never ends": lambda c, k: _forever(
        c, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"10000\r\n" + b"b" * 65536 + b"\r\n"),
    "a body read until close that never closes": lambda c, k: _forever(
        c, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", b"c" * 65536),
    "an SSE stream where JSON was asked": lambda c, k: c.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 44\r\n\r\n"
        b'data: {"choices": [{"delta": {}}]}\n\n' + b"data: \n"),
    "a short body (Content-Length 100000, then close)": lambda c, k: c.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{}"),
    "the key in the status line, a header and an HTML 500 body": lambda c, k: c.sendall(
        f"HTTP/1.1 500 {k}\r\nX-Echo: {k}\r\nContent-Length: {len(k) + 13}\r\n\r\n<html>{k}</html>".encode()),
    "the key as Retry-After and X-Request-Id of a 429": lambda c, k: c.sendall(
        f"HTTP/1.1 429 Slow\r\nRetry-After: {k}\r\nX-Request-Id: {k}\r\nContent-Length: 2\r\n\r\n{{}}".encode()),
    "the key spelled in \\u escapes in content, model and finish_reason": lambda c, k: (lambda esc: c.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(esc) + esc))((
            '{"model": "%s", "choices": [{"message": {"content": "18 %s"}, "finish_reason": "%s"}]}'
            % (("".join(f"\\u{ord(ch):04x}" for ch in k),) * 3)).encode()),
    "a 5,000-digit token count": lambda c, k: (lambda b: c.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(b) + b))(
            b'{"choices": [{"message": {"content": "18"}}], "usage": {"prompt_tokens": 1' + b"0" * 5000 + b"}}"),
    # -- lane attack9: held-out wire kinds
    "100 Continue, then the reply": lambda c, k: c.sendall(
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 46\r\n\r\n"
        b'{"choices": [{"message": {"content": "18"}}]}'),
    "a JSON reply labelled text/html": lambda c, k: c.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 46\r\n\r\n"
        b'{"choices": [{"message": {"content": "18"}}]}'),
    "Content-Encoding gzip on a plain body": lambda c, k: c.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 46\r\n\r\n"
        b'{"choices": [{"message": {"content": "18"}}]}'),
    "two different Content-Length headers": lambda c, k: c.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: 46\r\nContent-Length: 2\r\n\r\n"
        b'{"choices": [{"message": {"content": "18"}}]}'),
    "a chunk size of 2^64": lambda c, k: c.sendall(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n" + b"x" * 1000),
    "a redirect to itself, forever": lambda c, k: c.sendall(
        b"HTTP/1.1 307 Again\r\nLocation: /v1/chat/completions\r\nContent-Length: 0\r\n\r\n"),
    "a UTF-16 JSON body with its BOM": lambda c, k: (lambda b: c.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-16\r\nContent-Length: %d\r\n\r\n"
        % len(b) + b))('\ufeff{"choices": [{"message": {"content": "18"}}]}'.encode("utf-16-le")),
    "control codes and the key in a header value, HTTP/1.0 read to close": lambda c, k: c.sendall(
        f"HTTP/1.0 200 OK\r\nX-Note: \x1b]52;c;UFdO\x07 {k}\r\n\r\n".encode()
        + b'{"choices": [{"message": {"content": "18"}}]}'),
    "10,000 Set-Cookie headers": lambda c, k: c.sendall(
        b"HTTP/1.1 200 OK\r\n" + b"Set-Cookie: a=" + b"b" * 50 + b"\r\n" * 1 + b"".join(
            b"Set-Cookie: c%d=%s\r\n" % (i, b"d" * 50) for i in range(10_000))
        + b"Content-Length: 46\r\n\r\n" + b'{"choices": [{"message": {"content": "18"}}]}'),
}


for _wire_name, _wire in WIRE.items():
    def _mk_wire(name: str, write: Callable[[socket.socket, str], None]) -> None:
        @attack("wire", f"eval and judge: {name}")
        def wire(w: World) -> str | None:
            from qcstation.core.construct.make.llm import LLMCallError
            from qcstation.eval.runner import execute_run

            os.environ["ATTACK_KEY"] = KEY
            try:
                db = w.db()
                with RawServer(write) as srv:
                    cfg = w.cfg(srv.base_url, timeout_s=3.0, api_key_env="ATTACK_KEY", concurrency=2)
                    run_id = w.run(db, cfg, limit=2)
                    (prog, peak) = peak_of(lambda: execute_run(db, run_id, cfg))
                    client = llm(srv.base_url, db, timeout_s=3.0, api_key_env="ATTACK_KEY")
                    try:
                        client.chat_sync([{"role": "user", "content": "judge"}])
                    except LLMCallError as exc:
                        if KEY in str(exc) or raw_in(str(exc)):
                            return "the judge's error holds the key or a raw control code"
            finally:
                os.environ.pop("ATTACK_KEY", None)
            with Store(db) as s:
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if KEY.encode() in db.read_bytes():
                return "the key is in the database file"
            rows = outputs(db, run_id)
            if prog.status not in ("done", "unscored") or len(rows) != 2:   # unscored: execute_run stores, scoring is apart (issue 30.5)
                return f"run {prog.status}, {len(rows)} rows"
            if any(r["status"] == "error" and not r["error"] for r in rows):
                return "an error row without its reason"
            return None if peak < 2 * PEAK_BOUND else f"peak {peak >> 20} MiB"
    _mk_wire(_wire_name, _wire)


# -- lane attack6: a hostile judge's words, hostile configuration, options --------------------------------

_SLOW_JUDGE = ["Looks right.\nScore: 87" + " " * 20_000 + "x", "87" + " " * 20_000 + "x",
               "Looks right.\n**87**" + " " * 20_000 + "/ x"]


@attack("attack6", "judge replies a score line trailed by 20,000 spaces: read in linear time")
def judge_slow_line(w: World) -> str | None:
    code = ("import json, resource, sys\nresource.setrlimit(resource.RLIMIT_CPU, (30, 30))\n"
            "from qcstation.eval.judging import read_judge_reply\n"
            "print(json.dumps([read_judge_reply(t)[0] for t in json.load(sys.stdin)]))\n")
    p = subprocess.run([sys.executable, "-c", code], input=json.dumps(_SLOW_JUDGE), capture_output=True,
                       text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return None if p.returncode == 0 and json.loads(p.stdout) == [None] * 3 else f"exit {p.returncode}"


@attack("attack6", "hostile base_url and TOML: a config error each, never a traceback")
def config_hostile(w: World) -> str | None:
    db = w.db()
    bad = ['[models.m]\nmodel = "m"\nbase_url = "http://[::1:1/v1"\n',
           '[models.m]\nmodel = "m"\nbase_url = "http://127.0.0.1:99999/v1"\n',
           '[models.m]\nmodel = "m"\nbase_url = "http://127.0.0.1:8000/v1\\r\\nX: y"\n',
           "a = " + "[" * 5000 + "]" * 5000 + "\n"]
    for i, text in enumerate(bad):
        cfg = w.tmp / f"hostile{i}.toml"
        cfg.write_text(text)
        p = w.cli(db, cfg, "config")
        if p.returncode != 2 or "Traceback" in p.stderr:
            return f"case {i}: exit {p.returncode} {p.stderr[-200:]}"
    return None


@attack("attack6", "a judge with unusable replies: eval show's rows add up to the items")
def show_judge_error(w: World) -> str | None:
    db = w.db()
    with FakeOpenAI(lambda req: "no score here") as fake:
        cfg = w.tmp / "judged.toml"
        cfg.write_text(f'[models.m]\nmodel = "fake-model"\nbase_url = "{fake.base_url}"\nretries = 0\n'
                       f'[[judges]]\nmodel = "fake-judge"\nbase_url = "{fake.base_url}"\nretries = 0\n')
        r = w.cli(db, cfg, "eval", "run", "--model", "m", "--working-set", "--limit", "3", "--tasks",
                  "understanding", "--shots", "0", "-q", "--name", "judged")
        p = w.cli(db, cfg, "eval", "show", "judged")
    row = next((line.split() for line in p.stdout.splitlines() if line.startswith("un ")), [])
    total = sum(int(x) for x in row[1:]) if row else -1
    return None if r.returncode == 0 and total == 3 else f"un row {row} (exit {r.returncode})"


@attack("attack6", "options past every bound: --seed 10^25, ray-batch --timeout inf, --endpoint ftp://")
def options_bounds(w: World) -> str | None:
    db = w.db()
    cfg = w.cfg_file("http://127.0.0.1:9/v1")
    for args in (["qc", "sample", "reasoning", "--seed", "9" * 25],
                 ["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "ftp://h/v1"],
                 ["eval", "ray-batch", "x.jsonl", "--out", "o.jsonl", "--endpoint", "http://h/v1",
                  "--timeout", "inf"]):
        p = w.cli(db, cfg, *args)
        if p.returncode != 2 or "Traceback" in p.stderr or "argument --" not in p.stderr:
            return f"{args[:2]}: exit {p.returncode} {p.stderr[-200:]}"
    return None


# -- attack7: spelled keys, duplicate keys in Ray input, parameters from the environment, full disk ------

def _spellings(key: str) -> dict[str, str]:
    import base64

    raw, half = key.encode(), len(key) // 2
    return {"base64": base64.b64encode(raw).decode(), "base64 of 'Bearer <key>'": base64.b64encode(
        b"Bearer " + raw).decode(), "URL-safe base64": base64.urlsafe_b64encode(b"k=" + raw).decode(),
        "hex": raw.hex(), "HEX": raw.hex().upper(), "percent-encoded": "".join(f"%{b:02X}" for b in raw),
        "\\u escapes": "".join(f"\\u{ord(c):04x}" for c in key), "HTML references": "".join(
            f"&#{ord(c)};" for c in key), "reversed": key[::-1], "halves swapped": key[half:] + " " + key[:half],
        "each half reversed": key[:half][::-1] + key[half:][::-1]}


for _name in _spellings(KEY):
    def _make_spelled(name: str) -> None:
        @attack("attack7", f"key spelled as {name} in content, finish_reason, model and usage: stored nowhere")
        def spelled(w: World) -> str | None:
            from qcstation.eval.runner import execute_run

            s = _spellings(KEY)[name]
            half = len(KEY) // 2
            os.environ["ATTACK_KEY"] = KEY
            try:
                db = w.db()
                with FakeOpenAI() as fake:
                    fake.hostile(text=f"18 {s}", finish_reason=s, model=s, usage={"prompt_tokens": s})
                    cfg = w.cfg(fake.base_url, api_key_env="ATTACK_KEY")
                    execute_run(db, w.run(db, cfg, limit=2), cfg)
                    res = llm(fake.base_url, db, api_key_env="ATTACK_KEY").chat_sync(
                        [{"role": "user", "content": "judge"}])
            finally:
                os.environ.pop("ATTACK_KEY", None)
            with Store(db) as st:
                st.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            data = db.read_bytes().decode("latin-1") + f"{res.text} {res.model} {res.finish_reason}"
            pieces = (s, KEY[:half], KEY[half:], KEY[:half][::-1], KEY[half:][::-1])
            return None if not any(p in data for p in pieces) else f"{name} stored or returned"
    _make_spelled(_name)


@attack("attack7", "eval ray-batch input: a line with custom_id twice is refused, not sent under the last")
def ray_duplicate_key(w: World) -> str | None:
    from qcstation.eval.batch_ray.files import read_requests

    path = w.tmp / "dup-input.jsonl"
    path.write_text('{"custom_id": "a", "custom_id": "b", "url": "/v1/chat/completions", "body": '
                    '{"messages": [{"role": "user", "content": "x"}]}}\n'
                    '{"custom_id": "c", "url": "/v1/chat/completions", "body": {"messages": '
                    '[{"role": "user", "content": "x"}]}}\n')
    problems: list[str] = []
    got = [c for c, _ in read_requests([path], problems)]
    return None if got == ["c"] and "appears twice" in " ".join(problems) else f"read {got}, {problems}"


@attack("attack7", "environment out of bounds: QCSTATION_BUSY_TIMEOUT, QCSTATION_CONFIG a folder/device")
def env_bounds(w: World) -> str | None:
    db = w.db()
    for var, value, says in (("QCSTATION_BUSY_TIMEOUT", "1e999", "QCSTATION_BUSY_TIMEOUT"),
                             ("QCSTATION_BUSY_TIMEOUT", "-5", "QCSTATION_BUSY_TIMEOUT"),
                             ("QCSTATION_CONFIG", "/dev/zero", "not a regular file"),
                             ("QCSTATION_CONFIG", str(w.tmp), "folder")):
        p = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "status"], capture_output=True,
                           text=True, timeout=180, env={**os.environ, var: value})
        if p.returncode != 2 or says not in p.stderr or "Traceback" in p.stderr:
            return f"{var}={value}: exit {p.returncode} {p.stderr[-200:]!r}"
    return None


@attack("attack7", "eval run with a file size limit (ulimit -f): stopped with a reason, resume exact, none doubled")
def full_disk(w: World) -> str | None:
    import resource

    db = w.db()

    def cap() -> None:     # every file the run writes (the -wal first) stops at 256 KiB
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 18, 1 << 18))

    with FakeOpenAI() as fake:
        fake.responder = lambda req: "Let me think. " * 400 + "The answer is 18."
        cfg = w.cfg_file(fake.base_url)
        base = [sys.executable, "-m", "qcstation", "--db", str(db), "--config", str(cfg)]
        p = subprocess.run(base + ["eval", "run", "--model", "m", "--working-set", "--limit", "40", "--samples",
                                   "2", "-q"], capture_output=True, text=True, timeout=600, preexec_fn=cap)
        if p.returncode == 0 or "Traceback" in p.stderr or not any(
                w in p.stderr for w in ("resume", "disk", "full")):
            return f"limited run: exit {p.returncode} {p.stderr[-300:]!r}"
        with Store(db) as s:    # the fault may come before the run is stored: then it is asked again
            made = s.query("SELECT id FROM eval_runs WHERE id = 1")
        again = ["eval", "resume", "1", "-q"] if made else ["eval", "run", "--model", "m", "--working-set",
                                                            "--limit", "40", "--samples", "2", "-q"]
        r = subprocess.run(base + again, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            return f"{again[1]} after the fault: exit {r.returncode} {r.stderr[-300:]!r}"
    with Store(db) as s:
        n, asked = s.query("SELECT count(*) AS n, count(DISTINCT prompt_hash || seed_id || task || sample_idx) "
                           "AS d FROM eval_outputs WHERE run_id = 1")[0].values()
        ok = s.query("PRAGMA integrity_check")[0]
    return None if n == asked and list(ok.values()) == ["ok"] else f"{n} outputs, {asked} distinct, {ok}"


# -- attack8: file-size limit, read-only mount, people at once, kill -9, linear readers ------------

def _cap_files(limit: int) -> Callable[[], None]:
    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return cap


def _seed_lines(n: int) -> str:
    return "".join(json.dumps({"question": f"Ann has {i} pens {'and inks ' * 40}. How many?",
                               "answer": f"{i}+1=<<{i}+1={i + 1}>>{i + 1}\n#### {i + 1}"}) + "\n"
                   for i in range(n))


@attack("attack8", "import under a file-size limit (ulimit -f): the limit named, not 'check the disk'")
def fsize_named(w: World) -> str | None:
    db = w.db()
    big = w.tmp / "fsize.jsonl"
    big.write_text(_seed_lines(3000))
    limit = db.stat().st_size + (1 << 20)
    p = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "import", str(big), "--source", "big"],
                       capture_output=True, text=True, timeout=600, cwd=w.tmp, preexec_fn=_cap_files(limit))
    if p.returncode != 2 or "file-size limit" not in p.stderr or f"{limit:,}" not in p.stderr \
            or "check the disk" in p.stderr or "Traceback" in p.stderr:
        return f"exit {p.returncode} {p.stderr[-300:]!r}"
    with Store(db) as s:
        ok = s.query("PRAGMA integrity_check")[0]
    return None if list(ok.values()) == ["ok"] else f"integrity {ok}"


@attack("attack8", "database on a read-only mount: status reads, each write one line naming the mount, nothing changed")
def readonly_mount(w: World) -> str | None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return None     # cannot mount here: nothing to attack
    folder = w.tmp / "ro"
    folder.mkdir(exist_ok=True)
    db = folder / "q.db"
    shutil.copy(w.db(), db)
    before = db.read_bytes()
    py = sys.executable
    script = (f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} || exit 9; "
              + "".join(f"{py} -m qcstation --db {db} {args}; echo rc=$?; " for args in (
                  "status", "qc decide next accept", "release approve ro@1.0",
                  f"--db {folder / 'new.db'} import {ROOT / 'qcstation/data/gsm8k_sample.jsonl'}")))
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, cwd=w.tmp,
                       timeout=600)
    if "rc=9" in p.stdout or p.returncode == 9:
        return None     # no mount namespace here
    # status reads (attack9: the database is opened read-only); the writes are refused, each
    # with one error line naming the mount (approve first lists what blocks the release)
    lines = [ln for ln in p.stderr.strip().splitlines() if ln.startswith("qcstation: error:")]
    codes = [ln for ln in p.stdout.splitlines() if ln.startswith("rc=")]
    if codes != ["rc=0", "rc=2", "rc=2", "rc=2"] or len(lines) != 3 or "Traceback" in p.stderr:
        return f"{codes} {p.stderr[-400:]!r}"
    wrong = [ln for ln in lines if ("mounted read-only" not in ln or "chmod u+w" in ln)
             and "cannot approve the release yet" not in ln]
    if wrong or db.read_bytes() != before or (folder / "new.db").exists():
        return f"{wrong[:1]} changed={db.read_bytes() != before}"
    return None


@attack("attack8", "3 annotators (own accounts) and a curator as parallel qc processes: none decided twice")
def people_at_once(w: World) -> str | None:
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-U", "--map-user=2001", "true"]).returncode:
        return None     # no user namespaces: one account only
    import random as _random

    from tests.core.review.test_kept_counts import assert_kept_counts_right

    db = w.db()
    cfg = w.tmp / "qcstation.toml"
    log: list[tuple[str, int, str]] = []

    def one(who: int, args: list[str]) -> None:
        pre = ["unshare", "-U", f"--map-user={2000 + who}", f"--map-group={2000 + who}"] if who else []
        p = subprocess.run(pre + [sys.executable, "-m", "qcstation", "--db", str(db), "--config", str(cfg), *args],
                           capture_output=True, text=True, timeout=600)
        log.append((f"ann{who}" if who else "curator", p.returncode, p.stderr))

    def annotator(who: int) -> None:
        rng = _random.Random(who)
        for _ in range(6):
            r = rng.random()
            one(who, ["qc", "decide", "next", "accept"] if r < 0.7 else ["qc", "undo"] if r < 0.8 else
                ["qc", "decide", "next", "reject", "--reason", "a number not in the problem"])

    def curator() -> None:
        for args in (["qc", "extend", "arithmetic", "--extra", "2"], ["qc", "status"],
                     ["qc", "extend", "understanding", "--extra", "2"], ["qc", "queue", "--json"]):
            one(0, args)

    threads = [threading.Thread(target=annotator, args=(i,)) for i in (1, 2, 3)] + [threading.Thread(target=curator)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = [x for x in log if x[1] not in (0, 1) or "Traceback" in x[2]]
    if bad:
        return f"{len(bad)} commands failed: {bad[0][0]} {bad[0][2][-300:]!r}"
    with Store(db) as s:
        twice = s.query("SELECT si.id, COUNT(*) n, COUNT(DISTINCT r.annotator) a, si.overlap FROM reviews r "
                        "JOIN sample_items si ON si.id = r.sample_item_id WHERE r.undone_at IS NULL AND "
                        "r.verdict != 'skip' AND r.changes_id IS NULL GROUP BY si.id "
                        "HAVING (si.overlap = 0 AND n > 1) OR a < n")
        people = {r["annotator"] for r in s.query("SELECT DISTINCT annotator FROM reviews")}
        try:
            assert_kept_counts_right(s)
        except AssertionError as exc:
            return f"kept counts differ from a recount: {str(exc)[:300]}"
    if twice:
        return f"decided twice: {twice[:3]}"
    return None if len(people) >= 2 else f"only {people} decided"


def _kill_at(cmd: list[str], after: float) -> bool:
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        p.wait(timeout=after)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return True


@attack("attack8", "eval run killed -9 at 4 moments, then resumed: every output once, integrity ok")
def kill_eval(w: World) -> str | None:
    import random as _random

    rng = _random.Random(8)
    db = w.db()
    with FakeOpenAI() as fake:
        fake.responder = lambda req: "Let me think. " * 50 + "The answer is 18."
        fake.default_delay = 0.05
        cfg = w.cfg_file(fake.base_url)
        base = [sys.executable, "-m", "qcstation", "--db", str(db), "--config", str(cfg)]
        run = ["eval", "run", "--model", "m", "--working-set", "--limit", "30", "-q"]
        kills = 0
        for _ in range(4):
            with Store(db) as s:
                made = s.query("SELECT id, status FROM eval_runs ORDER BY id")
            if made and made[0]["status"] == "done":
                break
            kills += _kill_at(base + (["eval", "resume", str(made[0]["id"]), "-q"] if made else run),
                              rng.uniform(2, 10))
        with Store(db) as s:
            made = s.query("SELECT id, status FROM eval_runs ORDER BY id")
        again = base + (["eval", "resume", str(made[0]["id"]), "-q"] if made else run)
        if not made or made[0]["status"] != "done":
            p = subprocess.run(again, capture_output=True, text=True, timeout=900)
            if p.returncode != 0:
                return f"resume after {kills} kills: exit {p.returncode} {p.stderr[-300:]!r}"
    with Store(db) as s:
        r = s.query("SELECT id, status, n_requests FROM eval_runs ORDER BY id")
        n, d = s.query("SELECT COUNT(*) AS n, COUNT(DISTINCT seed_id || '/' || task || '/' || sample_idx) AS d "
                       "FROM eval_outputs WHERE run_id = ?", (r[0]["id"],))[0].values()
        ok = s.query("PRAGMA integrity_check")[0]
    if len(r) != 1 or r[0]["status"] != "done" or n != d or n != r[0]["n_requests"]:
        return f"{kills} kills: runs {r}, {n} outputs, {d} distinct"
    return None if list(ok.values()) == ["ok"] else f"integrity {ok}"


def _cpu(fn: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(2):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


@attack("attack8", "readers of untrusted files at 1x, 10x, 100x input: CPU at most 300x (linear)")
def readers_linear(w: World) -> str | None:
    from qcstation.common.config import load_config
    from qcstation.core.ingest.importer import import_file
    from qcstation.core.verify.smtlib import parse_script
    from qcstation.eval.backends.batch import read_batch_output

    def seeds(name: str, text: str) -> Callable[[], Any]:
        path = w.tmp / name
        path.write_text(text, encoding="utf-8")

        def go() -> None:
            with Store(":memory:") as s:
                try:
                    import_file(s, path, source="x", level="easy")
                except Exception:   # a refusal is a reading too
                    pass
        return go

    def batch(name: str, text: str) -> Callable[[], Any]:
        path = w.tmp / name
        path.write_text(text)
        return lambda: list(read_batch_output(path, problems=[]))

    def config(name: str, text: str) -> Callable[[], Any]:
        path = w.tmp / name
        path.write_text(text)
        return lambda: load_config(path, env={})

    def smt(text: str) -> Callable[[], Any]:
        def go() -> None:
            try:
                parse_script(text)
            except Exception:
                pass
        return go

    line = ('{"custom_id": "r1-s%d-final-0", "response": {"status_code": 200, "body": {"choices": [{"message": '
            '{"role": "assistant", "content": "6"}, "finish_reason": "stop"}]}}}\n')
    cases: dict[str, Callable[[int], Callable[[], Any]]] = {
        "jsonl records": lambda k: seeds(f"r{k}.jsonl", "".join(json.dumps(
            {"question": f"Tom has {i} apples and 1 more. How many?", "answer": f"#### {i + 1}"}) + "\n"
            for i in range(100 * k))),
        "csv rows": lambda k: seeds(f"r{k}.csv", "question,answer\n" + "".join(
            f"Tom has {i} apples and 1 more. How many?,{i + 1}\n" for i in range(100 * k))),
        "csv columns": lambda k: seeds(f"c{k}.csv", ",".join(["question", "answer"] + [f"c{i}" for i in range(
            100 * k)]) + "\nTom has 5 apples and 1 more. How many?,6" + ",1" * (100 * k) + "\n"),
        "question of zero-width/RTL": lambda k: seeds(f"z{k}.jsonl", json.dumps(
            {"question": "Tom has 5" + "\u200b\u202e" * (500 * k) + " apples. How many?", "answer": "#### 5"}) + "\n"),
        "batch lines": lambda k: batch(f"b{k}.jsonl", "".join(line % i for i in range(100 * k))),
        "config tables": lambda k: config(f"t{k}.toml", "".join(
            f'[models.m{i}]\nmodel = "x"\nbase_url = "http://127.0.0.1:9/v1"\n' for i in range(10 * k))),
        "smt asserts": lambda k: smt("(set-logic QF_LIA)\n(declare-const x Int)\n" + "(assert (> x 0))\n" * (10 * k)
                                     + "(check-sat)\n"),
    }
    slow = []
    for name, make in cases.items():
        t1, t100 = _cpu(make(1)), _cpu(make(100))
        if t100 > max(300 * t1, 0.5):
            slow.append(f"{name}: {t1 * 1000:.1f} -> {t100 * 1000:.1f} ms")
    return "; ".join(slow) or None



def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", metavar="AREA", help="run one area only")
    ap.add_argument("--name", metavar="TEXT", help="only the attacks whose name holds TEXT")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each attack as it runs")
    args = ap.parse_args()
    import logging

    logging.disable(logging.WARNING)
    results: list[tuple[str, str, str | None, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        world = World(Path(tmp))
        for area, name, fn in ATTACKS:
            if (args.only and area != args.only) or (args.name and args.name not in name):
                continue
            t0 = time.monotonic()
            try:
                why = fn(world)
            except Exception as exc:     # an attack that breaks the harness did not hold
                why = f"{exc.__class__.__name__}: {exc}"
                if args.verbose:
                    traceback.print_exc()
            took = time.monotonic() - t0
            results.append((area, name, why, took))
            if args.verbose or why is not None:
                print(f"  {'held  ' if why is None else 'FAILED'} {area}: {name} ({took:.1f} s)"
                      + ("" if why is None else f": {why}"), flush=True)
    areas: dict[str, list[int]] = {}
    for area, _, why, _ in results:
        a = areas.setdefault(area, [0, 0, 0])
        a[0] += 1
        a[1 if why is None else 2] += 1
    print(f"\n{'area':<14} {'tried':>5} {'passed':>6} {'failed':>6}")
    for area, (n, ok, bad) in areas.items():
        print(f"{area:<14} {n:>5} {ok:>6} {bad:>6}")
    total = [sum(a[i] for a in areas.values()) for i in range(3)]
    print(f"{'total':<14} {total[0]:>5} {total[1]:>6} {total[2]:>6}")
    return 1 if total[2] else 0


if __name__ == "__main__":
    raise SystemExit(main())
