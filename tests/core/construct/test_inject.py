"""Rule-based injection of SMART's six error types, on hand-made and real GSM8K solutions."""

from __future__ import annotations

import json
import re
from collections import Counter
from fractions import Fraction

import pytest

from qcstation.core.construct.make.inject import (
    ERROR_TYPES,
    InjectedError,
    InjectionError,
    applicable_types,
    clean_cot,
    inject_errors,
)
from qcstation.core.construct.make.inject_chain import numbers_in
from qcstation.core.construct.make.rules import find_inline_computations
from qcstation.common.errors import GenerationError
from tests.conftest import dataset
from tests.must import must

JANET = (
    "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
    "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer’s market.\n#### 18"
)
HOUSE = (
    "The cost of the house and repairs came out to 80,000+50,000=$<<80000+50000=130000>>130,000\n"
    "He increased the value of the house by 80,000*1.5=<<80000*1.5=120000>>120,000\n"
    "So the new value of the house is 120,000+80,000=$<<120000+80000=200000>>200,000\n"
    "So he made a profit of 200,000-130,000=$<<200000-130000=70000>>70,000\n#### 70000"
)
NUM = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")
SWAPS = {("+", "-"), ("-", "+"), ("−", "+"), ("*", "/"), ("/", "*"), ("×", "÷"), ("÷", "×"), ("x", "/")}


def numbers(text: str) -> list[str]:
    return NUM.findall(text)


def values(text: str) -> set[Fraction]:
    return {Fraction(n.replace(",", "")) for n in numbers(text)}


def made_up(err: InjectedError) -> Fraction:
    """The made-up number a hallucination record names (it must be in the inserted step)."""
    m = re.search(r"made-up number ([\d,.]+)", err.description)
    assert m is not None
    number = Fraction(m.group(1).replace(",", ""))
    assert number in values(err.modified)
    return number


@pytest.fixture(scope="module")
def gsm8k() -> list[dict[str, str]]:
    return [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()]


# --------------------------------------------------------------------------- clean CoT


def test_clean_cot_gsm8k() -> None:
    assert clean_cot(JANET) == [
        "Janet sells 16 - 3 - 4 = 9 duck eggs a day.",
        "She makes 9 * 2 = $18 every day at the farmer’s market.",
        "The answer is 18.",
    ]
    assert clean_cot(HOUSE)[0] == "The cost of the house and repairs came out to 80,000+50,000=$130,000"


def test_clean_cot_appends_the_answer_when_the_solution_has_none() -> None:
    stored = JANET.rsplit("####", 1)[0].strip()  # a seed row keeps the solution without "#### 18"
    assert clean_cot(stored)[-1].startswith("She makes")
    assert clean_cot(stored, "18") == clean_cot(JANET)
    assert clean_cot(JANET, "18") == clean_cot(JANET)  # already stated: not repeated
    res = inject_errors(stored, types=["redundancy"], answer="18", rng_seed=0)
    assert res.steps[-1] == "The answer is 18."
    # a value-changing error carries into the final line the answer text added
    res = inject_errors(stored, types=["arithmetic_inaccuracy"], answer="18", rng_seed=0)
    assert res.steps[-1] == f"The answer is {res.wrong_answer}." and res.wrong_answer != "18"
    assert res.gold_answer == "18"


def test_clean_cot_other_sources() -> None:
    assert clean_cot("First, 2 + 3 = 5.\n\nThen 5 * 2 = 10.\nThe answer is 10.") == [
        "First, 2 + 3 = 5.", "Then 5 * 2 = 10.", "The answer is 10."]
    # AQuA rationales lose their option letter; the gold answer becomes the final line
    assert clean_cot("Price is 2.50 dollars. Two of them cost 2 * 2.50 = 5.00 dollars. Answer: C") == [
        "Price is 2.50 dollars.", "Two of them cost 2 * 2.50 = 5.00 dollars."]
    assert clean_cot("x = 78.20\nAnswer: E", "78.20") == ["x = 78.20", "The answer is 78.20."]
    for tail in ("ANSWER:B", "The answer is (A).", "Answer: Option C", "Answer is A", "D", "ANSWER :("):
        assert clean_cot(f"2 + 3 = 5\n{tail}", "5") == ["2 + 3 = 5", "The answer is 5."], tail
    assert clean_cot("Sum is 2 + 3 = 5. Hence answer is C", "5") == ["Sum is 2 + 3 = 5.", "The answer is 5."]
    assert clean_cot("   ") == []


