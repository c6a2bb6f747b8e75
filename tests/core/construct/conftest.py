"""Fixtures shared by the construction tests."""

from __future__ import annotations

import json

import pytest

from tests.conftest import dataset


@pytest.fixture(scope="module")
def z3pool():
    """A real isolated Z3 verifier pool (one worker), one per test module that asks for it."""
    from qcstation.core.verify.outcome import VerifyLimits
    from qcstation.core.verify.pool import VerifierPool

    with VerifierPool(workers=1, limits=VerifyLimits()) as pool:
        yield pool


@pytest.fixture(scope="session")
def gsm8k() -> dict[str, dict[str, str]]:
    """GSM8K test as seed rows, by the id the importer gives each (its 1-based line number)."""
    rows = dataset("gsm8k/test.jsonl").read_text().splitlines()
    out = {}
    for i, line in enumerate(rows, start=1):
        rec = json.loads(line)
        solution, gold = rec["answer"].split("####")
        out[str(i)] = {"question": rec["question"], "solution": solution.strip(),
                       "answer_text": gold.strip(), "source": "gsm8k"}
    return out


class GSM8KReadings:
    """The rules' reading of GSM8K test seeds, made at most once per test session.

    Reading all 1,319 seeds takes about 14 s of CPU; the tests that check a property of every
    rule-made seed (its notation, its key information, its audit) share one reading instead
    of each making its own. ``rule`` and ``keyinfo`` return what ``rule_for_seed`` and
    ``keyinfo_from_annotations`` return for the seed and raise what they raise; results are
    shared, so a test must not change them."""

    def __init__(self, seeds: dict[str, dict[str, str]]) -> None:
        self.seeds = seeds
        self._rule: dict[str, object] = {}
        self._keyinfo: dict[str, object] = {}

    def rule(self, sid: str):
        from qcstation.core.construct.make.rules import RuleError, rule_for_seed

        if sid not in self._rule:
            try:
                self._rule[sid] = rule_for_seed(self.seeds[sid])
            except RuleError as exc:
                self._rule[sid] = exc
        got = self._rule[sid]
        if isinstance(got, Exception):
            raise type(got)(*got.args)
        return got

    def keyinfo(self, sid: str) -> dict:
        from qcstation.core.construct.make.keyinfo import KeyInfoError
        from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations

        rule = self.rule(sid)
        if sid not in self._keyinfo:
            seed = self.seeds[sid]
            try:
                self._keyinfo[sid] = keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps,
                                                              givens=rule.givens)
            except KeyInfoError as exc:
                self._keyinfo[sid] = exc
        got = self._keyinfo[sid]
        if isinstance(got, Exception):
            raise type(got)(*got.args)
        return got  # type: ignore[return-value]


@pytest.fixture(scope="session")
def gsm8k_readings(gsm8k: dict[str, dict[str, str]]) -> GSM8KReadings:
    """One reading of each GSM8K test seed by the rules, shared by every test of the session."""
    return GSM8KReadings(gsm8k)
