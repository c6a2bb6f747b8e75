"""A score's detail is stored exactly as ``json.dumps(detail, sort_keys=True,
ensure_ascii=False, default=str)`` writes it, whichever way :func:`db.store.stored_json` takes: the
flat objects it writes itself (strings with every kind of character, whole numbers of any
size, booleans, nulls) and everything it leaves to the encoder (floats, lists, nested
objects, other keys, other types)."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from fractions import Fraction
from typing import Any

from db.store import stored_json as detail_json

_CHARS = ["a", "Z", " ", '"', "\\", "/", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\u2028",
          "é", "日", "\U0001f600", "\ud800", "\udfff", "{", ":", ","]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(_CHARS) for _ in range(rng.randint(0, 12)))


def _flat_value(rng: random.Random) -> Any:
    return rng.choice([lambda: _text(rng), lambda: None, lambda: True, lambda: False,
                       lambda: rng.randint(-10**30, 10**30), lambda: rng.randint(-3, 3)])()


def _other_value(rng: random.Random) -> Any:
    return rng.choice([lambda: rng.random() * 10**rng.randint(-5, 20), lambda: float("nan"),
                       lambda: float("inf"), lambda: -0.0, lambda: [_text(rng), 1, None],
                       lambda: {"z": _text(rng), "a": [True]}, lambda: Fraction(1, 3),
                       lambda: Decimal("1.50"), lambda: (1, "x"), lambda: 2.0**70,
                       lambda: object.__new__(type("X", (), {"__str__": lambda self: "x!"}))])()


def _expected(detail: Any) -> str:
    return json.dumps(detail, sort_keys=True, ensure_ascii=False, default=str)


def test_the_detail_is_written_as_json_dumps_writes_it() -> None:
    rng = random.Random(7)
    flat = 0
    for i in range(20_000):
        keys = [_text(rng) or "k" for _ in range(rng.randint(0, 7))]
        detail: dict[Any, Any] = {k: _flat_value(rng) for k in keys}
        if i % 3 == 0 and detail:   # one value the encoder writes
            detail[rng.choice(list(detail))] = _other_value(rng)
        else:
            flat += 1
        assert detail_json(detail) == _expected(detail), detail
    assert flat > 10_000


def test_the_answer_checks_detail_and_odd_keys() -> None:
    answer = {"gold": "42", "value": "42", "method": "exact", "reason": None, "source": "strict",
              "keeps_answer": True, "copied": False}
    assert detail_json(answer) == _expected(answer)
    assert detail_json({}) == "{}"
    for odd in ({1: "a", 2: "b"}, {True: 1}, {None: 2}, {2.5: "x"}):
        assert detail_json(odd) == _expected(odd)