def test_error_types_in_order() -> None:
    assert ERROR_TYPES == ("arithmetic_inaccuracy", "omitted_step", "hallucinated_content",
                           "logical_disorder", "redundancy", "operator_misuse")
    assert issubclass(InjectionError, GenerationError)


# --------------------------------------------------------------------------- invariants per type


def check_error(etype: str, original: list[str], out: list[str], err: InjectedError, question: str = "") -> None:
    """Assert that the CoT changed exactly the way the error type names."""
    step, orig, mod, related = err.step, err.original, err.modified, err.related_step
    if etype in ("arithmetic_inaccuracy", "operator_misuse", "hallucinated_content"):
        # SMART's errors propagate: the later steps are recomputed and the answer changes
        assert err.changes_answer and not err.keeps_answer_reason
        assert out[-1] != original[-1], "a value-changing error must reach the final answer"
        assert numbers(out[-1]) and numbers(out[-1])[-1] != numbers(original[-1])[-1]
        inserted = 1 if etype == "hallucinated_content" else 0
        assert len(out) == len(original) + inserted
        assert out[:step] == original[:step], "steps before the error are untouched"
        later_out = out[step + 1 : -1]
        later_orig = original[step + 1 - inserted : -1]
        for before, after in zip(later_orig, later_out):
            # every later computation still checks out: it was recomputed, not left stale
            assert len(find_inline_computations(after)) == len(find_inline_computations(before)), (before, after)
    else:
        assert out[-1] == original[-1], "this type keeps every value: the final line stays"
        assert not err.changes_answer and err.keeps_answer_reason
    if etype in ("arithmetic_inaccuracy", "operator_misuse"):
        assert original[step] == orig and out[step] == mod
        if etype == "arithmetic_inaccuracy":
            a, b = numbers(orig), numbers(mod)
            assert len(a) == len(b)
            diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
            # the result, and the step's own words that restate it (no stale "because" clause)
            assert diff and len({a[i] for i in diff}) == 1 and len({b[i] for i in diff}) == 1, (orig, mod)
            diff = [diff[-1]]
            # the changed number is the written result of a computation
            comps = find_inline_computations(orig)
            assert any(must(NUM.search(orig[c.result_start:c.result_end])).group() == a[diff[0]] for c in comps)
            assert Fraction(a[diff[0]].replace(",", "")) != Fraction(b[diff[0]].replace(",", ""))
            # unambiguous: the step's computation no longer checks out
            assert len(find_inline_computations(mod)) < len(find_inline_computations(orig))
        else:
            shape = [NUM.sub("#", orig), NUM.sub("#", mod)]
            i = next(k for k, (x, y) in enumerate(zip(*shape)) if x != y)
            assert (shape[0][i], shape[1][i]) in SWAPS, (orig, mod)
            a, b = numbers(orig), numbers(mod)
            # the result changes, and the step's words that restate it with it
            changed = [k for k, (x, y) in enumerate(zip(a, b)) if x != y]
            assert len(a) == len(b) and len({a[k] for k in changed}) <= 1, (orig, mod)
            # unambiguous: the arithmetic is right for the wrong operator
            assert len(find_inline_computations(mod)) == len(find_inline_computations(orig))
    elif etype == "omitted_step":
        assert len(out) == len(original) - 1 and mod == ""
        k = original.index(orig)
        assert original[:k] + original[k + 1:] == out
        assert step == k and out[step] == original[k + 1]
    elif etype in ("hallucinated_content", "redundancy"):
        assert len(out) == len(original) + 1 and orig == ""
        assert out[step] == mod
        if etype == "redundancy":
            assert out[:step] + out[step + 1:] == original
        assert related is not None and related < step
        if etype == "hallucinated_content":
            assert made_up(err) not in values("\n".join(original)) | values(question), \
                "a hallucination must bring a number that is in neither the CoT nor the problem"
            comps = find_inline_computations(mod)
            assert comps and comps[0].value == comps[0].written, "its own arithmetic is right"
        else:
            assert values(mod) <= values("\n".join(original)), "a redundant step adds no new number"
    elif etype == "logical_disorder":
        assert sorted(out) == sorted(original) and out != original
        assert orig == mod == out[step]
        assert related is not None and related > step
        # the moved step uses a result that the later step derives
        derived = {c.written for c in find_inline_computations(out[related])}
        assert derived & values(out[step]), (out[step], out[related])
        # only that step moved, and it came from after the step it now precedes
        moved = out[step]
        assert [t for t in out if t != moved] == [t for t in original if t != moved]
        assert original.index(moved) > original.index(out[related])
        assert f"step {original.index(moved) + 1} of the correct solution" in err.description
    else:  # pragma: no cover
        raise AssertionError(etype)


