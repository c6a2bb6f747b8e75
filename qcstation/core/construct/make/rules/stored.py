"""A rule's result kept with its seed, so that a later reader (a derived set loading its parent)
need not run the rules again to have it.

:func:`dump_rule` writes a :class:`~.result.RuleResult` as JSON text that :func:`load_rule` reads
back to an equal result, field by field and type by type (``Fraction`` stays ``Fraction``, a
tuple a tuple, the steps' ``Expr`` trees the same nodes); a result it cannot write exactly is not
written (None). :func:`rule_key` is what the result is valid for: the source of the rules (every
module they import: ``construct``, ``reading``, ``common``; hashed once per process) and the
seed's fields that :func:`~.dispatch.rule_for_seed` reads. The rules are deterministic, so a
stored result whose key is today's key is what they would make today; any other is ignored,
as is one that does not parse (stored text is read with limits, never trusted).
"""

from __future__ import annotations

import functools
import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from qcstation.core.construct.make.rules.result import RuleResult, RuleStep
from qcstation.core.reading.expr import ROUNDINGS, BinOp, Call, Name, Neg, Num

__all__ = ["MAX_STORED_CHARS", "dump_rule", "load_rule", "rule_key", "rules_source_hash"]

#: a stored result longer than this is not read (a seed's result is a few kilobytes)
MAX_STORED_CHARS = 1_000_000
#: the seed fields :func:`~.dispatch.rule_for_seed` reads (solution, gold, equation, format)
SEED_FIELDS = ("question", "solution", "answer", "answer_value", "answer_text", "target",
               "equation", "Equation", "lEquations", "meta", "source")
_VERSION = 1


