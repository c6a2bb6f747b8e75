"""The roundings of a notation question (:class:`~qcstation.core.reading.expr.Call`, see
:mod:`.rules.rounding`): read from the SMT-LIB ``to_int`` terms that write them, written in words
("the least whole number at least s1") and read back from those words, so the question a model
sees is what Z3 checks."""

from __future__ import annotations

import re
from collections.abc import Callable

from qcstation.common.errors import GenerationError
from qcstation.core.reading.expr import Call, Expr, parse_expression
from qcstation.core.verify.smtlib import Node, SList, Token, symbol_name

__all__ = ["NotationError", "read_rounding", "rounding_term", "rounding_words"]


class NotationError(GenerationError):
    """The SMT-LIB cannot be rendered as a notation question (the caller falls back
    to a model); ``str(err)`` says why. (Defined here, imported by :mod:`.notation`.)"""

    def __init__(self, message: str, title: str = "Cannot render notation") -> None:
        super().__init__(message, title)


def rounding_words(fn: str, what: str) -> str:
    """``what`` rounded as ``fn`` says, in words a reader understands."""
    if fn == "floor":
        return f"the greatest whole number at most {what}"
    if fn == "ceil":
        return f"the least whole number at least {what}"
    return f"{what} rounded to the nearest whole number (ties round up)"


def _half(node: Node) -> bool:
    """Is ``node`` the SMT-LIB ``(/ 1 2)``?"""
    return (isinstance(node, SList) and len(node.items) == 3
            and [i.text if isinstance(i, Token) else None for i in node.items] == ["/", "1", "2"])


def rounding_term(op: str | None, args: list[Node], term: Callable[[Node], Expr]) -> Expr | None:
    """The rounding a term writes with ``to_int`` (:func:`~qcstation.core.reading.expr.rounding_sexpr`
    writes them): ``(to_int x)`` floor, ``(- (to_int (- x)))`` ceil, ``(to_int (+ x (/ 1 2)))``
    round; None for any other term."""
    if op == "-" and len(args) == 1 and _head(args[0]) == "to_int":
        inner = args[0].items[1:]  # type: ignore[union-attr]
        if len(inner) == 1 and _head(inner[0]) == "-" and len(inner[0].items) == 2:  # type: ignore[union-attr]
            return Call("ceil", term(inner[0].items[1]))  # type: ignore[union-attr]
        return None
    if op != "to_int":
        return None
    if len(args) != 1:
        raise NotationError(f"(to_int ...) takes one argument, not {len(args)}")
    arg = args[0]
    if _head(arg) == "+" and len(arg.items) == 3 and _half(arg.items[2]):  # type: ignore[union-attr]
        return Call("round", term(arg.items[1]))  # type: ignore[union-attr]
    return Call("floor", term(arg))


def _head(node: Node) -> str | None:
    if isinstance(node, SList) and node.items and isinstance(node.items[0], Token):
        return symbol_name(node.items[0])
    return None


_ROUNDING_TEXT = (
    ("floor", re.compile(r"^the greatest whole number at most (.+)$")),
    ("ceil", re.compile(r"^the least whole number at least (.+)$")),
    ("round", re.compile(r"^(.+) rounded to the nearest whole number \(ties round up\)$")),
)


def read_rounding(text: str) -> Expr | None:
    """A definition that rounds, in the words :func:`render_infix` writes it (None for any other)."""
    for fn, pattern in _ROUNDING_TEXT:
        m = pattern.match(text.strip())
        if m:
            return Call(fn, parse_expression(m.group(1), names=True))
    return None


