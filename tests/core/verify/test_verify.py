"""The Z3 verifier: real Z3, real worker processes, the real CLI."""

from __future__ import annotations

from collections.abc import Iterator

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest

from qcstation.cli import main
from qcstation.core.reading.answers import parse_number
from qcstation.core.verify.verifier import (
    STATUSES,
    VerifierPool,
    VerifyLimits,
    VerifyOutcome,
    verify_in_process,
    verify_smtlib,
)
from qcstation.common.errors import VerificationError
from tests.procs import wait_until_computing

ROOT = Path(__file__).resolve().parents[3]

EGGS = """(set-logic QF_LRA)
(declare-const eggs Real) (assert (= eggs (- 16 3 4)))
(declare-const answer Real) (assert (= answer (* eggs 2)))
(check-sat) (get-value (answer))
"""
INT_GOOD = """(set-logic QF_LIA)
(declare-const bolts Int)
(assert (= bolts (+ 2 (div 2 2))))
(declare-const answer Int)
(assert (= answer bolts))
(check-sat)
"""
HALF = "(declare-const answer Real)\n(assert (= (* 2 answer) 7))\n(check-sat)\n"
THIRD = "(declare-const answer Real)\n(assert (= (* 3 answer) 1))\n(check-sat)\n"
SQRT2 = "(declare-const answer Real)\n(assert (= (* answer answer) 2.0))\n(assert (> answer 0.0))\n(check-sat)\n"
UNSAT = """(declare-const answer Int)
(assert (> answer 5))
(assert (= answer (+ 1 1)))
(assert (> 3 1))
(check-sat)
"""
AMBIGUOUS = "(declare-const answer Int)\n(declare-const x Int)\n(assert (= answer (+ x 1)))\n(check-sat)\n"
NO_ANSWER = "(declare-const result Int)\n(assert (= result 18))\n(check-sat)\n"
# nonlinear integer problem (positive solutions of x^3 + y^3 = z^3): z3 cannot finish
HARD = """(declare-const x Int) (declare-const y Int) (declare-const z Int)
(declare-const answer Int)
(assert (and (> x 0) (> y 0) (> z 0)))
(assert (= (+ (* x x x) (* y y y)) (* z z z)))
(assert (= answer z))
(check-sat)
"""
# bit-blasting a 20000-bit multiplier needs far more than the memory limit
MEMORY_BOMB = """(declare-const answer Int)
(declare-const a (_ BitVec 20000)) (declare-const b (_ BitVec 20000))
(assert (= (bvmul a b) ((_ zero_extend 19968) #xdeadbeef)))
(assert (bvugt a ((_ zero_extend 19999) #b1)))
(assert (bvugt b ((_ zero_extend 19999) #b1)))
(assert (= answer 1))
(check-sat)
"""


@pytest.fixture(scope="module")
def pool() -> Iterator[VerifierPool]:
    with VerifierPool(workers=2, limits=VerifyLimits(timeout_s=5.0)) as p:
        yield p


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(
    ("text", "expected", "value"),
    [
        (EGGS, "18", Fraction(18)),
        (EGGS, "$18.00", Fraction(18)),
        (INT_GOOD, "3", Fraction(3)),
        (HALF, "7/2", Fraction(7, 2)),
        (HALF, "3.5", Fraction(7, 2)),
        (THIRD, "0.33", Fraction(1, 3)),  # decimal gold: half-ulp tolerance
        (THIRD, "1/3", Fraction(1, 3)),
    ],
)
def test_correct_formalizations_verify(text: str, expected: str, value: Fraction) -> None:
    out = verify_in_process(text, expected)
    assert out.status == "verified", out.message
    assert out.ok and out.exact
    assert out.value == value
    assert out.expected == expected
    assert "matching the expected answer" in out.message


def test_decimal_gold_outside_tolerance_is_wrong() -> None:
    out = verify_in_process(THIRD, "0.34")
    assert out.status == "wrong_value"
    assert out.message == "answer = 1/3 but the expected answer is 0.34"


def test_wrong_value_message_and_exact_answer_gold() -> None:
    out = verify_in_process(EGGS, "17")
    assert (out.status, out.value, out.ok) == ("wrong_value", Fraction(18), False)
    assert out.message == "answer = 18 but the expected answer is 17"
    gold = parse_number("18")
    assert gold is not None
    assert verify_in_process(EGGS, gold).ok


def test_without_expected_reports_the_unique_value() -> None:
    out = verify_in_process(INT_GOOD)
    assert out.status == "verified" and out.value == 3 and out.expected is None
    assert out.message == "answer = 3 (unique)"


