"""The six error types of SMART, one injector each (see :mod:`.inject` for what each
does): every injector edits a :class:`~.inject_chain.ChainState` in place and returns
the :class:`~.inject_chain.EditRecord` a reviewer checks, or raises
:class:`~.inject_chain.InjectionError` when the type cannot apply to the chain.
"""

from __future__ import annotations

from collections import Counter

import math
import re
from collections.abc import Callable
from fractions import Fraction

from qcstation.core.construct.make.rules import InlineComputation
from qcstation.core.construct.make.inject_chain import (
    AmbiguousChange,
    ChainState,
    ChainStep,
    EditRecord,
    InjectionError,
    brace,
    decimal_places,
    final_value,
    format_as_written,
    format_like,
    format_result,
    propagate,
    read_value,
    restate_line,
    restore,
    result_number_span,
    snapshot,
    step_computations,
    step_results,
    step_uses,
    still_consistent,
    value_of_visible,
)
from qcstation.core.reading.answers import decimal_fraction


def _other_operator_values(seg: str) -> set[Fraction]:
    """Values the computation would have with one operator swapped (to keep an
    arithmetic error from reading as an operator error)."""
    out: set[Fraction] = set()
    for i in _binary_operators(seg):
        for op in {"+", "-", "*", "/"} - {seg[i]}:
            v = value_of_visible(seg[:i] + op + seg[i + 1 :])
            if v is not None:
                out.add(v)
    return out

# --------------------------------------------------------------------------- injectors


def need_final(st: ChainState) -> Fraction:
    gold = final_value(st)
    if gold is None:
        raise InjectionError("the chain of thought states no final number, so a changed value "
                             "cannot be shown to reach the answer")
    return gold


def _carried(st: ChainState, propagated: list[int], what: str) -> str:
    """How a changed value reaches the answer, as the record tells it: through later steps, or
    only through the answer line ("The answer is 62." right after the changed step: no later
    step uses it, 758's hallucinated fact and 143's omitted last step were told otherwise)."""
    finals = {s.id for s in st.steps if s.final}
    if any(i not in finals for i in propagated):
        return f"the later steps use {what}"
    return f"the answer line states {what}"


def _arithmetic_inaccuracy(st: ChainState) -> EditRecord:
    candidates = [(s, c) for s in st.free() for c in step_computations(s.text)]
    if not candidates:
        raise InjectionError("no computation with a written result to falsify")
    st.rng.shuffle(candidates)
    gold = need_final(st)
    for step, comp in candidates:
        start, end, number_text = result_number_span(step.text, comp)
        written = decimal_fraction(number_text.replace(",", ""))
        unit = Fraction(1, 10 ** decimal_places(number_text))
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
        snap = snapshot(st)
        new_number = format_like(wrong, number_text)
        old = step.text
        step.text = step.text[:start] + new_number + step.text[end:]
        try:
            # the step's own words agree with its new result ("They each get 23 chips because ...")
            step.text = restate_line(step.text, comp.expr_start, start + len(new_number), {written: wrong},
                                     st.question_numbers)
            propagated = propagate(st, step.id, written, wrong)
        except AmbiguousChange:
            restore(st, snap)
            continue
        if (final_value(st) == gold or (gold >= 0 and (final_value(st) or 0) < 0)
                or not still_consistent(st, snap, propagated, step.id)):
            restore(st, snap)  # the wrong value does not reach the answer: try another step
            continue
        st.touched.add(step.id)
        expr = seg.strip()
        return EditRecord("arithmetic_inaccuracy", step.id, old, step.text,
                       f"in step {{step}} the result of {brace(expr)} was changed from {number_text} "
                       f"to {new_number}; {_carried(st, propagated, 'the wrong value')}",
                       propagated=propagated)
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


