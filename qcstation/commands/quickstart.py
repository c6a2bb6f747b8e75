"""``qcstation quickstart``: the main job on the embedded defaults, offline.

Imports the seed sample shipped inside the package, generates and verifies the four
dimension artifacts with exact rules (no network, no API key), draws the QC samples
and opens the workstation on its dashboard, whose first line reviews the sample (Enter or
r). Safe to run again: every step is idempotent and resumes where it stopped.

With no configuration in force it writes ./qcstation.toml with a demonstration QC gate
the starter sample can pass in minutes (a 30% threshold, nine clean reviews per dimension,
you as the curator); the file says what a real batch needs instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qcstation.commands._common import db_path, open_app, store_from_args
from qcstation.commands._progress import progress_bar
from qcstation.commands import HELP


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "quickstart", help=HELP["quickstart"],
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None)
    p.add_argument("--no-app", action="store_true",
                   help="stop after preparing the review sample (do not open the workstation)")
    p.set_defaults(func=run)


#: the starter sample's gate: 10 clean reviews bound the defect rate at 25.9% (95%)
DEMO_THRESHOLD = 0.30


def demo_config_text(account: str) -> str:
    """The configuration quickstart writes when none is in force: a gate the starter sample
    can pass in a few minutes, said to be a demonstration, with what a real batch needs."""
    from qcstation.common.stats import reviews_needed
    from qcstation.core.review.gate import DEFAULT_THRESHOLD

    clean = reviews_needed(0, DEFAULT_THRESHOLD) or 0
    demo = reviews_needed(0, DEMO_THRESHOLD) or 0
    safe = account.replace("\\", "").replace('"', "")
    return (
        "# Written by `qcstation quickstart` for the shipped starter sample.\n"
        f"# A DEMONSTRATION gate: {demo} clean reviews per dimension pass it (the 95% bound on the\n"
        f"# defect rate is then below {DEMO_THRESHOLD:.0%}), so the whole loop can be tried in "
        "minutes.\n"
        f"# A real batch keeps the default {DEFAULT_THRESHOLD:.0%} threshold: its gate needs "
        f"{clean} clean reviews per\n"
        f"# dimension, so at least {clean} verified items per dimension ({clean * 10} at the "
        "default 10%\n"
        "# sample rate, or extend the sample: e on the dashboard). Remove the defect_threshold\n"
        "# and min_sample lines below before real work; keep yourself as a curator.\n"
        "[qc]\n"
        f'curators = ["{safe}"]\n'
        f"defect_threshold = {DEMO_THRESHOLD}\n"
        f"min_sample = {demo}\n")


def write_demo_config(path: Path, account: str) -> Path:
    """Write :func:`demo_config_text` to ``path``, writable by its owner only: the config
    names the curators, and a team working under ``umask 002`` (as the README's team setup
    says) got it group-writable, so any annotator could make themselves a curator."""
    path.write_text(demo_config_text(account), encoding="utf-8")
    path.chmod(path.stat().st_mode & ~0o022)
    return path


def run(args: argparse.Namespace) -> int:
    from db import current_actor
    from qcstation.common.config import DEFAULT_CONFIG_NAME, find_config_path, load_config
    from qcstation.core.ingest.importer import import_file, shipped_samples
    from qcstation.core.construct.pipeline import Pipeline
    from qcstation.core.review.sampling import draw_sample, open_sample

    actor = current_actor()
    if find_config_path(args.config) is None:
        written = write_demo_config(Path.cwd() / DEFAULT_CONFIG_NAME, actor)
        print(f"wrote {written}: a demonstration QC gate the starter sample can pass "
              f"({DEMO_THRESHOLD:.0%} threshold, you as curator); a real batch needs the 5% "
              f"default (see the file)")
    cfg = load_config(args.config)
    path = db_path(args)
    print(f"database: {path}")
    with store_from_args(args, create=True) as store:
        for sample_path, fmt in shipped_samples():
            rep = import_file(store, sample_path, fmt, actor=actor)
            print(f"imported {sample_path.name}: {rep.added} new, {rep.skipped_existing} already present, "
                  f"{sum(rep.filtered.values())} filtered, {rep.duplicates} duplicates")
    with progress_bar() as progress, Pipeline(path, cfg, actor=actor, progress=progress) as p:
        summary = p.generate()
    print("generation:")
    for line in summary.lines():
        print("  " + line)
    with store_from_args(args) as store:
        from qcstation.core.review.queries import qc_dimensions

        for dim in qc_dimensions(store, cfg.qc.dimensions, cfg.qc.sample_model_reasoning):
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
