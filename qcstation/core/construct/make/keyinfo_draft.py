"""The rule-made key information (Understanding) for seeds whose solution carries calculator
annotations: cut from the question's own sentences and grounded in the solution's
computations, so that every known quantity is a number of the question and every
relationship an actual solution step (the unknowns and relationships: :mod:`.unknowns`).
The draft passes the same :func:`~.keyinfo.validate_keyinfo` as a model's answer.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Callable

from qcstation.common.memo import text_memo
from qcstation.core.reading.clauses import (SENTENCE as _SENTENCE, is_verb_form, reads_as_clause,
                                            sentences as _sentences, shared_subject_tail)
from qcstation.core.reading.textnumbers import (
    ANNOT_RE as _ANNOT, NUMBER_RE as _NUMBER, NUMBER_WORD_RE as _WORD_RE, numbers_in as _numbers,
)
from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.draft_reads import known_fragments, refuse_unread, scenario_fragments
from qcstation.core.construct.make.known_forms import locate, unused_list_items, verbless_number_phrase
from qcstation.core.construct.make.unknowns import unknowns_and_relations

__all__ = ["keyinfo_from_annotations"]


# ("so that" joins a purpose to its clause; a run of spaces is tried from its start only)
_CLAUSE_SPLIT = re.compile(_SENTENCE.pattern + r"|[,;:]\s+|(?<!\s)\s+(?=(?:and|but|if|when|while|so(?!\s+that\b))\s)|(?<!\s)(?<!\bby)(?<!until)(?<!since)\s+(?=then\s)", re.I)  # not "by then": a time, no clause (961)
_WH = re.compile(r"\b(how|what|which|who|whom|when|where|find|calculate|determine|compute)\b", re.I)
_ASK_AT = re.compile(r"(?:^|[,;:]\s+|\b(?:and|then|so)\s+)(how|what|which|who|whom|find|calculate|determine|compute)\b",
                     re.I)
_IMPERATIVE = re.compile(r"^(?:find|calculate|determine|compute)\b", re.I)
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
_LEAD_PREP = re.compile(r"(?:^|[\s,])(for|to|in|on|at|with|by|of|from|after|before|during)$", re.I)
_LEAD_BOUND = re.compile(r"(?:^|[\s,])(at least|at most|approximately|roughly|exactly)$", re.I)
_ASK_CONDITION = re.compile(r"(?<!\s)\s+(?:if|when|given that|assuming)\s+", re.I)
_RELATIVE_TAIL = re.compile(r",\s+(?:who|which|whose)\b[^,]*$", re.I)
_CONDITION_CLAUSE = re.compile(r"(?:if|when|suppose|assuming)\s+(?!\w+ing\b)", re.I)
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


def _counts_what_solution_uses(sentence: str, solution: str) -> bool:
    """Does a sentence count what the solution works with, though the solution never writes
    its number? "Jake buys 2 T-shirts." when the solution adds "the cost of the T-shirts":
    the words after one of its numbers are words of the solution."""
    from qcstation.core.reading.words import line_stems, words_at

    used = line_stems(solution)
    return any(words_at(sentence, m.start(), m.end()) & used for m in _NUMBER.finditer(sentence))


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


_PHRASE_STOP = frozenset("between for if and to in at on with from than did does do is are was were will "
                         "cost".split())
# "... will she have after 3 years?": the phrase keeps the word that says what its number is
_PHRASE_PREP = re.compile(r"\b(after|in|within|over|during)\s+$", re.I)
_CONDITION = re.compile(r"^(?:if|given(?: that)?|suppose(?: that)?|assuming(?: that)?)\s+", re.I)
# "Since he has 3 cows, how many ...?": the premise of the asking sentence is a fact
_PREMISE = re.compile(r"^(?:since|now that)\s+", re.I)


def _cap(text: str, condition: bool = True) -> str:
    text = _LEAD.sub("", text.strip())
    if condition:
        text = _CONDITION.sub("", text)
    return text[:1].upper() + text[1:] if text else text


def _goal(sentences: list[str]) -> tuple[int, str, list[str], list[str], str]:
    """(index of the asking sentence, the asking clause, the premises that stand before it and
    those of a trailing condition (see :func:`_premises`), a phrase that opens the asking
    clause): "..., for how much money did he buy it?" keeps its preposition; "... if she charges $12 per day?" is context, not the goal.
    What stands before the asking word is context only where it is a clause of its own ("If
    he has 42 dollars for the week, ..."); a phrase ("On average,", "After the extra fees,",
    "Using this information,", "After 15 days,") is said of the question: cut off into the
    scenario it would be a fragment there, and the goal would lose what it asks."""
    goal_idx = next((i for i in range(len(sentences) - 1, -1, -1) if sentences[i].endswith("?")),
                    len(sentences) - 1)
    goal_sentence = sentences[goal_idx]
    # the asking word starts a clause ("If ... who voted in the class was 80, calculate ...":
    # "who" there is a relative pronoun, the question is "calculate ...")
    m = _asking_at(goal_sentence) or _WH.search(goal_sentence)
    if m is not None and m.re is _ASK_AT:
        m = re.compile(re.escape(m.group(1))).search(goal_sentence, m.start(1))
    if m and m.start() > 0:
        lead = goal_sentence[: m.start()].strip(" ,;:")
        ask = goal_sentence[m.start():]
        prep = None if re.search(r"[,;:]\s*$", goal_sentence[:m.start()]) else _LEAD_PREP.search(lead)  # "in, how"
        prep = prep or _LEAD_BOUND.search(lead)  # "If he spends $35, at least how many trees ...": of the goal
        if prep:
            ask = prep.group(1) + " " + ask
            lead = lead[: prep.start(1)].strip(" ,;:")
    else:
        lead, ask = "", goal_sentence
    opening = ""
    leads = _premises(lead) if lead else []
    # "If 6 potatoes makes 36 hash browns": a condition is a clause even where its grammar is
    # off; "If holding the gemstone" is a phrase
    if leads and (not all(_premise_reads(p) for p in leads) or re.match(r"(?i:before|after|until)\s[^,;]*$", lead)):
        opening, leads = lead, []
    cond = _ASK_CONDITION.search(ask)
    # "How old will John's youngest son, who was born when John was 32, be in 3 years?": a "when"
    # inside a relative clause is no condition of the question
    if cond and _RELATIVE_TAIL.search(ask[:cond.start()]):
        cond = None
    tails: list[str] = []
    if cond and m is not None and _numbers(ask[cond.end():]):
        tails = _premises(ask[cond.end():].rstrip("?. "))
        ask = ask[: cond.start()]
    return goal_idx, ask, leads, tails, opening


#: a relative pronoun set off by a comma ("If Mia, who is younger than Emma, is 40 years old")
_RELATIVE_AT = re.compile(r",\s+(?:who|whom|which)\b", re.I)


def _asking_at(sentence: str) -> re.Match[str] | None:
    """Where the asking clause starts (:data:`_ASK_AT`): "If Mia, who is younger than Emma, is
    40 years old, what's the average of their ages?" asks "what's ...", its ", who" is a
    relative clause of the condition (1278 was cut at it: "Mia." in the scenario); a relative
    pronoun is the asking word only where no asking word follows it."""
    found = list(_ASK_AT.finditer(sentence))
    while len(found) > 1 and _RELATIVE_AT.match(sentence, found[0].start()):
        found = found[1:]
    return found[0] if found else None


# "If A, and if B, then how many ...?": each condition is a premise of the question, stated as
# a fact of its own; the "then"/"so" that leads on to the question is no part of any
_THEN_END = re.compile(r"(?<!\s)(?:,\s*|\s+)(?:then|so)$", re.I)   # (?<!\s): linear on space runs
_MORE_CONDITIONS = re.compile(r",\s+(?:and\s+)?(?:if|assuming(?: that)?|given that|suppose(?: that)?)\s+", re.I)


def _premise_reads(text: str) -> bool:
    """Is ``text`` a clause, or a condition ("If 6 potatoes makes 36 hash browns": a clause even
    where its grammar is off; "If holding the gemstone" is a phrase)?"""
    return reads_as_clause(_cap(text)) or _CONDITION_CLAUSE.match(text) is not None


def _premises(text: str) -> list[str]:
    """The facts a condition of the question states, each a clause of its own: "If Faraday earned
    $26 ..., and if each bouquet has 12 sunflowers" -> ["If Faraday earned $26 ...", "each bouquet
    has 12 sunflowers"]; a phrase that opens the next condition stays with it ("At the end of the
    8 weeks, if she has a total of $100" -> ["At the end of the 8 weeks, she has a total of
    $100"]); a "then" or "so" that leads on to the question goes ("... 65 minutes then")."""
    text = _THEN_END.sub("", text.strip(" ,;:")).strip(" ,;:")
    out: list[str] = []
    for p in (p.strip(" ,;:") for p in _MORE_CONDITIONS.split(text)):
        if not p:
            continue
        if out and not _premise_reads(out[-1]):
            out[-1] = f"{out[-1]}, {p}"  # an opening phrase is said of the clause after it
        else:
            out.append(p)
    return out


