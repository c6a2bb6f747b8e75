from __future__ import annotations

import json
from pathlib import Path

import pytest

from qcstation.cli import main
from tests.fake_openai import FakeOpenAI
from tests.must import must


def test_offline_defaults(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    assert "offline defaults" in out and "exact rules only" in out


def test_check_against_a_live_and_a_dead_server_never_prints_the_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret-123456")
    with FakeOpenAI(model="fake-model") as server:
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'[generator]\nmodel = "fake-model"\nbase_url = "{server.base_url}"\n'
                       f'api_key_env = "MY_KEY"\n[models.dead]\nmodel = "x"\n'
                       f'base_url = "http://127.0.0.1:9/v1"\ntimeout_s = 2\n')
        code = main(["--config", str(cfg), "config", "--check", "--json"])
    out = capsys.readouterr().out
    data = json.loads(out)
    assert code == 1
    assert data["checks"]["generator"]["ok"] is True
    assert data["checks"]["model dead"]["ok"] is False and "cannot reach" in data["checks"]["model dead"]["message"]
    assert data["api_keys"]["generator"] == {"variable": "MY_KEY", "set": True}
    assert "sk-secret-123456" not in out


def test_vllm_models_are_shown_and_checked_without_loading_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from tests.fake_vllm_fixture import FAKE_VLLM_PATH

    cfg = tmp_path / "c.toml"
    cfg.write_text('[models.gpu]\nmodel = "Qwen/Qwen2.5-0.5B-Instruct"\nbackend = "vllm"\n'
                   'vllm_args = { max_model_len = 2048 }\n', encoding="utf-8")
    monkeypatch.setitem(sys.modules, "vllm", None)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(FAKE_VLLM_PATH)])
    assert main(["--config", str(cfg), "config", "--check"]) == 1
    out = capsys.readouterr().out
    assert "model gpu: Qwen/Qwen2.5-0.5B-Instruct on in-process vLLM (engine args: max_model_len=2048" in out
    assert "check: FAILED — vLLM is not installed" in out and "pip install '.[gpu]'" in out
    monkeypatch.delitem(sys.modules, "vllm")
    monkeypatch.syspath_prepend(str(FAKE_VLLM_PATH))
    assert main(["--config", str(cfg), "config", "--check", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["checks"]["model gpu"] == {"ok": True, "endpoint": "in-process vLLM",
                                           "message": "vLLM is installed (the model loads when a run starts)"}
    assert data["models"]["gpu"]["backend"] == "vllm"
    assert "vllm" not in sys.modules                     # checked, not imported


def test_check_is_ok_for_a_keyless_local_server_without_a_models_route(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31.11: the example file's [generator] names OPENAI_API_KEY; pointed at a local
    server that needs no key (and lists no model), generation works, so the check says ok."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAI(model="local-7b") as server:
        server.models_status = 404
        server.models_message = "no route /v1/models"
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'[generator]\nmodel = "some/local-model.gguf"\nbase_url = "{server.base_url}"\n'
                       f'api_key_env = "OPENAI_API_KEY"\n', encoding="utf-8")
        code = main(["--config", str(cfg), "config", "--check"])
        out = capsys.readouterr().out
        assert code == 0, out
        assert "check: ok — answers chat requests for some/local-model.gguf" in out
        assert "its /models failed: 404" in out
        assert "$OPENAI_API_KEY is not set; the server answered without a key" in out
        assert len(server.chat_requests) == 1
        assert must(server.chat_requests[0].body)["max_tokens"] == 1
        # a server that refuses requests without the key: FAILED, saying so
        server.models_status = 401
        server.models_message = "invalid api key"
        server.status(401)
        code = main(["--config", str(cfg), "config", "--check"])
        out = capsys.readouterr().out
        assert code == 1 and "check: FAILED" in out and "a chat request for" in out and "401" in out


def test_a_model_with_only_base_urls_shows_and_checks_the_servers_a_run_asks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``base_urls`` without ``base_url``: ``config`` names those servers (never the OpenAI
    API's default URL) and ``--check`` asks each of them."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAI(model="fake-model") as a, FakeOpenAI(model="fake-model") as b:
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'[models.two]\nmodel = "fake-model"\n'
                       f'base_urls = ["{a.base_url}", "{b.base_url}"]\n'
                       f'[models.one]\nmodel = "fake-model"\nbase_urls = ["{a.base_url}"]\n'
                       f'[models.half]\nmodel = "fake-model"\ntimeout_s = 2\n'
                       f'base_urls = ["{a.base_url}", "http://127.0.0.1:9/v1"]\n', encoding="utf-8")
        code = main(["--config", str(cfg), "config", "--check"])
        out = capsys.readouterr().out
        assert code == 1, out        # one server of "half" cannot be reached
        assert "api.openai.com" not in out, out
        assert f"model two: fake-model at 2 servers ({a.base_url}, {b.base_url};" in out
        assert f"model one: fake-model at {a.base_url} (" in out
        assert main(["--config", str(cfg), "config", "--check", "--json"]) == 1
        data = json.loads(capsys.readouterr().out)
        a_url, b_url = a.base_url, b.base_url
    assert data["servers"]["model two"] == [a_url, b_url]
    assert data["servers"]["model one"] == [a_url]
    assert data["checks"]["model two"]["ok"] is True and data["checks"]["model one"]["ok"] is True
    half = data["checks"]["model half"]
    assert half["ok"] is False and f"{a_url}: ok" in half["message"]
    assert "http://127.0.0.1:9/v1: FAILED — " in half["message"] and "cannot reach" in half["message"]


@pytest.mark.parametrize("section", ["[generator]", "[[judges]]"])
def test_base_urls_on_a_model_that_asks_one_server_is_refused(tmp_path: Path, section: str) -> None:
    """The generator and the judges ask one server: a ``base_urls`` list there was left
    unused and their requests went to the OpenAI API; it is refused by name."""
    from qcstation.common.config import load_config
    from qcstation.common.errors import ConfigError

    cfg = tmp_path / "c.toml"
    cfg.write_text(f'{section}\nmodel = "m"\nbase_urls = ["http://127.0.0.1:8000/v1"]\n',
                   encoding="utf-8")
    with pytest.raises(ConfigError) as ei:
        load_config(cfg, env={})
    assert "base_urls" in str(ei.value) and "set base_url" in str(ei.value)


@pytest.mark.parametrize("argv", [["status"], ["qc", "status"]])
def test_a_broken_configuration_is_said_before_a_missing_database(
        tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "qcstation.toml"           # to be fixed whatever the database: said first
    cfg.write_text('[generator]\nmodel = "m"\ntemprature = 0.1\n', encoding="utf-8")
    missing = tmp_path / "typo" / "qc.db"
    assert main(["--db", str(missing), "--config", str(cfg), *argv]) == 2
    err = capsys.readouterr().err
    assert "[generator] temprature: unknown key" in err and "no database at" not in err
    assert not missing.parent.exists()
