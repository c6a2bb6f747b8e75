"""No seed stops derive (issue 30): a seed whose items cannot be written is refused item by
item with the reason, and the run goes on to the next seed; every option a user sets is
bounded with a clear error. Real SQLite, real rules, real Z3."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.derive import runner
from qcstation.core.derive.model import KINDS, TRANSFORMS, Transform
from qcstation.core.derive.runner import run_derive
from qcstation.core.derive.story import add_operation
from qcstation.core.derive.transforms import Options
from tests.conftest import ROOT
from tests.core.derive.helpers import make_db, parent_of

CFG = load_config(None, env={})


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("faults"), ["diver", "james"])


@pytest.mark.parametrize("kind", ["variants", "counterfactual", "perturb"])
def test_a_signed_seed_is_refused_item_by_item_and_the_run_goes_on(db: Path, kind: str) -> None:
    summary = run_derive(db, CFG, kind=kind, name=f"s-{kind}", workers=0, z3_workers=1)
    assert summary.jobs == 2
    with Store(db) as store:
        jobs = store.query("SELECT s.question, j.status, j.detail FROM derive_jobs j JOIN seeds s "
                           "ON s.id = j.parent_id JOIN derive_sets d ON d.id = j.set_id "
                           "WHERE d.name = ?", (f"s-{kind}",))
        made = store.query("SELECT p.question FROM derived_items di JOIN seeds p ON p.id = di.parent_id "
                           "JOIN derive_sets d ON d.id = di.set_id WHERE d.name = ?", (f"s-{kind}",))
    assert {j["status"] for j in jobs} <= {"done", "refused"}       # none left pending
    diver = next(j for j in jobs if "diver" in j["question"])
    assert "unwritable" in str(diver["detail"])
    assert any("James" in m["question"] for m in made)       # the next seed was built


def test_a_forty_digit_answer_is_refused_an_added_operation_and_the_run_goes_on(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # the added number was drawn from range(2, answer // 2): with a 40-digit answer the list
    # never ended and ``derive perturb`` hung on its worker (lane attack5)
    big = make_db(tmp_path_factory.mktemp("big"), ["ann", "james"])
    out = add_operation(parent_of(big, "ann"), Options(), "t:ann")
    assert [(r.code, r.transform) for r in out] == [("kind", "add-operation")]   # type: ignore[union-attr]
    assert "too large" in out[0].reason                                      # type: ignore[union-attr]
    summary = run_derive(big, CFG, kind="perturb", name="big", workers=0, z3_workers=1)
    assert summary.jobs == 2
    with Store(big) as store:
        made = store.query("SELECT p.question FROM derived_items di JOIN seeds p ON p.id = di.parent_id")
        pending = store.scalar("SELECT COUNT(*) FROM derive_jobs WHERE status NOT IN ('done', 'refused')")
    assert pending == 0 and any("James" in m["question"] for m in made)


def broken(parent: Any, opts: Options, key: str) -> list[Any]:
    raise ValueError("a fault no rule foresaw")


def test_an_unforeseen_fault_costs_the_transformation_of_that_seed(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(TRANSFORMS, "broken", Transform("broken", "x", "x", ("broken",),
                                                        f"{__name__}:broken"))
    monkeypatch.setitem(KINDS, "broken", ("broken",))
    parent = parent_of(db, "james")
    items, refused, reason = runner.build_job("broken", Options(), "s", parent.seed,
                                              parent.artifacts, None)
    assert (items, reason) == ([], None)
    assert [(r.code, r.reason) for r in refused] == [("internal-error", "ValueError: a fault no rule foresaw")]


@pytest.mark.parametrize(("over", "needle"), [
    ({"variants": 1_000_000}, "variants"), ({"shifts": (0, 10)}, "shifts"),
    ({"error_levels": (1, 7)}, "error_levels"), ({"noise_levels": tuple(range(1, 30))}, "levels"),
    ({"inverse_per_seed": 0}, "inverse_per_seed"), ({"digit_levels": (3, 3)}, "twice")])
def test_options_out_of_bounds_are_refused_before_anything_is_built(db: Path, over: dict[str, Any],
                                                                     needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        run_derive(db, CFG, kind="variants", name="bounded", opts=Options(**over))
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM derive_sets WHERE name = 'bounded'") == 0


@pytest.mark.parametrize("argv", [["variants", "--per-seed", "1000000"],
                                  ["counterfactual", "--shifts", "0"],
                                  ["inverse", "--per-seed", "999"],
                                  ["variants", "--batch", "10000000"],
                                  ["variants", "--seed", "1" + "0" * 60]])
def test_the_command_says_which_option_is_out_of_bounds(db: Path, argv: list[str]) -> None:
    out = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "derive", *argv],
                         capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 2
    assert f"argument {argv[1]}" in out.stderr and "Traceback" not in out.stderr


def test_an_equation_seed_is_left_out_for_having_no_worked_solution_not_for_no_rule() -> None:
    """An ASDiv seed is formalized by the equation rule; derive rebuilds a worked solution,
    so it leaves the seed out, saying so: "no-rule" told the user the rules had failed (398
    of 433 verified ASDiv parents in the lead's import of ASDiv)."""
    from qcstation.core.construct.make.rules import rule_for_seed
    from qcstation.core.derive.bindings import Refusal
    from qcstation.core.derive.rebuild import rule_of

    seed = {"source": "asdiv", "question": "Seven red apples and two green apples are in the "
            "basket. How many apples are in the basket?", "answer_text": "9 (apples)",
            "answer_value": "9", "equation": "7+2=9", "solution": None, "meta": "{}"}
    assert rule_for_seed(seed).rule == "equation"        # the seed is formalized
    with pytest.raises(Refusal) as info:
        rule_of(seed)
    assert info.value.code == "no-worked-solution"
    assert "equation" in str(info.value) and "worked solution" in str(info.value)