#: the number a step divides by ("/ 3", "÷3", "/(3)")
_DIVISOR = re.compile(r"[/÷]\s*\(?\s*(\d+(?:\.\d+)?)")


def _used_values(question: str, steps: list[Any], givens: list[dict[str, str]] | None) -> set[Fraction]:
    """The question's values the formalization uses (a percent given "45%", declared as
    45/100, counts as 45; named factors are no fact of the question; word givens are placed
    by their words)."""
    if givens is not None:
        used: set[Fraction] = {Fraction(g["value"]) * (100 if str(g.get("text", "")).endswith("%") else 1)
                               for g in givens if not str(g.get("name", "")).startswith(("k_", "w_"))}
    else:
        used = set()
        for st in steps:
            used |= _numbers(str(st.expr_text))
    # "1/3 as many" computed as "÷ 3": the fraction is a given the solution uses (a divisor of
    # a step: "4 quarters ... 12 x 4" multiplies by the count, "the last quarter" is no 1/4)
    divisors = set().union(*(_numbers(" ".join(_DIVISOR.findall(str(st.expr_text)))) for st in steps)) \
        if steps else set()
    used |= {q for q in _numbers(question) if q and q.denominator != 1 and q.numerator == 1
             and 1 / q in divisors}
    return used


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


_DANGLING = frozenset("a an the of to for in on at with by and or per".split())


