"""The chain of thought an error is injected into (see :mod:`.inject`): its steps, the
numbers and computations each states, and how a changed value is carried into the later
steps that use it (:func:`propagate`, following the written computations, never equal
values elsewhere). :mod:`.inject_types` edits it; :mod:`.inject` is the public interface.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from qcstation.core.construct.make.rules import (
    ExpressionError,
    InlineComputation,
    evaluate,
    find_inline_computations,
    normalize_visible,
    parse_expression,
)
from qcstation.common.errors import GenerationError
from qcstation.core.reading.answers import decimal_fraction


class InjectionError(GenerationError):
    """An error type cannot be injected into this CoT; ``str(err)`` says why."""

    def __init__(self, message: str, title: str = "Cannot inject error") -> None:
        super().__init__(message, title)


# --------------------------------------------------------------------------- working state


@dataclass
class ChainStep:
    id: int
    text: str
    final: bool = False
    inserted: bool = False


@dataclass
class ChainState:
    steps: list[ChainStep]
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

    def free(self, *, allow_pinned: bool = True) -> list[ChainStep]:
        """Original, not yet touched, non-final steps."""
        return [s for s in self.steps if not s.final and not s.inserted and s.id not in self.touched
                and (allow_pinned or s.id not in self.pinned)]

    def all_numbers(self) -> set[Fraction]:
        out: set[Fraction] = set(self.question_numbers)
        for s in self.steps:
            out |= {v for _, v in numbers_in(s.text)}
        return out


@dataclass
class EditRecord:
    type: str
    step_id: int
    original: str
    modified: str
    description: str  # may hold {step} / {related}: 1-based positions in the final CoT
    related_id: int | None = None
    propagated: list[int] = field(default_factory=list)  # ids of later steps recomputed
    origin_id: int | None = None  # the step of the correct chain ``original`` is (default step_id)


_NUM_RE = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|(?<![\w.])\.\d+")


def numbers_in(text: str) -> list[tuple[str, Fraction]]:
    return [(m.group(0), decimal_fraction(m.group(0).replace(",", ""))) for m in _NUM_RE.finditer(text)]


@lru_cache(maxsize=4096)
def step_computations(text: str) -> tuple[InlineComputation, ...]:
    return tuple(find_inline_computations(text))


def result_number_span(text: str, comp: InlineComputation) -> tuple[int, int, str]:
    """Span and text of the number inside a computation's written result ("$18" -> "18")."""
    seg = text[comp.result_start : comp.result_end]
    m = _NUM_RE.search(seg) or re.search(r"\d[\d,]*(?:\.\d+)?|\.\d+", seg)
    if m is None:  # pragma: no cover - INLINE_RE guarantees a number
        raise InjectionError("computation result has no number")
    return comp.result_start + m.start(), comp.result_start + m.end(), m.group(0)


def decimal_places(number_text: str) -> int:
    return len(number_text.split(".", 1)[1]) if "." in number_text else 0


def format_like(value: Fraction, template: str) -> str:
    """Write ``value`` the way ``template`` writes numbers (decimal places, commas)."""
    places = decimal_places(template)
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


def brace(text: str) -> str:
    """Escape braces so a text survives ``str.format`` of a description."""
    return text.replace("{", "{{").replace("}", "}}")


def format_as_written(text: str, value: Fraction) -> str:
    """``value`` as ``text`` writes it (``120,000``), else a plain rendering."""
    for raw, v in numbers_in(text):
        if v == value:
            return raw
    return format_like(value, "0")


def step_uses(step: ChainStep, value: Fraction) -> bool:
    """Does ``step`` use ``value`` as an input (an operand of one of its computations,
    or any number in it when it has no computation)?"""
    comps = step_computations(step.text)
    if comps:
        for c in comps:
            operands = {v for _, v in numbers_in(step.text[c.expr_start : c.expr_end])}
            if value in operands:
                return True
        return False
    return value in {v for _, v in numbers_in(step.text)}


def step_results(step: ChainStep) -> list[Fraction]:
    return [c.written for c in step_computations(step.text)]



