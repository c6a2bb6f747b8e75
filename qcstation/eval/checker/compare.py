"""Comparing an extracted answer with the gold: the gold as compared (:func:`parse_gold`),
the in-process verdict on exact rationals (:func:`decide_exact`: ``None`` when math-verify
has to decide), and the math-verify job and its result as a verdict (:func:`symbolic_job`,
:func:`from_job`). The rules in full are in :mod:`qcstation.eval.checker`."""

from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from qcstation.core.reading.answers import ExactAnswer, decimal_places, fraction_to_str, matches
from qcstation.core.verify.isolation import JobResult
from qcstation.eval.checker.extract import (
    MAX_DIGITS,
    MAX_EXPONENT,
    PROSE,
    Extraction,
    beyond_exponent,
    clean_candidate,
    digits_ok,
    exact_value,
    malformed_scientific,
    scientific_for_math_verify,
    words_value,
)

#: bump when a verdict for the same (response, gold) can change
CHECKER_VERSION = "8"   # 8: a number right before a vulgar fraction, superscript, per mille or fraction slash ("12½", "12²", "12‰", "1⁄2") is not read as its digits ("12½" was correct against a gold 12); 7: a number in scientific notation with a fractional or second exponent ("1E+4.5", "1e4e5") is malformed, never handed to math-verify ("1E+4.5" read as 10000.0*0.5 matched a gold 5000); 6: a reply in scientific notation is read whole at any exponent ("1e4000" was 1; "1e400" went to math-verify as 1·e·400); 5: characters that draw nothing (zero-width, BOM, soft hyphen) are not read ("1\u200b8" is 18, not 1); 4: math-verify limited in CPU seconds, not wall-clock (a verdict never depends on load); 3: corrections ("not 5 but 6"), scientific notation, boxed hedges, strict format failures unparseable
#          2: hedged answers wrong, an unclosed last box unparseable, strict
#: the longest expression handed to math-verify
MAX_SYMBOLIC_CHARS = 2_000

VERDICTS = ("correct", "wrong", "unparseable")


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
class Gold:
    text: str
    exact: ExactAnswer | None   # None: symbolic gold, only math-verify can compare it

    @property
    def shown(self) -> str:
        if self.exact is None:
            return self.text
        if self.exact.kind == "decimal" and self.exact.decimals:
            return self.text
        return number_text(self.exact.value) + ("%" if self.exact.percent else "")


def parse_gold(gold_text: str | None, gold_value: str | None = None) -> Gold:
    """The gold as compared (see :func:`_parse_gold`); the golds read last are kept (a run
    reads each item's gold for the flexible and the strict verdict, and again per sample)."""
    if (gold_text is None or type(gold_text) is str) and (gold_value is None or type(gold_value) is str) \
            and len(gold_text or "") + len(gold_value or "") <= _GOLD_MEMO_CHARS:
        return _parse_gold_memo(gold_text, gold_value)
    return _parse_gold(gold_text, gold_value)


_GOLD_MEMO_CHARS = 1000


@functools.lru_cache(maxsize=4096)
def _parse_gold_memo(gold_text: str | None, gold_value: str | None) -> Gold:
    return _parse_gold(gold_text, gold_value)


def _parse_gold(gold_text: str | None, gold_value: str | None = None) -> Gold:
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
    from_text = exact_value(clean_candidate(text), max_exponent=MAX_DIGITS) if text else None
    if stored is not None:
        if from_text is not None and (from_text.value == stored or (
                from_text.kind == "decimal" and matches(stored, from_text))):
            return Gold(text, from_text)
        kind = "integer" if stored.denominator == 1 else "fraction"
        return Gold(text or fraction_to_str(stored), ExactAnswer(stored, kind))
    if from_text is not None:
        return Gold(text, from_text)
    words = words_value(text) if text else None
    if words is not None:
        return Gold(text, ExactAnswer(words, "integer"))
    return Gold(text, None)


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
    for value, _places in candidates:
        if matches(value, gold):
            return "exact"
    for value, places in candidates:
        if places >= 2 and not _terminates(gold.value) and resp.kind == "decimal":
            if abs(value - gold.value) <= Fraction(1, 2 * 10**places):
                return "exact-rounded"
    return None


