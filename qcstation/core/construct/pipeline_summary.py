"""What a generation run did (:class:`PipelineSummary`): outcome counts per dimension, notes,
and the model calls it made (tokens, cost, token counts the server reported that were
dropped). :mod:`.pipeline` fills it; the ``generate`` command and the app print it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from qcstation.common.vocab import DIMENSIONS

__all__ = ["PipelineSummary"]


@dataclass
class PipelineSummary:
    """Outcome counts per dimension: verified, failed:<reason>, needs_model, skipped…"""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # model calls of this run: calls, cached, failed, prompt_tokens, completion_tokens, uncounted
    # (calls that came with no token count); and their cost in USD (None: no price configured)
    usage: Counter[str] = field(default_factory=Counter)
    cost: float | None = None
    #: stopped before its end (the pipeline's ``cancel``): the same run again resumes it
    stopped: bool = False

    def add_call(self, result: Any) -> None:
        """Count one model call's result (a ChatResult, or the error it raised)."""
        self.usage["calls"] += 1
        if isinstance(result, BaseException):
            self.usage["failed"] += 1
            return
        if getattr(result, "cached", False):
            self.usage["cached"] += 1
        dropped = int(getattr(result, "dropped_counts", 0) or 0)
        self.usage["dropped_token_counts"] += dropped
        if not getattr(result, "cached", False) and (dropped or (getattr(result, "prompt_tokens", None) is None
                                                                 and getattr(result, "completion_tokens", None) is None)):
            self.usage["uncounted"] += 1  # a call that spent tokens no one counted: its cost is not known
        elif not getattr(result, "cached", False) and getattr(result, "cost", None) is None \
                and (getattr(result, "prompt_tokens", None) is None or getattr(result, "completion_tokens", None) is None):
            self.usage["one_count"] += 1  # one count only: priced, its cost is not known either
        self.usage["prompt_tokens"] += int(getattr(result, "prompt_tokens", 0) or 0)
        self.usage["completion_tokens"] += int(getattr(result, "completion_tokens", 0) or 0)
        cost = getattr(result, "cost", None)
        if cost is not None:
            self.cost = (self.cost or 0.0) + float(cost)

    def dropped_line(self) -> str | None:
        """How many token counts the server reported were dropped over the run, in one line
        (None: none were); said once at the end, not once a reply."""
        n = int(self.usage["dropped_token_counts"])
        if not n:
            return None
        return (f"{n:,} token count{'s' if n != 1 else ''} the server reported dropped (not a count "
                f"of tokens, or more than the request can hold); those calls' cost is not known")

    def usage_line(self) -> str | None:
        """The run's model calls, tokens and cost in one line (None: no model was called)."""
        u = self.usage
        if not u["calls"]:
            return None
        n = int(u["uncounted"])
        one = int(u["one_count"])
        if one:  # never a cost of the counted calls said as the run's, nor advice to set prices that may be set
            n += one
            spent = (f"{n:,} call{'s' if n != 1 else ''} came with no token count or one only: "
                     f"{'their' if n != 1 else 'its'} cost is not known"
                     + (f" (the others cost ${self.cost:.4f})" if self.cost is not None and n < u["calls"] - u["failed"]
                        else ""))
        elif n:  # (never "$0" nor the advice to set prices, which may be set: the server sent no counts)
            spent = (f"{n:,} call{'s' if n != 1 else ''} came with no token count: "
                     f"{'their' if n != 1 else 'its'} cost is not known"
                     + (f" (the others cost ${self.cost:.4f})" if self.cost is not None and n < u["calls"] - u["failed"]
                        else ""))
        elif self.cost is None:
            spent = "cost not known (set price_in_per_mtok / price_out_per_mtok)"
        else:
            spent = f"cost ${self.cost:.4f}"
        return (f"model calls {u['calls']} ({u['cached']} from the cache, {u['failed']} failed), "
                f"tokens {u['prompt_tokens']:,} in + {u['completion_tokens']:,} out, {spent}")

    def add(self, dimension: str, outcome: str, n: int = 1) -> None:
        self.counts.setdefault(dimension, Counter())[outcome] += n

    def total(self, outcome_prefix: str) -> int:
        return sum(n for c in self.counts.values() for k, n in c.items() if k.startswith(outcome_prefix))

    def to_dict(self) -> dict[str, Any]:
        return {"dimensions": {d: dict(sorted(c.items())) for d, c in self.counts.items()},
                "notes": self.notes,
                "usage": {**{k: int(self.usage[k]) for k in ("calls", "cached", "failed",
                                                              "prompt_tokens", "completion_tokens",
                                                              "dropped_token_counts", "uncounted",
                                                              "one_count")},
                          "cost": self.cost}}

    def lines(self) -> list[str]:
        out = []
        for dim in DIMENSIONS:
            c = self.counts.get(dim)
            if not c:
                continue
            parts = ", ".join(f"{k} {v}" for k, v in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))
            out.append(f"{dim:<14} {parts}")
        usage = self.usage_line()
        if usage:
            out.append(usage)
        return out
