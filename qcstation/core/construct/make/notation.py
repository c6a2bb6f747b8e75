"""Notation-only arithmetic questions rendered from a verified SMT-LIB formalization.

SMART's Arithmetic task asks for the seed's answer from a question that holds only
numbers and variables. :func:`render_notation` reads a formalization in
definitional form (every constant the answer needs is defined by
``(assert (= name TERM))`` or ``define-fun``) and renders, deterministically::

    Let a = 16, b = 3, c = 4 and d = 2. Let s1 = a − b − c and answer = s1 × d.
    What is the value of answer?

Given numbers become the variables ``a, b, c, ...`` (a number written in a term is
one variable per distinct value; a constant defined as a number keeps its own
variable); derived quantities become ``s1, s2, ...`` in dependency order and the
asked-for constant is always ``answer``. No name from the SMT-LIB reaches the text,
so story words cannot leak through constant names.

:func:`notation_to_smtlib` rebuilds an SMT-LIB script from the rendered *text*
(it parses the question back), so Z3 checks the question a model actually sees.
:func:`check_rephrasing` lists problems in a model's rephrasing of a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from qcstation.core.reading.answers import decimal_places
from qcstation.core.construct.make.notation_literals import fold_terms, literal_line_term
from qcstation.core.reading.expr import (BinOp, Call, Expr, ExpressionError, Name, Neg, Num, evaluate, expr_names,
                                         expr_to_sexpr, fraction_to_smt, has_call, is_nonlinear, parse_expression)
from qcstation.core.construct.make.notation_rounding import NotationError, read_rounding, rounding_term, rounding_words
from qcstation.core.verify.smtlib import Node, SList, Token, parse_script, symbol_name
from qcstation.common.errors import VerificationError
from qcstation.common.safe import quoted

__all__ = [
    "NotationError",
    "NotationQuestion",
    "render_notation",
    "parse_notation_text",
    "notation_to_smtlib",
    "format_number",
    "render_infix",
    "question_smtlib",
    "NOTATION_WORDS",
]

TARGET = "answer"
_LETTERS = "abcdfghkmnpqrtuvwyz"  # no e, i, j, l, o, s, x: easily misread or used elsewhere
_OP_SYMBOL = {"+": "+", "-": "−", "*": "×", "/": "÷"}
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}
MAX_DECIMALS = 6




@dataclass
class NotationQuestion:
    text: str
    variables: dict[str, Fraction]  # given numbers, in the order they are stated
    target: str
    definitions: list[tuple[str, Expr]] = field(default_factory=list)  # derived, in order
    source_names: dict[str, str] = field(default_factory=dict)  # notation name -> SMT-LIB name

    @property
    def value(self) -> Fraction:
        """The exact value of the target (computed from the question's own structure)."""
        env = dict(self.variables)
        for name, expr in self.definitions:
            env[name] = evaluate(expr, env)
        return env[self.target]


# --------------------------------------------------------------------------- numbers and infix


def format_number(value: Fraction) -> str:
    """``16``, ``1.5``, ``0.125``, ``1/3``, ``−5`` (U+2212 minus)."""
    sign = "−" if value < 0 else ""
    v = abs(value)
    if v.denominator == 1:
        return f"{sign}{v.numerator}"
    places = decimal_places(v)
    if places is not None and places <= MAX_DECIMALS:
        scaled = v * 10**places
        digits = str(scaled.numerator).rjust(places + 1, "0")
        return f"{sign}{digits[:-places]}.{digits[-places:]}"
    return f"{sign}{v.numerator}/{v.denominator}"


def _chain(expr: Expr, op: str) -> list[Expr]:
    if isinstance(expr, BinOp) and expr.op == op:
        return [*_chain(expr.left, op), expr.right]
    return [expr]


def render_infix(expr: Expr) -> str:
    """Infix with × ÷ + − and only the parentheses the tree needs; parsing the text
    back with :func:`qcstation.core.construct.make.rules.parse_expression` gives the same tree."""
    if isinstance(expr, Name):
        return expr.name
    if isinstance(expr, Num):
        return format_number(expr.value)
    if isinstance(expr, Neg):
        inner = expr.operand
        body = render_infix(inner)
        return f"−{body}" if isinstance(inner, (Name, Num)) else f"−({body})"
    if isinstance(expr, Call):
        body = render_infix(expr.arg)
        return rounding_words(expr.fn, body if isinstance(expr.arg, (Name, Num)) else f"({body})")
    args = _chain(expr, expr.op)
    prec = _PREC[expr.op]
    parts: list[str] = []
    for i, arg in enumerate(args):
        text = render_infix(arg)
        if isinstance(arg, (Neg, Call)):
            text = f"({text})"
        elif isinstance(arg, BinOp):
            child = _PREC[arg.op]
            if child < prec or (i > 0 and child <= prec):
                text = f"({text})"
        parts.append(text)
    return f" {_OP_SYMBOL[expr.op]} ".join(parts)


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


# --------------------------------------------------------------------------- SMT-LIB -> definitions


def _node_text(node: Node) -> str:
    if isinstance(node, Token):
        return node.text
    return "(" + " ".join(_node_text(i) for i in node.items) + ")"


def _literal(expr: Expr) -> Fraction | None:
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Neg) and isinstance(expr.operand, Num):
        return -expr.operand.value
    return None


