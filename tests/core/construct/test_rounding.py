"""A whole count the solution rounds its last computation to (issue 26.1): the rule reads it only
where the question's words ask a whole count and the solution's words confirm it; Z3 checks the
formalization and the notation question that states it in words; derive refuses such a parent
with its reason."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from qcstation.core.construct.check.notation_rephrasing import check_rephrasing
from qcstation.core.construct.make.notation import notation_to_smtlib, parse_notation_text, render_notation
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.expr import Call, Name
from qcstation.core.verify.solve import verify_in_process

ROOT = Path(__file__).resolve().parents[3]


def _z3_value(smtlib: str) -> Fraction:
    out = verify_in_process(smtlib)
    assert out.status == "verified" and out.value is not None, (out.status, out.message, smtlib)
    return out.value


def _seed(question: str, solution: str) -> dict[str, str]:
    return {"question": question, "solution": solution}


BOXES = _seed("A school has 25 students. Each student needs 2 pencils for a test. Pencils are sold in "
              "boxes of 12. How many boxes does the school need to buy?",
              "The students need 25 * 2 = <<25*2=50>>50 pencils.\nThat is 50 / 12 = <<50/12=4.17>>4.17 boxes.\n"
              "Since it cannot buy part of a box, it needs to buy 5 boxes.\n#### 5")
SHARE = _seed("Sam answered 7 of the 9 questions of a quiz right. What percentage of the questions did he "
              "answer right, rounded to the nearest percent?",
              "He answered 7 / 9 * 100 = <<7/9*100=77.78>>77.78 percent right, which rounds up to 78%.\n#### 78")
FULL = _seed("A baker has 100 cookies. She packs them in boxes of 12. How many full boxes can she fill?",
             "She can fill 100 / 12 = <<100/12=8.33>>8.33 boxes, so she can fill 8 full boxes.\n#### 8")


@pytest.mark.parametrize(("seed", "fn", "words", "gold"), [
    (BOXES, "ceil", "the least whole number at least", 5),
    (SHARE, "round", "rounded to the nearest whole number", 78),
    (FULL, "floor", "the greatest whole number at most", 8),
])
def test_a_rounded_count_is_formalized_and_stated_in_words(seed: dict[str, str], fn: str, words: str,
                                                           gold: int) -> None:
    rule = rule_for_seed(seed)
    last = rule.steps[-1]
    assert rule.answer_step == last.name and last.expr == Call(fn, Name(rule.steps[-2].name))
    assert rule.value == gold and "to_int" in rule.smtlib
    assert _z3_value(rule.smtlib) == gold
    notation = render_notation(rule.smtlib)
    assert words in notation.text, notation.text
    assert check_rephrasing(notation, notation.text) == []  # its words are notation words, no number word
    assert notation.value == gold
    # the question a model sees, read back from its words, is what Z3 checks
    assert parse_notation_text(notation.text).definitions[-1][1] == Call(fn, Name(notation.definitions[-2][0]))
    assert _z3_value(notation_to_smtlib(notation)) == gold


@pytest.mark.parametrize("seed", [
    # hours are a measure, not counted items: 33.33 hours is an answer, the words ask no whole count
    _seed("Mia needs $500 for a trip. She earns $15 per hour. How many hours will she need to work?",
          "She needs to work 500 / 15 = <<500/15=33.33>>33.33 hours, so she needs to work 34 hours.\n#### 34"),
    # the words ask what is needed (up), the gold rounds down: no reading
    _seed("A school has 25 students. Each student needs 2 pencils for a test. Pencils are sold in "
          "boxes of 12. How many boxes does the school need to buy?",
          "The students need 25 * 2 = <<25*2=50>>50 pencils.\nThat is 50 / 12 = <<50/12=4.17>>4.17 boxes, "
          "so it needs to buy 4 boxes.\n#### 4"),
    # to the nearest tenth is no whole count
    _seed("Sam answered 7 of the 9 questions of a quiz right. What percentage of the questions did he "
          "answer right, rounded to the nearest tenth?",
          "He answered 7 / 9 * 100 = <<7/9*100=77.78>>77.78 percent right, which rounds to 78.\n#### 78"),
    # a question that asks no rounding: the solution's 78 is not read as one
    _seed("Sam answered 7 of the 9 questions of a quiz right. What percentage of the questions did he "
          "answer right?",
          "He answered 7 / 9 * 100 = <<7/9*100=77.78>>77.78 percent right, about 78%.\n#### 78"),
])
def test_a_rounding_the_words_do_not_ask_is_refused(seed: dict[str, str]) -> None:
    with pytest.raises(RuleError, match="is not produced by any step"):
        rule_for_seed(seed)


def test_derive_refuses_a_rounded_parent_with_its_reason(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(json.dumps({"question": BOXES["question"], "answer": BOXES["solution"]}) + "\n")
    db = tmp_path / "q.db"

    def run(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args], cwd=tmp_path,
                              capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                                                                   "HOME": str(tmp_path)}, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("import", str(seeds), "--format", "gsm8k")
    run("generate")
    out = run("derive", "variants", "--per-seed", "3", "--quiet")
    assert "rounded 1" in out, out


@pytest.mark.parametrize(("seed", "last_two", "relation"), [
    (BOXES, ["Q2: That is ? boxes", "Q3: it needs to buy ? boxes. (the value asked for)"],
     "Q3 = the least whole number at least Q2"),
    (SHARE, ["Q1: He answered ? percent right", "Q2: That rounds up to ?%. (the value asked for)"],
     "Q2 = Q1 rounded to the nearest whole number (ties round up)"),
    (FULL, ["Q1: She can fill ? boxes", "Q2: she can fill ? full boxes. (the value asked for)"],
     "Q2 = the greatest whole number at most Q1"),
])
def test_key_information_states_the_rounding_and_its_words(seed: dict[str, str], last_two: list[str],
                                                           relation: str) -> None:
    # the rounded computation's line keeps its own clause; the words that say the rounded count
    # describe the rounding step ("which rounds up to 78%": "That rounds up to ?%")
    from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed

    fields, _how = keyinfo_for_seed(seed)
    assert fields["unknown_quantities"][-2:] == last_two
    assert fields["relationships_and_constraints"][-1] == relation


def test_the_hidden_number_check_reads_a_rounded_quantity_only_where_a_relationship_rounds() -> None:
    # the '?' of "The school needs to buy ? boxes." hides 5, which no computation of the solution
    # writes after an '=': the rounding's relationship says where it comes from (4.17 rounded up);
    # without it the check still flags the blank
    from qcstation.core.construct.check.reread import hidden_numbers
    from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed

    seed = _seed(BOXES["question"], BOXES["solution"].replace(
        "Since it cannot buy part of a box, it needs to buy 5 boxes.",
        "It cannot buy part of a box.\nThe school needs to buy 5 boxes."))
    fields, _how = keyinfo_for_seed(seed)
    unknowns, relations = fields["unknown_quantities"], fields["relationships_and_constraints"]
    assert unknowns[-1] == "Q3: The school needs to buy ? boxes. (the value asked for)"
    assert hidden_numbers(unknowns, relations, seed["solution"]) == []
    flagged = hidden_numbers(unknowns, relations[:-1] + ["Q3 = Q2 + 1"], seed["solution"])
    assert len(flagged) == 1 and "The school needs to buy ? boxes" in flagged[0]


def test_a_key_information_fix_keeps_a_rounding_relationship_and_checks_its_value() -> None:
    # a reviewer's fix in place of a rounded item's key information is checked for meaning: its
    # relationships are evaluated, the rounding included, against the gold answer
    from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed
    from qcstation.core.review.fix_checks import keyinfo_fix_problems

    fields, _how = keyinfo_for_seed(BOXES)
    assert keyinfo_fix_problems(fields, BOXES["question"], Fraction(5)) == []
    floor = {**fields, "relationships_and_constraints": [
        *fields["relationships_and_constraints"][:-1], "Q3 = the greatest whole number at most Q2"]}
    assert any("give Q3 = 4, but the gold answer is 5" in p
               for p in keyinfo_fix_problems(floor, BOXES["question"], Fraction(5)))
