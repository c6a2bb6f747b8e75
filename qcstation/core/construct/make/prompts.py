"""Versioned prompts for model-based generation.

The SMART paper shows its prompts only as figure captions; these are ours. Every
artifact records the ``PROMPT_VERSION`` of the prompt that made it, so a change to a
prompt text must bump its version.
"""

from __future__ import annotations

PROMPT_VERSIONS: dict[str, str] = {
    "understanding": "keyinfo-v2",
    "reasoning": "smtlib-v2",
    "arithmetic": "notation-rephrase-v2",
    "arithmetic-from-smtlib": "notation-from-smtlib-v2",
    "refinement": "cot-v2",
}

Message = dict[str, str]
#: one earlier attempt of the same item: what the model wrote (None: nothing usable) and what
#: the checks said of it
Attempt = tuple[str | None, str]
#: a retry's prompt carries at most this many earlier attempts, each cut to this many characters
HISTORY_ATTEMPTS = 4
HISTORY_CHARS = 6000

# ------------------------------------------------------------------ understanding
KEYINFO_SYSTEM = """You extract structured key information from a math word problem.
Return ONLY a JSON object with exactly these keys, each with real content from this problem:
  "problem_scenario": string, the overall context in one or two sentences;
  "goal": string, what must be found, naming the asked quantity in the problem's own words;
  "known_quantities": list of strings, one per number the problem states, each with the number
    written as the problem writes it and what it measures;
  "unknown_quantities": list of strings, the values to be determined (intermediate and final), without their values;
  "relationships_and_constraints": list of strings, how the quantities relate, each naming the
    quantities it uses (equations in words or symbols, without worked-out results);
  "irrelevant_information": list of strings, details not needed for the solution (empty list if none).
Every number the problem states belongs in known_quantities or, if not needed, in irrelevant_information.
Do not solve the problem. Do not add facts or numbers that are not in the problem."""

KEYINFO_SHOTS: list[tuple[str, str]] = [(
    "Mia buys 3 notebooks at $4 each and a pen for $2. She has a coupon for $5 off orders over "
    "$10. Her brother is 12 years old. How much does Mia pay?",
    '{"problem_scenario": "Mia buys notebooks and a pen and uses a coupon on her order.", '
    '"goal": "How much Mia pays for her order after the coupon.", '
    '"known_quantities": ["Mia buys 3 notebooks.", "Each notebook costs $4.", "The pen costs $2.", '
    '"The coupon takes $5 off.", "The coupon applies to orders over $10."], '
    '"unknown_quantities": ["The cost of the notebooks.", "The cost of the order before the coupon.", '
    '"The amount Mia pays."], '
    '"relationships_and_constraints": ["Cost of the notebooks = number of notebooks × price per notebook.", '
    '"Order before the coupon = cost of the notebooks + price of the pen.", '
    '"The coupon applies when the order before the coupon is over $10.", '
    '"Amount paid = order before the coupon − coupon value."], '
    '"irrelevant_information": ["Her brother is 12 years old."]}',
)]


def keyinfo_messages(question: str, feedback: str | None = None, previous: str | None = None,
                     *, history: list[Attempt] | None = None) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": KEYINFO_SYSTEM}]
    for q, a in KEYINFO_SHOTS:
        msgs += [{"role": "user", "content": f"Problem:\n{q}"}, {"role": "assistant", "content": a}]
    msgs.append({"role": "user", "content": f"Problem:\n{question}"})
    return _with_history(msgs, history, feedback, previous)


