"""A request's messages serialised for its prompt hash and its HTTP body (runs._compact's
direct path for role-and-text messages) are byte for byte what json.dumps writes: the
prompt hash, and so the response cache and the stored outputs, do not change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qcstation.eval.runs import _compact

TEXTS = ["", "plain", 'quote " and back\\slash', "tab\tnew\nline\r\x00\x1f\x7f", "é ü 中文 ∑ 😀",
         "lone \ud800 surrogate \udfff", "\u2028\u2029", "</script>", "a" * 5000]


def test_a_message_is_written_as_json_dumps_writes_it() -> None:
    for text in TEXTS:
        for role in ("user", "system", "assistant", "r\u00f4le\n"):
            msg = {"role": role, "content": text}
            want = json.dumps(msg, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            assert _compact(msg) == want
            assert _compact({"content": text, "role": role}) == want     # key order given
            assert json.loads(_compact(msg)) == msg


def test_other_messages_take_json_dumps() -> None:
    for msg in ({"role": "user", "content": ["part"]}, {"role": "user"},
                {"role": "user", "content": "x", "name": "n"}, {"role": 1, "content": "x"}):
        assert _compact(msg) == json.dumps(msg, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def test_every_request_of_a_run_hashes_as_its_messages(tmp_path: Path,
                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every task's requests (exemplars, two samples): the hash is tasks.prompt_hash of the
    messages, and the JSON the body sends is those messages."""
    from db import Store
    from qcstation.eval import tasks as T
    from qcstation.eval.outputs import pending_requests
    from qcstation.eval.runs import create_run
    from qcstation.eval.types import TASKS
    from tests.eval_helpers import config, copy_db, local_model, quickstart_db

    db = copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")
    cfg = config(models={"m": local_model("http://127.0.0.1:9/v1")})
    with Store(db) as s:
        run_id = create_run(s, cfg, model="m", tasks=list(TASKS), shots=2, limit=8, samples=2,
                            temperature=0.5)
        reqs = list(pending_requests(s, run_id))
    assert {r.task for r in reqs} == set(TASKS)
    for req in reqs:
        assert req.prompt_hash == T.prompt_hash(req.messages)
        assert json.loads(req.messages_json or "") == list(req.messages)