def _term(node: Node, consts: dict[str, str]) -> Expr:
    """SMT-LIB arithmetic term -> Expr (n-ary operators become left-nested chains)."""
    if isinstance(node, Token):
        if node.kind == "numeral":
            return Num(Fraction(int(node.text)), node.text)
        if node.kind == "decimal":
            return Num(Fraction(node.text), node.text)
        name = symbol_name(node)
        if name is None:
            raise NotationError(f"{quoted(node.text)} is not an arithmetic term")
        if name not in consts:
            raise NotationError(f"{quoted(name)} is not a declared constant")
        return Name(name)
    if not node.items:
        raise NotationError("empty term '()'")
    head = node.items[0]
    op = symbol_name(head) if isinstance(head, Token) else None
    args = node.items[1:]
    if op == "to_real" and len(args) == 1:
        return _term(args[0], consts)
    rounding = rounding_term(op, args, lambda n: _term(n, consts))
    if rounding is not None:
        return rounding
    if op not in ("+", "-", "*", "/"):
        shown = op if op is not None else _node_text(head)
        raise NotationError(
            f"operator {quoted(shown)} in {_node_text(node)[:80]} cannot be rendered "
            "(only + - * / are supported)"
        )
    if not args:
        raise NotationError(f"({op}) has no arguments")
    return fold_terms(op, [_term(a, consts) for a in args])


def _compare(op: str, values: list[Fraction]) -> bool:
    pairs = list(zip(values, values[1:]))
    if op == "=":
        return all(a == b for a, b in pairs)
    if op == "<":
        return all(a < b for a, b in pairs)
    if op == "<=":
        return all(a <= b for a, b in pairs)
    if op == ">":
        return all(a > b for a, b in pairs)
    if op == ">=":
        return all(a >= b for a, b in pairs)
    if op == "distinct":
        return len(set(values)) == len(values)
    raise NotationError(f"unsupported relation {quoted(op)}")


def _holds(node: Node, consts: dict[str, str], env: dict[str, Fraction]) -> bool:
    """Evaluate a closed constraint over defined constants (redundant side conditions)."""
    if isinstance(node, Token):
        if node.text in ("true", "false"):
            return node.text == "true"
        raise NotationError(f"{quoted(node.text)} is not a constraint")
    head = symbol_name(node.items[0]) if node.items and isinstance(node.items[0], Token) else None
    args = node.items[1:]
    if head == "and":
        return all(_holds(a, consts, env) for a in args)
    if head == "or":
        return any(_holds(a, consts, env) for a in args)
    if head == "not" and len(args) == 1:
        return not _holds(args[0], consts, env)
    if head in ("=", "<", "<=", ">", ">=", "distinct") and len(args) >= 2:
        try:
            values = [evaluate(_term(a, consts), env) for a in args]
        except ExpressionError as exc:
            raise NotationError(f"constraint {_node_text(node)[:80]} cannot be evaluated: {exc}") from exc
        return _compare(head, values)
    raise NotationError(f"constraint {_node_text(node)[:80]} cannot be rendered")


