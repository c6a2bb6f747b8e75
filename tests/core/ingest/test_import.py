"""Seed import against the real shared dataset files and a real SQLite store."""

from __future__ import annotations

import hashlib
from fractions import Fraction
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.cli import main
from qcstation.common.errors import ImportFormatError
from qcstation.core.ingest.formats import detect_format, parse_mapping
from qcstation.core.ingest.importer import (
    DATA_DIR,
    ImportIssue,
    content_hash,
    import_file,
    normalize_question,
    shipped_samples,
)
from qcstation.core.ingest.steps import count_equation_ops
from qcstation.core.reading.answers import fraction_to_str, parse_number
from tests.conftest import ROOT, dataset


def seed(store: Store, source: str, orig_id: str) -> dict[str, Any]:
    row = store.one("SELECT * FROM seeds WHERE source = ? AND orig_id = ?", (source, orig_id))
    assert row is not None, f"no seed {source}:{orig_id}"
    row["meta"] = json.loads(row["meta"])
    return row


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return p


def jsonl(tmp_path: Path, name: str, records: list[Any]) -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return p


def exact(text: str) -> str | None:
    pn = parse_number(text)
    return fraction_to_str(pn.value) if pn is not None else None


# --- real datasets ------------------------------------------------------------------------
def test_gsm8k_real_file(store: Store) -> None:
    path = dataset("gsm8k/test.jsonl")
    rep = import_file(store, path)
    assert (rep.fmt, rep.source, rep.records, rep.added, rep.errors) == ("gsm8k", "gsm8k", 1319, 1319, [])
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE source = 'gsm8k'") == 1319
    assert store.scalar("SELECT COUNT(DISTINCT level) FROM seeds") == 1
    first = seed(store, "gsm8k", "1")
    assert first["question"].startswith("Janet\u2019s ducks lay 16 eggs per day.")
    assert first["answer_text"] == "18" and first["answer_value"] == "18"
    assert first["solution"] == ("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
                                 "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer\u2019s market.")
    assert first["equation"] == "16-3-4=9; 9*2=18"
    # steps are arithmetic operations (16 - 3 - 4 is two), not annotation lines
    assert (first["level"], first["steps"], first["status"]) == ("medium", 3, "active")
    assert first["content_hash"] == hashlib.sha256(
        normalize_question(first["question"]).encode()).hexdigest()
    assert first["import_file"] == str(path.resolve()) and first["import_line"] == 1
    assert first["imported_at"] and first["meta"]["steps_rule"].startswith(
        "3 operations in 2 calculator annotations, 2 calculating solution lines")
    # every numeric gold is stored as its exact rational
    for row in store.query("SELECT answer_text, answer_value FROM seeds"):
        assert row["answer_value"] == exact(row["answer_text"]) is not None


def test_gsm8k_step_counts(store: Store) -> None:
    import_file(store, dataset("gsm8k/test.jsonl"))
    # one calculation only: filtered as a single step, with the calculation shown
    one = seed(store, "gsm8k", "302")
    assert (one["steps"], one["status"], one["filter_reason"]) == (1, "filtered", "single_step")
    assert "<<32/4=8>>" in one["filter_detail"]
    # one calculator annotation but two calculating lines (11/8*72=99, then 99-72=27): 2 steps
    trinity = seed(store, "gsm8k", "1209")
    assert trinity["question"].startswith("Trinity sells magazines")
    assert trinity["solution"].count("<<") == 1
    assert trinity["steps"] == 2 and trinity["status"] == "active"


