"""The transformations that add to the story: noise sentences (SMART's Understanding ladder
and the noise perturbation) and an added operation (SMART Table 3).

* :func:`noise` inserts ``k`` sentences taken from other seeds (:class:`NoisePool`): each a
  plain statement with a number, no pronoun that could take another referent, no name the
  parent uses, and no number any quantity of the parent has. They go at sentence starts
  where the next sentence has no pronoun to mislead (the start of the question always
  qualifies). The same rules then formalize the noisy question: the formalization must be
  the parent's exactly, and the key information must list every noise sentence as
  irrelevant information (SMART A.10: "incorporating these noise sentences into the
  Irrelevant Information category").
* :func:`add_operation` appends one sentence and one step: for a goal "How many UNIT does
  SUBJECT VERB REST?", the sentence "SUBJECT also VERBs N more UNIT REST." goes before the
  goal and the solution gains "OLD + N = NEW"; the rules must formalize it as the parent
  with one more given and one more step, answering OLD + N.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from qcstation.core.construct.make.rules import BinOp
from qcstation.core.derive.bindings import Refusal, question_numbers, sentences
from qcstation.core.derive.draws import item_rng
from qcstation.core.derive.model import Check, DerivedItem, Refused, fmt
from qcstation.core.derive.parent import Derived, Parent, check_stated_totals
from qcstation.core.derive.rebuild import (
    keyinfo_content,
    notation_content,
    operation_count,
    reasoning_content,
    refinement_content,
    rule_of,
)
from qcstation.core.derive.solution import format_value
from qcstation.core.reading.word_values import NUMBER_WORD_VALUES
from qcstation.core.derive.transforms import (
    Options,
    _refinement_seed,
    full_item,
    refusal,
)

__all__ = ["NoisePool", "add_operation", "noise", "sentences"]

#: the largest answer an added operation adds to (GSM8K's largest is 2,880,000): the added number is
#: drawn from 2 up to half the answer
MAX_ADDED_TO = 10**7

_PRONOUNS = re.compile(r"\b(?:he|she|they|him|her|hers|his|their|theirs|them|it|its|this|that|"
                       r"these|those|we|us|our|you|your|i|me|my|one another|each other)\b", re.IGNORECASE)
_CAPS = re.compile(r"\b[A-Z][a-z]+")
_NOT_NAMES = frozenset(["The", "A", "An", "In", "On", "At", "Each", "Every", "If", "After", "Before", "Then", "There", "It", "For", "When", "Some", "All", "Of", "To", "By", "With", "From", "During", "Last", "This", "That", "How", "What", "Which", "Who", "Its", "His", "Her", "Their", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Half", "Both", "Most", "Many", "Much"])


def _names(text: str) -> set[str]:
    """Capitalized words that are not common sentence openers: names of people and places."""
    return {m.group(0) for m in _CAPS.finditer(text)} - _NOT_NAMES


@dataclass(frozen=True)
class NoiseSentence:
    text: str
    origin: str                      # the item key of the seed it comes from ("gsm8k-17")
    values: frozenset[Fraction]
    names: frozenset[str]


class NoisePool:
    """Statements from other seeds' questions that can serve as noise."""

    def __init__(self, items: list[NoiseSentence]) -> None:
        self.items = items

    @classmethod
    def from_sentences(cls, rows: list[tuple[str, str]]) -> NoisePool:
        """``rows``: (item key, sentence). Keeps plain statements of 5 to 25 words with a
        number and no pronoun, quote or question mark, each once."""
        seen: set[str] = set()
        items: list[NoiseSentence] = []
        for origin, sent in rows:
            # MAWPS writes its text tokenized ("Dan grew 42 turnips and 38 cantelopes ."): a
            # sentence put into another story is written as a person writes it
            sent = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(sent.split()))
            words = sent.split()
            if (not sent.endswith(".") or not sent[:1].isupper() or not 5 <= len(words) <= 25 or _PRONOUNS.search(sent)
                    or '"' in sent or "?" in sent or not re.search(r"\d", sent) or sent in seen):
                continue
            seen.add(sent)
            nums = frozenset(n.value for n in question_numbers(sent))
            items.append(NoiseSentence(sent, origin, nums, frozenset(_names(sent))))
        return cls(items)

    def pick(self, parent: Parent, k: int, rng: Any, origin: str) -> list[NoiseSentence]:
        """``k`` sentences fitting ``parent`` (see the module docstring), seeded."""
        taken, names = parent.once("noise_kept_apart", _kept_apart)
        chosen: list[NoiseSentence] = []
        order = list(range(len(self.items)))
        rng.shuffle(order)
        for i in order:
            s = self.items[i]
            if s.origin == origin or s.values & taken or s.names & names:
                continue
            if any(c.origin == s.origin for c in chosen):
                continue
            chosen.append(s)
            if len(chosen) == k:
                break
        return chosen


