"""Reading a notation question in any plain wording back into its own SMT-LIB.

:func:`notation.parse_notation_text` reads only the exact rendered form
(``Let … . Let … . What is the value of answer?``). People and models word the same
question differently: ``Given a = 16 and b = 3, let answer = a × b. Find answer.`` or
``Suppose s1 = a − b; answer = s1 times d, where a = 16, b = 3, d = 2. Compute answer.``
:func:`read_notation` accepts any such wording and refuses, with the reason, anything it
cannot read faithfully, so that what Z3 checks is the question a reader sees:

* every ``NAME = EXPRESSION`` (also ``NAME := …``, ``NAME equals …``, ``NAME is equal to
  …``, ``let NAME be …``) is a definition; ``plus minus times``, ``multiplied by`` and
  ``divided by`` may stand for the operators;
* a name defined twice is refused (two conflicting definitions of ``answer`` are two
  questions, not one), as is a name used but never defined, a definition that depends on
  itself, division by zero, a number or operator outside any definition, and any word
  outside the small notation vocabulary (no story);
* the asked-for quantity is the one defined name the last asking sentence (``What is
  …?``, ``Find …``, ``Compute …``) mentions outside a definition; it must be computed,
  not given.

:func:`notation_smtlib_of` builds the script from that structure by the verifier's
convention (a Real constant per name, ``answer`` the target; a target of another name
gets ``answer`` defined as it). The rendered form reads to the same script as
:func:`notation.notation_to_smtlib`.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.common.safe import quoted
from qcstation.core.construct.make.notation import (NOTATION_WORDS, NotationError, NotationQuestion, format_number,
                                              question_smtlib)
from qcstation.core.construct.make.rules import (
    BinOp,
    Expr,
    ExpressionError,
    Neg,
    Num,
    evaluate,
    expr_names,
    parse_expression,
)

__all__ = ["read_notation", "notation_smtlib_of", "describe", "MAX_DEFINITIONS"]

TARGET = "answer"
MAX_TEXT_CHARS = 4000
MAX_DEFINITIONS = 200
MAX_NAME_CHARS = 32

# words that may stand between definitions (no story words: every other word is refused)
_VOCABULARY = NOTATION_WORDS | frozenset({"how", "much", "many"})
# a word after an expression that ends it (anything else directly after one is refused:
# ``answer = 2 a`` is not read as ``answer = 2`` followed by an article)
_ENDS_EXPRESSION = frozenset(
    "and where with then let so given suppose assume what find compute calculate evaluate "
    "determine give state work also now finally next using if while".split()
)
_ASKING = frozenset("what find compute calculate evaluate determine give state work how".split())
_RESERVED = frozenset(
    "and or not xor ite let true false div mod abs exists forall as par distinct to_real "
    "to_int is_int real int bool assert check declare define set get push pop".split()
)
_WORD_OPS = (
    (re.compile(r"\bmultiplied\s+by\b", re.I), " * "),
    (re.compile(r"\bdivided\s+by\b", re.I), " / "),
    (re.compile(r"\btimes\b", re.I), " * "),
    (re.compile(r"\bplus\b", re.I), " + "),
    (re.compile(r"\bminus\b", re.I), " - "),
    (re.compile(r"\b(?:is\s+)?equal\s+to\b", re.I), " = "),
    (re.compile(r"\bequals\b", re.I), " = "),
    (re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s+be\b"), r"\1 = "),
    (re.compile(r":="), " = "),
)
_CHAR_MAP = str.maketrans({"−": "-", "–": "-", "×": "*", "·": "*", "⋅": "*", "÷": "/",
                           "\u00a0": " ", "\u2009": " ", "\u202f": " "})
_TOKEN_RE = re.compile(
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_']*)"
    r"|(?P<op>\*\*|[-+*/^%()])"
    r"|(?P<eq>=)"
    r"|(?P<punct>[,;:.?!])"
    r"|(?P<space>\s+)"
)


class _Tok:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind: str, text: str, start: int, end: int) -> None:
        self.kind, self.text, self.start, self.end = kind, text, start, end

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{self.kind}:{self.text!r}"


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            ch = text[pos]
            raise NotationError(f"cannot read the character {quoted(ch)} (position {pos + 1})",
                                title="Cannot read the question")
        kind = m.lastgroup or ""
        if kind != "space":
            out.append(_Tok(kind, m.group(0), m.start(), m.end()))
        pos = m.end()
    return out


def _expression_end(toks: list[_Tok], i: int) -> int:
    """Index just past the expression starting at ``toks[i]``: operands alternating with
    binary operators, parentheses balanced, unary minus, postfix %."""
    depth = 0
    want_operand = True
    j = i
    while j < len(toks):
        t = toks[j]
        if want_operand:
            if t.kind == "op" and t.text in "-+" :
                j += 1
                continue
            if t.kind == "op" and t.text == "(":
                depth += 1
                j += 1
                continue
            if t.kind in ("num", "name"):
                want_operand = False
                j += 1
                continue
            break
        if t.kind == "op" and t.text == ")" and depth > 0:
            depth -= 1
            j += 1
            continue
        if t.kind == "op" and t.text == "%":
            j += 1
            continue
        if t.kind == "op" and t.text in ("+", "-", "*", "/", "^", "**"):
            want_operand = True
            j += 1
            continue
        break
    if want_operand or depth:
        return -1
    return j


def _definitions(norm: str, toks: list[_Tok]) -> tuple[list[tuple[str, str, Expr]], set[int], list[str]]:
    """Every ``NAME = EXPRESSION`` of the text: (name, written text, expression), the token
    indexes inside definitions, and the names an asking word stands before ('Compute
    answer = x * 4.')."""
    defs: list[tuple[str, str, Expr]] = []
    inside: set[int] = set()
    asked_defs: list[str] = []
    for k, t in enumerate(toks):
        if t.kind != "eq":
            continue
        if k == 0 or toks[k - 1].kind != "name":
            raise NotationError(f"'=' at position {t.start + 1} has no name before it",
                                title="Cannot read the question")
        name = toks[k - 1].text
        end = _expression_end(toks, k + 1)
        after = toks[end] if 0 <= end < len(toks) else None
        if end < 0 or end == k + 1:
            shown = norm[t.start:t.start + 40].strip()
            raise NotationError(f"the definition of {quoted(name)} is incomplete near {quoted(shown)}",
                                title="Cannot read the question")
        if after is not None and not (after.kind == "punct" or (
                after.kind == "name" and after.text.lower() in _ENDS_EXPRESSION)):
            shown = norm[toks[k - 1].start:after.end]
            raise NotationError(f"cannot read {quoted(shown)}: write an operator between the terms "
                                f"or end the definition with a comma or 'and'",
                                title="Cannot read the question")
        body = norm[toks[k + 1].start:toks[end - 1].end]
        try:
            expr = parse_expression(body, names=True)
        except ExpressionError as exc:
            raise NotationError(f"the definition {name} = {body} is not arithmetic: {exc}",
                                title="Cannot read the question") from exc
        defs.append((name, f"{name} = {body}", expr))
        if k >= 2 and toks[k - 2].kind == "name" and toks[k - 2].text.lower() in _ASKING:
            asked_defs.append(name)
        inside.update(range(k - 1, end))
        if len(defs) > MAX_DEFINITIONS:
            raise NotationError(f"more than {MAX_DEFINITIONS} definitions",
                                title="Cannot read the question")
    if not defs:
        raise NotationError("the question defines nothing: write the givens and steps as "
                            "'a = 16', 's1 = a − b', 'answer = s1 × 2'",
                            title="Cannot read the question")
    return defs, inside, asked_defs


def _written_once(defs: list[tuple[str, str, Expr]]) -> dict[str, str]:
    """name -> its written definition; a name defined twice, or one that cannot be a
    variable, is refused."""
    written: dict[str, str] = {}
    for name, shown, _ in defs:
        if name in written:
            raise NotationError(f"{quoted(name)} is defined twice ({quoted(written[name])} and {quoted(shown)}); "
                                f"a question must define each name once",
                                title="Conflicting definitions")
        if len(name) > MAX_NAME_CHARS or name.lower() in _RESERVED or "'" in name:
            raise NotationError(f"{quoted(name)} cannot be a variable name", title="Cannot read the question")
        written[name] = shown
    return written


def _outside(toks: list[_Tok], inside: set[int], written: dict[str, str]) -> list[list[_Tok]]:
    """The sentences outside the definitions: vocabulary, punctuation and mentions of
    names only (a number, an operator or a story word there is refused)."""
    sentences: list[list[_Tok]] = [[]]
    for k, t in enumerate(toks):
        if k in inside:
            if t.kind == "punct" and t.text in ".?!":
                sentences.append([])
            continue
        if t.kind == "num":
            raise NotationError(f"the number {t.text} stands outside any definition; state it "
                                f"as a given (e.g. 'k = {t.text}')", title="Cannot read the question")
        if t.kind in ("op", "eq"):
            raise NotationError(f"{quoted(t.text)} at position {t.start + 1} is outside any definition",
                                title="Cannot read the question")
        if t.kind == "name" and t.text not in written and t.text.lower() not in _VOCABULARY:
            raise NotationError(f"the word {quoted(t.text)} is neither a defined name nor part of the "
                                f"notation vocabulary (no story words)",
                                title="Cannot read the question")
        sentences[-1].append(t)
        if t.kind == "punct" and t.text in ".?!":
            sentences.append([])
    return sentences


def read_notation(text: str) -> NotationQuestion:
    """The structure of a notation question in any plain wording (see the module
    docstring); NotationError says why when it cannot be read faithfully."""
    raw = (text or "").strip()
    if not raw:
        raise NotationError("the question is empty", title="Cannot read the question")
    if len(raw) > MAX_TEXT_CHARS:
        raise NotationError(f"the question is too long ({len(raw)} characters; at most "
                            f"{MAX_TEXT_CHARS})", title="Cannot read the question")
    norm = raw.translate(_CHAR_MAP)
    for pattern, repl in _WORD_OPS:
        norm = pattern.sub(repl, norm)
    toks = _tokens(norm)
    defs, inside, asked_defs = _definitions(norm, toks)
    written = _written_once(defs)
    target = _asked_for(_outside(toks, inside, written), written, asked_defs)
    givens: dict[str, Fraction] = {}
    steps: dict[str, Expr] = {}
    for name, _shown, expr in defs:
        if _literal_value(expr) is not None:
            givens[name] = _literal_value(expr)  # type: ignore[assignment]
        else:
            steps[name] = expr
    if target not in steps:
        raise NotationError(f"{quoted(target)} is given as a number; there is nothing to compute",
                            title="Nothing to compute")
    order = _in_order(steps, set(givens))
    env = dict(givens)
    for name in order:
        try:
            env[name] = evaluate(steps[name], env)
        except ExpressionError as exc:
            raise NotationError(f"{quoted(written[name])} cannot be computed: {exc}",
                                title="Cannot compute") from exc
    if target != TARGET and TARGET in written:
        raise NotationError(f"the question asks for {quoted(target)} but also defines {quoted(TARGET)}; "
                            f"ask for {quoted(TARGET)} or rename it", title="Cannot read the question")
    return NotationQuestion(raw, givens, target, [(n, steps[n]) for n in order])


def _literal_value(expr: Expr) -> Fraction | None:
    """The number a given states (``16``, ``−5``, ``1/3``), None for a computation."""
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Neg) and isinstance(expr.operand, Num):
        return -expr.operand.value
    if (isinstance(expr, BinOp) and expr.op == "/" and isinstance(expr.left, Num)
            and isinstance(expr.right, Num) and expr.right.value != 0):
        return expr.left.value / expr.right.value
    return None


