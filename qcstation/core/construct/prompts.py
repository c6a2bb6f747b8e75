"""Versioned prompts for model-based generation.

The SMART paper shows its prompts only as figure captions; these are ours. Every
artifact records the ``PROMPT_VERSION`` of the prompt that made it, so a change to a
prompt text must bump its version.
"""

from __future__ import annotations

PROMPT_VERSIONS: dict[str, str] = {
    "understanding": "keyinfo-v1",
    "reasoning": "smtlib-v1",
    "arithmetic": "notation-rephrase-v1",
    "arithmetic-from-smtlib": "notation-from-smtlib-v1",
    "refinement": "cot-v1",
}

Message = dict[str, str]

# ------------------------------------------------------------------ understanding
KEYINFO_SYSTEM = """You extract structured key information from a math word problem.
Return ONLY a JSON object with exactly these keys:
  "problem_scenario": string, the overall context in one or two sentences;
  "goal": string, what must be found;
  "known_quantities": list of strings, each an explicitly given number or fact with what it measures;
  "unknown_quantities": list of strings, the values to be determined (intermediate and final), without their values;
  "relationships_and_constraints": list of strings, how the quantities relate (equations in words or symbols);
  "irrelevant_information": list of strings, details not needed for the solution (empty list if none).
Do not solve the problem. Do not add facts that are not in the problem."""


def keyinfo_messages(question: str, feedback: str | None = None,
                     previous: str | None = None) -> list[Message]:
    msgs: list[Message] = [
        {"role": "system", "content": KEYINFO_SYSTEM},
        {"role": "user", "content": f"Problem:\n{question}"},
    ]
    return _with_feedback(msgs, feedback, previous)


# ------------------------------------------------------------------ reasoning
SMTLIB_SYSTEM = """You formalize math word problems in SMT-LIB 2 so that the Z3 solver computes the answer.
Conventions (a checker relies on them):
- Declare every quantity with (declare-const NAME Real) or (declare-const NAME Int) and relate them with (assert ...).
- Declare a constant named exactly `answer` holding the final answer, and constrain it so it has exactly one value.
- Write decimals as exact fractions, e.g. (/ 3 2) for 1.5; write negative numbers as (- 5).
- Use only these commands: set-logic, declare-const, define-fun, assert, check-sat, get-value.
- End with (check-sat) and (get-value (answer)).
Return only the SMT-LIB program, no prose, no Markdown fences."""

SMTLIB_SHOTS: list[tuple[str, str]] = [
    (
        "A baker makes 24 muffins and sells them in boxes of 4. Each box costs $3. "
        "How much money does the baker make by selling all the boxes?",
        "(set-logic QF_LRA)\n"
        "(declare-const muffins Real)\n(assert (= muffins 24))\n"
        "(declare-const per_box Real)\n(assert (= per_box 4))\n"
        "(declare-const boxes Real)\n(assert (= boxes (/ muffins per_box)))\n"
        "(declare-const answer Real)\n(assert (= answer (* boxes 3)))\n"
        "(check-sat)\n(get-value (answer))",
    ),
    (
        "Tom is 3 years older than twice Ann's age. Together they are 30 years old. How old is Tom?",
        "(set-logic QF_LIA)\n"
        "(declare-const ann Int)\n(declare-const answer Int)\n"
        "(assert (= answer (+ (* 2 ann) 3)))\n(assert (= (+ ann answer) 30))\n"
        "(check-sat)\n(get-value (answer))",
    ),
]


def smtlib_messages(question: str, feedback: str | None = None,
                    previous: str | None = None) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": SMTLIB_SYSTEM}]
    for q, a in SMTLIB_SHOTS:
        msgs.append({"role": "user", "content": f"Problem:\n{q}"})
        msgs.append({"role": "assistant", "content": a})
    msgs.append({"role": "user", "content": f"Problem:\n{question}"})
    return _with_feedback(msgs, feedback, previous)


# ------------------------------------------------------------------ arithmetic
NOTATION_SYSTEM = """You rewrite a notation-only arithmetic question so it reads naturally.
Keep every number and every variable name exactly as given, introduce no new numbers,
add no story, and keep asking for the value of the same variable. Return only the question."""


def notation_rephrase_messages(notation: str, feedback: str | None = None,
                               previous: str | None = None) -> list[Message]:
    msgs: list[Message] = [
        {"role": "system", "content": NOTATION_SYSTEM},
        {"role": "user", "content": notation},
    ]
    return _with_feedback(msgs, feedback, previous)


NOTATION_FROM_SMTLIB_SYSTEM = """You turn an SMT-LIB formalization into a notation-only arithmetic question:
numbers and variables only, no story. Solve any equation in the SMT-LIB yourself so that every
quantity is computed from earlier ones, and write the question in EXACTLY this form:
Let a = 16, b = 3 and c = 2. Let s1 = a − b and answer = s1 × c. What is the value of answer?
Rules: the first sentence gives the numbers (one letter each), the second defines each derived
quantity from given or earlier ones with + − × ÷ and parentheses, the last quantity is `answer`,
and the question ends with "What is the value of answer?". Return only the question."""


def notation_from_smtlib_messages(smtlib: str, feedback: str | None = None,
                                  previous: str | None = None) -> list[Message]:
    msgs: list[Message] = [
        {"role": "system", "content": NOTATION_FROM_SMTLIB_SYSTEM},
        {"role": "user", "content": smtlib},
    ]
    return _with_feedback(msgs, feedback, previous)


# ------------------------------------------------------------------ refinement
COT_SYSTEM = """Solve the math word problem step by step, one step per line, with every calculation
written out. End with a line of the form: The answer is <number>."""


def cot_messages(question: str, feedback: str | None = None,
                 previous: str | None = None) -> list[Message]:
    msgs: list[Message] = [
        {"role": "system", "content": COT_SYSTEM},
        {"role": "user", "content": question},
    ]
    return _with_feedback(msgs, feedback, previous)


def _with_feedback(msgs: list[Message], feedback: str | None,
                   previous: str | None) -> list[Message]:
    if feedback:
        if previous:
            msgs.append({"role": "assistant", "content": previous})
        msgs.append({
            "role": "user",
            "content": "Your previous answer was checked and rejected:\n"
                       f"{feedback}\nFix the problem and answer again in the same format.",
        })
    return msgs
