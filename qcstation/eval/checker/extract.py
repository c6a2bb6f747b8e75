"""Taking the answer out of a response (:func:`extract_answer`): the last box, else the
last answer marker, else a bold number, else the last number (with its LaTeX math span),
searched in the last :data:`MAX_SCAN_CHARS` characters, with the number readers the
comparison shares (:func:`exact_value`, :func:`words_value`). The rules in full are in
:mod:`qcstation.eval.checker`. Pure text work: no process, no math-verify."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from qcstation.core.reading.answers import ExactAnswer, parse_number

MAX_SCAN_CHARS = 20_000
MAX_ANSWER_CHARS = 300
MAX_DIGITS = 60


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
    #: the answer gives several values (``±5``, ``16 or 18``, ``5 and 7``): never correct
    hedged: bool = False
    #: the answer only says what it is not (``not 5``): no value, never read as 5
    negated: bool = False

    @property
    def found(self) -> bool:
        return self.text is not None



_SEP_STRICT = r"(?:,|\{,\}|\\,|[\u00a0\u202f\u2009])"
_SEP_LOOSE = r"(?:,|\{,\}|\\,|[\u00a0\u202f\u2009 ])"
_FRAC_TOKEN = r"-?\\[dt]?frac\s*(?:\{\s*-?\d{1,60}(?:\.\d{1,60})?\s*\}\s*\{\s*-?\d{1,60}(?:\.\d{1,60})?\s*\}|\d\d)"


#: scientific notation after a number: 1.5e3, 2E-1, 1e4000 (not 2e, a variable): the whole
#: exponent is part of the number, however long (1e4000 is not 1 followed by a word)
_EXPONENT = r"[eE][+-]?\d++(?![.\w])"
_SCIENTIFIC = re.compile(r"(?P<m>[-+]?(?:\d{1,60}(?:\.\d{1,60})?|\.\d{1,60}))[eE](?P<e>[+-]?\d{1,60})(?![\d.])")
#: the largest exponent of a reply read exactly (10**1000 takes microseconds to compare; its
#: value is shown in scientific notation). A gold's exponent is at most MAX_DIGITS, so a
#: nonzero reply beyond this one (at least 10**879 or at most 10**-879) is no gold's value.
MAX_EXPONENT = 1000


def _token_re(sep: str) -> re.Pattern[str]:
    number = rf"(?:\d{{1,3}}(?:{sep}\d{{3}})+(?![\d])|\d+)(?:\.\d+)?|\.\d+"
    return re.compile(
        rf"(?P<tok>{_FRAC_TOKEN}"
        rf"|(?:(?:\\?\$|€|£|¥|₹)\s?)?(?:[-+−]\s?)?(?:(?:\\?\$|€|£|¥|₹)\s?)?"
        rf"(?:\d+\s+\d+\s*/\s*\d+(?![\d/])|(?:{number})(?:{_EXPONENT})?(?:\s*/\s*(?:{number}))?)"
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
_EXPONENT_AFTER = re.compile(r"[eE][+-]?\d")
#: a character right after a number that makes it another number: a vulgar fraction ("12½" is
#: 12.5), a superscript ("12²" is 144), per mille ("12‰"), a fraction slash ("1⁄2"); such a number
#: is never read as its digits alone
_UNICODE_NUMBER_AFTER = re.compile("\\s?[\u00b2\u00b3\u00b9\u00bc-\u00be\u2070-\u2079\u2150-\u215f"
                                   "\u2030\u2031\u2044\u2215]")
_TEXT_CMD = re.compile(r"\\(?:text|textbf|textit|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]{0,200})\}")
_POWER = re.compile(r"\d\s*\^|\}\s*\^")
_INSIDE_EXPR = re.compile(r"(?:\\sqrt|\^|_|\\log|\\ln)\s*[{\[]?\s*$")
#: what may stand left of "=" in an answer "x = 18" (not an equation such as "2x + 1 = 0")
_NAME = re.compile(r"[A-Za-z]{1,20}(?:_\{?\w{1,4}\}?)?|\\[a-zA-Z]{1,10}")
#: one trailing lowercase letter that is not a unit symbol (m, g, s, h, l)
_VARIABLE_SUFFIX = re.compile(r"\d\s?[a-fi-kn-rt-z]\s*$")
PROSE = re.compile(r"[A-Za-z][A-Za-z ,.'-]{0,300}")

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
# characters that draw nothing: soft hyphen, zero-width space and joiners, LRM/RLM, word
# joiner and invisible operators, BOM ("The answer is 1\u200b8." reads as 18 on a screen)
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")


def _strip_terminal(text: str) -> str:
    """Terminal escape sequences and characters that draw nothing removed, other control
    characters turned into spaces: the answer read is the one a reader sees."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _CONTROL_SPACE.sub(" ", _INVISIBLE.sub("", text))


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


