"""The bounded arithmetic expression language every rule shares.

A small recursive-descent parser (never ``eval``) reads infix arithmetic into an
``Expr`` tree (:class:`Num`, :class:`Name`, :class:`BinOp`, :class:`Neg`) and
:func:`evaluate` computes it in exact ``Fraction`` arithmetic. Untrusted text is held
to the limits below (length, nesting, digits, expanded size, value bits): beyond one,
:class:`ExpressionError` names the limit. Also here: the
SMT-LIB rendering of terms, and small tree helpers (literal values, a canonical form).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Union

from qcstation.common.memo import text_memo
from qcstation.core.reading.answers import decimal_fraction


# --------------------------------------------------------------------------- errors


class ExpressionError(ValueError):
    """Text is not an arithmetic expression the parser accepts."""


# --------------------------------------------------------------------------- AST


@dataclass(frozen=True)
class Num:
    value: Fraction  # always >= 0; negation is a Neg node
    text: str = ""  # as written; "" for numbers the parser made up (the 100 of a percent)


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class BinOp:
    op: str  # + - * /
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Neg:
    operand: Expr


@dataclass(frozen=True)
class Call:
    """A whole-count rounding of one term (:data:`ROUNDINGS`; see :mod:`.rounding`). Never read
    from text: the parser writes none; only a rule that reads the words of a rounding builds it."""

    fn: str  # a key of ROUNDINGS
    arg: Expr


Expr = Union[Num, Name, BinOp, Neg, Call]

#: the roundings a :class:`Call` may make: floor (the greatest whole number at most x), ceil (the
#: least whole number at least x), round (the nearest whole number, a half rounded up)
ROUNDINGS = ("floor", "ceil", "round")

MAX_EXPONENT = 12

# Limits on untrusted expression text (seed solutions, equations): a seed beyond one of
# them is refused with the limit named (ExpressionError; a rule turns it into its RuleError), never a crash or a
# minutes-long computation.
MAX_EXPRESSION_CHARS = 1_000  #: characters in one expression
MAX_DEPTH = 100  #: nesting of parentheses and unary signs
MAX_NUMBER_DIGITS = 50  #: digits in one written number
MAX_EXPANDED_NODES = 5_000  #: size of the expression once powers are expanded
MAX_VALUE_BITS = 4_000  #: bits in a numerator or denominator while evaluating

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*|[-+*/^%()×·÷−–])
    """,
    re.VERBOSE,
)

_OP_ALIASES = {"×": "*", "·": "*", "÷": "/", "−": "-", "–": "-"}


def _tokenize(text: str, names: bool) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise ExpressionError(f"unexpected character {text[pos]!r} at position {pos}")
        pos = m.end()
        kind = m.lastgroup or ""
        if kind == "ws":
            continue
        value = m.group()
        if kind == "name" and not names:
            raise ExpressionError(f"unexpected name {value!r} (only numbers are allowed)")
        if kind == "op":
            value = _OP_ALIASES.get(value, value)
        elif kind == "num" and sum(c.isdigit() for c in value) > MAX_NUMBER_DIGITS:
            raise ExpressionError(
                f"a number has {sum(c.isdigit() for c in value)} digits "
                f"(limit {MAX_NUMBER_DIGITS})")
        tokens.append((kind, value))
    return tokens


