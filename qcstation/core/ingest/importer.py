"""Seed import: read a dataset file (:mod:`.readers`), turn each record into a seed
(:mod:`.formats`, :mod:`.steps`), apply SMART's seed filters (:mod:`.filters`) and store
everything in the ``seeds`` table. ``fmt="auto"`` detects the format from the first
record's keys (and the file name).

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
* fractions: vulgar fraction characters in the question, answer, solution and equation are
  stored in digits (:func:`~qcstation.core.reading.answers.plain_fractions`: "1½" -> "1 1/2",
  "½" -> "1/2"), as every reader of a seed reads fractions; the duplicate check hashes the
  question as written (a file imported before reads as the same seeds).
* duplicates: a question whose normalised text (see :func:`normalize_question`) was
  already stored for the same source is stored with ``status='duplicate'``,
  ``filter_reason='duplicate'`` and ``duplicate_of`` = the first seed's id.
* re-import: a record whose (source, orig_id) is already stored with the same question is
  counted in ``skipped_existing``; with a different question it is an error (nothing is
  overwritten; import the file under another ``source``).

Writes go in batches, one transaction per batch (multi-row INSERTs); each import adds an
``import_runs`` row and a ``seeds.imported`` event. A bad record is reported with file
and line and skipped; the rest of the file still imports.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from db import Store, current_actor, now
from qcstation.common.errors import ImportFormatError
from qcstation.core.ingest.errata import erratum
from qcstation.core.ingest.filters import check_seed
from qcstation.core.ingest.formats import (
    GENERIC_FIELDS,
    LEVELS,
    TABLE,
    Ctx,
    Draft,
    RecordError,
    answer_without_unit,
    default_source,
    detect_format,
    level_for_source,
    missing_columns,
    missing_columns_message,
    reader_of,
)
from qcstation.core.ingest.readers import (
    MAX_ANSWER_CHARS,
    MAX_ANSWER_DIGITS,
    MAX_QUESTION_CHARS,
    MAX_SOLUTION_CHARS,
    Raw,
    check_decompressed,
    check_readable,
    iter_csv,
    iter_json,
    short,
)
from qcstation.core.ingest.steps import free_text_steps, states_a_number
from qcstation.core.reading.answers import fraction_to_str, parse_number, plain_fractions

__all__ = [
    "DATA_DIR",
    "ImportIssue",
    "ImportReport",
    "content_hash",
    "import_file",
    "normalize_question",
    "shipped_samples",
]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
BATCH_SIZE = 2000
MAX_STORED_ERRORS = 1000  #: errors kept in import_runs.errors
MAX_KEPT_ERRORS = 1000  #: errors kept in memory for the report (all are counted)
# an import warns when this share of its new seeds (not duplicates) states no number, or
# this share of its records duplicates a question already stored
NO_NUMBER_WARN_SHARE = 0.05
DUPLICATE_WARN_SHARE = 0.20
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
    errors: list[ImportIssue] = field(default_factory=list)  #: the first MAX_KEPT_ERRORS
    run_id: int | None = None
    records: int = 0
    seconds: float = 0.0
    error_count: int = 0  #: every error, also those past MAX_KEPT_ERRORS
    no_number: int = 0  #: new seeds (not duplicates) whose question writes no number
    no_number_lines: list[int] = field(default_factory=list)  #: the first few of them
    warnings: list[str] = field(default_factory=list)

    @property
    def filtered_total(self) -> int:
        return sum(self.filtered.values())

    @property
    def active(self) -> int:
        return self.added - self.filtered_total - self.duplicates

    @property
    def ok(self) -> bool:
        return not self.error_count

    def add_issue(self, issue: ImportIssue) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_KEPT_ERRORS:
            self.errors.append(issue)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "format": self.fmt, "path": self.path, "run_id": self.run_id,
            "records": self.records, "added": self.added, "active": self.active,
            "skipped_existing": self.skipped_existing, "filtered": dict(self.filtered),
            "filtered_total": self.filtered_total, "duplicates": self.duplicates,
            "errors": [e.to_dict() for e in self.errors], "error_count": self.error_count,
            "warnings": list(self.warnings), "seconds": round(self.seconds, 3),
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


_PLAIN_INT = re.compile(r"-?\d{1,18}")


def _exact_value(answer_text: str) -> str | None:
    """``fraction_to_str(parse_number(answer_text).value)``, or None when not one number
    (plain integers such as AIME's "025" take a fast path with the same result)."""
    if _PLAIN_INT.fullmatch(answer_text):
        return str(int(answer_text))
    pn = parse_number(answer_text)
    return fraction_to_str(pn.value) if pn is not None else None


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _check_text(d: Draft) -> None:
    """A NUL character or a lone surrogate (half of a UTF-16 pair, ``\\ud800`` in JSON) in a
    field is not importable: a NUL cuts the text short for many readers of the database and
    its exports, and a lone surrogate cannot be written as UTF-8 at all. Named with the field
    and its place, in the user's terms (Python's codec message is not)."""
    for what, value in (("id", d.orig_id), ("question", d.question), ("answer", d.answer_text),
                        ("solution", d.solution), ("equation", d.equation), ("level", d.level)):
        if value is not None and (m := _UNSTORABLE.search(value)) is not None:
            ch = m.group()
            name = "a NUL character (U+0000)" if ch == "\x00" else f"a lone surrogate (U+{ord(ch):04X})"
            raise RecordError(f"the {what} holds {name} at character {m.start() + 1:,}; not importable")


def _check_sizes(d: Draft) -> None:
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
    no_number: list[int] = field(default_factory=list)  # lines of questions that state no number


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
        self.format = TABLE[fmt]
        self.source = source
        self.default_level = level
        self.ctx = Ctx(mapping)
        self.actor = actor
        self.batch_size = batch_size
        self.report = ImportReport(source=source, fmt=fmt, path=str(path))
        self.seen_ids: dict[str, int] = {}
        # provenance on seeds / import_runs: the absolute path; messages use the path as given
        self.stored_path = str(path.resolve())

    def issue(self, line: int | None, message: str) -> None:
        self.report.add_issue(ImportIssue(str(self.path), line, message))

    def open_records(self) -> Iterator[Raw]:
        """Start reading; checks that need the header / first record run here, before
        anything is written, so a hopeless file fails without leaving a run behind."""
        if reader_of(self.format, self.path) == "csv":
            return self._open_csv()
        return self._open_json()

    def _empty(self) -> ImportFormatError:
        return ImportFormatError(f"{self.path} is empty: nothing to import", title="Empty file")

    def _check_columns(self, line: int, keys: list[str]) -> None:
        missing = missing_columns(self.format, self.ctx, keys)
        if missing:
            raise ImportFormatError(f"{self.path}:{line}: {missing_columns_message(self.format, missing, keys)}",
                                    title="Missing columns")
        if self.format.generic and self.default_level is None and self.ctx.mapping["level"] not in keys:
            # a generic file without --level must carry levels
            raise self._no_level_error()

    def _open_csv(self) -> Iterator[Raw]:
        it = iter_csv(self.path)
        head = next(it, None)
        if head is None:
            raise self._empty()
        if head.data is None or "__header__" not in head.data:
            raise ImportFormatError(f"{self.path}:{head.line}: cannot read the CSV header: "
                                    f"{head.error or 'no header row'}", title="Bad CSV header")
        self._check_columns(head.line, head.data["__header__"])
        for _ in it:  # read whole first: an unclosed quote refuses the file before anything is stored
            pass
        it = iter_csv(self.path)
        next(it)
        return it

    def _open_json(self) -> Iterator[Raw]:
        it = iter_json(self.path)
        buffered: list[Raw] = []
        for raw in it:
            buffered.append(raw)
            if raw.data is not None:
                self._check_columns(raw.line, list(raw.data))
                break
        if not buffered:
            raise self._empty()
        if self.format.generic:  # name the file's shape: one array, or JSON Lines
            self.report.fmt = "json" if buffered[0].in_array else "jsonl"
        return itertools.chain(buffered, it)

    def _no_level_error(self) -> ImportFormatError:
        return ImportFormatError(
            f"{self.path}: cannot tell the difficulty level of source {self.source!r}: pass "
            f"--level easy|medium|hard or add a {self.ctx.mapping['level']!r} column",
            title="Level needed")

    def draft(self, raw: Raw) -> _Row:
        assert raw.data is not None
        d = self.format.convert(raw.data, raw, self.ctx)
        _check_text(d)
        # "1½" is read as "1 1/2" is: the rules, the filters and the checker read fractions in
        # digits, and a question writing ½ was refused where the same with 1/2 was made
        written = d.question      # hashed as written: a file imported before reads as the same seeds
        d.question, d.answer_text = plain_fractions(d.question), plain_fractions(d.answer_text)
        d.solution = plain_fractions(d.solution) if d.solution else d.solution
        d.equation = plain_fractions(d.equation) if d.equation else d.equation
        _check_sizes(d)
        level = d.level or self.default_level
        if level is None:
            raise RecordError(f"no level: field {self.ctx.mapping['level']!r} is empty and no --level was given")
        value = _exact_value(d.answer_text)
        if value is None and (read := answer_without_unit(d.answer_text)):
            # "9 (apples)": the number is the answer, the unit goes to meta
            d.meta["answer_as_written"], d.meta["answer_unit"] = d.answer_text, read[1]
            d.answer_text = read[0]
            value = _exact_value(d.answer_text)
        if d.steps is None and d.solution:
            # the single-step filter applies to every source: count the solution's operations
            d.steps, d.steps_rule = free_text_steps(d.question, d.solution)
        hits = [(h.reason, h.detail) for h in
                check_seed(d.question, d.solution, d.answer_text, value, d.steps, d.steps_rule)]
        chash = content_hash(written)
        if (wrong := erratum(chash, d.answer_text)) is not None:
            hits.append((wrong.reason, wrong.detail))
        meta = d.meta
        if d.steps_rule:
            meta["steps_rule"] = d.steps_rule
        if hits:
            meta["filters"] = [{"reason": r, "detail": t} for r, t in hits]
        return _Row(d.orig_id, d.question, d.answer_text, value, d.solution, d.equation, level,
                    d.steps, hits, chash, meta, raw.line)

    def run(self) -> ImportReport:
        t0 = time.perf_counter()
        try:
            records = self.open_records()
        except (OSError, EOFError) as exc:  # e.g. not really gzip, permission lost
            raise ImportFormatError(f"cannot read {self.path}: {exc}", title="File not readable") from exc
        started = now()
        with self.store.transaction():
            self.report.run_id = self.store.insert("import_runs", {
                "path": self.stored_path, "format": self.report.fmt, "source": self.source,
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
                where = f"record {raw.number}: " if raw.in_array else ""
                try:
                    row = self.draft(raw)
                except RecordError as exc:
                    self.issue(raw.line, f"{where}{exc}")
                    continue
                except (ValueError, ArithmeticError, RecursionError, TypeError) as exc:
                    # hostile content must cost one record, never the batch or the run
                    self.issue(raw.line, f"{where}not importable: {short(exc)}")
                    continue
                prev = self.seen_ids.get(row.orig_id)
                if prev is not None:
                    self.issue(raw.line, f"{where}id {row.orig_id!r} was already used on line {prev} of "
                                         "this file; record not imported")
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
                if status != "duplicate" and not states_a_number(r.question):
                    rep.no_number.append(r.line)
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
        total.no_number += len(rep.no_number)
        total.no_number_lines.extend(rep.no_number[:3 - len(total.no_number_lines)])
        for reason, n in rep.filtered.items():
            total.filtered[reason] = total.filtered.get(reason, 0) + n

    def warn(self) -> None:
        """Warnings about what was stored: many questions with no number (a column of the
        question left out?), many duplicates (only part of the question read?)."""
        rep = self.report
        fresh = rep.added - rep.duplicates
        if rep.no_number and rep.no_number >= NO_NUMBER_WARN_SHARE * fresh:
            lines = ", ".join(map(str, rep.no_number_lines))
            rep.warnings.append(
                f"{rep.no_number:,} of {fresh:,} new questions state no number (line {lines}"
                f"{', …' if rep.no_number > len(rep.no_number_lines) else ''}): is part of the question "
                "in another column? --map question=COLUMN1+COLUMN2 joins columns")
        if rep.duplicates and rep.duplicates >= DUPLICATE_WARN_SHARE * rep.added:
            rep.warnings.append(
                f"{rep.duplicates:,} of {rep.added:,} new records repeat a question already stored for "
                f"source {rep.source!r}: is part of the question in another column? (qcstation import "
                "--list-filtered lists them)")

    def finish(self) -> None:
        self.warn()
        rep = self.report
        errors: list[dict[str, Any]] = [{"line": e.line, "message": e.message}
                                        for e in rep.errors[:MAX_STORED_ERRORS]]
        if rep.error_count > len(errors):
            errors.append({"line": None,
                           "message": f"... and {rep.error_count - len(errors)} more errors not stored"})
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
                "errors": rep.error_count, "warnings": list(rep.warnings),
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
    check_readable(p)
    check_decompressed(p)  # a compressed file is checked whole before anything is stored
    fmt = (fmt or "auto").strip().lower()
    if fmt == "auto":
        fmt = detect_format(p)
    elif fmt not in TABLE:
        raise ImportFormatError(f"unknown format {fmt!r}; choose one of auto, {', '.join(TABLE)}",
                                title="Unknown format")
    if level is not None:
        lv = level.strip().lower()
        if lv not in LEVELS:
            raise ImportFormatError(f"unknown level {level!r}; choose easy, medium or hard")
        level = lv
    mapping = dict(mapping or {})
    if mapping:
        if not TABLE[fmt].mapped:
            mapped = ", ".join(n for n, f in TABLE.items() if f.mapped)
            raise ImportFormatError(
                f"column mapping applies to files read by columns ({mapped}), not to the {fmt} "
                f"format; pass --format jsonl or --format csv to read this file with your own columns")
        bad = sorted(set(mapping) - set(GENERIC_FIELDS))
        if bad:
            raise ImportFormatError(f"cannot map {', '.join(map(repr, bad))}: seed fields are "
                                    f"{', '.join(GENERIC_FIELDS)}")
    preset = TABLE[fmt].columns
    full_mapping = {f: mapping.get(f, preset.get(f, f)) for f in GENERIC_FIELDS}
    src = (source or "").strip() or default_source(fmt, p)
    if level is None:
        level = TABLE[fmt].level or level_for_source(src)
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    importer = _Importer(store, p, fmt, src, level, full_mapping, actor or current_actor(), batch_size)
    return importer.run()


def shipped_samples() -> list[tuple[Path, str]]:
    """The small real seed samples shipped in ``qcstation/data`` as (path, format), for an
    offline quick start (see ``qcstation/data/SOURCES.md``)."""
    return [(DATA_DIR / name, fmt) for name, fmt in _SAMPLES if (DATA_DIR / name).exists()]
