"""Key information from a reading refused only for places tied by order (issue 26.1, lane cov26u):
the question states a value at several places and the solution's uses of it were tied to them by
order, so no Reasoning formalization is made; its key information is, where it is the same
whichever place each use is (every other check passes but for the words of the tied value's
uses, every place of the value, in digits or a word, stands in a listed known quantity;
relationships are written by value). Held-out GSM8K train seeds of the
tuning sample, their text as written; the pipeline end to end with real Z3 and SQLite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.keyinfo import validate_keyinfo
from qcstation.core.construct.make.keyinfo_reading import ORDER_TIED, keyinfo_for_seed
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.pipeline import Pipeline

PENCILS = {
    "question": "Ken had fifty pencils, and he wanted to share some of them with his two friends, Manny and Nilo. "
                "Ken gave ten pencils to Manny and ten more pencils to Nilo than he gave to Manny. He kept the rest "
                "of the pencils. How many pencils did Ken keep?",
    "solution": "Nilo received 10 + 10 = <<10+10=20>>20.\nThus, Ken gave a total of 10 + 20 = <<10+20=30>>30.\n"
                "Therefore, Ken kept 50 - 30 = <<50-30=20>>20 pencils.",
    "answer_text": "20", "source": "gsm8k"}
# both places of 4 are stated, one listed: "25 times 4" may be either truck's or car's wheels
WHEELS = {
    "question": "Tommy goes for a run around his neighborhood and decides to calculate how many wheels he saw. All "
                "the trucks in his neighborhood have 4 wheels and all the cars in his neighborhood also have 4 "
                "wheels. If he saw 12 trucks and 13 cars, how many wheels did he see?",
    "solution": "He saw 25 total vehicles because 12 plus 13 equals <<12+13=25>>25.\nHe saw 100 wheels because 25 "
                "times 4 equals <<25*4=100>>100.",
    "answer_text": "100", "source": "gsm8k"}
# the two 2s tied by order: "5 - 2" reads as the "two pieces" place, whose words are the nickels'
NICKELS = {
    "question": "Quentavious has 5 nickels. His friend offers him some gum and will give him two pieces per nickel. "
                "If Quentavious leaves with 2 nickels, how many pieces of gum did he get?",
    "solution": "He spent 3 nickels because 5 - 2 = <<5-2=3>>3\nHe got 6 pieces of gum because 3 x 2 = <<3*2=6>>6",
    "answer_text": "6", "source": "gsm8k"}
# "twice as many bell peppers" says a tied 2 and is listed nowhere: refused
PEPPERS = {
    "question": "Jaylen has 5 carrots and 2 cucumbers. Jaylen has twice as many bell peppers as Kristin. Jaylen has 3 "
                "less than half as many green beans as Kristin. If Kristin has 2 bell peppers and 20 green beans, how "
                "many vegetables does Jaylen have in total?",
    "solution": "Jaylen has 2 * 2 = <<2*2=4>>4 bell peppers\nJaylen has (20 / 2) - 3 = <<20/2-3=7>>7 green beans\n"
                "Jaylen has a total of 4 + 7 + 5 + 2 = <<4+7+5+2=18>>18 vegetables",
    "answer_text": "18", "source": "gsm8k"}


def test_key_information_of_a_reading_tied_by_order_where_every_place_is_listed() -> None:
    with pytest.raises(RuleError, match="uncertain binding: the question states 10 more than once"):
        rule_for_seed(PENCILS)
    fields, made_by = keyinfo_for_seed(PENCILS)
    assert made_by == ORDER_TIED
    # ("his two friends" too: every number the story states is listed, test_keyinfo_every_number)
    assert fields["known_quantities"] == ["Ken had fifty pencils",
                                          "He wanted to share some of them with his two friends, Manny and Nilo",
                                          "Ken gave ten pencils to Manny", "Ten more pencils to Nilo than he gave to Manny"]
    assert fields["relationships_and_constraints"] == ["Q1 = 10 + 10", "Q2 = 10 + Q1", "Q3 = 50 − Q2"]
    assert fields["unknown_quantities"][-1] == "Q3: Therefore, Ken kept ? pencils. (the value asked for)"
    assert validate_keyinfo(fields, PENCILS["question"]) == []
    assert audit_artifact("understanding", fields, PENCILS) == []


def test_a_place_of_the_tied_value_listed_nowhere_is_refused() -> None:
    # the cars' "4 wheels" is in no known quantity: which 4 the step means is not told
    with pytest.raises(RuleError, match="uncertain binding: the question states 4 at several places"):
        keyinfo_for_seed(WHEELS)


def test_words_that_disagree_only_by_the_tie_are_the_ties_doing() -> None:
    # (the binder now reads NICKELS' two 2s by their words, "2 nickels" for 5 - 2 and "two pieces"
    # for the pieces of gum: no tie is left, and the key information is the one the tie gave)
    rule = rule_for_seed(NICKELS)
    assert {g["name"]: g["text"] for g in rule.givens if g["value"] == "2"} == {"g2_nickels": "2", "g3_pieces": "two"}
    fields, made_by = keyinfo_for_seed(NICKELS)
    assert made_by == "keyinfo-from-annotations"
    assert fields["known_quantities"] == ["Quentavious has 5 nickels", "His friend offers him some gum and will give "
                                          "him two pieces per nickel", "Quentavious leaves with 2 nickels"]
    assert fields["relationships_and_constraints"] == ["Q1 = 5 − 2", "Q2 = Q1 × 2"]
    assert audit_artifact("understanding", fields, NICKELS) == []
    # a word that says the tied value in a clause no known quantity lists: not the same whichever place
    with pytest.raises(RuleError, match="uncertain binding: the question states 2 more than once"):
        keyinfo_for_seed(PEPPERS)


def test_generate_stores_it_verified_with_the_reading_it_came_from(tmp_path: Path, db_file: Path) -> None:
    from qcstation.core.ingest.importer import import_file

    sample = tmp_path / "tied.jsonl"
    sample.write_text("".join(json.dumps({"question": s["question"], "answer": f"{s['solution']}\n#### "
                                          f"{s['answer_text']}"}) + "\n" for s in (PENCILS, WHEELS)))
    with Store(db_file) as store:
        import_file(store, sample, "gsm8k")
    with Pipeline(db_file, load_config(None, env={})) as p:
        p.generate(dimensions=["reasoning", "understanding"])
    with Store(db_file) as store:
        rows = store.query("SELECT s.question, a.dimension, a.status, t.inputs FROM artifacts a "
                           "JOIN seeds s ON s.id = a.seed_id JOIN attempts t ON t.id = a.attempt_id")
    made = {(r["question"][:3], r["dimension"]): (r["status"], json.loads(r["inputs"])["input"]) for r in rows}
    assert made == {("Ken", "understanding"): ("verified", {"rule": ORDER_TIED})}
