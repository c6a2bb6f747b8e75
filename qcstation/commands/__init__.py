"""The commands of ``qcstation``: one module per command (``eval`` is a package with one
module per verb). Each module exposes ``register(subparsers)``, which adds its command's
parser (with the one-line help of :data:`COMMANDS`) and sets ``func``, the function that
runs it.

:data:`COMMANDS` lists every command in the order of ``qcstation --help``: its name, the
module that registers it and its one-line help. :func:`qcstation.cli.build_parser` builds
the whole parser only of the command being run; the others are listed by name and help
alone, so a command imports its own module and nothing of the others (``qcstation
--help`` imports none). Inside a module, the heavy packages (numpy, scipy, matplotlib,
Textual, math-verify, Z3, the model clients) are imported by the functions that use them,
not at the top. ``tests/commands/test_cli_start.py`` checks both.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    name: str        # as typed: qcstation NAME
    module: str      # qcstation.commands.MODULE registers it
    help: str        # the line ``qcstation --help`` shows


COMMANDS: tuple[Command, ...] = (
    Command("quickstart", "quickstart",
            "import the shipped sample, generate, verify, sample for QC, open the app"),
    Command("import", "import_", "import seed questions from dataset files"),
    Command("status", "status", "counts per source, stage and dimension"),
    Command("generate", "generate",
            "generate and verify dimension artifacts (rules offline, or a model)"),
    Command("verify", "generate", "verify artifacts left unverified (or re-verify all with --all)"),
    Command("audit", "audit",
            "flag suspicious artifacts (links by equal value, dropped givens, ...)"),
    Command("derive", "derive",
            "derived item sets: variants, ladders, perturbations, counterfactual and "
            "inverse problems (exact answers from Z3; resumable)"),
    Command("check-smt", "check_smt", "verify one SMT-LIB formalization with the isolated Z3 verifier"),
    Command("check-answer", "check_answer",
            "show the answer the checker extracts from a response and its verdict"),
    Command("qc", "qc", "human QC: samples, review decisions, the QC gate"),
    Command("eval", "eval", "evaluate models on a release, per SMART dimension"),
    Command("release", "release", "blockers, flags and overrides; approve, export, list and diff releases"),
    Command("config", "config",
            "show the configuration in force (no secrets); --check pings the models"),
)

#: command name -> its one-line help (what each module's parser is given)
HELP: dict[str, str] = {c.name: c.help for c in COMMANDS}
