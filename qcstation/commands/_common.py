"""Helpers shared by subcommands: opening the store, printing JSON or tables."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qcstation.common.safe import json_safe, one_line, printable

if TYPE_CHECKING:
    from db import Store


class SafeStream:
    """A text stream that shows control characters visibly (``\\x1b``, ``\\r``…) instead of
    passing them to the terminal. :func:`qcstation.cli.main` puts stdout and stderr behind
    it, so no seed text, name or reason printed by a command can retitle, clear or
    recolour the terminal or overwrite what was printed. Newlines and tabs pass."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    @property
    def raw_stream(self) -> Any:
        """The stream underneath, for output we make ourselves (a progress bar's codes)."""
        return self._stream

    def write(self, text: str) -> int:
        self._stream.write(printable(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def db_path(args: argparse.Namespace) -> Path:
    from db import default_db_path

    return Path(args.db) if getattr(args, "db", None) else default_db_path()


def store_from_args(args: argparse.Namespace, *, create: bool = False) -> Store:
    """The database named by --db / $QCSTATION_DB / the default. Only commands that add
    data (import, quickstart) create a missing database; the others say it is missing."""
    from db import Store, current_display_name

    store = Store(db_path(args), create=create)
    store.display_name = current_display_name()  # shown beside the OS account in the logs
    return store


def dispatch(args: argparse.Namespace, actions: dict[str, Any], dest: str) -> int:
    """Run the sub-action named by ``args.<dest>`` (``qc sample``, ``release approve``…);
    with none given, print that command's help on stderr and exit 2."""
    action = getattr(args, dest, None)
    if action is None:
        getattr(args, f"{dest}_parser").print_help(sys.stderr)
        return 2
    return int(actions[action](args))


#: the largest whole number an option takes: what SQLite stores (a --limit past it was an
#: OverflowError traceback: 'Python int too large to convert to SQLite INTEGER')
MAX_WHOLE = 2**63 - 1


def _whole_number(text: str, least: int, most: int = MAX_WHOLE) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number") from None
    if v < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}")
    if v > most:
        raise argparse.ArgumentTypeError(f"must be at most {most:,}")
    return v


def int_between(least: int, most: int) -> Any:
    """argparse type: a whole number from ``least`` to ``most`` (a bound every option a user
    sets has, with a clear error: issue 30.2)."""
    def parse(text: str) -> int:
        return _whole_number(text[:40], least, most)
    parse.__name__ = "whole number"
    return parse


def rng_seed(text: str) -> int:
    """argparse type: an RNG seed, a whole number below 2**63 in size (what SQLite stores)."""
    try:
        v = int(text) if len(text) <= 40 else None
    except ValueError:
        v = None
    if v is None or abs(v) >= 2**63:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number below 2**63")
    return v


def seconds_between(least: float, most: float) -> Any:
    """argparse type: a number of seconds above ``least`` and at most ``most`` (nan and
    inf refused)."""
    def parse(text: str) -> float:
        try:
            v = float(text[:40])
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number") from None
        if not (least < v <= most):      # nan fails every comparison
            raise argparse.ArgumentTypeError(f"must be above {least:g} and at most {most:g} seconds")
        return v
    parse.__name__ = "seconds"
    return parse


def http_url(text: str) -> str:
    """argparse type: a model server's base URL, checked as the configuration checks one."""
    from qcstation.common.config import url_problem

    problem = url_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text.rstrip("/")


def env_name(text: str) -> str:
    """argparse type: the name of an environment variable (never its value), checked as the
    configuration checks ``api_key_env``."""
    from qcstation.common.config import is_env_name

    if not is_env_name(text):
        raise argparse.ArgumentTypeError("must be the NAME of an environment variable "
                                         "(letters, digits and _), not the key itself")
    return text


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    return _whole_number(text, 1)


def non_negative_int(text: str) -> int:
    """argparse type: a whole number of at least 0."""
    return _whole_number(text, 0)


def print_json(data: Any) -> None:
    """JSON on stdout. Characters JSON leaves raw (DEL, C1 controls, bidi overrides) are
    written as ``\\u`` escapes (``\\u200b``): the same data, inert in a terminal."""
    text = json.dumps(data, indent=2, sort_keys=True, default=str, ensure_ascii=False)
    sys.stdout.write(json_safe(text) + "\n")


def print_table(headers: list[str], rows: list[list[Any]]) -> None:
    """Plain, pipe-friendly table: tab-free, padded columns, no colour. Cells are shown on
    one line with control characters escaped (names and reasons come from users)."""
    cells = [[one_line(h) for h in headers]] + [["" if c is None else one_line(c) for c in r]
                                                 for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for n, r in enumerate(cells):
        print("  ".join(c.ljust(w) if i < len(r) - 1 else c for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def open_app(args: argparse.Namespace) -> int:
    from qcstation.app import run_app

    return run_app(db_path(args), config_path=getattr(args, "config", None))
