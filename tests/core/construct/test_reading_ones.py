"""The bare 1s of rule-made formalizations (issue 26.1, 26.2): a 1 the question states is a given
at its place, a person or thing the words count once is a named constant ``k_one_<words>``, the
unit of a named ratio vanishes, and a 1 no words tie is refused. The independent check flags a
stored formalization that writes a stated number where no given is tied (``stated-literal``, a
hard flag). Real GSM8K seeds."""

from __future__ import annotations

import re

import pytest

from qcstation.core.construct.check.selfcheck import HARD_FLAGS, audit_artifact, hard_flags
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _literal_ones(smtlib: str) -> list[str]:
    return [ln for ln in smtlib.splitlines() if ln.startswith("(assert (= s") and re.search(r"[ (]1[ )]", ln)
            and "_pct" not in ln]


@pytest.mark.parametrize(("sid", "step", "place"), [
    # "1 cup of dog food every day for the first 180 days" ... "180 * 1"
    ("77", "(assert (= s1_cups (* g1_days g4_cup)))", "1 cup of dog food"),
    # "extra cheese for $1.00, avocado for $1.00" ... "2+1+1+.50": the avocado's own price
    ("228", "(assert (= s2_extras (+ g3 g4 g8 s1_sauce)))", "1.00 and 2 sauces"),
    # "Another time, he spent 6 hours in one week" ... "2+1 = 3 weeks" (not "At one point")
    ("531", "(assert (= s3_weeks_accounted (+ g2_consecutive g6_week)))", "one week"),
    # "If she baked from 1:00 PM - 6:00 PM" ... "6 - 1 = 5 hours"
    ("863", "(assert (= s1_hours (- g1 g5)))", "1:00 PM"),
    # "One of them he picked up wasn't a marble, but actually a bead" ... "8-1"
    ("1248", "(assert (= s3_marbles (- s2_marbles g3_picked)))", "One of them"),
])
def test_a_stated_one_is_a_given_at_its_place(gsm8k: dict, sid: str, step: str, place: str) -> None:
    seed = gsm8k[sid]
    rule = rule_for_seed(seed)
    # the givens' numbers follow the order the rules bind them in, which other readings may
    # change ("g4_cup" became "g2_cup" when the units placed the other cups first): compare
    # the step with its givens' numbers masked, and take the name from the step as written
    def masked(line: str) -> str:
        return re.sub(r"\bg\d+", "g#", line)
    written = [line for line in rule.smtlib.splitlines() if masked(line) == masked(step)]
    assert len(written) == 1, (step, rule.smtlib)
    name = re.findall(r"g\d+\w*", written[0])[-1]
    given = next(g for g in rule.givens if g["name"] == name)
    assert given["value"] == "1"
    a, _ = given["span"]
    assert seed["question"][a:a + len(place)] == place
    assert _literal_ones(rule.smtlib) == []
    assert rule.bound


def test_one_quantity_used_twice_is_its_one_given(gsm8k: dict) -> None:
    # 1266: "For a gallon of lemonade, his recipe called for 1 cup of fresh lemon juice" is each
    # gallon's cup in both steps; never the "1 cup of juice" six lemons yield
    rule = rule_for_seed(gsm8k["1266"])
    lines = rule.smtlib.splitlines()
    assert "(assert (= s1_cups_tart (* w_twice g1_cup)))" in lines
    assert "(assert (= s2_cups (* g2_gallons g1_cup)))" in lines
    assert [g["name"] for g in rule.givens if g["value"] == "1"] == ["g1_cup"]


