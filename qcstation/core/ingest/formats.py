"""Seed file formats: ONE table (:data:`TABLE`) holding, per format, the converter that
turns a record into a draft seed, the SMART level of its dataset and the reader of its
files; plus format detection, default source names and ``--map`` parsing.

``gsm8k``, ``mawps``, ``aqua``, ``math500``, ``aime2024`` are the public files described
in ``shared/datasets/SOURCES.md``; ``jsonl`` (JSON Lines, or one JSON array) and ``csv``
(``.tsv`` is read tab-separated) are generic files whose columns default to
``question``, ``answer``, ``solution``, ``equation``, ``id``, ``level`` and ``steps``
(only question and answer are required); ``mapping={"question": "problem"}`` reads a
field from another column.

A converter raises :class:`RecordError` (the message names what is wrong) for a record
that cannot become a seed; it never touches the database.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qcstation.common.errors import ImportFormatError
from qcstation.core.ingest.readers import (
    Raw,
    check_readable,
    first_json_record,
    plain_suffix,
    type_name,
)
from qcstation.core.ingest.steps import (
    count_equation_ops,
    one_op_on_two_numbers,
    steps_from_solution,
)
from qcstation.core.verify.answers import parse_number

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")
GENERIC_FIELDS: tuple[str, ...] = ("question", "answer", "solution", "equation", "id", "level", "steps")
REQUIRED_FIELDS: tuple[str, ...] = ("question", "answer")


# --- records ---------------------------------------------------------------------------
class RecordError(Exception):
    """A record that cannot become a seed; the message names what is wrong."""


@dataclass
class Draft:
    """A record read as a seed, before filters, duplicates and storing."""

    orig_id: str
    question: str
    answer_text: str
    solution: str | None = None
    equation: str | None = None
    level: str | None = None
    steps: int | None = None
    steps_rule: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


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
        raise RecordError(f"field {key!r} must be a string, got {type_name(v)}")
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
        raise RecordError(f"field {key!r} must be a string or a number, got {type_name(v)}")
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



# --- per-format converters -------------------------------------------------------------
@dataclass
class Ctx:
    """What a converter needs besides the record: the generic files' column mapping."""

    mapping: dict[str, str]      # seed field -> column name
    used_columns: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.used_columns = frozenset(self.mapping.values())


def _conv_gsm8k(rec: dict[str, Any], raw: Raw, ctx: Ctx) -> Draft:
    q = _question(rec, "question")
    full = _text(rec, "answer", what="worked solution ending in '#### <answer>'")
    assert full is not None
    if "####" not in full:
        raise RecordError("field 'answer' has no '#### <final answer>' line")
    sol, _, final = full.rpartition("####")
    final, sol = final.strip(), sol.strip()
    if not final:
        raise RecordError("empty final answer after '####'")
    steps, rule, calcs = steps_from_solution(sol, require_annotations=False)
    # the record is a worked solution ending in '#### n' (split off above): rules use
    # this, not the source name the user chose
    return Draft(str(raw.number), q, final, solution=sol or None,
                  equation="; ".join(calcs) or None, steps=steps, steps_rule=rule,
                  meta={"solution_format": "gsm8k"})


_MAWPS_SUBSET_STEPS = {"singleop": (1, "MAWPS subset singleop (one operation)"),
                       "multiarith": (2, "MAWPS subset multiarith (two operations by construction)")}


def _conv_mawps(rec: dict[str, Any], raw: Raw, ctx: Ctx) -> Draft:
    q = _question(rec, "input")
    answer = _answer_text(rec, "target")
    idx = rec.get("idx")
    if idx is not None and (isinstance(idx, bool) or not isinstance(idx, (int, str))):
        raise RecordError(f"field 'idx' must be an integer, got {type_name(idx)}")
    orig_id = str(idx).strip() if idx is not None and str(idx).strip() else str(raw.number)
    subset = rec.get("type")
    if subset is not None and not isinstance(subset, str):
        raise RecordError(f"field 'type' must be a string, got {type_name(subset)}")
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
            op = one_op_on_two_numbers(q, target.value)
            if op:
                steps, rule = 1, f"the question's only two numbers give the answer in one operation: {op} = {answer}"
    meta: dict[str, Any] = {}
    if subset is not None:
        meta["type"] = subset
    return Draft(orig_id, q, answer, equation=equation, steps=steps, steps_rule=rule, meta=meta)


_OPTION = re.compile(r"^\s*\(?([A-Ea-e])\s*\)\s*")


def _conv_aqua(rec: dict[str, Any], raw: Raw, ctx: Ctx) -> Draft:
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
    return Draft(str(raw.number), q, answer, solution=_opt_text(rec, "rationale"),
                  meta={"options": options, "correct": letter})


