"""``qcstation release``: curator-approved, immutable, reproducible releases.

    qcstation release blockers [--set SET] [--json]   why a release cannot be approved now (exit 1 if any)
    qcstation release approve NAME@VERSION [--set SET] [--splits set|family] [--notes TEXT] [--export] [--out DIR]
    qcstation release export NAME@VERSION [--out DIR]
    qcstation release list [--json]
    qcstation release diff NAME@OLD [NAME@NEW] [--json]   NEW defaults to the latest; OLD may be 'previous'
    qcstation release flags [--set SET] [--all] [--json]  flagged items a release would take (exit 1 if any blocks)
    qcstation release override ITEM --dimension DIM --reason TEXT [--undo]   curators: let an item's flags through

A release is named ``NAME@VERSION`` everywhere (``smart@1.0.0``), as ``eval run --release``
takes it; ``NAME VERSION`` (two words) is accepted too.

Only a curator may approve: the OS account, matched case-insensitively to ``[qc] curators``
(``--annotator`` only changes the name shown), and only when every QC gate passes.
``--set SET`` makes a *derived release* of a derived set's items (``qcstation derive``);
``--splits family`` exports it with one split per derived family, as
``datasets.load_dataset(folder)`` reads it (default ``set``: one split, ``test``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from db.store import current_actor  # the OS account (see qcstation/common/identity.py)
from qcstation.commands._common import dispatch, print_json, print_table, store_from_args
from qcstation.core.release import releases as rel
from qcstation.core.release.splits import SPLIT_CHOICES, SPLIT_HELP
from qcstation.common.errors import ReleaseError
from qcstation.commands import HELP
from qcstation.common.vocab import DIMENSIONS as RELEASE_DIMS


def _policy(args: argparse.Namespace) -> rel.QCPolicy:
    from qcstation.common.config import load_config

    return rel.QCPolicy.from_config(load_config(getattr(args, "config", None)))


def _ref(name: str, version: str | None, *, need: bool = True) -> tuple[str, str | None]:
    """(name, version) from ``NAME@VERSION`` or ``NAME VERSION``."""
    if "@" in name:
        name, _, at = name.partition("@")
        if version is not None and version != at:
            raise ReleaseError(f"two versions given: {at} (in {name}@{at}) and {version}",
                               title="Bad release name")
        version = at
    if not name or (need and not version):
        raise ReleaseError(f"name the release as NAME@VERSION, e.g. smart@1.0.0 (got "
                           f"{name or '(nothing)'}{'@' + version if version else ''})",
                           title="Bad release name")
    return name, version


def _blockers(args: argparse.Namespace) -> int:
    policy = _policy(args)
    with store_from_args(args) as store:
        records, excluded = rel.candidate_counts(store, args.set or "")
        blockers = rel.release_blockers(store, policy, actor=current_actor(), scope=args.set or "",
                                        counts=(records, excluded))
    if args.json:
        print_json({"blockers": blockers, "records": records, "excluded": excluded})
    elif blockers:
        print("A release cannot be approved yet:")
        for b in blockers:
            print(f"- {b}")
    else:
        what = f"items of {args.set}" if args.set else "active seeds"
        print(f"Ready: {records} records would be released ({excluded} {what} "
              f"left out); a curator can approve now.")
    return 1 if blockers else 0


def _approve(args: argparse.Namespace) -> int:
    policy = _policy(args)
    args.name, args.version = _ref(args.name, args.version)
    with store_from_args(args) as store:
        info = rel.approve_release(store, args.name, args.version, actor=current_actor(),
                                   cfg=policy, notes=args.notes or "",
                                   allow_identical=args.allow_identical, scope=args.set or "",
                                   splits=args.splits)
        out = rel.export_release(store, args.name, args.version, Path(args.out)) if args.export else None
    if args.json:
        d = info.to_dict()
        d["export_dir"] = str(out) if out else None
        print_json(d)
    else:
        print(f"approved {info.name}@{info.version}: {info.counts.get('records', 0)} records "
              f"({info.counts.get('excluded', 0)} seeds left out) by {info.approved_by} "
              f"at {info.approved_at}")
        if out:
            print(f"exported to {out}")
    return 0


def _export(args: argparse.Namespace) -> int:
    args.name, args.version = _ref(args.name, args.version)
    with store_from_args(args) as store:
        out = rel.export_release(store, args.name, args.version, Path(args.out))
        if store.read_only:
            print(f"qcstation: note: {store.path} is read-only here: the export is complete, "
                  "but `release list` will not show it", file=sys.stderr)
    if args.json:
        print_json({"export_dir": str(out)})
    else:
        print(out)
    return 0


def _list(args: argparse.Namespace) -> int:
    with store_from_args(args) as store:
        infos = rel.list_releases(store)
    if args.json:
        print_json([i.to_dict() for i in infos])
    elif not infos:
        print("no releases yet")
    else:
        print_table(["name", "version", "records", "approved by", "approved at", "exported to"],
                    [[i.name, i.version, i.counts.get("records", 0), i.approved_by, i.approved_at,
                      i.export_dir or ""] for i in infos])
    return 0


def _diff(args: argparse.Namespace) -> int:
    if args.old and "@" in args.old and args.new is None:   # diff NAME@OLD NAME@NEW
        args.old, args.new = None, args.old
    name, old = _ref(args.name, args.old, need=False)
    new_name, new = _ref(args.new, None, need=False) if args.new and "@" in args.new \
        else (name, args.new)
    if new_name != name:
        raise ReleaseError(f"diff compares versions of one release, not {name} and {new_name}",
                           title="Two releases")
    if old is None:
        raise ReleaseError(f"say which version to compare: {name}@VERSION (or {name}@previous)",
                           title="Bad release name")
    args.name, args.old, args.new = name, old, new
    with store_from_args(args) as store:
        new = args.new
        if new is None:
            versions = [i.version for i in rel.list_releases(store) if i.name == args.name]
            if not versions:
                raise ReleaseError(f"no release named {args.name}")
            new = versions[-1]
        old = args.old
        if old == "previous":
            old = rel.previous_version(store, args.name, new)
            if old is None:
                raise ReleaseError(f"{args.name}@{new} is the first version; nothing to diff")
        d = rel.diff_releases(store, args.name, old, new)
    if args.json:
        print_json(d)
    else:
        c = d["counts"]
        limit = None if args.all else 20
        print(f"{args.name}@{old} -> {args.name}@{new}: {c['old']} records before, {c['new']} after; "
              f"{c['added']} added, {c['removed']} removed, {c['changed']} changed, "
              f"{d['unchanged']} unchanged")
        if d["changed_by_field"]:
            print("changed fields: " + ", ".join(f"{k} {n}" for k, n in
                                                 d["changed_by_field"].items()))

        def capped(rows: list[Any]) -> list[Any]:
            return rows if limit is None else rows[:limit]

        for rid in capped(d["added_ids"]):
            print(f"+ {rid}")
        for rid in capped(d["removed_ids"]):
            print(f"- {rid}")
        for ch in capped(d["changed"]):
            print(f"~ {ch['id']}")
            for line in ch.get("changes") or ch["fields"]:
                print(f"    {line}")
        hidden = sum(max(0, len(d[k]) - 20) for k in ("added_ids", "removed_ids", "changed"))
        if limit is not None and hidden:
            print(f"({hidden} more not shown; --all lists everything, --json gives it all)")
    return 0


def _flags(args: argparse.Namespace) -> int:
    from qcstation.core.release.flag_gate import flagged_items

    with store_from_args(args) as store:
        items = flagged_items(store, args.set or "")
    blocking = [i for i in items if i.override is None]
    shown = items if args.all else blocking
    if args.json:
        print_json({"blocking": len(blocking), "overridden": len(items) - len(blocking),
                    "items": [i.to_dict() for i in shown]})
        return 1 if blocking else 0
    if not shown:
        print("No flagged item blocks the release" + (f" ({len(items)} overridden by a curator; "
                                                      f"--all lists them)" if items else "") + ".")
        return 0
    print(f"{len(blocking)} flagged item{'s' if len(blocking) != 1 else ''} block the release"
          + (f", {len(items) - len(blocking)} overridden" if len(items) != len(blocking) else "")
          + ":")
    for i in shown:
        print(f"{i.key}  {i.dimension}  ({i.status}; made by {i.made_by})")
        for f in i.flags:
            print(f"    ! {f['code']}: {f['message']}")
        if i.override:
            o = i.override
            print(f"    overridden by {o['curator']} at {o['created_at']}: {o['reason']}")
    if blocking:
        print("Fix, regenerate or exclude each (qcstation qc fix / exclude), or let it through "
              "with a reason: qcstation release override ITEM --dimension DIM --reason TEXT")
    return 1 if blocking else 0


def _override(args: argparse.Namespace) -> int:
    from qcstation.core.release.flag_gate import override_flags, undo_override

    policy = _policy(args)
    with store_from_args(args) as store:
        if args.undo:
            d = undo_override(store, args.item, args.dimension, actor=current_actor(),
                              curators=policy.curators)
        else:
            d = override_flags(store, args.item, args.dimension, args.reason,
                               actor=current_actor(), curators=policy.curators)
    if args.json:
        print_json(d)
    elif args.undo:
        print(f"withdrew the override of {args.item} {args.dimension}: its flags block the "
              f"release again")
    else:
        print(f"overrode the {args.dimension} flags of {args.item} ({d['flag_codes']}): recorded "
              f"with your reason; the release will show it")
    return 0


_ACTIONS = {"flags": _flags, "override": _override, "blockers": _blockers, "approve": _approve, "export": _export, "list": _list,
            "diff": _diff}


def run(args: argparse.Namespace) -> int:
    return dispatch(args, _ACTIONS, "release_action")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "release", help=HELP["release"],
        description="Releases are immutable, versioned snapshots approved by a curator once "
                    "every QC gate passes, exported as exports/NAME/VERSION/{data.jsonl, "
                    "manifest.json, README.md} (byte-identical on every export).")
    p.set_defaults(func=run, release_action_parser=p)
    sub = p.add_subparsers(dest="release_action", metavar="ACTION")

    b = sub.add_parser("blockers", help="why a release cannot be approved now (exit 1 if any)")
    b.add_argument("--set", metavar="SET", help="of a derived release of this derived set")
    b.add_argument("--json", action="store_true", help="print JSON")

    a = sub.add_parser("approve", help="approve a release (curators only)")
    a.add_argument("name", metavar="NAME@VERSION",
                   help="the release, e.g. smart@1.0 (a new version, never reused)")
    a.add_argument("version", nargs="?", help=argparse.SUPPRESS)
    a.add_argument("--notes", help="free text stored with the release (at most 500 characters)")
    a.add_argument("--export", action="store_true", help="export right after approving")
    a.add_argument("--out", default="exports", help="export root (default: ./exports)")
    a.add_argument("--allow-identical", action="store_true",
                   help="approve even when the data is identical to the latest release")
    a.add_argument("--set", metavar="SET",
                   help="a derived release: the items of this derived set (qcstation derive), "
                        "with its own QC gates (qcstation qc sample DIM --set SET)")
    a.add_argument("--splits", choices=SPLIT_CHOICES, default=SPLIT_CHOICES[0],
                   help="how datasets.load_dataset(folder) splits the exported records: "
                        + "; ".join(f"{k}: {v}" for k, v in SPLIT_HELP.items())
                        + " (a derived release; one file per split)")
    a.add_argument("--json", action="store_true", help="print JSON")

    e = sub.add_parser("export", help="write exports/NAME/VERSION/ (reproducible bytes)")
    e.add_argument("name", metavar="NAME@VERSION", help="an approved release, e.g. smart@1.0")
    e.add_argument("version", nargs="?", help=argparse.SUPPRESS)
    e.add_argument("--out", default="exports", help="export root (default: ./exports)")
    e.add_argument("--json", action="store_true", help="print JSON")

    f = sub.add_parser("flags", help="flagged items a release would take (exit 1 if any "
                                     "blocks it)")
    f.add_argument("--set", metavar="SET", help="of a derived release of this derived set")
    f.add_argument("--all", action="store_true", help="also those a curator overrode")
    f.add_argument("--json", action="store_true", help="print JSON")

    o = sub.add_parser("override", help="curators: let an item's self-check flags into the "
                                        "release, with a reason (recorded and released)")
    o.add_argument("item", metavar="ITEM", help="the seed, named as in releases: gsm8k-17")
    o.add_argument("--dimension", "-d", required=True, choices=list(RELEASE_DIMS),
                   help="the dimension whose current artifact's flags you let through")
    o.add_argument("--reason", help="why the flags do not stop this item (required)")
    o.add_argument("--undo", action="store_true", help="withdraw your override instead")
    o.add_argument("--json", action="store_true", help="print JSON")

    ls = sub.add_parser("list", help="list approved releases")
    ls.add_argument("--json", action="store_true", help="print JSON")

    d = sub.add_parser("diff", help="what changed between two versions of a release")
    d.add_argument("name", metavar="NAME@OLD",
                   help="the release and its old version (smart@1.0), or NAME@previous (the "
                        "one approved before NEW)")
    d.add_argument("old", nargs="?", help=argparse.SUPPRESS)
    d.add_argument("new", nargs="?", metavar="NAME@NEW",
                   help="the new version (default: the latest)")
    d.add_argument("--all", action="store_true",
                   help="list every added, removed and changed record (default: the first 20)")
    d.add_argument("--json", action="store_true", help="print JSON")
