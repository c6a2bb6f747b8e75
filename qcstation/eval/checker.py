"""Final-answer checker: take the answer out of a model's response and compare it with the gold.

Two layers. Plain numbers are decided in-process with the project's exact rationals
(:mod:`qcstation.core.verify.answers`), thousands per second. Anything else (LaTeX
expressions such as ``\\frac{\\sqrt{3}}{2}``, intervals, symbolic golds) goes to
Hugging Face's ``math-verify`` in isolated worker processes
(:class:`qcstation.core.verify.isolation.IsolatedPool`: memory limit, CPU limit, wall-clock
kill), because math-verify times itself out with ``signal.alarm``, which only works in
a main thread. A worker that hangs or dies gives ``unparseable`` with the reason.

Verdicts: ``correct`` | ``wrong`` | ``unparseable`` (no usable answer in the response,
or the checker could not read or compare it).

Extraction rules (:func:`extract_answer`), in this order; only the last
:data:`MAX_SCAN_CHARS` characters of a response are searched:

1. ``\\boxed{...}`` (or ``\\fbox{...}``): the **last** non-empty box wins, whatever came
   before it (a model that boxes several values is judged on its last one). Nested
   braces are balanced; ``\\boxed{\\text{18 apples}}`` gives ``18 apples``.
2. An answer marker, the last one in the text: ``#### 18`` (GSM8K; a Markdown heading
   such as ``#### Step 2`` is not a marker), ``The answer is 18.``, ``Final answer:
   $18``, ``**Answer:** 18``. The answer is the text after the marker up to the end of
   its sentence (``The answer is 18. Next, ...`` gives ``18``); when that sentence has a
   number, the first number is taken (``The answer is 18 because 6 x 3 = 18`` gives
   ``18``); a LaTeX math span (``$...$``, ``\\(...\\)``) right after the marker is taken
   whole.
3. Markdown bold holding one number: the last ``**73**`` (``**Step 2**`` is a heading,
   not an answer).
4. Otherwise the last number in the response (source ``last-number``); when that number
   sits in a LaTeX math span (``$3 \\times 6 = 18$``, ``\\(x = 7\\)``), the span is the
   answer, its part after the last ``=`` when that is a number (source ``last-math``).

A response with no number and no box or marker is ``unparseable``.

Comparison rules for numbers (:func:`check_answer`):

* Exact rationals: ``0.5`` = ``1/2`` = ``\\frac{1}{2}`` = ``\\dfrac12``; ``18.00`` = 18.
* Thousands separators ``1,000``, ``1 000`` (thin or plain space, in an answer after a
  box, marker or bold only), ``1{,}000`` are read as 1000.
* Units and currency are ignored: ``18 dollars``, ``$18.00``, ``\\$18``, ``18 meters``,
  ``18 \\text{ cm}^2``.
* Percentages: a response ``25%`` matches a gold of ``25`` **and** a gold of ``0.25``
  (the sign says which scale the number is on); a plain response ``0.25`` matches a gold
  of 25 only when the gold itself is written ``25%``.
* A decimal gold written with d places accepts half a unit in its last place
  (``0.33`` accepts ``1/3``), as everywhere in the project.
* A response rounded to at least 2 decimal places matches a gold whose decimal
  expansion does not end (``0.33`` or ``0.333`` match ``1/3``; ``0.3`` does not; ``0.13``
  does not match ``1/8``, which can be written exactly). Method ``exact-rounded``.
* Number words: an answer given as English words (``eighteen``, ``one hundred and
  five``) right after a marker or in a box is read as that number.

Limits: responses are searched in their last :data:`MAX_SCAN_CHARS` characters; an
answer candidate longer than :data:`MAX_ANSWER_CHARS` characters is cut; a number with
more than :data:`MAX_DIGITS` digits is not read (Python's int/str limit is never
reached); every regular expression is linear on its input.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from qcstation.core.verify.answers import ExactAnswer, fraction_to_str, matches, parse_number
from qcstation.core.verify.isolation import IsolatedPool, JobResult

__all__ = [
    "CHECKER_VERSION",
    "MAX_SCAN_CHARS",
    "Extraction",
    "CheckResult",
    "CheckLimits",
    "AnswerChecker",
    "extract_answer",
    "check_answer",
    "parse_gold",
]

#: bump when a verdict for the same (response, gold) can change
CHECKER_VERSION = "1"

MAX_SCAN_CHARS = 20_000
MAX_ANSWER_CHARS = 300
MAX_DIGITS = 60
#: text handed to math-verify (answer candidate or, for a symbolic gold, the response tail)
MAX_SYMBOLIC_CHARS = 2_000

VERDICTS = ("correct", "wrong", "unparseable")


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Extraction:
    """What :func:`extract_answer` took from a response.

    ``text`` is the answer as written (``None`` when nothing was found), ``source`` how
    it was found (``boxed`` | ``marker`` | ``bold`` | ``last-math`` | ``last-number``),
    ``value`` the exact number when ``text`` is one plain number, ``reason`` why nothing
    (or nothing numeric) was found."""

    text: str | None
    source: str | None
    value: ExactAnswer | None = None
    reason: str = ""

    @property
    def found(self) -> bool:
        return self.text is not None


@dataclass(frozen=True)
class CheckResult:
    verdict: str                 # correct | wrong | unparseable
    extracted: str | None        # the answer text taken from the response
    value: str | None            # exact rational "p/q" / "p" (or math-verify's reading)
    method: str                  # exact | exact-rounded | math-verify | none | gold
    detail: str
    source: str | None = None    # boxed | marker | bold | last-math | last-number | math-verify
    gold: str | None = None      # the gold as compared ("p/q", or the gold text)
    checker_version: str = CHECKER_VERSION

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CheckLimits:
    """Limits of the math-verify workers: math-verify's own (alarm) timeout per parse or
    comparison, the parent's wall-clock kill per item (``None``: ``3*timeout_s + 2``),
    and the worker's address-space limit."""

    timeout_s: int = 3
    memory_mb: int = 1536
    wall_s: float | None = None

    def wall_clock_s(self) -> float:
        return float(self.wall_s) if self.wall_s is not None else 3.0 * self.timeout_s + 2.0


