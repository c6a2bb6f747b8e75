"""Structured key information (the Understanding dimension).

Two sources: a model's JSON answer, parsed and validated here (untrusted text), and a
rule-based draft for seeds whose solution carries calculator annotations, grounded in
those annotations so that every known quantity is a number of the question and every
relationship an actual solution step. Either way, ``validate_keyinfo`` is the check an
artifact must pass before it is ``verified`` (i.e. ready for human review).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

from qcstation.core.answers import parse_number
from qcstation.core.prompts import KEYINFO_FIELDS, KEYINFO_TITLES
from qcstation.errors import GenerationError

LIST_FIELDS = ("known_quantities", "unknown_quantities", "relationships_and_constraints",
               "irrelevant_information")
TEXT_FIELDS = ("problem_scenario", "goal")
MAX_FIELD_CHARS = 4000

_ALIASES = {re.sub(r"[^a-z]", "", t.lower()): k for k, t in KEYINFO_TITLES.items()}
_ALIASES.update({re.sub(r"[^a-z]", "", k): k for k in KEYINFO_FIELDS})
_NUMBER = re.compile(r"(?<![\w.])[-−]?\$?\d[\d,]*(?:\.\d+)?%?")


class KeyInfoError(GenerationError):
    pass


_WORDS = {w: Fraction(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_WORDS.update({w: Fraction(10 * i) for i, w in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), start=3)})
_WORDS.update({"half": Fraction(1, 2), "twice": Fraction(2), "double": Fraction(2),
               "triple": Fraction(3), "dozen": Fraction(12), "hundred": Fraction(100),
               "thousand": Fraction(1000), "quarter": Fraction(1, 4)})
_WORD_RE = re.compile(r"\b(" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")\b", re.I)


def _numbers(text: str) -> set[Fraction]:
    """Numbers a text states, in digits or (small) number words."""
    out: set[Fraction] = {_WORDS[w.lower()] for w in _WORD_RE.findall(text)}
    for tok in _NUMBER.findall(text):
        parsed = parse_number(tok.rstrip(",").replace("$", ""))
        if parsed is not None:
            out.add(parsed.value)
    return out


def extract_json_object(text: str) -> Any:
    """The first JSON object in a model's answer (Markdown fences and prose around it allowed)."""
    if not isinstance(text, str) or not text.strip():
        raise KeyInfoError("the answer is empty")
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    candidate = fenced.group(1) if fenced else text
    start = candidate.find("{")
    if start == -1:
        raise KeyInfoError("no JSON object found in the answer")
    try:
        obj, _ = json.JSONDecoder().raw_decode(candidate[start:])
    except json.JSONDecodeError as exc:
        raise KeyInfoError(f"the JSON object is malformed: {exc.msg} at char {exc.pos}") from exc
    return obj


def parse_keyinfo(text: str) -> dict[str, Any]:
    """Parse a model's answer into the six fields (normalised key names and types)."""
    obj = extract_json_object(text)
    if not isinstance(obj, dict):
        raise KeyInfoError("the answer is not a JSON object")
    fields: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in obj.items():
        norm = _ALIASES.get(re.sub(r"[^a-z]", "", str(key).lower()))
        if norm is None:
            unknown.append(str(key))
            continue
        fields[norm] = value
    missing = [k for k in KEYINFO_FIELDS if k not in fields]
    if missing:
        raise KeyInfoError("missing field(s): " + ", ".join(KEYINFO_TITLES[k] for k in missing))
    if unknown:
        raise KeyInfoError("unexpected field(s): " + ", ".join(sorted(unknown)[:6]))
    for key in TEXT_FIELDS:
        v = fields[key]
        if isinstance(v, list):
            v = " ".join(str(x) for x in v)
        if not isinstance(v, str):
            raise KeyInfoError(f"{KEYINFO_TITLES[key]} must be text")
        fields[key] = v.strip()
    for key in LIST_FIELDS:
        v = fields[key]
        if v is None or v == "":
            v = []
        if isinstance(v, str):
            v = [v]
        if isinstance(v, dict):
            v = [f"{k}: {val}" for k, val in v.items()]
        if not isinstance(v, list) or not all(isinstance(x, (str, int, float)) for x in v):
            raise KeyInfoError(f"{KEYINFO_TITLES[key]} must be a list of strings")
        fields[key] = [str(x).strip() for x in v if str(x).strip()]
    return {k: fields[k] for k in KEYINFO_FIELDS}


