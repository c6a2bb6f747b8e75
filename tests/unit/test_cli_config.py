from __future__ import annotations

import json
from pathlib import Path

import pytest

from qcstation.cli import main
from tests.fake_openai import FakeOpenAI


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
