"""Issue 10 "Done when": a fuzzing suite (Hypothesis) throws generated hostile seeds,
answers, CSV/JSONL files, model output and SMT-LIB at import, the rules, the SMT-LIB
reader and a real generate run, and checks that every run finishes, that good seeds
still get their artifacts and that bad ones carry a reason.

Example counts are modest (the suite shares two cores with everything else); each
property still runs against real files, a real SQLite store, the real parsers and, for
generate, the real isolated Z3 pool and the loopback fake OpenAI server."""

from __future__ import annotations

import json
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from db import Store
from qcstation.common.config import load_config
from qcstation.core.ingest.importer import import_file
from qcstation.core.construct.pipeline import Pipeline
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.common.safe import has_unsafe, markdown, one_line, printable
from qcstation.common.errors import ImportFormatError, QCStationError
from tests.fake_openai import FakeOpenAI

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW_FUZZ = settings(max_examples=8, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# -- strategies -------------------------------------------------------------------------------

CONTROL = st.sampled_from(["\x1b]0;t\x07", "\x1b[2J", "\x1b[31m", "\r", "\b", "\x00", "\x7f",
                           "\x9b", "\u202e", "\u2066", "\u2028", "\ud800", "\n", "\t"])
hostile_text = st.lists(st.one_of(st.text(max_size=20), CONTROL,
                                  st.sampled_from(["[bold]", "[/]", "<script>", "**", "|", "`", "#"])),
                        max_size=12).map("".join)


@st.composite
def expressions(draw: Any, depth: int = 0) -> str:
    """Arithmetic as GSM8K annotations write it, made hostile: deep nesting, long numbers,
    power towers, stray operators."""
    kind = draw(st.sampled_from(["num", "num", "bin", "paren", "pow", "deep", "bignum", "junk"]
                                if depth < 4 else ["num"]))
    if kind == "num":
        return str(draw(st.integers(0, 10_000)))
    if kind == "bignum":
        return "9" * draw(st.integers(40, 6000))
    if kind == "bin":
        return (draw(expressions(depth + 1)) + draw(st.sampled_from(["+", "-", "*", "/", "^", "**"]))
                + draw(expressions(depth + 1)))
    if kind == "paren":
        return f"({draw(expressions(depth + 1))})"
    if kind == "pow":
        return "(" * 6 + "2" + ")^12" * draw(st.integers(1, 8))
    if kind == "deep":
        n = draw(st.integers(50, 4000))
        return "(" * n + draw(expressions(depth + 1)) + ")" * n
    return draw(st.text(alphabet="()+-*/^%.,0123456789x ", max_size=60))


def _good(i: int) -> dict[str, str]:
    i += 4  # Tom's 0 + 3 = 3 would equal the question's 3: not rule-made (equal-value-link)
    return {"question": f"Tom has {i} apples and buys 3 more. Then he doubles them. How many now?",
            "answer": f"He has {i}+3=<<{i}+3={i + 3}>>{i + 3}.\n"
                      f"Then {i + 3}*2=<<{i + 3}*2={2 * (i + 3)}>>{2 * (i + 3)}.\n#### {2 * (i + 3)}"}


hostile_record = st.one_of(
    st.fixed_dictionaries({"question": hostile_text, "answer": hostile_text}),
    st.fixed_dictionaries({"question": st.text(max_size=40),
                           "answer": expressions().map(lambda e: f"<<{e}=5>>5\n#### 5")}),
    st.fixed_dictionaries({"question": st.just("How big?"),
                           "answer": st.integers(4000, 9000).map(lambda n: "#### " + "9" * n)}),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                 max_leaves=10),
)
raw_line = st.one_of(st.binary(max_size=80), st.just(b"[" * 3000 + b"]" * 3000),
                     st.just(b'{"question": "\\ud800 lone", "answer": "#### 3"}'))


# -- safe text ----------------------------------------------------------------------------------

@FUZZ
@given(hostile_text)
def test_safe_functions_never_let_a_control_character_through(text: str) -> None:
    assert not has_unsafe(printable(text))
    assert not has_unsafe(one_line(text), keep_newlines=False)
    md = markdown(text)
    assert not has_unsafe(md, keep_newlines=False) and "<" not in md and ">" not in md


