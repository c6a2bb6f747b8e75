"""``qcstation config``: the configuration in force, where it came from, and a model check."""

from __future__ import annotations

import argparse
from typing import Any

from qcstation.commands._common import print_json
from qcstation.common.safe import display_text
from qcstation.commands import HELP


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "config", help=HELP["config"],
        description="Print the effective configuration (file + environment overrides) and the "
                    "file it came from. API keys are never shown: only whether the variable "
                    "each model names is set.")
    p.add_argument("--json", action="store_true", help="print it as JSON")
    p.add_argument("--check", action="store_true",
                   help="ask each configured model server for its model list (GET /models)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.common.config import config_to_dict, load_config

    cfg = load_config(args.config)
    data = config_to_dict(cfg)
    models = ([("generator", cfg.generator)] if cfg.generator else []) + \
        [(f"judge {j.name or j.model}", j) for j in cfg.judges] + \
        [(f"model {k}", m) for k, m in cfg.models.items()]
    data["api_keys"] = {label: {"variable": m.api_key_env, "set": bool(m.api_key())}
                        for label, m in models}
    # the server(s) each model's requests go to (base_urls when given, else base_url, else
    # the OpenAI API): the default URL is never shown for a model configured with base_urls
    data["servers"] = {label: [] if m.backend == "vllm" else m.endpoints for label, m in models}
    failures = 0
    if args.check:
        checks = {}
        for label, m in models:
            if m.backend == "vllm":
                checks[label] = _check_vllm(m)
                failures += 0 if checks[label]["ok"] else 1
                continue
            checks[label] = _check_server(m, strict_key=label != "generator")
            failures += 0 if checks[label]["ok"] else 1
        data["checks"] = checks
    if args.json:
        print_json(data)
        return 1 if failures else 0
    print(f"config file: {data['source_path'] or '(none: offline defaults)'}")
    if not models:
        print("models: none configured; generation uses exact rules only")
    for label, m in models:
        key = data["api_keys"][label]
        if m.backend == "vllm":
            args_text = ", ".join(f"{k}={v!r}" for k, v in m.vllm_args.items()) or "defaults"
            print(f"{label}: {m.model} on in-process vLLM (engine args: {args_text}; "
                  f"temperature {m.temperature}, batch size {m.batch_size})")
            if args.check:
                c = data["checks"][label]
                print(f"  check: {'ok' if c['ok'] else 'FAILED'} — {display_text(c['message'], 300)}")
            continue
        servers = m.endpoints      # what a run asks: base_urls when given, else base_url
        where = (servers[0] if len(servers) == 1 else
                 f"{len(servers)} servers ({', '.join(servers)}; each request to the least busy)")
        print(f"{label}: {m.model} at {where} (key ${key['variable']} "
              f"{'set' if key['set'] else 'not set'}; temperature {m.temperature}, "
              f"concurrency {m.concurrency}, retries {m.retries})")
        if args.check:
            c = data["checks"][label]
            print(f"  check: {'ok' if c['ok'] else 'FAILED'} — {display_text(c['message'], 300)}")
    g, v, q = cfg.generation, cfg.verify, cfg.qc
    print(f"generation: max_attempts {g.max_attempts}, errors_per_cot {g.errors_per_cot}, "
          f"rephrase_notation {g.rephrase_notation}")
    print(f"verify: {v.workers} workers, {v.timeout_s} s, {v.memory_mb} MB")
    print(f"qc: sample {q.sample_rate:.0%} (seed {q.rng_seed}), defect threshold "
          f"{q.defect_threshold:.0%} at {q.confidence:.0%}, overlap {q.overlap_rate:.0%}, "
          f"curators {', '.join(q.curators) or '(none)'}, dimensions {', '.join(q.dimensions)}")
    return 1 if failures else 0


def _check_server(m: Any, *, strict_key: bool = True) -> dict[str, object]:
    """Whether an OpenAI-compatible model answers as generation and evaluation will ask it:
    its ``/models`` lists it, else one chat request of one token succeeds (a local server
    may list no model or another name, and may need no key: generation works, so does the
    check). A key that is needed but unset fails as ``eval run``'s preflight does (OpenAI's
    API; a ``[models.*]`` or judge table that names its variable), except for the generator
    on a local server (``strict_key`` False): generation sends its requests without it."""
    from qcstation.common.errors import ModelAccessError
    from qcstation.common.preflight import key_problem
    from qcstation.core.construct.make.llm import list_models, ping_chat

    if len(m.endpoints) > 1:
        # a [models.*] table with several servers: a run asks each of them, so check each
        each = {url: _check_server(_one_server(m, url), strict_key=strict_key)
                for url in m.endpoints}
        bad = [url for url, c in each.items() if not c["ok"]]
        return {"ok": not bad, "endpoint": ", ".join(m.endpoints),
                "message": "; ".join(f"{url}: {'ok' if c['ok'] else 'FAILED'} — {c['message']}"
                                     for url, c in each.items())}
    if m.base_urls:         # one server given as a list of one
        m = _one_server(m, m.base_urls[0])
    why = key_problem(m)
    local = bool(getattr(m, "base_url", None) or getattr(m, "base_urls", None))
    if why is not None and (strict_key or not local):
        # as eval run's preflight refuses it (OpenAI's API, or a key a [models.*] table names)
        return {"ok": False, "endpoint": m.endpoint, "message": why}
    # the generator calls a local server without the key when it is unset: so does the check
    note = f" (${m.api_key_env} is not set; the server answered without a key)" if why else ""
    try:
        served = list_models(m)
        if m.model in served:
            return {"ok": True, "endpoint": m.endpoint, "message": "serves " + m.model + note}
        listed = f"its /models does not list {m.model!r} ({len(served)} model(s))"
    except ModelAccessError as exc:
        listed = f"its /models failed: {exc}"
    try:
        ping_chat(m)
    except ModelAccessError as exc:
        return {"ok": False, "endpoint": m.endpoint,
                "message": f"{listed}; a chat request for {m.model!r} failed too: {exc}"
                           + (f"; {why}" if why else "")}
    return {"ok": True, "endpoint": m.endpoint,
            "message": f"answers chat requests for {m.model} ({listed}){note}"}


def _one_server(m: Any, url: str) -> Any:
    """``m`` asking the one server ``url`` (as a run sends one request there)."""
    import dataclasses

    one = dataclasses.replace(m, base_url=url, base_urls=[])
    one.key_named = getattr(m, "key_named", False)
    return one


def _check_vllm(m: object) -> dict[str, object]:
    """Whether the in-process vLLM backend can start here, without loading the model."""
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        return {"ok": False, "endpoint": "in-process vLLM",
                "message": "vLLM is not installed; on a machine with a CUDA GPU run "
                           "pip install '.[gpu]'"}
    return {"ok": True, "endpoint": "in-process vLLM",
            "message": "vLLM is installed (the model loads when a run starts)"}
