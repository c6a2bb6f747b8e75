"""The two parts of a fraction the question states in words, used apart by a solution: "two
thirds of 24" computed as "24/3 = 8" then "2*8 = 16". The 3 is the fraction's parts (what it
divides by, ``w_two_thirds_parts``) and the 2 its numerator (how many parts it takes,
``w_two_thirds_numerator``): word givens of the phrase the question writes, never a number the
question does not state. Only fractions whose numerator is more than 1 ("a third" divides by 3
already: ``w_a_third_parts``), and only where the question writes the phrase as a fraction,
not an ordinal.

A fraction written with a digit numerator and a word of parts ("3 quarters of the number of
novels" / "(4/3)*9"): its parts ``w_quarters_parts`` (the 3 is the question's digit, a given),
only on a line that writes the fraction or its reciprocal in digits (:func:`writes_the_fraction`)."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

__all__ = ["fraction_parts", "check_parts_with_numerator", "digit_fraction_parts", "writes_the_fraction"]


def fraction_parts(question_lower: str) -> list[tuple[Fraction, str]]:
    """(value, name) of the parts and numerator of each fraction in words (numerator > 1) that
    ``question_lower`` (the question, lower case) states."""
    from qcstation.core.construct.make.rules.phrases import stated_word_givens
    from qcstation.core.reading.words import WORD_GIVENS

    out: list[tuple[Fraction, str]] = []
    for phrase in stated_word_givens(question_lower):  # has_phrase(question_lower, phrase), in order
        parts = _parts_of(phrase, WORD_GIVENS[phrase])
        if parts is None:
            continue
        slug = re.sub(r"[^a-z]+", "_", phrase).strip("_")
        out.append((Fraction(parts[1]), f"w_{slug}_parts"))
        out.append((Fraction(parts[0]), f"w_{slug}_numerator"))
    return out


def _parts_of(phrase: str, values: tuple[Fraction, ...]) -> tuple[int, int] | None:
    """(numerator, parts) of a fraction in words of more than one part, as its words write them
    ("four sixths": 4 and 6, not the 2 and 3 of its value), else None."""
    from qcstation.core.reading.word_values import FRACTION_WORD_PARTS

    if len(values) != 1:
        return None
    num, den = FRACTION_WORD_PARTS.get(phrase, (values[0].numerator, values[0].denominator))
    return (num, den) if num >= 2 and den >= 2 else None


def check_parts_with_numerator(names: list[str]) -> str | None:
    """Why a formalization's use of a fraction's parts cannot be vouched for, or None: the parts
    of "three-fourths" (4) used without its numerator (3) are no quantity of the question ("20
    students do not have one ... 4 x 20": the 4 is 1 / (1 - 3/4), equal to the parts only
    because the numerator is one less; for three-fifths it would be 5/2). Its numerator used
    without its parts: the step's division by the parts was bound to another number of equal
    value ("Two-thirds of the tadpoles ... 2 * 15 / 3" with "three times as many tadpoles":
    GSM8K train 7176), which a transform moving that number would move with it."""
    declared = set(names)
    for name in names:
        if name.endswith("_parts") and name.removesuffix("_parts") + "_numerator" not in declared \
                and _is_fraction_parts(name):
            return (f"{name} (the parts of {name[2:-6].replace('_', ' ')!r}) is used without the "
                    "fraction's numerator: what it divides or multiplies by is another quantity")
        if name.endswith("_numerator") and name.removesuffix("_numerator") + "_parts" not in declared \
                and name.removesuffix("_numerator") + "_parts" in _fraction_parts_names():
            return (f"{name} (the numerator of {name[2:-10].replace('_', ' ')!r}) is used without the "
                    "fraction's parts: what the step divides by is bound to another quantity of "
                    "equal value, or the fraction is not taken whole")
    return None


def _is_fraction_parts(name: str) -> bool:
    return name in _fraction_parts_names()


@functools.lru_cache(maxsize=1)
def _fraction_parts_names() -> frozenset[str]:
    """The names of the parts of every fraction in words of more than one part ("w_two_thirds_parts"),
    made once (``WORD_GIVENS`` is fixed)."""
    from qcstation.core.reading.words import WORD_GIVENS

    return frozenset("w_" + re.sub(r"[^a-z]+", "_", phrase).strip("_") + "_parts"
                     for phrase, values in WORD_GIVENS.items() if _parts_of(phrase, values) is not None)


_DENOMINATOR_WORDS = {"thirds": 3, "quarters": 4, "fourths": 4, "fifths": 5, "sixths": 6, "sevenths": 7,
                      "eighths": 8, "ninths": 9, "tenths": 10}
_DIGIT_FRACTION = re.compile(r"(?<![\w.,$])(\d)\s+(thirds|quarters|fourths|fifths|sixths|sevenths|eighths|ninths"
                             r"|tenths)\s+(?:of|as)\b")


def digit_fraction_parts(question_lower: str) -> dict[str, tuple[int, int]]:
    """name -> (numerator, parts) of each fraction the question writes with a digit numerator and a
    word of parts ("If this is 3 quarters of the number of novels": ``w_quarters_parts``, 4 with
    the numerator 3, itself a given of the question). One such fraction per word of parts."""
    found: dict[str, list[tuple[int, int]]] = {}
    for m in _DIGIT_FRACTION.finditer(question_lower[:20_000]):
        num, den = int(m.group(1)), _DENOMINATOR_WORDS[m.group(2)]
        if 1 < num < den:
            found.setdefault(f"w_{m.group(2)}_parts", []).append((num, den))
    return {name: fs[0] for name, fs in found.items() if len(set(fs)) == 1 and len(fs) == 1}


def writes_the_fraction(numerator: int, parts: int, line: str) -> bool:
    """Does the step's line write the fraction or its reciprocal in digits ("(4/3)*9" for "3
    quarters")? Only then is its number of parts that fraction's: "4 x 20" for "3 quarters of the
    students have one" is 1 / (1 - 3/4), equal to the parts only because the numerator is one less."""
    return bool(re.search(rf"(?<![\d.])(?:{numerator}\s*/\s*{parts}|{parts}\s*/\s*{numerator})(?![\d.])", line))
