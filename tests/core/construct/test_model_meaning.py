"""Issue 31: the model-made path earns "verified" only for a formalization that means its
question. A real OpenAI-protocol server on loopback plays weak, gold-aware and careless
generators on real MATH-500, AQuA and GSM8K seeds (the GSM8K ones the exact rules refuse);
real Z3, real SQLite."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from db import Store
from db.artifacts import current_artifact
from qcstation.common.config import load_config
from qcstation.core.construct.pipeline import Pipeline
from qcstation.core.reading.answers import parse_number
from qcstation.core.verify.meaning import number_forms, stated_numbers
from tests.conftest import dataset
from tests.fake_openai import FakeOpenAI
from tests.must import must


def _config(tmp_path: Path, url: str, attempts: int = 3) -> Any:
    p = tmp_path / "qc.toml"
    p.write_text("\n".join(["[generator]", 'model = "fake-model"', f'base_url = "{url}"', "retries = 0",
                            "backoff_s = 0.01", "timeout_s = 20", "temperature = 0.0",
                            "[generation]", f"max_attempts = {attempts}"]) + "\n")
    return load_config(p, env={})


def _pick(path: Path, n: int, keep: Any, fmt: str, tmp: Path) -> Path:
    rows = []
    text = path.read_text()
    records = json.loads(text) if text.lstrip().startswith("[") else [json.loads(x) for x in text.splitlines() if x.strip()]
    for r in records:
        if keep(r):
            rows.append(r)
        if len(rows) == n:
            break
    out = tmp / f"{fmt}.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def _math_numeric(r: dict) -> bool:
    a = parse_number(r.get("answer", ""))
    return a is not None and a.value not in stated_numbers(r["problem"]) and a.value != 0


def _aqua_numeric(r: dict) -> bool:
    for opt in r["options"]:
        if opt.upper().startswith(r["correct"].upper()):
            a = parse_number(opt[2:])
            return a is not None and a.value not in stated_numbers(r["question"]) and a.value != 0
    return False


def _seeds(tmp_path: Path, db_file: Path) -> dict[str, dict[str, Any]]:
    """10 MATH-500, 10 AQuA and the first 40 GSM8K test seeds (about 17 of which the rules
    refuse); question -> seed row."""
    from qcstation.core.ingest.importer import import_file

    with Store(db_file) as store:
        import_file(store, _pick(dataset("math500/test.jsonl"), 10, _math_numeric, "math500", tmp_path), "math500")
        import_file(store, _pick(dataset("aqua/test.json"), 10, _aqua_numeric, "aqua", tmp_path), "aqua")
        import_file(store, _pick(dataset("gsm8k/test.jsonl"), 40, lambda r: True, "gsm8k", tmp_path), "gsm8k")
        rows = store.query("SELECT * FROM seeds WHERE status = 'active'")
    return {r["question"]: r for r in rows}


def _question_of(messages: list[dict], seeds: dict[str, dict]) -> dict:
    for m in messages:
        body = m["content"][len("Problem:\n"):] if m["content"].startswith("Problem:\n") else m["content"]
        if m["role"] == "user" and body in seeds:
            return seeds[body]
    raise AssertionError("no seed question in the request")


def _lit(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"(/ {v.numerator} {v.denominator})"


def _unstated(q: str, avoid: Fraction) -> Fraction:
    stated = stated_numbers(q)
    for k in (97, 89, 83, 79, 73, 71, 67, 61):
        if Fraction(k) not in stated and Fraction(k) + avoid not in stated:
            return Fraction(k)
    raise AssertionError(q)


def _cheat(seed: dict, style: int, attempt: int) -> str:
    """Scripts that all verify to the gold without formalizing the question."""
    gold = parse_number(seed["answer_text"]).value  # type: ignore[union-attr]
    k = _unstated(seed["question"], gold)
    kind = (style + attempt) % 4
    if kind == 0:      # weak: the answer stated
        body = f"(declare-const answer Real)\n(assert (= answer {_lit(gold)}))"
    elif kind == 1:    # gold-aware: built from numbers the question never states
        body = (f"(declare-const a Real)\n(assert (= a {_lit(gold + k)}))\n(declare-const b Real)\n"
                f"(assert (= b {_lit(k)}))\n(declare-const answer Real)\n(assert (= answer (- a b)))")
    elif kind == 2:    # half-solved: an intermediate result worked out by hand
        body = f"(declare-const answer Real)\n(assert (= answer (* {_lit(gold / 2)} 2)))"
    else:              # careless: get-model only, and the answer stated in a sum
        body = f"(declare-const answer Real)\n(assert (= answer (+ {_lit(gold - k)} {_lit(k)})))\n(get-model)"
    return f"```smt2\n(set-logic QF_LRA)\n{body}\n(check-sat)\n(get-value (answer))\n```"


def _gold_in(text: str, seed: dict) -> bool:
    """Does ``text`` write the gold (which is no secret when the question itself states it)?"""
    gold = parse_number(seed["answer_text"]).value  # type: ignore[union-attr]
    if gold in stated_numbers(seed["question"]):
        return False
    for form in number_forms(gold):
        if form.startswith("("):
            if form in text:
                return True
        elif re.search(rf"(?<![\w.]){re.escape(form)}(?:\.0+)?(?![\w]|\.\d)", text):
            return True
    return False


def test_cheating_generators_never_verify_and_no_prompt_holds_the_gold(tmp_path: Path, db_file: Path) -> None:
    seeds = _seeds(tmp_path, db_file)
    counter: dict[int, int] = {}

    def responder(req: dict) -> str:
        seed = _question_of(req["messages"], seeds)
        n = counter[seed["id"]] = counter.get(seed["id"], 0) + 1
        return _cheat(seed, seed["id"], n)

    with FakeOpenAI(responder=responder) as server:
        cfg = _config(tmp_path, server.base_url)
        with Pipeline(db_file, cfg) as p:
            s = p.generate(dimensions=["reasoning"])
        requests = [must(r.body) for r in server.chat_requests]
    by_source: dict[str, int] = {}
    for sid in counter:
        src = next(x["source"] for x in seeds.values() if x["id"] == sid)
        by_source[src] = by_source.get(src, 0) + 1
    active = {src: sum(1 for x in seeds.values() if x["source"] == src) for src in ("math500", "aqua")}
    # every MATH-500 and AQuA seed (the import filters a few) and the GSM8K ones the rules refuse
    assert by_source["math500"] == active["math500"] >= 8 and by_source["aqua"] == active["aqua"] >= 8
    assert by_source.get("gsm8k", 0) >= 8
    with Store(db_file) as store:
        made = store.query("SELECT * FROM artifacts WHERE dimension = 'reasoning' AND generator = 'llm'")
        results = [json.loads(a["verify_result"]) for a in made]
    assert made and not [a for a in made if a["status"] == "verified"]
    # every cheat verified in Z3 and was refused for its meaning, with the kind said
    assert {r["status"] for r in results} == {"meaning"}
    kinds = {k for r in results for k in r["meaning"]["kinds"]}
    assert {"states-answer", "unstated-number"} <= kinds <= {"states-answer", "unstated-number", "not-connected"}
    assert s.counts["reasoning"]["failed:attempts_exhausted"] == len(counter)
    # three attempts each, each one a new request (a retry carries the history, so it is never a
    # cache hit of the attempt before), and no request shows the gold outside the question
    assert len(requests) == 3 * len(counter)
    for body in requests:
        seed = _question_of(body["messages"], seeds)
        after = body["messages"][body["messages"].index(next(
            m for m in body["messages"] if m["content"].endswith(seed["question"]))) + 1:]
        assert not any(_gold_in(m["content"], seed) for m in after), (seed["answer_text"], after)
        feedback = [m["content"] for m in after if m["role"] == "user"]
        assert len(feedback) == len(after) // 2 <= 2
    third = [b for b in requests if len(b["messages"]) == max(len(x["messages"]) for x in requests)]
    assert third and "Attempt 1 was checked and rejected" in third[0]["messages"][-3]["content"]


def _smt_for(question: str) -> str:
    # AQuA-style: 14 boxes cost $1095 in all
    return ("(declare-const total Real)\n(assert (= total 1095))\n(declare-const boxes Real)\n"
            "(assert (= boxes 14))\n(declare-const answer Real)\n(assert (= answer (/ total boxes)))\n(get-model)")


def test_a_rounded_gold_is_met_as_the_data_rounds_it_and_the_text_runs_in_plain_z3(
        tmp_path: Path, db_file: Path) -> None:
    from qcstation.core.ingest.importer import import_file

    rec = {"question": "A shop sells 14 equal boxes for $1095 in all. What does one box cost?",
           "options": ["A)$70.00", "B)$75.50", "C)$78.20", "D)$80.10", "E)$85.00"],
           "rationale": "The shop takes in 1095 dollars.\nThere are 14 boxes.\nEach costs 1095/14 = 78.2 dollars.\n"
                        "Rounded, 78.2 + 0 = 78.20.", "correct": "C"}
    f = tmp_path / "aqua.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    with Store(db_file) as store:
        import_file(store, f, "aqua")
    with FakeOpenAI(responder=lambda req: _smt_for("")) as server:
        with Pipeline(db_file, _config(tmp_path, server.base_url)) as p:
            s = p.generate(dimensions=["reasoning"])
        bodies = [r.body for r in server.chat_requests]
    assert s.counts["reasoning"]["verified"] == 1 and len(bodies) == 1
    with Store(db_file) as store:
        art = must(current_artifact(store, 1, "reasoning"))
    result = json.loads(art["verify_result"])
    assert result["rounding"]["rule"] == "nearest answer option" and result["value"] == "1095/14"
    assert "rounds to option C" in result["message"]
    smt = json.loads(art["content"])["smtlib"]
    assert smt.endswith("(check-sat)\n(get-value (answer))") and "get-model" not in smt
    (tmp_path / "pub.smt2").write_text(smt)
    z3 = Path(sys.executable).parent / "z3"
    if z3.exists():   # the published text runs as written in plain Z3 and prints the answer
        out = subprocess.run([str(z3), str(tmp_path / "pub.smt2")], capture_output=True, text=True, timeout=300)
        assert out.stdout.split() == ["sat", "((answer", "(/", "1095.0", "14.0)))"]


def test_a_latex_final_answer_is_read_and_an_injection_failure_is_the_rules(tmp_path: Path, db_file: Path) -> None:
    from qcstation.core.ingest.importer import import_file

    with Store(db_file) as store:
        import_file(store, _pick(dataset("math500/test.jsonl"), 3,
                                 lambda r: r["answer"] in ("\\frac{14}{3}",) or "frac" in r["answer"] and
                                 parse_number(r["answer"]) is not None, "math500", tmp_path), "math500")
        seeds = {r["question"]: r for r in store.query("SELECT * FROM seeds")}
    calls: list[str] = []

    def responder(req: dict) -> str:
        seed = _question_of(req["messages"], seeds)
        calls.append(seed["answer_text"])
        # a chain that computes its value in LaTeX, then the LaTeX answer
        return (f"We add the three values: $2 + 1 + x = {seed['answer_text']}$.\n"
                f"The answer is {seed['answer_text']}.")

    with FakeOpenAI(responder=responder) as server:
        with Pipeline(db_file, _config(tmp_path, server.base_url)) as p:
            s = p.generate(dimensions=["refinement"])
        bodies = [r.body for r in server.chat_requests]
    asked = {a for a in calls}
    assert asked and len(calls) == len(asked) == len(bodies)
    # one request per seed asked: the LaTeX answer is read, and what the rules cannot inject is
    # neither sent back to the model nor retried with it
    with Store(db_file) as store:
        attempts = store.query("SELECT * FROM attempts WHERE generator = 'llm'")
        assert len(attempts) == len(asked) and {a["verify_status"] for a in attempts} == {"cot_ok"}
        for seed in seeds.values():
            if seed["answer_text"] not in asked:
                continue
            art = current_artifact(store, seed["id"], "refinement")
            assert art is not None and art["generator"] == "llm+inject"
            res = json.loads(art["verify_result"])
            if art["status"] == "failed":
                assert res["status"] == "inject_failed" and "not of the model" in res["message"]
    assert sum(v for k, v in s.counts["refinement"].items()
               if k in ("verified", "failed:inject_failed", "failed:invalid")) >= len(asked)


def test_a_chain_that_never_computes_its_answer_is_refused_without_the_gold() -> None:
    from qcstation.core.construct.check.checks import cot_answer_ok

    ok, why = cot_answer_ok("First we read the numbers.\nThen 2 + 3 = 5.\nThe answer is 12.5.", {"answer_text": "12.5"})
    assert not ok and "computes the final answer" in why and "12.5" not in why
    assert cot_answer_ok("So 25 / 2 = 12.5.\nThe answer is 12.5.", {"answer_text": "12.5"}) == (True, "")
    assert cot_answer_ok("The sum is $\\frac{14}{3}$.\nThe answer is \\frac{14}{3}.",
                         {"answer_text": "\\frac{14}{3}"}) == (True, "")


def test_prose_around_an_unfenced_program_is_not_the_program() -> None:
    from qcstation.core.construct.pipeline_model import _smtlib_of

    reply = "The formalization:\n(declare-const a Int)\n(assert (= a 3))\n(check-sat)\nHope this helps."
    assert _smtlib_of(reply) == "(declare-const a Int)\n(assert (= a 3))\n(check-sat)"
    assert _smtlib_of("```smt2\n(assert true)\n```\nmore") == "(assert true)"


def _d(name: str, v: object) -> str:
    return f"(declare-const {name} Real)\n(assert (= {name} {v}))\n"


#: honest formalizations, written as the prompt asks, of real seeds (question openings)
HONEST = {
    "The original price of an item is discounted 22%": (
        _d("pct", 22) + _d("hundred", 100) + _d("coupon", 20) + _d("extra", "(/ 19 10)") + _d("half", "(/ 1 2)")
        + "(declare-const answer Real)\n"
          "(assert (= (- (* answer (- 1 (/ pct hundred))) coupon) (+ (* half answer) extra)))\n"),
    "A trader sold an article at a profit of 20%": (
        _d("rate", 20) + _d("hundred", 100) + _d("price", 360)
        + "(declare-const answer Real)\n(assert (= (* answer (+ 1 (/ rate hundred))) price))\n"),
    # (GSM8K 2, "A robe takes 2 bolts", is rule-made since issue 26.1's role reading, and 34,
    # "Gretchen has 110 coins", since the algebra rule: 40 instead)
    "Dana can run at a rate of speed four times faster": (
        _d("skip", 3) + _d("half", "(/ 1 2)") + _d("four", 4) + _d("hours", 6) + _d("third", "(/ 1 3)")
        + _d("two_thirds", "(/ 2 3)") + "(declare-const run Real)\n(declare-const walk Real)\n"
        "(declare-const answer Real)\n(assert (= skip (* half run)))\n(assert (= run (* four walk)))\n"
        "(assert (= answer (+ (* run hours third) (* walk hours two_thirds))))\n"),
    "Melanie is a door-to-door saleswoman": (
        _d("third", "(/ 1 3)") + _d("red", 2) + _d("half", "(/ 1 2)") + _d("left", 5)
        + "(declare-const answer Real)\n(declare-const after Real)\n"
          "(assert (= after (- (- answer (* third answer)) red)))\n(assert (= left (- after (* half after))))\n"),
    "If $f(x) = \\frac{3x-2}{x-2}$": (
        _d("a", 3) + _d("b", 2) + _d("c", 1) + "(define-fun f ((x Real)) Real (/ (- (* a x) b) (- x b)))\n"
        "(declare-const answer Real)\n(assert (= answer (+ (f (- b)) (f (- c)) (f 0))))\n"),
    "A regular hexagon can be divided": (
        _d("per", 21) + _d("sides", 6) + _d("tri", 3) + "(declare-const side Real)\n(assert (= side (/ per tri)))\n"
        "(declare-const answer Real)\n(assert (= answer (* sides side)))\n"),
    "The volume of the cylinder shown is $45\\pi$": (
        _d("vol", 45) + _d("r", 3) + "(declare-const answer Real)\n(assert (= vol (* r r answer)))\n"),
}


def test_honest_formalizations_of_real_seeds_verify_and_a_rounded_gold_is_recorded(
        tmp_path: Path, db_file: Path) -> None:
    seeds = _seeds(tmp_path, db_file)
    wanted = {q: next(v for k, v in HONEST.items() if q.startswith(k)) for q in seeds
              if any(q.startswith(k) for k in HONEST)}
    assert len(wanted) == len(HONEST)

    def responder(req: dict) -> str:
        seed = _question_of(req["messages"], seeds)
        return "Here it is:\n" + wanted[seed["question"]] + "(check-sat)\n(get-value (answer))"

    ids = [seeds[q]["id"] for q in wanted]
    with FakeOpenAI(responder=responder) as server:
        with Pipeline(db_file, _config(tmp_path, server.base_url)) as p:
            s = p.generate(dimensions=["reasoning"], seed_ids=ids)
        n = len(server.chat_requests)
    assert n == len(ids) and s.counts["reasoning"]["verified"] == len(ids)   # each on its first try
    with Store(db_file) as store:
        for q in wanted:
            art = must(current_artifact(store, seeds[q]["id"], "reasoning"))
            res = json.loads(art["verify_result"])
            assert art["status"] == "verified" and res["meaning"]["ok"], res
            if seeds[q]["answer_text"] == "$78.20":      # 1095/14, which AQuA's options round
                assert res["rounding"]["rule"] == "nearest answer option" and res["value"] == "1095/14"


def test_every_few_shot_example_passes_the_checks_it_teaches() -> None:
    """Issue 31.6: the prompts ask for what the checks accept; an example the audit flags
    (a bare literal in a step) or the meaning check refuses would teach the wrong thing."""
    from qcstation.core.construct.make import prompts as P
    from qcstation.core.construct.check.checks import cot_answer_ok
    from qcstation.core.construct.make.keyinfo import keyinfo_content_problems, parse_keyinfo, validate_keyinfo
    from qcstation.core.construct.check.notation_reader import notation_smtlib_of, read_notation
    from qcstation.core.construct.check.selfcheck import _audit_smt
    from qcstation.core.verify.meaning import check_meaning
    from qcstation.core.verify.solve import verify_in_process

    for question, smt in P.SMTLIB_SHOTS:
        assert verify_in_process(smt).status == "verified"
        assert check_meaning(smt, question).ok, check_meaning(smt, question).message
        assert [f.code for f in _audit_smt("reasoning", smt, question, "")] == []
        assert smt.endswith("(check-sat)\n(get-value (answer))")
    for question, fields in P.KEYINFO_SHOTS:
        parsed = parse_keyinfo(fields)
        assert validate_keyinfo(parsed, question) == [] and keyinfo_content_problems(parsed, question) == []
    for _question, chain in P.COT_SHOTS:
        assert cot_answer_ok(chain, {"answer_text": "18"}) == (True, "")
    for smt, notation in P.NOTATION_FROM_SMTLIB_SHOTS:
        assert verify_in_process(notation_smtlib_of(read_notation(notation))).value == verify_in_process(smt).value
    assert P.PROMPT_VERSIONS["reasoning"] == "smtlib-v2"


def test_a_reviewers_reason_and_the_models_own_text_reach_the_prompt_without_the_gold() -> None:
    from qcstation.core.construct.pipeline_model import job_messages
    from qcstation.core.construct.pipeline_records import Job

    seed = {"id": 1, "question": "Tom has 3 apples and buys 5 more, then eats 1. How many now?",
            "answer_text": "7"}
    job = Job(seed, "reasoning", feedback="A reviewer rejected it: the answer should be 7, not 8",
              previous_output="(assert (= answer 7.0))")
    first = job_messages(job)
    job.feedback, job.previous_output = "Z3 computes answer = 9", "(assert (= answer 9))"
    second = job_messages(job)
    tail = [m["content"] for m in second[len(first) - 2:]]
    assert all(not re.search(r"(?<![\w.])7(?:\.0)?(?![\w.])", t) for t in tail), tail
    assert "the answer should be […], not 8" in tail[1] and "(= answer […])" in tail[0]
    assert "Attempt 1 was checked and rejected" in tail[1] and "answer = 9" in tail[-1]


def test_a_model_notation_question_that_states_the_answer_is_refused(tmp_path: Path, db_file: Path) -> None:
    """Issue 31.1: "Let a = 21. Let answer = a." passed Z3 for a gold of 21."""
    from qcstation.core.ingest.importer import import_file

    rows = [{"question": "Tom is 3 years older than twice Ann's age. Together they are 30 years old. "
                         "How old is Tom?", "answer": "21", "id": "t"}]
    f = tmp_path / "t.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with Store(db_file) as store:
        import_file(store, f, "jsonl", level="hard")
    from qcstation.core.construct.make.prompts import SMTLIB_SHOTS

    stating = "Let a = 21. Let answer = a. What is the value of answer?"
    right = "Let a = 2, b = 3 and c = 30. Let ann = (c - b) ÷ 3 and answer = a × ann + b. What is the value of answer?"
    with FakeOpenAI() as server:
        server.reply(SMTLIB_SHOTS[1][1])     # reasoning: the prompt's own example, not renderable
        server.reply(stating)
        server.reply(right)
        with Pipeline(db_file, _config(tmp_path, server.base_url)) as p:
            s = p.generate(dimensions=["reasoning", "arithmetic"])
        last = must(server.chat_requests[-1].body)["messages"]
    assert s.counts["reasoning"]["verified"] == 1 and s.counts["arithmetic"]["verified"] == 1
    # refused for its meaning, the number it wrote (the gold) kept out of the feedback
    assert "does not state" in last[-1]["content"] and "21" not in last[-1]["content"]
    with Store(db_file) as store:
        first = must(store.one("SELECT * FROM artifacts WHERE dimension = 'arithmetic' AND version = 1"))
        assert json.loads(first["verify_result"])["status"] == "meaning"
        assert json.loads(must(current_artifact(store, 1, "arithmetic"))["content"])["notation"] == right
