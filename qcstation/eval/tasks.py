"""Tasks: prompt templates and the chat messages they build from frozen item records.

A template is a plain text file per task (``qcstation/eval/templates/<task>.txt``), readable
and editable: ``qcstation eval templates --export DIR`` copies them out, and a directory named
by ``[eval] templates_dir`` or ``$QCSTATION_TEMPLATES`` overrides the built-in files by name.
A template's identity is its declared ``version`` plus the sha256 of its text; a run stores
both and the full text, so its prompts can be rebuilt exactly later.

Sections: ``=== system ===`` (optional), ``=== user ===``, ``=== assistant ===``. The
assistant section is the expected answer of an item: few-shot exemplars show it, and the
``reference`` backend answers with it. Placeholders ``{name}`` are filled in one pass (a
value is never re-scanned for placeholders), so untrusted text cannot inject into them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from exports.writers import render_key_information
from qcstation.common.errors import ConfigError

ENV_TEMPLATES = "QCSTATION_TEMPLATES"
TEMPLATE_NAMES: tuple[str, ...] = (
    "understanding", "reasoning", "arithmetic", "refinement", "final", "judge_understanding",
    "reflection", "refine",
)
MAX_TEMPLATE_BYTES = 64 * 1024

ERROR_TYPE_DEFINITIONS: dict[str, tuple[str, str]] = {
    # id -> (name the model writes, definition)
    "arithmetic_inaccuracy": ("arithmetic inaccuracy", "a calculation gives a wrong result"),
    "omitted_step": ("omitted step", "a step the solution needs is missing"),
    "hallucinated_content": ("hallucinated content",
                             "a fact or number that is not in the problem is used"),
    "logical_disorder": ("logical disorder",
                         "a step uses a result before the step that derives it"),
    "redundancy": ("redundancy", "a step repeats earlier work without adding anything"),
    "operator_misuse": ("operator misuse", "a wrong operator is used (e.g. + instead of -)"),
}

_SECTION_RE = re.compile(r"^=== *(system|user|assistant) *===[ \t]*$", re.M)
_VERSION_RE = re.compile(r"^version:[ \t]*([A-Za-z0-9._+-]{1,64})[ \t]*$", re.M)
_PLACEHOLDER_RE = re.compile(r"\{([a-z_]+)\}")
PLACEHOLDERS: frozenset[str] = frozenset({
    "question", "key_information", "smtlib", "notation", "answer", "solution", "w_cot",
    "error_types", "error_type_definitions", "reference", "response", "working",
})
_FINAL_LINE_RE = re.compile(r"^\s*(?:the (?:final )?answer is\b|####|final answer\s*:|answer\s*:)",
                            re.I)


@dataclass(frozen=True)
class Template:
    name: str
    version: str
    text: str
    system: str | None
    user: str
    assistant: str
    origin: str                    # "built-in" or the override file's path

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:12]

    @property
    def ident(self) -> str:
        return f"{self.version}@{self.sha}"

    def to_spec(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version, "sha": self.sha, "text": self.text,
                "origin": self.origin}


def parse_template(name: str, text: str, origin: str = "built-in") -> Template:
    """Parse a template file's text; raises :class:`ConfigError` naming what is wrong."""
    where = f"template {name} ({origin})"
    if len(text.encode("utf-8")) > MAX_TEMPLATE_BYTES:
        raise ConfigError(f"{where}: larger than {MAX_TEMPLATE_BYTES // 1024} KiB")
    head_end = _SECTION_RE.search(text)
    if head_end is None:
        raise ConfigError(f"{where}: no '=== user ===' section")
    vm = _VERSION_RE.search(text[: head_end.start()])
    if vm is None:
        raise ConfigError(f"{where}: no 'version: NAME' line before the first section")
    parts: dict[str, str] = {}
    marks = list(_SECTION_RE.finditer(text))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        key = m.group(1)
        if key in parts:
            raise ConfigError(f"{where}: section '{key}' appears twice")
        parts[key] = text[m.end():end].strip("\n")
    if "user" not in parts or not parts["user"].strip():
        raise ConfigError(f"{where}: the '=== user ===' section is missing or empty")
    if "assistant" not in parts:
        raise ConfigError(f"{where}: the '=== assistant ===' section is missing")
    for key, body in parts.items():
        unknown = sorted({p for p in _PLACEHOLDER_RE.findall(body)} - PLACEHOLDERS)
        if unknown:
            raise ConfigError(f"{where}: unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)} "
                              f"in the {key} section; known: {', '.join(sorted(PLACEHOLDERS))}")
    system = parts.get("system")
    return Template(name=name, version=vm.group(1), text=text,
                    system=system if system and system.strip() else None,
                    user=parts["user"], assistant=parts["assistant"], origin=origin)


