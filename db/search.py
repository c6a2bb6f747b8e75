"""Full-text search (SQLite FTS5) over the texts people look for: seed questions, review
reasons and comments, curators' reasons, model responses.

The indexes are made by migration 7 (``db/migrations.py``) with sqlite-utils and kept in
step by triggers. A query is read two ways:

* plain words (no FTS5 syntax character or operator in it): every word is searched as
  it is, in any order (``3.5 apples`` finds texts holding both tokens; sqlite-utils
  quotes them);
* FTS5 syntax otherwise: ``"exact phrase"``, ``prefix*``, ``a OR b``, ``a NOT b``,
  ``NEAR(a b)``, ``column: word``. A query FTS5 cannot parse is a :class:`SearchError`
  saying so, with the plain-words form of the same text to search instead.

Only SQL and the store here (imports nothing of ours outside ``db`` and
``qcstation.common``); the rooms build their searches on :func:`match_sql`.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import TypeVar

from db.store import Store
from qcstation.common.errors import SearchError
from qcstation.common.safe import one_line

__all__ = ["FTS_TABLES", "MAX_QUERY_CHARS", "fts_query", "match_sql", "run_search"]

#: The table of each index and its columns (what migration 7 made).
FTS_TABLES: dict[str, tuple[str, ...]] = {
    "seeds": ("question",),
    "reviews": ("reason", "comment"),
    "qc_resolutions": ("reason",),
    "eval_outputs": ("response",),
}
MAX_QUERY_CHARS = 500

# FTS5 syntax: quotes, prefix star, grouping, column filters, initial-token caret, phrase
# concatenation, and the operators (which FTS5 reads only in capitals)
_SYNTAX = re.compile(r'["*():^{}+]|\b(?:AND|OR|NOT|NEAR)\b')
_WORD = re.compile(r"\S+")

T = TypeVar("T")


def fts_query(text: str) -> str:
    """The FTS5 query for what a person typed: plain words quoted (sqlite-utils'
    ``quote_fts``), FTS5 syntax as it is. :class:`SearchError` when there is nothing to
    search for or the text is too long."""
    text = " ".join(str(text or "").split())
    if not text:
        raise SearchError("type something to search for", title="Nothing to search")
    if len(text) > MAX_QUERY_CHARS:
        raise SearchError(f"the search is too long ({len(text)} characters; at most "
                          f"{MAX_QUERY_CHARS})", title="Search too long")
    if _SYNTAX.search(text):
        return text
    return " ".join(f'"{w}"' for w in _WORD.findall(text.replace('"', "")))


def match_sql(table: str) -> str:
    """SQL giving the rowids of ``table`` whose indexed text matches the one parameter
    (an :func:`fts_query`), e.g. ``id IN (<this>)``."""
    if table not in FTS_TABLES:
        raise ValueError(f"no full-text index on {table!r}")
    return f"SELECT rowid FROM {table}_fts WHERE {table}_fts MATCH ?"


def run_search(store: Store, text: str, read: Callable[[str], T]) -> T:
    """``read(fts_query(text))``, with what FTS5 says about a query it cannot parse turned
    into a :class:`SearchError` a person can act on."""
    query = fts_query(text)
    try:
        return read(query)
    except sqlite3.OperationalError as exc:
        reason = str(exc)
        if not _is_query_error(reason):
            raise
        plain = store.db.quote_fts(text.replace('"', " "))
        raise SearchError(
            f"cannot search for {one_line(text, 80)!r}: {one_line(reason, 120)}. Words, "
            f'"an exact phrase", prefix*, OR, NOT and NEAR(...) are understood; to search '
            f"the text as it is, type: {one_line(plain, 120)}", title="Search not understood"
        ) from None


def _is_query_error(reason: str) -> bool:
    low = reason.lower()
    return (low.startswith("fts5:") or "unterminated string" in low
            or "no such column" in low or "unknown special query" in low
            or "syntax error" in low)
