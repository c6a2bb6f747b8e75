"""The routes of a run's requests side by side, on the same loopback OpenAI-protocol server.

The same N request bodies (an ``eval export-batch`` file of N chat requests) go to one
loopback server (``tests/fake_openai.py``, in its own process, a fixed latency per request
as a model server has) by:

* **built-in client**: ``OpenAIBackend`` (what ``eval run`` uses), ``--in-flight`` requests
  at a time from one process;
* **Ray Data (http)**: ``qcstation eval ray-batch`` (Ray Data LLM's HTTP request processor,
  ``--workers`` actors x ``--in-flight`` each) on a local Ray cluster of ``--num-cpus``:
  the first run with the cluster's start, then a second (the steady rate: Ray and its actors
  already warm, as on a long job).

``vllm run-batch`` and the OpenAI Batch API run the model themselves (a GPU node; a hosted
service with a completion window of up to 24 h): they do not send requests to a server, so
they cannot be measured against this one; the bench says so.

Prints requests per second per route, the load (``os.getloadavg``) before and after each,
and the time of the Ray cluster's start. Run:

    python bench/batch_routes_bench.py [--requests 2000] [--latency-ms 20] [--in-flight 16]
                                       [--workers 2] [--num-cpus 2] [--batch-size 64]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _serve(latency: float, port_q: Any, stop: Any) -> None:
    """(a spawn context's Queue and Event)"""
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        fake.default_delay = latency
        port_q.put(fake.base_url)
        stop.wait()


def _load() -> str:
    return "load %.1f %.1f %.1f" % os.getloadavg()


def _write_input(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            body = {"model": "fake-model", "messages": [
                {"role": "system", "content": "Answer with a number in \\boxed{}."},
                {"role": "user", "content": f"Tom has {i} apples and buys {i + 3} more. How many now?"}],
                "temperature": 0.0, "max_tokens": 256}
            f.write(json.dumps({"custom_id": f"run1-seed{i}-final-s0", "method": "POST",
                                "url": "/v1/chat/completions", "body": body},
                               separators=(",", ":")) + "\n")


async def _built_in(base_url: str, bodies: list[tuple[str, bytes]], in_flight: int) -> int:
    from qcstation.common.config import ModelConfig
    from qcstation.eval.backends.openai_compat import OpenAIBackend

    backend = OpenAIBackend(ModelConfig(model="fake-model", base_url=base_url, concurrency=in_flight))
    gate = asyncio.Semaphore(in_flight)
    ok = 0

    async def one(cid: str, body: bytes) -> None:
        nonlocal ok
        async with gate:
            reply = await backend.send(cid, body)
        ok += reply.status == "ok"

    try:
        await asyncio.gather(*(one(c, b) for c, b in bodies))
    finally:
        await backend.aclose()
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--latency-ms", type=float, default=20.0)
    ap.add_argument("--in-flight", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--num-cpus", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64, help="rows per Ray batch (eval ray-batch's default 64)")
    args = ap.parse_args()

    from qcstation.eval.batch_ray.files import read_requests

    tmp = Path(tempfile.mkdtemp(prefix="batch-routes-"))
    inp = tmp / "run.jsonl"
    _write_input(inp, args.requests)
    bodies = [(c, b.encode()) for c, b in read_requests([inp], [])]
    ctx = multiprocessing.get_context("spawn")
    port_q: Any = ctx.Queue()
    stop = ctx.Event()
    server = ctx.Process(target=_serve, args=(args.latency_ms / 1000, port_q, stop), daemon=True)
    server.start()
    base_url = port_q.get(timeout=60)
    n = args.requests
    print(f"{n} requests, server latency {args.latency_ms:g} ms, in flight {args.in_flight * args.workers} "
          f"(built-in) / {args.workers} workers x {args.in_flight} (Ray, batches of {args.batch_size}), "
          f"cpus {os.cpu_count()}")
    rows = []
    try:
        before = _load()
        t = time.perf_counter()
        ok = asyncio.run(_built_in(base_url, bodies, args.in_flight * args.workers))
        dt = time.perf_counter() - t
        rows.append(("built-in client (eval run's backend)", ok, dt, before, _load()))

        import logging

        import ray

        from qcstation.eval.batch_ray.pipeline import RayBatchOptions, run_batch

        before = _load()
        t = time.perf_counter()
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING)
        start = time.perf_counter() - t
        opts = RayBatchOptions(endpoints=[base_url], workers=args.workers, in_flight=args.in_flight,
                               retries=0, batch_size=args.batch_size)
        for label in ("Ray Data http, first run (actors start)", "Ray Data http, second run (steady)"):
            out = tmp / "run.out.jsonl"
            out.unlink(missing_ok=True)
            before = _load() if rows[-1][0].startswith("Ray") else before
            t = time.perf_counter()
            s = run_batch([inp], out, opts)
            rows.append((label, s.ok, time.perf_counter() - t, before, _load()))
        ray.shutdown()
    finally:
        stop.set()
        server.join(timeout=10)
    print(f"local Ray cluster start (ray.init, {args.num_cpus} CPUs): {start:.1f} s")
    print(f"{'route':44} {'ok':>6} {'seconds':>8} {'req/s':>8}   load before -> after")
    for label, ok, dt, b, a in rows:
        print(f"{label:44} {ok:>6} {dt:>8.1f} {ok / dt:>8.1f}   {b} -> {a}")
    print(f"{'vllm run-batch':44} {'-':>6} {'-':>8} {'-':>8}   runs the model itself (GPU): not a client of this server")
    print(f"{'OpenAI Batch API':44} {'-':>6} {'-':>8} {'-':>8}   hosted, completion window up to 24 h")


if __name__ == "__main__":
    main()
