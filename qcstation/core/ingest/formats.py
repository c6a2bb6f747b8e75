"""Seed file formats: ONE table (:data:`TABLE`) holding, per format, the converter that
turns a record into a draft seed, the SMART level of its dataset, the reader of its
files and the licence of the public dataset (a release's datasheet states it); plus
format detection, default source names and ``--map`` parsing. A new format is one
:class:`Format` in :data:`TABLE` (and its converter, when the generic one with
``columns`` does not do).

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
from decimal import Decimal
from pathlib import Path
from typing import Any

from qcstation.common.errors import ImportFormatError
from qcstation.core.ingest.readers import (
    COMPRESSED_SUFFIXES,
    Raw,
    check_readable,
    csv_header,
    first_json_record,
    json_file_shape,
    plain_suffix,
    type_name,
)
from qcstation.core.ingest.steps import (
    equation_steps,
    one_op_on_two_numbers,
    steps_from_solution,
)
from qcstation.core.reading.answers import count_numbers, parse_number

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


def _one_of_list(v: Any, key: str, what: str) -> Any:
    """A list of one value (MAWPS's ``lSolutions: [9.0]``, ``lEquations: ["X=(32-23)"]``) is
    that value; a longer list is refused (one seed has one answer and one equation)."""
    if isinstance(v, list):
        if len(v) != 1:
            raise RecordError(f"field {key!r} holds {len(v)} {what}s; one is needed")
        return v[0]
    return v


def _answer_text(rec: dict[str, Any], key: str) -> str:
    v = _one_of_list(_get(rec, key, what="the answer"), key, "answer")
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise RecordError(f"field {key!r} must be a string or a number, got {type_name(v)}")
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise RecordError(f"field {key!r} is not a finite number: {v}")
        text = str(int(v)) if v.is_integer() else repr(v)
        written = getattr(v, "written", None)  # the digits as the file wrote them
        if written is not None and Decimal(written) != Decimal(text):
            text = written  # "1.0000000000000000000000001" is not 1; "123456789012345678.5" not ...68
    else:
        text = str(v).strip()
    if not text:
        raise RecordError(f"empty answer (field {key!r})")
    return text


def _opt_text(rec: dict[str, Any], key: str) -> str | None:
    if isinstance(rec.get(key), list):
        v = _one_of_list(rec[key], key, "value")
        if not isinstance(v, str):
            raise RecordError(f"field {key!r} must be a string, got {type_name(v)}")
        return v if v.strip() else None
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
JOINABLE_FIELDS: tuple[str, ...] = ("question", "solution", "equation")  #: may join columns: A+B


@dataclass
class Ctx:
    """What a converter needs besides the record: the column mapping of the formats that
    read columns (seed field -> column, or columns joined with ``+``)."""

    mapping: dict[str, str]
    used_columns: frozenset[str] = frozenset()
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.parts = {f: tuple(c.strip() for c in spec.split("+")) if "+" in spec else (spec,)
                      for f, spec in self.mapping.items()}
        used = frozenset(self.mapping.values()) | {c for p in self.parts.values() for c in p}
        # a public set's columns also in lower case (ASDiv as JSON Lines: body, question, formula)
        self.used_columns = used | {c.lower() for c in used}

    def columns(self, keys: Any, fld: str) -> tuple[str, ...]:
        """The columns ``fld`` reads in a record with these keys (a column literally named
        ``A+B`` wins over joining A and B; a column missing as named is read in lower case
        when the record has it so: ASDiv's JSON Lines write ``body``, ``formula``)."""
        spec = self.mapping[fld]
        if spec in keys:
            return (spec,)
        if spec.lower() in keys:
            return (spec.lower(),)
        return tuple(c if c in keys or c.lower() not in keys else c.lower()
                     for c in self.parts[fld])

    def column(self, keys: Any, fld: str) -> str:
        """The one column ``fld`` reads (as :meth:`columns`, lower case if only that is there)."""
        spec = self.mapping[fld]
        return spec.lower() if spec not in keys and spec.lower() in keys else spec


_CLAUSE_OPENING = re.compile(
    r"(?:^|[.!?]\s+)(?:if|when|after|since|suppose|supposing|given|once|because|while|before|"
    r"assuming)\b[^.!?]*$", re.IGNORECASE)
_ASKING = re.compile(r"(?:how|what|which|who|whom|whose|when|where|why|find)\b", re.IGNORECASE)
_ENDS_SENTENCE = re.compile(r"[.!?:;,][\"')\]]*$")


def join_sentences(pieces: list[str]) -> str:
    """Question parts (SVAMP's Body and Question) as one text: a space after a part that
    ends a sentence; a comma before a question that completes an open "If ..." clause
    ("If he had $ 4 at the start, how much did the candy bar cost?"); else a full stop."""
    text = pieces[0]
    for nxt in pieces[1:]:
        if _ENDS_SENTENCE.search(text):
            text = f"{text} {nxt}"
        elif _CLAUSE_OPENING.search(text) and _ASKING.match(nxt):
            text = f"{text}, {nxt[0].lower()}{nxt[1:]}"
        else:
            text = f"{text}. {nxt}"
    return text


def _joined(rec: dict[str, Any], ctx: Ctx, fld: str) -> str | None:
    """A field read through the mapping: one column, or several joined (the question's
    parts are each required; a solution's or equation's may be missing)."""
    cols = ctx.columns(rec, fld)
    if len(cols) == 1:
        return _question(rec, cols[0]) if fld == "question" else _opt_text(rec, cols[0])
    pieces = []
    for col in cols:
        v = _text(rec, col, required=fld == "question", what=f"part of the {fld}")
        if v is not None and v.strip():
            pieces.append(v.strip())
    if fld == "question":
        if not pieces:
            raise RecordError(f"empty question (fields {' + '.join(map(repr, cols))})")
        return join_sentences(pieces)
    return "\n".join(pieces) or None


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
    if equation and (counted := equation_steps(equation)):
        steps, rule = counted
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
    q = _joined(rec, ctx, "question")
    assert q is not None
    answer = _answer_text(rec, ctx.column(rec, "answer"))
    solution = _joined(rec, ctx, "solution")
    if "####" in answer and solution is None:
        # a GSM8K-style answer ("worked solution ... #### 18") in a generic file
        sol, _, final = answer.rpartition("####")
        if final.strip():
            answer, solution = final.strip(), sol.strip() or None
    equation = _joined(rec, ctx, "equation")
    rid = rec.get(ctx.column(rec, "id"))
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (int, str))):
        raise RecordError(f"field {col['id']!r} (id) must be a string or integer, got {type_name(rid)}")
    orig_id = str(rid).strip() if rid is not None and str(rid).strip() else str(raw.number)
    level = None
    lv = rec.get(ctx.column(rec, "level"))
    if lv is not None and str(lv).strip():
        if not isinstance(lv, str) or lv.strip().lower() not in LEVELS:
            raise RecordError(f"field {col['level']!r} (level) must be easy, medium or hard, got {lv!r}")
        level = lv.strip().lower()
    steps: int | None = None
    rule: str | None = None
    sv = rec.get(ctx.column(rec, "steps"))
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
    elif equation and (counted := equation_steps(equation)):
        steps, rule = counted
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
    reader: str | None = "json"   #: "json" (JSON Lines or one array), "csv", None: by the file's suffix
    generic: bool = False    #: a generic file: columns named by the user (--map), level per row or given
    columns: dict[str, str] = field(default_factory=dict)  #: a public set's columns (--map may change them)
    required: tuple[str, ...] = ()  #: fields the first record must have (besides mapped ones)
    #: the licence of the public dataset (``shared/datasets/SOURCES.md``), stated in a
    #: release's datasheet; None for a generic file (its curator states it before publishing)
    licence: str | None = None

    @property
    def mapped(self) -> bool:
        """Does this format read its fields through a column mapping?"""
        return self.generic or bool(self.columns)


