"""Markdown report of a run (optionally compared with a second run), with matplotlib figures.

``write_report(store, run_id, out_dir, compare=None)`` writes into ``out_dir``:

* ``report.md``: run details, the leaderboard with bootstrap 95% CIs, verdict counts
  (correct / wrong / unparseable / error / not scored), breakdowns by source and by
  difficulty, the confusion matrices of the final answer against Reasoning, Arithmetic and
  both, and with ``compare`` the paired comparison (exact McNemar) with the items that differ;
* ``dimensions.{png,svg}``: dimension scores per model with their intervals as error bars;
* ``confusion.{png,svg}``: the confusion matrices as heatmaps;
* ``difficulty.{png,svg}``: accuracy by difficulty.

The output is deterministic: the same run gives byte-identical files (no timestamps of its
own, fixed SVG ids and metadata, Agg rendering). Model names, run names, sources and other
text that came from outside are escaped for Markdown and for matplotlib's mathtext.
No Textual; matplotlib is imported only here, with the object API (no pyplot state).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from db.store import Store
from qcstation.common.errors import os_reason
from qcstation.common.safe import display_text
from qcstation.eval import metrics as M
from qcstation.eval.metric_values import Comparison, Confusion, MetricValue, RunMetrics, fmt_ci, fmt_value
from qcstation.eval import provenance as P
from qcstation.eval.protocols import SINGLE, TWO_STEP
from qcstation.eval.runs import load_spec, run_row
from qcstation.eval.types import DESCRIPTIONS, METRICS, REPORT_CODES

#: what each refinement protocol asks (a run with no refinement task reads n/a: it was
#: described as asking error types and correction in one reply)
_PROTOCOL_WORDS = {TWO_STEP: " (reflect, then refine only after a correct reflection)",
                   SINGLE: " (error types and correction in one reply)",
                   "n/a": " (the run asked no Reflection & Refinement)"}

FIGURE_CODES = REPORT_CODES["figure"]
TABLE_CODES = M.CODES
GROUP_CODES = REPORT_CODES["group"]
DIFFICULTY_CODES = REPORT_CODES["difficulty"]
MAX_LISTED_ITEMS = 100
_MD_SPECIAL = set("\\`*_[]()<>|~!#&${}")
_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22")


def md(text: Any, limit: int = 80) -> str:
    """Untrusted text for Markdown (inline or in a table cell): one line, escaped."""
    out = []
    for ch in display_text(text, limit):
        if ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == "&":
            out.append("&amp;")
        elif ch in _MD_SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _ours(text: Any) -> str:
    """Our own notes (no outside text): one line, only table-breaking characters escaped."""
    return display_text(text, 600).replace("|", "\\|").replace("<", "&lt;")


def plain(text: Any, limit: int = 40) -> str:
    """Untrusted text for a matplotlib label: one line, no mathtext."""
    return display_text(text, limit).replace("$", r"\$")


def run_title(rm: RunMetrics, *, limit: int = 60) -> str:
    name = f" “{display_text(rm.name, limit)}”" if rm.name else ""
    return f"run {rm.run_id}: {display_text(rm.label, limit)}{name}"


def _table(headers: list[str], rows: list[list[str]], align: list[str] | None = None) -> list[str]:
    align = align or ["l"] + ["r"] * (len(headers) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _cell(mv: MetricValue, *, ci: bool = True) -> str:
    failed = f" ({mv.failed} failed)" if mv.failed else ""
    if mv.value is None:
        return ("not scored" if mv.note and mv.note.startswith("not scored") else "—") + failed
    v = fmt_value(mv.code, mv.value)
    return (f"{v} {fmt_ci(mv)}" if ci and mv.lo is not None else v) + failed


def _spec(store: Store, run_id: int) -> dict[str, Any]:
    return load_spec(store.scalar("SELECT spec FROM eval_runs WHERE id = ?", (run_id,)) or "{}")


def _short(value: Any, limit: int = 80) -> str:
    if isinstance(value, dict):
        value = "; ".join(f"{k} = {v if not isinstance(v, (dict, list)) else json.dumps(v, sort_keys=True)}"
                          for k, v in sorted(value.items(), key=lambda kv: str(kv[0])))
    elif isinstance(value, list):
        value = ", ".join(map(str, value))
    return md(value, limit)


def _details(store: Store, rm: RunMetrics) -> list[str]:
    row = run_row(store, rm.run_id)
    spec = _spec(store, rm.run_id)
    prov = P.describe(store, rm.run_id)
    release = prov.release
    model = spec.get("model")
    fields: list[tuple[str, Any]] = [
        ("run", rm.run_id), ("name", rm.name or "—"), ("model", rm.label),
        ("status", rm.status), ("backend", spec.get("backend") if not isinstance(
            spec.get("backend"), dict) else spec["backend"].get("kind", spec["backend"])),
        ("release", release or "—"),
        ("refinement protocol", prov.protocol + _PROTOCOL_WORDS.get(prov.protocol, "")),
        ("R-m", "gated as in SMART (refinement counts only where reflection named every "
                "error); the ungated figure is ACC@R-m ungated"),
        ("answers", "flexible (the final answer anywhere) and strict (the asked last line "
                    "'The answer is N.')"),
        ("judges", ", ".join(prov.judges) or "none"),
        ("templates", prov.templates or None),
        ("max tokens", prov.max_tokens),
        ("stopped by the length limit", f"{prov.stopped_by_length} of {prov.replies} replies"
         + (f" ({100 * prov.length_share:.1f}%)" if prov.length_share is not None else "")),
        ("tasks", ", ".join(map(str, spec["tasks"])) if isinstance(spec.get("tasks"), list) else None),
        ("shots", spec.get("shots")), ("temperature (the run's, sent with every request)",
                                       spec.get("temperature")),
        ("samples per item", spec.get("samples")), ("item limit", spec.get("limit")),
        ("items scored", max((v.n for v in rm.values.values()), default=0)),
        ("started", row.get("started_at")), ("finished", row.get("finished_at")),
    ]
    if isinstance(model, dict):
        # the model's configured temperature is not what the run sent (the run's is above):
        # one temperature is shown, the one the requests carried
        fields.insert(3, ("model config", {k: v for k, v in model.items()
                                           if k not in ("name", "temperature")} or None))
    for key in ("scorer_versions", "scorers"):
        if spec.get(key):
            fields.append(("scorer versions", spec[key]))
            break
    return _table(["", ""], [[f, _short(v, 400)] for f, v in fields
                             if v is not None and v != "" and v != {}], ["l", "l"])


def _leaderboard(runs: list[RunMetrics], n_boot: int, seed: int,
                 store_ref: tuple[Store, ...] = ()) -> list[str]:
    headers = ["metric"] + [md(run_title(r, limit=40)) for r in runs] + ["items"]
    rows = []
    for code in TABLE_CODES:
        mvs = [r.values[code] for r in runs]
        rows.append([M.LABELS[code]] + [_cell(v) for v in mvs]
                    + [" / ".join(str(v.n) for v in mvs)])
    lines = _table(headers, rows)
    lines.append("")
    lines.append("Values with their 95% interval over items: Wilson for accuracies, percentile "
                 f"bootstrap for LLM@Un ({n_boot} resamples, seed {seed}). LLM@Un is the mean of "
                 "every configured judge on 1..100 over the judged replies; a failed or "
                 "unreadable Understanding reply has no score: it is counted apart ('n failed'), "
                 "never averaged in as 0, and fails All-Pass. The others are accuracies: wrong, "
                 "unparseable and failed requests all count as not correct. Failures that are "
                 "not the model's (judge_error, invalid_item, checker_error) are left out of the "
                 "denominators and counted below. With several samples per item, samples are "
                 "averaged per item first.")
    left = [f"- {md(run_title(r, limit=40))}, {M.LABELS[c]}: "
            + ", ".join(f"{k} {v}" for k, v in sorted(r.values[c].not_model.items()))
            for r in runs for c in METRICS if r.values[c].left_out]
    if left:
        lines += ["", "Left out as not the model's failure (item-samples):", ""] + left
    failed = [f"- {md(run_title(r, limit=40))}: {r.values['un'].failed} failed of "
              f"{r.values['un'].failed + r.values['un'].n_samples} (no score; LLM@Un is over the "
              f"{r.values['un'].n_samples} judged)" for r in runs if r.values["un"].failed]
    if failed:
        lines += ["", "LLM@Un: Understanding replies that failed or were unreadable "
                      "(item-samples, kept apart from the judged score):", ""] + failed
    warns = [w for r in runs for w in P.describe(store_ref[0], r.run_id, judge_error=(
        r.values["un"].not_model.get("judge_error", 0),
        r.values["un"].n_samples + r.values["un"].left_out + r.values["un"].failed)).warnings
        ] if store_ref else []
    if warns:
        lines += ["", "Warnings:", ""] + [f"- {_ours(w)}" for w in warns]
    notes = [f"- {md(run_title(r, limit=40))}, {M.LABELS[c]}: {_ours(r.values[c].note)}"
             for r in runs for c in TABLE_CODES if r.values[c].value is None and r.values[c].note]
    if notes:
        lines += ["", "Not reported:", ""] + notes
    lines += ["", "| code | meaning |", "| --- | --- |"]
    lines += [f"| {M.LABELS[c]} | {DESCRIPTIONS[c]} |" for c in TABLE_CODES]
    return lines


def _verdicts(runs: list[RunMetrics], tables: list[M.RunTable]) -> list[str]:
    """The stored verdicts per metric, as stored (a gated metric's row counts its verdicts
    on every item-sample, not the pass/fail of its gated figure)."""
    verdicts = ["correct", "wrong", "unparseable", "error", "not_scored", "judge_error",
                "invalid_item", "checker_error", "trivial"]
    lines: list[str] = []
    for r, table in zip(runs, tables):
        if len(runs) > 1:
            lines += [f"**{md(run_title(r))}**", ""]
        rows = []
        for code in M.STORED_METRICS:
            counts = {k: v for k, v in (table.counts.get(code) or {}).items() if v}
            if not counts:
                continue
            extra = sum(v for k, v in counts.items() if k not in verdicts)
            row = [M.LABELS[code]] + [str(counts.get(v, 0)) for v in verdicts]
            row.append(str(sum(counts.values())))
            if extra:
                row[-1] += f" (incl. {extra} other)"
            rows.append(row)
        if rows:
            lines += _table(["metric"] + [v.replace("_", " ") for v in verdicts] + ["total"], rows)
        else:
            lines.append("No scores yet.")
        lines.append("")
    lines.append("Counts are item-samples. For LLM@Un, correct means the mean of every configured "
                 "judge is at least 90; an item where a judge failed or replied unusably is "
                 "judge_error (left out of LLM@Un and All-Pass, not the model's failure); a "
                 "failed or unreadable reply of the model (error, unparseable) has no score: "
                 "apart from LLM@Un's mean, and a fail of All-Pass.")
    return lines


def _groups_table(groups: dict[str, dict[str, MetricValue]]) -> list[str]:
    if not groups:
        return ["No scores yet."]
    rows = []
    for g, vals in groups.items():
        n = max(v.n for v in vals.values())
        rows.append([md(g, 40), str(n)] + [_cell(vals[c], ci=False) for c in GROUP_CODES])
    return _table(["group", "items"] + [M.LABELS[c] for c in GROUP_CODES], rows)


def _confusion_md(conf: dict[str, Confusion]) -> list[str]:
    names = {"re": "Reasoning", "ar": "Arithmetic", "re+ar": "Reasoning and Arithmetic"}
    lines: list[str] = []
    for key, c in conf.items():
        lines += [f"*Final answer against {names[key]}* ({c.n} item-samples)", ""]

        def cell(name: str) -> str:
            r = c.rate(name)  # noqa: B023 (cell is called within this iteration)
            return f"{name.upper()} {getattr(c, name)}" + (f" ({100 * r:.1f}%)" if r is not None else "")  # noqa: B023

        lines += _table(["", f"{names[key]} P (correct)", f"{names[key]} N (not correct)"],
                        [["final answer P (correct)", cell("tp"), cell("fn")],
                         ["final answer N (not correct)", cell("fp"), cell("tn")]])
        lines.append("")
    return lines


def _listed(ids: list[int], keys: dict[int, str]) -> str:
    shown = [f"{s} ({md(keys[s], 40)})" if s in keys else str(s) for s in ids[:MAX_LISTED_ITEMS]]
    more = len(ids) - len(shown)
    return ", ".join(shown) + (f", … and {more} more" if more > 0 else "")


def _comparison(store: Store, a: RunMetrics, b: RunMetrics,
                comps: list[Comparison]) -> list[str]:
    lines = [f"A = {md(run_title(a))}; B = {md(run_title(b))}. Paired over the items both "
             "runs scored on the metric; each item's value is the mean over its samples (as on "
             "the leaderboard); LLM@Un counts as passed at 90 or more, over judged replies "
             "(failed replies apart). 'A only' / 'B only': "
             "items where A's / B's mean is higher. p: exact two-sided sign test on those items "
             "(with one sample per item, the exact McNemar test).", ""]
    diffs = P.differences(store, a.run_id, b.run_id)
    if diffs:
        lines += ["**Warning: the two runs were not measured the same way**; differences: "
                  + "; ".join(md(d, 200) for d in diffs) + ".", ""]
    rows = []
    for c in comps:
        rows.append([c.label, str(c.n), fmt_value("fi", c.a_value), fmt_value("fi", c.b_value),
                     str(c.a_only), str(c.b_only), str(c.both_correct), str(c.both_wrong),
                     f"{c.p_value:.3g}" if c.n else "—"])
    lines += _table(["metric", "paired items", "A", "B", "A only", "B only", "both correct",
                     "both wrong", "sign-test p"], rows)
    lines.append("")
    for c in comps:
        if c.a_failed or c.b_failed:
            lines += [f"{c.label} is over judged replies; failed or unreadable Understanding "
                      f"replies (no score, kept apart): A {c.a_failed}, B {c.b_failed} "
                      "item-samples.", ""]
    differing = sorted({s for c in comps
                        for s in c.a_only_ids[:MAX_LISTED_ITEMS] + c.b_only_ids[:MAX_LISTED_ITEMS]})
    keys = M.item_keys(store, [a.run_id, b.run_id], differing)
    for c in comps:
        if c.a_only or c.b_only:
            lines += [f"*{c.label}*", ""]
            lines.append(f"- higher in A ({c.a_only}): {_listed(c.a_only_ids, keys) or '—'}")
            lines.append(f"- higher in B ({c.b_only}): {_listed(c.b_only_ids, keys) or '—'}")
            lines.append("")
        if c.only_in_a or c.only_in_b:
            lines.append(f"{c.label}: {c.only_in_a} item(s) only in A and {c.only_in_b} only in B "
                         "were left out.")
            lines.append("")
    lines.append(f"Item lists are seed ids (item key), at most {MAX_LISTED_ITEMS} per list; "
                 f"`qcstation eval compare {a.run_id} {b.run_id} --metric CODE --json` gives them all.")
    return lines


# --- figures --------------------------------------------------------------------------------
def _save(fig: Any, out_dir: Path, stem: str) -> list[str]:
    import matplotlib

    names = []
    with matplotlib.rc_context({"svg.hashsalt": "qcstation", "svg.fonttype": "path"}):
        fig.savefig(out_dir / f"{stem}.png", format="png", dpi=110, metadata={"Software": None})
        fig.savefig(out_dir / f"{stem}.svg", format="svg", metadata={"Date": None, "Creator": None})
    names += [f"{stem}.png", f"{stem}.svg"]
    return names


def _new_figure(w: float, h: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _pct(code: str, v: float | None) -> float | None:
    if v is None:
        return None
    return v if code == "un" else 100 * v


def _fig_dimensions(runs: list[RunMetrics], out_dir: Path) -> list[str]:
    import numpy as np

    codes = [c for c in FIGURE_CODES if any(r.values[c].value is not None for r in runs)
             or c in ("un", "all")]
    fig = _new_figure(max(6.5, 1.0 + 0.9 * len(codes) * max(1, len(runs)) ** 0.5), 4.5)
    ax = fig.add_subplot()
    x = np.arange(len(codes))
    width = 0.8 / len(runs)
    for i, r in enumerate(runs):
        vals, lo_err, hi_err = [], [], []
        for c in codes:
            mv = r.values[c]
            v = _pct(c, mv.value)
            vals.append(np.nan if v is None else v)
            lo, hi = _pct(c, mv.lo), _pct(c, mv.hi)
            lo_err.append(0.0 if v is None or lo is None else max(0.0, v - lo))
            hi_err.append(0.0 if v is None or hi is None else max(0.0, hi - v))
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, vals, width * 0.92, yerr=[lo_err, hi_err], capsize=3,
               color=_COLORS[i % len(_COLORS)], label=plain(run_title(r, limit=40), 50),
               error_kw={"elinewidth": 1, "ecolor": "#333333"})
        for px, v, c in zip(pos, vals, codes):
            if np.isnan(v):
                why = "not\nrun" if (r.values[c].note or "").startswith("not run") else "not\nscored"
                ax.text(px, 2, why, ha="center", va="bottom", fontsize=7, color="#555555")
            else:
                ax.text(px, min(v + (hi_err[codes.index(c)] or 0) + 1.5, 101), f"{v:.0f}",
                        ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x, [M.LABELS[c].replace(" w/o ", "\nw/o ").replace(" given ", "\ngiven ")
                      for c in codes], fontsize=8)
    ax.set_ylim(0, 108)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("score (%; LLM@Un on 1..100)")
    ax.set_title("Scores per dimension with 95% bootstrap intervals")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=8,
               frameon=False, ncols=min(2, len(runs)))
    return _save(fig, out_dir, "dimensions")


def _fig_confusion(runs: list[RunMetrics], confs: list[dict[str, Confusion]],
                   out_dir: Path) -> list[str]:
    import numpy as np

    names = {"re": "Reasoning", "ar": "Arithmetic", "re+ar": "Reasoning & Arithmetic"}
    fig = _new_figure(9.0, 3.3 * len(runs) + 0.5)
    axes = fig.subplots(len(runs), 3, squeeze=False)
    for row, (r, conf) in enumerate(zip(runs, confs)):
        for col, key in enumerate(("re", "ar", "re+ar")):
            ax = axes[row][col]
            c = conf[key]
            grid = np.array([[c.tp, c.fn], [c.fp, c.tn]], dtype=float)
            share = grid / c.n if c.n else np.zeros((2, 2))
            ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
            for (i, j), lab in np.ndenumerate(np.array([["TP", "FN"], ["FP", "TN"]])):
                n = int(grid[i, j])
                txt = f"{lab}\n{n}" + (f"\n{100 * share[i, j]:.1f}%" if c.n else "")
                ax.text(j, i, txt, ha="center", va="center", fontsize=9,
                        color="white" if share[i, j] > 0.55 else "black")
            ax.set_xticks([0, 1], ["P", "N"])
            ax.set_yticks([0, 1], ["P", "N"])
            ax.set_xlabel(f"{names[key]}", fontsize=9)
            if col == 0:
                ax.set_ylabel(f"{plain(run_title(r, limit=28), 30)}\nfinal answer", fontsize=9)
            ax.set_title(f"Fi vs {names[key]} (n={c.n})", fontsize=9)
    fig.suptitle("Final answer against the dimensions (P = correct, N = not correct)", fontsize=10)
    return _save(fig, out_dir, "confusion")


def _fig_difficulty(runs: list[RunMetrics], bds: list[dict[str, dict[str, MetricValue]]],
                    out_dir: Path) -> list[str]:
    import numpy as np

    fig = _new_figure(4.6 * len(runs) + 1.6, 3.8)
    axes = fig.subplots(1, len(runs), squeeze=False, sharey=True)[0]
    for ax, r, bd in zip(axes, runs, bds):
        groups = list(bd)
        x = np.arange(len(groups))
        for k, code in enumerate(DIFFICULTY_CODES):
            ys = [_pct(code, bd[g][code].value) for g in groups]
            if all(y is None for y in ys):
                continue
            ax.plot(x, [np.nan if y is None else y for y in ys], marker="o", lw=1.5,
                    color=_COLORS[k % len(_COLORS)], label=M.LABELS[code])
        ax.set_xticks(x, [plain(g, 14) + f"\n(n={max(v.n for v in bd[g].values())})"
                          for g in groups], fontsize=8)
        ax.set_ylim(0, 105)
        ax.grid(alpha=0.3)
        ax.set_title(plain(run_title(r, limit=40), 44), fontsize=9)
        ax.set_xlabel("difficulty", fontsize=9)
    axes[0].set_ylabel("accuracy (%)")
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside right center", fontsize=8, frameon=False)
    fig.suptitle("Accuracy by difficulty", fontsize=10)
    return _save(fig, out_dir, "difficulty")


# --- the report -------------------------------------------------------------------------------
def write_report(store: Store, run_id: int, out_dir: str | Path, compare: int | None = None,
                 *, n_boot: int = 1000, seed: int = 0) -> Path:
    """Write ``report.md`` and its figures into ``out_dir`` (created); returns the report path."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise M.MetricsError(f"cannot write the report into {out}: {os_reason(exc)}") from exc
    ids = [int(run_id)] + ([int(compare)] if compare is not None else [])
    if compare is not None and int(compare) == int(run_id):
        raise M.MetricsError("cannot compare a run with itself; give another run to --compare")
    tables = [M.load_run(store, r) for r in ids]
    runs = [M.run_metrics(store, r, n_boot=n_boot, seed=seed, table=t) for r, t in zip(ids, tables)]
    by_source = [M.breakdown(store, r, "source", n_boot=0, table=t) for r, t in zip(ids, tables)]
    by_diff = [M.breakdown(store, r, "difficulty", n_boot=0, table=t) for r, t in zip(ids, tables)]
    confs = [M.confusion(store, r, table=t) for r, t in zip(ids, tables)]

    main = runs[0]
    title = f"Evaluation report: {run_title(main)}"
    if compare is not None:
        title += f" compared with run {runs[1].run_id}"
    lines = [f"# {md(title, 200)}", ""]
    lines += ["## Run", ""] + _details(store, main) + [""]
    if compare is not None:
        lines += [f"Compared with {md(run_title(runs[1]))}:", ""] + _details(store, runs[1]) + [""]
    lines += ["## Leaderboard", ""] + _leaderboard(runs, n_boot, seed, (store,)) + [""]
    lines += ["![Scores per dimension with 95% intervals](dimensions.png)", "",
              "Vector version: [dimensions.svg](dimensions.svg).", ""]
    lines += ["## Verdicts", ""] + _verdicts(runs, tables) + [""]
    for label, bds in (("source", by_source), ("difficulty", by_diff)):
        lines += [f"## By {label}", ""]
        for r, bd in zip(runs, bds):
            if len(runs) > 1:
                lines += [f"**{md(run_title(r))}**", ""]
            lines += _groups_table(bd) + [""]
        if label == "difficulty":
            lines += ["![Accuracy by difficulty](difficulty.png)", "",
                      "Vector version: [difficulty.svg](difficulty.svg).", ""]
    lines += ["## Final answer against the dimensions", "",
              "As in SMART (fig. 21), P means correct and N not correct. TP: final answer and "
              "dimension both correct; FN: the final answer is correct although the dimension "
              "is not (final-answer accuracy overestimates the model there); FP: the dimension "
              "is correct but the final answer is not; TN: both not correct. Shares are of all "
              "item-samples scored on both, so TP + FN = ACC@Fi on them.", ""]
    for r, conf in zip(runs, confs):
        if len(runs) > 1:
            lines += [f"**{md(run_title(r))}**", ""]
        lines += _confusion_md(conf)
    lines += ["![Confusion matrices](confusion.png)", "",
              "Vector version: [confusion.svg](confusion.svg).", ""]
    if compare is not None:
        two_step = tables[0].two_step or tables[1].two_step   # ungated R-m: single-prompt only
        comps = [M.compare(store, ids[0], ids[1], code, tables=(tables[0], tables[1]))
                 for code in M.COMPARABLE if not two_step or M.METRIC[code].two_step]
        comps = [c for c in comps if c.n or c.only_in_a or c.only_in_b]
        lines += ["## Comparison", ""] + _comparison(store, runs[0], runs[1], comps) + [""]

    path = out / "report.md"
    try:
        lines += _robustness(store, ids, out)
        _fig_dimensions(runs, out)
        _fig_confusion(runs, confs, out)
        _fig_difficulty(runs, by_diff, out)
        path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    except OSError as exc:
        raise M.MetricsError(f"cannot write the report into {out}: {os_reason(exc)}") from exc
    return path