# ------------------------------------------------------------------ reasoning
SMTLIB_SYSTEM = """You formalize math problems in SMT-LIB 2 so that the Z3 solver computes the answer.
You translate the problem; you do not solve it. A checker refuses a formalization that does not
follow these rules:
- Declare one constant for every number the problem states and set it to that number, as the problem
  writes it: (declare-const price Real) (assert (= price 3)). Write decimals as exact fractions,
  e.g. (/ 3 2) for 1.5, a percent as its number (20 for 20%), negative numbers as (- 5).
- Write no other number: no result you worked out, no value from outside the problem. The only
  exceptions are 0, 1 and constants the problem's words name (7 days in a week, 60 minutes in an
  hour, 100 for a percent, 12 in a dozen), and those too get a constant of their own:
  (declare-const days_per_week Real) (assert (= days_per_week 7)).
- Every other quantity is a constant defined from earlier constants by an assertion that names
  them and writes no number: (assert (= boxes (/ muffins per_box))).
- Declare a constant named exactly `answer` holding the final answer, computed from the
  problem's quantities by such assertions, so it has exactly one value. Never set answer to a number.
- A formula in the problem may be a function: (define-fun f ((x Real)) Real ...).
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
        "(declare-const box_price Real)\n(assert (= box_price 3))\n"
        "(declare-const boxes Real)\n(assert (= boxes (/ muffins per_box)))\n"
        "(declare-const answer Real)\n(assert (= answer (* boxes box_price)))\n"
        "(check-sat)\n(get-value (answer))",
    ),
    (
        "Tom is 3 years older than twice Ann's age. Together they are 30 years old. How old is Tom?",
        "(set-logic QF_LIA)\n"
        "(declare-const older_by Int)\n(assert (= older_by 3))\n"
        "(declare-const twice Int)\n(assert (= twice 2))\n"
        "(declare-const together Int)\n(assert (= together 30))\n"
        "(declare-const ann Int)\n(declare-const answer Int)\n"
        "(assert (= answer (+ (* twice ann) older_by)))\n(assert (= (+ ann answer) together))\n"
        "(check-sat)\n(get-value (answer))",
    ),
    (
        "Sara saves 15% of her $40 weekly allowance. How much does she save in 3 weeks?",
        "(set-logic QF_LRA)\n"
        "(declare-const rate Real)\n(assert (= rate 15))\n"
        "(declare-const percent Real)\n(assert (= percent 100))\n"
        "(declare-const allowance Real)\n(assert (= allowance 40))\n"
        "(declare-const weeks Real)\n(assert (= weeks 3))\n"
        "(declare-const weekly_saving Real)\n(assert (= weekly_saving (* allowance (/ rate percent))))\n"
        "(declare-const answer Real)\n(assert (= answer (* weekly_saving weeks)))\n"
        "(check-sat)\n(get-value (answer))",
    ),
    (
        "If $f(x) = \\frac{3x-2}{x-2}$, what is the value of $f(-2) + f(0)$?",
        "(set-logic QF_NRA)\n"
        "(declare-const a Real)\n(assert (= a 3))\n"
        "(declare-const b Real)\n(assert (= b 2))\n"
        "(define-fun f ((x Real)) Real (/ (- (* a x) b) (- x b)))\n"
        "(declare-const x1 Real)\n(assert (= x1 (- b)))\n"
        "(declare-const answer Real)\n(assert (= answer (+ (f x1) (f 0))))\n"
        "(check-sat)\n(get-value (answer))",
    ),
]


def smtlib_messages(question: str, feedback: str | None = None, previous: str | None = None,
                    *, history: list[Attempt] | None = None) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": SMTLIB_SYSTEM}]
    for q, a in SMTLIB_SHOTS:
        msgs.append({"role": "user", "content": f"Problem:\n{q}"})
        msgs.append({"role": "assistant", "content": a})
    msgs.append({"role": "user", "content": f"Problem:\n{question}"})
    return _with_history(msgs, history, feedback, previous)


# ------------------------------------------------------------------ arithmetic
NOTATION_SYSTEM = """You rewrite a notation-only arithmetic question so it reads naturally.
Keep every number and every variable name exactly as given, introduce no new numbers,
add no story, and keep asking for the value of the same variable. Return only the question."""

NOTATION_SHOTS: list[tuple[str, str]] = [(
    "Let a = 24, b = 4 and c = 3. Let s1 = a ÷ b and answer = s1 × c. What is the value of answer?",
    "Given a = 24, b = 4 and c = 3, let s1 = a ÷ b and answer = s1 × c. What is the value of answer?",
)]


def notation_rephrase_messages(notation: str, feedback: str | None = None, previous: str | None = None,
                               *, history: list[Attempt] | None = None) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": NOTATION_SYSTEM}]
    for q, a in NOTATION_SHOTS:
        msgs += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    msgs.append({"role": "user", "content": notation})
    return _with_history(msgs, history, feedback, previous)


NOTATION_FROM_SMTLIB_SYSTEM = """You turn an SMT-LIB formalization into a notation-only arithmetic question:
numbers and variables only, no story. Solve any equation in the SMT-LIB yourself so that every
quantity is computed from earlier ones, and write the question in EXACTLY this form:
Let a = 16, b = 3 and c = 2. Let s1 = a − b and answer = s1 × c. What is the value of answer?
Rules: the first sentence gives the numbers the SMT-LIB sets its constants to (one letter each, no
other number), the second defines each derived quantity from given or earlier ones with + − × ÷ and
parentheses (never a number written in it, never the answer's value), the last quantity is `answer`,
and the question ends with "What is the value of answer?". Return only the question."""

NOTATION_FROM_SMTLIB_SHOTS: list[tuple[str, str]] = [(
    "(declare-const muffins Real)\n(assert (= muffins 24))\n(declare-const per_box Real)\n"
    "(assert (= per_box 4))\n(declare-const box_price Real)\n(assert (= box_price 3))\n"
    "(declare-const boxes Real)\n(assert (= boxes (/ muffins per_box)))\n"
    "(declare-const answer Real)\n(assert (= answer (* boxes box_price)))\n(check-sat)\n(get-value (answer))",
    "Let a = 24, b = 4 and c = 3. Let s1 = a ÷ b and answer = s1 × c. What is the value of answer?",
)]


def notation_from_smtlib_messages(smtlib: str, feedback: str | None = None, previous: str | None = None,
                                  *, history: list[Attempt] | None = None) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": NOTATION_FROM_SMTLIB_SYSTEM}]
    for q, a in NOTATION_FROM_SMTLIB_SHOTS:
        msgs += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    msgs.append({"role": "user", "content": smtlib})
    return _with_history(msgs, history, feedback, previous)


# ------------------------------------------------------------------ refinement
COT_SYSTEM = """Solve the math problem step by step. Write one step per line; each step states one
calculation with its numbers and its result written out ("3 boxes × $4 = $12."). Use plain
numbers in the steps (no LaTeX). End with a final line of the form: The answer is <number>."""

COT_SHOTS: list[tuple[str, str]] = [(
    "A baker makes 24 muffins and sells them in boxes of 4. Each box costs $3. "
    "How much money does the baker make by selling all the boxes?",
    "The baker fills 24 / 4 = 6 boxes.\nHe makes 6 × 3 = 18 dollars.\nThe answer is 18.",
)]


def cot_messages(question: str, feedback: str | None = None, previous: str | None = None,
                 *, history: list[Attempt] | None = None) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": COT_SYSTEM}]
    for q, a in COT_SHOTS:
        msgs += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    msgs.append({"role": "user", "content": question})
    return _with_history(msgs, history, feedback, previous)


def _with_history(msgs: list[Message], history: list[Attempt] | None, feedback: str | None,
                  previous: str | None) -> list[Message]:
    """The task, then every earlier attempt (the model's text, then what the checks said),
    the last :data:`HISTORY_ATTEMPTS` of them: a retry sees all that was tried, and a model
    that repeats itself at temperature 0 is asked something new each time."""
    attempts = list(history or [])
    if feedback:
        attempts.append((previous, feedback))
    attempts = attempts[-HISTORY_ATTEMPTS:]
    for n, (prev, fb) in enumerate(attempts, start=1):
        if prev:
            cut = prev if len(prev) <= HISTORY_CHARS else prev[:HISTORY_CHARS] + "\n[… cut]"
            msgs.append({"role": "assistant", "content": cut})
        last = n == len(attempts)
        tail = ("Fix the problem and answer again in the same format." if last else
                "(An earlier attempt; do not repeat it.)")
        head = ("Your previous answer was checked and rejected:" if last
                else f"Attempt {n} was checked and rejected:")
        msgs.append({"role": "user", "content": f"{head}\n{fb}\n{tail}"})
    return msgs
