"""Every derived item's answer re-derived by a route independent of the formalization that
made it (issue 26): from the item's own question, its parent's question and its parent's
*gold* worked solution, never from the SMT-LIB, the bindings or the construction rules.

The route, for an item whose question changes numbers (variant, changed numbers,
counterfactual): the item's question and its parent's are aligned word by word; the numbers
that differ are the changed values (``old -> new``). The parent's gold solution's calculator
annotations ``<<expr=result>>`` are then evaluated again with exact fractions, each number of
an expression replaced by what it means *in the texts*: a number the parent's question
states (its new value), an earlier annotation's result (its recomputed value), or a
convention (60 minutes, 100 percent...). A number with two meanings that move differently
(an old value that is also an earlier result, a convention the question's words imply —
"5 dance classes ... on the weekdays" —, a value the question states twice and the item
changes once) cannot be decided by this route: the item is *unconfirmed*, never guessed.

Other kinds: a noise item is its parent's question with whole sentences added and the
parent's answer; an added-operation item is its parent's question and answer with one
sentence more, whose number and verb give the new answer; an arithmetic-ladder item's
notation question is evaluated as written (``Let a = 1.5, ... Let s1 = a × b ...``); a
refinement-ladder item keeps its parent's question and answer; an inverse item states the
forward answer and hides one number as X: the parent's annotations evaluated with X put
back give the stated answer, the answer moves with X (X is unique) and X is not a count
read through a division ("how many times can he go": every price in an interval gives the
same whole count).

:func:`recheck` says, per item: ``ok``, ``wrong`` (the route gives another answer) or
``unconfirmed`` (why the route cannot decide), and ``stale`` numbers: an old value of a
changed number still written in the item's solution, key information or chain of thought.
:func:`recheck_set` does it for every item of a set and finds repeated questions.
This module imports nothing of the construction rules, nor of the derive modules that build
items: it must stay a second opinion.
"""

from __future__ import annotations

import ast
import functools
import itertools
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

__all__ = ["Finding", "RecheckReport", "Verdict", "calc_annotations", "recheck", "recheck_set"]

_MAX_TEXT = 20_000
_MAX_DIGITS = 40

# -- numbers in text --------------------------------------------------------------------------

