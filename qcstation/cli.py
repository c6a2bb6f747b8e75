"""Command-line entry point: ``qcstation [--db PATH] <command> ...``.

Each subcommand lives in its own module under ``qcstation/commands/`` and exposes
``register(subparsers)``; modules are discovered, ordered by their ``ORDER``. With
no subcommand the Textual workstation opens on the database.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from qcstation import __version__
from qcstation.common.errors import QCStationError


def _command_modules() -> list[object]:
    import qcstation.commands as pkg

    mods = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"qcstation.commands.{info.name}")
        if hasattr(mod, "register"):
            mods.append(mod)
    mods.sort(key=lambda m: (getattr(m, "ORDER", 100), m.__name__))
    return mods


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qcstation",
        description=(
            "Build and evaluate multi-dimensional math-reasoning benchmarks (SMART): "
            "import seeds, generate and verify dimension artifacts, review QC samples "
            "and approve releases. With no command, opens the terminal workstation "
            "(dashboard, review, releases, evaluation runs, results browser, charts)."
        ),
        epilog=(
            "A write that waits for another process's lock names that process after 2 s and "
            "gives up after $QCSTATION_BUSY_TIMEOUT seconds (default 60)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"qcstation {__version__}")
    parser.add_argument(
        "--db", metavar="PATH",
        help="database file (default: $QCSTATION_DB, else ./db/qcstation.db)",
    )
    parser.add_argument(
        "--config", metavar="TOML",
        help="configuration file (default: $QCSTATION_CONFIG, else ./qcstation.toml if present)",
    )
    parser.add_argument(
        "--annotator", metavar="NAME",
        help="who you are in the review log (default: $QCSTATION_USER, else the OS user)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in _command_modules():
        mod.register(sub)  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Its output goes through :class:`SafeStream`: text from seeds,
    models and users reaches the terminal with control characters escaped."""
    from qcstation.commands._common import SafeStream

    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)  # type: ignore[assignment]
    try:
        return _main(argv)
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.annotator:
        import os

        os.environ["QCSTATION_USER"] = args.annotator
    func = getattr(args, "func", None)
    import sqlite3

    import db.store

    db.store.LOCK_WAIT_NOTICE = lambda message: print(f"qcstation: {message}", file=sys.stderr,
                                                      flush=True)
    try:
        if func is None:
            from qcstation.commands._common import open_app

            return open_app(args)
        return int(func(args) or 0)
    except QCStationError as exc:
        print(f"qcstation: error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:  # a storage fault met after opening: one line, no traceback
        from qcstation.commands._common import db_path

        print(f"qcstation: error: {db.store.storage_message(exc, db_path(args))}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an installation without a dependency
        print(f"qcstation: error: the Python package {exc.name!r} is missing; reinstall qcstation "
              f"with its dependencies (pip install .)", file=sys.stderr)
        return 2
    except MemoryError:
        print("qcstation: error: out of memory; nothing more was stored (what was stored "
              "before is intact)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("qcstation: interrupted; work done so far is saved", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `qcstation status | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