def test_mawps_real_file_levels_steps_and_duplicates(store: Store) -> None:
    path = dataset("mawps/test.jsonl")
    rep = import_file(store, path)
    assert (rep.fmt, rep.records, rep.added, rep.errors) == ("mawps", 2065, 2065, [])
    first = seed(store, "mawps", "0")       # orig_id is MAWPS idx
    assert first["answer_text"] == "43" and first["answer_value"] == "43"
    assert first["level"] == "easy" and first["meta"]["type"] == "singleeq"
    decimal = store.one("SELECT * FROM seeds WHERE source = 'mawps' AND answer_text = '11.5'")
    assert decimal is not None and decimal["answer_value"] == "23/2"
    # singleop problems are one step; multiarith two
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE json_extract(meta, '$.type') = 'singleop' "
                        "AND steps = 1") == 562
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE json_extract(meta, '$.type') = 'singleop' "
                        "AND status = 'active'") == 0
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE json_extract(meta, '$.type') = 'multiarith' "
                        "AND steps = 2") == 600

    # duplicates: at least the rows whose text differs only in case/whitespace ...
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ws_distinct = len({" ".join(r["input"].lower().split()) for r in rows})
    assert rep.duplicates >= 2065 - ws_distinct
    # ... and the tokenised AddSub copies of SingleEq problems ("Sara 's ... games .")
    assert rep.duplicates == 2065 - len({normalize_question(r["input"]) for r in rows}) == 197
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE status = 'duplicate'") == rep.duplicates
    orig = store.one("SELECT * FROM seeds WHERE question LIKE 'Sara''s high school played 12%'")
    copy = store.one("SELECT * FROM seeds WHERE question LIKE 'Sara ''s high school played 12%'")
    assert orig is not None and copy is not None and orig["status"] == "filtered"
    assert (copy["status"], copy["filter_reason"], copy["duplicate_of"]) == ("duplicate", "duplicate", orig["id"])
    assert f"seed #{orig['id']}" in copy["filter_detail"]
    # a duplicate whose gold differs says so
    hilt = store.one("SELECT * FROM seeds WHERE status = 'duplicate' AND question LIKE "
                     "'Mrs. Hilt baked pies last weekend%'")
    assert hilt is not None and "answers differ: '6' there, '30' here" in hilt["filter_detail"]


def test_aqua_correct_option_text_is_the_answer(store: Store) -> None:
    rep = import_file(store, dataset("aqua/test.json"))
    assert (rep.fmt, rep.added, rep.errors) == ("aqua", 254, [])
    kmh = seed(store, "aqua", "131")
    assert kmh["answer_text"] == "4 1/3 km/h" and kmh["answer_value"] == "13/3"
    assert kmh["meta"]["correct"] == "A" and kmh["meta"]["options"][0] == "A)4 1/3 km/h"
    assert kmh["level"] == "hard" and kmh["solution"]
    kms = seed(store, "aqua", "139")
    assert (kms["answer_text"], kms["answer_value"]) == ("43kms/hr", "43")
    doubled = seed(store, "aqua", "30")                 # option written "A)A)59"
    assert doubled["answer_text"] == "59" and doubled["answer_value"] == "59"
    surd = seed(store, "aqua", "1")                    # "A)5(√3 + 1)" is not a number
    assert (surd["answer_text"], surd["answer_value"], surd["status"], surd["filter_reason"]) == (
        "5(√3 + 1)", None, "filtered", "not_single_number")
    assert "5(√3 + 1)" in surd["filter_detail"]


def test_math500_ids_levels_and_non_numeric_answers(store: Store) -> None:
    rep = import_file(store, dataset("math500/test.jsonl"))
    assert (rep.fmt, rep.added, rep.errors) == ("math500", 500, [])
    polar = seed(store, "math500", "test/precalculus/807.json")
    assert polar["answer_text"] == "\\left( 3, \\frac{\\pi}{2} \\right)"
    assert (polar["answer_value"], polar["status"], polar["filter_reason"]) == (None, "filtered", "not_single_number")
    assert polar["meta"] == {"subject": "Precalculus", "math_level": 2,
                             "filters": [{"reason": "not_single_number", "detail": polar["filter_detail"]}]}
    frac = seed(store, "math500", "test/algebra/2584.json")
    assert (frac["answer_text"], frac["answer_value"], frac["level"]) == ("\\frac{14}{3}", "14/3", "hard")
    assert frac["meta"]["math_level"] == 3 and frac["steps"] is None
    assert rep.filtered["not_single_number"] == store.scalar(
        "SELECT COUNT(*) FROM seeds WHERE answer_value IS NULL AND status = 'filtered'")
    assert rep.filtered["not_single_number"] > 50


def test_aime_zero_padded_answers(store: Store) -> None:
    rep = import_file(store, dataset("aime2024/test.jsonl"))
    assert (rep.fmt, rep.added, rep.errors) == ("aime2024", 30, [])
    s = seed(store, "aime2024", "67")
    assert (s["answer_text"], s["answer_value"], s["level"]) == ("025", "25", "hard")
    assert s["meta"]["contest"] == "2024 AIME I" and s["meta"]["problem"] == 2
    assert seed(store, "aime2024", "78")["answer_value"] == "23"
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE answer_value IS NULL") == 0


@pytest.mark.parametrize("name, fmt", [
    ("gsm8k/test.jsonl", "gsm8k"), ("mawps/test.jsonl", "mawps"), ("aqua/test.json", "aqua"),
    ("math500/test.jsonl", "math500"), ("aime2024/test.jsonl", "aime2024"),
])
def test_detect_format_real_files(name: str, fmt: str) -> None:
    assert detect_format(dataset(name)) == fmt


