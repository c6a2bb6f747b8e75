"""Dashboard panels: what needs attention, QC gates, counts per stage.

The render functions are pure (data in, Rich renderable out) so the dashboard's
layout can be checked without a database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual.geometry import Size
from textual.widgets import Static
from textual.widgets.option_list import Option

from qcstation.common.safe import one_line, printable
from qcstation.widgets.bullets import Bullet
from qcstation.widgets.marked_list import MarkedOptionList
from qcstation.widgets.labels import (blocker_text, bound_percent, next_step_text, noun_in,
                                      percent, sentence_case, title)

if TYPE_CHECKING:
    from qcstation.core.review.gate import GateStatus
    from qcstation.messages import DimensionQC

SEED_STATUSES = ("active", "filtered", "duplicate")
ARTIFACT_STATUSES = ("generated", "verified", "failed", "accepted", "rejected")


def dim_title(dim: DimensionQC) -> str:
    """A dimension's title, with its derived set when it has one (``Notation questions · set
    dyn``): a derived set's samples and gates are its own."""
    scope = getattr(dim, "scope", "")
    return f"{title(dim.dimension)} · set {one_line(scope, 40)}" if scope else title(dim.dimension)


def extension_size(gate: GateStatus) -> int:
    """How many more random draws the gate asks for (0: extending would not help now):
    enough for the defect bound to pass if they are all accepted, and enough to cover the
    sampling rate."""
    extend_by = getattr(gate, "extend_by", None)
    if extend_by is not None:
        return max(0, int(extend_by))
    extra = 0
    needed = getattr(gate, "needed_reviews", None)
    if needed is not None:
        extra = max(extra, int(needed) - int(gate.reviewed))
    extra = max(extra, int(getattr(gate, "required", 0)) - int(getattr(gate, "covered", 0)))
    return extra


@dataclass(frozen=True)
class Attention:
    """One line of "what needs attention next": the words, and the action Enter runs."""

    text: str
    action: str | None  # "review", "draw_samples", "extend_samples", "regenerate", "releases"
    dimension: str | None = None
    scope: str | None = None   # the set it is about ('' the working set; None: not one set)
    state: str | None = None   # the queue's state filter its Enter opens (action "queue")


#: the cells before the text of a gate's 'count:', 'next:' and 'plan:' lines (the labels
#: right-aligned in them), where its wrapped lines start too
HANGING_INDENT = 18
#: the indent of a team panel line's wrapped lines (a kappa, a gate's progress): at 80
#: columns they went on at the panel's edge and read as lines of their own
HANG = 2
#: a defect threshold from here up is a demonstration setting, and the dashboard says so
DEMO_AT = 0.1


def attention_items(dimensions: list[DimensionQC], *, busy: str | None = None,
                    has_model: bool = True, disagreements: dict[str, int] | None = None,
                    curator: bool = False, curators_configured: bool = True,
                    threshold: float | None = None,
                    released: str | None = None,
                    released_sets: dict[str, str | None] | None = None) -> list[Attention]:
    """What to do next, most useful first, in plain words with the key that does it.
    Never a key whose action would fail: without a model, rejects are sent to the curator
    queue (fix in place, exclude), not to regeneration (the rules make the same text);
    curators' keys are offered to curators, and to others with who may act (or, with no
    curator configured, how to configure one). ``released``: the latest approved release of
    the working set (NAME@VERSION), if any; ``released_sets``: of each derived set."""
    who = _Who(curator, curators_configured)
    review: list[Attention] = []
    regenerate: list[Attention] = []
    draw: list[Attention] = []
    other: list[Attention] = []
    checking = False
    for dim in dimensions:
        remaining = dim.progress.remaining if dim.progress is not None else 0
        if dim.sample is not None and remaining > 0:
            review.append(Attention(
                f"Review {remaining:,} {noun_in(dim.dimension, dim.scope, remaining)} — press r",
                "review", dim.dimension, dim.scope))
        if dim.gate is None:
            checking = True
            continue
        if dim.gate.passed:
            continue
        regenerate += _reject_items(dim, has_model, who,  # the team's counts: the working set's
                                    0 if dim.scope else (disagreements or {}).get(dim.dimension, 0))
        if dim.sample is None and dim.gate.open_rejects == 0:
            draw.append(Attention(
                f"Draw a QC sample of {noun_in(dim.dimension, dim.scope)} — press s",
                "draw_samples", dim.dimension, dim.scope))
        elif dim.sample is not None and remaining == 0 and dim.gate.open_rejects == 0:
            other.append(_gate_step(dim, who))
    items = review + regenerate + draw + other
    if busy:
        items.insert(0, Attention(busy, None))
    if checking:
        items.append(Attention("Checking the QC gates…", None))
    elif not items and dimensions:
        items.append(_all_pass(released, who, released_sets or {}))
    if not items:
        items.append(Attention("Nothing to review yet — import seeds and generate artifacts "
                               "(qcstation --help)", None))
    if threshold is not None and threshold >= DEMO_AT:
        from qcstation.common.stats import reviews_needed

        items.append(Attention(
            f"Demonstration gate: defect threshold {threshold:.0%} (qcstation.toml). A real "
            f"batch uses 5%, which needs {reviews_needed(0, 0.05)} clean reviews per dimension.",
            None))
    return items