def _operator_misuse(st: ChainState) -> EditRecord:
    candidates: list[tuple[ChainStep, InlineComputation, int, str, str, Fraction]] = []
    for s in st.free():
        for c in step_computations(s.text):
            seg = s.text[c.expr_start : c.expr_end]
            value = value_of_visible(seg)
            if value is None or value != c.written:
                continue
            for i in _binary_operators(seg):
                op = seg[i]
                swapped = _SWAP[op]
                new_seg = seg[:i] + swapped + seg[i + 1 :]
                new_value = value_of_visible(new_seg)
                if new_value is None or new_value == value or new_value < 0:
                    continue
                if read_value(new_seg) != new_value:
                    continue  # "60 / 2/3" reads as 60 divided by two thirds, not (60/2)/3
                candidates.append((s, c, c.expr_start + i, op, swapped, new_value))
    if not candidates:
        raise InjectionError("no operator whose swap changes a computation")
    st.rng.shuffle(candidates)
    # a swap whose result has a short decimal first: "2 / 130 pounds = 0.02" is rounded, a second
    # change a reader would have to find besides the operator (720's "25 / 7 = 3.57")
    candidates.sort(key=lambda c: (c[5] * 10_000).denominator != 1)
    gold = need_final(st)
    for step, comp, pos, op, swapped, new_value in candidates:
        snap = snapshot(st)
        old = step.text
        text = old[:pos] + swapped + old[pos + 1 :]
        r_start, r_end, r_text = result_number_span(text, comp)
        new_result = format_result(new_value, r_text)
        step.text = text[:r_start] + new_result + text[r_end:]
        try:
            step.text = restate_line(step.text, comp.expr_start, r_start + len(new_result),
                                     {comp.written: new_value}, st.question_numbers)
            propagated = propagate(st, step.id, comp.written, new_value)
        except AmbiguousChange:
            restore(st, snap)
            continue
        if (final_value(st) == gold or (gold >= 0 and (final_value(st) or 0) < 0)
                or not still_consistent(st, snap, [*propagated, step.id], step.id)):
            restore(st, snap)
            continue
        st.touched.add(step.id)
        expr_old = old[comp.expr_start : comp.expr_end].strip()
        expr_new = text[comp.expr_start : comp.expr_end].strip()
        rounded = "" if (new_value * 10_000).denominator == 1 else ", rounded"
        return EditRecord("operator_misuse", step.id, old, step.text,
                       f"in step {{step}} the operator {op!r} was replaced by {swapped!r}: {brace(expr_old)} "
                       f"became {brace(expr_new)} = {new_result} (correct arithmetic for the wrong operator{rounded}); "
                       f"{_carried(st, propagated, 'that value')}", propagated=propagated)
    raise InjectionError("no operator swap whose result reaches the final answer")




def _omitted_step(st: ChainState) -> EditRecord:
    non_final = [s for s in st.steps if not s.final]
    if len(non_final) < 2:
        raise InjectionError("the CoT has fewer than two steps before the answer; nothing can be omitted")
    free = st.free(allow_pinned=False)
    if not free:
        raise InjectionError("no step left that can be removed")
    later_users: list[ChainStep] = []
    computing_users: list[ChainStep] = []
    for s in free:
        idx = st.index(s.id)
        results = step_results(s)
        users = [t for t in st.steps[idx + 1 :] if any(step_uses(t, r) for r in results)] if results else []
        if users:
            later_users.append(s)
        if any(not t.final for t in users):
            computing_users.append(s)
    # a step whose result a later computation uses: its omission shows where that value comes
    # from is missing; dropping the last computation leaves only "The answer is 48." after
    # steps that never reach it (154, 177, 1150 in the reading of seed 97/103)
    pool = computing_users or later_users or [s for s in free if step_computations(s.text)] or free
    step = pool[st.rng.randrange(len(pool))]
    idx = st.index(step.id)
    successor = st.steps[idx + 1]
    del st.steps[idx]
    st.touched.add(step.id)
    st.pinned.add(successor.id)
    # only "The answer is 140." after it: no step uses the result, the answer line states it
    used = (" (a later step uses its result)" if step in computing_users
            else " (the answer line states its result)" if step in later_users else "")
    # "the step before step 1 was removed" read as a step that never existed (125, 426 and
    # 1311 in the reading of rng 20261206): name the removed step by its place in the correct
    # solution, then where it stood in the chain shown
    which = "a step" if step.inserted else f"step {step.id + 1} of the correct solution"
    return EditRecord("omitted_step", successor.id, step.text, "",
                   f"{which} was removed{used}, just before what is now step {{step}}: "
                   f"{brace(step.text)!r}", origin_id=step.id)


