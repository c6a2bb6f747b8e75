"""The words of the benchmark, spelled once: dimensions and the dimensions QC samples.

Every stage imports its vocabulary from here (``qcstation.DIMENSIONS`` is this tuple).
Imports nothing of ours.
"""

from __future__ import annotations

__all__ = ["DIMENSIONS", "QC_DIMENSIONS"]

#: The four SMART dimensions, in the order every report lists them.
DIMENSIONS: tuple[str, ...] = ("understanding", "reasoning", "arithmetic", "refinement")

#: The dimensions whose artifacts people review in samples: notation questions (arithmetic)
#: and key information (understanding).
QC_DIMENSIONS: tuple[str, ...] = ("arithmetic", "understanding")
