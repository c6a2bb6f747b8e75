"""attack10 (issue 30): what a seed file could still slip past the importer. A NUL character
was stored as is (CSV and JSON Lines, in the question and in the id), a lone surrogate was
reported in Python's codec words, a JSON array that is not UTF-8 likewise, and a file whose
first record has a duplicate key was "no JSON record found" with no word of the key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.common.errors import ImportFormatError
from qcstation.core.ingest.formats import detect_format
from qcstation.core.ingest.importer import import_file

ROOT = Path(__file__).resolve().parents[3]
GOOD = "Ann has 2 pens and buys 5 more at the shop. How many pens now?"


def _questions(store: Store, source: str) -> list[str]:
    return [r["question"] for r in store.query("SELECT question FROM seeds WHERE source = ? ORDER BY id", (source,))]


def test_a_nul_character_costs_its_row_in_csv_and_json_lines(store: Store, tmp_path: Path) -> None:
    csv_file = tmp_path / "nul.csv"
    csv_file.write_bytes(b'question,answer\n"Tom has 3 apples and buys 4\x00 more. How many?",7\n'
                         + f'"{GOOD}",7\n'.encode())
    report = import_file(store, csv_file, "csv", source="nulcsv", level="easy")
    assert _questions(store, "nulcsv") == [GOOD]
    assert report.added == 1 and len(report.errors) == 1
    assert "NUL character" in str(report.errors[0]) and "question" in str(report.errors[0])
    lines = tmp_path / "nul.jsonl"
    lines.write_text(json.dumps({"id": "a\x00b", "question": "Tom has 3 apples and buys 4 more. How many?",
                                 "answer": "7"}) + "\n" + json.dumps({"question": GOOD, "answer": "7"}) + "\n")
    report = import_file(store, lines, "jsonl", source="nuljl", level="easy")
    assert _questions(store, "nuljl") == [GOOD]
    assert "the id holds a NUL character" in str(report.errors[0])
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE instr(orig_id, char(0)) OR instr(question, char(0))") == 0


def test_a_lone_surrogate_is_named_in_the_users_terms(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "sur.json"
    path.write_text('[{"question": "Tom has 3 apples \\ud800 and buys 4 more. How many?", "answer": "7"},'
                    f' {json.dumps({"question": GOOD, "answer": "7"})}]')
    report = import_file(store, path, "json", source="sur", level="easy")
    assert _questions(store, "sur") == [GOOD]
    message = str(report.errors[0])
    assert "lone surrogate (U+D800)" in message and "record 1" in message
    assert "codec" not in message and "surrogates not allowed" not in message


def test_a_json_array_that_is_not_utf8_names_its_line_not_the_codec(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'[\n{"question": "Tom has 3 apples", "answer": "7"},\n{"question": "Caf\xe9 sells 4", "answer": "4"}]')
    with pytest.raises(ImportFormatError) as err:
        import_file(store, path, "json", source="latin", level="easy")
    assert ":3: not a valid JSON array" in str(err.value) and "not UTF-8" in str(err.value)
    assert "codec" not in str(err.value) and "position" not in str(err.value)


def test_a_first_record_with_a_duplicate_key_is_named_when_detecting(store: Store, tmp_path: Path) -> None:
    for name, text in (("dup.json", '[{"question": "Tom has 3 apples. How many?", "answer": "7", "answer": "8"}]'),
                       ("dup.jsonl", '{"question": "Tom has 3 apples. How many?", "answer": "7", "answer": "8"}\n')):
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(ImportFormatError) as err:
            detect_format(path)
        assert "duplicate key 'answer'" in str(err.value) and "line 1" in str(err.value), str(err.value)
    run = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(tmp_path / "cli.db"), "import",
                          str(tmp_path / "dup.json"), "--level", "easy"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "duplicate key 'answer'" in run.stderr and "Traceback" not in run.stderr


def test_a_json_number_answer_keeps_every_digit_it_was_written_with(store: Store, tmp_path: Path) -> None:
    """Python reads 1.0000000000000000000000001 as the float 1.0: the gold was stored as 1,
    and 123456789012345678.5 as 123456789012345680."""
    path = tmp_path / "digits.jsonl"
    path.write_text('{"question": "Tom has 9 apples and buys 4 more. How many apples?", "answer": 1.0000000000000000000000001}\n'
                    '{"question": "Tom has 9 pears and buys 4 more. How many pears?", "answer": 123456789012345678.5}\n'
                    '{"question": "Tom has 9 figs and buys 4 more. How many figs?", "answer": 2.50}\n'
                    '{"question": "Tom has 9 nuts and buys 4 more. How many nuts?", "answer": 1e3}\n')
    import_file(store, path, "jsonl", source="digits", level="easy")
    got = [(r["answer_text"], r["answer_value"]) for r in
           store.query("SELECT answer_text, answer_value FROM seeds WHERE source = 'digits' ORDER BY id")]
    assert got == [("1.0000000000000000000000001", "10000000000000000000000001/10000000000000000000000000"),
                   ("123456789012345678.5", "246913578024691357/2"), ("2.5", "5/2"), ("1000", "1000")]
