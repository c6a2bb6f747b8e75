"""``qcstation quickstart``: the main job on the embedded defaults, offline.

Imports the seed sample shipped inside the package, generates and verifies the four
dimension artifacts with exact rules (no network, no API key), draws the QC samples
and opens the workstation on the review queue. Safe to run again: every step is
idempotent and resumes where it stopped.
"""

from __future__ import annotations

import argparse
import sys

from qcstation.commands._common import db_path, open_app
from qcstation.commands._progress import progress_bar
from qcstation.commands import HELP


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "quickstart", help=HELP["quickstart"],
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None)
    p.add_argument("--no-app", action="store_true",
                   help="stop after preparing the review sample (do not open the workstation)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from db import Store, current_actor
    from qcstation.common.config import load_config
    from qcstation.core.ingest.importer import import_file, shipped_samples
    from qcstation.core.construct.pipeline import Pipeline
    from qcstation.core.review.sampling import draw_sample, open_sample

    cfg = load_config(args.config)
    path = db_path(args)
    actor = current_actor()
    print(f"database: {path}")
    with Store(path) as store:
        for sample_path, fmt in shipped_samples():
            rep = import_file(store, sample_path, fmt, actor=actor)
            print(f"imported {sample_path.name}: {rep.added} new, {rep.skipped_existing} already present, "
                  f"{sum(rep.filtered.values())} filtered, {rep.duplicates} duplicates")
    with progress_bar() as progress, Pipeline(path, cfg, actor=actor, progress=progress) as p:
        summary = p.generate()
    print("generation:")
    for line in summary.lines():
        print("  " + line)
    with Store(path) as store:
        for dim in cfg.qc.dimensions:
            sample = open_sample(store, dim)
            if sample is None:
                sample = draw_sample(store, dim, rate=cfg.qc.sample_rate, rng_seed=cfg.qc.rng_seed,
                                     actor=actor, min_size=cfg.qc.min_sample,
                                     overlap_rate=cfg.qc.overlap_rate)
                print(f"QC sample for {dim}: {sample.size} items drawn (rate {sample.rate:.0%}, "
                      f"seed {sample.rng_seed})")
            else:
                print(f"QC sample for {dim}: {sample.size} items (already open)")
    if args.no_app or not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("ready: run `qcstation` to review the sample")
        return 0
    return open_app(args)