@pytest.mark.parametrize("etype", ERROR_TYPES)
def test_each_type_on_a_known_solution(etype: str) -> None:
    original = clean_cot(HOUSE)
    for seed in range(5):
        res = inject_errors(HOUSE, types=[etype], rng_seed=seed)
        assert [e.type for e in res.errors] == [etype]
        assert res.text == "\n".join(res.steps) and res.seed == seed
        check_error(etype, original, res.steps, res.errors[0])
        assert res.errors[0].description


def test_janet_examples_read_as_their_type() -> None:
    arith = inject_errors(JANET, types=["arithmetic_inaccuracy"], rng_seed=1).errors[0]
    assert arith.modified.startswith(("Janet sells 16 - 3 - 4 = ", "She makes 9 * 2 = $"))
    op_cot = inject_errors(JANET, types=["operator_misuse"], rng_seed=1)
    op = op_cot.errors[0]
    assert "correct arithmetic for the wrong operator" in op.description
    # 16 - 3 + 4 = 17 eggs, so 17 * 2 = 34 dollars: the swap carries to the answer
    assert op_cot.steps == ["Janet sells 16 - 3 + 4 = 17 duck eggs a day.",
                            "She makes 17 * 2 = $34 every day at the farmer’s market.",
                            "The answer is 34."]
    assert (op_cot.gold_answer, op_cot.wrong_answer) == ("18", "34")
    assert op.name == "Operator Misuse"
    disorder = inject_errors(JANET, types=["logical_disorder"], rng_seed=1)
    assert disorder.steps[0].startswith("She makes 9 * 2") and disorder.errors[0].related_step == 1


@pytest.mark.parametrize("etype", ERROR_TYPES)
def test_each_type_on_real_gsm8k(gsm8k: list[dict[str, str]], etype: str) -> None:
    applied = 0
    for i, row in enumerate(gsm8k[:150]):
        original = clean_cot(row["answer"])
        try:
            res = inject_errors(row["answer"], types=[etype], rng_seed=i, question=row["question"])
        except InjectionError:
            continue
        check_error(etype, original, res.steps, res.errors[0], row["question"])
        applied += 1
    assert applied >= 130, applied


def test_deterministic_and_seed_dependent(gsm8k: list[dict[str, str]]) -> None:
    sample = [row["answer"] for row in gsm8k[:40]]
    first = [inject_errors(s, 2, rng_seed=11).to_dict() for s in sample]
    again = [inject_errors(s, 2, rng_seed=11).to_dict() for s in sample]
    assert first == again
    other = [inject_errors(s, 2, rng_seed=12).to_dict() for s in sample]
    assert sum(a != b for a, b in zip(first, other)) >= 20


def test_types_are_sampled_uniformly(gsm8k: list[dict[str, str]]) -> None:
    counts = Counter(inject_errors(row["answer"], 1, rng_seed=i).errors[0].type for i, row in enumerate(gsm8k[:600]))
    assert set(counts) == set(ERROR_TYPES)
    assert min(counts.values()) >= 60, counts  # 100 expected per type


