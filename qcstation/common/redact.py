"""The one scrubber of secrets: every text that comes from a model server passes here on its
way in, so an API key a server echoes (in the content, ``finish_reason``, ``model``,
``usage``, an error's message, a key of an object...) never reaches the database, a log,
the terminal or an export.

What counts as a secret: every key a model client reads (:meth:`ModelConfig.api_key
<qcstation.common.config.ModelConfig.api_key>` registers what it returns), and the value of
every environment variable whose name says it holds one (``*API_KEY*``, ``*TOKEN*``,
``*SECRET*``, ``*PASSWORD*``), read when the first key is registered. Values shorter than
8 characters are not treated as secrets (they would match ordinary words). A secret is
replaced by :data:`MARK` wherever it occurs, including inside a longer text; a text is
scrubbed *before* it is cut, so no prefix of a key survives an excerpt. A secret a server
disguises is one too when it is 16 characters or longer (an API key): in another case, or
with spaces, line breaks or invisible characters (zero-width, bidi, soft hyphen, BOM) between
its characters ("sk-a\u200bbc…", "SK-ABC…"). Such a secret is also matched spelled another
way (:class:`_Form`): reversed, in base64 (standard or URL-safe, at any byte offset, so also
inside the base64 of a longer text), in hex, percent-encoded, as ``\\u`` escapes (four hex
digits each) or HTML character references; and a part of it is matched in each of those
spellings when it holds at least half the secret (and :data:`PART_MIN_CHARS`): a key split in
two halves over two fields, or with its halves swapped or each reversed, is scrubbed piece by
piece.

Readers call :func:`scrub_json` on a parsed reply (every string, object keys included) and
:func:`scrub` on text they make from one. Both cost a substring test per secret when
nothing is to be replaced.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

MARK = "[key]"
MIN_SECRET_CHARS = 8
_SECRET_NAME = re.compile(r"(?i)(api_?key|token|secret|password|passwd)")

_lock = threading.Lock()
_known: set[str] = set()
_scanned = False
#: the secrets, longest first (a key that contains another is replaced whole)
_ordered: tuple[str, ...] = ()
_ordered_bytes: tuple[bytes, ...] = ()
#: a secret with a character JSON escapes other than by \\u (``"`` ``\\`` ``/``)
_escapable = False
#: per secret, the secret with anything a reader does not see between its characters, in any
#: case (str, and the raw UTF-8 / JSON-escaped bytes :func:`may_hold` reads)
_disguised: tuple[re.Pattern[str], ...] = ()
_disguised_bytes: tuple[re.Pattern[bytes], ...] = ()
#: those secrets as they read with every space taken out, in lower case (the quick test: a
#: text holds one disguised only if it holds a hidden character or, spaces taken out and in
#: lower case, the secret)
_folded: tuple[str, ...] = ()
_folded_bytes: tuple[bytes, ...] = ()
#: every secret's other spellings and parts (:func:`_forms`)
_spellings: tuple["_Form", ...] = ()
#: what a disguise may put between two characters: whitespace and the format characters a
#: terminal shows as nothing (the key's own characters are never among them, so matching is
#: linear: each run of them is taken whole)
_HIDDEN = "\\s\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff"
_FILL = f"[{_HIDDEN}]*"
_FILL_BYTES = (rb"(?:\s|\\[nrt]|\xc2[\xa0\xad]|\xe1\xa0\x8e|\xe2\x80[\x80-\x8f\xa8-\xaf]"
               rb"|\xe2\x81[\x9f-\xa4]|\xe3\x80\x80|\xef\xbb\xbf)*")
_HIDDEN_CHARS = re.compile(f"[{_HIDDEN}]")
_ASCII_SPACE = b" \t\r\n\x0b\x0c"
_LOWER = bytes.maketrans(bytes(range(65, 91)), bytes(range(97, 123)))
#: the hidden characters that are not ASCII whitespace
_INVISIBLE = re.compile("[\u00a0\u00ad\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]")


#: a secret read in any case and across hidden characters is at least this long (an API key):
#: a short one ("password1" in an environment variable) would match ordinary words
DISGUISED_MIN_CHARS = 16


def _disguise(secret: str) -> tuple[re.Pattern[str], re.Pattern[bytes]] | None:
    """The patterns of ``secret`` disguised (None when too little of it shows to tell it)."""
    shown = _HIDDEN_CHARS.sub("", secret)
    if len(shown) < DISGUISED_MIN_CHARS:
        return None
    text = _FILL.join(re.escape(c) for c in shown)
    raw = _FILL_BYTES.join(re.escape(c.encode("utf-8", "surrogatepass")) for c in shown)
    return re.compile(text, re.IGNORECASE), re.compile(raw, re.IGNORECASE)


def register(value: str | None) -> None:
    """Treat ``value`` as a secret from now on (ignored when shorter than 8 characters).
    The first call also reads the environment's secret-named variables."""
    global _scanned
    if not _scanned:
        _scanned = True
        for name, env_value in list(os.environ.items()):
            if _SECRET_NAME.search(name):
                _add(env_value)
    _add(value)


