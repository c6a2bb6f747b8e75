"""Self-checks re-derived from the question and the solution (issue 14.4): each flag fires on
the real GSM8K item that showed the fault (its artifact as an earlier rule made it), and
not on the corrected one. None of them reads the rule's own labels."""

from __future__ import annotations

from typing import Any



from qcstation.core.construct.check.selfcheck import audit_artifact


def smt(*lines: str) -> dict[str, str]:
    names = sorted({ln.split()[2] for ln in lines})
    decl = [f"(declare-const {n} Real)" for n in names]
    return {"smtlib": "\n".join(["(set-logic QF_NRA)", *decl, *lines, "(check-sat)",
                                 "(get-value (answer))"])}


def codes(flags: list) -> list[str]:
    return sorted(f.code for f in flags)


# the formalization an earlier rule made for 295: "half as old" divided by "his 2 sons"
OLD_295 = smt("(assert (= g1_years 8))", "(assert (= g2_sons 2))", "(assert (= g3_oranges 15))",
              "(assert (= s1_oranges (/ g1_years g2_sons)))",
              "(assert (= s2_oranges (+ g1_years s1_oranges)))",
              "(assert (= s3_oranges_unwashed (- g3_oranges s2_oranges)))",
              "(assert (= answer s3_oranges_unwashed))")


def test_given_words_a_value_the_question_states_under_two_words(gsm8k: dict) -> None:
    flags = audit_artifact("reasoning", OLD_295, gsm8k["295"])
    words = [f for f in flags if f.code == "given-words"]
    assert len(words) == 1
    assert "s1_oranges uses 2" in words[0].message and "'2 sons'" in words[0].message \
        and "'half'" in words[0].message
    # with "half" declared as its own given the check has nothing to say about it
    fixed = smt("(assert (= g1_years 8))", "(assert (= w_half (/ 1 2)))", "(assert (= g3_oranges 15))",
                "(assert (= s1_oranges (* g1_years w_half)))",
                "(assert (= s2_oranges (+ g1_years s1_oranges)))",
                "(assert (= s3_oranges_unwashed (- g3_oranges s2_oranges)))",
                "(assert (= answer s3_oranges_unwashed))")
    assert "given-words" not in codes(audit_artifact("reasoning", fixed, gsm8k["295"]))


def test_given_words_the_solution_names_the_value_otherwise(gsm8k: dict) -> None:
    # 511: the 30 days of April and June bound to "30 lbs"; the 31 days to "December 31st"
    old = smt("(assert (= g1_st 31))", "(assert (= g2_lbs 30))", "(assert (= g3_th 19))",
              "(assert (= g4_calories 3500))",
              "(assert (= s1_days_until (+ (* 3 g1_st) 28 (* 2 g2_lbs) g3_th)))",
              "(assert (= s2_calories (* g2_lbs g4_calories)))",
              "(assert (= s3_calories_day (/ s2_calories s1_days_until)))",
              "(assert (= answer s3_calories_day))")
    flags = audit_artifact("reasoning", old, gsm8k["511"])
    msgs = [f.message for f in flags if f.code == "given-words"]
    assert any("s1_days_until uses 30 as '30 days'" in m and "'30 lbs'" in m for m in msgs)
    # and the literals 3, 28 and 2 are written into the step instead of declared givens
    lit = [f.message for f in flags if f.code == "step-literal"]
    assert lit == ["s1_days_until writes 3, 28, 2 instead of a declared given"]
    # the 30 lbs of step 2 agree with the question: not flagged
    assert not any(m.startswith("s2_calories") for m in msgs)


def test_step_literal_a_hard_coded_intermediate_result(gsm8k: dict) -> None:
    # 1271: "9000(.30)=2700" has no annotation; an earlier rule wrote 2700, 1890, 882
    old = smt("(assert (= g1 9000))", "(assert (= s1 (- g1 2700)))", "(assert (= s2 (- s1 1890)))",
              "(assert (= s3 (- s2 882)))", "(assert (= answer s3))")
    flags = [f.message for f in audit_artifact("reasoning", old, gsm8k["1271"]) if f.code == "step-literal"]
    assert flags == ["s1 writes 2700 instead of a declared given", "s2 writes 1890 instead of a declared given",
                     "s3 writes 882 instead of a declared given"]


def test_value_leak_an_unknown_that_shows_the_answer(gsm8k: dict) -> None:
    # 446: the unknown asked for shows the answer ($6)
    content = {"goal": "How much change does he have after he buys the hay?",
               "unknown_quantities": ["Q1: The horse runs ? miles because ?", "Q4: Michael has $30 because ?",
                                      "Q5: Michael has $6 in change because ? (the value asked for)"],
               "irrelevant_information": [], "known_quantities": [], "problem_scenario": "x",
               "relationships_and_constraints": []}
    flags = [f.message for f in audit_artifact("understanding", content, gsm8k["446"]) if f.code == "value-leak"]
    assert len(flags) == 2 and "shows 30" in flags[0] and "shows 6" in flags[1]
    content["unknown_quantities"] = ["Q1: the miles the horse runs", "Q5: the change he has (the value asked for)"]
    assert "value-leak" not in codes(audit_artifact("understanding", content, gsm8k["446"]))