def test_several_distinct_errors_are_all_recorded() -> None:
    res = inject_errors(HOUSE, 3, rng_seed=5)
    types = [e.type for e in res.errors]
    assert len(types) == 3 and len(set(types)) == 3
    for e in res.errors:
        assert 0 <= e.step < len(res.steps)
        if e.modified:
            assert res.steps[e.step] == e.modified
        assert "{" not in e.description and "?" not in e.description
    d = res.errors[0].to_dict()
    assert set(d) == {"type", "step", "original", "modified", "description", "related_step",
                      "name", "changes_answer", "keeps_answer_reason"}
    three = inject_errors(HOUSE, 3, rng_seed=5)
    assert {"hallucinated_content", "arithmetic_inaccuracy"} <= {e.type for e in three.errors}
    # the value-changing errors all carry into the final line
    assert three.wrong_answer != three.gold_answer == "70000"
    assert three.steps[-1] == f"The answer is {three.wrong_answer}."
    # five errors cannot keep apart in a chain of four steps: refused, never recorded wrongly
    with pytest.raises(InjectionError, match="only"):
        inject_errors(HOUSE, 5, rng_seed=3)


@pytest.mark.parametrize("n", [2, 3])
def test_every_record_of_a_multi_error_chain_matches_both_chains(gsm8k: list[dict[str, str]],
                                                                  n: int) -> None:
    """Issue 26.4: "before" is the correct chain's line, "after" the final chain's line, and
    no later error edited or recomputed an earlier error's step."""
    made = 0
    for i, row in enumerate(gsm8k[:120]):
        try:
            res = inject_errors(row["answer"], n, rng_seed=i, question=row["question"])
        except InjectionError:
            continue
        made += 1
        gold = clean_cot(row["answer"])
        for e in res.errors:
            if e.modified:
                assert res.steps[e.step] == e.modified, (i, e)
            if e.original and e.type not in ("redundancy", "hallucinated_content"):
                assert e.original in gold, (i, e)
    assert made >= 60, made


def test_an_omitted_step_is_named_by_its_place_in_the_correct_solution(
        gsm8k: list[dict[str, str]]) -> None:
    """"the step before step 1 was removed" read as a step that never existed (GSM8K 125 in
    the reading of rng 20261206): the record names the removed line's place in the correct
    chain, and where it stood in the chain shown."""
    checked = 0
    for i, row in enumerate(gsm8k[:150]):
        for n in (1, 2):
            try:
                res = inject_errors(row["answer"], n, rng_seed=i, question=row["question"],
                                    types=None if n == 2 else ["omitted_step"])
            except InjectionError:
                continue
            gold = clean_cot(row["answer"])
            for e in res.errors:
                if e.type != "omitted_step":
                    continue
                m = re.match(r"step (\d+) of the correct solution was removed.*, just before "
                             r"what is now step (\d+): ", e.description)
                assert m, e.description
                assert gold[int(m[1]) - 1] == e.original, (i, e)
                assert int(m[2]) == e.step + 1 and e.original not in res.steps, (i, e)
                checked += 1
    assert checked >= 60, checked


def test_logical_disorder_moves_a_step_only_before_the_step_it_depends_on(
        gsm8k: list[dict[str, str]]) -> None:
    """The moved step uses a number that only the step it now precedes computes: not a number
    of the problem, not one its words carry (a dime's 10), not a result two steps share."""
    coins = ("Tom has 4 nickels and 3 dimes.\nThe nickels are worth 4 * 5 = <<4*5=20>>20 cents.\n"
             "The dimes are worth 3 * 10 = <<3*10=30>>30 cents.\nHe has 20 + 30 = <<20+30=50>>50 "
             "cents.\n#### 50")
    for seed in range(20):
        res = inject_errors(coins, types=["logical_disorder"], rng_seed=seed,
                            question="Tom has 4 nickels and 3 dimes. How many cents does he have?")
        moved = res.errors[0]
        assert moved.modified.startswith("He has 20 + 30")
    tricky = ("She has 2 * 5 = <<2*5=10>>10 nickels' worth.\nA dime is 10 cents, so 4 dimes are "
              "4 * 10 = <<4*10=40>>40 cents.\n#### 40")
    with pytest.raises(InjectionError):
        inject_errors(tricky, types=["logical_disorder"], rng_seed=1,
                      question="She has 2 nickels and 4 dimes. How many cents are the dimes?")