def _conjuncts(node: Node) -> list[Node]:
    if isinstance(node, SList) and node.items and isinstance(node.items[0], Token) \
            and node.items[0].text == "and":
        return [c for a in node.items[1:] for c in _conjuncts(a)]
    return [node]


@dataclass
class _Source:
    consts: dict[str, str]  # name -> sort
    defs: dict[str, Expr]  # name -> defining term (insertion order = definition order)
    checks: list[Node]
    target: str


#: the last scripts read (text -> _Source): the renderer and the self-checks read the same
#: formalization in turn (a derived item's notation question, then its Reasoning and Arithmetic
#: audits once the parent's items are all made). A _Source is never changed after it is read.
_READ: dict[str, _Source] = {}
_READ_KEEP = 32


def read_source(smtlib: str, *, near: str | None = None) -> _Source:
    """The definitions, constants, side conditions and target of ``smtlib`` (shared: callers
    must not change the result).

    ``near``: a script that ``smtlib`` may differ from only in lines ``(assert (= NAME
    NUMBER))`` (a derived item's formalization and its parent's, the same but for the
    givens' values). Then only those lines are read, and the rest is taken from ``near``'s
    reading: the same result as reading ``smtlib`` whole. Anything else (another line
    differs, a side condition, push/pop) is read whole."""
    src = _READ.get(smtlib)
    if src is None:
        src = (_read_near(smtlib, near) if near is not None else None) or _read_source(smtlib)
        if len(_READ) >= _READ_KEEP:
            del _READ[next(iter(_READ))]
        _READ[smtlib] = src
    return src


_NUMBER_DEF = re.compile(r"^\(assert \(= ([A-Za-z_][\w]*) ([^()\s]+|\([-/] [^()]+\))\)\)$")


def _read_near(smtlib: str, near: str) -> _Source | None:
    """``smtlib`` read as ``near`` with its differing number definitions read again, or None
    when it cannot be (see :func:`read_source`)."""
    if "(push" in near or "(pop" in near:
        return None
    try:
        base = read_source(near)
    except NotationError:
        return None
    old, new = near.splitlines(), smtlib.splitlines()
    if base.checks or len(old) != len(new):
        return None
    defs = dict(base.defs)
    for a, b in zip(old, new):
        if a == b:
            continue
        ma, mb = _NUMBER_DEF.match(a), _NUMBER_DEF.match(b)
        if ma is None or mb is None or ma.group(1) != mb.group(1) or mb.group(1) not in defs \
                or _literal_term(defs[mb.group(1)]) is None:
            return None
        term = literal_line_term(mb.group(2))      # numbers only: read without the parser
        if term is None:
            try:
                node = parse_script(b).commands[0].args[0]
                term = _term(node.items[2], base.consts) if isinstance(node, SList) else None
            except (VerificationError, NotationError, IndexError):
                return None
        if term is None or _literal_term(term) is None:
            return None
        defs[mb.group(1)] = term
    return _Source(base.consts, defs, base.checks, base.target)


def _literal_term(expr: Expr) -> Expr | None:
    """``expr`` when it is made of numbers only (``12``, ``(- 5)``, ``(/ 25 100)``), else None."""
    if isinstance(expr, Num):
        return expr
    if isinstance(expr, Neg):
        return expr if _literal_term(expr.operand) is not None else None
    if isinstance(expr, BinOp):
        ok = _literal_term(expr.left) is not None and _literal_term(expr.right) is not None
        return expr if ok else None
    return None


