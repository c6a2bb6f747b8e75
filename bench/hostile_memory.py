"""Memory per process over a long run against a hostile server (issue 30.1): thousands of
hostile replies through every path that reads model replies, with the resident memory of the
whole process tree sampled as it runs.

Paths, each a real ``qcstation`` command in a subprocess against a loopback server of the tests
(tests/fake_openai.py) whose every reply is one of :data:`KINDS` in turn:

* ``eval``       ``eval run --samples S`` on the quickstart working set (the aiohttp backend);
* ``judges``     ``eval score`` of Understanding outputs, every judge request hostile
                 (the judge/generator client, LLMClient over openai + httpx);
* ``generate``   ``generate -d arithmetic`` (notation rephrasing asks the generator for
                 every seed), seeds imported for it;
* ``import``     ``eval import-batch`` of a file with as many hostile result lines.

The bound stated (:func:`bound_mb`): what the interpreter and the code take (``BASE_MB``), plus
per request in flight three times the body cap (the capped body, its decoded copy, one
decompression step): 634 MB at concurrency 8, whatever the number of replies. A path holds
when the peak of its process tree stays under the bound, nothing raw or secret was printed or
stored, and no traceback ended it. The peaks of the run's first and second halves are printed
beside, and under each path its peak in each tenth of the run with the load: a path that kept
what it refused would grow by 16-19 MB a bomb (before issue 30: 4.15 GB over 216 judge
requests). ``generate`` asked every model job of a dimension as one batch a round and kept each
reply (up to 200,000 characters) and each retry's history until the last round: 363 -> 444 MB
over 1,000 seeds; it now asks windows of 64 jobs and a finished job drops its replies. What it
still keeps per seed is the seed's row and a small job record (about 1-2 KB), for the run.

Run: python bench/hostile_memory.py [--n 2000] [--only PATH]    (minutes; prints the load)
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qcstation.common.http_retry import MAX_BODY_BYTES  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

KEY = "sk-bench-SECRET-5a4b3c2d1e0f9876"
CONCURRENCY = 8
BASE_MB = 250
PAGE = os.sysconf("SC_PAGE_SIZE")


def bound_mb(concurrency: int = CONCURRENCY) -> int:
    return BASE_MB + concurrency * 3 * MAX_BODY_BYTES // 2**20


def _gzip_bomb(inflated: int) -> bytes:
    head, tail = b'{"choices": [{"message": {"content": "', b'"}}]}'
    return gzip.compress(head + b" " * inflated + tail, compresslevel=9)


def _kinds() -> list[tuple[str, tuple[int, dict[str, str], bytes]]]:
    ok = {"choices": [{"message": {"content": "Score: 95\n18"}, "finish_reason": "stop"}],
          "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
    hostile = {"model": KEY, "choices": [{"message": {"content": f"\x1b]52;c;UFdORUQ=\x07 {KEY} 18"},
                                          "finish_reason": KEY}],
               "usage": {"prompt_tokens": KEY, "completion_tokens": 2**80}}
    json_ok = json.dumps(ok).encode()
    return [
        ("gzip bomb (1 GiB inflated)", (200, {"Content-Encoding": "gzip"}, _gzip_bomb(1 << 30))),
        ("key and control codes in every field", (200, {}, json.dumps(hostile).encode())),
        ("20 MB plain body", (200, {}, b'{"choices": [{"message": {"content": "' + b"s" * (20 << 20) + b'"}}]}')),
        ("JSON nested 100,000 deep", (200, {}, b"[" * 100_000 + b"]" * 100_000)),
        ("duplicate keys", (200, {}, b'{"choices": [{"message": {"content": "18", "content": "19"}}]}')),
        ("HTTP 500 with a gzip bomb body", (500, {"Content-Encoding": "gzip"}, _gzip_bomb(1 << 28))),
        ("3 MB reply", (200, {}, json.dumps({"choices": [{"message": {"content": "z" * (3 << 20)}}]}).encode())),
        ("2^53 tokens", (200, {}, json.dumps({**ok, "usage": {"prompt_tokens": 2**53,
                                                               "completion_tokens": 2**53}}).encode())),
        ("a plain answer", (200, {}, json_ok)),
    ]


class TreeSampler(threading.Thread):
    """Resident memory of a process and all its descendants, every ``period`` seconds."""

    def __init__(self, pid: int, period: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.period = pid, period
        self.samples: list[tuple[float, int]] = []
        self.loads: list[float] = []        # the 1-minute load at each sample
        self.stop = threading.Event()

    def run(self) -> None:
        t0 = time.monotonic()
        while not self.stop.is_set():
            self.samples.append((time.monotonic() - t0, tree_rss(self.pid)))
            self.loads.append(os.getloadavg()[0])
            self.stop.wait(self.period)

    def over_time(self, parts: int = 10) -> list[tuple[float, int, float]]:
        """(end of the part in seconds, peak bytes in it, load at its end) for ``parts`` equal
        stretches of the run: a path that keeps something per reply or per seed climbs here."""
        if not self.samples:
            return []
        end = self.samples[-1][0] or 1.0
        out: list[tuple[float, int, float]] = []
        for k in range(parts):
            lo, hi = end * k / parts, end * (k + 1) / parts
            part = [(r, load) for (t, r), load in zip(self.samples, self.loads) if lo < t <= hi or (k == 0 and t == 0)]
            if part:
                out.append((hi, max(r for r, _ in part), part[-1][1]))
        return out

    def halves(self) -> tuple[int, int]:
        if not self.samples:
            return 0, 0
        end = self.samples[-1][0]
        first = max((r for t, r in self.samples if t <= end / 2), default=0)
        second = max((r for t, r in self.samples if t > end / 2), default=0)
        return first, second


def tree_rss(pid: int) -> int:
    """Bytes resident in ``pid`` and its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(d))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except OSError:
            pass
        todo += children.get(p, [])
    return total


