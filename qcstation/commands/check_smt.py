"""``qcstation check-smt FILE|-``: run one SMT-LIB formalization through the isolated verifier.

Exit code 0 when the outcome is ``verified``, 1 for any other outcome, 2 for a
usage or I/O error (unreadable file, expected answer that is not a number).
"""

from __future__ import annotations

import argparse
import sys

from qcstation.commands._common import print_json
from qcstation.commands import HELP


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (0 < value <= 3600):
        raise argparse.ArgumentTypeError("the timeout must be between 0 and 3600 seconds")
    return value


def _memory_mb(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of megabytes") from None
    if value < 256:
        raise argparse.ArgumentTypeError("the memory limit must be at least 256 MB "
                                         "(Python and z3 alone need about 200 MB)")
    if value > 1_048_576:  # the bound of [verify] memory_mb in the configuration
        raise argparse.ArgumentTypeError("the memory limit must be at most 1,048,576 MB (1 TiB)")
    return value


def _rlimit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of Z3 resource units") from None
    if not (1 <= value <= 10**10):
        raise argparse.ArgumentTypeError("the resource limit must be between 1 and 10,000,000,000 units")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "check-smt",
        help=HELP["check-smt"],
        description=(
            "Run an SMT-LIB formalization (which must declare a constant `answer` of sort Int or "
            "Real) through the same isolated Z3 verifier the pipeline uses, and print the "
            "outcome. Z3's resource count decides, as in generate and derive: a script that does "
            "not decide within --rlimit units is 'unknown' on every machine; --timeout is only a "
            "safety net, and a 'timeout' then says the machine was too busy (run it again). "
            "Exit code 0 when verified, 1 otherwise, 2 on a usage or I/O error."
        ),
    )
    p.add_argument("file", metavar="FILE", help="SMT-LIB file, or - to read standard input")
    p.add_argument("--expect", metavar="ANSWER",
                   help="gold answer to compare `answer` with (e.g. 18, 7/2, 0.33)")
    p.add_argument("--timeout", type=_positive_float, default=5.0, metavar="S",
                   help="wall-clock safety limit in seconds (default 5; the worker is killed after "
                        "1.5*S+1 s); the resource limit decides what is too hard")
    p.add_argument("--rlimit", type=_rlimit, default=None, metavar="N",
                   help="Z3 resource units each check may spend (default: generate's and "
                        "derive's, 10,000,000)")
    p.add_argument("--memory-mb", type=_memory_mb, default=512, metavar="N",
                   help="address-space limit of the worker process in MB (default 512)")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.set_defaults(func=run)


def _read(path: str) -> str | None:
    """The SMT-LIB text, read in bounded form: at most the verifier's size limit plus one
    byte, so /dev/zero or an endless pipe is refused instead of filling memory."""
    from qcstation.core.verify.smtlib import MAX_BYTES

    try:
        if path == "-":
            stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
            data = stream.read(MAX_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        print(f"qcstation: error: cannot read {path}: {reason}", file=sys.stderr)
        return None
    if len(data) > MAX_BYTES:
        print(f"qcstation: error: {path} is larger than {MAX_BYTES:,} bytes, the verifier's "
              "limit for one SMT-LIB text; nothing was checked", file=sys.stderr)
        return None
    if isinstance(data, bytes):
        # undecodable bytes become U+FFFD, which the SMT-LIB reader reports with its line
        return data.decode("utf-8", errors="replace")
    return data


def run(args: argparse.Namespace) -> int:
    from qcstation.core.verify.outcome import STEADY_RLIMIT
    from qcstation.core.verify.verifier import VerifyLimits, verify_smtlib

    text = _read(args.file)
    if text is None:
        return 2
    limits = VerifyLimits(timeout_s=args.timeout, memory_mb=args.memory_mb,
                          rlimit=STEADY_RLIMIT if args.rlimit is None else args.rlimit)
    outcome = verify_smtlib(text, args.expect, limits)  # VerificationError -> exit 2 in cli.main
    if args.json:
        print_json(outcome.to_dict())
    else:
        print(f"{outcome.status}: {outcome.message} ({outcome.elapsed_ms:.0f} ms)")
    return 0 if outcome.ok else 1
