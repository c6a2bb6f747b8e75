"""Seed import: read a dataset file, normalise each record into a seed, apply SMART's
seed filters and store everything in the ``seeds`` table.

Formats
-------
``gsm8k``, ``mawps``, ``aqua``, ``math500``, ``aime2024`` are the public files described
in ``shared/datasets/SOURCES.md``; ``jsonl`` (JSON Lines, or one JSON array) and ``csv``
(``.tsv`` is read tab-separated; ``.gz`` files are decompressed) are generic files whose
columns default to ``question``, ``answer``, ``solution``, ``equation``, ``id``, ``level``
and ``steps`` (only question and answer are required). ``mapping={"question": "problem"}``
reads a field from another column. ``auto`` detects the format from the first record's
keys (and the file name).

Per seed
--------
* ``orig_id``: the dataset's own id (MATH ``unique_id``, AIME ``id``, MAWPS ``idx``, a
  generic ``id`` column), otherwise the 1-based line number (JSON Lines) or record number
  (CSV, JSON array), so importing the same file again finds the same seeds.
* ``level`` (SMART): easy = MAWPS/ASDiv, medium = GSM8K/SVAMP, hard = AQuA/MATH/AIME. For
  generic files: a per-row ``level`` column, else ``level=``, else the SMART level of a
  known dataset name in the source name (``svamp_test`` -> medium). ``level=`` also
  overrides the SMART level of a known format. MATH's 1-5 level goes to ``meta.math_level``.
* ``steps`` (reasoning steps, NULL where not derivable; the rule used is kept in
  ``meta.steps_rule``):
    - GSM8K: the larger of the number of ``<<...>>`` calculator annotations and the number
      of solution lines that calculate (an ``=``, an operator between numbers, "plus"...);
      GSM8K leaves many calculations unannotated, so counting annotations alone would call
      65 GSM8K test problems single-step (this rule: 3). No calculation at all: line count.
    - MAWPS: an equation field if present (operators counted); else by subset:
      ``singleop`` = 1, ``multiarith`` = 2 (two-operation problems by construction);
      ``addsub``/``singleeq``: 1 when the question holds exactly two numbers (and no
      number words) and one operation on them gives the answer; otherwise NULL.
    - generic: a ``steps`` column; else the operators of the ``equation`` column; else
      the GSM8K rule when the solution has ``<<...>>`` annotations; else NULL.
    - AQuA, MATH, AIME: NULL (free-form rationales; step counts are not derivable).
* filters (:mod:`qcstation.core.ingest.filters`): a seed failing one is stored with
  ``status='filtered'``, ``filter_reason`` (first failing filter) and ``filter_detail``;
  ``meta.filters`` lists every failing filter.
* duplicates: a question whose normalised text (see :func:`normalize_question`) was
  already stored for the same source is stored with ``status='duplicate'``,
  ``filter_reason='duplicate'`` and ``duplicate_of`` = the first seed's id.
* re-import: a record whose (source, orig_id) is already stored with the same question is
  counted in ``skipped_existing``; with a different question it is an error (nothing is
  overwritten; import the file under another ``source``).

Writes go in batches, one transaction per batch (``executemany``); each import adds an
``import_runs`` row and a ``seeds.imported`` event. A bad record is reported with file
and line and skipped; the rest of the file still imports.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import itertools
import json
import os
import re
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from db import Store, current_actor, now
from qcstation.core.verify.answers import fraction_to_str, parse_number
from qcstation.core.ingest.filters import check_seed
from qcstation.common.errors import ImportFormatError

__all__ = [
    "FORMATS",
    "KNOWN_FORMATS",
    "GENERIC_FIELDS",
    "LEVELS",
    "SMART_LEVELS",
    "DATA_DIR",
    "ImportIssue",
    "ImportReport",
    "import_file",
    "detect_format",
    "default_source",
    "normalize_question",
    "content_hash",
    "count_equation_ops",
    "parse_mapping",
    "shipped_samples",
]

KNOWN_FORMATS: tuple[str, ...] = ("gsm8k", "mawps", "aqua", "math500", "aime2024")
FORMATS: tuple[str, ...] = KNOWN_FORMATS + ("jsonl", "csv")
LEVELS: tuple[str, ...] = ("easy", "medium", "hard")
GENERIC_FIELDS: tuple[str, ...] = ("question", "answer", "solution", "equation", "id", "level", "steps")
REQUIRED_FIELDS: tuple[str, ...] = ("question", "answer")
# SMART appendix A.2: the difficulty level of each seed dataset
SMART_LEVELS: dict[str, str] = {
    "mawps": "easy", "asdiv": "easy",
    "gsm8k": "medium", "svamp": "medium",
    "aqua": "hard", "math": "hard", "math500": "hard", "aime": "hard", "aime2024": "hard",
}
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
BATCH_SIZE = 2000
MAX_STORED_ERRORS = 1000

# Limits on untrusted seed files (a record beyond one is reported as FILE:LINE and the
# rest imports; a file beyond MAX_ARRAY_BYTES is refused as a whole).
MAX_LINE_BYTES = 1_000_000  #: one JSON Lines record / one CSV line
MAX_ARRAY_BYTES = 256_000_000  #: a single JSON array is read whole: use JSON Lines above this
MAX_QUESTION_CHARS = 20_000
MAX_SOLUTION_CHARS = 100_000
MAX_ANSWER_CHARS = 1_000
MAX_ANSWER_DIGITS = 200  #: digits in the gold answer (exact arithmetic stays cheap)
MAX_JSON_DEPTH = 100
_SQL_CHUNK = 500  # parameters per IN (...) query

_SAMPLES: tuple[tuple[str, str], ...] = (
    ("gsm8k_sample.jsonl", "gsm8k"),
    ("mawps_sample.jsonl", "mawps"),
    ("aqua_sample.jsonl", "aqua"),
    ("math500_sample.jsonl", "math500"),
    ("aime2024_sample.jsonl", "aime2024"),
)


# --- results ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ImportIssue:
    """A record that could not be imported (``line`` is None for file-level problems)."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line is not None else f"{self.path}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "message": self.message}


@dataclass
class ImportReport:
    """What one import did. ``added`` counts every new row stored (active, filtered and
    duplicate seeds alike); ``filtered`` maps a filter reason to the number of new seeds
    it excluded (first reason per seed); ``duplicates`` is included in ``added``."""

    source: str
    fmt: str
    path: str
    added: int = 0
    skipped_existing: int = 0
    filtered: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    errors: list[ImportIssue] = field(default_factory=list)
    run_id: int | None = None
    records: int = 0
    seconds: float = 0.0

    @property
    def filtered_total(self) -> int:
        return sum(self.filtered.values())

    @property
    def active(self) -> int:
        return self.added - self.filtered_total - self.duplicates

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "format": self.fmt, "path": self.path, "run_id": self.run_id,
            "records": self.records, "added": self.added, "active": self.active,
            "skipped_existing": self.skipped_existing, "filtered": dict(self.filtered),
            "filtered_total": self.filtered_total, "duplicates": self.duplicates,
            "errors": [e.to_dict() for e in self.errors], "seconds": round(self.seconds, 3),
        }