def _ask_phrase(clause: str, hit: re.Match[str] | None, last: int = -1) -> str:
    """A given stated only by the asking clause, as the words that state it ("after 3 years",
    "a weekly bus pass for $20"). The goal already asks the question; the known quantity says
    which of its words state the given, quoted, never as a fact cut from it."""
    phrase = clause[hit.start():] if hit else clause
    # "... by buying a weekly bus pass for $20?": the thing it is the number of
    # ("a weekly bus pass for $20"), not the bare "$20"
    owner = re.search(r"\b(?:a|an)\s+(?:\w+\s+){0,3}?(?:for|of|at)\s+$", clause[:hit.start()], re.I) \
        if hit else None
    if owner:
        words = clause[owner.start():].rstrip("?.,").split()
    else:
        # "from 1:00 PM to 5:00 PM": a phrase that states several givens runs to the last one
        head: list[str] = []
        if hit and last > hit.end():
            last += len(re.findall(r"^[^\s?,]*", clause[last:])[0])  # the whole "5:00"
            head = clause[hit.start():last].split()
        words = [*head, *clause[last:].split()[:3]] if head else phrase.split()[:5]
        for k, w in enumerate(words[1:], start=1):
            if k >= len(head) and (w.lower().rstrip("?.,") in _PHRASE_STOP or words[k - 1].endswith(",")
                                   or (k == 1 and words[0].isalpha() and not w.rstrip("?.,").endswith("s")
                                       and is_verb_form(w.rstrip("?.,")))):
                words = words[:k]
                break
        while len(words) > 1 and words[-1].lower().rstrip("?.,") in _DANGLING:
            words = words[:-1]  # "25 liters of milk a" (cut before "day"): no word left hanging
        prep = _PHRASE_PREP.search(clause[:hit.start()]) if hit else None
        if prep:
            words = [prep.group(1), *words]
        elif hit and len(words) == 1:
            # a bare number says nothing: the words before it ("when John was 32")
            words = [*clause[:hit.start()].split(",")[-1].split()[-3:], *words]
    return f'The question asks about "{" ".join(words).rstrip("?.,")}"'