@dataclass(frozen=True)
class _Who:
    """Whether the session's account is a curator, and whether any curator is configured."""

    curator: bool
    configured: bool

    def key(self, key: str) -> str:
        """How a curator's action is reached: the key for a curator, who does it for others."""
        if self.curator:
            return f"press {key}"
        return ("a curator does this" if self.configured else
                "a curator does this: none is configured ([qc] curators in qcstation.toml)")


def _reject_items(dim: DimensionQC, has_model: bool, who: _Who,
                  settle_n: int) -> list[Attention]:
    """Rejected items waiting for a replacement, and disagreements to settle."""
    gate = dim.gate
    assert gate is not None
    out: list[Attention] = []
    if gate.open_rejects > 0:
        n = gate.open_rejects
        verb = "awaits" if n == 1 else "await"
        if has_model:
            out.append(Attention(
                f"{n:,} rejected {noun_in(dim.dimension, dim.scope, n)} {verb} regeneration — press g "
                f"(or c to fix one in place)", "regenerate", dim.dimension, dim.scope))
        else:
            out.append(Attention(
                f"{n:,} rejected {noun_in(dim.dimension, dim.scope, n)} {verb} a fix — press c to fix "
                f"in place{', exclude or override' if who.curator else ''} (no model is "
                f"configured, so regenerating would make the same text)", "queue",
                dim.dimension, dim.scope, "rejected"))
    if settle_n:
        out.append(Attention(
            f"{settle_n:,} disagreement{'s' if settle_n != 1 else ''} on "
            f"{noun_in(dim.dimension, dim.scope)} to settle — press c"
            + ("" if who.curator else " (a curator settles)"), "queue", dim.dimension,
            dim.scope, "disagreed"))
    return out


def _gate_step(dim: DimensionQC, who: _Who) -> Attention:
    """A reviewed sample whose gate still fails: extend it, say it is out of reach (and the
    way out), or the gate's next step."""
    gate = dim.gate
    assert gate is not None
    step = gate.next_step.strip().rstrip(".")
    extra = extension_size(gate)
    plan = getattr(gate, "plan", None) or {}
    if extra > 0:
        why = getattr(gate, "extend_reason", "") or (
            f"the defect bound is {bound_percent(gate.upper_bound, gate.threshold)}"
            if gate.upper_bound is not None else "the gate asks for it")
        return Attention(
            f"Extend the {noun_in(dim.dimension, dim.scope, 1)} sample by {extra:,} — "
            f"{who.key('e')} ({why})", "extend_samples" if who.curator else None,
            dim.dimension, dim.scope)
    if plan and not plan.get("reachable", True):
        return _out_of_reach(dim, plan, who)
    return Attention(f"{dim_title(dim)}: {step}" if step else
                     f"{dim_title(dim)}: gate not passed", None, dim.dimension, dim.scope)


def _out_of_reach(dim: DimensionQC, plan: dict[str, Any], who: _Who) -> Attention:
    gate = dim.gate
    assert gate is not None
    ways = plan.get("ways_out") or []
    fresh = bool(gate.defects) and not gate.pending and any(
        "fresh random round" in w for w in ways)
    short = (f"{dim_title(dim)}: out of reach — {gate.defects:,} defect"
             f"{'s' if gate.defects != 1 else ''} in {gate.reviewed:,} reviews; the "
             f"bound needs {plan.get('needed')} reviews, {plan.get('can_review')} "
             f"are possible.")
    if fresh:
        short += (f" Fresh round: {who.key('F')} (a new random sample of the "
                  f"corrected data; {plan.get('clean')} clean reviews pass).")
    elif ways:
        short += f" {ways[0][:1].upper()}{ways[0][1:]}."
    return Attention(short, "fresh_round" if fresh and who.curator else None, dim.dimension,
                     dim.scope)


