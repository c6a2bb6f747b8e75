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
scrubbed *before* it is cut, so no prefix of a key survives an excerpt.

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


def _add(value: str | None) -> None:
    global _ordered, _ordered_bytes, _escapable
    if not isinstance(value, str) or len(value) < MIN_SECRET_CHARS or value in _known:
        return
    with _lock:
        _known.add(value)
        _ordered = tuple(sorted(_known, key=len, reverse=True))
        _ordered_bytes = tuple(s.encode("utf-8", "surrogatepass") for s in _ordered)
        _escapable = any(c in s for s in _ordered for c in '"\\/')


def secrets() -> tuple[str, ...]:
    """The registered secrets, longest first."""
    return _ordered


def scrub(text: str) -> str:
    """``text`` with every secret replaced by :data:`MARK`."""
    for s in _ordered:
        if s in text:
            text = text.replace(s, MARK)
    return text


def may_hold(raw: bytes) -> bool:
    """Whether a JSON body could decode to a text holding a secret: a secret's bytes occur
    in it, or it uses an escape that could spell one (``\\u``, or ``\\/`` / ``\\"`` / ``\\\\``
    when a secret has such a character). False means :func:`scrub_json` would change nothing."""
    if not _ordered:
        return False
    if b"\\u" in raw or (_escapable and b"\\" in raw):
        return True
    return any(b in raw for b in _ordered_bytes)


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
