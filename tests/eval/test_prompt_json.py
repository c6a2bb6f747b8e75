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


def test_the_body_sends_the_messages_of_the_request_it_is_given(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The HTTP body reuses the prompt's JSON the run built (no second serialisation, no
    second hash); a request rebuilt with other messages (dataclasses.replace, as the two-step
    protocol's second step is) carries none, and its body sends its own messages."""
    import dataclasses

    from db import Store
    from qcstation.eval import tasks as T
    from qcstation.eval.backends.openai_compat import OpenAIBackend
    from qcstation.eval.outputs import pending_requests
    from qcstation.eval.runs import create_run
    from tests.eval_helpers import config, copy_db, local_model, quickstart_db

    db = copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")
    cfg = config(models={"m": local_model("http://127.0.0.1:9/v1")})
    with Store(db) as s:
        run_id = create_run(s, cfg, model="m", tasks=["final", "refinement"], shots=1, limit=4,
                            samples=2, temperature=0.5)
        reqs = list(pending_requests(s, run_id))
    backend = OpenAIBackend(cfg.model("m"))
    for req in reqs:
        assert req.messages_json is not None
        body = json.loads(backend._body(req))
        assert body["messages"] == list(req.messages) and body["seed"] == req.sample_idx
        messages = (*req.messages, {"role": "assistant", "content": "x"}, {"role": "user", "content": "y"})
        second = dataclasses.replace(req, messages=messages, prompt_hash=T.prompt_hash(messages))
        assert second.messages_json is None
        assert json.loads(backend._body(second))["messages"] == list(messages)
        same = dataclasses.replace(req, sample_idx=req.sample_idx + 1)   # no blob: rebuilt
        assert same.messages_json is None and json.loads(backend._body(same)) == {
            **body, "seed": req.sample_idx + 1}


class _Reading(dict[str, object]):
    """A record that notes every key read from it."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.read: set[str] = set()

    def get(self, key: str, default: object = None) -> object:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> object:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)


def test_each_placeholder_reads_only_the_fields_it_names(tmp_path_factory: pytest.TempPathFactory) -> None:
    """tasks.PLACEHOLDER_FIELDS says which fields of a record each placeholder's value reads
    (what the runner reads of each item): every value function reads no other, on items
    with and without key information, notation working or error lists."""
    from db import Store
    from qcstation.eval import tasks as T
    from tests.eval_helpers import quickstart_db

    db = quickstart_db(tmp_path_factory.getbasetemp())
    with Store(db) as s:
        records = [json.loads(r[0]) for r in s.conn.execute("SELECT record FROM eval_items LIMIT 40")] \
            if s.scalar("SELECT COUNT(*) FROM eval_items") else []
    from qcstation.eval.runs import _records_for
    with Store(db) as s:
        records += _records_for(s, None)[0][:40]
    records += [{}, {"notation": "Let a = 2 and b = a × 3. Compute answer = b + 1.", "gt_cot": "x\n#### 7",
                 "errors": [{"type": "omitted step"}], "wrong": ["redundancy"], "background": "b"}]
    assert set(T.PLACEHOLDER_FIELDS) == set(T._VALUES)
    for rec in records:
        for name, value in T._VALUES.items():
            reading = _Reading(rec)
            value(reading)
            assert reading.read <= set(T.PLACEHOLDER_FIELDS[name]), (name, reading.read)


def test_requests_built_from_the_fields_they_read_are_those_from_whole_records(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """pending_requests reads each item's record cut to ctx.request_fields() (SQLite's JSON
    functions): every request of every task (exemplars, two samples; the reference backend's
    answers too) is the one built from the whole record; a record SQLite cannot read (NaN) is
    read whole."""
    from db import Store
    from qcstation.eval import tasks as T
    from qcstation.eval.outputs import pending_requests, unready_outputs
    from qcstation.eval.runs import RunContext, create_run
    from qcstation.eval.types import TASKS
    from tests.eval_helpers import config, copy_db, local_model, quickstart_db

    db = copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")
    cfg = config(models={"m": local_model("http://127.0.0.1:9/v1")})
    with Store(db) as s:
        runs = [create_run(s, cfg, model="m", tasks=list(TASKS), shots=2, limit=12, samples=2,
                           temperature=0.5),
                create_run(s, cfg, model="reference", tasks=list(TASKS), shots=1, limit=12)]
        with s.transaction():   # NaN: Python's JSON reads it, SQLite's does not
            s.execute("UPDATE eval_items SET record = replace(record, '\"seed_id\":', "
                      "'\"odd\": NaN, \"seed_id\":') WHERE run_id = ? AND role = 'eval' AND seed_id = "
                      "(SELECT MIN(seed_id) FROM eval_items WHERE run_id = ? AND role = 'eval')",
                      (runs[0], runs[0]))
            s.execute("UPDATE eval_items SET record = json_set(record, '$.w_cot', '') WHERE run_id = ? "
                      "AND role = 'eval' AND seed_id = (SELECT MAX(seed_id) FROM eval_items WHERE "
                      "run_id = ? AND role = 'eval')", (runs[0], runs[0]))
        for run_id in runs:
            ctx = RunContext(s, run_id)
            fields = ctx.request_fields()
            assert "seed_id" in fields and "provenance" not in fields
            assert ("gt_cot" in fields) == ctx.reference    # the reference answer's solution
            cut = list(ctx.items(fields=fields))
            whole = list(ctx.items())
            assert [r["seed_id"] for r in cut] == [r["seed_id"] for r in whole]
            assert any(len(c) < len(w) for c, w in zip(cut, whole))
            got = list(pending_requests(s, run_id))
            want = [ctx.request(rec, task, k) for rec in whole for task in ctx.tasks
                    for k in range(ctx.samples) if _askable(task, rec)]
            assert [(r, r.messages_json, r.reference) for r in got] == \
                [(r, r.messages_json, r.reference) for r in want]
            assert len(got) > 20 and {r.task for r in got} == set(TASKS)
            # the requests that cannot be asked (stored as errors first) read their fields too
            unready = [(int(r["seed_id"]), t, k) for r in whole for t in ctx.tasks for k in range(ctx.samples)
                       if T.task_applies(t, r) and T.task_ready(t, r) is not None]
            assert [row[1:4] for row in unready_outputs(ctx, set())] == unready
            assert len(unready) == (2 if run_id == runs[0] else 0)   # the blank w_cot's two samples
        assert "NaN" in str(s.scalar("SELECT record FROM eval_items WHERE run_id = ? AND record LIKE '%NaN%'",
                                     (runs[0],)))


def _askable(task: str, record: dict[str, object]) -> bool:
    from qcstation.eval import tasks as T

    return T.task_applies(task, record) and T.task_ready(task, record) is None


def test_score_details_and_cache_entries_are_written_as_json_dumps_writes_them() -> None:
    """score_row's detail and a response-cache entry are written by an encoder made once: the
    stored bytes are json.dumps' (sorted keys for details, non-JSON values as str)."""
    from fractions import Fraction

    from qcstation.eval.runner import _cache_entry
    from qcstation.eval.scorers import Score, score_row
    from qcstation.eval.types import EvalReply

    for text in TEXTS:
        detail = {"value": Fraction(3, 4), "gold": text, "reason": None, "keeps_answer": True,
                  "method": "exact", "n": 3, "x": 0.1, "verifier": {"b": [1, text], "a": None}, text: 1}
        row = score_row(1, 2, 0, "fi", "final", Score("wrong", 0.0, text, detail), "v", "s", None, "t")
        assert row[8] == json.dumps(detail, sort_keys=True, ensure_ascii=False, default=str)
        reply = EvalReply("c", "ok", text=text, finish_reason="stop", prompt_tokens=3,
                          completion_tokens=None, cost=0.25, endpoint="http://e")
        entry = _cache_entry("k", reply)
        assert entry is not None and entry[1] == json.dumps(
            {"text": text.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd"), "finish_reason": "stop",
             "prompt_tokens": 3, "completion_tokens": None, "cost": 0.25, "endpoint": "http://e"},
            ensure_ascii=False)
