"""Equation seeds (SVAMP, ASDiv, MAWPS) get real formalizations (issue 26.6): every number of
the equation a declared given tied to its place in the question, as GSM8K's are; a remainder
answer is refused with its reason; ASDiv's lower-case JSON Lines and MAWPS's one-element
lists are read. Imported and generated as a new user would, through real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from db import Store
from qcstation.core.construct.make.rules import RuleError, smt_from_equation
from qcstation.core.construct.check.selfcheck import audit_artifact
from tests.conftest import ROOT


def test_each_number_of_the_equation_is_a_given_tied_to_its_words() -> None:
    q = ("There are 7 rows of chairs with 14 chairs in each row. 16 chairs are taken. "
         "How many chairs are free?")
    r = smt_from_equation("( ( 7.0 * 14.0 ) - 16.0 )", Fraction(82), question=q)
    assert "(assert (= answer (- (* g1_rows g2_chairs) g3_chairs)))" in r.smtlib
    assert [(g["name"], g["value"], q[g["span"][0]:g["span"][1]]) for g in r.givens] == [
        ("g1_rows", "7", "7"), ("g2_chairs", "14", "14"), ("g3_chairs", "16", "16")]
    assert r.bound and not r.uncertain
    # the project's own audit finds no bare literal any more
    seed = {"question": q, "solution": "", "answer_text": "82", "answer_value": "82"}
    assert [f.code for f in audit_artifact("reasoning", {"smtlib": r.smtlib}, seed)] == []


def test_word_givens_linear_equations_and_unstated_numbers() -> None:
    q = "Sam has 3 boxes of pencils. Each box has 18 pencils. He gives away half of them."
    r = smt_from_equation("( ( 3.0 * 18.0 ) / 2.0 )", Fraction(27), question=q)
    assert "(assert (= w_half_parts 2))" in r.smtlib
    q2 = "Joan found 70 seashells. She has 27 left. How many did she give away?"
    r2 = smt_from_equation("x + 27 = 70", Fraction(43), question=q2)
    assert "(assert (= (+ answer g1) g2_seashells))" in r2.smtlib and r2.value == 43
    with pytest.raises(RuleError, match="a number the question does not state: .*11"):
        smt_from_equation("x = 3 * 7 + 11", Fraction(32), question="A pie costs 3 dollars. "
                          "How much do 7 pies cost?")
    # a value stated twice and used twice: tied by order, recorded as uncertain (flagged)
    r3 = smt_from_equation("( 120.0 - ( 25.0 + 25.0 ) )", Fraction(70),
                           question="Lisa read 25 pages on Monday and 25 pages on Tuesday. "
                                    "The book has 120 pages. How many pages are left?")
    assert r3.uncertain and r3.bound is False


def test_a_remainder_answer_is_refused_with_its_reason() -> None:
    with pytest.raises(RuleError, match=r"quotient with a remainder \(21 remainder 2\)"):
        smt_from_equation("(4*32)/6=21 r2", Fraction(21),
                          question="Nina has 4 bags with 32 marbles. She shares them among 6 friends.")


def _cli(db: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_held_out_equation_files_import_and_formalize_with_declared_givens(tmp_path: Path) -> None:
    svamp = [{"ID": "s1", "Body": "A baker made 48 muffins in the morning and 35 muffins in "
              "the afternoon. He sold 52 muffins.", "Question": "How many muffins are left?",
              "Equation": "( ( 48.0 + 35.0 ) - 52.0 )", "Answer": 31.0, "Type": "Addition"},
             {"ID": "s2", "Body": "A farmer packed 144 eggs into cartons of 6 eggs each. He "
              "sold 11 cartons.", "Question": "How many cartons are left?",
              "Equation": "( ( 144.0 / 6.0 ) - 11.0 )", "Answer": 13.0, "Type": "Division"}]
    (tmp_path / "svamp.json").write_text(json.dumps(svamp), encoding="utf-8")
    asdiv = [{"id": "a1", "body": "Ben earns 9 dollars an hour. He works 6 hours on Saturday "
              "and 5 hours on Sunday.", "question": "How much does he earn?",
              "formula": "9*(6+5)=99", "answer": "99 (dollars)", "solution_type": "Mult"},
             {"id": "a2", "body": "Nina has 4 bags with 32 marbles in each bag. She shares them "
              "among 6 friends.", "question": "How many marbles does each friend get?",
              "formula": "(4*32)/6=21 r2", "answer": "21", "solution_type": "Floor-Division"}]
    (tmp_path / "asdiv.jsonl").write_text("".join(json.dumps(r) + "\n" for r in asdiv),
                                          encoding="utf-8")
    mawps = [{"iIndex": 903, "sQuestion": "A box of cookies has 24 cookies. Fred buys 5 boxes "
              "and eats 13 cookies. How many cookies are left?",
              "lEquations": ["X=((24.0*5.0)-13.0)"], "lSolutions": [107.0]}]
    (tmp_path / "mawps.json").write_text(json.dumps(mawps), encoding="utf-8")
    db = tmp_path / "eq.db"
    for args in (["svamp.json"], ["asdiv.jsonl"],
                 ["mawps.json", "--map", "question=sQuestion", "--map", "answer=lSolutions",
                  "--map", "equation=lEquations", "--map", "id=iIndex"]):
        r = _cli(db, tmp_path, "import", *args)
        assert r.returncode == 0 and "errors           0" in r.stdout, r.stdout + r.stderr
    assert "format asdiv" in _cli(db, tmp_path, "import", "asdiv.jsonl").stdout
    r = _cli(db, tmp_path, "generate", "--dimension", "reasoning")
    assert "quotient with a remainder" in r.stdout + r.stderr
    with Store(db) as s:
        rows = s.query("SELECT s.orig_id, s.question, a.content, a.flag_codes FROM artifacts a "
                       "JOIN seeds s ON s.id = a.seed_id WHERE a.dimension = 'reasoning' "
                       "AND a.status = 'verified' ORDER BY s.orig_id")
    assert [r["orig_id"] for r in rows] == ["903", "a1", "s1", "s2"]
    for row in rows:
        content = json.loads(row["content"])
        assert len(content["givens"]) == 3, content
        for g in content["givens"]:
            assert row["question"][g["span"][0]:g["span"][1]] == g["words"]
        assert row["flag_codes"] == "", row
