"""A check with a resource limit (``VerifyLimits.rlimit``) is decided by Z3's own step count,
never by the clock: a script that needs more units than it may spend is ``unknown`` (the same
on any machine), and a check the clock stops first is a ``timeout`` that says the machine was
too busy. No assertion here depends on how fast the machine is: the hard script below is one
Z3 cannot decide at all (positive cubes with x^3 + y^3 = z^3), so which limit stops it is
set by the limits alone."""

from __future__ import annotations

from qcstation.core.verify.outcome import STEADY_RLIMIT, VerifyLimits
from qcstation.core.verify.pool import VerifierPool
from qcstation.core.verify.solve import verify_core, verify_in_process

NEVER = ("(declare-const x Int) (declare-const y Int) (declare-const z Int)\n"
         "(declare-const answer Int)\n"
         "(assert (> x 0)) (assert (> y 0)) (assert (> z 0))\n"
         "(assert (= (+ (* x x x) (* y y y)) (* z z z)))\n"
         "(assert (= answer x))\n(check-sat)")
EASY = ("(declare-const x Int) (declare-const answer Int)\n"
        "(assert (= (* 3 x 60) 540)) (assert (= answer x))\n(check-sat)")


def test_the_resource_count_decides_too_hard() -> None:
    out = verify_core(NEVER, None, None, 600.0, rlimit=20_000)
    assert out.status == "unknown"
    assert "resource limit (20,000 units)" in out.message and "too hard" in out.message


def test_the_clock_first_is_a_timeout_that_blames_the_machine() -> None:
    out = verify_core(NEVER, None, None, 0.001, rlimit=10**12)
    assert out.status == "timeout"
    assert "too busy" in out.message and "run it again" in out.message
    assert "too hard" not in out.message
    # without a resource limit the clock still decides, as before (generate's checks)
    plain = verify_core(NEVER, None, None, 0.001)
    assert plain.status == "timeout" and "too hard" in plain.message


def test_the_uniqueness_check_is_decided_by_the_count_too() -> None:
    # a first value is easy (x = 3, answer = x * x * x), a second one is the cubes problem
    two = ("(declare-const x Int) (declare-const y Int) (declare-const z Int)\n"
           "(declare-const answer Int)\n"
           "(assert (or (= x 3) (and (> x 3) (> y 0) (> z 0) (= (+ (* x x x) (* y y y)) (* z z z)))))\n"
           "(assert (= answer x))\n(check-sat)")
    spent = verify_core(two, None, None, 600.0, rlimit=20_000)
    assert spent.status == "unknown" and "resource limit" in spent.message
    clock = verify_core(two, None, None, 0.001, rlimit=10**12)
    assert clock.status in ("timeout",) and "too busy" in clock.message


def test_an_easy_script_verifies_under_the_steady_limit() -> None:
    out = verify_in_process(EASY, "3", VerifyLimits(timeout_s=60.0, rlimit=STEADY_RLIMIT))
    assert out.status == "verified" and out.value == 3


def test_the_pool_passes_the_resource_limit_to_its_workers() -> None:
    limits = VerifyLimits(timeout_s=600.0, wall_s=900.0, rlimit=20_000)
    with VerifierPool(workers=1, limits=limits) as pool:
        hard, easy = pool.verify_many([(NEVER, None), (EASY, "3")])
    assert hard.status == "unknown" and "resource limit (20,000 units)" in hard.message
    assert easy.status == "verified"
    # without one, the clock decides, as before (only the script that never ends is asked:
    # an easy one could miss a short clock on a busy machine)
    with VerifierPool(workers=1, limits=VerifyLimits(timeout_s=0.5, wall_s=900.0)) as pool:
        [plain] = pool.verify_many([(NEVER, None)])
    assert plain.status == "timeout" and "too hard" in plain.message
