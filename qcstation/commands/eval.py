"""``qcstation eval ACTION``: evaluation runs, scoring, results and reports.

Each action lives in its own module ``qcstation/commands/_eval_<name>.py`` exposing
``register_eval(actions)`` (``actions`` is this command's sub-parser collection); the
action's parser sets ``eval_func``. Modules are discovered, ordered by ``ORDER``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

ORDER = 70


def _action_modules() -> list[object]:
    import qcstation.commands as pkg

    mods = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_eval_"):
            mod = importlib.import_module(f"qcstation.commands.{info.name}")
            if hasattr(mod, "register_eval"):
                mods.append(mod)
    mods.sort(key=lambda m: (getattr(m, "ORDER", 100), m.__name__))
    return mods


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "eval", help="evaluate models on a release, per SMART dimension",
        description="Run models on an approved release (or the accepted working set), score "
                    "their stored responses per dimension (LLM@Un, ACC@Re, ACC@Ar, ACC@R-t, "
                    "ACC@R-m, ACC@Fi, All-Pass), compare runs and write reports.")
    actions = p.add_subparsers(dest="eval_action", metavar="ACTION")
    for mod in _action_modules():
        mod.register_eval(actions)  # type: ignore[attr-defined]
    p.set_defaults(func=run, eval_parser=p)


def run(args: argparse.Namespace) -> int:
    func = getattr(args, "eval_func", None)
    if func is None:
        args.eval_parser.print_help(sys.stderr)
        return 2
    return int(func(args) or 0)