# --------------------------------------------------------------------------- propagation


# (a match opening with spaces opens at the first of them: one tried at each space of a long
# run read the rest of the run each time; the number, its place and its sign are as before)
_FINAL_NUMBER = re.compile(r"(?:(?<![\w.])(?=[-−$\d.])|(?<![\w.\s])(?=\s))[-−]?\$?\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")


def final_value(st: ChainState) -> Fraction | None:
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


def format_result(value: Fraction, template: str) -> str:
    """``value`` written like ``template``; a value with no short decimal is rounded."""
    text = format_like(value, template)
    if "/" in text:
        places = max(2, decimal_places(template))
        text = f"{float(value):.{places}f}".rstrip("0").rstrip(".")
    return text


def snapshot(st: ChainState) -> tuple[list[ChainStep], dict[int, str], set[int], set[int], int]:
    return list(st.steps), {s.id: s.text for s in st.steps}, set(st.touched), set(st.pinned), st.next_id


def restore(st: ChainState, snap: tuple[list[ChainStep], dict[int, str], set[int], set[int], int]) -> None:
    steps, texts, touched, pinned, next_id = snap
    st.steps = list(steps)
    for s in st.steps:
        s.text = texts[s.id]
    st.touched, st.pinned, st.next_id = set(touched), set(pinned), next_id


class AmbiguousChange(Exception):
    """A later computation writes a changed value twice: the change cannot be carried."""


def propagate(st: ChainState, after_id: int, old: Fraction, new: Fraction) -> list[int]:
    """Carry a changed value into the later steps: every computation after step
    ``after_id`` that uses ``old`` as an operand uses ``new`` instead and its written
    result is recomputed, which changes further steps in turn; the final line states
    the new final value. A changed value the problem itself states too, written by a later
    step, is ambiguous (the given or the result?): AmbiguousChange, the caller tries another
    change. Returns the ids of the steps that changed."""
    mapping: dict[Fraction, Fraction] = {old: new} if old != new else {}
    changed: list[int] = []
    start = st.index(after_id) + 1
    for step in st.steps[start:]:
        if not mapping:
            break
        text = step.text
        carried = dict(mapping)  # the changes of earlier steps (this step's own results aside)
        if step.final:
            m = list(_FINAL_NUMBER.finditer(text))
            if m:
                last = m[-1]
                raw = last.group(1)
                value = decimal_fraction(raw.replace(",", ""))
                if value in mapping:
                    text = text[: last.start(1)] + format_result(mapping[value], raw) + text[last.end(1):]
        else:
            i = 0
            while True:
                comps = find_inline_computations(text)
                if i >= len(comps):
                    break
                c = comps[i]
                i += 1
                seg = text[c.expr_start : c.expr_end]
                old_value = value_of_visible(seg)
                if old_value is None or old_value != c.written:
                    continue  # a scaled percent or a rounded result: not recomputed
                pieces: list[str] = []
                last_end = 0
                hit = False
                found = [decimal_fraction(m.group(0).replace(",", "")) for m in _NUM_RE.finditer(seg)]
                if any(found.count(v) > 1 for v in mapping if v not in st.question_numbers):
                    # "$90 + $90" where one 90 changed: which one uses it, only the
                    # formalization's links could tell; never both by their equal value
                    raise AmbiguousChange(seg)
                if any(v in found for v in mapping if v in st.question_numbers):
                    # "60+12+5" after the tip 12 became 12.60, where a meal costs $12: the 12 may
                    # be the problem's or the changed result, only the links could tell (train 2354)
                    raise AmbiguousChange(seg)
                for num in _NUM_RE.finditer(seg):
                    v = decimal_fraction(num.group(0).replace(",", ""))
                    if v in mapping and v not in st.question_numbers:
                        pieces.append(seg[last_end : num.start()] + format_result(mapping[v], num.group(0)))
                        last_end = num.end()
                        hit = True
                if not hit:
                    continue
                new_seg = "".join(pieces) + seg[last_end:]
                new_value = value_of_visible(new_seg)
                if new_value is None:
                    continue
                r_start, r_end, r_text = result_number_span(text, c)
                new_result = format_result(new_value, r_text)
                text = (text[: c.expr_start] + new_seg + text[c.expr_end : r_start] + new_result
                        + text[r_end:])
                if new_value != c.written:
                    if mapping.get(c.written, new_value) != new_value:
                        # "for 6 cards, ... 36/6 = 6 boxes" after the 6 cards became 9: the result's
                        # old 6 is the carried 6 too, so which new value a 6 of the words is (9 or
                        # 36/9 = 4), no words here tell (train 32 of the held-out reading)
                        raise AmbiguousChange(text)
                    mapping[c.written] = new_value
                    if c.written in st.question_numbers:
                        text = restate_claim(text, text.find(new_seg), c.written, new_value)
            if _restates_given(text, carried, st.question_numbers):
                raise AmbiguousChange(text)
            text = _replace_outside(text, mapping, st.question_numbers, _operands(text))
        if text != step.text:
            step.text = text
            changed.append(step.id)
    return changed