def clean_candidate(candidate: str) -> str:
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


_DIGIT_RUN = re.compile(r"\d+")


def digits_ok(text: str) -> bool:
    return max(map(len, _DIGIT_RUN.findall(text)), default=0) <= MAX_DIGITS


_PLAIN_INT = re.compile(r"-?\d{1,60}")


def exact_value(text: str, *, max_exponent: int = MAX_EXPONENT) -> ExactAnswer | None:
    """One plain number (project rules), guarded by the digit cap; a number in scientific
    notation whose exponent is over ``max_exponent`` is not read (:func:`beyond_exponent`)."""
    if text and _PLAIN_INT.fullmatch(text):
        # the common case, decided as parse_number would (an integer), without its rules
        return ExactAnswer(Fraction(int(text)), "integer")
    if not text or len(text) > MAX_ANSWER_CHARS or not digits_ok(text):
        return None
    sci = _SCIENTIFIC.search(text)
    if sci is not None:
        return _scientific(text, sci, max_exponent)
    if _POWER.search(text):
        return None  # "2^{3}" is an expression (parse_number would read ^2/^3 as a unit)
    if _VARIABLE_SUFFIX.search(text):
        return None  # "18x", "3i", "2e": a variable or constant, not a unit
    t = re.sub(r"(?<=\d)[\u00a0\u202f\u2009 ](?=\d{3}(?!\d))", "", text)
    try:
        return parse_number(t)
    except (ValueError, ArithmeticError):
        return None


def _around_scientific(text: str, sci: re.Match[str]) -> ExactAnswer | None:
    """What stands around a number in scientific notation, read with 1 in its place: 1 when
    it is only what may stand around a plain number (``$``, a unit, ``%``: ``$1e4``,
    ``1e4 dollars``), anything else when it is more (``2 \\times 1e4``, ``1e4/3``, ``1e4x``)."""
    around = text[: sci.start()] + "1" + text[sci.end():]
    if around == "1":
        return ExactAnswer(Fraction(1), "integer")
    if _POWER.search(around) or _VARIABLE_SUFFIX.search(around):
        return None
    try:
        return parse_number(around)
    except (ValueError, ArithmeticError):
        return None


def _scientific(text: str, sci: re.Match[str], max_exponent: int) -> ExactAnswer | None:
    around = _around_scientific(text, sci)
    if around is None or around.value != 1:
        return None
    exponent = int(sci.group("e"))  # at most 60 digits (the digit cap)
    mantissa = Fraction(sci.group("m"))
    if abs(exponent) > max_exponent and mantissa:
        return None
    value = mantissa * Fraction(10) ** exponent if mantissa else Fraction(0)
    return ExactAnswer(value, "integer" if value.denominator == 1 else "fraction",
                       percent=around.percent)


def beyond_exponent(text: str) -> bool:
    """Whether ``text`` is one nonzero number in scientific notation (``1e4000``, ``$2E+9999
    dollars``) whose exponent is over :data:`MAX_EXPONENT`: not computed, and never equal to
    a gold (a gold's exponent is at most :data:`MAX_DIGITS`, its digits as many)."""
    if not text or len(text) > MAX_ANSWER_CHARS or not digits_ok(text):
        return False
    sci = _SCIENTIFIC.search(text)
    if sci is None or abs(int(sci.group("e"))) <= MAX_EXPONENT or not Fraction(sci.group("m")):
        return False
    around = _around_scientific(text, sci)
    return around is not None and around.value == 1