def _read_source(smtlib: str) -> _Source:
    try:
        script = parse_script(smtlib)
    except VerificationError as exc:
        raise NotationError(f"the SMT-LIB cannot be read: {exc}") from exc
    consts: dict[str, str] = {}
    defs: dict[str, Expr] = {}
    pending: list[Node] = []
    target: str | None = None
    for cmd in script.commands:
        if cmd.name == "get-value":
            items = cmd.args[0].items if isinstance(cmd.args[0], SList) else []
            if items and target is None:
                target = symbol_name(items[0])
    for cmd in script.active_commands():
        args = cmd.args
        if cmd.name in ("declare-const", "declare-fun"):
            name = symbol_name(args[0]) or ""
            if cmd.name == "declare-fun" and isinstance(args[1], SList) and args[1].items:
                raise NotationError(f"function {quoted(name)} takes arguments; only constants can be rendered")
            sort_node = args[-1]
            sort = sort_node.text if isinstance(sort_node, Token) else _node_text(sort_node)
            if sort not in ("Real", "Int"):
                raise NotationError(f"constant {quoted(name)} has sort {sort}; only Int and Real can be rendered")
            consts[name] = sort
        elif cmd.name in ("define-fun", "define-const"):
            name = symbol_name(args[0]) or ""
            if cmd.name == "define-fun":
                if isinstance(args[1], SList) and args[1].items:
                    raise NotationError(f"function {quoted(name)} takes arguments; only constants can be rendered")
                sort_node, body = args[2], args[3]
            else:
                sort_node, body = args[1], args[2]
            sort = sort_node.text if isinstance(sort_node, Token) else _node_text(sort_node)
            if sort not in ("Real", "Int"):
                raise NotationError(f"{quoted(name)} has sort {sort}; only Int and Real can be rendered")
            consts[name] = sort
            defs[name] = _term(body, consts)
        elif cmd.name == "assert":
            pending.extend(_conjuncts(args[0]))
        elif cmd.name in ("define-fun-rec", "define-funs-rec", "declare-sort", "define-sort"):
            raise NotationError(f"({cmd.name} ...) cannot be rendered")
    checks: list[Node] = []
    # turn (= name TERM) into definitions, in order, until nothing changes
    progress = True
    while pending and progress:
        progress = False
        rest: list[Node] = []
        for node in pending:
            defined = _as_definition(node, consts, defs)
            if defined is None:
                rest.append(node)
            else:
                defs[defined[0]] = defined[1]
                progress = True
        pending = rest
    checks.extend(pending)
    if target is None:
        if TARGET not in consts:
            raise NotationError("no target: the SMT-LIB declares no 'answer' constant and has no (get-value (...))")
        target = TARGET
    if target not in consts:
        raise NotationError(f"the asked-for term {quoted(target)} is not a declared constant")
    return _Source(consts, defs, checks, target)


def _as_definition(node: Node, consts: dict[str, str], defs: dict[str, Expr]) -> tuple[str, Expr] | None:
    if not (isinstance(node, SList) and len(node.items) == 3 and isinstance(node.items[0], Token)
            and node.items[0].text == "="):
        return None
    left, right = node.items[1], node.items[2]
    for lhs, rhs in ((left, right), (right, left)):
        name = symbol_name(lhs) if isinstance(lhs, Token) else None
        if name is None or name not in consts or name in defs:
            continue
        term = _term(rhs, consts)  # an unsupported operator is reported as such
        if name in expr_names(term):
            continue
        return name, term
    return None


# --------------------------------------------------------------------------- rendering


def _substitute(expr: Expr, mapping: dict[str, Expr]) -> Expr:
    if isinstance(expr, Name):
        return mapping.get(expr.name, expr)
    if isinstance(expr, Neg):
        return Neg(_substitute(expr.operand, mapping))
    if isinstance(expr, BinOp):
        return BinOp(expr.op, _substitute(expr.left, mapping), _substitute(expr.right, mapping))
    if isinstance(expr, Call):
        return Call(expr.fn, _substitute(expr.arg, mapping))
    return expr


