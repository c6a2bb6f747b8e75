"""Make untrusted text safe to show: in a terminal, a Markdown file, a log, a Rich renderable.

Seed fields, model output, annotator names, reject reasons and notes come from outside.
Written raw to a terminal, ``ESC ] 0 ; … BEL`` retitles the window, ``ESC [2J`` clears it,
``\\r`` and ``\\b`` overwrite what was printed, bidi overrides reorder it. Every output
boundary passes such text through one of these functions, which show each dangerous
character *visibly* (``\\x1b``, ``\\r``, ``\\u202e``) instead of dropping it, so a reviewer
sees that the data holds it. Every function escapes (at least) the same class of hidden
characters (``UNSAFE``: controls, zero-width characters, bidi marks, separators, BOM, lone
surrogates): a zero-width space or a BOM is as visible in the review pane as in the results
pane. (What differs is the form of the escape and what happens to newlines and tabs.)

- :func:`printable` — every hidden character (newline and tab kept by default) replaced by
  a visible escape.
- :func:`one_line` — the same, with newline and tab escaped too (names, reasons in tables).
- :func:`markdown` — one line, then Markdown and HTML specials escaped (datasheets).
- :func:`markup` — :func:`printable`, then Rich console markup escaped (``[`` …).
- :func:`json_safe` — a JSON document whose dangerous characters are ``\\uXXXX`` escapes.

Some outputs keep rules of their own, all made by the one escape here (:func:`escape`,
``\\xNN`` / ``\\uNNNN`` / ``\\UNNNNNNNN``, a few characters by name), each over the character
class its output needs:

- :func:`pane_text` / :func:`preview` — model output in the evaluation screens: invisible
  characters (zero-width, word joiners, BOM) shown too, tabs expanded, CR dropped, long
  texts cut with a note.
- :func:`inline_value` — a value on one line (``check-answer``): every control, zero-width
  and bidi character, newlines included.
- :func:`nonprintable_escaped` — every character Python does not call printable
  (``qcstation audit`` lines).
- :func:`message_text` — one line of an error message read from a file (batch outputs).
- :func:`display_text` — one line of a results table (``eval`` actions, reports):
  controls and format characters as ``<U+XXXX>``, whitespace runs collapsed.
- :func:`spaced` — text to *store* (a name, a reason): non-printable characters become
  spaces instead of escapes.

Domain code (no Textual import): usable from the CLI, the app, exports and logs.
"""

from __future__ import annotations

import re

__all__ = ["printable", "one_line", "markdown", "markup", "json_safe", "has_unsafe", "UNSAFE",
           "escape", "pane_text", "preview", "inline_value", "nonprintable_escaped",
           "message_text", "spaced", "display_text"]

_NAMED = {"\r": "\\r", "\b": "\\b", "\x1b": "\\x1b", "\x07": "\\a", "\x0b": "\\v",
          "\x0c": "\\f", "\x00": "\\0", "\n": "\\n", "\t": "\\t"}

#: The one class of hidden characters, never written raw anywhere (every pane, table, report
#: and log): C0 controls, DEL, C1 controls, the Arabic letter mark, zero-width space and
#: joiners, LRM/RLM, line and paragraph separators, bidi embeddings, overrides and isolates,
#: word joiner and invisible operators, BOM, lone surrogates.
_HIDDEN = ("\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
           "\ud800-\udfff")
UNSAFE = re.compile(f"[\x00-\x1f{_HIDDEN}]")
#: the same, newline and tab kept (multi-line text)
_UNSAFE_KEEP_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_HIDDEN}]")


def escape_code(ch: str, names: dict[str, str] | None = None) -> str:
    """One character as a visible escape: its name in ``names`` if there, else ``\\xNN``,
    ``\\uNNNN`` or ``\\UNNNNNNNN`` (as Python writes it)."""
    if names is not None:
        named = names.get(ch)
        if named is not None:
            return named
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape(text: str, chars: re.Pattern[str], *, names: dict[str, str] | None = None) -> str:
    """``text`` with every character ``chars`` matches shown as a visible escape
    (:func:`escape_code`). The one sanitiser: every function here is this over a class."""
    return chars.sub(lambda m: escape_code(m.group(0), names), text)