def _kept_apart(parent: Parent) -> tuple[frozenset[Fraction], frozenset[str]]:
    """The values and names a noise sentence for ``parent`` may not state (:meth:`NoisePool.pick`:
    every number of its question and solution, its quantities, constants and their percents;
    the names of its question), read once per parent (:meth:`.parent.Parent.once`)."""
    q, sol = str(parent.seed["question"]), str(parent.seed.get("solution") or "")
    taken = {n.value for n in question_numbers(q + "\n" + sol)}
    taken |= set(parent.old.values()) | set(parent.constants)
    taken |= {v * 100 for v in parent.old.values()}
    return frozenset(taken), frozenset(_names(q))


#: words by which a sentence goes on from the one before it ("A few minutes later, 20 more
#: birds joined"): a noise sentence put before it would cut it from what it refers to
_GOES_ON = re.compile(r"\b(?:later|then|after that|afterwards?|next|also|again|still|meanwhile|"
                      r"however|instead|finally|remaining|the rest|more|fewer|another|the same|"
                      r"the other)\b|^(?:But|So|And|Yet)\b", re.IGNORECASE)


def _insertion_points(question: str) -> list[int]:
    """Where a noise sentence may go: before the first sentence, or before one that does
    not refer back (no pronoun, no "later", "more", "the rest"...)."""
    sents = sentences(question)
    return [s for i, (s, _, text) in enumerate(sents)
            if i == 0 or not (_PRONOUNS.search(text) or _GOES_ON.search(text))]


def _insert(question: str, picks: list[tuple[int, str]]) -> str:
    out, pos = [], 0
    for at, text in sorted(picks, key=lambda p: p[0]):
        out.append(question[pos:at])
        out.append(text + " ")
        pos = at
    out.append(question[pos:])
    return "".join(out)


def noise_items(parent: Parent, opts: Options, key: str, pool: NoisePool
                ) -> list[DerivedItem | Refused]:
    """The ``noise`` transformation's items: the Understanding ladder's levels
    (``opts.noise_levels``), or the one perturbation sentence when the run is not a ladder
    (``opts.extra["ladder"]`` false: ``opts.perturb_noise``)."""
    levels = opts.noise_levels if opts.extra.get("ladder", True) else (opts.perturb_noise,)
    return noise(parent, opts, key, pool, levels)


def noise(parent: Parent, opts: Options, key: str, pool: NoisePool, levels: tuple[int, ...],
          *, transform: str = "noise", tag: str = "noise") -> list[DerivedItem | Refused]:
    """``k`` noise sentences for each ``k`` of ``levels``."""
    out: list[DerivedItem | Refused] = []
    question = str(parent.seed["question"])
    points = _insertion_points(question)
    origin = str(parent.seed.get("source")) + "-" + str(parent.seed.get("orig_id"))
    for idx, k in enumerate(levels):
        rng = item_rng(opts.rng_seed, key, transform, k)
        picks = pool.pick(parent, k, rng, origin)
        if len(picks) < k:
            out.append(Refused(transform, "no-noise", f"only {len(picks)} of {k} noise "
                                                      f"sentences fit this seed", idx))
            continue
        placed = [(rng.choice(points), s.text) for s in picks]
        try:
            out.append(_noise_item(parent, opts, key, _insert(question, placed), picks, k, idx,
                                   transform, tag))
        except Refusal as exc:
            out.append(refusal(transform, exc, idx))
    return out


def _noise_item(parent: Parent, opts: Options, key: str, question: str, picks: list[Any],
                k: int, idx: int, transform: str, tag: str) -> DerivedItem:
    seed = {**parent.seed, "question": question}
    rule = rule_of(seed)
    if rule.smtlib != parent.rule.smtlib:
        raise Refusal("reads-differently", "the rules formalize the noisy question differently")
    keyinfo = keyinfo_content(question, str(seed.get("solution") or ""), rule)
    irrelevant = set(keyinfo["irrelevant_information"])
    missing = [s.text for s in picks if s.text not in irrelevant]
    if missing:
        raise Refusal("noise-not-irrelevant", f"the key information does not list the noise "
                                              f"sentence {missing[0]!r} as irrelevant")
    reasoning = reasoning_content(rule)
    notation, nota_check = notation_content(rule.smtlib, rule.value, reasoning)
    refinement = refinement_content(str(seed.get("solution") or ""), question,
                                    str(seed["answer_text"]), n_errors=opts.errors_per_cot,
                                    rng_seed=_refinement_seed(parent, key))
    return DerivedItem(
        transform=transform, idx=idx, level=k, tag=f"{tag}{k}",
        params={"k": k, "sentences": [{"text": s.text, "from": s.origin} for s in picks]},
        question=question, solution=seed.get("solution"), answer=rule.value,
        answer_text=str(seed["answer_text"]),
        contents={"understanding": keyinfo, "reasoning": reasoning, "arithmetic": notation,
                  "refinement": refinement},
        generators={"understanding": "rule:keyinfo", "reasoning": f"rule:{rule.rule}",
                    "arithmetic": "rule:notation", "refinement": "rule:inject"},
        checks=[Check("reasoning", rule.smtlib, rule.value), nota_check],
        ops=operation_count(rule.smtlib))