def _asked_for(sentences: list[list[_Tok]], written: dict[str, str],
               asked_defs: list[str]) -> str:
    asking = [s for s in sentences if s and (
        any(t.kind == "punct" and t.text == "?" for t in s)
        or any(t.kind == "name" and t.text.lower() in _ASKING for t in s))]
    if not asking and len(set(asked_defs)) == 1:
        return asked_defs[0]
    if not asking:
        raise NotationError("the question does not ask for anything: end with "
                            "'What is the value of answer?'", title="Nothing asked")
    mentioned = list(dict.fromkeys(t.text for t in asking[-1] if t.kind == "name" and t.text in written))
    if not mentioned and len(set(asked_defs)) == 1:
        return asked_defs[0]           # 'Compute answer = x * 4.'
    if not mentioned:
        raise NotationError("the last question names no defined quantity: ask for one, e.g. "
                            "'What is the value of answer?'", title="Nothing asked")
    if len(mentioned) > 1:
        raise NotationError(f"the last question names several quantities ({', '.join(mentioned)}); "
                            f"ask for one", title="Ambiguous question")
    return mentioned[0]


def _in_order(steps: dict[str, Expr], givens: set[str]) -> list[str]:
    """The steps in an order where each uses only what came before (stable: the written
    order when it already is one); names never defined and cycles are refused."""
    for name, expr in steps.items():
        unknown = [n for n in expr_names(expr) if n not in steps and n not in givens]
        if unknown:
            raise NotationError(f"{name} uses {', '.join(unknown)}, which "
                                f"{'is' if len(unknown) == 1 else 'are'} never defined",
                                title="Undefined name")
    placed: list[str] = []
    done = set(givens)
    pending = list(steps)
    while pending:
        for name in pending:
            if all(n in done for n in expr_names(steps[name])):
                placed.append(name)
                done.add(name)
                pending.remove(name)
                break
        else:
            raise NotationError(f"the definitions of {', '.join(pending)} depend on each other "
                                f"in a circle", title="Circular definition")
    return placed


def notation_smtlib_of(q: NotationQuestion) -> str:
    """SMT-LIB of a read question (:func:`notation.question_smtlib`: one rule for every
    notation question, rendered or read)."""
    return question_smtlib(q)


def describe(q: NotationQuestion) -> str:
    """One line on what was read (shown to the person who edited the question)."""
    return (f"{len(q.variables)} given(s), {len(q.definitions)} step(s); asks for {q.target} "
            f"= {format_number(q.value)}")