def templates_dir(cfg: Any = None) -> Path | None:
    env = os.environ.get(ENV_TEMPLATES, "").strip()
    if env:
        return Path(env)
    d = getattr(getattr(cfg, "eval", None), "templates_dir", None) if cfg is not None else None
    return Path(d) if d else None


def builtin_text(name: str) -> str:
    return resources.files("qcstation.eval").joinpath("templates", f"{name}.txt").read_text("utf-8")


def load_template(name: str, cfg: Any = None) -> Template:
    """The template named ``name``: the override directory's file when present, else built-in."""
    if name not in TEMPLATE_NAMES:
        raise ConfigError(f"unknown template {name!r}; known: {', '.join(TEMPLATE_NAMES)}")
    d = templates_dir(cfg)
    if d is not None:
        p = d / f"{name}.txt"
        if p.is_file():
            try:
                raw = p.read_bytes()[: MAX_TEMPLATE_BYTES + 1]
                text = raw.decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"cannot read template {p}: {exc}") from exc
            return parse_template(name, text, origin=str(p))
    return parse_template(name, builtin_text(name))


def template_from_spec(spec: Mapping[str, Any]) -> Template:
    return parse_template(str(spec["name"]), str(spec["text"]), origin=str(spec.get("origin", "run")))


# -- filling -------------------------------------------------------------------------------

def fill(body: str, values: Mapping[str, str]) -> str:
    """Replace ``{name}`` placeholders in one pass (values are never re-scanned)."""
    return _PLACEHOLDER_RE.sub(lambda m: values.get(m.group(1), m.group(0)), body)


def strip_final_line(cot: str) -> str:
    """A chain of thought without its closing 'The answer is …' / '#### …' lines."""
    lines = [ln for ln in (cot or "").rstrip().splitlines()]
    while lines and (not lines[-1].strip() or _FINAL_LINE_RE.match(lines[-1])):
        lines.pop()
    return "\n".join(lines)


def error_type_ids(record: Mapping[str, Any]) -> list[str]:
    """The error types injected in the item's wrong chain of thought, as ids, sorted."""
    out: set[str] = set()
    for e in record.get("errors") or []:
        if isinstance(e, Mapping) and e.get("type"):
            out.add(canonical_error_type(str(e["type"])) or str(e["type"]))
    if not out:
        for t in record.get("wrong") or []:
            out.add(canonical_error_type(str(t)) or str(t))
    return sorted(out)