def test_detect_format_generic(tmp_path: Path) -> None:
    assert detect_format(jsonl(tmp_path, "mine.jsonl", [{"question": "q?", "answer": "3"}])) == "jsonl"
    assert detect_format(write(tmp_path, "mine.csv", "question,answer\nq?,3\n")) == "csv"
    with pytest.raises(ImportFormatError, match="empty"):
        detect_format(write(tmp_path, "empty.jsonl", "\n\n"))
    with pytest.raises(ImportFormatError, match="cannot detect the format"):
        detect_format(write(tmp_path, "prose.txt", "just some text\nmore text\n"))


# --- idempotence, events ----------------------------------------------------------------
def test_reimport_adds_nothing_and_logs_runs(store: Store) -> None:
    path = dataset("aime2024/test.jsonl")
    first = import_file(store, path, actor="alice")
    again = import_file(store, path, actor="alice")
    assert (first.added, first.skipped_existing) == (30, 0)
    assert (again.added, again.skipped_existing, again.duplicates, again.errors) == (0, 30, 0, [])
    assert store.scalar("SELECT COUNT(*) FROM seeds") == 30
    runs = store.query("SELECT * FROM import_runs ORDER BY id")
    assert [(r["added"], r["skipped_existing"], r["actor"]) for r in runs] == [(30, 0, "alice"), (0, 30, "alice")]
    assert all(r["finished_at"] and json.loads(r["errors"]) == [] for r in runs)
    events = store.query("SELECT * FROM events WHERE action = 'seeds.imported' ORDER BY id")
    assert [(e["actor"], e["entity"], e["entity_id"]) for e in events] == [
        ("alice", "import_run", runs[0]["id"]), ("alice", "import_run", runs[1]["id"])]
    assert json.loads(events[0]["detail"])["filtered"] == first.filtered


def test_changed_record_under_same_id_is_an_error_not_a_silent_skip(store: Store, tmp_path: Path) -> None:
    a = jsonl(tmp_path, "train.jsonl", [{"id": "7", "question": "What is 2 + 3 times 4?", "answer": "14"}])
    import_file(store, a, source="mine", level="easy")
    b = jsonl(tmp_path, "other.jsonl", [{"id": "7", "question": "What is 9 - 2 times 3?", "answer": "3"}])
    rep = import_file(store, b, source="mine", level="easy")
    assert rep.added == 0 and rep.skipped_existing == 0
    assert len(rep.errors) == 1 and "mine:7 is already stored with a different question" in rep.errors[0].message
    assert store.one("SELECT question FROM seeds WHERE orig_id = '7'") == {"question": "What is 2 + 3 times 4?"}


def test_sample_then_full_file(store: Store) -> None:
    samples = dict((fmt, p) for p, fmt in shipped_samples())
    rep = import_file(store, samples["gsm8k"])
    assert rep.added == 120
    full = import_file(store, dataset("gsm8k/test.jsonl"))
    assert (full.added, full.skipped_existing) == (1199, 120)


# --- filters on import ------------------------------------------------------------------
def test_every_filter_reason_is_stored_with_detail(store: Store, tmp_path: Path) -> None:
    path = jsonl(tmp_path, "filters.jsonl", [
        {"id": "ok", "question": "Ann has 3 bags of 4 apples and eats 2. How many are left?",
         "answer": "10", "steps": 2},
        {"id": "multi", "question": "Solve x^2 = 4.", "answer": "2 or -2", "steps": 2},
        {"id": "one", "question": "Ann has 3 apples and buys 4. How many now?", "answer": "7",
         "equation": "x = 3 + 4"},
        {"id": "gcd", "question": "What is the greatest common divisor of 12 and 18?", "answer": "6",
         "steps": 3},
        {"id": "max", "question": "What is the maximum number of 3-kg boxes a 20-kg cart holds?",
         "answer": "6", "steps": 2},
    ])
    rep = import_file(store, path, level="medium")
    assert rep.filtered == {"not_single_number": 1, "single_step": 1, "gcd_lcm": 1, "min_max": 1}
    assert (rep.added, rep.active) == (5, 1)
    got = {r["orig_id"]: r for r in store.query("SELECT * FROM seeds")}
    assert got["ok"]["status"] == "active" and got["ok"]["filter_reason"] is None
    assert got["multi"]["filter_detail"] == "answer '2 or -2' is not a single number (2 numbers in it)"
    assert got["one"]["steps"] == 1
    assert got["one"]["filter_detail"] == "one reasoning step (1 operation in equation 'x = 3 + 4')"
    assert "greatest common divisor" in got["gcd"]["filter_detail"]
    assert "maximum number" in got["max"]["filter_detail"]
    assert all(got[k]["status"] == "filtered" for k in ("multi", "one", "gcd", "max"))
    run = store.one("SELECT filtered FROM import_runs")
    assert run == {"filtered": 4}


