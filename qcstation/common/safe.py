"""Make untrusted text safe to show: in a terminal, a Markdown file, a log, a Rich renderable.

Seed fields, model output, annotator names, reject reasons and notes come from outside.
Written raw to a terminal, ``ESC ] 0 ; … BEL`` retitles the window, ``ESC [2J`` clears it,
``\\r`` and ``\\b`` overwrite what was printed, bidi overrides reorder it. Every output
boundary passes such text through one of these functions, which show each dangerous
character *visibly* (``\\x1b``, ``\\r``, ``\\u202e``) instead of dropping it, so a reviewer
sees that the data holds it.

- :func:`printable` — C0 controls (except newline and tab, kept by default), DEL, C1
  controls, bidi embeddings/overrides/isolates, line/paragraph separators and lone
  surrogates are replaced by a visible escape.
- :func:`one_line` — the same, with newline and tab escaped too (names, reasons in tables).
- :func:`markdown` — one line, then Markdown and HTML specials escaped (datasheets).
- :func:`markup` — :func:`printable`, then Rich console markup escaped (``[`` …).
- :func:`json_safe` — a JSON document whose dangerous characters are ``\\uXXXX`` escapes.

Domain code (no Textual import): usable from the CLI, the app, exports and logs.
"""

from __future__ import annotations

import re

__all__ = ["printable", "one_line", "markdown", "markup", "json_safe", "has_unsafe", "UNSAFE"]

_NAMED = {"\r": "\\r", "\b": "\\b", "\x1b": "\\x1b", "\x07": "\\a", "\x0b": "\\v",
          "\x0c": "\\f", "\x00": "\\0", "\n": "\\n", "\t": "\\t"}

#: Characters never written raw: C0 controls, DEL, C1 controls, bidi embeddings,
#: overrides and isolates, LRM/RLM/ALM, line and paragraph separators, lone surrogates.
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]"
)
_UNSAFE_KEEP_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: object, *, keep_newlines: bool = True) -> str:
    """``text`` (any object, ``str()``-ed) with every control character shown as a visible
    escape. Newlines and tabs are kept unless ``keep_newlines`` is false."""
    s = text if isinstance(text, str) else str(text)
    pattern = _UNSAFE_KEEP_LINES if keep_newlines else UNSAFE
    return pattern.sub(_escape, s)


def one_line(text: object, limit: int | None = None) -> str:
    """:func:`printable` on one line (newlines and tabs escaped), cut to ``limit`` characters
    with an ellipsis when longer."""
    s = printable(text, keep_newlines=False)
    if limit is not None and len(s) > limit:
        s = s[: max(0, limit - 1)] + "…"
    return s


#: Characters that start emphasis, code, links or table cells anywhere in a line
#: (``<`` ``>`` ``&`` become entities first; values never start a line in our writers).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def markdown(text: object, limit: int | None = None) -> str:
    """Untrusted text as inert Markdown inside a line: controls escaped visibly, HTML made
    text (``&`` ``<`` ``>`` as entities), emphasis/code/link/table punctuation
    backslash-escaped."""
    s = one_line(text, limit)
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def markup(text: object, *, keep_newlines: bool = True) -> str:
    """Untrusted text to embed in a Rich console-markup string: controls escaped visibly,
    then every ``[`` escaped so it cannot open a tag."""
    from rich.markup import escape

    return escape(printable(text, keep_newlines=keep_newlines))


def json_safe(document: str) -> str:
    """A JSON text (as made by ``json.dumps(..., ensure_ascii=False)``) with the characters
    JSON leaves raw (DEL, C1, bidi, separators) written as ``\\uXXXX``: still valid JSON,
    same data, but inert in a terminal."""
    return _UNSAFE_KEEP_LINES.sub(lambda m: f"\\u{ord(m.group(0)):04x}", document)


def has_unsafe(text: str, *, keep_newlines: bool = True) -> bool:
    """Does ``text`` hold a character :func:`printable` would escape?"""
    pattern = _UNSAFE_KEEP_LINES if keep_newlines else UNSAFE
    return pattern.search(text) is not None