def test_irrelevant_used_a_sentence_the_solution_computes_with(gsm8k: dict) -> None:
    # 1271: the three depreciation sentences were listed as irrelevant
    content = {"goal": "How much is the boat worth after the three years?", "known_quantities": ["$9000"],
               "irrelevant_information": ["Over the first year it depreciated 30%.",
                                          "The third year it depreciated 20%."],
               "unknown_quantities": [], "problem_scenario": "Gary bought a boat for $9000.",
               "relationships_and_constraints": []}
    flags = [f for f in audit_artifact("understanding", content, gsm8k["1271"]) if f.code == "irrelevant-used"]
    assert len(flags) == 2
    content["irrelevant_information"] = ["Gary's boat is blue."]
    assert "irrelevant-used" not in codes(audit_artifact("understanding", content, gsm8k["1271"]))


def test_stale_edit_a_because_clause_that_keeps_the_old_result(gsm8k: dict) -> None:
    gt = "There are 110 chips because 2 x 55 = 110\nThey each get 22 chips because 110 / 5 = 22\nThe answer is 22."
    old = {"gt_cot": gt, "w_cot": gt.replace("110 / 5 = 22", "110 * 5 = 550").replace("is 22.", "is 550."),
           "errors": [{"type": "operator_misuse", "step": 1}]}
    flags = [f.message for f in audit_artifact("refinement", old, gsm8k["1251"]) if f.code == "stale-edit"]
    assert flags == ["'They each get 22 chips because 110 * 5 = 550' still states 22, its computation gives 550"]
    new = {**old, "w_cot": gt.replace("get 22 chips because 110 / 5 = 22", "get 550 chips because 110 * 5 = 550")
           .replace("is 22.", "is 550.")}
    assert "stale-edit" not in codes(audit_artifact("refinement", new, gsm8k["1251"]))


def test_checks_ignore_the_rules_own_labels(gsm8k: dict) -> None:
    # a link the rule labelled "settled by structure" is still flagged when it rests on a value
    # the question states; an error record saying the answer is kept does not excuse a wrong
    # chain that keeps the gold
    q = {"question": "Tom has 4 apples and buys 4 more. Then he doubles them. How many?",
         "solution": "4+4=<<4+4=8>>8\n8*2=<<8*2=16>>16", "answer_text": "16"}
    c: dict[str, Any] = smt("(assert (= g1 4))", "(assert (= s1 (+ g1 g1)))", "(assert (= s2 (* s1 2)))",
            "(assert (= s3 (+ s1 g1)))", "(assert (= answer s2))")
    c["links"] = [{"step": "s3", "uses": "s1", "evidence": "the one structure that uses every step"}]
    q2 = {**q, "question": q["question"] + " He had 8 pears."}
    assert "equal-value-link" in codes(audit_artifact("reasoning", c, q2))
    cot = {"gt_cot": "4 + 4 = 8\nThe answer is 16.", "w_cot": "4 + 4 = 9\nThe answer is 16.",
           "errors": [{"type": "arithmetic_inaccuracy", "changes_answer": False}]}
    assert "wrong-cot-keeps-gold" in codes(audit_artifact("refinement", cot, q))


# the known quantities an earlier rule made for the reading of seed 53 (the fragments it cut)
OLD_KNOWN = {
    "64": ["Aleena subscribed to a streaming service that charges her $140 per month",
           "The streaming company charged her the initial amount for the first half of the year",
           "Charged her 10% less money on the other half of the year"],
    "903": ["The educational shop is selling notebooks for $1.50 each", "A ballpen at $0.5 each",
            "William bought five notebooks"],
    "406": ["Each sandwich required 1 pound each of meat and cheese and would serve 4 people",
            "The meat cost $7.00 per pound", "The cheese cost $3.00 per pound", "20 people"],
    "720": ["Goldy bought 20 sacks of rice and gave 3 sacks to her cousin", "4 sacks to her brother",
            "There are 25 kilograms of rice per sack"],
    "1133": ["Valerie earns $5000 per month", "1/2 of what her brother earns",
             "Their mother earns twice their combined salary"],
}


def test_known_fragment_fires_on_the_cuts_of_the_earlier_rule_and_not_on_the_corrected(gsm8k: dict) -> None:
    from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
    from qcstation.core.construct.make.rules import rule_for_seed

    for seed, known in OLD_KNOWN.items():
        old = {"known_quantities": known, "unknown_quantities": [], "irrelevant_information": [],
               "relationships_and_constraints": [], "goal": "?", "problem_scenario": "x"}
        flags = [f for f in audit_artifact("understanding", old, gsm8k[seed]) if f.code == "known-fragment"]
        assert len(flags) == 1, (seed, flags)
        rule = rule_for_seed(gsm8k[seed])
        new = keyinfo_from_annotations(gsm8k[seed]["question"], gsm8k[seed]["solution"], rule.steps,
                                       givens=rule.givens)
        assert [f for f in audit_artifact("understanding", new, gsm8k[seed]) if f.code == "known-fragment"] == []
