from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from qcstation.common.config import (
    Config,
    ModelConfig,
    config_fingerprint,
    config_to_dict,
    find_config_path,
    load_config,
)
from qcstation.common.errors import ConfigError
from tests.must import must

ROOT = Path(__file__).resolve().parents[2]

FULL = """
[generator]
model = "gpt-4o-mini"
base_url = "http://localhost:8000/v1/"
api_key_env = "MY_KEY"
temperature = 0.3
max_tokens = 512
concurrency = 8
timeout_s = 30
retries = 2
price_in_per_mtok = 0.15
price_out_per_mtok = 0.6

[[judges]]
model = "judge-a"

[[judges]]
model = "judge-b"
name = "second"
temperature = 1

[models.small]
model = "Qwen/Qwen2.5-0.5B"
base_url = "http://127.0.0.1:9000/v1"

[generation]
max_attempts = 5
errors_per_cot = 3
rng_seed = 7
rephrase_notation = true

[verify]
timeout_s = 2.5
memory_mb = 256
workers = 3

[qc]
sample_rate = 0.2
rng_seed = 99
defect_threshold = 0.1
confidence = 0.9
overlap_rate = 0.25
min_sample = 3
curators = ["alice", "bob"]
dimensions = ["reasoning", "refinement"]
"""


def write(tmp_path: Path, text: str, name: str = "qc.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_offline_defaults_without_any_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = load_config(env={})
    assert cfg.generator is None
    assert cfg.judges == [] and cfg.models == {}
    assert cfg.source_path is None
    assert cfg.generation.max_attempts == 3 and cfg.generation.errors_per_cot == 1
    assert cfg.verify.timeout_s == 5.0 and cfg.verify.memory_mb == 512
    assert cfg.qc.sample_rate == 0.10 and cfg.qc.rng_seed == 12345
    assert cfg.qc.dimensions == ["arithmetic", "understanding"]
    assert find_config_path(None, {}) is None


def test_full_file_is_loaded(tmp_path: Path) -> None:
    p = write(tmp_path, FULL)
    cfg = load_config(p, env={})
    g = cfg.generator
    assert g is not None
    assert (g.model, g.name, g.api_key_env, g.temperature, g.max_tokens) == (
        "gpt-4o-mini", "gpt-4o-mini", "MY_KEY", 0.3, 512)
    assert g.base_url == "http://localhost:8000/v1"       # trailing slash dropped
    assert isinstance(g.timeout_s, float) and g.timeout_s == 30.0
    assert (g.concurrency, g.retries, g.price_in_per_mtok, g.price_out_per_mtok) == (8, 2, 0.15, 0.6)
    assert [j.name for j in cfg.judges] == ["judge-a", "second"]
    assert cfg.judges[1].temperature == 1.0
    assert cfg.models["small"].name == "small"
    assert cfg.models["small"].model == "Qwen/Qwen2.5-0.5B"
    assert cfg.model("small") is cfg.models["small"]
    assert cfg.model("second") is cfg.judges[1]
    assert dataclasses.asdict(cfg.generation) == {
        "max_attempts": 5, "errors_per_cot": 3, "rng_seed": 7, "rephrase_notation": True}
    assert (cfg.verify.timeout_s, cfg.verify.memory_mb, cfg.verify.workers) == (2.5, 256, 3)
    assert cfg.qc.curators == ["alice", "bob"]
    assert cfg.qc.dimensions == ["reasoning", "refinement"]
    assert (cfg.qc.sample_rate, cfg.qc.overlap_rate, cfg.qc.min_sample) == (0.2, 0.25, 3)
    assert cfg.source_path == p.resolve()
    json.dumps(config_to_dict(cfg))  # JSON-safe


def test_unknown_model_name_is_a_config_error(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, FULL), env={})
    with pytest.raises(ConfigError, match="no model named 'nope'.*small"):
        cfg.model("nope")


def test_example_config_in_repo_is_valid() -> None:
    cfg = load_config(ROOT / "qcstation.example.toml", env={})
    assert cfg.generator is not None and cfg.generator.model == "gpt-4o-mini"
    assert "gpt4o-mini" in cfg.models


