"""References an honest reviewer would accept (issue 8): real GSM8K seeds pinned with
their corrected rule-made artifacts, checked with real Z3 and the real audit."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

import pytest
import z3

from qcstation.core.review.audit import audit_artifact
from qcstation.core.construct.make.inject import ERROR_NAMES, InjectionError, inject_errors
from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.notation import render_notation
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.conftest import dataset
from tests.must import must


def z3_answer(smtlib: str) -> Fraction:
    s = z3.Solver()
    s.from_string(smtlib)
    assert s.check() == z3.sat
    v = s.model()[z3.Real("answer")]
    return Fraction(v.numerator_as_long(), v.denominator_as_long())


def asserts(smtlib: str) -> list[str]:
    return [ln for ln in smtlib.splitlines() if ln.startswith("(assert")]


# --------------------------------------------------------------------------- Reasoning / Arithmetic


def test_841_a_fraction_of_the_question_is_one_given_not_a_link(gsm8k: dict) -> None:
    # before: the "2" of "1/2" was read as step 1's result (12 * 1/6 = 2)
    rule = rule_for_seed(gsm8k["841"])
    assert asserts(rule.smtlib) == [
        "(assert (= g1_millimeters 12))",
        "(assert (= g2 (/ 1 6)))",
        "(assert (= g3 (/ 2 3)))",
        "(assert (= g4 (/ 1 2)))",
        "(assert (= s1_millimeters (* g1_millimeters g2)))",
        "(assert (= s2_millimeters (* g1_millimeters g3)))",
        "(assert (= s3_millimeters (* g1_millimeters g4)))",
        "(assert (= s4_millimeters_glue (+ s1_millimeters s2_millimeters s3_millimeters)))",
        "(assert (= answer s4_millimeters_glue))",
    ]
    assert z3_answer(rule.smtlib) == 16
    q = render_notation(rule.smtlib)
    # every given of the question is in the notation question, each its own variable
    assert sorted(q.variables.values()) == [Fraction(1, 6), Fraction(1, 2), Fraction(2, 3), 12]
    assert "s3 = a × d" in q.text


@pytest.mark.parametrize(("seed", "old", "new", "why"), [
    # (817, "The cows cost 2*1500": the words now tell the cows' $1500 price from the goats' total
    # 3*500 = $1500; pinned in test_reading_clause_words.py)
    # (1022: the first step writes its 60 as a percent, "= 60%", so the 60 a step divides by 100 is
    # that step and the other the 60-item quiz, see test_reading_percent_results.py); written as no
    # percent, the 60-item quiz or the 60 step is not told apart
    ("1022", "100% - 40% = 60% of the quiz", "100 - 40 = 60 of the quiz", "ambiguous solution: the 60 in step"),
    # (1101 "60 minutes is in an hour so 300/60 = 5 hours": the units now decide that the divisor
    # is the hour's minutes, see test_reading_link_structure.py)
])
def test_an_equal_value_is_never_a_link_ambiguous_solutions_go_to_a_model(gsm8k: dict, seed: str, old: str,
                                                                          new: str, why: str) -> None:
    row = dict(gsm8k[seed])
    assert old in row["solution"]
    row["solution"] = row["solution"].replace(old, new)
    with pytest.raises(RuleError) as info:
        rule_for_seed(row)
    assert why in str(info.value)


def test_a_link_settled_by_structure_is_confirmed_by_words_and_not_flagged(gsm8k: dict) -> None:
    # 200 GB * 40% = 80; 80/2 = 40 minutes; 200/2 = 100; 40 + 100 + 20: the 40 is step 2
    # (the question's 40 is the percent), the only reading that uses every step and given
    rule = rule_for_seed(gsm8k["8"])
    assert "(assert (= s4_minutes (+ s2_minutes s3_minutes g4_minutes)))" in rule.smtlib
    link = next(lk for lk in rule.links if lk["step"] == "s4_minutes" and lk["uses"] == "s2_minutes")
    assert link["evidence"].startswith("the one structure")
    # the audit does not read that label: the words confirm it ("40 minutes" in step 2's line
    # and in step 4's, the question's 40 is "40%")
    assert audit_artifact("reasoning", {"smtlib": rule.smtlib}, gsm8k["8"]) == []
    assert rule.bound is True and rule.factors == [
        {"name": "k_percent_fraction", "value": "1/100", "text": "percent fraction"}]
    # the same link where the question's 40 were minutes too is flagged
    other = {**gsm8k["8"], "question": gsm8k["8"]["question"].replace("takes 20 minutes", "takes 40 minutes")}
    assert "equal-value-link" in [f.code for f in audit_artifact("reasoning", {"smtlib": rule.smtlib}, other)]


def test_a_solution_whose_text_works_with_a_given_its_annotations_drop_is_not_rule_made(
        gsm8k: dict) -> None:
    # 280: the algebra is in the text; the only annotation is 18/3 (6 and 9 would be dropped):
    # no calculator formalization; the algebra rule formalizes the equation the text writes
    from qcstation.core.construct.make.rules import smt_from_calculator_annotations

    seed = gsm8k["280"]
    with pytest.raises(RuleError, match="does not use the given"):
        smt_from_calculator_annotations(seed["solution"], question=seed["question"])
    assert rule_for_seed(seed).rule == "gsm8k-algebra"


def test_rule_made_gsm8k_references_pass_the_audit(gsm8k: dict, gsm8k_readings) -> None:
    # a rule-made formalization passes the independent checks by construction (the rules
    # refuse what they flag): none of the audit's own flags on any of them
    made = 0
    for sid, seed in gsm8k.items():
        try:
            rule = gsm8k_readings.rule(sid)
        except RuleError:
            continue
        made += 1
        flags = audit_artifact("reasoning", {"smtlib": rule.smtlib}, seed)
        assert not [f for f in flags if f.code in ("equal-value-link", "given-words", "step-literal")], \
            (seed["question"], flags)
        assert rule.bound is True
    assert made > 600


# --------------------------------------------------------------------------- Understanding


def _keyinfo(seed: dict) -> dict:
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)


def test_590_a_needed_fact_is_not_irrelevant(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["590"])
    assert f["irrelevant_information"] == []
    # each loss or gain is said under its condition; the asking clause's "5 weeks" is named as
    # the question's words, never a fact cut from it
    assert f["known_quantities"] == ["If Martin eats Cheerios every day for breakfast, he'll lose 1.25 pounds/week",
                                     "If he eats donuts every day for breakfast, he'll gain 1.75 pounds/week",
                                     'The question asks about "5 weeks"']
    assert f["relationships_and_constraints"] == ["Q1 = 1.75 − (−1.25)", "Q2 = 5 × Q1"]


@pytest.mark.parametrize(("seed", "scenario", "goal", "known"), [
    # "Given a 7-day week," opens the question: kept in the goal, not a fragment of the scenario
    ("709", "She charges $12 per day.", "Given a 7-day week, how much does Alex charge for 2 weeks of tutoring?",
     ['The question states "given a 7-day week"', "She charges $12 per day",
      'The question asks about "2 weeks of tutoring"']),
    ("1066", "John scored 100 on his first 3 tests and an 80 on his 4th.",
     "What was his average score across the 4 tests?",
     # "380 total score / 4 tests": the goal's "4 tests", not the "4th"; "an 80 on his 4th" has no
     # verb of its own: the whole clause carries both givens
     ["John scored 100 on his first 3 tests and an 80 on his 4th", 'The question asks about "4 tests"']),
])
def test_scenario_goal_and_known_quantities_are_different_texts(gsm8k: dict, seed: str, scenario: str,
                                                                goal: str, known: list[str]) -> None:
    f = _keyinfo(gsm8k[seed])
    assert (f["problem_scenario"], f["goal"], f["known_quantities"]) == (scenario, goal, known)
    assert audit_artifact("understanding", f, gsm8k[seed]) == []


def test_1066_unknowns_and_relationships_leak_no_intermediate_result(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["1066"])
    assert f["unknown_quantities"] == ["Q1: ? total score across 4 tests",
                                       "Q2: ? average score (the value asked for)"]
    assert f["relationships_and_constraints"] == ["Q1 = 100 + 100 + 100 + 80", "Q2 = Q1 ÷ 4"]
    assert "380" not in json.dumps(f)


def test_389_an_abbreviation_does_not_end_a_sentence(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["389"])
    assert f["goal"] == "How many messages does he deliver total?"
    assert any("1/3 as many messages to Mr. Yu" in k for k in f["known_quantities"])


def test_103_facts_stated_in_words_go_to_a_model_not_to_irrelevant(gsm8k: dict) -> None:
    # "he has one before he goes to bed" is needed (4 glasses a day): never irrelevant; the
    # 4 is written nowhere in the question, so the formalization is not rule-made either
    with pytest.raises((KeyInfoError, RuleError)):
        _keyinfo(gsm8k["103"])


# --------------------------------------------------------------------------- Reflection & Refinement


def test_every_wrong_cot_of_gsm8k_test_ends_with_a_new_answer_unless_its_label_says_why(
        gsm8k: dict) -> None:
    made = 0
    types: dict[str, int] = {}
    for i, seed in gsm8k.items():
        try:
            cot = inject_errors(seed["solution"], 1, rng_seed=int(i), question=seed["question"],
                                answer=seed["answer_text"], redraw=False)
        except InjectionError:
            continue
        made += 1
        err = cot.errors[0]
        types[err.type] = types.get(err.type, 0) + 1
        assert err.name == ERROR_NAMES[err.type]
        last = re.findall(r"-?[\d,]*\.?\d+", cot.steps[-1])[-1].replace(",", "")
        gold = Fraction(seed["answer_text"].replace(",", ""))
        assert Fraction(must(cot.gold_answer)) == gold
        if err.changes_answer:
            assert Fraction(last) != gold, cot.text
            assert Fraction(must(cot.wrong_answer)) == Fraction(last)
        else:
            assert err.keeps_answer_reason and Fraction(last) == gold
        flags = audit_artifact("refinement", {"w_cot": cot.text, "errors": [err.to_dict()]},
                               {"answer_text": seed["answer_text"]})
        assert flags == []
    assert made > 1200
    # the six types are drawn uniformly: no type is more than twice as frequent as another
    assert len(types) == 6 and max(types.values()) < 2 * min(types.values()), types


def test_2640_an_injected_error_carries_into_the_later_steps() -> None:
    sol = ("He needs 2640 * 400 = <<2640*400=1056000>>1056000 grams.\n"
           "That is 1056000 / 1000 = <<1056000/1000=1056>>1056 kilograms.\n#### 1056")
    cot = next(c for c in (inject_errors(sol, types=["arithmetic_inaccuracy"], rng_seed=k) for k in range(50))
               if c.errors[0].step == 0)
    assert cot.wrong_answer != "1056" and cot.steps[-1] == f"The answer is {cot.wrong_answer}."
    wrong = must(re.search(r"= (\d+) grams", cot.steps[0])).group(1)
    assert cot.steps[1].startswith(f"That is {wrong} / 1000 = ")
    assert Fraction(int(wrong), 1000) == Fraction(must(cot.wrong_answer))


def test_an_old_wrong_cot_that_ends_with_the_gold_is_flagged() -> None:
    content = {"w_cot": "2 + 3 = 6\nThe answer is 5.",
               "errors": [{"type": "arithmetic_inaccuracy", "step": 0}]}
    flags = audit_artifact("refinement", content, {"answer_text": "5"})
    assert [f.code for f in flags] == ["wrong-cot-keeps-gold"]


def test_the_review_view_shows_the_stored_self_check_flags() -> None:
    from rich.console import Console

    from qcstation.core.construct.check.selfcheck import stored_flags
    from qcstation.core.review.items import ReviewItem, _flags
    from qcstation.widgets.review_views import render_artifact

    def shown(content: dict, stored: bool = True) -> str:
        flags = _flags(stored_flags("refinement", content, {"answer_text": "5"})["flags"]) if stored else None
        item = ReviewItem(1, 1, 1, 1, "refinement", "gsm8k", 0, False, "Q?", "5", content, None, 1, None, None,
                          flags=flags)
        console = Console(width=200, record=True)
        console.print(render_artifact(item))
        return console.export_text()

    old = {"w_cot": "2 + 3 = 6\nThe answer is 5.", "errors": [{"type": "arithmetic_inaccuracy"}]}
    flagged = shown(old)
    # every flag listed, and said to block the release (issue 31.4)
    assert "⚠ 1 flag (blocks the release" in flagged and "! wrong-cot-keeps-gold" in flagged
    new = shown({"w_cot": "2 + 3 = 6\nThe answer is 6.", "errors": [{"type": "arithmetic_inaccuracy"}]})
    assert "flag" not in new and "wrong-cot-keeps-gold" not in new
    # nothing is audited while the pane draws: an artifact with no stored flags says so
    unaudited = shown(old, stored=False)
    assert "wrong-cot-keeps-gold" not in unaudited and "not audited yet" in unaudited


# --------------------------------------------------------------------------- filters


def test_single_step_counts_operations_not_annotation_lines() -> None:
    from qcstation.core.ingest.filters import check_seed
    from qcstation.core.ingest.steps import steps_from_solution

    steps, rule, _ = steps_from_solution("He pays 3*(16.50+22.50+42)=<<3*(16.50+22.50+42)=243>>243",
                                          require_annotations=False)
    assert steps == 3 and must(rule).startswith("3 operations in 1 calculator annotation")
    steps, rule, _ = steps_from_solution("She has 5+3=<<5+3=8>>8 apples.", require_annotations=False)
    hits = check_seed("q", "s", "8", "8", steps, rule)
    assert [h.reason for h in hits] == ["single_step"] and "1 operation" in hits[0].detail


def test_the_single_step_filter_applies_to_aqua_with_its_reason(tmp_path) -> None:
    import sqlite3
    import subprocess
    import sys

    db = tmp_path / "f.db"
    src = dataset("aqua/test.json")
    subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "import", str(src)],
                   check=True, capture_output=True)
    con = sqlite3.connect(db)
    rows = dict(con.execute("SELECT orig_id, filter_reason || ': ' || filter_detail FROM seeds "
                            "WHERE filter_reason = 'single_step'").fetchall())
    # "Add: +45 and -30" / "45 - 30 = 15": one operation
    assert rows["14"] == "single_step: one reasoning step (1 operation in 1 written computation, " \
                         "1 calculating solution line)"
    # "2(8 cm) + 2(3 cm) = 16 cm + 6 cm = 22 cm": several operations, kept
    assert "73" not in rows
    assert 0 < len(rows) < 10


# --------------------------------------------------------------------------- exports


def test_release_fields_say_what_they_hold() -> None:
    from exports.writers import datasheet_markdown
    from qcstation.core.release.releases import FORMAT_VERSION, _build_record, source_licence

    rule = rule_for_seed({"question": "Janet has 16 eggs. She eats 3 and bakes 4. She sells the rest "
                                      "for $2 each. How much does she make?",
                          "solution": "16-3-4=<<16-3-4=9>>9\n9*2=<<9*2=18>>18", "answer_text": "18"})
    q = render_notation(rule.smtlib)
    arts: dict[str, dict[str, Any]] = {
        "understanding": {"content": json.dumps({"goal": "How much?"})},
        "reasoning": {"content": json.dumps({"smtlib": rule.smtlib}), "verify_result": "{}"},
        "arithmetic": {"content": json.dumps({"notation": q.text, "smtlib": rule.smtlib}),
                       "verify_result": "{}"},
        "refinement": {"content": json.dumps({"w_cot": "x", "wrong_answer": "20", "errors": [
            {"type": "operator_misuse", "name": "Operator Misuse"}]})},
    }
    for _dim, a in arts.items():
        a.update(id=1, version=1, status="verified", generator="rule", model=None, prompt_version=None)
    seed = {"id": 1, "source": "gsm8k", "orig_id": "1", "level": "medium", "question": "q",
            "answer_text": "18", "solution": "s"}
    r = _build_record(seed, arts)
    # 3: every record carries its self-check flags (none here: the rule-made reference is clean)
    assert FORMAT_VERSION == 3 and r["flags"] == {}
    # the notation question's own SMT-LIB, not the Reasoning one under another name
    assert r["notation_smtlib"] != r["smt-lib"] and z3_answer(r["notation_smtlib"]) == 18
    assert (r["wrong"], r["wrong_names"], r["wrong_answer"]) == (["operator_misuse"], ["Operator Misuse"], "20")
    assert source_licence("aqua").startswith("Apache-2.0")
    sheet = datasheet_markdown({"counts": {"by_source": {"aqua": 3}}, "licences": {"aqua": "Apache-2.0"}})
    assert "| aqua | 3 | Apache-2.0 |" in sheet


def test_export_and_verification_build_the_notation_smtlib_by_one_rule() -> None:
    # a model's rephrasing of the rule-made rendering: verification checks the rendering's
    # SMT-LIB (the rephrasing was checked against it); the export publishes that same text
    from qcstation.core.construct.check.checks import notation_smtlib
    from qcstation.core.release.releases import _notation_own_smtlib

    rule = rule_for_seed({"question": "Janet has 16 eggs. She eats 3 and bakes 4. She sells the rest "
                                      "for $2 each. How much does she make?",
                          "solution": "16-3-4=<<16-3-4=9>>9\n9*2=<<9*2=18>>18", "answer_text": "18"})
    q = render_notation(rule.smtlib)
    rephrased = q.text.replace("What is the value of answer?", "Find answer.")
    content = {"notation": rephrased, "rendered": q.text, "smtlib": rule.smtlib,
               "variables": {k: str(v) for k, v in q.variables.items()}, "target": "answer"}
    smt, problem = notation_smtlib(content)
    assert problem is None and z3_answer(smt) == 18
    assert _notation_own_smtlib(content) == smt
    # a rendering that drifted from its SMT-LIB is refused by both
    drifted = dict(content, rendered=q.text.replace("= 16", "= 17"))
    assert notation_smtlib(drifted)[1] and _notation_own_smtlib(drifted) is None


def test_the_paper_names_map_back_to_the_ids_the_evaluation_scores() -> None:
    from qcstation.eval.tasks import canonical_error_type

    assert {canonical_error_type(n) for n in ERROR_NAMES.values()} == set(ERROR_NAMES)


def test_a_value_stated_twice_and_tied_by_order_only_is_refused(gsm8k: dict) -> None:
    # "3 boxes on the left and 3 boxes on the right" solved "3*4", "3*6" with no words: which 3 each
    # use is, only order tells (410's 40s were this example until lane cover37 placed them by words);
    # an uncertain binding is never released silently: not rule-made, with the reason
    seed = {"question": "There are 3 boxes on the left and 3 boxes on the right. Each box on the left holds 4 pens "
                        "and each box on the right holds 6 pens. How many pens are there?",
            "solution": "3*4 = <<3*4=12>>12 pens\n3*6 = <<3*6=18>>18 pens\n12+18 = <<12+18=30>>30 pens\n#### 30",
            "answer_text": "30", "source": "gsm8k"}
    with pytest.raises(RuleError, match="uncertain binding: the question states 3 more than once"):
        rule_for_seed(seed)
    # an artifact that records one (made before) is flagged
    content = {"smtlib": "(declare-const answer Real)\n(assert (= answer 1))",
               "uncertain": ["the question states 40 more than once"]}
    assert "uncertain" in [f.code for f in audit_artifact("reasoning", content, gsm8k["410"])]
    # 841 states each of its numbers once: nothing uncertain
    assert rule_for_seed(gsm8k["841"]).uncertain == []
