"""A review pane's title cuts an item's key only where there is no room and keeps what tells
items apart: a derived item's ``~set.tag`` and its parent's id (walk7: at 80x24 the seed
pane read 'Seed · gs…0~ladder.errors3', which gsm8k-10, -20 ... -90's ladders all read)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from qcstation.widgets.review_views import KeyedPane, cut_key


class _Panes(App[None]):
    def compose(self) -> ComposeResult:
        yield KeyedPane("Seed problem", "Seed", id="pane")

    CSS = "#pane { width: 32; height: 5; border: round white; }"


async def test_a_derived_items_parent_id_stays_whole_in_a_narrow_pane_title() -> None:
    app = _Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(KeyedPane)
        for key in ("gsm8k-80~ladder.errors3", "gsm8k-10~ladder.errors3",
                    "gsm8k-83~counterfactual.cf+10"):
            pane.show_key(key)
            await pilot.pause()
            title = str(pane.border_title)
            assert len(title) <= 32 - KeyedPane.BORDER_ROOM, title
            parent, _, tail = key.partition("~")
            assert title.endswith("." + tail.rpartition(".")[2]), title      # the tag whole
            assert parent.rpartition("-")[2] in title.split("~")[0], title   # the parent's id
            if len(key) <= 21:                                   # room for the set's name
                assert title.endswith("~" + tail), title
        pane.show_key("gsm8k-7")                                 # room: whole
        await pilot.pause()
        assert str(pane.border_title) == "Seed problem · gsm8k-7"


def test_cut_key_keeps_the_parents_id_then_what_room_is_left_of_its_source() -> None:
    assert cut_key("gsm8k-80~ladder.errors3", 19) == "…-80~ladder.errors3"
    assert cut_key("gsm8k-80~ladder.errors3", 21) == "gs…-80~ladder.errors3"
    assert cut_key("gsm8k-1234~dyn.v3", 12) == "…1234~dyn.v3"
    assert cut_key("gsm8k-83~counterfactual.cf+10", 19) == "…83~counterf….cf+10"
    assert cut_key("gsm8k-17", 40) == "gsm8k-17"
