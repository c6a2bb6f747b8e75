"""Prompt templates: parsing, overriding, one-pass filling, exemplars, error-type names."""

from __future__ import annotations

from pathlib import Path

import pytest

from qcstation.common.errors import ConfigError
from qcstation.eval import tasks as T
from qcstation.eval.scorers import corrected_part, extract_smtlib, parse_error_types, parse_judge_score
from tests.must import must

RECORD = {
    "seed_id": 7, "id": "gsm8k-7", "question": "Ann has {answer} apples and 3 more. How many?",
    "notation": "Let a = 2 and b = 3. What is a + b?", "answer": "5", "gt_answer": "5",
    "smt-lib": "(declare-const answer Int)\n(assert (= answer (+ 2 3)))\n(check-sat)",
    "gt_cot": "2 + 3 = 5\nThe answer is 5.", "w_cot": "2 - 3 = 5\nThe answer is 5.",
    "errors": [{"type": "operator_misuse"}], "wrong": ["operator_misuse"],
    "key_information": {"problem_scenario": "Ann counts apples.", "goal": "How many apples?",
                        "known_quantities": ["2 apples", "3 more"], "unknown_quantities": [],
                        "relationships_and_constraints": [], "irrelevant_information": []},
}


def test_builtin_templates_parse_and_carry_versions() -> None:
    for name in T.TEMPLATE_NAMES:
        tpl = T.load_template(name)
        assert tpl.version.startswith(name.split("_")[0]) or name == "judge_understanding"
        assert tpl.user and len(tpl.sha) == 12 and tpl.origin == "built-in"


def test_filling_is_one_pass_so_untrusted_text_cannot_inject_placeholders() -> None:
    msgs = T.build_messages(T.load_template("final"), RECORD)
    assert "Ann has {answer} apples" in msgs[-1]["content"]       # not replaced by the gold answer
    assert T.reference_answer(T.load_template("final"), RECORD) == "2 + 3 = 5\nThe answer is 5."


def test_exemplars_come_as_user_assistant_pairs_before_the_item() -> None:
    tpl = T.load_template("arithmetic")
    msgs = T.build_messages(tpl, RECORD, [RECORD, RECORD])
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert msgs[2]["content"] == "2 + 3 = 5\nThe answer is 5."      # exemplars show their working
    assert T.prompt_hash(msgs) == T.prompt_hash(T.build_messages(tpl, RECORD, [RECORD, RECORD]))


def test_override_directory_and_clear_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "final.txt").write_text("version: final-mine\n=== user ===\nQ: {question}\n=== assistant ===\n{answer}\n")
    monkeypatch.setenv(T.ENV_TEMPLATES, str(tmp_path))
    tpl = T.load_template("final")
    assert tpl.version == "final-mine" and tpl.origin == str(tmp_path / "final.txt") and tpl.system is None
    assert T.load_template("arithmetic").origin == "built-in"
    cases = {
        "=== user ===\nx\n=== assistant ===\ny": "no 'version: NAME' line",
        "version: v\n=== user ===\n{questoin}\n=== assistant ===\n": "unknown placeholder",
        "version: v\n=== system ===\nx\n": "missing or empty",
        "version: v\n=== user ===\nx\n": "'=== assistant ===' section is missing",
        "version: v\nno sections": "no '=== user ===' section",
    }
    for text, msg in cases.items():
        with pytest.raises(ConfigError, match=msg):
            T.parse_template("final", text, "f.txt")


def test_error_type_names_map_to_ids() -> None:
    found, unknown = parse_error_types("Error types: Operator Misuse, omitted-step, banana\nCorrected solution:\n...")
    assert found == {"operator_misuse", "omitted_step"} and unknown == ["banana"]
    assert parse_error_types("**Error types:** redundancy.")[0] == {"redundancy"}
    assert parse_error_types("no such line") == (None, [])
    assert parse_error_types("Error types: none")[0] == set()
    assert must(corrected_part("Error types: x\nCorrected solution:\nThe answer is 4.")).strip() == "The answer is 4."