def test_irrational_answer_is_approximate() -> None:
    out = verify_in_process(SQRT2, "1.414")
    assert out.status == "verified", out.message
    assert out.exact is False
    assert out.value is not None and abs(out.value - Fraction(14142135623730950488, 10**19)) < Fraction(1, 10**15)
    assert out.value_text is not None and out.value_text.startswith("1.41421356")
    assert verify_in_process(SQRT2, "1.5").status == "wrong_value"


def test_unsat_names_the_conflicting_lines() -> None:
    out = verify_in_process(UNSAT, "2")
    assert out.status == "unsat"
    assert "unsatisfiable" in out.message
    assert "lines 2 and 3" in out.message


def test_ambiguous_answer() -> None:
    out = verify_in_process(AMBIGUOUS, "1")
    assert out.status == "ambiguous"
    assert "not determined" in out.message


def test_uniqueness_check_timing_out_is_not_verified() -> None:
    # x = 1 is found at once; ruling out other x needs the cubic problem above
    text = """(declare-const x Int) (declare-const y Int) (declare-const z Int)
(declare-const answer Int)
(assert (or (= x 1) (and (> x 1) (> y 0) (> z 0) (= (+ (* x x x) (* y y y)) (* z z z)))))
(assert (= answer x))
(check-sat)
"""
    out = verify_in_process(text, "1", VerifyLimits(timeout_s=3.0))   # x = 1 is found at once, even on a busy machine
    # a second solution could hide behind the hard constraint: not verified
    assert out.status == "unknown" and out.value == 1
    assert "could not show it is the only value" in out.message


@pytest.mark.parametrize("text", [
    "(declare-const answer Int)\n(declare-const answer Int)\n(check-sat)",
    # overloading by sort: which one is 'the' answer?
    "(declare-const answer Int)\n(assert (= answer 7))\n(declare-const answer Real)\n"
    "(assert (= (as answer Real) 5.0))\n(check-sat)",
])
def test_answer_declared_twice_is_refused(text: str) -> None:
    out = verify_in_process(text, "5")
    assert not out.ok and "declared 2 times" in out.message


def test_a_gigantic_answer_is_reported_not_crashed() -> None:
    text = f"(declare-const answer Int)\n(assert (= answer {'9' * 5000}))\n(check-sat)"
    with VerifierPool(workers=1) as p:
        out = p.verify(text, "1")
        assert out.status == "unknown" and "not a plain number" in out.message
        assert p.verify(EGGS, "18").ok


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (NO_ANSWER, "no constant named answer"),
        ("(declare-const answer Bool)\n(assert answer)\n(check-sat)", "sort Bool"),
        ("(declare-fun answer (Int) Int)\n(check-sat)", "function of 1 argument"),
        ("(push 1)\n(declare-const answer Int)\n(assert (= answer 1))\n(pop 1)\n(check-sat)", "popped"),
    ],
)
def test_no_answer(text: str, fragment: str) -> None:
    out = verify_in_process(text, "1")
    assert out.status == "no_answer"
    assert fragment in out.message


def test_answer_as_define_fun_or_quoted_symbol() -> None:
    text = "(declare-const eggs Int)\n(assert (= eggs 9))\n(define-fun answer () Int (* eggs 2))\n(check-sat)"
    assert verify_in_process(text, "18").ok
    text = "(declare-const |answer| Int)\n(assert (= |answer| 18))\n(check-sat)"
    assert verify_in_process(text, "18").ok


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("(declare-const answer Int)\n(assert (= answer 1)\n(check-sat)", "unbalanced parenthesis"),
        ("Here is the formalization: answer = 18", "expected a command in parentheses"),
        ("", "no SMT-LIB commands"),
        ("(declare-const answer Int)\n(assert (= answer y))\n(check-sat)", "line 2"),
        ("(declare-const answer Int)\n(assert (and answer 1))\n(check-sat)", "z3 rejected"),
    ],
)
def test_parse_errors(text: str, fragment: str) -> None:
    out = verify_in_process(text, "1")
    assert out.status == "parse_error"
    assert fragment in out.message


def test_z3_error_points_at_the_models_line() -> None:
    text = "; header\n(declare-const answer Int)\n\n(assert (= answer undefined_thing))\n(check-sat)"
    out = verify_in_process(text)
    assert out.status == "parse_error"
    assert "line 4" in out.message and "undefined_thing" in out.message


def test_bad_expected_answer_raises() -> None:
    with pytest.raises(VerificationError, match="not a single number"):
        verify_in_process(EGGS, "eighteen")


