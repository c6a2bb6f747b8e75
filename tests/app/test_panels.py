from __future__ import annotations

from collections.abc import Iterator

import pytest
from rich.console import Console
from rich.text import Text

from qcstation.widgets.dashboard_panels import render_counts


def _text(renderable: object) -> str:
    console = Console(width=80, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_counts_say_which_items_need_a_model() -> None:
    counts = {"seeds": {"mawps": {"active": 10}},
              "artifacts": {"reasoning": {"verified": 4}},
              "needs_model": {"reasoning": 6, "arithmetic": 0}}
    text = _text(render_counts(counts))
    assert "Need a model" in text and "reasoning 6" in text and "arithmetic" not in text.split("Need")[1]


def test_no_model_line_when_rules_covered_everything() -> None:
    text = _text(render_counts({"seeds": {}, "artifacts": {}, "needs_model": {"reasoning": 0}}))
    assert "Need a model" not in text


def test_a_replacement_shows_why_its_predecessor_was_rejected() -> None:
    from qcstation.core.review.items import ReviewItem
    from qcstation.widgets.review_views import _version_line

    item = ReviewItem(item_id=1, sample_id=1, seed_id=1, artifact_id=9, dimension="arithmetic",
                      source="gsm8k", position=0, overlap=False, question="q", gold_answer="1",
                      content={}, verify_result=None, artifact_version=2, replaces_id=5, smtlib=None,
                      replaces_reason="story words [left] in")
    text = _version_line(item).plain
    assert "replaces #5" in text and "rejected: story words [left] in" in text


def _passed_dimension(name: str):
    from qcstation.core.review.gate import GateStatus
    from qcstation.messages import DimensionQC

    gate = GateStatus(dimension=name, passed=True, rule="", reviewed=59, defects=0,
                      upper_bound=0.0495, threshold=0.05, open_rejects=0, blockers=[],
                      next_step="nothing: the gate passes")
    return DimensionQC(name, None, None, gate)


def test_all_gates_pass_says_whether_a_release_is_approved_and_what_comes_next() -> None:
    from qcstation.widgets.dashboard_panels import attention_items

    dims = [_passed_dimension("arithmetic"), _passed_dimension("understanding")]
    before = attention_items(dims, curator=True)
    assert [(a.text, a.action) for a in before] == [
        ("All QC gates pass — press l to approve a release", "releases")]
    after = attention_items(dims, curator=True, released="smart@1.0.0")
    assert [(a.text, a.action) for a in after] == [
        ("All QC gates pass — approved as smart@1.0.0. Next: evaluate models on it — press v "
         "(a new version after the data changes: press l)", "eval_runs")]
    reader = attention_items(dims, curator=False, released="smart@1.0.0")
    assert reader[0].text.endswith("(a new version after the data changes: a curator does this)")
    # a release name is outside text: shown with its control characters escaped
    odd = attention_items(dims, curator=True, released="smart\x1b[2J@1")
    assert "\x1b" not in odd[0].text


def test_with_no_model_the_gate_never_says_regenerate_and_counts_read_with_separators() -> None:
    """At a million seeds the dashboard said 'next: Regenerate 14637 rejected items' beside
    'no model is configured, so regenerating would make the same text': the next step now
    reads as what helps, and big counts carry thousands separators."""
    from qcstation.core.review.gate import GateStatus, Progress
    from qcstation.messages import DimensionQC
    from qcstation.widgets.dashboard_panels import attention_items, render_gate_summary

    gate = GateStatus(dimension="arithmetic", passed=False, rule="", reviewed=190_281,
                      defects=14_637, upper_bound=0.078, threshold=0.5, open_rejects=14_637,
                      blockers=[], next_step="regenerate 14,637 rejected items; then review "
                      "3 more items")
    progress = Progress(total=190_281, reviewed=190_281, accepted=175_644, rejected=14_637,
                        skipped=0, remaining=0)
    dims = [DimensionQC("arithmetic", None, progress, gate)]
    offline = " ".join(_text(render_gate_summary(dims, has_model=False)).split())
    assert "Regenerate" not in offline and "regenerate 14" not in offline
    assert "next: Fix 14,637 rejected items in place or exclude them" in offline
    assert "then review 3 more items" in offline
    assert "190,281 of 190,281 reviewed, 14,637 rejected" in offline
    assert "from 14,637 of 190,281 random draws" in offline
    online = " ".join(_text(render_gate_summary(dims, has_model=True)).split())
    assert "next: Regenerate 14,637 rejected items" in online
    [said] = [a.text for a in attention_items(dims, has_model=False, curator=True)
              if "rejected" in a.text]
    assert said.startswith("14,637 rejected notation questions await a fix")
    counts = _text(render_counts({"seeds": {"gsm8k": {"active": 570_843}}, "artifacts": {}}))
    assert "570,843" in counts


async def test_a_panel_measures_its_content_once_per_content_and_width() -> None:
    """Textual forgets a widget's height on every repaint; a dashboard panel keeps it while
    its content and width stay (measuring a table renders it whole), and measures again
    when either changes."""
    from textual.app import App, ComposeResult

    from qcstation.widgets.dashboard_panels import Panel

    class Counted:
        def __init__(self, lines: int) -> None:
            self.lines = lines
            self.renders = 0

        def __rich_console__(self, console: object, options: object) -> Iterator[Text]:
            self.renders += 1
            yield Text("\n".join(f"line {n}" for n in range(self.lines)))

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Panel(id="p")

    first, second = Counted(3), Counted(5)
    app = One()
    async with app.run_test(size=(40, 20)) as pilot:
        panel = app.query_one(Panel)
        panel.update(first)
        await pilot.pause()
        assert panel.size.height == 3
        measured = first.renders
        for _ in range(3):                       # repaints: Textual drops its own cache
            panel.refresh(layout=True)
            await pilot.pause()
        assert panel.size.height == 3
        # painted again, never measured again: at most one render per repaint
        assert first.renders - measured <= 3
        panel.update(second)
        await pilot.pause()
        assert panel.size.height == 5
        await pilot.resize_terminal(30, 20)
        await pilot.pause()
        assert panel.size.height == 5 and panel.size.width == 30


def test_held_posts_arrive_together_and_never_wait_for_a_slow_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard's loader holds what it read for a moment so the parts arrive together
    (one layout); a part read before a slow read is posted by the timer while that read
    still blocks, and a cancelled load's parts are dropped."""
    import threading
    import time

    from textual.message import Message

    import screens._base
    from screens._base import HeldMessages, HeldPosts

    # The timer's clock starts only once both parts are held: on a busy machine the test's
    # thread can be off the CPU between the two calls for longer than ``within``, and the
    # timer would then post the first part alone (the machine's speed deciding the test).
    both_held = threading.Event()

    class HeldTimer(threading.Timer):
        def run(self) -> None:
            both_held.wait(60)
            super().run()

    monkeypatch.setattr(screens._base.threading, "Timer", HeldTimer)

    class Sink:
        def __init__(self) -> None:
            self.got: list[Message] = []

        def post_message(self, message: Message) -> bool:
            self.got.append(message)
            return True

    sink = Sink()
    show = HeldPosts(sink, within=0.05)   # type: ignore[arg-type]
    a, b = Message(), Message()
    show(a)
    show(b)
    both_held.set()
    slow_read = threading.Event()            # never set: the read after b blocks
    deadline = time.monotonic() + 300
    while not sink.got and time.monotonic() < deadline:
        slow_read.wait(0.01)
    # both, in order, as one message (one handler call: one layout), while the read blocks
    assert len(sink.got) == 1 and isinstance(sink.got[0], HeldMessages)
    assert sink.got[0].messages == [a, b]
    c = Message()
    show(c)
    show.flush()
    assert sink.got[1:] == [c]               # a part alone comes as itself
    show(Message())
    show.flush(post=False)                   # cancelled: dropped, and its timer stopped
    time.sleep(0.1)
    assert sink.got[1:] == [c] and len(sink.got) == 2
