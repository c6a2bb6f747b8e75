"""Whole-evaluation throughput against a loopback OpenAI-protocol server with a fixed latency.

For each concurrency (1, 16, 64 by default) it measures, against the same server process:

* **bare**: an aiohttp loop that only sends the run's request bodies and reads the replies;
* **qcstation**: a whole evaluation of the same requests: building prompts, the request,
  storing raw outputs, scoring them (answer extraction and checking, as `eval run` does:
  while the outputs are stored, then the pass for what is left) and storing scores.

Each concurrency runs ``--pairs`` pairs (default 3), a bare run then a whole evaluation (from
a copy of the same database), back to back, so that both of a pair meet about the same load
on a shared machine; the verdict is the **median of the pairs' ratios**, printed under them
with the median CPU per request of each side and the load.

It prints both rates, their ratio (target: at least 0.85 at every concurrency), the CPU per
request of the bare loop, of qcstation's process and of its live scoring worker (a child
process; on a machine with no idle core its CPU is taken from the run), the load average
beside every row (and `uptime` before and after), and the process's peak RSS, sampled along
the way (target: flat over 20k requests).

``--load N`` keeps N other processes busy (one core each, a pure-Python loop) for the whole
measurement, as on a shared machine (issue 13.7: at concurrency 64 on 2 cores with
``--load 1``, the ratio is to stay at 0.85 or above).

Run: python bench/eval_bench.py [--requests 20000] [--latency-ms 50] [--concurrency 1,16,64] [--load 1]
[--pairs 3]
(at concurrency 1 the request count is cut to what takes about 15 s, since one request at a
time at 50 ms gives 20 requests per second).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from db import Store  # noqa: E402
from tests.factories import add_full_seed  # noqa: E402


def _serve(port: int, latency_s: float) -> None:
    from aiohttp import web

    reply = {"id": "x", "object": "chat.completion", "created": 0, "model": "bench",
             "choices": [{"index": 0, "finish_reason": "stop",
                          "message": {"role": "assistant", "content": "Step 1: add.\nThe answer is 42."}}],
             "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}
    body = json.dumps(reply).encode()

    async def chat(request: web.Request) -> web.Response:
        await request.read()
        await asyncio.sleep(latency_s)
        return web.Response(body=body, content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None,
                handle_signals=True, backlog=1024)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _burn() -> None:
    """Keep one core busy until terminated (another user of the machine)."""
    x = 0
    while True:
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF


class _WorkerCPU:
    """CPU seconds of the run's live scoring worker (a forkserver child, so not in this
    process's RUSAGE_CHILDREN): its /proc stat read as the run stops it (before the stop
    reaps it; by then it has said goodbye), and once a second before that. The sampling thread lives in the measured
    process: it wakes rarely, so that it takes next to nothing from the event loop."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def watch(self) -> None:
        import threading

        from qcstation.eval import live as live_scoring

        start_worker = live_scoring.LiveScoring._start_worker
        stop_worker = live_scoring.LiveScoring._stop_worker
        watcher = self

        def start(live: object) -> None:
            start_worker(live)  # type: ignore[arg-type]
            pid = live._proc.pid  # type: ignore[attr-defined]
            live._bench_cpu_base = watcher.seconds  # type: ignore[attr-defined]
            threading.Thread(target=watcher._sample, args=(live, pid), daemon=True).start()

        def stop(live: object, grace_s: float = 0.0) -> None:
            proc = getattr(live, "_proc", None)
            if proc is not None and proc.pid is not None:
                watcher._read(live, proc.pid)   # before the stop reaps it (it has said goodbye)
            stop_worker(live, grace_s)  # type: ignore[arg-type]

        live_scoring.LiveScoring._start_worker = start  # type: ignore[method-assign,assignment]
        live_scoring.LiveScoring._stop_worker = stop  # type: ignore[method-assign,assignment]

    def _read(self, live: object, pid: int) -> bool:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return False
        self.seconds = max(self.seconds, live._bench_cpu_base  # type: ignore[attr-defined]
                           + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
        return True

    def _sample(self, live: object, pid: int) -> None:
        while self._read(live, pid):
            time.sleep(1.0)


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _uptime() -> str:
    import subprocess

    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


async def _bare(url: str, bodies: list[bytes], concurrency: int) -> float:
    import aiohttp

    t0 = time.perf_counter()
    it = iter(bodies)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        async def worker() -> None:
            for body in it:
                async with session.post(url, data=body,
                                        headers={"Content-Type": "application/json"}) as resp:
                    await resp.read()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(bodies) / (time.perf_counter() - t0)


def _make_db(path: Path, n_items: int) -> None:
    with Store(path) as store, store.transaction():   # one commit: setup only, not measured
        for i in range(n_items):
            add_full_seed(store, i)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--concurrency", default="1,16,64")
    ap.add_argument("--load", type=int, default=0, metavar="N",
                    help="processes kept busy meanwhile, one core each (default 0)")
    ap.add_argument("--pairs", type=int, default=3, metavar="K",
                    help="bare and qcstation runs alternated K times per concurrency (default 3)")
    args = ap.parse_args()
    from qcstation.common.config import parse_config
    from qcstation.eval.outputs import pending_requests
    from qcstation.eval.runner import execute_run
    from qcstation.eval.runs import RunContext, create_run
    from qcstation.eval.scorers import score_run

    worker = _WorkerCPU()
    worker.watch()
    port = _free_port()
    server = multiprocessing.get_context("spawn").Process(
        target=_serve, args=(port, args.latency_ms / 1000.0), daemon=True)
    server.start()
    base = f"http://127.0.0.1:{port}/v1"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    tasks = ["final", "arithmetic"]
    burners = [multiprocessing.get_context("spawn").Process(target=_burn, daemon=True)
               for _ in range(max(0, args.load))]
    for b in burners:
        b.start()
    print(f"loopback server: {args.latency_ms:g} ms latency; tasks {', '.join(tasks)}; "
          f"python {sys.version.split()[0]}, {os.cpu_count()} cores; {len(burners)} busy "
          f"process{'es' if len(burners) != 1 else ''} beside")
    print(f"{'concurrency':>11} {'pair':>4} {'requests':>8} {'bare/s':>8} {'qcstation/s':>11} {'ratio':>6} "
          f"{'run s':>6} {'score s':>7} {'CPU µs/req bare':>7} {'ours':>7} {'+scorer':>7} "
          f"{'peak RSS MB (25/50/75/100%)':>28}  load before -> after")
    print(f"(load before: {_load()}; uptime: {_uptime()})")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for conc in [int(c) for c in args.concurrency.split(",")]:
                n_req = args.requests if conc > 1 else min(args.requests, int(15 * 1000 / args.latency_ms))
                n_items = (n_req + len(tasks) - 1) // len(tasks)
                template = Path(tmp) / f"bench-{conc}.db"   # each pair's run starts from a copy
                _make_db(template, n_items + 1)
                cfg = parse_config({"models": {"m": {"model": "bench", "base_url": base,
                                                     "concurrency": conc, "max_tokens": 64}}})
                with Store(template) as store:
                    run_id = create_run(store, cfg, model="m", tasks=tasks, shots=1)
                    # the factory's problems repeat; make every prompt unique so that no
                    # reply comes from the response cache
                    with store.transaction():
                        store.execute(
                            "UPDATE eval_items SET record = json_set(record, '$.question', "
                            "json_extract(record, '$.question') || ' (item ' || seed_id || ')', "
                            "'$.notation', json_extract(record, '$.notation') || ' (item ' || seed_id || ')') "
                            "WHERE run_id = ? AND role = 'eval'", (run_id,))
                    ctx = RunContext(store, run_id)
                    bodies = [json.dumps({"model": "bench", "messages": list(r.messages), "temperature": 0.0,
                                          "max_tokens": 64}).encode() for r in pending_requests(store, run_id)]
                    del ctx
                n = len(bodies)
                pairs: list[tuple[float, float, float, float]] = []
                for k in range(args.pairs):
                    db = Path(tmp) / f"bench-{conc}-{k}.db"
                    for suffix in ("", "-wal"):   # (the store checkpoints as it closes)
                        if Path(f"{template}{suffix}").exists():
                            shutil.copyfile(f"{template}{suffix}", f"{db}{suffix}")
                    c0 = time.process_time()
                    l0 = _load()
                    bare = asyncio.run(_bare(base + "/chat/completions", bodies, conc))
                    bare_cpu = (time.process_time() - c0) / n * 1e6
                    marks: dict[int, float] = {}

                    def progress(p, n=n, marks=marks) -> None:
                        for q in (25, 50, 75):
                            if q not in marks and p.done >= n * q / 100:
                                marks[q] = _rss_mb()

                    t0 = time.perf_counter()
                    c0 = time.process_time()
                    k0 = worker.seconds
                    prog = execute_run(db, run_id, cfg, progress=progress, live_score=True)
                    t_run = time.perf_counter() - t0
                    score_run(db, run_id, cfg, only_missing=True)
                    t_all = time.perf_counter() - t0
                    our_cpu = (time.process_time() - c0) / n * 1e6
                    # the live scoring worker (a child process, ended with the run) works beside
                    # the event loop: on a machine with no idle core its CPU is time taken from it
                    worker_cpu = (worker.seconds - k0) / n * 1e6
                    marks[100] = _rss_mb()
                    assert prog.done == n and prog.errors == 0, prog
                    rate = n / t_all
                    pairs.append((rate / bare, bare_cpu, our_cpu, worker_cpu))
                    rss = "/".join(f"{marks.get(q, 0):.0f}" for q in (25, 50, 75, 100))
                    print(f"{conc:>11} {k + 1:>4} {n:>8} {bare:>8.0f} {rate:>11.0f} {rate / bare:>6.2f} "
                          f"{t_run:>6.1f} {t_all - t_run:>7.1f} {bare_cpu:>7.0f} {our_cpu:>7.0f} "
                          f"{worker_cpu:>7.0f} {rss:>28}  load {l0} -> {_load()}", flush=True)
                    db.unlink()
                med = [statistics.median(p[i] for p in pairs) for i in range(4)]
                print(f"{conc:>11} median of {len(pairs)} pair{'s' if len(pairs) != 1 else ''}: ratio "
                      f"{med[0]:.2f} (target 0.85; pairs {', '.join(f'{p[0]:.2f}' for p in pairs)}); "
                      f"CPU µs/req: bare {med[1]:.0f}, ours {med[2]:.0f}, +scorer {med[3]:.0f}; "
                      f"load {_load()}", flush=True)
        print(f"(load after: {_load()}; uptime: {_uptime()}; CPU µs/req: this process's CPU per request, bare loop and "
              f"qcstation; +scorer: the live scoring worker's, beside it)")
    finally:
        for b in burners:
            b.terminate()
        server.terminate()
        server.join(5)


if __name__ == "__main__":
    main()