# --- text helpers ----------------------------------------------------------------------
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"',
                         "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})
_SPACE_BEFORE = re.compile(r" (?=[.,?!;:%)\]}]|'s\b|'\s|n't\b)")
_SPACE_AFTER = re.compile(r"(?<=[($\[{]) ")


def normalize_question(text: str) -> str:
    """Text used for duplicate detection: Unicode NFKC, straight quotes, case-folded,
    whitespace collapsed, no space before punctuation ("Sara 's ... games ." == "Sara's
    ... games.")."""
    t = text if text.isascii() else unicodedata.normalize("NFKC", text).translate(_QUOTES)
    t = " ".join(t.casefold().split())
    t = _SPACE_BEFORE.sub("", t)
    return _SPACE_AFTER.sub("", t)


def content_hash(question: str) -> str:
    """sha256 (hex) of the normalised question text."""
    return hashlib.sha256(normalize_question(question).encode("utf-8")).hexdigest()


_EQ_OPS = frozenset("+-*/×÷^")


def count_equation_ops(equation: str) -> int | None:
    """Number of arithmetic operations in an equation string (several equations may be
    separated by ``;`` or newlines). A side that is just a variable or a number (``x =``,
    ``= 14``) is not counted; unary minus is not an operation. ``None`` when nothing
    countable is found."""
    total = 0
    for eq in re.split(r"[;\n]", equation):
        for side in eq.split("="):
            s = side.strip()
            if not s or re.fullmatch(r"[A-Za-z_]\w*|[-+]?\d+(?:\.\d+)?", s):
                continue
            prev = ""
            for ch in s.replace("**", "^"):
                if ch.isspace():
                    continue
                if ch in _EQ_OPS:
                    unary = ch in "+-" and (prev == "" or prev == "(" or prev in _EQ_OPS)
                    if not unary:
                        total += 1
                prev = ch
    return total or None


_NUMERAL = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?|(?<![\w.])\.\d+")
_NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|thousand|million|dozens?|half|halves|twice|thrice|double|triple|"
    r"quarters?|thirds?|fourths?|fifths?|tenths?|pair|couple|single)\b",
    re.IGNORECASE,
)


def _one_op_on_two_numbers(question: str, target: Fraction) -> str | None:
    """If the question has exactly two numerals (no number words) and one operation on them
    gives ``target``, return that operation as text."""
    if _NUMBER_WORDS.search(question):
        return None
    nums = _NUMERAL.findall(question)
    if len(nums) != 2:
        return None
    try:
        a, b = (Fraction(n.replace(",", "")) for n in nums)
    except (ValueError, ZeroDivisionError):
        return None
    sa, sb = nums
    candidates = [(a + b, f"{sa} + {sb}"), (a - b, f"{sa} - {sb}"), (b - a, f"{sb} - {sa}"),
                  (a * b, f"{sa} * {sb}")]
    if b:
        candidates.append((a / b, f"{sa} / {sb}"))
    if a:
        candidates.append((b / a, f"{sb} / {sa}"))
    for value, text in candidates:
        if value == target:
            return text
    return None


