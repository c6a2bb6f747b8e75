"""qcstation configuration: a TOML file plus environment overrides.

Lookup order (:func:`load_config`):

1. the explicit ``path`` argument (``qcstation --config FILE``);
2. ``$QCSTATION_CONFIG``;
3. ``./qcstation.toml`` when it exists;
4. built-in defaults: no generator model, so everything model-free runs offline.

TOML sections: ``[generator]``, ``[[judges]]``, ``[models.NAME]``, ``[generation]``,
``[verify]``, ``[qc]`` (see ``qcstation.example.toml`` at the repository root).

Environment overrides (applied after the file; they change the *generator* model):

=========================  ==========================================================
``QCSTATION_MODEL``        generator model name; alone it creates a generator config
``QCSTATION_BASE_URL``     OpenAI-compatible endpoint, e.g. ``http://localhost:8000/v1``
``QCSTATION_API_KEY_ENV``  NAME of the variable holding the API key (not the key)
``QCSTATION_TEMPERATURE``  float, 0..2
``QCSTATION_MAX_TOKENS``   int >= 1
``QCSTATION_CONCURRENCY``  int, requests in flight at once
``QCSTATION_TIMEOUT``      seconds per HTTP request
``QCSTATION_RETRIES``      retries after the first attempt
=========================  ==========================================================

API keys are never part of the configuration: a model names the environment
variable that holds its key (``api_key_env``) and :meth:`ModelConfig.api_key` reads
it when a client is built. A file containing ``api_key = "..."`` is refused.
Validation is strict: unknown keys, wrong types and out-of-range values raise
:class:`~qcstation.common.errors.ConfigError` naming the file, the key and the problem.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from qcstation.common.errors import ConfigError
from qcstation.common.vocab import DIMENSIONS, QC_DIMENSIONS

ENV_CONFIG = "QCSTATION_CONFIG"
DEFAULT_CONFIG_NAME = "qcstation.toml"

#: the largest configuration file read (a real one is a few KB; /dev/zero never ends)
MAX_CONFIG_BYTES = 1 << 20
#: the longest model server URL taken
MAX_URL_CHARS = 2048
#: the name of an environment variable holding a key (never the key): the one definition,
#: used by the configuration and by every command option naming one (``--api-key-env``)
_ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_SECRET_KEYS = {"api_key", "apikey", "key", "secret", "token", "password", "openai_api_key"}


@dataclass
class ModelConfig:
    """One model endpoint. Holds the *name* of the API-key variable, never the key."""

    model: str
    base_url: str | None = None          # None: https://api.openai.com/v1
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int = 1024
    concurrency: int = 4                 # requests in flight at once (per event loop)
    timeout_s: float = 60.0              # per HTTP attempt
    retries: int = 4                     # retries after the first attempt
    price_in_per_mtok: float | None = None    # USD per million prompt tokens
    price_out_per_mtok: float | None = None   # USD per million completion tokens
    batch_price_factor: float = 1.0      # share of those prices a batch result costs (OpenAI Batch API: 0.5)
    name: str = ""                       # label; defaults to ``model``
    backoff_s: float = 1.0               # first retry wait; doubles each retry (+ jitter)
    max_backoff_s: float = 60.0          # cap on any single wait, including Retry-After
    base_urls: list[str] = field(default_factory=list)   # several servers for one model (eval)
    backend: str = "openai"              # openai (any OpenAI-compatible server) | vllm (in-process)
    vllm_args: dict[str, Any] = field(default_factory=dict)   # vllm: engine args for vllm.LLM(...)
    batch_size: int = 256                # vllm: conversations per LLM.chat call

    def __post_init__(self) -> None:
        if not self.name:
            self.name = self.model

    def api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        """The key from ``$api_key_env`` (``None`` when unset or empty)."""
        value = (os.environ if env is None else env).get(self.api_key_env)
        if value:
            from qcstation.common import redact

            redact.register(value)      # scrubbed from every reply from now on
        return value or None

    @property
    def endpoint(self) -> str:
        return self.base_url or "https://api.openai.com/v1"

    @property
    def endpoints(self) -> list[str]:
        """Every server of this model: ``base_urls`` when given, else ``[endpoint]``."""
        return list(self.base_urls) if self.base_urls else [self.endpoint]


@dataclass
class GenerationConfig:
    max_attempts: int = 3
    errors_per_cot: int = 1              # 1..6: errors injected per CoT (R&R difficulty)
    rng_seed: int = 0
    rephrase_notation: bool = False


@dataclass
class VerifyConfig:
    timeout_s: float = 5.0
    memory_mb: int = 512
    workers: int = 2


@dataclass
class QCConfig:
    sample_rate: float = 0.10
    rng_seed: int = 12345
    defect_threshold: float = 0.05
    confidence: float = 0.95
    overlap_rate: float = 0.0
    min_sample: int = 5
    curators: list[str] = field(default_factory=list)
    dimensions: list[str] = field(default_factory=lambda: list(QC_DIMENSIONS))
    # Z3 checks a formalization's value, not its meaning: once a model made a Reasoning
    # artifact, Reasoning joins the QC dimensions (qcstation.core.review.queries.qc_dimensions)
    sample_model_reasoning: bool = True


@dataclass
class EvalConfig:
    templates_dir: str | None = None     # overrides built-in prompt templates by file name
    shots: int = 3


@dataclass
class Config:
    generator: ModelConfig | None = None
    judges: list[ModelConfig] = field(default_factory=list)
    models: dict[str, ModelConfig] = field(default_factory=dict)   # named models to evaluate
    generation: GenerationConfig = field(default_factory=GenerationConfig)
    verify: VerifyConfig = field(default_factory=VerifyConfig)
    qc: QCConfig = field(default_factory=QCConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    source_path: Path | None = None

    def model(self, name: str) -> ModelConfig:
        """A model to evaluate by its ``[models.NAME]`` name (or the generator / a judge by label)."""
        if name in self.models:
            return self.models[name]
        for m in [self.generator, *self.judges]:
            if m is not None and m.name == name:
                return m
        known = sorted(self.models) or ["(none configured)"]
        raise ConfigError(f"no model named {name!r} in {self.describe_source()}; "
                          f"configured models: {', '.join(known)}")

    def describe_source(self) -> str:
        return str(self.source_path) if self.source_path else "the built-in defaults"


# -- validation ------------------------------------------------------------------------

class _Where:
    """Formats ``<file>: [section] key`` prefixes for error messages."""

    def __init__(self, source: str) -> None:
        self.source = source

    def err(self, section: str, key: str | None, problem: str) -> ConfigError:
        loc = f"[{section}]" if section else ""
        if key:
            loc = f"{loc} {key}".strip()
        return ConfigError(f"{self.source}: {loc}: {problem}", title="Bad configuration")


def _type_name(v: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string",
            list: "array", dict: "table"}.get(type(v), type(v).__name__)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(float(v)))


Check = Callable[[Any], str | None]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _rng(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
         hi_open: bool = False) -> Check:
    def check(v: Any) -> str | None:
        bad = ((lo is not None and (v <= lo if lo_open else v < lo))
               or (hi is not None and (v >= hi if hi_open else v > hi)))
        if not bad:
            return None
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        lo_s = "-inf" if lo is None else _num(lo)
        hi_s = "inf" if hi is None else _num(hi)
        return f"must be in {left}{lo_s}, {hi_s}{right}, got {v!r}"
    return check


# field -> (kind, check); kind: int | float | str | bool | strlist | optfloat | optstr
_MODEL_FIELDS: dict[str, tuple[str, Check | None]] = {
    "model": ("str", None),
    "base_url": ("optstr", None),
    "api_key_env": ("str", None),
    "temperature": ("float", _rng(0, 2)),
    "max_tokens": ("int", _rng(1, 1_000_000)),
    "concurrency": ("int", _rng(1, 512)),
    "timeout_s": ("float", _rng(0, 3600, lo_open=True)),
    "retries": ("int", _rng(0, 50)),
    # (a price past a million dollars per million tokens is a typo, and summed over a run an overflow)
    "price_in_per_mtok": ("optfloat", _rng(0, 1_000_000)),
    "price_out_per_mtok": ("optfloat", _rng(0, 1_000_000)),
    "batch_price_factor": ("float", _rng(0, 1)),
    "name": ("str", None),
    "backoff_s": ("float", _rng(0, 600)),
    "max_backoff_s": ("float", _rng(0, 3600)),
    "base_urls": ("strlist", None),
    "backend": ("str", None),
    "vllm_args": ("table", None),
    "batch_size": ("int", _rng(1, 100_000)),
}
_EVAL_FIELDS: dict[str, tuple[str, Check | None]] = {
    "templates_dir": ("optstr", None),
    "shots": ("int", _rng(0, 16)),
}
_GENERATION_FIELDS: dict[str, tuple[str, Check | None]] = {
    "max_attempts": ("int", _rng(1, 20)),
    "errors_per_cot": ("int", _rng(1, 6)),
    "rng_seed": ("int", _rng(-(2**63), 2**63 - 1)),  # (stored with what it drew: SQLite's integer)
    "rephrase_notation": ("bool", None),
}
_VERIFY_FIELDS: dict[str, tuple[str, Check | None]] = {
    "timeout_s": ("float", _rng(0, 3600, lo_open=True)),
    "memory_mb": ("int", _rng(16, 1_048_576)),
    "workers": ("int", _rng(1, 256)),
}
_QC_FIELDS: dict[str, tuple[str, Check | None]] = {
    "sample_rate": ("float", _rng(0, 1, lo_open=True)),
    "rng_seed": ("int", _rng(-(2**63), 2**63 - 1)),  # (stored with what it drew: SQLite's integer)
    "defect_threshold": ("float", _rng(0, 1, hi_open=True)),
    "confidence": ("float", _rng(0, 1, lo_open=True, hi_open=True)),
    "overlap_rate": ("float", _rng(0, 1)),
    "min_sample": ("int", _rng(0, 1_000_000_000)),
    "curators": ("strlist", None),
    "dimensions": ("strlist", None),
    "sample_model_reasoning": ("bool", None),
}


def _coerce(where: _Where, section: str, key: str, kind: str, v: Any) -> Any:
    def wrong(expected: str) -> ConfigError:
        return where.err(section, key, f"must be {expected}, got {_type_name(v)} {v!r}")

    if kind in ("int",):
        if not _is_int(v):
            raise wrong("an integer")
        return v
    if kind in ("float", "optfloat"):
        if not _is_num(v):
            raise wrong("a number")
        return float(v)
    if kind in ("str", "optstr"):
        if not isinstance(v, str):
            raise wrong("a string")
        return v
    if kind == "bool":
        if not isinstance(v, bool):
            raise wrong("true or false")
        return v
    if kind == "table":
        if not isinstance(v, dict):
            raise wrong("a table (e.g. { tensor_parallel_size = 1 })")
        return dict(v)
    if kind == "strlist":
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise wrong("an array of strings")
        return list(v)
    raise AssertionError(kind)  # pragma: no cover


def _fields(where: _Where, section: str, table: Any,
            spec: dict[str, tuple[str, Check | None]]) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise where.err(section, None, f"must be a table, got {_type_name(table)}")
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key.lower() in _SECRET_KEYS:
            raise _secret_refusal(where, section, key)
        if key not in spec:
            raise where.err(section, key, f"unknown key; allowed keys: {', '.join(spec)}")
        kind, check = spec[key]
        v = _coerce(where, section, key, kind, value)
        if check is not None:
            problem = check(v)
            if problem:
                raise where.err(section, key, problem)
        out[key] = v
    return out


def _secret_refusal(where: _Where, section: str, key: str) -> ConfigError:
    return where.err(section, key, (
        "API keys must not be written in a config file. Put the key in an environment "
        "variable (e.g. `export OPENAI_API_KEY=...`) and name that variable with "
        "api_key_env = \"OPENAI_API_KEY\""))


def _model(where: _Where, section: str, table: Any, default_name: str = "",
           evaluated: bool = False) -> ModelConfig:
    values = _fields(where, section, table, _MODEL_FIELDS)
    if "model" not in values:
        raise where.err(section, "model", "missing: every model needs `model = \"<model name>\"`")
    if not values["model"].strip():
        raise where.err(section, "model", "must not be empty")
    if default_name and not values.get("name"):
        values["name"] = default_name
    _check_backend(where, section, values, evaluated)
    m = ModelConfig(**values)
    m.key_named = "api_key_env" in values  # type: ignore[attr-defined]  # not a field: no output changes
    _check_model(where, section, m)
    return m


BACKENDS = ("openai", "vllm")
_VLLM_ONLY = ("vllm_args", "batch_size")
_ENGINE_ARG_RE = re.compile(r"^[a-z_][a-z0-9_]{0,63}$")
# engine args whose type and range qcstation checks; other names are passed through and
# checked against vLLM's own EngineArgs when the backend is built
_ENGINE_ARGS: dict[str, tuple[str, Check | None]] = {
    "tensor_parallel_size": ("int", _rng(1, 1024)),
    "pipeline_parallel_size": ("int", _rng(1, 1024)),
    "data_parallel_size": ("int", _rng(1, 1024)),
    "gpu_memory_utilization": ("float", _rng(0, 1, lo_open=True)),
    "max_model_len": ("int", _rng(1, 100_000_000)),
    "max_num_seqs": ("int", _rng(1, 1_000_000)),
    "max_num_batched_tokens": ("int", _rng(1, 100_000_000)),
    "swap_space": ("float", _rng(0)),
    "cpu_offload_gb": ("float", _rng(0)),
    "seed": ("int", _rng(0, 2**63 - 1)),
    "enforce_eager": ("bool", None),
    "trust_remote_code": ("bool", None),
    "enable_prefix_caching": ("bool", None),
    "dtype": ("str", None),
    "quantization": ("str", None),
    "kv_cache_dtype": ("str", None),
    "tokenizer": ("str", None),
    "revision": ("str", None),
    "download_dir": ("str", None),
    "distributed_executor_backend": ("str", None),
}
_DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
_MAX_ARG_DEPTH = 4
_MAX_ARG_ITEMS = 1000
_MAX_ARG_STR = 4096


def _check_backend(where: _Where, section: str, values: dict[str, Any], evaluated: bool) -> None:
    backend = values.get("backend", "openai")
    if backend not in BACKENDS:
        raise where.err(section, "backend", f"unknown backend {backend!r}; expected one of "
                                            f"{', '.join(BACKENDS)}")
    if backend == "vllm" and not evaluated:
        raise where.err(section, "backend", (
            'backend = "vllm" (in-process) is only for models to evaluate ([models.NAME]); '
            "point this model at a `vllm serve` server with base_url instead"))
    if values.get("base_urls") and not evaluated:
        # the generator and the judges ask one server (the client takes base_url only): a
        # list here was left unused and the requests went to the OpenAI API instead
        raise where.err(section, "base_urls", (
            "several servers are shared out only for models to evaluate ([models.NAME]); "
            "this model asks one server: set base_url"))
    if backend != "vllm":
        for key in _VLLM_ONLY:
            if key in values:
                raise where.err(section, key, f'only used with backend = "vllm", but this model\'s '
                                              f"backend is {backend!r}")
        return
    for key in ("base_url", "base_urls"):
        if key in values:
            raise where.err(section, key, (
                f'backend = "vllm" runs the model inside qcstation (no server); remove {key}, '
                'or use the default backend = "openai" to talk to `vllm serve` servers'))
    values["vllm_args"] = _engine_args(where, section, values.get("vllm_args", {}))


def _engine_args(where: _Where, section: str, args: dict[str, Any]) -> dict[str, Any]:
    items = [0]

    def plain(key: str, v: Any, depth: int) -> Any:
        items[0] += 1
        if items[0] > _MAX_ARG_ITEMS:
            raise where.err(section, "vllm_args", f"too many values (more than {_MAX_ARG_ITEMS})")
        if isinstance(v, bool) or _is_int(v):
            return v
        if isinstance(v, float):
            if not math.isfinite(v):
                raise where.err(section, f"vllm_args.{key}", f"must be a finite number, got {v!r}")
            return v
        if isinstance(v, str):
            if len(v) > _MAX_ARG_STR:
                raise where.err(section, f"vllm_args.{key}", f"string longer than {_MAX_ARG_STR} characters")
            return v
        if depth >= _MAX_ARG_DEPTH:
            raise where.err(section, f"vllm_args.{key}", f"nested deeper than {_MAX_ARG_DEPTH} levels")
        if isinstance(v, list):
            return [plain(key, x, depth + 1) for x in v]
        if isinstance(v, dict):
            return {str(k): plain(f"{key}.{k}", x, depth + 1) for k, x in v.items()}
        raise where.err(section, f"vllm_args.{key}", f"unsupported value {_type_name(v)}")

    out: dict[str, Any] = {}
    for key, value in args.items():
        if key.lower() in _SECRET_KEYS or key.lower() == "hf_token":
            raise where.err(section, f"vllm_args.{key}", (
                "secrets must not be written in a config file; vLLM reads a Hugging Face token "
                "from the HF_TOKEN environment variable"))
        if key == "model":
            raise where.err(section, "vllm_args.model", (
                'the model is set by `model = "..."` in this table, not in vllm_args'))
        if not _ENGINE_ARG_RE.match(key):
            raise where.err(section, "vllm_args", (
                f"{key[:40]!r} is not a vLLM engine argument name (snake_case, e.g. "
                "tensor_parallel_size)"))
        if key in _ENGINE_ARGS:
            kind, check = _ENGINE_ARGS[key]
            v = _coerce(where, section, f"vllm_args.{key}", kind, value)
            if check is not None and (problem := check(v)):
                raise where.err(section, f"vllm_args.{key}", problem)
            if key == "dtype" and v not in _DTYPES:
                raise where.err(section, "vllm_args.dtype",
                                f"unknown dtype {v!r}; expected one of {', '.join(_DTYPES)}")
            out[key] = v
        else:
            out[key] = plain(key, value, 0)
    return out


def is_env_name(text: str) -> bool:
    """Whether *text* is the name of an environment variable (letters, digits and ``_``, not
    starting with a digit, at most 128 characters): the whole text, a trailing newline too."""
    return _ENV_NAME_RE.fullmatch(text) is not None


def _check_model(where: _Where, section: str, m: ModelConfig) -> None:
    if not is_env_name(m.api_key_env):
        # the value may be the key itself pasted by mistake: never echo it
        raise where.err(section, "api_key_env", (
            "must be the NAME of an environment variable holding the key (e.g. "
            "OPENAI_API_KEY), not the key itself; letters, digits and _ only"))
    for i, url in enumerate(m.base_urls):
        m.base_urls[i] = _check_url(where, section, "base_urls", url)
    if len(set(m.base_urls)) != len(m.base_urls):
        raise where.err(section, "base_urls", "contains duplicate URLs")
    if m.base_url is not None:
        m.base_url = _check_url(where, section, "base_url", m.base_url)
    if m.max_backoff_s < m.backoff_s:
        raise where.err(section, "max_backoff_s",
                        f"must be >= backoff_s ({m.backoff_s:g}), got {m.max_backoff_s:g}")


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a model server's base URL, or None: an http(s) URL with a host,
    no credentials, query or fragment, no space or control character, a valid port."""
    bad = f"must be an http(s) URL such as http://localhost:8000/v1, got {url[:200]!r}"
    if len(url) > MAX_URL_CHARS or any(c.isspace() or not c.isprintable() for c in url):
        return bad      # urlsplit drops CR, LF and tab silently; the URL sent keeps them
    try:
        parts = urlsplit(url)
        _ = parts.port  # an out-of-range or non-numeric port raises here, not in urlsplit
    except ValueError:  # 'http://[::1:1/v1' (an unclosed IPv6 bracket), port 99999
        return bad
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return bad
    if parts.username or parts.password:
        return ("must not contain credentials (user:password@); put the API key in an "
                "environment variable named by api_key_env")
    if parts.query or parts.fragment:
        return "must not contain a query string or fragment"
    return None