class _Parser:
    """expr := term (('+'|'-') term)* ; term := unary (('*'|'/'|implicit) unary)* ;
    unary := ('+'|'-') unary | power ; power := postfix (('^'|'**') unary)? ;
    postfix := primary '%'? ; primary := NUMBER | NAME | '(' expr ')'."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self._sizes: dict[int, int] = {}

    def _nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH} levels")

    def _size(self, node: Expr) -> int:
        """Node count of ``node`` written out as a tree (powers share sub-trees)."""
        key = id(node)
        if key not in self._sizes:
            if isinstance(node, BinOp):
                self._sizes[key] = 1 + self._size(node.left) + self._size(node.right)
            elif isinstance(node, Neg):
                self._sizes[key] = 1 + self._size(node.operand)
            else:
                self._sizes[key] = 1
        return self._sizes[key]

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise ExpressionError("unexpected end of expression")
        self.pos += 1
        return tok

    def at_op(self, *ops: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == "op" and tok[1] in ops

    def parse(self) -> Expr:
        if not self.tokens:
            raise ExpressionError("empty expression")
        node = self.expr()
        if self.peek() is not None:
            raise ExpressionError(f"unexpected {self.peek()[1]!r} after a complete expression")  # type: ignore[index]
        return node

    def expr(self) -> Expr:
        node = self.term()
        while self.at_op("+", "-"):
            op = self.take()[1]
            node = BinOp(op, node, self.term())
        return node

    def term(self) -> Expr:
        node = self.unary()
        while True:
            if self.at_op("*", "/"):
                op = self.take()[1]
                node = BinOp(op, node, self.unary())
            elif self.at_op("(") or (self.peek() is not None and self.peek()[0] == "name"):  # type: ignore[index]
                # implicit multiplication: 2(60), 50(.50), 2x
                node = BinOp("*", node, self.unary())
            else:
                return node

    def unary(self) -> Expr:
        if self.at_op("-", "+"):
            op = self.take()[1]
            self._nest()
            try:
                operand = self.unary()
            finally:
                self.depth -= 1
            return Neg(operand) if op == "-" else operand
        return self.power()

    def power(self) -> Expr:
        base = self.postfix()
        if self.at_op("^", "**"):
            self.take()
            exponent_node = self.unary()
            try:
                exponent = evaluate(exponent_node)
            except ExpressionError as exc:
                raise ExpressionError(f"exponent must be a number: {exc}") from exc
            if exponent.denominator != 1 or abs(exponent) > MAX_EXPONENT:
                raise ExpressionError(
                    f"exponent {exponent} is not a small integer (|n| <= {MAX_EXPONENT})"
                )
            n = int(exponent)
            if n == 0:
                return Num(Fraction(1), "1")
            if self._size(base) * abs(n) > MAX_EXPANDED_NODES:
                raise ExpressionError(
                    f"the powers expand to more than {MAX_EXPANDED_NODES} terms")
            node: Expr = base
            for _ in range(abs(n) - 1):
                node = BinOp("*", node, base)
            return BinOp("/", Num(Fraction(1), ""), node) if n < 0 else node
        return base

    def postfix(self) -> Expr:
        node = self.primary()
        while self.at_op("%"):
            self.take()
            node = BinOp("/", node, Num(Fraction(100), ""))
        return node

    def primary(self) -> Expr:
        kind, value = self.take()
        if kind == "num":
            return Num(decimal_fraction(value.replace(",", "")), value)
        if kind == "name":
            return Name(value)
        if value == "(":
            self._nest()
            node = self.expr()
            if not self.at_op(")"):
                raise ExpressionError("missing ')'")
            self.take()
            self.depth -= 1
            return node
        raise ExpressionError(f"unexpected {value!r}")


@text_memo(maxsize=512)
def parse_expression(text: str, *, names: bool = False) -> Expr:
    """Parse infix arithmetic (numbers with optional thousands commas and decimals,
    + - * / × ÷ −, parentheses, unary minus, ``^``/``**`` with a small integer
    exponent, postfix ``%`` = /100, implicit multiplication ``2(3)``).
    With ``names=True`` identifiers are allowed as variables. Raises ExpressionError,
    also when the text exceeds a limit (length, nesting, digits, expanded size)."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(
            f"the expression has {len(text)} characters (limit {MAX_EXPRESSION_CHARS})")
    return _Parser(_tokenize(text, names)).parse()


def evaluate(expr: Expr, env: Mapping[str, Fraction] | None = None) -> Fraction:
    """Exact value of an expression; raises ExpressionError on division by zero or
    an unknown name."""
    if isinstance(expr, BinOp):
        try:
            n, d = _pair(expr, env)
        except _NotAFraction:
            return _evaluate(expr, env)
        return Fraction(n, d)
    return _evaluate(expr, env)


class _NotAFraction(Exception):
    """A name's value is no ``Fraction`` (the plain evaluation decides what it gives)."""


