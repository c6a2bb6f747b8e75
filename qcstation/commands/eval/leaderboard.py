"""``qcstation eval leaderboard [RUN ...] [--wide] [--json]``: every metric of each run,
with its release, model and protocol (default: every finished run; 120 columns, or every
metric with its 95% interval with --wide)."""

from __future__ import annotations

import argparse
from typing import Any

from qcstation.commands._common import print_json, print_table, rng_seed, store_from_args
from qcstation.commands.eval._shared import add_run_help, cell, failed_line, notes, resolve
from qcstation.common.safe import display_text
from qcstation.eval.types import CODES, COMPACT


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "leaderboard", help="every metric per run with 95%% intervals",
        description="Per run: its release, model and refinement protocol, then LLM@Un, ACC@Re, "
                    "ACC@Ar, ACC@R-t, ACC@R-m (the SMART paper's: refinement counts only where "
                    "reflection named every error), ACC@Fi and All-Pass. Answer metrics show "
                    "flexible/strict (f/s): the final number anywhere / the asked line 'The "
                    "answer is N.'. Wrong, unparseable and failed requests count as not "
                    "correct; LLM@Un is the judges' mean over judged replies: a failed or "
                    "unreadable Understanding reply has no score and is counted apart as "
                    "'failed' (never a 0; it fails All-Pass). Failures that are not the model's "
                    "(judge_error, invalid_item, checker_error) are left out of the denominators "
                    "and counted under 'left out'. The default view fits 120 columns; --wide shows every metric with "
                    "its 95%% interval (Wilson for accuracies, bootstrap for LLM@Un). 'n/s' = "
                    "not scored (e.g. no judge: All-Pass then needs Understanding, see 'ACC@All "
                    "w/o Un'); '-' = task not run.")
    p.add_argument("runs", nargs="*", metavar="RUN", help="runs to show (default: every finished run)")
    p.add_argument("--json", action="store_true", help="print JSON (values 0..1; un on 1..100)")
    p.add_argument("--wide", action="store_true",
                   help="every metric (strict, ungated R-m, R-m by error kind) with its interval")
    p.add_argument("--no-ci", action="store_true", help="with --wide: values only, without intervals")
    p.add_argument("--sort", metavar="CODE", choices=CODES,
                   help=f"sort by this metric, best first ({', '.join(CODES)})")
    p.add_argument("--n-boot", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for LLM@Un (default 1000; 0 = no intervals)")
    p.add_argument("--seed", type=rng_seed, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--spearman", action="store_true",
                   help="also print Spearman's rho between the metrics across these runs (one "
                        "release only: refused across releases; under 10 runs the p-values are "
                        "flagged as unreliable; with --json: an object with 'runs' and 'spearman')")
    add_run_help(p)
    p.set_defaults(eval_func=run)




def _pct(mv: Any) -> str:
    if mv.value is None:
        return "n/s" if mv.note and mv.note.startswith("not scored") else "-"
    v = mv.value if mv.code == "un" else 100 * mv.value
    return "100" if v >= 99.95 and mv.code != "un" else f"{v:.1f}"


def _left_out(r: Any, *, detail: bool = True) -> str:
    from qcstation.eval.types import METRICS

    parts = []
    for code in METRICS:
        k = r.values[code].left_out
        if k:
            parts.append(f"{code} {k}")
    if not detail:
        return str(sum(r.values[c].left_out for c in METRICS))
    return ", ".join(parts) or "0"


def _wrap(text: str, indent: int = 2) -> str:
    """One note, escaped, wrapped to 120 columns."""
    import textwrap

    return textwrap.fill(display_text(text, 600), 118, initial_indent=" " * indent,
                         subsequent_indent=" " * (indent + 2), break_on_hyphens=False)


def _noted(r: Any, wide: bool) -> list[str]:
    """The codes whose 'not reported' note is worth a line: in the compact view its
    columns, strict answers only when the flexible one is there (old runs: rescore)."""
    from qcstation.eval import metrics as M

    if wide:
        return list(M.CODES)
    shown = [c for _, c, _ in COMPACT]
    for _, c, s in COMPACT:
        if s and r.values[c].value is not None and r.values[s].value is None:
            shown.append(s)
    return shown


def run(args: argparse.Namespace) -> int:
    from qcstation.eval import metrics as M

    if not 0 <= args.n_boot <= 100_000:
        raise M.MetricsError("--n-boot must be between 0 and 100000")
    board, prov, corr = _gather(args)
    if args.sort:
        board.sort(key=lambda r: (r.values[args.sort].value is None,
                                  -(r.values[args.sort].value or 0.0)))
    if args.json:
        runs = []
        for r in board:
            d = r.to_dict()
            d["provenance"] = prov[r.run_id].to_dict()
            runs.append(d)
        print_json({"runs": runs, "spearman": corr.to_dict()} if corr is not None else runs)
        return 0
    unscored = _unscored_runs(args) if not args.runs else []
    waiting = (f"answered, not scored (not listed: the leaderboard counts scored runs): run "
               f"{', '.join(map(str, unscored[:10]))}{' ...' if len(unscored) > 10 else ''}; "
               f"`qcstation eval score RUN` scores one") if unscored else ""
    if not board:
        print("no finished evaluation runs" if not args.runs else "no runs")
        if waiting:
            print(waiting)
        return 0
    print_table(*_table(board, prov, args))
    if waiting:
        print(waiting)
    if not args.wide:
        print("values in % (Un 1..100, over judged replies; * = some replies failed, counted "
              "apart below);\nf/s = flexible/strict answer; R-m gated as in SMART; left out = "
              "item-samples failed not by the model\n(judge_error, invalid_item, checker_error); "
              "--wide: intervals")
    _print_notes(board, prov, args.wide)
    if corr is not None:
        print("\nSpearman rho between metrics across runs")
        print(corr.note)
        print_table([""] + [M.LABELS[c] for c in corr.codes],
                    [[M.LABELS[c1]] + ["-" if corr.rho[c1][c2] is None else f"{corr.rho[c1][c2]:+.2f}"
                                       for c2 in corr.codes] for c1 in corr.codes])
    return 0


def _unscored_runs(args: argparse.Namespace) -> list[int]:
    """The runs answered and not scored (``unscored``): not on the default board."""
    from qcstation.eval.runs import UNSCORED

    with store_from_args(args) as store:
        return [int(r["id"]) for r in store.query("SELECT id FROM eval_runs WHERE status = ? ORDER BY id",
                                                  (UNSCORED,))]


def _gather(args: argparse.Namespace) -> tuple[list[Any], dict[int, Any], Any]:
    """(the board, each run's provenance, Spearman's rho or None), read from the store."""
    from qcstation.eval import metrics as M
    from qcstation.eval import provenance as P

    with store_from_args(args) as store:
        ids = resolve(store, args.runs) if args.runs else None
        board = M.leaderboard(store, ids, n_boot=args.n_boot, seed=args.seed)
        prov = {r.run_id: P.describe(store, r.run_id, judge_error=(
            r.values["un"].not_model.get("judge_error", 0),
            r.values["un"].n_samples + r.values["un"].left_out + r.values["un"].failed))
            for r in board}
        corr = None
        if args.spearman:
            rels = P.releases(store, [r.run_id for r in board])
            if len(rels) > 1:
                raise M.MetricsError(
                    "--spearman correlates runs of one release only; these runs are on "
                    + "; ".join(f"{k} (runs {', '.join(map(str, v))})" for k, v in rels.items())
                    + ". Name the runs of one release")
            corr = M.correlation(store, [r.run_id for r in board])
    return board, prov, corr


def _table(board: list[Any], prov: dict[int, Any], args: argparse.Namespace
           ) -> tuple[list[str], list[list[Any]]]:
    """(headers, rows) of the compact view, or with --wide of every metric."""
    from qcstation.eval import metrics as M

    if args.wide:
        ci = not args.no_ci and args.n_boot > 0
        headers = ["run", "model", "release", "protocol", "items"] + [M.LABELS[c] for c in M.CODES] \
            + ["left out"]
        rows = [[r.run_id, display_text(r.label, 30), display_text(prov[r.run_id].release, 30),
                 prov[r.run_id].protocol, max(v.n for v in r.values.values())]
                + [cell(r.values[c], ci=ci) for c in M.CODES] + [_left_out(r)] for r in board]
    else:
        headers = ["run", "model", "release", "protocol"] + [h for h, _, _ in COMPACT] \
            + ["items", "left out"]
        rows = [[r.run_id, display_text(r.label, 12), display_text(prov[r.run_id].release, 11),
                 prov[r.run_id].short]
                + [_pct(r.values[c]) + ("/" + _pct(r.values[s]) if s else "")
                   + ("*" if r.values[c].failed else "") for _, c, s in COMPACT]
                + [max(v.n for v in r.values.values()), _left_out(r, detail=False)] for r in board]
    return headers, rows


def _print_notes(board: list[Any], prov: dict[int, Any], wide: bool) -> None:
    """How each run measured, the warnings, and what is not reported."""
    print("\nmeasured as:")
    for r in board:
        print(_wrap(prov[r.run_id].line()))
        if r.values and any(r.values[c].left_out for c in r.values):
            print(_wrap(f"left out: {_left_out(r)}", indent=4))
        if r.values and (line := failed_line("failed", r.values["un"])):
            print(_wrap(line, indent=4))
    warnings = [w for r in board for w in prov[r.run_id].warnings]
    if len({p.release for p in prov.values()}) > 1:
        warnings.append("these runs are on different releases: their numbers are not comparable "
                        "item for item")
    if warnings:
        print("\nwarnings:")
        print("\n".join(_wrap(w) for w in warnings))
    extra = []
    for r in board:
        if all(v.n == 0 for v in r.values.values()) and not any(
                (v.note or "").startswith("not computed: every request failed") for v in r.values.values()):
            extra.append(f"  run {r.run_id}: no scores yet (status {display_text(r.status, 20)}; "
                         f"`qcstation eval score {r.run_id}` scores what is stored)")
        else:
            extra += notes([(f"run {r.run_id}", r.values[c]) for c in _noted(r, wide)])
    if extra:
        print("\nnot reported:")
        print("\n".join(_wrap(e.strip()) for e in extra))
