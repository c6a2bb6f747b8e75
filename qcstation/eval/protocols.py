"""How a run asked, in the words its labels use (:func:`protocol_label`): shots, samples,
temperature, the refinement protocol where it asked Reflection & Refinement, and what an
earlier run added (self-refine, round trip). Reads a run's spec only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: refinement protocols: the paper's (reflect, then refine only after a correct reflection)
#: and the older single prompt (error types and the corrected solution in one reply)
TWO_STEP = "two-step"
SINGLE = "single-prompt"
PROTOCOLS = (TWO_STEP, SINGLE)
PROTOCOL_SHORT = {TWO_STEP: "2-step", SINGLE: "1-prompt"}


def refinement_protocol(spec: Mapping[str, Any]) -> str:
    """``two-step`` / ``single-prompt``; ``n/a`` when the run did not ask refinement (runs
    made before the protocol was recorded were single-prompt)."""
    tasks = spec.get("tasks")
    if isinstance(tasks, list) and "refinement" not in tasks:
        return "n/a"
    p = spec.get("protocol")
    if isinstance(p, Mapping):
        p = p.get("refinement")
    return p if isinstance(p, str) and p in PROTOCOLS else SINGLE


def protocol_label(spec: Mapping[str, Any]) -> str:
    """``3-shot, 2 samples, t=0.7, 2-step R&R``: how a run asked (from its spec): shots,
    samples, temperature, the refinement protocol where it asked Reflection & Refinement,
    and what an earlier run added (``self-refine reasoning from #2``, ``round trip of #3``).
    Two runs of one model on one release that differ only there read alike without them
    (walk28b: a single-prompt run beside a two-step one, in the compare picker and the
    charts' legend)."""
    parts = []
    if isinstance(spec.get("shots"), int):
        parts.append(f"{spec['shots']}-shot")
    samples = spec.get("samples")
    if isinstance(samples, int) and samples > 1:
        parts.append(f"{samples} samples")
    temperature = spec.get("temperature")
    if isinstance(temperature, (int, float)) and not isinstance(temperature, bool):
        parts.append(f"t={temperature:g}")
    if parts and isinstance(spec.get("tasks"), list):
        # a spec of a run (its tasks recorded): a fragment of one is not read as a run
        # made before the protocol was recorded
        protocol = refinement_protocol(spec)
        if protocol != "n/a":
            # as the leaderboard's protocol column writes it: two-step (the paper's: reflect,
            # then refine after a right reflection) or a single prompt
            parts.append(f"{PROTOCOL_SHORT.get(protocol, protocol)} R&R")
    refine = spec.get("refine")
    if isinstance(refine, Mapping) and refine.get("dimension"):
        earlier = refine.get("from")
        parts.append(f"self-refine {refine['dimension']}"
                     + (f" from #{earlier}" if isinstance(earlier, int) else ""))
    trip = spec.get("round_trip")
    if isinstance(trip, Mapping) and isinstance(trip.get("forward_run"), int):
        parts.append(f"round trip of #{trip['forward_run']}")
    return ", ".join(parts) or "protocol not recorded"