def _check_url(where: _Where, section: str, key: str, url: str) -> str:
    problem = url_problem(url)
    if problem is not None:
        raise where.err(section, key, problem)
    return url.rstrip("/")


def _check_qc(where: _Where, qc: QCConfig) -> None:
    for c in qc.curators:
        if not c.strip():
            raise where.err("qc", "curators", "names must not be empty")
    if len({" ".join(c.split()).casefold() for c in qc.curators}) != len(qc.curators):
        raise where.err("qc", "curators", "contains duplicate names (names compare "
                                          "case-insensitively)")
    if not qc.dimensions:
        raise where.err("qc", "dimensions", f"must name at least one of {', '.join(DIMENSIONS)}")
    for d in qc.dimensions:
        if d not in DIMENSIONS:
            raise where.err("qc", "dimensions", f"unknown dimension {d!r}; expected one of {', '.join(DIMENSIONS)}")
    if len(set(qc.dimensions)) != len(qc.dimensions):
        raise where.err("qc", "dimensions", "contains duplicates")


_TOP = ("generator", "judges", "models", "generation", "verify", "qc", "eval")


def parse_config(data: Mapping[str, Any], source: str = "<config>") -> Config:
    """Validate already-parsed TOML data into a :class:`Config`."""
    where = _Where(source)
    for key in data:
        if key.lower() in _SECRET_KEYS:
            raise _secret_refusal(where, "", key)
        if key not in _TOP:
            raise where.err("", key, f"unknown section; allowed: {', '.join(_TOP)}")
    cfg = Config()
    if "generator" in data:
        cfg.generator = _model(where, "generator", data["generator"])
    if "judges" in data:
        judges = data["judges"]
        if not isinstance(judges, list):
            raise where.err("judges", None, "must be an array of tables: write [[judges]] (double brackets)")
        for i, j in enumerate(judges):
            cfg.judges.append(_model(where, f"judges #{i + 1}", j))
        names = [j.name for j in cfg.judges]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise where.err("judges", "name", f"duplicate judge names {dup}; give each judge a distinct name")
    if "models" in data:
        models = data["models"]
        if not isinstance(models, dict):
            raise where.err("models", None, "must be a table of [models.NAME] tables")
        for name, table in models.items():
            if not isinstance(table, dict):
                raise where.err("models", name, "must be a table: write [models.NAME] with model = \"...\"")
            cfg.models[name] = _model(where, f"models.{name}", table, default_name=name,
                                      evaluated=True)
    if "generation" in data:
        cfg.generation = GenerationConfig(**_fields(where, "generation", data["generation"], _GENERATION_FIELDS))
    if "verify" in data:
        cfg.verify = VerifyConfig(**_fields(where, "verify", data["verify"], _VERIFY_FIELDS))
    if "qc" in data:
        cfg.qc = QCConfig(**_fields(where, "qc", data["qc"], _QC_FIELDS))
        _check_qc(where, cfg.qc)
    if "eval" in data:
        cfg.eval = EvalConfig(**_fields(where, "eval", data["eval"], _EVAL_FIELDS))
    return cfg


