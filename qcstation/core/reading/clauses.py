"""What reads as a statement of its own: a clause with a subject and a finite verb.

A known quantity cut from a question must be a fact a reader can sign on its own: either a
whole sentence of the question, or a clause that has its own subject and verb ("The meat
cost $7.00 per pound"). A cut that leaves a clause without its subject ("Charged her 10%
less money"), without a verb ("A ballpen at $0.5 each", "4 sacks to her brother", "20
people") or with its verb only inside a dependent clause ("1/2 of what her brother earns")
is a fragment. :func:`reads_as_clause` says which; the rule-made key information keeps a
clause only when it does, and the audit's ``known-fragment`` and ``scenario-fragment`` flags
check key information with it (:mod:`qcstation.core.construct.check.fragments`).

No parser: a closed list of the verbs word problems use (and their regular forms), read in
the position a finite verb takes (after a subject, never after a determiner, a preposition,
"to" or a number). Every input is untrusted text; each reads at most :data:`MAX_TEXT`
characters.
"""

from __future__ import annotations

import re

from qcstation.common.memo import text_memo

__all__ = ["SENTENCE", "sentences", "reads_as_clause", "is_verb_form", "is_question_sentence",
           "negations_spelled", "sentence_key", "shared_subject_tail", "MAX_TEXT"]

MAX_TEXT = 2_000