def _pair(expr: Expr, env: Mapping[str, Fraction] | None) -> tuple[int, int]:
    """:func:`_evaluate` of a term whose numbers and names are all ``Fraction``, on
    (numerator, denominator) pairs in lowest terms (as ``Fraction`` holds them): the same value
    in the same order with the same errors and bounds, without a ``Fraction`` per operation."""
    if isinstance(expr, Num):
        v = expr.value
        if type(v) is not Fraction:
            raise _NotAFraction
        return v.numerator, v.denominator
    if isinstance(expr, Name):
        if env is None or expr.name not in env:
            raise ExpressionError(f"unknown name {expr.name!r}")
        v = env[expr.name]
        if type(v) is not Fraction:
            raise _NotAFraction
        return v.numerator, v.denominator
    if isinstance(expr, Neg):
        n, d = _pair(expr.operand, env)
        return -n, d
    if isinstance(expr, Call):
        v = _evaluate(expr, env)
        return v.numerator, v.denominator
    an, ad = _pair(expr.left, env)
    bn, bd = _pair(expr.right, env)
    return pair_op(expr.op, an, ad, bn, bd)


def pair_op(op: str, an: int, ad: int, bn: int, bd: int) -> tuple[int, int]:
    """``an/ad op bn/bd`` on (numerator, denominator) pairs in lowest terms, denominators
    positive, as ``Fraction`` arithmetic gives it: the same value, the same errors (division by
    zero) and the same bound (:func:`bounded`). Shared by :func:`evaluate` and derive's
    compiled precheck."""
    if op == "+":
        n, d = an * bd + bn * ad, ad * bd
    elif op == "-":
        n, d = an * bd - bn * ad, ad * bd
    elif op == "*":
        n, d = an * bn, ad * bd
    else:
        if bn == 0:
            raise ExpressionError("division by zero")
        n, d = (an * bd, ad * bn) if bn > 0 else (-an * bd, -ad * bn)
    g = math.gcd(n, d)
    if g != 1:
        n, d = n // g, d // g
    if n.bit_length() > MAX_VALUE_BITS or d.bit_length() > MAX_VALUE_BITS:
        bounded(Fraction(n, d))          # raises, with its message
    return n, d


def _evaluate(expr: Expr, env: Mapping[str, Fraction] | None = None) -> Fraction:
    """:func:`evaluate` on ``Fraction`` values, node by node."""
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Name):
        if env is None or expr.name not in env:
            raise ExpressionError(f"unknown name {expr.name!r}")
        return env[expr.name]
    if isinstance(expr, Neg):
        return -_evaluate(expr.operand, env)
    if isinstance(expr, Call):
        return rounded(expr.fn, _evaluate(expr.arg, env))
    left = _evaluate(expr.left, env)
    right = _evaluate(expr.right, env)
    if expr.op == "+":
        return bounded(left + right)
    if expr.op == "-":
        return bounded(left - right)
    if expr.op == "*":
        return bounded(left * right)
    if right == 0:
        raise ExpressionError("division by zero")
    return bounded(left / right)


def rounded(fn: str, value: Fraction) -> Fraction:
    """``value`` rounded to a whole number as :class:`Call` ``fn`` says (:data:`ROUNDINGS`)."""
    if type(value) is not Fraction:
        raise ExpressionError(f"{fn} of a term that is not a number")
    if fn == "floor":
        return Fraction(math.floor(value))
    if fn == "ceil":
        return Fraction(math.ceil(value))
    if fn == "round":
        return Fraction(math.floor(value + Fraction(1, 2)))
    raise ExpressionError(f"unknown rounding {fn!r}")


def bounded(value: Fraction) -> Fraction:
    if value.numerator.bit_length() > MAX_VALUE_BITS or value.denominator.bit_length() > MAX_VALUE_BITS:
        raise ExpressionError(f"a value grows beyond {MAX_VALUE_BITS} bits (about "
                              f"{int(MAX_VALUE_BITS * 0.30103)} digits)")
    return value


def atoms(expr: Expr | None) -> Iterator[Num | Name]:
    """The numbers and names of a term, left to right (none for None): the one walk of a
    tree that :func:`expr_names` and :func:`leaves` read (iterative: no recursion per node)."""
    stack: list[Expr | None] = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, BinOp):
            stack.append(e.right)
            stack.append(e.left)
        elif isinstance(e, Neg):
            stack.append(e.operand)
        elif isinstance(e, Call):
            stack.append(e.arg)
        elif isinstance(e, (Num, Name)):
            yield e