#: close synonyms and the SMART paper's own names (fig. 10: "arithmetic number error",
#: "skipped step"), after :func:`_error_key` (lower case, singular, underscores)
ERROR_TYPE_ALIASES: dict[str, str] = {
    "arithmetic_error": "arithmetic_inaccuracy", "calculation_error": "arithmetic_inaccuracy",
    "arithmetic_number_error": "arithmetic_inaccuracy", "computational_error": "arithmetic_inaccuracy",
    "computation_error": "arithmetic_inaccuracy", "arithmetic_mistake": "arithmetic_inaccuracy",
    "calculation_mistake": "arithmetic_inaccuracy", "numerical_error": "arithmetic_inaccuracy",
    "miscalculation": "arithmetic_inaccuracy", "arithmetic": "arithmetic_inaccuracy",
    "missing_step": "omitted_step", "omission": "omitted_step", "skipped_step": "omitted_step",
    "step_omission": "omitted_step", "omitted": "omitted_step", "missing": "omitted_step",
    "hallucination": "hallucinated_content", "hallucinated_step": "hallucinated_content",
    "hallucinated_information": "hallucinated_content", "hallucinated_fact": "hallucinated_content",
    "hallucinated_number": "hallucinated_content", "fabricated_content": "hallucinated_content",
    "hallucinated": "hallucinated_content",
    "logical_order": "logical_disorder", "disorder": "logical_disorder",
    "logical_order_error": "logical_disorder", "wrong_order": "logical_disorder",
    "step_order_error": "logical_disorder", "ordering_error": "logical_disorder",
    "out_of_order_step": "logical_disorder",
    "redundant_step": "redundancy", "redundant": "redundancy", "repetition": "redundancy",
    "redundant_content": "redundancy", "unnecessary_step": "redundancy", "repeated_step": "redundancy",
    "wrong_operator": "operator_misuse", "operator_error": "operator_misuse",
    "incorrect_operator": "operator_misuse", "operator_mistake": "operator_misuse",
    "misused_operator": "operator_misuse", "wrong_operation": "operator_misuse",
    "operation_error": "operator_misuse", "incorrect_operation": "operator_misuse",
}


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _error_key(text: str) -> str:
    words = re.sub(r"[^a-z]+", " ", text.strip().lower()).split()
    return "_".join(_singular(w) for w in words if w not in ("a", "an", "the", "type", "error_type"))


def canonical_error_type(text: str) -> str | None:
    """Map a written error type to its id: the id or name ('Operator misuse',
    'operator_misuse', 'omitted-step'), plurals ('arithmetic inaccuracies', 'omitted
    steps'), the paper's names ('skipped step', 'arithmetic number error') and close
    synonyms (:data:`ERROR_TYPE_ALIASES`)."""
    key = _error_key(text)
    if not key:
        return None
    if key in ERROR_TYPE_DEFINITIONS:
        return key
    for tid, (name, _) in ERROR_TYPE_DEFINITIONS.items():
        if key == _error_key(name):
            return tid
    return ERROR_TYPE_ALIASES.get(key)


def gold_answer(record: Mapping[str, Any]) -> str:
    """The gold answer as written for the model: the exact value, else the seed's text."""
    a = record.get("answer")
    if a not in (None, ""):
        return str(a)
    return str(record.get("gt_answer") or "")


_LET_RE = re.compile(r"([A-Za-z][A-Za-z0-9_]{0,20})\s*=\s*([^,=]{1,200}?)(?=,\s*[A-Za-z][A-Za-z0-9_]{0,20}\s*=|\s+and\s+[A-Za-z][A-Za-z0-9_]{0,20}\s*=|\.\s|\.$|$)")
_TOKEN_RE = re.compile(r"\s*(?:(\d{1,30}(?:\.\d{1,30})?)|([A-Za-z][A-Za-z0-9_]{0,20})|([-+*/×÷−()]))")