def _letter(i: int) -> str:
    base = _LETTERS[i % len(_LETTERS)]
    return base if i < len(_LETTERS) else f"{base}{i // len(_LETTERS) + 1}"


def _evaluate(src: _Source) -> dict[str, Fraction]:
    """The value of every definition the target and the side conditions need (dependency
    order), refusing a free constant, a cycle, an Int that is not an integer, a constraint
    that is no definition or does not hold."""
    defs = src.defs
    env: dict[str, Fraction] = {}
    visiting: set[str] = set()

    def value_of(name: str) -> Fraction:
        return _value_of(name, src, env, visiting)

    value_of(src.target)
    for check in src.checks:
        names_in_check = _check_names(check)
        for n in names_in_check:
            if n not in defs:
                raise NotationError(
                    f"constraint {_node_text(check)[:80]} is not a definition "
                    "(inequalities and implicit equations cannot be rendered)"
                )
            value_of(n)
        if not _holds(check, src.consts, env):
            raise NotationError(f"constraint {_node_text(check)[:80]} does not hold for the defined values")
    return env


def _value_of(name: str, src: _Source, env: dict[str, Fraction], visiting: set[str]) -> Fraction:
    """For :func:`_evaluate`: the value of ``name``, kept in ``env`` (a function of the module: a
    closure that calls itself is a reference cycle, which only the cyclic garbage collector frees)."""
    defs = src.defs
    if name in env:
        return env[name]
    if name not in defs:
        raise NotationError(
            f"{quoted(name)} is not defined by any (assert (= {name} ...)) or define-fun; "
            "the SMT-LIB must be solved, not just computed"
        )
    if name in visiting:
        raise NotationError(f"the definition of {quoted(name)} depends on itself")
    visiting.add(name)
    for dep in expr_names(defs[name]):
        _value_of(dep, src, env, visiting)
    try:
        val = evaluate(defs[name], env)
    except ExpressionError as exc:
        raise NotationError(f"the definition of {quoted(name)} cannot be computed: {exc}") from exc
    visiting.discard(name)
    if src.consts.get(name) == "Int" and val.denominator != 1:
        raise NotationError(f"{quoted(name)} is an Int but its definition evaluates to {val}")
    env[name] = val
    return val


def _needed_in_order(src: _Source) -> list[str]:
    """The definitions the target depends on, in a topological order that is stable by
    definition order."""
    defs = src.defs
    stack = [src.target]
    seen: set[str] = set()
    while stack:
        cur = stack.pop()
        if cur in seen:
            continue
        seen.add(cur)
        stack.extend(expr_names(defs[cur]))
    order = [n for n in defs if n in seen]
    placed: list[str] = []
    placed_set: set[str] = set()
    while len(placed) < len(order):
        for n in order:
            if n not in placed_set and all(d in placed_set for d in expr_names(defs[n])):
                placed.append(n)
                placed_set.add(n)
                break
    return placed


class _Aliases:
    """``x = y`` (y a name) is substituted away; the target keeps its name (when the target
    is an alias of a derived step, that step becomes the target)."""

    def __init__(self, defs: dict[str, Expr], derived: list[str], target: str) -> None:
        self.alias: dict[str, Expr] = {}
        self.body: dict[str, Expr] = {n: defs[n] for n in derived}
        rename_to_target: str | None = None
        tgt_body = self.body[target]
        if isinstance(tgt_body, Name) and tgt_body.name in self.body:
            rename_to_target = tgt_body.name
        for n in derived:
            if n != target and isinstance(self.body[n], Name):
                self.alias[n] = self.body[n]
        if rename_to_target is not None:
            real = self.resolve(Name(rename_to_target))
            if isinstance(real, Name) and real.name in self.body and real.name not in self.alias:
                self.body[target] = self.body[real.name]
                del self.body[real.name]
                self.alias[real.name] = Name(target)
        self.steps = [n for n in derived if n in self.body and n not in self.alias]

    def resolve(self, e: Expr) -> Expr:
        """Follow alias chains."""
        for _ in range(len(self.alias) + 1):
            new = _substitute(e, self.alias)
            if new == e:
                return e
            e = new
        return e