def _all_pass(released: str | None, who: _Who,
              released_sets: dict[str, str | None]) -> Attention:
    """Every gate passes: approve a release, or (one is approved) evaluate models on it. A
    derived set whose gates pass with no release of its own is named, with the keys that
    approve one (walk9: once the working set had a release the dashboard said to evaluate
    models, with a sampled, reviewed, passing derived set never released)."""
    waiting = [one_line(scope, 30) for scope, rel in sorted(released_sets.items()) if rel is None]
    sets = (f"set{'s' if len(waiting) > 1 else ''} {', '.join(waiting[:3])}"
            f"{' and more' if len(waiting) > 3 else ''}")
    if released is None:
        return Attention("All QC gates pass — press l to approve a release"
                         + (f" (s there chooses the {sets})" if waiting else ""), "releases")
    if waiting:
        return Attention(f"All QC gates pass — the working set is approved as "
                         f"{printable(released)}; the derived {sets} "
                         f"{'has' if len(waiting) == 1 else 'have'} no release yet — "
                         + ("press l, then s to choose it and a to approve" if who.curator
                            else who.key("l")), "releases")
    return Attention(f"All QC gates pass — approved as {printable(released)}. Next: evaluate "
                     f"models on it — press v (a new version after the data changes: "
                     f"{who.key('l')})", "eval_runs")


def _count_table(title_text: str, label: str, rows: dict[str, dict[str, int]],
                 statuses: tuple[str, ...]) -> Table:
    extra = sorted({s for by_status in rows.values() for s in by_status} - set(statuses))
    columns = [s for s in statuses if any(s in r for r in rows.values())] + extra
    if not columns:
        columns = list(statuses[:3])
    table = Table(title=title_text, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD,
                  show_edge=False, pad_edge=False, expand=False, padding=(0, 1))
    table.add_column(label)
    for status in columns:
        table.add_column(status, justify="right")
    table.add_column("total", justify="right", style="bold")
    for key in sorted(rows):
        by_status = rows[key]
        # source names are the user's: one line, controls escaped, never parsed as markup
        table.add_row(Text(one_line(key, 40)), *(f"{int(by_status.get(s, 0)):,}" for s in columns),
                      f"{sum(int(v) for v in by_status.values()):,}")
    if not rows:
        table.add_row("(none)", *("" for _ in columns), "0")
    return table


def render_counts(counts: dict[str, Any]) -> RenderableType:
    """Seeds per source and status; current artifacts per dimension and status."""
    seeds = counts.get("seeds") or {}
    artifacts = counts.get("artifacts") or {}
    parts: list[RenderableType] = [
        _count_table("Seeds", "source", seeds, SEED_STATUSES),
        Text(""),
        _count_table("Artifacts (current versions)", "dimension", artifacts, ARTIFACT_STATUSES),
    ]
    needs_model = {d: int(n) for d, n in (counts.get("needs_model") or {}).items() if n}
    if needs_model:
        listed = ", ".join(f"{d} {n:,}" for d, n in sorted(needs_model.items()))
        parts.append(Text(f"\nNeed a model (no exact rule applies): {listed}. "
                          "Configure [generator] in qcstation.toml.", style="dim"))
    return Group(*parts)


def _returned_items(dim: DimensionQC) -> str | None:
    """What the sample's counts take in and the gate's bound leaves out — fixed or regenerated
    versions that came back for review (not random draws) — when there are any, else None
    (the two agree, or no gate yet)."""
    p, g = dim.progress, dim.gate
    if p is None or g is None or g.upper_bound is None:
        return None
    n, rejected = p.reviewed - g.reviewed, p.rejected - g.defects
    if n <= 0 or not 0 <= rejected <= n:
        return None
    return (f"{n:,} of the {p.reviewed:,} reviewed "
            + ("is a fixed or regenerated version" if n == 1 else
               "are fixed or regenerated versions")
            + f", {rejected:,} of them rejected; only the {g.reviewed:,} random draws enter the bound")