def saved() -> tuple[frozenset[str], bool]:
    """The registry as it is now, for :func:`restore` (tests: each starts from the same one)."""
    with _lock:
        return frozenset(_known), _scanned


def restore(state: tuple[frozenset[str], bool]) -> None:
    """Put back the registry :func:`saved` returned: the secrets registered since are forgotten."""
    global _scanned
    known, scanned = state
    if known == _known and scanned == _scanned:
        return
    with _lock:
        _known.clear()
        _known.update(known)
    _scanned = scanned
    _rebuild()


def _rebuild() -> None:
    global _ordered, _ordered_bytes, _escapable, _disguised, _disguised_bytes, _folded, _folded_bytes
    global _spellings
    with _lock:
        _ordered = tuple(sorted(_known, key=len, reverse=True))
        _ordered_bytes = tuple(s.encode("utf-8", "surrogatepass") for s in _ordered)
        _escapable = any(c in s for s in _ordered for c in '"\\/')
        made = [(s, d) for s in _ordered if (d := _disguise(s)) is not None]
        _disguised = tuple(d[0] for _, d in made)
        _disguised_bytes = tuple(d[1] for _, d in made)
        _folded = tuple("".join(_HIDDEN_CHARS.sub("", s).split()).lower() for s, _ in made)
        _folded_bytes = tuple(f.encode("utf-8", "surrogatepass") for f in _folded)
        _spellings = tuple(f for s in _ordered for f in _forms(s))


def _add(value: str | None) -> None:
    if not isinstance(value, str) or len(value) < MIN_SECRET_CHARS or value in _known:
        return
    with _lock:
        _known.add(value)
    _rebuild()


def _may_be_disguised(text: str) -> bool:
    """Whether ``text`` could hold a secret disguised (False: the patterns would not match)."""
    if not _disguised:
        return False
    if text.isascii():     # no invisible character: only spaces can be hidden between
        flat = text.encode().translate(_LOWER, _ASCII_SPACE)
        return any(f in flat for f in _folded_bytes)
    return _INVISIBLE.search(text) is not None or any(f in "".join(text.split()).lower()
                                                      for f in _folded)


#: a part of a secret (16+ characters) is matched when it holds at least this many of its
#: characters and at least half of them
PART_MIN_CHARS = 8