def test_lookup_env_var_then_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = write(tmp_path, '[generator]\nmodel = "from-env-file"\n', "a.toml")
    cwd = tmp_path / "work"
    cwd.mkdir()
    write(cwd, '[generator]\nmodel = "from-cwd"\n', "qcstation.toml")
    monkeypatch.chdir(cwd)
    assert load_config(env={"QCSTATION_CONFIG": str(a)}).generator.model == "from-env-file"  # type: ignore[union-attr]
    assert load_config(env={}).generator.model == "from-cwd"  # type: ignore[union-attr]
    explicit = write(tmp_path, '[generator]\nmodel = "explicit"\n', "b.toml")
    assert load_config(explicit, env={"QCSTATION_CONFIG": str(a)}).generator.model == "explicit"  # type: ignore[union-attr]


def test_missing_files_are_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml", env={})
    with pytest.raises(ConfigError, match=r"\$QCSTATION_CONFIG points to .*nope2.toml"):
        load_config(env={"QCSTATION_CONFIG": str(tmp_path / "nope2.toml")})
    # lane attack7: a folder or a device was said not to exist
    with pytest.raises(ConfigError, match="which is a folder, not a configuration file"):
        load_config(env={"QCSTATION_CONFIG": str(tmp_path)})
    with pytest.raises(ConfigError, match="/dev/null is not a regular file"):
        load_config("/dev/null", env={})


@pytest.mark.parametrize("value", ["1e999", "-5", "0", "nan", "9" * 5000, "soon", "3601"])
def test_a_busy_timeout_out_of_bounds_is_an_error_before_the_command(tmp_path: Path, value: str) -> None:
    """Lane attack7: $QCSTATION_BUSY_TIMEOUT out of 0.1..3600 (or not a number) was ignored
    silently, the default taken."""
    import os
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(tmp_path / "x.db"), "status"],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "QCSTATION_BUSY_TIMEOUT": value})
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.startswith("qcstation: error: $QCSTATION_BUSY_TIMEOUT must be seconds from 0.1 to 3600")
    assert len(p.stderr) < 200 and not (tmp_path / "x.db").exists()


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    p = write(tmp_path, "[generator\nmodel = 1\n")
    with pytest.raises(ConfigError) as ei:
        load_config(p, env={})
    assert str(p) in str(ei.value) and "not valid TOML" in str(ei.value)


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ('[generator]\nmodel = "m"\ntemprature = 0.1\n', ["[generator] temprature", "unknown key"]),
        ('[generator]\nmodel = "m"\ntemperature = "hot"\n', ["[generator] temperature", "must be a number", "string"]),
        ('[generator]\nmodel = "m"\ntemperature = 3.0\n', ["[generator] temperature", "must be in [0, 2]", "3.0"]),
        ('[generator]\nmodel = "m"\nmax_tokens = 1.5\n', ["[generator] max_tokens", "must be an integer"]),
        ('[generator]\nmodel = "m"\nconcurrency = 0\n', ["[generator] concurrency", "must be in [1"]),
        ('[generator]\nmodel = "m"\nretries = true\n', ["[generator] retries", "must be an integer", "boolean"]),
        ('[generator]\nmodel = "m"\ntimeout_s = 0\n', ["[generator] timeout_s", "(0, 3600]"]),
        ('[generator]\ntemperature = 0.0\n', ["[generator] model", "missing"]),
        ('[generator]\nmodel = ""\n', ["[generator] model", "must not be empty"]),
        ('[generator]\nmodel = "m"\nbase_url = "localhost:8000"\n', ["[generator] base_url", "http(s) URL"]),
        ('[generator]\nmodel = "m"\nbase_url = "http://u:pw@h/v1"\n', ["[generator] base_url", "credentials"]),
        ('[generator]\nmodel = "m"\nbackoff_s = 5\nmax_backoff_s = 1\n', ["max_backoff_s", ">= backoff_s"]),
        ('[[judges]]\nmodel = "a"\n[[judges]]\nmodel = "a"\n', ["[judges] name", "duplicate"]),
        ('[judges]\nmodel = "a"\n', ["[judges]", "[[judges]]"]),
        ('[[judges]]\nmodel = "a"\nmax_tokens = -1\n', ["[judges #1] max_tokens"]),
        ('[models.x]\nmodel = "a"\nprice_in_per_mtok = -1\n', ["[models.x] price_in_per_mtok", "must be in [0, 1000000]"]),
        # (issue 30.2: a price, a seed or a sample size past any use is refused, not summed into an overflow)
        ('[models.x]\nmodel = "a"\nprice_out_per_mtok = 1e308\n', ["[models.x] price_out_per_mtok", "[0, 1000000]"]),
        ('[generation]\nrng_seed = 100000000000000000000000\n', ["[generation] rng_seed", "must be in"]),
        ('[qc]\nrng_seed = 9223372036854775808\n', ["[qc] rng_seed", "9223372036854775807"]),
        ('[qc]\nmin_sample = 100000000000000000000000\n', ["[qc] min_sample", "[0, 1000000000]"]),
        ('[models]\nx = "gpt"\n', ["[models] x", "must be a table"]),
        ('[generation]\nerrors_per_cot = 7\n', ["[generation] errors_per_cot", "[1, 6]"]),
        ('[generation]\nerrors_per_cot = 0\n', ["[generation] errors_per_cot"]),
        ('[generation]\nrephrase_notation = "yes"\n', ["[generation] rephrase_notation", "true or false"]),
        ('[verify]\nworkers = 0\n', ["[verify] workers"]),
        ('[verify]\nmemory_mb = 1\n', ["[verify] memory_mb"]),
        ('[qc]\nsample_rate = 0\n', ["[qc] sample_rate", "(0, 1]"]),
        ('[qc]\nsample_rate = 1.5\n', ["[qc] sample_rate"]),
        ('[qc]\nconfidence = 1.0\n', ["[qc] confidence", "(0, 1)"]),
        ('[qc]\ndefect_threshold = 1\n', ["[qc] defect_threshold"]),
        ('[qc]\ncurators = "alice"\n', ["[qc] curators", "array of strings"]),
        ('[qc]\ncurators = ["a", "a"]\n', ["[qc] curators", "duplicate"]),
        ('[qc]\ncurators = ["Alice", "alice"]\n', ["[qc] curators", "case-insensitively"]),
        ('[qc]\ndimensions = ["algebra"]\n', ["[qc] dimensions", "'algebra'"]),
        ('[qc]\ndimensions = []\n', ["[qc] dimensions", "at least one"]),
        ('[qcc]\nsample_rate = 0.1\n', ["qcc", "unknown section"]),
        ('generation = 3\n', ["[generation]", "must be a table"]),
    ],
)
def test_validation_errors_name_file_and_key(tmp_path: Path, text: str, fragments: list[str]) -> None:
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as ei:
        load_config(p, env={})
    msg = str(ei.value)
    assert msg.startswith(str(p)), msg
    for f in fragments:
        assert f in msg, (f, msg)