def validate_keyinfo(fields: dict[str, Any], question: str) -> list[str]:
    """Problems that keep key information from review; an empty list means it passes."""
    problems: list[str] = []
    for key in KEYINFO_FIELDS:
        if key not in fields:
            problems.append(f"missing field {KEYINFO_TITLES[key]}")
    if problems:
        return problems
    if not fields["goal"]:
        problems.append("Goal is empty")
    if not fields["problem_scenario"]:
        problems.append("Problem Scenario is empty")
    if not fields["known_quantities"]:
        problems.append("Known Quantities is empty")
    for key in KEYINFO_FIELDS:
        v = fields[key]
        size = len(v) if isinstance(v, str) else sum(len(x) for x in v)
        if size > MAX_FIELD_CHARS:
            problems.append(f"{KEYINFO_TITLES[key]} is too long ({size} characters)")
    in_question = _numbers(question)
    invented = sorted({str(n) for item in fields["known_quantities"] for n in _numbers(item)
                       if n not in in_question and n not in (0, 1)}, key=len)
    if invented:
        problems.append("Known Quantities mention number(s) not in the problem: " + ", ".join(invented[:5]))
    return problems


# ------------------------------------------------------------------ rule-based draft
_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z$0-9])")
_ANNOT = re.compile(r"<<([^<>=]*)=([^<>]*)>>")
# the annotation and the result written after it: "= <<16-3-4=9>>9 eggs" -> "= ? eggs"
_ANNOT_WITH_RESULT = re.compile(r"<<[^<>]*>>\s*\$?-?[\d,]*\.?\d*")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def keyinfo_from_annotations(question: str, solution: str, steps: list[Any]) -> dict[str, Any]:
    """A draft grounded in the seed's calculator-annotated solution.

    ``steps`` are the rule steps (``name``, ``expr_text``, ``result``) behind the
    verified formalization. Known quantities are the question's sentences carrying the
    numbers the steps use; irrelevant information the sentences whose numbers no step
    uses; relationships the steps themselves; unknowns the step results, unvalued.
    """
    sents = _sentences(question)
    if not sents:
        raise KeyInfoError("the question has no sentences")
    goal_idx = next((i for i in range(len(sents) - 1, -1, -1) if sents[i].endswith("?")), len(sents) - 1)
    goal = sents[goal_idx]
    context = [s for i, s in enumerate(sents) if i != goal_idx]
    used: set[Fraction] = set()
    for st in steps:
        used |= _numbers(str(st.expr_text))
    known: list[str] = []
    irrelevant: list[str] = []
    for s in sents:
        nums = _numbers(s)
        if not nums:
            continue
        if nums & used:
            known.append(s)
        elif s != goal:
            irrelevant.append(s)
    lines = [ln.strip() for ln in solution.split("\n") if "<<" in ln]
    unknown: list[str] = []
    relations: list[str] = []
    for i, st in enumerate(steps):
        label = st.name
        expr = str(st.expr_text).replace("*", " × ").replace("/", " ÷ ")
        expr = re.sub(r"\s+", " ", expr.replace("+", " + ").replace("-", " − ")).strip()
        relations.append(f"{label} = {expr}")
        desc = _ANNOT_WITH_RESULT.sub("?", lines[i]) if i < len(lines) else ""
        desc = re.sub(r"\s+", " ", desc).strip()
        unknown.append(f"{label}: {desc}" if desc else label)
    if unknown:
        unknown[-1] = unknown[-1] + " (the value asked for)"
    scenario = " ".join(context[:2]) if context else goal
    return {
        "problem_scenario": scenario,
        "goal": goal,
        "known_quantities": known or [s for s in context if _numbers(s)],
        "unknown_quantities": unknown,
        "relationships_and_constraints": relations,
        "irrelevant_information": irrelevant,
    }
