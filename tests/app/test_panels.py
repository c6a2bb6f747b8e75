from __future__ import annotations

from rich.console import Console

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
