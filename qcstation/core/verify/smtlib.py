"""A small, strict SMT-LIB v2 reader and command allow-list for untrusted scripts.

SMT-LIB written by a model is untrusted. Before Z3 sees any of it, the text is
tokenized and read into S-expressions here (balanced parentheses, ``"string"``
literals with ``""`` escapes, ``|quoted symbols|``, ``;`` comments), with a size
limit (:data:`MAX_BYTES`) and a nesting-depth limit (:data:`MAX_DEPTH`). Every
top-level command is then checked against an allow-list:

* passed to Z3: ``declare-const``, ``declare-fun``, ``declare-sort``,
  ``define-sort``, ``define-fun``, ``define-const``, ``define-fun-rec``,
  ``define-funs-rec``, ``assert``;
* interpreted here and never shown to Z3: ``set-logic``, ``set-info``,
  ``set-option`` (only harmless options, see :data:`ALLOWED_OPTIONS`),
  ``check-sat``, ``get-value``, ``get-model``, ``push``, ``pop``, ``echo``,
  ``exit``.

Anything else (``include``, ``eval``, ``simplify``, ``get-info``, ``reset``,
``set-option :regular-output-channel``, ...) raises :class:`SmtDisallowedError`
naming the command and its line. The text handed to Z3 is rebuilt from the
validated tokens only (comments dropped, tokens placed on their original lines so
Z3's ``line N`` error messages point at the model's own lines).

``push``/``pop`` are simulated: :meth:`Script.active_commands` returns the
declarations, definitions and assertions in force at the last ``(check-sat)``
(or at the end of the script when there is none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Union

from qcstation.common.errors import VerificationError
from qcstation.common.safe import quoted

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "ALLOWED_COMMANDS",
    "ALLOWED_OPTIONS",
    "Token",
    "SList",
    "Node",
    "Command",
    "Script",
    "SmtSyntaxError",
    "SmtDisallowedError",
    "tokenize",
    "read_sexprs",
    "parse_script",
    "symbol_name",
    "render_nodes",
]

MAX_BYTES = 200_000
MAX_DEPTH = 100

#: commands whose text is handed to Z3
SOLVER_COMMANDS = frozenset({
    "declare-const", "declare-fun", "declare-sort", "define-sort", "define-fun",
    "define-const", "define-fun-rec", "define-funs-rec", "assert",
})
#: commands interpreted by the verifier itself (never shown to Z3)
META_COMMANDS = frozenset({
    "set-logic", "set-info", "set-option", "check-sat", "get-value", "get-model",
    "push", "pop", "echo", "exit",
})
ALLOWED_COMMANDS = SOLVER_COMMANDS | META_COMMANDS

#: ``set-option`` keywords accepted (and then ignored: the verifier sets its own options)
ALLOWED_OPTIONS = frozenset({
    ":produce-models", ":produce-assignments", ":produce-unsat-cores",
    ":produce-unsat-assumptions", ":produce-proofs", ":print-success",
    ":random-seed", ":timeout", ":verbosity",
})

_SIMPLE_SYMBOL_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789~!@$%^&*_-+=<>.?/"
)
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")


class SmtSyntaxError(VerificationError):
    """The text is not well-formed SMT-LIB (or exceeds a size/depth limit)."""

    def __init__(self, message: str, line: int = 0, col: int = 0) -> None:
        where = f"line {line}: " if line else ""
        super().__init__(where + message, title="SMT-LIB syntax error")
        self.line = line
        self.col = col
        self.detail = message


class SmtDisallowedError(VerificationError):
    """A command (or option) outside the allow-list."""

    def __init__(self, message: str, command: str, line: int = 0, col: int = 0) -> None:
        where = f"line {line}: " if line else ""
        super().__init__(where + message, title="SMT-LIB command not allowed")
        self.command = command
        self.line = line
        self.col = col


@dataclass(frozen=True)
class Token:
    kind: str  # ( ) symbol qsymbol keyword numeral decimal hex binary string
    text: str
    line: int
    col: int

    @property
    def end_line(self) -> int:
        return self.line + self.text.count("\n")


@dataclass
class SList:
    items: list["Node"]
    open: Token
    close: Token

    @property
    def line(self) -> int:
        return self.open.line

    @property
    def col(self) -> int:
        return self.open.col


Node = Union[Token, SList]


def symbol_name(node: Node) -> str | None:
    """The name of a simple or ``|quoted|`` symbol (``|x|`` and ``x`` are the same)."""
    if isinstance(node, Token):
        if node.kind == "symbol":
            return node.text
        if node.kind == "qsymbol":
            return node.text[1:-1]
    return None


def tokenize(text: str, max_bytes: int = MAX_BYTES) -> list[Token]:
    """Split SMT-LIB text into tokens; comments and whitespace are dropped. The first
    character of a token chooses its reader (:func:`_reader`), which returns the token and
    where it ends."""
    if not isinstance(text, str):
        raise SmtSyntaxError(f"expected text, got {type(text).__name__}")
    size = len(text.encode("utf-8", errors="replace"))
    if size > max_bytes:
        raise SmtSyntaxError(f"the SMT-LIB text is {size} bytes; the limit is {max_bytes} bytes")
    tokens: list[Token] = []
    i, n = 0, len(text)
    line, line_start = 1, 0
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            line_start = i
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == ";":
            j = text.find("\n", i)
            i = n if j == -1 else j
            continue
        col = i - line_start + 1
        read = _reader(c)
        if read is None:
            shown = quoted(c)
            raise SmtSyntaxError(f"unexpected character {shown}", line, col)
        token, j = read(text, i, line, col)
        tokens.append(token)
        if token.kind in _DELIMITED:
            _check_delimited(text, j, line, j - line_start + 1)
        newlines = token.text.count("\n")  # only strings and quoted symbols span lines
        if newlines:
            line += newlines
            line_start = i + token.text.rfind("\n") + 1
        i = j
    return tokens


#: token kinds that must be followed by a delimiter (a numeral checks its own end)
_DELIMITED = frozenset({"hex", "binary", "keyword", "symbol"})

_Reader = Callable[[str, int, int, int], tuple[Token, int]]


def _reader(c: str) -> _Reader | None:
    """The reader of a token starting with ``c`` (None: no token starts so)."""
    if c == "(" or c == ")":
        return _read_paren
    if c == '"':
        return _read_string
    if c == "|":
        return _read_qsymbol
    if c == "#":
        return _read_radix
    if c in _DIGITS:
        return _read_number
    if c == ":":
        return _read_keyword
    if c in _SIMPLE_SYMBOL_CHARS:
        return _read_symbol
    return None


def _read_paren(text: str, i: int, line: int, col: int) -> tuple[Token, int]:
    return Token(text[i], text[i], line, col), i + 1


def _read_string(text: str, i: int, line: int, col: int) -> tuple[Token, int]:
    n, j = len(text), i + 1
    while True:
        k = text.find('"', j)
        if k == -1:
            raise SmtSyntaxError("string literal is never closed (missing '\"')", line, col)
        if k + 1 < n and text[k + 1] == '"':  # "" is an escaped quote
            j = k + 2
            continue
        break
    lit = text[i : k + 1]
    if "\x00" in lit:
        raise SmtSyntaxError("NUL character inside a string literal", line, col)
    return Token("string", lit, line, col), k + 1


def _read_qsymbol(text: str, i: int, line: int, col: int) -> tuple[Token, int]:
    k = text.find("|", i + 1)
    if k == -1:
        raise SmtSyntaxError("quoted symbol is never closed (missing '|')", line, col)
    lit = text[i : k + 1]
    if "\\" in lit or "\x00" in lit:
        raise SmtSyntaxError("a |quoted symbol| may not contain '\\' or NUL", line, col)
    return Token("qsymbol", lit, line, col), k + 1


def _read_radix(text: str, i: int, line: int, col: int) -> tuple[Token, int]:
    """``#x1F`` or ``#b101``."""
    n = len(text)
    if i + 1 < n and text[i + 1] in "xb":
        digits = _HEX if text[i + 1] == "x" else frozenset("01")
        j = i + 2
        while j < n and text[j] in digits:
            j += 1
        if j == i + 2:
            raise SmtSyntaxError(f"malformed literal {quoted(text[i:i + 3])}", line, col)
        return Token("hex" if text[i + 1] == "x" else "binary", text[i:j], line, col), j
    raise SmtSyntaxError("unexpected character '#'", line, col)


