"""The values of numbers written as words: the number words ("seven", "forty-two") and the word
givens ("half", "twice", "a dozen", "two-thirds", "halfway"), with the values a solution writes
for each. Data, read by :mod:`.words` (which re-exports both tables) and the readers above it, and
:func:`mixed_numbers`: "two and a half" (5/2), which no single word states.
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = ["FRACTION_WORD_PARTS", "NUMBER_WORD_VALUES", "WORD_GIVENS", "mixed_number_places", "mixed_numbers"]

NUMBER_WORD_VALUES = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
NUMBER_WORD_VALUES.update({w: 10 * i for i, w in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), 3)})
# "forty-two" is one number, 42 (not a forty and a two)
NUMBER_WORD_VALUES.update({f"{t}-{u}": NUMBER_WORD_VALUES[t] + NUMBER_WORD_VALUES[u]
                           for t in "twenty thirty forty fifty sixty seventy eighty ninety".split()
                           for u in "one two three four five six seven eight nine".split()})

#: words that state a number without digits, with the values a solution writes for them
#: (half of x is x/2 or x*1/2); each is a given of its own, tied to its words
WORD_GIVENS: dict[str, tuple[Fraction, ...]] = {
    "half": (Fraction(1, 2), Fraction(2)),
    "halfway": (Fraction(1, 2), Fraction(2)),  # "charged her phone halfway" / "26 / 2"
    "halved": (Fraction(1, 2), Fraction(2)),
    "twice": (Fraction(2),),
    "double": (Fraction(2),),
    "doubled": (Fraction(2),),
    "doubles": (Fraction(2),),
    "triple": (Fraction(3),),
    "tripled": (Fraction(3),),
    "triples": (Fraction(3),),
    "thrice": (Fraction(3),),
    "a third": (Fraction(1, 3), Fraction(3)),
    "one third": (Fraction(1, 3), Fraction(3)),
    "a quarter": (Fraction(1, 4), Fraction(4)),
    "one quarter": (Fraction(1, 4), Fraction(4)),
    "a fourth": (Fraction(1, 4), Fraction(4)),
    "one-half": (Fraction(1, 2), Fraction(2)),
    "one-third": (Fraction(1, 3), Fraction(3)),
    "one-quarter": (Fraction(1, 4), Fraction(4)),
    "one-fourth": (Fraction(1, 4), Fraction(4)),
    "a fifth": (Fraction(1, 5), Fraction(5)),
    "one fifth": (Fraction(1, 5), Fraction(5)),
    "one-fifth": (Fraction(1, 5), Fraction(5)),
    "a tenth": (Fraction(1, 10), Fraction(10)),
    "two-thirds": (Fraction(2, 3),),
    "two thirds": (Fraction(2, 3),),
    "three-fourths": (Fraction(3, 4),),
    "three fourths": (Fraction(3, 4),),
    "three-quarters": (Fraction(3, 4),),
    "three quarters": (Fraction(3, 4),),
    "one-tenth": (Fraction(1, 10), Fraction(10)),
    "a dozen": (Fraction(12),),
    "dozen": (Fraction(12),),
    "dozens": (Fraction(12),),
    "an hour": (Fraction(60),),
    "round trip": (Fraction(2),),
    "round-trip": (Fraction(2),),
    "a pair": (Fraction(2),),
    "quadruple": (Fraction(4),),
    "quadrupled": (Fraction(4),),
    "quadruples": (Fraction(4),),
    "a week": (Fraction(7),),
    # a unit and a half: "about a minute and a half to peel a potato" is 1.5 minutes
    "a minute and a half": (Fraction(3, 2),),
    "an hour and a half": (Fraction(3, 2),),
    "a day and a half": (Fraction(3, 2),),
    "a year and a half": (Fraction(3, 2),),
    "a mile and a half": (Fraction(3, 2),),
}
#: the numerator and parts each fraction in words writes, unreduced ("four sixths": 4 of 6 parts,
#: though its value is 2/3)
FRACTION_WORD_PARTS: dict[str, tuple[int, int]] = {}
# the other fractions in words ("four-fifths", "three eighths", "one-sixth", "an eighth")
_ORDINAL_DENOMINATORS = {"fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "third": 3,
                         "fourth": 4, "quarter": 4}
for _den_word, _den in _ORDINAL_DENOMINATORS.items():
    for _num_word, _num in (("one", 1), ("two", 2), ("three", 3), ("four", 4), ("five", 5), ("six", 6),
                            ("seven", 7), ("eight", 8), ("nine", 9)):
        if _num >= _den or (_den_word == "quarter" and _num > 1):
            continue  # "two quarters" may be coins
        for _sep in ("-", " "):
            _w = f"{_num_word}{_sep}{_den_word}" + ("" if _num == 1 else "s")
            if _w not in WORD_GIVENS:
                WORD_GIVENS[_w] = (Fraction(_num, _den), Fraction(_den)) if _num == 1 else (Fraction(_num, _den),)
            FRACTION_WORD_PARTS.setdefault(_w, (_num, _den))
    _a = ("an " if _den_word[0] in "aeiou" else "a ") + _den_word
    if _a not in WORD_GIVENS and _den >= 6:
        WORD_GIVENS[_a] = (Fraction(1, _den), Fraction(_den))


_PARTS = {"half": Fraction(1, 2), "third": Fraction(1, 3), "quarter": Fraction(1, 4)}
#: "two and a half", "1 and one-half", "three and a quarter": a whole and a part, one number
_MIXED = re.compile(r"\b(\d{1,6}|[a-z]+(?:-[a-z]+)?)\s+and\s+(?:a|one)[\s-]+(half|third|quarter)\b",
                    re.IGNORECASE)


def mixed_numbers(text: str) -> list[tuple[str, Fraction]]:
    """The mixed numbers ``text`` writes in words ("two and a half times": 5/2), with their
    words, in order; a whole that is no number ("bread and a half") is skipped."""
    return [(words, value) for _, _, words, value in mixed_number_places(text)]


def mixed_number_places(text: str) -> list[tuple[int, int, str, Fraction]]:
    """(start, end, words, value) of each mixed number :func:`mixed_numbers` reads, in order."""
    out = []
    for m in _MIXED.finditer(text[:100_000]):
        whole = m.group(1).lower()
        base = Fraction(int(whole)) if whole.isdigit() else NUMBER_WORD_VALUES.get(whole)
        if base is not None:
            out.append((m.start(), m.end(), m.group(0), Fraction(base) + _PARTS[m.group(2).lower()]))
    return out