# a made-up fact told as a person would tell it, never naming itself ("the problem also
# states") nor always the same way: a model must notice the number is not in the problem, not
# spot a phrase. {u} is what the step counts, as it writes it after its result ("minutes",
# "votes"); money has its own wording, and a step that names nothing gets none.
_HALLUCINATIONS: tuple[tuple[str, str], ...] = (
    ("+", "Adding the other {h} gives {r} + {h} = {v}."),
    ("+", "With {h} more on top, that makes {r} + {h} = {v}."),
    ("+", "Counting the {h} from before as well, {r} + {h} = {v}."),
    ("-", "Setting {h} aside, {r} - {h} = {v}."),
    ("-", "Without the {h} left over, that is {r} - {h} = {v}."),
    ("*", "This happens {h} times, so {r} * {h} = {v}."),
    ("*", "Over the {h} rounds, that is {r} * {h} = {v}."),
)
_HALLUCINATIONS_UNIT: tuple[tuple[str, str], ...] = (
    ("+", "There are also {h} more {u}, so {r} + {h} = {v}."),
    ("+", "Another {h} {u} have to be added, which makes {r} + {h} = {v}."),
    ("+", "Including the extra {h} {u}, the total is {r} + {h} = {v}."),
    ("-", "{h} of these {u} do not count, so {r} - {h} = {v}."),
    ("-", "Leaving out {h} {u}, that is {r} - {h} = {v}."),
    ("-", "Less the {h} {u} already used, {r} - {h} = {v}."),
    ("*", "That is needed {h} times over, so {r} * {h} = {v}."),
)
_HALLUCINATIONS_MONEY: tuple[tuple[str, str], ...] = (
    ("+", "There is also {a} ${h} fee, so {r} + {h} = {v}."),
    ("+", "Adding ${h} for tax brings it to {r} + {h} = {v}."),
    ("-", "With {a} ${h} discount, that is {r} - {h} = {v}."),
    ("-", "After ${h} is paid back, {r} - {h} = {v}."),
    ("*", "That is paid {h} times, so {r} * {h} = {v}."),
)
# words after a result that say nothing of what it counts
_NOT_A_UNIT = frozenset("is are was were so and or but for to in of on at by from because per each a an the "
                        "that this which than as if then total in all".split())


def _what_it_counts(text: str, start: int, end: int) -> str | None:
    """"$" for money, the noun after a result ("170 minutes" -> "minutes"), or None."""
    if text[max(0, start - 1):start] == "$" or re.match(r"\s*(?:dollars?|cents?)\b", text[end:], re.I):
        return "$"
    m = re.match(r"\s*([A-Za-z][a-z]+)\b", text[end:])
    if m is None or m.group(1).lower() in _NOT_A_UNIT or not m.group(1).endswith("s"):
        return None
    return m.group(1)


MAX_TIMES = 12  # "this happens h times" only with a small h


