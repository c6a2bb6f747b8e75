"""Command-line entry point: ``qcstation [--db PATH] <command> ...``.

Each command lives in its own module under ``qcstation/commands/`` (listed, with its
one-line help, in :data:`qcstation.commands.COMMANDS`) and exposes ``register(subparsers)``.
Only the command being run is registered in full: the others are listed by name and help,
so ``qcstation --help`` imports no command module and ``qcstation qc decide`` only
``qcstation.commands.qc``. With no command the Textual workstation opens on the database.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Sequence

from qcstation import __version__
from qcstation.commands import COMMANDS
from qcstation.common.errors import QCStationError


def _add_global_options(parser: argparse.ArgumentParser) -> None:
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


class _NotParsed(Exception):
    pass


class _QuietParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _NotParsed(message)


def command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs (read past the global options as the real parser reads
    them); None when it names none, or cannot be read (the real parser then says why)."""
    pre = _QuietParser(add_help=False)
    _add_global_options(pre)
    pre.add_argument("command", nargs="?")
    pre.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        known, _ = pre.parse_known_args(list(argv))
    except _NotParsed:
        return None
    return known.command


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command (``argv`` None), or, given ``argv``, the parser whose only
    full subparser is the command ``argv`` runs (the same help, errors and results)."""
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
    _add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = None if argv is None else command_named(argv)
    full = {c.module for c in COMMANDS if argv is None or c.name == wanted}
    registered: set[str] = set()
    for cmd in COMMANDS:
        if cmd.module not in full:
            sub.add_parser(cmd.name, help=cmd.help)
        elif cmd.module not in registered:     # a module may register several commands
            registered.add(cmd.module)
            importlib.import_module(f"qcstation.commands.{cmd.module}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Its output goes through :class:`SafeStream`: text from seeds,
    models and users reaches the terminal with control characters escaped."""
    from qcstation.commands._common import SafeStream

    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        return _main(argv)
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.annotator:
        import os

        os.environ["QCSTATION_USER"] = args.annotator
    func = getattr(args, "func", None)
    import sqlite3

    import db.store

    problem = db.store.busy_timeout_problem()
    if problem is not None:
        print(f"qcstation: error: {problem}", file=sys.stderr)
        return 2

    def lock_notice(message: str) -> None:
        print(f"qcstation: {message}", file=sys.stderr, flush=True)

    try:
        with db.store.lock_notices(lock_notice):
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