def test_count_equation_ops() -> None:
    assert count_equation_ops("X=((12.0+5.0)-8.0)") == 2
    assert count_equation_ops("( 28.0 - 20.0 )") == 1
    assert count_equation_ops("8+6=14") == 1
    assert count_equation_ops("x = -3 * -4") == 1
    assert count_equation_ops("a = 2 * 3; b = a + 1") == 2
    assert count_equation_ops("x = 5") == count_equation_ops("8.0") == 0  # states the answer
    assert count_equation_ops("x") is count_equation_ops("") is None


# --- malformed input ----------------------------------------------------------------------
def test_malformed_jsonl_lines_are_reported_and_the_rest_imports(store: Store, tmp_path: Path) -> None:
    path = write(tmp_path, "bad.jsonl", """
        {"question": "Tom has 2 bags of 3 apples and eats 1. How many left?", "answer": "5"}
        {"question": "broken", "answer":
        ["not", "an", "object"]

        {"answer": "4"}
        {"question": 12, "answer": "4"}
        {"question": "   ", "answer": "4"}
        {"question": "What is 2+2, times 3?", "answer": {"v": 12}}
        {"id": "x1", "question": "Bo has 4 pens and buys 2 packs of 3. How many?", "answer": 10}
        {"id": "x1", "question": "Same id again, 2 times 5 plus 1?", "answer": 11}
    """)
    rep = import_file(store, path, level="easy")
    assert rep.added == 2
    assert [(e.line, e.message) for e in rep.errors] == [
        (2, "invalid JSON: Expecting value: column 33"),
        (3, "expected a JSON object, got a list"),
        (5, "missing required field 'question' (the question)"),
        (6, "field 'question' must be a string, got a number"),
        (7, "empty question (field 'question')"),
        (8, "field 'answer' must be a string or a number, got an object"),
        (10, "id 'x1' was already used on line 9 of this file; record not imported"),
    ]
    assert str(rep.errors[0]) == f"{path}:2: invalid JSON: Expecting value: column 33"
    assert isinstance(rep.errors[0], ImportIssue) and rep.errors[0].path == str(path)
    assert sorted(r["orig_id"] for r in store.query("SELECT orig_id FROM seeds")) == ["1", "x1"]
    stored = json.loads(store.scalar("SELECT errors FROM import_runs"))
    assert [e["line"] for e in stored] == [2, 3, 5, 6, 7, 8, 10]


def test_malformed_csv_rows(store: Store, tmp_path: Path) -> None:
    path = write(tmp_path, "bad.csv", """
        question,answer,solution
        "Sam has 3 boxes of 4 pens, and loses 2. How many pens?",10,3*4=12; 12-2=10
        only one field
        "Ann, Bo and Cy each have 5 cards and get 2 more each. How many?",21,"(5+2)*3
        = 21"
        "",4,empty question
        "Too, many",1,2,3
        "Last good one: 6 rows of 7 chairs, 2 broken. How many work?",40,
    """)
    rep = import_file(store, path, level="medium")
    assert rep.fmt == "csv" and rep.source == "bad"
    assert [(e.line, e.message) for e in rep.errors] == [
        (3, "bad CSV row: expected 3 fields, got 1"),
        (6, "empty question (field 'question')"),
        (7, "bad CSV row: expected 3 fields, got 4"),
    ]
    rows = {r["orig_id"]: r for r in store.query("SELECT * FROM seeds")}
    assert sorted(rows) == ["1", "3", "6"]  # record numbers; errors did not shift them
    assert rows["3"]["import_line"] == 4 and rows["3"]["solution"] == "(5+2)*3\n= 21"
    assert rows["6"]["import_line"] == 8 and rows["6"]["answer_value"] == "40"