def test_outcome_dict_round_trip_is_json_safe() -> None:
    out = verify_in_process(HALF, "3.5")
    data = json.loads(json.dumps(out.to_dict()))
    assert data["value"] == "7/2" and data["ok"] is True and data["status"] in STATUSES
    back = VerifyOutcome.from_dict(data)
    assert back.value == Fraction(7, 2) and back.status == out.status and back.message == out.message
    none = VerifyOutcome.from_dict(verify_in_process(NO_ANSWER).to_dict())
    assert none.value is None and not none.ok


# --------------------------------------------------------------------------- isolation


def test_isolated_run_matches_in_process(pool: VerifierPool) -> None:
    texts = [(EGGS, "18"), (EGGS, "17"), (UNSAT, "2"), (AMBIGUOUS, None), (NO_ANSWER, "1"),
             ("(assert", None), (HALF, "3.5"), ('(include "/etc/passwd")', None), (SQRT2, "1.414")]
    isolated = list(pool.verify_many(texts * 3))
    local = [verify_in_process(t, e) for t, e in texts * 3]
    assert [o.status for o in isolated] == [o.status for o in local]
    assert [o.value for o in isolated] == [o.value for o in local]
    # messages are identical (the second value an ambiguous script admits is z3's choice)
    assert [o.message for o in isolated if o.status != "ambiguous"] == \
        [o.message for o in local if o.status != "ambiguous"]


def test_verify_smtlib_one_shot() -> None:
    out = verify_smtlib(EGGS, "18")
    assert out.ok and out.value == 18 and out.expected == "18"
    gold = parse_number("3.50")
    assert gold is not None
    out = verify_smtlib(HALF, gold)
    assert out.ok and out.expected == "3.50"
    assert verify_smtlib(HALF, parse_number("3.6")).status == "wrong_value"


def test_include_is_disallowed() -> None:
    out = verify_smtlib('(include "/etc/passwd")\n(declare-const answer Int)\n(check-sat)', "1")
    assert out.status == "disallowed"
    assert out.message.startswith("line 1: command (include ...) is not allowed")
    assert "root:" not in out.message


def test_output_channel_option_never_creates_the_file(pool: VerifierPool, tmp_path: Path) -> None:
    target = tmp_path / "x"
    for option in (":regular-output-channel", ":diagnostic-output-channel"):
        text = f'(set-option {option} "{target}")\n{EGGS}'
        out = pool.verify(text, "18")
        assert out.status == "disallowed"
        assert option in out.message and "line 1" in out.message
        assert verify_in_process(text, "18").status == "disallowed"
    assert not target.exists()


def test_long_running_formula_times_out_within_the_wall_clock() -> None:
    limits = VerifyLimits(timeout_s=1.0)
    with VerifierPool(workers=1, limits=limits) as p:
        out = p.verify(HARD)
        assert out.status == "timeout", out.message   # HARD never ends: only the limit ended it (no
        #                                               upper bound on the time: a busy machine is slow)
        assert p.verify(EGGS, "18").ok


def test_hung_worker_is_killed_at_the_wall_clock_and_replaced() -> None:
    limits = VerifyLimits(timeout_s=3.0, wall_s=5.0)  # room for the verdicts expected on a busy machine
    with VerifierPool(workers=1, limits=limits) as p:
        assert p.verify(EGGS, "18").ok
        [pid] = p.worker_pids()
        os.kill(pid, signal.SIGSTOP)  # the worker hangs: only the parent's kill can end the job
        start = time.perf_counter()
        out = p.verify(EGGS, "18")
        elapsed = time.perf_counter() - start
        assert out.status == "timeout" and "wall-clock" in out.message
        assert limits.wall_clock_s() - 0.1 <= elapsed  # a stopped worker never answers: only the kill ends it
        assert p.worker_pids() != [pid]
        assert p.verify(EGGS, "18").ok


def test_memory_bomb_ends_without_taking_down_the_pool() -> None:
    with VerifierPool(workers=2, limits=VerifyLimits(timeout_s=10.0, memory_mb=320)) as p:
        outs = list(p.verify_many([(EGGS, "18"), (MEMORY_BOMB, None), (EGGS, "18"), (INT_GOOD, "3")]))
        assert [o.status for o in outs][0] == "verified"
        assert outs[1].status in ("resource_limit", "crash"), outs[1].message
        assert outs[2].ok and outs[3].ok
        assert p.verify(EGGS, "18").ok


