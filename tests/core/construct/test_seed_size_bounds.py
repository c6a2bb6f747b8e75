"""One seed costs bounded time in ``generate`` (issue 30.4): the rules read a seed only up to
what they are made for (:func:`too_large_for_rules`), errors are injected into a chain of
thought of bounded length, and the blank's unit reads a sentence that asks "how many" in one
pass. Each seed below is one an import accepts (a question of 20,000 characters, a solution of
100,000) built to be costly: before, the rules weighed its 1,300 numbers or 1,600 computations
against each other (10-45 s of CPU for one seed) and the injector its 1,600 steps (16 s). The
tests assert what is decided, not how long it takes (bench/hostile_regex_bench.py and the
lane's figures hold the times)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.construct.make import unknown_forms
from qcstation.core.construct.make.inject import MAX_COT_STEPS, InjectionError, inject_errors
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.dispatch import (MAX_RULE_PLACES, MAX_RULE_QUESTION_CHARS,
                                                          MAX_RULE_SOLUTION_CHARS, too_large_for_rules)
from qcstation.core.construct.pipeline import Pipeline
from qcstation.core.ingest.importer import import_file
from qcstation.core.ingest.readers import MAX_QUESTION_CHARS, MAX_SOLUTION_CHARS
from tests.conftest import dataset


def _fit(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


TAIL = "\nHe has 3 + 4 = <<3+4=7>>7 apples.\nThen 7 * 2 = <<7*2=14>>14 apples.\n#### 14"
ASK = " Tom has 3 apples and 4 more. He doubles them. How many apples does Tom have?"
LINE = "She buys 3 apples for $2 each, so 3 * 2 = <<3*2=6>>6 dollars.\n"


def _seed(question: str, solution: str) -> dict[str, str]:
    return {"question": question, "solution": solution, "answer": "14", "source": "gsm8k"}


#: name -> (a seed at the import's limits, the start of the reason the rules give)
HOSTILE = {
    "numbers": (_seed(_fit("Tom has 3 apples and buys 2 more for $4 each. ", 5_000) + ASK, _fit(LINE, 500) + TAIL),
                f"the question states 328 numbers or number words; the rules read at most {MAX_RULE_PLACES}"),
    "long question": (_seed(_fit("Tom has 3 apples and buys 2 more for $4 each. ", MAX_QUESTION_CHARS - 100) + ASK,
                            _fit(LINE, 500) + TAIL),
                      f"the question has 19,977 characters; the rules read at most {MAX_RULE_QUESTION_CHARS:,}"),
    "computations": (_seed("Tom has 3 apples and buys 2 more for $4 each." + ASK, _fit(LINE, 11_000) + TAIL),
                     "the solution writes 358 '='; the rules read at most 250"),
    "long solution": (_seed("Tom has 3 apples and buys 2 more for $4 each." + ASK,
                            "He has " + "1+" * 49_000 + "1 = 49001 apples." + TAIL),
                      f"the solution has 98,100 characters; the rules read at most {MAX_RULE_SOLUTION_CHARS:,}"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_seed_beyond_what_the_rules_read_is_refused_with_its_reason(name: str) -> None:
    seed, reason = HOSTILE[name]
    assert len(seed["question"]) <= MAX_QUESTION_CHARS and len(seed["solution"]) <= MAX_SOLUTION_CHARS
    with pytest.raises(RuleError) as exc:
        rule_for_seed(seed)
    assert str(exc.value) == "the seed is too large for the rules: " + reason
    assert exc.value.title == "Too large"


def test_every_public_seed_is_within_what_the_rules_read() -> None:
    """The bounds leave every seed of the shipped sets to the rules (GSM8K's largest question
    has 22 places; MATH-500's 215, AIME's solutions 125 '='s)."""
    rows = [json.loads(x) for x in dataset("gsm8k/test.jsonl").read_text(encoding="utf-8").splitlines() if x]
    seeds = [{"question": r["question"], "answer": r["answer"]} for r in rows]
    for name in ("math500/test.jsonl", "aime2024/test.jsonl"):
        for x in dataset(name).read_text(encoding="utf-8").splitlines():
            r = json.loads(x)
            seeds.append({"question": r["problem"], "solution": r["solution"]})
    assert len(seeds) == 1319 + 500 + 30
    assert [s["question"][:40] for s in seeds if too_large_for_rules(s) is not None] == []
    # and a GSM8K seed still gets its rule
    assert rule_for_seed(seeds[0]).rule == "gsm8k-calculator"


def test_a_chain_of_thought_beyond_the_injector_s_bound_is_refused() -> None:
    with pytest.raises(InjectionError, match="the solution has 99,900 characters; errors are injected into at most"):
        inject_errors(_fit(LINE, 99_900 - len(TAIL)) + TAIL, 2, rng_seed=1)
    with pytest.raises(InjectionError, match=f"the solution has 301 steps; errors are injected into at most "
                                             f"{MAX_COT_STEPS}"):
        inject_errors("".join(f"He has {i} + 1 = <<{i}+1={i + 1}>>{i + 1}.\n" for i in range(300)) + "#### 300",
                      2, rng_seed=1)
    # a worked solution is injected into as before
    done = inject_errors(_fit(LINE, 300) + TAIL, 1, rng_seed=1, redraw=True)
    assert len(done.errors) == 1


def test_generate_gives_a_seed_at_the_import_s_limits_a_reason_and_goes_on(tmp_path: Path) -> None:
    """The whole seed, imported and generated offline: each dimension gets its reason (it took
    45 s of CPU before, 0.7 s now), and the good seed after it its artifacts."""
    question, solution = HOSTILE["long question"][0]["question"], _fit(LINE, MAX_SOLUTION_CHARS - 200) + TAIL
    good = {"question": "Ann has 5 pears and buys 3 more. Then she doubles them. How many pears does she have?",
            "answer": "She has 5 + 3 = <<5+3=8>>8 pears.\nThen 8 * 2 = <<8*2=16>>16 pears.\n#### 16"}
    path = tmp_path / "seeds.jsonl"
    path.write_text(json.dumps({"question": question, "answer": solution}) + "\n" + json.dumps(good) + "\n")
    db = tmp_path / "g.db"
    with Store(db) as store:
        import_file(store, path, "gsm8k")
        assert store.scalar("SELECT COUNT(*) FROM seeds WHERE status = 'active'") == 2
    with Pipeline(db, load_config(None, env={})) as pipeline:
        pipeline.generate(dimensions=["reasoning", "understanding", "refinement"])
    with Store(db) as store:
        rows = store.query("SELECT s.question, a.dimension, a.parse_error, a.verify_status FROM attempts a "
                         "JOIN seeds s ON s.id = a.seed_id ORDER BY s.id, a.dimension")
    hostile = {r["dimension"]: r["parse_error"] for r in rows if r["question"] == question}
    assert "the seed is too large for the rules: the question has 19,977 characters" in hostile["reasoning"]
    assert "the seed is too large for the rules" in hostile["understanding"]
    assert "the solution has 99,868 characters; errors are injected into at most 20,000" in hostile["refinement"]
    assert {r["dimension"]: r["verify_status"] for r in rows if r["question"] == good["question"]} == \
        {"reasoning": "verified", "understanding": "verified", "refinement": "verified"}


# --------------------------------------------------------------------------- the blank's unit

_OLD = re.compile(r"(?P<asks>[^.?!]*\bhow\s+(?:many|much|long|far)\b[^.?!:]*)\.\s+(?P<blank>\?\s+[a-z][^.?!]*?)\.?")


def _old(desc: str) -> tuple[str, str] | None:
    m = _OLD.fullmatch(desc)
    return (m.group("asks"), m.group("blank")) if m else None


def test_a_sentence_asking_how_many_then_its_blank_is_read_as_the_regex_read_it() -> None:
    units = ["how many ", "how much", "How  far", "how\nlong ", "how", " many", "showmany ", ":", ". ", ".", "? ",
             "?", "!", " ", "boxes", "a", "x", "\t", "Nik needs"]
    rng = random.Random(304)
    texts = ["First find how many boxes Nik needs. ? boxes.", "First find how many boxes Nik needs. ? boxes",
             "Find how much: it costs. ? dollars", "Then: how far it goes. ? miles.", "how many. ? x.y"]
    texts += ["".join(rng.choice(units) for _ in range(rng.randint(1, 14))) for _ in range(10_000)]
    # and the shape it reads, each part drawn from the same units: asks, ". ? ", a tail
    texts += ["".join(rng.choice(units) for _ in range(rng.randint(0, 6))) + rng.choice(["how many ", "how far"])
              + "".join(rng.choice(units) for _ in range(rng.randint(0, 4))) + rng.choice([". ? ", ".  ?\tb", ". ?"])
              + "".join(rng.choice(units) for _ in range(rng.randint(0, 4))) for _ in range(10_000)]
    found = 0
    for t in texts:
        assert unknown_forms._asked_then_blank(t) == _old(t), t
        found += _old(t) is not None
    assert found > 300  # the forms it reads were among them (502)


def test_a_long_sentence_asking_how_many_is_read_in_one_pass() -> None:
    # (the regex took each "how many" as its own and read the rest again: 0.4 s at 29k characters,
    # quadratic; 100,000 characters of them are read here)
    asks = _fit("how many ", 100_000) + "boxes Nik needs"
    assert unknown_forms._asked_then_blank(asks + ". ? boxes.") == (asks, "? boxes")
    assert unknown_forms._asked_then_blank(asks + ". ? Boxes.") is None
    assert unknown_forms.written_units(asks + ". ? boxes.", "", "") == asks + ": ? boxes"