#: a number in scientific notation whose exponent is not a whole number, or that has a
#: second exponent: "1E+4.5", "2e-1.5", "1e4e5" (math-verify reads "1E+4.5" as 10000.0*0.5)
_MALFORMED_SCIENTIFIC = re.compile(r"(?<![A-Za-z\\])(?:\d{1,60}(?:\.\d{1,60})?|\.\d{1,60})[eE][+-]?\d{1,60}"
                                   r"(?:\.\d|[eE][+-]?\d)")


def malformed_scientific(text: str) -> str | None:
    """The malformed number in scientific notation in ``text`` (see :data:`_MALFORMED_SCIENTIFIC`), or None."""
    m = _MALFORMED_SCIENTIFIC.search(text[:MAX_ANSWER_CHARS])
    return m.group() if m else None


def scientific_for_math_verify(text: str) -> str:
    """``text`` with each number in scientific notation written ``m \\times 10^{e}``:
    math-verify reads ``1e400`` as the product 1·e·400 (Euler's number)."""
    return _SCIENTIFIC.sub(lambda m: f"{m.group('m')} \\times 10^{{{int(m.group('e'))}}}", text)


def words_value(text: str) -> Fraction | None:
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


HEDGED_REASON = "the answer gives several values; it is never correct against a single gold"
_PLUS_MINUS = re.compile(r"\\pm\b|\\mp\b|[±∓]|\+\s*/\s*-|\+-(?=\s*\d)")
_HEDGE_JOIN = re.compile(r"\s*(?:,|;|\bor\b|\band\b|\bto\b|\bvs\.?|\\text\s*\{\s*(?:or|and)\s*\}|\\(?:lor|vee)\b)\s*"
                         r"(?:(?:either|maybe|possibly|perhaps)\s+)?(?:[A-Za-z]\s*=\s*)?(?:\\?\$\s*)?[-+−]?\s*\d")


#: the last number follows another value and a join ("16 or 18", "x = 5 or x = -5") or a ±
_HEDGED_BEFORE = re.compile(r"(?:\d\s*\bor\b\s*(?:[A-Za-z]\s*=\s*)?(?:\\?\$\s*)?[-+−]?\s*"
                            r"|\\pm\s*|[±∓]\s*|\+\s*/\s*-\s*)$")


def hedged(answer: str) -> bool:
    """Whether an answer gives several values: a plus-minus (``±5``, ``\\pm 5``) or two
    numbers joined by a comma, "or", "and" or "to" right after the first number (``16 or
    18``, ``5 and 7``, ``x = 5, x = -5``). "18 because 6 x 3 = 18" is one answer."""
    text = answer[: 4 * MAX_ANSWER_CHARS]
    if _PLUS_MINUS.search(text):
        return True
    text = re.sub(r"^\s*(?:either|maybe|possibly|perhaps|approximately|about)\s+", "", text,
                  flags=re.I)
    for m in _TOKEN_LOOSE.finditer(text):
        tok = m.group("tok")
        if not any(ch.isdigit() for ch in tok):
            continue
        return _HEDGE_JOIN.match(text, m.end()) is not None
    return False


#: "not 5 but 6", "not 5, rather 6", "not 5; it is 6": the answer is what follows the correction
_NEGATED = re.compile(r"\s*(?:(?:is|was)\s+)?not\s+(?P<neg>[^;\n]{1,80}?)\s*[,;]?\s*"
                      r"(?:but(?:\s+(?:rather|instead))?|rather|instead|(?:it|this|that)\s+(?:is|'s)|it's)"
                      r"\s*[:,]?\s+(?P<pos>.+)", re.I | re.S)
_NEGATION = re.compile(r"\s*(?:(?:is|was)\s+)?not\b", re.I)
NEGATED_REASON = "the answer only says what it is not ('not N'), with no value of its own"


def correction(seg: str) -> tuple[str, bool]:
    """(the text the answer is read from, negated): after a correction ("not 5 but 6") the
    text after it; a bare negation ("not 5") is negated (no value is read from it)."""
    m = _NEGATED.match(seg[: 4 * MAX_ANSWER_CHARS])
    if m is not None:
        return m.group("pos"), False
    return seg, _NEGATION.match(seg) is not None