_CALC = re.compile(r"<<([^<>]*)>>")
# a solution line that calculates: an '=', an operator between numbers / one-letter
# variables, or an operation written in words ("83 plus 91 equals 174")
_CALC_LINE = re.compile(
    r"=|(?:\d|\b[a-zA-Z]\b|\))[\d,.%)]*\s*[-+*/×x÷]\s*\$?\(?(?:\d|\b[a-zA-Z]\b)"
    r"|\b(?:plus|minus|times|divided\s+by|multiplied\s+by|equals)\b",
    re.IGNORECASE,
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


_TEXT_OPERATOR = re.compile(r"(?<=[\d)\s}])[+*/×÷^](?=[\s\d($\\{])|(?<=[\d)])\s*[-−]\s*(?=[\d($])")


def _operations(expr_text: str) -> int | None:
    """Arithmetic operations in one written computation (``3*(16.50+22.50+42)`` is 3);
    None when it does not parse. A percent sign is not an operation."""
    from qcstation.core.construct.rules import BinOp, ExpressionError, Neg, Num, parse_expression

    if len(expr_text) > 500:
        return None
    try:
        expr = parse_expression(expr_text.replace(",", ""))
    except (ExpressionError, RecursionError, ValueError):
        return None

    def count(e: object) -> int:
        if isinstance(e, BinOp):
            made_up = isinstance(e.right, Num) and not e.right.text  # the /100 of a percent
            return (0 if made_up else 1) + count(e.left) + count(e.right)
        if isinstance(e, Neg):
            return count(e.operand)
        return 0

    return count(expr)


def _steps_from_solution(solution: str, *, require_annotations: bool) -> tuple[int | None, str | None, list[str]]:
    """Reasoning steps of a worked solution, counted as arithmetic operations (SMART's
    single-step filter: ``<<3*(16.50+22.50+42)=...>>`` is three operations, not one
    line): the operations of the ``<<...>>`` calculator annotations, else of the
    computations written as ``expression = number``; at least the number of lines that
    calculate (GSM8K leaves some calculations unannotated); with none of these, the
    number of non-empty lines. Returns (steps, rule, annotations)."""
    from qcstation.core.construct.rules import find_inline_computations

    calcs = _CALC.findall(solution)
    if require_annotations and not calcs:
        return None, None, []
    lines = [ln for ln in solution.splitlines() if ln.strip()]
    calc_lines = sum(1 for ln in lines if "<<" in ln or _CALC_LINE.search(ln))
    ops = 0
    counted = "calculator annotation"
    exprs = [c.split("=", 1)[0] for c in calcs]
    if not exprs:
        counted = "written computation"
        exprs = [c.expr_text for c in find_inline_computations(_CALC.sub(" ", solution[:100_000]))]
        exprs = [re.sub(r"[$€£]|[A-Za-z][A-Za-z’'\-]*", " ", e) for e in exprs]
    for e in exprs:
        n = _operations(e)
        ops += n if n is not None else 1
    if not calcs and exprs:
        # free text: computations chained or written in words parse only in part, so
        # every operator written between numbers counts too
        ops = max(ops, len(_TEXT_OPERATOR.findall(_CALC.sub(" ", solution[:100_000]))))
    steps = max(ops, calc_lines) if exprs else calc_lines
    if steps:
        shown = ", ".join(f"<<{c}>>" for c in calcs[:3]) + (", …" if len(calcs) > 3 else "")
        rule = (f"{_plural(ops, 'operation')} in {_plural(len(exprs), counted)}, "
                f"{_plural(calc_lines, 'calculating solution line')}")
        return steps, rule + (f": {shown}" if calcs else ""), calcs
    if lines:
        return len(lines), f"{_plural(len(lines), 'solution line')}, no calculations found", calcs
    return None, None, calcs


_PLAIN_INT = re.compile(r"-?\d{1,18}")


def _exact_value(answer_text: str) -> str | None:
    """``fraction_to_str(parse_number(answer_text).value)``, or None when not one number
    (plain integers such as AIME's "025" take a fast path with the same result)."""
    if _PLAIN_INT.fullmatch(answer_text):
        return str(int(answer_text))
    pn = parse_number(answer_text)
    return fraction_to_str(pn.value) if pn is not None else None


def _boxed(text: str) -> str | None:
    idx = text.rfind("\\boxed{")
    if idx == -1:
        return None
    start = idx + len("\\boxed{")
    depth, j = 1, start
    while j < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        j += 1
    return text[start:j - 1].strip() if depth == 0 else None


# --- records ---------------------------------------------------------------------------
class RecordError(Exception):
    """A record that cannot become a seed; the message names what is wrong."""


@dataclass
class _Raw:
    line: int                    # line where the record starts (1-based)
    number: int                  # 1-based record number (array index / CSV data row / JSONL line)
    data: dict[str, Any] | None
    error: str | None = None


@dataclass
class _Draft:
    orig_id: str
    question: str
    answer_text: str
    solution: str | None = None
    equation: str | None = None
    level: str | None = None
    steps: int | None = None
    steps_rule: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def _check_sizes(d: _Draft) -> None:
    """A record beyond a size limit is not importable (reported with its FILE:LINE)."""
    for what, value, limit in (("question", d.question, MAX_QUESTION_CHARS),
                               ("solution", d.solution, MAX_SOLUTION_CHARS),
                               ("equation", d.equation, MAX_SOLUTION_CHARS),
                               ("answer", d.answer_text, MAX_ANSWER_CHARS)):
        if value is not None and len(value) > limit:
            raise RecordError(f"the {what} has {len(value):,} characters (limit {limit:,}); "
                              "not importable")
    digits = sum(c.isdigit() for c in d.answer_text)
    if digits > MAX_ANSWER_DIGITS:
        raise RecordError(f"the answer has {digits:,} digits (limit {MAX_ANSWER_DIGITS}); not importable")


@dataclass
class _Counts:
    """What one committed batch added to an import report."""

    added: int = 0
    skipped_existing: int = 0
    duplicates: int = 0
    filtered: dict[str, int] = field(default_factory=dict)


def _type_name(v: Any) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number", str: "a string"}.get(type(v), type(v).__name__)


def _get(rec: dict[str, Any], key: str, *, required: bool = True, what: str | None = None) -> Any:
    if key not in rec or rec[key] is None:
        if required:
            raise RecordError(f"missing required field {key!r}" + (f" ({what})" if what else ""))
        return None
    return rec[key]


def _text(rec: dict[str, Any], key: str, *, required: bool = True, what: str | None = None) -> str | None:
    v = _get(rec, key, required=required, what=what)
    if v is None:
        return None
    if not isinstance(v, str):
        raise RecordError(f"field {key!r} must be a string, got {_type_name(v)}")
    return v


def _question(rec: dict[str, Any], key: str) -> str:
    q = _text(rec, key, what="the question")
    assert q is not None
    q = q.strip()
    if not q:
        raise RecordError(f"empty question (field {key!r})")
    return q


def _answer_text(rec: dict[str, Any], key: str) -> str:
    v = _get(rec, key, what="the answer")
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise RecordError(f"field {key!r} must be a string or a number, got {_type_name(v)}")
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise RecordError(f"field {key!r} is not a finite number: {v}")
        text = str(int(v)) if v.is_integer() else repr(v)
    else:
        text = str(v).strip()
    if not text:
        raise RecordError(f"empty answer (field {key!r})")
    return text


def _opt_text(rec: dict[str, Any], key: str) -> str | None:
    v = _text(rec, key, required=False)
    return v if v is not None and v.strip() else None


# --- per-format converters -------------------------------------------------------------
@dataclass
class _Ctx:
    mapping: dict[str, str]      # seed field -> column name
    used_columns: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.used_columns = frozenset(self.mapping.values())


def _conv_gsm8k(rec: dict[str, Any], raw: _Raw, ctx: _Ctx) -> _Draft:
    q = _question(rec, "question")
    full = _text(rec, "answer", what="worked solution ending in '#### <answer>'")
    assert full is not None
    if "####" not in full:
        raise RecordError("field 'answer' has no '#### <final answer>' line")
    sol, _, final = full.rpartition("####")
    final, sol = final.strip(), sol.strip()
    if not final:
        raise RecordError("empty final answer after '####'")
    steps, rule, calcs = _steps_from_solution(sol, require_annotations=False)
    # the record is a worked solution ending in '#### n' (split off above): rules use
    # this, not the source name the user chose
    return _Draft(str(raw.number), q, final, solution=sol or None,
                  equation="; ".join(calcs) or None, steps=steps, steps_rule=rule,
                  meta={"solution_format": "gsm8k"})


_MAWPS_SUBSET_STEPS = {"singleop": (1, "MAWPS subset singleop (one operation)"),
                       "multiarith": (2, "MAWPS subset multiarith (two operations by construction)")}


def _conv_mawps(rec: dict[str, Any], raw: _Raw, ctx: _Ctx) -> _Draft:
    q = _question(rec, "input")
    answer = _answer_text(rec, "target")
    idx = rec.get("idx")
    if idx is not None and (isinstance(idx, bool) or not isinstance(idx, (int, str))):
        raise RecordError(f"field 'idx' must be an integer, got {_type_name(idx)}")
    orig_id = str(idx).strip() if idx is not None and str(idx).strip() else str(raw.number)
    subset = rec.get("type")
    if subset is not None and not isinstance(subset, str):
        raise RecordError(f"field 'type' must be a string, got {_type_name(subset)}")
    equation = None
    for key in ("equation", "lEquations", "Equation"):
        v = rec.get(key)
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            v = "; ".join(v)
        if isinstance(v, str) and v.strip():
            equation = v.strip()
            break
    steps: int | None = None
    rule: str | None = None
    if equation and (n := count_equation_ops(equation)):
        steps, rule = n, f"{n} operation{'s' if n != 1 else ''} in equation {equation!r}"
    elif subset in _MAWPS_SUBSET_STEPS:
        steps, rule = _MAWPS_SUBSET_STEPS[subset]
    else:
        target = parse_number(answer)
        if target is not None:
            op = _one_op_on_two_numbers(q, target.value)
            if op:
                steps, rule = 1, f"the question's only two numbers give the answer in one operation: {op} = {answer}"
    meta: dict[str, Any] = {}
    if subset is not None:
        meta["type"] = subset
    return _Draft(orig_id, q, answer, equation=equation, steps=steps, steps_rule=rule, meta=meta)


_OPTION = re.compile(r"^\s*\(?([A-Ea-e])\s*\)\s*")


def _conv_aqua(rec: dict[str, Any], raw: _Raw, ctx: _Ctx) -> _Draft:
    q = _question(rec, "question")
    options = _get(rec, "options", what="list of answer options")
    if not isinstance(options, list) or not options or not all(isinstance(o, str) for o in options):
        raise RecordError("field 'options' must be a non-empty list of strings like 'A)36 km/hr'")
    correct = _text(rec, "correct", what="letter of the correct option")
    assert correct is not None
    letter = correct.strip().upper()
    texts: dict[str, str] = {}
    for opt in options:
        m = _OPTION.match(opt)
        if not m:
            raise RecordError(f"option {opt!r} does not start with a letter like 'A)'")
        body = opt[m.end():]
        # tolerate a repeated prefix ("A)A)59")
        m2 = _OPTION.match(body)
        if m2 and m2.group(1).upper() == m.group(1).upper():
            body = body[m2.end():]
        texts.setdefault(m.group(1).upper(), body.strip())
    if letter not in texts:
        raise RecordError(f"correct option {correct!r} is not among the options {sorted(texts)}")
    answer = texts[letter]
    if not answer:
        raise RecordError(f"correct option {letter} has no text")
    return _Draft(str(raw.number), q, answer, solution=_opt_text(rec, "rationale"),
                  meta={"options": options, "correct": letter})


def _conv_math500(rec: dict[str, Any], raw: _Raw, ctx: _Ctx) -> _Draft:
    q = _question(rec, "problem")
    solution = _opt_text(rec, "solution")
    if rec.get("answer") is None and solution and (boxed := _boxed(solution)):
        answer = boxed
    else:
        answer = _answer_text(rec, "answer")
    uid = rec.get("unique_id")
    if uid is not None and not isinstance(uid, str):
        raise RecordError(f"field 'unique_id' must be a string, got {_type_name(uid)}")
    meta: dict[str, Any] = {}
    if isinstance(rec.get("subject"), str):
        meta["subject"] = rec["subject"]
    lvl = rec.get("level")
    if lvl is not None:
        if isinstance(lvl, str) and (m := re.fullmatch(r"\s*(?:level\s*)?(\d)\s*", lvl, re.IGNORECASE)):
            lvl = int(m.group(1))
        if isinstance(lvl, bool) or not isinstance(lvl, int):
            raise RecordError(f"field 'level' must be the MATH level 1-5, got {rec['level']!r}")
        meta["math_level"] = lvl
    return _Draft(uid.strip() if uid and uid.strip() else str(raw.number), q, answer,
                  solution=solution, meta=meta)


_AIME_URL = re.compile(r"(\d{4})_AIME_(I{1,2})_Problems/Problem_(\d+)")


def _conv_aime2024(rec: dict[str, Any], raw: _Raw, ctx: _Ctx) -> _Draft:
    q = _question(rec, "problem" if "problem" in rec else "question")
    answer = _answer_text(rec, "answer")
    rid = rec.get("id")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (int, str))):
        raise RecordError(f"field 'id' must be an integer or string, got {_type_name(rid)}")
    meta: dict[str, Any] = {}
    url = rec.get("url")
    if isinstance(url, str) and url:
        meta["url"] = url
        m = _AIME_URL.search(url)
        if m:
            meta["contest"] = f"{m.group(1)} AIME {m.group(2)}"
            meta["problem"] = int(m.group(3))
    return _Draft(str(rid).strip() if rid is not None and str(rid).strip() else str(raw.number), q, answer,
                  solution=_opt_text(rec, "solution"), meta=meta)


