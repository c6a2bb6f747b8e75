"""The question's clauses as a rule-made key information (:mod:`.keyinfo_draft`) lists them: a
sentence cut at its commas and joining words into clauses, each with its subject and verb (a
number phrase, a relative clause, a serial list, an opening phrase or a condition stays with the
clause it is said of: :func:`_clauses`, :func:`_units`), and the text a known quantity shows for
one (:func:`_known_text`: a clause as the question writes it, or its words quoted).
"""

from __future__ import annotations

import re
from typing import Callable

from qcstation.common.memo import text_memo
from qcstation.core.reading.clauses import SENTENCE as _SENTENCE, reads_as_clause, shared_subject_tail
from qcstation.core.reading.textnumbers import NUMBER_RE as _NUMBER, NUMBER_WORD_RE as _WORD_RE, numbers_in as _numbers
from qcstation.core.construct.make.known_forms import verbless_number_phrase


# ("so that" joins a purpose to its clause; a run of spaces is tried from its start only)
_CLAUSE_SPLIT = re.compile(_SENTENCE.pattern + r"|[,;:]\s+|(?<!\s)\s+(?=(?:and|but|if|when|while|so(?!\s+that\b))\s)|(?<!\s)(?<!\bby)(?<!until)(?<!since)\s+(?=then\s)", re.I)  # not "by then": a time, no clause (961)


# a clause's joining word ("and he ...", "while Daniel read 13 pages"), never a sentence's ("So far, ...")
_LEAD = re.compile(r"^(?:and|but|so(?!\s+far\b)|then|also|while(?!\s+(?:on|in|at|during|\w+ing)\b)|whereas)\s+", re.I)


# a word after "and" that starts a clause of its own (its subject), or says "and then"
_SUBJECT = frozenset("he she they it i we you there the a an his her their its my our your each every "
                     "this that these those some all both one then".split())
_LEAD_PHRASE = re.compile(r"(?:after|before|during|within|for each|for every|in the|on the|at the|by the"
                          r"|in (?:\S+ )?(?:years?|months?|weeks?|days?|hours?|minutes?))\b", re.I)
_PRONOUNS = frozenset("he she they it i we you".split())
_TIMES = frozenset("twice thrice half double triple".split())
_PREP = frozenset("to from in on at of for with by into onto over under".split())
# "Six years ago, when ...": a time phrase is said of the rest of its sentence
_TIME_PHRASE = re.compile(r"(?:\w+\s+){1,2}(?:ago|later|earlier)", re.I)
_BETWEEN = re.compile(r"\bbetween\b", re.I)
_BETWEEN_AND = re.compile(r"\bbetween\b.*\band\b", re.I)
_IF_UNLESS = re.compile(r"(?:if|unless)\s", re.I)
# (also a comparison that shares the clause's verb: "He bought 3 more truck stamps than snowflake
# stamps, and 9 fewer rose stamps than truck stamps", 633)
_AND_NUMBER_PHRASE = re.compile(r"and\s+\$?\d[\d,.]*%?(?:\s+\S+){0,3}|and\s+\$?\d[\d,./]*%?\s+(?:more|fewer|less"
                                r"|as\s+(?:many|much))\s[^,;:]*\b(?:than|as)\b[^,;:]*", re.I)


_DEPENDENT = re.compile(r"(?:when|because|since|although|though|until|unless|as)\s", re.I)


_AND_OR_BUT = re.compile(r"(?:and|or|but)\s", re.I)


_IF_WHEN = re.compile(r"(?:if|unless|when|whenever)\s", re.I)
_CONDITION_COMMA = re.compile(r"(?:if|unless|when|whenever)\s[^,]+,\s*", re.I)
_JOINING_WORD = re.compile(r"^(?:and|but|so(?!\s+far\b)|then|also)\s+", re.I)


#: a clause that says what there is ("There were 20 private cars"), and a number phrase after "and"
_THERE_BE = re.compile(r"there\s+(?:is|are|was|were|will\s+be)\s+\$?\d", re.I)
_AND_NUMBER = re.compile(r"and\s+\$?\d[\d,.]*\s+[a-z]", re.I)

#: the fraction part of a mixed number written in words ("three and a half boxes")
_MIXED_TAIL = re.compile(r"and\s+an?\s+(?:half|quarter|third)\b", re.I)


