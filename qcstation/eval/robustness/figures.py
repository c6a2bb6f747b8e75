"""The report's robustness figures (matplotlib, object API, deterministic as the report's
own: fixed SVG ids and metadata, Agg) and the terminal charts' series.

``write_figures(dgs, out_dir)`` writes, for the diagnoses that have them:

* ``robustness_ladders.{png,svg}``: one panel per ladder, accuracy per level of the
  dimension the ladder raises (and the final answer), one line per run;
* ``robustness_drops.{png,svg}``: the drop per dimension under each perturbation;
* ``robustness_variants.{png,svg}``: A_avg and A_wst per dimension;
* ``robustness_counterfactual.{png,svg}``: follow and repeat-original rates per dimension.

``ladder_series(dg)`` gives the (x, y) series the results screen plots in the terminal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qcstation.common.safe import display_text
from qcstation.eval.robustness.diagnose import LADDER_DIM, LADDER_TITLES, PERTURBATIONS, Diagnosis
from qcstation.eval.types import LABELS

__all__ = ["CAPTIONS", "has_robustness", "ladder_series", "write_figures"]

CAPTIONS = {"robustness_ladders": "Ladder curves", "robustness_drops": "Drops under perturbations",
            "robustness_variants": "Variants: A_avg and A_wst",
            "robustness_counterfactual": "Counterfactual follow and repeat rates"}

_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def has_robustness(dg: Diagnosis) -> bool:
    """Whether a run has anything of its own to show here (derived items, self-refine, a round
    trip): a plain run's operations ladder alone is not a robustness section."""
    return bool(set(dg.transforms) - {"seed"} or dg.refine or dg.round_trip)


def _plain(text: Any, limit: int = 40) -> str:
    return display_text(text, limit).replace("$", r"\$")


def _new_figure(w: float, h: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, out_dir: Path, stem: str) -> list[str]:
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "qcstation", "svg.fonttype": "path"}):
        fig.savefig(out_dir / f"{stem}.png", format="png", dpi=110, metadata={"Software": None})
        fig.savefig(out_dir / f"{stem}.svg", format="svg", metadata={"Date": None, "Creator": None})
    return [f"{stem}.png", f"{stem}.svg"]


def ladder_series(dg: Diagnosis, ladder: str) -> dict[str, tuple[list[int], list[float]]]:
    """dimension label -> (levels, accuracy %) of one ladder (the raised dimension first)."""
    fixed = dg.ladders_fixed.get(ladder, {})    # not measured: no curve drawn
    by = {d: pts for d, pts in dg.ladders.get(ladder, {}).items() if d not in fixed}
    order = [LADDER_DIM[ladder]] + [d for d in by if d != LADDER_DIM[ladder]]
    return {LABELS.get(d, d): ([lv for lv, _, _ in by[d]], [100 * a for _, a, _ in by[d]])
            for d in order if d in by}


def _ladders(dgs: list[Diagnosis], out: Path) -> list[str]:
    ladders = [lad for lad in LADDER_DIM if any(lad in dg.ladders and has_robustness(dg)
                                                for dg in dgs)]
    if not ladders:
        return []
    fig = _new_figure(4.2 * len(ladders), 3.4)
    axes = fig.subplots(1, len(ladders), squeeze=False)[0]
    for ax, lad in zip(axes, ladders):
        from matplotlib.ticker import MaxNLocator

        # the dimension the ladder raises; the final answer when no run asked that task
        raised = LADDER_DIM[lad]
        dim = raised if any(raised in dg.ladders.get(lad, {}) for dg in dgs) else "fi"
        for i, dg in enumerate(dgs):
            pts = dg.ladders.get(lad, {}).get(dim)
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], marker="o",
                    color=_COLORS[i % len(_COLORS)], label=_plain(dg.title))
        ax.set_title(_plain(LADDER_TITLES[lad], 60), fontsize=8)
        ax.set_ylabel(f"{LABELS.get(dim, dim)} %")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, 105)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    return _save(fig, out, "robustness_ladders")


def _bars(dgs: list[Diagnosis], out: Path, stem: str, title: str,
          groups: list[tuple[str, dict[str, float | None]]]) -> list[str]:
    """One bar group per (label, {series: value %})."""
    groups = [(g, v) for g, v in groups if any(x is not None for x in v.values())]
    if not groups:
        return []
    series = list(dict.fromkeys(s for _, v in groups for s in v))
    fig = _new_figure(max(5.0, 0.6 * len(groups) * len(series) + 2), 3.6)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(series))
    for j, s in enumerate(series):
        xs = [i + j * width for i in range(len(groups))]
        ax.bar(xs, [(v.get(s) or 0.0) for _, v in groups], width=width,
               color=_COLORS[j % len(_COLORS)], label=_plain(s))
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))])
    ax.set_xticklabels([_plain(g, 30) for g, _ in groups], rotation=20, ha="right", fontsize=7)
    ax.set_title(_plain(title, 80), fontsize=9)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    return _save(fig, out, stem)


def _pct(v: float | None) -> float | None:
    return None if v is None else 100 * v


def write_figures(dgs: list[Diagnosis], out_dir: str | Path) -> list[str]:
    """Write the figures the diagnoses have; returns the file names (PNG, SVG)."""
    out = Path(out_dir)
    dgs = [dg for dg in dgs if has_robustness(dg)]
    names = _ladders(dgs, out)
    multi = len(dgs) > 1
    drops = [(f"{t}{' ' + dg.title if multi else ''}",
              {LABELS.get(d, d): _pct(v.drop) for d, v in dg.drops[t].items()
               if not v.fixed})     # fixed by construction: not measured, no bar
             for dg in dgs for t in PERTURBATIONS if t in dg.drops]
    names += _bars(dgs, out, "robustness_drops", "Drop under each perturbation (points)", drops)
    variants = [(f"{LABELS.get(d, d)}{' ' + dg.title if multi else ''}",
                 {"A_avg": _pct(v.robust.a_avg), "A_wst": _pct(v.robust.a_wst)})
                for dg in dgs for d, v in dg.variants.items()]
    names += _bars(dgs, out, "robustness_variants", "Variants: average and worst case (%)",
                   variants)
    cf = [(f"{LABELS.get(d, d)}{' ' + dg.title if multi else ''}",
           {"new gold": _pct(v.follow), "parent's gold": _pct(v.repeat)})
          for dg in dgs for d, v in dg.counterfactual.items()]
    names += _bars(dgs, out, "robustness_counterfactual", "Counterfactuals (%)", cf)
    return names