def test_fallback_and_forced_types() -> None:
    plain = "She has 5 apples.\nShe eats none of them.\nThe answer is 5."
    seen = set()
    for seed in range(20):
        res = inject_errors(plain, 1, rng_seed=seed)
        seen.add(res.errors[0].type)
    assert seen == {"omitted_step", "redundancy"}
    with pytest.raises(InjectionError, match="cannot inject operator_misuse"):
        inject_errors(plain, types=["operator_misuse"])
    with pytest.raises(InjectionError, match="only 2 of 3"):
        inject_errors(plain, 3)
    with pytest.raises(InjectionError, match="unknown error type"):
        inject_errors(HOUSE, types=["typo"])
    with pytest.raises(InjectionError, match="distinct"):
        inject_errors(HOUSE, 2, types=["redundancy", "redundancy"])
    with pytest.raises(InjectionError, match="between 1 and 6"):
        inject_errors(HOUSE, 7)
    with pytest.raises(InjectionError, match="empty"):
        inject_errors("")
    # more forced types than errors: n of them are sampled
    res = inject_errors(HOUSE, 1, types=["redundancy", "omitted_step"], rng_seed=2)
    assert res.errors[0].type in {"redundancy", "omitted_step"}


def test_question_numbers_are_not_made_up_numbers() -> None:
    question = "Janet's ducks lay 16 eggs. She eats 3 and bakes with 4, selling at $2 each; " + \
        " ".join(str(n) for n in range(2, 100))
    with pytest.raises(InjectionError):
        # every small number is in the problem, but hallucination scales with the result
        inject_errors(JANET, types=["hallucinated_content"], question=question + " 10 20 30 40 50 60 70 80 90")
    in_problem = {Fraction(5), Fraction(6), Fraction(7)}  # in the problem, not in the CoT
    without = set()
    for seed in range(30):
        without.add(made_up(inject_errors(JANET, types=["hallucinated_content"], rng_seed=seed).errors[0]))
        told = inject_errors(JANET, types=["hallucinated_content"], rng_seed=seed,
                             question="She has 5 hens, 6 cats and 7 dogs.").errors[0]
        assert made_up(told) not in in_problem | values(JANET), told.modified
    assert without & in_problem, "without the question these numbers are fair game"


def test_coverage_per_type_on_gsm8k_test(gsm8k: list[dict[str, str]]) -> None:
    counts: Counter[str] = Counter()
    for row in gsm8k:
        counts.update(applicable_types(row["answer"], row["question"]))
    share = {t: counts[t] / len(gsm8k) for t in ERROR_TYPES}
    # measured: arithmetic 97%, omitted 100%, hallucinated 97%, disorder ~94%, redundancy 100%, operator 97%
    assert all(v >= 0.9 for v in share.values()), share


def test_a_later_error_never_edits_the_step_an_earlier_record_points_at(
        gsm8k: list[dict[str, str]]) -> None:
    """A redundant line restates a step's computation: a later operator misuse on that step
    would leave the 'redundant' line the only correct computation."""
    for i, row in enumerate(gsm8k[:80]):
        try:
            res = inject_errors(row["answer"], 3, rng_seed=i, question=row["question"])
        except InjectionError:
            continue
        for e in res.errors:
            if e.type == "redundancy" and e.related_step is not None:
                source = {v for _, v in numbers_in(res.steps[e.related_step])}
                assert {v for _, v in numbers_in(e.modified)} <= source, (i, e, res.steps)