# -- an added operation ---------------------------------------------------------------------

_GOAL_RE = re.compile(
    r"[Hh]ow (?:many (?P<unit>[a-z][a-z -]*?)|much (?P<money>money |in dollars )?)"
    r"(?P<aux>does|do|did|will|can) (?P<subj>he|she|they|[A-Z][a-z]+) "
    # an adverb before the verb is not the verb: "does she now have" made "She also nows 5 more
    # action figures." (lead's reading, read23)
    r"(?:(?:now|currently|then|already|actually|usually|typically|normally|finally|eventually) )?"
    r"(?P<verb>[a-z]+)"
    r"(?P<rest>[a-z0-9 ,'-]*)\?\s*$")
_THERE_RE = re.compile(r"[Hh]ow many (?P<unit>[a-z][a-z -]*?) (?P<aux>are|were) there"
                       r"(?P<rest>[a-z0-9 ,'-]*)\?\s*$")
_SKIP_UNIT = re.compile(r"^(?:total |more |in total |in all |fewer |less )+")
_SKIP_VERBS = {"be", "need", "take", "lose", "owe", "remain", "left"}
# asking clauses where "N more" would not simply add to what is asked
_NOT_ADDITIVE = re.compile(r"\b(?:left|remain\w*|between|difference|more than|less than|fewer than|"
                           r"each|per|average|percent\w*|fraction|ratio|old|longer|faster|"
                           r"farther|further|still|start|originally|before|last year|beginning|began|"
                           # "The last time ... 12 rungs ... He also has 9 more rungs to climb this
                           # time": 9 more than last time, or 9 besides? (lead, tuning draw)
                           r"this time|"
                           r"at first|initially|"
                           # a restriction on what is counted: "how many shirts and pants does
                           # Teairra has which are neither plaid nor purple?" (GSM8K train 864):
                           # whether the 7 more are plaid reads two ways
                           # "There were also 6 more legs. How many total legs were there
                           # among the animals he fed?" (lead's reading of the tuning draw): the
                           # legs of 7 chickens and 5 sheep are fixed; 6 more among them contradicts
                           r"which|neither|nor|not|except|without|only|among)\b|%", re.IGNORECASE)
# "How many emails does he respond to in a 5 day work week?": a preposition the verb strands
# is said before the amount ("responds to 86 more emails")
_STRANDED = re.compile(r"\s+(to|with|for|on|at|about|into|from)(?=\s+(?:in|during|each|every|per|within|over)\b|\s*$)")
# "... spend on lemons?", "... spend taking care of dogs?", "... use to buy the seeds?": the words
# that say what the amount is for stay with it ("They also spent $4 more." could be on anything)
#: where a condition or a total's words start (tried only where a run of spaces starts: from
#: inside it, the rest of the run was read again each time)
_CONDITION_OR_TOTAL = re.compile(r"(?<!\s)\s+(?:if|when|unless|in total|in all|altogether)\b")
_WHAT_FOR = re.compile(r"\s+((?:on|for|from)\s+[a-z][a-z '-]*|[a-z]+ing\b[a-z '-]*|to\s+(?!in\b|during\b|have\b|be\b)[a-z]+\b[a-z '-]*)$")
# "How much money did Patrick earn, in dollars, from selling lemonade for 6 hours?": the unit
# said aside goes; a source ("from selling lemonade") the new sentence cannot carry (it writes a
# number of the story) leaves "Patrick also earned $20 more." open to any source: refused
_WHOLE = re.compile(r"\b(?:all|every|entire|whole)\b", re.IGNORECASE)
_AFTER_WHOLE = re.compile(r"\b(?:after|by|once|when|upon)\s+[a-z]+ing\b[^?]*?\b(?:all|every|entire|whole)\b", re.IGNORECASE)
_ASIDE = re.compile(r"^\s*,\s*in dollars\s*,?")
_FROM = re.compile(r"\bfrom\b")
_PAST = {"buy": "bought", "sell": "sold", "eat": "ate", "make": "made", "have": "had",
         "get": "got", "read": "read", "run": "ran", "spend": "spent", "give": "gave",
         "drink": "drank", "see": "saw", "find": "found", "catch": "caught", "win": "won",
         "write": "wrote", "drive": "drove", "ride": "rode", "bring": "brought", "earn": "earned",
         "pick": "picked", "collect": "collected", "bake": "baked", "score": "scored",
         "sell ": "sold", "use": "used", "receive": "received", "pay": "paid", "save": "saved",
         "walk": "walked", "travel": "traveled", "order": "ordered", "plant": "planted",
         "cook": "cooked", "play": "played", "watch": "watched", "fill": "filled",
         "grow": "grew", "throw": "threw", "swim": "swam", "fly": "flew", "build": "built",
         "send": "sent", "keep": "kept", "put": "put", "cut": "cut", "do": "did"}
_REGULAR = {v for v in _PAST if _PAST[v].endswith("ed")}