def _conv_math500(rec: dict[str, Any], raw: Raw, ctx: Ctx) -> Draft:
    q = _question(rec, "problem")
    solution = _opt_text(rec, "solution")
    if rec.get("answer") is None and solution and (boxed := _boxed(solution)):
        answer = boxed
    else:
        answer = _answer_text(rec, "answer")
    uid = rec.get("unique_id")
    if uid is not None and not isinstance(uid, str):
        raise RecordError(f"field 'unique_id' must be a string, got {type_name(uid)}")
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
    return Draft(uid.strip() if uid and uid.strip() else str(raw.number), q, answer,
                  solution=solution, meta=meta)


_AIME_URL = re.compile(r"(\d{4})_AIME_(I{1,2})_Problems/Problem_(\d+)")


def _conv_aime2024(rec: dict[str, Any], raw: Raw, ctx: Ctx) -> Draft:
    q = _question(rec, "problem" if "problem" in rec else "question")
    answer = _answer_text(rec, "answer")
    rid = rec.get("id")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (int, str))):
        raise RecordError(f"field 'id' must be an integer or string, got {type_name(rid)}")
    meta: dict[str, Any] = {}
    url = rec.get("url")
    if isinstance(url, str) and url:
        meta["url"] = url
        m = _AIME_URL.search(url)
        if m:
            meta["contest"] = f"{m.group(1)} AIME {m.group(2)}"
            meta["problem"] = int(m.group(3))
    return Draft(str(rid).strip() if rid is not None and str(rid).strip() else str(raw.number), q, answer,
                  solution=_opt_text(rec, "solution"), meta=meta)


def _conv_generic(rec: dict[str, Any], raw: Raw, ctx: Ctx) -> Draft:
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
        raise RecordError(f"field {col['id']!r} (id) must be a string or integer, got {type_name(rid)}")
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
        steps, rule, _ = steps_from_solution(solution, require_annotations=True)
    used = ctx.used_columns
    extra = {k: v for k, v in rec.items() if k not in used and v is not None and v != ""}
    meta: dict[str, Any] = {"extra": extra} if extra else {}
    return Draft(orig_id, q, answer, solution=solution, equation=equation, level=level,
                  steps=steps, steps_rule=rule, meta=meta)


Converter = Callable[[dict[str, Any], Raw, Ctx], Draft]


@dataclass(frozen=True)
class Format:
    """One seed file format."""

    name: str
    convert: Converter
    level: str | None        #: SMART level of the dataset; None: per row, --level or the source name
    reader: str = "json"     #: "json" (JSON Lines or one array) or "csv"
    generic: bool = False    #: columns read through the mapping (--map)


# The one table of formats (SMART appendix A.2 gives the levels).
TABLE: dict[str, Format] = {f.name: f for f in (
    Format("gsm8k", _conv_gsm8k, "medium"),
    Format("mawps", _conv_mawps, "easy"),
    Format("aqua", _conv_aqua, "hard"),
    Format("math500", _conv_math500, "hard"),
    Format("aime2024", _conv_aime2024, "hard"),
    Format("jsonl", _conv_generic, None, generic=True),
    Format("csv", _conv_generic, None, reader="csv", generic=True),
)}
KNOWN_FORMATS: tuple[str, ...] = tuple(n for n, f in TABLE.items() if not f.generic)
FORMATS: tuple[str, ...] = tuple(TABLE)
# SMART levels by dataset name: the formats' own, and public sets read as generic files
# (a generic file's source name "svamp_test" gives medium)
SMART_LEVELS: dict[str, str] = {
    **{n: f.level for n, f in TABLE.items() if f.level},
    "asdiv": "easy", "svamp": "medium", "math": "hard", "aime": "hard",
}


# --- detection, names, mapping ---------------------------------------------------------
def format_from_keys(rec: dict[str, Any], hint: str) -> str:
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
    check_readable(p)
    suffix = plain_suffix(p)
    if suffix in (".csv", ".tsv"):
        return "csv"
    hint = " ".join(part.lower() for part in p.parts[-2:])
    try:
        first, nonempty = first_json_record(p)
    except (OSError, EOFError) as exc:  # e.g. a .gz file that is not gzip
        raise ImportFormatError(f"cannot read {p}: {exc}", title="File not readable") from exc
    if first is None:
        if not nonempty:
            raise ImportFormatError(f"{p} is empty: nothing to import", title="Empty file")
        raise ImportFormatError(
            f"cannot detect the format of {p}: no JSON record found near the start; "
            f"pass --format ({', '.join(FORMATS)})", title="Unknown format")
    return format_from_keys(first, hint)


def default_source(fmt: str, path: Path | str) -> str:
    """Source name when none is given: the dataset name, or the file stem for generic files."""
    if fmt in KNOWN_FORMATS:
        return fmt
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".json", ".ndjson", ".csv", ".tsv", ".txt"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or "seeds"


def level_for_source(source: str) -> str | None:
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

