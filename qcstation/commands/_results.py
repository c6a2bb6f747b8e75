"""Helpers shared by the result actions of ``qcstation eval`` (leaderboard, compare,
breakdown, report): resolving RUN arguments and printing metric cells."""

from __future__ import annotations

import argparse

from db import Store
from qcstation.eval import metrics as M


def add_run_help(p: argparse.ArgumentParser) -> None:
    p.epilog = ("RUN is a run id, or a run name when exactly one run has it. "
                "`qcstation eval list` lists the runs.")


def resolve(store: Store, refs: list[str]) -> list[int]:
    return [M.resolve_run(store, r) for r in refs]


def cell(mv: M.MetricValue, *, ci: bool) -> str:
    if mv.value is None:
        return "n/s" if mv.note and mv.note.startswith("not scored") else "-"
    v = M.fmt_value(mv.code, mv.value)
    return f"{v} {M.fmt_ci(mv)}" if ci and mv.lo is not None else v


def notes(rows: list[tuple[str, M.MetricValue]]) -> list[str]:
    """'n/s' and '-' explained, one line each."""
    return [f"  {who}: {mv.label}: {M.display_text(mv.note, 160)}"
            for who, mv in rows if mv.value is None and mv.note]
