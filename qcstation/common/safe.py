"""Make untrusted text safe to show: in a terminal, a Markdown file, a log, a Rich renderable.

Seed fields, model output, annotator names, reject reasons and notes come from outside.
Written raw to a terminal, ``ESC ] 0 ; … BEL`` retitles the window, ``ESC [2J`` clears it,
``\\r`` and ``\\b`` overwrite what was printed, bidi overrides reorder it, and a zero-width
space or a BOM hides in a word. One policy, in every pane, table, report and log:

- **one class of hidden characters**, :data:`HIDDEN`: every character of the Unicode
  categories Cc (controls, DEL, C1), Cf (format: zero-width space and joiners, LRM/RLM, the
  Arabic letter mark, bidi embeddings, overrides and isolates, word joiner and invisible
  operators, BOM, soft hyphen, tags...), Cs (lone surrogates), Zl and Zp (line and paragraph
  separators);
- **one visible form**, :func:`escape_code`: ``\\n`` ``\\t`` ``\\r`` ``\\0`` ``\\a``
  ``\\b`` ``\\v`` ``\\f`` by name, every other one as Python writes it (``\\x1b``,
  ``\\u200b``, ``\\ufeff``, ``\\U000e0001``). A zero-width character or a BOM reads the
  same in the review pane, the results pane, a results table, a report and a log line.

The functions differ only in layout (what happens to newlines and tabs, cutting, the markup
of their output), never in which characters are hidden or how one is shown:

- :func:`printable` — newline and tab kept (multi-line text); :func:`one_line` — escaped too;
  :func:`one_line_middle` — cut in its middle (a name whose end tells it apart).
- :func:`markdown` — one line, then Markdown and HTML specials escaped (datasheets).
- :func:`markup` — :func:`printable`, then Rich console markup escaped (``[`` …).
- :func:`pane_text` / :func:`preview` — model output in the evaluation screens: tabs
  expanded, CR dropped, long texts cut with a note.
- :func:`inline_value` — a value on one line (``check-answer``).
- :func:`nonprintable_escaped` — one line cut to a length (``qcstation audit``).
- :func:`message_text` — one line of an error message read from a file (batch outputs).
- :func:`quoted` — a text named in an error message, on one line in single quotes (where
  ``repr`` would escape a second time: its backslashes doubled).
- :func:`display_text` — one line of a results table (``eval`` actions, reports): tabs and
  line ends spaces, runs of spaces one space.
- :func:`json_safe` — a JSON document whose hidden characters are ``\\u`` escapes of four hex digits (the
  JSON form of the same class: still valid JSON, the same data).
- :func:`spaced` — text to *store* (a name, a reason), not to show: the hidden characters
  become spaces instead of escapes.

Domain code (no Textual import): usable from the CLI, the app, exports and logs.
"""

from __future__ import annotations

import re

__all__ = ["printable", "one_line", "one_line_middle", "markdown", "markup", "json_safe", "has_unsafe", "UNSAFE",
           "HIDDEN", "escape", "escape_code", "pane_text", "preview", "inline_value", "nonprintable_escaped",
           "message_text", "spaced", "display_text", "quoted"]

