"""A changed given must not contradict a number its sentence states but the formalization
does not use: "She split the cost evenly three ways with her two parents" (GSM8K 248) may
not become "four ways with her two parents". Such a given keeps its value, with the reason;
when no given may move, the transformation is refused with the reasons."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from qcstation.core.derive.bindings import Bindings, Refusal, unused_neighbours
from qcstation.core.derive.model import DerivedItem, Refused
from qcstation.core.derive.parent import with_values
from qcstation.core.derive.transforms import Options, changed_numbers, counterfactuals, inverses, variants
from tests.core.derive.helpers import make_db, parent_of, z3_value


@pytest.fixture(scope="module")
def isabelle(tmp_path_factory: pytest.TempPathFactory):
    return parent_of(make_db(tmp_path_factory.mktemp("tied"), ["isabelle"]), "isabelle")


def _g(question: str, words: str, name: str = "g", after: str = ""):
    from qcstation.core.derive.bindings import Given
    from qcstation.core.derive.numbers import read_style

    start = question.index(after + words) + len(after)
    value = Fraction(words) if words[0].isdigit() else Fraction(3)
    kind = "number" if words[0].isdigit() else "word"
    return Given(name, value, start, start + len(words), words, kind, read_style(words, value, kind))


@pytest.mark.parametrize(("question", "words", "after", "tied"), [
    ("She split the cost evenly three ways with her two parents. How much?", "three", "evenly ", ["two"]),
    ("Lori needed 1 whole egg to make 2 deviled egg halves. How many eggs?", "2", "make ", ["1"]),
    ("A class is split into 3 groups such that 2 of them are equal. How many?", "3", "into ", ["2"]),
    # "one" as an article does not tie; a number in another sentence does not either
    ("One crayon costs $2. She has 5 friends. How much?", "2", "$", []),
    ("She pays $2 a day. Her two dogs bark. How much?", "2", "$", []),
])
def test_numbers_the_sentence_states_beside_a_given(question: str, words: str, after: str,
                                                    tied: list[str]) -> None:
    g = _g(question, words, after=after)
    near = unused_neighbours(question, [g])
    assert [n.text for n in near.get("g", [])] == tied


def test_a_number_the_formalization_uses_does_not_hold_the_given() -> None:
    q = "She split the cost evenly three ways with her two parents. How much?"
    g = _g(q, "three", after="evenly ")
    assert unused_neighbours(q, [g], used=frozenset({Fraction(2)})) == {}


def test_isabelle_three_ways_is_held_and_the_costs_move(isabelle) -> None:
    by = {g.name: g for g in isabelle.givens}
    assert "'two'" in by["g6_ways"].fixed and "does not use" in by["g6_ways"].fixed
    assert not any(by[n].fixed for n in by if n != "g6_ways")
    out = variants(isabelle, Options(variants=6), "t:isabelle")
    made = [o for o in out if isinstance(o, DerivedItem)]
    assert len(made) >= 4
    for item in made:
        assert "split the cost evenly three ways with her two parents" in item.question
        assert "g6_ways" not in item.params["givens"]
        costs = sum(Fraction(v["new"]) if n in item.params["givens"] else by[n].value
                    for n, v in [(k, item.params["givens"].get(k)) for k in
                                 ("g1_ingredients", "g2_birthday", "g3_decorations",
                                  "g4_invitations", "g5_goodie")])
        assert item.answer == costs / 3 == z3_value(item.contents["reasoning"]["smtlib"])


def test_isabelle_never_shifts_or_hides_the_held_given(isabelle) -> None:
    for item in counterfactuals(isabelle, Options(), "t:isabelle"):
        if isinstance(item, DerivedItem):
            assert item.params["given"] != "g6_ways" and "three ways" in item.question
    for item in changed_numbers(isabelle, Options(), "t:isabelle"):
        if isinstance(item, DerivedItem):
            assert "g6_ways" not in item.params["givens"]
    hidden = [i.params["hidden"] for i in inverses(isabelle, Options(inverse_per_seed=9), "t:isabelle")
              if isinstance(i, DerivedItem)]
    assert hidden and "g6_ways" not in hidden
    with pytest.raises(Refusal) as exc:
        with_values(isabelle, {"g6_ways": Fraction(4)})
    assert exc.value.code == "held" and "'two'" in str(exc.value)


def test_when_no_given_may_move_the_item_is_refused_with_the_reasons(isabelle) -> None:
    held = tuple(g if g.fixed else dataclasses.replace(g, fixed="a clock time")
                 for g in isabelle.givens)
    parent = dataclasses.replace(isabelle, bindings=Bindings(held, isabelle.bindings.factors))
    for out in (variants(parent, Options(variants=2), "t:x"), changed_numbers(parent, Options(), "t:x"),
                counterfactuals(parent, Options(shifts=(10,)), "t:x")):
        assert out and all(isinstance(o, Refused) and o.code == "held" for o in out)
        first = out[0]
        assert isinstance(first, Refused)
        assert "'three'" in first.reason and "'two'" in first.reason and "clock time" in first.reason
