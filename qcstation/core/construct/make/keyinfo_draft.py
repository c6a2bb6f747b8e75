"""The rule-made key information (Understanding) for seeds whose solution carries calculator
annotations: cut from the question's own sentences and grounded in the solution's
computations, so that every known quantity is a number of the question and every
relationship an actual solution step (the unknowns and relationships: :mod:`.unknowns`).
The draft passes the same :func:`~.keyinfo.validate_keyinfo` as a model's answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from qcstation.core.reading.clauses import (is_verb_form, reads_as_clause,
                                            sentences as _sentences)
from qcstation.core.reading.textnumbers import (
    NUMBER_RE as _NUMBER, NUMBER_WORD_RE as _WORD_RE, numbers_in as _numbers,
)
from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.draft_reads import known_fragments, refuse_unread, scenario_fragments
from qcstation.core.construct.make.keyinfo_clauses import (_AND_NUMBER, _PREMISE, _cap, _clauses, _known_text,
                                                           _pronoun_joined, _units)
from qcstation.core.construct.make.keyinfo_listed import _irrelevant, _ones_said, _spans, every_number_listed
from qcstation.core.construct.make.known_forms import locate
from qcstation.core.construct.make.unknowns import unknowns_and_relations

__all__ = ["keyinfo_from_annotations"]


_WH = re.compile(r"\b(how|what|which|who|whom|when|where|find|calculate|determine|compute)\b", re.I)
_ASK_AT = re.compile(r"(?:^|[,;:]\s+|\b(?:and|then|so)\s+)(how|what|which|who|whom|find|calculate|determine|compute)\b",
                     re.I)
_IMPERATIVE = re.compile(r"^(?:find|calculate|determine|compute)\b", re.I)


_LEAD_PREP = re.compile(r"(?:^|[\s,])(for|to|in|on|at|with|by|of|from|after|before|during)$", re.I)
_LEAD_BOUND = re.compile(r"(?:^|[\s,])(at least|at most|approximately|roughly|exactly)$", re.I)
_ASK_CONDITION = re.compile(r"(?<!\s)\s+(?:if|when|given that|assuming)\s+", re.I)
_RELATIVE_TAIL = re.compile(r",\s+(?:who|which|whose)\b[^,]*$", re.I)
_CONDITION_CLAUSE = re.compile(r"(?:if|when|suppose|assuming)\s+(?!\w+ing\b)", re.I)


_PHRASE_STOP = frozenset("between for if and to in at on with from than did does do is are was were will "
                         "cost".split())
# "... will she have after 3 years?": the phrase keeps the word that says what its number is
_PHRASE_PREP = re.compile(r"\b(after|in|within|over|during)\s+$", re.I)


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
        # "from 1:00 PM to 5:00 PM": a phrase that states several givens runs to the last one; so
        # do the words that state one ("on Friday and Saturday", "to and from school": never cut
        # at their "and")
        head: list[str] = []
        if hit and (last > hit.end() or len(hit.group(0).split()) > 1):
            last = max(last, hit.end())
            last += len(re.findall(r"^[^\s?,]*", clause[last:])[0])  # the whole "5:00"
            head = clause[hit.start():last].split()
        words = [*head, *clause[last:].split()[:3]] if head else phrase.split()[:5]
        for k, w in enumerate(words[1:], start=1):
            if k >= len(head) and (w.lower().rstrip("?.,") in _PHRASE_STOP or words[k - 1].endswith(",")
                                   or (k == 1 and words[0].isalpha() and not w.rstrip("?.,").endswith("s")
                                       and is_verb_form(w.rstrip("?.,")))):
                words = words[:k]
                break
        while len(words) > max(1, len(head)) and words[-1].lower().rstrip("?.,") in _DANGLING:
            words = words[:-1]  # "25 liters of milk a" (cut before "day"): no word left hanging
        prep = _PHRASE_PREP.search(clause[:hit.start()]) if hit else None
        if prep:
            words = [prep.group(1), *words]
        elif hit and len(words) == 1:
            # a bare number says nothing: the words before it ("when John was 32")
            words = [*clause[:hit.start()].split(",")[-1].split()[-3:], *words]
    return f'The question asks about "{" ".join(words).rstrip("?., ")}"'


def _ask_known(question: str, parts: list[str], clause: str, here: list[tuple[int, int]],
               others: Sequence[tuple[int, int]] = ()) -> list[str]:
    """Known quantities for the givens the asking clause states (``here``, their places in the
    question): the context clause that states the same as a fact, else the question's words for
    them. Givens a few words apart joined by "and" / "to" ("30 small holes and 15 large holes",
    "from 1:00 PM to 5:00 PM") are one phrase. A place of another given (``others``) states
    another quantity, never this one again ("what's twice the total ...?" after "who has twice
    the number of credits as Spencer", train 384)."""
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
        fact = _stated_in_context(parts, clause, hit, question, [sp for sp in others if sp not in group])
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


def _stated_in_context(parts: list[str], clause: str, hit: re.Match[str] | None, question: str = "",
                       others: Sequence[tuple[int, int]] = ()) -> str | None:
    """The context clause that states the asking clause's given as a fact, with the same
    number and the word after it ("There would be 20 people in total watching the game" for
    "... to serve 20 people?"), if one does; never one where another given stands (``others``,
    places in ``question``)."""
    if hit is None:
        return None
    after = re.match(r"\s*(\w+)", clause[hit.end():])
    if after is None:
        return None
    said = re.compile(r"(?<![\w.])" + re.escape(hit.group(0)) + r"\s+" + re.escape(after.group(1)) + r"\b", re.I)
    for part in parts:
        for unit in _units(part, lambda c: bool(said.search(c))):
            m = said.search(unit)
            at = locate(question, unit)[0] if m and others else -1
            if m and not (at >= 0 and any(a <= at + m.start() < b for a, b in others)):
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
           givens: list[dict[str, str]] | None, implied: tuple[str, ...] = (),
           stated: tuple[re.Pattern[str], ...] = ()) -> tuple[list[str], set[Fraction]]:
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
                for text in _ask_known(question, parts, clause, sorted(here) if spans else [], spans):
                    if text not in known:
                        known.append(text)
            else:
                known.append(_known_text(clause, part in sentences))
            covered |= nums
    # a word given ("twice", "round trip") once, in the clause that states it; so is a person or
    # thing the words count once ("a coach for each team", "Henry and 3 of his friends": :mod:`.rules.ones`)
    # and so is a named constant the words state ("walk to school and back", "both his toddlers",
    # "buy one get one free": :mod:`.rules.stated_factors`)
    texts = [str(g["text"]) for g in givens or [] if str(g.get("name", "")).startswith("w_") and g.get("text")]
    for word in [*(_said(text) for text in [*texts, *implied]), *stated]:
        if any(word.search(k) for k in known):
            continue
        def says(c: str, w: re.Pattern[str] = word) -> bool:
            return bool(w.search(c))

        for part in parts:
            stating = next((c for c in _units(part, says) if says(c)), None)
            if stating is not None:
                _in_order(known, _known_text(stating, part in sentences, part.lstrip().startswith(stating)), question)
                break
        else:
            hit = word.search(ask)  # "How many dozens of eggs ...?": named by the question's words
            if hit is not None and (text := _ask_phrase(ask, hit)) not in known:
                known.append(text)
    return known, covered