def printable(text: object, *, keep_newlines: bool = True) -> str:
    """``text`` (any object, ``str()``-ed) with every control character shown as a visible
    escape. Newlines and tabs are kept unless ``keep_newlines`` is false."""
    s = text if isinstance(text, str) else str(text)
    return escape(s, _UNSAFE_KEEP_LINES if keep_newlines else UNSAFE, names=_NAMED)


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


# -- outputs with rules of their own --------------------------------------------------------

#: the hidden characters but the newline (kept, or made a space, before escaping): model
#: output in the evaluation screens
_PANE = re.compile(f"[\x00-\x09\x0b-\x1f{_HIDDEN}]")
#: a value printed on one line, one line of a message: the hidden characters, newlines too
_INLINE = UNSAFE
_MESSAGE = UNSAFE
#: what ``str.isprintable`` refuses (every category C and Z but the space), one character
#: at a time; tab, newline and CR by name, as Python's ``unicode_escape`` writes them.
_PY_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

#: the longest text :func:`pane_text` shows of one response / prompt message
MAX_SHOWN_CHARS = 20_000


def pane_text(text: object, *, keep_newlines: bool = True,
              limit: int | None = MAX_SHOWN_CHARS) -> str:
    """Untrusted text (model output) for a pane: controls and invisible characters shown as
    escapes so it can never move the cursor, recolour the
    terminal or reorder what is shown; newlines kept (``keep_newlines``; else spaces), tabs
    as two spaces (one on one line), CR dropped (CRLF line ends). A text longer than
    ``limit`` characters is cut, with a note saying how much was left out."""
    if text is None:
        return ""
    s = text if isinstance(text, str) else str(text)
    cut = 0
    if limit is not None and len(s) > limit:
        cut = len(s) - limit
        s = s[:limit]
    s = s.replace("\r", "").replace("\t", "  " if keep_newlines else " ")
    if not keep_newlines:
        s = s.replace("\n", " ")
    shown = escape(s, _PANE)
    if cut:
        shown += f"\n… ({cut} more characters not shown)"
    return shown


def preview(text: object, width: int = 60) -> str:
    """A short single-line preview of untrusted text (:func:`pane_text` on one line, runs
    of whitespace collapsed), cut to ``width`` characters with an ellipsis."""
    flat = " ".join(pane_text(text, keep_newlines=False, limit=width * 4).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def inline_value(text: str) -> str:
    """A value printed on one line: every control, zero-width and bidi character (newlines
    too) shown as an escape."""
    return escape(text, _INLINE)


def nonprintable_escaped(text: object, limit: int = 300) -> str:
    """Untrusted text for a terminal line: every character ``str.isprintable`` refuses shown
    as Python would escape it (``\\n``, ``\\x1b``, ``\\u200b``), cut to ``limit`` characters."""
    s = str(text)[: limit * 4]
    s = "".join(ch if ch.isprintable() else escape_code(ch, _PY_NAMED) for ch in s)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def message_text(text: object, limit: int = 300) -> str:
    """Untrusted text for a one-line message: cut at ``limit`` characters (an ellipsis added),
    then controls and line separators shown as escapes."""
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + "…"
    return escape(s, _MESSAGE)


def spaced(text: object, *, keep_newlines: bool = False) -> str:
    """Text to store or compare, not to show: every character ``str.isprintable`` refuses
    becomes a space (newlines kept with ``keep_newlines``). Nothing is collapsed or cut."""
    keep = "\n" if keep_newlines else ""
    return "".join(ch if (ch.isprintable() or ch in keep) else " " for ch in str(text))


def display_text(text: object, limit: int = 80) -> str:
    """Untrusted text for one line of a table of results (the ``eval`` actions and reports):
    control and format characters become ``<U+XXXX>``, tabs and line ends spaces, runs of
    spaces one space, long text cut with an ellipsis."""
    import unicodedata

    s = "" if text is None else str(text)
    if len(s) > limit * 4:
        s = s[: limit * 4]
    out = []
    for ch in s:
        if ch in "\t\n\r":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            out.append(f"<U+{ord(ch):04X}>")
        else:
            out.append(ch)
    s = re.sub(r" {2,}", " ", "".join(out)).strip()
    return s if len(s) <= limit else s[: limit - 1] + "…"
