"""The footer every screen and dialog shows: Textual's compact ``Footer`` drawn as one line.

Textual's ``Footer`` is a container of one ``FooterKey`` widget per key: each key is styled by
the stylesheet, measured (rendered) for its width, laid out and rendered on its own, on every
screen shown. At 1M seeds that was about a fifth of the results browser's first frame's CPU
(9 keys of its 18 widgets). :class:`KeyFooter` draws the same line itself: each key as a
``FooterKey`` renders it (the key, the description, the key's styles from Textual's CSS,
``-disabled`` keys dim), a column of the footer's background after each key (the compact
footer's margin), the footer's background to the end. The styles come from ``FooterKey``
*templates*: hidden children (``display: none``; one enabled, one disabled, and once the mouse
is over the footer, the same two hovered), styled by the stylesheet like the keys they stand
for but never laid out or drawn. ``tests/app/test_footer.py`` compares the line with Textual's
footer's, cell by cell, on every screen. A key's cells are kept by what they are made of (its
text with its styles, the template's classes and colours, the app's theme), for every footer:
most of a screen's keys are those of the screen before (``f1 Help``, ``esc Back``).

A click on a key presses it (a disabled key rings the bell), as on a ``FooterKey``; the mouse
over a key shows its tooltip. The line is redrawn (never laid out again: its height is one)
only when the keys it shows change: Textual's footer was rebuilt on every change of focus or
``refresh_bindings`` (ten times, ~25 ms of CPU each, while the review screen showed its first
item at 1M seeds). Not kept from Textual's footer: binding groups (a group's keys under one
label; no screen here uses one) and the footer's mouse-wheel scroll (every footer here fits
80 columns; a longer one is cut at the screen's edge).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual._styles_cache import StylesCache
from textual.app import ComposeResult
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets._footer import FooterKey


#: each key's strip by what it is made of, shared by every footer (a screen's keys are mostly
#: those of the screen before: f1 Help, esc Back)
_KEY_STRIPS: LRUCache[tuple[Any, ...], Strip] = LRUCache(256)


@dataclass(frozen=True)
class ShownKey:
    """A key as the footer shows it."""

    key: str
    display: str
    description: str
    action: str
    enabled: bool
    tooltip: str


class KeyFooter(Widget, can_focus=False):
    """The screen's keys on one line, as Textual's ``Footer(compact=True)`` shows them."""

    ALLOW_SELECT = False
    DEFAULT_CSS = """
    KeyFooter {
        color: $footer-foreground;
        background: $footer-background;
        dock: bottom;
        height: 1;
        FooterKey {
            display: none;
        }
        FooterKey.-hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._keys: tuple[ShownKey, ...] | None = None     # None: not read yet
        self._spans: list[tuple[int, int, ShownKey]] = []  # each key's columns on the line
        self._line: tuple[tuple[Any, ...], Strip] | None = None
        self._hover: ShownKey | None = None
        self._hover_templates = False

    # -- the keys ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # the templates: their styles are the keys' (enabled, disabled), never drawn
        yield FooterKey("", "", "", "", classes="-compact")
        yield FooterKey("", "", "", "", disabled=True, classes="-compact")

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._check_keys)

    def _check_keys(self) -> None:
        """Redraw the line if the keys it shows changed (nothing to lay out: one line)."""
        if not self.is_attached or self._keys is None:
            return
        keys = self._keys_shown()
        if keys != self._keys:
            self._keys = keys
            self.refresh()

    def _keys_shown(self) -> tuple[ShownKey, ...]:
        """The screen's keys as Textual's footer shows them: the bindings shown, the first
        of each action's."""
        seen: dict[str, ShownKey] = {}
        for (_, binding, enabled, tooltip) in self.screen.active_bindings.values():
            if binding.show and binding.action not in seen:
                seen[binding.action] = ShownKey(binding.key, self.app.get_key_display(binding),
                                                binding.description, binding.action, enabled,
                                                tooltip)
        return tuple(seen.values())

    @property
    def keys(self) -> tuple[ShownKey, ...]:
        """The keys the line shows."""
        if self._keys is None:
            self._keys = self._keys_shown()
        return self._keys

    # -- drawing -------------------------------------------------------------------------
    def _template(self, enabled: bool, hover: bool) -> FooterKey:
        templates = list(self.query_children(FooterKey))
        index = (0 if enabled else 1) + (2 if hover and len(templates) == 4 else 0)
        return templates[index]

    def _key_strip(self, template: FooterKey, key: ShownKey) -> Strip:
        """The key as its ``FooterKey`` draws itself (its render, its content's strip, its
        styles' line); the footer's own line applies the app's filters once."""
        template.key_display = key.display
        template.description = key.description
        text = template.render()
        app = self.app
        # what the strip is made of: the key's text with its styles, the template's own
        # (its classes: enabled or not, hovered or not; its colours) and the app's colours
        made_of = (text.plain, tuple(text.spans), text.style, template.has_class("-disabled"),
                   template.has_class("-hover"), template.visual_style,
                   template.background_colors, app.theme, app.ansi_theme, app.native_ansi_color)
        kept = _KEY_STRIPS.get(made_of)
        if kept is not None:
            return kept
        width = text.cell_len
        visual: Visual = visualize(template, text, markup=False)
        content = Visual.to_strips(template, visual, width, 1, template.visual_style)
        base_background, background = template.background_colors
        strips = StylesCache().render(
            template.styles, Size(width, 1), base_background, background,
            lambda y: content[y] if y < len(content) else Strip.blank(width), [], None, None,
            content_size=Size(width, 1), padding=template.styles.padding,
            crop=Region(0, 0, width, 1), opacity=template.opacity,
            ansi_theme=app.ansi_theme, native_ansi=app.native_ansi_color)
        _KEY_STRIPS[made_of] = strips[0]
        return strips[0]

    def _render_keys(self, width: int) -> Strip:
        keys = self.keys
        state = (keys, width, self._hover, self._hover_templates)
        if self._line is not None and self._line[0] == state:
            return self._line[1]
        # the footer's own cells (a key's margin, the rest of the line): its background, as a
        # container's empty cells are drawn
        style = Style.from_color(bgcolor=self.rich_style.bgcolor)
        margin = Segment(" ", style)
        segments: list[Segment] = []
        spans: list[tuple[int, int, ShownKey]] = []
        x = 0
        for key in keys:
            strip = self._key_strip(self._template(key.enabled, key is self._hover), key)
            spans.append((x, x + strip.cell_length, key))
            segments.extend(strip)
            segments.append(margin)
            x += strip.cell_length + 1
        line = Strip(segments).adjust_cell_length(width, style)
        self._spans = spans
        self._line = (state, line)
        return line

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y:
            return Strip.blank(width, Style.from_color(bgcolor=self.rich_style.bgcolor))
        return self._render_keys(width)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._line = None

    # -- the mouse -----------------------------------------------------------------------
    def _key_at(self, x: int) -> ShownKey | None:
        if self._line is None:
            self._render_keys(self.size.width)
        return next((key for start, end, key in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self._key_at(event.x)
        if key is None:
            return
        if not key.enabled:
            self.app.bell()
        else:
            self.app.simulate_key(key.key)

    async def on_mouse_move(self, event: events.MouseMove) -> None:
        key = self._key_at(event.x)
        if key is not None and not self._hover_templates:
            self._hover_templates = True
            await self.mount(FooterKey("", "", "", "", classes="-compact -hover"),
                             FooterKey("", "", "", "", disabled=True, classes="-compact -hover"))
        if key is not self._hover:
            self._hover = key
            self.tooltip = (key.tooltip or None) if key is not None else None
            self.refresh()

    def on_leave(self) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()