@pytest.mark.parametrize("where", ["[generator]\nmodel = \"m\"\n", "[models.x]\nmodel = \"m\"\n",
                                   "[[judges]]\nmodel = \"m\"\n", ""])
def test_literal_api_key_is_refused(tmp_path: Path, where: str) -> None:
    secret = "sk-proj-THISISASECRET123"
    p = write(tmp_path, f'{where}api_key = "{secret}"\n')
    with pytest.raises(ConfigError) as ei:
        load_config(p, env={})
    msg = str(ei.value)
    assert "api_key" in msg and "environment variable" in msg and "api_key_env" in msg
    assert secret not in msg


def test_key_pasted_into_api_key_env_is_refused_without_echo(tmp_path: Path) -> None:
    secret = "sk-proj-abc-DEF-123"
    p = write(tmp_path, f'[generator]\nmodel = "m"\napi_key_env = "{secret}"\n')
    with pytest.raises(ConfigError) as ei:
        load_config(p, env={})
    assert "api_key_env" in str(ei.value) and "NAME" in str(ei.value)
    assert secret not in str(ei.value)


def test_api_key_read_from_env_only() -> None:
    m = ModelConfig(model="m", api_key_env="QC_TEST_KEY")
    assert m.api_key({}) is None
    assert m.api_key({"QC_TEST_KEY": "sk-abc"}) == "sk-abc"
    assert "sk-abc" not in repr(m)
    assert "sk-abc" not in json.dumps(dataclasses.asdict(m))


def test_api_key_default_reads_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QC_TEST_KEY2", "sk-from-os")
    assert ModelConfig(model="m", api_key_env="QC_TEST_KEY2").api_key() == "sk-from-os"
    monkeypatch.setenv("QC_TEST_KEY2", "")
    assert ModelConfig(model="m", api_key_env="QC_TEST_KEY2").api_key() is None


def test_env_model_alone_creates_generator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = load_config(env={"QCSTATION_MODEL": "llama3", "QCSTATION_BASE_URL": "http://127.0.0.1:8080/v1"})
    assert cfg.generator is not None
    assert (cfg.generator.model, cfg.generator.name, cfg.generator.base_url) == (
        "llama3", "llama3", "http://127.0.0.1:8080/v1")
    assert cfg.generator.temperature == 0.0 and cfg.generator.retries == 4