#: a value longer than this is shown in scientific notation (1e400, not 401 digits)
_LONG_VALUE = 2 * MAX_DIGITS + 1


def number_text(value: Fraction) -> str:
    """``value`` as ``p`` or ``p/q``; one too long to read (a reply ``1e400`` read exactly)
    as ``m.mmme±k`` (``1e400``, ``-2.5e-400``), which ``Fraction`` reads back."""
    text = fraction_to_str(value)
    if len(text) <= _LONG_VALUE:
        return text
    places = decimal_places(value)
    if places is None:
        return text
    digits, exponent = value * 10**places, -places
    sign, mantissa = ("-", str(-digits.numerator)) if digits < 0 else ("", str(digits.numerator))
    stripped = mantissa.rstrip("0")
    exponent += len(mantissa) - 1
    point = "." if len(stripped) > 1 else ""
    return f"{sign}{stripped[0]}{point}{stripped[1:]}e{exponent}"


def _value_text(ans: ExactAnswer) -> str:
    return number_text(ans.value)


def _shorten(s: str | None, n: int = 200) -> str | None:
    if s is None:
        return None
    return s if len(s) <= n else s[: n - 1] + "…"


def decide_exact(ext: Extraction, gold: Gold, response: str | None) -> CheckResult | None:
    """The in-process verdict, or ``None`` when math-verify has to decide."""
    if ext.hedged and gold.exact is not None:
        return CheckResult("wrong", _shorten(ext.text), None, "hedged", ext.reason,
                           ext.source, gold.shown)
    if ext.negated:
        return CheckResult("unparseable", _shorten(ext.text), None, "none", ext.reason,
                           ext.source, gold.shown)
    if not ext.found and (gold.exact is not None or not (response or "").strip()):
        return CheckResult("unparseable", None, None, "none", ext.reason or "no answer found",
                           None, gold.shown)
    if ext.text is not None and not digits_ok(ext.text):
        return CheckResult("unparseable", _shorten(ext.text), None, "none",
                           f"the answer has a number with more than {MAX_DIGITS} digits",
                           ext.source, gold.shown)
    if gold.exact is None and (bad := malformed_scientific(gold.text)):
        return CheckResult("unparseable", _shorten(ext.text), None, "gold",
                           f"the gold answer {_shorten(bad, 60)} is not a number: an exponent is a "
                           "whole number", ext.source, gold.shown)
    if ext.value is None and ext.text is not None and (bad := malformed_scientific(ext.text)):
        return CheckResult("unparseable", _shorten(ext.text), None, "none",
                           f"{_shorten(bad, 60)} is not a number: an exponent is a whole number",
                           ext.source, gold.shown)
    if gold.exact is not None and ext.value is None and ext.text is not None \
            and beyond_exponent(ext.text):
        return CheckResult("wrong", _shorten(ext.text), None, "exact",
                           f"{_shorten(ext.text, 60)} has an exponent over {MAX_EXPONENT}: "
                           f"it is not computed, and no gold is that far from 1", ext.source,
                           gold.shown)
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
    if gold.exact is not None and ext.text is not None and PROSE.fullmatch(ext.text):
        return CheckResult("unparseable", _shorten(ext.text), None, "none",
                           "the answer is words, not a number", ext.source, gold.shown)
    return None


def symbolic_job(ext: Extraction, response: str | None, gold: Gold) -> dict[str, Any]:
    if ext.found and (ext.source != "last-number" or gold.exact is not None):
        pred = scientific_for_math_verify(ext.text or "")
        wrap = True
    else:
        # symbolic gold and no box/marker: let math-verify find the expression itself
        pred = (response or "")[-MAX_SYMBOLIC_CHARS:]
        wrap = False
    return {"pred": pred[:MAX_SYMBOLIC_CHARS], "wrap": wrap,
            "gold": scientific_for_math_verify(gold.text[:MAX_SYMBOLIC_CHARS]) if gold.exact is None
            else fraction_to_str(gold.exact.value)}


def from_job(ext: Extraction, gold: Gold, job: dict[str, Any], res: JobResult) -> CheckResult:
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
