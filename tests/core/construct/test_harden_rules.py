"""Issue 10: no seed can stop the pipeline. The rule parser is bounded (length, depth,
digits, expanded size, value size) and a seed beyond a limit gets a reason."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _seed(annotation: str, **extra: object) -> dict[str, object]:
    return {"question": "How many?", "solution": f"It is <<{annotation}=5>>5.", "answer_text": "5",
            **extra}


@pytest.mark.parametrize(("annotation", "words"), [
    ("(" * 3000 + "2+3" + ")" * 3000, "characters"),          # RecursionError before
    ("(" * 400 + "2+3" + ")" * 400, "nests deeper"),
    ("-" * 500 + "5", "nests deeper"),
    ("(((((2^12)^12)^12)^12)^12)^12", "expand to more than"),  # minutes of CPU before
    ("1" * 5000 + "+1", "characters"),
    ("1" * 400 + "+1", "digits"),                              # 'Exceeds the limit (4300 digits)'
    ("((10^12)^12)^12", "bits"),
], ids=["deep-3000", "deep-400", "signs-500", "powers", "long", "digits", "bits"])
def test_hostile_annotation_is_refused_quickly_with_its_reason(annotation: str, words: str) -> None:
    t0 = time.process_time()     # CPU time (not wall clock): a busy machine cannot inflate it
    with pytest.raises(RuleError) as info:
        rule_for_seed(_seed(annotation))
    assert time.process_time() - t0 < 2     # refused at once, not after minutes of CPU
    assert words in str(info.value)
    assert len(str(info.value)) <= 400


def test_hostile_equation_is_refused() -> None:
    with pytest.raises(RuleError, match="nests deeper|characters"):
        rule_for_seed({"question": "q", "answer_text": "5",
                       "equation": "x = " + "(" * 2000 + "5" + ")" * 2000})


def test_a_good_seed_still_gets_its_rule() -> None:
    result = rule_for_seed(_seed("2+3", question="He has 2 pens and 3 pencils. How many?"))
    assert result.value == 5


def test_rule_does_not_depend_on_the_source_name() -> None:
    # a worked solution without annotations (the '#### n' line split off at import):
    # the importer notes its format in meta, whatever the source is called
    solution = "She has 3 + 2 = 5 apples."
    base = {"question": "She has 3 red and 2 green apples. How many apples?", "solution": solution,
            "answer_text": "5"}
    named = rule_for_seed({**base, "source": "gsm8k", "meta": '{"solution_format": "gsm8k"}'})
    renamed = rule_for_seed({**base, "source": "my-apples", "meta": '{"solution_format": "gsm8k"}'})
    assert named.smtlib == renamed.smtlib
    with pytest.raises(RuleError):
        rule_for_seed({**base, "source": "my-apples", "meta": "{}"})


def test_same_file_under_another_source_name_gets_the_same_rules(tmp_path: Path, gsm8k_readings) -> None:
    """The GSM8K test file imported under another source name: every seed gets what the rules
    make of it as GSM8K (the session's shared reading, source gsm8k), made or refused, with the
    same SMT-LIB."""
    from db import Store
    from qcstation.core.ingest.importer import import_file
    from tests.conftest import dataset

    # the GSM8K test set has solutions whose computations carry no annotation
    sample = tmp_path / "gsm8k.jsonl"
    sample.write_text("".join(dataset("gsm8k/test.jsonl").read_text().splitlines(keepends=True)))
    with Store(tmp_path / "names.db") as store:
        import_file(store, sample, "gsm8k", source="my-benchmark")
        seeds = store.query("SELECT * FROM seeds WHERE status = 'active'")
    assert len(seeds) > 1000
    made = 0
    for seed in seeds:
        try:
            renamed = rule_for_seed(seed).smtlib
        except RuleError:
            renamed = None
        try:
            named = gsm8k_readings.rule(seed["orig_id"]).smtlib
        except RuleError:
            named = None
        assert renamed == named, seed["orig_id"]
        made += renamed is not None
    assert made > 0