@pytest.mark.parametrize(("sid", "step"), [
    ("1319", "(assert (= s2_people (+ k_one_henry g3_friends)))"),      # "Henry and 3 of his friends"
    ("702", "(assert (= s1_seats (+ k_one_aiden g1_friends g2_friends)))"),  # not its "one person" per seat
    ("1296", "(assert (= s2_ice_creams (+ k_one_himself g3_friends)))"),  # "for himself and 3 friends"
    # "his teacher, and his 25 classmates" ... "his 25 classmates + his 1 teacher + 1 himself"
    ("649", "(assert (= s1_people (+ g1_classmates k_one_his_teacher k_one_himself)))"),
    ("681", "(assert (= s1_adults (+ g1_adults k_one_jack)))"),          # "Jack rides ... with 8 other adults"
    ("734", "(assert (= s1_people (+ g1_younger k_one_greg)))"),         # "with his 3 younger siblings, Greg"
    ("1200", "(assert (= s4_party_goers (+ g5_people k_one_fred)))"),    # "Fred and the others"
    ("358", "(assert (= s4_friends_because (- s3_attend_because k_one_morgan)))"),  # "she and her friends"
    ("67", "(assert (= s1_teams (+ k_one_a_girls k_one_a_boys)))"),     # "a girls' ... team and a boys' ..."
    ("67", "(assert (= s3_coaches (* s1_teams k_one_a_coach)))"),       # "a coach for each team"
    ("145", "(assert (= s3_packs_cloths (* s1_clients k_one_a_pack)))"),  # "a pack of cloths"
    ("613", "(assert (= s1_ounces (* g1_beef k_one_an_ounce)))"),       # "each an ounce in size"
    ("802", "(assert (= s3_trees_planted (* s1_students k_one_a_tree)))"),  # "each child plants a tree"
    ("1250", "(assert (= s2_flashlights (* k_one_a_flashlight g3_people)))"),  # "a flashlight for every person"
    ("441", "(assert (= s1_feet (* g1_yards k_feet_per_yard)))"),       # "3 feet / 1 yard": the factor
])
def test_a_one_the_words_imply_is_a_named_constant(gsm8k: dict, sid: str, step: str) -> None:
    rule = rule_for_seed(gsm8k[sid])
    assert step in rule.smtlib.splitlines()
    assert _literal_ones(rule.smtlib) == []
    for name in set(re.findall(r"k_one_\w+", step)):
        assert f"(assert (= {name} 1))" in rule.smtlib
        assert name not in {g["name"] for g in rule.givens}  # a constant: derive never moves it
    assert rule.bound


def test_the_words_of_a_named_one_are_a_known_quantity(gsm8k: dict) -> None:
    # 802: "each child plants a tree" was left out of the known quantities; relationships show 1
    seed = gsm8k["802"]
    rule = rule_for_seed(seed)
    fields = keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)
    assert any("each child plants a tree" in k for k in fields["known_quantities"])
    assert "Q3 = Q1 × 1" in fields["relationships_and_constraints"]


def test_a_coins_worth_of_one_cent_is_a_named_constant(gsm8k: dict) -> None:
    # 257: "Since a penny is 1 cent, then 100 pennies is equal to 100 x 1 cent": a penny's worth
    # (k_cents_per_penny), not a bare 1; "Since a dollar is equal to 100 cents ... 500/100" is the
    # cents in a dollar the line names (the question counts pennies, never cents), and "$40 + $5"
    # is the "40 pieces of dollar bills" (what "pieces of" counts), not the "40 nickels"
    seed = gsm8k["257"]
    rule = rule_for_seed(seed)
    lines = rule.smtlib.splitlines()
    assert "(assert (= s1_cents (* g1_pennies k_cents_per_penny)))" in lines
    assert "(assert (= k_cents_per_penny 1))" in lines
    assert "(assert (= s5_dollars (/ s4_cents k_cents_per_dollar)))" in lines
    assert "(assert (= s6_piggy_bank (+ g4_pieces s5_dollars)))" in lines
    a, _ = next(g["span"] for g in rule.givens if g["name"] == "g4_pieces")
    assert seed["question"][a:].startswith("40 pieces of dollar bills")
    assert _literal_ones(rule.smtlib) == [] and rule.value == 45 and rule.bound
    # near misses: a 1 on a line that names no penny stays unbound; "$40" where the question's
    # other 40 is "40 pieces of candy" names neither place
    no_penny = dict(seed, solution=seed["solution"].replace(
        "Since a penny is 1 cent, then 100 pennies is equal to 100 x 1 cent", "He has 100 x 1"))
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(no_penny)
    candy = dict(seed, question=seed["question"].replace("40 pieces of dollar bills", "40 pieces of candy"))
    with pytest.raises(RuleError, match="given-words: s6_piggy_bank uses 40"):
        rule_for_seed(candy)


@pytest.mark.parametrize(("sid", "why"), [
    ("13", "no place of the question states 1"),        # "in year 13 because 12 + 1": the year after
    ("152", "'one person"),                              # "one person ... on a unicycle": tires, not people
    ("237", "no place of the question states 1"),       # "25 + 5 + 1": a pen the solution computes as 5 / 1
    ("455", "no place of the question states 1"),       # "Marin and Nancy eat 4 + 1": no words say 1
    ("1190", "3 place(s)"),                              # "1 slice ... 1 more ... 1 more": which is which
])
def test_a_one_no_words_tie_is_refused(gsm8k: dict, sid: str, why: str) -> None:
    with pytest.raises(RuleError, match="writes the number 1") as exc:
        rule_for_seed(gsm8k[sid])
    assert why in str(exc.value)