def _conv_generic(rec: dict[str, Any], raw: _Raw, ctx: _Ctx) -> _Draft:
    col = ctx.mapping
    q = _question(rec, col["question"])
    answer = _answer_text(rec, col["answer"])
    solution = _opt_text(rec, col["solution"])
    if "####" in answer and solution is None:
        # a GSM8K-style answer ("worked solution ... #### 18") in a generic file
        sol, _, final = answer.rpartition("####")
        if final.strip():
            answer, solution = final.strip(), sol.strip() or None
    equation = _opt_text(rec, col["equation"])
    rid = rec.get(col["id"])
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (int, str))):
        raise RecordError(f"field {col['id']!r} (id) must be a string or integer, got {_type_name(rid)}")
    orig_id = str(rid).strip() if rid is not None and str(rid).strip() else str(raw.number)
    level = None
    lv = rec.get(col["level"])
    if lv is not None and str(lv).strip():
        if not isinstance(lv, str) or lv.strip().lower() not in LEVELS:
            raise RecordError(f"field {col['level']!r} (level) must be easy, medium or hard, got {lv!r}")
        level = lv.strip().lower()
    steps: int | None = None
    rule: str | None = None
    sv = rec.get(col["steps"])
    if sv is not None and str(sv).strip():
        try:
            if isinstance(sv, bool) or isinstance(sv, float) and not sv.is_integer():
                raise ValueError
            steps = int(str(sv).strip()) if not isinstance(sv, (int, float)) else int(sv)
            if steps < 0:
                raise ValueError
        except ValueError:
            raise RecordError(f"field {col['steps']!r} (steps) must be a whole number, got {sv!r}") from None
        rule = f"given in column {col['steps']!r}"
    elif equation and (n := count_equation_ops(equation)):
        steps, rule = n, f"{n} operation{'s' if n != 1 else ''} in equation {equation!r}"
    elif solution:
        steps, rule, _ = _steps_from_solution(solution, require_annotations=True)
    used = ctx.used_columns
    extra = {k: v for k, v in rec.items() if k not in used and v is not None and v != ""}
    meta: dict[str, Any] = {"extra": extra} if extra else {}
    return _Draft(orig_id, q, answer, solution=solution, equation=equation, level=level,
                  steps=steps, steps_rule=rule, meta=meta)


_CONVERTERS: dict[str, Callable[[dict[str, Any], _Raw, _Ctx], _Draft]] = {
    "gsm8k": _conv_gsm8k, "mawps": _conv_mawps, "aqua": _conv_aqua,
    "math500": _conv_math500, "aime2024": _conv_aime2024,
    "jsonl": _conv_generic, "csv": _conv_generic,
}


