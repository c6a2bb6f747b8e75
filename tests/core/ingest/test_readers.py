"""Reading untrusted seed files: duplicate keys (issue 18 item 13), compressed files capped on
decompressed bytes and lines (issue 18 item 8), JSON arrays read element by element. Real
files, a real SQLite store."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.common.errors import ImportFormatError
from qcstation.core.ingest import readers
from qcstation.core.ingest.importer import import_file
from tests.conftest import dataset

GOOD = {"question": "Ann has 2 bags of 3 apples and eats 1. How many are left?", "answer": "5"}


def nothing_stored(store: Store) -> bool:
    return store.scalar("SELECT COUNT(*) FROM import_runs") == store.scalar("SELECT COUNT(*) FROM seeds") == 0


# --- duplicate keys ----------------------------------------------------------------------------
def test_duplicate_keys_in_json_lines_are_file_line_errors(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_text(
        json.dumps(GOOD) + "\n"
        '{"question": "Bo has 4 boxes of 5 pens and loses 2. How many?", "answer": "5", "answer": "18"}\n'
        '{"question": "Cy has 6 rows of 7 and adds 3. How many?", "answer": "45", "meta": {"a": 1, "a": 2}}\n'
        + json.dumps(dict(GOOD, question="Di has 3 bags of 4 and eats 2. How many?", answer="10")) + "\n")
    rep = import_file(store, path, level="easy")
    assert rep.added == 2
    assert [(e.line, e.message) for e in rep.errors] == [
        (2, "duplicate key 'answer' in the record ('5' and '18'): which one is meant is unclear; not imported"),
        (3, "duplicate key 'a' in the record (1 and 2): which one is meant is unclear; not imported")]
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE answer_text = '18'") == 0


def test_duplicate_keys_in_a_json_array(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text('[\n  {"question": "Ann has 2 bags of 3. Eats 1. Left?", "answer": 5},\n'
                    '  {"question": "Bo has 4 boxes of 5. Loses 2. Left?",\n'
                    '   "answer": 5, "answer": 18},\n'
                    '  {"question": "Cy has 6 rows of 7. Adds 3. Total?", "answer": 45}\n]\n')
    rep = import_file(store, path, level="easy")
    assert (rep.fmt, rep.added) == ("json", 2)
    assert [(e.line, e.message) for e in rep.errors] == [
        (3, "record 2: duplicate key 'answer' in the record (5 and 18): which one is meant is unclear; "
            "not imported")]


def test_duplicate_csv_columns_refuse_the_file(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("question,answer,answer\nAnn has 2 bags of 3. Eats 1. Left?,5,18\n")
    with pytest.raises(ImportFormatError, match=r"dup.csv:1: cannot read the CSV header: the header names "
                                                r"column 'answer' twice"):
        import_file(store, path, level="easy")
    assert nothing_stored(store)


def test_duplicate_csv_columns_are_found_in_linear_time_and_named_briefly(store: Store, tmp_path: Path) -> None:
    # 100,000 columns (889 KB): the check counted each name in the whole header, 10^10 steps
    names = [f"c{i}" for i in range(100_000)] + ["c7", "c70000"] + [f"c{i}" for i in range(10, 20)]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(names) + "\n" + ",".join("1" for _ in names) + "\n")
    with pytest.raises(ImportFormatError) as err:
        import_file(store, path, level="easy")
    assert str(err.value).endswith("the header names column 'c10', 'c11', 'c12', 'c13', 'c14' twice "
                                   "(and 7 more)"), str(err.value)
    assert nothing_stored(store)


def test_csv_columns_equal_but_for_case_refuse_the_file(store: Store, tmp_path: Path) -> None:
    # the mapping reads 'question' as 'Question' when only that is there: with both, which one
    # a field read was unclear, and the file was taken silently (issue 30.4)
    path = tmp_path / "case.csv"
    path.write_text("Question,question,answer\nAnn has 2 bags of 3. Eats 1. Left?,Bo has 4. Left?,5\n")
    with pytest.raises(ImportFormatError, match=r"case.csv:1: cannot read the CSV header: the header names "
                                                r"columns that differ only in case: 'Question' and 'question';"):
        import_file(store, path, level="easy")
    assert nothing_stored(store)


def test_csv_columns_equal_but_for_case_are_found_in_linear_time(store: Store, tmp_path: Path) -> None:
    names = [f"c{i}" for i in range(100_000)] + ["C7", "ANSWER", "answer"] + [f"C{i}" for i in range(10, 20)]
    path = tmp_path / "wide_case.csv"
    path.write_text(",".join(names) + "\n" + ",".join("1" for _ in names) + "\n")
    with pytest.raises(ImportFormatError) as err:
        import_file(store, path, level="easy")
    assert str(err.value).endswith("differ only in case: 'c7' and 'C7'; 'c10' and 'C10'; 'c11' and 'C11'; "
                                   "'c12' and 'C12'; 'c13' and 'C13' (and 7 more); which one a field reads "
                                   "is unclear: rename one"), str(err.value)
    assert nothing_stored(store)


# --- CSV quotes ------------------------------------------------------------------------------
def _rows(n: int, start: int = 0) -> list[str]:
    return [f"Ann has {i} bags of 3 apples and eats 1. How many are left?,{3 * i - 1}" for i in range(start, n)]


def test_csv_quote_that_never_closes_refuses_the_file_naming_its_line(store: Store, tmp_path: Path) -> None:
    # the rest of the file was swallowed into one field: one error, every later row lost
    path = tmp_path / "open.csv"
    path.write_text("\n".join(["question,answer", *_rows(4), '"Bo has 4 boxes, loses 2. How many?,2',
                               *_rows(40, 5)]) + "\n")
    with pytest.raises(ImportFormatError, match=r"open.csv:6: a quote opens a field on line 6 and is never "
                                                r"closed: the file ends inside it; the rows after it"):
        import_file(store, path, level="easy")
    assert nothing_stored(store)


def test_csv_quote_closed_far_away_refuses_the_file(store: Store, tmp_path: Path) -> None:
    # 100,000 rows after a stray quote: the rows past the field limit were drafted (67k seeds
    # made of shifted fields); a quote that closes where no field ends took rows in silently
    rows = _rows(100_000, 4)
    path = tmp_path / "far.csv"
    path.write_text("\n".join(["question,answer", *_rows(4), '"Bo has 4 boxes, loses 2. How many?,2', *rows])
                    + "\n")
    with pytest.raises(ImportFormatError, match=r"far.csv:6: a quote opens a field on line 6 and runs past "
                                                r"131,072 characters by line \d+ without closing"):
        import_file(store, path, level="easy")
    near = tmp_path / "near.csv"
    near.write_text("\n".join(["question,answer", *_rows(2), '"Bo has 4 boxes, loses 2. How many?,2',
                               *_rows(5, 2), 'Cy has "3" bags of 4. How many?,12', *_rows(9, 5)]) + "\n")
    with pytest.raises(ImportFormatError, match=r"near.csv:4: a quote opens a field on line 4 and closes on "
                                                r"line 8 where no field ends"):
        import_file(store, near, level="easy")
    assert nothing_stored(store)


def test_csv_record_over_lines_is_bounded(store: Store, tmp_path: Path) -> None:
    # fields each under the csv limit, each over two lines: one record grew without bound
    field = '"' + "y" * 1000 + '\nz"'
    path = tmp_path / "long_record.csv"
    path.write_text("question,answer\n" + ",".join([field] * 2000) + "\n" + "\n".join(_rows(3)) + "\n")
    with pytest.raises(ImportFormatError, match=r"long_record.csv:2: the record from line 2 runs over 1 MB by "
                                                r"line \d+ \(its last quoted field opens on line \d+\)"):
        import_file(store, path, level="easy")
    assert nothing_stored(store)


def test_csv_quotes_that_close_keep_their_rows(store: Store, tmp_path: Path) -> None:
    # a quoted field over two lines is a field; text after a closing quote costs its one row
    path = tmp_path / "quoted.csv"
    path.write_text('question,answer\n"Ann has 2 bags of 3 apples,\nand eats 1. How many are left?",5\n'
                    '"Bo has 4 boxes of 5 pens" and loses 2. How many?,18\n'
                    '"Cy has 6 rows of ""7"" chairs and adds 3. How many?",45\n')
    rep = import_file(store, path, level="easy")
    assert (rep.added, rep.records) == (2, 3)
    assert [(e.line, e.message) for e in rep.errors] == [(4, "bad CSV row: ',' expected after '\"'")]
    assert store.scalar("SELECT question FROM seeds WHERE import_line = 2").startswith("Ann has 2 bags of 3 apples,")
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE question LIKE 'Cy has 6 rows of \"7\" chairs%'") == 1


# --- compressed files ------------------------------------------------------------------------
def test_blank_lines_gz_is_refused_before_anything_is_stored(store: Store, tmp_path: Path) -> None:
    # 1 MB of gzip that inflates to a billion blank lines (the attack of issue 18, item 8)
    path = tmp_path / "blank.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n" * (10 << 20), 9) * 100)  # 100 gzip members, 10 MiB each
    assert 900_000 < path.stat().st_size < 1_200_000
    with pytest.raises(ImportFormatError) as err:
        import_file(store, path, level="easy")
    assert str(err.value) == (
        f"{path}: holds more than {readers.MAX_DECOMPRESSED_LINES:,} lines once decompressed (blank lines "
        f"count); nothing was imported. A compressed seed file may hold at most "
        f"{readers.MAX_DECOMPRESSED_BYTES:,} bytes and {readers.MAX_DECOMPRESSED_LINES:,} lines once "
        "decompressed: decompress it yourself and import the plain file")
    assert err.value.title == "File too large"
    assert nothing_stored(store)


def test_gzip_bomb_is_refused_on_decompressed_bytes(store: Store, tmp_path: Path) -> None:
    # ~1 MB of gzip members, each 10 MiB of spaces: 1.05 GB once decompressed, no line end
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress(b" " * (10 << 20), 9) * 100)
    with pytest.raises(ImportFormatError, match=r"bomb.jsonl.gz: decompresses to more than 1,000,000,000 bytes; "
                                                "nothing was imported"):
        import_file(store, path, level="easy")
    # zeros are not text: refused from the first 4 KB
    zeros = tmp_path / "zeros.jsonl.gz"
    zeros.write_bytes(gzip.compress(b"\0" * (10 << 20), 9) * 100)
    with pytest.raises(ImportFormatError, match=r"zeros.jsonl.gz is not text"):
        import_file(store, zeros, level="easy")
    assert nothing_stored(store)


@pytest.mark.parametrize(("suffix", "compress"), [(".gz", gzip.compress), (".bz2", bz2.compress),
                                                  (".xz", lzma.compress)])
def test_every_codec_is_read_and_capped(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        suffix: str, compress: object) -> None:
    raw = dataset("gsm8k/test.jsonl").read_bytes()[:200_000].rsplit(b"\n", 1)[0] + b"\n"
    good = tmp_path / f"gsm8k_part.jsonl{suffix}"
    good.write_bytes(compress(raw))  # type: ignore[operator]
    rep = import_file(store, good, source=f"gsm{suffix}")
    assert (rep.fmt, rep.added, rep.error_count) == ("gsm8k", raw.count(b"\n"), 0)
    # the same file past smaller caps: refused whole, with what it broke
    monkeypatch.setattr(readers, "MAX_DECOMPRESSED_BYTES", 100_000)
    with pytest.raises(ImportFormatError, match="decompresses to more than 100,000 bytes"):
        import_file(store, good, source=f"capped{suffix}")
    monkeypatch.setattr(readers, "MAX_DECOMPRESSED_BYTES", 10**9)
    monkeypatch.setattr(readers, "MAX_DECOMPRESSED_LINES", 50)
    with pytest.raises(ImportFormatError, match="holds more than 50 lines once decompressed"):
        import_file(store, good, source=f"capped{suffix}")
    # damaged: one clear error, nothing stored
    broken = tmp_path / f"broken.jsonl{suffix}"
    broken.write_bytes(compress(raw)[:5_000])  # type: ignore[operator]
    with pytest.raises(ImportFormatError, match=rf"broken.jsonl\{suffix}: damaged, truncated or not "
                                                rf"\{suffix} data \(.+\); nothing was imported"):
        import_file(store, broken, source=f"broken{suffix}")
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE source != ?", (f"gsm{suffix}",)) == 0


def test_compressed_csv_keeps_its_reader(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "mine.csv.xz"
    path.write_bytes(lzma.compress(b"question,answer,level\nAnn has 2 bags of 3. Eats 1. Left?,5,easy\n"))
    rep = import_file(store, path)
    assert (rep.fmt, rep.source, rep.added) == ("csv", "mine", 1)


# --- the line reader -------------------------------------------------------------------------
def test_line_ends_and_long_lines_across_chunks(store: Store, tmp_path: Path) -> None:
    recs = [dict(GOOD, question=f"Q{i}: {i} bags of 3 apples and eats 1. How many?") for i in range(3000)]
    body = [json.dumps(r).encode() for r in recs]
    ends = [b"\n", b"\r\n", b"\r"]
    data = b"".join(line + ends[i % 3] for i, line in enumerate(body))
    # a line over the 1 MB limit in the middle, and a last line without an end
    data += b'{"question": "' + b"x" * 1_100_000 + b'", "answer": "1"}\n' + body[0].replace(b"Q0", b"Q-last")
    path = tmp_path / "mixed_ends.jsonl"
    path.write_bytes(data)
    rep = import_file(store, path, level="easy")
    assert (rep.added, rep.records) == (3001, 3002)
    assert [(e.line, e.message) for e in rep.errors] == [(3001, "line is longer than 1 MB; not imported")]
    last = store.one("SELECT import_line, orig_id FROM seeds WHERE question LIKE 'Q-last%'")
    assert last == {"import_line": 3002, "orig_id": "3002"}


# --- keys equal but for case (issue 30, leftover 2) ---------------------------------------------
def test_json_keys_equal_but_for_case_are_file_line_errors_naming_both(store: Store, tmp_path: Path) -> None:
    # the mapping reads a key missing as named in lower case: with "Question" and "question"
    # in one record, which one a field read was unclear, and the record was taken silently
    clash = {"Question": "Bo has 4 boxes of 5 pens and loses 2. How many?", "question": "Who?",
             "answer": "18"}
    lines = tmp_path / "case.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in (GOOD, clash, {**GOOD, "question": "Cy has 3 bags "
                     "of 4 and eats 2. How many?", "Answer": "10"})) + "\n")
    rep = import_file(store, lines, level="easy")
    assert rep.added == 1
    assert [(e.line, e.message) for e in rep.errors] == [
        (2, "keys 'Question' and 'question' differ only in case: which one a field reads is unclear; "
            "not imported"),
        (3, "keys 'answer' and 'Answer' differ only in case: which one a field reads is unclear; "
            "not imported")]
    array = tmp_path / "case_array.json"
    array.write_text(json.dumps([{**GOOD, "question": "Di has 6 rows of 7 and adds 3. How many?"},
                                 clash], indent=1))
    rep = import_file(store, array, level="easy")
    assert (rep.fmt, rep.added) == ("json", 1)
    assert [e.message for e in rep.errors] == [
        "record 2: keys 'Question' and 'question' differ only in case: which one a field reads is "
        "unclear; not imported"]
    # nested objects are not read through the mapping: their keys may differ in case
    nested = tmp_path / "nested.jsonl"
    nested.write_text(json.dumps({**GOOD, "question": "Ed has 5 bags of 6 and eats 4. How many?",
                                  "meta": {"A": 1, "a": 2}}) + "\n")
    assert import_file(store, nested, level="easy").added == 1


def test_json_keys_equal_but_for_case_are_found_with_one_lookup_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # linear in the number of keys: each key is lowered once, whatever the record holds
    record = {f"k{i}": i for i in range(100_000)}
    record["K99999"] = 0
    lowered = 0

    class Key(str):
        def lower(self) -> str:
            nonlocal lowered
            lowered += 1
            return str.lower(self)

    counted: dict[str, Any] = {Key(k): v for k, v in record.items()}
    assert readers._keys_alike(counted) == ("keys 'k99999' and 'K99999' differ only in case: which one "
                                            "a field reads is unclear; not imported")
    assert lowered == len(record)


def test_asdiv_json_lines_with_lower_case_keys_are_detected_and_read(store: Store, tmp_path: Path) -> None:
    # ASDiv as JSON Lines on the Hugging Face hub writes its fields in lower case
    from qcstation.core.ingest.formats import detect_format
    from tests.core.ingest.public_sets import ASDIV

    path = tmp_path / "asdiv_lower.jsonl"
    path.write_text("\n".join(json.dumps({k.lower(): v for k, v in r.items()}) for r in ASDIV) + "\n",
                    encoding="utf-8")
    assert detect_format(path) == "asdiv"
    rep = import_file(store, path)
    assert (rep.fmt, rep.added, rep.error_count) == ("asdiv", len(ASDIV), 0)
    row = store.one("SELECT question, answer_value, equation FROM seeds WHERE orig_id = 'nluds-2'")
    assert row is not None
    first = ASDIV[1]
    assert row["question"].startswith(first["Body"]) and row["question"].endswith(first["Question"])
    assert (row["answer_value"], row["equation"]) == ("10", first["Formula"])