def test_worker_killed_mid_job_is_replaced() -> None:
    # the kill lands while Z3 is working on HARD (its CPU time shows it busy; HARD never ends
    # and Z3 has 60 s): no race with a timer, however busy the machine is
    with VerifierPool(workers=1, limits=VerifyLimits(timeout_s=60.0)) as p:
        assert p.verify(EGGS, "18").ok
        [pid] = p.worker_pids()
        busy: list[bool] = []

        def kill_when_busy() -> None:
            busy.append(wait_until_computing(pid))
            os.kill(pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        out = p.verify(HARD)
        killer.join()
        assert busy == [True]
        assert out.status == "crash" and "SIGKILL" in out.message
        assert p.worker_pids() != [pid]
        assert p.verify(INT_GOOD, "3").ok


def test_jobs_queued_behind_a_killed_job_are_retried() -> None:
    limits = VerifyLimits(timeout_s=2.0)   # HARD never ends; the others need far less, even on a busy machine
    with VerifierPool(workers=1, limits=limits) as p:
        outs = list(p.verify_many([(HARD, None), (EGGS, "18"), (HARD, None), (INT_GOOD, "3")]))
        assert [o.status for o in outs] == ["timeout", "verified", "timeout", "verified"]


def test_pool_is_usable_from_threads(pool: VerifierPool) -> None:
    results: dict[int, list[str]] = {}

    def work(k: int) -> None:
        results[k] = [o.status for o in pool.verify_many([(EGGS, "18"), (EGGS, "17")] * 5)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert results == {k: ["verified", "wrong_value"] * 5 for k in range(3)}


def test_abandoned_batch_leaves_the_pool_working() -> None:
    with VerifierPool(workers=2, limits=VerifyLimits(timeout_s=5.0)) as p:
        gen = p.verify_many([(EGGS, "18"), (HARD, None), (HARD, None), (EGGS, "18")])
        assert next(gen).ok
        gen.close()  # two hard jobs still running: their workers are replaced
        assert [o.status for o in p.verify_many([(EGGS, "18"), (INT_GOOD, "3")])] == ["verified"] * 2
        assert len(p.worker_pids()) == 2


def test_closed_pool_refuses_work() -> None:
    p = VerifierPool(workers=1)
    p.close()
    with pytest.raises(VerificationError, match="closed"):
        p.verify(EGGS)


# --------------------------------------------------------------------------- CLI


def test_cli_file_expect_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "eggs.smt2"
    f.write_text(EGGS, encoding="utf-8")
    assert main(["check-smt", str(f), "--expect", "18"]) == 0
    assert capsys.readouterr().out.startswith("verified: answer = 18, matching the expected answer 18")
    assert main(["check-smt", str(f), "--expect", "17"]) == 1
    assert capsys.readouterr().out.startswith("wrong_value: answer = 18 but the expected answer is 17")
    assert main(["check-smt", str(tmp_path / "missing.smt2")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["check-smt", str(f), "--expect", "eighteen"]) == 2
    assert "not a single number" in capsys.readouterr().err


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.smt2"
    f.write_text('(include "/etc/passwd")\n', encoding="utf-8")
    assert main(["check-smt", str(f), "--json", "--timeout", "2", "--memory-mb", "400"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "disallowed" and data["ok"] is False and data["value"] is None


def test_cli_is_decided_by_the_resource_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """check-smt gives generate's verdict: Z3's resource count decides what is too hard (the
    same on every machine); its clock running out first says the machine was too busy."""
    f = tmp_path / "hard.smt2"
    f.write_text(HARD, encoding="utf-8")
    assert main(["check-smt", str(f), "--json", "--rlimit", "20000", "--timeout", "60"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "unknown" and "resource limit" in data["message"]
    assert main(["check-smt", str(f), "--json", "--timeout", "0.001"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "timeout" and "too busy" in data["message"]
    with pytest.raises(SystemExit):
        main(["check-smt", str(f), "--rlimit", "0"])
    assert "resource limit must be" in capsys.readouterr().err
    with pytest.raises(SystemExit):   # attack10: 99999999999 MB was taken (no limit at all)
        main(["check-smt", str(f), "--memory-mb", "99999999999"])
    assert "memory limit must be at most 1,048,576 MB" in capsys.readouterr().err


def test_cli_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(HALF.encode())))
    assert main(["check-smt", "-", "--expect", "3.5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "verified" and data["value"] == "7/2"


def test_cli_usage_error() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check-smt", "-", "--timeout", "-1"])
    assert exc.value.code == 2


def test_cli_as_a_real_subprocess() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "qcstation", "check-smt", "-", "--expect", "18", "--json"],
        input=EGGS, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "verified"
    proc = subprocess.run(
        [sys.executable, "-m", "qcstation", "check-smt", "-"],
        input=UNSAT, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 1
    assert proc.stdout.startswith("unsat: ")
