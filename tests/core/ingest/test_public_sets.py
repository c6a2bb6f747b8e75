"""Held-out public sets come in as a user expects (issue 14 item 5): SVAMP- and ASDiv-shaped
files written for the tests, imported into a real SQLite store, then made offline by the
real rules and checked by real Z3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.cli import main
from qcstation.common.config import load_config
from qcstation.common.errors import ImportFormatError
from qcstation.core.construct.pipeline import Pipeline
from qcstation.core.ingest.formats import (
    KNOWN_FORMATS,
    NO_LICENCE,
    TABLE,
    answer_without_unit,
    detect_format,
    join_sentences,
    parse_mapping,
)
from qcstation.core.ingest.importer import import_file
from tests.core.ingest.public_sets import (
    ASDIV,
    SVAMP,
    write_asdiv_csv,
    write_asdiv_json,
    write_svamp,
)

SVAMP_MAP = {"question": "Body+Question", "answer": "Answer", "equation": "Equation", "id": "ID"}


def seed(store: Store, source: str, orig_id: str) -> dict[str, Any]:
    row = store.one("SELECT * FROM seeds WHERE source = ? AND orig_id = ?", (source, orig_id))
    assert row is not None, f"no seed {source}:{orig_id}"
    row["meta"] = json.loads(row["meta"])
    return row


# --- SVAMP ------------------------------------------------------------------------------------
def test_svamp_array_is_read_as_svamp(store: Store, tmp_path: Path) -> None:
    path = write_svamp(tmp_path / "SVAMP.json")
    assert detect_format(path) == "svamp"
    rep = import_file(store, path)
    assert (rep.fmt, rep.source, rep.records, rep.added, rep.error_count, rep.warnings) == (
        "svamp", "svamp", len(SVAMP), len(SVAMP), 0, [])
    one = seed(store, "svamp", "sv-1")
    # Body and Question joined: the open "If ..." clause takes the question after a comma
    assert one["question"] == ("Dan had $ 3 left with him after he bought a candy bar. If he had $ 4 at the "
                               "start, how much did the candy bar cost?")
    assert (one["level"], one["import_line"], one["status"], one["filter_reason"]) == (
        "medium", 2, "filtered", "single_step")
    two = seed(store, "svamp", "sv-2")
    assert (two["answer_text"], two["answer_value"], two["equation"], two["steps"], two["status"]) == (
        "153", "153", "( ( 76.0 - 25.0 ) * 3.0 )", 2, "active")
    assert two["meta"]["extra"] == {"Type": "Common-Division"}
    # a body that ends a sentence is followed by a space; one that does not, by a full stop
    assert seed(store, "svamp", "sv-4")["question"].startswith("A waiter had 14 customers. 3 customers left "
                                                               "and then 39 more customers came in. How many")
    assert "15 cookies" not in seed(store, "svamp", "sv-3")["question"]
    # an equation that only states the answer takes no step: filtered as single-step
    z = seed(store, "svamp", "sv-14")
    assert (z["steps"], z["status"], z["filter_reason"]) == (0, "filtered", "single_step")
    assert z["filter_detail"] == "no reasoning step (no operation in equation '8.0': it states the answer)"


def test_svamp_read_as_generic_json_with_map(store: Store, tmp_path: Path) -> None:
    path = write_svamp(tmp_path / "svamp_test.json")
    rep = import_file(store, path, "json", mapping=parse_mapping(["question=Body+Question", "answer=Answer",
                                                                  "equation=Equation", "id=ID"]))
    # a JSON array is reported as json; the level comes from the source name (SVAMP: medium)
    assert (rep.fmt, rep.added, rep.error_count, rep.warnings) == ("json", len(SVAMP), 0, [])
    assert store.scalar("SELECT format FROM import_runs") == "json"
    assert seed(store, "svamp_test", "sv-2")["question"] == seed_text(SVAMP[1])
    assert seed(store, "svamp_test", "sv-2")["level"] == "medium"


def seed_text(rec: dict[str, Any]) -> str:
    return join_sentences([rec["Body"], rec["Question"]])


def test_missing_columns_are_one_error_with_the_mapping_to_use(store: Store, tmp_path: Path) -> None:
    path = write_svamp(tmp_path / "held_out.json")
    with pytest.raises(ImportFormatError) as err:
        import_file(store, path, "json", level="medium")
    assert str(err.value) == (
        f"{path}:2: the first record has no 'question' or 'answer'; its fields are 'ID', 'Body', 'Question', "
        "'Equation', 'Answer', 'Type'. Say which columns to read with --map FIELD=COLUMN (join columns with "
        "'+'), e.g. --map question=Body+Question --map answer=Answer --map equation=Equation --map id=ID")
    assert store.scalar("SELECT COUNT(*) FROM import_runs") == store.scalar("SELECT COUNT(*) FROM seeds") == 0
    # one column of a join missing: named, with the columns there are
    with pytest.raises(ImportFormatError, match=r"no 'Body'; its fields are 'id', 'Question'"):
        import_file(store, write_svamp(tmp_path / "q.json", [{"id": 1, "Question": "How many?", "answer": 3}]),
                    "json", level="medium", mapping={"question": "Body+Question"})
    # a known format forced on the wrong file: one error, not one per record
    with pytest.raises(ImportFormatError, match=r"this is not a gsm8k file: the first record has no "
                                                r"'question' or 'answer'; its fields are 'ID', 'Body'"):
        import_file(store, path, "gsm8k")


def test_question_column_alone_warns_no_number_and_duplicates(store: Store, tmp_path: Path) -> None:
    # only the Question column: most questions state no number, and short questions repeat
    recs = [dict(r, Question="How many are there?") if i % 2 else r for i, r in enumerate(SVAMP)]
    path = write_svamp(tmp_path / "svamp_q.json", recs)
    rep = import_file(store, path, "json", level="medium",
                      mapping={"question": "Question", "answer": "Answer", "id": "ID"})
    fresh = rep.added - rep.duplicates
    assert (rep.added, rep.duplicates, rep.no_number, fresh) == (14, 6, 8, 8)
    assert rep.warnings == [
        "8 of 8 new questions state no number (line 2, 10, 18, …): is part of the question in "
        "another column? --map question=COLUMN1+COLUMN2 joins columns",
        "6 of 14 new records repeat a question already stored for source 'svamp_q': is part of the question "
        "in another column? (qcstation import --list-filtered lists them)"]
    run = store.one("SELECT detail FROM events WHERE action = 'seeds.imported'")
    assert run is not None and json.loads(run["detail"])["warnings"] == rep.warnings
    # the whole question: no warning
    ok = import_file(store, write_svamp(tmp_path / "svamp_full.json"), mapping=dict(SVAMP_MAP))
    assert ok.warnings == [] and ok.no_number == 0


def test_cli_map_join_and_one_line_per_kind_of_error(tmp_path: Path, db_file: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    good = dict(SVAMP[1])
    recs = [good] + [{"ID": f"x{i}", "Body": "A box has 3 rows of 4.", "Question": "How many?"}
                     for i in range(50)]
    path = write_svamp(tmp_path / "mixed.json", recs)
    code = main(["--db", str(db_file), "import", str(path), "--format", "json", "--level", "medium",
                 "--map", "question=Body+Question", "--map", "answer=Answer", "--map", "id=ID"])
    out, err = capsys.readouterr()
    assert code == 1 and "errors           50" in out and "format json" in out
    lines = err.splitlines()
    assert lines[:3] == [f"{path}:{10 + 5 * i}: record {2 + i}: missing required field 'Answer' (the answer)"
                         for i in range(3)]
    assert lines[3] == f"{path}: ... and 47 more with the same error (lines 25, 30, 35, 40, 45, …)"
    assert len(lines) == 4
    with Store(db_file) as store:
        assert seed(store, "mixed", "sv-2")["question"] == seed_text(SVAMP[1])


# --- ASDiv ------------------------------------------------------------------------------------
@pytest.mark.parametrize("writer", [write_asdiv_json, write_asdiv_csv])
def test_asdiv_units_and_formulas(store: Store, tmp_path: Path, writer: Any) -> None:
    path = writer(tmp_path / ("ASDiv.json" if writer is write_asdiv_json else "ASDiv.csv"))
    assert detect_format(path) == "asdiv"
    rep = import_file(store, path)
    assert (rep.fmt, rep.added, rep.error_count) == ("asdiv", len(ASDIV), 0)
    apples = seed(store, "asdiv", "nluds-1")
    # the unit goes to meta, the number is the answer; "7+2=9" is one operation
    assert (apples["answer_text"], apples["answer_value"], apples["level"]) == ("9", "9", "easy")
    assert apples["meta"]["answer_as_written"] == "9 (apples)" and apples["meta"]["answer_unit"] == "apples"
    assert (apples["steps"], apples["filter_reason"]) == (1, "single_step")
    assert apples["question"] == ("Seven red apples and two green apples are in the basket. How many apples "
                                  "are in the basket?")
    two = seed(store, "asdiv", "nluds-2")
    assert (two["answer_value"], two["equation"], two["steps"], two["status"]) == ("10", "9+6-5=10", 2, "active")
    assert seed(store, "asdiv", "nluds-7")["answer_value"] == "47/2"
    # two numbers with units: ambiguous, not read as one
    rem = seed(store, "asdiv", "nluds-9")
    assert (rem["answer_text"], rem["filter_reason"]) == ("3 (bags) r 2 (marbles)", "not_single_number")
    assert "answer_unit" not in rem["meta"]
    assert (import_file(store, path).skipped_existing, store.scalar("SELECT COUNT(*) FROM seeds")) == (
        len(ASDIV), len(ASDIV))


def test_every_public_format_carries_its_licence_into_a_release() -> None:
    from qcstation.core.release.releases import source_licence

    # the licence is the format's own record: a public set without one would ship unstated
    assert [n for n in KNOWN_FORMATS if not TABLE[n].licence] == []
    assert source_licence("svamp").startswith("MIT (arkilpatel/SVAMP)")
    assert source_licence("asdiv").startswith("CC BY-NC 4.0")
    assert source_licence("gsm8k") == "MIT (openai/grade-school-math)"
    # a generic file's source (its stem) has no recorded licence: the curator states it
    assert source_licence("my_seeds") == source_licence("jsonl") == NO_LICENCE


def test_answer_without_unit() -> None:
    assert answer_without_unit("9 (apples)") == ("9", "apples")
    assert answer_without_unit("$5 (dollars)") == ("$5", "dollars")
    assert answer_without_unit("10 (cm^2)") == ("10", "cm^2")
    assert answer_without_unit("1/2 (pie)") == ("1/2", "pie")
    for unread in ("3 (boxes) r 2", "7 (red); 5 (green)", "25 (approx.)", "(9) apples", "9", "apples (9)"):
        assert answer_without_unit(unread) is None, unread


def test_join_sentences() -> None:
    assert join_sentences(["Tom has 3 cats.", "How many?"]) == "Tom has 3 cats. How many?"
    assert join_sentences(["Tom has 3 cats", "How many?"]) == "Tom has 3 cats. How many?"
    assert join_sentences(["Tom has 3 cats. If he gets 2 more", "How many does he have?"]) == (
        "Tom has 3 cats. If he gets 2 more, how many does he have?")
    assert join_sentences(["If Tom gets 2 more", "Tom will have 5."]) == "If Tom gets 2 more. Tom will have 5."
    with pytest.raises(ImportFormatError, match="only question, solution, equation can join"):
        parse_mapping(["answer=A+B"])
    with pytest.raises(ImportFormatError, match="empty column name"):
        parse_mapping(["question=Body+"])
    assert parse_mapping(["Body+Question=question"]) == {"question": "Body+Question"}


# --- offline references ------------------------------------------------------------------------
def test_equations_get_exact_reasoning_and_arithmetic_offline(tmp_path: Path, db_file: Path) -> None:
    with Store(db_file) as store:
        import_file(store, write_svamp(tmp_path / "SVAMP.json"))
        import_file(store, write_asdiv_json(tmp_path / "ASDiv.json"))
        active = store.query("SELECT id, answer_value FROM seeds WHERE status = 'active'")
    cfg = (tmp_path / "qc.toml")
    cfg.write_text("")
    with Pipeline(db_file, load_config(cfg, env={})) as p:
        p.generate()
    with Store(db_file) as store:
        for s in active:
            for dim in ("reasoning", "arithmetic"):
                art = store.one("SELECT status, content, verify_result FROM artifacts WHERE seed_id = ? AND "
                                "dimension = ? ORDER BY version DESC LIMIT 1", (s["id"], dim))
                assert art is not None and art["status"] == "verified", (s, dim, art)
                assert json.loads(art["verify_result"])["status"] == "verified"
        notation = store.one(
            "SELECT a.content FROM artifacts a JOIN seeds s ON s.id = a.seed_id WHERE s.orig_id = 'nluds-2' "
            "AND a.dimension = 'arithmetic'")
    assert notation is not None
    assert json.loads(notation["content"])["notation"] == (
        "Let a = 9, b = 6 and c = 5. Let answer = a + b − c. What is the value of answer?")
