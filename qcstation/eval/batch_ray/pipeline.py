"""Ray itself: the processors of both engines and the run over a batch file.

Only this module imports Ray (inside its functions: importing it costs nothing). Ray must
be installed (``pip install 'qcstation[ray]'``); on a cluster every node needs the same
qcstation and Ray, since the workers run :mod:`.http` and the row functions below.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qcstation.common.config import ModelConfig
from qcstation.common.errors import QCStationError
from qcstation.eval.batch_ray.files import OutputFile, read_requests
from qcstation.eval.batch_ray.http import SessionFactory
from qcstation.eval.batch_ray.rows import http_row, vllm_line, vllm_row

ENGINES = ("http", "vllm")
INSTALL_HINT = "the Ray route needs Ray Data: pip install 'qcstation[ray]' (ray[data] and pydantic)"


class RayBatchError(QCStationError):
    """The route cannot run (Ray missing, bad options) or the Ray job failed as a whole."""


@dataclass
class RayBatchOptions:
    engine: str = "http"
    # http: the OpenAI-compatible server(s), and how the built-in client talks to them
    endpoints: list[str] = field(default_factory=list)
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 60.0
    retries: int = 4
    in_flight: int = 16           # requests in flight per HTTP worker
    qps: int | None = None        # per HTTP worker (Ray's limiter)
    # vllm: the model loaded on the cluster
    model: str | None = None      # default: the body's model
    tensor_parallel_size: int = 1
    max_model_len: int | None = None
    # Ray
    workers: int = 2              # HTTP worker actors, or vLLM engine replicas
    batch_size: int = 64          # rows per Ray batch
    address: str | None = None    # an existing cluster; None starts a local one
    num_cpus: int | None = None   # the local cluster's CPUs (None: all)
    object_store_mb: int | None = None
    chunk: int = 20_000           # requests per Ray Data run (bounds the driver's memory)
    retry_errors: bool = False

    def model_config(self) -> ModelConfig:
        """The built-in client's configuration for these endpoints (the key's variable name
        only: the workers read its value)."""
        if not self.endpoints:
            raise RayBatchError("the http engine needs at least one --endpoint URL")
        urls = [u.rstrip("/") for u in self.endpoints]
        return ModelConfig(model="(from each request body)", base_url=urls[0],
                           base_urls=urls if len(urls) > 1 else [], api_key_env=self.api_key_env,
                           timeout_s=self.timeout_s, retries=self.retries,
                           concurrency=self.in_flight)


@dataclass
class RayBatchSummary:
    out: Path
    requests: int = 0             # distinct requests in the input files
    already: int = 0              # with a result in OUT before this run
    retried_errors: int = 0       # error results dropped from OUT to be sent again
    sent: int = 0
    ok: int = 0
    errors: int = 0
    problems: list[str] = field(default_factory=list)
    cut_line_dropped: bool = False


# -- the row functions Ray runs (module level: pickled by reference) ------------------------

def _http_pre(row: dict[str, Any]) -> dict[str, Any]:
    return http_row(row["custom_id"], row["body"])


def _http_post(row: dict[str, Any]) -> dict[str, Any]:
    response = row["http_response"]
    return {"line": response["line"], "ok": bool(response["ok"])}


def _vllm_pre(row: dict[str, Any]) -> dict[str, Any]:
    return vllm_row(row["custom_id"], row["body"])


def _vllm_post(row: dict[str, Any]) -> dict[str, Any]:
    line, ok = vllm_line(row)
    return {"line": line, "ok": ok}


def _ray_llm() -> Any:
    try:
        import ray.data.llm as ray_llm
    except ImportError as exc:
        raise RayBatchError(f"{INSTALL_HINT} ({exc})") from None
    return ray_llm


def http_config(opts: RayBatchOptions, *, ray_llm: Any = None) -> Any:
    """Ray's ``HttpRequestProcessorConfig``: the endpoint's chat URL (for Ray's own
    records), the workers and batch size, no Ray retries (the session retries as the
    built-in client does) and :class:`SessionFactory` as the session."""
    ray_llm = ray_llm or _ray_llm()
    cfg = opts.model_config()
    return ray_llm.HttpRequestProcessorConfig(
        url=cfg.endpoints[0] + "/chat/completions", batch_size=opts.batch_size,
        concurrency=opts.workers, qps=opts.qps, max_retries=0,
        session_factory=SessionFactory(cfg, opts.in_flight),
        # an HTTP worker waits on the network: a quarter of a CPU each
        http_request_stage={"num_cpus": 0.25})


def vllm_config(opts: RayBatchOptions, model: str, *, ray_llm: Any = None) -> Any:
    """Ray's ``vLLMEngineProcessorConfig``: ``workers`` engine replicas of
    ``tensor_parallel_size`` GPUs each, a failing row an error row."""
    ray_llm = ray_llm or _ray_llm()
    engine: dict[str, Any] = {"tensor_parallel_size": opts.tensor_parallel_size}
    if opts.max_model_len:
        engine["max_model_len"] = opts.max_model_len
    return ray_llm.vLLMEngineProcessorConfig(
        model_source=model, engine_kwargs=engine, concurrency=opts.workers,
        batch_size=opts.batch_size, should_continue_on_error=True)


def build(opts: RayBatchOptions, model: str, *, ray_llm: Any = None) -> Any:
    """The processor of ``opts.engine`` (a callable: Dataset -> Dataset of ``line`` rows)."""
    ray_llm = ray_llm or _ray_llm()
    if opts.engine == "http":
        return ray_llm.build_processor(http_config(opts, ray_llm=ray_llm),
                                       preprocess=_http_pre, postprocess=_http_post)
    if opts.engine == "vllm":
        return ray_llm.build_processor(vllm_config(opts, model, ray_llm=ray_llm),
                                       preprocess=_vllm_pre, postprocess=_vllm_post)
    raise RayBatchError(f"unknown engine {opts.engine!r}; known: {', '.join(ENGINES)}")


# -- the run ----------------------------------------------------------------------------

def _chunks(items: Iterable[tuple[str, str]], n: int) -> Iterator[list[tuple[str, str]]]:
    it = iter(items)
    while chunk := list(itertools.islice(it, n)):
        yield chunk


def _first_model(body: str) -> str:
    import json

    model = json.loads(body).get("model")
    return model if isinstance(model, str) else ""


def run_batch(inputs: list[str | Path], out: str | Path, opts: RayBatchOptions,
              progress: Callable[[RayBatchSummary], None] | None = None) -> RayBatchSummary:
    """Send the requests of ``inputs`` that ``out`` holds no result for through Ray and
    append one output line per request to ``out``. Starts a local Ray cluster (and shuts
    it down) unless Ray is already initialised in this process or ``opts.address`` names
    one. :class:`RayBatchError` when Ray is missing or the job fails as a whole (what was
    written stays: run again to send the rest)."""
    if opts.engine not in ENGINES:
        raise RayBatchError(f"unknown engine {opts.engine!r}; known: {', '.join(ENGINES)}")
    if opts.engine == "http":
        opts.model_config()                 # no endpoint: say so before anything starts
    summary = RayBatchSummary(out=Path(out))
    output = OutputFile(out)
    output.load()
    summary.problems.extend(output.problems)
    summary.cut_line_dropped = output.cut_line_dropped
    if opts.retry_errors:
        summary.retried_errors = output.drop_errors()

    def pending() -> Iterator[tuple[str, str]]:
        for cid, body in read_requests(inputs, summary.problems):
            summary.requests += 1
            if cid in output.done:
                summary.already += 1
                continue
            yield cid, body

    chunks = _chunks(pending(), max(1, opts.chunk))
    first = next(chunks, None)
    if first is None:
        output.close()
        return summary
    ray = _start_ray(opts)
    started = ray is not None
    try:
        import ray as ray_mod

        model = opts.model or _first_model(first[0][1])
        if opts.engine == "vllm" and not model:
            raise RayBatchError("the requests name no model; give one with --model")
        processor = build(opts, model)
        for chunk in itertools.chain([first], chunks):
            ds = ray_mod.data.from_items([{"custom_id": c, "body": b} for c, b in chunk])
            summary.sent += len(chunk)
            try:
                for batch in processor(ds).iter_batches(batch_size=opts.batch_size, batch_format="pandas"):
                    for rec in batch.to_dict("records"):
                        line, ok = rec.get("line"), rec.get("ok")
                        if not isinstance(line, str):       # a vLLM error row skips the postprocess
                            line, ok = vllm_line(rec)
                        output.append(line)
                        if ok is True:
                            summary.ok += 1
                        else:
                            summary.errors += 1
                    output.flush()
                    if progress is not None:
                        progress(summary)
            except RayBatchError:
                raise
            except Exception as exc:   # noqa: BLE001 - the job as a whole failed
                from qcstation.common.safe import message_text

                raise RayBatchError(
                    f"the Ray job failed ({type(exc).__name__}: {message_text(str(exc), 300)}); "
                    f"{summary.ok + summary.errors} results were written to {out}: run the same "
                    f"command again to send the rest") from None
    finally:
        output.close()
        if started:
            ray_mod.shutdown()
    return summary


def _start_ray(opts: RayBatchOptions) -> Any:
    """Initialise Ray for this run; returns the module when this call started it (so the
    run shuts it down), ``None`` when it was already running in this process."""
    try:
        import ray
    except ImportError as exc:
        raise RayBatchError(f"{INSTALL_HINT} ({exc})") from None
    _ray_llm()
    from ray.data import DataContext

    ctx = DataContext.get_current()
    ctx.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    if ray.is_initialized():
        return None
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                              "logging_level": logging.WARNING}
    if opts.address:
        kwargs["address"] = opts.address
    else:
        if opts.num_cpus:
            kwargs["num_cpus"] = opts.num_cpus
        if opts.object_store_mb:
            kwargs["object_store_memory"] = opts.object_store_mb * 2**20
    try:
        ray.init(**kwargs)
    except Exception as exc:   # noqa: BLE001 - any failure to start or reach a cluster
        where = f"the cluster at {opts.address}" if opts.address else "a local Ray cluster"
        raise RayBatchError(f"cannot start or reach {where}: {type(exc).__name__}: {exc}") from None
    return ray
