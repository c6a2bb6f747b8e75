"""Derive's refusal codes in words, for people.

A :class:`~qcstation.core.derive.bindings.Refusal` carries a short ``code`` (for counting)
and its own detailed message. Where only the counts are shown (the dashboard's notice when
a derive ends), the code alone read as jargon: ``(most: restated-value 3, kind 2)``.
:func:`refusal_words` says what each code means in a few words; a code without words here
(a new one) is still shown, its hyphens as spaces.
"""

from __future__ import annotations

__all__ = ["REFUSAL_WORDS", "refusal_words"]

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
    "rules-changed": "the rules read it differently today",
    "solution-words": "the solution writes a changing value in words",
    "too-many-decimals": "a value would have too many decimals",
    "unaligned": "the solution's steps do not match the formalization",
    "undefined": "a step could not be computed",
    "unwritable": "a new value cannot be written in the question",
    "unwritable-number": "a number of the solution cannot be rewritten",
}


def refusal_words(code: str) -> str:
    """``code`` in words: :data:`REFUSAL_WORDS`, else the code with spaces for hyphens."""
    return REFUSAL_WORDS.get(code) or code.replace("-", " ").replace("_", " ")
