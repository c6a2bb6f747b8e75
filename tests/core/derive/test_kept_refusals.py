"""A refusal kept past its handler (a draw's refusal remembered, the last reason to report)
leaves no reference cycle: nothing of a parent's build waits for the cyclic garbage collector
with the frames it was raised through (issue 30.6: those cycles, about 1,500 objects per
variant item, brought on the full collections that took a fifth of a rules worker's CPU)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from qcstation.core.derive.bindings import Refusal, kept
from qcstation.core.derive.model import DerivedItem
from qcstation.core.derive.transforms import Options, counterfactuals, variants
from tests.core.derive.helpers import make_db, parent_of


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("kept"), ["james", "janet"])


def _derive_frames_left(build: object) -> list[str]:
    """The derive frames that only the cyclic collector would free after ``build()``."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        made = build()  # type: ignore[operator]
        gc.collect()
        frames = [f"{o.f_code.co_filename.rsplit('/', 1)[-1]}:{o.f_code.co_name}"
                  for o in gc.garbage if type(o).__name__ == "frame"
                  and "/core/derive/" in o.f_code.co_filename]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert any(isinstance(x, DerivedItem) for x in made)   # a real build, items made
    return frames


@pytest.mark.parametrize("name", ["james", "janet"])
def test_variants_leave_no_frames_to_the_cyclic_collector(db: Path, name: str) -> None:
    parent = parent_of(db, name)
    # James's 3 sprints and 3 times stay below 60 meters: most draws are refused on order
    frames = _derive_frames_left(lambda: variants(parent, Options(rng_seed=3, variants=10), f"t:{name}"))
    assert frames == []


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
