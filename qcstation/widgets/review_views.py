"""The two panes of the review screen: the seed problem and the artifact under review.

Everything shown here came from a dataset or a model, so it is rendered as plain
``rich.text.Text`` (never parsed as markup) and SMT-LIB through ``rich.syntax.Syntax``,
with control characters shown escaped (:func:`qcstation.common.safe.printable`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual import events
from textual.containers import VerticalScroll
from textual.widgets import Static

from qcstation.common.vocab import KEYINFO_FIELDS, KEYINFO_TITLES
from qcstation.common.safe import one_line, printable
from qcstation.widgets.bullets import Bullet
from qcstation.widgets.labels import VERDICT_WORDS, noun, sentence_case

if TYPE_CHECKING:
    from qcstation.core.review.items import ReviewItem

HEADING = "bold"
DIM = "dim"


def _heading(text: str) -> Text:
    return Text(text, style=HEADING)


def _plain(value: Any) -> Text:
    if value is None or value == "" or value == []:
        return Text("(none)", style=DIM)
    if isinstance(value, str):
        return Text(printable(value))
    return Text(printable(json.dumps(value, ensure_ascii=False, sort_keys=True)))


def _bullets(values: Any) -> RenderableType:
    """One bullet a value, its wrapped lines under its words (not at column 0)."""
    if isinstance(values, str):
        values = [values]
    if not values:
        return Text("  (none)", style=DIM)
    return Group(*(Bullet(_plain(value)) for value in values))


def render_seed(item: ReviewItem) -> RenderableType:
    """The seed problem: question, gold answer, where it came from; for key information
    and notation questions also the gold solution (what the key information is judged
    against; the steps a notation question must follow)."""
    where = " · ".join(one_line(p, 80) for p in (item.key, getattr(item, "level", "")) if p)
    parts: list[RenderableType] = [
        Text(where, style=DIM),
        Text(""),
        _plain(item.question),
        Text(""),
        Text.assemble(("Gold answer: ", HEADING), _plain(item.gold_answer)),
    ]
    solution = getattr(item, "solution", "")
    if item.dimension in ("understanding", "arithmetic") and solution:
        parts += [Text(""), _heading("Gold solution"), _plain(_readable_solution(solution))]
    return Group(*parts)


def _readable_solution(text: str) -> str:
    """A GSM8K solution without its calculator annotations (``<<3*4=12>>``)."""
    import re

    return re.sub(r"<<[^<>]*>>", "", text)


def _smtlib(code: str) -> Syntax:
    return Syntax(printable(code.rstrip()), "scheme", theme="ansi_dark", word_wrap=True,
                  background_color="default")


def _verify_lines(result: dict[str, Any] | None, *, solver: bool) -> Text:
    if not result:
        return Text("Not verified yet", style=DIM)
    status = str(result.get("status", "?"))
    ok = status in {"verified", "ok", "sat", "valid"}
    text = Text.assemble(("Z3: " if solver else "Check: ", HEADING),
                         (status, "bold green" if ok else "bold red"))
    if solver:
        value = result.get("value_text") or result.get("value")
        expected = result.get("expected")
        if value is not None or expected is not None:
            text.append("\nValue ")
            text.append_text(_plain(value))
            text.append("  expected ")
            text.append_text(_plain(expected))
            if value is not None and expected is not None:
                same = (bool(result.get("exact")) if "exact" in result
                        else str(value) == str(expected))
                text.append("  ")
                text.append("match" if same else "MISMATCH", style="green" if same else "bold red")
        if result.get("elapsed_ms") is not None:
            try:
                text.append(f"\n{float(result['elapsed_ms']):.0f} ms", style=DIM)
            except (TypeError, ValueError):
                pass
    message = result.get("message")
    if message:
        text.append("\n")
        text.append_text(_plain(message))
    return text


def _version_line(item: ReviewItem) -> Text:
    line = Text(f"artifact #{item.artifact_id} · v{item.artifact_version}", style=DIM)
    made_by = getattr(item, "made_by", "")
    if made_by:
        line.append(" · made by ", style=DIM)
        line.append_text(Text(printable(made_by),
                              style="yellow" if getattr(item, "author", None) else "bold"))
    if item.replaces_id:
        line.append(f" · replaces #{item.replaces_id}", style="yellow")
        reason = getattr(item, "replaces_reason", None)
        if reason:
            line.append("\nthe replaced version was rejected: ", style="yellow")
            line.append_text(_plain(reason))
    return line


def _z3_summary(result: dict[str, Any] | None) -> Text:
    """One line at the top of a notation question: did Z3 confirm the gold answer?"""
    if not result:
        return Text("Z3: not verified yet", style="bold yellow")
    status = str(result.get("status", "?"))
    ok = status in {"verified", "ok", "sat", "valid"}
    text = Text.assemble(("Z3: ", HEADING), (status, "bold green" if ok else "bold red"))
    value = result.get("value_text") or result.get("value")
    expected = result.get("expected")
    if value is not None:
        text.append(" · value ")
        text.append_text(_plain(value))
    if expected is not None:
        text.append(" · expected ")
        text.append_text(_plain(expected))
    return text


def _audit_line(item: ReviewItem, content: dict[str, Any]) -> Text | None:
    """Every self-check flag (qcstation audit) stored with this artifact, one a line, and a
    curator's override of them (nothing is audited while the pane draws)."""
    flags = item.flags
    if flags is None:
        return Text("self-checks: not audited yet (qcstation audit stores the flags)", style="dim")
    if not flags:
        return None
    text = Text(f"⚠ {len(flags)} flag{'s' if len(flags) != 1 else ''} (blocks the release "
                f"until fixed or overridden):", style="bold yellow")
    for f in flags:
        text.append("\n  ! ", style="bold yellow")
        text.append_text(_plain(f"{f.get('code')}: {f.get('message')}"))
    override = getattr(item, "flag_override", None)
    if override:
        text.append("\n  overridden by ", style="yellow")
        text.append_text(_plain(f"{override.get('curator')}: {override.get('reason')}"))
    return text