# -- environment overrides ----------------------------------------------------------------

_ENV_MODEL: dict[str, tuple[str, str]] = {   # env var -> (ModelConfig field, kind)
    "QCSTATION_MODEL": ("model", "str"),
    "QCSTATION_BASE_URL": ("base_url", "str"),
    "QCSTATION_API_KEY_ENV": ("api_key_env", "str"),
    "QCSTATION_TEMPERATURE": ("temperature", "float"),
    "QCSTATION_MAX_TOKENS": ("max_tokens", "int"),
    "QCSTATION_CONCURRENCY": ("concurrency", "int"),
    "QCSTATION_TIMEOUT": ("timeout_s", "float"),
    "QCSTATION_RETRIES": ("retries", "int"),
}


def _apply_env(cfg: Config, env: Mapping[str, str]) -> None:
    raw = {k: env[k] for k in _ENV_MODEL if env.get(k, "").strip() != ""}
    if raw:
        if cfg.generator is None and "QCSTATION_MODEL" not in raw:
            names = ", ".join(sorted(raw))
            raise ConfigError(
                f"environment: {names} set but no generator model is configured; set "
                f"QCSTATION_MODEL or add a [generator] section with model = \"...\"",
                title="Bad configuration")
        values: dict[str, Any] = {}
        for var, text in raw.items():
            fname, kind = _ENV_MODEL[var]
            text = text.strip()
            try:
                value: Any = (int(text) if kind == "int" else float(text) if kind == "float" else text)
            except ValueError:
                expected = "an integer" if kind == "int" else "a number"
                shown = "" if fname == "api_key_env" else f", got {text!r}"
                raise ConfigError(f"environment variable {var}: must be {expected}{shown}",
                                  title="Bad configuration") from None
            _, check = _MODEL_FIELDS[fname]
            if kind == "float" and not math.isfinite(value):
                raise ConfigError(f"environment variable {var}: must be a finite number, got {text!r}",
                                  title="Bad configuration")
            if check is not None and (problem := check(value)):
                raise ConfigError(f"environment variable {var}: {problem}", title="Bad configuration")
            values[fname] = value
        if cfg.generator is None:
            cfg.generator = ModelConfig(model=values.pop("model"))
        gen = cfg.generator
        old_model = gen.model
        for fname, value in values.items():
            setattr(gen, fname, value)
        if "model" in values and gen.name == old_model:
            gen.name = gen.model
        env_where = _EnvWhere()
        _check_model(env_where, "generator", gen)