def _third_person(verb: str) -> str:
    if verb == "have":
        return "has"
    if verb == "do":
        return "does"
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def _added_sentence(last: str) -> tuple[str, str, str] | None:
    """(sentence template with {n}, the solution's unit words, money "$" or "") for the
    asking clause of the question's last sentence, when a template fits. The clause's tail
    ("... between his stops", "in total") is not copied: the new sentence says only that
    there is N more of what is asked."""
    if _NOT_ADDITIVE.search(last):
        return None
    m = _THERE_RE.search(last)
    if m:
        unit = _SKIP_UNIT.sub("", m.group("unit")).strip()
        if not unit or len(unit.split()) > 4:
            return None
        return f"There {m.group('aux')} also {{n}} more {unit}.", unit, ""
    m = _GOAL_RE.search(last)
    if m is None:
        return None
    money = m.group("unit") is None
    unit = "" if money else _SKIP_UNIT.sub("", m.group("unit")).strip()
    if money and m.group("money") is None and "dollar" not in last and "$" not in last:
        return None
    verb, aux, subj = m.group("verb"), m.group("aux"), m.group("subj")
    if (not money and (not unit or len(unit.split()) > 4)) or verb in _SKIP_VERBS:
        return None
    if aux in ("does", "do", "did") and verb in ("has", "is", "was"):
        return None   # "does Teairra has": the question's own verb is off ("Teairra also hases")
    subject = subj[:1].upper() + subj[1:]
    amount = "${n} more" if money else f"{{n}} more {unit}"
    rest = _ASIDE.sub(" ", m.group("rest"))
    if _AFTER_WHOLE.search(rest):
        # "If a kilogram of tuna costs $0.50, how much will he earn after selling all the tunas to
        # the market?" (lead's reading of GSM8K test's added-operation items): what all of it
        # makes the story fixes, as "from selling all the water"; more of it contradicts it
        return None
    stranded = _STRANDED.match(rest)
    if stranded:
        verb_tail = f" {stranded.group(1)}"
    else:
        verb_tail = ""
        what_for = _WHAT_FOR.match(rest)
        if what_for and question_numbers(what_for.group(1)):
            return None   # "from recycling in a four-week month": a quantity of the story said again
        if what_for and _WHOLE.search(_CONDITION_OR_TOTAL.split(what_for.group(1))[0]):
            # "He can sell water for $1.2 per gallon. He also made $49 more from selling all the
            # water." (lead's read24): what all of it makes the story fixes; more of it contradicts
            return None
        if what_for:  # less a condition or a total's words ("watching the show if he watches ...")
            amount += " " + _CONDITION_OR_TOTAL.split(what_for.group(1))[0].strip()
        elif _FROM.search(rest):
            return None
    if aux in ("will", "can"):
        return f"{subject} {aux} also {verb}{verb_tail} {amount}.", unit, "$" if money else ""
    if aux == "did":
        if verb not in _PAST:
            return None
        form = _PAST[verb]
    else:
        form = verb if (aux == "do" or subj == "they") else _third_person(verb)
    return f"{subject} also {form}{verb_tail} {amount}.", unit, "$" if money else ""