# --------------------------------------------------------------------------- text helpers

_SEP_STRICT = r"(?:,|\{,\}|\\,|[\u00a0\u202f\u2009])"
_SEP_LOOSE = r"(?:,|\{,\}|\\,|[\u00a0\u202f\u2009 ])"
_FRAC_TOKEN = r"-?\\[dt]?frac\s*(?:\{\s*-?\d{1,60}(?:\.\d{1,60})?\s*\}\s*\{\s*-?\d{1,60}(?:\.\d{1,60})?\s*\}|\d\d)"


def _token_re(sep: str) -> re.Pattern[str]:
    number = rf"(?:\d{{1,3}}(?:{sep}\d{{3}})+(?![\d])|\d+)(?:\.\d+)?|\.\d+"
    return re.compile(
        rf"(?P<tok>{_FRAC_TOKEN}"
        rf"|(?:(?:\\?\$|€|£|¥|₹)\s?)?(?:[-+−]\s?)?(?:(?:\\?\$|€|£|¥|₹)\s?)?"
        rf"(?:\d+\s+\d+\s*/\s*\d+(?![\d/])|(?:{number})(?:\s*/\s*(?:{number}))?)"
        rf"(?:\s?(?:\\?%|percent\b))?)"
    )


#: numbers in an answer found after a box, marker or bold (plain spaces may separate thousands)
_TOKEN_LOOSE = _token_re(_SEP_LOOSE)
#: numbers anywhere in a response (for the last-number fallback)
_TOKEN_STRICT = _token_re(_SEP_STRICT)

_MARKER = re.compile(
    r"(?:\b(?:final\s+answer|answer)(?:\s*\(s\))?\s*(?:is\s*[:=]?|[:=])"
    r"|^[ \t]*####(?!#))",
    re.IGNORECASE | re.MULTILINE,
)
_BOLD = re.compile(r"\*\*([^*\n]{1,200})\*\*")
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_OPERATOR_AFTER = re.compile(r"\s*(?:[+*^×÷=<>]|-\s*\d|/|\\(?:sqrt|cdot|times|div|pi|frac|dfrac)"
                             r"|[a-zA-Z]\s*[+\-*/^=]|\^|_|[a-zA-Z]\b(?!\w))")
_TEXT_CMD = re.compile(r"\\(?:text|textbf|textit|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]{0,200})\}")
_POWER = re.compile(r"\d\s*\^|\}\s*\^")
_INSIDE_EXPR = re.compile(r"(?:\\sqrt|\^|_|\\log|\\ln)\s*[{\[]?\s*$")
#: what may stand left of "=" in an answer "x = 18" (not an equation such as "2x + 1 = 0")
_NAME = re.compile(r"[A-Za-z]{1,20}(?:_\{?\w{1,4}\}?)?|\\[a-zA-Z]{1,10}")
#: one trailing lowercase letter that is not a unit symbol (m, g, s, h, l)
_VARIABLE_SUFFIX = re.compile(r"\d\s?[a-fi-kn-rt-z]\s*$")
_PROSE = re.compile(r"[A-Za-z][A-Za-z ,.'-]{0,300}")