class _EnvWhere(_Where):
    def __init__(self) -> None:
        super().__init__("environment")

    def err(self, section: str, key: str | None, problem: str) -> ConfigError:
        var = {f: v for v, (f, _) in _ENV_MODEL.items()}.get(key or "", key)
        return ConfigError(f"environment variable {var} (generator {key}): {problem}",
                           title="Bad configuration")


# -- loading ------------------------------------------------------------------------------

def _not_a_file(p: Path) -> str:
    """Why ``p``, which is no regular file, cannot be read as the configuration."""
    try:
        if p.is_dir():
            return "is a folder, not a configuration file"
        if p.exists():
            return "is not a regular file (a device, FIFO or socket), not a configuration file"
    except OSError:
        pass
    return "does not exist"


def find_config_path(path: str | Path | None = None,
                     env: Mapping[str, str] | None = None) -> Path | None:
    """The file :func:`load_config` would read, or ``None`` for built-in defaults."""
    env = os.environ if env is None else env
    if path is not None and str(path) != "":
        p = Path(path).expanduser()
        if not p.is_file():
            raise ConfigError(f"config file {p} {_not_a_file(p)}", title="Bad configuration")
        return p
    if env.get(ENV_CONFIG):
        p = Path(env[ENV_CONFIG]).expanduser()
        if not p.is_file():
            raise ConfigError(f"${ENV_CONFIG} points to {p}, which {_not_a_file(p)}",
                              title="Bad configuration")
        return p
    p = Path.cwd() / DEFAULT_CONFIG_NAME
    return p if p.is_file() else None


