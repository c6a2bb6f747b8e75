"""What a transformation reads of its parent alone is read once per parent and kept with it
(:meth:`qcstation.core.derive.parent.Parent.once`), not once per item: the values and names a
noise sentence must keep apart from (one per ladder level before), the parent's own injection
seed (its wrong CoT's content parsed again for every variant); the second opinion reads the
words of the parent's question once (:func:`qcstation.core.derive.recheck._text_skeleton`),
not once per item. The items and verdicts are those of a fresh reading for every item."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from qcstation.core.derive import recheck, story, transforms
from qcstation.core.derive.model import DerivedItem, Refused
from qcstation.core.derive.story import NoisePool, noise
from qcstation.core.derive.transforms import Options, variants
from tests.core.derive.helpers import make_db, parent_of

OPTS = Options(rng_seed=7, variants=4)
POOL = [("other-1", "A football team played 22 games."), ("other-2", "Carla is downloading a 200 GB file."),
        ("other-3", "A bakery sold 41 loaves on Monday."), ("other-4", "A farmer planted 37 rows of corn.")]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return make_db(tmp_path_factory.mktemp("parent_readings"), ["james"])


def _items(out: list[DerivedItem | Refused]) -> list[tuple[str, str, Any]]:
    return [(o.tag, o.question, o.answer) if isinstance(o, DerivedItem) else ("refused", o.code, o.reason)
            for o in out]


def test_a_parents_own_readings_are_made_once_for_all_its_items(db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: Counter[str] = Counter()
    for module, name in ((story, "_kept_apart"), (transforms, "_own_refinement_seed")):
        real = getattr(module, name)

        def counted(parent: Any, _real: Any = real, _name: str = name) -> Any:
            calls[_name] += 1
            return _real(parent)
        monkeypatch.setattr(module, name, counted)
    pool = NoisePool.from_sentences(POOL)
    parent = parent_of(db, "james")
    ladder = noise(parent, OPTS, "t:james", pool, (1, 2, 3))
    made = variants(parent, OPTS, "t:james")
    assert sum(isinstance(o, DerivedItem) for o in ladder) >= 2
    assert sum(isinstance(o, DerivedItem) for o in made) >= 2
    assert calls == {"_kept_apart": 1, "_own_refinement_seed": 1}
    # a fresh parent builds the same items
    assert _items(noise(parent_of(db, "james"), OPTS, "t:james", pool, (1, 2, 3))) == _items(ladder)
    assert _items(variants(parent_of(db, "james"), OPTS, "t:james")) == _items(made)


def test_the_second_opinion_reads_the_parents_words_once(db: Any) -> None:
    parent = parent_of(db, "james")
    items = [o for o in variants(parent, OPTS, "t:james") if isinstance(o, DerivedItem)]
    assert len(items) >= 2
    row = {"question": parent.seed["question"], "solution": parent.seed["solution"],
           "answer_value": parent.seed["answer_value"]}

    def verdicts() -> list[Any]:
        return [recheck.recheck(row, {"transform": "variant", "question": i.question, "solution": i.solution,
                                      "answer_value": str(i.answer), "params": i.params}) for i in items]

    def fresh() -> None:
        for memo in (recheck._text_skeleton, recheck._recomputed, recheck._tokens):
            memo.cache_clear()
    fresh()
    kept = verdicts()
    assert recheck._text_skeleton.cache_info().misses == 1 + len({i.question for i in items})
    alone = []
    for i in range(len(items)):
        fresh()
        alone.append(verdicts()[i])
    assert kept == alone and all(v.status == "ok" for v in kept)