def test_smtlib_extraction_and_judge_scores() -> None:
    assert extract_smtlib("Here:\n```smt2\n(declare-const answer Int)\n```\nthanks") == "(declare-const answer Int)"
    assert extract_smtlib("```python\nprint(1)\n```\n```\n(assert (= answer 1))\n```") == "(assert (= answer 1))"
    assert must(extract_smtlib("(set-logic QF_LIA)\n(declare-const answer Int)")) .startswith("(set-logic")
    assert extract_smtlib("The answer is 4.") is None and extract_smtlib(None) is None
    assert parse_judge_score("reasoning...\nScore: 87") == 87
    assert parse_judge_score("**Score:** 100/100") == 100
    assert parse_judge_score("Score: 0") is None and parse_judge_score("Score: 250") is None
    assert parse_judge_score("I'd say ninety") is None


def test_a_backend_used_the_wrong_way_says_which_call_it_answers() -> None:
    import asyncio

    from qcstation.eval.backends.reference import ReferenceBackend

    with pytest.raises(TypeError, match="one request at a time"):
        ReferenceBackend().complete_batch([])
    from qcstation.eval.types import Backend

    class Batched(Backend):
        batched = True

        def describe(self) -> dict:
            return {}

    with pytest.raises(TypeError, match="answers in batches"):
        asyncio.run(Batched().complete(None))  # type: ignore[arg-type]


def test_arithmetic_exemplars_show_their_working_step_by_step() -> None:
    from qcstation.eval.tasks import notation_working

    text = ("Let a = 60, b = 100, c = 5, d = 16 and f = 2. Let s1 = a ÷ b × c, s2 = d ÷ f, "
            "s3 = s2 × s1, s4 = s2 × c and answer = s3 + s4. What is the value of answer?")
    assert notation_working(text) == ("s1 = a ÷ b × c = 3\ns2 = d ÷ f = 8\ns3 = s2 × s1 = 24\n"
                                      "s4 = s2 × c = 40\nanswer = s3 + s4 = 64")
    assert notation_working("Let a = 1 and b = 3. Let answer = a ÷ b. What is answer?") == "answer = a ÷ b = 1/3"
    assert notation_working("What is __import__('os')?") is None
    tpl = T.load_template("arithmetic")
    shown = T.reference_answer(tpl, {"notation": text, "answer": "64"})
    assert shown.endswith("answer = s3 + s4 = 64\nThe answer is 64.")


def test_lazy_values_are_record_values_one_at_a_time(tmp_path: Path) -> None:
    """What a run's prompts are filled from (computed on demand) equals record_values on
    the quickstart working set's records, on partial ones and on RECORD; every template
    fills the same."""
    import json

    from db import Store
    from qcstation.eval.runs import create_run
    from tests.eval_helpers import config, copy_db, quickstart_db

    with Store(copy_db(quickstart_db(tmp_path), tmp_path / "q.db")) as s:   # never the shared template
        run = create_run(s, config(), model="reference", tasks=["final"], shots=0)
        records = [json.loads(r["record"]) for r in s.query(
            "SELECT record FROM eval_items WHERE run_id = ?", (run,))]
    assert len(records) > 20
    records += [RECORD, {}, {"question": "q", "notation": "Let a = 3. answer = a + 1."},
                {"key_information": "not a mapping", "background": "b", "errors": [{"type": "x"}]},
                {"wrong": ["arithmetic error"], "gt_cot": "3 + 4 = 7\nThe answer is 7."}]
    templates = [T.load_template(n, None) for n in
                 ("final", "arithmetic", "refinement", "reflection", "refine", "understanding")]
    for r in records:
        eager = T.record_values(r)
        assert T.fill("{question}|{nope}", T.LazyValues(r)) == T.fill("{question}|{nope}", eager)
        assert dict(T.LazyValues(r)) == eager and list(T.LazyValues(r)) == list(eager)
        for tpl in templates:
            assert T.fill(tpl.user, T.LazyValues(r)) == T.fill(tpl.user, eager)
            assert T.fill(tpl.assistant, T.LazyValues(r)) == T.fill(tpl.assistant, eager)