def _ask_known(question: str, parts: list[str], clause: str, here: list[tuple[int, int]]) -> list[str]:
    """Known quantities for the givens the asking clause states (``here``, their places in the
    question): the context clause that states the same as a fact, else the question's words for
    them. Givens a few words apart joined by "and" / "to" ("30 small holes and 15 large holes",
    "from 1:00 PM to 5:00 PM") are one phrase."""
    at = question.find(clause)
    groups: list[list[tuple[int, int]]] = []
    for sp in here:
        gap = question[groups[-1][-1][1]:sp[0]] if groups else ""
        if groups and len(gap.split()) <= 5 and re.search(r"\b(?:and|to|or)\b", gap):
            groups[-1].append(sp)
        else:
            groups.append([sp])
    out: list[str] = []
    for group in groups or [[]]:
        hit = _NUMBER.search(clause) or _WORD_RE.search(clause)
        last = -1
        if group and at >= 0:  # where the group's first given stands ("a week", "dozens", "$20")
            a, b = group[0]
            if not at <= a < b <= at + len(clause):  # words the clause cut: "can Henry | and his brother"
                out.append(f'The question asks about "{question[a:group[-1][1]]}"')
                continue
            pos = a - at - (1 if a > 0 and question[a - 1] in "$€£" else 0)
            hit = re.compile(r"[$€£]?" + re.escape(question[a:b])).match(clause, max(pos, 0)) or hit
            last = group[-1][1] - at
        fact = _stated_in_context(parts, clause, hit)
        out.append(_cap(fact.rstrip(".?")) if fact is not None else _ask_phrase(clause, hit, last))
    return out


def _ask_clauses(ask: str) -> list[str]:
    """The asking clause's clauses, a number phrase after "and" kept with the one before it ("to
    make 20 small and 8 large masks", 904: one phrase, not "20 small" cut from its noun)."""
    out: list[str] = []
    for c in _clauses(ask):
        if out and _AND_NUMBER.match(c) and f"{out[-1]} {c}" in ask:
            out[-1] = f"{out[-1]} {c}"
        else:
            out.append(c)
    return out


def _stated_in_context(parts: list[str], clause: str, hit: re.Match[str] | None) -> str | None:
    """The context clause that states the asking clause's given as a fact, with the same
    number and the word after it ("There would be 20 people in total watching the game" for
    "... to serve 20 people?"), if one does."""
    if hit is None:
        return None
    after = re.match(r"\s*(\w+)", clause[hit.end():])
    if after is None:
        return None
    said = re.compile(r"(?<![\w.])" + re.escape(hit.group(0)) + r"\s+" + re.escape(after.group(1)) + r"\b", re.I)
    for part in parts:
        for unit in _units(part, lambda c: bool(said.search(c))):
            if said.search(unit):
                return unit
    return None


def _span_values(givens: list[dict[str, str]] | None) -> dict[tuple[int, int], Fraction]:
    """The value each given states at its place in the question (a percent "45%" as 45)."""
    out: dict[tuple[int, int], Fraction] = {}
    for g in givens or []:
        span = g.get("span")
        if str(g.get("name", "")).startswith(("k_", "w_")) or not isinstance(span, list) or len(span) != 2:
            continue
        try:
            value = Fraction(str(g["value"]))
        except (KeyError, ValueError, ZeroDivisionError):
            continue
        out[(int(span[0]), int(span[1]))] = value * (100 if str(g.get("text", "")).endswith("%") else 1)
    return out


