"""``qcstation eval templates [--export DIR]``: the prompt templates in force."""

from __future__ import annotations

import argparse
from pathlib import Path

from qcstation.commands._common import print_table
from qcstation.commands.eval._shared import config


def register(actions: argparse._SubParsersAction) -> None:
    tp = actions.add_parser("templates", help="list the prompt templates, or copy them for editing",
                            description="List the prompt templates in force (built-in or overridden "
                                        "by [eval] templates_dir / $QCSTATION_TEMPLATES). With "
                                        "--export DIR, copy the built-in files there to edit them; "
                                        "then set templates_dir = \"DIR\" under [eval].")
    tp.add_argument("--export", metavar="DIR", help="copy the built-in templates into DIR")
    tp.set_defaults(eval_func=run)


def run(args: argparse.Namespace) -> int:
    from qcstation.eval import tasks as T

    cfg = config(args)
    if args.export:
        out = Path(args.export)
        out.mkdir(parents=True, exist_ok=True)
        for name in T.TEMPLATE_NAMES:
            dest = out / f"{name}.txt"
            if dest.exists():
                print(f"kept {dest} (exists)")
                continue
            dest.write_text(T.builtin_text(name), encoding="utf-8")
            print(f"wrote {dest}")
        print(f"edit them, change each `version:` line you edit, then set templates_dir = "
              f"\"{out}\" under [eval] (or export QCSTATION_TEMPLATES={out})")
        return 0
    rows = []
    for name in T.TEMPLATE_NAMES:
        tpl = T.load_template(name, cfg)
        rows.append([name, tpl.version, tpl.sha, tpl.origin])
    print_table(["template", "version", "sha256", "from"], rows)
    return 0