def _hallucinated_content(st: ChainState) -> EditRecord:
    candidates = [(s, c) for s in st.free() for c in step_computations(s.text)]
    if not candidates:
        raise InjectionError("no computation to attach a fabricated fact to")
    st.rng.shuffle(candidates)
    gold = need_final(st)
    present = st.all_numbers()
    for step, comp in candidates:
        r_start, r_end, r_text = result_number_span(step.text, comp)
        r = decimal_fraction(r_text.replace(",", ""))
        if r in st.question_numbers:
            continue  # later uses of r could be the given, not this result
        unit = 10 ** max(0, math.floor(math.log10(abs(r))) - 1) if r else 1
        fresh = [k * unit for k in range(2, 100) if Fraction(k * unit) not in present]
        if not fresh:
            continue
        h = fresh[st.rng.randrange(min(8, len(fresh)))]
        counts = _what_it_counts(step.text, r_start, r_end)
        pool = _HALLUCINATIONS_MONEY if counts == "$" else _HALLUCINATIONS_UNIT if counts else _HALLUCINATIONS
        templates = [t for t in pool if not (t[0] == "-" and r <= h) and not (t[0] == "*" and h > MAX_TIMES)]
        st.rng.shuffle(templates)
        for op, template in templates[:3]:  # another wording when one cannot reach the answer
            record = _insert_fact(st, step, r, r_text, h, op, template, counts, gold)
            if record is not None:
                return record
    raise InjectionError("no computation whose result reaches the final answer to attach a fabricated fact to")


def _insert_fact(st: ChainState, step: ChainStep, r: Fraction, r_text: str, h: int, op: str, template: str,
                 counts: str | None, gold: Fraction) -> EditRecord | None:
    """Insert the made-up fact after ``step`` and carry its value on; None (the chain as it
    was) when the chain would not read as a person's mistake that changes the answer."""
    value = r + h if op == "+" else r - h if op == "-" else r * h
    h_text = format_like(Fraction(h), r_text.split(".")[0])
    article = "an" if re.match(r"8|1[18](?:\D|$)|1[18],\d{3}(?!,)", h_text) else "a"  # "an $80 fee"
    sentence = template.format(h=h_text, r=r_text, v=format_like(value, r_text), u=counts or "", a=article)
    sentence = sentence[:1].upper() + sentence[1:]
    snap = snapshot(st)
    new = ChainStep(st.new_id(), sentence, inserted=True)
    st.steps.insert(st.index(step.id) + 1, new)
    try:
        propagated = propagate(st, new.id, r, value)
    except AmbiguousChange:
        restore(st, snap)
        return None
    if (final_value(st) == gold or (gold >= 0 and (final_value(st) or 0) < 0)
            or not still_consistent(st, snap, propagated, new.id)):
        restore(st, snap)
        return None
    st.touched.add(new.id)
    st.pinned.add(step.id)
    return EditRecord("hallucinated_content", new.id, "", sentence,
                      f"step {{step}} was inserted after step {{related}}: a fact that is not in the problem, "
                      f"with the made-up number {h_text}; {_carried(st, propagated, 'its result')}", step.id,
                      propagated=propagated)


# a restated computation in plain words, never announcing itself as a repeat; right after the
# line it restates it may say so ("That is, ..."), further on it stands alone ("In other words"
# after a line about something else would not read as anyone's writing)
_REDUNDANT_NEXT = ("So {e} = {r}.", "That is, {e} = {r}.", "We have {e} = {r}.", "This means {e} = {r}.",
                   "Note that {e} = {r}.", "In other words, {e} = {r}.", "Here {e} = {r}.")
_REDUNDANT_LATER = ("Note that {e} = {r}.", "We have {e} = {r}.", "We know that {e} = {r}.",
                    "Keep in mind that {e} = {r}.", "Also, {e} = {r}.")


def _redundancy(st: ChainState) -> EditRecord:
    candidates = [(s, c) for s in st.free() for c in step_computations(s.text)]
    comp = None
    if candidates:
        step, comp = candidates[st.rng.randrange(len(candidates))]
    else:
        pool = st.free()
        if not pool:
            raise InjectionError("no step to repeat")
        step = pool[st.rng.randrange(len(pool))]
    idx = st.index(step.id)
    last_allowed = len(st.steps) - 1  # insert before the final step
    if st.steps[-1].final:
        positions = list(range(idx + 1, last_allowed + 1))
    else:
        positions = list(range(idx + 1, len(st.steps) + 1))
    pos = positions[st.rng.randrange(len(positions))]
    if comp is not None:
        expr = step.text[comp.expr_start : comp.expr_end].strip()
        phrases = _REDUNDANT_NEXT if pos == idx + 1 else _REDUNDANT_LATER
        sentence = phrases[st.rng.randrange(len(phrases))].format(e=expr, r=comp.result_text.strip())
        what = f"restates the computation {expr} = {comp.result_text.strip()}"
    else:
        sentence = step.text
        what = "repeats it word for word"
    new = ChainStep(st.new_id(), sentence, inserted=True)
    st.steps.insert(pos, new)
    st.touched.add(new.id)
    st.pinned.add(step.id)
    return EditRecord("redundancy", new.id, "", sentence,
                   f"step {{step}} is unnecessary: it {brace(what)} from step {{related}}", step.id)


