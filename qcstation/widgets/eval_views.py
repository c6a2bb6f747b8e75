"""Renderers for the Runs and Results screens.

Everything here that came from a model, a dataset or a user (responses, SMT-LIB, names,
error messages) goes through :func:`qcstation.common.safe.pane_text` and into
``rich.text.Text`` (never parsed as markup), so it can neither restyle nor move the
terminal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text

from qcstation.common.safe import pane_text, preview
from qcstation.eval.browse import (
    Headline,
    ItemDetail,
    RunSummary,
    ScoreDetail,
    TaskDetail,
)
from qcstation.eval.types import METRIC_LABELS, METRICS, SHORT
from qcstation.widgets.bullets import Figures

#: One fill per series of a bar chart, shown in its legend (the charts and robustness
#: screens): bars of two runs or two series were told apart by colour only (issue 28.2)
BAR_MARKS = ("█", "▒", "#", "x", "+", "o", "=")
#: One point mark per series of a point or line chart, shown in its legend: every run's
#: points and every ladder curve were ● and told apart by colour only
POINT_MARKS = ("●", "■", "▲", "◆", "✚", "★", "○")

DIM = "dim"
VERDICT_STYLES = {"correct": "green", "wrong": "red", "unparseable": "yellow",
                  "error": "magenta", "not_scored": "dim"}
TASK_TITLES = {"understanding": "Understanding", "reasoning": "Reasoning",
               "arithmetic": "Arithmetic", "refinement": "Reflection & Refinement",
               "final": "Final answer"}


def safe(text: Any, style: str = "") -> Text:
    """Untrusted text, control characters made visible, never markup."""
    return Text(pane_text(None if text is None else str(text)), style=style)


def headline_cell(metric: str, h: Headline | None) -> str:
    if h is None or h.value is None:
        return "–"
    if metric == "un":
        return f"{h.value:.0f}"
    return f"{h.value * 100:.0f}%"


def duration(seconds: float | None) -> str:
    if seconds is None or seconds != seconds or seconds < 0:
        return "–"
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def progress_text(done: int, total: int | None) -> str:
    """'  7/120': the answered count right-aligned to the total's width, so the runs table's
    Done cell keeps one width through a run. A longer value given to a cell is measured
    only when the app is next idle, and frames drawn before that cut it ('1969/236' for
    1969/2365)."""
    if not total:
        return str(done)
    return f"{done:>{len(str(total))}}/{total}"


def progress_cell(run: RunSummary) -> str:
    return progress_text(run.outputs_done, run.n_requests)


def render_run_detail(run: RunSummary) -> RenderableType:
    lines: list[RenderableType] = [
        Text.assemble(safe(run.label, "bold"), "  ", (run.status, _status_style(run.status))),
        Text.assemble(("Release ", DIM), safe(run.release), ("  Backend ", DIM),
                      safe(run.backend or "?"), ("  Items ", DIM), str(run.n_items)),
        Text.assemble(("Requests ", DIM),
                      f"{run.outputs_done} of {run.n_requests} answered"
                      + (f" ({run.outputs_error} failed)" if run.outputs_error else "")),
    ]
    if run.started_at:
        when = Text.assemble(("Started ", DIM), run.started_at[:19].replace("T", " "))
        if run.finished_at:
            when.append_text(Text.assemble(("  finished ", DIM),
                                           run.finished_at[:19].replace("T", " ")))
        lines.append(when)
    figures: list[Text] = []
    for metric in METRICS:
        h = run.headline.get(metric)
        if h is None or not h.counts:
            continue
        figure = Text()
        figure.append(f"{METRIC_LABELS[metric]} ", style="bold")   # the name bold, not its value
        figure.append(headline_cell(metric, h) if h.value is not None else "not scored")
        if h.n:
            figure.append(f" (n={h.n})", style=DIM)
        if metric == "un" and h.failed:
            figure.append(f" {h.failed} failed", style="magenta")
        figures.append(figure)
    # each figure whole on a line (issue 28.2: 'ACC@R-t 100%' / '(n=97)' at 80 columns); an
    # empty headline: not read yet (the runs list shows the list before the numbers)
    lines.append(Figures(figures) if figures else Text("No scores yet." if run.headline else
                                                       "Reading the scores…", style=DIM))
    if run.error:
        lines.append(Text.assemble(("Error: ", "bold red"), safe(run.error)))
    if run.status == "unscored":
        lines.append(Text("Answered, not scored: its figures are not a measurement yet. Enter "
                          "scores it.", style="yellow"))
    elif run.resumable:
        lines.append(Text("Unfinished: Enter resumes it (answered requests are kept).",
                          style="yellow"))
    return Group(*lines)


def _status_style(status: str) -> str:
    return {"done": "green", "running": "bold cyan", "failed": "red",
            "interrupted": "yellow", "stopped": "yellow", "created": "yellow",
            "unscored": "yellow"}.get(status, "")


def progress_line(done: int, total: int, *, rate: float | None, eta: float | None,
                  errors: int, cached: int, tokens: int | None = None,
                  cost: float | None = None, uncounted: int = 0) -> Text:
    text = Text(f"{done} of {total} requests", style="bold")
    if rate is not None:
        text.append(f" · {rate:.1f}/s")
    text.append(f" · ETA {duration(eta)}")
    if errors:
        text.append(f" · {errors} failed", style="red")
    if cached:
        text.append(f" · {cached} cached", style=DIM)
    if tokens:
        text.append(f" · {tokens:,} tokens", style=DIM)
    if cost:
        text.append(f" · ${cost:.4f}", style=DIM)
    if uncounted:       # a server that sent no token count: what those replies cost is not known
        text.append(f" · {uncounted:,} with no token count (cost not known)", style=DIM)
    text.append(" · Esc cancels", style=DIM)
    return text


# -- results ------------------------------------------------------------------------------
def verdict_text(verdict: str, score: float | None = None, metric: str = "") -> Text:
    word = verdict.replace("_", " ")
    if metric == "un" and score is not None and verdict == "correct":
        word = f"{score:.0f}/100"
    elif metric == "un" and score is not None:
        word = f"{word} ({score:.0f})"
    return Text(word, style=VERDICT_STYLES.get(verdict, ""))


def _section(title: str) -> Text:
    return Text(title, style="bold underline")


def _kv(key: str, value: RenderableType | str) -> Text:
    line = Text(f"{key}: ", style="bold")
    if isinstance(value, Text):
        line.append_text(value)
    else:
        line.append(str(value))
    return line


def render_verifier(score: ScoreDetail) -> Text:
    """The scorer's detail without the SMT-LIB text itself, one ``key: value`` a line
    (a nested object one level deeper, indented)."""
    text = Text()

    def line(indent: str, key: str, value: Any) -> None:
        if text:
            text.append("\n")
        text.append(f"{indent}{pane_text(key, keep_newlines=False, limit=60)}: ",
                    style="bold")
        if isinstance(value, dict) and not indent:
            for sub_key, sub_value in sorted(value.items()):
                line("  ", str(sub_key), sub_value)
            return
        shown = value if isinstance(value, str) else json.dumps(
            value, ensure_ascii=False, sort_keys=True, default=str)
        text.append(pane_text(shown, limit=4000))

    for key, value in sorted(score.detail.items()):
        if ("smt" in key.lower() and isinstance(value, str)) or \
                (key == "gold" and _text_of(value) == score.gold):
            continue   # shown above as the SMT-LIB and the gold line
        line("", str(key), value)
    return text


def _text_of(value: Any) -> str | None:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return None if value is None else str(value)


def render_task(task: TaskDetail, *, show_prompt: bool) -> list[RenderableType]:
    title = Text(TASK_TITLES.get(task.task, task.task), style="bold reverse")
    for s in task.scores:
        title.append("  ")
        title.append(f"{METRIC_LABELS.get(s.metric, s.metric)} ", style="bold")
        title.append_text(verdict_text(s.verdict, s.score, s.metric))
    parts: list[RenderableType] = [title]
    if task.prompt is not None:
        chars = sum(len(m["content"]) for m in task.prompt)
        if show_prompt:
            parts.append(_section(f"Prompt ({len(task.prompt)} messages)"))
            for m in task.prompt:
                parts.append(Text.assemble((f"[{pane_text(m['role'], limit=20)}] ", "bold cyan"),
                                           safe(m["content"])))
        else:
            parts.append(Text(f"Prompt: {len(task.prompt)} messages, {chars:,} characters "
                              "(p shows it)", style=DIM))
    elif task.prompt_note:
        parts.append(Text(task.prompt_note, style=DIM))
    if task.status == "missing":
        parts.append(Text("Not asked yet (the run has not reached this request).", style=DIM))
    elif task.status == "error":
        parts.append(_kv("Request failed", safe(task.error or "no reason recorded", "magenta")))
    else:
        meta = [f"finish {pane_text(task.finish_reason, keep_newlines=False, limit=40)}"
                if task.finish_reason else "",
                "cached" if task.cached else "",
                f"{task.completion_tokens} tokens" if task.completion_tokens else "",
                f"{task.latency_ms:.0f} ms" if task.latency_ms else ""]
        parts.append(_section("Response") + Text(
            "  " + " · ".join(m for m in meta if m), style=DIM))
        parts.append(safe(task.response) if task.response else Text("(empty)", style=DIM))
    for s in task.scores:
        label = METRIC_LABELS.get(s.metric, s.metric)
        parts.append(_kv(f"{label} extracted",
                         safe(s.extracted) if s.extracted not in (None, "")
                         else Text("(nothing)", style=DIM)))
        parts.append(_kv(f"{label} gold", safe(s.gold) if s.gold else Text("(none)", style=DIM)))
        parts.append(_kv(f"{label} verdict", verdict_text(s.verdict, s.score, s.metric)
                         + Text(f"  scorer {preview(s.scorer_version, 60)}", style=DIM)))
    smt = task.smtlib() if task.task == "reasoning" else None
    if smt:
        parts.append(_section("Model's SMT-LIB"))
        parts.append(safe(smt, "cyan"))
    for s in task.scores:
        verifier = render_verifier(s)
        if verifier:
            parts.append(_section("Verifier output" if task.task == "reasoning"
                                  else f"{METRIC_LABELS.get(s.metric, s.metric)} scorer detail"))
            parts.append(verifier)
    if not task.scores and task.status != "missing":
        parts.append(Text("Not scored yet.", style=DIM))
    parts.append(Text(""))
    return parts


def render_item(detail: ItemDetail | None, *, show_prompt: bool = False,
                missing: str = "This run did not evaluate the item.",
                first_task: str | None = None, header: bool = True) -> RenderableType:
    """The item's question, then every task; ``first_task`` (the one the user is looking
    at) comes first. ``header=False`` leaves out the item line and the question (side by
    side shows them once above both runs)."""
    if detail is None:
        return Text(missing, style=DIM)
    if not header:
        tasks = sorted(detail.tasks, key=lambda t: t.task != first_task)
        return Group(*[part for task in tasks
                       for part in render_task(task, show_prompt=show_prompt)])
    head = Text.assemble(safe(detail.item_key, "bold"),
                         (f" · sample {detail.sample_idx} · ", DIM), safe(detail.run_label),
                         (f" · {pane_text(detail.source, limit=40)}", DIM),
                         (f" · {detail.difficulty}" if detail.difficulty else "", DIM))
    parts: list[RenderableType] = [head]
    if detail.question:
        parts.append(safe(detail.question))
    parts.append(Text(""))
    tasks = sorted(detail.tasks, key=lambda t: t.task != first_task)
    for task in tasks:
        parts += render_task(task, show_prompt=show_prompt)
    return Group(*parts)


class ItemRenders:
    """:func:`render_item` of the items shown lately, kept by item (the same
    :class:`ItemDetail` object) and how it was asked. An item shown again (``m`` and ``x``
    open on the same items; the cursor back on a row) is then the very parts shown before,
    which :class:`~qcstation.widgets.text_pane.TextPane` neither renders nor wraps again
    (at 1M scores ~5 ms of a page key's CPU: the render, its wrap and the pane's repaint).
    ``provenance_below`` ends the item with how the run measured (no room on the border)."""

    def __init__(self, kept: int = 16) -> None:
        self._kept: dict[tuple[Any, ...], tuple[ItemDetail, RenderableType]] = {}
        self._size = kept

    def render(self, detail: ItemDetail | None, *, show_prompt: bool,
               first_task: str | None, provenance_below: bool = False) -> RenderableType:
        if detail is None:
            return render_item(None)
        key = (id(detail), show_prompt, first_task, provenance_below)
        kept = self._kept.pop(key, None)
        if kept is None or kept[0] is not detail:
            item = render_item(detail, show_prompt=show_prompt, first_task=first_task)
            if provenance_below and isinstance(item, Group):
                # whole at the item's end, wrapped, never cut
                item = Group(*item.renderables, Text(""), Text(
                    f"How the run measured: {preview(detail.provenance, 2000)}", style=DIM))
            kept = (detail, item)
        self._kept[key] = kept                  # the latest last
        while len(self._kept) > self._size:
            del self._kept[next(iter(self._kept))]
        return kept[1]


def render_item_header(detail: ItemDetail | None) -> RenderableType:
    """The item line and its question (the part both runs share)."""
    if detail is None:
        return Text("Neither run evaluated this item.", style=DIM)
    head = Text.assemble(safe(detail.item_key, "bold"),
                         (f" · sample {detail.sample_idx} · ", DIM),
                         (pane_text(detail.source, limit=40), DIM),
                         (f" · {detail.difficulty}" if detail.difficulty else "", DIM))
    if detail.question:
        head.append("\n")
        head.append_text(safe(detail.question))
    return head


def keep_ends(text: object, width: int) -> str:
    """:func:`preview` cut in the middle: a derived item's name (SEED~SET.vN) keeps its seed
    and its variant ('gsm8k-1~vari….v1', 'gsm8k-1234~….v12'), where a cut at the end left
    every variant of a seed reading the same ('gsm8k-1~variant…'); other names keep both ends."""
    flat = preview(text, 10 * width)
    if len(flat) <= width:
        return flat
    seed, sep, rest = flat.partition("~")
    if sep:
        tail = rest[rest.rfind("."):] if "." in rest else ""
        room = width - len(seed) - len(tail) - 2          # the '~' and the '…'
        if room >= 0:
            return f"{seed}~{rest[:room]}…{tail}"
    return _cut_middle(flat, width)


def _cut_middle(flat: str, width: int) -> str:
    """``flat`` in ``width`` cells, cut in the middle: both ends stay."""
    if len(flat) <= width:
        return flat
    head = (width - 1) // 2
    return flat[:head] + "…" + flat[len(flat) - (width - 1 - head):]


#: the results table's Run column when it has no more room; it takes what the row leaves
RUN_WIDTH = 16
#: the Item column's width where the row has no more room (:func:`page_cells`)
ITEM_WIDTH = 16


def run_cell(label: object, width: int = RUN_WIDTH) -> str:
    """A run's name in ``width`` cells: whole where it fits, else cut in the middle after its
    number, so ``#3 baseline-2024-07-18`` and ``#4 baseline-2024-08-06`` each keep their
    end ('#3 basel…07-18'); a cut at the end read 'baseline-2024-0…' for both."""
    flat = preview(label, 10 * width)
    if len(flat) <= width:
        return flat
    number, sep, name = flat.partition(" ")
    if sep and number.startswith("#") and len(number) + 4 <= width:
        base, paren, model = name.rpartition(" (")
        room = width - len(number) - 1 - len(paren) - len(model)
        if paren and base and model.endswith(")") and room >= 8:
            # '#3 baseline-2024-08-06 (gpt-4o-mini)': the name's end and its model stay
            # ('#3 basel…08-06 (gpt-4o-mini)'), where a cut of the whole kept only the model
            return f"{number} {_cut_middle(base, room)}{paren}{model}"
        both = width - len(number) - 1 - len(paren) - 1      # the name and the model, no ')'
        if paren and base and model.endswith(")") and both >= 12:
            # no room for the whole model: each cut in its middle, the parentheses kept
            # ('#2 probe-…ontext (probe-…xt-2026)'); a cut of the whole read as one name
            # (walk9: '#2 probe-nightly-…-context-2026)', the model's '(' cut out)
            inner = model[:-1]
            keep = max(both - len(inner), min(len(base), both // 2))
            return f"{number} {_cut_middle(base, keep)}{paren}{_cut_middle(inner, both - keep)})"
        return f"{number} {_cut_middle(name, width - len(number) - 1)}"
    return _cut_middle(flat, width)


def run_line(label: object, width: int) -> str:
    """A run's full label (``#3 name (model) · release · protocol``, :func:`run_label`) in
    ``width`` cells: what it measured (release, protocol) whole, the name cut in the middle
    (:func:`run_cell`) where the line has no room; a cut at the end lost the protocol, the one
    part that told two runs of one model on one release apart ('· 0-s…')."""
    flat = preview(label, 10 * width)
    if len(flat) <= width:
        return flat
    head, sep, rest = flat.partition(" · ")
    room = width - len(rest) - len(sep)
    if sep and room >= RUN_WIDTH:
        return f"{run_cell(head, room)}{sep}{rest}"
    return _cut_middle(flat, width)


def run_fit(label: object, width: int) -> str:
    """A run's full label in ``width`` cells where :func:`run_line` keeps its name readable
    (at least :data:`RUN_WIDTH` cells beside the release and protocol), else its name alone
    (:func:`run_cell`): a line with little room read '#1 gpt-4o-mini (r… set · 3-shot, t=0',
    which kept neither the model nor the release."""
    flat = preview(label, 10 * width)
    head, sep, rest = flat.partition(" · ")
    if len(flat) <= width or not sep or width - len(rest) - len(sep) >= RUN_WIDTH:
        return run_line(flat, width)
    # the name whole and what it measured with its release cut, where the protocol stays
    # whole beside a release of 8 cells (walk28b: a release of 50 cells left the results'
    # filter line at 80 columns '#3 reference' alone, with 50 cells free)
    _, _, protocol = rest.partition(" · ")
    room = width - len(head) - len(sep)
    if protocol and room >= len(protocol.replace(" R&R", "")) + len(sep) + 8:
        return f"{head}{sep}{measured_cell(rest, room)}"
    return run_cell(head, width)


def release_cell(label: object, width: int) -> str:
    """A release (``name@version``) in ``width`` cells: its version whole, the name cut at its
    end ('variants…@1.0.0'), so two versions of a release never read the same; a cut at the
    end read 'variants-re…' for every version."""
    flat = preview(label, 10 * width)
    if len(flat) <= width:
        return flat
    name, sep, version = flat.rpartition("@")
    if sep and name and len(version) + 3 <= width:
        return f"{name[:width - len(version) - 2]}…@{version}"
    return _cut_middle(flat, width)


def measured_cell(measured: object, width: int) -> str:
    """What a run measured (``release · protocol``, the end of :func:`run_label`) in ``width``
    cells: the protocol whole and the release cut (:func:`release_cell`, its version kept)
    where the line has no room; a cut in the middle of both read 'working set · 3…=0, 2-step
    R&R', which lost the shots and the temperature."""
    flat = preview(measured, 10 * width)
    if len(flat) <= width:
        return flat
    release, sep, protocol = flat.partition(" · ")
    if not sep:
        return _cut_middle(flat, width)
    # a narrow pane (side by side at 80 columns) drops the protocol's ' R&R' before it cuts
    # the release, and cuts the release no shorter than its version and a letter
    short = protocol.replace(" R&R", "")
    if len(release) + len(sep) + len(short) <= width:
        return f"{release}{sep}{short}"
    for asked in (protocol, short):
        room = width - len(sep) - len(asked)
        if room >= 8:
            return f"{release_cell(release, room)}{sep}{asked}"
    return _cut_middle(flat, width)