def _shares_clause(prev: str, c: str) -> bool:
    """Is "and ..." (``c``) part of the clause before it, not a clause of its own? "to and from
    school", "on Saturday and Sunday", "and did another 1,000 steps" (a verb that shares the
    subject): a cut there leaves a clause without its object or its subject."""
    words = c.split()
    if prev.split() and prev.split()[-1].lower() in _PRONOUNS and len(words) > 1 and words[0].lower() in ("then", "so", "also"):
        return True  # "He then spends 1/16 ...": the subject is no clause of its own
    if len(words) < 2 or words[0].lower() != "and" or not prev.split():
        return False
    nxt, last = words[1].strip(",."), prev.split()[-1].strip(",.")
    if _MIXED_TAIL.match(c) and (_numbers(last) or _WORD_RE.fullmatch(last)):
        return True  # "three and a half boxes": one number, no clause of its own
    if _BETWEEN.search(prev) and not _BETWEEN_AND.search(prev):
        return True  # "between March 1st and April 19th"
    if nxt.lower() in _TIMES:  # "30 plant pots for the daisies, and twice as many for the roses"
        return True
    if nxt[:1].isupper():
        return last[:1].isupper() and nxt != "I" and not _TIME_PHRASE.fullmatch(prev)
    if last.lower() in _PREP:
        return True
    # "and for each car tire ...": a phrase that starts the next clause
    return nxt.lower() not in _SUBJECT and nxt.lower() not in _PREP and not _numbers(nxt) and not nxt[:1].isdigit() \
        and not nxt.startswith("$")


# "Her bank account, which held $200 ..., now holds $420": a relative clause set off by commas
# belongs to the clause around it; cut out, it has no head ("Which held $200") and its
# clause has no subject ("Now holds $420")
_RELATIVE = re.compile(r",\s+(?:which|who|whose)\s", re.I)


@text_memo(list, maxsize=512)
def _clauses(sentence: str) -> list[str]:
    """The clauses of a sentence (read once per sentence: the known quantities and the
    irrelevant information cut the same sentences)."""
    if _RELATIVE.search(sentence):
        return [sentence.strip(" ,;:")]
    parts = [c.strip(" ,;:") for c in _CLAUSE_SPLIT.split(sentence) if c and c.strip(" ,;:")]
    # "... where the pipes will freeze if the temperature falls below 32 degrees": a condition
    # after its clause is said of it; cut off, it would read as a fact
    joined: list[str] = []
    for c in parts:
        if joined and _IF_UNLESS.match(c) and f"{joined[-1]} {c}" in sentence:
            joined[-1] = f"{joined[-1]} {c}"
        else:
            joined.append(c)
    parts = joined
    parts = _join_lists(parts, sentence)
    if len(parts) > 1 and _LEAD_PHRASE.match(parts[0]) and len(parts[0].split()) <= 6 \
            and re.match(re.escape(parts[0]) + r",\s+" + re.escape(parts[1]), sentence):
        # "After the first 3 hours, they have raised $2100": an opening phrase is said of its clause
        parts = [f"{parts[0]}, {parts[1]}", *parts[2:]]
    for i, c in enumerate(parts[:-1]):
        if _TIME_PHRASE.fullmatch(c) and sentence.find(c) >= 0:
            parts = [*parts[:i], sentence[sentence.find(c):].strip(" ,;:")]
            break
    out: list[str] = []
    for c in parts:
        if out and _shares_clause(out[-1], c):
            at = sentence.find(out[-1])
            end = sentence.find(c, at + len(out[-1])) if at >= 0 else -1
            if end >= 0:
                out[-1] = sentence[at:end + len(c)]
                continue
        # "Amora and Lainey got 70 each": a subject of one or two words is no clause of its own
        # "He has 64 eggs and 2 trays", "$12 for adults and $10 for children": a number phrase
        # after "and" (no verb of its own) is said by the clause before it
        # "There were 20 private cars and 12 buses parked outside the church" (1098): a number
        # phrase after "and" is a second subject of the "there were" before it
        if out and ((len(_CONDITION.sub("", out[-1]).split()) <= 2 and c.lower().startswith("and "))
                    or _AND_NUMBER_PHRASE.fullmatch(c)
                    or (_THERE_BE.match(out[-1]) and _AND_NUMBER.match(c))) \
                and f"{out[-1]} {c}" in sentence:
            out[-1] = f"{out[-1]} {c}"
        else:
            out.append(c)
    return out