# main f9e6b9e's formalization of 77: "1 cup of dog food every day" written as a bare 1
OLD_77 = """(set-logic QF_NRA)
(declare-const g1_days Real)
(declare-const g2_cups Real)
(declare-const g3_cups Real)
(declare-const k_days_per_year Real)
(declare-const s1_cups Real)
(declare-const s2_days_year Real)
(declare-const s3_cups Real)
(declare-const s4_cups Real)
(declare-const s5_bags Real)
(declare-const answer Real)
(assert (= g1_days 180))
(assert (= g2_cups 2))
(assert (= g3_cups 110))
(assert (= k_days_per_year 365))
(assert (= s1_cups (* g1_days 1)))
(assert (= s2_days_year (- k_days_per_year g1_days)))
(assert (= s3_cups (* s2_days_year g2_cups)))
(assert (= s4_cups (+ s1_cups s3_cups)))
(assert (= s5_bags (/ s4_cups g3_cups)))
(assert (= answer s5_bags))
(check-sat)
(get-value (answer))
"""
GIVENS_77 = [{"name": "g1_days", "value": "180", "text": "180", "span": [132, 135], "words": "180", "kind": "number"},
             {"name": "g2_cups", "value": "2", "text": "2", "span": [173, 174], "words": "2", "kind": "number"},
             {"name": "g3_cups", "value": "110", "text": "110", "span": [260, 263], "words": "110", "kind": "number"}]


def test_a_stated_number_written_unbound_is_a_hard_flag(gsm8k: dict) -> None:
    seed = gsm8k["77"]
    content = {"smtlib": OLD_77, "givens": GIVENS_77}
    flags = hard_flags("reasoning", content, seed)
    assert [f.code for f in flags] == ["stated-literal"]
    assert "s1_cups writes 1" in flags[0].message and "'1 cup of dog food" in flags[0].message
    assert "stated-literal" in HARD_FLAGS
    assert "stated-literal" in {f.code for f in audit_artifact("reasoning", content, seed)}
    # a model's formalization stores no places: its literals are the soft step-literal only
    assert hard_flags("reasoning", {"smtlib": OLD_77}, seed) == []
    # today's rules bind it: no flag
    rule = rule_for_seed(seed)
    assert hard_flags("reasoning", {"smtlib": rule.smtlib, "givens": rule.givens}, seed) == []


@pytest.mark.parametrize("sid", ["32", "370", "601"])
def test_the_whole_of_a_percent_change_is_no_stated_one(gsm8k: dict, sid: str) -> None:
    # "25% more than the first one" ... "80 x 1.25": (* g2 (+ 1 g3_pct)), the 1 is the whole
    rule = rule_for_seed(gsm8k[sid])
    assert re.search(r"\(\+ 1 g\d+_pct\)", rule.smtlib)
    assert hard_flags("reasoning", {"smtlib": rule.smtlib, "givens": rule.givens}, gsm8k[sid]) == []


@pytest.mark.parametrize(("question", "solution", "answer", "step"), [
    # GSM8K train 975 (lane gold9's held-out seeds): "herself and her friends" in another sentence
    ("Jessie invited 4 friends over to play. They made muffins for a snack and Jesse wants to divide them equally "
     "between herself and her friends. If they made 20 muffins in total, how many will each person have?",
     "There will be a total of 1 + 4 = <<1+4=5>>5 people who will share the muffins.\n"
     "Each of them will have 20/5 = <<20/5=4>>4 muffins.", "4",
     "(assert (= s1_people_share (+ k_one_herself g1_friends)))"),
    # GSM8K train 3369: "three of Lilibeth's friends" beside "Lilibeth and her friends"
    ("Lilibeth and her friends go strawberry picking. Lilibeth fills 6 baskets where each basket holds 50 "
     "strawberries. If three of Lilibeth's friends pick the same amount as her, how many strawberries do Lilibeth "
     "and her friends pick in all?",
     "Lilibeth picks 6 x 50 = <<6*50=300>>300 strawberries.\nThere are 1 + 3 = <<1+3=4>>4 of them who are picking "
     "strawberries.\nTherefore, they pick a total of 300 x 4 = <<300*4=1200>>1200 strawberries.", "1200",
     "(assert (= s2_picking_strawberries (+ k_one_lilibeth g3_lilibeth)))"),
    # GSM8K train 4251: the line says "Kingsley and her four friends"
    ("Kingsley's teacher instructed her to find four friends to help her carry some chairs to the school hall to be "
     "used for an upcoming event. If each student carried 5 chairs per trip and made 10 trips in total, what's the "
     "total number of chairs taken to the hall?",
     "Kingsley and her four friends sum up to 4+1 = <<4+1=5>>5 students carrying chairs.\nThe number of chairs "
     "carried by each student after all the trips is 10*5 = <<10*5=50>>50\nSince each student carried 50 chairs, "
     "the total number in the hall is 50*5 = <<50*5=250>>250", "250",
     "(assert (= s1_students_carrying (+ g1_friends k_one_kingsley)))"),
])
def test_the_one_whose_friends_are_counted(question: str, solution: str, answer: str, step: str) -> None:
    """"1 + 4 = 5 people" where the question counts "4 friends" and says whose they are ("herself and
    her friends", "Lilibeth and her friends", or the line's "Kingsley and her four friends"): the one
    who has them, ``k_one_<who>``, never moved by derive (these were refused: no words tied the 1)."""
    seed = {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}
    assert step in rule_for_seed(seed).smtlib.splitlines()


