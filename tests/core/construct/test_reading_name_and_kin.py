"""A pair the question names as one person and a relative of theirs ("Henry and his brother", issue
26.1, lane covA): a step's 2 on a line that names both is that pair's count (a word given tied to its
words), never a group ("Joe and his team", "Mell and her friends") nor a line that names neither."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.implied import list_count, relative_lists


def _seed(question: str, solution: str, answer: str) -> dict[str, str]:
    return {"question": question, "solution": solution, "answer_text": answer}


_Q = ("A crate holds 15 pears. Maria and her sister open 4 crates and share the pears equally. "
      "How many pears does each of them get?")


def test_a_name_and_a_relative_is_a_pair_whose_count_a_step_divides_by(z3pool) -> None:
    seed = _seed(_Q, "The crates hold 15 x 4 = <<15*4=60>>60 pears.\n"
                     "Maria and her sister each get 60 / 2 = <<60/2=30>>30 pears.\n#### 30", "30")
    rule = rule_for_seed(seed)
    assert "(assert (= w_maria_and_her_sister 2))" in rule.smtlib, rule.smtlib
    assert "(/ s1_pears w_maria_and_her_sister)" in rule.smtlib, rule.smtlib
    assert any(g["words"] == "Maria and her sister" for g in rule.givens)
    assert z3pool.verify(rule.smtlib, "30").ok


def test_a_line_that_names_neither_member_is_refused() -> None:
    seed = _seed(_Q, "The crates hold 15 x 4 = <<15*4=60>>60 pears.\n"
                     "That is 60 / 2 = <<60/2=30>>30 pears.\n#### 30", "30")
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_group_or_a_plural_relative_is_no_pair() -> None:
    assert relative_lists("Joe and his team scored 8 points.") == []
    assert relative_lists("Mell and her friends bought ice cream.") == []
    assert relative_lists("If Ron and his wife join the club.") == [("Ron and his wife", ("Ron", "wife"))]
    # a sentence opener is no name; the kin word must end there ("brother-in-law" is another word)
    assert relative_lists("Then and her brother went.") == []
    assert relative_lists("Ann and her brother-in-law went.") == []
    q = "Ann and her older brother share 10 apples."
    assert list_count(Fraction(2), q, "Ann and her brother each get 10 / 2 = 5", "divisor") == "Ann and her older brother"
    assert list_count(Fraction(3), q, "Ann and her brother each get 10 / 3", "divisor") is None


def test_a_pair_the_asking_clause_writes_is_quoted_whole_in_the_key_information() -> None:
    from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed

    seed = {"question": "A jar holds 12 cookies. How many days can Maria and her sister eat 4 jars of cookies "
                        "if they each eat 3 cookies a day?",
            "solution": "The jars hold 12 x 4 = <<12*4=48>>48 cookies.\n"
                        "Maria and her sister eat 3 x 2 = <<3*2=6>>6 cookies a day.\n"
                        "The cookies last 48 / 6 = <<48/6=8>>8 days.\n#### 8"}
    fields, _how = keyinfo_for_seed(seed)
    known = fields["known_quantities"]
    # the clause splitter cuts the asking clause at "and": the pair is quoted as the question writes
    # it, never as the cut clause ("how many days can Maria")
    assert 'The question asks about "Maria and her sister"' in known, known
    assert not any("can Maria" in k for k in known), known
    assert fields["relationships_and_constraints"] == ["Q1 = 12 × 4", "Q2 = 3 × 2", "Q3 = Q1 ÷ Q2"]
