"""Structured key information (the Understanding dimension).

Two sources: a model's JSON answer, parsed and validated here (untrusted text), and a
rule-based draft for seeds whose solution carries calculator annotations
(:mod:`.keyinfo_draft`). Either way, ``validate_keyinfo`` is the check an artifact must pass
before it is ``verified`` (i.e. ready for human review). Also here: the editable text form a
reviewer's fix is written in (:func:`keyinfo_to_text`, :func:`keyinfo_from_text`).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

from qcstation.core.reading.textnumbers import numbers_in as _numbers
from qcstation.common.vocab import KEYINFO_FIELDS, KEYINFO_TITLES
from qcstation.common.errors import GenerationError

LIST_FIELDS = ("known_quantities", "unknown_quantities", "relationships_and_constraints",
               "irrelevant_information")
TEXT_FIELDS = ("problem_scenario", "goal")
MAX_FIELD_CHARS = 4000

_ALIASES = {re.sub(r"[^a-z]", "", t.lower()): k for k, t in KEYINFO_TITLES.items()}
_ALIASES.update({re.sub(r"[^a-z]", "", k): k for k in KEYINFO_FIELDS})


class KeyInfoError(GenerationError):
    pass




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


_CONTENT_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# (a sentence ending in "?" is matched from where it starts, as the leftmost match always was:
# tried at every character of a long sentence without one, it read the rest of it each time)
_ASKING = re.compile(r"(?:^|(?<=[.?!]))[^.?!]*\?|(?:^|(?<=[.!]\s))(?:find|calculate|determine|compute|what|how)\b[^.?!]*", re.I)
#: words too common to show that two texts speak of the same thing
_COMMON = frozenset("""the and how what which who many much does did will was were are is has have had
for with that this from into she her his him they them their its you your not all can could would
should there then than when where why each per any some one more less has been being let find
calculate determine compute value number""".split())


def _words(text: str) -> set[str]:
    out = set()
    for w in _CONTENT_WORD.findall(text or ""):
        low = w.lower()
        if (len(low) >= 3 or any(c.isdigit() for c in low)) and low not in _COMMON:
            out.add(low[:-1] if low.endswith("s") and len(low) > 3 else low)
    return out


def keyinfo_content_problems(fields: dict[str, Any], question: str) -> list[str]:
    """Key information checked for content, not only for shape (issue 31.10): every number the
    question states (in digits, or as a counting word from two up) is in Known Quantities or
    Irrelevant Information (or the Goal, for the numbers of the asked sentence); the Goal names what the question asks (a word of its asking
    sentence); every relationship uses the quantities (a number of the question or a word of
    the known or unknown quantities). Fields already refused for shape are not read here."""
    problems: list[str] = []
    # (a number of the asked sentence may stand in the Goal: "the three girls", "two weeks")
    listed = " ".join(str(x) for k in ("known_quantities", "irrelevant_information")
                      for x in (fields.get(k) or [])) + " " + str(fields.get("goal") or "")
    have = _numbers(listed)
    missing = sorted((v for v in _numbers(question) if v not in have and v not in (0, 1)), key=float)
    if missing:
        problems.append("the problem states " + ", ".join(_show_number(v) for v in missing[:6])
                        + ", which neither Known Quantities nor Irrelevant Information lists")
    asking = " ".join(_ASKING.findall(question or "")) or (question or "")
    goal = str(fields.get("goal") or "")
    if goal and not (_words(goal) & _words(asking)):
        problems.append("the Goal does not name what the problem asks (it shares no word with the "
                        "problem's question)")
    quantities = " ".join(str(x) for k in ("known_quantities", "unknown_quantities")
                          for x in (fields.get(k) or []))
    qwords, qnums = _words(quantities), _numbers(question)
    rels = [str(r) for r in (fields.get("relationships_and_constraints") or [])]
    if not rels:
        problems.append("Relationships and Constraints is empty")
    vague = [r for r in rels if not (_words(r) & qwords) and not (_numbers(r) & qnums)]
    if vague:
        problems.append(f"{len(vague)} relationship(s) name no quantity of the problem "
                        f"(e.g. {vague[0][:80]!r})")
    return problems


def _show_number(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"



# ------------------------------------------------------------------ editable text form


MAX_EDIT_CHARS = 6 * MAX_FIELD_CHARS


def keyinfo_to_text(fields: dict[str, Any]) -> str:
    """The six fields as text a reviewer edits: ``Title: text`` for the two text fields,
    ``Title:`` followed by ``- item`` lines for the lists (read back by :func:`keyinfo_from_text`)."""
    out: list[str] = []
    for key in KEYINFO_FIELDS:
        value = fields.get(key)
        if key in TEXT_FIELDS:
            out.append(f"{KEYINFO_TITLES[key]}: {' '.join(str(value or '').split())}")
        else:
            out.append(f"{KEYINFO_TITLES[key]}:")
            out.extend(f"- {' '.join(str(x).split())}" for x in (value or []))
    return "\n".join(out) + "\n"


def keyinfo_from_text(text: str) -> dict[str, Any]:
    """Parse the edited text form (untrusted: size-limited, every field required once)."""
    if len(text) > MAX_EDIT_CHARS:
        raise KeyInfoError(f"the text is too long ({len(text)} characters; at most {MAX_EDIT_CHARS})")
    titles = {re.sub(r"[^a-z]", "", t.lower()): k for k, t in KEYINFO_TITLES.items()}
    fields: dict[str, Any] = {}
    current: str | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(("- ", "* ")) or line in ("-", "*"):
            if current is None or current in TEXT_FIELDS:
                raise KeyInfoError(f"line {lineno}: a list item outside a list field")
            item = line[1:].strip()
            if item:
                fields[current].append(item)
            continue
        head, sep, rest = line.partition(":")
        key = titles.get(re.sub(r"[^a-z]", "", head.lower())) if sep else None
        if key is None:
            if current in TEXT_FIELDS:   # a text field continued on the next line
                fields[current] = (fields[current] + " " + line).strip()
                continue
            raise KeyInfoError(f"line {lineno}: expected 'Title:' of one of the six fields or "
                               f"'- item', got {line[:40]!r}")
        if key in fields:
            raise KeyInfoError(f"line {lineno}: {KEYINFO_TITLES[key]} appears twice")
        current = key
        if key in TEXT_FIELDS:
            fields[key] = rest.strip()
        else:
            fields[key] = [rest.strip()] if rest.strip() else []
    missing = [KEYINFO_TITLES[k] for k in KEYINFO_FIELDS if k not in fields]
    if missing:
        raise KeyInfoError("missing field(s): " + ", ".join(missing))
    return {k: fields[k] for k in KEYINFO_FIELDS}