# -- rules ----------------------------------------------------------------------------------------

@FUZZ
@given(expressions(), st.sampled_from(["solution", "equation"]))
def test_rules_finish_quickly_with_a_result_or_a_reason(expr: str, where: str) -> None:
    seed = ({"question": "q", "answer_text": "5", "solution": f"It is <<{expr}=5>>5.\n#### 5"}
            if where == "solution" else {"question": "q", "answer_text": "5", "equation": f"x = {expr}"})
    t0 = time.process_time()     # CPU time, not wall clock: another process's load cannot inflate it
    try:
        result = rule_for_seed(seed)
    except RuleError as exc:
        assert str(exc) and len(str(exc)) <= 400
    else:
        assert isinstance(result.value, Fraction) and result.smtlib
        assert len(result.smtlib) < 2_000_000
    assert time.process_time() - t0 < 5


# -- SMT-LIB reader -------------------------------------------------------------------------------

smtlib_text = st.one_of(
    st.text(max_size=200),
    st.integers(10, 5000).map(lambda n: "(assert " * n + "true" + ")" * n),
    st.lists(st.sampled_from(["(", ")", "declare-const", "answer", "Real", "assert", "(= answer 5)",
                              "(push 1)", "(set-option :regular-output-channel \"/tmp/x\")",
                              "(include \"/etc/passwd\")", "|sym\x1b|", "\"str\"", "#x1F", "9" * 5000,
                              "(check-sat)", "(get-value (answer))", ";comment\n", " "]),
             max_size=60).map(" ".join),
)


@FUZZ
@given(smtlib_text)
def test_smtlib_reader_refuses_or_reads_with_limits(text: str) -> None:
    from qcstation.core.verify.smtlib import parse_script

    try:
        parse_script(text)
    except QCStationError as exc:
        assert str(exc)


# -- import -----------------------------------------------------------------------------------------

def _count(store: Store, source: str) -> int:
    return int(store.scalar("SELECT COUNT(*) FROM seeds WHERE source = ?", (source,)))


@FUZZ
@given(st.lists(st.one_of(hostile_record.map(lambda r: ("rec", r)), raw_line.map(lambda b: ("raw", b))),
                max_size=8),
       st.sampled_from([b"\n", b"\r\n", b"\r"]), st.booleans())
def test_import_of_hostile_jsonl_finishes_and_counts_what_it_stored(
        items: list[tuple[str, Any]], ending: bytes, bom: bool) -> None:
    lines: list[bytes] = []
    good_lines: list[int] = []
    for n in range(3):
        lines.append(json.dumps(_good(n)).encode())
        good_lines.append(len(lines))
    for kind, value in items:
        lines.append(json.dumps(value).encode() if kind == "rec" else value.replace(b"\n", b" ").replace(b"\r", b" "))
    lines.append(json.dumps(_good(99)).encode())
    good_lines.append(len(lines))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzz.jsonl"
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + ending.join(lines) + ending)
        with Store(Path(d) / "f.db") as store:
            try:
                report = import_file(store, path, "gsm8k", source="fuzz")
            except ImportFormatError as exc:   # a whole-file refusal must say why, in one line
                assert str(exc) and "\n" not in str(exc)
                return
            stored = _count(store, "fuzz")
            assert report.added == stored == store.scalar(
                "SELECT added FROM import_runs WHERE id = ?", (report.run_id,))
            orig = {r["orig_id"] for r in store.query("SELECT orig_id FROM seeds WHERE source = 'fuzz'")}
    assert {str(n) for n in good_lines} <= orig                # good records are always stored
    # every record read was stored or reported with its line: nothing silently lost
    assert report.records == stored + report.skipped_existing + len(report.errors)
    assert all(e.line is not None and e.message for e in report.errors)


csv_cell = st.one_of(st.text(max_size=15), hostile_text, st.sampled_from(['"', '""', ",", "\r\n", "\r", "\n"]))