#: where a question's sentences end (not after "Mr." and the like); a full stop after a word and
#: two spaces ends one even before a lower-case word ("... 1 hour of yoga.  in 4 weeks, how much
#: time ...", GSM8K 1289)
SENTENCE = re.compile(r"(?<=[.?!])(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bJr\.)"
                      r"(?<!\bvs\.)(?:\s+(?=[A-Z$0-9])|(?<=[a-z]{3}[.?!])\s{2,}(?=[a-z]))")


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` as written."""
    return [s.strip() for s in SENTENCE.split(text.strip()) if s.strip()]

# base forms of the verbs of word problems; their -s, -es, -ies and -ed forms follow by rule
_BASE = frozenset("""
accept accumulate add afford agree allow answer appear arrive ask attend average bake bike bounce
borrow bounce bring build burn buy calculate call carry catch change charge chase check choose clean
climb collect come complete consume contain cook cost count cover cut decide decrease deliver deposit
design die dig divide donate double drink drive drop earn eat empty end enter equal estimate exceed
exercise expect fail feed fill find finish fit fix fly fold follow forget freeze gain get give go
grow guess hand hang harvest hate have hear help hike hire hit hold hope hunt include increase intend
invest invite join jump keep kill knit know last lay learn leave lend let lift like live load lose
love make manage mark measure meet melt miss mix move need notice offer open order own pack paint
pass pay pick place plan plant play pour prefer prepare print produce purchase put quit raise reach
read receive record reduce remain remove rent repair replace require rest return ride rise roll run
save say score see seem sell send serve set sew share ship shoot shop show sign sing sit skip sleep
slice sell sort spend split stack stand start stay steal stop store study subscribe swim take talk
teach tell think throw tie total trade train travel triple try turn type use visit wait walk want
wash waste watch wear weigh win wish work worth write yield saw sweep trim weave donate babysit
budget tip mow bill owe cycle jog row hop sprint pedal bid rake feel fall hurt lie crack break
catch spill leak fetch collect scoop fill bring cost cut beat shrink lend spread bet quit
retrieve meditate continue chew pump respond realize pull discover perform upload depreciate practice
edit dance withdraw spin spit deal begin head obtain tack insure become unroll stamp profit gobble
subtract tutor solve delete substitute distribute slip trip market promise track participate supply
lack switch tow process anticipate experiment crawl tap smash groom form extract create staple install
gift overstate unearth apply disconnect wonder look gather dress recycle drill depart manufacture
rain combine scramble inspect search figure book multiply press bear blow draw fight forgive hide lead
light mean ring shake shine sink speak stick strike swing wake wind arrange assemble attach bag blend
bottle box breed brew carve chop clip coat color crochet decorate dry dye frame fry glue grill heat
iron label mail mop nail peel pile pin pluck polish post press quilt rinse roast scrub sculpt shear
shovel shuffle sketch slide soak spray squeeze stir stitch stuff tape toss trace wrap weed believe
contribute convert cross deserve double download earn employ enjoy envy exchange explain fear fire
float gamble glide graduate hatch host hurry ignore import imagine insist jog kick kneel lay lease
lick lower mind mine misplace multiply name nap net notice occupy operate park pause pick plow
pop practise pray pretend print promote protect provide pump punch push qualify race rake rank rate
reach rebuild recover refill refuse regrow reject relax release remember remind repeat reply report
represent request rescue reserve resist rest retire reuse reveal review reward roll rub rush sail
scan scatter scratch seal select separate settle shave shelter shift shine shorten shrink sip ski
skate smile snack snap snow solve spare speed spill spoil sponsor sprinkle squash stamp stock stretch
subtract succeed suggest supply support suppose surround survive suspect swap sweat tan tear text
thank tick tire toast top touch tour tow transfer transport treat trick trust tumble tweet twist
unload unpack update upgrade vacuum value vote wander warm water wave weed welcome whisper wipe
wonder wrap yell zip cool alight warm chill freeze sting flip
""".split())

# forms that are no regular inflection of a base above (irregular pasts, auxiliaries, modals)
_FORMS = frozenset("""
is are was were am be been being has have had do does did will would can could shall should may
might must ought
bought brought built burnt came caught chose cost cut dug drank drove ate fed felt found flew forgot froze got gave
went grew hung heard held hit kept knew laid led left lent let lost made meant met paid put quit
read ran rode rose said saw sold sent set sewed shot showed sat slept spent split stood stole swam
took taught told thought threw understood won wore wrote fell broke beat shrank spread bet hurt lay
rang became began bore blew drew fought forgave hid lit meant rang shook shone sank spoke stuck
struck swung woke wound withdrew sped spun spat dealt sought sang sank slid sprang bit bent bled
bred dove fled flung forbade ground knelt leapt lit overtook rebuilt ridden rid shed shut slung
slew sowed sped spilt strode strove swept tore trod undertook upset wept wove wrung
""".split())
# "-ed" words that are no past of a verb
_NOT_PAST = frozenset("hundred bed red shed sled shred speed seed need feed bleed breed indeed "
                      "naked wicked sacred kindred wretched rugged ragged".split())

# words before which a verb cannot stand in a finite verb's place
_NOT_BEFORE_VERB = frozenset("a an the his her their its my our your every this that these those "
                             "some any no to of for in on at by with from into onto per than as "
                             "about over under after before during between".split())
# words a subject never starts with (a preposition or subordinator left at the head means the
# clause is said of something outside it)
_PREPOSITIONS = frozenset("to of for in on at by with from into onto per than about over under between "
                          "during within through across around without".split())
# what may lead a clause without being its subject ("and ...", "if ...", "After Andrea saved ...")
_LEADERS = frozenset("and but so then also if when while since because although though once unless "
                     "until whereas after before as given suppose assuming that now".split())
_SUBORDINATORS = frozenset("until unless because although though whenever if".split())
_WH = frozenset("what which who whom whose how why where".split())
_CONTRACTION = re.compile(r"^[a-z]+'(?:s|re|ve|ll|d|m)$", re.I)
_AUXILIARIES = frozenset("is are was were am has have had do does did will would can could shall should "
                         "may might must".split())
# an uninflected verb ("pass", "buy") is finite only after a plural subject: "a bus pass" is a noun
_PLURAL_SUBJECTS = frozenset("i you we they people children men women both all".split())
# "A third of the large jellyfish change", "Each costs": a part of a whole may take either number
_PARTITIVES = frozenset("half third quarter fourth fifth sixth tenth some most many rest percent lot "
                        "number majority".split())
_PERSONS = frozenset("he she they it i we you her his their my our its".split())
_MODALS = frozenset("will can may must shall should would could might".split())
# a past the same as its base: "The meat cost $7.00"
_SAME_PAST = frozenset("cost cut put hit let set quit read bet spread hurt split".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\$?\d[\d,./]*%?|[,;:]")


def _forms(word: str) -> set[str]:
    """The bases ``word`` may be a finite form of ("buys" -> buy, "carried" -> carry)."""
    w = word.lower()
    out = {w}
    if w.endswith("ies"):
        out.add(w[:-3] + "y")
    if w.endswith("es"):
        out.add(w[:-2])
    if w.endswith("s"):
        out.add(w[:-1])
    if w.endswith("ied"):
        out.add(w[:-3] + "y")
    if w.endswith("ed"):
        out |= {w[:-2], w[:-1]}
        if len(w) > 4 and w[-3] == w[-4]:  # "stopped" -> stop
            out.add(w[:-3])
    return out


@text_memo(maxsize=4096)
def _is_verb_form(word: str) -> bool:
    """(read once per word: a clause test reads the same words of every sentence)"""
    w = word.lower().replace("’", "'")
    if w in _FORMS or _CONTRACTION.match(w):
        return not w.endswith("'s") or w.split("'")[0] in _PERSONS_S  # "Bob's": a possessive
    if len(w) >= 5 and w.endswith("ed") and w.isalpha() and w not in _NOT_PAST:
        return True  # a regular past ("retrieved"), read only where a finite verb stands
    return bool(_forms(w) & _BASE)


def is_verb_form(word: str) -> bool:
    """Can ``word`` be a finite verb (by the list of word problems' verbs and their forms)?"""
    return _is_verb_form(word)


def _plural(subject: list[str]) -> bool:
    """May ``subject`` take an uninflected verb ("they", "Amora and Lainey", "The students")?
    Never one that ends in a phrase ("60 mambas in a snake park": "park" is no verb there)."""
    words = [w.lower() for w in subject]
    cut = next((k for k, w in enumerate(words) if k and w in _PREPOSITIONS), None)
    if cut is not None:
        # "60 mambas in a snake park": the word may close the phrase, not start a verb; "A
        # third of the jellyfish change" (a part of a whole) is the one phrase a verb follows
        # ("Both of them decide to share them", 438: the whole of a plural is plural)
        # ("4 of the guests eat", "10% of his classmates want", "Ten of them go": a count or a
        # percent of a plural is plural; "One of them share" is not)
        return words[cut] == "of" and (words[cut - 1] in _PARTITIVES or words[cut - 1] in ("both", "all")
                                       or _many(words[cut - 1:cut]) or words[cut - 1].endswith("%"))
    return "and" in words or any(w in _PLURAL_SUBJECTS or w in _PARTITIVES or w.endswith("%")
                                 or (w.endswith("s") and not w.endswith(("ss", "us", "is"))) for w in words)


def _many(subject: list[str]) -> bool:
    """Does ``subject`` start with a number of more than one ("5 more blue", "twenty")?"""
    words = [w.lower() for w in subject if w.lower() not in _LEADERS]
    if not words:
        return False
    first = words[0].lstrip("$").replace(",", "")
    if re.fullmatch(r"\d+(?:\.\d+)?", first):
        return float(first) != 1
    return first in _MANY_WORDS


_MANY_WORDS = frozenset("two three four five six seven eight nine ten eleven twelve fifteen twenty thirty "
                        "forty fifty hundred many several".split())


#: the nouns of a time "last" opens ("Last year", "Last week's winner")
_TIME_NOUNS = frozenset("year week month night time summer winter spring fall autumn season weekend "
                        "semester term day evening morning afternoon decade century".split())
_TIME_NOUN = re.compile(r"^(?:" + "|".join(sorted(_TIME_NOUNS)) + r")(?:'s|’s)?$")


# words that never make a subject on their own ("only came up with 3")
_ADVERBS = frozenset("only also then just still even already again soon later first finally".split())
# a pronoun whose "'s" is "is" or "has" ("he's", "it's", "there's"); a name's is a possessive
_PERSONS_S = frozenset("he she it that there here let".split())
# what ends a cut that lost the clause its last words open: a joining word ("..., so", "...,
# then", "... and"), or after the last comma a condition or a "for every" phrase whose own
# clause was cut off ("At the end of the 8 weeks, if she has a total of $100", "He knows ...,
# that for every 25 telephone calls he makes to potential customers")
_OPEN_END = re.compile(r"(?:(?:^|[\s,;:])(?:and|or|but|if|because|of|to|the|a|an)|,\s*(?:so|then))$", re.I)
_OPEN_LAST = re.compile(r"^(?:(?:and|but|or|that)\s+)?(?:if|unless|assuming|given that|suppose)\b"
                        r"|^(?:and|that)\s+for\s+(?:every|each)\b", re.I)


def _dangles(text: str) -> bool:
    """Does ``text`` end where a clause of its own should follow (see ``_OPEN_END``)?"""
    t = text.strip().rstrip(".!")
    if _OPEN_END.search(t):
        return True
    parts = [p.strip() for p in re.split(r"[,;:]", t)]
    return len(parts) > 1 and _OPEN_LAST.match(parts[-1]) is not None


#: a verb whose subject is said before it, joined by "but"/"and" ("... loved it but was twice ...")
_SHARED_SUBJECT = re.compile(r"\b(?:but|and|yet)\s+(?:was|were|is|are|has|had|have)\b", re.I)


def shared_subject_tail(text: str) -> str:
    """The words after a verb of ``text`` that shares its subject with the words before it
    ("but was twice as expensive ..." in "Jill loved it but was twice as expensive as the first
    one": GSM8K train 1859, where the subject is the house of the clause before), or "". A
    known quantity cut there may give its number to the wrong subject: keep the whole part."""
    m = _SHARED_SUBJECT.search(text[:MAX_TEXT])
    return text[m.end():MAX_TEXT] if m else ""


#: a negated auxiliary written as one word ("can't", "cannot", "doesn’t", "won't")
_NEGATED = re.compile(r"\b(?:(can)(?:['’]t|not)|(wo)n['’]t|(do|does|did|is|are|was|were|has|have|had|could|would|should|"
                      r"must)n['’]t)\b", re.I)


def negations_spelled(text: str) -> str:
    """``text`` with each negated auxiliary written as its auxiliary and "not" ("Carl can't find his
    lost marbles" -> "Carl can not find ..."; "won't" -> "will not"), as :func:`reads_as_clause`
    reads a finite verb. Only where a whole sentence is judged (a restated premise of the scenario):
    a clause cut at a relative "that he can't find" must not read as one of its own."""
    def spelled(m: re.Match[str]) -> str:
        aux = m.group(1) or m.group(3) or ("will" if m.group(2)[:1].islower() else "Will")
        return f"{aux} not"

    return _NEGATED.sub(spelled, text)


@text_memo(maxsize=512)
def reads_as_clause(text: str) -> bool:
    """Does ``text`` read as a statement of its own: a subject followed by a finite verb, the
    subject not headed by a preposition and holding no wh-word ("1/2 of what her brother
    earns" has its verb only inside "what her brother earns"), and not ending where a clause of
    its own should follow ("..., and if each bouquet has 12 sunflowers", "..., so")?"""
    if _dangles(text[:MAX_TEXT]):
        return False
    tokens = _WORD.findall(text[:MAX_TEXT])
    # a clause may open with a phrase set off by a comma ("After the first 3 hours, they ...")
    # and with joining words ("and", "if", "After Andrea saved ...")
    start = 0
    for i, tok in enumerate(tokens):
        if tok in (",", ";", ":"):
            start = i + 1
            continue
        low = tok.lower().replace("’", "'")
        if _CONTRACTION.match(low) and low.split("'")[0] not in _WH:
            # "He'll lose ...", "They've made ...", "If she's 5": a subject and its verb in one
            # word; a name's "'s" ("Bob's car is red", "If Peter's locker is 5 cubic inches") is
            # a possessive, its clause's verb follows
            if low.endswith("'s") and (low.split("'")[0] not in _PERSONS_S
                                       or (low.startswith("that") and i > start)):
                continue  # "... one book that's over a week overdue": a relative clause's verb
            if not any(t.lower() in _LEADERS for t in tokens[start:i]) or i == start \
                    or low.split("'")[0] in _PERSONS_S:
                return True
        if not _is_verb_form(tok) or i == 0:
            continue
        if i == start:
            # "Her sister, Meg, has 46 pencils": a name set off by commas is no opening phrase
            if start < 2 or tokens[start - 1] != "," or "," not in tokens[:start - 1]:
                continue
            subject = [t.lower() for t in tokens[:i] if t not in (",", ";", ":")]
            if subject and subject[0] not in _PREPOSITIONS and subject[0] not in _LEADERS \
                    and not _is_verb_form(subject[0]):
                return True
            continue
        prev = tokens[i - 1].lower()
        if prev in ("this", "that") and i - 1 == start and low.endswith("s") and low not in _BASE \
                and _forms(low) & _BASE and i == len(tokens) - 1:
            return True  # "This continues": the demonstrative is the subject, a verb ends it
        if prev in _NOT_BEFORE_VERB or prev in (",", ";", ":") or (
                low == "can" and prev in ("each", "one", "per")
                and not (i + 1 < len(tokens) and tokens[i + 1].lower() in _BASE | {"be"})):
            continue  # ("$2 each can": a noun; "The blue one can travel": a modal before a verb's base)
        if (prev[:1].isdigit() or prev[:1] == "$") and low not in _AUXILIARIES:
            continue  # "a 4 leveled sandcastle"
        if i >= 3 and tokens[i - 3][:1].isdigit() and tokens[i - 2][:1].isdigit() and low in _BASE \
                and low not in _AUXILIARIES:
            continue  # "2 15 minutes break per day" (1101): a count of a measure, then its noun
        if low in _BASE and low not in _FORMS and low not in _SAME_PAST and not _plural(tokens[start:i]) \
                and [t.lower() for t in tokens[start:i] if t.lower() not in _LEADERS] not in (["he"], ["she"]):
            # "a weekly bus pass": an uninflected verb after a singular noun is a noun (after "he"
            # it is a verb whose -s the writer left off: GSM8K 153's "if he pay with a $10 bill")
            continue
        if low not in _FORMS and low.endswith("s") and low not in _BASE and _many(tokens[start:i]) \
                and not (prev.endswith("s") and not prev.endswith("ss") and prev.isalpha()):
            # "5 more blue sticks": after a number of many, an -s word is a plural noun (after a
            # plural noun it is the verb, if an off one: "6 potatoes makes 36 hash browns")
            continue
        subject = [t.lower() for t in tokens[start:i]]
        while subject and subject[0] in _LEADERS:
            subject = subject[1:]
        # a verb where the subject should be ("Spends $5 and buys 3"), unless a name ("Mark
        # had") or a list of nouns ("Drinks and snacks cost")
        verb_first = _is_verb_form(subject[0]) if subject else False
        # ("Will be paid on the twelfth month", 1214: a modal before a verb's base is no name)
        if verb_first and ((len(subject) == 1 and tokens[i - 1][:1].isupper()
                            and not (subject[0] in _MODALS and (low in _BASE or low == "be")))
                           or (len(subject) > 1 and subject[1] in ("and", "or"))):
            verb_first = False
        # "Last year Andrew worked ...", "Last year's winner collected ...": "last" before a time's
        # noun opens a phrase of time, no verb where the subject should be
        if len(subject) > 1 and subject[0] == "last" and _TIME_NOUN.match(subject[1]):
            subject = subject[2:] if subject[1] in _TIME_NOUNS else subject[1:]
            verb_first = bool(subject) and _is_verb_form(subject[0]) and not tokens[i - len(subject)][:1].isupper()
        # "In the second month her sales were ...": an opening phrase without its comma
        if subject and subject[0] in _PREPOSITIONS:
            # ("In the end Griffin had 27 fries", 245: a name after the phrase is its subject)
            named = tokens[i - len(subject):i]
            person = next((k for k, w in enumerate(subject) if k and (w in _PERSONS or (
                k >= 2 and named[k][:1].isupper() and named[k - 1][:1].islower()
                and subject[k - 1] not in _PREPOSITIONS))), None)
            if person is not None:
                subject = subject[person:]
        if subject and subject[-1] in ("and", "or", "but"):
            continue  # "carrying it and dropped half of them": a verb that shares a subject before
        if not subject or subject[0] in _PREPOSITIONS or subject[-1] in _PREPOSITIONS or verb_first \
                or all(w in _ADVERBS for w in subject):
            # no subject of its own ("and then charged her ...", "Spends $5 and ...", "only came
            # up with 3")
            return False
        if any(w in _SUBORDINATORS for w in subject[1:]):
            continue  # "The online fund until his friend gives ...": the dependent clause's verb
        if subject[-1] in ("which", "who", "that"):
            continue  # "2 loose pencils which give ...": a relative clause's verb; the main one may follow
        wh = next((k for k, w in enumerate(subject) if w in _WH), None)
        if wh is not None and (wh == 0 or subject[wh - 1] in _PREPOSITIONS):
            return False  # "1/2 of what her brother earns": the verb is the dependent clause's
        return True
    return False


_SPACES = re.compile(r"\s+")
_JOINING = re.compile(r"(?:and|but|so|then|if|when|given that|suppose that|assuming that)\s+")


def sentence_key(text: str) -> str:
    """``text`` as it is compared with a question's sentences: runs of spaces one space, end
    marks and edge punctuation trimmed, lower case."""
    return _SPACES.sub(" ", text).strip(" .?!,;:").lower()


def is_question_sentence(text: str, sentences: list[str]) -> bool:
    """Is ``text`` one of ``sentences`` (as written, up to its end mark, its first letter's case
    and a leading joining word)?"""
    return sentence_key(text) in _sentence_forms(tuple(sentences))


@text_memo(maxsize=256)
def _sentence_forms(sentences: tuple[str, ...]) -> frozenset[str]:
    """Every form a text may take to be one of ``sentences`` (see :func:`is_question_sentence`),
    made once per question."""
    out: set[str] = set()
    for s in sentences:
        n = sentence_key(s)
        out.add(n)
        lead = _JOINING.match(n)
        if lead:
            out.add(n[lead.end():])
    return frozenset(out)