def _evaluate(expr: str, env: Mapping[str, Fraction]) -> Fraction | None:
    """An arithmetic expression (numbers, names in ``env``, + − × ÷ and parentheses) as an
    exact rational; None when it is anything else. Precedence climbing, no eval."""
    tokens: list[str | Fraction] = []
    pos = 0
    text = expr.strip()
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        if m.group(1):
            tokens.append(Fraction(m.group(1)))
        elif m.group(2):
            if m.group(2) not in env:
                return None
            tokens.append(env[m.group(2)])
        else:
            tokens.append({"×": "*", "÷": "/", "−": "-"}.get(m.group(3), m.group(3)))
    if not tokens or len(tokens) > 200:
        return None
    at = 0

    def atom() -> Fraction | None:
        nonlocal at
        if at >= len(tokens):
            return None
        t = tokens[at]
        at += 1
        if isinstance(t, Fraction):
            return t
        if t == "-":
            v = atom()
            return None if v is None else -v
        if t == "(":
            v = expr_(0)
            if v is None or at >= len(tokens) or tokens[at] != ")":
                return None
            at += 1
            return v
        return None

    def expr_(level: int) -> Fraction | None:
        nonlocal at
        left = atom() if level == 1 else expr_(1)
        ops = ("*", "/") if level == 1 else ("+", "-")
        while left is not None and at < len(tokens) and tokens[at] in ops:
            op = tokens[at]
            at += 1
            right = atom() if level == 1 else expr_(1)
            if right is None or (op == "/" and right == 0):
                return None
            left = {"*": left * right, "/": left / right if right else left,
                    "+": left + right, "-": left - right}[str(op)]
        return left

    value = expr_(0)
    return value if value is not None and at == len(tokens) else None


