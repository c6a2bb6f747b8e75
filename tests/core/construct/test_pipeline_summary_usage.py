"""generate's summary of its model calls never says $0 or "set a price" for calls whose server sent
no token count (issue 30.5, lane attack30's leftover): with prices configured and every count
dropped it printed "tokens 0 in + 0 out, cost $0.0000" (cache hits) or advised setting prices that
were set. The results are built as the generator's client returns them (ChatResult)."""

from __future__ import annotations

from qcstation.core.construct.make.llm import ChatResult
from qcstation.core.construct.pipeline_summary import PipelineSummary


def _result(pt: int | None, ct: int | None, cost: float | None, *, cached: bool = False, dropped: int = 0) -> ChatResult:
    return ChatResult(text="x", model="m", cached=cached, latency_ms=1.0, prompt_tokens=pt, completion_tokens=ct,
                      cost=cost, retries=0, finish_reason="stop", dropped_counts=dropped)


def test_calls_with_no_token_count_have_an_unknown_cost() -> None:
    s = PipelineSummary()
    s.add_call(_result(None, None, None))
    s.add_call(_result(None, None, None, dropped=2))
    line = s.usage_line() or ""
    assert "2 calls came with no token count: their cost is not known" in line
    assert "$0" not in line and "set price" not in line
    assert s.to_dict()["usage"]["uncounted"] == 2


def test_the_counted_calls_cost_is_said_beside_the_uncounted_ones() -> None:
    s = PipelineSummary()
    s.add_call(_result(1000, 500, 0.25))
    s.add_call(_result(None, None, None))
    s.add_call(_result(None, None, 0.0, cached=True))  # a cache hit spent nothing: no unknown cost
    s.add_call(RuntimeError("refused"))
    line = s.usage_line() or ""
    assert "1 call came with no token count: its cost is not known (the others cost $0.2500)" in line
    assert "4 (1 from the cache, 1 failed)" in line


def test_counted_calls_read_as_before() -> None:
    s = PipelineSummary()
    s.add_call(_result(1000, 500, 0.25))
    assert (s.usage_line() or "").endswith("tokens 1,000 in + 500 out, cost $0.2500")
    s = PipelineSummary()
    s.add_call(_result(1000, 500, None))
    assert (s.usage_line() or "").endswith("cost not known (set price_in_per_mtok / price_out_per_mtok)")


def test_a_call_with_one_count_only_is_no_part_of_a_known_cost() -> None:
    # issue 30.5 (lane attack30): a generator that sends prompt_tokens only has no cost at the
    # configured prices (the client's cost_of: None); the line said 'cost $0.2500', the one priced
    # call's cost, as the run's
    s = PipelineSummary()
    s.add_call(_result(1000, 500, 0.25))
    s.add_call(_result(1000, None, None))
    line = s.usage_line() or ""
    assert line.endswith("1 call came with no token count or one only: its cost is not known "
                         "(the others cost $0.2500)")
    assert s.to_dict()["usage"]["one_count"] == 1
    s = PipelineSummary()                       # every call so: no advice to set prices (they may be set)
    s.add_call(_result(1000, None, None))
    assert (s.usage_line() or "").endswith("1 call came with no token count or one only: its cost is not known")