def _join_lists(parts: list[str], sentence: str) -> list[str]:
    """A serial list ("bought a computer, 2 monitors, and a printer for $2,400") stays one
    clause: what follows its last item ("for $2,400") is said of the whole list, so an item
    cut from it ("a printer for $2,400") would state a false fact. A list is a run of short
    comma-separated items (three words at most) ending in an item that starts with and/or."""
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i + 1
        while j < len(parts) and len(parts[j].split()) <= 3 and not parts[j].lower().startswith(("and ", "or ")) \
                and f"{parts[j - 1]}, {parts[j]}" in sentence:
            j += 1
        if j > i + 1 and j < len(parts) and parts[j].lower().startswith(("and ", "or ")) \
                and re.search(re.escape(parts[j - 1]) + r",?\s+" + re.escape(parts[j]), sentence):
            joined = sentence[sentence.find(parts[i]):sentence.find(parts[j]) + len(parts[j])]
            out.append(joined)
            i = j + 1
            continue
        out.append(parts[i])
        i += 1
    return out


_CONDITION = re.compile(r"^(?:if|given(?: that)?|suppose(?: that)?|assuming(?: that)?)\s+", re.I)
# "Since he has 3 cows, how many ...?": the premise of the asking sentence is a fact
_PREMISE = re.compile(r"^(?:since|now that)\s+", re.I)


def _cap(text: str, condition: bool = True) -> str:
    text = _LEAD.sub("", text.strip())
    if condition:
        text = _CONDITION.sub("", text)
    return text[:1].upper() + text[1:] if text else text


_OPENING = re.compile(r"(?:(?:and|but|so|then)\s+)?(?:in|on|over|during|after|before|for|at|by|within|from|"
                      r"through|throughout|since|until)\b", re.I)


# tried at a comma or a run of spaces' start, never right after " and" (it started earlier)
_JOIN_END = re.compile(r"(?:(?=,)|(?<![\s,]))(?<!\sand)(?<!\sor)(?<!\sbut)(?:,?\s+(?:and|or|but))+$", re.I)


def _units(part: str, carries: Callable[[str], bool]) -> list[str]:
    """The clauses of ``part`` as known quantities may list them. A clause that carries a given
    but has no subject and verb of its own ("and then charged her 10% less money", "4 sacks
    to her brother", "1/2 of what her brother earns") joins the clause before it (the first
    one, the clause after it); where that still leaves no clause of its own, the whole part
    is one known quantity. Every text returned is a clause with its subject and verb or the
    whole part as written."""
    units = _joined_clauses(part)
    if units is None:
        return [part.strip(" ,;:")]
    if any(carries(u) and not reads_as_clause(u) for u in units) \
            or (len(units) > 1 and any(carries(shared_subject_tail(u)) for u in units)):
        return [part.strip(" ,;:")]
    return units


#: a unit that ends on a subject pronoun ("a project that they"): its clause goes on after the cut
#: ("a quarter of that" ends on an object: a full clause; "more than she", "as tall as he" too)
_DANGLING_END = re.compile(r"(?<!\bthan )(?<!\bas )\b(?:they|he|she|we|I)$")


