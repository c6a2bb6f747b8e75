"""The slip checks read their question once per question: its sentences with their numbers
(:func:`qcstation.core.reading.name_slips._sentences`: the key information and the chain errors
are injected into ask :func:`~qcstation.core.reading.name_slips.name_slip` of every line, and
each call split the question into sentences and read each one's numbers again) and its counts
(:func:`qcstation.core.reading.slips.question_counts`: read by both for every derived item) and
the counts of dozens it states (:func:`qcstation.core.reading.slips._dozens`: the rules'
independent checks ask :func:`~qcstation.core.reading.slips.dozen_dropped` of every line too).
What they find is what a reading per call found, on every GSM8K test question and solution."""

from __future__ import annotations

import json
import re

from qcstation.core.reading import name_slips, slips
from qcstation.core.reading.answers import written_numbers
from qcstation.core.reading.name_slips import name_slip
from tests.conftest import dataset


def _per_call(line: str, question: str) -> str | None:
    """name_slip as it read the question at every call (the reference)."""
    line, question = line[:20_000], question[:20_000]
    sentences = [(s.group(0), written_numbers(s.group(0))) for s in name_slips._SENTENCE.finditer(question)]
    prose = re.sub(r"<<[^<>]{0,400}>>", " ", line)
    used = written_numbers(prose)
    stated = {v for v in used for _s, vals in sentences if v in vals}
    if not stated:
        return None
    written = name_slips._names(prose)
    theirs = [s for s, vals in sentences if vals & stated]
    if any(re.search(rf"\b{n}\b", t) for n in written for t in theirs):
        return None
    for name in sorted(written):
        of_name = [(s, vals) for s, vals in sentences if re.search(rf"\b{name}\b", s)]
        numbered = [(s, vals) for s, vals in of_name if vals]
        if not of_name or len(numbered) != len(of_name) or any(vals & stated for _s, vals in numbered):
            continue
        parallel = [t for t in theirs for n, _v in numbered if name_slips._alike(n, t)
                    and name_slips._names(t) - {name} and not (name_slips._names(t) & name_slips._names(n))]
        if parallel:
            return f"{name!r} for numbers the question states of another: {parallel[0].strip()[:70]!r}"
    return None


def test_every_gsm8k_line_reads_as_it_did_and_the_question_once() -> None:
    rows = [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()]
    slips = 0
    for r in rows:
        name_slips._sentences.cache_clear()
        lines = r["answer"].splitlines()
        for line in lines:
            got = name_slip(line, r["question"])
            assert got == _per_call(line, r["question"]), (r["question"][:60], line)
            slips += got is not None
        assert name_slips._sentences.cache_info().misses <= 1   # (none: no line states a number)
    classes = ("In Miss Vale's class, 1/6 of the 30 students prefer apples. In Mr. Brook's class, "
               "2/3 of the 24 students prefer apples. How many prefer apples?")
    line = "Then find the apple fans in Miss Vale's class: 2/3 * 24 = <<2/3*24=16>>16"
    assert name_slip(line, classes) == _per_call(line, classes) is not None
    assert slips == sum(_per_call(ln, r["question"]) is not None for r in rows for ln in r["answer"].splitlines())


def test_a_questions_counts_are_read_once_and_are_a_fresh_readings() -> None:
    rows = [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()]
    slips.question_counts.cache_clear()
    for r in rows:
        q = r["question"]
        kept, fresh = slips.question_counts(q), slips.QuestionCounts(q)
        assert slips.question_counts(q) is kept
        assert (kept.by_noun, kept.money, kept.said, kept.compared) == \
            (fresh.by_noun, fresh.money, fresh.said, fresh.compared), q[:60]
        for line in r["answer"].splitlines():
            known = slips.computation_numbers(line)
            assert slips.slip_in(line, kept, known) == slips.slip_in(line, fresh, known)
    assert slips.question_counts.cache_info().misses == len(rows)


def _dozen_per_call(line: str, question: str) -> str | None:
    """dozen_dropped as it read the question at every call (the reference)."""
    prose = slips._ANNOTATION.sub(" ", line[:20_000])
    if slips._TWELVE.search(prose):
        return None
    for m in slips._DOZENS.finditer(question[:20_000]):
        count, noun = m.group(1), m.group(2).lower()
        if not count[0].isdigit() and count.lower() not in slips.NUMBER_WORD_VALUES:
            continue
        stem = noun[:-1] if noun.endswith("s") else noun
        phrase = re.compile(rf"(?<![\w.,$]){re.escape(count)}\s+{re.escape(stem)}s?\b", re.I)
        said = phrase.search(prose)
        if said and not phrase.search(question[:20_000]):
            return f"{said.group(0)!r} for the question's {m.group(0)!r}"
    return None


def test_a_dozen_dropped_is_found_as_the_reading_per_line_found_it() -> None:
    rows = [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()]
    cases = [(r["question"], line) for r in rows for line in r["answer"].splitlines()]
    cookies = "Ann needs 6 cups of flour to bake 30 cookies. How many cups for 10 dozen cookies and two dozens of eggs?"
    cases += [(cookies, "To bake 10 cookies she needs 10/5 = <<10/5=2>>2 cups"),
              (cookies, "10 dozen cookies is 10*12 = <<10*12=120>>120 cookies"),
              (cookies, "She uses two eggs"), ("Bo has many dozen apples.", "Bo has many apples")]
    found = 0
    for question, line in cases:
        got = slips.dozen_dropped(line, question)
        assert got == _dozen_per_call(line, question), (question[:60], line)
        found += got is not None
    assert found >= 2