def test_an_en_dash_subtraction_is_a_computation_an_error_carries_into() -> None:
    """GSM8K writes minus as an en dash ("60 slices – 45 slices = 15"; 46 active test seeds). Read
    as no computation, an error before it was carried into its operands but not its result: seed
    725's chain read "60 slices – 45 slices = 21", a second, unrecorded error."""
    found = find_inline_computations("so 60 slices – 45 slices = 15 slices were left")
    assert [(c.value, c.written) for c in found] == [(Fraction(15), Fraction(15))]
    chain = ("Each friend ate 3 x 6 = <<3*6=18>>18 slices.\n"
             "So 60 slices – 18 slices = <<60-18=42>>42 slices were left.\n#### 42")
    for seed in range(12):
        res = inject_errors(chain, types=["arithmetic_inaccuracy"], rng_seed=seed)
        (err,) = res.errors
        first, second = res.steps[0], res.steps[1]
        eaten_m = re.search(r"= (\d+) slices\.", first)
        assert eaten_m is not None, first
        eaten = Fraction(eaten_m.group(1))
        m = re.search(r"60 slices – (\d+) slices = (\d+) slices", second)
        assert m is not None, second
        assert Fraction(m.group(1)) == eaten, (first, second)
        if err.step == 0:      # the wrong 18 is carried into the subtraction, and its result follows
            assert eaten != 18 and Fraction(m.group(2)) == 60 - eaten
        else:                  # the subtraction's own result was falsified
            assert eaten == 18 and Fraction(m.group(2)) != 42
        assert res.wrong_answer == m.group(2)


@pytest.mark.parametrize("etype", ["arithmetic_inaccuracy", "operator_misuse", "hallucinated_content"])
def test_a_record_says_later_steps_only_where_a_later_step_changed(gsm8k: list[dict[str, str]],
                                                                    etype: str) -> None:
    """A changed value reaches the answer through later steps, or only through the answer
    line ("The answer is 62." right after the step): the record says which (758's made-up
    fact was the last step, and its record said the later steps use it)."""
    seen: Counter[bool] = Counter()
    for i, row in enumerate(gsm8k[:200]):
        original = set(clean_cot(row["answer"]))
        try:
            res = inject_errors(row["answer"], types=[etype], rng_seed=i, question=row["question"])
        except InjectionError:
            continue
        err = res.errors[0]
        later = [s for s in res.steps[err.step + 1:-1] if s not in original]   # less "The answer is"
        says_later = "the later steps use" in err.description
        assert says_later == bool(later), (i, err.description, res.steps)
        assert says_later or "the answer line states" in err.description, err.description
        seen[says_later] += 1
    assert seen[True] > 20 and seen[False] > 5, seen


def test_an_omitted_last_step_is_told_as_the_answer_lines(gsm8k: list[dict[str, str]]) -> None:
    """GSM8K 143 (test set): removing the last computation leaves "The answer is 140." as the
    only use of its result; the record says so instead of "a later step uses its result"."""
    row = gsm8k[142]
    assert row["question"].startswith("Jordan")
    res = inject_errors(row["answer"], types=["omitted_step"], rng_seed=143, question=row["question"])
    err = res.errors[0]
    assert "$140" in err.original and res.steps[-1] == "The answer is 140.", res.steps
    assert "(the answer line states its result)" in err.description, err.description
    # and a step whose result a later computation uses is told as before (JANET's first step)
    first = inject_errors(JANET, types=["omitted_step"], rng_seed=1).errors[0]
    assert "duck eggs" in first.original, first.original
    assert "(a later step uses its result)" in first.description, first.description


