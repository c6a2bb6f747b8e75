"""The automatic checks of artifact contents, one rule each, shared by every caller.

* :func:`expected_answer`: the gold a formalization must compute (exact where possible).
* :func:`notation_smtlib`: THE SMT-LIB of a notation question (Arithmetic): rebuilt from
  the question's own structure, so Z3 checks what a solver is shown. Verification
  (generate, verify, fix in place) and release export both call it, so the SMT-LIB a
  release publishes is the one Z3 checked.
* :func:`check_refinement`: the consistency of an injected-error record.
* :func:`cot_answer_ok`: a model's chain of thought ends with the gold answer.
* :func:`meaning_refusal`: a model-made formalization means its question
  (:mod:`qcstation.core.verify.meaning`); :func:`rounded_gold_match`: a gold the data rounds
  (AQuA's options) compared as the data rounds it; :func:`model_feedback`: what a model is
  told, never the gold; :func:`normalize_smtlib`: the published script ends in
  ``(check-sat)`` and ``(get-value (answer))``.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

from qcstation.core.reading.answers import ExactAnswer, parse_number

__all__ = ["expected_answer", "notation_smtlib", "check_refinement", "cot_answer_ok", "meaning_refusal",
           "rounded_gold_match", "model_feedback", "redact_gold", "normalize_smtlib"]


def expected_answer(seed: dict[str, Any]) -> ExactAnswer | str | None:
    """The seed's gold answer as the verifier compares it: exact when it parses as a number."""
    parsed = parse_number(seed["answer_text"])
    if parsed is not None:
        return parsed
    return seed.get("answer_value")


def notation_smtlib(content: dict[str, Any]) -> tuple[str, str | None]:
    """SMT-LIB rebuilt from the notation question's own text (read by
    :mod:`.notation_reader`, any plain wording), so Z3 checks the question a solver is
    shown; a rule-made question must still be the deterministic rendering of its source
    SMT-LIB, and a model's rephrasing of it must pass the rephrasing check and read back
    into SMT-LIB of its own."""
    from qcstation.core.construct.make.notation import NotationError, notation_to_smtlib, render_notation
    from qcstation.core.construct.check.notation_reader import notation_smtlib_of, read_notation

    if content.get("form") in ("model", "human"):
        # written by a model from SMT-LIB the renderer could not handle, or edited by a
        # reviewer (fixed in place): the question's own text is read and executed
        try:
            return notation_smtlib_of(read_notation(str(content.get("notation", "")))), None
        except NotationError as exc:
            return "", f"the question cannot be read into SMT-LIB: {exc}"
    try:
        q = render_notation(str(content.get("smtlib", "")))
    except NotationError as exc:
        return "", f"the source SMT-LIB cannot be rendered: {exc}"
    rendered = content.get("rendered", content.get("notation"))
    if q.text != rendered:
        return "", "the notation question no longer matches the rendering of its SMT-LIB"
    shown = str(content.get("notation", ""))
    if shown != q.text:
        # a model's rephrasing: checked again on every verification, not only when it was made
        from qcstation.core.construct.check.notation_rephrasing import check_rephrasing

        problems = check_rephrasing(q, shown)
        if problems:
            return "", "the rephrased question drifted from its rendering: " + "; ".join(problems)
        try:  # and Z3 checks the rephrasing itself, not only the rendering it came from
            return notation_smtlib_of(read_notation(shown)), None
        except NotationError as exc:
            return "", f"the rephrased question cannot be read into SMT-LIB of its own: {exc}"
    return notation_to_smtlib(q), None


def check_refinement(content: dict[str, Any]) -> list[str]:
    problems = []
    errors = content.get("errors") or []
    if not errors:
        problems.append("no error was injected")
    if content.get("w_cot", "").strip() == content.get("gt_cot", "").strip():
        problems.append("the erroneous chain of thought equals the correct one")
    from qcstation.core.construct.make.inject import ERROR_TYPES

    bad = [e.get("type") for e in errors if e.get("type") not in ERROR_TYPES]
    if bad:
        problems.append(f"unknown error type(s): {bad}")
    wrong, gold = content.get("wrong_answer"), content.get("gold_answer")
    if wrong is not None and gold is not None and wrong == gold \
            and any(e.get("changes_answer") for e in errors if isinstance(e, dict)):
        problems.append("an error that changes a value left the final answer at the gold one")
    return problems


