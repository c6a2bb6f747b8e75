"""Quantities the words imply (issue 26.1): a coin's worth, an animal's legs, a month's days, a
weekend's two days, a decade, ten fingers, a person's two eyes, a shape's sides (never "square
feet")... Each is a named constant (``k_<what>``) that a
step's number is only where both the question and the step's line name it; never a given of
equal value, never an earlier result of equal value, never borrowed by a line that does not name
it. :func:`implied_constant` is asked by the binder (:mod:`.binding`: not the question's number of
equal value), by the links (:mod:`.links`: not an earlier result) and by :mod:`.constants` (which
declares it).

A list's count (:func:`list_count`): names ("Marcell and Beatrice"), things in lower case, and two
people the question names by their relation to one person ("her mom and her sister 2 boxes of
oranges each" / "2 x 2 = 4 boxes of oranges to her mom and sister", 973: :func:`relative_lists`),
where the line names the members. The "another <noun>" beside a stated 1 (:func:`another_one`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction

from qcstation.core.construct.make.rules.phrases import InOrder

__all__ = ["another_one", "implied_constant", "included_person"]

#: "including Ashley" / "Ashley included": a person the question counts in by name
_INCLUDED_Q = r"\b(?:including|counting|plus)\s+{who}\b|\b{who}\s+included\b"
#: "If you add Ashley" / "plus Ashley" / "including Ashley" / "Ashley herself": the line adds that person
#: "including the queen" / "plus the driver": the line adds the one the question counts in by that noun
_ADDS_THE = re.compile(r"\b(?:including|counting|plus)\s+the\s+([a-z]+)\b", re.I)
_ADDS_PERSON = re.compile(r"\b(?:[Aa]dd(?:s|ing)?|[Pp]lus|[Ii]ncluding|[Cc]ounting)\s+([A-Z][a-z]+)\b"
                          r"|\b([A-Z][a-z]+)\s+(?:herself|himself)\b")


#: "+ 1 daughter": a noun a line writes right after a bare 1
_ONE_THE_NOUN = re.compile(r"(?<![\w.$/,])1(?![\d.,/])\s+([a-z]+)\b")


def included_person(line: str, question: str) -> str | None:
    """The one person a solution line adds by name ("If you add Ashley, ... 30+1") whom the
    question counts in by that name ("the total number of people at the party, including
    Ashley?"): a 1 the words imply, never a stated "one more person" of equal value. None where
    the line names no such person, or two. A line that adds "1 <noun>" adds the one the question
    counts in as "including the <noun>" ("19 friends + 1 daughter")."""
    who = {m.group(1) or m.group(2) for m in _ADDS_PERSON.finditer(line)}
    the = {m.group(1).lower() for m in _ADDS_THE.finditer(line)}
    if not who and not the:
        # "19 friends + 1 daughter" for "... shared ... among them, including the daughter": the one the
        # question counts in by that noun, which the line writes after its 1
        the = {m.group(1).lower() for m in _ONE_THE_NOUN.finditer(re.sub(r"<<[^>]*>>", " ", line[:2000]))
               if re.search(_INCLUDED_Q.format(who="the " + re.escape(m.group(1))), question[:20_000], re.I)}
    if len(who) + len(the) != 1:
        return None
    if the:
        # "including the queen is 27200+1" for "(including the queen)": that one, by the question's words
        noun = the.pop()
        return "the " + noun if re.search(_INCLUDED_Q.format(who="the " + re.escape(noun)), question, re.I) else None
    name = who.pop()
    if re.search(_INCLUDED_Q.format(who=re.escape(name)), question):
        return name
    # "Including Carl, 15 + 1" for "Carl is ... inviting 15 guests ... everyone, including himself": the
    # one person the question names, whom it counts in as "himself"/"herself"
    named = {w for w in re.findall(r"\b[A-Z][a-z]+\b", question[:20_000]) if w == name}
    return name if named and re.search(_INCLUDED_Q.format(who="(?:himself|herself)"), question) \
        and _only_name(question, name) else None


def _only_name(question: str, name: str) -> bool:
    """Is ``name`` the one capitalised word of the question it never writes in lower case, other than
    words that open its sentences ("If", "The", "Each")?"""
    q = question[:20_000]
    lower = {w.lower() for w in re.findall(r"\b[a-z]+\b", q)}
    openers = {m.group(1) for m in re.finditer(r"(?:^|[.?!]\s+)([A-Z][a-z]+)", q)}
    caps = {w for w in re.findall(r"\b[A-Z][a-z]+\b", q) if w.lower() not in lower and w not in _CALENDAR}
    return caps - (openers - {name}) == {name}


_CALENDAR = frozenset("""Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June
    July August September October November December Christmas Halloween Easter Thanksgiving""".split())


_ANOTHER = re.compile(r"\banother\s+([A-Za-z]+)", re.I)


def another_one(question: str, stems: frozenset[str]) -> str | None:
    """The constant of the one "another <noun>" the question writes of the noun of a stated 1 whose
    stems are ``stems`` ("She took 1 hour ..., then another hour": ``k_one_another_hour``): a step
    that writes that 1 twice ("3 hours - 1 hour - 1 hour") counts the other one by it, never the
    given "1 hour" in a second role. None where the question writes no such phrase, or several."""
    from qcstation.core.reading.words import stem

    found = [m.group(1).lower() for m in _ANOTHER.finditer(question[:20_000]) if stem(m.group(1)) in stems]
    return f"k_one_another_{found[0]}" if len(found) == 1 and stems else None


_ORDINAL_WORD = {2: "second", 3: "third"}
_NEXT_ORDINAL = {2: "third", 3: "fourth"}
_ORDINAL_COUNT = {2: "two", 3: "three"}

#: quantities the words imply that a step's line must name as well as the question: (value,
#: question words, name, line words). "5 x 20 ... during the weekdays" of "except on weekends"
#: is the 5 weekdays of a week; "30 * 2 ... The Smith twins" the two twins; "5 dogs * 4 legs/dog"
#: a dog's 4 legs. Never a given of equal value: these are named constants.
_LEGS = {4: r"dogs?|cats?|cows?|horses?|pigs?|sheep|goats?|lions?|tigers?|rabbits?|puppy|puppies|kittens?",
         2: r"chickens?|ducks?|birds?|geese|goose|hens?|roosters?|parrots?|turkeys?|ostrich(?:es)?",
         6: r"insects?|ants?|bees?|beetles?|flies|fly",
         8: r"spiders?|octopus(?:es)?|octopi"}
#: a question about coins: a coin's name counts as the coin only where the question speaks of money
_COIN_TALK = r"^(?=[\s\S]*(?:\bdimes?\b|\bnickels?\b|\bpenn(?:y|ies)\b|\bcents?\b|\bcoins?\b|\bmoney\b|\bdollars?\b|\bchange\b|\$))"
#: (coin, question words, line words, cents)
_COINS = (("quarter", r"\bquarters?\b(?!\s+(?:of|past|to|mile|hour|pound|inch)\b)", r"\bquarters?\b", 25),
          ("dime", r"\bdimes?\b", r"\bdimes?\b", 10),
          ("nickel", r"\bnickels?\b", r"\bnickels?\b", 5),
          ("penny", r"\bpenn(?:y|ies)\b", r"\bpenn(?:y|ies)\b", 1))
#: a shape's name that is no unit of area ("square feet")
_NO_UNIT = r"(?!\s+(?:feet|foot|meters?|metres?|inch(?:es)?|yards?|miles?|kilometers?|centimeters?|units?)\b)"
_IMPLIED_CONSTANTS: list[tuple[Fraction, str, str, str]] = [
    # a coin's worth: "5 * 25 = 125 cents" of "5 quarters", "140*$0.25" (dollars), "32/4 = 8 dollars
    # in quarters" (how many make a dollar: only as a divisor, see _PER_DOLLAR); a penny's 1 cent is a 1,
    # bound by :mod:`.ones` ("100 x 1 cent" on a line that names pennies)
    *[(Fraction(cents), _COIN_TALK + r"[\s\S]*" + q, f"k_cents_per_{coin}", line)
      for coin, q, line, cents in _COINS],
    *[(Fraction(cents, 100), _COIN_TALK + r"[\s\S]*" + q, f"k_dollars_per_{coin}", line)
      for coin, q, line, cents in _COINS],
    *[(Fraction(100, cents), _COIN_TALK + r"[\s\S]*" + q, f"k_{coin}s_per_dollar".replace("pennys", "pennies"), line)
      for coin, q, line, cents in _COINS],
    # a bill's worth: "ten twenties" of money, "6*$20 ... of the twenties" (never "in her twenties")
    (Fraction(20), _COIN_TALK + r"[\s\S]*(?<!\bher )(?<!\bhis )(?<!\bthe )(?<!\btheir )\btwenties\b",
     "k_dollars_per_twenty", r"\btwenties\b"),
    (Fraction(5), r"\bweekends?\b", "k_weekdays_per_week", r"\bweekdays?\b"),
    (Fraction(2), r"\bsaturday and sunday\b|\bsunday and saturday\b", "k_weekend_days",
     r"\bweekends?\b|\bsaturday and sunday\b|\bsunday and saturday\b"),
    (Fraction(2), r"\bone[- ]way\b", "k_ways_of_a_round_trip",
     r"\bround[- ]trips?\b|\bboth ways\b|\bback and forth\b|\bthere and back\b"),
    (Fraction(10), r"\bdecades?\b", "k_years_per_decade", r"\bdecades?\b"),
    (Fraction(3600), r"\bseconds?\b", "k_seconds_per_hour", r"\bseconds?\b.*\bhours?\b|\bhours?\b.*\bseconds?\b"),
    (Fraction(10), r"\bfingers\b", "k_fingers", r"\bfingers\b"),
    # "as many days as a typical person has fingers and toes" / "3*20": ten fingers and ten toes
    (Fraction(20), r"\bfingers\s+and\s+toes\b|\btoes\s+and\s+fingers\b", "k_fingers_and_toes",
     r"\bfingers\s+and\s+toes\b|\btoes\s+and\s+fingers\b"),
    (Fraction(10), r"\btoes\b", "k_toes", r"\btoes\b"),
    (Fraction(26), r"\balphabet\b", "k_letters_of_the_alphabet", r"\balphabet\b|\bletters\b"),
    (Fraction(2), r"\btwins\b", "k_twins", r"\btwins\b"),
    # "How many eyes saw the airplane?" / "each student has two eyes ... 2*150": a person's two eyes
    # (a line that counts them: "two eyes", not the "6 * 2 ... students with brown eyes" of a colour)
    (Fraction(2), r"\beyes\b", "k_eyes_per_person", r"\b(?:two|2)\s+eyes\b"),
    # "8 red tulips for each eye ... a smiley face" / "2 eyes * 8 tulips/eye": a face's two eyes
    (Fraction(2), r"^(?=[\s\S]*\bfaces?\b)[\s\S]*\beach\s+eye\b", "k_eyes_per_face", r"\b(?:two|2)\s+eyes\b"),
    # "6 cookie cutters shaped like triangles ... How many sides" / "The 6 triangles have 3 sides
    # each, 6 * 3": a shape's sides, where both texts speak of sides and the line names the shape
    *[(Fraction(n), rf"^(?=[\s\S]*\bsides?\b)[\s\S]*\b{shape}s?\b{_NO_UNIT}", f"k_sides_per_{shape}",
       rf"\bsides?\b.*\b{shape}s?\b{_NO_UNIT}|\b{shape}s?\b{_NO_UNIT}.*\bsides?\b")
      for n, shape in ((3, "triangle"), (4, "square"), (5, "pentagon"), (6, "hexagon"), (8, "octagon"))],
    # "4 more than half the number of states in the USA" / "the number of states in the USA is 50 ...
    # 1/2*50": a fact the words name, on a line that names the states
    (Fraction(50), r"\bstates\s+(?:in|of)\s+the\s+(?:usa|u\.s\.a?\.?|united\s+states)(?!\w)"
     r"|\b(?:us|u\.s\.)\s+states\b", "k_states_of_the_usa",
     r"\bstates\b"),
    # "how many sheets every month?" / "60 x 4 = 240 sheets of paper every month" after "60 sheets
    # of paper every week": a question of weeks and months, a line of the month
    (Fraction(4), r"^(?=[\s\S]*\b(?:months?|monthly)\b)[\s\S]*\b(?:work)?(?:weeks?|weekly)\b", "k_weeks_per_month",
     r"\b(?:months?|monthly|January|February|March|April|June|July|August|September|October|November"
     r"|December)\b"),
    # "a rectangle that measures 20 feet on the long side" / "two long sides ... 20 feet * 2";
    # "rectangular bedroom ... perimeter is 2(40+9)"
    (Fraction(2), r"\brectang(?:le|les|ular)\b", "k_sides_of_each_length_of_a_rectangle",
     r"\bperimeter\b|\bsides\b"),
    # "each bird has 2 wings ... 10*2 = 20 wings": a bird's two wings, where both texts say wings
    *[(Fraction(2), r"\bwings?\b", f"k_wings_per_{re.sub(r's?[^a-z].*', '', birds)}",
       rf"\bwings?\b.*\b(?:{birds})\b|\b(?:{birds})\b.*\bwings?\b") for birds in _LEGS[2].split("|")],
    # "all the tires on 12 motorcycles and all the tires on 10 cars" / "12*2 = 24 motorcycle tires":
    # a vehicle's wheels, where both texts say tires or wheels and the line names the vehicle
    *[(Fraction(n), rf"^(?=[\s\S]*\b(?:tires?|wheels?)\b)[\s\S]*\b(?:{vehicle})\b", f"k_wheels_per_{name}",
       rf"\b(?:tires?|wheels?)\b.*\b(?:{vehicle})\b|\b(?:{vehicle})\b.*\b(?:tires?|wheels?)\b")
      for n, vehicle, name in ((2, r"motorcycles?|motorbikes?", "motorcycle"), (4, r"cars?", "car"))],
    # "a circle has a radius of 14 feet ... across the diameter" / "a diameter of 2*14": the radii a
    # diameter is, where the question says both and the line the diameter
    (Fraction(2), r"^(?=[\s\S]*\bradius\b)[\s\S]*\bdiameter\b|^(?=[\s\S]*\bdiameter\b)[\s\S]*\bradius\b",
     "k_radii_per_diameter", r"\bdiameter\b"),
    # "each of her parents received gifts" / "each parent's gift cost $60 ... / 2": one person's two
    # parents ("her parents", never "the parents" of a class), on a line that counts them ("each
    # parent", "two parents"; never "doubled by his parents", whose 2 is the doubling)
    (Fraction(2), r"\b(?:her|his|my|your)\s+parents\b", "k_parents_of_one_person",
     r"\b(?:each|per|both|two|2)\s+parents?\b|\bparents\s+each\b"),
    # "they have built 6 chairs" / "6 chairs * 4 legs": a chair's or a table's four legs, where both
    # texts say legs and the line names the furniture (a stool's are not said)
    *[(Fraction(4), r"\blegs?\b", f"k_legs_per_{thing}", rf"\blegs?\b.*\b{thing}s?\b|\b{thing}s?\b.*\blegs?\b")
      for thing in ("chair", "table")],
    # "44 hours in the first week and 48 hours in the second week" / "40 hours/week x 2 weeks": the
    # weeks up to the last ordinal the question writes of them (no later one), on a line that counts them
    *[(Fraction(n), rf"^(?![\s\S]*\b{_NEXT_ORDINAL[n]}\s+{unit}\b)(?=[\s\S]*\bfirst\s+{unit}\b)"
       + (rf"(?=[\s\S]*\bsecond\s+{unit}\b)" if n == 3 else "") + rf"[\s\S]*\b{_ORDINAL_WORD[n]}\s+{unit}\b",
       f"k_{unit}s_first_to_{_ORDINAL_WORD[n]}", rf"(?<![\d.,])(?:{n}|{_ORDINAL_COUNT[n]})\s+{unit}s\b")
      for n in (2, 3) for unit in ("day", "week", "month", "year", "hour")],
    # "If the cat has four claws on each foot" / "4 claws/foot * 4 feet": a four-legged animal's feet
    # or paws, where the question says "each foot" and the line names the animal and its feet
    *[(Fraction(4), rf"^(?=[\s\S]*\b(?:{animals})\b)[\s\S]*\b(?:each|every|per)\s+(?:foot|paw)\b",
       f"k_feet_per_{re.sub(r'[^a-z].*', '', animals)}",
       rf"\b(?:feet|paws)\b.*\b(?:{animals})\b|\b(?:{animals})\b.*\b(?:feet|paws)\b")
      for animals in _LEGS[4].split("|")],
    # "90 seconds to clean each of her ears" (the cat's) / "90 seconds/ear * 2 ears": an animal's two
    # ears, where the line names the animal and its ears
    *[(Fraction(2), rf"^(?=[\s\S]*\b(?:{animals})\b)[\s\S]*\beach\s+of\s+(?:her|his|its|their)\s+ears\b",
       f"k_ears_per_{re.sub(r'[^a-z].*', '', animals)}",
       rf"\bears\b.*\b(?:{animals})\b|\b(?:{animals})\b.*\bears\b")
      for animals in _LEGS[4].split("|")],
    *[(Fraction(n), r"\blegs?\b", f"k_legs_per_{re.sub(r'[^a-z].*', '', animals)}",
       rf"\blegs?\b.*\b(?:{animals})\b|\b(?:{animals})\b.*\blegs?\b")
      for n, group in _LEGS.items() for animals in group.split("|")],
]
_COIN_NAMES = tuple(f"k_{p}_{coin}" for coin, *_ in _COINS for p in ("cents_per", "dollars_per")) \
    + tuple(f"k_{coin}" for coin, *_ in _COINS)
#: each implied constant's line words, by its name
#: (words in order on one line, searched in linear time: :class:`~.phrases.InOrder`)
_IMPLIED_LINE_RE: dict[str, InOrder] = {n: InOrder(line, re.I) for _, _, n, line in _IMPLIED_CONSTANTS}

#: the months a question may name, with their days (February's depends on the year: never)
_MONTH_DAYS = {"january": 31, "march": 31, "april": 30, "may": 31, "june": 30, "july": 31, "august": 31,
               "september": 30, "october": 31, "november": 30, "december": 31}
_MONTH_RE = re.compile(r"\b(January|February|March|April|May|June|July|August|September|October|November"
                       r"|December)\b")


def _month_days(question: str, v: Fraction, line: str) -> str | None:
    """``k_days_in_<month>`` for the days of the one calendar month the question names, where
    that month has ``v`` days and the step's line says "days": "March has 31 days, so ... 31 days
    * 3000 posts/day"; of several months the question names, the one the line names alone. None
    when the question names no month, or two the line does not tell apart (or February), or the
    month has another number of days. "May" counts only capitalized after a
    sentence's first word ("You may", "May I" are no month)."""
    months = set()
    for m in _MONTH_RE.finditer(question):
        if m.group(1) == "May" and not re.search(r"\b(?:of|in|during|for|through|until|since)\s+$",
                                                 question[max(0, m.start() - 12):m.start()], re.I):
            continue
        months.add(m.group(1).lower())
    if len(months) > 1:
        # of two months the question names, the one the line names alone ("In January, he takes 2
        # photos every day ... The rest ... in February" / "2 photos/day * 31 days = 62 photos in January")
        months &= {m.lower() for m in _MONTH_RE.findall(line)}
    if len(months) != 1:
        return None
    month = next(iter(months))
    if _MONTH_DAYS.get(month) != v:
        return None
    if not re.search(r"\bdays\b", line, re.I):
        return None  # "30*$2400 ... in June" multiplies 30 employees, not June's days
    return f"k_days_in_{month}"


def implied_constant(v: Fraction, question: str, line: str, role: str) -> str | None:
    """The one implied quantity of value ``v`` (see ``_IMPLIED_CONSTANTS``, and a month's days)
    that both the question and the step's line name, for a number that multiplies or divides
    (``role``: "times" or "divisor"); else None. Such a number is that named constant, never a
    given or an earlier step's result of equal value (1287: "the dimes are worth: 7 * 10 cents"
    after the nickels' "2 * 5 cents = 10 cents"; 600: "10 birds * 2 legs/bird" beside "2 cats")."""
    if role not in ("times", "divisor"):
        return None
    found = implied_names(v, question, line, role)
    month = _month_days(question, v, line)
    if month:
        found.add(month)
    return found.pop() if len(found) == 1 else None


def implied_names(v: Fraction, question: str, line: str, role: str) -> set[str]:
    """Every implied constant of value ``v`` the question and the line both name (how many coins
    make a dollar only as a divisor; a coin's worth as a divisor only where no coin count per
    dollar has that value: "26 quarters because 6.5 / .25" divides the money by a quarter's worth,
    but "70 / 10" of dimes is a dime's 10 cents or the 10 dimes of a dollar)."""
    q = question.lower()
    found = {n for fv, pat, n, _ in _IMPLIED_CONSTANTS if fv == v and re.search(pat, q)
             and _IMPLIED_LINE_RE[n].search(line)}
    per_dollar = {n for n in found if n.startswith(_COIN_NAMES) and n.endswith("_per_dollar")}
    return {n for n in found if not n.startswith(_COIN_NAMES)
            or (role == "divisor" if n in per_dollar else role != "divisor" or not per_dollar)}


def coin_by_sentence(v: Fraction, question: str, line: str, role: str) -> str | None:
    """The worth of the one coin whose worth (in cents or in dollars) is ``v`` where the step's
    line does not name the coin but shares a content word with the one sentence of the question
    that writes it ("Pete saves his money and only spends 4 nickels" / "Pete spends 4*5 = 20 cents";
    "He sells the white ones for a nickel each" / "He earns $1 from white marbles because 20 x .05";
    "Each leaf he rakes costs 1 penny" / "6000 leaves * $0.01/leaf"), the question speaking of
    money; None otherwise (a 1 is a penny's cent only where the line names it: :mod:`.ones`)."""
    from qcstation.core.reading.words import line_stems

    if v == 1 or role not in ("times", "divisor"):
        return None
    q = question[:20_000]
    if not re.search(_COIN_TALK, q.lower()):
        return None
    found = []
    for coin, q_words, _, cents in _COINS:
        names = [(f"k_cents_per_{coin}", Fraction(cents)), (f"k_dollars_per_{coin}", Fraction(cents, 100))]
        hits = [n for n, worth in names if worth == v]
        if not hits:
            continue
        places = [m.start() for m in re.finditer(q_words, q, re.I)]
        sentences = {_sentence_at(q, at) for at in places}
        if len(sentences) != 1:
            continue  # the coin in two sentences: which one the line's is, its words would have to say
        sentence = sentences.pop()
        money = line_stems(_COIN_WORDS) | {"$", "%"}
        if (line_stems(line) - money) & (line_stems(sentence) - money):
            found.append(hits[0])
    return found[0] if len(found) == 1 else None


#: the words of money itself, which tie a line to no sentence of its own
_COIN_WORDS = "cent cents dollar dollars worth coin coins money quarter quarters dime dimes nickel nickels penny pennies"


def _sentence_at(text: str, pos: int) -> str:
    a = max(text.rfind(c, 0, pos) for c in ".?!") + 1
    ends = [e for e in (text.find(c, pos) for c in ".?!") if e != -1]
    return text[a:min(ends) if ends else len(text)]


# -- how many named people (or days) a list names: "Marcell and Beatrice", "Nick, Richard, Jason and DJ"

_NOT_A_NAME = frozenset("""The A An If On In At When After Before Then So But And Or How What Each Every Both
    This That These Those There Their They He She It His Her Its We You I My Our Your All Some Most Mr Mrs Ms
    Dr Find Calculate Given Since While Today Tomorrow Yesterday""".split())
_NAME = r"[A-Z][a-zA-Z]+(?:['’]s)?"
_LIST_RE = re.compile(rf"\b({_NAME})((?:,\s+{_NAME})*),?\s+and\s+({_NAME})\b")
_SHARE_WORDS = re.compile(r"\b(?:average|mean|each|equally|evenly|share[sd]?|split|divided?|apiece)\b", re.I)


_WEEKDAY = re.compile(r"(?:Sun|Mon|Tues|Wednes|Thurs|Fri|Satur)day")
_WEEKDAYS_PLURAL = re.compile(r"(?:Sun|Mon|Tues|Wednes|Thurs|Fri|Satur)days")


def _member(word: str) -> str:
    return word[:-1] if _WEEKDAYS_PLURAL.fullmatch(word) else re.sub(r"['’]s$", "", word)


def named_lists(question: str) -> list[tuple[str, tuple[str, ...]]]:
    """The lists of names the question writes ("Marcell and Beatrice", "Nick, Richard, Jason and
    DJ", "Monday, Wednesday and Friday"): (the text, its members), one per set of members. A weekday
    written in the plural is that day ("On Mondays, Wednesdays, and Fridays": Monday, Wednesday,
    Friday, which a line names in the singular)."""
    return _distinct_lists(((m.group(0), [_member(m.group(1)), *[_member(w) for w in re.findall(_NAME, m.group(2))],
                                          _member(m.group(3))])
                            for m in _LIST_RE.finditer(question[:20_000])), _NOT_A_NAME)


def _distinct_lists(found: Iterable[tuple[str, list[str]]],
                    refused: frozenset[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(text, members) of each list found, in order: none with a refused word or a member
    twice, and one per set of members."""
    out: list[tuple[str, tuple[str, ...]]] = []
    seen: set[frozenset[str]] = set()
    for text, members in found:
        if any(w in refused for w in members) or len(set(members)) != len(members):
            continue
        key = frozenset(members)
        if key not in seen:
            seen.add(key)
            out.append((text, tuple(members)))
    return out


_WORD_LIST_RE = re.compile(r"\b([a-z]+)((?:,\s+[a-z]+)*),?\s+and\s+([a-z]+)\b")
_NOT_A_THING = frozenset("""a an the of per each every in on at to for and or but so that this these those it its
    he she they we you i his her their our your him them us me is are was were be been has have had do does did
    will would can could should must may might then than there here with by from as into out up down about over
    after before more less much many all some any if when which who what how not no one two three four five six
    seven eight nine ten same other another both either""".split())


def word_lists(question: str) -> list[tuple[str, tuple[str, ...]]]:
    """The lists of things in lower case the question writes ("the north and south walls",
    "equal amounts of chamomile and mint tea"): (the text, its members)."""
    return _distinct_lists(((m.group(0), [m.group(1), *re.findall(r"[a-z]+", m.group(2)), m.group(3)])
                            for m in _WORD_LIST_RE.finditer(question[:20_000])), _NOT_A_THING)


_RELATIVES_RE = re.compile(r"\b(his|her|their)\s+([a-z]+)\s+and\s+(?:(?:his|her|their)\s+)?([a-z]+)\b")


#: one person the question names and one relative of theirs, by name and a singular kin word ("Henry and
#: his brother", "Ron and his wife"; never "Mell and her friends", "Joe and his team": a group, not one)
_KIN = (r"(?:brother|sister|wife|husband|mom|mother|dad|father|son|daughter|cousin|uncle|aunt|grandma"
        r"|grandmother|grandpa|grandfather|boyfriend|girlfriend|fianc[eé]e?|nephew|niece|roommate)")
_NAME_AND_KIN_RE = re.compile(rf"\b([A-Z][a-z]+)\s+and\s+(?:his|her|their)\s+(?:[a-z]+\s+)?({_KIN})\b(?!['’-])")


def relative_lists(question: str) -> list[tuple[str, tuple[str, ...]]]:
    """The pairs of people the question names by their relation to one person ("her mom and her
    sister", "his wife and son", "Henry and his brother", "Ron and his older sister"): (the text,
    its two members)."""
    q = question[:20_000]
    found = [(m.group(0), [m.group(2), m.group(3)]) for m in _RELATIVES_RE.finditer(q)]
    found += [(m.group(0), [m.group(1), m.group(2)]) for m in _NAME_AND_KIN_RE.finditer(q)
              if m.group(1) not in _NOT_A_NAME]
    return _distinct_lists(found, _NOT_A_THING)


def list_count(v: Fraction, question: str, line: str, role: str) -> str | None:
    """The list whose count a step's number is: "90 / 2" on a line that says "On average they
    ate" for the one two-name list "Marcell and Beatrice"; "26/2" on "Arnold and Madeline each
    painted" (the line names two of the list); "80 x 2" on "The south and north walls total" for
    "The north and south walls" (things in lower case only where the line names two of them). The
    text of that list, or None: a number no list has as many members, two such lists the line
    does not tell apart, or a line that neither names the list's members nor shares or averages
    by dividing. A line that names one member reads the pair that shares a total by its
    difference (:func:`_total_of_one_member`)."""
    if v.denominator != 1 or not 2 <= v <= 12:
        return None
    cands = [(text, ms) for text, ms in named_lists(question) if len(ms) == v]
    named = [(text, ms) for text, ms in cands
             if sum(1 for w in ms if re.search(rf"\b{re.escape(w)}\b", line)) >= 2]
    if len(named) == 1:
        return named[0][0]
    colours = [(text, ms) for text, ms in word_lists(question) if len(ms) == v and all(w in _COLOURS for w in ms)]
    counted = _counted_calendar_list(cands + colours, v, line) if not named and role == "times" else None
    if counted is not None:
        return counted
    if not named and len(cands) == 1 and role == "divisor" \
            and (_SHARE_WORDS.search(line) or _shared_by_list(question, cands[0][0])) \
            and not any(re.search(rf"\b{re.escape(w)}\b", line) for w in cands[0][1]):
        # "On average they ate 90 / 2": a share among the list's members, the line naming none of
        # them; a line naming one member alone ("divide Jason's grade by 2 to find Bob's grade" for
        # "... less than Jenny's, and Bob's grade was equal to half of Jason's") divides for that one
        # (a pair sharing a total by its difference is read below)
        return cands[0][0]
    if not named and len(cands) == 1 and role == "divisor" and _said_same_after(question, cands[0][0]) \
            and not _word_given_of(v, question) and not _FRACTION_WORDS.search(question[:20_000]):
        # "If Kyle and Tasha caught the same number of fish" / "Kyle caught 28/2": the list's own words
        # give each member an equal share, the share of the one member the line names (never where a
        # word given of the value, "twice", or any fraction or percent, "1/2 of his", "half", could be
        # what the line divides by)
        return cands[0][0]
    if not named and role == "divisor":
        total = _total_of_one_member(cands, question, line)
        if total is not None:
            return total
    if not cands:
        things = [(text, ms) for text, ms in [*word_lists(question), *relative_lists(question)] if len(ms) == v
                  and sum(1 for w in ms if re.search(rf"\b{re.escape(w)}\b", line, re.I)) >= 2]
        if len(things) == 1:
            return things[0][0]
        if not things and role == "divisor" and _EQUAL_SHARE_LINE.search(line):
            shared = shared_lists(question, v)
            if len(shared) == 1:
                return shared[0]
        if not things and role == "divisor":
            # "The kitchen and living area complete the home and they have the same sized area" /
            # "Kitchen = 530/2": the question's own words say the list's members are equal shares
            same = [text for text, ms in word_lists(question) if len(ms) == v and _said_same(question, text)
                    and any(re.search(rf"\b{re.escape(w)}\b", line, re.I) for w in ms)]
            if len(same) == 1:
                return same[0]
    return None


_SHARED_RIGHT_AFTER = re.compile(r"\s+(?:equally|evenly)\s+(?:split|shared?|divided?|scored|earned|got|ate|took)\b"
                                 r"|\s+(?:split|shared?)\b[^.?!]*\b(?:equally|evenly)\b", re.I)


def _shared_by_list(question: str, text: str) -> bool:
    """Does the question write that the list ``text`` shares equally, right after it ("Lisa, Jessie,
    and Devin equally scored the rest" / "123/3 = 41")? The list's own words then say the division,
    where the line says none."""
    at = question.find(text)
    return at >= 0 and question.count(text) == 1 and bool(_SHARED_RIGHT_AFTER.match(question, at + len(text)))


#: a fraction or a percent, in digits or words: what a division by its parts may stand for
_FRACTION_WORDS = re.compile(r"\d\s*/\s*\d|%|\bpercent\b|\bhal(?:f|ves)\b|\b(?:third|quarter|fourth|fifth|sixth|seventh"
                             r"|eighth|ninth|tenth)s?\b", re.I)
_SAME_AFTER = re.compile(r"\s+(?:[a-z]+\s+){0,2}?the\s+same\s+(?:number|amount|quantity)\s+of\b", re.I)


def _said_same_after(question: str, text: str) -> bool:
    """Does the question write the list ``text`` once, right before words that give its members the
    same number ("Kyle and Tasha caught the same number of fish")?"""
    at = question.find(text)
    return at >= 0 and question.count(text) == 1 and bool(_SAME_AFTER.match(question, at + len(text)))


def _word_given_of(v: Fraction, question: str) -> bool:
    """Does the question write a word given of value ``v`` ("half": 2)?"""
    from qcstation.core.construct.make.rules.phrases import stated_word_givens
    from qcstation.core.reading.words import WORD_GIVENS

    return any(v in WORD_GIVENS[p] for p in stated_word_givens(question.lower()))


_COLOURS = frozenset("red orange yellow green blue purple pink white black brown gray grey violet".split())
_COLOUR_RE = re.compile("|".join(sorted(_COLOURS)))
_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def _counted_calendar_list(cands: list[tuple[str, tuple[str, ...]]], v: Fraction, line: str) -> str | None:
    """The one list of ``v`` weekdays, months or colours whose count the line writes before "days",
    "months" or "colors" ("on Monday, Wednesday, and Saturday each week" / "$8/day * 3 days"; "in
    September and October" / "for two months ... $124 * 2"; "red, yellow, orange, and purple flowers"
    / "for each of the 4 colors"), else None."""
    for members_re, unit in ((_WEEKDAY, "days"), (_MONTH_RE, "months"), (_COLOUR_RE, "colou?rs")):
        lists = [text for text, ms in cands if all(members_re.fullmatch(w) for w in ms)]
        count = rf"(?:{v.numerator}|{_COUNT_WORDS.get(v.numerator, '-')})"
        if len(lists) == 1 and re.search(rf"(?<![\d.,]){count}\s+{unit}\b", line, re.I):
            return lists[0]
    return None


_TOTAL_WORDS = re.compile(r"\b(?:a total of|in total|total|together|combined|altogether)\b", re.I)
_LINE_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")


def _total_of_one_member(cands: list[tuple[str, tuple[str, ...]]], question: str, line: str) -> str | None:
    """The list of names whose count a divisor is where the line names one member only: "Camden
    and Sarah painted a total of 30 eggs, but Camden painted 12 more than Sarah" / "Sarah painted
    (30 - 12)/2" (1130): the total less the difference, shared by the two. Only the one list of
    that many names with a member on the line, whose sentence states a total of them ("a total
    of", "together") and two numbers the line writes (the total and the difference; "Elijah's
    second dog is 60 / 2" beside "Elijah and Kory's dogs ... 60 pounds ... altogether" is half
    the weight, no share of a pair); None otherwise."""
    q = question[:20_000]
    said = {m.group(0) for m in _LINE_NUMBER.finditer(line)}
    found = []
    for text, ms in cands:
        if not any(re.search(rf"\b{re.escape(w)}\b", line) for w in ms):
            continue
        at = q.find(text)
        a = max(q.rfind(c, 0, at) for c in ".?!") + 1
        ends = [e for e in (q.find(c, at) for c in ".?!") if e != -1]
        sentence = q[a:min(ends) if ends else len(q)]
        stated = {m.group(0) for m in _LINE_NUMBER.finditer(sentence)}
        if _TOTAL_WORDS.search(sentence) and len(stated & said) >= 2:
            found.append(text)
    return found[0] if len(found) == 1 else None


#: "equal amounts of red, white, and purple paint", "divides the bag equally among the cookies,
#: granola, and snack mix": the words right before a list that share something among its members
_EQUAL_SHARE_BEFORE = re.compile(r"\b(?:equal\s+(?:amounts?|parts?|shares?|numbers?)\s+of|equally\s+(?:among|between)"
                                 r"|evenly\s+(?:among|between))\s+(?:the\s+)?$", re.I)
_EQUAL_SHARE_LINE = re.compile(r"\b(?:equal(?:ly)?|evenly|share[sd]?|split|divid(?:e|es|ed|ing))\b", re.I)


_SAID_SAME = re.compile(r"[^.?!]{0,80}?\b(?:they|both|each)\b[^.?!]{0,30}?\b(?:the\s+same|equal)\b", re.I)


def _said_same(question: str, text: str) -> bool:
    """Does the sentence that writes the list ``text`` (once) go on to say its members are the same
    ("... and they have the same sized area")?"""
    at = question.find(text)
    return at >= 0 and question.count(text) == 1 and bool(_SAID_SAME.match(question, at + len(text)))


def shared_lists(question: str, v: Fraction) -> list[str]:
    """The texts of the lists of ``v`` things in lower case that the question shares something
    equally among ("equal amounts of red, white, and purple paint"): a step that divides by ``v``
    on a line that shares or divides is that list's count (1171 "equal amounts of the other three
    colors ... 6 / 3"; 526 "27 / 3 ... after dividing the bag")."""
    q = question[:20_000]
    out = []
    for text, ms in word_lists(q):
        if len(ms) != v:
            continue
        if any(_EQUAL_SHARE_BEFORE.search(q, max(0, m.start() - 40), m.start())
               for m in re.finditer(re.escape(text), q)):
            out.append(text)
    return out