def test_a_count_of_friends_whose_owner_no_words_name_leaves_its_1_refused() -> None:
    """The same sum where nothing says whose the friends are (two names, no "and her friends")."""
    seed = {"question": "Jessie and Mia invited 4 friends over to play. They want to divide 20 muffins equally. "
                        "How many will each person have?",
            "solution": "There will be a total of 1 + 4 = <<1+4=5>>5 people.\nEach of them will have 20/5 = "
                        "<<20/5=4>>4 muffins.", "answer_text": "4", "source": "gsm8k"}
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_thing_an_article_counts_that_the_line_names_as_its_subject_or_its_results_noun() -> None:
    # held-out GSM8K train seeds (issue 26.1, lane gold11a): "4 quarters, 3 dimes, and a nickel" /
    # "The nickel was 5*1=5 cents"; "eats a bag of chips for dinner and then eats twice as many" /
    # "2 * 1 = 2 bags", "2 + 1 = 3 bags of chips"
    q = "Ann drinks a cup of tea in the morning and then drinks three times as many at night. How many cups does she drink?"
    s = "She drinks 3 * 1 = <<3*1=3>>3 cups at night.\nShe drinks 3 + 1 = <<3+1=4>>4 cups in all.\n#### 4"
    rule = rule_for_seed({"question": q, "solution": s, "answer_text": "4", "answer_value": "4"})
    assert [st.sexpr for st in rule.steps][:2] == ["(* g1_times k_one_a_cup)", "(+ s1_cups_night k_one_a_cup)"]
    # near-misses: a thing the line names only after its result's noun ("in the basket"), an amount
    # ("a total of 20 heads"), a noun the question also counts with a number: no 1 of theirs
    for q2, s2 in [
        ("If a basket holds 40 fruit, and there are 3 times as many apples as oranges, how many oranges are there?",
         "The groups are 3+1=<<3+1=4>>4 fruit.\nThere are 40/4=<<40/4=10>>10 groups.\n"
         "There are 10*1=<<10*1=10>>10 oranges in the basket.\n#### 10"),
        ("The beast has three legs. In a herd there is a total of 20 heads and legs. How many beasts are in the herd?",
         "Each beast has 1+3=<<1+3=4>>4 total heads and legs.\nThen there are 20/4=<<20/4=5>>5 in the herd.\n#### 5"),
        ("Ann drinks a cup of tea in the morning and 2 cups at noon, then three times as many at night. How many?",
         "She drinks 3 * 1 = <<3*1=3>>3 cups at night.\nShe drinks 3 + 1 + 2 = <<3+1+2=6>>6 cups in all.\n#### 6"),
    ]:
        ans = s2.rsplit("#### ", 1)[1]
        with pytest.raises(RuleError, match="writes the number 1"):
            rule_for_seed({"question": q2, "solution": s2, "answer_text": ans, "answer_value": ans})


ASHLEY = {"source": "gsm8k", "orig_id": "train-ashley", "question": (
    "Ashley had a birthday party and invited 20 of her friends, telling them to each invite one more person "
    "to attend the party. If half the number of the invited guests each came with one more person, what's "
    "the total number of people at the party, including Ashley?"), "answer": (
    "If she invited 20 friends, then the number of friends who came with one more person is 1/2*20 = "
    "<<20*1/2=10>>10.\nIf the 10 friends came with 10 more people, the total number of guests becomes 20+10 = "
    "30 guests.\nIf you add Ashley, the total number of people in the party is 30+1 = <<30+1=31>>31 people\n"
    "#### 31")}


def test_the_person_the_question_counts_in_by_name_is_a_named_one() -> None:
    # held-out GSM8K train (read by the lead, rng 20261315 seed 36): "including Ashley" ... "If you
    # add Ashley ... 30+1": Ashley herself, never the "one more person" the same sentence states
    rule = rule_for_seed(ASHLEY)
    lines = rule.smtlib.splitlines()
    assert "(assert (= s3_people (+ s2_guests k_one_ashley)))" in lines, rule.smtlib
    assert all(g["value"] != "1" for g in rule.givens)


def test_a_name_the_question_does_not_count_in_is_not_taken_for_a_person() -> None:
    # the same line where the question asks for the guests only: the line's "add Ashley" is not the
    # question's, so no k_one_ashley is made from the line's words alone
    seed = dict(ASHLEY, question=ASHLEY["question"].replace(", including Ashley", ""))
    try:
        rule = rule_for_seed(seed)
    except RuleError:
        return
    assert "k_one_ashley" not in rule.smtlib