def _restates_given(text: str, mapping: dict[Fraction, Fraction], given: set[Fraction]) -> bool:
    """Does a later step's text, outside its computations, write a value an earlier step changed
    that the problem states too ("the tip is $12.00" where a meal costs $12 and the tip became
    12.60)? Which of the two it means, no words here tell: the change is not carried (a stale or a
    wrong restatement would be a second, unrecorded error). ``mapping``: the changes carried into
    the step, not its own new results ("he gets 5 equal parts of 25 / 5 = 5 cm": the 5 parts)."""
    spans = [(c.expr_start, c.result_end) for c in find_inline_computations(text)]
    for m in _NUM_RE.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        v = decimal_fraction(m.group(0).replace(",", ""))
        if v in mapping and v in given and mapping[v] != v:
            return True
    return False


def _operands(text: str) -> set[Fraction]:
    """The numbers a text's computations take as operands."""
    return {decimal_fraction(m.group(0).replace(",", "")) for c in find_inline_computations(text)
            for m in _NUM_RE.finditer(text[c.expr_start:c.expr_end])}


def _replace_outside(text: str, mapping: dict[Fraction, Fraction], given: set[Fraction],
                     operands: set[Fraction] | frozenset[Fraction] = frozenset()) -> str:
    """Numbers outside the step's computations that restate a changed value
    ("the pyramid is 252 tall") are changed too, unless the problem states them. A changed
    value that the step's computation also takes, unchanged, as an operand ``operands`` ("for 6
    cards, ... 36/6 = 6 boxes" where the 6 boxes changed): which of the two the words mean,
    no words tell: AmbiguousChange (never a second, unrecorded error)."""
    comps = find_inline_computations(text)
    spans = [(c.expr_start, c.result_end) for c in comps]
    own = {c.written for c in comps}
    out: list[str] = []
    last = 0
    for m in _NUM_RE.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        if decimal_fraction(m.group(0).replace(",", "")) in own:
            continue  # "The vaccines are 40% of his bill because 100 - 60 = 40": it states its own result (692)
        v = decimal_fraction(m.group(0).replace(",", ""))
        if v in mapping and v not in given:
            if v in operands and mapping[v] != v:
                raise AmbiguousChange(text)
            out.append(text[last : m.start()] + format_result(mapping[v], m.group(0)))
            last = m.end()
    return "".join(out) + text[last:] if out else text


def restate_line(text: str, lo: int, hi: int, mapping: dict[Fraction, Fraction], given: set[Fraction]) -> str:
    """The edited step's words outside its computation (``text[lo:hi]``) that restate the old
    result take the new one, so no "because" clause keeps a stale value."""
    # (the edited computation's numbers: its operands, which a wrong result keeps)
    operands = {decimal_fraction(m.group(0).replace(",", "")) for m in _NUM_RE.finditer(text[lo:hi])}
    out = (_replace_outside(text[:lo], mapping, given, operands) + text[lo:hi]
           + _replace_outside(text[hi:], mapping, given, operands))
    for old, new in mapping.items():
        if old in given:
            out = restate_claim(out, lo, old, new)
    return out


