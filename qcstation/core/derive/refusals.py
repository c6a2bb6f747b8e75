"""Derive's refusal codes in words, for people.

A :class:`~qcstation.core.derive.bindings.Refusal` carries a short ``code`` (for counting)
and its own detailed message. Where only the counts are shown (the dashboard's notice when
a derive ends), the code alone read as jargon: ``(most: restated-value 3, kind 2)``.
:func:`refusal_words` says what each code means in a few words; a code without words here
(a new one) is still shown, its hyphens as spaces.
"""

from __future__ import annotations

__all__ = ["PREFIXES", "REFUSAL_WORDS", "refusal_words"]

REFUSAL_WORDS: dict[str, str] = {
    "ambiguous-number": "a number of the solution could be more than one quantity",
    "bad-given": "a given of the formalization is malformed",
    "bad-span": "a given's place in the question is wrong",
    "collision": "two numbers would have the same value",
    "computation-left-out": "the solution computes something the formalization leaves out",
    "flagged": "its reasoning carries a hard self-check flag",
    "fraction-operands": "the solution writes a fraction not in lowest terms",
    "given-used-twice": "two givens are read from one place",
    "held": "a given must keep its value, as a time or a year does",
    "hidden-constant": "the formalization uses a number the question does not state",
    "hidden-number": "the solution writes a number inside a word",
    "implausible": "the new answer would contradict the story",
    "injection-invalid": "the wrong reasoning made fails its checks",
    "keyinfo-invalid": "the key information made fails its checks",
    "kind": "a new value would not be whole, change sign or be too large",
    "no-draw": "every draw repeated an earlier one",
    "no-given-assert": "the formalization does not state a given",
    "no-givens": "the formalization declares no givens",
    "no-injection": "no error could be injected",
    "no-keyinfo": "no key information could be drafted",
    "no-notation": "no notation question could be made",
    "no-rule": "the rules do not formalize it step by step",
    "no-span": "a given has no place in the question",
    "no-worked-solution": "it has no worked solution to rebuild",
    "noise-not-irrelevant": "the added sentence is not marked irrelevant",
    "not-bound": "its givens are not tied to their places in the question",
    "not-rule-made": "its formalization was not made by the rules",
    "not-verified": "its reasoning is not verified",
    "notation-value": "the notation question's value is not the answer",
    "nothing-to-vary": "no given can change",
    "odd-annotation": "an annotation of the solution is malformed",
    "order": "two values would swap order",
    "reads-differently": "the rules read the new question differently",
    "restated-value": "the question states a value twice",
    "rounded": "its answer rounds a result to a whole count",
    "rules-changed": "the rules read it differently today",
    "scope": "whether an added amount is per day (or week) or in all reads two ways",
    "solution-words": "the solution writes a changing value in words",
    "too-many-decimals": "a value would have too many decimals",
    "unaligned": "the solution's steps do not match the formalization",
    "undefined": "a step could not be computed",
    "unwritable": "a new value cannot be written in the question",
    "unwritable-number": "a number of the solution cannot be rewritten",
    # an item's refusals (not raised, returned: transforms, story, runner)
    "constrained-answer": "the answer is what a stated total leaves",
    "grows": "the story grows its amount at a rate",
    "internal-error": "an internal error",
    "no-noise": "too few noise sentences fit",
    "no-place": "the question has no place for an added sentence",
    "no-template": "no added-operation template fits the question",
    "not-unique": "the new question has more than one answer",
    "recheck-unconfirmed": "a second derivation could not confirm the answer",
    "recheck-wrong": "a second derivation finds the answer wrong",
    "repeated": "the same question as another item",
    "rounded-answer": "the question asks for a rounded answer",
    "scaled-answer": "the answer is a multiple the story fixes",
    "stale-value": "an old value is still written",
    "x-in-question": "the question already writes an X",
}

#: codes made of a prefix and a status: the verifier's (``z3-unsat``) and the recheck's
PREFIXES: dict[str, str] = {
    "z3-": "Z3 does not confirm the answer",
    "recheck-": "a second derivation does not confirm the answer",
}


def refusal_words(code: str) -> str:
    """``code`` in words: :data:`REFUSAL_WORDS`, a code of :data:`PREFIXES` by its prefix
    (with its status), else the code with spaces for hyphens."""
    words = REFUSAL_WORDS.get(code)
    if words:
        return words
    for prefix, said in PREFIXES.items():
        if code.startswith(prefix):
            return f"{said} ({code[len(prefix):].replace('-', ' ')})"
    return code.replace("-", " ").replace("_", " ")