def _unbox(text: str) -> str:
    """``text`` with every ``\\boxed{X}`` / ``\\fbox{X}`` written as X."""
    out, pos = [], 0
    for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text):
        if m.start() < pos:
            continue
        close = _balanced(text, m.end() - 1)
        if close is None:
            break
        out.append(text[pos:m.start()])
        out.append(text[m.end():close])
        pos = close + 1
    out.append(text[pos:])
    return "".join(out)


def _answer_sentence(seg: str) -> str:
    """The text after an answer marker up to the end of its sentence, cleaned."""
    seg = seg[: 4 * MAX_ANSWER_CHARS].lstrip().lstrip("*_`:= \t").lstrip()
    if _math_span(seg) is not None:
        return clean_candidate(_math_span(seg) or "")
    return clean_candidate(_first_sentence(seg))


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
        if _EXPONENT_AFTER.match(rest) or _UNICODE_NUMBER_AFTER.match(rest):
            return None  # "1e4.5": not a number followed by a word; "12½": not 12
        if _OPERATOR_AFTER.match(rest) and not re.match(r"\s*[a-zA-Z]{2,}", rest):
            return None
        value = exact_value(tok)
        if value is None:
            return None
        return tok, value
    return None


def _from_segment(seg: str) -> tuple[str | None, ExactAnswer | None]:
    """(answer text, exact value or None) from the text right after a marker."""
    seg = seg[: 4 * MAX_ANSWER_CHARS].lstrip()
    seg = seg.lstrip("*_`:= \t").lstrip()
    seg = correction(seg)[0].lstrip()
    seg = re.sub(r"^\\(?:text|textbf|mathbf)\s*\{\s*\}\s*", "", seg)
    if seg.startswith("\\boxed") or seg.startswith("\\fbox"):
        try:
            box = _last_box(seg)
        except UnbalancedBox:
            return None, None
        if box is not None:
            return box, exact_value(clean_candidate(box))
    span = _math_span(seg)
    if span is not None:
        text = clean_candidate(span)
        return (text, exact_value(text)) if text else (None, None)
    sentence = clean_candidate(_first_sentence(seg))
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
    whole = exact_value(text)
    if whole is not None:
        return text, whole
    left, eq, right = text.rpartition("=")
    if eq and _NAME.fullmatch(left.strip()):
        right = clean_candidate(right)
        value = exact_value(right)
        if value is not None:
            return right, value
    words = words_value(text)
    if words is not None:
        return text, ExactAnswer(words, "integer")
    return text, None


class UnbalancedBox(ValueError):
    """The last ``\\boxed{`` does not close within the checker's limit: never guessed at."""


def _last_box(text: str) -> str | None:
    """Content of the last non-empty ``\\boxed{...}`` / ``\\fbox{...}`` (``\\boxed 5`` too).
    Raises :class:`UnbalancedBox` when the last box's braces do not close within
    ``4 * MAX_ANSWER_CHARS`` characters (its last number is not taken as the answer)."""
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
            if close is None:
                raise UnbalancedBox(f"the last \\boxed{{}} does not close within "
                                    f"{4 * MAX_ANSWER_CHARS} characters")
            inner = text[j + 1: close].strip()
            if inner:
                return inner[: 4 * MAX_ANSWER_CHARS]
        elif j > start and j < len(text):
            m = re.match(r"[^\s$]{1,60}", text[j:])
            if m:
                return m.group(0)
        pos = at
    return None


#: the answer line the prompts ask for, holding one plain number (``The answer is 18.``)
_ASKED_LINE = re.compile(r"[ \t]*the[ \t]+answer[ \t]+is[ \t]+(-?[0-9]{1,60}(?:\.[0-9]{1,60})?)\.?[ \t]*",
                         re.IGNORECASE)
_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")   # what _strip_terminal changes


