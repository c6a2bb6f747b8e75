"""Where the benches find the shared datasets (GSM8K test and the others), from any checkout.

The datasets are not in the repository: they sit beside it, in ``shared/datasets`` of a folder
above the checkout (``/work/shared/datasets`` for ``/work/main``, and for a worktree such as
``/work/wt/LANE`` too, two levels up). :func:`datasets_dir` takes, in this order: the folder
given (a bench's ``--datasets``), ``$QCSTATION_DATASETS``, then the first ``shared/datasets``
found in a folder above the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = "QCSTATION_DATASETS"


def datasets_dir(given: str | Path | None = None) -> Path:
    """The shared datasets folder (see the module docstring). When none is found, the place
    a checkout beside ``shared/`` would have it (``ROOT.parent / "shared" / "datasets"``), so
    the bench's own "not found" message names a path."""
    if given:
        return Path(given).expanduser()
    env = os.environ.get(ENV)
    if env:
        return Path(env).expanduser()
    for up in ROOT.parents:
        candidate = up / "shared" / "datasets"
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "datasets"


def not_found(path: Path) -> str:
    """What a bench says when a dataset it reads is missing."""
    return (f"{path} not found: the benches read the shared datasets from a folder above the "
            f"repository (shared/datasets), from ${ENV}, or from --datasets DIR")