def render_artifact(item: ReviewItem) -> RenderableType:
    """The artifact under review, laid out by dimension."""
    content = item.content if isinstance(item.content, dict) else {}
    parts: list[RenderableType] = [_version_line(item)]
    warning = _audit_line(item, content)
    if warning is not None:
        parts.append(warning)
    if item.dimension == "arithmetic":
        parts += [_z3_summary(item.verify_result), Text("")]
        parts += [_heading("Notation question"), _plain(content.get("notation")), Text("")]
        variables = content.get("variables") or {}
        if isinstance(variables, dict) and variables:
            var_text = Text()
            for n, (name, value) in enumerate(variables.items()):
                if n:
                    var_text.append("\n")
                var_text.append(f"  {one_line(name, 60)} = ")
                var_text.append_text(_plain(value))
            parts += [_heading("Variables"), var_text]
        if content.get("target"):
            parts += [Text.assemble(("Asks for: ", HEADING), _plain(content.get("target")))]
        parts.append(Text(""))
        smtlib = item.smtlib or content.get("smtlib")
        source = content.get("source_artifact_id")
        parts.append(_heading("SMT-LIB it came from"
                              + (f" (artifact #{source})" if source else "")))
        parts.append(_smtlib(str(smtlib)) if smtlib else Text("(no SMT-LIB recorded)", style=DIM))
        parts += [Text(""), _heading("Z3 result"), _verify_lines(item.verify_result, solver=True)]
    elif item.dimension == "understanding":
        parts.append(Text(""))
        for key in KEYINFO_FIELDS:
            value = content.get(key)
            parts.append(_heading(KEYINFO_TITLES[key]))
            parts.append(_bullets(value) if isinstance(value, list) else _plain(value))
            parts.append(Text(""))
        parts.append(_verify_lines(item.verify_result, solver=False))
    elif item.dimension == "reasoning":
        parts += [_z3_summary(item.verify_result), Text(""), _heading("SMT-LIB"),
                  _smtlib(str(content.get("smtlib") or ""))]
        if content.get("rule"):
            parts += [Text.assemble(("Rule: ", HEADING), _plain(content.get("rule")))]
        if content.get("notes"):
            parts += [_heading("Notes"), _bullets(content.get("notes"))]
        parts += [Text(""), _verify_lines(item.verify_result, solver=True)]
    elif item.dimension == "refinement":
        parts += [Text(""), _heading("Solution with injected errors"),
                  _plain(content.get("w_cot")), Text("")]
        errors = content.get("errors") or []
        parts.append(_heading(f"Injected errors ({len(errors)})"))
        parts.append(_bullets([
            f"{e.get('type')} at step {e.get('step')}: {e.get('description')}"
            if isinstance(e, dict) else e for e in errors]))
    else:
        parts.append(_plain(content))
    return Group(*parts)


