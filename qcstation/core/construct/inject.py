"""Rule-based injection of SMART's six error types into a correct chain of thought.

A clean CoT is a list of steps (:func:`clean_cot`: GSM8K annotations stripped,
``#### 18`` turned into ``The answer is 18.``). Each injector changes the CoT in
exactly the way its name says and returns a record a reviewer can check:

* ``arithmetic_inaccuracy``: one written result of a computation is changed
  (``16 - 3 - 4 = 9`` -> ``16 - 3 - 4 = 10``), never to a value another operator
  would give (that would read as operator misuse).
* ``omitted_step``: one step is removed (preferably one whose result a later step uses).
* ``hallucinated_content``: a step stating a fact the problem does not contain, with a
  number that appears nowhere in the CoT, is inserted after a computation.
* ``logical_disorder``: a step is moved before the step that derives a number it uses.
* ``redundancy``: an earlier computation is restated as an extra step (no new numbers).
* ``operator_misuse``: one operator of a computation is swapped (+ <-> −, × <-> ÷)
  and the result follows the wrong operator (its arithmetic is right, so it does not
  read as an arithmetic inaccuracy).

As in SMART, an error that changes a value propagates: the later computations that
use it are recomputed and the final line states the new answer (an injection whose
change cannot reach the final answer is redrawn). Omitted step, logical disorder and
redundancy keep every value by definition; their records say so (``changes_answer``,
``keeps_answer_reason``). :func:`inject_errors` applies n *distinct* types, sampled
uniformly with a seeded RNG (same seed, same output); each injector raises
:class:`InjectionError` when it cannot apply; with ``redraw=False`` (the pipeline)
a drawn type that cannot apply is an error rather than replaced by another.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from qcstation.core.construct.rules import (
    ANNOTATION_RE,
    ExpressionError,
    InlineComputation,
    evaluate,
    find_inline_computations,
    normalize_visible,
    parse_expression,
)
from qcstation.common.errors import GenerationError

__all__ = [
    "ERROR_TYPES",
    "ERROR_DESCRIPTIONS",
    "InjectionError",
    "InjectedError",
    "InjectedCoT",
    "clean_cot",
    "inject_errors",
    "applicable_types",
]

ERROR_TYPES: tuple[str, ...] = (
    "arithmetic_inaccuracy",
    "omitted_step",
    "hallucinated_content",
    "logical_disorder",
    "redundancy",
    "operator_misuse",
)

# the names SMART's paper gives the six types (§3.3.2, singular; the evaluation maps them back to ids)
ERROR_NAMES: dict[str, str] = {
    "arithmetic_inaccuracy": "Arithmetic Inaccuracy",
    "omitted_step": "Omitted Step",
    "hallucinated_content": "Hallucinated Content",
    "logical_disorder": "Logical Disorder",
    "redundancy": "Redundancy",
    "operator_misuse": "Operator Misuse",
}

# types whose edit, by definition, leaves every computed value as it was: the final
# answer stays the gold one and the record says so
KEEPS_ANSWER: dict[str, str] = {
    "omitted_step": "a step is missing but the later steps keep its result, so the final answer is unchanged",
    "logical_disorder": "the steps are out of order but every value is the same, so the final answer is unchanged",
    "redundancy": "the extra step repeats a value, so the final answer is unchanged",
}

ERROR_DESCRIPTIONS: dict[str, str] = {
    "arithmetic_inaccuracy": "a computed result is wrong",
    "omitted_step": "a necessary step is missing",
    "hallucinated_content": "a fact or number that is not in the problem is used",
    "logical_disorder": "a step uses a result before it is derived",
    "redundancy": "an unnecessary, repeated step is included",
    "operator_misuse": "a wrong operator is used in a computation (the result follows the wrong operator)",
}


class InjectionError(GenerationError):
    """An error type cannot be injected into this CoT; ``str(err)`` says why."""

    def __init__(self, message: str, title: str = "Cannot inject error") -> None:
        super().__init__(message, title)


@dataclass
class InjectedError:
    type: str
    step: int  # 0-based index in the resulting CoT
    original: str  # the step before the change ("" for an inserted step)
    modified: str  # the step after the change ("" for a removed step)
    description: str
    related_step: int | None = None  # 0-based index of the step the change refers to, if any
    name: str = ""  # the paper's name of the type
    changes_answer: bool = True  # False only for the types in KEEPS_ANSWER
    keeps_answer_reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class InjectedCoT:
    steps: list[str]
    text: str
    errors: list[InjectedError] = field(default_factory=list)
    seed: int = 0
    gold_answer: str | None = None  # the final answer of the correct CoT
    wrong_answer: str | None = None  # the final answer the erroneous CoT states

    def to_dict(self) -> dict[str, Any]:
        return {"steps": list(self.steps), "text": self.text, "seed": self.seed,
                "errors": [e.to_dict() for e in self.errors],
                "gold_answer": self.gold_answer, "wrong_answer": self.wrong_answer}


# --------------------------------------------------------------------------- clean CoT

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\(])")


_FINAL_LINE = re.compile(r"(answer is|^####|^answer\s*:)", re.I)


def clean_cot(solution: str, answer: str | None = None) -> list[str]:
    """Split a solution into steps. GSM8K style (``<<...>>`` annotations and/or a
    ``#### n`` line): one step per line, annotations removed, ``#### n`` becomes
    ``The answer is n.``. Other text: one step per non-empty line; a single long
    paragraph is split into sentences. With ``answer`` (the gold answer text), a
    CoT whose last step does not state an answer gets ``The answer is <answer>.``."""
    steps = _split_steps(solution)
    if answer is not None and str(answer).strip() and steps and not _FINAL_LINE.search(steps[-1]):
        steps.append(f"The answer is {str(answer).strip().rstrip('.')}.")
    return steps


def _split_steps(solution: str) -> list[str]:
    text = (solution or "").replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return []
    gsm8k = bool(ANNOTATION_RE.search(text)) or bool(re.search(r"^\s*####", text, re.M))
    steps: list[str] = []
    if gsm8k:
        for line in text.split("\n"):
            line = ANNOTATION_RE.sub("", line).strip()
            if not line:
                continue
            m = re.match(r"^####\s*(.*?)\s*$", line)
            if m:
                answer = m.group(1).rstrip(".")
                steps.append(f"The answer is {answer}." if answer else line)
            else:
                steps.append(re.sub(r"[ \t]{2,}", " ", line))
        return steps
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    if len(lines) == 1:
        lines = [s.strip() for s in _SENTENCE_SPLIT.split(lines[0]) if s.strip()]
    return _drop_option_letters(lines)


# "Answer: E", "ANSWER:B", "The answer is (A).", "Answer: Option C", "Correct option: D", "B"
_OPTION_LINE = re.compile(
    r"^(?:(?:hence|so|thus|therefore)\s*,?\s*)?(?:the\s+)?(?:correct\s+|right\s+)?"
    r"(?:(?:answer|ans|option|choice)\b\s*(?:is\s*)?[:\-=]?\s*(?:is\s*)?(?:option\s*)?)?"
    r"\(?[A-Ea-e]\)?\s*[.!]?\s*$", re.I)
_OPTION_TAIL = re.compile(
    r"\s*(?:(?:hence|so|thus|therefore)\s*,?\s*)?(?:the\s+)?(?:correct\s+)?(?:answer|option)\s*"
    r"(?:is\s*)?[:\-=]?\s*(?:option\s*)?\(?[A-E]\)\s*[.!]?\s*$|"
    r"\s*(?:(?:hence|so|thus|therefore)\s*,?\s*)?(?:the\s+)?(?:correct\s+)?(?:answer|option)\s*"
    r"(?:is\s*)?[:\-=]?\s*(?:option\s*)?[A-E]\s*[.!]?\s*$", re.I)


_EMPTY_ANSWER_LINE = re.compile(r"^(?:the\s+)?(?:correct\s+)?answer\s*(?:is)?\s*[:\-=]?\s*[(\[]?\s*$", re.I)


def _drop_option_letters(lines: list[str]) -> list[str]:
    """A multiple-choice rationale (AQuA) names its option letter at the end
    ("Answer: E"): that line (or tail) is dropped, so the chain of thought states
    numbers only and the final answer line comes from the gold answer."""
    out = list(lines)
    while out and (_OPTION_LINE.match(out[-1]) or _EMPTY_ANSWER_LINE.match(out[-1])):
        out.pop()
    if out:
        tail = _OPTION_TAIL.sub("", out[-1]).rstrip()
        if tail != out[-1]:
            if tail.strip(" ,;:"):
                out[-1] = tail
            else:
                out.pop()
    return out


# --------------------------------------------------------------------------- working state


@dataclass
class _Step:
    id: int
    text: str
    final: bool = False
    inserted: bool = False


@dataclass
class _State:
    steps: list[_Step]
    rng: random.Random
    question_numbers: set[Fraction] = field(default_factory=set)  # numbers given in the problem
    touched: set[int] = field(default_factory=set)  # ids changed, moved, removed or inserted
    pinned: set[int] = field(default_factory=set)  # ids that anchor another change: not moved/removed
    next_id: int = 0

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def index(self, step_id: int) -> int:
        for i, s in enumerate(self.steps):
            if s.id == step_id:
                return i
        raise KeyError(step_id)

    def free(self, *, allow_pinned: bool = True) -> list[_Step]:
        """Original, not yet touched, non-final steps."""
        return [s for s in self.steps if not s.final and not s.inserted and s.id not in self.touched
                and (allow_pinned or s.id not in self.pinned)]

    def all_numbers(self) -> set[Fraction]:
        out: set[Fraction] = set(self.question_numbers)
        for s in self.steps:
            out |= {v for _, v in _numbers(s.text)}
        return out


@dataclass
class _Record:
    type: str
    step_id: int
    original: str
    modified: str
    description: str  # may hold {step} / {related}: 1-based positions in the final CoT
    related_id: int | None = None
    propagated: list[int] = field(default_factory=list)  # ids of later steps recomputed


_NUM_RE = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|(?<![\w.])\.\d+")


def _numbers(text: str) -> list[tuple[str, Fraction]]:
    return [(m.group(0), Fraction(m.group(0).replace(",", ""))) for m in _NUM_RE.finditer(text)]


@lru_cache(maxsize=4096)
def _computations(text: str) -> tuple[InlineComputation, ...]:
    return tuple(find_inline_computations(text))


def _result_number_span(text: str, comp: InlineComputation) -> tuple[int, int, str]:
    """Span and text of the number inside a computation's written result ("$18" -> "18")."""
    seg = text[comp.result_start : comp.result_end]
    m = _NUM_RE.search(seg) or re.search(r"\d[\d,]*(?:\.\d+)?|\.\d+", seg)
    if m is None:  # pragma: no cover - INLINE_RE guarantees a number
        raise InjectionError("computation result has no number")
    return comp.result_start + m.start(), comp.result_start + m.end(), m.group(0)


def _places(number_text: str) -> int:
    return len(number_text.split(".", 1)[1]) if "." in number_text else 0


def _format_like(value: Fraction, template: str) -> str:
    """Write ``value`` the way ``template`` writes numbers (decimal places, commas)."""
    places = _places(template)
    while places < 8 and (value * 10**places).denominator != 1:
        places += 1
    if (value * 10**places).denominator != 1:
        return f"{value.numerator}/{value.denominator}"
    negative = value < 0
    scaled = abs(value * 10**places).numerator
    digits = str(scaled).rjust(places + 1, "0")
    whole, frac = (digits[:-places], digits[-places:]) if places else (digits, "")
    if "," in template and len(whole) > 3:
        whole = f"{int(whole):,}"
    if template.startswith(".") and whole == "0":
        whole = ""
    out = f"{whole}.{frac}" if places else whole
    return f"-{out}" if negative else out


def _brace(text: str) -> str:
    """Escape braces so a text survives ``str.format`` of a description."""
    return text.replace("{", "{{").replace("}", "}}")


def _written(text: str, value: Fraction) -> str:
    """``value`` as ``text`` writes it (``120,000``), else a plain rendering."""
    for raw, v in _numbers(text):
        if v == value:
            return raw
    return _format_like(value, "0")


def _uses(step: _Step, value: Fraction) -> bool:
    """Does ``step`` use ``value`` as an input (an operand of one of its computations,
    or any number in it when it has no computation)?"""
    comps = _computations(step.text)
    if comps:
        for c in comps:
            operands = {v for _, v in _numbers(step.text[c.expr_start : c.expr_end])}
            if value in operands:
                return True
        return False
    return value in {v for _, v in _numbers(step.text)}


def _results(step: _Step) -> list[Fraction]:
    return [c.written for c in _computations(step.text)]



# --------------------------------------------------------------------------- propagation


_FINAL_NUMBER = re.compile(r"(?<![\w.])[-−]?\$?\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")


def _final_value(st: _State) -> Fraction | None:
    """The number the final line states (``The answer is 18.``), if any."""
    final = st.steps[-1]
    if not final.final:
        return None
    m = list(_FINAL_NUMBER.finditer(final.text))
    if not m:
        return None
    try:
        value = Fraction(m[-1].group(1).replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None
    return -value if m[-1].group(0).lstrip()[:1] in "-−" else value


def _format_result(value: Fraction, template: str) -> str:
    """``value`` written like ``template``; a value with no short decimal is rounded."""
    text = _format_like(value, template)
    if "/" in text:
        places = max(2, _places(template))
        text = f"{float(value):.{places}f}".rstrip("0").rstrip(".")
    return text


def _snapshot(st: _State) -> tuple[list[_Step], dict[int, str], set[int], set[int], int]:
    return list(st.steps), {s.id: s.text for s in st.steps}, set(st.touched), set(st.pinned), st.next_id


def _restore(st: _State, snap: tuple[list[_Step], dict[int, str], set[int], set[int], int]) -> None:
    steps, texts, touched, pinned, next_id = snap
    st.steps = list(steps)
    for s in st.steps:
        s.text = texts[s.id]
    st.touched, st.pinned, st.next_id = set(touched), set(pinned), next_id


class _Ambiguous(Exception):
    """A later computation writes a changed value twice: the change cannot be carried."""


def _propagate(st: _State, after_id: int, old: Fraction, new: Fraction) -> list[int]:
    """Carry a changed value into the later steps: every computation after step
    ``after_id`` that uses ``old`` as an operand uses ``new`` instead and its written
    result is recomputed, which changes further steps in turn; the final line states
    the new final value. A value the problem itself states is not replaced (it may be
    the given, not the result). Returns the ids of the steps that changed."""
    mapping: dict[Fraction, Fraction] = {old: new} if old != new else {}
    changed: list[int] = []
    start = st.index(after_id) + 1
    for step in st.steps[start:]:
        if not mapping:
            break
        text = step.text
        if step.final:
            m = list(_FINAL_NUMBER.finditer(text))
            if m:
                last = m[-1]
                raw = last.group(1)
                value = Fraction(raw.replace(",", ""))
                if value in mapping:
                    text = text[: last.start(1)] + _format_result(mapping[value], raw) + text[last.end(1):]
        else:
            i = 0
            while True:
                comps = find_inline_computations(text)
                if i >= len(comps):
                    break
                c = comps[i]
                i += 1
                seg = text[c.expr_start : c.expr_end]
                old_value = _value_of_visible(seg)
                if old_value is None or old_value != c.written:
                    continue  # a scaled percent or a rounded result: not recomputed
                pieces: list[str] = []
                last_end = 0
                hit = False
                found = [Fraction(m.group(0).replace(",", "")) for m in _NUM_RE.finditer(seg)]
                if any(found.count(v) > 1 for v in mapping if v not in st.question_numbers):
                    # "$90 + $90" where one 90 changed: which one uses it, only the
                    # formalization's links could tell; never both by their equal value
                    raise _Ambiguous(seg)
                for num in _NUM_RE.finditer(seg):
                    v = Fraction(num.group(0).replace(",", ""))
                    if v in mapping and v not in st.question_numbers:
                        pieces.append(seg[last_end : num.start()] + _format_result(mapping[v], num.group(0)))
                        last_end = num.end()
                        hit = True
                if not hit:
                    continue
                new_seg = "".join(pieces) + seg[last_end:]
                new_value = _value_of_visible(new_seg)
                if new_value is None:
                    continue
                r_start, r_end, r_text = _result_number_span(text, c)
                new_result = _format_result(new_value, r_text)
                text = (text[: c.expr_start] + new_seg + text[c.expr_end : r_start] + new_result
                        + text[r_end:])
                if new_value != c.written:
                    mapping[c.written] = new_value
            text = _replace_outside(text, mapping, st.question_numbers)
        if text != step.text:
            step.text = text
            changed.append(step.id)
    return changed


def _replace_outside(text: str, mapping: dict[Fraction, Fraction], given: set[Fraction]) -> str:
    """Numbers outside the step's computations that restate a changed value
    ("the pyramid is 252 tall") are changed too, unless the problem states them."""
    spans = [(c.expr_start, c.result_end) for c in find_inline_computations(text)]
    out: list[str] = []
    last = 0
    for m in _NUM_RE.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        v = Fraction(m.group(0).replace(",", ""))
        if v in mapping and v not in given:
            out.append(text[last : m.start()] + _format_result(mapping[v], m.group(0)))
            last = m.end()
    return "".join(out) + text[last:] if out else text


def _restate(text: str, lo: int, hi: int, mapping: dict[Fraction, Fraction], given: set[Fraction]) -> str:
    """The edited step's words outside its computation (``text[lo:hi]``) that restate the old
    result take the new one, so no "because" clause keeps a stale value."""
    return (_replace_outside(text[:lo], mapping, given) + text[lo:hi]
            + _replace_outside(text[hi:], mapping, given))


def _still_consistent(st: _State, snap: tuple[list[_Step], dict[int, str], set[int], set[int], int],
                      changed: list[int], error_id: int) -> bool:
    """Every recomputed step still reads as right arithmetic (no value that cannot be
    written, no negative count), and the error's own step keeps its computation
    unless the error is the wrong result itself."""
    texts = snap[1]
    for sid in changed:
        before = texts.get(sid)
        after = st.steps[st.index(sid)].text
        if before is None:
            continue
        if len(_computations(after)) != len(_computations(before)):
            return False
        if re.search(r"(?<![\w.])[-−]\s*\$?\d", after) and not re.search(r"(?<![\w.])[-−]\s*\$?\d", before):
            return False
    return True


def _other_operator_values(seg: str) -> set[Fraction]:
    """Values the computation would have with one operator swapped (to keep an
    arithmetic error from reading as an operator error)."""
    out: set[Fraction] = set()
    for i in _binary_operators(seg):
        for op in {"+", "-", "*", "/"} - {seg[i]}:
            v = _value_of_visible(seg[:i] + op + seg[i + 1 :])
            if v is not None:
                out.add(v)
    return out

# --------------------------------------------------------------------------- injectors


def _need_final(st: _State) -> Fraction:
    gold = _final_value(st)
    if gold is None:
        raise InjectionError("the chain of thought states no final number, so a changed value "
                             "cannot be shown to reach the answer")
    return gold


def _arithmetic_inaccuracy(st: _State) -> _Record:
    candidates = [(s, c) for s in st.free() for c in _computations(s.text)]
    if not candidates:
        raise InjectionError("no computation with a written result to falsify")
    st.rng.shuffle(candidates)
    gold = _need_final(st)
    for step, comp in candidates:
        start, end, number_text = _result_number_span(step.text, comp)
        written = Fraction(number_text.replace(",", ""))
        unit = Fraction(1, 10 ** _places(number_text))
        if written:
            magnitude = Fraction(10) ** max(0, math.floor(math.log10(abs(written))) - 1)
            unit = max(unit, magnitude)
        seg = step.text[comp.expr_start : comp.expr_end]
        swapped = _other_operator_values(seg)
        options = [written + k * unit for k in (1, 2, 3, 10)] + [written - k * unit for k in (1, 2, 3, 10)]
        # unambiguous: the wrong result is not what another operator would give
        options = [o for o in options if o != written and (o > 0 or written <= 0) and o not in swapped]
        if not options:
            continue
        wrong = options[st.rng.randrange(len(options))]
        snap = _snapshot(st)
        new_number = _format_like(wrong, number_text)
        old = step.text
        step.text = step.text[:start] + new_number + step.text[end:]
        # the step's own words agree with its new result ("They each get 23 chips because ...")
        step.text = _restate(step.text, comp.expr_start, start + len(new_number), {written: wrong},
                             st.question_numbers)
        try:
            propagated = _propagate(st, step.id, written, wrong)
        except _Ambiguous:
            _restore(st, snap)
            continue
        if (_final_value(st) == gold or (gold >= 0 and (_final_value(st) or 0) < 0)
                or not _still_consistent(st, snap, propagated, step.id)):
            _restore(st, snap)  # the wrong value does not reach the answer: try another step
            continue
        st.touched.add(step.id)
        expr = seg.strip()
        return _Record("arithmetic_inaccuracy", step.id, old, step.text,
                       f"in step {{step}} the result of {_brace(expr)} was changed from {number_text} "
                       f"to {new_number}; the later steps use the wrong value", propagated=propagated)
    raise InjectionError("no computation whose wrong result reaches the final answer")


_SWAP = {"+": "-", "-": "+", "−": "+", "*": "/", "/": "*", "×": "÷", "÷": "×", "x": "/"}


def _binary_operators(seg: str) -> list[int]:
    """Positions of binary operators in a written expression (not a unit slash as in
    ``miles/hour``, a hyphen in ``30-minute``, a unary minus or part of ``**``)."""
    out: list[int] = []
    for i, c in enumerate(seg):
        if c not in _SWAP:
            continue
        before, after = seg[:i], seg[i + 1 :]
        prev_char, next_char = before[-1:], after[:1]
        prev_ns, next_ns = before.rstrip()[-1:], after.lstrip()[:1]
        if c == "x" and not ((prev_char.isspace() and next_char.isspace())
                             or (prev_char.isdigit() and next_char.isdigit())):
            continue
        if c == "*" and ("*" in (prev_char, next_char)):
            continue
        if c == "/" and next_char.isalpha():
            continue  # a unit: GB/minute
        if c in "-−" and prev_char.isalpha() and next_char.isalnum():
            continue  # a hyphenated word
        if not prev_ns or not (prev_ns.isalnum() or prev_ns in ")%’'"):
            continue  # unary, or after another operator
        if prev_ns.isalpha() and not prev_char.isspace() and c not in "×÷":
            continue  # glued to a word
        if not next_ns or not (next_ns.isdigit() or next_ns in "($.€£"):
            continue
        out.append(i)
    return out


def _operator_misuse(st: _State) -> _Record:
    candidates: list[tuple[_Step, InlineComputation, int, str, str, Fraction]] = []
    for s in st.free():
        for c in _computations(s.text):
            seg = s.text[c.expr_start : c.expr_end]
            value = _value_of_visible(seg)
            if value is None or value != c.written:
                continue
            for i in _binary_operators(seg):
                op = seg[i]
                swapped = _SWAP[op]
                new_seg = seg[:i] + swapped + seg[i + 1 :]
                new_value = _value_of_visible(new_seg)
                if new_value is None or new_value == value or new_value < 0:
                    continue
                if _read_value(new_seg) != new_value:
                    continue  # "60 / 2/3" reads as 60 divided by two thirds, not (60/2)/3
                candidates.append((s, c, c.expr_start + i, op, swapped, new_value))
    if not candidates:
        raise InjectionError("no operator whose swap changes a computation")
    st.rng.shuffle(candidates)
    gold = _need_final(st)
    for step, comp, pos, op, swapped, new_value in candidates:
        snap = _snapshot(st)
        old = step.text
        text = old[:pos] + swapped + old[pos + 1 :]
        r_start, r_end, r_text = _result_number_span(text, comp)
        new_result = _format_result(new_value, r_text)
        step.text = text[:r_start] + new_result + text[r_end:]
        step.text = _restate(step.text, comp.expr_start, r_start + len(new_result),
                             {comp.written: new_value}, st.question_numbers)
        try:
            propagated = _propagate(st, step.id, comp.written, new_value)
        except _Ambiguous:
            _restore(st, snap)
            continue
        if (_final_value(st) == gold or (gold >= 0 and (_final_value(st) or 0) < 0)
                or not _still_consistent(st, snap, [*propagated, step.id], step.id)):
            _restore(st, snap)
            continue
        st.touched.add(step.id)
        expr_old = old[comp.expr_start : comp.expr_end].strip()
        expr_new = text[comp.expr_start : comp.expr_end].strip()
        return _Record("operator_misuse", step.id, old, step.text,
                       f"in step {{step}} the operator {op!r} was replaced by {swapped!r}: {_brace(expr_old)} "
                       f"became {_brace(expr_new)} = {new_result} (correct arithmetic for the wrong operator); "
                       "the later steps use that value", propagated=propagated)
    raise InjectionError("no operator swap whose result reaches the final answer")


_TIGHT_FRACTION = re.compile(r"(?<![\d.)/])(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)(?![\d.(/])")


def _read_value(expr_text: str) -> Fraction | None:
    """The value a reader gives a written computation: a fraction written tight (``2/3``) is
    one number, whatever stands before it."""
    return _value_of_visible(_TIGHT_FRACTION.sub(r"(\1/\2)", expr_text))


def _value_of_visible(expr_text: str) -> Fraction | None:
    try:
        return evaluate(parse_expression(normalize_visible(expr_text).replace("%", "")))
    except ExpressionError:
        return None


def _omitted_step(st: _State) -> _Record:
    non_final = [s for s in st.steps if not s.final]
    if len(non_final) < 2:
        raise InjectionError("the CoT has fewer than two steps before the answer; nothing can be omitted")
    free = st.free(allow_pinned=False)
    if not free:
        raise InjectionError("no step left that can be removed")
    later_users: list[_Step] = []
    for s in free:
        idx = st.index(s.id)
        results = _results(s)
        if results and any(_uses(t, r) for t in st.steps[idx + 1 :] for r in results):
            later_users.append(s)
    pool = later_users or [s for s in free if _computations(s.text)] or free
    step = pool[st.rng.randrange(len(pool))]
    idx = st.index(step.id)
    successor = st.steps[idx + 1]
    del st.steps[idx]
    st.touched.add(step.id)
    st.pinned.add(successor.id)
    used = " (a later step uses its result)" if step in later_users else ""
    return _Record("omitted_step", successor.id, step.text, "",
                   f"the step before step {{step}} was removed{used}: {_brace(step.text)!r}")


# a made-up fact told as a person would tell it, never naming itself ("the problem also
# states"): a model must notice the number is not in the problem, not spot a phrase
_HALLUCINATIONS: tuple[tuple[str, str], ...] = (
    ("+", "There are {h} more on top of that, so {r} + {h} = {v}."),
    ("+", "Adding the other {h} gives {r} + {h} = {v}."),
    ("+", "With {h} extra, that makes {r} + {h} = {v}."),
    ("+", "Then {h} more come in, so {r} + {h} = {v}."),
    ("-", "But {h} of them are lost, so {r} - {h} = {v}."),
    ("-", "After giving {h} away, {r} - {h} = {v} are left."),
    ("-", "Taking out the {h} that were broken, {r} - {h} = {v}."),
    ("*", "This happens {h} times, so {r} * {h} = {v}."),
    ("*", "Over the {h} rounds, that is {r} * {h} = {v}."),
)
MAX_TIMES = 12  # "this happens h times" only with a small h


def _hallucinated_content(st: _State) -> _Record:
    candidates = [(s, c) for s in st.free() for c in _computations(s.text)]
    if not candidates:
        raise InjectionError("no computation to attach a fabricated fact to")
    st.rng.shuffle(candidates)
    gold = _need_final(st)
    present = st.all_numbers()
    for step, comp in candidates:
        _, _, r_text = _result_number_span(step.text, comp)
        r = Fraction(r_text.replace(",", ""))
        if r in st.question_numbers:
            continue  # later uses of r could be the given, not this result
        unit = 10 ** max(0, math.floor(math.log10(abs(r))) - 1) if r else 1
        fresh = [k * unit for k in range(2, 100) if Fraction(k * unit) not in present]
        if not fresh:
            continue
        h = fresh[st.rng.randrange(min(8, len(fresh)))]
        templates = [t for t in _HALLUCINATIONS
                     if not (t[0] == "-" and r <= h) and not (t[0] == "*" and h > MAX_TIMES)]
        op, template = templates[st.rng.randrange(len(templates))]
        value = r + h if op == "+" else r - h if op == "-" else r * h
        h_text = _format_like(Fraction(h), r_text.split(".")[0])
        sentence = template.format(h=h_text, r=r_text, v=_format_like(value, r_text))
        snap = _snapshot(st)
        new = _Step(st.new_id(), sentence, inserted=True)
        st.steps.insert(st.index(step.id) + 1, new)
        try:
            propagated = _propagate(st, new.id, r, value)
        except _Ambiguous:
            _restore(st, snap)
            continue
        if (_final_value(st) == gold or (gold >= 0 and (_final_value(st) or 0) < 0)
                or not _still_consistent(st, snap, propagated, new.id)):
            _restore(st, snap)
            continue
        st.touched.add(new.id)
        st.pinned.add(step.id)
        return _Record("hallucinated_content", new.id, "", sentence,
                       f"step {{step}} was inserted after step {{related}}: a fact that is not in the problem, "
                       f"with the made-up number {h_text}; the later steps use its result", step.id,
                       propagated=propagated)
    raise InjectionError("no computation whose result reaches the final answer to attach a fabricated fact to")


# a restated computation in plain words, never announcing itself as a repeat
_REDUNDANT = ("So {e} = {r}.", "That is, {e} = {r}.", "We have {e} = {r}.", "This means {e} = {r}.",
              "Note that {e} = {r}.", "In other words, {e} = {r}.", "Here {e} = {r}.")


def _redundancy(st: _State) -> _Record:
    candidates = [(s, c) for s in st.free() for c in _computations(s.text)]
    if candidates:
        step, comp = candidates[st.rng.randrange(len(candidates))]
        expr = step.text[comp.expr_start : comp.expr_end].strip()
        sentence = _REDUNDANT[st.rng.randrange(len(_REDUNDANT))].format(e=expr, r=comp.result_text.strip())
        what = f"restates the computation {expr} = {comp.result_text.strip()}"
    else:
        pool = st.free()
        if not pool:
            raise InjectionError("no step to repeat")
        step = pool[st.rng.randrange(len(pool))]
        sentence = step.text
        what = "repeats it word for word"
    idx = st.index(step.id)
    last_allowed = len(st.steps) - 1  # insert before the final step
    if st.steps[-1].final:
        positions = list(range(idx + 1, last_allowed + 1))
    else:
        positions = list(range(idx + 1, len(st.steps) + 1))
    pos = positions[st.rng.randrange(len(positions))]
    new = _Step(st.new_id(), sentence, inserted=True)
    st.steps.insert(pos, new)
    st.touched.add(new.id)
    st.pinned.add(step.id)
    return _Record("redundancy", new.id, "", sentence,
                   f"step {{step}} is unnecessary: it {_brace(what)} from step {{related}}", step.id)


def _logical_disorder(st: _State) -> _Record:
    movable = {s.id for s in st.free(allow_pinned=False)}
    pairs: list[tuple[_Step, _Step, Fraction]] = []
    for j, later in enumerate(st.steps):
        if later.id not in movable:
            continue
        for earlier in st.steps[:j]:
            if earlier.final or earlier.inserted:
                continue
            for r in _results(earlier):
                if _uses(later, r):
                    pairs.append((earlier, later, r))
                    break
    if not pairs:
        raise InjectionError("no step uses the result of an earlier step; nothing to reorder")
    # the clearest evidence of a dependency: a number that is not given in the problem
    # and is not a small number that could come from anywhere
    strong = [p for p in pairs if p[2] not in st.question_numbers and p[2] not in (0, 1, 2)]
    pool = strong or pairs
    earlier, later, r = pool[st.rng.randrange(len(pool))]
    i, j = st.index(earlier.id), st.index(later.id)
    st.steps.pop(j)
    st.steps.insert(i, later)
    st.touched.add(later.id)
    st.pinned.add(earlier.id)
    return _Record("logical_disorder", later.id, later.text, later.text,
                   f"step {{step}} (step {later.id + 1} of the correct solution) was moved before step {{related}}, "
                   f"but it uses {_brace(_written(later.text, r))}, "
                   f"which step {{related}} derives", earlier.id)


_INJECTORS: dict[str, Callable[[_State], _Record]] = {
    "arithmetic_inaccuracy": _arithmetic_inaccuracy,
    "omitted_step": _omitted_step,
    "hallucinated_content": _hallucinated_content,
    "logical_disorder": _logical_disorder,
    "redundancy": _redundancy,
    "operator_misuse": _operator_misuse,
}


# --------------------------------------------------------------------------- public API


def _initial_state(solution: str, rng_seed: int, question: str | None = None,
                   answer: str | None = None) -> _State:
    steps_text = clean_cot(solution, answer)
    if not steps_text:
        raise InjectionError("the solution is empty")
    steps = [_Step(i, t) for i, t in enumerate(steps_text)]
    steps[-1].final = True
    given = {v for _, v in _numbers(question)} if question else set()
    return _State(steps, random.Random(rng_seed), question_numbers=given, next_id=len(steps))


def inject_errors(
    solution: str,
    n_errors: int = 1,
    *,
    rng_seed: int = 0,
    types: Sequence[str] | None = None,
    question: str | None = None,
    answer: str | None = None,
    redraw: bool = True,
) -> InjectedCoT:
    """Inject ``n_errors`` distinct error types into a correct solution.

    Without ``types`` the types are sampled uniformly (seeded); a type that cannot
    apply is replaced by another. With ``types`` exactly those are applied (when
    ``len(types) > n_errors``, ``n_errors`` of them are sampled) and a type that
    cannot apply raises InjectionError. Deterministic for a given ``rng_seed``.

    ``question`` (optional, the seed problem) keeps made-up numbers out of the
    problem's own numbers and makes dependency detection (logical disorder)
    ignore numbers the problem gives. ``answer`` (optional, the gold answer text)
    adds a final ``The answer is ...`` step when the solution has none (a seed
    stored without its ``#### n`` line); the final step states the final value
    (recomputed when an error changes a value that reaches it).

    ``redraw=False`` keeps SMART's uniform draw of the types for every source: the
    sampled types must apply, and one that cannot raises InjectionError instead of
    being replaced by a type that happens to fit (which would skew the mix towards
    the types every text admits)."""
    if not 1 <= n_errors <= len(ERROR_TYPES):
        raise InjectionError(f"n_errors must be between 1 and {len(ERROR_TYPES)}, got {n_errors}")
    if types is not None:
        unknown = [t for t in types if t not in ERROR_TYPES]
        if unknown:
            raise InjectionError(f"unknown error type(s) {unknown}; known: {', '.join(ERROR_TYPES)}")
        if len(set(types)) != len(types):
            raise InjectionError(f"error types must be distinct, got {list(types)}")
        if len(types) < n_errors:
            raise InjectionError(f"{n_errors} errors requested but only {len(types)} type(s) given")
    st = _initial_state(solution, rng_seed, question, answer)
    gold_final = _final_value(st)
    if types is not None:
        forced = list(types)
        order = forced if len(forced) == n_errors else st.rng.sample(forced, n_errors)
    elif not redraw:
        order = st.rng.sample(list(ERROR_TYPES), n_errors)
    else:
        order = st.rng.sample(list(ERROR_TYPES), len(ERROR_TYPES))
    records: list[_Record] = []
    failures: list[str] = []
    for etype in order:
        if len(records) == n_errors:
            break
        try:
            records.append(_INJECTORS[etype](st))
        except InjectionError as exc:
            if types is not None or not redraw:
                raise InjectionError(f"cannot inject {etype}: {exc}") from exc
            failures.append(f"{etype}: {exc}")
    if len(records) < n_errors:
        raise InjectionError(
            f"only {len(records)} of {n_errors} error type(s) apply to this solution ("
            + "; ".join(failures) + ")"
        )
    steps = [s.text for s in st.steps]
    errors: list[InjectedError] = []
    for r in records:
        step = st.index(r.step_id)
        related = st.index(r.related_id) if r.related_id is not None else None
        description = r.description.format(step=step + 1, related=(related + 1) if related is not None else "?")
        keeps = KEEPS_ANSWER.get(r.type, "")
        # a later error's propagation may have changed this step again: record it as shown
        modified = st.steps[step].text if r.modified else ""
        errors.append(InjectedError(r.type, step, r.original, modified, description, related,
                                    ERROR_NAMES[r.type], not keeps, keeps))
    wrong = _final_value(st)
    return InjectedCoT(steps, "\n".join(steps), errors, rng_seed,
                       gold_answer=_format_result(gold_final, "0") if gold_final is not None else None,
                       wrong_answer=_format_result(wrong, "0") if wrong is not None else None)


def applicable_types(solution: str, question: str | None = None, answer: str | None = None) -> list[str]:
    """The error types that can be injected (alone) into this solution."""
    out = []
    for etype in ERROR_TYPES:
        try:
            _INJECTORS[etype](_initial_state(solution, 0, question, answer))
        except InjectionError:
            continue
        out.append(etype)
    return out

