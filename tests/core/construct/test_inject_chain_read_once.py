"""A correct chain is read once per texts (:func:`qcstation.core.construct.make.inject._read_chain`):
derive's refinement ladder injects one to six errors into one parent's solution, and each
injection split the solution into steps and checked every step against the question again.
What every injection makes, and every refusal's reason, is the same with the reading kept as
with it read afresh, on real GSM8K solutions."""

from __future__ import annotations

import json
from typing import Any

from qcstation.core.construct.make import inject
from qcstation.core.construct.make.inject import InjectionError, inject_errors
from tests.conftest import dataset


def _outcome(solution: str, question: str, answer: str, n: int, seed: int) -> tuple[Any, ...]:
    try:
        got = inject_errors(solution, n, rng_seed=seed, question=question, answer=answer, redraw=True)
    except InjectionError as exc:
        return ("refused", str(exc))
    return (got.text, [e.to_dict() for e in got.errors], got.gold_answer, got.wrong_answer)


def test_a_ladder_reads_its_chain_once_and_makes_what_a_fresh_reading_makes() -> None:
    rows = [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()[:120]]
    refused = 0
    for r in rows:
        q, sol, ans = r["question"], r["answer"], r["answer"].rsplit("####", 1)[-1].strip()
        inject._read_chain.cache_clear()
        kept = [_outcome(sol, q, ans, n, 1000 + n) for n in range(1, 7)]
        assert inject._read_chain.cache_info().misses == 1       # read once for the six
        fresh = []
        for n in range(1, 7):
            inject._read_chain.cache_clear()
            fresh.append(_outcome(sol, q, ans, n, 1000 + n))
        assert kept == fresh, q[:60]
        refused += sum(k[0] == "refused" for k in kept)
    assert refused        # refusals (a chain the question contradicts, too few types) compared too


def test_a_chain_that_is_no_correct_chain_is_refused_each_time() -> None:
    inject._read_chain.cache_clear()
    for _ in range(2):
        try:
            inject_errors("", 1, rng_seed=1)
        except InjectionError as exc:
            assert "empty" in str(exc)
        else:
            raise AssertionError("an empty solution was injected into")