def _known(question: str, parts: list[str], ask: str, used: set[Fraction],
           givens: list[dict[str, str]] | None, implied: tuple[str, ...] = ()) -> tuple[list[str], set[Fraction]]:
    """The clauses that state a used given, each given once (per place where the givens
    carry one), and the values they cover. A clause is listed only where it has a subject
    and verb of its own, else the sentence (see :func:`_units`); a given only the asking
    clause states is the context clause that states the same (406), else named by the words
    that state it."""
    known: list[str] = []
    covered: set[Fraction] = set()
    spans: list[tuple[int, int]] = [
        (int(g["span"][0]), int(g["span"][1])) for g in givens or []
        if isinstance(g.get("span"), list) and len(g["span"]) == 2
        and not str(g.get("name", "")).startswith("k_")]
    # the value each given's span states, read from the given (as :func:`_used_values` counts
    # it): "forty-two 75-pound bales" states 42 though the words read as 40 and 2
    span_value = _span_values(givens)
    placed: set[tuple[int, int]] = set()
    sentences = set(_sentences(question))

    def inside(text: str) -> set[tuple[int, int]]:
        at, end = locate(question, text)
        return {sp for sp in spans if at >= 0 and at <= sp[0] < end}

    def carries(text: str) -> bool:
        return bool(inside(text)) if spans else bool(_numbers(text) & used)

    for part in [*parts, ask]:
        for clause in (_pronoun_joined(part, _units(part, carries), carries) if part is not ask else _ask_clauses(part)):
            nums = _numbers(clause) & used
            if spans:
                here = inside(clause)
                if not here or here <= placed or clause in known:
                    continue
                placed |= here
                covered |= nums | {span_value[sp] for sp in here if sp in span_value}
                if part is not ask:
                    known.append(_known_text(clause, part in sentences, part.lstrip().startswith(clause)))
                    continue
            elif not nums or nums <= covered:
                continue
            if part is ask:
                for text in _ask_known(question, parts, clause, sorted(here) if spans else []):
                    if text not in known:
                        known.append(text)
            else:
                known.append(_known_text(clause, part in sentences))
            covered |= nums
    # a word given ("twice", "round trip") once, in the clause that states it; so is a person or
    # thing the words count once ("a coach for each team", "Henry and 3 of his friends": :mod:`.rules.ones`)
    texts = [str(g["text"]) for g in givens or [] if str(g.get("name", "")).startswith("w_") and g.get("text")]
    for text in [*texts, *implied]:
        # (a fraction in digits may carry an ordinal's ending: "1/3rd of the calories", 928)
        word = re.compile(r"\b" + r"[\s'’]+".join(re.escape(w) for w in text.split())
                          + (r"(?:st|nd|rd|th)?" if text[-1:].isdigit() else "") + r"\b", re.I)
        if any(word.search(k) for k in known):
            continue
        def says(c: str, w: re.Pattern[str] = word) -> bool:
            return bool(w.search(c))

        for part in parts:
            stating = next((c for c in _units(part, says) if says(c)), None)
            if stating is not None:
                known.append(_known_text(stating, part in sentences, part.lstrip().startswith(stating)))
                break
        else:
            hit = word.search(ask)  # "How many dozens of eggs ...?": named by the question's words
            if hit is not None and (text := _ask_phrase(ask, hit)) not in known:
                known.append(text)
    return known, covered


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


_ONE = re.compile(r"(?<![\w.$/-])1(?![\w.,/%-])")


def _ones_said(question: str, context: list[str], known: list[str], solution: str) -> list[str]:
    """The known quantities with each clause that states a 1 the solution counts without writing a
    given for it ("she drops 1 of each", 813; "money for 1 child ticket and 1 adult ticket", 149;
    "worth 1 point each", 877), in the question's order; listed nowhere, an annotator misses it."""
    said = [_cap(k).strip(" .").lower() for k in known]
    added = [(question.find(u), _known_text(u, True, s.lstrip().startswith(u))) for s in context
             for u in _units(s, lambda c: bool(_ONE.search(c))) if _ONE.search(u) and reads_as_clause(_cap(u))
             and not _LEAD.sub("", u)[:1].isdigit() and _counts_what_solution_uses(s, solution)
             and not any(_cap(u).strip(" .").lower() in k or k in _cap(u).strip(" .").lower() for k in said)]
    if not added:
        return known
    at = [question.lower().find(k.lower()[:40]) for k in known]
    return [k for _, k in sorted([*((a if a >= 0 else len(question), k) for a, k in zip(at, known)), *added],
                                 key=lambda x: x[0])]


