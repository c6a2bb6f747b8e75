"""Run a qcstation batch export on a Ray cluster with Ray Data's LLM processor (vLLM).

    qcstation eval export-batch 3 --out run3.jsonl          # on the machine with the database
    python examples/ray_batch.py run3.jsonl --output run3.out.jsonl \
        --model Qwen/Qwen2.5-7B-Instruct --replicas 4 --tensor-parallel-size 1
    qcstation eval import-batch 3 run3.out.jsonl            # back on the database machine

Input: OpenAI Batch input JSONL as ``qcstation eval export-batch`` writes it (one
``{"custom_id", "method", "url", "body"}`` per line; several files allowed). Output: one
JSONL file in the OpenAI Batch *output* format (``{"id", "custom_id", "response":
{"status_code", "request_id", "body": <chat.completion>}, "error"}``), which ``qcstation
eval import-batch`` reads. A row the engine fails on becomes an error line (status 500),
not a crashed job.

Needs ``pip install -U "ray[data,llm]"`` (which brings vLLM) on the cluster, and GPUs.
This script does not import qcstation, so the cluster does not need it. It is documented,
not run in CI (see examples/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


def read_requests(paths: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The input lines of the batch files, checked just enough to fail early and clearly."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                rec = json.loads(line)
                if rec.get("url") != "/v1/chat/completions" or "custom_id" not in rec:
                    raise SystemExit(f"{path}:{n}: not an OpenAI Batch chat request")
                yield rec


def to_row(rec: dict[str, Any]) -> dict[str, Any]:
    """A batch input line -> a Ray Data row for the vLLM processor (``messages`` and
    per-row ``sampling_params``; other columns are carried through to postprocess)."""
    body = rec["body"]
    seed = body.get("seed")
    # every row has the same keys (seed None when greedy), so Ray infers one schema
    params: dict[str, Any] = {"temperature": float(body.get("temperature", 0.0)),
                              "max_tokens": int(body.get("max_tokens", 1024)),
                              "seed": None if seed is None else int(seed)}
    return {
        "custom_id": rec["custom_id"],
        "messages": [{"role": str(m["role"]), "content": str(m["content"])}
                     for m in body["messages"]],
        "sampling_params": params,
        "max_tokens": params["max_tokens"],
        "served_model": str(body.get("model", "")),
    }


def to_output_line(row: dict[str, Any]) -> str:
    """A processed Ray Data row -> one line of the OpenAI Batch output format."""
    request_id = f"ray-{uuid.uuid4().hex[:16]}"
    error = row.get("__inference_error__")
    if error:
        record: dict[str, Any] = {
            "id": request_id, "custom_id": row["custom_id"],
            "response": {"status_code": 500, "request_id": request_id, "body": None},
            "error": {"code": "inference_error", "message": str(error)[:2000]},
        }
        return json.dumps(record, ensure_ascii=False)
    generated = int(row.get("num_generated_tokens") or 0)
    prompt = int(row.get("num_input_tokens") or 0)
    # Ray's vLLM stage does not report the finish reason: a reply that used its whole token
    # budget was cut off ("length"), any other stopped by itself ("stop").
    finish = "length" if generated >= int(row.get("max_tokens") or 0) > 0 else "stop"
    body = {
        "id": f"chatcmpl-{request_id}", "object": "chat.completion",
        "model": row.get("served_model") or "",
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": row.get("generated_text") or ""}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": generated,
                  "total_tokens": prompt + generated},
    }
    record = {"id": request_id, "custom_id": row["custom_id"],
              "response": {"status_code": 200, "request_id": request_id, "body": body},
              "error": None}
    return json.dumps(record, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="batch input JSONL file(s) from `qcstation eval export-batch`")
    ap.add_argument("--output", required=True, help="output JSONL (OpenAI Batch output format)")
    ap.add_argument("--model", help="model to load (HF id or path); default: the files' body.model")
    ap.add_argument("--replicas", type=int, default=1, help="vLLM engine replicas (default 1)")
    ap.add_argument("--tensor-parallel-size", type=int, default=1, help="GPUs per replica")
    ap.add_argument("--batch-size", type=int, default=64, help="rows per engine batch")
    ap.add_argument("--max-model-len", type=int, default=8192)
    args = ap.parse_args(argv)

    rows = [to_row(r) for r in read_requests(args.inputs)]
    if not rows:
        print("nothing to run: the input files hold no requests", file=sys.stderr)
        return 1
    model = args.model or rows[0]["served_model"]

    import ray                                              # imported here: --help works without Ray
    import ray.data.llm as ray_llm

    build = getattr(ray_llm, "build_processor", None) or ray_llm.build_llm_processor
    settings: dict[str, Any] = dict(
        model_source=model,
        engine_kwargs={"tensor_parallel_size": args.tensor_parallel_size,
                       "max_model_len": args.max_model_len},
        concurrency=args.replicas,
        batch_size=args.batch_size,
    )
    try:   # newer Ray: a failing row becomes an error row instead of failing the job
        config = ray_llm.vLLMEngineProcessorConfig(**settings, should_continue_on_error=True)
    except (TypeError, ValueError):
        config = ray_llm.vLLMEngineProcessorConfig(**settings)
    processor = build(
        config,
        preprocess=lambda row: dict(row),       # messages + sampling_params, ids carried along
        postprocess=lambda row: {"line": to_output_line(row)},
    )

    ray.init()
    ds = processor(ray.data.from_items(rows))
    out = Path(args.output)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent or ".")
    written = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for row in ds.iter_rows():
                f.write(row["line"] + "\n")
                written += 1
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    print(f"{written} results written to {out}; import them with "
          f"`qcstation eval import-batch RUN {out}`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