_WORDS_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
_WORDS_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_WORDS_RE = re.compile(
    r"(?:negative\s+|minus\s+)?(?:(?:" + "|".join(sorted({*_WORDS_UNITS, *_WORDS_SCALES},
                                                         key=len, reverse=True))
    + r")(?:[\s-]+(?:and[\s-]+)?|\b)){1,12}",
    re.IGNORECASE,
)


_ANSI = re.compile(r"\x1b(?:\[[0-?]{0,32}[ -/]{0,8}[@-~]|\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL_SPACE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _strip_terminal(text: str) -> str:
    """Terminal escape sequences removed, other control characters turned into spaces."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _CONTROL_SPACE.sub(" ", text)


def _balanced(text: str, open_at: int, limit: int = 4 * MAX_ANSWER_CHARS) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``open_at`` (``None`` if not within ``limit``)."""
    depth = 0
    end = min(len(text), open_at + limit)
    i = open_at
    while i < end:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _unwrap_text(s: str) -> str:
    for _ in range(3):
        new = _TEXT_CMD.sub(lambda m: m.group(1), s)
        if new == s:
            break
        s = new
    return s


def _clean(candidate: str) -> str:
    """An answer candidate without Markdown / LaTeX decoration around it."""
    s = candidate[:MAX_ANSWER_CHARS]
    s = _unwrap_text(s)
    s = re.sub(r",\\!\s*", ",", s)  # 11,\! 111: a LaTeX thousands separator
    s = s.replace("\\$", "$").replace("\\%", "%").replace("\\!", "").replace("\\;", " ")
    s = s.replace("\\displaystyle", "").replace("−", "-").replace("–", "-")
    s = re.sub(r"\\(?:left|right)(?=[()\[\]|.])", "", s)
    s = s.strip().strip("*_`").strip()
    if s.startswith("\\(") and s.endswith("\\)"):
        s = s[2:-2]
    elif s.startswith("\\[") and s.endswith("\\]"):
        s = s[2:-2]
    s = s.strip()
    if len(s) >= 2 and s.startswith("$") and s.endswith("$") and not s.startswith("$$"):
        inner = s[1:-1]
        if "$" not in inner:
            s = inner
    elif s.startswith("$$") and s.endswith("$$") and len(s) >= 4:
        s = s[2:-2]
    s = " ".join(s.split())
    return s.rstrip(".,;:").strip()  # "!" stays: 5! is a factorial


def _digits_ok(text: str) -> bool:
    return max((len(m) for m in re.findall(r"\d+", text)), default=0) <= MAX_DIGITS


_PLAIN_INT = re.compile(r"-?\d{1,60}")


def _exact(text: str) -> ExactAnswer | None:
    """One plain number (project rules), guarded by the digit cap."""
    if text and _PLAIN_INT.fullmatch(text):
        # the common case, decided as parse_number would (an integer), without its rules
        return ExactAnswer(Fraction(int(text)), "integer")
    if not text or len(text) > MAX_ANSWER_CHARS or not _digits_ok(text):
        return None
    if _POWER.search(text):
        return None  # "2^{3}" is an expression (parse_number would read ^2/^3 as a unit)
    if _VARIABLE_SUFFIX.search(text):
        return None  # "18x", "3i", "2e": a variable or constant, not a unit
    t = re.sub(r"(?<=\d)[\u00a0\u202f\u2009 ](?=\d{3}(?!\d))", "", text)
    try:
        return parse_number(t)
    except (ValueError, ArithmeticError):
        return None


def _words_value(text: str) -> Fraction | None:
    """An integer written in English words that fill the whole text ("eighteen", "one
    hundred and five"); "eighteen dollars" is not read (words after the number)."""
    t = text.strip().rstrip(".").strip()
    if len(t) > 120:
        return None
    m = _WORDS_RE.fullmatch(t)
    if not m or not t:
        return None
    words = re.split(r"[\s-]+", m.group(0).strip().lower())
    negative = words[0] in ("negative", "minus")
    total = current = 0
    seen = False
    for w in words[1:] if negative else words:
        if w == "and" or not w:
            continue
        if w in _WORDS_UNITS:
            current += _WORDS_UNITS[w]
            seen = True
        elif w == "hundred":
            current = (current or 1) * 100
            seen = True
        elif w in _WORDS_SCALES:
            total += (current or 1) * _WORDS_SCALES[w]
            current = 0
            seen = True
    if not seen:
        return None
    v = Fraction(total + current)
    return -v if negative else v


def _first_sentence(seg: str) -> str:
    m = _SENTENCE_END.search(seg)
    return seg[: m.start()] if m else seg


def _math_span(seg: str) -> str | None:
    """A LaTeX math span at the start of ``seg``: ``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``."""
    for opener, closer in (("$$", "$$"), ("\\(", "\\)"), ("\\[", "\\]")):
        if seg.startswith(opener):
            end = seg.find(closer, len(opener), len(opener) + 4 * MAX_ANSWER_CHARS)
            return seg[len(opener):end] if end != -1 else None
    if seg.startswith("$") and len(seg) > 1 and not seg[1].isspace():
        # a closing $ has a non-space before it and no digit after it (else it is currency)
        i = 1
        limit = min(len(seg), 4 * MAX_ANSWER_CHARS)
        while True:
            j = seg.find("$", i, limit)
            if j == -1:
                return None
            if seg[j - 1] == "\\":
                i = j + 1
                continue
            if not seg[j - 1].isspace() and not (j + 1 < len(seg) and seg[j + 1].isdigit()):
                return seg[1:j]
            i = j + 1
    return None


def _plain_token(seg: str, loose: bool = True) -> tuple[str, ExactAnswer] | None:
    """The first number in ``seg`` when it stands alone (not the start of an expression)."""
    rx = _TOKEN_LOOSE if loose else _TOKEN_STRICT
    for m in rx.finditer(seg):
        tok = m.group("tok").strip()
        if not any(ch.isdigit() for ch in tok):
            continue
        if m.start() > 0 and (seg[m.start() - 1].isalpha() or seg[m.start() - 1] in "_^{"):
            continue  # x2, a_1, 10^{3}: not a standalone number
        rest = seg[m.end():]
        if _OPERATOR_AFTER.match(rest) and not re.match(r"\s*[a-zA-Z]{2,}", rest):
            return None
        value = _exact(tok)
        if value is None:
            return None
        return tok, value
    return None


def _from_segment(seg: str) -> tuple[str | None, ExactAnswer | None]:
    """(answer text, exact value or None) from the text right after a marker."""
    seg = seg[: 4 * MAX_ANSWER_CHARS].lstrip()
    seg = seg.lstrip("*_`:= \t").lstrip()
    seg = re.sub(r"^\\(?:text|textbf|mathbf)\s*\{\s*\}\s*", "", seg)
    if seg.startswith("\\boxed") or seg.startswith("\\fbox"):
        box = _last_box(seg)
        if box is not None:
            return box, _exact(_clean(box))
    span = _math_span(seg)
    if span is not None:
        text = _clean(span)
        return (text, _exact(text)) if text else (None, None)
    sentence = _clean(_first_sentence(seg))
    if not sentence:
        return None, None
    answer, value = _read_whole(sentence)
    if value is not None:
        return answer, value
    found = _plain_token(sentence)
    if found is not None:
        return found
    return sentence, None


def _read_whole(text: str) -> tuple[str, ExactAnswer | None]:
    """``text`` as one number: the whole of it, else the side after its last ``=``
    (``x = 18``), else English number words (``eighteen``)."""
    whole = _exact(text)
    if whole is not None:
        return text, whole
    left, eq, right = text.rpartition("=")
    if eq and _NAME.fullmatch(left.strip()):
        right = _clean(right)
        value = _exact(right)
        if value is not None:
            return right, value
    words = _words_value(text)
    if words is not None:
        return text, ExactAnswer(words, "integer")
    return text, None


def _last_box(text: str) -> str | None:
    """Content of the last non-empty ``\\boxed{...}`` / ``\\fbox{...}`` (``\\boxed 5`` too)."""
    pos = len(text)
    for _ in range(64):
        b = text.rfind("\\boxed", 0, pos)
        f = text.rfind("\\fbox", 0, pos)
        at = max(b, f)
        if at == -1:
            return None
        start = at + (6 if at == b else 5)
        j = start
        while j < len(text) and j - start < 8 and text[j] in " \t":
            j += 1
        if j < len(text) and text[j] == "{":
            close = _balanced(text, j)
            if close is not None:
                inner = text[j + 1: close].strip()
                if inner:
                    return inner[: 4 * MAX_ANSWER_CHARS]
        elif j > start and j < len(text):
            m = re.match(r"[^\s$]{1,60}", text[j:])
            if m:
                return m.group(0)
        pos = at
    return None


# --------------------------------------------------------------------------- extraction


def extract_answer(text: str | None) -> Extraction:
    """Take the final answer out of a response (rules in the module docstring)."""
    if text is None or not isinstance(text, str):
        return Extraction(None, None, None, "empty response")
    if not text.strip():
        return Extraction(None, None, None, "empty response")
    tail = _strip_terminal(text[-MAX_SCAN_CHARS:])

    box = _last_box(tail)
    if box is not None:
        cleaned = _clean(box) or box.strip()
        answer, value = _read_whole(cleaned)
        return Extraction(answer, "boxed", value)

    bolds: list[tuple[int, str, ExactAnswer]] = []
    for pos, bold in _bold_matches(tail):
        inner = _clean(bold)
        value = _exact(inner) if inner else None
        if value is not None:
            bolds.append((pos, inner, value))

    markers = list(_marker_positions(tail))
    for end in reversed(markers[-20:]):
        found, found_value = _from_segment(tail[end:])
        if found:
            if found_value is None and bolds and bolds[-1][0] >= end:
                break  # "To answer: we compute 3+4 ... **18**": the bold number is the answer
            return Extraction(found, "marker", found_value)

    if bolds:
        return Extraction(bolds[-1][1], "bold", bolds[-1][2])

    last_any: re.Match[str] | None = None
    last_plain: re.Match[str] | None = None
    for m in _TOKEN_STRICT.finditer(tail):
        if not any(ch.isdigit() for ch in m.group("tok")):
            continue
        last_any = m
        if m.start() > 0 and (tail[m.start() - 1].isalpha() or tail[m.start() - 1] in "_^"):
            continue
        if _INSIDE_EXPR.search(tail, max(0, m.start() - 12), m.start()):
            continue  # the 2 of \sqrt{2} or x^{2} is not an answer
        last_plain = m
    if last_any is not None:
        first = last_any.start() + (1 if tail[last_any.start()] == "$" else 0)
        span = _enclosing_math(tail, first, last_any.end())
        if span is not None and (last_plain is None or last_plain.end() > span[0]):
            content = _clean(tail[span[0]:span[1]])
            if content and not _digits_ok(content):
                return Extraction(content[:MAX_ANSWER_CHARS], "last-math", None,
                                  f"the last number has more than {MAX_DIGITS} digits")
            left, eq, right = content.rpartition("=")
            if eq:  # "$3 \times 6 = 18$": the result is what follows the last "="
                rhs = _clean(right)
                value = _exact(rhs)
                if value is not None:
                    return Extraction(rhs, "last-math", value)
            if content:
                answer, value = _read_whole(content)
                return Extraction(answer, "last-math", value)
    if last_plain is not None:
        last_text = last_plain.group("tok").strip()
        value = _exact(last_text)
        if value is None and not _digits_ok(last_text):
            return Extraction(last_text[:MAX_ANSWER_CHARS], "last-number", None,
                              f"the last number has more than {MAX_DIGITS} digits")
        return Extraction(last_text, "last-number", value)
    return Extraction(None, None, None, "no answer found (no \\boxed{}, answer marker or number)")


def _enclosing_math(tail: str, a: int, b: int) -> tuple[int, int] | None:
    """(start, end) of the content of the LaTeX math span around ``tail[a:b]``, if any:
    ``\\(...\\)``, ``\\[...\\]``, ``$$...$$`` or ``$...$`` (single ``$`` paired on one line,
    the opener followed and the closer preceded by a non-space, no digit after the
    closer: "$5 and $6" is currency, not mathematics)."""
    lo = max(0, a - 4 * MAX_ANSWER_CHARS)
    hi = min(len(tail), b + 4 * MAX_ANSWER_CHARS)
    for opener, closer in (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$")):
        i = tail.rfind(opener, lo, a)
        if i == -1 or tail.find(closer, i + len(opener), a) != -1:
            continue
        j = tail.find(closer, b, hi)
        if j != -1:
            return i + len(opener), j
    line_start = tail.rfind("\n", lo, a) + 1
    line_end = tail.find("\n", b, hi)
    line_end = hi if line_end == -1 else line_end
    opener_at = -1
    k = tail.find("$", line_start, line_end)
    while k != -1:  # pair the single $ of the line from left to right
        escaped = k > 0 and tail[k - 1] == "\\"
        double = (k + 1 < len(tail) and tail[k + 1] == "$") or (k > 0 and tail[k - 1] == "$")
        if escaped or double:
            pass
        elif opener_at == -1:
            if k + 1 < line_end and not tail[k + 1].isspace():
                opener_at = k
        elif not tail[k - 1].isspace() and not (k + 1 < len(tail) and tail[k + 1].isdigit()):
            if opener_at < a and k >= b:
                return opener_at + 1, k
            if k >= b:
                return None
            opener_at = -1
        elif k + 1 < line_end and not tail[k + 1].isspace():
            opener_at = k  # not a closer: may open the next span ("$5 and $x$")
        k = tail.find("$", k + 1, line_end)
    return None


def _marker_positions(tail: str) -> Iterable[int]:
    """End offsets of answer markers; a ``####`` counts only when an answer follows it."""
    for m in _MARKER.finditer(tail):
        if m.group(0).lstrip().startswith("####"):
            after = tail[m.end(): m.end() + 40].lstrip(" \t")
            if not re.match(r"(?:[-+−$€£¥₹.\d]|\\)", after):
                continue  # "#### Step 2": a Markdown heading
        yield m.end()


def _bold_matches(tail: str) -> Iterable[tuple[int, str]]:
    for m in _BOLD.finditer(tail):
        yield m.start(), m.group(1)


# --------------------------------------------------------------------------- gold


@dataclass(frozen=True)
class Gold:
    text: str
    exact: ExactAnswer | None   # None: symbolic gold, only math-verify can compare it

    @property
    def shown(self) -> str:
        if self.exact is None:
            return self.text
        if self.exact.kind == "decimal" and self.exact.decimals:
            return self.text
        return fraction_to_str(self.exact.value) + ("%" if self.exact.percent else "")


def parse_gold(gold_text: str | None, gold_value: str | None = None) -> Gold:
    """The gold as compared: the stored exact value (``seeds.answer_value``) when given,
    keeping the tolerance of a decimal gold text that agrees with it; else the gold text
    read as a number; else the text as is (symbolic, compared by math-verify)."""
    text = (gold_text or "").strip()
    stored: Fraction | None = None
    if gold_value is not None and str(gold_value).strip():
        raw = str(gold_value).strip()
        if len(raw) <= 2 * MAX_DIGITS + 1 and re.fullmatch(r"-?\d+(?:\.\d+)?(?:/\d+)?", raw):
            try:
                stored = Fraction(raw)
            except (ValueError, ZeroDivisionError):
                stored = None
    from_text = _exact(_clean(text)) if text else None
    if stored is not None:
        if from_text is not None and (from_text.value == stored or (
                from_text.kind == "decimal" and matches(stored, from_text))):
            return Gold(text, from_text)
        kind = "integer" if stored.denominator == 1 else "fraction"
        return Gold(text or fraction_to_str(stored), ExactAnswer(stored, kind))
    if from_text is not None:
        return Gold(text, from_text)
    words = _words_value(text) if text else None
    if words is not None:
        return Gold(text, ExactAnswer(words, "integer"))
    return Gold(text, None)


# --------------------------------------------------------------------------- comparison


def _terminates(value: Fraction) -> bool:
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _compare_exact(resp: ExactAnswer, gold: ExactAnswer) -> str | None:
    """``exact`` / ``exact-rounded`` when they match, else ``None``."""
    candidates = [(resp.value, resp.decimals if resp.kind == "decimal" else 0)]
    if resp.percent:
        candidates.append((resp.value / 100, (resp.decimals if resp.kind == "decimal" else 0) + 2))
    for value, places in candidates:
        if matches(value, gold):
            return "exact"
    for value, places in candidates:
        if places >= 2 and not _terminates(gold.value) and resp.kind == "decimal":
            if abs(value - gold.value) <= Fraction(1, 2 * 10**places):
                return "exact-rounded"
    return None


def _value_text(ans: ExactAnswer) -> str:
    return fraction_to_str(ans.value)


def _shorten(s: str | None, n: int = 200) -> str | None:
    if s is None:
        return None
    return s if len(s) <= n else s[: n - 1] + "…"


def _decide_exact(ext: Extraction, gold: Gold, response: str | None) -> CheckResult | None:
    """The in-process verdict, or ``None`` when math-verify has to decide."""
    if not ext.found and (gold.exact is not None or not (response or "").strip()):
        return CheckResult("unparseable", None, None, "none", ext.reason or "no answer found",
                           None, gold.shown)
    if ext.text is not None and not _digits_ok(ext.text):
        return CheckResult("unparseable", _shorten(ext.text), None, "none",
                           f"the answer has a number with more than {MAX_DIGITS} digits",
                           ext.source, gold.shown)
    if gold.exact is not None and ext.value is not None:
        how = _compare_exact(ext.value, gold.exact)
        value = _value_text(ext.value)
        read = value + ("%" if ext.value.percent else "")
        if how is not None:
            return CheckResult("correct", _shorten(ext.text), value, how,
                               f"{read} matches the gold {gold.shown}", ext.source, gold.shown)
        return CheckResult("wrong", _shorten(ext.text), value, "exact",
                           f"{read} differs from the gold {gold.shown}", ext.source, gold.shown)
    if not gold.text and gold.exact is None:
        return CheckResult("unparseable", _shorten(ext.text), None, "gold",
                           "the gold answer is empty", ext.source, None)
    if gold.exact is not None and ext.text is not None and _PROSE.fullmatch(ext.text):
        return CheckResult("unparseable", _shorten(ext.text), None, "none",
                           "the answer is words, not a number", ext.source, gold.shown)
    return None


def _symbolic_job(ext: Extraction, response: str | None, gold: Gold) -> dict[str, Any]:
    if ext.found and (ext.source != "last-number" or gold.exact is not None):
        pred = ext.text or ""
        wrap = True
    else:
        # symbolic gold and no box/marker: let math-verify find the expression itself
        pred = (response or "")[-MAX_SYMBOLIC_CHARS:]
        wrap = False
    return {"pred": pred[:MAX_SYMBOLIC_CHARS], "wrap": wrap,
            "gold": gold.text[:MAX_SYMBOLIC_CHARS] if gold.exact is None
            else fraction_to_str(gold.exact.value)}


def _from_job(ext: Extraction, gold: Gold, job: dict[str, Any], res: JobResult) -> CheckResult:
    extracted = _shorten(ext.text) if job.get("wrap") else None
    source = ext.source if job.get("wrap") else "math-verify"
    if not res.ok:
        why = ("math-verify did not finish within the time limit" if res.status == "timeout"
               else "math-verify ran out of memory" if res.status == "memory"
               else "math-verify failed")
        return CheckResult("unparseable", extracted, None, "math-verify",
                           f"{why}: {res.message}", source, gold.shown)
    out: dict[str, Any] = res.value
    status = out.get("status")
    pred_text = _shorten(out.get("pred_text")) or extracted
    value = _shorten(out.get("value"))
    if status == "gold":
        return CheckResult("unparseable", pred_text, value, "gold",
                           f"the gold answer {_shorten(gold.text, 60)!r} could not be read "
                           f"({out.get('message', '')})", source, gold.shown)
    if status == "unparseable":
        return CheckResult("unparseable", pred_text, None, "math-verify",
                           out.get("message") or "math-verify could not read the answer",
                           source, gold.shown)
    verdict = "correct" if status == "correct" else "wrong"
    detail = (f"{value} is equivalent to the gold {_shorten(gold.shown, 80)}" if verdict == "correct"
              else f"{value} is not equivalent to the gold {_shorten(gold.shown, 80)}")
    if out.get("message"):
        detail += f" ({out['message']})"
    return CheckResult(verdict, pred_text, value, "math-verify", detail, source, gold.shown)


# --------------------------------------------------------------------------- math-verify worker

_gold_cache: dict[str, Any] = {}


def _wrap(text: str) -> str:
    t = text.strip()
    if t.startswith("$") or t.startswith("\\(") or t.startswith("\\[") or "\\boxed" in t:
        return t
    return "\\boxed{" + t + "}"


def math_verify_job(job: dict[str, Any]) -> dict[str, Any]:
    """Runs in a worker process (main thread, so math-verify's alarm works)."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
    from math_verify.errors import TimeoutException

    timeout = max(1, int(job.get("timeout", 3)))
    configs = [LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()]

    def read(text: str) -> list[Any]:
        try:
            return list(parse(text, extraction_config=configs, fallback_mode="first_match",
                              parsing_timeout=timeout, raise_on_error=True))
        except TimeoutException:
            raise TimeoutError("parsing took longer than %d s" % timeout) from None
        except Exception:  # noqa: BLE001 - malformed LaTeX is an unreadable answer
            return []

    def shown(x: Any) -> str:
        try:
            if getattr(x, "is_Rational", False):
                return str(x.p) if x.q == 1 else f"{x.p}/{x.q}"
            s = str(x)
        except Exception:  # noqa: BLE001 - e.g. int/str digit limit
            return "(too large to show)"
        return s if len(s) <= 200 else s[:199] + "…"

    gold_text = job["gold"]
    gold = _gold_cache.get(gold_text)
    if gold is None:
        try:
            gold = read(_wrap(gold_text))
        except TimeoutError as exc:
            return {"status": "gold", "message": str(exc)}
        if len(_gold_cache) > 512:
            _gold_cache.clear()
        _gold_cache[gold_text] = gold
    if not gold or isinstance(gold[0], str):
        return {"status": "gold", "message": "math-verify found no expression in it"}
    pred_src = _wrap(job["pred"]) if job.get("wrap") else job["pred"]
    try:
        pred = read(pred_src)
    except TimeoutError as exc:
        return {"status": "unparseable", "message": f"math-verify: {exc}"}
    if not pred:
        return {"status": "unparseable", "message": "math-verify found no answer it can read"}
    pred_text = pred[-1] if isinstance(pred[-1], str) else shown(pred[0])
    if isinstance(pred[0], str):
        return {"status": "unparseable", "pred_text": pred_text,
                "message": "math-verify could not read the answer as mathematics"}
    try:
        ok = verify(gold, pred, timeout_seconds=timeout, raise_on_error=True)
    except TimeoutException:
        return {"status": "unparseable", "pred_text": pred_text, "value": shown(pred[0]),
                "message": f"math-verify: the comparison took longer than {timeout} s"}
    except Exception as exc:  # noqa: BLE001 - could not compare: not equivalent as far as known
        return {"status": "wrong", "pred_text": pred_text, "value": shown(pred[0]),
                "message": f"comparison failed: {type(exc).__name__}"}
    return {"status": "correct" if ok else "wrong", "pred_text": pred_text,
            "value": shown(pred[0])}


# --------------------------------------------------------------------------- batch API


class AnswerChecker:
    """Checks many answers: the exact path in-process, the rest in math-verify workers.

    A context manager; the worker pool starts on the first item that needs it::

        with AnswerChecker() as checker:
            results = checker.check_many([(response, gold_text, gold_value), ...])
    """

    def __init__(self, workers: int = 2, limits: CheckLimits = CheckLimits()) -> None:
        self.workers = max(1, int(workers))
        self.limits = limits
        self._pool: IsolatedPool | None = None
        self._lock = threading.Lock()

    def _get_pool(self) -> IsolatedPool:
        with self._lock:
            if self._pool is None:
                self._pool = IsolatedPool(
                    "qcstation.eval.checker:math_verify_job", workers=self.workers,
                    wall_s=self.limits.wall_clock_s(), cpu_s=self.limits.wall_clock_s() + 1,
                    memory_mb=self.limits.memory_mb,
                    # imported in each worker, not preloaded into the fork server that
                    # the Z3 verifier's small-memory workers share
                    worker_imports=["math_verify", "sympy"],
                    name="qcstation-checker")
            return self._pool

    def worker_pids(self) -> list[int]:
        return self._pool.worker_pids() if self._pool is not None else []

    @property
    def started(self) -> bool:
        return self._pool is not None and self._pool.started

    def check(self, response_text: str | None, gold_text: str | None,
              gold_value: str | None = None) -> CheckResult:
        return self.check_many([(response_text, gold_text, gold_value)])[0]

    def check_many(self, items: Sequence[tuple[str | None, str | None, str | None]]
                   ) -> list[CheckResult]:
        """Verdicts in input order. Plain numbers are decided here; the rest go to the
        math-verify workers in one batch."""
        results: list[CheckResult | None] = [None] * len(items)
        pending: list[tuple[int, Extraction, Gold, dict[str, Any]]] = []
        golds: dict[tuple[str | None, str | None], Gold] = {}
        for i, (response, gold_text, gold_value) in enumerate(items):
            key = (gold_text, gold_value)
            gold = golds.get(key)
            if gold is None:
                gold = golds[key] = parse_gold(gold_text, gold_value)
            ext = extract_answer(response)
            decided = _decide_exact(ext, gold, response)
            if decided is not None:
                results[i] = decided
                continue
            job = _symbolic_job(ext, response, gold)
            job["timeout"] = self.limits.timeout_s
            pending.append((i, ext, gold, job))
        if pending:
            outs = self._get_pool().run_many([job for _, _, _, job in pending])
            for (i, ext, gold, job), res in zip(pending, outs):
                results[i] = _from_job(ext, gold, job, res)
        return [r for r in results if r is not None]

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def __enter__(self) -> AnswerChecker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_answer(response_text: str | None, gold_text: str | None,
                 gold_value: str | None = None, limits: CheckLimits = CheckLimits()
                 ) -> CheckResult:
    """Check one response. Plain numbers never start a process; anything math-verify has
    to decide runs in a one-off isolated worker (use :class:`AnswerChecker` for many)."""
    gold = parse_gold(gold_text, gold_value)
    ext = extract_answer(response_text)
    decided = _decide_exact(ext, gold, response_text)
    if decided is not None:
        return decided
    with AnswerChecker(workers=1, limits=limits) as checker:
        return checker.check(response_text, gold_text, gold_value)