def _irrelevant(context_sents: list[str], solution: str, used: set[Fraction], known: list[str]) -> list[str]:
    """Sentences with numbers, none of which the solution uses anywhere. Never a sentence
    whose only numbers are words ("he has one before bed" may be a fact the solution counts
    without writing it), whose numbers are all 1 ("money for 1 child ticket and 1 adult
    ticket" is what 12 + 10 counts), or that counts what the solution works with."""
    sol_numbers = _numbers(_ANNOT.sub(" ", solution))

    def unused(s: str) -> bool:
        return bool(_NUMBER.search(s)) and not (_numbers(s) & used) and not (_numbers(s) & sol_numbers) \
            and not _numbers(s) <= {Fraction(0), Fraction(1)} and not _counts_what_solution_uses(s, solution)

    out = [s for s in context_sents if unused(s)]
    out += [i for s in context_sents if s not in out for i in unused_list_items(s, lambda t: not (
        _numbers(t) & (used | sol_numbers)) and not _numbers(t) <= {Fraction(0), Fraction(1)})]
    # "Pat's flowers grow 12 inches wide so she needs to leave 1.5 feet between every plant": a
    # clause of its own whose numbers the solution never uses is a distractor too (listed by
    # neither known quantities nor the sentences above, an annotator would find it nowhere)
    for s in context_sents:
        if s in out:
            continue
        units = _units(s, lambda c: bool(_numbers(c) & used))
        if len(units) < 2:
            continue
        for u in units:
            if unused(u) and reads_as_clause(_cap(u)) and not any(u in k or k in u for k in known):
                out.append(_cap(u))
    return out


def _scenario(context_parts: list[str], context_sents: list[str], irrelevant: list[str], goal: str,
              known: list[str]) -> str:
    """The story apart from its goal and its distractors. A one-sentence scenario may also be
    the one clause that states the givens: the known quantity keeps the whole clause (cut to
    the phrase from its number on, "$300 into a scheme", it would lose its subject)."""
    scenario_parts = [p for p in context_parts if p not in irrelevant]
    scenario = " ".join((p.strip()[:1].upper() + p.strip()[1:] if p in context_sents else _cap(_PREMISE.sub("", p.strip()), True)).rstrip(" ,;:")
                        + ("" if p.rstrip().endswith((".", "!", "?")) else ".") for p in scenario_parts)
    if not scenario.strip() or scenario.strip(" .") == goal.strip(" ?."):
        raise KeyInfoError("the question states no scenario apart from its goal")
    return scenario


_NOTE = re.compile(r"(?<=\?)\s*\(([^()]{1,300})\)\s*$")
_INSTRUCTION = re.compile(r"\s*(?:round|express|give|answer|write|use|assume|ignore|hint|note|do not|don't)\b", re.I)


#: a clause cut from "three and a half boxes" at its "and"
_SPLIT_MIXED = re.compile(r"an?\s+(?:half|quarter|third)\s+(?!of\b|as\b)[a-z]", re.I)


def _implied_ones(steps: list[Any]) -> tuple[str, ...]:
    """The words of the persons and things the formalization counts once (``k_one_his_teacher``:
    "his teacher"), in the order its steps use them."""
    from qcstation.core.construct.make.rules.ones import ONE_PREFIX, one_constant_words
    from qcstation.core.reading.expr import expr_names

    out: list[str] = []
    for st in steps:
        expr = getattr(st, "expr", None)
        for n in expr_names(expr) if expr is not None else []:
            if n.startswith(ONE_PREFIX) and one_constant_words(n) not in out:
                out.append(one_constant_words(n))
    return tuple(out)