class Hanging:
    """``label`` (dim, right-aligned in :data:`HANGING_INDENT` cells) then ``text``, whose
    wrapped lines start under its first character: at 80 columns the text under 'next:' and
    'plan:' went on at column 0, under the labels, and read as lines of their own."""

    def __init__(self, label: str, text: str | Text) -> None:
        self.label = label.rjust(HANGING_INDENT)
        self.text = text if isinstance(text, Text) else Text(text)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        indent = cell_len(self.label)
        lines = self.text.wrap(console, max(options.max_width - indent, 8))
        for n, line in enumerate(lines):
            line.rstrip()
            yield Text.assemble((self.label, "dim") if n == 0 else " " * indent, line)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        indent = cell_len(self.label)
        return Measurement(indent + 8, indent + self.text.cell_len).clamp(
            max_width=options.max_width)


def render_gate_summary(dimensions: list[DimensionQC], *, has_model: bool = True
                        ) -> RenderableType:
    """Per QC dimension: passed or not, where the sample stands, the next step (as this
    session can take it, :func:`next_step_text`)."""
    if not dimensions:
        return Text("No QC dimensions configured ([qc] dimensions).", style="dim")
    parts: list[RenderableType] = []
    for dim in dimensions:
        gate = dim.gate
        line = Text()
        if gate is None:
            line.append("CHECKING  ", style="bold dim")
        else:
            line.append("PASSED    " if gate.passed else "NOT PASSED",
                        style="bold green" if gate.passed else "bold yellow")
        line.append(f"  {dim_title(dim)}", style="bold")
        if dim.progress is not None:
            line.append(f": {dim.progress.sentence()}")
        elif dim.sample is None:
            line.append(": no open sample")
        if gate is not None and gate.upper_bound is not None:
            line.append(f"; defect bound {bound_percent(gate.upper_bound, gate.threshold)} "
                        f"from {gate.defects:,} of {gate.reviewed:,} random draws rejected "
                        f"(must be below {percent(gate.threshold)})", style="dim")
        # its wrapped lines under the dimension's name, not at the panel's edge (issue 28)
        parts.append(Bullet(line, "", indent=len("NOT PASSED  ")))
        returned = _returned_items(dim)
        if returned is not None:
            parts.append(Hanging("count: ", returned))
        if gate is not None and not gate.passed and gate.next_step:
            parts.append(Hanging("next: ", sentence_case(next_step_text(gate.next_step, has_model))))
        plan = getattr(gate, "plan", None) if gate is not None else None
        if plan and not gate.passed:  # type: ignore[union-attr]
            parts.append(Hanging("plan: ", plan["sentence"]))
    return Group(*parts)


def render_team(stats: dict[str, Any] | None, gates: list[DimensionQC] | None = None
                ) -> RenderableType:
    """The team panel: per annotator (account) items decided, throughput and reject rate;
    per dimension kappa with its number of pairs (and a note when too few); gate progress."""
    if stats is None:
        return Text("Loading…", style="dim")
    people = stats.get("annotators") or []
    parts: list[RenderableType] = []
    if people:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
        for col, just in (("annotator", "left"), ("decided", "right"), ("per hour", "right"),
                          ("rejects", "right"), ("unsure", "right")):
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        for p in people:
            rate = p.get("reject_rate")
            table.add_row(Text(one_line(p["annotator"], 40)), f"{int(p['decided']):,}",
                          "–" if p.get("per_hour") is None else f"{p['per_hour']:g}",
                          "–" if rate is None else f"{rate * 100:.0f}%", f"{int(p.get('unsure', 0)):,}")
        parts.append(table)
    else:
        parts.append(Text("No decisions yet.", style="dim"))
    for dim, a in (stats.get("agreement") or {}).items():
        kappa = "n/a" if a.get("kappa") is None else f"{a['kappa']:.2f}"
        ac1 = "" if a.get("ac1") is None else f", AC1 {a['ac1']:.2f}"
        line = Text.assemble((f"{title(dim)}: ", "bold"), f"kappa {kappa}{ac1} from "
                             f"{a['pairs']:,} pair{'s' if a['pairs'] != 1 else ''}")
        if a.get("note"):
            line.append(f" ({a['note']})", style="yellow" if a["pairs"] else "dim")
        if a.get("disagreed"):
            line.append(f"; {a['disagreed']:,} to settle", style="yellow")
        parts.append(Bullet(line, "", indent=HANG))
    for dim in gates or []:
        g = dim.gate
        if g is None:
            continue
        need = g.needed_reviews if g.needed_reviews is not None else (g.plan or {}).get("needed")
        if g.passed:
            words = "passed"
        elif need is None:
            words = "the threshold cannot be reached by sampling"
        else:
            words = (f"{g.reviewed:,} of the {need:,} reviews it needs at {g.defects:,} defect"
                     f"{'s' if g.defects != 1 else ''}")
        parts.append(Bullet(Text.assemble((f"{dim_title(dim)} gate: ", "bold"), words), "",
                            indent=HANG))
    return Group(*parts)


