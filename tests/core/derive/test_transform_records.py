"""One record per derive transformation: the kinds, the stale checks, the robustness tables
and the runner's dispatch are all read from ``model.TRANSFORM_LIST``; a transformation added
as a record and a builder is built by ``derive`` without touching any other table."""

from __future__ import annotations

from typing import Any

import pytest

from qcstation.core.derive import runner, stale
from qcstation.core.derive.model import (
    KINDS,
    TRANSFORM_LIST,
    TRANSFORMS,
    DerivedItem,
    Refused,
    Transform,
)
from qcstation.core.derive.transforms import Options
from qcstation.eval.robustness import diagnose, tables
from tests.core.derive.helpers import make_db, parent_of


def test_every_record_names_a_builder_of_the_derive_stage() -> None:
    for t in TRANSFORM_LIST:
        assert t.builder.startswith("qcstation.core.derive."), t
        assert callable(runner.builder(t)), t
        assert t.kinds and all(t.name in KINDS[k] for k in t.kinds)


def test_the_tables_are_read_from_the_records() -> None:
    # what the tables held when each was written by hand
    assert KINDS == {"variants": ("variant",), "ladder": ("noise", "digits", "errors"),
                     "perturb": ("noise", "add-operation", "changed-numbers"),
                     "counterfactual": ("counterfactual",), "inverse": ("inverse",)}
    assert set(stale.REREAD) == {"variant", "changed-numbers", "counterfactual", "noise",
                                 "add-operation"}
    assert set(stale.SAME_SKELETON) == {"variant", "changed-numbers", "counterfactual", "digits"}
    assert diagnose.PERTURBATIONS == ("noise", "add-operation", "changed-numbers")
    assert diagnose.LADDER_DIM == {"noise": "un", "steps": "re", "digits": "ar", "errors": "rt"}
    assert set(tables.LADDER_TITLES) == set(diagnose.LADDER_DIM)
    assert [TRANSFORMS[n].family for n in ("variant", "digits", "errors", "inverse")] == \
        ["variants", "arithmetic-ladder", "refinement-ladder", "inverse"]


def echo(parent: Any, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """A transformation made in this test: it refuses every parent, saying whose key it saw."""
    return [Refused("echo", "test", key)]


def test_a_new_record_is_built_by_the_runner(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    record = Transform("echo", "echo", "a test", ("echo",), f"{__name__}:echo")
    monkeypatch.setitem(TRANSFORMS, "echo", record)
    monkeypatch.setitem(KINDS, "echo", ("echo",))
    parent = parent_of(make_db(tmp_path, ["james"]), "james")
    seed = parent.seed
    out = runner._one("echo", parent, Options(), f"s:{seed['source']}-{seed['orig_id']}", None)
    assert all(isinstance(r, Refused) for r in out)
    assert [(r.transform, r.code, r.reason) for r in out if isinstance(r, Refused)] == \
        [("echo", "test", f"s:{seed['source']}-{seed['orig_id']}")]
    with pytest.raises(ValueError, match="unknown transform"):
        runner._one("nope", None, Options(), "k", None)