def run_sampled(args: list[str], env: dict[str, str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], TreeSampler, float]:
    t0 = time.monotonic()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid)
    sampler.start()
    out, err = proc.communicate()
    sampler.stop.set()
    sampler.join()
    return subprocess.CompletedProcess(args, proc.returncode, out, err), sampler, time.monotonic() - t0


class Bench:
    def __init__(self, tmp: Path, n: int) -> None:
        self.tmp, self.n = tmp, n
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCH_KEY": KEY}
        self.template = tmp / "qs.db"
        p = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(self.template), "quickstart",
                            "--no-app"], cwd=tmp, capture_output=True, text=True, env=self.env, timeout=900)
        if p.returncode != 0:
            raise SystemExit(f"quickstart failed: {p.stderr[-2000:]}")
        kinds = _kinds()
        self.kinds = [k for k, _ in kinds]
        self.replies = [r for _, r in kinds]
        self.i = 0
        self.lock = threading.Lock()

    def hostile(self, request: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        with self.lock:
            self.i += 1
            return self.replies[self.i % len(self.replies)]

    def db(self, name: str) -> Path:
        path = self.tmp / f"{name}.db"
        shutil.copy(self.template, path)
        return path

    def cfg(self, name: str, text: str) -> Path:
        path = self.tmp / f"{name}.toml"
        path.write_text(text)
        return path

    def cli(self, db: Path, cfg: Path, *args: str) -> list[str]:
        return [sys.executable, "-m", "qcstation", "--db", str(db), "--config", str(cfg), *args]

    @staticmethod
    def model(url: str, **extra: Any) -> str:
        lines = ['model = "fake-model"', f'base_url = "{url}"', 'api_key_env = "BENCH_KEY"', "retries = 0",
                 "backoff_s = 0.01", "max_backoff_s = 0.02", "timeout_s = 60", f"concurrency = {CONCURRENCY}"]
        return "\n".join(lines + [f"{k} = {json.dumps(v)}" for k, v in extra.items()]) + "\n"

    def samples(self) -> int:
        """Samples per item for about ``n`` requests (the working set's items, counted once)."""
        if not hasattr(self, "_items"):
            from db import Store
            from qcstation.eval.runs import get_run

            db = self.db("count")
            n, self.n, self._items = self.n, 1, 1
            run_id = self._run(db, "[models.m]\n" + self.model("http://127.0.0.1:9/v1"), "final")
            with Store(db) as s:
                self._items = max(1, get_run(s, run_id).n_requests)
            self.n = n
        return max(1, -(-self.n // self._items))

    # -- the paths ------------------------------------------------------------------------------
    def eval_path(self, fake: FakeOpenAI) -> tuple[list[str], Path]:
        db = self.db("eval")
        cfg = self.cfg("eval", "[models.m]\n" + self.model(fake.base_url))
        return self.cli(db, cfg, "eval", "run", "--model", "m", "--working-set", "--tasks", "final",
                        "--samples", str(self.samples()), "--temperature", "0.7", "--no-score", "-q",
                        "--shots", "0"), db

    def _run(self, db: Path, cfg_text: str, task: str) -> int:
        from db import Store
        from qcstation.common.config import parse_config
        from qcstation.eval.runs import create_run

        import tomllib

        cfg = parse_config(tomllib.loads(cfg_text), "<bench>")
        with Store(db) as s:
            return create_run(s, cfg, model="m", tasks=[task], shots=0, temperature=0.7,
                              samples=self.samples())

    def judges_path(self, fake: FakeOpenAI) -> tuple[list[str], Path]:
        from qcstation.common.config import parse_config
        from qcstation.eval.runner import execute_run

        import tomllib

        db = self.db("judges")
        with FakeOpenAI() as good:
            good.responder = lambda req: ("Problem Scenario: ducks\nGoal: money\nKnown Quantities: 16\n"
                                          "Unknown Quantities: x\nRelationships and Constraints: none\n"
                                          "Irrelevant Information: none")
            text = "[models.m]\n" + self.model(good.base_url)
            run_id = self._run(db, text, "understanding")
            execute_run(db, run_id, parse_config(tomllib.loads(text), "<bench>"), preflight=False)
        cfg = self.cfg("judges", "[models.m]\n" + self.model(fake.base_url) + "[[judges]]\n"
                       + self.model(fake.base_url))
        return self.cli(db, cfg, "eval", "score", str(run_id)), db

    def generate_path(self, fake: FakeOpenAI) -> tuple[list[str], Path]:
        db = self.tmp / "generate.db"
        seeds = self.tmp / "seeds.jsonl"
        n = max(1, self.n // 2)          # two attempts a seed
        with seeds.open("w") as f:
            for i in range(n):
                a = 16 + i
                f.write(json.dumps({
                    "id": f"j{i}", "answer": str(2 * (a - 7)),
                    "question": f"Janet's ducks lay {a} eggs per day. She eats 3 and bakes with 4. She sells "
                                "the rest for $2 each. How much does she make every day?",
                    "solution": f"Janet sells {a} - 3 - 4 = <<{a}-3-4={a - 7}>>{a - 7} duck eggs a day.\n"
                                f"She makes {a - 7} * 2 = $<<{a - 7}*2={2 * (a - 7)}>>{2 * (a - 7)} every day."})
                        + "\n")
        cfg = self.cfg("generate", "[generator]\n" + self.model(fake.base_url)
                       + "[generation]\nrephrase_notation = true\nmax_attempts = 2\n")
        p = subprocess.run(self.cli(db, cfg, "import", str(seeds), "--format", "jsonl", "--level", "medium"),
                           capture_output=True, text=True, env=self.env, timeout=3600)
        if p.returncode != 0:
            raise SystemExit(f"generate: import failed: {p.stderr[-1500:]}")
        return self.cli(db, cfg, "generate", "-q", "-d", "reasoning", "-d", "arithmetic"), db

    def import_path(self, fake: FakeOpenAI) -> tuple[list[str], Path]:
        db = self.db("import")
        cfg = self.cfg("import", "[models.m]\n" + self.model(fake.base_url))
        run_id = self._run(db, "[models.m]\n" + self.model(fake.base_url), "final")
        p = subprocess.run(self.cli(db, cfg, "eval", "export-batch", str(run_id), "--out", str(self.tmp / "in.jsonl")),
                           capture_output=True, text=True, env=self.env, timeout=3600)
        if p.returncode != 0:
            raise SystemExit(f"import: export failed: {p.stderr[-1500:]}")
        ids = [json.loads(line)["custom_id"] for line in (self.tmp / "in.jsonl").open()]
        out = self.tmp / "out.jsonl"
        big = b"s" * (15 << 20)
        with out.open("wb") as f:
            for i, cid in enumerate(ids):
                kind = i % 6
                if kind == 0 and i % 60 == 0:       # a 15 MB line now and then (a disk-sized file otherwise)
                    body: Any = {"choices": [{"message": {"content": "BIG"}}]}
                    line = json.dumps({"custom_id": cid, "response": {"status_code": 200, "body": body}}).encode()
                    line = line.replace(b"BIG", big)
                elif kind == 1:
                    line = json.dumps({"id": KEY, "custom_id": cid, "response": {"status_code": 200, "body": {
                        "model": KEY, "choices": [{"message": {"content": f"\x1b[2J{KEY}"}, "finish_reason": KEY}],
                        "usage": {"prompt_tokens": KEY, "completion_tokens": 2**80}}}}).encode()
                elif kind == 2:
                    line = b"[" * 100_000 + b"]" * 100_000
                elif kind == 3:
                    line = (b'{"custom_id": "' + cid.encode() + b'", "custom_id": "x", "response": '
                            b'{"status_code": 200, "body": {"choices": [{"message": {"content": "18"}}]}}}')
                elif kind == 4:
                    line = b"[" + b"{}," * 1_100_000 + b"{}]"
                else:
                    line = json.dumps({"custom_id": cid, "response": {"status_code": 200, "body": {
                        "choices": [{"message": {"content": "z" * (1 << 20)}}],
                        "usage": {"prompt_tokens": 2**53, "completion_tokens": 1}}}}).encode()
                f.write(line + b"\n")
        return self.cli(db, cfg, "eval", "import-batch", str(run_id), str(out)), db


PATHS: dict[str, Callable[[Bench, FakeOpenAI], tuple[list[str], Path]]] = {
    "eval": Bench.eval_path, "judges": Bench.judges_path, "generate": Bench.generate_path,
    "import": Bench.import_path}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="hostile replies (or lines) per path (default 2000)")
    ap.add_argument("--only", choices=sorted(PATHS), action="append", help="only this path (repeatable)")
    args = ap.parse_args()
    bound = bound_mb()
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} "
          f"on {os.cpu_count()} cores; bound {bound} MB per command (base {BASE_MB} MB + {CONCURRENCY} in "
          f"flight x 3 x {MAX_BODY_BYTES >> 20} MiB)")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="hostile-mem-") as tmp:
        bench = Bench(Path(tmp), args.n)
        print("hostile replies, in turn: " + "; ".join(bench.kinds))
        print(f"{'path':10} {'replies':>8} {'seconds':>8} {'peak MB':>8} {'1st half':>9} {'2nd half':>9} "
              f"{'exit':>5}  held  load")
        for name in args.only or list(PATHS):
            with FakeOpenAI() as fake:
                fake.raw_responder = bench.hostile
                argv, db = PATHS[name](bench, fake)
                before = bench.i
                proc, sampler, seconds = run_sampled(argv, bench.env, Path(tmp))
                asked = bench.i - before
            lines = args.n if name == "import" else asked
            peak = max((r for _, r in sampler.samples), default=0) >> 20
            first, second = (h >> 20 for h in sampler.halves())
            secret = KEY in proc.stdout + proc.stderr or any(
                KEY.encode() in f.read_bytes() for f in db.parent.glob(db.name + "*"))
            held = peak < bound and "Traceback" not in proc.stderr and not secret and lines > 0
            failed += not held
            print(f"{name:10} {lines:>8} {seconds:>8.1f} {peak:>8} {first:>9} {second:>9} {proc.returncode:>5}  "
                  f"{'yes' if held else 'NO':4}  {os.getloadavg()[0]:.2f}"
                  + ("  (key printed or stored)" if secret else "")
                  + "\n    over the run (MB, peak of each tenth @ seconds, load): "
                  + "  ".join(f"{r >> 20}@{t:.0f}s/{load:.1f}" for t, r, load in sampler.over_time())
                  + (f"\n    {proc.stderr.strip()[-600:]}" if "Traceback" in proc.stderr else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