@functools.lru_cache(maxsize=1)
def rules_source_hash() -> str:
    """A hash of the source of the rules and of every module they import (computed once)."""
    root = Path(__file__).resolve().parents[4]          # qcstation/
    h = hashlib.sha256()
    for sub in ("core/construct", "core/reading", "common"):
        for p in sorted((root / sub).rglob("*.py")):
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def rule_key(seed: Any) -> str:
    """What a stored result of ``seed`` (a seed row) is valid for: today's rules and its fields."""
    fields = [seed.get(k) for k in SEED_FIELDS]
    text = json.dumps([_VERSION, rules_source_hash(), fields], ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- writing


class _Unwritable(Exception):
    """A value :func:`dump_rule` does not write exactly."""


def _enc(v: Any) -> Any:
    if v is None or type(v) in (str, bool, int):
        return v
    if type(v) is Fraction:
        return {"F": [v.numerator, v.denominator]}
    if type(v) is list:
        return [_enc(x) for x in v]
    if type(v) is tuple:
        return {"T": [_enc(x) for x in v]}
    if type(v) is dict:
        if not all(type(k) is str for k in v):
            raise _Unwritable("a key is not a string")
        return {"D": {k: _enc(x) for k, x in v.items()}}
    if type(v) is Num:
        return {"N": [_enc(v.value), v.text]}
    if type(v) is Name:
        return {"V": v.name}
    if type(v) is BinOp:
        return {"B": [v.op, _enc(v.left), _enc(v.right)]}
    if type(v) is Neg:
        return {"G": _enc(v.operand)}
    if type(v) is Call:
        return {"C": [v.fn, _enc(v.arg)]}
    if type(v) is RuleStep:
        return {"S": [v.name, v.expr_text, _enc(v.result), v.sexpr, _enc(v.refs), _enc(v.expr), v.line]}
    raise _Unwritable(type(v).__name__)


_FIELDS = ("smtlib", "steps", "answer_step", "value", "rule", "notes", "links", "givens",
           "uncertain", "factors", "bound")


def dump_rule(rule: RuleResult) -> str | None:
    """``rule`` as JSON text that :func:`load_rule` reads back equal, or None when it holds a
    value this cannot write exactly (checked: the text read back writes the same text)."""
    if type(rule) is not RuleResult:
        return None
    try:
        text = json.dumps({"v": _VERSION, **{f: _enc(getattr(rule, f)) for f in _FIELDS}},
                          ensure_ascii=False, separators=(",", ":"))
    except (_Unwritable, RecursionError, ValueError):
        return None
    back = load_rule(text)
    if back is None or back != rule:
        return None
    try:
        same = json.dumps({"v": _VERSION, **{f: _enc(getattr(back, f)) for f in _FIELDS}},
                          ensure_ascii=False, separators=(",", ":"))
    except (_Unwritable, RecursionError, ValueError):
        return None
    return text if same == text else None


# --------------------------------------------------------------------------- reading


class _Bad(Exception):
    """Stored text that is not a result :func:`dump_rule` writes."""


def _str(v: Any) -> str:
    if type(v) is not str:
        raise _Bad("not a string")
    return v


def _dec(v: Any) -> Any:
    if v is None or type(v) in (str, bool, int):
        return v
    if type(v) is list:
        return [_dec(x) for x in v]
    if type(v) is not dict or len(v) != 1:
        raise _Bad("not a tagged value")
    (tag, x), = v.items()
    if tag == "F":
        if type(x) is not list or len(x) != 2 or any(type(n) is not int for n in x) or x[1] <= 0:
            raise _Bad("not a fraction")
        f = Fraction(x[0], x[1])
        if (f.numerator, f.denominator) != (x[0], x[1]):
            raise _Bad("a fraction not in lowest terms")
        return f
    if tag == "T" and type(x) is list:
        return tuple(_dec(y) for y in x)
    if tag == "D" and type(x) is dict:
        return {k: _dec(y) for k, y in x.items()}
    if tag == "N" and type(x) is list and len(x) == 2:
        value = _dec(x[0])
        if type(value) is not Fraction:
            raise _Bad("a number that is no fraction")
        return Num(value, _str(x[1]))
    if tag == "V":
        return Name(_str(x))
    if tag == "B" and type(x) is list and len(x) == 3:
        left, right = _expr(x[1]), _expr(x[2])
        return BinOp(_str(x[0]), left, right)
    if tag == "G":
        return Neg(_expr(x))
    if tag == "C" and type(x) is list and len(x) == 2:
        if x[0] not in ROUNDINGS:
            raise _Bad("an unknown rounding")
        return Call(_str(x[0]), _expr(x[1]))
    if tag == "S" and type(x) is list and len(x) == 7:
        result, refs, expr = _dec(x[2]), _dec(x[4]), x[5]
        if type(result) is not Fraction or type(refs) is not list or not all(type(r) is str for r in refs):
            raise _Bad("a step's result or references")
        return RuleStep(_str(x[0]), _str(x[1]), result, _str(x[3]), refs,
                        None if expr is None else _expr(expr), _str(x[6]))
    raise _Bad(f"unknown tag {tag!r}")


def _expr(v: Any) -> Any:
    e = _dec(v)
    if type(e) not in (Num, Name, BinOp, Neg, Call):
        raise _Bad("not an expression")
    return e


def _typed_list(v: Any, kind: type) -> list[Any]:
    if type(v) is not list or not all(type(x) is kind for x in v):
        raise _Bad(f"not a list of {kind.__name__}")
    return v


def load_rule(text: Any) -> RuleResult | None:
    """The result :func:`dump_rule` wrote as ``text``, or None for anything else (too long,
    not JSON, another version, a field of the wrong type)."""
    if type(text) is not str or len(text) > MAX_STORED_CHARS:
        return None
    try:
        raw = json.loads(text)
        if type(raw) is not dict or raw.get("v") != _VERSION or set(raw) != {"v", *_FIELDS}:
            return None
        f = {k: _dec(raw[k]) for k in _FIELDS}
        value, bound, factors = f["value"], f["bound"], f["factors"]
        if type(value) is not Fraction or (bound is not None and type(bound) is not bool) \
                or (factors is not None and type(factors) is not list):
            return None
        return RuleResult(_str(f["smtlib"]), _typed_list(f["steps"], RuleStep), _str(f["answer_step"]),
                          value, _str(f["rule"]), f["notes"] if type(f["notes"]) is list else _bad(),
                          _typed_list(f["links"], dict), _typed_list(f["givens"], dict),
                          f["uncertain"] if type(f["uncertain"]) is list else _bad(), factors, bound)
    except (_Bad, ValueError, TypeError, RecursionError, MemoryError):
        return None


def _bad() -> Any:
    raise _Bad("not a list")