class _Naming:
    """The notation's names: given numbers become ``a, b, c, ...`` as they first appear
    (the same number twice in one definition is a second given; in another definition it
    reuses its letter), derived steps ``s1, s2, ...``, the target ``answer``."""

    def __init__(self, aliases: _Aliases, given_named: list[str], env: dict[str, Fraction],
                 target: str) -> None:
        self.aliases = aliases
        self.given_named = given_named
        self.env = env
        self.target = target
        self.letters: dict[tuple[object, ...], str] = {}
        self.variables: dict[str, Fraction] = {}
        self.source_names: dict[str, str] = {}
        self.step_names: dict[str, str] = {}
        self.occurrences: dict[Fraction, int] = {}  # per definition: how often each value was seen

    def given_var(self, key: tuple[object, ...], value: Fraction, source: str) -> str:
        if key not in self.letters:
            letter = _letter(len(self.letters))
            self.letters[key] = letter
            self.variables[letter] = value
            self.source_names[letter] = source
        return self.letters[key]

    def convert(self, e: Expr) -> Expr:
        lit = _literal(e)
        if lit is not None:
            k = self.occurrences.get(lit, 0)
            self.occurrences[lit] = k + 1
            return Name(self.given_var(("lit", lit, k), lit, ""))
        if isinstance(e, Name):
            target_name = self.aliases.resolve(e)
            if isinstance(target_name, Name):
                n = target_name.name
                if n in self.step_names:
                    return Name(self.step_names[n])
                if n == self.target:
                    return Name(TARGET)
                if n in self.given_named:
                    return Name(self.given_var(("name", n), self.env[n], n))
                raise NotationError(f"internal: {n!r} used before it is defined")  # pragma: no cover
            return self.convert(target_name)
        if isinstance(e, Neg):
            return Neg(self.convert(e.operand))
        if isinstance(e, BinOp):
            return BinOp(e.op, self.convert(e.left), self.convert(e.right))
        if isinstance(e, Call):
            return Call(e.fn, self.convert(e.arg))
        raise NotationError(f"internal: unexpected term {e!r}")  # pragma: no cover

    def definition(self, body: Expr) -> Expr:
        self.occurrences.clear()
        return self.convert(body)


def render_notation(smtlib: str) -> NotationQuestion:
    """Render a definitional SMT-LIB formalization as a notation-only question.

    Deterministic (same input, same bytes). Raises NotationError for anything it
    cannot render faithfully: constraints that are not definitions (inequalities,
    equations the answer must be solved from), operators other than + - * /,
    non-Int/Real sorts, an Int constant whose definition is not an integer, or a
    side condition that does not hold."""
    src = read_source(smtlib)
    src = _solved_for_its_unknown(src) or src
    defs = src.defs
    env = _evaluate(src)
    needed = _needed_in_order(src)
    given_named = [n for n in needed if _literal(defs[n]) is not None]
    derived = [n for n in needed if _literal(defs[n]) is None]
    if src.target in given_named:
        raise NotationError(
            f"{quoted(src.target)} is stated directly as {format_number(env[src.target])}; there is nothing to compute"
        )
    aliases = _Aliases(defs, derived, src.target)
    naming = _Naming(aliases, given_named, env, src.target)
    definitions: list[tuple[str, Expr]] = []
    for n in aliases.steps:
        if n == src.target:
            continue
        converted = naming.definition(aliases.body[n])
        new_name = f"s{len(naming.step_names) + 1}"
        naming.step_names[n] = new_name
        naming.source_names[new_name] = n
        definitions.append((new_name, converted))
    target_expr = naming.definition(aliases.body[src.target])
    if isinstance(target_expr, Name) and not definitions:
        raise NotationError(
            f"{quoted(src.target)} is just the given number {format_number(env[src.target])}; there is nothing to compute"
        )
    definitions.append((TARGET, target_expr))
    naming.source_names[TARGET] = src.target
    if not naming.variables:
        raise NotationError("the formalization has no given numbers")
    givens_text = _join([f"{k} = {format_number(v)}" for k, v in naming.variables.items()])
    derived_text = _join([f"{k} = {render_infix(e)}" for k, e in definitions])
    text = f"Let {givens_text}. Let {derived_text}. What is the value of {TARGET}?"
    q = NotationQuestion(text, naming.variables, TARGET, definitions, naming.source_names)
    if q.value != env[src.target]:  # pragma: no cover - guarded by construction
        raise NotationError("internal: the rendered question does not evaluate to the SMT-LIB value")
    return q