#: The one class of hidden characters, never written raw anywhere (every pane, table, report
#: and log): the Unicode categories Cc, Cf, Cs, Zl and Zp (as of Unicode 15; the test
#: ``tests/common/test_safe_text.py`` holds it against ``unicodedata``).
_BEYOND_C0 = ("\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
              "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff"
              "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
              "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
HIDDEN = "\x00-\x1f" + _BEYOND_C0      # as a regular-expression class body
UNSAFE = re.compile(f"[{HIDDEN}]")
#: the same, newline and tab kept (multi-line text)
_UNSAFE_KEEP_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")
#: the same, the newline alone kept (kept, or made a space, before escaping)
_PANE = re.compile(f"[\x00-\x09\x0b-\x1f{_BEYOND_C0}]")

#: the classes that match hidden characters only: none of printable ASCII
_HIDDEN_ONLY = (UNSAFE, _UNSAFE_KEEP_LINES, _PANE)

#: the few hidden characters shown by name; the others as Python writes them
_NAMED = {"\x00": "\\0", "\x07": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n",
          "\x0b": "\\v", "\x0c": "\\f", "\r": "\\r"}


def escape_code(ch: str) -> str:
    """One hidden character in its one visible form: by name (``\\n``, ``\\t``, ``\\r``,
    ``\\0``, ``\\a``, ``\\b``, ``\\v``, ``\\f``), else ``\\xNN``, ``\\uNNNN`` or
    ``\\UNNNNNNNN`` (as Python writes it)."""
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape(text: str, chars: re.Pattern[str] = UNSAFE) -> str:
    """``text`` with every character ``chars`` matches (by default the hidden class) in its
    visible form (:func:`escape_code`). The one sanitiser: every function here is this.
    Printable ASCII (most keys, names and states) has nothing the hidden classes match and
    is returned as it is, without the regular expression (the queue's 2,000 rows made ~30,000
    calls for a Ctrl+End at 1M seeds)."""
    if chars in _HIDDEN_ONLY and text.isascii() and text.isprintable():
        return text
    return chars.sub(lambda m: escape_code(m.group(0)), text)


def printable(text: object, *, keep_newlines: bool = True) -> str:
    """``text`` (any object, ``str()``-ed) with every hidden character escaped. Newlines and
    tabs are kept unless ``keep_newlines`` is false."""
    s = text if isinstance(text, str) else str(text)
    return escape(s, _UNSAFE_KEEP_LINES if keep_newlines else UNSAFE)


def one_line(text: object, limit: int | None = None) -> str:
    """:func:`printable` on one line (newlines and tabs escaped), cut to ``limit`` characters
    with an ellipsis when longer."""
    s = printable(text, keep_newlines=False)
    if limit is not None and len(s) > limit:
        s = s[: max(0, limit - 1)] + "…"
    return s


def one_line_middle(text: object, limit: int) -> str:
    """:func:`printable` on one line, cut in its middle to ``limit`` characters with an
    ellipsis when longer: both ends stay, so names that differ only in their end (a version
    suffix, ``…-variants-v1`` and ``…-variants-v2``) still read apart."""
    s = printable(text, keep_newlines=False)
    if len(s) <= limit:
        return s
    if limit < 2:
        return "…"[:max(limit, 0)]
    head = (limit - 1) // 2
    return s[:head] + "…" + s[len(s) - (limit - 1 - head):]


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
    JSON leaves raw (the hidden class but newline and tab, which JSON escapes itself) written
    as ``\\u`` escapes (``\\u200b``): still valid JSON, same data, but inert in a terminal."""
    return _UNSAFE_KEEP_LINES.sub(lambda m: _json_escape(m.group(0)), document)


def _json_escape(ch: str) -> str:
    """One character as JSON writes it: ``\\u`` and four hex digits (``\\u200b``), a surrogate pair above U+FFFF."""
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def has_unsafe(text: str, *, keep_newlines: bool = True) -> bool:
    """Does ``text`` hold a character :func:`printable` would escape?"""
    pattern = _UNSAFE_KEEP_LINES if keep_newlines else UNSAFE
    return pattern.search(text) is not None


# -- layouts of their own (the same class, the same form) ------------------------------------

#: the longest text :func:`pane_text` shows of one response / prompt message
MAX_SHOWN_CHARS = 20_000


def pane_text(text: object, *, keep_newlines: bool = True,
              limit: int | None = MAX_SHOWN_CHARS) -> str:
    """Untrusted text (model output) for a pane: hidden characters escaped so it can never
    move the cursor, recolour the terminal or reorder what is shown; newlines kept (``keep_newlines``; else spaces), tabs
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
    """A value printed on one line: every hidden character (newlines too) escaped."""
    return escape(text)


def nonprintable_escaped(text: object, limit: int = 300) -> str:
    """Untrusted text for a terminal line (``qcstation audit``): every hidden character
    escaped (newlines too), cut to ``limit`` characters."""
    s = escape(str(text)[: limit * 4])
    return s if len(s) <= limit else s[: limit - 1] + "…"


def message_text(text: object, limit: int = 300) -> str:
    """Untrusted text for a one-line message: cut at ``limit`` characters (an ellipsis added),
    then controls and line separators shown as escapes."""
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + "…"
    return escape(s)


def quoted(text: object, limit: int | None = None) -> str:
    """``text`` named in a message: :func:`one_line` (cut to ``limit``) in single quotes. Not
    ``repr``, which escapes in a form of its own and doubles every backslash, so text
    escaped before, or escaped again when shown, would read ``\\x1b``."""
    return f"'{one_line(text, limit)}'"


def spaced(text: object, *, keep_newlines: bool = False) -> str:
    """Text to store or compare, not to show: every hidden character (:data:`HIDDEN`, the
    one class) becomes a space (newlines kept with ``keep_newlines``). Nothing is collapsed
    or cut."""
    return (_PANE if keep_newlines else UNSAFE).sub(" ", str(text))


def display_text(text: object, limit: int = 80) -> str:
    """Untrusted text for one line of a table of results (the ``eval`` actions and reports):
    tabs and line ends spaces, every other hidden character escaped, runs of spaces one
    space, long text cut with an ellipsis."""
    s = "" if text is None else str(text)
    if len(s) > limit * 4:
        s = s[: limit * 4]
    s = escape(s.replace("\t", " ").replace("\n", " ").replace("\r", " "))
    s = re.sub(r" {2,}", " ", s).strip()
    return s if len(s) <= limit else s[: limit - 1] + "…"
