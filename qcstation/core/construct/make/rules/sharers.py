"""The people a question shares something between (issue 26.1, lane covB): the number a step
divides by where the words say that two (or more) people split a thing evenly, though no number
is written.

* **one person splits with one other** the words name in the singular, in one sentence whose
  subject is one person ("Jake splits 8 shots of vodka with his friend" / "Jake drank 8/2"): the
  word given ``w_with_his_friend`` (the one who splits and that one: 2), tied to those words. Never
  "with his friends" (how many is not said), "Tom and Ann split ... with their mom" (three), "they
  split ... with her" (whose "they" is not one person).
* **the people the question names share equally** ("Emani has $30 more money than Howard ... they
  decide to combine and share the money equally" / "each gets $270 / 2 people"; "Mark has 30
  candies, Peter has 25 candies, and John has 35 candies. They decided to ... share them equally" /
  "90 / 3"): the question writes "equally", "evenly" or "between themselves" in a sentence of
  sharing (share, split, divide) that says "they" or "themselves", it names exactly as many people
  as the step divides by (at most six), and it writes no other word of a person but one that names
  a named one again ("Walter, his friend,", "his best friend Steve") or the sharers' "each person";
  nor "I", "we" or "my": the named constant ``k_<n>_sharers_<a>_<b>`` (its value in its name:
  :func:`sharers_value`).

Only for a step that divides by that number (never one that multiplies: "2*20" of "Each of their
entrees"), on a line that says a share ("share", "split", "equally", "each", "per person",
"divide") or, for one who splits with one other, that shares a content word with the sentence of
the split ("John ... splits the cost with his brother" / "So he paid 36/2" shares none: refused).
:mod:`.constants` asks this last, where no number, word given, implied quantity or list of the
question gives the number.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.words import line_stems

__all__ = ["sharers", "sharers_value"]

#: the most people a share among those the question names counts
_MOST_NAMED = 6
_SHARE_VERB = r"(?:split(?:s|ting)?|shar(?:e|es|ed|ing)|divid(?:e|es|ed|ing))"
#: one other person, in the singular: "with his friend", "with her older brother", "with his best friend"
_ONE_OTHER = (r"(?:friend|brother|sister|wife|husband|mom|mother|dad|father|son|daughter|cousin|uncle|aunt"
              r"|grandma|grandmother|grandpa|grandfather|boyfriend|girlfriend|roommate|classmate|partner"
              r"|neighbou?r|coworker|co-worker|colleague|buddy|fianc[eé]e?|nephew|niece|teammate)")
_WITH_ONE = re.compile(rf"\b{_SHARE_VERB}\b[^.?!]{{0,80}}?\b(with\s+(?:his|her)\s+(?:[a-z]+\s+)?{_ONE_OTHER})\b"
                       r"(?![\s'’-]*(?:s\b|and\b|&))", re.I)
#: the subject of a sentence that is one person: a name ("John Smith"), "He", "She", then its verb
_ONE_SUBJECT = re.compile(r"\s*(?:([A-Z][a-z]+)(?:\s+[A-Z][a-z]+)?|He|She)\s+(?!and\b|or\b)[a-z]")

_EQUAL = re.compile(r"\b(?:equally|evenly|between\s+themselves|among\s+themselves|down\s+the\s+middle)\b", re.I)
_THEY = re.compile(r"\b(?:they|themselves)\b", re.I)
#: words of a person other than a name: any one of them may be a third sharer
_PERSON_WORD = re.compile(r"\b(?:friends?|brothers?|sisters?|wife|wives|husbands?|moms?|mothers?|dads?|fathers?"
                          r"|parents?|sons?|daughters?|child|children|kids?|family|families|cousins?|uncles?"
                          r"|aunts?|grand(?:ma|mother|pa|father|parents?)s?|boyfriends?|girlfriends?|roommates?"
                          r"|classmates?|partners?|neighbou?rs?|coworkers?|colleagues?|people|persons?|guests?"
                          r"|students?|teammates?|team|group|everyone|everybody|others|i|we|us|my|our"
                          r"|himself|herself|men|women|man|woman|boys?|girls?|baby|babies|twins?)\b", re.I)
#: "Walter, his friend,", "his best friend Steve": a person word that names a named one again
_APPOSITIVE = re.compile(r"[A-Z][a-z]+,\s+(?:his|her|their)\s+(?:[a-z]+\s+)?([a-z]+),"
                         r"|\b(?:his|her|their)\s+(?:[a-z]+\s+)?([a-z]+)\s+[A-Z][a-z]+\b")
_NOT_A_NAME = frozenset("""The A An If On In At When After Before Then So But And Or How What Each Every Both
    This That These Those There Their They He She It His Her Its We You I My Our Your All Some Most Mr Mrs Ms
    Dr Find Calculate Given Since While Today Tomorrow Yesterday Last Next First Finally Now Later Also Because
    During Once One Two Three Four Five Six Seven Eight Nine Ten Monday Tuesday Wednesday Thursday Friday
    Saturday Sunday January February March April May June July August September October November December
    Christmas Halloween Easter Thanksgiving""".split())
#: a line that says a share
_SHARE_LINE = re.compile(r"\b(?:shar(?:e|es|ed|ing)|split(?:s|ting)?|equal(?:ly)?|evenly|each|per\s+person"
                         r"|divid(?:e|es|ed|ing))\b", re.I)


def _sentence(text: str, pos: int) -> tuple[int, int]:
    a = max(text.rfind(c, 0, pos) for c in ".?!") + 1
    ends = [e for e in (text.find(c, pos) for c in ".?!") if e != -1]
    return a, (min(ends) if ends else len(text))


def _slug(words: str) -> str:
    return re.sub(r"[^a-z]+", "_", words.lower()).strip("_")[:48]


def _line_ties(line: str, sentence: str, own: str) -> bool:
    """Does the step's line say a share, or share a content word with the sentence of the split
    (other than the words of the sharers)?"""
    if _SHARE_LINE.search(line):
        return True
    return bool((line_stems(line) & line_stems(sentence)) - line_stems(own) - {"$", "%"})


def _names(question: str) -> list[str]:
    """The people the question names: capitalised words it never writes in lower case, no sentence
    word, weekday or month ("Jefferson's" is Jefferson)."""
    lower = {w.lower() for w in re.findall(r"\b[a-z]+\b", question)}
    found = [m.group(1) for m in re.finditer(r"\b([A-Z][a-z]+)(?:['’]s)?\b", question)]
    return list(dict.fromkeys(w for w in found if w not in _NOT_A_NAME and w.lower() not in lower))


def _split_with_one(question: str, line: str) -> str | None:
    found = []
    for m in _WITH_ONE.finditer(question):
        a, b = _sentence(question, m.start())
        subject = _ONE_SUBJECT.match(question, a, m.end())
        if subject is None or subject.group(1) in _NOT_A_NAME:
            continue
        found.append((m.group(1), question[a:b]))
    if len(found) != 1 or question.count(found[0][0]) != 1:
        return None
    words, sentence = found[0]
    return "w_" + _slug(words) if _line_ties(line, sentence, words) else None


def _named_share(question: str, line: str, n: int) -> str | None:
    said = [(a, b) for m in _EQUAL.finditer(question) for a, b in [_sentence(question, m.start())]
            if re.search(rf"\b{_SHARE_VERB}\b", question[a:b], re.I) and _THEY.search(question[a:b])]
    if not said or not _SHARE_LINE.search(line):
        return None
    names = _names(question)
    if len(names) != n:
        return None
    appositive = {m.start(1) if m.group(1) else m.start(2) for m in _APPOSITIVE.finditer(question)}
    # "how much did each person pay": the sharers themselves
    each = {m.start(1) for m in re.finditer(r"\b(?:each|per)\s+(person)\b", question, re.I)}
    if any(m.start() not in appositive | each for m in _PERSON_WORD.finditer(question)):
        return None
    return f"k_{n}_sharers_" + "_".join(_slug(w) for w in names)


def sharers(v: Fraction, question: str, line: str, role: str) -> str | None:
    """The name of the people a step's divisor counts (see the module docstring), else None."""
    if role != "divisor" or v.denominator != 1 or not 2 <= v <= _MOST_NAMED:
        return None
    q = question[:20_000]
    return (_split_with_one(q, line[:2000]) if v == 2 else None) or _named_share(q, line[:2000], int(v))


_SHARERS_NAME = re.compile(r"k_([2-6])_sharers_[a-z_]+")


def sharers_value(name: str) -> Fraction | None:
    """The value of a named constant of :func:`sharers` ("k_3_sharers_mark_peter_john": 3), else None."""
    m = _SHARERS_NAME.fullmatch(name)
    return Fraction(int(m.group(1))) if m else None