def _in_order(known: list[str], text: str, question: str) -> None:
    """``text`` put among ``known`` in the question's order: before the first listed text that the
    question writes after it (a quoted phrase of the asking sentence is where its words are)."""
    at = [sp[0][0] if (sp := _spans(question, k)) else len(question) for k in [*known, text]]
    known.insert(next((i for i, a in enumerate(at[:-1]) if a > at[-1]), len(known)), text)


def _said(text: str) -> re.Pattern[str]:
    """The words of a word given or a thing counted once, as the question may write them (a
    fraction in digits may carry an ordinal's ending: "1/3rd of the calories", 928)."""
    return re.compile(r"\b" + r"[\s'’]+".join(re.escape(w) for w in text.split())
                      + (r"(?:st|nd|rd|th)?" if text[-1:].isdigit() else "") + r"\b", re.I)


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


def _stated_factors(steps: list[Any], question: str) -> tuple[re.Pattern[str], ...]:
    """The words of each named constant the formalization uses that the question states in words
    and writes (:func:`~.rules.stated_factors.stated_words`), in the order its steps use them."""
    from qcstation.core.construct.make.rules.stated_factors import stated_words
    from qcstation.core.reading.expr import expr_names

    out: list[re.Pattern[str]] = []
    for st in steps:
        expr = getattr(st, "expr", None)
        for n in expr_names(expr) if expr is not None else []:
            words = stated_words(n) if n.startswith("k_") else None
            if words is not None and words.pattern not in (w.pattern for w in out) and words.search(question):
                out.append(words)
    return tuple(out)


def keyinfo_from_annotations(question: str, solution: str, steps: list[Any],
                             givens: list[dict[str, str]] | None = None,
                             listed_late: list[str] | None = None) -> dict[str, Any]:
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
    sentences whose numbers the solution never uses. Every other number the story states is
    listed with its clause too (:func:`~.keyinfo_listed.every_number_listed`), the known
    quantities so listed also put in ``listed_late`` where one is given.
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
    known, covered = _known(question, stated, ask, used, givens, _implied_ones(steps),
                            _stated_factors(steps, question))
    missing = used - covered - _numbers(ask)
    if givens is not None and missing - {Fraction(0), Fraction(1)}:
        raise KeyInfoError("the question's givens could not be placed in clauses: "
                           + ", ".join(str(v) for v in sorted(missing)))
    known = _ones_said(question, context_sents, known, solution)
    irrelevant = _irrelevant(context_sents, solution, used, known)
    clauses_known = list(known)
    known, irrelevant = every_number_listed(question, context_parts, context_sents, known, irrelevant, solution, used)
    if listed_late is not None:  # (the known quantities listed only for a number no clause above listed)
        listed_late.extend(k for k in known if k not in clauses_known)
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

