"""Fixtures shared by the construction tests."""

from __future__ import annotations

import json

import pytest

from tests.conftest import dataset


@pytest.fixture(scope="session")
def gsm8k() -> dict[str, dict[str, str]]:
    """GSM8K test as seed rows, by the id the importer gives each (its 1-based line number)."""
    rows = dataset("gsm8k/test.jsonl").read_text().splitlines()
    out = {}
    for i, line in enumerate(rows, start=1):
        rec = json.loads(line)
        solution, gold = rec["answer"].split("####")
        out[str(i)] = {"question": rec["question"], "solution": solution.strip(),
                       "answer_text": gold.strip(), "source": "gsm8k"}
    return out