#: words that carry a value a step may use as often as an earlier result (a dime's 10)
_IMPLIED: dict[str, tuple[int, ...]] = {
    "dime": (10,), "nickel": (5,), "quarter": (25, 4), "penny": (1,), "cent": (100,),
    "dozen": (12,), "hour": (60, 24), "minute": (60,), "second": (60,), "week": (7, 5),
    "day": (24, 7, 30, 365), "month": (12, 30), "year": (12, 52, 365), "percent": (100,),
    "%": (100,), "feet": (12, 3), "foot": (12, 3), "yard": (3, 36), "inch": (12,),
    "pound": (16,), "gallon": (4,), "quart": (4,), "century": (100,), "decade": (10,),
}
_WORD = re.compile(r"[a-z]+|%")


def _implied_by(text: str) -> set[Fraction]:
    """Values the words of ``text`` carry ("dimes": 10, "hours": 60 or 24)."""
    out: set[Fraction] = set()
    for w in _WORD.findall(text.lower()):
        out.update(Fraction(v) for v in _IMPLIED.get(w.rstrip("s") if w != "%" else w, ()))
    return out


def _logical_disorder(st: ChainState) -> EditRecord:
    movable = {s.id for s in st.free(allow_pinned=False)}
    pairs: list[tuple[ChainStep, ChainStep, Fraction]] = []
    for j, later in enumerate(st.steps):
        if later.id not in movable:
            continue
        for earlier in st.steps[:j]:
            if earlier.final or earlier.inserted:
                continue
            for r in step_results(earlier):
                if step_uses(later, r):
                    pairs.append((earlier, later, r))
                    break
    if not pairs:
        raise InjectionError("no step uses the result of an earlier step; nothing to reorder")
    # a dependency only where the number can mean nothing else: not given in the problem,
    # not a value the words may carry (a dime's 10, 60 minutes, 12 in a dozen...), the result
    # of one step only, and not computed again by the later step itself. A step moved
    # before one it does not depend on would leave a correct solution.
    made = Counter(r for s in st.steps for r in step_results(s))
    pool = [p for p in pairs if p[2] not in st.question_numbers and p[2] not in (0, 1, 2)
            and made[p[2]] == 1 and p[2] not in step_results(p[1])
            and p[2] not in _implied_by(p[1].text)]
    if not pool:
        raise InjectionError("no step uses a result of an earlier step that no other number "
                             "could be; nothing to reorder")
    earlier, later, r = pool[st.rng.randrange(len(pool))]
    i, j = st.index(earlier.id), st.index(later.id)
    st.steps.pop(j)
    st.steps.insert(i, later)
    st.touched.add(later.id)
    st.pinned.add(earlier.id)
    return EditRecord("logical_disorder", later.id, later.text, later.text,
                   f"step {{step}} (step {later.id + 1} of the correct solution) was moved before step {{related}}, "
                   f"but it uses {brace(format_as_written(later.text, r))}, "
                   f"which step {{related}} derives", earlier.id)


INJECTORS: dict[str, Callable[[ChainState], EditRecord]] = {
    "arithmetic_inaccuracy": _arithmetic_inaccuracy,
    "omitted_step": _omitted_step,
    "hallucinated_content": _hallucinated_content,
    "logical_disorder": _logical_disorder,
    "redundancy": _redundancy,
    "operator_misuse": _operator_misuse,
}