def add_operation(parent: Parent, opts: Options, key: str) -> list[DerivedItem | Refused]:
    """One more given and step (see the module docstring)."""
    last = next((st for st in parent.rule.steps if st.name == parent.rule.answer_step), None)
    if last is not None and isinstance(last.expr, BinOp) and last.expr.op in ("-", "/"):
        # "If she had $36 in the beginning, how much did Andrea save?": the answer is what a
        # stated total leaves (or shares out); "Andrea also saved $8 more" contradicts it
        return [Refused("add-operation", "constrained-answer",
                        "the answer is what a stated total leaves or divides into: one more of "
                        "it would contradict the story")]
    question = str(parent.seed["question"])
    if split := _SPLIT_WHOLE.search(question):
        # "During the first half of the trip, he traveled at ... 70 kilometers per hour and during
        # the second half at ... 85. He also traveled 153 more kilometers during the journey."
        # (lead's reading of the tuning draw), "the first 3 rows ... The rest of the rows": the
        # story tells the whole part by part; more of it contradicts the story
        return [Refused("add-operation", "constrained-answer", f"the story tells a whole part by part "
                        f"({split.group(0)!r}): one more of it would contradict the story")]
    if (first := _FIRST_PART.search(question)) and (later := _LATER_PART.search(question, first.end())):
        # "Mike plays ping pong for 40 minutes. In the first 20 minutes, he scores 4 points. In the
        # second 20 minutes ... He also scored 2 more points" (the shipped sample; lead's reading),
        # "For the first 12 hours ... The remaining 14 hours": the parts counted in numbers
        return [Refused("add-operation", "constrained-answer", f"the story tells a whole part by part "
                        f"({first.group(0)!r}, {later.group(0)!r}): one more of it would contradict the story")]
    if grows := _GROWS.search(question):
        # "the number of cars he has increases by 50% every year ... in three years": whether
        # "Bobby will also have 7 more toy cars" grow with them reads two ways (GSM8K train
        # 211, lane gold7's held-out reading; the answer is a sum of yearly growths)
        return [Refused("add-operation", "grows", f"the story grows its amount at a rate "
                        f"({grows.group(0)!r}): whether one more grows with it reads two ways")]
    if (last is not None and isinstance(last.expr, BinOp) and last.expr.op == "*"
            and (fixed := _fixed_by(question))):
        # the answer is a multiple the story fixes by a relation or a limit: "Sam read twice
        # the amount of Pam. Sam also read 23 more pages." (GSM8K train 6362), "he still had
        # half as many magnets as Peter. Peter also has 7 more magnets." (2829), growth
        # compounded yearly (211): 3 of 5 add-operation items in lane gold7's held-out
        # reading; on GSM8K test 98 ("lose half their volume": "Freda also used 6 more
        # tomatoes"), 545 ("Jeff gets 4 times as much as Brad" of 100 dollars), 65 (a tank
        # that holds 12 gallons), 176 (a profit), 536, 965, 1033. A product of a rate and a
        # count the story leaves open ("3 sprints 3 times a week") takes one more
        return [Refused("add-operation", "scaled-answer",
                        f"the answer is a multiple the story fixes ({fixed.group(0)!r}): one "
                        "more of it would contradict that relation or read two ways")]
    sents = sentences(question)
    if len(sents) < 2 or sents[-1][0] == 0:
        # "If Janet reads 80 pages a day and Belinda reads 30 pages a day, how many more pages
        # does Janet read in 6 weeks?" (GSM8K train 1860): the new sentence would open the
        # story, "Janet also reads 148 more pages" before anything it is more than
        return [Refused("add-operation", "no-place", "the question is one sentence: the added "
                        "sentence would come before the story it adds to")]
    if run_on := _RUN_ON.search(sents[-1][2]):
        # "In total Emma spent $58 If Elsa spent twice as much as Emma, ..." (train 4528, lane
        # gold7): the last sentence holds facts of the story the new sentence would come before
        return [Refused("add-operation", "no-place", f"the question's last sentence runs on from "
                        f"another without a period ({run_on.group(0).strip()!r}): the added sentence "
                        "would come before facts it adds to")]
    made = _added_sentence(sents[-1][2]) if sents else None
    if made is None:
        return [Refused("add-operation", "no-template", "the question's asking clause is not one "
                        "the added-operation templates fit ('How many UNIT does SUBJECT VERB ...?', "
                        "'How much money did SUBJECT VERB ...?', 'How many UNIT are there?')")]
    template, unit, money = made
    if template.split(" also ")[0].endswith(" can"):
        # "Bob can shuck 10 oysters in 5 minutes. He can also shuck 96 more oysters. How many
        # oysters can he shuck in 2 hours?" (train 2021), "Gunther can also type 10006 more words"
        # of 160 words every 3 minutes (7101), "Donna can watch 8 episodes each day ... She can
        # also watch 33 more episodes. How many episodes can she watch in a week?" (1483): what
        # a rate allows in a time is fixed by the rate; whether the more are within it reads two ways
        return [Refused("add-operation", "scaled-answer", "the answer is what a rate allows: "
                        "'can also ... more' contradicts the rate or reads two ways")]
    if relation := _fixed_by(sents[-1][2]):
        # "Nedy also ate 3 more crackers. If Nedy ate twice the amount on Friday, how many
        # crackers did Nedy eat in all?" (train 5881): a relation said after the new sentence
        # may scale its amount too
        return [Refused("add-operation", "scaled-answer", f"the question's last sentence states a "
                        f"relation ({relation.group(0)!r}) after the added sentence: whether it "
                        "scales the added amount reads two ways")]
    if scope := _open_scope(question, sents[-1][2], template):
        # "Every day Tom drinks 5 12-oz cans of soda plus 64 ounces of water. He also drinks 4
        # more ounces of fluid. How many ounces of fluid does he drink a week?" (lead's reading of
        # held-out train, read23: 2 of 4 add-operation items): 4 more a day, or 4 more that week?
        return [Refused("add-operation", "scope", f"the story states an amount per {scope[0]} and "
                        f"the question asks over {scope[1]!r}: whether the added amount is per "
                        f"{scope[0]} or in all reads two ways")]
    if counted := _ASKED_OVER.search(sents[-1][2]):
        # "There are also 59 more sticks of gum. How many sticks of gum are there in 8 brown
        # boxes?", "She also sold 19 more boxes. How many boxes did she sell over the three days?"
        # (Friday, Saturday and Sunday each told), "She will also make $454 more. How much money
        # will she make in total for the two months?" (lead's reading of the tuning draw): the
        # question counts over things the story tells one by one
        return [Refused("add-operation", "scope", f"the question asks over a number of things "
                        f"({counted.group(0)!r}): whether the added amount is within them or "
                        "beside them reads two ways")]
    subject = template.split(" also ")[0].split(" ")[0]
    if subject not in ("There", "He", "She", "They", "It") and (related := _related(subject, sents[:-1])):
        # "Tino has 24 more jellybeans than Lee. ... Tino also has 15 more jellybeans." (train
        # 4322): the story fixes the asked amount by a relation; whether the 15 are more than
        # Lee's or more than that reads two ways
        return [Refused("add-operation", "scaled-answer", f"the story fixes {subject}'s amount by a "
                        f"relation ({related!r}): one more of it reads two ways")]
    if subject == "There" and not _ALL_OF.search(sents[-1][2]) and (
            related := _related_kind(unit, sents[:-1])):
        # "There are 22 more than four times the number of pink gumballs as there are blue
        # gumballs. There are also 25 more pink ones. If there are 12 blue gumballs how many pink
        # ones are there?" (lead's reading of GSM8K test add-operation items): the relation fixes
        # the pink ones; a total ("how many marbles altogether?") still takes more
        return [Refused("add-operation", "scaled-answer", f"the story fixes the {unit} by a "
                        f"relation ({related!r}): one more of them reads two ways")]
    old = parent.answer
    if old.denominator != 1 or old <= 0:
        return [Refused("add-operation", "kind", "the answer is not a positive whole number")]
    if old > MAX_ADDED_TO:
        # the added number is drawn from 2 .. answer/2: a 30-digit answer would make that
        # list forever (a seed of 10^30 pens held a derive worker at 100% CPU, unbounded)
        return [Refused("add-operation", "kind", f"the answer is above {MAX_ADDED_TO:,}: too large "
                        "to draw an added number up to half of it")]
    taken = {n.value for n in question_numbers(question + "\n" + str(parent.seed.get("solution")))}
    taken |= set(parent.old.values()) | set(parent.constants)
    rng = item_rng(opts.rng_seed, key, "add-operation")
    choices = [n for n in range(2, max(3, int(old) // 2) + 1) if Fraction(n) not in taken
               and Fraction(n) + old not in taken]
    if not choices:
        return [Refused("add-operation", "collision", "no added number avoids the story's numbers")]
    within = [n for n in choices if _within_totals(parent, old + n)]
    if not within:
        try:
            check_stated_totals(parent, old + choices[0])
        except Refusal as exc:
            return [refusal("add-operation", exc)]
    n = rng.choice(within)
    sentence = template.format(n=n)
    at = sents[-1][0]   # the new sentence goes right before the question's last sentence
    new_q = question[:at] + sentence + " " + question[at:]
    new_answer = old + n
    what = f"the {money}{n} more" + (f" {unit}" if unit else "")
    line = f"Adding {what}: {money}{format_value(old)} + {money}{n} = {money}" \
           f"<<{format_value(old)}+{n}={format_value(new_answer)}>>{format_value(new_answer)}" \
           + (f" {unit}." if unit else ".")
    solution = str(parent.seed.get("solution") or "").rstrip()
    solution = re.sub(r"\n####.*$", "", solution) + "\n" + line
    seed = {**parent.seed, "question": new_q, "solution": solution,
            "answer_text": format_value(new_answer), "answer_value": fmt(new_answer)}
    try:
        rule = rule_of(seed)
        _check_one_more(parent, rule, new_answer)
        derived = Derived(seed, rule, {}, {})
        item = full_item(parent, derived, opts, transform="add-operation", idx=0, level=None,
                         tag="addop", key=key, params={
                             "sentence": sentence, "added": fmt(Fraction(n)), "operation": "+",
                             "parent_answer": fmt(old)})
    except Refusal as exc:
        return [refusal("add-operation", exc)]
    return [item]


# words by which a story fixes a product the question asks for: a relation to another amount
# ("twice as many", "4 times as much as", "the amount of", "half"), a whole shared out, a
# capacity, a profit; and a story that grows its amount at a rate
_FIXED_BY = re.compile(r"\b(?:as (?:many|much)|times (?:as|more|less|fewer)|twice|thrice|half|"
                       r"the (?:amount|number) of|divid\w*|split|shar(?:e|es|ed|ing)|holds?|"
                       r"fills?|profit|"
                       # a whole the answer is all of or a share of: "Josh's entire bottle cap
                       # collection weighs 18 pounds exactly. Josh also has 362 more bottle
                       # caps." (train 7419); "The roosters outnumber the hens 2 to 1. There
                       # are also 215 more roosters. If there are 9,000 chickens ..." (3224)
                       r"entire|exactly|outnumber\w*|ratios?|\d+ to \d+)\b", re.IGNORECASE)
#: a share of a whole: "50 percent of his fights were knockouts, and 20 percent of the knockouts
#: were in the first round. Rocky also had 8 more knockouts." (lead's reading of the tuning draw:
#: 3 of its 14 added-operation items whose answer is a product); looked for after the relations
#: above, so that a reason names the relation where there is one
_SHARE = re.compile(r"\b(?:percent|(?:one|two|three|four)[ -](?:thirds?|quarters?|fourths?|fifths?)|"
                    r"an? (?:third|quarter|fourth|fifth))\b|\b\d+/\d+\b|\b\d[\d.,]*\s*%", re.IGNORECASE)


def _fixed_by(text: str) -> re.Match[str] | None:
    """The first relation (:data:`_FIXED_BY`) of ``text``, else its first share (:data:`_SHARE`)."""
    return _FIXED_BY.search(text) or _SHARE.search(text)
#: a sentence that runs on into another without its period: "$58 If Elsa spent ...", "... 3 hours
#: How many ...": a word that opens a clause, capitalized after a word or number
_RUN_ON = re.compile(r"(?<=[a-z0-9%$)])\s+(?:If|When|How|What|Then|After|So|But|In|On|She|He|They|It|"
                     r"There|This|That|Each|Every|Now|Later|Finally|Also|Afterward)\b")
_SPLIT_WHOLE = re.compile(r"\b(?:first|second|other|last) half\b|\b(?:for )?the rest of the\b", re.IGNORECASE)
_PART_COUNT = rf"(?:\d[\d,.]*|{'|'.join(sorted(NUMBER_WORD_VALUES, key=len, reverse=True))})"
#: the asking clause counts over a number of things: "How many ... in 8 brown boxes?", "over the three days"
_ASKED_OVER = re.compile(rf"\bhow (?:many|much)\b[^?]*?\b(?:in|over|for|during|within|after) "
                         rf"(?:the |these |those |all )?{_PART_COUNT}\b[^?]*", re.IGNORECASE)
#: a whole told part by part in numbers: "the first 20 minutes" ... "the second 20 minutes"
_FIRST_PART = re.compile(rf"\bfirst {_PART_COUNT} [a-z]+", re.IGNORECASE)
_LATER_PART = re.compile(rf"\b(?:second|next|last|remaining|final|other) {_PART_COUNT} [a-z]+", re.IGNORECASE)
_GROWS = re.compile(r"\b(?:increase|decrease|grow|rise|drop|fall)s? by\b|"
                    r"\b(?:double|triple)s? (?:every|each)\b|"
                    # "John invests in a bank and gets 10% simple interest. ... He also has $27
                    # more. How much money does he have after 3 years?" (train 6294)
                    r"\binterest\b", re.IGNORECASE)
#: a relation that fixes an amount: "24 more ... than", "three times as many", "half as many"
_RELATION = re.compile(r"\b(?:more|fewer|less|older|younger)\b(?:(?![.?!]).)*?\bthan\b|"
                       r"\b(?:twice|thrice|half|times|as many|as much|double|triple)\b", re.IGNORECASE)


#: a rate per period of time ("every day", "$10 an hour", "daily"): the period it is per
_RATE = re.compile(r"\b(?:every|each|per|a|an)\s+(day|week|month|year|hour|minute|second|morning|night|"
                   r"evening|afternoon|weekday|weekend|semester|season)\b|"
                   r"\b(daily|weekly|monthly|nightly|hourly|yearly|annually)\b", re.IGNORECASE)
_RATE_ADVERB = {"daily": "day", "weekly": "week", "monthly": "month", "nightly": "night",
                "hourly": "hour", "yearly": "year", "annually": "year"}
#: a span of time the asking clause may cover ("a week", "in 5 days", "60 hours one week")
_SPAN = re.compile(r"\b(day|week|month|year|hour|minute|second|morning|night|evening|afternoon|"
                   r"weekday|weekend|semester|season|fortnight|decade)s?\b", re.IGNORECASE)


def _open_scope(question: str, asking: str, template: str) -> tuple[str, str] | None:
    """(the period of a rate of the story, the span the question asks over) when the question
    asks over a span of time that no rate of the story is per and the added sentence does not
    say: "He also drinks 4 more ounces" after "Every day Tom drinks ..." and before "How many
    ounces ... a week?" reads as 4 a day or 4 in the week; so does a span of several periods
    ("every day" ... "during the 90 days"). None when no rate or no such span.
    A rate is one of the story before the asking clause, or one the asking clause states of a
    number ("If she reads 80 pages a day, how many pages ... in 6 weeks?"); its other time
    words ("a week", "in 5 days", "60 hours") are the span it asks over."""
    at = question.rfind(asking)
    story = question[:at] if at >= 0 else question
    own = {_period(m) for m in _RATE.finditer(story)}
    stated = [m for m in _RATE.finditer(asking) if _NUMBER_BEFORE.search(asking[max(0, m.start() - 30):m.start()])]
    rates = own | {_period(m) for m in stated}
    if not rates:
        return None
    said = {m.group(1).lower() for m in _SPAN.finditer(template)}
    # a rate the asking clause states per another period than the story's own rates: "He walks
    # there and back each day he works. He also walks 4 more miles. How many miles does he walk
    # if he has to work 5 times a week?" (lead's reading of GSM8K test): 4 a day, or in the week?
    for m in stated:
        if own and _period(m) not in own and _period(m) not in said:
            return sorted(own)[0], m.group(0)
    bare = asking
    for m in reversed(stated):   # a rate the asking clause states is not a span it asks over
        bare = bare[:m.start()] + " " + bare[m.end():]
    for m in _SPAN.finditer(bare):
        span = m.group(1).lower()
        many = _COUNT_BEFORE.search(bare[max(0, m.start() - 20):m.start()])   # "during the 90 days"
        if span not in said and (span not in rates or many):
            words = _SPAN_WORDS.search(bare[:m.end()])   # "a week", "the 90 days"
            return sorted(rates)[0], words.group(0) if words else m.group(0)
    return None


def _period(m: re.Match[str]) -> str:
    return (m.group(1) or _RATE_ADVERB[m.group(2).lower()]).lower()


#: the number words up to twelve (from the project's table), as a regex alternation
_ONE_TO_TWELVE = [w for w, v in NUMBER_WORD_VALUES.items() if 1 <= v <= 12]
_SMALL = "|".join(w for w in _ONE_TO_TWELVE if w != "one")   # two .. twelve
_SPAN_WORDS = re.compile(rf"(?:\b(?:a|an|the|this|that|one|\d[\d,.]*|{_SMALL})[\s-]+){{0,2}}\w+$", re.IGNORECASE)
_COUNT_BEFORE = re.compile(rf"(?:\d[\d,.]*|\b(?:{_SMALL}))[\s-]*$", re.IGNORECASE)
#: what comes right before a rate the asking clause states of a number: "80 pages a day",
#: "$10 an hour", "3 times a week"; never a span ("two stores in a week", "for 5 days a week")
_NUMBER_BEFORE = re.compile(rf"(?:\d[\d,.]*|\b(?:{'|'.join(_ONE_TO_TWELVE)}|a dozen|twice))\s+"
                            r"(?:(?!in\b|during\b|over\b|for\b|within\b|after\b|by\b|of\b|each\b)"
                            r"[A-Za-z$%'-]+\s+){0,2}$", re.IGNORECASE)


#: a clause with a subject of its own between a name and a relation
_OTHER_CLAUSE = re.compile(r";|,\s+(?:[A-Z][a-z]+|he|she|they|it|we|i)\b")


def _related(subject: str, sents: list[tuple[int, int, str]]) -> str | None:
    """The words of a sentence before the question's last in which ``subject`` is fixed by a
    relation to another amount ("Tino has 24 more jellybeans than Lee"), or None."""
    # any verb: "Tommy caught 3 more fish than Darren ... Tommy also caught 7 more fish" (GSM8K
    # test, lead's reading) read two ways as "Tino has 24 more" did
    own = re.compile(rf"\b{re.escape(subject)}\b(?:'s)?\s+(?:\w+\s+){{0,2}}?[a-z]+\b")
    for _, _, text in sents:
        m = own.search(text)
        # the relation in the subject's own clause: "When Gunther wasn't looking, Arnold ...
        # stole half" is Arnold's
        if m and (rel := _RELATION.search(text, m.end())) and not _OTHER_CLAUSE.search(text[m.end():rel.start()]):
            return text[m.start():rel.end()]
    return None


#: an asking clause about a total of everything counted
_ALL_OF = re.compile(r"\b(?:total|altogether|in all|combined|together|overall)\b", re.IGNORECASE)
_NOT_KIND = frozenset(["one", "ones", "of", "the", "a", "an", "more", "in", "on", "at", "all"])


def _related_kind(unit: str, sents: list[tuple[int, int, str]]) -> str | None:
    """The relation of a sentence before the question's last that names the kind the asking
    clause counts ("pink" of "pink ones" in "22 more than four times the number of pink
    gumballs as ..."), or None."""
    kinds = [w for w in re.findall(r"[a-z]+", unit.lower()) if w not in _NOT_KIND]
    if not kinds:
        return None
    named = re.compile(r"\b(?:" + "|".join(re.escape(k.rstrip("s")) for k in kinds) + r")s?\b", re.IGNORECASE)
    for _, _, text in sents:
        if named.search(text) and (rel := _RELATION.search(text)):
            return rel.group(0)
    return None


def _within_totals(parent: Parent, answer: Fraction) -> bool:
    try:
        check_stated_totals(parent, answer)
    except Refusal:
        return False
    return True


def _check_one_more(parent: Parent, rule: Any, answer: Fraction) -> None:
    if rule.value != answer:
        raise Refusal("reads-differently", f"the rules' answer {format_value(rule.value)} is not "
                                           f"{format_value(answer)}")
    if len(rule.givens) != len(parent.rule.givens) + 1 or len(rule.steps) != len(parent.rule.steps) + 1:
        raise Refusal("reads-differently", "the rules do not read one more given and one more step")
    lines = set(rule.smtlib.splitlines())
    kept = [ln for ln in parent.rule.smtlib.splitlines()
            if ln.startswith(("(assert", "(declare-const")) and not ln.startswith("(assert (= answer ")]
    if any(ln not in lines for ln in kept):
        raise Refusal("reads-differently", "the rules change the parent's part of the formalization")