class _Form:
    """One spelling of a secret (the secret itself, reversed, base64, hex, ...) and the quick
    test for any part of it at least ``least`` characters long: the form cut in chunks of
    ``(least + 1) // 2`` characters, so any such part holds a whole chunk (then the match is
    grown from the chunk both ways). ``marker``: a text that every spelling holds (``%``,
    ``&#``), tested first."""

    __slots__ = ("text", "least", "chunks", "chunk_bytes", "marker")

    def __init__(self, text: str, least: int, marker: str | None = None, *, middle: bool = False) -> None:
        self.text = text
        self.least = least
        self.marker = marker
        size = max(1, (least + 1) // 2)
        if middle:      # one chunk: the middle of the form, which every part of ``least`` holds
            size = max(1, 2 * least - len(text))
            starts = [(len(text) - size) // 2]
        else:
            starts = list(range(0, max(1, len(text) - size + 1), size))
            if starts[-1] != len(text) - size and len(text) >= size:
                starts.append(len(text) - size)
        self.chunks = tuple((q, text[q:q + size]) for q in starts)
        self.chunk_bytes = tuple(c.encode("utf-8", "surrogatepass") for _, c in self.chunks)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` holds a part of this form at least ``least`` characters long."""
        form, found = self.text, []
        for q, chunk in self.chunks:
            p = text.find(chunk)
            while p >= 0:
                a, b = p, p + len(chunk)
                qa, qb = q, q + len(chunk)
                while a > 0 and qa > 0 and text[a - 1] == form[qa - 1]:
                    a, qa = a - 1, qa - 1
                while b < len(text) and qb < len(form) and text[b] == form[qb]:
                    b, qb = b + 1, qb + 1
                if b - a >= self.least:
                    found.append((a, b))
                p = text.find(chunk, p + 1)
        return found


def _b64_cores(raw: bytes) -> list[str]:
    """The base64 characters that ``raw`` alone decides, at each of the three byte offsets it
    may start at in a longer text (standard alphabet; URL-safe added where it differs)."""
    import base64

    out = []
    n = len(raw)
    for a in range(3):
        enc = base64.b64encode(b"\0" * a + raw).decode("ascii")
        lo, hi = -(-8 * a // 6), (8 * a + 8 * n) // 6
        core = enc[lo:hi]
        out.append(core)
        safe = core.replace("+", "-").replace("/", "_")
        if safe != core:
            out.append(safe)
    return out


def _forms(secret: str) -> tuple[_Form, ...]:
    """The spellings of ``secret`` matched besides itself (none for one too short to tell):
    any part of at least half of it, as it is or reversed; most of it (three quarters, its
    middle included) encoded. One to four substring tests a form on a text without it."""
    if len(secret) < DISGUISED_MIN_CHARS:
        return ()
    half = max(PART_MIN_CHARS, len(secret) // 2)
    raw = secret.encode("utf-8", "surrogatepass")
    most = -(-3 * len(raw) // 4)          # bytes of three quarters of the secret
    forms = [_Form(secret, half), _Form(secret[::-1], half)]
    forms += [_Form(core, -(-most * 4 // 3), middle=True) for core in _b64_cores(raw)]
    forms += [_Form(raw.hex(), 2 * most, middle=True), _Form(raw.hex().upper(), 2 * most, middle=True)]
    forms += [_Form("".join(f"%{b:02X}" for b in raw), 3 * most, "%", middle=True),
              _Form("".join(f"%{b:02x}" for b in raw), 3 * most, "%", middle=True)]
    units = secret.encode("utf-16-be", "surrogatepass")
    codes = [int.from_bytes(units[i:i + 2], "big") for i in range(0, len(units), 2)]
    chars = -(-3 * len(secret) // 4)
    forms += [_Form("".join(f"\\u{c:04x}" for c in codes), 6 * chars, "\\u", middle=True),
              _Form("".join(f"\\u{c:04X}" for c in codes), 6 * chars, "\\u", middle=True),
              _Form("".join(f"&#{ord(c)};" for c in secret), 4 * chars, "&#", middle=True),
              _Form("".join(f"&#x{ord(c):x};" for c in secret), 5 * chars, "&#", middle=True)]
    return tuple(forms)


def _spelled(text: str) -> bool:
    """Whether ``text`` may hold a secret spelled another way or in part (quick test)."""
    for f in _spellings:
        if f.marker is not None and f.marker not in text:
            continue
        if any(c in text for _, c in f.chunks):
            return True
    return False


def _scrub_spelled(text: str) -> str:
    spans = sorted(sp for f in _spellings if f.marker is None or f.marker in text for sp in f.spans(text))
    if not spans:
        return text
    out, last = [], 0
    for a, b in spans:
        if a < last:            # overlaps the span before: taken into it
            if b > last:
                last = b
            continue
        out.append(text[last:a])
        out.append(MARK)
        last = b
    out.append(text[last:])
    return "".join(out)


def secrets() -> tuple[str, ...]:
    """The registered secrets, longest first."""
    return _ordered


def scrub(text: str) -> str:
    """``text`` with every secret replaced by :data:`MARK`."""
    for s in _ordered:
        if s in text:
            text = text.replace(s, MARK)
    if _may_be_disguised(text):
        for p in _disguised:
            if p.search(text):
                text = p.sub(MARK, text)
    if _spellings and _spelled(text):
        text = _scrub_spelled(text)
    return text


def may_hold(raw: bytes) -> bool:
    """Whether a JSON body could decode to a text holding a secret: a secret's bytes occur
    in it, or it uses an escape that could spell one (``\\u``, or ``\\/`` / ``\\"`` / ``\\\\``
    when a secret has such a character). False means :func:`scrub_json` would change nothing."""
    if not _ordered:
        return False
    if b"\\u" in raw or (_escapable and b"\\" in raw):
        return True
    if any(b in raw for b in _ordered_bytes):
        return True
    for f in _spellings:
        if f.marker is not None and f.marker.encode() not in raw:
            continue
        if any(c in raw for c in f.chunk_bytes):
            return True
    if not _disguised_bytes:
        return False
    if not raw.isascii() and _INVISIBLE.search(raw.decode("utf-8", "replace")) is not None:
        return any(p.search(raw) for p in _disguised_bytes)
    if b"\\" in raw:    # a line break or tab inside a JSON string
        raw = raw.replace(b"\\n", b"")
        if b"\\t" in raw:
            raw = raw.replace(b"\\t", b"")
        if b"\\r" in raw:
            raw = raw.replace(b"\\r", b"")
    flat = raw.translate(_LOWER, _ASCII_SPACE)
    return any(f in flat for f in _folded_bytes)


def scrub_json(obj: Any) -> Any:
    """A parsed JSON value with every string (object keys too) scrubbed; the same objects
    when there is nothing to replace. Iterative: depth is not limited by recursion."""
    if not _ordered:
        return obj
    if isinstance(obj, str):
        return scrub(obj)
    if not isinstance(obj, (dict, list)):
        return obj
    stack: list[Any] = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            renamed = []
            for k, v in node.items():
                if isinstance(v, str):
                    v2 = scrub(v)
                    if v2 is not v:
                        node[k] = v2
                elif isinstance(v, (dict, list)):
                    stack.append(v)
                if scrub(k) is not k:
                    renamed.append(k)
            for k in renamed:
                node[scrub(k)] = node.pop(k)
        else:
            for i, v in enumerate(node):
                if isinstance(v, str):
                    v2 = scrub(v)
                    if v2 is not v:
                        node[i] = v2
                elif isinstance(v, (dict, list)):
                    stack.append(v)
    return obj