def keyinfo_from_annotations(question: str, solution: str, steps: list[Any],
                             givens: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A draft grounded in the seed's calculator-annotated solution, in the paper's
    six fields.

    ``steps`` are the rule steps behind the verified formalization (``name``,
    ``expr_text``, ``result``, and, from the current rules, ``expr`` and ``line``);
    ``givens`` the question's numbers the formalization declares. The goal is the
    question's asking clause; the scenario is the rest of the story (never the goal);
    known quantities are the clauses stating the givens, each given once; unknowns
    are the quantities the steps compute, named Q1, Q2, ... and described by the
    solution's words with every intermediate number hidden; relationships define
    each Q from the givens and earlier Qs; irrelevant information holds only
    sentences whose numbers the solution never uses.
    """
    # "What is the cost per serving? (Round to the nearest integer.)": a note after the question
    # is an instruction said of the goal, or a fact of the story ("(Remember there are 31 days in
    # March.)"), never part of the asking sentence
    note = _NOTE.search(question)
    sents = _sentences(question[:note.start()] if note else question)
    if not sents:
        raise KeyInfoError("the question has no sentences")
    instruction = note.group(1).strip() if note and _INSTRUCTION.match(note.group(1)) else ""
    if note and not instruction:
        # as the question writes it (its places are found in the question), less "Remember"
        sents.append(re.sub(r"^(?:remember|recall|note)(?:\s+that)?,?\s+", "", note.group(1).strip(), flags=re.I))
    goal_idx, ask, leads, tails, opening = _goal(sents)
    # the question as written: "..., calculate X." asks "Calculate X."
    end = "." if _IMPERATIVE.match(ask) and not sents[goal_idx].endswith("?") else "?"
    goal = _cap(ask.rstrip(" ,;:?.") + end)
    if instruction:
        goal = f"{goal} ({instruction})"
    if opening:   # "After 15 days, how many flowers does he have?"
        goal = _cap(f"{opening}, {goal[:1].lower() + goal[1:] if goal[1:2].islower() else goal}", False)
    used = _used_values(question, steps, givens)
    context_sents = [s for i, s in enumerate(sents) if i != goal_idx]
    context_parts = [*context_sents, *leads, *tails]
    # a given the opening phrase states is named by its words ('The question states "after 15
    # days"'), in the question's order
    stated = [*context_sents, *leads, *([opening] if opening else []), *tails]
    known, covered = _known(question, stated, ask, used, givens, _implied_ones(steps))
    missing = used - covered - _numbers(ask)
    if givens is not None and missing - {Fraction(0), Fraction(1)}:
        raise KeyInfoError("the question's givens could not be placed in clauses: "
                           + ", ".join(str(v) for v in sorted(missing)))
    known = _ones_said(question, context_sents, known, solution)
    irrelevant = _irrelevant(context_sents, solution, used, known)
    if not known:
        raise KeyInfoError("no clause of the question states a number the solution uses")
    # (only where the question writes a number and "and" right before it: "A third says 25% more",
    # "..., and a third bidder adds" (1276) are the third person, a clause of its own)
    split = next((k for k in known if _SPLIT_MIXED.match(k) and re.search(
        r"(?:\d|\b" + _WORD_RE.pattern + r")\s+and\s+" + re.escape(k[:16]), question, re.I)), None)
    if split is not None:
        # "Lisa sold three and a half boxes" cut at its "and" ("Lisa sold three", "A half boxes")
        raise KeyInfoError(f"a known quantity would be half of a mixed number: {split[:80]!r}")
    scenario = _scenario(context_parts, context_sents, irrelevant, goal, known)
    # a premise restated as a fact that reads as no sentence ("Mia." of "If Mia, who is younger
    # than Emma, is 40 years old"; "He pay with a $10 bill."): no rule-made scenario, a model's
    bad = scenario_fragments(scenario, question)
    if bad:
        raise KeyInfoError(f"the problem scenario would hold a fragment: {bad[0]!r}")
    cut = known_fragments(known, question)
    if cut:
        # "A photo frame for $5" cut from "Ellen bought a pair of leggings for $100 and a photo
        # frame for $5" (1297): no fact of its own; no rule-made key information, a model's
        raise KeyInfoError(f"a known quantity would read as a fragment: {cut[0]!r}")
    unknown, relations = unknowns_and_relations(question, steps, givens, solution)
    refuse_unread(unknown, question)
    return {
        "problem_scenario": scenario,
        "goal": goal,
        "known_quantities": known,
        "unknown_quantities": unknown,
        "relationships_and_constraints": relations,
        "irrelevant_information": irrelevant,
    }