def render_gate_rules(dimensions: list[DimensionQC], *, has_model: bool = True) -> RenderableType:
    """Each gate's rule in plain words and what still blocks it, as this session can act on
    it (:func:`blocker_text`: with no model, nothing awaits regeneration)."""
    parts: list[RenderableType] = []
    for n, dim in enumerate(dimensions):
        gate = dim.gate
        if n:
            parts.append(Text(""))
        parts.append(Text.assemble((f"{dim_title(dim)} ", "bold"),
                                   (f"({dim.dimension}{'@' + one_line(dim.scope, 40) if dim.scope else ''})",
                                    "dim")))
        if gate is None:
            parts.append(Text("Checking…", style="dim"))
            continue
        parts.append(Text(gate.rule))
        for blocker in gate.blockers:
            parts.append(Bullet(blocker_text(blocker, has_model), Text("  • ", "yellow")))
    if not parts:
        parts.append(Text("No QC dimensions configured.", style="dim"))
    return Group(*parts)


class Panel(Static):
    """A dashboard panel: a ``Static`` that measures its content's height once per content
    and width. Textual forgets a widget's measured height on every repaint (a scroll, a
    refresh of the screen), and measuring a Rich table renders it whole: the counts table
    took ~8 ms a layout, five layouts as the dashboard loads."""

    def __init__(self, content: RenderableType = "", *, id: str | None = None,  # noqa: A002
                 classes: str | None = None) -> None:
        super().__init__(content, id=id, classes=classes)
        self._measured: tuple[object, int, int] | None = None   # (visual, width, height)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        visual = self.visual
        if self._measured is not None and self._measured[0] is visual \
                and self._measured[1] == width:
            return self._measured[2]
        height = super().get_content_height(container, viewport, width)
        self._measured = (visual, width, height)
        return height


class AttentionList(MarkedOptionList):
    """The "needs attention" list: Enter runs the action of the highlighted line (marked
    ▸: :class:`~qcstation.widgets.marked_list.MarkedOptionList`)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[Attention] = []

    def show(self, items: list[Attention]) -> None:
        """Show ``items``, keeping the highlight on the line the user chose: the list is
        rebuilt on every load (and every 15 s), while keys typed ahead act on the list as
        the user saw it. Unchanged items leave the options alone; changed ones keep the
        highlight on the same line by what it does (its action, dimension and set), not by
        its position, which a line added above would shift to another action."""
        if items == self.items:
            return
        highlighted = self.highlighted
        chosen = (self.items[highlighted] if highlighted is not None
                  and 0 <= highlighted < len(self.items) else None)
        self.clear_options()
        self.add_options([Option(Text(printable(item.text)), id=f"attention-{n}") for n, item in
                          enumerate(items)])
        self.items = items
        if items:
            self.highlighted = _same_line(chosen, items, highlighted or 0)


def _same_line(chosen: Attention | None, items: list[Attention], index: int) -> int:
    """Where ``chosen`` is in ``items``: the same line, else the line with its action,
    dimension, set and queue state (its words changed: "Review 5" after "Review 6"; the
    state tells the rejects' line from the disagreements' of one dimension, both opening the
    queue: found by the first three, Esc back from settling one disagreement highlighted the
    rejects, issue 28), else the nearest
    position to ``index``. A line that runs nothing ("Checking the QC gates…") is not
    followed: while the gates load it moves down as lines come above it, and the highlight
    must stay where the user left it (at the top, on the first thing to do)."""
    if chosen is not None and chosen.action is not None:
        if chosen in items:
            return items.index(chosen)
        for n, item in enumerate(items):
            if (item.action, item.dimension, item.scope, item.state) == (
                    chosen.action, chosen.dimension, chosen.scope, chosen.state):
                return n
    return min(index, len(items) - 1)