def _read_number(text: str, i: int, line: int, col: int) -> tuple[Token, int]:
    """A numeral or a decimal; a number run into symbol characters (``2x``) is refused."""
    n, j = len(text), i
    while j < n and text[j] in _DIGITS:
        j += 1
    kind = "numeral"
    if j < n and text[j] == ".":
        k = j + 1
        while k < n and text[k] in _DIGITS:
            k += 1
        if k == j + 1:
            raise SmtSyntaxError(f"malformed decimal {quoted(text[i:k])}", line, col)
        j, kind = k, "decimal"
    if j < n and text[j] in _SIMPLE_SYMBOL_CHARS:
        # e.g. "2x": not a numeral and not a symbol (symbols cannot start with a digit)
        k = j
        while k < n and text[k] in _SIMPLE_SYMBOL_CHARS:
            k += 1
        raise SmtSyntaxError(
            f"{quoted(text[i:k])} is neither a number nor a symbol "
            "(write multiplication as (* 2 x))", line, col)
    return Token(kind, text[i:j], line, col), j


def _read_keyword(text: str, i: int, line: int, col: int) -> tuple[Token, int]:
    n, j = len(text), i + 1
    while j < n and text[j] in _SIMPLE_SYMBOL_CHARS:
        j += 1
    if j == i + 1:
        raise SmtSyntaxError("':' must start a keyword such as :produce-models", line, col)
    return Token("keyword", text[i:j], line, col), j