def test_a_changed_result_the_problem_also_states_is_not_carried_by_its_value() -> None:
    """GSM8K train line 2354: the 20% tip (.20*60 = $12.00) and the appetizers' $12.00 and the
    meals' $12.0 share a value. Where an error changes the tip, the total's "60+12+5" and "the tip
    is $12.00" may mean the tip or a price the problem states: which one, only the links could
    tell. The change is not carried there (the chain kept "the tip is $12.00" and "63+12+5" after
    the tip became $12.60: a second, unrecorded error; gold7's held-out reading)."""
    question = ("Bret and a team of 3 co-workers were working late so he ordered dinner for everyone.  They decided "
                "on Chinese.  Each main meal costs $12.0.  They also ordered 2 appetizers that were $6.00 each.  He "
                "includes a 20% tip and an extra $5.00 to make it a rush order.  How much does Bret spend on dinner?")
    solution = ("There are 4 co-workers and each of their meals is $12.00 so 4*12 = $<<4*12=48.00>>48.00\n"
                "They order 2 appetizers at $6.00 each so 2*6 = $<<2*6=12.00>>12.00\n"
                "The meals costs $48.00 and the appetizers costs $12.00 for a total of 48+12 = $<<48+12=60.00>>60.00\n"
                "A 20% tip on the $60.00 order is .20*60 = $<<.20*60=12.00>>12.00\n"
                "So the meal is $60.00, the tip is $12.00 and he adds a $5.00 rush for a total of 60+12+5 = "
                "$<<60+12+5=77.00>>77.00\n#### 77")
    made = 0
    for seed in range(40):
        try:
            out = inject_errors(solution, 1, rng_seed=seed, types=["arithmetic_inaccuracy"], question=question,
                                answer="77")
        except InjectionError:
            continue
        made += 1
        lines = out.text.splitlines()
        tip = [ln for ln in lines if "% tip" in ln][0]
        total = [ln for ln in lines if "the tip is" in ln][0]
        tip_value = Fraction(must(re.search(r"= \$([\d.]+)", tip)).group(1))
        said = Fraction(must(re.search(r"the tip is \$([\d.]+)", total)).group(1))
        operand = Fraction(must(re.search(r"\+([\d.]+)\+5 =", total)).group(1))
        assert said == operand == tip_value, out.text
    assert made > 0


def test_a_result_of_the_value_a_change_carries_leaves_the_words_alone() -> None:
    """Held-out GSM8K train line 854 (the lead's reading, rng 20261315 seed 32): "450/75 = 6" cards a
    box serves became 9, and the next line "Since one box has enough toothpicks for 6 cards, then for
    36 cards he would need 36/6 = 6 boxes" has a result whose old value is the carried 6 too. Its
    words' "6 cards" was rewritten with the result's new value ("for 4 cards ... 36/9 = 4"): a second,
    unrecorded error; so was "for 6 cards" when the 36 cards became 37 ("for 6.17 cards ... 37/6 =
6.17") or when the last result itself was made wrong ("for 7 cards ... 36/6 = 7"). Which 6 the
words mean, no words tell: such a change is not made."""
    question = ("Eugene built a model house out of toothpicks and a deck of playing cards.  For every card, he "
                "used 75 toothpicks.  The deck of playing cards had 52 cards, and Eugene used all but 16 of the "
                "cards to build his house.  If a box of toothpicks contains 450 toothpicks, how many boxes of "
                "toothpicks did Eugene use to create his model house?")
    solution = ("If Eugene used all but 16 of the 52 cards, then he used 52-16=<<52-16=36>>36 cards.\n"
                "If for every card he used 75 toothpicks, then a box of toothpicks would have enough toothpicks "
                "for 450/75=<<450/75=6>>6 cards.\n"
                "Since one box has enough toothpicks for 6 cards, then for 36 cards he would need "
                "36/6=<<36/6=6>>6 boxes of toothpicks.\n#### 6")
    made = 0
    for seed in range(60):
        try:
            out = inject_errors(solution, 1, rng_seed=seed, types=["arithmetic_inaccuracy"], question=question,
                                answer="6")
        except InjectionError:
            continue
        made += 1
        per_box = must(re.search(r"450/75=(\d+)", out.text)).group(1)
        said, divisor = must(re.search(r"enough toothpicks for (\d+) cards, then for \d+ cards he would need "
                                       r"\d+/(\d+)=", out.text)).groups()
        assert said == divisor == per_box, out.text
    # every such change is refused here (each one meets a 6 of the words that may be either); the
    # chain still gets an error of another type
    assert made == 0
    other = inject_errors(solution, 1, rng_seed=0, question=question, answer="6")
    assert other.errors and other.errors[0].type != "arithmetic_inaccuracy"