def test_generic_csv_with_map(store: Store, tmp_path: Path) -> None:
    path = write(tmp_path, "svamp_extra.csv", """
        uid,Body,Final,Working,Equation,grade
        a1,"Jack had 8 pens, gave away 3 and bought 5.",10,,( 8.0 - 3.0 ) + 5.0,hard
        a2,"Mia has 9 dolls and gives 4 away.",5,9-4=5,( 9.0 - 4.0 ),
    """)
    mapping = parse_mapping(["question=Body", "Final=answer", "solution=Working,equation=Equation",
                             "id=uid", "level=grade"])
    assert mapping == {"question": "Body", "answer": "Final", "solution": "Working",
                       "equation": "Equation", "id": "uid", "level": "grade"}
    rep = import_file(store, path, mapping=mapping)
    assert (rep.fmt, rep.source, rep.added, rep.errors) == ("csv", "svamp_extra", 2, [])
    a1, a2 = seed(store, "svamp_extra", "a1"), seed(store, "svamp_extra", "a2")
    assert (a1["question"], a1["answer_value"], a1["solution"], a1["steps"], a1["level"]) == (
        "Jack had 8 pens, gave away 3 and bought 5.", "10", None, 2, "hard")
    # no level in the row: SMART's level for a source named after SVAMP (medium)
    assert (a2["level"], a2["steps"], a2["status"], a2["filter_reason"]) == ("medium", 1, "filtered", "single_step")
    # no mapping: one error for the file, naming its columns and a mapping that reads them
    with pytest.raises(ImportFormatError, match=r"svamp_extra.csv:1: the first record has no 'question' or "
                                                r"'answer'; its fields are 'uid', 'Body', .*--map question=Body "
                                                r"--map answer=Final"):
        import_file(store, path)
    with pytest.raises(ImportFormatError, match="neither side is a seed field"):
        parse_mapping(["Body=Text"])
    with pytest.raises(ImportFormatError, match="files read by columns"):
        import_file(store, dataset("gsm8k/test.jsonl"), "gsm8k", mapping={"question": "q"})


def test_generic_levels(store: Store, tmp_path: Path) -> None:
    recs = [{"question": "Ann has 2 bags of 3 and eats 1. How many?", "answer": "5"}]
    unknown = jsonl(tmp_path, "homework.jsonl", recs)
    with pytest.raises(ImportFormatError, match="--level easy\\|medium\\|hard"):
        import_file(store, unknown)
    assert store.scalar("SELECT COUNT(*) FROM import_runs") == 0  # nothing written
    assert import_file(store, unknown, level="hard").added == 1
    assert seed(store, "homework", "1")["level"] == "hard"
    asdiv = jsonl(tmp_path, "asdiv_a.jsonl", recs)
    import_file(store, asdiv)
    assert seed(store, "asdiv_a", "1")["level"] == "easy"
    bad = jsonl(tmp_path, "lv.jsonl", [dict(recs[0], level="Medium"), dict(recs[0], level="tough")])
    rep = import_file(store, bad, level="easy")
    assert seed(store, "lv", "1")["level"] == "medium"  # a row's level beats --level
    assert [e.message for e in rep.errors] == ["field 'level' (level) must be easy, medium or hard, got 'tough'"]


def test_generic_gsm8k_style_answer(store: Store, tmp_path: Path) -> None:
    path = jsonl(tmp_path, "mine.jsonl", [{"id": "g1", "question": "Ann has 2 bags of 3 and eats 1. Left?",
                                           "answer": "2*3=<<2*3=6>>6\n6-1=<<6-1=5>>5\n#### 5"}])
    import_file(store, path, "jsonl", level="medium")
    g1 = seed(store, "mine", "g1")
    assert (g1["answer_text"], g1["answer_value"], g1["steps"]) == ("5", "5", 2)
    assert g1["solution"] == "2*3=<<2*3=6>>6\n6-1=<<6-1=5>>5"


def test_json_array_file(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "arr.json"
    path.write_text(json.dumps([{"question": "Q1: 2 bags of 3, minus 1?", "answer": 5}, "junk",
                                {"question": "Q3: 4 rows of 5, plus 2?", "answer": "22"},
                                {"question": "Q4: no answer"}], indent=2))
    assert detect_format(path) == "json"
    rep = import_file(store, path, level="easy")
    # reported as a JSON array; errors name the line where the element starts and its index
    assert (rep.fmt, rep.added) == ("json", 2)
    assert [(e.line, e.message) for e in rep.errors] == [
        (6, "record 2: expected a JSON object, got a string"),
        (11, "record 4: missing required field 'answer' (the answer)")]
    assert sorted(r["orig_id"] for r in store.query("SELECT orig_id FROM seeds")) == ["1", "3"]
    assert store.scalar("SELECT format FROM import_runs") == "json"
    # the same records as JSON Lines are reported as such, also when --format json is given
    lines = jsonl(tmp_path, "arr2.jsonl", json.loads(path.read_text())[::2])
    assert import_file(store, lines, "json", level="easy").fmt == "jsonl"


def test_json_array_syntax_error_stores_nothing(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"question": "Q1: 2 bags of 3?", "answer": 6},\n  {"question": "Q2", "answer": 1}\n'
                    '  {"question": "Q3: 4 rows of 5?", "answer": 20}\n]')
    with pytest.raises(ImportFormatError, match=r"broken.json:4: not a valid JSON array: expected ',' or "
                                                r"'\]' after record 2"):
        import_file(store, path, level="easy")
    assert store.scalar("SELECT COUNT(*) FROM import_runs") == store.scalar("SELECT COUNT(*) FROM seeds") == 0
    path.write_text('[{"question": "Q1: 2 bags of 3?", "answer": 6}] trailing')
    with pytest.raises(ImportFormatError, match="extra data after its closing"):
        import_file(store, path, level="easy")
    path.write_text('\n\n[{"question": "Q1: 2 bags of 3?",\n "answer": }]')
    with pytest.raises(ImportFormatError, match=r"broken.json:4: not a valid JSON array: Expecting value"):
        import_file(store, path, level="easy")


