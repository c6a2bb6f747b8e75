"""Shared helpers for evaluation tests: a real working set from the shipped sample, configs
pointing at loopback fake servers, and a responder that answers each task per item."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qcstation.common.config import parse_config

_BUILT: dict[str, Path] = {}


def quickstart_db(tmp_root: Path) -> Path:
    """A database with the shipped sample imported and generated offline (built once per
    session, copied per test)."""
    if "db" not in _BUILT:
        root = tmp_root / "qs-template"
        root.mkdir(parents=True, exist_ok=True)
        db = root / "qs.db"
        proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "quickstart", "--no-app"],
                              cwd=root, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        _BUILT["db"] = db
    return _BUILT["db"]


def copy_db(src: Path, dest: Path) -> Path:
    shutil.copy(src, dest)
    return dest


def config(models: dict[str, dict[str, Any]] | None = None, judges: list[dict[str, Any]] | None = None,
           **sections: Any) -> Any:
    data: dict[str, Any] = {}
    if models:
        data["models"] = models
    if judges:
        data["judges"] = judges
    data.update(sections)
    return parse_config(data, "<test>")


def local_model(base_url: str | list[str], **kw: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"model": "fake-model", "retries": 2, "backoff_s": 0.01, "max_backoff_s": 0.05,
                         "timeout_s": 10.0, "concurrency": 8}
    if isinstance(base_url, list):
        m["base_urls"] = base_url
    else:
        m["base_url"] = base_url
    m.update(kw)
    return m


def last_user(request: dict[str, Any]) -> str:
    for m in reversed(request.get("messages") or []):
        if m.get("role") == "user":
            return str(m.get("content"))
    return ""


def task_of(prompt: str) -> str:
    if "SMT-LIB" in prompt:
        return "reasoning"
    if "key information" in prompt:
        return "understanding"
    if "contains one or more errors" in prompt:
        return "refinement"
    if "Compute the value exactly" in prompt:
        return "arithmetic"
    return "final"


def records_by_question(db: Path, run_id: int) -> dict[str, dict[str, Any]]:
    import sqlite3

    conn = sqlite3.connect(db)
    out = {}
    for (text,) in conn.execute("SELECT record FROM eval_items WHERE run_id = ? AND role = 'eval'", (run_id,)):
        r = json.loads(text)
        out[r["question"]] = r
        out[r["notation"]] = r
    conn.close()
    return out


def find_record(prompt: str, records: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    for key, r in records.items():
        if key and key in prompt:
            return r
    return None


Answerer = Callable[[str, dict[str, Any]], str]


def scripted(records_ref: dict[str, dict[str, dict[str, Any]]], answer: Answerer) -> Callable[[dict[str, Any]], str]:
    """A fake-server responder: finds the item of the prompt and lets ``answer(task, record)`` reply."""
    def responder(request: dict[str, Any]) -> str:
        prompt = last_user(request)
        rec = find_record(prompt, records_ref["records"])
        if rec is None:
            return "I do not know."
        return answer(task_of(prompt), rec)
    return responder


def gold_text(record: dict[str, Any]) -> str:
    return str(record.get("answer") or record.get("gt_answer"))


def reference_reply(task: str, record: dict[str, Any]) -> str:
    from qcstation.eval import tasks as T

    return T.reference_answer(T.load_template(task), record)


def first_number(text: str) -> str | None:
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    return m.group(0) if m else None