_ANSWER_LINE = re.compile(r"(?:answer is|####)\s*:?\s*\$?\s*([-−]?[\d,]*\.?\d+(?:/\d+)?)", re.I)
# the whole rest of the line after "The answer is": "\frac{14}{3}.", "$\boxed{7}$", "14/3 cm."
_ANSWER_TAIL = re.compile(r"(?:answer is|####)\s*:?\s*([^\n]{1,200})", re.I)


def final_answer(text: str) -> tuple[str, ExactAnswer] | None:
    r"""The number of a chain of thought's last "The answer is ..." line, written in digits or in
    LaTeX (``\frac{14}{3}``, ``\dfrac{1}{2}``, ``\boxed{...}``, ``$...$``), with how it was
    written; None when there is no such line or it holds no single number."""
    tails = list(_ANSWER_TAIL.finditer(text or ""))
    if not tails:
        return None
    tail = tails[-1].group(1).strip()
    whole = parse_number(tail.rstrip(". "))
    if whole is not None:
        return tail.rstrip(". "), whole
    m = list(_ANSWER_LINE.finditer(text or ""))
    if m and m[-1].start() >= tails[-1].start() - 20:
        got = parse_number(m[-1].group(1))
        if got is not None:
            return m[-1].group(1), got
    return None


def cot_answer_ok(text: str, seed: dict[str, Any]) -> tuple[bool, str]:
    from qcstation.core.reading.answers import matches

    if not _ANSWER_TAIL.search(text or ""):
        return False, "no final line 'The answer is <number>' found"
    found = final_answer(text)
    gold = parse_number(seed["answer_text"])
    if found is None or gold is None:
        return False, "the final answer is not a number"
    written, got = found
    if not matches(got.value, gold):
        return False, f"the final answer {written} does not match the expected answer"
    # a chain of thought shows how it gets there: some step before the final line writes the
    # final value ("= 18", "\frac{14}{3}"), else it is an answer with words around it
    from qcstation.core.verify.meaning import stated_numbers

    before = (text or "")[:list(_ANSWER_TAIL.finditer(text))[-1].start()]
    if abs(got.value) not in stated_numbers(before) and abs(gold.value) not in stated_numbers(before):
        return False, ("no step before the final line computes the final answer: write the calculation "
                       "that gives it, one step per line")
    return True, ""