# SVAMP and ASDiv split the problem into Body and Question; ASDiv writes its equation as a
# Formula with its result ("7+2=9") and its answer with a unit ("9 (apples)").
_SVAMP = {"question": "Body+Question", "answer": "Answer", "equation": "Equation", "id": "ID"}
_ASDIV = {"question": "Body+Question", "answer": "Answer", "equation": "Formula", "id": "ID"}

# The one table of formats (SMART appendix A.2 gives the levels).
TABLE: dict[str, Format] = {f.name: f for f in (
    Format("gsm8k", _conv_gsm8k, "medium", required=("question", "answer"),
           licence="MIT (openai/grade-school-math)"),
    Format("mawps", _conv_mawps, "easy", required=("input", "target"),
           licence="MIT (ZubinGou/math-evaluation-harness; MAWPS, Koncel-Kedziorski et al. 2016)"),
    Format("aqua", _conv_aqua, "hard", required=("question", "options", "correct"),
           licence="Apache-2.0 (google-deepmind/AQuA)"),
    Format("math500", _conv_math500, "hard", required=("problem",),
           licence="MIT (MATH-500 split of hendrycks/math via openai/prm800k)"),
    Format("aime2024", _conv_aime2024, "hard", required=("answer",),
           licence="MIT (QwenLM/Qwen2.5-Math evaluation data); problem text (c) MAA"),
    Format("svamp", _conv_generic, "medium", reader=None, columns=_SVAMP,
           licence="MIT (arkilpatel/SVAMP)"),
    Format("asdiv", _conv_generic, "easy", reader=None, columns=_ASDIV,
           licence="CC BY-NC 4.0 (chaochun/nlu-asdiv-dataset): non-commercial use only"),
    Format("jsonl", _conv_generic, None, generic=True),
    Format("json", _conv_generic, None, generic=True),
    Format("csv", _conv_generic, None, reader="csv", generic=True),
)}
KNOWN_FORMATS: tuple[str, ...] = tuple(n for n, f in TABLE.items() if not f.generic)
FORMATS: tuple[str, ...] = tuple(TABLE)
# SMART levels by dataset name: the formats' own, and public sets read as generic files
# (a generic file's source name "svamp_test" gives medium)
SMART_LEVELS: dict[str, str] = {
    **{n: f.level for n, f in TABLE.items() if f.level},
    "math": "hard", "aime": "hard",
}


