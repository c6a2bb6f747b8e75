"""SMART's seed filters (paper, appendix A.2).

A seed question is left out of the benchmark when

* ``not_single_number`` - its gold answer is not one (rational) number;
* ``single_step``       - it can be solved in a single reasoning step (or none: an
  equation that only states the answer);
* ``gcd_lcm``           - its solution relies on a greatest common divisor or a least
  common multiple (not readily expressible / checkable in SMT-LIB);
* ``min_max``           - its solution needs the maximum or minimum over a set
  (optimisation, "which ... is the largest", ``\\max``/``\\min``).

(A fifth reason, ``gold_error``, is not SMART's: ``errata`` lists seeds whose dataset
gold answer contradicts their question.)

Filtered seeds are still stored (``status='filtered'``); ``filter_reason`` is the code
above and ``filter_detail`` says, for a person, what matched (the phrase and where it was
found, or the answer text), so a wrong call is easy to spot and overrule.

The keyword filters are deliberately narrow: "at least 5", "at most", "most of their
games", "15 minutes", a boy called Max, "the largest pizza" or "least common denominator"
(adding fractions) do not trigger them. Pure logic, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qcstation.core.reading.answers import count_numbers

__all__ = [
    "FILTER_REASONS",
    "FilterHit",
    "check_seed",
    "find_gcd_lcm",
    "find_min_max",
    "single_number_issue",
]

NOT_SINGLE_NUMBER = "not_single_number"
SINGLE_STEP = "single_step"
GCD_LCM = "gcd_lcm"
MIN_MAX = "min_max"
FILTER_REASONS: tuple[str, ...] = (NOT_SINGLE_NUMBER, SINGLE_STEP, GCD_LCM, MIN_MAX)


@dataclass(frozen=True)
class FilterHit:
    reason: str   # one of FILTER_REASONS
    detail: str   # human-readable: what matched and where


# --- GCD / LCM ------------------------------------------------------------------------
_GCD_LCM = re.compile(
    r"""
    (?<![A-Za-z])(?:gcd|gcf|hcf|lcm)(?![A-Za-z])              # gcd(a,b), \gcd, \text{lcm}, HCF
    | \b(?:g\.\s?c\.\s?d|h\.\s?c\.\s?f|l\.\s?c\.\s?m)\b\.?     # G.C.D., L.C.M.
    | \b(?:greatest|highest|largest|biggest)\s+common\s+(?:divisor|factor|measure)s?\b
    | \b(?:least|lowest|smallest)\s+common\s+multiples?\b
    """,
    re.IGNORECASE | re.VERBOSE,
)

# --- min / max over a set -------------------------------------------------------------
_SUPER = (
    r"(?:largest|smallest|greatest|least|highest|lowest|biggest|fewest|most|"
    r"maximum|minimum|maximal|minimal)"
)
# nouns that make a superlative a request for an extreme value (not "the largest pizza")
_MATH_NOUN = (
    r"(?:integers?|numbers?|values?|amount|sum|product|difference|quotient|ratio|"
    r"possible|length|area|perimeter|volume|distance|height|width|radius|degree|"
    r"digits?|factors?|divisors?|multiples?|primes?|roots?|solutions?|"
    r"elements?|members?|scores?|profit|cost|price|time|speed|number)"
)
_ADJ = (
    r"(?:(?:positive|negative|nonnegative|non-negative|real|whole|natural|odd|even|"
    r"prime|possible|integer|integral|rational|perfect|composite|"
    r"(?:one|two|three|four|five|six)-digit|\d-digit)\s+){0,3}"
)
_MIN_MAX_QUESTION = re.compile(
    rf"""
    (?<!\bat\s)(?P<sup>\b{_SUPER}\s+{_ADJ}{_MATH_NOUN}\b)   # "smallest positive integer", not "at least"
    | \b(?:maximi[sz]\w*|minimi[sz]\w*|optimi[sz]\w*)\b          # "maximize the area"
    | \bas\s+(?:many|much|few|little|large|small|high|low|long|short|far|close|soon)\s+
      (?:[\w-]+\s+){{0,3}}?as\s+possible\b[^.?!;]{{0,120}}\?       # "... as many boxes as possible?"
    | (?:\\max|\\min)\b | \b(?:max|min)\s*[({{]                  # \\max, max(a, b)
    | \b(?:which|who|whose)\b[^.?!;]{{0,80}}?(?<!\bat\s)\b(?:most|least|fewest|
         largest|smallest|highest|lowest|biggest|greatest|longest|shortest|
         cheapest|fastest|slowest|oldest|youngest|heaviest|lightest|tallest)\b
         (?!\s+common\b)[^.?!;]{{0,120}}\?                            # "which ... the most?"
    """,
    re.IGNORECASE | re.VERBOSE,
)
# a superlative describing a given value is not a request for one:
# "At its maximum speed, a shuttle travels ...", "If the least integer is -50, ..."
_GIVEN_BEFORE = re.compile(
    r"(?:\bat\s+(?:its|his|her|their|the|a|an|full)|\bif\s+(?:the|its|his|her|their))\s+$",
    re.IGNORECASE,
)

# in worked solutions only explicit operations count (prose like "the smallest such n"
# follows from the question, which is checked on its own)
_MIN_MAX_SOLUTION = re.compile(
    r"""
    (?:\\max|\\min)(?![A-Za-z]) | (?<![\d.]\s)(?<![\d.])\b(?:max|min)\s*[({]
    | \b(?:maximi[sz]\w*|minimi[sz]\w*)\b
    | \b(?:maximum|minimum)\s+(?:possible\s+)?(?:value|of)\b
    """,
    re.IGNORECASE | re.VERBOSE,
)


def _snippet(text: str, start: int, end: int, width: int = 30) -> str:
    a = max(0, start - width)
    b = min(len(text), end + width)
    s = " ".join(text[a:b].split())
    return ("…" if a > 0 else "") + s + ("…" if b < len(text) else "")


# cheap substring pre-checks: the regexes only run on texts that contain a keyword
_GCD_LCM_KEYS = ("gcd", "gcf", "hcf", "lcm", "g.c", "g. c", "h.c", "h. c", "l.c", "l. c", "common")
_MIN_MAX_KEYS = ("largest", "smallest", "greatest", "least", "highest", "lowest", "biggest",
                 "fewest", "most", "maximum", "minimum", "maximal", "minimal", "maximi", "minimi",
                 "optimi", "as possible", "max(", "min(", "max (", "min (", "max{", "min{",
                 "\\max", "\\min", "longest", "shortest", "cheapest", "fastest", "slowest",
                 "oldest", "youngest", "heaviest", "lightest", "tallest")


def _has_any(text: str, keys: tuple[str, ...]) -> bool:
    low = text.lower()
    for k in keys:
        if k in low:
            return True
    return False


def _short(text: str, limit: int = 80) -> str:
    t = " ".join(text.split())
    return t if len(t) <= limit else t[: limit - 1] + "…"


def find_gcd_lcm(question: str, solution: str | None = None) -> str | None:
    """Detail string if the question or solution needs a GCD/LCM, else ``None``."""
    for where, text in (("question", question), ("solution", solution or "")):
        if not text or not _has_any(text, _GCD_LCM_KEYS):
            continue
        m = _GCD_LCM.search(text)
        if m:
            return f"{where} mentions '{m.group(0).strip()}': {_snippet(text, m.start(), m.end())}"
    return None


def find_min_max(question: str, solution: str | None = None) -> str | None:
    """Detail string if the question asks for / the solution takes a max or min, else ``None``."""
    for m in (_MIN_MAX_QUESTION.finditer(question) if _has_any(question, _MIN_MAX_KEYS) else ()):
        if m.group("sup") and _GIVEN_BEFORE.search(question[max(0, m.start() - 20):m.start()]):
            continue
        return (f"question asks for an extreme value ('{_short(m.group(0))}'): "
                f"{_snippet(question, m.start(), m.end())}")
    if solution and _has_any(solution, _MIN_MAX_KEYS):
        found = _MIN_MAX_SOLUTION.search(solution)
        if found:
            return (f"solution takes a max/min ('{_short(found.group(0))}'): "
                    f"{_snippet(solution, found.start(), found.end())}")
    return None


def single_number_issue(answer_text: str, answer_value: str | None) -> str | None:
    """Why the answer is not one exact number (``None`` when it is)."""
    if answer_value is not None:
        return None
    shown = _short(answer_text)
    if not answer_text.strip():
        return "answer is empty"
    n = count_numbers(answer_text)
    if n >= 2:
        return f"answer '{shown}' is not a single number ({n} numbers in it)"
    if n == 0:
        return f"answer '{shown}' is not a number"
    return f"answer '{shown}' is not a plain rational number"


def check_seed(
    question: str,
    solution: str | None,
    answer_text: str,
    answer_value: str | None,
    steps: int | None,
    steps_detail: str | None = None,
) -> list[FilterHit]:
    """All SMART filters that exclude this seed, in the order of FILTER_REASONS."""
    hits: list[FilterHit] = []
    issue = single_number_issue(answer_text, answer_value)
    if issue:
        hits.append(FilterHit(NOT_SINGLE_NUMBER, issue))
    if steps is not None and steps <= 1:
        what = "one reasoning step" if steps == 1 else "no reasoning step"
        hits.append(FilterHit(SINGLE_STEP, what + (f" ({steps_detail})" if steps_detail else "")))
    detail = find_gcd_lcm(question, solution)
    if detail:
        hits.append(FilterHit(GCD_LCM, detail))
    detail = find_min_max(question, solution)
    if detail:
        hits.append(FilterHit(MIN_MAX, detail))
    return hits