def _asked_number(text: str) -> tuple[str, ExactAnswer] | None:
    """(N, its value) when the response is the common one every rule reads alike: its
    last non-empty line is ``The answer is N.`` (N one plain number, the line short), and
    its scanned tail has no box (rule 1 cannot fire) and nothing :func:`_strip_terminal`
    would change. That line's marker is then the last one (nothing follows it) and its
    answer is N, in the flexible reading (rule 2) and the strict one alike. ``None``: read
    by the rules in full. ``tests/eval/test_checker_fast.py`` checks that both agree."""
    tail = text[-MAX_SCAN_CHARS:]
    if "\\boxed" in tail or "\\fbox" in tail or _TERMINAL.search(tail) is not None:
        return None
    tail = tail.rstrip()
    start = tail.rfind("\n") + 1
    if len(tail) - start > MAX_ANSWER_CHARS:
        return None
    m = _ASKED_LINE.fullmatch(tail, start)
    if m is None:
        return None
    value = exact_value(m.group(1))
    return None if value is None else (m.group(1), value)


def extract_answer(text: str | None) -> Extraction:
    """Take the final answer out of a response (rules in the module docstring)."""
    if text is None or not isinstance(text, str):
        return Extraction(None, None, None, "empty response")
    if not text.strip():
        return Extraction(None, None, None, "empty response")
    asked = _asked_number(text)
    if asked is not None:
        return Extraction(asked[0], "marker", asked[1])
    return _extract_by_rules(text)


def _extract_by_rules(text: str) -> Extraction:
    """:func:`extract_answer` by every rule (a non-empty ``text``)."""
    tail = _strip_terminal(text[-MAX_SCAN_CHARS:])
    found = _from_box(tail)
    if found is None:
        found = _from_marker_or_bold(tail)
    return found if found is not None else _from_last_number(tail)


def _from_box(tail: str) -> Extraction | None:
    """Rule 1: the last non-empty box (an unclosed last box is unparseable)."""
    try:
        box = _last_box(tail)
    except UnbalancedBox as exc:
        return Extraction(None, "boxed", None, str(exc))
    if box is None:
        return None
    cleaned = clean_candidate(box) or box.strip()
    if hedged(cleaned):
        return Extraction(cleaned, "boxed", None, HEDGED_REASON, hedged=True)
    line = tail[tail.rfind("\n", 0, tail.rfind(box)) + 1:]
    line = line[:line.find("\n")] if "\n" in line else line
    if len(re.findall(r"\\(?:boxed|fbox)\b", line)) > 1:
        # "\boxed{16} or \boxed{18}": several boxed values offered as the answer
        first = re.search(r"\\(?:boxed|fbox)\b", line)
        joined = clean_candidate(_unbox(line[first.start():] if first else line))
        if hedged(joined):
            return Extraction(joined, "boxed", None, HEDGED_REASON, hedged=True)
    answer, value = _read_whole(cleaned)
    return Extraction(answer, "boxed", value)


def _from_marker_or_bold(tail: str) -> Extraction | None:
    """Rules 2 and 3: the last answer marker's answer, else the last bold number."""
    bolds: list[tuple[int, str, ExactAnswer]] = []
    for pos, bold in _bold_matches(tail):
        inner = clean_candidate(bold)
        value = exact_value(inner) if inner else None
        if value is not None:
            bolds.append((pos, inner, value))

    markers = list(_marker_positions(tail))
    for end in reversed(markers[-20:]):
        sentence = _answer_sentence(tail[end:])
        if sentence and correction(sentence)[1]:
            return Extraction(sentence, "marker", None, NEGATED_REASON, negated=True)
        if sentence and hedged(correction(sentence)[0]):
            return Extraction(sentence, "marker", None, HEDGED_REASON, hedged=True)
        found, found_value = _from_segment(tail[end:])
        if found:
            if found_value is None and bolds and bolds[-1][0] >= end:
                break  # "To answer: we compute 3+4 ... **18**": the bold number is the answer
            return Extraction(found, "marker", found_value)

    if bolds:
        return Extraction(bolds[-1][1], "bold", bolds[-1][2])
    return None