NO_LICENCE = "not recorded: state the licence of this source before publishing"


def licence_of(source: str) -> str:
    """The licence of a seed source named after a public dataset's format (its
    :attr:`Format.licence`); :data:`NO_LICENCE` for any other source name."""
    fmt = TABLE.get(source)
    return fmt.licence if fmt is not None and fmt.licence else NO_LICENCE


def reader_of(fmt: Format, path: Path) -> str:
    """The reader a format's file takes: its own, or by the file's suffix."""
    return fmt.reader or ("csv" if plain_suffix(path) in (".csv", ".tsv") else "json")


# --- answers written with a unit --------------------------------------------------------
# "(apples)", "(cm^2)", "(ft.)": tried only where a run of spaces starts (from inside it, the
# rest of the run was read again each time); the note is read once: "^", "²" and "³" are of
# [^()\d] already, so "[^()\d]*(?:\^?[23²³])?[^()\d]*" (which tried each split of "(aaa...a"
# with no ")") is [^()\d]* with at most one 2 or 3, each run taken whole
_UNIT_NOTE = re.compile(r"(?<!\s)\s*\(([^()\d]*+(?:[23][^()\d]*+)?)\)")
_NOT_EXACT = re.compile(r"approx|about|around|nearly|roughly|almost|estimat|round|~|≈", re.IGNORECASE)


def answer_without_unit(text: str) -> tuple[str, str] | None:
    """(number, unit) for an answer whose unit is written in parentheses, ASDiv-style:
    ``"9 (apples)"`` -> ``("9", "apples")``; None unless what is left is exactly one number
    (``"3 (boxes) r 2"`` and ``"7 (red); 5 (green)"`` stay unread) and the note is a unit,
    not a hedge (``"25 (approx.)"`` is not exact)."""
    notes = _UNIT_NOTE.findall(text)
    if not notes or any(_NOT_EXACT.search(n) for n in notes):
        return None
    rest = _UNIT_NOTE.sub("", text).strip()
    if not rest or count_numbers(rest) != 1 or parse_number(rest) is None:
        return None
    return rest, "; ".join(n.strip() for n in notes if n.strip())


# --- a first record without the fields a format needs -----------------------------------
_LIKELY: dict[str, tuple[str, ...]] = {
    "question": ("question", "problem", "input", "text", "prompt", "body"),
    "answer": ("answer", "final_answer", "final", "target", "label", "result", "ans"),
    "equation": ("equation", "formula", "equations", "lequations", "expression"),
    "solution": ("solution", "rationale", "explanation", "reasoning", "steps_text"),
    "id": ("id", "idx", "uid", "unique_id", "index"),
}


def suggest_mapping(keys: list[str]) -> dict[str, str]:
    """A likely ``--map`` for a record with these keys (field -> column or ``A+B``)."""
    lower = {k.lower(): k for k in reversed(keys)}
    out: dict[str, str] = {}
    if "body" in lower and "question" in lower:
        out["question"] = f"{lower['body']}+{lower['question']}"
    for fld, names in _LIKELY.items():
        if fld not in out:
            hit = next((lower[n] for n in names if n in lower), None)
            if hit is not None and hit != fld:
                out[fld] = hit
    return out