def load_config(path: str | Path | None = None, env: Mapping[str, str] = os.environ) -> Config:
    """Load the configuration (see the module docstring for the lookup order)."""
    p = find_config_path(path, env)
    if p is None:
        cfg = Config()
    else:
        try:
            with p.open("rb") as fh:
                raw = fh.read(MAX_CONFIG_BYTES + 1)
            if len(raw) > MAX_CONFIG_BYTES:
                raise ConfigError(f"{p}: larger than {MAX_CONFIG_BYTES:,} bytes; not a "
                                  "configuration file", title="Bad configuration")
            data = tomllib.loads(raw.decode("utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: not valid TOML: {exc}", title="Bad configuration") from None
        except RecursionError:     # tomllib recurses once per nested array or inline table
            raise ConfigError(f"{p}: not valid TOML: arrays or tables nested too deeply",
                              title="Bad configuration") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read config file {p}: {exc}", title="Bad configuration") from None
        cfg = parse_config(data, str(p))
        cfg.source_path = p.resolve()
    _apply_env(cfg, env)
    return cfg


# -- provenance ---------------------------------------------------------------------------

_FINGERPRINT_FIELDS = ("name", "model", "base_url", "temperature", "max_tokens")


def config_fingerprint(cfg: ModelConfig) -> dict[str, Any]:
    """JSON-safe description of what determines a model's outputs (no secrets, no key
    variable name), plus ``sha256`` of it, for manifests and provenance."""
    fp: dict[str, Any] = {f: getattr(cfg, f) for f in _FINGERPRINT_FIELDS}
    fp["base_url"] = cfg.endpoint
    keys = [k for k in _FINGERPRINT_FIELDS if k != "name"]
    if cfg.backend != "openai":      # openai fingerprints stay as they were before backends
        fp["base_url"] = None
        fp["backend"] = cfg.backend
        fp["vllm_args"] = json.loads(json.dumps(cfg.vllm_args, sort_keys=True))
        keys += ["backend", "vllm_args"]
    fp["sha256"] = hashlib.sha256(
        json.dumps({k: fp[k] for k in keys}, sort_keys=True).encode()
    ).hexdigest()
    return fp


def config_to_dict(cfg: Config) -> dict[str, Any]:
    """Whole configuration as JSON-safe data (for ``--json`` output and display); no secrets."""
    def model(m: ModelConfig | None) -> dict[str, Any] | None:
        return None if m is None else dataclasses.asdict(m)

    return {
        "source_path": str(cfg.source_path) if cfg.source_path else None,
        "generator": model(cfg.generator),
        "judges": [model(j) for j in cfg.judges],
        "models": {k: model(v) for k, v in cfg.models.items()},
        "generation": dataclasses.asdict(cfg.generation),
        "verify": dataclasses.asdict(cfg.verify),
        "qc": dataclasses.asdict(cfg.qc),
        "eval": dataclasses.asdict(cfg.eval),
    }