def test_fatal_errors(store: Store, tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="no such file"):
        import_file(store, tmp_path / "missing.jsonl")
    with pytest.raises(ImportFormatError, match="is a directory"):
        import_file(store, tmp_path)
    with pytest.raises(ImportFormatError, match="unknown format 'parquet'"):
        import_file(store, dataset("gsm8k/test.jsonl"), "parquet")
    with pytest.raises(ImportFormatError, match="unknown level 'expert'"):
        import_file(store, dataset("gsm8k/test.jsonl"), level="expert")
    with pytest.raises(ImportFormatError, match="is empty"):
        import_file(store, write(tmp_path, "empty.csv", ""), "csv", level="easy")
    assert store.scalar("SELECT COUNT(*) FROM import_runs") == 0


def test_normalize_question() -> None:
    assert normalize_question("Sara 's team won 8 games .  How many ?") == normalize_question(
        "sara\u2019s team  won 8 games. How many?")
    assert normalize_question("It costs $ 5.20 .") == "it costs $5.20."
    assert content_hash("A b") == content_hash(" a   B ") != content_hash("a c")


# --- shipped samples ---------------------------------------------------------------------
def test_shipped_samples_are_real_first_lines() -> None:
    samples = shipped_samples()
    assert [fmt for _, fmt in samples] == ["gsm8k", "mawps", "aqua", "math500", "aime2024"]
    originals = {"gsm8k": "gsm8k/test.jsonl", "mawps": "mawps/test.jsonl", "aqua": "aqua/test.json",
                 "math500": "math500/test.jsonl", "aime2024": "aime2024/test.jsonl"}
    sizes = {"gsm8k": 120, "mawps": 25, "aqua": 25, "math500": 25, "aime2024": 10}
    sources_md = (DATA_DIR / "SOURCES.md").read_text(encoding="utf-8")
    for path, fmt in samples:
        assert path.parent == DATA_DIR and detect_format(path) == fmt
        lines = path.read_bytes().splitlines(keepends=True)
        original = dataset(originals[fmt]).read_bytes()
        assert len(lines) == sizes[fmt]
        assert original.startswith(b"".join(lines))
        assert hashlib.sha256(original).hexdigest() in sources_md
        assert path.name in sources_md