def missing_columns(fmt: Format, ctx: Ctx, keys: list[str]) -> list[str]:
    """The fields (columns) a record with these keys lacks to be read as ``fmt``."""
    if fmt.mapped:
        return [c for f in REQUIRED_FIELDS for c in ctx.columns(keys, f) if c not in keys]
    return [k for k in fmt.required if k not in keys]


def missing_columns_message(fmt: Format, missing: list[str], keys: list[str]) -> str:
    """Which columns are missing, which the record has, and the ``--map`` that reads it."""
    shown = ", ".join(repr(k if len(k) <= 40 else k[:39] + "…") for k in keys[:20])
    shown += f" and {len(keys) - 20} more" if len(keys) > 20 else ""
    have = f"its fields are {shown}" if keys else "it has no fields"
    hint = suggest_mapping(keys)
    example = " ".join(f"--map {f}={c}" for f, c in hint.items()) or "--map question=COLUMN --map answer=COLUMN"
    names = " or ".join(map(repr, missing))
    if fmt.mapped:
        return (f"the first record has no {names}; {have}. Say which columns "
                f"to read with --map FIELD=COLUMN (join columns with '+'), e.g. {example}")
    return (f"this is not a {fmt.name} file: the first record has no {names}; "
            f"{have}. Pass the right --format, or --format jsonl/csv with --map, e.g. {example}")


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
    if {"Body", "Question", "Answer"} <= keys and ("Equation" in keys) != ("Formula" in keys):
        return "svamp" if "Equation" in keys else "asdiv"
    lower = {str(k).lower() for k in keys}
    if {"body", "question", "answer"} <= lower and ("equation" in lower) != ("formula" in lower):
        # the same sets with lower-case field names (ASDiv's JSON Lines on the Hugging Face hub)
        return "svamp" if "equation" in lower else "asdiv"
    return "jsonl"


def detect_format(path: Path | str) -> str:
    """Format of a seed file: a known dataset from its first record's keys (and file name),
    else generic ``csv`` (``.csv``/``.tsv``) or ``jsonl``. Raises ImportFormatError if the
    file cannot be read or holds no record."""
    p = Path(path)
    check_readable(p)
    hint = " ".join(part.lower() for part in p.parts[-2:])
    if plain_suffix(p) in (".csv", ".tsv"):
        try:
            header = csv_header(p)
        except (OSError, EOFError) as exc:
            raise ImportFormatError(f"cannot read {p}: {exc}", title="File not readable") from exc
        named = format_from_keys(dict.fromkeys(header or (), ""), hint)
        return named if named in TABLE and TABLE[named].reader is None else "csv"
    try:
        first, nonempty, first_error = first_json_record(p)
    except (OSError, EOFError) as exc:  # e.g. a .gz file that is not gzip
        raise ImportFormatError(f"cannot read {p}: {exc}", title="File not readable") from exc
    if first is None:
        if not nonempty:
            raise ImportFormatError(f"{p} is empty: nothing to import", title="Empty file")
        why = f" (line {first_error})" if first_error else ""
        raise ImportFormatError(
            f"cannot detect the format of {p}: no JSON record found near the start{why}; "
            f"pass --format ({', '.join(FORMATS)})", title="Unknown format")
    named = format_from_keys(first, hint)
    if named == "jsonl" and json_file_shape(p) == "array":
        return "json"
    return named


def default_source(fmt: str, path: Path | str) -> str:
    """Source name when none is given: the dataset name, or the file stem for generic files."""
    if fmt in KNOWN_FORMATS:
        return fmt
    name = Path(path).name
    for suffix in (*COMPRESSED_SUFFIXES, ".jsonl", ".json", ".ndjson", ".csv", ".tsv", ".txt"):
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
    Comma-separated pairs in one string are split. ``question=Body+Question`` joins two
    columns (question, solution and equation only; see :func:`join_sentences`)."""
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
            if "+" in column and fld not in JOINABLE_FIELDS:
                raise ImportFormatError(
                    f"--map {pair!r}: only {', '.join(JOINABLE_FIELDS)} can join columns with '+'")
            if "+" in column and not all(c.strip() for c in column.split("+")):
                raise ImportFormatError(f"--map {pair!r}: an empty column name around '+'")
            if fld in mapping and mapping[fld] != column:
                raise ImportFormatError(f"--map: field {fld!r} mapped twice ({mapping[fld]!r}, {column!r})")
            mapping[fld] = column
    return mapping