@text_memo(lambda units: None if units is None else list(units), maxsize=512)
def _joined_clauses(part: str) -> list[str] | None:
    """What :func:`_units` cuts ``part`` into before it asks which clauses carry a given (a
    function of ``part`` alone: read once per sentence, the same sentences come back in
    every variant of a question); None when a clause is not found in ``part`` again."""
    clauses = _clauses(part)
    bounds: list[list[int]] = []
    pos = 0
    for c in clauses:
        at = part.find(c, pos)
        if at < 0:
            at = part.find(c)
        if at < 0:
            return None
        bounds.append([at, at + len(c)])
        pos = at + len(c)
    merged: list[list[int]] = []
    pending: int | None = None
    for k, ((a, b), c) in enumerate(zip(bounds, clauses)):
        if pending is not None:
            a, pending = pending, None
        # "..., when a gust blew the comb out of his pocket": a dependent clause is said of the one before it
        dependent = merged and _DEPENDENT.match(c)
        if dependent or not reads_as_clause(_cap(_JOIN_END.sub("", part[a:b].strip(" ,;:")), False)) \
                or verbless_number_phrase(c, part[bounds[k - 1][0]:bounds[k - 1][1]] if k else ""):
            # "..., and over the next two days, he totaled only 30% ...": a phrase that opens the
            # clause after it (a comma between them) is said of that one
            opens = _OPENING.match(c) and k + 1 < len(bounds) and "," in part[b:bounds[k + 1][0]] \
                and not _AND_OR_BUT.match(clauses[k + 1])
            if merged and not opens:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                pending = a
            continue
        if merged and _IF_WHEN.match(part[merged[-1][0]:]) \
                and "," in part[merged[-1][1]:a] and not _AND_OR_BUT.match(c):
            # "If he eats donuts every day for breakfast, he'll gain 1.75 pounds/week": the
            # condition is said of the clause after it, which is no fact without it
            merged[-1][1] = b
            continue
        if merged and _DANGLING_END.search(part[merged[-1][0]:merged[-1][1]].rstrip(" ,;:")):
            # "... to finance a big science project that they and their society would benefit
            # greatly from": a unit that ends on its next clause's subject is not cut there
            merged[-1][1] = b
            continue
        merged.append([a, b])
    if pending is not None:
        if merged:
            merged[-1][1] = bounds[-1][1]
        else:
            merged.append([pending, len(part)])
    # a joining word the cut left at the end ("There are 26 countries in South America and")
    return [_JOIN_END.sub("", part[a:b].strip(" ,;:")).strip(" ,;:") for a, b in merged]


# "Sally just started working ..., and her starting salary is $0.50 more ...": whose it is
_POSSESSIVES = frozenset("her his their its".split())


def _pronoun_joined(part: str, units: list[str], carries: Callable[[str], bool]) -> list[str]:
    """"Stanley's brother, Oliver, was also on the mountain, but he was at an elevation of 3,000
    feet": a clause whose subject is a pronoun (or starts with one's possessive, "her starting
    salary") keeps the clause before it that says who it is,
    where that one states no number (listed alone, "He was at ..." would read as the Stanley of
    the known quantity before it)."""
    out: list[str] = []
    for k, u in enumerate(units):
        first = _LEAD.sub("", u).split(maxsplit=1)[:1]
        if k and out and first and first[0].lower() in _PRONOUNS | _POSSESSIVES and carries(u) \
                and not _NUMBER.search(units[k - 1]) \
                and not _WORD_RE.search(units[k - 1]):
            a, b = part.find(out[-1]), part.find(u)
            if 0 <= a < b:
                out[-1] = part[a:b + len(u)]
                # "He only wants enough carrots ... while the vegetables are fresh, so he buys four
                # 12-pound bags" (460): a dependent clause says no one; the clause before it does
                if len(out) > 1 and _SAYS_OF.match(units[k - 1]) and not _NUMBER.search(out[-2]) \
                        and not _WORD_RE.search(out[-2]):
                    a0 = part.find(out[-2])
                    if 0 <= a0 < a:
                        out[-2:] = [part[a0:b + len(u)]]
                continue
        out.append(u)
    return out


#: a clause said of the one before it ("while the vegetables are fresh")
_SAYS_OF = re.compile(r"(?:while|when|because|since|although|though|as|until|unless|after|before)\s", re.I)


def _known_text(unit: str, whole_sentence: bool, starts: bool = False) -> str:
    """A known quantity from a unit of :func:`_units`. What stands before or after the asking
    clause in its sentence ("After 60 days, how much ...?") is no sentence of its own; where it
    is no clause either, it is quoted as words of the question, never passed off as a fact."""
    text = unit.strip().rstrip(".?")
    if whole_sentence and starts and not _CONDITION.match(text):
        # the sentence's own start stays ("While playing, they ..."), but for a joining word
        text = _JOINING_WORD.sub("", text)
        return text[:1].upper() + text[1:]
    cond = _CONDITION_COMMA.match(text)
    if whole_sentence and cond and not _AND_OR_BUT.match(text[cond.end():]) \
            and reads_as_clause(text[cond.end():]):
        return _cap(text, condition=False)  # a condition kept with the clause it is said of
    if not whole_sentence:
        text = _PREMISE.sub("", text)
    if whole_sentence or reads_as_clause(_cap(text)):
        return _cap(text)
    return f'The question states "{text[:1].lower() + text[1:] if text[1:2].islower() else text}"'