def row_cells(row: Any, run_width: int = RUN_WIDTH,
              item_width: int = ITEM_WIDTH) -> tuple[Text, ...]:
    """Cells of one results-table row (a :class:`browse.ResultRow`)."""
    return (Text(run_cell(row.run_label, run_width)),
            Text(keep_ends(row.item_key, item_width)), *_value_cells(row))


def _value_cells(row: Any) -> tuple[Text, ...]:
    """A row's cells after its run and item: sample, metric, verdict, extracted."""
    return (Text(str(row.sample_idx)),
            Text(SHORT.get(row.metric, row.metric)),
            verdict_text(row.verdict, row.score, row.metric),
            Text(preview(row.extracted, 14) if row.extracted else "–"))


def page_cells(rows: Sequence[Any], width: int, padding: int = 2,
               labels: Sequence[str] = ()) -> list[tuple[Text, ...]]:
    """The results table's cells for ``rows`` in a table ``width`` cells wide (columns
    ``padding`` apart, each as wide as its widest cell or its label in ``labels``): the Run
    column takes the room the other columns leave, up to the longest name, then the Item
    column what is left, up to the longest item's name, so neither name is cut where the
    row has room (issue 28.2; a derived item read 'gsm8k-1~vari….v1' beside 20 empty
    cells). Each run's name and each item's is cut once a page, not once a row (a page's
    rows share one run and a few items: ~1 ms of a page key's CPU)."""
    if not rows:
        return []
    values = [_value_cells(row) for row in rows]
    runs = {row.run_label for row in rows}
    items = {row.item_key for row in rows}
    n = 2 + len(values[0])
    heads = [*labels, *[""] * n]
    free = width - padding * n - sum(
        max(len(heads[i + 2]), *(c[i].cell_len for c in values)) for i in range(n - 2))
    item_cut = max(cell_len(keep_ends(item, ITEM_WIDTH)) for item in items)
    longest = max(len(preview(label, 10 * RUN_WIDTH)) for label in runs)
    run_width = max(RUN_WIDTH, min(longest, free - item_cut))
    run_text = {label: run_cell(label, run_width) for label in runs}
    run_used = max(len(text) for text in run_text.values())
    longest_item = max(len(preview(item, 10 * ITEM_WIDTH)) for item in items)
    item_width = max(ITEM_WIDTH, min(longest_item, free - run_used))
    item_text = {item: keep_ends(item, item_width) for item in items}
    return [(Text(run_text[row.run_label]), Text(item_text[row.item_key]), *cells)
            for row, cells in zip(rows, values)]