def _solved_for_its_unknown(src: _Source) -> _Source | None:
    """A formalization that declares one unknown and asserts one equation linear in it (the
    ``gsm8k-algebra`` rule's "x + 2x + (1/2)x = 105", an equation import's "x + 27 = 70") read
    with the unknown defined by the equation's solution in its terms (``x = 105 / (1 + 2 + 1/2)``,
    :func:`.notation_solve.solve_linear`); the equation stays a side condition, so the rendering
    is checked to satisfy it. None when the formalization is not of that shape (it is then read
    as it is)."""
    from qcstation.core.construct.make.notation_solve import solve_linear

    free = [n for n in src.consts if n not in src.defs]
    if len(free) != 1 or not src.checks:
        return None
    unknown = free[0]
    eqs = [c for c in src.checks if unknown in _check_names(c)]
    if len(eqs) != 1:
        return None
    node = eqs[0]
    if not (isinstance(node, SList) and len(node.items) == 3 and isinstance(node.items[0], Token)
            and node.items[0].text == "="):
        return None
    try:
        left, right = _term(node.items[1], src.consts), _term(node.items[2], src.consts)
    except NotationError:
        return None
    solved = solve_linear(left, right, unknown, src.defs)
    if solved is None:
        return None
    defs = dict(src.defs)
    defs[unknown] = solved
    return _Source(src.consts, defs, src.checks, src.target)


def _check_names(node: Node) -> list[str]:
    out: list[str] = []
    if isinstance(node, Token):
        if node.kind in ("symbol", "qsymbol"):
            n = symbol_name(node)
            if n and n not in ("true", "false"):
                out.append(n)
        return out
    for i, item in enumerate(node.items):
        if i == 0 and isinstance(item, Token):
            continue  # the operator
        out.extend(_check_names(item))
    return out


# --------------------------------------------------------------------------- text -> structure -> SMT-LIB

_TEXT_RE = re.compile(r"^Let (?P<givens>.+?)\. Let (?P<derived>.+)\. What is the value of (?P<target>\w+)\?$", re.S)
_ITEM_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+?)\s*$")


def _split_items(text: str) -> list[str]:
    head, sep, last = text.rpartition(" and ")
    if not sep:
        return [text]
    return [*head.split(", "), last]