def test_env_overrides_file_values(tmp_path: Path) -> None:
    p = write(tmp_path, FULL)
    env = {
        "QCSTATION_MODEL": "other", "QCSTATION_BASE_URL": "https://example.org/v1",
        "QCSTATION_API_KEY_ENV": "OTHER_KEY", "QCSTATION_TEMPERATURE": "0.7",
        "QCSTATION_MAX_TOKENS": "99", "QCSTATION_CONCURRENCY": "2", "QCSTATION_TIMEOUT": "1.5",
        "QCSTATION_RETRIES": "0", "QCSTATION_CURATORS": " carol, dave ,,",
    }
    cfg = load_config(p, env=env)
    g = cfg.generator
    assert g is not None
    assert (g.model, g.name, g.base_url, g.api_key_env) == ("other", "other", "https://example.org/v1", "OTHER_KEY")
    assert (g.temperature, g.max_tokens, g.concurrency, g.timeout_s, g.retries) == (0.7, 99, 2, 1.5, 0)
    assert g.price_in_per_mtok == 0.15     # untouched by env
    # curator rights are not for the environment to grant (identity.py): the file's list stays
    assert cfg.qc.curators == ["alice", "bob"]
    assert cfg.judges[0].temperature == 0.0  # env overrides apply to the generator only


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"QCSTATION_MODEL": "m", "QCSTATION_TEMPERATURE": "warm"}, "QCSTATION_TEMPERATURE: must be a number"),
        ({"QCSTATION_MODEL": "m", "QCSTATION_TEMPERATURE": "9"}, "QCSTATION_TEMPERATURE: must be in [0, 2]"),
        ({"QCSTATION_MODEL": "m", "QCSTATION_MAX_TOKENS": "1.5"}, "QCSTATION_MAX_TOKENS: must be an integer"),
        ({"QCSTATION_MODEL": "m", "QCSTATION_CONCURRENCY": "0"}, "QCSTATION_CONCURRENCY"),
        ({"QCSTATION_MODEL": "m", "QCSTATION_TIMEOUT": "nan"}, "QCSTATION_TIMEOUT"),
        ({"QCSTATION_MODEL": "m", "QCSTATION_BASE_URL": "ftp://x"}, "QCSTATION_BASE_URL"),
        ({"QCSTATION_MODEL": "m", "QCSTATION_API_KEY_ENV": "sk-secret-value"}, "QCSTATION_API_KEY_ENV"),
        ({"QCSTATION_TEMPERATURE": "0.5"}, "no generator model is configured"),
    ],
)
def test_env_validation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                        fragment: str) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as ei:
        load_config(env=env)
    assert fragment in str(ei.value)
    assert "sk-secret-value" not in str(ei.value)


def test_fingerprint_is_json_safe_and_secret_free() -> None:
    m = ModelConfig(model="gpt-x", base_url="http://h:1/v1", api_key_env="SECRET_VAR_NAME",
                    temperature=0.5, max_tokens=10)
    fp = config_fingerprint(m)
    text = json.dumps(fp)
    assert "SECRET_VAR_NAME" not in text
    assert fp["model"] == "gpt-x" and fp["base_url"] == "http://h:1/v1" and fp["temperature"] == 0.5
    same = config_fingerprint(ModelConfig(model="gpt-x", base_url="http://h:1/v1", temperature=0.5,
                                          max_tokens=10, name="label"))
    assert same["sha256"] == fp["sha256"]            # label and key variable don't matter
    other = config_fingerprint(ModelConfig(model="gpt-x", base_url="http://h:1/v1", temperature=0.6,
                                           max_tokens=10))
    assert other["sha256"] != fp["sha256"]
    assert config_fingerprint(ModelConfig(model="m"))["base_url"] == "https://api.openai.com/v1"


def test_config_default_instances_are_independent() -> None:
    a, b = Config(), Config()
    a.qc.curators.append("x")
    assert b.qc.curators == []