def render_verdicts(decisions: list[dict[str, Any]], me: str) -> Text:
    """The banner over an already-decided item: who decided what, and why."""
    if not decisions:
        return Text("Not decided yet", style=DIM)
    text = Text()
    for n, decision in enumerate(decisions):
        if n:
            text.append("; ")
        who = "you" if decision.get("annotator") == me else one_line(decision.get("annotator"), 60)
        verdict = str(decision.get("verdict"))
        word = VERDICT_WORDS.get(verdict, verdict)
        text.append(f"{word.capitalize()} by {who}",
                    style={"accept": "bold green", "reject": "bold red"}.get(verdict, "bold"))
        if decision.get("reason"):
            text.append(": ")
            text.append_text(_plain(decision.get("reason")))
        if decision.get("unsure"):
            text.append(" (unsure)", style="yellow")
        if decision.get("comment"):
            text.append(" — note: ", style=DIM)
            text.append_text(_plain(" ".join(str(decision.get("comment")).split())))
    return text


class SeedView(Static):
    """Left pane content: the seed problem."""

    def show_item(self, item: ReviewItem) -> None:
        self.update(render_seed(item))


class ArtifactView(Static):
    """Right pane content: the artifact being judged."""

    def show_item(self, item: ReviewItem) -> None:
        self.update(render_artifact(item))


def cut_key(key: str, limit: int) -> str:
    """An item's key (escaped, one line) in at most ``limit`` characters, cut only where there
    is no room and never in its distinguishing part: a derived item's ``~set.tag`` (the
    transform and index that tell one parent's items apart) stays whole and so does its
    parent's id after the source, as far as there is room (``gs…-80~ladder.errors3``,
    ``…-80~ladder.errors3``: a cut in the middle read ``gs…0~ladder.errors3`` for the
    ladders of gsm8k-10, -20 ... -90); a key without one loses its middle."""
    text = one_line(key)
    if len(text) <= limit:
        return text
    head, sep, tail = text.rpartition("~")
    if not sep:
        head, tail = text, ""
    else:
        tail = sep + tail
    keep = limit - len(tail) - 1          # characters of the head beside the ellipsis
    if keep < 2 and sep:
        # no room for the whole set name: the parent's id and the tag stay, the set's
        # name (the same for every item of the set) is cut ('…83~counterf….cf+10')
        name, dot, tag = tail[1:].rpartition(".")
        parent = "…" + head.rpartition("-")[2]
        room = limit - len(parent) - 2 - len(dot) - len(tag)      # '~' and '…'
        if name and dot and room >= 1:
            return f"{parent}~{name[:room]}…{dot}{tag}"
    if keep < 2:
        return "…" + text[len(text) - max(limit - 1, 0):] if limit > 0 else ""
    front = (keep + 1) // 2
    source, dash, number = head.rpartition("-")
    if sep and source and dash and keep - front < len(number) + 1:
        front = max(keep - len(number) - 1, 0)   # the parent's id ('-80') first
    return head[:front] + "…" + head[len(head) - (keep - front):] + tail


class KeyedPane(VerticalScroll):
    """A pane titled by a label and an item's key, cut to the pane's width (:func:`cut_key`)
    whenever the key or the width changes: a width of 0 (not yet laid out) waits for the
    pane's first ``Resize``. Where the label and the whole key do not fit, the label is
    shortened before the key is cut."""

    #: room the border takes beside the title (``╭─ `` and `` ─╮``)
    BORDER_ROOM = 6

    def __init__(self, label: str, short_label: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.label, self.short_label = label, short_label
        self.key: str | None = None

    def on_mount(self) -> None:
        self._retitle()

    def show_key(self, key: str | None) -> None:
        self.key = key
        self._retitle()

    def on_resize(self, event: events.Resize) -> None:
        self._retitle()

    def _retitle(self) -> None:
        if self.key is None:
            self.border_title = self.label
            return
        room = self.outer_size.width - self.BORDER_ROOM
        full = f"{self.label} · {one_line(self.key)}"
        if room <= 0 or len(full) <= room:     # not laid out yet, or room for all of it
            self.border_title = full
            return
        short = f"{self.short_label} · "
        self.border_title = short + cut_key(self.key, max(room - len(short), 1))


def pane_title(item: ReviewItem | None) -> str:
    if item is None:
        return "Artifact"
    return sentence_case(noun(item.dimension, 1))


__all__ = ["KeyedPane", "cut_key", "SeedView", "ArtifactView", "render_seed", "render_artifact",
           "render_verdicts", "pane_title", "noun"]