_BECAUSE = re.compile(r"\b(?:because|since)\b", re.IGNORECASE)


def restate_claim(text: str, comp_start: int, old: Fraction, new: Fraction) -> str:
    """A line that claims its result and then gives the computation ("It will take 4 years
    because 18/2=9") states the new result in its claim, even where the problem states the
    old value too (only the claim before "because"/"since", its last number of that value)."""
    if comp_start < 0:
        return text
    found = list(_BECAUSE.finditer(text[:comp_start]))
    if not found:
        return text
    m = found[-1]
    claim = text[:m.start()]
    hits = [n for n in _NUM_RE.finditer(claim) if decimal_fraction(n.group(0).replace(",", "")) == old]
    if not hits:
        return text
    n = hits[-1]
    return text[:n.start()] + format_result(new, n.group(0)) + text[n.end():]


def still_consistent(st: ChainState, snap: tuple[list[ChainStep], dict[int, str], set[int], set[int], int],
                      changed: list[int], error_id: int) -> bool:
    """Every recomputed step still reads as right arithmetic (no value that cannot be
    written, no negative count), and the error's own step keeps its computation
    unless the error is the wrong result itself."""
    texts = snap[1]
    # a time of day stays one ("5-3 = 2:00 pm" never becomes "1.5:00 pm", 1002)
    if any(_BROKEN_CLOCK.search(s.text) and not _BROKEN_CLOCK.search(texts.get(s.id, "")) for s in st.steps):
        return False
    # the final line states what the chain's last computation gives, if it did before: a
    # value two quantities share ("A and B have 50 votes", "C got 100 - 50 = 50") is never
    # carried into the answer by its value alone (736)
    _, written, final = _last_and_final([(s.id, texts[s.id], s.final) for s in snap[0]])
    if written is not None and written == final:
        last, now_written, now_final = _last_and_final([(s.id, s.text, s.final) for s in st.steps])
        ids = [s.id for s in st.steps]
        # (an error in the last computation itself reads as no computation: nothing to compare)
        at_end = error_id in ids and (last is None or ids.index(error_id) >= ids.index(last))
        if not at_end and now_written != now_final:
            return False
    for sid in changed:
        before = texts.get(sid)
        after = st.steps[st.index(sid)].text
        if before is None:
            continue
        if len(step_computations(after)) != len(step_computations(before)):
            return False
        if re.search(r"(?<![\w.])[-−]\s*\$?\d", after) and not re.search(r"(?<![\w.])[-−]\s*\$?\d", before):
            return False
    return True


_BROKEN_CLOCK = re.compile(r"(?<![\d.])(?:\d+\.\d+|-\d+|\d{3,}|2[5-9]|[3-9]\d):\d\d\b")


def _last_and_final(steps: list[tuple[int, str, bool]]) -> tuple[int | None, Fraction | None, Fraction | None]:
    """(the step of the chain's last computation, its written result, the final line's number)."""
    final: Fraction | None = None
    if steps and steps[-1][2]:
        m = list(_FINAL_NUMBER.finditer(steps[-1][1]))
        if m:
            try:
                final = Fraction(m[-1].group(1).replace(",", ""))
            except (ValueError, ZeroDivisionError):
                final = None
            if final is not None and m[-1].group(0).lstrip()[:1] in "-−":
                final = -final
    for sid, text, is_final in reversed(steps):
        comps = [] if is_final else step_computations(text)
        if comps:
            return sid, comps[-1].written, final
    return None, None, final


_TIGHT_FRACTION = re.compile(r"(?<![\d.)/])(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)(?![\d.(/])")


def read_value(expr_text: str) -> Fraction | None:
    """The value a reader gives a written computation: a fraction written tight (``2/3``) is
    one number, whatever stands before it."""
    return value_of_visible(_TIGHT_FRACTION.sub(r"(\1/\2)", expr_text))


def value_of_visible(expr_text: str) -> Fraction | None:
    try:
        return evaluate(parse_expression(normalize_visible(expr_text).replace("%", "")))
    except ExpressionError:
        return None