_WORDS: dict[str, Fraction] = {w: Fraction(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_WORDS.update({w: Fraction(v) for w, v in (
    ("thirty", 30), ("forty", 40), ("fifty", 50), ("sixty", 60), ("seventy", 70), ("eighty", 80),
    ("ninety", 90), ("hundred", 100), ("thousand", 1000), ("half", Fraction(1, 2)))})
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_']*|\d[\d,]*(?:\.\d+)?(?:/\d+)?|\.\d+|\S")


class Tok(NamedTuple):
    text: str
    value: Fraction | None          # a number, or None for a word or a sign
    percent: bool = False           # followed by % or "percent"


def _number(text: str) -> Fraction | None:
    """The value of one token (digits, a fraction, a number word), or None. A short token is
    read once (:func:`_short_number`): the same tokens ("the", "5", "$") come back in every
    text of a parent and of its items."""
    return _short_number(text) if len(text) <= 64 else _read_number(text)


@functools.lru_cache(maxsize=8192)
def _short_number(text: str) -> Fraction | None:
    # a Fraction is immutable: every caller may share the one read
    return _read_number(text)


def _read_number(text: str) -> Fraction | None:
    t = text.replace(",", "")
    if len(t) > _MAX_DIGITS:
        return None
    if t[:1].isdigit() or t[:1] == ".":
        try:
            if "/" in t:
                a, b = t.split("/", 1)
                return Fraction(a) / Fraction(b) if Fraction(b) else None
            return Fraction(t)
        except (ValueError, ZeroDivisionError):
            return None
    return _WORDS.get(t.lower())


def tokens(text: str) -> list[Tok]:
    """The words, signs and numbers of ``text`` (digits, fractions, number words)."""
    return list(_tokens(text))


@functools.lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[Tok, ...]:
    raw = _TOKEN.findall(text[:_MAX_TEXT])
    out: list[Tok] = []
    last = len(raw) - 1
    for i, t in enumerate(raw):
        v = _number(t)
        out.append(Tok(t, v, v is not None and i < last and raw[i + 1].lower() in ("%", "percent")))
    return tuple(out)


def _skeleton(toks: list[Tok]) -> list[str]:
    # "a"/"an" are one word here: a rewritten number takes the article it is said with
    # ("a 5-hour shift" -> "an 8-hour shift")
    return ["#" if t.value is not None else "a" if t.text.lower() == "an" else t.text.lower()
            for t in toks]


# -- the gold solution's calculator annotations -------------------------------------------------

_ANNOT = re.compile(r"<<([^<>=]{1,400})=([^<>]{1,60})>>")


@dataclass(frozen=True)
class Annotation:
    expr: ast.expr
    result: Fraction


class Unreadable(ValueError):
    pass


#: a percent in an annotation, as /100 (from where its digits start: linear on a digit run)
_PERCENT = re.compile(r"(?<!\d)(\d+(?:\.\d+)?)%")


def _parse(expr: str) -> ast.expr:
    text = expr.replace("x", "*").replace("×", "*").replace("÷", "/").replace("$", "").replace(",", "")
    text = _PERCENT.sub(r"(\1/100)", text)
    if not re.fullmatch(r"[\d\s.+\-*/()]+", text) or len(text) > 400:
        raise Unreadable(f"the annotation {expr!r} is not plain arithmetic")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        raise Unreadable(f"the annotation {expr!r} does not parse") from None
    return tree.body


_FRACTION = re.compile(r"(?<![\d./])(\d+)/(\d+)(?![\d.])")


@functools.lru_cache(maxsize=1024)
def calc_annotations(solution: str, fractions: frozenset[str] = frozenset()) -> tuple[Annotation, ...]:
    """The calculator annotations of a GSM8K solution, parsed (:class:`Unreadable`). A
    ``p/q`` of an expression written as one of ``fractions`` (those the question writes:
    "1/4 times more") is one number, not a division of two."""
    out = []
    for m in _ANNOT.finditer(solution[:_MAX_TEXT]):
        result = _number(m.group(2).strip().replace("$", ""))
        if result is None:
            raise Unreadable(f"the annotation's result {m.group(2)!r} is not a number")
        expr = m.group(1)
        if fractions:
            expr = _FRACTION.sub(lambda f: f"({f.group(1)}/{f.group(2)})"
                                 if f.group(0) in fractions else f.group(0), expr)
        out.append(Annotation(_parse(expr), result))
    return tuple(out)


def _leaves_of(node: ast.expr, fractions: frozenset[str]) -> list[ast.expr]:
    """The numbers of an expression: its constants, and a parenthesised ``p/q`` of two
    constants whose value the question writes as a fraction (one number)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and \
            isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant):
        a, b = node.left.value, node.right.value
        if isinstance(a, int) and isinstance(b, int) and f"{a}/{b}" in fractions:
            return [node]
    if isinstance(node, ast.Constant):
        return [node]
    out: list[ast.expr] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            out += _leaves_of(child, fractions)
    return out


def _leaves(node: ast.expr) -> list[ast.Constant]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Constant)]


def _eval(node: ast.expr, value: dict[ast.expr, Fraction]) -> Fraction:
    """``node`` evaluated exactly, each leaf by ``value[leaf]`` (keyed by the node itself, which
    the dict keeps alive: an ``id`` is reused once its object is freed)."""
    if node in value:
        return value[node]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval(node.operand, value)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, value), _eval(node.right, value)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            if max(abs(a), abs(b)) > 10**30:
                raise Unreadable("a value too large")
            return a * b
        if isinstance(node.op, ast.Div):
            if b == 0:
                raise ZeroDivisionError
            return a / b
    raise Unreadable("an operation other than + - * /")


def _leaf_value(leaf: ast.expr) -> Fraction:
    if isinstance(leaf, ast.BinOp):    # a fraction the question writes (:func:`_leaves_of`)
        return _leaf_value(leaf.left) / _leaf_value(leaf.right)
    if not isinstance(leaf, ast.Constant) or isinstance(leaf.value, bool) or \
            not isinstance(leaf.value, (int, float)):
        raise Unreadable("a leaf that is not a number")
    return Fraction(str(leaf.value))


# -- conventions the words imply ----------------------------------------------------------------

#: words that imply a number (a quantity never borrowed from a given of equal value)
IMPLIED: dict[str, tuple[int, ...]] = {
    "week": (7, 5), "weeks": (7, 5), "weekly": (7,), "weekday": (5,), "weekdays": (5,),
    "weekend": (2,), "weekends": (2,), "dozen": (12,), "dozens": (12,), "hour": (60, 24),
    "hours": (60, 24), "minute": (60,), "minutes": (60,), "day": (24, 7, 30, 365),
    "days": (24, 7, 30, 365), "daily": (7, 30, 365), "year": (12, 52, 365), "years": (12, 52, 365),
    "month": (30, 4, 12), "months": (30, 4, 12), "pair": (2,), "pairs": (2,), "twice": (2,),
    "double": (2,), "doubles": (2,), "half": (2,), "triple": (3,), "quarter": (4, 25),
    "quarters": (4, 25), "percent": (100,), "%": (100,), "century": (100,), "decade": (10,),
    "feet": (12, 3), "foot": (12, 3), "yard": (3, 36), "yards": (3, 36), "nickel": (5,),
    "nickels": (5,), "dime": (10,), "dimes": (10,), "pennies": (100,), "cents": (100,),
    "both": (2,), "twins": (2,), "hundred": (100,), "thousand": (1000,), "legs": (2, 4, 6, 8),
    "two": (2,), "third": (3,), "fourth": (4,), "fifth": (5,), "each": (),
    "average": (2,),
    "halves": (2,), "thirds": (3,), "fourths": (4,), "gallon": (4, 128), "gallons": (4, 128),
    "pound": (16,), "pounds": (16,), "inch": (12,), "inches": (12,), "meter": (100,),
    "meters": (100,), "kilometer": (1000,), "kilograms": (1000,), "kg": (1000,), "km": (1000,),
    "cm": (100,), "dollar": (100,), "dollars": (100,), "seconds": (60,), "second": (60, 2),
}


@functools.lru_cache(maxsize=1024)
def _implied(*texts: str) -> frozenset[Fraction]:
    out: set[Fraction] = set()
    for text in texts:
        for t in tokens(text):
            out.update(Fraction(v) for v in IMPLIED.get(t.text.lower(), ()))
    if Fraction(100) in out:        # a percent: its hundredth too
        out.add(Fraction(1, 100))
    return frozenset(out)


# -- verdicts -----------------------------------------------------------------------------------

@dataclass
class Verdict:
    status: str                 # ok | wrong | unconfirmed
    why: str = ""
    value: Fraction | None = None      # the answer this route gives
    stale: list[str] = field(default_factory=list)   # old values still written

    @property
    def ok(self) -> bool:
        return self.status == "ok" and not self.stale


class _Unconfirmed(Exception):
    pass


def _changes(parent_q: str, item_q: str) -> list[tuple[Tok, Tok]]:
    """(parent number, item number) of two questions that differ in numbers only."""
    if _text_skeleton(parent_q) != _text_skeleton(item_q):
        raise _Unconfirmed("the item's question differs from its parent's in more than numbers")
    return [(x, y) for x, y in zip(_tokens(parent_q), _tokens(item_q)) if x.value is not None]


@functools.lru_cache(maxsize=1024)
def _text_skeleton(text: str) -> tuple[str, ...]:
    """:func:`_skeleton` of the tokens of ``text``, read once per text (a parent's question is
    compared with every item's)."""
    return tuple(_skeleton(list(_tokens(text))))


def _meanings(pairs: list[tuple[Tok, Tok]]) -> tuple[dict[Fraction, set[Fraction]], set[Fraction]]:
    """value in the parent's texts -> its possible new values; the values that change."""
    means: dict[Fraction, set[Fraction]] = {}
    changed: set[Fraction] = set()
    for x, y in pairs:
        assert x.value is not None and y.value is not None
        forms = [(x.value, y.value)]
        if x.percent:
            forms.append((x.value / 100, y.value / 100))
            forms.append((1 + x.value / 100, 1 + y.value / 100))
        for old, new in forms:
            means.setdefault(old, set()).add(new)
            if old != new:
                changed.add(old)
    return means, changed


_PROSE_RESULT = re.compile(r"=\s*\$?(\d[\d,]*(?:\.\d+)?)(?!\d)")


@functools.lru_cache(maxsize=1024)
def _prose_results(solution: str) -> frozenset[Fraction]:
    """Values the solution's prose writes after '=' outside its annotations (computed there)."""
    prose = _ANNOTATED.sub(" ", solution)      # an annotation and the result written after it
    return frozenset(v for m in _PROSE_RESULT.finditer(prose)
                     if (v := _number(m.group(1))) is not None)


# (a run of spaces is tried from its start or the "=" before it only: from inside it, the rest
# of the run was read again each time; a match ends where a run of spaces ends)
_ANNOTATED = re.compile(r"(?:(?!\s)|(?<![\s=]))=?\s*\$?<<[^<>]{1,460}>>\s*\$?[\d,]*(?:\.\d+)?")


def _rerun(solution: str, means: dict[Fraction, set[Fraction]], changed: set[Fraction],
           implied: frozenset[Fraction], answer: Fraction, fractions: frozenset[str] = frozenset()
           ) -> Fraction:
    """The parent's answer recomputed through its annotations with the new meanings
    (``fractions``: the ``p/q`` the question writes)."""
    prose = _prose_results(solution)
    try:
        notes = calc_annotations(solution, fractions)
    except Unreadable as exc:
        raise _Unconfirmed(str(exc)) from None
    if not notes:
        raise _Unconfirmed("the parent's solution has no calculator annotations")
    results: dict[Fraction, set[Fraction]] = {}
    final: Fraction | None = None
    for note in notes:
        old_vals: dict[ast.expr, Fraction] = {}
        new_vals: dict[ast.expr, Fraction] = {}
        split: dict[Fraction, list[ast.expr]] = {}      # a value the question states more than once
        for leaf in _leaves_of(note.expr, fractions):
            try:
                v = _leaf_value(leaf)
            except Unreadable as exc:
                raise _Unconfirmed(str(exc)) from None
            cands = set(means.get(v, ())) | set(results.get(v, ()))
            if not cands:
                if v != 1 and v not in implied:
                    raise _Unconfirmed(f"the solution computes with {_fmt(v)}, which neither the "
                                       f"question nor an earlier step states")
                cands = {v}
            elif v in changed and (v in implied or v in prose):
                raise _Unconfirmed(f"the solution's {_fmt(v)} may be a changed number, a "
                                   f"quantity the words imply or one its prose computes")
            if len(cands) > 1:
                if v in results or len(cands) > 3:
                    raise _Unconfirmed(f"the solution's {_fmt(v)} has meanings that move differently")
                split.setdefault(v, []).append(leaf)
            old_vals[leaf] = v
            new_vals[leaf] = next(iter(cands))
        try:
            before = _eval(note.expr, old_vals)
            after = _split_value(note.expr, new_vals, split, means)
        except (Unreadable, ZeroDivisionError) as exc:
            raise _Unconfirmed(f"an annotation cannot be evaluated: {exc}") from None
        if before != note.result:
            raise _Unconfirmed(f"the parent's annotation gives {_fmt(before)}, not the "
                               f"{_fmt(note.result)} it writes (rounded)")
        results.setdefault(before, set()).add(after)
        if before == answer:
            final = after
    if final is None:
        raise _Unconfirmed("no annotation of the parent's solution computes its answer")
    if len(results.get(answer, ())) > 1:
        raise _Unconfirmed("the parent's answer is computed twice, to different new values")
    return final


def _split_value(expr: ast.expr, new_vals: dict[ast.expr, Fraction], split: dict[Fraction, list[ast.expr]],
                 means: dict[Fraction, set[Fraction]]) -> Fraction:
    """The expression's new value where a value the question states several times ("3
    sprints 3 times") is written as often in it as the question states it: each statement
    used once, in every order; the orders must agree ("3*3": a product, either way), else
    :class:`_Unconfirmed`."""
    if not split:
        return _eval(expr, new_vals)
    choices = []
    for v, nodes in split.items():
        news = sorted(means[v])
        if len(nodes) != len(news):
            raise _Unconfirmed(f"the solution's {_fmt(v)} has meanings that move differently")
        choices.append([(nodes, perm) for perm in itertools.permutations(news)])
    found = set()
    for combo in itertools.product(*choices):
        vals = dict(new_vals)
        for nodes, perm in combo:
            vals.update(zip(nodes, perm))
        found.add(_eval(expr, vals))
    if len(found) != 1:
        raise _Unconfirmed("the solution's repeated number has meanings that move differently")
    return found.pop()


def _fraction_texts(pairs: list[tuple[Tok, Tok]]) -> frozenset[str]:
    return frozenset(x.text for x, _ in pairs if "/" in x.text)


def _fmt(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    d = float(v)
    return f"{v.numerator}/{v.denominator}" if Fraction(str(round(d, 6))) != v else str(round(d, 6))


def _stale_numbers(item: dict[str, Any], changed: set[Fraction], keep: set[Fraction]) -> list[str]:
    """Old values of changed numbers still written in the item's own texts."""
    gone = changed - keep
    if not gone:
        return []
    texts = {"solution": str(item.get("solution") or "")}
    for dim, content in (item.get("contents") or {}).items():
        if dim == "understanding":
            texts[dim] = json.dumps(content.get("known") if isinstance(content, dict) and "known"
                                    in content else content, ensure_ascii=False)
        elif dim == "refinement" and isinstance(content, dict):
            texts[dim] = str(content.get("gt_cot") or "")
    out = []
    for where, text in texts.items():
        toks = _TOKEN.findall(text[:_MAX_TEXT])
        bad = {t for t in set(toks) if (v := _number(t)) is not None and v in gone}
        if bad:
            out.append(f"{where} writes {next(t for t in toks if t in bad)}")
        elif mixed := next((m.group(0) for m in _MIXED.finditer(text[:_MAX_TEXT]) if _mixed(m) in gone), None):
            out.append(f"{where} writes {mixed}")   # "two and a half times" of an old 2.5
    return out


#: a whole and a part in words, one number: "two and a half" (read here, not by the rules)
_MIXED = re.compile(r"\b(\w+)\s+and\s+(?:a|one)[\s-]+(half|third|quarter)\b", re.IGNORECASE)


def _mixed(m: re.Match[str]) -> Fraction | None:
    whole = _number(m.group(1))
    return None if whole is None else whole + {"half": Fraction(1, 2), "third": Fraction(1, 3),
                                               "quarter": Fraction(1, 4)}[m.group(2).lower()]


def _values_of(text: str) -> set[Fraction]:
    return {t.value for t in tokens(text) if t.value is not None}


def recheck(parent: dict[str, Any], item: dict[str, Any]) -> Verdict:
    """The independent verdict on one derived ``item`` (its row: ``transform``, ``question``,
    ``solution``, ``answer_value``, ``params``, ``contents``) from its ``parent``'s row
    (``question``, ``solution``, ``answer_value``); see the module docstring."""
    try:
        answer = Fraction(str(item["answer_value"]))
        parent_answer = Fraction(str(parent["answer_value"]))
    except (ValueError, ZeroDivisionError, KeyError):
        return Verdict("unconfirmed", "an answer is not a number")
    t = str(item.get("transform"))
    try:
        if t in ("variant", "changed-numbers", "counterfactual"):
            return _value_item(parent, item, answer, parent_answer)
        if t == "noise":
            return _noise_item(parent, item, answer, parent_answer)
        if t == "errors":
            same = item["question"] == parent["question"] and answer == parent_answer
            return Verdict("ok" if same else "wrong", "" if same else "not its parent's question "
                           "and answer", parent_answer)
        if t == "digits":
            return _digits_item(item, answer)
        if t == "add-operation":
            return _added_item(parent, item, answer, parent_answer)
        if t == "inverse":
            return _inverse_item(parent, item, answer)
    except _Unconfirmed as exc:
        return Verdict("unconfirmed", str(exc))
    return Verdict("unconfirmed", f"no independent route for {t!r}")


def _value_item(parent: dict[str, Any], item: dict[str, Any], answer: Fraction,
                parent_answer: Fraction) -> Verdict:
    got = _recomputed(str(parent["question"]), str(parent.get("solution") or ""), parent_answer,
                      str(item["question"]))
    if isinstance(got, str):
        raise _Unconfirmed(got)
    value, changed, new_values = got
    if value != answer:
        return Verdict("wrong", f"the parent's solution with the new numbers gives {_fmt(value)}, "
                                f"not {_fmt(answer)}", value)
    keep = _values_of(str(item["question"])) | {answer} | new_values
    try:
        keep |= {n.result for n in calc_annotations(str(item.get("solution") or ""))}
    except Unreadable:
        pass
    stale = _stale_numbers(item, set(changed), keep)
    stale += _stale_words(str(parent["question"]), str(item["question"]),
                          str(item.get("solution") or ""), set(changed))
    return Verdict("ok", value=value, stale=stale)


def _stale_words(parent_q: str, item_q: str, solution: str, changed: set[Fraction]) -> list[str]:
    """A number the item's solution writes as a word ("from the forty customers") with the old
    value of a changed number, where the parent's question writes that word and the item's
    question no longer does: the old story, whatever other quantity now has that value (the
    numbers check above keeps every value the item's question states: its "$40 tip")."""
    gone = _words(parent_q) - _words(item_q)
    for t in _TOKEN.findall(solution[:_MAX_TEXT]):
        if t[:1].isalpha() and t.lower() in gone and _number(t) in changed:
            return [f"solution writes {t}"]
    return []


@functools.lru_cache(maxsize=256)
def _words(text: str) -> frozenset[str]:
    """The words of ``text``, in lower case (read once per text: the parent's question is
    asked about for every item, the item's twice)."""
    return frozenset(t.lower() for t in _TOKEN.findall(text[:_MAX_TEXT]) if t[:1].isalpha())


@functools.lru_cache(maxsize=256)
def _recomputed(parent_q: str, parent_solution: str, parent_answer: Fraction, item_q: str
                ) -> tuple[Fraction, frozenset[Fraction], frozenset[Fraction]] | str:
    """The parent's answer recomputed for the item's question (:func:`_rerun`), the parent's
    values that changed and every new value, or why this route cannot decide. Read once per
    question: the runner asks about a drafted item's question before its artifacts are built
    and about the built item's again (the verdict on the value reads nothing else)."""
    try:
        pairs = _changes(parent_q, item_q)
        means, changed = _meanings(pairs)
        if not changed:
            raise _Unconfirmed("no number of the question changed")
        implied = _implied(parent_q, parent_solution)
        value = _rerun(parent_solution, means, changed, implied, parent_answer,
                       _fraction_texts(pairs))
    except _Unconfirmed as exc:
        return str(exc)
    return value, frozenset(changed), frozenset(n for ns in means.values() for n in ns)


_SENT = re.compile(r"[^.!?]+[.!?]+(?:\s+|$)|[^.!?]+$")


def _noise_item(parent: dict[str, Any], item: dict[str, Any], answer: Fraction,
                parent_answer: Fraction) -> Verdict:
    """The parent's question is the item's with whole sentences taken out; same answer."""
    p, q = _skeleton(tokens(str(parent["question"]))), tokens(str(item["question"]))
    pt = tokens(str(parent["question"]))
    # the item's tokens must contain the parent's, in order, the rest forming whole sentences
    i = 0
    extra: list[Tok] = []
    for tok in q:
        if i < len(pt) and tok.text == pt[i].text:
            i += 1
        else:
            extra.append(tok)
    if i != len(p):
        raise _Unconfirmed("the parent's question is not kept whole in the item's")
    if answer != parent_answer:
        return Verdict("wrong", "a noise sentence changed the answer", parent_answer)
    asks = {"how", "what", "?"}
    if any(t.text.lower() in asks for t in extra):
        raise _Unconfirmed("an added sentence asks a question")
    return Verdict("ok", value=parent_answer)


# a name is read from the start of its word (any letter of the word starts the same name's
# match; tried at each, a long word was read again from each letter)
_LET = re.compile(r"(?<!\w)[^\WA-Za-z]*+([A-Za-z]\w*+)\s*=\s*([^,;=]+?)(?=,\s| and |\.\s|\.$|;|\?|$)")


def _digits_item(item: dict[str, Any], answer: Fraction) -> Verdict:
    """The notation question evaluated as written: ``Let a = 1.5, b = 2 ... Let s1 = a × b
    and answer = s1 − c. What is the value of answer?``"""
    text = str(item["question"]).replace("−", "-").replace("×", "*").replace("÷", "/")
    env: dict[str, Fraction] = {}
    for name, expr in _LET.findall(text):
        names = re.findall(r"[A-Za-z]\w*", expr)
        body = expr
        for n in sorted(set(names), key=len, reverse=True):
            if n not in env:
                raise _Unconfirmed(f"the notation uses {n} before it is given")
        try:
            tree = _parse(re.sub(r"[A-Za-z]\w*", "0", body))
        except Unreadable as exc:
            raise _Unconfirmed(str(exc)) from None
        leaves = iter(re.findall(r"[A-Za-z]\w*|\d+(?:\.\d+)?", body))
        vals: dict[ast.expr, Fraction] = {}
        for leaf in sorted(_leaves(tree), key=lambda n: (n.lineno, n.col_offset)):
            tok = next(leaves, None)
            if tok is None:
                raise _Unconfirmed("the notation does not read")
            vals[leaf] = env[tok] if tok in env else Fraction(tok)
        try:
            env[name] = _eval(tree, vals)
        except (Unreadable, ZeroDivisionError) as exc:
            raise _Unconfirmed(str(exc)) from None
    if "answer" not in env:
        raise _Unconfirmed("the notation defines no answer")
    if env["answer"] != answer:
        return Verdict("wrong", f"the notation gives {_fmt(env['answer'])}", env["answer"])
    return Verdict("ok", value=answer)


_ADD_VERBS = {"+": ("more", "another", "additional", "extra", "adds", "add", "gets", "finds",
                    "receives", "buys", "earns", "gains"),
              "-": ("loses", "gives", "spends", "eats", "uses", "fewer", "less", "breaks", "sells",
                    "drops", "away")}


def _added_item(parent: dict[str, Any], item: dict[str, Any], answer: Fraction,
                parent_answer: Fraction) -> Verdict:
    """The parent's question with one sentence added before the asking clause, holding one
    number N and a verb saying whether it adds or takes away: the answer moves by N."""
    pt, qt = tokens(str(parent["question"])), tokens(str(item["question"]))
    sm = [(a.text, a.value) for a in pt]
    # the added tokens: the item's tokens less the parent's, in order
    i = 0
    extra: list[Tok] = []
    for tok in qt:
        if i < len(sm) and tok.text == sm[i][0]:
            i += 1
        else:
            extra.append(tok)
    if i != len(sm):
        raise _Unconfirmed("the parent's question is not kept whole in the item's")
    nums = [t.value for t in extra if t.value is not None]
    if len(nums) != 1:
        raise _Unconfirmed("the added sentence does not state exactly one number")
    words = {t.text.lower() for t in extra}
    ops = [op for op, verbs in _ADD_VERBS.items() if words & set(verbs)]
    if len(ops) != 1:
        raise _Unconfirmed("the added sentence's verb does not say whether it adds or takes away")
    n = nums[0]
    assert n is not None
    value = parent_answer + n if ops[0] == "+" else parent_answer - n
    if value != answer:
        return Verdict("wrong", f"{_fmt(parent_answer)} {ops[0]} {_fmt(n)} is {_fmt(value)}", value)
    return Verdict("ok", value=value)


_STATED = re.compile(r"answer to the above question is (\S+?)[,?]? what is the value", re.I)
_COUNT_ASK = re.compile(r"\bhow many ((?:\w+ ){0,3})(?:can|could|will|would|did|does|do|are|is|were|was)\b",
                        re.I)
#: measures, not counts: "how many feet can her turtle crawl" asks no whole number
_MEASURES = frozenset("feet foot meters metres miles inches pounds ounces gallons liters litres "
                      "kilometers km yards grams kilograms kg cups square cubic hours minutes "
                      "seconds mph".split())


def _asks_count(question: str) -> bool:
    """Does the question ask how many (whole) things can be had or done?"""
    m = _COUNT_ASK.search(question)
    return m is not None and not (set(m.group(1).lower().split()) & _MEASURES)


def _inverse_item(parent: dict[str, Any], item: dict[str, Any], answer: Fraction) -> Verdict:
    """X put back gives the stated answer through the parent's annotations; the stated answer
    moves with X (unique); X is not a count's divisor or dividend."""
    q = str(item["question"])
    m = _STATED.search(q)
    stated = _number(m.group(1).rstrip(".").replace("$", "")) if m else None
    if stated is None:
        raise _Unconfirmed("the item does not state the forward answer")
    forward_q = q[:m.start()] if m else q
    forward_q = forward_q[:forward_q.rfind("If we know")] if "If we know" in forward_q else forward_q
    parent_q = str(parent["question"])
    a, b = tokens(parent_q), tokens(forward_q.replace("X", " 0X0 "))
    b = [Tok("#X", None) if t.text == "X" else t for t in tokens(forward_q)]
    sa = _skeleton(a)
    sb = ["X" if t.text == "#X" else s for t, s in zip(b, _skeleton(b))]
    if len(sa) != len(sb) or [s for s in sa] != [("#" if s == "X" else s) for s in sb]:
        raise _Unconfirmed("the item's question is not its parent's with one number hidden")
    hidden = [i for i, s in enumerate(sb) if s == "X"]
    if len(hidden) != 1:
        raise _Unconfirmed("the item hides more than one number")
    old = a[hidden[0]]
    assert old.value is not None
    pairs = [(x, x) for x in a if x.value is not None and x is not old]
    parent_answer = Fraction(str(parent["answer_value"]))
    implied = _implied(parent_q, str(parent.get("solution") or ""))

    def forward(x: Fraction) -> Fraction:
        means, changed = _meanings(pairs + [(old, Tok(old.text, x, old.percent))])
        if x == old.value:   # the value itself: make the route treat it as changing
            changed |= {old.value}
        return _rerun(str(parent.get("solution") or ""), means, changed, implied, parent_answer,
                      _fraction_texts(pairs + [(old, old)]))

    got = forward(answer)
    if got != stated:
        return Verdict("wrong", f"X = {_fmt(answer)} gives {_fmt(got)}, not the stated "
                                f"{_fmt(stated)}", got)
    if _asks_count(forward_q) and _divides_with(str(parent.get("solution") or ""), old.value):
        return Verdict("wrong", "the question asks a whole count got by a division that X takes "
                                "part in: every X of an interval gives the same count", got)
    # unique: the forward answer is affine in X with a slope (checked at three points)
    pts = [forward(answer + d) for d in (1, 2)]
    if not (pts[0] - got == pts[1] - pts[0] != 0):
        raise _Unconfirmed("the forward answer is not a line in X: this route cannot say X is unique")
    return Verdict("ok", value=answer)


def _divides_with(solution: str, value: Fraction) -> bool:
    """Does a division of the solution's annotations take ``value``, or a result computed
    from it, as an operand ("12 * 4 = 48 inches ... 48 / 6 = 8 pieces": a whole count of what
    fits, which every X of an interval gives)?"""
    try:
        notes = calc_annotations(solution)
    except Unreadable:
        return True
    tainted = {value}
    for n in notes:
        for node in ast.walk(n.expr):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                for side in (node.left, node.right):
                    if any(_leaf_value(c) in tainted for c in _leaves(side)):
                        return True
        if any(_leaf_value(c) in tainted for c in _leaves(n.expr)):
            tainted.add(n.result)
    return False


# -- a whole set ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Finding:
    item: str
    parent: str
    transform: str
    status: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return dict(self.__dict__)


@dataclass
class RecheckReport:
    name: str
    items: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    by_transform: dict[str, Counter[str]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)   # wrong, stale and unconfirmed
    repeated: list[list[str]] = field(default_factory=list)  # item keys sharing a question

    @property
    def wrong(self) -> int:
        return self.by_status["wrong"]

    def to_dict(self) -> dict[str, Any]:
        return {"set": self.name, "items": self.items, "by_status": dict(self.by_status),
                "by_transform": {t: dict(c) for t, c in self.by_transform.items()},
                "repeated": self.repeated, "findings": [f.to_dict() for f in self.findings]}


def recheck_set(store: Any, name: str) -> RecheckReport:
    """Every item of the set ``name`` re-derived (:func:`recheck`), and repeated questions."""
    report = RecheckReport(name)
    set_row = store.one("SELECT id FROM derive_sets WHERE name = ?", (name,))
    if set_row is None:
        raise LookupError(f"no derived set named {name!r}")
    rows = store.query(
        "SELECT di.seed_id, di.transform, di.params, s.orig_id, s.source, s.question, s.solution, "
        "s.answer_value, p.question AS p_question, p.solution AS p_solution, "
        "p.answer_value AS p_answer, p.orig_id AS p_orig FROM derived_items di "
        "JOIN seeds s ON s.id = di.seed_id JOIN seeds p ON p.id = di.parent_id "
        "WHERE di.set_id = ? ORDER BY di.seed_id", (int(set_row["id"]),))
    seen: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        key = f"{r['source']}-{r['orig_id']}"
        contents = {a["dimension"]: json.loads(a["content"]) for a in store.query(
            "SELECT dimension, content FROM artifacts WHERE seed_id = ? AND status != 'superseded'",
            (int(r["seed_id"]),))}
        item = {"transform": r["transform"], "question": r["question"], "solution": r["solution"],
                "answer_value": r["answer_value"], "contents": contents,
                "params": json.loads(r["params"] or "{}")}
        parent = {"question": r["p_question"], "solution": r["p_solution"],
                  "answer_value": r["p_answer"]}
        v = recheck(parent, item)
        report.items += 1
        status = "stale" if v.status == "ok" and v.stale else v.status
        report.by_status[status] += 1
        report.by_transform.setdefault(str(r["transform"]), Counter())[status] += 1
        if status != "ok":
            why = "; ".join(v.stale) if status == "stale" else v.why
            report.findings.append(Finding(key, f"{r['source']}-{r['p_orig']}", str(r["transform"]),
                                           status, why))
        text = str(r["question"])
        if r["transform"] == "errors":     # the same question by design: the chain differs
            text += "\n" + str((contents.get("refinement") or {}).get("w_cot"))
        seen.setdefault((str(r["transform"]), " ".join(text.split())), []).append(key)
    report.repeated = [keys for keys in seen.values() if len(keys) > 1]
    return report
