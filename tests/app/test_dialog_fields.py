"""Dialogs of several fields (``screens/dialogs/fields.OrderedFields``): Enter moves to the
next field, submits on the last, and on an input that is not one of the fields it is that
input's own Enter (it submits it)."""

from __future__ import annotations

from textual import on
from textual.app import App, ComposeResult
from textual.widgets import Input

from screens.dialogs.fields import OrderedFields


class _Two(OrderedFields):
    FIELDS = ("first", "second")

    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(id="first")
        yield Input(id="second")
        yield Input(id="other")

    def submit_fields(self) -> None:
        self.events.append("fields " + "/".join(self.query_one(f"#{n}", Input).value
                                                 for n in self.FIELDS))

    @on(Input.Submitted, "#other")
    def _other(self, event: Input.Submitted) -> None:
        self.events.append(f"other {event.value}")


async def test_enter_moves_on_submits_the_last_and_is_an_other_inputs_own() -> None:
    dialog = _Two()

    class _App(App[None]):
        def on_mount(self) -> None:
            self.push_screen(dialog)

    app = _App()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dialog.set_focus(dialog.query_one("#other", Input))
        await pilot.press("o", "k", "enter")
        await pilot.pause()
        # the other input's Enter submits it (it used to create a coroutine and drop it)
        assert dialog.events == ["other ok"]
        dialog.set_focus(dialog.query_one("#first", Input))
        await pilot.press("a", "enter", "b", "enter")
        await pilot.pause()
        assert dialog.events == ["other ok", "fields a/b"]
