"""qcstation: a terminal workstation for building and evaluating SMART-style benchmarks."""

__version__ = "0.1.0"
