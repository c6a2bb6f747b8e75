"""A refusal kept past its handler (a draw's refusal remembered, the last reason to report)
leaves no reference cycle: nothing of a parent's build waits for the cyclic garbage collector
with the frames it was raised through (issue 30.6: those cycles, about 1,500 objects per
variant item, brought on the full collections that took a fifth of a rules worker's CPU).
Nor do the readings' recursive closures (a ``walk`` that calls itself holds its own cell: a
function, cell and closure cycle per call, with all it captured) or a parent's cheap checks
(which held the parent that holds them): about 620 cyclic objects per variant item of
GSM8K test parents before, 115 after, 2 once key information's ``_describe`` and ``_relation``
were no closures calling themselves."""

from __future__ import annotations

import gc
from typing import Any
from pathlib import Path

import pytest

from qcstation.core.derive.bindings import Refusal, kept
from qcstation.core.derive.model import DerivedItem
from qcstation.core.derive.transforms import Options, counterfactuals, variants
from tests.core.derive.helpers import make_db, parent_of


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("kept"), ["james", "janet", "jacket", "isabelle", "carrots", "richard"])


def _cyclic_garbage(build: object) -> list[Any]:
    """What only the cyclic collector would free after ``build()`` (which must make items)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        made = build()  # type: ignore[operator]
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert any(isinstance(x, DerivedItem) for x in made)   # a real build, items made
    return garbage


def _derive_frames_left(build: object) -> list[str]:
    """The derive frames that only the cyclic collector would free after ``build()``."""
    return [f"{o.f_code.co_filename.rsplit('/', 1)[-1]}:{o.f_code.co_name}"
            for o in _cyclic_garbage(build) if type(o).__name__ == "frame"
            and "/core/derive/" in o.f_code.co_filename]


def _own_cycles_left(build: object) -> list[str]:
    """The project's functions and parents that only the cyclic collector would free."""
    return sorted({f"{o.__module__}.{o.__qualname__}" if type(o).__name__ == "function"
                   else type(o).__name__ for o in _cyclic_garbage(build)
                   if (type(o).__name__ == "function" and str(o.__module__).startswith("qcstation"))
                   or type(o).__name__ in ("Parent", "FastChecks")})


@pytest.mark.parametrize("name", ["james", "janet"])
def test_variants_leave_no_frames_to_the_cyclic_collector(db: Path, name: str) -> None:
    parent = parent_of(db, name)
    # James's 3 sprints and 3 times stay below 60 meters: most draws are refused on order
    frames = _derive_frames_left(lambda: variants(parent, Options(rng_seed=3, variants=10), f"t:{name}"))
    assert frames == []


@pytest.mark.parametrize("name", ["james", "janet", "jacket", "isabelle", "carrots", "richard"])
def test_a_parent_and_its_variants_leave_no_closures_to_the_cyclic_collector(db: Path, name: str) -> None:
    # loading the parent (its rules read again) and building its variants: before, the
    # readings' walks (givens, links, units, repeats, unknowns, notation, selfcheck...) and
    # the parent with its cheap checks were left to the collector
    left = _own_cycles_left(lambda: variants(parent_of(db, name), Options(rng_seed=3, variants=10),
                                             f"t:{name}"))
    # (key information's _describe and _relation closures too: about 115 cyclic objects per item)
    assert left == []


def test_counterfactuals_leave_no_frames_to_the_cyclic_collector(db: Path) -> None:
    parent = parent_of(db, "janet")
    assert _derive_frames_left(lambda: counterfactuals(parent, Options(rng_seed=3), "t:janet")) == []


def test_a_kept_refusal_keeps_its_code_and_reason_not_its_frames() -> None:
    def refuse(n: int) -> None:
        try:
            print(1 / n)
        except ZeroDivisionError:
            raise Refusal("undefined", "step s1 cannot be computed") from None

    try:
        refuse(0)
    except Refusal as exc:
        got = kept(exc)
    assert got.__traceback__ is None and got.__context__ is None
    assert (got.code, str(got)) == ("undefined", "step s1 cannot be computed")
