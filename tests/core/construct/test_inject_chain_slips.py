"""Errors are injected only into a chain that is correct as written (issue 26.4: injected errors
are the chain's only errors). A GSM8K solution can carry a slip of its prose that its question
contradicts ("Clara sells 3300 cookies total because 600+1600+1120=3320"; "in 9 weeks" for the
question's "6 weeks"): a model asked to name the injected errors would meet a second, unrecorded
one, and the "corrected" reference would still state it. Such a chain is refused with the step
and the words; the numbers a chain may write that the question does not (a unit's constant, a
coin's worth, "the first 2 pages", a time after a rate "every 2 years") leave it as it was.
Real injector, real slip reader (qcstation.core.reading.slips)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.inject import InjectionError, inject_errors
from qcstation.core.reading.slips import QuestionCounts, computation_numbers, slip_in

SHOWS = ("Mark goes to the theater once a week. One show lasts 3 hours and the ticket costs $5 for each "
         "hour. How much will Mark spend on the theater in 6 weeks?")


def test_a_chain_the_question_contradicts_is_refused() -> None:
    chain = ("The price of one show is 3 * $5 = $<<3*5=15>>15.\n"
             "He goes once a week, so in 9 weeks he will spend 6 * $15 = $<<6*15=90>>90.\n#### 90")
    with pytest.raises(InjectionError, match=r"step 2 of the chain reads '9 weeks'"):
        inject_errors(chain, 1, rng_seed=3, question=SHOWS, redraw=False)


def test_the_same_chain_without_the_slip_gets_its_error() -> None:
    chain = ("The price of one show is 3 * $5 = $<<3*5=15>>15.\n"
             "He goes once a week, so in 6 weeks he will spend 6 * $15 = $<<6*15=90>>90.\n#### 90")
    out = inject_errors(chain, 1, rng_seed=3, question=SHOWS, redraw=False)
    assert len(out.errors) == 1 and out.text != chain


def test_a_claim_its_own_computation_contradicts_is_refused() -> None:
    question = "Emily catches 5 bluegills. Each bluegill weighs 2.5 pounds. How many pounds of bluegill did she catch?"
    chain = "She caught 7.5 pounds of bluegill because 5 x 2.5 = <<5*2.5=12.5>>12.5\n#### 12.5"
    with pytest.raises(InjectionError, match="'7.5 pounds'"):
        inject_errors(chain, 1, rng_seed=1, question=question, redraw=False)


@pytest.mark.parametrize("question, line", [
    ("A snake is 2 feet long. Another snake is 16 inches long. How many inches are both snakes combined?",
     "The first snake is 24 inches because there are 12 inches in a foot. Together 24+16 = 40 inches."),
    ("Barry has $10.00 worth of dimes. How many dimes does he have?",
     "Dimes are worth $0.10 and Barry has $10.00 worth of dimes so he has 10/.10 = 100 dimes"),
    ("Janice found 5 drawings on the first page; each page has five more than the one before, over ten pages.",
     "The total number of drawings in the first 2 pages is 5+10 = 15"),
    ("Every 2 years, the number of swans doubles. There are 15 swans now. How many in ten years?",
     "If after 6 years there are 120 swans in the pond, in eight years there will be 2*120=240 swans"),
    ("There are 10 students in a class, 5 of which scored 92 and 4 of which scored 80.",
     "9 students therefore scored a combined total of 460 + 320 = 780 points."),
])
def test_numbers_a_correct_chain_may_write(question: str, line: str) -> None:
    assert slip_in(line, QuestionCounts(question), computation_numbers(line)) is None


def test_a_comparison_with_another_ordinal_and_hostile_text() -> None:
    counts = QuestionCounts("The first week he adopted 20 puppies, and the fourth week ten more puppies than he "
                            "adopted on the first week.")
    said = slip_in("In the fourth week he adopted ten more puppies than the third week", counts, set())
    assert said is not None and "compares with the first" in said
    # a run of 20,000 digits or of letters reads as no number (no error, no slip)
    assert slip_in("1" * 20_000 + " apples", QuestionCounts("2 apples " + "1" * 20_000), set()) is None
    assert computation_numbers("<<" + "9" * 50 + "+1=2>>") == {Fraction(1), Fraction(2)}


# -- a line that names the wrong one of parallel entities (held-out reading read18)

CLASSES = ("Ana asks the classes which snack they like. In Mr. Brook's class, 1/4 of the students like "
           "apples. In Miss Vale's class, 3/5 of the students like apples. If each class has 20 students, "
           "how many students like apples?")
CLASSES_S = ("First find the apple fans in Miss Vale's class: 3/5 * 20 students = <<3/5*20=12>>12 students\n"
             "Then find the apple fans in {who} class: 1/4 * 20 students = <<1/4*20=5>>5 students\n"
             "Then add them: 12 students + 5 students = <<12+5=17>>17 students\n#### 17")


def test_a_line_naming_the_other_class_is_a_slip_for_chains_and_key_information() -> None:
    from qcstation.core.construct.make.keyinfo import KeyInfoError
    from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed
    from qcstation.core.reading.name_slips import name_slip

    slipped = CLASSES_S.format(who="Miss Vale's")
    line = slipped.splitlines()[1]
    found = name_slip(line, CLASSES)
    assert found is not None and "'Vale'" in found and "Brook" in found
    with pytest.raises(InjectionError, match="step 2 of the chain reads 'Vale'"):
        inject_errors(slipped, 1, rng_seed=3, question=CLASSES, redraw=False)
    with pytest.raises(KeyInfoError, match="Q2 would read 'Vale'"):
        keyinfo_for_seed({"question": CLASSES, "solution": slipped})
    # the same solution with the right name: nothing said, both made
    right = CLASSES_S.format(who="Mr. Brook's")
    assert all(name_slip(ln, CLASSES) is None for ln in right.splitlines())
    assert len(inject_errors(right, 1, rng_seed=3, question=CLASSES, redraw=False).errors) == 1
    fields, _how = keyinfo_for_seed({"question": CLASSES, "solution": right})
    assert fields["unknown_quantities"][1].startswith("Q2: Then find the apple fans in Mr. Brook's class")


@pytest.mark.parametrize(("question", "line"), [
    # a relation, not a parallel entity
    ("Tom is 10. His sister Ann is 4 years younger. Their dad is 3 times Ann's age. How old is dad?",
     "So Tom's dad is 3*6=<<3*6=18>>18"),
    # the line names whose the number is, too
    ("Billy can spit a seed 30 inches. Madison can spit a seed 20% farther than Billy. How far can Madison spit?",
     "Billy spits 30 inches and Madison 6 inches farther for 30+6 = <<30+6=36>>36 inches"),
    # the other sentence names the one the line names
    ("Rong saves 20 coins every month. Neil saves 2/5 times more coins per month than Rong. How many in a year?",
     "Neil saves 20+8 = <<20+8=28>>28 coins per month"),
])
def test_names_that_are_no_slip(question: str, line: str) -> None:
    from qcstation.core.reading.name_slips import name_slip

    assert name_slip(line, question) is None


# -- a count of dozens written as the count; a number with malformed thousands (read19)

COOKIES = "Ann needs 6 cups of flour to bake 30 cookies. How many cups of flour does she need to bake 10 dozen cookies?"


def test_a_dozen_dropped_is_refused_in_every_dimension() -> None:
    """'to bake 10 cookies, she needs 10/5' for '10 dozen cookies' (held-out train 4943 did this
    with 200 dozen): the gold answers another question. Reasoning, key information and the
    chain are all refused; the same solution working in dozens is made."""
    from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed
    from qcstation.core.construct.make.rules import RuleError, rule_for_seed
    from qcstation.core.reading.slips import dozen_dropped

    slipped = ("One cup of flour bakes 30/6 = <<30/6=5>>5 cookies.\n"
               "To bake 10 cookies, she needs 10/5 = <<10/5=2>>2 cups of flour.\n#### 2")
    assert dozen_dropped(slipped.splitlines()[1], COOKIES) == "'10 cookies' for the question's '10 dozen cookies'"
    seed = {"question": COOKIES, "solution": slipped}
    with pytest.raises(RuleError, match="'10 cookies' for the question's '10 dozen cookies'"):
        rule_for_seed(seed)
    with pytest.raises(RuleError, match="10 dozen"):
        keyinfo_for_seed(seed)
    with pytest.raises(InjectionError, match="step 2 of the chain reads '10 cookies'"):
        inject_errors(slipped, 1, rng_seed=3, question=COOKIES, redraw=False)
    right = ("One cup of flour bakes 30/6 = <<30/6=5>>5 cookies.\n"
             "10 dozen cookies are 10*12 = <<10*12=120>>120 cookies.\n"
             "She needs 120/5 = <<120/5=24>>24 cups of flour.\n#### 24")
    assert all(dozen_dropped(ln, COOKIES) is None for ln in right.splitlines())
    # the question's own count of that noun is no slip ("two bandages on her left knee")
    q = "She used two bandages. The box had two dozen bandages. How many are left?"
    assert dozen_dropped("She used two bandages, so 24-2 = <<24-2=22>>22 are left.", q) is None


@pytest.mark.parametrize(("line", "slip"), [
    ("Dawn will make $3,6000.00 for 24 hours of work, 3600/24 = $150.00 per hour", True),
    ("That means he can park 16,0000/10=16000 cars", True),
    ("On days 4,5,6 and 7 he sold 3 cars each day", False),
    ("So he pays for lessons 13,15,17&19 = 4 lessons.", False),
    ("She will make $3,600.00 in all", False),
])
def test_a_number_with_malformed_thousands_is_a_slip(line: str, slip: bool) -> None:
    from qcstation.core.reading.slips import line_slip

    found = line_slip(line, "Dawn will earn $3,600.00 for 12 paintings.")
    assert (found is not None and "malformed" in found) if slip else found is None


QUIZ = ("A quiz has 5 rounds of 5 questions. Each right answer is worth 2 points and a round with no miss "
        "earns 4 bonus points. If Ana misses one question, how many points does she get?")
QUIZ_LINES = ("She answers 5*5-1=<<5*5-1=24>>24 questions right for 24*2=<<24*2=48>>48 points.\n"
              "She earns the bonus in 5-1=<<5-1=4>>4 rounds, 4*4=<<4*4=16>>16 points.\n"
              "In all she scores 48+16=<<48+16=64>>64 points.\n")


def test_a_chain_whose_lines_never_reach_its_final_answer_is_refused() -> None:
    # the lines compute 64, the file's answer is 66 (held-out GSM8K train, read22): a chain that
    # ends "The answer is 66." is not correct as written, whatever error is injected into it
    with pytest.raises(InjectionError, match="no line of the chain reaches its final answer 66"):
        inject_errors(QUIZ_LINES + "#### 66", 1, rng_seed=3, question=QUIZ)
    assert inject_errors(QUIZ_LINES + "#### 64", 1, rng_seed=3, question=QUIZ).gold_answer == "64"


@pytest.mark.parametrize("lines, final", [
    ("Each razor costs $2.00/8 = $0.25.\n", "25"),          # cents of the lines' dollars
    ("It grows 16*2 = 32 feet, past the window on day three.\n", "3"),  # written as a word
    ("He nets $400 000 - $282 000 = $118 000.\n", "118000"),  # thousands spaced
])
def test_near_miss_an_answer_the_lines_write_in_another_form_is_reached(lines: str, final: str) -> None:
    from qcstation.core.reading.slips import answer_unreached
    assert not answer_unreached(lines.splitlines(), Fraction(final))
    assert answer_unreached(lines.splitlines(), Fraction(final) + 7)