# --- readers ---------------------------------------------------------------------------
def _check_readable(path: Path) -> None:
    """Refuse what cannot be imported safely before reading any record: a missing file, a
    folder, a FIFO or device (read more than once here, so data would be lost, or endless
    like /dev/zero), and text that is not UTF-8 (UTF-16/32 are named)."""
    import stat as _stat

    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ImportFormatError(f"cannot read {path}: no such file", title="File not found") from None
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror or exc}",
                                title="File not readable") from None
    if _stat.S_ISDIR(st.st_mode):
        raise ImportFormatError(f"cannot read {path}: it is a directory, not a data file",
                                title="Not a file")
    if not _stat.S_ISREG(st.st_mode):
        kind = "a FIFO (named pipe)" if _stat.S_ISFIFO(st.st_mode) else "a device or socket"
        raise ImportFormatError(
            f"cannot import {path}: it is {kind}, not a regular file; save the data to a file "
            "and import that (nothing was read from it)", title="Not a file")
    try:
        with _open_binary(path) as fh:
            head = fh.read(4096)
    except (OSError, EOFError) as exc:
        raise ImportFormatError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}",
                                title="File not readable") from exc
    encoding = _foreign_encoding(head)
    if encoding:
        raise ImportFormatError(
            f"{path} is {encoding} text; qcstation reads UTF-8 (with or without BOM): convert it, "
            f"e.g. `iconv -f {encoding.split()[0]} -t UTF-8 {path} > converted{_plain_suffix(path) or '.txt'}`",
            title="Not UTF-8")


