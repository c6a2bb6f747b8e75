"""Issue 10: import limits. Every line-ending convention, UTF-8 with or without BOM,
UTF-16 refused by name, FIFOs and devices refused, size limits with FILE:LINE, huge
numbers recorded as not importable, and the run's counts equal to what was stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from db import Store
from qcstation.common.errors import ImportFormatError
from qcstation.core.ingest.importer import import_file
from qcstation.core.ingest.readers import MAX_ANSWER_DIGITS
from tests.must import must

ROOT = Path(__file__).resolve().parents[3]


def _gsm(i: int) -> dict[str, str]:
    return {"question": f"Tom has {i} apples and buys 3 more at the market. How many now?",
            "answer": f"He has {i} + 3 = <<{i}+3={i + 3}>>{i + 3} apples.\nSo {i + 3}.\n#### {i + 3}"}


def _stored(store: Store, source: str) -> int:
    return int(store.scalar("SELECT COUNT(*) FROM seeds WHERE source = ?", (source,)))


def _run_added(store: Store, run_id: int) -> int:
    return int(store.scalar("SELECT added FROM import_runs WHERE id = ?", (run_id,)))


def test_huge_answer_is_one_bad_record_not_a_lost_batch(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    rows = [_gsm(i) for i in range(6)]
    rows[2] = {"question": "How big is it really?", "answer": "Big.\n#### " + "9" * 5000}
    rows[4] = {"question": "How big is this one?", "answer": "Big.\n#### " + "7" * (MAX_ANSWER_DIGITS + 1)}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = import_file(store, path, source="huge")
    lines = {e.line: e.message for e in report.errors}
    assert set(lines) == {3, 5}
    assert "not importable" in lines[3] and "not importable" in lines[5]
    assert str(report.errors[0]).startswith(f"{path}:3:")
    assert report.added == _stored(store, "huge") == 4 == _run_added(store, must(report.run_id))


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_every_line_ending_convention(store: Store, tmp_path: Path, ending: str) -> None:
    csv_path = tmp_path / "seeds.csv"
    csv_path.write_bytes(ending.join(["question,answer,level",
                                      "Tom has 2 apples and 3 more. How many?,5,easy",
                                      '"Ann has 4 pens, and 1 more. How many?",5,easy', ""]).encode())
    report = import_file(store, csv_path, "csv", source=f"csv{len(ending)}{ending == chr(13)}")
    assert report.errors == [] and report.added == 2
    jl = tmp_path / "seeds.jsonl"
    jl.write_bytes(ending.join(json.dumps(_gsm(i)) for i in range(3)).encode() + ending.encode())
    report = import_file(store, jl, "gsm8k", source=f"jl{len(ending)}{ending == chr(13)}")
    assert report.errors == [] and report.added == 3


def test_utf8_bom_is_read_and_utf16_is_refused_by_name(store: Store, tmp_path: Path) -> None:
    text = "".join(json.dumps(_gsm(i), ensure_ascii=False) + "\n" for i in range(2))
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert import_file(store, bom, "gsm8k", source="bom").added == 2
    for enc, name in (("utf-16", "UTF-16LE"), ("utf-16-be", "UTF-16BE"), ("utf-16-le", "UTF-16LE")):
        p = tmp_path / f"{enc}.jsonl"
        p.write_bytes(text.encode(enc))
        with pytest.raises(ImportFormatError, match=f"is {name} text.*iconv"):
            import_file(store, p, "gsm8k", source=enc)


def test_fifo_and_devices_are_refused_without_reading(store: Store, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    refused: list[str] = []

    def refuse(path: Path) -> None:
        try:
            import_file(store, path, "gsm8k")
        except ImportFormatError as exc:
            refused.append(str(exc))

    for path in (fifo, Path("/dev/zero")):
        # opening the FIFO (no writer) or reading /dev/zero would never end: the join's 300 s
        # only turn that hang into a failure, however slow the machine is
        t = threading.Thread(target=refuse, args=(path,), daemon=True)
        t.start()
        t.join(300)
        assert not t.is_alive(), f"import_file blocked on {path}"
    assert len(refused) == 2 and "FIFO" in refused[0] and "device" in refused[1], refused
    # a writer that opens the FIFO later still has its data: nothing was read from it
    writer = subprocess.Popen([sys.executable, "-c",
                               f"open({str(fifo)!r}, 'w').write('kept\\n')"])
    with open(fifo) as fh:
        assert fh.read() == "kept\n"
    writer.wait(timeout=300)


def test_size_limits_name_the_line_and_the_rest_imports(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("w") as fh:
        fh.write(json.dumps({"question": "x" * 3_000_000, "answer": "#### 1"}) + "\n")   # 3 MB line
        fh.write(json.dumps(_gsm(1)) + "\n")
        fh.write(json.dumps({"question": "y" * 30_000 + "?", "answer": "1+1=<<1+1=2>>2\n#### 2"}) + "\n")
        fh.write("[" * 5000 + "]" * 5000 + "\n")                                             # deep JSON
        fh.write(json.dumps(_gsm(2)) + "\n")
    report = import_file(store, path, "gsm8k", source="big")
    lines = {e.line: e.message for e in report.errors}
    assert "longer than 1 MB" in lines[1]
    assert "question has 30,001 characters" in lines[3]
    assert 4 in lines
    assert report.added == 2 == _stored(store, "big")
    assert int(store.scalar("SELECT MAX(LENGTH(question)) FROM seeds")) < 1000


def test_check_smt_reads_a_bounded_amount(tmp_path: Path) -> None:
    # /dev/zero never ends: only the size bound can end the command (timeout: a hang guard only)
    run = subprocess.run([sys.executable, "-m", "qcstation", "check-smt", "/dev/zero"],
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 2 and "larger than" in run.stderr and "Traceback" not in run.stderr


def test_binary_files_and_huge_integers_are_refused_in_words_of_their_own(store: Store, tmp_path: Path) -> None:
    """attack9: a file whose head is mostly NUL bytes was "binary (not text) text", to be
    converted with `iconv -f binary`; a 100,001-digit JSON integer's error told the user to
    call sys.set_int_max_str_digits(). The integer costs its own row only."""
    nul = tmp_path / "nul.jsonl"
    nul.write_bytes((json.dumps(_gsm(0)) + "\n").encode() + b"\x00" * 1000 + b"\n")
    with pytest.raises(ImportFormatError) as err:
        import_file(store, nul, "gsm8k", source="nul")
    assert "is not text" in str(err.value) and "iconv" not in str(err.value) and "text text" not in str(err.value)
    big = tmp_path / "big.jsonl"
    big.write_text('{"question": "Tom has 3 apples and 4 more. How many?", "answer": 1' + "0" * 100_000
                   + "}\n" + json.dumps(_gsm(1)) + "\n")
    report = import_file(store, big, "gsm8k", source="big")
    assert report.added == 1 and len(report.errors) == 1, report.errors
    assert "more than 4,300 digits" in str(report.errors[0]) and "sys." not in str(report.errors[0])
