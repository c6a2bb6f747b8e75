"""``qcstation eval ray-batch IN... --out OUT``: the requests of ``eval export-batch`` files
run through a Ray Data pipeline (Ray Data LLM's HTTP request processor against any
OpenAI-compatible endpoint, or its vLLM engine processor on GPUs), results written as an
OpenAI Batch output file for ``eval import-batch``. Needs no database. Exit status: 0 every
request has a result line (errors included), 1 some input lines were skipped, 2 nothing
could run (no Ray, no endpoint, unreadable file), 3 the Ray job failed as a whole (run the
same command again: only the requests without a result are sent).
"""

from __future__ import annotations

import argparse
import sys

from qcstation.commands._common import env_name, http_url, int_between, print_json, seconds_between

_SHOWN_PROBLEMS = 20


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "ray-batch", help="run batch files through a Ray Data pipeline (HTTP endpoint or vLLM)",
        description="Send the requests of OpenAI Batch input files (from `qcstation eval "
                    "export-batch`) through a Ray Data pipeline and write their results to OUT "
                    "in the OpenAI Batch output format; then `qcstation eval import-batch RUN "
                    "OUT`. Engine http (default): Ray Data LLM's HTTP request processor against "
                    "any OpenAI-compatible endpoint (--endpoint, several for several servers), "
                    "each request sent with the built-in client's retries and limits; the API "
                    "key is read from $API_KEY_ENV by each Ray worker and never written. Engine "
                    "vllm: Ray's vLLM engine processor, the model loaded on the cluster's GPUs. "
                    "A request that fails becomes an error line. Results are appended as they "
                    "arrive: run the same command again after an interruption and only the "
                    "requests OUT has no result for are sent. Without --address a local Ray "
                    "cluster is started for the run. Needs `pip install 'qcstation[ray]'`.",
        epilog="Exit status: 0 every request has a result line (errors included), 1 some input "
               "lines were skipped (see stderr), 2 nothing ran (no Ray, no endpoint, unreadable "
               "file), 3 the Ray job failed as a whole (what was written stays; run again).")
    p.add_argument("inputs", metavar="IN", nargs="+",
                   help="batch input JSONL file(s) from `qcstation eval export-batch`")
    p.add_argument("--out", "-o", metavar="OUT", required=True,
                   help="output JSONL (appended to; the requests it has a result for are not sent)")
    p.add_argument("--engine", choices=("http", "vllm"), default="http",
                   help="http: an OpenAI-compatible endpoint (default); vllm: vLLM on the cluster's GPUs")
    p.add_argument("--endpoint", metavar="URL", action="append", default=[], type=http_url,
                   help="http: base URL of an OpenAI-compatible server, ending in /v1 (repeat "
                        "for several servers of one model: requests go to the least busy)")
    p.add_argument("--api-key-env", metavar="NAME", default="OPENAI_API_KEY", type=env_name,
                   help="http: environment variable holding the API key (default OPENAI_API_KEY; "
                        "unset: no key, as for a local server). On a cluster it must be set in "
                        "the workers' environment")
    p.add_argument("--timeout", type=seconds_between(0, 3600), default=60.0, metavar="S",
                   help="http: seconds per attempt (default 60)")
    p.add_argument("--retries", type=int_between(0, 50), default=4, metavar="N",
                   help="http: retries after the first attempt (default 4)")
    p.add_argument("--in-flight", type=int_between(1, 512), default=16, metavar="N",
                   help="http: requests in flight per worker (default 16)")
    p.add_argument("--qps", type=int_between(1, 1_000_000), default=None, metavar="N",
                   help="http: at most N requests per second per worker (Ray's limiter)")
    p.add_argument("--model", metavar="NAME",
                   help="vllm: model to load (HF id or path; default: the requests' body.model)")
    p.add_argument("--tensor-parallel-size", type=int_between(1, 1024), default=1, metavar="N",
                   help="vllm: GPUs per replica (default 1)")
    p.add_argument("--max-model-len", type=int_between(1, 100_000_000), default=None, metavar="N",
                   help="vllm: context length (default: the model's)")
    p.add_argument("--workers", type=int_between(1, 4096), default=2, metavar="N",
                   help="HTTP worker actors, or vLLM replicas (default 2)")
    p.add_argument("--batch-size", type=int_between(1, 100_000), default=64, metavar="N",
                   help="rows per Ray batch (default 64)")
    p.add_argument("--address", metavar="ADDR",
                   help="Ray cluster to use (e.g. auto, ray://head:10001); default: start a local one")
    p.add_argument("--num-cpus", type=int_between(1, 65_536), default=None, metavar="N",
                   help="CPUs of the local cluster (default: all)")
    p.add_argument("--object-store-mb", type=int_between(1, 100_000_000), default=None, metavar="MB",
                   help="object store of the local cluster (default: Ray's)")
    p.add_argument("--chunk", type=int_between(1, 10_000_000), default=20_000, metavar="N",
                   help="requests per Ray Data run (bounds memory; default 20000)")
    p.add_argument("--retry-errors", action="store_true",
                   help="also send again the requests whose result in OUT is an error (the new "
                        "result replaces it)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.common.safe import display_text
    from qcstation.eval.backends.batch import BatchFileError
    from qcstation.eval.batch_ray.pipeline import RayBatchError, RayBatchOptions, run_batch

    opts = RayBatchOptions(
        engine=args.engine, endpoints=list(args.endpoint), api_key_env=args.api_key_env,
        timeout_s=args.timeout, retries=args.retries, in_flight=args.in_flight, qps=args.qps,
        model=args.model, tensor_parallel_size=args.tensor_parallel_size,
        max_model_len=args.max_model_len, workers=args.workers, batch_size=args.batch_size,
        address=args.address, num_cpus=args.num_cpus, object_store_mb=args.object_store_mb,
        chunk=args.chunk, retry_errors=args.retry_errors)
    if opts.engine == "http" and not opts.endpoints:
        print("qcstation: error: the http engine needs --endpoint URL (an OpenAI-compatible "
              "server, e.g. http://host:8000/v1)", file=sys.stderr)
        return 2
    quiet = args.json or not sys.stderr.isatty()      # the progress line rewrites itself: terminals only

    def progress(s: object) -> None:
        if not quiet:
            done = s.ok + s.errors  # type: ignore[attr-defined]
            print(f"\r{done}/{s.sent} results ({s.errors} errors)",  # type: ignore[attr-defined]
                  end="", file=sys.stderr, flush=True)

    try:
        summary = run_batch(list(args.inputs), args.out, opts, progress=progress)
    except BatchFileError as exc:
        print(f"qcstation: error: {display_text(str(exc), 400)}", file=sys.stderr)
        return 2
    except RayBatchError as exc:
        if not quiet:
            print(file=sys.stderr)
        print(f"qcstation: error: {display_text(str(exc), 600)}", file=sys.stderr)
        return 3 if "the Ray job failed" in str(exc) else 2
    if summary.sent and not quiet:
        print(file=sys.stderr)
    for p in summary.problems[:_SHOWN_PROBLEMS]:
        print(display_text(p, 300), file=sys.stderr)
    if len(summary.problems) > _SHOWN_PROBLEMS:
        print(f"... and {len(summary.problems) - _SHOWN_PROBLEMS} more", file=sys.stderr)
    status = 1 if summary.problems else 0
    result = {"out": str(summary.out), "requests": summary.requests, "already": summary.already,
              "retried_errors": summary.retried_errors, "sent": summary.sent, "ok": summary.ok,
              "errors": summary.errors, "problems": summary.problems,
              "cut_line_dropped": summary.cut_line_dropped}
    if args.json:
        print_json(result)
        return status
    if summary.cut_line_dropped:
        print(f"(a last line of {summary.out} cut by an interruption was dropped; its request is sent again)")
    print(f"{summary.requests} requests read; {summary.already} already had a result in {summary.out}"
          + (f" ({summary.retried_errors} errors dropped to be sent again)" if summary.retried_errors else ""))
    if summary.sent:
        print(f"sent {summary.sent}: {summary.ok} results, {summary.errors} failed requests "
              f"(written as error lines)")
    else:
        print("nothing to send")
    print(f"next: qcstation eval import-batch RUN {summary.out}")
    return status