def _foreign_encoding(head: bytes) -> str | None:
    """Name a UTF-16/UTF-32 encoding from its BOM or from its NUL-byte pattern."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith(b"\xff\xfe"):
        return "UTF-16LE"
    if head.startswith(b"\xfe\xff"):
        return "UTF-16BE"
    sample = head[:512]
    if len(sample) >= 8 and sample.count(0) >= len(sample) // 3:
        if sample[1::2].count(0) > len(sample) // 4 and sample[0::2].count(0) == 0:
            return "UTF-16LE"
        if sample[0::2].count(0) > len(sample) // 4 and sample[1::2].count(0) == 0:
            return "UTF-16BE"
        return "binary (not text)"
    return None


class _LineTooLong(Exception):
    pass


def _lines(fh: io.BufferedIOBase, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | _LineTooLong]:
    """Lines of a binary stream ending in ``\\n``, ``\\r\\n`` or a lone ``\\r`` (each yielded
    with ``\\n``), read in bounded pieces: a line over ``limit`` bytes is skipped without
    being held in memory and yielded as a :class:`_LineTooLong` marker."""
    buf = b""
    skipping = False
    while True:
        chunk = fh.read(1 << 16)
        if not chunk:
            break
        buf += chunk
        start = 0
        while True:
            nl = _next_break(buf, start)
            if nl is None:
                break
            end, nxt = nl
            if nxt is None:  # a '\\r' at the end of the buffer: wait for the next byte
                break
            if skipping:
                skipping = False
            else:
                yield buf[start:end] + b"\n"
            start = nxt
        buf = buf[start:]
        if len(buf) > limit:
            if not skipping:
                yield _LineTooLong()
            skipping = True
            buf = buf[-1:] if buf.endswith(b"\r") else b""
    if buf:
        if buf.endswith(b"\r"):
            buf = buf[:-1]
        if not skipping and buf:
            yield buf + b"\n"


def _next_break(buf: bytes, start: int) -> tuple[int, int | None] | None:
    """(end of the line, start of the next) for the first line break at or after
    ``start``; the next start is None when a final ``\\r`` might be half of ``\\r\\n``."""
    n = buf.find(b"\n", start)
    r = buf.find(b"\r", start, n if n != -1 else len(buf))
    if r != -1:
        if r + 1 == len(buf):
            return r, None
        return r, r + 2 if buf[r + 1:r + 2] == b"\n" else r + 1
    if n != -1:
        return n, n + 1
    return None


def _open_binary(path: Path) -> io.BufferedIOBase:
    if path.suffix.lower() == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def _plain_suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _iter_json(path: Path) -> Iterator[_Raw]:
    """JSON Lines (one object per line; blank lines skipped) or a single JSON array."""
    with _open_binary(path) as fh:
        head = fh.read(1 << 16)
        stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if stripped.startswith(b"["):
            data = head + fh.read(MAX_ARRAY_BYTES + 1 - len(head))
            if len(data) > MAX_ARRAY_BYTES:
                raise ImportFormatError(
                    f"{path}: a JSON array over {MAX_ARRAY_BYTES // 1_000_000} MB is not read whole; "
                    "write it as JSON Lines (one object per line)", title="File too large")
            try:
                items = json.loads(data.decode("utf-8-sig"))
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                raise ImportFormatError(f"{path}: not a valid JSON array: {_short(exc)}") from None
            if not isinstance(items, list):  # pragma: no cover - guarded by '['
                raise ImportFormatError(f"{path}: expected a JSON array of objects")
            for i, item in enumerate(items, 1):
                if isinstance(item, dict):
                    yield _Raw(i, i, item)
                else:
                    yield _Raw(i, i, None, f"record {i}: expected a JSON object, got {_type_name(item)}")
            return
        lineno = 0
        for line in _lines(_Prefixed(head, fh)):
            lineno += 1
            if isinstance(line, _LineTooLong):
                yield _Raw(lineno, lineno, None,
                           f"line is longer than {MAX_LINE_BYTES // 1_000_000} MB; not imported")
                continue
            if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except UnicodeDecodeError:
                yield _Raw(lineno, lineno, None, "line is not valid UTF-8")
                continue
            except RecursionError:
                yield _Raw(lineno, lineno, None, f"JSON nested too deeply (limit {MAX_JSON_DEPTH})")
                continue
            except ValueError as exc:
                if isinstance(exc, json.JSONDecodeError) and exc.lineno > 1:
                    try:  # error at the line end: report the column within the line
                        json.loads(line.rstrip(b"\r\n"))
                    except json.JSONDecodeError as exc2:
                        exc = exc2
                if isinstance(exc, json.JSONDecodeError):
                    msg = f"invalid JSON: {exc.msg}: column {exc.colno}"
                else:
                    msg = f"invalid JSON: {exc}"
                yield _Raw(lineno, lineno, None, msg)
                continue
            if not isinstance(obj, dict):
                yield _Raw(lineno, lineno, None, f"expected a JSON object, got {_type_name(obj)}")
                continue
            if _json_depth(obj) > MAX_JSON_DEPTH:
                yield _Raw(lineno, lineno, None, f"JSON nested too deeply (limit {MAX_JSON_DEPTH})")
                continue
            yield _Raw(lineno, lineno, obj)


class _Prefixed(io.RawIOBase):
    """``head`` (already read) followed by the rest of ``fh``."""

    def __init__(self, head: bytes, fh: Any) -> None:
        self._head, self._fh = head, fh

    def read(self, n: int = -1) -> bytes:  # type: ignore[override]
        if self._head:
            out, self._head = self._head, b""
            return out
        return bytes(self._fh.read(n))


def _json_depth(obj: Any, limit: int = MAX_JSON_DEPTH) -> int:
    depth, level = 0, [obj]
    while level and depth <= limit:
        depth += 1
        nxt: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                nxt.extend(v for v in item.values() if isinstance(v, (dict, list)))
            elif isinstance(item, list):
                nxt.extend(v for v in item if isinstance(v, (dict, list)))
        level = nxt
    return depth


def _short(exc: BaseException, limit: int = 200) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _iter_csv(path: Path) -> Iterator[_Raw]:
    delimiter = "\t" if _plain_suffix(path) == ".tsv" else ","
    bad_utf8: set[int] = set()
    too_long: set[int] = set()
    counter = [0]

    def text_lines() -> Iterator[str]:
        with _open_binary(path) as fh:
            for raw in _lines(fh):  # \n, \r\n and lone \r line ends; bounded length
                counter[0] += 1
                if isinstance(raw, _LineTooLong):
                    too_long.add(counter[0])
                    yield "\n"
                    continue
                if counter[0] == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError:
                    bad_utf8.add(counter[0])
                    yield raw.decode("utf-8", errors="replace")

    reader = csv.reader(text_lines(), delimiter=delimiter)
    header: list[str] | None = None
    number = 0
    last_line = 0
    while True:
        start = last_line + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            last_line = reader.line_num
            number += 1
            yield _Raw(start, number, None, f"bad CSV row: {exc}")
            continue
        last_line = reader.line_num
        if any(n in too_long for n in range(start, last_line + 1)):
            number += 1
            yield _Raw(start, number, None,
                       f"line is longer than {MAX_LINE_BYTES // 1_000_000} MB; not imported")
            continue
        if header is None:
            if not row or not any(c.strip() for c in row):
                continue
            header = [c.strip() for c in row]
            yield _Raw(start, 0, {"__header__": header})
            continue
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        number += 1
        span = f" (record spans lines {start}-{last_line}; unbalanced quote?)" if last_line - start > 5 else ""
        if any(n in bad_utf8 for n in range(start, last_line + 1)):
            yield _Raw(start, number, None, "row is not valid UTF-8")
        elif len(row) != len(header):
            yield _Raw(start, number, None,
                       f"bad CSV row: expected {len(header)} fields, got {len(row)}{span}")
        else:
            yield _Raw(start, number, dict(zip(header, row)))


# --- detection -------------------------------------------------------------------------
def _first_json_record(path: Path, max_lines: int = 50) -> tuple[dict[str, Any] | None, bool]:
    """(first parseable object, file has any non-blank content)."""
    seen = False
    try:
        for i, raw in enumerate(_iter_json(path)):
            seen = True
            if raw.data is not None:
                return raw.data, True
            if i >= max_lines:
                break
    except ImportFormatError:
        return None, True
    return None, seen


def _format_from_keys(rec: dict[str, Any], hint: str) -> str:
    keys = set(rec)
    if {"input", "target"} <= keys:
        return "mawps"
    if {"question", "options", "correct"} <= keys:
        return "aqua"
    if "problem" in keys and ("unique_id" in keys or {"subject", "level"} <= keys):
        return "math500"
    if "problem" in keys and "answer" in keys and (
            "aime" in str(rec.get("url", "")).lower() or "aime" in hint):
        return "aime2024"
    if {"question", "answer"} <= keys and isinstance(rec["answer"], str) and "####" in rec["answer"]:
        return "gsm8k"
    return "jsonl"


def detect_format(path: Path | str) -> str:
    """Format of a seed file: a known dataset from its first record's keys (and file name),
    else generic ``csv`` (``.csv``/``.tsv``) or ``jsonl``. Raises ImportFormatError if the
    file cannot be read or holds no record."""
    p = Path(path)
    _check_readable(p)
    suffix = _plain_suffix(p)
    if suffix in (".csv", ".tsv"):
        return "csv"
    hint = " ".join(part.lower() for part in p.parts[-2:])
    try:
        first, nonempty = _first_json_record(p)
    except (OSError, EOFError) as exc:  # e.g. a .gz file that is not gzip
        raise ImportFormatError(f"cannot read {p}: {exc}", title="File not readable") from exc
    if first is None:
        if not nonempty:
            raise ImportFormatError(f"{p} is empty: nothing to import", title="Empty file")
        raise ImportFormatError(
            f"cannot detect the format of {p}: no JSON record found near the start; "
            f"pass --format ({', '.join(FORMATS)})", title="Unknown format")
    return _format_from_keys(first, hint)


def default_source(fmt: str, path: Path | str) -> str:
    """Source name when none is given: the dataset name, or the file stem for generic files."""
    if fmt in KNOWN_FORMATS:
        return fmt
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".json", ".ndjson", ".csv", ".tsv", ".txt"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or "seeds"


def _level_for_source(source: str) -> str | None:
    for token in re.split(r"[^a-z0-9]+", source.lower()):
        if token in SMART_LEVELS:
            return SMART_LEVELS[token]
    return None


def parse_mapping(pairs: list[str]) -> dict[str, str]:
    """``["question=problem", "answer=final"]`` -> ``{"question": "problem", ...}``.
    FIELD=COLUMN; COLUMN=FIELD is accepted too when only the right side is a field name.
    Comma-separated pairs in one string are split."""
    mapping: dict[str, str] = {}
    for item in pairs:
        for pair in item.split(","):
            pair = pair.strip()
            if not pair:
                continue
            left, sep, right = pair.partition("=")
            left, right = left.strip(), right.strip()
            if not sep or not left or not right:
                raise ImportFormatError(f"--map {pair!r}: expected FIELD=COLUMN, e.g. question=problem")
            if left in GENERIC_FIELDS:
                fld, column = left, right
            elif right in GENERIC_FIELDS:
                fld, column = right, left
            else:
                raise ImportFormatError(
                    f"--map {pair!r}: neither side is a seed field ({', '.join(GENERIC_FIELDS)})")
            if fld in mapping and mapping[fld] != column:
                raise ImportFormatError(f"--map: field {fld!r} mapped twice ({mapping[fld]!r}, {column!r})")
            mapping[fld] = column
    return mapping


# --- import ------------------------------------------------------------------------------
# the columns of a stored seed, in the order of the tuples a batch builds; a batch is
# written as multi-row INSERTs (Store.insert_many), which also lets the full-text index of
# the questions take the batch at once
_COLUMNS = ("id", "source", "orig_id", "question", "answer_text", "answer_value", "solution",
            "equation", "level", "status", "filter_reason", "filter_detail", "duplicate_of",
            "content_hash", "meta", "import_file", "import_line", "imported_at", "steps")


_META_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=str).encode


@dataclass
class _Row:
    orig_id: str
    question: str
    answer_text: str
    answer_value: str | None
    solution: str | None
    equation: str | None
    level: str
    steps: int | None
    hits: list[tuple[str, str]]
    chash: str
    meta: dict[str, Any]
    line: int


def _chunks(items: list[str]) -> Iterator[list[str]]:
    for i in range(0, len(items), _SQL_CHUNK):
        yield items[i:i + _SQL_CHUNK]


class _Importer:
    def __init__(self, store: Store, path: Path, fmt: str, source: str, level: str | None,
                 mapping: dict[str, str], actor: str, batch_size: int) -> None:
        self.store = store
        self.path = path
        self.fmt = fmt
        self.source = source
        self.default_level = level
        self.ctx = _Ctx(mapping)
        self.actor = actor
        self.batch_size = batch_size
        self.report = ImportReport(source=source, fmt=fmt, path=str(path))
        self.seen_ids: dict[str, int] = {}
        # provenance on seeds / import_runs: the absolute path; messages use the path as given
        self.stored_path = str(path.resolve())

    def issue(self, line: int | None, message: str) -> None:
        self.report.errors.append(ImportIssue(str(self.path), line, message))

    def open_records(self) -> Iterator[_Raw]:
        """Start reading; checks that need the header / first record run here, before
        anything is written, so a hopeless file fails without leaving a run behind."""
        empty = ImportFormatError(f"{self.path} is empty: nothing to import", title="Empty file")
        if self.fmt == "csv":
            it = _iter_csv(self.path)
            head = next(it, None)
            if head is None:
                raise empty
            if head.data is None or "__header__" not in head.data:
                raise ImportFormatError(f"{self.path}:{head.line}: cannot read the CSV header: "
                                        f"{head.error or 'no header row'}", title="Bad CSV header")
            header = head.data["__header__"]
            col = self.ctx.mapping
            missing = [f"{f!r}" + (f" (column {col[f]!r})" if col[f] != f else "")
                       for f in REQUIRED_FIELDS if col[f] not in header]
            if missing:
                raise ImportFormatError(
                    f"{self.path}: no column for {', '.join(missing)}; the header has "
                    f"{', '.join(repr(h) for h in header)}. Use --map FIELD=COLUMN, e.g. "
                    f"--map question={header[0]}", title="Missing columns")
            if self.default_level is None and col["level"] not in header:
                raise self._no_level_error()
            return it
        it = _iter_json(self.path)
        buffered: list[_Raw] = []
        first: _Raw | None = None
        for raw in it:
            buffered.append(raw)
            if raw.data is not None:
                first = raw
                break
        if not buffered:
            raise empty
        if (self.fmt == "jsonl" and self.default_level is None and first is not None
                and first.data is not None and self.ctx.mapping["level"] not in first.data):
            # a generic file without --level must carry levels
            raise self._no_level_error()
        return itertools.chain(buffered, it)

    def _no_level_error(self) -> ImportFormatError:
        return ImportFormatError(
            f"{self.path}: cannot tell the difficulty level of source {self.source!r}: pass "
            f"--level easy|medium|hard or add a {self.ctx.mapping['level']!r} column",
            title="Level needed")

    def draft(self, raw: _Raw) -> _Row:
        assert raw.data is not None
        d = _CONVERTERS[self.fmt](raw.data, raw, self.ctx)
        _check_sizes(d)
        level = d.level or self.default_level
        if level is None:
            raise RecordError(f"no level: field {self.ctx.mapping['level']!r} is empty and no --level was given")
        value = _exact_value(d.answer_text)
        if d.steps is None and d.solution:
            # the single-step filter applies to every source: count the solution's operations
            n, rule, _ = _steps_from_solution(d.solution, require_annotations=False)
            if n is not None and rule and " in 0 " not in rule and "no calculations found" not in rule:
                given = len(re.findall(r"(?<![\w.])\d+(?:[.,]\d+)*", d.question))
                if n == 1 and "calculator annotation" not in rule and given > 2:
                    # free text reasons in words too: one parsed computation with more than
                    # two givens is not evidence of a single step
                    n, rule = None, None
                if n is not None:
                    d.steps, d.steps_rule = n, rule
        hits = [(h.reason, h.detail) for h in
                check_seed(d.question, d.solution, d.answer_text, value, d.steps, d.steps_rule)]
        meta = d.meta
        if d.steps_rule:
            meta["steps_rule"] = d.steps_rule
        if hits:
            meta["filters"] = [{"reason": r, "detail": t} for r, t in hits]
        return _Row(d.orig_id, d.question, d.answer_text, value, d.solution, d.equation, level,
                    d.steps, hits, content_hash(d.question), meta, raw.line)

    def run(self) -> ImportReport:
        t0 = time.perf_counter()
        try:
            records = self.open_records()
        except (OSError, EOFError) as exc:  # e.g. not really gzip, permission lost
            raise ImportFormatError(f"cannot read {self.path}: {exc}", title="File not readable") from exc
        started = now()
        with self.store.transaction():
            self.report.run_id = self.store.insert("import_runs", {
                "path": self.stored_path, "format": self.fmt, "source": self.source,
                "started_at": started, "actor": self.actor,
            })
        batch: list[_Row] = []
        try:
            for raw in records:
                if raw.data is None:
                    self.report.records += 1
                    self.issue(raw.line, raw.error or "unreadable record")
                    continue
                self.report.records += 1
                try:
                    row = self.draft(raw)
                except RecordError as exc:
                    self.issue(raw.line, str(exc))
                    continue
                except (ValueError, ArithmeticError, RecursionError, TypeError) as exc:
                    # hostile content must cost one record, never the batch or the run
                    self.issue(raw.line, f"not importable: {_short(exc)}")
                    continue
                prev = self.seen_ids.get(row.orig_id)
                if prev is not None:
                    self.issue(raw.line, f"id {row.orig_id!r} was already used on line {prev} of this file; "
                                         "record not imported")
                    continue
                self.seen_ids[row.orig_id] = raw.line
                batch.append(row)
                if len(batch) >= self.batch_size:
                    self.flush(batch)
                    batch = []
            if batch:
                self.flush(batch)
                batch = []
        except BaseException as exc:
            # keep what was committed; record why the run stopped, then re-raise
            if isinstance(exc, (ImportFormatError, OSError, EOFError, KeyboardInterrupt)):
                self.issue(None, f"import stopped: {str(exc) or type(exc).__name__}")
            else:
                self.issue(None, f"import stopped by an internal error: {type(exc).__name__}: {exc}")
            self.report.seconds = time.perf_counter() - t0
            try:
                self.finish()
            except Exception:  # pragma: no cover - the original error matters more
                pass
            if isinstance(exc, (OSError, EOFError)):
                raise ImportFormatError(f"cannot read {self.path} past record {self.report.records}: "
                                        f"{exc}; the records before were imported "
                                        f"(import run {self.report.run_id})") from exc
            raise
        self.report.seconds = time.perf_counter() - t0
        self.finish()
        return self.report

    def flush(self, batch: list[_Row]) -> None:
        store, source = self.store, self.source
        # counted apart and added to the report only once the batch is committed: a batch
        # that fails (full disk, read-only file) must not be reported as imported
        rep = _Counts()
        with store.transaction():
            existing: dict[str, tuple[str, str | None, int | None]] = {}
            for part in _chunks([r.orig_id for r in batch]):
                marks = ",".join("?" * len(part))
                for oid, h, f, ln in store.conn.execute(
                        f"SELECT orig_id, content_hash, import_file, import_line FROM seeds "
                        f"WHERE source = ? AND orig_id IN ({marks})", [source, *part]):
                    existing[oid] = (h, f, ln)
            firsts: dict[str, tuple[int, str, str]] = {}
            for part in _chunks(list({r.chash for r in batch})):
                marks = ",".join("?" * len(part))
                for sid, h, oid, ans in store.conn.execute(
                        f"SELECT id, content_hash, orig_id, answer_text FROM seeds "
                        f"WHERE source = ? AND content_hash IN ({marks})", [source, *part]):
                    if h not in firsts or sid < firsts[h][0]:
                        firsts[h] = (sid, oid, ans)
            next_id = int(store.scalar("SELECT COALESCE(MAX(id), 0) FROM seeds")) + 1
            stamp = now()
            path = self.stored_path
            rows: list[tuple[Any, ...]] = []
            for r in batch:
                old = existing.get(r.orig_id)
                if old is not None:
                    if old[0] == r.chash:
                        rep.skipped_existing += 1
                    else:
                        where = f" (imported from {old[1]} line {old[2]})" if old[1] else ""
                        self.issue(r.line, f"{source}:{r.orig_id} is already stored with a different "
                                           f"question{where}; not replaced. Import this file under another "
                                           f"--source to keep both")
                    continue
                sid = next_id
                next_id += 1
                first = firsts.get(r.chash)
                if first is not None:
                    status, reason, dup_of = "duplicate", "duplicate", first[0]
                    detail = f"same question as seed #{first[0]} ({source}:{first[1]})"
                    if first[2] != r.answer_text:
                        detail += f"; answers differ: {first[2]!r} there, {r.answer_text!r} here"
                    rep.duplicates += 1
                elif r.hits:
                    status, (reason, detail), dup_of = "filtered", r.hits[0], None
                    rep.filtered[reason] = rep.filtered.get(reason, 0) + 1
                    firsts[r.chash] = (sid, r.orig_id, r.answer_text)
                else:
                    status, reason, detail, dup_of = "active", None, None, None
                    firsts[r.chash] = (sid, r.orig_id, r.answer_text)
                rows.append((sid, source, r.orig_id, r.question, r.answer_text, r.answer_value,
                             r.solution, r.equation, r.level, status, reason, detail, dup_of, r.chash,
                             _META_JSON(r.meta),
                             path, r.line, stamp, r.steps))
            if rows:
                store.insert_many("seeds", rows, columns=_COLUMNS)
            rep.added += len(rows)
        total = self.report
        total.added += rep.added
        total.skipped_existing += rep.skipped_existing
        total.duplicates += rep.duplicates
        for reason, n in rep.filtered.items():
            total.filtered[reason] = total.filtered.get(reason, 0) + n

    def finish(self) -> None:
        rep = self.report
        errors: list[dict[str, Any]] = [{"line": e.line, "message": e.message}
                                        for e in rep.errors[:MAX_STORED_ERRORS]]
        if len(rep.errors) > MAX_STORED_ERRORS:
            errors.append({"line": None,
                           "message": f"... and {len(rep.errors) - MAX_STORED_ERRORS} more errors not stored"})
        with self.store.transaction():
            self.store.execute(
                "UPDATE import_runs SET finished_at = ?, added = ?, skipped_existing = ?, filtered = ?, "
                "duplicates = ?, errors = ? WHERE id = ?",
                (now(), rep.added, rep.skipped_existing, rep.filtered_total, rep.duplicates,
                 json.dumps(errors, ensure_ascii=False), rep.run_id))
            self.store.event(self.actor, "seeds.imported", "import_run", rep.run_id, {
                "path": self.stored_path, "format": rep.fmt, "source": rep.source, "records": rep.records,
                "added": rep.added, "skipped_existing": rep.skipped_existing,
                "filtered": dict(rep.filtered), "duplicates": rep.duplicates,
                "errors": len(rep.errors),
            })


def import_file(
    store: Store,
    path: Path | str,
    fmt: str = "auto",
    *,
    source: str | None = None,
    level: str | None = None,
    mapping: dict[str, str] | None = None,
    actor: str | None = None,
    batch_size: int = BATCH_SIZE,
) -> ImportReport:
    """Import one seed file into ``store``; see the module docstring for the rules.

    Bad records are reported in ``ImportReport.errors`` (and ``import_runs.errors``) and
    skipped. Raises ImportFormatError for an unreadable or missing file, an unknown
    format, an invalid level/mapping, or a generic file whose level cannot be told."""
    p = Path(path)
    _check_readable(p)
    fmt = (fmt or "auto").strip().lower()
    if fmt == "auto":
        fmt = detect_format(p)
    elif fmt not in FORMATS:
        raise ImportFormatError(f"unknown format {fmt!r}; choose one of auto, {', '.join(FORMATS)}",
                                title="Unknown format")
    if level is not None:
        lv = level.strip().lower()
        if lv not in LEVELS:
            raise ImportFormatError(f"unknown level {level!r}; choose easy, medium or hard")
        level = lv
    mapping = dict(mapping or {})
    if mapping:
        if fmt not in ("jsonl", "csv"):
            raise ImportFormatError(
                f"column mapping applies to generic jsonl/csv files, not to the {fmt} format; "
                f"pass --format jsonl or --format csv to read this file with your own columns")
        bad = sorted(set(mapping) - set(GENERIC_FIELDS))
        if bad:
            raise ImportFormatError(f"cannot map {', '.join(map(repr, bad))}: seed fields are "
                                    f"{', '.join(GENERIC_FIELDS)}")
    full_mapping = {f: mapping.get(f, f) for f in GENERIC_FIELDS}
    src = (source or "").strip() or default_source(fmt, p)
    if level is None:
        level = SMART_LEVELS[fmt] if fmt in KNOWN_FORMATS else _level_for_source(src)
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    importer = _Importer(store, p, fmt, src, level, full_mapping, actor or current_actor(), batch_size)
    return importer.run()


def shipped_samples() -> list[tuple[Path, str]]:
    """The small real seed samples shipped in ``qcstation/data`` as (path, format), for an
    offline quick start (see ``qcstation/data/SOURCES.md``)."""
    return [(DATA_DIR / name, fmt) for name, fmt in _SAMPLES if (DATA_DIR / name).exists()]