def _read_symbol(text: str, i: int, line: int, col: int) -> tuple[Token, int]:
    n, j = len(text), i
    while j < n and text[j] in _SIMPLE_SYMBOL_CHARS:
        j += 1
    return Token("symbol", text[i:j], line, col), j


def _check_delimited(text: str, j: int, line: int, col: int) -> None:
    if j < len(text) and text[j] not in " \t\r\n\f\v();\"|":
        c = text[j]
        shown = quoted(c)
        raise SmtSyntaxError(f"unexpected character {shown}", line, col)


def read_sexprs(text: str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> list[Node]:
    """Read all top-level S-expressions (iteratively; no recursion on untrusted depth)."""
    tokens = tokenize(text, max_bytes)
    top: list[Node] = []
    stack: list[tuple[Token, list[Node]]] = []
    for tok in tokens:
        if tok.kind == "(":
            if len(stack) >= max_depth:
                raise SmtSyntaxError(
                    f"expressions are nested more than {max_depth} levels deep", tok.line, tok.col)
            stack.append((tok, []))
        elif tok.kind == ")":
            if not stack:
                raise SmtSyntaxError(
                    "unbalanced parenthesis: ')' has no matching '('", tok.line, tok.col)
            open_tok, items = stack.pop()
            node = SList(items, open_tok, tok)
            (stack[-1][1] if stack else top).append(node)
        else:
            (stack[-1][1] if stack else top).append(tok)
    if stack:
        # report the top-level command that is never closed: that is where a ')' is missing
        open_tok = stack[0][0]
        head = stack[0][1][0] if stack[0][1] and isinstance(stack[0][1][0], Token) else None
        what = f"the command ({head.text} ...)" if head is not None else "the '('"
        raise SmtSyntaxError(
            f"unbalanced parenthesis: {what} starting at column {open_tok.col} is never closed"
            f" ({len(stack)} ')' missing by the end of the text)", open_tok.line, open_tok.col)
    return top


@dataclass
class Command:
    name: str
    node: SList

    @property
    def line(self) -> int:
        return self.node.line

    @property
    def args(self) -> list[Node]:
        return self.node.items[1:]

    def declared_name(self) -> str | None:
        """Name introduced by a declare-*/define-* command."""
        if self.name in ("declare-const", "declare-fun", "define-fun", "define-const",
                         "define-fun-rec", "declare-sort", "define-sort") and self.args:
            return symbol_name(self.args[0])
        return None


@dataclass
class Script:
    """A validated script: its commands and what the verifier needs to know about them."""

    commands: list[Command]
    check_sat_count: int = 0
    logic: str | None = None
    notes: list[str] = field(default_factory=list)
    _active: list[Command] = field(default_factory=list)

    def active_commands(self) -> list[Command]:
        """Declarations/definitions/assertions in force at the last check-sat (or the end)."""
        return list(self._active)


def _expect_args(cmd: Command, low: int, high: int | None, shape: str) -> None:
    k = len(cmd.args)
    if k < low or (high is not None and k > high):
        raise SmtSyntaxError(f"malformed command, expected {shape}", cmd.line, cmd.node.col)


def _expect_symbol(cmd: Command, node: Node, what: str) -> str:
    name = symbol_name(node)
    if name is None:
        shown = node.text if isinstance(node, Token) else "(...)"
        line = node.line
        raise SmtSyntaxError(f"({cmd.name} ...): expected {what}, found {shown}", line)
    return name


def _validate(cmd: Command) -> None:
    name, args = cmd.name, cmd.args
    if name == "set-logic":
        _expect_args(cmd, 1, 1, "(set-logic LOGIC)")
        _expect_symbol(cmd, args[0], "a logic name such as QF_LIA")
    elif name == "set-option":
        _expect_args(cmd, 1, 2, "(set-option :KEYWORD VALUE)")
        key = args[0]
        if not (isinstance(key, Token) and key.kind == "keyword"):
            raise SmtSyntaxError("(set-option ...) expects a :keyword", cmd.line)
        if key.text not in ALLOWED_OPTIONS:
            raise SmtDisallowedError(
                f"(set-option {key.text} ...) is not allowed; allowed options: "
                + ", ".join(sorted(ALLOWED_OPTIONS)),
                f"set-option {key.text}", cmd.line, cmd.node.col)
        if len(args) == 2 and isinstance(args[1], SList):
            raise SmtSyntaxError(f"(set-option {key.text} ...) expects a simple value", cmd.line)
    elif name == "set-info":
        _expect_args(cmd, 1, 2, "(set-info :KEYWORD VALUE)")
        if not (isinstance(args[0], Token) and args[0].kind == "keyword"):
            raise SmtSyntaxError("(set-info ...) expects a :keyword", cmd.line)
    elif name == "declare-const":
        _expect_args(cmd, 2, 2, "(declare-const NAME SORT)")
        _expect_symbol(cmd, args[0], "a constant name")
    elif name == "declare-fun":
        _expect_args(cmd, 3, 3, "(declare-fun NAME (ARG-SORTS) SORT)")
        _expect_symbol(cmd, args[0], "a function name")
        if not isinstance(args[1], SList):
            raise SmtSyntaxError("(declare-fun NAME (ARG-SORTS) SORT): the argument sorts "
                                 "must be a list, e.g. ()", cmd.line)
    elif name in ("define-fun", "define-fun-rec"):
        _expect_args(cmd, 4, 4, f"({name} NAME ((ARG SORT) ...) SORT BODY)")
        _expect_symbol(cmd, args[0], "a function name")
        if not isinstance(args[1], SList):
            raise SmtSyntaxError(f"({name} NAME ((ARG SORT) ...) SORT BODY): the arguments "
                                 "must be a list, e.g. ()", cmd.line)
    elif name == "define-funs-rec":
        _expect_args(cmd, 2, 2, "(define-funs-rec (DECLS) (BODIES))")
    elif name == "define-const":
        _expect_args(cmd, 3, 3, "(define-const NAME SORT TERM)")
        _expect_symbol(cmd, args[0], "a constant name")
    elif name == "declare-sort":
        _expect_args(cmd, 1, 2, "(declare-sort NAME ARITY)")
        _expect_symbol(cmd, args[0], "a sort name")
    elif name == "define-sort":
        _expect_args(cmd, 3, 3, "(define-sort NAME (PARAMS) SORT)")
        _expect_symbol(cmd, args[0], "a sort name")
    elif name == "assert":
        _expect_args(cmd, 1, 1, "(assert TERM)")
    elif name in ("check-sat", "get-model", "exit"):
        _expect_args(cmd, 0, 0, f"({name}) with no arguments")
    elif name == "get-value":
        _expect_args(cmd, 1, 1, "(get-value (TERM ...))")
        if not isinstance(args[0], SList) or not args[0].items:
            raise SmtSyntaxError("(get-value ...) expects a non-empty list of terms, "
                                 "e.g. (get-value (answer))", cmd.line)
    elif name in ("push", "pop"):
        _expect_args(cmd, 0, 1, f"({name} N)")
        if args and not (isinstance(args[0], Token) and args[0].kind == "numeral"):
            raise SmtSyntaxError(f"({name} N) expects a numeral", cmd.line)
        if args and int(args[0].text) > 1000:  # type: ignore[union-attr]
            raise SmtSyntaxError(f"({name} {args[0].text}) is too many levels", cmd.line)  # type: ignore[union-attr]
    elif name == "echo":
        _expect_args(cmd, 1, 1, '(echo "TEXT")')
        if not (isinstance(args[0], Token) and args[0].kind == "string"):
            raise SmtSyntaxError('(echo ...) expects a string literal', cmd.line)


def _check_starts_with_command(text: str) -> None:
    """Prose or Markdown instead of SMT-LIB: say so before any token-level complaint."""
    if not isinstance(text, str):
        return
    line = 1
    for raw in text[:MAX_BYTES].split("\n"):
        stripped = raw.strip()
        if stripped and not stripped.startswith(";"):
            if not stripped.startswith("("):
                word = stripped.split()[0][:40]
                hint = " (remove Markdown code fences)" if stripped.startswith("```") else ""
                raise SmtSyntaxError(
                    f"expected a command in parentheses, found {quoted(word)}{hint}", line)
            return
        line += 1


def parse_script(text: str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Script:
    """Read and validate an untrusted script.

    Raises :class:`SmtSyntaxError` (malformed text, empty input, limits) or
    :class:`SmtDisallowedError` (first command or option outside the allow-list).
    """
    if isinstance(text, str) and text.startswith("\ufeff"):
        text = text[1:]  # a UTF-8 byte-order mark is not part of the script
    _check_starts_with_command(text)
    nodes = read_sexprs(text, max_bytes, max_depth)
    if not nodes:
        raise SmtSyntaxError("no SMT-LIB commands found (the input is empty or only comments)")
    commands: list[Command] = []
    for node in nodes:
        if isinstance(node, Token):
            raise SmtSyntaxError(
                f"expected a command in parentheses, found {quoted(node.text[:40])}", node.line, node.col)
        if not node.items:
            raise SmtSyntaxError("empty command '()'", node.line, node.col)
        head = node.items[0]
        if not (isinstance(head, Token) and head.kind == "symbol"):
            shown = head.text[:40] if isinstance(head, Token) else "(...)"
            raise SmtSyntaxError(f"expected a command name after '(', found {quoted(shown)}",
                                 node.line, node.col)
        cmd = Command(head.text, node)
        if cmd.name not in ALLOWED_COMMANDS:
            raise SmtDisallowedError(
                f"command ({cmd.name} ...) is not allowed; a formalization may only use "
                + ", ".join(sorted(ALLOWED_COMMANDS)),
                cmd.name, node.line, node.col)
        _validate(cmd)
        commands.append(cmd)

    script = Script(commands)
    frames: list[list[Command]] = [[]]
    snapshot: list[Command] | None = None
    for cmd in commands:
        if cmd.name == "exit":
            break
        if cmd.name in SOLVER_COMMANDS:
            frames[-1].append(cmd)
        elif cmd.name == "push":
            for _ in range(int(cmd.args[0].text) if cmd.args else 1):  # type: ignore[union-attr]
                frames.append([])
        elif cmd.name == "pop":
            k = int(cmd.args[0].text) if cmd.args else 1  # type: ignore[union-attr]
            if k > len(frames) - 1:
                raise SmtSyntaxError(
                    f"(pop {k}) but only {len(frames) - 1} (push) level(s) are open", cmd.line)
            del frames[len(frames) - k:]
        elif cmd.name == "check-sat":
            script.check_sat_count += 1
            snapshot = [c for f in frames for c in f]
        elif cmd.name == "set-logic":
            script.logic = symbol_name(cmd.args[0])
    if snapshot is None:
        snapshot = [c for f in frames for c in f]
        script.notes.append("the script has no (check-sat); it was checked anyway")
    script._active = snapshot
    return script


class _Renderer:
    """Emit tokens at (at least) their original line, so Z3's line numbers stay meaningful."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.line = 1
        self.col = 1

    def raw(self, s: str) -> None:
        if not s:
            return
        if self.col > 1 and self.parts and not self.parts[-1].endswith((" ", "\n", "(")) \
                and not s.startswith((" ", ")")):
            self.parts.append(" ")
            self.col += 1
        self.parts.append(s)
        nl = s.count("\n")
        if nl:
            self.line += nl
            self.col = len(s) - s.rfind("\n")
        else:
            self.col += len(s)

    def token(self, tok: Token) -> None:
        if tok.line > self.line:
            self.parts.append("\n" * (tok.line - self.line))
            self.line = tok.line
            self.col = 1
        if tok.line == self.line and tok.col > self.col:
            self.parts.append(" " * (tok.col - self.col))
            self.col = tok.col
        self.raw(tok.text)

    def node(self, node: Node) -> None:
        # iterative walk: depth is bounded by MAX_DEPTH, but keep it non-recursive anyway
        stack: list[tuple[Node, int]] = [(node, 0)]
        while stack:
            cur, idx = stack.pop()
            if isinstance(cur, Token):
                self.token(cur)
                continue
            if idx == 0:
                self.token(cur.open)
            if idx < len(cur.items):
                stack.append((cur, idx + 1))
                stack.append((cur.items[idx], 0))
            else:
                self.token(cur.close)

    def text(self) -> str:
        return "".join(self.parts) + "\n"


def render_nodes(items: Sequence[Node | str]) -> str:
    """Rebuild text from validated nodes (and verifier-made snippets given as ``str``)."""
    r = _Renderer()
    for item in items:
        if isinstance(item, str):
            r.raw(item)
        else:
            r.node(item)
    return r.text()
