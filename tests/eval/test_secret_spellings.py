"""Issue 30.3, found by lane attack7: a key a server spells another way (base64, hex,
percent-encoded, \\u escapes, HTML references, reversed, split in halves over two fields)
was stored and shown as it came; the scrubber matched the key's own characters only.
Against the loopback OpenAI-protocol server of the tests, a real SQLite file, the real CLI."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.common import redact
from qcstation.common.http_retry import excerpt, load_json_reply
from qcstation.core.construct.make.llm import LLMClient
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import create_run
from tests.eval_helpers import config, copy_db, local_model, quickstart_db
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401

pytest.importorskip("qcstation.eval.checker")

KEY = "sk-spell-SECRET-7c6b5a4f3e2d1c0b9a"
HALF = len(KEY) // 2


def spellings(key: str) -> dict[str, str]:
    """The key as a hostile server may echo it, each spelling a text of its own."""
    raw = key.encode()
    return {
        "base64": base64.b64encode(raw).decode(),
        "base64 of 'Bearer <key>'": base64.b64encode(b"Bearer " + raw).decode(),
        "URL-safe base64 after 2 bytes": base64.urlsafe_b64encode(b"k=" + raw).decode(),
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "percent-encoded": "".join(f"%{b:02X}" for b in raw),
        "percent-encoded, lower case": "".join(f"%{b:02x}" for b in raw),
        "\\u escapes in a text": "".join(f"\\u{ord(c):04x}" for c in key),
        "HTML references": "".join(f"&#{ord(c)};" for c in key),
        "HTML hex references": "".join(f"&#x{ord(c):x};" for c in key),
        "reversed": key[::-1],
        "halves swapped": key[HALF:] + " / " + key[:HALF],
        "each half reversed": key[:HALF][::-1] + key[HALF:][::-1],
    }


def leaks(text: str, key: str = KEY) -> list[str]:
    """The spellings of ``key`` (or a half of it, as it is or reversed) ``text`` holds."""
    found = [name for name, s in spellings(key).items() if s in text]
    for part in (key[:HALF], key[HALF:], key[:HALF][::-1], key[HALF:][::-1]):
        if part in text:
            found.append(f"a half: {part}")
    return found


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def test_a_key_spelled_another_way_is_scrubbed_in_any_text() -> None:
    redact.register(KEY)
    for name, s in spellings(KEY).items():
        for text in (f"x {s} y", s, f"token={s}&x=1", f'{{"auth": "{s}"}}'):
            assert not leaks(redact.scrub(text)), (name, redact.scrub(text))
            raw = json.dumps({"m": text}).encode()
            assert redact.may_hold(raw), (name, raw)
            assert not leaks(json.dumps(load_json_reply(raw))), name
    # the halves in two fields of one reply
    body = load_json_reply(json.dumps({"model": KEY[:HALF], "finish_reason": KEY[HALF:]}).encode())
    assert body == {"model": redact.MARK, "finish_reason": redact.MARK}, body
    # an excerpt cut in the middle of a long spelling keeps no half of the key
    cut = excerpt("e" * 250 + spellings(KEY)["\\u escapes in a text"], 300)
    assert not leaks(cut.encode().decode("unicode_escape")), cut
    # ordinary text, a short piece of the key, another key of the same shape: left alone
    other = "sk-spell-PUBLIC-f0e1d2c3b4a5968778"  # shares no half of any key a test registers
    for text in ("The answer is 18.", "50% of 24 is 12", "&#60; is <", KEY[:7], other,
                 base64.b64encode(other.encode()).decode(), "\\u0041\\u0042"):
        assert redact.scrub(text) == text, text
    assert not redact.may_hold(b'{"choices": [{"message": {"content": "The answer is 18."}}]}')


def test_a_key_spelled_another_way_in_every_reply_field_is_stored_and_printed_nowhere(
        qs_db: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QC_SPELL_KEY", KEY)
    sp = list(spellings(KEY).values())
    fake_openai.hostile(text="18 " + " | ".join(sp), finish_reason=sp[0], model=sp[5],
                        usage={"prompt_tokens": sp[3], "completion_tokens": sp[10]},
                        extra={"system_fingerprint": sp[7]})
    cfg = config({"m": local_model(fake_openai.base_url, api_key_env="QC_SPELL_KEY", retries=0)})
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=3)
    execute_run(qs_db, run_id, cfg)                                   # the evaluation backend
    client = LLMClient(cfg.models["m"], qs_db, purpose="eval-judge")   # the judge / generator client
    res = client.chat_sync([{"role": "user", "content": "judge"}])
    assert not leaks(f"{res.text} {res.model} {res.finish_reason}"), res
    fake_openai.body({"error": {"message": " ".join(sp)}}, status=400)
    with pytest.raises(Exception) as info:
        client.chat_sync([{"role": "user", "content": "error"}], use_cache=False)
    assert not leaks(str(info.value)), str(info.value)
    cfg_file = tmp_path / "qcstation.toml"
    cfg_file.write_text(f'[models.m]\nmodel = "fake-model"\nbase_url = "{fake_openai.base_url}"\n'
                        'api_key_env = "QC_SPELL_KEY"\n')
    shown = ""
    for args in (["eval", "show", str(run_id)], ["eval", "breakdown", str(run_id)]):
        proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(qs_db), "--config",
                               str(cfg_file), *args], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "QC_SPELL_KEY": KEY})
        shown += proc.stdout + proc.stderr
    assert not leaks(shown), leaks(shown)
    with Store(qs_db) as s:
        stored = s.query("SELECT response, error, finish_reason FROM eval_outputs WHERE run_id = ?", (run_id,))
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert len(stored) == 3 and redact.MARK in json.dumps(stored)
    data = qs_db.read_bytes().decode("latin-1")
    assert not leaks(data), leaks(data)
