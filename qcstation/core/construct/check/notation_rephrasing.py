"""The check of a model's rephrasing of a notation question (SMART's Arithmetic task may show a
model-rephrased wording): every given number and variable kept, no story words, and the
rephrased text read back by :func:`notation.parse_notation_text` to the same value.
:mod:`notation` renders and reads the question; this module only judges a rewording of it.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.construct.make.rules import ExpressionError
from qcstation.core.construct.make.notation import (NOTATION_WORDS, NotationError, NotationQuestion, format_number,
                                               parse_notation_text)

__all__ = ["check_rephrasing"]


_ALLOWED_WORDS = NOTATION_WORDS | frozenset(
    """plus minus times multiplied divided subtract subtracted add added multiply divide product
    sum difference quotient over into results unknown is: are: value: following:""".split()
)
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
    ninety hundred thousand million billion half halves twice thrice double triple quarter
    quarters third thirds dozen percent""".split()
)
_NUMBER_TOKEN_RE = re.compile(
    r"(?<![A-Za-z_0-9.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?(?![A-Za-z_0-9])"
    r"|(?<![A-Za-z_0-9.])[-−]?\.\d+"
)


def _numbers_in(text: str) -> list[tuple[str, Fraction]]:
    out: list[tuple[str, Fraction]] = []
    for m in _NUMBER_TOKEN_RE.finditer(text):
        raw = m.group(0)
        clean = raw.replace("−", "-").replace(",", "").replace(" ", "")
        try:
            if "/" in clean:
                num, den = clean.split("/")
                value = Fraction(num) / Fraction(den)
            else:
                value = Fraction(clean)
        except (ValueError, ZeroDivisionError):
            continue
        out.append((raw, value))
    return out


def _names_of(q: NotationQuestion) -> set[str]:
    names = set(q.variables) | {q.target}
    names |= {n for n, _ in q.definitions}
    try:
        parsed = parse_notation_text(q.text)
        names |= set(parsed.variables) | {n for n, _ in parsed.definitions}
    except NotationError:
        names |= set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*=", q.text))
    return names


def check_rephrasing(original: NotationQuestion, rephrased: str) -> list[str]:
    """Problems with a model's rephrasing of a notation question (empty list = OK):
    every given number still present, no new numbers or number words, no words
    outside a small notation vocabulary (no story), the same target asked for, and,
    when the rephrasing keeps the rendered form, the same value."""
    problems: list[str] = []
    text = (rephrased or "").strip()
    if not text:
        return ["the rephrased question is empty"]
    found = _numbers_in(text)
    found_values = {abs(v) for _, v in found}
    given_values = {abs(v) for v in original.variables.values()}
    for name, value in original.variables.items():
        if abs(value) not in found_values:
            problems.append(f"the given number {format_number(value)} ({name}) is missing")
    new = [raw for raw, v in found if abs(v) not in given_values]
    if new:
        problems.append("new number(s) not in the original question: " + ", ".join(dict.fromkeys(new)))
    names = _names_of(original)
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_']*", text)
    number_words = [w for w in words if w.lower() in _NUMBER_WORDS]
    if number_words:
        problems.append("number word(s) (write numbers as digits): " + ", ".join(dict.fromkeys(number_words)))
    story = [
        w for w in words
        if w not in names and w.lower() not in _ALLOWED_WORDS and w.lower() not in _NUMBER_WORDS
        and not re.fullmatch(r"[A-Za-z]\d*", w)
    ]
    if story:
        shown = list(dict.fromkeys(story))
        problems.append(
            "word(s) outside the notation vocabulary (no story allowed): " + ", ".join(shown[:10])
            + (" ..." if len(shown) > 10 else "")
        )
    target = original.target
    if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(target)}(?![A-Za-z0-9_])", text):
        problems.append(f"the rephrasing does not mention the target {target!r}")
    else:
        sentences = [s for s in re.split(r"(?<=[.?!])\s+(?=[A-Z])", text) if s.strip()]
        last = sentences[-1] if sentences else text
        asks = "?" in last or re.search(r"\b(find|compute|calculate|evaluate|determine|give|state|what)\b", last, re.I)
        if not (asks and re.search(rf"(?<![A-Za-z0-9_]){re.escape(target)}(?![A-Za-z0-9_])", last)):
            problems.append(f"the last sentence does not ask for {target!r}")
    # a rephrasing that keeps the rendered form can be checked exactly
    try:
        reparsed = parse_notation_text(text)
    except NotationError:
        reparsed = None
    if reparsed is not None:
        try:
            base = original if original.definitions else parse_notation_text(original.text)
            if reparsed.value != base.value:
                problems.append(
                    f"the rephrased question evaluates to {format_number(reparsed.value)}, "
                    f"not {format_number(base.value)}"
                )
        except (NotationError, ExpressionError, KeyError):
            pass
    return problems
