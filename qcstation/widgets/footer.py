"""The footer every screen and dialog shows: Textual's compact ``Footer``, its keys born
compact.

Textual's ``FooterKey`` takes its ``-compact`` class from a watcher that runs once the key is
mounted, and adding a class there restyles the key at once: a second stylesheet pass over
every key, each time the footer is rebuilt (on every screen shown and every change of focus
or of the keys on offer). The keys made here carry the class from the start, so the watcher
finds nothing to change: the same footer, one styling pass (about 35 ms of CPU less per
screen shown at 80x24).

Textual also rebuilds the footer whenever the screen's bindings may have changed (each change
of focus, each ``refresh_bindings``): ten times, ~25 ms of CPU each, while the review screen
showed its first item at 1M seeds, the keys the same every time. The footer here is rebuilt
only when the keys it shows (key, label, action, enabled, tooltip) changed.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """``Footer(show_command_palette=False, compact=True)``, its keys compact from birth."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id, show_command_palette=False, compact=True)
        self._composed: tuple[Any, ...] | None = None    # the keys shown (None: none built)

    def _keys_shown(self) -> tuple[Any, ...]:
        """What :meth:`compose` makes of the screen's bindings, as comparable values."""
        if not self._bindings_ready:
            return ()
        return tuple((b.key, self.app.get_key_display(b), b.description, b.action, enabled,
                      tooltip, b.group.description if b.group else None)
                     for (_, b, enabled, tooltip) in self.screen.active_bindings.values()
                     if b.show)

    async def recompose(self) -> None:
        if not self.is_attached or self._pruning:
            return                     # leaving its screen (Textual's own recompose does the same)
        if self._composed is not None and self._keys_shown() == self._composed:
            return                     # the same keys: nothing to rebuild
        await super().recompose()

    def compose(self) -> ComposeResult:
        # the keys from the first compose, with the screen's own: Textual's footer composes
        # empty and builds its keys once the screen first says its bindings changed (a
        # second mount, styling and layout of every key after the screen's first frame);
        # a focus that brings other keys rebuilds it then, as before
        self.set_reactive(Footer._bindings_ready, True)
        self._composed = self._keys_shown()
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)
            yield widget