# ---------------------------------------------------------------- model-made SMT-LIB (issue 31)
def meaning_refusal(smt: str, seed: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """``result`` of a script Z3 verified, refused (status ``meaning``) when the script does
    not mean its question (:func:`qcstation.core.verify.meaning.check_meaning`); the check's
    findings are recorded under ``meaning`` either way."""
    from qcstation.core.verify.meaning import check_meaning

    m = check_meaning(smt, str(seed.get("question") or ""))
    out = dict(result, meaning=m.to_dict())
    if not m.ok:
        out.update(status="meaning", ok=False,
                   message=f"Z3 gives answer = {result.get('value_text')}, but the formalization does not "
                           f"mean the question: {m.message}")
    return out


def _options(seed: dict[str, Any]) -> list[tuple[str, Fraction]]:
    """The numeric answer options of a multiple-choice seed (AQuA), by letter."""
    meta = seed.get("meta")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            return []
    if not isinstance(meta, dict) or not isinstance(meta.get("options"), list):
        return []
    out = []
    for opt in meta["options"][:10]:
        m = re.match(r"^\s*\(?([A-Ea-e])\s*\)\s*(.*)$", str(opt)[:200])
        if not m:
            continue
        parsed = parse_number(m.group(2))
        if parsed is not None:
            out.append((m.group(1).upper(), parsed.value))
    return out


#: how far (relative to the gold) a value may be from a gold the data rounds
ROUNDED_GOLD_TOLERANCE = Fraction(1, 100)


def rounded_gold_match(seed: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    """A ``wrong_value`` result whose value the data's gold rounds: the seed is multiple
    choice (AQuA) and the value lies within 1% of the correct option and nearer to it than to
    any other option ("$78.20" for an exact 1095/14). Returns the result made ``verified`` with
    the rounding recorded, else None."""
    if result.get("status") != "wrong_value" or result.get("value") is None:
        return None
    opts = _options(seed)
    meta = seed.get("meta")
    try:
        correct = (json.loads(meta) if isinstance(meta, str) else meta or {}).get("correct")
    except (ValueError, AttributeError):
        return None
    gold = parse_number(seed.get("answer_text"))
    if not opts or gold is None or not correct:
        return None
    try:
        value = Fraction(str(result["value"]))
    except (ValueError, ZeroDivisionError):
        return None
    nearest = min(opts, key=lambda o: abs(o[1] - value))
    others = [abs(v - value) for letter, v in opts if letter != nearest[0]]
    if nearest[0] != str(correct).upper() or any(d <= abs(nearest[1] - value) for d in others):
        return None
    if abs(value - gold.value) > abs(gold.value) * ROUNDED_GOLD_TOLERANCE:
        return None
    rounding = {"gold": seed.get("answer_text"), "value": result.get("value"),
                "rule": "nearest answer option", "options": len(opts),
                "difference": f"{float(abs(value - gold.value)):.6g}"}
    return dict(result, status="verified", ok=True, rounding=rounding,
                message=f"answer = {result.get('value_text')}, which the data rounds to option "
                        f"{nearest[0]} ({seed.get('answer_text')}): nearest of {len(opts)} options, "
                        f"{rounding['difference']} away")


def model_feedback(result: dict[str, Any], seed: dict[str, Any], smt: str | None = None) -> str:
    """What a failed check tells the model: what is wrong in terms of its formula, never the
    gold answer (any writing of it is removed unless the question itself states it)."""
    from qcstation.core.verify.meaning import check_meaning

    status = result.get("status")
    question = str(seed.get("question") or "")
    if status == "meaning":
        problems = (result.get("meaning") or {}).get("problems") or []
        text = "; ".join(str(p) for p in problems) or str(result.get("message"))
    elif status == "wrong_value":
        text = (f"Z3 computes answer = {result.get('value_text')}, which is not the answer to the "
                "problem. Check each assertion against the problem's words: what each number "
                "measures and which operation each sentence describes.")
        if smt:
            unused = check_meaning(smt, question).unused
            if unused:
                from qcstation.core.verify.meaning import _show

                text += (" The problem states " + ", ".join(_show(v) for v in unused[:8])
                         + ", which the formula never writes; check whether the answer needs them.")
    else:
        text = str(result.get("message") or status or "the check failed")
    return redact_gold(text, seed)


def redact_gold(text: str, seed: dict[str, Any]) -> str:
    """``text`` without the seed's gold answer (unless the question states it)."""
    from qcstation.core.verify.meaning import redact_number

    gold = parse_number(seed.get("answer_text"))
    if gold is None or not text:
        return text
    return redact_number(text, gold.value, keep_in=str(seed.get("question") or ""))


_TAIL_COMMANDS = ("check-sat", "get-model", "get-value", "get-assignment", "exit", "echo")


def normalize_smtlib(text: str) -> str:
    """The script as published: its commands up to the last declaration or assertion, then
    ``(check-sat)`` and ``(get-value (answer))``, so it runs in plain Z3 and prints the
    answer (a ``(get-model)``-only or check-sat-less text does not). A script that uses
    ``push``/``pop`` or cannot be read is returned unchanged."""
    from qcstation.core.verify.smtlib import SmtDisallowedError, SmtSyntaxError, parse_script

    try:
        script = parse_script(text)
    except (SmtSyntaxError, SmtDisallowedError):
        return text
    cmds = script.commands
    if any(c.name in ("push", "pop") for c in cmds):
        return text
    lines = text.split("\n")
    offsets = [0]
    for row in lines:
        offsets.append(offsets[-1] + len(row) + 1)

    def at(line: int, col: int) -> int:
        return offsets[line - 1] + col - 1

    keep: list[str] = []
    for c in cmds:
        if c.name in _TAIL_COMMANDS:
            continue
        keep.append(text[at(c.node.open.line, c.node.open.col):at(c.node.close.line, c.node.close.col) + 1])
    return "\n".join(keep + ["(check-sat)", "(get-value (answer))"])
