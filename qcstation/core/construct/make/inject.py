"""Rule-based injection of SMART's six error types into a correct chain of thought.

A clean CoT is a list of steps (:func:`clean_cot`: GSM8K annotations stripped,
``#### 18`` turned into ``The answer is 18.``). Each injector changes the CoT in
exactly the way its name says and returns a record a reviewer can check:

* ``arithmetic_inaccuracy``: one written result of a computation is changed
  (``16 - 3 - 4 = 9`` -> ``16 - 3 - 4 = 10``), never to a value another operator
  would give (that would read as operator misuse).
* ``omitted_step``: one step is removed (preferably one whose result a later step uses).
* ``hallucinated_content``: a step stating a fact the problem does not contain, with a
  number that appears nowhere in the CoT, is inserted after a computation.
* ``logical_disorder``: a step is moved before the step that derives a number it uses.
* ``redundancy``: an earlier computation is restated as an extra step (no new numbers).
* ``operator_misuse``: one operator of a computation is swapped (+ <-> −, × <-> ÷)
  and the result follows the wrong operator (its arithmetic is right, so it does not
  read as an arithmetic inaccuracy).

As in SMART, an error that changes a value propagates: the later computations that
use it are recomputed and the final line states the new answer (an injection whose
change cannot reach the final answer is redrawn). Omitted step, logical disorder and
redundancy keep every value by definition; their records say so (``changes_answer``,
``keeps_answer_reason``). :func:`inject_errors` applies n *distinct* types, sampled
uniformly with a seeded RNG (same seed, same output); each injector raises
:class:`InjectionError` when it cannot apply; with ``redraw=False`` (the pipeline)
a drawn type that cannot apply is an error rather than replaced by another.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from fractions import Fraction
from typing import Any

from qcstation.core.construct.make.inject_chain import (
    ChainState,
    ChainStep,
    EditRecord,
    InjectionError,
    final_value,
    format_result,
    numbers_in,
)
from qcstation.core.construct.make.inject_types import INJECTORS
from qcstation.core.construct.make.rules import ANNOTATION_RE
from qcstation.core.reading.slips import answer_unreached, computation_numbers, line_slip, question_counts, slip_in

__all__ = [
    "ERROR_TYPES",
    "ERROR_DESCRIPTIONS",
    "InjectionError",
    "InjectedError",
    "InjectedCoT",
    "clean_cot",
    "inject_errors",
    "applicable_types",
]

ERROR_TYPES: tuple[str, ...] = (
    "arithmetic_inaccuracy",
    "omitted_step",
    "hallucinated_content",
    "logical_disorder",
    "redundancy",
    "operator_misuse",
)

# the names SMART's paper gives the six types (§3.3.2, singular; the evaluation maps them back to ids)
ERROR_NAMES: dict[str, str] = {
    "arithmetic_inaccuracy": "Arithmetic Inaccuracy",
    "omitted_step": "Omitted Step",
    "hallucinated_content": "Hallucinated Content",
    "logical_disorder": "Logical Disorder",
    "redundancy": "Redundancy",
    "operator_misuse": "Operator Misuse",
}

# types whose edit, by definition, leaves every computed value as it was: the final
# answer stays the gold one and the record says so
KEEPS_ANSWER: dict[str, str] = {
    "omitted_step": "a step is missing but the later steps keep its result, so the final answer is unchanged",
    "logical_disorder": "the steps are out of order but every value is the same, so the final answer is unchanged",
    "redundancy": "the extra step repeats a value, so the final answer is unchanged",
}

ERROR_DESCRIPTIONS: dict[str, str] = {
    "arithmetic_inaccuracy": "a computed result is wrong",
    "omitted_step": "a necessary step is missing",
    "hallucinated_content": "a fact or number that is not in the problem is used",
    "logical_disorder": "a step uses a result before it is derived",
    "redundancy": "an unnecessary, repeated step is included",
    "operator_misuse": "a wrong operator is used in a computation (the result follows the wrong operator)",
}


@dataclass
class InjectedError:
    type: str
    step: int  # 0-based index in the resulting CoT
    original: str  # the step before the change ("" for an inserted step)
    modified: str  # the step after the change ("" for a removed step)
    description: str
    related_step: int | None = None  # 0-based index of the step the change refers to, if any
    name: str = ""  # the paper's name of the type
    changes_answer: bool = True  # False only for the types in KEEPS_ANSWER
    keeps_answer_reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class InjectedCoT:
    steps: list[str]
    text: str
    errors: list[InjectedError] = field(default_factory=list)
    seed: int = 0
    gold_answer: str | None = None  # the final answer of the correct CoT
    wrong_answer: str | None = None  # the final answer the erroneous CoT states

    def to_dict(self) -> dict[str, Any]:
        return {"steps": list(self.steps), "text": self.text, "seed": self.seed,
                "errors": [e.to_dict() for e in self.errors],
                "gold_answer": self.gold_answer, "wrong_answer": self.wrong_answer}


# --------------------------------------------------------------------------- clean CoT

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\(])")


#: a final line that states a plain number ("The answer is 1,035.")
_STATED_ANSWER = re.compile(r"The answer is \$?(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)\.?")

_FINAL_LINE = re.compile(r"(answer is|^####|^answer\s*:)", re.I)


def clean_cot(solution: str, answer: str | None = None) -> list[str]:
    """Split a solution into steps. GSM8K style (``<<...>>`` annotations and/or a
    ``#### n`` line): one step per line, annotations removed, ``#### n`` becomes
    ``The answer is n.``. Other text: one step per non-empty line; a single long
    paragraph is split into sentences. With ``answer`` (the gold answer text), a
    CoT whose last step does not state an answer gets ``The answer is <answer>.``."""
    steps = _split_steps(solution)
    if answer is not None and str(answer).strip() and steps and not _FINAL_LINE.search(steps[-1]):
        steps.append(f"The answer is {str(answer).strip().rstrip('.')}.")
    return steps


def _split_steps(solution: str) -> list[str]:
    text = (solution or "").replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return []
    gsm8k = bool(ANNOTATION_RE.search(text)) or bool(re.search(r"^\s*####", text, re.M))
    steps: list[str] = []
    if gsm8k:
        for line in text.split("\n"):
            line = ANNOTATION_RE.sub("", line).strip()
            if not line:
                continue
            m = re.match(r"^####\s*(.*?)\s*$", line)
            if m:
                answer = m.group(1).rstrip(".")
                steps.append(f"The answer is {answer}." if answer else line)
            else:
                steps.append(re.sub(r"[ \t]{2,}", " ", line))
        return steps
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    if len(lines) == 1:
        lines = [s.strip() for s in _SENTENCE_SPLIT.split(lines[0]) if s.strip()]
    return _drop_option_letters(lines)


# "Answer: E", "ANSWER:B", "The answer is (A).", "Answer: Option C", "Correct option: D", "B"
_OPTION_LINE = re.compile(
    r"^(?:(?:hence|so|thus|therefore)\s*,?\s*)?(?:the\s+)?(?:correct\s+|right\s+)?"
    r"(?:(?:answer|ans|option|choice)\b\s*(?:is\s*)?[:\-=]?\s*(?:is\s*)?(?:option\s*)?)?"
    r"\(?[A-Ea-e]\)?\s*[.!]?\s*$", re.I)
# ((?<!\s): tried where a run of spaces starts, never inside it, which read the rest of the
# run at each of its characters; its leading \s* takes the whole run, so it finds the same)
_OPTION_TAIL = re.compile(
    r"(?<!\s)(?:\s*(?:(?:hence|so|thus|therefore)\s*,?\s*)?(?:the\s+)?(?:correct\s+)?(?:answer|option)\s*"
    r"(?:is\s*)?[:\-=]?\s*(?:option\s*)?\(?[A-E]\)\s*[.!]?\s*$|"
    r"\s*(?:(?:hence|so|thus|therefore)\s*,?\s*)?(?:the\s+)?(?:correct\s+)?(?:answer|option)\s*"
    r"(?:is\s*)?[:\-=]?\s*(?:option\s*)?[A-E]\s*[.!]?\s*$)", re.I)


_EMPTY_ANSWER_LINE = re.compile(r"^(?:the\s+)?(?:correct\s+)?answer\s*(?:is)?\s*[:\-=]?\s*[(\[]?\s*$", re.I)


def _drop_option_letters(lines: list[str]) -> list[str]:
    """A multiple-choice rationale (AQuA) names its option letter at the end
    ("Answer: E"): that line (or tail) is dropped, so the chain of thought states
    numbers only and the final answer line comes from the gold answer."""
    out = list(lines)
    while out and (_OPTION_LINE.match(out[-1]) or _EMPTY_ANSWER_LINE.match(out[-1])):
        out.pop()
    if out:
        tail = _OPTION_TAIL.sub("", out[-1]).rstrip()
        if tail != out[-1]:
            if tail.strip(" ,;:"):
                out[-1] = tail
            else:
                out.pop()
    return out


# --------------------------------------------------------------------------- public API


#: the longest chain of thought errors are injected into: far above a worked solution (GSM8K:
#: 1,228 characters and 11 lines at most) or a model's, and low enough that one costs bounded
#: time (each type weighs every step against the others: 1,600 steps took 16 s of CPU)
MAX_COT_CHARS = 20_000
MAX_COT_STEPS = 200


def _initial_state(solution: str, rng_seed: int, question: str | None = None,
                   answer: str | None = None) -> ChainState:
    steps_text, given = _checked_chain(solution, question, answer)
    steps = [ChainStep(i, t) for i, t in enumerate(steps_text)]
    steps[-1].final = True
    return ChainState(steps, random.Random(rng_seed), question_numbers=set(given), next_id=len(steps))


def _checked_chain(solution: str, question: str | None, answer: str | None
                   ) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
    """The steps of a correct chain (:func:`clean_cot`) and the question's numbers, or
    :class:`InjectionError` saying why the solution is no correct chain (:func:`_read_chain`,
    read once per texts: a parent's refinement ladder injects into its one solution six times)."""
    got = _read_chain(solution, question, answer)
    if isinstance(got, str):
        raise InjectionError(got)
    return got


@lru_cache(maxsize=64)
def _read_chain(solution: str, question: str | None, answer: str | None
                ) -> tuple[tuple[str, ...], tuple[Fraction, ...]] | str:
    if len(solution) > MAX_COT_CHARS:
        return (f"the solution has {len(solution):,} characters; errors are injected into at most "
                f"{MAX_COT_CHARS:,}")
    steps_text = clean_cot(solution, answer)
    if not steps_text:
        return "the solution is empty"
    if len(steps_text) > MAX_COT_STEPS:
        return f"the solution has {len(steps_text):,} steps; errors are injected into at most {MAX_COT_STEPS}"
    if question:
        # a chain whose prose the question contradicts ("in 9 weeks" for its "6 weeks") is no
        # correct chain: its errors would not be the injected ones alone
        counts, known = question_counts(question), computation_numbers(solution)
        for i, text in enumerate(steps_text):
            slip = slip_in(text, counts, known) or line_slip(text, question)
            if slip is not None:
                return f"step {i + 1} of the chain reads {slip}: the chain is not correct as written"
    stated = _STATED_ANSWER.fullmatch(steps_text[-1].strip())
    if stated and len(steps_text) > 1 and answer_unreached(steps_text[:-1], Fraction(stated.group(1).replace(",", ""))):
        # "48 + 16 = 64 points" over "#### 66": the lines answer another reading than the gold
        return (f"no line of the chain reaches its final answer {stated.group(1)}: the chain is not "
                "correct as written")
    given = tuple(v for _, v in numbers_in(question)) if question else ()   # (set in this order)
    return tuple(steps_text), given


def inject_errors(
    solution: str,
    n_errors: int = 1,
    *,
    rng_seed: int = 0,
    types: Sequence[str] | None = None,
    question: str | None = None,
    answer: str | None = None,
    redraw: bool = True,
) -> InjectedCoT:
    """Inject ``n_errors`` distinct error types into a correct solution.

    Without ``types`` the types are sampled uniformly (seeded); a type that cannot
    apply is replaced by another. With ``types`` exactly those are applied (when
    ``len(types) > n_errors``, ``n_errors`` of them are sampled) and a type that
    cannot apply raises InjectionError. Deterministic for a given ``rng_seed``.

    ``question`` (optional, the seed problem) keeps made-up numbers out of the
    problem's own numbers and makes dependency detection (logical disorder)
    ignore numbers the problem gives. ``answer`` (optional, the gold answer text)
    adds a final ``The answer is ...`` step when the solution has none (a seed
    stored without its ``#### n`` line); the final step states the final value
    (recomputed when an error changes a value that reaches it).

    ``redraw=False`` keeps SMART's uniform draw of the types for every source: the
    sampled types must apply, and one that cannot raises InjectionError instead of
    being replaced by a type that happens to fit (which would skew the mix towards
    the types every text admits)."""
    if not 1 <= n_errors <= len(ERROR_TYPES):
        raise InjectionError(f"n_errors must be between 1 and {len(ERROR_TYPES)}, got {n_errors}")
    if types is not None:
        unknown = [t for t in types if t not in ERROR_TYPES]
        if unknown:
            raise InjectionError(f"unknown error type(s) {unknown}; known: {', '.join(ERROR_TYPES)}")
        if len(set(types)) != len(types):
            raise InjectionError(f"error types must be distinct, got {list(types)}")
        if len(types) < n_errors:
            raise InjectionError(f"{n_errors} errors requested but only {len(types)} type(s) given")
    st = _initial_state(solution, rng_seed, question, answer)
    gold_final = final_value(st)
    if types is not None:
        forced = list(types)
        order = forced if len(forced) == n_errors else st.rng.sample(forced, n_errors)
    elif not redraw:
        order = st.rng.sample(list(ERROR_TYPES), n_errors)
    else:
        order = st.rng.sample(list(ERROR_TYPES), len(ERROR_TYPES))
    records: list[EditRecord] = []
    failures: list[str] = []
    gold = {s.id: s.text for s in st.steps}
    edited: set[int] = set()        # steps an earlier error edited, moved, removed or inserted
    recomputed: set[int] = set()    # steps an earlier error's new value was carried into
    for etype in order:
        if len(records) == n_errors:
            break
        saved = ([replace(s) for s in st.steps], set(st.touched), set(st.pinned), st.next_id)
        try:
            record = INJECTORS[etype](st)
            _keep_apart(record, st.touched - saved[1], edited, recomputed)
        except InjectionError as exc:
            st.steps, st.touched, st.pinned, st.next_id = saved
            if types is not None or not redraw:
                raise InjectionError(f"cannot inject {etype}: {exc}") from exc
            failures.append(f"{etype}: {exc}")
            continue
        records.append(record)
        # what it changed, and the steps its record points at (a restated step, the step a
        # moved one depends on): a later error must change none of them
        edited |= (st.touched - saved[1]) | (st.pinned - saved[2])
        recomputed |= set(record.propagated)
    if len(records) < n_errors:
        raise InjectionError(
            f"only {len(records)} of {n_errors} error type(s) apply to this solution ("
            + "; ".join(failures) + ")"
        )
    steps = [s.text for s in st.steps]
    errors: list[InjectedError] = []
    for r in records:
        step = st.index(r.step_id)
        related = st.index(r.related_id) if r.related_id is not None else None
        description = r.description.format(step=step + 1, related=(related + 1) if related is not None else "?")
        keeps = KEEPS_ANSWER.get(r.type, "")
        # the text as the final chain shows it, and as the correct chain does
        modified = st.steps[step].text if r.modified else ""
        original = gold.get(r.origin_id if r.origin_id is not None else r.step_id, r.original) \
            if r.original else ""
        errors.append(InjectedError(r.type, step, original, modified, description, related,
                                    ERROR_NAMES[r.type], not keeps, keeps))
    wrong = final_value(st)
    return InjectedCoT(steps, "\n".join(steps), errors, rng_seed,
                       gold_answer=format_result(gold_final, "0") if gold_final is not None else None,
                       wrong_answer=format_result(wrong, "0") if wrong is not None else None)


def _keep_apart(record: EditRecord, now: set[int], edited: set[int], recomputed: set[int]) -> None:
    """The errors of one chain keep to their own steps: this one edits no step an earlier
    error edited or carried a value into (its record's "before" is then the correct chain's
    text), and carries its own value into no step an earlier error edited (their records
    stay true of the final chain; recomputing a step only carried into is fine, as the final
    line shows). :class:`InjectionError` otherwise (another type is drawn)."""
    if now & (edited | recomputed):
        raise InjectionError("it would edit a step an earlier error changed")
    if set(record.propagated) & edited:
        raise InjectionError("its recomputation would change the step of an earlier error")


def applicable_types(solution: str, question: str | None = None, answer: str | None = None) -> list[str]:
    """The error types that can be injected (alone) into this solution."""
    out = []
    for etype in ERROR_TYPES:
        try:
            INJECTORS[etype](_initial_state(solution, 0, question, answer))
        except InjectionError:
            continue
        out.append(etype)
    return out