@FUZZ
@given(st.lists(st.lists(csv_cell, min_size=1, max_size=4), max_size=6), st.sampled_from(["\n", "\r\n", "\r"]))
def test_import_of_hostile_csv_finishes_and_counts_what_it_stored(rows: list[list[str]], ending: str) -> None:
    good = ["Tom has 2 apples and 3 more. How many?", "5", "easy"]
    body = ending.join([",".join(["question", "answer", "level"]), ",".join(good)]
                       + [",".join(r) for r in rows] + [",".join(["Ann has 7 pens and 1 more. How many?", "8", "easy"])])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzz.csv"
        path.write_bytes((body + ending).encode("utf-8", "surrogatepass"))
        with Store(Path(d) / "f.db") as store:
            try:
                report = import_file(store, path, "csv", source="fuzz")
            except ImportFormatError as exc:
                assert str(exc)
                return
            assert report.added == _count(store, "fuzz")
            questions = {r["question"] for r in store.query("SELECT question FROM seeds")}
    assert good[0] in questions                                 # the good row before them is stored
    assert all(e.line is not None and e.message for e in report.errors)


# -- generate (real pipeline, real Z3 pool, fake model server) -----------------------------------------

hostile_solution = expressions().map(lambda e: f"It is <<{e}=5>>5.\nThen <<5*2=10>>10.\n#### 10")
hostile_model_output = st.one_of(
    hostile_text, smtlib_text,
    st.just("(declare-const answer Real)\n(assert (= answer (/ 1 0)))\n(check-sat)\n(get-value (answer))"),
    st.just("```smt2\n(declare-const answer Int)\n(assert (> answer 5))\n(check-sat)\n```"),
)


@pytest.mark.slow
@SLOW_FUZZ
@given(st.lists(hostile_solution, min_size=1, max_size=3), hostile_model_output)
def test_generate_finishes_good_seeds_verified_bad_seeds_with_a_reason(
        solutions: list[str], model_output: str) -> None:
    with tempfile.TemporaryDirectory() as d, FakeOpenAI() as fake:
        fake.responder = lambda request: model_output
        db = Path(d) / "g.db"
        rows = [_good(i) for i in (1, 3, 4)] + [   # (0 and 2 apples: the rules refuse them now)
            {"question": f"Hostile {n}: how many apples are left at the end?", "answer": s}
            for n, s in enumerate(solutions)]
        seeds = Path(d) / "seeds.jsonl"
        seeds.write_text("".join(json.dumps(r) + "\n" for r in rows))
        with Store(db) as store:
            import_file(store, seeds, "gsm8k", source="fuzz")
            with store.transaction():
                store.execute("UPDATE seeds SET status = 'active'")
        toml = Path(d) / "qc.toml"
        toml.write_text(f'[generator]\nmodel = "fake"\nbase_url = "{fake.base_url}"\nretries = 0\n'
                        'backoff_s = 0.01\ntimeout_s = 5\n[generation]\nmax_attempts = 1\n')
        cfg = load_config(toml, env={})
        with Pipeline(db, cfg) as pipeline:
            pipeline.generate(dimensions=["reasoning"])
        asked_model = bool(fake.chat_requests)
        with Store(db) as store:
            rows_out = store.query(
                "SELECT s.id, s.question, a.status, a.verify_result FROM seeds s LEFT JOIN artifacts a "
                "ON a.seed_id = s.id AND a.dimension = 'reasoning' AND a.status != 'superseded'")
            attempts = {r["seed_id"]: r for r in store.query(
                "SELECT seed_id, parse_error, verify_status FROM attempts WHERE dimension = 'reasoning' "
                "ORDER BY id")}
    # a seed no rule could take went to the model (whose hostile output was checked)
    assert asked_model or all(r["status"] == "verified" for r in rows_out)
    for row in rows_out:
        if row["question"].startswith("Tom"):
            assert row["status"] == "verified", row              # good seeds keep their artifacts
        elif row["status"] != "verified":
            attempt = attempts.get(row["id"])
            reason = (row["verify_result"] or "") + str(attempt and (attempt["parse_error"] or attempt["verify_status"]))
            assert reason.strip() and reason != "None", row      # bad ones carry a reason