def parse_notation_text(text: str) -> NotationQuestion:
    """Parse a question in the rendered form back into its structure (raises
    NotationError when the text is not in that form)."""
    m = _TEXT_RE.match(text.strip())
    if not m:
        raise NotationError("the text is not in the form 'Let ... . Let ... . What is the value of X?'")
    variables: dict[str, Fraction] = {}
    for item in _split_items(m.group("givens")):
        im = _ITEM_RE.match(item)
        if not im:
            raise NotationError(f"cannot read the given {quoted(item)}")
        name, value_text = im.groups()
        try:
            value_expr = parse_expression(value_text)
            value = evaluate(value_expr)
        except ExpressionError as exc:
            raise NotationError(f"the given {quoted(item)} is not a number: {exc}") from exc
        if not (_literal(value_expr) is not None or _is_fraction_literal(value_expr)):
            raise NotationError(f"the given {quoted(item)} is not a single number")
        if name in variables:
            raise NotationError(f"{quoted(name)} is given twice")
        variables[name] = value
    definitions: list[tuple[str, Expr]] = []
    known = set(variables)
    for item in _split_items(m.group("derived")):
        im = _ITEM_RE.match(item)
        if not im:
            raise NotationError(f"cannot read the definition {quoted(item)}")
        name, expr_text = im.groups()
        try:
            expr = read_rounding(expr_text) or parse_expression(expr_text, names=True)
        except ExpressionError as exc:
            raise NotationError(f"the definition {quoted(item)} is not arithmetic: {exc}") from exc
        unknown = [n for n in expr_names(expr) if n not in known]
        if unknown:
            raise NotationError(f"{quoted(item)} uses {', '.join(unknown)} before it is defined")
        if name in known:
            raise NotationError(f"{quoted(name)} is defined twice")
        known.add(name)
        definitions.append((name, expr))
    target = m.group("target")
    if target not in {n for n, _ in definitions}:
        raise NotationError(f"the asked-for {quoted(target)} is not defined")
    return NotationQuestion(text, variables, target, definitions)


def _is_fraction_literal(expr: Expr) -> bool:
    if isinstance(expr, Neg):
        return _is_fraction_literal(expr.operand)
    return isinstance(expr, BinOp) and expr.op == "/" and isinstance(expr.left, Num) and isinstance(expr.right, Num)


def notation_to_smtlib(q: NotationQuestion) -> str:
    """SMT-LIB rebuilt from the question text itself (parsed back), following the
    verifier's convention (a Real constant per variable, ``answer`` the target)."""
    parsed = parse_notation_text(q.text)
    if parsed.target != TARGET:
        # keep the verifier's convention: the asked-for quantity is 'answer'
        raise NotationError(f"the question asks for {quoted(parsed.target)}, not {quoted(TARGET)}")
    return question_smtlib(parsed)


def question_smtlib(q: NotationQuestion) -> str:
    """The SMT-LIB of a notation question's structure, by the verifier's convention: a
    Real constant per name, the givens and steps as equalities, ``answer`` the asked-for
    quantity (defined as the target when the question asks for another name)."""
    exprs = [e for _, e in q.definitions]
    ints = "I" if any(has_call(e) for e in exprs) else ""  # a rounding: to_int (Reals_Ints)
    logic = f"{'QF_N' if any(is_nonlinear(e) for e in exprs) else 'QF_L'}{ints}RA"
    lines = [f"(set-logic {logic})"]
    names = [*q.variables, *(n for n, _ in q.definitions)]
    lines.extend(f"(declare-const {n} Real)" for n in names)
    lines.extend(f"(assert (= {n} {fraction_to_smt(v)}))" for n, v in q.variables.items())
    lines.extend(f"(assert (= {n} {expr_to_sexpr(e)}))" for n, e in q.definitions)
    if q.target != TARGET:
        lines.append(f"(declare-const {TARGET} Real)")
        lines.append(f"(assert (= {TARGET} {q.target}))")
    lines.append("(check-sat)")
    lines.append(f"(get-value ({TARGET}))")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- rephrasing check

#: the words a notation question may use between its definitions, in any wording (the
#: reader of free wordings and the rephrasing check share them; no story words)
NOTATION_WORDS = frozenset(
    """a above all also an and answer are as assume at be below both by calculate compute decimal
    define defined denote denoted denotes determine each equal equals evaluate exact exactly
    expression expressions final finally find first following for form fraction from get give
    given greatest has have here if in is it its known least let let's most nearest next
    now number numbers obtain of or out please quantities quantity result round rounded set
    simplified simplify so state step steps suppose terms that the then there these this those ties
    to up use using value values variable variables was we what where which whole with work you
    your""".split()
)
# a rephrasing may also spell the operators out and label its parts