def test_eval_section_and_several_base_urls() -> None:
    from qcstation.common.config import parse_config
    from qcstation.common.errors import ConfigError

    cfg = parse_config({"eval": {"shots": 5, "templates_dir": "t"},
                        "models": {"m": {"model": "x", "base_urls": ["http://a:1/v1/", "http://b:2/v1"]}}})
    assert cfg.eval.shots == 5 and cfg.eval.templates_dir == "t"
    assert cfg.models["m"].endpoints == ["http://a:1/v1", "http://b:2/v1"]
    cases: list[tuple[list[str], str]] = [
        (["ftp://a/v1"], "must be an http"), (["http://u:p@a/v1"], "credentials"),
        (["http://a/v1", "http://a/v1/"], "duplicate")]
    for bad, msg in cases:
        with pytest.raises(ConfigError, match=msg):
            parse_config({"models": {"m": {"model": "x", "base_urls": bad}}})
    with pytest.raises(ConfigError, match="shots"):
        parse_config({"eval": {"shots": 99}})


# -- [models.NAME] backend = "vllm" (in-process) ------------------------------------------

VLLM_MODEL = """
[models.local]
model = "Qwen/Qwen2.5-0.5B-Instruct"
backend = "vllm"
batch_size = 64
max_tokens = 256
vllm_args = { tensor_parallel_size = 2, gpu_memory_utilization = 0.8, max_model_len = 4096, dtype = "bfloat16", enforce_eager = true, hf_overrides = { rope_scaling = { factor = 2.0 } } }
"""


def test_vllm_model_table_is_loaded(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, VLLM_MODEL), env={})
    m = cfg.model("local")
    assert (m.backend, m.batch_size, m.max_tokens) == ("vllm", 64, 256)
    assert m.vllm_args == {"tensor_parallel_size": 2, "gpu_memory_utilization": 0.8,
                           "max_model_len": 4096, "dtype": "bfloat16", "enforce_eager": True,
                           "hf_overrides": {"rope_scaling": {"factor": 2.0}}}
    assert isinstance(m.vllm_args["gpu_memory_utilization"], float)
    json.dumps(config_to_dict(cfg))
    fp = config_fingerprint(m)
    assert fp["backend"] == "vllm" and fp["base_url"] is None
    assert fp["vllm_args"]["tensor_parallel_size"] == 2
    # engine args decide results: they change the fingerprint; the batch size does not
    other = dataclasses.replace(m, vllm_args={**m.vllm_args, "max_model_len": 2048})
    assert config_fingerprint(other)["sha256"] != fp["sha256"]
    assert config_fingerprint(dataclasses.replace(m, batch_size=1))["sha256"] == fp["sha256"]


