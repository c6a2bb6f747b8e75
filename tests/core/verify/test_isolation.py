"""The generic isolated worker pool: real worker processes running real standard-library
functions that return, raise, run out of memory, hang or exit."""

from __future__ import annotations

import threading
import time

import pytest

from qcstation.core.verify.isolation import IsolatedPool


def test_results_come_back_in_order() -> None:
    with IsolatedPool("math:factorial", workers=2, wall_s=10) as pool:
        assert not pool.started  # lazily started
        out = pool.run_many(list(range(12)))
        assert [r.status for r in out] == ["ok"] * 12
        assert [r.value for r in out] == [1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880,
                                          3628800, 39916800]
        assert len(pool.worker_pids()) == 2


def test_an_exception_is_reported_and_the_worker_replaced() -> None:
    with IsolatedPool("math:sqrt", workers=1, wall_s=10) as pool:
        assert pool.run_many([4.0])[0].value == 2.0
        [pid] = pool.worker_pids()
        bad, good = pool.run_many([-1.0, 9.0])
        assert bad.status == "error" and "ValueError" in bad.message
        assert good.ok and good.value == 3.0
        assert pool.worker_pids() != [pid]


def test_memory_limit() -> None:
    with IsolatedPool("builtins:bytearray", workers=1, wall_s=20, memory_mb=400) as pool:
        big, small = pool.run_many([2_000_000_000, 10])
        assert big.status == "memory" and "400 MB" in big.message
        assert small.ok and small.value == bytearray(10)


def test_wall_clock_kill() -> None:
    # a job sleeping an hour can only end by the kill (no upper bound on elapsed time: a busy
    # machine is slow); the wall clock is long enough for the quick job on a busy machine
    with IsolatedPool("time:sleep", workers=1, wall_s=5) as pool:
        pool.run_many([0])  # started
        start = time.perf_counter()
        slow, quick = pool.run_many([3600, 0])
        assert slow.status == "timeout" and "wall-clock" in slow.message
        assert quick.ok
        assert time.perf_counter() - start >= 5.0 - 0.1


def test_a_worker_that_exits_is_a_crash() -> None:
    with IsolatedPool("os:_exit", workers=1, wall_s=10) as pool:
        [res] = pool.run_many([3])
        assert res.status == "crash" and "exit code 3" in res.message


def test_calls_from_threads_are_serialized() -> None:
    with IsolatedPool("math:factorial", workers=2, wall_s=10) as pool:
        outs: list[list[int]] = []

        def work() -> None:
            outs.append([r.value for r in pool.run_many(list(range(20)))])

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert len(outs) == 3 and all(o == outs[0] for o in outs)


def test_closed_pool_refuses_work() -> None:
    pool = IsolatedPool("math:factorial", workers=1)
    pool.close()
    with pytest.raises(RuntimeError):
        pool.run_many([1])