def _robustness(store: Store, ids: list[int], out: Path) -> list[str]:
    """The robustness section (runs on derived releases, self-refine, round trips;
    :mod:`qcstation.eval.robustness`) with its figures written into ``out``; nothing for
    runs without any."""
    from qcstation.eval.robustness.diagnose import diagnose
    from qcstation.eval.robustness.figures import CAPTIONS, has_robustness, write_figures
    from qcstation.eval.robustness.tables import tables

    dgs = [diagnose(store, r, fidelity=False) for r in ids]   # cheap first: anything to show?
    if not any(has_robustness(dg) for dg in dgs):
        return []
    dgs = [diagnose(store, r) if has_robustness(dg) else dg for r, dg in zip(ids, dgs)]
    lines = ["## Robustness", "",
             "Derived items (variants, ladders, perturbations, counterfactual and backward "
             "problems) with exact answers by Z3; see `qcstation eval robustness`.", ""]
    for dg in dgs:
        if not has_robustness(dg):
            continue
        lines += [f"### {md(dg.title)}: {md(dg.release)}", ""]
        for t in tables(dg):
            lines += [f"**{_ours(t.title)}**", ""]
            lines += _table([_ours(h) for h in t.headers], [[md(c) for c in r] for r in t.rows])
            lines += ([f"_{_ours(t.note)}_"] if t.note else []) + [""]
        lines += [f"- note: {_ours(n)}" for n in dg.notes] + ([""] if dg.notes else [])
    for name in write_figures(dgs, out):
        if name.endswith(".png"):
            stem = name[:-4]
            lines += [f"![{CAPTIONS.get(stem, stem)}]({name})", "",
                      f"Vector version: [{stem}.svg]({stem}.svg).", ""]
    return lines