def expr_names(expr: Expr) -> list[str]:
    """Names used in an expression, in first-use order, without duplicates."""
    return list(dict.fromkeys(a.name for a in atoms(expr) if isinstance(a, Name)))


# --------------------------------------------------------------------------- SMT-LIB text


def fraction_to_smt(value: Fraction) -> str:
    """Exact SMT-LIB Real literal: ``16``, ``(- 5)``, ``(/ 3 2)``, ``(- (/ 3 2))``."""
    magnitude = abs(value)
    if magnitude.denominator == 1:
        text = str(magnitude.numerator)
    else:
        text = f"(/ {magnitude.numerator} {magnitude.denominator})"
    return f"(- {text})" if value < 0 else text


def chain(expr: Expr, op: str) -> list[Expr]:
    """Flatten a left-associative chain of one operator: ((a-b)-c) -> [a, b, c]."""
    if isinstance(expr, BinOp) and expr.op == op:
        return [*chain(expr.left, op), expr.right]
    return [expr]


def expr_to_sexpr(expr: Expr) -> str:
    if isinstance(expr, Num):
        return fraction_to_smt(expr.value)
    if isinstance(expr, Name):
        return expr.name
    if isinstance(expr, Neg):
        if isinstance(expr.operand, Num):
            return fraction_to_smt(-expr.operand.value)
        return f"(- {expr_to_sexpr(expr.operand)})"
    if isinstance(expr, Call):
        return rounding_sexpr(expr.fn, expr_to_sexpr(expr.arg))
    args = chain(expr, expr.op)
    return "(" + expr.op + " " + " ".join(expr_to_sexpr(a) for a in args) + ")"


def rounding_sexpr(fn: str, arg: str) -> str:
    """The SMT-LIB term of a :class:`Call` of ``arg``: ``to_int`` is the greatest integer at most
    its argument (SMT-LIB's Reals_Ints theory), the others are written with it."""
    if fn == "floor":
        return f"(to_int {arg})"
    if fn == "ceil":
        return f"(- (to_int (- {arg})))"
    if fn == "round":
        return f"(to_int (+ {arg} (/ 1 2)))"
    raise ExpressionError(f"unknown rounding {fn!r}")


def has_call(expr: Expr | None) -> bool:
    """Does the term round anywhere (a :class:`Call`)?"""
    stack: list[Expr | None] = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, Call):
            return True
        if isinstance(e, BinOp):
            stack.extend((e.left, e.right))
        elif isinstance(e, Neg):
            stack.append(e.operand)
    return False


def is_nonlinear(expr: Expr) -> bool:
    """True when a product has two factors with names, or a divisor has a name."""
    if isinstance(expr, (Num, Name)):
        return False
    if isinstance(expr, Neg):
        return is_nonlinear(expr.operand)
    if isinstance(expr, Call):
        return is_nonlinear(expr.arg)
    args = chain(expr, expr.op)
    if any(is_nonlinear(a) for a in args):
        return True
    if expr.op == "*":
        return sum(1 for a in args if expr_names(a)) >= 2
    if expr.op == "/":
        return any(expr_names(a) for a in args[1:])
    return False



def fmt(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def literal_value(expr: Expr) -> Fraction | None:
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Neg) and isinstance(expr.operand, Num):
        return -expr.operand.value
    return None


def leaves(expr: Expr) -> list[Num]:
    """The numbers of a term, left to right."""
    return [a for a in atoms(expr) if isinstance(a, Num)]


def literal_values(expr: Expr) -> list[Fraction]:
    """Values of the numbers written in an expression (not the 100 of a parsed percent)."""
    return [n.value for n in leaves(expr) if n.text]


def canon(e: Expr) -> str:
    if isinstance(e, Num):
        return fmt(e.value)
    if isinstance(e, Name):
        return e.name
    if isinstance(e, Neg):
        return f"(- {canon(e.operand)})"
    if isinstance(e, Call):
        return f"({e.fn} {canon(e.arg)})"
    args = [canon(a) for a in chain(e, e.op)]
    if e.op in "+*":
        args.sort()
    return "(" + e.op + " " + " ".join(args) + ")"