def _shown(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:
        return format(float(v), ".10g")
    return f"{v.numerator}/{v.denominator}"


def notation_working(notation: str) -> str | None:
    """The working of a notation question, one step a line (``s1 = 60 ÷ 100 × 5 = 3``), from
    its own definitions; None when the text is not of the rendered form."""
    env: dict[str, Fraction] = {}
    lines: list[str] = []
    text = (notation or "")[:4000].replace("Let ", ", ").replace(" and ", ", ")
    for m in _LET_RE.finditer(text):
        name, expr = m.group(1), m.group(2).strip().rstrip(".")
        value = _evaluate(expr, env)
        if value is None:
            return None
        if not re.fullmatch(r"\d+(?:\.\d+)?", expr):
            lines.append(f"{name} = {expr} = {_shown(value)}")
        env[name] = value
    if "answer" not in env or not lines:
        return None
    return "\n".join(lines)


def _key_information(record: Mapping[str, Any]) -> str:
    ki = record.get("key_information")
    return render_key_information(ki) if isinstance(ki, Mapping) else str(record.get("background") or "")


def _error_types(record: Mapping[str, Any]) -> str:
    return ", ".join(ERROR_TYPE_DEFINITIONS[t][0] if t in ERROR_TYPE_DEFINITIONS else t
                     for t in error_type_ids(record))


#: the placeholders a template may use, each computed from the item's record
_VALUES: dict[str, Any] = {
    "question": lambda r: str(r.get("question") or ""),
    "key_information": _key_information,
    "smtlib": lambda r: str(r.get("smt-lib") or "").strip(),
    "notation": lambda r: str(r.get("notation") or ""),
    "working": lambda r: notation_working(str(r.get("notation") or ""))
    or strip_final_line(str(r.get("gt_cot") or "")),
    "answer": lambda r: gold_answer(r),
    "solution": lambda r: strip_final_line(str(r.get("gt_cot") or "")),
    "w_cot": lambda r: str(r.get("w_cot") or ""),
    "error_types": _error_types,
    "error_type_definitions": lambda r: "\n".join(f"- {name}: {definition}"
                                                  for name, definition in ERROR_TYPE_DEFINITIONS.values()),
}


#: the fields of an item's record each placeholder's value reads (tests/eval/test_prompt_json.py
#: checks them against what each function of _VALUES reads)
PLACEHOLDER_FIELDS: dict[str, tuple[str, ...]] = {
    "question": ("question",), "key_information": ("key_information", "background"),
    "smtlib": ("smt-lib",), "notation": ("notation",), "working": ("notation", "gt_cot"),
    "answer": ("answer", "gt_answer"), "solution": ("gt_cot",), "w_cot": ("w_cot",),
    "error_types": ("errors", "wrong"), "error_type_definitions": (),
}


def request_fields(templates: Mapping[str, Template], *, reference: bool = False) -> tuple[str, ...]:
    """Every field of an item's record that building the requests of ``templates`` (task ->
    template) reads: its seed id, what :func:`task_applies` and :func:`task_ready` read, and
    the fields of the placeholders of each user message (of the assistant's too with
    ``reference``: the reference backend's answer fills it). A request built from a record
    cut to these fields is the one built from the whole record."""
    out = ["seed_id", "dimensions"]
    for task, tpl in templates.items():
        bodies = [tpl.user, tpl.assistant] if reference else [tpl.user]
        names = [n for body in bodies for n in _PLACEHOLDER_RE.findall(body)]
        for f in (*READY_FIELDS.get(task, ()), *(f for n in names for f in PLACEHOLDER_FIELDS.get(n, ()))):
            if f not in out:
                out.append(f)
    return tuple(out)


def record_values(record: Mapping[str, Any]) -> dict[str, str]:
    """Every placeholder's value for one item."""
    return {name: value(record) for name, value in _VALUES.items()}


class LazyValues(Mapping[str, str]):
    """:func:`record_values` computed one placeholder at a time, when a template first asks
    for it (a run builds a million prompts; most templates use two or three of the ten)."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        self._record = record
        self._known: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        known = self._known.get(name)
        if known is None:
            known = self._known[name] = _VALUES[name](self._record)
        return known

    def __iter__(self) -> Any:
        return iter(_VALUES)

    def __len__(self) -> int:
        return len(_VALUES)


def reference_answer(template: Template, record: Mapping[str, Any]) -> str:
    """The item's expected answer in the template's format (what ``reference`` replies)."""
    return fill(template.assistant, record_values(record)).strip()


def prefix_messages(template: Template, exemplars: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, str]]:
    """The messages every prompt of a task starts with: system, then the exemplar pairs."""
    msgs: list[dict[str, str]] = []
    if template.system:
        msgs.append({"role": "system", "content": template.system.strip()})
    for ex in exemplars:
        vals = record_values(ex)
        msgs.append({"role": "user", "content": fill(template.user, vals).strip()})
        msgs.append({"role": "assistant", "content": fill(template.assistant, vals).strip()})
    return msgs


def build_messages(template: Template, record: Mapping[str, Any],
                   exemplars: Sequence[Mapping[str, Any]] = (), *,
                   prefix: Sequence[Mapping[str, str]] | None = None,
                   values: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """System prompt, then each exemplar as a user/assistant pair, then the item.
    ``prefix`` / ``values`` let a caller reuse what it already built."""
    msgs = [dict(m) for m in prefix] if prefix is not None else prefix_messages(template, exemplars)
    vals = values if values is not None else record_values(record)
    msgs.append({"role": "user", "content": fill(template.user, vals).strip()})
    return msgs


def prompt_hash(messages: Sequence[Mapping[str, str]]) -> str:
    blob = json.dumps(list(messages), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def task_applies(task: str, record: Mapping[str, Any]) -> bool:
    """Whether a run asks this item this task at all: a derived item (its record lists the
    ``dimensions`` it carries) is asked only those, and the final answer; a task it does not
    carry is no request, no output and no score (not an error in the denominator)."""
    dims = record.get("dimensions")
    if task == "final" or not isinstance(dims, list) or not dims:
        return True
    return task in dims


#: the fields an item needs, not blank, to be asked each task
READY_FIELDS: dict[str, tuple[str, ...]] = {
    "understanding": ("question",), "reasoning": ("question", "smt-lib"),
    "arithmetic": ("notation",), "refinement": ("question", "w_cot"), "final": ("question",)}


def task_ready(task: str, record: Mapping[str, Any]) -> str | None:
    """Why an item cannot be asked this task (None: it can)."""
    need = READY_FIELDS[task]
    for k in need:     # the usual item: every field a text that does not start blank
        v = record.get(k)
        if type(v) is not str or not v or v[0].isspace():
            break
    else:
        return None
    missing = [k for k in need if not str(record.get(k) or "").strip()]
    if missing:
        return f"the item has no {', '.join(missing)}"
    return None