def _from_last_number(tail: str) -> Extraction:
    """Rule 4: the last number, or the LaTeX math span it sits in; else nothing found."""
    last_any: re.Match[str] | None = None
    last_plain: re.Match[str] | None = None
    for m in _TOKEN_STRICT.finditer(tail):
        if not any(ch.isdigit() for ch in m.group("tok")):
            continue
        last_any = m
        if m.start() > 0 and (tail[m.start() - 1].isalpha() or tail[m.start() - 1] in "_^"):
            continue
        if _UNICODE_NUMBER_AFTER.match(tail, m.end()):
            last_plain = None   # "12½ apples": the last number is no 12, and no number before it
            continue
        if _INSIDE_EXPR.search(tail, max(0, m.start() - 12), m.start()):
            continue  # the 2 of \sqrt{2} or x^{2} is not an answer
        last_plain = m
    if last_any is not None:
        first = last_any.start() + (1 if tail[last_any.start()] == "$" else 0)
        span = _enclosing_math(tail, first, last_any.end())
        if span is not None and (last_plain is None or last_plain.end() > span[0]):
            content = clean_candidate(tail[span[0]:span[1]])
            if content and not digits_ok(content):
                return Extraction(content[:MAX_ANSWER_CHARS], "last-math", None,
                                  f"the last number has more than {MAX_DIGITS} digits")
            left, eq, right = content.rpartition("=")
            if eq:  # "$3 \times 6 = 18$": the result is what follows the last "="
                rhs = clean_candidate(right)
                value = exact_value(rhs)
                if value is not None:
                    return Extraction(rhs, "last-math", value)
            if content:
                answer, value = _read_whole(content)
                return Extraction(answer, "last-math", value)
    if last_plain is not None:
        before = tail[max(0, tail.rfind("\n", 0, last_plain.start()) + 1,
                          last_plain.start() - 80): last_plain.start()]
        line = before + tail[last_plain.start():last_plain.end() + 40].split("\n", 1)[0]
        if _HEDGED_BEFORE.search(before) or (re.match(r"\s*(?:[A-Za-z]\s*=\s*)?[-+−$]?\s*\d", before)
                                             and hedged(line)):
            shown = clean_candidate(before[-40:] + last_plain.group("tok"))
            return Extraction(shown, "last-number", None, HEDGED_REASON, hedged=True)
        last_text = last_plain.group("tok").strip()
        value = exact_value(last_text)
        if value is None and not digits_ok(last_text):
            return Extraction(last_text[:MAX_ANSWER_CHARS], "last-number", None,
                              f"the last number has more than {MAX_DIGITS} digits")
        return Extraction(last_text, "last-number", value)
    return Extraction(None, None, None, "no answer found (no \\boxed{}, answer marker or number)")


_STRICT_LINE = re.compile(r"^[ \t>*_#]*the[ \t]+answer[ \t]+is[ \t:*_]*(?P<a>[^\n]{0,300}?)[ \t*_]*$",
                          re.I)


def extract_strict(text: str | None) -> Extraction:
    """The *strict* answer: the response's last non-empty line must be the line the
    templates ask for, ``The answer is N.``, with N one number (as lm-evaluation-harness's
    strict match); anything else is ``unparseable`` with the reason (source ``strict``)."""
    if text is None or not isinstance(text, str) or not text.strip():
        return Extraction(None, "strict", None, "empty response")
    asked = _asked_number(text)
    if asked is not None:
        return Extraction(asked[0], "strict", asked[1])
    return _strict_by_rules(text)


def _strict_by_rules(text: str) -> Extraction:
    """:func:`extract_strict` by every rule (a non-empty ``text``)."""
    tail = _strip_terminal(text[-MAX_SCAN_CHARS:]).rstrip()
    last = tail[tail.rfind("\n") + 1:][: 4 * MAX_ANSWER_CHARS]
    m = _STRICT_LINE.match(last)
    if m is None:
        return Extraction(None, "strict", None,
                          "the reply does not end with a line 'The answer is N.'")
    answer = clean_candidate(_unbox(m.group("a")))
    if not answer:
        return Extraction(None, "strict", None, "the line 'The answer is N.' has no N")
    read_from, negated = correction(answer)
    if negated:
        return Extraction(answer, "strict", None, NEGATED_REASON, negated=True)
    answer = clean_candidate(read_from)
    if hedged(answer):
        return Extraction(answer, "strict", None, HEDGED_REASON, hedged=True)
    read, value = _read_whole(answer)
    if value is None:
        return Extraction(answer, "strict", None, "N on the line 'The answer is N.' is not one number")
    return Extraction(read, "strict", value)


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
