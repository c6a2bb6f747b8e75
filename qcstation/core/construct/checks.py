"""The automatic checks of artifact contents, one rule each, shared by every caller.

* :func:`expected_answer`: the gold a formalization must compute (exact where possible).
* :func:`notation_smtlib`: THE SMT-LIB of a notation question (Arithmetic): rebuilt from
  the question's own structure, so Z3 checks what a solver is shown. Verification
  (generate, verify, fix in place) and release export both call it, so the SMT-LIB a
  release publishes is the one Z3 checked.
* :func:`check_refinement`: the consistency of an injected-error record.
* :func:`cot_answer_ok`: a model's chain of thought ends with the gold answer.
"""

from __future__ import annotations

import re
from typing import Any

from qcstation.core.verify.answers import ExactAnswer, parse_number

__all__ = ["expected_answer", "notation_smtlib", "check_refinement", "cot_answer_ok"]


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
    from qcstation.core.construct.notation import NotationError, notation_to_smtlib, render_notation
    from qcstation.core.construct.notation_reader import notation_smtlib_of, read_notation

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
        from qcstation.core.construct.notation_rephrasing import check_rephrasing

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
    from qcstation.core.construct.inject import ERROR_TYPES

    bad = [e.get("type") for e in errors if e.get("type") not in ERROR_TYPES]
    if bad:
        problems.append(f"unknown error type(s): {bad}")
    wrong, gold = content.get("wrong_answer"), content.get("gold_answer")
    if wrong is not None and gold is not None and wrong == gold \
            and any(e.get("changes_answer") for e in errors if isinstance(e, dict)):
        problems.append("an error that changes a value left the final answer at the gold one")
    return problems


_ANSWER_LINE = re.compile(r"(?:answer is|####)\s*:?\s*\$?\s*([-−]?[\d,]*\.?\d+(?:/\d+)?)", re.I)


def cot_answer_ok(text: str, seed: dict[str, Any]) -> tuple[bool, str]:
    from qcstation.core.verify.answers import matches

    m = list(_ANSWER_LINE.finditer(text or ""))
    if not m:
        return False, "no final line 'The answer is <number>' found"
    got = parse_number(m[-1].group(1))
    gold = parse_number(seed["answer_text"])
    if got is None or gold is None:
        return False, "the final answer is not a number"
    if not matches(got.value, gold):
        return False, f"the final answer {m[-1].group(1)} does not match the expected answer"
    return True, ""