def test_openai_models_keep_their_fingerprint_and_defaults(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, '[models.x]\nmodel = "m"\nbackend = "openai"\n'), env={})
    m = cfg.model("x")
    assert (m.backend, m.vllm_args) == ("openai", {})
    fp = config_fingerprint(m)
    assert "backend" not in fp and "vllm_args" not in fp
    assert fp["sha256"] == config_fingerprint(ModelConfig(model="m"))["sha256"]


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ('[models.x]\nmodel = "m"\nbackend = "vlm"\n', ["[models.x] backend", "'vlm'", "openai, vllm"]),
        ('[models.x]\nmodel = "m"\nbackend = 1\n', ["[models.x] backend", "must be a string"]),
        ('[generator]\nmodel = "m"\nbackend = "vllm"\n', ["[generator] backend", "[models.NAME]"]),
        ('[[judges]]\nmodel = "m"\nbackend = "vllm"\n', ["[judges #1] backend", "vllm serve"]),
        ('[models.x]\nmodel = "m"\nvllm_args = { seed = 1 }\n', ["[models.x] vllm_args", 'backend = "vllm"']),
        ('[models.x]\nmodel = "m"\nbatch_size = 8\n', ["[models.x] batch_size", 'backend = "vllm"']),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nbase_url = "http://h/v1"\n',
         ["[models.x] base_url", "no server"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nbatch_size = 0\n', ["[models.x] batch_size", "[1, 100000]"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = 3\n', ["[models.x] vllm_args", "must be a table"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { tensor_parallel_size = 0 }\n',
         ["[models.x] vllm_args.tensor_parallel_size", "[1, 1024]"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { tensor_parallel_size = "2" }\n',
         ["vllm_args.tensor_parallel_size", "must be an integer"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { gpu_memory_utilization = 1.5 }\n',
         ["vllm_args.gpu_memory_utilization", "(0, 1]"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { enforce_eager = "yes" }\n',
         ["vllm_args.enforce_eager", "true or false"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { dtype = "fp7" }\n',
         ["vllm_args.dtype", "'fp7'", "bfloat16"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { model = "other" }\n',
         ["vllm_args.model", 'model = "..."']),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { "Tensor-Parallel" = 2 }\n',
         ["[models.x] vllm_args", "'Tensor-Parallel'", "snake_case"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { max_loras = nan }\n',
         ["vllm_args.max_loras", "finite"]),
        ('[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = { a = { b = { c = { d = { e = { f = 1 } } } } } }\n',
         ["vllm_args.a.b.c.d.e", "deeper than 4"]),
    ],
)
def test_vllm_backend_validation(tmp_path: Path, text: str, fragments: list[str]) -> None:
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as ei:
        load_config(p, env={})
    msg = str(ei.value)
    assert msg.startswith(str(p)), msg
    for f in fragments:
        assert f in msg, (f, msg)


@pytest.mark.parametrize("key", ["hf_token", "api_key", "token"])
def test_secrets_in_vllm_args_are_refused_without_echo(tmp_path: Path, key: str) -> None:
    p = write(tmp_path, f'[models.x]\nmodel = "m"\nbackend = "vllm"\nvllm_args = {{ {key} = "hf_secretvalue" }}\n')
    with pytest.raises(ConfigError) as ei:
        load_config(p, env={})
    assert f"vllm_args.{key}" in str(ei.value) and "HF_TOKEN" in str(ei.value)
    assert "hf_secretvalue" not in str(ei.value)


@pytest.mark.parametrize("url", [
    "http://[::1:1/v1",                  # an unclosed IPv6 bracket: urlsplit raised ValueError
    "http://127.0.0.1:99999/v1",         # a port past 65535: taken, failed at the first request
    "http://127.0.0.1:8000/v1\r\nX: y",  # urlsplit drops CR LF; the URL sent kept them
    "http://127.0.0.1:8000/v\x1b[2J1",
    "http://127.0.0.1:8000/" + "v" * 5000,
], ids=["ipv6-bracket", "port", "crlf", "esc", "5000-chars"])
def test_a_hostile_url_is_a_config_error(tmp_path: Path, url: str) -> None:
    """Found attacking (lane attack6): the first ended `qcstation config` in a traceback, the
    others were taken as a model's server."""
    p = tmp_path / "q.toml"
    p.write_text(f"[models.m]\nmodel = \"m\"\nbase_url = {json.dumps(url)}\n")
    with pytest.raises(ConfigError, match=r"\[models.m\] base_url: must be an http\(s\) URL"):
        load_config(p, env={})
    with pytest.raises(ConfigError, match="QCSTATION_BASE_URL"):
        load_config(None, env={"QCSTATION_MODEL": "m", "QCSTATION_BASE_URL": url})


@pytest.mark.parametrize("text", ["a = " + "[" * 5000 + "]" * 5000,
                                  "a = " + "{b = " * 5000 + "}" * 5000], ids=["arrays", "tables"])
def test_deeply_nested_toml_is_a_config_error(tmp_path: Path, text: str) -> None:
    """tomllib recurses once per level: 5,000 levels ended in RecursionError (a traceback)."""
    p = tmp_path / "q.toml"
    p.write_text(text)
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(p, env={})


def test_a_config_file_past_the_bound_is_refused_unread(tmp_path: Path) -> None:
    p = tmp_path / "q.toml"
    p.write_bytes(b"# " + b"x" * (1 << 20) + b"\n")
    with pytest.raises(ConfigError, match="larger than 1,048,576 bytes"):
        load_config(p, env={})


@pytest.mark.parametrize("name", ["OPENAI_API_KEY\n", "K" * 129, "1KEY", "A=B", "KEY "])
def test_api_key_env_is_checked_as_the_command_option_checks_it(tmp_path: Path, name: str) -> None:
    """One definition of an environment variable's name: the configuration refuses what
    ``--api-key-env`` refuses (a trailing newline, a name over 128 characters)."""
    import argparse

    from qcstation.commands._common import env_name

    with pytest.raises(argparse.ArgumentTypeError):
        env_name(name)
    p = write(tmp_path, f'[generator]\nmodel = "m"\napi_key_env = {json.dumps(name)}\n')
    with pytest.raises(ConfigError) as ei:
        load_config(p, env={})
    assert "api_key_env" in str(ei.value)
    good = "K" * 128
    assert env_name(good) == good
    p = write(tmp_path, f'[generator]\nmodel = "m"\napi_key_env = "{good}"\n')
    assert must(load_config(p, env={}).generator).api_key_env == good
