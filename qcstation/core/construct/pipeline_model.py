"""The model's side of the generation loop (:mod:`.pipeline`): what a job asks the model and
how its reply is read into an artifact's content. Pure functions of the job and the reply
text: the loop starts the attempt, calls the model, stores what this returns and checks it.

* :func:`job_messages`: the prompt of a job's next attempt, with every earlier attempt and
  what the checks said of it, the gold answer kept out of all but the question.
* :func:`prompt_version`: the version of the prompt a job is asked with.
* :func:`reply_content`: a reply read as the dimension's content (SMT-LIB cut out of prose,
  key information parsed, a notation question read or a rewording judged, a chain of
  thought's answer checked); :class:`GenerationError` says what is wrong with it.
"""

from __future__ import annotations

import re
from typing import Any

from qcstation.common.errors import GenerationError
from qcstation.core.construct.check.checks import cot_answer_ok, normalize_smtlib, redact_gold
from qcstation.core.construct.make import prompts
from qcstation.core.construct.pipeline_records import Job
from qcstation.core.reading.answers import parse_number

__all__ = ["job_messages", "prompt_version", "reply_content"]


def job_messages(job: Job) -> list[dict[str, str]]:
    """The prompt of the job's next attempt: the task, then every earlier attempt and what
    the checks said of it (so a retry differs from the last one and sees all that was
    tried), with the gold answer kept out of everything but the question itself."""
    q = job.seed["question"]
    if job.feedback:
        prev = redact_gold(job.previous_output or "", job.seed) or None
        pair = (prev, redact_gold(job.feedback, job.seed))
        if not job.history or job.history[-1] != pair:
            job.history.append(pair)
    h = job.history
    if job.dimension == "understanding":
        return prompts.keyinfo_messages(q, history=h)
    if job.dimension == "reasoning":
        return prompts.smtlib_messages(q, history=h)
    if job.dimension == "arithmetic":
        assert job.source_artifact is not None
        if job.source_artifact.get("notation") is None:
            return prompts.notation_from_smtlib_messages(job.source_artifact["smtlib"], history=h)
        return prompts.notation_rephrase_messages(job.source_artifact["notation"], history=h)
    return prompts.cot_messages(q, history=h)


def reply_content(job: Job, text: str) -> dict[str, Any] | None:
    """The content of the artifact a model's reply makes for the job; None for a chain of
    thought (refinement), whose artifact the injection rules make from it. Raises
    :class:`GenerationError` with what is wrong (fed back to the model)."""
    dim = job.dimension
    content: dict[str, Any]
    if dim == "reasoning":
        smt = _smtlib_of(text)
        if "(" not in smt:
            raise GenerationError("the answer contains no SMT-LIB")
        content = {"smtlib": normalize_smtlib(smt), "rule": None, "notes": []}
        if content["smtlib"] != smt:
            content["notes"].append("normalised to end in (check-sat) and (get-value (answer))")
    elif dim == "understanding":
        from qcstation.core.construct.make.keyinfo import parse_keyinfo

        content = parse_keyinfo(text)
    elif dim == "arithmetic" and (job.source_artifact or {}).get("notation") is None:
        from qcstation.core.construct.make.notation import NotationError, parse_notation_text

        base = job.source_artifact or {}
        written = _strip_fences(text)
        try:
            parsed = parse_notation_text(written)
        except NotationError as exc:
            raise GenerationError(f"the question is not in the required form: {exc}") from exc
        content = {"notation": written, "form": "model", "target": parsed.target,
                   "variables": {k: str(v) for k, v in parsed.variables.items()},
                   "smtlib": base["smtlib"], "source_artifact_id": base["source_artifact_id"]}
    elif dim == "arithmetic":
        from qcstation.core.construct.make.notation import NotationQuestion
        from qcstation.core.construct.check.notation_rephrasing import check_rephrasing

        base = job.source_artifact or {}
        original = NotationQuestion(text=base["notation"], variables={
            k: parse_number(v).value for k, v in base["variables"].items()  # type: ignore[union-attr]
        }, target=base["target"])
        rephrased = _strip_fences(text)
        problems = check_rephrasing(original, rephrased)
        if problems:
            raise GenerationError("; ".join(problems))
        content = dict(base, notation=rephrased, rendered=base["notation"])
    else:
        answer_ok, problem = cot_answer_ok(text, job.seed)
        if not answer_ok:
            raise GenerationError(problem)
        return None  # the chain is good: the injection rules make the artifact
    return content


def prompt_version(job: Job) -> str:
    """The version of the prompt the job is asked with (stored with each attempt)."""
    if job.dimension == "arithmetic" and (job.source_artifact or {}).get("notation") is None:
        return prompts.PROMPT_VERSIONS["arithmetic-from-smtlib"]
    return prompts.PROMPT_VERSIONS[job.dimension]


def _strip_fences(text: str) -> str:
    m = re.search(r"```[a-zA-Z0-9_-]*\s*\n(.*?)```", text, re.S)
    return (m.group(1) if m else text).strip()


def _smtlib_of(text: str) -> str:
    """The SMT-LIB of a model's reply: the fenced block, else the lines from the first that opens
    with '(' to the last that closes with ')' (prose before or after, "The formalization:",
    is not the program's)."""
    body = _strip_fences(text)
    lines = body.split("\n")
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("(")]
    ends = [i for i, line in enumerate(lines) if line.rstrip().endswith(")")]
    if not starts or not ends or ends[-1] < starts[0]:
        return body
    return "\n".join(lines[starts[0]:ends[-1] + 1]).strip()
