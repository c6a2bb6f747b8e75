"""The shapes of a formalization's terms the checks read (``BinOp``, ``Neg``, ``Name``, as
:mod:`qcstation.core.reading.expr` parses them), each bounded in depth: every subterm, the
factors of a product, the names a term uses. Shared by :mod:`.bindings`, :mod:`.claims`,
:mod:`.elimination` and :mod:`.repeats`; imports nothing of the checks."""

from __future__ import annotations

from typing import Any

__all__ = ["names", "product_factors", "subterms"]

_DEPTH = 200


def _kind(e: Any) -> str:
    return type(e).__name__


def subterms(e: Any, depth: int = 0) -> list[Any]:
    """``e`` and every term inside it."""
    if depth > _DEPTH:
        return []
    out = [e]
    for sub in (getattr(e, "left", None), getattr(e, "right", None), getattr(e, "operand", None), getattr(e, "arg", None)):
        if sub is not None:
            out += subterms(sub, depth + 1)
    return out


def product_factors(e: Any, depth: int = 0) -> list[Any]:
    """The factors of a product (the term itself when it is none)."""
    if depth < _DEPTH and _kind(e) == "BinOp" and e.op == "*":
        return product_factors(e.left, depth + 1) + product_factors(e.right, depth + 1)
    return [e]


def names(e: Any, depth: int = 0) -> set[str]:
    """The names a sum, product, quotient or negation of names uses."""
    if depth > _DEPTH:
        return set()
    kind = _kind(e)
    if kind == "Name":
        return {str(e.name)}
    if kind == "Neg":
        return names(e.operand, depth + 1)
    if kind == "BinOp":
        return names(e.left, depth + 1) | names(e.right, depth + 1)
    return set()