# --- CLI -----------------------------------------------------------------------------------
def test_cli_import_summary_json_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cli.db")
    path = dataset("aqua/test.json")
    assert main(["--db", db, "import", str(path)]) == 0
    out = capsys.readouterr()
    assert f"{path}: source 'aqua', format aqua" in out.out
    assert "added            254" in out.out and "filtered" in out.out and out.err == ""

    assert main(["--db", db, "import", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["added"], data["skipped_existing"], data["source"], data["errors"]) == (0, 254, "aqua", [])

    bad = write(tmp_path, "qs.csv", "problem,final\n\"Ann has 2 bags of 3, eats 1?\",5\noops\n")
    code = main(["--db", db, "import", str(bad), "--map", "question=problem", "--map", "answer=final",
                 "--level", "easy", "--source", "class7", "--json"])
    out = capsys.readouterr()
    assert code == 1
    assert out.err.strip() == f"{bad}:3: bad CSV row: expected 2 fields, got 1"
    data = json.loads(out.out)
    assert (data["source"], data["added"], data["errors"][0]["line"]) == ("class7", 1, 3)

    assert main(["--db", db, "import", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM seeds") == 255


def test_cli_samples_and_list_filtered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    assert main(["--db", db, "import", "--samples", "--list-filtered"]) == 0
    out = capsys.readouterr().out
    assert out.count("import run") == 5
    assert "left out:" in out and "mawps:0 (line 1)  single_step" in out
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM seeds") == 205
        assert {r["source"] for r in store.query("SELECT DISTINCT source FROM seeds")} == {
            "gsm8k", "mawps", "aqua", "math500", "aime2024"}


# --- two processes, one database -------------------------------------------------------------
_CHILD = """
import sys, time
from pathlib import Path
from db import Store
from qcstation.core.ingest.importer import import_file
db, path, go, ready = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
store = Store(db)
ready.touch()                      # the store is open: this child is in the race
deadline = time.monotonic() + 600
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.005)
rep = import_file(store, path, batch_size=25, actor="proc")
print(rep.added, len(rep.errors))
"""


def test_two_processes_import_into_one_database(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    Store(db).close()  # schema in place before the race
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    files = [dataset("gsm8k/test.jsonl"), dataset("mawps/test.jsonl")]
    ready = [tmp_path / f"ready{i}" for i in range(len(files))]
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD, str(db), str(f), str(go), str(r)], env=env,
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for f, r in zip(files, ready, strict=True)]
    deadline = time.monotonic() + 300   # both children started and holding the store open, however
    while not all(r.exists() for r in ready) and time.monotonic() < deadline:  # slow the machine
        time.sleep(0.01)
    assert all(r.exists() for r in ready), [p.poll() for p in procs]
    go.touch()                         # then both import at once
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert [o[0].split() for o in outs] == [["1319", "0"], ["2065", "0"]]
    with Store(db) as store:
        counts = {r["source"]: r["n"] for r in store.query("SELECT source, COUNT(*) n FROM seeds GROUP BY source")}
        assert counts == {"gsm8k": 1319, "mawps": 2065}
        assert store.scalar("SELECT COUNT(DISTINCT id) FROM seeds") == 3384
        runs = store.query("SELECT source, added, finished_at FROM import_runs ORDER BY source")
        assert [(r["source"], r["added"]) for r in runs] == [("gsm8k", 1319), ("mawps", 2065)]
        assert all(r["finished_at"] for r in runs)
        assert store.scalar("SELECT COUNT(*) FROM events WHERE action = 'seeds.imported'") == 2


def test_relative_path_messages_and_absolute_provenance(store: Store, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "rel.jsonl", '{"question": "Ann has 2 bags of 3, eats 1. Left?", "answer": 5}\nnot json\n')
    rep = import_file(store, "rel.jsonl", level="easy")
    assert str(rep.errors[0]) == "rel.jsonl:2: invalid JSON: Expecting value: column 1"
    assert store.scalar("SELECT import_file FROM seeds") == str(tmp_path / "rel.jsonl")
    assert store.scalar("SELECT path FROM import_runs") == str(tmp_path / "rel.jsonl")


def test_gzip_files(store: Store, tmp_path: Path) -> None:
    import gzip

    raw = dataset("aime2024/test.jsonl").read_bytes()
    good = tmp_path / "aime_copy.jsonl.gz"
    good.write_bytes(gzip.compress(raw))
    assert detect_format(good) == "aime2024"
    assert import_file(store, good, source="aime_gz").added == 30

    fake = tmp_path / "fake.jsonl.gz"
    fake.write_bytes(b"not gzip at all\n")
    with pytest.raises(ImportFormatError, match="Not a gzipped file"):
        import_file(store, fake)

    # a truncated download: refused whole before anything is stored, saying so
    trunc = tmp_path / "trunc.jsonl.gz"
    trunc.write_bytes(gzip.compress(dataset("gsm8k/test.jsonl").read_bytes())[:60_000])
    with pytest.raises(ImportFormatError, match=r"trunc.jsonl.gz: damaged, truncated or not .gz data \(.*\); "
                                                "nothing was imported"):
        import_file(store, trunc, batch_size=10)
    assert store.scalar("SELECT COUNT(*) FROM import_runs WHERE source = 'gsm8k'") == 0
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE source = 'gsm8k'") == 0


# --- errata: dataset gold answers that contradict their question -------------------------
def test_gsm8k_gold_errors_are_filtered_with_their_evidence(store: Store) -> None:
    """The four GSM8K test seeds whose file answer the question's words contradict are
    stored filtered (gold_error) with what the words give; every other seed keeps the
    status the SMART filters give it."""
    from qcstation.core.ingest.errata import ERRATA
    rep = import_file(store, dataset("gsm8k/test.jsonl"))
    assert rep.filtered.get("gold_error") == len(ERRATA) == 4
    wrong = {r["orig_id"]: r for r in store.query(
        "SELECT orig_id, status, filter_detail, answer_text FROM seeds WHERE filter_reason = 'gold_error'")}
    assert sorted(wrong, key=int) == ["120", "455", "1039", "1043"]
    assert all(r["status"] == "filtered" for r in wrong.values())
    assert "30 percent higher" in wrong["120"]["filter_detail"]
    assert "40000 / 1.3" in wrong["120"]["filter_detail"]
    assert "240 in 30 days" in wrong["455"]["filter_detail"]
    assert wrong["1039"]["answer_text"] == "4" and "6 years" in wrong["1039"]["filter_detail"]
    # a seed whose solution has a typo but whose answer is right is not listed
    assert seed(store, "gsm8k", "599")["status"] == "active"


def test_an_erratum_applies_only_while_the_file_gives_the_listed_answer(
        store: Store, tmp_path: Path) -> None:
    """A corrected copy of the dataset (the right answer, 240) imports as active; the
    listed question with its wrong answer is filtered; the match ignores spacing."""
    q = "Marin and his neighbor Nancy each eat 4 apples a day. How many apples do they eat in 30 days?"
    sol = "In one day they eat 4 * 2 = <<4*2=8>>8 apples.\nIn 30 days, 30 * 8 = <<30*8=240>>240."
    for name, answer, status in (("fixed", "240", "active"), ("wrong", "150", "filtered")):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps({"question": q.replace(". ", ".  "),
                                    "answer": f"{sol}\n#### {answer}"}) + "\n")
        import_file(store, path, source=name)
        row = store.one("SELECT status, filter_reason FROM seeds WHERE source = ?", (name,))
        assert row is not None and row["status"] == status
        assert row["filter_reason"] == (None if status == "active" else "gold_error")


# --- vulgar fractions (issue 30 leftover 4) -------------------------------------------------
def test_vulgar_fractions_are_read_as_the_same_numbers_in_digits(store: Store, tmp_path: Path) -> None:
    # "1½" was no number to the filters, the rules and the checker: an answer "1½" was filtered
    # (not a plain rational number) where "1 1/2" was kept, and the rules refused a question
    # writing ½ where they made the same one with 1/2
    from qcstation.core.reading.answers import plain_fractions

    assert plain_fractions("1½ cups, ½ a cup, 2 ¾ m, ¾cup, x⅓ and 3⁄4; a 5-inch nail") == \
        "1 1/2 cups, 1/2 a cup, 2 3/4 m, 3/4 cup, x 1/3 and 3/4; a 5-inch nail"
    path = jsonl(tmp_path, "frac.jsonl", [
        {"question": "Tom buys 3 boxes of apples. Each box weighs 1½ pounds. He eats ½ pound. "
                     "How many pounds are left?", "answer": "4"},
        {"question": "A jug holds 3 liters. Ann pours out ¾ liter and then 3/4 liter more. "
                     "How many liters are left?", "answer": "1½"},
    ])
    rep = import_file(store, path, level="easy")
    assert (rep.added, rep.filtered, rep.error_count) == (2, {}, 0)
    tom, jug = seed(store, "frac", "1"), seed(store, "frac", "2")
    assert tom["question"] == ("Tom buys 3 boxes of apples. Each box weighs 1 1/2 pounds. He eats 1/2 "
                               "pound. How many pounds are left?")
    assert (tom["status"], tom["answer_value"]) == ("active", "4")
    assert (jug["status"], jug["answer_text"], jug["answer_value"]) == ("active", "1 1/2", "3/2")
    assert jug["question"].startswith("A jug holds 3 liters. Ann pours out 3/4 liter")
    # the same file again: the same seeds (the question is hashed as written)
    again = import_file(store, path, level="easy")
    assert (again.added, again.skipped_existing) == (0, 2)


def test_a_percent_answer_is_read_as_the_questions_percents_are() -> None:
    # decided on what the readers do: a percent is its number ("50%" is 50) in a question's
    # givens and in a gold answer alike; a gold written with % also takes the ratio (0.5)
    from qcstation.core.reading.textnumbers import numbers_in
    from qcstation.eval.checker import check_answer

    gold = parse_number("50%")
    assert gold is not None and (gold.value, gold.percent) == (Fraction(50), True)
    assert exact("50%") == "50"
    assert 50 in numbers_in("A shirt is 50% off.") and Fraction(1, 2) not in numbers_in("A shirt is 50% off.")
    for reply in ("50", "50%", "0.5"):      # the gold as stored: "50%", answer_value 50
        assert check_answer(reply, "50%", "50").verdict == "correct", reply
    # a gold written without % ("What percent ... ?" answered 50) is the number 50
    assert check_answer("50%", "50", "50").verdict == "correct"
    assert check_answer("0.5", "50", "50").verdict == "wrong"
